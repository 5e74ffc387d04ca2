//! The in-memory topic table and partition logs.
//!
//! A partition log is a list of RecordBatch v2 (magic 2) batches as the producer sent them, with
//! the base offset (bytes 0..8) and partition leader epoch (bytes 12..16) rewritten by the server.
//! Both fields lie before the CRC-32C, which covers the batch from the attributes field (byte 21)
//! on, so rewriting them keeps the batch valid. Records are kept in memory only: a log starts
//! empty at its log start offset (0, or after a restart with `--data` the end offset the partition
//! had, so that offsets are never reused), DeleteRecords moves the log start offset up (dropping
//! the batches wholly below it), and the high watermark, the
//! last stable offset and the next offset are one number. Each partition also holds the state of
//! its idempotent producers ([`crate::producers`]), which lives and dies with its records.

use std::collections::{BTreeMap, HashMap};

use bytes::{Bytes, BytesMut};
use kwire_protocol::coordinator::TopicMetadata;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::wire::Uuid;

use kwire_protocol::records::{
    BatchHeader, Compression, DecodeOptions, RecordSetRef, RecordsError, RecordsErrorKind,
    TimestampType,
};

use crate::producers::{ProducerBatch, ProducerEntry, ProducerStates, SequenceCheck};
use crate::util::crc32c;

/// The most partitions a topic may have (`--topic`, CreateTopics, streams internal topics).
pub const MAX_PARTITIONS: i32 = 100_000;

/// Size of a RecordBatch v2 header (Kafka's `RECORD_BATCH_OVERHEAD`).
pub const BATCH_HEADER_LEN: usize = 61;

/// One batch of a partition log.
#[derive(Debug, Clone)]
pub struct StoredBatch {
    /// First offset of the batch.
    pub base_offset: i64,
    /// Last offset of the batch (base + lastOffsetDelta).
    pub last_offset: i64,
    /// The batch's MaxTimestamp field.
    pub max_timestamp: i64,
    /// The whole batch, offsets rewritten.
    pub data: Bytes,
}

/// A partition's log: batches in offset order.
#[derive(Debug, Default, Clone)]
pub struct PartitionLog {
    batches: Vec<StoredBatch>,
    log_start: i64,
    /// (timestamp, offset) of the record with the largest timestamp among the batches
    /// DeleteRecords dropped: ListOffsets MAX_TIMESTAMP still finds it, as Kafka's does while the
    /// record's segment exists (its active segment is never deleted).
    deleted_max_timestamp: Option<(i64, i64)>,
    next_offset: i64,
    bytes: usize,
    producers: ProducerStates,
}

/// Where a [`PartitionLog`] stood before an append, to undo it ([`PartitionLog::truncate_to`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogMark {
    batches: usize,
    next_offset: i64,
    bytes: usize,
}

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

