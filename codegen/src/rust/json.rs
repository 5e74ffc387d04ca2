//! Emits Kafka's JSON form of each message and struct (the form of Kafka's generated
//! `…JsonConverter` classes, `org.apache.kafka.message.JsonConverterGenerator`): an impl of
//! the runtime's `json::JsonForm`.
//!
//! Writing follows the binary encoder field by field (the same version conditions, the same
//! non-default and null checks, the same errors); reading follows Kafka's lenient converters
//! (missing mandatory field is an error, everything else falls back to its default, unknown keys
//! are ignored). The value conversions themselves (base64, float literals, ranges) live in the
//! runtime, so each field is one call. The shape is documented on the runtime module.

use super::plan::{default_expr, non_default_expr, with_flexible, Ctx, FieldPlan, StructPlan};
use super::tokens::{cfg_feature, param, Cond, W};
use crate::ir::{Field, Type, Versions};
use crate::names::json_key;
use proc_macro2::TokenStream;
use quote::quote;

/// Folds `(condition, body)` arms into `if a { .. } else if b { .. }`; an arm without condition
/// ends the chain as its `else`.
fn if_chain(arms: Vec<(Option<TokenStream>, TokenStream)>) -> TokenStream {
    let mut out = TokenStream::new();
    for (k, (cond, body)) in arms.into_iter().enumerate() {
        match (k, cond) {
            (0, None) => return body,
            (0, Some(c)) => out.extend(quote!(if #c { #body })),
            (_, Some(c)) => out.extend(quote!(else if #c { #body })),
            (_, None) => {
                out.extend(quote!(else { #body }));
                break;
            }
        }
    }
    out
}

/// The statements writing one field into the map `m` (or checking that it may be left out).
fn write_field(cx: &Ctx, fp: &FieldPlan) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let valid = cx.valid();
    let (f, id, rust_name) = (fp.field, &fp.ident, &fp.name);
    let key = json_key(&f.name);
    let fe = quote!(.map_err(|e| e.field(#rust_name))?);
    let non_default = non_default_expr(f, &quote!(self.#id));
    let put_fn = records_fn(f, "put");
    // The write, with the null check for the versions of this branch that do not allow null.
    let put = |branch: Versions| {
        let null_check = if f.is_optional() {
            match Cond::of(f.nullable, branch.intersect(&valid)) {
                Cond::Always => quote!(),
                Cond::Never => quote!(#j::check_null(self.#id.is_some(), version)#fe;),
                Cond::Expr(e) => quote!(#j::check_null(self.#id.is_some() || #e, version)#fe;),
            }
        } else {
            quote!()
        };
        quote!(#null_check #put_fn(&mut m, #key, &self.#id, version)#fe;)
    };
    let mut arms = Vec::new();
    let untagged_v = f.untagged_versions();
    match fp.untagged.clone() {
        Cond::Always => arms.push((None, put(untagged_v))),
        Cond::Never => {}
        Cond::Expr(e) => arms.push((Some(e), put(untagged_v))),
    }
    if let Some((_, tv)) = &f.tag {
        let tagged_v = tv.intersect(&f.versions);
        let tagged = Cond::of(tagged_v, valid);
        if !matches!(tagged, Cond::Never) {
            arms.push((Some(tagged.and(non_default.clone())), put(tagged_v)));
        }
    }
    // Versions that lack the field: the binary writer's non-default check.
    if !fp.in_version.is_always() && !f.ignorable {
        arms.push((
            Some(non_default),
            quote!(return ::core::result::Result::Err(#w::non_default(version).field(#rust_name));),
        ));
    }
    if_chain(arms)
}

/// The runtime function `name` (`put`, `required`, `field_or`) for a field: the one of
/// `rt::json`, or for `records` fields the one of `rt::records_json`, which also writes and reads
/// record sets expanded into batches (`kwire decode --records`).
fn records_fn(f: &Field, name: &str) -> TokenStream {
    let w = W();
    let name = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
    if f.ty == Type::Records {
        quote!(#w::records_json::#name)
    } else {
        quote!(#w::json::#name)
    }
}

/// The expression reading one field from the object `o`.
fn read_field(fp: &FieldPlan) -> TokenStream {
    let key = json_key(&fp.field.name);
    let (required_fn, field_or_fn) = (
        records_fn(fp.field, "required"),
        records_fn(fp.field, "field_or"),
    );
    let required = quote!(#required_fn(o, #key, version)?);
    let default = default_expr(fp.field);
    let optional = quote!(#field_or_fn(o, #key, version, #default)?);
    // Mandatory where the version has the field outside the tagged section (Kafka: versions
    // minus taggedVersions).
    fp.untagged.select(required, optional)
}

/// The JSON impls of one struct.
pub(crate) fn emit(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let (ty, ty_name) = (&p.ty, &p.name);
    let cfg = cfg_feature(cx.opts.json_cfg_feature, "json");
    let out_body = to_json_body(cx, p);
    let in_body = from_json_body(cx, p);
    let out_v = param(&out_body, "version");
    let in_v = param(&in_body, "version");
    if !p.top {
        return quote!(
            #cfg
            impl #j::JsonForm for #ty {
                fn to_json(&self, #out_v: i16) -> ::core::result::Result<#j::Value, #w::EncodeError> {
                    #out_body
                }
                fn from_json(value: &#j::Value, #in_v: i16) -> ::core::result::Result<Self, #j::JsonError> {
                    #in_body
                }
            }
        );
    }
    quote!(
        #cfg
        impl #j::JsonForm for #ty {
            fn to_json(&self, version: i16) -> ::core::result::Result<#j::Value, #w::EncodeError> {
                #w::check_encode_version(version, <Self as #w::Message>::VALID_VERSIONS, #ty_name)?;
                self.to_json_body(version).map_err(|e| e.in_type(#ty_name))
            }
            fn from_json(value: &#j::Value, version: i16) -> ::core::result::Result<Self, #j::JsonError> {
                #j::check_version(version, <Self as #w::Message>::VALID_VERSIONS, #ty_name)?;
                Self::from_json_body(value, version).map_err(|e| e.in_type(#ty_name))
            }
        }
        #cfg
        impl #ty {
            fn to_json_body(&self, #out_v: i16) -> ::core::result::Result<#j::Value, #w::EncodeError> {
                #out_body
            }
            fn from_json_body(value: &#j::Value, #in_v: i16) -> ::core::result::Result<Self, #j::JsonError> {
                #in_body
            }
        }
    )
}

/// The body of `to_json`: every field into a map, then the unknown tagged fields.
fn to_json_body(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let flexible = cx.has_flexible();
    let writes: Vec<TokenStream> = p.fields.iter().map(|fp| write_field(cx, fp)).collect();
    let unknown_out = if flexible {
        let known = p.known_tags();
        let flex = cx.flex_var.encoding();
        quote!(
            #w::check_unknown_tags(&self.unknown_tagged_fields, &[#(#known),*], #flex, version)?;
            #j::put_unknown_tags(&mut m, &self.unknown_tagged_fields);
        )
    } else {
        quote!()
    };
    let m_decl = if !flexible && !writes.iter().any(|w| w.to_string().contains("& mut m")) {
        quote!(let m = #j::Map::new();)
    } else {
        quote!(let mut m = #j::Map::new();)
    };
    with_flexible(
        cx,
        quote!(
            #m_decl
            #(#writes)*
            #unknown_out
            ::core::result::Result::Ok(#j::Value::Object(m))
        ),
    )
}

/// The body of `from_json`: every field from the object (mandatory or defaulted), then the
/// unknown tagged fields.
fn from_json_body(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let flexible = cx.has_flexible();
    let names = p.fields.iter().map(|fp| &fp.ident);
    let reads = p.fields.iter().map(read_field);
    let unknown_in = if flexible {
        quote!(unknown_tagged_fields: #j::unknown_tags(o)?,)
    } else {
        quote!()
    };
    if p.fields.is_empty() && !flexible {
        quote!(
            #j::object(value)?;
            ::core::result::Result::Ok(Self {})
        )
    } else {
        quote!(
            let o = #j::object(value)?;
            ::core::result::Result::Ok(Self { #(#names: #reads,)* #unknown_in })
        )
    }
}
