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
//! * `every_length_field_of_every_message_survives_hostile_lengths`: every message generated from
//!   `schemas/` (requests and responses of all 95 APIs, headers, data and record specs: the list
//!   comes from the generated re-exports, not from this file) at every valid version, as three
//!   samples (`wire::sample`). A walk of the encoded bytes with the spec (kwire-codegen's IR, not
//!   the code under test) finds every length prefix: strings, bytes, records and arrays in their
//!   classic (int16/int32) and compact (uvarint) forms, nullable struct markers, and the count and
//!   the sizes of every tagged-field section (known and unknown tags). Each is overwritten with
//!   huge, negative, null, past-the-end, off-by-one and over-long-varint values and decoded, owned
//!   and through the message's view. No panic; owned and view decoding agree (value, or error kind
//!   and offset); what decodes keeps the contract; every error has a path and an offset inside the
//!   input; the values no input of this size can hold are refused at the prefix, naming the field;
//!   no allocation above [`alloc_bound`]. Every string, bytes, records and array field of every
//!   message at every version (read from the specs) must have been refused so at least once.
//! * `decoders_survive_random_and_mutated_frames` (proptest): random bytes, and golden frames
//!   (librdkafka 2.16.0 captures) and frames of our own encoder with bit flips, truncation,
//!   insertion, deletion, overwrites and splices, fed to `RequestFrame::decode`, to
//!   `ResponseFrame::decode` for every (API, valid version) and to every message's `decode_bytes`
//!   and view at every valid version. No panic; owned and view decoding agree; no allocation above
//!   [`any_input_bound`] (real elements, unlike claims, may take more memory than twice their
//!   bytes); whenever a decode succeeds, the codec contract holds:
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
    ApiKey, MetadataResponse, Request, RequestFrame, Response, ResponseFrame,
};
use kwire_protocol::wire::sample::{Sample, SampleGen, SampleMode, DEFAULT_MAX_DEPTH};
use kwire_protocol::wire::{
    DecodeError, DecodeErrorKind, Message, MessageKind, PathSegment, Reader,
};
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
/// elements: 4 × 496 bytes for the largest of the 288 element structs of `schemas/`
/// (`StreamsGroupDescribeResponse` `Member`; `element_structs_fit_the_slack` checks every one of
/// them, as tests/build.rs lists them from the generated code). 1984 + 512 rounded up to a power
/// of two.
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

