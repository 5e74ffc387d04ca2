//! KIP-848 online migration scenarios (Kafka 4.4's `GroupMetadataManager`: classic members
//! inside consumer groups, upgrade, downgrade, `group.consumer.migration.policy`), run against
//! [`GroupCoordinator`]. After every step the state is compared with `replay` of every record
//! emitted so far.

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;

use super::consumer_scenarios::{BAR, FOO};
use crate::coordinator::consumer::assignor::{Assignment, RangeAssignor};
use crate::coordinator::consumer::migration::{decode_assignment, encode_assignment};
use crate::coordinator::consumer::*;
use crate::coordinator::{
    replay, GroupCoordinator, GroupResponse, Record, RequestContext, RequestId,
    SequentialMemberIds, TopicMetadata,
};
use crate::error::ErrorCode;
use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_request::TopicPartitions as ReqTp;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use crate::generated::consumer_protocol_subscription::{
    ConsumerProtocolSubscription, TopicPartition as SubTp,
};
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use crate::generated::leave_group_response::LeaveGroupResponse;
use crate::generated::sync_group_request::SyncGroupRequest;
use crate::generated::sync_group_response::SyncGroupResponse;
use crate::wire::{Encode, Uuid};

/// `(topic, partitions)` as an assignment.
pub(crate) fn asg(parts: &[(Uuid, &[i32])]) -> Assignment {
    let mut a = Assignment::new();
    for (t, ps) in parts {
        if !ps.is_empty() {
            a.entry(*t).or_default().extend(ps.iter().copied());
        }
    }
    a
}

/// A version-prefixed ConsumerProtocolSubscription (what a classic consumer puts in its
/// JoinGroup protocol metadata).
pub(crate) fn subscription(
    topics: &[&str],
    owned: &[(&str, &[i32])],
    user_data: Option<&[u8]>,
    version: i16,
) -> Bytes {
    let s = ConsumerProtocolSubscription {
        topics: topics.iter().map(|t| t.to_string().into()).collect(),
        user_data: user_data.map(|u| Bytes::copy_from_slice(u)),
        owned_partitions: owned
            .iter()
            .map(|(t, ps)| SubTp {
                topic: t.to_string().into(),
                partitions: ps.iter().copied().collect(),
            })
            .collect(),
        generation_id: -1,
        rack_id: None,
    };
    let mut out = version.to_be_bytes().to_vec();
    s.encode(&mut out, version).unwrap();
    Bytes::from(out)
}

/// The topics of an assignment in SyncGroup bytes, by name, partitions ascending.
pub(crate) fn decoded(bytes: &Bytes) -> Vec<(String, Vec<i32>)> {
    if bytes.is_empty() {
        return vec![];
    }
    decode_assignment(bytes)
        .unwrap()
        .assigned_partitions
        .iter()
        .map(|tp| (tp.topic.to_string(), tp.partitions.iter().collect()))
        .collect()
}

/// A coordinator with foo (6 partitions) and bar (3), a log of every record and a clock.
pub(crate) struct H {
    pub c: GroupCoordinator,
    pub log: Vec<Record>,
    pub now: i64,
    next_id: u64,
}

impl H {
    pub fn new(policy: MigrationPolicy) -> H {
        let mut config = ConsumerGroupConfig::with_assignors(vec![Arc::new(RangeAssignor)]);
        config.migration_policy = policy;
        Self::with_config(config)
    }

    pub fn with_config(config: ConsumerGroupConfig) -> H {
        let mut c = GroupCoordinator::new(config, Box::new(SequentialMemberIds::new(7))).unwrap();
        let r = c.set_topics(
            vec![
                TopicMetadata::new(FOO, "foo", 6),
                TopicMetadata::new(BAR, "bar", 3),
            ],
            0,
        );
        let mut h = H {
            c,
            log: vec![],
            now: 0,
            next_id: 0,
        };
        h.absorb(r);
        h
    }

    pub fn absorb(&mut self, records: Vec<Record>) {
        self.log.extend(records);
        assert_eq!(
            &replay(&self.log),
            self.c.groups(),
            "state != replay(records)"
        );
    }

