//! Emits borrowed, allocation-free views (`…Ref<'a>`) of each message and struct, over the
//! runtime's `wire::view`.
//!
//! A view validates its bytes once when made (the same checks as owned decoding, no allocation)
//! and records where each field starts; accessors then read in place and never fail. A field the
//! version lacks, or a tagged field that was not sent, reads as its default.

use super::plan::{
    default_parts, field_doc, fixed_type, with_flexible, Ctx, FieldPlan, Group, StructPlan,
};
use super::tokens::{cfg_feature, doc_lines, param, uses_ident, with_error_path, Cond, W};
use crate::ir::{DefaultValue, Field, Type};
use crate::names::{field_ident, type_ident};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The view type of a struct: `FooRef`.
fn view_ident(name: &str) -> proc_macro2::Ident {
    format_ident!(
        "{}Ref",
        type_ident(name).to_string().trim_start_matches("r#")
    )
}

/// Methods every view has; a field accessor with one of these names gets a `_field` suffix.
const VIEW_METHODS: &[&str] = &[
    "parse",
    "parse_prefix",
    "absent",
    "parsed_version",
    "encoded",
    "to_owned",
    "unknown_tagged_fields",
];

/// The accessor of a field: its owned field's name, unless a view method has it.
fn accessor_ident(f: &Field) -> proc_macro2::Ident {
    let id = field_ident(&f.name);
    let plain = id.to_string();
    if VIEW_METHODS.contains(&plain.trim_start_matches("r#")) {
        format_ident!("{}_field", plain.trim_start_matches("r#"))
    } else {
        id
    }
}

