//! Emits one spec file: its structs, `Default`, `Encode`, `Decode`, `Message` and, on request,
//! `Sample` impls.

use crate::names::{field_ident, type_ident};
use super::Options;
use crate::ir::{DefaultValue, Field, MessageKind, Spec, Struct, Type, Versions};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// A version condition, relative to the message's valid versions.
#[derive(Clone)]
pub(crate) enum Cond {
    Always,
    Never,
    Expr(TokenStream),
}

impl Cond {
    pub(crate) fn of(r: Versions, ctx: Versions) -> Cond {
        let r = r.intersect(&ctx);
        if r.is_empty() {
            return Cond::Never;
        }
        let lo = r.lowest > ctx.lowest;
        let hi = r.highest < ctx.highest;
        let (l, h) = (Literal::i16_unsuffixed(r.lowest), Literal::i16_unsuffixed(r.highest));
        match (lo, hi) {
            (false, false) => Cond::Always,
            (true, false) => Cond::Expr(quote!(version >= #l)),
            (false, true) => Cond::Expr(quote!(version <= #h)),
            (true, true) if r.lowest == r.highest => Cond::Expr(quote!(version == #l)),
            (true, true) => Cond::Expr(quote!((#l..=#h).contains(&version))),
        }
    }
    pub(crate) fn tokens(&self) -> TokenStream {
        match self {
            Cond::Always => quote!(true),
            Cond::Never => quote!(false),
            Cond::Expr(e) => e.clone(),
        }
    }
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
}

pub(crate) const W: fn() -> TokenStream = || quote!(::kwire_protocol::wire);

/// Everything the emitter needs to know while walking one spec.
pub(crate) struct Ctx<'a> {
    pub spec: &'a Spec,
    pub opts: &'a Options,
}

impl Ctx<'_> {
    pub(crate) fn valid(&self) -> Versions {
        self.spec.valid
    }
    pub(crate) fn flexible(&self) -> Cond {
        Cond::of(self.spec.flexible, self.valid())
    }
    pub(crate) fn has_flexible(&self) -> bool {
        !matches!(self.flexible(), Cond::Never)
    }
    /// Whether a string/bytes/array/records value uses compact encoding in a version.
    pub(crate) fn compact(&self, f: &Field) -> Cond {
        match (&f.ty, f.flexible_override) {
            (Type::String | Type::Bytes, Some(o)) => Cond::of(o, self.valid()),
            _ => self.flexible(),
        }
    }
    pub(crate) fn struct_ty(&self, name: &str) -> TokenStream {
        let id = type_ident(name);
        quote!(#id)
    }
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

/// The Rust type of a value of spec type `ty` (not wrapped in `Option`).
pub(crate) fn rust_type(cx: &Ctx, ty: &Type) -> TokenStream {
    let w = W();
    match ty {
        Type::String => quote!(#w::KStr),
        Type::Bytes | Type::Records => quote!(::kwire_protocol::bytes::Bytes),
        Type::Array(e) if e.is_fixed() => {
            let e = rust_type(cx, e);
            quote!(#w::PrimArray<#e>)
        }
        Type::Array(e) => {
            let e = rust_type(cx, e);
            quote!(::std::vec::Vec<#e>)
        }
        Type::Struct(n) => cx.struct_ty(n),
        fixed => fixed_type(fixed).unwrap_or_default(),
    }
}

pub(crate) fn field_type(cx: &Ctx, f: &Field) -> TokenStream {
    let t = rust_type(cx, &f.ty);
    if f.is_optional() {
        quote!(::core::option::Option<#t>)
    } else {
        t
    }
}

/// The type's own default value (for array elements and implicit defaults).
pub(crate) fn type_default(cx: &Ctx, ty: &Type) -> TokenStream {
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
        Type::Bytes | Type::Records => quote!(::kwire_protocol::bytes::Bytes::new()),
        Type::Uuid => quote!(#w::Uuid::ZERO),
        Type::Array(e) if e.is_fixed() => quote!(#w::PrimArray::new()),
        Type::Array(_) => quote!(::std::vec::Vec::new()),
        Type::Struct(n) => {
            let t = cx.struct_ty(n);
            quote!(<#t as ::core::default::Default>::default())
        }
    }
}

/// The inner (non-`Option`) default value of a field, and whether the field's default is null.
pub(crate) fn default_parts(cx: &Ctx, f: &Field) -> (TokenStream, bool) {
    let w = W();
    let null = matches!(f.default, DefaultValue::Null)
        || (f.ty == Type::Records && f.is_optional());
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
        (DefaultValue::Float(x), _) => {
            if x.is_nan() {
                quote!(f64::NAN)
            } else if x.is_infinite() && *x > 0.0 {
                quote!(f64::INFINITY)
            } else if x.is_infinite() {
                quote!(f64::NEG_INFINITY)
            } else {
                let l = Literal::f64_suffixed(*x);
                quote!(#l)
            }
        }
        (DefaultValue::Str(s), _) => quote!(#w::KStr::from_static(#s)),
        (DefaultValue::Uuid(b), _) => {
            let bytes = b.iter().map(|x| Literal::u8_unsuffixed(*x));
            quote!(#w::Uuid([#(#bytes),*]))
        }
        _ => type_default(cx, &f.ty),
    };
    (inner, null)
}

/// The field's default value, as its Rust type.
pub(crate) fn default_expr(cx: &Ctx, f: &Field) -> TokenStream {
    let (inner, null) = default_parts(cx, f);
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
pub(crate) fn non_default_expr(cx: &Ctx, f: &Field, v: &TokenStream) -> TokenStream {
    let (inner, null) = default_parts(cx, f);
    if f.is_optional() {
        if null {
            return quote!(#v.is_some());
        }
        let ne = match (&f.ty, &f.default) {
            (Type::String, DefaultValue::Str(s)) => quote!(x.as_str() != #s),
            (Type::String | Type::Bytes | Type::Records | Type::Array(_), _) => quote!(!x.is_empty()),
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
fn default_is_derivable(f: &Field) -> bool {
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

#[allow(clippy::too_many_arguments)]
/// Code writing one value of type `ty` held in `v` (a reference expression) to sink `s`.
/// `tagged`: inside a tagged field's payload (compact always; nullable struct marker is a varint).
fn write_value(
    _cx: &Ctx,
    f: &Field,
    ty: &Type,
    v: TokenStream,
    optional: bool,
    compact: &Cond,
    nullable: &Cond,
    tagged: bool,
) -> TokenStream {
    let w = W();
    let name = field_ident(&f.name).to_string();
    let name = name.trim_start_matches("r#");
    let compact_t = if tagged { quote!(true) } else { compact.tokens() };
    let nullable_t = nullable.tokens();
    let fe = quote!(.at_field(#name)?);
    match ty {
        Type::Bool => quote!(s.write_byte(u8::from(#v));),
        Type::Int8 | Type::Int16 | Type::Uint16 | Type::Int32 | Type::Uint32 | Type::Int64 | Type::Float64 => {
            quote!(s.write_raw(&#v.to_be_bytes());)
        }
        Type::Uuid => quote!(s.write_raw(&#v.0);),
        Type::String if optional => {
            quote!(#w::write_nullable_string(s, #v.as_ref(), #compact_t, #nullable_t, version)#fe;)
        }
        Type::String => quote!(#w::write_string(s, &#v, #compact_t)#fe;),
        Type::Bytes | Type::Records if optional => {
            quote!(#w::write_nullable_bytes(s, #v.as_ref(), #compact_t, #nullable_t, version)#fe;)
        }
        Type::Bytes | Type::Records => quote!(#w::write_bytes(s, &#v, #compact_t)#fe;),
        Type::Array(elem) => {
            let elem_w = match &**elem {
                Type::Bool => quote!(s.write_byte(u8::from(*e));),
                Type::Int8 | Type::Int16 | Type::Uint16 | Type::Int32 | Type::Uint32 | Type::Int64 | Type::Float64 => {
                    quote!(s.write_raw(&e.to_be_bytes());)
                }
                Type::Uuid => quote!(s.write_raw(&e.0);),
                Type::String => quote!(#w::write_string(s, e, #compact_t).at_index(i).at_field(#name)?;),
                Type::Bytes | Type::Records => {
                    quote!(#w::write_bytes(s, e, #compact_t).at_index(i).at_field(#name)?;)
                }
                Type::Struct(_) => {
                    quote!(#w::Encode::encode_raw(e, s, version).at_index(i).at_field(#name)?;)
                }
                Type::Array(_) => quote!(),
            };
            let uses_i = matches!(&**elem, Type::String | Type::Bytes | Type::Records | Type::Struct(_));
            let lp = if elem.is_fixed() {
                quote!(a.put_elements(s);)
            } else if uses_i {
                quote!(for (i, e) in a.iter().enumerate() { #elem_w })
            } else {
                quote!(for e in a.iter() { #elem_w })
            };
            let body = match &**elem {
                Type::Struct(_) => quote!(#w::write_struct_array(s, a, #compact_t, version)#fe;),
                Type::String => quote!(#w::write_string_array(s, a, #compact_t)#fe;),
                _ => quote!(#w::write_array_len(s, a.len(), #compact_t)#fe; #lp),
            };
            if optional {
                quote!(match &#v {
                    ::core::option::Option::Some(a) => { #body }
                    ::core::option::Option::None => #w::write_null_len(s, #compact_t, #nullable_t, version)#fe,
                })
            } else {
                quote!({ let a = &#v; #body })
            }
        }
        Type::Struct(_) => {
            if !optional {
                return quote!(#w::Encode::encode_raw(&#v, s, version)#fe;);
            }
            let (present, absent) = if tagged {
                (quote!(s.write_byte(1);), quote!(s.write_byte(0);))
            } else {
                (
                    nullable.select(quote!(s.write_byte(1);), quote!()),
                    nullable.select(quote!(s.write_byte(0xff);), quote!(return ::core::result::Result::Err(#w::null_not_allowed(version).field(#name));)),
                )
            };
            let absent = if tagged {
                nullable.select(absent, quote!(return ::core::result::Result::Err(#w::null_not_allowed(version).field(#name));))
            } else {
                absent
            };
            quote!(match &#v {
                ::core::option::Option::Some(x) => { #present #w::Encode::encode_raw(x, s, version)#fe; }
                ::core::option::Option::None => { #absent }
            })
        }
    }
}

/// Code reading one value of the field's type from reader `r`, evaluating to the field's Rust
/// type (errors propagate with the field name added).
fn read_value(cx: &Ctx, f: &Field, compact: &Cond, nullable: &Cond, tagged: bool, r: TokenStream) -> TokenStream {
    let w = W();
    let name = field_ident(&f.name).to_string();
    let name = name.trim_start_matches("r#").to_string();
    let compact_t = if tagged { quote!(true) } else { compact.tokens() };
    let fe = quote!(.at_field(#name)?);
    let optional = f.is_optional();
    let wrap_opt = |nullable_read: TokenStream, plain_read: TokenStream| -> TokenStream {
        if !optional {
            plain_read
        } else {
            nullable.select(nullable_read, quote!(::core::option::Option::Some(#plain_read)))
        }
    };
    match &f.ty {
        Type::Bool => quote!(#r.bool_at(#name)?),
        Type::Int8 => quote!(#r.i8_at(#name)?),
        Type::Int16 => quote!(#r.i16_at(#name)?),
        Type::Uint16 => quote!(#r.u16_at(#name)?),
        Type::Int32 => quote!(#r.i32_at(#name)?),
        Type::Uint32 => quote!(#r.u32_at(#name)?),
        Type::Int64 => quote!(#r.i64_at(#name)?),
        Type::Float64 => quote!(#r.f64_at(#name)?),
        Type::Uuid => quote!(#r.uuid_at(#name)?),
        Type::String => wrap_opt(quote!(#r.nullable_string(#compact_t)#fe), quote!(#r.string(#compact_t)#fe)),
        Type::Bytes | Type::Records => {
            wrap_opt(quote!(#r.nullable_bytes(#compact_t)#fe), quote!(#r.bytes(#compact_t)#fe))
        }
        Type::Array(elem) if elem.is_fixed() => {
            let et = rust_type(cx, elem);
            wrap_opt(
                quote!(#r.nullable_prim_array::<#et>(#compact_t)#fe),
                quote!(#r.prim_array::<#et>(#compact_t)#fe),
            )
        }
        Type::Array(elem) if matches!(&**elem, Type::Struct(_)) => {
            let et = rust_type(cx, elem);
            wrap_opt(
                quote!(#w::decode_nullable_struct_array::<#et>(#r, #compact_t, version)#fe),
                quote!(#w::decode_struct_array::<#et>(#r, #compact_t, version)#fe),
            )
        }
        Type::Array(elem) if matches!(&**elem, Type::String) => wrap_opt(
            quote!(#w::decode_nullable_string_array(#r, #compact_t)#fe),
            quote!(#w::decode_string_array(#r, #compact_t)#fe),
        ),
        Type::Array(elem) => {
            let et = rust_type(cx, elem);
            let ie = quote!(.at_index(i).at_field(#name)?);
            let elem_r = match &**elem {
                Type::Bool => quote!(#r.bool()#ie),
                Type::Int8 => quote!(#r.i8()#ie),
                Type::Int16 => quote!(#r.i16()#ie),
                Type::Uint16 => quote!(#r.u16()#ie),
                Type::Int32 => quote!(#r.i32()#ie),
                Type::Uint32 => quote!(#r.u32()#ie),
                Type::Int64 => quote!(#r.i64()#ie),
                Type::Float64 => quote!(#r.f64()#ie),
                Type::Uuid => quote!(#r.uuid()#ie),
                Type::String => quote!(#r.string(#compact_t)#ie),
                Type::Bytes | Type::Records => quote!(#r.bytes(#compact_t)#ie),
                Type::Struct(_) => quote!(<#et as #w::Decode>::decode(#r, version)#ie),
                Type::Array(_) => quote!(unreachable_array_of_arrays),
            };
            let fill = quote!({
                let mut a: ::std::vec::Vec<#et> = ::std::vec::Vec::with_capacity(#w::bounded_capacity::<#et>(n, #r.remaining()));
                for i in 0..n { a.push(#elem_r); }
                a
            });
            wrap_opt(
                quote!(match #r.nullable_array_len(#compact_t)#fe {
                    ::core::option::Option::Some(n) => ::core::option::Option::Some(#fill),
                    ::core::option::Option::None => ::core::option::Option::None,
                }),
                quote!({ let n = #r.array_len(#compact_t)#fe; #fill }),
            )
        }
        Type::Struct(sn) => {
            let t = cx.struct_ty(sn);
            let dec = quote!(<#t as #w::Decode>::decode(#r, version)#fe);
            if !optional {
                return dec;
            }
            let present = if tagged {
                quote!(#r.tagged_struct_present()#fe)
            } else {
                quote!(#r.struct_present()#fe)
            };
            nullable.select(
                quote!(if #present { ::core::option::Option::Some(#dec) } else { ::core::option::Option::None }),
                quote!(::core::option::Option::Some(#dec)),
            )
        }
    }
}

/// Prefixes `body` with `use ::kwire_protocol::wire::ErrorPath as _;` when it calls its methods.
pub(crate) fn with_error_path(body: TokenStream) -> TokenStream {
    let text = body.to_string();
    if text.contains("at_field") || text.contains("at_index") {
        quote!(use ::kwire_protocol::wire::ErrorPath as _; #body)
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

pub(crate) fn doc_lines(text: &str) -> Vec<TokenStream> {
    text.lines().map(|l| {
        let l = format!(" {}", l.trim_end());
        quote!(#[doc = #l])
    }).collect()
}

pub(crate) fn field_doc(f: &Field) -> Vec<TokenStream> {
    let mut text = if f.about.trim().is_empty() { format!("`{}`.", f.name) } else { f.about.trim().to_string() };
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
    text.push_str(&format!("\n\nSpec: `{}: {}` ({}).", f.name, f.ty, facts.join(", ")));
    doc_lines(&text)
}

/// Emits one struct (the top level when `top` is true).
fn emit_struct(cx: &Ctx, st: &Struct, top: bool) -> TokenStream {
    let w = W();
    let spec = cx.spec;
    let ty = type_ident(&st.name);
    let ty_name = st.name.clone();
    let flexible = cx.has_flexible();
    let doc = if top {
        let key = match spec.api_key {
            crate::ir::ApiKeyValue::Assigned(k) => format!(", API key {k}"),
            crate::ir::ApiKeyValue::Tbd => ", API key TBD".to_string(),
            crate::ir::ApiKeyValue::Absent => String::new(),
        };
        doc_lines(&format!(
            "`{}`: {}{key}, valid versions {}, flexible versions {}.\n\nGenerated from `{}`.",
            spec.name, spec.kind.as_str(), spec.valid, spec.flexible, spec.file
        ))
    } else {
        doc_lines(&format!(
            "`{}`: {} struct of `{}` (versions {}).",
            st.name,
            if st.common { "common" } else { "inline" },
            spec.name,
            st.versions
        ))
    };

    let names: Vec<_> = st.fields.iter().map(|f| field_ident(&f.name)).collect();
    let types: Vec<_> = st.fields.iter().map(|f| field_type(cx, f)).collect();
    let docs: Vec<_> = st.fields.iter().map(field_doc).collect();
    let defaults: Vec<_> = st.fields.iter().map(|f| default_expr(cx, f)).collect();
    let (utf_decl, utf_default) = if flexible {
        (
            quote!(
                /// Tagged fields this spec does not know, kept from decoding and written back in tag order.
                pub unknown_tagged_fields: #w::UnknownTaggedFields,
            ),
            quote!(unknown_tagged_fields: #w::UnknownTaggedFields::new(),),
        )
    } else {
        (quote!(), quote!())
    };

    // ---- encode ----
    let valid = spec.valid;
    let mut enc = Vec::new();
    // A run of fixed-size fields present in every version is gathered into one array and
    // written with one bounds check and one fixed-size copy.
    let mut run: Vec<(TokenStream, usize)> = Vec::new();
    let flush = |run: &mut Vec<(TokenStream, usize)>, enc: &mut Vec<TokenStream>| {
        if run.len() > 1 {
            let total: usize = run.iter().map(|(_, n)| n).sum();
            let mut at = 0usize;
            let puts: Vec<TokenStream> = run
                .iter()
                .map(|(bytes, n)| {
                    let (a, b) = (Literal::usize_unsuffixed(at), Literal::usize_unsuffixed(at + n));
                    at += n;
                    quote!(b[#a..#b].copy_from_slice(&#bytes);)
                })
                .collect();
            let total = Literal::usize_unsuffixed(total);
            enc.push(quote!({
                let mut b = [0u8; #total];
                #(#puts)*
                s.write_raw(&b);
            }));
        } else if let Some((bytes, _)) = run.first() {
            enc.push(quote!(s.write_raw(&#bytes);));
        }
        run.clear();
    };
    for f in &st.fields {
        let id = field_ident(&f.name);
        let name_s = id.to_string().trim_start_matches("r#").to_string();
        let present = Cond::of(f.untagged_versions(), valid);
        if matches!(present, Cond::Always) {
            let bytes = match f.ty {
                Type::Bool => Some(quote!([u8::from(self.#id)])),
                Type::Int8 | Type::Int16 | Type::Uint16 | Type::Int32 | Type::Uint32 | Type::Int64 | Type::Float64 => {
                    Some(quote!(self.#id.to_be_bytes()))
                }
                Type::Uuid => Some(quote!(self.#id.0)),
                _ => None,
            };
            if let (Some(bytes), Some(n)) = (bytes, f.ty.fixed_size()) {
                run.push((bytes, n));
                continue;
            }
        }
        flush(&mut run, &mut enc);
        let nullable = Cond::of(f.nullable, f.untagged_versions().intersect(&valid));
        let compact = cx.compact(f);
        let write = write_value(cx, f, &f.ty, quote!(self.#id), f.is_optional(), &compact, &nullable, false);
        let non_default = non_default_expr(cx, f, &quote!(self.#id));
        let absent = if f.ignorable {
            quote!()
        } else {
            quote!(if #non_default { return ::core::result::Result::Err(#w::non_default(version).field(#name_s)); })
        };
        // Absent also when the field is tagged in this version; tagged ones are written below.
        // The check is for the versions that lack the field, which lie below its (open-ended)
        // tagged versions; written as one `if` (no `!(version >= n)`, no nested `if`: clippy).
        let tagged_now = f.tag.as_ref().map(|(_, tv)| Cond::of(*tv, valid));
        let absent = match (&f.tag, &tagged_now) {
            (_, Some(Cond::Always)) => quote!(),
            _ if matches!(Cond::of(f.versions, valid), Cond::Always) => quote!(),
            (Some((_, tv)), Some(Cond::Expr(_))) if !absent.is_empty() => {
                let below = Cond::of(Versions::new(valid.lowest, tv.lowest.saturating_sub(1)), valid).tokens();
                quote!(if #below && #non_default { return ::core::result::Result::Err(#w::non_default(version).field(#name_s)); })
            }
            _ => absent,
        };
        enc.push(present.select(write, absent));
    }
    flush(&mut run, &mut enc);
    let tagged: Vec<&Field> = {
        let mut t: Vec<&Field> = st.fields.iter().filter(|f| f.tag.is_some()).collect();
        t.sort_by_key(|f| f.tag.as_ref().map(|x| x.0));
        t
    };
    let known_tags: Vec<_> = tagged.iter().map(|f| Literal::u32_unsuffixed(f.tag.as_ref().unwrap().0)).collect();
    let tag_section_enc = if flexible {
        let mut emit_decls = Vec::new();
        let mut emit_writes = Vec::new();
        let mut counts = Vec::new();
        for f in &tagged {
            let (tag, tv) = f.tag.as_ref().unwrap();
            let id = field_ident(&f.name);
            let flag = format_ident!("emit_{}", tag);
            let cond = Cond::of(*tv, valid);
            let e = cond.and(non_default_expr(cx, f, &quote!(self.#id)));
            emit_decls.push(quote!(let #flag = #e;));
            counts.push(quote!(+ usize::from(#flag)));
            let nullable = Cond::of(f.nullable, tv.intersect(&valid));
            let payload = write_value(cx, f, &f.ty, quote!(self.#id), f.is_optional(), &Cond::Always, &nullable, true);
            let tag_l = Literal::u32_unsuffixed(*tag);
            let size = match f.ty.fixed_size() {
                Some(n) => {
                    let n = Literal::usize_unsuffixed(n);
                    quote!(#n)
                }
                None => quote!({
                    let mut c = #w::RawWriter::counter();
                    { let s = &mut c; #payload }
                    c.written()
                }),
            };
            let next = Literal::u64_unsuffixed(*tag as u64);
            emit_writes.push(quote!(
                i = #w::write_unknown_tags_below(s, &self.unknown_tagged_fields, i, #next)?;
                if #flag {
                    let size = #size;
                    #w::write_tag_header(s, #tag_l, size)?;
                    #payload
                }
            ));
        }
        let flex = cx.flexible();
        let (i_decl, i_last) = if tagged.is_empty() { (quote!(), quote!(0)) } else { (quote!(let mut i = 0usize;), quote!(i)) };
        let body = quote!(
            #(#emit_decls)*
            s.write_uvarint((self.unknown_tagged_fields.len() #(#counts)*) as u32);
            #i_decl
            #(#emit_writes)*
            #w::write_unknown_tags_below(s, &self.unknown_tagged_fields, #i_last, u64::MAX)?;
        );
        if tagged.is_empty() {
            let f = flex.tokens();
            quote!(#w::write_unknown_tags(s, &self.unknown_tagged_fields, #f, version)?;)
        } else {
            let check = quote!(#w::check_unknown_tags(&self.unknown_tagged_fields, &[#(#known_tags),*], flexible, version)?;);
            let wr = flex.select(body, quote!());
            quote!(#check #wr)
        }
    } else {
        quote!()
    };
    let flex_decl = if flexible {
        let f = cx.flexible().tokens();
        quote!(let flexible: bool = #f;)
    } else {
        quote!()
    };
    let enc_body = quote!(#(#enc)* #tag_section_enc ::core::result::Result::Ok(()));
    let enc_body = if uses_ident(&enc_body, "flexible") { quote!(#flex_decl #enc_body) } else { enc_body };

    // ---- decode ----
    let mut dec = Vec::new();
    for f in &st.fields {
        let present = Cond::of(f.untagged_versions(), valid);
        let nullable = Cond::of(f.nullable, f.untagged_versions().intersect(&valid));
        let compact = cx.compact(f);
        let read = read_value(cx, f, &compact, &nullable, false, quote!(r));
        let id = field_ident(&f.name);
        // In place: `self` holds the defaults, so a field the version lacks is left as it is.
        dec.push(present.select(quote!(self.#id = #read;), quote!()));
    }
    let tag_section_dec = if flexible {
        let mut arms = Vec::new();
        for f in &tagged {
            let (tag, tv) = f.tag.as_ref().unwrap();
            let id = field_ident(&f.name);
            let name_s = id.to_string().trim_start_matches("r#").to_string();
            let cond = Cond::of(*tv, valid);
            let nullable = Cond::of(f.nullable, tv.intersect(&valid));
            let read = read_value(cx, f, &Cond::Always, &nullable, true, quote!(r));
            let tag_l = Literal::u32_unsuffixed(*tag);
            let bad = quote!(return ::core::result::Result::Err(p.error(#w::DecodeErrorKind::TagNotValidForVersion { tag, version }).field(#name_s)));
            let arm_body = cond.select(quote!({ let r = &mut p; self.#id = #read; }), quote!({ #bad; }));
            arms.push(quote!(#tag_l => #arm_body));
        }
        let pat = if tagged.is_empty() { quote!((tag, p)) } else { quote!((tag, mut p)) };
        let unknown = quote!(#w::push_unknown_tag(&mut self.unknown_tagged_fields, tag, p));
        let dispatch = if arms.is_empty() {
            quote!(#unknown;)
        } else {
            quote!(match tag {
                #(#arms)*
                _ => #unknown,
            })
        };
        let sec = if tagged.is_empty() {
            quote!(#w::decode_unknown_tags(r, &mut self.unknown_tagged_fields)?;)
        } else {
            quote!(
                let n = r.uvarint()?;
                for _ in 0..n {
                    let #pat = r.tagged_field()?;
                    #dispatch
                }
                #w::finish_unknown_tags(&mut self.unknown_tagged_fields);
            )
        };
        let flex = cx.flexible();
        flex.select(sec, quote!())
    } else {
        quote!()
    };
    let dec_body = quote!(
        #(#dec)*
        #tag_section_dec
        ::core::result::Result::Ok(())
    );
    let dec_body = if uses_ident(&dec_body, "flexible") { quote!(#flex_decl #dec_body) } else { dec_body };

    let enc_body = with_error_path(enc_body);
    let dec_body = with_error_path(dec_body);
    let enc_version = param(&enc_body, "version");
    let dec_version = param(&dec_body, "version");
    let s_name = param(&enc_body, "s");
    let r_name = param(&dec_body, "r");

    let (encode_impl, decode_impl, message_impl) = if top {
        let (lo, hi) = (Literal::i16_suffixed(valid.lowest), Literal::i16_suffixed(valid.highest));
        let (flo, fhi) = if spec.flexible.is_empty() {
            (Literal::i16_suffixed(0), Literal::i16_suffixed(-1))
        } else {
            (Literal::i16_suffixed(spec.flexible.lowest), Literal::i16_suffixed(spec.flexible.highest))
        };
        let kind = match spec.kind {
            MessageKind::Request => quote!(Request),
            MessageKind::Response => quote!(Response),
            MessageKind::Header => quote!(Header),
            MessageKind::Data => quote!(Data),
            MessageKind::Metadata => quote!(Metadata),
        };
        let api_key = match spec.api_key.assigned() {
            Some(k) => quote!(::core::option::Option::Some(#k)),
            None => quote!(::core::option::Option::None),
        };
        (
            quote!(
                impl #w::Encode for #ty {
                    fn encode_raw(&self, w: &mut #w::RawWriter, version: i16) -> ::core::result::Result<(), #w::EncodeError> {
                        #w::check_encode_version(version, <Self as #w::Message>::VALID_VERSIONS, #ty_name)?;
                        self.encode_body(w, version).map_err(|e| e.in_type(#ty_name))
                    }
                }
                impl #ty {
                    fn encode_body(&self, #s_name: &mut #w::RawWriter, #enc_version: i16) -> ::core::result::Result<(), #w::EncodeError> {
                        #enc_body
                    }
                    fn decode_body(&mut self, #r_name: &mut #w::Reader, #dec_version: i16) -> ::core::result::Result<(), #w::DecodeError> {
                        #dec_body
                    }
                }
            ),
            quote!(
                impl #w::Decode for #ty {
                    fn decode(r: &mut #w::Reader, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                        let mut m = <Self as ::core::default::Default>::default();
                        #w::Decode::decode_into(&mut m, r, version)?;
                        ::core::result::Result::Ok(m)
                    }
                    fn decode_into(&mut self, r: &mut #w::Reader, version: i16) -> ::core::result::Result<(), #w::DecodeError> {
                        #w::check_decode_version(r, version, <Self as #w::Message>::VALID_VERSIONS, #ty_name)?;
                        self.decode_body(r, version).map_err(|e| e.in_type(#ty_name))
                    }
                }
            ),
            quote!(
                impl #w::Message for #ty {
                    const NAME: &'static str = #ty_name;
                    const KIND: #w::MessageKind = #w::MessageKind::#kind;
                    const API_KEY: ::core::option::Option<i16> = #api_key;
                    const VALID_VERSIONS: #w::VersionRange = #w::VersionRange::new(#lo, #hi);
                    const FLEXIBLE_VERSIONS: #w::VersionRange = #w::VersionRange::new(#flo, #fhi);
                }
            ),
        )
    } else {
        (
            quote!(
                impl #w::Encode for #ty {
                    #[inline]
                    fn encode_raw(&self, #s_name: &mut #w::RawWriter, #enc_version: i16) -> ::core::result::Result<(), #w::EncodeError> {
                        #enc_body
                    }
                }
            ),
            quote!(
                impl #w::Decode for #ty {
                    fn decode(r: &mut #w::Reader, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                        let mut m = <Self as ::core::default::Default>::default();
                        #w::Decode::decode_into(&mut m, r, version)?;
                        ::core::result::Result::Ok(m)
                    }
                    fn decode_into(&mut self, #r_name: &mut #w::Reader, #dec_version: i16) -> ::core::result::Result<(), #w::DecodeError> {
                        #dec_body
                    }
                }
            ),
            quote!(),
        )
    };

    let sample_impl = if cx.opts.samples { emit_sample(cx, st) } else { quote!() };
    let json_impl = if cx.opts.json { super::json::emit_json(cx, st, top) } else { quote!() };
    let view_impl = if cx.opts.views { super::view::emit_view(cx, st, top) } else { quote!() };
    let (derive_default, default_impl) = if st.fields.iter().all(default_is_derivable) {
        (quote!(, Default), quote!())
    } else {
        (
            quote!(),
            quote!(
                impl ::core::default::Default for #ty {
                    #[inline]
                    fn default() -> Self {
                        Self { #( #names: #defaults, )* #utf_default }
                    }
                }
            ),
        )
    };

    quote!(
        #(#doc)*
        #[derive(Debug, Clone, PartialEq #derive_default)]
        pub struct #ty {
            #( #(#docs)* pub #names: #types, )*
            #utf_decl
        }

        #default_impl

        #encode_impl
        #decode_impl
        #message_impl
        #sample_impl
        #json_impl
        #view_impl
    )
}

fn sample_value(cx: &Ctx, ty: &Type, inner_default: TokenStream) -> TokenStream {
    let w = W();
    match ty {
        Type::Array(elem) => {
            let e = sample_value(cx, elem, type_default(cx, elem));
            quote!({ let n = g.array_len(); (0..n).map(|_| #e).collect() })
        }
        Type::Struct(n) => {
            let t = cx.struct_ty(n);
            quote!(<#t as #w::sample::Sample>::sample(g, version))
        }
        _ => quote!(g.value(&#inner_default)),
    }
}

fn emit_sample(cx: &Ctx, st: &Struct) -> TokenStream {
    let w = W();
    let valid = cx.spec.valid;
    let mut inits = Vec::new();
    for f in &st.fields {
        let id = field_ident(&f.name);
        let present = Cond::of(f.versions, valid);
        let (inner_default, _) = default_parts(cx, f);
        let v = sample_value(cx, &f.ty, inner_default);
        let v = if f.is_optional() {
            let nullable = Cond::of(f.nullable, valid);
            let null_now = nullable.and(quote!(g.null()));
            quote!(if #null_now { ::core::option::Option::None } else { ::core::option::Option::Some(#v) })
        } else {
            v
        };
        let def = default_expr(cx, f);
        let sel = present.select(v, def);
        inits.push(quote!(#id: #sel,));
    }
    let utf = if cx.has_flexible() {
        let n = Literal::u32_unsuffixed(st.fields.iter().filter(|f| f.tag.is_some()).count() as u32);
        let flex = cx.flexible();
        let e = flex.select(quote!(g.unknown_tags(#n)), quote!(#w::UnknownTaggedFields::new()));
        quote!(unknown_tagged_fields: #e,)
    } else {
        quote!()
    };
    let ty = type_ident(&st.name);
    let body = quote!(#(#inits)* #utf);
    let version = param(&body, "version");
    let cfg = if cx.opts.samples_cfg_feature { quote!(#[cfg(feature = "sample")]) } else { quote!() };
    quote!(
        #cfg
        impl #w::sample::Sample for #ty {
            fn sample(g: &mut #w::sample::SampleGen, #version: i16) -> Self {
                g.enter();
                let v = Self { #body };
                g.leave();
                v
            }
        }
    )
}

/// Emits the module body for one spec: every struct, top level first.
pub(crate) fn emit_spec(cx: &Ctx) -> TokenStream {
    let mut items = vec![emit_struct(cx, &cx.spec.top(), true)];
    for st in &cx.spec.structs {
        items.push(emit_struct(cx, st, false));
    }
    quote!(#(#items)*)
}
