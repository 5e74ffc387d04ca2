//! One record type over every group type, and one [`replay`] that rebuilds every group type.
//!
//! A [`Record`] wraps the record of one group type: [`Record::Consumer`] holds a
//! [`ConsumerRecord`], [`Record::Streams`] a [`StreamsRecord`], [`Record::Classic`] a
//! [`ClassicRecord`]. Each group type owns its records and its `apply`; this module only
//! dispatches, so a new group type adds one variant here, one field to [`Groups`] and one arm to
//! [`apply`]. Every state change of the coordinator is a sequence of records, already applied,
//! so `replay` of everything emitted equals [`GroupCoordinator::groups`](super::GroupCoordinator::groups).

use super::classic::{self, ClassicGroups, ClassicRecord};
use super::consumer::{self, ConsumerGroups, ConsumerRecord};
use super::streams::topology::CreatableTopic;
use super::streams::{self, StreamsGroups, StreamsRecord};
use crate::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;

/// One record of the group coordinator: a record of one group type (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A consumer-group record (KIP-848).
    Consumer(ConsumerRecord),
    /// A streams-group record (KIP-1071).
    Streams(StreamsRecord),
    /// A classic-group record.
    Classic(ClassicRecord),
}

impl Record {
    /// kwire's record-type number (docs/coordinator.md, D6): the `apiKey` of the record's key
    /// spec in `schemas/`, as the generated `CoordinatorRecordType` and each key struct's
    /// `RECORD_TYPE` give it.
    pub fn record_type(&self) -> i16 {
        match self {
            Record::Consumer(r) => r.record_type(),
            Record::Streams(r) => r.record_type(),
            Record::Classic(r) => r.record_type(),
        }
    }

    /// The group the record belongs to.
    pub fn group_id(&self) -> &str {
        match self {
            Record::Consumer(r) => r.group_id(),
            Record::Streams(r) => r.group_id(),
            Record::Classic(r) => r.group_id(),
        }
    }

    /// Whether this is a tombstone (a key without a value).
    pub fn is_tombstone(&self) -> bool {
        match self {
            Record::Consumer(r) => r.is_tombstone(),
            Record::Streams(r) => r.is_tombstone(),
            Record::Classic(r) => r.is_tombstone(),
        }
    }
}

impl From<ConsumerRecord> for Record {
    fn from(r: ConsumerRecord) -> Self {
        Record::Consumer(r)
    }
}

impl From<ClassicRecord> for Record {
    fn from(r: ClassicRecord) -> Self {
        Record::Classic(r)
    }
}

impl From<StreamsRecord> for Record {
    fn from(r: StreamsRecord) -> Self {
        Record::Streams(r)
    }
}

/// The persisted and derived state of every group, by group type: what [`replay`] returns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Groups {
    /// Consumer groups by group id.
    pub consumer: ConsumerGroups,
    /// Streams groups by group id.
    pub streams: StreamsGroups,
    /// Classic groups by group id.
    pub classic: ClassicGroups,
}

impl Groups {
    /// No groups.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether any group type holds `group_id` (one group-id namespace).
    pub fn contains(&self, group_id: &str) -> bool {
        self.consumer.contains_key(group_id)
            || self.streams.contains_key(group_id)
            || self.classic.contains_key(group_id)
    }
}

/// Applies one record to the group type it belongs to (Kafka's coordinator `replay`; a
/// tombstone for something absent is a no-op).
pub fn apply(groups: &mut Groups, record: &Record) {
    match record {
        Record::Consumer(r) => consumer::apply(&mut groups.consumer, r),
        Record::Streams(r) => streams::apply(&mut groups.streams, r),
        Record::Classic(r) => classic::apply(&mut groups.classic, r),
    }
}

/// Rebuilds the persisted and derived state of every group type from its records, in order
/// (docs/coordinator.md, D6). Timers and soft state are volatile and not part of the result.
pub fn replay<'a>(records: impl IntoIterator<Item = &'a Record>) -> Groups {
    let mut groups = Groups::new();
    for r in records {
        apply(&mut groups, r);
    }
    groups
}

/// A response plus the records describing the state change (empty on error).
#[derive(Debug, Clone, PartialEq)]
pub struct Output<R> {
    /// The response to send.
    pub response: R,
    /// Records to persist, in order; already applied to the coordinator's state.
    pub records: Vec<Record>,
}

/// A streams heartbeat's answer: the response, the records describing the state change (empty
/// on error), and the internal topics the caller must create (MISSING_INTERNAL_TOPICS).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsHeartbeatOutput {
    /// The response to send.
    pub response: StreamsGroupHeartbeatResponse,
    /// Records to persist, in order; already applied.
    pub records: Vec<Record>,
    /// Internal topics to create (name, partitions, replication factor (-1 = broker default),
    /// configs), sorted by name.
    pub topics_to_create: Vec<CreatableTopic>,
}
