//! The sticky assignor's active pass (steps 1 to 4 of the [module docs](super)): previous active
//! owners within the quota first, then previous standby and warm-up holders, then the
//! least-loaded process.

use super::spec::TaskAssignorError;
use super::state::{Role, State};
use super::table::Task;

impl State<'_> {
    /// Steps 1 to 4 of the module documentation.
    pub(super) fn assign_active(&mut self) -> Result<(), TaskAssignorError> {
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
}
