//! The wire layout of one version of a spec: what decides the bytes of that version.
//!
//! Built from the validated IR ([`crate::ir::Spec`]) with the same rules as the Rust emitter
//! (`rust::plan`): a field is written outside the tagged section in
//! [`Field::untagged_versions`], it is nullable where `nullableVersions` says (for types that can
//! be null), and a string, bytes or array is compact in the message's flexible versions, or in
//! a string or bytes field's own `flexibleVersions` override.

use crate::diagnostics::Span;
use crate::ir::{Field, MessageKind, Spec, Type};
use std::collections::BTreeMap;

/// Structs nest at most this deep (a guard: validated specs have no struct cycles).
const MAX_DEPTH: usize = 64;

/// One field as it is written at one version.
#[derive(Debug, Clone)]
pub struct FieldAt<'a> {
    /// The spec field.
    pub field: &'a Field,
    /// The type with struct names erased to [`Shape`]: what the bytes depend on.
    pub shape: Shape,
    /// Nullable at this version (a struct gains a one-byte marker; strings, bytes and arrays a
    /// length of -1).
    pub nullable: bool,
    /// Compact (unsigned varint lengths) at this version, for strings, bytes, records and arrays.
    pub compact: bool,
    /// The struct's layout at this version, for a struct or an array of structs.
    pub nested: Option<Layout<'a>>,
}

/// A type as far as the bytes go: primitives by name, arrays by element, structs by layout
/// (their names do not reach the wire).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A primitive type (never `Type::Array` or `Type::Struct`).
    Prim(Type),
    /// An array of this element.
    Array(Box<Shape>),
    /// A struct (its layout is [`FieldAt::nested`]).
    Struct,
}

impl Shape {
    fn of(ty: &Type) -> Shape {
        match ty {
            Type::Array(e) => Shape::Array(Box::new(Shape::of(e))),
            Type::Struct(_) => Shape::Struct,
            p => Shape::Prim(p.clone()),
        }
    }
}

/// A struct (or the message body) at one version.
#[derive(Debug, Clone, Default)]
pub struct Layout<'a> {
    /// The fields written outside the tagged section, in wire order.
    pub fields: Vec<FieldAt<'a>>,
    /// The tagged fields present at this version, by tag number.
    pub tagged: BTreeMap<u32, FieldAt<'a>>,
}

/// A whole message at one version.
#[derive(Debug, Clone)]
pub struct MessageAt<'a> {
    /// The version.
    pub version: i16,
    /// Whether the version is flexible (KIP-482: compact lengths, tagged fields, header v2/v1).
    pub flexible: bool,
    /// The header version (requests: 2 flexible, 1 otherwise; responses: 1 flexible, 0
    /// otherwise; `headerVersions` wins), `None` for other spec types.
    pub header_version: Option<i16>,
    /// The body.
    pub body: Layout<'a>,
}

/// The layout of `spec` at `version` (which should be one of its valid versions).
pub fn message_at(spec: &Spec, version: i16) -> MessageAt<'_> {
    let flexible = spec.flexible.contains(version);
    MessageAt {
        version,
        flexible,
        header_version: header_version(spec, version),
        body: layout(spec, &spec.fields, version, 0),
    }
}

/// The header version of `spec` at `version` (see [`MessageAt::header_version`]).
pub fn header_version(spec: &Spec, version: i16) -> Option<i16> {
    if let Some(h) = spec.header_version_override(version) {
        return Some(h);
    }
    let flexible = spec.flexible.contains(version);
    match spec.kind {
        MessageKind::Request => Some(if flexible { 2 } else { 1 }),
        MessageKind::Response => Some(if flexible { 1 } else { 0 }),
        _ => None,
    }
}

/// Whether `f` is compact at `version` in `spec` (its own override for strings and bytes).
pub fn compact_at(spec: &Spec, f: &Field, version: i16) -> bool {
    match (&f.ty, f.flexible_override) {
        (Type::String | Type::Bytes, Some(o)) => o.contains(version),
        _ => spec.flexible.contains(version),
    }
}

/// Whether `f` is written in the tagged section at `version`.
pub fn tagged_at(spec: &Spec, f: &Field, version: i16) -> Option<u32> {
    match &f.tag {
        Some((tag, tv))
            if tv.contains(version)
                && f.versions.contains(version)
                && spec.flexible.contains(version) =>
        {
            Some(*tag)
        }
        _ => None,
    }
}

fn layout<'a>(spec: &'a Spec, fields: &'a [Field], version: i16, depth: usize) -> Layout<'a> {
    let mut out = Layout::default();
    for f in fields {
        let untagged = f.untagged_versions().contains(version);
        let tag = tagged_at(spec, f, version);
        if !untagged && tag.is_none() {
            continue;
        }
        let nested = match f.ty.struct_name().and_then(|n| spec.find_struct(n)) {
            Some(s) if depth < MAX_DEPTH => Some(layout(spec, &s.fields, version, depth + 1)),
            _ => None,
        };
        let at = FieldAt {
            field: f,
            shape: Shape::of(&f.ty),
            nullable: f.ty.can_be_nullable() && f.nullable.contains(version),
            compact: compact_at(spec, f, version),
            nested,
        };
        match tag {
            Some(t) if !untagged => {
                out.tagged.insert(t, at);
            }
            _ => out.fields.push(at),
        }
    }
    out
}

/// A field's span for a finding: the value of `key` if given, else its `name`, else the object.
pub fn field_span(f: &Field, key: &str) -> Span {
    f.spans
        .get(key)
        .or_else(|| f.spans.get("name"))
        .unwrap_or(f.span)
}
