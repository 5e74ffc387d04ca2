//! KIP-848 online migration scenarios (Kafka 4.4's `GroupMetadataManager`: classic members
//! inside consumer groups, upgrade, downgrade, `group.consumer.migration.policy`), run against
//! [`GroupCoordinator`]. After every step the state is compared with `replay` of every record
//! emitted so far.

use std::borrow::BorrowMut;
use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;

use super::harness::groups::{
    assignment, classic_join_round, decoded, foo_bar_harness, range_assignor_harness, subscription,
    sync_request, BAR, FOO,
};
use super::harness::Harness;
use crate::coordinator::consumer::assignor::{Assignment, RangeAssignor};
use crate::coordinator::consumer::migration::{decode_assignment, encode_assignment};
use crate::coordinator::consumer::*;
use crate::coordinator::{
    GroupCoordinator, GroupResponse, RequestContext, RequestId, SequentialMemberIds, TopicMetadata,
};
use crate::error::ErrorCode;
use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_request::TopicPartitions as ReqTp;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use crate::generated::leave_group_response::LeaveGroupResponse;
use crate::generated::sync_group_request::SyncGroupRequest;
use crate::generated::sync_group_response::SyncGroupResponse;
use crate::wire::Encode;

/// A coordinator with foo (6 partitions) and bar (3), the `range` assignor and `policy`.
fn harness(policy: MigrationPolicy) -> Harness {
    range_assignor_harness(|c| c.migration_policy = policy, 7).client("c", "h")
}

/// A coordinator with foo (6 partitions) and bar (3) and `config`.
fn harness_with(config: ConsumerGroupConfig) -> Harness {
    foo_bar_harness(config, 7).client("c", "h")
}

/// The calls of the migration scenarios, all to group `g`.
trait MigrationCalls: BorrowMut<Harness> {
    fn cghb(&mut self, req: ConsumerGroupHeartbeatRequest) -> ConsumerGroupHeartbeatResponse {
        let h: &mut Harness = self.borrow_mut();
        h.consumer_heartbeat(1, &req).response
    }

    /// A ConsumerGroupHeartbeat join (epoch 0) of `member` subscribed to `topics`.
    fn cghb_join(&mut self, member: &str, topics: &[&str]) -> ConsumerGroupHeartbeatResponse {
        self.cghb(ConsumerGroupHeartbeatRequest {
            group_id: "g".into(),
            member_id: member.to_string().into(),
            member_epoch: 0,
            rebalance_timeout_ms: 5000,
            subscribed_topic_names: Some(topics.iter().map(|t| t.to_string().into()).collect()),
            topic_partitions: Some(vec![]),
            ..Default::default()
        })
    }

