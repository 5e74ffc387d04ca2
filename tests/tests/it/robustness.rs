//! Robustness: kwire's decoders against bad bytes.
//!
//! kwire's decoders promise no panic on any input, and that no length read from the wire reserves
//! memory beyond what the remaining input could hold. This file checks both, with a counting global
//! allocator that records, per thread, the largest single allocation (and the total) made while a
//! decoder runs:
//!
//! * `metadata_response_claiming_2_pow_31_minus_1_topics`: the hand-built MetadataResponse v12
//!   that makes other Rust codecs abort (a `Vec::with_capacity(2^31-1)` of ~104-byte topics is
//!   223 GB): an error, and no allocation larger than twice the input.
//! * `every_length_field_of_every_message_survives_huge_lengths`: every message of `schemas/` at
//!   every valid version, as samples (`wire::sample`), mutated at every byte position with huge
//!   int16/int32 lengths and huge compact varints. No panic; every decode is `Ok` or `Err`; no
//!   allocation above [`alloc_bound`]; and every string, bytes and array length field of every
//!   message at every version (read from the specs with kwire-codegen's IR, not from the code under
//!   test) is shown to have been hit: a mutation at its position was rejected with that field's
//!   path in the error.
//! * `decoders_survive_random_and_mutated_frames` (proptest): random bytes, and golden frames
//!   (librdkafka 2.16.0 captures) and frames of our own encoder with bit flips, truncation,
//!   insertion, deletion, overwrites and splices, fed to `RequestFrame::decode`, to
//!   `ResponseFrame::decode` for every (API, valid version) and to every message's `decode_bytes`
//!   at every valid version. No panic; whenever a decode succeeds, the codec contract holds:
//!   `encoded_len` is exact, decode(encode(decode(b))) == decode(b), and the re-encoding is
//!   canonical: encode(decode(e)) == e for e = encode(decode(b)). `PROPTEST_CASES` sets the case
//!   count (default 4000).
//! * `encoder_frames_are_fixed_points`: for frames our encoder wrote, exact equality
//!   encode(decode(b)) == b; `golden_frames_satisfy_the_contract`: golden frames that decode
//!   satisfy the same contract (without the shared material it is ignored, and the proptest above
//!   mutates only our encoder's frames).
//! * `fuzz_regressions`: inputs found by `fuzz/` (cargo-fuzz target `decode_any`), kept here.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alloc_count::{measure, Allocs};
use bytes::Bytes;
use kwire_protocol::generated::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse,
    CreateTopicsRequest, CreateTopicsResponse, DescribeGroupsRequest, DescribeGroupsResponse,
    FetchRequest, FetchResponse, FindCoordinatorRequest, FindCoordinatorResponse,
    KwireCommittedOffsetKey, KwireCommittedOffsetValue,
    KwireConsumerGroupCurrentMemberAssignmentKey, KwireConsumerGroupCurrentMemberAssignmentValue,
    KwireConsumerGroupMemberMetadataKey, KwireConsumerGroupMemberMetadataValue,
    KwireConsumerGroupMetadataKey, KwireConsumerGroupMetadataValue,
    KwireConsumerGroupRegularExpressionKey, KwireConsumerGroupRegularExpressionValue,
    KwireConsumerGroupTargetAssignmentMemberKey, KwireConsumerGroupTargetAssignmentMemberValue,
    KwireConsumerGroupTargetAssignmentMetadataKey, KwireConsumerGroupTargetAssignmentMetadataValue,
    KwirePartitionEndKey, KwirePartitionEndValue, KwireStreamsGroupCurrentMemberAssignmentKey,
    KwireStreamsGroupCurrentMemberAssignmentValue, KwireStreamsGroupMemberMetadataKey,
    KwireStreamsGroupMemberMetadataValue, KwireStreamsGroupMetadataKey,
    KwireStreamsGroupMetadataValue, KwireStreamsGroupTargetAssignmentMemberKey,
    KwireStreamsGroupTargetAssignmentMemberValue, KwireStreamsGroupTargetAssignmentMetadataKey,
    KwireStreamsGroupTargetAssignmentMetadataValue, KwireStreamsGroupTopologyKey,
    KwireStreamsGroupTopologyValue, KwireTopicKey, KwireTopicValue, ListGroupsRequest,
    ListGroupsResponse, ListOffsetsRequest, ListOffsetsResponse, MetadataRequest, MetadataResponse,
    OffsetCommitRequest, OffsetCommitResponse, OffsetFetchRequest, OffsetFetchResponse,
    ProduceRequest, ProduceResponse, Request, RequestFrame, RequestHeader, Response, ResponseFrame,
    ResponseHeader, StreamsGroupDescribeRequest, StreamsGroupDescribeResponse,
    StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse,
};
use kwire_protocol::wire::sample::{Sample, SampleGen, SampleMode};
use kwire_protocol::wire::{DecodeError, DecodeErrorKind, Message, PathSegment};
use kwire_tests::{hex, shared, unhex, workspace_root};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Allocations a decode error makes whatever the input: the `DecodeError` box (56 bytes) and its
/// field path, a `Vec<PathSegment>` of 24-byte segments that grows by doubling as the error climbs
/// out (16 segments, 384 bytes, hold the deepest path in `schemas/`:
/// `ConsumerGroupDescribeResponse.groups[i].members[j].assignment.topic_partitions[k].partitions[l]`
/// is 10), plus the 24-byte box `Bytes` makes when it first shares a `Vec`-backed buffer.
const ERROR_SLACK: usize = 512;

/// Allocations whose size depends on the schema, never on a length read from the wire: the error
/// ([`ERROR_SLACK`]), and the first growth of a `Vec` of decoded elements. When `bounded_capacity`
/// cuts an array's up-front reservation to 0 or 1 element (large structs, few bytes left), the
/// next element that really decodes grows the `Vec` to Rust's minimum non-zero capacity, 4
/// elements: 4 × 560 bytes for the largest element struct of `schemas/`
/// (`StreamsGroupDescribeResponse` `Member`; `element_structs_fit_the_slack` keeps this true).
/// 2240 + 512 rounded up to a power of two.
const SLACK: usize = 4096;

