//! The topology of a streams group (KIP-1071) and the configuration of its topics.
//!
//! A member sends its topology when it joins: a list of subtopologies, each naming the topics it
//! reads (external source topics and repartition source topics), the repartition topics it
//! writes, its state changelog topics and its copartition groups. [`configure`] checks that
//! topology against the topic metadata the caller knows and resolves every partition count
//! (docs/coordinator.md §2.4 step 3, the work of Kafka's `InternalTopicManager`):
//!
//! 1. a source topic missing from metadata gives status [`MISSING_SOURCE_TOPICS`];
//! 2. repartition topics get their partition counts (fixed in the topology, or derived from the
//!    topics of the subtopology that writes them), failing with [`InvalidTopology`] when that is
//!    impossible;
//! 3. copartition groups are enforced ([`INCORRECTLY_PARTITIONED_TOPICS`] on a violation);
//! 4. changelog topics get the task count of their subtopology;
//! 5. existing internal topics must have the expected count ([`INCORRECTLY_PARTITIONED_TOPICS`]);
//! 6. missing internal topics are listed for creation ([`MISSING_INTERNAL_TOPICS`]).
//!
//! The result, a [`ConfiguredTopology`], is *ready* when no status was raised. Everything is
//! deterministic: subtopologies are processed in ascending id order and every collection is a
//! `BTreeMap`, a `BTreeSet` or a sorted list.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};

/// Status code: a source topic of the topology does not exist (StreamsGroupHeartbeatResponse
/// `Status.StatusCode`, docs/coordinator.md §2.10).
pub const MISSING_SOURCE_TOPICS: i8 = 1;
/// Status code: a copartition group is violated, or an existing internal topic has the wrong
/// partition count (docs/coordinator.md §2.10).
pub const INCORRECTLY_PARTITIONED_TOPICS: i8 = 2;
/// Status code: internal topics must be created first (docs/coordinator.md §2.10).
pub const MISSING_INTERNAL_TOPICS: i8 = 3;

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

/// A subtopology with every partition count resolved (Kafka's `ConfiguredSubtopology`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredSubtopology {
    /// The number of tasks: the largest partition count over the source topics and repartition
    /// source topics (docs/coordinator.md §2.1). Tasks are partitions `0..num_tasks`.
    pub num_tasks: i32,
    /// External source topics.
    pub source_topics: BTreeSet<String>,
    /// Repartition topics written.
    pub repartition_sink_topics: BTreeSet<String>,
    /// Repartition topics read, by name, with their resolved partition counts (replication factor
    /// and configs as in the topology).
    pub repartition_source_topics: BTreeMap<String, TopicInfo>,
    /// Changelog topics, by name, with their resolved partition counts (replication factor and
    /// configs as in the topology).
    pub state_changelog_topics: BTreeMap<String, TopicInfo>,
}

impl ConfiguredSubtopology {
    /// Whether the subtopology keeps state, i.e. has changelog topics; only stateful tasks get
    /// standby replicas (docs/coordinator.md §2.6).
    pub fn is_stateful(&self) -> bool {
        !self.state_changelog_topics.is_empty()
    }
}

/// An internal topic the caller must create (a CreateTopics `CreatableTopic`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatableTopic {
    /// The topic name.
    pub name: String,
    /// The resolved partition count.
    pub num_partitions: i32,
    /// The topology's replication factor, or -1 (broker default) when the topology gives none.
    pub replication_factor: i16,
    /// The topology's topic configs.
    pub configs: BTreeMap<String, String>,
}

/// A topic-configuration status (StreamsGroupHeartbeatResponse `Status`, code 1, 2 or 3), sent to
/// every member while the topology is not ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicStatus {
    /// [`MISSING_SOURCE_TOPICS`], [`INCORRECTLY_PARTITIONED_TOPICS`] or [`MISSING_INTERNAL_TOPICS`].
    pub code: i8,
    /// The status detail, as Kafka words it.
    pub detail: String,
}

impl TopicStatus {
    fn new(code: i8, detail: String) -> Self {
        TopicStatus { code, detail }
    }
}

