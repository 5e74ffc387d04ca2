//! The compression codecs of record batches: gzip, snappy, lz4 and zstd (attribute bits 0-2,
//! Kafka's `CompressionType`), each behind the cargo feature of its name (all four on by default).
//! A codec left out of the build answers [`RecordsErrorKind::CompressionUnsupported`].
//!
//! [`compress`] writes what Kafka's producer writes; [`decompress`] reads that and what the other
//! clients send, and never produces, nor reserves room for, more than the caller's limit.
//!
//! ## The crates, and why
//!
//! * **gzip: [`flate2`]** on its default backend, `miniz_oxide`: pure Rust, so no C toolchain, and
//!   the most used deflate crate. Kafka writes one gzip member (`GZIPOutputStream`, default level
//!   6); reading accepts several concatenated members, as Java's `GZIPInputStream` does. The
//!   trailer's CRC-32 and length are checked.
//! * **snappy: [`snap`]**, for the raw snappy block format only (pure Rust, the snappy crate the
//!   ecosystem uses). Kafka's snappy is not the snappy frame format but snappy-java's
//!   `SnappyOutputStream` ("xerial") framing, which this module writes and reads itself: an
//!   8-byte magic `82 'S' 'N' 'A' 'P' 'P' 'Y' 00`, an int32 version (1) and an int32 compatible
//!   version (1), big-endian, then blocks, each an int32 big-endian length and a raw snappy block
//!   of at most 32 KiB of input. librdkafka and other clients send one raw snappy block with no
//!   framing; snappy-java's reader falls back to that when the magic is absent, and so does
//!   [`decompress`].
//! * **lz4: [`lz4_flex`]** with its safe (no `unsafe`) encoder and decoder: pure Rust and the LZ4
//!   *frame* format, which is what Kafka's `Lz4BlockOutputStream` writes: magic `0x184D2204`,
//!   FLG version 01 with independent blocks and no block checksum, content size or content
//!   checksum, BD 64 KiB blocks, and the header checksum of the spec. Legacy (magic 0) messages of
//!   Kafka before 0.10 computed that header checksum wrongly (Kafka's
//!   `useBrokenFlagDescriptorChecksum`); such frames are refused here as corrupt.
//! * **zstd: [`zstd`]**, the bindings to libzstd, the reference implementation that Kafka uses
//!   too (zstd-jni): full speed for encode and decode and every frame feature. The pure-Rust
//!   decoder (`ruzstd`) would spare the C build but decodes several times slower and cannot encode
//!   at Kafka's levels; the C library is built from source by `zstd-sys` (vendored, no system
//!   library needed). Kafka's `ZstdFactory` writes at level 3 by default, as [`compress`] does.
//!
//! ## Bounded decompression
//!
//! Every decoder is read as a [`Read`] in chunks of at most [`CHUNK`] bytes, and `out` grows by
//! this module, never by `Vec`'s doubling past the limit: its capacity stays below
//! `out.len()` (at entry) + `limit` + 1. Past `limit` decompressed bytes the call stops with
//! [`RecordsErrorKind::DecompressedTooLarge`]. The decoders' own state is bounded too: miniz_oxide
//! keeps a 32 KiB window, lz4_flex one block of at most 4 MiB, snappy's declared block length is
//! refused before allocating when it passes the remaining limit (or the most a snappy block can
//! expand), zstd's window is capped by [`zstd_window_log_max`] and a frame whose header declares a
//! content size above the limit is refused before decoding anything. A kilobyte that inflates to
//! gigabytes costs at most about the limit, whatever the codec.
//!
//! Errors returned here carry `offset` counted from the start of `input` (0 when the codec's
//! decoder does not say where), and no batch or record index: the caller adds those.

use super::attributes::Compression;
use super::error::{RecordsError, RecordsErrorKind};
#[allow(unused_imports)]
use std::io::{Read, Write};

/// Bytes read from a decoder at a time, and the step `out` grows by at least.
pub const CHUNK: usize = 64 * 1024;

/// Kafka's snappy block size: snappy-java's `SnappyOutputStream` compresses 32 KiB of input per
/// block (its `DEFAULT_BLOCK_SIZE`).
pub const SNAPPY_XERIAL_BLOCK_SIZE: usize = 32 * 1024;

/// snappy-java's stream magic (`SnappyCodec.MAGIC_HEADER`), followed by two big-endian int32s:
/// version 1 and compatible version 1.
pub const SNAPPY_XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];

/// Kafka's default zstd level (`ZstdFactory`, `CompressionType.ZSTD.defaultLevel()`).
pub const ZSTD_DEFAULT_LEVEL: i32 = 3;

/// Kafka's default gzip level (`Deflater.DEFAULT_COMPRESSION`, which is zlib's level 6).
pub const GZIP_DEFAULT_LEVEL: u32 = 6;

fn error(kind: RecordsErrorKind, offset: usize) -> RecordsError {
    RecordsError {
        kind,
        offset,
        batch: None,
        record: None,
        in_decompressed: false,
    }
}

fn too_large(limit: usize) -> RecordsError {
    error(RecordsErrorKind::DecompressedTooLarge { limit }, 0)
}

