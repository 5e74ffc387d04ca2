//! The intermediate representation: one validated [`Spec`] per spec file.
//!
//! Lowering ([`crate::lower`]) builds it from the syntax tree, resolving Kafka's coercions
//! (string tags, numeric defaults, single values for lists) and struct references, so that the
//! emitter never looks at JSON again.

use crate::diagnostics::Span;
use std::fmt;

/// An inclusive version range (Kafka's `Versions`): `none`, `N`, `N+`, `N-M`.
/// `lowest > highest` is the empty range; `highest == i16::MAX` is open-ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Versions {
    /// Lowest version.
    pub lowest: i16,
    /// Highest version.
    pub highest: i16,
}

impl Versions {
    /// The empty range.
    pub const NONE: Versions = Versions { lowest: 0, highest: -1 };
    /// `0+`.
    pub const ALL: Versions = Versions { lowest: 0, highest: i16::MAX };

    /// `lowest..=highest`.
    pub const fn new(lowest: i16, highest: i16) -> Self {
        Versions { lowest, highest }
    }

    /// Parses Kafka's grammar (surrounding whitespace trimmed; `A-B` with A > B is empty).
    ///
    /// # Errors
    /// A message for text that is not a range (inner spaces, negative or overflowing numbers).
    pub fn parse(text: &str) -> Result<Versions, String> {
        let t = text.trim();
        if t == "none" {
            return Ok(Versions::NONE);
        }
        let num = |s: &str| -> Result<i16, String> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("invalid version range `{text}`"));
            }
            s.parse::<i16>().map_err(|_| format!("version `{s}` is larger than 32767"))
        };
        if let Some(lo) = t.strip_suffix('+') {
            return Ok(Versions::new(num(lo)?, i16::MAX));
        }
        if let Some((a, b)) = t.split_once('-') {
            let (a, b) = (num(a)?, num(b)?);
            return Ok(if a > b { Versions::NONE } else { Versions::new(a, b) });
        }
        let v = num(t)?;
        Ok(Versions::new(v, v))
    }

    /// Whether no version is inside.
    pub fn is_empty(&self) -> bool {
        self.lowest > self.highest
    }
    /// Whether the range ends at 32767 (`N+`); `none` counts as open-ended, as in Kafka.
    pub fn is_open_ended(&self) -> bool {
        self.is_empty() || self.highest == i16::MAX
    }
    /// Whether `v` is inside.
    pub fn contains(&self, v: i16) -> bool {
        v >= self.lowest && v <= self.highest
    }
    /// The versions in both.
    pub fn intersect(&self, o: &Versions) -> Versions {
        let r = Versions::new(self.lowest.max(o.lowest), self.highest.min(o.highest));
        if r.is_empty() {
            Versions::NONE
        } else {
            r
        }
    }
    /// Whether every version of `self` is in `o` (the empty range is a subset of everything).
    pub fn is_subset_of(&self, o: &Versions) -> bool {
        self.is_empty() || (o.lowest <= self.lowest && self.highest <= o.highest)
    }
    /// Every version, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = i16> {
        let (lo, hi) = (self.lowest, self.highest);
        (lo as i32..=hi as i32).map(|v| v as i16)
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.highest == i16::MAX {
            write!(f, "{}+", self.lowest)
        } else if self.lowest == self.highest {
            write!(f, "{}", self.lowest)
        } else {
            write!(f, "{}-{}", self.lowest, self.highest)
        }
    }
}

/// A spec's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// `request`
    Request,
    /// `response`
    Response,
    /// `header`
    Header,
    /// `data`
    Data,
    /// `metadata`
    Metadata,
    /// `coordinator-key` (Kafka 4.x): the key of a coordinator record; its `apiKey` is the
    /// record type, shared with the `coordinator-value` of the same record.
    CoordinatorKey,
    /// `coordinator-value` (Kafka 4.x): the value of a coordinator record, paired with the
    /// `coordinator-key` of the same `apiKey`.
    CoordinatorValue,
}

impl MessageKind {
    /// The spec keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::Request => "request",
            MessageKind::Response => "response",
            MessageKind::Header => "header",
            MessageKind::Data => "data",
            MessageKind::Metadata => "metadata",
            MessageKind::CoordinatorKey => "coordinator-key",
            MessageKind::CoordinatorValue => "coordinator-value",
        }
    }
    /// Every kind, in the order messages name them.
    pub const ALL: [MessageKind; 7] = [
        MessageKind::Request,
        MessageKind::Response,
        MessageKind::Header,
        MessageKind::Data,
        MessageKind::Metadata,
        MessageKind::CoordinatorKey,
        MessageKind::CoordinatorValue,
    ];
    /// The kind a spec keyword names (`"coordinator-key"`), if any.
    pub fn from_keyword(word: &str) -> Option<MessageKind> {
        MessageKind::ALL.into_iter().find(|k| k.as_str() == word)
    }
    /// Whether this is a `coordinator-key` or a `coordinator-value`.
    pub fn is_coordinator_record(self) -> bool {
        matches!(self, MessageKind::CoordinatorKey | MessageKind::CoordinatorValue)
    }
}

