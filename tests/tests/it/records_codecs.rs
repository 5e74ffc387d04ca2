//! The record batch compression codecs (`kwire_protocol::records::compression`): round trips per
//! codec, the framings Kafka and other clients write, corrupt and truncated input, and
//! decompression bombs with their peak memory.
//!
//! Peak memory is measured as the resident set of a child process (this test binary, run again
//! with one test as filter and `KWIRE_BOMB_CHILD` set): libzstd allocates in C, where the counting
//! allocator of `alloc_count.rs` does not see it. The child reads `VmRSS` before and `VmHWM`
//! (the peak resident set) after decompressing, from `/proc/self/status`, and prints both.

use crate::alloc_count;
use kwire_protocol::records::compression::{
    compress, decompress, zstd_window_log_max, CHUNK, SNAPPY_XERIAL_MAGIC,
};
use kwire_protocol::records::{Compression, RecordsErrorKind};
use proptest::prelude::*;
use std::io::Write;

const CODECS: [Compression; 5] = [
    Compression::None,
    Compression::Gzip,
    Compression::Snappy,
    Compression::Lz4,
    Compression::Zstd,
];

const MIB: usize = 1024 * 1024;

fn compressed(codec: Compression, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    compress(codec, data, &mut out).unwrap();
    out
}

/// Compresses, decompresses behind a prefix already in `out` (the output is appended), with the
/// limit exactly the size and one byte below it.
fn round_trip(codec: Compression, data: &[u8]) {
    let frame = compressed(codec, data);
    let mut out = b"prefix".to_vec();
    decompress(codec, &frame, data.len(), &mut out).unwrap();
    assert_eq!(&out[..6], b"prefix");
    assert!(
        out[6..] == *data,
        "{codec:?}: round trip of {} bytes",
        data.len()
    );
    assert!(
        out.capacity() <= 6 + data.len() + 1 + CHUNK,
        "{codec:?}: capacity {} for {} bytes",
        out.capacity(),
        data.len()
    );
    if !data.is_empty() {
        let mut out = Vec::new();
        let err = decompress(codec, &frame, data.len() - 1, &mut out).unwrap_err();
        assert_eq!(
            err.kind,
            RecordsErrorKind::DecompressedTooLarge {
                limit: data.len() - 1
            },
            "{codec:?}"
        );
        assert!(
            out.capacity() <= data.len() + CHUNK,
            "{codec:?}: capacity {}",
            out.capacity()
        );
    }
}

fn payload() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Incompressible.
        prop::collection::vec(any::<u8>(), 0..200 * 1024),
        // Compressible: a short pattern repeated, with some noise.
        (
            prop::collection::vec(any::<u8>(), 1..64),
            0..200 * 1024usize,
            any::<u64>()
        )
            .prop_map(|(pattern, len, seed)| {
                let mut v: Vec<u8> = pattern.iter().copied().cycle().take(len).collect();
                let mut x = seed | 1;
                for _ in 0..len / 512 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let i = (x as usize) % len;
                    v[i] = x as u8;
                }
                v
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_codec_round_trips(data in payload()) {
        for codec in CODECS {
            round_trip(codec, &data);
        }
    }
}

#[test]
fn empty_input_round_trips_with_each_codec() {
    for codec in CODECS {
        round_trip(codec, b"");
        let mut out = Vec::new();
        decompress(codec, &compressed(codec, b""), 0, &mut out).unwrap();
        assert!(out.is_empty());
    }
    // Kafka's snappy of nothing is the xerial header alone.
    let mut header = SNAPPY_XERIAL_MAGIC.to_vec();
    header.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1]);
    assert_eq!(compressed(Compression::Snappy, b""), header);
}

