//! Borrowed views (`…Ref<'a>`) against owned decoding: for every message of `schemas/` at every
//! version, the view of sample bytes reads back the same value as owned decoding, bad bytes give
//! the same error (kind and byte offset), and parsing plus reading a view allocates nothing.

use crate::alloc_count::allocations_during;
use kwire_protocol::bytes::Bytes;
use kwire_protocol::generated::*;
use kwire_protocol::wire::sample::{Sample, SampleGen, SampleMode};
use kwire_protocol::wire::{Decode, DecodeError, Encode, Message, Reader};

fn samples<T: Message + Sample>(version: i16) -> Vec<Bytes> {
    let mut out = Vec::new();
    for (mode, seeds) in [
        (SampleMode::Full, 0..3u64),
        (SampleMode::Nulls, 0..1),
        (SampleMode::Random, 0..12),
    ] {
        for seed in seeds {
            let m = T::sample(&mut SampleGen::new(seed, mode), version);
            out.push(m.to_bytes(version).unwrap());
        }
    }
    out
}

fn same_error(a: &DecodeError, b: &DecodeError) -> bool {
    a.kind() == b.kind() && a.offset() == b.offset()
}

/// At most this many truncation points per sample (all of them for shorter samples, else evenly
/// spaced ones, the first and the last byte included).
const MAX_CUTS: usize = 48;

fn cuts(len: usize) -> impl Iterator<Item = usize> {
    let step = len.div_ceil(MAX_CUTS).max(1);
    (0..len).step_by(step).chain((len > 0).then(|| len - 1))
}

