//! The server-side task assignor of streams groups (KIP-1071; docs/coordinator.md §2.6): the
//! [`TaskAssignor`] trait, its input ([`GroupSpec`]) and the built-in [`StickyTaskAssignor`].
//!
//! A streams group runs a topology made of subtopologies; subtopology `s` with `n` tasks has the
//! tasks `(s, 0)` to `(s, n - 1)`. The assignor gives every task one *active* owner and, for
//! stateful subtopologies, up to `num.standby.replicas` *standby* copies on other processes.
//!
//! # The sticky assignor
//!
//! It follows Kafka 4.2's `StickyTaskAssignor` (apache/kafka,
//! `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/streams/assignor/`), with
//! the changes listed under *Departures*. Terms:
//!
//! * a member's *count* is its number of tasks in any role (during the active pass: its active
//!   tasks);
//! * a process's *load* is the count of all its members divided by its number of members,
//!   compared exactly as a fraction;
//! * the *active quota* starts at `ceil(tasks / members)`; whenever a member's count reaches the
//!   current quota exactly, that member and its tasks leave the computation and the quota becomes
//!   `ceil(remaining tasks / remaining members)`. A member only takes an active task while its
//!   count is below the current quota.
//!
//! Active tasks:
//!
//! 1. Tasks are taken in (partition, subtopology) order.
//! 2. A task goes back to its previous active owner if that member is below the quota.
//! 3. Otherwise it goes to the least-loaded previous standby or warm-up holder of the task that
//!    is below the quota.
//! 4. The remaining tasks are taken in (subtopology, partition) order; each goes to the
//!    least-loaded process that has a member below the quota, and within it to the member with
//!    the lowest count.
//!
//! Standby tasks (only when `num.standby.replicas > 0`, only for stateful subtopologies):
//!
//! 5. Tasks are taken in descending (partition, subtopology) order. Each wanted replica goes to
//!    the previous active owner if its process does not hold the task yet, else to the
//!    least-loaded previous standby or warm-up holder whose process does not hold the task. The
//!    first replica that neither can take, and all later replicas of that task, are deferred.
//! 6. Deferred replicas are taken in descending (subtopology, partition) order; each goes to the
//!    least-loaded process that does not hold the task, and within it to the member with the
//!    lowest count. When every process holds the task, the remaining replicas are dropped.
//! 7. Balancing: a standby moves from a member to one with at least two tasks fewer (counting
//!    both roles) whose process does not hold the task (or is the same process). Members are
//!    visited by descending count (then member id), each member's standbys by whether it held
//!    them before (new ones move first) and then descending task; each standby goes to the
//!    member with the lowest count (then member id) that may take it. Passes repeat until one
//!    moves nothing.
//!
//! "Least-loaded" compares (process load, member count) and breaks ties by process id and then
//! member id, so the result is a pure function of the [`GroupSpec`].
//!
//! Guarantees:
//! * every task has exactly one active owner (when the group has a member);
//! * with `T` tasks and `M` members, `T mod M` members get `ceil(T / M)` active tasks and the
//!   others `floor(T / M)`;
//! * a process never holds two copies of a task (active and standby, or two standbys), and each
//!   stateful task gets `min(num.standby.replicas, processes - 1)` standbys;
//! * no standby can move to a member with two tasks fewer (see step 7);
//! * stability: assigning the same group again, with the result as the previous tasks, gives
//!   the same result (the active quota keeps every previous task of a balanced assignment,
//!   step 5 keeps every previous standby, and step 7 finds nothing to move);
//! * warm-up tasks are only placed by the refinement below, which is off when
//!   `num_warmup_replicas` is 0.
//!
//! # Warm-up tasks
//!
//! With `num_warmup_replicas > 0` the balanced assignment is refined ([`refine_warmups`]): a
//! stateful task whose new active owner's process is not caught up on it (lag, from the
//! members' task offsets and end offsets, above `acceptable_recovery_lag`) stays active on its
//! previous owner, and the new owner gets a warm-up copy (at most `num_warmup_replicas` in the
//! group) until it has caught up. The balanced assignment itself is computed as if each such
//! task had already moved to its warm-up holder, so a recomputation keeps the warm-up where it
//! is (stability holds with warm-ups too). The balance guarantees above hold for the balanced
//! assignment; the refined one moves the held-back tasks from their new owners to their
//! previous owners.
//!
//! # Departures (kwire)
//!
//! Kafka's assignor is not stable: its step 4 ignores the quota, so a member of a busy process
//! can end with two tasks fewer than others, and its standby steps only keep a previous standby
//! while the member is below a total quota (`ceil((tasks + stateful tasks x replicas) / members)`)
//! that step 6 itself does not respect, for example when a process with several members can
//! hold only one copy of each task. Feeding such a result back moves tasks again. kwire:
//!
//! * restricts step 4 to processes with a member below the quota, which makes the active counts
//!   exactly balanced;
//! * drops the total quota from step 5 and balances standbys with step 7 instead;
//! * breaks ties by process id and member id (Kafka leaves them to hash order);
//! * gives a task listed as previous active by several members back only to the first of them
//!   in member-id order;
//! * treats previous warm-up tasks like previous standby tasks (both hold the task's state);
//! * in step 3, picks the least-loaded holder among those below the quota (Kafka picks the
//!   least-loaded holder and gives up if it is at the quota);
//! * ignores previous tasks of unknown subtopologies or outside `0..num_tasks`;
//! * rejects a negative `num_tasks`; a negative `num_standby_replicas` means none.
//!
//! # Cost
//!
//! Steps 1 to 6: O((T + S) log P + T·k + S·R·P + previous tasks), for T tasks, S standby
//! replicas, R = `num.standby.replicas`, P processes and k members in the largest process (the
//! S·R·P term, finding a process without the task, is small for the usual R of 1 or 2). Each
//! balancing pass costs O(S·(log M + j)), where M is the number of members and j the number of
//! members of processes holding the task; each move lowers the sum of squared member counts by
//! at least two, and the passes end with one that moves nothing.

use super::tasks::{insert_task, TaskOffsets, TaskSet, TasksTuple};
use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet};

/// What the assignor knows of one member: its current tasks (the assigned ones, without those
/// pending revocation), as Kafka 4.4's `TargetAssignmentBuilder` gives them, not its last target.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AssignmentMemberSpec {
    /// The static member's instance id, if any.
    pub instance_id: Option<String>,
    /// The rack the member runs in, if it said (unused by the sticky assignor).
    pub rack_id: Option<String>,
    /// The process (Kafka Streams client) the member runs in; members of one process share
    /// its state directory. May be empty, which is just another process id.
    pub process_id: String,
    /// Client tags (unused by the sticky assignor).
    pub client_tags: BTreeMap<String, String>,
    /// Previous target active tasks.
    pub active_tasks: TaskSet,
    /// Previous target standby tasks.
    pub standby_tasks: TaskSet,
    /// Previous target warm-up tasks.
    pub warmup_tasks: TaskSet,
    /// The member's latest `TaskOffsets`: (subtopology, partition) → changelog offset sum of
    /// its local state for that task (StreamsGroupHeartbeatRequest; -2 means a running active
    /// task, Kafka Streams' `LATEST_OFFSET`).
    pub task_offsets: TaskOffsets,
    /// The member's latest `TaskEndOffsets`: (subtopology, partition) → changelog end offset
    /// sum of that task.
    pub task_end_offsets: TaskOffsets,
    /// Whether the member may receive warm-up tasks (it heartbeats with
    /// StreamsGroupHeartbeat v1 or later; see [`refine_warmups`]).
    pub warmups_allowed: bool,
}