/// The largest single allocation a decoder may make for an input of `input_len` bytes:
/// `max(2 × input_len, SLACK)`. `2 × input_len`: `bounded_capacity` lets an array reserve at most
/// `2 × remaining` bytes for a count read from the wire (strings, bytes and records are slices of
/// the input and reserve nothing). A length read from the wire and trusted would show up as an
/// allocation proportional to the claim (2^31 elements, 2^31 bytes), far above this bound.
///
/// Real elements can take more memory than twice their wire size (a `MetadataResponseTopic` is
/// 104 bytes in memory and can be 26 bytes on the wire), so a `Vec` that grows as elements decode
/// can pass `2 × input_len` for large inputs; the samples mutated here hold at most 3 elements per
/// array, so growth stays within the first step covered by `SLACK`.
fn alloc_bound(input_len: usize) -> usize {
    (2 * input_len).max(SLACK)
}

/// Hex of `b`, cut after 120 bytes.
fn short_hex(b: &[u8]) -> String {
    if b.len() <= 120 {
        hex(b)
    } else {
        format!("{}… ({} bytes)", hex(&b[..120]), b.len())
    }
}

#[test]
fn element_structs_fit_the_slack() {
    use kwire_protocol::generated::{
        consumer_group_describe_response as cgd, streams_group_describe_response as sgd,
        streams_group_heartbeat_request as sghq,
    };
    use std::mem::size_of;
    // The largest structs that are array elements in schemas/ (top-level messages never are).
    for (name, size) in [
        (
            "StreamsGroupDescribeResponse.Member",
            size_of::<sgd::Member>(),
        ),
        (
            "ConsumerGroupDescribeResponse.Member",
            size_of::<cgd::Member>(),
        ),
        (
            "StreamsGroupDescribeResponse.DescribedGroup",
            size_of::<sgd::DescribedGroup>(),
        ),
        (
            "StreamsGroupHeartbeatRequest.Subtopology",
            size_of::<sghq::Subtopology>(),
        ),
    ] {
        assert!(4 * size + ERROR_SLACK <= SLACK, "{name}: {size} bytes");
    }
}

#[test]
fn counting_allocator_sees_allocations_on_this_thread_only() {
    let (v, a) = measure(|| Vec::<u8>::with_capacity(100_000));
    assert!(a.largest >= 100_000 && a.count >= 1, "{a:?}");
    drop(v);
    let (_, a) = measure(|| {
        std::thread::spawn(|| Vec::<u8>::with_capacity(1 << 20))
            .join()
            .unwrap()
            .capacity()
    });
    assert!(
        a.largest < 1 << 20,
        "another thread's allocation was counted: {a:?}"
    );
    let (_, a) = measure(|| 1 + 1);
    assert_eq!(a, Allocs::default());
}

// ================================================================================================
// Every message and every API of schemas/
// ================================================================================================

trait MessageVisitor {
    fn visit<T: Message + Sample>(&mut self);
}

/// Calls `v` once per message of `schemas/` (`every_spec_is_visited` keeps this list complete).
fn for_each_message(v: &mut impl MessageVisitor) {
    v.visit::<ApiVersionsRequest>();
    v.visit::<ApiVersionsResponse>();
    v.visit::<ConsumerGroupDescribeRequest>();
    v.visit::<ConsumerGroupDescribeResponse>();
    v.visit::<ConsumerGroupHeartbeatRequest>();
    v.visit::<ConsumerGroupHeartbeatResponse>();
    v.visit::<CreateTopicsRequest>();
    v.visit::<CreateTopicsResponse>();
    v.visit::<DescribeGroupsRequest>();
    v.visit::<DescribeGroupsResponse>();
    v.visit::<FetchRequest>();
    v.visit::<FetchResponse>();
    v.visit::<FindCoordinatorRequest>();
    v.visit::<FindCoordinatorResponse>();
    v.visit::<KwireCommittedOffsetKey>();
    v.visit::<KwireCommittedOffsetValue>();
    v.visit::<KwireConsumerGroupCurrentMemberAssignmentKey>();
    v.visit::<KwireConsumerGroupCurrentMemberAssignmentValue>();
    v.visit::<KwireConsumerGroupMemberMetadataKey>();
    v.visit::<KwireConsumerGroupMemberMetadataValue>();
    v.visit::<KwireConsumerGroupMetadataKey>();
    v.visit::<KwireConsumerGroupMetadataValue>();
    v.visit::<KwireConsumerGroupRegularExpressionKey>();
    v.visit::<KwireConsumerGroupRegularExpressionValue>();
    v.visit::<KwireConsumerGroupTargetAssignmentMemberKey>();
    v.visit::<KwireConsumerGroupTargetAssignmentMemberValue>();
    v.visit::<KwireConsumerGroupTargetAssignmentMetadataKey>();
    v.visit::<KwireConsumerGroupTargetAssignmentMetadataValue>();
    v.visit::<KwirePartitionEndKey>();
    v.visit::<KwirePartitionEndValue>();
    v.visit::<KwireStreamsGroupCurrentMemberAssignmentKey>();
    v.visit::<KwireStreamsGroupCurrentMemberAssignmentValue>();
    v.visit::<KwireStreamsGroupMemberMetadataKey>();
    v.visit::<KwireStreamsGroupMemberMetadataValue>();
    v.visit::<KwireStreamsGroupMetadataKey>();
    v.visit::<KwireStreamsGroupMetadataValue>();
    v.visit::<KwireStreamsGroupTargetAssignmentMemberKey>();
    v.visit::<KwireStreamsGroupTargetAssignmentMemberValue>();
    v.visit::<KwireStreamsGroupTargetAssignmentMetadataKey>();
    v.visit::<KwireStreamsGroupTargetAssignmentMetadataValue>();
    v.visit::<KwireStreamsGroupTopologyKey>();
    v.visit::<KwireStreamsGroupTopologyValue>();
    v.visit::<KwireTopicKey>();
    v.visit::<KwireTopicValue>();
    v.visit::<ListGroupsRequest>();
    v.visit::<ListGroupsResponse>();
    v.visit::<ListOffsetsRequest>();
    v.visit::<ListOffsetsResponse>();
    v.visit::<MetadataRequest>();
    v.visit::<MetadataResponse>();
    v.visit::<OffsetCommitRequest>();
    v.visit::<OffsetCommitResponse>();
    v.visit::<OffsetFetchRequest>();
    v.visit::<OffsetFetchResponse>();
    v.visit::<ProduceRequest>();
    v.visit::<ProduceResponse>();
    v.visit::<RequestHeader>();
    v.visit::<ResponseHeader>();
    v.visit::<StreamsGroupDescribeRequest>();
    v.visit::<StreamsGroupDescribeResponse>();
    v.visit::<StreamsGroupHeartbeatRequest>();
    v.visit::<StreamsGroupHeartbeatResponse>();
}

