//! [`configure`]: a topology checked against the topic metadata, every partition count resolved
//! (docs/coordinator.md §2.4 step 3; Kafka's `InternalTopicManager.configureTopics`). Steps a) to
//! f) are steps 1 to 6 of the [module docs](super).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};

use super::configured::{
    incorrectly_partitioned, invalid, ConfiguredSubtopology, ConfiguredTopology, CreatableTopic,
    InvalidTopology, Stop, TopicStatus, MISSING_INTERNAL_TOPICS, MISSING_SOURCE_TOPICS,
};
use super::copartition::{copartition_groups, enforce_copartitioning};
use super::counts::{changelog_counts, max_input_count, repartition_counts, resolve_topic};
use super::model::{StreamsTopology, Subtopology, TopicInfo};

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
