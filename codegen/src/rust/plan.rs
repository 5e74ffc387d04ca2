//! The plan step: what every emitter needs to know about one struct, computed once.
//!
//! Spec → IR ([`crate::ir`]) → plan (here) → emitters (`message`, `json`, `view`, `sample`).
//! A [`StructPlan`] holds each field's Rust identifier and type, its version conditions (present,
//! nullable, tagged, compact) folded against the message's valid versions, the runs of
//! fixed-size fields written and checked as one block, and the tagged fields in both orders the
//! emitters use. The Rust types and default values of spec types live here too, since every
//! emitter reads them.

use super::options::Options;
use super::tokens::{doc_lines, uses_ident, Cond, W};
use crate::ir::{DefaultValue, Field, Spec, Struct, Type, Versions};
use crate::names::{field_ident, plain, type_ident};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// One spec being emitted, with the options and the facts every struct of it shares.
pub(crate) struct Ctx<'a> {
    /// The spec.
    pub spec: &'a Spec,
    /// The emitter options.
    pub opts: &'a Options,
    /// The flexible versions, as a condition over the valid ones.
    pub flexible: Cond,
    /// The same inside a body that declares `let flexible = …;`: the variable when it varies.
    pub flex_var: Cond,
}

impl<'a> Ctx<'a> {
    /// The context of `spec`.
    pub(crate) fn new(spec: &'a Spec, opts: &'a Options) -> Self {
        let flexible = Cond::of(spec.flexible, spec.valid);
        let flex_var = match &flexible {
            Cond::Expr(_) => Cond::Expr(quote!(flexible)),
            constant => constant.clone(),
        };
        Ctx {
            spec,
            opts,
            flexible,
            flex_var,
        }
    }
    /// The message's valid versions.
    pub(crate) fn valid(&self) -> Versions {
        self.spec.valid
    }
    /// Whether some valid version is flexible (so structs carry unknown tagged fields).
    pub(crate) fn has_flexible(&self) -> bool {
        !self.flexible.is_never()
    }
}

/// Declares `let flexible = version >= N;` before `body` when the body uses the variable
/// (`Ctx::flex_var`, a field's `compact`).
pub(crate) fn with_flexible(cx: &Ctx, body: TokenStream) -> TokenStream {
    if uses_ident(&body, "flexible") {
        let f = cx.flexible.tokens();
        quote!(let flexible = #f; #body)
    } else {
        body
    }
}

/// One field, as the emitters see it.
pub(crate) struct FieldPlan<'a> {
    /// The spec field.
    pub field: &'a Field,
    /// Its position in the struct (the index of its offset in a view).
    pub index: usize,
    /// The Rust field identifier (raw when a keyword).
    pub ident: Ident,
    /// The identifier without `r#`, as error paths name it.
    pub name: String,
    /// The Rust type (`Option<…>` when nullable in some version).
    pub ty: TokenStream,
    /// The field's versions.
    pub in_version: Cond,
    /// The versions in which it is written outside the tagged section.
    pub untagged: Cond,
    /// Nullable, within the untagged versions (where the code reading or writing it runs).
    pub nullable: Cond,
    /// Compact encoding of a string, bytes or array, within the untagged versions; the
    /// `flexible` variable when it is the message's flexible versions.
    pub compact: Cond,
    /// Nullable, within the field's versions (where a view accessor or a sample reads it).
    pub nullable_read: Cond,
    /// Compact encoding, within the field's versions, as an expression over `version`.
    pub compact_read: Cond,
    /// The tagged form, when the field has a tag.
    pub tag: Option<TagPlan>,
}

/// A tagged field's tag and conditions.
pub(crate) struct TagPlan {
    /// The tag number.
    pub tag: u32,
    /// The tagged versions (open-ended).
    pub versions: Versions,
    /// The tagged versions, within the flexible ones (where the tagged section is).
    pub cond: Cond,
    /// The tagged versions, within the valid ones.
    pub in_valid: Cond,
    /// The tagged versions, within the field's versions (where a view accessor reads it).
    pub read_cond: Cond,
    /// Nullable, within the tagged versions.
    pub nullable: Cond,
}

/// A step of the field walk: a run of fixed-size fields present in every version (written with
/// one copy and checked with one bounds check), or one other field.
pub(crate) enum Group {
    /// Field indices of the run, and its total size in bytes.
    Fixed { fields: Vec<usize>, size: usize },
    /// One field index.
    One(usize),
}