trait ApiVisitor {
    fn visit<Q, P>(&mut self, api: ApiKey)
    where
        Q: Message + Sample + Into<Request>,
        P: Message + Sample + Into<Response>;
}

/// Calls `v` once per API of `schemas/` with its request and response types.
fn for_each_api(v: &mut impl ApiVisitor) {
    v.visit::<ProduceRequest, ProduceResponse>(ApiKey::Produce);
    v.visit::<FetchRequest, FetchResponse>(ApiKey::Fetch);
    v.visit::<ListOffsetsRequest, ListOffsetsResponse>(ApiKey::ListOffsets);
    v.visit::<MetadataRequest, MetadataResponse>(ApiKey::Metadata);
    v.visit::<OffsetCommitRequest, OffsetCommitResponse>(ApiKey::OffsetCommit);
    v.visit::<OffsetFetchRequest, OffsetFetchResponse>(ApiKey::OffsetFetch);
    v.visit::<FindCoordinatorRequest, FindCoordinatorResponse>(ApiKey::FindCoordinator);
    v.visit::<DescribeGroupsRequest, DescribeGroupsResponse>(ApiKey::DescribeGroups);
    v.visit::<ListGroupsRequest, ListGroupsResponse>(ApiKey::ListGroups);
    v.visit::<ApiVersionsRequest, ApiVersionsResponse>(ApiKey::ApiVersions);
    v.visit::<CreateTopicsRequest, CreateTopicsResponse>(ApiKey::CreateTopics);
    v.visit::<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse>(
        ApiKey::ConsumerGroupHeartbeat,
    );
    v.visit::<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>(
        ApiKey::ConsumerGroupDescribe,
    );
    v.visit::<StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse>(
        ApiKey::StreamsGroupHeartbeat,
    );
    v.visit::<StreamsGroupDescribeRequest, StreamsGroupDescribeResponse>(
        ApiKey::StreamsGroupDescribe,
    );
}

fn versions<T: Message>() -> impl Iterator<Item = i16> {
    let r = T::VALID_VERSIONS;
    (r.lowest as i32..=r.highest as i32).map(|v| v as i16)
}

fn api_versions(api: ApiKey) -> impl Iterator<Item = i16> {
    let r = api.valid_versions();
    (r.lowest as i32..=r.highest as i32).map(|v| v as i16)
}

/// The sample modes and seeds used everywhere: one `Full` (every field set, arrays non-empty,
/// tagged fields and unknown tags present), one `Nulls` (every nullable field null), one `Random`.
const SAMPLES: &[(SampleMode, u64)] = &[
    (SampleMode::Full, 1),
    (SampleMode::Nulls, 2),
    (SampleMode::Random, 3),
];

fn sample<T: Sample>(mode: SampleMode, seed: u64, version: i16) -> T {
    T::sample(&mut SampleGen::new(seed, mode), version)
}

