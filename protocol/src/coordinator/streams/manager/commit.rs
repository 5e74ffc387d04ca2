//! Phase two of a heartbeat (§2.4 steps 9 and 10, §2.7): the [`Plan`]'s records applied to the
//! live state, the timers armed or cancelled, the soft state stored, and the answer read from
//! the group as it now stands. Nothing here can fail.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::records::StreamsRecord;
use super::super::replay::apply;
use super::plan::{Call, Plan, TimerChange};
use super::response::{self, StatusInputs};
use super::side::{volatile_mut, StreamsManager};
use crate::coordinator::context::HbError;
use crate::coordinator::timers::{Slot, TimerKind};
use crate::error::ErrorCode;
use crate::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;

impl StreamsManager<'_> {
    /// Applies `plan` (see the module docs) and returns its records. `group_existed`: whether
    /// the group was there before this heartbeat.
    pub(super) fn commit(
        &mut self,
        call: Call<'_>,
        plan: &mut Plan,
        group_existed: bool,
    ) -> Vec<StreamsRecord> {
        let (gid, mid, now_ms) = (call.gid(), call.mid(), call.now_ms);
        let records = std::mem::take(&mut plan.records);
        for r in &records {
            apply(self.groups, r);
        }
        let timers = &mut self.ctx.timers;
        if let Some(old) = &plan.replaced {
            timers.cancel_member(gid, old);
        }
        for (member, change, slot) in [
            ("", &plan.delay, Slot::InitialRebalanceDelay),
            (mid, &plan.rebalance, Slot::Rebalance),
        ] {
            match *change {
                TimerChange::Arm(kind, deadline) => timers.arm(gid, member, kind, deadline),
                TimerChange::Keep => {}
                TimerChange::Cancel => timers.cancel(gid, member, slot),
            }
        }
        let session = now_ms + i64::from(self.side.session_timeout(gid));
        timers.arm(gid, mid, TimerKind::Session, session);
        let Some(vol) = volatile_mut(&mut self.side.volatile, gid) else {
            return records;
        };
        if let Some(old) = &plan.replaced {
            vol.forget_member(old);
        }
        if plan.configured.fresh {
            vol.configured.clone_from(&plan.configured.current);
        }
        // §2.4 step 10: the shutdown request (the group's first requester is kept).
        if call.req.shutdown_application {
            vol.shutdown_requester
                .get_or_insert_with(|| mid.to_string());
        }
        // §2.7: the join that creates the group does not keep its move: Kafka 4.4 works on a new
        // group object there, whose soft state is lost (the group replayed from the records
        // starts at 0); the moved epoch still decides whether this answer carries the endpoints.
        if group_existed && plan.endpoint_moved {
            vol.endpoint_information_epoch += 1;
        }
        records
    }

    /// The answer to a heartbeat that succeeded, read from the group after [`commit`](Self::commit).
    pub(super) fn answer(
        &mut self,
        call: Call<'_>,
        plan: &Plan,
        group_existed: bool,
    ) -> StreamsGroupHeartbeatResponse {
        let (gid, mid, v1) = (call.gid(), call.mid(), call.rc.api_version >= 1);
        let interval = self.side.heartbeat_interval(gid);
        let (Some(g), Some(vol)) = (
            self.groups.get(gid),
            volatile_mut(&mut self.side.volatile, gid),
        ) else {
            // A committed heartbeat always leaves its group.
            return response::failed(HbError {
                code: ErrorCode::UnknownServerError.code(),
                message: None,
            });
        };
        let configured = plan.configured.ok();
        let inputs = StatusInputs {
            configured,
            delayed: plan.delayed,
            shutdown_requester: vol.shutdown_requester.as_deref(),
            v1,
        };
        let statuses = response::statuses(g, mid, plan.topology_epoch, &inputs);
        // KIP-1331: ask for the description of the group's topology when none is stored (not
        // of a member whose topology is stale).
        let stale = plan.topology_epoch < g.topology_epoch();
        let description_required = v1
            && self.side.config.topology_descriptions
            && !stale
            && response::ask_description(vol, g, call.now_ms);
        let epoch_now =
            vol.endpoint_information_epoch + i32::from(plan.endpoint_moved && !group_existed);
        let endpoints = (call.req.endpoint_information_epoch != epoch_now)
            .then(|| response::endpoints(g, configured, mid, &self.ctx.topics));
        // The task lists only when they are sent: a join, or the member's tasks changed.
        let tasks = plan
            .tasks_in_response
            .then(|| g.members.get(mid))
            .flatten()
            .map(|m| &m.assigned);
        let config = &self.side.config;
        StreamsGroupHeartbeatResponse {
            member_id: call.req.member_id.clone(),
            member_epoch: plan.member_epoch,
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
