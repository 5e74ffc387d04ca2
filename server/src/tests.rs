//! End-to-end tests over real TCP on 127.0.0.1 (ephemeral ports), driven with the crate's own
//! client and kwire's codecs. Every await on the network is bounded by a timeout.

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::api_versions_request::ApiVersionsRequest;
use kwire_protocol::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use kwire_protocol::generated::consumer_group_heartbeat_request::{
    self as cghb, ConsumerGroupHeartbeatRequest,
};
use kwire_protocol::generated::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kwire_protocol::generated::delete_groups_request::DeleteGroupsRequest;
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::fetch_request::{FetchPartition, FetchRequest, FetchTopic};
use kwire_protocol::generated::find_coordinator_request::FindCoordinatorRequest;
use kwire_protocol::generated::heartbeat_request::HeartbeatRequest;
use kwire_protocol::generated::init_producer_id_request::InitProducerIdRequest;
use kwire_protocol::generated::join_group_request::JoinGroupRequest;
use kwire_protocol::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use kwire_protocol::generated::list_groups_request::ListGroupsRequest;
use kwire_protocol::generated::list_offsets_request::{
    ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic,
};
use kwire_protocol::generated::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kwire_protocol::generated::offset_commit_request::{
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use kwire_protocol::generated::offset_fetch_request::{
    OffsetFetchRequest, OffsetFetchRequestGroup, OffsetFetchRequestTopic, OffsetFetchRequestTopics,
};
use kwire_protocol::generated::produce_request::{
    PartitionProduceData, ProduceRequest, TopicProduceData,
};
use kwire_protocol::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use kwire_protocol::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use kwire_protocol::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
use kwire_protocol::generated::sync_group_request::SyncGroupRequest;
use kwire_protocol::generated::{ApiKey, Request, Response, ResponseFrame};
use kwire_protocol::wire::Uuid;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::apis::SUPPORTED;
use crate::broker::{Broker, Shared};
use crate::client::{encode_request, Client};
use crate::config::ServerConfig;
use crate::conn::encode_response;
use crate::handlers::{self, Ctx, Outcome};
use crate::server::{ServeError, Server};
use crate::topics::tests::make_batch;

// ---- a global allocator that remembers the largest single allocation ----

struct Counting;

static LARGEST_ALLOC: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract holds exactly as it does for `System`; the only addition is an atomic
// counter update, which neither allocates nor touches the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST_ALLOC.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as received (see above).
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST_ALLOC.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST_ALLOC.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: forwarded as received; `ptr` came from `System` with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

// ---- helpers ----

const LIMIT: Duration = Duration::from_secs(20);

async fn within<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(LIMIT, f).await.expect("timed out")
}

struct Running {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), ServeError>>>,
}

impl Running {
    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            within(t).await.expect("server task").expect("server ran");
        }
    }

    /// Waits for the server to stop by itself; its error.
    async fn stopped_by_itself(mut self) -> ServeError {
        let t = self.task.take().expect("running");
        within(t)
            .await
            .expect("server task")
            .expect_err("the server should stop with an error")
    }
}

fn config(topics: &[(&str, i32)]) -> ServerConfig {
    let mut c = ServerConfig::new("127.0.0.1:0".parse().expect("addr"));
    c.topics = topics.iter().map(|(n, p)| (n.to_string(), *p)).collect();
    c
}

async fn start(c: ServerConfig) -> Running {
    let server = Server::bind(c).await.expect("bind");
    let addr = server.local_addr();
    let shared = server.shared();
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(server.run(async {
        let _ = rx.await;
    }));
    Running {
        addr,
        shared,
        stop: Some(tx),
        task: Some(task),
    }
}

async fn connect(addr: SocketAddr) -> Client {
    within(Client::connect(addr)).await.expect("connect")
}

