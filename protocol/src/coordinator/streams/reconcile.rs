//! Task reconciliation of streams members (Kafka's streams `CurrentAssignmentBuilder`,
//! docs/coordinator.md §2.5): moves a member's current tasks towards its target without ever
//! giving a task to a new owner while another process still holds it as active, and without
//! putting two copies of one task on one process.

use std::collections::BTreeSet;

use super::group::{StreamsGroup, StreamsGroupMember, StreamsMemberState};
use super::tasks::{TaskRole, TaskSet, TasksTuple};

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

    /// Computes the member's next current assignment.
    pub fn run(&self, member: &StreamsGroupMember) -> Result<StreamsGroupMember, Fenced> {
        match member.state {
            StreamsMemberState::Stable => {
                if member.member_epoch != self.target_epoch {
                    Ok(self.next(member, member.member_epoch))
                } else {
                    Ok(member.clone())
                }
            }
            StreamsMemberState::UnrevokedTasks => {
                if self.owned.is_none() || self.still_owns_any(&member.pending_revocation) {
                    Ok(member.clone())
                } else {
                    // Kafka 4.2's streams builder moves to M + 1 once the revocation is done.
                    Ok(self.next(member, member.member_epoch.saturating_add(1)))
                }
            }
            StreamsMemberState::UnreleasedTasks => Ok(self.next(member, member.member_epoch)),
            StreamsMemberState::Unknown => match self.owned {
                Some(o) if o.is_empty() => Ok(self.next(member, self.target_epoch)),
                _ => Err(Fenced),
            },
        }
    }

    /// Whether a task of `role` in the target may not be added yet (docs/coordinator.md §2.5).
    fn unreleased(&self, member: &StreamsGroupMember, role: TaskRole, s: &str, p: i32) -> bool {
        let g = self.group;
        let own = member.process_id.as_str();
        let own_other_role = |r: TaskRole| g.process_holds(r, s, p, own);
        match role {
            TaskRole::Active => {
                g.active_held(s, p)
                    || own_other_role(TaskRole::Standby)
                    || own_other_role(TaskRole::Warmup)
            }
            TaskRole::Standby | TaskRole::Warmup => {
                TaskRole::ALL.iter().any(|r| own_other_role(*r))
            }
        }
    }

    fn next(&self, member: &StreamsGroupMember, epoch_to_use: i32) -> StreamsGroupMember {
        let mut keep = TasksTuple::default();
        let mut revoke = TasksTuple::default();
        let mut add = TasksTuple::default();
        let mut has_unreleased = false;
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
                        has_unreleased = true;
                    } else {
                        a.insert(*p);
                    }
                }
                put(keep.get_mut(role), id, k);
                put(revoke.get_mut(role), id, r);
                put(add.get_mut(role), id, a);
            }
        }
        let mut m = member.clone();
        m.previous_member_epoch = member.member_epoch;
        if !revoke.is_empty() && self.still_owns_any(&revoke) {
            m.state = StreamsMemberState::UnrevokedTasks;
            m.member_epoch = epoch_to_use;
            m.assigned = keep;
            m.pending_revocation = revoke;
        } else {
            m.member_epoch = self.target_epoch;
            m.pending_revocation = TasksTuple::default();
            m.state = if has_unreleased {
                StreamsMemberState::UnreleasedTasks
            } else {
                StreamsMemberState::Stable
            };
            for role in TaskRole::ALL {
                for (id, ps) in add.get(role) {
                    keep.get_mut(role)
                        .entry(id.clone())
                        .or_default()
                        .extend(ps.iter().copied());
                }
            }
            m.assigned = keep;
        }
        m
    }
}

fn put(set: &mut TaskSet, id: &str, ps: BTreeSet<i32>) {
    if !ps.is_empty() {
        set.insert(id.to_string(), ps);
    }
}