#[test]
fn frames_start_as_kafka_writes_them() {
    let data = vec![7u8; 100_000];
    // gzip: one member, deflate.
    assert_eq!(compressed(Compression::Gzip, &data)[..3], [0x1f, 0x8b, 8]);
    // lz4: frame magic, FLG version 01 + independent blocks (0x60), BD 64 KiB (0x40), header
    // checksum (xxh32 of FLG BD, second byte): Kafka's Lz4BlockOutputStream header.
    assert_eq!(
        compressed(Compression::Lz4, &data)[..7],
        [0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82]
    );
    // zstd frame magic.
    assert_eq!(
        compressed(Compression::Zstd, &data)[..4],
        [0x28, 0xb5, 0x2f, 0xfd]
    );
    // snappy: xerial header, then blocks of 32 KiB of input (100,000 bytes: 4 blocks).
    let snappy = compressed(Compression::Snappy, &data);
    assert_eq!(snappy[..8], SNAPPY_XERIAL_MAGIC);
    assert_eq!(snappy[8..16], [0, 0, 0, 1, 0, 0, 0, 1]);
    let mut pos = 16;
    let mut sizes = Vec::new();
    while pos < snappy.len() {
        let len = u32::from_be_bytes(snappy[pos..pos + 4].try_into().unwrap()) as usize;
        let block = &snappy[pos + 4..pos + 4 + len];
        sizes.push(snap::raw::decompress_len(block).unwrap());
        pos += 4 + len;
    }
    assert_eq!(sizes, [32768, 32768, 32768, 100_000 - 3 * 32768]);
}

/// A raw snappy block with a literal and a copy, written by hand: "abcabcabc" (varint length 9,
/// literal of 3, copy of 6 from offset 3).
const RAW_ABC: [u8; 7] = [9, 0x08, b'a', b'b', b'c', 0x09, 0x03];

#[test]
fn snappy_reads_a_hand_made_xerial_stream() {
    let mut stream = SNAPPY_XERIAL_MAGIC.to_vec();
    stream.extend_from_slice(&1i32.to_be_bytes());
    stream.extend_from_slice(&1i32.to_be_bytes());
    stream.extend_from_slice(&(RAW_ABC.len() as i32).to_be_bytes());
    stream.extend_from_slice(&RAW_ABC);
    // A literal-only block: "hello" (length 5, literal tag (5-1)<<2).
    let hello = [5, 0x10, b'h', b'e', b'l', b'l', b'o'];
    stream.extend_from_slice(&(hello.len() as i32).to_be_bytes());
    stream.extend_from_slice(&hello);
    let mut out = Vec::new();
    decompress(Compression::Snappy, &stream, 1024, &mut out).unwrap();
    assert_eq!(out, b"abcabcabchello");

    // Two streams concatenated (snappy-java reads on past a second header).
    let mut twice = stream.clone();
    twice.extend_from_slice(&stream);
    let mut out = Vec::new();
    decompress(Compression::Snappy, &twice, 1024, &mut out).unwrap();
    assert_eq!(out, b"abcabcabchelloabcabcabchello");

    // A block length past the end, and a negative one.
    let mut bad = stream.clone();
    bad[16..20].copy_from_slice(&1000i32.to_be_bytes());
    let err = decompress(Compression::Snappy, &bad, 1024, &mut Vec::new()).unwrap_err();
    assert!(
        matches!(err.kind, RecordsErrorKind::Decompression(_)),
        "{err:?}"
    );
    assert_eq!(err.offset, 16);
    bad[16..20].copy_from_slice(&(-1i32).to_be_bytes());
    let err = decompress(Compression::Snappy, &bad, 1024, &mut Vec::new()).unwrap_err();
    assert!(
        matches!(err.kind, RecordsErrorKind::Decompression(_)),
        "{err:?}"
    );
}

#[test]
fn snappy_reads_a_raw_block_as_librdkafka_sends_it() {
    let mut out = Vec::new();
    decompress(Compression::Snappy, &RAW_ABC, 9, &mut out).unwrap();
    assert_eq!(out, b"abcabcabc");
    let err = decompress(Compression::Snappy, &RAW_ABC, 8, &mut Vec::new()).unwrap_err();
    assert_eq!(
        err.kind,
        RecordsErrorKind::DecompressedTooLarge { limit: 8 }
    );

    // A big raw block from the snap crate (what librdkafka's snappy_compress gives).
    let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let raw = snap::raw::Encoder::new().compress_vec(&data).unwrap();
    let mut out = Vec::new();
    decompress(Compression::Snappy, &raw, data.len(), &mut out).unwrap();
    assert!(out == data);
}

