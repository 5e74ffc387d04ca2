//! One deadline-ordered index of every armed timer of every group type.
//!
//! Timers are volatile (never in records; re-armed when a coordinator is built from records):
//! a member's session timeout, a member's rebalance (revocation) timeout, a streams group's
//! initial rebalance delay and the classic protocol's join and sync timeouts. Each is keyed by
//! (group id, member id, [`Slot`]), at most one deadline per key; a group-level timer has the
//! member id "". The index keeps both directions, key → deadline and (deadline, key) → (), so
//! [`Timers::next_deadline`] is O(log n) and [`Timers::pop_due`] takes only what is due.
//!
//! Re-arming allocates nothing: the group and member ids are kept once per member as shared
//! `Arc<str>` (the key map is searched by `&str`, the deadline set holds clones of the same
//! `Arc`s), and a member's slots are a fixed array. Only the first timer of a member allocates
//! (its ids and its map entry), and the last one cancelled frees them. A new group type adds its
//! timers as new [`TimerKind`] variants and, when they need a slot of their own, a [`Slot`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

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

/// How many [`Slot`]s there are (the length of a member's slot array).
const SLOTS: usize = 7;

impl TimerKind {
    /// The slot this kind of timer occupies.
    pub(crate) fn slot(self) -> Slot {
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

/// A timer that came due: deadline (ms), what it does, group id, member id (empty for a
/// group-level timer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Due {
    pub deadline: i64,
    pub kind: TimerKind,
    pub group_id: String,
    pub member_id: String,
}

/// One member's (or one group's, member id "") armed timers: deadline (ms) and kind per slot.
#[derive(Debug, Clone, PartialEq)]
struct Armed {
    group_id: Arc<str>,
    member_id: Arc<str>,
    slots: [Option<(i64, TimerKind)>; SLOTS],
}

impl Armed {
    fn is_empty(&self) -> bool {
        self.slots.iter().all(Option::is_none)
    }
}

/// (deadline, kind, group id, member id): the firing order (deadline first, then session
/// before rebalance before delay, then group and member id).
type Entry = (i64, TimerKind, Arc<str>, Arc<str>);

/// One group's armed timers, by member id ("" for the group's own timers).
#[derive(Debug, Clone, PartialEq)]
struct GroupTimers {
    group_id: Arc<str>,
    members: BTreeMap<Arc<str>, Armed>,
}

/// Every armed timer (see the module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Timers {
    /// group id → its members' timers.
    by_key: BTreeMap<Arc<str>, GroupTimers>,
    by_deadline: BTreeSet<Entry>,
}

impl Timers {
    /// The timers of a member, created (its ids allocated once) when it has none.
    fn armed_mut(&mut self, group_id: &str, member_id: &str) -> &mut Armed {
        if !self.by_key.contains_key(group_id) {
            let id: Arc<str> = Arc::from(group_id);
            let g = GroupTimers {
                group_id: id.clone(),
                members: BTreeMap::new(),
            };
            self.by_key.insert(id, g);
        }
        let g = self.by_key.get_mut(group_id).expect("inserted above");
        if !g.members.contains_key(member_id) {
            let armed = Armed {
                group_id: g.group_id.clone(),
                member_id: Arc::from(member_id),
                slots: [None; SLOTS],
            };
            g.members.insert(armed.member_id.clone(), armed);
        }
        g.members.get_mut(member_id).expect("inserted above")
    }

    /// Arms (or re-arms) a timer; a timer in the same slot is replaced. Re-arming a slot of a
    /// member that has a timer allocates nothing.
    pub fn arm(&mut self, group_id: &str, member_id: &str, kind: TimerKind, deadline: i64) {
        let slot = kind.slot() as usize;
        let known = self
            .by_key
            .get_mut(group_id)
            .and_then(|g| g.members.get_mut(member_id));
        let armed = match known {
            Some(a) => a,
            None => self.armed_mut(group_id, member_id),
        };
        let old = armed.slots[slot].replace((deadline, kind));
        let (g, m) = (armed.group_id.clone(), armed.member_id.clone());
        if let Some((d, k)) = old {
            self.by_deadline.remove(&(d, k, g.clone(), m.clone()));
        }
        self.by_deadline.insert((deadline, kind, g, m));
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
        let Some(g) = self.by_key.get_mut(group_id) else {
            return;
        };
        let Some(armed) = g.members.get_mut(member_id) else {
            return;
        };
        let Some((d, k)) = armed.slots[slot as usize].take() else {
            return;
        };
        self.by_deadline
            .remove(&(d, k, armed.group_id.clone(), armed.member_id.clone()));
        if armed.is_empty() {
            g.members.remove(member_id);
            if g.members.is_empty() {
                self.by_key.remove(group_id);
            }
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
            .get(group_id)
            .and_then(|g| g.members.get(member_id))
            .and_then(|a| a.slots[slot as usize])
    }

    /// The earliest deadline (ms), if any timer is armed.
    pub fn next_deadline(&self) -> Option<i64> {
        self.by_deadline.first().map(|t| t.0)
    }

    /// Every armed timer in firing order: (deadline, kind, group id, member id).
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (i64, TimerKind, &str, &str)> + '_ {
        self.by_deadline
            .iter()
            .map(|(d, k, g, m)| (*d, *k, &**g, &**m))
    }

    /// Removes and returns the earliest timer if its deadline is at or before `now_ms`.
    pub fn pop_due(&mut self, now_ms: i64) -> Option<Due> {
        if self.by_deadline.first()?.0 > now_ms {
            return None;
        }
        let (deadline, kind, group_id, member_id) = self.by_deadline.first()?.clone();
        self.cancel(&group_id, &member_id, kind.slot());
        Some(Due {
            deadline,
            kind,
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
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
        assert_eq!(t, Timers::default(), "the last cancel frees every entry");
    }

    #[test]
    fn equal_deadlines_fire_by_kind_then_group_then_member() {
        let mut t = Timers::default();
        t.arm("g2", "a", TimerKind::Session, 5);
        t.arm("g1", "b", TimerKind::Session, 5);
        t.arm("g1", "a", TimerKind::Rebalance { epoch: 1 }, 5);
        t.arm("g1", "a", TimerKind::Session, 5);
        let order: Vec<_> = t
            .iter()
            .map(|(_, k, g, m)| (k, g.to_string(), m.to_string()))
            .collect();
        assert_eq!(
            order,
            vec![
                (TimerKind::Session, "g1".into(), "a".into()),
                (TimerKind::Session, "g1".into(), "b".into()),
                (TimerKind::Session, "g2".into(), "a".into()),
                (TimerKind::Rebalance { epoch: 1 }, "g1".into(), "a".into()),
            ]
        );
    }
}
