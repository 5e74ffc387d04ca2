//! The `uniform` server-side assignor (docs/coordinator.md §1.9): balance first, then
//! stickiness. It is Kafka 4.2's `UniformAssignor`, which hands homogeneous groups to
//! `UniformHomogeneousAssignmentBuilder` and the others to
//! `UniformHeterogeneousAssignmentBuilder` (apache/kafka,
//! `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/`).
//!
//! # Homogeneous subscriptions
//!
//! Every member subscribes to the same topics. With `total` partitions and `n` members:
//!
//! 1. Members are taken **in member-id order** (Kafka iterates its `HashMap` of members, an order
//!    it leaves unspecified; kwire fixes it as the order of [`GroupSpec::members`]).
//! 2. Each member's quota is `total / n`. While some of the `total % n` extra partitions are
//!    still unclaimed, the member is offered one of them (quota + 1).
//! 3. The member keeps its previous partitions of the subscribed topics, in ascending
//!    (topic id, partition) order, until its quota is used up; the rest are freed. Partitions of
//!    topics it no longer subscribes to are dropped.
//! 4. If the member could not fill its offered extra partition from what it had, it hands the
//!    extra back for a later member, unless only as many members are left as extras remain
//!    (then it must take it). This is the stability fix of KAFKA-18688 (apache/kafka PR #19677,
//!    in 4.1 and so 4.2): a balanced assignment stays exactly as it is when recomputed, and
//!    adding or removing one member moves the fewest partitions possible. So on a first
//!    assignment the extra partitions go to the *last* `total % n` members, and afterwards to
//!    the members that already hold `total / n + 1`.
//! 5. The partitions to deal out are those in no previous target (ascending topic id, then
//!    partition), followed by the freed ones (in member order, then topic id, then partition).
//!    Members below their quota take them in member order, each the next run of the list.
//!
//! Balance: member sizes differ by at most one. Stickiness: a member keeps everything it had up
//! to its quota.
//!
//! # Heterogeneous subscriptions
//!
//! A port of Kafka 4.2's reworked builder (KAFKA-17710, apache/kafka PR #17385):
//!
//! 1. Members are numbered in member-id order. Each topic's subscribers are kept in that order.
//! 2. Previous partitions of topics a member no longer subscribes to are revoked; the others are
//!    kept.
//! 3. Topics are ordered by partitions per subscriber (descending, compared exactly as
//!    fractions where Kafka compares doubles), then subscriber count (ascending), then topic id
//!    (ascending, kwire's [`Uuid`] order: unsigned bytes, where Kafka compares the two halves as
//!    signed longs; the two differ only between ids whose top bit differs).
//! 4. Each topic's unassigned partitions, in ascending order, go one by one to the least-loaded
//!    subscriber (fewest partitions in total; ties by member index), filling the least-loaded
//!    level before the next.
//! 5. Balancing: in topic order, for each topic with at least two subscribers, partitions move
//!    from its most-loaded subscribers (each giving up its highest-numbered partition of the
//!    topic) to its least-loaded ones until their totals differ by at most one or nobody has a
//!    partition of the topic to give. The passes repeat until one full pass moves nothing, at
//!    most 16 passes.
//!
//! This is perfectly balanced when all subscribers of each topic have the same subscriptions,
//! and nearly balanced otherwise (see Kafka's builder documentation for the 9/10/11 example).
//!
//! # Departures and robustness (kwire)
//!
//! * Not rack-aware (as Kafka 4.2): racks are ignored.
//! * A subscribed topic missing from the [`TopicsSpec`] is not assigned (docs/coordinator.md, D5;
//!   Kafka throws).
//! * A previous target that is not a valid assignment is repaired rather than trusted: partition
//!   numbers outside `0..partitions` are dropped, and a partition claimed by several members
//!   stays with the first of them in member-id order.
//! * A [`SubscriptionType::Homogeneous`] hint is checked: if the members' subscriptions differ
//!   after all, the heterogeneous algorithm runs (Kafka would trust the hint).
//! * Every member appears in the result, with an empty assignment when it gets nothing.
//!
//! # Cost
//!
//! Homogeneous: O(M + P + previous partitions), plus building the result. Heterogeneous: one
//! sort of each topic's subscribers and partitions per balancing pass, O(passes x (S log S +
//! P log P)), where S is the sum of subscriber counts and P the partition count.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::spec::{
    AssignorError, ConsumerGroupAssignor, GroupAssignment, GroupSpec, MemberSpec, SubscriptionType,
    TopicsSpec,
};
use crate::wire::Uuid;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The uniform assignor (`"uniform"`, Kafka's default): balanced, then sticky. See the
/// [module documentation](self) for the exact algorithm and its tie-breaks.
///
/// [`assign`](ConsumerGroupAssignor::assign) fails only when a subscribed topic has a negative
/// partition count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UniformAssignor;

impl UniformAssignor {
    /// The name members use in `ServerAssignor`: `"uniform"`.
    pub const NAME: &'static str = "uniform";
}

impl ConsumerGroupAssignor for UniformAssignor {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn assign(
        &self,
        group: &GroupSpec,
        topics: &TopicsSpec,
    ) -> Result<GroupAssignment, AssignorError> {
        if group.members.is_empty() {
            return Ok(GroupAssignment::default());
        }
        let members: Vec<(&String, &MemberSpec)> = group.members.iter().collect();
        let homogeneous = group.subscription_type == SubscriptionType::Homogeneous
            && members
                .windows(2)
                .all(|w| w[0].1.subscribed_topic_ids == w[1].1.subscribed_topic_ids);
        if homogeneous {
            assign_homogeneous(&members, topics)
        } else {
            Heterogeneous::new(&members, topics)?.build(&members)
        }
    }
}

/// Marks a partition that nobody owns in the owner tables.
const NONE: u32 = u32::MAX;

/// The maximum number of balancing passes of the heterogeneous algorithm (Kafka's
/// `MAX_ITERATION_COUNT`).
const MAX_ITERATION_COUNT: usize = 16;

fn error(reason: String) -> AssignorError {
    AssignorError {
        assignor: UniformAssignor::NAME.to_string(),
        reason,
    }
}

/// The topics taking part in an assignment, by dense index, in ascending topic-id order.
struct TopicTable {
    ids: Vec<Uuid>,
    counts: Vec<usize>,
}

impl TopicTable {
    /// The topics of `ids` (ascending, distinct) that exist in `topics`.
    fn new<'a>(
        ids: impl Iterator<Item = &'a Uuid>,
        topics: &TopicsSpec,
    ) -> Result<Self, AssignorError> {
        let mut table = TopicTable {
            ids: Vec::new(),
            counts: Vec::new(),
        };
        for id in ids {
            let Some(info) = topics.get(id) else { continue };
            let count = usize::try_from(info.partitions).map_err(|_| {
                error(format!(
                    "topic {} ({id}) has a negative partition count {}",
                    info.name, info.partitions
                ))
            })?;
            table.ids.push(*id);
            table.counts.push(count);
        }
        Ok(table)
    }

    fn index(&self, id: &Uuid) -> Option<usize> {
        self.ids.binary_search(id).ok()
    }

    /// One owner table per topic, every partition unowned.
    fn empty_owners(&self) -> Vec<Vec<u32>> {
        self.counts.iter().map(|&c| vec![NONE; c]).collect()
    }
}