/// One subtopology of the configured topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubtopologySpec {
    /// Number of tasks (partitions `0..num_tasks`); Kafka's maximum number of input
    /// partitions of the subtopology.
    pub num_tasks: i32,
    /// Whether the subtopology has state stores (only stateful tasks get standbys).
    pub stateful: bool,
}

/// The group as the assignor sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupSpec {
    /// Members by member id.
    pub members: BTreeMap<String, AssignmentMemberSpec>,
    /// Subtopologies by subtopology id.
    pub subtopologies: BTreeMap<String, SubtopologySpec>,
    /// Standby replicas wanted per stateful task (`num.standby.replicas`).
    pub num_standby_replicas: i32,
    /// The most warm-up tasks the group may hold at once (`num.warmup.replicas`); 0 or less
    /// turns warm-ups off (see [`refine_warmups`]).
    pub num_warmup_replicas: i32,
    /// The largest lag (offsets) at which a process counts as caught up on a task
    /// (`acceptable.recovery.lag`).
    pub acceptable_recovery_lag: i64,
}

/// A task assignor failure (answered as UNKNOWN_SERVER_ERROR).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("task assignment failed: {0}")]
pub struct TaskAssignorError(pub String);

/// A server-side task assignor for streams groups (KIP-1071).
///
/// Implementations must be deterministic: the same spec gives the same assignment.
pub trait TaskAssignor: Send + Sync + std::fmt::Debug {
    /// The assignor's name (e.g. `"sticky"`).
    fn name(&self) -> &str;
    /// Computes every member's target tasks. Every member of `spec` gets an entry (possibly
    /// an empty [`TasksTuple`]); warm-up tasks only go to members with `warmups_allowed`, and
    /// only when `num_warmup_replicas > 0`.
    ///
    /// # Errors
    /// [`TaskAssignorError`] when the spec cannot be assigned.
    fn assign(&self, spec: &GroupSpec) -> Result<BTreeMap<String, TasksTuple>, TaskAssignorError>;
}

/// The sticky task assignor (`"sticky"`, Kafka's default for streams groups). See the
/// [module documentation](self) for the algorithm and its tie-breaks.
///
/// [`assign`](TaskAssignor::assign) fails only when a subtopology has a negative task count or
/// the topology has more than `u32::MAX` tasks.
#[derive(Debug, Clone, Copy, Default)]
pub struct StickyTaskAssignor;

impl StickyTaskAssignor {
    /// The assignor's name: `"sticky"`.
    pub const NAME: &'static str = "sticky";
}

impl TaskAssignor for StickyTaskAssignor {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn assign(&self, spec: &GroupSpec) -> Result<BTreeMap<String, TasksTuple>, TaskAssignorError> {
        let warmups = spec.num_warmup_replicas > 0;
        // A task held back on its previous owner while a warm-up catches up counts, for the
        // balanced assignment, as the warm-up holder's (see `refine_warmups`).
        let desired = if warmups {
            intended(spec)
        } else {
            Cow::Borrowed(spec)
        };
        let mut state = State::new(&desired)?;
        state.assign_active()?;
        let replicas = u64::try_from(spec.num_standby_replicas).unwrap_or(0);
        if replicas > 0 {
            state.assign_standby(replicas);
            state.balance_standby();
        }
        let mut result = state.into_result();
        if warmups {
            refine_warmups(spec, &mut result);
        }
        Ok(result)
    }
}

/// Kafka Streams' `Task.LATEST_OFFSET`: the offset sum a member reports for a task it runs as
/// active; such a member is caught up on the task by definition.
pub const LATEST_OFFSET: i64 = -2;

/// The task offsets and end offsets of a [`GroupSpec`], indexed by task.
struct Reports<'a> {
    /// Each task's reported offset sums: (member id, offset).
    offsets: BTreeMap<(&'a str, i32), Vec<(&'a str, i64)>>,
    /// Each task's reported end offset sums: (member id, end offset).
    ends: BTreeMap<(&'a str, i32), Vec<(&'a str, i64)>>,
}

/// Whether `o` is an offset sum (not a sentinel such as -1, -2 or `i64::MAX`).
fn valid_offset(o: i64) -> bool {
    (0..i64::MAX).contains(&o)
}

impl<'a> Reports<'a> {
    fn new(spec: &'a GroupSpec) -> Self {
        let mut offsets: BTreeMap<(&str, i32), Vec<(&str, i64)>> = BTreeMap::new();
        let mut ends: BTreeMap<(&str, i32), Vec<(&str, i64)>> = BTreeMap::new();
        for (id, m) in &spec.members {
            for ((s, p), o) in &m.task_offsets {
                offsets.entry((s.as_str(), *p)).or_default().push((id, *o));
            }
            for ((s, p), o) in &m.task_end_offsets {
                if valid_offset(*o) {
                    ends.entry((s.as_str(), *p)).or_default().push((id, *o));
                }
            }
        }
        Reports { offsets, ends }
    }

    /// The lag of member `id` on task `(s, p)`: 0 if it reports [`LATEST_OFFSET`]; otherwise
    /// its end offset sum (its own report, else the largest any member reported) minus its
    /// offset sum (0 without a valid report), never below 0. `None` when no end offset of the
    /// task is known.
    fn member_lag(&self, id: &str, s: &str, p: i32) -> Option<i64> {
        let offset = self
            .offsets
            .get(&(s, p))
            .and_then(|l| l.iter().find(|(m, _)| *m == id))
            .map(|&(_, o)| o);
        if offset == Some(LATEST_OFFSET) {
            return Some(0);
        }
        let ends = self.ends.get(&(s, p))?;
        let end = ends
            .iter()
            .find(|(m, _)| *m == id)
            .or_else(|| ends.iter().max_by_key(|(_, e)| *e))
            .map(|&(_, e)| e)?;
        let from = offset.filter(|&o| valid_offset(o)).unwrap_or(0);
        Some(end.saturating_sub(from).max(0))
    }
}

/// The lag (offsets) of `process` on task `(subtopology, partition)`: the smallest lag of its
/// members that [`GroupSpec`] lists, where a member's lag is the task's end offset sum (its own
/// `TaskEndOffsets` entry, else the largest any member reported) minus its `TaskOffsets` entry
/// (0 without one; [`LATEST_OFFSET`] means caught up), and an unknown lag (no end offset known
/// for the task) counts as 0.
pub fn process_lag(spec: &GroupSpec, process: &str, subtopology: &str, partition: i32) -> i64 {
    let reports = Reports::new(spec);
    spec.members
        .iter()
        .filter(|(_, m)| m.process_id == process)
        .map(|(id, _)| reports.member_lag(id, subtopology, partition).unwrap_or(0))
        .min()
        .unwrap_or(0)
}

