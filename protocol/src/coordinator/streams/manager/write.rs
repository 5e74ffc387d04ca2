//! Phase two of a heartbeat at epoch ≥ 0 (§2.4 steps 8 to 10, §2.7), the coordinator's commit
//! ([`commit`](crate::coordinator::commit)): the [`Plan`]'s records written with
//! `commit::write` (each applied as it is written, so reconciliation reads the group as the
//! records leave it), the member reconciled (§2.5), the soft state noted, the timers armed or
//! cancelled, and the answer read from the group as it now stands. Nothing here can fail.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::group::{StreamsGroupMember, StreamsGroups, StreamsMemberState};
use super::super::reconcile::Reconcile;
use super::super::records::StreamsRecord;
use super::super::tasks::TasksTuple;
use super::check::{Call, Plan, TimerChange};
use super::member::NO_TASKS;
use super::response::{self, StatusInputs};
use super::side::{volatile_mut, StreamsManager};
use super::targets;
use crate::coordinator::commit;
use crate::coordinator::membership::GroupMember;
use crate::coordinator::timers::{Slot, TimerKind};
use crate::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;

/// What reconciliation decided, for the timers and the answer.
struct Reconciled {
    rebalance: TimerChange,
    tasks_changed: bool,
    member_epoch: i32,
    topology_epoch: i32,
}