/// Checks every message of `schemas/` (tests/build.rs lists them, with their views, from the
/// re-exports of protocol/src/generated/mod.rs) at every version; returns the samples read.
macro_rules! schema_message_views {
    ($($m:ident :: $t:ident / $r:ident),* $(,)?) => {
        fn check_every_view() -> (usize, usize) {
            let (mut checked, mut messages) = (0usize, 0usize);
            $({
                use kwire_protocol::generated::$m::{$t, $r};
                messages += 1;
                let v = <$t as Message>::VALID_VERSIONS;
                for version in v.lowest..=v.highest {
                    for bytes in samples::<$t>(version) {
                        let owned = <$t>::decode_bytes(bytes.clone(), version).unwrap();
                        let view = $r::parse(&bytes, version).unwrap();
                        assert_eq!(view.to_owned(), owned, "{} v{version}", stringify!($t));
                        assert_eq!(view.encoded(), &bytes[..]);
                        assert_eq!(view.parsed_version(), version);
                        // Chunked encoding (every shared field spliced, or only long ones) gives
                        // the same bytes.
                        for min in [1, 16] {
                            let c = owned.to_chunks(version, min).unwrap();
                            assert_eq!(c.len(), bytes.len());
                            assert_eq!(c.to_bytes(), bytes, "{} v{version} chunks from {min}", stringify!($t));
                        }
                        checked += 1;
                        // Truncations fail the same way in both decoders.
                        for cut in cuts(bytes.len()) {
                            let part = bytes.slice(..cut);
                            let a = <$t>::decode_bytes(part.clone(), version).unwrap_err();
                            let b = $r::parse(&part, version).unwrap_err();
                            assert!(same_error(&a, &b), "{} v{version} cut {cut}: owned {a}, view {b}", stringify!($t));
                        }
                    }
                }
                // Outside the valid versions both refuse.
                let bad = v.highest.saturating_add(1);
                assert!($r::parse(&[], bad).is_err());
                assert!(<$t as Decode>::decode(&mut Reader::new(Bytes::new()), bad).is_err());
            })*
            (messages, checked)
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/schema_message_views.rs"));

#[test]
fn views_read_what_owned_decoding_reads() {
    let (messages, n) = check_every_view();
    println!("{n} samples of {messages} messages read through views");
    assert!(messages >= 233, "{messages} messages");
    assert!(n > 10_000, "{n} samples");
}

use kwire_protocol::generated::consumer_group_describe_response::ConsumerGroupDescribeResponseRef;
use kwire_protocol::generated::metadata_response::{
    MetadataResponsePartition, MetadataResponseRef, MetadataResponseTopic,
};

fn big_metadata() -> Bytes {
    let m = MetadataResponse {
        topics: (0..100)
            .map(|t| MetadataResponseTopic {
                name: Some(format!("topic-{t}").into()),
                topic_id: kwire_protocol::wire::Uuid::from_u128(t as u128 + 1),
                partitions: (0..10)
                    .map(|p| MetadataResponsePartition {
                        partition_index: p,
                        leader_id: p % 3,
                        replica_nodes: vec![0, 1, 2].into(),
                        isr_nodes: vec![0, 1, 2].into(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    m.to_bytes(12).unwrap()
}

#[test]
fn parsing_and_reading_a_view_allocates_nothing() {
    let bytes = big_metadata();
    let mut sum = 0i64;
    let n = allocations_during(|| {
        let v = MetadataResponseRef::parse(&bytes, 12).unwrap();
        for t in v.topics().iter() {
            sum += t.name().map_or(0, str::len) as i64;
            for p in t.partitions().iter() {
                sum += (p.partition_index() + p.leader_id()) as i64;
                sum += p.replica_nodes().iter().map(i64::from).sum::<i64>();
            }
        }
    });
    assert_eq!(n, 0, "a view must not allocate");
    // 100 topic names "topic-0".."topic-99": 10×7 + 90×8 bytes; partitions 0..9 and leaders.
    // Per topic: partition indexes 45, leaders (p % 3) 9, replicas 3 × 10.
    assert_eq!(sum, (10 * 7 + 90 * 8) + 100 * (45 + 9 + 30));
    // Owned decoding of the same bytes does allocate (for contrast, and to prove counting works).
    let owned = allocations_during(|| {
        let _ = MetadataResponse::decode_bytes(bytes.clone(), 12).unwrap();
    });
    // One array per topic (its partitions) and the top-level arrays: primitive arrays such as
    // replica_nodes stay slices of the input (PrimArray), so there are only about a hundred.
    assert!((100..200).contains(&owned), "{owned}");
}

#[test]
fn absent_fields_read_as_defaults() {
    // ConsumerGroupDescribe v0 members have no MemberType: the view reads its default, -1.
    let m = ConsumerGroupDescribeResponse {
        groups: vec![consumer_group_describe_response::DescribedGroup {
            group_id: "g".into(),
            members: vec![consumer_group_describe_response::Member {
                member_id: "m".into(),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let bytes = m.to_bytes(0).unwrap();
    let v = ConsumerGroupDescribeResponseRef::parse(&bytes, 0).unwrap();
    let member = v
        .groups()
        .iter()
        .next()
        .unwrap()
        .members()
        .iter()
        .next()
        .unwrap();
    assert_eq!(member.member_id(), "m");
    assert_eq!(member.member_type(), -1);
}

/// Decoding a FetchResponse (Kafka 3.9.0's own spec, compiled by tests/build.rs) copies none of
/// the record bytes: owned decoding hands out slices of the input buffer, and so does the view.
#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn fetch_encodes_into_chunks_sharing_the_records() {
    #[cfg(kwire_shared)]
    {
        use kwire_protocol::bytes::Buf;
        use kwire_tests::kafka390::fetch_response::{
            FetchResponse, FetchableTopicResponse, PartitionData,
        };
        let records: Vec<Bytes> = (0..3u8).map(|p| Bytes::from(vec![p; 4096])).collect();
        let m = FetchResponse {
            responses: vec![FetchableTopicResponse {
                topic_id: kwire_protocol::wire::Uuid::from_u128(9),
                partitions: (0..3)
                    .map(|p| PartitionData {
                        partition_index: p as i32,
                        records: Some(records[p].clone()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let flat = m.to_bytes(16).unwrap();
        let mut c = m.to_chunks(16, 1024).unwrap();
        assert_eq!(c.len(), flat.len());
        // Header part, then per partition: the records, then what follows them (the next
        // partition's fields, or the tagged-field counts at the end).
        assert_eq!(c.part_count(), 7);
        let parts: Vec<&Bytes> = c.parts().collect();
        for (p, r) in records.iter().enumerate() {
            assert_eq!(
                parts[1 + 2 * p].as_ptr(),
                r.as_ptr(),
                "partition {p}'s records are shared"
            );
        }
        assert_eq!(c.to_bytes(), flat);
        // As a `Buf`: vectored slices, then reading across chunk boundaries.
        let mut io = [std::io::IoSlice::new(&[]); 16];
        assert_eq!(c.chunks_vectored(&mut io), 7);
        assert_eq!(io[..7].iter().map(|s| s.len()).sum::<usize>(), flat.len());
        let head = parts[0].len();
        c.advance(head - 2);
        let mut out = vec![0u8; 10];
        c.copy_to_slice(&mut out);
        assert_eq!(out, flat[head - 2..head + 8]);
        assert_eq!(c.remaining(), flat.len() - head - 8);
        let rest = c.copy_to_bytes(c.remaining());
        assert_eq!(rest, flat.slice(head + 8..));
        assert!(c.is_empty());
        // Below the threshold everything is copied into one chunk.
        assert_eq!(m.to_chunks(16, 4097).unwrap().part_count(), 1);
    }
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn fetch_records_are_never_copied() {
    #[cfg(kwire_shared)]
    {
        use kwire_tests::kafka390::fetch_response::{
            FetchResponse, FetchResponseRef, FetchableTopicResponse, PartitionData,
        };
        let records = Bytes::from((0..64 * 1024u32).map(|i| i as u8).collect::<Vec<u8>>());
        let m = FetchResponse {
            responses: vec![FetchableTopicResponse {
                topic_id: kwire_protocol::wire::Uuid::from_u128(9),
                partitions: (0..4)
                    .map(|p| PartitionData {
                        partition_index: p,
                        records: Some(records.clone()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let bytes = m.to_bytes(16).unwrap();
        let input = bytes.as_ptr() as usize..bytes.as_ptr() as usize + bytes.len();
        let inside = |s: &[u8]| {
            input.contains(&(s.as_ptr() as usize))
                && input.contains(&(s.as_ptr() as usize + s.len() - 1))
        };
        let mut copied = 0usize;
        let allocs = allocations_during(|| {
            let back = FetchResponse::decode_bytes(bytes.clone(), 16).unwrap();
            for p in &back.responses[0].partitions {
                let r = p.records.as_ref().unwrap();
                assert_eq!(r.len(), 64 * 1024);
                if !inside(r) {
                    copied += r.len();
                }
            }
        });
        assert_eq!(copied, 0, "record bytes were copied");
        // Two vectors (responses, partitions) and nothing proportional to the 256 KiB of records.
        assert!(allocs <= 4, "{allocs} allocations");
        let v = FetchResponseRef::parse(&bytes, 16).unwrap();
        for p in v.responses().iter().next().unwrap().partitions().iter() {
            assert!(inside(p.records().unwrap()));
        }
    }
}