#[test]
fn every_spec_is_visited() {
    struct Names(Vec<&'static str>);
    impl MessageVisitor for Names {
        fn visit<T: Message + Sample>(&mut self) {
            self.0.push(T::NAME);
        }
    }
    let mut names = Names(Vec::new());
    for_each_message(&mut names);
    let mut on_disk: Vec<String> = std::fs::read_dir(workspace_root().join("schemas"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "json")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    on_disk.sort();
    let mut visited: Vec<String> = names.0.iter().map(|s| s.to_string()).collect();
    visited.sort();
    assert_eq!(
        visited, on_disk,
        "for_each_message must list every spec of schemas/"
    );

    struct Apis(Vec<ApiKey>);
    impl ApiVisitor for Apis {
        fn visit<Q, P>(&mut self, api: ApiKey)
        where
            Q: Message + Sample + Into<Request>,
            P: Message + Sample + Into<Response>,
        {
            assert_eq!(Q::API_KEY, Some(api.as_i16()), "{}", Q::NAME);
            assert_eq!(P::API_KEY, Some(api.as_i16()), "{}", P::NAME);
            assert_eq!(Q::VALID_VERSIONS, api.valid_versions(), "{}", Q::NAME);
            self.0.push(api);
        }
    }
    let mut apis = Apis(Vec::new());
    for_each_api(&mut apis);
    assert_eq!(apis.0, ApiKey::ALL, "for_each_api must list every API");
}

// ================================================================================================
// 1a. The MetadataResponse claiming 2^31-1 topics
// ================================================================================================

/// A compact count of 2^31-1 is the uvarint 2^31 (count + 1): bits 0-27 zero in four bytes with
/// the continuation bit, then bit 31 = bit 3 of the 5th 7-bit group.
const COMPACT_2_POW_31_MINUS_1: &str = "8080808008";
/// A compact count of 2^31-2 (uvarint 2^31-1 = i32::MAX, the largest value that is not negative
/// as a Java int).
const COMPACT_2_POW_31_MINUS_2: &str = "ffffffff07";

/// MetadataResponse v12 (flexible), the 15-byte body that claims 2^31-1 topics. `topics` is the
/// 5th field: `brokers`, `cluster_id` and `controller_id` come first, so they take one, one and
/// four bytes.
fn metadata_v12_body(topics_count: &str) -> String {
    [
        "00000000",   // throttle_time_ms = 0                                    (4 bytes)
        "01",         // brokers: compact count + 1 = 1, no broker               (1 byte)
        "00",         // cluster_id: compact nullable string, 0 = null           (1 byte)
        "00000001",   // controller_id = 1                                       (4 bytes)
        topics_count, // topics: compact count + 1, as a 5-byte uvarint          (5 bytes)
    ]
    .concat()
}

/// Response header v1 (the header of flexible Metadata versions, 9+): correlation id, then an
/// empty tagged-field section.
const RESPONSE_HEADER_V1: &str = concat!(
    "0000002a", // correlation_id = 42 (4 bytes)
    "00",       // tagged fields: 0    (1 byte)
);

/// Decodes `input` with `f`, measuring; asserts that it fails, that no allocation is larger than
/// `max(2 × input, ERROR_SLACK)`, and that all it allocated together is no more than the error
/// needs. Returns the error.
fn refused(input: &[u8], f: impl FnOnce(Bytes) -> Result<(), DecodeError>) -> DecodeError {
    let b = Bytes::from(input.to_vec());
    let arg = b.clone(); // promotes the buffer outside the measured region
    let (r, a) = measure(move || f(arg));
    let e = r.expect_err("must be refused");
    println!("{}: {e}; allocated {a:?}", hex(input));
    assert!(
        a.largest <= (2 * input.len()).max(ERROR_SLACK) && a.total <= ERROR_SLACK,
        "{}: {a:?}",
        hex(input)
    );
    e
}

/// The frame that kafka-protocol (Rust) aborts on: its compact-array decoder calls
/// `Vec::with_capacity(2^31-1)` for the topics before reading one; at 104 bytes a topic (the size
/// of kwire's `MetadataResponseTopic` too) that is 223 GB. kwire must fail with an error and
/// allocate nothing but the error.
#[test]
fn metadata_response_claiming_2_pow_31_minus_1_topics() {
    let body = unhex(&metadata_v12_body(COMPACT_2_POW_31_MINUS_1));
    assert_eq!(body.len(), 15, "the MetadataResponse v12 body is 15 bytes");
    let frame = unhex(
        &[
            RESPONSE_HEADER_V1,
            &metadata_v12_body(COMPACT_2_POW_31_MINUS_1),
        ]
        .concat(),
    );
    assert_eq!(frame.len(), 20, "5-byte header v1 + 15-byte body");
    assert_eq!(hex(&frame), "0000002a00000000000100000000018080808008");

    // The frame, as a client reads it.
    let e = refused(&frame, |b| {
        ResponseFrame::decode(b, ApiKey::Metadata, 12).map(drop)
    });
    assert_eq!(e.path_string(), "MetadataResponse.topics");
    assert_eq!(e.offset(), 15, "the count starts at byte 15 of the frame");
    // Which error: Java reads the uvarint 2^31 as the int MIN_VALUE and subtracts 1, which wraps
    // to MAX_VALUE = 2^31-1, a count, and then fails with "Tried to allocate a collection of size
    // 2147483647, but there are only 0 bytes remaining"; kwire's `Reader::length` does the same
    // (ArrayTooLong), with nothing allocated.
    let too_long = DecodeErrorKind::ArrayTooLong {
        count: (1 << 31) - 1,
        remaining: 0,
    };
    assert_eq!(e.kind(), &too_long);

    // The body alone, as `Message::decode_bytes` reads it.
    let e = refused(&body, |b| MetadataResponse::decode_bytes(b, 12).map(drop));
    assert_eq!(e.kind(), &too_long);
    assert_eq!(
        (e.path_string().as_str(), e.offset()),
        ("MetadataResponse.topics", 10)
    );

    // One less (the uvarint i32::MAX): a count of 2^31-2 on every reading; ArrayTooLong.
    let frame = unhex(
        &[
            RESPONSE_HEADER_V1,
            &metadata_v12_body(COMPACT_2_POW_31_MINUS_2),
        ]
        .concat(),
    );
    let e = refused(&frame, |b| {
        ResponseFrame::decode(b, ApiKey::Metadata, 12).map(drop)
    });
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::ArrayTooLong {
            count: (1 << 31) - 2,
            remaining: 0
        }
    );
    assert_eq!(e.path_string(), "MetadataResponse.topics");

    // The shorter "header + throttle + count" frame (14 bytes): the count then lands on `brokers`,
    // the first array of the body.
    for (count, want) in [
        (
            COMPACT_2_POW_31_MINUS_1,
            DecodeErrorKind::ArrayTooLong {
                count: (1 << 31) - 1,
                remaining: 0,
            },
        ),
        (
            COMPACT_2_POW_31_MINUS_2,
            DecodeErrorKind::ArrayTooLong {
                count: (1 << 31) - 2,
                remaining: 0,
            },
        ),
    ] {
        let frame = unhex(&[RESPONSE_HEADER_V1, "00000000", count].concat());
        assert_eq!(frame.len(), 14);
        let e = refused(&frame, |b| {
            ResponseFrame::decode(b, ApiKey::Metadata, 12).map(drop)
        });
        assert_eq!(e.kind(), &want);
        assert_eq!(e.path_string(), "MetadataResponse.brokers");
    }

    // Non-flexible versions: an int32 count of i32::MAX (v8: header v0, brokers first).
    let frame = unhex(concat!("0000002a", "00000000", "7fffffff"));
    let e = refused(&frame, |b| {
        ResponseFrame::decode(b, ApiKey::Metadata, 8).map(drop)
    });
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::ArrayTooLong {
            count: (1 << 31) - 1,
            remaining: 0
        }
    );
}

// ================================================================================================
// 1b. Every length field of every message at every version
// ================================================================================================

/// Written over the bytes at a position (same length): huge and negative int32 and int16 lengths
/// (bytes, arrays and strings of non-flexible versions), and single bytes that turn a 1-byte
/// compact length into a large one or into the start of a longer varint.
const OVERWRITES: &[&[u8]] = &[
    &[0x7f, 0xff, 0xff, 0xff], // int32 i32::MAX
    &[0xff, 0xff, 0xff, 0xff], // int32 -1 (null)
    &[0x80, 0x00, 0x00, 0x00], // int32 i32::MIN
    &[0xff, 0xff, 0xff, 0xfe], // int32 -2 (invalid)
    &[0x7f, 0xff],             // int16 32767
    &[0xff, 0xff],             // int16 -1 (null)
    &[0x80, 0x00],             // int16 i16::MIN
    &[0xff, 0xfe],             // int16 -2 (invalid)
    &[0xff],                   // continuation bit: the next bytes join the varint
    &[0x7f],                   // compact 126
];

/// Put in place of the byte at a position (a 1-byte compact length in the samples): 5-byte and
/// shorter uvarints.
const VARINTS: &[&[u8]] = &[
    &[0xff, 0xff, 0xff, 0xff, 0x0f], // u32::MAX: negative as a Java int, null
    &[0xff, 0xff, 0xff, 0xff, 0x07], // i32::MAX: length 2^31-2
    &[0x80, 0x80, 0x80, 0x80, 0x08], // 2^31: null for kwire, length 2^31-1 for Java
    &[0xff, 0xff, 0xff, 0xff, 0x8f], // a 6th byte would follow: VarintTooLong
    &[0x80, 0x80, 0x04],             // 65536: a string over 32767, an array over the bytes left
];

