//! Kafka record batches (Stage 9). MINIMAL STAND-IN written by the codec helper so that
//! `compression.rs` compiles on its own branch; the core helper's `mod.rs` replaces it on merge.

mod batch;
pub mod compression;
mod error;

pub use batch::{Attributes, BatchHeader, Compression, TimestampType};
pub use error::{RecordsError, RecordsErrorKind};
