//! Idempotent producers without transactions: producer ids ([`ProducerIds`], what
//! InitProducerId hands out) and the per-partition producer state ([`ProducerStates`]) that
//! Produce checks every batch of an idempotent producer against.
//!
//! The rules are Kafka's (KIP-98, KIP-360), from `ProducerStateManager`, `ProducerStateEntry`,
//! `ProducerAppendInfo.checkProducerEpoch` / `checkSequence` and
//! `UnifiedLog.analyzeAndValidateProducerState`:
//!
//! * a batch has a producer when its producer id is `>= 0` (Kafka's `hasProducerId`); its
//!   sequences run from its base sequence over `lastOffsetDelta + 1` records, wrapping from
//!   `i32::MAX` to 0;
//! * each partition remembers, per producer id, the epoch and the last five batches
//!   ([`BATCHES_TO_RETAIN`]: first and last sequence, first and last offset, max timestamp);
//! * a batch of the current epoch whose sequence range equals one of the five is a
//!   **duplicate**: it is not stored again and is answered with the original offsets (error
//!   NONE), before any epoch or sequence check;
//! * an epoch below the current one: INVALID_PRODUCER_EPOCH (47; Kafka 2.7+ answers Produce with
//!   it rather than PRODUCER_FENCED);
//! * a higher epoch must start at sequence 0, else OUT_OF_ORDER_SEQUENCE_NUMBER (45) (a new epoch
//!   clears the remembered batches);
//! * the current epoch must continue at last sequence + 1 (0 after `i32::MAX`), else
//!   OUT_OF_ORDER_SEQUENCE_NUMBER;
//! * a producer id the partition does not know is accepted at any sequence (Kafka 2.5+ no longer
//!   answers UNKNOWN_PRODUCER_ID: "all producer records may have been deleted by retention");
//! * a producer idle for a day in a partition is forgotten there
//!   ([`PRODUCER_ID_EXPIRATION_MS`], Kafka's `producer.id.expiration.ms`).
//!
//! Producer state lives and dies with the records: kwire-server keeps records in memory only, so
//! after a restart with `--data` the partitions start empty and know no producers, as a Kafka
//! partition whose log start offset has passed every batch of a producer. The producer id
//! counter does survive (see [`ProducerIds`]), so ids are never handed out twice.

use std::collections::{HashMap, VecDeque};

use kwire_protocol::error::ErrorCode;

use crate::services::topics::batch::{BatchError, ProducerBatch};

/// Batches remembered per producer and partition (Kafka's `NUM_BATCHES_TO_RETAIN`; a producer
/// has at most `max.in.flight.requests.per.connection` = 5 batches in flight per partition).
pub const BATCHES_TO_RETAIN: usize = 5;

/// A producer whose last batch in a partition is this old (ms, by the batch's MaxTimestamp) is
/// forgotten there (Kafka's `producer.id.expiration.ms` default, one day), so the state of
/// producers that went away does not pile up.
pub const PRODUCER_ID_EXPIRATION_MS: i64 = 86_400_000;

/// How often a partition looks for expired producers (ms; Kafka's
/// `producer.id.expiration.check.interval.ms` default, ten minutes). The check runs on the
/// partition's next append after the interval.
pub const EXPIRATION_CHECK_INTERVAL_MS: i64 = 600_000;

/// Producer ids reserved per durable write (Kafka's `ProducerIdsBlock` size).
pub const PRODUCER_ID_BLOCK: i64 = 1000;

/// The producer id counter: ids from 0 up, never handed out twice. With `--data`, ids are taken
/// in blocks of [`PRODUCER_ID_BLOCK`], the end of each block written to the durable log before
/// any of its ids is given out (as Kafka's controller hands brokers blocks through
/// `ProducerIdsRecord`); after a restart the counter continues at the last block's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerIds {
    next: i64,
    block_end: i64,
}

impl ProducerIds {
    /// A counter whose next id is `next` (0 for a new server; the end of the last written block
    /// after a restart), with no block reserved yet.
    pub fn starting_at(next: i64) -> Self {
        ProducerIds {
            next: next.max(0),
            block_end: next.max(0),
        }
    }

    /// The id [`ProducerIds::take`] would give next.
    #[cfg(test)]
    pub fn peek(&self) -> i64 {
        self.next
    }

    /// Whether the next id needs a new block (to be written before the id is given).
    pub fn needs_block(&self) -> bool {
        self.next >= self.block_end
    }

