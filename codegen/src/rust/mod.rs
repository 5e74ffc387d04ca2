//! The Rust backend: IR → token streams → formatted source files.
//!
//! For each spec, one module holding the message and its structs with their `Default`, `Encode`,
//! `Decode` and `Message` impls. For the spec set, an `api` module with the `ApiKey` enum,
//! header-version selection and request/response dispatch (see [`api`]), and, when the set has
//! Kafka 4.x coordinator records, a `coordinator_record_type` module with their
//! `CoordinatorRecordType` enum (`record_type`). Each emitted module
//! starts with `use ::kwire_protocol::__private as rt;` and names the runtime as `rt::…`, the
//! standard library by full path (`::core::…`), so it needs nothing but the runtime. The root
//! items ([`root_items`]) check at compile time that the runtime is the one the code was
//! generated for ([`RUNTIME_ABI`]).
//!
//! The steps: `plan` computes what every emitter needs about one struct, once; `message`
//! (with `encode` and `decode`), `sample`, `json` and `view` each emit their items from the
//! plan; only this module calls them.

pub mod api;
mod decode;
mod encode;
mod json;
mod message;
mod options;
mod plan;
mod record_type;
mod sample;
mod tokens;
mod view;

pub use crate::names;
pub use options::Options;

use crate::ir::Spec;
use proc_macro2::TokenStream;

/// The runtime ABI this emitter generates for: generated code calls
/// `kwire_protocol::__private::expect_runtime(RUNTIME_ABI)` in a constant, so that it fails to
/// compile, with a message saying so, against a kwire-protocol with another number. Equal to
/// `kwire_protocol::__private::RUNTIME_ABI` of the same release (a unit test checks).
pub const RUNTIME_ABI: u32 = 4;

/// One generated module.
#[derive(Debug, Clone)]
pub struct Module {
    /// Module name (snake_case of the message name, or `api`).
    pub name: String,
    /// Spec file it came from (`None` for `api`).
    pub source: Option<String>,
    /// One-line description for the module's doc.
    pub doc: String,
    /// The module's items.
    pub tokens: TokenStream,
}

/// Emits every spec's module plus the `api` module for the set.
pub fn emit(specs: &[Spec], opts: &Options) -> Vec<Module> {
    let mut sorted: Vec<&Spec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = Vec::new();
    for spec in &sorted {
        let cx = plan::Ctx::new(spec, opts);
        out.push(Module {
            name: names::snake(&spec.name),
            source: Some(spec.file.clone()),
            doc: format!("`{}` ({}), from `{}{}`.", spec.name, spec.kind.as_str(), opts.source_prefix, spec.file),
            tokens: with_alias(emit_spec(&cx)),
        });
    }
    out.push(Module {
        name: "api".into(),
        source: None,
        doc: "API keys, header versions and request/response dispatch for this spec set.".into(),
        tokens: with_alias(api::emit_api_with(&sorted, opts)),
    });
    let pairs = crate::records::pairs(&sorted);
    if !pairs.is_empty() {
        out.push(Module {
            name: record_type::MODULE.into(),
            source: None,
            doc: "The coordinator record types of this spec set (`coordinator-key` and `coordinator-value` pairs).".into(),
            tokens: with_alias(record_type::emit(&pairs)),
        });
    }
    out
}

/// A module body, after the import naming the runtime `rt` (when the body uses it: the `api`
/// module of a set without APIs does not).
fn with_alias(body: TokenStream) -> TokenStream {
    if !tokens::uses_ident(&body, "rt") {
        return body;
    }
    let alias = tokens::runtime_alias();
    quote::quote!(#alias #body)
}

/// The module body of one spec: every struct, the message itself first, each with its owned
/// type, then (as the options ask) its `Sample`, JSON and view impls.
fn emit_spec(cx: &plan::Ctx) -> TokenStream {
    let top = cx.spec.top();
    let structs = std::iter::once((&top, true)).chain(cx.spec.structs.iter().map(|st| (st, false)));
    let mut out = TokenStream::new();
    for (st, is_top) in structs {
        let p = plan::StructPlan::new(cx, st, is_top);
        out.extend(message::emit(cx, &p, encode::body(cx, &p), decode::body(cx, &p)));
        if is_top {
            out.extend(record_type::record_type_const(cx.spec));
        }
        if cx.opts.samples {
            out.extend(sample::emit(cx, &p));
        }
        if cx.opts.json {
            out.extend(json::emit(cx, &p));
        }
        if cx.opts.views {
            out.extend(view::emit(cx, &p));
        }
    }
    out
}

/// Formats tokens as a source file with prettyplease.
///
/// # Panics
/// Never on tokens from this emitter; a parse failure is reported as a source comment.
pub fn format_tokens(tokens: &TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(f) => prettyplease::unparse(&f),
        Err(e) => format!("compile_error!(\"kwire emitted invalid tokens: {}\");\n", e.to_string().replace('"', "'")),
    }
}

