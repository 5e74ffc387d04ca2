//! One deadline-ordered index of every armed timer of every group type.
//!
//! Timers are volatile (never in records; re-armed when a coordinator is built from records):
//! a member's session timeout, a member's rebalance (revocation) timeout, a streams group's
//! initial rebalance delay and the classic protocol's join and sync timeouts. Each is keyed by
//! (group id, member id, [`Slot`]), at most one deadline per key; a group-level timer has the
//! member id "". Timers fire in one total order: deadline, then kind (session before rebalance
//! before delay, [`TimerKind`]'s order), then group id, then member id.
//!
//! The index has three parts: `owners`, one entry per member (or group) with a timer: its ids
//! and, per slot, where its timer sits in the heap; `by_key`, group id → member id → owner;
//! and `heap`, a binary min-heap of (deadline, kind, owner) in firing order, each entry's place
//! kept in its owner's slot. [`Timers::next_deadline`] is O(1); arming, re-arming, cancelling
//! and [`Timers::pop_due`] are O(log n).
//!
//! Re-arming allocates nothing: a re-armed timer moves within the heap (it neither grows nor
//! shrinks), the key maps are searched by `&str`, and a member's slots are a fixed array; so a
//! heartbeat that only moves its session timer allocates nothing whichever member sends it.
//! Only a member's first timer allocates (its ids, its map entry, room in the vectors when
//! they are full), and its last one cancelled frees its ids. A new group type adds its timers as
//! new [`TimerKind`] variants and, when they need a slot of their own, a [`Slot`].

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
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

/// One member's (or one group's, member id "") armed timers: its ids and, per slot, the place
/// of the slot's timer in the heap.
#[derive(Debug, Clone)]
struct Owner {
    group_id: Arc<str>,
    member_id: Arc<str>,
    slots: [Option<usize>; SLOTS],
}

impl Owner {
    fn is_empty(&self) -> bool {
        self.slots.iter().all(Option::is_none)
    }
}

/// One armed timer in the heap: its deadline (ms), kind and owner (index in `owners`).
#[derive(Debug, Clone, Copy)]
struct Entry {
    deadline: i64,
    kind: TimerKind,
    owner: usize,
}

/// Every armed timer (see the module docs). Two indexes are equal when they hold the same
/// timers, however they are laid out.
#[derive(Clone, Default)]
pub(crate) struct Timers {
    /// group id → member id → index in `owners`.
    by_key: BTreeMap<Arc<str>, BTreeMap<Arc<str>, usize>>,
    owners: Vec<Owner>,
    /// A min-heap in firing order ([`Timers::before`]).
    heap: Vec<Entry>,
}

impl Timers {
    /// The owner index of a member's timers, if it has any.
    fn owner_of(&self, group_id: &str, member_id: &str) -> Option<usize> {
        self.by_key.get(group_id)?.get(member_id).copied()
    }

    /// The owner index of a member's timers, created (its ids allocated once) when it has none.
    fn owner_mut(&mut self, group_id: &str, member_id: &str) -> usize {
        if let Some(o) = self.owner_of(group_id, member_id) {
            return o;
        }
        let group_id: Arc<str> = match self.by_key.get_key_value(group_id) {
            Some((g, _)) => g.clone(),
            None => Arc::from(group_id),
        };
        let member_id: Arc<str> = Arc::from(member_id);
        let o = self.owners.len();
        self.by_key
            .entry(group_id.clone())
            .or_default()
            .insert(member_id.clone(), o);
        self.owners.push(Owner {
            group_id,
            member_id,
            slots: [None; SLOTS],
        });
        o
    }

    /// Drops owner `o`, which has no timer left: the last owner takes its index.
    fn free_owner(&mut self, o: usize) {
        let gone = self.owners.swap_remove(o);
        if let Some(members) = self.by_key.get_mut(&*gone.group_id) {
            members.remove(&*gone.member_id);
            if members.is_empty() {
                self.by_key.remove(&*gone.group_id);
            }
        }
        let Some(moved) = self.owners.get(o) else {
            return;
        };
        for &pos in moved.slots.iter().flatten() {
            self.heap[pos].owner = o;
        }
        if let Some(m) = self
            .by_key
            .get_mut(&*moved.group_id)
            .and_then(|g| g.get_mut(&*moved.member_id))
        {
            *m = o;
        }
    }

    /// Whether heap entry `a` fires before `b`: deadline, kind, group id, member id.
    fn before(&self, a: usize, b: usize) -> bool {
        let (a, b) = (&self.heap[a], &self.heap[b]);
        let order = (a.deadline, a.kind)
            .cmp(&(b.deadline, b.kind))
            .then_with(|| {
                let (x, y) = (&self.owners[a.owner], &self.owners[b.owner]);
                (&x.group_id, &x.member_id).cmp(&(&y.group_id, &y.member_id))
            });
        order == Ordering::Less
    }