#[allow(dead_code)]
fn corrupt(codec: Compression, offset: usize, what: impl std::fmt::Display) -> RecordsError {
    error(
        RecordsErrorKind::Decompression(format!("{}: {what}", codec_name(codec))),
        offset,
    )
}

fn codec_name(codec: Compression) -> &'static str {
    match codec {
        Compression::None => "none",
        Compression::Gzip => "gzip",
        Compression::Snappy => "snappy",
        Compression::Lz4 => "lz4",
        Compression::Zstd => "zstd",
    }
}

#[allow(dead_code)]
fn unsupported(codec: Compression) -> RecordsError {
    error(RecordsErrorKind::CompressionUnsupported(codec), 0)
}

/// Compresses `input` with `codec` as Kafka's producer does and appends the result to `out`.
///
/// * [`Compression::None`]: copies `input`.
/// * [`Compression::Gzip`]: one gzip member (RFC 1952) at level 6.
/// * [`Compression::Snappy`]: snappy-java's xerial framing, blocks of 32 KiB of input.
/// * [`Compression::Lz4`]: one LZ4 frame as Kafka's `Lz4BlockOutputStream`: independent 64 KiB
///   blocks, no checksums but the header's, no content size.
/// * [`Compression::Zstd`]: one zstd frame at level 3.
///
/// # Errors
///
/// [`RecordsErrorKind::CompressionUnsupported`] for a codec whose feature is off;
/// [`RecordsErrorKind::Compression`] when the codec fails (only on resource errors of libzstd).
pub fn compress(codec: Compression, input: &[u8], out: &mut Vec<u8>) -> Result<(), RecordsError> {
    match codec {
        Compression::None => {
            out.extend_from_slice(input);
            Ok(())
        }
        Compression::Gzip => gzip_compress(input, out),
        Compression::Snappy => snappy_compress(input, out),
        Compression::Lz4 => lz4_compress(input, out),
        Compression::Zstd => zstd_compress(input, out),
    }
}

/// Decompresses `input` (the records part of a batch compressed with `codec`) and appends the
/// result to `out`, producing at most `limit` bytes.
///
/// Reads what Kafka and the other clients write: gzip (one or more members), snappy in xerial
/// framing or as one raw block, LZ4 frames (one or more), zstd frames (one or more).
/// [`Compression::None`] copies `input`. `out`'s capacity never grows past its length at entry +
/// `limit` + 1.
///
/// # Errors
///
/// * [`RecordsErrorKind::DecompressedTooLarge`] as soon as the output would pass `limit` bytes
///   (`out` then holds a prefix of the output; callers discard it).
/// * [`RecordsErrorKind::Decompression`] when `input` is not valid for the codec (truncated,
///   corrupt, checksum mismatch), with the codec's name and its decoder's message.
/// * [`RecordsErrorKind::CompressionUnsupported`] for a codec whose feature is off.
pub fn decompress(
    codec: Compression,
    input: &[u8],
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), RecordsError> {
    match codec {
        Compression::None => {
            if input.len() > limit {
                return Err(too_large(limit));
            }
            out.reserve_exact(input.len());
            out.extend_from_slice(input);
            Ok(())
        }
        Compression::Gzip => gzip_decompress(input, limit, out),
        Compression::Snappy => snappy_decompress(input, limit, out),
        Compression::Lz4 => lz4_decompress(input, limit, out),
        Compression::Zstd => zstd_decompress(input, limit, out),
    }
}

/// Copies everything `reader` yields into `out`, at most `limit` bytes, growing `out` by hand so
/// that its capacity never passes `out.len()` at entry + `limit` + 1. `hint` is a guess of the
/// output size (the first reservation, capped by the limit). Each byte of new capacity is zeroed
/// once (`Read` takes an initialised slice), then read into.
#[allow(dead_code)]
fn read_bounded<R: Read>(
    codec: Compression,
    mut reader: R,
    hint: usize,
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), RecordsError> {
    let start = out.len();
    // One byte past the limit is read to tell "exactly the limit" from "more".
    let ceiling = start.saturating_add(limit).saturating_add(1);
    let first = hint.max(CHUNK).min(ceiling - start);
    if out.capacity() - start < first {
        out.reserve_exact(first);
    }
    let mut filled = start;
    loop {
        if filled == ceiling {
            out.truncate(start + limit);
            return Err(too_large(limit));
        }
        if filled == out.len() {
            if out.capacity() == out.len() {
                // Double what this call has produced (at least a chunk), never past the ceiling.
                let grow = (filled - start).max(CHUNK).min(ceiling - filled);
                out.reserve_exact(grow);
            }
            let len = out.capacity().min(ceiling);
            out.resize(len, 0);
        }
        match reader.read(&mut out[filled..]) {
            Ok(0) => {
                out.truncate(filled);
                return Ok(());
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                out.truncate(filled);
                return Err(io_error(codec, e));
            }
        }
    }
}

#[allow(dead_code)]
fn io_error(codec: Compression, e: std::io::Error) -> RecordsError {
    corrupt(codec, 0, e)
}

// ---------------------------------------------------------------------------------------------
// gzip

