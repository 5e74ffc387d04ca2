//! The heterogeneous case of the uniform assignor (Kafka's
//! `UniformHeterogeneousAssignmentBuilder`, 4.2; see the [module docs](super)).

use super::super::spec::{AssignorError, GroupAssignment, MemberSpec, TopicsSpec};
use super::balancer::{Balancer, Scratch};
use super::table::{build_result, error, slot, TopicTable, MAX_ITERATION_COUNT, NONE};
use crate::wire::Uuid;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Kafka's `UniformHeterogeneousAssignmentBuilder` (4.2): state of one computation.
pub(super) struct Heterogeneous {
    pub(super) table: TopicTable,
    /// Subscribers of each topic, ascending member index.
    pub(super) subscribers: Vec<Vec<u32>>,
    /// Owner of each partition of each topic (`NONE` = unassigned).
    pub(super) owners: Vec<Vec<u32>>,
    /// Number of partitions each member owns in the target being built.
    pub(super) sizes: Vec<u32>,
}

impl Heterogeneous {
    pub(super) fn new(
        members: &[(&String, &MemberSpec)],
        topics: &TopicsSpec,
    ) -> Result<Self, AssignorError> {
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

    pub(super) fn build(
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
    pub(super) fn keep_subscribed(&mut self, members: &[(&String, &MemberSpec)]) {
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
    pub(super) fn topic_order(&self, a: usize, b: usize) -> Ordering {
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

    pub(super) fn sorted_topics(&self, keep: impl Fn(usize) -> bool) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.table.ids.len()).filter(|&t| keep(t)).collect();
        order.sort_by(|&a, &b| self.topic_order(a, b));
        order
    }

    /// Moves partition `p` of topic `ti` to member `m`.
    pub(super) fn assign(&mut self, ti: usize, p: u32, m: u32) {
        let slot = &mut self.owners[ti][p as usize];
        if *slot != NONE {
            self.sizes[*slot as usize] -= 1;
        }
        *slot = m;
        self.sizes[m as usize] += 1;
    }

    /// Kafka's `assignRemainingPartitions`.
    pub(super) fn assign_remaining(&mut self) {
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
    pub(super) fn balance(&mut self) {
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
    pub(super) fn balance_topic(&mut self, ti: usize, s: &mut Scratch) -> usize {
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
