//! How record sets are read: [`DecodeOptions`].

/// The default limit on the decompressed bytes of one batch: 64 MiB.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: usize = 64 * 1024 * 1024;

/// How record sets are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Largest number of bytes one batch may decompress to (bytes); past it decoding fails with
    /// [`RecordsErrorKind::DecompressedTooLarge`](super::RecordsErrorKind::DecompressedTooLarge) having allocated no more than this. Default
    /// [`DEFAULT_MAX_DECOMPRESSED_BYTES`] (64 MiB).
    pub max_decompressed_bytes: usize,
    /// Whether [`RecordSet::decode`](super::RecordSet::decode) checks each batch's CRC (CRC-32C for magic 2, CRC-32 for
    /// magic 0 and 1, as Kafka's `RecordBatch.ensureValid`). Default true.
    pub verify_crc: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
            verify_crc: true,
        }
    }
}