/// Whether some of the `warmups` (a member's target warm-up tasks) has caught up: its lag,
/// computed as in [`process_lag`] from the member's own (`TaskOffsets`, `TaskEndOffsets`) in
/// `own` and, for a task without its own end offset, the largest end offset in `others`
/// (member id → (`TaskOffsets`, `TaskEndOffsets`)), is at most `acceptable_recovery_lag`. The
/// coordinator then computes a new target, which promotes the warm-up (docs/coordinator.md
/// §2.12).
pub fn warmup_caught_up(
    own: (Option<&TaskOffsets>, Option<&TaskOffsets>),
    others: Option<&BTreeMap<String, (TaskOffsets, TaskOffsets)>>,
    warmups: &TaskSet,
    acceptable_recovery_lag: i64,
) -> bool {
    let (offsets, ends) = own;
    warmups.iter().any(|(s, ps)| {
        ps.iter().any(|&p| {
            let key = (s.clone(), p);
            let offset = offsets.and_then(|o| o.get(&key)).copied();
            if offset == Some(LATEST_OFFSET) {
                return true;
            }
            let end = ends
                .and_then(|e| e.get(&key))
                .copied()
                .filter(|&e| valid_offset(e))
                .or_else(|| {
                    others
                        .into_iter()
                        .flat_map(|m| m.values())
                        .filter_map(|(_, e)| e.get(&key).copied().filter(|&e| valid_offset(e)))
                        .max()
                });
            let Some(end) = end else { return true };
            let from = offset.filter(|&o| valid_offset(o)).unwrap_or(0);
            end.saturating_sub(from).max(0) <= acceptable_recovery_lag
        })
    })
}

/// The spec the balanced assignment is computed from when warm-ups are on: a task that a member
/// holds as a previous warm-up while another member holds it as previous active counts as the
/// warm-up holder's active task and as the other member's standby, so the sticky assignor
/// reproduces the assignment the warm-up is for, and [`refine_warmups`] holds the task back
/// again until the warm-up has caught up.
fn intended(spec: &GroupSpec) -> Cow<'_, GroupSpec> {
    if spec.members.values().all(|m| m.warmup_tasks.is_empty()) {
        return Cow::Borrowed(spec);
    }
    let mut prev_active: BTreeMap<(&str, i32), &str> = BTreeMap::new();
    for (id, m) in &spec.members {
        for (s, ps) in &m.active_tasks {
            for p in ps {
                prev_active.entry((s.as_str(), *p)).or_insert(id.as_str());
            }
        }
    }
    let mut moves: Vec<(String, String, String, i32)> = Vec::new();
    let mut seen: BTreeSet<(&str, i32)> = BTreeSet::new();
    for (id, m) in &spec.members {
        for (s, ps) in &m.warmup_tasks {
            for p in ps {
                let key = (s.as_str(), *p);
                if let Some(&owner) = prev_active.get(&key) {
                    if owner != id.as_str() && seen.insert(key) {
                        moves.push((id.clone(), owner.to_string(), s.clone(), *p));
                    }
                }
            }
        }
    }
    if moves.is_empty() {
        return Cow::Borrowed(spec);
    }
    let mut out = spec.clone();
    for (to, from, s, p) in moves {
        if let Some(m) = out.members.get_mut(&from) {
            remove_task(&mut m.active_tasks, &s, p);
            insert_task(&mut m.standby_tasks, &s, p);
        }
        if let Some(m) = out.members.get_mut(&to) {
            remove_task(&mut m.warmup_tasks, &s, p);
            insert_task(&mut m.active_tasks, &s, p);
        }
    }
    Cow::Owned(out)
}

fn remove_task(set: &mut TaskSet, s: &str, p: i32) {
    if let Some(ps) = set.get_mut(s) {
        ps.remove(&p);
        if ps.is_empty() {
            set.remove(s);
        }
    }
}

/// Places warm-up tasks into a balanced assignment (kwire's refinement; Kafka 4.4 calls this
/// step `AssignmentRefiner.refine`, which in 4.4.0 returns the assignment unchanged, so the
/// real broker assigns no warm-up task; docs/coordinator.md §2.12).
///
/// A stateful task whose new active owner A (a member with `warmups_allowed`) runs in a process
/// that is not caught up on it (its [`process_lag`] is above `acceptable_recovery_lag`) while
/// the task's previous active owner B (another process, still a member) runs it, stays active on
/// B for now (B's process drops any standby copy of it), and A gets:
/// * a warm-up task of it, while fewer than `num_warmup_replicas` warm-ups are placed: tasks A
///   already warmed up come first, then (subtopology, partition) order (a previous standby of A
///   turns into the warm-up in place), else
/// * a standby of it, if A held a standby of it before, else
/// * nothing: the task moves in a later assignment, when a warm-up in flight has been promoted
///   and frees its place.
///
/// Once A's process reports a lag within `acceptable_recovery_lag`, the next assignment gives
/// A the task as active; reconciliation turns A's warm-up into the active task in place.
/// Does nothing when `num_warmup_replicas` is 0 or less. A process still never holds two copies
/// of a task, every task keeps exactly one active owner, and only members with
/// `warmups_allowed` get warm-up tasks.
pub fn refine_warmups(spec: &GroupSpec, result: &mut BTreeMap<String, TasksTuple>) {
    let Ok(mut budget) = usize::try_from(spec.num_warmup_replicas) else {
        return;
    };
    if budget == 0 {
        return;
    }
    let reports = Reports::new(spec);
    let mut prev_active: BTreeMap<(&str, i32), &str> = BTreeMap::new();
    for (id, m) in &spec.members {
        for (s, ps) in &m.active_tasks {
            for p in ps {
                prev_active.entry((s.as_str(), *p)).or_insert(id.as_str());
            }
        }
    }
    let mut by_process: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, m) in &spec.members {
        by_process.entry(&m.process_id).or_default().push(id);
    }
    let caught_up = |process: &str, s: &str, p: i32| {
        by_process.get(process).is_none_or(|ms| {
            ms.iter()
                .any(|id| reports.member_lag(id, s, p).unwrap_or(0) <= spec.acceptable_recovery_lag)
        })
    };
    // (not a previous warm-up of A, subtopology, partition, A, B)
    let mut held: Vec<(bool, String, i32, String, &str)> = Vec::new();
    for (a, tuple) in result.iter() {
        let Some(am) = spec.members.get(a) else {
            continue;
        };
        if !am.warmups_allowed {
            continue;
        }
        for (s, ps) in &tuple.active {
            if !spec.subtopologies.get(s).is_some_and(|x| x.stateful) {
                continue;
            }
            for &p in ps {
                let Some(&b) = prev_active.get(&(s.as_str(), p)) else {
                    continue;
                };
                let Some(bm) = spec.members.get(b) else {
                    continue;
                };
                if b == a.as_str() || bm.process_id == am.process_id {
                    continue;
                }
                if caught_up(&am.process_id, s, p) {
                    continue;
                }
                let warmed = am.warmup_tasks.get(s).is_some_and(|x| x.contains(&p));
                held.push((!warmed, s.clone(), p, a.clone(), b));
            }
        }
    }
    held.sort();
    for (_, s, p, a, b) in held {
        let Some(b_process) = spec.members.get(b).map(|m| m.process_id.as_str()) else {
            continue;
        };
        if let Some(t) = result.get_mut(&a) {
            remove_task(&mut t.active, &s, p);
        }
        for x in by_process.get(b_process).into_iter().flatten() {
            if let Some(t) = result.get_mut(*x) {
                remove_task(&mut t.standby, &s, p);
                remove_task(&mut t.warmup, &s, p);
            }
        }
        if let Some(t) = result.get_mut(b) {
            insert_task(&mut t.active, &s, p);
        }
        let had_standby = spec
            .members
            .get(&a)
            .is_some_and(|m| m.standby_tasks.get(&s).is_some_and(|x| x.contains(&p)));
        if let Some(t) = result.get_mut(&a) {
            if budget > 0 {
                insert_task(&mut t.warmup, &s, p);
                budget -= 1;
            } else if had_standby {
                insert_task(&mut t.standby, &s, p);
            }
        }
    }
}

