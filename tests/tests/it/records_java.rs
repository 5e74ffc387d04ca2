//! Kafka's own record batch code as the oracle for kwire's records module.
//!
//! tests/java-oracle's `dev.kwire.oracle.RecordsOracle` (protocol: its class doc) builds record
//! sets with kafka-clients 4.4.0's `MemoryRecordsBuilder` (and
//! `MemoryRecords.withEndTransactionMarker` for transaction markers) from a JSON description, and
//! reads any record set with `MemoryRecords.readableRecords` (checking every batch's CRC,
//! decompressing, iterating records) into JSON. One JVM serves every test of this module
//! (tests/tests/it/java.rs builds and starts it).
//!
//! * [`uncompressed_batches_are_byte_identical_to_kafkas_memory_records_builder`]: for every
//!   attribute combination, header shape, null and timestamp spread of [`identical_cases`]
//!   (33 record sets), kwire's [`BatchBuilder`] writes exactly Kafka's bytes, kwire reads Kafka's
//!   bytes (owned, borrowed, and as its JSON form `record_set_to_json`) into what Kafka reads,
//!   and `RecordBatch::encode` of kwire's reading gives Kafka's bytes back.
//! * `java_and_kwire_read_each_others_<codec>_batches` (none, gzip, snappy, lz4, zstd;
//!   [`codec_round_trips`]): Kafka builds, kwire decodes ([`RecordSet::decode`] and the view with
//!   `decompress`, and its JSON form) into what Kafka reads, every batch header field and record;
//!   kwire writes (`RecordBatch::encode` of its reading, `records_from_json` of its JSON form, and
//!   [`BatchBuilder`]), Kafka decodes (CRC checked) into the same records and header fields as
//!   from its own batch. Compressed bytes may differ
//!   across libraries, so only each batch's size and CRC may differ there. The builder writes
//!   every magic-2 case, offset gaps that compaction leaves (`append_at`), the delete-horizon flag
//!   and a log append time other than the records' largest timestamp included.
//! * [`kwire_decodes_kafkas_legacy_message_sets`]: Kafka still writes magic 0 and 1 message sets
//!   (uncompressed, gzip, snappy, lz4 — magic 0's lz4 with the frame-descriptor checksum of
//!   KAFKA-3160, whose checksum byte kwire ignores for magic 0 as Kafka does); kwire's owned
//!   decoding and JSON form read the same records and batch fields,
//!   except the cases of [`KNOWN_KWIRE_BUGS`].
//!
//! Without `java` or `mvn` on `PATH` when tests/build.rs ran, the tests are compiled as ignored,
//! with the reason; under `CI=true` their absence is a failure.

use crate::java::{classpath, java_ready, Jvm};
use bytes::Bytes;
use kwire_protocol::records::json::{record_set_to_json, records_from_json};
use kwire_protocol::records::{
    BatchBuilder, BatchHeader, Compression, ControlRecord, DecodeOptions, RecordSet, RecordSetRef,
    TimestampType,
};
use serde_json::{json, Value};
use std::sync::{Mutex, MutexGuard, OnceLock};

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

/// One record to append.
#[derive(Debug, Clone)]
struct Rec {
    /// An explicit offset (Kafka's `appendWithOffset`, leaving gaps as compaction does); `None`
    /// appends at the next offset.
    offset: Option<i64>,
    /// Create time, ms (-1: none).
    timestamp: i64,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    /// Ordered headers: key (a Java `String`), value or null.
    headers: Vec<(String, Option<Vec<u8>>)>,
}

fn rec(timestamp: i64, key: Option<&[u8]>, value: Option<&[u8]>) -> Rec {
    Rec {
        offset: None,
        timestamp,
        key: key.map(<[u8]>::to_vec),
        value: value.map(<[u8]>::to_vec),
        headers: vec![],
    }
}

impl Rec {
    fn header(mut self, key: &str, value: Option<&[u8]>) -> Rec {
        self.headers
            .push((key.to_string(), value.map(<[u8]>::to_vec)));
        self
    }

    fn at(mut self, offset: i64) -> Rec {
        self.offset = Some(offset);
        self
    }
}

/// The timestamp type of a batch as Kafka's builder takes it (`NoTimestampType` for magic 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ts {
    Create,
    LogAppend,
    NoTimestamp,
}

/// A data batch (magic 2) or a legacy message set (magic 0, 1) for `MemoryRecordsBuilder`.
#[derive(Debug, Clone)]
struct Data {
    magic: i8,
    compression: Compression,
    /// Codec level (Kafka's `Compression.<codec>().level(n)`); `None`: Kafka's default.
    level: Option<i32>,
    ts: Ts,
    /// The broker's append time for `Ts::LogAppend`, ms.
    log_append_time: i64,
    base_offset: i64,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    transactional: bool,
    leader_epoch: i32,
    /// `-1`, or the delete horizon (sets attribute bit 6; Kafka stores it as the base timestamp).
    delete_horizon: i64,
    records: Vec<Rec>,
}

impl Default for Data {
    fn default() -> Data {
        Data {
            magic: 2,
            compression: Compression::None,
            level: None,
            ts: Ts::Create,
            log_append_time: -1,
            base_offset: 0,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            transactional: false,
            leader_epoch: -1,
            delete_horizon: -1,
            records: vec![],
        }
    }
}

/// A control batch with one transaction marker (`MemoryRecords.withEndTransactionMarker`).
#[derive(Debug, Clone)]
struct Marker {
    commit: bool,
    coordinator_epoch: i32,
    base_offset: i64,
    timestamp: i64,
    leader_epoch: i32,
    producer_id: i64,
    producer_epoch: i16,
}

#[derive(Debug, Clone)]
enum Batch {
    Data(Data),
    Marker(Marker),
}

fn data(records: Vec<Rec>) -> Data {
    Data {
        records,
        ..Data::default()
    }
}

fn one(d: Data) -> Vec<Batch> {
    vec![Batch::Data(d)]
}

fn hex_opt(b: &Option<Vec<u8>>) -> Value {
    b.as_deref()
        .map_or(Value::Null, |b| Value::String(kwire_tests::hex(b)))
}

