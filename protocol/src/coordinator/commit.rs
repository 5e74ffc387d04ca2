//! The one way a request changes state, for every group type: it checks, then it commits.
//!
//! **Phase one, the check**, reads the state through shared references only, makes every check
//! and every fallible computation (member and epoch checks, regex compilation, topology
//! configuration, the assignor) and returns either the error to answer or a plan: what the
//! request will write. It cannot change anything: it has no `&mut` to change it with.
//!
//! **Phase two, the commit**, takes the plan and cannot fail (it returns no `Result`). It
//! writes records with [`write`], which applies each with the group type's [`Apply::apply`] —
//! the function [`replay`] runs — before keeping it, so later steps read their own writes and
//! the state is always `replay` of the records; then it arms and cancels timers and queues
//! answers.
//!
//! So a failed request returns its error having changed nothing (no record, no state, no
//! timer), and nothing is ever undone: there is no copy to restore from, and a request that
//! changes nothing — a stable member's heartbeat — copies nothing either: its check borrows the
//! stored member and compares the request with it in place, and its plan holds only what
//! changes. A request that spans group types (a heartbeat that replaces an empty classic group,
//! an online upgrade of a classic group) runs the checks of every part before the first commit.
//! [`two_phase`] is the shape in code.
//!
//! Kafka reaches the same atomicity differently: `GroupMetadataManager` returns a
//! `CoordinatorResult` (records and response), and the coordinator runtime appends the records
//! in one batch or reverts its in-memory timeline snapshot. A sans-IO coordinator has no append
//! that can fail, so checking first is all it needs.
//!
//! This module imports nothing from the coordinator; each group type implements [`Apply`] for
//! its groups.

/// A group type's persisted and derived state: it applies that type's records (Kafka's
/// `GroupMetadataManager.replay`). A tombstone for something absent is a no-op.
pub(crate) trait Apply {
    /// The group type's record.
    type Record;

    /// Applies one record.
    fn apply(&mut self, record: &Self::Record);
}

/// Rebuilds a group type's state from its records, in order (docs/coordinator.md, D6).
pub(crate) fn replay<'a, S>(records: impl IntoIterator<Item = &'a S::Record>) -> S
where
    S: Apply + Default,
    S::Record: 'a,
{
    let mut state = S::default();
    for r in records {
        state.apply(r);
    }
    state
}

/// Phase two's pen: applies `record` to the live state (as [`replay`] would) and keeps it in
/// `records`, the request's output.
pub(crate) fn write<S: Apply>(state: &mut S, records: &mut Vec<S::Record>, record: S::Record) {
    state.apply(&record);
    records.push(record);
}

/// A request in its two phases (see the module docs): `check` sees `m` read-only and may fail;
/// `commit` takes the plan and cannot fail.
///
/// # Errors
/// Whatever `check` returns; `m` is then unchanged.
pub(crate) fn two_phase<M, P, E, O>(
    m: &mut M,
    check: impl FnOnce(&M) -> Result<P, E>,
    commit: impl FnOnce(&mut M, P) -> O,
) -> Result<O, E> {
    let plan = check(m)?;
    Ok(commit(m, plan))
}
