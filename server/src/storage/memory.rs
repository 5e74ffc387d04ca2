//! The journal of a server without a data directory: every append succeeds and nothing is kept
//! (the state in memory is all there is, and nothing survives a restart).

use super::entry::Entry;
use super::error::LogError;
use super::journal::Journal;

/// A journal that keeps nothing: appends always succeed (so no request fails on storage).
#[derive(Debug, Default)]
pub struct MemoryJournal;

impl Journal for MemoryJournal {
    fn append(&mut self, _entries: &[Entry]) -> Result<(), LogError> {
        Ok(())
    }

    fn is_durable(&self) -> bool {
        false
    }
}
