//! Services: the broker's state, one service per concern, each changing its part of the state
//! and leaving [`effects`] (log lines, wake-ups) for the router:
//!
//! - [`cluster`]: this broker's identity, address and settings;
//! - [`topics`]: the topic table, the partition logs and the record-batch checks;
//! - [`producers`]: producer ids and the per-partition state of idempotent producers;
//! - [`offsets`]: committed offsets;
//! - [`groups`]: the group coordinator and the classic requests waiting on it;
//! - [`configs`]: Kafka 4.4's config tables and DescribeConfigs' answers;
//! - [`state`]: all of them over one store (what spans services), and [`open`] (the journal
//!   replayed at start).
//!
//! Services import storage, events and the leaves; never the handlers, the router or the
//! network.

pub mod cluster;
pub mod configs;
pub mod effects;
pub mod groups;
pub mod offsets;
pub mod open;
pub mod producers;
pub mod state;
pub mod topics;
