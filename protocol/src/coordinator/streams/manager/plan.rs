//! Phase one of a heartbeat (§2.4 steps 1 to 8; Kafka 4.4's
//! `GroupMetadataManager.streamsGroupHeartbeat`): the steps in Kafka's order, each writing only
//! into a [`Draft`] over the group as it stands. What they decide comes back as a [`Plan`] of
//! plain values, which phase two ([`commit`](super::commit)) applies; a step that fails drops
//! the draft, so nothing is written. Only the member's reported task offsets and v1 flag (soft
//! state, §2.12) are noted before the target is computed, as Kafka notes the offsets first.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::BTreeMap;

use super::super::group::{StreamsGroup, StreamsGroupMember, StreamsMemberState};
use super::super::reconcile::Reconcile;
use super::super::records::StreamsRecord;
use super::super::tasks::TasksTuple;
use super::draft::Draft;
use super::member::{self, Resolved};
use super::request::{self, Reported};
use super::side::{volatile_mut, StreamsSide};
use super::targets;
use super::topology::{self, Configured};
use crate::coordinator::context::{Context, HbError, RequestContext};
use crate::coordinator::timers::{Slot, TimerKind};
use crate::error::ErrorCode;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;

/// The target of a member without one, or while the initial rebalance delay holds it back.
static NO_TASKS: TasksTuple = TasksTuple {
    active: BTreeMap::new(),
    standby: BTreeMap::new(),
    warmup: BTreeMap::new(),
};

/// One heartbeat: who sent it, the request, and the time (ms).
#[derive(Clone, Copy)]
pub(super) struct Call<'r> {
    pub rc: &'r RequestContext,
    pub req: &'r StreamsGroupHeartbeatRequest,
    pub now_ms: i64,
}

impl Call<'_> {
    pub fn gid(&self) -> &str {
        &self.req.group_id
    }

    pub fn mid(&self) -> &str {
        &self.req.member_id
    }
}

/// What phase two does with a timer (the group's initial rebalance delay, the member's
/// rebalance timeout). Deciding it in phase one spares a heartbeat that changes nothing any
/// timer call but the session's.
pub(super) enum TimerChange {
    /// (Re-)armed as this kind at this deadline (ms).
    Arm(TimerKind, i64),
    /// Left as it is (armed or not).
    Keep,
    /// Cancelled.
    Cancel,
}

/// What phase one decided (see the module docs).
pub(super) struct Plan {
    /// The draft's records, in order.
    pub records: Vec<StreamsRecord>,
    /// The static member this join replaced under another member id (Kafka 4.4's
    /// `replaceStreamsMember`): its timers and soft state go.
    pub replaced: Option<String>,
    /// The initial rebalance delay: armed when a member joins an empty group, cancelled once
    /// the target is computed.
    pub delay: TimerChange,
    /// The member's rebalance timer: armed when it starts revoking, cancelled when it is done.
    pub rebalance: TimerChange,
    /// The member's epoch and topology epoch after this heartbeat.
    pub member_epoch: i32,
    pub topology_epoch: i32,
    pub configured: Configured,
    /// The initial rebalance delay holds the target back (ASSIGNMENT_DELAYED).
    pub delayed: bool,
    /// The endpoint-information epoch moves (§2.7).
    pub endpoint_moved: bool,
    /// The answer carries the task lists (a join, or the member's tasks changed).
    pub tasks_in_response: bool,
}

