//! Kafka's JSON form of messages (feature `json`), as Kafka's generated `…JsonConverter` classes
//! write and read it (for example `org.apache.kafka.common.message.MetadataResponseDataJsonConverter`,
//! made by the `generator` module's `JsonConverterGenerator`), plus serde adapters.
//!
//! Generated messages and structs implement [`JsonForm`]: [`JsonForm::to_json`] at a version
//! gives a [`serde_json::Value`], [`JsonForm::from_json`] reads one back. With serde, wrap a
//! message in [`Versioned`] to serialize it, and use a [`VersionedSeed`] to deserialize one.
//!
//! ```
//! use kwire_protocol::generated::ConsumerGroupHeartbeatRequest;
//! use kwire_protocol::wire::json::{JsonForm, Versioned};
//!
//! let req = ConsumerGroupHeartbeatRequest { group_id: "orders".into(), member_epoch: 3, ..Default::default() };
//! let v = req.to_json(1).unwrap();
//! assert_eq!(v["groupId"], "orders");
//! assert_eq!(v["rebalanceTimeoutMs"], -1);
//! assert_eq!(ConsumerGroupHeartbeatRequest::from_json(&v, 1).unwrap(), req);
//! // The same through serde:
//! let text = serde_json::to_string(&Versioned(&req, 1)).unwrap();
//! assert!(text.starts_with(r#"{"groupId":"orders","memberId":"","memberEpoch":3,"#));
//! ```
//!
//! # Shape
//!
//! An object per message or struct; its keys are the spec's field names with the first letter
//! lower-cased (`GroupId` → `groupId`), in spec order.
//!
//! | spec type | written | accepted on read |
//! |---|---|---|
//! | bool | `true` / `false` | a JSON boolean only |
//! | int8, int16, uint16, int32, uint32, int64 | a number | an integer literal in the type's range (strings and `5.0` are refused) |
//! | float64 | a number with a fraction or exponent (`5.0`); NaN and ±infinity as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` | a floating-point literal (`5` is refused, as Kafka does), or one of those three strings |
//! | string | a string | a string |
//! | uuid | URL-safe base64 without padding, 22 characters (Kafka's `Uuid.toString`) | the same, padding optional |
//! | bytes | standard base64, padded | standard base64, padding optional |
//! | records | standard base64 of the record bytes (**not** Kafka's form, see below) | standard base64 |
//! | array / struct | a JSON array / object | the same |
//! | a null value of a nullable field | `null` | `null`, for a field nullable in any version |
//!
//! # Which fields
//!
//! Writing, as Kafka's converters and kwire's binary encoder do: fields the version lacks are
//! omitted, and writing fails with [`EncodeErrorKind::NonDefaultField`] when such a field holds a
//! non-default value and is not `ignorable`; tagged fields are written only when they differ from
//! their default; `null` where the version does not allow it fails with
//! [`EncodeErrorKind::NullNotAllowed`]. A top-level message checks the version
//! ([`EncodeErrorKind::UnsupportedVersion`]). So `to_json(v)` fails exactly when `encode(v)`
//! does, with the same error (field paths use the Rust field names there, as the encoder's do).
//!
//! Reading is as lenient as Kafka's: a missing field that the version has outside the tagged
//! section is an error ([`JsonErrorKind::MissingField`], Kafka's "unable to locate field");
//! missing tagged fields and fields the version lacks get their defaults; fields given for a
//! version that lacks them are still read (writing that value back at that version then fails);
//! unknown keys are ignored. A top-level message checks the version.
//!
//! # Where kwire differs from Kafka, on purpose
//!
//! * **Records** are written as the base64 of their bytes. Kafka writes an empty binary (or a
//!   `…SizeInBytes` count) and never the bytes, so its JSON cannot be turned back into the frame;
//!   kwire's can (`kwire encode` relies on it). Reading base64 is what Kafka does too.
//! * **Unknown tagged fields**, which have no place in Kafka's JSON, are written under the key
//!   `"_unknownTaggedFields"` as `[{"tag": N, "data": "<standard base64>"}, …]`, only when there
//!   are some, and read back from it (sorted by tag, stably, as the binary decoder keeps them), so
//!   that JSON keeps every byte of a frame. No spec field can have that key: field names start
//!   with a letter. Kafka ignores it, as it ignores every unknown key. Reading does not check the
//!   tags; writing does, as the binary encoder does (no known tag, none in a version that is not
//!   flexible).
//! * **int8** values from 128 to 256, which Kafka maps to `value - 128`, are refused as out of
//!   range: the mapping loses information and reads as a bug.
//! * **Non-finite float64** values are written as strings, as Jackson does by default
//!   (`QUOTE_NON_NUMERIC_NUMBERS`), and also read back (Kafka's reader refuses them), so every
//!   value round-trips (a NaN's payload bits aside).
//!
//! # Errors
//!
//! A [`JsonError`] names the path in the JSON, by JSON key (`ConsumerGroupHeartbeatRequest.
//! topicPartitions[0].topicId: expected a string, found an integer`).

