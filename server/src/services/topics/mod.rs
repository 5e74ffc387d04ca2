//! Topics and logs: the in-memory topic table ([`table`]), the partition logs ([`log`]) and the
//! checks of produced record batches ([`batch`]).
//!
//! A partition log is a list of RecordBatch v2 (magic 2) batches as the producer sent them, with
//! the base offset (bytes 0..8) and partition leader epoch (bytes 12..16) rewritten by the server.
//! Both fields lie before the CRC-32C, which covers the batch from the attributes field (byte 21)
//! on, so rewriting them keeps the batch valid. Records are kept in memory only: a log starts
//! empty at its log start offset (0, or after a restart with `--data` the end offset the partition
//! had, so that offsets are never reused), DeleteRecords moves the log start offset up (dropping
//! the batches wholly below it), and the high watermark, the
//! last stable offset and the next offset are one number. Each partition also holds the state of
//! its idempotent producers ([`crate::services::producers`]), which lives and dies with its records.

pub mod batch;
pub mod log;
pub mod table;

#[cfg(test)]
pub(crate) mod tests;
