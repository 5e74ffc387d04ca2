//! Hand-worked byte vectors for the wire encoding (Kafka's protocol guide,
//! https://kafka.apache.org/protocol, and the encoding of the classes Kafka's message generator
//! writes: flexible versions, tagged fields, compact and nullable types, headers).
//!
//! Every expected byte string below was written by hand from the rules and the specs in
//! `schemas/`, never computed with the code under test; each byte group carries a comment. One
//! `#[test]` per rule. Where a rule needs a spec shape that `schemas/` lacks (a tagged string, a
//! tagged struct, a nullable tagged field with a non-null default, a known tag outside its
//! taggedVersions), the test uses `probe::TagProbe`: `kwire_codegen`'s output for
//! `tests/fixtures/probe/TagProbe.json`, compiled by tests/build.rs.

use bytes::Bytes;
use kwire_protocol::generated::api_versions_request::ApiVersionsRequest;
use kwire_protocol::generated::api_versions_response::{
    ApiVersion, ApiVersionsResponse, FinalizedFeatureKey, SupportedFeatureKey,
};
use kwire_protocol::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use kwire_protocol::generated::consumer_group_describe_response as cgd;
use kwire_protocol::generated::consumer_group_heartbeat_request as cghq;
use kwire_protocol::generated::consumer_group_heartbeat_response as cghs;
use kwire_protocol::generated::find_coordinator_request::FindCoordinatorRequest;
use kwire_protocol::generated::find_coordinator_response::FindCoordinatorResponse;
use kwire_protocol::generated::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kwire_protocol::generated::metadata_response as md;
use kwire_protocol::generated::request_header::RequestHeader;
use kwire_protocol::generated::response_header::ResponseHeader;
use kwire_protocol::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use kwire_protocol::generated::streams_group_describe_response as sgd;
use kwire_protocol::generated::streams_group_heartbeat_request as sghq;
use kwire_protocol::generated::streams_group_heartbeat_response as sghs;
use kwire_protocol::generated::{ApiKey, Request, RequestFrame, ResponseFrame};
use kwire_protocol::wire::frame::write_frame;
use kwire_protocol::wire::{
    self, Decode, DecodeError, DecodeErrorKind, Encode, EncodeError, EncodeErrorKind, KStr,
    Message, RawTaggedField, RawWriter, Reader, Sink, Uuid,
};
use kwire_tests::{hex, unhex};

// ------------------------------------------------------------------------------------------------
// Helpers (they only compare; no expected byte is produced by them)
// ------------------------------------------------------------------------------------------------

fn b(h: &str) -> Bytes {
    Bytes::from(unhex(h))
}

/// `m` encodes at `v` to exactly `expected` (hex), and `encoded_len` agrees.
#[track_caller]
fn assert_encodes<T: Encode>(m: &T, v: i16, expected: &str) {
    let want = unhex(expected);
    let got = m
        .to_bytes(v)
        .unwrap_or_else(|e| panic!("encode at v{v} failed: {e}"));
    assert_eq!(hex(&got), hex(&want), "bytes at v{v}");
    assert_eq!(m.encoded_len(v).unwrap(), want.len(), "encoded_len at v{v}");
}

/// `m` encodes at `v` to exactly `expected`, and decoding `expected` gives back `m`.
#[track_caller]
fn assert_vector<T: Message>(m: &T, v: i16, expected: &str) {
    assert_encodes(m, v, expected);
    let back = T::decode_bytes(b(expected), v).unwrap_or_else(|e| panic!("decode at v{v}: {e}"));
    assert_eq!(&back, m, "decode at v{v}");
}

#[track_caller]
fn decode<T: Message>(h: &str, v: i16) -> T {
    T::decode_bytes(b(h), v).unwrap_or_else(|e| panic!("decode at v{v}: {e}"))
}

#[track_caller]
fn decode_err<T: Message>(h: &str, v: i16) -> DecodeError {
    match T::decode_bytes(b(h), v) {
        Ok(m) => panic!("expected a decode error at v{v}, got {m:?}"),
        Err(e) => e,
    }
}

#[track_caller]
fn encode_err<T: Encode + std::fmt::Debug>(m: &T, v: i16) -> EncodeError {
    match m.to_bytes(v) {
        Ok(bytes) => panic!("expected an encode error at v{v}, got {}", hex(&bytes)),
        Err(e) => {
            // Sizing runs the same checks.
            assert_eq!(
                m.encoded_len(v).unwrap_err(),
                e,
                "encoded_len must fail the same way"
            );
            e
        }
    }
}

/// Decodes a nested struct (not a top-level message) and checks every byte was used.
#[track_caller]
fn decode_nested<T: Decode>(h: &str, v: i16) -> T {
    let mut r = Reader::new(b(h));
    let m = T::decode(&mut r, v).unwrap_or_else(|e| panic!("decode at v{v}: {e}"));
    r.finish().unwrap();
    m
}

fn s(x: &'static str) -> KStr {
    KStr::from(x)
}

fn raw(tag: u32, data: &str) -> RawTaggedField {
    RawTaggedField { tag, data: b(data) }
}

/// ApiVersionsResponse v3 with only the fixed part empty: the prefix every tagged-section vector
/// below starts with.
const AVR3_EMPTY_PREFIX: &str = concat!(
    "0000",     // ErrorCode int16 = 0
    "01",       // ApiKeys: compact array, uvarint count+1 = 1 -> 0 elements
    "00000000", // ThrottleTimeMs int32 = 0 (v1+)
);

// ================================================================================================
// 4 (intro) / 4.7: unsigned varints
// ================================================================================================

/// uvarint = unsigned LEB128 of a u32, 7 bits per byte, low group first, minimal on write, at most
/// 5 bytes. Checked at every length boundary through the runtime (Sink / Reader / counting RawWriter), then
/// through generated code: compact string lengths, compact array counts and tagged-field sizes.
#[test]
fn uvarint_minimal_encoding_at_every_length_boundary() {
    let cases: &[(u32, &str)] = &[
        (0, "00"),                   // 0
        (127, "7f"),                 // 0b111_1111: largest 1-byte value
        (128, "8001"),               // low 7 bits 0 + continuation, then 1
        (16383, "ff7f"),             // 2^14-1: two full groups
        (16384, "808001"),           // 2^14: third byte
        ((1 << 21) - 1, "ffff7f"),   // 2^21-1
        (1 << 21, "80808001"),       // 2^21: fourth byte
        ((1 << 28) - 1, "ffffff7f"), // 2^28-1
        (1 << 28, "8080808001"),     // 2^28: fifth byte
        (u32::MAX, "ffffffff0f"),    // 4 full groups + the top 4 bits (0x0f)
    ];
    for &(v, want) in cases {
        let mut out: Vec<u8> = Vec::new();
        out.put_uvarint(v);
        assert_eq!(hex(&out), want, "put_uvarint({v})");
        let mut c = RawWriter::counter();
        c.put_uvarint(v);
        assert_eq!(c.written(), want.len() / 2, "counted size of {v}");
        let mut r = Reader::new(b(want));
        assert_eq!(r.uvarint().unwrap(), v, "uvarint read of {want}");
        r.finish().unwrap();
    }

    // Compact string lengths (N+1) in generated code: ConsumerGroupDescribeRequest v0 GroupIds
    // elements are compact strings.
    for (n, prefix) in [
        (126usize, "7f"),
        (127, "8001"),
        (16382, "ff7f"),
        (16383, "808001"),
    ] {
        let m = ConsumerGroupDescribeRequest {
            group_ids: vec![KStr::from("g".repeat(n))],
            ..Default::default()
        };
        let got = m.to_bytes(0).unwrap();
        // 02 = one element (count+1), then the element's length prefix N+1.
        let want_head = format!("02{prefix}");
        assert_eq!(
            hex(&got[..want_head.len() / 2]),
            want_head,
            "string of {n} bytes"
        );
        assert_eq!(got.len(), 1 + prefix.len() / 2 + n + 2); // + bool + tagged-section count
    }

    // Compact array counts (count+1): 127 empty strings -> count+1 = 128 = 80 01.
    let m = ConsumerGroupDescribeRequest {
        group_ids: vec![KStr::new(); 127],
        ..Default::default()
    };
    let got = m.to_bytes(0).unwrap();
    let mut want = String::from("8001"); // count+1 = 128
    for _ in 0..127 {
        want.push_str("01"); // each element: empty compact string (length+1 = 1)
    }
    want.push_str("00"); // IncludeAuthorizedOperations = false
    want.push_str("00"); // tagged section: 0 fields
    assert_eq!(hex(&got), want);

    // Tagged-field sizes: one unknown tag 4 on ApiVersionsResponse v3 with payloads of boundary
    // sizes; the size is the uvarint right after the tag.
    for (n, size) in [
        (127usize, "7f"),
        (128, "8001"),
        (16383, "ff7f"),
        (16384, "808001"),
        ((1 << 21) - 1, "ffff7f"),
        (1 << 21, "80808001"),
    ] {
        let m = ApiVersionsResponse {
            unknown_tagged_fields: vec![RawTaggedField {
                tag: 4,
                data: Bytes::from(vec![0xab; n]),
            }]
            .into(),
            ..Default::default()
        };
        let got = m.to_bytes(3).unwrap();
        let head = format!("{AVR3_EMPTY_PREFIX}0104{size}"); // count 1, tag 4, size
        assert_eq!(hex(&got[..head.len() / 2]), head, "payload of {n} bytes");
        assert_eq!(got.len(), head.len() / 2 + n);
        assert_eq!(ApiVersionsResponse::decode_bytes(got, 3).unwrap(), m);
    }

    // Decoding the large boundaries through generated code: a compact count of 2^28-1 / 2^28
    // (count+1) cannot fit in the 0 bytes left, and the error reports the decoded count.
    for (h, count) in [
        ("ffffff7f", (1usize << 28) - 2),
        ("8080808001", (1usize << 28) - 1),
    ] {
        let e = decode_err::<ConsumerGroupDescribeRequest>(h, 0);
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::ArrayTooLong {
                count,
                remaining: 0
            },
            "{h}"
        );
    }
}

/// Non-minimal (overlong) varints are accepted on read (Java accepts them); writing is minimal.
#[test]
fn uvarint_non_minimal_forms_are_accepted_and_reencoded_minimally() {
    let overlong = concat!(
        "8200",       // GroupIds count+1 = 2 written in 2 bytes (0x02 | continuation, then 0)
        "828000",     // element length+1 = 2 written in 3 bytes
        "67",         // "g"
        "00",         // IncludeAuthorizedOperations = false
        "8080808000", // tagged-field count 0 written in 5 bytes
    );
    let m: ConsumerGroupDescribeRequest = decode(overlong, 0);
    assert_eq!(m.group_ids, vec![s("g")]);
    assert!(!m.include_authorized_operations);
    assert_encodes(&m, 0, concat!("02", "02", "67", "00", "00"));
}

/// A 5th varint byte with its high bit set is an error (VarintTooLong); excess bits of a valid
/// 5th byte are dropped, as Java does.
#[test]
fn uvarint_fifth_byte_with_high_bit_is_varint_too_long() {
    // GroupIds count: 80 80 80 80 80 = five continuation bytes.
    let e = decode_err::<ConsumerGroupDescribeRequest>("808080808000", 0);
    assert_eq!(e.kind(), &DecodeErrorKind::VarintTooLong);
    assert_eq!(e.offset(), 0);
    assert_eq!(
        e.to_string(),
        "ConsumerGroupDescribeRequest.group_ids at byte 0: varint is longer than 5 bytes"
    );

    // Runtime level: 4 continuation bytes are fine, the 5th must not continue.
    let mut r = Reader::new(b("ffffffff8f"));
    assert_eq!(
        r.uvarint().unwrap_err().kind(),
        &DecodeErrorKind::VarintTooLong
    );
    // 5th byte 0x7f: only its low 4 bits fit in 32 bits; the top 3 are dropped -> u32::MAX,
    // the same value as the minimal ff ff ff ff 0f.
    assert_eq!(Reader::new(b("ffffffff7f")).uvarint().unwrap(), u32::MAX);
    assert_eq!(Reader::new(b("ffffffff0f")).uvarint().unwrap(), u32::MAX);
    // 5th byte 0x10: bit 32, dropped entirely -> 0.
    assert_eq!(Reader::new(b("8080808010")).uvarint().unwrap(), 0);
}

/// A compact length or count >= 2^31 becomes negative in Java and reads as null; 2^31-1 is still a
/// (huge) count.
#[test]
fn compact_length_above_2_pow_31_reads_as_null() {
    let h = concat!(
        "0267",       // GroupId "g"
        "01",         // MemberId ""
        "00000000",   // MemberEpoch 0
        "00",         // InstanceId null
        "00",         // RackId null
        "ffffffff",   // RebalanceTimeoutMs -1
        "8180808008", // SubscribedTopicNames: uvarint 2^31 + 1 (negative as a Java int) -> null
        "00",         // ServerAssignor null
        "ffffffff0f", // TopicPartitions: uvarint u32::MAX -> null
        "00",         // tagged fields: 0
    );
    let m: cghq::ConsumerGroupHeartbeatRequest = decode(h, 0);
    assert_eq!(m.subscribed_topic_names, None);
    assert_eq!(m.topic_partitions, None);
    // Re-encoded canonically: null is compact 0.
    assert_encodes(
        &m,
        0,
        concat!("0267", "01", "00000000", "00", "00", "ffffffff", "00", "00", "00", "00"),
    );
    // In a non-nullable field the same value is the "serialized as null" error.
    let e = decode_err::<ConsumerGroupDescribeRequest>("8180808008", 0);
    assert_eq!(e.kind(), &DecodeErrorKind::NullNotAllowed);
    // Exactly 2^31 wraps, as in Java, to the length 2^31 - 1: too long for any input.
    let e = decode_err::<ConsumerGroupDescribeRequest>("8080808008", 0);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::ArrayTooLong {
            count: (1 << 31) - 1,
            remaining: 0
        }
    );
    // 2^31-1 (ff ff ff ff 07) is a count of 2^31-2, not null.
    let e = decode_err::<ConsumerGroupDescribeRequest>("ffffffff07", 0);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::ArrayTooLong {
            count: (1 << 31) - 2,
            remaining: 0
        }
    );
}