/// The `// @generated` header line of a file.
pub fn header(what: &str) -> String {
    format!("// @generated by kwire-codegen from {what}. Do not edit: regenerate instead.\n\n")
}

/// The root items: the runtime ABI check, and the module re-exports
/// (`pub use metadata_request::MetadataRequest;` and the `api` items).
pub fn root_items(specs: &[Spec]) -> TokenStream {
    let abi = proc_macro2::Literal::u32_unsuffixed(RUNTIME_ABI);
    let uses = reexports(specs);
    quote::quote!(
        const _: () = ::kwire_protocol::__private::expect_runtime(#abi);
        #(pub use #uses;)*
    )
}

/// The paths the root re-exports: each message, then the `api` items, then the
/// `coordinator_record_type` items (`CoordinatorRecordType`) when the set has coordinator records.
fn reexports(specs: &[Spec]) -> Vec<TokenStream> {
    let mut sorted: Vec<&Spec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let has_records = !crate::records::pairs(&sorted).is_empty();
    let mut out: Vec<TokenStream> = sorted
        .iter()
        .map(|s| {
            let m = names::module_ident(&s.name);
            let t = names::type_ident(&s.name);
            quote::quote!(#m::#t)
        })
        .collect();
    out.push(quote::quote!(api::*));
    if has_records {
        let m = names::ident(record_type::MODULE);
        // A glob, as `api::*`: the build scripts that list the messages from these lines
        // (tests/, fuzz/) take every other line for a message.
        out.push(quote::quote!(#m::*));
    }
    out
}

/// The one allowance of Builder output: a program uses part of a spec set by design, so the
/// items and re-exports it leaves unused must not warn (in a binary, or a private module). Each
/// module gets `#[allow(dead_code)]`, the one root re-export `#[allow(unused_imports)]`; no other
/// lint is allowed, so generated code that is wrong in another way still warns.
fn allow_unused() -> (TokenStream, TokenStream) {
    (quote::quote!(#[allow(dead_code)]), quote::quote!(#[allow(unused_imports)]))
}

/// Every module in one source file (`pub mod x { … }` inline), as a build script writes it.
pub fn single_file(specs: &[Spec], opts: &Options) -> String {
    let mut out = header("a kwire-codegen Builder run");
    let (allow_items, allow_reexports) = allow_unused();
    let mut tokens = TokenStream::new();
    for m in emit(specs, opts) {
        let name = names::ident(&m.name);
        let doc = format!(" {}", m.doc);
        let body = m.tokens;
        tokens.extend(quote::quote!(#[doc = #doc] #allow_items pub mod #name { #body }));
    }
    let abi = proc_macro2::Literal::u32_unsuffixed(RUNTIME_ABI);
    let uses = reexports(specs);
    tokens.extend(quote::quote!(
        const _: () = ::kwire_protocol::__private::expect_runtime(#abi);
        #allow_reexports
        pub use self::{#(#uses),*};
    ));
    out.push_str(&format_tokens(&tokens));
    out
}

#[cfg(test)]
mod tests {
    /// Generated code checks this number against the runtime's at compile time; the two crates
    /// of one release must agree.
    #[cfg(feature = "wire")]
    #[test]
    fn runtime_abi_matches_the_protocol_crate() {
        assert_eq!(super::RUNTIME_ABI, kwire_protocol::__private::RUNTIME_ABI);
    }
}
