//! Request handlers: one module per API family, each a synchronous step over the [`State`]
//! (run under the router's lock) from a decoded request body to a response body or a
//! [`Reply`](crate::reply::Reply). Handlers never import each other; what two of them share is
//! a service. They leave their log lines and wake-ups in the state's effects, which the router
//! applies once the request's writes are committed.
//!
//! Handlers that change what can be undone (Produce, OffsetCommit, CreateTopics) write it
//! themselves and answer a failed write with an error; everything else they queue is written by
//! the router after them (one append per request).
//!
//! [`State`]: crate::services::state::State

pub mod classic_groups;
pub mod configs;
pub mod consumer_groups;
pub mod fetch;
pub mod groups;
pub mod metadata;
pub mod offsets;
pub mod produce;
pub mod producer_ids;
pub mod streams_groups;
pub mod topics;