async fn call(c: &mut Client, body: impl Into<Request>, version: i16) -> Response {
    within(c.call(body, version)).await.expect("call")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "kwire-server-test-{name}-{}-{}",
        std::process::id(),
        crate::util::random_u64()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn produce(topic: &str, partition: i32, batch: Vec<u8>, acks: i16) -> ProduceRequest {
    ProduceRequest {
        acks,
        timeout_ms: 1000,
        topic_data: vec![TopicProduceData {
            name: topic.to_string().into(),
            partition_data: vec![PartitionProduceData {
                index: partition,
                records: Some(Bytes::from(batch)),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn fetch_by_id(id: Uuid, partition: i32, offset: i64, max_wait_ms: i32) -> FetchRequest {
    FetchRequest {
        max_wait_ms,
        min_bytes: 1,
        max_bytes: 50 << 20,
        isolation_level: 1,
        session_id: 0,
        session_epoch: -1,
        topics: vec![FetchTopic {
            topic_id: id,
            partitions: vec![FetchPartition {
                partition,
                fetch_offset: offset,
                partition_max_bytes: 1 << 20,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn topic_id(r: &Running, name: &str) -> Uuid {
    r.shared.lock().topics.get(name).expect("topic").id
}

fn be_i64(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn join(group: &str, member: &str, topics: &[&str]) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        group_id: group.to_string().into(),
        member_id: member.to_string().into(),
        member_epoch: 0,
        rebalance_timeout_ms: 300_000,
        subscribed_topic_names: Some(topics.iter().map(|t| t.to_string().into()).collect()),
        topic_partitions: Some(vec![]),
        ..Default::default()
    }
}

// ---- tests ----

#[tokio::test]
async fn framing_and_pipelining_keep_request_order() {
    let r = start(config(&[("t1", 1)])).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let api = ApiVersionsRequest {
        client_software_name: "kwire-test".into(),
        client_software_version: "1.0".into(),
        ..Default::default()
    };
    // Five requests in one buffer: the parked Fetch (300 ms) sits in the middle.
    let reqs: Vec<(Request, i16)> = vec![
        (api.into(), 3),
        (
            MetadataRequest {
                topics: Some(vec![]),
                ..Default::default()
            }
            .into(),
            12,
        ),
        (
            FindCoordinatorRequest {
                key: "g".into(),
                ..Default::default()
            }
            .into(),
            2,
        ),
        (fetch_by_id(id, 0, 0, 300).into(), 16),
        (
            MetadataRequest {
                topics: None,
                ..Default::default()
            }
            .into(),
            12,
        ),
    ];
    let mut wire = Vec::new();
    let mut expect = Vec::new();
    for (i, (body, v)) in reqs.into_iter().enumerate() {
        let key = body.api_key();
        let corr = 100 + i as i32;
        wire.extend_from_slice(&encode_request(body, v, corr, Some("t")).expect("encode"));
        expect.push((corr, key, v));
    }
    // Split inside the first frame and inside the fourth: the server reassembles.
    let cut1 = 7;
    let cut2 = wire.len() - 20;
    within(c.send_raw(&wire[..cut1])).await.expect("send");
    within(c.send_raw(&wire[cut1..cut2])).await.expect("send");
    within(c.send_raw(&wire[cut2..])).await.expect("send");
    let started = Instant::now();
    for (corr, key, v) in expect {
        let f = within(c.recv_frame()).await.expect("recv").expect("frame");
        let resp = ResponseFrame::decode(f, key, v).expect("decode");
        assert_eq!(resp.header.correlation_id, corr);
        match (key, resp.body) {
            (ApiKey::Fetch, Response::Fetch(fr)) => {
                let p = &fr.responses[0].partitions[0];
                assert_eq!(p.error_code, ErrorCode::None.code());
                assert_eq!(p.records.as_ref().map(|r| r.len()), Some(0));
                assert!(started.elapsed() >= Duration::from_millis(250));
            }
            (ApiKey::Metadata, Response::Metadata(m)) if corr == 104 => {
                assert_eq!(m.topics.len(), 1);
            }
            (k, body) => assert_eq!(k, body.api_key()),
        }
    }
    r.stop().await;
}

#[tokio::test]
async fn api_versions_v3_header_v0_and_v5_unsupported() {
    let r = start(config(&[])).await;
    let mut c = connect(r.addr).await;
    let api = ApiVersionsRequest {
        client_software_name: "kwire-test".into(),
        client_software_version: "1.0".into(),
        ..Default::default()
    };
    let bytes = encode_request(api.clone(), 3, 1, Some("rdkafka")).expect("encode");
    within(c.send_raw(&bytes)).await.expect("send");
    let f = within(c.recv_frame()).await.expect("recv").expect("frame");
    // Header v0: the correlation id, then straight into the body (error code 0), no tag byte.
    assert_eq!(&f[..4], &1i32.to_be_bytes());
    assert_eq!(&f[4..6], &0i16.to_be_bytes());
    let resp = ResponseFrame::decode(f, ApiKey::ApiVersions, 3).expect("decode");
    let Response::ApiVersions(av) = resp.body else {
        panic!("not ApiVersions")
    };
    assert_eq!(av.error_code, ErrorCode::None.code());
    let keys: Vec<(i16, i16, i16)> = av
        .api_keys
        .iter()
        .map(|k| (k.api_key, k.min_version, k.max_version))
        .collect();
    assert!(keys.contains(&(0, 3, 11)));
    assert!(keys.contains(&(3, 0, 13)));
    assert!(keys.contains(&(68, 0, 1)));
    assert!(!keys.iter().any(|k| k.0 == 71 || k.0 == 72));
    assert_eq!(keys.len(), SUPPORTED.len());

    // v5: UNSUPPORTED_VERSION in the v0 layout with the ApiVersions entry; the connection stays.
    let mut raw = Vec::new();
    raw.extend_from_slice(&18i16.to_be_bytes());
    raw.extend_from_slice(&5i16.to_be_bytes());
    raw.extend_from_slice(&2i32.to_be_bytes());
    raw.extend_from_slice(&7i16.to_be_bytes());
    raw.extend_from_slice(b"rdkafka");
    raw.extend_from_slice(&[0, 1, 1, 0]); // tags, two empty compact strings, tags
    let mut framed = (raw.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&raw);
    within(c.send_raw(&framed)).await.expect("send");
    let f = within(c.recv_frame()).await.expect("recv").expect("frame");
    let mut expected = 2i32.to_be_bytes().to_vec();
    expected.extend_from_slice(&35i16.to_be_bytes());
    expected.extend_from_slice(&1i32.to_be_bytes());
    for v in [18i16, 0, 4] {
        expected.extend_from_slice(&v.to_be_bytes());
    }
    assert_eq!(&f[..], &expected[..]);
    let resp = ResponseFrame::decode(f, ApiKey::ApiVersions, 0).expect("decode v0");
    let Response::ApiVersions(av) = resp.body else {
        panic!("not ApiVersions")
    };
    assert_eq!(av.error_code, ErrorCode::UnsupportedVersion.code());
    // Still open: a v0 request is answered.
    let bytes = encode_request(ApiVersionsRequest::default(), 0, 3, None).expect("encode");
    within(c.send_raw(&bytes)).await.expect("send");
    let f = within(c.recv_frame()).await.expect("recv").expect("frame");
    let resp = ResponseFrame::decode(f, ApiKey::ApiVersions, 0).expect("decode");
    assert_eq!(resp.header.correlation_id, 3);
    r.stop().await;
}

#[tokio::test]
async fn metadata_by_name_and_by_id() {
    let r = start(config(&[("t1", 3), ("t2", 1)])).await;
    let id = topic_id(&r, "t1");
    assert_ne!(id, Uuid::ZERO);
    assert_eq!(id, crate::util::uuid_from_name("t1"));
    let mut c = connect(r.addr).await;
    for v in [12i16, 13] {
        // Brokers only.
        let Response::Metadata(m) = call(
            &mut c,
            MetadataRequest {
                topics: Some(vec![]),
                ..Default::default()
            },
            v,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(m.brokers.len(), 1);
        assert_eq!(m.brokers[0].node_id, 1);
        assert_eq!(&*m.brokers[0].host, "127.0.0.1");
        assert_eq!(m.brokers[0].port, i32::from(r.addr.port()));
        assert_eq!(m.controller_id, 1);
        assert!(m.topics.is_empty());
        // Null: every topic.
        let Response::Metadata(m) = call(
            &mut c,
            MetadataRequest {
                topics: None,
                ..Default::default()
            },
            v,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(m.topics.len(), 2);
        // By name.
        let Response::Metadata(m) = call(
            &mut c,
            MetadataRequest {
                topics: Some(vec![
                    MetadataRequestTopic {
                        name: Some("t1".into()),
                        ..Default::default()
                    },
                    MetadataRequestTopic {
                        name: Some("nope".into()),
                        ..Default::default()
                    },
                ]),
                // Not auto-created (see metadata_creates_unknown_topics_and_produce_does_not).
                allow_auto_topic_creation: false,
                ..Default::default()
            },
            v,
        )
        .await
        else {
            panic!()
        };
        let t = &m.topics[0];
        assert_eq!(
            (t.error_code, t.name.as_deref(), t.topic_id),
            (0, Some("t1"), id)
        );
        assert_eq!(t.partitions.len(), 3);
        for (i, p) in t.partitions.iter().enumerate() {
            assert_eq!(p.partition_index, i as i32);
            assert_eq!((p.leader_id, p.leader_epoch), (1, 0));
            assert_eq!(p.replica_nodes.to_vec(), vec![1]);
            assert_eq!(p.isr_nodes.to_vec(), vec![1]);
        }
        assert_eq!(
            m.topics[1].error_code,
            ErrorCode::UnknownTopicOrPartition.code()
        );
        // By id: the same id is echoed, with the name; an unknown id has a null name.
        let unknown = Uuid::from_u128(0x1234);
        let Response::Metadata(m) = call(
            &mut c,
            MetadataRequest {
                topics: Some(vec![
                    MetadataRequestTopic {
                        topic_id: id,
                        name: None,
                        ..Default::default()
                    },
                    MetadataRequestTopic {
                        topic_id: unknown,
                        name: None,
                        ..Default::default()
                    },
                ]),
                ..Default::default()
            },
            v,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(
            (
                m.topics[0].error_code,
                m.topics[0].name.as_deref(),
                m.topics[0].topic_id
            ),
            (0, Some("t1"), id)
        );
        assert_eq!(m.topics[0].partitions.len(), 3);
        assert_eq!(
            (
                m.topics[1].error_code,
                m.topics[1].name.as_deref(),
                m.topics[1].topic_id
            ),
            (ErrorCode::UnknownTopicId.code(), None, unknown)
        );
    }
    r.stop().await;
}

#[tokio::test]
async fn produce_then_fetch_rewrites_offsets() {
    let r = start(config(&[("t1", 2)])).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let b1 = make_batch(&[b"a", b"b", b"c"], 1_000);
    let b2 = make_batch(&[b"d"], 2_000);
    for (batch, base) in [(b1.clone(), 0), (b2.clone(), 3)] {
        let Response::Produce(p) = call(&mut c, produce("t1", 1, batch, -1), 9).await else {
            panic!()
        };
        let pr = &p.responses[0].partition_responses[0];
        assert_eq!(
            (pr.error_code, pr.base_offset),
            (ErrorCode::None.code(), base)
        );
    }
    // Unknown topic and a corrupt batch.
    let Response::Produce(p) = call(&mut c, produce("nope", 0, b1.clone(), 1), 11).await else {
        panic!()
    };
    assert_eq!(
        p.responses[0].partition_responses[0].error_code,
        ErrorCode::UnknownTopicOrPartition.code()
    );
    let mut bad = b1.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    let Response::Produce(p) = call(&mut c, produce("t1", 1, bad, 1), 3).await else {
        panic!()
    };
    assert_eq!(
        p.responses[0].partition_responses[0].error_code,
        ErrorCode::CorruptMessage.code()
    );

    // By topic id (v16): both batches, base offsets 0 and 3.
    let Response::Fetch(f) = call(&mut c, fetch_by_id(id, 1, 0, 500), 16).await else {
        panic!()
    };
    assert_eq!(f.session_id, 0);
    assert_eq!(f.responses[0].topic_id, id);
    let p = &f.responses[0].partitions[0];
    assert_eq!(
        (
            p.error_code,
            p.high_watermark,
            p.last_stable_offset,
            p.log_start_offset
        ),
        (0, 4, 4, 0)
    );
    let recs = p.records.clone().expect("records");
    assert_eq!(recs.len(), b1.len() + b2.len());
    assert_eq!(be_i64(&recs, 0), 0);
    assert_eq!(be_i64(&recs, b1.len()), 3);
    assert_eq!(
        &recs[8..],
        &{
            let mut x = b1[8..].to_vec();
            x[4..8].copy_from_slice(&0i32.to_be_bytes()); // partition leader epoch rewritten
            x.extend_from_slice(&recs[b1.len()..]);
            x
        }[..]
    );
    // By name (v11), from offset 3: only the second batch.
    let mut by_name = fetch_by_id(Uuid::ZERO, 1, 3, 500);
    by_name.topics[0].topic = "t1".into();
    let Response::Fetch(f) = call(&mut c, by_name.clone(), 11).await else {
        panic!()
    };
    let recs = f.responses[0].partitions[0]
        .records
        .clone()
        .expect("records");
    assert_eq!(recs.len(), b2.len());
    assert_eq!(be_i64(&recs, 0), 3);
    // Past the high watermark.
    by_name.topics[0].partitions[0].fetch_offset = 9;
    let Response::Fetch(f) = call(&mut c, by_name, 11).await else {
        panic!()
    };
    assert_eq!(
        f.responses[0].partitions[0].error_code,
        ErrorCode::OffsetOutOfRange.code()
    );
    // Unknown topic id.
    let Response::Fetch(f) = call(&mut c, fetch_by_id(Uuid::from_u128(9), 0, 0, 500), 13).await
    else {
        panic!()
    };
    assert_eq!(
        f.responses[0].partitions[0].error_code,
        ErrorCode::UnknownTopicId.code()
    );
    // ListOffsets: latest, earliest, by timestamp.
    let lo = |ts: i64| ListOffsetsRequest {
        replica_id: -1,
        isolation_level: 1,
        topics: vec![ListOffsetsTopic {
            name: "t1".into(),
            partitions: vec![ListOffsetsPartition {
                partition_index: 1,
                timestamp: ts,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    for (ts, offset) in [
        (-1, 4),
        (-2, 0),
        (1_001, 1),
        (1_999, 3),
        (9_999, -1),
        (-3, 3),
    ] {
        let Response::ListOffsets(l) = call(&mut c, lo(ts), 7).await else {
            panic!()
        };
        let p = &l.topics[0].partitions[0];
        assert_eq!(
            (p.error_code, p.offset),
            (ErrorCode::None.code(), offset),
            "timestamp {ts}"
        );
    }
    // acks=0 gets no answer: the next answer is the Metadata sent after it.
    let corr = within(c.send(produce("t1", 0, b2.clone(), 0), 9))
        .await
        .expect("send");
    let _ = within(c.send(
        MetadataRequest {
            topics: None,
            ..Default::default()
        },
        12,
    ))
    .await
    .expect("send");
    let f = within(c.recv_frame()).await.expect("recv").expect("frame");
    let resp = ResponseFrame::decode(f, ApiKey::Metadata, 12).expect("metadata answer");
    assert_eq!(resp.header.correlation_id, corr + 1);
    assert_eq!(
        r.shared.lock().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        1
    );
    r.stop().await;
}

#[tokio::test]
async fn large_record_sets_go_out_uncopied_and_intact() {
    // A batch over SPLICE_MIN is written from the log's buffer (a chunk of its own, vectored
    // write); the client must read exactly the bytes produced (offsets and leader epoch aside).
    let r = start(config(&[("big", 1)])).await;
    let id = topic_id(&r, "big");
    let mut c = connect(r.addr).await;
    let value: Vec<u8> = (0..3 * crate::conn::SPLICE_MIN as u32)
        .map(|i| (i % 251) as u8)
        .collect();
    let batch = make_batch(&[&value[..], b"tail"], 5_000);
    assert!(batch.len() > crate::conn::SPLICE_MIN);
    let Response::Produce(p) = call(&mut c, produce("big", 0, batch.clone(), -1), 9).await else {
        panic!()
    };
    assert_eq!(
        p.responses[0].partition_responses[0].error_code,
        ErrorCode::None.code()
    );
    for _ in 0..2 {
        let Response::Fetch(f) = call(&mut c, fetch_by_id(id, 0, 0, 500), 16).await else {
            panic!()
        };
        let recs = f.responses[0].partitions[0]
            .records
            .clone()
            .expect("records");
        assert_eq!(recs.len(), batch.len());
        assert_eq!(be_i64(&recs, 0), 0);
        assert_eq!(&recs[16..], &batch[16..]);
    }
}

#[tokio::test]
async fn parked_fetch_wakes_on_produce() {
    let r = start(config(&[("t1", 1)])).await;
    let id = topic_id(&r, "t1");
    let mut consumer = connect(r.addr).await;
    let mut producer = connect(r.addr).await;
    let started = Instant::now();
    within(consumer.send(fetch_by_id(id, 0, 0, 15_000), 16))
        .await
        .expect("send");
    // Nothing to return yet: the Fetch is held.
    assert!(
        tokio::time::timeout(Duration::from_millis(200), consumer.recv_frame())
            .await
            .is_err(),
        "an empty Fetch must be held"
    );
    // Another connection is not blocked by it.
    let Response::Produce(p) = call(
        &mut producer,
        produce("t1", 0, make_batch(&[b"hello"], 5), 1),
        9,
    )
    .await
    else {
        panic!()
    };
    assert_eq!(
        p.responses[0].partition_responses[0].error_code,
        ErrorCode::None.code()
    );
    let f = within(consumer.recv_frame())
        .await
        .expect("recv")
        .expect("frame");
    let resp = ResponseFrame::decode(f, ApiKey::Fetch, 16).expect("decode");
    let Response::Fetch(f) = resp.body else {
        panic!()
    };
    let p = &f.responses[0].partitions[0];
    assert_eq!(p.high_watermark, 1);
    assert!(!p.records.as_ref().expect("records").is_empty());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "woken by the produce"
    );
    r.stop().await;
}

#[tokio::test]
async fn durable_state_survives_restart_and_a_torn_tail() {
    let dir = temp_dir("replay");
    let mut c1 = config(&[("t1", 2)]);
    c1.data_dir = Some(dir.clone());
    c1.heartbeat_interval_ms = Some(250);
    let r = start(c1.clone()).await;
    let mut c = connect(r.addr).await;
    // A member joins and acknowledges its assignment.
    let Response::ConsumerGroupHeartbeat(hb) =
        call(&mut c, join("g", "member-1-aaaaaaaaaaaa", &["t1"]), 1).await
    else {
        panic!()
    };
    assert_eq!(hb.error_code, ErrorCode::None.code());
    assert_eq!(hb.heartbeat_interval_ms, 250);
    let epoch = hb.member_epoch;
    let assignment = hb.assignment.expect("assignment");
    let ack = ConsumerGroupHeartbeatRequest {
        group_id: "g".into(),
        member_id: "member-1-aaaaaaaaaaaa".into(),
        member_epoch: epoch,
        rebalance_timeout_ms: -1,
        topic_partitions: Some(
            assignment
                .topic_partitions
                .iter()
                .map(|t| cghb::TopicPartitions {
                    topic_id: t.topic_id,
                    partitions: t.partitions.clone(),
                    ..Default::default()
                })
                .collect(),
        ),
        ..Default::default()
    };
    let Response::ConsumerGroupHeartbeat(hb) = call(&mut c, ack, 1).await else {
        panic!()
    };
    assert_eq!(hb.error_code, ErrorCode::None.code());
    // A commit at the member's epoch, and one at a stale epoch.
    let commit = |e: i32, offset: i64| OffsetCommitRequest {
        group_id: "g".into(),
        generation_id_or_member_epoch: e,
        member_id: "member-1-aaaaaaaaaaaa".into(),
        topics: vec![OffsetCommitRequestTopic {
            name: "t1".into(),
            partitions: vec![OffsetCommitRequestPartition {
                partition_index: 1,
                committed_offset: offset,
                committed_leader_epoch: 0,
                committed_metadata: Some("meta".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let Response::OffsetCommit(oc) = call(&mut c, commit(hb.member_epoch, 42), 9).await else {
        panic!()
    };
    assert_eq!(
        oc.topics[0].partitions[0].error_code,
        ErrorCode::None.code()
    );
    let Response::OffsetCommit(oc) = call(&mut c, commit(hb.member_epoch + 5, 43), 9).await else {
        panic!()
    };
    assert_eq!(oc.topics[0].partitions[0].error_code, 113);
    // A topic created over the wire.
    let Response::CreateTopics(ct) = call(
        &mut c,
        CreateTopicsRequest {
            topics: vec![CreatableTopic {
                name: "t2".into(),
                num_partitions: -1,
                replication_factor: -1,
                ..Default::default()
            }],
            timeout_ms: 1000,
            ..Default::default()
        },
        7,
    )
    .await
    else {
        panic!()
    };
    assert_eq!(
        (ct.topics[0].error_code, ct.topics[0].num_partitions),
        (ErrorCode::None.code(), 1)
    );
    let t2_id = ct.topics[0].topic_id;
    let (groups, offsets, t1_id) = {
        let b = r.shared.lock();
        (
            b.coordinator.groups().clone(),
            b.offsets.clone(),
            b.topics.get("t1").expect("t1").id,
        )
    };
    drop(c);
    r.stop().await;

    let check = |r: &Running| {
        let b = r.shared.lock();
        assert_eq!(b.coordinator.groups(), &groups);
        assert_eq!(b.offsets, offsets);
        assert_eq!(b.topics.get("t1").expect("t1").id, t1_id);
        assert_eq!(b.topics.get("t2").expect("t2").id, t2_id);
    };
    let r = start(c1.clone()).await;
    check(&r);
    // Over the wire too: the offset, and the member.
    let mut c = connect(r.addr).await;
    let Response::OffsetFetch(of) = call(
        &mut c,
        OffsetFetchRequest {
            groups: vec![OffsetFetchRequestGroup {
                group_id: "g".into(),
                member_id: None,
                member_epoch: -1,
                topics: Some(vec![OffsetFetchRequestTopics {
                    name: "t1".into(),
                    partition_indexes: vec![0, 1].into(),
                    ..Default::default()
                }]),
                ..Default::default()
            }],
            require_stable: true,
            ..Default::default()
        },
        9,
    )
    .await
    else {
        panic!()
    };
    let parts = &of.groups[0].topics[0].partitions;
    assert_eq!(
        (parts[0].committed_offset, parts[1].committed_offset),
        (-1, 42)
    );
    assert_eq!(parts[1].metadata.as_deref(), Some("meta"));
    let Response::ConsumerGroupDescribe(d) = call(
        &mut c,
        ConsumerGroupDescribeRequest {
            group_ids: vec!["g".into()],
            ..Default::default()
        },
        1,
    )
    .await
    else {
        panic!()
    };
    assert_eq!(d.groups[0].members.len(), 1);
    drop(c);
    r.stop().await;

    // A torn tail (half an entry, as a SIGKILL mid-write leaves) is ignored.
    let path = dir.join(crate::durable::FILE_NAME);
    let mut torn = Vec::new();
    crate::durable::Entry::Topic(
        kwire_protocol::generated::kwire_topic_key::KwireTopicKey { name: "t3".into() },
        Some(Default::default()),
    )
    .encode_into(&mut torn)
    .expect("encode");
    let mut data = std::fs::read(&path).expect("read log");
    data.extend_from_slice(&torn[..torn.len() - 3]);
    std::fs::write(&path, &data).expect("write log");
    let r = start(c1).await;
    check(&r);
    assert!(r.shared.lock().topics.get("t3").is_none());
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn oversized_size_prefix_closes_without_allocating() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    // 2 GiB - 1 announced, a few bytes sent.
    within(c.send_raw(&[0x7f, 0xff, 0xff, 0xff, 0, 18, 0, 3]))
        .await
        .expect("send");
    match within(c.recv_frame()).await {
        Ok(None) | Err(_) => {}
        Ok(Some(f)) => panic!("answered a 2 GiB frame: {f:?}"),
    }
    assert!(
        LARGEST_ALLOC.load(Ordering::Relaxed) < 256 << 20,
        "no allocation anywhere near the announced size"
    );
    // Other connections are unaffected.
    let mut ok = connect(r.addr).await;
    let resp = call(
        &mut ok,
        MetadataRequest {
            topics: None,
            ..Default::default()
        },
        12,
    )
    .await;
    assert_eq!(resp.api_key(), ApiKey::Metadata);
    r.stop().await;
}

#[tokio::test]
async fn hostile_inputs_close_only_their_connection() {
    let mut cfg = config(&[("t1", 1)]);
    cfg.idle_timeout_ms = 300;
    let r = start(cfg).await;
    let hostile: Vec<Vec<u8>> = vec![
        // Garbage body under a sane size.
        vec![0, 0, 0, 12, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8],
        // An API key that is not served (PushTelemetry).
        [&[0u8, 0, 0, 10][..], &[0, 72, 0, 0, 0, 0, 0, 1, 0xff, 0xff]].concat(),
        // A served key at a version not served (Produce v2).
        [&[0u8, 0, 0, 10][..], &[0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff]].concat(),
        // Negative size.
        vec![0xff, 0xff, 0xff, 0xfe],
        // A frame too short for a header.
        vec![0, 0, 0, 2, 0, 1],
        // A truncated frame, then silence: closed by the idle timeout.
        vec![0, 0, 1, 0, 0, 3, 0, 12],
    ];
    for bytes in hostile {
        let mut c = connect(r.addr).await;
        within(c.send_raw(&bytes)).await.expect("send");
        match within(c.recv_frame()).await {
            Ok(None) | Err(_) => {}
            Ok(Some(f)) => panic!("answered hostile input {bytes:?}: {f:?}"),
        }
        // (A fresh connection each time: the short idle timeout would close a kept one.)
        let mut healthy = connect(r.addr).await;
        let resp = call(
            &mut healthy,
            MetadataRequest {
                topics: None,
                ..Default::default()
            },
            12,
        )
        .await;
        assert_eq!(resp.api_key(), ApiKey::Metadata);
    }
    // Many idle connections: accepted, then closed by the idle timeout; the server still serves.
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(connect(r.addr).await);
    }
    for c in &mut idle {
        assert!(matches!(within(c.recv_frame()).await, Ok(None) | Err(_)));
    }
    drop(idle);
    let mut fresh = connect(r.addr).await;
    let resp = call(
        &mut fresh,
        MetadataRequest {
            topics: None,
            ..Default::default()
        },
        12,
    )
    .await;
    assert_eq!(resp.api_key(), ApiKey::Metadata);
    r.stop().await;
}

#[tokio::test]
async fn streams_heartbeat_creates_internal_topics() {
    use kwire_protocol::generated::streams_group_heartbeat_request::{
        Subtopology, TopicInfo, Topology,
    };
    let mut cfg = config(&[("input", 2)]);
    cfg.streams_initial_rebalance_delay_ms = Some(0);
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let req = StreamsGroupHeartbeatRequest {
        group_id: "app".into(),
        member_id: "streams-member-1".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 30_000,
        process_id: Some("process-1".into()),
        topology: Some(Topology {
            epoch: 0,
            subtopologies: vec![Subtopology {
                subtopology_id: "0".into(),
                source_topics: vec!["input".into()],
                state_changelog_topics: vec![TopicInfo {
                    name: "app-store-changelog".into(),
                    partitions: 0,
                    replication_factor: -1,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }),
        active_tasks: Some(vec![]),
        standby_tasks: Some(vec![]),
        warmup_tasks: Some(vec![]),
        ..Default::default()
    };
    let Response::StreamsGroupHeartbeat(hb) = call(&mut c, req, 0).await else {
        panic!()
    };
    assert_eq!(
        hb.error_code,
        ErrorCode::None.code(),
        "{:?}",
        hb.error_message
    );
    let created = r
        .shared
        .lock()
        .topics
        .get("app-store-changelog")
        .map(|t| t.partitions.len());
    assert_eq!(created, Some(2));
    let Response::StreamsGroupDescribe(d) = call(
        &mut c,
        StreamsGroupDescribeRequest {
            group_ids: vec!["app".into()],
            ..Default::default()
        },
        0,
    )
    .await
    else {
        panic!()
    };
    assert_eq!(d.groups[0].error_code, ErrorCode::None.code());
    assert_eq!(d.groups[0].members.len(), 1);
    let Response::ListGroups(l) = call(&mut c, ListGroupsRequest::default(), 5).await else {
        panic!()
    };
    assert_eq!(&*l.groups[0].group_type, "streams");
    r.stop().await;
}

/// Kafka 4.4's streams surface end to end: a v1 heartbeat is asked for the topology description
/// (KIP-1331), the member pushes it with StreamsGroupTopologyDescriptionUpdate (key 93), and
/// StreamsGroupDescribe v1 returns it, also after a restart on the same data directory.
#[tokio::test]
async fn streams_topology_description_is_pushed_described_and_durable() {
    use kwire_protocol::generated::streams_group_heartbeat_request::{Subtopology, Topology};
    use kwire_protocol::generated::streams_group_topology_description_update_request::{
        TopologyDescription, TopologyDescriptionNode, TopologyDescriptionSubtopology,
    };
    let dir = temp_dir("description");
    let mut cfg = config(&[("input", 2)]);
    cfg.data_dir = Some(dir.clone());
    cfg.streams_initial_rebalance_delay_ms = Some(0);
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    let req = StreamsGroupHeartbeatRequest {
        group_id: "app".into(),
        member_id: "streams-member-1".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 30_000,
        process_id: Some("process-1".into()),
        topology: Some(Topology {
            epoch: 0,
            subtopologies: vec![Subtopology {
                subtopology_id: "0".into(),
                source_topics: vec!["input".into()],
                ..Default::default()
            }],
            ..Default::default()
        }),
        active_tasks: Some(vec![]),
        standby_tasks: Some(vec![]),
        warmup_tasks: Some(vec![]),
        ..Default::default()
    };
    let Response::StreamsGroupHeartbeat(hb) = call(&mut c, req, 1).await else {
        panic!()
    };
    assert_eq!(
        hb.error_code,
        ErrorCode::None.code(),
        "{:?}",
        hb.error_message
    );
    assert!(hb.topology_description_required);
    assert_eq!(hb.acceptable_recovery_lag, 10_000);
    let push = StreamsGroupTopologyDescriptionUpdateRequest {
        group_id: "app".into(),
        member_id: "streams-member-1".into(),
        topology_epoch: 0,
        topology_description: TopologyDescription {
            subtopologies: vec![TopologyDescriptionSubtopology {
                subtopology_id: "0".into(),
                nodes: vec![TopologyDescriptionNode {
                    name: "KSTREAM-SOURCE-0000000000".into(),
                    node_type: 1,
                    source_topics: vec!["input".into()],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let Response::StreamsGroupTopologyDescriptionUpdate(u) = call(&mut c, push, 0).await else {
        panic!()
    };
    assert_eq!((u.error_code, u.error_message), (0, None));
    drop(c);
    r.stop().await;
    // Restarted on the same directory: the description was replayed from the log.
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let Response::StreamsGroupDescribe(d) = call(
        &mut c,
        StreamsGroupDescribeRequest {
            group_ids: vec!["app".into()],
            include_topology_description: true,
            ..Default::default()
        },
        1,
    )
    .await
    else {
        panic!()
    };
    let g = &d.groups[0];
    assert_eq!(g.error_code, ErrorCode::None.code());
    assert_eq!(g.topology_description_status, 3);
    assert_eq!(g.assignor_name.as_deref(), Some("sticky"));
    let td = g.topology_description.as_ref().expect("description");
    assert_eq!(
        &*td.subtopologies[0].nodes[0].name,
        "KSTREAM-SOURCE-0000000000"
    );
    drop(c);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every advertised (API, version) answers a representative request with a response that
/// encodes at that version.
#[tokio::test]
async fn every_advertised_version_encodes() {
    let mut cfg = config(&[("t1", 2)]);
    cfg.heartbeat_interval_ms = Some(1000);
    let broker = Broker::open(&cfg).expect("open");
    let shared = Shared::new(broker, cfg);
    let id = shared.lock().topics.get("t1").expect("t1").id;
    for (key, lo, hi) in SUPPORTED {
        for v in *lo..=*hi {
            let body: Request = match key {
                ApiKey::Produce => produce("t1", 0, make_batch(&[b"x"], 1), -1).into(),
                ApiKey::Fetch => {
                    let mut f = fetch_by_id(id, 0, 0, 0);
                    f.topics[0].topic = "t1".into();
                    if v < 13 {
                        f.topics[0].topic_id = Uuid::ZERO;
                    } else {
                        f.topics[0].topic = "".into();
                    }
                    if v < 4 {
                        f.isolation_level = 0;
                    }
                    f.into()
                }
                ApiKey::ListOffsets => ListOffsetsRequest {
                    replica_id: -1,
                    topics: vec![ListOffsetsTopic {
                        name: "t1".into(),
                        partitions: vec![ListOffsetsPartition {
                            partition_index: 0,
                            timestamp: -1,
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .into(),
                ApiKey::Metadata => MetadataRequest {
                    topics: Some(vec![MetadataRequestTopic {
                        name: Some("t1".into()),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }
                .into(),
                ApiKey::OffsetCommit => OffsetCommitRequest {
                    group_id: "g".into(),
                    topics: vec![OffsetCommitRequestTopic {
                        name: "t1".into(),
                        partitions: vec![OffsetCommitRequestPartition {
                            partition_index: 0,
                            committed_offset: 1,
                            committed_metadata: Some("".into()),
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .into(),
                ApiKey::OffsetFetch if v >= 8 => OffsetFetchRequest {
                    groups: vec![OffsetFetchRequestGroup {
                        group_id: "g".into(),
                        topics: None,
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .into(),
                ApiKey::OffsetFetch => OffsetFetchRequest {
                    group_id: "g".into(),
                    topics: Some(vec![OffsetFetchRequestTopic {
                        name: "t1".into(),
                        partition_indexes: vec![0].into(),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }
                .into(),
                ApiKey::FindCoordinator if v >= 4 => FindCoordinatorRequest {
                    coordinator_keys: vec!["g".into()],
                    ..Default::default()
                }
                .into(),
                ApiKey::FindCoordinator => FindCoordinatorRequest {
                    key: "g".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::DescribeGroups => DescribeGroupsRequest {
                    groups: vec!["g".into()],
                    ..Default::default()
                }
                .into(),
                ApiKey::ListGroups => ListGroupsRequest::default().into(),
                // Classic requests for a group that does not exist are answered at once.
                ApiKey::JoinGroup => JoinGroupRequest {
                    group_id: "no-such-group".into(),
                    session_timeout_ms: 10_000,
                    rebalance_timeout_ms: 10_000,
                    member_id: "m".into(),
                    protocol_type: "consumer".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::SyncGroup => SyncGroupRequest {
                    group_id: "no-such-group".into(),
                    member_id: "m".into(),
                    protocol_type: Some("consumer".into()),
                    protocol_name: Some("range".into()),
                    ..Default::default()
                }
                .into(),
                ApiKey::Heartbeat => HeartbeatRequest {
                    group_id: "no-such-group".into(),
                    member_id: "m".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::LeaveGroup => LeaveGroupRequest {
                    group_id: "no-such-group".into(),
                    member_id: if v < 3 { "m" } else { "" }.into(),
                    members: if v >= 3 {
                        vec![MemberIdentity {
                            member_id: "m".into(),
                            ..Default::default()
                        }]
                    } else {
                        Vec::new()
                    },
                    ..Default::default()
                }
                .into(),
                ApiKey::DeleteGroups => DeleteGroupsRequest {
                    groups_names: vec!["no-such-group".into()],
                    ..Default::default()
                }
                .into(),
                ApiKey::ApiVersions => ApiVersionsRequest {
                    client_software_name: "a".into(),
                    client_software_version: "1".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::CreateTopics => CreateTopicsRequest {
                    topics: vec![CreatableTopic {
                        name: format!("created-{v}").into(),
                        num_partitions: 1,
                        replication_factor: 1,
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .into(),
                ApiKey::ConsumerGroupHeartbeat => {
                    let member = if v == 0 { "" } else { "member-for-v1-xxxxxx" };
                    join(&format!("cg{v}"), member, &["t1"]).into()
                }
                ApiKey::ConsumerGroupDescribe => ConsumerGroupDescribeRequest {
                    group_ids: vec!["cg0".into(), "missing".into()],
                    ..Default::default()
                }
                .into(),
                ApiKey::StreamsGroupHeartbeat => StreamsGroupHeartbeatRequest {
                    group_id: "sg".into(),
                    member_id: "m".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::InitProducerId => init_producer_id(None, -1, -1).into(),
                ApiKey::StreamsGroupDescribe => StreamsGroupDescribeRequest {
                    group_ids: vec!["sg".into()],
                    include_topology_description: v >= 1,
                    ..Default::default()
                }
                .into(),
                ApiKey::StreamsGroupTopologyDescriptionUpdate => {
                    StreamsGroupTopologyDescriptionUpdateRequest {
                        group_id: "sg".into(),
                        member_id: "m".into(),
                        ..Default::default()
                    }
                    .into()
                }
                ApiKey::DeleteRecords
                | ApiKey::DescribeConfigs
                | ApiKey::DescribeCluster
                | ApiKey::DescribeTopicPartitions => admin::representative(*key, v),
                other => panic!("{other:?} is in SUPPORTED but has no representative request here"),
            };
            // The request itself must be valid at v (the client side of the check).
            let wire = encode_request(body.clone(), v, 1, Some("c"))
                .unwrap_or_else(|e| panic!("{key:?} v{v} request: {e}"));
            assert!(!wire.is_empty());
            let ctx = Ctx {
                version: v,
                client_id: "c",
                client_host: "/127.0.0.1",
                peer: "127.0.0.1:1".parse().expect("addr"),
                now: crate::util::now_ms(),
            };
            match handlers::handle(&shared, &ctx, body) {
                Outcome::Respond(resp) => {
                    encode_response(resp, 1, v)
                        .unwrap_or_else(|e| panic!("{key:?} v{v} response: {e}"));
                }
                Outcome::Silent => panic!("{key:?} v{v}: silent"),
                Outcome::Park(_) => panic!("{key:?} v{v}: parked"),
                Outcome::Wait(_) => panic!("{key:?} v{v}: waiting"),
                Outcome::Close(why) => panic!("{key:?} v{v}: closed: {why}"),
            }
        }
    }
}

#[tokio::test]
async fn session_timeout_fences_a_silent_member_and_is_persisted() {
    let dir = temp_dir("session");
    let mut cfg = config(&[("t1", 2)]);
    cfg.data_dir = Some(dir.clone());
    cfg.heartbeat_interval_ms = Some(100);
    cfg.session_timeout_ms = Some(500);
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    let Response::ConsumerGroupHeartbeat(hb) =
        call(&mut c, join("gs", "member-silent-aaaaaaaa", &["t1"]), 1).await
    else {
        panic!()
    };
    assert_eq!(hb.error_code, ErrorCode::None.code());
    assert_eq!(hb.heartbeat_interval_ms, 100);
    let joined = Instant::now();
    // The member never heartbeats again: the timer task fences it after 500 ms. Checked on
    // a bounded number of 50 ms ticks (no event to wait on from outside the server).
    let mut tick = tokio::time::interval(Duration::from_millis(50));
    let mut gone = false;
    for _ in 0..200 {
        tick.tick().await;
        let members = r
            .shared
            .lock()
            .coordinator
            .group("gs")
            .map_or(0, |g| g.members.len());
        if members == 0 {
            gone = true;
            break;
        }
    }
    assert!(gone, "member fenced by the session timeout");
    assert!(joined.elapsed() >= Duration::from_millis(450));
    let epoch = r
        .shared
        .lock()
        .coordinator
        .group("gs")
        .map(|g| g.group_epoch);
    drop(c);
    r.stop().await;
    // The fence was written to the log.
    let r = start(cfg).await;
    {
        let b = r.shared.lock();
        let g = b.coordinator.group("gs").expect("group kept");
        assert!(g.members.is_empty());
        assert_eq!(Some(g.group_epoch), epoch);
    }
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- durable writes, restarts, bounds ----

fn produce_result(resp: Response) -> (i16, i64, i64) {
    let Response::Produce(p) = resp else {
        panic!("not a Produce answer: {resp:?}")
    };
    let pr = &p.responses[0].partition_responses[0];
    (pr.error_code, pr.base_offset, pr.log_start_offset)
}

fn admin_commit(
    group: &str,
    topic: &str,
    partition: i32,
    offset: i64,
    metadata: &str,
) -> OffsetCommitRequest {
    OffsetCommitRequest {
        group_id: group.to_string().into(),
        generation_id_or_member_epoch: -1,
        member_id: "".into(),
        topics: vec![OffsetCommitRequestTopic {
            name: topic.to_string().into(),
            partitions: vec![OffsetCommitRequestPartition {
                partition_index: partition,
                committed_offset: offset,
                committed_leader_epoch: -1,
                committed_metadata: Some(metadata.to_string().into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn create_topic(name: &str, partitions: i32) -> CreateTopicsRequest {
    CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.to_string().into(),
            num_partitions: partitions,
            replication_factor: -1,
            ..Default::default()
        }],
        timeout_ms: 1000,
        ..Default::default()
    }
}

fn log_len(dir: &std::path::Path) -> u64 {
    std::fs::metadata(dir.join(crate::durable::FILE_NAME))
        .expect("log file")
        .len()
}

#[tokio::test]
async fn failed_durable_writes_are_not_acknowledged() {
    let dir = temp_dir("enospc");
    let mut cfg = config(&[("t1", 2)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    let two = || make_batch(&[b"a", b"b"], 1_000);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, two(), -1), 9).await),
        (ErrorCode::None.code(), 0, 0)
    );
    let whole = log_len(&dir);
    let faults = |writes: u32, repairs: u32| {
        let mut b = r.shared.lock();
        let f = &mut b.log_mut().expect("durable").faults;
        f.writes = writes;
        f.repairs = repairs;
    };

    // Produce: the end-offset write fails (half written, then ENOSPC): KAFKA_STORAGE_ERROR,
    // the append is undone, and the partial entry is cut off the file.
    faults(1, 0);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, two(), -1), 9).await),
        (ErrorCode::KafkaStorageError.code(), -1, -1)
    );
    assert_eq!(
        r.shared.lock().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        2
    );
    assert_eq!(log_len(&dir), whole);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, two(), -1), 9).await),
        (ErrorCode::None.code(), 2, 0)
    );

    // OffsetCommit: NOT_COORDINATOR (Kafka's translation for group APIs), nothing stored.
    faults(1, 0);
    let Response::OffsetCommit(oc) = call(&mut c, admin_commit("g", "t1", 0, 7, ""), 9).await
    else {
        panic!()
    };
    assert_eq!(
        oc.topics[0].partitions[0].error_code,
        ErrorCode::NotCoordinator.code()
    );
    assert!(!r.shared.lock().offsets.contains_key("g"));

    // CreateTopics whose write fails and whose partial entry cannot be cut either: not
    // created; later writes are refused (nothing appended after the partial entry) until the
    // cut succeeds.
    faults(1, 2);
    let Response::CreateTopics(ct) = call(&mut c, create_topic("t2", 1), 7).await else {
        panic!()
    };
    assert_eq!(ct.topics[0].error_code, ErrorCode::KafkaStorageError.code());
    assert!(r.shared.lock().topics.get("t2").is_none());
    let damaged = log_len(&dir);
    assert!(damaged > log_len_whole(&r));
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 1, two(), -1), 9).await).0,
        ErrorCode::KafkaStorageError.code()
    );
    assert_eq!(
        log_len(&dir),
        damaged,
        "nothing appended after a partial entry"
    );
    // The cut works again: writes resume after the last whole entry.
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 1, two(), -1), 9).await),
        (ErrorCode::None.code(), 0, 0)
    );
    assert_eq!(log_len(&dir), log_len_whole(&r));

    // A heartbeat whose coordinator records cannot be written: NOT_COORDINATOR, and the server
    // stops (the coordinator's state cannot be rolled back).
    faults(1, 0);
    let Response::ConsumerGroupHeartbeat(hb) =
        call(&mut c, join("g2", "member-enospc-aaaaaaaa", &["t1"]), 1).await
    else {
        panic!()
    };
    assert_eq!(hb.error_code, ErrorCode::NotCoordinator.code());
    let ServeError::DurableStateBroken(reason) = r.stopped_by_itself().await;
    assert!(reason.contains("coordinator records"), "{reason}");
    drop(c);

    // The file holds whole entries only: a clean replay, without what failed.
    let (_, replay) = crate::durable::DurableLog::open(&dir).expect("replay");
    assert!(replay.torn.is_none(), "{:?}", replay.torn);
    let r = start(cfg).await;
    {
        let b = r.shared.lock();
        assert!(b.coordinator.group("g2").is_none());
        assert!(b.topics.get("t2").is_none());
        assert!(b.offsets.is_empty());
        let t1 = b.topics.get("t1").expect("t1");
        assert_eq!(t1.partitions[0].high_watermark(), 4);
        assert_eq!(t1.partitions[1].high_watermark(), 2);
    }
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

fn log_len_whole(r: &Running) -> u64 {
    r.shared.lock().log_mut().expect("durable").len()
}

fn list_offset(topic: &str, partition: i32, ts: i64, version: i16) -> ListOffsetsRequest {
    ListOffsetsRequest {
        replica_id: -1,
        isolation_level: if version >= 2 { 1 } else { 0 },
        topics: vec![ListOffsetsTopic {
            name: topic.to_string().into(),
            partitions: vec![ListOffsetsPartition {
                partition_index: partition,
                timestamp: ts,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[tokio::test]
async fn offsets_are_not_reused_after_a_restart() {
    let dir = temp_dir("ends");
    let mut cfg = config(&[("t1", 3)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let three = make_batch(&[b"a", b"b", b"c"], 1_000);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, three.clone(), 1), 9).await).1,
        0
    );
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 1, make_batch(&[b"x"], 1), 1), 9).await).1,
        0
    );
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 1, make_batch(&[b"y"], 2), 1), 9).await).1,
        1
    );
    drop(c);
    r.stop().await;

    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    // Earliest and latest are both the old end offset; an untouched partition starts at 0.
    for (partition, end) in [(0, 3), (1, 2), (2, 0)] {
        for ts in [-1, -2, -4] {
            let Response::ListOffsets(l) =
                call(&mut c, list_offset("t1", partition, ts, 7), 7).await
            else {
                panic!()
            };
            let p = &l.topics[0].partitions[0];
            assert_eq!(
                (p.error_code, p.offset),
                (ErrorCode::None.code(), end),
                "partition {partition} ts {ts}"
            );
        }
    }
    // Below the log start: OFFSET_OUT_OF_RANGE; at it: nothing yet.
    let Response::Fetch(f) = call(&mut c, fetch_by_id(id, 0, 0, 0), 16).await else {
        panic!()
    };
    assert_eq!(
        f.responses[0].partitions[0].error_code,
        ErrorCode::OffsetOutOfRange.code()
    );
    // Kafka answers OFFSET_OUT_OF_RANGE without the log start offset (-1).
    assert_eq!(f.responses[0].partitions[0].log_start_offset, -1);
    let Response::Fetch(f) = call(&mut c, fetch_by_id(id, 0, 3, 0), 16).await else {
        panic!()
    };
    let p = &f.responses[0].partitions[0];
    assert_eq!(
        (p.error_code, p.high_watermark, p.log_start_offset),
        (ErrorCode::None.code(), 3, 3)
    );
    assert!(p.records.as_ref().expect("records").is_empty());
    // New records continue the offsets.
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, three.clone(), 1), 9).await),
        (ErrorCode::None.code(), 3, 3)
    );
    let Response::Fetch(f) = call(&mut c, fetch_by_id(id, 0, 3, 0), 16).await else {
        panic!()
    };
    let recs = f.responses[0].partitions[0]
        .records
        .clone()
        .expect("records");
    assert_eq!(be_i64(&recs, 0), 3);
    drop(c);
    r.stop().await;

    // And again after a second restart.
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let Response::ListOffsets(l) = call(&mut c, list_offset("t1", 0, -1, 7), 7).await else {
        panic!()
    };
    assert_eq!(l.topics[0].partitions[0].offset, 6);
    drop(c);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_data_dir_is_served_by_one_server_and_corruption_stops_the_start() {
    use crate::broker::StartError;
    use crate::durable::LogError;
    let dir = temp_dir("lock");
    let mut cfg = config(&[("t1", 1)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    match Server::bind(cfg.clone()).await {
        Err(StartError::Log(e @ LogError::Locked { .. })) => {
            let text = e.to_string();
            assert!(text.contains(crate::durable::LOCK_FILE_NAME), "{text}");
            assert!(text.contains("another kwire-server"), "{text}");
        }
        other => panic!("a second server on the same directory: {other:?}"),
    }
    r.stop().await;
    // Released when the first one stops.
    let r = start(cfg.clone()).await;
    r.stop().await;

    // A damaged entry in the middle of the log: the server refuses to start, file untouched.
    let path = dir.join(crate::durable::FILE_NAME);
    let mut data = std::fs::read(&path).expect("log");
    let mut extra = Vec::new();
    crate::durable::Entry::Topic(
        kwire_protocol::generated::kwire_topic_key::KwireTopicKey { name: "t9".into() },
        Some(Default::default()),
    )
    .encode_into(&mut extra)
    .expect("encode");
    data.extend_from_slice(&extra);
    data[20] ^= 0xff; // inside the first entry's payload
    std::fs::write(&path, &data).expect("write");
    match Server::bind(cfg).await {
        Err(StartError::Log(LogError::Corrupt { offset, .. })) => assert_eq!(offset, 12),
        other => panic!("a corrupt log: {other:?}"),
    }
    assert_eq!(std::fs::read(&path).expect("log"), data);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A connection whose writer is held by a parked Fetch stops reading once its queued answers
/// fill the byte budget (the connection's, or the server's), and catches up in order.
#[tokio::test]
async fn queued_answer_bytes_are_bounded() {
    for (per_conn, total) in [(64 << 10, 256 << 20), (4 << 20, 64 << 10)] {
        let mut cfg = config(&[("data", 1), ("empty", 1)]);
        cfg.max_queued_bytes = per_conn;
        cfg.max_queued_bytes_total = total;
        let r = start(cfg).await;
        let data_id = topic_id(&r, "data");
        let empty_id = topic_id(&r, "empty");
        let mut producer = connect(r.addr).await;
        let value = vec![7u8; 40 << 10];
        assert_eq!(
            produce_result(
                call(
                    &mut producer,
                    produce("data", 0, make_batch(&[&value], 1), 1),
                    9
                )
                .await
            )
            .0,
            ErrorCode::None.code()
        );
        let base = r.shared.stats.requests.load(Ordering::Relaxed);
        let mut pauses = r.shared.stats.read_pauses.subscribe();
        let mut c = connect(r.addr).await;
        // A Fetch that is held (nothing to read), then ten whose ~40 KiB answers are ready.
        within(c.send(fetch_by_id(empty_id, 0, 0, 15_000), 16))
            .await
            .expect("send");
        for _ in 0..10 {
            within(c.send(fetch_by_id(data_id, 0, 0, 0), 16))
                .await
                .expect("send");
        }
        within(pauses.wait_for(|n| *n >= 1)).await.expect("a pause");
        // The held Fetch, one queued answer (40 KiB of the 64 KiB budget) and the one waiting
        // for room: the other eight are not read.
        assert_eq!(r.shared.stats.requests.load(Ordering::Relaxed) - base, 3);
        // (A waiting reservation may already hold part of what it waits for.)
        let queued = total - r.shared.queued.available_permits();
        assert!((40 << 10..=64 << 10).contains(&queued), "queued {queued}");
        // Records for the held Fetch: everything is answered, in order.
        assert_eq!(
            produce_result(
                call(
                    &mut producer,
                    produce("empty", 0, make_batch(&[b"x"], 1), 1),
                    9
                )
                .await
            )
            .0,
            ErrorCode::None.code()
        );
        for i in 0..11 {
            let resp = within(c.recv()).await.expect("answer");
            let Response::Fetch(f) = resp.body else {
                panic!()
            };
            let p = &f.responses[0].partitions[0];
            assert_eq!(p.error_code, ErrorCode::None.code());
            let want = if i == 0 { 0..1024 } else { 40 << 10..50 << 10 };
            assert!(want.contains(&p.records.as_ref().expect("records").len()));
        }
        assert_eq!(r.shared.stats.requests.load(Ordering::Relaxed) - base, 12);
        assert_eq!(r.shared.queued.available_permits(), total);
        drop(c);
        r.stop().await;
    }
}

#[tokio::test]
async fn offset_metadata_longer_than_4096_bytes_is_refused() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    for (len, code) in [
        (4096, ErrorCode::None.code()),
        (4097, ErrorCode::OffsetMetadataTooLarge.code()),
    ] {
        let Response::OffsetCommit(oc) = call(
            &mut c,
            admin_commit("gm", "t1", 0, len as i64, &"m".repeat(len)),
            9,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(oc.topics[0].partitions[0].error_code, code, "{len} bytes");
    }
    let stored = r.shared.lock().offsets["gm"][&("t1".to_string(), 0)].offset;
    assert_eq!(stored, 4096);
    r.stop().await;
}

#[tokio::test]
async fn a_trickle_of_bytes_does_not_keep_an_incomplete_frame_alive() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut cfg = config(&[("t1", 1)]);
    cfg.idle_timeout_ms = 400;
    let r = start(cfg).await;
    let stream = within(tokio::net::TcpStream::connect(r.addr))
        .await
        .expect("connect");
    let (mut rd, mut wr) = stream.into_split();
    // A frame of 1000 bytes, of which one byte comes every 50 ms (far below the idle timeout
    // between bytes, but the frame never completes in time).
    wr.write_all(&1000u32.to_be_bytes()).await.expect("send");
    let started = Instant::now();
    let trickle = async {
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if wr.write_all(&[0]).await.is_err() {
                break;
            }
        }
    };
    let mut byte = [0u8; 1];
    tokio::select! {
        r = rd.read(&mut byte) => assert!(matches!(r, Ok(0) | Err(_)), "closed, not answered"),
        _ = trickle => panic!("the connection was kept open by a trickle of bytes"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    r.stop().await;
}

#[tokio::test]
async fn create_topics_limits_and_colliding_names() {
    let r = start(config(&[("a_b", 1)])).await;
    let mut c = connect(r.addr).await;
    for (name, parts, code, text) in [
        (
            "big",
            i32::MAX,
            ErrorCode::InvalidPartitions.code(),
            "limit of 100000",
        ),
        (
            "zero",
            0,
            ErrorCode::InvalidPartitions.code(),
            "non-positive",
        ),
        (
            "a.b",
            1,
            ErrorCode::InvalidTopicException.code(),
            "collides with existing topic: a_b",
        ),
        ("ok.1", 100_000, ErrorCode::None.code(), ""),
    ] {
        let Response::CreateTopics(ct) = call(&mut c, create_topic(name, parts), 7).await else {
            panic!()
        };
        let t = &ct.topics[0];
        assert_eq!(t.error_code, code, "{name}: {:?}", t.error_message);
        if code != ErrorCode::None.code() {
            let m = t.error_message.as_deref().unwrap_or("");
            assert!(m.contains(text), "{name}: {m}");
        }
    }
    // Two colliding names in one request: the second collides with the first.
    let mut req = create_topic("x.y", 1);
    req.topics.push(CreatableTopic {
        name: "x_y".into(),
        num_partitions: 1,
        replication_factor: -1,
        ..Default::default()
    });
    let Response::CreateTopics(ct) = call(&mut c, req, 7).await else {
        panic!()
    };
    assert_eq!(
        (ct.topics[0].error_code, ct.topics[1].error_code),
        (
            ErrorCode::None.code(),
            ErrorCode::InvalidTopicException.code()
        )
    );
    // A batch whose record count is nonsense, over the wire.
    let mut bad = make_batch(&[b"a"], 1);
    bad[57..61].copy_from_slice(&5i32.to_be_bytes());
    let crc = crate::util::crc32c(&bad[21..]);
    bad[17..21].copy_from_slice(&crc.to_be_bytes());
    assert_eq!(
        produce_result(call(&mut c, produce("a_b", 0, bad, 1), 9).await).0,
        ErrorCode::InvalidRecord.code()
    );
    r.stop().await;
}

// ---- idempotent producers, InitProducerId, auto-created topics ----

/// `make_batch(values, base_ts)` as producer `pid` at `epoch` from sequence `seq`.
fn idempotent_batch(values: &[&[u8]], pid: i64, epoch: i16, seq: i32) -> Vec<u8> {
    let mut b = make_batch(values, 1_000);
    b[43..51].copy_from_slice(&pid.to_be_bytes());
    b[51..53].copy_from_slice(&epoch.to_be_bytes());
    b[53..57].copy_from_slice(&seq.to_be_bytes());
    let crc = crate::util::crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

fn init_producer_id(txn: Option<&str>, pid: i64, epoch: i16) -> InitProducerIdRequest {
    InitProducerIdRequest {
        transactional_id: txn.map(|t| t.to_string().into()),
        transaction_timeout_ms: 60_000,
        producer_id: pid,
        producer_epoch: epoch,
        ..Default::default()
    }
}

async fn init_pid(c: &mut Client, r: InitProducerIdRequest, v: i16) -> (i16, i64, i16) {
    let Response::InitProducerId(p) = call(c, r, v).await else {
        panic!("not an InitProducerId answer")
    };
    (p.error_code, p.producer_id, p.producer_epoch)
}

/// Base offsets of the batches of a record set, in order.
fn batch_offsets(records: &[u8]) -> Vec<i64> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 12 <= records.len() {
        out.push(be_i64(records, at));
        let len = i32::from_be_bytes(records[at + 8..at + 12].try_into().expect("4 bytes"));
        at += 12 + usize::try_from(len).expect("length");
    }
    out
}

#[tokio::test]
async fn init_producer_id_gives_fresh_ids_and_refuses_transactions() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    // Advertised at 0-5.
    let Response::ApiVersions(a) = call(
        &mut c,
        ApiVersionsRequest {
            client_software_name: "t".into(),
            client_software_version: "1".into(),
            ..Default::default()
        },
        3,
    )
    .await
    else {
        panic!()
    };
    let k = a
        .api_keys
        .iter()
        .find(|k| k.api_key == ApiKey::InitProducerId.as_i16())
        .expect("InitProducerId advertised");
    assert_eq!((k.min_version, k.max_version), (0, 5));
    // Fresh ids count up from 0, epoch 0, at every version.
    let mut expected = 0i64;
    for v in 0..=5i16 {
        assert_eq!(
            init_pid(&mut c, init_producer_id(None, -1, -1), v).await,
            (0, expected, 0),
            "v{v}"
        );
        expected += 1;
    }
    // KIP-360: an idempotent producer sending its id and epoch gets a new id with epoch 0, as
    // Kafka's coordinator answers a null transactional id (the epoch bump is the client's).
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, 0, 5), 4).await,
        (0, expected, 0)
    );
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, 0, i16::MAX), 5).await,
        (0, expected + 1, 0)
    );
    // Only one of the two set: INVALID_REQUEST.
    for (pid, epoch) in [(3, -1), (-1, 0)] {
        assert_eq!(
            init_pid(&mut c, init_producer_id(None, pid, epoch), 3).await,
            (ErrorCode::InvalidRequest.code(), -1, -1)
        );
    }
    // Transactions are not served.
    assert_eq!(
        init_pid(&mut c, init_producer_id(Some("tx"), -1, -1), 5).await,
        (ErrorCode::CoordinatorNotAvailable.code(), -1, -1)
    );
    assert_eq!(
        init_pid(&mut c, init_producer_id(Some(""), -1, -1), 5).await,
        (ErrorCode::InvalidRequest.code(), -1, -1)
    );
    let mut long = init_producer_id(Some("tx"), -1, -1);
    long.transaction_timeout_ms = 900_001;
    assert_eq!(
        init_pid(&mut c, long, 2).await,
        (ErrorCode::InvalidTransactionTimeout.code(), -1, -1)
    );
    // The failures took no id.
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, expected + 2, 0)
    );
    r.stop().await;
}

#[tokio::test]
async fn idempotent_produce_checks_sequences_and_answers_duplicates() {
    let r = start(config(&[("t1", 2)])).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let (_, pid, epoch) = init_pid(&mut c, init_producer_id(None, -1, -1), 5).await;
    // Sequences in order: 0-1, 2-4.
    let first = idempotent_batch(&[b"a", b"b"], pid, epoch, 0);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, first.clone(), -1), 11).await),
        (0, 0, 0)
    );
    let second = idempotent_batch(&[b"c", b"d", b"e"], pid, epoch, 2);
    // The same batch resent by a raw client, twice in one write (a producer's retry after a
    // lost answer): the first is stored, the second answered with its offset.
    let frame = encode_request(
        Request::from(produce("t1", 0, second.clone(), -1)),
        11,
        7,
        Some("raw"),
    )
    .expect("encode");
    let mut twice = frame.to_vec();
    twice.extend_from_slice(&frame);
    within(c.send_raw(&twice)).await.expect("send");
    for _ in 0..2 {
        let f = within(c.recv_frame()).await.expect("recv").expect("frame");
        let resp = ResponseFrame::decode(f, ApiKey::Produce, 11).expect("decode");
        let Response::Produce(p) = resp.body else {
            panic!()
        };
        let pr = &p.responses[0].partition_responses[0];
        assert_eq!((pr.error_code, pr.base_offset), (0, 2));
    }
    // The first batch again (still among the last five): its original offset, and as Kafka the
    // original batch's MaxTimestamp as LogAppendTime.
    let Response::Produce(p) = call(&mut c, produce("t1", 0, first.clone(), -1), 11).await else {
        panic!()
    };
    let pr = &p.responses[0].partition_responses[0];
    assert_eq!(
        (pr.error_code, pr.base_offset, pr.log_append_time_ms),
        (0, 0, 1_001)
    );
    // Stored once each: two batches, offsets 0 and 2, high watermark 5.
    let Response::Fetch(f) = call(&mut c, fetch_by_id(id, 0, 0, 0), 16).await else {
        panic!()
    };
    let p = &f.responses[0].partitions[0];
    let recs = p.records.clone().expect("records");
    assert_eq!(batch_offsets(&recs), vec![0, 2]);
    assert_eq!(recs.len(), first.len() + second.len());
    assert_eq!(p.high_watermark, 5);
    // A gap: OUT_OF_ORDER_SEQUENCE_NUMBER, with a message (v8+), nothing stored.
    let gap = idempotent_batch(&[b"x"], pid, epoch, 7);
    let Response::Produce(p) = call(&mut c, produce("t1", 0, gap, -1), 11).await else {
        panic!()
    };
    let pr = &p.responses[0].partition_responses[0];
    assert_eq!(
        (pr.error_code, pr.base_offset),
        (ErrorCode::OutOfOrderSequenceNumber.code(), -1)
    );
    assert!(pr
        .error_message
        .as_deref()
        .is_some_and(|m| m.contains("Out of order")));
    // Overlapping but not equal to a stored batch: out of order too.
    assert_eq!(
        produce_result(
            call(
                &mut c,
                produce("t1", 0, idempotent_batch(&[b"x"], pid, epoch, 3), -1),
                11
            )
            .await
        )
        .0,
        ErrorCode::OutOfOrderSequenceNumber.code()
    );
    // Sequences are per partition: partition 1 knows no producer and takes any sequence.
    assert_eq!(
        produce_result(
            call(
                &mut c,
                produce("t1", 1, idempotent_batch(&[b"p"], pid, epoch, 40), -1),
                11
            )
            .await
        ),
        (0, 0, 0)
    );
    // The producer bumps its epoch (KIP-360): the new epoch must start at 0.
    let bumped = epoch + 1;
    assert_eq!(
        produce_result(
            call(
                &mut c,
                produce("t1", 0, idempotent_batch(&[b"y"], pid, bumped, 5), -1),
                11
            )
            .await
        )
        .0,
        ErrorCode::OutOfOrderSequenceNumber.code()
    );
    assert_eq!(
        produce_result(
            call(
                &mut c,
                produce("t1", 0, idempotent_batch(&[b"y"], pid, bumped, 0), -1),
                11
            )
            .await
        ),
        (0, 5, 0)
    );
    // The old epoch is fenced: INVALID_PRODUCER_EPOCH, even for a former duplicate.
    for b in [
        idempotent_batch(&[b"z"], pid, epoch, 5),
        second.clone(),
        first.clone(),
    ] {
        assert_eq!(
            produce_result(call(&mut c, produce("t1", 0, b, -1), 11).await).0,
            ErrorCode::InvalidProducerEpoch.code()
        );
    }
    // A producer id with a negative sequence: INVALID_RECORD (Kafka's LogValidator).
    assert_eq!(
        produce_result(
            call(
                &mut c,
                produce("t1", 0, idempotent_batch(&[b"z"], pid, bumped, -1), -1),
                11
            )
            .await
        )
        .0,
        ErrorCode::InvalidRecord.code()
    );
    assert_eq!(
        r.shared.lock().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        6
    );
    r.stop().await;
}

#[tokio::test]
async fn idempotent_sequences_wrap_at_i32_max() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    let (_, pid, epoch) = init_pid(&mut c, init_producer_id(None, -1, -1), 5).await;
    // Unknown to the partition: any sequence starts it (Kafka 2.5+).
    let near_end = idempotent_batch(&[b"a", b"b"], pid, epoch, i32::MAX - 3);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, near_end, -1), 9).await),
        (0, 0, 0)
    );
    // MAX-1, MAX, 0: a batch crossing the wrap.
    let crossing = idempotent_batch(&[b"c", b"d", b"e"], pid, epoch, i32::MAX - 1);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, crossing.clone(), -1), 9).await),
        (0, 2, 0)
    );
    assert_eq!(
        produce_result(
            call(
                &mut c,
                produce("t1", 0, idempotent_batch(&[b"f"], pid, epoch, 1), -1),
                9
            )
            .await
        ),
        (0, 5, 0)
    );
    // The crossing batch resent: its offset.
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, crossing, -1), 9).await),
        (0, 2, 0)
    );
    // 0 again after 1: out of order.
    assert_eq!(
        produce_result(
            call(
                &mut c,
                produce("t1", 0, idempotent_batch(&[b"g"], pid, epoch, 0), -1),
                9
            )
            .await
        )
        .0,
        ErrorCode::OutOfOrderSequenceNumber.code()
    );
    r.stop().await;
}

#[tokio::test]
async fn producer_ids_are_not_reused_after_a_restart() {
    let dir = temp_dir("pids");
    let mut cfg = config(&[("t1", 1)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, 0, 0)
    );
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, 1, 0)
    );
    let b = idempotent_batch(&[b"a"], 1, 0, 0);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, b.clone(), -1), 9).await),
        (0, 0, 0)
    );
    drop(c);
    r.stop().await;
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    // Ids continue after the reserved block.
    let block = crate::producers::PRODUCER_ID_BLOCK;
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, block, 0)
    );
    // The records are gone, and their producer state with them (as a Kafka partition whose
    // log start offset passed the producer's batches): the batch is new again, at offset 1.
    assert!(r.shared.lock().topics.get("t1").expect("t1").partitions[0]
        .producers()
        .is_empty());
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, b, -1), 9).await),
        (0, 1, 1)
    );
    drop(c);
    r.stop().await;
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, 2 * block, 0)
    );
    drop(c);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

fn metadata_for(names: &[&str], allow: bool) -> MetadataRequest {
    MetadataRequest {
        topics: Some(
            names
                .iter()
                .map(|n| MetadataRequestTopic {
                    name: Some(n.to_string().into()),
                    ..Default::default()
                })
                .collect(),
        ),
        allow_auto_topic_creation: allow,
        ..Default::default()
    }
}

async fn metadata_codes(c: &mut Client, r: MetadataRequest, v: i16) -> Vec<(i16, usize)> {
    let Response::Metadata(m) = call(c, r, v).await else {
        panic!()
    };
    m.topics
        .iter()
        .map(|t| (t.error_code, t.partitions.len()))
        .collect()
}

#[tokio::test]
async fn metadata_creates_unknown_topics_and_produce_does_not() {
    let mut cfg = config(&[("a.b", 1)]);
    cfg.default_partitions = 3;
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let unknown = ErrorCode::UnknownTopicOrPartition.code();
    // A produce to an unknown topic: UNKNOWN_TOPIC_OR_PARTITION, and it is not created.
    assert_eq!(
        produce_result(call(&mut c, produce("fresh", 0, make_batch(&[b"x"], 1), -1), 9).await).0,
        unknown
    );
    assert!(r.shared.lock().topics.get("fresh").is_none());
    // AllowAutoTopicCreation=false: not created.
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["fresh"], false), 12).await,
        vec![(unknown, 0)]
    );
    assert!(r.shared.lock().topics.get("fresh").is_none());
    // Allowed: created with --default-partitions, answered UNKNOWN_TOPIC_OR_PARTITION in the
    // same response as Kafka's KRaft brokers do; an illegal name is INVALID_TOPIC_EXCEPTION; a
    // colliding one is not created.
    assert_eq!(
        metadata_codes(
            &mut c,
            metadata_for(&["fresh", "bad name", "a_b"], true),
            12
        )
        .await,
        vec![
            (unknown, 0),
            (ErrorCode::InvalidTopicException.code(), 0),
            (unknown, 0)
        ]
    );
    assert!(r.shared.lock().topics.get("a_b").is_none());
    // The retry finds it.
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["fresh"], true), 12).await,
        vec![(0, 3)]
    );
    assert_eq!(
        produce_result(call(&mut c, produce("fresh", 2, make_batch(&[b"x"], 1), -1), 9).await),
        (0, 0, 0)
    );
    // v0-3 have no AllowAutoTopicCreation field: they create, as Kafka (its default is true).
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["old-client"], true), 1).await,
        vec![(unknown, 0)]
    );
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["old-client"], true), 1).await,
        vec![(0, 3)]
    );
    r.stop().await;

    // Turned off on the server: never created.
    let mut cfg = config(&[]);
    cfg.auto_create_topics = false;
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    for _ in 0..2 {
        assert_eq!(
            metadata_codes(&mut c, metadata_for(&["fresh"], true), 12).await,
            vec![(unknown, 0)]
        );
    }
    assert!(r.shared.lock().topics.is_empty());
    r.stop().await;
}

