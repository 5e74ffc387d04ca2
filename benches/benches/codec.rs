//! Codec speed: kwire beside kafka-protocol 0.18.0 and krabka-protocol 0.8 in one run (criterion).
//!
//! Messages (every peer has these versions):
//!
//! * MetadataResponse v12: 3 brokers, 100 topics × 10 partitions.
//! * FetchResponse v18 carrying 1 MiB of record bytes: 10 topics × 10 partitions × 10 KiB.
//! * ProduceRequest v13 carrying 1 MiB of record bytes: 10 topics × 10 partitions × 10 KiB.
//! * ConsumerGroupHeartbeatRequest v1: 3 subscribed topics, 3 owned topics × 8 partitions.
//!
//! Each group times, per library:
//!
//! * `decode`: the owned message from the bytes (`Bytes` input, so each library can share
//!   records and strings with it where it knows how).
//! * `view`: a borrowed read of the same bytes, then every field the test reads (topic names or
//!   ids, partition indexes, record lengths, …). kwire: `…Ref::parse` (validates the whole message,
//!   then reads in place); krabka: its `borrowed::…` types (`DecodeBorrow`). kafka-protocol has no
//!   borrowed form.
//! * `encode`: the message each library decoded from those bytes (so records are slices of the
//!   same input on every side), into one reused `BytesMut` with room reserved.
//!
//! All sides read the same bytes (kwire's encoding, which each peer decodes and encodes back
//! byte for byte; checked before timing). Records are opaque bytes whose 17th byte is not 2, so no
//! library parses them as record batches (krabka parses v2 batches eagerly; kwire and
//! kafka-protocol never do): the benchmark times the message codec, not a record-batch parser.
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --ignore-rust-version` (see
//! benches/README.md).

use bytes::{Bytes, BytesMut};
use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkGroup, Criterion, Throughput,
};
use kafka_protocol::protocol::{Decodable as KpDecode, Encodable as KpEncode};
use krabka_protocol::borrowed as kb;
use krabka_protocol::owned as ko;
use krabka_protocol::records::RecordsPayloadBorrowed;
use krabka_protocol::{Decode as KrDecode, DecodeBorrow as KrBorrow, Encode as KrEncode};
use kwire_protocol::generated::consumer_group_heartbeat_request::{
    ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatRequestRef, TopicPartitions,
};
use kwire_protocol::generated::fetch_response::{
    FetchResponse, FetchResponseRef, FetchableTopicResponse, PartitionData,
};
use kwire_protocol::generated::metadata_response::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseRef,
    MetadataResponseTopic,
};
use kwire_protocol::generated::produce_request::{
    PartitionProduceData, ProduceRequest, ProduceRequestRef, TopicProduceData,
};
use kwire_protocol::generated::streams_group_heartbeat_request as sghb;
use kwire_protocol::wire::{Encode, Message, Uuid};

/// 10 KiB of opaque record bytes (byte 16 is not the v2 magic 2).
fn records() -> Bytes {
    let r: Vec<u8> = (0..10 * 1024u32).map(|i| (i * 31 % 251) as u8).collect();
    assert_ne!(r[16], 2);
    Bytes::from(r)
}

fn krabka_records_len(r: &Option<RecordsPayloadBorrowed<'_>>) -> usize {
    match r {
        Some(RecordsPayloadBorrowed::Legacy(b)) => b.len(),
        Some(RecordsPayloadBorrowed::V2(_)) => unreachable!("records are opaque bytes"),
        None => 0,
    }
}

/// Checks that each peer encodes back the exact bytes it decoded.
fn same_bytes(name: &str, bytes: &Bytes, kp: &impl KpEncode, kr: &impl KrEncode, version: i16) {
    let mut b = BytesMut::new();
    kp.encode(&mut b, version).unwrap();
    assert_eq!(
        &b[..],
        &bytes[..],
        "{name}: kafka-protocol re-encodes other bytes"
    );
    let mut b = BytesMut::new();
    kr.encode(&mut b, version).unwrap();
    assert_eq!(
        &b[..],
        &bytes[..],
        "{name}: krabka-protocol re-encodes other bytes"
    );
}

/// The three `encode` benchmarks, into one reused buffer with room for the message.
fn encode_all(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    len: usize,
    version: i16,
    ours: &impl Encode,
    kp: &impl KpEncode,
    kr: &impl KrEncode,
) {
    let mut buf = BytesMut::with_capacity(len * 2);
    g.bench_function("kwire/encode", |b| {
        b.iter(|| {
            buf.clear();
            black_box(ours).encode(&mut buf, version).unwrap();
        })
    });
    g.bench_function("kafka-protocol/encode", |b| {
        b.iter(|| {
            buf.clear();
            black_box(kp).encode(&mut buf, version).unwrap();
        })
    });
    g.bench_function("krabka/encode", |b| {
        b.iter(|| {
            buf.clear();
            black_box(kr).encode(&mut buf, version).unwrap();
        })
    });
}

fn metadata() -> MetadataResponse {
    MetadataResponse {
        throttle_time_ms: 0,
        brokers: (0..3)
            .map(|b| MetadataResponseBroker {
                node_id: b,
                host: format!("broker-{b}.kafka.internal").into(),
                port: 9092,
                rack: Some(format!("rack-{b}").into()),
                ..Default::default()
            })
            .collect(),
        cluster_id: Some("kwire-bench-cluster".into()),
        controller_id: 1,
        topics: (0..100)
            .map(|t| MetadataResponseTopic {
                error_code: 0,
                name: Some(format!("orders.events.region-{t:03}").into()),
                topic_id: Uuid::from_u128(0x1234_5678_9abc_def0_u128 * (t as u128 + 1)),
                is_internal: false,
                partitions: (0..10)
                    .map(|p| MetadataResponsePartition {
                        error_code: 0,
                        partition_index: p,
                        leader_id: p % 3,
                        leader_epoch: 17,
                        replica_nodes: vec![p % 3, (p + 1) % 3, (p + 2) % 3].into(),
                        isr_nodes: vec![p % 3, (p + 1) % 3, (p + 2) % 3].into(),
                        offline_replicas: Default::default(),
                        ..Default::default()
                    })
                    .collect(),
                topic_authorized_operations: -2147483648,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn bench_metadata(c: &mut Criterion) {
    const V: i16 = 12;
    type Kp = kafka_protocol::messages::MetadataResponse;
    type Kr = ko::metadata_response::MetadataResponse;
    type KrRef<'a> = kb::metadata_response::MetadataResponse<'a>;
    let bytes = metadata().to_bytes(V).unwrap();
    let ours = MetadataResponse::decode_bytes(bytes.clone(), V).unwrap();
    let kp = Kp::decode(&mut bytes.clone(), V).unwrap();
    let kr = <Kr as KrDecode>::decode(&mut bytes.clone(), V).unwrap();
    same_bytes("metadata", &bytes, &kp, &kr, V);
    let mut g = c.benchmark_group("metadata_response_v12");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("kwire/decode", |b| {
        b.iter(|| MetadataResponse::decode_bytes(black_box(bytes.clone()), V).unwrap())
    });
    g.bench_function("kafka-protocol/decode", |b| {
        b.iter(|| Kp::decode(&mut black_box(bytes.clone()), V).unwrap())
    });
    g.bench_function("krabka/decode", |b| {
        b.iter(|| <Kr as KrDecode>::decode(&mut black_box(bytes.clone()), V).unwrap())
    });
    // Borrowed: every topic's name and every partition's index and leader.
    g.bench_function("kwire/view", |b| {
        b.iter(|| {
            let v = MetadataResponseRef::parse(black_box(&bytes), V).unwrap();
            let mut n = 0usize;
            for t in v.topics().iter() {
                n += t.name().map_or(0, str::len);
                for p in t.partitions().iter() {
                    n += (p.partition_index() + p.leader_id()) as usize;
                }
            }
            n
        })
    });
    g.bench_function("krabka/view", |b| {
        b.iter(|| {
            let v = KrRef::decode_borrow(&mut black_box(&bytes[..]), V).unwrap();
            let mut n = 0usize;
            for t in &v.topics {
                n += t.name.map_or(0, str::len);
                for p in &t.partitions {
                    n += (p.partition_index + p.leader_id) as usize;
                }
            }
            n
        })
    });
    encode_all(&mut g, bytes.len(), V, &ours, &kp, &kr);
    g.finish();
}

fn fetch() -> FetchResponse {
    let records = records();
    FetchResponse {
        throttle_time_ms: 0,
        error_code: 0,
        session_id: 42,
        responses: (0..10)
            .map(|t| FetchableTopicResponse {
                topic_id: Uuid::from_u128(t as u128 + 7),
                partitions: (0..10)
                    .map(|p| PartitionData {
                        partition_index: p,
                        high_watermark: 1_000_000,
                        last_stable_offset: 999_000,
                        log_start_offset: 0,
                        records: Some(records.clone()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn bench_fetch(c: &mut Criterion) {
    const V: i16 = 18;
    type Kp = kafka_protocol::messages::FetchResponse;
    type Kr = ko::fetch_response::FetchResponse;
    type KrRef<'a> = kb::fetch_response::FetchResponse<'a>;
    let bytes = fetch().to_bytes(V).unwrap();
    let ours = FetchResponse::decode_bytes(bytes.clone(), V).unwrap();
    let kp = Kp::decode(&mut bytes.clone(), V).unwrap();
    let kr = <Kr as KrDecode>::decode(&mut bytes.clone(), V).unwrap();
    same_bytes("fetch", &bytes, &kp, &kr, V);
    let mut g = c.benchmark_group("fetch_response_v18_1mib");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("kwire/decode", |b| {
        b.iter(|| FetchResponse::decode_bytes(black_box(bytes.clone()), V).unwrap())
    });
    g.bench_function("kafka-protocol/decode", |b| {
        b.iter(|| Kp::decode(&mut black_box(bytes.clone()), V).unwrap())
    });
    g.bench_function("krabka/decode", |b| {
        b.iter(|| <Kr as KrDecode>::decode(&mut black_box(bytes.clone()), V).unwrap())
    });
    // Borrowed: every topic id, every partition's index, high watermark and record length.
    g.bench_function("kwire/view", |b| {
        b.iter(|| {
            let v = FetchResponseRef::parse(black_box(&bytes), V).unwrap();
            let mut n = 0usize;
            for t in v.responses().iter() {
                n += t.topic_id().0[15] as usize;
                for p in t.partitions().iter() {
                    n += (p.partition_index() as i64 + p.high_watermark()) as usize;
                    n += p.records().map_or(0, <[u8]>::len);
                }
            }
            n
        })
    });
    g.bench_function("krabka/view", |b| {
        b.iter(|| {
            let v = KrRef::decode_borrow(&mut black_box(&bytes[..]), V).unwrap();
            let mut n = 0usize;
            for t in &v.responses {
                n += t.topic_id.0[15] as usize;
                for p in &t.partitions {
                    n += (p.partition_index as i64 + p.high_watermark) as usize;
                    n += krabka_records_len(&p.records);
                }
            }
            n
        })
    });
    encode_all(&mut g, bytes.len(), V, &ours, &kp, &kr);
    // Vectored output: the records stay shared with the message (chunks for `writev`).
    g.bench_function("kwire/encode_chunks", |b| {
        b.iter(|| black_box(&ours).to_chunks(V, 1024).unwrap())
    });
    g.finish();
}

fn produce() -> ProduceRequest {
    let records = records();
    ProduceRequest {
        transactional_id: None,
        acks: -1,
        timeout_ms: 30_000,
        topic_data: (0..10)
            .map(|t| TopicProduceData {
                topic_id: Uuid::from_u128(t as u128 + 7),
                partition_data: (0..10)
                    .map(|p| PartitionProduceData {
                        index: p,
                        records: Some(records.clone()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn bench_produce(c: &mut Criterion) {
    const V: i16 = 13;
    type Kp = kafka_protocol::messages::ProduceRequest;
    type Kr = ko::produce_request::ProduceRequest;
    type KrRef<'a> = kb::produce_request::ProduceRequest<'a>;
    let bytes = produce().to_bytes(V).unwrap();
    let ours = ProduceRequest::decode_bytes(bytes.clone(), V).unwrap();
    let kp = Kp::decode(&mut bytes.clone(), V).unwrap();
    let kr = <Kr as KrDecode>::decode(&mut bytes.clone(), V).unwrap();
    same_bytes("produce", &bytes, &kp, &kr, V);
    let mut g = c.benchmark_group("produce_request_v13_1mib");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("kwire/decode", |b| {
        b.iter(|| ProduceRequest::decode_bytes(black_box(bytes.clone()), V).unwrap())
    });
    g.bench_function("kafka-protocol/decode", |b| {
        b.iter(|| Kp::decode(&mut black_box(bytes.clone()), V).unwrap())
    });
    g.bench_function("krabka/decode", |b| {
        b.iter(|| <Kr as KrDecode>::decode(&mut black_box(bytes.clone()), V).unwrap())
    });
    // Borrowed: every topic id, every partition's index and record length.
    g.bench_function("kwire/view", |b| {
        b.iter(|| {
            let v = ProduceRequestRef::parse(black_box(&bytes), V).unwrap();
            let mut n = v.acks() as usize;
            for t in v.topic_data().iter() {
                n += t.topic_id().0[15] as usize;
                for p in t.partition_data().iter() {
                    n += p.index() as usize + p.records().map_or(0, <[u8]>::len);
                }
            }
            n
        })
    });
    g.bench_function("krabka/view", |b| {
        b.iter(|| {
            let v = KrRef::decode_borrow(&mut black_box(&bytes[..]), V).unwrap();
            let mut n = v.acks as usize;
            for t in &v.topic_data {
                n += t.topic_id.0[15] as usize;
                for p in &t.partition_data {
                    n += p.index as usize + krabka_records_len(&p.records);
                }
            }
            n
        })
    });
    encode_all(&mut g, bytes.len(), V, &ours, &kp, &kr);
    g.bench_function("kwire/encode_chunks", |b| {
        b.iter(|| black_box(&ours).to_chunks(V, 1024).unwrap())
    });
    g.finish();
}

fn heartbeat() -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        group_id: "orders-consumers".into(),
        member_id: "TAXNTJoPTA65W7IXEGStuw".into(),
        member_epoch: 12,
        rebalance_timeout_ms: 300_000,
        subscribed_topic_names: Some(vec!["orders".into(), "payments".into(), "refunds".into()]),
        topic_partitions: Some(
            (0..3)
                .map(|t| TopicPartitions {
                    topic_id: Uuid::from_u128(t + 1),
                    partitions: (0..8).collect(),
                    ..Default::default()
                })
                .collect(),
        ),
        ..Default::default()
    }
}

fn bench_heartbeat(c: &mut Criterion) {
    const V: i16 = 1;
    type Kp = kafka_protocol::messages::ConsumerGroupHeartbeatRequest;
    type Kr = ko::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
    type KrRef<'a> = kb::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest<'a>;
    let bytes = heartbeat().to_bytes(V).unwrap();
    let ours = ConsumerGroupHeartbeatRequest::decode_bytes(bytes.clone(), V).unwrap();
    let kp = Kp::decode(&mut bytes.clone(), V).unwrap();
    let kr = <Kr as KrDecode>::decode(&mut bytes.clone(), V).unwrap();
    same_bytes("heartbeat", &bytes, &kp, &kr, V);
    let mut g = c.benchmark_group("consumer_group_heartbeat_request_v1");
    g.bench_function("kwire/decode", |b| {
        b.iter(|| ConsumerGroupHeartbeatRequest::decode_bytes(black_box(bytes.clone()), V).unwrap())
    });
    g.bench_function("kafka-protocol/decode", |b| {
        b.iter(|| Kp::decode(&mut black_box(bytes.clone()), V).unwrap())
    });
    g.bench_function("krabka/decode", |b| {
        b.iter(|| <Kr as KrDecode>::decode(&mut black_box(bytes.clone()), V).unwrap())
    });
    // Borrowed: the ids, the epoch, the subscribed names and every owned partition.
    g.bench_function("kwire/view", |b| {
        b.iter(|| {
            let v = ConsumerGroupHeartbeatRequestRef::parse(black_box(&bytes), V).unwrap();
            let mut n = v.group_id().len() + v.member_id().len() + v.member_epoch() as usize;
            if let Some(names) = v.subscribed_topic_names() {
                for s in names.iter() {
                    n += s.len();
                }
            }
            if let Some(tps) = v.topic_partitions() {
                for tp in tps.iter() {
                    n += tp.topic_id().0[15] as usize;
                    for p in tp.partitions().iter() {
                        n += p as usize;
                    }
                }
            }
            n
        })
    });
    g.bench_function("krabka/view", |b| {
        b.iter(|| {
            let v = KrRef::decode_borrow(&mut black_box(&bytes[..]), V).unwrap();
            let mut n = v.group_id.len() + v.member_id.len() + v.member_epoch as usize;
            if let Some(names) = &v.subscribed_topic_names {
                for s in names {
                    n += s.len();
                }
            }
            if let Some(tps) = &v.topic_partitions {
                for tp in tps {
                    n += tp.topic_id.0[15] as usize;
                    for p in &tp.partitions {
                        n += *p as usize;
                    }
                }
            }
            n
        })
    });
    encode_all(&mut g, bytes.len(), V, &ours, &kp, &kr);
    g.finish();
}

fn streams_heartbeat() -> sghb::StreamsGroupHeartbeatRequest {
    let topics = |prefix: &str, n: usize| -> Vec<kwire_protocol::wire::KStr> {
        (0..n).map(|i| format!("{prefix}-{i}").into()).collect()
    };
    sghb::StreamsGroupHeartbeatRequest {
        group_id: "streams-app".into(),
        member_id: "m-1".into(),
        member_epoch: 0,
        endpoint_information_epoch: 0,
        rebalance_timeout_ms: 300_000,
        topology: Some(sghb::Topology {
            epoch: 3,
            subtopologies: (0..20)
                .map(|s| sghb::Subtopology {
                    subtopology_id: format!("{s}").into(),
                    source_topics: topics(&format!("src-{s}"), 2),
                    repartition_sink_topics: topics(&format!("sink-{s}"), 1),
                    state_changelog_topics: vec![sghb::TopicInfo {
                        name: format!("app-store-{s}-changelog").into(),
                        partitions: 0,
                        replication_factor: 0,
                        ..Default::default()
                    }],
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// kwire alone (no peer comparison): a heartbeat carrying a 20-subtopology topology.
fn bench_streams(c: &mut Criterion) {
    let ours = streams_heartbeat();
    let bytes = ours.to_bytes(0).unwrap();
    let mut g = c.benchmark_group("streams_group_heartbeat_request_v0_20_subtopologies");
    g.bench_function("kwire/decode", |b| {
        b.iter(|| {
            sghb::StreamsGroupHeartbeatRequest::decode_bytes(black_box(bytes.clone()), 0).unwrap()
        })
    });
    let mut buf = BytesMut::with_capacity(bytes.len() * 2);
    g.bench_function("kwire/encode", |b| {
        b.iter_batched_ref(
            || (),
            |_| {
                buf.clear();
                black_box(&ours).encode(&mut buf, 0).unwrap();
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(
    benches,
    bench_metadata,
    bench_fetch,
    bench_produce,
    bench_heartbeat,
    bench_streams
);
criterion_main!(benches);
