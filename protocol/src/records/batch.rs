//! The fixed 61-byte header of a RecordBatch v2.

use super::attributes::Attributes;
use super::error::{RecordsError, RecordsErrorKind};

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

// Field offsets of the v2 header (Kafka's `DefaultRecordBatch` constants).
pub(crate) const BATCH_LENGTH_OFFSET: usize = 8;
pub(crate) const MAGIC_OFFSET: usize = 16;
pub(crate) const CRC_OFFSET: usize = 17;
/// The CRC-32C covers the bytes from here (attributes) to the end of the batch.
pub(crate) const ATTRIBUTES_OFFSET: usize = 21;
/// `base_offset` + `batch_length` (Kafka's `LOG_OVERHEAD`).
pub(crate) const LOG_OVERHEAD: usize = 12;
/// The smallest `batch_length` of a v2 batch: the header without its first 12 bytes.
pub(crate) const MIN_BATCH_LENGTH: i32 = (BatchHeader::SIZE - LOG_OVERHEAD) as i32;

#[inline(always)]
pub(crate) fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}
#[inline(always)]
pub(crate) fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
#[inline(always)]
pub(crate) fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
#[inline(always)]
pub(crate) fn be_i64(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl BatchHeader {
    /// Bytes of the v2 header, from `base_offset` to `record_count` inclusive (Kafka's
    /// `RECORD_BATCH_OVERHEAD`).
    pub const SIZE: usize = 61;

    /// Reads a magic-2 header from the first 61 bytes of `b` (bytes after them are ignored; the
    /// CRC is not checked here).
    ///
    /// # Errors
    /// [`RecordsErrorKind::Truncated`] when `b` is shorter than 61 bytes;
    /// [`RecordsErrorKind::UnknownMagic`] when the magic byte (offset 16) is not 2;
    /// [`RecordsErrorKind::Invalid`] when `batch_length` is below 49 (the header alone) or
    /// `record_count` is negative. Offsets in the error count from the start of `b`.
    pub fn parse(b: &[u8]) -> Result<BatchHeader, RecordsError> {
        if b.len() < Self::SIZE {
            return Err(RecordsError::truncated(b.len()));
        }
        let magic = b[MAGIC_OFFSET] as i8;
        if magic != 2 {
            return Err(RecordsError::new(
                RecordsErrorKind::UnknownMagic(magic),
                MAGIC_OFFSET,
            ));
        }
        let h = BatchHeader {
            base_offset: be_i64(b, 0),
            batch_length: be_i32(b, 8),
            partition_leader_epoch: be_i32(b, 12),
            magic,
            crc: be_u32(b, 17),
            attributes: Attributes(be_i16(b, 21)),
            last_offset_delta: be_i32(b, 23),
            base_timestamp: be_i64(b, 27),
            max_timestamp: be_i64(b, 35),
            producer_id: be_i64(b, 43),
            producer_epoch: be_i16(b, 51),
            base_sequence: be_i32(b, 53),
            record_count: be_i32(b, 57),
        };
        if h.batch_length < MIN_BATCH_LENGTH {
            return Err(RecordsError::invalid(
                format!(
                    "batch length {} is below the minimum {MIN_BATCH_LENGTH} of a v2 batch",
                    h.batch_length
                ),
                BATCH_LENGTH_OFFSET,
            ));
        }
        if h.record_count < 0 {
            return Err(RecordsError::invalid(
                format!("negative record count {}", h.record_count),
                57,
            ));
        }
        Ok(h)
    }

    /// Offset of the last record: `base_offset + last_offset_delta` (Kafka's
    /// `RecordBatch.lastOffset`).
    pub fn last_offset(&self) -> i64 {
        self.base_offset.wrapping_add(self.last_offset_delta as i64)
    }

    /// Bytes of the whole batch: 12 + `batch_length` (0 when `batch_length` is negative).
    pub fn size(&self) -> usize {
        LOG_OVERHEAD + usize::try_from(self.batch_length).unwrap_or(0)
    }

    /// Writes the 61 header bytes into `out[..61]`, with `self.crc` as it is (the caller fills
    /// the CRC after the records are in place).
    pub(crate) fn write_to(&self, out: &mut [u8]) {
        out[0..8].copy_from_slice(&self.base_offset.to_be_bytes());
        out[8..12].copy_from_slice(&self.batch_length.to_be_bytes());
        out[12..16].copy_from_slice(&self.partition_leader_epoch.to_be_bytes());
        out[16] = self.magic as u8;
        out[17..21].copy_from_slice(&self.crc.to_be_bytes());
        out[21..23].copy_from_slice(&self.attributes.0.to_be_bytes());
        out[23..27].copy_from_slice(&self.last_offset_delta.to_be_bytes());
        out[27..35].copy_from_slice(&self.base_timestamp.to_be_bytes());
        out[35..43].copy_from_slice(&self.max_timestamp.to_be_bytes());
        out[43..51].copy_from_slice(&self.producer_id.to_be_bytes());
        out[51..53].copy_from_slice(&self.producer_epoch.to_be_bytes());
        out[53..57].copy_from_slice(&self.base_sequence.to_be_bytes());
        out[57..61].copy_from_slice(&self.record_count.to_be_bytes());
    }
}

/// CRC-32C (Castagnoli, the iSCSI polynomial) of `data`: the checksum of a RecordBatch v2, which
/// Kafka computes over the batch from its attributes field (byte 21) to its end
/// (`DefaultRecordBatch`, `Crc32C`). Check value: `crc32c(b"123456789") == 0xE306_9283`.
pub fn crc32c(data: &[u8]) -> u32 {
    crc_fast::checksum(crc_fast::CrcAlgorithm::Crc32Iscsi, data) as u32
}

/// Fills in `batch_length` and the CRC-32C of a complete v2 batch in place (`batch` is the whole
/// batch, header included).
pub(crate) fn seal_batch(batch: &mut [u8]) {
    let len = (batch.len() - LOG_OVERHEAD) as i32;
    batch[BATCH_LENGTH_OFFSET..BATCH_LENGTH_OFFSET + 4].copy_from_slice(&len.to_be_bytes());
    let crc = crc32c(&batch[ATTRIBUTES_OFFSET..]);
    batch[CRC_OFFSET..CRC_OFFSET + 4].copy_from_slice(&crc.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_check_value() {
        // The CRC-32C check value (RFC 3720, iSCSI) and the empty input.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(b""), 0);
        let long: Vec<u8> = (0..100_000u32).map(|i| ((i * 31) >> 3) as u8).collect();
        // Beyond the SIMD block sizes: the same as byte-by-byte over the Castagnoli polynomial.
        let mut crc = !0u32;
        for &b in &long {
            crc ^= b as u32;
            for _ in 0..8 {
                crc = (crc >> 1) ^ (0x82F6_3B78 & (crc & 1).wrapping_neg());
            }
        }
        assert_eq!(crc32c(&long), !crc);
    }
    use crate::records::attributes::{Compression, TimestampType};

    #[test]
    fn compression_ids_and_names() {
        for id in 0..=4u8 {
            let c = Compression::from_id(id).unwrap();
            assert_eq!(c.id(), id);
        }
        assert_eq!(Compression::from_id(5), None);
        let names: Vec<_> = (0..=4)
            .map(|i| Compression::from_id(i).unwrap().name())
            .collect();
        assert_eq!(names, ["none", "gzip", "snappy", "lz4", "zstd"]);
    }

    #[test]
    fn attribute_bits() {
        let a = Attributes::new(Compression::Zstd, TimestampType::LogAppendTime, true, true);
        assert_eq!(a.0, 0x04 | 0x08 | 0x10 | 0x20);
        assert_eq!(a.compression(), Ok(Compression::Zstd));
        assert_eq!(a.timestamp_type(), TimestampType::LogAppendTime);
        assert!(a.is_transactional() && a.is_control() && !a.has_delete_horizon());
        assert!(Attributes(0x40).has_delete_horizon());
        assert_eq!(Attributes(0x07).compression(), Err(7));
        assert_eq!(Attributes(0).timestamp_type(), TimestampType::CreateTime);
    }

    #[test]
    fn header_parse_errors() {
        let mut b = [0u8; 61];
        assert_eq!(
            BatchHeader::parse(&b[..60]).unwrap_err().kind,
            RecordsErrorKind::Truncated
        );
        assert_eq!(
            BatchHeader::parse(&b).unwrap_err().kind,
            RecordsErrorKind::UnknownMagic(0)
        );
        b[16] = 2;
        let e = BatchHeader::parse(&b).unwrap_err();
        assert_eq!(
            (e.offset, matches!(e.kind, RecordsErrorKind::Invalid(_))),
            (8, true)
        );
        b[11] = 49;
        let h = BatchHeader::parse(&b).unwrap();
        assert_eq!((h.batch_length, h.size(), h.last_offset()), (49, 61, 0));
        b[57] = 0x80;
        assert_eq!(BatchHeader::parse(&b).unwrap_err().offset, 57);
    }
}