/// Sets a batch's attributes (compression codec in bits 0-2) and fixes its CRC.
fn with_attributes(mut b: Vec<u8>, attributes: i16) -> Vec<u8> {
    b[21..23].copy_from_slice(&attributes.to_be_bytes());
    let crc = crate::util::crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

#[tokio::test]
async fn produced_batches_are_validated_with_kafkas_error_codes() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    let good = make_batch(&[b"a", b"b", b"c"], 1_000);
    let code = |resp: Response| produce_result(resp).0;
    // The CRC-32C covers attributes to the end: one flipped value bit is CORRUPT_MESSAGE.
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 2] ^= 0x10;
    assert_eq!(
        code(call(&mut c, produce("t1", 0, flipped, -1), 9).await),
        ErrorCode::CorruptMessage.code()
    );
    // A record count that is not lastOffsetDelta + 1, with a valid CRC: INVALID_RECORD.
    let mut count = good.clone();
    count[57..61].copy_from_slice(&4i32.to_be_bytes());
    let crc = crate::util::crc32c(&count[21..]);
    count[17..21].copy_from_slice(&crc.to_be_bytes());
    assert_eq!(
        code(call(&mut c, produce("t1", 0, count, -1), 9).await),
        ErrorCode::InvalidRecord.code()
    );
    // Magic 1 in a Produce v3+: INVALID_RECORD.
    let mut magic = good.clone();
    magic[16] = 1;
    assert_eq!(
        code(call(&mut c, produce("t1", 0, magic, -1), 9).await),
        ErrorCode::InvalidRecord.code()
    );
    // Two batches in one partition's records: INVALID_RECORD (exactly one in v3+).
    let mut two = good.clone();
    two.extend_from_slice(&good);
    assert_eq!(
        code(call(&mut c, produce("t1", 0, two, -1), 9).await),
        ErrorCode::InvalidRecord.code()
    );
    // zstd needs Produce v7+ (KIP-110): UNSUPPORTED_COMPRESSION_TYPE below.
    let zstd = with_attributes(good.clone(), 4);
    assert_eq!(
        code(call(&mut c, produce("t1", 0, zstd, -1), 6).await),
        ErrorCode::UnsupportedCompressionType.code()
    );
    // Codec ids 5-7: UNKNOWN_SERVER_ERROR, as Kafka.
    assert_eq!(
        code(
            call(
                &mut c,
                produce("t1", 0, with_attributes(good.clone(), 6), -1),
                9
            )
            .await
        ),
        ErrorCode::UnknownServerError.code()
    );
    // Nothing was stored; the good batch still is.
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, good, -1), 9).await),
        (0, 0, 0)
    );
    r.stop().await;
}