/// The description `RecordsOracle`'s `B` command takes.
fn java_spec(set: &[Batch]) -> Value {
    let batches: Vec<Value> = set
        .iter()
        .map(|b| match b {
            Batch::Data(d) => json!({
                "magic": d.magic,
                "compression": d.compression.name(),
                "level": d.level,
                "timestampType": match d.ts { Ts::Create => "CreateTime", Ts::LogAppend => "LogAppendTime", Ts::NoTimestamp => "NoTimestampType" },
                "logAppendTime": d.log_append_time,
                "baseOffset": d.base_offset,
                "producerId": d.producer_id,
                "producerEpoch": d.producer_epoch,
                "baseSequence": d.base_sequence,
                "transactional": d.transactional,
                "partitionLeaderEpoch": d.leader_epoch,
                "deleteHorizonMs": d.delete_horizon,
                "records": d.records.iter().map(|r| {
                    let mut o = json!({
                        "timestamp": r.timestamp,
                        "key": hex_opt(&r.key),
                        "value": hex_opt(&r.value),
                        "headers": r.headers.iter().map(|(k, v)| json!({"key": k, "value": hex_opt(v)})).collect::<Vec<_>>(),
                    });
                    if let Some(off) = r.offset {
                        o["offset"] = json!(off);
                    }
                    o
                }).collect::<Vec<_>>(),
            }),
            Batch::Marker(m) => json!({
                "marker": if m.commit { "COMMIT" } else { "ABORT" },
                "coordinatorEpoch": m.coordinator_epoch,
                "baseOffset": m.base_offset,
                "timestamp": m.timestamp,
                "partitionLeaderEpoch": m.leader_epoch,
                "producerId": m.producer_id,
                "producerEpoch": m.producer_epoch,
            }),
        })
        .collect();
    json!({ "batches": batches })
}

/// Why kwire's [`BatchBuilder`] cannot write `d` as Kafka does, if it cannot.
fn inexpressible(d: &Data) -> Option<&'static str> {
    (d.magic != 2).then_some("kwire writes magic 2 only")
}

/// kwire's bytes for one batch, or why kwire cannot write it.
fn kwire_build(b: &Batch) -> Result<Bytes, String> {
    match b {
        Batch::Data(d) => {
            if let Some(why) = inexpressible(d) {
                return Err(format!("inexpressible: {why}"));
            }
            let mut builder = BatchBuilder::new(d.compression)
                .base_offset(d.base_offset)
                .producer(d.producer_id, d.producer_epoch, d.base_sequence)
                .transactional(d.transactional)
                .partition_leader_epoch(d.leader_epoch);
            if d.ts == Ts::LogAppend {
                builder = builder.log_append_time(d.log_append_time);
            }
            if d.delete_horizon != -1 {
                builder = builder.delete_horizon(d.delete_horizon);
            }
            for (i, r) in d.records.iter().enumerate() {
                let headers: Vec<(&[u8], Option<&[u8]>)> = r
                    .headers
                    .iter()
                    .map(|(k, v)| (k.as_bytes(), v.as_deref()))
                    .collect();
                let appended = match r.offset {
                    Some(offset) => builder.append_at(
                        i32::try_from(offset - d.base_offset)
                            .map_err(|e| format!("record {i}: {e}"))?,
                        r.timestamp,
                        r.key.as_deref(),
                        r.value.as_deref(),
                        &headers,
                    ),
                    None => {
                        builder.append(r.timestamp, r.key.as_deref(), r.value.as_deref(), &headers)
                    }
                };
                appended.map_err(|e| format!("append of record {i}: {e:?}"))?;
            }
            builder.build().map_err(|e| format!("build: {e:?}"))
        }
        Batch::Marker(m) => {
            let marker = if m.commit {
                ControlRecord::Commit {
                    version: 0,
                    coordinator_epoch: m.coordinator_epoch,
                }
            } else {
                ControlRecord::Abort {
                    version: 0,
                    coordinator_epoch: m.coordinator_epoch,
                }
            };
            let (key, value) = marker.encode();
            let mut builder = BatchBuilder::new(Compression::None)
                .base_offset(m.base_offset)
                .producer(m.producer_id, m.producer_epoch, -1)
                .transactional(true)
                .control(true)
                .partition_leader_epoch(m.leader_epoch);
            builder
                .append(m.timestamp, Some(&key), Some(&value), &[])
                .map_err(|e| format!("append: {e:?}"))?;
            builder.build().map_err(|e| format!("build: {e:?}"))
        }
    }
}

/// kwire's bytes for a record set: its batches one after the other.
fn kwire_build_set(set: &[Batch]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for (i, b) in set.iter().enumerate() {
        out.extend_from_slice(&kwire_build(b).map_err(|e| format!("batch {i}: {e}"))?);
    }
    Ok(out)
}

/// A small deterministic generator (64-bit LCG) for bulky cases.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        // Text-like, so that every codec has something to compress.
        (0..n)
            .map(|_| b"kafka wire records "[self.below(19) as usize])
            .collect()
    }
}

/// `n` records with varied sizes, null and empty keys and values, and up to four headers each
/// (duplicate keys, null values), timestamps around `t0`.
fn mixed_records(n: usize, seed: u64, t0: i64) -> Vec<Rec> {
    let mut g = Lcg(seed);
    (0..n)
        .map(|i| {
            let key = match g.below(5) {
                0 => None,
                1 => Some(vec![]),
                _ => Some(format!("key-{i}").into_bytes()),
            };
            let value = match g.below(7) {
                0 => None,
                1 => Some(vec![]),
                _ => {
                    let n = g.below(300) as usize;
                    Some(g.bytes(n))
                }
            };
            let mut r = Rec {
                offset: None,
                timestamp: t0 + g.below(10_000) as i64,
                key,
                value,
                headers: vec![],
            };
            for h in 0..g.below(5) {
                let k = ["trace", "trace", "ünïcødé", "x", ""][g.below(5) as usize];
                let v = if g.below(4) == 0 {
                    None
                } else {
                    Some(format!("v{h}").into_bytes())
                };
                r.headers.push((k.to_string(), v));
            }
            r
        })
        .collect()
}

const T0: i64 = 1_700_000_000_000;

