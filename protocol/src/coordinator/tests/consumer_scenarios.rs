//! Consumer-group scenarios taken from Kafka's tests (GroupMetadataManagerTest and
//! CurrentAssignmentBuilderTest), run against [`GroupCoordinator`]. After every step the state is
//! compared with `replay` of every record emitted so far (docs/coordinator.md, D6).

use std::borrow::BorrowMut;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use crate::coordinator::consumer::assignor::{
    AssignorError, ConsumerGroupAssignor, GroupAssignment, GroupSpec, TopicsSpec,
};
use crate::coordinator::consumer::*;
use crate::coordinator::{
    replay, GroupCoordinator, Record, RequestContext, SequentialMemberIds, TopicMetadata,
};
use crate::error::ErrorCode;
use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_request::TopicPartitions as ReqTp;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use crate::wire::Uuid;
use assignor::Assignment;

use super::harness::groups::{assignment, stable_consumer_group, BAR, FOO, ZAR};
use super::harness::Harness;

/// The consumer-record constructors the scenarios use, as coordinator records (a log holds
/// [`Record`]s).
impl Record {
    fn group_epoch(group_id: &str, epoch: i32, hash: u64) -> Record {
        ConsumerRecord::group_epoch(group_id, epoch, hash).into()
    }
    fn member_metadata(group_id: &str, m: &ConsumerGroupMember) -> Record {
        ConsumerRecord::member_metadata(group_id, m).into()
    }
    fn target_epoch(group_id: &str, epoch: i32) -> Record {
        ConsumerRecord::target_epoch(group_id, epoch).into()
    }
    fn target(group_id: &str, member_id: &str, a: &Assignment) -> Record {
        ConsumerRecord::target(group_id, member_id, a).into()
    }
    fn current(group_id: &str, m: &ConsumerGroupMember) -> Record {
        ConsumerRecord::current(group_id, m).into()
    }
}

/// Kafka's test mock: an assignor named `range` (or any name) that returns preset targets, or
/// fails. Without a preset it deals every subscribed partition round-robin over the subscribers.
#[derive(Debug)]
pub(crate) struct Preset {
    pub name: String,
    pub preset: Mutex<Option<BTreeMap<String, Assignment>>>,
    pub fail: Mutex<bool>,
}

impl Preset {
    pub fn new(name: &str) -> Arc<Self> {
        Arc::new(Preset {
            name: name.to_string(),
            preset: Mutex::new(None),
            fail: Mutex::new(false),
        })
    }
    pub fn set(&self, p: Vec<(&str, Assignment)>) {
        *self.preset.lock().unwrap() =
            Some(p.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    }
}

impl ConsumerGroupAssignor for Preset {
    fn name(&self) -> &str {
        &self.name
    }
    fn assign(
        &self,
        group: &GroupSpec,
        topics: &TopicsSpec,
    ) -> Result<GroupAssignment, AssignorError> {
        if *self.fail.lock().unwrap() {
            return Err(AssignorError {
                assignor: self.name.clone(),
                reason: "boom".into(),
            });
        }
        if let Some(p) = self.preset.lock().unwrap().clone() {
            let members = group
                .members
                .keys()
                .map(|m| (m.clone(), p.get(m).cloned().unwrap_or_default()))
                .collect();
            return Ok(GroupAssignment { members });
        }
        let mut out: BTreeMap<String, Assignment> = group
            .members
            .keys()
            .map(|m| (m.clone(), Assignment::new()))
            .collect();
        for (t, info) in topics {
            let subs: Vec<&String> = group
                .members
                .iter()
                .filter(|(_, s)| s.subscribed_topic_ids.contains(t))
                .map(|(m, _)| m)
                .collect();
            if subs.is_empty() {
                continue;
            }
            for p in 0..info.partitions {
                let m = subs[p as usize % subs.len()];
                out.get_mut(m).unwrap().entry(*t).or_default().insert(p);
            }
        }
        Ok(GroupAssignment { members: out })
    }
}

/// `(topic, partitions)` as an assignment.
fn a(parts: &[(Uuid, &[i32])]) -> Assignment {
    assignment(parts)
}

pub(crate) fn topics() -> Vec<TopicMetadata> {
    vec![
        TopicMetadata::new(FOO, "foo", 6),
        TopicMetadata::new(BAR, "bar", 3),
        TopicMetadata::new(ZAR, "zar", 1),
    ]
}

/// The [`Harness`] of a coordinator loaded with topics foo, bar and zar and the [`Preset`]
/// assignor `range`, and that assignor, to preset or fail.
struct H {
    h: Harness,
    assignor: Arc<Preset>,
}

impl std::ops::Deref for H {
    type Target = Harness;
    fn deref(&self) -> &Harness {
        &self.h
    }
}

impl std::ops::DerefMut for H {
    fn deref_mut(&mut self) -> &mut Harness {
        &mut self.h
    }
}

impl H {
    /// `config` changes the consumer config; the coordinator is loaded from `records` at 0 ms.
    fn with(config: impl FnOnce(&mut ConsumerGroupConfig), records: Vec<Record>) -> H {
        let assignor = Preset::new("range");
        let mut cfg = ConsumerGroupConfig::with_assignors(vec![assignor.clone()]);
        config(&mut cfg);
        let c = GroupCoordinator::load(
            cfg,
            Box::new(SequentialMemberIds::new(7)),
            topics(),
            &records,
            0,
        )
        .unwrap();
        H {
            h: Harness::new(c, records, 0),
            assignor,
        }
    }

    fn new() -> H {
        H::with(|_| {}, vec![])
    }
}

/// The ConsumerGroupHeartbeat calls of the consumer scenarios (v1 unless `_at`).
trait ConsumerCalls: BorrowMut<Harness> {
    fn hb_at(
        &mut self,
        version: i16,
        r: ConsumerGroupHeartbeatRequest,
    ) -> (ConsumerGroupHeartbeatResponse, Vec<Record>) {
        let h: &mut Harness = self.borrow_mut();
        let out = h.consumer_heartbeat(version, &r);
        (out.response, out.records)
    }

    fn hb(
        &mut self,
        r: ConsumerGroupHeartbeatRequest,
    ) -> (ConsumerGroupHeartbeatResponse, Vec<Record>) {
        self.hb_at(1, r)
    }

