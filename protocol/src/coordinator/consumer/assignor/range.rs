//! The `range` server-side assignor (docs/coordinator.md §1.9): contiguous ranges per
//! topic, co-partitioned when possible, non-sticky and deterministic. It is Kafka 4.2's
//! `RangeAssignor` (apache/kafka,
//! `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/RangeAssignor.java`).
//!
//! # Algorithm
//!
//! 1. Members are sorted: static members (with an instance id) first, by instance id; then
//!    dynamic members, by member id (Kafka's `sortMemberIds`). Two static members with the same
//!    instance id, which the coordinator never allows, fall back to member-id order.
//! 2. For each topic, its subscribers in that order take contiguous ranges from partition 0 up:
//!    with `p` partitions and `s` subscribers, each gets `p / s`, and the first `p % s` get one
//!    more. When `s > p` the first `p` subscribers get one partition each and the rest none.
//!
//! The previous targets are ignored. Kafka runs a homogeneous variant that walks the members
//! once over all topics and a heterogeneous one that walks each topic's subscribers; both give
//! exactly the per-topic result above, so kwire runs the per-topic form in both cases (and so
//! never hands out a topic a member did not subscribe to, even under a wrong
//! [`SubscriptionType`](super::SubscriptionType) hint).
//!
//! # Guarantees
//!
//! * With identical subscriptions and equal partition counts (co-partitioned topics), every
//!   member gets the same partition numbers of every topic.
//! * Every subscriber gets at least one partition of each topic while the partitions last.
//! * Static members keep their ranges across rolling bounces: the order depends on their
//!   instance ids, not on the member ids of the new processes.
//!
//! # Departures (kwire)
//!
//! A subscribed topic missing from the [`TopicsSpec`] is not assigned (docs/coordinator.md, D5;
//! Kafka throws). Every member appears in the result, with an empty assignment when it gets
//! nothing. Racks are ignored (as Kafka 4.2).
//!
//! # Cost
//!
//! O(M log M) for the sort plus O(sum of subscriptions x log) to build the result.

use super::spec::{
    Assignment, AssignorError, ConsumerGroupAssignor, GroupAssignment, GroupSpec, MemberSpec,
    TopicsSpec,
};
use crate::wire::Uuid;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// The range assignor (`"range"`): contiguous ranges per topic in static-first member order. See
/// the [module documentation](self) for the exact rule.
///
/// [`assign`](ConsumerGroupAssignor::assign) fails only when a subscribed topic has a negative
/// partition count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RangeAssignor;

impl RangeAssignor {
    /// The name members use in `ServerAssignor`: `"range"`.
    pub const NAME: &'static str = "range";
}