// ================================================================================================
// 4.1 Fixed-size types
// ================================================================================================

/// bool: written 0x00/0x01; on read any non-zero byte is true; re-encodes as 0x01.
#[test]
fn bool_any_nonzero_byte_is_true_and_reencodes_as_01() {
    for byte in ["01", "7f", "80", "ff"] {
        // 01 = GroupIds empty (count+1 = 1), then the bool, then 0 tagged fields.
        let m: ConsumerGroupDescribeRequest = decode(&format!("01{byte}00"), 0);
        assert!(m.include_authorized_operations, "byte {byte}");
        assert_encodes(&m, 0, concat!("01", "01", "00")); // bool re-encoded as 01
    }
    let m: ConsumerGroupDescribeRequest = decode(concat!("01", "00", "00"), 0);
    assert!(!m.include_authorized_operations);
    assert_encodes(&m, 0, concat!("01", "00", "00"));
}

/// int8: one byte, two's complement.
#[test]
fn int8_is_one_signed_byte() {
    // FindCoordinatorRequest v1 (not flexible): Key string (int16 length), KeyType int8.
    let m = FindCoordinatorRequest {
        key: s("g"),
        key_type: 1,
        ..Default::default()
    };
    assert_vector(&m, 1, concat!("0001", "67", /* KeyType */ "01"));
    let m = FindCoordinatorRequest {
        key: s("g"),
        key_type: -128,
        ..Default::default()
    };
    assert_vector(&m, 1, concat!("0001", "67", /* KeyType -128 */ "80"));
    let m = FindCoordinatorRequest {
        key: s("g"),
        key_type: -2,
        ..Default::default()
    };
    assert_vector(&m, 1, concat!("0001", "67", /* KeyType -2 */ "fe"));
}

