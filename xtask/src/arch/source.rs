//! One Rust source file read with `syn`: the modules it declares, the paths it names and the
//! functions it defines, each with its line (proc-macro2's span locations).
//!
//! Nothing here knows about other files: [`super::graph`] follows the `mod` declarations and
//! resolves the paths.

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Attribute, Item, UseTree};

/// Where in its file a fact sits: an index into [`FileFacts::scopes`], `0` for the file's own
/// module, one more for each inline module (`mod x { … }`).
pub type Scope = usize;

/// A `mod x;` or `mod x { … }` declaration.
#[derive(Debug, Clone)]
pub struct ModDecl {
    /// The module the declaration sits in.
    pub scope: Scope,
    /// The module's name.
    pub name: String,
    /// For `mod x { … }`, the scope of its items (in this file).
    pub inline: Option<Scope>,
    /// The value of `#[path = "…"]`, if any.
    pub path_attr: Option<String>,
    /// Declared under `#[cfg(test)]` (or `#[cfg(all(test, …))]`).
    pub test: bool,
    /// The line of the `mod` keyword.
    pub line: usize,
}

/// How a path was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    /// One leaf of a `use` tree.
    Use,
    /// A path in code: an expression, a type, a pattern, a trait bound, a macro's name.
    Code,
    /// A path found in the tokens of a macro call or a `macro_rules!` body.
    Macro,
}

/// One path written in the file.
#[derive(Debug, Clone)]
pub struct PathUse {
    /// The module it is written in.
    pub scope: Scope,
    /// Its segments' names (`super`, `self`, `crate` included; `*` for a glob).
    pub segments: Vec<String>,
    /// Written with a leading `::` (an extern crate).
    pub leading_colon: bool,
    /// The line of its first segment.
    pub line: usize,
    /// Where it was written.
    pub kind: PathKind,
    /// For a `use` leaf, the name it brings into scope (`b` for `a::b`, `c` for `a::b as c`,
    /// `a` for `a::{self}`); `None` for globs and `as _`.
    pub alias: Option<String>,
}

/// One function with a body: a free function, a method, a trait's default method.
#[derive(Debug, Clone)]
pub struct FnSpan {
    /// The module it is defined in.
    pub scope: Scope,
    /// `name`, or `Type::name` for a method (the last segment of the impl's self type or the
    /// trait's name).
    pub name: String,
    /// The line of the `fn` keyword.
    pub start: usize,
    /// The line of the closing brace of its body.
    pub end: usize,
    /// Test code: under `#[cfg(test)]` (itself, or an impl or module around it), or a
    /// `#[test]` / `#[tokio::test]` function (any attribute whose last segment is `test`).
    pub test: bool,
}

/// What [`read`] found in one file.
#[derive(Debug, Default)]
pub struct FileFacts {
    /// The inline module path of each scope (`[]` for scope 0, the file's module).
    pub scopes: Vec<Vec<String>>,
    /// Module declarations, in source order (an inline module before what it declares).
    pub mods: Vec<ModDecl>,
    /// Every path.
    pub paths: Vec<PathUse>,
    /// Every function with a body.
    pub fns: Vec<FnSpan>,
    /// The file's line count (as `wc -l` counts a file ending in a newline).
    pub lines: usize,
    /// Lines of items under `#[cfg(test)]` or marked `#[test]`, outermost items only (for the
    /// lengths report: how much of a file is test code).
    pub test_lines: usize,
    /// The file starts with `#![cfg(test)]`.
    pub test_only: bool,
}

/// Parses `src` (a whole file).
///
/// # Errors
/// `syn`'s error when the file is not valid Rust.
pub fn read(src: &str) -> syn::Result<FileFacts> {
    let file = syn::parse_file(src)?;
    let mut v = Visitor {
        facts: FileFacts {
            lines: src.lines().count(),
            test_only: file.attrs.iter().any(is_cfg_test),
            scopes: vec![Vec::new()],
            ..FileFacts::default()
        },
        scope: 0,
        test_depth: 0,
        impl_names: Vec::new(),
    };
    for item in &file.items {
        v.visit_item(item);
    }
    Ok(v.facts)
}

/// `#[cfg(test)]` or `#[cfg(all(test, …))]`: compiled only for tests. (`cfg(any(test, …))` and
/// `cfg(not(test))` are not.)
pub fn is_cfg_test(attr: &Attribute) -> bool {
    if !attr.path().is_ident("cfg") {
        return false;
    }
    let Ok(list) = attr.meta.require_list() else {
        return false;
    };
    let words: Vec<String> = list
        .tokens
        .clone()
        .into_iter()
        .map(|t| t.to_string())
        .collect();
    match words.as_slice() {
        [w] => w == "test",
        [all, group] if all == "all" => {
            let inner = group.trim_start_matches('(').trim_end_matches(')');
            inner.split(',').any(|w| w.trim() == "test")
        }
        _ => false,
    }
}