/// Runs steps 1 to 8 over `live`, the group as it stands (a new, empty one for a join that
/// creates it).
///
/// # Errors
/// The first step's refusal (see [`member::resolve`], [`topology::declared`],
/// [`topology::configure_step`], [`targets::compute`], [`topology::check_owned`]), and
/// FENCED_MEMBER_EPOCH when a member in an UNKNOWN state cannot reconcile.
pub(super) fn plan(
    ctx: &Context,
    side: &mut StreamsSide,
    live: &StreamsGroup,
    call: Call<'_>,
    reported: Reported,
) -> Result<Plan, HbError> {
    let (gid, mid, req) = (call.gid(), call.mid(), call.req);
    let owned = request::owned_of(req);
    let who = member::resolve(live, req, owned.as_ref(), side.config.max_size)?;
    let declared = topology::declared(live.topology.as_ref(), req)?;
    let epoch = declared.as_ref().map(|d| d.epoch);
    let updated = member::updated(&who.base, req, call.rc, epoch, who.is_new);
    let mut draft = Draft::new(live);
    let mut bump = write_member(
        &mut draft,
        gid,
        &who,
        updated.as_ref(),
        req.instance_id.is_some(),
    );
    let adopted = declared.and_then(|d| d.adopted);
    if let Some(t) = &adopted {
        draft.write(StreamsRecord::topology(gid, t));
        bump = true;
    }
    let cached = side.volatile.get(gid).and_then(|v| v.configured.as_ref());
    let configured = topology::configure_step(ctx, draft.group(), cached, adopted.is_some())?;
    let g = draft.group();
    bump = bump
        || configured.changes(g)
        || !side.configs_match(gid, &g.last_assignment_configs)
        || targets::warmup_done(side, g, mid, &reported);
    if bump {
        write_bump(&mut draft, side, gid, &configured);
    }
    note_reported(side, call, reported);
    let (delayed, delay) = target_step(&mut draft, ctx, side, live, call, &configured)?;
    let step = reconcile_step(
        &mut draft,
        call,
        &who,
        updated.as_ref(),
        owned.as_ref(),
        &configured,
        delayed,
    )?;
    Ok(Plan {
        records: draft.into_records(),
        replaced: who.replaced.map(|(old, _)| old).filter(|old| old != mid),
        delay,
        rebalance: step.rebalance,
        member_epoch: step.member_epoch,
        topology_epoch: step.topology_epoch,
        configured,
        delayed,
        endpoint_moved: step.endpoint_moved,
        tasks_in_response: req.member_epoch == 0 || step.tasks_changed,
    })
}

/// §2.4 step 1: the member's records. A static join that replaces a member first moves the old
/// member's metadata, target and tasks to the new member id (Kafka 4.4's `replaceStreamsMember`);
/// then changed metadata is written. Returns whether that bumps the group epoch: always for a
/// dynamic member, for a static one only when what the assignment reads changed (Kafka 4.4's
/// `hasEpochRelevantMemberConfigChanged`).
fn write_member(
    draft: &mut Draft<'_>,
    gid: &str,
    who: &Resolved<'_>,
    updated: Option<&StreamsGroupMember>,
    is_static: bool,
) -> bool {
    let base = &*who.base;
    if let Some((old_id, target)) = &who.replaced {
        draft.write(StreamsRecord::current_tombstone(gid, old_id));
        draft.write(StreamsRecord::target_tombstone(gid, old_id));
        draft.write(StreamsRecord::member_metadata_tombstone(gid, old_id));
        draft.write(StreamsRecord::member_metadata(gid, base));
        draft.write(StreamsRecord::target(gid, &base.member_id, target));
        draft.write(StreamsRecord::current(gid, base));
    }
    let Some(u) = updated else {
        return false;
    };
    draft.write(StreamsRecord::member_metadata(gid, u));
    !is_static || !u.same_assignment_inputs(base)
}

/// §2.4 step 5: the group-epoch bump with the new metadata hash, validated topology epoch and
/// assignment configs; a new group's first bump goes 0 -> 2 (Kafka 4.2).
fn write_bump(draft: &mut Draft<'_>, side: &StreamsSide, gid: &str, c: &Configured) {
    let g = draft.group();
    let next = if g.group_epoch == 0 {
        2
    } else {
        g.group_epoch + 1
    };
    let configs = side.assignment_configs(gid);
    draft.write(StreamsRecord::group_metadata(
        gid,
        next,
        c.hash,
        c.validated,
        &configs,
    ));
}

/// §2.12: notes whether the member may warm up (its latest heartbeat is v1 or later) and the
/// task offsets it reported, before the target is computed. Nothing is copied when nothing
/// changes.
fn note_reported(side: &mut StreamsSide, call: Call<'_>, reported: Reported) {
    let mid = call.mid();
    let Some(vol) = volatile_mut(&mut side.volatile, call.gid()) else {
        return;
    };
    if call.rc.api_version >= 1 {
        if !vol.warmups_allowed.contains(mid) {
            vol.warmups_allowed.insert(mid.to_string());
        }
    } else {
        vol.warmups_allowed.remove(mid);
    }
    if reported.any() {
        let entry = vol.task_offsets.entry(mid.to_string()).or_default();
        if let Some(o) = reported.offsets {
            entry.0 = o;
        }
        if let Some(o) = reported.end_offsets {
            entry.1 = o;
        }
    }
}

