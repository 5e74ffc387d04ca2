//! Step seven of a heartbeat, and the end of the initial rebalance delay: the target of every
//! member at the group epoch (KIP-1071; Kafka 4.4's `TargetAssignmentBuilder` over the
//! configured [`TaskAssignor`](super::super::assignor::TaskAssignor)), and whether a caught-up
//! warm-up calls for a new target (§2.12). The assignment runs in phase one (the assignor may
//! fail) over the group as it stands with the heartbeating member as it will be written (an
//! [`Overlay`]); phase two writes the targets that changed.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::BTreeMap;

use super::super::assignor::{warmup_caught_up, AssignmentMemberSpec, GroupSpec, SubtopologySpec};
use super::super::config::NUM_STANDBY_REPLICAS;
use super::super::group::{StreamsGroup, StreamsGroupMember};
use super::super::records::StreamsRecord;
use super::super::tasks::{TaskOffsets, TasksTuple};
use super::super::topology::{ConfiguredSubtopology, ConfiguredTopology};
use super::request::Reported;
use super::side::StreamsSide;
use crate::coordinator::context::HbError;
use crate::error::ErrorCode;

/// Every member's target tasks, by member id.
pub(super) type Assigned = BTreeMap<String, TasksTuple>;

/// The heartbeating member as its records will leave it, for an assignment computed before
/// they are written.
pub(super) struct Overlay<'a> {
    /// The member with the heartbeat's metadata (its current tasks unchanged).
    pub member: &'a StreamsGroupMember,
    /// The static member it replaces, left out of the group.
    pub replaced: Option<&'a str>,
    /// Its task offsets and end offsets as this heartbeat notes them (§2.12).
    pub offsets: (Option<&'a TaskOffsets>, Option<&'a TaskOffsets>),
    /// Whether it may warm up (this heartbeat is v1 or later).
    pub warmups_allowed: bool,
}

/// The assignment of `group` (as it stands, with `overlay` when a heartbeat computes it) for
/// `standby` replicas; without a ready topology every target is empty.
///
/// # Errors
/// UNKNOWN_SERVER_ERROR when the assignor fails.
pub(super) fn assign(
    side: &StreamsSide,
    group: &StreamsGroup,
    overlay: Option<&Overlay<'_>>,
    configured: Option<&ConfiguredTopology>,
    standby: i32,
) -> Result<Assigned, HbError> {
    let subs = configured
        .filter(|c| c.is_ready())
        .and_then(|c| c.subtopologies.as_ref());
    let Some(subs) = subs else {
        return Ok(Assigned::new());
    };
    let spec = spec(side, group, overlay, subs, standby);
    side.config.assignor.assign(&spec).map_err(|_| HbError {
        code: ErrorCode::UnknownServerError.code(),
        message: None,
    })
}

/// The records of an assignment over `group` (its records written): each member's target when
/// it changed, then the target epoch `epoch`.
pub(super) fn records(
    group: &StreamsGroup,
    mut assigned: Assigned,
    epoch: i32,
) -> Vec<StreamsRecord> {
    let gid = group.group_id.as_str();
    let mut recs = Vec::new();
    for m in group.members.keys() {
        let mut t = assigned.remove(m).unwrap_or_default();
        t.normalize();
        if group.targets.get(m) != Some(&t) {
            recs.push(StreamsRecord::target(gid, m, &t));
        }
    }
    recs.push(StreamsRecord::target_epoch(gid, epoch));
    recs
}

/// The targets of every member of `group` at its group epoch (the end of the initial
/// rebalance delay): its records, changing nothing.
///
/// # Errors
/// UNKNOWN_SERVER_ERROR when the assignor fails.
pub(super) fn compute(
    side: &StreamsSide,
    group: &StreamsGroup,
    configured: Option<&ConfiguredTopology>,
) -> Result<Vec<StreamsRecord>, HbError> {
    let standby = group
        .last_assignment_configs
        .get(NUM_STANDBY_REPLICAS)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let assigned = assign(side, group, None, configured, standby)?;
    Ok(records(group, assigned, group.group_epoch))
}

/// What the assignor reads (Kafka 4.4's `TargetAssignmentBuilder`): each member's current tasks
/// (`assignedTasks`, not its last target), its lags' inputs and whether it may warm up (§2.12),
/// the subtopologies' task counts, and the group's standby and warm-up counts.
fn spec(
    side: &StreamsSide,
    group: &StreamsGroup,
    overlay: Option<&Overlay<'_>>,
    subs: &BTreeMap<String, ConfiguredSubtopology>,
    standby: i32,
) -> GroupSpec {
    let gid = group.group_id.as_str();
    let vol = side.volatile.get(gid);
    let of = |m: &StreamsGroupMember| {
        let stored = vol.and_then(|v| v.task_offsets.get(&m.member_id));
        let offsets = (stored.map(|s| &s.0), stored.map(|s| &s.1));
        let warmups = vol.is_some_and(|v| v.warmups_allowed.contains(&m.member_id));
        member_spec(m, offsets, warmups)
    };
    let left_out =
        |id: &str| overlay.is_some_and(|o| o.member.member_id == id || o.replaced == Some(id));
    let mut members: BTreeMap<String, AssignmentMemberSpec> = group
        .members
        .values()
        .filter(|m| !left_out(&m.member_id))
        .map(|m| (m.member_id.clone(), of(m)))
        .collect();
    if let Some(o) = overlay {
        let stored = vol.and_then(|v| v.task_offsets.get(&o.member.member_id));
        let offsets = (
            o.offsets.0.or(stored.map(|s| &s.0)),
            o.offsets.1.or(stored.map(|s| &s.1)),
        );
        let m = member_spec(o.member, offsets, o.warmups_allowed);
        members.insert(o.member.member_id.clone(), m);
    }
    GroupSpec {
        members,
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
fn member_spec(
    m: &StreamsGroupMember,
    (offsets, ends): (Option<&TaskOffsets>, Option<&TaskOffsets>),
    warmups_allowed: bool,
) -> AssignmentMemberSpec {
    let prev = m.assigned.clone();
    AssignmentMemberSpec {
        instance_id: m.instance_id.clone(),
        rack_id: m.rack_id.clone(),
        process_id: m.process_id.clone(),
        client_tags: m.client_tags.clone(),
        active_tasks: prev.active,
        standby_tasks: prev.standby,
        warmup_tasks: prev.warmup,
        task_offsets: offsets.cloned().unwrap_or_default(),
        task_end_offsets: ends.cloned().unwrap_or_default(),
        warmups_allowed,
    }
}

/// §2.12: whether a warm-up task in `target` (the member's target) has caught up by the offsets
/// this heartbeat `reported` (else the member `mid`'s stored ones), which calls for a new
/// target. False when nothing was reported.
pub(super) fn warmup_done(
    side: &StreamsSide,
    gid: &str,
    mid: &str,
    target: Option<&TasksTuple>,
    reported: &Reported,
) -> bool {
    if !reported.any() {
        return false;
    }
    let all = side.volatile.get(gid).map(|v| &v.task_offsets);
    let stored = all.and_then(|a| a.get(mid));
    let own = (
        reported.offsets.as_ref().or(stored.map(|x| &x.0)),
        reported.end_offsets.as_ref().or(stored.map(|x| &x.1)),
    );
    let lag = side.config.acceptable_recovery_lag;
    target.is_some_and(|t| warmup_caught_up(own, all, &t.warmup, lag))
}
