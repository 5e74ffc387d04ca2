//! Lags of members and processes on tasks, from the task offsets and end offsets members report
//! (docs/coordinator.md §2.12, D2): who is caught up on a task, and when a warm-up may be
//! promoted.

use std::collections::BTreeMap;

use super::super::tasks::{TaskOffsets, TaskSet};
use super::spec::GroupSpec;

/// Kafka Streams' `Task.LATEST_OFFSET`: the offset sum a member reports for a task it runs as
/// active; such a member is caught up on the task by definition.
pub const LATEST_OFFSET: i64 = -2;

/// The task offsets and end offsets of a [`GroupSpec`], indexed by task.
pub(super) struct Reports<'a> {
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
    pub(super) fn new(spec: &'a GroupSpec) -> Self {
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
    pub(super) fn member_lag(&self, id: &str, s: &str, p: i32) -> Option<i64> {
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
