//! Steps two and three of a heartbeat (§2.4 with D1): the topology a join brings against the
//! group's, and the group's topology configured against the topic metadata (Kafka 4.4's
//! `StreamsGroup.configuredTopology` and `InternalTopicManager.configureTopics`), with the
//! check that owned tasks exist (§2.3).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::group::StreamsGroup;
use super::super::tasks::TasksTuple;
use super::super::topology::{self, ConfiguredTopology, StreamsTopology};
use super::request::topology_from_request;
use super::side::SharedConfigured;
use crate::coordinator::context::{fail, Context, HbError};
use crate::error::ErrorCode;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;

/// The topology a joining request declares: its epoch, and the topology itself when the group
/// adopts it (D1: no topology yet, or the group's epoch + 1).
pub(super) struct Declared {
    pub epoch: i32,
    pub adopted: Option<StreamsTopology>,
}

/// §2.4 step 2 with D1: the request's topology (joins only) against the group's `current`.
///
/// # Errors
/// STREAMS_INVALID_TOPOLOGY_EPOCH for the group's epoch with another topology or an epoch more
/// than one ahead; STREAMS_TOPOLOGY_FENCED for an older epoch.
pub(super) fn declared(
    current: Option<&StreamsTopology>,
    req: &StreamsGroupHeartbeatRequest,
) -> Result<Option<Declared>, HbError> {
    let Some(t) = &req.topology else {
        return Ok(None);
    };
    let t = topology_from_request(t);
    let adopt = check_topology_epoch(current, &t)?;
    Ok(Some(Declared {
        epoch: t.epoch,
        adopted: adopt.then_some(t),
    }))
}

/// D1: the topology a join brings, against the group's. Returns whether the group adopts it.
fn check_topology_epoch(
    group: Option<&StreamsTopology>,
    t: &StreamsTopology,
) -> Result<bool, HbError> {
    let Some(gt) = group else { return Ok(true) };
    let (er, eg) = (t.epoch, gt.epoch);
    if er == eg {
        if !gt.same_structure(t) {
            return fail(
                ErrorCode::StreamsInvalidTopologyEpoch.code(),
                format!("Topology with epoch {er} differs from the group's topology with the same epoch."),
            );
        }
        Ok(false)
    } else if er < eg {
        fail(
            ErrorCode::StreamsTopologyFenced.code(),
            format!("Topology epoch {er} is older than the group's topology epoch {eg}."),
        )
    } else if i64::from(er) > i64::from(eg) + 1 {
        fail(
            ErrorCode::StreamsInvalidTopologyEpoch.code(),
            format!(
                "Topology epoch {er} is more than one ahead of the group's topology epoch {eg}."
            ),
        )
    } else {
        Ok(true)
    }
}

/// The metadata hash (D6) and configured topology of `t` against the context's topic metadata.
pub(super) fn configure(ctx: &Context, t: &StreamsTopology) -> (u64, SharedConfigured) {
    let required = t.required_topics();
    let hash = ctx.metadata_hash(required.iter());
    let configured = topology::configure(t, |name| ctx.topics.get(name).map(|m| m.partitions));
    (hash, SharedConfigured::new(configured))
}

/// The validated topology epoch of a configured topology: its epoch when ready, else -1.
pub(super) fn validated_epoch(t: &StreamsTopology, c: &SharedConfigured) -> i32 {
    match c.as_ref() {
        Ok(c) if c.is_ready() => t.epoch,
        _ => -1,
    }
}

/// Step three's outcome: the configured topology in force, whether it was computed now (and is
/// to be cached), and the metadata hash and validated topology epoch it gives.
pub(super) struct Configured {
    pub current: Option<SharedConfigured>,
    pub fresh: bool,
    pub hash: u64,
    pub validated: i32,
}

impl Configured {
    /// The configured topology, when the group has one that could be configured.
    pub fn ok(&self) -> Option<&ConfiguredTopology> {
        self.current.as_ref().and_then(SharedConfigured::ok)
    }

    /// Whether the hash or validated epoch differs from what `g` holds (a group-epoch bump).
    pub fn changes(&self, g: &StreamsGroup) -> bool {
        self.hash != g.metadata_hash || self.validated != g.validated_topology_epoch
    }
}

/// §2.4 step 3: the group's `topology` (the one adopted, else `g`'s) is configured when it is
/// new (`adopted`) or nothing is `cached`; otherwise the cached configuration stands (shared,
/// not copied), with `g`'s hash and validated epoch.
///
/// # Errors
/// STREAMS_INVALID_TOPOLOGY when the topology cannot be configured.
pub(super) fn configure_step(
    ctx: &Context,
    g: &StreamsGroup,
    topology: Option<&StreamsTopology>,
    cached: Option<&SharedConfigured>,
    adopted: bool,
) -> Result<Configured, HbError> {
    let cached = cached.filter(|_| !adopted);
    let mut out = Configured {
        current: cached.cloned(),
        fresh: false,
        hash: g.metadata_hash,
        validated: g.validated_topology_epoch,
    };
    if let (Some(t), None) = (topology, cached) {
        let (hash, c) = configure(ctx, t);
        out.validated = validated_epoch(t, &c);
        out.hash = hash;
        out.current = Some(c);
        out.fresh = true;
    }
    if let Some(Err(e)) = out.current.as_ref().map(SharedConfigured::as_ref) {
        return fail(ErrorCode::StreamsInvalidTopology.code(), e.0.clone());
    }
    Ok(out)
}

/// Owned tasks must exist in a ready topology (§2.3), except for stale members, whose tasks
/// of removed subtopologies are simply revoked (D1).
///
/// # Errors
/// INVALID_REQUEST naming the unknown subtopology or the task out of range.
pub(super) fn check_owned(owned: &TasksTuple, c: &ConfiguredTopology) -> Result<(), HbError> {
    let Some(subs) = c.subtopologies.as_ref().filter(|_| c.is_ready()) else {
        return Ok(());
    };
    for (_, s, p) in owned.iter() {
        let Some(sub) = subs.get(s) else {
            return fail(
                ErrorCode::InvalidRequest.code(),
                format!("Subtopology {s} does not exist in the topology."),
            );
        };
        if p < 0 || p >= sub.num_tasks {
            return fail(
                ErrorCode::InvalidRequest.code(),
                format!(
                    "Task {p} for subtopology {s} is invalid. Number of tasks for this subtopology: {}",
                    sub.num_tasks
                ),
            );
        }
    }
    Ok(())
}
