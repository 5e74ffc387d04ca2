//! Tests of the topics service: record-batch checks, appends, reads and undone appends, and
//! name collisions. [`make_batch`] builds the batches the server's end-to-end tests produce.

use kwire_protocol::error::ErrorCode;
use kwire_protocol::records::crc32c;
use kwire_protocol::wire::Uuid;

use super::batch::{check_batch, ProducerBatch, BATCH_HEADER_LEN};
use super::log::PartitionLog;
use super::table::TopicTable;

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
