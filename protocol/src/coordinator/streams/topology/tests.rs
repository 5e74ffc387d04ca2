//! Tests of topology configuration: the scenarios of docs/coordinator.md §2.4 step 3, the
//! structural comparison and a property test that `configure` is total and deterministic.

use std::collections::{BTreeMap, BTreeSet};

use super::configured::Stop;
use super::copartition::enforce_group;
use super::*;
use proptest::prelude::*;

// ---- builders ----

fn meta(pairs: &[(&str, i32)]) -> impl Fn(&str) -> Option<i32> {
    let map: BTreeMap<String, i32> = pairs.iter().map(|(t, n)| (t.to_string(), *n)).collect();
    move |topic| map.get(topic).copied()
}

fn topic(name: &str, partitions: i32) -> TopicInfo {
    TopicInfo {
        name: name.into(),
        partitions,
        ..TopicInfo::default()
    }
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn sub(id: &str) -> Subtopology {
    Subtopology {
        subtopology_id: id.into(),
        ..Subtopology::default()
    }
}

trait Build {
    fn sources(self, topics: &[&str]) -> Self;
    fn sinks(self, topics: &[&str]) -> Self;
    fn reads(self, topics: &[TopicInfo]) -> Self;
    fn changelogs(self, topics: &[TopicInfo]) -> Self;
    fn group(self, sources: &[i16], repartition: &[i16]) -> Self;
}

impl Build for Subtopology {
    fn sources(mut self, topics: &[&str]) -> Self {
        self.source_topics = strings(topics);
        self
    }
    fn sinks(mut self, topics: &[&str]) -> Self {
        self.repartition_sink_topics = strings(topics);
        self
    }
    fn reads(mut self, topics: &[TopicInfo]) -> Self {
        self.repartition_source_topics = topics.to_vec();
        self
    }
    fn changelogs(mut self, topics: &[TopicInfo]) -> Self {
        self.state_changelog_topics = topics.to_vec();
        self
    }
    fn group(mut self, sources: &[i16], repartition: &[i16]) -> Self {
        self.copartition_groups.push(CopartitionGroup {
            source_topics: sources.to_vec(),
            source_topic_regex: Vec::new(),
            repartition_source_topics: repartition.to_vec(),
        });
        self
    }
}

fn topology(subtopologies: Vec<Subtopology>) -> StreamsTopology {
    StreamsTopology {
        epoch: 7,
        subtopologies,
    }
}

fn status(code: i8, detail: &str) -> Option<TopicStatus> {
    Some(TopicStatus {
        code,
        detail: detail.into(),
    })
}

fn creatable(name: &str, num_partitions: i32, replication_factor: i16) -> CreatableTopic {
    CreatableTopic {
        name: name.into(),
        num_partitions,
        replication_factor,
        configs: BTreeMap::new(),
    }
}

fn ok(t: &StreamsTopology, m: impl Fn(&str) -> Option<i32>) -> ConfiguredTopology {
    configure(t, m).expect("the topology is valid")
}

fn err(t: &StreamsTopology, m: impl Fn(&str) -> Option<i32>) -> String {
    configure(t, m).expect_err("the topology is invalid").0
}

fn tasks(c: &ConfiguredTopology, id: &str) -> i32 {
    c.subtopology(id).expect("subtopology configured").num_tasks
}

fn partitions(c: &ConfiguredTopology, id: &str, name: &str) -> i32 {
    let s = c.subtopology(id).expect("subtopology configured");
    s.repartition_source_topics
        .get(name)
        .or_else(|| s.state_changelog_topics.get(name))
        .expect("topic configured")
        .partitions
}

/// The failed shape: no subtopologies, nothing to create, not ready.
fn assert_failed(c: &ConfiguredTopology, code: i8, detail: &str) {
    assert_eq!(c.status, status(code, detail));
    assert_eq!(c.subtopologies, None);
    assert!(c.internal_topics_to_create.is_empty());
    assert!(!c.is_ready());
    assert_eq!(c.topology_epoch, 7);
}

const LOOPS: &str = "Failed to compute number of partitions for all repartition topics. There \
                     may be loops in the topology that cannot be resolved.";
const NEVER_SINK: &str = "Failed to compute number of partitions for all repartition \
                          topics, because a repartition source topic is never used as a \
                          sink topic.";

// ---- scenario 39 ----

#[test]
fn scenario_39a_missing_source_topic() {
    let t = topology(vec![
        sub("subtopology1").sources(&["foo"]),
        sub("subtopology2").sources(&["bar"]),
    ]);
    let c = ok(&t, meta(&[("foo", 6)]));
    assert_failed(&c, MISSING_SOURCE_TOPICS, "Source topics bar are missing.");
}

#[test]
fn scenario_39b_missing_internal_topic() {
    let t = topology(vec![sub("subtopology1")
        .sources(&["foo"])
        .changelogs(&[topic("bar", 0)])]);
    let c = ok(&t, meta(&[("foo", 6)]));
    assert_eq!(
        c.status,
        status(MISSING_INTERNAL_TOPICS, "Internal topics are missing: bar")
    );
    assert_eq!(c.internal_topics_to_create, vec![creatable("bar", 6, -1)]);
    assert!(!c.is_ready());
    // Configured, though not ready.
    assert_eq!(tasks(&c, "subtopology1"), 6);
    assert_eq!(partitions(&c, "subtopology1", "bar"), 6);
}

#[test]
fn scenario_39c_incorrectly_partitioned_topics() {
    let t = topology(vec![sub("subtopology1")
        .sources(&["foo", "bar"])
        .group(&[0, 1], &[])]);
    let c = ok(&t, meta(&[("foo", 6), ("bar", 3)]));
    assert_failed(
        &c,
        INCORRECTLY_PARTITIONED_TOPICS,
        "Following topics do not have the same number of partitions: [{bar=3, foo=6}]",
    );
}

// ---- a) missing source topics ----

#[test]
fn missing_sources_are_sorted_and_summarized() {
    let t = topology(vec![
        sub("1").sources(&["e", "c"]),
        sub("2").sources(&["a", "ok", "d", "b"]),
    ]);
    let c = ok(&t, meta(&[("ok", 1)]));
    assert_failed(
        &c,
        MISSING_SOURCE_TOPICS,
        "Source topics a, b, c and 2 additional topics are missing.",
    );

    let t = topology(vec![sub("1").sources(&["c", "b", "a"])]);
    let c = ok(&t, meta(&[]));
    assert_failed(
        &c,
        MISSING_SOURCE_TOPICS,
        "Source topics a, b, c are missing.",
    );
}

#[test]
fn missing_sources_come_before_topology_errors() {
    // The repartition topic is never written, but the missing source wins.
    let t = topology(vec![sub("1").sources(&["in"]).reads(&[topic("r", 0)])]);
    let c = ok(&t, meta(&[]));
    assert_failed(&c, MISSING_SOURCE_TOPICS, "Source topics in are missing.");
}

#[test]
fn non_positive_metadata_counts_are_missing_topics() {
    let t = topology(vec![sub("1").sources(&["a", "b"])]);
    let c = ok(&t, meta(&[("a", -3), ("b", 0)]));
    assert_failed(&c, MISSING_SOURCE_TOPICS, "Source topics a, b are missing.");
}

// ---- b) repartition topics ----

#[test]
fn fixed_and_flexible_repartition_counts() {
    let t = topology(vec![
        sub("1").sources(&["in"]).sinks(&["flex", "fixed"]),
        sub("2").reads(&[topic("flex", 0), topic("fixed", 10)]),
    ]);
    let c = ok(&t, meta(&[("in", 4)]));
    assert_eq!(
        c.internal_topics_to_create,
        vec![creatable("fixed", 10, -1), creatable("flex", 4, -1)]
    );
    assert_eq!(
        c.status,
        status(
            MISSING_INTERNAL_TOPICS,
            "Internal topics are missing: fixed, flex"
        )
    );
    assert_eq!(partitions(&c, "2", "flex"), 4);
    assert_eq!(partitions(&c, "2", "fixed"), 10);
    assert_eq!(tasks(&c, "1"), 4);
    assert_eq!(tasks(&c, "2"), 10);
}

#[test]
fn a_chain_of_repartitions_resolves_over_several_passes() {
    // "c" reads in1, in2 and writes r1; "b" reads r1 and writes r2; "a" reads r2. In id order
    // "b" comes before "c", so r2 is only resolved in the second pass.
    let chain = |b: Subtopology| {
        topology(vec![
            sub("c").sources(&["in1", "in2"]).sinks(&["r1"]),
            b.reads(&[topic("r1", 0)]).sinks(&["r2"]),
            sub("a")
                .reads(&[topic("r2", 0)])
                .changelogs(&[topic("store", 0)]),
        ])
    };
    let t = chain(sub("b"));
    let c = ok(&t, meta(&[("in1", 3), ("in2", 5)]));
    assert_eq!(partitions(&c, "b", "r1"), 5);
    assert_eq!(partitions(&c, "a", "r2"), 5);
    assert_eq!(partitions(&c, "a", "store"), 5);
    assert_eq!((tasks(&c, "a"), tasks(&c, "b"), tasks(&c, "c")), (5, 5, 5));

    // As in Kafka, a sink is resolved as soon as one input of its writer has a count: "b"
    // also reads x, so the first pass gives r2 the count of x alone, before r1 is known.
    let t = chain(sub("b").sources(&["x"]));
    let c = ok(&t, meta(&[("in1", 3), ("in2", 5), ("x", 2)]));
    assert_eq!(partitions(&c, "b", "r1"), 5);
    assert_eq!(partitions(&c, "a", "r2"), 2);
    assert_eq!((tasks(&c, "a"), tasks(&c, "b"), tasks(&c, "c")), (2, 5, 5));

    let c = ok(&t, meta(&[("in1", 3), ("in2", 5), ("x", 9)]));
    assert_eq!(partitions(&c, "a", "r2"), 9);
    assert_eq!((tasks(&c, "a"), tasks(&c, "b"), tasks(&c, "c")), (9, 9, 5));
}

#[test]
fn a_loop_without_external_input_is_invalid() {
    let t = topology(vec![
        sub("1").reads(&[topic("r2", 0)]).sinks(&["r1"]),
        sub("2").reads(&[topic("r1", 0)]).sinks(&["r2"]),
    ]);
    assert_eq!(err(&t, meta(&[])), LOOPS);
    assert_eq!(InvalidTopology::ERROR_CODE, 130);
}

#[test]
fn a_loop_with_external_input_resolves() {
    let t = topology(vec![
        sub("1")
            .sources(&["in"])
            .reads(&[topic("r2", 0)])
            .sinks(&["r1"]),
        sub("2").reads(&[topic("r1", 0)]).sinks(&["r2"]),
    ]);
    let c = ok(&t, meta(&[("in", 3)]));
    assert_eq!(partitions(&c, "2", "r1"), 3);
    assert_eq!(partitions(&c, "1", "r2"), 3);
}

#[test]
fn a_repartition_source_never_written_is_invalid() {
    let t = topology(vec![sub("1").sources(&["in"]).reads(&[topic("r", 0)])]);
    assert_eq!(err(&t, meta(&[("in", 1)])), NEVER_SINK);
    // Even when the topic exists.
    assert_eq!(err(&t, meta(&[("in", 1), ("r", 1)])), NEVER_SINK);
    // A fixed count needs no writer.
    let t = topology(vec![sub("1").sources(&["in"]).reads(&[topic("r", 2)])]);
    let c = ok(&t, meta(&[("in", 1), ("r", 2)]));
    assert!(c.is_ready());
    assert_eq!(tasks(&c, "1"), 2);
}

#[test]
fn a_subtopology_without_inputs_is_invalid() {
    let t = topology(vec![sub("0").changelogs(&[topic("s", 0)])]);
    assert_eq!(
        err(&t, meta(&[])),
        "No source topics found for subtopology 0"
    );
}

// ---- c) copartitioning ----

#[test]
fn flexible_repartition_topics_are_coerced_to_the_external_count() {
    let t = topology(vec![
        sub("1").sources(&["in"]).sinks(&["r"]),
        sub("2")
            .sources(&["other"])
            .reads(&[topic("r", 0)])
            .changelogs(&[topic("store", 0)])
            .group(&[0], &[0]),
    ]);
    let c = ok(&t, meta(&[("in", 3), ("other", 8)]));
    assert_eq!(partitions(&c, "2", "r"), 8);
    assert_eq!(partitions(&c, "2", "store"), 8);
    assert_eq!(tasks(&c, "2"), 8);
    assert_eq!(
        c.internal_topics_to_create,
        vec![creatable("r", 8, -1), creatable("store", 8, -1)]
    );
}

#[test]
fn external_topics_of_a_group_must_agree() {
    let t = topology(vec![
        sub("1").sources(&["in"]).sinks(&["r"]),
        sub("2")
            .sources(&["b", "a"])
            .reads(&[topic("r", 0)])
            .group(&[0, 1], &[0]),
    ]);
    let c = ok(&t, meta(&[("in", 3), ("a", 2), ("b", 4)]));
    assert_failed(
        &c,
        INCORRECTLY_PARTITIONED_TOPICS,
        "Following topics do not have the same number of partitions: [{a=2, b=4}]",
    );
}

#[test]
fn a_fixed_repartition_topic_must_match_the_external_count() {
    let t = topology(vec![
        sub("1").sources(&["in"]).sinks(&["r"]),
        sub("2")
            .sources(&["other"])
            .reads(&[topic("r", 4)])
            .group(&[0], &[0]),
    ]);
    let c = ok(&t, meta(&[("in", 3), ("other", 8)]));
    assert_failed(
        &c,
        INCORRECTLY_PARTITIONED_TOPICS,
        "Number of partitions [4] of repartition topic [r] doesn't match number of \
         partitions [8] of the source topic.",
    );
}

#[test]
fn all_repartition_groups() {
    let writer = sub("1").sources(&["in"]).sinks(&["r1", "r2", "r3"]);
    let reader = |r1: i32, r2: i32| {
        sub("2")
            .reads(&[topic("r1", r1), topic("r2", r2), topic("r3", 0)])
            .group(&[], &[0, 1, 2])
    };
    let m = meta(&[("in", 3)]);

    // Fixed counts that disagree: every repartition topic of the group is listed.
    let c = ok(&topology(vec![writer.clone(), reader(2, 4)]), &m);
    assert_failed(
        &c,
        INCORRECTLY_PARTITIONED_TOPICS,
        "Following topics do not have the same number of partitions: [{r1=2, r2=4, r3=3}]",
    );

    // Fixed counts that agree: the flexible topic takes them.
    let c = ok(&topology(vec![writer.clone(), reader(6, 6)]), &m);
    assert_eq!(partitions(&c, "2", "r3"), 6);
    assert_eq!(tasks(&c, "2"), 6);

    // No fixed count: the largest count wins.
    let t = topology(vec![
        sub("1").sources(&["small"]).sinks(&["r1"]),
        sub("2").sources(&["big"]).sinks(&["r2"]),
        sub("3")
            .reads(&[topic("r1", 0), topic("r2", 0)])
            .group(&[], &[0, 1]),
    ]);
    let c = ok(&t, meta(&[("small", 2), ("big", 5)]));
    assert_eq!(partitions(&c, "3", "r1"), 5);
    assert_eq!(partitions(&c, "3", "r2"), 5);
    assert_eq!(
        c.internal_topics_to_create,
        vec![creatable("r1", 5, -1), creatable("r2", 5, -1)]
    );
}

#[test]
fn a_group_without_any_count_is_invalid() {
    // Unreachable through `configure` (resolved counts are positive), so the group is
    // enforced directly.
    let group: BTreeSet<&str> = ["r1", "r2"].into_iter().collect();
    let flexible = group.clone();
    let result = enforce_group(&group, &BTreeSet::new(), &flexible, |_| Some(0));
    match result {
        Err(Stop::Invalid(e)) => assert_eq!(
            e.0,
            "All topics in the copartition group had undefined partition number: [r1, r2]"
        ),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn an_existing_repartition_topic_counts_with_its_own_partitions() {
    // r exists with 4 partitions although 3 are decided: the copartition check reads 4 and
    // accepts it, then the existing-topic check reports the difference.
    let t = topology(vec![
        sub("1").sources(&["in"]).sinks(&["r"]),
        sub("2")
            .sources(&["other"])
            .reads(&[topic("r", 0)])
            .group(&[0], &[0]),
    ]);
    let c = ok(&t, meta(&[("in", 3), ("other", 4), ("r", 4)]));
    assert!(c.is_ready());
    assert_eq!(partitions(&c, "2", "r"), 4);

    let c = ok(&t, meta(&[("in", 3), ("other", 4), ("r", 5)]));
    assert_failed(
        &c,
        INCORRECTLY_PARTITIONED_TOPICS,
        "Existing topic r has different number of partitions: expected 4, found 5",
    );
}

// ---- d) changelogs, tasks, statefulness ----

#[test]
fn changelogs_take_the_largest_input_count() {
    let t = topology(vec![
        sub("1").sources(&["in"]).sinks(&["r"]),
        sub("2")
            .sources(&["a", "b"])
            .reads(&[topic("r", 0)])
            .changelogs(&[topic("s1", 0), topic("s2", 0)]),
        sub("3").sources(&["a"]),
    ]);
    let c = ok(&t, meta(&[("in", 9), ("a", 2), ("b", 5)]));
    assert_eq!(partitions(&c, "2", "s1"), 9);
    assert_eq!(partitions(&c, "2", "s2"), 9);
    assert_eq!(tasks(&c, "1"), 9);
    assert_eq!(tasks(&c, "2"), 9);
    assert_eq!(tasks(&c, "3"), 2);
    let stateful = |id| c.subtopology(id).expect("configured").is_stateful();
    assert!(stateful("2"));
    assert!(!stateful("1"));
    assert!(!stateful("3"));

    let c = ok(&t, meta(&[("in", 1), ("a", 2), ("b", 5)]));
    assert_eq!(partitions(&c, "2", "s1"), 5);
    assert_eq!(tasks(&c, "2"), 5);
}

// ---- e) existing internal topics ----

#[test]
fn an_existing_changelog_with_another_count_is_incorrectly_partitioned() {
    let t = topology(vec![sub("1")
        .sources(&["foo"])
        .changelogs(&[topic("bar", 0), topic("baz", 0)])]);
    let c = ok(&t, meta(&[("foo", 6), ("bar", 3)]));
    assert_failed(
        &c,
        INCORRECTLY_PARTITIONED_TOPICS,
        "Existing topic bar has different number of partitions: expected 6, found 3",
    );
}

// ---- f) missing internal topics ----

#[test]
fn missing_internal_topics_keep_replication_factor_and_configs() {
    let configs: BTreeMap<String, String> =
        [("cleanup.policy".to_string(), "compact".to_string())].into();
    let t = topology(vec![
        sub("1").sources(&["in"]).sinks(&["r"]).changelogs(&[
            TopicInfo {
                topic_configs: configs.clone(),
                ..topic("c1", 0)
            },
            topic("c2", 0),
            topic("c3", 0),
        ]),
        sub("2").reads(&[TopicInfo {
            replication_factor: 3,
            ..topic("r", 0)
        }]),
    ]);
    let c = ok(&t, meta(&[("in", 2), ("c3", 2)]));
    assert_eq!(
        c.status,
        status(
            MISSING_INTERNAL_TOPICS,
            "Internal topics are missing: c1, c2, r"
        )
    );
    assert_eq!(
        c.internal_topics_to_create,
        vec![
            CreatableTopic {
                configs,
                ..creatable("c1", 2, -1)
            },
            creatable("c2", 2, -1),
            creatable("r", 2, 3),
        ]
    );
    assert!(c.subtopologies.is_some());
    assert!(!c.is_ready());
}

#[test]
fn many_missing_internal_topics_are_summarized() {
    let t = topology(vec![sub("1").sources(&["in"]).changelogs(&[
        topic("d", 0),
        topic("c", 0),
        topic("b", 0),
        topic("a", 0),
    ])]);
    let c = ok(&t, meta(&[("in", 1)]));
    assert_eq!(
        c.status,
        status(
            MISSING_INTERNAL_TOPICS,
            "Internal topics are missing: a, b, c and 1 additional topics"
        )
    );
    let names: Vec<&str> = c
        .internal_topics_to_create
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
}

// ---- ready ----

#[test]
fn a_ready_topology() {
    let t = topology(vec![
        sub("1")
            .sources(&["in"])
            .sinks(&["r"])
            .changelogs(&[topic("c", 0)]),
        sub("0")
            .sources(&["other"])
            .reads(&[TopicInfo {
                replication_factor: 2,
                ..topic("r", 0)
            }])
            .group(&[0], &[0]),
    ]);
    let c = ok(&t, meta(&[("in", 3), ("other", 4), ("r", 4), ("c", 3)]));
    assert_eq!(c.status, None);
    assert!(c.is_ready());
    assert!(c.internal_topics_to_create.is_empty());
    let expected: BTreeMap<String, ConfiguredSubtopology> = [
        (
            "0".to_string(),
            ConfiguredSubtopology {
                num_tasks: 4,
                source_topics: ["other".to_string()].into(),
                repartition_sink_topics: BTreeSet::new(),
                repartition_source_topics: [(
                    "r".to_string(),
                    TopicInfo {
                        replication_factor: 2,
                        ..topic("r", 4)
                    },
                )]
                .into(),
                state_changelog_topics: BTreeMap::new(),
            },
        ),
        (
            "1".to_string(),
            ConfiguredSubtopology {
                num_tasks: 3,
                source_topics: ["in".to_string()].into(),
                repartition_sink_topics: ["r".to_string()].into(),
                repartition_source_topics: BTreeMap::new(),
                state_changelog_topics: [("c".to_string(), topic("c", 3))].into(),
            },
        ),
    ]
    .into();
    assert_eq!(c.subtopologies, Some(expected));
    assert_eq!(c.topology_epoch, 7);
}

#[test]
fn an_empty_topology_is_ready() {
    let c = ok(&topology(vec![]), meta(&[]));
    assert_eq!(c.subtopologies, Some(BTreeMap::new()));
    assert!(c.is_ready());
}

// ---- defensive rules ----

#[test]
fn malformed_topologies_are_invalid() {
    let m = meta(&[("in", 1)]);
    let t = topology(vec![sub("1").sources(&["in"]), sub("1").sources(&["in"])]);
    assert_eq!(err(&t, &m), "Subtopology 1 is defined more than once.");

    let t = topology(vec![sub("1").sources(&["in"]).group(&[1], &[])]);
    assert_eq!(
        err(&t, &m),
        "Copartition group 0 of subtopology 1 refers to source topic index 1, but the \
         subtopology has 1 source topics."
    );
    let t = topology(vec![sub("1")
        .sources(&["in"])
        .group(&[0], &[])
        .group(&[], &[-1])]);
    assert_eq!(
        err(&t, &m),
        "Copartition group 1 of subtopology 1 refers to repartition source topic index -1, \
         but the subtopology has 0 repartition source topics."
    );

    let t = topology(vec![sub("1").sources(&["in"]).reads(&[topic("r", -2)])]);
    assert_eq!(
        err(&t, &m),
        "Repartition source topic r has an invalid partition count -2."
    );
    let t = topology(vec![sub("1")
        .sources(&["in"])
        .changelogs(&[topic("c", -1)])]);
    assert_eq!(
        err(&t, &m),
        "Changelog topic c has an invalid partition count -1."
    );
}

#[test]
fn regex_indexes_are_ignored() {
    let mut s = sub("1").sources(&["in"]);
    s.copartition_groups.push(CopartitionGroup {
        source_topic_regex: vec![5],
        ..CopartitionGroup::default()
    });
    let c = ok(&topology(vec![s]), meta(&[("in", 2)]));
    assert!(c.is_ready());
}

// ---- required_topics and same_structure ----

#[test]
fn required_topics_cover_sources_repartition_sources_and_changelogs() {
    let t = topology(vec![
        sub("1")
            .sources(&["in", "shared"])
            .sinks(&["r", "sink-only"])
            .changelogs(&[topic("c1", 0)]),
        sub("2")
            .sources(&["shared"])
            .reads(&[topic("r", 0)])
            .changelogs(&[topic("c2", 0)]),
    ]);
    let expected: BTreeSet<String> = ["c1", "c2", "in", "r", "shared"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(t.required_topics(), expected);
}

fn rich_topology() -> StreamsTopology {
    let configs: BTreeMap<String, String> = [
        ("cleanup.policy".to_string(), "compact".to_string()),
        ("segment.ms".to_string(), "100".to_string()),
    ]
    .into();
    topology(vec![
        sub("1")
            .sources(&["a", "b"])
            .sinks(&["r1", "r2"])
            .changelogs(&[
                TopicInfo {
                    topic_configs: configs,
                    ..topic("c1", 0)
                },
                topic("c2", 0),
            ])
            .group(&[1, 0], &[]),
        sub("2")
            .reads(&[topic("r1", 0), topic("r2", 4)])
            .group(&[], &[0, 1]),
    ])
}

#[test]
fn same_structure_ignores_order_and_epoch() {
    let t = rich_topology();
    let mut other = t.clone();
    other.epoch = 99;
    other.subtopologies.reverse();
    for s in &mut other.subtopologies {
        s.source_topics.reverse();
        s.repartition_sink_topics.reverse();
        s.state_changelog_topics.reverse();
        s.repartition_source_topics.reverse();
        for g in &mut s.copartition_groups {
            g.source_topics.reverse();
            g.repartition_source_topics.reverse();
        }
    }
    // Configs are maps: rebuilding them in another order changes nothing.
    let c1 = &mut other.subtopologies[1].state_changelog_topics[1];
    assert_eq!(c1.name, "c1");
    c1.topic_configs = [
        ("segment.ms".to_string(), "100".to_string()),
        ("cleanup.policy".to_string(), "compact".to_string()),
    ]
    .into_iter()
    .collect();
    assert!(t.same_structure(&other));
    assert!(other.same_structure(&t));
    assert!(t.same_structure(&t));
}

#[test]
fn same_structure_sees_changes() {
    let t = rich_topology();
    let changed = |f: &dyn Fn(&mut StreamsTopology)| {
        let mut other = t.clone();
        f(&mut other);
        t.same_structure(&other)
    };
    assert!(!changed(&|o| {
        o.subtopologies[0].state_changelog_topics[0]
            .topic_configs
            .insert("segment.ms".into(), "200".into());
    }));
    assert!(!changed(&|o| {
        o.subtopologies[0].state_changelog_topics[1]
            .topic_configs
            .insert("retention.ms".into(), "1".into());
    }));
    assert!(!changed(
        &|o| o.subtopologies[0].source_topics[1] = "z".into()
    ));
    assert!(!changed(&|o| {
        o.subtopologies[0].repartition_sink_topics.pop();
    }));
    assert!(!changed(&|o| o.subtopologies[1]
        .repartition_source_topics[1]
        .partitions = 5));
    assert!(!changed(&|o| o.subtopologies[1].subtopology_id = "3".into()));
    assert!(!changed(&|o| o.subtopologies.truncate(1)));
    assert!(!changed(&|o| o.subtopologies[1].copartition_groups.clear()));
    assert!(!changed(&|o| {
        o.subtopologies[0].copartition_groups[0].source_topics = vec![0];
    }));
}

// ---- properties ----

/// Every topic name the generators use; sources, repartition topics and changelogs mostly
/// draw from their own part of it, with some overlap to reach odd corners.
const NAMES: [&str; 8] = ["a", "b", "c", "r1", "r2", "r3", "s1", "s2"];
/// Changelog names: their own, or a source topic's (a source table's changelog).
const CHANGELOG_NAMES: [&str; 3] = ["s1", "s2", "a"];

fn arb_name(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(names).prop_map(str::to_string)
}

fn arb_declared_count() -> impl Strategy<Value = i32> {
    prop_oneof![30 => Just(0), 15 => 1i32..4, 1 => Just(-1)]
}

fn arb_topic(names: &'static [&'static str]) -> impl Strategy<Value = TopicInfo> {
    (arb_name(names), arb_declared_count(), -1i16..3).prop_map(
        |(name, partitions, replication_factor)| TopicInfo {
            name,
            partitions,
            replication_factor,
            topic_configs: BTreeMap::new(),
        },
    )
}

fn arb_subtopology() -> impl Strategy<Value = Subtopology> {
    let indexes = || prop::collection::vec(0i16..3, 0..3);
    (
        prop::collection::vec(arb_name(&NAMES[..4]), 0..3),
        prop::collection::vec(arb_name(&NAMES[3..6]), 0..3),
        prop::collection::vec(arb_topic(&NAMES[3..6]), 0..3),
        prop::collection::vec(arb_topic(&CHANGELOG_NAMES), 0..3),
        prop::collection::vec((indexes(), indexes()), 0..3),
        prop::bool::weighted(0.02),
    )
        .prop_map(|(sources, sinks, reads, changelogs, groups, bad_index)| {
            // Indexes mostly point into their lists; rarely one points nowhere.
            let within = |indexes: Vec<i16>, len: usize| -> Vec<i16> {
                let len = i16::try_from(len).unwrap_or(i16::MAX);
                if len == 0 {
                    return Vec::new();
                }
                indexes.into_iter().map(|i| i % len).collect()
            };
            let mut copartition_groups: Vec<CopartitionGroup> = groups
                .into_iter()
                .map(|(s, r)| CopartitionGroup {
                    source_topics: within(s, sources.len()),
                    source_topic_regex: Vec::new(),
                    repartition_source_topics: within(r, reads.len()),
                })
                .collect();
            if bad_index {
                copartition_groups.push(CopartitionGroup {
                    source_topics: vec![-1],
                    ..CopartitionGroup::default()
                });
            }
            Subtopology {
                subtopology_id: String::new(),
                source_topics: sources,
                source_topic_regex: Vec::new(),
                state_changelog_topics: changelogs,
                repartition_sink_topics: sinks,
                repartition_source_topics: reads,
                copartition_groups,
            }
        })
}

/// Topologies of one to four subtopologies with distinct ids, listed in any order.
fn arb_topology() -> impl Strategy<Value = StreamsTopology> {
    (
        prop::collection::vec(arb_subtopology(), 1..5),
        any::<bool>(),
    )
        .prop_map(|(mut subtopologies, reversed)| {
            for (i, s) in subtopologies.iter_mut().enumerate() {
                s.subtopology_id = i.to_string();
            }
            if reversed {
                subtopologies.reverse();
            }
            topology(subtopologies)
        })
}

/// Source names mostly exist, internal ones half of the time; a few counts are not positive.
fn arb_metadata() -> impl Strategy<Value = BTreeMap<String, i32>> {
    let count = |present: u32| {
        prop_oneof![
            present => (1i32..6).prop_map(Some),
            10 => Just(None),
            1 => Just(Some(0)),
            1 => Just(Some(-1)),
        ]
    };
    let counts: Vec<_> = NAMES
        .iter()
        .map(|name| count(if name.len() == 1 { 150 } else { 10 }))
        .collect();
    counts.prop_map(|counts| {
        NAMES
            .iter()
            .zip(counts)
            .filter_map(|(name, n)| Some((name.to_string(), n?)))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn configure_is_total_and_deterministic(
        t in arb_topology(),
        counts in arb_metadata(),
    ) {
        let m = |topic: &str| counts.get(topic).copied();
        let first = configure(&t, m);
        prop_assert_eq!(&first, &configure(&t, m));
        let Ok(c) = first else { return Ok(()); };

        let names: Vec<&str> =
            c.internal_topics_to_create.iter().map(|t| t.name.as_str()).collect();
        prop_assert!(names.windows(2).all(|w| w[0] < w[1]));
        match &c.status {
            None => {
                prop_assert!(c.subtopologies.is_some());
                prop_assert!(c.internal_topics_to_create.is_empty());
            }
            Some(s) if s.code == MISSING_INTERNAL_TOPICS => {
                prop_assert!(c.subtopologies.is_some());
                prop_assert!(!c.internal_topics_to_create.is_empty());
            }
            Some(s) => {
                prop_assert!(s.code == MISSING_SOURCE_TOPICS
                    || s.code == INCORRECTLY_PARTITIONED_TOPICS);
                prop_assert!(c.subtopologies.is_none());
                prop_assert!(c.internal_topics_to_create.is_empty());
            }
        }
        if let Some(subtopologies) = &c.subtopologies {
            for s in subtopologies.values() {
                prop_assert!(s.num_tasks > 0);
                for topic in s.repartition_source_topics.values()
                    .chain(s.state_changelog_topics.values())
                {
                    prop_assert!(topic.partitions > 0);
                }
            }
            for topic in &c.internal_topics_to_create {
                prop_assert!(m(&topic.name).unwrap_or(0) <= 0);
                prop_assert!(topic.replication_factor == -1 || topic.replication_factor > 0);
            }
        }
        // The remaining properties need each internal topic declared once: Kafka (and kwire)
        // keep one count per topic name, so a topic declared twice may be configured with
        // two counts and checked against one.
        let mut declared = BTreeSet::new();
        let once = t.subtopologies.iter().all(|s| {
            s.repartition_source_topics
                .iter()
                .chain(&s.state_changelog_topics)
                .all(|topic| declared.insert(topic.name.as_str()))
        });
        if !once {
            return Ok(());
        }
        if c.status.as_ref().is_some_and(|s| s.code == MISSING_INTERNAL_TOPICS) {
            // Creating the listed topics makes the topology ready, configured the same way.
            let mut created = counts.clone();
            for topic in &c.internal_topics_to_create {
                created.insert(topic.name.clone(), topic.num_partitions);
            }
            let again = configure(&t, |topic: &str| created.get(topic).copied());
            prop_assert_eq!(again.as_ref().map(|a| &a.status), Ok(&None));
            prop_assert_eq!(
                again.as_ref().map(|a| &a.subtopologies),
                Ok(&c.subtopologies)
            );
        }
        if c.is_ready() {
            // Every internal topic exists with the count it was configured with.
            for s in c.subtopologies.iter().flat_map(|s| s.values()) {
                for topic in s.repartition_source_topics.values()
                    .chain(s.state_changelog_topics.values())
                {
                    prop_assert_eq!(m(&topic.name), Some(topic.partitions));
                }
            }
        }
    }

    #[test]
    fn same_structure_is_order_insensitive(
        t in arb_topology(),
    ) {
        let mut other = t.clone();
        other.subtopologies.reverse();
        for s in &mut other.subtopologies {
            s.source_topics.reverse();
            s.repartition_sink_topics.reverse();
            s.state_changelog_topics.reverse();
            s.repartition_source_topics.reverse();
            s.copartition_groups.reverse();
        }
        prop_assert!(t.same_structure(&other));
        prop_assert_eq!(t.required_topics(), other.required_topics());
    }
}
