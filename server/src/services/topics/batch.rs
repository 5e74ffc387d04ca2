//! Record-batch checks: what Kafka checks in a produced batch before appending it, and the
//! producer fields of its header. The checks read the batch with [`kwire_protocol::records`].

use kwire_protocol::error::ErrorCode;
use kwire_protocol::records::{
    BatchHeader, BatchRef, Compression, DecodeOptions, RecordSetRef, RecordsError,
    RecordsErrorKind, TimestampType,
};

/// Size of a RecordBatch v2 header (Kafka's `RECORD_BATCH_OVERHEAD`).
pub const BATCH_HEADER_LEN: usize = 61;

/// What a record-batch check found wrong (a Kafka error code and a message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchError {
    /// The Kafka error code.
    pub code: ErrorCode,
    /// A human-readable reason.
    pub message: String,
}

/// Kafka's `ProduceRequest.validateRecords` rule for a Produce `version` below 7 (KIP-110):
/// zstd-compressed batches need Produce v7+.
///
/// # Errors
/// UNSUPPORTED_COMPRESSION_TYPE (76) for a zstd batch in a Produce request below v7.
pub fn check_produce_version(records: &[u8], version: i16) -> Result<(), BatchError> {
    if version < 7 && records.len() >= BATCH_HEADER_LEN && records[22] & 0x07 == 4 {
        return Err(batch_error(
            ErrorCode::UnsupportedCompressionType,
            format!("Produce requests with version {version} are not allowed to use ZStandard compression"),
        ));
    }
    Ok(())
}

/// The header fields of a checked batch that the log needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchInfo {
    /// Offset of the last record minus the first (`>= 0`).
    pub last_offset_delta: i32,
    /// The batch's MaxTimestamp (ms).
    pub max_timestamp: i64,
    /// The producer, when the batch has one (producer id `>= 0`, Kafka's `hasProducerId`).
    pub producer: Option<ProducerBatch>,
    /// The attributes and MaxTimestamp to write into the batch (then its CRC-32C again), when
    /// they differ from what the producer sent: the largest record timestamp, and CreateTime.
    pub rewrite: Option<(i16, i64)>,
}

/// The producer fields of a batch header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerBatch {
    /// Producer id (`>= 0`).
    pub producer_id: i64,
    /// Producer epoch.
    pub epoch: i16,
    /// Base sequence (`>= 0`).
    pub first_seq: i32,
    /// `lastOffsetDelta` of the batch (`>= 0`).
    pub last_offset_delta: i32,
}

impl ProducerBatch {
    /// The sequence of the batch's last record: base sequence plus `lastOffsetDelta`, wrapping
    /// past `i32::MAX` to 0 (Kafka's `DefaultRecordBatch.incrementSequence`).
    pub fn last_seq(&self) -> i32 {
        increment_sequence(self.first_seq, self.last_offset_delta)
    }
}

/// `seq + by`, wrapping from `i32::MAX` to 0 (sequences are non-negative; `by >= 0`).
pub fn increment_sequence(seq: i32, by: i32) -> i32 {
    if seq > i32::MAX - by {
        by - (i32::MAX - seq) - 1
    } else {
        seq + by
    }
}

fn batch_error(code: ErrorCode, message: impl Into<String>) -> BatchError {
    BatchError {
        code,
        message: message.into(),
    }
}

/// Maps a records-module error to Kafka's answer: CORRUPT_MESSAGE for a CRC mismatch (Kafka's
/// `CorruptRecordException`); UNKNOWN_SERVER_ERROR for an unknown codec id or bytes the codec
/// cannot decompress (Kafka fails there with an `IllegalArgumentException` or a `KafkaException`
/// "Failed to decompress record stream", which its ReplicaManager answers as an unexpected
/// error); MESSAGE_TOO_LARGE for records decompressing past the server's limit (the Java
/// producer then splits the batch); INVALID_RECORD for everything else (Kafka's
/// `InvalidRecordException`).
fn records_error(e: &RecordsError) -> BatchError {
    let code = match e.kind {
        RecordsErrorKind::CrcMismatch { .. } => ErrorCode::CorruptMessage,
        RecordsErrorKind::UnknownCompression(_) | RecordsErrorKind::Decompression(_) => {
            ErrorCode::UnknownServerError
        }
        RecordsErrorKind::DecompressedTooLarge { .. } => ErrorCode::MessageTooLarge,
        _ => ErrorCode::InvalidRecord,
    };
    batch_error(code, e.to_string())
}

