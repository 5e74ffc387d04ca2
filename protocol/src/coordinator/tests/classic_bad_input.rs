//! Bad input to classic groups, through the [`GroupCoordinator`] facade: malformed
//! consumer-protocol bytes, unknown or mismatched protocol types, empty protocol lists, oversized
//! member metadata, JoinGroup storms, the group size limit, out-of-range timeouts and requests
//! naming members or generations the group does not have. Each case asserts Kafka's error code
//! (`GroupMetadataManager`'s classic paths and `GroupCoordinatorService.joinGroup`, Kafka 4.4),
//! that nothing panics, that `replay` of the records still equals the state, and that the rest of
//! the group is unaffected: still Stable at the same generation (its members' heartbeats answer
//! NONE), the same members, the same assignments.

use std::borrow::BorrowMut;
use std::collections::BTreeMap;

use super::harness::groups::{self, classic_harness, classic_join_round, sync_request};
use super::harness::Harness;
use crate::bytes::Bytes;
use crate::coordinator::{ClassicGroupConfig, GroupResponse, Record, RequestContext, RequestId};
use crate::error::ErrorCode;
use crate::generated::consumer_protocol_assignment::{
    ConsumerProtocolAssignment, TopicPartition as AssignedTp,
};
use crate::generated::describe_groups_request::DescribeGroupsRequest;
use crate::generated::describe_groups_response::DescribedGroup;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use crate::generated::leave_group_response::LeaveGroupResponse;
use crate::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use crate::generated::sync_group_response::SyncGroupResponse;
use crate::wire::Message;

const G: &str = "grp";
const SESSION_MS: i32 = 45_000;
const REBALANCE_MS: i32 = 60_000;

fn code(e: ErrorCode) -> i16 {
    e.code()
}

/// Kafka's version-prefixed consumer-protocol bytes (`ConsumerProtocol.serialize…`).
fn prefixed<M: Message>(m: &M, v: i16) -> Bytes {
    let mut b = v.to_be_bytes().to_vec();
    b.extend_from_slice(&m.to_bytes(v).unwrap());
    Bytes::from(b)
}

/// A well-formed subscription to `topics` (ConsumerProtocolSubscription v3).
fn subscription(topics: &[&str]) -> Bytes {
    groups::subscription(topics, &[], None, 3)
}

/// A well-formed assignment of partition `p` of `t0` (ConsumerProtocolAssignment v3).
fn assignment(p: i32) -> Bytes {
    let a = ConsumerProtocolAssignment {
        assigned_partitions: vec![AssignedTp {
            topic: "t0".into(),
            partitions: vec![p].into(),
        }],
        ..Default::default()
    };
    prefixed(&a, 3)
}

/// Malformed consumer-protocol bytes, each a `SchemaException` in Kafka's
/// `ConsumerProtocol.deserialize…` (name, bytes).
fn malformed() -> Vec<(&'static str, Bytes)> {
    vec![
        ("empty", Bytes::new()),
        ("one byte", Bytes::from_static(&[0])),
        (
            "negative version",
            Bytes::from_static(&[0xff, 0xff, 0, 0, 0, 0]),
        ),
        // v0: one topic whose name claims 10 bytes, 2 present.
        (
            "truncated topic name",
            Bytes::from_static(&[0, 0, 0, 0, 0, 1, 0, 10, b't', b'0']),
        ),
    ]
}