/// The owner slot of partition `p` (None when `p` is out of range).
fn slot(owners: &mut [u32], p: i32) -> Option<&mut u32> {
    usize::try_from(p).ok().and_then(|p| owners.get_mut(p))
}

/// The result from per-topic owner tables: every member, each with the partitions it owns.
fn build_result(
    members: &[(&String, &MemberSpec)],
    table: &TopicTable,
    owners: &[Vec<u32>],
) -> GroupAssignment {
    let mut out: Vec<BTreeMap<Uuid, BTreeSet<i32>>> = vec![BTreeMap::new(); members.len()];
    for (ti, own) in owners.iter().enumerate() {
        let topic = table.ids[ti];
        // Partitions come in ascending order, so each set is built by appends.
        let mut current: Option<(u32, BTreeSet<i32>)> = None;
        for (p, &o) in own.iter().enumerate() {
            if o == NONE {
                continue;
            }
            match &mut current {
                Some((owner, set)) if *owner == o => {
                    set.insert(p as i32);
                }
                _ => {
                    if let Some((owner, set)) = current.take() {
                        out[owner as usize].entry(topic).or_default().extend(set);
                    }
                    current = Some((o, BTreeSet::from([p as i32])));
                }
            }
        }
        if let Some((owner, set)) = current {
            out[owner as usize].entry(topic).or_default().extend(set);
        }
    }
    GroupAssignment {
        members: members
            .iter()
            .map(|(id, _)| (*id).clone())
            .zip(out)
            .collect(),
    }
}

/// Kafka's `UniformHomogeneousAssignmentBuilder` (4.2, with the KAFKA-18688 stability fix).
/// `members` is non-empty and every member has the same subscriptions.
fn assign_homogeneous(
    members: &[(&String, &MemberSpec)],
    topics: &TopicsSpec,
) -> Result<GroupAssignment, AssignorError> {
    let table = TopicTable::new(members[0].1.subscribed_topic_ids.iter(), topics)?;
    let n = members.len();
    let mut owners = table.empty_owners();

    // Who owned what: the first member (in member order) to claim a valid partition.
    for (mi, (_, m)) in members.iter().enumerate() {
        for (t, ps) in &m.assigned {
            let Some(ti) = table.index(t) else { continue };
            for &p in ps {
                if let Some(s) = slot(&mut owners[ti], p) {
                    if *s == NONE {
                        *s = mi as u32;
                    }
                }
            }
        }
    }

    // Partitions in nobody's previous target come first in the list to deal out.
    let mut unassigned: Vec<(u32, u32)> = Vec::new();
    for (ti, own) in owners.iter().enumerate() {
        unassigned.extend(
            own.iter()
                .enumerate()
                .filter(|(_, &o)| o == NONE)
                .map(|(p, _)| (ti as u32, p as u32)),
        );
    }

    let total: usize = table.counts.iter().sum();
    let min_quota = total / n;
    let mut extras_left = total % n;
    let mut unfilled: Vec<(u32, usize)> = Vec::new();

    for (mi, (_, m)) in members.iter().enumerate() {
        let mut quota = min_quota;
        let mut has_extra = false;
        if extras_left > 0 {
            quota += 1;
            has_extra = true;
        }
        // Keep previous partitions up to the quota; free the rest.
        for (t, ps) in &m.assigned {
            let Some(ti) = table.index(t) else { continue };
            for &p in ps {
                let Some(s) = slot(&mut owners[ti], p) else {
                    continue;
                };
                if *s != mi as u32 {
                    continue;
                }
                if quota > 0 {
                    quota -= 1;
                } else {
                    *s = NONE;
                    unassigned.push((ti as u32, p as u32));
                }
            }
        }
        // KAFKA-18688: give the extra partition back for a later member to claim, unless this
        // member is one of the last `extras_left` members and must take it.
        if quota > 0 && has_extra && n - mi > extras_left {
            quota -= 1;
            has_extra = false;
        }
        if quota > 0 {
            unfilled.push((mi as u32, quota));
        }
        if has_extra {
            extras_left -= 1;
        }
    }

    // Deal the unassigned and freed partitions to the members below their quota.
    let mut next = 0;
    for (mi, need) in unfilled {
        for &(ti, p) in unassigned.iter().skip(next).take(need) {
            owners[ti as usize][p as usize] = mi;
        }
        next += need.min(unassigned.len().saturating_sub(next));
    }
    if next < unassigned.len() {
        return Err(error(format!(
            "{} partitions were left unassigned",
            unassigned.len() - next
        )));
    }
    Ok(build_result(members, &table, &owners))
}

/// Kafka's `UniformHeterogeneousAssignmentBuilder` (4.2): state of one computation.
struct Heterogeneous {
    table: TopicTable,
    /// Subscribers of each topic, ascending member index.
    subscribers: Vec<Vec<u32>>,
    /// Owner of each partition of each topic (`NONE` = unassigned).
    owners: Vec<Vec<u32>>,
    /// Number of partitions each member owns in the target being built.
    sizes: Vec<u32>,
}

impl Heterogeneous {
    fn new(members: &[(&String, &MemberSpec)], topics: &TopicsSpec) -> Result<Self, AssignorError> {
        let mut by_topic: BTreeMap<Uuid, Vec<u32>> = BTreeMap::new();
        for (mi, (_, m)) in members.iter().enumerate() {
            for t in &m.subscribed_topic_ids {
                if topics.contains_key(t) {
                    by_topic.entry(*t).or_default().push(mi as u32);
                }
            }
        }
        let table = TopicTable::new(by_topic.keys(), topics)?;
        let owners = table.empty_owners();
        Ok(Heterogeneous {
            table,
            subscribers: by_topic.into_values().collect(),
            owners,
            sizes: vec![0; members.len()],
        })
    }

    fn build(
        mut self,
        members: &[(&String, &MemberSpec)],
    ) -> Result<GroupAssignment, AssignorError> {
        self.keep_subscribed(members);
        self.assign_remaining();
        self.balance();
        if self.owners.iter().any(|own| own.contains(&NONE)) {
            return Err(error("some partitions were left unassigned".to_string()));
        }
        Ok(build_result(members, &self.table, &self.owners))
    }