/// What [`PartitionLog::append`] did with a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// Offset of the batch's first record: where it was stored, or, for a duplicate, where the
    /// original was stored.
    pub base_offset: i64,
    /// A duplicate of one of its producer's last batches (nothing was stored).
    pub duplicate: bool,
    /// The batch's producer fields, when it has a producer.
    pub producer: Option<ProducerBatch>,
    /// The LogAppendTime to answer (ms): -1 (the topics use CreateTime), or for a duplicate the
    /// original batch's MaxTimestamp, as Kafka answers.
    pub log_append_time: i64,
    /// How to undo the producer-state change of an appended idempotent batch
    /// ([`PartitionLog::undo_producer`]): the producer id and its previous state.
    pub undo: Option<(i64, Option<ProducerEntry>)>,
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
    let h = *batch.header();
    if h.magic != 2 {
        return Err(batch_error(
            ErrorCode::InvalidRecord,
            format!("record batch magic {}: only magic 2 is accepted", h.magic),
        ));
    }
    if batch.bytes().len() != records.len() {
        return Err(batch_error(ErrorCode::InvalidRecord,
            format!(
                "Produce requests v3+ must hold exactly one whole record batch (batch length {}, {} bytes given)",
                h.batch_length,
                records.len()
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
                producer: producer_of(&h),
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
        producer: producer_of(&h),
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

impl PartitionLog {
    /// An empty log whose first offset will be `offset` (the log start offset and high
    /// watermark until something is appended).
    pub fn starting_at(offset: i64) -> Self {
        PartitionLog {
            batches: Vec::new(),
            log_start: offset,
            deleted_max_timestamp: None,
            next_offset: offset,
            bytes: 0,
            producers: ProducerStates::default(),
        }
    }

    /// The next offset to assign: the high watermark and last stable offset.
    pub fn high_watermark(&self) -> i64 {
        self.next_offset
    }

    /// The first offset of the log (earlier offsets are out of range).
    pub fn log_start_offset(&self) -> i64 {
        self.log_start
    }

    /// Moves the log start offset up to `offset`, as Kafka's `UnifiedLog.maybeIncrementLogStartOffset`
    /// does for DeleteRecords: offsets below it become out of range for Fetch, ListOffsets
    /// EARLIEST (-2) answers it, and the batches that lie wholly below it are dropped (Kafka
    /// deletes such segments at its next retention check). A batch holding the new log start
    /// offset is kept whole: a fetch from there returns it, as Kafka returns the batch that holds
    /// the fetch offset. An `offset` at or below the current log start offset changes nothing.
    /// The caller checks `offset <= high watermark` (Kafka's OFFSET_OUT_OF_RANGE).
    ///
    /// Returns the log start offset afterwards (Kafka's low watermark).
    pub fn delete_records_before(&mut self, offset: i64) -> i64 {
        let offset = offset.min(self.next_offset);
        if offset > self.log_start {
            self.log_start = offset;
            let gone = self.batches.partition_point(|b| b.last_offset < offset);
            if let Some((ts, o)) = max_timestamp_of(&self.batches[..gone]) {
                if self.deleted_max_timestamp.is_none_or(|(t, _)| ts > t) {
                    self.deleted_max_timestamp = Some((ts, o));
                }
            }
            let freed: usize = self.batches[..gone].iter().map(|b| b.data.len()).sum();
            self.batches.drain(..gone);
            self.bytes -= freed;
        }
        self.log_start
    }

    /// Where the log stands now (for [`PartitionLog::truncate_to`]).
    pub fn mark(&self) -> LogMark {
        LogMark {
            batches: self.batches.len(),
            next_offset: self.next_offset,
            bytes: self.bytes,
        }
    }

    /// Undoes the appends made since `mark` was taken.
    pub fn truncate_to(&mut self, mark: LogMark) {
        self.batches.truncate(mark.batches);
        self.next_offset = mark.next_offset;
        self.bytes = mark.bytes;
    }

    /// Bytes held by the log.
    pub fn size_bytes(&self) -> usize {
        self.bytes
    }

    /// The batches.
    pub fn batches(&self) -> &[StoredBatch] {
        &self.batches
    }

    /// Appends one record batch, as Kafka's `UnifiedLog.append`: checked by [`check_batch`]
    /// first, then, for an idempotent producer's batch, against the partition's producer state
    /// ([`ProducerStates::check`], after forgetting producers idle for a day at `now`, ms):
    /// a duplicate of one of the producer's last five batches is
    /// answered with the original base offset and not stored again. A stored batch gets its base
    /// offset rewritten to the next offset and its partition leader epoch to 0 (both lie outside
    /// the CRC, so the bytes served to consumers are otherwise the producer's).
    ///
    /// # Errors
    /// As [`check_batch`]; INVALID_PRODUCER_EPOCH or OUT_OF_ORDER_SEQUENCE_NUMBER from the
    /// producer state.
    pub fn append(
        &mut self,
        records: &[u8],
        max_decompressed_bytes: usize,
        now: i64,
    ) -> Result<Appended, BatchError> {
        let info = check_batch(records, max_decompressed_bytes)?;
        self.producers.expire(now);
        let base = self.next_offset;
        if let Some(p) = &info.producer {
            if let SequenceCheck::Duplicate(d) = self.producers.check(p, base)? {
                return Ok(Appended {
                    base_offset: d.first_offset,
                    duplicate: true,
                    producer: info.producer,
                    log_append_time: d.timestamp,
                    undo: None,
                });
            }
        }
        let mut data = BytesMut::from(records);
        data[0..8].copy_from_slice(&base.to_be_bytes());
        data[12..16].copy_from_slice(&0i32.to_be_bytes());
        if let Some((attributes, max_timestamp)) = info.rewrite {
            data[21..23].copy_from_slice(&attributes.to_be_bytes());
            data[35..43].copy_from_slice(&max_timestamp.to_be_bytes());
            let crc = crc32c(&data[21..]);
            data[17..21].copy_from_slice(&crc.to_be_bytes());
        }
        let last = base + i64::from(info.last_offset_delta);
        self.bytes += data.len();
        self.batches.push(StoredBatch {
            base_offset: base,
            last_offset: last,
            max_timestamp: info.max_timestamp,
            data: data.freeze(),
        });
        self.next_offset = last + 1;
        let undo = info.producer.map(|p| {
            let previous = self.producers.record(&p, base, last, info.max_timestamp);
            (p.producer_id, previous)
        });
        Ok(Appended {
            base_offset: base,
            duplicate: false,
            producer: info.producer,
            log_append_time: -1,
            undo,
        })
    }

    /// Puts a producer's state back as it was before an append (the `undo` of [`Appended`]),
    /// together with [`PartitionLog::truncate_to`], when the append could not be made durable.
    pub fn undo_producer(&mut self, producer_id: i64, previous: Option<ProducerEntry>) {
        self.producers.restore(producer_id, previous);
    }

    /// The partition's idempotent producers.
    pub fn producers(&self) -> &ProducerStates {
        &self.producers
    }

    /// Whole batches from the one holding `offset` on, while the total stays within
    /// `max_bytes`; with `at_least_one`, the first batch even if it alone is larger (KIP-74).
    /// Empty at the end of the log.
    pub fn read(&self, offset: i64, max_bytes: usize, at_least_one: bool) -> Bytes {
        let start = self.batches.partition_point(|b| b.last_offset < offset);
        let mut end = start;
        let mut total = 0usize;
        while let Some(b) = self.batches.get(end) {
            if total + b.data.len() > max_bytes && !(at_least_one && end == start) {
                break;
            }
            total += b.data.len();
            end += 1;
        }
        match end - start {
            0 => Bytes::new(),
            1 => self.batches[start].data.clone(),
            _ => {
                let mut out = BytesMut::with_capacity(total);
                for b in &self.batches[start..end] {
                    out.extend_from_slice(&b.data);
                }
                out.freeze()
            }
        }
    }

    /// ListOffsets by timestamp: the first record whose timestamp is at least `ts` and that
    /// timestamp (read inside the batch, compressed or not; the batch's base offset and max
    /// timestamp when it cannot be read); `None` when no record is that late.
    ///
    /// Records below the log start offset ([`PartitionLog::delete_records_before`]) are skipped,
    /// as Kafka's `LogSegment.findOffsetByTimestamp` starts at the log start offset.
    pub fn offset_for_timestamp(&self, ts: i64) -> Option<(i64, i64)> {
        let start = self.log_start;
        for b in self
            .batches
            .iter()
            .filter(|b| b.max_timestamp >= ts && b.last_offset >= start)
        {
            if b.base_offset >= start {
                return Some(match record_at_or_after(b, |t, _| t >= ts) {
                    Some((t, o)) => (o, t),
                    None => (b.base_offset, b.max_timestamp),
                });
            }
            if let Some((t, o)) = record_at_or_after(b, |t, o| t >= ts && o >= start) {
                return Some((o, t));
            }
        }
        None
    }

    /// ListOffsets MAX_TIMESTAMP (-3): the first record with the largest timestamp and that
    /// timestamp; `None` for a log that never held a record. As in Kafka, records below the log
    /// start offset count (Kafka reads the segments' largest timestamps, and DeleteRecords does
    /// not remove the active segment).
    pub fn max_timestamp(&self) -> Option<(i64, i64)> {
        let kept = max_timestamp_of(&self.batches);
        let best = match (self.deleted_max_timestamp, kept) {
            (Some(d), Some(k)) => Some(if k.0 > d.0 { k } else { d }),
            (d, k) => d.or(k),
        };
        best.map(|(t, o)| (o, t))
    }
}

/// (timestamp, offset) of the first record with the largest timestamp in `batches`.
fn max_timestamp_of(batches: &[StoredBatch]) -> Option<(i64, i64)> {
    let mut best: Option<&StoredBatch> = None;
    for b in batches {
        if best.is_none_or(|x| b.max_timestamp > x.max_timestamp) {
            best = Some(b);
        }
    }
    let b = best?;
    let max = b.max_timestamp;
    Some(record_at_or_after(b, |t, _| t == max).unwrap_or((max, b.last_offset)))
}

/// The (timestamp, offset) of the first record of a batch whose (timestamp, offset) satisfies `pred`
/// (a compressed batch is decompressed, within [`DecodeOptions`]' default limit, as Kafka's
/// `LogSegment.findOffsetByTimestamp` reads inside batches); `None` for no match or a batch that
/// cannot be read.
fn record_at_or_after(b: &StoredBatch, pred: impl Fn(i64, i64) -> bool) -> Option<(i64, i64)> {
    let batch = RecordSetRef::new(&b.data).batches().next()?.ok()?;
    let h = batch.header();
    let mut buf = Vec::new();
    let records = match batch.compression().ok()? {
        Compression::None => batch.records().ok()?,
        _ => batch.decompress(&DecodeOptions::default(), &mut buf).ok()?,
    };
    for r in records {
        let r = r.ok()?;
        let ts = h.base_timestamp.wrapping_add(r.timestamp_delta);
        let offset = h.base_offset + i64::from(r.offset_delta);
        if pred(ts, offset) {
            return Some((ts, offset));
        }
    }
    None
}

/// One topic.
#[derive(Debug, Clone)]
pub struct Topic {
    /// The name.
    pub name: String,
    /// The topic id (stable for the topic's life).
    pub id: Uuid,
    /// One log per partition.
    pub partitions: Vec<PartitionLog>,
    /// Topic configs given at creation.
    pub configs: Vec<(String, String)>,
}

impl Topic {
    /// A partition's log, if the index is in range.
    pub fn partition(&self, index: i32) -> Option<&PartitionLog> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.partitions.get(i))
    }

    /// A partition's log, mutably.
    pub fn partition_mut(&mut self, index: i32) -> Option<&mut PartitionLog> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.partitions.get_mut(i))
    }
}

