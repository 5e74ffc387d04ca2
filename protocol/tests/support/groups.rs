//! Group builders shared by the coordinator benches (`protocol/benches/consumer_group.rs`,
//! `protocol/benches/streams_group.rs`) and the allocation tests
//! (`protocol/tests/heartbeat_allocations.rs`, `protocol/tests/streams_heartbeat_allocations.rs`),
//! included by each with `#[path]`, so a bench measures and a test checks the same heartbeat.
//! (An integration test or a bench cannot see the library's `cfg(test)` harness,
//! `coordinator/tests/harness`; these build big groups on a bare coordinator, with no record log.)

#![allow(dead_code)] // each includer uses its part

use std::collections::{BTreeMap, BTreeSet};

use kwire_protocol::coordinator::streams::{StreamsGroupConfig, StreamsGroupState};
use kwire_protocol::coordinator::{
    ConsumerGroupConfig, GroupCoordinator, GroupState, RequestContext, SequentialMemberIds,
    TopicMetadata,
};
use kwire_protocol::generated::consumer_group_heartbeat_request::{
    ConsumerGroupHeartbeatRequest, TopicPartitions,
};
use kwire_protocol::generated::streams_group_heartbeat_request::{
    StreamsGroupHeartbeatRequest, Subtopology, TaskIds, TopicInfo, Topology,
};
use kwire_protocol::wire::Uuid;

/// The consumer group's id.
pub const CONSUMER_GROUP: &str = "bench";

/// The request context of every heartbeat (a v1 client).
pub fn consumer_context() -> RequestContext {
    RequestContext::new("bench", "/10.0.0.1", 1)
}

/// The id of member `i` of the consumer group.
pub fn consumer_member(i: usize) -> String {
    format!("member-{i:04}")
}

/// A consumer group of `members` members subscribed to 10 topics of 1,000 partitions, every
/// member STABLE at the assignment epoch (owned = assigned). Returns the coordinator and each
/// member's epoch.
pub fn stable_consumer_group(members: usize) -> (GroupCoordinator, Vec<i32>) {
    let ids = Box::new(SequentialMemberIds::new(1));
    let mut c = GroupCoordinator::new(ConsumerGroupConfig::default(), ids).unwrap();
    let topics: Vec<TopicMetadata> = (0..10)
        .map(|i| TopicMetadata::new(Uuid::from_u128(i + 1), &format!("topic-{i}"), 1000))
        .collect();
    let names: Vec<_> = topics.iter().map(|t| t.name.clone().into()).collect();
    c.set_topics(topics, 0);
    let ctx = consumer_context();
    let mut epochs = vec![0; members];
    for (i, e) in epochs.iter_mut().enumerate() {
        let req = ConsumerGroupHeartbeatRequest {
            group_id: CONSUMER_GROUP.into(),
            member_id: consumer_member(i).into(),
            member_epoch: 0,
            rebalance_timeout_ms: 30_000,
            subscribed_topic_names: Some(names.clone()),
            topic_partitions: Some(vec![]),
            ..Default::default()
        };
        *e = c
            .consumer_group_heartbeat(&ctx, &req, 0)
            .response
            .member_epoch;
    }
    // Heartbeat until every member is STABLE at the assignment epoch (owned = assigned).
    for round in 0..20 {
        if c.group(CONSUMER_GROUP).map(|g| g.state) == Some(GroupState::Stable) {
            break;
        }
        assert!(round < 19, "group did not stabilise");
        for (i, e) in epochs.iter_mut().enumerate() {
            let id = consumer_member(i);
            let assigned = &c.group(CONSUMER_GROUP).unwrap().members[&id].assigned;
            let owned = assigned
                .iter()
                .map(|(t, ps)| TopicPartitions {
                    topic_id: *t,
                    partitions: ps.iter().copied().collect(),
                    ..Default::default()
                })
                .collect();
            let req = ConsumerGroupHeartbeatRequest {
                group_id: CONSUMER_GROUP.into(),
                member_id: id.into(),
                member_epoch: *e,
                topic_partitions: Some(owned),
                ..Default::default()
            };
            *e = c
                .consumer_group_heartbeat(&ctx, &req, 1)
                .response
                .member_epoch;
        }
    }
    (c, epochs)
}

/// The heartbeat of a stable member `i` of [`stable_consumer_group`]: group id, member id and
/// epoch only (the ids are static strings, as a decoded request's are slices of its buffer).
pub fn stable_heartbeat(member_id: &'static str, epoch: i32) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        group_id: CONSUMER_GROUP.into(),
        member_id: member_id.into(),
        member_epoch: epoch,
        ..Default::default()
    }
}