    /// Kafka's `maybeRevokePartitions`: keep previous partitions of subscribed topics.
    fn keep_subscribed(&mut self, members: &[(&String, &MemberSpec)]) {
        for (mi, (_, m)) in members.iter().enumerate() {
            for (t, ps) in &m.assigned {
                if !m.subscribed_topic_ids.contains(t) {
                    continue;
                }
                let Some(ti) = self.table.index(t) else {
                    continue;
                };
                for &p in ps {
                    if let Some(s) = slot(&mut self.owners[ti], p) {
                        if *s == NONE {
                            *s = mi as u32;
                            self.sizes[mi] += 1;
                        }
                    }
                }
            }
        }
    }

    /// Kafka's topic comparator: partitions per subscriber descending, then subscriber count
    /// ascending, then topic id ascending.
    fn topic_order(&self, a: usize, b: usize) -> Ordering {
        let (pa, sa) = (
            self.table.counts[a] as u64,
            self.subscribers[a].len() as u64,
        );
        let (pb, sb) = (
            self.table.counts[b] as u64,
            self.subscribers[b].len() as u64,
        );
        (pb * sa)
            .cmp(&(pa * sb))
            .then(sa.cmp(&sb))
            .then_with(|| self.table.ids[a].cmp(&self.table.ids[b]))
    }

    fn sorted_topics(&self, keep: impl Fn(usize) -> bool) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.table.ids.len()).filter(|&t| keep(t)).collect();
        order.sort_by(|&a, &b| self.topic_order(a, b));
        order
    }

    /// Moves partition `p` of topic `ti` to member `m`.
    fn assign(&mut self, ti: usize, p: u32, m: u32) {
        let slot = &mut self.owners[ti][p as usize];
        if *slot != NONE {
            self.sizes[*slot as usize] -= 1;
        }
        *slot = m;
        self.sizes[m as usize] += 1;
    }

    /// Kafka's `assignRemainingPartitions`.
    fn assign_remaining(&mut self) {
        let order = self.sorted_topics(|t| self.owners[t].contains(&NONE));
        let mut balancer = Balancer::default();
        for ti in order {
            balancer.initialize(&self.subscribers[ti], &self.sizes);
            for p in 0..self.table.counts[ti] {
                if self.owners[ti][p] == NONE {
                    let m = balancer.next_least_loaded(&self.sizes);
                    self.assign(ti, p as u32, m);
                }
            }
        }
    }

    /// Kafka's `balance` / `balanceTopics`.
    fn balance(&mut self) {
        let order = self.sorted_topics(|t| self.subscribers[t].len() >= 2);
        if order.is_empty() {
            return;
        }
        let mut scratch = Scratch {
            balancer: Balancer::default(),
            partitions: Vec::new(),
            start: vec![usize::MAX; self.sizes.len()],
            end: vec![0; self.sizes.len()],
        };
        let mut last_rebalanced: Option<usize> = None;
        for _ in 0..MAX_ITERATION_COUNT {
            for (i, &ti) in order.iter().enumerate() {
                if last_rebalanced == Some(i) {
                    // A whole round since the last move: nothing more to do.
                    return;
                }
                let moved = self.balance_topic(ti, &mut scratch);
                if moved > 0 || last_rebalanced.is_none() {
                    last_rebalanced = Some(i);
                }
            }
        }
    }

    /// Kafka's `balanceTopic`: moves partitions of one topic from its most-loaded subscribers to
    /// its least-loaded ones. Returns the number moved.
    fn balance_topic(&mut self, ti: usize, s: &mut Scratch) -> usize {
        let imbalance = s.balancer.initialize(&self.subscribers[ti], &self.sizes);
        if imbalance <= 1 {
            return 0;
        }
        // The topic's partitions grouped by owner, each owner's run ascending.
        let own = &self.owners[ti];
        s.partitions.clear();
        s.partitions.extend(0..own.len() as u32);
        s.partitions.sort_unstable_by_key(|&p| (own[p as usize], p));
        for &m in &self.subscribers[ti] {
            s.start[m as usize] = usize::MAX;
            s.end[m as usize] = 0;
        }
        for (i, &p) in s.partitions.iter().enumerate() {
            let o = own[p as usize];
            if o == NONE {
                continue;
            }
            let o = o as usize;
            if s.start[o] == usize::MAX {
                s.start[o] = i;
            }
            s.end[o] = i + 1;
        }

        let mut moved = 0;
        while !s.balancer.is_balanced() {
            // A most-loaded member that still has a partition of this topic to give up.
            let most = loop {
                match s.balancer.next_most_loaded(&self.sizes) {
                    None => break None,
                    Some(m) if s.end[m as usize] <= s.start[m as usize] => {
                        s.balancer.exclude_most_loaded()
                    }
                    Some(m) => break Some(m as usize),
                }
            };
            let Some(most) = most else { break };
            s.end[most] -= 1;
            let p = s.partitions[s.end[most]];
            let least = s.balancer.next_least_loaded(&self.sizes);
            if s.balancer.is_balanced() {
                break;
            }
            self.assign(ti, p, least);
            moved += 1;
        }
        moved
    }
}

/// Buffers reused across the balancing of every topic.
struct Scratch {
    balancer: Balancer,
    partitions: Vec<u32>,
    start: Vec<usize>,
    end: Vec<usize>,
}

/// Kafka's `MemberAssignmentBalancer`: one topic's subscribers sorted by load, with a
/// least-loaded range that grows rightwards and a most-loaded range that grows leftwards.
#[derive(Default)]
struct Balancer {
    /// Subscribers by (partition count, member index) ascending.
    sorted: Vec<u32>,
    /// `[0, least_end)`: the least-loaded range.
    least_end: usize,
    /// Partition count of the least-loaded range before this round of assignments.
    least_count: i64,
    /// Next position in the least-loaded range to receive a partition.
    next_least: usize,
    /// `[most_start, most_end)`: the most-loaded range.
    most_start: usize,
    most_end: usize,
    /// Partition count of the most-loaded range before this round of removals.
    most_count: i64,
    /// Next position in the most-loaded range to give up a partition (-1 = none left).
    next_most: isize,
}

impl Balancer {
    /// Resets for `members` (non-empty); returns the spread of their partition counts.
    fn initialize(&mut self, members: &[u32], sizes: &[u32]) -> u32 {
        self.sorted.clear();
        self.sorted.extend_from_slice(members);
        self.sorted
            .sort_unstable_by_key(|&m| (sizes[m as usize], m));
        let len = self.sorted.len();
        let min = sizes[self.sorted[0] as usize];
        let max = sizes[self.sorted[len - 1] as usize];
        self.least_end = 0;
        self.least_count = i64::from(min) - 1;
        self.next_least = 0;
        self.most_start = len;
        self.most_end = len;
        self.most_count = i64::from(max) + 1;
        self.next_most = len as isize - 1;
        max - min
    }

    fn size(&self, sizes: &[u32], pos: usize) -> i64 {
        i64::from(sizes[self.sorted[pos] as usize])
    }

