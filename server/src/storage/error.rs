//! The storage layer's errors: reading or writing the durable log ([`LogError`]) and a write a
//! request depended on ([`StorageError`]).

use std::path::PathBuf;

use kwire_protocol::wire::EncodeError;

/// A failure to read or write the log.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// File-system error.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not a kwire-server log of a format this version reads.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// An entry in the middle of the file does not check: the file is left as it is.
    #[error("{path}: corrupt entry at byte {offset}: {message}; the file was left as it is (restore it, or move it away to start empty)")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the entry in the file.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// Another process holds the data directory's lock.
    #[error("{path} is locked: another kwire-server{holder} uses this data directory")]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// " (pid N)" when the lock file names its holder, else empty.
        holder: String,
    },
    /// A failed append could not be cut off the file; appends are refused until it can be.
    #[error("{path}: cannot cut the file back to its last whole entry (byte {len}) after a failed write: {source}; appends are refused until it can be")]
    Repair {
        /// The file.
        path: PathBuf,
        /// The length of the file up to its last whole entry.
        len: u64,
        /// The error.
        source: std::io::Error,
    },
    /// An entry could not be encoded.
    #[error("encoding a log entry: {0}")]
    Encode(#[from] EncodeError),
}

/// A durable write that failed (the request's change is not in the log).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StorageError(pub String);