use super::error::{write_path, EncodeError, EncodeErrorKind, PathSegment};
use super::prim::PrimArray;
use super::sink::Prim;
use super::types::{KStr, RawTaggedField, UnknownTaggedFields, Uuid, VersionRange};
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use bytes::Bytes;
use std::fmt;
use std::marker::PhantomData;

pub use serde_json;
pub use serde_json::{Map, Value};

/// The key under which unknown tagged fields are written (a kwire extension, see the module doc).
pub const UNKNOWN_TAGGED_FIELDS_KEY: &str = "_unknownTaggedFields";

/// Kafka's JSON form of a value at a version. Generated for every message and struct; also
/// implemented by the value types they hold (so that generated code is one call per field).
pub trait JsonForm: Sized {
    /// The JSON form of `self` at `version`.
    ///
    /// # Errors
    /// As the binary encoder: `UnsupportedVersion` (top-level messages), `NonDefaultField`,
    /// `NullNotAllowed`, and the unknown-tagged-field errors.
    fn to_json(&self, version: i16) -> Result<Value, EncodeError>;

    /// Reads a value at `version` from its JSON form.
    ///
    /// # Errors
    /// A [`JsonError`] with the JSON path: wrong JSON type, number out of range, missing
    /// mandatory field, bad base64, or (top-level messages) an unsupported version.
    fn from_json(value: &Value, version: i16) -> Result<Self, JsonError>;
}

/// Reads a value of `T` at `version` from JSON text.
///
/// # Errors
/// [`JsonErrorKind::Syntax`] when the text is not JSON; otherwise as [`JsonForm::from_json`].
pub fn from_str<T: JsonForm>(text: &str, version: i16) -> Result<T, JsonError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| JsonError::new(JsonErrorKind::Syntax(e.to_string())))?;
    T::from_json(&v, version)
}

// ------------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------------

/// What went wrong while reading the JSON form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// A mandatory field is missing (Kafka: "unable to locate field").
    #[error("unable to locate field '{key}'{}", match .version { Some(v) => format!(", which is mandatory in version {v}"), None => String::new() })]
    MissingField {
        /// The JSON key.
        key: &'static str,
        /// The version read, when the field is mandatory only in some versions.
        version: Option<i16>,
    },
    /// A JSON value of the wrong kind.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the field needs, e.g. `"a string"`.
        expected: &'static str,
        /// What the JSON holds, e.g. `"an integer"`.
        found: &'static str,
    },
    /// An integer that does not fit the field's type.
    #[error("{value} does not fit in {ty}")]
    OutOfRange {
        /// The spec type, e.g. `"int16"`.
        ty: &'static str,
        /// The number as written.
        value: String,
    },
    /// A string that is not valid base64 (bytes, records, unknown tagged fields).
    #[error("invalid base64: {0}")]
    InvalidBase64(String),
    /// An expanded record set (`kwire_protocol::records::json`) that cannot be read or written
    /// back as record batches.
    #[error("invalid records: {0}")]
    InvalidRecords(String),
    /// A string that is not a Kafka UUID (22 characters of URL-safe base64).
    #[error("invalid uuid {0:?}: expected 22 characters of URL-safe base64")]
    InvalidUuid(String),
    /// The version is outside the message's `validVersions`.
    #[error("version {version} is outside the valid versions {}", crate::wire::types::range_text(.lowest, .highest))]
    UnsupportedVersion {
        /// Requested version.
        version: i16,
        /// Lowest valid version.
        lowest: i16,
        /// Highest valid version.
        highest: i16,
    },
    /// An API key this spec set does not define (frames).
    #[error("unknown API key {0}")]
    UnknownApiKey(i16),
    /// The text is not JSON.
    #[error("not JSON: {0}")]
    Syntax(String),
}