#[tokio::test]
async fn compressed_batches_are_checked_and_served_unchanged() {
    use kwire_protocol::records::{BatchBuilder, Compression};
    let mut cfg = config(&[("t1", 1)]);
    // Records may decompress to at most the largest frame: 64 KiB here.
    cfg.max_frame_bytes = 64 << 10;
    let r = start(cfg).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let mut sent = Vec::new();
    for codec in [
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let mut b = BatchBuilder::new(codec);
        for i in 0..20u8 {
            b.append(
                1_000 + i64::from(i),
                Some(&[i][..]),
                Some(&[b'v'; 100][..]),
                &[(b"h", None)],
            )
            .expect("append");
        }
        let bytes = b.build().expect("build").to_vec();
        let base = 20 * sent.len() as i64;
        assert_eq!(
            produce_result(call(&mut c, produce("t1", 0, bytes.clone(), -1), 9).await),
            (0, base, 0),
            "{codec:?}"
        );
        sent.push(bytes);
    }
    // Served back as sent (still compressed), but for base offset and leader epoch.
    let Response::Fetch(f) = call(&mut c, fetch_by_id(id, 0, 0, 0), 16).await else {
        panic!()
    };
    let recs = f.responses[0].partitions[0]
        .records
        .clone()
        .expect("records");
    assert_eq!(batch_offsets(&recs), vec![0, 20, 40, 60]);
    let mut at = 0;
    for s in &sent {
        assert_eq!(&recs[at + 16..at + s.len()], &s[16..]);
        at += s.len();
    }
    // ListOffsets by timestamp reads inside a compressed batch: timestamp 1005 is offset 5.
    let Response::ListOffsets(l) = call(&mut c, list_offset("t1", 0, 1_005, 7), 7).await else {
        panic!()
    };
    let p = &l.topics[0].partitions[0];
    assert_eq!((p.error_code, p.offset, p.timestamp), (0, 5, 1_005));
    // Bytes that are not gzip: UNKNOWN_SERVER_ERROR, as Kafka's "Failed to decompress".
    let mut garbage = sent[0].clone();
    for x in &mut garbage[61..] {
        *x = 0x5a;
    }
    let crc = crate::util::crc32c(&garbage[21..]);
    garbage[17..21].copy_from_slice(&crc.to_be_bytes());
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, garbage, -1), 9).await).0,
        ErrorCode::UnknownServerError.code()
    );
    // A zstd batch of a few hundred bytes inflating past the 64 KiB limit: MESSAGE_TOO_LARGE.
    let mut bomb = BatchBuilder::new(Compression::Zstd);
    bomb.append(1, None, Some(&vec![0u8; 1 << 20]), &[])
        .expect("append");
    let bomb = bomb.build().expect("build").to_vec();
    assert!(bomb.len() < 1024, "{} bytes", bomb.len());
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, bomb, -1), 9).await).0,
        ErrorCode::MessageTooLarge.code()
    );
    assert_eq!(
        r.shared.lock().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        80
    );
    r.stop().await;
}

