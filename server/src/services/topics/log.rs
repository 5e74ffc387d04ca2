//! A partition's log: RecordBatch v2 batches in offset order, as the producer sent them, with
//! the base offset and partition leader epoch rewritten; its log start offset, high watermark,
//! and the state of its idempotent producers ([`crate::services::producers`]).

use bytes::{Bytes, BytesMut};
use kwire_protocol::records::{crc32c, Compression, DecodeOptions, RecordSetRef};

use super::batch::{check_batch, BatchError, ProducerBatch};
use crate::services::producers::{ProducerEntry, ProducerStates, SequenceCheck};

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
    #[cfg(test)]
    pub fn size_bytes(&self) -> usize {
        self.bytes
    }

    /// The batches.
    #[cfg(test)]
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
    #[cfg(test)]
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