    /// A heartbeat that succeeds.
    fn ok_at(
        &mut self,
        version: i16,
        r: ConsumerGroupHeartbeatRequest,
    ) -> (ConsumerGroupHeartbeatResponse, Vec<Record>) {
        let (resp, recs) = self.hb_at(version, r);
        assert_eq!(resp.error_code, 0, "{:?}", resp.error_message);
        (resp, recs)
    }

    fn ok(
        &mut self,
        r: ConsumerGroupHeartbeatRequest,
    ) -> (ConsumerGroupHeartbeatResponse, Vec<Record>) {
        self.ok_at(1, r)
    }

    /// A heartbeat that fails: (error code, message), nothing else answered.
    fn err_at(&mut self, version: i16, r: ConsumerGroupHeartbeatRequest) -> (i16, String) {
        let (resp, recs) = self.hb_at(version, r);
        assert!(recs.is_empty());
        assert_eq!(resp.member_id, None);
        assert_eq!(resp.member_epoch, 0);
        assert_eq!(resp.heartbeat_interval_ms, 0);
        assert!(resp.assignment.is_none());
        (
            resp.error_code,
            resp.error_message
                .map(|m| m.to_string())
                .unwrap_or_default(),
        )
    }

    fn err(&mut self, r: ConsumerGroupHeartbeatRequest) -> (i16, String) {
        self.err_at(1, r)
    }

    /// Fires the timers due at `now` ms; the records they wrote.
    fn fire(&mut self, now: i64) -> Vec<Record> {
        let h: &mut Harness = self.borrow_mut();
        h.advance_to(now)
    }

    fn group(&self, g: &str) -> &ConsumerGroup {
        let h: &Harness = self.borrow();
        h.c.group(g).unwrap()
    }

    fn member(&self, g: &str, m: &str) -> &ConsumerGroupMember {
        &self.group(g).members[m]
    }
}

impl ConsumerCalls for Harness {}

pub(crate) fn req(g: &str, m: &str, e: i32) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        group_id: g.to_string().into(),
        member_id: m.to_string().into(),
        member_epoch: e,
        ..Default::default()
    }
}

pub(crate) fn join(g: &str, m: &str, names: &[&str]) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        rebalance_timeout_ms: 5000,
        subscribed_topic_names: Some(names.iter().map(|n| n.to_string().into()).collect()),
        topic_partitions: Some(vec![]),
        ..req(g, m, 0)
    }
}

pub(crate) fn owned(parts: &[(Uuid, &[i32])]) -> Option<Vec<ReqTp>> {
    Some(
        parts
            .iter()
            .map(|(t, ps)| ReqTp {
                topic_id: *t,
                partitions: ps.to_vec().into(),
                ..Default::default()
            })
            .collect(),
    )
}

fn resp_assignment(r: &ConsumerGroupHeartbeatResponse) -> Option<Assignment> {
    r.assignment.as_ref().map(|x| {
        let mut out = Assignment::new();
        for tp in &x.topic_partitions {
            out.entry(tp.topic_id)
                .or_default()
                .extend(tp.partitions.iter());
        }
        out
    })
}

fn kinds(recs: &[Record]) -> Vec<(i16, bool)> {
    recs.iter()
        .map(|r| (r.record_type(), r.is_tombstone()))
        .collect()
}

// ------------------------------------------------------------------------------------------
// 1. Validation

#[test]
fn s01_validation() {
    let mut h = H::new();
    let full = |mut r: ConsumerGroupHeartbeatRequest| {
        r.rebalance_timeout_ms = 5000;
        r.topic_partitions = Some(vec![]);
        r
    };
    let cases: Vec<(ConsumerGroupHeartbeatRequest, i16, &str)> = vec![
        (req("", "m", 0), 42, "GroupId can't be empty."),
        (req("   ", "m", 0), 42, "GroupId can't be empty."),
        (req("foo", "m", 0), 42, "RebalanceTimeoutMs must be provided in first request."),
        (
            ConsumerGroupHeartbeatRequest { rebalance_timeout_ms: 5000, ..req("foo", "m", 0) },
            42,
            "TopicPartitions must be empty when (re-)joining.",
        ),
        (
            full(req("foo", "m", 0)),
            42,
            "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
        ),
        (ConsumerGroupHeartbeatRequest { instance_id: Some("".into()), ..join("foo", "m", &["foo"]) }, 42, "InstanceId can't be empty."),
        (ConsumerGroupHeartbeatRequest { rack_id: Some(" ".into()), ..join("foo", "m", &["foo"]) }, 42, "RackId can't be empty."),
        (
            ConsumerGroupHeartbeatRequest { server_assignor: Some("bar".into()), ..join("foo", "m", &["foo"]) },
            112,
            "ServerAssignor bar is not supported. Supported assignors: range.",
        ),
        (req("foo", "m", -2), 42, "InstanceId can't be null."),
        (req("foo", "m", -3), 42, "MemberEpoch is invalid."),
        (req("foo", "", 1), 42, "MemberId can't be empty."),
        (req("foo", "  ", -1), 42, "MemberId can't be empty."),
    ];
    for (r, code, msg) in cases {
        assert_eq!(h.err(r), (code, msg.to_string()));
    }
    // v0 with an empty member id at epoch 1.
    assert_eq!(
        h.err_at(0, req("foo", "", 1)),
        (42, "MemberId can't be empty.".to_string())
    );
    // v1 requires the member id even at epoch 0.
    assert_eq!(
        h.err(join("foo", "", &["foo"])),
        (42, "MemberId can't be empty.".to_string())
    );
    assert!(h.c.consumer_groups().is_empty());
}

