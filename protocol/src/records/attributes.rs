//! The attribute bits of a record batch: compression codec, timestamp type, transactional,
//! control and delete-horizon flags (Kafka's `DefaultRecordBatch` attributes, int16).

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

impl Compression {
    /// The codec of attribute bits 0-2 (`id` 0..=4), `None` for 5..=7 and anything larger.
    pub fn from_id(id: u8) -> Option<Compression> {
        Some(match id {
            0 => Compression::None,
            1 => Compression::Gzip,
            2 => Compression::Snappy,
            3 => Compression::Lz4,
            4 => Compression::Zstd,
            _ => return None,
        })
    }

    /// The codec's id in attribute bits 0-2 (Kafka's `CompressionType.id`).
    pub fn id(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Gzip => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        }
    }

    /// Kafka's name of the codec (`CompressionType.name`, the `compression.type` values):
    /// `"none"`, `"gzip"`, `"snappy"`, `"lz4"`, `"zstd"`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
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

impl Attributes {
    const COMPRESSION_MASK: i16 = 0x07;
    const TIMESTAMP_TYPE: i16 = 0x08;
    const TRANSACTIONAL: i16 = 0x10;
    const CONTROL: i16 = 0x20;
    pub(crate) const DELETE_HORIZON: i16 = 0x40;

    /// The codec of bits 0-2; `Err(bits)` for the unassigned ids 5-7.
    pub fn compression(self) -> Result<Compression, u8> {
        let id = (self.0 & Self::COMPRESSION_MASK) as u8;
        Compression::from_id(id).ok_or(id)
    }

    /// Bit 3: [`TimestampType::LogAppendTime`] when set.
    pub fn timestamp_type(self) -> TimestampType {
        if self.0 & Self::TIMESTAMP_TYPE != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// Bit 4: the batch belongs to a transaction (KIP-98).
    pub fn is_transactional(self) -> bool {
        self.0 & Self::TRANSACTIONAL != 0
    }

    /// Bit 5: the batch holds control records (transaction markers).
    pub fn is_control(self) -> bool {
        self.0 & Self::CONTROL != 0
    }

    /// Bit 6: `base_timestamp` holds the delete horizon set by log compaction (KIP-534).
    pub fn has_delete_horizon(self) -> bool {
        self.0 & Self::DELETE_HORIZON != 0
    }

    /// Attributes with the given codec, timestamp type, transactional and control bits (the
    /// delete-horizon bit clear, as a producer writes them).
    pub fn new(c: Compression, t: TimestampType, transactional: bool, control: bool) -> Attributes {
        let mut a = c.id() as i16;
        if t == TimestampType::LogAppendTime {
            a |= Self::TIMESTAMP_TYPE;
        }
        if transactional {
            a |= Self::TRANSACTIONAL;
        }
        if control {
            a |= Self::CONTROL;
        }
        Attributes(a)
    }
}