#[cfg(feature = "gzip")]
fn gzip_compress(input: &[u8], out: &mut Vec<u8>) -> Result<(), RecordsError> {
    let mut encoder =
        flate2::write::GzEncoder::new(out, flate2::Compression::new(GZIP_DEFAULT_LEVEL));
    encoder
        .write_all(input)
        .and_then(|()| encoder.try_finish())
        .map_err(|e| error(RecordsErrorKind::Compression(format!("gzip: {e}")), 0))
}

#[cfg(feature = "gzip")]
fn gzip_decompress(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), RecordsError> {
    // `bufread` decoders read the input slice in place (no copy into a buffer of their own).
    let decoder = flate2::bufread::MultiGzDecoder::new(input);
    read_bounded(
        Compression::Gzip,
        decoder,
        input.len().saturating_mul(4),
        limit,
        out,
    )
}

#[cfg(not(feature = "gzip"))]
fn gzip_compress(_: &[u8], _: &mut Vec<u8>) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Gzip))
}

#[cfg(not(feature = "gzip"))]
fn gzip_decompress(_: &[u8], _: usize, _: &mut Vec<u8>) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Gzip))
}

// ---------------------------------------------------------------------------------------------
// snappy

/// The xerial header: magic, version 1, compatible version 1.
#[cfg(feature = "snappy")]
const SNAPPY_XERIAL_HEADER_LEN: usize = 16;

/// The most output one byte of a raw snappy block can give: a copy element of 3 bytes (tag and
/// 2-byte offset) writes at most 64 bytes, so no valid block expands past 64/3 (about 21.4) times
/// its length. Blocks claiming more are refused before anything is allocated.
#[cfg(feature = "snappy")]
const SNAPPY_MAX_EXPANSION: usize = 22;

#[cfg(feature = "snappy")]
fn snappy_compress(input: &[u8], out: &mut Vec<u8>) -> Result<(), RecordsError> {
    let mut encoder = snap::raw::Encoder::new();
    let blocks = input.len().div_ceil(SNAPPY_XERIAL_BLOCK_SIZE);
    out.reserve(SNAPPY_XERIAL_HEADER_LEN + blocks * 4 + snap::raw::max_compress_len(input.len()));
    out.extend_from_slice(&SNAPPY_XERIAL_MAGIC);
    out.extend_from_slice(&1i32.to_be_bytes());
    out.extend_from_slice(&1i32.to_be_bytes());
    for block in input.chunks(SNAPPY_XERIAL_BLOCK_SIZE) {
        let at = out.len();
        let max = snap::raw::max_compress_len(block.len());
        out.resize(at + 4 + max, 0);
        let n = encoder
            .compress(block, &mut out[at + 4..])
            .map_err(|e| error(RecordsErrorKind::Compression(format!("snappy: {e}")), 0))?;
        out.truncate(at + 4 + n);
        // A block is at most max_compress_len(32 KiB) < 2^31 bytes.
        out[at..at + 4].copy_from_slice(&(n as i32).to_be_bytes());
    }
    Ok(())
}

#[cfg(feature = "snappy")]
fn snappy_decompress(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), RecordsError> {
    let start = out.len();
    let mut decoder = snap::raw::Decoder::new();
    if input.len() < SNAPPY_XERIAL_HEADER_LEN || input[..8] != SNAPPY_XERIAL_MAGIC {
        // One raw block (librdkafka and others), as snappy-java reads a stream without magic.
        return snappy_block(&mut decoder, input, 0, start, limit, out);
    }
    let mut pos = 0;
    while pos < input.len() {
        // snappy-java reads concatenated streams: a magic where a block starts begins another.
        if input.len() - pos >= SNAPPY_XERIAL_HEADER_LEN
            && input[pos..pos + 8] == SNAPPY_XERIAL_MAGIC
        {
            let compatible = i32::from_be_bytes(input[pos + 12..pos + 16].try_into().unwrap());
            if compatible < 1 {
                return Err(corrupt(
                    Compression::Snappy,
                    pos + 12,
                    format_args!("xerial compatible version {compatible}, expected 1"),
                ));
            }
            pos += SNAPPY_XERIAL_HEADER_LEN;
            continue;
        }
        if input.len() - pos < 4 {
            return Err(corrupt(
                Compression::Snappy,
                pos,
                format_args!(
                    "xerial block length cut short ({} of 4 bytes)",
                    input.len() - pos
                ),
            ));
        }
        let len = i32::from_be_bytes(input[pos..pos + 4].try_into().unwrap());
        let body = pos + 4;
        if len < 0 || len as usize > input.len() - body {
            return Err(corrupt(
                Compression::Snappy,
                pos,
                format_args!(
                    "xerial block length {len}, {} bytes left",
                    input.len() - body
                ),
            ));
        }
        let end = body + len as usize;
        snappy_block(&mut decoder, &input[body..end], body, start, limit, out)?;
        pos = end;
    }
    Ok(())
}

