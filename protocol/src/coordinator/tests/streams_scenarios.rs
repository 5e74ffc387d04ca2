//! Streams-group scenarios taken from Kafka's tests (`GroupCoordinatorServiceTest` request
//! validation, `GroupMetadataManagerTest` joins; scenario numbers 37-39 are kwire's), the
//! topology-update rules of departure D1, and the rest of docs/coordinator.md §2 (leave,
//! shutdown, endpoints, delay, offsets, timers), run against [`GroupCoordinator`]. After every step the streams state is compared with
//! `replay` of every record emitted so far (docs/coordinator.md, D6).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::borrow::BorrowMut;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::harness::groups::{
    answered_tasks, streams_beat as beat, streams_harness, streams_join as join,
    subtopology as sub, tasks, topic, topology,
};
use super::harness::Harness;
use crate::coordinator::streams::assignor::{GroupSpec, TaskAssignor};
use crate::coordinator::streams::tasks::{TaskSet, TasksTuple};
use crate::coordinator::streams::*;
use crate::coordinator::{
    ConsumerGroupConfig, GroupCoordinator, Record, RequestContext, SequentialMemberIds,
    StreamsHeartbeatOutput, TopicMetadata,
};
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use crate::generated::streams_group_describe_response as describe;
use crate::generated::streams_group_heartbeat_request as rq;
use crate::generated::streams_group_heartbeat_response::{
    self as hb, StreamsGroupHeartbeatResponse,
};

fn resp_tasks(l: &Option<Vec<hb::TaskIds>>) -> Option<TaskSet> {
    l.as_deref().map(answered_tasks)
}

fn statuses(r: &StreamsGroupHeartbeatResponse) -> Vec<(i8, String)> {
    r.status
        .iter()
        .flatten()
        .map(|s| (s.status_code, s.status_detail.to_string()))
        .collect()
}

/// A streams coordinator with an initial rebalance delay of `delay_ms` and `topics`, checking
/// [`no_task_twice`] at every step.
fn harness(delay_ms: i32, topics: Vec<TopicMetadata>) -> Harness {
    let cfg = StreamsGroupConfig {
        initial_rebalance_delay_ms: delay_ms,
        ..Default::default()
    };
    streams_harness(cfg, topics).invariant(no_task_twice)
}

/// No task is active in two places; no process holds one task twice.
fn no_task_twice(c: &GroupCoordinator) {
    // No task is active in two places; no process holds one task twice.
    for g in c.streams_groups().values() {
        let mut active: BTreeMap<(String, i32), &str> = BTreeMap::new();
        let mut per_process: BTreeMap<(String, String, i32), &str> = BTreeMap::new();
        for m in g.members.values() {
            // A member changing a task's role in place (§2.5) may hold it in its
            // assignment and, in another role, pending revocation.
            let mut mine = BTreeSet::new();
            for (pending, t) in [(false, &m.assigned), (true, &m.pending_revocation)] {
                for (role, s, p) in t.iter() {
                    if role == tasks::TaskRole::Active {
                        if let Some(o) = active.insert((s.to_string(), p), &m.member_id) {
                            panic!("task {s}:{p} active in {o} and {}", m.member_id);
                        }
                    }
                    if !mine.insert((s.to_string(), p)) && pending {
                        continue;
                    }
                    if let Some(o) =
                        per_process.insert((m.process_id.clone(), s.to_string(), p), &m.member_id)
                    {
                        panic!(
                            "process {} holds {s}:{p} twice ({o}, {})",
                            m.process_id, m.member_id
                        );
                    }
                }
            }
        }
    }
}

/// The calls of this file (StreamsGroupHeartbeat and StreamsGroupDescribe at v0, group `g`).
trait StreamsCalls: BorrowMut<Harness> {
    fn hb(&mut self, r: rq::StreamsGroupHeartbeatRequest) -> StreamsHeartbeatOutput {
        let h: &mut Harness = self.borrow_mut();
        h.streams_heartbeat(0, &r)
    }

    fn group(&self) -> &StreamsGroup {
        let h: &Harness = self.borrow();
        &h.c.streams_groups()["g"]
    }

    fn describe(&self) -> describe::DescribedGroup {
        let h: &Harness = self.borrow();
        let req = StreamsGroupDescribeRequest {
            group_ids: vec!["g".to_string().into()],
            ..Default::default()
        };
        h.c.streams_group_describe(&h.ctx(0), &req).groups.remove(0)
    }
}

impl StreamsCalls for Harness {}

fn err(out: &StreamsHeartbeatOutput) -> (i16, String) {
    (
        out.response.error_code,
        out.response
            .error_message
            .as_ref()
            .map(|m| m.to_string())
            .unwrap_or_default(),
    )
}

