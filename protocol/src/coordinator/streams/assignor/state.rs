//! The sticky assignor's assignment in progress: members and processes numbered densely, their
//! counts and loads, the active quota, previous owners and holders, and the bookkeeping every
//! pass shares (docs/coordinator.md §2.6; terms in the [module docs](super)).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use super::super::tasks::{TaskSet, TasksTuple};
use super::spec::{GroupSpec, TaskAssignorError};
use super::table::{Task, TaskTable};

/// A process's load: tasks per member, compared exactly as a fraction.
#[derive(Debug, Clone, Copy)]
pub(super) struct Load {
    pub(super) tasks: u64,
    pub(super) members: u64,
}

impl Ord for Load {
    fn cmp(&self, other: &Self) -> Ordering {
        let lhs = u128::from(self.tasks) * u128::from(other.members);
        let rhs = u128::from(other.tasks) * u128::from(self.members);
        lhs.cmp(&rhs)
    }
}

impl PartialOrd for Load {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Load {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Load {}

/// The active quota, which shrinks as members fill up (Kafka's `computeTasksPerMember`
/// bookkeeping). It never grows.
pub(super) struct Quota {
    pub(super) tasks: u64,
    pub(super) members: u64,
    pub(super) per_member: u64,
}

impl Quota {
    pub(super) fn new(tasks: u64, members: u64) -> Self {
        Quota {
            tasks,
            members,
            per_member: ceil_div(tasks, members),
        }
    }