fn join_req(member_id: &str, metadata: Bytes) -> JoinGroupRequest {
    JoinGroupRequest {
        group_id: G.into(),
        session_timeout_ms: SESSION_MS,
        rebalance_timeout_ms: REBALANCE_MS,
        member_id: member_id.to_string().into(),
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            metadata,
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// A Stable group as the members saw it.
#[derive(Debug, Clone)]
struct Stable {
    generation: i32,
    leader: String,
    /// Member id → its assignment bytes.
    members: BTreeMap<String, Bytes>,
}

/// A classic coordinator of groups of at most `max_size` members (sessions 6 s to 30 min,
/// initial delay 3 s), requests from `client` at `/10.0.0.1`.
fn harness(max_size: i32) -> Harness {
    let config = ClassicGroupConfig {
        min_session_timeout_ms: 6_000,
        max_session_timeout_ms: 1_800_000,
        initial_rebalance_delay_ms: 3_000,
        max_size,
    };
    classic_harness(config, 11).client("client", "/10.0.0.1")
}

/// The calls of this file, each returning the answers that came during it.
trait BadInputCalls: BorrowMut<Harness> {
    /// Takes a call's records (the replay is checked), drains the answers.
    fn took(&mut self, records: Vec<Record>) -> Vec<(RequestId, GroupResponse)> {
        let h: &mut Harness = self.borrow_mut();
        h.absorb(&records);
        h.drain()
    }

    fn join(
        &mut self,
        v: i16,
        req: &JoinGroupRequest,
    ) -> (RequestId, Vec<(RequestId, GroupResponse)>) {
        let h: &mut Harness = self.borrow_mut();
        let id = h.send_join(v, req);
        (id, h.drain())
    }

    /// A JoinGroup answered at once (an error, MEMBER_ID_REQUIRED, or a Stable follower).
    fn join_now(&mut self, v: i16, req: &JoinGroupRequest) -> JoinGroupResponse {
        let (id, answers) = self.join(v, req);
        let mine: Vec<_> = answers.into_iter().filter(|(i, _)| *i == id).collect();
        match mine.as_slice() {
            [(_, GroupResponse::JoinGroup(r))] => r.clone(),
            other => panic!("expected one JoinGroup answer at once, got {other:?}"),
        }
    }

    fn sync(
        &mut self,
        v: i16,
        req: &SyncGroupRequest,
    ) -> (RequestId, Vec<(RequestId, GroupResponse)>) {
        let h: &mut Harness = self.borrow_mut();
        let id = h.send_sync(v, req);
        (id, h.drain())
    }

    fn sync_now(&mut self, v: i16, req: &SyncGroupRequest) -> SyncGroupResponse {
        let (id, answers) = self.sync(v, req);
        answers
            .into_iter()
            .find_map(|(i, r)| match r {
                GroupResponse::SyncGroup(s) if i == id => Some(s),
                _ => None,
            })
            .expect("a SyncGroup answer at once")
    }

    fn heartbeat(&mut self, member: &str, generation: i32) -> i16 {
        let h: &mut Harness = self.borrow_mut();
        let req = HeartbeatRequest {
            group_id: G.into(),
            generation_id: generation,
            member_id: member.to_string().into(),
            ..Default::default()
        };
        let id = h.send_heartbeat(4, &req);
        let answers = h.drain();
        match answers.as_slice() {
            [(i, GroupResponse::Heartbeat(h))] if *i == id => h.error_code,
            other => panic!("expected the Heartbeat answer at once, got {other:?}"),
        }
    }

    fn leave(&mut self, v: i16, req: &LeaveGroupRequest) -> LeaveGroupResponse {
        let h: &mut Harness = self.borrow_mut();
        let id = h.send_leave(v, req);
        h.drain()
            .into_iter()
            .find_map(|(i, r)| match r {
                GroupResponse::LeaveGroup(l) if i == id => Some(l),
                _ => None,
            })
            .expect("a LeaveGroup answer at once")
    }

    /// Fires the timers due at `now`; the answers they gave.
    fn fire_at(&mut self, now: i64) -> Vec<(RequestId, GroupResponse)> {
        let h: &mut Harness = self.borrow_mut();
        h.advance_to(now);
        h.drain()
    }

    fn describe(&self) -> DescribedGroup {
        let h: &Harness = self.borrow();
        let req = DescribeGroupsRequest {
            groups: vec![G.into()],
            ..Default::default()
        };
        let mut resp = h.c.describe_groups(&h.ctx(5), &req);
        assert_eq!(resp.groups.len(), 1);
        resp.groups.remove(0)
    }

    /// A Stable group of `metadata.len()` dynamic members joined at JoinGroup v9 (KIP-394:
    /// member id required, then the initial rebalance delay), each with its metadata; the
    /// leader assigns `assignment(i)` to the i-th member (by join order) and everyone syncs.
    fn stable(&mut self, metadata: &[Bytes]) -> Stable {
        let assignments: Vec<Bytes> = (0..metadata.len()).map(|i| assignment(i as i32)).collect();
        let round = classic_join_round(
            self.borrow_mut(),
            metadata.len(),
            |i, m| join_req(m, metadata[i].clone()),
            &assignments,
        );
        let s = Stable {
            generation: round.generation,
            leader: round.leader,
            members: round.ids.into_iter().zip(assignments).collect(),
        };
        self.assert_unaffected(&s);
        s
    }

    /// The group is as `s` says: Stable, the same members with the same assignments, and
    /// every member's heartbeat at its generation answers NONE.
    fn assert_unaffected(&mut self, s: &Stable) {
        let d = self.describe();
        assert_eq!(d.error_code, 0);
        assert_eq!(d.group_state.as_str(), "Stable");
        let described: BTreeMap<String, Bytes> = d
            .members
            .iter()
            .map(|m| {
                (
                    m.member_id.as_str().to_string(),
                    m.member_assignment.clone(),
                )
            })
            .collect();
        assert_eq!(described, s.members, "members and assignments unchanged");
        for m in s.members.keys() {
            assert_eq!(
                self.heartbeat(m, s.generation),
                0,
                "member {m} still at {}",
                s.generation
            );
        }
    }
}

impl BadInputCalls for Harness {}

fn sync_req(
    member: &str,
    generation: i32,
    assignments: Vec<SyncGroupRequestAssignment>,
) -> SyncGroupRequest {
    sync_request(G, member, generation, assignments)
}

/// In a classic group the coordinator never reads the consumer protocol: malformed member
/// metadata reaches the leader byte for byte, and a malformed assignment from the leader
/// reaches its member byte for byte (Kafka relays both; only a consumer group parses them).
#[test]
fn classic_group_relays_malformed_consumer_protocol_bytes_unchanged() {
    for (name, bad) in malformed() {
        let mut h = harness(i32::MAX);
        let good = subscription(&["t0"]);
        let s = h.stable(&[good.clone(), bad.clone()]);
        // The leader sees both metadata as sent, at the next rebalance too.
        let d = h.describe();
        let metas: Vec<Bytes> = d
            .members
            .iter()
            .map(|m| m.member_metadata.clone())
            .collect();
        assert!(
            metas.contains(&bad),
            "{name}: DescribeGroups shows the malformed metadata"
        );
        // A malformed assignment from the leader reaches the follower unchanged.
        let (ids, metadata): (Vec<String>, Vec<Bytes>) = {
            let mut by_id: Vec<(String, Bytes)> = d
                .members
                .iter()
                .map(|m| (m.member_id.as_str().to_string(), m.member_metadata.clone()))
                .collect();
            by_id.sort_by_key(|(m, _)| *m != s.leader);
            by_id.into_iter().unzip()
        };
        let mut answers = Vec::new();
        for (m, meta) in ids.iter().zip(&metadata) {
            answers.extend(h.join(9, &join_req(m, meta.clone())).1);
        }
        assert_eq!(answers.len(), 2, "{name}: the rejoin round ends at once");
        let mut generation = 0;
        for (_, r) in &answers {
            let GroupResponse::JoinGroup(j) = r else {
                panic!()
            };
            assert_eq!(j.error_code, 0);
            generation = j.generation_id;
            if j.member_id.as_str() == s.leader {
                let seen: Vec<Bytes> = j.members.iter().map(|m| m.metadata.clone()).collect();
                assert!(
                    seen.contains(&bad),
                    "{name}: the leader gets the bytes as sent"
                );
            }
        }
        assert_eq!(generation, s.generation + 1);
        let follower = ids[1].clone();
        let (_, waits) = h.sync(5, &sync_req(&follower, generation, vec![]));
        assert!(waits.is_empty(), "the follower waits for the leader");
        let to_follower = SyncGroupRequestAssignment {
            member_id: follower.clone().into(),
            assignment: bad.clone(),
            ..Default::default()
        };
        let (_, a) = h.sync(5, &sync_req(&s.leader, generation, vec![to_follower]));
        let got: Vec<&SyncGroupResponse> = a
            .iter()
            .filter_map(|(_, r)| match r {
                GroupResponse::SyncGroup(s) => Some(s),
                _ => None,
            })
            .collect();
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|s| s.error_code == 0));
        assert!(
            got.iter().any(|s| s.assignment == bad),
            "{name}: the follower gets the malformed assignment unchanged"
        );
        let d = h.describe();
        assert_eq!(d.group_state.as_str(), "Stable");
        let f = d
            .members
            .iter()
            .find(|m| m.member_id.as_str() == follower)
            .unwrap();
        assert_eq!(f.member_assignment, bad);
    }
}