/// A failure to read the JSON form, and the JSON path it happened at (by JSON key, outermost
/// first, after the message's type name).
///
/// Displayed as `ConsumerGroupHeartbeatRequest.topicPartitions[0].topicId: expected a string, found an integer`.
#[derive(Clone, PartialEq, Eq)]
pub struct JsonError(Box<JsonInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct JsonInner {
    kind: JsonErrorKind,
    path: Vec<PathSegment>,
}

impl JsonError {
    /// An error of `kind` with an empty path.
    #[cold]
    pub fn new(kind: JsonErrorKind) -> Self {
        JsonError(Box::new(JsonInner {
            kind,
            path: Vec::new(),
        }))
    }
    /// What went wrong.
    pub fn kind(&self) -> &JsonErrorKind {
        &self.0.kind
    }
    crate::wire::error::path_methods!("MetadataRequest.topics[3].name");
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.path.is_empty() {
            write_path(f, &self.0.path)?;
            f.write_str(": ")?;
        }
        write!(f, "{}", self.0.kind)
    }
}

impl fmt::Debug for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsonError({self})")
    }
}

impl std::error::Error for JsonError {}

/// How a JSON value is described in errors.
fn found(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a floating-point number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cold]
fn expected(what: &'static str, v: &Value) -> JsonError {
    JsonError::new(JsonErrorKind::Expected {
        expected: what,
        found: found(v),
    })
}

// ------------------------------------------------------------------------------------------------
// Serde adapters
// ------------------------------------------------------------------------------------------------

/// A value and the version to write it at, for serde: `Versioned(&msg, 3)` serializes as
/// `msg.to_json(3)` (an encode error becomes the serializer's custom error).
#[derive(Debug, Clone, Copy)]
pub struct Versioned<'a, T>(pub &'a T, pub i16);

impl<T: JsonForm> serde::Serialize for Versioned<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let v = self.0.to_json(self.1).map_err(serde::ser::Error::custom)?;
        serde::Serialize::serialize(&v, serializer)
    }
}

/// A [`serde::de::DeserializeSeed`] that reads a `T` at a version:
/// `VersionedSeed::<MetadataRequest>::new(12).deserialize(&mut deserializer)`.
pub struct VersionedSeed<T> {
    /// The version to read at.
    pub version: i16,
    _t: PhantomData<fn() -> T>,
}

impl<T> VersionedSeed<T> {
    /// A seed reading at `version`.
    pub fn new(version: i16) -> Self {
        VersionedSeed {
            version,
            _t: PhantomData,
        }
    }
}

impl<T> Clone for VersionedSeed<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for VersionedSeed<T> {}

impl<T> fmt::Debug for VersionedSeed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VersionedSeed")
            .field("version", &self.version)
            .finish()
    }
}

impl<'de, T: JsonForm> serde::de::DeserializeSeed<'de> for VersionedSeed<T> {
    type Value = T;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        let v = <Value as serde::Deserialize>::deserialize(deserializer)?;
        T::from_json(&v, self.version).map_err(serde::de::Error::custom)
    }
}

// ------------------------------------------------------------------------------------------------
// Value types
// ------------------------------------------------------------------------------------------------

