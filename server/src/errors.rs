//! The Kafka error codes the server answers with (decimal codes of Kafka's `Errors`).
//!
//! Group-coordinator codes live in [`kwire_protocol::coordinator::error_codes`].

/// No error.
pub const NONE: i16 = 0;
/// Unexpected server error.
pub const UNKNOWN_SERVER_ERROR: i16 = -1;
/// The fetch offset is outside the partition's log.
pub const OFFSET_OUT_OF_RANGE: i16 = 1;
/// A record batch failed its CRC check.
pub const CORRUPT_MESSAGE: i16 = 2;
/// The topic or partition does not exist.
pub const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;
/// The committed offset's metadata is longer than 4096 bytes (`offset.metadata.max.bytes`).
pub const OFFSET_METADATA_TOO_LARGE: i16 = 12;
/// Not the coordinator: what a group API answers for a storage error (Kafka's translation).
pub const NOT_COORDINATOR: i16 = 16;
/// The request's acks value is not -1, 0 or 1.
pub const INVALID_REQUIRED_ACKS: i16 = 21;
/// A blank group id.
pub const INVALID_GROUP_ID: i16 = 24;
/// Illegal topic name.
pub const INVALID_TOPIC_EXCEPTION: i16 = 17;
/// The topic already exists.
pub const TOPIC_ALREADY_EXISTS: i16 = 36;
/// Invalid partition count.
pub const INVALID_PARTITIONS: i16 = 37;
/// Invalid replication factor.
pub const INVALID_REPLICATION_FACTOR: i16 = 38;
/// Invalid replica assignment.
pub const INVALID_REPLICA_ASSIGNMENT: i16 = 39;
/// Invalid topic configuration.
pub const INVALID_CONFIG: i16 = 40;
/// A malformed or inconsistent request.
pub const INVALID_REQUEST: i16 = 42;
/// The API version is not supported (ApiVersions).
pub const UNSUPPORTED_VERSION: i16 = 35;
/// The durable log could not be written.
pub const KAFKA_STORAGE_ERROR: i16 = 56;
/// The fetch session id is unknown (the server never creates fetch sessions).
pub const FETCH_SESSION_ID_NOT_FOUND: i16 = 70;
/// A record batch is invalid (bad magic, more than one batch, control batch from a client).
pub const INVALID_RECORD: i16 = 87;
/// The topic id is unknown.
pub const UNKNOWN_TOPIC_ID: i16 = 100;