/// Decompresses one raw snappy block at `offset` of the input, appending to `out`, whose length
/// was `start` at entry of [`decompress`].
#[cfg(feature = "snappy")]
fn snappy_block(
    decoder: &mut snap::raw::Decoder,
    block: &[u8],
    offset: usize,
    start: usize,
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), RecordsError> {
    let claimed =
        snap::raw::decompress_len(block).map_err(|e| corrupt(Compression::Snappy, offset, e))?;
    let produced = out.len() - start;
    if claimed > limit - produced {
        return Err(too_large(limit));
    }
    if claimed / SNAPPY_MAX_EXPANSION > block.len() {
        return Err(corrupt(
            Compression::Snappy,
            offset,
            format_args!(
                "block of {} bytes claims {claimed} bytes, more than snappy can expand to",
                block.len()
            ),
        ));
    }
    let at = out.len();
    if out.capacity() - at < claimed {
        // Grow by what this call has produced so far (doubling across xerial blocks), at least
        // the block, never past the limit.
        out.reserve_exact(produced.max(claimed).min(limit - produced));
    }
    out.resize(at + claimed, 0);
    match decoder.decompress(block, &mut out[at..]) {
        Ok(n) if n == claimed => Ok(()),
        Ok(n) => {
            out.truncate(at);
            Err(corrupt(
                Compression::Snappy,
                offset,
                format_args!("block gave {n} bytes, its header claims {claimed}"),
            ))
        }
        Err(e) => {
            out.truncate(at);
            Err(corrupt(Compression::Snappy, offset, e))
        }
    }
}

#[cfg(not(feature = "snappy"))]
fn snappy_compress(_: &[u8], _: &mut Vec<u8>) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Snappy))
}

#[cfg(not(feature = "snappy"))]
fn snappy_decompress(_: &[u8], _: usize, _: &mut Vec<u8>) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Snappy))
}

// ---------------------------------------------------------------------------------------------
// lz4

#[cfg(feature = "lz4")]
fn lz4_compress(input: &[u8], out: &mut Vec<u8>) -> Result<(), RecordsError> {
    use lz4_flex::frame::{BlockMode, BlockSize, FrameEncoder, FrameInfo};
    let info = FrameInfo::new()
        .block_size(BlockSize::Max64KB)
        .block_mode(BlockMode::Independent)
        .block_checksums(false)
        .content_checksum(false)
        .content_size(None);
    let mut encoder = FrameEncoder::with_frame_info(info, out);
    encoder
        .write_all(input)
        .map_err(|e| error(RecordsErrorKind::Compression(format!("lz4: {e}")), 0))?;
    encoder
        .finish()
        .map(|_| ())
        .map_err(|e| error(RecordsErrorKind::Compression(format!("lz4: {e}")), 0))
}

#[cfg(feature = "lz4")]
fn lz4_decompress(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), RecordsError> {
    if lz4_frames_complete(input)? {
        return lz4_decode_frames(input, limit, out);
    }
    let decoder = lz4_flex::frame::FrameDecoder::new(input);
    read_bounded(
        Compression::Lz4,
        decoder,
        input.len().saturating_mul(4),
        limit,
        out,
    )
}