#[test]
fn snappy_raw_block_claiming_too_much_is_refused_before_allocating() {
    // Varint 2^30 (1 GiB), then a literal: the claim alone passes a 64 MiB limit.
    let block = [0x80, 0x80, 0x80, 0x80, 0x04, 0x00, b'x'];
    let (result, allocs) = alloc_count::measure(|| {
        let mut out = Vec::new();
        decompress(Compression::Snappy, &block, 64 * MIB, &mut out)
    });
    assert_eq!(
        result.unwrap_err().kind,
        RecordsErrorKind::DecompressedTooLarge { limit: 64 * MIB }
    );
    assert!(allocs.largest < 1024, "{allocs:?}");
    // Under the limit, but more than 7 bytes of snappy can expand to: refused as corrupt, still
    // without allocating the claim.
    let block = [0x80, 0x80, 0x80, 0x08, 0x00, b'x'];
    let (result, allocs) = alloc_count::measure(|| {
        let mut out = Vec::new();
        decompress(Compression::Snappy, &block, 64 * MIB, &mut out)
    });
    assert!(
        matches!(result.unwrap_err().kind, RecordsErrorKind::Decompression(_)),
        "expansion past snappy's bound"
    );
    assert!(allocs.largest < 1024, "{allocs:?}");
}

#[test]
fn gzip_reads_concatenated_members() {
    let mut stream = compressed(Compression::Gzip, b"first member, ");
    stream.extend_from_slice(&compressed(Compression::Gzip, b"second member"));
    let mut out = Vec::new();
    decompress(Compression::Gzip, &stream, 1024, &mut out).unwrap();
    assert_eq!(out, b"first member, second member");
}

#[test]
fn lz4_reads_a_frame_with_checksums_and_content_size() {
    // Another writer's choices (a content size, 4 MiB blocks stored uncompressed): Kafka's
    // reader takes them, so does kwire's.
    use lz4_frame_by_hand as lz4;
    let data: Vec<u8> = (0..500_000u32).map(|i| (i % 1000) as u8).collect();
    let frame = lz4::encode(&data);
    let mut out = Vec::new();
    decompress(Compression::Lz4, &frame, data.len(), &mut out).unwrap();
    assert!(out == data);
}

/// An LZ4 frame written by hand (LZ4 frame spec): blocks stored uncompressed (high bit of the
/// block size), a content size in the descriptor, 4 MiB maximum blocks: bytes kwire's encoder
/// does not write.
mod lz4_frame_by_hand {
    /// xxHash32 (the LZ4 frame spec's header checksum), seed 0.
    fn xxh32(data: &[u8]) -> u32 {
        const P1: u32 = 0x9E37_79B1;
        const P2: u32 = 0x85EB_CA77;
        const P3: u32 = 0xC2B2_AE3D;
        const P4: u32 = 0x27D4_EB2F;
        const P5: u32 = 0x1656_67B1;
        assert!(data.len() < 16);
        let mut h = P5.wrapping_add(data.len() as u32);
        let mut chunks = data.chunks_exact(4);
        for c in &mut chunks {
            h = h
                .wrapping_add(u32::from_le_bytes(c.try_into().unwrap()).wrapping_mul(P3))
                .rotate_left(17)
                .wrapping_mul(P4);
        }
        for &b in chunks.remainder() {
            h = h
                .wrapping_add((b as u32).wrapping_mul(P5))
                .rotate_left(11)
                .wrapping_mul(P1);
        }
        h ^= h >> 15;
        h = h.wrapping_mul(P2);
        h ^= h >> 13;
        h = h.wrapping_mul(P3);
        h ^ (h >> 16)
    }

    /// One frame: FLG version 01, independent blocks, content size set; BD 4 MiB; stored blocks
    /// of 1 MiB.
    pub fn encode(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x04, 0x22, 0x4d, 0x18];
        let mut descriptor = vec![0x68, 0x70];
        descriptor.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&descriptor);
        out.push((xxh32(&descriptor) >> 8) as u8);
        for block in data.chunks(1 << 20) {
            out.extend_from_slice(&(block.len() as u32 | 0x8000_0000).to_le_bytes());
            out.extend_from_slice(block);
        }
        out.extend_from_slice(&0u32.to_le_bytes());
        out
    }

    #[test]
    fn header_checksum_matches_kafkas_header() {
        // The header Kafka writes (FLG 0x60, BD 0x40) has checksum byte 0x82.
        assert_eq!((xxh32(&[0x60, 0x40]) >> 8) as u8, 0x82);
    }
}