#[test]
fn s02_regex_validation() {
    let mut h = H::new();
    let rx = |m: &str, e: i32, re: &str| ConsumerGroupHeartbeatRequest {
        subscribed_topic_regex: Some(re.to_string().into()),
        subscribed_topic_names: None,
        ..if e == 0 {
            join("g", m, &[])
        } else {
            req("g", m, e)
        }
    };
    assert_eq!(
        h.err(rx("m", 0, "[")),
        (
            128,
            "SubscribedTopicRegex `[` is not a valid regular expression: unclosed character class."
                .to_string()
        )
    );
    let (r, recs) = h.ok(rx("m", 0, ".*"));
    assert_eq!(r.member_epoch, 1);
    assert!(recs.iter().any(|r| r.record_type() == 16));
    let (code, msg) = h.err(rx("m", 1, "["));
    assert_eq!(code, 128);
    assert!(msg.starts_with("SubscribedTopicRegex `[` is not a valid regular expression: "));
    let (r, recs) = h.ok(ConsumerGroupHeartbeatRequest {
        subscribed_topic_names: Some(vec!["foo".into()]),
        ..req("g", "m", 1)
    });
    assert_eq!(r.member_epoch, 2);
    assert!(
        recs.iter().all(|r| r.record_type() != 16),
        "regex unchanged"
    );
    // Whole-name match (docs/coordinator.md, D4): "fo" matches nothing, "fo." matches foo only.
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        topic_partitions: Some(vec![]),
        ..rx("m", 2, "ba.")
    });
    assert_eq!(r.member_epoch, 3);
    assert_eq!(
        h.group("g").regexes["ba."].topics,
        BTreeSet::from(["bar".to_string()])
    );
    // Clearing with "" tombstones the regex and bumps.
    let (r, recs) = h.ok(ConsumerGroupHeartbeatRequest {
        topic_partitions: Some(vec![]),
        ..rx("m", 3, "")
    });
    assert_eq!(r.member_epoch, 4);
    assert!(recs
        .iter()
        .any(|r| r.record_type() == 16 && r.is_tombstone()));
    assert!(h.group("g").regexes.is_empty());
}

#[test]
fn s03_member_id_generation_v0() {
    let mut h = H::with(|_| {}, vec![]);
    h.c.set_topics(vec![], 0);
    let (r, _) = h.ok_at(
        0,
        ConsumerGroupHeartbeatRequest {
            server_assignor: Some("range".into()),
            ..join("group-foo", "", &["foo", "bar"])
        },
    );
    let mid = r.member_id.clone().unwrap();
    assert!(!mid.is_empty());
    assert_eq!(r.member_epoch, 1);
    assert_eq!(r.heartbeat_interval_ms, 5000);
    assert_eq!(resp_assignment(&r), Some(Assignment::new()));
    assert!(h.group("group-foo").members.contains_key(&*mid));
}

#[test]
fn s04_unknown_group() {
    let mut h = H::new();
    assert_eq!(h.err(req("g", "m", 100)).0, 69);
    assert_eq!(h.err(req("g", "m", 100)).1, "Consumer group g not found.");
    assert_eq!(h.err(req("g", "m", -1)).0, 69);
}

#[test]
fn s05_unknown_member() {
    let mut h = H::new();
    h.ok(join("g", "A", &["foo"]));
    assert_eq!(
        h.err(req("g", "random", 1)),
        (25, "Member random is not a member of group g.".to_string())
    );
}

#[test]
fn s06_member_epoch_validation() {
    let mut recs =
        stable_consumer_group("g", 100, &[("M", None, &["foo"], a(&[(FOO, &[1, 2, 3])]))]);
    if let Some(Record::Consumer(ConsumerRecord::CurrentMemberAssignment(_, Some(v)))) =
        recs.last_mut()
    {
        v.previous_member_epoch = 99;
    }
    let mut h = H::with(|_| {}, recs);
    assert_eq!(h.err(req("g", "M", 200)).0, 110);
    assert_eq!(h.err(req("g", "M", 50)).0, 110);
    assert_eq!(h.err(req("g", "M", 99)).0, 110);
    assert_eq!(
        h.err(ConsumerGroupHeartbeatRequest {
            topic_partitions: owned(&[(FOO, &[1, 2, 4])]),
            ..req("g", "M", 99)
        })
        .0,
        110
    );
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        topic_partitions: owned(&[(FOO, &[1, 2])]),
        ..req("g", "M", 99)
    });
    assert_eq!(r.member_epoch, 100);
}

#[test]
fn s07_max_size() {
    let mut h = H::with(|c| c.max_size = 2, vec![]);
    h.ok(join("g", "M1", &["foo"]));
    h.ok(join("g", "M2", &["foo"]));
    assert_eq!(
        h.err(join("g", "M3", &["foo"])),
        (
            81,
            "The consumer group has reached its maximum capacity of 2 members.".to_string()
        )
    );
    // An existing member rejoining under its own id is never rejected.
    h.ok(join("g", "M1", &["foo"]));
}

// ------------------------------------------------------------------------------------------
// Join, subscription and reconciliation

#[test]
fn s08_member_joins_empty_group() {
    let mut h = H::new();
    h.assignor.set(vec![(
        "M",
        a(&[(FOO, &[0, 1, 2, 3, 4, 5]), (BAR, &[0, 1, 2])]),
    )]);
    let (r, recs) = h.ok(join("g", "M", &["foo", "bar"]));
    assert_eq!(r.member_epoch, 1);
    assert_eq!(r.heartbeat_interval_ms, 5000);
    assert_eq!(
        resp_assignment(&r),
        Some(a(&[(FOO, &[0, 1, 2, 3, 4, 5]), (BAR, &[0, 1, 2])]))
    );
    let m = h.member("g", "M");
    assert_eq!(
        (m.state, m.member_epoch, m.previous_member_epoch),
        (MemberState::Stable, 1, 0)
    );
    let g = h.group("g");
    assert_eq!(
        (g.group_epoch, g.assignment_epoch, g.state),
        (1, 1, GroupState::Stable)
    );
    assert_eq!(
        kinds(&recs),
        vec![(5, false), (3, false), (7, false), (6, false), (8, false)]
    );
    assert_eq!(h.c.session_deadline("g", "M"), Some(45000));
}

fn ten() -> Vec<Record> {
    stable_consumer_group(
        "g",
        10,
        &[
            (
                "M1",
                None,
                &["foo", "bar"],
                a(&[(FOO, &[0, 1, 2]), (BAR, &[0, 1])]),
            ),
            (
                "M2",
                None,
                &["foo", "bar"],
                a(&[(FOO, &[3, 4, 5]), (BAR, &[2])]),
            ),
        ],
    )
}