/// int16: two bytes, big-endian, signed.
#[test]
fn int16_is_two_bytes_big_endian() {
    let m = ApiVersionsResponse {
        error_code: 35,
        api_keys: vec![ApiVersion {
            api_key: 0x0102,
            min_version: -1,
            max_version: 0x7fff,
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_vector(
        &m,
        0,
        concat!(
            "0023",     // ErrorCode 35
            "00000001", // ApiKeys: int32 count 1 (v0 is not flexible)
            "0102",     //   ApiKey 0x0102: high byte first
            "ffff",     //   MinVersion -1
            "7fff",     //   MaxVersion 32767
        ),
    );
}

/// int32: four bytes, big-endian, signed.
#[test]
fn int32_is_four_bytes_big_endian() {
    assert_vector(
        &ResponseHeader {
            correlation_id: 0x0102_0304,
            ..Default::default()
        },
        0,
        "01020304",
    );
    assert_vector(
        &ResponseHeader {
            correlation_id: -2,
            ..Default::default()
        },
        0,
        "fffffffe",
    );
    assert_vector(
        &ResponseHeader {
            correlation_id: i32::MIN,
            ..Default::default()
        },
        0,
        "80000000",
    );
}

/// int64: eight bytes, big-endian, signed (StreamsGroupHeartbeatRequest TaskOffset.Offset).
#[test]
fn int64_is_eight_bytes_big_endian() {
    let m = sghq::TaskOffset {
        subtopology_id: s("s"),
        partition: 0x0102_0304,
        offset: 0x0102_0304_0506_0708,
        ..Default::default()
    };
    let h = concat!(
        "0273",             // SubtopologyId "s" (compact: length+1 = 2)
        "01020304",         // Partition int32
        "0102030405060708", // Offset int64, most significant byte first
        "00",               // tagged fields: 0
    );
    assert_encodes(&m, 0, h);
    assert_eq!(decode_nested::<sghq::TaskOffset>(h, 0), m);
    let m = sghq::TaskOffset {
        subtopology_id: s("s"),
        partition: 0,
        offset: -2,
        ..Default::default()
    };
    let h = concat!("0273", "00000000", "fffffffffffffffe", "00");
    assert_encodes(&m, 0, h);
    assert_eq!(decode_nested::<sghq::TaskOffset>(h, 0), m);
}

/// uint16: two bytes big-endian, read unsigned (0..65535) (Endpoint.Port).
#[test]
fn uint16_is_two_bytes_read_unsigned() {
    let m = sghq::Endpoint {
        host: s("h"),
        port: 65535,
        ..Default::default()
    };
    let h = concat!("0268", /* Host "h" */ "ffff", /* Port 65535 */ "00" /* tags */);
    assert_encodes(&m, 0, h);
    assert_eq!(decode_nested::<sghq::Endpoint>(h, 0), m);
    // 0x8001 would be negative as an int16; as uint16 it is 32769.
    let m: sghq::Endpoint = decode_nested(concat!("0268", "8001", "00"), 0);
    assert_eq!(m.port, 32769);
    assert_encodes(&m, 0, concat!("0268", "8001", "00"));
}

/// uint32: four bytes big-endian, read unsigned. No spec in schemas/ has a uint32 field, so only
/// the runtime reader is checked.
#[test]
fn uint32_is_four_bytes_read_unsigned() {
    assert_eq!(Reader::new(b("ffffffff")).u32().unwrap(), 4_294_967_295);
    assert_eq!(Reader::new(b("80000001")).u32().unwrap(), 2_147_483_649);
    assert_eq!(Reader::new(b("01020304")).u32().unwrap(), 0x0102_0304);
}

/// float64: IEEE-754 bits, big-endian, raw bits kept (NaN payload included). No spec in schemas/
/// has a float64 field, so only the runtime reader is checked.
#[test]
fn float64_is_ieee754_big_endian_with_nan_payload_kept() {
    assert_eq!(Reader::new(b("3ff0000000000000")).f64().unwrap(), 1.0); // sign 0, exp 0x3ff
    assert_eq!(Reader::new(b("c000000000000000")).f64().unwrap(), -2.0); // sign 1, exp 0x400
    let z = Reader::new(b("8000000000000000")).f64().unwrap(); // -0.0: sign bit only
    assert_eq!(z.to_bits(), 0x8000_0000_0000_0000);
    // Signalling NaN with payload 1, and a quiet NaN with payload 0xabc and the sign bit.
    for bits in [0x7ff0_0000_0000_0001u64, 0xfff8_0000_0000_0abc] {
        let v = Reader::new(Bytes::copy_from_slice(&bits.to_be_bytes()))
            .f64()
            .unwrap();
        assert!(v.is_nan());
        assert_eq!(v.to_bits(), bits);
        assert_eq!(v.to_be_bytes(), bits.to_be_bytes()); // what a generated encoder writes
    }
}

/// uuid: 16 bytes, most-significant 64 bits first, then least-significant 64 bits.
#[test]
fn uuid_is_msb_64_then_lsb_64() {
    let m = cghs::TopicPartitions {
        topic_id: Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff),
        partitions: vec![1].into(),
        ..Default::default()
    };
    let h = concat!(
        "0011223344556677", // most-significant 64 bits
        "8899aabbccddeeff", // least-significant 64 bits
        "02",               // Partitions: compact count+1 = 2
        "00000001",         //   1
        "00",               // tagged fields: 0
    );
    assert_encodes(&m, 0, h);
    assert_eq!(decode_nested::<cghs::TopicPartitions>(h, 0), m);
}

// ================================================================================================
// 4.2 Variable-length types
// ================================================================================================

/// Non-flexible string: int16 length N, then N bytes of UTF-8.
#[test]
fn string_non_compact_has_int16_length() {
    let m = FindCoordinatorRequest {
        key: s("abc"),
        ..Default::default()
    };
    assert_vector(&m, 0, concat!("0003", /* N = 3 */ "616263" /* "abc" */));
    let m = FindCoordinatorRequest {
        key: s(""),
        ..Default::default()
    };
    assert_vector(&m, 0, "0000"); // empty string: length 0, no bytes
                                  // A negative length other than -1 is invalid.
    let e = decode_err::<FindCoordinatorRequest>("fffe", 0);
    assert_eq!(e.kind(), &DecodeErrorKind::InvalidLength(-2));
}

/// Flexible string: uvarint N+1, then N bytes; N counts UTF-8 bytes, not characters.
#[test]
fn string_compact_has_uvarint_length_plus_one() {
    // FindCoordinatorRequest v3: Key (0-3), KeyType int8 (1+), tagged section.
    let m = FindCoordinatorRequest {
        key: s("abc"),
        ..Default::default()
    };
    assert_vector(
        &m,
        3,
        concat!(
            "04", /* N+1 = 4 */ "616263", "00", /* KeyType */
            "00"  /* tags */
        ),
    );
    let m = FindCoordinatorRequest {
        key: s(""),
        ..Default::default()
    };
    assert_vector(
        &m,
        3,
        concat!("01", /* N+1 = 1: empty, not null */ "00", "00"),
    );
    let m = FindCoordinatorRequest {
        key: s("é"),
        ..Default::default()
    };
    assert_vector(
        &m,
        3,
        concat!("03", /* 2 bytes + 1 */ "c3a9", /* U+00E9 in UTF-8 */ "00", "00"),
    );
}

/// Null string: int16 -1 when not flexible, uvarint 0 when flexible.
#[test]
fn string_null_is_int16_minus_one_or_compact_zero() {
    let m = FindCoordinatorResponse {
        error_message: None,
        node_id: 1,
        host: s("h"),
        port: 9092,
        ..Default::default()
    };
    assert_vector(
        &m,
        1,
        concat!(
            "00000000", // ThrottleTimeMs (1+)
            "0000",     // ErrorCode
            "ffff",     // ErrorMessage null: int16 -1
            "00000001", // NodeId 1
            "000168",   // Host "h": int16 length 1
            "00002384", // Port 9092
        ),
    );
    assert_vector(
        &m,
        3,
        concat!(
            "00000000", // ThrottleTimeMs
            "0000",     // ErrorCode
            "00",       // ErrorMessage null: uvarint 0
            "00000001", // NodeId
            "0268",     // Host "h": uvarint length+1 = 2
            "00002384", // Port 9092
            "00",       // tagged fields: 0
        ),
    );
}

/// Nullable bytes: int32 N / uvarint N+1, null = int32 -1 / uvarint 0. No spec in schemas/ has a
/// bytes (or records) field, so the runtime helpers the generator emits calls to are checked.
#[test]
fn bytes_nullable_is_int32_minus_one_or_compact_zero() {
    let two = b("0102");
    let cases: [(Option<&Bytes>, wire::Encoding, &str); 6] = [
        (None, wire::Encoding::Classic, "ffffffff"), // null, int32 -1
        (None, wire::Encoding::Compact, "00"),       // null, uvarint 0
        (Some(&two), wire::Encoding::Classic, "000000020102"), // int32 length 2, then the bytes
        (Some(&two), wire::Encoding::Compact, "030102"), // uvarint 2+1, then the bytes
        (Some(&Bytes::new()), wire::Encoding::Classic, "00000000"), // empty, not null
        (Some(&Bytes::new()), wire::Encoding::Compact, "01"),
    ];
    for (v, compact, want) in cases {
        let mut out: Vec<u8> = Vec::new();
        wire::write_nullable_bytes(&mut out, v, compact, wire::Nullable::Yes, 0).unwrap();
        assert_eq!(hex(&out), want);
        let mut r = Reader::new(b(want));
        assert_eq!(r.nullable_bytes(compact).unwrap().as_ref(), v, "{want}");
        r.finish().unwrap();
    }
    let mut out: Vec<u8> = Vec::new();
    let e = wire::write_nullable_bytes(
        &mut out,
        None,
        wire::Encoding::Classic,
        wire::Nullable::No,
        2,
    )
    .unwrap_err();
    assert_eq!(e.kind(), &EncodeErrorKind::NullNotAllowed { version: 2 });
    let e = Reader::new(b("ffffffff"))
        .bytes(wire::Encoding::Classic)
        .unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::NullNotAllowed);
}

/// Non-flexible array: int32 count then the elements; null = int32 -1.
#[test]
fn array_non_compact_has_int32_count_and_null_minus_one() {
    let m = MetadataRequest {
        topics: Some(vec![MetadataRequestTopic {
            name: Some(s("a")),
            ..Default::default()
        }]),
        ..Default::default()
    };
    assert_vector(
        &m,
        1,
        concat!("00000001", /* count 1 */ "0001", "61" /* Name "a" */),
    );
    let m = MetadataRequest {
        topics: Some(vec![]),
        ..Default::default()
    };
    assert_vector(&m, 1, "00000000"); // empty: count 0
    let m = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    assert_vector(&m, 1, "ffffffff"); // null (nullable 1+): int32 -1
}

/// Flexible array: uvarint count+1 then the elements; null = uvarint 0. Element structs carry
/// their own tagged section.
#[test]
fn array_compact_has_uvarint_count_plus_one_and_null_zero() {
    let tail = concat!(
        "01", // AllowAutoTopicCreation true (4+)
        "00", // IncludeClusterAuthorizedOperations false (8-10)
        "00", // IncludeTopicAuthorizedOperations false (8+)
        "00", // tagged fields: 0
    );
    let m = MetadataRequest {
        topics: Some(vec![MetadataRequestTopic {
            name: Some(s("a")),
            ..Default::default()
        }]),
        ..Default::default()
    };
    // v9: TopicId is 10+, so the element is just Name + its tagged section.
    assert_vector(&m, 9, &format!("{}{}", concat!("02", "0261", "00"), tail));
    let m = MetadataRequest {
        topics: Some(vec![]),
        ..Default::default()
    };
    assert_vector(&m, 9, &format!("01{tail}")); // empty: count+1 = 1
    let m = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    assert_vector(&m, 9, &format!("00{tail}")); // null: 0
}

/// Strings are capped at 32767 UTF-8 bytes in both encodings, on write and on read.
#[test]
fn string_longer_than_32767_bytes_is_rejected_on_encode_and_decode() {
    let ok = FindCoordinatorRequest {
        key: KStr::from("a".repeat(32767)),
        ..Default::default()
    };
    assert_eq!(hex(&ok.to_bytes(0).unwrap()[..2]), "7fff"); // int16 32767
    assert_eq!(hex(&ok.to_bytes(3).unwrap()[..3]), "808002"); // uvarint 32768 = 0x8000
    let long = FindCoordinatorRequest {
        key: KStr::from("a".repeat(32768)),
        ..Default::default()
    };
    for v in [0, 3] {
        let e = encode_err(&long, v);
        assert_eq!(e.kind(), &EncodeErrorKind::StringTooLong(32768), "v{v}");
        assert_eq!(e.path_string(), "FindCoordinatorRequest.key");
        assert_eq!(
            e.to_string(),
            "FindCoordinatorRequest.key: string of 32768 bytes is longer than 32767"
        );
    }
    // Compact length+1 = 32769 = 0x8001 -> uvarint 81 80 02: rejected before reading the bytes.
    let e = decode_err::<FindCoordinatorRequest>("818002", 3);
    assert_eq!(e.kind(), &DecodeErrorKind::StringTooLong(32768));
    assert_eq!(e.offset(), 0);
    // An int16 length cannot say 32768: 0x8000 is -32768, an invalid length.
    let e = decode_err::<FindCoordinatorRequest>("8000", 0);
    assert_eq!(e.kind(), &DecodeErrorKind::InvalidLength(-32768));
}

/// Invalid UTF-8: Java substitutes U+FFFD; kwire deliberately refuses (documented in wire/mod.rs).
#[test]
fn string_invalid_utf8_is_rejected_deliberately() {
    let e = decode_err::<FindCoordinatorRequest>(concat!("0002", "c328" /* bad 2nd byte */), 0);
    assert_eq!(e.kind(), &DecodeErrorKind::InvalidUtf8);
    assert_eq!(e.offset(), 0);
}

// ================================================================================================
// 4.3 Structs
// ================================================================================================

/// A non-tagged nullable struct has a 1-byte int8 marker (0xFF null, 0x01 present) in every
/// version, flexible ones included: ConsumerGroupHeartbeatResponse.Assignment, v0 and v1.
#[test]
fn nullable_struct_uses_int8_marker_even_in_flexible_versions() {
    let head = concat!(
        "00000000", // ThrottleTimeMs
        "0000",     // ErrorCode
        "00",       // ErrorMessage null (compact)
        "026d",     // MemberId "m"
        "00000001", // MemberEpoch 1
        "00001388", // HeartbeatIntervalMs 5000
    );
    let null = cghs::ConsumerGroupHeartbeatResponse {
        member_id: Some(s("m")),
        member_epoch: 1,
        heartbeat_interval_ms: 5000,
        assignment: None,
        ..Default::default()
    };
    let present = cghs::ConsumerGroupHeartbeatResponse {
        assignment: Some(cghs::Assignment {
            topic_partitions: vec![cghs::TopicPartitions {
                topic_id: Uuid::from_u128(1),
                partitions: vec![0].into(),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..null.clone()
    };
    for v in [0, 1] {
        assert_vector(
            &null,
            v,
            &format!(
                "{head}{}",
                concat!("ff", /* marker: null */ "00" /* tags */)
            ),
        );
        assert_vector(
            &present,
            v,
            &format!(
                "{head}{}",
                concat!(
                    "01",                               // marker: present (int8 1, not uvarint)
                    "02",                               // Assignment.TopicPartitions: 1 element
                    "00000000000000000000000000000001", //   TopicId
                    "0200000000",                       //   Partitions [0]
                    "00",                               //   element tagged fields
                    "00",                               // Assignment tagged fields
                    "00",                               // message tagged fields
                )
            ),
        );
        // Any negative marker is null; 0 and positive markers mean present.
        let m: cghs::ConsumerGroupHeartbeatResponse = decode(&format!("{head}{}", "8000"), v);
        assert_eq!(m.assignment, None);
        for marker in ["00", "05"] {
            // present, then an empty Assignment (01 = no topics, 00 = its tags), then message tags
            let m: cghs::ConsumerGroupHeartbeatResponse =
                decode(&format!("{head}{marker}010000"), v);
            assert_eq!(
                m.assignment,
                Some(cghs::Assignment::default()),
                "marker {marker}"
            );
        }
    }
}

/// In flexible versions every struct (top level, nested, array element) ends with its own tagged
/// section, and unknown tags inside a nested struct are kept there.
#[test]
fn every_struct_ends_with_its_own_tagged_section() {
    let h = concat!(
        "0000",     // ErrorCode
        "02",       // ApiKeys: 1 element
        "0012",     //   ApiKey 18
        "0000",     //   MinVersion 0
        "0004",     //   MaxVersion 4
        "01",       //   element tagged section: 1 field
        "07",       //     tag 7 (unknown)
        "01",       //     size 1
        "ff",       //     payload
        "00000000", // ThrottleTimeMs
        "00",       // message tagged section: 0 fields
    );
    let m: ApiVersionsResponse = decode(h, 3);
    assert_eq!(m.api_keys[0].unknown_tagged_fields, vec![raw(7, "ff")]);
    assert!(m.unknown_tagged_fields.is_empty());
    assert_vector(&m, 3, h);
}

// ================================================================================================
// 4.4 Tagged-fields section
// ================================================================================================

/// Layout: uvarint count, then per field uvarint tag, uvarint size, payload.
#[test]
fn tagged_section_layout_is_count_tag_size_payload() {
    let m = ApiVersionsResponse {
        zk_migration_ready: true,
        ..Default::default()
    };
    assert_vector(
        &m,
        3,
        &format!(
            "{AVR3_EMPTY_PREFIX}{}",
            concat!(
                "01", // count: 1 field
                "03", // tag 3 (ZkMigrationReady)
                "01", // size: 1 byte
                "01", // payload: true
            )
        ),
    );
}

/// Known tagged fields are written only when they differ from their default.
#[test]
fn tagged_known_fields_written_only_when_non_default() {
    // All defaults (FinalizedFeaturesEpoch's default is -1, not 0): empty section.
    let m = ApiVersionsResponse {
        finalized_features_epoch: -1,
        zk_migration_ready: false,
        ..Default::default()
    };
    assert_vector(&m, 3, &format!("{AVR3_EMPTY_PREFIX}00"));
    // 0 differs from the default -1, so it is written.
    let m = ApiVersionsResponse {
        finalized_features_epoch: 0,
        ..Default::default()
    };
    assert_vector(
        &m,
        3,
        &format!(
            "{AVR3_EMPTY_PREFIX}{}",
            concat!(
                "01",
                "01",
                /* tag 1 */ "08",
                /* size */ "0000000000000000"
            )
        ),
    );
    // Reading an empty section resets every tagged field to its default.
    let m: ApiVersionsResponse = decode(&format!("{AVR3_EMPTY_PREFIX}00"), 3);
    assert_eq!(m.finalized_features_epoch, -1);
}

/// Emission order is ascending tag, known and unknown tags merged.
#[test]
fn tagged_fields_written_in_ascending_order_with_unknown_merged() {
    let m = ApiVersionsResponse {
        finalized_features_epoch: 5,
        zk_migration_ready: true,
        supported_features: vec![SupportedFeatureKey {
            name: s("f"),
            min_version: 1,
            max_version: 2,
            ..Default::default()
        }],
        unknown_tagged_fields: vec![raw(4, "aa"), raw(6, "bbcc")].into(),
        ..Default::default()
    };
    assert_vector(
        &m,
        3,
        &format!(
            "{AVR3_EMPTY_PREFIX}{}",
            concat!(
                "05", // count: 3 known + 2 unknown
                "00",
                "08", // tag 0 SupportedFeatures, size 8:
                "02",
                "0266",
                "0001",
                "0002",
                "00", //   1 element: Name "f", Min 1, Max 2, tags
                "01",
                "08",
                "0000000000000005", // tag 1 FinalizedFeaturesEpoch = 5
                "03",
                "01",
                "01", // tag 3 ZkMigrationReady = true
                "04",
                "01",
                "aa", // unknown tag 4
                "06",
                "02",
                "bbcc", // unknown tag 6
            )
        ),
    );
    // Known tags are contiguous from 0 and an unknown tag may not reuse one, so unknown tags always
    // sort after the known ones. The probe (known tags 0-4) shows the merge with gaps: known 2 and
    // 4 emitted (0, 1, 3 at their defaults), then unknown 5 and 7.
    let p = probe::TagProbe {
        head: 1,
        late: s("z"),
        whole: probe::tag_probe::Inner {
            c: 1,
            ..Default::default()
        },
        unknown_tagged_fields: vec![raw(5, "aa"), raw(7, "bb")].into(),
        ..Default::default()
    };
    assert_vector(
        &p,
        2,
        concat!(
            "00000001", // Head
            "04",       // count: 2 known + 2 unknown
            "02", "02", "027a", // tag 2 Late "z"
            "04", "06", "00000001", "01", "00", // tag 4 Whole {C 1, Note "", tags}
            "05", "01", "aa", // unknown tag 5
            "07", "01", "bb", // unknown tag 7
        ),
    );
}

/// Unknown tagged fields must be sorted, must not reuse a known tag, and cannot be written in a
/// version that is not flexible.
#[test]
fn tagged_unknown_list_is_validated_on_encode() {
    let m = ApiVersionsResponse {
        unknown_tagged_fields: vec![raw(6, ""), raw(4, "")].into(),
        ..Default::default()
    };
    assert_eq!(
        encode_err(&m, 3).kind(),
        &EncodeErrorKind::InvalidUnknownTag { tag: 4 }
    );
    let m = ApiVersionsResponse {
        unknown_tagged_fields: vec![raw(3, "01")].into(),
        ..Default::default()
    };
    assert_eq!(
        encode_err(&m, 3).kind(),
        &EncodeErrorKind::InvalidUnknownTag { tag: 3 }
    );
    let m = ApiVersionsResponse {
        unknown_tagged_fields: vec![raw(9, "")].into(),
        ..Default::default()
    };
    assert_eq!(
        encode_err(&m, 2).kind(),
        &EncodeErrorKind::TaggedFieldsNotFlexible { version: 2 }
    );
    assert_eq!(
        encode_err(
            &RequestHeader {
                unknown_tagged_fields: vec![raw(0, "")].into(),
                ..Default::default()
            },
            1
        )
        .kind(),
        &EncodeErrorKind::TaggedFieldsNotFlexible { version: 1 }
    );
}

/// Unknown tags are kept raw through decode and written back unchanged.
#[test]
fn tagged_unknown_fields_are_preserved_through_decode_and_encode() {
    let h = format!(
        "{AVR3_EMPTY_PREFIX}{}",
        concat!(
            "02", // count 2
            "05", "02", "cafe", // unknown tag 5, 2 bytes
            "09", "00", // unknown tag 9, empty payload
        )
    );
    let m: ApiVersionsResponse = decode(&h, 3);
    assert_eq!(m.unknown_tagged_fields, vec![raw(5, "cafe"), raw(9, "")]);
    assert_encodes(&m, 3, &h);
    // Tags beyond one byte: tag 300 = uvarint ac 02.
    let h = format!("{AVR3_EMPTY_PREFIX}{}", concat!("01", "ac02", "01", "77"));
    let m: ApiVersionsResponse = decode(&h, 3);
    assert_eq!(m.unknown_tagged_fields, vec![raw(300, "77")]);
    assert_encodes(&m, 3, &h);
}

/// Tags are read in any order; re-encoding sorts them.
#[test]
fn tagged_fields_are_read_in_any_order() {
    let shuffled = format!(
        "{AVR3_EMPTY_PREFIX}{}",
        concat!(
            "04", // count 4
            "06",
            "01",
            "ee", // unknown 6
            "03",
            "01",
            "01", // ZkMigrationReady true
            "01",
            "08",
            "0000000000000007", // FinalizedFeaturesEpoch 7
            "04",
            "01",
            "dd", // unknown 4
        )
    );
    let m: ApiVersionsResponse = decode(&shuffled, 3);
    assert_eq!(m.finalized_features_epoch, 7);
    assert!(m.zk_migration_ready);
    assert_eq!(m.unknown_tagged_fields, vec![raw(4, "dd"), raw(6, "ee")]);
    assert_encodes(
        &m,
        3,
        &format!(
            "{AVR3_EMPTY_PREFIX}{}",
            concat!(
                "04",
                "01",
                "08",
                "0000000000000007",
                "03",
                "01",
                "01",
                "04",
                "01",
                "dd",
                "06",
                "01",
                "ee"
            )
        ),
    );
}

/// A repeated known tag: the last value wins. Repeated unknown tags are all kept.
#[test]
fn tagged_duplicate_known_tag_last_wins() {
    let h = format!(
        "{AVR3_EMPTY_PREFIX}{}",
        concat!(
            "02", // count 2
            "01",
            "08",
            "0000000000000005", // FinalizedFeaturesEpoch 5
            "01",
            "08",
            "0000000000000009", // FinalizedFeaturesEpoch 9 (wins)
        )
    );
    let m: ApiVersionsResponse = decode(&h, 3);
    assert_eq!(m.finalized_features_epoch, 9);
    assert_encodes(
        &m,
        3,
        &format!(
            "{AVR3_EMPTY_PREFIX}{}",
            concat!("01", "01", "08", "0000000000000009")
        ),
    );

    let h = format!(
        "{AVR3_EMPTY_PREFIX}{}",
        concat!("02", "05", "01", "aa", "05", "01", "bb")
    );
    let m: ApiVersionsResponse = decode(&h, 3);
    assert_eq!(m.unknown_tagged_fields, vec![raw(5, "aa"), raw(5, "bb")]);
    assert_encodes(&m, 3, &h);
}

/// A known tag's payload is read with the type's reader without checking it used exactly `size`
/// bytes; the whole payload is skipped.
#[test]
fn tagged_known_payload_size_is_not_checked() {
    let h = format!(
        "{AVR3_EMPTY_PREFIX}{}",
        concat!("01", "03", "02", /* size 2 */ "01ff")
    );
    let m: ApiVersionsResponse = decode(&h, 3);
    assert!(m.zk_migration_ready);
    assert_encodes(
        &m,
        3,
        &format!("{AVR3_EMPTY_PREFIX}{}", concat!("01", "03", "01", "01")),
    );
}

/// A known tag read in a version where its field is not tagged is an error, not an unknown tag.
/// In schemas/ every tagged field (ApiVersionsResponse tags 0-3) is tagged in all of its message's
/// flexible versions, so no real message can express this; the probe's Late (tag 2,
/// taggedVersions 2+) read at v1 does.
#[test]
fn tagged_known_tag_outside_its_tagged_versions_is_an_error() {
    let h = concat!(
        "00000001", // Head
        "01",       // count 1
        "02",       // tag 2 (Late, tagged only from v2)
        "02",       // size 2
        "027a",     // "z"
    );
    let e = decode_err::<probe::TagProbe>(h, 1);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::TagNotValidForVersion { tag: 2, version: 1 }
    );
    assert_eq!(
        e.to_string(),
        "TagProbe.late at byte 7: tag 2 is not valid for version 1"
    );
    let m: probe::TagProbe = decode(h, 2);
    assert_eq!(m.late, "z");
}

// ================================================================================================
// 4.5 Payload of a tagged field
// ================================================================================================

/// Fixed-size tagged payloads: size = the type's width, payload = the raw value.
#[test]
fn tagged_payload_of_fixed_types_is_the_raw_value() {
    let m = ApiVersionsResponse {
        finalized_features_epoch: 0x0102_0304_0506_0708,
        zk_migration_ready: true,
        ..Default::default()
    };
    assert_vector(
        &m,
        3,
        &format!(
            "{AVR3_EMPTY_PREFIX}{}",
            concat!(
                "02", // count 2
                "01",
                "08",
                "0102030405060708", // int64: size 8, big-endian value
                "03",
                "01",
                "01", // bool: size 1
            )
        ),
    );
}

/// Tagged array payload: the compact array (count+1, elements each with their tagged section);
/// size = its byte length.
#[test]
fn tagged_payload_of_array_is_the_compact_array() {
    let m = ApiVersionsResponse {
        supported_features: vec![SupportedFeatureKey {
            name: s("f"),
            min_version: 1,
            max_version: 2,
            ..Default::default()
        }],
        finalized_features: vec![FinalizedFeatureKey {
            name: s("g"),
            max_version_level: 3,
            min_version_level: 1,
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_vector(
        &m,
        3,
        &format!(
            "{AVR3_EMPTY_PREFIX}{}",
            concat!(
                "02", // count 2
                "00", // tag 0 SupportedFeatures
                "08", // size: 1 (count) + 2 (name) + 2 + 2 + 1 (tags) = 8
                "02", //   count+1 = 2
                "0266", "0001", "0002", "00", // Name "f", MinVersion 1, MaxVersion 2, tags
                "02", // tag 2 FinalizedFeatures
                "08", // size 8
                "02", "0267", "0003", "0001",
                "00", // Name "g", MaxVersionLevel 3, MinVersionLevel 1, tags
            )
        ),
    );
}

/// Tagged string payload: uvarint N+1 then the bytes; size = N + len(uvarint(N+1)). (Probe.)
#[test]
fn tagged_payload_of_string_is_the_compact_string() {
    let m = probe::TagProbe {
        head: 1,
        label: Some(s("ab")),
        ..Default::default()
    };
    assert_vector(
        &m,
        1,
        concat!("00000001", "01", "00", /* tag 0 */ "03", /* 2 + 1 */ "036162"),
    );
    // The default "x" is not written.
    let m = probe::TagProbe {
        head: 1,
        label: Some(s("x")),
        ..Default::default()
    };
    assert_vector(&m, 1, concat!("00000001", "00"));
}

/// Tagged struct payload: the struct body (with its own tagged section) for a non-nullable struct;
/// uvarint 1 then the body (size = body + 1) for a nullable one that is present. (Probe.)
#[test]
fn tagged_payload_of_struct_is_the_body_with_nullable_prefix_1() {
    let m = probe::TagProbe {
        head: 1,
        sub: Some(probe::tag_probe::Inner {
            c: 7,
            note: s("n"),
            ..Default::default()
        }),
        whole: probe::tag_probe::Inner {
            c: 1,
            ..Default::default()
        },
        ..Default::default()
    };
    assert_vector(
        &m,
        1,
        concat!(
            "00000001", // Head
            "02",       // count 2
            "01",       // tag 1 Sub (nullable, default null)
            "08",       //   size: body 7 + 1
            "01",       //   uvarint 1: present
            "00000007", //   C 7
            "026e",     //   Note "n"
            "00",       //   Inner tagged fields
            "04",       // tag 4 Whole (not nullable)
            "06",       //   size: body 6
            "00000001", //   C 1
            "01",       //   Note ""
            "00",       //   Inner tagged fields
        ),
    );
    // Reading a nullable tagged struct: a leading uvarint 0 means null.
    let m: probe::TagProbe = decode(concat!("00000001", "01", "01", "01", "00"), 1);
    assert_eq!(m.sub, None);
}

/// A nullable tagged field that is null while its default is not null is written explicitly:
/// tag, size 1, 0x00. No field in schemas/ has that shape (the only tagged fields,
/// ApiVersionsResponse tags 0-3, are not nullable), so the probe's Label (string, default "x") and
/// Ids (array, default empty) show it.
#[test]
fn tagged_null_with_non_null_default_is_written_explicitly() {
    let m = probe::TagProbe {
        head: 1,
        label: None,
        ids: None,
        ..Default::default()
    };
    assert_vector(
        &m,
        1,
        concat!(
            "00000001", // Head
            "02",       // count 2
            "00", "01", "00", // tag 0 Label: size 1, uvarint 0 = null
            "03", "01", "00", // tag 3 Ids: size 1, uvarint 0 = null
        ),
    );
    // Sub's default is null, so a null Sub is not written at all.
    let m = probe::TagProbe {
        head: 1,
        sub: None,
        ..Default::default()
    };
    assert_vector(&m, 1, concat!("00000001", "00"));
    // Closest real-schema case: ApiVersionsResponse.FinalizedFeaturesEpoch has a non-zero default
    // (-1), so 0 is written explicitly while -1 is not (see tagged_known_fields_written_only_when_non_default).
}

/// The size of a nullable tagged struct follows the writer (body + 1): at body 127 Java's estimate
/// is 1 byte short, but the bytes say 128 = 80 01. (Probe.)
#[test]
fn tagged_nullable_struct_size_prefix_counts_the_marker() {
    let note = "n".repeat(121);
    let m = probe::TagProbe {
        head: 1,
        sub: Some(probe::tag_probe::Inner {
            c: 0,
            note: KStr::from(note.clone()),
            ..Default::default()
        }),
        ..Default::default()
    };
    // body = C (4) + Note (1 + 121) + tags (1) = 127; size = 128.
    let expected = format!(
        "{}{}{}",
        concat!(
            "00000001", "01", "01", "8001", /* size 128 */ "01",
            /* present */ "00000000", "7a" /* 121+1 */
        ),
        hex(note.as_bytes()),
        "00" // Inner tags
    );
    assert_vector(&m, 1, &expected);
}

// ================================================================================================
// 4.6 Writing a field into a version that lacks it; null where not nullable; version range
// ================================================================================================

/// Non-default, non-ignorable value in a version lacking the field: NonDefaultField. Default
/// values (and null where the default is null) are silently not written.
#[test]
fn non_default_non_ignorable_field_in_missing_version_is_an_error() {
    let m = MetadataRequest {
        topics: Some(vec![]),
        allow_auto_topic_creation: false,
        ..Default::default()
    };
    let e = encode_err(&m, 3);
    assert_eq!(e.kind(), &EncodeErrorKind::NonDefaultField { version: 3 });
    assert_eq!(e.to_string(), "MetadataRequest.allow_auto_topic_creation: field is not in version 3 but holds a non-default value");
    // The default (true) is fine: only Topics is written.
    let m = MetadataRequest {
        topics: Some(vec![]),
        allow_auto_topic_creation: true,
        ..Default::default()
    };
    assert_vector(&m, 3, "00000000");
    // Nested: TopicAuthorizedOperations is 8+, default INT32_MIN, not ignorable.
    let m = md::MetadataResponse {
        topics: vec![md::MetadataResponseTopic {
            name: Some(s("t")),
            topic_authorized_operations: 0,
            ..Default::default()
        }],
        ..Default::default()
    };
    let e = encode_err(&m, 7);
    assert_eq!(e.kind(), &EncodeErrorKind::NonDefaultField { version: 7 });
    assert_eq!(
        e.path_string(),
        "MetadataResponse.topics[0].topic_authorized_operations"
    );
    // Null counts as the default when the default is null: ConsumerGroupHeartbeatRequest v0 lacks
    // SubscribedTopicRegex (1+, default null, not ignorable).
    let m = cghq::ConsumerGroupHeartbeatRequest {
        subscribed_topic_regex: Some(s("t.*")),
        ..Default::default()
    };
    assert_eq!(
        encode_err(&m, 0).kind(),
        &EncodeErrorKind::NonDefaultField { version: 0 }
    );
    // A tagged field below its taggedVersions is under the same rule (probe Late, 2+).
    let p = probe::TagProbe {
        late: s("z"),
        ..Default::default()
    };
    let e = encode_err(&p, 1);
    assert_eq!(e.kind(), &EncodeErrorKind::NonDefaultField { version: 1 });
    assert_eq!(e.path_string(), "TagProbe.late");
    // ... and so is a tagged field in a version below its versions (probe Label at v0).
    let p = probe::TagProbe {
        label: None,
        ..Default::default()
    };
    assert_eq!(
        encode_err(&p, 0).kind(),
        &EncodeErrorKind::NonDefaultField { version: 0 }
    );
}

/// Non-default ignorable value in a version lacking the field: silently dropped.
#[test]
fn non_default_ignorable_field_in_missing_version_is_dropped() {
    // ApiVersionsResponse.ThrottleTimeMs is 1+, ignorable.
    let m = ApiVersionsResponse {
        throttle_time_ms: 100,
        ..Default::default()
    };
    assert_encodes(
        &m,
        0,
        concat!("0000", /* ErrorCode */ "00000000" /* ApiKeys: count 0 */),
    );
    // ApiVersionsRequest v0-2 has no fields at all: both ignorable strings vanish.
    let m = ApiVersionsRequest {
        client_software_name: s("kwire"),
        client_software_version: s("0.1"),
        ..Default::default()
    };
    assert_encodes(&m, 2, "");
    // MetadataResponse.ClusterId is 2+ ignorable; ThrottleTimeMs 3+ ignorable; at v1 both drop.
    let m = md::MetadataResponse {
        throttle_time_ms: 7,
        cluster_id: Some(s("c")),
        controller_id: 1,
        ..Default::default()
    };
    assert_encodes(
        &m,
        1,
        concat!(
            "00000000", // Brokers: count 0
            "00000001", // ControllerId 1 (1+)
            "00000000", // Topics: count 0
        ),
    );
    // Reading a version that lacks a field gives the field's default.
    let back: md::MetadataResponse = decode(concat!("00000000", "00000001", "00000000"), 1);
    assert_eq!(
        (back.throttle_time_ms, back.cluster_id, back.error_code),
        (0, None, 0)
    );
    let back: md::MetadataResponse = decode(concat!("00000000", "00000000"), 0);
    assert_eq!(back.controller_id, -1);
}

/// Null in a version where the field is not nullable: NullNotAllowed on encode, and the
/// "serialized as null" error on decode.
#[test]
fn null_in_non_nullable_version_is_an_error() {
    let m = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    let e = encode_err(&m, 0); // Topics nullable only from v1
    assert_eq!(e.kind(), &EncodeErrorKind::NullNotAllowed { version: 0 });
    assert_eq!(e.path_string(), "MetadataRequest.topics");
    let e = decode_err::<MetadataRequest>("ffffffff", 0);
    assert_eq!(e.kind(), &DecodeErrorKind::NullNotAllowed);
    assert_eq!(e.offset(), 0);
    // Nested: MetadataResponseTopic.Name is nullable only from v12.
    let m = md::MetadataResponse {
        topics: vec![md::MetadataResponseTopic {
            name: None,
            ..Default::default()
        }],
        ..Default::default()
    };
    let e = encode_err(&m, 11);
    assert_eq!(e.kind(), &EncodeErrorKind::NullNotAllowed { version: 11 });
    assert_eq!(e.path_string(), "MetadataResponse.topics[0].name");
    // Flexible, non-nullable: compact 0 is null too.
    let e = decode_err::<FindCoordinatorRequest>(concat!("00", "00", "00"), 3);
    assert_eq!(e.kind(), &DecodeErrorKind::NullNotAllowed);
}

/// A version outside validVersions: UnsupportedVersion on encode and on decode.
#[test]
fn version_outside_valid_versions_is_unsupported() {
    let e = encode_err(&MetadataRequest::default(), 14);
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::UnsupportedVersion {
            version: 14,
            lowest: 0,
            highest: 13
        }
    );
    assert_eq!(
        e.to_string(),
        "MetadataRequest: version 14 is outside the valid versions 0-13"
    );
    let e = encode_err(&MetadataRequest::default(), -1);
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::UnsupportedVersion {
            version: -1,
            lowest: 0,
            highest: 13
        }
    );
    let e = decode_err::<MetadataRequest>("00000000", 14);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::UnsupportedVersion {
            version: 14,
            lowest: 0,
            highest: 13
        }
    );
    assert_eq!(e.offset(), 0);
    let e = encode_err(&sghq::StreamsGroupHeartbeatRequest::default(), 2);
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::UnsupportedVersion {
            version: 2,
            lowest: 0,
            highest: 1
        }
    );
    let e = decode_err::<RequestHeader>("00120000000000000000", 3);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::UnsupportedVersion {
            version: 3,
            lowest: 1,
            highest: 2
        }
    );
}

// ================================================================================================
// 4.7 Read-side errors
// ================================================================================================

/// An array count larger than the bytes left is ArrayTooLong, before any element is read.
#[test]
fn array_count_larger_than_remaining_is_array_too_long() {
    let e = decode_err::<ConsumerGroupDescribeRequest>(concat!("05", /* count 4 */ "0000"), 0);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::ArrayTooLong {
            count: 4,
            remaining: 2
        }
    );
    assert_eq!(e.offset(), 0);
    assert_eq!(e.path_string(), "ConsumerGroupDescribeRequest.group_ids");
    // int32 count 0x7fffffff with 1 byte left (ApiVersionsResponse v0: ErrorCode, then ApiKeys).
    let e = decode_err::<ApiVersionsResponse>(concat!("0000", "7fffffff", "00"), 0);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::ArrayTooLong {
            count: 0x7fff_ffff,
            remaining: 1
        }
    );
    assert_eq!(e.offset(), 2);
}

