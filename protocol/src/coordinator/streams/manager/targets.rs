//! Step seven of a heartbeat, and the end of the initial rebalance delay: the target of every
//! member at the group epoch (KIP-1071; Kafka 4.4's `TargetAssignmentBuilder` over the
//! configured [`TaskAssignor`](super::super::assignor::TaskAssignor)), and whether a caught-up
//! warm-up calls for a new target (§2.12).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::BTreeMap;

use super::super::assignor::{warmup_caught_up, AssignmentMemberSpec, GroupSpec, SubtopologySpec};
use super::super::config::NUM_STANDBY_REPLICAS;
use super::super::group::{StreamsGroup, StreamsGroupMember};
use super::super::records::StreamsRecord;
use super::super::tasks::TasksTuple;
use super::super::topology::{ConfiguredSubtopology, ConfiguredTopology};
use super::request::Reported;
use super::side::StreamsSide;
use crate::coordinator::context::HbError;
use crate::error::ErrorCode;

/// Computes the target of every member of `group` at its group epoch: the records of changed
/// or new member targets, then the target epoch. Without a ready topology every target is
/// empty. Changes nothing.
///
/// # Errors
/// UNKNOWN_SERVER_ERROR when the assignor fails.
pub(super) fn compute(
    side: &StreamsSide,
    group: &StreamsGroup,
    configured: Option<&ConfiguredTopology>,
) -> Result<Vec<StreamsRecord>, HbError> {
    let gid = group.group_id.as_str();
    let subs = configured
        .filter(|c| c.is_ready())
        .and_then(|c| c.subtopologies.as_ref());
    let mut assigned = match subs {
        Some(subs) => side
            .config
            .assignor
            .assign(&spec(side, group, subs))
            .map_err(|_| HbError {
                code: ErrorCode::UnknownServerError.code(),
                message: None,
            })?,
        None => BTreeMap::new(),
    };
    let mut recs = Vec::new();
    for m in group.members.keys() {
        let mut t = assigned.remove(m).unwrap_or_default();
        t.normalize();
        if group.targets.get(m) != Some(&t) {
            recs.push(StreamsRecord::target(gid, m, &t));
        }
    }
    recs.push(StreamsRecord::target_epoch(gid, group.group_epoch));
    Ok(recs)
}

/// What the assignor reads of `group` (Kafka 4.4's `TargetAssignmentBuilder`): each member's
/// current tasks (`assignedTasks`, not its last target), its lags' inputs and whether it may
/// warm up (§2.12), the subtopologies' task counts, and the group's standby and warm-up counts.
fn spec(
    side: &StreamsSide,
    group: &StreamsGroup,
    subs: &BTreeMap<String, ConfiguredSubtopology>,
) -> GroupSpec {
    let gid = group.group_id.as_str();
    let standby = group
        .last_assignment_configs
        .get(NUM_STANDBY_REPLICAS)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    GroupSpec {
        members: group
            .members
            .values()
            .map(|m| (m.member_id.clone(), member_spec(side, gid, m)))
            .collect(),
        subtopologies: subs
            .iter()
            .map(|(id, s)| {
                let spec = SubtopologySpec {
                    num_tasks: s.num_tasks,
                    stateful: s.is_stateful(),
                };
                (id.clone(), spec)
            })
            .collect(),
        num_standby_replicas: standby,
        num_warmup_replicas: side.warmup_replicas(gid),
        acceptable_recovery_lag: side.config.acceptable_recovery_lag,
    }
}

/// One member as the assignor sees it.
fn member_spec(side: &StreamsSide, gid: &str, m: &StreamsGroupMember) -> AssignmentMemberSpec {
    let vol = side.volatile.get(gid);
    let prev = m.assigned.clone();
    let (task_offsets, task_end_offsets) = vol
        .and_then(|v| v.task_offsets.get(&m.member_id))
        .cloned()
        .unwrap_or_default();
    AssignmentMemberSpec {
        instance_id: m.instance_id.clone(),
        rack_id: m.rack_id.clone(),
        process_id: m.process_id.clone(),
        client_tags: m.client_tags.clone(),
        active_tasks: prev.active,
        standby_tasks: prev.standby,
        warmup_tasks: prev.warmup,
        task_offsets,
        task_end_offsets,
        warmups_allowed: vol.is_some_and(|v| v.warmups_allowed.contains(&m.member_id)),
    }
}

/// §2.12: whether a warm-up task in the target of member `mid` of `g` has caught up by the
/// offsets this heartbeat `reported` (else the member's stored ones), which calls for a new
/// target. False when nothing was reported.
pub(super) fn warmup_done(
    side: &StreamsSide,
    g: &StreamsGroup,
    mid: &str,
    reported: &Reported,
) -> bool {
    if !reported.any() {
        return false;
    }
    let all = side.volatile.get(&g.group_id).map(|v| &v.task_offsets);
    let stored = all.and_then(|a| a.get(mid));
    let own = (
        reported.offsets.as_ref().or(stored.map(|x| &x.0)),
        reported.end_offsets.as_ref().or(stored.map(|x| &x.1)),
    );
    let lag = side.config.acceptable_recovery_lag;
    g.targets
        .get(mid)
        .is_some_and(|t: &TasksTuple| warmup_caught_up(own, all, &t.warmup, lag))
}
