//! What the `records` fuzz target does: any bytes as a record set (the contents of a `records`
//! field), read both ways kwire offers, and the seeds `seed_records` writes.
//!
//! * Borrowed: [`RecordSetRef`] walks every batch (its CRC checked, result ignored), and every
//!   record of it: in place for uncompressed batches, otherwise decompressed into one buffer
//!   reused from batch to batch; every key, value and header is touched.
//! * Owned: [`RecordSet::decode`] with a decompression limit of [`LIMIT`] and no CRC check (so
//!   that mutated bytes reach the records). When it succeeds, each magic-2 batch re-encoded
//!   uncompressed ([`RecordBatch::encode`]) decodes again, CRC checked, to the same header fields
//!   and the same records.
//!
//! Decoders must not panic, nor allocate past what the input or the limit justify (run with
//! `-malloc_limit_mb`, see README.md).

use kwire_protocol::bytes::Bytes;
use kwire_protocol::records::{
    Attributes, BatchBuilder, Compression, DecodeOptions, RecordBatch, RecordSet, RecordSetRef,
    TimestampType,
};

/// The decompression limit of the target (bytes): 1 MiB.
pub const LIMIT: usize = 1 << 20;

/// Runs one input through both readers (see the module docs). Panics on a finding.
pub fn records(data: &[u8]) {
    let opts = DecodeOptions {
        max_decompressed_bytes: LIMIT,
        verify_crc: false,
    };
    walk_borrowed(data, &opts);
    let input = Bytes::copy_from_slice(data);
    if let Ok(set) = RecordSet::decode(&input, &opts) {
        for batch in &set.batches {
            if batch.header.magic == 2 {
                reencode_uncompressed(batch);
            }
        }
    }
}

fn walk_borrowed(data: &[u8], opts: &DecodeOptions) -> usize {
    let mut touched = 0usize;
    let mut buf = Vec::new();
    let mut batches = RecordSetRef::new(data).batches();
    for batch in batches.by_ref() {
        let Ok(batch) = batch else { break };
        let _ = batch.check_crc();
        let records = match batch.compression() {
            Ok(Compression::None) => batch.records(),
            Ok(_) => batch.decompress(opts, &mut buf),
            Err(_) => continue,
        };
        let Ok(records) = records else { continue };
        for record in records {
            let Ok(record) = record else { break };
            touched += record.key.map_or(0, |k| k.len()) + record.value.map_or(0, |v| v.len());
            for header in record.headers() {
                touched += header.key.len() + header.value.map_or(0, |v| v.len());
            }
        }
        assert!(
            buf.capacity() <= LIMIT + 1 + 64 * 1024,
            "buffer {}",
            buf.capacity()
        );
    }
    touched + batches.partial_tail()
}

fn reencode_uncompressed(batch: &RecordBatch) {
    let mut plain = batch.clone();
    plain.header.attributes = Attributes(batch.header.attributes.0 & !0x07);
    let bytes = plain
        .encode()
        .unwrap_or_else(|e| panic!("a decoded batch re-encodes uncompressed: {e:?}"));
    let opts = DecodeOptions {
        max_decompressed_bytes: LIMIT,
        verify_crc: true,
    };
    let again = RecordSet::decode(&bytes, &opts)
        .unwrap_or_else(|e| panic!("a re-encoded batch decodes: {e:?}"));
    assert_eq!(again.batches.len(), 1, "one batch back");
    assert_eq!(again.partial_tail, 0);
    let back = &again.batches[0];
    assert_eq!(back.records, batch.records, "records after re-encoding");
    let (h, b) = (&batch.header, &back.header);
    assert_eq!(
        (
            h.base_offset,
            h.partition_leader_epoch,
            h.last_offset_delta,
            h.base_timestamp,
            h.max_timestamp,
            h.producer_id,
            h.producer_epoch,
            h.base_sequence,
            h.attributes.0 & !0x07,
        ),
        (
            b.base_offset,
            b.partition_leader_epoch,
            b.last_offset_delta,
            b.base_timestamp,
            b.max_timestamp,
            b.producer_id,
            b.producer_epoch,
            b.base_sequence,
            b.attributes.0,
        ),
        "header after re-encoding"
    );
    // The borrowed walk reads the re-encoded batch too, and finds the same records.
    let mut n = 0;
    for view in RecordSetRef::new(&bytes).batches() {
        for record in view.unwrap().records().unwrap() {
            let record = record.unwrap();
            let owned = &batch.records[n];
            assert_eq!(record.key, owned.key.as_deref());
            assert_eq!(record.value, owned.value.as_deref());
            assert_eq!(record.headers().count(), owned.headers.len());
            n += 1;
        }
    }
    assert_eq!(n, batch.records.len());
}

/// Seed record sets: per codec, a batch of a few records (null key, null value, duplicate header
/// keys, a null header value, a larger compressible value), a transactional idempotent batch,
/// and a record set of two batches.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let codecs = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];
    let big = b"value ".repeat(300);
    let mut out = Vec::new();
    for codec in codecs {
        let name = format!("{codec:?}").to_lowercase();
        let mut b = BatchBuilder::new(codec);
        b.append(1_700_000_000_000, Some(b"key"), Some(b"value"), &[])
            .unwrap();
        b.append(
            1_700_000_000_005,
            None,
            Some(b"no key"),
            &[(b"h", Some(b"1")), (b"h", None)],
        )
        .unwrap();
        b.append(1_700_000_000_003, Some(b"tombstone"), None, &[])
            .unwrap();
        b.append(
            1_700_000_000_010,
            Some(b"big"),
            Some(&big),
            &[(b"trace", Some(b"abc"))],
        )
        .unwrap();
        let first = b.build().unwrap().to_vec();
        out.push((format!("{name}-4-records"), first.clone()));

        let mut b = BatchBuilder::new(codec)
            .base_offset(100)
            .producer(42, 3, 7)
            .transactional(true)
            .partition_leader_epoch(5)
            .timestamp_type(TimestampType::LogAppendTime);
        for i in 0..20u32 {
            let v = i.to_be_bytes();
            b.append(1_700_000_000_000 + i as i64, Some(&v), Some(&v), &[])
                .unwrap();
        }
        let second = b.build().unwrap().to_vec();
        out.push((format!("{name}-idempotent"), second.clone()));

        let mut both = first;
        both.extend_from_slice(&second);
        out.push((format!("{name}-two-batches"), both));
    }
    out
}
