//! The streams-group manager: `StreamsGroupHeartbeat`, `StreamsGroupDescribe` and
//! `StreamsGroupTopologyDescriptionUpdate` (KIP-1071, KIP-1331; Kafka 4.4's
//! `GroupMetadataManager.streamsGroupHeartbeat` and friends), timers, topic metadata changes
//! and configuration, over the streams groups and the shared `Context` the facade lends it for
//! one call.
//!
//! Transactions, as for consumer groups: phase one of a heartbeat (`plan`) reads the live state
//! and writes only into a draft (`draft`: the records so far, plus a scratch copy of the one
//! group they apply to from the first record on, because later steps read their own writes);
//! phase two (`commit`) cannot fail and applies the draft's records to the live state, then
//! stores the soft state and arms timers. A failed heartbeat drops the draft: no record, no
//! change. A stable member's heartbeat writes no record and so copies nothing: the member, the
//! group and its configured topology (shared behind an `Arc`) are only borrowed.
//!
//! Layout, each file importing only those listed before it: `side` (configuration, soft state,
//! the manager), `draft`, `request` (reading the request), `validate` (step one), `member`
//! (who sends it, its update), `topology` (steps two and three), `targets` (step seven),
//! `response` (what an answer carries), `fence` and `leave`, `plan` (phase one), `commit`
//! (phase two and the answer), `heartbeat` (the entry), then `timers`, `settings`, `metadata`,
//! `describe` and `description_update`.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

mod commit;
mod describe;
mod description_update;
mod draft;
mod fence;
mod heartbeat;
mod leave;
mod member;
mod metadata;
mod plan;
mod request;
mod response;
mod settings;
mod side;
mod targets;
mod timers;
mod topology;
mod validate;

pub(crate) use describe::describe;
pub(crate) use description_update::topology_description_update;
pub(crate) use side::{member_epoch, StreamsManager, StreamsSide};