/// Bytes left after a whole message: TrailingBytes { offset, len } (decode_prefix keeps them).
#[test]
fn trailing_bytes_after_a_message_are_reported() {
    let h = concat!("01", "00", "00", /* a complete v0 request */ "aabb" /* 2 extra bytes */);
    let e = decode_err::<ConsumerGroupDescribeRequest>(h, 0);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::TrailingBytes { offset: 3, len: 2 }
    );
    assert_eq!(e.offset(), 3);
    assert_eq!(
        e.to_string(),
        "ConsumerGroupDescribeRequest at byte 3: 2 trailing bytes after a complete message"
    );
    let mut rest = b(h);
    let m = ConsumerGroupDescribeRequest::decode_prefix(&mut rest, 0).unwrap();
    assert_eq!(m, ConsumerGroupDescribeRequest::default());
    assert_eq!(hex(&rest), "aabb");
}

/// A decode error names the field path and the byte offset.
#[test]
fn decode_error_display_has_field_path_and_offset() {
    let h = concat!(
        "00000000", // [0..4)   Brokers: count 0
        "00000001", // [4..8)   Topics: count 1
        "0000",     // [8..10)  topics[0].ErrorCode
        "000174",   // [10..13) topics[0].Name "t"
        "00000001", // [13..17) topics[0].Partitions: count 1
        "0000",     // [17..19) partitions[0].ErrorCode
        "00000000", // [19..23) partitions[0].PartitionIndex
        "0000",     // [23..25) partitions[0].LeaderId: only 2 of its 4 bytes
    );
    let e = decode_err::<md::MetadataResponse>(h, 0);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::UnexpectedEof {
            needed: 4,
            remaining: 2
        }
    );
    assert_eq!(e.offset(), 23);
    assert_eq!(
        e.to_string(),
        "MetadataResponse.topics[0].partitions[0].leader_id at byte 23: needed 4 bytes, 2 left"
    );
}