    /// The end (exclusive) of the block that the next id would open: what to write to the
    /// durable log before calling [`ProducerIds::reserve`].
    pub fn next_block_end(&self) -> i64 {
        self.next.saturating_add(PRODUCER_ID_BLOCK)
    }

    /// Marks the block up to `end` (exclusive) as written.
    pub fn reserve(&mut self, end: i64) {
        self.block_end = self.block_end.max(end);
    }

    /// The next id (the caller made sure a block holds it, or runs without a durable log).
    pub fn take(&mut self) -> i64 {
        let id = self.next;
        self.next = self.next.saturating_add(1);
        id
    }
}

/// One remembered batch of a producer (Kafka's `BatchMetadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchMetadata {
    /// Sequence of the first record.
    pub first_seq: i32,
    /// Sequence of the last record.
    pub last_seq: i32,
    /// Offset the first record was stored at.
    pub first_offset: i64,
    /// Offset the last record was stored at.
    pub last_offset: i64,
    /// The batch's MaxTimestamp (ms), answered as LogAppendTime for a duplicate, as Kafka does.
    pub timestamp: i64,
}

/// A producer's state in one partition (Kafka's `ProducerStateEntry`, without transactions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerEntry {
    /// The producer epoch of the last batch.
    pub epoch: i16,
    /// The last batches, oldest first (at most [`BATCHES_TO_RETAIN`]).
    pub batches: VecDeque<BatchMetadata>,
    /// MaxTimestamp of the last batch (ms), for expiration.
    pub last_timestamp: i64,
}

impl ProducerEntry {
    /// Sequence of the last record written, or -1 (Kafka's `NO_SEQUENCE`) with no batch.
    pub fn last_seq(&self) -> i32 {
        self.batches.back().map_or(-1, |b| b.last_seq)
    }
}

/// Whether `next` follows `last` (Kafka's `ProducerAppendInfo.inSequence`).
fn in_sequence(last: i32, next: i32) -> bool {
    i64::from(next) == i64::from(last) + 1 || (next == 0 && last == i32::MAX)
}

/// What to do with an idempotent producer's batch ([`ProducerStates::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SequenceCheck {
    /// Append it, then [`ProducerStates::record`] it.
    Append,
    /// It repeats this remembered batch: answer with its offsets, store nothing.
    Duplicate(BatchMetadata),
}

/// The producers of one partition, by producer id.
#[derive(Debug, Clone, Default)]
pub struct ProducerStates {
    entries: HashMap<i64, ProducerEntry>,
    /// When expired producers were last looked for (ms; 0: never).
    last_expiry_check: i64,
}

impl ProducerStates {
    /// The state of `producer_id`, if the partition has seen it.
    #[cfg(test)]
    pub fn get(&self, producer_id: i64) -> Option<&ProducerEntry> {
        self.entries.get(&producer_id)
    }

    /// Whether no producer is known.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets the producers whose last batch is [`PRODUCER_ID_EXPIRATION_MS`] older than
    /// `now` (ms), at most once per [`EXPIRATION_CHECK_INTERVAL_MS`] (Kafka's
    /// `ProducerStateManager.removeExpiredProducers`). An expired producer's next batch is
    /// accepted at any sequence, as an unknown producer's. Returns how many were forgotten.
    pub fn expire(&mut self, now: i64) -> usize {
        if now.saturating_sub(self.last_expiry_check) < EXPIRATION_CHECK_INTERVAL_MS {
            return 0;
        }
        self.last_expiry_check = now;
        let before = self.entries.len();
        self.entries
            .retain(|_, e| now.saturating_sub(e.last_timestamp) < PRODUCER_ID_EXPIRATION_MS);
        before - self.entries.len()
    }