    /// A member now has `count` tasks: if that is the quota, the member leaves the computation.
    pub(super) fn note(&mut self, count: u64) {
        if count == self.per_member {
            self.members = self.members.saturating_sub(1);
            self.tasks = self.tasks.saturating_sub(count);
            self.per_member = ceil_div(self.tasks, self.members);
        }
    }
}

fn ceil_div(a: u64, b: u64) -> u64 {
    if b == 0 {
        0
    } else {
        a.div_ceil(b)
    }
}

pub(super) struct Member {
    pub(super) process: usize,
    /// Tasks in any role.
    pub(super) count: u64,
    pub(super) active: Vec<Task>,
    pub(super) standby: Vec<Task>,
}

pub(super) struct Process {
    /// Member indexes, in member-id order.
    pub(super) members: Vec<usize>,
    /// Tasks in any role.
    pub(super) tasks: u64,
}

impl Process {
    pub(super) fn load(&self) -> Load {
        Load {
            tasks: self.tasks,
            members: self.members.len() as u64,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Active,
    Standby,
}

/// The assignment in progress. Members are numbered in member-id order, processes in
/// process-id order.
pub(super) struct State<'a> {
    pub(super) tasks: TaskTable<'a>,
    pub(super) ids: Vec<&'a String>,
    pub(super) members: Vec<Member>,
    pub(super) processes: Vec<Process>,
    /// Each task's previous active owner (the first in member-id order).
    pub(super) prev_active: Vec<Option<usize>>,
    /// Each task's previous standby and warm-up holders, in member-id order (so sorted).
    pub(super) prev_holders: Vec<Vec<usize>>,
    /// The processes holding each task (in any role; each at most once).
    pub(super) holders: Vec<Vec<usize>>,
    pub(super) quota: Quota,
}

/// Members and processes of `spec` numbered densely (members in member-id order, processes in
/// process-id order), with no task yet.
fn numbered(spec: &GroupSpec) -> (Vec<Member>, Vec<Process>) {
    let process_index: BTreeMap<&str, usize> = spec
        .members
        .values()
        .map(|m| m.process_id.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .enumerate()
        .map(|(i, p)| (p, i))
        .collect();
    let mut processes: Vec<Process> = (0..process_index.len())
        .map(|_| Process {
            members: Vec::new(),
            tasks: 0,
        })
        .collect();
    let mut members = Vec::with_capacity(spec.members.len());
    for (mi, m) in spec.members.values().enumerate() {
        let process = process_index
            .get(m.process_id.as_str())
            .copied()
            .unwrap_or(0);
        if let Some(p) = processes.get_mut(process) {
            p.members.push(mi);
        }
        members.push(Member {
            process,
            count: 0,
            active: Vec::new(),
            standby: Vec::new(),
        });
    }
    (members, processes)
}

/// Each task's previous active owner (the first in member-id order) and its previous standby
/// and warm-up holders (in member-id order), from the members' current tasks; tasks the table
/// does not know are ignored.
fn previous(spec: &GroupSpec, tasks: &TaskTable<'_>) -> (Vec<Option<usize>>, Vec<Vec<usize>>) {
    let n = tasks.len();
    let mut prev_active = vec![None; n];
    let mut prev_holders: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (mi, m) in spec.members.values().enumerate() {
        for t in tasks.lookup(&m.active_tasks) {
            if let Some(slot @ None) = prev_active.get_mut(t as usize) {
                *slot = Some(mi);
            }
        }
        for t in tasks
            .lookup(&m.standby_tasks)
            .chain(tasks.lookup(&m.warmup_tasks))
        {
            // Each list is filled in member order, so a repeat (standby and warm-up) of this
            // member can only be the last entry.
            if let Some(list) = prev_holders.get_mut(t as usize) {
                if list.last() != Some(&mi) {
                    list.push(mi);
                }
            }
        }
    }
    (prev_active, prev_holders)
}

impl<'a> State<'a> {
    /// The start of an assignment of `spec`: no task placed, the quota at
    /// `ceil(tasks / members)`.
    ///
    /// # Errors
    /// [`TaskAssignorError`] for a negative task count or more than `u32::MAX` tasks.
    pub(super) fn new(spec: &'a GroupSpec) -> Result<Self, TaskAssignorError> {
        let tasks = TaskTable::new(&spec.subtopologies)?;
        let n = tasks.len();
        let (members, processes) = numbered(spec);
        let (prev_active, prev_holders) = previous(spec, &tasks);
        let quota = Quota::new(n as u64, members.len() as u64);
        Ok(State {
            ids: spec.members.keys().collect(),
            members,
            processes,
            prev_active,
            prev_holders,
            holders: vec![Vec::new(); n],
            quota,
            tasks,
        })
    }

    pub(super) fn count(&self, m: usize) -> u64 {
        self.members.get(m).map_or(u64::MAX, |m| m.count)
    }

    pub(super) fn process_of(&self, m: usize) -> usize {
        self.members.get(m).map_or(usize::MAX, |m| m.process)
    }

    pub(super) fn load(&self, p: usize) -> Load {
        self.processes.get(p).map_or(
            Load {
                tasks: u64::MAX,
                members: 1,
            },
            Process::load,
        )
    }

    /// Whether process `p` holds task `t` in any role.
    pub(super) fn holds(&self, p: usize, t: Task) -> bool {
        self.holders
            .get(t as usize)
            .is_some_and(|list| list.contains(&p))
    }

    /// Whether member `m` held task `t` before, in any role.
    pub(super) fn held_before(&self, m: usize, t: Task) -> bool {
        let i = t as usize;
        self.prev_active.get(i).copied().flatten() == Some(m)
            || self
                .prev_holders
                .get(i)
                .is_some_and(|l| l.binary_search(&m).is_ok())
    }

    /// Gives task `t` to member `m` in `role` (and updates the quota for an active task).
    pub(super) fn add(&mut self, m: usize, t: Task, role: Role) {
        let Some(member) = self.members.get_mut(m) else {
            return;
        };
        member.count += 1;
        let count = member.count;
        let p = member.process;
        match role {
            Role::Active => member.active.push(t),
            Role::Standby => member.standby.push(t),
        }
        if let Some(process) = self.processes.get_mut(p) {
            process.tasks += 1;
        }
        if let Some(list) = self.holders.get_mut(t as usize) {
            list.push(p);
        }
        if role == Role::Active {
            self.quota.note(count);
        }
    }

    /// The member of process `p` with the lowest count (lowest member id on ties).
    pub(super) fn least_loaded_member(&self, p: usize) -> Option<usize> {
        self.processes
            .get(p)?
            .members
            .iter()
            .copied()
            .min_by_key(|&m| (self.count(m), m))
    }

    /// The least-loaded previous standby or warm-up holder of `t` that passes `eligible`.
    pub(super) fn least_loaded_prev_holder(
        &self,
        t: Task,
        eligible: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        self.prev_holders
            .get(t as usize)?
            .iter()
            .copied()
            .filter(|&m| eligible(m))
            .min_by_key(|&m| {
                let p = self.process_of(m);
                (self.load(p), self.count(m), p, m)
            })
    }

    /// All processes, least-loaded first (ties by process id).
    pub(super) fn processes_by_load(&self) -> BTreeSet<(Load, usize)> {
        (0..self.processes.len())
            .map(|p| (self.load(p), p))
            .collect()
    }

    /// Moves the standby of `t` from member `from` to member `to`.
    pub(super) fn move_standby(
        &mut self,
        by_count: &mut BTreeSet<(u64, usize)>,
        from: usize,
        to: usize,
        t: Task,
    ) {
        let (Some(a), Some(b)) = (self.members.get(from), self.members.get(to)) else {
            return;
        };
        let (pa, pb) = (a.process, b.process);
        by_count.remove(&(a.count, from));
        by_count.remove(&(b.count, to));
        if let Some(a) = self.members.get_mut(from) {
            if let Some(i) = a.standby.iter().position(|&x| x == t) {
                a.standby.swap_remove(i);
            }
            a.count = a.count.saturating_sub(1);
            by_count.insert((a.count, from));
        }
        if let Some(b) = self.members.get_mut(to) {
            b.standby.push(t);
            b.count += 1;
            by_count.insert((b.count, to));
        }
        if let Some(p) = self.processes.get_mut(pa) {
            p.tasks = p.tasks.saturating_sub(1);
        }
        if let Some(p) = self.processes.get_mut(pb) {
            p.tasks += 1;
        }
        if let Some(list) = self.holders.get_mut(t as usize) {
            for p in list.iter_mut().filter(|p| **p == pa) {
                *p = pb;
            }
        }
    }

    /// Every member's tasks, by member id.
    pub(super) fn into_result(self) -> BTreeMap<String, TasksTuple> {
        let tasks = &self.tasks;
        let build = |list: &[Task]| {
            let mut set = TaskSet::new();
            for &t in list {
                let name = tasks.name(t);
                let (_, p) = tasks.key(t);
                match set.get_mut(name) {
                    Some(ps) => {
                        ps.insert(p);
                    }
                    None => {
                        set.insert(name.to_string(), BTreeSet::from([p]));
                    }
                }
            }
            set
        };
        self.ids
            .iter()
            .zip(&self.members)
            .map(|(id, m)| {
                let tuple = TasksTuple {
                    active: build(&m.active),
                    standby: build(&m.standby),
                    warmup: TaskSet::new(),
                };
                ((*id).clone(), tuple)
            })
            .collect()
    }
}
