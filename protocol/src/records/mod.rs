//! Kafka record batches: the bytes inside every `records` field (ProduceRequest, FetchResponse,
//! ShareFetchResponse, FetchSnapshotResponse).
//!
//! * [`RecordSetRef`]: a borrowed view; iterates batches and, for uncompressed batches, records,
//!   without allocating (keys, values and header sections are slices of the input).
//! * [`RecordSet::decode`]: owned decoding that shares the input [`Bytes`](bytes::Bytes) (no copy
//!   of key or value bytes); a compressed batch is decompressed into one buffer whose slices the
//!   records hold.
//! * [`BatchBuilder`]: writes a RecordBatch v2 for a producer, with the CRC-32C filled in.
//! * [`compression`]: gzip, snappy, lz4 and zstd (features `gzip`, `snappy`, `lz4`, `zstd`, all
//!   on by default), with decompression bounded by [`DecodeOptions::max_decompressed_bytes`].
//! * [`ControlRecord`]: transaction markers, typed from `ControlRecordTypeSchema` and
//!   `EndTxnMarker`.
//!
//! The format is Kafka's `DefaultRecordBatch` / `DefaultRecord` (magic 2, KIP-98), read-only
//! support for the legacy message sets of magic 0 and 1 (`LegacyRecord`, KIP-32).
//!
//! ```
//! use kwire_protocol::bytes::Bytes;
//! use kwire_protocol::records::{BatchBuilder, Compression, DecodeOptions, RecordSet, RecordSetRef};
//!
//! let mut builder = BatchBuilder::new(Compression::None);
//! builder.append(1_000, Some(b"key"), Some(b"value"), &[(b"trace", Some(b"1")), (b"trace", None)])?;
//! let bytes: Bytes = builder.build()?;
//!
//! // Borrowed: no allocation for an uncompressed batch.
//! for batch in RecordSetRef::new(&bytes).batches() {
//!     let batch = batch?;
//!     batch.check_crc()?;
//!     for record in batch.records()? {
//!         let record = record?;
//!         assert_eq!(record.value, Some(&b"value"[..]));
//!         assert_eq!(record.headers().count(), 2);
//!     }
//! }
//! // Owned: keys and values are slices of `bytes`.
//! let set = RecordSet::decode(&bytes, &DecodeOptions::default())?;
//! assert_eq!(set.batches[0].records[0].headers.iter().nth(1).unwrap().value, None);
//! assert_eq!(set.batches[0].encode()?, bytes);
//! # Ok::<(), kwire_protocol::records::RecordsError>(())
//! ```

mod attributes;
mod batch;
mod builder;
mod codec;
pub mod compression;
mod control;
mod decode;
mod error;
mod headers;
#[cfg(feature = "json")]
pub mod json;
mod legacy;
mod options;
mod owned;
mod view;

pub use attributes::{Attributes, Compression, TimestampType};
pub use batch::{crc32c, BatchHeader};
pub use builder::BatchBuilder;
pub use control::ControlRecord;
pub use error::{RecordsError, RecordsErrorKind};
pub use headers::{Header, HeaderIter, HeaderRef, Headers};
pub use options::{DecodeOptions, DEFAULT_MAX_DECOMPRESSED_BYTES};
pub use owned::{Record, RecordBatch, RecordSet};
pub use view::{BatchIter, BatchRef, RecordIter, RecordRef, RecordSetRef};

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    /// One record, written by hand from Kafka's format description (`DefaultRecordBatch`,
    /// `DefaultRecord`).
    fn hand_batch() -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&0i64.to_be_bytes()); // base offset
        b.extend_from_slice(&61i32.to_be_bytes()); // batch length: 49 + 12 record bytes
        b.extend_from_slice(&(-1i32).to_be_bytes()); // partition leader epoch
        b.push(2); // magic
        b.extend_from_slice(&[0; 4]); // crc, below
        b.extend_from_slice(&0i16.to_be_bytes()); // attributes
        b.extend_from_slice(&0i32.to_be_bytes()); // last offset delta
        b.extend_from_slice(&1000i64.to_be_bytes()); // base timestamp
        b.extend_from_slice(&1000i64.to_be_bytes()); // max timestamp
        b.extend_from_slice(&(-1i64).to_be_bytes()); // producer id
        b.extend_from_slice(&(-1i16).to_be_bytes()); // producer epoch
        b.extend_from_slice(&(-1i32).to_be_bytes()); // base sequence
        b.extend_from_slice(&1i32.to_be_bytes()); // record count
                                                  // record: length 11 (zigzag 22), attributes, ts delta 0, offset delta 0, key "k",
                                                  // value "v", 1 header: key "h", value null (-1 → zigzag 1).
        b.extend_from_slice(&[22, 0, 0, 0, 2, b'k', 2, b'v', 2, 2, b'h', 1]);
        let crc = crc32c(&b[21..]);
        b[17..21].copy_from_slice(&crc.to_be_bytes());
        b
    }

    #[test]
    fn builder_writes_the_hand_built_batch() {
        let mut bb = BatchBuilder::new(Compression::None);
        bb.append(1000, Some(b"k"), Some(b"v"), &[(b"h", None)])
            .unwrap();
        assert_eq!(&bb.build().unwrap()[..], &hand_batch()[..]);
    }

    #[test]
    fn owned_and_view_read_the_hand_built_batch() {
        let bytes = Bytes::from(hand_batch());
        let set = RecordSet::decode(&bytes, &DecodeOptions::default()).unwrap();
        assert_eq!(set.partial_tail, 0);
        let batch = &set.batches[0];
        assert_eq!(batch.header.batch_length, 61);
        assert_eq!(batch.header.record_count, 1);
        let r = &batch.records[0];
        assert_eq!(r.key.as_deref(), Some(&b"k"[..]));
        assert_eq!(r.value.as_deref(), Some(&b"v"[..]));
        assert_eq!(
            r.headers.to_vec(),
            vec![Header {
                key: Bytes::from_static(b"h"),
                value: None
            }]
        );
        assert_eq!(&r.headers.wire_bytes()[..], &[2, b'h', 1]);
        assert_eq!(batch.encode().unwrap(), bytes);
        let view = RecordSetRef::new(&bytes);
        let b = view.batches().next().unwrap().unwrap();
        b.check_crc().unwrap();
        let rr: Vec<_> = b.records().unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(rr.len(), 1);
        assert_eq!(rr[0].key, Some(&b"k"[..]));
        let h: Vec<_> = rr[0].headers().collect();
        assert_eq!(
            h,
            [HeaderRef {
                key: b"h",
                value: None
            }]
        );
    }
}
