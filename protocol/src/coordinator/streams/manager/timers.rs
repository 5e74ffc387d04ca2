//! The timers of streams groups (KIP-1071; docs/coordinator.md D6: volatile, re-armed on load):
//! a member's session and rebalance (revocation) timeouts, and a group's initial rebalance delay
//! (`group.streams.initial.rebalance.delay.ms`), with what each does when it fires.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::group::StreamsMemberState;
use super::super::records::StreamsRecord;
use super::side::StreamsManager;
use super::targets;
use crate::coordinator::timers::{Due, TimerKind};

impl StreamsManager<'_> {
    /// Re-arms the volatile timers of every member after a replay (D6): a session timer from
    /// `now_ms`, and a rebalance timer for members in UNREVOKED_TASKS.
    pub fn rearm(&mut self, now_ms: i64) {
        for g in self.groups.values() {
            let session = self.side.session_timeout(&g.group_id);
            for m in g.members.values() {
                let revoking = (m.state == StreamsMemberState::UnrevokedTasks)
                    .then_some((m.member_epoch, m.rebalance_timeout_ms));
                self.ctx
                    .timers
                    .rearm_member(&g.group_id, &m.member_id, now_ms, session, revoking);
            }
        }
    }

    /// Fires a due timer of a streams group: an expired session fences the member; an expired
    /// rebalance timer fences it only if it is still revoking at the captured epoch; the end of
    /// the initial rebalance delay computes the targets (KIP-1071). Returns the records written.
    pub fn fire(&mut self, due: &Due) -> Vec<StreamsRecord> {
        let (g, m) = (&due.group_id, &due.member_id);
        let member = self.groups.get(g).and_then(|gr| gr.members.get(m));
        let mut records = Vec::new();
        let fence = match due.kind {
            TimerKind::Session => member.is_some(),
            TimerKind::Rebalance { epoch } => member.is_some_and(|mm| {
                mm.member_epoch == epoch && mm.state == StreamsMemberState::UnrevokedTasks
            }),
            TimerKind::InitialRebalanceDelay => {
                self.fire_delay(g, &mut records);
                false
            }
            // The classic group type's timers.
            _ => false,
        };
        if fence {
            self.fence_member(g, m, &mut records);
        }
        records
    }

    /// Fires a streams group's initial-rebalance-delay timer: the target of every member is
    /// computed at the current group epoch (§2.4 step 6), unless the group is empty or its
    /// target is already of that epoch. An assignor failure leaves the targets as they are.
    fn fire_delay(&mut self, gid: &str, records: &mut Vec<StreamsRecord>) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        if g.members.is_empty() || g.group_epoch <= g.assignment_epoch {
            return;
        }
        let configured = self
            .side
            .volatile
            .get(gid)
            .and_then(|v| v.configured.clone());
        let out = targets::compute(self.side, g, configured.as_ref().and_then(|c| c.ok()));
        if let Ok(out) = out {
            for r in out {
                self.emit(records, r);
            }
        }
    }
}