/// A protocol type other than the group's, or no protocol in common, is
/// INCONSISTENT_GROUP_PROTOCOL for a new member (member id "") and for a member of the group
/// (its id echoed); nothing changes (Kafka: `ClassicGroup.supportsProtocols`).
#[test]
fn unknown_or_mismatched_protocol_type_is_inconsistent_group_protocol() {
    let mut h = harness(i32::MAX);
    let s = h.stable(&[subscription(&["t0"]), subscription(&["t0"])]);
    let member = s.leader.clone();
    let cases: Vec<(&str, JoinGroupRequest)> = vec![
        ("another protocol type", {
            let mut r = join_req("", subscription(&["t0"]));
            r.protocol_type = "connect".into();
            r
        }),
        ("an empty protocol type", {
            let mut r = join_req("", subscription(&["t0"]));
            r.protocol_type = "".into();
            r
        }),
        ("no protocol in common", {
            let mut r = join_req("", subscription(&["t0"]));
            r.protocols[0].name = "roundrobin".into();
            r
        }),
        ("an empty protocol list", {
            let mut r = join_req("", subscription(&["t0"]));
            r.protocols.clear();
            r
        }),
    ];
    for v in [3, 5, 9] {
        for (name, req) in &cases {
            let r = h.join_now(v, req);
            assert_eq!(
                r.error_code,
                code(ErrorCode::InconsistentGroupProtocol),
                "v{v} new member, {name}"
            );
            assert_eq!(
                r.member_id.as_str(),
                "",
                "v{v} {name}: no member id is given out"
            );
            let mut known = req.clone();
            known.member_id = member.clone().into();
            let r = h.join_now(v, &known);
            assert_eq!(
                r.error_code,
                code(ErrorCode::InconsistentGroupProtocol),
                "v{v} known member, {name}"
            );
            assert_eq!(
                r.member_id.as_str(),
                member,
                "v{v} {name}: the member id is echoed"
            );
            h.assert_unaffected(&s);
        }
    }
}

/// An empty group takes the first member's protocol type and protocols, so a join with an
/// empty protocol type or no protocol is refused there too (Kafka: `supportsProtocols` in
/// Empty needs both non-empty).
#[test]
fn empty_protocol_type_or_list_to_an_empty_group_is_inconsistent_group_protocol() {
    for v in [0, 4, 9] {
        let mut h = harness(i32::MAX);
        let mut no_type = join_req("", subscription(&["t0"]));
        no_type.protocol_type = "".into();
        let mut no_protocols = join_req("", subscription(&["t0"]));
        no_protocols.protocols.clear();
        for req in [no_type, no_protocols] {
            let r = h.join_now(v, &req);
            assert_eq!(
                r.error_code,
                code(ErrorCode::InconsistentGroupProtocol),
                "v{v}"
            );
            assert_eq!(r.member_id.as_str(), "");
        }
        // The group takes a well-formed member afterwards.
        let r = h.join_now(9, &join_req("", subscription(&["t0"])));
        assert_eq!(r.error_code, code(ErrorCode::MemberIdRequired));
    }
}