/// A spec's `apiKey`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiKeyValue {
    /// No `apiKey`.
    Absent,
    /// The bare word `TBD`: a draft whose key is not assigned yet.
    Tbd,
    /// An assigned key.
    Assigned(i16),
}

impl ApiKeyValue {
    /// The assigned key, if any.
    pub fn assigned(self) -> Option<i16> {
        match self {
            ApiKeyValue::Assigned(k) => Some(k),
            _ => None,
        }
    }
}

/// A field's type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `bool`
    Bool,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `uint16`
    Uint16,
    /// `int32`
    Int32,
    /// `uint32`
    Uint32,
    /// `int64`
    Int64,
    /// `float64`
    Float64,
    /// `string`
    String,
    /// `bytes`
    Bytes,
    /// `uuid`
    Uuid,
    /// `records`
    Records,
    /// `[]T`
    Array(Box<Type>),
    /// A struct, by name (common or inline).
    Struct(String),
}

impl Type {
    /// Parses a spec type string (trimmed). Lower-case unknown names are errors; names starting
    /// with an upper-case letter are struct references.
    ///
    /// # Errors
    /// Kafka's messages: "Can't parse type X", "No element type found", "Can't have an array of
    /// arrays".
    pub fn parse(text: &str) -> Result<Type, String> {
        let t = text.trim();
        if let Some(elem) = t.strip_prefix("[]") {
            if elem.is_empty() {
                return Err(format!("can't parse array type `{t}`: no element type found"));
            }
            if elem.starts_with("[]") {
                return Err(format!("can't have an array of arrays: `{t}`"));
            }
            return Type::parse(elem)
                .map(|e| Type::Array(Box::new(e)))
                .map_err(|_| format!("can't parse type `{t}`"));
        }
        Ok(match t {
            "bool" => Type::Bool,
            "int8" => Type::Int8,
            "int16" => Type::Int16,
            "uint16" => Type::Uint16,
            "int32" => Type::Int32,
            "uint32" => Type::Uint32,
            "int64" => Type::Int64,
            "float64" => Type::Float64,
            "string" => Type::String,
            "bytes" => Type::Bytes,
            "uuid" => Type::Uuid,
            "records" => Type::Records,
            _ if t.chars().next().is_some_and(|c| c.is_ascii_uppercase()) => Type::Struct(t.to_string()),
            _ => return Err(format!("can't parse type `{t}`")),
        })
    }
    /// Whether the type has a fixed wire size (bool, ints, float64, uuid).
    pub fn is_fixed(&self) -> bool {
        self.fixed_size().is_some()
    }
    /// Wire size of a fixed type, in bytes.
    pub fn fixed_size(&self) -> Option<usize> {
        Some(match self {
            Type::Bool | Type::Int8 => 1,
            Type::Int16 | Type::Uint16 => 2,
            Type::Int32 | Type::Uint32 => 4,
            Type::Int64 | Type::Float64 => 8,
            Type::Uuid => 16,
            _ => return None,
        })
    }
    /// Whether the type may be nullable (string, bytes, records, arrays, structs).
    pub fn can_be_nullable(&self) -> bool {
        matches!(self, Type::String | Type::Bytes | Type::Records | Type::Array(_) | Type::Struct(_))
    }
    /// The struct this type names, directly or as array element.
    pub fn struct_name(&self) -> Option<&str> {
        match self {
            Type::Struct(n) => Some(n),
            Type::Array(e) => e.struct_name(),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Array(e) => write!(f, "[]{e}"),
            Type::Struct(n) => f.write_str(n),
            other => f.write_str(match other {
                Type::Bool => "bool",
                Type::Int8 => "int8",
                Type::Int16 => "int16",
                Type::Uint16 => "uint16",
                Type::Int32 => "int32",
                Type::Uint32 => "uint32",
                Type::Int64 => "int64",
                Type::Float64 => "float64",
                Type::String => "string",
                Type::Bytes => "bytes",
                Type::Uuid => "uuid",
                Type::Records => "records",
                _ => unreachable!(),
            }),
        }
    }
}