/// The outcome of [`configure`] (Kafka's `ConfiguredTopology`).
///
/// Shapes:
/// - ready: `status` is `None`, `subtopologies` is `Some`, nothing to create;
/// - [`MISSING_INTERNAL_TOPICS`]: `subtopologies` is `Some` (every count resolved), the topics to
///   create are listed, not ready;
/// - [`MISSING_SOURCE_TOPICS`] or [`INCORRECTLY_PARTITIONED_TOPICS`]: `subtopologies` is `None`,
///   nothing to create, not ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredTopology {
    /// The epoch of the topology that was configured.
    pub topology_epoch: i32,
    /// The configured subtopologies by id, when every partition count could be resolved.
    pub subtopologies: Option<BTreeMap<String, ConfiguredSubtopology>>,
    /// Internal topics (repartition source and changelog topics) missing from metadata, sorted by
    /// name.
    pub internal_topics_to_create: Vec<CreatableTopic>,
    /// The topic-configuration status; `None` when the topology is ready.
    pub status: Option<TopicStatus>,
}

impl ConfiguredTopology {
    /// Whether tasks can be assigned: no topic-configuration status was raised.
    pub fn is_ready(&self) -> bool {
        self.status.is_none()
    }

    /// The configured subtopology `id`, if the topology was configured and has it.
    pub fn subtopology(&self, id: &str) -> Option<&ConfiguredSubtopology> {
        self.subtopologies.as_ref()?.get(id)
    }
}

/// A structurally invalid topology: the heartbeat fails with STREAMS_INVALID_TOPOLOGY (130) and
/// this message (docs/coordinator.md §2.3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidTopology(pub String);

impl InvalidTopology {
    /// The error code STREAMS_INVALID_TOPOLOGY.
    pub const ERROR_CODE: i16 = 130;
}

/// Why configuration stopped early: a status for the members, or a heartbeat error.
#[derive(Debug)]
enum Stop {
    Status(TopicStatus),
    Invalid(InvalidTopology),
}

impl From<InvalidTopology> for Stop {
    fn from(e: InvalidTopology) -> Self {
        Stop::Invalid(e)
    }
}

fn invalid(message: String) -> InvalidTopology {
    InvalidTopology(message)
}

fn incorrectly_partitioned(detail: String) -> Stop {
    Stop::Status(TopicStatus::new(INCORRECTLY_PARTITIONED_TOPICS, detail))
}

/// Configures the topics of `topology` (docs/coordinator.md §2.4 step 3; Kafka's
/// `InternalTopicManager.configureTopics`). `partitions_of` gives the partition count of a topic
/// in the cluster, `None` when the topic does not exist.
///
/// Returns the [`ConfiguredTopology`] (with a status when it is not ready, see its shapes), or
/// [`InvalidTopology`] (STREAMS_INVALID_TOPOLOGY) when the topology cannot be configured at all:
/// - `Failed to compute number of partitions for all repartition topics, because a repartition
///   source topic is never used as a sink topic.`
/// - `Failed to compute number of partitions for all repartition topics. There may be loops in
///   the topology that cannot be resolved.`
/// - `All topics in the copartition group had undefined partition number: [a, b]`
/// - `No source topics found for subtopology S` (neither source nor repartition source topics)
///
/// Defensive rules kwire adds (Kafka cannot meet these inputs or fails with an internal error),
/// all checked before anything else, in this order:
/// - two subtopologies with one id: `Subtopology S is defined more than once.`;
/// - a copartition index outside its list (negative or too large): `Copartition group N of
///   subtopology S refers to source topic index I, but the subtopology has K source topics.`
///   (`repartition source topic` for the repartition list; groups count from 0);
/// - a negative partition count in the topology: `Repartition source topic T has an invalid
///   partition count N.` (`Changelog topic T ...` for changelogs).
///
/// A partition count of 0 or less from `partitions_of` counts as a missing topic. Missing source
/// topics are checked before the errors above, as in Kafka.
///
/// Order: subtopologies are walked in ascending id order (Kafka walks a hash map), copartition
/// groups in list order, topics in name order. The order shows in two places: a repartition sink
/// gets its count as soon as one input of its writer has a count, so a writer walked before its
/// own repartition inputs are resolved settles on the counts known then (Kafka does the same);
/// and when several checks would fail, the first one met in this order is reported.
pub fn configure(
    topology: &StreamsTopology,
    partitions_of: impl Fn(&str) -> Option<i32>,
) -> Result<ConfiguredTopology, InvalidTopology> {
    let metadata = |topic: &str| partitions_of(topic).filter(|&n| n > 0);
    let subtopologies = by_id(topology)?;
    let copartition_groups = copartition_groups(&subtopologies)?;
    check_declared_counts(&subtopologies)?;

    let failed = |status: TopicStatus| ConfiguredTopology {
        topology_epoch: topology.epoch,
        subtopologies: None,
        internal_topics_to_create: Vec::new(),
        status: Some(status),
    };

    if let Some(status) = missing_source_topics(&subtopologies, &metadata) {
        return Ok(failed(status));
    }
    match configure_present(topology, &subtopologies, &copartition_groups, &metadata) {
        Ok((configured, to_create)) => {
            let status = (!to_create.is_empty()).then(|| {
                TopicStatus::new(
                    MISSING_INTERNAL_TOPICS,
                    format!(
                        "Internal topics are missing: {}",
                        summarize_topics(to_create.iter().map(|t| t.name.as_str()))
                    ),
                )
            });
            Ok(ConfiguredTopology {
                topology_epoch: topology.epoch,
                subtopologies: Some(configured),
                internal_topics_to_create: to_create,
                status,
            })
        }
        Err(Stop::Status(status)) => Ok(failed(status)),
        Err(Stop::Invalid(e)) => Err(e),
    }
}

