//! Owned record sets: [`RecordSet::decode`] shares the input [`Bytes`] (keys, values and header
//! parts are slices of it, not copies); [`RecordBatch::encode`] writes a batch back.

use bytes::Bytes;

use super::batch::{
    seal_batch, BatchHeader, Compression, TimestampType, ATTRIBUTES_OFFSET, CRC_OFFSET,
};
use super::codec::{read_record, record_body_len, write_record, MIN_RECORD_SIZE};
use super::control::ControlRecord;
use super::error::{RecordsError, RecordsErrorKind};
use super::legacy;
use super::view::{BatchRef, RecordSetRef};

/// The default limit on the decompressed bytes of one batch: 64 MiB.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: usize = 64 * 1024 * 1024;

/// How record sets are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Largest number of bytes one batch may decompress to (bytes); past it decoding fails with
    /// [`RecordsErrorKind::DecompressedTooLarge`] having allocated no more than this. Default
    /// [`DEFAULT_MAX_DECOMPRESSED_BYTES`] (64 MiB).
    pub max_decompressed_bytes: usize,
    /// Whether [`RecordSet::decode`] checks each batch's CRC (CRC-32C for magic 2, CRC-32 for
    /// magic 0 and 1, as Kafka's `RecordBatch.ensureValid`). Default true.
    pub verify_crc: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
            verify_crc: true,
        }
    }
}

/// One record header: key (UTF-8 in Kafka, kept as bytes) and nullable value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Header {
    /// The header key.
    pub key: Bytes,
    /// The header value; `None` when null (kafka-protocol-rs #133).
    pub value: Option<Bytes>,
}

impl Header {
    /// The key as UTF-8 (Kafka's header keys are strings).
    ///
    /// # Errors
    /// The [`std::str::Utf8Error`] of invalid UTF-8.
    pub fn key_str(&self) -> Result<&str, std::str::Utf8Error> {
        std::str::from_utf8(&self.key)
    }
}

/// One record of a batch (Kafka's `DefaultRecord`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Record {
    /// Record attributes (int8; unused by Kafka, kept).
    pub attributes: i8,
    /// Timestamp minus the batch's `base_timestamp`, ms (a varlong on the wire:
    /// kafka-protocol-rs #158).
    pub timestamp_delta: i64,
    /// Offset minus the batch's `base_offset` (varint).
    pub offset_delta: i32,
    /// The key; `None` when null.
    pub key: Option<Bytes>,
    /// The value; `None` when null.
    pub value: Option<Bytes>,
    /// The headers in wire order; duplicate keys and null values are kept.
    pub headers: Vec<Header>,
}

/// One batch: its header and its records (decompressed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordBatch {
    /// The header as read (for legacy entries: see [`BatchHeader`]).
    pub header: BatchHeader,
    /// The records in order.
    pub records: Vec<Record>,
}

/// A decoded record set: its batches, and the bytes of a trailing incomplete batch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecordSet {
    /// The complete batches, in order.
    pub batches: Vec<RecordBatch>,
    /// Bytes of a trailing incomplete batch, ignored as Kafka's consumer does (a fetch response
    /// may cut its last batch short).
    pub partial_tail: usize,
}

impl RecordSet {
    /// Decodes every batch of `input` (magic 2 batches and legacy magic 0/1 messages), sharing
    /// `input`: keys, values and header parts of uncompressed batches are
    /// [`Bytes::slice`]s of it. A compressed batch is decompressed (at most
    /// `opts.max_decompressed_bytes`) into one buffer whose slices its records hold.
    ///
    /// # Errors
    /// The first [`RecordsError`] met, with its batch and record index: truncation inside a
    /// complete batch, bad lengths and counts (Kafka's `DefaultRecord.readFrom` and
    /// `DefaultRecordBatch` rules), CRC mismatch (when `opts.verify_crc`), unknown magic or codec,
    /// decompression errors and the decompression limit.
    pub fn decode(input: &Bytes, opts: &DecodeOptions) -> Result<RecordSet, RecordsError> {
        let mut batches = RecordSetRef::new(input).batches();
        let mut out = Vec::new();
        for batch in batches.by_ref() {
            let batch = batch?;
            out.push(decode_batch(input, &batch, opts).map_err(|e| e.in_batch(batch.index()))?);
        }
        Ok(RecordSet {
            batches: out,
            partial_tail: batches.partial_tail(),
        })
    }
}

