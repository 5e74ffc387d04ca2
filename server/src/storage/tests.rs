//! The storage layer's tests: the file journal's round trip, torn tails, corruption, failed
//! writes and its lock.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use kwire_protocol::generated::kwire_committed_offset_key::KwireCommittedOffsetKey;
use kwire_protocol::generated::kwire_committed_offset_value::KwireCommittedOffsetValue;
use kwire_protocol::generated::kwire_partition_end_key::KwirePartitionEndKey;
use kwire_protocol::generated::kwire_partition_end_value::KwirePartitionEndValue;
use kwire_protocol::generated::kwire_topic_key::KwireTopicKey;
use kwire_protocol::generated::kwire_topic_value::KeyValue;
use kwire_protocol::generated::kwire_topic_value::KwireTopicValue;

use super::entry::Entry;
use super::error::LogError;
use super::file::{FileJournal, FILE_NAME, LOCK_FILE_NAME};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "kwire-server-{name}-{}-{}",
        std::process::id(),
        crate::util::random_u64()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn sample() -> Vec<Entry> {
    vec![
        Entry::Topic(
            KwireTopicKey { name: "t1".into() },
            Some(KwireTopicValue {
                topic_id: crate::util::uuid_from_name("t1"),
                partitions: 3,
                configs: vec![KeyValue {
                    key: "cleanup.policy".into(),
                    value: "compact".into(),
                    ..Default::default()
                }],
                ..Default::default()
            }),
        ),
        Entry::Offset(
            KwireCommittedOffsetKey {
                group_id: "g".into(),
                topic: "t1".into(),
                partition: 2,
            },
            Some(KwireCommittedOffsetValue {
                offset: 42,
                leader_epoch: 0,
                metadata: Some("".into()),
                commit_timestamp_ms: 7,
                ..Default::default()
            }),
        ),
        Entry::Offset(
            KwireCommittedOffsetKey {
                group_id: "g".into(),
                topic: "t1".into(),
                partition: 1,
            },
            None,
        ),
    ]
}