/// The subtopologies by id (the order every step walks them in); a repeated id is invalid.
fn by_id(topology: &StreamsTopology) -> Result<BTreeMap<&str, &Subtopology>, InvalidTopology> {
    let mut subtopologies = BTreeMap::new();
    for subtopology in &topology.subtopologies {
        let id = subtopology.subtopology_id.as_str();
        if subtopologies.insert(id, subtopology).is_some() {
            return Err(invalid(format!(
                "Subtopology {id} is defined more than once."
            )));
        }
    }
    Ok(subtopologies)
}

/// Resolves every copartition group to the set of topic names it covers (regex indexes are
/// ignored), subtopologies by id and groups in list order.
fn copartition_groups<'a>(
    subtopologies: &BTreeMap<&str, &'a Subtopology>,
) -> Result<Vec<BTreeSet<&'a str>>, InvalidTopology> {
    fn resolve<'a, T>(
        list: &'a [T],
        index: i16,
        name: impl Fn(&'a T) -> &'a str,
        what: &str,
        group: usize,
        id: &str,
    ) -> Result<&'a str, InvalidTopology> {
        usize::try_from(index)
            .ok()
            .and_then(|i| list.get(i))
            .map(name)
            .ok_or_else(|| {
                invalid(format!(
                    "Copartition group {group} of subtopology {id} refers to {what} index {index}, \
                     but the subtopology has {} {what}s.",
                    list.len()
                ))
            })
    }

    let mut groups = Vec::new();
    for (&id, subtopology) in subtopologies {
        for (n, group) in subtopology.copartition_groups.iter().enumerate() {
            let mut topics = BTreeSet::new();
            for &i in &group.source_topics {
                let source = &subtopology.source_topics;
                topics.insert(resolve(source, i, String::as_str, "source topic", n, id)?);
            }
            for &i in &group.repartition_source_topics {
                let repartition = &subtopology.repartition_source_topics;
                let name = |t: &'a TopicInfo| t.name.as_str();
                topics.insert(resolve(
                    repartition,
                    i,
                    name,
                    "repartition source topic",
                    n,
                    id,
                )?);
            }
            groups.push(topics);
        }
    }
    Ok(groups)
}

/// Rejects negative partition counts in the topology (0 means undefined).
fn check_declared_counts(
    subtopologies: &BTreeMap<&str, &Subtopology>,
) -> Result<(), InvalidTopology> {
    for subtopology in subtopologies.values() {
        let declared = subtopology
            .repartition_source_topics
            .iter()
            .map(|t| ("Repartition source topic", t))
            .chain(
                subtopology
                    .state_changelog_topics
                    .iter()
                    .map(|t| ("Changelog topic", t)),
            );
        for (kind, topic) in declared {
            if topic.partitions < 0 {
                return Err(invalid(format!(
                    "{kind} {} has an invalid partition count {}.",
                    topic.name, topic.partitions
                )));
            }
        }
    }
    Ok(())
}

/// Step a): the status for source topics missing from metadata, if any.
fn missing_source_topics(
    subtopologies: &BTreeMap<&str, &Subtopology>,
    metadata: &impl Fn(&str) -> Option<i32>,
) -> Option<TopicStatus> {
    let missing: BTreeSet<&str> = subtopologies
        .values()
        .flat_map(|s| s.source_topics.iter().map(String::as_str))
        .filter(|topic| metadata(topic).is_none())
        .collect();
    (!missing.is_empty()).then(|| {
        TopicStatus::new(
            MISSING_SOURCE_TOPICS,
            format!(
                "Source topics {} are missing.",
                summarize_topics(missing.iter().copied())
            ),
        )
    })
}

