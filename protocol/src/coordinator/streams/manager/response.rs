//! The last step of a heartbeat: what the answer carries besides the member's epoch (§2.7,
//! §2.10; Kafka 4.4's `GroupMetadataManager.streamsGroupHeartbeat` after its records): the
//! statuses in Kafka's order, the topology-description ask (KIP-1331), the task lists and the
//! partitions of every member with an interactive-query endpoint.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};

use super::super::config::{status_codes, RACK_AWARE_ASSIGNMENT_TAGS};
use super::super::group::{Endpoint, StreamsGroup, StreamsGroupMember};
use super::super::tasks::{TaskSet, TasksTuple};
use super::super::topology::{ConfiguredSubtopology, ConfiguredTopology};
use super::side::Volatile;
use crate::coordinator::context::{HbError, TopicMetadata};
use crate::generated::streams_group_heartbeat_response::{
    self as hb, StreamsGroupHeartbeatResponse,
};

/// First wait (ms) before a group is asked again for its topology description (Kafka 4.4's
/// `StreamsGroupTopologyDescriptionBackoff`: 30 s, doubling per unanswered ask, at most 1 h).
pub(crate) const DESCRIPTION_ASK_INITIAL_MS: i64 = 30_000;
/// Longest wait (ms) between two asks for the same topology epoch's description.
pub(crate) const DESCRIPTION_ASK_MAX_MS: i64 = 3_600_000;

/// The answer to a failed heartbeat: only the error code and message (member id empty, epoch 0,
/// interval 0, task lists null), as Kafka answers.
pub(super) fn failed(e: HbError) -> StreamsGroupHeartbeatResponse {
    StreamsGroupHeartbeatResponse {
        error_code: e.code,
        error_message: e.message.map(Into::into),
        ..Default::default()
    }
}

fn status(code: i8, detail: String) -> hb::Status {
    hb::Status {
        status_code: code,
        status_detail: detail.into(),
        ..Default::default()
    }
}

/// The task lists of an answer (`TaskIds` per subtopology with tasks).
pub(super) fn task_ids(s: &TaskSet) -> Vec<hb::TaskIds> {
    s.iter()
        .filter(|(_, ps)| !ps.is_empty())
        .map(|(id, ps)| hb::TaskIds {
            subtopology_id: id.clone().into(),
            partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
            ..Default::default()
        })
        .collect()
}

/// What [`statuses`] reads besides the group and the member.
pub(super) struct StatusInputs<'a> {
    pub configured: Option<&'a ConfiguredTopology>,
    pub delayed: bool,
    pub shutdown_requester: Option<&'a str>,
    /// v1+ heartbeats get MISSING_CLIENT_TAGS (Kafka 4.4, KAFKA-20744).
    pub v1: bool,
}

/// The statuses of an answer to member `mid` (at `topology_epoch`), in Kafka's order:
/// STALE_TOPOLOGY, ASSIGNMENT_DELAYED, the topic-configuration status, SHUTDOWN_APPLICATION,
/// MISSING_CLIENT_TAGS (v1+).
pub(super) fn statuses(
    g: &StreamsGroup,
    mid: &str,
    topology_epoch: i32,
    inputs: &StatusInputs<'_>,
) -> Vec<hb::Status> {
    let mut out = Vec::new();
    if topology_epoch < g.topology_epoch() {
        out.push(status(
            status_codes::STALE_TOPOLOGY,
            format!(
                "The member's topology epoch {topology_epoch} is behind the group's topology epoch {}.",
                g.topology_epoch()
            ),
        ));
    }
    if inputs.delayed {
        out.push(status(
            status_codes::ASSIGNMENT_DELAYED,
            "Assignment delayed due to the configured initial rebalance delay.".into(),
        ));
    }
    if let Some(s) = inputs.configured.and_then(|c| c.status.as_ref()) {
        out.push(status(s.code, s.detail.clone()));
    }
    if let Some(who) = inputs.shutdown_requester {
        out.push(status(
            status_codes::SHUTDOWN_APPLICATION,
            format!("Streams group member {who} encountered a fatal error and requested a shutdown for the entire application."),
        ));
    }
    // The group's assignment configs are those this heartbeat computed (a change bumped them).
    let missing = inputs
        .v1
        .then(|| missing_client_tags(&g.last_assignment_configs, g, mid))
        .flatten();
    if let Some(missing) = missing {
        out.push(status(status_codes::MISSING_CLIENT_TAGS, format!(
            "Missing required client tags for rack-aware standby assignment: [{}]. Configure them via 'client.tag.<tagKey>' in your Streams config.",
            missing.join(", ")
        )));
    }
    out
}