/// Small frames of every codec, cut at every length and with every byte flipped: a typed error
/// or some output within the limit, never a panic.
#[test]
fn truncated_and_corrupt_frames_give_typed_errors() {
    let data: Vec<u8> = b"kafka record batch payload, key=value; "
        .iter()
        .copied()
        .cycle()
        .take(700)
        .collect();
    let limit = 4096;
    for codec in CODECS {
        let frame = compressed(codec, &data);
        let mut errors = 0;
        for cut in 0..frame.len() {
            let mut out = Vec::new();
            match decompress(codec, &frame[..cut], limit, &mut out) {
                Ok(()) => assert!(out != data, "{codec:?}: cut at {cut} gave the whole input"),
                Err(e) => {
                    errors += 1;
                    assert!(
                        matches!(
                            e.kind,
                            RecordsErrorKind::Decompression(_)
                                | RecordsErrorKind::DecompressedTooLarge { .. }
                        ),
                        "{codec:?} cut at {cut}: {e:?}"
                    );
                }
            }
            assert!(out.len() <= limit);
        }
        if codec != Compression::None {
            // Every cut of a compressed frame is refused, but where a framing allows an empty
            // or shorter stream (xerial: the header alone).
            assert!(
                errors + 2 >= frame.len(),
                "{codec:?}: {errors} of {} cuts refused",
                frame.len()
            );
        }
        for i in 0..frame.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut bad = frame.clone();
                bad[i] ^= mask;
                let mut out = Vec::new();
                if let Err(e) = decompress(codec, &bad, limit, &mut out) {
                    assert!(
                        matches!(
                            e.kind,
                            RecordsErrorKind::Decompression(_)
                                | RecordsErrorKind::DecompressedTooLarge { .. }
                        ),
                        "{codec:?} byte {i} ^ {mask:#x}: {e:?}"
                    );
                }
                assert!(out.len() <= limit);
                assert!(out.capacity() <= limit + 1 + CHUNK.max(limit));
            }
        }
    }
}

#[test]
fn decompress_is_bounded_for_uncompressed_too() {
    let mut out = Vec::new();
    let err = decompress(Compression::None, &[0; 100], 99, &mut out).unwrap_err();
    assert_eq!(
        err.kind,
        RecordsErrorKind::DecompressedTooLarge { limit: 99 }
    );
    assert!(out.is_empty());
}

#[test]
fn zstd_window_follows_the_limit() {
    assert_eq!(zstd_window_log_max(0), 23);
    assert_eq!(zstd_window_log_max(MIB), 23);
    assert_eq!(zstd_window_log_max(64 * MIB), 25);
    assert_eq!(zstd_window_log_max(usize::MAX), 27);
}

// ---------------------------------------------------------------------------------------------
// Bombs

/// The level of the zstd bombs: zeros become RLE blocks (4 bytes per 128 KiB) at any level, and
/// level 1 is the quickest to build.
const ZSTD_BOMB_LEVEL: i32 = 1;

/// zstd of `n` zero bytes, streamed: no content size in the frame header, so the decoder has to
/// run (a declared size above the limit is refused before decoding, see below).
fn zstd_bomb(n: usize, level: i32) -> Vec<u8> {
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), level).unwrap();
    enc.include_contentsize(false).unwrap();
    enc.include_checksum(false).unwrap();
    let zeros = vec![0u8; MIB];
    let mut left = n;
    while left > 0 {
        let k = left.min(MIB);
        enc.write_all(&zeros[..k]).unwrap();
        left -= k;
    }
    enc.finish().unwrap()
}

/// gzip at level 9 of `n` zero bytes (deflate expands at most about 1032 times).
fn gzip_bomb(n: usize) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&vec![0u8; n]).unwrap();
    enc.finish().unwrap()
}

