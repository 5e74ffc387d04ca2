//! The owned encoder's body: the statements of `encode_raw` (or `encode_body` for a message),
//! field by field from the plan, then the tagged-field section.

use super::plan::{non_default_expr, with_flexible, Ctx, FieldPlan, Group, StructPlan};
use super::tokens::{Cond, W};
use crate::ir::{Type, Versions};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The encoder body of a struct (without the error-path import).
pub(crate) fn body(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let mut enc = Vec::new();
    for g in &p.groups {
        enc.push(match g {
            Group::Fixed { fields, .. } => fixed_run(p, fields),
            Group::One(k) => field(cx, &p.fields[*k]),
        });
    }
    let tags = if cx.has_flexible() {
        tag_section(cx, p)
    } else {
        quote!()
    };
    let body = quote!(#(#enc)* #tags ::core::result::Result::Ok(()));
    with_flexible(cx, body)
}

/// The big-endian bytes of a fixed-size field, as an array expression.
fn fixed_bytes(fp: &FieldPlan) -> TokenStream {
    let id = &fp.ident;
    match fp.field.ty {
        Type::Bool => quote!([u8::from(self.#id)]),
        Type::Uuid => quote!(self.#id.0),
        _ => quote!(self.#id.to_be_bytes()),
    }
}

/// A run of fixed-size fields present in every version: gathered into one array and written
/// with one bounds check and one fixed-size copy.
fn fixed_run(p: &StructPlan, fields: &[usize]) -> TokenStream {
    if let [one] = fields {
        let bytes = fixed_bytes(&p.fields[*one]);
        return quote!(s.write_raw(&#bytes););
    }
    let mut at = 0usize;
    let puts: Vec<TokenStream> = fields
        .iter()
        .map(|k| {
            let fp = &p.fields[*k];
            let n = fp.field.ty.fixed_size().unwrap_or(0);
            let (a, b) = (
                Literal::usize_unsuffixed(at),
                Literal::usize_unsuffixed(at + n),
            );
            at += n;
            let bytes = fixed_bytes(fp);
            quote!(b[#a..#b].copy_from_slice(&#bytes);)
        })
        .collect();
    let total = Literal::usize_unsuffixed(at);
    quote!({
        let mut b = [0u8; #total];
        #(#puts)*
        s.write_raw(&b);
    })
}

/// One field outside a fixed run: written where the version has it untagged, else checked to be
/// at its default (unless ignorable).
fn field(cx: &Ctx, fp: &FieldPlan) -> TokenStream {
    let w = W();
    let (f, id, name) = (fp.field, &fp.ident, &fp.name);
    let write = write_value(fp, &fp.compact, &fp.nullable, false);
    let non_default = non_default_expr(f, &quote!(self.#id));
    // Where the version lacks the field: a non-default value is an error. Not where the field
    // is tagged (written in the tagged section), nor when it is ignorable; the versions that lack
    // it lie below its (open-ended) tagged versions.
    let valid = cx.valid();
    let absent_if = match &fp.tag {
        _ if f.ignorable || fp.in_version.is_always() => None,
        Some(t) if t.in_valid.is_always() => None,
        Some(t) if matches!(t.in_valid, Cond::Expr(_)) => {
            let below = Cond::of(
                Versions::new(valid.lowest, t.versions.lowest.saturating_sub(1)),
                valid,
            )
            .tokens();
            Some(quote!(#below && #non_default))
        }
        _ => Some(non_default),
    };
    let err = quote!(return ::core::result::Result::Err(#w::non_default(version).field(#name)););
    match (&fp.untagged, absent_if) {
        (Cond::Always, _) => write,
        (Cond::Never, None) => quote!(),
        (Cond::Never, Some(c)) => quote!(if #c { #err }),
        (Cond::Expr(e), None) => quote!(if #e { #write }),
        (Cond::Expr(e), Some(c)) => quote!(if #e { #write } else if #c { #err }),
    }
}

/// The tagged-field section: known tags merged with the unknown ones in tag order.
fn tag_section(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    if p.tagged.is_empty() {
        let f = cx.flex_var.encoding();
        return quote!(#w::write_unknown_tags(s, &self.unknown_tagged_fields, #f, version)?;);
    }
    let (mut decls, mut writes, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    for k in &p.tagged_by_tag {
        let fp = &p.fields[*k];
        let Some(t) = &fp.tag else { continue };
        let id = &fp.ident;
        let flag = format_ident!("emit_{}", t.tag);
        let e = t.cond.and(non_default_expr(fp.field, &quote!(self.#id)));
        decls.push(quote!(let #flag = #e;));
        counts.push(quote!(+ usize::from(#flag)));
        writes.push(tagged_write(fp, t.tag, &t.nullable, &flag));
    }
    let known = p.known_tags();
    let body = quote!(
        #(#decls)*
        s.write_uvarint((self.unknown_tagged_fields.len() #(#counts)*) as u32);
        let mut i = 0usize;
        #(#writes)*
        #w::write_unknown_tags_below(s, &self.unknown_tagged_fields, i, u64::MAX)?;
    );
    let flex = cx.flex_var.encoding();
    let check = quote!(#w::check_unknown_tags(&self.unknown_tagged_fields, &[#(#known),*], #flex, version)?;);
    let wr = cx.flex_var.select(body, quote!());
    quote!(#check #wr)
}

/// One known tagged field: the unknown ones below its tag, then its header and payload when
/// `flag` says it differs from its default.
fn tagged_write(
    fp: &FieldPlan,
    tag: u32,
    nullable: &Cond,
    flag: &proc_macro2::Ident,
) -> TokenStream {
    let w = W();
    let payload = write_value(fp, &Cond::Always, nullable, true);
    let size = match fp.field.ty.fixed_size() {
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
    let tag_l = Literal::u32_unsuffixed(tag);
    let next = Literal::u64_unsuffixed(u64::from(tag));
    quote!(
        i = #w::write_unknown_tags_below(s, &self.unknown_tagged_fields, i, #next)?;
        if #flag {
            let size = #size;
            #w::write_tag_header(s, #tag_l, size)?;
            #payload
        }
    )
}

/// Code writing the field's value (`self.<id>`) to sink `s`. `tagged`: inside a tagged field's
/// payload (compact always; a nullable struct's marker is a varint).
fn write_value(fp: &FieldPlan, compact: &Cond, nullable: &Cond, tagged: bool) -> TokenStream {
    let w = W();
    let (id, name) = (&fp.ident, &fp.name);
    let v = quote!(self.#id);
    let optional = fp.field.is_optional();
    let compact_t = if tagged {
        Cond::Always.encoding()
    } else {
        compact.encoding()
    };
    let nullable_t = nullable.nullable();
    let fe = quote!(.at_field(#name)?);
    match &fp.field.ty {
        Type::Bool => quote!(s.write_byte(u8::from(#v));),
        Type::Uuid => quote!(s.write_raw(&#v.0);),
        t if t.is_fixed() => quote!(s.write_raw(&#v.to_be_bytes());),
        Type::String if optional => {
            quote!(#w::write_nullable_string(s, #v.as_ref(), #compact_t, #nullable_t, version)#fe;)
        }
        Type::String => quote!(#w::write_string(s, &#v, #compact_t)#fe;),
        Type::Bytes | Type::Records if optional => {
            quote!(#w::write_nullable_bytes(s, #v.as_ref(), #compact_t, #nullable_t, version)#fe;)
        }
        Type::Bytes | Type::Records => quote!(#w::write_bytes(s, &#v, #compact_t)#fe;),
        Type::Array(elem) => write_array(fp, elem, &compact_t, &nullable_t),
        Type::Struct(_) => write_struct(fp, nullable, tagged),
        _ => quote!(),
    }
}

/// Code writing an array field: its count, then the elements (or the null length).
fn write_array(
    fp: &FieldPlan,
    elem: &Type,
    compact_t: &TokenStream,
    nullable_t: &TokenStream,
) -> TokenStream {
    let w = W();
    let (id, name) = (&fp.ident, &fp.name);
    let fe = quote!(.at_field(#name)?);
    let body = match elem {
        Type::Struct(_) => quote!(#w::write_struct_array(s, a, #compact_t, version)#fe;),
        Type::String => quote!(#w::write_string_array(s, a, #compact_t)#fe;),
        _ => {
            let lp = element_loop(elem, compact_t, name);
            quote!(#w::write_array_len(s, a.len(), #compact_t)#fe; #lp)
        }
    };
    if fp.field.is_optional() {
        quote!(match &self.#id {
            ::core::option::Option::Some(a) => { #body }
            ::core::option::Option::None => #w::write_null_len(s, #compact_t, #nullable_t, version)#fe,
        })
    } else {
        quote!({ let a = &self.#id; #body })
    }
}

/// The loop writing the elements of array `a` (after its count).
fn element_loop(elem: &Type, compact_t: &TokenStream, name: &str) -> TokenStream {
    let w = W();
    if elem.is_fixed() {
        return quote!(a.put_elements(s););
    }
    let elem_w = match elem {
        Type::String => quote!(#w::write_string(s, e, #compact_t).at_index(i).at_field(#name)?;),
        Type::Bytes | Type::Records => {
            quote!(#w::write_bytes(s, e, #compact_t).at_index(i).at_field(#name)?;)
        }
        Type::Struct(_) => {
            quote!(#w::Encode::encode_raw(e, s, version).at_index(i).at_field(#name)?;)
        }
        _ => quote!(),
    };
    quote!(for (i, e) in a.iter().enumerate() { #elem_w })
}

/// Code writing a struct field, with its null marker when nullable.
fn write_struct(fp: &FieldPlan, nullable: &Cond, tagged: bool) -> TokenStream {
    let w = W();
    let (id, name) = (&fp.ident, &fp.name);
    if !fp.field.is_optional() {
        return quote!(#w::Encode::encode_raw(&self.#id, s, version).at_field(#name)?;);
    }
    let not_null =
        quote!(return ::core::result::Result::Err(#w::null_not_allowed(version).field(#name)););
    let (present, absent) = if tagged {
        (
            quote!(s.write_byte(1);),
            nullable.select(quote!(s.write_byte(0);), not_null),
        )
    } else {
        (
            nullable.select(quote!(s.write_byte(1);), quote!()),
            nullable.select(quote!(s.write_byte(0xff);), not_null),
        )
    };
    quote!(match &self.#id {
        ::core::option::Option::Some(x) => { #present #w::Encode::encode_raw(x, s, version).at_field(#name)?; }
        ::core::option::Option::None => { #absent }
    })
}
