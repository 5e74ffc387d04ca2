//! The streams-group manager: `StreamsGroupHeartbeat`, `StreamsGroupDescribe` and
//! `StreamsGroupTopologyDescriptionUpdate` (KIP-1071, KIP-1331; Kafka 4.4's
//! `GroupMetadataManager.streamsGroupHeartbeat` and friends), timers, topic metadata changes
//! and configuration, over the streams groups and the shared `Context` the facade lends it for
//! one call.
//!
//! A heartbeat runs in the coordinator's two phases ([`commit`](crate::coordinator::commit)):
//! `check` (phase one) reads the state only and makes every check and fallible computation (the
//! member and its epoch with the shared `membership` checks, the topology's epoch and
//! configuration, the assignor over the group with the member as it will be written), and
//! returns a plan of what changes; `write` (phase two) cannot fail: it writes the plan's records
//! with `commit::write` (each applied at once, so reconciliation reads the group as they leave
//! it), notes the soft state, arms the timers and answers. A failed heartbeat has changed
//! nothing, and nothing is copied to be restored; a stable member's heartbeat plans nothing and
//! copies nothing: the member, the group and its configured topology (shared behind an `Arc`)
//! are only borrowed.
//!
//! Layout, each file importing only those listed before it: `side` (configuration, soft state,
//! the manager), `request` (reading the request), `validate` (step one), `member` (who sends it,
//! its update), `topology` (steps two and three), `targets` (step seven), `response` (what an
//! answer carries), `fence` and `leave`, `check` (phase one), `write` (phase two and the
//! answer), `heartbeat` (the entry), then `timers`, `settings`, `metadata`, `describe` and
//! `description_update`.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

mod check;
mod describe;
mod description_update;
mod fence;
mod heartbeat;
mod leave;
mod member;
mod metadata;
mod request;
mod response;
mod settings;
mod side;
mod targets;
mod timers;
mod topology;
mod validate;
mod write;

pub(crate) use describe::describe;
pub(crate) use description_update::topology_description_update;
pub(crate) use side::{member_epoch, StreamsManager, StreamsSide};