#[tokio::test]
async fn failed_durable_writes_give_no_producer_id_and_undo_producer_state() {
    let dir = temp_dir("pid-enospc");
    let mut cfg = config(&[("t1", 1)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let faults = |writes: u32| {
        let mut b = r.shared.lock();
        b.log_mut().expect("durable").faults.writes = writes;
    };
    // The first id needs a block written: that write fails, so no id is given.
    faults(1);
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (ErrorCode::CoordinatorLoadInProgress.code(), -1, -1)
    );
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, 0, 0)
    );
    // An idempotent batch whose end-offset write fails: KAFKA_STORAGE_ERROR, and neither the
    // records nor the producer state keep it, so the retry is stored (not a duplicate).
    let b = idempotent_batch(&[b"a", b"b"], 0, 0, 0);
    faults(1);
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, b.clone(), -1), 9).await),
        (ErrorCode::KafkaStorageError.code(), -1, -1)
    );
    assert!(r.shared.lock().topics.get("t1").expect("t1").partitions[0]
        .producers()
        .is_empty());
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, b.clone(), -1), 9).await),
        (0, 0, 0)
    );
    assert_eq!(
        produce_result(call(&mut c, produce("t1", 0, b, -1), 9).await),
        (0, 0, 0)
    );
    // One request carrying a new batch twice for the same partition: the second is its
    // duplicate; when the write fails both fail, and nothing is kept.
    let next = idempotent_batch(&[b"c"], 0, 0, 2);
    let mut twice = produce("t1", 0, next.clone(), -1);
    let again = twice.topic_data[0].partition_data[0].clone();
    twice.topic_data[0].partition_data.push(again);
    for (fail, expected) in [
        (1, [(ErrorCode::KafkaStorageError.code(), -1); 2]),
        (0, [(0, 2), (0, 2)]),
    ] {
        faults(fail);
        let Response::Produce(p) = call(&mut c, twice.clone(), 9).await else {
            panic!()
        };
        let got: Vec<(i16, i64)> = p.responses[0]
            .partition_responses
            .iter()
            .map(|r| (r.error_code, r.base_offset))
            .collect();
        assert_eq!(got, expected.to_vec(), "write failures {fail}");
    }
    assert_eq!(
        r.shared.lock().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        3
    );
    // Auto-creation whose write fails: not created, UNKNOWN_TOPIC_OR_PARTITION; the retry
    // creates it.
    faults(1);
    let unknown = ErrorCode::UnknownTopicOrPartition.code();
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["later"], true), 12).await,
        vec![(unknown, 0)]
    );
    assert!(r.shared.lock().topics.get("later").is_none());
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["later"], true), 12).await,
        vec![(unknown, 0)]
    );
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["later"], true), 12).await,
        vec![(0, 1)]
    );
    drop(c);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Classic groups through a real socket.
#[path = "classic_tests.rs"]
mod classic;

/// KIP-848 online migration through a real socket.
#[path = "migration_tests.rs"]
mod migration;

/// DeleteRecords, DescribeConfigs, DescribeCluster and DescribeTopicPartitions through a real
/// socket.
#[path = "admin_tests.rs"]
mod admin;
