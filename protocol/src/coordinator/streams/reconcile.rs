//! Task reconciliation of streams members (Kafka 4.4's streams `CurrentAssignmentBuilder`,
//! docs/coordinator.md §2.5): moves a member's current tasks towards its target without ever
//! giving a task to a new owner while another process still holds it as active, and without
//! putting two copies of one task on one process (a member changing one task's role counts as
//! one copy). Since Kafka 4.4 a task changes role in place: a standby or warm-up task the target
//! makes active is kept until the active task is granted (a caught-up warm-up is promoted in
//! place, KAFKA-20665 and KAFKA-21111), an active task that becomes a standby is granted as
//! standby at once, and standby and warm-up convert into each other without a revocation.

use std::collections::BTreeSet;

use super::group::{StreamsGroup, StreamsGroupMember, StreamsMemberState};
use super::tasks::{insert_task, TaskRole, TaskSet, TasksTuple};

/// Inputs of one reconciliation step.
pub(crate) struct Reconcile<'a> {
    /// The group (for the task-ownership maps).
    pub group: &'a StreamsGroup,
    /// The target epoch T.
    pub target_epoch: i32,
    /// The member's target tasks.
    pub target: &'a TasksTuple,
    /// Tasks the member reports as owned; `None` = unknown (it still owns everything).
    pub owned: Option<&'a TasksTuple>,
}

/// Reconciliation refused: FENCED_MEMBER_EPOCH (a member in UNKNOWN state without empty owned
/// task lists).
#[derive(Debug)]
pub(crate) struct Fenced;

fn contains_any(owned: &TasksTuple, tasks: &TasksTuple) -> bool {
    tasks.iter().any(|(role, s, p)| owned.contains(role, s, p))
}

impl Reconcile<'_> {
    fn still_owns_any(&self, tasks: &TasksTuple) -> bool {
        match self.owned {
            None => !tasks.is_empty(),
            Some(o) => contains_any(o, tasks),
        }
    }

    /// Computes the member's next current assignment; `None` when the member stays as it is
    /// (STABLE at the target epoch, or still revoking), so an unchanged member is not copied.
    pub fn run(&self, member: &StreamsGroupMember) -> Result<Option<StreamsGroupMember>, Fenced> {
        match member.state {
            StreamsMemberState::Stable if member.member_epoch == self.target_epoch => Ok(None),
            StreamsMemberState::Stable => Ok(Some(self.next(member, member.member_epoch))),
            StreamsMemberState::UnrevokedTasks => {
                if self.owned.is_none() || self.still_owns_any(&member.pending_revocation) {
                    Ok(None)
                } else {
                    // Kafka 4.2's streams builder moves to M + 1 once the revocation is done.
                    Ok(Some(
                        self.next(member, member.member_epoch.saturating_add(1)),
                    ))
                }
            }
            StreamsMemberState::UnreleasedTasks => Ok(Some(self.next(member, member.member_epoch))),
            StreamsMemberState::Unknown => match self.owned {
                Some(o) if o.is_empty() => Ok(Some(self.next(member, self.target_epoch))),
                _ => Err(Fenced),
            },
        }
    }

    /// Whether a task of `role` in the target may not be added yet (docs/coordinator.md §2.5,
    /// Kafka 4.4's `isUnreleased*Task`): an active task while any process holds it as active or
    /// another member of this process holds it as standby or warm-up; a standby task while
    /// another member of this process runs it as active, this process holds it as standby, or
    /// another member of this process holds it as warm-up; a warm-up task while this process
    /// (this member included) runs it as active, another member of this process holds it as
    /// standby, or this process holds it as warm-up.
    fn unreleased(&self, member: &StreamsGroupMember, role: TaskRole, s: &str, p: i32) -> bool {
        let g = self.group;
        let own = member.process_id.as_str();
        let here = |r: TaskRole| g.process_holds(r, s, p, own);
        let another_here = |r: TaskRole| here(r) && !member.assigned.contains(r, s, p);
        match role {
            TaskRole::Active => {
                g.active_held(s, p)
                    || another_here(TaskRole::Standby)
                    || another_here(TaskRole::Warmup)
            }
            TaskRole::Standby => {
                another_here(TaskRole::Active)
                    || here(TaskRole::Standby)
                    || another_here(TaskRole::Warmup)
            }
            TaskRole::Warmup => {
                here(TaskRole::Active) || another_here(TaskRole::Standby) || here(TaskRole::Warmup)
            }
        }
    }

    /// The next current assignment of `member` (Kafka 4.4's `computeNextAssignment`): the
    /// target split into kept, revoked and added tasks, role changes in place, then either
    /// UNREVOKED_TASKS at `epoch_to_use` while revoked tasks are still owned, or the target
    /// epoch with every task that can be added (UNRELEASED_TASKS when some cannot yet).
    fn next(&self, member: &StreamsGroupMember, epoch_to_use: i32) -> StreamsGroupMember {
        let mut step = self.diff(member);
        let current = &member.assigned;
        change_roles_in_place(current, &mut step);
        // Promotion in place (KAFKA-20665, KAFKA-21111): a standby or warm-up task that the
        // target makes active is not revoked; the member keeps it in its old role until the
        // active task is granted, and then holds it as active only.
        for role in [TaskRole::Standby, TaskRole::Warmup] {
            for (_, s, p) in iter_role(current, role) {
                if self.target.contains(TaskRole::Active, s, p) {
                    take(step.revoke.get_mut(role), s, p);
                }
            }
        }
        let revoking = !step.revoke.is_empty() && self.still_owns_any(&step.revoke);
        for role in [TaskRole::Standby, TaskRole::Warmup] {
            for (_, s, p) in iter_role(current, role) {
                let granted = !revoking && step.add.contains(TaskRole::Active, s, p);
                if self.target.contains(TaskRole::Active, s, p) && !granted {
                    insert_task(step.keep.get_mut(role), s, p);
                }
            }
        }
        let mut m = member.clone();
        m.previous_member_epoch = member.member_epoch;
        if revoking {
            m.state = StreamsMemberState::UnrevokedTasks;
            m.member_epoch = epoch_to_use;
            m.assigned = step.keep;
            m.pending_revocation = step.revoke;
            return m;
        }
        m.member_epoch = self.target_epoch;
        m.pending_revocation = TasksTuple::default();
        m.state = if step.has_unreleased {
            StreamsMemberState::UnreleasedTasks
        } else {
            StreamsMemberState::Stable
        };
        for role in TaskRole::ALL {
            for (id, ps) in step.add.get(role) {
                step.keep
                    .get_mut(role)
                    .entry(id.clone())
                    .or_default()
                    .extend(ps.iter().copied());
            }
        }
        m.assigned = step.keep;
        m
    }

    /// The member's current tasks against its target, per role: kept (in both), revoked (only
    /// current) and added (only target, and not unreleased).
    fn diff(&self, member: &StreamsGroupMember) -> Step {
        let mut step = Step::default();
        for role in TaskRole::ALL {
            let current = member.assigned.get(role);
            let target = self.target.get(role);
            let ids: BTreeSet<&String> = current.keys().chain(target.keys()).collect();
            for id in ids {
                let empty = BTreeSet::new();
                let cur = current.get(id).unwrap_or(&empty);
                let tgt = target.get(id).unwrap_or(&empty);
                let k: BTreeSet<i32> = cur.intersection(tgt).copied().collect();
                let r: BTreeSet<i32> = cur.difference(&k).copied().collect();
                let mut a = BTreeSet::new();
                for p in tgt.difference(&k) {
                    if self.unreleased(member, role, id, *p) {
                        step.has_unreleased = true;
                    } else {
                        a.insert(*p);
                    }
                }
                put(step.keep.get_mut(role), id, k);
                put(step.revoke.get_mut(role), id, r);
                put(step.add.get_mut(role), id, a);
            }
        }
        step
    }
}

