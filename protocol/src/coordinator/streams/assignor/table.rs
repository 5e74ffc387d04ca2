//! The tasks of a topology, densely numbered, for the sticky assignor's passes.

use std::collections::BTreeMap;

use super::super::tasks::TaskSet;
use super::spec::{SubtopologySpec, TaskAssignorError};

/// A task's dense index: subtopologies in id order, each a run of its partitions. Index order
/// is therefore (subtopology, partition) order.
pub(super) type Task = u32;

/// The tasks of the topology, densely numbered.
pub(super) struct TaskTable<'a> {
    /// Subtopology ids, in id order.
    names: Vec<&'a str>,
    /// First task index of each subtopology, and one past the last task.
    bounds: Vec<Task>,
    /// Each task's (subtopology index, partition).
    keys: Vec<(u32, i32)>,
    /// Each task's statefulness.
    stateful: Vec<bool>,
}

impl<'a> TaskTable<'a> {
    pub(super) fn new(
        subtopologies: &'a BTreeMap<String, SubtopologySpec>,
    ) -> Result<Self, TaskAssignorError> {
        let too_many = || TaskAssignorError("the topology has too many tasks".to_string());
        let mut table = TaskTable {
            names: Vec::with_capacity(subtopologies.len()),
            bounds: vec![0],
            keys: Vec::new(),
            stateful: Vec::new(),
        };
        for (si, (name, sub)) in subtopologies.iter().enumerate() {
            let Ok(count) = u32::try_from(sub.num_tasks) else {
                return Err(TaskAssignorError(format!(
                    "subtopology {name} has a negative task count {}",
                    sub.num_tasks
                )));
            };
            let si = u32::try_from(si).map_err(|_| too_many())?;
            let start = table.bounds.last().copied().unwrap_or(0);
            let end = start.checked_add(count).ok_or_else(too_many)?;
            table.names.push(name);
            table.bounds.push(end);
            table.keys.extend((0..sub.num_tasks).map(|p| (si, p)));
            table.stateful.extend((0..count).map(|_| sub.stateful));
        }
        Ok(table)
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// All task indexes, ascending.
    pub(super) fn all(&self) -> impl Iterator<Item = Task> {
        0..self.bounds.last().copied().unwrap_or(0)
    }

    /// The tasks of `set` that exist (partition in range of a known subtopology).
    pub(super) fn lookup<'s>(&'s self, set: &'s TaskSet) -> impl Iterator<Item = Task> + 's {
        set.iter().flat_map(move |(name, partitions)| {
            let (start, end) = match self.names.binary_search(&name.as_str()) {
                Ok(si) => (
                    self.bounds.get(si).copied().unwrap_or(0),
                    self.bounds.get(si + 1).copied().unwrap_or(0),
                ),
                Err(_) => (0, 0),
            };
            let count = end.saturating_sub(start);
            partitions.iter().filter_map(move |&p| {
                let p = u32::try_from(p).ok().filter(|&p| p < count)?;
                Some(start + p)
            })
        })
    }

    /// (subtopology index, partition) of a task.
    pub(super) fn key(&self, t: Task) -> (u32, i32) {
        self.keys.get(t as usize).copied().unwrap_or((u32::MAX, 0))
    }

    pub(super) fn name(&self, t: Task) -> &'a str {
        let (si, _) = self.key(t);
        self.names.get(si as usize).copied().unwrap_or("")
    }

    pub(super) fn is_stateful(&self, t: Task) -> bool {
        self.stateful.get(t as usize).copied().unwrap_or(false)
    }
}
