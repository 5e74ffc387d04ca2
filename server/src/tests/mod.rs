//! End-to-end tests over real TCP on 127.0.0.1 (ephemeral ports), driven with the crate's typed
//! client and kwire's codecs, and the helpers they share. Every await on the network is bounded
//! by a timeout; no test asserts on time, they wait for conditions.
//!
//! The tests are grouped by what they exercise: [`wire`] (framing and the limits of a
//! connection), [`logs`] (topics and partition logs), [`producers`] (idempotent producers),
//! [`durable`] (the durable log through restarts and failures), [`groups`] (consumer and streams
//! groups), [`classic`] (classic groups), [`migration`] (KIP-848 online migration) and
//! [`admin`] (the admin APIs).

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
use kwire_protocol::generated::produce_response::ProduceResponse;
use kwire_protocol::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use kwire_protocol::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use kwire_protocol::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
use kwire_protocol::generated::sync_group_request::SyncGroupRequest;
use kwire_protocol::generated::{ApiKey, ApiResponse, Request, Response, ResponseFrame};
use kwire_protocol::wire::Uuid;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use kwire_protocol::generated::ApiRequest;
use kwire_protocol::records::crc32c;

use crate::client::{encode_request, Client};
use crate::config::ServerConfig;
use crate::net::framing::encode_response;
use crate::net::server::{ServeError, Server};
use crate::net::shared::Shared;
use crate::services::state::State;
use crate::services::topics::tests::make_batch;

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
    /// The server's state, locked.
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.router.state()
    }

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

/// Sends `body` at `version` and reads its typed answer.
async fn request<R: ApiRequest>(c: &mut Client, body: &R, version: i16) -> R::Response {
    within(c.request(body, version)).await.expect("request")
}

/// Asserts the server still serves: a new connection's Metadata v12 (all topics) is answered,
/// with this one broker.
async fn assert_serves(addr: SocketAddr) {
    let mut c = connect(addr).await;
    let all = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    let m = request(&mut c, &all, 12).await;
    assert_eq!(m.brokers.len(), 1, "a Metadata answer");
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
    r.state().topics.get(name).expect("topic").id
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

/// (error code, base offset, log start offset) of the first partition of a Produce answer.
fn produce_result(p: ProduceResponse) -> (i16, i64, i64) {
    let pr = &p.responses[0].partition_responses[0];
    (pr.error_code, pr.base_offset, pr.log_start_offset)
}

/// Produces `batch` to t1's `partition` (acks=all) at `version`; [`produce_result`] of the
/// answer.
async fn produced(c: &mut Client, partition: i32, batch: Vec<u8>, version: i16) -> (i16, i64, i64) {
    produce_result(request(c, &produce("t1", partition, batch, -1), version).await)
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
    std::fs::metadata(dir.join(crate::storage::file::FILE_NAME))
        .expect("log file")
        .len()
}

fn log_len_whole(r: &Running) -> u64 {
    r.state().store.whole_len().expect("durable")
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

/// `make_batch(values, base_ts)` as producer `pid` at `epoch` from sequence `seq`.
fn idempotent_batch(values: &[&[u8]], pid: i64, epoch: i16, seq: i32) -> Vec<u8> {
    let mut b = make_batch(values, 1_000);
    b[43..51].copy_from_slice(&pid.to_be_bytes());
    b[51..53].copy_from_slice(&epoch.to_be_bytes());
    b[53..57].copy_from_slice(&seq.to_be_bytes());
    let crc = crc32c(&b[21..]);
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
    let p = request(c, &r, v).await;
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
    let m = request(c, &r, v).await;
    m.topics
        .iter()
        .map(|t| (t.error_code, t.partitions.len()))
        .collect()
}

/// Sets a batch's attributes (compression codec in bits 0-2) and fixes its CRC.
fn with_attributes(mut b: Vec<u8>, attributes: i16) -> Vec<u8> {
    b[21..23].copy_from_slice(&attributes.to_be_bytes());
    let crc = crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

mod admin;
mod classic;
mod durable;
mod groups;
mod logs;
mod migration;
mod producers;
mod wire;