/// Uncompressed magic-2 record sets kwire must write byte for byte as Kafka does: (name, set).
fn identical_cases() -> Vec<(&'static str, Vec<Batch>)> {
    let kv = |t| rec(t, Some(b"key"), Some(b"value"));
    let many_headers = (0..100).fold(kv(T0), |r, i| {
        r.header(&format!("h{i}"), Some(format!("{i}").as_bytes()))
    });
    let idempotent = Data {
        producer_id: 1234,
        producer_epoch: 5,
        base_sequence: 42,
        ..data(vec![kv(T0), kv(T0 + 1)])
    };
    let commit = Marker {
        commit: true,
        coordinator_epoch: 7,
        base_offset: 10,
        timestamp: T0,
        leader_epoch: 3,
        producer_id: 99,
        producer_epoch: 2,
    };
    vec![
        ("one record", one(data(vec![kv(T0)]))),
        ("null key", one(data(vec![rec(T0, None, Some(b"v"))]))),
        (
            "null value (tombstone)",
            one(data(vec![rec(T0, Some(b"k"), None)])),
        ),
        (
            "null key and null value",
            one(data(vec![rec(T0, None, None)])),
        ),
        (
            "empty key and empty value",
            one(data(vec![rec(T0, Some(b""), Some(b""))])),
        ),
        (
            "empty key, null value",
            one(data(vec![rec(T0, Some(b""), None)])),
        ),
        (
            "three headers",
            one(data(vec![kv(T0)
                .header("a", Some(b"1"))
                .header("b", Some(b"2"))
                .header("c", Some(b"3"))])),
        ),
        (
            "duplicate header keys",
            one(data(vec![kv(T0)
                .header("k", Some(b"1"))
                .header("k", Some(b"2"))
                .header("j", Some(b"x"))
                .header("k", Some(b"3"))])),
        ),
        (
            "null header values",
            one(data(vec![kv(T0)
                .header("n", None)
                .header("m", Some(b""))
                .header("n", None)])),
        ),
        (
            "non-ASCII header keys",
            one(data(vec![kv(T0)
                .header("é", Some(b"1"))
                .header("日本語", Some(b"2"))
                .header("🦀", None)
                .header("Ωmega", Some(b"4"))])),
        ),
        (
            "empty header key",
            one(data(vec![kv(T0).header("", Some(b"v")).header("", None)])),
        ),
        ("100 headers", one(data(vec![many_headers]))),
        (
            "timestamps 2^40 ms apart (delta beyond int32, kafka-protocol-rs #158)",
            one(data(vec![kv(0), kv(1 << 40)])),
        ),
        (
            "timestamp delta below int32's minimum",
            one(data(vec![kv(1 << 40), kv(0), kv(1 << 41)])),
        ),
        (
            "decreasing timestamps, max in the middle",
            one(data(vec![kv(T0 + 5), kv(T0 + 9), kv(T0 + 1)])),
        ),
        ("no timestamps (-1)", one(data(vec![kv(-1), kv(-1)]))),
        ("timestamp 0 then -1", one(data(vec![kv(0), kv(-1)]))),
        (
            "LogAppendTime",
            one(Data {
                ts: Ts::LogAppend,
                log_append_time: T0 + 9,
                ..data(vec![kv(T0), kv(T0 + 9), kv(T0 + 3)])
            }),
        ),
        ("idempotent producer", one(idempotent.clone())),
        (
            "producer id, epoch and sequence at their maxima",
            one(Data {
                producer_id: i64::MAX,
                producer_epoch: i16::MAX,
                base_sequence: i32::MAX,
                ..data(vec![kv(T0)])
            }),
        ),
        (
            "transactional",
            one(Data {
                transactional: true,
                producer_id: 77,
                producer_epoch: 1,
                base_sequence: 0,
                ..data(vec![kv(T0), kv(T0)])
            }),
        ),
        (
            "transactional, LogAppendTime, leader epoch",
            one(Data {
                transactional: true,
                producer_id: 77,
                producer_epoch: 3,
                base_sequence: 10,
                ts: Ts::LogAppend,
                log_append_time: T0 + 2,
                leader_epoch: 12,
                ..data(vec![kv(T0 + 2), kv(T0)])
            }),
        ),
        (
            "partition leader epoch 42",
            one(Data {
                leader_epoch: 42,
                ..data(vec![kv(T0)])
            }),
        ),
        (
            "base offset 2^40",
            one(Data {
                base_offset: 1 << 40,
                ..data(vec![kv(T0), kv(T0)])
            }),
        ),
        (
            "base offset near int64's maximum",
            one(Data {
                base_offset: i64::MAX - 10,
                ..data(vec![kv(T0), kv(T0)])
            }),
        ),
        ("COMMIT marker", vec![Batch::Marker(commit.clone())]),
        (
            "ABORT marker",
            vec![Batch::Marker(Marker {
                commit: false,
                coordinator_epoch: i32::MAX,
                base_offset: 1 << 33,
                timestamp: 0,
                leader_epoch: -1,
                producer_id: 5,
                producer_epoch: 0,
            })],
        ),
        (
            "varint boundaries: keys of 63, 64, 8191 and 8192 bytes",
            one(data(
                [63usize, 64, 8191, 8192]
                    .iter()
                    .map(|&n| rec(T0, Some(&vec![b'k'; n]), Some(&vec![b'v'; n])))
                    .collect(),
            )),
        ),
        (
            "a 256 KiB value",
            one(data(vec![rec(
                T0,
                Some(b"big"),
                Some(&vec![0xa5; 256 * 1024]),
            )])),
        ),
        ("1 record of many sizes", one(data(mixed_records(1, 1, T0)))),
        ("1,000 records", one(data(mixed_records(1000, 2, T0)))),
        (
            "1,000 records, idempotent, leader epoch",
            one(Data {
                producer_id: 8,
                producer_epoch: 1,
                base_sequence: 1000,
                leader_epoch: 4,
                ..data(mixed_records(1000, 3, T0))
            }),
        ),
        (
            "three batches: data, COMMIT marker, data",
            vec![
                Batch::Data(Data {
                    base_offset: 0,
                    ..idempotent.clone()
                }),
                Batch::Marker(Marker {
                    base_offset: 2,
                    ..commit
                }),
                Batch::Data(Data {
                    base_offset: 3,
                    base_sequence: 44,
                    ..idempotent
                }),
            ],
        ),
    ]
}