/// A field's default, resolved against its type.
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultValue {
    /// The type's own default: false, 0, 0.0, "", empty bytes/array, zero UUID, empty struct;
    /// null for records.
    Implicit,
    /// `"null"` (only on fields nullable in all their versions).
    Null,
    /// A bool.
    Bool(bool),
    /// An integer (any integer type; range-checked against it).
    Int(i64),
    /// A float64.
    Float(f64),
    /// A string.
    Str(String),
    /// A uuid (decoded from URL-safe base64).
    Uuid([u8; 16]),
}

/// Where each key's value is in the source, for diagnostics (the last occurrence of a repeated
/// key, as Kafka keeps the last one).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeySpans(pub Vec<(String, Span)>);

impl KeySpans {
    /// The span of `key`'s value, if the key was given.
    pub fn get(&self, key: &str) -> Option<Span> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, s)| *s)
    }
    /// The span of `key`'s value, else `fallback`.
    pub fn or(&self, key: &str, fallback: Span) -> Span {
        self.get(key).unwrap_or(fallback)
    }
}

/// A field of a message or struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The spec name (`ErrorCode`).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// `versions` (or `taggedVersions` when `versions` is absent).
    pub versions: Versions,
    /// `nullableVersions`.
    pub nullable: Versions,
    /// `tag` and `taggedVersions`.
    pub tag: Option<(u32, Versions)>,
    /// `default`, resolved.
    pub default: DefaultValue,
    /// `ignorable`.
    pub ignorable: bool,
    /// `mapKey`.
    pub map_key: bool,
    /// `entityType` (`unknown` when absent).
    pub entity_type: String,
    /// `zeroCopy`.
    pub zero_copy: bool,
    /// Field `flexibleVersions` override (string and bytes only).
    pub flexible_override: Option<Versions>,
    /// `about`.
    pub about: String,
    /// The field object's span.
    pub span: Span,
    /// Spans of the field's keys' values.
    pub spans: KeySpans,
}

impl Field {
    /// Whether the field holds `None` in Rust (nullable in some version).
    pub fn is_optional(&self) -> bool {
        !self.nullable.is_empty() && self.ty.can_be_nullable()
    }
    /// The versions in which the field is written outside the tagged section.
    pub fn untagged_versions(&self) -> Versions {
        match &self.tag {
            None => self.versions,
            // Tagged versions are open-ended, so the untagged ones are those below them.
            Some((_, t)) if t.is_empty() => self.versions,
            Some((_, t)) => {
                if t.lowest <= self.versions.lowest {
                    Versions::NONE
                } else {
                    Versions::new(self.versions.lowest, (t.lowest - 1).min(self.versions.highest))
                }
            }
        }
    }
}

/// A struct: the top level of a message, a common struct or an inline struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Struct {
    /// Type name.
    pub name: String,
    /// Fields in wire order.
    pub fields: Vec<Field>,
    /// Versions in which some field refers to the struct (the message's for the top level).
    pub versions: Versions,
    /// Declared in `commonStructs`.
    pub common: bool,
    /// Where it was declared: the common struct's object, or the field object of an inline one.
    pub span: Span,
    /// The span of its name: the common struct's `name` value, or the inline field's `type`.
    pub name_span: Span,
}

/// One spec file, lowered.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The file name, e.g. `MetadataRequest.json`.
    pub file: String,
    /// `name`.
    pub name: String,
    /// `type`.
    pub kind: MessageKind,
    /// `apiKey`.
    pub api_key: ApiKeyValue,
    /// `validVersions`.
    pub valid: Versions,
    /// `flexibleVersions`.
    pub flexible: Versions,
    /// `deprecatedVersions`.
    pub deprecated: Versions,
    /// `listeners`.
    pub listeners: Vec<String>,
    /// `latestVersionUnstable`.
    pub latest_version_unstable: bool,
    /// `headerVersions`: (versions, header version), in source order.
    pub header_versions: Vec<(Versions, i16)>,
    /// The top-level fields.
    pub fields: Vec<Field>,
    /// Every common and inline struct of the file, in declaration order (depth first).
    pub structs: Vec<Struct>,
    /// Spans of the top-level keys' values.
    pub spans: KeySpans,
    /// The root object's span.
    pub span: Span,
}

impl Spec {
    /// The struct named `name`.
    pub fn find_struct(&self, name: &str) -> Option<&Struct> {
        self.structs.iter().find(|s| s.name == name)
    }
    /// The header version `headerVersions` assigns to `version`, if it covers it.
    pub fn header_version_override(&self, version: i16) -> Option<i16> {
        self.header_versions.iter().find(|(r, _)| r.contains(version)).map(|(_, h)| *h)
    }
    /// The top level as a struct.
    pub fn top(&self) -> Struct {
        Struct {
            name: self.name.clone(),
            fields: self.fields.clone(),
            versions: self.valid,
            common: false,
            span: self.span,
            name_span: self.spans.or("name", self.span),
        }
    }
}