/// A tagged field whose size runs past the input is an error (path: the tag).
#[test]
fn tagged_size_larger_than_remaining_is_an_error() {
    let h = format!(
        "{AVR3_EMPTY_PREFIX}{}",
        concat!("01", "07", /* tag 7 */ "05", /* size 5 */ "aabb")
    );
    let e = decode_err::<ApiVersionsResponse>(&h, 3);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::UnexpectedEof {
            needed: 5,
            remaining: 2
        }
    );
    assert_eq!(e.offset(), 10); // 2 + 1 + 4 + count + tag + size
    assert_eq!(
        e.to_string(),
        "ApiVersionsResponse<tag 7> at byte 10: needed 5 bytes, 2 left"
    );
}

// ================================================================================================
// 5. Request and response headers
// ================================================================================================

/// Request header v0 (only ControlledShutdown v0 used it) is gone from Kafka 4.4.0: the header's
/// versions are 1-2, and v0 is refused both ways.
#[test]
fn request_header_v0_is_refused() {
    let h = RequestHeader {
        request_api_key: 18,
        request_api_version: 3,
        correlation_id: 42,
        ..Default::default()
    };
    let e = encode_err(&h, 0);
    assert_eq!(
        e.kind(),
        &EncodeErrorKind::UnsupportedVersion {
            version: 0,
            lowest: 1,
            highest: 2
        }
    );
    let e = decode_err::<RequestHeader>(concat!("0012", "0003", "0000002a"), 0);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::UnsupportedVersion {
            version: 0,
            lowest: 1,
            highest: 2
        }
    );
}

/// Request header v1: v0 + client_id as a nullable int16-length string.
#[test]
fn request_header_v1_layout() {
    let h = RequestHeader {
        request_api_key: 18,
        request_api_version: 3,
        correlation_id: 42,
        client_id: Some(s("cli")),
        ..Default::default()
    };
    assert_vector(
        &h,
        1,
        concat!("0012", "0003", "0000002a", "0003", /* int16 length 3 */ "636c69" /* "cli" */),
    );
}

/// Request header v2: v1 + tagged section; client_id stays int16-length (field-level
/// flexibleVersions "none"), though the header itself is flexible.
#[test]
fn request_header_v2_keeps_int16_client_id_and_adds_tagged_section() {
    let h = RequestHeader {
        request_api_key: 18,
        request_api_version: 3,
        correlation_id: 42,
        client_id: Some(s("cli")),
        ..Default::default()
    };
    assert_vector(
        &h,
        2,
        concat!(
            "0012", "0003", "0000002a", "0003", "636c69",
            /* not 04 636c69 */ "00" /* tags */
        ),
    );
    let h = RequestHeader {
        client_id: Some(KStr::new()),
        ..h
    };
    assert_vector(&h, 2, concat!("0012", "0003", "0000002a", "0000", "00"));
    // Unknown header tags are kept.
    let with_tag = concat!("0012", "0003", "0000002a", "0000", "01", "00", "01", "ff");
    let back: RequestHeader = decode(with_tag, 2);
    assert_eq!(back.unknown_tagged_fields, vec![raw(0, "ff")]);
    assert_encodes(&back, 2, with_tag);
}

/// A null client_id is int16 -1 in header v1 and v2.
#[test]
fn request_header_null_client_id_is_int16_minus_one() {
    let h = RequestHeader {
        request_api_key: 3,
        request_api_version: 12,
        correlation_id: 7,
        client_id: None,
        ..Default::default()
    };
    assert_vector(&h, 1, concat!("0003", "000c", "00000007", "ffff"));
    assert_vector(&h, 2, concat!("0003", "000c", "00000007", "ffff", "00"));
}

/// Response header v0 is the correlation id; v1 adds a tagged section.
#[test]
fn response_header_v0_and_v1_layouts() {
    let h = ResponseHeader {
        correlation_id: 42,
        ..Default::default()
    };
    assert_vector(&h, 0, "0000002a");
    assert_vector(&h, 1, concat!("0000002a", "00" /* tags */));
    let h = ResponseHeader {
        unknown_tagged_fields: vec![raw(0, "ff")].into(),
        ..h
    };
    assert_vector(&h, 1, concat!("0000002a", "01", "00", "01", "ff"));
}

/// Request header version: 2 in the request spec's flexible versions, else 1, also outside the
/// valid versions (Kafka's `ApiMessageType.requestHeaderVersion`); none for a removed API.
/// (ControlledShutdown, whose v0 used header 0, is a removed stub in Kafka 4.4; no spec of
/// schemas/ has `headerVersions`.)
#[test]
fn request_header_version_selection() {
    let cases: &[(ApiKey, &[(i16, i16)])] = &[
        (ApiKey::Metadata, &[(0, 1), (8, 1), (9, 2), (13, 2)]),
        (ApiKey::FindCoordinator, &[(0, 1), (2, 1), (3, 2), (6, 2)]),
        (
            ApiKey::ApiVersions,
            &[(0, 1), (2, 1), (3, 2), (4, 2), (5, 2)],
        ),
        (ApiKey::ConsumerGroupHeartbeat, &[(0, 2), (1, 2)]),
        (ApiKey::ConsumerGroupDescribe, &[(0, 2), (1, 2)]),
        (ApiKey::StreamsGroupHeartbeat, &[(0, 2), (1, 2)]),
        (ApiKey::StreamsGroupDescribe, &[(0, 2), (1, 2)]),
    ];
    for (key, versions) in cases {
        for &(v, hv) in *versions {
            assert_eq!(key.request_header_version(v), Some(hv), "{key:?} v{v}");
        }
    }
    // Outside the valid versions: the rule goes on (a too-new ApiVersions request still has
    // a readable v2 header, KIP-511); negative versions are below the flexible ones.
    assert_eq!(ApiKey::ApiVersions.request_header_version(99), Some(2));
    assert_eq!(ApiKey::Metadata.request_header_version(-1), Some(1));
    assert_eq!(ApiKey::Metadata.response_header_version(i16::MIN), Some(0));
    assert_eq!(ApiKey::from_i16(7), Some(ApiKey::ControlledShutdown)); // removed, still listed
    assert_eq!(ApiKey::from_i16(95), None); // Kafka 4.4.0's keys end at 94
    assert_eq!(ApiKey::ControlledShutdown.request_header_version(0), None);
    // An unknown API key in a frame: UnknownApiKey.
    let e = RequestFrame::decode(b(concat!("0400", "0000", "00000001"))).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::UnknownApiKey(0x400));
    // Selection drives the frame: ApiVersions v0 -> header v1 (int16 client id, no tags).
    let f = RequestFrame::new(ApiVersionsRequest::default(), 0, 1, Some("c"));
    let h = concat!("0012", "0000", "00000001", "0001", "63" /* empty v0 body */);
    assert_eq!(hex(&f.to_bytes().unwrap()), h);
    assert_eq!(RequestFrame::decode(b(h)).unwrap(), f);
}

/// Response header version: 1 in the response spec's flexible versions, else 0; ApiVersions
/// always 0 (KIP-511), even at v3+.
#[test]
fn response_header_version_selection_and_api_versions_always_v0() {
    for v in 0..=4 {
        assert_eq!(
            ApiKey::ApiVersions.response_header_version(v),
            Some(0),
            "ApiVersions v{v}"
        );
    }
    for (v, hv) in [(0, 0), (8, 0), (9, 1), (13, 1)] {
        assert_eq!(
            ApiKey::Metadata.response_header_version(v),
            Some(hv),
            "Metadata v{v}"
        );
    }
    for (v, hv) in [(2, 0), (3, 1)] {
        assert_eq!(ApiKey::FindCoordinator.response_header_version(v), Some(hv));
    }
    assert_eq!(
        ApiKey::ConsumerGroupHeartbeat.response_header_version(0),
        Some(1)
    );
    assert_eq!(
        ApiKey::StreamsGroupDescribe.response_header_version(0),
        Some(1)
    );

    // ApiVersions v3 response frame: header v0 (no tagged byte), flexible body.
    let f = ResponseFrame::new(
        ApiVersionsResponse {
            api_keys: vec![ApiVersion {
                api_key: 18,
                min_version: 0,
                max_version: 4,
                ..Default::default()
            }],
            ..Default::default()
        },
        42,
    );
    let h = concat!(
        "0000002a", // ResponseHeader v0: correlation id 42, no tagged section
        "0000",     // ErrorCode
        "02",       // ApiKeys: 1 element (compact)
        "0012", "0000", "0004", "00",       // ApiKey 18, Min 0, Max 4, tags
        "00000000", // ThrottleTimeMs
        "00",       // body tagged section
    );
    assert_eq!(hex(&f.to_bytes(3).unwrap()), h);
    assert_eq!(f.encoded_len(3).unwrap(), h.len() / 2);
    assert_eq!(
        ResponseFrame::decode(b(h), ApiKey::ApiVersions, 3).unwrap(),
        f
    );

    // Metadata v9 response frame: header v1 (tagged section after the correlation id).
    let f = ResponseFrame::new(md::MetadataResponse::default(), 42);
    let h = concat!(
        "0000002a", "00",       // ResponseHeader v1: correlation id, 0 tags
        "00000000", // ThrottleTimeMs
        "01",       // Brokers: empty
        "00",       // ClusterId null (default null)
        "ffffffff", // ControllerId -1 (default)
        "01",       // Topics: empty
        "80000000", // ClusterAuthorizedOperations INT32_MIN (8-10)
        "00",       // tags
    );
    assert_eq!(hex(&f.to_bytes(9).unwrap()), h);
    assert_eq!(ResponseFrame::decode(b(h), ApiKey::Metadata, 9).unwrap(), f);
}