    /// A ConsumerGroupHeartbeat at `epoch` reporting `owned`.
    fn cghb_at(
        &mut self,
        member: &str,
        epoch: i32,
        owned: &Assignment,
    ) -> ConsumerGroupHeartbeatResponse {
        self.cghb(ConsumerGroupHeartbeatRequest {
            group_id: "g".into(),
            member_id: member.to_string().into(),
            member_epoch: epoch,
            topic_partitions: Some(
                owned
                    .iter()
                    .map(|(t, ps)| ReqTp {
                        topic_id: *t,
                        partitions: ps.iter().copied().collect(),
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        })
    }

    /// A JoinGroup at `version`; every answer that came.
    fn join_req(
        &mut self,
        version: i16,
        req: &JoinGroupRequest,
    ) -> Vec<(RequestId, GroupResponse)> {
        let h: &mut Harness = self.borrow_mut();
        h.send_join(version, req);
        h.drain()
    }

    /// A classic JoinGroup (v9) of `member` with one `range` protocol subscribing to `topics`
    /// and reporting `owned`; the answer (immediate in a consumer group).
    fn join(
        &mut self,
        member: &str,
        topics: &[&str],
        owned: &[(&str, &[i32])],
    ) -> JoinGroupResponse {
        let req = join_request(member, None, topics, owned);
        let out = self.join_req(9, &req);
        assert_eq!(out.len(), 1, "{out:?}");
        match &out[0].1 {
            GroupResponse::JoinGroup(r) => r.clone(),
            other => panic!("{other:?}"),
        }
    }

    fn sync(&mut self, member: &str, generation: i32) -> SyncGroupResponse {
        let h: &mut Harness = self.borrow_mut();
        let id = h.send_sync(5, &sync_request("g", member, generation, vec![]));
        let out = h.drain();
        match out.as_slice() {
            [(i, GroupResponse::SyncGroup(r))] if *i == id => r.clone(),
            other => panic!("{other:?}"),
        }
    }

    fn hb(&mut self, member: &str, generation: i32) -> i16 {
        let h: &mut Harness = self.borrow_mut();
        let req = HeartbeatRequest {
            group_id: "g".into(),
            generation_id: generation,
            member_id: member.to_string().into(),
            ..Default::default()
        };
        let id = h.send_heartbeat(4, &req);
        let out = h.drain();
        match out.as_slice() {
            [(i, GroupResponse::Heartbeat(r))] if *i == id => r.error_code,
            other => panic!("{other:?}"),
        }
    }

    fn leave(&mut self, members: &[&str]) -> LeaveGroupResponse {
        let h: &mut Harness = self.borrow_mut();
        let req = LeaveGroupRequest {
            group_id: "g".into(),
            members: members
                .iter()
                .map(|m| MemberIdentity {
                    member_id: m.to_string().into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let id = h.send_leave(5, &req);
        let out = h.drain();
        match out.as_slice() {
            [(i, GroupResponse::LeaveGroup(r))] if *i == id => r.clone(),
            other => panic!("{other:?}"),
        }
    }

    fn member(&self, id: &str) -> ConsumerGroupMember {
        let h: &Harness = self.borrow();
        h.c.group("g").unwrap().members[id].clone()
    }

    /// The classic group `g`.
    fn classic(&self) -> crate::coordinator::ClassicGroup {
        let h: &Harness = self.borrow();
        h.c.classic_group("g").unwrap().clone()
    }

    /// Two classic members form a classic group (generation 1, leader `m1`'s client-side
    /// assignment: m1 foo 0-2, m2 foo 3-5) and return their member ids.
    fn classic_group_of_two(&mut self) -> (String, String) {
        // The leader assigns foo 0-2 to the first id, 3-5 to the second.
        let asg_bytes = |ps: &[i32]| {
            let mut m = std::collections::BTreeMap::new();
            m.insert(FOO, ps.iter().copied().collect::<BTreeSet<i32>>());
            encode_assignment(
                &m,
                &[("foo".to_string(), TopicMetadata::new(FOO, "foo", 6))]
                    .into_iter()
                    .collect(),
                3,
            )
        };
        // Both rejoin with their ids; the initial delay (3 s, extended while members arrive:
        // Kafka's group.initial.rebalance.delay.ms) holds the answers.
        let round = classic_join_round(
            self.borrow_mut(),
            2,
            |_, m| join_request(m, None, &["foo"], &[]),
            &[asg_bytes(&[0, 1, 2]), asg_bytes(&[3, 4, 5])],
        );
        assert_eq!(round.generation, 1);
        assert_eq!(
            self.classic().state,
            crate::coordinator::ClassicGroupState::Stable
        );
        (round.ids[0].clone(), round.ids[1].clone())
    }
}

impl MigrationCalls for Harness {}

/// A JoinGroup request with one `range` protocol (session 10 s, rebalance 20 s).
fn join_request(
    member: &str,
    instance: Option<&str>,
    topics: &[&str],
    owned: &[(&str, &[i32])],
) -> JoinGroupRequest {
    JoinGroupRequest {
        group_id: "g".into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 20_000,
        member_id: member.to_string().into(),
        group_instance_id: instance.map(|i| i.to_string().into()),
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: subscription(topics, owned, None, 3),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn foo(ps: &[i32]) -> Vec<(String, Vec<i32>)> {
    vec![("foo".to_string(), ps.to_vec())]
}

/// A classic member joins a consumer group beside a ConsumerGroupHeartbeat member: it waits
/// for partitions the other member still owns, is told REBALANCE_IN_PROGRESS once they are
/// free, rejoins, and gets them in SyncGroup as ConsumerProtocolAssignment bytes; then leaves.
#[test]
fn classic_member_reconciles_inside_a_consumer_group() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    let r = h.cghb_join("a", &["foo"]);
    assert_eq!((r.error_code, r.member_epoch), (0, 1));
    let all = assignment(&[(FOO, &[0, 1, 2, 3, 4, 5])]);
    assert_eq!(h.member("a").assigned, all);

    // b joins with the classic protocol: range gives it foo 3-5, still owned by a.
    let j = h.join("b", &["foo"], &[]);
    assert_eq!(j.error_code, 0);
    assert_eq!(&*j.member_id, "b");
    assert_eq!(j.generation_id, 2);
    assert_eq!(j.protocol_type.as_deref(), Some("consumer"));
    assert_eq!(j.protocol_name.as_deref(), Some("range"));
    assert_eq!(&*j.leader, "");
    assert!(j.members.is_empty());
    let b = h.member("b");
    assert_eq!(
        (b.member_epoch, b.state),
        (2, MemberState::UnreleasedPartitions)
    );
    assert_eq!(
        b.classic.as_ref().map(|c| c.session_timeout_ms),
        Some(10_000)
    );
    assert_eq!(
        h.c.group("g").unwrap().targets["b"],
        assignment(&[(FOO, &[3, 4, 5])])
    );
    assert_eq!(h.c.session_deadline("g", "b"), Some(10_000));

    let s = h.sync("b", 2);
    assert_eq!(s.error_code, 0);
    assert_eq!(&s.assignment[..2], &[0, 3], "the subscription's version");
    assert_eq!(decoded(&s.assignment), vec![]);
    assert_eq!(s.protocol_name.as_deref(), Some("range"));
    // Waiting on partitions a still owns: no rejoin yet.
    assert_eq!(h.hb("b", 2), 0);
    assert_eq!(h.hb("b", 1), ErrorCode::IllegalGeneration.code());

    // a revokes foo 3-5 and reaches epoch 2.
    let r = h.cghb_at("a", 1, &all);
    assert_eq!(r.member_epoch, 1);
    assert_eq!(h.member("a").state, MemberState::UnrevokedPartitions);
    let r = h.cghb_at("a", 1, &assignment(&[(FOO, &[0, 1, 2])]));
    assert_eq!(r.member_epoch, 2);

    // The partitions are free: b must rejoin.
    assert_eq!(h.hb("b", 2), ErrorCode::RebalanceInProgress.code());
    let j = h.join("b", &["foo"], &[]);
    assert_eq!((j.error_code, j.generation_id), (0, 2));
    let b = h.member("b");
    assert_eq!((b.member_epoch, b.state), (2, MemberState::Stable));
    let s = h.sync("b", 2);
    assert_eq!(decoded(&s.assignment), foo(&[3, 4, 5]));
    assert_eq!(h.hb("b", 2), 0);
    assert_eq!(h.c.group("g").unwrap().state, GroupState::Stable);

    // ConsumerGroupDescribe v1: MemberType 0 for the classic member, 1 for the other.
    let d = h.c.consumer_group_describe(
        &RequestContext::new("c", "h", 1),
        &ConsumerGroupDescribeRequest {
            group_ids: vec!["g".into()],
            ..Default::default()
        },
    );
    let types: Vec<(String, i8)> = d.groups[0]
        .members
        .iter()
        .map(|m| (m.member_id.to_string(), m.member_type))
        .collect();
    assert_eq!(types, vec![("a".into(), 1), ("b".into(), 0)]);

    // A consumer-protocol member cannot use the classic Heartbeat; b leaves.
    assert_eq!(h.hb("a", 2), ErrorCode::UnknownMemberId.code());
    let l = h.leave(&["b", "zz"]);
    let codes: Vec<(String, i16)> = l
        .members
        .iter()
        .map(|m| (m.member_id.to_string(), m.error_code))
        .collect();
    assert_eq!(
        codes,
        vec![
            ("b".into(), 0),
            ("zz".into(), ErrorCode::UnknownMemberId.code())
        ]
    );
    let g = h.c.group("g").unwrap();
    assert_eq!(g.group_epoch, 3);
    assert_eq!(g.members.keys().collect::<Vec<_>>(), vec!["a"]);
}

/// A classic member in a consumer group is fenced when its session expires, when it does not
/// sync within its rebalance timeout after joining, and when it does not rejoin within its
/// rebalance timeout after REBALANCE_IN_PROGRESS.
#[test]
fn classic_member_timers_fence_it() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    h.cghb_join("a", &["foo"]);
    // No SyncGroup within the rebalance timeout (20 s), while the session (10 s) is kept.
    h.join("b", &["foo"], &[]);
    assert_eq!(h.c.group("g").unwrap().group_epoch, 2);
    for _ in 0..3 {
        h.advance(6_000);
        h.hb("b", 2);
    }
    assert!(h.c.group("g").unwrap().members.contains_key("b"));
    h.advance(2_001);
    assert!(
        !h.c.group("g").unwrap().members.contains_key("b"),
        "sync timeout"
    );
    assert_eq!(h.c.group("g").unwrap().group_epoch, 3);

    // Session timeout: joined and synced, then silent for 10 s.
    h.cghb_at("a", 1, &assignment(&[(FOO, &[0, 1, 2, 3, 4, 5])]));
    h.join("c", &["foo"], &[]);
    let e = h.member("c").member_epoch;
    h.sync("c", e);
    h.advance(9_999);
    assert!(h.c.group("g").unwrap().members.contains_key("c"));
    h.advance(1);
    assert!(
        !h.c.group("g").unwrap().members.contains_key("c"),
        "session timeout"
    );

    // Join timeout: told to rejoin, never does.
    h.join("d", &["foo"], &[]);
    let e = h.member("d").member_epoch;
    h.sync("d", e);
    h.cghb_join("x", &["foo"]); // bumps the group epoch past d's
    let mut left = 20_000;
    assert_eq!(h.hb("d", e), ErrorCode::RebalanceInProgress.code());
    while left > 5_000 {
        h.advance(5_000);
        left -= 5_000;
        assert_eq!(h.hb("d", e), ErrorCode::RebalanceInProgress.code());
    }
    h.advance(5_000);
    assert!(
        !h.c.group("g").unwrap().members.contains_key("d"),
        "join timeout"
    );
}

/// JoinGroup errors from a classic member to a consumer group, in Kafka's order.
#[test]
fn classic_join_errors() {
    let mut h = harness(MigrationPolicy::Disabled);
    h.cghb_join("a", &["foo"]);
    let j = h.join("b", &["foo"], &[]);
    assert_eq!(j.error_code, ErrorCode::InconsistentGroupProtocol.code());
    assert!(!h.c.group("g").unwrap().members.contains_key("b"));

    let mut h = harness(MigrationPolicy::Upgrade);
    h.cghb_join("a", &["foo"]);
    // Unknown member id at v4+: MEMBER_ID_REQUIRED with a new id; nothing written.
    let before = h.log.len();
    let out = h.join_req(9, &join_request("", None, &["foo"], &[]));
    let GroupResponse::JoinGroup(j) = &out[0].1 else {
        panic!()
    };
    assert_eq!(j.error_code, ErrorCode::MemberIdRequired.code());
    assert!(!j.member_id.is_empty());
    assert_eq!(h.log.len(), before);
    // Another protocol type.
    let mut req = join_request("b", None, &["foo"], &[]);
    req.protocol_type = "connect".into();
    let out = h.join_req(9, &req);
    let GroupResponse::JoinGroup(j) = &out[0].1 else {
        panic!()
    };
    assert_eq!(j.error_code, ErrorCode::InconsistentGroupProtocol.code());
    // Malformed subscription bytes.
    let mut req = join_request("b", None, &["foo"], &[]);
    req.protocols[0].metadata = Bytes::from_static(&[0, 3, 0, 0, 0, 9]);
    let out = h.join_req(9, &req);
    let GroupResponse::JoinGroup(j) = &out[0].1 else {
        panic!()
    };
    assert_eq!(j.error_code, ErrorCode::InconsistentGroupProtocol.code());
    // A protocol the classic members do not share.
    h.join("b", &["foo"], &[]);
    let mut req = join_request("c", None, &["foo"], &[]);
    req.protocols[0].name = "roundrobin".into();
    let out = h.join_req(9, &req);
    let GroupResponse::JoinGroup(j) = &out[0].1 else {
        panic!()
    };
    assert_eq!(j.error_code, ErrorCode::InconsistentGroupProtocol.code());

    // Max size.
    let mut config = ConsumerGroupConfig::with_assignors(vec![Arc::new(RangeAssignor)]);
    config.max_size = 1;
    let mut h = harness_with(config);
    h.cghb_join("a", &["foo"]);
    let j = h.join("b", &["foo"], &[]);
    assert_eq!(j.error_code, ErrorCode::GroupMaxSizeReached.code());
}

/// SyncGroup answers the member's current assignment; owned partitions reported in the
/// subscription count as owned; the protocol checks.
#[test]
fn classic_sync_checks_and_owned_partitions() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    h.cghb_join("a", &["foo", "bar"]);
    let j = h.join("b", &["foo", "bar"], &[]);
    let e = j.generation_id;
    // Wrong protocol name / type.
    let id = RequestId(999);
    let req = SyncGroupRequest {
        group_id: "g".into(),
        generation_id: e,
        member_id: "b".into(),
        protocol_type: Some("consumer".into()),
        protocol_name: Some("roundrobin".into()),
        ..Default::default()
    };
    let r =
        h.c.sync_group(&RequestContext::new("c", "h", 5), &req, id, h.now);
    h.absorb(&r);
    let out = h.drain();
    let GroupResponse::SyncGroup(s) = &out[0].1 else {
        panic!()
    };
    assert_eq!(s.error_code, ErrorCode::InconsistentGroupProtocol.code());
    // Unknown member.
    let s = h.sync("nobody", e);
    assert_eq!(s.error_code, ErrorCode::UnknownMemberId.code());
    // A consumer-protocol member cannot SyncGroup.
    let s = h.sync("a", 1);
    assert_eq!(s.error_code, ErrorCode::UnknownMemberId.code());
    // The encoded assignment at version 0 (the member's subscription version).
    let bytes = encode_assignment(
        &assignment(&[(BAR, &[2]), (FOO, &[1, 0])]),
        &[
            ("foo".to_string(), TopicMetadata::new(FOO, "foo", 6)),
            ("bar".to_string(), TopicMetadata::new(BAR, "bar", 3)),
        ]
        .into_iter()
        .collect(),
        0,
    );
    assert_eq!(&bytes[..2], &[0, 0]);
    assert_eq!(
        decoded(&bytes),
        vec![
            ("bar".to_string(), vec![2]),
            ("foo".to_string(), vec![0, 1])
        ]
    );
    let owned: BTreeSet<i32> = [0, 1].into();
    assert_eq!(owned.len(), 2);
}

/// Upgrade: a classic group of two members, one of them waiting in a new join phase, gets a
/// ConsumerGroupHeartbeat: the waiting join is answered REBALANCE_IN_PROGRESS, the group becomes
/// a consumer group at epoch = the generation with the classic assignments, the new member
/// bumps it; the classic members are told to rejoin and reconcile; then downgrade when the new
/// member leaves.
#[test]
fn upgrade_then_downgrade() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    let (m1, m2) = h.classic_group_of_two();
    // m2 rejoins: a join phase starts and its JoinGroup waits for m1.
    let wait = h.id();
    let r = h.c.join_group(
        &RequestContext::new("c", "h", 9),
        &join_request(&m2, None, &["foo"], &[("foo", &[3, 4, 5])]),
        wait,
        h.now,
    );
    h.absorb(&r);
    assert!(h.drain().is_empty());
    assert_eq!(
        h.classic().state,
        crate::coordinator::ClassicGroupState::PreparingRebalance
    );

    // A consumer-protocol member joins: upgrade.
    let before = h.log.len();
    let r = h.cghb_join("c", &["foo"]);
    assert_eq!((r.error_code, r.member_epoch), (0, 2));
    let out = h.drain();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0, wait);
    let GroupResponse::JoinGroup(j) = &out[0].1 else {
        panic!()
    };
    assert_eq!(j.error_code, ErrorCode::RebalanceInProgress.code());
    assert!(h.c.classic_group("g").is_none());
    let written: Vec<i16> = h.log[before..].iter().map(|r| r.record_type()).collect();
    // classic tombstone(s), then member metadata ×2, group epoch, targets ×2, target epoch,
    // currents ×2, then c's records.
    assert!(h.log[before].is_tombstone());
    assert!(written.contains(&5) && written.contains(&8));
    let g = h.c.group("g").unwrap().clone();
    assert_eq!((g.group_epoch, g.assignment_epoch), (2, 2));
    let first = h.member(&m1);
    assert_eq!(
        (first.member_epoch, first.previous_member_epoch, first.state),
        (1, 1, MemberState::Stable)
    );
    assert_eq!(first.assigned, assignment(&[(FOO, &[0, 1, 2])]));
    assert_eq!(first.classic.as_ref().unwrap().session_timeout_ms, 10_000);
    assert_eq!(h.member(&m2).assigned, assignment(&[(FOO, &[3, 4, 5])]));
    assert_eq!(
        h.member("c").assigned,
        Assignment::new(),
        "everything is still owned"
    );
    assert_eq!(h.c.session_deadline("g", &m1), Some(h.now + 10_000));

    // The classic members learn of the new epoch from their Heartbeat and rejoin.
    assert_eq!(h.hb(&m1, 1), ErrorCode::RebalanceInProgress.code());
    let j = h.join(&m1, &["foo"], &[("foo", &[0, 1, 2])]);
    assert_eq!(j.error_code, 0);
    let s = h.sync(&m1, j.generation_id);
    let assigned = h.member(&m1).assigned;
    let expect: Vec<(String, Vec<i32>)> = assigned
        .get(&FOO)
        .map(|ps| foo(&ps.iter().copied().collect::<Vec<_>>()))
        .unwrap_or_default();
    assert_eq!(decoded(&s.assignment), expect);
    // Range over c < m2 < m1 (ids in byte order): c 0-1, m2 2-3, m1 4-5. m1 must first
    // revoke 0-2 (still owned by its client), so it syncs an empty assignment.
    assert_eq!(
        h.c.group("g").unwrap().targets[&m1],
        assignment(&[(FOO, &[4, 5])])
    );
    assert_eq!(
        h.c.group("g").unwrap().targets[&m2],
        assignment(&[(FOO, &[2, 3])])
    );
    assert_eq!(
        h.c.group("g").unwrap().targets["c"],
        assignment(&[(FOO, &[0, 1])])
    );
    let m = h.member(&m1);
    assert_eq!(
        (m.state, m.member_epoch),
        (MemberState::UnrevokedPartitions, 1)
    );
    assert_eq!(m.pending_revocation, assignment(&[(FOO, &[0, 1, 2])]));
    assert_eq!(assigned, Assignment::new());
    // Revoked on the client: m1 rejoins owning nothing and gets 4-5 once m2 released them.
    assert_eq!(h.hb(&m1, 1), ErrorCode::RebalanceInProgress.code());
    let j = h.join(&m1, &["foo"], &[]);
    assert_eq!((j.error_code, j.generation_id), (0, 2));
    assert_eq!(h.member(&m1).state, MemberState::UnreleasedPartitions);
    assert_eq!(h.hb(&m2, 1), ErrorCode::RebalanceInProgress.code());
    let j = h.join(&m2, &["foo"], &[("foo", &[3])]);
    assert_eq!((j.error_code, j.generation_id), (0, 2));
    let s2 = h.sync(&m2, 2);
    assert_eq!(decoded(&s2.assignment), foo(&[2, 3]));
    assert_eq!(h.hb(&m1, 2), ErrorCode::RebalanceInProgress.code());
    let j = h.join(&m1, &["foo"], &[]);
    assert_eq!((j.error_code, j.generation_id), (0, 2));
    let s1 = h.sync(&m1, 2);
    assert_eq!(decoded(&s1.assignment), foo(&[4, 5]));
    assert_eq!(h.hb(&m1, 2), 0);

    // Downgrade: the only consumer-protocol member leaves.
    let epoch = h.c.group("g").unwrap().group_epoch;
    let r = h.cghb(ConsumerGroupHeartbeatRequest {
        group_id: "g".into(),
        member_id: "c".into(),
        member_epoch: -1,
        ..Default::default()
    });
    assert_eq!((r.error_code, r.member_epoch), (0, -1));
    assert!(h.c.group("g").is_none());
    let cg = h.classic();
    assert_eq!(
        cg.state,
        crate::coordinator::ClassicGroupState::PreparingRebalance
    );
    assert_eq!(cg.generation_id, epoch);
    assert_eq!(cg.protocol_type.as_deref(), Some("consumer"));
    assert_eq!(cg.protocol_name.as_deref(), Some("range"));
    assert_eq!(
        cg.members.keys().cloned().collect::<BTreeSet<_>>(),
        [m1.clone(), m2.clone()].into()
    );
    // Each member's assignment is its consumer-group target.
    let targets: Vec<Vec<(String, Vec<i32>)>> = [&m1, &m2]
        .iter()
        .map(|m| decoded(&cg.members[*m].assignment))
        .collect();
    assert_eq!(targets, vec![foo(&[4, 5]), foo(&[2, 3])]);
    assert_eq!(epoch, 2);
    // Classic members heartbeat at generation 2 into the rebalance, rejoin and get a new
    // generation from the classic group.
    assert_eq!(h.hb(&m1, 2), ErrorCode::RebalanceInProgress.code());
    let w1 = h.id();
    let r = h.c.join_group(
        &RequestContext::new("c", "h", 9),
        &join_request(&m1, None, &["foo"], &[]),
        w1,
        h.now,
    );
    h.absorb(&r);
    let w2 = h.id();
    let r = h.c.join_group(
        &RequestContext::new("c", "h", 9),
        &join_request(&m2, None, &["foo"], &[]),
        w2,
        h.now,
    );
    h.absorb(&r);
    let out = h.drain();
    assert_eq!(out.len(), 2);
    for (_, a) in &out {
        let GroupResponse::JoinGroup(j) = a else {
            panic!()
        };
        assert_eq!((j.error_code, j.generation_id), (0, 3));
    }
}

/// The policy refuses the other direction: `downgrade` and `disabled` refuse an upgrade
/// (GROUP_ID_NOT_FOUND with Kafka's message); `upgrade` and `disabled` keep a consumer group
/// whose last consumer-protocol member leaves (its classic members stay in it).
#[test]
fn policy_refuses_the_other_direction() {
    for policy in [MigrationPolicy::Downgrade, MigrationPolicy::Disabled] {
        let mut h = harness(policy);
        h.classic_group_of_two();
        let r = h.cghb_join("c", &["foo"]);
        assert_eq!(r.error_code, ErrorCode::GroupIdNotFound.code());
        assert_eq!(
            r.error_message.as_deref(),
            Some("Cannot upgrade classic group g to consumer group because online upgrade is disabled.")
        );
        assert!(h.c.group("g").is_none());
        assert_eq!(h.classic().members.len(), 2);
    }
    for (policy, downgrades) in [
        (MigrationPolicy::Upgrade, false),
        (MigrationPolicy::Bidirectional, true),
    ] {
        let mut h = harness(policy);
        h.cghb_join("a", &["foo"]);
        let j = h.join("b", &["foo"], &[]);
        assert_eq!(j.error_code, 0);
        h.cghb(ConsumerGroupHeartbeatRequest {
            group_id: "g".into(),
            member_id: "a".into(),
            member_epoch: -1,
            ..Default::default()
        });
        assert_eq!(h.c.classic_group("g").is_some(), downgrades, "{policy:?}");
        assert_eq!(h.c.group("g").is_some(), !downgrades, "{policy:?}");
        if !downgrades {
            assert_eq!(
                h.c.group("g").unwrap().members.keys().collect::<Vec<_>>(),
                vec!["b"]
            );
        }
    }
}

/// Size limits: an upgrade needs the classic group to fit `group.consumer.max.size`; a
/// downgrade needs the members left to fit the classic `group.max.size`.
#[test]
fn size_limits() {
    let mut config = ConsumerGroupConfig::with_assignors(vec![Arc::new(RangeAssignor)]);
    config.max_size = 1;
    let mut h = harness_with(config);
    h.classic_group_of_two();
    let r = h.cghb_join("c", &["foo"]);
    assert_eq!(r.error_code, ErrorCode::GroupIdNotFound.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Cannot upgrade classic group g to consumer group because the group size exceeds the consumer group maximum size.")
    );
    // Fits the limit, but the joining member makes it full: nothing is converted.
    let mut config = ConsumerGroupConfig::with_assignors(vec![Arc::new(RangeAssignor)]);
    config.max_size = 2;
    let mut h = harness_with(config);
    h.classic_group_of_two();
    let r = h.cghb_join("c", &["foo"]);
    assert_eq!(r.error_code, ErrorCode::GroupMaxSizeReached.code());
    assert!(h.c.group("g").is_none());
    assert_eq!(h.classic().members.len(), 2);

    // Downgrade refused: two classic members left, classic group.max.size 1.
    let mut h = harness(MigrationPolicy::Bidirectional);
    h.c.set_classic_config(crate::coordinator::ClassicGroupConfig {
        max_size: 1,
        ..Default::default()
    })
    .unwrap();
    h.cghb_join("a", &["foo"]);
    h.join("b", &["foo"], &[]);
    h.join("b2", &["foo"], &[]);
    h.cghb(ConsumerGroupHeartbeatRequest {
        group_id: "g".into(),
        member_id: "a".into(),
        member_epoch: -1,
        ..Default::default()
    });
    assert!(h.c.classic_group("g").is_none());
    assert_eq!(h.c.group("g").unwrap().members.len(), 2);
}

/// A classic assignment carrying user data (a custom client-side assignor) refuses the upgrade,
/// as does a group of another protocol type.
#[test]
fn custom_assignor_metadata_refuses_upgrade() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    let (m1, _m2) = h.classic_group_of_two();
    // Rewrite m1's assignment with user data through a new generation would need a client-side
    // assignor; build the refusal from the conversion itself.
    let mut snap = crate::coordinator::consumer::ClassicGroupSnapshot {
        group_id: "g".into(),
        generation_id: 1,
        protocol_type: Some("consumer".into()),
        protocol_name: Some("range".into()),
        members: vec![],
    };
    let cg = h.classic();
    for m in cg.members.values() {
        let mut a = decode_assignment(&m.assignment).unwrap();
        if m.member_id == m1 {
            a.user_data = Some(Bytes::from_static(b"sticky"));
        }
        let mut bytes = 3i16.to_be_bytes().to_vec();
        a.encode(&mut bytes, 3).unwrap();
        snap.members
            .push(crate::coordinator::consumer::ClassicMemberSnapshot {
                member_id: m.member_id.clone(),
                instance_id: None,
                client_id: "c".into(),
                client_host: "h".into(),
                rebalance_timeout_ms: 20_000,
                session_timeout_ms: 10_000,
                protocols: m
                    .protocols
                    .iter()
                    .map(|p| ClassicProtocol {
                        name: p.name.clone(),
                        metadata: p.metadata.clone(),
                    })
                    .collect(),
                assignment: Bytes::from(bytes),
            });
    }
    let err = h.c.try_upgrade_records(&snap).unwrap_err();
    assert_eq!(
        err,
        "Cannot upgrade classic group g to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade."
    );
    // Through the facade: a group of protocol type `connect` is not upgraded.
    let mut h = harness(MigrationPolicy::Bidirectional);
    let mut req = join_request("", None, &["foo"], &[]);
    req.protocol_type = "connect".into();
    let out = h.join_req(9, &req);
    let GroupResponse::JoinGroup(j) = &out[0].1 else {
        panic!()
    };
    let mut req2 = req.clone();
    req2.member_id = j.member_id.clone();
    h.join_req(9, &req2);
    let r = h.cghb_join("c", &["foo"]);
    assert_eq!(r.error_code, ErrorCode::GroupIdNotFound.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Cannot upgrade classic group g to consumer group because the group does not use the consumer embedded protocol.")
    );
}

/// OffsetCommit and OffsetFetch of a classic member inside a consumer group: the generation id
/// is the member epoch; another one is ILLEGAL_GENERATION (Kafka 4.4's `validateMemberEpoch`),
/// where a consumer-protocol member gets STALE_MEMBER_EPOCH.
#[test]
fn offset_commit_generation_of_classic_members() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    h.cghb_join("a", &["foo"]);
    let j = h.join("b", &["foo"], &[]);
    assert_eq!(j.generation_id, 2);
    assert_eq!(h.c.validate_offset_commit("g", "b", 2, 8), 0);
    assert_eq!(
        h.c.validate_offset_commit("g", "b", 1, 8),
        ErrorCode::IllegalGeneration.code()
    );
    assert_eq!(
        h.c.validate_offset_fetch("g", "b", 3),
        ErrorCode::IllegalGeneration.code()
    );
    assert_eq!(
        h.c.validate_offset_commit("g", "a", 2, 9),
        ErrorCode::StaleMemberEpoch.code()
    );
}

/// A LeaveGroup may remove a consumer-protocol member (Kafka 4.4 fences any member it names):
/// when only classic members are left, the group is downgraded.
#[test]
fn leave_group_of_the_last_consumer_member_downgrades() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    h.cghb_join("a", &["foo"]);
    h.join("b", &["foo"], &[]);
    let l = h.leave(&["a"]);
    assert_eq!(l.members.len(), 1);
    assert_eq!(
        (&*l.members[0].member_id, l.members[0].error_code),
        ("a", 0)
    );
    assert!(h.c.group("g").is_none());
    let cg = h.classic();
    assert_eq!(cg.members.keys().collect::<Vec<_>>(), vec!["b"]);
    assert_eq!(cg.generation_id, 2);
    assert_eq!(
        cg.state,
        crate::coordinator::ClassicGroupState::PreparingRebalance
    );
    // b's assignment is its target (range over a, b: foo 3-5).
    assert_eq!(decoded(&cg.members["b"].assignment), foo(&[3, 4, 5]));
}