#[test]
fn s09_updating_subscription_triggers_new_target() {
    let mut h = H::with(
        |_| {},
        stable_consumer_group(
            "g",
            10,
            &[("M", None, &["foo"], a(&[(FOO, &[0, 1, 2, 3, 4, 5])]))],
        ),
    );
    h.assignor.set(vec![(
        "M",
        a(&[(FOO, &[0, 1, 2, 3, 4, 5]), (BAR, &[0, 1, 2])]),
    )]);
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        subscribed_topic_names: Some(vec!["foo".into(), "bar".into()]),
        ..req("g", "M", 10)
    });
    assert_eq!(h.group("g").group_epoch, 11);
    assert_eq!(r.member_epoch, 11);
    assert_eq!(
        resp_assignment(&r),
        Some(a(&[(FOO, &[0, 1, 2, 3, 4, 5]), (BAR, &[0, 1, 2])]))
    );
}

#[test]
fn s10_new_member_triggers_new_target() {
    let mut h = H::with(|_| {}, ten());
    h.assignor.set(vec![
        ("M1", a(&[(FOO, &[0, 1]), (BAR, &[0])])),
        ("M2", a(&[(FOO, &[2, 3]), (BAR, &[1])])),
        ("M3", a(&[(FOO, &[4, 5]), (BAR, &[2])])),
    ]);
    let (r, recs) = h.ok(join("g", "M3", &["foo", "bar"]));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(resp_assignment(&r), Some(Assignment::new()));
    let m = h.member("g", "M3");
    assert_eq!(
        (m.state, m.member_epoch, m.previous_member_epoch),
        (MemberState::UnreleasedPartitions, 11, 0)
    );
    assert_eq!(
        kinds(&recs),
        vec![
            (5, false),
            (3, false),
            (7, false),
            (7, false),
            (7, false),
            (6, false),
            (8, false)
        ]
    );
}

#[test]
fn s11_reconciliation_process() {
    let mut h = H::with(|_| {}, ten());
    h.assignor.set(vec![
        ("M1", a(&[(FOO, &[0, 1]), (BAR, &[0])])),
        ("M2", a(&[(FOO, &[2, 3]), (BAR, &[2])])),
        ("M3", a(&[(FOO, &[4, 5]), (BAR, &[1])])),
    ]);
    let (r, _) = h.ok(join("g", "M3", &["foo", "bar"]));
    assert_eq!(
        (r.member_epoch, resp_assignment(&r)),
        (11, Some(Assignment::new()))
    );
    assert_eq!(h.member("g", "M3").state, MemberState::UnreleasedPartitions);
    assert_eq!(h.group("g").state, GroupState::Reconciling);
    let (r, _) = h.ok(req("g", "M1", 10));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(resp_assignment(&r), Some(a(&[(FOO, &[0, 1]), (BAR, &[0])])));
    let m = h.member("g", "M1");
    assert_eq!(
        (m.state, m.previous_member_epoch),
        (MemberState::UnrevokedPartitions, 10)
    );
    assert_eq!(m.pending_revocation, a(&[(FOO, &[2]), (BAR, &[1])]));
    assert!(h.c.rebalance_deadline("g", "M1").is_some());
    // Continue the process: M2 revokes foo{4,5}; M1 acks its revocation; M3 gets everything.
    let (r, _) = h.ok(req("g", "M2", 10));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(resp_assignment(&r), Some(a(&[(FOO, &[3]), (BAR, &[2])])));
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        topic_partitions: owned(&[(FOO, &[0, 1]), (BAR, &[0])]),
        ..req("g", "M1", 10)
    });
    assert_eq!(r.member_epoch, 11);
    assert_eq!(h.member("g", "M1").state, MemberState::Stable);
    assert!(h.c.rebalance_deadline("g", "M1").is_none());
    // M3 gets bar{1} (released by M1) but still waits for foo{4,5}.
    let (r, _) = h.ok(req("g", "M3", 11));
    assert_eq!(resp_assignment(&r), Some(a(&[(BAR, &[1])])));
    assert_eq!(h.member("g", "M3").state, MemberState::UnreleasedPartitions);
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        topic_partitions: owned(&[(FOO, &[3]), (BAR, &[2])]),
        ..req("g", "M2", 10)
    });
    assert_eq!(r.member_epoch, 11);
    assert_eq!(resp_assignment(&r), Some(a(&[(FOO, &[2, 3]), (BAR, &[2])])));
    let (r, _) = h.ok(req("g", "M3", 11));
    assert_eq!(resp_assignment(&r), Some(a(&[(FOO, &[4, 5]), (BAR, &[1])])));
    assert_eq!(h.group("g").state, GroupState::Stable);
}

#[test]
fn s16_full_response() {
    let mut h = H::new();
    h.c.set_topics(
        vec![
            TopicMetadata::new(FOO, "foo", 2),
            TopicMetadata::new(BAR, "bar", 0),
        ],
        0,
    );
    let (r, _) = h.ok(join("g", "M", &["foo"]));
    assert_eq!(
        (r.member_epoch, resp_assignment(&r)),
        (1, Some(a(&[(FOO, &[0, 1])])))
    );
    let (r, _) = h.ok(req("g", "M", 1));
    assert_eq!(
        (
            r.member_epoch,
            r.heartbeat_interval_ms,
            r.assignment.is_none()
        ),
        (1, 5000, true)
    );
    h.assignor.set(vec![("M", a(&[(FOO, &[0, 1])]))]);
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        server_assignor: Some("range".into()),
        ..join("g", "M", &["foo", "bar"])
    }
    .with_epoch(1));
    assert_eq!(resp_assignment(&r), Some(a(&[(FOO, &[0, 1])])));
}

trait WithEpoch {
    fn with_epoch(self, e: i32) -> Self;
}
impl WithEpoch for ConsumerGroupHeartbeatRequest {
    fn with_epoch(mut self, e: i32) -> Self {
        self.member_epoch = e;
        self
    }
}

// ------------------------------------------------------------------------------------------
// Leave and static membership

#[test]
fn s17_leaving_member_bumps_group_epoch() {
    let recs = stable_consumer_group(
        "g",
        10,
        &[
            (
                "M1",
                None,
                &["foo", "bar"],
                a(&[(FOO, &[0, 1, 2]), (BAR, &[0, 1])]),
            ),
            (
                "M2",
                None,
                &["foo", "bar", "zar"],
                a(&[(FOO, &[3, 4, 5]), (BAR, &[2])]),
            ),
        ],
    );
    let mut h = H::with(|_| {}, recs);
    let (r, recs) = h.ok(req("g", "M2", -1));
    assert_eq!(
        (
            r.member_id.as_deref(),
            r.member_epoch,
            r.heartbeat_interval_ms,
            r.assignment.is_none()
        ),
        (Some("M2"), -1, 0, true)
    );
    assert_eq!(
        kinds(&recs),
        vec![(8, true), (7, true), (5, true), (3, false)]
    );
    assert_eq!(h.group("g").group_epoch, 11);
    assert_eq!(h.group("g").state, GroupState::Assigning);
    assert_eq!(h.c.session_deadline("g", "M2"), None);
}