/// An attribute that makes a function a test: `#[test]`, `#[tokio::test]`, `#[cfg(test)]`.
fn is_test_attr(attr: &Attribute) -> bool {
    is_cfg_test(attr)
        || attr
            .path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "test")
}

/// Macros whose bodies are code generated for another crate: their paths name nothing here.
fn is_quote_macro(name: &str) -> bool {
    matches!(
        name,
        "quote" | "quote_spanned" | "parse_quote" | "parse_quote_spanned"
    )
}

/// The attributes of an item (empty for the kinds that cannot carry `#[cfg(test)]` usefully).
fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

struct Visitor {
    facts: FileFacts,
    scope: Scope,
    /// > 0 inside test code.
    test_depth: usize,
    /// The self types of the impls (or the traits) around the current item.
    impl_names: Vec<String>,
}

impl Visitor {
    fn push_path(
        &mut self,
        segments: Vec<String>,
        leading_colon: bool,
        line: usize,
        kind: PathKind,
    ) {
        if keep(&segments, leading_colon) {
            self.facts.paths.push(PathUse {
                scope: self.scope,
                segments,
                leading_colon,
                line,
                kind,
                alias: None,
            });
        }
    }

    fn push_fn(&mut self, name: &syn::Ident, start: usize, block: &syn::Block, test: bool) {
        let name = match self.impl_names.last() {
            Some(owner) => format!("{owner}::{name}"),
            None => name.to_string(),
        };
        self.facts.fns.push(FnSpan {
            scope: self.scope,
            name,
            start,
            end: block.brace_token.span.close().start().line,
            test: test || self.test_depth > 0,
        });
    }

    /// Runs `f` with the test depth raised when `test` (counting the item's lines as test lines
    /// when it is the outermost test item).
    fn in_test<T: Spanned>(&mut self, test: bool, item: &T, f: impl FnOnce(&mut Self)) {
        if test {
            if self.test_depth == 0 {
                let span = item.span();
                self.facts.test_lines += span.end().line + 1 - span.start().line;
            }
            self.test_depth += 1;
        }
        f(self);
        if test {
            self.test_depth -= 1;
        }
    }

