//! Committed offsets: per group, per (topic, partition), written to the journal before they
//! are stored (OffsetCommit), deleted with their group (DeleteGroups).

use std::collections::{BTreeMap, HashMap};

use kwire_protocol::generated::kwire_committed_offset_key::KwireCommittedOffsetKey;
use kwire_protocol::generated::kwire_committed_offset_value::KwireCommittedOffsetValue;

use crate::storage::entry::Entry;
use crate::storage::error::StorageError;
use crate::storage::store::Store;

/// One committed offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedOffset {
    /// The offset.
    pub offset: i64,
    /// The leader epoch the client sent (-1: none).
    pub leader_epoch: i32,
    /// The client's metadata string.
    pub metadata: Option<String>,
    /// When it was committed (ms since the epoch).
    pub commit_timestamp_ms: i64,
}

/// Committed offsets of one group, by (topic, partition).
pub type GroupOffsets = BTreeMap<(String, i32), CommittedOffset>;

/// Every group's committed offsets.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Offsets {
    groups: HashMap<String, GroupOffsets>,
}

impl Offsets {
    /// The offsets replayed from the journal.
    pub fn from_replay(groups: HashMap<String, GroupOffsets>) -> Self {
        Offsets { groups }
    }

    /// The committed offsets of `group`.
    pub fn group(&self, group: &str) -> Option<&GroupOffsets> {
        self.groups.get(group)
    }

    /// Whether no group has committed offsets.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// One partition's committed offset in `group`.
    pub fn get(&self, group: &str, topic: &str, partition: i32) -> Option<&CommittedOffset> {
        self.groups
            .get(group)
            .and_then(|g| g.get(&(topic.to_string(), partition)))
    }

    /// Stores committed offsets of `group` (topic, partition, offset): written first (with
    /// whatever else `store` holds), applied once written.
    ///
    /// # Errors
    /// The write failed: nothing was stored.
    pub fn commit(
        &mut self,
        store: &mut Store,
        group: &str,
        commits: Vec<(String, i32, CommittedOffset)>,
    ) -> Result<(), StorageError> {
        if commits.is_empty() {
            return Ok(());
        }
        for (topic, partition, c) in &commits {
            store.queue(Entry::Offset(
                KwireCommittedOffsetKey {
                    group_id: group.to_string().into(),
                    topic: topic.clone().into(),
                    partition: *partition,
                },
                Some(KwireCommittedOffsetValue {
                    offset: c.offset,
                    leader_epoch: c.leader_epoch,
                    metadata: c.metadata.clone().map(Into::into),
                    commit_timestamp_ms: c.commit_timestamp_ms,
                    ..Default::default()
                }),
            ));
        }
        store.commit()?;
        let offsets = self.groups.entry(group.to_string()).or_default();
        for (topic, partition, c) in commits {
            offsets.insert((topic, partition), c);
        }
        Ok(())
    }

    /// Deletes every committed offset of `group` (DeleteGroups): tombstones queued in `store`
    /// for the request's commit, the offsets gone at once.
    pub fn delete_group(&mut self, store: &mut Store, group: &str) {
        let Some(offsets) = self.groups.remove(group) else {
            return;
        };
        let mut keys: Vec<(String, i32)> = offsets.into_keys().collect();
        keys.sort();
        for (topic, partition) in keys {
            store.queue(Entry::Offset(
                KwireCommittedOffsetKey {
                    group_id: group.to_string().into(),
                    topic: topic.into(),
                    partition,
                },
                None,
            ));
        }
    }
}