/// SyncGroup v5 names the protocol type and name; either differing from the group's, or
/// missing, is INCONSISTENT_GROUP_PROTOCOL, and the member's assignment stays (Kafka:
/// `validateSyncGroup`, `KafkaApis.handleSyncGroupRequest`).
#[test]
fn sync_with_another_protocol_type_or_name_is_inconsistent_group_protocol() {
    let mut h = harness(i32::MAX);
    let s = h.stable(&[subscription(&["t0"]), subscription(&["t0"])]);
    for m in s.members.keys() {
        let mut req = sync_req(m, s.generation, vec![]);
        req.protocol_type = Some("connect".into());
        assert_eq!(
            h.sync_now(5, &req).error_code,
            code(ErrorCode::InconsistentGroupProtocol)
        );
        let mut req = sync_req(m, s.generation, vec![]);
        req.protocol_name = Some("roundrobin".into());
        assert_eq!(
            h.sync_now(5, &req).error_code,
            code(ErrorCode::InconsistentGroupProtocol)
        );
        // v5 must name both (Kafka's `KafkaApis`: `areMandatoryProtocolTypeAndNamePresent`);
        // v4 and older have no such fields and are not checked.
        let mut req = sync_req(m, s.generation, vec![]);
        req.protocol_type = None;
        req.protocol_name = None;
        assert_eq!(
            h.sync_now(5, &req).error_code,
            code(ErrorCode::InconsistentGroupProtocol)
        );
        let r = h.sync_now(4, &req);
        assert_eq!(r.error_code, 0);
        assert_eq!(r.assignment, s.members[m]);
    }
    h.assert_unaffected(&s);
}

/// Member metadata of 1 MiB is accepted (Kafka has no limit of its own below the server's
/// request size) and relayed to the leader and DescribeGroups without copying: the bytes the
/// leader gets are the request's buffer, shared.
#[test]
fn oversized_member_metadata_is_relayed_without_copying() {
    let mut h = harness(i32::MAX);
    let big = Bytes::from(vec![0x5a; 1 << 20]);
    let s = h.stable(&[subscription(&["t0"]), big.clone()]);
    let d = h.describe();
    let shown = d
        .members
        .iter()
        .find(|m| m.member_metadata.len() == big.len())
        .expect("the big member is described");
    assert_eq!(shown.member_metadata, big);
    assert_eq!(
        shown.member_metadata.as_ptr(),
        big.as_ptr(),
        "DescribeGroups shares the request's metadata buffer"
    );
    // A rejoin round: the leader's JoinGroup answer carries the 1 MiB, shared.
    let mut answers = Vec::new();
    let mut order: Vec<(&String, Bytes)> = d
        .members
        .iter()
        .map(|m| {
            let id = s
                .members
                .keys()
                .find(|k| **k == m.member_id.as_str())
                .unwrap();
            (id, m.member_metadata.clone())
        })
        .collect();
    order.sort_by_key(|(m, _)| **m != s.leader);
    for (m, meta) in &order {
        answers.extend(h.join(9, &join_req(m, meta.clone())).1);
    }
    let leader_answer = answers
        .iter()
        .find_map(|(_, r)| match r {
            GroupResponse::JoinGroup(j) if j.member_id.as_str() == s.leader => Some(j),
            _ => None,
        })
        .expect("the leader's answer");
    let relayed = leader_answer
        .members
        .iter()
        .find(|m| m.metadata.len() == big.len())
        .expect("the leader sees the big member");
    assert_eq!(
        relayed.metadata.as_ptr(),
        big.as_ptr(),
        "relayed without a copy"
    );
}

/// A storm of JoinGroups without member id (v4+, KIP-394) from one client: every one is
/// answered MEMBER_ID_REQUIRED with a fresh id and parked as a pending member, writing no record
/// and leaving the Stable group as it was; each pending member expires after the session
/// timeout of its request, after which its id is UNKNOWN_MEMBER_ID (Kafka:
/// `classicGroupJoinNewDynamicMember`, `expireClassicGroupMemberHeartbeat`).
#[test]
fn join_storm_without_member_id_leaves_the_group_alone_and_expires() {
    let mut h = harness(i32::MAX);
    let s = h.stable(&[
        subscription(&["t0"]),
        subscription(&["t0"]),
        subscription(&["t0"]),
    ]);
    let records_before = h.log.len();
    let mut storm = Vec::new();
    for i in 0..1000 {
        let mut req = join_req("", subscription(&["t0"]));
        req.session_timeout_ms = 6_000;
        let v = [4, 5, 6, 7, 8, 9][i % 6];
        let r = h.join_now(v, &req);
        assert_eq!(r.error_code, code(ErrorCode::MemberIdRequired));
        assert!(!r.member_id.is_empty());
        storm.push(r.member_id.as_str().to_string());
    }
    let distinct: std::collections::BTreeSet<_> = storm.iter().collect();
    assert_eq!(
        distinct.len(),
        storm.len(),
        "every pending member has its own id"
    );
    assert_eq!(
        h.log.len(),
        records_before,
        "pending members write no record"
    );
    h.assert_unaffected(&s);
    // 6 s later (the storm's session timeout) every pending member is gone; the members'
    // own sessions (45 s) run on.
    let now = h.now + 6_000;
    h.fire_at(now);
    h.assert_unaffected(&s);
    for m in storm.iter().step_by(97) {
        let r = h.join_now(9, &join_req(m, subscription(&["t0"])));
        assert_eq!(
            r.error_code,
            code(ErrorCode::UnknownMemberId),
            "expired pending member {m}"
        );
    }
    h.assert_unaffected(&s);
}

