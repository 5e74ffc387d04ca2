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

impl RecordsError {
    /// An error of `kind` at byte `offset`, without batch or record index.
    pub fn new(kind: RecordsErrorKind, offset: usize) -> RecordsError {
        RecordsError {
            kind,
            offset,
            batch: None,
            record: None,
            in_decompressed: false,
        }
    }

    /// [`RecordsErrorKind::Invalid`] with its text, at byte `offset`.
    pub fn invalid(text: impl Into<String>, offset: usize) -> RecordsError {
        RecordsError::new(RecordsErrorKind::Invalid(text.into()), offset)
    }

    /// [`RecordsErrorKind::Truncated`] at byte `offset`.
    pub fn truncated(offset: usize) -> RecordsError {
        RecordsError::new(RecordsErrorKind::Truncated, offset)
    }

    /// The same error, with the batch index set (when not already known).
    pub fn in_batch(mut self, batch: usize) -> RecordsError {
        self.batch.get_or_insert(batch);
        self
    }

    /// The same error, with the record index set (when not already known).
    pub fn in_record(mut self, record: usize) -> RecordsError {
        self.record.get_or_insert(record);
        self
    }

    /// The same error, its offset moved by `base` bytes (an offset found in a slice that starts
    /// `base` bytes into the record set or the decompressed records).
    pub(crate) fn shifted(mut self, base: usize) -> RecordsError {
        self.offset = self.offset.saturating_add(base);
        self
    }

    /// The same error, marked as counting in decompressed bytes.
    pub(crate) fn decompressed(mut self, yes: bool) -> RecordsError {
        self.in_decompressed = yes;
        self
    }
}

impl fmt::Display for RecordsErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordsErrorKind::Truncated => f.write_str("input ends inside a field or record"),
            RecordsErrorKind::UnknownMagic(m) => write!(f, "unknown magic {m} (known: 0, 1, 2)"),
            RecordsErrorKind::CrcMismatch { stored, computed } => {
                write!(
                    f,
                    "CRC mismatch: stored {stored:#010x}, computed {computed:#010x}"
                )
            }
            RecordsErrorKind::UnknownCompression(id) => {
                write!(f, "unknown compression codec id {id} (known: 0-4)")
            }
            RecordsErrorKind::CompressionUnsupported(c) => {
                write!(
                    f,
                    "compression {} is not compiled in (cargo feature `{}`)",
                    c.name(),
                    c.name()
                )
            }
            RecordsErrorKind::Decompression(t) => write!(f, "invalid compressed data: {t}"),
            RecordsErrorKind::DecompressedTooLarge { limit } => {
                write!(f, "decompressed records exceed the limit of {limit} bytes")
            }
            RecordsErrorKind::Invalid(t) => f.write_str(t),
            RecordsErrorKind::Compression(t) => write!(f, "compression failed: {t}"),
        }
    }
}

impl fmt::Display for RecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record set: {} at byte {}", self.kind, self.offset)?;
        if self.in_decompressed {
            f.write_str(" of the decompressed records")?;
        }
        if let Some(b) = self.batch {
            write!(f, ", batch {b}")?;
        }
        if let Some(r) = self.record {
            write!(f, ", record {r}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RecordsError {}
