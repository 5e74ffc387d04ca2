//! The topology as a member sends it and as it is persisted (KIP-1071 `Topology` of
//! StreamsGroupHeartbeatRequest, kwire's topology record): subtopologies with their topics, and
//! the order-free comparison kwire's departure D1 uses.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};

/// A topic the topology declares: a state changelog topic or a repartition source topic
/// (the `TopicInfo` of StreamsGroupHeartbeatRequest).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicInfo {
    /// The topic name.
    pub name: String,
    /// The partition count the topology demands; 0 means undefined (the coordinator decides).
    pub partitions: i32,
    /// The replication factor; 0 means the broker default.
    pub replication_factor: i16,
    /// Topic configs to create the topic with.
    pub topic_configs: BTreeMap<String, String>,
}

/// Topics of one subtopology that must be copartitioned, as indexes into the subtopology's
/// [`Subtopology::source_topics`], [`Subtopology::source_topic_regex`] and
/// [`Subtopology::repartition_source_topics`] lists.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CopartitionGroup {
    /// Indexes into [`Subtopology::source_topics`].
    pub source_topics: Vec<i16>,
    /// Indexes into [`Subtopology::source_topic_regex`]. Ignored by [`configure`]: requests with
    /// source regexes are rejected before a topology is stored (docs/coordinator.md §2.2).
    pub source_topic_regex: Vec<i16>,
    /// Indexes into [`Subtopology::repartition_source_topics`].
    pub repartition_source_topics: Vec<i16>,
}

/// One subtopology as a member sent it: the unit of work that becomes one task per partition.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subtopology {
    /// The subtopology id, unique within the topology.
    pub subtopology_id: String,
    /// External source topics (not repartition topics) the subtopology reads.
    pub source_topics: Vec<String>,
    /// Source topic regexes (never stored; see [`CopartitionGroup::source_topic_regex`]).
    pub source_topic_regex: Vec<String>,
    /// The changelog topics of the subtopology's state stores.
    pub state_changelog_topics: Vec<TopicInfo>,
    /// Repartition topics the subtopology writes.
    pub repartition_sink_topics: Vec<String>,
    /// Repartition topics the subtopology reads.
    pub repartition_source_topics: Vec<TopicInfo>,
    /// Groups of the subtopology's input topics that must have equal partition counts.
    pub copartition_groups: Vec<CopartitionGroup>,
}

/// The topology as a member sent it (and as it is persisted), subtopologies in request order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamsTopology {
    /// The topology epoch the member declared.
    pub epoch: i32,
    /// The subtopologies, in request order.
    pub subtopologies: Vec<Subtopology>,
}

/// A topic reference in its canonical (order-free) form, for [`StreamsTopology::same_structure`].
type CanonicalTopic<'a> = (&'a str, i32, i16, &'a BTreeMap<String, String>);

/// A subtopology in its canonical (order-free) form, for [`StreamsTopology::same_structure`].
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct CanonicalSubtopology<'a> {
    id: &'a str,
    source_topics: BTreeSet<&'a str>,
    source_topic_regex: BTreeSet<&'a str>,
    state_changelog_topics: BTreeSet<CanonicalTopic<'a>>,
    repartition_sink_topics: BTreeSet<&'a str>,
    repartition_source_topics: BTreeSet<CanonicalTopic<'a>>,
    copartition_groups: BTreeSet<[Vec<i16>; 3]>,
}

impl<'a> CanonicalSubtopology<'a> {
    fn of(subtopology: &'a Subtopology) -> Self {
        let names = |list: &'a [String]| list.iter().map(String::as_str).collect();
        let topics = |list: &'a [TopicInfo]| {
            list.iter()
                .map(|t| {
                    (
                        t.name.as_str(),
                        t.partitions,
                        t.replication_factor,
                        &t.topic_configs,
                    )
                })
                .collect()
        };
        let sorted = |indexes: &[i16]| {
            let mut indexes = indexes.to_vec();
            indexes.sort_unstable();
            indexes.dedup();
            indexes
        };
        CanonicalSubtopology {
            id: &subtopology.subtopology_id,
            source_topics: names(&subtopology.source_topics),
            source_topic_regex: names(&subtopology.source_topic_regex),
            state_changelog_topics: topics(&subtopology.state_changelog_topics),
            repartition_sink_topics: names(&subtopology.repartition_sink_topics),
            repartition_source_topics: topics(&subtopology.repartition_source_topics),
            copartition_groups: subtopology
                .copartition_groups
                .iter()
                .map(|g| {
                    [
                        sorted(&g.source_topics),
                        sorted(&g.source_topic_regex),
                        sorted(&g.repartition_source_topics),
                    ]
                })
                .collect(),
        }
    }
}

impl StreamsTopology {
    /// Whether `other` describes the same topology, as kwire's departure D1 compares them (a join
    /// whose topology epoch equals the group's must send the group's topology): the subtopologies
    /// are equal as sets, the epoch is not compared.
    ///
    /// Two subtopologies are equal when they have the same id, the same topic lists compared as
    /// sets (source topics, regexes, sink topics, and the changelog and repartition source
    /// [`TopicInfo`]s with their partition counts, replication factors and configs, configs
    /// compared as maps), and the same copartition groups compared as a set of sorted index lists.
    /// Indexes are compared as numbers, not resolved to topic names.
    pub fn same_structure(&self, other: &StreamsTopology) -> bool {
        fn canonical(t: &StreamsTopology) -> BTreeSet<CanonicalSubtopology<'_>> {
            t.subtopologies
                .iter()
                .map(CanonicalSubtopology::of)
                .collect()
        }
        canonical(self) == canonical(other)
    }

    /// Every topic the group needs to exist: the source topics, repartition source topics and
    /// changelog topics of all subtopologies, sorted and deduplicated (Kafka's
    /// `StreamsTopology.requiredTopics`; the input of the group's metadata hash,
    /// docs/coordinator.md §2.4 step 3). A repartition sink topic is included only as the repartition source topic of
    /// the subtopology that reads it.
    pub fn required_topics(&self) -> BTreeSet<String> {
        let mut topics = BTreeSet::new();
        for subtopology in &self.subtopologies {
            topics.extend(subtopology.source_topics.iter().cloned());
            topics.extend(
                subtopology
                    .repartition_source_topics
                    .iter()
                    .map(|t| t.name.clone()),
            );
            topics.extend(
                subtopology
                    .state_changelog_topics
                    .iter()
                    .map(|t| t.name.clone()),
            );
        }
        topics
    }
}