/// §2.4 steps 6 and 7: when the group epoch is ahead of the assignment epoch, the targets are
/// computed, unless the initial rebalance delay still runs. The delay is armed when a member
/// joins an empty group (and the delay is on), and ends when the targets are computed. Returns
/// whether the target is delayed and what becomes of the delay's timer; the armed deadline is
/// read only when the group epoch is ahead.
///
/// # Errors
/// UNKNOWN_SERVER_ERROR when the assignor fails.
fn target_step(
    draft: &mut Draft<'_>,
    ctx: &Context,
    side: &StreamsSide,
    live: &StreamsGroup,
    call: Call<'_>,
    configured: &Configured,
) -> Result<(bool, TimerChange), HbError> {
    let (gid, now_ms) = (call.gid(), call.now_ms);
    let delay = side.delay(gid);
    let started = (live.members.is_empty() && delay > 0).then(|| now_ms + i64::from(delay));
    let keep = started.map_or(TimerChange::Keep, |d| {
        TimerChange::Arm(TimerKind::InitialRebalanceDelay, d)
    });
    let g = draft.group();
    if g.group_epoch <= g.assignment_epoch {
        return Ok((false, keep));
    }
    let armed = || {
        ctx.timers
            .get(gid, "", Slot::InitialRebalanceDelay)
            .map(|t| t.0)
    };
    if started.or_else(armed).is_some_and(|d| d > now_ms) {
        return Ok((true, keep));
    }
    for r in targets::compute(side, g, configured.ok())? {
        draft.write(r);
    }
    Ok((false, TimerChange::Cancel))
}

/// What reconciliation decided for phase two and the answer.
struct Reconciled {
    rebalance: TimerChange,
    member_epoch: i32,
    topology_epoch: i32,
    tasks_changed: bool,
    endpoint_moved: bool,
}

/// §2.4 step 8: the member's owned tasks checked against a ready topology (unless its topology
/// is stale, D1), then its current assignment moved towards its target (§2.5) and written when
/// it changed. The endpoint-information epoch moves (Kafka 4.4) when the member's endpoint
/// changed (given, dropped or another one; a new member's against none) or its tasks changed
/// while it has an endpoint.
///
/// # Errors
/// INVALID_REQUEST for an owned task outside the topology; FENCED_MEMBER_EPOCH for a member in
/// an UNKNOWN state.
fn reconcile_step(
    draft: &mut Draft<'_>,
    call: Call<'_>,
    who: &Resolved<'_>,
    updated: Option<&StreamsGroupMember>,
    owned: Option<&TasksTuple>,
    configured: &Configured,
    delayed: bool,
) -> Result<Reconciled, HbError> {
    let (gid, mid) = (call.gid(), call.mid());
    let g = draft.group();
    // Nothing written: the member is the one the group holds, already found.
    let member = if draft.is_clean() {
        &*who.base
    } else {
        g.members.get(mid).or(updated).unwrap_or(&*who.base)
    };
    if let (Some(o), Some(c)) = (owned, configured.ok()) {
        if member.topology_epoch >= g.topology_epoch() {
            topology::check_owned(o, c)?;
        }
    }
    let target_epoch = if delayed {
        g.assignment_epoch.max(1)
    } else {
        g.assignment_epoch
    };
    let next = if member.is_reconciled_to(target_epoch) {
        None
    } else {
        let target = match g.targets.get(mid) {
            Some(t) if !delayed => t,
            _ => &NO_TASKS,
        };
        let reconcile = Reconcile {
            group: g,
            target_epoch,
            target,
            owned,
        };
        reconcile.run(member).map_err(|_| HbError {
            code: ErrorCode::FencedMemberEpoch.code(),
            message: Some("The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.".into()),
        })?
    };
    let after = next.as_ref().unwrap_or(member);
    let write = next
        .as_ref()
        .filter(|n| !n.same_assignment(member))
        .map(|n| StreamsRecord::current(gid, n));
    let tasks_changed = next.as_ref().is_some_and(|n| n.assigned != member.assigned);
    let endpoint_changed = who.base.user_endpoint != after.user_endpoint;
    // A rebalance timer is armed only when a member starts revoking (a written assignment), so
    // a member that neither revoked nor was written has none to cancel.
    let revoking = |m: &StreamsGroupMember| m.state == StreamsMemberState::UnrevokedTasks;
    let rebalance = match (revoking(after), &write) {
        (true, Some(_)) => TimerChange::Arm(
            TimerKind::Rebalance {
                epoch: after.member_epoch,
            },
            call.now_ms + i64::from(after.rebalance_timeout_ms.max(0)),
        ),
        (true, None) => TimerChange::Keep,
        (false, None) if !revoking(member) => TimerChange::Keep,
        (false, _) => TimerChange::Cancel,
    };
    let out = Reconciled {
        rebalance,
        member_epoch: after.member_epoch,
        topology_epoch: after.topology_epoch,
        tasks_changed,
        endpoint_moved: endpoint_changed || (tasks_changed && after.user_endpoint.is_some()),
    };
    if let Some(r) = write {
        draft.write(r);
    }
    Ok(out)
}