/// A whole ApiVersions v3 request frame: header v2 + flexible body, and the int32 size prefix.
#[test]
fn request_frame_api_versions_v3_exact_bytes() {
    let f = RequestFrame::new(
        ApiVersionsRequest {
            client_software_name: s("kwire"),
            client_software_version: s("0.1"),
            ..Default::default()
        },
        3,
        42,
        Some("cli"),
    );
    let h = concat!(
        // RequestHeader v2
        "0012",     // RequestApiKey 18
        "0003",     // RequestApiVersion 3
        "0000002a", // CorrelationId 42
        "0003",
        "636c69", // ClientId "cli": int16 length (never compact)
        "00",     // header tagged fields
        // ApiVersionsRequest v3
        "06",
        "6b77697265", // ClientSoftwareName "kwire": compact length 5+1
        "04",
        "302e31", // ClientSoftwareVersion "0.1": compact length 3+1
        "00",     // body tagged fields
    );
    assert_eq!(hex(&f.to_bytes().unwrap()), h);
    assert_eq!(f.encoded_len().unwrap(), 25);
    assert_eq!(f.header_version(), Ok(2));
    let back = RequestFrame::decode(b(h)).unwrap();
    assert_eq!(back, f);
    assert!(matches!(back.body, Request::ApiVersions(_)));
    let mut framed: Vec<u8> = Vec::new();
    write_frame(&mut framed, &f.to_bytes().unwrap()).unwrap();
    assert_eq!(
        hex(&framed),
        format!("{}{h}", "00000019" /* int32 size 25 */)
    );
    // A header/body API mismatch is refused.
    let mut bad = f.clone();
    bad.header.request_api_key = 3;
    assert_eq!(
        bad.to_bytes().unwrap_err().kind(),
        &EncodeErrorKind::ApiKeyMismatch {
            body: 18,
            header: 3
        }
    );
}

// ================================================================================================
// Versions newer than Kafka 3.9.0: one full message each, worked field by field
// ================================================================================================

/// MetadataResponse v13: v12 layout plus the top-level ErrorCode (int16) as the last field.
#[test]
fn metadata_response_v13_full_message() {
    let m = md::MetadataResponse {
        throttle_time_ms: 0,
        brokers: vec![md::MetadataResponseBroker {
            node_id: 1,
            host: s("b1"),
            port: 9092,
            rack: None,
            ..Default::default()
        }],
        cluster_id: Some(s("c")),
        controller_id: 1,
        topics: vec![md::MetadataResponseTopic {
            error_code: 0,
            name: Some(s("t")),
            topic_id: Uuid::from_u128(0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f),
            is_internal: false,
            partitions: vec![md::MetadataResponsePartition {
                error_code: 0,
                partition_index: 0,
                leader_id: 1,
                leader_epoch: 5,
                replica_nodes: vec![1].into(),
                isr_nodes: vec![1].into(),
                offline_replicas: vec![].into(),
                ..Default::default()
            }],
            topic_authorized_operations: i32::MIN,
            ..Default::default()
        }],
        error_code: 129,
        ..Default::default()
    };
    let pre = concat!(
        "00000000", // ThrottleTimeMs 0
        "02",       // Brokers: 1 element
        "00000001", //   NodeId 1
        "03",
        "6231",     // Host "b1"
        "00002384", //   Port 9092
        "00",       //   Rack null
        "00",       //   broker tags
        "02",
        "63",       // ClusterId "c"
        "00000001", // ControllerId 1
        "02",       // Topics: 1 element
        "0000",     //   ErrorCode 0
        "02",
        "74",                               //   Name "t"
        "000102030405060708090a0b0c0d0e0f", // TopicId
        "00",                               //   IsInternal false
        "02",                               //   Partitions: 1 element
        "0000",                             //     ErrorCode
        "00000000",                         //     PartitionIndex 0
        "00000001",                         //     LeaderId 1
        "00000005",                         //     LeaderEpoch 5
        "02",
        "00000001", // ReplicaNodes [1]
        "02",
        "00000001", // IsrNodes [1]
        "01",       //     OfflineReplicas []
        "00",       //     partition tags
        "80000000", //   TopicAuthorizedOperations INT32_MIN
        "00",       //   topic tags
                    // ClusterAuthorizedOperations is 8-10: absent at v13
    );
    let error_code = "0081"; // ErrorCode 129 (v13+), the last field
    let tags = "00"; // message tags
    assert_vector(&m, 13, &format!("{pre}{error_code}{tags}"));
    // At v12 the ErrorCode (ignorable) is dropped.
    assert_encodes(&m, 12, &format!("{pre}{tags}"));
}

/// ConsumerGroupHeartbeatRequest v1: SubscribedTopicRegex (compact nullable string) sits between
/// SubscribedTopicNames and ServerAssignor.
#[test]
fn consumer_group_heartbeat_request_v1_full_message() {
    let m = cghq::ConsumerGroupHeartbeatRequest {
        group_id: s("g"),
        member_id: s("m1"),
        member_epoch: 0,
        instance_id: None,
        rack_id: Some(s("r")),
        rebalance_timeout_ms: 300_000,
        subscribed_topic_names: Some(vec![s("a")]),
        subscribed_topic_regex: Some(s("t.*")),
        server_assignor: Some(s("uniform")),
        topic_partitions: Some(vec![]),
        ..Default::default()
    };
    let pre = concat!(
        "02", "67", // GroupId "g"
        "03", "6d31",     // MemberId "m1"
        "00000000", // MemberEpoch 0
        "00",       // InstanceId null
        "02", "72",       // RackId "r"
        "000493e0", // RebalanceTimeoutMs 300000
        "02", "02", "61", // SubscribedTopicNames ["a"]
    );
    let regex = concat!("04", "742e2a"); // SubscribedTopicRegex "t.*" (v1+)
    let post = concat!(
        "08",
        "756e69666f726d", // ServerAssignor "uniform"
        "01",             // TopicPartitions: empty, not null
        "00",             // tags
    );
    assert_vector(&m, 1, &format!("{pre}{regex}{post}"));
    // v0 has no SubscribedTopicRegex: with it null, nothing is written there; at v1 null is 00.
    let m0 = cghq::ConsumerGroupHeartbeatRequest {
        subscribed_topic_regex: None,
        ..m
    };
    assert_vector(&m0, 0, &format!("{pre}{post}"));
    assert_vector(&m0, 1, &format!("{pre}00{post}"));
}

/// ConsumerGroupDescribeResponse v1: Member.MemberType (int8) is the member's last field.
#[test]
fn consumer_group_describe_response_v1_full_message() {
    let member = cgd::Member {
        member_id: s("m"),
        instance_id: None,
        rack_id: None,
        member_epoch: 3,
        client_id: s("c"),
        client_host: s("/h"),
        subscribed_topic_names: vec![s("t")],
        subscribed_topic_regex: None,
        assignment: cgd::Assignment {
            topic_partitions: vec![cgd::TopicPartitions {
                topic_id: Uuid::from_u128(1),
                topic_name: s("t"),
                partitions: vec![0].into(),
                ..Default::default()
            }],
            ..Default::default()
        },
        target_assignment: cgd::Assignment::default(),
        member_type: 1,
        ..Default::default()
    };
    let m = cgd::ConsumerGroupDescribeResponse {
        throttle_time_ms: 0,
        groups: vec![cgd::DescribedGroup {
            error_code: 0,
            error_message: None,
            group_id: s("g"),
            group_state: s("Stable"),
            group_epoch: 3,
            assignment_epoch: 3,
            assignor_name: s("uniform"),
            members: vec![member],
            authorized_operations: i32::MIN,
            ..Default::default()
        }],
        ..Default::default()
    };
    let pre = concat!(
        "00000000", // ThrottleTimeMs
        "02",       // Groups: 1
        "0000",     //   ErrorCode
        "00",       //   ErrorMessage null
        "02",
        "67", //   GroupId "g"
        "07",
        "537461626c65", //   GroupState "Stable"
        "00000003",     //   GroupEpoch 3
        "00000003",     //   AssignmentEpoch 3
        "08",
        "756e69666f726d", //   AssignorName "uniform"
        "02",             //   Members: 1
        "02",
        "6d",       //     MemberId "m"
        "00",       //     InstanceId null
        "00",       //     RackId null
        "00000003", //     MemberEpoch 3
        "02",
        "63", //     ClientId "c"
        "03",
        "2f68", //     ClientHost "/h"
        "02",
        "02",
        "74",                               //     SubscribedTopicNames ["t"]
        "00",                               //     SubscribedTopicRegex null
        "02", //     Assignment (no marker: not nullable).TopicPartitions: 1
        "00000000000000000000000000000001", // TopicId
        "02",
        "74", //       TopicName "t"
        "02",
        "00000000", //       Partitions [0]
        "00",       //       element tags
        "00",       //     Assignment tags
        "01",
        "00", //     TargetAssignment: no partitions, tags
    );
    let member_type = "01"; //     MemberType 1 (v1+), the member's last field
    let post = concat!(
        "00",       //     member tags
        "80000000", //   AuthorizedOperations INT32_MIN
        "00",       //   group tags
        "00",       // message tags
    );
    assert_vector(&m, 1, &format!("{pre}{member_type}{post}"));
    // v0: MemberType (ignorable) dropped; reading v0 gives its default -1.
    let v0 = format!("{pre}{post}");
    assert_encodes(&m, 0, &v0);
    let back: cgd::ConsumerGroupDescribeResponse = decode(&v0, 0);
    assert_eq!(back.groups[0].members[0].member_type, -1);
}