/// The tag keys `rack.aware.assignment.tags` of `configs` names that member `mid` of `g` lacks (Kafka 4.4's
/// check in `streamsGroupHeartbeat`: the value trimmed, split at commas with the blanks around
/// them, empty pieces kept), in configured order; `None` when none is missing or no tag is
/// configured.
fn missing_client_tags(
    configs: &BTreeMap<String, String>,
    g: &StreamsGroup,
    mid: &str,
) -> Option<Vec<String>> {
    let value = configs.get(RACK_AWARE_ASSIGNMENT_TAGS)?.trim();
    if value.is_empty() {
        return None;
    }
    let m = g.members.get(mid)?;
    let missing: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|t| !m.client_tags.contains_key(*t))
        .map(str::to_string)
        .collect();
    (!missing.is_empty()).then_some(missing)
}

/// Whether a heartbeat of group `g` asks for its topology description (KIP-1331; Kafka 4.4's
/// `StreamsGroupTopologyDescriptionManager.maybeSetTopologyDescriptionRequired` with its backoff):
/// the group has a topology, no description of its epoch is stored, and no ask for that epoch is
/// waiting out its backoff (30 s, doubling per ask of the same epoch, at most 1 h; Kafka adds a
/// ±20 % jitter, kwire does not). Asking arms the next backoff in `vol`.
pub(super) fn ask_description(vol: &mut Volatile, g: &StreamsGroup, now_ms: i64) -> bool {
    let current = g.topology_epoch();
    if current < 0
        || g.topology_description
            .as_ref()
            .is_some_and(|d| d.epoch == current)
    {
        return false;
    }
    let attempts = match vol.description_ask {
        Some((e, _, next)) if e == current && now_ms < next => return false,
        Some((e, n, _)) if e == current => n.saturating_add(1),
        _ => 0,
    };
    let delay = DESCRIPTION_ASK_INITIAL_MS
        .saturating_mul(1_i64 << attempts.min(20))
        .min(DESCRIPTION_ASK_MAX_MS);
    vol.description_ask = Some((current, attempts, now_ms.saturating_add(delay)));
    true
}

/// A member's standby and warm-up tasks together (Kafka's `standbyAndWarmupTasks`, §2.7).
fn standby_and_warmup(t: &TasksTuple) -> TaskSet {
    let mut out = t.standby.clone();
    for (s, ps) in &t.warmup {
        out.entry(s.clone()).or_default().extend(ps.iter().copied());
    }
    out
}

/// The source and repartition source partitions of `tasks`, by topic (§2.7): a task's
/// partition of every input topic of its subtopology that has that partition.
fn partitions(
    subs: &BTreeMap<String, ConfiguredSubtopology>,
    topics: &BTreeMap<String, TopicMetadata>,
    tasks: &TaskSet,
) -> Vec<hb::TopicPartition> {
    let mut by_topic: BTreeMap<String, BTreeSet<i32>> = BTreeMap::new();
    for (s, ps) in tasks {
        let Some(sub) = subs.get(s) else { continue };
        let sources = sub
            .source_topics
            .iter()
            .chain(sub.repartition_source_topics.keys());
        for t in sources {
            let count = sub
                .repartition_source_topics
                .get(t)
                .map(|i| i.partitions)
                .or_else(|| topics.get(t).map(|m| m.partitions))
                .unwrap_or(0)
                .max(0) as usize;
            by_topic
                .entry(t.clone())
                .or_default()
                .extend(ps.iter().copied().take(count));
        }
    }
    by_topic
        .into_iter()
        .map(|(t, ps)| hb::TopicPartition {
            topic: t.into(),
            partitions: ps.into_iter().collect::<Vec<i32>>().into(),
            ..Default::default()
        })
        .collect()
}

/// PartitionsByUserEndpoint (§2.7): one entry per member with an endpoint, other members
/// first (by member id), the heartbeating member `me` last.
pub(super) fn endpoints(
    g: &StreamsGroup,
    configured: Option<&ConfiguredTopology>,
    me: &str,
    topics: &BTreeMap<String, TopicMetadata>,
) -> Vec<hb::EndpointToPartitions> {
    let subs = configured.and_then(|c| c.subtopologies.as_ref());
    let of = |tasks: &TaskSet| subs.map_or_else(Vec::new, |s| partitions(s, topics, tasks));
    let entry = |m: &StreamsGroupMember, e: &Endpoint| hb::EndpointToPartitions {
        user_endpoint: hb::Endpoint {
            host: e.host.clone().into(),
            port: e.port,
            ..Default::default()
        },
        active_partitions: of(&m.assigned.active),
        // Kafka 4.4 lists warm-up tasks with the standbys (`standbyAndWarmupTasks`).
        standby_partitions: of(&standby_and_warmup(&m.assigned)),
        ..Default::default()
    };
    let mut out: Vec<hb::EndpointToPartitions> = g
        .members
        .values()
        .filter(|m| m.member_id != me)
        .filter_map(|m| m.user_endpoint.as_ref().map(|e| entry(m, e)))
        .collect();
    if let Some(m) = g.members.get(me) {
        if let Some(e) = &m.user_endpoint {
            out.push(entry(m, e));
        }
    }
    out
}
