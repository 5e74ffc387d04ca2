//! Borrowed views of a record set: batches, records and headers read in place.
//!
//! Nothing here allocates for uncompressed batches: keys, values and header sections are slices of
//! the input. A compressed batch is decompressed into a buffer the caller owns and reuses
//! ([`BatchRef::decompress`]).

use super::attributes::Compression;
use super::batch::{
    be_i32, be_u32, crc32c, BatchHeader, LOG_OVERHEAD, MAGIC_OFFSET, MIN_BATCH_LENGTH,
};
use super::codec::{read_record, RawRecord};
use super::error::{RecordsError, RecordsErrorKind};
use super::headers::HeaderIter;
use super::legacy;
use super::options::DecodeOptions;

/// A record set (the bytes of a `records` field) read in place: a sequence of batches, each
/// behind its 12-byte `base_offset` + `batch_length` prefix.
#[derive(Debug, Clone, Copy)]
pub struct RecordSetRef<'a> {
    bytes: &'a [u8],
}

impl<'a> RecordSetRef<'a> {
    /// A view of `b`; nothing is read until [`batches`](Self::batches) is iterated.
    pub fn new(b: &'a [u8]) -> Self {
        RecordSetRef { bytes: b }
    }

    /// The record set's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The batches, in order (magic 2 batches and legacy magic 0/1 messages).
    pub fn batches(&self) -> BatchIter<'a> {
        BatchIter {
            buf: self.bytes,
            pos: 0,
            index: 0,
            partial_tail: 0,
            done: false,
        }
    }
}

/// Iterates the batches of a record set (Kafka's `ByteBufferLogInputStream`): each step reads
/// `base_offset`, `batch_length` and the magic byte (offset 16) and yields the whole batch.
///
/// A trailing batch that the input holds only part of ends the iteration without an error (a
/// fetch response may cut the last batch short; Kafka's consumer ignores it); its bytes are
/// [`partial_tail`](Self::partial_tail). After an error the iteration ends.
#[derive(Debug, Clone)]
pub struct BatchIter<'a> {
    buf: &'a [u8],
    pos: usize,
    index: usize,
    partial_tail: usize,
    done: bool,
}

impl<'a> BatchIter<'a> {
    /// Bytes of a trailing incomplete batch the iteration stopped at (0 until then, and when the
    /// record set ends on a batch boundary).
    pub fn partial_tail(&self) -> usize {
        self.partial_tail
    }

    /// Byte offset in the record set of the next batch.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn fail(&mut self, e: RecordsError) -> Option<Result<BatchRef<'a>, RecordsError>> {
        self.done = true;
        Some(Err(e.in_batch(self.index)))
    }

    fn tail(&mut self, n: usize) -> Option<Result<BatchRef<'a>, RecordsError>> {
        self.done = true;
        self.partial_tail = n;
        None
    }
}

impl<'a> Iterator for BatchIter<'a> {
    type Item = Result<BatchRef<'a>, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let rest = &self.buf[self.pos..];
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        if rest.len() < LOG_OVERHEAD {
            return self.tail(rest.len());
        }
        let batch_length = be_i32(rest, 8);
        if batch_length < legacy::MIN_MESSAGE_SIZE_V0 as i32 {
            return self.fail(RecordsError::invalid(
                format!("batch length {batch_length} is below the smallest message (14 bytes)"),
                self.pos + 8,
            ));
        }
        if rest.len() <= MAGIC_OFFSET {
            return self.tail(rest.len());
        }
        let magic = rest[MAGIC_OFFSET] as i8;
        let min = match magic {
            2 => MIN_BATCH_LENGTH,
            0 => legacy::MIN_MESSAGE_SIZE_V0 as i32,
            1 => legacy::MIN_MESSAGE_SIZE_V1 as i32,
            m => {
                return self.fail(RecordsError::new(
                    RecordsErrorKind::UnknownMagic(m),
                    self.pos + MAGIC_OFFSET,
                ))
            }
        };
        if batch_length < min {
            return self.fail(RecordsError::invalid(
                format!("batch length {batch_length} is below the minimum {min} of magic {magic}"),
                self.pos + 8,
            ));
        }
        let size = LOG_OVERHEAD + batch_length as usize;
        if rest.len() < size {
            return self.tail(rest.len());
        }
        let bytes = &rest[..size];
        let header = if magic == 2 {
            BatchHeader::parse(bytes)
        } else {
            legacy::view_header(bytes)
        };
        let header = match header {
            Ok(h) => h,
            Err(e) => return self.fail(e.shifted(self.pos)),
        };
        let batch = BatchRef {
            header,
            bytes,
            offset: self.pos,
            index: self.index,
        };
        self.pos += size;
        self.index += 1;
        Some(Ok(batch))
    }
}

impl std::iter::FusedIterator for BatchIter<'_> {}

