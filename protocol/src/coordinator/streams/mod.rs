//! KIP-1071 streams groups: tasks, topology, state, records, replay, reconciliation, the sticky
//! task assignor and the manager that answers `StreamsGroupHeartbeat` (key 88, v0-1),
//! `StreamsGroupDescribe` (key 89, v0-1) and `StreamsGroupTopologyDescriptionUpdate` (key 93, v0,
//! KIP-1331; [`description`]) for the [coordinator](super).
//!
//! Behaviour: docs/coordinator.md §2 (the coordinator module docs; Kafka 4.2's
//! `GroupMetadataManager.streamsGroupHeartbeat`, `StreamsTopology`, `InternalTopicManager` and
//! `StickyTaskAssignor`, with Kafka 4.4's v1 surface, topology descriptions and static members in
//! §2.11) with kwire's departures D1 (a join with topology epoch EG + 1 moves the group onto the
//! new topology), D2 (task offsets accepted and shown in describe), D3 (warm-up tasks placed from
//! the task offsets' lags and promoted in place, §2.12, which Kafka 4.4.0 accepts but never
//! places), D6 (records and replay) and D7. Streams and consumer groups share one group-id
//! namespace.
//!
//! A heartbeat writes into a draft and applies its records only when it succeeds, so a failed
//! heartbeat writes nothing (`manager`). The topics a topology needs but metadata lacks come
//! back to the caller as [`CreatableTopic`]s in `StreamsHeartbeatOutput::topics_to_create`; the
//! caller creates them and reports the new metadata through the facade's `set_topics`. The
//! scenario tests and the simulation drive the facade, so they live beside it
//! (`coordinator/tests/`). This module imports nothing from the coordinator but its shared
//! `context` and `timers`.

pub mod assignor;
mod config;
pub mod description;
pub mod group;
pub(crate) mod manager;
mod reconcile;
pub mod records;
mod replay;
pub mod tasks;
pub mod topology;

pub use config::{
    status_codes, StreamsGroupConfig, StreamsGroupOverrides, NUM_STANDBY_REPLICAS,
    RACK_AWARE_ASSIGNMENT_TAGS,
};
pub use group::{
    Endpoint, StreamsGroup, StreamsGroupMember, StreamsGroupState, StreamsGroups,
    StreamsMemberState, TaskOwners,
};
pub use records::StreamsRecord;
pub use replay::{apply, replay};
pub use tasks::TaskOffsets;
pub use topology::{ConfiguredTopology, CreatableTopic, InvalidTopology, StreamsTopology};