macro_rules! element_structs {
    ($($m:ident :: $t:ident),* $(,)?) => {
        /// (name, size in memory) of every struct that is an array element in the generated
        /// code (tests/build.rs lists them from the generated modules).
        fn element_structs() -> Vec<(&'static str, usize)> {
            vec![$((
                concat!(stringify!($m), "::", stringify!($t)),
                std::mem::size_of::<kwire_protocol::generated::$m::$t>(),
            )),*]
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/element_structs.rs"));

#[test]
fn element_structs_fit_the_slack() {
    // The largest struct that is an array element in schemas/ (top-level messages never are).
    let all = element_structs();
    let (name, size) = all
        .iter()
        .copied()
        .max_by_key(|&(_, size)| size)
        .expect("element structs");
    println!(
        "{} element structs, the largest {name}: {size} bytes",
        all.len()
    );
    assert!(4 * size + ERROR_SLACK <= SLACK, "{name}: {size} bytes");
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

/// A message of `schemas/` with its borrowed view (kwire-codegen's `<Type>Ref`, in the same module).
trait Viewed: Message + Sample {
    /// Parses `bytes` at `version` through the view and reads it back into an owned value.
    fn view(bytes: &[u8], version: i16) -> Result<Self, DecodeError>;
}

trait MessageVisitor {
    fn visit<T: Viewed>(&mut self);
}

macro_rules! schema_message_views {
    ($($m:ident :: $t:ident / $r:ident),* $(,)?) => {
        $(impl Viewed for kwire_protocol::generated::$m::$t {
            fn view(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
                kwire_protocol::generated::$m::$r::parse(bytes, version).map(|r| r.to_owned())
            }
        })*

        /// Calls `v` once per message generated from `schemas/`: requests, responses, headers, data
        /// and kwire's records (tests/build.rs lists them from the re-exports of
        /// protocol/src/generated/mod.rs; `every_spec_is_visited` checks the list against the spec
        /// files).
        fn for_each_message(v: &mut impl MessageVisitor) {
            $(v.visit::<kwire_protocol::generated::$m::$t>();)*
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/schema_message_views.rs"));

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

/// `m`, a request body, as the `Request` of its API (read back from its encoding at `v`); `None`
/// for the other kinds of message.
fn as_request<T: Message>(m: &T, v: i16) -> Option<Request> {
    let api = ApiKey::from_i16(T::API_KEY?)?;
    (T::KIND == MessageKind::Request).then(|| {
        let b = m.to_bytes(v).expect("samples encode");
        Request::decode(api, v, &mut Reader::new(b)).expect("a request body decodes as its API's")
    })
}

/// As [`as_request`], for a response body.
fn as_response<T: Message>(m: &T, v: i16) -> Option<Response> {
    let api = ApiKey::from_i16(T::API_KEY?)?;
    (T::KIND == MessageKind::Response).then(|| {
        let b = m.to_bytes(v).expect("samples encode");
        Response::decode(api, v, &mut Reader::new(b)).expect("a response body decodes as its API's")
    })
}

#[test]
fn every_spec_is_visited() {
    #[derive(Default)]
    struct Names {
        names: Vec<&'static str>,
        /// (API key, kind) → valid versions, for requests and responses.
        bodies: BTreeMap<(i16, bool), (i16, i16)>,
    }
    impl MessageVisitor for Names {
        fn visit<T: Viewed>(&mut self) {
            self.names.push(T::NAME);
            if let (Some(key), MessageKind::Request | MessageKind::Response) = (T::API_KEY, T::KIND)
            {
                let r = T::VALID_VERSIONS;
                let dup = self.bodies.insert(
                    (key, T::KIND == MessageKind::Request),
                    (r.lowest, r.highest),
                );
                assert!(dup.is_none(), "two bodies for {}", T::NAME);
            }
        }
    }
    let mut names = Names::default();
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
    let mut visited: Vec<String> = names.names.iter().map(|s| s.to_string()).collect();
    visited.sort();
    assert_eq!(
        visited, on_disk,
        "for_each_message must list every spec of schemas/"
    );
    // Every API has its request and its response, with the API's versions.
    for &api in ApiKey::ALL {
        let r = api.valid_versions();
        for request in [true, false] {
            assert_eq!(
                names.bodies.get(&(api.as_i16(), request)),
                Some(&(r.lowest, r.highest)),
                "{} (request: {request})",
                api.name()
            );
        }
    }
    assert_eq!(names.bodies.len(), 2 * ApiKey::ALL.len());
    println!("{} specs, {} APIs", names.names.len(), ApiKey::ALL.len());
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

/// How a length prefix (or a null marker) is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Enc {
    /// int16: strings of classic (non-flexible) versions.
    Int16,
    /// int32: bytes, records and arrays of classic versions.
    Int32,
    /// uvarint of the length + 1, 0 for null: strings, bytes, records and arrays of flexible
    /// versions (KIP-482 compact forms).
    Compact,
    /// Plain uvarint: the count of a tagged-field section, the size of a tagged field.
    Uvarint,
    /// int8, negative for null: the marker of a nullable struct.
    Marker,
    /// uvarint, 0 for null: the marker of a nullable struct in a tagged field.
    TaggedMarker,
}

/// What a prefix gives the length (or presence) of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum What {
    String,
    Bytes,
    Records,
    Array,
    /// The number of tagged fields of a struct (KIP-482).
    TagCount,
    /// The payload size of one tagged field, known or unknown to the version.
    TagSize,
    /// A nullable struct's marker.
    Struct,
}

/// One length prefix found in encoded bytes by [`Walk`].
#[derive(Debug, Clone)]
struct Prefix {
    /// Byte offset of the prefix.
    at: usize,
    /// Its width in bytes, as written.
    width: usize,
    enc: Enc,
    what: What,
    /// The value as written (the int, or the uvarint).
    raw: i64,
    /// Whether the field may be null at this version.
    nullable: bool,
    /// The field path as [`field_path`] writes it (`topics[].partitions[].isr_nodes`); for the
    /// tagged-field section of a struct, the struct's path.
    path: String,
}

/// Finds every length prefix of encoded bytes by walking them with the spec (kwire-codegen's IR
/// of the spec file, not the code under test): field by field at the version, with the classic
/// or compact forms the version (or a field's own `flexibleVersions`) calls for, into array
/// elements, nested and nullable structs, and tagged-field sections (known tags by their field,
/// unknown tags skipped by size).
struct Walk<'a> {
    spec: &'a kwire_codegen::ir::Spec,
    v: i16,
    b: &'a [u8],
    pos: usize,
    out: Vec<Prefix>,
}

impl<'a> Walk<'a> {
    /// Every length prefix of `b`, an encoding of `spec` at `v`; panics when the bytes do not
    /// follow the spec to their last byte.
    fn prefixes(spec: &'a kwire_codegen::ir::Spec, v: i16, b: &'a [u8]) -> Vec<Prefix> {
        let mut w = Walk {
            spec,
            v,
            b,
            pos: 0,
            out: Vec::new(),
        };
        w.fields(&spec.fields, "");
        assert_eq!(
            w.pos,
            b.len(),
            "{} v{v}: the walk ends before the bytes",
            spec.name
        );
        w.out
    }

    fn flexible(&self) -> bool {
        self.spec.flexible.contains(self.v)
    }

    fn int(&mut self, n: usize) -> i64 {
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        match n {
            1 => s[0] as i8 as i64,
            2 => i16::from_be_bytes([s[0], s[1]]) as i64,
            _ => i32::from_be_bytes([s[0], s[1], s[2], s[3]]) as i64,
        }
    }

    fn uvarint(&mut self) -> i64 {
        let mut x = 0u64;
        for shift in (0..35).step_by(7) {
            let c = self.b[self.pos];
            self.pos += 1;
            x |= u64::from(c & 0x7f) << shift;
            if c & 0x80 == 0 {
                break;
            }
        }
        x as i64
    }

    fn prefix(&mut self, enc: Enc, what: What, nullable: bool, path: &str) -> i64 {
        let at = self.pos;
        let raw = match enc {
            Enc::Int16 => self.int(2),
            Enc::Int32 => self.int(4),
            Enc::Marker => self.int(1),
            Enc::Compact | Enc::Uvarint | Enc::TaggedMarker => self.uvarint(),
        };
        self.out.push(Prefix {
            at,
            width: self.pos - at,
            enc,
            what,
            raw,
            nullable,
            path: path.to_string(),
        });
        raw
    }

    fn fields(&mut self, fields: &'a [kwire_codegen::ir::Field], path: &str) {
        use kwire_codegen::rust::names::snake;
        let v = self.v;
        let join = |name: &str| {
            if path.is_empty() {
                snake(name)
            } else {
                format!("{path}.{}", snake(name))
            }
        };
        for f in fields.iter().filter(|f| f.untagged_versions().contains(v)) {
            let flex = f
                .flexible_override
                .as_ref()
                .map_or(self.flexible(), |o| o.contains(v));
            self.value(&f.ty, f.nullable.contains(v), flex, false, &join(&f.name));
        }
        if !self.flexible() {
            return;
        }
        let n = self.prefix(Enc::Uvarint, What::TagCount, false, path);
        for _ in 0..n {
            let tag = self.uvarint();
            let size = self.prefix(Enc::Uvarint, What::TagSize, false, path) as usize;
            let end = self.pos + size;
            let known = fields.iter().find(|f| {
                f.versions.contains(v)
                    && matches!(&f.tag, Some((t, tv)) if i64::from(*t) == tag && tv.contains(v))
            });
            match known {
                Some(f) => {
                    self.value(&f.ty, f.nullable.contains(v), true, true, &join(&f.name));
                    assert_eq!(
                        self.pos, end,
                        "{} v{v}: tagged field {}",
                        self.spec.name, f.name
                    );
                }
                None => self.pos = end,
            }
        }
    }

    fn value(
        &mut self,
        ty: &'a kwire_codegen::ir::Type,
        nullable: bool,
        flex: bool,
        tagged: bool,
        path: &str,
    ) {
        use kwire_codegen::ir::Type;
        let (short, long) = if flex {
            (Enc::Compact, Enc::Compact)
        } else {
            (Enc::Int16, Enc::Int32)
        };
        let len = |enc: Enc, raw: i64| match enc {
            Enc::Compact => (raw > 0).then(|| raw as usize - 1),
            _ => (raw >= 0).then_some(raw as usize),
        };
        match ty {
            Type::String | Type::Bytes | Type::Records => {
                let (enc, what) = match ty {
                    Type::String => (short, What::String),
                    Type::Bytes => (long, What::Bytes),
                    _ => (long, What::Records),
                };
                let raw = self.prefix(enc, what, nullable, path);
                self.pos += len(enc, raw).unwrap_or(0);
            }
            Type::Array(elem) => {
                let raw = self.prefix(long, What::Array, nullable, path);
                let elem_path = format!("{path}[]");
                for _ in 0..len(long, raw).unwrap_or(0) {
                    self.value(elem, false, flex, false, &elem_path);
                }
            }
            Type::Struct(name) => {
                if nullable {
                    let enc = if tagged {
                        Enc::TaggedMarker
                    } else {
                        Enc::Marker
                    };
                    let raw = self.prefix(enc, What::Struct, true, path);
                    let present = if tagged {
                        raw != 0 && raw <= i64::from(i32::MAX)
                    } else {
                        raw >= 0
                    };
                    if !present {
                        return;
                    }
                }
                let spec = self.spec;
                let s = spec
                    .find_struct(name)
                    .unwrap_or_else(|| panic!("{}: struct {name}", spec.name));
                self.fields(&s.fields, path);
            }
            fixed => self.pos += fixed.fixed_size().expect("a fixed-size type"),
        }
    }
}

/// A uvarint.
fn uvarint(mut x: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while x >= 0x80 {
        out.push((x as u8 & 0x7f) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
    out
}

/// Six varint bytes: every one of the five a 32-bit varint may take has the continuation bit.
const VARINT_TOO_LONG: [u8; 6] = [0xff, 0xff, 0xff, 0xff, 0xff, 0x01];

/// What a mutated prefix must lead to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Refused at the prefix: a length error ([`is_length_rejection`]) at its offset (up to 6
    /// bytes further: after the varint, or at the data a length claims), naming the field
    /// (string, bytes, records and arrays).
    Refused,
    /// Anything but a panic: `Ok` (the contract then holds) or a typed error.
    Any,
}

/// The hostile values written in place of prefix `p` of an input of `len` bytes: huge, negative,
/// null (refused unless the field is nullable at the version), just past the end, off by one,
/// over-long varints. Each with what it must lead to and a label.
fn hostile(p: &Prefix, len: usize) -> Vec<(Vec<u8>, Expect, &'static str)> {
    use Expect::{Any, Refused};
    let null = if p.nullable { Any } else { Refused };
    let past_end = len as i64 + 1;
    let mut out: Vec<(Vec<u8>, Expect, &'static str)> = Vec::new();
    let near = |out: &mut Vec<_>, enc: fn(i64) -> Vec<u8>| {
        out.push((enc(p.raw + 1), Any, "+1"));
        if p.raw >= 1 {
            out.push((enc(p.raw - 1), Any, "-1"));
        }
    };
    match p.enc {
        Enc::Int16 => {
            let e = |x: i64| (x as i16).to_be_bytes().to_vec();
            out.push((e(i64::from(i16::MAX)), Refused, "int16 max"));
            out.push((e(-1), null, "int16 -1 (null)"));
            out.push((e(-2), Refused, "int16 -2"));
            out.push((e(i64::from(i16::MIN)), Refused, "int16 min"));
            near(&mut out, e);
        }
        Enc::Int32 => {
            let e = |x: i64| (x as i32).to_be_bytes().to_vec();
            out.push((e(i64::from(i32::MAX)), Refused, "int32 max"));
            out.push((e(past_end), Refused, "int32 past the end"));
            out.push((e(-1), null, "int32 -1 (null)"));
            out.push((e(-2), Refused, "int32 -2"));
            out.push((e(i64::from(i32::MIN)), Refused, "int32 min"));
            near(&mut out, e);
        }
        Enc::Compact => {
            let e = |x: i64| uvarint(x as u64);
            out.push((e(0), null, "compact 0 (null)"));
            out.push((e((1 << 31) - 1), Refused, "compact 2^31-1 (length 2^31-2)"));
            out.push((e(1 << 31), Refused, "compact 2^31 (length 2^31-1)"));
            out.push((
                e(u32::MAX.into()),
                null,
                "compact 2^32-1 (null, as Java reads it)",
            ));
            out.push((e(past_end + 1), Refused, "compact past the end"));
            out.push((e(1 << 16), Refused, "compact 2^16"));
            out.push((VARINT_TOO_LONG.to_vec(), Refused, "6-byte varint"));
            near(&mut out, e);
        }
        Enc::Uvarint => {
            let e = |x: i64| uvarint(x as u64);
            let huge = if p.what == What::TagSize {
                Refused
            } else {
                Any
            };
            out.push((e((1 << 31) - 1), huge, "uvarint 2^31-1"));
            out.push((e(u32::MAX.into()), huge, "uvarint 2^32-1"));
            out.push((e(past_end), huge, "uvarint past the end"));
            out.push((VARINT_TOO_LONG.to_vec(), Refused, "6-byte varint"));
            if p.raw > 0 {
                out.push((e(0), Any, "uvarint 0"));
            }
            near(&mut out, e);
        }
        Enc::Marker => {
            for (x, label) in [
                (-1i8, "marker -1"),
                (-128, "marker min"),
                (0, "marker 0"),
                (2, "marker 2"),
                (127, "marker max"),
            ] {
                if i64::from(x) != p.raw {
                    out.push((vec![x as u8], Any, label));
                }
            }
        }
        Enc::TaggedMarker => {
            for (x, label) in [
                (0u64, "tagged marker 0"),
                (2, "tagged marker 2"),
                (1 << 31, "tagged marker 2^31"),
                (u32::MAX.into(), "tagged marker 2^32-1"),
            ] {
                if x as i64 != p.raw {
                    out.push((uvarint(x), Any, label));
                }
            }
            out.push((VARINT_TOO_LONG.to_vec(), Refused, "6-byte varint"));
        }
    }
    out
}

/// Whether `e` is a decoder refusing a length (or a varint holding one).
fn is_length_rejection(e: &DecodeError) -> bool {
    match e.kind() {
        DecodeErrorKind::ArrayTooLong { .. }
        | DecodeErrorKind::StringTooLong(_)
        | DecodeErrorKind::InvalidLength(_)
        | DecodeErrorKind::NullNotAllowed
        | DecodeErrorKind::VarintTooLong => true,
        // `take(n)` for bytes, strings and tagged fields: more bytes claimed than are left.
        DecodeErrorKind::UnexpectedEof { needed, remaining } => needed > remaining,
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
            // An unknown tag's payload; which tag depends on the mutation.
            PathSegment::Tag(_) => s.push_str("<unknown tag>"),
        }
    }
    s
}

/// Every string, bytes, records and array field (and every string/bytes element of an array)
/// present at each valid version of each spec of `schemas/`, as `field_path` writes them. Read
/// from kwire-codegen's IR of the spec files.
fn length_fields_from_specs(
    specs: &[kwire_codegen::ir::Spec],
) -> BTreeMap<(String, i16), BTreeSet<String>> {
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
    let mut out = BTreeMap::new();
    for spec in specs {
        for v in spec.valid.iter() {
            let mut set = BTreeSet::new();
            walk(spec, &spec.fields, v, "", &mut set);
            out.insert((spec.name.clone(), v), set);
        }
    }
    out
}

/// The specs of `schemas/`, by name, as kwire-codegen reads them.
fn specs_by_name() -> BTreeMap<String, kwire_codegen::ir::Spec> {
    let files = kwire_codegen::source::read_dir(&workspace_root().join("schemas")).unwrap();
    let checked = kwire_codegen::check_files(files);
    assert_eq!(checked.error_count(), 0, "schemas/ checks clean");
    checked
        .specs
        .into_iter()
        .map(|s| (s.name.clone(), s))
        .collect()
}

struct Mutations {
    specs: BTreeMap<String, kwire_codegen::ir::Spec>,
    /// [`length_fields_from_specs`].
    expected: BTreeMap<(String, i16), BTreeSet<String>>,
    /// Samples deeper than [`DEFAULT_MAX_DEPTH`], for the fields the others lack.
    deep_samples: usize,
    messages: usize,
    pairs: usize,
    samples: usize,
    /// Prefixes found in the samples, by (what, how written).
    prefixes: BTreeMap<(What, Enc), usize>,
    /// (message, version, what, path) of every prefix mutated.
    positions: BTreeSet<(String, i16, What, String)>,
    mutations: usize,
    ok: usize,
    refused: usize,
    largest_alloc: usize,
    largest_ratio: f64,
    /// As `largest_ratio`, over inputs of 512 bytes or more (where the fixed allocations of an
    /// error weigh little).
    largest_ratio_512: f64,
    /// The most an allocation exceeded twice its input, and where.
    largest_excess: usize,
    worst: String,
    /// Mutations with an allocation above twice the input (within [`SLACK`]).
    above_twice: usize,
    /// (message, version) → field paths whose length prefix a mutation hit and the decoder refused
    /// there, naming the field.
    hit: BTreeMap<(String, i16), BTreeSet<String>>,
    /// (message, version) → the string, bytes, records and array fields the walk found.
    walked: BTreeMap<(String, i16), BTreeSet<String>>,
    failure_count: usize,
    failures: Vec<String>,
}

impl Mutations {
    /// Records a failure; only the first few are described (formatting every one would be slow).
    fn fail(&mut self, f: impl FnOnce() -> String) {
        self.failure_count += 1;
        if self.failures.len() < 20 {
            self.failures.push(f());
        }
    }

    fn try_one<T: Viewed>(
        &mut self,
        v: i16,
        p: &Prefix,
        what: &(Vec<u8>, Expect, &str),
        m: Vec<u8>,
    ) {
        self.mutations += 1;
        let len = m.len();
        let input = Bytes::from(m);
        let arg = input.clone(); // promotes the buffer outside the measured region
        let (r, a) =
            measure(move || catch_unwind(AssertUnwindSafe(move || T::decode_bytes(arg, v))));
        let ctx = |input: &Bytes| {
            format!(
                "{} v{v}, {:?} {} at byte {} ({:?}) set to {} ({}): {}",
                T::NAME,
                p.what,
                p.path,
                p.at,
                p.enc,
                hex(&what.0),
                what.2,
                short_hex(input)
            )
        };
        self.largest_alloc = self.largest_alloc.max(a.largest);
        self.largest_ratio = self.largest_ratio.max(a.largest as f64 / len as f64);
        if len >= 512 {
            self.largest_ratio_512 = self.largest_ratio_512.max(a.largest as f64 / len as f64);
        }
        let excess = a.largest.saturating_sub(2 * len);
        self.above_twice += usize::from(excess > 0);
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
        let Ok(r) = r else {
            self.fail(|| format!("PANIC: {}", ctx(&input)));
            return;
        };
        // The view reads the same bytes the same way (`View::check_at`'s promise).
        match catch_unwind(AssertUnwindSafe(|| T::view(&input, v))) {
            Err(_) => self.fail(|| format!("PANIC in the view: {}", ctx(&input))),
            Ok(w) => {
                let same = match (&r, &w) {
                    (Ok(a), Ok(b)) => a == b,
                    (Err(a), Err(b)) => a.kind() == b.kind() && a.offset() == b.offset(),
                    _ => false,
                };
                if !same {
                    self.fail(|| format!("owned {r:?}, view {w:?}: {}", ctx(&input)));
                }
            }
        }
        match r {
            Ok(msg) => {
                self.ok += 1;
                if what.1 == Expect::Refused {
                    self.fail(|| format!("decoded, must be refused: {}", ctx(&input)));
                } else if let Err(e) = contract_message(&msg, &input, v) {
                    self.fail(|| format!("{e}: {}", ctx(&input)));
                }
            }
            Err(e) => {
                if e.offset() > len || e.path().is_empty() {
                    self.fail(|| {
                        format!(
                            "error {e} out of the input or without a path: {}",
                            ctx(&input)
                        )
                    });
                }
                let named = matches!(
                    p.what,
                    What::String | What::Bytes | What::Records | What::Array
                );
                let at_prefix = is_length_rejection(&e) && (p.at..=p.at + 6).contains(&e.offset());
                if at_prefix && named && field_path(&e) == p.path {
                    self.refused += 1;
                    self.hit
                        .entry((T::NAME.to_string(), v))
                        .or_default()
                        .insert(p.path.clone());
                } else if at_prefix && !named {
                    self.refused += 1;
                } else if what.1 == Expect::Refused {
                    self.fail(|| {
                        format!(
                            "refused with {e} (path {}), not at the prefix naming {}: {}",
                            field_path(&e),
                            p.path,
                            ctx(&input)
                        )
                    });
                }
            }
        }
    }
}

impl Mutations {
    /// Finds the prefixes of one sample of `T` at `v` and mutates each.
    fn sample<T: Viewed>(&mut self, spec: &kwire_codegen::ir::Spec, v: i16, m: T) {
        let b = m.to_bytes(v).expect("samples encode");
        assert_eq!(
            T::decode_bytes(b.clone(), v).map(|_| ()),
            Ok(()),
            "{} v{v}",
            T::NAME
        );
        self.samples += 1;
        for p in &Walk::prefixes(spec, v, &b) {
            *self.prefixes.entry((p.what, p.enc)).or_default() += 1;
            self.positions
                .insert((T::NAME.to_string(), v, p.what, p.path.clone()));
            if matches!(
                p.what,
                What::String | What::Bytes | What::Records | What::Array
            ) {
                self.walked
                    .entry((T::NAME.to_string(), v))
                    .or_default()
                    .insert(p.path.clone());
            }
            for h in hostile(p, b.len()) {
                let m = [&b[..p.at], &h.0[..], &b[p.at + p.width..]].concat();
                self.try_one::<T>(v, p, &h, m);
            }
        }
    }
}

impl MessageVisitor for Mutations {
    fn visit<T: Viewed>(&mut self) {
        self.messages += 1;
        let spec = self
            .specs
            .remove(T::NAME)
            .unwrap_or_else(|| panic!("{}: no spec", T::NAME));
        for v in versions::<T>() {
            self.pairs += 1;
            for &(mode, seed) in SAMPLES {
                self.sample(&spec, v, sample::<T>(mode, seed, v));
            }
            // Arrays nested deeper than the samples go (`DEFAULT_MAX_DEPTH`) are empty in them:
            // for a message that has such fields, one `Full` sample as deep as it takes.
            let key = (T::NAME.to_string(), v);
            let mut depth = DEFAULT_MAX_DEPTH;
            while depth < 12
                && !self.expected[&key].is_subset(self.walked.get(&key).unwrap_or(&BTreeSet::new()))
            {
                depth += 2;
                self.deep_samples += 1;
                let g = &mut SampleGen::new(1, SampleMode::Full).with_max_depth(depth);
                self.sample(&spec, v, T::sample(g, v));
            }
        }
        self.specs.insert(T::NAME.to_string(), spec);
    }
}

#[test]
fn every_length_field_of_every_message_survives_hostile_lengths() {
    let specs = specs_by_name();
    let expected = length_fields_from_specs(&specs.values().cloned().collect::<Vec<_>>());
    let mut m = Mutations {
        specs,
        expected: expected.clone(),
        deep_samples: 0,
        messages: 0,
        pairs: 0,
        samples: 0,
        prefixes: BTreeMap::new(),
        positions: BTreeSet::new(),
        mutations: 0,
        ok: 0,
        refused: 0,
        largest_alloc: 0,
        largest_ratio: 0.0,
        largest_ratio_512: 0.0,
        largest_excess: 0,
        worst: String::new(),
        above_twice: 0,
        hit: BTreeMap::new(),
        walked: BTreeMap::new(),
        failure_count: 0,
        failures: Vec::new(),
    };
    for_each_message(&mut m);
    let want: usize = expected.values().map(BTreeSet::len).sum();
    let mut missing = Vec::new();
    let mut found = 0;
    for (key, fields) in &expected {
        let hit = m.hit.get(key).cloned().unwrap_or_default();
        let walked = m.walked.get(key).cloned().unwrap_or_default();
        for f in fields {
            if hit.contains(f) {
                found += 1;
            } else {
                let why = if walked.contains(f) {
                    "never refused at its prefix"
                } else {
                    "not in any sample"
                };
                missing.push(format!("{} v{}: {f} ({why})", key.0, key.1));
            }
        }
    }
    let mut by_what: BTreeMap<What, usize> = BTreeMap::new();
    for (_, _, w, _) in &m.positions {
        *by_what.entry(*w).or_default() += 1;
    }
    println!(
        "{} messages, {} (message, version) pairs, {} samples ({} deeper); {} length prefixes \
         found, {} distinct (message, version, field) positions {by_what:?}; by kind {:?}",
        m.messages,
        m.pairs,
        m.samples,
        m.deep_samples,
        m.prefixes.values().sum::<usize>(),
        m.positions.len(),
        m.prefixes,
    );
    println!(
        "{} mutations decoded (owned and view): {} Ok (contract checked), {} refused at the prefix; \
         {found}/{want} string/bytes/records/array fields of the specs refused with their path; \
         largest allocation {} bytes, at most {:.2} × the input ({:.2} × for inputs of 512 bytes \
         or more)",
        m.mutations, m.ok, m.refused, m.largest_alloc, m.largest_ratio, m.largest_ratio_512,
    );
    println!(
        "{} mutations allocated above 2 × the input, by at most {} bytes: {}",
        m.above_twice, m.largest_excess, m.worst
    );
    assert!(
        m.failure_count == 0,
        "{} failures, the first:\n{}",
        m.failure_count,
        m.failures.join("\n")
    );
    assert!(
        missing.is_empty(),
        "{} length fields never hit:\n{}",
        missing.len(),
        missing
            .iter()
            .take(50)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
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

/// The largest single allocation a decoder may make for `input_len` bytes of *any* input:
/// `max(2 × input_len × E, SLACK)`, E the largest element struct (`element_structs`).
///
/// [`alloc_bound`] (twice the input) holds for what a length claim reserves, and the
/// hostile-length test keeps it there. Random inputs can also hold many real elements, and an
/// element may take far more memory than its wire form: an unknown tagged field of 2 bytes (tag,
/// size 0) is a 40-byte `RawTaggedField`, a 1-byte compact string a 32-byte `KStr`, and a struct
/// holds the fields of every version, also those its version leaves off the wire. That memory
/// follows what was actually decoded, not what a length claimed (Kafka's Java decoders make the
/// same trade: one object per decoded element, a claim checked against the bytes left). An array
/// holds at most one element per byte left (the count check), and a `Vec` at most doubles its
/// length: no `Vec` exceeds 2 × input × E. A trusted claim (2^31 elements) would still be far
/// above.
fn any_input_bound(input_len: usize) -> usize {
    static LARGEST: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let e = *LARGEST.get_or_init(|| {
        element_structs()
            .into_iter()
            .map(|(_, size)| size)
            .chain([std::mem::size_of::<kwire_protocol::wire::RawTaggedField>()])
            .max()
            .unwrap_or(0)
    });
    (2 * input_len * e).max(SLACK)
}

thread_local! {
    /// The largest allocation / input ratio `bounded` saw on this thread, with the sizes.
    static WORST: Cell<(f64, usize, usize)> = const { Cell::new((0.0, 0, 0)) };
}

/// Runs the decode `f` of input `b`, measuring: what it returned, or an error when it made an
/// allocation above [`any_input_bound`].
fn bounded<R>(b: &Bytes, f: impl FnOnce() -> R) -> Result<R, String> {
    let (r, a) = measure(f);
    let ratio = a.largest as f64 / b.len().max(1) as f64;
    if a.largest > SLACK && ratio > WORST.with(Cell::get).0 {
        WORST.with(|w| w.set((ratio, a.largest, b.len())));
    }
    if a.largest > any_input_bound(b.len()) {
        return Err(format!(
            "allocated {} bytes at once for {} bytes of input",
            a.largest,
            b.len()
        ));
    }
    Ok(r)
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
        fn visit<T: Viewed>(&mut self) {
            for v in versions::<T>() {
                let b = self.b.clone();
                self.run(T::NAME, || {
                    let owned = match bounded(&b, || T::decode_bytes(b.clone(), v)) {
                        Ok(r) => r,
                        Err(e) => return Some(Err(format!("{} v{v}: {e}", T::NAME))),
                    };
                    // The view agrees: the same value, or the same error at the same offset.
                    let same = match (&owned, &T::view(&b, v)) {
                        (Ok(m), Ok(w)) => m == w,
                        (Err(x), Err(y)) => x.kind() == y.kind() && x.offset() == y.offset(),
                        _ => false,
                    };
                    if !same {
                        return Some(Err(format!(
                            "{} v{v}: the view disagrees with owned decoding",
                            T::NAME
                        )));
                    }
                    owned.ok().map(|m| contract_message(&m, &b, v))
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
        match bounded(b, || RequestFrame::decode(b.clone())) {
            Ok(r) => r.ok().map(|f| contract_request(&f, b)),
            Err(e) => Some(Err(format!("request frame: {e}"))),
        }
    });
    for &api in ApiKey::ALL {
        for v in api_versions(api) {
            all.run("ResponseFrame::decode", || {
                match bounded(b, || ResponseFrame::decode(b.clone(), api, v)) {
                    Ok(r) => r.ok().map(|f| contract_response(&f, b, api, v)),
                    Err(e) => Some(Err(format!("{} v{v} response frame: {e}", api.name()))),
                }
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
    impl MessageVisitor for Frames {
        fn visit<T: Viewed>(&mut self) {
            for v in versions::<T>() {
                for &(mode, seed) in &SAMPLES[..2] {
                    let m = sample::<T>(mode, seed, v);
                    if let Some(q) = as_request(&m, v) {
                        let q = RequestFrame::new(q, v, 7, Some("kwire"));
                        self.0.push(q.to_bytes().expect("request frame").to_vec());
                    }
                    if let Some(p) = as_response(&m, v) {
                        let p = ResponseFrame::new(p, 7);
                        self.0.push(p.to_bytes(v).expect("response frame").to_vec());
                    }
                }
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
    for_each_message(&mut f);
    f.0
}

#[test]
fn encoder_frames_are_fixed_points() {
    // Frames written by our encoder, for every API at every version: encode(decode(b)) == b
    // exactly.
    struct Exact(usize, BTreeSet<(i16, i16)>);
    impl MessageVisitor for Exact {
        fn visit<T: Viewed>(&mut self) {
            for v in versions::<T>() {
                for &(mode, seed) in SAMPLES {
                    let m = sample::<T>(mode, seed, v);
                    if let Some(q) = as_request(&m, v) {
                        let q = RequestFrame::new(q, v, 9, Some("kwire"));
                        let b = q.to_bytes().unwrap();
                        let back = RequestFrame::decode(b.clone()).unwrap();
                        assert_eq!(back, q);
                        assert_eq!(back.to_bytes().unwrap(), b, "{} v{v}", T::NAME);
                        self.0 += 1;
                        self.1.insert((q.header.request_api_key, v));
                    }
                    if let Some(p) = as_response(&m, v) {
                        let api = p.api_key();
                        let p = ResponseFrame::new(p, 9);
                        let b = p.to_bytes(v).unwrap();
                        let back = ResponseFrame::decode(b.clone(), api, v).unwrap();
                        assert_eq!(back, p);
                        assert_eq!(back.to_bytes(v).unwrap(), b, "{} v{v}", T::NAME);
                        self.0 += 1;
                    }
                }
            }
        }
    }
    let mut exact = Exact(0, BTreeSet::new());
    for_each_message(&mut exact);
    let every: BTreeSet<(i16, i16)> = ApiKey::ALL
        .iter()
        .flat_map(|&a| api_versions(a).map(move |v| (a.as_i16(), v)))
        .collect();
    assert_eq!(
        exact.1, every,
        "a request frame of every API at every version"
    );
    println!(
        "{} encoder frames exact, {} (API, version) pairs",
        exact.0,
        every.len()
    );
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

/// Written over the bytes at a position by [`Edit::Huge`] (same length): huge and negative int32
/// and int16 lengths, and single bytes that turn a 1-byte compact length into a large one or into
/// the start of a longer varint.
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

/// Put in place of the byte at a position by [`Edit::Huge`]: 5-byte and shorter uvarints.
const VARINTS: &[&[u8]] = &[
    &[0xff, 0xff, 0xff, 0xff, 0x0f], // u32::MAX: negative as a Java int, null
    &[0xff, 0xff, 0xff, 0xff, 0x07], // i32::MAX: length 2^31-2
    &[0x80, 0x80, 0x80, 0x80, 0x08], // 2^31: length 2^31-1, as Java reads it
    &[0xff, 0xff, 0xff, 0xff, 0x8f], // a 6th byte would follow: VarintTooLong
    &[0x80, 0x80, 0x04],             // 65536: a string over 32767, an array over the bytes left
];

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
    let (ratio, largest, len) = WORST.with(Cell::get);
    println!(
        "largest allocation above {SLACK} bytes relative to its input: {largest} bytes for {len} \
         bytes ({ratio:.2} ×)"
    );
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
