//! Token helpers every emitter shares: version conditions, the runtime path, parameter names
//! that avoid unused warnings, doc attributes. A leaf: it imports no emitter.

use crate::ir::Versions;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// A version condition, relative to the message's valid versions.
#[derive(Clone)]
pub(crate) enum Cond {
    /// Holds in every valid version.
    Always,
    /// Holds in no valid version.
    Never,
    /// Holds in some: the expression over `version`.
    Expr(TokenStream),
}

impl Cond {
    /// The condition "`version` is in `r`", folded against the valid versions `ctx`.
    pub(crate) fn of(r: Versions, ctx: Versions) -> Cond {
        let r = r.intersect(&ctx);
        if r.is_empty() {
            return Cond::Never;
        }
        let lo = r.lowest > ctx.lowest;
        let hi = r.highest < ctx.highest;
        let (l, h) = (
            Literal::i16_unsuffixed(r.lowest),
            Literal::i16_unsuffixed(r.highest),
        );
        match (lo, hi) {
            (false, false) => Cond::Always,
            (true, false) => Cond::Expr(quote!(version >= #l)),
            (false, true) => Cond::Expr(quote!(version <= #h)),
            (true, true) if r.lowest == r.highest => Cond::Expr(quote!(version == #l)),
            (true, true) => Cond::Expr(quote!((#l..=#h).contains(&version))),
        }
    }
    /// The condition as a `bool` expression.
    pub(crate) fn tokens(&self) -> TokenStream {
        match self {
            Cond::Always => quote!(true),
            Cond::Never => quote!(false),
            Cond::Expr(e) => e.clone(),
        }
    }
    /// The condition as the runtime's `Encoding` ("compact when the condition holds"):
    /// `rt::Encoding::Compact`, `rt::Encoding::Classic`, or `rt::Encoding::compact_when(…)`.
    pub(crate) fn encoding(&self) -> TokenStream {
        let w = W();
        match self {
            Cond::Always => quote!(#w::Encoding::Compact),
            Cond::Never => quote!(#w::Encoding::Classic),
            Cond::Expr(e) => quote!(#w::Encoding::compact_when(#e)),
        }
    }
    /// The condition as the runtime's `Nullable` ("null allowed when the condition holds"):
    /// `rt::Nullable::Yes`, `rt::Nullable::No`, or `rt::Nullable::when(…)`.
    pub(crate) fn nullable(&self) -> TokenStream {
        let w = W();
        match self {
            Cond::Always => quote!(#w::Nullable::Yes),
            Cond::Never => quote!(#w::Nullable::No),
            Cond::Expr(e) => quote!(#w::Nullable::when(#e)),
        }
    }
    /// `cond && other`, folded when the condition is constant.
    pub(crate) fn and(&self, other: TokenStream) -> TokenStream {
        match self {
            Cond::Always => other,
            Cond::Never => quote!(false),
            Cond::Expr(e) => quote!((#e) && #other),
        }
    }
    /// `if cond { a } else { b }`, folded when the condition is constant.
    pub(crate) fn select(&self, a: TokenStream, b: TokenStream) -> TokenStream {
        match self {
            Cond::Always => a,
            Cond::Never => b,
            Cond::Expr(e) if b.is_empty() => quote!(if #e { #a }),
            Cond::Expr(e) => quote!(if #e { #a } else { #b }),
        }
    }
    /// Whether the condition holds in no version.
    pub(crate) fn is_never(&self) -> bool {
        matches!(self, Cond::Never)
    }
    /// Whether the condition holds in every version.
    pub(crate) fn is_always(&self) -> bool {
        matches!(self, Cond::Always)
    }
}

/// The name generated code calls the runtime by: each generated module starts with
/// [`runtime_alias`].
pub(crate) const W: fn() -> TokenStream = || quote!(rt);

/// The import at the top of each generated module: the runtime as `rt`.
pub(crate) fn runtime_alias() -> TokenStream {
    quote!(
        use ::kwire_protocol::__private as rt;
    )
}

/// Prefixes `body` with `use rt::ErrorPath as _;` when it calls its methods.
pub(crate) fn with_error_path(body: TokenStream) -> TokenStream {
    let text = body.to_string();
    if text.contains("at_field") || text.contains("at_index") {
        quote!(use rt::ErrorPath as _; #body)
    } else {
        body
    }
}

/// Whether the variable `name` is used in `ts`: an identifier `name` that is neither a field
/// access (`self.name`) nor a field label in a struct literal (`name: value`).
pub(crate) fn uses_ident(ts: &TokenStream, name: &str) -> bool {
    use proc_macro2::{Spacing, TokenTree};
    let toks: Vec<TokenTree> = ts.clone().into_iter().collect();
    toks.iter().enumerate().any(|(k, t)| match t {
        TokenTree::Ident(i) if i == name => {
            let after_dot = k > 0 && matches!(&toks[k - 1], TokenTree::Punct(p) if p.as_char() == '.');
            let label = matches!(toks.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Alone);
            !after_dot && !label
        }
        TokenTree::Group(g) => uses_ident(&g.stream(), name),
        _ => false,
    })
}

/// A parameter name: `name` when the body uses it, `_name` otherwise (no unused warnings).
pub(crate) fn param(body: &TokenStream, name: &str) -> proc_macro2::Ident {
    if uses_ident(body, name) {
        format_ident!("{}", name)
    } else {
        format_ident!("_{}", name)
    }
}

/// `#[doc = " line"]` attributes, one per line of `text`.
pub(crate) fn doc_lines(text: &str) -> Vec<TokenStream> {
    text.lines()
        .map(|l| {
            let l = format!(" {}", l.trim_end());
            quote!(#[doc = #l])
        })
        .collect()
}

/// `#[cfg(feature = "<feature>")]` when `on`, nothing otherwise.
pub(crate) fn cfg_feature(on: bool, feature: &str) -> TokenStream {
    if on {
        quote!(#[cfg(feature = #feature)])
    } else {
        quote!()
    }
}