impl JsonForm for bool {
    fn to_json(&self, _version: i16) -> Result<Value, EncodeError> {
        Ok(Value::Bool(*self))
    }
    fn from_json(value: &Value, _version: i16) -> Result<Self, JsonError> {
        value.as_bool().ok_or_else(|| expected("a boolean", value))
    }
}

/// An integer literal as i128 (covers i64 and u64).
fn integer(value: &Value) -> Result<i128, JsonError> {
    match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(i128::from(i))
            } else if let Some(u) = n.as_u64() {
                Ok(i128::from(u))
            } else {
                Err(expected("an integer", value))
            }
        }
        _ => Err(expected("an integer", value)),
    }
}

macro_rules! ints {
    ($($t:ty => $name:literal),*) => {$(
        impl JsonForm for $t {
            fn to_json(&self, _version: i16) -> Result<Value, EncodeError> {
                Ok(Value::from(*self))
            }
            fn from_json(value: &Value, _version: i16) -> Result<Self, JsonError> {
                let n = integer(value)?;
                <$t>::try_from(n).map_err(|_| JsonError::new(JsonErrorKind::OutOfRange { ty: $name, value: n.to_string() }))
            }
        }
    )*};
}
ints!(i8 => "int8", i16 => "int16", u16 => "uint16", i32 => "int32", u32 => "uint32", i64 => "int64");

impl JsonForm for f64 {
    fn to_json(&self, _version: i16) -> Result<Value, EncodeError> {
        Ok(match serde_json::Number::from_f64(*self) {
            Some(n) => Value::Number(n),
            None if self.is_nan() => Value::String("NaN".into()),
            None if *self > 0.0 => Value::String("Infinity".into()),
            None => Value::String("-Infinity".into()),
        })
    }
    fn from_json(value: &Value, _version: i16) -> Result<Self, JsonError> {
        const WHAT: &str = "a floating-point number such as 5.0";
        match value {
            Value::Number(n) if n.is_f64() => n.as_f64().ok_or_else(|| expected(WHAT, value)),
            Value::String(s) if s == "NaN" => Ok(f64::NAN),
            Value::String(s) if s == "Infinity" => Ok(f64::INFINITY),
            Value::String(s) if s == "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err(expected(WHAT, value)),
        }
    }
}

impl JsonForm for KStr {
    fn to_json(&self, _version: i16) -> Result<Value, EncodeError> {
        Ok(Value::String(self.as_str().to_owned()))
    }
    fn from_json(value: &Value, _version: i16) -> Result<Self, JsonError> {
        match value {
            Value::String(s) => Ok(KStr::from(s.clone())),
            _ => Err(expected("a string", value)),
        }
    }
}

impl JsonForm for Uuid {
    fn to_json(&self, _version: i16) -> Result<Value, EncodeError> {
        Ok(Value::String(self.to_string()))
    }
    fn from_json(value: &Value, _version: i16) -> Result<Self, JsonError> {
        match value {
            Value::String(s) => {
                Uuid::parse(s).ok_or_else(|| JsonError::new(JsonErrorKind::InvalidUuid(s.clone())))
            }
            _ => Err(expected("a uuid string", value)),
        }
    }
}

/// Standard base64 that accepts input with or without padding.
const LENIENT_STANDARD: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Bytes and records: standard base64.
impl JsonForm for Bytes {
    fn to_json(&self, _version: i16) -> Result<Value, EncodeError> {
        Ok(Value::String(STANDARD.encode(self)))
    }
    fn from_json(value: &Value, _version: i16) -> Result<Self, JsonError> {
        match value {
            Value::String(s) => LENIENT_STANDARD
                .decode(s)
                .map(Bytes::from)
                .map_err(|e| JsonError::new(JsonErrorKind::InvalidBase64(e.to_string()))),
            _ => Err(expected("a base64 string", value)),
        }
    }
}