#[test]
fn s18_leaving_static_member_bumps_group_epoch() {
    let recs = stable_consumer_group(
        "g",
        10,
        &[
            (
                "M1",
                Some("M1"),
                &["foo", "bar"],
                a(&[(FOO, &[0, 1, 2]), (BAR, &[0, 1])]),
            ),
            (
                "M2",
                Some("M2"),
                &["foo", "bar", "zar"],
                a(&[(FOO, &[3, 4, 5]), (BAR, &[2])]),
            ),
        ],
    );
    let mut h = H::with(|_| {}, recs);
    let (r, recs) = h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("M2".into()),
        ..req("g", "M2", -1)
    });
    assert_eq!((r.member_id.as_deref(), r.member_epoch), (Some("M2"), -1));
    assert_eq!(
        kinds(&recs),
        vec![(8, true), (7, true), (5, true), (3, false)]
    );
}

fn static_ten(m2_names: &'static [&'static str], m2: Assignment) -> Vec<Record> {
    stable_consumer_group(
        "g",
        10,
        &[
            (
                "M1",
                Some("I1"),
                &["foo", "bar"],
                a(&[(FOO, &[0, 1, 2]), (BAR, &[0, 1])]),
            ),
            ("M2", Some("I2"), m2_names, m2),
        ],
    )
}

#[test]
fn s19_static_member_gets_back_assignment_upon_rejoin() {
    let mut h = H::with(
        |_| {},
        static_ten(&["foo", "bar"], a(&[(FOO, &[3, 4, 5]), (BAR, &[2])])),
    );
    let (r, recs) = h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I2".into()),
        ..req("g", "M2", -2)
    });
    assert_eq!((r.member_id.as_deref(), r.member_epoch), (Some("M2"), -2));
    assert_eq!(kinds(&recs), vec![(8, false)]);
    assert_eq!(h.member("g", "M2").member_epoch, -2);
    let (r, recs) = h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I2".into()),
        ..join("g", "M2b", &["foo", "bar"])
    });
    assert_eq!(r.member_epoch, 10);
    assert_eq!(
        resp_assignment(&r),
        Some(a(&[(FOO, &[3, 4, 5]), (BAR, &[2])]))
    );
    assert_eq!(
        kinds(&recs),
        vec![
            (8, true),
            (7, true),
            (5, true),
            (5, false),
            (7, false),
            (8, false),
            (8, false)
        ]
    );
    let m = h.member("g", "M2b");
    assert_eq!(
        (m.member_epoch, m.previous_member_epoch, m.state),
        (10, 0, MemberState::Stable)
    );
    assert_eq!(h.group("g").group_epoch, 10);
    assert!(!h.group("g").members.contains_key("M2"));
    // The old member's session timer fires as a no-op.
    let _ = h.fire(45_000);
    assert!(h.group("g").members.contains_key("M2b") || h.group("g").members.is_empty());
}

#[test]
fn s20_static_member_rejoins_with_new_subscribed_topics() {
    let mut h = H::with(|_| {}, static_ten(&["foo"], a(&[(FOO, &[3, 4, 5])])));
    h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I2".into()),
        ..req("g", "M2", -2)
    });
    h.assignor.set(vec![
        ("M1", a(&[(FOO, &[0, 1, 2]), (BAR, &[])])),
        ("M2b", a(&[(FOO, &[3, 4, 5]), (BAR, &[0, 1, 2])])),
    ]);
    // M1 must give bar{0,1} up first, so the preset keeps bar for M2b free only after revocation.
    let (r, recs) = h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I2".into()),
        ..join("g", "M2b", &["foo", "bar"])
    });
    assert_eq!(r.member_epoch, 11);
    let k = kinds(&recs);
    assert_eq!(
        &k[..6],
        &[
            (8, true),
            (7, true),
            (5, true),
            (5, false),
            (7, false),
            (8, false)
        ]
    );
    assert_eq!(k[6], (5, false));
    assert_eq!(k[7], (3, false));
    assert_eq!(h.group("g").group_epoch, 11);
    // bar{0,1} still owned by M1: M2b gets foo{3,4,5} bar{2} now.
    assert_eq!(
        resp_assignment(&r),
        Some(a(&[(FOO, &[3, 4, 5]), (BAR, &[2])]))
    );
}

#[test]
fn s20b_static_rejoin_new_subscription_free_partitions() {
    // As scenario 20 with every partition free: the response is foo{3,4,5} bar{0,1,2}.
    let recs = stable_consumer_group(
        "g",
        10,
        &[
            ("M1", Some("I1"), &["foo"], a(&[(FOO, &[0, 1, 2])])),
            ("M2", Some("I2"), &["foo"], a(&[(FOO, &[3, 4, 5])])),
        ],
    );
    let mut h = H::with(|_| {}, recs);
    h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I2".into()),
        ..req("g", "M2", -2)
    });
    h.assignor.set(vec![
        ("M1", a(&[(FOO, &[0, 1, 2])])),
        ("M2b", a(&[(FOO, &[3, 4, 5]), (BAR, &[0, 1, 2])])),
    ]);
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I2".into()),
        ..join("g", "M2b", &["foo", "bar"])
    });
    assert_eq!(r.member_epoch, 11);
    assert_eq!(
        resp_assignment(&r),
        Some(a(&[(FOO, &[3, 4, 5]), (BAR, &[0, 1, 2])]))
    );
}

#[test]
fn s21_unreleased_instance_id() {
    let mut h = H::with(|_| {}, static_ten(&["foo"], a(&[(FOO, &[3, 4, 5])])));
    let (code, msg) = h.err(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I1".into()),
        ..join("g", "M9", &["foo"])
    });
    assert_eq!(code, 111);
    assert_eq!(msg, "Static member M9 with instance id I1 cannot join the group because the instance id is owned by M1 member.");
}

