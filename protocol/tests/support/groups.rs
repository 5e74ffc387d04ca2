//! Group builders shared by the coordinator benches (`protocol/benches/consumer_group.rs`) and
//! the allocation test (`protocol/tests/heartbeat_allocations.rs`), included by both with
//! `#[path]`, so the bench measures and the test checks the same heartbeat.

#![allow(dead_code)] // each includer uses its part

use kwire_protocol::coordinator::{
    ConsumerGroupConfig, GroupCoordinator, GroupState, RequestContext, SequentialMemberIds,
    TopicMetadata,
};
use kwire_protocol::generated::consumer_group_heartbeat_request::{
    ConsumerGroupHeartbeatRequest, TopicPartitions,
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

// The streams group's builder (a stable member of a 200-member streams group, the bench
// `streams_group.rs`) goes here, beside the consumer one, for the streams heartbeat's case in
// `heartbeat_allocations.rs`.
