//! [`BatchBuilder`]: writes one RecordBatch v2 for a producer (Kafka's `MemoryRecordsBuilder`).

use bytes::Bytes;

use super::attributes::{Attributes, Compression, TimestampType};
use super::batch::{seal_batch, BatchHeader};
use super::codec::{header_pairs_len, record_body_len, write_header_pairs, write_record};
use super::error::RecordsError;

/// Builds one RecordBatch v2 (magic 2): append records, then [`build`](Self::build) the bytes,
/// with `batch_length` and the CRC-32C filled in, ready for a ProduceRequest's `records`.
///
/// Record `i` gets offset delta `i`; `base_timestamp` is the first record's timestamp and
/// `max_timestamp` the largest. Uncompressed, records are written straight into the output
/// after a 61-byte header placeholder, and `build` fills the header in place: one allocation
/// when [`with_capacity`](Self::with_capacity) was given enough bytes. Compressed, records go
/// to a scratch buffer which `build` compresses behind the header.
///
/// With [`TimestampType::LogAppendTime`] only the attribute bit is set; pass the append time as
/// every record's timestamp (as Kafka's broker does when it rewrites a batch).
///
/// ```
/// use kwire_protocol::records::{BatchBuilder, Compression, DecodeOptions, RecordSet};
///
/// let mut b = BatchBuilder::new(Compression::None).producer(42, 0, 0);
/// b.append(1_700_000_000_000, Some(b"k"), Some(b"v"), &[(b"h", None)])?;
/// b.append(1_700_000_000_005, None, Some(b"w"), &[])?;
/// let bytes = b.build()?;
/// let set = RecordSet::decode(&bytes, &DecodeOptions::default())?;
/// let batch = &set.batches[0];
/// assert_eq!((batch.header.record_count, batch.header.last_offset_delta), (2, 1));
/// assert_eq!(batch.timestamp_of(&batch.records[1]), 1_700_000_000_005);
/// # Ok::<(), kwire_protocol::records::RecordsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct BatchBuilder {
    compression: Compression,
    /// Uncompressed: the 61-byte placeholder and the records; compressed: the records.
    buf: Vec<u8>,
    count: usize,
    base_timestamp: i64,
    max_timestamp: i64,
    base_offset: i64,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    transactional: bool,
    control: bool,
    partition_leader_epoch: i32,
    timestamp_type: TimestampType,
    /// The broker's append time (ms) stamped as max timestamp, for LogAppendTime.
    log_append_time: Option<i64>,
    /// The delete horizon (ms), the base timestamp with attribute bit 6 (KIP-534).
    delete_horizon: Option<i64>,
    /// Set when the delete horizon came after the first record (whose delta it would change).
    horizon_too_late: bool,
    /// Offset delta of the last record appended (-1 before the first).
    last_offset_delta: i32,
}

impl BatchBuilder {
    /// A builder for a batch compressed with `compression`.
    pub fn new(compression: Compression) -> Self {
        Self::with_capacity(compression, 0)
    }

    /// A builder whose buffer holds `bytes` bytes before growing (for an uncompressed batch:
    /// the whole batch, header included; given exactly, the batch is one allocation, otherwise
    /// [`Bytes`] adds a small shared header for the spare capacity).
    pub fn with_capacity(compression: Compression, bytes: usize) -> Self {
        let buf = if compression == Compression::None {
            let mut v = Vec::with_capacity(bytes.max(BatchHeader::SIZE));
            v.resize(BatchHeader::SIZE, 0);
            v
        } else {
            Vec::with_capacity(bytes)
        };
        BatchBuilder {
            compression,
            buf,
            count: 0,
            base_timestamp: -1,
            max_timestamp: -1,
            base_offset: 0,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            transactional: false,
            control: false,
            partition_leader_epoch: -1,
            timestamp_type: TimestampType::CreateTime,
            log_append_time: None,
            delete_horizon: None,
            horizon_too_late: false,
            last_offset_delta: -1,
        }
    }