/// Record sets for the codec round trips, compressed with `codec`: (name, set). Each batch says
/// whether kwire can write it ([`inexpressible`]).
fn codec_cases(codec: Compression) -> Vec<(String, Vec<Batch>)> {
    let c = |d: Data| {
        one(Data {
            compression: codec,
            ..d
        })
    };
    let mut cases: Vec<(String, Vec<Batch>)> = vec![
        (
            "one record".into(),
            c(data(vec![rec(T0, Some(b"key"), Some(b"value"))])),
        ),
        (
            "nulls, empties and headers".into(),
            c(data(vec![
                rec(T0, None, Some(b"v"))
                    .header("k", Some(b"1"))
                    .header("k", None)
                    .header("日本", Some(b"")),
                rec(T0 + 1, Some(b"k"), None),
                rec(T0 + 2, None, None).header("", None),
                rec(T0 + 3, Some(b""), Some(b"")),
            ])),
        ),
        ("1,000 records".into(), c(data(mixed_records(1000, 4, T0)))),
        (
            "timestamps 2^40 ms apart".into(),
            c(data(vec![
                rec(1 << 40, None, Some(b"a")),
                rec(0, None, Some(b"b")),
                rec(-1, None, None),
            ])),
        ),
        (
            "idempotent, transactional, leader epoch, base offset".into(),
            c(Data {
                base_offset: 1 << 35,
                producer_id: 4242,
                producer_epoch: 7,
                base_sequence: 100,
                transactional: true,
                leader_epoch: 9,
                ..data(mixed_records(20, 5, T0))
            }),
        ),
        (
            "LogAppendTime".into(),
            c(Data {
                ts: Ts::LogAppend,
                log_append_time: T0 + 50,
                ..data(vec![
                    rec(T0 + 50, None, Some(b"x")),
                    rec(T0, None, Some(b"y")),
                ])
            }),
        ),
        (
            "LogAppendTime after the records".into(),
            c(Data {
                ts: Ts::LogAppend,
                log_append_time: T0 + 60_000,
                ..data(vec![rec(T0, None, Some(b"x"))])
            }),
        ),
        (
            "offset gaps, as compaction leaves".into(),
            c(Data {
                base_offset: 100,
                ..data(vec![
                    rec(T0, Some(b"a"), Some(b"1")).at(103),
                    rec(T0, Some(b"b"), Some(b"2")).at(109),
                ])
            }),
        ),
        (
            "delete horizon".into(),
            c(Data {
                delete_horizon: T0 + 86_400_000,
                ..data(vec![
                    rec(T0, Some(b"a"), None),
                    rec(T0 + 5, Some(b"b"), Some(b"2")),
                ])
            }),
        ),
        (
            "two batches".into(),
            vec![
                Batch::Data(Data {
                    compression: codec,
                    ..data(mixed_records(10, 6, T0))
                }),
                Batch::Data(Data {
                    compression: codec,
                    base_offset: 10,
                    ..data(mixed_records(10, 7, T0))
                }),
            ],
        ),
    ];
    let levels: &[i32] = match codec {
        Compression::Gzip => &[1, 9],
        Compression::Lz4 => &[1, 17],
        Compression::Zstd => &[-5, 1, 19],
        _ => &[],
    };
    for &l in levels {
        cases.push((
            format!("1,000 records, level {l}"),
            one(Data {
                compression: codec,
                level: Some(l),
                ..data(mixed_records(1000, 8, T0))
            }),
        ));
    }
    cases
}

/// Legacy message sets (magic 0 and 1) Kafka's builder still writes: (name, set).
fn legacy_cases() -> Vec<(String, Vec<Batch>)> {
    let mut cases = Vec::new();
    for magic in [0i8, 1] {
        for codec in [
            Compression::None,
            Compression::Gzip,
            Compression::Snappy,
            Compression::Lz4,
        ] {
            let ts = if magic == 0 {
                Ts::NoTimestamp
            } else {
                Ts::Create
            };
            let t = |x: i64| if magic == 0 { -1 } else { x };
            let d = |records: Vec<Rec>| Data {
                magic,
                compression: codec,
                ts,
                ..data(records)
            };
            let mut add = |what: &str, set: Vec<Batch>| {
                cases.push((format!("magic {magic}, {}: {what}", codec.name()), set))
            };
            add(
                "three records",
                one(d(vec![
                    rec(t(T0), Some(b"k1"), Some(b"v1")),
                    rec(t(T0 + 1), Some(b"k2"), Some(b"v2")),
                    rec(t(T0 - 1), None, Some(b"v3")),
                ])),
            );
            add(
                "null and empty keys and values",
                one(d(vec![
                    rec(t(T0), None, None),
                    rec(t(T0), Some(b""), Some(b"")),
                    rec(t(T0), Some(b"k"), None),
                    rec(t(T0), None, Some(b"v")),
                ])),
            );
            let hundred: Vec<Rec> = mixed_records(100, 9, T0)
                .into_iter()
                .map(|r| Rec {
                    headers: vec![],
                    timestamp: t(r.timestamp),
                    ..r
                })
                .collect();
            add("100 records", one(d(hundred)));
            add(
                "base offset 1000",
                one(Data {
                    base_offset: 1000,
                    ..d(vec![
                        rec(t(T0), Some(b"k"), Some(b"v")),
                        rec(t(T0), None, Some(b"w")),
                    ])
                }),
            );
            if magic == 1 {
                add(
                    "LogAppendTime",
                    one(Data {
                        ts: Ts::LogAppend,
                        log_append_time: T0 + 7,
                        ..d(vec![
                            rec(T0, Some(b"k"), Some(b"v")),
                            rec(T0 + 1, None, Some(b"w")),
                        ])
                    }),
                );
            }
        }
    }
    cases
}

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

/// One JVM running `dev.kwire.oracle.RecordsOracle`.
struct RecordsOracle(Jvm);

impl RecordsOracle {
    fn call(&mut self, op: u8, arg: &[u8]) -> Result<Vec<u8>, String> {
        let j = &mut self.0;
        j.put(&[op]);
        j.put_blob(arg);
        j.flush();
        match j.u8() {
            0 => Ok(j.blob()),
            _ => Err(j.string()),
        }
    }

    /// Kafka's bytes for `set`.
    fn build(&mut self, set: &[Batch]) -> Result<Vec<u8>, String> {
        self.call(b'B', java_spec(set).to_string().as_bytes())
    }

    /// What Kafka reads from `bytes` (the JSON of the class doc).
    fn decode(&mut self, bytes: &[u8]) -> Result<Value, String> {
        let json = self.call(b'D', bytes)?;
        Ok(serde_json::from_slice(&json).expect("JSON from Java"))
    }
}

/// The one JVM of this module's tests, or `None` when Java is missing (and this is not CI).
fn oracle() -> Option<MutexGuard<'static, RecordsOracle>> {
    static ORACLE: OnceLock<Mutex<RecordsOracle>> = OnceLock::new();
    if !java_ready("records java oracle") {
        return None;
    }
    let m = ORACLE.get_or_init(|| {
        Mutex::new(RecordsOracle(Jvm::start(
            &classpath(),
            "dev.kwire.oracle.RecordsOracle",
        )))
    });
    // A panicking test leaves the channel between frames (every frame is read whole first).
    Some(m.lock().unwrap_or_else(|e| e.into_inner()))
}

