//! The in-memory topic table and partition logs.
//!
//! A partition log is a list of RecordBatch v2 (magic 2) batches as the producer sent them, with
//! the base offset (bytes 0..8) and partition leader epoch (bytes 12..16) rewritten by the server.
//! Both fields lie before the CRC-32C, which covers the batch from the attributes field (byte 21)
//! on, so rewriting them keeps the batch valid. The log starts at offset 0 (nothing is ever
//! deleted), and the high watermark, the last stable offset and the next offset are one number.

use std::collections::{BTreeMap, HashMap};

use bytes::{Bytes, BytesMut};
use kwire_protocol::coordinator::TopicMetadata;
use kwire_protocol::wire::Uuid;

use crate::errors::*;
use crate::util::crc32c;

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
    next_offset: i64,
    bytes: usize,
}

/// What a record-batch check found wrong (a Kafka error code and a message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchError {
    /// The Kafka error code.
    pub code: i16,
    /// A human-readable reason.
    pub message: String,
}

fn batch_error(code: i16, message: impl Into<String>) -> BatchError {
    BatchError {
        code,
        message: message.into(),
    }
}

fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}

fn be_i32(b: &[u8], at: usize) -> i32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    i32::from_be_bytes(a)
}

/// Checks that `records` is exactly one RecordBatch v2 that is whole, has magic 2, a matching
/// CRC-32C, a non-negative lastOffsetDelta and is not a control batch (as Kafka checks a
/// Produce v3+ request). Returns lastOffsetDelta.
///
/// # Errors
/// INVALID_RECORD (87) for a malformed batch, CORRUPT_MESSAGE (2) for a CRC mismatch.
pub fn check_batch(records: &[u8]) -> Result<i32, BatchError> {
    if records.len() < BATCH_HEADER_LEN {
        return Err(batch_error(
            INVALID_RECORD,
            format!(
                "record batch of {} bytes is shorter than its {BATCH_HEADER_LEN}-byte header",
                records.len()
            ),
        ));
    }
    let batch_len = be_i32(records, 8);
    if batch_len < 0 || batch_len as usize + 12 != records.len() {
        return Err(batch_error(
            INVALID_RECORD,
            format!(
                "Produce requests v3+ must hold exactly one whole record batch (batch length {batch_len}, {} bytes given)",
                records.len()
            ),
        ));
    }
    let magic = records[16] as i8;
    if magic != 2 {
        return Err(batch_error(
            INVALID_RECORD,
            format!("record batch magic {magic}: only magic 2 is accepted"),
        ));
    }
    let crc = u32::from_be_bytes([records[17], records[18], records[19], records[20]]);
    if crc32c(&records[21..]) != crc {
        return Err(batch_error(
            CORRUPT_MESSAGE,
            "record batch CRC-32C does not match",
        ));
    }
    let attributes = i16::from_be_bytes([records[21], records[22]]);
    if attributes & 0x20 != 0 {
        return Err(batch_error(
            INVALID_RECORD,
            "clients may not write control batches",
        ));
    }
    let last_delta = be_i32(records, 23);
    if last_delta < 0 {
        return Err(batch_error(
            INVALID_RECORD,
            format!("negative lastOffsetDelta {last_delta}"),
        ));
    }
    Ok(last_delta)
}

impl PartitionLog {
    /// The next offset to assign: the high watermark and last stable offset.
    pub fn high_watermark(&self) -> i64 {
        self.next_offset
    }

    /// Bytes held by the log.
    pub fn size_bytes(&self) -> usize {
        self.bytes
    }

    /// The batches.
    pub fn batches(&self) -> &[StoredBatch] {
        &self.batches
    }

