//! One deadline-ordered index of every armed timer of every group type.
//!
//! Timers are volatile (never in records; re-armed when a coordinator is built from records):
//! a member's session timeout, a member's rebalance (revocation) timeout and a streams group's
//! initial rebalance delay. Each is keyed by [`TimerKey`] (group id, member id, what it is), at
//! most one deadline per key. The index keeps both directions, key → deadline and
//! (deadline, key) → (), so [`Timers::next_deadline`] is O(log n) and [`Timers::pop_due`] takes
//! only what is due. A new group type adds its timers as new [`TimerKind`] variants.

use std::collections::{BTreeMap, BTreeSet};

/// What a timer does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimerKind {
    /// Session timeout: the member is fenced.
    Session,
    /// Rebalance (revocation) timeout: the member is fenced if still at the captured epoch.
    Rebalance {
        /// The member epoch when the timer was scheduled.
        epoch: i32,
    },
    /// A streams group's initial rebalance delay ended: targets are computed (KIP-1071; Kafka's
    /// `group.streams.initial.rebalance.delay.ms`).
    InitialRebalanceDelay,
    /// A classic member of a consumer group told to rejoin (REBALANCE_IN_PROGRESS) did not send
    /// its JoinGroup within its rebalance timeout: it is fenced (Kafka's `consumerGroupJoinKey`
    /// timer, KIP-848 online migration).
    ConsumerClassicJoin,
    /// A classic member of a consumer group did not send its SyncGroup within its rebalance
    /// timeout after its JoinGroup: it is fenced (Kafka's `consumerGroupSyncKey` timer).
    ConsumerClassicSync,
    /// A classic group's join phase ends (Kafka's `classicGroupJoinKey`): members that did not
    /// rejoin are removed and the next generation starts.
    ClassicJoin,
    /// A classic group's initial rebalance delay (`group.initial.rebalance.delay.ms`) ended:
    /// extended by `delay_ms` while new members arrive and `remaining_ms` (of the rebalance
    /// timeout) is left, else the join phase ends. Shares the join phase's slot.
    ClassicInitialDelay {
        /// The delay this timer waited (ms).
        delay_ms: i32,
        /// What is left of the rebalance timeout for further extensions (ms).
        remaining_ms: i32,
    },
    /// A classic group's members did not all send SyncGroup within the rebalance timeout of
    /// `generation` (Kafka's `classicGroupSyncKey`): those pending are removed and the group
    /// rebalances.
    ClassicSync {
        /// The generation the timer was armed for.
        generation: i32,
    },
}

/// The slot a timer occupies: at most one deadline per slot. A rebalance timer re-armed with
/// another epoch replaces the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Slot {
    Session,
    Rebalance,
    InitialRebalanceDelay,
    ConsumerClassicJoin,
    ConsumerClassicSync,
    ClassicJoin,
    ClassicSync,
}

impl TimerKind {
    fn slot(self) -> Slot {
        match self {
            TimerKind::Session => Slot::Session,
            TimerKind::Rebalance { .. } => Slot::Rebalance,
            TimerKind::InitialRebalanceDelay => Slot::InitialRebalanceDelay,
            TimerKind::ConsumerClassicJoin => Slot::ConsumerClassicJoin,
            TimerKind::ConsumerClassicSync => Slot::ConsumerClassicSync,
            TimerKind::ClassicJoin | TimerKind::ClassicInitialDelay { .. } => Slot::ClassicJoin,
            TimerKind::ClassicSync { .. } => Slot::ClassicSync,
        }
    }
}

/// Which timer: group id, member id (empty for a group-level timer) and slot.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct TimerKey {
    pub group_id: String,
    pub member_id: String,
    pub slot: Slot,
}

/// A timer that came due: deadline (ms), what it does, group id, member id (empty for a
/// group-level timer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Due {
    pub deadline: i64,
    pub kind: TimerKind,
    pub group_id: String,
    pub member_id: String,
}

/// Every armed timer (see the module docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct Timers {
    by_key: BTreeMap<TimerKey, (i64, TimerKind)>,
    /// (deadline, kind, group, member): the firing order (deadline first, then session before
    /// rebalance before delay, then group and member id).
    by_deadline: BTreeSet<(i64, TimerKind, String, String)>,
}

impl Timers {
    fn key(group_id: &str, member_id: &str, slot: Slot) -> TimerKey {
        TimerKey {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
            slot,
        }
    }

