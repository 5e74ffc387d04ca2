//! A heartbeat's pending writes (phase one of a heartbeat, see the [manager docs](super)): the
//! records so far, and a scratch copy of the one group they apply to, made at the first record
//! because later steps read their own writes. A heartbeat that writes nothing copies nothing.

use std::collections::BTreeMap;

use super::super::group::{StreamsGroup, StreamsGroups};
use super::super::records::StreamsRecord;
use super::super::replay::apply;

/// The records of one heartbeat over the group as it stands (see the module docs).
pub(super) struct Draft<'g> {
    /// The group as it stands (or a new, empty one).
    base: &'g StreamsGroup,
    /// `base` with the records applied, made at the first record.
    scratch: Option<StreamsGroups>,
    records: Vec<StreamsRecord>,
}

impl<'g> Draft<'g> {
    /// A draft over `base`, with no record yet.
    pub fn new(base: &'g StreamsGroup) -> Self {
        Draft {
            base,
            scratch: None,
            records: Vec::new(),
        }
    }

    /// The group as the draft's records leave it.
    pub fn group(&self) -> &StreamsGroup {
        self.scratch
            .as_ref()
            .and_then(|s| s.get(&self.base.group_id))
            .unwrap_or(self.base)
    }

    /// Whether nothing was written: the group is the one the draft was made over.
    pub fn is_clean(&self) -> bool {
        self.records.is_empty()
    }

    /// Records a write and applies it to the scratch copy.
    pub fn write(&mut self, r: StreamsRecord) {
        let base = self.base;
        let scratch = self
            .scratch
            .get_or_insert_with(|| BTreeMap::from([(base.group_id.clone(), base.clone())]));
        apply(scratch, &r);
        self.records.push(r);
    }

    /// The records written, in order.
    pub fn into_records(self) -> Vec<StreamsRecord> {
        self.records
    }
}