/// Checks `records`, a Produce request's records for one partition, as Kafka does before
/// appending them (`ProduceRequest.validateRecords`, `UnifiedLog.analyzeAndValidateRecords`,
/// `LogValidator`), reading it with [`kwire_protocol::records`]:
///
/// * exactly one whole RecordBatch v2 (magic 2: Produce v3+ carries nothing else) — else
///   INVALID_RECORD;
/// * its CRC-32C — else CORRUPT_MESSAGE;
/// * base offset 0, a record count equal to lastOffsetDelta + 1 and above 0, not a control batch,
///   a base sequence `>= 0` when it has a producer id — else INVALID_RECORD; transactional
///   batches are INVALID_RECORD too: kwire-server has no transaction coordinator, so no
///   transaction could be begun or ended;
/// * a known codec whose records decompress within `max_decompressed_bytes` (one buffer for the
///   batch, dropped after the check; a compressed batch is stored and served as it came). A
///   codec this build of kwire-protocol left out (its cargo feature is off) cannot be looked
///   into: such a batch is stored as sent after the header checks;
/// * exactly `count` well-formed records and no bytes after them, with offset deltas 0, 1, 2, …
///   — else INVALID_RECORD. Kafka rewrites a batch whose inner offsets are off (for old
///   clients); kwire-server serves the producer's bytes unchanged, so it refuses such a batch
///   instead (every v2 client numbers records from 0);
/// * timestamps: no range is enforced (Kafka's defaults of `message.timestamp.before.max.ms` and
///   `message.timestamp.after.max.ms` are unlimited). The batch's MaxTimestamp becomes the
///   largest record timestamp and its timestamp type CreateTime (topics are CreateTime), as
///   Kafka's `setMaxTimestamp` does: [`BatchInfo::rewrite`] says when the bytes must change. A
///   LogAppendTime batch whose MaxTimestamp is -1 is INVALID_TIMESTAMP.
///
/// Returns the header fields the log needs.
///
/// # Errors
/// The codes above, with a message saying where (byte offset, record index).
pub fn check_batch(records: &[u8], max_decompressed_bytes: usize) -> Result<BatchInfo, BatchError> {
    let mut batches = RecordSetRef::new(records).batches();
    let batch = match batches.next() {
        Some(Ok(b)) => b,
        Some(Err(e)) => return Err(records_error(&e)),
        None => {
            return Err(batch_error(
                ErrorCode::InvalidRecord,
                format!(
                    "Produce requests v3+ must hold exactly one whole record batch ({} bytes given, less than one batch)",
                    records.len()
                ),
            ))
        }
    };
    let (h, codec) = check_header(&batch, records.len())?;
    check_records(&batch, &h, codec, max_decompressed_bytes)
}