/// Decodes LZ4 frames (and skips skippable ones) block by block straight into `out`, as
/// [`decompress`] promises (at most `limit` bytes, capacity never past the length at entry +
/// `limit` + 1). Each block is decompressed in place after the output so far; linked blocks
/// (block independence off) read the previous 64 KiB of output as their dictionary. The frame
/// header checksum, block checksums and content checksum are verified when present. Frames were
/// walked by [`lz4_frames_complete`] first (complete, no legacy frame, no dictionary id).
#[cfg(feature = "lz4")]
#[inline(never)]
fn lz4_decode_frames(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), RecordsError> {
    use lz4_flex::block::{decompress_into, decompress_into_with_dict, DecompressError};
    use xxhash_rust::xxh32::xxh32;
    let start = out.len();
    let ceiling = start.saturating_add(limit).saturating_add(1);
    let fail = |out: &mut Vec<u8>, e: RecordsError| {
        out.truncate(start);
        Err(e)
    };
    // The walk checked every length below; `get` keeps a mistake from panicking.
    let u32_at = |pos: usize| {
        input
            .get(pos..pos + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut pos = 0;
    let mut first_reserve = input.len().saturating_mul(4);
    while pos < input.len() {
        if u32_at(pos) & 0xFFFF_FFF0 == 0x184D_2A50 {
            pos += 8 + u32_at(pos + 4) as usize;
            continue;
        }
        let frame_at = pos;
        let (flg, bd) = (input[pos + 4], input[pos + 5]);
        if flg & 0xC0 != 0x40 {
            return fail(
                out,
                corrupt(
                    Compression::Lz4,
                    pos + 4,
                    format_args!("frame version {}, expected 1", flg >> 6),
                ),
            );
        }
        if flg & 0x02 != 0 || bd & 0x8F != 0 {
            return fail(
                out,
                corrupt(
                    Compression::Lz4,
                    pos + 4,
                    "reserved frame descriptor bits set",
                ),
            );
        }
        let block_max = match (bd >> 4) & 7 {
            4 => 64 << 10,
            5 => 256 << 10,
            6 => 1 << 20,
            7 => 4 << 20,
            code => {
                return fail(
                    out,
                    corrupt(
                        Compression::Lz4,
                        pos + 5,
                        format_args!("block size code {code}, expected 4-7"),
                    ),
                )
            }
        };
        let linked = flg & 0x20 == 0;
        let block_checksum = flg & 0x10 != 0;
        let content_checksum = flg & 0x04 != 0;
        pos += 6;
        if flg & 0x08 != 0 {
            let size = u64::from(u32_at(pos)) | u64::from(u32_at(pos + 4)) << 32;
            if size > (limit - (out.len() - start)) as u64 {
                return fail(out, too_large(limit));
            }
            first_reserve = size as usize;
            pos += 8;
        }
        if xxh32(&input[frame_at + 4..pos], 0) >> 8 & 0xFF != u32::from(input[pos]) {
            return fail(
                out,
                corrupt(Compression::Lz4, pos, "frame header checksum mismatch"),
            );
        }
        pos += 1;
        let frame_start = out.len();
        loop {
            let word = u32_at(pos);
            let block_at = pos;
            pos += 4;
            if word == 0 {
                break;
            }
            let len = (word & 0x7FFF_FFFF) as usize;
            if len > block_max {
                return fail(
                    out,
                    corrupt(
                        Compression::Lz4,
                        block_at,
                        format_args!("block of {len} bytes above the frame's {block_max}"),
                    ),
                );
            }
            let data = &input[pos..pos + len];
            pos += len;
            if block_checksum {
                if xxh32(data, 0) != u32_at(pos) {
                    return fail(
                        out,
                        corrupt(Compression::Lz4, pos, "block checksum mismatch"),
                    );
                }
                pos += 4;
            }
            let at = out.len();
            // Room for the block's output: the frame's block size, or one byte past the limit.
            let room = block_max.min(ceiling - at);
            if out.capacity() - at < room {
                let grow = (at - start).max(first_reserve).max(room).min(ceiling - at);
                out.reserve_exact(grow);
            }
            if word & 0x8000_0000 != 0 {
                if len > limit - (at - start) {
                    return fail(out, too_large(limit));
                }
                out.extend_from_slice(data);
                continue;
            }
            out.resize(at + room, 0);
            let (before, after) = out.split_at_mut(at);
            let result = if linked && at > frame_start {
                let dict = &before[at.saturating_sub(64 << 10).max(frame_start)..];
                decompress_into_with_dict(data, after, dict)
            } else {
                decompress_into(data, after)
            };
            match result {
                Ok(n) if at + n < ceiling => out.truncate(at + n),
                // One byte past the limit, or more than the room the limit left.
                Ok(_) => return fail(out, too_large(limit)),
                Err(DecompressError::OutputTooSmall { .. }) if room < block_max => {
                    return fail(out, too_large(limit))
                }
                Err(e) => return fail(out, corrupt(Compression::Lz4, block_at + 4, e)),
            }
        }
        if content_checksum {
            if xxh32(&out[frame_start..], 0) != u32_at(pos) {
                return fail(
                    out,
                    corrupt(Compression::Lz4, pos, "content checksum mismatch"),
                );
            }
            pos += 4;
        }
    }
    Ok(())
}

/// Decompresses the lz4 value of a magic-0 legacy wrapper message. Kafka before 0.10 wrote the
/// frame's header checksum over the magic number too (KAFKA-3160), and its reader ignores that
/// byte for magic 0 (`KafkaLZ4BlockInputStream`'s `ignoreFlagDescriptorChecksum`); this puts the
/// right checksum in front of the frame's blocks (the input is not copied), then decompresses as
/// [`decompress`] does.
///
/// # Errors
/// As [`decompress`] for lz4.
#[cfg(feature = "lz4")]
pub(crate) fn lz4_decompress_magic0(
    input: &[u8],
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), RecordsError> {
    use std::io::Read as _;
    lz4_frames_complete(input)?;
    // Magic (4), FLG, BD, [content size (8)], [dictionary id (4)], then the checksum byte.
    let flg = *input
        .get(4)
        .ok_or_else(|| corrupt(Compression::Lz4, 4, "frame cut short"))?;
    let hc_at = 6 + if flg & 0x08 != 0 { 8 } else { 0 } + if flg & 0x01 != 0 { 4 } else { 0 };
    let mut header = input
        .get(..=hc_at)
        .ok_or_else(|| corrupt(Compression::Lz4, 4, "frame cut short"))?
        .to_vec();
    header[hc_at] = (xxhash_rust::xxh32::xxh32(&input[4..hc_at], 0) >> 8) as u8;
    let decoder = lz4_flex::frame::FrameDecoder::new(header.as_slice().chain(&input[hc_at + 1..]));
    read_bounded(
        Compression::Lz4,
        decoder,
        input.len().saturating_mul(4),
        limit,
        out,
    )
}

#[cfg(not(feature = "lz4"))]
pub(crate) fn lz4_decompress_magic0(
    _: &[u8],
    _: usize,
    _: &mut Vec<u8>,
) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Lz4))
}

