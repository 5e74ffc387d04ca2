//! Phase one of a heartbeat at epoch ≥ 0 (§2.4 steps 1 to 7; Kafka 4.4's
//! `GroupMetadataManager.streamsGroupHeartbeat` up to the target assignment), the coordinator's
//! check ([`commit`](crate::coordinator::commit)): every check and every fallible computation
//! (the member and its epoch, the topology's epoch, its configuration, the assignor), reading
//! the state only. Its result, a [`Plan`], holds only what the heartbeat changes: a stable
//! member's heartbeat borrows the stored member, compares the request with it in place and
//! plans nothing, so it copies and allocates nothing. Phase two is [`write`](super::write).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::group::{StreamsGroup, StreamsGroupMember};
use super::super::tasks::TasksTuple;
use super::super::topology::StreamsTopology;
use super::member::{self, Resolved};
use super::request::{self, Reported};
use super::side::StreamsSide;
use super::targets::{self, Assigned, Overlay};
use super::topology::{self, Configured};
use crate::coordinator::context::{Context, HbError, RequestContext};
use crate::coordinator::timers::{Slot, TimerKind};
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;

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
/// rebalance timeout). Deciding it ahead spares a heartbeat that changes nothing any timer call
/// but the session's.
pub(super) enum TimerChange {
    /// (Re-)armed as this kind at this deadline (ms).
    Arm(TimerKind, i64),
    /// Left as it is (armed or not).
    Keep,
    /// Cancelled.
    Cancel,
}

/// The static member a join replaces (Kafka 4.4's `replaceStreamsMember`): its id and target,
/// and the member taking them over under the new id (its metadata, tasks, epochs 0).
pub(super) struct Replacement {
    pub old_id: String,
    pub target: TasksTuple,
    pub member: Box<StreamsGroupMember>,
}

/// What a heartbeat at epoch ≥ 0 writes and arms, decided by [`check`].
pub(super) struct Plan {
    pub replaced: Option<Replacement>,
    /// The member's metadata as the heartbeat leaves it, when it changed (always for a new or
    /// replacing member); `None`: the stored member as it is.
    pub updated: Option<Box<StreamsGroupMember>>,
    /// The topology the group adopts (D1).
    pub adopted: Option<StreamsTopology>,
    pub configured: Configured,
    /// The group-epoch bump: the new epoch (hash and validated epoch in `configured`).
    pub bump: Option<i32>,
    /// The new targets (computed at `bump`'s epoch, or the group's).
    pub targets: Option<(i32, Assigned)>,
    /// The initial rebalance delay: armed when a member joins an empty group, cancelled once
    /// the target is computed.
    pub delay: TimerChange,
    /// The initial rebalance delay holds the target back (ASSIGNMENT_DELAYED).
    pub delayed: bool,
    /// The task lists the request reports as owned (`None`: not sent).
    pub owned: Option<TasksTuple>,
    /// The task offsets the request reports (noted in phase two).
    pub reported: Reported,
    /// The member's endpoint changes (given, dropped or another one; a new member's against
    /// none), and whether it has one after the heartbeat (§2.7).
    pub endpoint_changed: bool,
    pub has_endpoint: bool,
}

