//! Typed decode and encode errors, with the field path they happened at.

use std::fmt;

/// One step of the path from a message to the field where an error happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    /// A message or struct type name, e.g. `MetadataResponse`.
    Type(&'static str),
    /// A field, by its Rust (snake_case) name.
    Field(&'static str),
    /// An array element.
    Index(usize),
    /// A tagged field that is unknown to this version, by tag.
    Tag(u32),
}

pub(crate) fn write_path(f: &mut fmt::Formatter<'_>, rev: &[PathSegment]) -> fmt::Result {
    let mut first = true;
    for seg in rev.iter().rev() {
        match seg {
            PathSegment::Type(t) => {
                if !first {
                    f.write_str(".")?;
                }
                f.write_str(t)?
            }
            PathSegment::Field(n) => {
                if !first {
                    f.write_str(".")?;
                }
                f.write_str(n)?
            }
            PathSegment::Index(i) => write!(f, "[{i}]")?,
            PathSegment::Tag(t) => write!(f, "<tag {t}>")?,
        }
        first = false;
    }
    Ok(())
}

/// The path methods shared by kwire's error types (each a box holding `path: Vec<PathSegment>`,
/// innermost segment first, pushed as the error propagates outward).
macro_rules! path_methods {
    ($what:literal) => {
        /// The path, outermost first.
        pub fn path(&self) -> Vec<PathSegment> {
            self.0.path.iter().rev().cloned().collect()
        }
        #[doc = concat!("The path as text, e.g. `", $what, "`.")]
        pub fn path_string(&self) -> String {
            struct P<'a>(&'a [PathSegment]);
            impl fmt::Display for P<'_> {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    $crate::wire::error::write_path(f, self.0)
                }
            }
            P(&self.0.path).to_string()
        }
        /// Adds an outer field to the path (used by generated code as the error propagates).
        #[cold]
        pub fn field(mut self, name: &'static str) -> Self {
            self.0.path.push(PathSegment::Field(name));
            self
        }
        /// Adds an outer array index to the path.
        #[cold]
        pub fn index(mut self, i: usize) -> Self {
            self.0.path.push(PathSegment::Index(i));
            self
        }
        /// Adds an outer type name to the path.
        #[cold]
        pub fn in_type(mut self, name: &'static str) -> Self {
            if self.0.path.last() != Some(&PathSegment::Type(name)) {
                self.0.path.push(PathSegment::Type(name));
            }
            self
        }
    };
}
#[cfg(feature = "json")]
pub(crate) use path_methods;

/// Adds path context to a result's error as it propagates (`r.i32().at_field("leader_id")?`).
/// Generated code imports it (`use ::kwire_protocol::wire::ErrorPath as _;`) so that each field
/// needs no closure of its own.
pub trait ErrorPath: Sized {
    /// On error, adds an outer field.
    fn at_field(self, name: &'static str) -> Self;
    /// On error, adds an outer array index.
    fn at_index(self, i: usize) -> Self;
}

impl<T> ErrorPath for Result<T, DecodeError> {
    #[inline(always)]
    fn at_field(self, name: &'static str) -> Self {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(e.field(name)),
        }
    }
    #[inline(always)]
    fn at_index(self, i: usize) -> Self {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(e.index(i)),
        }
    }
}

impl<T> ErrorPath for Result<T, EncodeError> {
    #[inline(always)]
    fn at_field(self, name: &'static str) -> Self {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(e.field(name)),
        }
    }
    #[inline(always)]
    fn at_index(self, i: usize) -> Self {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(e.index(i)),
        }
    }
}

/// What went wrong while decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended inside a value.
    UnexpectedEof {
        /// Bytes the value needs.
        needed: usize,
        /// Bytes that were left.
        remaining: usize,
    },
    /// A null (negative or zero compact) length where the field is not nullable in this version.
    NullNotAllowed,
    /// A negative length other than -1.
    InvalidLength(i64),
    /// A string longer than Kafka's limit of 32767 bytes.
    StringTooLong(usize),
    /// A string that is not UTF-8 (Java would substitute U+FFFD; kwire refuses).
    InvalidUtf8,
    /// An unsigned varint whose 5th byte has its high bit set.
    VarintTooLong,
    /// An array count larger than the bytes left could hold.
    ArrayTooLong {
        /// The count read.
        count: usize,
        /// Bytes left.
        remaining: usize,
    },
    /// A known tag that the field does not use in this version (Kafka throws too).
    TagNotValidForVersion {
        /// The tag.
        tag: u32,
        /// The version being decoded.
        version: i16,
    },
    /// The version is outside the message's `validVersions`.
    UnsupportedVersion {
        /// Requested version.
        version: i16,
        /// Lowest valid version.
        lowest: i16,
        /// Highest valid version.
        highest: i16,
    },
    /// Bytes were left after a complete message or frame.
    TrailingBytes {
        /// Offset of the first trailing byte.
        offset: usize,
        /// How many bytes were left.
        len: usize,
    },
    /// An API key this spec set does not define.
    UnknownApiKey(i16),
}

impl std::fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnexpectedEof {
                needed, remaining, ..
            } => write!(f, "needed {needed} bytes, {remaining} left"),
            Self::NullNotAllowed => write!(f, "non-nullable field was serialized as null"),
            Self::InvalidLength(v) => write!(f, "invalid length {v}"),
            Self::StringTooLong(v) => write!(f, "string of {v} bytes is longer than 32767"),
            Self::InvalidUtf8 => write!(f, "string is not valid UTF-8"),
            Self::VarintTooLong => write!(f, "varint is longer than 5 bytes"),
            Self::ArrayTooLong {
                count, remaining, ..
            } => write!(
                f,
                "array of {count} elements cannot fit in the {remaining} bytes left"
            ),
            Self::TagNotValidForVersion { tag, version, .. } => {
                write!(f, "tag {tag} is not valid for version {version}")
            }
            Self::UnsupportedVersion {
                highest,
                lowest,
                version,
                ..
            } => write!(
                f,
                "version {version} is outside the valid versions {}",
                crate::wire::types::range_text(lowest, highest)
            ),
            Self::TrailingBytes { len, .. } => {
                write!(f, "{len} trailing bytes after a complete message")
            }
            Self::UnknownApiKey(v) => write!(f, "unknown API key {v}"),
        }
    }
}