fn kinds(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .map(|r| match r {
            Record::Streams(StreamsRecord::GroupMetadata(_, Some(v))) => format!(
                "metadata(G {}, validated {}, {:?})",
                v.epoch,
                v.validated_topology_epoch,
                v.last_assignment_configs
                    .iter()
                    .map(|kv| format!("{}={}", &*kv.key, &*kv.value))
                    .collect::<Vec<_>>()
            ),
            Record::Streams(StreamsRecord::Topology(_, Some(v))) => {
                format!("topology({})", v.epoch)
            }
            Record::Streams(StreamsRecord::MemberMetadata(k, v)) => {
                format!(
                    "member({}{})",
                    &*k.member_id,
                    if v.is_none() { ", tombstone" } else { "" }
                )
            }
            Record::Streams(StreamsRecord::TargetAssignmentMember(k, v)) => match v {
                Some(v) if v.active_tasks.is_empty() && v.standby_tasks.is_empty() => {
                    format!("target({}, empty)", &*k.member_id)
                }
                Some(_) => format!("target({})", &*k.member_id),
                None => format!("target({}, tombstone)", &*k.member_id),
            },
            Record::Streams(StreamsRecord::TargetAssignmentMetadata(_, Some(v))) => {
                format!("target epoch({})", v.assignment_epoch)
            }
            Record::Streams(StreamsRecord::CurrentMemberAssignment(k, v)) => match v {
                Some(v) => format!("current({}, e{})", &*k.member_id, v.member_epoch),
                None => format!("current({}, tombstone)", &*k.member_id),
            },
            other => format!("{other:?}"),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Scenario 37: request validation (SVC#testStreamsHeartbeatRequestValidation, with D2/D3).

#[test]
fn s37_validation() {
    let mut h = harness(0, vec![topic("foo", 6)]);
    let base = rq::StreamsGroupHeartbeatRequest {
        group_id: "g".to_string().into(),
        member_id: "m".to_string().into(),
        rebalance_timeout_ms: -1,
        ..Default::default()
    };
    let t = topology(0, vec![sub("s1", &["foo"], &[])]);
    let cases: Vec<(rq::StreamsGroupHeartbeatRequest, i16, &str)> = vec![
        (
            rq::StreamsGroupHeartbeatRequest { member_id: "".to_string().into(), ..base.clone() },
            42,
            "MemberId can't be empty.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest { member_id: "   ".to_string().into(), ..base.clone() },
            42,
            "MemberId can't be empty.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest { group_id: "".to_string().into(), ..base.clone() },
            42,
            "GroupId can't be empty.",
        ),
        (base.clone(), 42, "RebalanceTimeoutMs must be provided in first request."),
        (
            rq::StreamsGroupHeartbeatRequest { rebalance_timeout_ms: 1500, ..base.clone() },
            42,
            "ActiveTasks must be empty when (re-)joining.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest {
                rebalance_timeout_ms: 1500,
                active_tasks: Some(vec![]),
                ..base.clone()
            },
            42,
            "StandbyTasks must be empty when (re-)joining.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest {
                rebalance_timeout_ms: 1500,
                active_tasks: Some(vec![]),
                standby_tasks: Some(vec![]),
                ..base.clone()
            },
            42,
            "WarmupTasks must be empty when (re-)joining.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest {
                rebalance_timeout_ms: 1500,
                active_tasks: Some(vec![]),
                standby_tasks: Some(vec![]),
                warmup_tasks: Some(vec![]),
                ..base.clone()
            },
            42,
            "Topology must be non-null when (re-)joining.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest {
                member_epoch: 1,
                rack_id: Some("".to_string().into()),
                ..base.clone()
            },
            42,
            "RackId can't be empty.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest { member_epoch: -2, ..base.clone() },
            42,
            "InstanceId can't be null.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest { member_epoch: -3, ..base.clone() },
            42,
            "MemberEpoch is -3, but must be greater than or equal to -2.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest {
                member_epoch: 1,
                topology: Some(t.clone()),
                ..base.clone()
            },
            42,
            "Topology can only be provided when (re-)joining.",
        ),
        (
            {
                let mut t = topology(0, vec![sub("s1", &["foo"], &["changelog_topic_with_fixed_partition"])]);
                t.subtopologies[0].state_changelog_topics[0].partitions = 3;
                join("m", "p", t)
            },
            130,
            "Changelog topic changelog_topic_with_fixed_partition must have an undefined partition count, but it is set to 3.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest {
                instance_id: Some(" ".to_string().into()),
                ..join("m", "p", t.clone())
            },
            42,
            "InstanceId can't be empty.",
        ),
        (
            {
                let mut t = topology(0, vec![sub("s1", &["foo"], &[])]);
                t.subtopologies[0].source_topic_regex = vec!["fo.*".to_string().into()];
                join("m", "p", t)
            },
            42,
            "Regular expressions for source topics are not supported yet.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest {
                member_epoch: 1,
                active_tasks: Some(vec![]),
                ..base.clone()
            },
            42,
            "If one task-type is non-null, all must be non-null.",
        ),
        (
            rq::StreamsGroupHeartbeatRequest {
                task_offsets: Some(vec![
                    rq::TaskOffset { subtopology_id: "s1".to_string().into(), partition: 2, offset: 5, ..Default::default() },
                    rq::TaskOffset { subtopology_id: "s1".to_string().into(), partition: 2, offset: 9, ..Default::default() },
                ]),
                ..join("m", "p", t.clone())
            },
            42,
            "Duplicate task offset for subtopology s1 partition 2.",
        ),
    ];
    for (req, code, msg) in cases {
        let out = h.hb(req.clone());
        assert_eq!(err(&out), (code, msg.to_string()), "request {req:?}");
        assert_eq!(out.response.member_epoch, 0);
        assert!(out.response.active_tasks.is_none());
        // Kafka 4.4's Status has no null default: an error answer carries an empty list.
        assert_eq!(out.response.status.as_deref().map(<[_]>::len), Some(0));
    }
    assert!(
        h.c.streams_groups().is_empty(),
        "no group created by a failed heartbeat"
    );
}

