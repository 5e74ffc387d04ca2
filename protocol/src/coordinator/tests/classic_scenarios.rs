//! Classic-group scenarios (docs/coordinator.md §Classic groups), after Kafka's
//! `GroupMetadataManagerTest` classic cases. Every step checks that the coordinator's state
//! equals `replay` of every record emitted so far, and the [`Harness`] keeps the answers by
//! request id so each test can assert exactly which requests were answered.

use std::borrow::BorrowMut;

use bytes::Bytes;

use super::harness::groups::{classic_harness, sync_request};
use super::harness::Harness;
use crate::coordinator::{
    ClassicGroupConfig, ClassicGroupState, ConsumerGroupConfig, GroupCoordinator, GroupResponse,
    RequestContext, RequestId, SequentialMemberIds,
};
use crate::error::ErrorCode;
use crate::generated::delete_groups_request::DeleteGroupsRequest;
use crate::generated::describe_groups_request::DescribeGroupsRequest;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use crate::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use crate::generated::list_groups_request::ListGroupsRequest;
use crate::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};

fn proto(name: &str, meta: &'static [u8]) -> JoinGroupRequestProtocol {
    JoinGroupRequestProtocol {
        name: name.to_string().into(),
        metadata: Bytes::from_static(meta),
        ..Default::default()
    }
}

fn join_req(
    group: &str,
    member: &str,
    instance: Option<&str>,
    protocols: Vec<JoinGroupRequestProtocol>,
) -> JoinGroupRequest {
    JoinGroupRequest {
        group_id: group.to_string().into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 60_000,
        member_id: member.to_string().into(),
        group_instance_id: instance.map(|s| s.to_string().into()),
        protocol_type: "consumer".into(),
        protocols,
        ..Default::default()
    }
}

/// No initial delay (most scenarios), default bounds.
fn quick() -> Harness {
    classic_harness(
        ClassicGroupConfig {
            initial_rebalance_delay_ms: 0,
            ..Default::default()
        },
        7,
    )
}

/// The classic calls of these scenarios (JoinGroup v9 unless `join_v`, SyncGroup v5 with the
/// `range` protocol, Heartbeat v4, LeaveGroup v5), on the [`Harness`].
trait ClassicCalls: BorrowMut<Harness> {
    fn join_v(&mut self, v: i16, req: &JoinGroupRequest) -> RequestId {
        self.borrow_mut().send_join(v, req)
    }

    fn join(&mut self, req: &JoinGroupRequest) -> RequestId {
        self.join_v(9, req)
    }