/// The heartbeat of a stable member of [`stable_consumer_group`] whose id is built at run
/// time (its buffer is shared by every use of the request).
pub fn stable_heartbeat_of(member_id: String, epoch: i32) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        group_id: CONSUMER_GROUP.into(),
        member_id: member_id.into(),
        member_epoch: epoch,
        ..Default::default()
    }
}

/// The shape of a streams group: `members` members in `processes` processes, a topology of
/// `subtopologies` stateful subtopologies (`NN`: source `source-NN`, changelog
/// `app-store-NN-changelog`) of `partitions` tasks each, in group `group`.
pub struct StreamsShape {
    pub group: &'static str,
    pub members: usize,
    pub processes: usize,
    pub subtopologies: usize,
    pub partitions: i32,
}

/// The id of member `i` of a streams group.
pub fn streams_member(i: usize) -> String {
    format!("member-{i:04}")
}

/// The topology (epoch 0) of a group of `shape`.
pub fn streams_topology(shape: &StreamsShape) -> Topology {
    Topology {
        epoch: 0,
        subtopologies: (0..shape.subtopologies)
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

/// Tasks as a heartbeat lists them.
fn task_ids(s: &BTreeMap<String, BTreeSet<i32>>) -> Vec<TaskIds> {
    s.iter()
        .map(|(id, ps)| TaskIds {
            subtopology_id: id.clone().into(),
            partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
            ..Default::default()
        })
        .collect()
}

/// A Stable streams group of `shape` (no initial delay, one standby, warm-ups on: the
/// defaults) on a new coordinator (member ids from 1), every member joined at 0 ms and
/// heartbeating with its tasks at 1 ms, with `ctx`, until it is STABLE at the assignment epoch.
/// Returns the coordinator and each member's epoch.
pub fn stable_streams_group(
    shape: &StreamsShape,
    ctx: &RequestContext,
) -> (GroupCoordinator, Vec<i32>) {
    let ids = Box::new(SequentialMemberIds::new(1));
    let mut c = GroupCoordinator::new(ConsumerGroupConfig::default(), ids).unwrap();
    c.set_streams_config(StreamsGroupConfig {
        initial_rebalance_delay_ms: 0,
        num_standby_replicas: 1,
        ..Default::default()
    })
    .unwrap();
    let mut topics = Vec::new();
    for s in 0..shape.subtopologies {
        let names = [
            format!("source-{s:02}"),
            format!("app-store-{s:02}-changelog"),
        ];
        for (i, name) in names.iter().enumerate() {
            let id = Uuid::from_u128((s * 2 + i + 1) as u128);
            topics.push(TopicMetadata::new(id, name, shape.partitions));
        }
    }
    c.set_topics(topics, 0);
    let mut epochs = vec![0; shape.members];
    for (i, e) in epochs.iter_mut().enumerate() {
        let req = StreamsGroupHeartbeatRequest {
            group_id: shape.group.into(),
            member_id: streams_member(i).into(),
            member_epoch: 0,
            rebalance_timeout_ms: 30_000,
            topology: Some(streams_topology(shape)),
            active_tasks: Some(vec![]),
            standby_tasks: Some(vec![]),
            warmup_tasks: Some(vec![]),
            process_id: Some(format!("process-{:03}", i % shape.processes).into()),
            ..Default::default()
        };
        let out = c.streams_group_heartbeat(ctx, &req, 0);
        assert_eq!(out.response.error_code, 0, "{:?}", out.response);
        *e = out.response.member_epoch;
    }
    // Heartbeat with the owned tasks until every member is STABLE at the assignment epoch.
    for round in 0..30 {
        if c.streams_group(shape.group).map(|g| g.state) == Some(StreamsGroupState::Stable) {
            break;
        }
        assert!(round < 29, "group did not stabilise");
        for (i, e) in epochs.iter_mut().enumerate() {
            let id = streams_member(i);
            let assigned = c.streams_group(shape.group).unwrap().members[&id]
                .assigned
                .clone();
            let req = StreamsGroupHeartbeatRequest {
                group_id: shape.group.into(),
                member_id: id.into(),
                member_epoch: *e,
                active_tasks: Some(task_ids(&assigned.active)),
                standby_tasks: Some(task_ids(&assigned.standby)),
                warmup_tasks: Some(task_ids(&assigned.warmup)),
                ..Default::default()
            };
            let out = c.streams_group_heartbeat(ctx, &req, 1);
            assert_eq!(out.response.error_code, 0, "{:?}", out.response);
            *e = out.response.member_epoch;
        }
    }
    (c, epochs)
}