/// Walks the LZ4 frames of `input` by their block sizes (no decoding) and checks each ends with
/// its end mark (and content checksum when flagged). lz4_flex's reader takes a clean end of input
/// where a block size is due as the end of the stream, which would let a frame cut at a block
/// boundary pass as a shorter one; Kafka's reader refuses it, and so does this. `Ok(true)` when
/// every frame is a standard or skippable one without a dictionary id (what
/// [`lz4_decode_frames`] decodes); `Ok(false)` for a legacy frame or a dictionary id.
#[cfg(feature = "lz4")]
fn lz4_frames_complete(input: &[u8]) -> Result<bool, RecordsError> {
    const MAGIC: u32 = 0x184D_2204;
    const LEGACY_MAGIC: u32 = 0x184C_2102;
    let u32_at = |pos: usize| -> Result<u32, RecordsError> {
        input
            .get(pos..pos + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .ok_or_else(|| corrupt(Compression::Lz4, pos, "frame cut short"))
    };
    let (mut pos, mut simple) = (0, true);
    while pos < input.len() {
        let magic = u32_at(pos)?;
        if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            // A skippable frame: magic, size, bytes.
            let size = u32_at(pos + 4)? as usize;
            pos = (pos + 8)
                .checked_add(size)
                .filter(|&end| end <= input.len())
                .ok_or_else(|| corrupt(Compression::Lz4, pos, "skippable frame cut short"))?;
            continue;
        }
        if magic == LEGACY_MAGIC {
            // The legacy format has no end mark: its blocks run to the end of the input.
            return Ok(false);
        }
        if magic != MAGIC {
            return Err(corrupt(
                Compression::Lz4,
                pos,
                format_args!("frame magic {magic:#010x}, expected 0x184d2204"),
            ));
        }
        let flg = *input
            .get(pos + 4)
            .ok_or_else(|| corrupt(Compression::Lz4, pos + 4, "frame cut short"))?;
        let block_checksum = flg & 0x10 != 0;
        let content_size = flg & 0x08 != 0;
        let content_checksum = flg & 0x04 != 0;
        let dict_id = flg & 0x01 != 0;
        simple &= !dict_id;
        // Magic, FLG, BD, [content size], [dictionary id], header checksum.
        pos += 4 + 2 + if content_size { 8 } else { 0 } + if dict_id { 4 } else { 0 } + 1;
        loop {
            let block = u32_at(pos)?;
            pos += 4;
            if block == 0 {
                break;
            }
            let len = (block & 0x7FFF_FFFF) as usize + if block_checksum { 4 } else { 0 };
            if len > input.len() - pos.min(input.len()) {
                return Err(corrupt(Compression::Lz4, pos - 4, "block cut short"));
            }
            pos += len;
        }
        if content_checksum {
            u32_at(pos)?;
            pos += 4;
        }
    }
    Ok(simple)
}

#[cfg(not(feature = "lz4"))]
fn lz4_compress(_: &[u8], _: &mut Vec<u8>) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Lz4))
}

#[cfg(not(feature = "lz4"))]
fn lz4_decompress(_: &[u8], _: usize, _: &mut Vec<u8>) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Lz4))
}

// ---------------------------------------------------------------------------------------------
// zstd

/// The largest zstd window (log2 of bytes) [`decompress`] accepts under `limit`: half the limit
/// rounded down to a power of two, at least 2^23 (8 MiB, the window RFC 8878 asks every decoder
/// to support and the largest that levels 1-19 use) and at most 2^27 (libzstd's default maximum).
/// The decoder keeps one window beside `out`, and touches no more of it than it has output, so
/// memory stays under about 1.5 × `limit` for limits of 16 MiB and more; a frame declaring a larger
/// window is refused before the window is allocated. Levels 20-22 (windows of 2^25-2^27) decode
/// when the limit is at least 4 times their window.
pub fn zstd_window_log_max(limit: usize) -> u32 {
    let floor_log2 = usize::BITS - 1 - limit.max(1).leading_zeros();
    floor_log2.saturating_sub(1).clamp(23, 27)
}

#[cfg(feature = "zstd")]
fn zstd_compress(input: &[u8], out: &mut Vec<u8>) -> Result<(), RecordsError> {
    let fail = |e: std::io::Error| error(RecordsErrorKind::Compression(format!("zstd: {e}")), 0);
    let mut encoder = zstd::stream::write::Encoder::new(out, ZSTD_DEFAULT_LEVEL).map_err(fail)?;
    encoder.include_checksum(false).map_err(fail)?;
    encoder
        .set_pledged_src_size(Some(input.len() as u64))
        .map_err(fail)?;
    encoder.write_all(input).map_err(fail)?;
    encoder.finish().map(|_| ()).map_err(fail)
}

#[cfg(feature = "zstd")]
fn zstd_decompress(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), RecordsError> {
    // A frame that says it holds more than the limit is refused before decoding. The declared
    // size is never trusted otherwise (not for allocation, not as the output's size).
    if let Ok(Some(size)) = zstd::zstd_safe::get_frame_content_size(input) {
        if size > limit as u64 {
            return Err(too_large(limit));
        }
    }
    let io = |e: std::io::Error| corrupt(Compression::Zstd, 0, e);
    let mut decoder = zstd::stream::read::Decoder::with_buffer(input).map_err(io)?;
    decoder
        .window_log_max(zstd_window_log_max(limit))
        .map_err(io)?;
    read_bounded(
        Compression::Zstd,
        decoder,
        input.len().saturating_mul(4),
        limit,
        out,
    )
}