impl StreamsManager<'_> {
    /// Phase two of a heartbeat: writes `plan` (see the module docs) into `records` and
    /// answers. `group_existed`: whether the group was there before this heartbeat.
    pub(super) fn write_plan(
        &mut self,
        call: Call<'_>,
        mut plan: Plan,
        group_existed: bool,
        records: &mut Vec<StreamsRecord>,
    ) -> StreamsGroupHeartbeatResponse {
        self.write_records(call, &mut plan, records);
        let rec = self.reconcile(call, &plan, records);
        let endpoint_moved = plan.endpoint_changed || (rec.tasks_changed && plan.has_endpoint);
        self.note(call, &mut plan, group_existed && endpoint_moved);
        self.arm_timers(call, &plan, &rec);
        self.answer(call, &plan, &rec, group_existed, endpoint_moved)
    }

    /// §2.4 steps 1 to 7, written: the static replacement (the old member's records go, the new
    /// member is written with its metadata, target and tasks), the member's metadata, the
    /// adopted topology, the group-epoch bump and the targets that changed with the target epoch.
    fn write_records(&mut self, call: Call<'_>, plan: &mut Plan, records: &mut Vec<StreamsRecord>) {
        let gid = call.gid();
        let mut put =
            |groups: &mut StreamsGroups, r: StreamsRecord| commit::write(groups, records, r);
        if let Some(r) = &plan.replaced {
            let (old, m) = (r.old_id.as_str(), &r.member);
            put(self.groups, StreamsRecord::current_tombstone(gid, old));
            put(self.groups, StreamsRecord::target_tombstone(gid, old));
            put(
                self.groups,
                StreamsRecord::member_metadata_tombstone(gid, old),
            );
            put(self.groups, StreamsRecord::member_metadata(gid, m));
            put(
                self.groups,
                StreamsRecord::target(gid, &m.member_id, &r.target),
            );
            put(self.groups, StreamsRecord::current(gid, m));
        }
        if let Some(u) = &plan.updated {
            put(self.groups, StreamsRecord::member_metadata(gid, u));
        }
        if let Some(t) = &plan.adopted {
            put(self.groups, StreamsRecord::topology(gid, t));
        }
        if let Some(epoch) = plan.bump {
            let (c, configs) = (&plan.configured, self.side.assignment_configs(gid));
            let r = StreamsRecord::group_metadata(gid, epoch, c.hash, c.validated, &configs);
            put(self.groups, r);
        }
        if let Some((epoch, assigned)) = plan.targets.take() {
            let written = self
                .groups
                .get(gid)
                .map(|g| targets::records(g, assigned, epoch));
            for r in written.into_iter().flatten() {
                put(self.groups, r);
            }
        }
    }

    /// §2.4 step 8: the member's current assignment moved towards its target (§2.5) and
    /// written when it changed. The rebalance timer is armed when the member starts revoking
    /// and cancelled when it is done; a member that neither revoked nor was written has none.
    fn reconcile(
        &mut self,
        call: Call<'_>,
        plan: &Plan,
        records: &mut Vec<StreamsRecord>,
    ) -> Reconciled {
        let (gid, mid) = (call.gid(), call.mid());
        let member = self
            .groups
            .get(gid)
            .and_then(|g| Some((g, g.members.get(mid)?)));
        let Some((g, member)) = member else {
            // Unreachable: the plan's records always leave the member in its group.
            return Reconciled {
                rebalance: TimerChange::Keep,
                tasks_changed: false,
                member_epoch: 0,
                topology_epoch: -1,
            };
        };
        let target_epoch = if plan.delayed {
            g.assignment_epoch.max(1)
        } else {
            g.assignment_epoch
        };
        let next = if member.is_reconciled_to(target_epoch) {
            None
        } else {
            let target: &TasksTuple = match g.targets.get(mid) {
                Some(t) if !plan.delayed => t,
                _ => &NO_TASKS,
            };
            let reconcile = Reconcile {
                group: g,
                target_epoch,
                target,
                owned: plan.owned.as_ref(),
            };
            // Phase one refused a member in an UNKNOWN state unless its owned lists are empty,
            // the only case in which reconciliation can refuse.
            reconcile.run(member).unwrap_or(None)
        };
        let after = next.as_ref().unwrap_or(member);
        let write = next
            .as_ref()
            .filter(|n| !GroupMember::same_assignment(*n, member))
            .map(|n| StreamsRecord::current(gid, n));
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
            tasks_changed: next.as_ref().is_some_and(|n| n.assigned != member.assigned),
            member_epoch: after.member_epoch,
            topology_epoch: after.topology_epoch,
        };
        if let Some(r) = write {
            commit::write(self.groups, records, r);
        }
        out
    }

    /// The soft state a heartbeat leaves (§2.12, §2.4 step 10, §2.7): whether the member may
    /// warm up (its heartbeat is v1 or later) and its reported task offsets; the replaced static
    /// member's forgotten; the configured topology cached when computed now; the first shutdown
    /// requester; the endpoint-information epoch moved (`endpoint_moves`; the join that creates
    /// the group does not keep its move: Kafka 4.4 works on a new group object there, whose
    /// soft state is lost, and the group replayed from the records starts at 0).
    fn note(&mut self, call: Call<'_>, plan: &mut Plan, endpoint_moves: bool) {
        let mid = call.mid();
        let Some(vol) = volatile_mut(&mut self.side.volatile, call.gid()) else {
            return;
        };
        if call.rc.api_version >= 1 {
            if !vol.warmups_allowed.contains(mid) {
                vol.warmups_allowed.insert(mid.to_string());
            }
        } else {
            vol.warmups_allowed.remove(mid);
        }
        if plan.reported.any() {
            let entry = vol.task_offsets.entry(mid.to_string()).or_default();
            if let Some(o) = plan.reported.offsets.take() {
                entry.0 = o;
            }
            if let Some(o) = plan.reported.end_offsets.take() {
                entry.1 = o;
            }
        }
        if let Some(r) = plan.replaced.as_ref().filter(|r| r.old_id != mid) {
            vol.forget_member(&r.old_id);
        }
        if plan.configured.fresh {
            vol.configured.clone_from(&plan.configured.current);
        }
        if call.req.shutdown_application {
            vol.shutdown_requester
                .get_or_insert_with(|| mid.to_string());
        }
        if endpoint_moves {
            vol.endpoint_information_epoch += 1;
        }
    }

    /// The timers a heartbeat leaves: the replaced static member's cancelled, the delay's and
    /// the member's rebalance timer as decided, its session timer re-armed.
    fn arm_timers(&mut self, call: Call<'_>, plan: &Plan, rec: &Reconciled) {
        let (gid, mid) = (call.gid(), call.mid());
        let timers = &mut self.ctx.timers;
        if let Some(r) = plan.replaced.as_ref().filter(|r| r.old_id != mid) {
            timers.cancel_member(gid, &r.old_id);
        }
        for (member, change, slot) in [
            ("", &plan.delay, Slot::InitialRebalanceDelay),
            (mid, &rec.rebalance, Slot::Rebalance),
        ] {
            match *change {
                TimerChange::Arm(kind, deadline) => timers.arm(gid, member, kind, deadline),
                TimerChange::Keep => {}
                TimerChange::Cancel => timers.cancel(gid, member, slot),
            }
        }
        let session = call.now_ms + i64::from(self.side.session_timeout(gid));
        timers.arm(gid, mid, TimerKind::Session, session);
    }

    /// The answer to a heartbeat that succeeded, read from the group after its records.
    fn answer(
        &mut self,
        call: Call<'_>,
        plan: &Plan,
        rec: &Reconciled,
        group_existed: bool,
        endpoint_moved: bool,
    ) -> StreamsGroupHeartbeatResponse {
        let (gid, mid, v1) = (call.gid(), call.mid(), call.rc.api_version >= 1);
        let interval = self.side.heartbeat_interval(gid);
        let (Some(g), Some(vol)) = (
            self.groups.get(gid),
            volatile_mut(&mut self.side.volatile, gid),
        ) else {
            // Unreachable: the plan's records always leave the group.
            return StreamsGroupHeartbeatResponse::default();
        };
        let configured = plan.configured.ok();
        let inputs = StatusInputs {
            configured,
            delayed: plan.delayed,
            shutdown_requester: vol.shutdown_requester.as_deref(),
            v1,
        };
        let statuses = response::statuses(g, mid, rec.topology_epoch, &inputs);
        // KIP-1331: ask for the description of the group's topology when none is stored (not
        // of a member whose topology is stale).
        let stale = rec.topology_epoch < g.topology_epoch();
        let description_required = v1
            && self.side.config.topology_descriptions
            && !stale
            && response::ask_description(vol, g, call.now_ms);
        let epoch_now =
            vol.endpoint_information_epoch + i32::from(endpoint_moved && !group_existed);
        let endpoints = (call.req.endpoint_information_epoch != epoch_now)
            .then(|| response::endpoints(g, configured, mid, &self.ctx.topics));
        // The task lists only when they are sent: a join, or the member's tasks changed.
        let tasks = (call.req.member_epoch == 0 || rec.tasks_changed)
            .then(|| g.members.get(mid))
            .flatten()
            .map(|m| &m.assigned);
        let config = &self.side.config;
        StreamsGroupHeartbeatResponse {
            member_id: call.req.member_id.clone(),
            member_epoch: rec.member_epoch,
            heartbeat_interval_ms: interval,
            // Kafka 4.4 sets only the int64 field (dropped at v0, an ignorable v1+ field) and
            // leaves the v0-only int32 `AcceptableRecoveryLagLegacy` at 0 (seen on the 4.4.0
            // broker); setting it would also make a v1 answer unencodable.
            acceptable_recovery_lag_legacy: 0,
            acceptable_recovery_lag: config.acceptable_recovery_lag,
            task_offset_interval_ms: config.task_offset_interval_ms,
            status: Some(statuses),
            active_tasks: tasks.map(|t| response::task_ids(&t.active)),
            standby_tasks: tasks.map(|t| response::task_ids(&t.standby)),
            warmup_tasks: tasks.map(|t| response::task_ids(&t.warmup)),
            endpoint_information_epoch: if group_existed {
                vol.endpoint_information_epoch
            } else {
                0
            },
            partitions_by_user_endpoint: endpoints,
            topology_description_required: description_required,
            ..Default::default()
        }
    }
}
