//! The reconciliation state machine (Kafka's `CurrentAssignmentBuilder`, docs/coordinator.md §1.6,
//! with the 4.2 fixes KAFKA-19449 and KAFKA-19974).

use std::collections::BTreeSet;

use super::assignor::Assignment;
use super::group::{ConsumerGroup, ConsumerGroupMember, MemberState};
use crate::wire::Uuid;

/// Inputs of one reconciliation step.
pub(crate) struct Reconcile<'a> {
    /// The group (for the partition-ownership map).
    pub group: &'a ConsumerGroup,
    /// The target epoch T.
    pub target_epoch: i32,
    /// The member's target.
    pub target: &'a Assignment,
    /// Whether the member subscribes to a topic id (names ∪ resolved regex), [4.2]; asked only
    /// when the member moves, so a stable member's heartbeat builds no topic set.
    pub subscribed: &'a dyn Fn(&Uuid) -> bool,
    /// Whether the subscription changed in this heartbeat.
    pub subscription_changed: bool,
    /// Partitions the member reports as owned; `None` = unknown (owns everything).
    pub owned: Option<&'a Assignment>,
}

/// Reconciliation refused: FENCED_MEMBER_EPOCH (a member in UNKNOWN state without `owned=[]`).
#[derive(Debug)]
pub(crate) struct Fenced;

impl Reconcile<'_> {
    fn owns_any(&self, revoke: &Assignment) -> bool {
        match self.owned {
            None => revoke.values().any(|p| !p.is_empty()),
            Some(owned) => revoke.iter().any(|(t, ps)| {
                owned
                    .get(t)
                    .is_some_and(|o| ps.iter().any(|p| o.contains(p)))
            }),
        }
    }

    /// Computes the member's next current assignment; `None` when the member stays as it is
    /// (nothing is built then).
    pub fn run(&self, member: &ConsumerGroupMember) -> Result<Option<ConsumerGroupMember>, Fenced> {
        match member.state {
            MemberState::Stable => {
                if member.member_epoch != self.target_epoch {
                    Ok(Some(self.next(member, member.member_epoch)))
                } else if self.subscription_changed {
                    Ok(self.drop_unsubscribed(member))
                } else {
                    Ok(None)
                }
            }
            MemberState::UnrevokedPartitions => {
                if self.owns_any(&member.pending_revocation) {
                    if self.subscription_changed {
                        Ok(self.drop_unsubscribed(member))
                    } else {
                        Ok(None)
                    }
                } else {
                    Ok(Some(self.next(member, member.member_epoch)))
                }
            }
            MemberState::UnreleasedPartitions => Ok(Some(self.next(member, member.member_epoch))),
            MemberState::Unknown => match self.owned {
                Some(o) if o.values().all(BTreeSet::is_empty) => {
                    Ok(Some(self.next(member, self.target_epoch)))
                }
                _ => Err(Fenced),
            },
        }
    }

    /// [4.2] Moves partitions of topics the member no longer subscribes to into pending
    /// revocation; `None` when it subscribes to every topic it holds.
    fn drop_unsubscribed(&self, member: &ConsumerGroupMember) -> Option<ConsumerGroupMember> {
        let mut assigned = member.assigned.clone();
        let mut pending = member.pending_revocation.clone();
        let mut any = false;
        let topics: Vec<Uuid> = assigned.keys().copied().collect();
        for t in topics {
            if !(self.subscribed)(&t) {
                if let Some(ps) = assigned.remove(&t) {
                    if !ps.is_empty() {
                        any = true;
                        pending.entry(t).or_default().extend(ps);
                    }
                }
            }
        }
        if !any {
            return None;
        }
        let mut m = member.clone();
        m.state = MemberState::UnrevokedPartitions;
        m.previous_member_epoch = member.member_epoch;
        m.assigned = assigned;
        m.pending_revocation = pending;
        Some(m)
    }

    /// `next(epochToUse)` of docs/coordinator.md §1.6.
    fn next(&self, member: &ConsumerGroupMember, epoch_to_use: i32) -> ConsumerGroupMember {
        let empty = BTreeSet::new();
        let mut topics: BTreeSet<Uuid> = self.target.keys().copied().collect();
        topics.extend(member.assigned.keys().copied());
        let mut keep_all = Assignment::new();
        let mut revoke_all = Assignment::new();
        let mut add_all = Assignment::new();
        let mut unreleased = false;
        for t in topics {
            let tgt = if (self.subscribed)(&t) {
                self.target.get(&t).unwrap_or(&empty)
            } else {
                &empty
            };
            let cur = member.assigned.get(&t).unwrap_or(&empty);
            let keep: BTreeSet<i32> = cur.intersection(tgt).copied().collect();
            let revoke: BTreeSet<i32> = cur.difference(&keep).copied().collect();
            let own_pending = member.pending_revocation.get(&t);
            let mut add = BTreeSet::new();
            for p in tgt.difference(&keep) {
                let held_by_other = self.group.partition_epoch(t, *p).is_some()
                    && !own_pending.is_some_and(|s| s.contains(p));
                if held_by_other {
                    unreleased = true;
                } else {
                    add.insert(*p);
                }
            }
            if !keep.is_empty() {
                keep_all.insert(t, keep);
            }
            if !revoke.is_empty() {
                revoke_all.insert(t, revoke);
            }
            if !add.is_empty() {
                add_all.insert(t, add);
            }
        }
        let mut m = member.clone();
        m.previous_member_epoch = member.member_epoch;
        if !revoke_all.is_empty() && self.owns_any(&revoke_all) {
            m.state = MemberState::UnrevokedPartitions;
            m.member_epoch = epoch_to_use;
            m.assigned = keep_all;
            m.pending_revocation = revoke_all;
        } else if !add_all.is_empty() {
            for (t, ps) in add_all {
                keep_all.entry(t).or_default().extend(ps);
            }
            m.state = if unreleased {
                MemberState::UnreleasedPartitions
            } else {
                MemberState::Stable
            };
            m.member_epoch = self.target_epoch;
            m.assigned = keep_all;
            m.pending_revocation = Assignment::new();
        } else {
            m.state = if unreleased {
                MemberState::UnreleasedPartitions
            } else {
                MemberState::Stable
            };
            m.member_epoch = self.target_epoch;
            m.assigned = keep_all;
            m.pending_revocation = Assignment::new();
        }
        m
    }
}