#[cfg(not(feature = "zstd"))]
fn zstd_compress(_: &[u8], _: &mut Vec<u8>) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Zstd))
}

#[cfg(not(feature = "zstd"))]
fn zstd_decompress(_: &[u8], _: usize, _: &mut Vec<u8>) -> Result<(), RecordsError> {
    Err(unsupported(Compression::Zstd))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of `n` zero bytes, `step` at a time.
    struct Zeros {
        left: usize,
        step: usize,
    }

    impl Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.left.min(self.step).min(buf.len());
            buf[..n].fill(0);
            self.left -= n;
            Ok(n)
        }
    }

    #[test]
    fn read_bounded_never_grows_past_the_limit() {
        for (n, limit, step) in [
            (0, 0, 1),
            (10, 10, 3),
            (11, 10, 3),
            (CHUNK * 5 + 17, CHUNK * 5 + 17, 1000),
            (CHUNK * 5 + 18, CHUNK * 5 + 17, CHUNK),
            (1 << 24, 3 * CHUNK + 5, CHUNK / 3),
        ] {
            let mut out = vec![1, 2, 3];
            let r = read_bounded(
                Compression::Zstd,
                Zeros { left: n, step },
                0,
                limit,
                &mut out,
            );
            assert!(
                out.capacity() <= 3 + limit + 1,
                "{n} {limit}: {}",
                out.capacity()
            );
            assert_eq!(out[..3], [1, 2, 3]);
            if n <= limit {
                r.unwrap();
                assert_eq!(out.len(), 3 + n);
            } else {
                assert_eq!(
                    r.unwrap_err().kind,
                    RecordsErrorKind::DecompressedTooLarge { limit }
                );
                assert_eq!(out.len(), 3 + limit);
            }
        }
    }

    #[test]
    fn zstd_window_log_max_is_half_the_limit_within_23_to_27() {
        assert_eq!(zstd_window_log_max(0), 23);
        assert_eq!(zstd_window_log_max(16 << 20), 23);
        assert_eq!(zstd_window_log_max(64 << 20), 25);
        assert_eq!(zstd_window_log_max((64 << 20) - 1), 24);
        assert_eq!(zstd_window_log_max(1 << 30), 27);
        assert_eq!(zstd_window_log_max(usize::MAX), 27);
    }

    #[test]
    fn every_codec_round_trips_a_small_input() {
        let data = b"a record value, a record value, a record value".repeat(100);
        for codec in [
            Compression::None,
            Compression::Gzip,
            Compression::Snappy,
            Compression::Lz4,
            Compression::Zstd,
        ] {
            let mut frame = Vec::new();
            compress(codec, &data, &mut frame).unwrap();
            let mut out = Vec::new();
            decompress(codec, &frame, data.len(), &mut out).unwrap();
            assert_eq!(out, data, "{codec:?}");
        }
    }

    /// 300 KB that compresses, with runs repeating across 64 KiB block boundaries (so linked
    /// blocks reach into the previous block).
    #[cfg(feature = "lz4")]
    fn lz4_sample() -> Vec<u8> {
        let mut seed = 7u32;
        let phrases: Vec<Vec<u8>> = (0..40)
            .map(|i| {
                format!("field-{i}=value {i};")
                    .repeat(1 + i % 5)
                    .into_bytes()
            })
            .collect();
        let mut data = Vec::new();
        while data.len() < 300_000 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            data.extend_from_slice(&phrases[(seed >> 16) as usize % phrases.len()]);
            data.push((seed >> 8) as u8);
        }
        data
    }

    #[cfg(feature = "lz4")]
    fn lz4_frame(data: &[u8], linked: bool, block_checksums: bool, content: bool) -> Vec<u8> {
        use lz4_flex::frame::{BlockMode, BlockSize, FrameEncoder, FrameInfo};
        let info = FrameInfo::new()
            .block_size(BlockSize::Max64KB)
            .block_mode(if linked {
                BlockMode::Linked
            } else {
                BlockMode::Independent
            })
            .block_checksums(block_checksums)
            .content_checksum(content)
            .content_size(content.then_some(data.len() as u64));
        let mut encoder = FrameEncoder::with_frame_info(info, Vec::new());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[cfg(feature = "lz4")]
    #[test]
    fn lz4_blocks_decode_as_lz4_flex_reads_them() {
        let data = lz4_sample();
        for linked in [false, true] {
            for block_checksums in [false, true] {
                for content in [false, true] {
                    let frame = lz4_frame(&data, linked, block_checksums, content);
                    let what = format!("linked {linked}, checksums {block_checksums}/{content}");
                    assert!(lz4_frames_complete(&frame).unwrap(), "{what}");
                    let mut out = vec![9];
                    lz4_decompress(&frame, data.len(), &mut out).unwrap();
                    assert!(out[1..] == data[..], "{what}");
                    assert!(out.capacity() <= 1 + data.len() + 1, "{what}");
                    let mut reference = Vec::new();
                    lz4_flex::frame::FrameDecoder::new(&frame[..])
                        .read_to_end(&mut reference)
                        .unwrap();
                    assert!(reference == data, "{what}");
                }
            }
        }
    }

    #[cfg(feature = "lz4")]
    #[test]
    fn lz4_blocks_stop_at_the_limit() {
        let data = lz4_sample();
        for linked in [false, true] {
            let frame = lz4_frame(&data, linked, false, false);
            for limit in [0, 1, 65_535, 65_536, 100_000, data.len() - 1] {
                let mut out = vec![1, 2, 3];
                let e = lz4_decompress(&frame, limit, &mut out).unwrap_err();
                assert_eq!(e.kind, RecordsErrorKind::DecompressedTooLarge { limit });
                assert!(
                    out.capacity() <= 3 + limit + 1,
                    "{limit}: {}",
                    out.capacity()
                );
                assert_eq!(&out[..], &[1, 2, 3]);
            }
            // A declared content size above the limit is refused before any block.
            let frame = lz4_frame(&data, linked, false, true);
            let mut out = Vec::new();
            let e = lz4_decompress(&frame, data.len() - 1, &mut out).unwrap_err();
            assert_eq!(
                e.kind,
                RecordsErrorKind::DecompressedTooLarge {
                    limit: data.len() - 1
                }
            );
            assert_eq!(out.capacity(), 0);
        }
    }

    #[cfg(feature = "lz4")]
    #[test]
    fn lz4_frames_concatenate_and_skippable_frames_are_skipped() {
        let (a, b) = (b"first frame, ".repeat(50), b"second frame".repeat(50));
        let mut input = lz4_frame(&a, true, true, true);
        // A skippable frame: magic 0x184D2A5x, size, bytes.
        input.extend_from_slice(&0x184D_2A53u32.to_le_bytes());
        input.extend_from_slice(&3u32.to_le_bytes());
        input.extend_from_slice(b"xyz");
        input.extend_from_slice(&lz4_frame(&b, false, false, false));
        let mut out = Vec::new();
        lz4_decompress(&input, a.len() + b.len(), &mut out).unwrap();
        assert_eq!(out, [a, b].concat());
    }

    #[cfg(feature = "lz4")]
    #[test]
    fn lz4_checksums_are_verified() {
        let data = lz4_sample();
        let frame = lz4_frame(&data, true, true, true);
        // Header: magic, FLG, BD, content size (8), header checksum at 14; the first block's
        // size at 15, its data from 19.
        let size = u32::from_le_bytes(frame[15..19].try_into().unwrap()) as usize & 0x7FFF_FFFF;
        for (at, what) in [
            (14, "frame header checksum mismatch"),
            (19 + size, "block checksum mismatch"),
            (frame.len() - 1, "content checksum mismatch"),
        ] {
            let mut bad = frame.clone();
            bad[at] ^= 1;
            let mut out = Vec::new();
            let e = lz4_decompress(&bad, data.len(), &mut out).unwrap_err();
            assert!(
                matches!(&e.kind, RecordsErrorKind::Decompression(m) if m.contains(what)),
                "{at}: {e:?}"
            );
            assert!(out.is_empty());
        }
        // A corrupt block is an error of lz4_flex's, at the block's data.
        let mut bad = lz4_frame(&data, false, false, false);
        let first = u32::from_le_bytes(bad[7..11].try_into().unwrap()) as usize;
        assert_eq!(first & 0x8000_0000, 0, "the first block is compressed");
        bad[11..11 + first].fill(0xF0);
        let mut out = Vec::new();
        let e = lz4_decompress(&bad, data.len(), &mut out).unwrap_err();
        assert!(
            matches!(e.kind, RecordsErrorKind::Decompression(_)),
            "{e:?}"
        );
        assert_eq!(e.offset, 11);
    }

    #[cfg(feature = "lz4")]
    #[test]
    fn lz4_mutated_frames_give_errors_or_bounded_output() {
        // Two 64 KiB blocks and a bit, every flag combination, cut short and with bytes changed:
        // an error or output within the limit, never a panic, capacity within limit + 1.
        let data: Vec<u8> = lz4_sample().into_iter().take(140_000).collect();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for flags in 0..8 {
            let frame = lz4_frame(&data, flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
            for case in 0..300 {
                let mut bad = frame.clone();
                if case % 3 == 0 {
                    bad.truncate(next() as usize % frame.len());
                }
                for _ in 0..1 + case % 4 {
                    let at = next() as usize % bad.len().max(1);
                    if let Some(b) = bad.get_mut(at) {
                        *b = next() as u8;
                    }
                }
                let limit = [data.len(), 100_000, 70_000][case % 3];
                let mut out = Vec::new();
                if lz4_decompress(&bad, limit, &mut out).is_ok() {
                    assert!(out.len() <= limit);
                }
                assert!(out.capacity() <= limit + 1, "{flags} {case}");
            }
        }
    }
}
