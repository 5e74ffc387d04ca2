//! The typed error of record-set decoding and encoding.

use super::batch::Compression;
use std::fmt;

/// What went wrong in a record set.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordsErrorKind {
    /// The input ended inside a fixed field or a record.
    Truncated,
    /// A magic byte other than 0, 1 or 2.
    UnknownMagic(i8),
    /// The stored CRC (CRC-32C for magic 2, CRC-32 for 0 and 1) differs from the computed one.
    CrcMismatch {
        /// The CRC stored in the batch.
        stored: u32,
        /// The CRC of the covered bytes.
        computed: u32,
    },
    /// Compression bits 5-7 (no such codec).
    UnknownCompression(u8),
    /// A codec this build left out (its cargo feature is off).
    CompressionUnsupported(Compression),
    /// The compressed bytes are not valid for their codec.
    Decompression(String),
    /// Decompressing would produce more than the limit (bytes).
    DecompressedTooLarge {
        /// The limit in force ([`DecodeOptions::max_decompressed_bytes`](super::DecodeOptions)).
        limit: usize,
    },
    /// A length, count or size field that contradicts the bytes (text says which).
    Invalid(String),
    /// Compression failed while encoding.
    Compression(String),
}

/// An error in a record set, with where: byte offset in the record set (or in the decompressed
/// records of a batch), batch index and record index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordsError {
    /// What went wrong.
    pub kind: RecordsErrorKind,
    /// Byte offset of the failing field, from the start of the record set (for a field inside
    /// decompressed records: from the start of the decompressed bytes, see `in_decompressed`).
    pub offset: usize,
    /// Index of the batch (0-based) in the record set, when known.
    pub batch: Option<usize>,
    /// Index of the record (0-based) in its batch, when the error is inside one.
    pub record: Option<usize>,
    /// Whether `offset` counts in the decompressed bytes of the batch.
    pub in_decompressed: bool,
}
