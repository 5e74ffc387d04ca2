//! Streams-group scenarios of Kafka 4.4's protocol surface (docs/coordinator.md §Streams groups,
//! "Kafka 4.4: v1, descriptions, static members"): StreamsGroupHeartbeat v1
//! (`AcceptableRecoveryLag`, `TopologyDescriptionRequired`, status 6 MISSING_CLIENT_TAGS),
//! StreamsGroupDescribe v1 (topology description, its status, `AssignorName`),
//! StreamsGroupTopologyDescriptionUpdate (key 93, KIP-1331) and static membership, run against
//! [`GroupCoordinator`]. Expected values come from Kafka 4.4.0's `GroupMetadataManager`,
//! `GroupCoordinatorService` and `StreamsGroupTopologyDescriptionManager`. After every step the
//! streams state is compared with `replay` of every record emitted so far (D6).

use super::harness::groups::{
    self, streams_beat, streams_harness, streams_join, subtopology, topic,
};
use super::harness::Harness;
use crate::coordinator::streams::description::{
    STATUS_AVAILABLE, STATUS_NOT_REQUESTED, STATUS_NOT_STORED,
};
use crate::coordinator::streams::*;
use crate::coordinator::StreamsHeartbeatOutput;
use crate::error::ErrorCode;
use crate::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use crate::generated::streams_group_describe_response as describe;
use crate::generated::streams_group_heartbeat_request as rq;
use crate::generated::streams_group_topology_description_update_request as upd;
use crate::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;
use crate::wire::Encode;
use std::borrow::BorrowMut;

/// The topology at `epoch`: one subtopology `0` reading `in`.
fn topology(epoch: i32) -> rq::Topology {
    groups::topology(epoch, vec![subtopology("0", &["in"], &[])])
}

fn join(member: &str, process: &str) -> rq::StreamsGroupHeartbeatRequest {
    streams_join(member, process, topology(0))
}

fn beat(member: &str, epoch: i32) -> rq::StreamsGroupHeartbeatRequest {
    streams_beat(member, epoch, None)
}

fn node(name: &str, t: i8) -> upd::TopologyDescriptionNode {
    upd::TopologyDescriptionNode {
        name: name.to_string().into(),
        node_type: t,
        ..Default::default()
    }
}

/// A description of one subtopology: source `in` → processor with store `counts` → sink `out`.
fn description() -> upd::TopologyDescription {
    let mut source = node("KSTREAM-SOURCE-0000000000", 1);
    source.source_topics = vec!["in".to_string().into(), "in".to_string().into()];
    source.successors = vec!["KSTREAM-AGGREGATE-0000000001".to_string().into()];
    // A field of another node type, dropped as Kafka's converter drops it.
    source.stores = vec!["ignored".to_string().into()];
    let mut proc = node("KSTREAM-AGGREGATE-0000000001", 2);
    proc.stores = vec!["counts".to_string().into()];
    proc.successors = vec!["KSTREAM-SINK-0000000002".to_string().into()];
    let mut sink = node("KSTREAM-SINK-0000000002", 3);
    sink.sink_topic = Some("out".to_string().into());
    upd::TopologyDescription {
        subtopologies: vec![upd::TopologyDescriptionSubtopology {
            subtopology_id: "0".to_string().into(),
            nodes: vec![source, proc, sink],
            ..Default::default()
        }],
        global_stores: vec![],
        ..Default::default()
    }
}

fn push(
    member: &str,
    epoch: i32,
    d: upd::TopologyDescription,
) -> upd::StreamsGroupTopologyDescriptionUpdateRequest {
    upd::StreamsGroupTopologyDescriptionUpdateRequest {
        group_id: "g".to_string().into(),
        member_id: member.to_string().into(),
        topology_epoch: epoch,
        topology_description: d,
        ..Default::default()
    }
}

/// A streams coordinator with `cfg` and topic `in` (2 partitions).
fn harness_with(cfg: StreamsGroupConfig) -> Harness {
    streams_harness(cfg, vec![topic("in", 2)])
}

/// No initial rebalance delay.
fn harness() -> Harness {
    harness_with(StreamsGroupConfig {
        initial_rebalance_delay_ms: 0,
        ..Default::default()
    })
}

