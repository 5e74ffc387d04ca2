//! One StreamsGroupHeartbeat (v1) of a stable member in a streams group of 200 members in 50
//! processes (docs/coordinator.md §2.4): the topology has 20 stateful subtopologies of 100 tasks
//! (2,000 tasks, one standby each, warm-ups on); the request carries only group id, member id
//! and epoch, the member is STABLE at the assignment epoch, so the answer is a plain ack with
//! null task lists and no records.
//!
//! Run: `cargo bench -p kwire-protocol --features coordinator --bench streams_group`.
//!
//! Instruction counts: with `KWIRE_HEARTBEATS=N` in the environment the binary skips criterion
//! and sends the same heartbeat N times, so callgrind can count one call (benches/README.md):
//!
//! ```sh
//! KWIRE_HEARTBEATS=1000 valgrind --tool=callgrind \
//!     --toggle-collect='*streams_group_heartbeat*' target/release/deps/streams_group-<hash>
//! ```
//!
//! and divide the difference of the totals of two values of N (the setup's heartbeats count
//! too) by the difference of N; `--toggle-collect='*measured_heartbeats*'` profiles only the N
//! heartbeats (callgrind_annotate --inclusive=yes).

use criterion::{criterion_group, Criterion};
use kwire_protocol::coordinator::streams::{StreamsGroupConfig, StreamsGroupState};
use kwire_protocol::coordinator::{
    ConsumerGroupConfig, GroupCoordinator, RequestContext, SequentialMemberIds, TopicMetadata,
};
use kwire_protocol::generated::streams_group_heartbeat_request::{
    StreamsGroupHeartbeatRequest, Subtopology, TaskIds, TopicInfo, Topology,
};
use kwire_protocol::wire::Uuid;
use std::collections::BTreeMap;

const MEMBERS: usize = 200;
const PROCESSES: usize = 50;
const SUBTOPOLOGIES: usize = 20;
const PARTITIONS: i32 = 100;
const GROUP: &str = "bench";