    fn sync(
        &mut self,
        group: &str,
        member: &str,
        generation: i32,
        assignments: Vec<(&str, &'static [u8])>,
    ) -> RequestId {
        let assignments = assignments
            .into_iter()
            .map(|(m, a)| SyncGroupRequestAssignment {
                member_id: m.to_string().into(),
                assignment: Bytes::from_static(a),
                ..Default::default()
            })
            .collect();
        let req = sync_request(group, member, generation, assignments);
        self.borrow_mut().send_sync(5, &req)
    }

    fn heartbeat(&mut self, group: &str, member: &str, generation: i32) -> i16 {
        let req = HeartbeatRequest {
            group_id: group.to_string().into(),
            generation_id: generation,
            member_id: member.to_string().into(),
            ..Default::default()
        };
        let h = self.borrow_mut();
        let id = h.send_heartbeat(4, &req);
        h.take_heartbeat(id).expect("heartbeat answered")
    }

    fn leave(&mut self, group: &str, members: Vec<(&str, Option<&str>)>) -> Vec<(String, i16)> {
        let req = LeaveGroupRequest {
            group_id: group.to_string().into(),
            members: members
                .into_iter()
                .map(|(m, i)| MemberIdentity {
                    member_id: m.to_string().into(),
                    group_instance_id: i.map(|s| s.to_string().into()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let h = self.borrow_mut();
        let id = h.send_leave(5, &req);
        let l = h.take_leave(id).expect("leave answered");
        assert_eq!(l.error_code, 0);
        l.members
            .iter()
            .map(|m| (m.member_id.to_string(), m.error_code))
            .collect()
    }

    /// A KIP-394 join: the first JoinGroup gets MEMBER_ID_REQUIRED and the id, the second is
    /// sent with it. Returns (member id, the second request's id).
    fn join_new(
        &mut self,
        group: &str,
        protocols: Vec<JoinGroupRequestProtocol>,
    ) -> (String, RequestId) {
        let first = self.join(&join_req(group, "", None, protocols.clone()));
        let r = self
            .borrow_mut()
            .take_join(first)
            .expect("MEMBER_ID_REQUIRED comes at once");
        assert_eq!(r.error_code, ErrorCode::MemberIdRequired.code());
        let mid = r.member_id.to_string();
        assert!(mid.starts_with("client-"), "{mid}");
        let second = self.join(&join_req(group, &mid, None, protocols));
        (mid, second)
    }

    fn state(&self, group: &str) -> ClassicGroupState {
        self.borrow().c.classic_group(group).unwrap().state
    }
}

impl ClassicCalls for Harness {}

fn range() -> Vec<JoinGroupRequestProtocol> {
    vec![proto("range", b"r")]
}

#[test]
fn three_members_join_leader_gets_metadata_followers_wait_for_sync() {
    let mut h = quick();
    let (a, ja) = h.join_new("g", vec![proto("range", b"A"), proto("roundrobin", b"a")]);
    // The first member alone: the initial rebalance (delay 0) completes at the timer.
    assert!(h.take_join(ja).is_none());
    assert_eq!(h.state("g"), ClassicGroupState::PreparingRebalance);
    let (b, jb) = h.join_new("g", vec![proto("range", b"B")]);
    let (c, jc) = h.join_new("g", vec![proto("roundrobin", b"c"), proto("range", b"C")]);
    assert!(h.take_join(jb).is_none() && h.take_join(jc).is_none());
    h.advance(0);
    let ra = h.take_join(ja).unwrap();
    let rb = h.take_join(jb).unwrap();
    let rc = h.take_join(jc).unwrap();
    for r in [&ra, &rb, &rc] {
        assert_eq!(r.error_code, 0);
        assert_eq!(r.generation_id, 1);
        // range is the only protocol all support.
        assert_eq!(r.protocol_name.as_deref(), Some("range"));
        assert_eq!(r.protocol_type.as_deref(), Some("consumer"));
        assert_eq!(&*r.leader, a.as_str());
    }
    let metas: Vec<(String, Vec<u8>)> = ra
        .members
        .iter()
        .map(|m| (m.member_id.to_string(), m.metadata.to_vec()))
        .collect();
    let mut want = vec![
        (a.clone(), b"A".to_vec()),
        (b.clone(), b"B".to_vec()),
        (c.clone(), b"C".to_vec()),
    ];
    want.sort();
    assert_eq!(metas, want);
    assert!(rb.members.is_empty() && rc.members.is_empty());
    assert_eq!(h.state("g"), ClassicGroupState::CompletingRebalance);
    // Followers wait for the leader's sync.
    let sb = h.sync("g", &b, 1, vec![]);
    let sc = h.sync("g", &c, 1, vec![]);
    assert!(h.take_sync(sb).is_none() && h.take_sync(sc).is_none());
    let sa = h.sync("g", &a, 1, vec![(&a, b"x"), (&b, b"y")]);
    assert_eq!(&h.take_sync(sa).unwrap().assignment[..], b"x");
    assert_eq!(&h.take_sync(sb).unwrap().assignment[..], b"y");
    let rc_sync = h.take_sync(sc).unwrap();
    assert_eq!(rc_sync.error_code, 0);
    assert_eq!(&rc_sync.assignment[..], b"");
    assert_eq!(rc_sync.protocol_name.as_deref(), Some("range"));
    assert_eq!(h.state("g"), ClassicGroupState::Stable);
    assert_eq!(h.heartbeat("g", &b, 1), 0);
    assert_eq!(h.heartbeat("g", &b, 0), ErrorCode::IllegalGeneration.code());
    assert_eq!(
        h.heartbeat("g", "nobody", 1),
        ErrorCode::UnknownMemberId.code()
    );
    // The state survives a restart of the coordinator from its records.
    let loaded = GroupCoordinator::load(
        ConsumerGroupConfig::default(),
        Box::new(SequentialMemberIds::new(8)),
        vec![],
        &h.log,
        h.now,
    )
    .unwrap();
    assert_eq!(loaded.groups(), h.c.groups());
    assert_eq!(
        loaded.classic_group("g").unwrap().members[&b].assignment,
        Bytes::from_static(b"y")
    );
}

/// Two dynamic members through a full round to Stable at generation 1: (a, b) ids, a leader.
fn stable_pair(h: &mut Harness) -> (String, String) {
    let (a, ja) = h.join_new("g", range());
    let (b, jb) = h.join_new("g", range());
    h.advance(0);
    let ra = h.take_join(ja).unwrap();
    assert_eq!((ra.generation_id, &*ra.leader), (1, a.as_str()));
    assert_eq!(h.take_join(jb).unwrap().generation_id, 1);
    let sb = h.sync("g", &b, 1, vec![]);
    let sa = h.sync("g", &a, 1, vec![(&a, b"x"), (&b, b"y")]);
    assert_eq!(&h.take_sync(sa).unwrap().assignment[..], b"x");
    assert_eq!(&h.take_sync(sb).unwrap().assignment[..], b"y");
    assert_eq!(h.state("g"), ClassicGroupState::Stable);
    (a, b)
}

#[test]
fn kip394_member_id_required_from_v4_and_pending_ids_expire() {
    let mut h = quick();
    // v3: no second round trip; the member is added and waits.
    let j = h.join_v(3, &join_req("g", "", None, range()));
    assert!(h.take_join(j).is_none());
    let g = h.c.classic_group("g").unwrap();
    assert_eq!(g.members.len(), 1);
    // v4: MEMBER_ID_REQUIRED with an id, and the member is only pending.
    let j = h.join_v(4, &join_req("g", "", None, range()));
    let r = h.take_join(j).unwrap();
    assert_eq!(r.error_code, ErrorCode::MemberIdRequired.code());
    assert_eq!(r.generation_id, -1);
    assert_eq!(
        r.protocol_name.as_deref(),
        Some(""),
        "v4 sends a null name as \"\""
    );
    let pending = r.member_id.to_string();
    assert_eq!(h.c.classic_group("g").unwrap().members.len(), 1);
    // The initial delay (0) ends: the pending member does not hold up the first generation
    // (Kafka completes the initial rebalance at the delay's end).
    h.advance(0);
    let first = h.take_join(RequestId(1)).unwrap();
    assert_eq!((first.error_code, first.generation_id), (0, 1));
    // The pending id expires after its session timeout (10 s): joining with it later is an
    // unknown member.
    h.advance(10_000);
    let j = h.join_v(4, &join_req("g", &pending, None, range()));
    assert_eq!(
        h.take_join(j).unwrap().error_code,
        ErrorCode::UnknownMemberId.code()
    );
}

#[test]
fn static_member_replaced_without_rebalance_and_the_old_id_fenced() {
    let mut h = quick();
    let j = h.join(&join_req("g", "", Some("i1"), range()));
    h.advance(0);
    let r = h.take_join(j).unwrap();
    let old = r.member_id.to_string();
    assert!(old.starts_with("i1-"), "{old}");
    assert_eq!((r.generation_id, &*r.leader), (1, old.as_str()));
    let s = h.sync("g", &old, 1, vec![(&old, b"p0")]);
    assert_eq!(&h.take_sync(s).unwrap().assignment[..], b"p0");
    // The same instance comes back with no member id and the same protocols (v9): a new id,
    // same generation, no rebalance; as leader it gets the members and SkipAssignment.
    let j = h.join(&join_req("g", "", Some("i1"), range()));
    let r = h.take_join(j).expect("answered at once");
    let new = r.member_id.to_string();
    assert_ne!(new, old);
    assert_eq!((r.error_code, r.generation_id), (0, 1));
    assert_eq!(&*r.leader, new.as_str());
    assert!(r.skip_assignment);
    assert_eq!(r.members.len(), 1);
    assert_eq!(h.state("g"), ClassicGroupState::Stable);
    let g = h.c.classic_group("g").unwrap();
    assert_eq!(g.members[&new].assignment, Bytes::from_static(b"p0"));
    assert!(!g.members.contains_key(&old));
    // The old id is fenced.
    let id = h.id();
    let rc = RequestContext::new("client", "/127.0.0.1", 4);
    let hb = HeartbeatRequest {
        group_id: "g".into(),
        generation_id: 1,
        member_id: old.clone().into(),
        group_instance_id: Some("i1".into()),
        ..Default::default()
    };
    let recs = h.c.heartbeat(&rc, &hb, id, h.now);
    h.absorb(&recs);
    match h.take(id) {
        Some(GroupResponse::Heartbeat(r)) => {
            assert_eq!(r.error_code, ErrorCode::FencedInstanceId.code())
        }
        other => panic!("{other:?}"),
    }
    // Below v9 Kafka names the leader as it was before the replacement.
    let j = h.join_v(5, &join_req("g", "", Some("i1"), range()));
    let r = h.take_join(j).unwrap();
    assert_eq!(&*r.leader, new.as_str());
    assert_ne!(&*r.member_id, new.as_str());
    assert!(r.members.is_empty() && !r.skip_assignment);
}

#[test]
fn static_member_with_new_protocols_rebalances() {
    let mut h = quick();
    let j = h.join(&join_req("g", "", Some("i1"), vec![proto("range", b"")]));
    h.advance(0);
    let old = h.take_join(j).unwrap().member_id.to_string();
    let s = h.sync("g", &old, 1, vec![]);
    assert!(h.take_sync(s).is_some());
    // A protocol the group does not support is refused.
    let j = h.join(&join_req(
        "g",
        "",
        Some("i1"),
        vec![proto("roundrobin", b"")],
    ));
    assert_eq!(
        h.take_join(j).unwrap().error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    // roundrobin first: the selected protocol would change, so the group rebalances.
    let j = h.join(&join_req(
        "g",
        "",
        Some("i1"),
        vec![proto("roundrobin", b""), proto("range", b"")],
    ));
    let r = h
        .take_join(j)
        .expect("the only member rejoined: the join phase ends at once");
    assert_eq!(r.generation_id, 2);
    assert_eq!(r.protocol_name.as_deref(), Some("roundrobin"));
    assert_eq!(h.state("g"), ClassicGroupState::CompletingRebalance);
}

#[test]
fn session_timeout_removes_a_silent_member_and_the_rest_rebalance() {
    let mut h = quick();
    let (a, b) = stable_pair(&mut h);
    assert_eq!(h.c.session_deadline("g", &b), Some(h.now + 10_000));
    h.advance(6_000);
    assert_eq!(h.heartbeat("g", &a, 1), 0);
    h.advance(4_000);
    // b expired (its last heartbeat was at its sync, 10 s ago); a did not.
    let g = h.c.classic_group("g").unwrap();
    assert_eq!(
        g.members.keys().cloned().collect::<Vec<_>>(),
        vec![a.clone()]
    );
    assert_eq!(h.state("g"), ClassicGroupState::PreparingRebalance);
    assert_eq!(
        h.heartbeat("g", &a, 1),
        ErrorCode::RebalanceInProgress.code()
    );
    let j = h.join(&join_req("g", &a, None, range()));
    let r = h.take_join(j).expect("every member rejoined");
    assert_eq!((r.generation_id, r.members.len()), (2, 1));
}

#[test]
fn rebalance_timeout_drops_members_that_did_not_rejoin() {
    let mut h = quick();
    let (a, b) = stable_pair(&mut h);
    // The leader rejoins: a rebalance; b keeps heartbeating but never rejoins.
    let j = h.join(&join_req("g", &a, None, range()));
    assert!(h.take_join(j).is_none());
    for _ in 0..6 {
        h.advance(9_000);
        assert_eq!(
            h.heartbeat("g", &b, 1),
            ErrorCode::RebalanceInProgress.code()
        );
    }
    assert!(h.take_join(j).is_none());
    h.advance(6_000); // 60 s after the rebalance began
    let r = h
        .take_join(j)
        .expect("the rebalance timeout ends the join phase");
    assert_eq!((r.error_code, r.generation_id), (0, 2));
    assert_eq!(r.members.len(), 1);
    assert_eq!(h.heartbeat("g", &b, 1), ErrorCode::UnknownMemberId.code());
}

#[test]
fn sync_timeout_removes_members_that_never_synced() {
    let mut h = quick();
    let (a, ja) = h.join_new("g", range());
    let (b, jb) = h.join_new("g", range());
    h.advance(0);
    assert!(h.take_join(ja).is_some() && h.take_join(jb).is_some());
    let sa = h.sync("g", &a, 1, vec![(&a, b"x")]);
    assert!(h.take_sync(sa).is_some());
    // b heartbeats but never syncs: after the rebalance timeout (60 s) it is removed.
    for _ in 0..6 {
        h.advance(9_000);
        assert_eq!(h.heartbeat("g", &a, 1), 0);
        assert_eq!(h.heartbeat("g", &b, 1), 0);
    }
    h.advance(6_000);
    let g = h.c.classic_group("g").unwrap();
    assert!(!g.members.contains_key(&b));
    assert_eq!(h.state("g"), ClassicGroupState::PreparingRebalance);
}

#[test]
fn initial_delay_is_extended_while_members_arrive() {
    let mut h = classic_harness(
        ClassicGroupConfig {
            initial_rebalance_delay_ms: 3_000,
            ..Default::default()
        },
        7,
    );
    let (_, ja) = h.join_new("g", range());
    h.advance(2_000);
    let (_, jb) = h.join_new("g", range());
    h.advance(1_000); // 3 s: b arrived during the delay, so it is extended by 3 s
    assert!(h.take_join(ja).is_none() && h.take_join(jb).is_none());
    h.advance(2_999);
    assert!(h.take_join(ja).is_none());
    h.advance(1);
    assert_eq!(h.take_join(ja).unwrap().generation_id, 1);
    assert_eq!(h.take_join(jb).unwrap().generation_id, 1);
}

#[test]
fn protocol_selection_is_a_vote_among_common_protocols() {
    let mut h = quick();
    let both =
        |first: &'static str, second: &'static str| vec![proto(first, b""), proto(second, b"")];
    let (_, j1) = h.join_new("g", both("roundrobin", "range"));
    let (_, j2) = h.join_new("g", both("range", "roundrobin"));
    let (_, j3) = h.join_new(
        "g",
        vec![
            proto("sticky", b""),
            proto("range", b""),
            proto("roundrobin", b""),
        ],
    );
    h.advance(0);
    // Votes: roundrobin 1, range 2 (sticky is not common).
    for j in [j1, j2, j3] {
        assert_eq!(
            h.take_join(j).unwrap().protocol_name.as_deref(),
            Some("range")
        );
    }
    // A member supporting none of the group's protocols, or another type, is refused.
    let r = h.join(&join_req("g", "", None, vec![proto("sticky", b"")]));
    assert_eq!(
        h.take_join(r).unwrap().error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    let mut other = join_req("g", "", None, range());
    other.protocol_type = "connect".into();
    let r = h.join(&other);
    assert_eq!(
        h.take_join(r).unwrap().error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    // An empty group refuses an empty protocol type or list.
    let mut empty = join_req("g2", "", None, vec![]);
    let r = h.join(&empty);
    assert_eq!(
        h.take_join(r).unwrap().error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    empty.protocols = range();
    empty.protocol_type = "".into();
    let r = h.join(&empty);
    assert_eq!(
        h.take_join(r).unwrap().error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
}

#[test]
fn join_sync_and_heartbeat_errors() {
    let mut h = classic_harness(
        ClassicGroupConfig {
            initial_rebalance_delay_ms: 0,
            max_size: 2,
            ..Default::default()
        },
        7,
    );
    // Session timeout bounds (6000..=1800000 by default).
    let mut short = join_req("g", "", None, range());
    short.session_timeout_ms = 5_999;
    let r = h.join(&short);
    assert_eq!(
        h.take_join(r).unwrap().error_code,
        ErrorCode::InvalidSessionTimeout.code()
    );
    let r = h.join(&join_req("", "", None, range()));
    assert_eq!(
        h.take_join(r).unwrap().error_code,
        ErrorCode::InvalidGroupId.code()
    );
    // A member id for a group that does not exist.
    let r = h.join(&join_req("nope", "m-1", None, range()));
    let r = h.take_join(r).unwrap();
    assert_eq!(
        (r.error_code, &*r.member_id),
        (ErrorCode::UnknownMemberId.code(), "m-1")
    );
    let (a, b) = stable_pair(&mut h);
    // Max size 2: a third member is refused before it gets an id (Kafka checks the size
    // first).
    let r = h.join(&join_req("g", "", None, range()));
    let r = h.take_join(r).unwrap();
    assert_eq!(
        (r.error_code, &*r.member_id),
        (ErrorCode::GroupMaxSizeReached.code(), "")
    );
    // SyncGroup checks.
    let s = h.sync("g", &a, 7, vec![]);
    assert_eq!(
        h.take_sync(s).unwrap().error_code,
        ErrorCode::IllegalGeneration.code()
    );
    let s = h.sync("g", "ghost", 1, vec![]);
    assert_eq!(
        h.take_sync(s).unwrap().error_code,
        ErrorCode::UnknownMemberId.code()
    );
    let id = h.id();
    let rc = RequestContext::new("client", "/127.0.0.1", 5);
    let mut req = SyncGroupRequest {
        group_id: "g".into(),
        generation_id: 1,
        member_id: b.clone().into(),
        protocol_type: Some("consumer".into()),
        protocol_name: Some("roundrobin".into()),
        ..Default::default()
    };
    let recs = h.c.sync_group(&rc, &req, id, h.now);
    h.absorb(&recs);
    assert_eq!(
        h.take_sync(id).unwrap().error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    req.protocol_name = None; // v5 needs both
    let id = h.id();
    let recs = h.c.sync_group(&rc, &req, id, h.now);
    h.absorb(&recs);
    assert_eq!(
        h.take_sync(id).unwrap().error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    // A follower rejoining with the same metadata in Stable gets the current generation.
    let j = h.join(&join_req("g", &b, None, range()));
    let r = h.take_join(j).unwrap();
    assert_eq!((r.generation_id, r.members.len()), (1, 0));
    // During a rebalance SyncGroup is REBALANCE_IN_PROGRESS.
    let j = h.join(&join_req("g", &a, None, vec![proto("range", b"new")]));
    assert!(h.take_join(j).is_none());
    let s = h.sync("g", &b, 1, vec![]);
    assert_eq!(
        h.take_sync(s).unwrap().error_code,
        ErrorCode::RebalanceInProgress.code()
    );
    assert_eq!(
        h.heartbeat("g", &b, 1),
        ErrorCode::RebalanceInProgress.code()
    );
    assert_eq!(
        h.heartbeat("nope", &b, 1),
        ErrorCode::UnknownMemberId.code()
    );
}

#[test]
fn batch_leave_by_member_and_instance_id() {
    let mut h = quick();
    let j = h.join(&join_req("g", "", Some("s1"), range()));
    let (d, jd) = h.join_new("g", range());
    let (e, je) = h.join_new("g", range());
    h.advance(0);
    let s1 = h.take_join(j).unwrap().member_id.to_string();
    assert!(h.take_join(jd).is_some() && h.take_join(je).is_some());
    let out = h.leave(
        "g",
        vec![
            (&d, None),
            ("", Some("s1")),
            ("ghost", None),
            ("", Some("s9")),
        ],
    );
    let unknown = ErrorCode::UnknownMemberId.code();
    assert_eq!(
        out,
        vec![
            (d.clone(), 0),
            (String::new(), 0),
            ("ghost".to_string(), unknown),
            (String::new(), unknown),
        ]
    );
    let g = h.c.classic_group("g").unwrap();
    assert_eq!(
        g.members.keys().cloned().collect::<Vec<_>>(),
        vec![e.clone()]
    );
    assert!(!g.members.contains_key(&s1));
    // The rest must rejoin; e alone, so its join ends the phase at once.
    assert_eq!(h.state("g"), ClassicGroupState::PreparingRebalance);
    let j = h.join(&join_req("g", &e, None, range()));
    let r = h.take_join(j).unwrap();
    assert_eq!((r.generation_id, &*r.leader), (2, e.as_str()));
    // The last member leaves: the group is Empty at the next generation.
    assert_eq!(h.leave("g", vec![(&e, None)]), vec![(e.clone(), 0)]);
    let g = h.c.classic_group("g").unwrap();
    assert_eq!(
        (g.state, g.generation_id, g.members.len()),
        (ClassicGroupState::Empty, 3, 0)
    );
    assert_eq!(g.protocol_name, None);
}

#[test]
fn describe_list_and_delete_over_every_group_type() {
    let mut h = quick();
    let (a, _b) = stable_pair(&mut h);
    let rc = |v| RequestContext::new("admin", "/127.0.0.1", v);
    let req = DescribeGroupsRequest {
        groups: vec!["g".into(), "missing".into(), "".into()],
        ..Default::default()
    };
    let d = h.c.describe_groups(&rc(5), &req);
    let g = &d.groups[0];
    assert_eq!(
        (&*g.group_state, &*g.protocol_type, &*g.protocol_data),
        ("Stable", "consumer", "range")
    );
    let m = g.members.iter().find(|m| *m.member_id == *a).unwrap();
    assert_eq!(
        (&m.member_metadata[..], &m.member_assignment[..]),
        (&b"r"[..], &b"x"[..])
    );
    assert_eq!((&*m.client_id, &*m.client_host), ("client", "/127.0.0.1"));
    assert_eq!(
        (d.groups[1].error_code, &*d.groups[1].group_state),
        (0, "Dead")
    );
    assert_eq!(d.groups[2].error_code, ErrorCode::InvalidGroupId.code());
    let d6 = h.c.describe_groups(&rc(6), &req);
    assert_eq!(d6.groups[1].error_code, ErrorCode::GroupIdNotFound.code());
    assert_eq!(
        d6.groups[1].error_message.as_deref(),
        Some("Group missing not found.")
    );
    // During a rebalance: no protocol data or member metadata; each member's assignment of
    // the last generation is kept (Kafka's `describeNoMetadata`, seen on Kafka 4.4.0 by
    // tests/tests/it/kafka_oracle).
    let j = h.join(&join_req("g", &a, None, range()));
    assert!(h.take_join(j).is_none());
    let d = h.c.describe_groups(&rc(5), &req);
    assert_eq!(
        (&*d.groups[0].group_state, &*d.groups[0].protocol_data),
        ("PreparingRebalance", "")
    );
    let g = h.c.classic_group("g").unwrap();
    assert!(!d.groups[0].members.is_empty());
    for m in &d.groups[0].members {
        assert!(m.member_metadata.is_empty());
        assert_eq!(m.member_assignment, g.members[&*m.member_id].assignment);
    }
    // A second, empty classic group (offsets only).
    let recs = h.c.ensure_simple_group("simple", h.now);
    h.absorb(&recs);
    let list = |h: &Harness,
                v: i16,
                states: &[&str],
                types: &[&str]|
     -> Vec<(String, String, String, String)> {
        let req = ListGroupsRequest {
            states_filter: states.iter().map(|s| s.to_string().into()).collect(),
            types_filter: types.iter().map(|s| s.to_string().into()).collect(),
            ..Default::default()
        };
        h.c.list_groups(&rc(v), &req)
            .groups
            .iter()
            .map(|g| {
                (
                    g.group_id.to_string(),
                    g.protocol_type.to_string(),
                    g.group_state.to_string(),
                    g.group_type.to_string(),
                )
            })
            .collect()
    };
    let s = |a: &str, b: &str, c: &str, d: &str| {
        (a.to_string(), b.to_string(), c.to_string(), d.to_string())
    };
    assert_eq!(
        list(&h, 5, &[], &[]),
        vec![
            s("g", "consumer", "PreparingRebalance", "classic"),
            s("simple", "", "Empty", "classic")
        ]
    );
    assert_eq!(
        list(&h, 5, &[" EMPTY "], &[]),
        vec![s("simple", "", "Empty", "classic")]
    );
    assert_eq!(list(&h, 5, &[], &["consumer"]), vec![]);
    assert_eq!(
        list(&h, 3, &["Empty"], &[]).len(),
        2,
        "no state filter below v4"
    );
    assert_eq!(list(&h, 3, &[], &[])[0].2, "", "no state below v4");
    // DeleteGroups: non-empty, missing, empty, blank.
    let del = DeleteGroupsRequest {
        groups_names: vec!["g".into(), "missing".into(), "simple".into(), "".into()],
        ..Default::default()
    };
    let out = h.c.delete_groups(&rc(2), &del, h.now);
    h.absorb(&out.records);
    let codes: Vec<i16> = out.response.results.iter().map(|r| r.error_code).collect();
    assert_eq!(
        codes,
        vec![
            ErrorCode::NonEmptyGroup.code(),
            ErrorCode::GroupIdNotFound.code(),
            0,
            ErrorCode::InvalidGroupId.code()
        ]
    );
    assert!(h.c.classic_group("simple").is_none());
    assert_eq!(out.records.len(), 1);
    assert!(out.records[0].is_tombstone());
}

#[test]
fn offset_commit_checks_the_generation_of_classic_members() {
    let mut h = quick();
    let (a, b) = stable_pair(&mut h);
    let c = &h.c;
    assert_eq!(
        c.validate_classic_offset_commit("g", &a, None, 1, false),
        Some(0)
    );
    assert_eq!(c.validate_offset_commit("g", &a, 1, 9), 0);
    assert_eq!(
        c.validate_classic_offset_commit("g", &a, None, 2, false),
        Some(ErrorCode::IllegalGeneration.code())
    );
    assert_eq!(
        c.validate_classic_offset_commit("g", "ghost", None, 1, false),
        Some(ErrorCode::UnknownMemberId.code())
    );
    assert_eq!(
        c.validate_classic_offset_commit("g", &a, Some("i9"), 1, false),
        Some(ErrorCode::UnknownMemberId.code())
    );
    // From outside the group (no member, generation -1): only into an Empty group.
    assert_eq!(
        c.validate_classic_offset_commit("g", "", None, -1, false),
        Some(ErrorCode::UnknownMemberId.code())
    );
    assert_eq!(
        c.validate_classic_offset_commit("other", "", None, -1, false),
        None
    );
    assert_eq!(c.validate_offset_fetch("g", "ghost", 5), 0);
    // PreparingRebalance: generation 1 is still the group's.
    let j = h.join(&join_req("g", &a, None, range()));
    assert!(h.take_join(j).is_none());
    assert_eq!(
        h.c.validate_classic_offset_commit("g", &a, None, 1, false),
        Some(0)
    );
    // CompletingRebalance: REBALANCE_IN_PROGRESS for the new generation (not transactional).
    let jb = h.join(&join_req("g", &b, None, range()));
    assert_eq!(h.take_join(jb).unwrap().generation_id, 2);
    assert_eq!(
        h.c.validate_classic_offset_commit("g", &a, None, 2, false),
        Some(ErrorCode::RebalanceInProgress.code())
    );
    assert_eq!(
        h.c.validate_classic_offset_commit("g", &a, None, 2, true),
        Some(0)
    );
}

#[test]
fn one_namespace_with_consumer_groups() {
    use super::consumer_scenarios::join as cg_join;
    let mut h = quick();
    // A non-empty classic group: a consumer heartbeat is refused and changes nothing.
    let (a, ja) = h.join_new("g", range());
    h.advance(0);
    assert!(h.take_join(ja).is_some());
    let rc = RequestContext::new("client", "/127.0.0.1", 1);
    let out = h.c.consumer_group_heartbeat(
        &rc,
        &cg_join("g", "member-aaaaaaaaaaaaaaaaaaaa", &["t"]),
        h.now,
    );
    assert_eq!(out.response.error_code, ErrorCode::GroupIdNotFound.code());
    h.absorb(&out.records);
    assert!(h.c.classic_group("g").is_some());
    // Once Empty, the joining consumer heartbeat replaces it.
    assert_eq!(h.leave("g", vec![(&a, None)]), vec![(a.clone(), 0)]);
    let out = h.c.consumer_group_heartbeat(
        &rc,
        &cg_join("g", "member-aaaaaaaaaaaaaaaaaaaa", &["t"]),
        h.now,
    );
    assert_eq!(out.response.error_code, 0);
    assert!(out.records[0].is_tombstone());
    h.absorb(&out.records);
    assert!(h.c.classic_group("g").is_none() && h.c.group("g").is_some());
    // A classic join to the non-empty consumer group joins it (KIP-848 online migration,
    // docs §Online migration): first MEMBER_ID_REQUIRED; describe says it is not a classic
    // group; ListGroups shows its type.
    let r = h.join(&join_req("g", "", None, range()));
    assert_eq!(
        h.take_join(r).unwrap().error_code,
        ErrorCode::MemberIdRequired.code()
    );
    let d = h.c.describe_groups(
        &RequestContext::new("a", "/h", 6),
        &DescribeGroupsRequest {
            groups: vec!["g".into()],
            ..Default::default()
        },
    );
    assert_eq!(
        d.groups[0].error_message.as_deref(),
        Some("Group g is not a classic group.")
    );
    let l = h.c.list_groups(
        &RequestContext::new("a", "/h", 5),
        &ListGroupsRequest::default(),
    );
    assert_eq!(&*l.groups[0].group_type, "consumer");
    assert_eq!(&*l.groups[0].protocol_type, "consumer");
}