/// StreamsGroupHeartbeatRequest v0 (a joining member with a topology).
#[test]
fn streams_group_heartbeat_request_v0_full_message() {
    let kv = |k: &'static str, v: &'static str| sghq::KeyValue {
        key: s(k),
        value: s(v),
        ..Default::default()
    };
    let m = sghq::StreamsGroupHeartbeatRequest {
        group_id: s("app"),
        member_id: s("m"),
        member_epoch: 0,
        endpoint_information_epoch: 0,
        instance_id: None,
        rack_id: None,
        rebalance_timeout_ms: 1000,
        topology: Some(sghq::Topology {
            epoch: 1,
            subtopologies: vec![sghq::Subtopology {
                subtopology_id: s("0"),
                source_topics: vec![s("in")],
                source_topic_regex: vec![],
                state_changelog_topics: vec![sghq::TopicInfo {
                    name: s("cl"),
                    partitions: 0,
                    replication_factor: 0,
                    topic_configs: vec![kv("k", "v")],
                    ..Default::default()
                }],
                repartition_sink_topics: vec![s("rp")],
                repartition_source_topics: vec![],
                copartition_groups: vec![sghq::CopartitionGroup {
                    source_topics: vec![0].into(),
                    source_topic_regex: vec![].into(),
                    repartition_source_topics: vec![1].into(),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }),
        active_tasks: Some(vec![sghq::TaskIds {
            subtopology_id: s("0"),
            partitions: vec![0, 1].into(),
            ..Default::default()
        }]),
        standby_tasks: Some(vec![]),
        warmup_tasks: None,
        process_id: Some(s("p")),
        user_endpoint: Some(sghq::Endpoint {
            host: s("h"),
            port: 8080,
            ..Default::default()
        }),
        client_tags: Some(vec![kv("az", "1")]),
        task_offsets: Some(vec![sghq::TaskOffset {
            subtopology_id: s("0"),
            partition: 0,
            offset: 10,
            ..Default::default()
        }]),
        task_end_offsets: None,
        shutdown_application: false,
        ..Default::default()
    };
    let h = concat!(
        "04",
        "617070", // GroupId "app"
        "02",
        "6d",       // MemberId "m"
        "00000000", // MemberEpoch 0
        "00000000", // EndpointInformationEpoch 0
        "00",       // InstanceId null
        "00",       // RackId null
        "000003e8", // RebalanceTimeoutMs 1000
        "01",       // Topology: int8 marker, present
        "00000001", //   Epoch 1
        "02",       //   Subtopologies: 1
        "02",
        "30", //     SubtopologyId "0"
        "02",
        "03",
        "696e", //     SourceTopics ["in"]
        "01",   //     SourceTopicRegex []
        "02",   //     StateChangelogTopics: 1
        "03",
        "636c",     //       Name "cl"
        "00000000", //       Partitions 0
        "0000",     //       ReplicationFactor 0
        "02",
        "02",
        "6b",
        "02",
        "76",
        "00", // TopicConfigs [{k, v, tags}]
        "00", //       TopicInfo tags
        "02",
        "03",
        "7270", //     RepartitionSinkTopics ["rp"]
        "01",   //     RepartitionSourceTopics []
        "02",   //     CopartitionGroups: 1
        "02",
        "0000", //       SourceTopics [0] (int16)
        "01",   //       SourceTopicRegex []
        "02",
        "0001", //       RepartitionSourceTopics [1]
        "00",   //       group tags
        "00",   //     subtopology tags
        "00",   //   Topology tags
        "02",
        "02",
        "30",
        "03",
        "00000000",
        "00000001",
        "00", // ActiveTasks [{"0", [0, 1]}]
        "01", // StandbyTasks []
        "00", // WarmupTasks null
        "02",
        "70", // ProcessId "p"
        "01",
        "02",
        "68",
        "1f90",
        "00", // UserEndpoint: marker 01, Host "h", Port 8080, tags
        "02",
        "03",
        "617a",
        "02",
        "31",
        "00", // ClientTags [{"az", "1"}]
        "02",
        "02",
        "30",
        "00000000",
        "000000000000000a",
        "00", // TaskOffsets [{"0", 0, 10}]
        "00", // TaskEndOffsets null
        "00", // ShutdownApplication false
        "00", // tags
    );
    assert_vector(&m, 0, h);
    // A plain heartbeat: Topology and UserEndpoint null are int8 -1 markers.
    let m = sghq::StreamsGroupHeartbeatRequest {
        group_id: s("app"),
        member_id: s("m"),
        member_epoch: 3,
        ..Default::default()
    };
    assert_vector(
        &m,
        0,
        concat!(
            "04617070", "026d", "00000003", "00000000", "00", "00",
            "ffffffff", // RebalanceTimeoutMs default -1
            "ff",       // Topology null: int8 -1
            "00", "00", "00", "00", // ActiveTasks, StandbyTasks, WarmupTasks, ProcessId null
            "ff", // UserEndpoint null: int8 -1
            "00", "00", "00", // ClientTags, TaskOffsets, TaskEndOffsets null
            "00", // ShutdownApplication
            "00", // tags
        ),
    );
}

/// StreamsGroupHeartbeatResponse v0 (EndpointInformationEpoch between WarmupTasks and
/// PartitionsByUserEndpoint).
#[test]
fn streams_group_heartbeat_response_v0_full_message() {
    let m = sghs::StreamsGroupHeartbeatResponse {
        throttle_time_ms: 0,
        error_code: 0,
        error_message: None,
        member_id: s("m"),
        member_epoch: 1,
        heartbeat_interval_ms: 5000,
        acceptable_recovery_lag_legacy: 10000,
        task_offset_interval_ms: 60000,
        status: Some(vec![sghs::Status {
            status_code: 1,
            status_detail: s("missing"),
            ..Default::default()
        }]),
        active_tasks: Some(vec![sghs::TaskIds {
            subtopology_id: s("0"),
            partitions: vec![0].into(),
            ..Default::default()
        }]),
        standby_tasks: Some(vec![]),
        warmup_tasks: None,
        endpoint_information_epoch: 2,
        partitions_by_user_endpoint: Some(vec![sghs::EndpointToPartitions {
            user_endpoint: sghs::Endpoint {
                host: s("h"),
                port: 8080,
                ..Default::default()
            },
            active_partitions: vec![sghs::TopicPartition {
                topic: s("in"),
                partitions: vec![0].into(),
                ..Default::default()
            }],
            standby_partitions: vec![],
            ..Default::default()
        }]),
        ..Default::default()
    };
    let h = concat!(
        "00000000", // ThrottleTimeMs
        "0000",     // ErrorCode
        "00",       // ErrorMessage null
        "02",
        "6d",       // MemberId "m"
        "00000001", // MemberEpoch 1
        "00001388", // HeartbeatIntervalMs 5000
        "00002710", // AcceptableRecoveryLag 10000
        "0000ea60", // TaskOffsetIntervalMs 60000
        "02",       // Status: 1
        "01",       //   StatusCode 1 (int8)
        "08",
        "6d697373696e67", // StatusDetail "missing"
        "00",             //   tags
        "02",
        "02",
        "30",
        "02",
        "00000000",
        "00",       // ActiveTasks [{"0", [0]}]
        "01",       // StandbyTasks []
        "00",       // WarmupTasks null
        "00000002", // EndpointInformationEpoch 2
        "02",       // PartitionsByUserEndpoint: 1
        "02",
        "68",
        "1f90",
        "00", // UserEndpoint (not nullable: no marker) "h":8080, tags
        "02",
        "03",
        "696e",
        "02",
        "00000000",
        "00", // ActivePartitions [{"in", [0]}]
        "01", //   StandbyPartitions []
        "00", //   element tags
        "00", // tags
    );
    assert_vector(&m, 0, h);
}

/// StreamsGroupDescribeRequest v0.
#[test]
fn streams_group_describe_request_v0_full_message() {
    let m = StreamsGroupDescribeRequest {
        group_ids: vec![s("app")],
        include_authorized_operations: true,
        ..Default::default()
    };
    assert_vector(
        &m,
        0,
        concat!(
            "02", "04", "617070", // GroupIds ["app"]
            "01",     // IncludeAuthorizedOperations true
            "00",     // tags
        ),
    );
}

/// StreamsGroupDescribeResponse v0.
#[test]
fn streams_group_describe_response_v0_full_message() {
    let m = sgd::StreamsGroupDescribeResponse {
        throttle_time_ms: 0,
        groups: vec![sgd::DescribedGroup {
            error_code: 0,
            error_message: None,
            group_id: s("app"),
            group_state: s("Stable"),
            group_epoch: 2,
            assignment_epoch: 2,
            topology: Some(sgd::Topology {
                epoch: 1,
                subtopologies: Some(vec![sgd::Subtopology {
                    subtopology_id: s("0"),
                    source_topics: vec![s("in")],
                    ..Default::default()
                }]),
                ..Default::default()
            }),
            members: vec![sgd::Member {
                member_id: s("m"),
                member_epoch: 2,
                instance_id: None,
                rack_id: Some(s("r")),
                client_id: s("c"),
                client_host: s("/h"),
                topology_epoch: 1,
                process_id: s("p"),
                user_endpoint: None,
                client_tags: vec![],
                task_offsets: vec![sgd::TaskOffset {
                    subtopology_id: s("0"),
                    partition: 0,
                    offset: 5,
                    ..Default::default()
                }],
                task_end_offsets: vec![],
                assignment: sgd::Assignment {
                    active_tasks: vec![sgd::TaskIds {
                        subtopology_id: s("0"),
                        partitions: vec![0].into(),
                        ..Default::default()
                    }],
                    ..Default::default()
                },
                target_assignment: sgd::Assignment::default(),
                is_classic: false,
                ..Default::default()
            }],
            authorized_operations: i32::MIN,
            ..Default::default()
        }],
        ..Default::default()
    };
    let h = concat!(
        "00000000", // ThrottleTimeMs
        "02",       // Groups: 1
        "0000",     //   ErrorCode
        "00",       //   ErrorMessage null
        "04",
        "617070", //   GroupId "app"
        "07",
        "537461626c65", //   GroupState "Stable"
        "00000002",     //   GroupEpoch 2
        "00000002",     //   AssignmentEpoch 2
        "01",           //   Topology: int8 marker, present
        "00000001",     //     Epoch 1
        "02",           //     Subtopologies (nullable array, not null): 1
        "02",
        "30", //       SubtopologyId "0"
        "02",
        "03",
        "696e", //       SourceTopics ["in"]
        "01",   //       RepartitionSinkTopics []
        "01",   //       StateChangelogTopics []
        "01",   //       RepartitionSourceTopics []
        "00",   //       subtopology tags
        "00",   //     Topology tags
        "02",   //   Members: 1
        "02",
        "6d",       //     MemberId "m"
        "00000002", //     MemberEpoch 2
        "00",       //     InstanceId null
        "02",
        "72", //     RackId "r"
        "02",
        "63", //     ClientId "c"
        "03",
        "2f68",     //     ClientHost "/h"
        "00000001", //     TopologyEpoch 1
        "02",
        "70", //     ProcessId "p"
        "ff", //     UserEndpoint null: int8 -1
        "01", //     ClientTags []
        "02",
        "02",
        "30",
        "00000000",
        "0000000000000005",
        "00", // TaskOffsets [{"0", 0, 5}]
        "01", //     TaskEndOffsets []
        "02",
        "02",
        "30",
        "02",
        "00000000",
        "00", // Assignment.ActiveTasks [{"0", [0]}]
        "01", //       StandbyTasks []
        "01", //       WarmupTasks []
        "00", //       Assignment tags
        "01",
        "01",
        "01",
        "00",       //   TargetAssignment: three empty arrays, tags
        "00",       //     IsClassic false
        "00",       //     member tags
        "80000000", //   AuthorizedOperations INT32_MIN
        "00",       //   group tags
        "00",       // tags
    );
    assert_vector(&m, 0, h);
}

// ================================================================================================
// The probe: a spec of our own for the tagged-field shapes schemas/ lacks
// ================================================================================================

/// The probe message (tags 0-4 contiguous: Label a nullable tagged string with a non-null
/// default; Sub a nullable tagged struct, default null; Late a string tagged only from v2; Ids a
/// nullable tagged array with a non-null (empty) default; Whole a non-nullable tagged struct), compiled from `tests/fixtures/probe/TagProbe.json` by tests/build.rs with
/// the Builder, so that the probe vectors always test the current generator.
#[allow(dead_code, unused_imports)]
mod probe {
    include!(concat!(env!("OUT_DIR"), "/probe.rs"));
}

#[test]
fn probe_basics() {
    // v0 is Head only; v1 adds an empty tagged section.
    let p = probe::TagProbe {
        head: 1,
        ..Default::default()
    };
    assert_vector(&p, 0, "00000001");
    assert_vector(&p, 1, concat!("00000001", "00"));
}

// ------------------------------------------------------------------------------------------------
// Removed APIs, unstable versions, typed requests, the ApiVersions fallback (KIP-511)
// ------------------------------------------------------------------------------------------------

/// The APIs Kafka 4.4.0 removed (`"validVersions": "none"`): as in its `ApiKeys`, they keep
/// key and name, but have no version (`hasValidVersion` false, `latestVersion` -1, header
/// versions throw), and nothing of them reads or writes.
#[test]
fn removed_apis_keep_key_and_name_and_have_no_version() {
    use kwire_protocol::generated::{LeaderAndIsrRequest, LeaderAndIsrResponse, Response};
    use kwire_protocol::wire::VersionRange;
    let removed: Vec<ApiKey> = ApiKey::ALL
        .iter()
        .copied()
        .filter(|k| !k.has_valid_version())
        .collect();
    assert_eq!(
        removed,
        [
            ApiKey::LeaderAndIsr,
            ApiKey::StopReplica,
            ApiKey::UpdateMetadata,
            ApiKey::ControlledShutdown
        ]
    );
    let names = [
        "LeaderAndIsr",
        "StopReplica",
        "UpdateMetadata",
        "ControlledShutdown",
    ];
    for (k, (key, name)) in removed.iter().zip((4..=7).zip(names)) {
        assert_eq!(ApiKey::from_i16(key), Some(*k));
        assert_eq!((k.as_i16(), k.name()), (key, name));
        assert_eq!(k.request_name(), format!("{name}Request"));
        assert!(k.valid_versions().is_empty() && k.flexible_versions().is_empty());
        assert_eq!(k.valid_versions(), VersionRange::NONE);
        assert_eq!(k.valid_versions().to_string(), "none");
        assert_eq!(
            (
                k.oldest_version(),
                k.latest_version(false),
                k.latest_version(true)
            ),
            (None, None, None)
        );
        assert!(k.enabled_versions(true).is_empty() && !k.is_latest_version_unstable());
        for v in [i16::MIN, -1, 0, 1, 5, i16::MAX] {
            assert_eq!(
                (k.request_header_version(v), k.response_header_version(v)),
                (None, None),
                "{k:?} v{v}"
            );
            let unsupported = DecodeErrorKind::UnsupportedVersion {
                version: v,
                lowest: 0,
                highest: -1,
            };
            for body in ["", "00000000"] {
                let e = Request::decode(*k, v, &mut Reader::new(b(body))).unwrap_err();
                assert_eq!(e.kind(), &unsupported, "{k:?} v{v}");
                let e = Response::decode(*k, v, &mut Reader::new(b(body))).unwrap_err();
                assert_eq!(e.kind(), &unsupported, "{k:?} v{v}");
                let e =
                    ResponseFrame::decode(b(concat!("00000001", "00000000")), *k, v).unwrap_err();
                assert_eq!((e.kind(), e.offset()), (&unsupported, 0), "{k:?} v{v}");
                assert_eq!(e.path_string(), format!("{name}Response"));
            }
            // A request frame naming it: refused before the header is read.
            let mut frame = unhex(concat!("0000", "00000001", "ffff", "00"));
            frame.splice(0..0, [key.to_be_bytes(), v.to_be_bytes()].concat());
            let e = RequestFrame::decode(Bytes::from(frame)).unwrap_err();
            assert_eq!((e.kind(), e.offset()), (&unsupported, 0), "{k:?} v{v}");
            assert_eq!(
                e.to_string(),
                format!("{name}Request at byte 0: version {v} is outside the valid versions none")
            );
        }
    }
    // Writing: the body, and a frame (which has no header version to use).
    let unsupported = EncodeErrorKind::UnsupportedVersion {
        version: 0,
        lowest: 0,
        highest: -1,
    };
    assert_eq!(
        LeaderAndIsrRequest::default()
            .to_bytes(0)
            .unwrap_err()
            .kind(),
        &unsupported
    );
    let f = RequestFrame::new(LeaderAndIsrRequest::default(), 0, 1, None);
    assert_eq!(f.to_bytes().unwrap_err().kind(), &unsupported);
    assert_eq!(
        f.header_version(),
        Err(DecodeErrorKind::UnsupportedVersion {
            version: 0,
            lowest: 0,
            highest: -1
        })
    );
    let f = ResponseFrame::new(LeaderAndIsrResponse::default(), 1);
    assert_eq!(f.to_bytes(0).unwrap_err().kind(), &unsupported);
}

/// `latestVersionUnstable` (Kafka's `ApiKeys.latestVersion(enableUnstableLastVersion)`): in
/// Kafka 4.4.0 only InitProducerId v6 is unstable; it is left out unless unstable versions are
/// enabled, and still read and written by the codecs.
#[test]
fn unstable_latest_versions_are_left_out_unless_enabled() {
    use kwire_protocol::generated::{InitProducerIdRequest, InitProducerIdResponse};
    use kwire_protocol::wire::VersionRange;
    let unstable: Vec<ApiKey> = ApiKey::ALL
        .iter()
        .copied()
        .filter(|k| k.is_latest_version_unstable())
        .collect();
    assert_eq!(unstable, [ApiKey::InitProducerId]);
    let k = ApiKey::InitProducerId;
    assert_eq!(k.valid_versions(), VersionRange::new(0, 6));
    assert_eq!(
        (k.latest_version(true), k.latest_version(false)),
        (Some(6), Some(5))
    );
    assert_eq!(k.enabled_versions(false), VersionRange::new(0, 5));
    assert_eq!(k.enabled_versions(true), VersionRange::new(0, 6));
    assert_eq!(k.oldest_version(), Some(0));
    for k in ApiKey::ALL
        .iter()
        .filter(|k| k.has_valid_version() && !k.is_latest_version_unstable())
    {
        let v = k.valid_versions();
        assert_eq!(
            (k.latest_version(false), k.latest_version(true)),
            (Some(v.highest), Some(v.highest)),
            "{k:?}"
        );
        assert_eq!(
            (k.enabled_versions(false), k.oldest_version()),
            (v, Some(v.lowest)),
            "{k:?}"
        );
    }
    // The unstable version is still a version of the codecs.
    let q = InitProducerIdRequest {
        transactional_id: Some("t".into()),
        ..Default::default()
    };
    assert_eq!(
        InitProducerIdRequest::decode_bytes(q.to_bytes(6).unwrap(), 6).unwrap(),
        q
    );
    let p = InitProducerIdResponse {
        producer_id: 7,
        ..Default::default()
    };
    let f = ResponseFrame::new(p.clone(), 3);
    let back = ResponseFrame::decode(f.to_bytes(6).unwrap(), k, 6).unwrap();
    assert_eq!(back, f);
}

/// A stand-in broker for the typed client below: answers Metadata and ApiVersions.
fn typed_broker(request: Bytes) -> Bytes {
    let f = RequestFrame::decode(request).unwrap();
    let version = f.header.request_api_version;
    let body: kwire_protocol::generated::Response = match f.body {
        Request::Metadata(_) => md::MetadataResponse {
            cluster_id: Some("c1".into()),
            ..Default::default()
        }
        .into(),
        Request::ApiVersions(_) => ApiVersionsResponse {
            throttle_time_ms: 9,
            ..Default::default()
        }
        .into(),
        other => panic!("not served: {:?}", other.api_key()),
    };
    ResponseFrame::new(body, f.header.correlation_id)
        .to_bytes(version)
        .unwrap()
}

/// `ApiRequest` / `ApiResponse`: each request type names its API and response type, so a
/// client is generic over the API and gets the response type back.
#[test]
fn typed_requests_name_their_api_and_response() {
    use kwire_protocol::generated::{ApiRequest, ApiResponse};
    fn send<R: ApiRequest>(request: R, version: i16) -> Result<R::Response, DecodeError> {
        let answer = typed_broker(
            RequestFrame::new(request, version, 11, Some("c"))
                .to_bytes()
                .unwrap(),
        );
        let (header, body) = R::Response::decode_response_frame(answer, version)?;
        assert_eq!(header.correlation_id, 11);
        Ok(body)
    }
    fn pair<R: ApiRequest>() -> (ApiKey, ApiKey, &'static str, &'static str) {
        (
            R::KEY,
            <R::Response as ApiResponse>::KEY,
            R::NAME,
            <R::Response as Message>::NAME,
        )
    }
    let m: md::MetadataResponse = send(MetadataRequest::default(), 12).unwrap();
    assert_eq!(m.cluster_id.as_deref(), Some("c1"));
    let a: ApiVersionsResponse = send(ApiVersionsRequest::default(), 3).unwrap();
    assert_eq!(a.throttle_time_ms, 9);
    assert_eq!(
        pair::<MetadataRequest>(),
        (
            ApiKey::Metadata,
            ApiKey::Metadata,
            "MetadataRequest",
            "MetadataResponse"
        )
    );
    assert_eq!(pair::<FindCoordinatorRequest>().1, ApiKey::FindCoordinator);
    assert_eq!(
        <FindCoordinatorResponse as ApiResponse>::KEY,
        ApiKey::FindCoordinator
    );
    // The typed body helpers: at the version, whole bodies only.
    let body = FindCoordinatorResponse::default().to_bytes(3).unwrap();
    assert_eq!(
        FindCoordinatorResponse::decode_response(body.clone(), 3).unwrap(),
        FindCoordinatorResponse::default()
    );
    let mut long = body.to_vec();
    long.push(0);
    let e = FindCoordinatorResponse::decode_response(Bytes::from(long), 3).unwrap_err();
    assert!(
        matches!(e.kind(), DecodeErrorKind::TrailingBytes { len: 1, .. }),
        "{e}"
    );
    let e = md::MetadataResponse::decode_response_frame(b("0000000100"), 14).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (
            &DecodeErrorKind::UnsupportedVersion {
                version: 14,
                lowest: 0,
                highest: 13
            },
            0
        )
    );
}

/// The answer of a broker that does not know the ApiVersions version asked for (KIP-511): in the
/// v0 layout, error 35 (UNSUPPORTED_VERSION) and the broker's own ApiVersions range (0-2 here).
const API_VERSIONS_V0_UNSUPPORTED: &str = concat!(
    "0023",     // ErrorCode 35
    "00000001", // ApiKeys: 1 element (int32 count, v0)
    "0012", "0000", "0002", // ApiVersions 0-2
);

/// KIP-511, read as Kafka's client reads it (`ApiVersionsResponse.parse`: on failure at the
/// version asked, parse again at version 0).
#[test]
fn api_versions_fallback_reads_a_v0_unsupported_version_answer() {
    use kwire_protocol::generated::ApiResponse;
    let expected = ApiVersionsResponse {
        error_code: 35,
        api_keys: vec![ApiVersion {
            api_key: 18,
            min_version: 0,
            max_version: 2,
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(
        hex(&expected.to_bytes(0).unwrap()),
        API_VERSIONS_V0_UNSUPPORTED
    );
    let frame = format!("0000002a{API_VERSIONS_V0_UNSUPPORTED}"); // response header v0
    for asked in [3, 4, 5, 1, 2, 7] {
        // Strictly, the v0 bytes are no v`asked` answer.
        assert!(
            ApiVersionsResponse::decode_bytes(b(API_VERSIONS_V0_UNSUPPORTED), asked).is_err(),
            "v{asked}"
        );
        assert!(
            ResponseFrame::decode(b(&frame), ApiKey::ApiVersions, asked).is_err(),
            "v{asked}"
        );
        // With the fallback: error 35 and the broker's range, read at version 0.
        let (body, used) =
            ApiVersionsResponse::decode_with_fallback(b(API_VERSIONS_V0_UNSUPPORTED), asked)
                .unwrap();
        assert_eq!((&body, used), (&expected, 0), "v{asked}");
        let (f, used) =
            ResponseFrame::decode_with_fallback(b(&frame), ApiKey::ApiVersions, asked).unwrap();
        assert_eq!(
            (f.header.correlation_id, &f.body, used),
            (
                42,
                &kwire_protocol::generated::Response::ApiVersions(expected.clone()),
                0
            ),
            "v{asked}"
        );
        let (h, body) = ApiVersionsResponse::decode_response_frame(b(&frame), asked).unwrap();
        assert_eq!((h.correlation_id, &body), (42, &expected), "v{asked}");
        assert_eq!(
            ApiVersionsResponse::decode_response(b(API_VERSIONS_V0_UNSUPPORTED), asked).unwrap(),
            expected
        );
    }
    assert_eq!(
        ApiVersionsResponse::decode_with_fallback(b(API_VERSIONS_V0_UNSUPPORTED), 0).unwrap(),
        (expected, 0)
    );
}

/// A normal answer reads at the version asked, as without the fallback.
#[test]
fn api_versions_fallback_reads_a_normal_answer_at_its_version() {
    let body = ApiVersionsResponse {
        api_keys: vec![ApiVersion {
            api_key: 18,
            min_version: 0,
            max_version: 4,
            ..Default::default()
        }],
        throttle_time_ms: 5,
        finalized_features_epoch: 3,
        ..Default::default()
    };
    for v in 0..=5 {
        let (back, used) =
            ApiVersionsResponse::decode_with_fallback(body.to_bytes(v).unwrap(), v).unwrap();
        let want = ApiVersionsResponse::decode_bytes(body.to_bytes(v).unwrap(), v).unwrap();
        assert_eq!((back, used), (want, v), "v{v}");
        let f = ResponseFrame::new(body.clone(), 8);
        let (back, used) =
            ResponseFrame::decode_with_fallback(f.to_bytes(v).unwrap(), ApiKey::ApiVersions, v)
                .unwrap();
        assert_eq!(
            (back, used),
            (
                ResponseFrame::decode(f.to_bytes(v).unwrap(), ApiKey::ApiVersions, v).unwrap(),
                v
            )
        );
    }
    // Other APIs: exactly `ResponseFrame::decode`.
    let f = ResponseFrame::new(FindCoordinatorResponse::default(), 8);
    assert_eq!(
        ResponseFrame::decode_with_fallback(f.to_bytes(3).unwrap(), ApiKey::FindCoordinator, 3)
            .unwrap(),
        (f, 3)
    );
    assert!(
        ResponseFrame::decode_with_fallback(b("00000008"), ApiKey::FindCoordinator, 3).is_err()
    );
}

/// Bytes that read at no version: a typed error (the one at the version asked, or at version 0
/// when the version asked is unknown), no panic; a negative version never falls back.
#[test]
fn api_versions_fallback_refuses_garbage_with_a_typed_error() {
    let garbage = [
        "",
        "00",
        "0023",
        "002300",
        "0023ffffffff",
        "00237fffffff",
        "0023000000010012",
        concat!("0023", "00000001", "0012", "0000", "0002", "ff"), // v0 + a stray byte
        "ffffffffffffffffffffffffffffffff",
    ];
    for g in garbage {
        for v in [-1, 0, 1, 3, 4, 5, 6, i16::MAX] {
            // The error expected: the one at the version asked, or at 0 for a version above
            // the valid ones (which says nothing about the bytes).
            let known = ApiVersionsResponse::VALID_VERSIONS.highest;
            let strict = ApiVersionsResponse::decode_bytes(b(g), if v > known { 0 } else { v });
            match ApiVersionsResponse::decode_with_fallback(b(g), v) {
                Ok((m, used)) => {
                    // Only bytes that do read at some version: then at `v` or at 0, never for
                    // a negative version (no fallback there).
                    assert!(v >= 0 && (used == v || used == 0), "{g} v{v}");
                    assert_eq!(
                        ApiVersionsResponse::decode_bytes(b(g), used).unwrap(),
                        m,
                        "{g} v{v}"
                    );
                }
                Err(e) if v < 0 => assert!(
                    matches!(e.kind(), DecodeErrorKind::UnsupportedVersion { .. }),
                    "{g} v{v}: {e}"
                ),
                Err(e) => assert_eq!(
                    Err(e),
                    strict.map(|_| ()),
                    "{g} v{v}: the error at the version asked"
                ),
            }
            let frame = format!("00000001{g}");
            let r = ResponseFrame::decode_with_fallback(b(&frame), ApiKey::ApiVersions, v);
            assert_eq!(
                r.is_ok(),
                ApiVersionsResponse::decode_with_fallback(b(g), v).is_ok(),
                "{g} v{v}"
            );
        }
        let e = ApiVersionsResponse::decode_with_fallback(b(g), 3);
        assert!(e.is_err(), "{g}");
    }
    // A header cut short.
    let e = ResponseFrame::decode_with_fallback(b("0000"), ApiKey::ApiVersions, 3).unwrap_err();
    assert!(
        matches!(e.kind(), DecodeErrorKind::UnexpectedEof { .. }),
        "{e}"
    );
}