    fn id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId(self.next_id)
    }

    /// Every answer in the outbox.
    pub fn drain(&mut self) -> Vec<(RequestId, GroupResponse)> {
        std::iter::from_fn(|| self.c.poll_response()).collect()
    }

    pub fn cghb(&mut self, req: ConsumerGroupHeartbeatRequest) -> ConsumerGroupHeartbeatResponse {
        let out =
            self.c
                .consumer_group_heartbeat(&RequestContext::new("c", "h", 1), &req, self.now);
        self.absorb(out.records);
        out.response
    }

    /// A ConsumerGroupHeartbeat join (epoch 0) of `member` subscribed to `topics`.
    pub fn cghb_join(&mut self, member: &str, topics: &[&str]) -> ConsumerGroupHeartbeatResponse {
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
    pub fn cghb_at(
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

    pub fn join_req(
        &mut self,
        version: i16,
        req: &JoinGroupRequest,
    ) -> Vec<(RequestId, GroupResponse)> {
        let id = self.id();
        let ctx = RequestContext::new("c", "h", version);
        let r = self.c.join_group(&ctx, req, id, self.now);
        self.absorb(r);
        self.drain()
    }

    /// A classic JoinGroup (v9) of `member` with one `range` protocol subscribing to `topics`
    /// and reporting `owned`; the answer (immediate in a consumer group).
    pub fn join(
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

    pub fn sync(&mut self, member: &str, generation: i32) -> SyncGroupResponse {
        let id = self.id();
        let req = SyncGroupRequest {
            group_id: "g".into(),
            generation_id: generation,
            member_id: member.to_string().into(),
            protocol_type: Some("consumer".into()),
            protocol_name: Some("range".into()),
            ..Default::default()
        };
        let r = self
            .c
            .sync_group(&RequestContext::new("c", "h", 5), &req, id, self.now);
        self.absorb(r);
        let out = self.drain();
        match out.as_slice() {
            [(i, GroupResponse::SyncGroup(r))] if *i == id => r.clone(),
            other => panic!("{other:?}"),
        }
    }

    pub fn hb(&mut self, member: &str, generation: i32) -> i16 {
        let id = self.id();
        let req = HeartbeatRequest {
            group_id: "g".into(),
            generation_id: generation,
            member_id: member.to_string().into(),
            ..Default::default()
        };
        let r = self
            .c
            .heartbeat(&RequestContext::new("c", "h", 4), &req, id, self.now);
        self.absorb(r);
        let out = self.drain();
        match out.as_slice() {
            [(i, GroupResponse::Heartbeat(r))] if *i == id => r.error_code,
            other => panic!("{other:?}"),
        }
    }

    pub fn leave(&mut self, members: &[&str]) -> LeaveGroupResponse {
        let id = self.id();
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
        let r = self
            .c
            .leave_group(&RequestContext::new("c", "h", 5), &req, id, self.now);
        self.absorb(r);
        let out = self.drain();
        match out.as_slice() {
            [(i, GroupResponse::LeaveGroup(r))] if *i == id => r.clone(),
            other => panic!("{other:?}"),
        }
    }

    pub fn advance(&mut self, ms: i64) {
        self.now += ms;
        let r = self.c.fire_timers(self.now);
        self.absorb(r);
    }

    pub fn member(&self, id: &str) -> ConsumerGroupMember {
        self.c.group("g").unwrap().members[id].clone()
    }
}

/// A JoinGroup request with one `range` protocol (session 10 s, rebalance 20 s).
pub(crate) fn join_request(
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
    let mut h = H::new(MigrationPolicy::Bidirectional);
    let r = h.cghb_join("a", &["foo"]);
    assert_eq!((r.error_code, r.member_epoch), (0, 1));
    let all = asg(&[(FOO, &[0, 1, 2, 3, 4, 5])]);
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
        asg(&[(FOO, &[3, 4, 5])])
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
    let r = h.cghb_at("a", 1, &asg(&[(FOO, &[0, 1, 2])]));
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
    let mut h = H::new(MigrationPolicy::Bidirectional);
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
    h.cghb_at("a", 1, &asg(&[(FOO, &[0, 1, 2, 3, 4, 5])]));
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
    let mut h = H::new(MigrationPolicy::Disabled);
    h.cghb_join("a", &["foo"]);
    let j = h.join("b", &["foo"], &[]);
    assert_eq!(j.error_code, ErrorCode::InconsistentGroupProtocol.code());
    assert!(!h.c.group("g").unwrap().members.contains_key("b"));

    let mut h = H::new(MigrationPolicy::Upgrade);
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
    let mut h = H::with_config(config);
    h.cghb_join("a", &["foo"]);
    let j = h.join("b", &["foo"], &[]);
    assert_eq!(j.error_code, ErrorCode::GroupMaxSizeReached.code());
}

/// SyncGroup answers the member's current assignment; owned partitions reported in the
/// subscription count as owned; the protocol checks.
#[test]
fn classic_sync_checks_and_owned_partitions() {
    let mut h = H::new(MigrationPolicy::Bidirectional);
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
    h.absorb(r);
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
        &asg(&[(BAR, &[2]), (FOO, &[1, 0])]),
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