fn topology() -> Topology {
    Topology {
        epoch: 0,
        subtopologies: (0..SUBTOPOLOGIES)
            .map(|s| Subtopology {
                subtopology_id: format!("{s:02}").into(),
                source_topics: vec![format!("source-{s:02}").into()],
                state_changelog_topics: vec![TopicInfo {
                    name: format!("app-store-{s:02}-changelog").into(),
                    ..Default::default()
                }],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn ids(s: &BTreeMap<String, std::collections::BTreeSet<i32>>) -> Vec<TaskIds> {
    s.iter()
        .map(|(id, ps)| TaskIds {
            subtopology_id: id.clone().into(),
            partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
            ..Default::default()
        })
        .collect()
}

fn stable_group() -> (GroupCoordinator, Vec<i32>) {
    let mut c = GroupCoordinator::new(
        ConsumerGroupConfig::default(),
        Box::new(SequentialMemberIds::new(1)),
    )
    .unwrap();
    c.set_streams_config(StreamsGroupConfig {
        initial_rebalance_delay_ms: 0,
        num_standby_replicas: 1,
        ..Default::default()
    })
    .unwrap();
    let mut topics = Vec::new();
    for s in 0..SUBTOPOLOGIES {
        for (i, name) in [
            format!("source-{s:02}"),
            format!("app-store-{s:02}-changelog"),
        ]
        .iter()
        .enumerate()
        {
            let id = Uuid::from_u128((s * 2 + i + 1) as u128);
            topics.push(TopicMetadata::new(id, name, PARTITIONS));
        }
    }
    c.set_topics(topics, 0);
    let ctx = RequestContext::new("bench", "/10.0.0.1", 1);
    let mut epochs = vec![0; MEMBERS];
    for (i, e) in epochs.iter_mut().enumerate() {
        let req = StreamsGroupHeartbeatRequest {
            group_id: GROUP.into(),
            member_id: format!("member-{i:04}").into(),
            member_epoch: 0,
            rebalance_timeout_ms: 30_000,
            topology: Some(topology()),
            active_tasks: Some(vec![]),
            standby_tasks: Some(vec![]),
            warmup_tasks: Some(vec![]),
            process_id: Some(format!("process-{:03}", i % PROCESSES).into()),
            ..Default::default()
        };
        let out = c.streams_group_heartbeat(&ctx, &req, 0);
        assert_eq!(out.response.error_code, 0, "{:?}", out.response);
        *e = out.response.member_epoch;
    }
    // Heartbeat with the owned tasks until every member is STABLE at the assignment epoch.
    for round in 0..30 {
        if c.streams_group(GROUP).map(|g| g.state) == Some(StreamsGroupState::Stable) {
            break;
        }
        assert!(round < 29, "group did not stabilise");
        for (i, e) in epochs.iter_mut().enumerate() {
            let id = format!("member-{i:04}");
            let assigned = c.streams_group(GROUP).unwrap().members[&id]
                .assigned
                .clone();
            let req = StreamsGroupHeartbeatRequest {
                group_id: GROUP.into(),
                member_id: id.into(),
                member_epoch: *e,
                active_tasks: Some(ids(&assigned.active)),
                standby_tasks: Some(ids(&assigned.standby)),
                warmup_tasks: Some(ids(&assigned.warmup)),
                ..Default::default()
            };
            let out = c.streams_group_heartbeat(&ctx, &req, 1);
            assert_eq!(out.response.error_code, 0, "{:?}", out.response);
            *e = out.response.member_epoch;
        }
    }
    (c, epochs)
}

/// The heartbeat of member 100: group id, member id and epoch only.
fn stable_request(epochs: &[i32]) -> StreamsGroupHeartbeatRequest {
    StreamsGroupHeartbeatRequest {
        group_id: GROUP.into(),
        member_id: "member-0100".into(),
        member_epoch: epochs[100],
        ..Default::default()
    }
}

/// One stable heartbeat at `now` (ms), checked to be a plain ack.
fn heartbeat(
    coord: &mut GroupCoordinator,
    ctx: &RequestContext,
    req: &StreamsGroupHeartbeatRequest,
    now: i64,
) -> kwire_protocol::coordinator::StreamsHeartbeatOutput {
    let out = coord.streams_group_heartbeat(ctx, req, now);
    assert!(out.records.is_empty() && out.response.error_code == 0);
    assert!(out.response.active_tasks.is_none());
    out
}

fn bench(c: &mut Criterion) {
    let (mut coord, epochs) = stable_group();
    let ctx = RequestContext::new("bench", "/10.0.0.1", 1);
    let req = stable_request(&epochs);
    let mut now = 10;
    c.bench_function("streams_group_heartbeat_stable_member_of_200", |b| {
        b.iter(|| {
            now += 1;
            heartbeat(&mut coord, &ctx, &req, now)
        })
    });
}

criterion_group!(benches, bench);

/// The N heartbeats of `KWIRE_HEARTBEATS=N`, apart from the setup's, so that
/// `--toggle-collect='*measured_heartbeats*'` profiles only them.
#[inline(never)]
fn measured_heartbeats(
    coord: &mut GroupCoordinator,
    ctx: &RequestContext,
    req: &StreamsGroupHeartbeatRequest,
    n: i64,
) {
    for now in 10..10 + n {
        drop(heartbeat(coord, ctx, req, now));
    }
}

fn main() {
    // `KWIRE_HEARTBEATS=N`: N heartbeats and no criterion, for callgrind (see the module docs).
    if let Some(n) = std::env::var("KWIRE_HEARTBEATS")
        .ok()
        .and_then(|v| v.parse::<i64>().ok())
    {
        let (mut coord, epochs) = stable_group();
        let ctx = RequestContext::new("bench", "/10.0.0.1", 1);
        let req = stable_request(&epochs);
        measured_heartbeats(&mut coord, &ctx, &req, n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