/// A coordinator loaded from the records of a mixed group has the same groups, and re-arms a
/// classic member's session timer with the member's own session timeout.
#[test]
fn load_restores_classic_members_of_a_consumer_group() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    h.cghb_join("a", &["foo"]);
    h.join("b", &["foo"], &[]);
    let loaded = GroupCoordinator::load(
        ConsumerGroupConfig::with_assignors(vec![Arc::new(RangeAssignor)]),
        Box::new(SequentialMemberIds::new(8)),
        vec![
            TopicMetadata::new(FOO, "foo", 6),
            TopicMetadata::new(BAR, "bar", 3),
        ],
        &h.log,
        50_000,
    )
    .unwrap();
    assert_eq!(loaded.groups(), h.c.groups());
    let b = &loaded.group("g").unwrap().members["b"];
    assert_eq!(
        b.classic.as_ref().map(|c| c.session_timeout_ms),
        Some(10_000)
    );
    assert_eq!(loaded.session_deadline("g", "b"), Some(60_000));
    assert_eq!(loaded.session_deadline("g", "a"), Some(95_000));
}

/// A classic static member replacing the last consumer-protocol static member downgrades the
/// group without a rebalance: the joining member takes the replaced member's place and target
/// (Kafka 4.4's downgrade "with stale assignment").
#[test]
fn classic_static_member_replacing_the_last_consumer_member_downgrades() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    h.cghb(ConsumerGroupHeartbeatRequest {
        group_id: "g".into(),
        member_id: "a".into(),
        member_epoch: 0,
        instance_id: Some("i".into()),
        rebalance_timeout_ms: 5000,
        subscribed_topic_names: Some(vec!["foo".into()]),
        topic_partitions: Some(vec![]),
        ..Default::default()
    });
    let j = h.join("b", &["foo"], &[]);
    assert_eq!(j.error_code, 0);
    let r = h.cghb_at("a", 1, &assignment(&[(FOO, &[0, 1, 2, 3, 4, 5])]));
    let r = h.cghb_at("a", r.member_epoch, &assignment(&[(FOO, &[0, 1, 2])]));
    assert_eq!(r.member_epoch, 2);
    let epoch = h.c.group("g").unwrap().group_epoch;
    // The same instance restarts with the classic protocol.
    let out = h.join_req(9, &join_request("a2", Some("i"), &["foo"], &[]));
    let GroupResponse::JoinGroup(j) = &out[0].1 else {
        panic!()
    };
    assert_eq!(j.error_code, 0);
    assert_eq!(&*j.member_id, "a2");
    assert!(h.c.group("g").is_none());
    let cg = h.classic();
    assert_eq!(cg.state, crate::coordinator::ClassicGroupState::Stable);
    assert_eq!(
        cg.members.keys().cloned().collect::<Vec<_>>(),
        vec!["a2".to_string(), "b".to_string()]
    );
    assert_eq!(cg.generation_id, epoch);
    assert_eq!(j.generation_id, cg.generation_id);
    assert_eq!(decoded(&cg.members["a2"].assignment), foo(&[0, 1, 2]));
    // a2 syncs with the classic group and gets a's old partitions.
    let s = h.sync("a2", j.generation_id);
    assert_eq!(s.error_code, 0);
    assert_eq!(decoded(&s.assignment), foo(&[0, 1, 2]));
}
