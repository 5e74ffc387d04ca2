//! Fixtures and invariant checks shared by the assignor tests (`uniform`, `range`).

use super::spec::*;
use crate::wire::Uuid;
use std::collections::{BTreeMap, BTreeSet};

/// A topic id from a number (big-endian 128-bit value).
pub(crate) fn tid(n: u128) -> Uuid {
    Uuid::from_u128(n)
}

/// Topic metadata from `(id, partitions)` pairs; names are `t<index>`.
pub(crate) fn topics(list: &[(Uuid, i32)]) -> TopicsSpec {
    list.iter()
        .enumerate()
        .map(|(i, &(id, partitions))| {
            (
                id,
                TopicInfo {
                    name: format!("t{i}"),
                    partitions,
                    partition_racks: BTreeMap::new(),
                },
            )
        })
        .collect()
}

/// An assignment from `(topic, partitions)` pairs.
pub(crate) fn asg(list: &[(Uuid, &[i32])]) -> Assignment {
    list.iter()
        .filter(|(_, ps)| !ps.is_empty())
        .map(|&(t, ps)| (t, ps.iter().copied().collect()))
        .collect()
}

/// A dynamic member subscribed to `subs` whose previous target is `assigned`.
pub(crate) fn member(subs: &[Uuid], assigned: Assignment) -> MemberSpec {
    MemberSpec {
        subscribed_topic_ids: subs.iter().copied().collect(),
        assigned,
        ..Default::default()
    }
}

/// A static member (instance id `instance`).
pub(crate) fn static_member(instance: &str, subs: &[Uuid], assigned: Assignment) -> MemberSpec {
    MemberSpec {
        instance_id: Some(instance.to_string()),
        ..member(subs, assigned)
    }
}

/// Whether every member subscribes to the same topics.
pub(crate) fn subscription_type_of(members: &BTreeMap<String, MemberSpec>) -> SubscriptionType {
    let mut it = members.values().map(|m| &m.subscribed_topic_ids);
    match it.next() {
        Some(first) if it.all(|s| s == first) => SubscriptionType::Homogeneous,
        None => SubscriptionType::Homogeneous,
        Some(_) => SubscriptionType::Heterogeneous,
    }
}

/// A group with the subscription type computed from the members.
pub(crate) fn group<'a>(members: impl IntoIterator<Item = (&'a str, MemberSpec)>) -> GroupSpec {
    let members: BTreeMap<String, MemberSpec> = members
        .into_iter()
        .map(|(id, m)| (id.to_string(), m))
        .collect();
    let subscription_type = subscription_type_of(&members);
    GroupSpec {
        members,
        subscription_type,
    }
}

/// The same group with each member's previous target replaced by `result`'s.
pub(crate) fn with_previous(group: &GroupSpec, result: &GroupAssignment) -> GroupSpec {
    let mut next = group.clone();
    for (id, m) in &mut next.members {
        m.assigned = result.members.get(id).cloned().unwrap_or_default();
    }
    next
}

/// Number of partitions in one assignment.
pub(crate) fn size(a: &Assignment) -> usize {
    a.values().map(BTreeSet::len).sum()
}

/// Each member's number of partitions.
pub(crate) fn sizes(result: &GroupAssignment) -> BTreeMap<String, usize> {
    result
        .members
        .iter()
        .map(|(id, a)| (id.clone(), size(a)))
        .collect()
}

/// Largest minus smallest member size (0 for no members).
pub(crate) fn spread(result: &GroupAssignment) -> usize {
    let s = sizes(result);
    let max = s.values().copied().max().unwrap_or(0);
    let min = s.values().copied().min().unwrap_or(0);
    max - min
}

/// Partition -> owner map of an assignment.
pub(crate) fn owners(result: &GroupAssignment) -> BTreeMap<(Uuid, i32), String> {
    let mut out = BTreeMap::new();
    for (id, a) in &result.members {
        for (&t, ps) in a {
            for &p in ps {
                out.insert((t, p), id.clone());
            }
        }
    }
    out
}

/// Number of partitions whose owner changed between the group's previous targets and
/// `result` (partitions nobody had before do not count).
pub(crate) fn moves(group: &GroupSpec, result: &GroupAssignment) -> usize {
    let mut before = BTreeMap::new();
    for (id, m) in &group.members {
        for (&t, ps) in &m.assigned {
            for &p in ps {
                before.insert((t, p), id.clone());
            }
        }
    }
    let after = owners(result);
    before
        .iter()
        .filter(|(k, owner)| after.get(k).is_some_and(|o| o != *owner))
        .count()
}

/// The invariants every assignor must keep:
/// * every member of the spec appears in the result, and nobody else;
/// * a member only gets partitions of topics it subscribes to that exist in `topics`, and
///   only partition numbers in `0..partitions`;
/// * every partition of every topic that someone subscribes to (and that exists) is assigned
///   to exactly one member.
pub(crate) fn check_invariants(group: &GroupSpec, topics: &TopicsSpec, result: &GroupAssignment) {
    let ids: Vec<&String> = group.members.keys().collect();
    let got: Vec<&String> = result.members.keys().collect();
    assert_eq!(ids, got, "result members differ from the spec's");
    let mut seen: BTreeMap<Uuid, BTreeMap<i32, &str>> = BTreeMap::new();
    for (id, a) in &result.members {
        let spec = &group.members[id];
        for (t, ps) in a {
            assert!(
                spec.subscribed_topic_ids.contains(t),
                "{id} got unsubscribed topic {t:?}"
            );
            let info = topics
                .get(t)
                .unwrap_or_else(|| panic!("{id} got unknown topic {t:?}"));
            assert!(!ps.is_empty(), "{id} has an empty partition set for {t:?}");
            for &p in ps {
                assert!(
                    (0..info.partitions).contains(&p),
                    "{id} got {t:?}-{p} out of range"
                );
                if let Some(other) = seen.entry(*t).or_default().insert(p, id) {
                    panic!("{t:?}-{p} assigned to both {other} and {id}");
                }
            }
        }
    }
    let subscribed: BTreeSet<Uuid> = group
        .members
        .values()
        .flat_map(|m| m.subscribed_topic_ids.iter().copied())
        .collect();
    for t in subscribed {
        if let Some(info) = topics.get(&t) {
            let n = seen.get(&t).map_or(0, BTreeMap::len);
            assert_eq!(
                n,
                info.partitions.max(0) as usize,
                "topic {t:?}: not every partition assigned"
            );
        }
    }
}