    /// The member to give the next partition to; assumes it will get it.
    fn next_least_loaded(&mut self, sizes: &[u32]) -> u32 {
        if self.next_least >= self.least_end {
            // Every member of the range got one: raise its level and widen it.
            self.least_count += 1;
            while self.least_end < self.sorted.len()
                && self.size(sizes, self.least_end) == self.least_count
            {
                self.least_end += 1;
            }
            // Cannot happen (the first member is always at the level); keeps indexing safe.
            self.least_end = self.least_end.max(1);
            self.next_least = 0;
        }
        let m = self.sorted[self.next_least];
        self.next_least += 1;
        m
    }

    /// The member to take the next partition from, if any; assumes it will give it.
    fn next_most_loaded(&mut self, sizes: &[u32]) -> Option<u32> {
        if self.next_most < self.most_start as isize {
            if self.most_end <= self.most_start && self.most_start > 0 {
                // The range was emptied by exclusions: restart from the next member down.
                self.most_count = self.size(sizes, self.most_start - 1);
            } else {
                self.most_count -= 1;
            }
            while self.most_start > 0 && self.size(sizes, self.most_start - 1) == self.most_count {
                self.most_start -= 1;
            }
            self.next_most = self.most_end as isize - 1;
        }
        if self.next_most < 0 {
            return None;
        }
        let m = self.sorted[self.next_most as usize];
        self.next_most -= 1;
        Some(m)
    }

    /// Drops the member last returned by [`Self::next_most_loaded`] from the most-loaded range
    /// (it has nothing of the topic left to give).
    fn exclude_most_loaded(&mut self) {
        let pos = (self.next_most + 1) as usize;
        self.sorted.swap(pos, self.most_end - 1);
        self.most_end -= 1;
    }

    /// Whether the two ranges' levels differ by at most one.
    fn is_balanced(&self) -> bool {
        self.most_count - self.least_count <= 1
    }
}

#[cfg(test)]
mod tests {
    use super::super::spec::{Assignment, TopicInfo};
    use super::super::testkit::*;
    use super::*;
    use proptest::prelude::*;

    // Kafka's test topic ids (UniformHomogeneous/HeterogeneousAssignmentBuilderTest), so that
    // topic-id tie-breaks compare as they do there.
    fn t1() -> Uuid {
        Uuid::parse("T1-A4s3VTwiI5CTbEp6POw").unwrap()
    }
    fn t2() -> Uuid {
        Uuid::parse("T2-B4s3VTwiI5YHbPp6YUe").unwrap()
    }
    fn t3() -> Uuid {
        Uuid::parse("T3-CU8fVTLCz5YMkLoDQsa").unwrap()
    }
    fn t4() -> Uuid {
        Uuid::parse("T4-Tw9fVTLCz5HbPp6YQsa").unwrap()
    }

    fn run(group: &GroupSpec, topics: &TopicsSpec) -> GroupAssignment {
        let result = UniformAssignor
            .assign(group, topics)
            .expect("uniform assignment");
        check_invariants(group, topics, &result);
        result
    }

    fn expect(result: &GroupAssignment, want: &[(&str, Assignment)]) {
        let want: BTreeMap<String, Assignment> = want
            .iter()
            .map(|(id, a)| (id.to_string(), a.clone()))
            .collect();
        assert_eq!(result.members, want);
    }

    fn hetero(mut g: GroupSpec) -> GroupSpec {
        g.subscription_type = SubscriptionType::Heterogeneous;
        g
    }

    #[test]
    fn name_is_uniform() {
        assert_eq!(UniformAssignor.name(), "uniform");
        assert_eq!(UniformAssignor::NAME, "uniform");
    }

    #[test]
    fn empty_group_gives_empty_assignment() {
        let g = group([]);
        let r = run(&g, &topics(&[(t1(), 3)]));
        assert!(r.members.is_empty());
    }

    #[test]
    fn members_without_subscriptions_get_nothing_but_appear() {
        let g = group([("A", member(&[], asg(&[]))), ("B", member(&[], asg(&[])))]);
        let r = run(&g, &topics(&[(t1(), 3)]));
        expect(&r, &[("A", asg(&[])), ("B", asg(&[]))]);
        let r = run(&hetero(g), &topics(&[(t1(), 3)]));
        expect(&r, &[("A", asg(&[])), ("B", asg(&[]))]);
    }