/// One batch of a record set, read in place: its header, parsed, and its bytes.
///
/// For a legacy message (magic 0 or 1) the header is the message's, with the fields it lacks at
/// Kafka's "no value" (-1); an uncompressed legacy message reads as a batch of one record, a
/// compressed one (a wrapper of a nested message set) only through
/// [`RecordSet::decode`](super::RecordSet::decode): its view header has the wrapper's offset
/// (the last inner offset) as `base_offset` and `record_count` -1 (counting needs
/// decompression).
#[derive(Debug, Clone, Copy)]
pub struct BatchRef<'a> {
    header: BatchHeader,
    bytes: &'a [u8],
    offset: usize,
    index: usize,
}

impl<'a> BatchRef<'a> {
    /// The parsed header.
    pub fn header(&self) -> &BatchHeader {
        &self.header
    }

    /// The whole batch (`12 + batch_length` bytes, header included).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Byte offset of the batch in its record set.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Index (0-based) of the batch in its record set.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The codec of the attributes.
    ///
    /// # Errors
    /// [`RecordsErrorKind::UnknownCompression`] for ids 5-7.
    pub fn compression(&self) -> Result<Compression, RecordsError> {
        self.header.attributes.compression().map_err(|id| {
            RecordsError::new(RecordsErrorKind::UnknownCompression(id), self.offset + 21)
                .in_batch(self.index)
        })
    }

    /// Checks the stored CRC: CRC-32C of the bytes from `attributes` to the end for magic 2,
    /// CRC-32 (IEEE) of the bytes from `magic` to the end for magic 0 and 1. Iterating does not
    /// check it (views are for speed); [`RecordSet::decode`](super::RecordSet::decode) does, per
    /// [`DecodeOptions::verify_crc`].
    ///
    /// # Errors
    /// [`RecordsErrorKind::CrcMismatch`] with both values, at the CRC field.
    pub fn check_crc(&self) -> Result<(), RecordsError> {
        let (stored, computed, at) = if self.header.magic == 2 {
            (self.header.crc, crc32c(&self.bytes[21..]), 17)
        } else {
            (
                be_u32(self.bytes, 12),
                crc32fast::hash(&self.bytes[16..]),
                12,
            )
        };
        if stored == computed {
            Ok(())
        } else {
            Err(RecordsError::new(
                RecordsErrorKind::CrcMismatch { stored, computed },
                self.offset + at,
            )
            .in_batch(self.index))
        }
    }

    /// The records of an uncompressed batch, read in place (no allocation).
    ///
    /// # Errors
    /// [`RecordsErrorKind::Invalid`] for a compressed batch (use [`decompress`](Self::decompress))
    /// and for a compressed legacy message (use [`RecordSet::decode`](super::RecordSet::decode));
    /// [`RecordsErrorKind::UnknownCompression`] for codec ids 5-7.
    pub fn records(&self) -> Result<RecordIter<'a>, RecordsError> {
        let codec = self.compression()?;
        if self.header.magic != 2 {
            let (key, value) =
                legacy::view_record(self.bytes, self.offset).map_err(|e| e.in_batch(self.index))?;
            return Ok(RecordIter::single(
                RecordRef::plain(0, key, value),
                self.index,
            ));
        }
        if codec != Compression::None {
            return Err(RecordsError::invalid(
                format!(
                    "batch is compressed ({}): read it with decompress",
                    codec.name()
                ),
                self.offset + 21,
            )
            .in_batch(self.index));
        }
        Ok(RecordIter::new(
            &self.bytes[BatchHeader::SIZE..],
            self.header.record_count,
            self.offset + BatchHeader::SIZE,
            self.index,
            false,
        ))
    }

    /// Decompresses the records of a magic-2 batch into `buf` (cleared first; its capacity is
    /// reused, so one buffer serves batch after batch) and iterates them from there. An
    /// uncompressed batch is copied. Decompression stops at
    /// [`DecodeOptions::max_decompressed_bytes`].
    ///
    /// # Errors
    /// [`RecordsErrorKind::DecompressedTooLarge`], [`RecordsErrorKind::Decompression`],
    /// [`RecordsErrorKind::CompressionUnsupported`], [`RecordsErrorKind::UnknownCompression`];
    /// [`RecordsErrorKind::Invalid`] for a legacy message (use
    /// [`RecordSet::decode`](super::RecordSet::decode)).
    pub fn decompress<'b>(
        &self,
        opts: &DecodeOptions,
        buf: &'b mut Vec<u8>,
    ) -> Result<RecordIter<'b>, RecordsError> {
        let codec = self.compression()?;
        if self.header.magic != 2 {
            return Err(RecordsError::invalid(
                format!(
                    "legacy message set (magic {}): read it with RecordSet::decode",
                    self.header.magic
                ),
                self.offset + MAGIC_OFFSET,
            )
            .in_batch(self.index));
        }
        buf.clear();
        let start = self.offset + BatchHeader::SIZE;
        super::compression::decompress(
            codec,
            &self.bytes[BatchHeader::SIZE..],
            opts.max_decompressed_bytes,
            buf,
        )
        .map_err(|e| e.shifted(start).in_batch(self.index))?;
        Ok(RecordIter::new(
            buf,
            self.header.record_count,
            0,
            self.index,
            true,
        ))
    }
}