    /// Records in its owner where heap entry `pos` now sits.
    fn place(&mut self, pos: usize) {
        let e = self.heap[pos];
        self.owners[e.owner].slots[e.kind.slot() as usize] = Some(pos);
    }

    /// Moves heap entry `pos` up or down to its place in firing order.
    fn sift(&mut self, mut pos: usize) {
        while pos > 0 && self.before(pos, (pos - 1) / 2) {
            let parent = (pos - 1) / 2;
            self.heap.swap(pos, parent);
            self.place(pos);
            pos = parent;
        }
        loop {
            let (l, r) = (2 * pos + 1, 2 * pos + 2);
            let mut first = pos;
            if l < self.heap.len() && self.before(l, first) {
                first = l;
            }
            if r < self.heap.len() && self.before(r, first) {
                first = r;
            }
            if first == pos {
                break;
            }
            self.heap.swap(pos, first);
            self.place(pos);
            pos = first;
        }
        self.place(pos);
    }

    /// Takes heap entry `pos` out of the heap (its owner's slot is the caller's).
    fn remove_at(&mut self, pos: usize) -> Entry {
        let e = self.heap.swap_remove(pos);
        if pos < self.heap.len() {
            self.sift(pos);
        }
        e
    }

    /// Arms (or re-arms) a timer; a timer in the same slot is replaced. Re-arming a slot of a
    /// member that has a timer allocates nothing.
    pub fn arm(&mut self, group_id: &str, member_id: &str, kind: TimerKind, deadline: i64) {
        let owner = self.owner_mut(group_id, member_id);
        let entry = Entry {
            deadline,
            kind,
            owner,
        };
        let pos = match self.owners[owner].slots[kind.slot() as usize] {
            Some(pos) => {
                self.heap[pos] = entry;
                pos
            }
            None => {
                self.heap.push(entry);
                self.heap.len() - 1
            }
        };
        self.sift(pos);
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

    /// Cancels the timer of owner `o`'s slot, if armed; frees the owner when it was its last.
    fn cancel_owned(&mut self, o: usize, slot: Slot) -> Option<Entry> {
        let pos = self.owners[o].slots[slot as usize].take()?;
        let e = self.remove_at(pos);
        if self.owners[o].is_empty() {
            self.free_owner(o);
        }
        Some(e)
    }

    /// Cancels the timer of a slot, if armed.
    pub fn cancel(&mut self, group_id: &str, member_id: &str, slot: Slot) {
        if let Some(o) = self.owner_of(group_id, member_id) {
            self.cancel_owned(o, slot);
        }
    }

    /// Cancels a member's session and rebalance timers.
    pub fn cancel_member(&mut self, group_id: &str, member_id: &str) {
        self.cancel(group_id, member_id, Slot::Session);
        self.cancel(group_id, member_id, Slot::Rebalance);
    }

    /// The deadline (ms) and kind of a slot's timer, if armed.
    pub fn get(&self, group_id: &str, member_id: &str, slot: Slot) -> Option<(i64, TimerKind)> {
        let o = self.owner_of(group_id, member_id)?;
        let e = self.heap[self.owners[o].slots[slot as usize]?];
        Some((e.deadline, e.kind))
    }

    /// The earliest deadline (ms), if any timer is armed.
    pub fn next_deadline(&self) -> Option<i64> {
        self.heap.first().map(|e| e.deadline)
    }

    /// Every armed timer in firing order: (deadline, kind, group id, member id).
    pub fn iter(&self) -> impl Iterator<Item = (i64, TimerKind, &str, &str)> + '_ {
        let mut all: Vec<_> = self
            .heap
            .iter()
            .map(|e| {
                let o = &self.owners[e.owner];
                (e.deadline, e.kind, &*o.group_id, &*o.member_id)
            })
            .collect();
        all.sort_unstable();
        all.into_iter()
    }

    /// Removes and returns the earliest timer if its deadline is at or before `now_ms`.
    pub fn pop_due(&mut self, now_ms: i64) -> Option<Due> {
        let top = *self.heap.first().filter(|e| e.deadline <= now_ms)?;
        let o = &self.owners[top.owner];
        let due = Due {
            deadline: top.deadline,
            kind: top.kind,
            group_id: o.group_id.to_string(),
            member_id: o.member_id.to_string(),
        };
        self.cancel_owned(top.owner, top.kind.slot());
        Some(due)
    }
}