/// Reconciliation unit cases (scenarios 30, 31 and 33 of Kafka's `CurrentAssignmentBuilderTest`).
#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn a(parts: &[(Uuid, &[i32])]) -> Assignment {
        let mut r = Assignment::new();
        for (t, ps) in parts {
            if !ps.is_empty() {
                r.entry(*t).or_default().extend(ps.iter().copied());
            }
        }
        r
    }

    fn group_with(owners: &[(&str, i32, Assignment)]) -> ConsumerGroup {
        let mut g = ConsumerGroup::new("g");
        for (id, e, asg) in owners {
            let mut m = ConsumerGroupMember::new(id);
            m.member_epoch = *e;
            m.assigned = asg.clone();
            g.put_member(m);
        }
        g
    }

    fn stable_member(e: i32, asg: Assignment) -> ConsumerGroupMember {
        let mut m = ConsumerGroupMember::new("M");
        m.member_epoch = e;
        m.previous_member_epoch = e - 1;
        m.assigned = asg;
        m
    }

    #[test]
    fn s30_stable_to_unrevoked() {
        let t1 = Uuid::from_u128(1);
        let t2 = Uuid::from_u128(2);
        let g = group_with(&[]);
        let target = a(&[(t1, &[2, 3, 4]), (t2, &[5, 6, 7])]);
        let subs = BTreeSet::from([t1, t2]);
        let rec = Reconcile {
            group: &g,
            target_epoch: 11,
            target: &target,
            subscribed: &|t| subs.contains(t),
            subscription_changed: false,
            owned: None,
        };
        let m = rec
            .run(&stable_member(10, a(&[(t1, &[1, 2, 3]), (t2, &[4, 5, 6])])))
            .unwrap()
            .unwrap();
        assert_eq!(
            (m.state, m.member_epoch, m.previous_member_epoch),
            (MemberState::UnrevokedPartitions, 10, 10)
        );
        assert_eq!(m.assigned, a(&[(t1, &[2, 3]), (t2, &[5, 6])]));
        assert_eq!(m.pending_revocation, a(&[(t1, &[1]), (t2, &[4])]));
    }

    #[test]
    fn s31_stable_to_unreleased() {
        let t1 = Uuid::from_u128(1);
        let t2 = Uuid::from_u128(2);
        let g = group_with(&[("O", 10, a(&[(t2, &[7])]))]);
        let target = a(&[(t1, &[1, 2, 3]), (t2, &[4, 5, 7])]);
        let subs = BTreeSet::from([t1, t2]);
        let none = Assignment::new();
        let rec = Reconcile {
            group: &g,
            target_epoch: 11,
            target: &target,
            subscribed: &|t| subs.contains(t),
            subscription_changed: false,
            owned: Some(&none),
        };
        let m = rec
            .run(&stable_member(10, a(&[(t1, &[1, 2, 3]), (t2, &[4, 5, 6])])))
            .unwrap()
            .unwrap();
        assert_eq!(
            (m.state, m.member_epoch),
            (MemberState::UnreleasedPartitions, 11)
        );
        assert_eq!(m.assigned, a(&[(t1, &[1, 2, 3]), (t2, &[4, 5])]));
        assert!(m.pending_revocation.is_empty());
    }

    #[test]
    fn s33_unknown_state() {
        let t1 = Uuid::from_u128(1);
        let g = group_with(&[]);
        let target = a(&[(t1, &[1, 2])]);
        let subs = BTreeSet::from([t1]);
        let mut m = stable_member(11, a(&[(t1, &[1])]));
        m.state = MemberState::Unknown;
        let some = a(&[(t1, &[1])]);
        for owned in [None, Some(&some)] {
            let rec = Reconcile {
                group: &g,
                target_epoch: 12,
                target: &target,
                subscribed: &|t| subs.contains(t),
                subscription_changed: false,
                owned,
            };
            assert!(rec.run(&m).is_err());
        }
        let none = Assignment::new();
        let rec = Reconcile {
            group: &g,
            target_epoch: 12,
            target: &target,
            subscribed: &|t| subs.contains(t),
            subscription_changed: false,
            owned: Some(&none),
        };
        let n = rec.run(&m).unwrap().unwrap();
        assert_eq!((n.state, n.member_epoch), (MemberState::Stable, 12));
        assert_eq!(n.assigned, a(&[(t1, &[1, 2])]));
    }
}