/// Whether `e` is a decoder refusing a length (or a varint holding one).
fn is_length_rejection(e: &DecodeError) -> bool {
    match e.kind() {
        DecodeErrorKind::ArrayTooLong { .. }
        | DecodeErrorKind::StringTooLong(_)
        | DecodeErrorKind::InvalidLength(_)
        | DecodeErrorKind::NullNotAllowed
        | DecodeErrorKind::VarintTooLong => true,
        // `take(n)` for bytes and strings: more bytes claimed than are left.
        DecodeErrorKind::UnexpectedEof { needed, remaining } => needed > remaining && *needed > 16,
        _ => false,
    }
}

/// The field path of an error without type names and indices: `topics[].partitions[].isr_nodes`.
fn field_path(e: &DecodeError) -> String {
    let mut s = String::new();
    for seg in e.path() {
        match seg {
            PathSegment::Type(_) => {}
            PathSegment::Field(f) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(f);
            }
            PathSegment::Index(_) => s.push_str("[]"),
            // An unknown tag's payload size; which tag depends on the mutation.
            PathSegment::Tag(_) => s.push_str("<unknown tag>"),
        }
    }
    s
}

/// Every string, bytes, records and array field (and every string/bytes element of an array)
/// present at each valid version of each spec of `schemas/`, as `field_path` writes them. Read
/// from kwire-codegen's IR of the spec files.
fn length_fields_from_specs() -> BTreeMap<(String, i16), BTreeSet<String>> {
    use kwire_codegen::ir::{Field, Spec, Type};
    use kwire_codegen::rust::names::snake;
    fn walk(spec: &Spec, fields: &[Field], v: i16, prefix: &str, out: &mut BTreeSet<String>) {
        for f in fields.iter().filter(|f| f.versions.contains(v)) {
            let path = if prefix.is_empty() {
                snake(&f.name)
            } else {
                format!("{prefix}.{}", snake(&f.name))
            };
            let strukt = |n: &str| {
                &spec
                    .find_struct(n)
                    .unwrap_or_else(|| panic!("struct {n}"))
                    .fields
            };
            match &f.ty {
                Type::String | Type::Bytes | Type::Records => {
                    out.insert(path);
                }
                Type::Array(elem) => {
                    out.insert(path.clone());
                    let ep = format!("{path}[]");
                    match &**elem {
                        Type::String | Type::Bytes | Type::Records => {
                            out.insert(ep);
                        }
                        Type::Struct(n) => walk(spec, strukt(n), v, &ep, out),
                        _ => {}
                    }
                }
                Type::Struct(n) => walk(spec, strukt(n), v, &path, out),
                _ => {}
            }
        }
    }
    let files = kwire_codegen::source::read_dir(&workspace_root().join("schemas")).unwrap();
    let checked = kwire_codegen::check_files(files);
    assert_eq!(checked.error_count(), 0, "schemas/ checks clean");
    let mut out = BTreeMap::new();
    for spec in &checked.specs {
        for v in spec.valid.iter() {
            let mut set = BTreeSet::new();
            walk(spec, &spec.fields, v, "", &mut set);
            out.insert((spec.name.clone(), v), set);
        }
    }
    out
}

#[derive(Default)]
struct Mutations {
    pairs: usize,
    samples: usize,
    positions: usize,
    mutations: usize,
    ok: usize,
    length_rejections: usize,
    largest_alloc: usize,
    largest_ratio: f64,
    /// (message, version) → field paths whose length prefix a mutation hit and the decoder refused.
    hit: BTreeMap<(String, i16), BTreeSet<String>>,
    failure_count: usize,
    failures: Vec<String>,
    /// The most an allocation exceeded twice its input, and where.
    largest_excess: usize,
    worst: String,
}

impl Mutations {
    /// Records a failure; only the first few are described (formatting every one would be slow).
    fn fail(&mut self, f: impl FnOnce() -> String) {
        self.failure_count += 1;
        if self.failures.len() < 20 {
            self.failures.push(f());
        }
    }

    fn try_one<T: Message>(&mut self, v: i16, at: usize, what: &(&str, &[u8]), m: Vec<u8>) {
        self.mutations += 1;
        let len = m.len();
        let input = Bytes::from(m);
        let arg = input.clone(); // promotes the buffer outside the measured region
        let (r, a) =
            measure(move || catch_unwind(AssertUnwindSafe(move || T::decode_bytes(arg, v))));
        let ctx = |input: &Bytes| {
            format!(
                "{} v{v} ({} {} at byte {at}): {}",
                T::NAME,
                what.0,
                hex(what.1),
                short_hex(input)
            )
        };
        self.largest_alloc = self.largest_alloc.max(a.largest);
        self.largest_ratio = self.largest_ratio.max(a.largest as f64 / len as f64);
        let excess = a.largest.saturating_sub(2 * len);
        if excess > self.largest_excess {
            self.largest_excess = excess;
            self.worst = format!(
                "{} bytes for {len} bytes of input: {}",
                a.largest,
                ctx(&input)
            );
        }
        if a.largest > alloc_bound(len) {
            self.fail(|| {
                format!(
                    "allocated {} bytes at once for {len} bytes of input: {}",
                    a.largest,
                    ctx(&input)
                )
            });
        }
        match r {
            Err(_) => self.fail(|| format!("PANIC: {}", ctx(&input))),
            Ok(Ok(msg)) => {
                self.ok += 1;
                if let Err(e) = contract_message(&msg, &input, v) {
                    self.fail(|| format!("{e}: {}", ctx(&input)));
                }
            }
            Ok(Err(e)) => {
                if is_length_rejection(&e) && (at..=at + 5).contains(&e.offset()) {
                    self.length_rejections += 1;
                    self.hit
                        .entry((T::NAME.to_string(), v))
                        .or_default()
                        .insert(field_path(&e));
                }
            }
        }
    }
}

