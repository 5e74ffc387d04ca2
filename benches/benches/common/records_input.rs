//! The record batch both `records` and `records_ratio` measure: 1,000 records of about 1 KiB of
//! text (keys `key-000000`…, one or two headers), written by kwire's `BatchBuilder`; and each
//! codec crate's decompression alone.

use bytes::Bytes;
use kwire_protocol::records::{BatchBuilder, Compression};
use std::io::Read;

pub const RECORDS: usize = 1000;

pub struct Input {
    pub keys: Vec<Vec<u8>>,
    pub values: Vec<Vec<u8>>,
}

pub fn input() -> Input {
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

pub type Pairs = &'static [(&'static [u8], Option<&'static [u8]>)];

pub fn headers(i: usize) -> Pairs {
    const EVEN: Pairs = &[(b"trace-id", Some(b"0af7651916cd43dd8448eb211c80319c"))];
    const ODD: Pairs = &[(b"trace-id", Some(b"b7ad6b7169203331")), (b"retry", None)];
    if i.is_multiple_of(2) {
        EVEN
    } else {
        ODD
    }
}

pub fn kwire_encode(codec: Compression, input: &Input) -> Bytes {
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

/// A decompression: compressed bytes in, decompressed bytes out.
pub type Decompress = fn(&[u8]) -> Vec<u8>;

/// The codec crate's name and its decompression alone (module docs).
pub fn codec_alone(codec: Compression) -> (&'static str, Decompress) {
    fn read_all(mut r: impl Read) -> Vec<u8> {
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        out
    }
    match codec {
        Compression::Gzip => ("flate2", |c| {
            read_all(flate2::bufread::MultiGzDecoder::new(c))
        }),
        Compression::Lz4 => ("lz4_flex", |c| {
            read_all(lz4_flex::frame::FrameDecoder::new(c))
        }),
        Compression::Zstd => ("zstd", |c| {
            read_all(zstd::stream::read::Decoder::with_buffer(c).unwrap())
        }),
        Compression::Snappy => ("snap", |c| {
            // xerial: a 16-byte header, then blocks of a big-endian int32 length and raw snappy.
            let mut out = Vec::new();
            let mut decoder = snap::raw::Decoder::new();
            let mut rest = &c[16..];
            while !rest.is_empty() {
                let len = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
                let block = &rest[4..4 + len];
                let at = out.len();
                out.resize(at + snap::raw::decompress_len(block).unwrap(), 0);
                decoder.decompress(block, &mut out[at..]).unwrap();
                rest = &rest[4 + len..];
            }
            out
        }),
        Compression::None => unreachable!("uncompressed batches have no decompressor"),
    }
}
