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
//!   buffer (what the owned decode cannot avoid), the floor a compressed decode is compared with.
//!
//! All libraries read the same bytes, kwire's encoding (each peer's decode is checked to give
//! 1,000 records first). Run: `cargo bench --manifest-path benches/Cargo.toml
//! --ignore-rust-version --bench records`.

use bytes::{Bytes, BytesMut};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use kafka_protocol::records as kp;
use krabka_protocol::records as kr;
use kwire_protocol::records::{
    compression, BatchBuilder, BatchHeader, Compression, DecodeOptions, RecordSet, RecordSetRef,
};

const RECORDS: usize = 1000;

struct Input {
    keys: Vec<Vec<u8>>,
    values: Vec<Vec<u8>>,
}

fn input() -> Input {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let words = [
        "order",
        "customer",
        "amount",
        "currency",
        "EUR",
        "USD",
        "status",
        "shipped",
        "pending",
        "warehouse",
        "item",
        "quantity",
        "price",
        "timestamp",
        "region",
        "north",
        "south",
    ];
    let mut keys = Vec::new();
    let mut values = Vec::new();
    for i in 0..RECORDS {
        keys.push(format!("key-{i:06}").into_bytes());
        let mut v = String::with_capacity(1100);
        while v.len() < 1000 {
            let w = words[(next() % words.len() as u64) as usize];
            v.push_str(&format!("\"{w}\":{},", next() % 100_000));
        }
        values.push(v.into_bytes());
    }
    Input { keys, values }
}

type Pairs = &'static [(&'static [u8], Option<&'static [u8]>)];

fn headers(i: usize) -> Pairs {
    const EVEN: Pairs = &[(b"trace-id", Some(b"0af7651916cd43dd8448eb211c80319c"))];
    const ODD: Pairs = &[(b"trace-id", Some(b"b7ad6b7169203331")), (b"retry", None)];
    if i % 2 == 0 {
        EVEN
    } else {
        ODD
    }
}

fn kwire_encode(codec: Compression, input: &Input) -> Bytes {
    let mut b = BatchBuilder::with_capacity(codec, 1_100_000);
    for i in 0..RECORDS {
        b.append(
            1_700_000_000_000 + i as i64,
            Some(&input.keys[i]),
            Some(&input.values[i]),
            headers(i),
        )
        .unwrap();
    }
    b.build().unwrap()
}

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

criterion_group!(benches, bench_records);
criterion_main!(benches);
