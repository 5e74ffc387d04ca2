//! The join phase and the next generation (Kafka's `prepareRebalance`,
//! `maybeCompleteJoinPhase`, `completeClassicGroupJoin`) and the answers to waiting SyncGroups
//! (`propagateAssignment`).

use bytes::Bytes;

use super::answers::code;
use super::ClassicManager;
use crate::coordinator::classic::group::ClassicGroupState;
use crate::coordinator::classic::records::ClassicRecord;
use crate::coordinator::outbox::GroupResponse;
use crate::coordinator::timers::{Slot, TimerKind};
use crate::error::ErrorCode;
use crate::generated::sync_group_response::SyncGroupResponse;

use ClassicGroupState::{CompletingRebalance, Empty, PreparingRebalance, Stable};

impl ClassicManager<'_> {
    pub(super) fn maybe_prepare_rebalance_or_complete_join(&mut self, gid: &str) {
        match self.group(gid).state {
            Stable | CompletingRebalance | Empty => self.prepare_rebalance(gid),
            _ => self.maybe_complete_join_phase(gid),
        }
    }

    /// Kafka's `prepareRebalance`.
    pub(super) fn prepare_rebalance(&mut self, gid: &str) {
        if self.group(gid).is(CompletingRebalance) {
            self.reset_and_propagate(gid, ErrorCode::RebalanceInProgress);
        }
        self.vol(gid).pending_sync.clear();
        self.ctx.timers.cancel(gid, "", Slot::ClassicSync);
        let initial = self.group(gid).is(Empty);
        if initial {
            let delay = self.side.config.initial_rebalance_delay_ms;
            let remaining = (self.group(gid).rebalance_timeout_ms() - delay).max(0);
            let at = self.now_ms + i64::from(delay);
            self.ctx.timers.arm(
                gid,
                "",
                TimerKind::ClassicInitialDelay {
                    delay_ms: delay,
                    remaining_ms: remaining,
                },
                at,
            );
        }
        self.transition(gid, PreparingRebalance);
        if !initial {
            if self.has_all_members_joined(gid) {
                self.complete_join(gid);
            } else {
                let at = self.now_ms + i64::from(self.group(gid).rebalance_timeout_ms());
                self.ctx.timers.arm(gid, "", TimerKind::ClassicJoin, at);
            }
        }
    }

    /// Kafka's `maybeCompleteJoinPhase`: not during the initial rebalance (the delay timer
    /// completes it), and only when everyone rejoined.
    pub(super) fn maybe_complete_join_phase(&mut self, gid: &str) {
        if !self.group(gid).is(PreparingRebalance) {
            return;
        }
        if self.vol(gid).previous_state == Some(Empty) {
            return;
        }
        if self.has_all_members_joined(gid) {
            self.complete_join(gid);
        }
    }

    /// Kafka's `completeClassicGroupJoin`: removes the dynamic members that did not rejoin,
    /// elects a leader among those that did, starts the next generation and answers every
    /// waiting JoinGroup (the leader with every member's metadata).
    pub(super) fn complete_join(&mut self, gid: &str) {
        self.ctx.timers.cancel(gid, "", Slot::ClassicJoin);
        let gone: Vec<String> = {
            let g = self.group(gid);
            g.members
                .values()
                .filter(|m| !m.is_static() && !self.is_awaiting_join(gid, &m.member_id))
                .map(|m| m.member_id.clone())
                .collect()
        };
        for mid in gone {
            self.remove(gid, &mid);
            self.ctx.timers.cancel(gid, &mid, Slot::Session);
        }
        if !self.elect_joined_leader(gid) && !self.group(gid).members.is_empty() {
            // At least 1 ms: with a rebalance timeout of 0 this timer would come due again at
            // once, and `fire_timers` would never return (Kafka's timer spins the same way).
            let at = self.now_ms + i64::from(self.group(gid).rebalance_timeout_ms().max(1));
            self.ctx.timers.arm(gid, "", TimerKind::ClassicJoin, at);
            return;
        }
        self.init_next_generation(gid);
    }

    /// Kafka's `maybeElectNewJoinedLeader`: the leader stays if it rejoined, else the first
    /// member (in id order) that did leads; `false` when no member rejoined.
    fn elect_joined_leader(&mut self, gid: &str) -> bool {
        match self.group(gid).leader_id.clone() {
            Some(l) if self.is_awaiting_join(gid, &l) => true,
            Some(_) => {
                let first = self
                    .group(gid)
                    .members
                    .keys()
                    .find(|m| self.is_awaiting_join(gid, m))
                    .cloned();
                match first {
                    Some(f) => {
                        self.update_group(gid, |h| h.leader_id = Some(f));
                        true
                    }
                    None => false,
                }
            }
            None => false,
        }
    }

    /// Kafka's `initNextGeneration`: generation + 1 with the selected protocol, then
    /// CompletingRebalance (Empty without members); every waiting JoinGroup answered, every
    /// member's session restarted and expected to sync, the sync timer armed.
    fn init_next_generation(&mut self, gid: &str) {
        let protocol = self.group(gid).select_protocol();
        let has_members = !self.group(gid).members.is_empty();
        self.update_group(gid, |h| {
            h.generation_id += 1;
            if has_members {
                h.protocol_name = protocol;
                h.state = CompletingRebalance;
            } else {
                h.protocol_name = None;
                h.state = Empty;
            }
        });
        self.vol(gid).pending_sync.clear();
        if !has_members {
            return;
        }
        let ids: Vec<String> = self.group(gid).members.keys().cloned().collect();
        for mid in ids {
            if let Some(w) = self.vol(gid).awaiting_join.remove(&mid) {
                let leader = self.group(gid).is_leader(&mid);
                let r = self.current_join(gid, w.version, &mid, leader);
                self.answer(w, GroupResponse::JoinGroup(r));
            }
            self.reschedule_heartbeat(gid, &mid);
            let v = self.vol(gid);
            v.new_members.remove(&mid);
            v.pending_sync.insert(mid);
        }
        let g = self.group(gid);
        let at = self.now_ms + i64::from(g.rebalance_timeout_ms());
        let generation = g.generation_id;
        self.ctx
            .timers
            .arm(gid, "", TimerKind::ClassicSync { generation }, at);
    }

    /// Kafka's `resetAndPropagateAssignmentWithError`: clears every assignment and answers the
    /// waiting SyncGroups with `error`.
    pub(super) fn reset_and_propagate(&mut self, gid: &str, error: ErrorCode) {
        let ids: Vec<String> = self.group(gid).members.keys().cloned().collect();
        for mid in &ids {
            let mut m = self.group(gid).members[mid].clone();
            if !m.assignment.is_empty() {
                m.assignment = Bytes::new();
                self.emit(ClassicRecord::member(gid, &m));
            }
        }
        self.propagate(gid, error);
    }

    /// Kafka's `propagateAssignment`: answers every waiting SyncGroup and restarts the session
    /// timer of the members answered.
    pub(super) fn propagate(&mut self, gid: &str, error: ErrorCode) {
        let ids: Vec<String> = self.group(gid).members.keys().cloned().collect();
        for mid in ids {
            let Some(w) = self.vol(gid).awaiting_sync.remove(&mid) else {
                continue;
            };
            let g = self.group(gid);
            let ok = error == ErrorCode::None;
            let r = SyncGroupResponse {
                error_code: code(error),
                protocol_type: if ok {
                    g.protocol_type.clone().map(Into::into)
                } else {
                    None
                },
                protocol_name: if ok {
                    g.protocol_name.clone().map(Into::into)
                } else {
                    None
                },
                assignment: g.members[&mid].assignment.clone(),
                ..Default::default()
            };
            self.answer(w, GroupResponse::SyncGroup(r));
            self.reschedule_heartbeat(gid, &mid);
        }
    }
}
