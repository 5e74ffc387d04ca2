//! Storage: where the state's changes are written and replayed from.
//!
//! - [`journal`]: the journal trait, over [`memory`] (no data directory) and [`file`] (the
//!   durable log of `--data DIR`, with its format, lock and repair; [`replay`] reads it back);
//! - [`entry`]: what is written, a record type with a key and a value encoded by the generated
//!   codecs (coordinator records, committed offsets, topics, partition end offsets);
//! - [`store`]: the entries a request queued, committed with one append, and the rule for a
//!   write that fails.
//!
//! Storage imports only the leaves; the services above it queue entries and commit.

pub mod entry;
pub mod error;
pub mod file;
pub mod journal;
pub mod memory;
pub mod replay;
pub mod store;

#[cfg(test)]
mod tests;
