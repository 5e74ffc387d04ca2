//! Emits the `api` module of a spec set: `ApiKey` (versions, unstable latest versions, header
//! versions), request / response dispatch with frame types, the `ApiRequest` / `ApiResponse`
//! traits that tie each request type to its API and response type, and, when the set has
//! ApiVersions (key 18), the KIP-511 fallback of its response (`decode_with_fallback`).
//!
//! An API whose request spec says `"validVersions": "none"` (one Kafka removed) keeps its key and
//! name, as in Kafka's `ApiKeys`, with an empty `valid_versions()` and `None` for its header
//! versions; its frames fail with `UnsupportedVersion`.
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
use crate::ir::{MessageKind, Spec, Versions};
use crate::names::{json_key, module_ident, type_ident};
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
        self.request
            .name
            .strip_suffix("Request")
            .unwrap_or(&self.request.name)
            .to_string()
    }
}

/// The APIs of a spec set, by key. Unpaired or duplicated keys are left out (the folder-wide
/// validation reports them).
pub fn apis<'a>(specs: &[&'a Spec]) -> Vec<Api<'a>> {
    let mut out = Vec::new();
    for req in specs.iter().filter(|s| s.kind == MessageKind::Request) {
        let Some(key) = req.api_key.assigned() else {
            continue;
        };
        let same_key = |kind| {
            specs
                .iter()
                .filter(move |s: &&&Spec| s.kind == kind && s.api_key.assigned() == Some(key))
        };
        if same_key(MessageKind::Request).count() != 1 {
            continue;
        }
        let mut resps = same_key(MessageKind::Response);
        if let (Some(resp), None) = (resps.next(), resps.next()) {
            out.push(Api {
                key,
                request: req,
                response: resp,
            });
        }
    }
    out.sort_by_key(|a| a.key);
    out
}

fn range_lits(v: Versions) -> (Literal, Literal) {
    if v.is_empty() {
        (Literal::i16_suffixed(0), Literal::i16_suffixed(-1))
    } else {
        (
            Literal::i16_suffixed(v.lowest),
            Literal::i16_suffixed(v.highest),
        )
    }
}

