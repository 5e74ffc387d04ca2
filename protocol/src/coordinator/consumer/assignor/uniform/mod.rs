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

mod balancer;
mod heterogeneous;
mod table;
#[cfg(test)]
mod tests;

use heterogeneous::Heterogeneous;
use table::{build_result, error, slot, TopicTable, NONE};

/// The uniform assignor (`"uniform"`, Kafka's default): balanced, then sticky. See the
/// [module documentation](self) for the exact algorithm and its tie-breaks.
///
/// [`assign`](ConsumerGroupAssignor::assign) fails only when a subscribed topic has a negative
/// partition count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UniformAssignor;

impl UniformAssignor {
    /// The name members use in `ServerAssignor`: `"uniform"`.
    pub const NAME: &'static str = table::NAME;
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

/// Who owned what before: the first member (in member order) to claim a valid partition.
fn previous_owners(members: &[(&String, &MemberSpec)], table: &TopicTable) -> Vec<Vec<u32>> {
    let mut owners = table.empty_owners();
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
    owners
}

/// The partitions no member owns, as (topic index, partition), ascending.
fn unowned(owners: &[Vec<u32>]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (ti, own) in owners.iter().enumerate() {
        out.extend(
            own.iter()
                .enumerate()
                .filter(|(_, &o)| o == NONE)
                .map(|(p, _)| (ti as u32, p as u32)),
        );
    }
    out
}

/// Deals `partitions` in order to the members below their quota (`unfilled`: member index and
/// how many it still takes, in member order), each the next run of the list; returns how many
/// were dealt.
fn deal(unfilled: &[(u32, usize)], partitions: &[(u32, u32)], owners: &mut [Vec<u32>]) -> usize {
    let mut next = 0;
    for &(mi, need) in unfilled {
        for &(ti, p) in partitions.iter().skip(next).take(need) {
            owners[ti as usize][p as usize] = mi;
        }
        next += need.min(partitions.len().saturating_sub(next));
    }
    next
}

/// Kafka's `UniformHomogeneousAssignmentBuilder` (4.2, with the KAFKA-18688 stability fix).
/// `members` is non-empty and every member has the same subscriptions.
fn assign_homogeneous(
    members: &[(&String, &MemberSpec)],
    topics: &TopicsSpec,
) -> Result<GroupAssignment, AssignorError> {
    let table = TopicTable::new(members[0].1.subscribed_topic_ids.iter(), topics)?;
    let n = members.len();
    let mut owners = previous_owners(members, &table);
    // Partitions in nobody's previous target come first in the list to deal out.
    let mut unassigned = unowned(&owners);

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
    let next = deal(&unfilled, &unassigned, &mut owners);
    if next < unassigned.len() {
        return Err(error(format!(
            "{} partitions were left unassigned",
            unassigned.len() - next
        )));
    }
    Ok(build_result(members, &table, &owners))
}
