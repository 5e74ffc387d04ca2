//! The sticky assignor's standby passes (steps 5 to 7 of the [module docs](super)): previous
//! holders first, deferred replicas to the least-loaded process without the task, then
//! balancing until no standby moves.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use super::state::{Role, State};
use super::table::Task;

impl State<'_> {
    /// Steps 5 and 6 of the module documentation.
    pub(super) fn assign_standby(&mut self, replicas: u64) {
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
    pub(super) fn balance_standby(&mut self) {
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
}