/// Iterates the records of one batch: exactly `record_count` records, then checks that no bytes
/// are left (Kafka's `DefaultRecordBatch` record iterator). After an error the iteration ends.
#[derive(Debug, Clone)]
pub struct RecordIter<'a> {
    buf: &'a [u8],
    pos: usize,
    remaining: u32,
    index: usize,
    base: usize,
    batch: usize,
    in_decompressed: bool,
    done: bool,
    /// The one record of an uncompressed legacy message.
    single: Option<RecordRef<'a>>,
}

impl<'a> RecordIter<'a> {
    pub(crate) fn new(
        buf: &'a [u8],
        count: i32,
        base: usize,
        batch: usize,
        in_decompressed: bool,
    ) -> Self {
        RecordIter {
            buf,
            pos: 0,
            remaining: count.max(0) as u32,
            index: 0,
            base,
            batch,
            in_decompressed,
            done: false,
            single: None,
        }
    }

    pub(crate) fn single(record: RecordRef<'a>, batch: usize) -> Self {
        RecordIter {
            buf: &[],
            pos: 0,
            remaining: 0,
            index: 1,
            base: 0,
            batch,
            in_decompressed: false,
            done: false,
            single: Some(record),
        }
    }

    /// Records not yet read (of the batch's `record_count`).
    pub fn remaining(&self) -> usize {
        self.remaining as usize + self.single.is_some() as usize
    }

    fn fail(&mut self, e: RecordsError) -> Option<Result<RecordRef<'a>, RecordsError>> {
        self.done = true;
        self.remaining = 0;
        Some(Err(e
            .in_batch(self.batch)
            .decompressed(self.in_decompressed)))
    }
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = Result<RecordRef<'a>, RecordsError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            if let Some(r) = self.single.take() {
                return Some(Ok(r));
            }
            if self.done {
                return None;
            }
            self.done = true;
            if self.pos != self.buf.len() {
                let extra = self.buf.len() - self.pos;
                let at = self.base + self.pos;
                return self.fail(RecordsError::invalid(
                    format!(
                        "{extra} bytes after the last of the batch's {} records",
                        self.index
                    ),
                    at,
                ));
            }
            return None;
        }
        if self.pos == self.buf.len() {
            let at = self.base + self.pos;
            let msg = format!(
                "record count {} but the batch holds {} records",
                self.index + self.remaining as usize,
                self.index
            );
            return self.fail(RecordsError::invalid(msg, at).in_record(self.index));
        }
        match read_record(self.buf, &mut self.pos) {
            Ok(raw) => {
                self.remaining -= 1;
                self.index += 1;
                Some(Ok(RecordRef::from_raw(self.buf, &raw)))
            }
            Err(e) => {
                let e = e.shifted(self.base).in_record(self.index);
                self.fail(e)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.remaining() + 1))
    }
}

impl std::iter::FusedIterator for RecordIter<'_> {}

/// One record, read in place (Kafka's `DefaultRecord`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordRef<'a> {
    /// Record attributes (int8; unused by Kafka, kept).
    pub attributes: i8,
    /// Timestamp minus the batch's `base_timestamp`, ms (varlong).
    pub timestamp_delta: i64,
    /// Offset minus the batch's `base_offset` (varint).
    pub offset_delta: i32,
    /// The key; `None` when null.
    pub key: Option<&'a [u8]>,
    /// The value; `None` when null.
    pub value: Option<&'a [u8]>,
    headers: &'a [u8],
    header_count: u32,
}

impl<'a> RecordRef<'a> {
    #[inline(always)]
    fn from_raw(buf: &'a [u8], raw: &RawRecord) -> Self {
        RecordRef {
            attributes: raw.attributes,
            timestamp_delta: raw.timestamp_delta,
            offset_delta: raw.offset_delta,
            key: raw.key.map(|(s, e)| &buf[s..e]),
            value: raw.value.map(|(s, e)| &buf[s..e]),
            headers: &buf[raw.headers.0..raw.headers.1],
            header_count: raw.header_count,
        }
    }

    /// A record without headers (legacy messages).
    pub(crate) fn plain(
        timestamp_delta: i64,
        key: Option<&'a [u8]>,
        value: Option<&'a [u8]>,
    ) -> Self {
        RecordRef {
            attributes: 0,
            timestamp_delta,
            offset_delta: 0,
            key,
            value,
            headers: &[],
            header_count: 0,
        }
    }

    /// The headers, in order (duplicate keys and null values kept). They were validated when
    /// the record was read.
    pub fn headers(&self) -> HeaderIter<'a> {
        HeaderIter::new(self.headers, self.header_count)
    }

    /// Number of headers.
    pub fn header_count(&self) -> usize {
        self.header_count as usize
    }
}
