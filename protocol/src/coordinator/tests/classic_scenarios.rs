//! Classic-group scenarios (docs/coordinator.md §Classic groups), after Kafka's
//! `GroupMetadataManagerTest` classic cases. Every step checks that the coordinator's state
//! equals `replay` of every record emitted so far, and drains the outbox into a map by request
//! id so each test can assert exactly which requests were answered.

use std::collections::BTreeMap;

use bytes::Bytes;

use crate::coordinator::{
    replay, ClassicGroupConfig, ClassicGroupState, ConsumerGroupConfig, GroupCoordinator,
    GroupResponse, Record, RequestContext, RequestId, SequentialMemberIds,
};
use crate::error::ErrorCode;
use crate::generated::delete_groups_request::DeleteGroupsRequest;
use crate::generated::describe_groups_request::DescribeGroupsRequest;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use crate::generated::list_groups_request::ListGroupsRequest;
use crate::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use crate::generated::sync_group_response::SyncGroupResponse;

/// A coordinator driven by a test: its records so far, the answers not yet looked at, a clock
/// and a request counter.
struct H {
    c: GroupCoordinator,
    records: Vec<Record>,
    answers: BTreeMap<u64, GroupResponse>,
    now: i64,
    next: u64,
}

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

impl H {
    fn new(config: ClassicGroupConfig) -> H {
        let mut c = GroupCoordinator::new(
            ConsumerGroupConfig::default(),
            Box::new(SequentialMemberIds::new(7)),
        )
        .unwrap();
        c.set_classic_config(config).unwrap();
        H {
            c,
            records: Vec::new(),
            answers: BTreeMap::new(),
            now: 1_000,
            next: 0,
        }
    }

    /// No initial delay (most scenarios), default bounds.
    fn quick() -> H {
        H::new(ClassicGroupConfig {
            initial_rebalance_delay_ms: 0,
            ..Default::default()
        })
    }

    fn step(&mut self, records: Vec<Record>) {
        self.records.extend(records);
        while let Some((RequestId(id), r)) = self.c.poll_response() {
            assert!(
                self.answers.insert(id, r).is_none(),
                "request {id} answered twice"
            );
        }
        assert_eq!(
            &replay(&self.records),
            self.c.groups(),
            "state != replay(records)"
        );
    }

    fn id(&mut self) -> RequestId {
        self.next += 1;
        RequestId(self.next)
    }

    fn join_v(&mut self, v: i16, req: &JoinGroupRequest) -> u64 {
        let id = self.id();
        let rc = RequestContext::new("client", "/127.0.0.1", v);
        let r = self.c.join_group(&rc, req, id, self.now);
        self.step(r);
        id.0
    }

    fn join(&mut self, req: &JoinGroupRequest) -> u64 {
        self.join_v(9, req)
    }