/// Kafka's `sortMemberIds`: static members first by instance id, then dynamic members by member
/// id (member id breaks the impossible tie of two equal instance ids).
fn member_order(a: (&String, &MemberSpec), b: (&String, &MemberSpec)) -> Ordering {
    match (&a.1.instance_id, &b.1.instance_id) {
        (Some(x), Some(y)) => x.cmp(y).then_with(|| a.0.cmp(b.0)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.0.cmp(b.0),
    }
}

impl ConsumerGroupAssignor for RangeAssignor {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn assign(
        &self,
        group: &GroupSpec,
        topics: &TopicsSpec,
    ) -> Result<GroupAssignment, AssignorError> {
        let mut order: Vec<(&String, &MemberSpec)> = group.members.iter().collect();
        order.sort_by(|a, b| member_order(*a, *b));

        // Each topic's subscribers, by rank in the sorted order.
        let mut subscribers: BTreeMap<Uuid, Vec<usize>> = BTreeMap::new();
        for (rank, (_, m)) in order.iter().enumerate() {
            for t in &m.subscribed_topic_ids {
                if topics.contains_key(t) {
                    subscribers.entry(*t).or_default().push(rank);
                }
            }
        }

        let mut out: Vec<Assignment> = vec![Assignment::new(); order.len()];
        for (topic, ranks) in subscribers {
            let info = &topics[&topic];
            let count = u32::try_from(info.partitions).map_err(|_| AssignorError {
                assignor: Self::NAME.to_string(),
                reason: format!(
                    "topic {} ({topic}) has a negative partition count {}",
                    info.name, info.partitions
                ),
            })?;
            let n = ranks.len() as u32;
            let min_quota = count / n;
            let mut extra = count % n;
            let mut next = 0u32;
            for rank in ranks {
                let mut quota = min_quota;
                if extra > 0 {
                    quota += 1;
                    extra -= 1;
                }
                let end = (next + quota).min(count);
                if next < end {
                    out[rank].insert(topic, (next as i32..end as i32).collect());
                }
                next = end;
            }
        }

        Ok(GroupAssignment {
            members: order.iter().map(|(id, _)| (*id).clone()).zip(out).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::spec::{SubscriptionType, TopicInfo};
    use super::super::testkit::*;
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn run(group: &GroupSpec, topics: &TopicsSpec) -> GroupAssignment {
        let result = RangeAssignor
            .assign(group, topics)
            .expect("range assignment");
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

    #[test]
    fn name_is_range() {
        assert_eq!(RangeAssignor.name(), "range");
        assert_eq!(RangeAssignor::NAME, "range");
    }

    #[test]
    fn empty_group_and_no_subscriptions() {
        let tp = topics(&[(tid(1), 3)]);
        assert!(run(&group([]), &tp).members.is_empty());
        let g = group([("A", member(&[], asg(&[]))), ("B", member(&[], asg(&[])))]);
        expect(&run(&g, &tp), &[("A", asg(&[])), ("B", asg(&[]))]);
    }

    #[test]
    fn missing_topic_is_not_assigned() {
        // docs/coordinator.md, D5 (Kafka throws "Member is subscribed to a non-existent topic").
        let tp = topics(&[(tid(1), 2)]);
        let g = group([
            ("A", member(&[tid(1), tid(9)], asg(&[]))),
            ("B", member(&[tid(9)], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[("A", asg(&[(tid(1), &[0, 1])])), ("B", asg(&[]))],
        );
    }

    #[test]
    fn negative_partition_count_is_an_error() {
        let mut tp = topics(&[(tid(1), 3)]);
        tp.insert(
            tid(2),
            TopicInfo {
                name: "bad".into(),
                partitions: -3,
                partition_racks: BTreeMap::new(),
            },
        );
        let g = group([("A", member(&[tid(1), tid(2)], asg(&[])))]);
        let err = RangeAssignor.assign(&g, &tp).unwrap_err();
        assert_eq!(err.assignor, "range");
        assert!(err.reason.contains("negative"), "{}", err.reason);
    }

    #[test]
    fn scenario_35_heterogeneous() {
        // RangeAssignorTest#testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions.
        let (t1, t2, t3) = (tid(1), tid(2), tid(3));
        let tp = topics(&[(t1, 3), (t2, 3), (t3, 2)]);
        let g = group([
            ("A", member(&[t1, t2], asg(&[]))),
            ("B", member(&[t3], asg(&[]))),
            ("C", member(&[t2, t3], asg(&[]))),
        ]);
        assert_eq!(g.subscription_type, SubscriptionType::Heterogeneous);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1, &[0, 1, 2]), (t2, &[0, 1])])),
                ("B", asg(&[(t3, &[0])])),
                ("C", asg(&[(t2, &[2]), (t3, &[1])])),
            ],
        );
    }

    #[test]
    fn scenario_35_homogeneous_more_members_than_partitions() {
        // RangeAssignorTest#testFirstAssignmentNumMembersGreaterThanNumPartitions.
        let (t1, t3) = (tid(1), tid(3));
        let tp = topics(&[(t1, 3), (t3, 2)]);
        let g = group([
            ("A", member(&[t1, t3], asg(&[]))),
            ("B", member(&[t1, t3], asg(&[]))),
            ("C", member(&[t1, t3], asg(&[]))),
        ]);
        assert_eq!(g.subscription_type, SubscriptionType::Homogeneous);
        expect(
            &run(&g, &tp),
            &[
                ("A", asg(&[(t1, &[0]), (t3, &[0])])),
                ("B", asg(&[(t1, &[1]), (t3, &[1])])),
                ("C", asg(&[(t1, &[2])])),
            ],
        );
    }

    #[test]
    fn scenario_10_targets() {
        // Scenario 10's targets are what range computes for M1 < M2 < M3 on foo(6), bar(3).
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
        expect(
            &run(&g, &tp),
            &[
                ("M1", asg(&[(foo, &[0, 1]), (bar, &[0])])),
                ("M2", asg(&[(foo, &[2, 3]), (bar, &[1])])),
                ("M3", asg(&[(foo, &[4, 5]), (bar, &[2])])),
            ],
        );
    }

    #[test]
    fn scenario_8_single_member() {
        let (foo, bar) = (tid(1), tid(2));
        let tp = topics(&[(foo, 6), (bar, 3)]);
        let g = group([("M", member(&[foo, bar], asg(&[])))]);
        expect(
            &run(&g, &tp),
            &[("M", asg(&[(foo, &[0, 1, 2, 3, 4, 5]), (bar, &[0, 1, 2])]))],
        );
    }

    #[test]
    fn co_partitioning_with_equal_partition_counts() {
        // RangeAssignor's javadoc example: M0 and M1 on T1 and T2 with 3 partitions each.
        let (t1, t2) = (tid(1), tid(2));
        let tp = topics(&[(t1, 3), (t2, 3)]);
        let g = group([
            ("M0", member(&[t1, t2], asg(&[]))),
            ("M1", member(&[t1, t2], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("M0", asg(&[(t1, &[0, 1]), (t2, &[0, 1])])),
                ("M1", asg(&[(t1, &[2]), (t2, &[2])])),
            ],
        );
    }

    #[test]
    fn static_members_come_first_by_instance_id() {
        // Static members I0 < I1 sort before the dynamic member "A", whatever their member ids.
        let t = tid(1);
        let tp = topics(&[(t, 7)]);
        let g = group([
            ("A", member(&[t], asg(&[]))),
            ("zz", static_member("I1", &[t], asg(&[]))),
            ("yy", static_member("I0", &[t], asg(&[]))),
        ]);
        expect(
            &run(&g, &tp),
            &[
                ("yy", asg(&[(t, &[0, 1, 2])])),
                ("zz", asg(&[(t, &[3, 4])])),
                ("A", asg(&[(t, &[5, 6])])),
            ],
        );
    }

    #[test]
    fn static_members_are_stable_across_rolling_bounce() {
        // RangeAssignor's javadoc: after a rolling bounce the members come back with new member
        // ids (M0 -> M3, M1 -> M2) but the same instance ids, and keep their ranges.
        let (t1, t2) = (tid(1), tid(2));
        let tp = topics(&[(t1, 3), (t2, 3)]);
        let before = group([
            ("M0", static_member("I0", &[t1, t2], asg(&[]))),
            ("M1", static_member("I1", &[t1, t2], asg(&[]))),
        ]);
        let after = group([
            ("M3", static_member("I0", &[t1, t2], asg(&[]))),
            ("M2", static_member("I1", &[t1, t2], asg(&[]))),
        ]);
        let (b, a) = (run(&before, &tp), run(&after, &tp));
        assert_eq!(a.members["M3"], b.members["M0"]);
        assert_eq!(a.members["M2"], b.members["M1"]);
        // Dynamic members would have swapped: M2 < M3 now.
        let dynamic = group([
            ("M3", member(&[t1, t2], asg(&[]))),
            ("M2", member(&[t1, t2], asg(&[]))),
        ]);
        let d = run(&dynamic, &tp);
        assert_eq!(d.members["M2"], b.members["M0"]);
    }

    #[test]
    fn previous_targets_are_ignored() {
        let t = tid(1);
        let tp = topics(&[(t, 4)]);
        let g = group([
            ("A", member(&[t], asg(&[(t, &[2, 3])]))),
            ("B", member(&[t], asg(&[(t, &[0, 1])]))),
        ]);
        expect(
            &run(&g, &tp),
            &[("A", asg(&[(t, &[0, 1])])), ("B", asg(&[(t, &[2, 3])]))],
        );
    }

    #[test]
    fn wrong_homogeneous_hint_assigns_only_subscribed_topics() {
        let (t1, t2) = (tid(1), tid(2));
        let tp = topics(&[(t1, 2), (t2, 2)]);
        let mut g = group([
            ("A", member(&[t1], asg(&[]))),
            ("B", member(&[t2], asg(&[]))),
        ]);
        g.subscription_type = SubscriptionType::Homogeneous;
        expect(
            &run(&g, &tp),
            &[("A", asg(&[(t1, &[0, 1])])), ("B", asg(&[(t2, &[0, 1])]))],
        );
    }

    #[test]
    fn zero_partition_topic() {
        let (t1, t2) = (tid(1), tid(2));
        let tp = topics(&[(t1, 0), (t2, 1)]);
        let g = group([
            ("A", member(&[t1, t2], asg(&[]))),
            ("B", member(&[t1, t2], asg(&[]))),
        ]);
        expect(&run(&g, &tp), &[("A", asg(&[(t2, &[0])])), ("B", asg(&[]))]);
    }

    fn arb_case() -> impl Strategy<Value = (GroupSpec, TopicsSpec)> {
        (1usize..6, 0usize..12, any::<bool>()).prop_flat_map(
            |(n_topics, n_members, homogeneous)| {
                let counts = proptest::collection::vec(0i32..20, n_topics);
                let common = proptest::collection::vec(any::<bool>(), n_topics + 1);
                let members = proptest::collection::vec(
                    (
                        proptest::collection::vec(any::<bool>(), n_topics + 1),
                        proptest::option::of(0u16..50),
                        0u16..1000,
                    ),
                    n_members,
                );
                (counts, common, members).prop_map(move |(counts, common, members)| {
                    let tp = topics(
                        &counts
                            .iter()
                            .enumerate()
                            .map(|(i, &c)| (tid(i as u128 + 1), c))
                            .collect::<Vec<_>>(),
                    );
                    let mut ms = BTreeMap::new();
                    for (subs, instance, id) in members {
                        let mask = if homogeneous { &common } else { &subs };
                        let subscribed: BTreeSet<Uuid> = mask
                            .iter()
                            .enumerate()
                            .filter(|(_, &b)| b)
                            .map(|(i, _)| tid(i as u128 + 1))
                            .collect();
                        let spec = MemberSpec {
                            instance_id: instance.map(|i| format!("inst-{i:02}-{id}")),
                            subscribed_topic_ids: subscribed,
                            ..Default::default()
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
        fn prop_range_invariants((g, tp) in arb_case()) {
            let r = run(&g, &tp);
            prop_assert_eq!(&RangeAssignor.assign(&g, &tp).unwrap(), &r, "not deterministic");
            // Ignores previous targets: feeding its own result back changes nothing.
            prop_assert_eq!(&run(&with_previous(&g, &r), &tp), &r);

            let mut order: Vec<(&String, &MemberSpec)> = g.members.iter().collect();
            order.sort_by(|a, b| member_order(*a, *b));
            for (t, info) in &tp {
                let subs: Vec<&String> =
                    order.iter().filter(|(_, m)| m.subscribed_topic_ids.contains(t)).map(|(id, _)| *id).collect();
                if subs.is_empty() {
                    continue;
                }
                let count = info.partitions as usize;
                // Contiguous ranges, in member order, with sizes quota(+1 for the first ones).
                let mut next = 0usize;
                for (i, id) in subs.iter().enumerate() {
                    let want = count / subs.len() + usize::from(i < count % subs.len());
                    let got: Vec<i32> = r.members[*id].get(t).map(|s| s.iter().copied().collect()).unwrap_or_default();
                    let expected: Vec<i32> = (next as i32..(next + want) as i32).collect();
                    prop_assert_eq!(got, expected, "topic {:?} member {}", t, id);
                    next += want;
                    if count >= subs.len() {
                        prop_assert!(want >= 1);
                    }
                }
            }
            // Co-partitioning: identical subscriptions and equal partition counts give every
            // member the same partition numbers in every topic.
            if g.subscription_type == SubscriptionType::Homogeneous {
                let counts: BTreeSet<i32> = g.members.values().next().map(|m| {
                    m.subscribed_topic_ids.iter().filter_map(|t| tp.get(t)).map(|i| i.partitions).collect()
                }).unwrap_or_default();
                if counts.len() == 1 {
                    for a in r.members.values() {
                        let numbers: BTreeSet<&BTreeSet<i32>> = a.values().collect();
                        prop_assert!(numbers.len() <= 1, "not co-partitioned: {:?}", a);
                    }
                }
            }
        }
    }
}
