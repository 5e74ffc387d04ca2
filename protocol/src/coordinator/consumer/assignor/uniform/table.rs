//! What both cases of the uniform assignor work on: the topics by dense index and the
//! per-topic owner tables, and the result built from them.

use super::super::spec::{AssignorError, GroupAssignment, MemberSpec, TopicsSpec};
use crate::wire::Uuid;
use std::collections::{BTreeMap, BTreeSet};

/// Marks a partition that nobody owns in the owner tables.
pub(super) const NONE: u32 = u32::MAX;

/// The maximum number of balancing passes of the heterogeneous algorithm (Kafka's
/// `MAX_ITERATION_COUNT`).
pub(super) const MAX_ITERATION_COUNT: usize = 16;

/// The assignor's name (`UniformAssignor::NAME`).
pub(super) const NAME: &str = "uniform";

/// An assignment failure of this assignor.
pub(super) fn error(reason: String) -> AssignorError {
    AssignorError {
        assignor: NAME.to_string(),
        reason,
    }
}

/// The topics taking part in an assignment, by dense index, in ascending topic-id order.
pub(super) struct TopicTable {
    pub(super) ids: Vec<Uuid>,
    pub(super) counts: Vec<usize>,
}

impl TopicTable {
    /// The topics of `ids` (ascending, distinct) that exist in `topics`.
    pub(super) fn new<'a>(
        ids: impl Iterator<Item = &'a Uuid>,
        topics: &TopicsSpec,
    ) -> Result<Self, AssignorError> {
        let mut table = TopicTable {
            ids: Vec::new(),
            counts: Vec::new(),
        };
        for id in ids {
            let Some(info) = topics.get(id) else { continue };
            let count = usize::try_from(info.partitions).map_err(|_| {
                error(format!(
                    "topic {} ({id}) has a negative partition count {}",
                    info.name, info.partitions
                ))
            })?;
            table.ids.push(*id);
            table.counts.push(count);
        }
        Ok(table)
    }

    pub(super) fn index(&self, id: &Uuid) -> Option<usize> {
        self.ids.binary_search(id).ok()
    }

    /// One owner table per topic, every partition unowned.
    pub(super) fn empty_owners(&self) -> Vec<Vec<u32>> {
        self.counts.iter().map(|&c| vec![NONE; c]).collect()
    }
}

/// The owner slot of partition `p` (None when `p` is out of range).
pub(super) fn slot(owners: &mut [u32], p: i32) -> Option<&mut u32> {
    usize::try_from(p).ok().and_then(|p| owners.get_mut(p))
}

/// The result from per-topic owner tables: every member, each with the partitions it owns.
pub(super) fn build_result(
    members: &[(&String, &MemberSpec)],
    table: &TopicTable,
    owners: &[Vec<u32>],
) -> GroupAssignment {
    let mut out: Vec<BTreeMap<Uuid, BTreeSet<i32>>> = vec![BTreeMap::new(); members.len()];
    for (ti, own) in owners.iter().enumerate() {
        let topic = table.ids[ti];
        // Partitions come in ascending order, so each set is built by appends.
        let mut current: Option<(u32, BTreeSet<i32>)> = None;
        for (p, &o) in own.iter().enumerate() {
            if o == NONE {
                continue;
            }
            match &mut current {
                Some((owner, set)) if *owner == o => {
                    set.insert(p as i32);
                }
                _ => {
                    if let Some((owner, set)) = current.take() {
                        out[owner as usize].entry(topic).or_default().extend(set);
                    }
                    current = Some((o, BTreeSet::from([p as i32])));
                }
            }
        }
        if let Some((owner, set)) = current {
            out[owner as usize].entry(topic).or_default().extend(set);
        }
    }
    GroupAssignment {
        members: members
            .iter()
            .map(|(id, _)| (*id).clone())
            .zip(out)
            .collect(),
    }
}