/// Phase one over `live`, the group as it stands (a new, empty one for a join that creates it):
/// the member (§2.4), its update (step 1), the topology (step 2), its configuration (step 3),
/// the bump (steps 4 and 5), the delay (step 6), the target (step 7) and the owned tasks
/// (§2.3), in that order.
///
/// # Errors
/// The first refusal: [`member::resolve`], [`topology::declared`],
/// [`topology::configure_step`], [`targets::assign`], [`topology::check_owned`].
pub(super) fn check(
    ctx: &Context,
    side: &StreamsSide,
    live: &StreamsGroup,
    call: Call<'_>,
    reported: Reported,
) -> Result<Plan, HbError> {
    let (gid, req) = (call.gid(), call.req);
    let owned = request::owned_of(req);
    let who = member::resolve(live, req, owned.as_ref(), side.config.max_size)?;
    let declared = topology::declared(live.topology.as_ref(), req)?;
    let epoch = declared.as_ref().map(|d| d.epoch);
    let updated = member::updated(&who.base, req, call.rc, epoch, who.is_new);
    let adopted = declared.and_then(|d| d.adopted);
    let topology = adopted.as_ref().or(live.topology.as_ref());
    let cached = side.volatile.get(gid).and_then(|v| v.configured.as_ref());
    let configured = topology::configure_step(ctx, live, topology, cached, adopted.is_some())?;
    let member: &StreamsGroupMember = updated.as_deref().unwrap_or(&who.base);
    let bump = bumps(
        side,
        live,
        call,
        &who,
        updated.as_deref(),
        adopted.is_some(),
        &configured,
        &reported,
    )
    .then(|| {
        if live.group_epoch == 0 {
            2
        } else {
            live.group_epoch + 1
        }
    });
    let group_epoch = bump.unwrap_or(live.group_epoch);
    let (delayed, delay) = delay_step(ctx, side, live, call, group_epoch);
    let targets = if group_epoch > live.assignment_epoch && !delayed {
        let overlay = Overlay {
            member,
            replaced: who.replaced.map(|(old, _)| old),
            offsets: (reported.offsets.as_ref(), reported.end_offsets.as_ref()),
            warmups_allowed: call.rc.api_version >= 1,
        };
        let standby = side.standby_replicas(gid);
        let assigned = targets::assign(side, live, Some(&overlay), configured.ok(), standby)?;
        Some((group_epoch, assigned))
    } else {
        None
    };
    if let (Some(o), Some(c)) = (&owned, configured.ok()) {
        let group_topology = topology.map_or(-1, |t| t.epoch);
        if member.topology_epoch >= group_topology {
            topology::check_owned(o, c)?;
        }
    }
    let endpoint_changed = updated
        .as_ref()
        .is_some_and(|u| u.user_endpoint != who.base.user_endpoint);
    let has_endpoint = member.user_endpoint.is_some();
    let Resolved { base, replaced, .. } = who;
    let replaced = replaced.map(|(old_id, target)| Replacement {
        old_id: old_id.to_string(),
        target: target.clone(),
        member: base.into_owned(),
    });
    Ok(Plan {
        replaced,
        updated,
        adopted,
        configured,
        bump,
        targets,
        delay,
        delayed,
        owned,
        reported,
        endpoint_changed,
        has_endpoint,
    })
}

/// §2.4 steps 4 and 5: whether the heartbeat bumps the group epoch: the member's metadata
/// changed (a static member's only when what the assignment reads changed: Kafka 4.4's
/// `hasEpochRelevantMemberConfigChanged`), a topology is adopted, the metadata hash or
/// validated topology epoch moved, the assignment configs changed, or a warm-up caught up.
#[allow(clippy::too_many_arguments)]
fn bumps(
    side: &StreamsSide,
    live: &StreamsGroup,
    call: Call<'_>,
    who: &Resolved<'_>,
    updated: Option<&StreamsGroupMember>,
    adopted: bool,
    configured: &Configured,
    reported: &Reported,
) -> bool {
    let (gid, mid) = (call.gid(), call.mid());
    let static_member = call.req.instance_id.is_some();
    let member_bump =
        updated.is_some_and(|u| !static_member || !u.same_assignment_inputs(&who.base));
    let target = || match who.replaced {
        Some((_, t)) => Some(t),
        None => live.targets.get(mid),
    };
    member_bump
        || adopted
        || configured.changes(live)
        || !side.configs_match(gid, &live.last_assignment_configs)
        || (reported.any() && targets::warmup_done(side, gid, mid, target(), reported))
}

/// §2.4 step 6: the initial rebalance delay is armed when a member joins an empty group (and
/// the delay is on); while it runs a group epoch ahead of the assignment epoch (`group_epoch`)
/// waits (ASSIGNMENT_DELAYED); once the targets are computed it ends. Returns whether the
/// target is delayed and what becomes of the delay's timer; the armed deadline is read only
/// when the group epoch is ahead.
fn delay_step(
    ctx: &Context,
    side: &StreamsSide,
    live: &StreamsGroup,
    call: Call<'_>,
    group_epoch: i32,
) -> (bool, TimerChange) {
    let (gid, now_ms) = (call.gid(), call.now_ms);
    let delay = side.delay(gid);
    let started = (live.members.is_empty() && delay > 0).then(|| now_ms + i64::from(delay));
    let keep = started.map_or(TimerChange::Keep, |d| {
        TimerChange::Arm(TimerKind::InitialRebalanceDelay, d)
    });
    if group_epoch <= live.assignment_epoch {
        return (false, keep);
    }
    let armed = || {
        ctx.timers
            .get(gid, "", Slot::InitialRebalanceDelay)
            .map(|t| t.0)
    };
    if started.or_else(armed).is_some_and(|d| d > now_ms) {
        return (true, keep);
    }
    (false, TimerChange::Cancel)
}
