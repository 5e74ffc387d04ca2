//! Emits the owned type of one struct: its declaration, `Default`, and the `Encode`, `Decode`
//! and (for the message itself) `Message` impls around the bodies `encode` and `decode` emit
//! (`rust/mod.rs` passes them in; the three do not import each other).

use super::plan::{default_expr, default_is_derivable, field_doc, Ctx, StructPlan};
use super::tokens::{doc_lines, param, with_error_path, W};
use crate::ir::{ApiKeyValue, MessageKind};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The owned items of one struct: declaration, `Default`, codec impls around the encoder and
/// decoder bodies.
pub(crate) fn emit(cx: &Ctx, p: &StructPlan, enc_body: TokenStream, dec_body: TokenStream) -> TokenStream {
    let decl = declaration(cx, p);
    let enc_body = with_error_path(enc_body);
    let dec_body = with_error_path(dec_body);
    let impls = if p.top { top_impls(cx, p, &enc_body, &dec_body) } else { nested_impls(p, &enc_body, &dec_body) };
    quote!(#decl #impls)
}

/// The doc of the struct: the message's facts for the top level, the parent for a nested one.
fn struct_doc(cx: &Ctx, p: &StructPlan) -> Vec<TokenStream> {
    let spec = cx.spec;
    if p.top {
        let key = match spec.api_key {
            ApiKeyValue::Assigned(k) if spec.kind.is_coordinator_record() => format!(", record type {k}"),
            ApiKeyValue::Assigned(k) => format!(", API key {k}"),
            ApiKeyValue::Tbd => ", API key TBD".to_string(),
            ApiKeyValue::Absent => String::new(),
        };
        doc_lines(&format!(
            "`{}`: {}{key}, valid versions {}, flexible versions {}.\n\nGenerated from `{}`.",
            spec.name,
            spec.kind.as_str(),
            spec.valid,
            spec.flexible,
            spec.file
        ))
    } else {
        let st = p.st;
        doc_lines(&format!(
            "`{}`: {} struct of `{}` (versions {}).",
            st.name,
            if st.common { "common" } else { "inline" },
            spec.name,
            st.versions
        ))
    }
}

/// The struct declaration and its `Default` (derived when every default is the type's own).
fn declaration(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let ty = &p.ty;
    let doc = struct_doc(cx, p);
    let names: Vec<_> = p.fields.iter().map(|f| &f.ident).collect();
    let types: Vec<_> = p.fields.iter().map(|f| &f.ty).collect();
    let docs: Vec<_> = p.fields.iter().map(|f| field_doc(f.field)).collect();
    let (utf_decl, utf_default) = if cx.has_flexible() {
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
    let (derive_default, default_impl) = if p.st.fields.iter().all(default_is_derivable) {
        (quote!(, Default), quote!())
    } else {
        let defaults = p.fields.iter().map(|f| default_expr(f.field));
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
    )
}

/// `Encode`, `Decode` and `Message` of the message itself: the version check, then the bodies
/// (in `encode_body`/`decode_body`, whose errors get the type name).
fn top_impls(cx: &Ctx, p: &StructPlan, enc_body: &TokenStream, dec_body: &TokenStream) -> TokenStream {
    let w = W();
    let (ty, ty_name) = (&p.ty, &p.name);
    let (s_name, enc_version) = (param(enc_body, "s"), param(enc_body, "version"));
    let (r_name, dec_version) = (param(dec_body, "r"), param(dec_body, "version"));
    let message = message_impl(cx, p);
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
        #message
    )
}

/// The `Message` impl: name, kind, API key, valid and flexible versions.
fn message_impl(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let spec = cx.spec;
    let (ty, ty_name) = (&p.ty, &p.name);
    let (lo, hi) = (Literal::i16_suffixed(spec.valid.lowest), Literal::i16_suffixed(spec.valid.highest));
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
        MessageKind::CoordinatorKey => quote!(CoordinatorKey),
        MessageKind::CoordinatorValue => quote!(CoordinatorValue),
    };
    let api_key = match spec.api_key.assigned() {
        Some(k) => quote!(::core::option::Option::Some(#k)),
        None => quote!(::core::option::Option::None),
    };
    quote!(
        impl #w::Message for #ty {
            const NAME: &'static str = #ty_name;
            const KIND: #w::MessageKind = #w::MessageKind::#kind;
            const API_KEY: ::core::option::Option<i16> = #api_key;
            const VALID_VERSIONS: #w::VersionRange = #w::VersionRange::new(#lo, #hi);
            const FLEXIBLE_VERSIONS: #w::VersionRange = #w::VersionRange::new(#flo, #fhi);
        }
    )
}

/// `Encode` and `Decode` of a nested struct: the bodies themselves (the encoder inlined into the
/// array loops that call it).
fn nested_impls(p: &StructPlan, enc_body: &TokenStream, dec_body: &TokenStream) -> TokenStream {
    let w = W();
    let ty = &p.ty;
    let (s_name, enc_version) = (param(enc_body, "s"), param(enc_body, "version"));
    let (r_name, dec_version) = (param(dec_body, "r"), param(dec_body, "version"));
    quote!(
        impl #w::Encode for #ty {
            #[inline]
            fn encode_raw(&self, #s_name: &mut #w::RawWriter, #enc_version: i16) -> ::core::result::Result<(), #w::EncodeError> {
                #enc_body
            }
        }
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
    )
}