// ---------------------------------------------------------------------------------------------
// Scenario 38: join an empty group and describe (initial delay 0).

#[test]
fn s38_join_empty_group_and_describe() {
    let mut h = harness(0, vec![topic("foo", 6)]);
    let out = h.hb(join(
        "m",
        "process-id",
        topology(0, vec![sub("subtopology1", &["foo"], &[])]),
    ));
    let r = &out.response;
    assert_eq!(err(&out), (0, String::new()));
    assert_eq!(r.member_id.to_string(), "m");
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.heartbeat_interval_ms, 5000);
    assert_eq!(
        resp_tasks(&r.active_tasks),
        Some(tasks(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))
    );
    assert_eq!(resp_tasks(&r.standby_tasks), Some(TaskSet::new()));
    assert_eq!(resp_tasks(&r.warmup_tasks), Some(TaskSet::new()));
    assert_eq!(statuses(r), vec![]);
    assert_eq!(
        (
            r.acceptable_recovery_lag_legacy,
            r.acceptable_recovery_lag,
            r.task_offset_interval_ms
        ),
        (0, 10000, 60000)
    );
    assert_eq!(r.endpoint_information_epoch, 0);
    assert_eq!(
        kinds(&out.records),
        vec![
            "member(m)",
            "topology(0)",
            "metadata(G 2, validated 0, [\"num.standby.replicas=0\"])",
            "target(m)",
            "target epoch(2)",
            "current(m, e2)"
        ]
    );
    let d = h.describe();
    assert_eq!(d.error_code, 0);
    assert_eq!(d.group_state.to_string(), "Stable");
    assert_eq!((d.group_epoch, d.assignment_epoch), (2, 2));
    let t = d.topology.unwrap();
    assert_eq!(t.epoch, 0);
    let subs = t.subtopologies.unwrap();
    assert_eq!(subs.len(), 1);
    assert_eq!(subs[0].subtopology_id.to_string(), "subtopology1");
    assert_eq!(
        subs[0]
            .source_topics
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        vec!["foo"]
    );
    assert_eq!(d.members.len(), 1);
    let m = &d.members[0];
    assert_eq!(
        (m.member_epoch, m.process_id.to_string(), m.topology_epoch),
        (2, "process-id".into(), 0)
    );
    assert_eq!(m.assignment.active_tasks.len(), 1);
    assert_eq!(
        m.assignment.active_tasks[0]
            .partitions
            .iter()
            .collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4, 5]
    );
    assert_eq!(m.target_assignment.active_tasks[0].partitions.len(), 6);
    assert!(!m.is_classic);
    assert_eq!(d.authorized_operations, i32::MIN);
}

// ---------------------------------------------------------------------------------------------
// Scenario 39: joining with a missing source topic, a missing internal topic, or incorrectly
// partitioned topics (initial delay 0, docs/coordinator.md, D7).

fn not_ready_join(h: &mut Harness, t: rq::Topology) -> StreamsHeartbeatOutput {
    let out = h.hb(join("m", "p", t));
    let r = &out.response;
    assert_eq!(err(&out), (0, String::new()));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(resp_tasks(&r.active_tasks), Some(TaskSet::new()));
    assert_eq!(resp_tasks(&r.standby_tasks), Some(TaskSet::new()));
    assert_eq!(resp_tasks(&r.warmup_tasks), Some(TaskSet::new()));
    assert_eq!(h.group().state, StreamsGroupState::NotReady);
    assert_eq!(
        kinds(&out.records),
        vec![
            "member(m)",
            "topology(0)",
            "metadata(G 2, validated -1, [\"num.standby.replicas=0\"])",
            "target(m, empty)",
            "target epoch(2)",
            "current(m, e2)"
        ]
    );
    out
}

#[test]
fn s39a_missing_source_topic() {
    let mut h = harness(0, vec![topic("foo", 6)]);
    let out = not_ready_join(
        &mut h,
        topology(
            0,
            vec![
                sub("subtopology1", &["foo"], &[]),
                sub("subtopology2", &["bar"], &[]),
            ],
        ),
    );
    assert_eq!(
        statuses(&out.response),
        vec![(1, "Source topics bar are missing.".to_string())]
    );
    assert!(out.topics_to_create.is_empty());
    assert_eq!(h.describe().group_state.to_string(), "NotReady");
}