/// A task's dense index: subtopologies in id order, each a run of its partitions. Index order
/// is therefore (subtopology, partition) order.
type Task = u32;

/// The tasks of the topology, densely numbered.
struct TaskTable<'a> {
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
    fn new(
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

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// All task indexes, ascending.
    fn all(&self) -> impl Iterator<Item = Task> {
        0..self.bounds.last().copied().unwrap_or(0)
    }

    /// The tasks of `set` that exist (partition in range of a known subtopology).
    fn lookup<'s>(&'s self, set: &'s TaskSet) -> impl Iterator<Item = Task> + 's {
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
    fn key(&self, t: Task) -> (u32, i32) {
        self.keys.get(t as usize).copied().unwrap_or((u32::MAX, 0))
    }

    fn name(&self, t: Task) -> &'a str {
        let (si, _) = self.key(t);
        self.names.get(si as usize).copied().unwrap_or("")
    }

    fn is_stateful(&self, t: Task) -> bool {
        self.stateful.get(t as usize).copied().unwrap_or(false)
    }
}

/// A process's load: tasks per member, compared exactly as a fraction.
#[derive(Debug, Clone, Copy)]
struct Load {
    tasks: u64,
    members: u64,
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
struct Quota {
    tasks: u64,
    members: u64,
    per_member: u64,
}

impl Quota {
    fn new(tasks: u64, members: u64) -> Self {
        Quota {
            tasks,
            members,
            per_member: ceil_div(tasks, members),
        }
    }