/// The element type of an array view.
fn element_type(ty: &Type) -> TokenStream {
    match ty {
        Type::String => quote!(&'a str),
        Type::Bytes | Type::Records => quote!(&'a [u8]),
        Type::Struct(n) => {
            let v = view_ident(n);
            quote!(#v<'a>)
        }
        Type::Array(_) => quote!(()),
        fixed => fixed_type(fixed).unwrap_or_default(),
    }
}

/// The accessor's return type (not wrapped in `Option`).
fn value_type(ty: &Type) -> TokenStream {
    let w = W();
    match ty {
        Type::Array(e) => {
            let e = element_type(e);
            quote!(#w::view::ArrayRef<'a, #e>)
        }
        other => element_type(other),
    }
}

/// Code validating one value of the field at cursor `c`.
fn check_value(f: &Field, compact: TokenStream, nullable_cond: &Cond, tagged: bool) -> TokenStream {
    let nullable = nullable_cond.nullable();
    let w = W();
    match &f.ty {
        t if t.is_fixed() => {
            let n = Literal::usize_unsuffixed(t.fixed_size().unwrap_or(0));
            quote!(c.skip(#n))
        }
        Type::String => quote!(c.check_string(#compact, #nullable)),
        Type::Bytes | Type::Records => quote!(c.check_bytes(#compact, #nullable)),
        Type::Array(e) => {
            let e = element_type(e);
            quote!(#w::view::check_array::<#e>(c, version, #compact, #nullable))
        }
        Type::Struct(n) => {
            let v = view_ident(n);
            let parse = quote!(<#v<'a> as #w::view::View<'a>>::check_at(c, version));
            if !f.is_optional() {
                return parse;
            }
            let present = if tagged {
                quote!(c.tagged_struct_present())
            } else {
                quote!(c.struct_present())
            };
            let with_marker =
                quote!(if #present? { #parse } else { ::core::result::Result::Ok(()) });
            nullable_cond.select(with_marker, parse)
        }
        _ => quote!(::core::result::Result::Ok(())),
    }
}

/// Code giving the position after the field's value at `pos` in `buf` (validated before).
fn skip_value(f: &Field, compact: TokenStream, nullable_cond: &Cond) -> TokenStream {
    let w = W();
    match &f.ty {
        t if t.is_fixed() => {
            let n = Literal::usize_unsuffixed(t.fixed_size().unwrap_or(0));
            quote!(pos + #n)
        }
        Type::String => quote!(#w::view::skip_string(buf, pos, #compact)),
        Type::Bytes | Type::Records => quote!(#w::view::skip_bytes(buf, pos, #compact)),
        Type::Array(e) => {
            let e = element_type(e);
            quote!(#w::view::skip_array::<#e>(buf, pos, version, #compact))
        }
        Type::Struct(n) => {
            let v = view_ident(n);
            let skip = quote!(<#v<'a> as #w::view::View<'a>>::skip_at(buf, pos, version));
            if !f.is_optional() {
                return skip;
            }
            // The marker: an int8 here, a uvarint 1/0 in a tagged payload; both one byte when
            // present, and null is a single byte too.
            let marked = quote!(match #w::view::struct_marker(buf, pos) {
                ::core::option::Option::Some(pos) => <#v<'a> as #w::view::View<'a>>::skip_at(buf, pos, version),
                ::core::option::Option::None => pos + 1,
            });
            nullable_cond.select(marked, skip)
        }
        _ => quote!(pos),
    }
}

/// The accessor body: reads the field at offset `o` (not `ABSENT`).
fn read_at(f: &Field, compact: TokenStream, nullable: &Cond, tagged: TokenStream) -> TokenStream {
    let w = W();
    let opt = f.is_optional();
    match &f.ty {
        t if t.is_fixed() => quote!(#w::view::fixed(self.buf, o)),
        Type::String if opt => quote!(#w::view::str_at(self.buf, o, #compact)),
        Type::String => quote!(#w::view::str_at(self.buf, o, #compact).unwrap_or_default()),
        Type::Bytes | Type::Records if opt => quote!(#w::view::bytes_at(self.buf, o, #compact)),
        Type::Bytes | Type::Records => {
            quote!(#w::view::bytes_at(self.buf, o, #compact).unwrap_or_default())
        }
        Type::Array(_) if opt => {
            quote!(#w::view::ArrayRef::at(self.buf, o, self.version, #compact))
        }
        Type::Array(_) => {
            quote!(#w::view::ArrayRef::at(self.buf, o, self.version, #compact).unwrap_or_else(#w::view::ArrayRef::empty))
        }
        Type::Struct(n) => {
            let v = view_ident(n);
            if opt {
                nullable.select(
                    quote!(#w::view::nullable_struct_at::<#v<'a>>(self.buf, o, self.version, #tagged)),
                    quote!(#w::view::struct_at::<#v<'a>>(self.buf, o, self.version)),
                )
            } else {
                quote!(#w::view::struct_at::<#v<'a>>(self.buf, o, self.version).unwrap_or(#v::absent(self.version)))
            }
        }
        _ => quote!(()),
    }
}

/// Converts a view value `v` of spec type `ty` to its owned form.
fn to_owned_value(ty: &Type, v: TokenStream) -> TokenStream {
    let w = W();
    match ty {
        Type::String => quote!(#w::KStr::from(::std::string::String::from(#v))),
        Type::Bytes | Type::Records => quote!(#w::Bytes::copy_from_slice(#v)),
        Type::Array(e) if e.is_fixed() => quote!(#v.iter().collect()),
        Type::Array(e) => {
            let inner = to_owned_value(e, quote!(x));
            quote!(#v.iter().map(|x| #inner).collect())
        }
        Type::Struct(_) => quote!(#v.to_owned()),
        _ => v,
    }
}

/// The field's default as the accessor's type.
fn default_value(f: &Field) -> TokenStream {
    let w = W();
    let (inner, null) = default_parts(f);
    let inner = match (&f.ty, &f.default) {
        (Type::String, DefaultValue::Str(s)) => quote!(#s),
        (Type::String, _) => quote!(""),
        (Type::Bytes | Type::Records, _) => quote!(&[]),
        (Type::Array(_), _) => quote!(#w::view::ArrayRef::empty()),
        (Type::Struct(n), _) => {
            let v = view_ident(n);
            quote!(#v::absent(self.version))
        }
        _ => inner,
    };
    if !f.is_optional() {
        inner
    } else if null {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(#inner))
    }
}

/// The view of one struct: its type, inherent methods and `View` impl.
pub(crate) fn emit(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let owned = &p.ty;
    let view = view_ident(&p.name);
    let n = Literal::usize_unsuffixed(p.fields.len());
    let (offs_field, offs_absent) = if p.fields.is_empty() {
        (quote!(), quote!())
    } else {
        (
            quote!(offs: [u32; #n],),
            quote!(offs: [#w::view::ABSENT; #n],),
        )
    };
    let (tags_field, tags_absent) = if cx.has_flexible() {
        (quote!(tags: u32,), quote!(tags: #w::view::ABSENT,))
    } else {
        (quote!(), quote!())
    };
    let doc = doc_lines(&format!(
        "A borrowed view of [`{}`]: validated once by `parse`, then read in place without allocating.",
        p.name
    ));
    let top_api = if p.top { top_api(cx, p) } else { quote!() };
    let accessors = p.fields.iter().map(accessor);
    let (unknown_api, owned_unknown) = unknown_tags(cx, p);
    let owned_fields = p.fields.iter().map(owned_field);
    let view_impl = view_impl(cx, p);
    let cfg = cfg_feature(cx.opts.views_cfg_feature, "view");
    quote!(
        #(#doc)*
        #cfg
        #[derive(Debug, Clone, Copy)]
        pub struct #view<'a> {
            buf: &'a [u8],
            version: i16,
            #offs_field
            #tags_field
        }

        #cfg
        impl<'a> #view<'a> {
            #top_api

            /// A view in which every field reads as its default (a struct the version lacks).
            pub fn absent(version: i16) -> Self {
                #view { buf: &[], version, #offs_absent #tags_absent }
            }

            /// The version the view was parsed at.
            pub fn parsed_version(&self) -> i16 {
                self.version
            }

            /// The encoded bytes of this value.
            pub fn encoded(&self) -> &'a [u8] {
                self.buf
            }

            #(#accessors)*

            #unknown_api

            /// Copies the viewed value into an owned [`#owned`] (strings, bytes and records are copied).
            pub fn to_owned(&self) -> #owned {
                #owned { #(#owned_fields,)* #owned_unknown }
            }
        }

        #cfg
        #view_impl
    )
}

/// The `View` impl: `check_at` validates, `skip_at` and `locate_at` walk bytes validated before.
fn view_impl(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let view = view_ident(&p.name);
    let check_body = check_body(cx, p, false);
    let (check_c, check_version) = (param(&check_body, "c"), param(&check_body, "version"));
    let skip_body = walk_body(cx, p, false);
    let locate_body = walk_body(cx, p, true);
    let (skip_buf, skip_version) = (param(&skip_body, "buf"), param(&skip_body, "version"));
    let locate_buf = param(&locate_body, "buf");
    quote!(
        impl<'a> #w::view::View<'a> for #view<'a> {
            fn check_at(#check_c: &mut #w::view::Cursor<'a>, #check_version: i16) -> ::core::result::Result<(), #w::DecodeError> {
                #check_body
            }
            fn skip_at(#skip_buf: &'a [u8], pos: usize, #skip_version: i16) -> usize {
                #skip_body
            }
            fn locate_at(#locate_buf: &'a [u8], pos: usize, version: i16) -> (Self, usize) {
                #locate_body
            }
        }
    )
}

/// What `check_locate` and `locate_at` record: field offsets, and where the tag section is.
/// Returns the declarations and the initializers of `offs` and `tags`.
fn record_decls(cx: &Ctx, p: &StructPlan) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let w = W();
    let n = Literal::usize_unsuffixed(p.fields.len());
    let offs_decl = if p.fields.is_empty() {
        quote!()
    } else {
        quote!(let mut offs = [#w::view::ABSENT; #n];)
    };
    let offs_init = if p.fields.is_empty() {
        quote!()
    } else {
        quote!(offs,)
    };
    let tags_decl = match (cx.has_flexible(), &cx.flexible) {
        (false, _) => quote!(),
        (_, Cond::Never) => quote!(let tags = #w::view::ABSENT;),
        (true, Cond::Always) => quote!(),
        (true, _) => quote!(let mut tags = #w::view::ABSENT;),
    };
    let tags_init = if cx.has_flexible() {
        quote!(tags,)
    } else {
        quote!()
    };
    (offs_decl, offs_init, tags_decl, tags_init)
}

/// Sets the tag section's offset: declared there when every version is flexible.
fn tags_set(cx: &Ctx) -> TokenStream {
    if cx.flexible.is_always() {
        quote!(let tags =)
    } else {
        quote!(tags =)
    }
}

/// The body of `check_at` (validate, as owned decoding does), or with `record` of the top
/// level's `check_locate`, which also records the offsets on the way (one pass to parse).
fn check_body(cx: &Ctx, p: &StructPlan, record: bool) -> TokenStream {
    let view = view_ident(&p.name);
    let mut checks = Vec::new();
    for g in &p.groups {
        match g {
            Group::Fixed { fields, size } => {
                checks.extend(check_fixed_run(p, fields, *size, record))
            }
            Group::One(k) => {
                let fp = &p.fields[*k];
                let (k, name) = (Literal::usize_unsuffixed(fp.index), &fp.name);
                let check = check_value(fp.field, fp.compact.encoding(), &fp.nullable, false);
                let rec = if record {
                    quote!(offs[#k] = (c.pos() - start) as u32;)
                } else {
                    quote!()
                };
                checks.push(
                    fp.untagged
                        .select(quote!(#rec #check.at_field(#name)?;), quote!()),
                );
            }
        }
    }
    let check_tags = if cx.has_flexible() {
        check_tags(cx, p, record)
    } else {
        quote!()
    };
    if !record {
        return with_error_path(with_flexible(
            cx,
            quote!(#(#checks)* #check_tags ::core::result::Result::Ok(())),
        ));
    }
    let (offs_decl, offs_init, tags_decl, tags_init) = record_decls(cx, p);
    with_error_path(with_flexible(
        cx,
        quote!(
            let start = c.pos();
            #offs_decl
            #tags_decl
            #(#checks)*
            #check_tags
            ::core::result::Result::Ok(#view { buf: c.buf().get(start..c.pos()).unwrap_or_default(), version, #offs_init #tags_init })
        ),
    ))
}

/// A run of fixed-size fields present in every version, checked with one bounds check; only
/// when it fails are they checked one by one, so that the error names the field.
fn check_fixed_run(
    p: &StructPlan,
    fields: &[usize],
    size: usize,
    record: bool,
) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut steps = Vec::new();
    let mut at = 0usize;
    for k in fields {
        let fp = &p.fields[*k];
        if record {
            let kl = Literal::usize_unsuffixed(fp.index);
            let plus = if at == 0 {
                quote!()
            } else {
                let n = Literal::usize_unsuffixed(at);
                quote!(+ #n)
            };
            out.push(quote!(offs[#kl] = (c.pos() - start #plus) as u32;));
        }
        let name = &fp.name;
        let check = check_value(fp.field, fp.compact.encoding(), &fp.nullable, false);
        steps.push(
            fp.untagged
                .select(quote!(#check.at_field(#name)?;), quote!()),
        );
        at += fp.field.ty.fixed_size().unwrap_or(0);
    }
    if steps.len() > 1 {
        let n = Literal::usize_unsuffixed(size);
        out.push(quote!(if c.remaining() >= #n { c.skip(#n)?; } else { #(#steps)* }));
    } else {
        out.extend(steps);
    }
    out
}

/// The tagged section of `check_at`/`check_locate`: each known tag checked (and its offset
/// recorded), the unknown ones skipped.
fn check_tags(cx: &Ctx, p: &StructPlan, record: bool) -> TokenStream {
    let w = W();
    let arms: Vec<TokenStream> = p
        .tagged
        .iter()
        .filter_map(|k| {
            let fp = &p.fields[*k];
            let t = fp.tag.as_ref()?;
            let (k, name) = (Literal::usize_unsuffixed(fp.index), &fp.name);
            let tag_l = Literal::u32_unsuffixed(t.tag);
            let check = check_value(fp.field, Cond::Always.encoding(), &t.nullable, true);
            let rec = if record { quote!(offs[#k] = (at - start) as u32;) } else { quote!() };
            let ok = quote!({
                #rec
                let c = &mut p;
                #check.at_field(#name)?;
            });
            let bad = quote!({
                return ::core::result::Result::Err(p.error(#w::DecodeErrorKind::TagNotValidForVersion { tag, version }).field(#name));
            });
            let body = t.cond.select(ok, bad);
            Some(quote!(if tag == #tag_l { #body }))
        })
        .collect();
    let at = if record { quote!(at) } else { quote!(_) };
    let sec = if arms.is_empty() {
        quote!(
            let n = c.uvarint()?;
            for _ in 0..n {
                c.tagged_field()?;
            }
        )
    } else {
        quote!(
            let n = c.uvarint()?;
            for _ in 0..n {
                let (tag, #at, mut p) = c.tagged_field()?;
                #(#arms)*
            }
        )
    };
    let tags_set = tags_set(cx);
    let set = if record {
        quote!(#tags_set (c.pos() - start) as u32;)
    } else {
        quote!()
    };
    cx.flex_var.select(quote!(#set #sec), quote!())
}

/// The body of `skip_at`, or with `record` of `locate_at`: walks bytes validated before (no
/// checks, no errors), recording the offsets with `record`.
fn walk_body(cx: &Ctx, p: &StructPlan, record: bool) -> TokenStream {
    let view = view_ident(&p.name);
    let steps: Vec<TokenStream> = p
        .fields
        .iter()
        .map(|fp| {
            let k = Literal::usize_unsuffixed(fp.index);
            let skip = skip_value(fp.field, fp.compact.encoding(), &fp.nullable);
            let rec = if record {
                quote!(offs[#k] = (pos - start) as u32;)
            } else {
                quote!()
            };
            let step = match fp.field.ty.fixed_size() {
                Some(n) => {
                    let n = Literal::usize_unsuffixed(n);
                    quote!(pos += #n;)
                }
                None => quote!(pos = #skip;),
            };
            fp.untagged.select(quote!(#rec #step), quote!())
        })
        .collect();
    let tags = walk_tags(cx, p, record);
    let (offs_decl, offs_init, tags_decl, tags_init) = if record {
        record_decls(cx, p)
    } else {
        (quote!(), quote!(), quote!(), quote!())
    };
    let start = if record {
        quote!(let start = pos;)
    } else {
        quote!()
    };
    let end = if record {
        quote!((#view { buf: buf.get(start..pos).unwrap_or_default(), version, #offs_init #tags_init }, pos))
    } else {
        quote!(pos)
    };
    let mut_pos = if steps.iter().all(|t| t.is_empty()) && tags.is_empty() {
        quote!()
    } else {
        quote!(let mut pos = pos;)
    };
    with_flexible(
        cx,
        quote!(#start #mut_pos #offs_decl #tags_decl #(#steps)* #tags #end),
    )
}

/// The tagged section of `skip_at`/`locate_at`.
fn walk_tags(cx: &Ctx, p: &StructPlan, record: bool) -> TokenStream {
    let w = W();
    if !cx.has_flexible() {
        return quote!();
    }
    if !record {
        return cx
            .flex_var
            .select(quote!(pos = #w::view::skip_tags(buf, pos);), quote!());
    }
    let arms: Vec<TokenStream> = p
        .tagged
        .iter()
        .filter_map(|k| {
            let fp = &p.fields[*k];
            let t = fp.tag.as_ref()?;
            let k = Literal::usize_unsuffixed(fp.index);
            let tag_l = Literal::u32_unsuffixed(t.tag);
            let cond = t.cond.and(quote!(tag == #tag_l));
            Some(quote!(if #cond { offs[#k] = (at - start) as u32; }))
        })
        .collect();
    let lp = if arms.is_empty() {
        quote!(pos = #w::view::skip_tags(buf, pos);)
    } else {
        quote!(
            let (mut n, mut p) = #w::view::tag_count(buf, pos);
            while n > 0 {
                n -= 1;
                let (tag, at, next) = #w::view::tag_header(buf, p);
                #(#arms)*
                p = next;
            }
            pos = p;
        )
    };
    let tags_set = tags_set(cx);
    cx.flex_var
        .select(quote!(#tags_set (pos - start) as u32; #lp), quote!())
}

/// The accessor of one field: reads at its recorded offset, or its default when absent.
fn accessor(fp: &FieldPlan) -> TokenStream {
    let w = W();
    let f = fp.field;
    let k = Literal::usize_unsuffixed(fp.index);
    let id = accessor_ident(f);
    let docs = field_doc(f);
    let t = value_type(&f.ty);
    let t = if f.is_optional() {
        quote!(::core::option::Option<#t>)
    } else {
        t
    };
    let def = default_value(f);
    // Tagged versions lie within the compact ones (Kafka's generator requires tagged versions
    // to be flexible), so one condition serves both.
    let tagged_now = match fp.tag.as_ref().map(|t| &t.read_cond) {
        Some(Cond::Always) => quote!(#w::view::Section::Tagged),
        Some(Cond::Expr(e)) => quote!(#w::view::Section::tagged_when(#e)),
        Some(Cond::Never) | None => quote!(#w::view::Section::Body),
    };
    let read = read_at(f, fp.compact_read.encoding(), &fp.nullable_read, tagged_now);
    let body = quote!(
        match self.offs[#k] {
            #w::view::ABSENT => #def,
            o => {
                let o = o as usize;
                #read
            }
        }
    );
    let body = if uses_ident(&body, "version") {
        quote!(let version = self.version; #body)
    } else {
        body
    };
    quote!(
        #(#docs)*
        #[inline]
        pub fn #id(&self) -> #t { #body }
    )
}

/// One field of `to_owned`: the accessor's value converted to the owned type.
fn owned_field(fp: &FieldPlan) -> TokenStream {
    let w = W();
    let f = fp.field;
    let id = &fp.ident;
    let acc = accessor_ident(f);
    let conv = to_owned_value(&f.ty, quote!(v));
    let e = match (&f.ty, f.is_optional()) {
        (t, _) if t.is_fixed() => quote!(self.#acc()),
        (Type::Bytes | Type::Records, true) => quote!(self.#acc().map(#w::Bytes::copy_from_slice)),
        (_, true) => quote!(self.#acc().map(|v| #conv)),
        (_, false) => quote!({ let v = self.#acc(); #conv }),
    };
    quote!(#id: #e)
}

/// The `unknown_tagged_fields` accessor and its field of `to_owned`, for flexible messages.
fn unknown_tags(cx: &Ctx, p: &StructPlan) -> (TokenStream, TokenStream) {
    let w = W();
    if !cx.has_flexible() {
        return (quote!(), quote!());
    }
    let known = p
        .tagged
        .iter()
        .filter_map(|k| p.fields[*k].tag.as_ref())
        .map(|t| Literal::u32_unsuffixed(t.tag));
    (
        quote!(
            /// The tagged fields this spec does not know, as `(tag, payload)`, in wire order.
            pub fn unknown_tagged_fields(&self) -> #w::view::UnknownTags<'a> {
                #w::view::UnknownTags::at(self.buf, self.tags, &[#(#known),*])
            }
        ),
        quote!(unknown_tagged_fields: {
            let mut u: ::std::vec::Vec<#w::RawTaggedField> = self
                .unknown_tagged_fields()
                .map(|(tag, data)| #w::RawTaggedField { tag, data: #w::Bytes::copy_from_slice(data) })
                .collect();
            #w::finish_unknown_tags(&mut u);
            u.into()
        }),
    )
}

/// `parse`, `parse_prefix` and `check_locate` of the message's view.
fn top_api(cx: &Ctx, p: &StructPlan) -> TokenStream {
    let w = W();
    let (owned, owned_name) = (&p.ty, &p.name);
    let check_locate_body = check_body(cx, p, true);
    quote!(
        /// Validates `bytes` as one whole message at `version` and returns its view.
        ///
        /// # Errors
        /// The errors owned decoding gives for the same bytes (`UnsupportedVersion` outside
        /// the valid versions, `TrailingBytes` when bytes are left over), with the field path.
        pub fn parse(bytes: &'a [u8], version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
            let mut c = #w::view::Cursor::new(bytes, 0);
            let v = Self::parse_prefix(&mut c, version)?;
            if c.remaining() > 0 {
                return ::core::result::Result::Err(c.error(#w::DecodeErrorKind::TrailingBytes { offset: c.pos(), len: c.remaining() }).in_type(#owned_name));
            }
            ::core::result::Result::Ok(v)
        }

        /// Validates one message at the cursor (bytes after it are left) and returns its view.
        ///
        /// # Errors
        /// As [`Self::parse`], without the trailing-bytes check.
        pub fn parse_prefix(c: &mut #w::view::Cursor<'a>, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
            #w::check_view_version(c, version, <#owned as #w::Message>::VALID_VERSIONS, #owned_name)?;
            Self::check_locate(c, version).map_err(|e| e.in_type(#owned_name))
        }

        /// Validates one value at the cursor, as `View::check_at` does, and records where its
        /// fields are on the way (one pass).
        fn check_locate(c: &mut #w::view::Cursor<'a>, version: i16) -> ::core::result::Result<Self, #w::DecodeError> {
            #check_locate_body
        }
    )
}