#[test]
fn s39b_missing_internal_topic() {
    let mut h = harness(0, vec![topic("foo", 6)]);
    let out = not_ready_join(
        &mut h,
        topology(0, vec![sub("subtopology1", &["foo"], &["bar"])]),
    );
    assert_eq!(
        statuses(&out.response),
        vec![(3, "Internal topics are missing: bar".to_string())]
    );
    assert_eq!(
        out.topics_to_create,
        vec![CreatableTopic {
            name: "bar".into(),
            num_partitions: 6,
            replication_factor: -1,
            configs: BTreeMap::new(),
        }]
    );
    // The caller creates the topic: the group becomes ready and the member gets its tasks.
    let recs = h.set_topics(vec![topic("foo", 6), topic("bar", 6)]);
    assert_eq!(
        kinds(&recs),
        vec!["metadata(G 3, validated 0, [\"num.standby.replicas=0\"])"]
    );
    let out = h.hb(beat("m", 2, Some((&TaskSet::new(), &TaskSet::new()))));
    assert_eq!(out.response.member_epoch, 3);
    assert_eq!(
        resp_tasks(&out.response.active_tasks),
        Some(tasks(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))
    );
    assert_eq!(statuses(&out.response), vec![]);
    assert!(out.topics_to_create.is_empty());
    assert_eq!(h.group().state, StreamsGroupState::Stable);
}

#[test]
fn s39c_incorrectly_partitioned_topics() {
    let mut h = harness(0, vec![topic("foo", 6), topic("bar", 3)]);
    let mut t = topology(0, vec![sub("subtopology1", &["foo", "bar"], &[])]);
    t.subtopologies[0].copartition_groups = vec![rq::CopartitionGroup {
        source_topics: vec![0i16, 1].into(),
        ..Default::default()
    }];
    let out = not_ready_join(&mut h, t);
    assert_eq!(
        statuses(&out.response),
        vec![(
            2,
            "Following topics do not have the same number of partitions: [{bar=3, foo=6}]"
                .to_string()
        )]
    );
}

// ---------------------------------------------------------------------------------------------
// Departure D1: topology updates.

fn two_member_group(h: &mut Harness) {
    let t0 = topology(0, vec![sub("a", &["foo"], &[]), sub("b", &["bar"], &[])]);
    let o1 = h.hb(join("m1", "p1", t0.clone()));
    assert_eq!(o1.response.member_epoch, 2);
    let o2 = h.hb(join("m2", "p2", t0));
    assert_eq!(o2.response.member_epoch, 3);
    settle(h, &["m1", "m2"]);
}

/// Heartbeats every member with what it owns until the group is stable (at most 10 rounds).
fn settle(h: &mut Harness, members: &[&str]) {
    for _ in 0..10 {
        for m in members {
            let Some(mm) = h.group().members.get(*m).cloned() else {
                continue;
            };
            let out = h.hb(beat(
                m,
                mm.member_epoch,
                Some((&mm.assigned.active, &mm.assigned.standby)),
            ));
            assert_eq!(err(&out), (0, String::new()));
        }
        if h.group().state == StreamsGroupState::Stable {
            return;
        }
    }
    panic!("group did not converge: {:?}", h.group());
}

#[test]
fn d1_same_epoch_same_topology_joins() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    two_member_group(&mut h);
    // Same epoch, same topology with reordered subtopologies and topics: accepted, no topology record.
    let t = topology(0, vec![sub("b", &["bar"], &[]), sub("a", &["foo"], &[])]);
    let out = h.hb(join("m3", "p3", t));
    assert_eq!(err(&out), (0, String::new()));
    assert!(!kinds(&out.records)
        .iter()
        .any(|k| k.starts_with("topology")));
    assert_eq!(h.group().topology.as_ref().unwrap().epoch, 0);
}

#[test]
fn d1_same_epoch_different_topology_is_131() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    two_member_group(&mut h);
    let out = h.hb(join("m3", "p3", topology(0, vec![sub("a", &["foo"], &[])])));
    assert_eq!(
        err(&out),
        (
            131,
            "Topology with epoch 0 differs from the group's topology with the same epoch.".into()
        )
    );
}

#[test]
fn d1_older_epoch_is_fenced_132() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    let t1 = topology(1, vec![sub("a", &["foo"], &[])]);
    assert_eq!(h.hb(join("m1", "p1", t1)).response.error_code, 0);
    let out = h.hb(join("m2", "p2", topology(0, vec![sub("a", &["foo"], &[])])));
    assert_eq!(
        err(&out),
        (
            132,
            "Topology epoch 0 is older than the group's topology epoch 1.".into()
        )
    );
}

#[test]
fn d1_more_than_one_ahead_is_131() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    two_member_group(&mut h);
    let out = h.hb(join("m3", "p3", topology(2, vec![sub("a", &["foo"], &[])])));
    assert_eq!(
        err(&out),
        (
            131,
            "Topology epoch 2 is more than one ahead of the group's topology epoch 0.".into()
        )
    );
}

