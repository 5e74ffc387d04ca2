//! The owned decoder's body: the statements of `decode_into` (or `decode_body` for a message),
//! decoding in place over the defaults, field by field from the plan, then the tagged-field
//! section.

use super::plan::{rust_type, struct_ty, with_flexible, Ctx, FieldPlan, StructPlan};
use super::tokens::{Cond, W};
use crate::ir::Type;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The decoder body of a struct (without the error-path import).
pub(crate) fn body(cx: &Ctx, p: &StructPlan) -> TokenStream {
    // In place: `self` holds the defaults, so a field the version lacks is left as it is.
    let dec: Vec<TokenStream> = p
        .fields
        .iter()
        .map(|fp| {
            let id = &fp.ident;
            let read = read_value(fp, &fp.compact, &fp.nullable, false);
            fp.untagged.select(quote!(self.#id = #read;), quote!())
        })
        .collect();
    let tags = if cx.has_flexible() {
        cx.flex_var.select(tag_section(p), quote!())
    } else {
        quote!()
    };
    with_flexible(cx, quote!(#(#dec)* #tags ::core::result::Result::Ok(())))
}

/// The tagged-field section: known tags read into their fields, unknown ones kept.
fn tag_section(p: &StructPlan) -> TokenStream {
    let w = W();
    if p.tagged.is_empty() {
        return quote!(#w::decode_unknown_tags(r, &mut self.unknown_tagged_fields)?;);
    }
    let arms = p.tagged_by_tag.iter().filter_map(|k| {
        let fp = &p.fields[*k];
        let t = fp.tag.as_ref()?;
        let (id, name) = (&fp.ident, &fp.name);
        let read = read_value(fp, &Cond::Always, &t.nullable, true);
        let tag_l = Literal::u32_unsuffixed(t.tag);
        let bad = quote!(return ::core::result::Result::Err(p.error(#w::DecodeErrorKind::TagNotValidForVersion { tag, version }).field(#name)));
        let arm_body = t.cond.select(quote!({ let r = &mut p; self.#id = #read; }), quote!({ #bad; }));
        Some(quote!(#tag_l => #arm_body))
    });
    quote!(
        let n = r.uvarint()?;
        for _ in 0..n {
            let (tag, mut p) = r.tagged_field()?;
            match tag {
                #(#arms)*
                _ => #w::push_unknown_tag(&mut self.unknown_tagged_fields, tag, p),
            }
        }
        #w::finish_unknown_tags(&mut self.unknown_tagged_fields);
    )
}

/// Code reading the field's value from reader `r`, evaluating to the field's Rust type (errors
/// get the field name).
fn read_value(fp: &FieldPlan, compact: &Cond, nullable: &Cond, tagged: bool) -> TokenStream {
    let w = W();
    let name = &fp.name;
    let compact_t = if tagged {
        Cond::Always.encoding()
    } else {
        compact.encoding()
    };
    let fe = quote!(.at_field(#name)?);
    let optional = fp.field.is_optional();
    let wrap_opt = |nullable_read: TokenStream, plain_read: TokenStream| -> TokenStream {
        if !optional {
            plain_read
        } else {
            nullable.select(
                nullable_read,
                quote!(::core::option::Option::Some(#plain_read)),
            )
        }
    };
    match &fp.field.ty {
        t if t.is_fixed() => {
            let m = proc_macro2::Ident::new(
                &format!("{}_at", fixed_reader(t)),
                proc_macro2::Span::call_site(),
            );
            quote!(r.#m(#name)?)
        }
        Type::String => wrap_opt(
            quote!(r.nullable_string(#compact_t)#fe),
            quote!(r.string(#compact_t)#fe),
        ),
        Type::Bytes | Type::Records => wrap_opt(
            quote!(r.nullable_bytes(#compact_t)#fe),
            quote!(r.bytes(#compact_t)#fe),
        ),
        Type::Array(elem) if elem.is_fixed() => {
            let et = rust_type(elem);
            wrap_opt(
                quote!(r.nullable_prim_array::<#et>(#compact_t)#fe),
                quote!(r.prim_array::<#et>(#compact_t)#fe),
            )
        }
        Type::Array(elem) if matches!(&**elem, Type::Struct(_)) => {
            let et = rust_type(elem);
            wrap_opt(
                quote!(#w::decode_nullable_struct_array::<#et>(r, #compact_t, version)#fe),
                quote!(#w::decode_struct_array::<#et>(r, #compact_t, version)#fe),
            )
        }
        Type::Array(elem) if matches!(&**elem, Type::String) => wrap_opt(
            quote!(#w::decode_nullable_string_array(r, #compact_t)#fe),
            quote!(#w::decode_string_array(r, #compact_t)#fe),
        ),
        Type::Array(elem) => {
            let (nullable_read, plain_read) = read_array(elem, &compact_t, name);
            wrap_opt(nullable_read, plain_read)
        }
        Type::Struct(sn) => read_struct(fp, sn, nullable, tagged),
        _ => quote!(),
    }
}

/// The `Reader` method name of a fixed-size type (`i32`, `uuid`, …).
fn fixed_reader(t: &Type) -> &'static str {
    match t {
        Type::Bool => "bool",
        Type::Int8 => "i8",
        Type::Int16 => "i16",
        Type::Uint16 => "u16",
        Type::Int32 => "i32",
        Type::Uint32 => "u32",
        Type::Int64 => "i64",
        Type::Float64 => "f64",
        _ => "uuid",
    }
}

/// The nullable and plain reads of an array of bytes or records: its count, then the elements.
fn read_array(elem: &Type, compact_t: &TokenStream, name: &str) -> (TokenStream, TokenStream) {
    let w = W();
    let fe = quote!(.at_field(#name)?);
    let et = rust_type(elem);
    let ie = quote!(.at_index(i).at_field(#name)?);
    let elem_r = match elem {
        Type::String => quote!(r.string(#compact_t)#ie),
        Type::Bytes | Type::Records => quote!(r.bytes(#compact_t)#ie),
        Type::Struct(_) => quote!(<#et as #w::Decode>::decode(r, version)#ie),
        _ => quote!(unreachable_array_of_arrays),
    };
    let fill = quote!({
        let mut a: ::std::vec::Vec<#et> = ::std::vec::Vec::with_capacity(#w::bounded_capacity::<#et>(n, r.remaining()));
        for i in 0..n { a.push(#elem_r); }
        a
    });
    (
        quote!(match r.nullable_array_len(#compact_t)#fe {
            ::core::option::Option::Some(n) => ::core::option::Option::Some(#fill),
            ::core::option::Option::None => ::core::option::Option::None,
        }),
        quote!({ let n = r.array_len(#compact_t)#fe; #fill }),
    )
}

/// Code reading a struct field, with its null marker when nullable.
fn read_struct(fp: &FieldPlan, sn: &str, nullable: &Cond, tagged: bool) -> TokenStream {
    let w = W();
    let name = &fp.name;
    let t = struct_ty(sn);
    let dec = quote!(<#t as #w::Decode>::decode(r, version).at_field(#name)?);
    if !fp.field.is_optional() {
        return dec;
    }
    let present = if tagged {
        quote!(r.tagged_struct_present().at_field(#name)?)
    } else {
        quote!(r.struct_present().at_field(#name)?)
    };
    nullable.select(
        quote!(if #present { ::core::option::Option::Some(#dec) } else { ::core::option::Option::None }),
        quote!(::core::option::Option::Some(#dec)),
    )
}
