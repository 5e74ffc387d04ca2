//! What a compressed owned decode costs over decompression alone, measured interleaved: each
//! round times, one after the other on the same batch, kwire's `RecordSet::decode` (CRC-32C,
//! decompression, records), kwire's `compression::decompress` alone and the codec crate alone
//! (`records_input::codec_alone`), each into a fresh buffer that is then dropped. Interleaving
//! keeps a busy or throttled machine from favouring one side, as it can between criterion's
//! benchmarks, which run one after another.
//!
//! Prints per codec the minimum and median of each over the rounds and the decode's ratio to
//! each decompression. Run: `cargo bench --manifest-path benches/Cargo.toml
//! --ignore-rust-version --bench records_ratio` (`-- ROUNDS` to change the 400 rounds).

#[path = "common/records_input.rs"]
mod records_input;

use kwire_protocol::records::{compression, BatchHeader, Compression, DecodeOptions, RecordSet};
use records_input::{codec_alone, input, kwire_encode};
use std::hint::black_box;
use std::time::Instant;

/// Runs `f` and returns its time in µs, the result dropped inside the timing (as criterion's
/// `iter` does).
fn time<T>(f: impl FnOnce() -> T) -> f64 {
    let t = Instant::now();
    drop(black_box(f()));
    t.elapsed().as_nanos() as f64 / 1e3
}

/// (minimum, median) of `v`.
fn min_median(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2])
}

fn main() {
    // `cargo bench` passes `--bench`; a number among the arguments is the round count.
    let rounds = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(400)
        .max(1);
    let input = input();
    let opts = DecodeOptions::default();
    println!("{rounds} interleaved rounds; times in µs as minimum / median\n");
    println!("| codec | kwire decode | kwire decompress | crate alone | decode / decompress | decode / crate alone |");
    println!("|---|---|---|---|---|---|");
    for codec in [
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let bytes = kwire_encode(codec, &input);
        let compressed = &bytes[BatchHeader::SIZE..];
        let (name, alone) = codec_alone(codec);
        let (mut decode, mut kwire, mut lib) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            decode.push(time(|| {
                RecordSet::decode(black_box(&bytes), &opts).unwrap()
            }));
            kwire.push(time(|| {
                let mut out = Vec::new();
                compression::decompress(codec, black_box(compressed), 64 << 20, &mut out).unwrap();
                out
            }));
            lib.push(time(|| alone(black_box(compressed))));
        }
        let (d, k, l) = (min_median(decode), min_median(kwire), min_median(lib));
        println!(
            "| {codec:?} | {:.0} / {:.0} | {:.0} / {:.0} | {name} {:.0} / {:.0} | {:.2} / {:.2} | {:.2} / {:.2} |",
            d.0, d.1, k.0, k.1, l.0, l.1, d.0 / k.0, d.1 / k.1, d.0 / l.0, d.1 / l.1
        );
    }
}