impl std::error::Error for DecodeErrorKind {}

/// A decode failure: what, where in the message (field path) and where in the input (byte offset,
/// counted from the start of the buffer given to the decoder).
///
/// Displayed as `MetadataResponse.topics[3].partitions[0].leader_epoch at byte 812: needed 4 bytes, 2 left`.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct DecodeInner {
    kind: DecodeErrorKind,
    offset: usize,
    path: Vec<PathSegment>,
}

impl DecodeError {
    /// An error of `kind` at byte `offset`, with an empty path.
    #[cold]
    pub fn new(kind: DecodeErrorKind, offset: usize) -> Self {
        DecodeError(Box::new(DecodeInner {
            kind,
            offset,
            path: Vec::new(),
        }))
    }
    /// What went wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }
    /// Byte offset in the decoded buffer where the failing value starts (or the input ran out).
    pub fn offset(&self) -> usize {
        self.0.offset
    }
    path_methods!("MetadataResponse.topics[3].name");
    /// Adds an unknown tag to the path.
    #[cold]
    pub fn tag(mut self, tag: u32) -> Self {
        self.0.path.push(PathSegment::Tag(tag));
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.path.is_empty() {
            write_path(f, &self.0.path)?;
            f.write_str(" ")?;
        }
        write!(f, "at byte {}: {}", self.0.offset, self.0.kind)
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DecodeError({self})")
    }
}

impl std::error::Error for DecodeError {}

/// What went wrong while encoding (or sizing) a message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// The version is outside the message's `validVersions`.
    UnsupportedVersion {
        /// Requested version.
        version: i16,
        /// Lowest valid version.
        lowest: i16,
        /// Highest valid version.
        highest: i16,
    },
    /// A field that this version lacks holds a non-default value and is not `ignorable`
    /// (Kafka: "Attempted to write a non-default X at version V").
    NonDefaultField {
        /// The version being written.
        version: i16,
    },
    /// `None` in a version where the field is not nullable.
    NullNotAllowed {
        /// The version being written.
        version: i16,
    },
    /// A string longer than 32767 bytes.
    StringTooLong(usize),
    /// Bytes, records or an array too long for their length prefix.
    TooLong(usize),
    /// Unknown tagged fields set, in a version that is not flexible.
    TaggedFieldsNotFlexible {
        /// The version being written.
        version: i16,
    },
    /// Unknown tagged fields out of order, or using a tag this version knows.
    InvalidUnknownTag {
        /// The offending tag.
        tag: u32,
    },
    /// A request or response body does not match its header's API key.
    ApiKeyMismatch {
        /// Key of the body.
        body: i16,
        /// Key in the header.
        header: i16,
    },
    /// A `records` field written in its expanded JSON form (`kwire_protocol::records::json`,
    /// feature `json`) whose bytes are not a valid record set; the text has the cause and where.
    InvalidRecords(String),
}

impl std::fmt::Display for EncodeErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnsupportedVersion {
                highest,
                lowest,
                version,
                ..
            } => write!(
                f,
                "version {version} is outside the valid versions {}",
                crate::wire::types::range_text(lowest, highest)
            ),
            Self::NonDefaultField { version, .. } => write!(
                f,
                "field is not in version {version} but holds a non-default value"
            ),
            Self::NullNotAllowed { version, .. } => {
                write!(f, "null is not allowed in version {version}")
            }
            Self::StringTooLong(v) => write!(f, "string of {v} bytes is longer than 32767"),
            Self::TooLong(v) => write!(f, "length {v} does not fit the length prefix"),
            Self::TaggedFieldsNotFlexible { version, .. } => write!(
                f,
                "unknown tagged fields are set, but version {version} is not flexible"
            ),
            Self::InvalidUnknownTag { tag, .. } => write!(
                f,
                "unknown tagged field {tag} is out of order or uses a known tag"
            ),
            Self::ApiKeyMismatch { body, header, .. } => {
                write!(f, "body is API key {body} but the header says {header}")
            }
            Self::InvalidRecords(why) => write!(f, "not a valid record set: {why}"),
        }
    }
}

impl std::error::Error for EncodeErrorKind {}

/// An encode failure and the field path it happened at.
#[derive(Clone, PartialEq, Eq)]
pub struct EncodeError(Box<EncodeInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct EncodeInner {
    kind: EncodeErrorKind,
    path: Vec<PathSegment>,
}

impl EncodeError {
    /// An error of `kind` with an empty path.
    #[cold]
    pub fn new(kind: EncodeErrorKind) -> Self {
        EncodeError(Box::new(EncodeInner {
            kind,
            path: Vec::new(),
        }))
    }
    /// What went wrong.
    pub fn kind(&self) -> &EncodeErrorKind {
        &self.0.kind
    }
    path_methods!("MetadataRequest.topics[0].name");
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.path.is_empty() {
            write_path(f, &self.0.path)?;
            f.write_str(": ")?;
        }
        write!(f, "{}", self.0.kind)
    }
}

impl fmt::Debug for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EncodeError({self})")
    }
}

impl std::error::Error for EncodeError {}