/// Lists at most three topic names, then ` and K additional topics` (Kafka's `summarizeTopics`).
fn summarize_topics<'a>(topics: impl ExactSizeIterator<Item = &'a str>) -> String {
    const SHOWN: usize = 3;
    let total = topics.len();
    let mut summary = topics.take(SHOWN).collect::<Vec<_>>().join(", ");
    if total > SHOWN {
        summary.push_str(&format!(" and {} additional topics", total - SHOWN));
    }
    summary
}

/// Steps b) to f), once every source topic exists: the configured subtopologies and the internal
/// topics to create, sorted by name.
fn configure_present(
    topology: &StreamsTopology,
    subtopologies: &BTreeMap<&str, &Subtopology>,
    copartition_groups: &[BTreeSet<&str>],
    metadata: &impl Fn(&str) -> Option<i32>,
) -> Result<(BTreeMap<String, ConfiguredSubtopology>, Vec<CreatableTopic>), Stop> {
    // Partition counts decided for internal topics; an existing topic's own count wins over a
    // decision whenever a step reads a count (Kafka's `getPartitionCount`).
    let mut decided = repartition_counts(subtopologies, metadata)?;
    enforce_copartitioning(subtopologies, copartition_groups, metadata, &mut decided)?;
    let changelogs = changelog_counts(subtopologies, metadata, &decided)?;
    decided.extend(changelogs);

    let mut configured = BTreeMap::new();
    for (&id, subtopology) in subtopologies {
        configured.insert(
            id.to_string(),
            configure_subtopology(subtopology, metadata, &decided)?,
        );
    }
    let to_create = missing_internal_topics(topology, &configured, metadata)?;
    Ok((configured, to_create))
}

/// The partition count of `topic`: its count in the cluster, else the count decided for it.
fn count_of(
    topic: &str,
    metadata: &impl Fn(&str) -> Option<i32>,
    decided: &BTreeMap<String, i32>,
) -> Option<i32> {
    metadata(topic).or_else(|| decided.get(topic).copied())
}

/// Step b): partition counts of repartition topics (Kafka's `RepartitionTopics.setup`).
///
/// A count the topology gives is kept. Otherwise passes over the subtopologies give each
/// repartition sink topic the largest count among the writing subtopology's external source
/// topics and its repartition source topics whose count is already known; a pass that resolves
/// nothing while sinks remain unresolved means a loop. At most one pass per sink plus one runs.
fn repartition_counts(
    subtopologies: &BTreeMap<&str, &Subtopology>,
    metadata: &impl Fn(&str) -> Option<i32>,
) -> Result<BTreeMap<String, i32>, InvalidTopology> {
    let mut counts = BTreeMap::new();
    for subtopology in subtopologies.values() {
        for topic in &subtopology.repartition_source_topics {
            if topic.partitions != 0 {
                counts.insert(topic.name.clone(), topic.partitions);
            }
        }
    }

    loop {
        let mut unresolved = false;
        let mut progress = false;
        for subtopology in subtopologies.values() {
            for sink in &subtopology.repartition_sink_topics {
                if counts.contains_key(sink) {
                    continue;
                }
                let known_repartition = subtopology
                    .repartition_source_topics
                    .iter()
                    .filter_map(|t| counts.get(&t.name).copied());
                let external = subtopology.source_topics.iter().filter_map(|t| metadata(t));
                match known_repartition.chain(external).max() {
                    Some(count) => {
                        counts.insert(sink.clone(), count);
                        progress = true;
                    }
                    None => unresolved = true,
                }
            }
        }
        if !unresolved {
            break;
        }
        if !progress {
            return Err(invalid(
                "Failed to compute number of partitions for all repartition topics. There may be \
                 loops in the topology that cannot be resolved."
                    .to_string(),
            ));
        }
    }

    let never_written = subtopologies
        .values()
        .flat_map(|s| &s.repartition_source_topics)
        .any(|t| !counts.contains_key(&t.name));
    if never_written {
        return Err(invalid(
            "Failed to compute number of partitions for all repartition topics, because a \
             repartition source topic is never used as a sink topic."
                .to_string(),
        ));
    }
    Ok(counts)
}