/// `group.max.size`: with the group full, a new member is refused GROUP_MAX_SIZE_REACHED at any
/// version, dynamic or static, with member id "" (Kafka: `acceptJoiningMember`, checked before
/// the member-id-required round); the members stay.
#[test]
fn group_max_size_reached() {
    let mut h = harness(2);
    let s = h.stable(&[subscription(&["t0"]), subscription(&["t0"])]);
    for v in [0, 3, 4, 9] {
        let r = h.join_now(v, &join_req("", subscription(&["t0"])));
        assert_eq!(r.error_code, code(ErrorCode::GroupMaxSizeReached), "v{v}");
        assert_eq!(r.member_id.as_str(), "");
        if v >= 5 {
            let mut req = join_req("", subscription(&["t0"]));
            req.group_instance_id = Some("static-1".into());
            let r = h.join_now(v, &req);
            assert_eq!(
                r.error_code,
                code(ErrorCode::GroupMaxSizeReached),
                "v{v} static"
            );
        }
        h.assert_unaffected(&s);
    }
    // A member of the full group rejoins freely (a follower with the same metadata gets the
    // current generation at once).
    let follower = s.members.keys().find(|m| **m != s.leader).unwrap().clone();
    let r = h.join_now(9, &join_req(&follower, subscription(&["t0"])));
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, s.generation);
    h.assert_unaffected(&s);
}

/// A session timeout outside [group.min.session.timeout.ms, group.max.session.timeout.ms] is
/// INVALID_SESSION_TIMEOUT and an empty group id INVALID_GROUP_ID, the member id echoed
/// (Kafka: `GroupCoordinatorService.joinGroup`, before the group is looked at).
#[test]
fn out_of_range_session_timeout_and_empty_group_id() {
    let mut h = harness(i32::MAX);
    let s = h.stable(&[subscription(&["t0"]), subscription(&["t0"])]);
    let member = s.leader.clone();
    for v in [0, 5, 9] {
        for (t, m) in [
            (5_999, ""),
            (1_800_001, member.as_str()),
            (-1, member.as_str()),
        ] {
            let mut req = join_req(m, subscription(&["t0"]));
            req.session_timeout_ms = t;
            let r = h.join_now(v, &req);
            assert_eq!(
                r.error_code,
                code(ErrorCode::InvalidSessionTimeout),
                "v{v} {t} ms"
            );
            assert_eq!(r.member_id.as_str(), m);
        }
        let mut req = join_req(&member, subscription(&["t0"]));
        req.group_id = "".into();
        let r = h.join_now(v, &req);
        assert_eq!(r.error_code, code(ErrorCode::InvalidGroupId), "v{v}");
        assert_eq!(r.member_id.as_str(), member);
        h.assert_unaffected(&s);
    }
}

/// The leader's SyncGroup may name members the group does not have (ignored), the same member
/// twice (the last entry wins, as Kafka's `HashMap.put`) and leave members out (they get empty
/// bytes); no member is added.
#[test]
fn sync_assignments_for_unknown_duplicate_or_missing_members() {
    let mut h = harness(i32::MAX);
    let s = h.stable(&[
        subscription(&["t0"]),
        subscription(&["t0"]),
        subscription(&["t0"]),
    ]);
    let followers: Vec<String> = s
        .members
        .keys()
        .filter(|m| **m != s.leader)
        .cloned()
        .collect();
    let mut answers = Vec::new();
    let mut ids: Vec<&String> = s.members.keys().collect();
    ids.sort_by_key(|m| **m != s.leader);
    for m in ids {
        answers.extend(h.join(9, &join_req(m, subscription(&["t0"]))).1);
    }
    assert_eq!(answers.len(), 3);
    let generation = s.generation + 1;
    let entry = |m: &str, a: Bytes| SyncGroupRequestAssignment {
        member_id: m.to_string().into(),
        assignment: a,
        ..Default::default()
    };
    let assignments = vec![
        entry("ghost", assignment(9)),
        entry(&followers[0], assignment(1)),
        entry(&followers[0], assignment(2)),
    ];
    let (_, a) = h.sync(5, &sync_req(&s.leader, generation, assignments));
    assert_eq!(a.len(), 1, "the leader's own answer");
    let d = h.describe();
    assert_eq!(d.group_state.as_str(), "Stable");
    assert_eq!(d.members.len(), 3, "no member named ghost");
    let by_id: BTreeMap<&str, &Bytes> = d
        .members
        .iter()
        .map(|m| (m.member_id.as_str(), &m.member_assignment))
        .collect();
    assert_eq!(
        *by_id[followers[0].as_str()],
        assignment(2),
        "the last entry wins"
    );
    assert!(
        by_id[followers[1].as_str()].is_empty(),
        "a member left out gets nothing"
    );
    assert!(by_id[s.leader.as_str()].is_empty());
    for f in &followers {
        let r = h.sync_now(5, &sync_req(f, generation, vec![]));
        assert_eq!(r.error_code, 0);
        assert_eq!(r.assignment, *by_id[f.as_str()]);
    }
}

