//! # kwire-server
//!
//! A single-node, in-memory Kafka broker for tests, speaking the wire protocol through kwire's
//! generated codecs and handing classic groups (JoinGroup/SyncGroup), consumer groups (KIP-848)
//! and streams groups (KIP-1071) to kwire's sans-IO
//! [`GroupCoordinator`](kwire_protocol::coordinator::GroupCoordinator). A classic JoinGroup or
//! SyncGroup whose answer waits for the rest of its group is held on its connection, in request
//! order, until the coordinator's outbox has its answer (drained after every request and every
//! run of the timers).
//!
//! Modules:
//! - [`config`]: the configuration and the command line (`kwire-server --listen … --topic …`);
//! - [`server`]: the listener, the accept loop and the coordinator's timer task;
//! - [`conn`]: one connection: framing, decoding, pipelining within count and byte bounds,
//!   answers in request order;
//! - [`apis`]: the advertised APIs and versions, and ApiVersions;
//! - [`handlers`]: one handler per API over the [`broker::Broker`];
//! - [`broker`]: the state (topics, committed offsets, the coordinator) behind one lock;
//! - [`topics`]: the topic table and the partition logs of record batches;
//! - [`producers`]: producer ids (InitProducerId) and the per-partition state of idempotent
//!   producers (sequence checks, duplicate batches), as Kafka's `ProducerStateManager`;
//! - [`durable`]: the record log of `--data DIR` and its replay;
//! - [`events`]: the INFO log a person running the server reads: refused requests, created
//!   topics, and group joins, leaves and assignments derived from the coordinator's records;
//! - [`client`]: a small pipelining client for tests and the load generator;
//! - [`util`]: CRC-32C, clocks and ids.
//!
//! Topics are created by `--topic`, CreateTopics, streams groups' internal topics, and Metadata
//! requests naming unknown topics (Kafka's default `auto.create.topics.enable=true`; off with
//! [`config::ServerConfig::auto_create_topics`]); a Produce to an unknown topic is
//! UNKNOWN_TOPIC_OR_PARTITION, as in Kafka. DeleteRecords moves a partition's log start
//! offset; DescribeConfigs reports Kafka 4.4's topic, broker and group config defaults and the
//! configs CreateTopics gave; DescribeCluster and DescribeTopicPartitions describe this one
//! broker. Transactions are not served.
//!
//! Error codes are [`kwire_protocol::error::ErrorCode`]s; handlers put `ErrorCode::X.code()` in
//! the responses' `error_code` fields.
//!
//! ```no_run
//! # async fn demo() {
//! use kwire_server::{config::ServerConfig, server::Server};
//! let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap());
//! config.topics.push(("t1".into(), 3));
//! let server = Server::bind(config).await.unwrap();
//! println!("kwire-server listening on {}", server.local_addr());
//! if let Err(e) = server.run(async { let _ = tokio::signal::ctrl_c().await; }).await {
//!     eprintln!("kwire-server: {e}");
//! }
//! # }
//! ```

#![deny(missing_docs)]

pub mod apis;
pub mod broker;
pub mod client;
pub mod config;
pub mod conn;
pub mod durable;
pub mod events;
pub mod handlers;
pub mod producers;
pub mod server;
pub mod topics;
pub mod util;

#[cfg(test)]
mod tests;
