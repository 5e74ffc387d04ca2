//! Emits `Sample` impls (the runtime's `sample` feature): a random value of each struct that
//! is valid at a given version, for round-trip tests and fuzz seeds.

use super::plan::{default_expr, default_parts, struct_ty, type_default, Ctx, StructPlan};
use super::tokens::{cfg_feature, param, W};
use crate::ir::Type;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The `Sample` impl of one struct.
pub(crate) fn emit(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let inits = p.fields.iter().map(|fp| {
        let f = fp.field;
        let id = &fp.ident;
        let (inner_default, _) = default_parts(f);
        let v = sample_value(&f.ty, inner_default);
        let v = if f.is_optional() {
            let null_now = fp.nullable_read.and(quote!(g.null()));
            quote!(if #null_now { ::core::option::Option::None } else { ::core::option::Option::Some(#v) })
        } else {
            v
        };
        let sel = fp.in_version.select(v, default_expr(f));
        quote!(#id: #sel,)
    });
    let utf = if cx.has_flexible() {
        let n = Literal::u32_unsuffixed(p.tagged.len() as u32);
        let e = cx.flexible.select(
            quote!(g.unknown_tags(#n)),
            quote!(#w::UnknownTaggedFields::new()),
        );
        quote!(unknown_tagged_fields: #e,)
    } else {
        quote!()
    };
    let ty = &p.ty;
    let body = quote!(#(#inits)* #utf);
    let version = param(&body, "version");
    let cfg = cfg_feature(cx.opts.samples_cfg_feature, "sample");
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

fn sample_value(ty: &Type, inner_default: TokenStream) -> TokenStream {
    let w = W();
    match ty {
        Type::Array(elem) => {
            let e = sample_value(elem, type_default(elem));
            quote!({ let n = g.array_len(); (0..n).map(|_| #e).collect() })
        }
        Type::Struct(n) => {
            let t = struct_ty(n);
            quote!(<#t as #w::sample::Sample>::sample(g, version))
        }
        _ => quote!(g.value(&#inner_default)),
    }
}