#[test]
fn d1_next_epoch_is_adopted_and_stale_members_are_told() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2), topic("zar", 3)]);
    two_member_group(&mut h);
    let g_before = h.group().group_epoch;
    let m2_before = h.group().members["m2"].clone();
    // m1 rejoins with epoch 1: subtopology b removed, c added.
    let t1 = topology(1, vec![sub("a", &["foo"], &[]), sub("c", &["zar"], &[])]);
    let out = h.hb(join("m1", "p1", t1));
    assert_eq!(err(&out), (0, String::new()));
    let k = kinds(&out.records);
    assert!(k.contains(&"topology(1)".to_string()), "{k:?}");
    assert_eq!(h.group().group_epoch, g_before + 1);
    assert_eq!(h.group().assignment_epoch, g_before + 1);
    assert_eq!(statuses(&out.response), vec![]);
    // Every member's target comes from the new topology.
    for t in h.group().targets.values() {
        assert!(!t.active.contains_key("b"));
    }
    let all: usize = h
        .group()
        .targets
        .values()
        .map(|t| t.active.values().map(|p| p.len()).sum::<usize>())
        .sum();
    assert_eq!(all, 4 + 3);
    // m2 (topology epoch 0) keeps heartbeating: STALE_TOPOLOGY, and its tasks of b are revoked.
    let out = h.hb(beat(
        "m2",
        m2_before.member_epoch,
        Some((&m2_before.assigned.active, &TaskSet::new())),
    ));
    assert_eq!(err(&out), (0, String::new()));
    assert_eq!(
        statuses(&out.response)[0],
        (
            0,
            "The member's topology epoch 0 is behind the group's topology epoch 1.".to_string()
        )
    );
    let m2 = h.group().members["m2"].clone();
    assert!(!m2.assigned.active.contains_key("b"));
    assert!(
        m2_before.assigned.active.contains_key("b")
            == m2.pending_revocation.active.contains_key("b")
    );
    // m2 rejoins on the new topology: no more stale status; the group converges.
    let out = h.hb(join(
        "m2",
        "p2",
        topology(1, vec![sub("c", &["zar"], &[]), sub("a", &["foo"], &[])]),
    ));
    assert_eq!(err(&out), (0, String::new()));
    assert!(statuses(&out.response).iter().all(|s| s.0 != 0));
    settle(&mut h, &["m1", "m2"]);
    let mut seen = TaskSet::new();
    for m in h.group().members.values() {
        for (s, ps) in &m.assigned.active {
            seen.entry(s.clone()).or_default().extend(ps);
        }
    }
    assert_eq!(seen, tasks(&[("a", &[0, 1, 2, 3]), ("c", &[0, 1, 2])]));
}

// ---------------------------------------------------------------------------------------------
// docs/coordinator.md §2.4: leave, shutdown, initial delay, endpoints, offsets, timers, namespace.

#[test]
fn leave_writes_tombstones_and_bumps() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    two_member_group(&mut h);
    let g = h.group().group_epoch;
    let out = h.hb(beat("m2", -1, None));
    assert_eq!(err(&out), (0, String::new()));
    assert_eq!(out.response.member_epoch, -1);
    assert_eq!(out.response.member_id.to_string(), "m2");
    assert_eq!(statuses(&out.response), vec![]);
    assert!(out.response.status.is_some());
    assert_eq!(
        kinds(&out.records),
        vec![
            "current(m2, tombstone)".to_string(),
            "target(m2, tombstone)".into(),
            "member(m2, tombstone)".into(),
            format!(
                "metadata(G {}, validated 0, [\"num.standby.replicas=0\"])",
                g + 1
            )
        ]
    );
    assert_eq!(h.group().state, StreamsGroupState::Assigning);
    // Unknown member and unknown group.
    assert_eq!(h.hb(beat("m2", -1, None)).response.error_code, 25);
    let mut r = beat("x", -1, None);
    r.group_id = "nope".to_string().into();
    assert_eq!(err(&h.hb(r)), (69, "Streams group nope not found.".into()));
    settle(&mut h, &["m1"]);
    assert_eq!(
        h.group().members["m1"].assigned.active,
        tasks(&[("a", &[0, 1, 2, 3]), ("b", &[0, 1])])
    );
}

#[test]
fn shutdown_request_is_shown_to_every_member_until_empty() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    two_member_group(&mut h);
    let e1 = h.group().members["m1"].member_epoch;
    let mut r = beat("m1", e1, None);
    r.shutdown_application = true;
    let out = h.hb(r);
    let msg = "Streams group member m1 encountered a fatal error and requested a shutdown for the entire application.";
    assert_eq!(statuses(&out.response), vec![(4, msg.to_string())]);
    let e2 = h.group().members["m2"].member_epoch;
    let out = h.hb(beat("m2", e2, None));
    assert_eq!(statuses(&out.response), vec![(4, msg.to_string())]);
    // Everyone leaves; a new member of the empty group sees no shutdown request.
    h.hb(beat("m1", -1, None));
    h.hb(beat("m2", -1, None));
    let out = h.hb(join(
        "m3",
        "p3",
        topology(0, vec![sub("a", &["foo"], &[]), sub("b", &["bar"], &[])]),
    ));
    assert_eq!(statuses(&out.response), vec![]);
}