impl MessageVisitor for Mutations {
    fn visit<T: Message + Sample>(&mut self) {
        for v in versions::<T>() {
            self.pairs += 1;
            for &(mode, seed) in SAMPLES {
                let b = sample::<T>(mode, seed, v)
                    .to_bytes(v)
                    .expect("samples encode");
                assert_eq!(
                    T::decode_bytes(b.clone(), v).map(|_| ()),
                    Ok(()),
                    "{} v{v}",
                    T::NAME
                );
                self.samples += 1;
                for at in 0..b.len() {
                    self.positions += 1;
                    for pat in OVERWRITES.iter().filter(|p| at + p.len() <= b.len()) {
                        let mut m = b.to_vec();
                        m[at..at + pat.len()].copy_from_slice(pat);
                        self.try_one::<T>(v, at, &("overwrite", pat), m);
                    }
                    for pat in VARINTS {
                        let m = [&b[..at], pat, &b[at + 1..]].concat();
                        self.try_one::<T>(v, at, &("replace a byte with", pat), m);
                    }
                }
            }
        }
    }
}

#[test]
fn every_length_field_of_every_message_survives_huge_lengths() {
    let mut m = Mutations::default();
    for_each_message(&mut m);
    let expected = length_fields_from_specs();
    let want: usize = expected.values().map(BTreeSet::len).sum();
    let mut missing = Vec::new();
    let mut found = 0;
    for (key, fields) in &expected {
        let hit = m.hit.get(key).cloned().unwrap_or_default();
        for f in fields {
            if hit.contains(f) {
                found += 1;
            } else {
                missing.push(format!("{} v{}: {f}", key.0, key.1));
            }
        }
    }
    let extra: BTreeSet<String> = m
        .hit
        .iter()
        .flat_map(|(k, s)| {
            let exp = expected.get(k);
            s.iter()
                .filter(move |f| exp.is_none_or(|e| !e.contains(*f)))
                .cloned()
        })
        .collect();
    println!(
        "{} (message, version) pairs, {} samples, {} byte positions, {} mutations decoded: {} Ok \
         (contract checked), {} refused at a length prefix; largest allocation {} bytes, at most \
         {:.2} × the input; {found}/{want} length fields of the specs hit, plus {} paths of \
         tagged-field sections (count, tag size, unknown-tag payload) such as {:?}",
        m.pairs,
        m.samples,
        m.positions,
        m.mutations,
        m.ok,
        m.length_rejections,
        m.largest_alloc,
        m.largest_ratio,
        extra.len(),
        extra.iter().take(4).collect::<Vec<_>>(),
    );
    println!(
        "most above 2 × the input ({} bytes): {}",
        m.largest_excess, m.worst
    );
    assert!(
        m.failure_count == 0,
        "{} failures, the first:\n{}",
        m.failure_count,
        m.failures.join("\n")
    );
    assert!(
        missing.is_empty(),
        "length fields never hit:\n{}",
        missing.join("\n")
    );
}

// ================================================================================================
// 2. Decode contract, for any input
// ================================================================================================

/// decode(b) gave `m`: `encoded_len` is exact, decode(encode(m)) == m, and encode(m) is canonical
/// (encode(decode(encode(m))) == encode(m)). When encode(m) == b, b was canonical and both hold
/// by construction (same bytes, same decoder), so only the non-canonical inputs pay for the second
/// decode and encode.
fn contract_message<T: Message>(m: &T, b: &Bytes, v: i16) -> Result<(), String> {
    let n = T::NAME;
    let e1 = m
        .to_bytes(v)
        .map_err(|e| format!("{n} v{v}: decodes but does not re-encode: {e}"))?;
    let len = m
        .encoded_len(v)
        .map_err(|e| format!("{n} v{v}: encoded_len: {e}"))?;
    if len != e1.len() {
        return Err(format!(
            "{n} v{v}: encoded_len {len} but {} bytes written",
            e1.len()
        ));
    }
    if e1 == b {
        return Ok(());
    }
    let m2 = T::decode_bytes(e1.clone(), v)
        .map_err(|e| format!("{n} v{v}: re-encoding {} does not decode: {e}", hex(&e1)))?;
    if &m2 != m {
        return Err(format!(
            "{n} v{v}: decode(encode(decode(b))) != decode(b)\n  {m:?}\n  {m2:?}"
        ));
    }
    let e2 = m2.to_bytes(v).map_err(|e| format!("{n} v{v}: {e}"))?;
    if e2 != e1 {
        return Err(format!(
            "{n} v{v}: encoding is not canonical: {} then {}",
            hex(&e1),
            hex(&e2)
        ));
    }
    Ok(())
}

/// As [`contract_message`], for a request frame decoded from `b`.
fn contract_request(f: &RequestFrame, b: &Bytes) -> Result<(), String> {
    let e1 = f
        .to_bytes()
        .map_err(|e| format!("request frame decodes but does not re-encode: {e}"))?;
    if f.encoded_len().ok() != Some(e1.len()) {
        return Err("request frame: encoded_len is not exact".into());
    }
    if e1 == b {
        return Ok(());
    }
    let f2 = RequestFrame::decode(e1.clone()).map_err(|e| {
        format!(
            "request frame re-encoding {} does not decode: {e}",
            hex(&e1)
        )
    })?;
    if &f2 != f {
        return Err(format!(
            "request frame: decode(encode(decode(b))) != decode(b)\n  {f:?}\n  {f2:?}"
        ));
    }
    let e2 = f2.to_bytes().map_err(|e| e.to_string())?;
    if e2 != e1 {
        return Err(format!(
            "request frame: not canonical: {} then {}",
            hex(&e1),
            hex(&e2)
        ));
    }
    Ok(())
}

/// As [`contract_message`], for a response frame decoded from `b`.
fn contract_response(f: &ResponseFrame, b: &Bytes, api: ApiKey, v: i16) -> Result<(), String> {
    let at = || format!("{} v{v} response frame", api.name());
    let e1 = f
        .to_bytes(v)
        .map_err(|e| format!("{} decodes but does not re-encode: {e}", at()))?;
    if f.encoded_len(v).ok() != Some(e1.len()) {
        return Err(format!("{}: encoded_len is not exact", at()));
    }
    if e1 == b {
        return Ok(());
    }
    let at = at();
    let f2 = ResponseFrame::decode(e1.clone(), api, v)
        .map_err(|e| format!("{at}: re-encoding {} does not decode: {e}", hex(&e1)))?;
    if &f2 != f {
        return Err(format!(
            "{at}: decode(encode(decode(b))) != decode(b)\n  {f:?}\n  {f2:?}"
        ));
    }
    let e2 = f2.to_bytes(v).map_err(|e| e.to_string())?;
    if e2 != e1 {
        return Err(format!(
            "{at}: not canonical: {} then {}",
            hex(&e1),
            hex(&e2)
        ));
    }
    Ok(())
}

