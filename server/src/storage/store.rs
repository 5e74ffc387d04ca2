//! The store: the entries a request queued, written to the journal with one append when the
//! request is done ([`Store::commit`]), and the rule for a write that fails.
//!
//! # When a write fails
//!
//! A failed append (e.g. ENOSPC) is cut off the file by the file journal; what happens to the
//! state depends on what was written:
//! - committed offsets, topics and partition end offsets are written *before* they are applied
//!   (or, for produced records, undone on failure), so the request is answered with an error
//!   and nothing changes;
//! - coordinator records are applied by the coordinator when it emits them and cannot be rolled
//!   back. A failure to write them leaves the state in memory ahead of the file, so the durable
//!   state is marked broken: nothing more is written, and [`Store::fatal`] fires (the server
//!   stops; a restart replays the file, which holds only whole entries).

use std::path::Path;

use tokio::sync::watch;

use super::entry::Entry;
use super::error::{LogError, StorageError};
use super::file::FileJournal;
use super::journal::Journal;
use super::memory::MemoryJournal;

/// The journal and the entries waiting for it.
#[derive(Debug)]
pub struct Store {
    journal: Box<dyn Journal>,
    pending: Vec<Entry>,
    /// Why nothing more may be written (the durable state is broken, or the server stopped).
    broken: Option<String>,
    /// Set (once) when the durable state breaks: the server stops.
    fatal: watch::Sender<Option<String>>,
    /// Failed commits so far.
    write_failures: u64,
}

impl Store {
    /// Opens the journal: with `data_dir`, the file journal (locked, replayed, its torn tail cut
    /// off; the replay logged), else the memory journal. Returns the store and the entries
    /// replayed, in order.
    ///
    /// # Errors
    /// The file journal's [`LogError`]s: locked, unreadable, corrupt.
    pub fn open(data_dir: Option<&Path>) -> Result<(Store, Vec<Entry>), LogError> {
        let (journal, entries): (Box<dyn Journal>, Vec<Entry>) = match data_dir {
            Some(dir) => {
                let (log, replay) = FileJournal::open(dir)?;
                if let Some(torn) = &replay.torn {
                    tracing::warn!(file = %log.path().display(), %torn, "ignored the torn tail of the durable log");
                }
                if replay.skipped > 0 {
                    tracing::warn!(
                        skipped = replay.skipped,
                        "skipped log entries of unknown types"
                    );
                }
                tracing::info!(file = %log.path().display(), entries = replay.entries.len(), "replayed the durable log");
                (Box::new(log), replay.entries)
            }
            None => (Box::new(MemoryJournal), Vec::new()),
        };
        let store = Store {
            journal,
            pending: Vec::new(),
            broken: None,
            fatal: watch::channel(None).0,
            write_failures: 0,
        };
        Ok((store, entries))
    }

    /// Queues an entry for the next [`Store::commit`].
    pub fn queue(&mut self, entry: Entry) {
        self.pending.push(entry);
    }

    /// Queues entries for the next [`Store::commit`].
    pub fn queue_all(&mut self, entries: impl IntoIterator<Item = Entry>) {
        self.pending.extend(entries);
    }

    /// Whether what is written survives a restart (a data directory is written).
    pub fn is_durable(&self) -> bool {
        self.journal.is_durable()
    }

    /// Writes the queued entries with one append. When the write fails (or the durable state is
    /// already broken) nothing is written; if the entries held coordinator records, the durable
    /// state is now broken (see the module docs): the error is logged, nothing more is written,
    /// and [`Store::fatal`] fires.
    ///
    /// # Errors
    /// The write failed; the caller answers with an error and undoes what it can.
    pub fn commit(&mut self) -> Result<(), StorageError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let entries = std::mem::take(&mut self.pending);
        let result = match &self.broken {
            Some(reason) => Err(StorageError(format!(
                "the durable log is out of service: {reason}"
            ))),
            None => self
                .journal
                .append(&entries)
                .map_err(|e| StorageError(e.to_string())),
        };
        if let Err(e) = &result {
            self.write_failures += 1;
            let group_records = entries.iter().any(|e| matches!(e, Entry::Group(_)));
            if self.broken.is_none() && group_records {
                let reason = format!(
                    "coordinator records could not be written ({e}): the group state in memory is ahead of the durable log and cannot be rolled back"
                );
                tracing::error!(%reason, "DURABLE STATE BROKEN: the server stops");
                self.broken = Some(reason.clone());
                self.fatal.send_replace(Some(reason));
            } else {
                tracing::error!(error = %e, entries = entries.len(), "cannot append to the durable log; the request fails");
            }
        }
        result
    }

    /// Failed commits so far.
    pub fn write_failures(&self) -> u64 {
        self.write_failures
    }

    /// Watches for the durable state to break (`Some(reason)`): the server must stop.
    pub fn fatal(&self) -> watch::Receiver<Option<String>> {
        self.fatal.subscribe()
    }

    /// Closes the journal (releasing the data directory's lock); later writes fail.
    pub fn close(&mut self) {
        let durable = self.journal.is_durable();
        self.journal = Box::new(MemoryJournal);
        if durable && self.broken.is_none() {
            self.broken = Some("the server stopped".into());
        }
    }

    /// The journal's injected failures, for tests (`None` without a data directory).
    #[cfg(test)]
    pub fn faults(&mut self) -> Option<&mut super::journal::Faults> {
        self.journal.faults()
    }

    /// The file's length up to its last whole entry, for tests (`None` without one).
    #[cfg(test)]
    pub fn whole_len(&self) -> Option<u64> {
        self.journal.whole_len()
    }
}