#[test]
fn initial_rebalance_delay_holds_the_first_assignment() {
    let mut h = harness(3000, vec![topic("foo", 4)]);
    let t = topology(0, vec![sub("a", &["foo"], &[])]);
    let out = h.hb(join("m1", "p1", t.clone()));
    assert_eq!(out.response.member_epoch, 1);
    assert_eq!(resp_tasks(&out.response.active_tasks), Some(TaskSet::new()));
    assert_eq!(
        statuses(&out.response),
        vec![(
            5,
            "Assignment delayed due to the configured initial rebalance delay.".into()
        )]
    );
    assert_eq!(h.group().state, StreamsGroupState::Assigning);
    assert_eq!(h.c.next_deadline(), Some(h.now + 3000));
    h.now += 1000;
    let out = h.hb(join("m2", "p2", t));
    assert_eq!(out.response.member_epoch, 1);
    assert_eq!(statuses(&out.response)[0].0, 5);
    let recs = h.advance(2000);
    assert_eq!(
        kinds(&recs),
        vec!["target(m1)", "target(m2)", "target epoch(3)"]
    );
    settle(&mut h, &["m1", "m2"]);
    assert_eq!(
        h.group().members["m1"]
            .assigned
            .active
            .values()
            .map(|p| p.len())
            .sum::<usize>(),
        2
    );
    assert_eq!(
        h.group().members["m2"]
            .assigned
            .active
            .values()
            .map(|p| p.len())
            .sum::<usize>(),
        2
    );
}

#[test]
fn session_timeout_fences_and_rebalance_timeout_fences_revoking_member() {
    let mut h = harness(0, vec![topic("foo", 4)]);
    let t = topology(0, vec![sub("a", &["foo"], &[])]);
    h.hb(join("m1", "p1", t.clone()));
    assert_eq!(h.c.next_deadline(), Some(h.now + 45000));
    // m2 joins: m1 must revoke two tasks; it does not answer in time (rebalance timeout 1500).
    h.hb(join("m2", "p2", t));
    let e1 = h.group().members["m1"].member_epoch;
    h.hb(beat("m1", e1, None));
    assert_eq!(
        h.group().members["m1"].state,
        StreamsMemberState::UnrevokedTasks
    );
    let recs = h.advance(1500);
    assert!(
        kinds(&recs).contains(&"member(m1, tombstone)".to_string()),
        "{:?}",
        kinds(&recs)
    );
    assert!(!h.group().members.contains_key("m1"));
    settle(&mut h, &["m2"]);
    assert_eq!(
        h.group().members["m2"].assigned.active,
        tasks(&[("a", &[0, 1, 2, 3])])
    );
    // m2 stops heartbeating: fenced after the session timeout.
    let recs = h.advance(45000);
    assert!(kinds(&recs).contains(&"member(m2, tombstone)".to_string()));
    assert_eq!(h.group().state, StreamsGroupState::Empty);
}

#[test]
fn task_offsets_are_kept_and_described() {
    let mut h = harness(0, vec![topic("foo", 4)]);
    let mut r = join("m1", "p1", topology(0, vec![sub("a", &["foo"], &[])]));
    r.task_offsets = Some(vec![rq::TaskOffset {
        subtopology_id: "a".to_string().into(),
        partition: 1,
        offset: 42,
        ..Default::default()
    }]);
    h.hb(r);
    let e = h.group().members["m1"].member_epoch;
    let mut r = beat("m1", e, None);
    r.task_end_offsets = Some(vec![rq::TaskOffset {
        subtopology_id: "a".to_string().into(),
        partition: 1,
        offset: 50,
        ..Default::default()
    }]);
    h.hb(r);
    let d = h.describe();
    let m = &d.members[0];
    assert_eq!(m.task_offsets.len(), 1);
    assert_eq!(
        (m.task_offsets[0].partition, m.task_offsets[0].offset),
        (1, 42)
    );
    assert_eq!(
        (
            m.task_end_offsets[0].partition,
            m.task_end_offsets[0].offset
        ),
        (1, 50)
    );
}