/// Requests naming a member the group does not have are UNKNOWN_MEMBER_ID, a stale generation
/// ILLEGAL_GENERATION, a group that does not exist UNKNOWN_MEMBER_ID (Heartbeat, SyncGroup) —
/// nothing changes. A batch LeaveGroup (v3+) answers per member: the unknown one
/// UNKNOWN_MEMBER_ID, the known one leaves (Kafka: `classicGroupLeaveToClassicGroup`).
#[test]
fn unknown_members_stale_generations_and_missing_groups() {
    let mut h = harness(i32::MAX);
    let s = h.stable(&[subscription(&["t0"]), subscription(&["t0"])]);
    let m0 = s.leader.clone();
    assert_eq!(
        h.heartbeat("nobody", s.generation),
        code(ErrorCode::UnknownMemberId)
    );
    assert_eq!(
        h.heartbeat(&m0, s.generation - 1),
        code(ErrorCode::IllegalGeneration)
    );
    assert_eq!(
        h.heartbeat(&m0, s.generation + 1),
        code(ErrorCode::IllegalGeneration)
    );
    let r = h.sync_now(5, &sync_req("nobody", s.generation, vec![]));
    assert_eq!(r.error_code, code(ErrorCode::UnknownMemberId));
    let r = h.sync_now(5, &sync_req(&m0, s.generation + 7, vec![]));
    assert_eq!(r.error_code, code(ErrorCode::IllegalGeneration));
    let mut other = sync_req(&m0, s.generation, vec![]);
    other.group_id = "no-such-group".into();
    assert_eq!(
        h.sync_now(5, &other).error_code,
        code(ErrorCode::UnknownMemberId)
    );
    let r = h.join_now(9, &{
        let mut j = join_req("nobody", subscription(&["t0"]));
        j.group_id = "no-such-group".into();
        j
    });
    assert_eq!(r.error_code, code(ErrorCode::UnknownMemberId));
    let r = h.join_now(9, &join_req("nobody", subscription(&["t0"])));
    assert_eq!(r.error_code, code(ErrorCode::UnknownMemberId));
    h.assert_unaffected(&s);
    // A batch leave: one unknown, one known.
    let follower = s.members.keys().find(|m| **m != s.leader).unwrap().clone();
    let req = LeaveGroupRequest {
        group_id: G.into(),
        members: vec![
            MemberIdentity {
                member_id: "nobody".into(),
                ..Default::default()
            },
            MemberIdentity {
                member_id: follower.clone().into(),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    let r = h.leave(5, &req);
    assert_eq!(r.error_code, 0);
    let per: BTreeMap<&str, i16> = r
        .members
        .iter()
        .map(|m| (m.member_id.as_str(), m.error_code))
        .collect();
    assert_eq!(per["nobody"], code(ErrorCode::UnknownMemberId));
    assert_eq!(per[follower.as_str()], 0);
    let d = h.describe();
    assert!(d.members.iter().all(|m| m.member_id.as_str() != follower));
}

// ----- Classic members meeting consumer groups (KIP-848 online migration) -----

/// A ConsumerGroupHeartbeat (v1, client-chosen member id) of `member` at `epoch` subscribed to
/// `topics` (`None`: unchanged), owning nothing; the answer.
fn cghb(
    h: &mut Harness,
    member: &str,
    epoch: i32,
    topics: Option<&[&str]>,
) -> crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse {
    use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
    let req = ConsumerGroupHeartbeatRequest {
        group_id: G.into(),
        member_id: member.to_string().into(),
        member_epoch: epoch,
        rebalance_timeout_ms: if epoch == 0 { REBALANCE_MS } else { -1 },
        subscribed_topic_names: topics.map(|ts| ts.iter().map(|t| t.to_string().into()).collect()),
        topic_partitions: (epoch == 0).then(Vec::new),
        ..Default::default()
    };
    let out =
        h.c.consumer_group_heartbeat(&RequestContext::new("client", "/10.0.0.1", 1), &req, h.now);
    h.took(out.records);
    out.response
}

/// A coordinator with topics `t0` (3 partitions) and `t1` (2), and a consumer group `grp` whose
/// one ConsumerGroupHeartbeat member `a` (subscribed to `t0`) is stable at epoch 1 owning all
/// of `t0`.
fn consumer_group_with_one_member() -> Harness {
    use crate::coordinator::TopicMetadata;
    use crate::wire::Uuid;
    let mut h = harness(i32::MAX);
    let r = h.c.set_topics(
        [
            TopicMetadata::new(Uuid::from_u128(1), "t0", 3),
            TopicMetadata::new(Uuid::from_u128(2), "t1", 2),
        ],
        h.now,
    );
    h.took(r);
    let r = cghb(&mut h, "a", 0, Some(&["t0"]));
    assert_eq!((r.error_code, r.member_epoch), (0, 1));
    h
}

/// Member `a` of the consumer group is as it was: epoch 1, all of `t0`, and its heartbeat
/// answers NONE at epoch 1; the group epoch is `epoch`.
fn assert_consumer_member_unaffected(h: &mut Harness, epoch: i32) {
    let g = h.c.group(G).expect("the consumer group");
    assert_eq!(g.group_epoch, epoch, "group epoch unchanged");
    let a = &g.members["a"];
    assert_eq!(a.member_epoch, 1);
    let owned: Vec<i32> = a.assigned.values().flatten().copied().collect();
    assert_eq!(owned, vec![0, 1, 2]);
    let r = cghb(h, "a", 1, None);
    assert_eq!((r.error_code, r.member_epoch), (0, 1));
}

/// A classic member joining a consumer group with malformed ConsumerProtocolSubscription bytes
/// is refused INCONSISTENT_GROUP_PROTOCOL (Kafka 4.4's `deserializeSubscription`: "Malformed
/// embedded consumer protocol in subscription deserialization.") — after the member-id round
/// at v4+, which comes first — and is not added; the consumer group and its member are as
/// they were. Bytes Kafka reads (a version above the highest known, trailing bytes) join.
#[test]
fn malformed_subscription_into_a_consumer_group_is_inconsistent_group_protocol() {
    let mut h = consumer_group_with_one_member();
    let epoch = h.c.group(G).unwrap().group_epoch;
    for (name, bad) in malformed() {
        // v9: MEMBER_ID_REQUIRED first, then the refusal.
        let r = h.join_now(9, &join_req("", bad.clone()));
        assert_eq!(r.error_code, code(ErrorCode::MemberIdRequired), "{name}");
        let id = r.member_id.as_str().to_string();
        let r = h.join_now(9, &join_req(&id, bad.clone()));
        assert_eq!(
            r.error_code,
            code(ErrorCode::InconsistentGroupProtocol),
            "{name} v9"
        );
        // v3 has no member-id round: the generated id is refused at once.
        let r = h.join_now(3, &join_req("", bad.clone()));
        assert_eq!(
            r.error_code,
            code(ErrorCode::InconsistentGroupProtocol),
            "{name} v3"
        );
        let g = h.c.group(G).unwrap();
        assert_eq!(g.members.len(), 1, "{name}: no member added");
        assert_consumer_member_unaffected(&mut h, epoch);
    }
    // Forward compatible bytes: version 9 (read as 3) with trailing bytes after the body.
    let mut lenient = subscription(&["t1"]).to_vec();
    lenient[..2].copy_from_slice(&9i16.to_be_bytes());
    lenient.extend_from_slice(b"trailing");
    let r = h.join_now(3, &join_req("", Bytes::from(lenient)));
    assert_eq!(
        r.error_code, 0,
        "Kafka reads a newer version as its highest"
    );
    let g = h.c.group(G).unwrap();
    let b = &g.members[r.member_id.as_str()];
    assert_eq!(
        b.subscribed_topic_names
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>(),
        vec!["t1"]
    );
}

/// In a consumer group the server assigns: the assignments a classic member puts in SyncGroup
/// (here garbage, for itself and for others) are ignored, and its answer is its own assignment
/// as ConsumerProtocolAssignment bytes (Kafka: `classicGroupSyncToConsumerGroup`).
#[test]
fn sync_assignments_from_a_classic_member_of_a_consumer_group_are_ignored() {
    use crate::coordinator::consumer::migration::decode_assignment;
    let mut h = consumer_group_with_one_member();
    let r = h.join_now(3, &join_req("", subscription(&["t1"])));
    assert_eq!(r.error_code, 0);
    let b = r.member_id.as_str().to_string();
    let garbage = Bytes::from_static(&[0xff, 0xff, 0xde, 0xad]);
    let entry = |m: &str| SyncGroupRequestAssignment {
        member_id: m.to_string().into(),
        assignment: garbage.clone(),
        ..Default::default()
    };
    let s = h.sync_now(
        5,
        &sync_req(&b, r.generation_id, vec![entry(&b), entry("a")]),
    );
    assert_eq!(s.error_code, 0);
    assert_ne!(s.assignment, garbage);
    let got = decode_assignment(&s.assignment).expect("ConsumerProtocolAssignment bytes");
    let parts: Vec<(String, Vec<i32>)> = got
        .assigned_partitions
        .iter()
        .map(|tp| (tp.topic.to_string(), tp.partitions.iter().collect()))
        .collect();
    assert_eq!(parts, vec![("t1".to_string(), vec![0, 1])]);
    let a = &h.c.group(G).unwrap().members["a"];
    let owned: Vec<i32> = a.assigned.values().flatten().copied().collect();
    assert_eq!(owned, vec![0, 1, 2], "a keeps t0");
}

/// The first ConsumerGroupHeartbeat to a classic `consumer` group whose members' bytes do not
/// read is refused GROUP_ID_NOT_FOUND with Kafka 4.4's message ("… because the embedded
/// consumer protocol is malformed."), for malformed metadata and for a malformed non-empty
/// assignment; the classic group stays as it was (Kafka: `convertToConsumerGroup`,
/// `ConsumerGroup.fromClassicGroup`).
#[test]
fn upgrade_of_a_classic_group_with_malformed_bytes_is_refused() {
    for (name, bad) in malformed() {
        for bad_assignment in [false, true] {
            if bad_assignment && bad.is_empty() {
                // Empty assignment bytes are "no partitions" (Kafka 4.4 checks for them before
                // reading), not malformed.
                continue;
            }
            let mut h = harness(i32::MAX);
            let mut s = if bad_assignment {
                h.stable(&[subscription(&["t0"]), subscription(&["t0"])])
            } else {
                h.stable(&[subscription(&["t0"]), bad.clone()])
            };
            if bad_assignment {
                // A rejoin round whose leader hands a follower the malformed bytes.
                let mut ids: Vec<String> = s.members.keys().cloned().collect();
                ids.sort_by_key(|m| *m != s.leader);
                for m in &ids {
                    h.join(9, &join_req(m, subscription(&["t0"])));
                }
                s.generation += 1;
                let follower = ids[1].clone();
                h.sync(5, &sync_req(&follower, s.generation, vec![]));
                let to = vec![
                    SyncGroupRequestAssignment {
                        member_id: follower.clone().into(),
                        assignment: bad.clone(),
                        ..Default::default()
                    },
                    SyncGroupRequestAssignment {
                        member_id: s.leader.clone().into(),
                        assignment: assignment(0),
                        ..Default::default()
                    },
                ];
                h.sync(5, &sync_req(&s.leader, s.generation, to));
                s.members.insert(follower, bad.clone());
                s.members.insert(s.leader.clone(), assignment(0));
                h.assert_unaffected(&s);
            }
            let records = h.log.len();
            let r = cghb(&mut h, "new", 0, Some(&["t0"]));
            assert_eq!(
                r.error_code,
                code(ErrorCode::GroupIdNotFound),
                "{name} {bad_assignment}"
            );
            assert_eq!(
                r.error_message.as_deref(),
                Some("Cannot upgrade classic group grp to consumer group because the embedded consumer protocol is malformed."),
                "{name}"
            );
            assert_eq!(h.log.len(), records, "{name}: nothing written");
            assert!(h.c.group(G).is_none(), "{name}: no consumer group");
            h.assert_unaffected(&s);
        }
    }
}

/// A rebalance timeout of 0 (JoinGroup does not bound it): when a join phase ends with no
/// member rejoined (here the only member is static and a second static member was removed by
/// instance id before the phase ended), the phase is re-armed after the rebalance timeout — at
/// least 1 ms later, so `fire_timers` returns (with 0 it came due again at once, forever).
#[test]
fn zero_rebalance_timeout_does_not_spin_fire_timers() {
    let mut h = harness(i32::MAX);
    let static_join = |instance: &str| {
        let mut r = join_req("", subscription(&["t0"]));
        r.group_instance_id = Some(instance.to_string().into());
        r.session_timeout_ms = 6_000;
        r.rebalance_timeout_ms = 0;
        r
    };
    // i1 joins (rebalance timeout 10 s) and syncs; then rejoins with a rebalance timeout of 0:
    // alone in the group, its rejoin ends the join phase at once, and it syncs at once.
    let mut first = static_join("i1");
    first.rebalance_timeout_ms = 10_000;
    let (_, mut answers) = h.join(5, &first);
    while answers.is_empty() {
        let d = h.c.next_deadline().expect("the initial delay");
        answers = h.fire_at(d);
    }
    let GroupResponse::JoinGroup(a) = &answers[0].1 else {
        panic!("{answers:?}")
    };
    assert_eq!(a.error_code, 0);
    let a_id = a.member_id.as_str().to_string();
    let assigned = vec![SyncGroupRequestAssignment {
        member_id: a_id.clone().into(),
        assignment: assignment(0),
        ..Default::default()
    }];
    let r = h.sync_now(5, &sync_req(&a_id, a.generation_id, assigned.clone()));
    assert_eq!(r.error_code, 0);
    let mut again = static_join("i1");
    again.member_id = a_id.clone().into();
    let a = h.join_now(5, &again);
    assert_eq!(a.error_code, 0);
    let r = h.sync_now(5, &sync_req(&a_id, a.generation_id, assigned));
    assert_eq!(r.error_code, 0);
    // A second static member starts a rebalance, then is removed by its instance id.
    let (_, waiting) = h.join(5, &static_join("i2"));
    assert!(waiting.is_empty(), "i2 waits in the join phase");
    let leave = LeaveGroupRequest {
        group_id: G.into(),
        members: vec![MemberIdentity {
            member_id: "".into(),
            group_instance_id: Some("i2".into()),
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(h.leave(3, &leave).error_code, 0);
    // The join phase ends with nobody rejoined: re-armed, not spinning.
    let now = h.now;
    h.fire_at(now);
    let d = h.c.next_deadline().expect("the join phase is re-armed");
    assert!(d > now, "re-armed in the future ({d} > {now})");
    assert!(h
        .describe()
        .members
        .iter()
        .any(|m| m.member_id.as_str() == a_id));
}