    #[test]
    fn missing_topics_are_not_assigned() {
        // D5: a subscribed topic missing from metadata is simply not assigned (Kafka throws).
        let tp = topics(&[(t1(), 3)]);
        let g = group([
            ("A", member(&[t3()], asg(&[]))),
            ("B", member(&[t3()], asg(&[]))),
        ]);
        expect(&run(&g, &tp), &[("A", asg(&[])), ("B", asg(&[]))]);
        let g = group([
            ("A", member(&[t1(), t3()], asg(&[(t3(), &[0])]))),
            ("B", member(&[t2()], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[("A", asg(&[(t1(), &[0, 1, 2])])), ("B", asg(&[]))],
        );
    }

    #[test]
    fn negative_partition_count_is_an_error() {
        let mut tp = topics(&[(t1(), 3)]);
        tp.insert(
            t2(),
            TopicInfo {
                name: "bad".into(),
                partitions: -1,
                partition_racks: BTreeMap::new(),
            },
        );
        let g = group([("A", member(&[t1(), t2()], asg(&[])))]);
        let err = UniformAssignor.assign(&g, &tp).unwrap_err();
        assert_eq!(err.assignor, "uniform");
        assert!(err.reason.contains("negative"), "{}", err.reason);
        assert!(UniformAssignor.assign(&hetero(g), &tp).is_err());
    }

    // ---- Homogeneous ----

    #[test]
    fn homogeneous_first_assignment_extra_partitions_go_to_the_last_members() {
        // 7 partitions, 3 members: quota 2, one extra. Nobody can fill an extra from a previous
        // target, so A and B pass it on and C (the last) takes it (KAFKA-18688).
        let tp = topics(&[(t1(), 4), (t2(), 3)]);
        let subs = [t1(), t2()];
        let g = group([
            ("A", member(&subs, asg(&[]))),
            ("B", member(&subs, asg(&[]))),
            ("C", member(&subs, asg(&[]))),
        ]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("A", asg(&[(t1(), &[0, 1])])),
                ("B", asg(&[(t1(), &[2, 3])])),
                ("C", asg(&[(t2(), &[0, 1, 2])])),
            ],
        );
    }

    #[test]
    fn homogeneous_more_members_than_partitions() {
        // Kafka: testFirstAssignmentNumMembersGreaterThanTotalNumPartitions (homogeneous).
        let tp = topics(&[(t3(), 2)]);
        let g = group([
            ("A", member(&[t3()], asg(&[]))),
            ("B", member(&[t3()], asg(&[]))),
            ("C", member(&[t3()], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[])),
                ("B", asg(&[(t3(), &[0])])),
                ("C", asg(&[(t3(), &[1])])),
            ],
        );
    }

    #[test]
    fn homogeneous_unbalanced_previous_assignment() {
        // Kafka: testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment.
        let tp = topics(&[(t1(), 3), (t2(), 3)]);
        let subs = [t1(), t2()];
        let g = group([
            ("A", member(&subs, asg(&[(t1(), &[0, 1]), (t2(), &[0, 1])]))),
            ("B", member(&subs, asg(&[(t1(), &[2]), (t2(), &[2])]))),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 1]), (t2(), &[0])])),
                ("B", asg(&[(t1(), &[2]), (t2(), &[1, 2])])),
            ],
        );
    }

    #[test]
    fn homogeneous_member_added() {
        // Kafka: testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics.
        let tp = topics(&[(t1(), 3), (t2(), 3)]);
        let subs = [t1(), t2()];
        let g = group([
            ("A", member(&subs, asg(&[(t1(), &[0, 2]), (t2(), &[0])]))),
            ("B", member(&subs, asg(&[(t1(), &[1]), (t2(), &[1, 2])]))),
            ("C", member(&subs, asg(&[]))),
        ]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("A", asg(&[(t1(), &[0, 2])])),
                ("B", asg(&[(t1(), &[1]), (t2(), &[1])])),
                ("C", asg(&[(t2(), &[0, 2])])),
            ],
        );
        assert_eq!(moves(&g, &r), 2);
    }

    #[test]
    fn homogeneous_member_removed_keeps_the_others_partitions() {
        // Kafka: testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics;
        // Kafka's expected layout follows its HashSet topic order, kwire deals in topic-id order.
        let tp = topics(&[(t1(), 3), (t2(), 3)]);
        let subs = [t1(), t2()];
        let g = group([
            ("A", member(&subs, asg(&[(t1(), &[0]), (t2(), &[0])]))),
            ("B", member(&subs, asg(&[(t1(), &[1]), (t2(), &[1])]))),
        ]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("A", asg(&[(t1(), &[0, 2]), (t2(), &[0])])),
                ("B", asg(&[(t1(), &[1]), (t2(), &[1, 2])])),
            ],
        );
        assert_eq!(moves(&g, &r), 0);
    }

    #[test]
    fn homogeneous_subscription_removed_revokes_the_topic() {
        // Kafka: testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics.
        let tp = topics(&[(t1(), 2), (t2(), 2)]);
        let g = group([
            ("A", member(&[t2()], asg(&[(t1(), &[0]), (t2(), &[0])]))),
            ("B", member(&[t2()], asg(&[(t1(), &[1]), (t2(), &[1])]))),
        ]);
        expect(
            &run(&g, &tp),
            &[("A", asg(&[(t2(), &[0])])), ("B", asg(&[(t2(), &[1])]))],
        );
    }

    #[test]
    fn homogeneous_partitions_added() {
        // Kafka: testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics (t1 3 -> 6, t2 3 -> 5).
        // 11 partitions: A passes its extra on (it only had 3), B (the last) takes it. New
        // partitions are dealt in topic-id order (Kafka: HashSet order).
        let tp = topics(&[(t1(), 6), (t2(), 5)]);
        let subs = [t1(), t2()];
        let g = group([
            ("A", member(&subs, asg(&[(t1(), &[0, 2]), (t2(), &[0])]))),
            ("B", member(&subs, asg(&[(t1(), &[1]), (t2(), &[1, 2])]))),
        ]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("A", asg(&[(t1(), &[0, 2, 3, 4]), (t2(), &[0])])),
                ("B", asg(&[(t1(), &[1, 5]), (t2(), &[1, 2, 3, 4])])),
            ],
        );
        assert_eq!(moves(&g, &r), 0);
    }

    #[test]
    fn homogeneous_keeps_lowest_partitions_when_over_quota() {
        let tp = topics(&[(t1(), 4)]);
        let g = group([
            ("A", member(&[t1()], asg(&[(t1(), &[0, 1, 2, 3])]))),
            ("B", member(&[t1()], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 1])])),
                ("B", asg(&[(t1(), &[2, 3])])),
            ],
        );
    }

    #[test]
    fn homogeneous_extra_stays_with_the_member_that_has_it() {
        // A balanced target where B holds the extra: recomputing changes nothing even though A
        // comes first (the pre-KAFKA-18688 rule would have moved a partition from B to A).
        let tp = topics(&[(t1(), 5)]);
        let g = group([
            ("A", member(&[t1()], asg(&[(t1(), &[0, 1])]))),
            ("B", member(&[t1()], asg(&[(t1(), &[2, 3, 4])]))),
        ]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("A", asg(&[(t1(), &[0, 1])])),
                ("B", asg(&[(t1(), &[2, 3, 4])])),
            ],
        );
    }

    #[test]
    fn homogeneous_scenario_8_single_member_gets_everything() {
        // Scenario 8 / 9 with the real assignor: a lone member gets foo 0-5 and bar 0-2, and a
        // member adding bar to its subscription keeps foo 0-5 and gains bar 0-2.
        let (foo, bar) = (tid(1), tid(2));
        let tp = topics(&[(foo, 6), (bar, 3)]);
        let g = group([("M", member(&[foo, bar], asg(&[])))]);
        expect(
            &run(&g, &tp),
            &[("M", asg(&[(foo, &[0, 1, 2, 3, 4, 5]), (bar, &[0, 1, 2])]))],
        );
        let g = group([("M", member(&[foo, bar], asg(&[(foo, &[0, 1, 2, 3, 4, 5])])))]);
        expect(
            &run(&g, &tp),
            &[("M", asg(&[(foo, &[0, 1, 2, 3, 4, 5]), (bar, &[0, 1, 2])]))],
        );
    }

    #[test]
    fn homogeneous_scenario_10_new_member_takes_only_freed_partitions() {
        // Scenario 10's group with the real uniform assignor: M1 foo0-2,bar0-1; M2 foo3-5,bar2; M3
        // joins. 9 partitions / 3 = 3 each; M3 gets exactly the 3 partitions the others free.
        let (foo, bar) = (tid(1), tid(2));
        let tp = topics(&[(foo, 6), (bar, 3)]);
        let subs = [foo, bar];
        let g = group([
            (
                "M1",
                member(&subs, asg(&[(foo, &[0, 1, 2]), (bar, &[0, 1])])),
            ),
            ("M2", member(&subs, asg(&[(foo, &[3, 4, 5]), (bar, &[2])]))),
            ("M3", member(&subs, asg(&[]))),
        ]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("M1", asg(&[(foo, &[0, 1, 2])])),
                ("M2", asg(&[(foo, &[3, 4, 5])])),
                ("M3", asg(&[(bar, &[0, 1, 2])])),
            ],
        );
        assert_eq!(moves(&g, &r), 3);
    }

    #[test]
    fn homogeneous_invalid_previous_targets_are_repaired() {
        // Out-of-range partitions are dropped, a partition claimed twice stays with the first
        // claimant, a topic nobody subscribes to is dropped.
        let tp = topics(&[(t1(), 4), (t2(), 2)]);
        let g = group([
            (
                "A",
                member(&[t1()], asg(&[(t1(), &[0, 1, 9, -1]), (t2(), &[0])])),
            ),
            ("B", member(&[t1()], asg(&[(t1(), &[1, 2])]))),
        ]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("A", asg(&[(t1(), &[0, 1])])),
                ("B", asg(&[(t1(), &[2, 3])])),
            ],
        );
    }

    #[test]
    fn wrong_homogeneous_hint_falls_back_to_heterogeneous() {
        let tp = topics(&[(t1(), 3), (t2(), 3)]);
        let mut g = group([
            ("A", member(&[t1()], asg(&[]))),
            ("B", member(&[t2()], asg(&[]))),
        ]);
        g.subscription_type = SubscriptionType::Homogeneous;
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 1, 2])])),
                ("B", asg(&[(t2(), &[0, 1, 2])])),
            ],
        );
    }

    #[test]
    fn homogeneous_large_group_is_balanced_and_stable() {
        // Kafka: testValidityAndBalanceForLargeSampleSet (100 topics x 3 partitions, 49 members).
        let ids: Vec<Uuid> = (1..=100).map(tid).collect();
        let tp = topics(&ids.iter().map(|&t| (t, 3)).collect::<Vec<_>>());
        let names: Vec<String> = (1..50).map(|i| format!("member{i}")).collect();
        let g = group(names.iter().map(|id| (id.as_str(), member(&ids, asg(&[])))));
        let r = run(&g, &tp);
        assert!(spread(&r) <= 1);
        let again = run(&with_previous(&g, &r), &tp);
        assert_eq!(again, r, "recomputing a balanced target must not change it");
    }

    #[test]
    fn homogeneous_renamed_member_keeps_its_partitions() {
        // Kafka: CommonAssignorTests#testMemberReplacementStickiness: a member replaced under a new
        // member id (a static member's new process inherits the old target) keeps everything,
        // wherever its new id sorts.
        let ids: Vec<Uuid> = (1..=3).map(tid).collect();
        let tp = topics(&[(ids[0], 2), (ids[1], 5), (ids[2], 7)]);
        let g = group([
            ("A", member(&ids, asg(&[]))),
            ("B", member(&ids, asg(&[]))),
            ("C", member(&ids, asg(&[]))),
        ]);
        let first = run(&g, &tp);
        for new_id in ["0", "Bb", "Z"] {
            let mut next = with_previous(&g, &first);
            let b = next.members.remove("B").unwrap();
            next.members.insert(new_id.to_string(), b);
            let r = run(&next, &tp);
            assert_eq!(r.members[new_id], first.members["B"], "renamed to {new_id}");
            assert_eq!(r.members["A"], first.members["A"]);
            assert_eq!(r.members["C"], first.members["C"]);
        }
    }

    // ---- Heterogeneous ----

    #[test]
    fn heterogeneous_first_assignment_two_members_two_topics() {
        // Kafka: UniformHeterogeneousAssignmentBuilderTest#testFirstAssignmentTwoMembersTwoTopics.
        let tp = topics(&[(t1(), 3), (t3(), 6)]);
        let g = group([
            ("A", member(&[t1(), t3()], asg(&[]))),
            ("B", member(&[t3()], asg(&[]))),
        ]);
        assert_eq!(g.subscription_type, SubscriptionType::Heterogeneous);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 1, 2]), (t3(), &[4])])),
                ("B", asg(&[(t3(), &[0, 1, 2, 3, 5])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_more_members_than_partitions() {
        // Kafka: #testFirstAssignmentNumMembersGreaterThanTotalNumPartitions.
        let tp = topics(&[(t3(), 1), (t1(), 2)]);
        let g = group([
            ("A", member(&[t3()], asg(&[]))),
            ("B", member(&[t3()], asg(&[]))),
            ("C", member(&[t1()], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t3(), &[0])])),
                ("B", asg(&[])),
                ("C", asg(&[(t1(), &[0, 1])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_unbalanced_previous_assignment() {
        // Kafka: #testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment.
        let tp = topics(&[(t1(), 6), (t2(), 4), (t3(), 4)]);
        let g = group([
            ("A", member(&[t1()], asg(&[(t1(), &[0, 1, 2])]))),
            (
                "B",
                member(&[t1(), t2()], asg(&[(t1(), &[3]), (t2(), &[0])])),
            ),
            (
                "C",
                member(
                    &[t1(), t2(), t3()],
                    asg(&[(t1(), &[4, 5]), (t2(), &[1, 2, 3]), (t3(), &[0, 1, 2, 3])]),
                ),
            ),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 1, 2, 5])])),
                ("B", asg(&[(t1(), &[3]), (t2(), &[0, 1, 2, 3])])),
                ("C", asg(&[(t1(), &[4]), (t3(), &[0, 1, 2, 3])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_partitions_added() {
        // Kafka: #testReassignmentWhenPartitionsAreAddedForTwoMembers.
        let tp = topics(&[(t1(), 6), (t2(), 5), (t3(), 3), (t4(), 3)]);
        let g = group([
            (
                "A",
                member(
                    &[t1(), t3()],
                    asg(&[(t1(), &[0, 1, 2, 3]), (t3(), &[0, 1])]),
                ),
            ),
            (
                "B",
                member(
                    &[t1(), t2(), t3(), t4()],
                    asg(&[(t2(), &[0, 1, 2]), (t4(), &[0, 1, 2])]),
                ),
            ),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 1, 2, 3, 4, 5]), (t3(), &[0, 1, 2])])),
                ("B", asg(&[(t2(), &[0, 1, 2, 3, 4]), (t4(), &[0, 1, 2])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_member_and_partitions_added() {
        // Kafka: #testReassignmentWhenOneMemberAddedAndPartitionsAddedTwoMembersTwoTopics.
        let tp = topics(&[(t1(), 6), (t2(), 7)]);
        let g = group([
            ("A", member(&[t1()], asg(&[(t1(), &[0, 2]), (t2(), &[0])]))),
            (
                "B",
                member(&[t1(), t2()], asg(&[(t1(), &[1]), (t2(), &[1, 2])])),
            ),
            ("C", member(&[t1(), t2()], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 2, 3, 4, 5])])),
                ("B", asg(&[(t1(), &[1]), (t2(), &[1, 2, 6])])),
                ("C", asg(&[(t2(), &[0, 3, 4, 5])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_member_removed() {
        // Kafka: #testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics.
        let tp = topics(&[(t1(), 3), (t2(), 8), (t3(), 3)]);
        let g = group([
            (
                "A",
                member(&[t1(), t3()], asg(&[(t1(), &[0, 1, 2]), (t3(), &[0, 1])])),
            ),
            ("B", member(&[t2()], asg(&[(t2(), &[3, 4, 5, 6])]))),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 1, 2]), (t3(), &[0, 1, 2])])),
                ("B", asg(&[(t2(), &[0, 1, 2, 3, 4, 5, 6, 7])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_subscription_removed() {
        // Kafka: #testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics.
        let tp = topics(&[(t1(), 3), (t2(), 5)]);
        let g = group([
            (
                "A",
                member(&[t1()], asg(&[(t1(), &[0, 2]), (t2(), &[1, 3])])),
            ),
            (
                "B",
                member(&[t1(), t2()], asg(&[(t1(), &[1]), (t2(), &[0, 2, 4])])),
            ),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1(), &[0, 1, 2])])),
                ("B", asg(&[(t2(), &[0, 1, 2, 3, 4])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_partitions_run_out_before_balance() {
        // Kafka: #testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions.
        let tp = topics(&[(t1(), 2), (t2(), 2), (t3(), 2)]);
        let subs = [t1(), t2(), t3()];
        let g = hetero(group([
            (
                "A",
                member(
                    &subs,
                    asg(&[(t1(), &[0, 1]), (t2(), &[0, 1]), (t3(), &[0, 1])]),
                ),
            ),
            ("B", member(&subs, asg(&[]))),
        ]));
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t2(), &[0]), (t3(), &[0, 1])])),
                ("B", asg(&[(t1(), &[0, 1]), (t2(), &[1])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_member_without_subscriptions() {
        // Kafka: #testFirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions.
        let tp = topics(&[(t1(), 3)]);
        let g = group([
            ("A", member(&[t1()], asg(&[]))),
            ("B", member(&[], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[("A", asg(&[(t1(), &[0, 1, 2])])), ("B", asg(&[]))],
        );
    }

    #[test]
    fn heterogeneous_topic_order_prefers_more_partitions_per_subscriber() {
        // t2 has 4 partitions for 1 subscriber (4 per subscriber) and goes before t1, 6 for 2 (3
        // per subscriber): A takes all of t2 first, so t1 goes mostly to B.
        let tp = topics(&[(t1(), 6), (t2(), 4)]);
        let g = group([
            ("A", member(&[t1(), t2()], asg(&[]))),
            ("B", member(&[t1()], asg(&[]))),
        ]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("A", asg(&[(t1(), &[5]), (t2(), &[0, 1, 2, 3])])),
                ("B", asg(&[(t1(), &[0, 1, 2, 3, 4])])),
            ],
        );
        assert_eq!(spread(&r), 0);
    }

    #[test]
    fn heterogeneous_topic_order_ties_by_subscriber_count_then_id() {
        // Equal partitions per subscriber (2): the topic with fewer subscribers goes first; with
        // equal counts too, the smaller topic id.
        let tp = topics(&[(t1(), 4), (t2(), 2), (t3(), 2)]);
        let g = group([
            ("A", member(&[t1(), t2(), t3()], asg(&[]))),
            ("B", member(&[t1()], asg(&[]))),
        ]);
        let h = Heterogeneous::new(&g.members.iter().collect::<Vec<_>>(), &tp).unwrap();
        let order: Vec<Uuid> = h
            .sorted_topics(|_| true)
            .into_iter()
            .map(|i| h.table.ids[i])
            .collect();
        assert_eq!(order, vec![t2(), t3(), t1()]);
        let r = run(&g, &tp);
        expect(
            &r,
            &[
                ("A", asg(&[(t2(), &[0, 1]), (t3(), &[0, 1])])),
                ("B", asg(&[(t1(), &[0, 1, 2, 3])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_revokes_unsubscribed_and_keeps_subscribed() {
        let tp = topics(&[(t1(), 4), (t2(), 4)]);
        let g = group([
            (
                "A",
                member(&[t1()], asg(&[(t1(), &[0, 1]), (t2(), &[0, 1])])),
            ),
            (
                "B",
                member(&[t1(), t2()], asg(&[(t1(), &[2, 3]), (t2(), &[2, 3])])),
            ),
        ]);
        let r = run(&g, &tp);
        // A keeps t1 0-1 (t2 0-1 are revoked) and B keeps everything it had; t2 0-1 are free and
        // go to B, t2's only subscriber (A 2, B 6). Balancing t1 then moves B's t1 partitions,
        // highest first, to A until the totals are level: A 4, B 4.
        expect(
            &r,
            &[
                ("A", asg(&[(t1(), &[0, 1, 2, 3])])),
                ("B", asg(&[(t2(), &[0, 1, 2, 3])])),
            ],
        );
    }

    #[test]
    fn heterogeneous_identical_subscriptions_are_balanced_and_stable() {
        // Kafka: CommonAssignorTests#testAssignmentReuse with the heterogeneous builder.
        let ids: Vec<Uuid> = (1..=3).map(tid).collect();
        let tp = topics(&[(ids[0], 2), (ids[1], 5), (ids[2], 7)]);
        let g = hetero(group([
            ("A", member(&ids, asg(&[]))),
            ("B", member(&ids, asg(&[]))),
            ("C", member(&ids, asg(&[]))),
        ]));
        let r = run(&g, &tp);
        assert!(spread(&r) <= 1);
        assert_eq!(run(&with_previous(&g, &r), &tp), r);
    }

    #[test]
    fn heterogeneous_near_balance_with_overlapping_subscriptions() {
        // Kafka's builder documentation: A on t1, B on t1 and t2, C on t2. Each topic's subscribers
        // end within one of each other.
        let tp = topics(&[(t1(), 20), (t2(), 10)]);
        let g = group([
            ("A", member(&[t1()], asg(&[]))),
            ("B", member(&[t1(), t2()], asg(&[]))),
            ("C", member(&[t2()], asg(&[]))),
        ]);
        let r = run(&g, &tp);
        let s = sizes(&r);
        assert!(s["A"].abs_diff(s["B"]) <= 1, "{s:?}");
        assert!(s["B"].abs_diff(s["C"]) <= 1, "{s:?}");
    }

    #[test]
    fn determinism() {
        let ids: Vec<Uuid> = (1..=5).map(tid).collect();
        let tp = topics(
            &ids.iter()
                .enumerate()
                .map(|(i, &t)| (t, 3 + i as i32 * 4))
                .collect::<Vec<_>>(),
        );
        let g = group([
            ("A", member(&ids[0..3], asg(&[]))),
            ("B", member(&ids[1..5], asg(&[(ids[1], &[0, 1, 2])]))),
            ("C", member(&ids[2..4], asg(&[]))),
            ("D", member(&ids, asg(&[(ids[4], &[5, 6])]))),
        ]);
        let a = run(&g, &tp);
        let b = run(&g.clone(), &tp.clone());
        assert_eq!(a, b);
    }

    // ---- Property tests ----

    /// A random group: topics with 0..12 partitions, members with random subscriptions (some to
    /// a topic missing from metadata), random instance ids and random (possibly invalid)
    /// previous targets.
    fn arb_case() -> impl Strategy<Value = (GroupSpec, TopicsSpec)> {
        (1usize..6, 0usize..10, any::<bool>()).prop_flat_map(
            |(n_topics, n_members, homogeneous)| {
                let counts = proptest::collection::vec(0i32..12, n_topics);
                let common_subs = proptest::collection::vec(any::<bool>(), n_topics + 1);
                let members = proptest::collection::vec(
                    (
                        proptest::collection::vec(any::<bool>(), n_topics + 1),
                        proptest::collection::vec((0..n_topics + 1, -1i32..14), 0..10),
                        proptest::option::of(0u8..4),
                        0u16..1000,
                    ),
                    n_members,
                );
                (counts, common_subs, members).prop_map(move |(counts, common, members)| {
                    // Topic ids 1..=n; id n+1 is subscribed to sometimes but missing from metadata.
                    let tp = topics(
                        &counts
                            .iter()
                            .enumerate()
                            .map(|(i, &c)| (tid(i as u128 + 1), c))
                            .collect::<Vec<_>>(),
                    );
                    let mut ms = BTreeMap::new();
                    for (subs, prev, instance, id) in members {
                        let mask = if homogeneous { &common } else { &subs };
                        let subscribed = mask
                            .iter()
                            .enumerate()
                            .filter(|(_, &b)| b)
                            .map(|(i, _)| tid(i as u128 + 1))
                            .collect();
                        let mut assigned = Assignment::new();
                        for (t, p) in prev {
                            assigned.entry(tid(t as u128 + 1)).or_default().insert(p);
                        }
                        let spec = MemberSpec {
                            rack_id: None,
                            instance_id: instance.map(|i| format!("i{i}-{id}")),
                            subscribed_topic_ids: subscribed,
                            assigned,
                        };
                        ms.insert(format!("m{id:03}"), spec);
                    }
                    let subscription_type = subscription_type_of(&ms);
                    (
                        GroupSpec {
                            members: ms,
                            subscription_type,
                        },
                        tp,
                    )
                })
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn prop_invariants_balance_and_stability((g, tp) in arb_case()) {
            let r = run(&g, &tp);
            prop_assert_eq!(&UniformAssignor.assign(&g, &tp).unwrap(), &r, "not deterministic");
            if g.subscription_type == SubscriptionType::Homogeneous {
                prop_assert!(spread(&r) <= 1, "homogeneous spread {:?}", sizes(&r));
                // A balanced target is kept as it is.
                let again = run(&with_previous(&g, &r), &tp);
                prop_assert_eq!(&again, &r);
            }
            // The same group with a (possibly wrong) opposite hint still keeps the invariants.
            let mut flipped = g.clone();
            flipped.subscription_type = match g.subscription_type {
                SubscriptionType::Homogeneous => SubscriptionType::Heterogeneous,
                SubscriptionType::Heterogeneous => SubscriptionType::Homogeneous,
            };
            let f = run(&flipped, &tp);
            if g.subscription_type == SubscriptionType::Homogeneous {
                prop_assert!(spread(&f) <= 1, "heterogeneous builder on identical subscriptions {:?}", sizes(&f));
            }
        }

        #[test]
        fn prop_homogeneous_add_and_remove_move_the_minimum(
            counts in proptest::collection::vec(0i32..30, 1..5),
            n in 1usize..9,
            new_id in 0u16..1000,
            remove in 0usize..9,
        ) {
            let ids: Vec<Uuid> = (1..=counts.len() as u128).map(tid).collect();
            let tp = topics(&ids.iter().copied().zip(counts.iter().copied()).collect::<Vec<_>>());
            let total: usize = counts.iter().map(|&c| c as usize).sum();
            let names: Vec<String> = (0..n).map(|i| format!("m{:03}", i * 100 + 50)).collect();
            let g = group(names.iter().map(|id| (id.as_str(), member(&ids, asg(&[])))));
            let stable = with_previous(&g, &run(&g, &tp));

            // Adding a member: only the new member's partitions move, and it gets total/(n+1).
            let new_name = format!("m{new_id:03}x");
            let mut added = stable.clone();
            added.members.insert(new_name.clone(), member(&ids, asg(&[])));
            let r = run(&added, &tp);
            prop_assert!(spread(&r) <= 1);
            prop_assert_eq!(size(&r.members[&new_name]), total / (n + 1));
            prop_assert_eq!(moves(&added, &r), total / (n + 1));

            // Removing a member: everyone else keeps all they had.
            let mut removed = stable.clone();
            let gone = names[remove % n].clone();
            removed.members.remove(&gone);
            let r = run(&removed, &tp);
            prop_assert!(spread(&r) <= 1);
            for (id, m) in &removed.members {
                for (t, ps) in &m.assigned {
                    let got = r.members[id].get(t).cloned().unwrap_or_default();
                    prop_assert!(ps.is_subset(&got), "{} lost partitions of {:?}", id, t);
                }
            }
        }

        #[test]
        fn prop_heterogeneous_balanced_when_topic_subscribers_agree(
            groups in proptest::collection::vec((proptest::collection::vec(0i32..15, 1..4), 1usize..5), 1..4),
        ) {
            // Disjoint topic families, each with its own members subscribed to the whole family:
            // every topic's subscribers have identical subscriptions, so each family is balanced.
            let mut all_topics = Vec::new();
            let mut members = Vec::new();
            let mut next_topic = 1u128;
            for (gi, (counts, n)) in groups.iter().enumerate() {
                let ids: Vec<Uuid> = counts.iter().map(|_| { next_topic += 1; tid(next_topic) }).collect();
                all_topics.extend(ids.iter().copied().zip(counts.iter().copied()));
                for mi in 0..*n {
                    members.push((format!("g{gi}-m{mi}"), member(&ids, asg(&[]))));
                }
            }
            let tp = topics(&all_topics);
            let g = hetero(group(members.iter().map(|(id, m)| (id.as_str(), m.clone()))));
            let r = run(&g, &tp);
            for (gi, _) in groups.iter().enumerate() {
                let prefix = format!("g{gi}-");
                let s: Vec<usize> = r.members.iter().filter(|(id, _)| id.starts_with(&prefix)).map(|(_, a)| size(a)).collect();
                let (min, max) = (s.iter().min().unwrap(), s.iter().max().unwrap());
                prop_assert!(max - min <= 1, "family {} sizes {:?}", gi, s);
            }
            prop_assert_eq!(&run(&with_previous(&g, &r), &tp), &r);
        }
    }
}