#[test]
fn endpoints_are_sent_when_the_epoch_differs() {
    let mut h = harness(0, vec![topic("foo", 4)]);
    let t = topology(0, vec![sub("a", &["foo"], &[])]);
    let mut r = join("m1", "p1", t.clone());
    r.user_endpoint = Some(rq::Endpoint {
        host: "h1".to_string().into(),
        port: 1,
        ..Default::default()
    });
    let out = h.hb(r);
    // The group did not exist before this heartbeat: epoch 0 in the response, endpoints sent.
    assert_eq!(out.response.endpoint_information_epoch, 0);
    let eps = out.response.partitions_by_user_endpoint.unwrap();
    assert_eq!(eps.len(), 1);
    assert_eq!(eps[0].user_endpoint.host.to_string(), "h1");
    assert_eq!(eps[0].active_partitions[0].topic.to_string(), "foo");
    assert_eq!(
        eps[0].active_partitions[0]
            .partitions
            .iter()
            .collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    // The join that created the group does not move the epoch (Kafka 4.4 works on a new group
    // object there, whose soft state is lost).
    assert_eq!(h.c.streams_endpoint_information_epoch("g"), 0);
    // Same epoch as the group's: nothing sent.
    let e = h.group().members["m1"].member_epoch;
    let mut r = beat("m1", e, None);
    r.endpoint_information_epoch = 0;
    let out = h.hb(r);
    assert!(out.response.partitions_by_user_endpoint.is_none());
    assert_eq!(out.response.endpoint_information_epoch, 0);
    // A second member with an endpoint: the joiner is listed last.
    let mut r = join("m0", "p0", t);
    r.user_endpoint = Some(rq::Endpoint {
        host: "h0".to_string().into(),
        port: 2,
        ..Default::default()
    });
    r.endpoint_information_epoch = 0;
    let out = h.hb(r);
    let eps = out.response.partitions_by_user_endpoint.unwrap();
    assert_eq!(
        eps.iter()
            .map(|e| e.user_endpoint.host.to_string())
            .collect::<Vec<_>>(),
        vec!["h1", "h0"]
    );
    assert_eq!(out.response.endpoint_information_epoch, 1);
}

#[test]
fn epochs_are_checked_and_previous_epoch_is_tolerated() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    two_member_group(&mut h);
    let m = h.group().members["m1"].clone();
    let out = h.hb(beat("m1", m.member_epoch + 1, None));
    assert_eq!(out.response.error_code, 110);
    let out = h.hb(beat("m1", m.previous_member_epoch, None));
    assert_eq!(out.response.error_code, 110);
    if m.previous_member_epoch != m.member_epoch {
        let out = h.hb(beat(
            "m1",
            m.previous_member_epoch,
            Some((&m.assigned.active, &m.assigned.standby)),
        ));
        assert_eq!(err(&out), (0, String::new()));
        assert_eq!(out.response.member_epoch, m.member_epoch);
    }
    assert_eq!(h.hb(beat("zz", 3, None)).response.error_code, 25);
    let out = h.hb(beat(
        "m1",
        m.member_epoch,
        Some((&tasks(&[("q", &[0])]), &TaskSet::new())),
    ));
    assert_eq!(
        err(&out),
        (42, "Subtopology q does not exist in the topology.".into())
    );
    let out = h.hb(beat(
        "m1",
        m.member_epoch,
        Some((&tasks(&[("a", &[9])]), &TaskSet::new())),
    ));
    assert_eq!(
        err(&out),
        (
            42,
            "Task 9 for subtopology a is invalid. Number of tasks for this subtopology: 4".into()
        )
    );
    // Epoch 0 for an existing member is a rejoin (KAFKA-19233).
    let out = h.hb(join(
        "m1",
        "p1",
        topology(0, vec![sub("a", &["foo"], &[]), sub("b", &["bar"], &[])]),
    ));
    assert_eq!(err(&out), (0, String::new()));
}

#[test]
fn group_types_share_one_namespace_and_max_size() {
    let mut h = harness(0, vec![topic("foo", 4)]);
    let c = ConsumerGroupHeartbeatRequest {
        group_id: "cg".to_string().into(),
        member_id: "c1".to_string().into(),
        member_epoch: 0,
        rebalance_timeout_ms: 5000,
        subscribed_topic_names: Some(vec!["foo".to_string().into()]),
        topic_partitions: Some(vec![]),
        ..Default::default()
    };
    let o = h.consumer_heartbeat(1, &c);
    assert_eq!(o.response.error_code, 0);
    let mut r = join("s1", "p", topology(0, vec![sub("a", &["foo"], &[])]));
    r.group_id = "cg".to_string().into();
    assert_eq!(
        err(&h.hb(r)),
        (69, "Group cg is not a streams group.".into())
    );
    h.hb(join("s1", "p", topology(0, vec![sub("a", &["foo"], &[])])));
    let mut c2 = c.clone();
    c2.group_id = "g".to_string().into();
    let o = h.consumer_heartbeat(1, &c2);
    assert_eq!(
        o.response.error_message.map(|m| m.to_string()),
        Some("Group g is not a consumer group.".into())
    );
    // Max size.
    let cfg = StreamsGroupConfig {
        max_size: 1,
        initial_rebalance_delay_ms: 0,
        ..Default::default()
    };
    h.c.set_streams_config(cfg).unwrap();
    let out = h.hb(join("s2", "p", topology(0, vec![sub("a", &["foo"], &[])])));
    assert_eq!(
        err(&out),
        (
            81,
            "The streams group has reached its maximum capacity of 1 members.".into()
        )
    );
}