    /// The batch's `base_offset` (default 0: the broker assigns offsets).
    pub fn base_offset(mut self, o: i64) -> Self {
        self.base_offset = o;
        self
    }

    /// Producer id, epoch and the sequence of the first record (idempotent and transactional
    /// producers, KIP-98; default -1, -1, -1).
    pub fn producer(mut self, id: i64, epoch: i16, base_sequence: i32) -> Self {
        self.producer_id = id;
        self.producer_epoch = epoch;
        self.base_sequence = base_sequence;
        self
    }

    /// Sets attribute bit 4: the batch belongs to a transaction.
    pub fn transactional(mut self, yes: bool) -> Self {
        self.transactional = yes;
        self
    }

    /// Sets attribute bit 5: the batch holds control records (see
    /// [`ControlRecord::encode`](super::ControlRecord::encode)).
    pub fn control(mut self, yes: bool) -> Self {
        self.control = yes;
        self
    }

    /// The `partition_leader_epoch` field (default -1; a broker stamps it).
    pub fn partition_leader_epoch(mut self, e: i32) -> Self {
        self.partition_leader_epoch = e;
        self
    }

    /// Attribute bit 3 (default [`TimestampType::CreateTime`]).
    pub fn timestamp_type(mut self, t: TimestampType) -> Self {
        self.timestamp_type = t;
        self
    }

    /// A batch as a broker writes it with `message.timestamp.type=LogAppendTime`: attribute bit 3
    /// set and `append_time_ms` as the batch's max timestamp, the records keeping their own
    /// timestamps (as Kafka's `MemoryRecordsBuilder` with a log append time does).
    pub fn log_append_time(mut self, append_time_ms: i64) -> Self {
        self.timestamp_type = TimestampType::LogAppendTime;
        self.log_append_time = Some(append_time_ms);
        self
    }

    /// A batch as the log cleaner rewrites it (KIP-534): attribute bit 6 set and `horizon_ms` as
    /// the base timestamp, from which the records' timestamp deltas count. Set it before the
    /// first [`append`](Self::append); set later, [`build`](Self::build) refuses the batch.
    pub fn delete_horizon(mut self, horizon_ms: i64) -> Self {
        self.horizon_too_late |= self.count > 0;
        self.delete_horizon = Some(horizon_ms);
        self
    }

    /// Appends a record with timestamp `timestamp_ms` (ms), nullable key and value, and headers
    /// in order (duplicate keys and null values are written as given). Its offset delta is its
    /// index.
    ///
    /// # Errors
    /// [`RecordsErrorKind::Invalid`](super::RecordsErrorKind::Invalid), the builder unchanged,
    /// when the batch already holds `i32::MAX` records, the timestamp's delta to the first
    /// record's overflows int64, or a field or the record exceeds int32 bytes.
    pub fn append(
        &mut self,
        timestamp_ms: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[(&[u8], Option<&[u8]>)],
    ) -> Result<(), RecordsError> {
        let next = self.last_offset_delta.checked_add(1).ok_or_else(|| {
            RecordsError::invalid("a batch holds at most i32::MAX records", 0).in_record(self.count)
        })?;
        self.append_at(next, timestamp_ms, key, value, headers)
    }

