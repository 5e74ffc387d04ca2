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

    /// The file journal, for tests that inject failures or read its length.
    #[cfg(test)]
    fn file(&mut self) -> Option<&mut super::file::FileJournal> {
        None
    }
}