    fn sync(
        &mut self,
        group: &str,
        member: &str,
        generation: i32,
        assignments: Vec<(&str, &'static [u8])>,
    ) -> u64 {
        let id = self.id();
        let rc = RequestContext::new("client", "/127.0.0.1", 5);
        let req = SyncGroupRequest {
            group_id: group.to_string().into(),
            generation_id: generation,
            member_id: member.to_string().into(),
            protocol_type: Some("consumer".into()),
            protocol_name: Some("range".into()),
            assignments: assignments
                .into_iter()
                .map(|(m, a)| SyncGroupRequestAssignment {
                    member_id: m.to_string().into(),
                    assignment: Bytes::from_static(a),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let r = self.c.sync_group(&rc, &req, id, self.now);
        self.step(r);
        id.0
    }

    fn heartbeat(&mut self, group: &str, member: &str, generation: i32) -> i16 {
        let id = self.id();
        let rc = RequestContext::new("client", "/127.0.0.1", 4);
        let req = HeartbeatRequest {
            group_id: group.to_string().into(),
            generation_id: generation,
            member_id: member.to_string().into(),
            ..Default::default()
        };
        let r = self.c.heartbeat(&rc, &req, id, self.now);
        self.step(r);
        match self.answers.remove(&id.0) {
            Some(GroupResponse::Heartbeat(h)) => h.error_code,
            other => panic!("heartbeat not answered: {other:?}"),
        }
    }

    fn leave(&mut self, group: &str, members: Vec<(&str, Option<&str>)>) -> Vec<(String, i16)> {
        let id = self.id();
        let rc = RequestContext::new("client", "/127.0.0.1", 5);
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
        let r = self.c.leave_group(&rc, &req, id, self.now);
        self.step(r);
        match self.answers.remove(&id.0) {
            Some(GroupResponse::LeaveGroup(l)) => {
                assert_eq!(l.error_code, 0);
                l.members
                    .iter()
                    .map(|m| (m.member_id.to_string(), m.error_code))
                    .collect()
            }
            other => panic!("leave not answered: {other:?}"),
        }
    }

    fn advance(&mut self, ms: i64) {
        self.now += ms;
        let r = self.c.fire_timers(self.now);
        self.step(r);
    }

    fn joined(&mut self, id: u64) -> Option<JoinGroupResponse> {
        match self.answers.remove(&id) {
            Some(GroupResponse::JoinGroup(j)) => Some(j),
            None => None,
            other => panic!("not a join answer: {other:?}"),
        }
    }

    fn synced(&mut self, id: u64) -> Option<SyncGroupResponse> {
        match self.answers.remove(&id) {
            Some(GroupResponse::SyncGroup(s)) => Some(s),
            None => None,
            other => panic!("not a sync answer: {other:?}"),
        }
    }

    /// A KIP-394 join: the first JoinGroup gets MEMBER_ID_REQUIRED and the id, the second is
    /// sent with it. Returns (member id, the second request's id).
    fn join_new(&mut self, group: &str, protocols: Vec<JoinGroupRequestProtocol>) -> (String, u64) {
        let first = self.join(&join_req(group, "", None, protocols.clone()));
        let r = self
            .joined(first)
            .expect("MEMBER_ID_REQUIRED comes at once");
        assert_eq!(r.error_code, ErrorCode::MemberIdRequired.code());
        let mid = r.member_id.to_string();
        assert!(mid.starts_with("client-"), "{mid}");
        let second = self.join(&join_req(group, &mid, None, protocols));
        (mid, second)
    }

    fn state(&self, group: &str) -> ClassicGroupState {
        self.c.classic_group(group).unwrap().state
    }
}

fn range() -> Vec<JoinGroupRequestProtocol> {
    vec![proto("range", b"r")]
}

#[test]
fn three_members_join_leader_gets_metadata_followers_wait_for_sync() {
    let mut h = H::quick();
    let (a, ja) = h.join_new("g", vec![proto("range", b"A"), proto("roundrobin", b"a")]);
    // The first member alone: the initial rebalance (delay 0) completes at the timer.
    assert!(h.joined(ja).is_none());
    assert_eq!(h.state("g"), ClassicGroupState::PreparingRebalance);
    let (b, jb) = h.join_new("g", vec![proto("range", b"B")]);
    let (c, jc) = h.join_new("g", vec![proto("roundrobin", b"c"), proto("range", b"C")]);
    assert!(h.joined(jb).is_none() && h.joined(jc).is_none());
    h.advance(0);
    let ra = h.joined(ja).unwrap();
    let rb = h.joined(jb).unwrap();
    let rc = h.joined(jc).unwrap();
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
    assert!(h.synced(sb).is_none() && h.synced(sc).is_none());
    let sa = h.sync("g", &a, 1, vec![(&a, b"x"), (&b, b"y")]);
    assert_eq!(&h.synced(sa).unwrap().assignment[..], b"x");
    assert_eq!(&h.synced(sb).unwrap().assignment[..], b"y");
    let rc_sync = h.synced(sc).unwrap();
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
        &h.records,
        h.now,
    )
    .unwrap();
    assert_eq!(loaded.groups(), h.c.groups());
    assert_eq!(
        loaded.classic_group("g").unwrap().members[&b].assignment,
        Bytes::from_static(b"y")
    );
}