/// One reconciliation step's split of the tasks (see [`Reconcile::diff`]).
#[derive(Default)]
struct Step {
    keep: TasksTuple,
    revoke: TasksTuple,
    add: TasksTuple,
    /// Some target task could not be added yet.
    has_unreleased: bool,
}

/// Role changes in place (Kafka 4.4, KAFKA-20665): an active task that becomes a standby is
/// granted as standby at once (the active copy is still revoked first); a standby that becomes
/// a warm-up, or a warm-up that becomes a standby, changes role without being revoked.
fn change_roles_in_place(current: &TasksTuple, step: &mut Step) {
    for (_, s, p) in iter_role(current, TaskRole::Active) {
        if take(step.add.get_mut(TaskRole::Standby), s, p) {
            insert_task(step.keep.get_mut(TaskRole::Standby), s, p);
        }
    }
    for (from, to) in [
        (TaskRole::Standby, TaskRole::Warmup),
        (TaskRole::Warmup, TaskRole::Standby),
    ] {
        for (_, s, p) in iter_role(current, from) {
            if take(step.add.get_mut(to), s, p) {
                insert_task(step.keep.get_mut(to), s, p);
                take(step.revoke.get_mut(from), s, p);
            }
        }
    }
}

/// The tasks of one role of `t`, as (role, subtopology, partition).
fn iter_role(t: &TasksTuple, role: TaskRole) -> impl Iterator<Item = (TaskRole, &str, i32)> + '_ {
    t.get(role)
        .iter()
        .flat_map(move |(s, ps)| ps.iter().map(move |p| (role, s.as_str(), *p)))
}

/// Removes `(s, p)` from `set` (dropping an emptied subtopology); whether it was there.
fn take(set: &mut TaskSet, s: &str, p: i32) -> bool {
    let Some(ps) = set.get_mut(s) else {
        return false;
    };
    let had = ps.remove(&p);
    if ps.is_empty() {
        set.remove(s);
    }
    had
}

fn put(set: &mut TaskSet, id: &str, ps: BTreeSet<i32>) {
    if !ps.is_empty() {
        set.insert(id.to_string(), ps);
    }
}