/// Feeds `b` to every decoder: `RequestFrame::decode`, `ResponseFrame::decode` for every (API,
/// valid version), every message's `decode_bytes` at every valid version. Panics are caught and
/// reported as errors with the input. Returns how many decoders ran and how many accepted `b`.
fn decode_everything(b: &Bytes) -> Result<(usize, usize), String> {
    struct All<'a> {
        b: &'a Bytes,
        runs: usize,
        ok: usize,
        err: Option<String>,
    }
    impl All<'_> {
        fn run(&mut self, what: &str, f: impl FnOnce() -> Option<Result<(), String>>) {
            if self.err.is_some() {
                return;
            }
            self.runs += 1;
            match catch_unwind(AssertUnwindSafe(f)) {
                Err(_) => self.err = Some(format!("PANIC in {what} on {}", hex(self.b))),
                Ok(None) => {}
                Ok(Some(Ok(()))) => self.ok += 1,
                Ok(Some(Err(e))) => self.err = Some(format!("{e}\n  input: {}", hex(self.b))),
            }
        }
    }
    impl MessageVisitor for All<'_> {
        fn visit<T: Message + Sample>(&mut self) {
            for v in versions::<T>() {
                let b = self.b.clone();
                self.run(T::NAME, || {
                    T::decode_bytes(b.clone(), v)
                        .ok()
                        .map(|m| contract_message(&m, &b, v))
                });
            }
        }
    }
    let mut all = All {
        b,
        runs: 0,
        ok: 0,
        err: None,
    };
    all.run("RequestFrame::decode", || {
        RequestFrame::decode(b.clone())
            .ok()
            .map(|f| contract_request(&f, b))
    });
    for &api in ApiKey::ALL {
        for v in api_versions(api) {
            all.run("ResponseFrame::decode", || {
                ResponseFrame::decode(b.clone(), api, v)
                    .ok()
                    .map(|f| contract_response(&f, b, api, v))
            });
        }
    }
    for_each_message(&mut all);
    match all.err {
        Some(e) => Err(e),
        None => Ok((all.runs, all.ok)),
    }
}

/// Golden frames of `<shared>/golden/librdkafka-2.16.0/*.log`: (is a request, key, version, bytes).
/// None when tests/build.rs did not find the shared material (`cfg(kwire_shared)` off).
fn golden_frames() -> Vec<(bool, i16, i16, Vec<u8>)> {
    if !cfg!(kwire_shared) {
        return Vec::new();
    }
    let dir = shared().join("golden").join("librdkafka-2.16.0");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    files.sort();
    for path in files {
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let toks: Vec<&str> = line.split_whitespace().collect();
            let request = match toks.get(2) {
                Some(&"->") => true,
                Some(&"<-") => false,
                _ => continue,
            };
            let field = |k: &str| toks.iter().find_map(|t| t.strip_prefix(k));
            let key = field("key=").and_then(|k| k.parse().ok()).expect("key=");
            let version = toks[3..]
                .iter()
                .find_map(|t| t.strip_prefix('v').and_then(|v| v.parse().ok()))
                .expect("vN");
            out.push((request, key, version, unhex(field("hex=").expect("hex="))));
        }
    }
    out
}

/// Frames and message bodies written by our own encoder, from samples: every request and response
/// frame of every API at every valid version, and every message body at every valid version.
fn encoder_frames() -> Vec<Vec<u8>> {
    struct Frames(Vec<Vec<u8>>);
    impl ApiVisitor for Frames {
        fn visit<Q, P>(&mut self, api: ApiKey)
        where
            Q: Message + Sample + Into<Request>,
            P: Message + Sample + Into<Response>,
        {
            for v in api_versions(api) {
                for &(mode, seed) in &SAMPLES[..2] {
                    let q = RequestFrame::new(sample::<Q>(mode, seed, v), v, 7, Some("kwire"));
                    self.0.push(q.to_bytes().expect("request frame").to_vec());
                    let p = ResponseFrame::new(sample::<P>(mode, seed, v), 7);
                    self.0.push(p.to_bytes(v).expect("response frame").to_vec());
                }
            }
        }
    }
    impl MessageVisitor for Frames {
        fn visit<T: Message + Sample>(&mut self) {
            for v in versions::<T>() {
                self.0.push(
                    sample::<T>(SampleMode::Full, 1, v)
                        .to_bytes(v)
                        .unwrap()
                        .to_vec(),
                );
            }
        }
    }
    let mut f = Frames(Vec::new());
    for_each_api(&mut f);
    for_each_message(&mut f);
    f.0
}

