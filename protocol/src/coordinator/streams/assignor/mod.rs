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
//!
//! # Layout
//!
//! `spec` (what an assignor reads and the trait), `lag` (lags from task offsets), `warmup` (the
//! refinement), `table` (dense task numbers), `state` (the assignment in progress), `active`
//! and `standby` (the passes), `sticky` (the assignor). Each imports only modules listed before
//! it.

mod active;
mod lag;
mod spec;
mod standby;
mod state;
mod sticky;
mod table;
mod warmup;

pub use lag::{process_lag, warmup_caught_up, LATEST_OFFSET};
pub use spec::{AssignmentMemberSpec, GroupSpec, SubtopologySpec, TaskAssignor, TaskAssignorError};
pub use sticky::StickyTaskAssignor;
pub use warmup::refine_warmups;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod warmup_tests;