#[test]
fn standbys_never_share_a_process_with_the_active() {
    let mut h = harness(0, vec![topic("foo", 6)]);
    h.c.set_streams_group_config(
        "g",
        StreamsGroupOverrides {
            num_standby_replicas: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    let t = topology(0, vec![sub("a", &["foo"], &["a-changelog"])]);
    h.set_topics(vec![topic("foo", 6), topic("a-changelog", 6)]);
    h.hb(join("m1", "p1", t.clone()));
    h.hb(join("m2", "p1", t.clone()));
    h.hb(join("m3", "p2", t));
    settle(&mut h, &["m1", "m2", "m3"]);
    let g = h.group();
    assert_eq!(
        g.last_assignment_configs
            .get(NUM_STANDBY_REPLICAS)
            .map(String::as_str),
        Some("1")
    );
    for p in 0..6 {
        let active: Vec<&StreamsGroupMember> = g
            .members
            .values()
            .filter(|m| m.assigned.contains(tasks::TaskRole::Active, "a", p))
            .collect();
        let standby: Vec<&StreamsGroupMember> = g
            .members
            .values()
            .filter(|m| m.assigned.contains(tasks::TaskRole::Standby, "a", p))
            .collect();
        assert_eq!(active.len(), 1, "task a:{p}");
        assert_eq!(standby.len(), 1, "task a:{p}");
        assert_ne!(active[0].process_id, standby[0].process_id);
    }
}

#[test]
fn load_restores_the_group_from_its_records() {
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    two_member_group(&mut h);
    let topics = vec![topic("foo", 4), topic("bar", 2)];
    let mut c2 = GroupCoordinator::load(
        ConsumerGroupConfig::default(),
        Box::new(SequentialMemberIds::new(9)),
        topics,
        &h.log,
        h.now,
    )
    .unwrap();
    assert_eq!(c2.streams_groups(), h.c.streams_groups());
    let m = h.group().members["m1"].clone();
    let ctx = RequestContext::new("client", "/127.0.0.1", 0);
    let out = c2.streams_group_heartbeat(
        &ctx,
        &beat(
            "m1",
            m.member_epoch,
            Some((&m.assigned.active, &m.assigned.standby)),
        ),
        h.now,
    );
    assert_eq!(out.response.error_code, 0);
    assert_eq!(out.response.member_epoch, m.member_epoch);
    assert!(out.records.is_empty(), "{:?}", kinds(&out.records));
    assert_eq!(c2.next_deadline(), Some(h.now + 45000));
    // A configuration set after loading moves the armed session deadlines with it.
    let cfg = StreamsGroupConfig {
        session_timeout_ms: 50000,
        ..Default::default()
    };
    c2.set_streams_config(cfg).unwrap();
    assert_eq!(c2.next_deadline(), Some(h.now + 50000));
}

#[test]
fn a_failing_assignor_writes_nothing() {
    #[derive(Debug)]
    struct Failing;
    impl TaskAssignor for Failing {
        fn name(&self) -> &str {
            "failing"
        }
        fn assign(
            &self,
            _: &GroupSpec,
        ) -> Result<BTreeMap<String, TasksTuple>, assignor::TaskAssignorError> {
            Err(assignor::TaskAssignorError("boom".into()))
        }
    }
    let mut h = harness(0, vec![topic("foo", 4)]);
    let cfg = StreamsGroupConfig {
        assignor: Arc::new(Failing),
        initial_rebalance_delay_ms: 0,
        ..Default::default()
    };
    h.c.set_streams_config(cfg).unwrap();
    let out = h.hb(join("m1", "p1", topology(0, vec![sub("a", &["foo"], &[])])));
    assert_eq!(out.response.error_code, -1);
    assert!(out.response.error_message.is_none());
    assert!(h.c.streams_groups().is_empty());
}

/// One transaction strategy (docs/coordinator.md §Transactions): a join that fails after its
/// member and group-epoch records were drafted (the assignor fails) leaves an existing group,
/// its soft state and every timer exactly as they were, and writes nothing.
#[test]
fn a_failed_join_into_an_existing_group_changes_nothing() {
    #[derive(Debug)]
    struct Failing;
    impl TaskAssignor for Failing {
        fn name(&self) -> &str {
            "failing"
        }
        fn assign(
            &self,
            _: &GroupSpec,
        ) -> Result<BTreeMap<String, TasksTuple>, assignor::TaskAssignorError> {
            Err(assignor::TaskAssignorError("boom".into()))
        }
    }
    let mut h = harness(0, vec![topic("foo", 4), topic("bar", 2)]);
    two_member_group(&mut h);
    let before = h.c.groups().clone();
    let deadlines = (
        h.c.next_deadline(),
        h.c.session_deadline("g", "m1"),
        h.c.session_deadline("g", "m2"),
    );
    let endpoint_epoch = h.c.streams_endpoint_information_epoch("g");
    let cfg = StreamsGroupConfig {
        assignor: Arc::new(Failing),
        initial_rebalance_delay_ms: 0,
        ..Default::default()
    };
    h.c.set_streams_config(cfg).unwrap();
    let t0 = topology(0, vec![sub("a", &["foo"], &[]), sub("b", &["bar"], &[])]);
    let out = h.hb(join("m3", "p3", t0));
    assert_eq!(err(&out), (-1, String::new()));
    assert!(out.records.is_empty());
    assert!(out.topics_to_create.is_empty());
    assert_eq!(h.c.groups(), &before);
    assert_eq!(
        (
            h.c.next_deadline(),
            h.c.session_deadline("g", "m1"),
            h.c.session_deadline("g", "m2"),
        ),
        deadlines
    );
    assert_eq!(h.c.session_deadline("g", "m3"), None);
    assert_eq!(h.c.streams_endpoint_information_epoch("g"), endpoint_epoch);
}