fn decode_batch(
    input: &Bytes,
    batch: &BatchRef<'_>,
    opts: &DecodeOptions,
) -> Result<RecordBatch, RecordsError> {
    let start = batch.offset();
    let end = start + batch.bytes().len();
    if batch.header().magic != 2 {
        return legacy::decode_entry(input, start, end, opts);
    }
    let header = *batch.header();
    let codec = batch.compression();
    let records = if codec == Ok(Compression::None) {
        // The CRC-32C is computed while the records are read, a chunk ahead of them, so that
        // each byte comes from memory once (a mismatch still wins over any parse error).
        let crc = opts.verify_crc.then(|| CrcCheck {
            stored: header.crc,
            running: crc32c::crc32c(&batch.bytes()[ATTRIBUTES_OFFSET..BatchHeader::SIZE]),
            covered: 0,
            at: start + CRC_OFFSET,
        });
        decode_records(
            input,
            start + BatchHeader::SIZE,
            end,
            header.record_count,
            false,
            crc,
        )?
    } else {
        if opts.verify_crc {
            batch.check_crc()?;
        }
        let codec = codec?;
        let mut buf = Vec::new();
        super::compression::decompress(
            codec,
            &input[start + BatchHeader::SIZE..end],
            opts.max_decompressed_bytes,
            &mut buf,
        )
        .map_err(|e| e.shifted(start + BatchHeader::SIZE))?;
        let data = Bytes::from(buf);
        decode_records(&data, 0, data.len(), header.record_count, true, None)?
    };
    Ok(RecordBatch { header, records })
}

/// The CRC-32C of an uncompressed batch, computed along with reading its records.
struct CrcCheck {
    /// The CRC stored in the batch.
    stored: u32,
    /// CRC-32C of the bytes from `attributes` to `covered`.
    running: u32,
    /// Bytes of the records covered so far.
    covered: usize,
    /// Byte offset of the CRC field in the record set.
    at: usize,
}

impl CrcCheck {
    /// Bytes covered per step: small enough to stay in the L1 cache while records are read.
    const CHUNK: usize = 16 * 1024;

    /// Covers at least `records[..need]` (up to the end).
    #[inline(always)]
    fn advance(&mut self, records: &[u8], need: usize) {
        if self.covered < need {
            let to = (self.covered + Self::CHUNK).max(need).min(records.len());
            self.running = crc32c::crc32c_append(self.running, &records[self.covered..to]);
            self.covered = to;
        }
    }

    /// Covers the rest and compares.
    fn finish(&mut self, records: &[u8]) -> Result<(), RecordsError> {
        self.advance(records, records.len());
        if self.running == self.stored {
            Ok(())
        } else {
            let kind = RecordsErrorKind::CrcMismatch {
                stored: self.stored,
                computed: self.running,
            };
            Err(RecordsError::new(kind, self.at))
        }
    }
}

/// Reads `count` records from `src[start..end]`, slicing `src`; nothing may be left over. With
/// `crc`, the bytes are checked too, and a mismatch is the error whatever else is wrong.
fn decode_records(
    src: &Bytes,
    start: usize,
    end: usize,
    count: i32,
    in_decompressed: bool,
    mut crc: Option<CrcCheck>,
) -> Result<Vec<Record>, RecordsError> {
    let b = &src[start..end];
    let count = count.max(0) as usize;
    let mut records = Vec::with_capacity(count.min(b.len() / MIN_RECORD_SIZE));
    let mut pos = 0;
    let fail = |crc: &mut Option<CrcCheck>, e: RecordsError, i: usize| -> RecordsError {
        if let Some(c) = crc.as_mut() {
            if let Err(crc_error) = c.finish(b) {
                return crc_error;
            }
        }
        e.shifted(start).in_record(i).decompressed(in_decompressed)
    };
    for i in 0..count {
        if pos == b.len() {
            let e = RecordsError::invalid(
                format!("record count {count} but the batch holds {i} records"),
                pos,
            );
            return Err(fail(&mut crc, e, i));
        }
        if let Some(c) = crc.as_mut() {
            // The record's fixed part and the start of its key, before they are read.
            c.advance(b, pos + 64);
        }
        let mut headers = Vec::new();
        let raw = read_record(b, &mut pos, |n, k, v| {
            if headers.capacity() == 0 {
                // `n` is bounded by the record's bytes (checked before the first header).
                headers.reserve_exact(n as usize);
            }
            headers.push(Header {
                key: src.slice(start + k.0..start + k.1),
                value: v.map(|(s, e)| src.slice(start + s..start + e)),
            });
        });
        let raw = match raw {
            Ok(raw) => raw,
            Err(e) => return Err(fail(&mut crc, e, i)),
        };
        records.push(Record {
            attributes: raw.attributes,
            timestamp_delta: raw.timestamp_delta,
            offset_delta: raw.offset_delta,
            key: raw.key.map(|(s, e)| src.slice(start + s..start + e)),
            value: raw.value.map(|(s, e)| src.slice(start + s..start + e)),
            headers,
        });
    }
    if pos != b.len() {
        let e = RecordsError::invalid(
            format!(
                "{} bytes after the last of the batch's {count} records",
                b.len() - pos
            ),
            pos,
        );
        return Err(fail(&mut crc, e, count));
    }
    if let Some(c) = crc.as_mut() {
        c.finish(b)?;
    }
    Ok(records)
}