// ---------------------------------------------------------------------------------------------
// kwire's reading, in the oracle's JSON form
// ---------------------------------------------------------------------------------------------

fn hex_or_null(b: Option<&[u8]>) -> Value {
    b.map_or(Value::Null, |b| Value::String(kwire_tests::hex(b)))
}

/// The header fields of a batch as the oracle renders Kafka's getters.
fn header_json(h: &BatchHeader, compression: Compression) -> Value {
    let a = h.attributes;
    let legacy = h.magic < 2;
    let mut o = json!({
        "baseOffset": h.base_offset,
        "lastOffset": h.last_offset(),
        "sizeInBytes": h.size(),
        "partitionLeaderEpoch": h.partition_leader_epoch,
        "magic": h.magic,
        "crc": h.crc,
        "compression": compression.name(),
        "timestampType": match (h.magic, a.timestamp_type()) {
            (0, _) => "NoTimestampType",
            (_, TimestampType::CreateTime) => "CreateTime",
            (_, TimestampType::LogAppendTime) => "LogAppendTime",
        },
        "isTransactional": a.is_transactional(),
        "isControl": a.is_control(),
        "deleteHorizonMs": if a.has_delete_horizon() { json!(h.base_timestamp) } else { Value::Null },
        "maxTimestamp": h.max_timestamp,
        "producerId": h.producer_id,
        "producerEpoch": h.producer_epoch,
        "baseSequence": h.base_sequence,
        "recordCount": if legacy { Value::Null } else { json!(h.record_count) },
    });
    if !legacy {
        o["baseTimestamp"] = json!(h.base_timestamp);
    }
    o
}

/// A record as the oracle renders Kafka's `Record`.
fn record_json<'a>(
    offset: i64,
    timestamp: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: impl Iterator<Item = (&'a [u8], Option<&'a [u8]>)>,
    control: Option<Result<ControlRecord, String>>,
) -> Value {
    let mut o = json!({
        "offset": offset,
        "timestamp": timestamp,
        "key": hex_or_null(key),
        "value": hex_or_null(value),
        "headers": headers.map(|(k, v)| json!({"key": String::from_utf8_lossy(k), "value": hex_or_null(v)})).collect::<Vec<_>>(),
    });
    match control {
        None => {}
        Some(Ok(ControlRecord::Commit {
            coordinator_epoch, ..
        })) => {
            o["controlType"] = json!("COMMIT");
            o["coordinatorEpoch"] = json!(coordinator_epoch);
        }
        Some(Ok(ControlRecord::Abort {
            coordinator_epoch, ..
        })) => {
            o["controlType"] = json!("ABORT");
            o["coordinatorEpoch"] = json!(coordinator_epoch);
        }
        Some(Ok(other)) => o["controlType"] = json!(format!("{other:?}")),
        Some(Err(e)) => o["controlType"] = json!(format!("error: {e}")),
    }
    o
}

/// kwire's owned decoding of `input`, in the oracle's JSON form.
fn kwire_owned(input: &[u8]) -> Result<Value, String> {
    let bytes = Bytes::copy_from_slice(input);
    let set = RecordSet::decode(&bytes, &DecodeOptions::default()).map_err(|e| format!("{e:?}"))?;
    let batches: Vec<Value> = set
        .batches
        .iter()
        .map(|b| {
            let mut o = header_json(&b.header, b.compression());
            let control = b.header.attributes.is_control();
            o["records"] = b
                .records
                .iter()
                .map(|r| {
                    record_json(
                        b.offset_of(r),
                        b.timestamp_of(r),
                        r.key.as_deref(),
                        r.value.as_deref(),
                        r.headers.iter().map(|h| (h.key, h.value)),
                        control.then(|| {
                            b.control_record(r)
                                .expect("a control batch's record")
                                .map_err(|e| format!("{e:?}"))
                        }),
                    )
                })
                .collect();
            o
        })
        .collect();
    Ok(json!({ "validBytes": input.len() - set.partial_tail, "batches": batches }))
}

/// kwire's borrowed view of `input` (magic 2; compressed batches through `decompress`), in the
/// oracle's JSON form.
fn kwire_view(input: &[u8]) -> Result<Value, String> {
    let opts = DecodeOptions::default();
    let view = RecordSetRef::new(input);
    let mut iter = view.batches();
    let mut batches = Vec::new();
    let mut buf = Vec::new();
    for (i, b) in iter.by_ref().enumerate() {
        let b = b.map_err(|e| format!("batch {i}: {e:?}"))?;
        b.check_crc().map_err(|e| format!("batch {i} CRC: {e:?}"))?;
        let h = *b.header();
        let compression = h
            .attributes
            .compression()
            .map_err(|bits| format!("batch {i}: compression bits {bits}"))?;
        let mut o = header_json(&h, compression);
        let records = if compression == Compression::None {
            b.records()
        } else {
            buf.clear();
            b.decompress(&opts, &mut buf)
        }
        .map_err(|e| format!("batch {i} records: {e:?}"))?;
        let mut recs = Vec::new();
        for (j, r) in records.enumerate() {
            let r = r.map_err(|e| format!("batch {i} record {j}: {e:?}"))?;
            let timestamp = match h.attributes.timestamp_type() {
                TimestampType::LogAppendTime => h.max_timestamp,
                TimestampType::CreateTime => h.base_timestamp.wrapping_add(r.timestamp_delta),
            };
            let control = h.attributes.is_control().then(|| {
                ControlRecord::parse(r.key.unwrap_or_default(), r.value)
                    .map_err(|e| format!("{e:?}"))
            });
            recs.push(record_json(
                h.base_offset + i64::from(r.offset_delta),
                timestamp,
                r.key,
                r.value,
                r.headers().map(|x| (x.key, x.value)),
                control,
            ));
        }
        o["records"] = Value::Array(recs);
        batches.push(o);
    }
    Ok(json!({ "validBytes": input.len() - iter.partial_tail(), "batches": batches }))
}

/// Base64 (kwire's JSON form) to the oracle's hex.
fn b64_to_hex(v: &Value) -> Value {
    use base64::Engine;
    match v.as_str() {
        None => Value::Null,
        Some(s) => Value::String(kwire_tests::hex(
            &base64::engine::general_purpose::STANDARD
                .decode(s)
                .expect("base64 in kwire's JSON form"),
        )),
    }
}

