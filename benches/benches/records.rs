//! Record batches: kwire beside kafka-protocol 0.18.0 (`records::RecordBatchDecoder` /
//! `RecordBatchEncoder`) and krabka-protocol 0.8 (`records::RecordBatch`, owned and borrowed), in
//! one criterion run.
//!
//! The batch: 1,000 records of about 1 KiB each (1 MiB in all): keys `key-000000`…, values of
//! text with varying numbers (compressible about 3-5×), one or two headers per record. For
//! uncompressed and each codec, per library:
//!
//! * `decode`: the owned batch from a `Bytes` (kwire `RecordSet::decode`, which shares the input
//!   or the one decompressed buffer; kafka-protocol `RecordBatchDecoder::decode`; krabka
//!   `RecordBatch::decode_batch`).
//! * `walk`: a borrowed read touching every key and value (kwire `RecordSetRef`, decompressing
//!   into one reused buffer; krabka `RecordBatchBorrowed`). kafka-protocol has none.
//! * `encode`: the batch from its records (kwire `BatchBuilder` from the keys, values and header
//!   pairs; kafka-protocol `RecordBatchEncoder::encode` of its decoded records; krabka
//!   `RecordBatch::encode_to_bytes`), and `kwire/encode-owned`: kwire `RecordBatch::encode` of
//!   its decoded records, as the peers encode.
//! * `kwire/decompress`: `compression::decompress` of the batch's records alone, into a fresh
//!   buffer (kwire's bounded decompression, without reading records).
//! * `<crate>/decompress`: the codec crate alone, reading the same compressed bytes into a fresh
//!   `Vec` with its own streaming reader (`flate2::bufread::MultiGzDecoder`,
//!   `lz4_flex::frame::FrameDecoder`, `zstd::stream::read::Decoder`; for snappy, whose xerial
//!   framing no crate reads, `snap::raw::Decoder` on each xerial block): the floor a compressed
//!   decode is compared with.
//!
//! All libraries read the same bytes, kwire's encoding (each peer's decode is checked to give
//! 1,000 records first). Run: `cargo bench --manifest-path benches/Cargo.toml
//! --ignore-rust-version --bench records`.

use bytes::BytesMut;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use kafka_protocol::records as kp;
use krabka_protocol::records as kr;
use kwire_protocol::records::{
    compression, BatchHeader, Compression, DecodeOptions, RecordSet, RecordSetRef,
};
#[path = "common/records_input.rs"]
mod records_input;

use records_input::{codec_alone, input, kwire_encode, RECORDS};

fn kp_compression(codec: Compression) -> kp::Compression {
    match codec {
        Compression::None => kp::Compression::None,
        Compression::Gzip => kp::Compression::Gzip,
        Compression::Snappy => kp::Compression::Snappy,
        Compression::Lz4 => kp::Compression::Lz4,
        Compression::Zstd => kp::Compression::Zstd,
    }
}

fn bench_records(c: &mut Criterion) {
    let input = input();
    let opts = DecodeOptions::default();
    for codec in [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let bytes = kwire_encode(codec, &input);
        let name = format!("records_1000x1kib_{}", format!("{codec:?}").to_lowercase());
        let mut g = c.benchmark_group(&name);
        g.throughput(Throughput::Bytes(1_000_000));
        eprintln!("{name}: batch of {} bytes", bytes.len());

        // Every library reads the batch first.
        let set = RecordSet::decode(&bytes, &opts).unwrap();
        assert_eq!(set.batches[0].records.len(), RECORDS);
        let kp_set = kp::RecordBatchDecoder::decode(&mut bytes.clone()).unwrap();
        assert_eq!(kp_set.records.len(), RECORDS);
        let kr_batch = kr::RecordBatch::decode_batch(&mut bytes.clone()).unwrap();
        assert_eq!(kr_batch.records.len(), RECORDS);

        g.bench_function("kwire/decode", |b| {
            b.iter(|| RecordSet::decode(black_box(&bytes), &opts).unwrap())
        });
        g.bench_function("kafka-protocol/decode", |b| {
            b.iter(|| kp::RecordBatchDecoder::decode(&mut black_box(&bytes).clone()).unwrap())
        });
        g.bench_function("krabka/decode", |b| {
            b.iter(|| kr::RecordBatch::decode_batch(&mut black_box(&bytes).clone()).unwrap())
        });

        let mut buf = Vec::new();
        g.bench_function("kwire/walk", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for batch in RecordSetRef::new(black_box(&bytes)).batches() {
                    let batch = batch.unwrap();
                    let records = if codec == Compression::None {
                        batch.records().unwrap()
                    } else {
                        batch.decompress(&opts, &mut buf).unwrap()
                    };
                    for r in records {
                        let r = r.unwrap();
                        n += r.key.map_or(0, |k| k.len()) + r.value.map_or(0, |v| v.len());
                    }
                }
                n
            })
        });
        g.bench_function("krabka/walk", |b| {
            b.iter(|| {
                let mut slice: &[u8] = black_box(&bytes);
                let batch = kr::RecordBatchBorrowed::decode_borrow_with_policy(
                    &mut slice,
                    Default::default(),
                )
                .unwrap();
                let mut n = 0usize;
                for r in batch.iter() {
                    let r = r.unwrap();
                    n += r.key.map_or(0, |k| k.len()) + r.value.map_or(0, |v| v.len());
                }
                n
            })
        });

        g.bench_function("kwire/encode", |b| {
            b.iter(|| kwire_encode(codec, black_box(&input)))
        });
        g.bench_function("kwire/encode-owned", |b| {
            b.iter(|| black_box(&set.batches[0]).encode().unwrap())
        });
        let kp_opts = kp::RecordEncodeOptions {
            version: 2,
            compression: kp_compression(codec),
        };
        g.bench_function("kafka-protocol/encode", |b| {
            b.iter(|| {
                let mut out = BytesMut::with_capacity(1_200_000);
                kp::RecordBatchEncoder::encode(&mut out, black_box(&kp_set.records), &kp_opts)
                    .unwrap();
                out
            })
        });
        g.bench_function("krabka/encode", |b| {
            b.iter(|| black_box(&kr_batch).encode_to_bytes().unwrap())
        });

        if codec != Compression::None {
            let compressed = &bytes[BatchHeader::SIZE..];
            let (name, decompress_alone) = codec_alone(codec);
            assert_eq!(decompress_alone(compressed).len(), set_bytes(&set));
            g.bench_function(format!("{name}/decompress"), |b| {
                b.iter(|| decompress_alone(black_box(compressed)))
            });
            g.bench_function("kwire/decompress", |b| {
                b.iter(|| {
                    let mut out = Vec::new();
                    compression::decompress(codec, black_box(compressed), 64 << 20, &mut out)
                        .unwrap();
                    out
                })
            });
        }
        g.finish();
    }
}

/// Bytes of the decompressed records of `set`'s one batch.
fn set_bytes(set: &RecordSet) -> usize {
    let batch = &set.batches[0];
    let mut bytes = Vec::new();
    compression::decompress(
        batch.compression(),
        &batch.encode().unwrap()[BatchHeader::SIZE..],
        64 << 20,
        &mut bytes,
    )
    .unwrap();
    bytes.len()
}

criterion_group!(benches, bench_records);
criterion_main!(benches);