/// Every topic, by name and by id.
#[derive(Debug, Default)]
pub struct TopicTable {
    by_name: BTreeMap<String, Topic>,
    by_id: HashMap<Uuid, String>,
}

/// Kafka's topic-name rule: 1-249 characters of `[a-zA-Z0-9._-]`, not `.` or `..`.
pub fn valid_topic_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Topic name is illegal, it can't be empty".into());
    }
    if name == "." || name == ".." {
        return Err("Topic name cannot be \".\" or \"..\"".into());
    }
    if name.len() > 249 {
        return Err(format!(
            "Topic name is illegal, it can't be longer than 249 characters, topic name: {name}"
        ));
    }
    if !name
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || c == b'-')
    {
        return Err(format!("Topic name {name} is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"));
    }
    Ok(())
}

/// A topic name with every '.' replaced by '_': two names with the same key collide.
pub fn collision_key(name: &str) -> String {
    name.replace('.', "_")
}

impl TopicTable {
    /// Adds a topic (the caller checked that the name is free and the id unused).
    pub fn insert(
        &mut self,
        name: &str,
        id: Uuid,
        partitions: i32,
        configs: Vec<(String, String)>,
    ) -> &Topic {
        let n = usize::try_from(partitions.max(0)).unwrap_or(0);
        self.by_id.insert(id, name.to_string());
        self.by_name.insert(
            name.to_string(),
            Topic {
                name: name.to_string(),
                id,
                partitions: vec![PartitionLog::default(); n],
                configs,
            },
        );
        &self.by_name[name]
    }