/// The calls of this file, each answer checked to encode at the request's version.
trait V1Calls: BorrowMut<Harness> {
    fn hb_at(
        &mut self,
        version: i16,
        r: rq::StreamsGroupHeartbeatRequest,
    ) -> StreamsHeartbeatOutput {
        let h: &mut Harness = self.borrow_mut();
        let out = h.streams_heartbeat(version, &r);
        // The answer must be encodable at the request's version (no field of another version).
        out.response
            .to_bytes(version)
            .unwrap_or_else(|e| panic!("v{version} response: {e}"));
        out
    }

    fn hb(&mut self, r: rq::StreamsGroupHeartbeatRequest) -> StreamsHeartbeatOutput {
        self.hb_at(1, r)
    }

    fn push(
        &mut self,
        r: upd::StreamsGroupTopologyDescriptionUpdateRequest,
    ) -> StreamsGroupTopologyDescriptionUpdateResponse {
        let h: &mut Harness = self.borrow_mut();
        let ctx = h.ctx(0);
        let out = h.c.streams_group_topology_description_update(&ctx, &r);
        out.response.to_bytes(0).expect("v0 response");
        if out.response.error_code != 0 {
            assert!(out.records.is_empty(), "a failed push wrote records");
        }
        h.absorb(&out.records);
        out.response
    }

    fn describe(&self, include: bool) -> describe::DescribedGroup {
        let h: &Harness = self.borrow();
        let r = StreamsGroupDescribeRequest {
            group_ids: vec!["g".to_string().into()],
            include_topology_description: include,
            ..Default::default()
        };
        let resp = h.c.streams_group_describe(&h.ctx(1), &r);
        resp.to_bytes(1).expect("v1 describe response");
        resp.groups.into_iter().next().unwrap()
    }
}

impl V1Calls for Harness {}

#[test]
fn v1_heartbeat_carries_the_int64_lag_and_asks_for_the_description_once() {
    let mut h = harness();
    let r = h.hb(join("m1", "p1")).response;
    assert_eq!(r.error_code, 0);
    let e = r.member_epoch;
    assert_eq!(r.acceptable_recovery_lag, 10_000);
    assert_eq!(
        r.acceptable_recovery_lag_legacy, 0,
        "a v0-only field, 0 in 4.4"
    );
    assert!(r.topology_description_required, "no description stored yet");
    // The ask is backed off for 30 s: neither the next heartbeat nor a second member is asked.
    h.now += 1000;
    assert!(!h.hb(beat("m1", e)).response.topology_description_required);
    assert!(
        !h.hb(join("m2", "p2"))
            .response
            .topology_description_required
    );
    let e = h.hb(beat("m1", e)).response.member_epoch;
    // After the backoff the group is asked again (the next wait doubles: 60 s).
    h.now += 30_000;
    assert!(h.hb(beat("m1", e)).response.topology_description_required);
    h.now += 30_000;
    assert!(!h.hb(beat("m1", e)).response.topology_description_required);
    h.now += 30_000;
    assert!(h.hb(beat("m1", e)).response.topology_description_required);
}

#[test]
fn v0_heartbeat_is_never_asked_for_a_description() {
    let mut h = harness();
    let r = h.hb_at(0, join("m1", "p1")).response;
    assert_eq!(r.error_code, 0);
    assert!(!r.topology_description_required);
    let e = r.member_epoch;
    // A v1 heartbeat of the same group is asked (the v0 one armed no backoff).
    assert!(h.hb(beat("m1", e)).response.topology_description_required);
}

#[test]
fn pushed_description_is_stored_described_and_survives_replay() {
    let mut h = harness();
    let e = h.hb(join("m1", "p1")).response.member_epoch;
    // Before the push: NOT_REQUESTED without the flag, NOT_STORED with it; AssignorName sticky.
    let d = h.describe(false);
    assert_eq!(d.topology_description_status, STATUS_NOT_REQUESTED);
    assert_eq!(d.assignor_name.as_deref(), Some("sticky"));
    let d = h.describe(true);
    assert_eq!(d.topology_description_status, STATUS_NOT_STORED);
    assert!(d.topology_description.is_none());

    let r = h.push(push("m1", 0, description()));
    assert_eq!((r.error_code, r.error_message), (0, None));
    let d = h.describe(true);
    assert_eq!(d.topology_description_status, STATUS_AVAILABLE);
    let td = d.topology_description.expect("description");
    assert_eq!(td.subtopologies.len(), 1);
    let nodes = &td.subtopologies[0].nodes;
    assert_eq!(nodes.len(), 3);
    let topics: Vec<&str> = nodes[0].source_topics.iter().map(|s| &**s).collect();
    assert_eq!(topics, ["in"], "repeats dropped");
    assert!(nodes[0].stores.is_empty(), "a source node keeps no stores");
    assert_eq!(nodes[1].stores.len(), 1);
    assert_eq!(nodes[2].sink_topic.as_deref(), Some("out"));
    // Not requested: no description even though one is stored.
    let d = h.describe(false);
    assert_eq!(d.topology_description_status, STATUS_NOT_REQUESTED);
    assert!(d.topology_description.is_none());
    // Stored: heartbeats no longer ask, even after the backoff.
    h.now += 3_600_000;
    assert!(!h.hb(beat("m1", e)).response.topology_description_required);
    // The record is what replay rebuilds (checked by `check`), and it is type 25.
    assert!(h.log.iter().any(|r| r.record_type() == 25));
}