/// One struct, as the emitters see it.
pub(crate) struct StructPlan<'a> {
    /// The IR struct.
    pub st: &'a Struct,
    /// Whether this is the message itself (the spec's top level).
    pub top: bool,
    /// The Rust type identifier.
    pub ty: Ident,
    /// The spec name, as error paths and docs show it.
    pub name: String,
    /// The fields, in wire order.
    pub fields: Vec<FieldPlan<'a>>,
    /// The fixed-size runs and other fields, in wire order.
    pub groups: Vec<Group>,
    /// Indices of the tagged fields, in field order.
    pub tagged: Vec<usize>,
    /// Indices of the tagged fields, in tag order.
    pub tagged_by_tag: Vec<usize>,
}

impl<'a> StructPlan<'a> {
    /// The plan of `st` in the spec of `cx`.
    pub(crate) fn new(cx: &Ctx, st: &'a Struct, top: bool) -> Self {
        let fields: Vec<FieldPlan<'a>> = st
            .fields
            .iter()
            .enumerate()
            .map(|(index, f)| field_plan(cx, f, index))
            .collect();
        let groups = groups(&fields);
        let tagged: Vec<usize> = fields
            .iter()
            .filter(|p| p.tag.is_some())
            .map(|p| p.index)
            .collect();
        let mut tagged_by_tag = tagged.clone();
        tagged_by_tag.sort_by_key(|k| fields[*k].tag.as_ref().map(|t| t.tag));
        StructPlan {
            st,
            top,
            ty: type_ident(&st.name),
            name: st.name.clone(),
            fields,
            groups,
            tagged,
            tagged_by_tag,
        }
    }

    /// The known tags, in tag order, as literals.
    pub(crate) fn known_tags(&self) -> Vec<Literal> {
        self.tagged_by_tag
            .iter()
            .filter_map(|k| self.fields[*k].tag.as_ref())
            .map(|t| Literal::u32_unsuffixed(t.tag))
            .collect()
    }
}

fn field_plan<'a>(cx: &Ctx, f: &'a Field, index: usize) -> FieldPlan<'a> {
    let valid = cx.valid();
    let ident = field_ident(&f.name);
    // Each condition is folded against the versions in which the code testing it runs, so
    // that no condition repeats one around it (`if version >= 3 { … version >= 1 … }`).
    let present = f.untagged_versions().intersect(&valid);
    let in_field = f.versions.intersect(&valid);
    let flexible = cx.spec.flexible;
    let compact_range = match (&f.ty, f.flexible_override) {
        (Type::String | Type::Bytes, Some(o)) => Some(o),
        _ => None,
    };
    let compact = match (compact_range, Cond::of(flexible, present)) {
        (Some(o), _) => Cond::of(o, present),
        (None, Cond::Expr(_)) => Cond::Expr(quote!(flexible)),
        (None, constant) => constant,
    };
    let tag = f.tag.as_ref().map(|(tag, tv)| TagPlan {
        tag: *tag,
        versions: *tv,
        cond: Cond::of(*tv, flexible.intersect(&valid)),
        in_valid: Cond::of(*tv, valid),
        read_cond: Cond::of(*tv, in_field),
        nullable: Cond::of(f.nullable, tv.intersect(&valid)),
    });
    FieldPlan {
        field: f,
        index,
        name: plain(&ident),
        ident,
        ty: field_type(f),
        in_version: Cond::of(f.versions, valid),
        untagged: Cond::of(f.untagged_versions(), valid),
        nullable: Cond::of(f.nullable, present),
        compact,
        nullable_read: Cond::of(f.nullable, in_field),
        compact_read: Cond::of(compact_range.unwrap_or(flexible), in_field),
        tag,
    }
}

/// Gathers runs of fixed-size fields present in every version.
fn groups(fields: &[FieldPlan]) -> Vec<Group> {
    let mut out = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let mut size = 0usize;
    let flush = |run: &mut Vec<usize>, size: &mut usize, out: &mut Vec<Group>| {
        if !run.is_empty() {
            out.push(Group::Fixed {
                fields: std::mem::take(run),
                size: *size,
            });
            *size = 0;
        }
    };
    for p in fields {
        match (p.field.ty.fixed_size(), p.untagged.is_always()) {
            (Some(n), true) => {
                run.push(p.index);
                size += n;
            }
            _ => {
                flush(&mut run, &mut size, &mut out);
                out.push(Group::One(p.index));
            }
        }
    }
    flush(&mut run, &mut size, &mut out);
    out
}