#[test]
fn s22_unknown_static_member() {
    let mut h = H::with(|_| {}, static_ten(&["foo"], a(&[(FOO, &[3, 4, 5])])));
    let (code, msg) = h.err(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I9".into()),
        ..req("g", "M1", 10)
    });
    assert_eq!((code, msg.as_str()), (25, "Instance id I9 is unknown."));
    let (code, _) = h.err(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I9".into()),
        ..req("g", "M1", -2)
    });
    assert_eq!(code, 25);
}

#[test]
fn s23_fenced_instance_id() {
    let mut h = H::with(|_| {}, static_ten(&["foo"], a(&[(FOO, &[3, 4, 5])])));
    let (code, msg) = h.err(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I1".into()),
        ..req("g", "unknown-M1", 11)
    });
    assert_eq!(
        (code, msg.as_str()),
        (
            82,
            "Static member unknown-M1 with instance id I1 was fenced by member M1."
        )
    );
    let (code, _) = h.err(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I1".into()),
        ..req("g", "unknown-M1", -2)
    });
    assert_eq!(code, 82);
}

// ------------------------------------------------------------------------------------------
// Timers, states and assignor failure

#[test]
fn s24_session_timeout() {
    let mut h = H::new();
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        rebalance_timeout_ms: 90000,
        ..join("g", "M", &["foo"])
    });
    assert_eq!(r.member_epoch, 1);
    assert_eq!(h.c.session_deadline("g", "M"), Some(45000));
    assert_eq!(h.c.next_deadline(), Some(45000));
    assert!(h.fire(44_999).is_empty());
    let recs = h.fire(45_001);
    assert_eq!(
        kinds(&recs),
        vec![(8, true), (7, true), (5, true), (3, false)]
    );
    assert_eq!(h.group("g").group_epoch, 2);
    assert_eq!(h.c.next_deadline(), None);
}

#[test]
fn s25_session_timeout_static_member() {
    let mut h = H::new();
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I".into()),
        ..join("g", "M", &["foo"])
    });
    assert_eq!(r.member_epoch, 1);
    h.now = 1000;
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        instance_id: Some("I".into()),
        ..req("g", "M", -2)
    });
    assert_eq!(r.member_epoch, -2);
    assert_eq!(h.c.session_deadline("g", "M"), Some(45000));
    let recs = h.fire(45_001);
    assert_eq!(
        kinds(&recs),
        vec![(8, true), (7, true), (5, true), (3, false)]
    );
    assert_eq!(h.group("g").group_epoch, 2);
}

#[test]
fn s27_group_states_on_replay() {
    let mut log = vec![
        Record::group_epoch("g", 10, 0),
        Record::target_epoch("g", 10),
    ];
    assert_eq!(replay(&log).consumer["g"].state, GroupState::Empty);
    let mut m = ConsumerGroupMember::new("M");
    m.subscribed_topic_names = BTreeSet::from(["foo".to_string()]);
    log.push(Record::member_metadata("g", &m));
    log.push(Record::group_epoch("g", 11, 0));
    assert_eq!(replay(&log).consumer["g"].state, GroupState::Assigning);
    log.push(Record::target("g", "M", &a(&[(FOO, &[1, 2, 3])])));
    log.push(Record::target_epoch("g", 11));
    assert_eq!(replay(&log).consumer["g"].state, GroupState::Reconciling);
    m.member_epoch = 11;
    m.previous_member_epoch = 10;
    m.state = MemberState::UnrevokedPartitions;
    m.assigned = a(&[(FOO, &[1, 2])]);
    m.pending_revocation = a(&[(FOO, &[3])]);
    log.push(Record::current("g", &m));
    assert_eq!(replay(&log).consumer["g"].state, GroupState::Reconciling);
    m.state = MemberState::Stable;
    m.assigned = a(&[(FOO, &[1, 2, 3])]);
    m.pending_revocation = Assignment::new();
    log.push(Record::current("g", &m));
    let g = replay(&log).consumer;
    assert_eq!(g["g"].state, GroupState::Stable);
    assert_eq!(g["g"].partition_epoch(FOO, 3), Some(11));
    assert_eq!(g["g"].partition_epoch(FOO, 4), None);
}

#[test]
fn s28_assignor_failure() {
    let mut h = H::new();
    *h.assignor.fail.lock().unwrap() = true;
    let (resp, recs) = h.hb(join("g", "M", &["foo"]));
    assert_eq!((resp.error_code, resp.error_message.is_none()), (-1, true));
    assert!(recs.is_empty());
    assert!(h.c.group("g").is_none());
}

// ------------------------------------------------------------------------------------------
// Describe

#[test]
fn s29_describe() {
    let mut m = ConsumerGroupMember::new("M");
    m.server_assignor = Some("assignorName".into());
    let log = vec![
        Record::group_epoch("g1", 10, 0),
        Record::member_metadata("g2", &m),
        Record::group_epoch("g2", 10, 0),
    ];
    let h = H::with(|_| {}, log);
    let ctx = RequestContext::new("c", "h", 1);
    let resp = h.c.consumer_group_describe(
        &ctx,
        &ConsumerGroupDescribeRequest {
            group_ids: vec!["g1".into(), "g2".into(), "nope".into(), "".into()],
            ..Default::default()
        },
    );
    let g1 = &resp.groups[0];
    assert_eq!(
        (
            &*g1.group_id,
            &*g1.group_state,
            g1.group_epoch,
            g1.assignment_epoch,
            &*g1.assignor_name,
            g1.members.len(),
            g1.error_code
        ),
        ("g1", "Empty", 10, 0, "range", 0, 0)
    );
    let g2 = &resp.groups[1];
    assert_eq!(
        (&*g2.group_state, &*g2.assignor_name),
        ("Assigning", "assignorName")
    );
    assert_eq!(g2.members.len(), 1);
    assert!(g2.members[0].assignment.topic_partitions.is_empty());
    assert!(g2.members[0].target_assignment.topic_partitions.is_empty());
    assert_eq!(g2.members[0].member_type, 1);
    let g3 = &resp.groups[2];
    assert_eq!(
        (&*g3.group_id, g3.error_code, g3.error_message.as_deref()),
        ("nope", 69, Some("Group nope not found."))
    );
    let g4 = &resp.groups[3];
    assert_eq!((&*g4.group_id, g4.error_code), ("", 24));
}