#[test]
fn push_errors_follow_kafka_4_4() {
    let mut h = harness();
    // No group yet.
    let r = h.push(push("m1", 0, description()));
    assert_eq!(r.error_code, ErrorCode::GroupIdNotFound.code());
    assert_eq!(r.error_message.as_deref(), Some("Group g not found."));
    h.hb(join("m1", "p1"));
    let r = h.push(push(" ", 0, description()));
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(r.error_message.as_deref(), Some("MemberId can't be empty."));
    let r = h.push(push("m9", 0, description()));
    assert_eq!(r.error_code, ErrorCode::UnknownMemberId.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Member m9 is not a member of group g.")
    );
    let r = h.push(push("m1", 3, description()));
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Topology epoch 3 does not match the group's current topology epoch 0.")
    );
    let mut bad = description();
    bad.subtopologies[0].nodes[1].node_type = 7;
    let r = h.push(push("m1", 0, bad));
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Unknown topology node type: 7")
    );
    let mut bad = description();
    bad.global_stores = vec![upd::TopologyDescriptionGlobalStore {
        source: node("s", 2),
        processor: node("p", 2),
        ..Default::default()
    }];
    let r = h.push(push("m1", 0, bad));
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Global store must be composed of a source and a processor node.")
    );
    assert_eq!(
        h.describe(true).topology_description_status,
        STATUS_NOT_STORED
    );
}

#[test]
fn descriptions_off_answers_as_kafka_4_4_without_a_plugin() {
    let mut h = harness_with(StreamsGroupConfig {
        initial_rebalance_delay_ms: 0,
        topology_descriptions: false,
        ..Default::default()
    });
    assert!(
        !h.hb(join("m1", "p1"))
            .response
            .topology_description_required
    );
    let r = h.push(push("m1", 0, description()));
    assert_eq!(r.error_code, ErrorCode::UnsupportedVersion.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("The broker has no streams group topology description plugin configured.")
    );
    assert_eq!(
        h.describe(true).topology_description_status,
        STATUS_NOT_STORED
    );
    assert_eq!(
        h.describe(false).topology_description_status,
        STATUS_NOT_REQUESTED
    );
}

#[test]
fn missing_client_tags_is_status_6_at_v1_only() {
    let mut h = harness_with(StreamsGroupConfig {
        initial_rebalance_delay_ms: 0,
        rack_aware_assignment_tags: vec!["zone".into(), "cluster".into()],
        ..Default::default()
    });
    let mut j = join("m1", "p1");
    j.client_tags = Some(vec![rq::KeyValue {
        key: "zone".to_string().into(),
        value: "a".to_string().into(),
        ..Default::default()
    }]);
    let r = h.hb(j).response;
    assert_eq!(r.error_code, 0);
    let e = r.member_epoch;
    let six: Vec<String> = r
        .status
        .iter()
        .flatten()
        .filter(|s| s.status_code == status_codes::MISSING_CLIENT_TAGS)
        .map(|s| s.status_detail.to_string())
        .collect();
    assert_eq!(
        six,
        ["Missing required client tags for rack-aware standby assignment: [cluster]. Configure them via 'client.tag.<tagKey>' in your Streams config."]
    );
    // The tags are part of the assignment configs the group records.
    let g = h.c.streams_group("g").unwrap();
    assert_eq!(
        g.last_assignment_configs
            .get(RACK_AWARE_ASSIGNMENT_TAGS)
            .map(String::as_str),
        Some("zone,cluster")
    );
    // A v0 heartbeat never sees status 6.
    let r = h.hb_at(0, beat("m1", e)).response;
    assert!(r
        .status
        .iter()
        .flatten()
        .all(|s| s.status_code != status_codes::MISSING_CLIENT_TAGS));
}

