//! Emits the `api` module of a spec set: `ApiKey`, header-version selection, and request /
//! response dispatch with frame types.
//!
//! An API is a request spec and a response spec with the same assigned `apiKey`. Specs whose
//! key is `TBD` get types and codecs but no place here. Frame types (`RequestFrame`,
//! `ResponseFrame`) are emitted when the set holds header specs named `RequestHeader` and
//! `ResponseHeader`.
//!
//! Header versions (Kafka's `ApiMessageType.requestHeaderVersion` and `responseHeaderVersion`,
//! KIP-482): a request uses header v2 in its flexible versions and v1 otherwise, a response v1
//! and v0; a `headerVersions` entry in the spec wins; hard-coded as in Kafka: ApiVersions (key
//! 18) responses always use response header v0 (KIP-511), ControlledShutdown (key 7) v0
//! requests use request header v0.

use super::options::Options;
use super::tokens::{cfg_feature, param, W};
use crate::names::{json_key, module_ident, type_ident};
use crate::ir::{MessageKind, Spec, Versions};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// One API: a request and its response.
pub struct Api<'a> {
    /// The key.
    pub key: i16,
    /// The request spec.
    pub request: &'a Spec,
    /// The response spec.
    pub response: &'a Spec,
}

impl Api<'_> {
    /// The variant name: the request name without `Request`.
    pub fn variant(&self) -> String {
        self.request.name.strip_suffix("Request").unwrap_or(&self.request.name).to_string()
    }
}

/// The APIs of a spec set, by key. Unpaired or duplicated keys are left out (the folder-wide
/// validation reports them).
pub fn apis<'a>(specs: &[&'a Spec]) -> Vec<Api<'a>> {
    let mut out = Vec::new();
    for req in specs.iter().filter(|s| s.kind == MessageKind::Request) {
        let Some(key) = req.api_key.assigned() else { continue };
        let same_key = |kind| specs.iter().filter(move |s: &&&Spec| s.kind == kind && s.api_key.assigned() == Some(key));
        if same_key(MessageKind::Request).count() != 1 {
            continue;
        }
        let mut resps = same_key(MessageKind::Response);
        if let (Some(resp), None) = (resps.next(), resps.next()) {
            out.push(Api { key, request: req, response: resp });
        }
    }
    out.sort_by_key(|a| a.key);
    out
}

fn range_lits(v: Versions) -> (Literal, Literal) {
    if v.is_empty() {
        (Literal::i16_suffixed(0), Literal::i16_suffixed(-1))
    } else {
        (Literal::i16_suffixed(v.lowest), Literal::i16_suffixed(v.highest))
    }
}

/// The header version of a spec at `version`: `headerVersions` first, then a hard-coded special
/// case `(at, hv)` (`at == None`: every version), then flexible / plain.
fn header_version_at(spec: &Spec, version: i16, flexible_hv: i16, plain_hv: i16, special: Option<(Option<i16>, i16)>) -> i16 {
    if let Some(hv) = spec.header_version_override(version) {
        return hv;
    }
    if let Some((at, hv)) = special {
        if at.is_none() || at == Some(version) {
            return hv;
        }
    }
    if spec.flexible.contains(version) {
        flexible_hv
    } else {
        plain_hv
    }
}

