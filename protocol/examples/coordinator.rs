//! First contact with kwire's sans-IO group coordinator (`kwire_protocol::coordinator`): a
//! classic join round of two members, then a KIP-848 consumer joining a consumer group.
//! Run it with `cargo run -p kwire-protocol --example coordinator`.

use kwire_protocol::coordinator::{
    ConsumerGroupConfig, GroupCoordinator, GroupResponse, GroupState, RequestContext, RequestId,
    SequentialMemberIds, TopicMetadata,
};
use kwire_protocol::generated::consumer_group_heartbeat_request::{
    ConsumerGroupHeartbeatRequest, TopicPartitions,
};
use kwire_protocol::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use kwire_protocol::generated::join_group_response::JoinGroupResponse;
use kwire_protocol::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use kwire_protocol::wire::Uuid;

fn main() {
    let ids = Box::new(SequentialMemberIds::new(7)); // member ids, injected: no randomness
    let mut c = GroupCoordinator::new(ConsumerGroupConfig::default(), ids).unwrap();
    classic_round(&mut c);
    consumer_join(&mut c);
}

/// Two members join classic group `g1`, the leader assigns, both sync. Classic answers may wait
/// for other members or a timer, so every answer comes out of `poll_response` under the
/// `RequestId` its request was given.
fn classic_round(c: &mut GroupCoordinator) {
    let ctx = RequestContext::from_peer("app", [127, 0, 0, 1].into(), 3); // host "/127.0.0.1"
    let join = join_request("g1");
    c.join_group(&ctx, &join, RequestId(1), 0);
    c.join_group(&ctx, &join, RequestId(2), 0);
    // A new group's first join phase ends on a timer (group.initial.rebalance.delay.ms, 3 s,
    // extended while members arrive), as in Kafka, even when the delay is 0: fire the timers
    // whenever the clock reaches next_deadline().
    let mut now = 0;
    while c.ready_responses() < 2 {
        now = c.next_deadline().unwrap();
        c.fire_timers(now);
    }
    let joined: Vec<JoinGroupResponse> = answers(c).map(|r| r.into_join().unwrap()).collect();
    for (i, member) in joined.iter().enumerate() {
        let sync = sync_request(member, &joined);
        c.sync_group(&ctx, &sync, RequestId(10 + i as u64), now);
    }
    assert_eq!(
        answers(c).count(),
        2,
        "both SyncGroups answered: the group is Stable"
    );
}

/// A consumer joins consumer group `g2` with ConsumerGroupHeartbeat: the coordinator runs the
/// assignor and answers the assignment; the next heartbeat reports it owned and changes nothing.
fn consumer_join(c: &mut GroupCoordinator) {
    c.set_topics([TopicMetadata::new(Uuid::from_u128(1), "orders", 3)], 0);
    let ctx = RequestContext::from_peer("app", [127, 0, 0, 1].into(), 1);
    let join = ConsumerGroupHeartbeatRequest {
        group_id: "g2".into(),
        member_id: "m-1".into(),
        rebalance_timeout_ms: 30_000,
        subscribed_topic_names: Some(vec!["orders".into()]),
        topic_partitions: Some(vec![]),
        ..Default::default()
    };
    let out = c.consumer_group_heartbeat(&ctx, &join, 0);
    assert!(!out.records.is_empty(), "the caller persists these records");
    let assigned = out.response.assignment.unwrap().topic_partitions;
    assert_eq!(assigned[0].partitions, [0, 1, 2]);
    let owned = assigned.iter().map(|t| TopicPartitions {
        topic_id: t.topic_id,
        partitions: t.partitions.clone(),
        ..Default::default()
    });
    let beat = ConsumerGroupHeartbeatRequest {
        member_epoch: out.response.member_epoch,
        topic_partitions: Some(owned.collect()),
        ..join.clone()
    };
    let out = c.consumer_group_heartbeat(&ctx, &beat, 1_000);
    assert!(out.records.is_empty() && out.response.error_code == 0);
    assert_eq!(c.group("g2").unwrap().state, GroupState::Stable);
}

/// A JoinGroup of a new member (no member id) of `group` with one `range` protocol.
fn join_request(group: &str) -> JoinGroupRequest {
    JoinGroupRequest {
        group_id: group.to_string().into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 10_000,
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// The SyncGroup of a member that joined: the leader's carries an (empty) assignment for every
/// member; a follower's none.
fn sync_request(member: &JoinGroupResponse, joined: &[JoinGroupResponse]) -> SyncGroupRequest {
    let assignments = joined
        .iter()
        .filter(|_| member.member_id == member.leader)
        .map(|m| SyncGroupRequestAssignment {
            member_id: m.member_id.clone(),
            ..Default::default()
        });
    SyncGroupRequest {
        group_id: "g1".into(),
        generation_id: member.generation_id,
        member_id: member.member_id.clone(),
        assignments: assignments.collect(),
        ..Default::default()
    }
}

/// Every classic answer ready to send (drain after every call into the coordinator).
fn answers(c: &mut GroupCoordinator) -> impl Iterator<Item = GroupResponse> + '_ {
    std::iter::from_fn(|| c.poll_response().map(|(_id, r)| r))
}
