//! Compression codecs of record batches.
//!
//! STUB (Stage 9 core): only [`Compression::None`] is handled here; the real codecs (gzip,
//! snappy, lz4, zstd behind their cargo features) replace this file.

use super::batch::Compression;
use super::error::{RecordsError, RecordsErrorKind};

/// Compresses `input` with `codec`, appending to `out`.
///
/// # Errors
/// [`RecordsErrorKind::CompressionUnsupported`] for a codec this build lacks;
/// [`RecordsErrorKind::Compression`] when the codec fails.
pub fn compress(codec: Compression, input: &[u8], out: &mut Vec<u8>) -> Result<(), RecordsError> {
    match codec {
        Compression::None => {
            out.extend_from_slice(input);
            Ok(())
        }
        other => Err(RecordsError::new(
            RecordsErrorKind::CompressionUnsupported(other),
            0,
        )),
    }
}

/// Decompresses `input` (compressed with `codec`), appending at most `limit` bytes to `out`.
///
/// # Errors
/// [`RecordsErrorKind::DecompressedTooLarge`] past `limit` bytes;
/// [`RecordsErrorKind::Decompression`] for invalid input;
/// [`RecordsErrorKind::CompressionUnsupported`] for a codec this build lacks. Offsets count
/// from the start of `input`.
pub fn decompress(
    codec: Compression,
    input: &[u8],
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), RecordsError> {
    match codec {
        Compression::None => {
            if input.len() > limit {
                return Err(RecordsError::new(
                    RecordsErrorKind::DecompressedTooLarge { limit },
                    0,
                ));
            }
            out.extend_from_slice(input);
            Ok(())
        }
        other => Err(RecordsError::new(
            RecordsErrorKind::CompressionUnsupported(other),
            0,
        )),
    }
}