    /// Arms (or re-arms) a timer; a timer in the same slot is replaced.
    pub fn arm(&mut self, group_id: &str, member_id: &str, kind: TimerKind, deadline: i64) {
        let key = Self::key(group_id, member_id, kind.slot());
        if let Some((d, k)) = self.by_key.insert(key, (deadline, kind)) {
            self.by_deadline
                .remove(&(d, k, group_id.to_string(), member_id.to_string()));
        }
        self.by_deadline
            .insert((deadline, kind, group_id.to_string(), member_id.to_string()));
    }

    /// Re-arms one member's timers after a replay (timers are volatile, docs/coordinator.md D6):
    /// its session timer at `now_ms + session_timeout_ms`, and, for a member still revoking
    /// (`revoking = Some((member_epoch, rebalance_timeout_ms))`), its rebalance timer at
    /// `now_ms + rebalance_timeout_ms` (a negative timeout counts as 0).
    pub fn rearm_member(
        &mut self,
        group_id: &str,
        member_id: &str,
        now_ms: i64,
        session_timeout_ms: i32,
        revoking: Option<(i32, i32)>,
    ) {
        let session = now_ms + i64::from(session_timeout_ms);
        self.arm(group_id, member_id, TimerKind::Session, session);
        if let Some((epoch, timeout_ms)) = revoking {
            let deadline = now_ms + i64::from(timeout_ms.max(0));
            self.arm(
                group_id,
                member_id,
                TimerKind::Rebalance { epoch },
                deadline,
            );
        }
    }

    /// Cancels the timer of a slot, if armed.
    pub fn cancel(&mut self, group_id: &str, member_id: &str, slot: Slot) {
        let key = Self::key(group_id, member_id, slot);
        if let Some((d, k)) = self.by_key.remove(&key) {
            self.by_deadline
                .remove(&(d, k, key.group_id, key.member_id));
        }
    }

    /// Cancels a member's session and rebalance timers.
    pub fn cancel_member(&mut self, group_id: &str, member_id: &str) {
        self.cancel(group_id, member_id, Slot::Session);
        self.cancel(group_id, member_id, Slot::Rebalance);
    }

    /// The deadline (ms) and kind of a slot's timer, if armed.
    pub fn get(&self, group_id: &str, member_id: &str, slot: Slot) -> Option<(i64, TimerKind)> {
        self.by_key
            .get(&Self::key(group_id, member_id, slot))
            .copied()
    }

    /// The earliest deadline (ms), if any timer is armed.
    pub fn next_deadline(&self) -> Option<i64> {
        self.by_deadline.first().map(|t| t.0)
    }

    /// Removes and returns the earliest timer if its deadline is at or before `now_ms`.
    pub fn pop_due(&mut self, now_ms: i64) -> Option<Due> {
        if self.by_deadline.first()?.0 > now_ms {
            return None;
        }
        let (deadline, kind, group_id, member_id) = self.by_deadline.pop_first()?;
        self.by_key
            .remove(&Self::key(&group_id, &member_id, kind.slot()));
        Some(Due {
            deadline,
            kind,
            group_id,
            member_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_deadline_order_and_rearm_replaces() {
        let mut t = Timers::default();
        t.arm("g", "a", TimerKind::Session, 50);
        t.arm("g", "b", TimerKind::Session, 10);
        t.arm("g", "a", TimerKind::Rebalance { epoch: 3 }, 10);
        t.arm("g", "a", TimerKind::Rebalance { epoch: 4 }, 30);
        t.arm("s", "", TimerKind::InitialRebalanceDelay, 20);
        assert_eq!(t.next_deadline(), Some(10));
        assert_eq!(
            t.get("g", "a", Slot::Rebalance),
            Some((30, TimerKind::Rebalance { epoch: 4 }))
        );
        let due = |t: &mut Timers, now| {
            std::iter::from_fn(|| t.pop_due(now))
                .map(|d| (d.deadline, d.kind, d.group_id, d.member_id))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            due(&mut t, 30),
            vec![
                (10, TimerKind::Session, "g".into(), "b".into()),
                (20, TimerKind::InitialRebalanceDelay, "s".into(), "".into()),
                (
                    30,
                    TimerKind::Rebalance { epoch: 4 },
                    "g".into(),
                    "a".into()
                ),
            ]
        );
        t.cancel_member("g", "a");
        assert_eq!(t.next_deadline(), None);
    }
}