    /// The topic named `name`.
    pub fn get(&self, name: &str) -> Option<&Topic> {
        self.by_name.get(name)
    }

    /// The topic named `name`, mutably.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Topic> {
        self.by_name.get_mut(name)
    }

    /// The topic with id `id`.
    pub fn by_id(&self, id: &Uuid) -> Option<&Topic> {
        self.by_id.get(id).and_then(|n| self.by_name.get(n))
    }

    /// An existing topic whose name differs from `name` only in '.' versus '_' (Kafka refuses
    /// such names: its metric names cannot tell them apart).
    pub fn colliding(&self, name: &str) -> Option<&str> {
        let key = collision_key(name);
        self.by_name
            .keys()
            .find(|n| n.as_str() != name && collision_key(n) == key)
            .map(String::as_str)
    }

    /// Whether an id is taken.
    pub fn id_taken(&self, id: &Uuid) -> bool {
        self.by_id.contains_key(id)
    }

    /// Every topic, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Topic> {
        self.by_name.values()
    }

    /// Number of topics.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether there is no topic.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The coordinator's view of the topics (id, name, partition count).
    pub fn metadata(&self) -> Vec<TopicMetadata> {
        self.by_name
            .values()
            .map(|t| TopicMetadata::new(t.id, &t.name, t.partitions.len() as i32))
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The decompression limit of these tests.
    const LIMIT: usize = 1 << 20;

    fn be_i64(b: &[u8], at: usize) -> i64 {
        i64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
    }

    /// An uncompressed RecordBatch v2 holding `values` (no keys, no headers), timestamps
    /// `base_ts + i`.
    pub(crate) fn make_batch(values: &[&[u8]], base_ts: i64) -> Vec<u8> {
        fn varint(out: &mut Vec<u8>, v: i64) {
            let mut z = ((v << 1) ^ (v >> 63)) as u64;
            loop {
                if z < 0x80 {
                    out.push(z as u8);
                    break;
                }
                out.push((z as u8 & 0x7f) | 0x80);
                z >>= 7;
            }
        }
        let mut recs = Vec::new();
        for (i, v) in values.iter().enumerate() {
            let mut r = Vec::new();
            r.push(0); // attributes
            varint(&mut r, i as i64); // timestamp delta
            varint(&mut r, i as i64); // offset delta
            varint(&mut r, -1); // key: null
            varint(&mut r, v.len() as i64);
            r.extend_from_slice(v);
            varint(&mut r, 0); // headers
            varint(&mut recs, r.len() as i64);
            recs.extend_from_slice(&r);
        }
        let n = values.len() as i32;
        let mut b = Vec::new();
        b.extend_from_slice(&0i64.to_be_bytes()); // base offset
        let batch_len = (BATCH_HEADER_LEN - 12 + recs.len()) as i32;
        b.extend_from_slice(&batch_len.to_be_bytes());
        b.extend_from_slice(&(-1i32).to_be_bytes()); // partition leader epoch
        b.push(2); // magic
        b.extend_from_slice(&[0; 4]); // crc, filled below
        b.extend_from_slice(&0i16.to_be_bytes()); // attributes
        b.extend_from_slice(&(n - 1).to_be_bytes()); // last offset delta
        b.extend_from_slice(&base_ts.to_be_bytes());
        b.extend_from_slice(&(base_ts + i64::from(n) - 1).to_be_bytes());
        b.extend_from_slice(&(-1i64).to_be_bytes()); // producer id
        b.extend_from_slice(&(-1i16).to_be_bytes()); // producer epoch
        b.extend_from_slice(&(-1i32).to_be_bytes()); // base sequence
        b.extend_from_slice(&n.to_be_bytes());
        b.extend_from_slice(&recs);
        let crc = crc32c(&b[21..]);
        b[17..21].copy_from_slice(&crc.to_be_bytes());
        b
    }

    #[test]
    fn append_rewrites_offsets_and_reads_back() {
        let mut log = PartitionLog::default();
        let b1 = make_batch(&[b"a", b"b", b"c"], 1000);
        let b2 = make_batch(&[b"d"], 2000);
        assert_eq!(log.append(&b1, LIMIT, 0).map(|a| a.base_offset), Ok(0));
        assert_eq!(log.append(&b2, LIMIT, 0).map(|a| a.base_offset), Ok(3));
        assert_eq!(log.high_watermark(), 4);
        let all = log.read(0, 1 << 20, true);
        assert_eq!(all.len(), b1.len() + b2.len());
        assert_eq!(be_i64(&all, 0), 0);
        assert_eq!(be_i64(&all, b1.len()), 3);
        // The batch still checks (offset and epoch are outside the CRC) once its base offset is
        // 0 again (a producer's batch must start at 0).
        let mut second = all[b1.len()..].to_vec();
        second[0..8].copy_from_slice(&0i64.to_be_bytes());
        assert!(check_batch(&second, LIMIT).is_ok());
        // Offset 2 is inside the first batch: whole batches from there.
        assert_eq!(log.read(2, 1 << 20, true).len(), all.len());
        // At least one batch, even over the limit.
        assert_eq!(log.read(0, 1, true).len(), b1.len());
        assert_eq!(log.read(3, 1, true).len(), b2.len());
        assert!(log.read(3, 1, false).is_empty());
        assert!(log.read(4, 1 << 20, true).is_empty());
        // Timestamps.
        assert_eq!(log.offset_for_timestamp(1001), Some((1, 1001)));
        assert_eq!(log.offset_for_timestamp(1500), Some((3, 2000)));
        assert_eq!(log.offset_for_timestamp(5000), None);
        assert_eq!(log.max_timestamp(), Some((3, 2000)));
    }

    #[test]
    fn bad_batches_are_refused() {
        let good = make_batch(&[b"x"], 1);
        let mut log = PartitionLog::default();
        assert_eq!(
            log.append(&good[..30], LIMIT, 0).unwrap_err().code,
            ErrorCode::InvalidRecord
        );
        let mut two = good.clone();
        two.extend_from_slice(&good);
        assert_eq!(
            log.append(&two, LIMIT, 0).unwrap_err().code,
            ErrorCode::InvalidRecord
        );
        let mut magic = good.clone();
        magic[16] = 1;
        assert_eq!(
            log.append(&magic, LIMIT, 0).unwrap_err().code,
            ErrorCode::InvalidRecord
        );
        let mut crc = good.clone();
        let last = crc.len() - 1;
        crc[last] ^= 0xff;
        assert_eq!(
            log.append(&crc, LIMIT, 0).unwrap_err().code,
            ErrorCode::CorruptMessage
        );
        assert_eq!(log.high_watermark(), 0);
    }

    /// Rewrites a batch's CRC after a test changed it.
    fn fix_crc(b: &mut [u8]) {
        let crc = crc32c(&b[21..]);
        b[17..21].copy_from_slice(&crc.to_be_bytes());
    }

    #[test]
    fn nonsense_batches_are_refused_as_kafka_does() {
        let good = make_batch(&[b"a", b"bb", b"ccc"], 1);
        assert_eq!(
            check_batch(&good, LIMIT).map(|i| i.last_offset_delta),
            Ok(2)
        );
        let refused = |b: &[u8]| check_batch(b, LIMIT).unwrap_err();
        // Record count: negative, zero, or not lastOffsetDelta + 1.
        for count in [-1i32, 0, 2, 4, i32::MAX] {
            let mut b = good.clone();
            b[57..61].copy_from_slice(&count.to_be_bytes());
            fix_crc(&mut b);
            let e = refused(&b);
            assert_eq!(e.code, ErrorCode::InvalidRecord, "count {count}");
            assert!(e.message.contains("count"), "{}", e.message);
        }
        // lastOffsetDelta and count agree, but the records say otherwise (3 records, count 2).
        let mut b = good.clone();
        b[23..27].copy_from_slice(&1i32.to_be_bytes());
        b[57..61].copy_from_slice(&2i32.to_be_bytes());
        fix_crc(&mut b);
        let e = refused(&b);
        assert_eq!(e.code, ErrorCode::InvalidRecord);
        assert!(e.message.contains("after the last"), "{}", e.message);
        // ... or fewer records than the count (a record length reaching past the end).
        let mut b = good.clone();
        b[23..27].copy_from_slice(&3i32.to_be_bytes());
        b[57..61].copy_from_slice(&4i32.to_be_bytes());
        fix_crc(&mut b);
        assert_eq!(refused(&b).code, ErrorCode::InvalidRecord);
        // A record's varint length that does not fit in the batch.
        let mut b = good.clone();
        b[BATCH_HEADER_LEN] = 0x7e; // zigzag 63, far more than the record
        fix_crc(&mut b);
        let e = refused(&b);
        assert_eq!(e.code, ErrorCode::InvalidRecord);
        assert!(e.message.contains("record 0"), "{}", e.message);
        // A negative record length.
        let mut b = good.clone();
        b[BATCH_HEADER_LEN] = 0x01; // zigzag -1
        fix_crc(&mut b);
        assert_eq!(refused(&b).code, ErrorCode::InvalidRecord);
        // A record whose inner value length runs past the record.
        let one = make_batch(&[b"xyz"], 1);
        let mut b = one.clone();
        // record: len, attributes, ts delta, offset delta, key -1, value len 3 -> 60 (30).
        assert_eq!(b[BATCH_HEADER_LEN + 5], 6);
        b[BATCH_HEADER_LEN + 5] = 60;
        fix_crc(&mut b);
        assert_eq!(refused(&b).code, ErrorCode::InvalidRecord);
        // Compression codecs 5-7 are unknown: UNKNOWN_SERVER_ERROR (Kafka's
        // `CompressionType.forId` throws an IllegalArgumentException, which its ReplicaManager
        // answers with UNKNOWN_SERVER_ERROR).
        for codec in 5..=7i16 {
            let mut b = good.clone();
            b[21..23].copy_from_slice(&codec.to_be_bytes());
            fix_crc(&mut b);
            assert_eq!(
                refused(&b).code,
                ErrorCode::UnknownServerError,
                "codec {codec}"
            );
        }
        // A base offset other than 0: INVALID_RECORD (Kafka's UnifiedLog, for clients' v2
        // batches), though the CRC does not cover it.
        let mut b = good.clone();
        b[0..8].copy_from_slice(&5i64.to_be_bytes());
        let e = refused(&b);
        assert_eq!(e.code, ErrorCode::InvalidRecord);
        assert!(e.message.contains("baseOffset"), "{}", e.message);
        // Offset deltas must count 0, 1, 2 (kwire-server cannot renumber a batch it serves
        // unchanged): the second record's delta 1 -> 5.
        let mut b = good.clone();
        let second = BATCH_HEADER_LEN + 1 + usize::from(b[BATCH_HEADER_LEN] >> 1);
        assert_eq!(b[second + 3], 2); // len, attributes, ts delta 1, offset delta 1 (zigzag 2)
        b[second + 3] = 10;
        fix_crc(&mut b);
        let e = refused(&b);
        assert_eq!(e.code, ErrorCode::InvalidRecord);
        assert!(e.message.contains("offset delta 5"), "{}", e.message);
        // MaxTimestamp is the largest record timestamp: a wrong one is rewritten with the CRC.
        let mut b = good.clone();
        b[35..43].copy_from_slice(&99i64.to_be_bytes());
        fix_crc(&mut b);
        assert_eq!(check_batch(&b, LIMIT).map(|i| i.rewrite), Ok(Some((0, 3))));
        let mut log = PartitionLog::default();
        assert!(log.append(&b, LIMIT, 0).is_ok());
        let stored = log.read(0, 1 << 20, true);
        assert_eq!(&stored[16..], &good[16..]); // past the rewritten leader epoch
        assert_eq!(log.max_timestamp(), Some((2, 3)));
        // Transactional batches: INVALID_RECORD.
        let mut b = good.clone();
        b[21..23].copy_from_slice(&0x10i16.to_be_bytes());
        fix_crc(&mut b);
        let e = refused(&b);
        assert_eq!(e.code, ErrorCode::InvalidRecord);
        assert!(e.message.contains("transactional"), "{}", e.message);
        // Producer id, epoch and base sequence are read (their sequence is the producer state's
        // business); a producer id with a negative base sequence is INVALID_RECORD.
        let mut b = good.clone();
        b[43..51].copy_from_slice(&77i64.to_be_bytes());
        b[51..53].copy_from_slice(&3i16.to_be_bytes());
        b[53..57].copy_from_slice(&9i32.to_be_bytes());
        fix_crc(&mut b);
        let info = check_batch(&b, LIMIT).expect("idempotent batch");
        assert_eq!(
            info.producer,
            Some(ProducerBatch {
                producer_id: 77,
                epoch: 3,
                first_seq: 9,
                last_offset_delta: 2
            })
        );
        b[53..57].copy_from_slice(&(-1i32).to_be_bytes());
        fix_crc(&mut b);
        let e = refused(&b);
        assert_eq!(e.code, ErrorCode::InvalidRecord);
        assert!(e.message.contains("sequence"), "{}", e.message);
        // Records with keys and headers walk.
        let mut b = make_batch(&[b"v"], 1);
        // Replace the record with: attrs 0, ts 0, off 0, key "k", value "v", 1 header ("h", null).
        let rec: &[u8] = &[0, 0, 0, 2, b'k', 2, b'v', 2, 2, b'h', 1];
        b.truncate(BATCH_HEADER_LEN);
        b.push((rec.len() as u8) << 1);
        b.extend_from_slice(rec);
        let len = (b.len() - 12) as i32;
        b[8..12].copy_from_slice(&len.to_be_bytes());
        fix_crc(&mut b);
        assert_eq!(check_batch(&b, LIMIT).map(|i| i.last_offset_delta), Ok(0));
        let mut log = PartitionLog::default();
        assert_eq!(log.append(&b, LIMIT, 0).map(|a| a.base_offset), Ok(0));
    }

    #[test]
    fn logs_starting_at_an_offset_and_undone_appends() {
        let mut log = PartitionLog::starting_at(40);
        assert_eq!((log.log_start_offset(), log.high_watermark()), (40, 40));
        assert!(log.read(40, 1 << 20, true).is_empty());
        let mark = log.mark();
        assert_eq!(
            log.append(&make_batch(&[b"a", b"b"], 5), LIMIT, 0)
                .map(|a| a.base_offset),
            Ok(40)
        );
        assert_eq!(log.high_watermark(), 42);
        assert_eq!(be_i64(&log.read(40, 1 << 20, true), 0), 40);
        log.truncate_to(mark);
        assert_eq!((log.high_watermark(), log.size_bytes()), (40, 0));
        assert!(log.batches().is_empty());
        assert_eq!(
            log.append(&make_batch(&[b"c"], 5), LIMIT, 0)
                .map(|a| a.base_offset),
            Ok(40)
        );
    }

    #[test]
    fn colliding_names() {
        let mut t = TopicTable::default();
        t.insert("a.b", Uuid([1; 16]), 1, Vec::new());
        assert_eq!(t.colliding("a_b"), Some("a.b"));
        assert_eq!(t.colliding("a.b"), None);
        assert_eq!(t.colliding("a-b"), None);
    }

    #[test]
    fn topic_names() {
        assert!(valid_topic_name("orders.v1_x-2").is_ok());
        assert!(valid_topic_name("").is_err());
        assert!(valid_topic_name("..").is_err());
        assert!(valid_topic_name("a b").is_err());
        assert!(valid_topic_name(&"x".repeat(250)).is_err());
    }
}