    /// Checks a batch against the producer's state (the module docs give the rules; `offset` is
    /// where the batch would be stored, for the messages).
    ///
    /// # Errors
    /// INVALID_PRODUCER_EPOCH for an older epoch, OUT_OF_ORDER_SEQUENCE_NUMBER for a sequence
    /// that does not continue the producer's last batch or a new epoch not starting at 0.
    pub fn check(&self, b: &ProducerBatch, offset: i64) -> Result<SequenceCheck, BatchError> {
        let Some(entry) = self.entries.get(&b.producer_id) else {
            return Ok(SequenceCheck::Append);
        };
        let last_seq = b.last_seq();
        if b.epoch == entry.epoch {
            if let Some(dup) = entry
                .batches
                .iter()
                .find(|m| m.first_seq == b.first_seq && m.last_seq == last_seq)
            {
                return Ok(SequenceCheck::Duplicate(*dup));
            }
        }
        if b.epoch < entry.epoch {
            return Err(BatchError {
                code: ErrorCode::InvalidProducerEpoch,
                message: format!(
                    "Epoch of producer {} at offset {offset} is {}, which is smaller than the last seen epoch {}",
                    b.producer_id, b.epoch, entry.epoch
                ),
            });
        }
        if b.epoch != entry.epoch {
            if b.first_seq != 0 && entry.epoch != -1 {
                return Err(BatchError {
                    code: ErrorCode::OutOfOrderSequenceNumber,
                    message: format!(
                        "Invalid sequence number for new epoch of producer {} at offset {offset}: {} (request epoch), {} (seq. number), {} (current producer epoch)",
                        b.producer_id, b.epoch, b.first_seq, entry.epoch
                    ),
                });
            }
        } else if entry.epoch != -1 && !in_sequence(entry.last_seq(), b.first_seq) {
            return Err(BatchError {
                code: ErrorCode::OutOfOrderSequenceNumber,
                message: format!(
                    "Out of order sequence number for producer {} at offset {offset}: {} (incoming seq. number), {} (current end sequence number)",
                    b.producer_id,
                    b.first_seq,
                    entry.last_seq()
                ),
            });
        }
        Ok(SequenceCheck::Append)
    }

    /// Records an appended batch stored at `first_offset..=last_offset` with MaxTimestamp
    /// `timestamp` (a new epoch forgets the older epoch's batches; at most
    /// [`BATCHES_TO_RETAIN`] are kept). Returns the producer's previous state, for
    /// [`ProducerStates::restore`].
    pub fn record(
        &mut self,
        b: &ProducerBatch,
        first_offset: i64,
        last_offset: i64,
        timestamp: i64,
    ) -> Option<ProducerEntry> {
        let meta = BatchMetadata {
            first_seq: b.first_seq,
            last_seq: b.last_seq(),
            first_offset,
            last_offset,
            timestamp,
        };
        let previous = self.entries.get(&b.producer_id).cloned();
        let entry = self
            .entries
            .entry(b.producer_id)
            .or_insert_with(|| ProducerEntry {
                epoch: b.epoch,
                batches: VecDeque::with_capacity(BATCHES_TO_RETAIN),
                last_timestamp: timestamp,
            });
        entry.last_timestamp = timestamp;
        if entry.epoch != b.epoch {
            entry.batches.clear();
            entry.epoch = b.epoch;
        }
        if entry.batches.len() == BATCHES_TO_RETAIN {
            entry.batches.pop_front();
        }
        entry.batches.push_back(meta);
        previous
    }