/// kwire's expanded JSON form of `input` (`records::json::record_set_to_json`, what
/// `kwire decode --records` prints), translated field by field into the oracle's JSON form.
fn kwire_json_form(input: &[u8]) -> Result<Value, String> {
    let v = record_set_to_json(&Bytes::copy_from_slice(input), &DecodeOptions::default())
        .map_err(|e| format!("{e:?}"))?;
    let i64_of = |b: &Value, k: &str| {
        b[k].as_i64()
            .unwrap_or_else(|| panic!("{k} in kwire's JSON form: {}", b[k]))
    };
    let batches: Vec<Value> = v["batches"]
        .as_array()
        .expect("batches in kwire's JSON form")
        .iter()
        .map(|b| {
            let magic = i64_of(b, "magic");
            let legacy = magic < 2;
            let mut o = json!({
                "baseOffset": b["baseOffset"],
                "lastOffset": i64_of(b, "baseOffset") + i64_of(b, "lastOffsetDelta"),
                "sizeInBytes": i64_of(b, "batchLength") + 12,
                "partitionLeaderEpoch": b["partitionLeaderEpoch"],
                "magic": b["magic"],
                "crc": b["crc"],
                "compression": b["compression"],
                "timestampType": if magic == 0 { json!("NoTimestampType") } else { b["timestampType"].clone() },
                "isTransactional": b["isTransactional"],
                "isControl": b["isControl"],
                "deleteHorizonMs": if b["hasDeleteHorizon"] == json!(true) { b["baseTimestamp"].clone() } else { Value::Null },
                "maxTimestamp": b["maxTimestamp"],
                "producerId": b["producerId"],
                "producerEpoch": b["producerEpoch"],
                "baseSequence": b["baseSequence"],
                "recordCount": if legacy { Value::Null } else { b["recordCount"].clone() },
            });
            if !legacy {
                o["baseTimestamp"] = b["baseTimestamp"].clone();
            }
            let records: Vec<Value> = b["records"]
                .as_array()
                .expect("records in kwire's JSON form")
                .iter()
                .map(|r| {
                    let mut ro = json!({
                        "offset": r["offset"],
                        "timestamp": r["timestamp"],
                        "key": b64_to_hex(&r["key"]),
                        "value": b64_to_hex(&r["value"]),
                        "headers": r["headers"].as_array().into_iter().flatten()
                            .map(|h| json!({"key": h["key"], "value": b64_to_hex(&h["value"])}))
                            .collect::<Vec<_>>(),
                    });
                    if let Some(c) = r.get("control") {
                        match c["type"].as_str() {
                            Some(t @ ("commit" | "abort")) => {
                                ro["controlType"] = json!(t.to_uppercase());
                                ro["coordinatorEpoch"] = c["coordinatorEpoch"].clone();
                            }
                            _ => ro["controlType"] = c.clone(),
                        }
                    }
                    ro
                })
                .collect();
            o["records"] = Value::Array(records);
            o
        })
        .collect();
    let tail = v
        .get("partialTailBytes")
        .and_then(Value::as_u64)
        .unwrap_or(0) as usize;
    Ok(json!({ "validBytes": input.len() - tail, "batches": batches }))
}

// ---------------------------------------------------------------------------------------------
// Comparing
// ---------------------------------------------------------------------------------------------

/// The first place where `a` and `b` differ, as a JSON path with both values.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                first_difference(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    &format!("{path}.{k}"),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]"))),
        (Value::Array(x), Value::Array(y)) => {
            Some(format!("{path}: {} items vs {}", x.len(), y.len()))
        }
        _ if a == b => None,
        _ => Some(format!("{path}: {} vs {}", short(a), short(b))),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 120 {
        format!(
            "{}…",
            &s[..s
                .char_indices()
                .take_while(|(i, _)| *i < 120)
                .last()
                .map_or(0, |(i, c)| i + c.len_utf8())]
        )
    } else {
        s
    }
}

/// Drops what differs legitimately between two encodings of the same records (compressed bytes
/// differ across libraries): each batch's size and CRC.
fn without_size_and_crc(mut v: Value) -> Value {
    if let Some(batches) = v.get_mut("batches").and_then(Value::as_array_mut) {
        for b in batches {
            if let Some(o) = b.as_object_mut() {
                o.remove("sizeInBytes");
                o.remove("crc");
            }
        }
    }
    if let Some(o) = v.as_object_mut() {
        o.remove("validBytes");
    }
    v
}

/// Where the first byte that differs lies: batch index and the header field (or the record
/// bytes) of a magic-2 batch, read from `expected`'s batch lengths.
fn where_bytes_differ(expected: &[u8], got: &[u8]) -> String {
    let Some(at) = expected
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .or_else(|| (expected.len() != got.len()).then(|| expected.len().min(got.len())))
    else {
        return "no difference".into();
    };
    let (mut start, mut batch) = (0usize, 0usize);
    while start + 12 <= expected.len() {
        let len = i32::from_be_bytes(expected[start + 8..start + 12].try_into().unwrap());
        let end = start + 12 + usize::try_from(len).unwrap_or(0);
        if at < end || end <= start {
            break;
        }
        start = end;
        batch += 1;
    }
    let off = at - start;
    const FIELDS: &[(usize, &str)] = &[
        (8, "baseOffset"),
        (12, "batchLength"),
        (16, "partitionLeaderEpoch"),
        (17, "magic"),
        (21, "crc"),
        (23, "attributes"),
        (27, "lastOffsetDelta"),
        (35, "baseTimestamp"),
        (43, "maxTimestamp"),
        (51, "producerId"),
        (53, "producerEpoch"),
        (57, "baseSequence"),
        (61, "recordCount"),
    ];
    let field = FIELDS.iter().find(|(end, _)| off < *end).map_or_else(
        || format!("records, byte {} after the header", off - BatchHeader::SIZE),
        |(_, f)| f.to_string(),
    );
    format!(
        "byte {at} (batch {batch}, byte {off}: {field}): Kafka {:02x?}, kwire {:02x?}",
        expected
            .get(at..(at + 8).min(expected.len()))
            .unwrap_or_default(),
        got.get(at..(at + 8).min(got.len())).unwrap_or_default()
    )
}

/// One of kwire's readings of a record set, in the oracle's JSON form.
type Reader = fn(&[u8]) -> Result<Value, String>;

/// kwire reads the magic-2 record set `bytes` (owned, borrowed, and in its JSON form) into exactly what Kafka reads
/// (`java`). Returns the failures.
fn kwire_reads_as_kafka(what: &str, bytes: &[u8], java: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    let readers: [(&str, Reader); 2] = [
        ("RecordSet::decode", kwire_owned),
        ("RecordSetRef", kwire_view),
    ];
    for (reader, read) in readers {
        match read(bytes) {
            Ok(k) => {
                if let Some(d) = first_difference(java, &k, "") {
                    failures.push(format!("{what}: {reader} of Kafka's bytes differs from Kafka's reading at {d} (Kafka vs kwire)"));
                }
            }
            Err(e) => failures.push(format!(
                "{what}: {reader} refused Kafka's bytes: {e}\n  Kafka: {}",
                short_hex(bytes)
            )),
        }
    }
    failures
}