    /// The paths in a macro's tokens: `a::b::c` runs of identifiers, outside `$crate::…` and
    /// `$var::…` (which name a module where the macro expands).
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let toks: Vec<TokenTree> = tokens.into_iter().collect();
        let is_colon2 = |i: usize| {
            matches!((toks.get(i), toks.get(i + 1)),
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                    if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
        };
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Group(g) => self.scan_tokens(g.stream()),
                TokenTree::Ident(id) => {
                    let after_dollar =
                        i > 0 && matches!(&toks[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
                    // After `::`: a leading `::` (extern), or a segment after generics
                    // (`Vec::<u8>::new`), which is no path of its own.
                    let after_colons = i >= 2 && is_colon2(i - 2);
                    let continuation = after_colons
                        && i >= 3
                        && match &toks[i - 3] {
                            TokenTree::Ident(_) => true,
                            TokenTree::Punct(p) => p.as_char() == '>',
                            _ => false,
                        };
                    let mut segments = vec![id.to_string()];
                    let mut j = i + 1;
                    while is_colon2(j) {
                        let Some(TokenTree::Ident(next)) = toks.get(j + 2) else {
                            break;
                        };
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if !after_dollar && !continuation {
                        let line = id.span().start().line;
                        self.push_path(segments, after_colons, line, PathKind::Macro);
                    }
                    i = j;
                    continue;
                }
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
            i += 1;
        }
    }
}

/// Single-segment paths are local names (variables, functions) except capitalised ones, kept
/// for the rules that forbid naming an item (`GroupCoordinator`).
fn keep(segments: &[String], leading_colon: bool) -> bool {
    segments.len() > 1
        || leading_colon
        || segments
            .first()
            .is_some_and(|s| s.starts_with(char::is_uppercase))
}

/// One leaf of a `use` tree: `(segments, alias, line)`.
type UseLeaf = (Vec<String>, Option<String>, usize);

/// The leaves of a `use` tree under `prefix`.
fn use_leaves(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseLeaf>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(n) => out.push(use_leaf(prefix, &n.ident, None)),
        UseTree::Rename(r) => out.push(use_leaf(prefix, &r.ident, Some(&r.rename))),
        UseTree::Glob(g) => {
            let mut segments = prefix.clone();
            segments.push("*".to_owned());
            out.push((segments, None, g.star_token.span.start().line));
        }
        UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

/// `prefix::name` (or `prefix` itself for `self`), bound as `rename`, else as its last name.
fn use_leaf(prefix: &[String], name: &syn::Ident, rename: Option<&syn::Ident>) -> UseLeaf {
    let is_self = name == "self";
    let mut segments = prefix.to_vec();
    if !is_self || segments.is_empty() {
        segments.push(name.to_string());
    }
    let bound = match rename {
        Some(r) => r.to_string(),
        None => segments.last().cloned().unwrap_or_default(),
    };
    let alias = (!matches!(bound.as_str(), "" | "_" | "self" | "super" | "crate")).then_some(bound);
    (segments, alias, name.span().start().line)
}

impl<'ast> Visit<'ast> for Visitor {
    fn visit_item(&mut self, item: &'ast Item) {
        // A `#[cfg(test)] mod x;` holds its test lines in its own file.
        let out_of_line = matches!(item, Item::Mod(m) if m.content.is_none());
        let test = !out_of_line && item_attrs(item).iter().any(is_cfg_test);
        self.in_test(test, item, |v| visit::visit_item(v, item));
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let path_attr = m.attrs.iter().find_map(|a| {
            let nv = a.meta.require_name_value().ok()?;
            if !nv.path.is_ident("path") {
                return None;
            }
            match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            }
        });
        let inline = m.content.as_ref().map(|_| {
            let mut path = self.facts.scopes[self.scope].clone();
            path.push(m.ident.to_string());
            self.facts.scopes.push(path);
            self.facts.scopes.len() - 1
        });
        self.facts.mods.push(ModDecl {
            scope: self.scope,
            name: m.ident.to_string(),
            inline,
            path_attr,
            test: m.attrs.iter().any(is_cfg_test),
            line: m.mod_token.span.start().line,
        });
        if let (Some((_, items)), Some(inner)) = (&m.content, inline) {
            let outer_scope = std::mem::replace(&mut self.scope, inner);
            let outer = std::mem::take(&mut self.impl_names);
            for item in items {
                self.visit_item(item);
            }
            self.impl_names = outer;
            self.scope = outer_scope;
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
        for (segments, alias, line) in leaves {
            self.facts.paths.push(PathUse {
                scope: self.scope,
                segments,
                leading_colon: u.leading_colon.is_some(),
                line,
                kind: PathKind::Use,
                alias,
            });
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        self.impl_names
            .push(owner.unwrap_or_else(|| "impl".to_owned()));
        visit::visit_item_impl(self, i);
        self.impl_names.pop();
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.impl_names.push(t.ident.to_string());
        visit::visit_item_trait(self, t);
        self.impl_names.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let test = f.attrs.iter().any(is_test_attr);
        let start = f.sig.fn_token.span.start().line;
        // A fn inside a fn body is not a method of the impl around the outer fn.
        let outer = std::mem::take(&mut self.impl_names);
        self.push_fn(&f.sig.ident, start, &f.block, test);
        self.in_test(test, f, |v| visit::visit_item_fn(v, f));
        self.impl_names = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let test = f.attrs.iter().any(is_test_attr);
        self.push_fn(
            &f.sig.ident,
            f.sig.fn_token.span.start().line,
            &f.block,
            test,
        );
        self.in_test(test, f, |v| visit::visit_impl_item_fn(v, f));
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        let test = f.attrs.iter().any(is_test_attr);
        if let Some(block) = &f.default {
            self.push_fn(&f.sig.ident, f.sig.fn_token.span.start().line, block, test);
        }
        self.in_test(test, f, |v| visit::visit_trait_item_fn(v, f));
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let single = p.segments.len() == 1 && p.leading_colon.is_none();
        if let Some(first) = p.segments.first() {
            let name = first.ident.to_string();
            if !single || name.starts_with(char::is_uppercase) {
                let mut segments = Vec::with_capacity(p.segments.len());
                segments.push(name);
                segments.extend(p.segments.iter().skip(1).map(|s| s.ident.to_string()));
                let line = first.ident.span().start().line;
                self.push_path(segments, p.leading_colon.is_some(), line, PathKind::Code);
            }
        }
        visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        if !name.as_deref().is_some_and(is_quote_macro) {
            self.scan_tokens(m.tokens.clone());
        }
    }

    /// `pub(in crate::a)` names no import.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    /// Attributes (`#[derive(…)]`, `#[cfg(…)]`, docs) name no import.
    fn visit_attribute(&mut self, _: &'ast Attribute) {}
}
