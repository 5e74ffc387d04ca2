//! Removing consumer-group members — a -1 leave, a session or rebalance timeout, a classic
//! member's join or sync timeout (docs/coordinator.md §1.5, §1.7) — and the members' timers:
//! fired, cancelled, and re-armed after a replay (timers are volatile, D6). A removal that would
//! leave only classic-protocol members is a downgrade instead (§Online migration), which the
//! facade carries out after the call.

use std::collections::BTreeSet;

use super::{ConsumerManager, PendingDowngrade};
use crate::coordinator::consumer::group::{ConsumerGroup, MemberState};
use crate::coordinator::consumer::records::ConsumerRecord;
use crate::coordinator::timers::{Due, Slot, TimerKind};

impl ConsumerManager<'_> {
    /// Re-arms the volatile timers of every member after a replay (docs/coordinator.md, D6): a
    /// session timer from `now_ms` (a classic member's own session timeout), and a rebalance
    /// timer for consumer-protocol members in UNREVOKED_PARTITIONS.
    pub fn rearm(&mut self, now_ms: i64) {
        for g in self.groups.values() {
            let session = self.side.session_timeout(&g.group_id);
            for m in g.members.values() {
                let revoking = (m.state == MemberState::UnrevokedPartitions && m.classic.is_none())
                    .then_some((m.member_epoch, m.rebalance_timeout_ms));
                let session = m.classic.as_ref().map_or(session, |c| c.session_timeout_ms);
                self.ctx
                    .timers
                    .rearm_member(&g.group_id, &m.member_id, now_ms, session, revoking);
            }
        }
    }

    /// Fires a due timer of a consumer member: an expired session, join or sync timer fences
    /// the member (as a -1 leave, with a group-epoch bump); an expired rebalance timer fences it
    /// only if it is still at the epoch captured when the timer was armed. Timers of members
    /// that are gone are no-ops.
    pub fn fire(&mut self, due: &Due) -> Vec<ConsumerRecord> {
        let (g, m) = (&due.group_id, &due.member_id);
        let member = self.groups.get(g).and_then(|gr| gr.members.get(m));
        let fence = match due.kind {
            TimerKind::Session
            | TimerKind::ConsumerClassicJoin
            | TimerKind::ConsumerClassicSync => member.is_some(),
            TimerKind::Rebalance { epoch } => member.is_some_and(|mm| mm.member_epoch == epoch),
            // The streams and classic group types' timers.
            _ => false,
        };
        let mut records = Vec::new();
        if fence {
            self.fence_member(g, m, &mut records);
        }
        records
    }

    /// Removes a member as a -1 leave or a fence does (docs/coordinator.md §1.5): tombstones for
    /// its current assignment, target and metadata; a regex tombstone if it was the regex's last
    /// subscriber; G+1 with the recomputed hash; its timers cancelled. When only classic members
    /// would be left, a downgrade is recorded for the facade instead.
    pub fn fence_member(&mut self, gid: &str, mid: &str, records: &mut Vec<ConsumerRecord>) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        if !g.members.contains_key(mid) {
            return;
        }
        let leaving = BTreeSet::from([mid.to_string()]);
        if self.downgrade_allowed(g, &leaving) {
            self.ctx.timers.cancel_member(gid, mid);
            self.side.downgrades.push(PendingDowngrade {
                group_id: gid.to_string(),
                leaving,
                rebalance: true,
            });
            return;
        }
        self.remove_member_records(gid, mid, records);
        if let Some(g) = self.groups.get(gid) {
            let hash = self.hash_of(g);
            let epoch = g.group_epoch + 1;
            self.emit(records, ConsumerRecord::group_epoch(gid, epoch, hash));
        }
        self.cancel_all_timers(gid, mid);
    }

    /// Kafka's `removeMember`: the member's current, target and metadata tombstones, plus a
    /// regex tombstone when it was the regex's last subscriber.
    pub(crate) fn remove_member_records(
        &mut self,
        gid: &str,
        mid: &str,
        records: &mut Vec<ConsumerRecord>,
    ) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        let last_regex =
            g.members
                .get(mid)
                .and_then(|m| m.subscribed_topic_regex.clone())
                .filter(|r| {
                    g.regexes.contains_key(r)
                        && !g.members.values().any(|o| {
                            o.member_id != mid && o.subscribed_topic_regex.as_ref() == Some(r)
                        })
                });
        self.emit(records, ConsumerRecord::current_tombstone(gid, mid));
        self.emit(records, ConsumerRecord::target_tombstone(gid, mid));
        self.emit(records, ConsumerRecord::member_metadata_tombstone(gid, mid));
        if let Some(r) = last_regex {
            self.emit(records, ConsumerRecord::regex_tombstone(gid, &r));
        }
    }

    /// Cancels every timer of a member: session, rebalance and the classic join and sync
    /// timeouts (Kafka's `cancelTimers`).
    pub fn cancel_all_timers(&mut self, gid: &str, mid: &str) {
        self.ctx.timers.cancel_member(gid, mid);
        self.ctx.timers.cancel(gid, mid, Slot::ConsumerClassicJoin);
        self.ctx.timers.cancel(gid, mid, Slot::ConsumerClassicSync);
    }

    /// Kafka 4.4's `validateOnlineDowngradeWithFencedMembers`: every member left uses the
    /// classic protocol while a fenced one does not, some member is left, the policy allows
    /// downgrades and the members left fit `group.max.size`.
    pub fn downgrade_allowed(&self, g: &ConsumerGroup, fenced: &BTreeSet<String>) -> bool {
        let classic_left = g
            .members
            .values()
            .filter(|m| !fenced.contains(&m.member_id))
            .all(|m| m.classic.is_some());
        let fenced_consumer = g
            .members
            .values()
            .any(|m| fenced.contains(&m.member_id) && m.classic.is_none());
        let left = g.members.keys().filter(|m| !fenced.contains(*m)).count();
        classic_left
            && fenced_consumer
            && left > 0
            && self.side.config.migration_policy.is_downgrade_enabled()
            && left <= self.side.classic_max_size.max(0) as usize
    }
}