#[test]
fn describe_shows_assignment_with_names() {
    let mut h = H::new();
    h.assignor
        .set(vec![("M", a(&[(FOO, &[0, 1]), (BAR, &[2])]))]);
    h.ok(ConsumerGroupHeartbeatRequest {
        rack_id: Some("r1".into()),
        ..join("g", "M", &["foo", "bar"])
    });
    let resp = h.c.consumer_group_describe(
        &RequestContext::default(),
        &ConsumerGroupDescribeRequest {
            group_ids: vec!["g".into()],
            ..Default::default()
        },
    );
    let g = &resp.groups[0];
    assert_eq!(&*g.group_state, "Stable");
    let m = &g.members[0];
    assert_eq!(
        (m.member_epoch, m.rack_id.as_deref(), &*m.client_id),
        (1, Some("r1"), "client")
    );
    let names: Vec<&str> = m
        .assignment
        .topic_partitions
        .iter()
        .map(|t| &*t.topic_name)
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"foo") && names.contains(&"bar"));
}

#[test]
fn s33_unknown_state_through_heartbeat() {
    let mut recs = stable_consumer_group("g", 11, &[("M", None, &["foo"], a(&[(FOO, &[0])]))]);
    if let Some(Record::Consumer(ConsumerRecord::CurrentMemberAssignment(_, Some(v)))) =
        recs.last_mut()
    {
        v.state = 99;
    }
    let mut h = H::with(|_| {}, recs);
    assert_eq!(h.member("g", "M").state, MemberState::Unknown);
    assert_eq!(h.err(req("g", "M", 11)).0, 110);
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        topic_partitions: Some(vec![]),
        ..req("g", "M", 11)
    });
    assert_eq!(r.member_epoch, 11);
    assert_eq!(h.member("g", "M").state, MemberState::Stable);
}

#[test]
fn rejoin_with_epoch_zero_is_accepted() {
    let mut h = H::with(|_| {}, ten());
    let (r, recs) = h.ok(join("g", "M1", &["foo", "bar"]));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(
        resp_assignment(&r),
        Some(a(&[(FOO, &[0, 1, 2]), (BAR, &[0, 1])]))
    );
    assert!(recs.is_empty());
}

#[test]
fn rebalance_timeout_fences_unrevoked_member() {
    let mut h = H::with(|_| {}, ten());
    h.assignor.set(vec![
        ("M1", a(&[(FOO, &[0, 1, 2])])),
        ("M2", a(&[(FOO, &[3, 4, 5]), (BAR, &[0, 1, 2])])),
    ]);
    h.now = 100;
    h.ok(join("g", "M3", &["zar"]));
    let (r, _) = h.ok(req("g", "M1", 10));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(h.c.rebalance_deadline("g", "M1"), Some(5100));
    let recs = h.fire(5100);
    assert_eq!(
        kinds(&recs),
        vec![(8, true), (7, true), (5, true), (3, false)]
    );
    assert!(!h.group("g").members.contains_key("M1"));
}

#[test]
fn metadata_change_bumps_epoch_and_retargets() {
    let mut h = H::new();
    h.ok(join("g", "M", &["foo"]));
    assert_eq!(h.group("g").group_epoch, 1);
    let recs = h.c.set_topics(
        vec![
            TopicMetadata::new(FOO, "foo", 8),
            TopicMetadata::new(BAR, "bar", 3),
        ],
        10,
    );
    h.absorb(&recs);
    assert_eq!(kinds(&recs), vec![(3, false)]);
    assert_eq!(h.group("g").group_epoch, 2);
    assert_eq!(h.group("g").state, GroupState::Assigning);
    let (r, _) = h.ok(req("g", "M", 1));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(
        resp_assignment(&r),
        Some(a(&[(FOO, &[0, 1, 2, 3, 4, 5, 6, 7])]))
    );
    // Unrelated topic changes do not bump.
    let recs = h.c.set_topics(
        vec![
            TopicMetadata::new(FOO, "foo", 8),
            TopicMetadata::new(BAR, "bar", 9),
        ],
        20,
    );
    assert!(recs.is_empty());
}

#[test]
fn regex_resolution_follows_metadata() {
    let mut h = H::new();
    let (r, _) = h.ok(ConsumerGroupHeartbeatRequest {
        subscribed_topic_regex: Some("new.*".into()),
        ..join("g", "M", &[])
    });
    assert_eq!(r.member_epoch, 1);
    assert_eq!(resp_assignment(&r), Some(Assignment::new()));
    let nt = Uuid::from_u128(0x999);
    let mut t = topics();
    t.push(TopicMetadata::new(nt, "new-topic", 2));
    let recs = h.c.set_topics(t, 50);
    h.absorb(&recs);
    assert_eq!(kinds(&recs), vec![(16, false), (3, false)]);
    let (r, _) = h.ok(req("g", "M", 1));
    assert_eq!(
        (r.member_epoch, resp_assignment(&r)),
        (2, Some(a(&[(nt, &[0, 1])])))
    );
}

#[test]
fn config_bounds() {
    let mut c = ConsumerGroupConfig::with_assignors(vec![Preset::new("range")]);
    assert!(c.validate().is_ok());
    c.session_timeout_ms = 44_999;
    assert!(c.validate().is_err());
    c.session_timeout_ms = 45_000;
    c.heartbeat_interval_ms = 16_000;
    assert!(c.validate().is_err());
    c.heartbeat_interval_ms = 5000;
    c.max_size = 0;
    assert!(c.validate().is_err());
    c.max_size = 1;
    c.assignors.push(Preset::new("range"));
    assert!(c.validate().is_err());
    let mut h = H::new();
    assert!(h
        .c
        .set_group_config(
            "g",
            GroupConfig {
                session_timeout_ms: Some(60_001),
                heartbeat_interval_ms: None
            }
        )
        .is_err());
    h.c.set_group_config(
        "g",
        GroupConfig {
            session_timeout_ms: Some(50_000),
            heartbeat_interval_ms: Some(6000),
        },
    )
    .unwrap();
    let (r, _) = h.ok(join("g", "M", &["foo"]));
    assert_eq!(r.heartbeat_interval_ms, 6000);
    assert_eq!(h.c.session_deadline("g", "M"), Some(50_000));
}

