//! Owned record sets: the types [`RecordSet::decode`] gives (their keys, values and header sections
//! share the input [`Bytes`]), and [`RecordBatch::encode`], which writes a batch back.

use bytes::Bytes;

use super::attributes::{Compression, TimestampType};
use super::batch::{seal_batch, BatchHeader};
use super::codec::{record_body_len, write_record};
use super::control::ControlRecord;
use super::error::{RecordsError, RecordsErrorKind};
use super::headers::Headers;

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
    pub headers: Headers,
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
            let body = record_body(r).map_err(|e| e.in_record(i))?;
            let section = r.headers.wire_bytes();
            write_record(
                out,
                body,
                r.attributes,
                r.timestamp_delta,
                r.offset_delta,
                r.key.as_deref(),
                r.value.as_deref(),
                r.headers.len(),
                |out| out.extend_from_slice(section),
            );
        }
        Ok(())
    }
}

/// Bytes of a record's body on the wire (after its length prefix).
fn record_body(r: &Record) -> Result<usize, RecordsError> {
    record_body_len(
        r.timestamp_delta,
        r.offset_delta,
        r.key.as_deref(),
        r.value.as_deref(),
        r.headers.len(),
        r.headers.wire_bytes().len(),
    )
}

/// Bytes of a record on the wire, length prefix included.
fn record_len(r: &Record) -> Result<usize, RecordsError> {
    let body = record_body(r)?;
    Ok(super::codec::varint_len(body as i32) + body)
}