/// The header version of a spec at `version`: `headerVersions` first, then a hard-coded special
/// case `(at, hv)` (`at == None`: every version), then flexible / plain.
fn header_version_at(
    spec: &Spec,
    version: i16,
    flexible_hv: i16,
    plain_hv: i16,
    special: Option<(Option<i16>, i16)>,
) -> i16 {
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

/// The header versions of a spec as a `match version` with one arm per run of equal values:
/// the first run also covers every negative version and the last, which goes on past the
/// highest valid version, is `_` (as Kafka's generated `ApiMessageType` compares `version`
/// with the flexible versions' lowest, whatever the version).
fn header_version_expr(
    spec: &Spec,
    flexible_hv: i16,
    plain_hv: i16,
    special: Option<(Option<i16>, i16)>,
) -> TokenStream {
    let top = spec
        .valid
        .highest
        .saturating_add(1)
        .max(spec.flexible.lowest)
        .max(0);
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
        let hi_lit = Literal::i16_unsuffixed(*hi);
        if i + 1 == n {
            quote!(_ => #hv,)
        } else if i == 0 {
            quote!(i16::MIN..=#hi_lit => #hv,)
        } else if lo == hi {
            quote!(#hi_lit => #hv,)
        } else {
            let lo = Literal::i16_unsuffixed(*lo);
            quote!(#lo..=#hi_lit => #hv,)
        }
    });
    quote!(match version { #(#arms)* })
}

/// A header-version expression as an `Option`: `None` for an API with no valid version.
fn optional_header_version(spec: &Spec, expr: TokenStream) -> TokenStream {
    if spec.valid.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(#expr))
    }
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
    let variants: Vec<_> = apis
        .iter()
        .map(|a| format_ident!("{}", a.variant()))
        .collect();
    let path = |s: &Spec| {
        let (m, t) = (module_ident(&s.name), type_ident(&s.name));
        quote!(super::#m::#t)
    };
    let req_paths: Vec<_> = apis.iter().map(|a| path(a.request)).collect();
    let resp_paths: Vec<_> = apis.iter().map(|a| path(a.response)).collect();
    let req_docs: Vec<_> = apis
        .iter()
        .map(|a| format!(" A `{}`.", a.request.name))
        .collect();
    let resp_docs: Vec<_> = apis
        .iter()
        .map(|a| format!(" A `{}`.", a.response.name))
        .collect();
    let api_key = api_key_enum(&apis);
    let request_enum = body_enum(
        &format_ident!("Request"),
        &variants,
        &req_paths,
        &req_docs,
        "request",
    );
    let response_enum = body_enum(
        &format_ident!("Response"),
        &variants,
        &resp_paths,
        &resp_docs,
        "response",
    );
    let json = if opts.json {
        json_items(opts, &variants, &req_paths, &resp_paths)
    } else {
        quote!()
    };
    let frames = frames(specs, opts);
    let rsm = frame_headers(specs).map(|(_, rs)| module_ident(&rs.name));
    let typed = typed_traits(&apis, &req_paths, &resp_paths, rsm.as_ref());
    let fallback = api_versions_fallback(&apis, rsm.as_ref());
    quote!(#api_key #request_enum #response_enum #json #frames #typed #fallback)
}

/// The `ApiKey` enum: each API's key, name, versions (valid, flexible, enabled without the
/// unstable latest one) and header versions.
fn api_key_enum(apis: &[Api]) -> TokenStream {
    let w = W();
    let variants: Vec<_> = apis
        .iter()
        .map(|a| format_ident!("{}", a.variant()))
        .collect();
    let keys: Vec<_> = apis
        .iter()
        .map(|a| Literal::i16_unsuffixed(a.key))
        .collect();
    let names: Vec<_> = apis.iter().map(|a| a.variant()).collect();
    let req_names: Vec<_> = apis.iter().map(|a| a.request.name.clone()).collect();
    let resp_names: Vec<_> = apis.iter().map(|a| a.response.name.clone()).collect();
    let docs: Vec<_> = apis
        .iter()
        .map(|a| {
            if a.request.valid.is_empty() {
                return format!(
                    " {} (key {}): removed, no valid version (`validVersions` `none`).",
                    a.variant(),
                    a.key
                );
            }
            format!(
                " {} (key {}): versions {}, flexible {}{}{}.",
                a.variant(),
                a.key,
                a.request.valid,
                a.request.flexible,
                if a.request.deprecated.is_empty() {
                    String::new()
                } else {
                    format!(", deprecated {}", a.request.deprecated)
                },
                if a.request.latest_version_unstable {
                    format!(", v{} unstable", a.request.valid.highest)
                } else {
                    String::new()
                }
            )
        })
        .collect();
    let range = |v: Versions| {
        if v.is_empty() {
            return quote!(#w::VersionRange::NONE);
        }
        let (lo, hi) = range_lits(v);
        quote!(#w::VersionRange::new(#lo, #hi))
    };
    let valid: Vec<_> = apis.iter().map(|a| range(a.request.valid)).collect();
    let flex: Vec<_> = apis.iter().map(|a| range(a.request.flexible)).collect();
    let req_hv: Vec<_> = apis
        .iter()
        .map(|a| {
            optional_header_version(
                a.request,
                header_version_expr(a.request, 2, 1, (a.key == 7).then_some((Some(0), 0))),
            )
        })
        .collect();
    let resp_hv: Vec<_> = apis
        .iter()
        .map(|a| {
            optional_header_version(
                a.request,
                header_version_expr(a.response, 1, 0, (a.key == 18).then_some((None, 0))),
            )
        })
        .collect();
    let req_v = param(&quote!(#(#req_hv)*), "version");
    let resp_v = param(&quote!(#(#resp_hv)*), "version");
    let unstable: Vec<_> = apis
        .iter()
        .filter(|a| a.request.latest_version_unstable && !a.request.valid.is_empty())
        .map(|a| format_ident!("{}", a.variant()))
        .collect();
    let unstable_body = if unstable.is_empty() {
        quote!(let _ = self; false)
    } else {
        quote!(::core::matches!(self, #(ApiKey::#unstable)|*))
    };
    quote!(
        /// The APIs of this spec set, by key (each a request and response spec pair).
        ///
        /// An API whose specs say `"validVersions": "none"` is one Kafka removed (in Kafka 4.x:
        /// LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown). As in Kafka's
        /// `ApiKeys`, it keeps its key and name, but it has no valid version: `valid_versions()`
        /// is empty, `has_valid_version()` is false, the version and header-version methods give
        /// `None`, and reading or writing its bodies or frames fails with `UnsupportedVersion`
        /// at any version.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i16)]
        pub enum ApiKey {
            #( #[doc = #docs] #variants = #keys, )*
        }

        impl ApiKey {
            /// Every API, by key (removed ones included).
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
            /// The request spec's name, e.g. `"MetadataRequest"`.
            pub fn request_name(self) -> &'static str {
                match self { #( ApiKey::#variants => #req_names, )* }
            }
            /// The response spec's name, e.g. `"MetadataResponse"`.
            pub fn response_name(self) -> &'static str {
                match self { #( ApiKey::#variants => #resp_names, )* }
            }
            /// The request spec's `validVersions`: every version the codecs read and write,
            /// the unstable latest one included. Empty (`VersionRange::NONE`, `is_empty()`) for
            /// an API Kafka removed (`"validVersions": "none"`).
            pub fn valid_versions(self) -> #w::VersionRange {
                match self { #( ApiKey::#variants => #valid, )* }
            }
            /// The request spec's `flexibleVersions` (empty for a removed API).
            pub fn flexible_versions(self) -> #w::VersionRange {
                match self { #( ApiKey::#variants => #flex, )* }
            }
            /// Whether the API has any valid version (Kafka's `ApiKeys.hasValidVersion`);
            /// false for an API Kafka removed.
            pub fn has_valid_version(self) -> bool {
                !self.valid_versions().is_empty()
            }
            /// The lowest valid version; `None` for an API with no valid version.
            pub fn oldest_version(self) -> ::core::option::Option<i16> {
                let v = self.valid_versions();
                if v.is_empty() { ::core::option::Option::None } else { ::core::option::Option::Some(v.lowest) }
            }
            /// Whether the request spec marks its highest valid version as unstable
            /// (`"latestVersionUnstable": true`; Kafka's `ApiMessageType.latestVersionUnstable`):
            /// a version still being designed, which Kafka neither sends nor advertises unless
            /// unstable versions are enabled (`unstable.api.versions.enable`). The codecs read
            /// and write it all the same.
            pub fn is_latest_version_unstable(self) -> bool {
                #unstable_body
            }
            /// The versions in use when unstable versions are enabled or not (Kafka's
            /// `ApiKeys.toApiVersion(enableUnstableLastVersion)`: what a broker advertises in
            /// ApiVersions): the valid versions, without the highest when it is unstable and
            /// `enable_unstable` is false. Empty for an API with no valid version, and when the
            /// only valid version is unstable and not enabled.
            pub fn enabled_versions(self, enable_unstable: bool) -> #w::VersionRange {
                let v = self.valid_versions();
                if v.is_empty() || enable_unstable || !self.is_latest_version_unstable() {
                    return v;
                }
                match v.highest.checked_sub(1) {
                    ::core::option::Option::Some(h) => #w::VersionRange::new(v.lowest, h),
                    ::core::option::Option::None => #w::VersionRange::NONE,
                }
            }
            /// The highest version in use (Kafka's `ApiKeys.latestVersion(enableUnstableLastVersion)`
            /// and `ApiMessageType.highestSupportedVersion(enableUnstableLastVersion)`): the highest
            /// valid version, or the one below it when that one is unstable and `enable_unstable`
            /// is false. `None` when [`ApiKey::enabled_versions`] is empty (Kafka answers -1).
            pub fn latest_version(self, enable_unstable: bool) -> ::core::option::Option<i16> {
                let v = self.enabled_versions(enable_unstable);
                if v.is_empty() { ::core::option::Option::None } else { ::core::option::Option::Some(v.highest) }
            }
            /// The request header version for a request of this API at `version` (Kafka's
            /// `ApiMessageType.requestHeaderVersion`, KIP-482): 2 in the request spec's flexible
            /// versions, else 1; ControlledShutdown v0 uses 0; a spec's `headerVersions` wins.
            /// Given for every version, also outside the valid ones (versions above the highest
            /// follow its rule), as Kafka does: that is how a broker reads the header of an
            /// ApiVersions request of a version it does not know (KIP-511). `None` for an API
            /// with no valid version (Kafka throws `UnsupportedVersionException`).
            pub fn request_header_version(self, #req_v: i16) -> ::core::option::Option<i16> {
                match self { #( ApiKey::#variants => #req_hv, )* }
            }
            /// The response header version for a response of this API at `version` (Kafka's
            /// `ApiMessageType.responseHeaderVersion`): 1 in the response spec's flexible
            /// versions, else 0; ApiVersions always uses 0 (KIP-511); a spec's `headerVersions`
            /// wins. Given for every version, as [`ApiKey::request_header_version`]; `None` for
            /// an API with no valid version.
            pub fn response_header_version(self, #resp_v: i16) -> ::core::option::Option<i16> {
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

/// The `ApiRequest` and `ApiResponse` traits, implemented by each API's request and response
/// body: the API key and the other half of the pair as types, so that a client can be generic
/// over the API (`fn send<R: ApiRequest>(r: R, version: i16) -> R::Response`).
fn typed_traits(
    apis: &[Api],
    req_paths: &[TokenStream],
    resp_paths: &[TokenStream],
    rsm: Option<&proc_macro2::Ident>,
) -> TokenStream {
    let w = W();
    let variants: Vec<_> = apis
        .iter()
        .map(|a| format_ident!("{}", a.variant()))
        .collect();
    // The ApiVersions response reads as Kafka's client reads it: with the KIP-511 fallback.
    let resp_overrides: Vec<_> = apis
        .iter()
        .map(|a| {
            if a.key == API_VERSIONS_KEY {
                let frame = match rsm {
                    Some(rsm) => quote!(
                        fn decode_response_frame(frame: #w::Bytes, version: i16) -> ::core::result::Result<(super::#rsm::ResponseHeader, Self), #w::DecodeError> {
                            Self::decode_frame_with_fallback(frame, version).map(|(h, m, _)| (h, m))
                        }
                    ),
                    None => quote!(),
                };
                quote!(
                    fn decode_response_body(r: &mut #w::Reader, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                        Self::decode_rest_with_fallback(r, version).map(|(m, _)| m)
                    }
                    #frame
                )
            } else {
                quote!()
            }
        })
        .collect();
    let frame_method = match rsm {
        Some(rsm) => quote!(
            /// Decodes one whole response frame (response header, then this body; no size
            /// prefix) answering a request of this API at `version`, the body as
            /// [`ApiResponse::decode_response_body`] reads it.
            ///
            /// # Errors
            /// `UnsupportedVersion` (at offset 0) when `version` is outside the API's valid
            /// versions (always for an API Kafka removed); any header or body error;
            /// `TrailingBytes` when bytes are left after the body.
            fn decode_response_frame(frame: #w::Bytes, version: i16) -> ::core::result::Result<(super::#rsm::ResponseHeader, Self), #w::DecodeError> {
                let mut r = #w::Reader::new(frame);
                let header = decode_response_header(&mut r, Self::KEY, version)?;
                let body = Self::decode_response_body(&mut r, version)?;
                ::core::result::Result::Ok((header, body))
            }
        ),
        None => quote!(),
    };
    quote!(
        /// A request body of one API of this spec set: its [`ApiKey`] and its response type.
        ///
        /// Implemented by every request message, so that code can be generic over the API:
        /// `fn send<R: ApiRequest>(request: R, version: i16) -> R::Response`. A request goes
        /// into a frame with `RequestFrame::new(request, version, correlation_id, client_id)`
        /// (it converts into [`Request`]); its answer comes back typed with
        /// `R::Response::decode_response_frame(frame, version)`.
        pub trait ApiRequest: #w::Message + ::core::convert::Into<Request> {
            /// The API.
            const KEY: ApiKey;
            /// The API's response body.
            type Response: ApiResponse<Request = Self>;
        }

        /// A response body of one API of this spec set: its [`ApiKey`] and its request type.
        ///
        /// Implemented by every response message. Its decoding methods read a body as Kafka's
        /// client does (`AbstractResponse.parseResponse`): at the version of the request,
        /// except that an ApiVersions response that does not read at that version is read
        /// again at version 0 (KIP-511; see `ApiVersionsResponse::decode_with_fallback`).
        pub trait ApiResponse: #w::Message + ::core::convert::Into<Response> {
            /// The API.
            const KEY: ApiKey;
            /// The API's request body.
            type Request: ApiRequest<Response = Self>;

            /// Reads one whole response body (every byte left in `r`) answering a request of
            /// this API at `version`.
            ///
            /// # Errors
            /// Any decode error of the body (`UnsupportedVersion` outside the valid versions);
            /// `TrailingBytes` when bytes are left after it.
            fn decode_response_body(r: &mut #w::Reader, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                let m = <Self as #w::Decode>::decode(r, version)?;
                r.finish().map_err(|e| e.in_type(<Self as #w::Message>::NAME))?;
                ::core::result::Result::Ok(m)
            }

            /// Decodes one whole response body from `body`, as
            /// [`ApiResponse::decode_response_body`].
            ///
            /// # Errors
            /// As [`ApiResponse::decode_response_body`].
            fn decode_response(body: #w::Bytes, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                Self::decode_response_body(&mut #w::Reader::new(body), version)
            }

            #frame_method
        }

        #(
            impl ApiRequest for #req_paths {
                const KEY: ApiKey = ApiKey::#variants;
                type Response = #resp_paths;
            }

            impl ApiResponse for #resp_paths {
                const KEY: ApiKey = ApiKey::#variants;
                type Request = #req_paths;
                #resp_overrides
            }
        )*
    )
}

/// ApiVersions' key (18).
const API_VERSIONS_KEY: i16 = 18;

/// The ApiVersions fallback of KIP-511, when the set has ApiVersions (key 18):
/// `decode_with_fallback` on its response body and on `ResponseFrame`.
fn api_versions_fallback(apis: &[Api], rsm: Option<&proc_macro2::Ident>) -> TokenStream {
    let w = W();
    let Some(api) = apis.iter().find(|a| a.key == API_VERSIONS_KEY) else {
        return quote!();
    };
    let resp = {
        let (m, t) = (
            module_ident(&api.response.name),
            type_ident(&api.response.name),
        );
        quote!(super::#m::#t)
    };
    let variant = format_ident!("{}", api.variant());
    let body = quote!(
        impl #resp {
            /// Decodes one whole ApiVersions response body answering a request at `version`
            /// as Kafka's client does (KIP-511; Kafka's `ApiVersionsResponse.parse`): at
            /// `version` first and, if that fails and `version` is above 0, at version 0. A
            /// broker that does not know the version a client asked for answers in the v0
            /// layout with error code 35 (UNSUPPORTED_VERSION) and its own ApiVersions version
            /// range in `api_keys`, so that the client can retry at a version both know.
            ///
            /// Returns the body and the version it was read at (`version`, or 0 after a
            /// fallback). Unlike Kafka, a body that leaves bytes unread at `version` counts
            /// as one that does not read there (kwire reads whole bodies).
            ///
            /// # Errors
            /// When neither version reads: the error at `version` (Kafka throws the one at
            /// version 0), with field path and byte offset, or the one at version 0 when
            /// `version` is above the valid versions; when `version` is 0 or negative (no
            /// fallback), its error.
            pub fn decode_with_fallback(bytes: #w::Bytes, version: i16) -> ::core::result::Result<(Self, i16), #w::DecodeError> {
                Self::decode_rest_with_fallback(&mut #w::Reader::new(bytes), version)
            }

            /// As `decode_with_fallback`, over every byte left in `r`.
            fn decode_rest_with_fallback(r: &mut #w::Reader, version: i16) -> ::core::result::Result<(Self, i16), #w::DecodeError> {
                let start = r.clone();
                let whole = |r: &mut #w::Reader, v: i16| -> ::core::result::Result<Self, #w::DecodeError> {
                    let m = <Self as #w::Decode>::decode(r, v)?;
                    r.finish().map_err(|e| e.in_type(<Self as #w::Message>::NAME))?;
                    ::core::result::Result::Ok(m)
                };
                match whole(r, version) {
                    ::core::result::Result::Ok(m) => ::core::result::Result::Ok((m, version)),
                    ::core::result::Result::Err(e) if version <= 0 => ::core::result::Result::Err(e),
                    ::core::result::Result::Err(e) => {
                        *r = start;
                        match whole(r, 0) {
                            ::core::result::Result::Ok(m) => ::core::result::Result::Ok((m, 0)),
                            // A version this set does not know says nothing about the bytes:
                            // then the v0 error is the useful one.
                            ::core::result::Result::Err(e0) if matches!(e.kind(), #w::DecodeErrorKind::UnsupportedVersion { .. }) => {
                                ::core::result::Result::Err(e0)
                            }
                            ::core::result::Result::Err(_) => ::core::result::Result::Err(e),
                        }
                    }
                }
            }
        }
    );
    let frame = match rsm {
        Some(rsm) => quote!(
            impl #resp {
                /// Decodes a whole ApiVersions response frame with the KIP-511 fallback: the
                /// header at the response header version of `version` (0 at every version), with
                /// no check of `version` (Kafka's client checks none: the body's fallback covers
                /// versions this set does not know), then the body as `decode_with_fallback`.
                fn decode_frame_with_fallback(frame: #w::Bytes, version: i16) -> ::core::result::Result<(super::#rsm::ResponseHeader, Self, i16), #w::DecodeError> {
                    let mut r = #w::Reader::new(frame);
                    let hv = ApiKey::#variant.response_header_version(version)
                        .ok_or_else(|| r.error(unsupported_decode(ApiKey::#variant, version)).in_type(ApiKey::#variant.response_name()))?;
                    let header = <super::#rsm::ResponseHeader as #w::Decode>::decode(&mut r, hv)?;
                    let (body, used) = Self::decode_rest_with_fallback(&mut r, version)?;
                    ::core::result::Result::Ok((header, body, used))
                }
            }

            impl ResponseFrame {
                /// Decodes one whole response frame to a request of `api_key` at `version` as
                /// Kafka's client does (`AbstractResponse.parseResponse`): as
                /// [`ResponseFrame::decode`], except that an ApiVersions body (after its header,
                /// always v0) is read with the KIP-511 fallback to version 0 of
                /// `ApiVersionsResponse::decode_with_fallback`.
                ///
                /// Returns the frame and the version its body was read at (`version`, or 0 after
                /// a fallback). For ApiVersions `version` is not checked against the valid
                /// versions first, as Kafka's client does not: the fallback covers it.
                ///
                /// # Errors
                /// As [`ResponseFrame::decode`]; for ApiVersions, a header error, else as
                /// `ApiVersionsResponse::decode_with_fallback`.
                pub fn decode_with_fallback(frame: #w::Bytes, api_key: ApiKey, version: i16) -> ::core::result::Result<(Self, i16), #w::DecodeError> {
                    if api_key != ApiKey::#variant {
                        return Self::decode(frame, api_key, version).map(|f| (f, version));
                    }
                    let (header, body, used) = #resp::decode_frame_with_fallback(frame, version)?;
                    ::core::result::Result::Ok((ResponseFrame { header, body: Response::#variant(body) }, used))
                }
            }
        ),
        None => quote!(),
    };
    quote!(#body #frame)
}

/// The `Request` or `Response` enum: any body of the spec set, tagged by API.
fn body_enum(
    enum_name: &proc_macro2::Ident,
    variants: &[proc_macro2::Ident],
    paths: &[TokenStream],
    docs: &[String],
    what: &str,
) -> TokenStream {
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

/// The request and response header specs, when the set has both with the fields frames need.
fn frame_headers<'a>(specs: &[&'a Spec]) -> Option<(&'a Spec, &'a Spec)> {
    let has = |name: &str| {
        specs
            .iter()
            .copied()
            .find(|s| s.kind == MessageKind::Header && s.name == name)
    };
    match (has("RequestHeader"), has("ResponseHeader")) {
        (Some(rq), Some(rs))
            if ["RequestApiKey", "RequestApiVersion", "CorrelationId"]
                .iter()
                .all(|n| rq.fields.iter().any(|f| f.name == *n))
                && rs.fields.iter().any(|f| f.name == "CorrelationId") =>
        {
            Some((rq, rs))
        }
        _ => None,
    }
}

/// `RequestFrame` and `ResponseFrame`, when the set has the request and response headers.
fn frames(specs: &[&Spec], opts: &Options) -> TokenStream {
    match frame_headers(specs) {
        Some((rq, rs)) => {
            let frames_json = if opts.json {
                frames_json(opts, rq, rs)
            } else {
                quote!()
            };
            let request = request_frame(&module_ident(&rq.name));
            let response = response_frame(&module_ident(&rs.name));
            let w = W();
            let rsm = module_ident(&rs.name);
            quote!(
                /// `UnsupportedVersion` for `version` of `api`, against its valid versions.
                fn unsupported_decode(api: ApiKey, version: i16) -> #w::DecodeErrorKind {
                    let v = api.valid_versions();
                    #w::DecodeErrorKind::UnsupportedVersion { version, lowest: v.lowest, highest: v.highest }
                }

                /// As `unsupported_decode`, for encoding (in the type named `what`).
                fn unsupported_encode(api: ApiKey, version: i16, what: &'static str) -> #w::EncodeError {
                    let v = api.valid_versions();
                    #w::EncodeError::new(#w::EncodeErrorKind::UnsupportedVersion { version, lowest: v.lowest, highest: v.highest }).in_type(what)
                }

                /// Reads the response header of a response of `api` at `version`, after checking
                /// that the version is one of the API's valid versions.
                fn decode_response_header(r: &mut #w::Reader, api: ApiKey, version: i16) -> ::core::result::Result<super::#rsm::ResponseHeader, #w::DecodeError> {
                    let hv = match api.response_header_version(version) {
                        ::core::option::Option::Some(hv) if api.valid_versions().contains(version) => hv,
                        _ => return ::core::result::Result::Err(r.error(unsupported_decode(api, version)).in_type(api.response_name())),
                    };
                    <super::#rsm::ResponseHeader as #w::Decode>::decode(r, hv)
                }

                #frames_json #request #response
            )
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
            /// `UnknownApiKey` when the header names an API this spec set lacks;
            /// `UnsupportedVersion` when the API has no valid version (one Kafka removed).
            pub fn header_version(&self) -> ::core::result::Result<i16, #w::DecodeErrorKind> {
                let key = ApiKey::from_i16(self.header.request_api_key)
                    .ok_or(#w::DecodeErrorKind::UnknownApiKey(self.header.request_api_key))?;
                let version = self.header.request_api_version;
                key.request_header_version(version).ok_or_else(|| unsupported_decode(key, version))
            }

            /// Decodes one whole request frame: peeks the API key and version, picks the
            /// header version, reads the header and the body.
            ///
            /// # Errors
            /// `UnexpectedEof` under 4 bytes, `UnknownApiKey`; `UnsupportedVersion` (at offset 0,
            /// in the request type) when the version is outside the API's valid versions, which
            /// is every version of an API Kafka removed; any header or body error;
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
                let hv = match api.request_header_version(version) {
                    ::core::option::Option::Some(hv) if api.valid_versions().contains(version) => hv,
                    _ => return ::core::result::Result::Err(r.error(unsupported_decode(api, version)).in_type(api.request_name())),
                };
                let header = <super::#rqm::RequestHeader as #w::Decode>::decode(r, hv)?;
                let body = Request::decode(api, version, r)?;
                ::core::result::Result::Ok(RequestFrame { header, body })
            }

            /// Writes header and body (no size prefix).
            ///
            /// # Errors
            /// `ApiKeyMismatch` when the body is not the header's API; `UnsupportedVersion` for
            /// an API with no valid version; any header or body error.
            pub fn encode_to<S: #w::Sink>(&self, s: &mut S) -> ::core::result::Result<(), #w::EncodeError> {
                let key = self.body.api_key();
                if key.as_i16() != self.header.request_api_key {
                    return ::core::result::Result::Err(#w::EncodeError::new(#w::EncodeErrorKind::ApiKeyMismatch { body: key.as_i16(), header: self.header.request_api_key }));
                }
                let version = self.header.request_api_version;
                let hv = key.request_header_version(version).ok_or_else(|| unsupported_encode(key, version, key.request_name()))?;
                #w::Encode::encode_to(&self.header, s, hv)?;
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

            /// Decodes one whole response frame to a request of `api_key` at `version`, strictly
            /// at that version (see [`ResponseFrame::decode_with_fallback`] for the ApiVersions
            /// fallback of KIP-511).
            ///
            /// # Errors
            /// `UnsupportedVersion` (at offset 0, in the response type) when the version is
            /// outside the API's valid versions, which is every version of an API Kafka
            /// removed; any header or body error; `TrailingBytes` when bytes are left after the
            /// body.
            pub fn decode(frame: #w::Bytes, api_key: ApiKey, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                let mut r = #w::Reader::new(frame);
                let f = Self::decode_from(&mut r, api_key, version)?;
                r.finish()?;
                ::core::result::Result::Ok(f)
            }

            /// Decodes a response frame from the front of `r`, leaving what follows.
            ///
            /// # Errors
            /// As [`ResponseFrame::decode`], without the trailing-bytes check.
            pub fn decode_from(r: &mut #w::Reader, api_key: ApiKey, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
                let header = decode_response_header(r, api_key, version)?;
                let body = Response::decode(api_key, version, r)?;
                ::core::result::Result::Ok(ResponseFrame { header, body })
            }

            /// Writes header and body (no size prefix) at `version`.
            ///
            /// # Errors
            /// `UnsupportedVersion` for an API with no valid version; any header or body error.
            pub fn encode_to<S: #w::Sink>(&self, s: &mut S, version: i16) -> ::core::result::Result<(), #w::EncodeError> {
                let key = self.body.api_key();
                let hv = key.response_header_version(version).ok_or_else(|| unsupported_encode(key, version, key.response_name()))?;
                #w::Encode::encode_to(&self.header, s, hv)?;
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
fn json_items(
    opts: &Options,
    variants: &[proc_macro2::Ident],
    req_paths: &[TokenStream],
    resp_paths: &[TokenStream],
) -> TokenStream {
    let w = W();
    let j = quote!(#w::json);
    let cfg = cfg_feature(opts.json_cfg_feature, "json");
    let one = |enum_name: proc_macro2::Ident, paths: &[TokenStream], what: &str| {
        let to_doc = format!(" Kafka's JSON form of the {what} body at `version` (see `kwire_protocol::wire::json`).");
        let from_doc =
            format!(" Reads the {what} body of `api_key` at `version` from its JSON form.");
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
        /// `UnsupportedVersion` for `version` of `api` in JSON, named after `what`.
        #cfg
        fn unsupported_json(api: ApiKey, version: i16, what: &'static str) -> #j::JsonError {
            let v = api.valid_versions();
            #j::JsonError::new(#j::JsonErrorKind::UnsupportedVersion { version, lowest: v.lowest, highest: v.highest }).in_type(what)
        }

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
                let hv = key.request_header_version(version).ok_or_else(|| unsupported_encode(key, version, key.request_name()))?;
                let header = #j::JsonForm::to_json(&self.header, hv)?;
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
                let hv = match api.request_header_version(version) {
                    ::core::option::Option::Some(hv) if api.valid_versions().contains(version) => hv,
                    _ => return ::core::result::Result::Err(unsupported_json(api, version, api.request_name())),
                };
                let header = <super::#rqm::RequestHeader as #j::JsonForm>::from_json(h, hv)?;
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
                let key = self.body.api_key();
                let hv = key.response_header_version(version).ok_or_else(|| unsupported_encode(key, version, key.response_name()))?;
                let header = #j::JsonForm::to_json(&self.header, hv)?;
                ::core::result::Result::Ok(#j::frame(header, self.body.to_json(version)?))
            }

            /// Reads a response frame to a request of `api_key` at `version` from its JSON form.
            ///
            /// # Errors
            /// A missing `header` or `body`, any header or body error.
            pub fn from_json(value: &#j::Value, api_key: ApiKey, version: i16) -> ::core::result::Result<Self, #j::JsonError> {
                let (h, b) = #j::frame_parts(value)?;
                let hv = match api_key.response_header_version(version) {
                    ::core::option::Option::Some(hv) if api_key.valid_versions().contains(version) => hv,
                    _ => return ::core::result::Result::Err(unsupported_json(api_key, version, api_key.response_name())),
                };
                let header = <super::#rsm::ResponseHeader as #j::JsonForm>::from_json(h, hv)?;
                let body = Response::from_json(api_key, version, b)?;
                ::core::result::Result::Ok(ResponseFrame { header, body })
            }
        }
    )
}