/// A JSON array; errors name the element index.
impl<T: JsonForm> JsonForm for Vec<T> {
    fn to_json(&self, version: i16) -> Result<Value, EncodeError> {
        let mut a = Vec::with_capacity(self.len());
        for (i, e) in self.iter().enumerate() {
            a.push(e.to_json(version).map_err(|e| e.index(i))?);
        }
        Ok(Value::Array(a))
    }
    fn from_json(value: &Value, version: i16) -> Result<Self, JsonError> {
        let a = value
            .as_array()
            .ok_or_else(|| expected("an array", value))?;
        a.iter()
            .enumerate()
            .map(|(i, e)| T::from_json(e, version).map_err(|e| e.index(i)))
            .collect()
    }
}

/// A JSON array, as `Vec<T>`.
impl<T: Prim + JsonForm> JsonForm for PrimArray<T> {
    fn to_json(&self, version: i16) -> Result<Value, EncodeError> {
        let mut a = Vec::with_capacity(self.len());
        for (i, e) in self.iter().enumerate() {
            a.push(e.to_json(version).map_err(|e| e.index(i))?);
        }
        Ok(Value::Array(a))
    }
    fn from_json(value: &Value, version: i16) -> Result<Self, JsonError> {
        Vec::<T>::from_json(value, version).map(PrimArray::from)
    }
}