impl RecordBatch {
    /// The codec of the attributes (ids 5-7, which decoding refuses, read as
    /// [`Compression::None`]).
    pub fn compression(&self) -> Compression {
        self.header.attributes.compression().unwrap_or_default()
    }

    /// The record's offset: `base_offset + offset_delta`.
    pub fn offset_of(&self, r: &Record) -> i64 {
        self.header.base_offset.wrapping_add(r.offset_delta as i64)
    }

    /// The record's timestamp, ms: `max_timestamp` when the batch has LogAppendTime, otherwise
    /// `base_timestamp + timestamp_delta` (Kafka's `DefaultRecordBatch` record iterator).
    pub fn timestamp_of(&self, r: &Record) -> i64 {
        match self.header.attributes.timestamp_type() {
            TimestampType::LogAppendTime => self.header.max_timestamp,
            TimestampType::CreateTime => self.header.base_timestamp.wrapping_add(r.timestamp_delta),
        }
    }

    /// The control record `r` holds when the batch is a control batch (attribute bit 5), else
    /// `None`.
    ///
    /// # Errors
    /// Inside the `Some`: see [`ControlRecord::parse`]; a null key is
    /// [`RecordsErrorKind::Invalid`].
    pub fn control_record(&self, r: &Record) -> Option<Result<ControlRecord, RecordsError>> {
        if !self.header.attributes.is_control() {
            return None;
        }
        Some(match &r.key {
            None => Err(RecordsError::invalid("control record with a null key", 0)),
            Some(k) => ControlRecord::parse(k, r.value.as_deref()),
        })
    }

    /// Writes the batch as RecordBatch v2: the header's fields as they are except
    /// `batch_length`, `record_count` (the number of records) and the CRC-32C, which are
    /// computed; records compressed with the codec of the attributes. Uncompressed, the output
    /// is one allocation of the exact size.
    ///
    /// # Errors
    /// [`RecordsErrorKind::Invalid`] for magic other than 2, more than `i32::MAX` records or a
    /// batch above `i32::MAX` bytes; [`RecordsErrorKind::UnknownCompression`]; the compression
    /// errors of [`compression::compress`](super::compression::compress).
    pub fn encode(&self) -> Result<Bytes, RecordsError> {
        if self.header.magic != 2 {
            return Err(RecordsError::invalid(
                format!(
                    "encode writes magic 2 only, not magic {}",
                    self.header.magic
                ),
                16,
            ));
        }
        let codec = self
            .header
            .attributes
            .compression()
            .map_err(|id| RecordsError::new(RecordsErrorKind::UnknownCompression(id), 21))?;
        let count = i32::try_from(self.records.len())
            .map_err(|_| RecordsError::invalid("more than i32::MAX records", 57))?;
        let mut sizes = 0usize;
        for (i, r) in self.records.iter().enumerate() {
            let n = record_len(r).map_err(|e| e.in_record(i))?;
            sizes = sizes.saturating_add(n);
        }
        let mut header = self.header;
        header.record_count = count;
        let mut out;
        if codec == Compression::None {
            out = Vec::with_capacity(BatchHeader::SIZE + sizes);
            out.resize(BatchHeader::SIZE, 0);
            self.write_records(&mut out)?;
        } else {
            let mut scratch = Vec::with_capacity(sizes);
            self.write_records(&mut scratch)?;
            out = Vec::with_capacity(BatchHeader::SIZE + sizes / 2 + 64);
            out.resize(BatchHeader::SIZE, 0);
            super::compression::compress(codec, &scratch, &mut out)?;
        }
        if out.len() - 12 > i32::MAX as usize {
            return Err(RecordsError::invalid("batch above i32::MAX bytes", 8));
        }
        header.write_to(&mut out);
        seal_batch(&mut out);
        Ok(Bytes::from(out))
    }

    fn write_records(&self, out: &mut Vec<u8>) -> Result<(), RecordsError> {
        for (i, r) in self.records.iter().enumerate() {
            let body = record_body_len(
                r.timestamp_delta,
                r.offset_delta,
                r.key.as_deref(),
                r.value.as_deref(),
                r.headers.iter().map(|h| (&h.key[..], h.value.as_deref())),
            )
            .map_err(|e| e.in_record(i))?;
            write_record(
                out,
                body,
                r.attributes,
                r.timestamp_delta,
                r.offset_delta,
                r.key.as_deref(),
                r.value.as_deref(),
                r.headers.len(),
                r.headers.iter().map(|h| (&h.key[..], h.value.as_deref())),
            );
        }
        Ok(())
    }
}

/// Bytes of a record on the wire, length prefix included.
fn record_len(r: &Record) -> Result<usize, RecordsError> {
    let body = record_body_len(
        r.timestamp_delta,
        r.offset_delta,
        r.key.as_deref(),
        r.value.as_deref(),
        r.headers.iter().map(|h| (&h.key[..], h.value.as_deref())),
    )?;
    Ok(super::codec::varint_len(body as i32) + body)
}