    /// Appends one record batch (checked by [`check_batch`]): rewrites its base offset to the
    /// next offset and its partition leader epoch to 0, and returns the base offset.
    ///
    /// # Errors
    /// As [`check_batch`].
    pub fn append(&mut self, records: &[u8]) -> Result<i64, BatchError> {
        let last_delta = check_batch(records)?;
        let base = self.next_offset;
        let mut data = BytesMut::from(records);
        data[0..8].copy_from_slice(&base.to_be_bytes());
        data[12..16].copy_from_slice(&0i32.to_be_bytes());
        let last = base + i64::from(last_delta);
        let max_timestamp = be_i64(records, 35);
        self.bytes += data.len();
        self.batches.push(StoredBatch {
            base_offset: base,
            last_offset: last,
            max_timestamp,
            data: data.freeze(),
        });
        self.next_offset = last + 1;
        Ok(base)
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

    /// ListOffsets by timestamp, best effort: the first record whose timestamp is at least `ts`
    /// and that timestamp (exact in uncompressed batches; the batch's base offset and max
    /// timestamp in compressed ones); `None` when no record is that late.
    pub fn offset_for_timestamp(&self, ts: i64) -> Option<(i64, i64)> {
        let b = self.batches.iter().find(|b| b.max_timestamp >= ts)?;
        Some(match record_at_or_after(b, |t| t >= ts) {
            Some((t, o)) => (o, t),
            None => (b.base_offset, b.max_timestamp),
        })
    }

    /// ListOffsets MAX_TIMESTAMP (-3): the first record with the largest timestamp and that
    /// timestamp; `None` for an empty log.
    pub fn max_timestamp(&self) -> Option<(i64, i64)> {
        let mut best: Option<&StoredBatch> = None;
        for b in &self.batches {
            if best.is_none_or(|x| b.max_timestamp > x.max_timestamp) {
                best = Some(b);
            }
        }
        let b = best?;
        let max = b.max_timestamp;
        Some(
            record_at_or_after(b, |t| t == max)
                .map(|(t, o)| (o, t))
                .unwrap_or((b.last_offset, max)),
        )
    }
}

fn read_varlong(b: &[u8], pos: &mut usize) -> Option<i64> {
    let mut v: u64 = 0;
    let mut shift = 0;
    loop {
        let byte = *b.get(*pos)?;
        *pos += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
    Some(((v >> 1) as i64) ^ -((v & 1) as i64))
}

/// The (timestamp, offset) of the first record of an uncompressed batch whose timestamp
/// satisfies `pred`; `None` for a compressed batch, a malformed one, or no match.
fn record_at_or_after(b: &StoredBatch, pred: impl Fn(i64) -> bool) -> Option<(i64, i64)> {
    let d = &b.data[..];
    let attributes = i16::from_be_bytes([d[21], d[22]]);
    if attributes & 0x07 != 0 {
        return None;
    }
    let base_ts = be_i64(d, 27);
    let count = be_i32(d, 57);
    let mut pos = BATCH_HEADER_LEN;
    for _ in 0..count.max(0) {
        let len = read_varlong(d, &mut pos)?;
        let body_start = pos;
        if len < 0 || body_start + len as usize > d.len() {
            return None;
        }
        let mut p = body_start + 1; // record attributes
        let ts_delta = read_varlong(d, &mut p)?;
        let off_delta = read_varlong(d, &mut p)?;
        let ts = base_ts.wrapping_add(ts_delta);
        if pred(ts) {
            return Some((ts, b.base_offset + off_delta));
        }
        pos = body_start + len as usize;
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
        assert_eq!(log.append(&b1), Ok(0));
        assert_eq!(log.append(&b2), Ok(3));
        assert_eq!(log.high_watermark(), 4);
        let all = log.read(0, 1 << 20, true);
        assert_eq!(all.len(), b1.len() + b2.len());
        assert_eq!(be_i64(&all, 0), 0);
        assert_eq!(be_i64(&all, b1.len()), 3);
        // The batch still checks (offset and epoch are outside the CRC).
        assert!(check_batch(&all[b1.len()..]).is_ok());
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
        assert_eq!(log.append(&good[..30]).unwrap_err().code, INVALID_RECORD);
        let mut two = good.clone();
        two.extend_from_slice(&good);
        assert_eq!(log.append(&two).unwrap_err().code, INVALID_RECORD);
        let mut magic = good.clone();
        magic[16] = 1;
        assert_eq!(log.append(&magic).unwrap_err().code, INVALID_RECORD);
        let mut crc = good.clone();
        let last = crc.len() - 1;
        crc[last] ^= 0xff;
        assert_eq!(log.append(&crc).unwrap_err().code, CORRUPT_MESSAGE);
        assert_eq!(log.high_watermark(), 0);
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
