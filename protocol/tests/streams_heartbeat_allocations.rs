//! A StreamsGroupHeartbeat that changes nothing allocates nothing in the streams group type
//! (docs/coordinator.md §2.4; benches/README.md): a stable member of a stable group, heartbeating
//! with only its group id, member id and epoch, gets a plain ack with no records, and the
//! coordinator copies neither the group, its configured topology nor the member on the way.
//!
//! A counting global allocator counts the allocations of this thread while a heartbeat runs.
//! The request's and the answer's strings are shared buffers (`bytes::Bytes`), so the answer's
//! member id costs nothing once the request's buffer is shared (as a decoded request's is).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

use kwire_protocol::coordinator::streams::{StreamsGroupConfig, StreamsGroupState};
use kwire_protocol::coordinator::{
    ConsumerGroupConfig, GroupCoordinator, RequestContext, SequentialMemberIds, TopicMetadata,
};
use kwire_protocol::generated::streams_group_heartbeat_request::{
    StreamsGroupHeartbeatRequest, Subtopology, TaskIds, TopicInfo, Topology,
};
use kwire_protocol::wire::Uuid;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: the thread's locals may be gone while it exits.
    let on = COUNTING.try_with(Cell::get).unwrap_or(false);
    if on {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; counting touches only
// const-initialised thread locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations<T>(f: impl FnOnce() -> T) -> (usize, T) {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let out = f();
    COUNTING.with(|c| c.set(false));
    (COUNT.with(Cell::get), out)
}

const MEMBERS: usize = 12;
const PROCESSES: usize = 4;
const SUBTOPOLOGIES: usize = 3;
const PARTITIONS: i32 = 8;
const GROUP: &str = "app";

fn topology() -> Topology {
    Topology {
        epoch: 0,
        subtopologies: (0..SUBTOPOLOGIES)
            .map(|s| Subtopology {
                subtopology_id: format!("{s}").into(),
                source_topics: vec![format!("source-{s}").into()],
                state_changelog_topics: vec![TopicInfo {
                    name: format!("app-store-{s}-changelog").into(),
                    ..Default::default()
                }],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn ids(s: &BTreeMap<String, BTreeSet<i32>>) -> Vec<TaskIds> {
    s.iter()
        .map(|(id, ps)| TaskIds {
            subtopology_id: id.clone().into(),
            partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
            ..Default::default()
        })
        .collect()
}

/// A Stable group of 12 members in 4 processes, 3 stateful subtopologies of 8 tasks, one
/// standby, warm-ups on (the defaults), heartbeating v1; returns each member's epoch.
fn stable_group(c: &mut GroupCoordinator, ctx: &RequestContext) -> Vec<i32> {
    c.set_streams_config(StreamsGroupConfig {
        initial_rebalance_delay_ms: 0,
        num_standby_replicas: 1,
        ..Default::default()
    })
    .unwrap();
    let mut topics = Vec::new();
    for s in 0..SUBTOPOLOGIES {
        for (i, name) in [format!("source-{s}"), format!("app-store-{s}-changelog")]
            .iter()
            .enumerate()
        {
            let id = Uuid::from_u128((s * 2 + i + 1) as u128);
            topics.push(TopicMetadata::new(id, name, PARTITIONS));
        }
    }
    c.set_topics(topics, 0);
    let mut epochs = vec![0; MEMBERS];
    for (i, e) in epochs.iter_mut().enumerate() {
        let req = StreamsGroupHeartbeatRequest {
            group_id: GROUP.into(),
            member_id: format!("member-{i:02}").into(),
            rebalance_timeout_ms: 30_000,
            topology: Some(topology()),
            active_tasks: Some(vec![]),
            standby_tasks: Some(vec![]),
            warmup_tasks: Some(vec![]),
            process_id: Some(format!("process-{}", i % PROCESSES).into()),
            ..Default::default()
        };
        let out = c.streams_group_heartbeat(ctx, &req, 0);
        assert_eq!(out.response.error_code, 0, "{:?}", out.response);
        *e = out.response.member_epoch;
    }
    for round in 0..30 {
        if c.streams_group(GROUP).map(|g| g.state) == Some(StreamsGroupState::Stable) {
            return epochs;
        }
        assert!(round < 29, "the group did not stabilise");
        for (i, e) in epochs.iter_mut().enumerate() {
            let id = format!("member-{i:02}");
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
            let out = c.streams_group_heartbeat(ctx, &req, 1);
            assert_eq!(out.response.error_code, 0, "{:?}", out.response);
            *e = out.response.member_epoch;
        }
    }
    epochs
}

#[test]
fn a_heartbeat_that_changes_nothing_allocates_nothing() {
    let mut c = GroupCoordinator::new(
        ConsumerGroupConfig::default(),
        Box::new(SequentialMemberIds::new(1)),
    )
    .unwrap();
    let ctx = RequestContext::new("app-client", "/10.0.0.1", 1);
    let epochs = stable_group(&mut c, &ctx);
    let req = StreamsGroupHeartbeatRequest {
        group_id: GROUP.into(),
        member_id: "member-05".into(),
        member_epoch: epochs[5],
        ..Default::default()
    };
    // The first heartbeat after the rounds shares the request's strings' buffers (a decoded
    // request's already are); the group is stable from here on.
    let first = c.streams_group_heartbeat(&ctx, &req, 10);
    assert_eq!(first.response.error_code, 0);
    let before = c.streams_group(GROUP).cloned();
    for now in 11..14 {
        let (n, out) = allocations(|| c.streams_group_heartbeat(&ctx, &req, now));
        assert_eq!(out.response.error_code, 0, "{:?}", out.response);
        assert!(out.records.is_empty() && out.topics_to_create.is_empty());
        assert!(out.response.active_tasks.is_none());
        assert_eq!(out.response.member_epoch, epochs[5]);
        // Nothing: the shared timers re-arm with borrowed keys and the facade lends the
        // other group types' namespaces without building a list.
        assert_eq!(n, 0, "allocations of the heartbeat at {now} ms");
    }
    assert_eq!(c.streams_group(GROUP).cloned(), before);
    assert_eq!(c.session_deadline(GROUP, "member-05"), Some(13 + 45_000));
}