fn static_join(member: &str, process: &str, instance: &str) -> rq::StreamsGroupHeartbeatRequest {
    rq::StreamsGroupHeartbeatRequest {
        instance_id: Some(instance.to_string().into()),
        ..join(member, process)
    }
}

fn static_beat(member: &str, epoch: i32, instance: &str) -> rq::StreamsGroupHeartbeatRequest {
    rq::StreamsGroupHeartbeatRequest {
        instance_id: Some(instance.to_string().into()),
        ..beat(member, epoch)
    }
}

fn active_of(
    r: &crate::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse,
) -> Vec<(String, Vec<i32>)> {
    r.active_tasks
        .iter()
        .flatten()
        .map(|t| (t.subtopology_id.to_string(), t.partitions.iter().collect()))
        .collect()
}

#[test]
fn static_member_leaves_with_minus_2_and_its_replacement_gets_the_same_tasks() {
    let mut h = harness();
    let r = h.hb(static_join("a1", "pa", "ia")).response;
    assert_eq!(r.error_code, 0, "{:?}", r.error_message);
    let r2 = h.hb(join("b1", "pb")).response;
    assert_eq!(r2.error_code, 0);
    // Let both converge: a1 gives up what b1 gets, then both are stable.
    let mut ea = r.member_epoch;
    let mut eb = r2.member_epoch;
    let mut a_tasks = Vec::new();
    for _ in 0..4 {
        let owned = |t: &Vec<(String, Vec<i32>)>| {
            Some(
                t.iter()
                    .map(|(s, ps)| rq::TaskIds {
                        subtopology_id: s.clone().into(),
                        partitions: ps.clone().into(),
                        ..Default::default()
                    })
                    .collect::<Vec<_>>(),
            )
        };
        let mut ra = static_beat("a1", ea, "ia");
        ra.active_tasks = owned(&a_tasks);
        ra.standby_tasks = Some(vec![]);
        ra.warmup_tasks = Some(vec![]);
        let a = h.hb(ra).response;
        assert_eq!(a.error_code, 0, "{:?}", a.error_message);
        ea = a.member_epoch;
        if a.active_tasks.is_some() {
            a_tasks = active_of(&a);
        }
        let b = h.hb(beat("b1", eb)).response;
        assert_eq!(b.error_code, 0, "{:?}", b.error_message);
        eb = b.member_epoch;
    }
    assert_eq!(a_tasks.iter().map(|(_, p)| p.len()).sum::<usize>(), 1);
    let g = h.c.streams_group("g").unwrap();
    assert_eq!(
        g.static_member("ia").map(|m| m.member_id.as_str()),
        Some("a1")
    );
    let epoch_before = g.group_epoch;

    // A temporary leave (-2): the member stays, at epoch -2, with its tasks.
    let l = h.hb(static_beat("a1", -2, "ia")).response;
    assert_eq!(
        (l.error_code, l.member_epoch, l.member_id.to_string()),
        (0, -2, "a1".into())
    );
    let g = h.c.streams_group("g").unwrap();
    assert_eq!(g.members["a1"].member_epoch, -2);
    assert_eq!(
        g.group_epoch, epoch_before,
        "no rebalance for a temporary leave"
    );

    // Another member id may not take the instance's place while it is held...
    // (only after -2; a join while the owner is active is UNRELEASED_INSTANCE_ID, below)
    let r = h.hb(static_join("a2", "pa", "ia")).response;
    assert_eq!(r.error_code, 0, "{:?}", r.error_message);
    // ... and the replacement gets a1's tasks at once, without a group-epoch bump.
    assert_eq!(active_of(&r), a_tasks);
    let g = h.c.streams_group("g").unwrap();
    assert!(!g.members.contains_key("a1"));
    assert_eq!(
        g.static_member("ia").map(|m| m.member_id.as_str()),
        Some("a2")
    );
    assert_eq!(g.group_epoch, epoch_before);
    assert_eq!(r.member_epoch, g.assignment_epoch);

    // The old member id is fenced; a second join of the instance is UNRELEASED_INSTANCE_ID.
    let f = h.hb(static_beat("a1", ea, "ia")).response;
    assert_eq!(f.error_code, ErrorCode::FencedInstanceId.code());
    assert_eq!(
        f.error_message.as_deref(),
        Some("Static member a1 with instance id ia was fenced by member a2.")
    );
    let u = h.hb(static_join("a3", "pa", "ia")).response;
    assert_eq!(u.error_code, ErrorCode::UnreleasedInstanceId.code());
    assert_eq!(
        u.error_message.as_deref(),
        Some("Static member a3 with instance id ia cannot join the group because the instance id is owned by a2 member.")
    );
    let x = h.hb(static_beat("a2", r.member_epoch, "ix")).response;
    assert_eq!(x.error_code, ErrorCode::UnknownMemberId.code());
    assert_eq!(
        x.error_message.as_deref(),
        Some("Instance id ix is unknown.")
    );

    // A -1 leave removes the static member and bumps the group epoch.
    let l = h.hb(static_beat("a2", -1, "ia")).response;
    assert_eq!((l.error_code, l.member_epoch), (0, -1));
    let g = h.c.streams_group("g").unwrap();
    assert!(g.static_member("ia").is_none());
    assert_eq!(g.group_epoch, epoch_before + 1);
}

