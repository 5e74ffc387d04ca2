//! The uniform assignor's tests: Kafka's `UniformHomogeneousAssignmentBuilderTest` and
//! `UniformHeterogeneousAssignmentBuilderTest` cases, then properties.

use super::super::spec::{Assignment, TopicInfo};
use super::super::testkit::*;
use super::*;
use crate::wire::Uuid;
use proptest::prelude::*;
use std::collections::BTreeMap;

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
    (1usize..6, 0usize..10, any::<bool>()).prop_flat_map(|(n_topics, n_members, homogeneous)| {
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
    })
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