/// The 1 KiB bombs: zstd (about 30 MiB of zeros: zstd's best is an RLE block of 4 bytes per
/// 128 KiB, so a kilobyte cannot hold more) and gzip (about 1 MiB), each refused under a limit
/// below its size, with the output never past the limit.
#[test]
fn kilobyte_bombs_are_refused() {
    let zstd = zstd_bomb(30 * MIB, ZSTD_BOMB_LEVEL);
    assert!(zstd.len() <= 1024, "zstd bomb is {} bytes", zstd.len());
    let limit = 8 * MIB;
    let mut out = Vec::new();
    let err = decompress(Compression::Zstd, &zstd, limit, &mut out).unwrap_err();
    assert_eq!(err.kind, RecordsErrorKind::DecompressedTooLarge { limit });
    assert!(out.capacity() <= limit + 1, "capacity {}", out.capacity());

    let gzip = gzip_bomb(1_000_000);
    assert!(gzip.len() <= 1024, "gzip bomb is {} bytes", gzip.len());
    let limit = 256 * 1024;
    let (result, allocs) = alloc_count::measure(|| {
        let mut out = Vec::new();
        let r = decompress(Compression::Gzip, &gzip, limit, &mut out);
        (r, out.capacity())
    });
    let (result, capacity) = result;
    assert_eq!(
        result.unwrap_err().kind,
        RecordsErrorKind::DecompressedTooLarge { limit }
    );
    assert!(capacity <= limit + 1);
    // Every byte gzip decoding allocated is Rust's (miniz_oxide): the output, at most the limit
    // and a byte, and the inflater's state.
    assert!(allocs.largest <= limit + 1, "{allocs:?}");
    println!(
        "gzip bomb: {} bytes -> refused at {limit}; allocations {allocs:?}",
        gzip.len()
    );
}

/// A zstd frame that declares a content size above the limit is refused before decoding (a
/// 1 KiB frame of 30 MiB zeros, as kwire's encoder writes it: with the content size).
#[test]
fn zstd_declared_size_above_the_limit_is_refused_at_once() {
    let frame = compressed(Compression::Zstd, &vec![0u8; 30 * MIB]);
    assert!(frame.len() <= 1024, "{} bytes", frame.len());
    let mut out = Vec::new();
    let err = decompress(Compression::Zstd, &frame, MIB, &mut out).unwrap_err();
    assert_eq!(
        err.kind,
        RecordsErrorKind::DecompressedTooLarge { limit: MIB }
    );
    assert_eq!(out.capacity(), 0);
}

