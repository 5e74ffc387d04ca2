//! # kwire-server
//!
//! A single-node, in-memory Kafka broker for tests, speaking the wire protocol through kwire's
//! generated codecs and handing classic groups (JoinGroup/SyncGroup), consumer groups (KIP-848)
//! and streams groups (KIP-1071) to kwire's sans-IO
//! [`GroupCoordinator`](kwire_protocol::coordinator::GroupCoordinator).
//!
//! What a test that embeds it uses: [`Server`] (bind, then run until a shutdown future
//! completes), [`ServerConfig`] (what the command line sets), the typed test [`Client`], and
//! [`served_apis`] (the APIs and versions served). Everything else is internal.
//!
//! ```no_run
//! # async fn demo() {
//! use kwire_server::{Server, ServerConfig};
//! let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap());
//! config.topics.push(("t1".into(), 3));
//! let server = Server::bind(config).await.unwrap();
//! println!("kwire-server listening on {}", server.local_addr());
//! if let Err(e) = server.run(async { let _ = tokio::signal::ctrl_c().await; }).await {
//!     eprintln!("kwire-server: {e}");
//! }
//! # }
//! ```
//!
//! Topics are created by `--topic`, CreateTopics, streams groups' internal topics, and Metadata
//! requests naming unknown topics (Kafka's default `auto.create.topics.enable=true`; off with
//! [`ServerConfig::auto_create_topics`]); a Produce to an unknown topic is
//! UNKNOWN_TOPIC_OR_PARTITION, as in Kafka. DeleteRecords moves a partition's log start
//! offset; DescribeConfigs reports Kafka 4.4's topic, broker and group config defaults and the
//! configs CreateTopics gave; DescribeCluster and DescribeTopicPartitions describe this one
//! broker. Transactions are not served.
//!
//! Requests are read as Kafka's broker reads them: the header and the body are decoded and any
//! bytes after the body are ignored (logged at DEBUG); librdkafka 2.16's all-topics Metadata
//! v13 carries three. The codec's strict whole-frame check
//! ([`RequestFrame::decode`](kwire_protocol::generated::RequestFrame::decode)) stays the
//! library's default for other users.
//!
//! # Layers
//!
//! Imports go down, never up (ARCHITECTURE.md has the rules `cargo xtask arch` checks):
//!
//! 1. leaves: `config` (the configuration and command line), `names` (topic-name rules, API
//!    names), `context` (the request context), `reply` (what a handler answers), `util`;
//! 2. `events`: the INFO lines for a person running the server (they only say what to log);
//! 3. `storage`: the journal (over memory, or the durable log of `--data DIR`) and its entries;
//! 4. `services`: the state, one service per concern (cluster, topics and logs, producers,
//!    offsets, groups through the coordinator, configs), leaving effects for the router;
//! 5. `handlers`: one module per API family, never importing each other;
//! 6. `router`: the route table (also what ApiVersions advertises), the only place that locks
//!    the state; it applies the effects and logs after each commit;
//! 7. `net`: the server, its connections (reader, writer), framing.
//!
//! The [`Client`] stands apart: it imports nothing from the server.
//!
//! Error codes are [`kwire_protocol::error::ErrorCode`]s; handlers put `ErrorCode::X.code()` in
//! the responses' `error_code` fields.

#![deny(missing_docs)]

mod client;
mod config;
mod context;
mod events;
mod handlers;
mod names;
mod net;
mod reply;
mod router;
mod services;
mod storage;
mod util;

pub use client::{encode_request, encode_typed, Client, ClientError, Sent};
pub use config::{Cli, ServerConfig, MIN_FRAME_BYTES};
pub use net::server::{ServeError, Server};
pub use router::routes::{served_apis, ServedApi};
pub use services::open::StartError;
pub use storage::error::{LogError, StorageError};

/// Kafka 4.4.0's config tables as kwire-server reports them in DescribeConfigs (for tests that
/// compare its answers with a real broker's).
pub mod kafka_configs {
    pub use crate::services::configs::tables::{
        kind, resource, source, TopicConfig, BROKER_CONFIGS, DYNAMIC_DEFAULT_BROKER_CONFIGS,
        TOPIC_CONFIGS,
    };
}

#[cfg(test)]
mod tests;
