//! Warm-up tasks (kwire's refinement of the balanced assignment, docs/coordinator.md §2.12):
//! the spec a balanced assignment is computed from while warm-ups are in flight, and the
//! placement of warm-ups into it.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::super::tasks::{insert_task, TaskSet, TasksTuple};
use super::lag::Reports;
use super::spec::GroupSpec;

/// The spec the balanced assignment is computed from when warm-ups are on: a task that a member
/// holds as a previous warm-up while another member holds it as previous active counts as the
/// warm-up holder's active task and as the other member's standby, so the sticky assignor
/// reproduces the assignment the warm-up is for, and [`refine_warmups`] holds the task back
/// again until the warm-up has caught up.
pub(super) fn intended(spec: &GroupSpec) -> Cow<'_, GroupSpec> {
    if spec.members.values().all(|m| m.warmup_tasks.is_empty()) {
        return Cow::Borrowed(spec);
    }
    let prev_active = previous_active(spec);
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
    let by_process = members_by_process(spec);
    for (_, s, p, a, b) in held_back(spec, result, &by_process) {
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

/// Each task's previous active owner: the first member in member-id order listing it active.
fn previous_active(spec: &GroupSpec) -> BTreeMap<(&str, i32), &str> {
    let mut prev_active: BTreeMap<(&str, i32), &str> = BTreeMap::new();
    for (id, m) in &spec.members {
        for (s, ps) in &m.active_tasks {
            for p in ps {
                prev_active.entry((s.as_str(), *p)).or_insert(id.as_str());
            }
        }
    }
    prev_active
}

/// The member ids of each process, in member-id order.
fn members_by_process(spec: &GroupSpec) -> BTreeMap<&str, Vec<&str>> {
    let mut by_process: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, m) in &spec.members {
        by_process.entry(&m.process_id).or_default().push(id);
    }
    by_process
}

/// A task the refinement holds back: (not a previous warm-up of A, subtopology, partition, new
/// owner A, previous owner B); sorted, previous warm-ups of A come first.
type Held<'s> = (bool, String, i32, String, &'s str);

/// The stateful tasks `result` moves to a member A with `warmups_allowed` whose process is not
/// caught up on them, from a previous owner B of another process, sorted (see [`Held`]).
fn held_back<'s>(
    spec: &'s GroupSpec,
    result: &BTreeMap<String, TasksTuple>,
    by_process: &BTreeMap<&str, Vec<&str>>,
) -> Vec<Held<'s>> {
    let reports = Reports::new(spec);
    let prev_active = previous_active(spec);
    let caught_up = |process: &str, s: &str, p: i32| {
        by_process.get(process).is_none_or(|ms| {
            ms.iter()
                .any(|id| reports.member_lag(id, s, p).unwrap_or(0) <= spec.acceptable_recovery_lag)
        })
    };
    let mut held: Vec<Held<'s>> = Vec::new();
    for (a, tuple) in result {
        let Some(am) = spec.members.get(a).filter(|m| m.warmups_allowed) else {
            continue;
        };
        let stateful = tuple
            .active
            .iter()
            .filter(|(s, _)| spec.subtopologies.get(*s).is_some_and(|x| x.stateful));
        for (s, ps) in stateful {
            for &p in ps {
                let Some(&b) = prev_active.get(&(s.as_str(), p)) else {
                    continue;
                };
                let moved = spec
                    .members
                    .get(b)
                    .is_some_and(|bm| b != a.as_str() && bm.process_id != am.process_id);
                if !moved || caught_up(&am.process_id, s, p) {
                    continue;
                }
                let warmed = am.warmup_tasks.get(s).is_some_and(|x| x.contains(&p));
                held.push((!warmed, s.clone(), p, a.clone(), b));
            }
        }
    }
    held.sort();
    held
}