    /// Appends a record at `offset_delta` from the base offset, leaving a gap after the previous
    /// record, as a compacted batch has (Kafka's `MemoryRecordsBuilder.appendWithOffset`).
    ///
    /// # Errors
    /// As [`append`](Self::append), and [`RecordsErrorKind::Invalid`](super::RecordsErrorKind)
    /// when `offset_delta` is not above the previous record's (or negative for the first).
    pub fn append_at(
        &mut self,
        offset_delta: i32,
        timestamp_ms: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[(&[u8], Option<&[u8]>)],
    ) -> Result<(), RecordsError> {
        if offset_delta <= self.last_offset_delta {
            return Err(RecordsError::invalid(
                format!(
                    "offset delta {offset_delta} is not above the previous record's ({})",
                    self.last_offset_delta
                ),
                0,
            )
            .in_record(self.count));
        }
        if self.count >= i32::MAX as usize {
            return Err(
                RecordsError::invalid("a batch holds at most i32::MAX records", 0)
                    .in_record(self.count),
            );
        }
        let base = match (self.delete_horizon, self.count) {
            (Some(horizon), _) => horizon,
            (None, 0) => timestamp_ms,
            (None, _) => self.base_timestamp,
        };
        let delta = timestamp_ms.checked_sub(base).ok_or_else(|| {
            RecordsError::invalid(
                format!("timestamp {timestamp_ms} ms: its delta to the base timestamp {base} overflows int64"),
                0,
            )
            .in_record(self.count)
        })?;
        let body = header_pairs_len(headers.iter().copied())
            .and_then(|(count, len)| record_body_len(delta, offset_delta, key, value, count, len))
            .map_err(|e| e.in_record(self.count))?;
        write_record(
            &mut self.buf,
            body,
            0,
            delta,
            offset_delta,
            key,
            value,
            headers.len(),
            |out| write_header_pairs(out, headers.iter().copied()),
        );
        if self.count == 0 {
            self.base_timestamp = base;
            self.max_timestamp = timestamp_ms;
        } else {
            self.max_timestamp = self.max_timestamp.max(timestamp_ms);
        }
        self.count += 1;
        self.last_offset_delta = offset_delta;
        Ok(())
    }

    /// Records appended so far.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no record was appended yet.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes written so far (uncompressed: header placeholder and records).
    pub fn written_bytes(&self) -> usize {
        self.buf.len()
    }

    /// The finished batch: header filled in, records compressed when asked, CRC-32C computed.
    ///
    /// # Errors
    /// [`RecordsErrorKind::Invalid`](super::RecordsErrorKind::Invalid) for an empty builder
    /// (Kafka never writes a batch without records) or a batch above `i32::MAX` bytes; the
    /// errors of [`compression::compress`](super::compression::compress).
    pub fn build(self) -> Result<Bytes, RecordsError> {
        if self.count == 0 {
            return Err(RecordsError::invalid(
                "empty batch: Kafka never writes a batch without records",
                0,
            ));
        }
        if self.horizon_too_late {
            return Err(RecordsError::invalid(
                "the delete horizon was set after records were appended (their timestamp deltas count from it)",
                0,
            ));
        }
        let mut attributes = Attributes::new(
            self.compression,
            self.timestamp_type,
            self.transactional,
            self.control,
        );
        if self.delete_horizon.is_some() {
            attributes.0 |= Attributes::DELETE_HORIZON;
        }
        let header = BatchHeader {
            base_offset: self.base_offset,
            batch_length: 0,
            partition_leader_epoch: self.partition_leader_epoch,
            magic: 2,
            crc: 0,
            attributes,
            last_offset_delta: self.last_offset_delta,
            base_timestamp: self.base_timestamp,
            max_timestamp: self.log_append_time.unwrap_or(self.max_timestamp),
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            base_sequence: self.base_sequence,
            record_count: self.count as i32,
        };
        let mut out = if self.compression == Compression::None {
            self.buf
        } else {
            let mut out = Vec::with_capacity(BatchHeader::SIZE + self.buf.len() / 2 + 64);
            out.resize(BatchHeader::SIZE, 0);
            super::compression::compress(self.compression, &self.buf, &mut out)?;
            out
        };
        if out.len() - 12 > i32::MAX as usize {
            return Err(RecordsError::invalid("batch above i32::MAX bytes", 8));
        }
        header.write_to(&mut out);
        seal_batch(&mut out);
        Ok(Bytes::from(out))
    }
}