#[test]
fn preferred_assignor_ties_follow_configured_order() {
    let first = Preset::new("first");
    let second = Preset::new("second");
    second.set(vec![]);
    *first.fail.lock().unwrap() = false;
    let cfg = ConsumerGroupConfig::with_assignors(vec![first.clone(), second.clone()]);
    let mut c = GroupCoordinator::new(cfg, Box::new(SequentialMemberIds::new(1))).unwrap();
    c.set_topics(topics(), 0);
    let ctx = RequestContext::new("c", "h", 1);
    // One vote each: the tie goes to the configured order ("first").
    *second.fail.lock().unwrap() = true;
    let r = c.consumer_group_heartbeat(
        &ctx,
        &ConsumerGroupHeartbeatRequest {
            server_assignor: Some("second".into()),
            ..join("g", "A", &["foo"])
        },
        0,
    );
    assert_eq!(
        r.response.error_code, -1,
        "only 'second' is named, so it is used"
    );
    *second.fail.lock().unwrap() = false;
    c.consumer_group_heartbeat(
        &ctx,
        &ConsumerGroupHeartbeatRequest {
            server_assignor: Some("second".into()),
            ..join("g", "A", &["foo"])
        },
        0,
    );
    *second.fail.lock().unwrap() = true;
    let r = c.consumer_group_heartbeat(
        &ctx,
        &ConsumerGroupHeartbeatRequest {
            server_assignor: Some("first".into()),
            ..join("g", "B", &["foo"])
        },
        0,
    );
    assert_eq!(
        r.response.error_code, 0,
        "tie: 'first' wins by configured order"
    );
}

#[test]
fn s35_range_assignor_through_the_coordinator() {
    let (t1, t2, t3) = (
        Uuid::from_u128(0x71),
        Uuid::from_u128(0x72),
        Uuid::from_u128(0x73),
    );
    let cfg = ConsumerGroupConfig::with_assignors(vec![Arc::new(
        crate::coordinator::consumer::assignor::RangeAssignor,
    )]);
    let mut c = GroupCoordinator::new(cfg, Box::new(SequentialMemberIds::new(1))).unwrap();
    c.set_topics(
        vec![
            TopicMetadata::new(t1, "t1", 3),
            TopicMetadata::new(t2, "t2", 3),
            TopicMetadata::new(t3, "t3", 2),
        ],
        0,
    );
    let ctx = RequestContext::new("c", "h", 1);
    for (m, names) in [
        ("A", &["t1", "t2"][..]),
        ("B", &["t3"][..]),
        ("C", &["t2", "t3"][..]),
    ] {
        let r = c.consumer_group_heartbeat(&ctx, &join("g", m, names), 0);
        assert_eq!(r.response.error_code, 0);
    }
    let g = c.group("g").unwrap();
    assert_eq!(g.targets["A"], a(&[(t1, &[0, 1, 2]), (t2, &[0, 1])]));
    assert_eq!(g.targets["B"], a(&[(t3, &[0])]));
    assert_eq!(g.targets["C"], a(&[(t2, &[2]), (t3, &[1])]));
}

#[test]
fn odd_inputs_do_not_panic() {
    let mut h = H::new();
    h.ok(join("g", "M", &["foo", "foo", "nope"]));
    // Unknown topic ids, negative and duplicate partitions in the owned list.
    let (r, _) = h.hb(ConsumerGroupHeartbeatRequest {
        topic_partitions: owned(&[(Uuid::from_u128(42), &[-1, -1, i32::MAX]), (FOO, &[0, 0])]),
        rebalance_timeout_ms: -7,
        ..req("g", "M", 1)
    });
    assert_eq!(r.error_code, 0);
    let (r, _) = h.hb(req("g", "M", i32::MAX));
    assert_eq!(r.error_code, 110);
    let (r, _) = h.hb(req("g", "M", i32::MIN));
    assert_eq!(r.error_code, 42);
    let (r, _) = h.hb(ConsumerGroupHeartbeatRequest {
        subscribed_topic_regex: Some("(?P<x".into()),
        ..req("g", "M", 1)
    });
    assert_eq!(r.error_code, 128);
}

/// OffsetCommit / OffsetFetch member checks (KIP-848, Kafka's `validateOffsetCommit` and
/// `validateOffsetFetch`).
#[test]
fn offset_commit_and_fetch_member_checks() {
    let mut h = H::new();
    // No group yet: an admin commit is fine; a member commit names a group that does not exist.
    assert_eq!(
        h.c.validate_offset_commit("g", "", -1, 9),
        ErrorCode::None.code()
    );
    assert_eq!(
        h.c.validate_offset_commit("g", "m1", 3, 9),
        ErrorCode::GroupIdNotFound.code()
    );
    assert_eq!(
        h.c.validate_offset_commit("g", "m1", 3, 8),
        ErrorCode::IllegalGeneration.code()
    );
    assert_eq!(
        h.c.validate_offset_fetch("g", "m1", 3),
        ErrorCode::None.code()
    );
    let (resp, _) = h.ok(join("g", "m1", &["foo"]));
    let e = resp.member_epoch;
    assert_eq!(
        h.c.validate_offset_commit("g", "m1", e, 9),
        ErrorCode::None.code()
    );
    assert_eq!(
        h.c.validate_offset_commit("g", "m1", e + 1, 9),
        ErrorCode::StaleMemberEpoch.code()
    );
    assert_eq!(
        h.c.validate_offset_commit("g", "m9", e, 9),
        ErrorCode::UnknownMemberId.code()
    );
    // The group has a member: commits from outside the group are refused, fetches are not.
    assert_eq!(
        h.c.validate_offset_commit("g", "", -1, 9),
        ErrorCode::UnknownMemberId.code()
    );
    assert_eq!(
        h.c.validate_offset_fetch("g", "", -1),
        ErrorCode::None.code()
    );
    assert_eq!(
        h.c.validate_offset_fetch("g", "m1", e - 1),
        ErrorCode::StaleMemberEpoch.code()
    );
    assert_eq!(
        h.c.validate_offset_fetch("g", "m9", e),
        ErrorCode::UnknownMemberId.code()
    );
    assert_eq!(
        h.c.validate_offset_fetch("g", "m1", e),
        ErrorCode::None.code()
    );
}
