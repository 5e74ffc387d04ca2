//! Step one of a heartbeat: the request's own checks (§2.2; Kafka 4.4's
//! `GroupMetadataManager.throwIfStreamsGroupHeartbeatRequestIsInvalid`), before any group is read.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::request::{self, Reported};
use crate::coordinator::context::{blank, fail, HbError};
use crate::error::ErrorCode;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;

/// Validates a heartbeat (§2.2 with D2/D3) and returns its reported task offsets. The checks run
/// in Kafka's order: unsupported features, ids, the fields of a join (epoch 0), of a static
/// leave (-2) and the epoch's range, then the owned-task lists and the topology.
///
/// # Errors
/// INVALID_REQUEST (or STREAMS_INVALID_TOPOLOGY for a changelog topic with a partition count)
/// with Kafka's message for the first rule broken.
pub(super) fn request(req: &StreamsGroupHeartbeatRequest) -> Result<Reported, HbError> {
    features(req)?;
    ids(req)?;
    match req.member_epoch {
        0 => join_fields(req)?,
        -2 if req.instance_id.is_none() => {
            return fail(
                ErrorCode::InvalidRequest.code(),
                "InstanceId can't be null.",
            )
        }
        e if e < -2 => {
            return fail(
                ErrorCode::InvalidRequest.code(),
                format!("MemberEpoch is {e}, but must be greater than or equal to -2."),
            )
        }
        _ => {}
    }
    task_lists(req)?;
    request::reported(req)
}

/// Features Kafka does not support (§2.2 step 1): source-topic regexes. Static members are
/// accepted since Kafka 4.4, warm-up tasks since kwire places them (§2.12).
fn features(req: &StreamsGroupHeartbeatRequest) -> Result<(), HbError> {
    let regex = req.topology.as_ref().is_some_and(|t| {
        t.subtopologies
            .iter()
            .any(|s| !s.source_topic_regex.is_empty())
    });
    if regex {
        return fail(
            ErrorCode::InvalidRequest.code(),
            "Regular expressions for source topics are not supported yet.",
        );
    }
    Ok(())
}

/// Member, group, instance and rack ids: not blank when given.
fn ids(req: &StreamsGroupHeartbeatRequest) -> Result<(), HbError> {
    let refuse = |what: &str| {
        fail(
            ErrorCode::InvalidRequest.code(),
            format!("{what} can't be empty."),
        )
    };
    if blank(&req.member_id) {
        return refuse("MemberId");
    }
    if blank(&req.group_id) {
        return refuse("GroupId");
    }
    if req.instance_id.as_deref().is_some_and(blank) {
        return refuse("InstanceId");
    }
    if req.rack_id.as_deref().is_some_and(blank) {
        return refuse("RackId");
    }
    Ok(())
}

/// A join (epoch 0): a rebalance timeout, three empty task lists, a topology, and no changelog
/// topic with a partition count.
fn join_fields(req: &StreamsGroupHeartbeatRequest) -> Result<(), HbError> {
    if req.rebalance_timeout_ms == -1 {
        return fail(
            ErrorCode::InvalidRequest.code(),
            "RebalanceTimeoutMs must be provided in first request.",
        );
    }
    for (list, name) in [
        (&req.active_tasks, "ActiveTasks"),
        (&req.standby_tasks, "StandbyTasks"),
        (&req.warmup_tasks, "WarmupTasks"),
    ] {
        if list.as_ref().is_none_or(|l| !l.is_empty()) {
            return fail(
                ErrorCode::InvalidRequest.code(),
                format!("{name} must be empty when (re-)joining."),
            );
        }
    }
    let Some(t) = &req.topology else {
        return fail(
            ErrorCode::InvalidRequest.code(),
            "Topology must be non-null when (re-)joining.",
        );
    };
    let changelogs = t
        .subtopologies
        .iter()
        .flat_map(|s| &s.state_changelog_topics);
    for c in changelogs {
        if c.partitions != 0 {
            return fail(
                ErrorCode::StreamsInvalidTopology.code(),
                format!(
                    "Changelog topic {} must have an undefined partition count, but it is set to {}.",
                    &*c.name, c.partitions
                ),
            );
        }
    }
    Ok(())
}

/// The three owned-task lists are all null or all non-null; a topology only with epoch 0.
fn task_lists(req: &StreamsGroupHeartbeatRequest) -> Result<(), HbError> {
    let set = [&req.active_tasks, &req.standby_tasks, &req.warmup_tasks]
        .iter()
        .filter(|l| l.is_some())
        .count();
    if set != 0 && set != 3 {
        return fail(
            ErrorCode::InvalidRequest.code(),
            "If one task-type is non-null, all must be non-null.",
        );
    }
    if req.member_epoch != 0 && req.topology.is_some() {
        return fail(
            ErrorCode::InvalidRequest.code(),
            "Topology can only be provided when (re-)joining.",
        );
    }
    Ok(())
}