/// Step c): enforces every copartition group in turn; a group's decisions are visible to the
/// groups after it (Kafka's `enforceCopartitioning`).
fn enforce_copartitioning(
    subtopologies: &BTreeMap<&str, &Subtopology>,
    copartition_groups: &[BTreeSet<&str>],
    metadata: &impl Fn(&str) -> Option<i32>,
    decided: &mut BTreeMap<String, i32>,
) -> Result<(), Stop> {
    let mut fixed = BTreeSet::new();
    let mut flexible = BTreeSet::new();
    for subtopology in subtopologies.values() {
        for topic in &subtopology.repartition_source_topics {
            if topic.partitions != 0 {
                fixed.insert(topic.name.as_str());
            } else {
                flexible.insert(topic.name.as_str());
            }
        }
    }
    for group in copartition_groups {
        let coerced = enforce_group(group, &fixed, &flexible, |topic| {
            count_of(topic, metadata, decided)
        })?;
        decided.extend(coerced);
    }
    Ok(())
}

/// Renders a map as Java's `TreeMap.toString` does: `{a=3, b=6}`.
fn java_map(counts: &BTreeMap<&str, i32>) -> String {
    let entries: Vec<String> = counts.iter().map(|(t, n)| format!("{t}={n}")).collect();
    format!("{{{}}}", entries.join(", "))
}

/// One copartition group (Kafka's `CopartitionedTopicsEnforcer.enforce`); returns the count every
/// repartition topic of the group must take.
///
/// - Only repartition topics, some with a fixed count: the group's fixed counts must agree (kwire
///   considers the group's fixed topics; Kafka 4.2 compares every fixed topic of the topology, in
///   hash order). That count is used.
/// - Only repartition topics, none fixed: the largest count is used.
/// - External topics present: they must all have the same count, which is used.
///
/// A fixed repartition topic whose count differs from the one used is a violation.
fn enforce_group(
    group: &BTreeSet<&str>,
    fixed: &BTreeSet<&str>,
    flexible: &BTreeSet<&str>,
    count: impl Fn(&str) -> Option<i32>,
) -> Result<BTreeMap<String, i32>, Stop> {
    if group.is_empty() {
        return Ok(BTreeMap::new());
    }
    let count_or_fail = |topic: &str| {
        count(topic).ok_or_else(|| {
            invalid(format!(
                "Number of partitions is not set for topic: {topic}"
            ))
        })
    };
    let mut repartition = BTreeMap::new();
    let mut external = BTreeMap::new();
    for &topic in group {
        let n = count_or_fail(topic)?;
        if fixed.contains(topic) || flexible.contains(topic) {
            repartition.insert(topic, n);
        } else {
            external.insert(topic, n);
        }
    }
    let not_equal = |counts: &BTreeMap<&str, i32>| {
        incorrectly_partitioned(format!(
            "Following topics do not have the same number of partitions: [{}]",
            java_map(counts)
        ))
    };

    let target = if let Some(&first) = external.values().next() {
        if external.values().any(|&n| n != first) {
            return Err(not_equal(&external));
        }
        first
    } else {
        let mut fixed_counts = repartition
            .iter()
            .filter(|(t, _)| fixed.contains(*t))
            .map(|(_, &n)| n);
        if let Some(first) = fixed_counts.next() {
            if fixed_counts.any(|n| n != first) {
                return Err(not_equal(&repartition));
            }
            first
        } else {
            let max = repartition.values().fold(0, |max, &n| max.max(n));
            if max == 0 {
                let topics: Vec<&str> = repartition.keys().copied().collect();
                return Err(Stop::Invalid(invalid(format!(
                    "All topics in the copartition group had undefined partition number: [{}]",
                    topics.join(", ")
                ))));
            }
            max
        }
    };

    let mut coerced = BTreeMap::new();
    for (&topic, &n) in &repartition {
        if fixed.contains(topic) && n != target {
            return Err(incorrectly_partitioned(format!(
                "Number of partitions [{n}] of repartition topic [{topic}] doesn't match number \
                 of partitions [{target}] of the source topic."
            )));
        }
        coerced.insert(topic.to_string(), target);
    }
    Ok(coerced)
}

/// The largest count over a subtopology's source and repartition source topics; `None` when it
/// reads no topic. Every such topic has a count once step b) succeeded.
fn max_input_count(
    subtopology: &Subtopology,
    metadata: &impl Fn(&str) -> Option<i32>,
    decided: &BTreeMap<String, i32>,
) -> Result<Option<i32>, InvalidTopology> {
    let inputs = subtopology.source_topics.iter().map(String::as_str).chain(
        subtopology
            .repartition_source_topics
            .iter()
            .map(|t| t.name.as_str()),
    );
    let mut max = None;
    for topic in inputs {
        let n = count_of(topic, metadata, decided)
            .ok_or_else(|| invalid(format!("No partition count for source topic {topic}")))?;
        max = Some(max.map_or(n, |m: i32| m.max(n)));
    }
    Ok(max)
}