/// The header checks of [`check_batch`]: magic, one whole batch, CRC, base offset, codec,
/// control and transactional flags, counts, sequence, timestamp type. Returns the header and
/// its codec.
fn check_header(
    batch: &BatchRef<'_>,
    given: usize,
) -> Result<(BatchHeader, Compression), BatchError> {
    let h = *batch.header();
    if h.magic != 2 {
        return Err(batch_error(
            ErrorCode::InvalidRecord,
            format!("record batch magic {}: only magic 2 is accepted", h.magic),
        ));
    }
    if batch.bytes().len() != given {
        return Err(batch_error(ErrorCode::InvalidRecord,
            format!(
                "Produce requests v3+ must hold exactly one whole record batch (batch length {}, {} bytes given)",
                h.batch_length,
                given
            ),
        ));
    }
    batch.check_crc().map_err(|e| records_error(&e))?;
    if h.base_offset != 0 {
        return Err(batch_error(
            ErrorCode::InvalidRecord,
            format!(
                "The baseOffset of the record batch should be 0, but it is {}",
                h.base_offset
            ),
        ));
    }
    let codec = batch.compression().map_err(|e| records_error(&e))?;
    if h.attributes.is_control() {
        return Err(batch_error(
            ErrorCode::InvalidRecord,
            "clients may not write control batches",
        ));
    }
    if h.attributes.is_transactional() {
        return Err(batch_error(ErrorCode::InvalidRecord,
            "transactional record batches are not supported: kwire-server has no transaction coordinator",
        ));
    }
    let last_delta = h.last_offset_delta;
    if last_delta < 0 {
        return Err(batch_error(
            ErrorCode::InvalidRecord,
            format!("negative lastOffsetDelta {last_delta}"),
        ));
    }
    let count = h.record_count;
    if count <= 0 || i64::from(count) != i64::from(last_delta) + 1 {
        return Err(batch_error(ErrorCode::InvalidRecord,
            format!(
                "record count {count} does not match lastOffsetDelta {last_delta} (count must be lastOffsetDelta + 1)"
            ),
        ));
    }
    if h.producer_id >= 0 && h.base_sequence < 0 {
        return Err(batch_error(
            ErrorCode::InvalidRecord,
            format!(
                "Invalid sequence number {} in record batch with producerId {}",
                h.base_sequence, h.producer_id
            ),
        ));
    }
    let log_append_time = h.attributes.timestamp_type() == TimestampType::LogAppendTime;
    if log_append_time && h.max_timestamp == -1 {
        return Err(batch_error(
            ErrorCode::InvalidTimestamp,
            "Invalid timestamp type: producers should not set the timestamp type to LogAppendTime",
        ));
    }
    Ok((h, codec))
}

/// The record checks of [`check_batch`] (offset deltas 0, 1, 2, …, the largest timestamp),
/// decompressing within `max_decompressed_bytes`; the [`BatchInfo`] of a batch that passes.
fn check_records(
    batch: &BatchRef<'_>,
    h: &BatchHeader,
    codec: Compression,
    max_decompressed_bytes: usize,
) -> Result<BatchInfo, BatchError> {
    let last_delta = h.last_offset_delta;
    let log_append_time = h.attributes.timestamp_type() == TimestampType::LogAppendTime;
    let opts = DecodeOptions {
        max_decompressed_bytes,
        ..DecodeOptions::default()
    };
    let mut buf = Vec::new();
    let iter = if codec == Compression::None {
        batch.records()
    } else {
        batch.decompress(&opts, &mut buf)
    };
    let iter = match iter {
        Ok(iter) => iter,
        Err(e) if matches!(e.kind, RecordsErrorKind::CompressionUnsupported(_)) => {
            // A codec left out of this build (kwire-protocol's cargo features): the records
            // cannot be looked at, so the batch is stored as sent, its header checked.
            return Ok(BatchInfo {
                last_offset_delta: last_delta,
                max_timestamp: h.max_timestamp,
                producer: producer_of(h),
                rewrite: None,
            });
        }
        Err(e) => return Err(records_error(&e)),
    };
    let mut max_timestamp = i64::MIN;
    for (i, r) in iter.enumerate() {
        let r = r.map_err(|e| records_error(&e))?;
        if i64::from(r.offset_delta) != i as i64 {
            return Err(batch_error(
                ErrorCode::InvalidRecord,
                format!(
                    "record {i} has offset delta {} (records must be numbered 0, 1, 2, …)",
                    r.offset_delta
                ),
            ));
        }
        let ts = if log_append_time {
            h.max_timestamp
        } else {
            h.base_timestamp.wrapping_add(r.timestamp_delta)
        };
        max_timestamp = max_timestamp.max(ts);
    }
    let attributes = h.attributes.0 & !0x08;
    let rewrite = (attributes != h.attributes.0 || max_timestamp != h.max_timestamp)
        .then_some((attributes, max_timestamp));
    Ok(BatchInfo {
        last_offset_delta: last_delta,
        max_timestamp,
        producer: producer_of(h),
        rewrite,
    })
}

/// The producer fields of a batch header, when it has a producer (id `>= 0`).
fn producer_of(h: &BatchHeader) -> Option<ProducerBatch> {
    (h.producer_id >= 0).then_some(ProducerBatch {
        producer_id: h.producer_id,
        epoch: h.producer_epoch,
        first_seq: h.base_sequence,
        last_offset_delta: h.last_offset_delta,
    })
}