    /// A member now has `count` tasks: if that is the quota, the member leaves the computation.
    fn note(&mut self, count: u64) {
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

struct Member {
    process: usize,
    /// Tasks in any role.
    count: u64,
    active: Vec<Task>,
    standby: Vec<Task>,
}

struct Process {
    /// Member indexes, in member-id order.
    members: Vec<usize>,
    /// Tasks in any role.
    tasks: u64,
}

impl Process {
    fn load(&self) -> Load {
        Load {
            tasks: self.tasks,
            members: self.members.len() as u64,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Active,
    Standby,
}

/// The assignment in progress. Members are numbered in member-id order, processes in
/// process-id order.
struct State<'a> {
    tasks: TaskTable<'a>,
    ids: Vec<&'a String>,
    members: Vec<Member>,
    processes: Vec<Process>,
    /// Each task's previous active owner (the first in member-id order).
    prev_active: Vec<Option<usize>>,
    /// Each task's previous standby and warm-up holders, in member-id order (so sorted).
    prev_holders: Vec<Vec<usize>>,
    /// The processes holding each task (in any role; each at most once).
    holders: Vec<Vec<usize>>,
    quota: Quota,
}

impl<'a> State<'a> {
    fn new(spec: &'a GroupSpec) -> Result<Self, TaskAssignorError> {
        let tasks = TaskTable::new(&spec.subtopologies)?;
        let n = tasks.len();
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
        let mut prev_active = vec![None; n];
        let mut prev_holders: Vec<Vec<usize>> = vec![Vec::new(); n];
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
            for t in tasks.lookup(&m.active_tasks) {
                if let Some(slot @ None) = prev_active.get_mut(t as usize) {
                    *slot = Some(mi);
                }
            }
            for t in tasks
                .lookup(&m.standby_tasks)
                .chain(tasks.lookup(&m.warmup_tasks))
            {
                // Each list is filled in member order, so a repeat (standby and warm-up) of
                // this member can only be the last entry.
                if let Some(list) = prev_holders.get_mut(t as usize) {
                    if list.last() != Some(&mi) {
                        list.push(mi);
                    }
                }
            }
        }
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

    fn count(&self, m: usize) -> u64 {
        self.members.get(m).map_or(u64::MAX, |m| m.count)
    }

    fn process_of(&self, m: usize) -> usize {
        self.members.get(m).map_or(usize::MAX, |m| m.process)
    }

    fn load(&self, p: usize) -> Load {
        self.processes.get(p).map_or(
            Load {
                tasks: u64::MAX,
                members: 1,
            },
            Process::load,
        )
    }

    /// Whether process `p` holds task `t` in any role.
    fn holds(&self, p: usize, t: Task) -> bool {
        self.holders
            .get(t as usize)
            .is_some_and(|list| list.contains(&p))
    }

    /// Whether member `m` held task `t` before, in any role.
    fn held_before(&self, m: usize, t: Task) -> bool {
        let i = t as usize;
        self.prev_active.get(i).copied().flatten() == Some(m)
            || self
                .prev_holders
                .get(i)
                .is_some_and(|l| l.binary_search(&m).is_ok())
    }

    /// Gives task `t` to member `m` in `role` (and updates the quota for an active task).
    fn add(&mut self, m: usize, t: Task, role: Role) {
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
    fn least_loaded_member(&self, p: usize) -> Option<usize> {
        self.processes
            .get(p)?
            .members
            .iter()
            .copied()
            .min_by_key(|&m| (self.count(m), m))
    }

    /// The least-loaded previous standby or warm-up holder of `t` that passes `eligible`.
    fn least_loaded_prev_holder(&self, t: Task, eligible: impl Fn(usize) -> bool) -> Option<usize> {
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
    fn processes_by_load(&self) -> BTreeSet<(Load, usize)> {
        (0..self.processes.len())
            .map(|p| (self.load(p), p))
            .collect()
    }

    /// Steps 1 to 4 of the module documentation.
    fn assign_active(&mut self) -> Result<(), TaskAssignorError> {
        if self.members.is_empty() {
            return Ok(());
        }
        let mut order: Vec<Task> = self.tasks.all().collect();
        order.sort_unstable_by_key(|&t| {
            let (si, p) = self.tasks.key(t);
            (p, si)
        });

        let mut rest = Vec::new();
        for t in order {
            match self.prev_active.get(t as usize).copied().flatten() {
                Some(m) if self.count(m) < self.quota.per_member => self.add(m, t, Role::Active),
                _ => rest.push(t),
            }
        }

        let mut unassigned = Vec::new();
        for t in rest {
            let quota = self.quota.per_member;
            match self.least_loaded_prev_holder(t, |m| self.count(m) < quota) {
                Some(m) => self.add(m, t, Role::Active),
                None => unassigned.push(t),
            }
        }

        unassigned.sort_unstable();
        let mut by_load = self.processes_by_load();
        for t in unassigned {
            // A process whose members are all at the quota stays so: counts only grow and the
            // quota only shrinks.
            let (p, m) = loop {
                let Some((_, p)) = by_load.pop_first() else {
                    return Err(TaskAssignorError(format!(
                        "no member available for active task {}-{}",
                        self.tasks.name(t),
                        self.tasks.key(t).1
                    )));
                };
                let quota = self.quota.per_member;
                if let Some(m) = self
                    .least_loaded_member(p)
                    .filter(|&m| self.count(m) < quota)
                {
                    break (p, m);
                }
            };
            self.add(m, t, Role::Active);
            by_load.insert((self.load(p), p));
        }
        Ok(())
    }

    /// Steps 5 and 6 of the module documentation.
    fn assign_standby(&mut self, replicas: u64) {
        let mut order: Vec<Task> = self
            .tasks
            .all()
            .filter(|&t| self.tasks.is_stateful(t))
            .collect();
        order.sort_unstable_by_key(|&t| {
            let (si, p) = self.tasks.key(t);
            Reverse((p, si))
        });

        let mut deferred: Vec<(Task, u64)> = Vec::new();
        for t in order {
            for placed in 0..replicas {
                let free = |m: usize| !self.holds(self.process_of(m), t);
                let prev = self
                    .prev_active
                    .get(t as usize)
                    .copied()
                    .flatten()
                    .filter(|&m| free(m));
                match prev.or_else(|| self.least_loaded_prev_holder(t, free)) {
                    Some(m) => self.add(m, t, Role::Standby),
                    None => {
                        deferred.push((t, replicas - placed));
                        break;
                    }
                }
            }
        }

        // Descending task index order is descending (subtopology, partition) order.
        deferred.sort_unstable_by_key(|&(t, _)| Reverse(t));
        let mut by_load = self.processes_by_load();
        for (t, remaining) in deferred {
            for _ in 0..remaining {
                let free = by_load.iter().find(|&&(_, p)| !self.holds(p, t)).copied();
                let Some(entry @ (_, p)) = free else {
                    break;
                };
                by_load.remove(&entry);
                if let Some(m) = self.least_loaded_member(p) {
                    self.add(m, t, Role::Standby);
                }
                by_load.insert((self.load(p), p));
            }
        }
    }

    /// Step 7 of the module documentation.
    fn balance_standby(&mut self) {
        let mut by_count: BTreeSet<(u64, usize)> = self
            .members
            .iter()
            .enumerate()
            .map(|(m, member)| (member.count, m))
            .collect();
        loop {
            let mut moved = false;
            let mut order: Vec<usize> = (0..self.members.len()).collect();
            order.sort_unstable_by_key(|&m| (Reverse(self.count(m)), m));
            for from in order {
                let mut standbys = self
                    .members
                    .get(from)
                    .map_or_else(Vec::new, |m| m.standby.clone());
                standbys.sort_unstable_by_key(|&t| (self.held_before(from, t), Reverse(t)));
                for t in standbys {
                    if let Some(to) = self.balance_target(&by_count, from, t) {
                        self.move_standby(&mut by_count, from, to, t);
                        moved = true;
                    }
                }
            }
            if !moved {
                break;
            }
        }
    }

    /// The member with the lowest count (then member id) that may take `from`'s standby of
    /// `t` and has at least two tasks fewer than `from`.
    fn balance_target(
        &self,
        by_count: &BTreeSet<(u64, usize)>,
        from: usize,
        t: Task,
    ) -> Option<usize> {
        let limit = self.count(from).checked_sub(2)?;
        let home = self.process_of(from);
        by_count
            .iter()
            .take_while(|&&(c, _)| c <= limit)
            .map(|&(_, m)| m)
            .find(|&m| {
                let p = self.process_of(m);
                p == home || !self.holds(p, t)
            })
    }

    /// Moves the standby of `t` from member `from` to member `to`.
    fn move_standby(
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
    fn into_result(self) -> BTreeMap<String, TasksTuple> {
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

#[cfg(test)]
mod tests {
    use super::super::tasks::{insert_task, TaskRole};
    use super::*;
    use proptest::prelude::*;

    /// A task set from `(subtopology, partitions)` pairs.
    fn ts(list: &[(&str, &[i32])]) -> TaskSet {
        list.iter()
            .filter(|(_, ps)| !ps.is_empty())
            .map(|&(s, ps)| (s.to_string(), ps.iter().copied().collect()))
            .collect()
    }

    /// A member of `process` without previous tasks.
    fn member(process: &str) -> AssignmentMemberSpec {
        AssignmentMemberSpec {
            process_id: process.to_string(),
            ..Default::default()
        }
    }

    /// A member of `process` with previous active and standby tasks.
    fn prev(process: &str, active: TaskSet, standby: TaskSet) -> AssignmentMemberSpec {
        AssignmentMemberSpec {
            active_tasks: active,
            standby_tasks: standby,
            ..member(process)
        }
    }

    /// A group spec from members, `(subtopology, tasks, stateful)` and the standby count.
    fn group(
        members: Vec<(&str, AssignmentMemberSpec)>,
        subtopologies: &[(&str, i32, bool)],
        num_standby_replicas: i32,
    ) -> GroupSpec {
        GroupSpec {
            members: members
                .into_iter()
                .map(|(id, m)| (id.to_string(), m))
                .collect(),
            subtopologies: subtopologies
                .iter()
                .map(|&(s, num_tasks, stateful)| {
                    (
                        s.to_string(),
                        SubtopologySpec {
                            num_tasks,
                            stateful,
                        },
                    )
                })
                .collect(),
            num_standby_replicas,
            ..Default::default()
        }
    }

    fn run(spec: &GroupSpec) -> BTreeMap<String, TasksTuple> {
        let result = StickyTaskAssignor.assign(spec).expect("assign");
        check_invariants(spec, &result);
        result
    }

    /// `(active, standby)` of one member.
    fn tasks_of(result: &BTreeMap<String, TasksTuple>, id: &str) -> (TaskSet, TaskSet) {
        let t = &result[id];
        (t.active.clone(), t.standby.clone())
    }

    fn size(set: &TaskSet) -> usize {
        set.values().map(BTreeSet::len).sum()
    }

    /// The same group with each member's previous tasks replaced by `result`'s.
    fn with_previous(spec: &GroupSpec, result: &BTreeMap<String, TasksTuple>) -> GroupSpec {
        let mut next = spec.clone();
        for (id, m) in &mut next.members {
            let t = result.get(id).cloned().unwrap_or_default();
            m.active_tasks = t.active;
            m.standby_tasks = t.standby;
            m.warmup_tasks = t.warmup;
        }
        next
    }

    /// The invariants that hold for every spec:
    /// * the result has exactly the spec's members, no warm-up tasks and no empty sets;
    /// * every task of every subtopology has exactly one active owner, and nothing else is
    ///   assigned;
    /// * active counts are balanced: `T mod M` members have `ceil(T / M)`, the rest
    ///   `floor(T / M)`;
    /// * no process holds two copies of a task;
    /// * stateless tasks have no standbys, and stateful ones
    ///   `min(num_standby_replicas, processes - 1)`;
    /// * no standby could move to a member with two tasks fewer (step 7 finished).
    fn check_invariants(spec: &GroupSpec, result: &BTreeMap<String, TasksTuple>) {
        let ids: Vec<&String> = spec.members.keys().collect();
        let got: Vec<&String> = result.keys().collect();
        assert_eq!(ids, got, "result members differ from the spec's");
        let processes: BTreeSet<&str> = spec
            .members
            .values()
            .map(|m| m.process_id.as_str())
            .collect();
        let total: usize = spec
            .subtopologies
            .values()
            .map(|s| s.num_tasks as usize)
            .sum();
        let floor = total / spec.members.len().max(1);
        let extra = total % spec.members.len().max(1);
        let mut active: BTreeMap<(&str, i32), &str> = BTreeMap::new();
        let mut standbys: BTreeMap<(&str, i32), usize> = BTreeMap::new();
        let mut copies: BTreeSet<(&str, &str, i32)> = BTreeSet::new();
        for (id, t) in result {
            assert!(t.warmup.is_empty(), "{id} got warm-up tasks");
            let process = spec.members[id].process_id.as_str();
            for (role, s, p) in t.iter() {
                let sub = spec
                    .subtopologies
                    .get(s)
                    .unwrap_or_else(|| panic!("{id} got unknown subtopology {s}"));
                assert!((0..sub.num_tasks).contains(&p), "{id} got {s}-{p}");
                assert!(
                    copies.insert((process, s, p)),
                    "process {process} holds {s}-{p} twice"
                );
                match role {
                    TaskRole::Active => {
                        if let Some(other) = active.insert((s, p), id) {
                            panic!("{s}-{p} active on {other} and {id}");
                        }
                    }
                    _ => *standbys.entry((s, p)).or_default() += 1,
                }
            }
            for set in [&t.active, &t.standby] {
                assert!(set.values().all(|ps| !ps.is_empty()), "{id}: empty set");
            }
        }
        let replicas = usize::try_from(spec.num_standby_replicas).unwrap_or(0);
        let wanted = replicas.min(processes.len().saturating_sub(1));
        for (s, sub) in &spec.subtopologies {
            for p in 0..sub.num_tasks {
                if !spec.members.is_empty() {
                    assert!(active.contains_key(&(s.as_str(), p)), "{s}-{p} unassigned");
                }
                let n = standbys.get(&(s.as_str(), p)).copied().unwrap_or(0);
                let expected = if sub.stateful { wanted } else { 0 };
                assert_eq!(n, expected, "{s}-{p}: standby count");
            }
        }
        let sizes: Vec<usize> = result.values().map(|t| size(&t.active)).collect();
        assert!(
            sizes.iter().all(|&n| n == floor || n == floor + 1),
            "active counts {sizes:?} are not {floor} or {}",
            floor + 1
        );
        let big = sizes.iter().filter(|&&n| n > floor).count();
        assert_eq!(big, extra, "active counts {sizes:?}");
        // Step 7: no standby of `from` may go to a member with two tasks fewer.
        let count = |id: &str| result[id].len();
        for (from, t) in result {
            let home = spec.members[from].process_id.as_str();
            for (s, ps) in &t.standby {
                for &p in ps {
                    for (to, m) in &spec.members {
                        let process = m.process_id.as_str();
                        let free = process == home || !copies.contains(&(process, s, p));
                        assert!(
                            !(free && count(to) + 2 <= count(from)),
                            "standby {s}-{p} of {from} could move to {to}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn name_is_sticky() {
        assert_eq!(StickyTaskAssignor.name(), "sticky");
    }

    #[test]
    fn no_members_gives_nothing() {
        let spec = group(vec![], &[("s", 4, true)], 1);
        assert_eq!(run(&spec), BTreeMap::new());
    }

    #[test]
    fn negative_task_count_is_an_error() {
        let spec = group(vec![("m1", member("p1"))], &[("s", -1, true)], 0);
        let err = StickyTaskAssignor.assign(&spec).unwrap_err();
        assert_eq!(
            err.to_string(),
            "task assignment failed: subtopology s has a negative task count -1"
        );
    }

    #[test]
    fn one_member_gets_everything() {
        let spec = group(
            vec![("m1", member("p1"))],
            &[("a", 3, true), ("b", 2, false)],
            1,
        );
        let result = run(&spec);
        assert_eq!(
            tasks_of(&result, "m1"),
            (ts(&[("a", &[0, 1, 2]), ("b", &[0, 1])]), ts(&[]))
        );
    }

    #[test]
    fn two_members_split_six_tasks() {
        let spec = group(
            vec![("m1", member("p1")), ("m2", member("p2"))],
            &[("s", 6, false)],
            0,
        );
        let result = run(&spec);
        // Alternating: the tie between the two empty processes goes to p1.
        assert_eq!(result["m1"].active, ts(&[("s", &[0, 2, 4])]));
        assert_eq!(result["m2"].active, ts(&[("s", &[1, 3, 5])]));
    }

    #[test]
    fn previous_owners_keep_tasks_within_quota_when_a_member_joins() {
        let spec = group(
            vec![
                ("m1", prev("p1", ts(&[("s", &[0, 2, 4])]), ts(&[]))),
                ("m2", prev("p2", ts(&[("s", &[1, 3, 5])]), ts(&[]))),
                ("m3", member("p3")),
            ],
            &[("s", 6, false)],
            0,
        );
        let result = run(&spec);
        // Quota 2: m1 and m2 keep their two lowest partitions, the new member gets the rest.
        assert_eq!(result["m1"].active, ts(&[("s", &[0, 2])]));
        assert_eq!(result["m2"].active, ts(&[("s", &[1, 3])]));
        assert_eq!(result["m3"].active, ts(&[("s", &[4, 5])]));
    }

    #[test]
    fn tasks_of_a_leaving_member_are_spread() {
        let spec = group(
            vec![
                ("m1", prev("p1", ts(&[("s", &[0, 1])]), ts(&[]))),
                ("m2", prev("p2", ts(&[("s", &[2, 3])]), ts(&[]))),
            ],
            &[("s", 6, false)],
            0,
        );
        // m3 had 4 and 5.
        let result = run(&spec);
        assert_eq!(result["m1"].active, ts(&[("s", &[0, 1, 4])]));
        assert_eq!(result["m2"].active, ts(&[("s", &[2, 3, 5])]));
    }

    #[test]
    fn standbys_go_to_the_other_process() {
        let spec = group(
            vec![("m1", member("p1")), ("m2", member("p2"))],
            &[("s", 4, true), ("t", 2, false)],
            1,
        );
        let result = run(&spec);
        assert_eq!(
            tasks_of(&result, "m1"),
            (ts(&[("s", &[0, 2]), ("t", &[0])]), ts(&[("s", &[1, 3])]))
        );
        assert_eq!(
            tasks_of(&result, "m2"),
            (ts(&[("s", &[1, 3]), ("t", &[1])]), ts(&[("s", &[0, 2])]))
        );
    }

    #[test]
    fn no_standbys_when_all_members_share_one_process() {
        let spec = group(
            vec![
                ("m1", member("p")),
                ("m2", member("p")),
                ("m3", member("p")),
            ],
            &[("s", 6, true)],
            2,
        );
        let result = run(&spec);
        for (id, t) in &result {
            assert_eq!(size(&t.active), 2, "{id}");
            assert!(t.standby.is_empty(), "{id}");
        }
    }

    #[test]
    fn stateless_subtopologies_get_no_standbys() {
        let spec = group(
            vec![
                ("m1", member("p1")),
                ("m2", member("p2")),
                ("m3", member("p3")),
            ],
            &[("s", 5, false)],
            2,
        );
        let result = run(&spec);
        assert!(result.values().all(|t| t.standby.is_empty()));
        assert_eq!(
            result.values().map(|t| size(&t.active)).collect::<Vec<_>>(),
            vec![2, 2, 1]
        );
    }

    #[test]
    fn members_of_one_process_share_its_load() {
        let spec = group(
            vec![
                ("a1", member("A")),
                ("a2", member("A")),
                ("b1", member("B")),
            ],
            &[("s", 6, false)],
            0,
        );
        let result = run(&spec);
        // A has two members, so it takes two tasks for each one B takes.
        assert_eq!(result["a1"].active, ts(&[("s", &[0, 3])]));
        assert_eq!(result["a2"].active, ts(&[("s", &[2, 5])]));
        assert_eq!(result["b1"].active, ts(&[("s", &[1, 4])]));
    }

    #[test]
    fn previous_standby_becomes_active_when_the_owner_is_gone() {
        // m1 (gone) had 0 and 1 active, m4 kept standbys of them.
        let spec = group(
            vec![
                ("m2", prev("p2", ts(&[("s", &[2, 3])]), ts(&[]))),
                ("m3", member("p3")),
                ("m4", prev("p4", ts(&[]), ts(&[("s", &[0, 1])]))),
            ],
            &[("s", 4, false)],
            0,
        );
        let result = run(&spec);
        assert_eq!(result["m2"].active, ts(&[("s", &[2, 3])]));
        // Quota 1 after m2 is full: m4 takes back 0, the new member gets 1.
        assert_eq!(result["m4"].active, ts(&[("s", &[0])]));
        assert_eq!(result["m3"].active, ts(&[("s", &[1])]));
    }

    #[test]
    fn warmup_holder_counts_as_previous_holder() {
        let spec = group(
            vec![
                ("m1", member("p1")),
                (
                    "m2",
                    AssignmentMemberSpec {
                        warmup_tasks: ts(&[("s", &[0])]),
                        ..member("p2")
                    },
                ),
            ],
            &[("s", 2, false)],
            0,
        );
        let result = run(&spec);
        assert_eq!(result["m2"].active, ts(&[("s", &[0])]));
        assert_eq!(result["m1"].active, ts(&[("s", &[1])]));
    }

    #[test]
    fn previous_active_owner_keeps_a_standby_copy() {
        let spec = group(
            vec![
                ("m1", prev("p1", ts(&[("s", &[0, 1, 2, 3])]), ts(&[]))),
                ("m2", member("p2")),
            ],
            &[("s", 4, true)],
            1,
        );
        let result = run(&spec);
        assert_eq!(
            tasks_of(&result, "m1"),
            (ts(&[("s", &[0, 1])]), ts(&[("s", &[2, 3])]))
        );
        assert_eq!(
            tasks_of(&result, "m2"),
            (ts(&[("s", &[2, 3])]), ts(&[("s", &[0, 1])]))
        );
    }

    #[test]
    fn standbys_rebalance_when_a_process_joins() {
        let spec = group(
            vec![
                (
                    "m1",
                    prev("p1", ts(&[("s", &[0, 1, 2])]), ts(&[("s", &[3, 4, 5])])),
                ),
                (
                    "m2",
                    prev("p2", ts(&[("s", &[3, 4, 5])]), ts(&[("s", &[0, 1, 2])])),
                ),
                ("m3", member("p3")),
            ],
            &[("s", 6, true)],
            1,
        );
        let result = run(&spec);
        // Actives: quota 2, m3 gets the two that m1 and m2 gave up. Standbys: the previous
        // owners keep theirs (5 tasks each), then step 7 moves one from each to m3.
        assert_eq!(
            tasks_of(&result, "m1"),
            (ts(&[("s", &[0, 1])]), ts(&[("s", &[2, 3])]))
        );
        assert_eq!(
            tasks_of(&result, "m2"),
            (ts(&[("s", &[3, 4])]), ts(&[("s", &[0, 5])]))
        );
        assert_eq!(
            tasks_of(&result, "m3"),
            (ts(&[("s", &[2, 5])]), ts(&[("s", &[1, 4])]))
        );
    }

    #[test]
    fn previous_standbys_stay_put() {
        let spec = group(
            vec![
                ("m1", prev("p1", ts(&[("s", &[0])]), ts(&[]))),
                ("m2", prev("p2", ts(&[("s", &[1])]), ts(&[]))),
                ("m3", prev("p3", ts(&[]), ts(&[("s", &[0, 1])]))),
            ],
            &[("s", 2, true)],
            1,
        );
        let result = run(&spec);
        assert_eq!(result["m3"].standby, ts(&[("s", &[0, 1])]));
        assert!(result["m3"].active.is_empty());
        assert!(result["m1"].standby.is_empty() && result["m2"].standby.is_empty());
    }

    #[test]
    fn garbage_previous_tasks_are_ignored() {
        let spec = group(
            vec![
                (
                    "m1",
                    prev(
                        "p1",
                        ts(&[("gone", &[0]), ("s", &[-1, 7, 1])]),
                        ts(&[("s", &[99])]),
                    ),
                ),
                ("m2", prev("p2", ts(&[("s", &[1])]), ts(&[]))),
            ],
            &[("s", 2, true)],
            1,
        );
        let result = run(&spec);
        // Both claim s-1; the first in member-id order keeps it.
        assert_eq!(
            tasks_of(&result, "m1"),
            (ts(&[("s", &[1])]), ts(&[("s", &[0])]))
        );
        assert_eq!(
            tasks_of(&result, "m2"),
            (ts(&[("s", &[0])]), ts(&[("s", &[1])]))
        );
    }

    #[test]
    fn empty_process_id_is_a_process() {
        let spec = group(
            vec![("m1", member("")), ("m2", member("p"))],
            &[("s", 2, true)],
            1,
        );
        let result = run(&spec);
        assert_eq!(
            tasks_of(&result, "m1"),
            (ts(&[("s", &[0])]), ts(&[("s", &[1])]))
        );
    }

    #[test]
    fn negative_standby_replicas_mean_none() {
        let spec = group(
            vec![("m1", member("p1")), ("m2", member("p2"))],
            &[("s", 2, true)],
            -3,
        );
        let result = run(&spec);
        assert!(result.values().all(|t| t.standby.is_empty()));
    }

    #[test]
    fn huge_standby_replicas_are_capped_by_processes() {
        let spec = group(
            vec![
                ("m1", member("p1")),
                ("m2", member("p2")),
                ("m3", member("p3")),
            ],
            &[("s", 3, true)],
            i32::MAX,
        );
        let result = run(&spec);
        for t in result.values() {
            assert_eq!(size(&t.active) + size(&t.standby), 3);
        }
    }

    /// Random groups: `(members, subtopologies, standbys)`; members carry random previous tasks,
    /// including tasks of a subtopology that does not exist ("x") and out-of-range partitions.
    fn arb_group() -> impl Strategy<Value = GroupSpec> {
        let subs = prop::collection::vec((1..=40i32, any::<bool>()), 1..=6);
        let prev_task = (0..7usize, -1..45i32, 0..4u8);
        let members = prop::collection::vec(
            (0..10usize, prop::collection::vec(prev_task, 0..12)),
            1..=30,
        );
        (members, subs, 0..=2i32).prop_map(|(members, subs, replicas)| {
            let names = ["a", "b", "c", "d", "e", "f", "x"];
            let mut spec = GroupSpec {
                num_standby_replicas: replicas,
                ..Default::default()
            };
            for (i, &(num_tasks, stateful)) in subs.iter().enumerate() {
                spec.subtopologies.insert(
                    names[i].to_string(),
                    SubtopologySpec {
                        num_tasks,
                        stateful,
                    },
                );
            }
            for (i, (process, previous)) in members.into_iter().enumerate() {
                let mut m = member(&format!("process-{process}"));
                for (s, p, role) in previous {
                    let set = match role {
                        0 => &mut m.active_tasks,
                        1 => &mut m.standby_tasks,
                        2 => &mut m.warmup_tasks,
                        _ => continue,
                    };
                    insert_task(set, names[s], p);
                }
                spec.members.insert(format!("member-{i:02}"), m);
            }
            spec
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn invariants_hold(spec in arb_group()) {
            let result = run(&spec);
            // Deterministic.
            prop_assert_eq!(&StickyTaskAssignor.assign(&spec).expect("assign"), &result);
        }

        #[test]
        fn first_assignment_is_balanced(spec in arb_group()) {
            let mut spec = spec;
            for m in spec.members.values_mut() {
                m.active_tasks.clear();
                m.standby_tasks.clear();
                m.warmup_tasks.clear();
            }
            let result = run(&spec);
            let sizes: Vec<usize> = result.values().map(|t| size(&t.active)).collect();
            let max = sizes.iter().copied().max().unwrap_or(0);
            let min = sizes.iter().copied().min().unwrap_or(0);
            prop_assert!(max - min <= 1, "active counts {:?}", sizes);
        }

        #[test]
        fn previous_owners_keep_up_to_floor_quota(spec in arb_group()) {
            let result = run(&spec);
            let total: usize = spec.subtopologies.values().map(|s| s.num_tasks as usize).sum();
            let floor = total / spec.members.len();
            let mut claimed: BTreeSet<(&str, i32)> = BTreeSet::new();
            for (id, m) in &spec.members {
                let mut had = 0;
                let mut kept = 0;
                for (s, ps) in &m.active_tasks {
                    let Some(sub) = spec.subtopologies.get(s) else { continue };
                    for &p in ps {
                        if (0..sub.num_tasks).contains(&p) && claimed.insert((s.as_str(), p)) {
                            had += 1;
                            kept += usize::from(result[id].contains(TaskRole::Active, s, p));
                        }
                    }
                }
                prop_assert!(kept >= had.min(floor), "{} kept {} of {}", id, kept, had);
            }
        }

        #[test]
        fn output_fed_back_is_stable(spec in arb_group()) {
            let first = run(&spec);
            let again = run(&with_previous(&spec, &first));
            prop_assert_eq!(again, first);
        }
    }
}

#[cfg(test)]
mod warmup_tests {
    use super::*;

    fn offsets(list: &[(&str, i32, i64)]) -> TaskOffsets {
        list.iter()
            .map(|&(s, p, o)| ((s.to_string(), p), o))
            .collect()
    }

    fn set(list: &[(&str, &[i32])]) -> TaskSet {
        list.iter()
            .map(|&(s, ps)| (s.to_string(), ps.iter().copied().collect()))
            .collect()
    }

    /// m0 (process a) ran all 4 tasks of stateful "s"; m1 (process b) joins without state.
    fn spec(m1_offset: Option<i64>, warmups: i32) -> GroupSpec {
        let all: Vec<(&str, i32, i64)> = (0..4).map(|p| ("s", p, LATEST_OFFSET)).collect();
        let ends: Vec<(&str, i32, i64)> = (0..4).map(|p| ("s", p, 100)).collect();
        let m0 = AssignmentMemberSpec {
            process_id: "a".into(),
            active_tasks: set(&[("s", &[0, 1, 2, 3])]),
            task_offsets: offsets(&all),
            task_end_offsets: offsets(&ends),
            warmups_allowed: true,
            ..Default::default()
        };
        let m1 = AssignmentMemberSpec {
            process_id: "b".into(),
            task_offsets: m1_offset.map_or_else(TaskOffsets::new, |o| offsets(&[("s", 2, o)])),
            warmups_allowed: true,
            ..Default::default()
        };
        GroupSpec {
            members: BTreeMap::from([("m0".to_string(), m0), ("m1".to_string(), m1)]),
            subtopologies: BTreeMap::from([(
                "s".to_string(),
                SubtopologySpec {
                    num_tasks: 4,
                    stateful: true,
                },
            )]),
            num_standby_replicas: 0,
            num_warmup_replicas: warmups,
            acceptable_recovery_lag: 10,
        }
    }

    #[test]
    fn tasks_moving_to_a_process_without_state_are_warmed_up_first() {
        let r = StickyTaskAssignor.assign(&spec(None, 1)).unwrap();
        assert_eq!(r["m0"].active, set(&[("s", &[0, 1, 2, 3])]));
        assert!(r["m1"].active.is_empty());
        assert_eq!(r["m1"].warmup, set(&[("s", &[2])]));
        // Stable: the same lags give the same assignment.
        let mut next = spec(Some(40), 1);
        next.members.get_mut("m1").unwrap().warmup_tasks = r["m1"].warmup.clone();
        next.members.get_mut("m0").unwrap().active_tasks = r["m0"].active.clone();
        let again = StickyTaskAssignor.assign(&next).unwrap();
        assert_eq!(again, r);
    }

    #[test]
    fn a_caught_up_warmup_is_promoted_and_the_next_one_placed() {
        let first = StickyTaskAssignor.assign(&spec(None, 1)).unwrap();
        let mut next = spec(Some(95), 1);
        next.members.get_mut("m1").unwrap().warmup_tasks = first["m1"].warmup.clone();
        let r = StickyTaskAssignor.assign(&next).unwrap();
        assert_eq!(r["m1"].active, set(&[("s", &[2])]));
        assert_eq!(r["m1"].warmup, set(&[("s", &[3])]));
        assert_eq!(r["m0"].active, set(&[("s", &[0, 1, 3])]));
    }

    #[test]
    fn without_warmups_or_for_v0_members_tasks_move_at_once() {
        let r = StickyTaskAssignor.assign(&spec(None, 0)).unwrap();
        assert_eq!(r["m1"].active, set(&[("s", &[2, 3])]));
        let mut v0 = spec(None, 2);
        v0.members.get_mut("m1").unwrap().warmups_allowed = false;
        let r = StickyTaskAssignor.assign(&v0).unwrap();
        assert_eq!(r["m1"].active, set(&[("s", &[2, 3])]));
        assert!(r.values().all(|t| t.warmup.is_empty()));
    }

    #[test]
    fn lags() {
        let s = spec(Some(30), 2);
        assert_eq!(process_lag(&s, "a", "s", 2), 0);
        assert_eq!(process_lag(&s, "b", "s", 2), 70);
        assert_eq!(process_lag(&s, "b", "s", 3), 100);
        assert_eq!(process_lag(&s, "b", "x", 0), 0, "unknown end offset");
        let own = offsets(&[("s", 2, 95)]);
        let ends = offsets(&[("s", 2, 100)]);
        let w = set(&[("s", &[2])]);
        assert!(warmup_caught_up((Some(&own), Some(&ends)), None, &w, 10));
        assert!(!warmup_caught_up((Some(&own), Some(&ends)), None, &w, 4));
    }
}