#[test]
fn encoder_frames_are_fixed_points() {
    // Frames written by our encoder: encode(decode(b)) == b exactly.
    struct Exact(usize);
    impl ApiVisitor for Exact {
        fn visit<Q, P>(&mut self, api: ApiKey)
        where
            Q: Message + Sample + Into<Request>,
            P: Message + Sample + Into<Response>,
        {
            for v in api_versions(api) {
                for &(mode, seed) in SAMPLES {
                    let q = RequestFrame::new(sample::<Q>(mode, seed, v), v, 9, Some("kwire"));
                    let b = q.to_bytes().unwrap();
                    let back = RequestFrame::decode(b.clone()).unwrap();
                    assert_eq!(back, q);
                    assert_eq!(back.to_bytes().unwrap(), b, "{} v{v}", Q::NAME);
                    let p = ResponseFrame::new(sample::<P>(mode, seed, v), 9);
                    let b = p.to_bytes(v).unwrap();
                    let back = ResponseFrame::decode(b.clone(), api, v).unwrap();
                    assert_eq!(back, p);
                    assert_eq!(back.to_bytes(v).unwrap(), b, "{} v{v}", P::NAME);
                    self.0 += 2;
                }
            }
        }
    }
    let mut exact = Exact(0);
    for_each_api(&mut exact);
    println!("{} encoder frames exact", exact.0);
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn golden_frames_satisfy_the_contract() {
    // Golden frames: whatever decodes satisfies the contract (and is exact where the client wrote
    // canonical bytes, which golden.rs checks frame by frame).
    let golden = golden_frames();
    assert!(!golden.is_empty(), "no golden frames");
    let mut decoded = 0;
    for (request, key, version, bytes) in &golden {
        let b = Bytes::from(bytes.clone());
        if *request {
            if let Ok(f) = RequestFrame::decode(b.clone()) {
                contract_request(&f, &b).unwrap();
                decoded += 1;
            }
        } else if let Some(api) = ApiKey::from_i16(*key) {
            if let Ok(f) = ResponseFrame::decode(b.clone(), api, *version) {
                contract_response(&f, &b, api, *version).unwrap();
                decoded += 1;
            }
        }
    }
    println!(
        "{decoded} of {} golden frames decode, contract holds",
        golden.len()
    );
}

/// One edit of a seed frame. Positions are taken modulo the current length (+1 for insertions).
#[derive(Debug, Clone)]
enum Edit {
    FlipBit {
        at: usize,
        bit: u8,
    },
    Truncate {
        at: usize,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Delete {
        at: usize,
        len: usize,
    },
    Overwrite {
        at: usize,
        bytes: Vec<u8>,
    },
    /// Inserts `len` bytes from `from` of seed `other`.
    Splice {
        other: usize,
        from: usize,
        len: usize,
        at: usize,
    },
    /// Writes one of the huge length patterns (`OVERWRITES`, `VARINTS`).
    Huge {
        at: usize,
        which: usize,
    },
}

#[derive(Debug, Clone)]
enum Input {
    Random(Vec<u8>),
    Mutated { seed: usize, edits: Vec<Edit> },
}

fn apply(seeds: &[Vec<u8>], input: &Input) -> Vec<u8> {
    let (seed, edits) = match input {
        Input::Random(b) => return b.clone(),
        Input::Mutated { seed, edits } => (*seed, edits),
    };
    let mut b = seeds[seed % seeds.len()].clone();
    for e in edits {
        let n = b.len();
        match e {
            Edit::FlipBit { at, bit } if n > 0 => b[at % n] ^= 1 << (bit % 8),
            Edit::Truncate { at } => b.truncate(at % (n + 1)),
            Edit::Insert { at, bytes } => {
                let at = at % (n + 1);
                b.splice(at..at, bytes.iter().copied());
            }
            Edit::Delete { at, len } if n > 0 => {
                let at = at % n;
                b.drain(at..(at + len).min(n));
            }
            Edit::Overwrite { at, bytes } if n > 0 => {
                for (i, x) in bytes.iter().enumerate() {
                    if let Some(y) = b.get_mut(at % n + i) {
                        *y = *x;
                    }
                }
            }
            Edit::Splice {
                other,
                from,
                len,
                at,
            } => {
                let o = &seeds[other % seeds.len()];
                let from = from % (o.len() + 1);
                let piece = &o[from..(from + len).min(o.len())];
                let at = at % (n + 1);
                b.splice(at..at, piece.iter().copied());
            }
            Edit::Huge { at, which } if n > 0 => {
                let at = at % n;
                let k = which % (OVERWRITES.len() + VARINTS.len());
                if let Some(p) = OVERWRITES.get(k) {
                    for (i, x) in p.iter().enumerate() {
                        if let Some(y) = b.get_mut(at + i) {
                            *y = *x;
                        }
                    }
                } else {
                    b.splice(at..at + 1, VARINTS[k - OVERWRITES.len()].iter().copied());
                }
            }
            _ => {}
        }
    }
    b
}

fn input_strategy(seeds: usize) -> impl Strategy<Value = Input> {
    let pos = any::<usize>();
    let small = prop::collection::vec(any::<u8>(), 1..8);
    let edit = prop_oneof![
        3 => (pos, any::<u8>()).prop_map(|(at, bit)| Edit::FlipBit { at, bit }),
        1 => pos.prop_map(|at| Edit::Truncate { at }),
        2 => (pos, small.clone()).prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
        1 => (pos, 1..8usize).prop_map(|(at, len)| Edit::Delete { at, len }),
        2 => (pos, small).prop_map(|(at, bytes)| Edit::Overwrite { at, bytes }),
        1 => (any::<usize>(), pos, 1..64usize, pos)
            .prop_map(|(other, from, len, at)| Edit::Splice { other, from, len, at }),
        2 => (pos, any::<usize>()).prop_map(|(at, which)| Edit::Huge { at, which }),
    ];
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..96).prop_map(Input::Random),
        4 => (0..seeds, prop::collection::vec(edit, 1..4))
            .prop_map(|(seed, edits)| Input::Mutated { seed, edits }),
    ]
}

#[test]
fn decoders_survive_random_and_mutated_frames() {
    let golden = golden_frames();
    let mut seeds: Vec<Vec<u8>> = golden.iter().map(|g| g.3.clone()).collect();
    let n_golden = seeds.len();
    seeds.extend(encoder_frames());
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4000);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let runs = Cell::new(0usize);
    let oks = Cell::new(0usize);
    let cases_ok = Cell::new(0usize);
    let started = std::time::Instant::now();
    let result = runner.run(&input_strategy(seeds.len()), |input| {
        let b = Bytes::from(apply(&seeds, &input));
        let (r, k) = decode_everything(&b).map_err(TestCaseError::fail)?;
        runs.set(runs.get() + r);
        oks.set(oks.get() + k);
        cases_ok.set(cases_ok.get() + usize::from(k > 0));
        Ok(())
    });
    println!(
        "{cases} cases over {} seeds ({n_golden} golden, {} from our encoder): {} decoder runs, {} \
         accepted with the contract checked (in {} cases); {:.1} s",
        seeds.len(),
        seeds.len() - n_golden,
        runs.get(),
        oks.get(),
        cases_ok.get(),
        started.elapsed().as_secs_f64()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

// ================================================================================================
// 3. Inputs found by fuzzing (fuzz/, target decode_any), kept as regressions
// ================================================================================================

#[test]
fn fuzz_regressions() {
    // (hex) — none found so far; each entry is fed to every decoder with the contract checked.
    const FOUND: &[&str] = &[];
    for h in FOUND {
        decode_everything(&Bytes::from(unhex(h))).unwrap();
    }
}