    /// Puts back a producer's state as [`ProducerStates::record`] returned it (`None`: the
    /// partition did not know the producer), to undo an append that could not be made durable.
    pub fn restore(&mut self, producer_id: i64, previous: Option<ProducerEntry>) {
        match previous {
            Some(e) => {
                self.entries.insert(producer_id, e);
            }
            None => {
                self.entries.remove(&producer_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::topics::batch::increment_sequence;

    fn batch(pid: i64, epoch: i16, seq: i32, n: i32) -> ProducerBatch {
        ProducerBatch {
            producer_id: pid,
            epoch,
            first_seq: seq,
            last_offset_delta: n - 1,
        }
    }

    #[test]
    fn sequences_wrap() {
        assert_eq!(increment_sequence(5, 3), 8);
        assert_eq!(increment_sequence(i32::MAX, 0), i32::MAX);
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 3), 1);
        assert!(in_sequence(i32::MAX, 0));
        assert!(in_sequence(-1, 0));
        assert!(!in_sequence(3, 5));
    }

    #[test]
    fn duplicates_epochs_and_sequences() {
        let mut s = ProducerStates::default();
        // Unknown producer: any sequence.
        assert_eq!(s.check(&batch(7, 0, 42, 2), 0), Ok(SequenceCheck::Append));
        assert_eq!(s.record(&batch(7, 0, 42, 2), 0, 1, 100), None);
        // In order.
        assert_eq!(s.check(&batch(7, 0, 44, 1), 2), Ok(SequenceCheck::Append));
        s.record(&batch(7, 0, 44, 1), 2, 2, 101);
        // A duplicate of the first batch: its offsets.
        assert_eq!(
            s.check(&batch(7, 0, 42, 2), 3),
            Ok(SequenceCheck::Duplicate(BatchMetadata {
                first_seq: 42,
                last_seq: 43,
                first_offset: 0,
                last_offset: 1,
                timestamp: 100
            }))
        );
        // A gap, or a partial overlap: out of order.
        for b in [batch(7, 0, 46, 1), batch(7, 0, 43, 2), batch(7, 0, 0, 1)] {
            let e = s.check(&b, 3).unwrap_err();
            assert_eq!(e.code, ErrorCode::OutOfOrderSequenceNumber, "{b:?}");
        }
        // A new epoch must start at 0.
        let e = s.check(&batch(7, 1, 45, 1), 3).unwrap_err();
        assert_eq!(e.code, ErrorCode::OutOfOrderSequenceNumber);
        assert_eq!(s.check(&batch(7, 1, 0, 1), 3), Ok(SequenceCheck::Append));
        let prev = s.record(&batch(7, 1, 0, 1), 3, 3, 102);
        assert_eq!(prev.as_ref().map(|p| p.batches.len()), Some(2));
        assert_eq!(s.get(7).map(|e| (e.epoch, e.batches.len())), Some((1, 1)));
        // The old epoch is fenced, even for what was a duplicate.
        for b in [batch(7, 0, 45, 1), batch(7, 0, 42, 2)] {
            let e = s.check(&b, 4).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidProducerEpoch);
        }
        // Undo.
        s.restore(7, prev);
        assert_eq!(s.get(7).map(|e| (e.epoch, e.last_seq())), Some((0, 44)));
        s.restore(7, None);
        assert!(s.is_empty());
    }

    #[test]
    fn five_batches_are_remembered_and_sequences_wrap() {
        let mut s = ProducerStates::default();
        let start = i32::MAX - 3;
        let mut seq = start;
        for i in 0..7 {
            let b = batch(1, 0, seq, 1);
            assert_eq!(s.check(&b, i), Ok(SequenceCheck::Append), "batch {i}");
            s.record(&b, i, i, 0);
            seq = increment_sequence(seq, 1);
        }
        // start .. MAX, 0, 1, 2: the last five are MAX-1, MAX, 0, 1, 2.
        assert_eq!(s.get(1).map(|e| e.batches.len()), Some(BATCHES_TO_RETAIN));
        assert_eq!(s.get(1).map(ProducerEntry::last_seq), Some(2));
        assert_eq!(
            s.check(&batch(1, 0, 0, 1), 7),
            Ok(SequenceCheck::Duplicate(BatchMetadata {
                first_seq: 0,
                last_seq: 0,
                first_offset: 4,
                last_offset: 4,
                timestamp: 0
            }))
        );
        // Forgotten: the sixth-last batch is out of order now, not a duplicate.
        assert_eq!(
            s.check(&batch(1, 0, start + 1, 1), 7).unwrap_err().code,
            ErrorCode::OutOfOrderSequenceNumber
        );
        // A batch crossing the wrap.
        let mut s = ProducerStates::default();
        let b = batch(2, 0, i32::MAX - 1, 4);
        assert_eq!(b.last_seq(), 1);
        s.record(&b, 0, 3, 0);
        assert_eq!(s.check(&batch(2, 0, 2, 1), 4), Ok(SequenceCheck::Append));
    }

    #[test]
    fn idle_producers_expire_after_a_day() {
        let day = PRODUCER_ID_EXPIRATION_MS;
        let mut s = ProducerStates::default();
        s.record(&batch(1, 0, 0, 1), 0, 0, 0);
        s.record(&batch(2, 0, 0, 1), 1, 1, 500_000);
        assert_eq!(s.expire(day), 1);
        assert!(s.get(1).is_none() && s.get(2).is_some());
        // Producer 2 is a day old now, but the last check was under ten minutes ago.
        assert_eq!(s.expire(day + 500_000), 0);
        assert_eq!(s.expire(day + EXPIRATION_CHECK_INTERVAL_MS), 1);
        assert!(s.is_empty());
    }

    #[test]
    fn producer_ids_come_in_blocks() {
        let mut ids = ProducerIds::starting_at(0);
        assert!(ids.needs_block());
        assert_eq!(ids.next_block_end(), PRODUCER_ID_BLOCK);
        ids.reserve(PRODUCER_ID_BLOCK);
        assert!(!ids.needs_block());
        assert_eq!((ids.take(), ids.take()), (0, 1));
        let mut later = ProducerIds::starting_at(PRODUCER_ID_BLOCK);
        assert_eq!(later.peek(), PRODUCER_ID_BLOCK);
        assert!(later.needs_block());
        later.reserve(later.next_block_end());
        assert_eq!(later.take(), PRODUCER_ID_BLOCK);
    }
}