#[test]
fn round_trip_and_torn_tail() {
    let dir = temp_dir("log");
    {
        let (mut log, replay) = FileJournal::open(&dir).unwrap();
        assert!(replay.entries.is_empty());
        log.append(&sample()).unwrap();
    }
    let (log, replay) = FileJournal::open(&dir).unwrap();
    assert_eq!(replay.entries, sample());
    assert!(replay.torn.is_none());
    let path = log.path().to_path_buf();
    drop(log);
    // A torn tail: half of another entry.
    let mut extra = Vec::new();
    sample()[0].encode_into(&mut extra).unwrap();
    let whole = std::fs::metadata(&path).unwrap().len();
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(&extra[..extra.len() / 2]).unwrap();
    drop(f);
    let (mut log, replay) = FileJournal::open(&dir).unwrap();
    assert_eq!(replay.entries, sample());
    assert!(replay.torn.is_some());
    assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
    // Appends after the cut are readable.
    log.append(&sample()[..1]).unwrap();
    drop(log);
    let (_, replay) = FileJournal::open(&dir).unwrap();
    assert_eq!(replay.entries.len(), 4);
    assert!(replay.torn.is_none());
    // A flipped byte in the last entry: CRC mismatch, ignored.
    let mut data = std::fs::read(&path).unwrap();
    let last = data.len() - 1;
    data[last] ^= 0x55;
    std::fs::write(&path, &data).unwrap();
    let (_, replay) = FileJournal::open(&dir).unwrap();
    assert_eq!(replay.entries, sample());
    assert!(replay.torn.is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes `count` copies of the sample entries, one append each; returns the log's path and
/// the byte offset where each append starts.
fn log_with_appends(dir: &Path, count: usize) -> (PathBuf, Vec<u64>) {
    let (mut log, _) = FileJournal::open(dir).unwrap();
    let mut starts = Vec::new();
    for _ in 0..count {
        starts.push(log.len());
        log.append(&sample()).unwrap();
    }
    (log.path().to_path_buf(), starts)
}

#[test]
fn mid_file_corruption_refuses_to_start_and_keeps_the_file() {
    let dir = temp_dir("corrupt");
    let (path, starts) = log_with_appends(&dir, 3);
    let good = std::fs::read(&path).unwrap();
    // A flipped payload byte in the second append's first entry: a CRC mismatch with data
    // after it.
    let at = starts[1] as usize;
    let mut data = good.clone();
    data[at + 12] ^= 0x01;
    std::fs::write(&path, &data).unwrap();
    let e = FileJournal::open(&dir).expect_err("a corruption error");
    assert!(
        matches!(&e, LogError::Corrupt { offset, message, .. } if *offset == starts[1] && message.contains("CRC")),
        "{e:?}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        data,
        "the file must be left as it is"
    );
    let text = FileJournal::open(&dir).unwrap_err().to_string();
    assert!(text.contains(&format!("byte {}", starts[1])), "{text}");
    // A length damaged so that the entry reaches past the end, with whole entries after it.
    let mut data = good.clone();
    data[at..at + 4].copy_from_slice(&(good.len() as u32).to_be_bytes());
    std::fs::write(&path, &data).unwrap();
    let e = FileJournal::open(&dir).expect_err("a corruption error");
    assert!(
        matches!(e, LogError::Corrupt { offset, .. } if offset == starts[1]),
        "{e:?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), data);
    // An impossible length (below the smallest entry) with data after it.
    let mut data = good.clone();
    data[at..at + 4].copy_from_slice(&3u32.to_be_bytes());
    std::fs::write(&path, &data).unwrap();
    assert!(matches!(
        FileJournal::open(&dir),
        Err(LogError::Corrupt { offset, .. }) if offset == starts[1]
    ));
    // The same flip in the very last entry, which reaches the end of the file: a torn
    // tail, cut off; the entries before it stay.
    let mut data = good.clone();
    let last = data.len() - 2;
    data[last] ^= 0x01;
    std::fs::write(&path, &data).unwrap();
    let (_, replay) = FileJournal::open(&dir).unwrap();
    assert_eq!(replay.entries.len(), 3 * sample().len() - 1);
    assert!(replay.torn.unwrap().contains("CRC"));
    // A zero-filled tail (a file extended but not written) is torn too.
    let mut data = good.clone();
    data.extend_from_slice(&[0; 40]);
    std::fs::write(&path, &data).unwrap();
    let (_, replay) = FileJournal::open(&dir).unwrap();
    assert_eq!(replay.entries.len(), 3 * sample().len());
    assert!(replay.torn.is_some());
    assert_eq!(std::fs::read(&path).unwrap(), good);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failed_writes_are_cut_off_before_the_next_append() {
    let dir = temp_dir("enospc");
    let (mut log, _) = FileJournal::open(&dir).unwrap();
    let path = log.path().to_path_buf();
    log.append(&sample()).unwrap();
    let whole = log.len();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
    // A write that fails half-way is cut off at once.
    log.faults.writes = 1;
    assert!(matches!(log.append(&sample()), Err(LogError::Io { .. })));
    assert_eq!(log.len(), whole);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
    // A write that fails half-way and whose cut fails too: the partial entry stays on disk,
    // and the next appends are refused (nothing written) until the cut succeeds.
    log.faults.writes = 1;
    log.faults.repairs = 2;
    assert!(matches!(log.append(&sample()), Err(LogError::Io { .. })));
    let damaged = std::fs::metadata(&path).unwrap().len();
    assert!(damaged > whole);
    assert!(matches!(log.append(&sample()), Err(LogError::Repair { len, .. }) if len == whole));
    assert_eq!(std::fs::metadata(&path).unwrap().len(), damaged);
    // The cut works now: the partial entry goes, the new entries follow the last whole one.
    log.append(&sample()[..1]).unwrap();
    assert_eq!(log.len(), std::fs::metadata(&path).unwrap().len());
    drop(log);
    let (_, replay) = FileJournal::open(&dir).unwrap();
    assert!(replay.torn.is_none(), "{:?}", replay.torn);
    let mut want = sample();
    want.push(sample()[0].clone());
    assert_eq!(replay.entries, want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_log_on_the_same_directory_is_refused() {
    let dir = temp_dir("lock");
    let (log, _) = FileJournal::open(&dir).unwrap();
    let e = FileJournal::open(&dir).expect_err("a lock error");
    assert!(matches!(e, LogError::Locked { .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains(LOCK_FILE_NAME), "{text}");
    assert!(
        text.contains(&format!("pid {}", std::process::id())),
        "{text}"
    );
    drop(log);
    // Released with the log.
    let (_log, _) = FileJournal::open(&dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The end offset of partition t1-4.
fn partition_end() -> Entry {
    Entry::PartitionEnd(
        KwirePartitionEndKey {
            topic: "t1".into(),
            partition: 4,
        },
        Some(KwirePartitionEndValue {
            end_offset: 1234,
            ..Default::default()
        }),
    )
}

#[test]
fn partition_end_entries_round_trip() {
    let dir = temp_dir("ends");
    let e = partition_end();
    assert_eq!(e.record_type(), KwirePartitionEndKey::RECORD_TYPE);
    {
        let (mut log, _) = FileJournal::open(&dir).unwrap();
        log.append(std::slice::from_ref(&e)).unwrap();
    }
    let (_, replay) = FileJournal::open(&dir).unwrap();
    assert_eq!(replay.entries, vec![e]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn foreign_file_is_refused() {
    let dir = temp_dir("foreign");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(FILE_NAME), b"hello world, not a log").unwrap();
    assert!(matches!(
        FileJournal::open(&dir),
        Err(LogError::Format { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A log written by the kwire-server before record types came from the specs (its two hand
/// tables of numbers, the format of main at ee9a989): one entry of every type, and a
/// tombstone. It must replay to the same entries, and today's encoding must give the same
/// bytes, so logs written by older servers keep working.
const FORMAT_V1_LOG: &[u8] = include_bytes!("../../tests/fixtures/format-v1.log");

#[test]
fn a_log_written_before_the_generated_record_types_replays_unchanged() {
    let dir = temp_dir("format-v1");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(FILE_NAME), FORMAT_V1_LOG).unwrap();
    let (_log, replay) = FileJournal::open(&dir).unwrap();
    assert_eq!((replay.skipped, replay.torn), (0, None));
    assert_eq!(replay.entries, every_entry());
    let mut today = FORMAT_V1_LOG[..12].to_vec();
    for e in every_entry() {
        e.encode_into(&mut today).unwrap();
    }
    assert_eq!(today, FORMAT_V1_LOG);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One entry of every record type (coordinator records, offsets, topics, partition ends) and
/// a tombstone.
fn every_entry() -> Vec<Entry> {
    use kwire_protocol::coordinator::classic::ClassicRecord;
    use kwire_protocol::coordinator::streams::StreamsRecord;
    use kwire_protocol::coordinator::ConsumerRecord;
    let mut out: Vec<Entry> = vec![
        ConsumerRecord::GroupMetadata(Default::default(), Some(Default::default())).into(),
        ConsumerRecord::MemberMetadata(Default::default(), Some(Default::default())).into(),
        ConsumerRecord::TargetAssignmentMetadata(Default::default(), Some(Default::default()))
            .into(),
        ConsumerRecord::TargetAssignmentMember(Default::default(), Some(Default::default())).into(),
        ConsumerRecord::CurrentMemberAssignment(Default::default(), Some(Default::default()))
            .into(),
        ConsumerRecord::RegularExpression(Default::default(), Some(Default::default())).into(),
        StreamsRecord::GroupMetadata(Default::default(), Some(Default::default())).into(),
        StreamsRecord::Topology(Default::default(), Some(Default::default())).into(),
        StreamsRecord::MemberMetadata(Default::default(), Some(Default::default())).into(),
        StreamsRecord::TargetAssignmentMember(Default::default(), Some(Default::default())).into(),
        StreamsRecord::TargetAssignmentMetadata(Default::default(), Some(Default::default()))
            .into(),
        StreamsRecord::CurrentMemberAssignment(Default::default(), Some(Default::default())).into(),
        StreamsRecord::TopologyDescription(Default::default(), Some(Default::default())).into(),
        ClassicRecord::GroupMetadata(Default::default(), Some(Default::default())).into(),
        ClassicRecord::Member(Default::default(), Some(Default::default())).into(),
    ]
    .into_iter()
    .map(Entry::Group)
    .collect();
    out.extend(sample());
    out.push(partition_end());
    out.push(Entry::Group(
        ConsumerRecord::GroupMetadata(Default::default(), None).into(),
    ));
    out
}