/// The Rust type of a fixed-size spec type (bool, ints, float64, uuid), the same in owned types
/// and views; `None` for the others.
pub(crate) fn fixed_type(ty: &Type) -> Option<TokenStream> {
    let w = W();
    Some(match ty {
        Type::Bool => quote!(bool),
        Type::Int8 => quote!(i8),
        Type::Int16 => quote!(i16),
        Type::Uint16 => quote!(u16),
        Type::Int32 => quote!(i32),
        Type::Uint32 => quote!(u32),
        Type::Int64 => quote!(i64),
        Type::Float64 => quote!(f64),
        Type::Uuid => quote!(#w::Uuid),
        _ => return None,
    })
}

/// The Rust type of a struct named in a spec.
pub(crate) fn struct_ty(name: &str) -> TokenStream {
    let id = type_ident(name);
    quote!(#id)
}

/// The Rust type of a value of spec type `ty` (not wrapped in `Option`).
pub(crate) fn rust_type(ty: &Type) -> TokenStream {
    let w = W();
    match ty {
        Type::String => quote!(#w::KStr),
        Type::Bytes | Type::Records => quote!(#w::Bytes),
        Type::Array(e) if e.is_fixed() => {
            let e = rust_type(e);
            quote!(#w::PrimArray<#e>)
        }
        Type::Array(e) => {
            let e = rust_type(e);
            quote!(::std::vec::Vec<#e>)
        }
        Type::Struct(n) => struct_ty(n),
        fixed => fixed_type(fixed).unwrap_or_default(),
    }
}

/// The Rust type of a field (`Option<…>` when nullable in some version).
fn field_type(f: &Field) -> TokenStream {
    let t = rust_type(&f.ty);
    if f.is_optional() {
        quote!(::core::option::Option<#t>)
    } else {
        t
    }
}

/// The type's own default value (for array elements and implicit defaults).
pub(crate) fn type_default(ty: &Type) -> TokenStream {
    let w = W();
    match ty {
        Type::Bool => quote!(false),
        Type::Int8 => quote!(0i8),
        Type::Int16 => quote!(0i16),
        Type::Uint16 => quote!(0u16),
        Type::Int32 => quote!(0i32),
        Type::Uint32 => quote!(0u32),
        Type::Int64 => quote!(0i64),
        Type::Float64 => quote!(0f64),
        Type::String => quote!(#w::KStr::new()),
        Type::Bytes | Type::Records => quote!(#w::Bytes::new()),
        Type::Uuid => quote!(#w::Uuid::ZERO),
        Type::Array(e) if e.is_fixed() => quote!(#w::PrimArray::new()),
        Type::Array(_) => quote!(::std::vec::Vec::new()),
        Type::Struct(n) => {
            let t = struct_ty(n);
            quote!(<#t as ::core::default::Default>::default())
        }
    }
}

/// The inner (non-`Option`) default value of a field, and whether the field's default is null.
pub(crate) fn default_parts(f: &Field) -> (TokenStream, bool) {
    let w = W();
    let null =
        matches!(f.default, DefaultValue::Null) || (f.ty == Type::Records && f.is_optional());
    let inner = match (&f.default, &f.ty) {
        (DefaultValue::Bool(b), _) => quote!(#b),
        (DefaultValue::Int(n), t) => {
            let n = *n;
            let lit = match t {
                Type::Int8 => Literal::i8_suffixed(n as i8),
                Type::Int16 => Literal::i16_suffixed(n as i16),
                Type::Uint16 => Literal::u16_suffixed(n as u16),
                Type::Int32 => Literal::i32_suffixed(n as i32),
                Type::Uint32 => Literal::u32_suffixed(n as u32),
                _ => Literal::i64_suffixed(n),
            };
            quote!(#lit)
        }
        (DefaultValue::Float(x), _) => float_literal(*x),
        (DefaultValue::Str(s), _) => quote!(#w::KStr::from_static(#s)),
        (DefaultValue::Uuid(b), _) => {
            let bytes = b.iter().map(|x| Literal::u8_unsuffixed(*x));
            quote!(#w::Uuid([#(#bytes),*]))
        }
        _ => type_default(&f.ty),
    };
    (inner, null)
}

fn float_literal(x: f64) -> TokenStream {
    if x.is_nan() {
        quote!(f64::NAN)
    } else if x.is_infinite() && x > 0.0 {
        quote!(f64::INFINITY)
    } else if x.is_infinite() {
        quote!(f64::NEG_INFINITY)
    } else {
        let l = Literal::f64_suffixed(x);
        quote!(#l)
    }
}

/// The field's default value, as its Rust type.
pub(crate) fn default_expr(f: &Field) -> TokenStream {
    let (inner, null) = default_parts(f);
    if !f.is_optional() {
        inner
    } else if null {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(#inner))
    }
}

/// An expression that is `true` when the field (`self.<id>`) holds a non-default value, written
/// the way a person would (`self.x != -1`, `!self.name.is_empty()`, `self.tags.is_some()`).
/// Floats compare with `!=`, so a NaN default is always "non-default", as in Kafka.
pub(crate) fn non_default_expr(f: &Field, v: &TokenStream) -> TokenStream {
    let (inner, null) = default_parts(f);
    if f.is_optional() {
        if null {
            return quote!(#v.is_some());
        }
        let ne = match (&f.ty, &f.default) {
            (Type::String, DefaultValue::Str(s)) => quote!(x.as_str() != #s),
            (Type::String | Type::Bytes | Type::Records | Type::Array(_), _) => {
                quote!(!x.is_empty())
            }
            _ => quote!(*x != #inner),
        };
        return quote!(#v.as_ref().is_none_or(|x| #ne));
    }
    match (&f.ty, &f.default) {
        (Type::Bool, DefaultValue::Bool(true)) => quote!(!#v),
        (Type::Bool, _) => quote!(#v),
        (Type::String, DefaultValue::Str(s)) => quote!(#v.as_str() != #s),
        (Type::String | Type::Bytes | Type::Records | Type::Array(_), _) => quote!(!#v.is_empty()),
        _ => quote!(#v != #inner),
    }
}

/// Whether `#[derive(Default)]` gives every field its spec default.
pub(crate) fn default_is_derivable(f: &Field) -> bool {
    if f.is_optional() {
        return matches!(f.default, DefaultValue::Null) || f.ty == Type::Records;
    }
    match &f.default {
        DefaultValue::Implicit => true,
        DefaultValue::Bool(b) => !b,
        DefaultValue::Int(n) => *n == 0,
        DefaultValue::Str(s) => s.is_empty(),
        _ => false,
    }
}

/// `about` text as rustdoc Markdown that renders as written: brackets (`Array[0]` would be an
/// intra-doc link) and angle brackets (`List<String>` would be an HTML tag) are escaped, except
/// inside backtick code spans, where Markdown takes every character as written.
fn escape_markdown(about: &str) -> String {
    let mut out = String::with_capacity(about.len());
    let mut in_code = false;
    for c in about.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code && matches!(c, '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
#[test]
fn about_text_is_escaped_outside_code_spans() {
    assert_eq!(
        escape_markdown("Array[0] of List<String>, `a[1]<b>`"),
        "Array\\[0\\] of List\\<String\\>, `a[1]<b>`"
    );
}

/// A field's doc: its `about` text, then the spec facts (versions, nullable, tag, default, …).
pub(crate) fn field_doc(f: &Field) -> Vec<TokenStream> {
    let mut text = if f.about.trim().is_empty() {
        format!("`{}`.", f.name)
    } else {
        escape_markdown(f.about.trim())
    };
    let mut facts = vec![format!("versions {}", f.versions)];
    if !f.nullable.is_empty() {
        facts.push(format!("nullable {}", f.nullable));
    }
    if let Some((t, tv)) = &f.tag {
        facts.push(format!("tag {t} in {tv}"));
    }
    match &f.default {
        DefaultValue::Implicit => {}
        DefaultValue::Null => facts.push("default null".into()),
        DefaultValue::Bool(b) => facts.push(format!("default {b}")),
        DefaultValue::Int(n) => facts.push(format!("default {n}")),
        DefaultValue::Float(x) => facts.push(format!("default {x}")),
        DefaultValue::Str(s) => facts.push(format!("default {s:?}")),
        DefaultValue::Uuid(_) => facts.push("default uuid".into()),
    }
    if f.ignorable {
        facts.push("ignorable".into());
    }
    if f.map_key {
        facts.push("map key".into());
    }
    if f.entity_type != "unknown" {
        facts.push(format!("entity {}", f.entity_type));
    }
    text.push_str(&format!(
        "\n\nSpec: `{}: {}` ({}).",
        f.name,
        f.ty,
        facts.join(", ")
    ));
    doc_lines(&text)
}