/// The header versions of a spec as a `match version` with one arm per run of equal values
/// (the last run, which goes on past the highest valid version, as `_`).
fn header_version_expr(spec: &Spec, flexible_hv: i16, plain_hv: i16, special: Option<(Option<i16>, i16)>) -> TokenStream {
    let top = spec.valid.highest.saturating_add(1).max(spec.flexible.lowest).max(0);
    let mut runs: Vec<(i16, i16, i16)> = Vec::new();
    for v in 0..=top {
        let hv = header_version_at(spec, v, flexible_hv, plain_hv, special);
        match runs.last_mut() {
            Some(last) if last.2 == hv => last.1 = v,
            _ => runs.push((v, v, hv)),
        }
    }
    let n = runs.len();
    if n == 1 {
        let hv = Literal::i16_unsuffixed(runs[0].2);
        return quote!(#hv);
    }
    let arms = runs.iter().enumerate().map(|(i, (lo, hi, hv))| {
        let hv = Literal::i16_unsuffixed(*hv);
        if i + 1 == n {
            quote!(_ => #hv,)
        } else if lo == hi {
            let lo = Literal::i16_unsuffixed(*lo);
            quote!(#lo => #hv,)
        } else {
            let (lo, hi) = (Literal::i16_unsuffixed(*lo), Literal::i16_unsuffixed(*hi));
            quote!(#lo..=#hi => #hv,)
        }
    });
    quote!(match version { #(#arms)* })
}

/// Emits the module body (with the default options); [`super::emit`] puts the import naming
/// the runtime `rt` before it.
pub fn emit_api(specs: &[&Spec]) -> TokenStream {
    emit_api_with(specs, &Options::default())
}

/// Emits the module body; with `opts.json`, also the JSON form of the body enums and frames.
pub fn emit_api_with(specs: &[&Spec], opts: &Options) -> TokenStream {
    let apis = apis(specs);
    if apis.is_empty() {
        return quote!(
            /// The APIs of this spec set (none: it holds no request/response pair).
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub enum ApiKey {}
        );
    }
    let variants: Vec<_> = apis.iter().map(|a| format_ident!("{}", a.variant())).collect();
    let path = |s: &Spec| {
        let (m, t) = (module_ident(&s.name), type_ident(&s.name));
        quote!(super::#m::#t)
    };
    let req_paths: Vec<_> = apis.iter().map(|a| path(a.request)).collect();
    let resp_paths: Vec<_> = apis.iter().map(|a| path(a.response)).collect();
    let req_docs: Vec<_> = apis.iter().map(|a| format!(" A `{}`.", a.request.name)).collect();
    let resp_docs: Vec<_> = apis.iter().map(|a| format!(" A `{}`.", a.response.name)).collect();
    let api_key = api_key_enum(&apis);
    let request_enum = body_enum(&format_ident!("Request"), &variants, &req_paths, &req_docs, "request");
    let response_enum = body_enum(&format_ident!("Response"), &variants, &resp_paths, &resp_docs, "response");
    let json = if opts.json { json_items(opts, &variants, &req_paths, &resp_paths) } else { quote!() };
    let frames = frames(specs, opts);
    quote!(#api_key #request_enum #response_enum #json #frames)
}

/// The `ApiKey` enum: each API's key, name, versions and header versions.
fn api_key_enum(apis: &[Api]) -> TokenStream {
    let w = W();
    let variants: Vec<_> = apis.iter().map(|a| format_ident!("{}", a.variant())).collect();
    let keys: Vec<_> = apis.iter().map(|a| Literal::i16_unsuffixed(a.key)).collect();
    let names: Vec<_> = apis.iter().map(|a| a.variant()).collect();
    let docs: Vec<_> = apis
        .iter()
        .map(|a| {
            format!(
                " {} (key {}): versions {}, flexible {}{}.",
                a.variant(),
                a.key,
                a.request.valid,
                a.request.flexible,
                if a.request.deprecated.is_empty() { String::new() } else { format!(", deprecated {}", a.request.deprecated) }
            )
        })
        .collect();
    let range = |v: Versions| {
        let (lo, hi) = range_lits(v);
        quote!(#w::VersionRange::new(#lo, #hi))
    };
    let valid: Vec<_> = apis.iter().map(|a| range(a.request.valid)).collect();
    let flex: Vec<_> = apis.iter().map(|a| range(a.request.flexible)).collect();
    let req_hv: Vec<_> = apis
        .iter()
        .map(|a| header_version_expr(a.request, 2, 1, (a.key == 7).then_some((Some(0), 0))))
        .collect();
    let resp_hv: Vec<_> = apis
        .iter()
        .map(|a| header_version_expr(a.response, 1, 0, (a.key == 18).then_some((None, 0))))
        .collect();
    let req_v = param(&quote!(#(#req_hv)*), "version");
    let resp_v = param(&quote!(#(#resp_hv)*), "version");
    quote!(
        /// The APIs of this spec set, by key (each a request and response spec pair).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i16)]
        pub enum ApiKey {
            #( #[doc = #docs] #variants = #keys, )*
        }

        impl ApiKey {
            /// Every API, by key.
            pub const ALL: &'static [ApiKey] = &[#(ApiKey::#variants),*];

            /// The API with key `key`, if this spec set has it.
            pub fn from_i16(key: i16) -> ::core::option::Option<ApiKey> {
                match key {
                    #( #keys => ::core::option::Option::Some(ApiKey::#variants), )*
                    _ => ::core::option::Option::None,
                }
            }
            /// The key's number.
            pub fn as_i16(self) -> i16 {
                self as i16
            }
            /// The API's name, e.g. `"Metadata"`.
            pub fn name(self) -> &'static str {
                match self { #( ApiKey::#variants => #names, )* }
            }
            /// The request spec's `validVersions`.
            pub fn valid_versions(self) -> #w::VersionRange {
                match self { #( ApiKey::#variants => #valid, )* }
            }
            /// The request spec's `flexibleVersions`.
            pub fn flexible_versions(self) -> #w::VersionRange {
                match self { #( ApiKey::#variants => #flex, )* }
            }
            /// The request header version for a request of this API at `version`: 2 in flexible
            /// versions, else 1; ControlledShutdown v0 uses 0; a spec's `headerVersions` wins.
            pub fn request_header_version(self, #req_v: i16) -> i16 {
                match self { #( ApiKey::#variants => #req_hv, )* }
            }
            /// The response header version for a response of this API at `version`: 1 in the
            /// response spec's flexible versions, else 0; ApiVersions always uses 0 (KIP-511); a
            /// spec's `headerVersions` wins.
            pub fn response_header_version(self, #resp_v: i16) -> i16 {
                match self { #( ApiKey::#variants => #resp_hv, )* }
            }
        }

        impl ::core::convert::TryFrom<i16> for ApiKey {
            type Error = i16;
            fn try_from(key: i16) -> ::core::result::Result<ApiKey, i16> {
                ApiKey::from_i16(key).ok_or(key)
            }
        }
    )
}

/// The `Request` or `Response` enum: any body of the spec set, tagged by API.
fn body_enum(enum_name: &proc_macro2::Ident, variants: &[proc_macro2::Ident], paths: &[TokenStream], docs: &[String], what: &str) -> TokenStream {
    let w = W();
    let doc = format!(" Any {what} body of this spec set, tagged by API.");
    quote!(
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        pub enum #enum_name {
            #( #[doc = #docs] #variants(#paths), )*
        }

        impl #enum_name {
            /// The API this body belongs to.
            pub fn api_key(&self) -> ApiKey {
                match self { #( #enum_name::#variants(_) => ApiKey::#variants, )* }
            }
            /// Decodes the body of `api_key` at `version` from `r`.
            ///
            /// # Errors
            /// Any decode error of the body, including `UnsupportedVersion`.
            pub fn decode(api_key: ApiKey, version: i16, r: &mut #w::Reader) -> ::core::result::Result<Self, #w::DecodeError> {
                ::core::result::Result::Ok(match api_key {
                    #( ApiKey::#variants => #enum_name::#variants(<#paths as #w::Decode>::decode(r, version)?), )*
                })
            }
        }

        impl #w::Encode for #enum_name {
            fn encode_raw(&self, w: &mut #w::RawWriter, version: i16) -> ::core::result::Result<(), #w::EncodeError> {
                match self { #( #enum_name::#variants(m) => #w::Encode::encode_raw(m, w, version), )* }
            }
        }

        #(
            impl ::core::convert::From<#paths> for #enum_name {
                fn from(m: #paths) -> Self {
                    #enum_name::#variants(m)
                }
            }
        )*
    )
}

/// `RequestFrame` and `ResponseFrame`, when the set has the request and response headers.
fn frames(specs: &[&Spec], opts: &Options) -> TokenStream {
    let has = |name: &str| specs.iter().find(|s| s.kind == MessageKind::Header && s.name == name);
    match (has("RequestHeader"), has("ResponseHeader")) {
        (Some(rq), Some(rs))
            if ["RequestApiKey", "RequestApiVersion", "CorrelationId"]
                .iter()
                .all(|n| rq.fields.iter().any(|f| f.name == *n))
                && rs.fields.iter().any(|f| f.name == "CorrelationId") =>
        {
            let frames_json = if opts.json { frames_json(opts, rq, rs) } else { quote!() };
            let request = request_frame(&module_ident(&rq.name));
            let response = response_frame(&module_ident(&rs.name));
            quote!(#frames_json #request #response)
        }
        _ => quote!(),
    }
}

/// `RequestFrame`: header and body of a request, read by peeking the API key and version.
fn request_frame(rqm: &proc_macro2::Ident) -> TokenStream {
    let w = W();
    quote!(
        /// A request as it travels (without the 4-byte size prefix): header, then body.
        #[derive(Debug, Clone, PartialEq)]
        pub struct RequestFrame {
            /// The request header; its `request_api_key` and `request_api_version` say how to read the body.
            pub header: super::#rqm::RequestHeader,
            /// The body.
            pub body: Request,
        }

        impl RequestFrame {
            /// A frame for `body` at `version`, with a header naming its API.
            pub fn new(body: impl ::core::convert::Into<Request>, version: i16, correlation_id: i32, client_id: ::core::option::Option<&str>) -> Self {
                let body = body.into();
                RequestFrame {
                    header: super::#rqm::RequestHeader {
                        request_api_key: body.api_key().as_i16(),
                        request_api_version: version,
                        correlation_id,
                        client_id: client_id.map(|c| #w::KStr::from(c.to_string())),
                        ..::core::default::Default::default()
                    },
                    body,
                }
            }

            /// The request header version this frame's API and version call for.
            ///
            /// # Errors
            /// `UnknownApiKey` when the header names an API this spec set lacks.
            pub fn header_version(&self) -> ::core::result::Result<i16, #w::DecodeErrorKind> {
                let key = ApiKey::from_i16(self.header.request_api_key)
                    .ok_or(#w::DecodeErrorKind::UnknownApiKey(self.header.request_api_key))?;
                ::core::result::Result::Ok(key.request_header_version(self.header.request_api_version))
            }

            /// Decodes one whole request frame: peeks the API key and version, picks the
            /// header version, reads the header and the body.
            ///
            /// # Errors
            /// `UnexpectedEof` under 4 bytes, `UnknownApiKey`, any header or body error,
            /// `TrailingBytes` when bytes are left after the body.
            pub fn decode(frame: #w::Bytes) -> ::core::result::Result<Self, #w::DecodeError> {
                let mut r = #w::Reader::new(frame);
                let f = Self::decode_from(&mut r)?;
                r.finish()?;
                ::core::result::Result::Ok(f)
            }

            /// Decodes a request frame from the front of `r`, leaving what follows.
            ///
            /// # Errors
            /// As [`RequestFrame::decode`], without the trailing-bytes check.
            pub fn decode_from(r: &mut #w::Reader) -> ::core::result::Result<Self, #w::DecodeError> {
                let peek = r.peek_rest();
                if peek.len() < 4 {
                    return ::core::result::Result::Err(r.error(#w::DecodeErrorKind::UnexpectedEof { needed: 4, remaining: peek.len() }));
                }
                let key = i16::from_be_bytes([peek[0], peek[1]]);
                let version = i16::from_be_bytes([peek[2], peek[3]]);
                let api = ApiKey::from_i16(key).ok_or_else(|| r.error(#w::DecodeErrorKind::UnknownApiKey(key)))?;
                let header = <super::#rqm::RequestHeader as #w::Decode>::decode(r, api.request_header_version(version))?;
                let body = Request::decode(api, version, r)?;
                ::core::result::Result::Ok(RequestFrame { header, body })
            }

            /// Writes header and body (no size prefix).
            ///
            /// # Errors
            /// `ApiKeyMismatch` when the body is not the header's API; any header or body error.
            pub fn encode_to<S: #w::Sink>(&self, s: &mut S) -> ::core::result::Result<(), #w::EncodeError> {
                let key = self.body.api_key();
                if key.as_i16() != self.header.request_api_key {
                    return ::core::result::Result::Err(#w::EncodeError::new(#w::EncodeErrorKind::ApiKeyMismatch { body: key.as_i16(), header: self.header.request_api_key }));
                }
                let version = self.header.request_api_version;
                #w::Encode::encode_to(&self.header, s, key.request_header_version(version))?;
                #w::Encode::encode_to(&self.body, s, version)
            }

            /// The exact encoded size in bytes (header + body, no size prefix).
            ///
            /// # Errors
            /// As [`RequestFrame::encode_to`].
            pub fn encoded_len(&self) -> ::core::result::Result<usize, #w::EncodeError> {
                let mut c = #w::RawWriter::counter();
                self.encode_to(&mut c)?;
                ::core::result::Result::Ok(c.written())
            }

            /// Encodes into a new buffer of exactly the right size (no size prefix).
            ///
            /// # Errors
            /// As [`RequestFrame::encode_to`].
            pub fn to_bytes(&self) -> ::core::result::Result<#w::Bytes, #w::EncodeError> {
                #w::encode_exact(self.encoded_len()?, |w| self.encode_to(w))
            }
        }
    )
}

/// `ResponseFrame`: header and body of a response to a known API and version.
fn response_frame(rsm: &proc_macro2::Ident) -> TokenStream {
    let w = W();
    quote!(
        /// A response as it travels (without the 4-byte size prefix): header, then body.
        /// Reading one needs the API key and version of the request it answers.
        #[derive(Debug, Clone, PartialEq)]
        pub struct ResponseFrame {
            /// The response header.
            pub header: super::#rsm::ResponseHeader,
            /// The body.
            pub body: Response,
        }

        impl ResponseFrame {
            /// A frame answering `correlation_id` with `body`.
            pub fn new(body: impl ::core::convert::Into<Response>, correlation_id: i32) -> Self {
                ResponseFrame {
                    header: super::#rsm::ResponseHeader { correlation_id, ..::core::default::Default::default() },
                    body: body.into(),
                }
            }

            /// Decodes one whole response frame to a request of `api_key` at `version`.
            ///
            /// # Errors
            /// Any header or body error; `TrailingBytes` when bytes are left after the body.
            pub fn decode(frame: #w::Bytes, api_key: ApiKey, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                let mut r = #w::Reader::new(frame);
                let f = Self::decode_from(&mut r, api_key, version)?;
                r.finish()?;
                ::core::result::Result::Ok(f)
            }

            /// Decodes a response frame from the front of `r`, leaving what follows.
            ///
            /// # Errors
            /// Any header or body error.
            pub fn decode_from(r: &mut #w::Reader, api_key: ApiKey, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                let header = <super::#rsm::ResponseHeader as #w::Decode>::decode(r, api_key.response_header_version(version))?;
                let body = Response::decode(api_key, version, r)?;
                ::core::result::Result::Ok(ResponseFrame { header, body })
            }

            /// Writes header and body (no size prefix) at `version`.
            ///
            /// # Errors
            /// Any header or body error.
            pub fn encode_to<S: #w::Sink>(&self, s: &mut S, version: i16) -> ::core::result::Result<(), #w::EncodeError> {
                let key = self.body.api_key();
                #w::Encode::encode_to(&self.header, s, key.response_header_version(version))?;
                #w::Encode::encode_to(&self.body, s, version)
            }

            /// The exact encoded size in bytes at `version` (no size prefix).
            ///
            /// # Errors
            /// As [`ResponseFrame::encode_to`].
            pub fn encoded_len(&self, version: i16) -> ::core::result::Result<usize, #w::EncodeError> {
                let mut c = #w::RawWriter::counter();
                self.encode_to(&mut c, version)?;
                ::core::result::Result::Ok(c.written())
            }

            /// Encodes at `version` into a new buffer of exactly the right size.
            ///
            /// # Errors
            /// As [`ResponseFrame::encode_to`].
            pub fn to_bytes(&self, version: i16) -> ::core::result::Result<#w::Bytes, #w::EncodeError> {
                #w::encode_exact(self.encoded_len(version)?, |w| self.encode_to(w, version))
            }
        }
    )
}

/// The JSON form of the `Request` and `Response` enums: the body's, at a given version.
fn json_items(opts: &Options, variants: &[proc_macro2::Ident], req_paths: &[TokenStream], resp_paths: &[TokenStream]) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let cfg = cfg_feature(opts.json_cfg_feature, "json");
    let one = |enum_name: proc_macro2::Ident, paths: &[TokenStream], what: &str| {
        let to_doc = format!(" Kafka's JSON form of the {what} body at `version` (see `kwire_protocol::wire::json`).");
        let from_doc = format!(" Reads the {what} body of `api_key` at `version` from its JSON form.");
        quote!(
            #cfg
            impl #enum_name {
                #[doc = #to_doc]
                ///
                /// # Errors
                /// As the body's `JsonForm::to_json`.
                pub fn to_json(&self, version: i16) -> ::core::result::Result<#j::Value, #w::EncodeError> {
                    match self { #( #enum_name::#variants(m) => #j::JsonForm::to_json(m, version), )* }
                }
                #[doc = #from_doc]
                ///
                /// # Errors
                /// As the body's `JsonForm::from_json`.
                pub fn from_json(api_key: ApiKey, version: i16, value: &#j::Value) -> ::core::result::Result<Self, #j::JsonError> {
                    ::core::result::Result::Ok(match api_key {
                        #( ApiKey::#variants => #enum_name::#variants(<#paths as #j::JsonForm>::from_json(value, version)?), )*
                    })
                }
            }
        )
    };
    let req = one(format_ident!("Request"), req_paths, "request");
    let resp = one(format_ident!("Response"), resp_paths, "response");
    quote!(#req #resp)
}

/// The JSON form of `RequestFrame` and `ResponseFrame`: `{"header": …, "body": …}`.
fn frames_json(opts: &Options, rq: &Spec, rs: &Spec) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let cfg = cfg_feature(opts.json_cfg_feature, "json");
    let rqm = module_ident(&rq.name);
    let rsm = module_ident(&rs.name);
    let key_key = json_key("RequestApiKey");
    let version_key = json_key("RequestApiVersion");
    quote!(
        #cfg
        impl RequestFrame {
            /// Kafka's JSON form of the frame, `{"header": …, "body": …}`: the header at the
            /// header version its API and version call for, the body at the header's
            /// `requestApiVersion`.
            ///
            /// # Errors
            /// `ApiKeyMismatch` when the body is not the header's API; any header or body error.
            pub fn to_json(&self) -> ::core::result::Result<#j::Value, #w::EncodeError> {
                let key = self.body.api_key();
                if key.as_i16() != self.header.request_api_key {
                    return ::core::result::Result::Err(#w::EncodeError::new(#w::EncodeErrorKind::ApiKeyMismatch { body: key.as_i16(), header: self.header.request_api_key }));
                }
                let version = self.header.request_api_version;
                let header = #j::JsonForm::to_json(&self.header, key.request_header_version(version))?;
                ::core::result::Result::Ok(#j::frame(header, self.body.to_json(version)?))
            }

            /// Reads a frame from its JSON form: the API key and version from the header's
            /// `requestApiKey` and `requestApiVersion`, then the header and the body.
            ///
            /// # Errors
            /// A missing `header` or `body`, an unknown API key, any header or body error.
            pub fn from_json(value: &#j::Value) -> ::core::result::Result<Self, #j::JsonError> {
                let (h, b) = #j::frame_parts(value)?;
                let key = #j::header_i16(h, #key_key)?;
                let version = #j::header_i16(h, #version_key)?;
                let api = ApiKey::from_i16(key).ok_or_else(|| #j::unknown_api_key(key, #key_key))?;
                let header = <super::#rqm::RequestHeader as #j::JsonForm>::from_json(h, api.request_header_version(version))?;
                let body = Request::from_json(api, version, b)?;
                ::core::result::Result::Ok(RequestFrame { header, body })
            }
        }

        #cfg
        impl ResponseFrame {
            /// Kafka's JSON form of the frame at `version`, `{"header": …, "body": …}`.
            ///
            /// # Errors
            /// Any header or body error.
            pub fn to_json(&self, version: i16) -> ::core::result::Result<#j::Value, #w::EncodeError> {
                let header = #j::JsonForm::to_json(&self.header, self.body.api_key().response_header_version(version))?;
                ::core::result::Result::Ok(#j::frame(header, self.body.to_json(version)?))
            }

            /// Reads a response frame to a request of `api_key` at `version` from its JSON form.
            ///
            /// # Errors
            /// A missing `header` or `body`, any header or body error.
            pub fn from_json(value: &#j::Value, api_key: ApiKey, version: i16) -> ::core::result::Result<Self, #j::JsonError> {
                let (h, b) = #j::frame_parts(value)?;
                let header = <super::#rsm::ResponseHeader as #j::JsonForm>::from_json(h, api_key.response_header_version(version))?;
                let body = Response::from_json(api_key, version, b)?;
                ::core::result::Result::Ok(ResponseFrame { header, body })
            }
        }
    )
}
