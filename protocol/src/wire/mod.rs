//! The runtime every generated message stands on.
//!
//! * [`Reader`] decodes from a [`bytes::Bytes`], tracking the byte offset for errors; strings,
//!   bytes and records come out as zero-copy slices of the input.
//! * [`Sink`] is where encoders write: any [`bytes::BufMut`], or a [`RawWriter`], which writes
//!   into reserved memory or, made by [`RawWriter::counter`], only adds up lengths; that is how
//!   `encoded_len` is exact by construction (one code path does both).
//! * [`Encode`], [`Decode`] and [`Message`] are the traits generated types implement.
//! * [`DecodeError`] and [`EncodeError`] name the field path and, for decoding, the byte offset:
//!   `MetadataResponse.topics[3].partitions[0].leader_epoch at byte 812: needed 4 bytes, 2 left`.
//! * [`frame`] reads and writes the 4-byte size prefix that precedes every request and response.
//! * `json` (feature `json`): Kafka's JSON form of every message (`JsonForm`, serde adapters).
//!
//! The helpers only generated code calls (length-prefixed writes, tagged-field bookkeeping,
//! version checks, view offsets) are public for it but hidden from these docs; generated code
//! reaches them through `kwire_protocol::__private`.
//!
//! # Leniency (decode) and strictness, written down
//!
//! kwire decodes what Kafka's Java reader decodes, except where Rust must be strict. The rows on
//! varints and lengths are applied in one place (the private `wire/scan.rs`), which owned
//! decoding ([`Reader`]), view validation ([`view::Cursor`]) and the views' trusted skips share:
//!
//! | input | Kafka (Java) | kwire |
//! |---|---|---|
//! | bool byte other than 0 or 1 | true | true (re-encodes as `0x01`) |
//! | overlong / non-minimal unsigned varint | accepted | accepted; a 5th byte with its high bit set is [`DecodeErrorKind::VarintTooLong`]; excess bits of the 5th byte are dropped, as Java does |
//! | compact length or count above 2^31 (varint > 2^31) | negative, read as null | read as null (an error where the field is not nullable) |
//! | compact varint exactly 2^31 | wraps to the length 2^31 - 1 | the length 2^31 - 1, which no input holds (`ArrayTooLong`, `StringTooLong` or end of input) |
//! | tagged fields out of order, or repeated | accepted, last value wins | accepted, last value wins; unknown tags are kept, sorted by tag (stably) |
//! | payload of a known tag longer than its value | not checked | not checked: the value is read from the first bytes of the payload |
//! | known tag in a version where the field is not tagged | error | [`DecodeErrorKind::TagNotValidForVersion`] |
//! | negative marker byte of a nullable struct | null | null |
//! | invalid UTF-8 in a string | replaced by U+FFFD | [`DecodeErrorKind::InvalidUtf8`] |
//! | string longer than 32767 bytes | error | [`DecodeErrorKind::StringTooLong`] |
//! | array count larger than the bytes left | error | [`DecodeErrorKind::ArrayTooLong`] |
//! | a version outside the message's `validVersions` | not checked by top-level classes | [`DecodeErrorKind::UnsupportedVersion`] |
//! | bytes left after a whole message or frame | depends on caller | [`DecodeErrorKind::TrailingBytes`] (use `decode_prefix` to keep them) |
//!
//! Encoding is always canonical: minimal varints, tagged fields in ascending tag order and only
//! when they differ from their default, bool as `0x00`/`0x01`.
//!
//! # Allocation
//!
//! No length read from the wire reserves memory beyond what the remaining input could hold:
//! arrays reserve at most `2 × remaining bytes` worth of elements up front (see
//! `bounded_capacity`), strings and bytes are slices of the input and allocate nothing.

mod codec;
mod error;
pub mod frame;
#[cfg(feature = "json")]
pub mod json;
mod prim;
mod reader;
#[cfg(feature = "sample")]
pub mod sample;
mod scan;
mod sink;
mod types;
pub mod view;

pub use codec::*;
pub use error::{
    DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, ErrorPath, PathSegment,
};
pub use prim::{PrimArray, PrimIter};
#[doc(hidden)]
pub use reader::bounded_capacity;
pub use reader::Reader;
pub use sink::{encode_chunks, encode_exact, Chunks, Prim, RawWriter, Sink};
pub use types::{
    Encoding, KStr, MessageKind, Nullable, RawTaggedField, UnknownTaggedFields, Uuid, VersionRange,
};
