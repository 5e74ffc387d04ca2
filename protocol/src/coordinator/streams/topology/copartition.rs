//! Copartition groups of a topology (docs/coordinator.md §2.4 step 3, step c) of
//! [`configure`](super::configure); Kafka's `CopartitionedTopicsEnforcer`): the topics each group
//! covers, and the partition count each group forces on its repartition topics.

use std::collections::{BTreeMap, BTreeSet};

use super::configured::{incorrectly_partitioned, invalid, InvalidTopology, Stop};
use super::counts::count_of;
use super::model::{Subtopology, TopicInfo};

/// Resolves every copartition group to the set of topic names it covers (regex indexes are
/// ignored), subtopologies by id and groups in list order.
pub(super) fn copartition_groups<'a>(
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

/// Step c): enforces every copartition group in turn; a group's decisions are visible to the
/// groups after it (Kafka's `enforceCopartitioning`).
pub(super) fn enforce_copartitioning(
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
pub(super) fn enforce_group(
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