#[test]
fn static_member_at_minus_2_is_removed_when_its_session_expires() {
    let mut h = harness();
    let r = h.hb(static_join("a1", "pa", "ia")).response;
    assert_eq!(r.error_code, 0);
    h.now += 100;
    let l = h.hb(static_beat("a1", -2, "ia")).response;
    assert_eq!(l.member_epoch, -2);
    h.advance(45_000);
    assert!(h.c.streams_group("g").unwrap().members.is_empty());
    // The instance id is free again: a new member joins as a new static member.
    let r = h.hb(static_join("a2", "pa", "ia")).response;
    assert_eq!(r.error_code, 0);
}

#[test]
fn static_heartbeat_errors_follow_kafka_4_4() {
    let mut h = harness();
    // -2 without an instance id is invalid, -2 for an unknown instance is UNKNOWN_MEMBER_ID.
    h.hb(join("m1", "p1"));
    let r = h.hb(beat("m1", -2)).response;
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("InstanceId can't be null.")
    );
    let r = h.hb(static_beat("m1", -2, "nope")).response;
    assert_eq!(r.error_code, ErrorCode::UnknownMemberId.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Instance id nope is unknown.")
    );
    let r = h.hb(static_join("m2", "p2", "")).response;
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("InstanceId can't be empty.")
    );
    // A static member's metadata change that the assignment does not read bumps nothing.
    let r = h.hb(static_join("s1", "ps", "is")).response;
    assert_eq!(r.error_code, 0);
    let before = h.c.streams_group("g").unwrap().group_epoch;
    let mut b = static_beat("s1", r.member_epoch, "is");
    b.rebalance_timeout_ms = 9000;
    assert_eq!(h.hb(b).response.error_code, 0);
    let g = h.c.streams_group("g").unwrap();
    assert_eq!(g.members["s1"].rebalance_timeout_ms, 9000);
    assert_eq!(g.group_epoch, before);
    // A rack change does.
    let mut b = static_beat("s1", g.members["s1"].member_epoch, "is");
    b.rack_id = Some("r1".to_string().into());
    assert_eq!(h.hb(b).response.error_code, 0);
    assert_eq!(h.c.streams_group("g").unwrap().group_epoch, before + 1);
}

#[test]
fn a_d1_topology_update_makes_the_stored_description_stale() {
    let mut h = harness();
    let e1 = h.hb(join("m1", "p1")).response.member_epoch;
    assert_eq!(h.push(push("m1", 0, description())).error_code, 0);
    assert_eq!(
        h.describe(true).topology_description_status,
        STATUS_AVAILABLE
    );
    // m2 brings topology epoch 1 (D1): the group moves on and asks for the new description.
    let r = h.hb(rq::StreamsGroupHeartbeatRequest {
        topology: Some(topology(1)),
        ..join("m2", "p2")
    });
    assert_eq!(r.response.error_code, 0, "{:?}", r.response.error_message);
    assert!(r.response.topology_description_required);
    assert_eq!(
        h.describe(true).topology_description_status,
        STATUS_NOT_STORED
    );
    // m1 is stale: it gets STALE_TOPOLOGY and is not asked.
    h.now += 60_000;
    let r = h.hb(beat("m1", e1)).response;
    assert!(r
        .status
        .iter()
        .flatten()
        .any(|s| s.status_code == status_codes::STALE_TOPOLOGY));
    assert!(!r.topology_description_required);
    // The old epoch's description is refused; the new one is stored.
    let r = h.push(push("m1", 0, description()));
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(h.push(push("m2", 1, description())).error_code, 0);
    assert_eq!(
        h.describe(true).topology_description_status,
        STATUS_AVAILABLE
    );
}
