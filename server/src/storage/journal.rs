//! The journal: where the state's changes are written, one append per request, before the
//! request is answered. Two implementations: [`super::file::FileJournal`] (`--data DIR`: the
//! durable log, replayed at start) and [`super::memory::MemoryJournal`] (no data directory:
//! nothing survives a restart).

use std::fmt;

use super::entry::Entry;
use super::error::LogError;

/// Where entries are written.
pub trait Journal: fmt::Debug + Send {
    /// Appends `entries` with one write: all of them, or (on an error) none that a replay
    /// would read.
    ///
    /// # Errors
    /// The write failed ([`LogError`]); the entries are not in the journal.
    fn append(&mut self, entries: &[Entry]) -> Result<(), LogError>;

    /// Whether what is appended survives a restart (the state writes some entries only then,
    /// e.g. partition end offsets and producer-id blocks).
    fn is_durable(&self) -> bool;

    /// The failures tests inject (`None`: a journal that cannot fail).
    #[cfg(test)]
    fn faults(&mut self) -> Option<&mut Faults> {
        None
    }

    /// The length of the file up to its last whole entry (`None`: no file).
    #[cfg(test)]
    fn whole_len(&self) -> Option<u64> {
        None
    }
}

/// Failures injected into a journal by tests.
#[cfg(test)]
#[derive(Debug, Default)]
pub struct Faults {
    /// The next this many appends write half of their bytes, then fail with ENOSPC.
    pub writes: u32,
    /// The next this many cuts back to the last whole entry fail.
    pub repairs: u32,
}
