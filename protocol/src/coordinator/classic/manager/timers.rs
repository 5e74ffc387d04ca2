//! A classic group's timers (Kafka's `classicGroupJoinKey`, `classicGroupSyncKey` and the
//! member heartbeat keys): fired, and re-armed after a replay (D6).

use super::answers::join_error;
use super::{ClassicManager, Volatile};
use crate::coordinator::classic::group::ClassicGroupState;
use crate::coordinator::outbox::GroupResponse;
use crate::coordinator::timers::{Due, Slot, TimerKind};
use crate::error::ErrorCode;

use ClassicGroupState::{CompletingRebalance, PreparingRebalance, Stable};

impl ClassicManager<'_> {
    // ----- Timers -----

    /// Fires one classic timer (the facade dispatched it here because a classic group holds its
    /// group id). `now_ms` is the timer's deadline.
    pub fn fire(&mut self, due: &Due) {
        let gid = due.group_id.as_str();
        if !self.groups.contains_key(gid) {
            return;
        }
        match due.kind {
            TimerKind::Session => self.expire_heartbeat(gid, &due.member_id),
            TimerKind::ClassicJoin => {
                if self.group(gid).is(PreparingRebalance) {
                    self.complete_join(gid);
                }
            }
            TimerKind::ClassicInitialDelay {
                delay_ms,
                remaining_ms,
            } => self.end_initial_delay(gid, delay_ms, remaining_ms),
            TimerKind::ClassicSync { generation } => self.expire_sync(gid, generation),
            TimerKind::Rebalance { .. }
            | TimerKind::InitialRebalanceDelay
            | TimerKind::ConsumerClassicJoin
            | TimerKind::ConsumerClassicSync => {}
        }
    }

    /// The initial rebalance delay ended (Kafka's `tryCompleteInitialRebalanceElseSchedule`):
    /// while new members arrived and some of the rebalance timeout is left, wait once more
    /// (at most `group.initial.rebalance.delay.ms`), else end the join phase.
    fn end_initial_delay(&mut self, gid: &str, delay_ms: i32, remaining_ms: i32) {
        if !self.group(gid).is(PreparingRebalance) {
            return;
        }
        if !(self.vol(gid).new_member_added && remaining_ms != 0) {
            self.complete_join(gid);
            return;
        }
        self.vol(gid).new_member_added = false;
        let d = self
            .side
            .config
            .initial_rebalance_delay_ms
            .min(remaining_ms);
        let kind = TimerKind::ClassicInitialDelay {
            delay_ms: d,
            remaining_ms: (remaining_ms - delay_ms).max(0),
        };
        self.ctx
            .timers
            .arm(gid, "", kind, self.now_ms + i64::from(d));
    }

    /// The sync timer of `generation` expired (Kafka's `expirePendingSync`): the members that
    /// did not sync are removed and the group rebalances.
    fn expire_sync(&mut self, gid: &str, generation: i32) {
        let g = self.group(gid);
        if generation != g.generation_id || !matches!(g.state, CompletingRebalance | Stable) {
            return;
        }
        let pending: Vec<String> = self.vol(gid).pending_sync.iter().cloned().collect();
        if pending.is_empty() {
            return;
        }
        for mid in &pending {
            self.remove(gid, mid);
            self.ctx.timers.cancel(gid, mid, Slot::Session);
        }
        self.prepare_rebalance(gid);
    }

    /// Kafka's `expireClassicGroupMemberHeartbeat`.
    pub(super) fn expire_heartbeat(&mut self, gid: &str, mid: &str) {
        if self.vol(gid).pending_join.contains(mid) {
            self.remove(gid, mid);
            if self.group(gid).is(PreparingRebalance) && self.has_all_members_joined(gid) {
                self.complete_join(gid);
            }
            return;
        }
        if !self.group(gid).members.contains_key(mid) {
            return;
        }
        let v = self.vol(gid);
        let satisfied = !v.new_members.contains(mid)
            && (v.awaiting_join.contains_key(mid) || v.awaiting_sync.contains_key(mid));
        if satisfied {
            return;
        }
        if let Some(w) = self.vol(gid).awaiting_join.remove(mid) {
            let r = join_error(w.version, ErrorCode::UnknownMemberId, "");
            self.answer(w, GroupResponse::JoinGroup(r));
        }
        self.remove(gid, mid);
        let state = self.group(gid).state;
        match state {
            Stable | CompletingRebalance => self.maybe_prepare_rebalance_or_complete_join(gid),
            PreparingRebalance if self.has_all_members_joined(gid) => self.complete_join(gid),
            _ => {}
        }
    }

    /// Re-arms the volatile timers of every classic group after a replay (D6): a session timer
    /// per member; the join timer of a group preparing a rebalance (members must rejoin); the
    /// sync timer of a group completing one (every member must sync again).
    pub fn rearm(&mut self) {
        let gids: Vec<String> = self.groups.keys().cloned().collect();
        for gid in gids {
            let g = &self.groups[&gid];
            let members: Vec<(String, i32)> = g
                .members
                .values()
                .map(|m| (m.member_id.clone(), m.session_timeout_ms))
                .collect();
            let (state, generation, rebalance) = (
                g.state,
                g.generation_id,
                i64::from(g.rebalance_timeout_ms()),
            );
            let mut v = Volatile {
                previous_state: Some(state),
                ..Default::default()
            };
            for (mid, t) in &members {
                self.arm_session(&gid, mid, i64::from(*t));
            }
            match state {
                PreparingRebalance => {
                    let at = self.now_ms + rebalance;
                    self.ctx.timers.arm(&gid, "", TimerKind::ClassicJoin, at);
                }
                CompletingRebalance => {
                    v.pending_sync = members.iter().map(|(m, _)| m.clone()).collect();
                    let at = self.now_ms + rebalance;
                    self.ctx
                        .timers
                        .arm(&gid, "", TimerKind::ClassicSync { generation }, at);
                }
                _ => {}
            }
            self.side.volatile.insert(gid, v);
        }
    }
}
