//! Partition counts of a topology's internal topics (docs/coordinator.md §2.4 step 3, steps b)
//! and d) of [`configure`](super::configure)): repartition topics from their writers (Kafka's
//! `RepartitionTopics.setup`), changelog topics from their subtopology's task count (Kafka's
//! `ChangelogTopics.setup`).

use std::collections::BTreeMap;

use super::configured::{invalid, InvalidTopology};
use super::model::{Subtopology, TopicInfo};

/// The partition count of `topic`: its count in the cluster, else the count decided for it.
pub(super) fn count_of(
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
pub(super) fn repartition_counts(
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

/// The largest count over a subtopology's source and repartition source topics; `None` when it
/// reads no topic. Every such topic has a count once step b) succeeded.
pub(super) fn max_input_count(
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
pub(super) fn changelog_counts(
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
pub(super) fn resolve_topic(
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