impl PartialEq for Timers {
    fn eq(&self, other: &Self) -> bool {
        self.heap.len() == other.heap.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Timers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
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
        assert!(t.by_key.is_empty() && t.owners.is_empty() && t.heap.is_empty());
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

    /// One operation on the index: arm, cancel a slot, cancel a member, pop what is due.
    #[derive(Debug, Clone)]
    enum Op {
        Arm(u8, u8, TimerKind, i64),
        Cancel(u8, u8, Slot),
        CancelMember(u8, u8),
        Pop(i64),
    }

    fn kind() -> impl proptest::strategy::Strategy<Value = TimerKind> {
        use proptest::prelude::*;
        prop_oneof![
            Just(TimerKind::Session),
            (0..3i32).prop_map(|epoch| TimerKind::Rebalance { epoch }),
            Just(TimerKind::InitialRebalanceDelay),
            Just(TimerKind::ClassicJoin),
            Just(TimerKind::ClassicInitialDelay {
                delay_ms: 3,
                remaining_ms: 7
            }),
            (0..3i32).prop_map(|generation| TimerKind::ClassicSync { generation }),
        ]
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        let slot = prop_oneof![
            Just(Slot::Session),
            Just(Slot::Rebalance),
            Just(Slot::ClassicJoin)
        ];
        prop_oneof![
            4 => (0..3u8, 0..4u8, kind(), 0..20i64).prop_map(|(g, m, k, d)| Op::Arm(g, m, k, d)),
            1 => (0..3u8, 0..4u8, slot).prop_map(|(g, m, s)| Op::Cancel(g, m, s)),
            1 => (0..3u8, 0..4u8).prop_map(|(g, m)| Op::CancelMember(g, m)),
            1 => (0..20i64).prop_map(Op::Pop),
        ]
    }

    /// The model: (group, member, slot) → (deadline, kind).
    type Model = BTreeMap<(String, String, Slot), (i64, TimerKind)>;

    fn model_order(m: &Model) -> Vec<(i64, TimerKind, String, String)> {
        let mut all: Vec<_> = m
            .iter()
            .map(|((g, mem, _), (d, k))| (*d, *k, g.clone(), mem.clone()))
            .collect();
        all.sort();
        all
    }

    fn run(t: &mut Timers, m: &mut Model, op: &Op) {
        let ids = |g: u8, mem: u8| {
            (
                format!("g{g}"),
                if mem == 0 {
                    String::new()
                } else {
                    format!("m{mem}")
                },
            )
        };
        match *op {
            Op::Arm(g, mem, k, d) => {
                let (g, mem) = ids(g, mem);
                t.arm(&g, &mem, k, d);
                m.insert((g, mem, k.slot()), (d, k));
            }
            Op::Cancel(g, mem, slot) => {
                let (g, mem) = ids(g, mem);
                t.cancel(&g, &mem, slot);
                m.remove(&(g, mem, slot));
            }
            Op::CancelMember(g, mem) => {
                let (g, mem) = ids(g, mem);
                t.cancel_member(&g, &mem);
                m.remove(&(g.clone(), mem.clone(), Slot::Session));
                m.remove(&(g, mem, Slot::Rebalance));
            }
            Op::Pop(now) => {
                let popped: Vec<_> = std::iter::from_fn(|| t.pop_due(now))
                    .map(|d| (d.deadline, d.kind, d.group_id, d.member_id))
                    .collect();
                let expected: Vec<_> = model_order(m)
                    .into_iter()
                    .take_while(|e| e.0 <= now)
                    .collect();
                m.retain(|_, (d, _)| *d > now);
                assert_eq!(popped, expected);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        /// The heap fires, answers and frees exactly as a sorted map of the same timers.
        #[test]
        fn the_index_agrees_with_a_sorted_model(ops in proptest::collection::vec(op(), 1..60)) {
            let mut t = Timers::default();
            let mut m = Model::new();
            for op in &ops {
                run(&mut t, &mut m, op);
                let order: Vec<_> = t
                    .iter()
                    .map(|(d, k, g, mem)| (d, k, g.to_string(), mem.to_string()))
                    .collect();
                proptest::prop_assert_eq!(&order, &model_order(&m));
                proptest::prop_assert_eq!(t.next_deadline(), order.first().map(|e| e.0));
                for ((g, mem, slot), v) in &m {
                    proptest::prop_assert_eq!(t.get(g, mem, *slot), Some(*v));
                }
                let owners: std::collections::BTreeSet<_> =
                    m.keys().map(|(g, mem, _)| (g.clone(), mem.clone())).collect();
                proptest::prop_assert_eq!(t.owners.len(), owners.len(), "owners freed");
                proptest::prop_assert_eq!(t.by_key.len(), owners.iter().map(|o| &o.0).collect::<std::collections::BTreeSet<_>>().len());
            }
        }
    }
}