/// A zstd frame asking for a window larger than the limit allows is refused before the window is
/// allocated.
#[test]
fn zstd_window_above_the_limit_is_refused() {
    // A stream (no content size) with a 2^27 window, as levels 22 write; 4 MiB of varied bytes.
    let data: Vec<u8> = (0..4 * MIB as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
    enc.include_contentsize(false).unwrap();
    enc.window_log(27).unwrap();
    enc.write_all(&data).unwrap();
    let frame = enc.finish().unwrap();
    let mut out = Vec::new();
    let err = decompress(Compression::Zstd, &frame, 16 * MIB, &mut out).unwrap_err();
    assert!(
        matches!(err.kind, RecordsErrorKind::Decompression(_)),
        "{err:?}"
    );
    // With a limit whose window allows it, the same frame decodes.
    let mut out = Vec::new();
    decompress(Compression::Zstd, &frame, 1 << 30, &mut out).unwrap();
    assert!(out == data);
}

const CHILD_ENV: &str = "KWIRE_BOMB_CHILD";

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`; the file says kB).
fn proc_status_bytes(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    let kb: usize = line[field.len() + 1..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kb * 1024
}

/// Runs this test again in a child process with `CHILD_ENV` set to the path of `bomb` (written
/// to a file here, so that building it never counts in the child's peak), and returns the
/// child's output.
fn run_child(test: &str, bomb: &[u8], limit: usize) -> String {
    let path = std::env::temp_dir().join(format!("kwire-bomb-{}-{test}", std::process::id()));
    std::fs::write(&path, bomb).unwrap();
    let name = format!(
        "{}::{test}",
        module_path!()
            .split_once("::")
            .map_or(module_path!(), |(_, m)| m)
    );
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            &name,
            "--exact",
            "--nocapture",
            "--test-threads=1",
            "--include-ignored",
        ])
        .env(CHILD_ENV, &path)
        .env("KWIRE_BOMB_LIMIT", limit.to_string())
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("peak over baseline"),
        "the child did not run the bomb:\n{stdout}"
    );
    stdout
}

/// In the child: decompresses the bomb at `CHILD_ENV`'s path under `limit`, expects
/// DecompressedTooLarge and checks the peak resident set grew by less than 2 × `limit`.
fn child_bomb(codec: Compression) {
    let limit: usize = std::env::var("KWIRE_BOMB_LIMIT").unwrap().parse().unwrap();
    let path = std::env::var(CHILD_ENV).unwrap();
    let bomb = std::fs::read(path).unwrap();
    // Warm up: the same code on the same bomb under a tiny limit, so that the first run's page
    // faults of code and allocator arenas do not count; then reset the peak to the current
    // resident set where the kernel allows it (`clear_refs` 5, Linux 4.0+; without it the figure
    // below only overstates).
    let mut warm = Vec::new();
    let _ = decompress(codec, &bomb, 1024, &mut warm);
    drop(warm);
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = proc_status_bytes("VmRSS");
    let hwm_before = proc_status_bytes("VmHWM");
    let anon_before = proc_status_bytes("RssAnon");
    let mut out = Vec::new();
    let err = decompress(codec, &bomb, limit, &mut out).unwrap_err();
    let hwm = proc_status_bytes("VmHWM");
    let anon_after = proc_status_bytes("RssAnon");
    drop(out);
    assert_eq!(err.kind, RecordsErrorKind::DecompressedTooLarge { limit });
    let peak = hwm.saturating_sub(before);
    println!(
        "{codec:?} bomb of {} bytes, limit {limit}: VmRSS before {before} (VmHWM {hwm_before}), \
         VmHWM after {hwm}, peak over baseline {peak} ({:.2} x limit); RssAnon {anon_before} -> \
         {anon_after} with the output still held",
        bomb.len(),
        peak as f64 / limit as f64
    );
    if limit >= 16 * MIB {
        assert!(peak < 2 * limit, "peak {peak} for limit {limit}");
    }
}

/// The 1 KiB zstd bomb (30 MiB of zeros) under a limit of 8 MiB, and a 1 GiB zstd bomb (about
/// 32 KiB) under the default limit of 64 MiB: peak resident memory below 2 × the limit.
#[test]
fn zstd_bomb_peak_memory_stays_under_twice_the_limit() {
    let test = "zstd_bomb_peak_memory_stays_under_twice_the_limit";
    match std::env::var(CHILD_ENV) {
        Ok(_) => child_bomb(Compression::Zstd),
        Err(_) => {
            let kib = zstd_bomb(30 * MIB, ZSTD_BOMB_LEVEL);
            assert!(kib.len() <= 1024, "{} bytes", kib.len());
            let gib = zstd_bomb(1 << 30, ZSTD_BOMB_LEVEL);
            for (bomb, limit) in [(kib, 8 * MIB), (gib, 64 * MIB)] {
                let report = run_child(test, &bomb, limit);
                println!(
                    "{}",
                    report.lines().find(|l| l.contains("peak over")).unwrap()
                );
            }
        }
    }
}

/// gzip bombs under a limit below their size: peak resident memory below 2 × the limit. The
/// 1 KiB bomb (1 MB of zeros) under 256 KiB: there the first run's page faults of code (about a
/// MiB, and the kernel may refuse to reset the peak) are of the limit's order, so the figure is
/// printed and the bound is checked by the counting allocator in `kilobyte_bombs_are_refused`
/// (every allocation of gzip decoding is Rust's). The bound is asserted on 128 such members
/// concatenated (128 KiB, 128 MB of zeros: Java's `GZIPInputStream` and kwire read every member)
/// under a limit of 32 MiB.
#[test]
fn gzip_bomb_peak_memory_stays_under_twice_the_limit() {
    let test = "gzip_bomb_peak_memory_stays_under_twice_the_limit";
    match std::env::var(CHILD_ENV) {
        Ok(_) => child_bomb(Compression::Gzip),
        Err(_) => {
            let member = gzip_bomb(1_000_000);
            let mut report = run_child(test, &member, 256 * 1024);
            let members = member.repeat(128);
            report.push_str(&run_child(test, &members, 32 * MIB));
            for line in report.lines().filter(|l| l.contains("peak over")) {
                println!("{line}");
            }
        }
    }
}