/// `null` for `None`.
impl<T: JsonForm> JsonForm for Option<T> {
    fn to_json(&self, version: i16) -> Result<Value, EncodeError> {
        match self {
            Some(v) => v.to_json(version),
            None => Ok(Value::Null),
        }
    }
    fn from_json(value: &Value, version: i16) -> Result<Self, JsonError> {
        match value {
            Value::Null => Ok(None),
            v => T::from_json(v, version).map(Some),
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Helpers for generated code
// ------------------------------------------------------------------------------------------------

/// Fails with `UnsupportedVersion` unless `version` is in `valid` (JSON read side).
#[inline]
#[doc(hidden)]
pub fn check_version(
    version: i16,
    valid: VersionRange,
    name: &'static str,
) -> Result<(), JsonError> {
    if valid.contains(version) {
        Ok(())
    } else {
        Err(JsonError::new(JsonErrorKind::UnsupportedVersion {
            version,
            lowest: valid.lowest,
            highest: valid.highest,
        })
        .in_type(name))
    }
}

/// The value as a JSON object.
///
/// # Errors
/// `Expected` for anything else.
#[inline]
#[doc(hidden)]
pub fn object(value: &Value) -> Result<&Map<String, Value>, JsonError> {
    value
        .as_object()
        .ok_or_else(|| expected("an object", value))
}

/// Writes `value` under `key` at `version`.
///
/// # Errors
/// The value's encode errors (the caller adds the field to the path).
#[inline]
#[doc(hidden)]
pub fn put<T: JsonForm>(
    m: &mut Map<String, Value>,
    key: &str,
    value: &T,
    version: i16,
) -> Result<(), EncodeError> {
    m.insert(key.to_owned(), value.to_json(version)?);
    Ok(())
}

/// Fails with `NullNotAllowed` when a value is null (`present` false) where the version does not
/// allow it.
#[inline]
#[doc(hidden)]
pub fn check_null(present: bool, version: i16) -> Result<(), EncodeError> {
    if present {
        Ok(())
    } else {
        Err(EncodeError::new(EncodeErrorKind::NullNotAllowed {
            version,
        }))
    }
}

/// Reads the mandatory field `key` at `version`.
///
/// # Errors
/// `MissingField` when absent; the value's errors with `key` added to the path.
#[inline]
#[doc(hidden)]
pub fn required<T: JsonForm>(
    o: &Map<String, Value>,
    key: &'static str,
    version: i16,
) -> Result<T, JsonError> {
    match o.get(key) {
        Some(v) => T::from_json(v, version).map_err(|e| e.field(key)),
        None => Err(JsonError::new(JsonErrorKind::MissingField {
            key,
            version: Some(version),
        })),
    }
}

/// Reads the field `key` at `version`, or gives `default` when it is absent.
///
/// # Errors
/// The value's errors with `key` added to the path.
#[inline]
#[doc(hidden)]
pub fn field_or<T: JsonForm>(
    o: &Map<String, Value>,
    key: &'static str,
    version: i16,
    default: T,
) -> Result<T, JsonError> {
    match o.get(key) {
        Some(v) => T::from_json(v, version).map_err(|e| e.field(key)),
        None => Ok(default),
    }
}

/// The error for a missing key that no version makes optional (frames: `header`, `body`).
#[cold]
#[doc(hidden)]
pub fn missing(key: &'static str) -> JsonError {
    JsonError::new(JsonErrorKind::MissingField { key, version: None })
}

/// A frame's JSON form: `{"header": …, "body": …}`.
#[doc(hidden)]
pub fn frame(header: Value, body: Value) -> Value {
    let mut m = Map::new();
    m.insert("header".into(), header);
    m.insert("body".into(), body);
    Value::Object(m)
}

/// The `header` and `body` of a frame's JSON form.
///
/// # Errors
/// Not an object, or a missing `header` or `body`.
#[doc(hidden)]
pub fn frame_parts(value: &Value) -> Result<(&Value, &Value), JsonError> {
    let o = object(value)?;
    let header = o.get("header").ok_or_else(|| missing("header"))?;
    let body = o.get("body").ok_or_else(|| missing("body"))?;
    Ok((header, body))
}

/// Reads the int16 `key` of a frame's header (the API key and version, before the header's
/// own version is known).
///
/// # Errors
/// With the path `header.<key>`.
#[doc(hidden)]
pub fn header_i16(header: &Value, key: &'static str) -> Result<i16, JsonError> {
    let o = object(header).map_err(|e| e.field("header"))?;
    let v = o.get(key).ok_or_else(|| missing(key).field("header"))?;
    i16::from_json(v, 0).map_err(|e| e.field(key).field("header"))
}

/// The error for an API key that a frame's header names and the spec set lacks.
#[cold]
#[doc(hidden)]
pub fn unknown_api_key(key: i16, header_key: &'static str) -> JsonError {
    JsonError::new(JsonErrorKind::UnknownApiKey(key))
        .field(header_key)
        .field("header")
}

/// Writes unknown tagged fields under [`UNKNOWN_TAGGED_FIELDS_KEY`], when there are any.
#[doc(hidden)]
pub fn put_unknown_tags(m: &mut Map<String, Value>, unknown: &[RawTaggedField]) {
    if unknown.is_empty() {
        return;
    }
    let a = unknown
        .iter()
        .map(|f| {
            let mut o = Map::new();
            o.insert("tag".into(), Value::from(f.tag));
            o.insert("data".into(), Value::String(STANDARD.encode(&f.data)));
            Value::Object(o)
        })
        .collect();
    m.insert(UNKNOWN_TAGGED_FIELDS_KEY.into(), Value::Array(a));
}

/// Reads unknown tagged fields from [`UNKNOWN_TAGGED_FIELDS_KEY`] (none when absent), sorted by
/// tag as the binary decoder keeps them.
///
/// # Errors
/// A malformed list, with its path.
#[doc(hidden)]
pub fn unknown_tags(o: &Map<String, Value>) -> Result<UnknownTaggedFields, JsonError> {
    let Some(v) = o.get(UNKNOWN_TAGGED_FIELDS_KEY) else {
        return Ok(UnknownTaggedFields::new());
    };
    let read = || -> Result<Vec<RawTaggedField>, JsonError> {
        let a = v.as_array().ok_or_else(|| expected("an array", v))?;
        let mut out = Vec::with_capacity(a.len());
        for (i, e) in a.iter().enumerate() {
            let eo = object(e).map_err(|e| e.index(i))?;
            let get = |key: &'static str| eo.get(key).ok_or_else(|| missing(key).index(i));
            let tag = u32::from_json(get("tag")?, 0).map_err(|e| e.field("tag").index(i))?;
            let data = Bytes::from_json(get("data")?, 0).map_err(|e| e.field("data").index(i))?;
            out.push(RawTaggedField { tag, data });
        }
        Ok(out)
    };
    let mut out = read().map_err(|e| e.field(UNKNOWN_TAGGED_FIELDS_KEY))?;
    super::reader::sort_unknown(&mut out);
    Ok(out.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_have_kafkas_shapes() {
        assert_eq!(5f64.to_json(0).unwrap().to_string(), "5.0");
        assert_eq!((-0.5f64).to_json(0).unwrap().to_string(), "-0.5");
        assert_eq!(f64::NAN.to_json(0).unwrap(), json!("NaN"));
        assert_eq!(f64::NEG_INFINITY.to_json(0).unwrap(), json!("-Infinity"));
        assert!(f64::from_json(&json!(5), 0).is_err());
        assert_eq!(f64::from_json(&json!(5.0), 0).unwrap(), 5.0);
        assert_eq!(
            f64::from_json(&serde_json::from_str("1e3").unwrap(), 0).unwrap(),
            1000.0
        );
        assert!(f64::from_json(&json!("Infinity"), 0).unwrap().is_infinite());
        assert_eq!(i8::from_json(&json!(-128), 0).unwrap(), -128);
        let e = i8::from_json(&json!(128), 0).unwrap_err();
        assert_eq!(e.to_string(), "128 does not fit in int8");
        assert!(i32::from_json(&json!("5"), 0).is_err());
        assert!(i32::from_json(&json!(5.0), 0).is_err());
        assert_eq!(u32::from_json(&json!(4294967295u64), 0).unwrap(), u32::MAX);
        assert!(u32::from_json(&json!(-1), 0).is_err());
        assert_eq!(i64::from_json(&json!(i64::MIN), 0).unwrap(), i64::MIN);
        assert!(i64::from_json(&json!(u64::MAX), 0).is_err());
        assert!(bool::from_json(&json!(1), 0).is_err());
        let u = Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        let j = u.to_json(0).unwrap();
        assert_eq!(j.as_str().unwrap().len(), 22);
        assert_eq!(Uuid::from_json(&j, 0).unwrap(), u);
        let b = Bytes::from_static(&[0xfb, 0xff, 0x01]);
        assert_eq!(b.to_json(0).unwrap(), json!("+/8B"));
        assert_eq!(Bytes::from_json(&json!("+/8B"), 0).unwrap(), b);
        assert_eq!(
            Bytes::from_json(&json!("AQ"), 0).unwrap(),
            Bytes::from_static(&[1])
        );
        assert!(Bytes::from_json(&json!("-_8B"), 0).is_err());
        assert_eq!(Option::<KStr>::from_json(&Value::Null, 0).unwrap(), None);
        let e = KStr::from_json(&Value::Null, 0).unwrap_err();
        assert_eq!(e.to_string(), "expected a string, found null");
    }

    #[test]
    fn array_errors_name_the_index() {
        let e = Vec::<i16>::from_json(&json!([1, 2, 70000]), 0)
            .unwrap_err()
            .field("xs")
            .in_type("T");
        assert_eq!(e.to_string(), "T.xs[2]: 70000 does not fit in int16");
    }

    #[test]
    fn unknown_tags_round_trip_sorted() {
        let tags = vec![
            RawTaggedField {
                tag: 9,
                data: Bytes::from_static(b"\x01\x02"),
            },
            RawTaggedField {
                tag: 4,
                data: Bytes::new(),
            },
        ];
        let mut m = Map::new();
        put_unknown_tags(&mut m, &tags);
        assert_eq!(
            Value::Object(m.clone()),
            json!({"_unknownTaggedFields": [{"tag": 9, "data": "AQI="}, {"tag": 4, "data": ""}]})
        );
        let back = unknown_tags(&m).unwrap();
        assert_eq!(back.iter().map(|f| f.tag).collect::<Vec<_>>(), [4, 9]);
        let bad = json!({"_unknownTaggedFields": [{"tag": 1}]});
        let e = unknown_tags(bad.as_object().unwrap()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "_unknownTaggedFields[0]: unable to locate field 'data'"
        );
        let mut empty = Map::new();
        put_unknown_tags(&mut empty, &[]);
        assert!(empty.is_empty());
    }
}