/// Step d): every changelog topic gets the task count of its subtopology (Kafka's
/// `ChangelogTopics.setup`).
fn changelog_counts(
    subtopologies: &BTreeMap<&str, &Subtopology>,
    metadata: &impl Fn(&str) -> Option<i32>,
    decided: &BTreeMap<String, i32>,
) -> Result<BTreeMap<String, i32>, InvalidTopology> {
    let mut counts = BTreeMap::new();
    for (&id, subtopology) in subtopologies {
        let Some(max) = max_input_count(subtopology, metadata, decided)? else {
            return Err(invalid(format!(
                "No source topics found for subtopology {id}"
            )));
        };
        for topic in &subtopology.state_changelog_topics {
            counts.insert(topic.name.clone(), max);
        }
    }
    Ok(counts)
}

/// A declared topic with its resolved count: the topology's count if it gives one, else the
/// decided one.
fn resolve_topic(
    topic: &TopicInfo,
    decided: &BTreeMap<String, i32>,
) -> Result<TopicInfo, InvalidTopology> {
    let partitions = if topic.partitions != 0 {
        topic.partitions
    } else {
        decided.get(&topic.name).copied().ok_or_else(|| {
            invalid(format!(
                "Number of partitions must be set for topic {}",
                topic.name
            ))
        })?
    };
    Ok(TopicInfo {
        partitions,
        ..topic.clone()
    })
}

/// Kafka's `fromPersistedSubtopology`.
fn configure_subtopology(
    subtopology: &Subtopology,
    metadata: &impl Fn(&str) -> Option<i32>,
    decided: &BTreeMap<String, i32>,
) -> Result<ConfiguredSubtopology, InvalidTopology> {
    let num_tasks = max_input_count(subtopology, metadata, decided)?.ok_or_else(|| {
        invalid(format!(
            "No source topics found for subtopology {}",
            subtopology.subtopology_id
        ))
    })?;
    let resolve_all =
        |topics: &[TopicInfo]| -> Result<BTreeMap<String, TopicInfo>, InvalidTopology> {
            topics
                .iter()
                .map(|t| Ok((t.name.clone(), resolve_topic(t, decided)?)))
                .collect()
        };
    Ok(ConfiguredSubtopology {
        num_tasks,
        source_topics: subtopology.source_topics.iter().cloned().collect(),
        repartition_sink_topics: subtopology
            .repartition_sink_topics
            .iter()
            .cloned()
            .collect(),
        repartition_source_topics: resolve_all(&subtopology.repartition_source_topics)?,
        state_changelog_topics: resolve_all(&subtopology.state_changelog_topics)?,
    })
}

/// Steps e) and f): existing internal topics must have the expected count; the others are to be
/// created (Kafka's `missingInternalTopics`). Topics are checked in name order.
fn missing_internal_topics(
    topology: &StreamsTopology,
    configured: &BTreeMap<String, ConfiguredSubtopology>,
    metadata: &impl Fn(&str) -> Option<i32>,
) -> Result<Vec<CreatableTopic>, Stop> {
    let mut expected = BTreeMap::new();
    for subtopology in configured.values() {
        let internal = subtopology
            .repartition_source_topics
            .values()
            .chain(subtopology.state_changelog_topics.values());
        for topic in internal {
            let creatable = CreatableTopic {
                name: topic.name.clone(),
                num_partitions: topic.partitions,
                replication_factor: if topic.replication_factor > 0 {
                    topic.replication_factor
                } else {
                    -1
                },
                configs: topic.topic_configs.clone(),
            };
            expected.insert(topic.name.clone(), creatable);
        }
    }
    for topic in topology.required_topics() {
        let Some(found) = metadata(&topic) else {
            continue;
        };
        if let Some(wanted) = expected.remove(&topic) {
            if wanted.num_partitions != found {
                return Err(incorrectly_partitioned(format!(
                    "Existing topic {topic} has different number of partitions: expected {}, \
                     found {found}",
                    wanted.num_partitions
                )));
            }
        }
    }
    Ok(expected.into_values().collect())
}

#[cfg(test)]
mod tests {
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
}
