//! Task sets of streams groups (KIP-1071): a task is (subtopology id, partition), and a member
//! holds tasks in three roles, active, standby and warm-up (docs/coordinator.md §2.1).

use std::collections::{BTreeMap, BTreeSet};

/// Tasks by subtopology id: subtopology → partitions. A subtopology with no partitions is never
/// stored (see [`TasksTuple::normalize`]).
pub type TaskSet = BTreeMap<String, BTreeSet<i32>>;

/// The three roles of a streams member's tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskRole {
    /// The task is processed here.
    Active,
    /// A hot copy of the task's state is kept here.
    Standby,
    /// A copy being caught up before it becomes active (KIP-1071; docs/coordinator.md §2.12).
    Warmup,
}

impl TaskRole {
    /// All roles in the order Kafka lists them.
    pub const ALL: [TaskRole; 3] = [TaskRole::Active, TaskRole::Standby, TaskRole::Warmup];
}

/// A member's tasks in each role (Kafka's `TasksTuple`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TasksTuple {
    /// Active tasks.
    pub active: TaskSet,
    /// Standby tasks.
    pub standby: TaskSet,
    /// Warm-up tasks.
    pub warmup: TaskSet,
}

impl TasksTuple {
    /// No task in any role.
    pub fn empty() -> Self {
        TasksTuple::default()
    }

    /// The tasks of one role.
    pub fn get(&self, role: TaskRole) -> &TaskSet {
        match role {
            TaskRole::Active => &self.active,
            TaskRole::Standby => &self.standby,
            TaskRole::Warmup => &self.warmup,
        }
    }

    /// The tasks of one role, mutably.
    pub fn get_mut(&mut self, role: TaskRole) -> &mut TaskSet {
        match role {
            TaskRole::Active => &mut self.active,
            TaskRole::Standby => &mut self.standby,
            TaskRole::Warmup => &mut self.warmup,
        }
    }

    /// Whether no role holds a task.
    pub fn is_empty(&self) -> bool {
        TaskRole::ALL
            .iter()
            .all(|r| self.get(*r).values().all(BTreeSet::is_empty))
    }

    /// Removes subtopologies without partitions, so that equal task sets compare equal.
    pub fn normalize(&mut self) {
        for r in TaskRole::ALL {
            self.get_mut(r).retain(|_, ps| !ps.is_empty());
        }
    }

    /// Whether `(subtopology, partition)` is held in `role`.
    pub fn contains(&self, role: TaskRole, subtopology: &str, partition: i32) -> bool {
        self.get(role)
            .get(subtopology)
            .is_some_and(|ps| ps.contains(&partition))
    }

    /// Every (role, subtopology, partition) held, in role, subtopology, partition order.
    pub fn iter(&self) -> impl Iterator<Item = (TaskRole, &str, i32)> + '_ {
        TaskRole::ALL.into_iter().flat_map(move |r| {
            self.get(r)
                .iter()
                .flat_map(move |(s, ps)| ps.iter().map(move |p| (r, s.as_str(), *p)))
        })
    }

    /// Number of tasks over all roles.
    pub fn len(&self) -> usize {
        TaskRole::ALL
            .iter()
            .map(|r| self.get(*r).values().map(BTreeSet::len).sum::<usize>())
            .sum()
    }
}

/// Adds one task to a [`TaskSet`].
pub fn insert_task(set: &mut TaskSet, subtopology: &str, partition: i32) {
    set.entry(subtopology.to_string())
        .or_default()
        .insert(partition);
}

/// A task offset a member reported (docs/coordinator.md, D2): (subtopology, partition) → offset.
pub type TaskOffsets = BTreeMap<(String, i32), i64>;
