//! Emits Kafka's JSON form of each message and struct (the form of Kafka's generated
//! `…JsonConverter` classes, `org.apache.kafka.message.JsonConverterGenerator`): an impl of
//! the runtime's `json::JsonForm`.
//!
//! Writing follows the binary encoder field by field (the same version conditions, the same
//! non-default and null checks, the same errors); reading follows Kafka's lenient converters
//! (missing mandatory field is an error, everything else falls back to its default, unknown keys
//! are ignored). The value conversions themselves (base64, float literals, ranges) live in the
//! runtime, so each field is one call. The shape is documented on the runtime module.

use super::message::{default_expr, non_default_expr, param, Cond, Ctx, W};
use crate::names::{field_ident, type_ident};
use crate::ir::{Field, Struct, Versions};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The JSON key of a spec field: its name with the first letter lower-cased (Kafka's
/// `camelCaseName`).
pub(crate) fn json_key(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(first) => first.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `#[cfg(feature = "json")]` when the options ask for it.
pub(crate) fn cfg_attr(on: bool) -> TokenStream {
    if on {
        quote!(#[cfg(feature = "json")])
    } else {
        quote!()
    }
}

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
fn write_field(cx: &Ctx, f: &Field) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let valid = cx.valid();
    let id = field_ident(&f.name);
    let rust_name = id.to_string().trim_start_matches("r#").to_string();
    let key = json_key(&f.name);
    let fe = quote!(.map_err(|e| e.field(#rust_name))?);
    let non_default = non_default_expr(cx, f, &quote!(self.#id));
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
        quote!(#null_check #j::put(&mut m, #key, &self.#id, version)#fe;)
    };
    let mut arms = Vec::new();
    let untagged_v = f.untagged_versions();
    match Cond::of(untagged_v, valid) {
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
    if !matches!(Cond::of(f.versions, valid), Cond::Always) && !f.ignorable {
        arms.push((
            Some(non_default),
            quote!(return ::core::result::Result::Err(#w::non_default(version).field(#rust_name));),
        ));
    }
    if_chain(arms)
}

/// The expression reading one field from the object `o`.
fn read_field(cx: &Ctx, f: &Field) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let key = json_key(&f.name);
    let required = quote!(#j::required(o, #key, version)?);
    let default = default_expr(cx, f);
    let optional = quote!(#j::field_or(o, #key, version, #default)?);
    // Mandatory where the version has the field outside the tagged section (Kafka: versions
    // minus taggedVersions).
    Cond::of(f.untagged_versions(), cx.valid()).select(required, optional)
}

/// The JSON impls of one struct (`top`: the message itself).
pub(crate) fn emit_json(cx: &Ctx, st: &Struct, top: bool) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let ty = type_ident(&st.name);
    let ty_name = st.name.clone();
    let flexible = cx.has_flexible();
    let cfg = cfg_attr(cx.opts.json_cfg_feature);

    // ---- to_json ----
    let writes: Vec<TokenStream> = st.fields.iter().map(|f| write_field(cx, f)).collect();
    let unknown_out = if flexible {
        let mut known: Vec<u32> = st.fields.iter().filter_map(|f| f.tag.map(|t| t.0)).collect();
        known.sort_unstable();
        let known = known.iter().map(|t| Literal::u32_unsuffixed(*t));
        let flex = cx.flexible().tokens();
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
    let out_body = quote!(
        #m_decl
        #(#writes)*
        #unknown_out
        ::core::result::Result::Ok(#j::Value::Object(m))
    );

    // ---- from_json ----
    let names: Vec<_> = st.fields.iter().map(|f| field_ident(&f.name)).collect();
    let reads: Vec<_> = st.fields.iter().map(|f| read_field(cx, f)).collect();
    let unknown_in = if flexible { quote!(unknown_tagged_fields: #j::unknown_tags(o)?,) } else { quote!() };
    let in_body = if st.fields.is_empty() && !flexible {
        quote!(
            #j::object(value)?;
            ::core::result::Result::Ok(Self {})
        )
    } else {
        quote!(
            let o = #j::object(value)?;
            ::core::result::Result::Ok(Self { #(#names: #reads,)* #unknown_in })
        )
    };
    let out_v = param(&out_body, "version");
    let in_v = param(&in_body, "version");

    if top {
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
    } else {
        quote!(
            #cfg
            impl #j::JsonForm for #ty {
                fn to_json(&self, #out_v: i16) -> ::core::result::Result<#j::Value, #w::EncodeError> {
                    #out_body
                }
                fn from_json(value: &#j::Value, #in_v: i16) -> ::core::result::Result<Self, #j::JsonError> {
                    #in_body
                }
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::json_key;

    #[test]
    fn keys_lower_the_first_letter_only() {
        assert_eq!(json_key("GroupId"), "groupId");
        assert_eq!(json_key("TopicID"), "topicID");
        assert_eq!(json_key("x"), "x");
    }
}