fn short_hex(b: &[u8]) -> String {
    if b.len() > 400 {
        format!("{}… ({} bytes)", kwire_tests::hex(&b[..400]), b.len())
    } else {
        kwire_tests::hex(b)
    }
}

fn report(title: &str, failures: &[String]) {
    for f in failures.iter().take(40) {
        println!("DISAGREEMENT {f}");
    }
    assert!(
        failures.is_empty(),
        "{title}: {} disagreements between kwire and kafka-clients 4.4.0 (listed above)",
        failures.len()
    );
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn uncompressed_batches_are_byte_identical_to_kafkas_memory_records_builder() {
    let Some(mut oracle) = oracle() else { return };
    let cases = identical_cases();
    let (mut identical, mut read_same, mut reencoded) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for (name, set) in &cases {
        let java = match oracle.build(set) {
            Ok(b) => b,
            Err(e) => panic!("{name}: Kafka's builder refused the case: {e}"),
        };
        let java_read = oracle
            .decode(&java)
            .unwrap_or_else(|e| panic!("{name}: Kafka cannot read its own bytes: {e}"));
        match kwire_build_set(set) {
            Ok(kwire) if kwire == java => identical += 1,
            Ok(kwire) => failures.push(format!(
                "{name}: bytes differ at {}\n  Kafka: {}\n  kwire: {}",
                where_bytes_differ(&java, &kwire),
                short_hex(&java),
                short_hex(&kwire)
            )),
            Err(e) => failures.push(format!("{name}: kwire cannot write it: {e}")),
        }
        let f = kwire_reads_as_kafka(name, &java, &java_read);
        if f.is_empty() {
            read_same += 1;
        }
        failures.extend(f);
        match kwire_reencode(&java) {
            Ok(k) if k == java => reencoded += 1,
            Ok(k) => failures.push(format!(
                "{name}: RecordBatch::encode of kwire's decoding differs from Kafka's bytes at {}",
                where_bytes_differ(&java, &k)
            )),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    println!(
        "records java oracle: {} uncompressed cases; {identical} BatchBuilder outputs byte-identical with MemoryRecordsBuilder's; \
         {read_same} read by kwire (owned, view and JSON form) as Kafka reads them; {reencoded} written back by RecordBatch::encode byte for byte",
        cases.len()
    );
    report("uncompressed", &failures);
    assert!(cases.len() >= 24);
    assert_eq!(
        (identical, read_same, reencoded),
        (cases.len(), cases.len(), cases.len())
    );
}

/// kwire's owned decoding of `bytes`, written back batch by batch with [`RecordBatch::encode`]
/// (magic 2 only).
///
/// [`RecordBatch::encode`]: kwire_protocol::records::RecordBatch::encode
fn kwire_reencode(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let set = RecordSet::decode(&Bytes::copy_from_slice(bytes), &DecodeOptions::default())
        .map_err(|e| format!("decode: {e:?}"))?;
    let mut out = Vec::new();
    for (i, b) in set.batches.iter().enumerate() {
        out.extend_from_slice(
            &b.encode()
                .map_err(|e| format!("encode of batch {i}: {e:?}"))?,
        );
    }
    Ok(out)
}

/// Kafka reads `kwire` (kwire's bytes for a record set Kafka wrote as `java` and read as
/// `java_read`) into the same batches and records: exactly, bytes included, when uncompressed;
/// but for each batch's size and CRC when compressed.
fn kafka_reads_kwire(
    oracle: &mut RecordsOracle,
    what: &str,
    codec: Compression,
    kwire: &[u8],
    java: &[u8],
    java_read: &Value,
) -> Result<(), String> {
    if codec == Compression::None && kwire != java {
        return Err(format!(
            "{what}: bytes differ at {}",
            where_bytes_differ(java, kwire)
        ));
    }
    let from_kwire = oracle.decode(kwire).map_err(|e| {
        format!(
            "{what}: Kafka refused kwire's bytes: {e}\n  kwire: {}",
            short_hex(kwire)
        )
    })?;
    let (expected, got) = if codec == Compression::None {
        (java_read.clone(), from_kwire)
    } else {
        (
            without_size_and_crc(java_read.clone()),
            without_size_and_crc(from_kwire),
        )
    };
    match first_difference(&expected, &got, "") {
        None => Ok(()),
        Some(d) => Err(format!(
            "{what}: Kafka reads kwire's bytes differently from its own at {d} (own vs kwire's)\n  kwire: {}",
            short_hex(kwire)
        )),
    }
}

/// For `codec`, each case of [`codec_cases`]:
///
/// 1. Kafka builds; kwire reads (owned and view) exactly what Kafka reads;
/// 2. kwire writes its owned decoding back ([`RecordBatch::encode`]); Kafka reads it as its own;
/// 3. kwire's [`BatchBuilder`] writes the case (where it can express it); Kafka reads it as its
///    own.
///
/// For `none`, 2 and 3 must give Kafka's bytes exactly.
///
/// [`RecordBatch::encode`]: kwire_protocol::records::RecordBatch::encode
fn codec_round_trips(codec: Compression) {
    let Some(mut oracle) = oracle() else { return };
    let cases = codec_cases(codec);
    let (mut java_to_kwire, mut encode_to_java, mut json_to_java, mut builder_to_java) =
        (0usize, 0usize, 0usize, 0usize);
    let mut one_way = Vec::new();
    let mut failures = Vec::new();
    for (name, set) in &cases {
        let what = format!("{} {name}", codec.name());
        let java = oracle
            .build(set)
            .unwrap_or_else(|e| panic!("{what}: Kafka's builder refused the case: {e}"));
        let java_read = oracle
            .decode(&java)
            .unwrap_or_else(|e| panic!("{what}: Kafka cannot read its own bytes: {e}"));
        let f = kwire_reads_as_kafka(&what, &java, &java_read);
        if f.is_empty() {
            java_to_kwire += 1;
        }
        failures.extend(f);
        let encoded = kwire_reencode(&java)
            .map_err(|e| format!("{what}: RecordBatch::encode of kwire's decoding: {e}"))
            .and_then(|k| {
                kafka_reads_kwire(
                    &mut oracle,
                    &format!("{what} (RecordBatch::encode)"),
                    codec,
                    &k,
                    &java,
                    &java_read,
                )
            });
        match encoded {
            Ok(()) => encode_to_java += 1,
            Err(e) => failures.push(e),
        }
        let from_json =
            record_set_to_json(&Bytes::copy_from_slice(&java), &DecodeOptions::default())
                .map_err(|e| format!("{e:?}"))
                .and_then(|v| records_from_json(&v).map_err(|e| format!("{e:?}")))
                .map_err(|e| format!("{what}: records_from_json of kwire's JSON form: {e}"))
                .and_then(|k| {
                    kafka_reads_kwire(
                        &mut oracle,
                        &format!("{what} (records_from_json)"),
                        codec,
                        &k,
                        &java,
                        &java_read,
                    )
                });
        match from_json {
            Ok(()) => json_to_java += 1,
            Err(e) => failures.push(e),
        }
        let why_not = set.iter().find_map(|b| match b {
            Batch::Data(d) => inexpressible(d),
            Batch::Marker(_) => None,
        });
        if let Some(why) = why_not {
            one_way.push(format!("{name} ({why})"));
            continue;
        }
        let built = kwire_build_set(set)
            .map_err(|e| format!("{what}: kwire cannot write it: {e}"))
            .and_then(|k| {
                kafka_reads_kwire(
                    &mut oracle,
                    &format!("{what} (BatchBuilder)"),
                    codec,
                    &k,
                    &java,
                    &java_read,
                )
            });
        match built {
            Ok(()) => builder_to_java += 1,
            Err(e) => failures.push(e),
        }
    }
    println!(
        "records java oracle, {}: {} cases; Kafka → kwire: {java_to_kwire} read as Kafka reads them (owned, view, JSON form); \
         kwire → Kafka: {encode_to_java} RecordBatch::encode, {json_to_java} records_from_json and {builder_to_java} BatchBuilder outputs read as Kafka's own; \
         not expressible with BatchBuilder ({}): {}",
        codec.name(),
        cases.len(),
        one_way.len(),
        one_way.join("; ")
    );
    report(codec.name(), &failures);
    assert_eq!(java_to_kwire, cases.len());
    assert_eq!(encode_to_java, cases.len());
    assert_eq!(json_to_java, cases.len());
    assert_eq!(builder_to_java + one_way.len(), cases.len());
}

macro_rules! codec_tests {
    ($($name:ident: $codec:expr;)*) => {$(
        #[test]
        #[cfg_attr(
            not(kwire_java),
            ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
        )]
        fn $name() {
            codec_round_trips($codec);
        }
    )*};
}

codec_tests! {
    java_and_kwire_read_each_others_uncompressed_batches: Compression::None;
    java_and_kwire_read_each_others_gzip_batches: Compression::Gzip;
    java_and_kwire_read_each_others_snappy_batches: Compression::Snappy;
    java_and_kwire_read_each_others_lz4_batches: Compression::Lz4;
    java_and_kwire_read_each_others_zstd_batches: Compression::Zstd;
}

/// Legacy cases kwire reads wrongly today: (case name prefix, what is wrong). They still run and
/// are printed; an entry no failing case meets fails the test (kwire was fixed), so that it is
/// removed.
const KNOWN_KWIRE_BUGS: &[(&str, &str)] = &[];

/// Kafka's reading of a record set, flattened to its records (offset, timestamp, key, value,
/// headers) with each record's magic, compression and timestamp type: legacy wrapper messages
/// and their inner messages may be batches of another shape on either side.
fn flat_records(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for b in v["batches"].as_array().into_iter().flatten() {
        for r in b["records"].as_array().into_iter().flatten() {
            let mut r = r.clone();
            for k in ["magic", "compression", "timestampType"] {
                r[k] = b[k].clone();
            }
            out.push(r);
        }
    }
    out
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn kwire_decodes_kafkas_legacy_message_sets() {
    let Some(mut oracle) = oracle() else { return };
    let cases = legacy_cases();
    let mut same = 0usize;
    let mut failures = Vec::new();
    let mut known: Vec<String> = Vec::new();
    let mut known_met = vec![false; KNOWN_KWIRE_BUGS.len()];
    for (name, set) in &cases {
        let java = oracle
            .build(set)
            .unwrap_or_else(|e| panic!("{name}: Kafka's builder refused the case: {e}"));
        let java_read = oracle
            .decode(&java)
            .unwrap_or_else(|e| panic!("{name}: Kafka cannot read its own bytes: {e}"));
        let readers: [(&str, Reader); 2] = [
            ("RecordSet::decode", kwire_owned),
            ("record_set_to_json", kwire_json_form),
        ];
        let failure = readers.iter().find_map(|(reader, read)| match read(&java) {
            Err(e) => Some(format!("{name}: {reader} refused Kafka's bytes: {e}")),
            Ok(k) => {
                let (a, b) = (
                    Value::Array(flat_records(&java_read)),
                    Value::Array(flat_records(&k)),
                );
                // kwire keeps Kafka's shape (one batch per top-level message, a wrapper's inner
                // messages as its records): the records first, then every batch field.
                first_difference(&a, &b, "records")
                    .or_else(|| first_difference(&java_read, &k, ""))
                    .map(|d| {
                        format!("{name}: {reader} reads other than Kafka at {d} (Kafka vs kwire)")
                    })
            }
        });
        match failure {
            None => same += 1,
            Some(f) => match KNOWN_KWIRE_BUGS
                .iter()
                .position(|(prefix, _)| name.starts_with(prefix))
            {
                Some(i) => {
                    known_met[i] = true;
                    known.push(f);
                }
                None => failures.push(format!("{f}\n  Kafka: {}", short_hex(&java))),
            },
        }
    }
    println!(
        "records java oracle, legacy: {} cases (magic 0 and 1; none, gzip, snappy, lz4), {same} read by kwire (owned and JSON form) as Kafka reads them (records and batch fields), {} known kwire bugs",
        cases.len(),
        known.len()
    );
    for ((prefix, why), met) in KNOWN_KWIRE_BUGS.iter().zip(&known_met) {
        println!("  KNOWN KWIRE BUG, cases \"{prefix}…\": {why}");
        if !met {
            failures.push(format!(
                "the KNOWN_KWIRE_BUGS entry \"{prefix}\" met no failing case (kwire is fixed): remove it"
            ));
        }
    }
    for k in &known {
        println!("    {k}");
    }
    report("legacy", &failures);
    assert_eq!(same + known.len(), cases.len());
}
