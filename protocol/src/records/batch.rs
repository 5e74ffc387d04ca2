//! The fixed 61-byte header of a RecordBatch v2 and its attribute bits.

/// A record batch's compression codec: bits 0-2 of the attributes (Kafka's `CompressionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    /// 0: uncompressed.
    #[default]
    None,
    /// 1: gzip (RFC 1952).
    Gzip,
    /// 2: snappy (xerial framing as Kafka writes it; raw snappy blocks are read too).
    Snappy,
    /// 3: lz4 frame format (as Kafka's `Lz4BlockOutputStream`).
    Lz4,
    /// 4: zstd (KIP-110).
    Zstd,
}

/// Bit 3 of the attributes (Kafka's `TimestampType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimestampType {
    /// The producer's timestamps (bit clear).
    #[default]
    CreateTime,
    /// The broker's append time (bit set); readers use `max_timestamp` for every record.
    LogAppendTime,
}

/// The int16 attributes of a RecordBatch v2: compression (bits 0-2), timestamp type (3),
/// transactional (4), control (5), delete horizon set (6, KIP-534).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Attributes(pub i16);

/// The header of a RecordBatch v2 (magic 2), every field in wire order (Kafka's
/// `DefaultRecordBatch`). For legacy entries (magic 0 and 1) the fields a legacy message lacks
/// hold Kafka's "no value" (`-1`, `NO_PRODUCER_ID`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BatchHeader {
    /// Offset of the first record (int64).
    pub base_offset: i64,
    /// Bytes after this field to the end of the batch (int32).
    pub batch_length: i32,
    /// Leader epoch stamped by the broker (int32, -1 when unknown).
    pub partition_leader_epoch: i32,
    /// Format version: 2 (0 and 1 for legacy message sets).
    pub magic: i8,
    /// CRC-32C of the bytes from `attributes` to the end of the batch (uint32).
    pub crc: u32,
    /// Attribute bits.
    pub attributes: Attributes,
    /// Offset of the last record minus `base_offset` (int32).
    pub last_offset_delta: i32,
    /// Timestamp of the first record, ms (int64; with the delete-horizon flag: the delete horizon).
    pub base_timestamp: i64,
    /// Largest record timestamp, ms (int64).
    pub max_timestamp: i64,
    /// Producer id (int64, -1 without idempotence).
    pub producer_id: i64,
    /// Producer epoch (int16, -1 without idempotence).
    pub producer_epoch: i16,
    /// Sequence number of the first record (int32, -1 without idempotence).
    pub base_sequence: i32,
    /// Number of records (int32).
    pub record_count: i32,
}
