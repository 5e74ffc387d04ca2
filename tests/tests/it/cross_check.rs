//! Cross-check of kwire's codecs against an independent implementation, the `kafka-protocol`
//! crate (crates.io).
//!
//! * **0.15.1 (Kafka 3.9)** against kwire's code for Kafka 3.9.0's own `clients` specs (built by
//!   tests/build.rs into `$OUT_DIR/kafka390.rs`, with samples on): every message both sides have
//!   (requests, responses, the two headers and the clients data messages), at every version both
//!   support.
//! * **0.18.0 (Kafka 4.1)** against `kwire_protocol::generated` (the committed code of
//!   `schemas/`, Kafka 4.4.0): all 185 messages both have (every API of Kafka 4.1 but the removed
//!   stubs, the headers, the clients data messages), at every version both support (597 pairs);
//!   a few versions newer than 3.9.0 (Metadata v13, ConsumerGroupHeartbeat v1,
//!   ConsumerGroupDescribe v1) are also checked with hand-built values.
//!
//! Directions:
//! * (a) kwire samples (`Full`, `Nulls`, `Random`; several seeds) → kwire bytes → their decode →
//!   their encode → the same bytes.
//! * (b) messages built with their API → their bytes → kwire decode → kwire encode → the same
//!   bytes: their `Default` at every version, and hand-built messages (records batches made by
//!   their record encoder, known tagged fields set, nulls, nullable structs, uuids, unknown tags).
//! * (c) the two `Default`s encode to the same bytes (null vs empty defaults, default values).
//!
//! A disagreement fails with both byte strings in hex, the first differing byte with the kwire
//! field that covers it, and the first differing line of kwire's `Debug` of both sides.
//!
//! Also: value checks on the hand-built messages (byte agreement alone cannot see two same-typed
//! fields read in swapped order), kwire-built values of the post-3.9.0 fields read back by
//! 0.18.0, and fields a version lacks (ignorable dropped, non-ignorable refused, by both).
//!
//! # Disagreements found, with attribution
//!
//! No disagreement on the wire bytes of any (message, version) both sides support: every kwire
//! sample, every `Default` and every hand-built message agreed byte for byte (0.15.1: 633 of 633
//! API (message, version) pairs; 0.18.0: 597 of 597 (message, version) pairs). What differs
//! is kafka-protocol's, each excluded by its exact case with the rule named where it is handled:
//!
//! 1. kafka-protocol (0.15.1 and 0.18.0) is wrong: LeaderChangeMessage and VotersRecord (data messages, not APIs) have
//!    a field named `Version`, which their decoder binds to a local that shadows the version
//!    argument, so nested structs are decoded at the field's value (see [`pairs_015`]). Rule:
//!    every struct of a message is read at the message's version (as the `read` methods of Kafka's
//!    generated `…Data` classes pass their `_version` down). Handled by
//!    giving those samples `version` = the message version; everything else stays random.
//! 2. kafka-protocol is wrong: unknown tagged fields set on a message written at a non-flexible
//!    version are dropped silently; Kafka's generated `write` refuses them with
//!    `UnsupportedVersionException`, as kwire does (see
//!    [`absent_fields_015`]).
//! 3. kafka-protocol 0.15.1's `ApiKey::iter()` stops at the first unassigned key (76), leaving
//!    out keys 80-82; their total below is computed from `ApiKey::try_from` instead.
//!
//! Not reachable through kafka-protocol (it lacks the test messages that hold them): a nullable
//! *tagged* struct, and a tagged nullable field whose default is not null (Kafka's generator
//! writes a tagged field only when its value differs from the field's default); the
//! corpus run covers those on kwire's side alone.

use bytes::Bytes;
use kwire_protocol::wire::sample::{Sample, SampleGen, SampleMode};
use kwire_protocol::wire::{Encode, Message};
use kwire_tests::hex;
use std::fmt::Write as _;

#[cfg(kwire_shared)]
use kwire_tests::kafka390 as k390;

type R<T> = Result<T, String>;

/// The samples each (message, version) gets in direction (a).
const SAMPLES: &[(SampleMode, u64)] = &[
    (SampleMode::Full, 1),
    (SampleMode::Full, 2),
    (SampleMode::Nulls, 3),
    (SampleMode::Random, 4),
    (SampleMode::Random, 5),
    (SampleMode::Random, 6),
    (SampleMode::Random, 7),
];

// ---------------------------------------------------------------------------------------------
// kwire's side, generic over the generated types.

fn our_sample<O: Message + Sample>(seed: u64, mode: SampleMode, v: i16) -> R<Bytes> {
    let mut g = SampleGen::new(seed, mode);
    O::sample(&mut g, v)
        .to_bytes(v)
        .map_err(|e| format!("kwire encode of its own sample: {e}"))
}

fn our_roundtrip<O: Message>(b: Bytes, v: i16) -> R<Bytes> {
    let m = O::decode_bytes(b, v).map_err(|e| format!("kwire decode: {e}"))?;
    m.to_bytes(v).map_err(|e| format!("kwire re-encode: {e}"))
}

fn our_debug<O: Message>(b: Bytes, v: i16) -> R<String> {
    O::decode_bytes(b, v)
        .map(|m| format!("{m:#?}"))
        .map_err(|e| format!("kwire decode: {e}"))
}

/// Which kwire field covers byte `off`: decode the first `off` bytes; the error names the field
/// whose read needed byte `off`.
fn our_field_at<O: Message>(b: Bytes, v: i16, off: usize) -> String {
    match O::decode_bytes(b.slice(..off.min(b.len())), v) {
        Err(e) => e.to_string(),
        Ok(_) => "(the first bytes decode as a whole message)".into(),
    }
}

fn our_default<O: Message>(v: i16) -> R<Bytes> {
    O::default()
        .to_bytes(v)
        .map_err(|e| format!("kwire encode of Default: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Their side: the same helpers for each crate version (their traits differ per version).

macro_rules! their_side {
    ($m:ident, $kp:ident) => {
        mod $m {
            use super::R;
            use bytes::{Buf, Bytes, BytesMut};
            use $kp::protocol::{Decodable, Encodable, Message};

            pub fn versions<T: Message>() -> (i16, i16) {
                (T::VERSIONS.min, T::VERSIONS.max)
            }

            pub fn encode<T: Encodable>(t: &T, v: i16) -> R<Bytes> {
                let mut out = BytesMut::new();
                t.encode(&mut out, v)
                    .map_err(|e| format!("kafka-protocol encode: {e:#}"))?;
                Ok(out.freeze())
            }

            /// Their decode of `b` (all of it) then their encode.
            pub fn roundtrip<T: Encodable + Decodable>(b: Bytes, v: i16) -> R<Bytes> {
                let mut buf = b.clone();
                let t =
                    T::decode(&mut buf, v).map_err(|e| format!("kafka-protocol decode: {e:#}"))?;
                if buf.has_remaining() {
                    return Err(format!(
                        "kafka-protocol decode left {} of {} bytes unread",
                        buf.remaining(),
                        b.len()
                    ));
                }
                encode(&t, v)
            }

            pub fn default<T: Encodable + Default>(v: i16) -> R<Bytes> {
                encode(&T::default(), v)
            }
        }
    };
}
#[cfg(kwire_shared)]
their_side!(kp015, kafka_protocol);
their_side!(kp018, kafka_protocol_018);

// ---------------------------------------------------------------------------------------------
// One (kwire type, their type) pair, as function pointers so both crate versions share the driver.

#[derive(Clone, Copy)]
struct Pair {
    name: &'static str,
    ours: (i16, i16),
    theirs: (i16, i16),
    sample: fn(u64, SampleMode, i16) -> R<Bytes>,
    our_rt: fn(Bytes, i16) -> R<Bytes>,
    our_debug: fn(Bytes, i16) -> R<String>,
    our_field_at: fn(Bytes, i16, usize) -> String,
    our_default: fn(i16) -> R<Bytes>,
    their_rt: fn(Bytes, i16) -> R<Bytes>,
    their_default: fn(i16) -> R<Bytes>,
}

impl Pair {
    fn common_versions(&self) -> std::ops::RangeInclusive<i16> {
        self.ours.0.max(self.theirs.0)..=self.ours.1.min(self.theirs.1)
    }
}

macro_rules! pairs {
    ($ours:path, $theirs:path, $side:ident; $($name:ident),* $(,)?) => {{
        use $ours as o;
        use $theirs as t;
        vec![$(Pair {
            name: stringify!($name),
            ours: {
                let r = <o::$name as Message>::VALID_VERSIONS;
                (r.lowest, r.highest)
            },
            theirs: $side::versions::<t::$name>(),
            sample: our_sample::<o::$name>,
            our_rt: our_roundtrip::<o::$name>,
            our_debug: our_debug::<o::$name>,
            our_field_at: our_field_at::<o::$name>,
            our_default: our_default::<o::$name>,
            their_rt: $side::roundtrip::<t::$name>,
            their_default: $side::default::<t::$name>,
        }),*]
    }};
}

/// What one run found.
#[derive(Default)]
struct Outcome {
    /// (message, version) pairs on which at least one check ran and every check agreed (or was
    /// excluded by a documented rule).
    covered: Vec<(&'static str, i16)>,
    checks: usize,
    /// Checks per direction: (a) samples, (b) their Default, (c) Defaults compared, built.
    by_direction: [usize; 4],
    /// (message, version) where their `Default` cannot be encoded (so (b) and (c) did not run).
    their_default_unencodable: Vec<String>,
    excluded: Vec<String>,
    failures: Vec<String>,
}

/// The place for exact cases to leave out of [`run`], each with the rule that says which side is
/// right. `what` is the direction: "a" (kwire sample), "b" (their Default), "c" (the two Defaults
/// compared). Empty: no (message, version, direction) of `run` disagrees at present (the two
/// kafka-protocol faults found are handled where they arise, see the module docs).
fn excluded(crate_version: &str, name: &str, version: i16, what: &str) -> Option<&'static str> {
    let _ = (crate_version, name, version, what);
    None
}

/// The first line where two pretty `Debug` texts differ, with the field path leading to it.
fn first_debug_difference(a: &str, b: &str) -> Option<String> {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let i = (0..la.len().max(lb.len())).find(|&i| la.get(i) != lb.get(i))?;
    // The path: for each indentation level above the differing line, the last opening line.
    let mut path: Vec<String> = Vec::new();
    for line in &la[..i.min(la.len())] {
        let depth = (line.len() - line.trim_start().len()) / 4;
        path.truncate(depth);
        let t = line.trim();
        if t.ends_with('{') || t.ends_with('[') || t.ends_with('(') {
            path.push(
                t.trim_end_matches(['{', '[', '('])
                    .trim()
                    .trim_end_matches(':')
                    .to_string(),
            );
        }
    }
    let depth = la
        .get(i)
        .map_or(0, |l| (l.len() - l.trim_start().len()) / 4);
    path.truncate(depth);
    Some(format!(
        "first differing field (kwire's Debug, line {}): {}\n      kwire bytes: {}\n      their bytes: {}",
        i + 1,
        path.iter().filter(|s| !s.is_empty()).cloned().collect::<Vec<_>>().join(" > "),
        la.get(i).map_or("(end)", |s| s.trim()),
        lb.get(i).map_or("(end)", |s| s.trim()),
    ))
}

/// A disagreement report: both byte strings, where they first differ, and which field.
fn describe(p: &Pair, v: i16, ours: &Bytes, theirs: &Bytes) -> String {
    let mut s = String::new();
    let off = ours
        .iter()
        .zip(theirs.iter())
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    let _ = writeln!(s, "    kwire bytes ({}): {}", ours.len(), hex(ours));
    let _ = writeln!(s, "    their bytes ({}): {}", theirs.len(), hex(theirs));
    let _ = writeln!(s, "    first differing byte: offset {off}");
    let _ = writeln!(
        s,
        "    kwire field at that offset (kwire bytes): {}",
        (p.our_field_at)(ours.clone(), v, off)
    );
    let _ = writeln!(
        s,
        "    kwire field at that offset (their bytes): {}",
        (p.our_field_at)(theirs.clone(), v, off)
    );
    match (
        (p.our_debug)(ours.clone(), v),
        (p.our_debug)(theirs.clone(), v),
    ) {
        (Ok(a), Ok(b)) => match first_debug_difference(&a, &b) {
            Some(d) => {
                let _ = writeln!(s, "    {d}");
            }
            None => {
                let _ = writeln!(s, "    both decode (kwire) to equal values");
            }
        },
        (a, b) => {
            let _ = writeln!(
                s,
                "    kwire decode of kwire bytes: {}",
                a.err().unwrap_or_else(|| "ok".into())
            );
            let _ = writeln!(
                s,
                "    kwire decode of their bytes: {}",
                b.err().unwrap_or_else(|| "ok".into())
            );
        }
    }
    s
}

/// Runs directions (a), (b: Default) and (c) on every pair at every common version.
fn run(crate_version: &str, pairs: &[Pair], out: &mut Outcome) {
    for p in pairs {
        for v in p.common_versions() {
            let mut ran = false;
            let mut bad = false;
            let fail = |what: &str, msg: String, out: &mut Outcome| {
                if let Some(rule) = excluded(crate_version, p.name, v, what) {
                    out.excluded
                        .push(format!("{} v{v} ({what}): {rule}", p.name));
                    false
                } else {
                    out.failures
                        .push(format!("[{crate_version}] {} v{v} ({what}): {msg}", p.name));
                    true
                }
            };
            // (a) kwire samples → their decode → their encode.
            for &(mode, seed) in SAMPLES {
                let ours = match (p.sample)(seed, mode, v) {
                    Ok(b) => b,
                    Err(e) => {
                        bad |= fail("a", format!("{mode:?} seed {seed}: {e}"), out);
                        continue;
                    }
                };
                out.checks += 1;
                out.by_direction[0] += 1;
                ran = true;
                match (p.their_rt)(ours.clone(), v) {
                    Ok(theirs) if theirs == ours => {}
                    Ok(theirs) => {
                        bad |= fail(
                            "a",
                            format!(
                                "{mode:?} seed {seed}: their re-encode differs\n{}",
                                describe(p, v, &ours, &theirs)
                            ),
                            out,
                        );
                    }
                    Err(e) => {
                        let dbg = (p.our_debug)(ours.clone(), v).unwrap_or_default();
                        bad |= fail(
                            "a",
                            format!(
                                "{mode:?} seed {seed}: {e}\n    kwire bytes: {}\n    kwire value: {dbg}",
                                hex(&ours)
                            ),
                            out,
                        );
                    }
                }
            }
            // (b) their Default → kwire decode → kwire encode.
            let theirs_default = (p.their_default)(v);
            if let Err(e) = &theirs_default {
                out.their_default_unencodable
                    .push(format!("{} v{v}: {e}", p.name));
            }
            if let Ok(theirs) = &theirs_default {
                out.checks += 1;
                out.by_direction[1] += 1;
                ran = true;
                match (p.our_rt)(theirs.clone(), v) {
                    Ok(again) if again == *theirs => {}
                    Ok(again) => {
                        bad |= fail(
                            "b",
                            format!(
                                "kwire re-encode differs\n{}",
                                describe(p, v, &again, theirs)
                            ),
                            out,
                        );
                    }
                    Err(e) => {
                        bad |= fail("b", format!("{e}\n    their bytes: {}", hex(theirs)), out);
                    }
                }
            }
            // (c) the two Defaults encode alike (when both can be encoded at this version).
            if let (Ok(theirs), Ok(ours)) = (&theirs_default, (p.our_default)(v)) {
                out.checks += 1;
                out.by_direction[2] += 1;
                if ours != *theirs {
                    bad |= fail(
                        "c",
                        format!(
                            "the Defaults encode differently\n{}",
                            describe(p, v, &ours, theirs)
                        ),
                        out,
                    );
                }
            }
            if ran && !bad {
                out.covered.push((p.name, v));
            }
        }
    }
}

/// One hand-built message: their value's bytes at `v` → kwire decode → kwire encode.
fn check_built(
    crate_version: &str,
    label: &str,
    p: &Pair,
    v: i16,
    theirs: R<Bytes>,
    out: &mut Outcome,
) {
    out.checks += 1;
    out.by_direction[3] += 1;
    let theirs = match theirs {
        Ok(b) => b,
        Err(e) => {
            out.failures.push(format!(
                "[{crate_version}] built {label} v{v}: their encode failed: {e}"
            ));
            return;
        }
    };
    match (p.our_rt)(theirs.clone(), v) {
        Ok(again) if again == theirs => {}
        Ok(again) => out.failures.push(format!(
            "[{crate_version}] built {label} v{v}: kwire re-encode differs\n{}",
            describe(p, v, &again, &theirs)
        )),
        Err(e) => out.failures.push(format!(
            "[{crate_version}] built {label} v{v}: {e}\n    their bytes: {}",
            hex(&theirs)
        )),
    }
}

/// A value check on a hand-built message after kwire decoded it (byte agreement alone would not
/// notice two same-typed fields read in swapped order).
fn check_value(crate_version: &str, label: &str, ok: bool, detail: String, out: &mut Outcome) {
    out.checks += 1;
    if !ok {
        out.failures.push(format!(
            "[{crate_version}] {label}: value check failed: {detail}"
        ));
    }
}

/// kwire's decode of bytes their encoder made (`None` when either side failed, which
/// [`check_built`] has already reported).
fn ours<O: Message>(theirs: &R<Bytes>, v: i16) -> Option<O> {
    O::decode_bytes(theirs.as_ref().ok()?.clone(), v).ok()
}

fn finish(crate_version: &str, out: &Outcome) {
    let [a, b, c, built] = out.by_direction;
    println!(
        "[{crate_version}] checks: (a) {a} kwire samples through their codec, (b) {b} of their \
         Defaults and {built} hand-built messages (+ value checks) through kwire, (c) {c} Defaults compared"
    );
    if !out.their_default_unencodable.is_empty() {
        println!(
            "[{crate_version}] their Default does not encode at {} (message, version): {}",
            out.their_default_unencodable.len(),
            out.their_default_unencodable.join("; ")
        );
    }
    for e in &out.excluded {
        println!("[{crate_version}] excluded: {e}");
    }
    if !out.failures.is_empty() {
        let heads: Vec<&str> = out
            .failures
            .iter()
            .filter_map(|s| s.lines().next())
            .collect();
        let shown: Vec<&str> = out.failures.iter().take(6).map(String::as_str).collect();
        panic!(
            "[{crate_version}] {} disagreement(s) between kwire and kafka-protocol:\n{}\n\nthe first {} in full:\n{}",
            out.failures.len(),
            heads.join("\n"),
            shown.len(),
            shown.join("\n")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// kafka-protocol 0.15.1 against Kafka 3.9.0's clients specs.

#[cfg(kwire_shared)]
fn pairs_015() -> (Vec<Pair>, Vec<Pair>, Vec<Pair>) {
    let requests = pairs!(k390, kafka_protocol::messages, kp015;
        ProduceRequest, FetchRequest, ListOffsetsRequest, MetadataRequest, LeaderAndIsrRequest,
        StopReplicaRequest, UpdateMetadataRequest, ControlledShutdownRequest, OffsetCommitRequest,
        OffsetFetchRequest, FindCoordinatorRequest, JoinGroupRequest, HeartbeatRequest,
        LeaveGroupRequest, SyncGroupRequest, DescribeGroupsRequest, ListGroupsRequest,
        SaslHandshakeRequest, ApiVersionsRequest, CreateTopicsRequest, DeleteTopicsRequest,
        DeleteRecordsRequest, InitProducerIdRequest, OffsetForLeaderEpochRequest,
        AddPartitionsToTxnRequest, AddOffsetsToTxnRequest, EndTxnRequest, WriteTxnMarkersRequest,
        TxnOffsetCommitRequest, DescribeAclsRequest, CreateAclsRequest, DeleteAclsRequest,
        DescribeConfigsRequest, AlterConfigsRequest, AlterReplicaLogDirsRequest,
        DescribeLogDirsRequest, SaslAuthenticateRequest, CreatePartitionsRequest,
        CreateDelegationTokenRequest, RenewDelegationTokenRequest, ExpireDelegationTokenRequest,
        DescribeDelegationTokenRequest, DeleteGroupsRequest, ElectLeadersRequest,
        IncrementalAlterConfigsRequest, AlterPartitionReassignmentsRequest,
        ListPartitionReassignmentsRequest, OffsetDeleteRequest, DescribeClientQuotasRequest,
        AlterClientQuotasRequest, DescribeUserScramCredentialsRequest,
        AlterUserScramCredentialsRequest, VoteRequest, BeginQuorumEpochRequest,
        EndQuorumEpochRequest, DescribeQuorumRequest, AlterPartitionRequest, UpdateFeaturesRequest,
        EnvelopeRequest, FetchSnapshotRequest, DescribeClusterRequest, DescribeProducersRequest,
        BrokerRegistrationRequest, BrokerHeartbeatRequest, UnregisterBrokerRequest,
        DescribeTransactionsRequest, ListTransactionsRequest, AllocateProducerIdsRequest,
        ConsumerGroupHeartbeatRequest, ConsumerGroupDescribeRequest, ControllerRegistrationRequest,
        GetTelemetrySubscriptionsRequest, PushTelemetryRequest, AssignReplicasToDirsRequest,
        ListClientMetricsResourcesRequest, DescribeTopicPartitionsRequest, AddRaftVoterRequest,
        RemoveRaftVoterRequest, UpdateRaftVoterRequest,
    );
    let responses = pairs!(k390, kafka_protocol::messages, kp015;
        ProduceResponse, FetchResponse, ListOffsetsResponse, MetadataResponse, LeaderAndIsrResponse,
        StopReplicaResponse, UpdateMetadataResponse, ControlledShutdownResponse,
        OffsetCommitResponse, OffsetFetchResponse, FindCoordinatorResponse, JoinGroupResponse,
        HeartbeatResponse, LeaveGroupResponse, SyncGroupResponse, DescribeGroupsResponse,
        ListGroupsResponse, SaslHandshakeResponse, ApiVersionsResponse, CreateTopicsResponse,
        DeleteTopicsResponse, DeleteRecordsResponse, InitProducerIdResponse,
        OffsetForLeaderEpochResponse, AddPartitionsToTxnResponse, AddOffsetsToTxnResponse,
        EndTxnResponse, WriteTxnMarkersResponse, TxnOffsetCommitResponse, DescribeAclsResponse,
        CreateAclsResponse, DeleteAclsResponse, DescribeConfigsResponse, AlterConfigsResponse,
        AlterReplicaLogDirsResponse, DescribeLogDirsResponse, SaslAuthenticateResponse,
        CreatePartitionsResponse, CreateDelegationTokenResponse, RenewDelegationTokenResponse,
        ExpireDelegationTokenResponse, DescribeDelegationTokenResponse, DeleteGroupsResponse,
        ElectLeadersResponse, IncrementalAlterConfigsResponse, AlterPartitionReassignmentsResponse,
        ListPartitionReassignmentsResponse, OffsetDeleteResponse, DescribeClientQuotasResponse,
        AlterClientQuotasResponse, DescribeUserScramCredentialsResponse,
        AlterUserScramCredentialsResponse, VoteResponse, BeginQuorumEpochResponse,
        EndQuorumEpochResponse, DescribeQuorumResponse, AlterPartitionResponse,
        UpdateFeaturesResponse, EnvelopeResponse, FetchSnapshotResponse, DescribeClusterResponse,
        DescribeProducersResponse, BrokerRegistrationResponse, BrokerHeartbeatResponse,
        UnregisterBrokerResponse, DescribeTransactionsResponse, ListTransactionsResponse,
        AllocateProducerIdsResponse, ConsumerGroupHeartbeatResponse, ConsumerGroupDescribeResponse,
        ControllerRegistrationResponse, GetTelemetrySubscriptionsResponse, PushTelemetryResponse,
        AssignReplicasToDirsResponse, ListClientMetricsResourcesResponse,
        DescribeTopicPartitionsResponse, AddRaftVoterResponse, RemoveRaftVoterResponse,
        UpdateRaftVoterResponse,
    );
    // Headers, then the clients data messages (not API pairs; checked as a bonus).
    let others = pairs!(k390, kafka_protocol::messages, kp015;
        RequestHeader, ResponseHeader,
        ConsumerProtocolAssignment, ConsumerProtocolSubscription, DefaultPrincipalData,
        KRaftVersionRecord, LeaderChangeMessage, SnapshotFooterRecord, SnapshotHeaderRecord,
        VotersRecord,
    );
    // Disagreement 1 (kafka-protocol is wrong): LeaderChangeMessage and VotersRecord have a field
    // named `Version`, and kafka-protocol's generated decoder binds it to a local that shadows the
    // `version` argument (`let version = types::Int16.decode(buf)?;`), so the nested `Voter`
    // structs that follow are decoded at the *field's* value instead of the message version
    // (failing "specified version not supported", or misreading `VoterDirectoryId` /
    // `Endpoints`). Kafka decodes nested structs at the message version (its generated `read`
    // methods pass the message's `_version` to every nested struct). Exact exclusion: in
    // direction (a) these two samples get `version` = the message version, which their decoder
    // then reads correctly; every other field stays random and asserted.
    let mut others = others;
    pin_version_fields(&mut others, leader_change_sample, voters_record_sample);
    (requests, responses, others)
}

/// Disagreement 1's exact exclusion (see [`pairs_015`]): LeaderChangeMessage and VotersRecord
/// samples get their `Version` field set to the message version.
fn pin_version_fields(pairs: &mut [Pair], leader_change: SampleFn, voters: SampleFn) {
    for p in pairs {
        match p.name {
            "LeaderChangeMessage" => p.sample = leader_change,
            "VotersRecord" => p.sample = voters,
            _ => {}
        }
    }
}

type SampleFn = fn(u64, SampleMode, i16) -> R<Bytes>;

/// A sampler of `$t` whose `version` field holds the message version (disagreement 1).
macro_rules! version_pinned_sample {
    ($f:ident, $t:ty) => {
        fn $f(seed: u64, mode: SampleMode, v: i16) -> R<Bytes> {
            let mut m = <$t>::sample(&mut SampleGen::new(seed, mode), v);
            m.version = v;
            m.to_bytes(v).map_err(|e| e.to_string())
        }
    };
}
#[cfg(kwire_shared)]
version_pinned_sample!(leader_change_sample, k390::LeaderChangeMessage);
#[cfg(kwire_shared)]
version_pinned_sample!(voters_record_sample, k390::VotersRecord);
version_pinned_sample!(
    leader_change_sample_018,
    kwire_protocol::generated::LeaderChangeMessage
);
version_pinned_sample!(
    voters_record_sample_018,
    kwire_protocol::generated::VotersRecord
);

/// Messages built directly with kafka-protocol 0.15.1's API, one per interesting wire feature.
#[cfg(kwire_shared)]
fn built_015(all: &[Pair], out: &mut Outcome) {
    use bytes::BytesMut;
    use kafka_protocol::indexmap::IndexMap;
    use kafka_protocol::messages::*;
    use kafka_protocol::protocol::StrBytes;
    use kafka_protocol::records::{
        Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType,
    };
    use kp015::encode;
    let pair = |n: &str| {
        *all.iter()
            .find(|p| p.name == n)
            .unwrap_or_else(|| panic!("no pair {n}"))
    };
    let s = |x: &'static str| StrBytes::from_static_str(x);
    let topic = |x: &'static str| TopicName(s(x));
    let uid = uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    const V: &str = "0.15.1";

    // A record batch (magic 2) made by their record encoder, for Produce and Fetch.
    let records = {
        let mut headers = IndexMap::new();
        headers.insert(s("h"), Some(Bytes::from_static(b"v")));
        let rec = |offset: i64, value: Option<&'static [u8]>| Record {
            transactional: false,
            control: false,
            partition_leader_epoch: 3,
            producer_id: -1,
            producer_epoch: -1,
            timestamp_type: TimestampType::Creation,
            offset,
            sequence: -1,
            timestamp: 1_700_000_000_000 + offset,
            key: Some(Bytes::from_static(b"key")),
            value: value.map(Bytes::from_static),
            headers: headers.clone(),
        };
        let recs = vec![rec(0, Some(b"hello")), rec(1, None)];
        let mut buf = BytesMut::new();
        RecordBatchEncoder::encode(
            &mut buf,
            &recs,
            &RecordEncodeOptions {
                version: 2,
                compression: Compression::None,
            },
        )
        .expect("their record encoder");
        buf.freeze()
    };

    // Produce: records, nullable transactional_id null and set.
    let p = pair("ProduceRequest");
    for v in 3..=11 {
        let mut part = produce_request::PartitionProduceData::default();
        part.index = 7;
        part.records = Some(records.clone());
        let mut t = produce_request::TopicProduceData::default();
        t.name = topic("orders");
        t.partition_data = vec![part];
        let mut m = ProduceRequest::default();
        m.transactional_id = if v % 2 == 0 {
            None
        } else {
            Some(TransactionalId(s("tx-1")))
        };
        m.acks = -1;
        m.timeout_ms = 30_000;
        m.topic_data = vec![t];
        if v >= 9 {
            m.unknown_tagged_fields
                .insert(7, Bytes::from_static(b"\x01\x02"));
        }
        check_built(
            V,
            "ProduceRequest(records, unknown tag)",
            &p,
            v,
            encode(&m, v),
            out,
        );
    }

    // Fetch request: tagged cluster_id (nullable string, default null) and replica_state (struct).
    let p = pair("FetchRequest");
    for v in 12..=17 {
        let mut m = FetchRequest::default();
        m.cluster_id = Some(s("cluster-é"));
        m.max_wait_ms = 500;
        if v >= 15 {
            m.replica_state.replica_id = BrokerId(3);
            m.replica_state.replica_epoch = 9;
        } else {
            m.replica_id = BrokerId(-1);
        }
        let mut part = fetch_request::FetchPartition::default();
        part.partition = 1;
        part.fetch_offset = 42;
        if v >= 17 {
            part.replica_directory_id = uid;
        }
        let mut t = fetch_request::FetchTopic::default();
        if v >= 13 {
            t.topic_id = uid;
        } else {
            t.topic = topic("orders");
        }
        t.partitions = vec![part];
        m.topics = vec![t];
        m.rack_id = s("rack-1");
        let b = encode(&m, v);
        check_built(
            V,
            "FetchRequest(tagged cluster_id, replica_state)",
            &p,
            v,
            b.clone(),
            out,
        );
        if let Some(o) = ours::<k390::FetchRequest>(&b, v) {
            let ok = o.cluster_id.as_deref() == Some("cluster-é")
                && o.max_wait_ms == 500
                && o.rack_id == "rack-1"
                && (v < 15
                    || (o.replica_state.replica_id == 3 && o.replica_state.replica_epoch == 9))
                && o.topics[0].partitions[0].fetch_offset == 42;
            check_value(V, &format!("FetchRequest v{v}"), ok, format!("{o:?}"), out);
        }
    }

    // Fetch response: records, tagged diverging_epoch / current_leader / snapshot_id, node_endpoints.
    let p = pair("FetchResponse");
    for v in 4..=16 {
        let mut part = fetch_response::PartitionData::default();
        part.partition_index = 2;
        part.high_watermark = 100;
        part.records = Some(records.clone());
        part.aborted_transactions = if v % 2 == 0 {
            None
        } else {
            let mut a = fetch_response::AbortedTransaction::default();
            a.producer_id = ProducerId(77);
            a.first_offset = 5;
            Some(vec![a])
        };
        if v >= 12 {
            part.diverging_epoch.epoch = 4;
            part.diverging_epoch.end_offset = 90;
            part.current_leader.leader_id = BrokerId(1);
            part.current_leader.leader_epoch = 8;
            part.snapshot_id.end_offset = 11;
            part.snapshot_id.epoch = 2;
        }
        let mut t = fetch_response::FetchableTopicResponse::default();
        if v >= 13 {
            t.topic_id = uid;
        } else {
            t.topic = topic("orders");
        }
        t.partitions = vec![part];
        let mut m = FetchResponse::default();
        m.responses = vec![t];
        if v >= 16 {
            let mut n = fetch_response::NodeEndpoint::default();
            n.node_id = BrokerId(1);
            n.host = s("b1");
            n.port = 9092;
            n.rack = None;
            m.node_endpoints = vec![n];
        }
        let b = encode(&m, v);
        check_built(
            V,
            "FetchResponse(records, tagged structs, node_endpoints)",
            &p,
            v,
            b.clone(),
            out,
        );
        if let Some(o) = ours::<k390::FetchResponse>(&b, v) {
            let q = &o.responses[0].partitions[0];
            let ok = q.records.as_ref() == Some(&records)
                && q.high_watermark == 100
                && (v < 12
                    || (q.diverging_epoch.epoch == 4
                        && q.diverging_epoch.end_offset == 90
                        && q.current_leader.leader_id == 1
                        && q.current_leader.leader_epoch == 8
                        && q.snapshot_id.end_offset == 11
                        && q.snapshot_id.epoch == 2))
                && (v < 16
                    || (o.node_endpoints[0].port == 9092 && o.node_endpoints[0].rack.is_none()));
            check_value(V, &format!("FetchResponse v{v}"), ok, format!("{o:?}"), out);
        }
    }

    // ApiVersions response: tagged supported_features, finalized epoch and features, zk flag.
    let p = pair("ApiVersionsResponse");
    for v in 0..=4 {
        let mut k = api_versions_response::ApiVersion::default();
        k.api_key = 3;
        k.max_version = 12;
        let mut m = ApiVersionsResponse::default();
        m.api_keys = vec![k];
        if v >= 3 {
            let mut f = api_versions_response::SupportedFeatureKey::default();
            f.name = s("metadata.version");
            f.min_version = 1;
            f.max_version = 21;
            m.supported_features = vec![f];
            m.finalized_features_epoch = 5;
            let mut ff = api_versions_response::FinalizedFeatureKey::default();
            ff.name = s("metadata.version");
            ff.max_version_level = 21;
            ff.min_version_level = 21;
            m.finalized_features = vec![ff];
            m.zk_migration_ready = true;
        }
        let b = encode(&m, v);
        check_built(
            V,
            "ApiVersionsResponse(tagged features)",
            &p,
            v,
            b.clone(),
            out,
        );
        if let Some(o) = ours::<k390::ApiVersionsResponse>(&b, v) {
            let ok = o.api_keys[0].api_key == 3
                && o.api_keys[0].max_version == 12
                && (v < 3
                    || (o.supported_features[0].max_version == 21
                        && o.finalized_features_epoch == 5
                        && o.finalized_features[0].min_version_level == 21
                        && o.zk_migration_ready));
            check_value(
                V,
                &format!("ApiVersionsResponse v{v}"),
                ok,
                format!("{o:?}"),
                out,
            );
        }
    }

    // Metadata: null topics, uuid topic ids, nullable names, tagged unknowns at each level.
    let p = pair("MetadataRequest");
    for v in 1..=12 {
        let mut m = MetadataRequest::default();
        m.topics = None;
        check_built(V, "MetadataRequest(null topics)", &p, v, encode(&m, v), out);
    }
    let p = pair("MetadataResponse");
    for v in 0..=12 {
        let mut part = metadata_response::MetadataResponsePartition::default();
        part.partition_index = 0;
        part.leader_id = BrokerId(1);
        part.replica_nodes = vec![BrokerId(1), BrokerId(2)];
        part.isr_nodes = vec![BrokerId(1)];
        let mut t = metadata_response::MetadataResponseTopic::default();
        t.name = if v >= 12 { None } else { Some(topic("orders")) };
        if v >= 10 {
            t.topic_id = uid;
        }
        t.partitions = vec![part];
        let mut b = metadata_response::MetadataResponseBroker::default();
        b.node_id = BrokerId(1);
        b.host = s("h");
        b.port = 9092;
        b.rack = if v >= 1 { Some(s("r")) } else { None };
        if v >= 9 {
            b.unknown_tagged_fields.insert(0, Bytes::from_static(b"x"));
        }
        let mut m = MetadataResponse::default();
        m.brokers = vec![b];
        m.topics = vec![t];
        m.cluster_id = if v >= 2 { Some(s("c")) } else { None };
        check_built(
            V,
            "MetadataResponse(uuid, null name, unknown tag)",
            &p,
            v,
            encode(&m, v),
            out,
        );
    }

    // Consumer group heartbeat response: a non-tagged nullable struct (int8 marker), both ways.
    let p = pair("ConsumerGroupHeartbeatResponse");
    for present in [false, true] {
        let mut m = ConsumerGroupHeartbeatResponse::default();
        m.member_id = Some(s("m-1"));
        m.member_epoch = 3;
        m.heartbeat_interval_ms = 5000;
        if present {
            let mut tp = consumer_group_heartbeat_response::TopicPartitions::default();
            tp.topic_id = uid;
            tp.partitions = vec![0, 1, 2];
            let mut a = consumer_group_heartbeat_response::Assignment::default();
            a.topic_partitions = vec![tp];
            m.assignment = Some(a);
        }
        check_built(
            V,
            "ConsumerGroupHeartbeatResponse(nullable struct)",
            &p,
            0,
            encode(&m, 0),
            out,
        );
    }

    // Request header: null client id (int16 -1 even in v2), and an unknown tag in v2.
    let p = pair("RequestHeader");
    for v in 1..=2 {
        let mut m = RequestHeader::default();
        m.request_api_key = 3;
        m.request_api_version = 12;
        m.correlation_id = 99;
        m.client_id = None;
        if v == 2 {
            m.unknown_tagged_fields
                .insert(3, Bytes::from_static(b"abc"));
        }
        check_built(
            V,
            "RequestHeader(null client_id)",
            &p,
            v,
            encode(&m, v),
            out,
        );
    }

    // Join group: bytes metadata, nullable group_instance_id, nullable reason (tagged? no: v8+).
    let p = pair("JoinGroupRequest");
    for v in 0..=9 {
        let mut pr = join_group_request::JoinGroupRequestProtocol::default();
        pr.name = s("range");
        pr.metadata = Bytes::from_static(b"\x00\x01\x00\x00");
        let mut m = JoinGroupRequest::default();
        m.group_id = GroupId(s("g"));
        m.session_timeout_ms = 10_000;
        if v >= 1 {
            m.rebalance_timeout_ms = 20_000;
        }
        m.member_id = s("");
        m.protocol_type = s("consumer");
        m.protocols = vec![pr];
        if v >= 5 {
            m.group_instance_id = Some(s("inst"));
        }
        if v >= 8 {
            m.reason = Some(s("why"));
        }
        check_built(
            V,
            "JoinGroupRequest(bytes, nullable strings)",
            &p,
            v,
            encode(&m, v),
            out,
        );
    }

    // Describe quorum response: nested arrays, int64s, tagged-free flexible structs with nodes (v2).
    let p = pair("DescribeQuorumResponse");
    for v in 0..=2 {
        let mut r = describe_quorum_response::ReplicaState::default();
        r.replica_id = BrokerId(1);
        r.log_end_offset = 10;
        if v >= 1 {
            r.last_fetch_timestamp = 123;
            r.last_caught_up_timestamp = 120;
        }
        if v >= 2 {
            r.replica_directory_id = uid;
        }
        let mut part = describe_quorum_response::PartitionData::default();
        part.leader_id = BrokerId(1);
        part.leader_epoch = 2;
        part.high_watermark = 10;
        part.current_voters = vec![r.clone()];
        part.observers = vec![r];
        let mut t = describe_quorum_response::TopicData::default();
        t.topic_name = topic("__cluster_metadata");
        t.partitions = vec![part];
        let mut m = DescribeQuorumResponse::default();
        m.topics = vec![t];
        if v >= 2 {
            m.error_message = None;
            let mut l = describe_quorum_response::Listener::default();
            l.name = s("CONTROLLER");
            l.host = s("c1");
            l.port = 9093;
            let mut n = describe_quorum_response::Node::default();
            n.node_id = BrokerId(1);
            n.listeners = vec![l];
            m.nodes = vec![n];
        }
        check_built(
            V,
            "DescribeQuorumResponse(nodes)",
            &p,
            v,
            encode(&m, v),
            out,
        );
    }

    // Create topics response: tagged topic_config_error_code, nullable configs, uuid.
    let p = pair("CreateTopicsResponse");
    for v in 0..=7 {
        let mut t = create_topics_response::CreatableTopicResult::default();
        t.name = topic("orders");
        if v >= 5 {
            t.topic_config_error_code = 42;
            t.num_partitions = 3;
            t.replication_factor = 1;
            t.configs = None;
        }
        if v >= 7 {
            t.topic_id = uid;
        }
        let mut m = CreateTopicsResponse::default();
        m.topics = vec![t];
        check_built(
            V,
            "CreateTopicsResponse(tagged error code)",
            &p,
            v,
            encode(&m, v),
            out,
        );
    }
}

/// Fields a version lacks (Kafka's generated `write`: an ignorable field's non-default value is
/// dropped, a non-ignorable one throws `UnsupportedVersionException`): dropped by both, refused by
/// both; unknown tagged fields at a non-flexible version (refused by Kafka, see below).
#[cfg(kwire_shared)]
fn absent_fields_015(out: &mut Outcome) {
    use kafka_protocol::messages as kp;
    use kafka_protocol::protocol::StrBytes;
    use kwire_protocol::wire::{RawTaggedField, Uuid};
    const V: &str = "0.15.1";
    let s = StrBytes::from_static_str;
    let same = |label: &str, ours: R<Bytes>, theirs: R<Bytes>, out: &mut Outcome| {
        let ok = match (&ours, &theirs) {
            (Ok(a), Ok(b)) => a == b,
            (Err(_), Err(_)) => true,
            _ => false,
        };
        let detail = format!(
            "kwire: {:?}\n    theirs: {:?}",
            ours.map(|b| hex(&b)),
            theirs.map(|b| hex(&b))
        );
        check_value(V, label, ok, detail, out);
    };

    // Ignorable fields (ThrottleTimeMs 3+, ClusterId 2+, ControllerId 1+, Rack 1+, IsInternal 1+,
    // TopicId 10+, LeaderEpoch 7+, OfflineReplicas 5+) set, written at v0: dropped by both.
    use k390::metadata_response as om;
    let ours = k390::MetadataResponse {
        throttle_time_ms: 5,
        cluster_id: Some("c".into()),
        controller_id: 3,
        brokers: vec![om::MetadataResponseBroker {
            node_id: 1,
            host: "h".into(),
            port: 1,
            rack: Some("r".into()),
            ..Default::default()
        }],
        topics: vec![om::MetadataResponseTopic {
            name: Some("t".into()),
            is_internal: true,
            topic_id: Uuid::from_u128(77),
            partitions: vec![om::MetadataResponsePartition {
                leader_epoch: 4,
                offline_replicas: vec![1].into(),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut theirs = kp::MetadataResponse::default();
    theirs.throttle_time_ms = 5;
    theirs.cluster_id = Some(s("c"));
    theirs.controller_id = kp::BrokerId(3);
    let mut b = kp::metadata_response::MetadataResponseBroker::default();
    b.node_id = kp::BrokerId(1);
    b.host = s("h");
    b.port = 1;
    b.rack = Some(s("r"));
    theirs.brokers = vec![b];
    let mut part = kp::metadata_response::MetadataResponsePartition::default();
    part.leader_epoch = 4;
    part.offline_replicas = vec![kp::BrokerId(1)];
    let mut t = kp::metadata_response::MetadataResponseTopic::default();
    t.name = Some(kp::TopicName(s("t")));
    t.is_internal = true;
    t.topic_id = uuid::Uuid::from_u128(77);
    t.partitions = vec![part];
    theirs.topics = vec![t];
    same(
        "ignorable fields dropped at MetadataResponse v0",
        ours.to_bytes(0).map_err(|e| e.to_string()),
        kp015::encode(&theirs, 0),
        out,
    );

    // Non-ignorable: AllowAutoTopicCreation (4+, default true) = false at v3 is refused by both.
    let ours = k390::MetadataRequest {
        allow_auto_topic_creation: false,
        ..Default::default()
    };
    let mut theirs = kp::MetadataRequest::default();
    theirs.allow_auto_topic_creation = false;
    let label = "non-ignorable AllowAutoTopicCreation=false refused at MetadataRequest v3";
    let ours_r = ours.to_bytes(3).map_err(|e| e.to_string());
    check_value(V, label, ours_r.is_err(), format!("{ours_r:?}"), out);
    same(label, ours_r, kp015::encode(&theirs, 3), out);

    // Ignorable RebalanceTimeoutMs (1+) and Reason (8+, default null) dropped at JoinGroup v0.
    let ours = k390::JoinGroupRequest {
        group_id: "g".into(),
        rebalance_timeout_ms: 5,
        reason: Some("why".into()),
        ..Default::default()
    };
    let mut theirs = kp::JoinGroupRequest::default();
    theirs.group_id = kp::GroupId(s("g"));
    theirs.rebalance_timeout_ms = 5;
    theirs.reason = Some(s("why"));
    same(
        "ignorable fields dropped at JoinGroupRequest v0",
        ours.to_bytes(0).map_err(|e| e.to_string()),
        kp015::encode(&theirs, 0),
        out,
    );

    // Disagreement 2 (kafka-protocol is wrong): unknown tagged fields set on a message written
    // at a non-flexible version. Kafka throws UnsupportedVersionException "Tagged fields were
    // set, but version V of this message does not support them" (its generated `write`); kwire
    // refuses (TaggedFieldsNotFlexible); kafka-protocol silently drops them. Excluded: only
    // kwire's side is asserted, their behaviour is printed.
    let ours = k390::MetadataRequest {
        unknown_tagged_fields: vec![RawTaggedField {
            tag: 5,
            data: Bytes::from_static(b"x"),
        }]
        .into(),
        ..Default::default()
    };
    let ours_r = ours.to_bytes(8).map_err(|e| e.to_string());
    check_value(
        V,
        "unknown tags refused at non-flexible MetadataRequest v8 (kwire)",
        ours_r.is_err(),
        format!("{ours_r:?}"),
        out,
    );
    let mut theirs = kp::MetadataRequest::default();
    theirs
        .unknown_tagged_fields
        .insert(5, Bytes::from_static(b"x"));
    let theirs_r = kp015::encode(&theirs, 8);
    out.excluded.push(format!(
        "MetadataRequest v8 with unknown tagged fields: kafka-protocol {} (Kafka refuses: UnsupportedVersionException)",
        if theirs_r.is_ok() { "drops them silently" } else { "refuses too" }
    ));
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn kwire_3_9_0_clients_agrees_with_kafka_protocol_0_15_1() {
    #[cfg(kwire_shared)]
    {
        use kafka_protocol::messages::{ApiKey, RequestHeader, ResponseHeader};
        use kafka_protocol::protocol::Message as _;
        let t0 = std::time::Instant::now();
        let (requests, responses, others) = pairs_015();
        let mut out = Outcome::default();
        run("0.15.1", &requests, &mut out);
        run("0.15.1", &responses, &mut out);
        run("0.15.1", &others, &mut out);
        let all: Vec<Pair> = requests
            .iter()
            .chain(&responses)
            .chain(&others)
            .copied()
            .collect();
        built_015(&all, &mut out);
        absent_fields_015(&mut out);

        // Their total: every API key's versions, request and response, plus the header versions.
        let span = |min: i16, max: i16| usize::try_from(max - min + 1).unwrap_or(0);
        // Not `ApiKey::iter()`: it stops at the first unassigned key (76), which would leave out
        // AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (80-82).
        let their_total: usize = (0..=i16::MAX)
            .filter_map(|k| ApiKey::try_from(k).ok())
            .map(|k| {
                let r = k.valid_versions();
                2 * span(r.min, r.max)
            })
            .sum::<usize>()
            + span(RequestHeader::VERSIONS.min, RequestHeader::VERSIONS.max)
            + span(ResponseHeader::VERSIONS.min, ResponseHeader::VERSIONS.max);
        let data_names: Vec<&str> = others.iter().skip(2).map(|p| p.name).collect();
        let api_covered = out
            .covered
            .iter()
            .filter(|(n, _)| !data_names.contains(n))
            .count();
        let data_covered = out.covered.len() - api_covered;
        println!(
            "kafka-protocol 0.15.1: {api_covered} / {their_total} (message, version) pairs covered \
             (requests, responses, headers), plus {data_covered} data-message versions; {} checks, \
             {} excluded, {} disagreements, {:?}",
            out.checks,
            out.excluded.len(),
            out.failures.len(),
            t0.elapsed()
        );
        finish("0.15.1", &out);
        assert!(
            api_covered * 100 >= their_total * 95,
            "only {api_covered} of {their_total} (message, version) pairs covered (need 95%)"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// kafka-protocol 0.18.0 (Kafka 4.1) against the committed code of schemas/.

#[test]
fn kwire_schemas_agree_with_kafka_protocol_0_18_0() {
    let t0 = std::time::Instant::now();
    // Every message of schemas/ that kafka-protocol 0.18.0 (Kafka 4.1) also has: 185 of them.
    let pairs = pairs!(kwire_protocol::generated, kafka_protocol_018::messages, kp018;
        AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, AddPartitionsToTxnRequest,
        AddPartitionsToTxnResponse, AddRaftVoterRequest, AddRaftVoterResponse,
        AllocateProducerIdsRequest, AllocateProducerIdsResponse, AlterClientQuotasRequest,
        AlterClientQuotasResponse, AlterConfigsRequest, AlterConfigsResponse,
        AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse,
        AlterPartitionRequest, AlterPartitionResponse, AlterReplicaLogDirsRequest,
        AlterReplicaLogDirsResponse, AlterShareGroupOffsetsRequest,
        AlterShareGroupOffsetsResponse, AlterUserScramCredentialsRequest,
        AlterUserScramCredentialsResponse, ApiVersionsRequest, ApiVersionsResponse,
        AssignReplicasToDirsRequest, AssignReplicasToDirsResponse, BeginQuorumEpochRequest,
        BeginQuorumEpochResponse, BrokerHeartbeatRequest, BrokerHeartbeatResponse,
        BrokerRegistrationRequest, BrokerRegistrationResponse, ConsumerGroupDescribeRequest,
        ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatRequest,
        ConsumerGroupHeartbeatResponse, ConsumerProtocolAssignment,
        ConsumerProtocolSubscription, ControllerRegistrationRequest,
        ControllerRegistrationResponse, CreateAclsRequest, CreateAclsResponse,
        CreateDelegationTokenRequest, CreateDelegationTokenResponse, CreatePartitionsRequest,
        CreatePartitionsResponse, CreateTopicsRequest, CreateTopicsResponse,
        DefaultPrincipalData, DeleteAclsRequest, DeleteAclsResponse, DeleteGroupsRequest,
        DeleteGroupsResponse, DeleteRecordsRequest, DeleteRecordsResponse,
        DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse,
        DeleteShareGroupStateRequest, DeleteShareGroupStateResponse, DeleteTopicsRequest,
        DeleteTopicsResponse, DescribeAclsRequest, DescribeAclsResponse,
        DescribeClientQuotasRequest, DescribeClientQuotasResponse, DescribeClusterRequest,
        DescribeClusterResponse, DescribeConfigsRequest, DescribeConfigsResponse,
        DescribeDelegationTokenRequest, DescribeDelegationTokenResponse, DescribeGroupsRequest,
        DescribeGroupsResponse, DescribeLogDirsRequest, DescribeLogDirsResponse,
        DescribeProducersRequest, DescribeProducersResponse, DescribeQuorumRequest,
        DescribeQuorumResponse, DescribeShareGroupOffsetsRequest,
        DescribeShareGroupOffsetsResponse, DescribeTopicPartitionsRequest,
        DescribeTopicPartitionsResponse, DescribeTransactionsRequest,
        DescribeTransactionsResponse, DescribeUserScramCredentialsRequest,
        DescribeUserScramCredentialsResponse, ElectLeadersRequest, ElectLeadersResponse,
        EndQuorumEpochRequest, EndQuorumEpochResponse, EndTxnMarker, EndTxnRequest,
        EndTxnResponse, EnvelopeRequest, EnvelopeResponse, ExpireDelegationTokenRequest,
        ExpireDelegationTokenResponse, FetchRequest, FetchResponse, FetchSnapshotRequest,
        FetchSnapshotResponse, FindCoordinatorRequest, FindCoordinatorResponse,
        GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse, HeartbeatRequest,
        HeartbeatResponse, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
        InitProducerIdRequest, InitProducerIdResponse, InitializeShareGroupStateRequest,
        InitializeShareGroupStateResponse, JoinGroupRequest, JoinGroupResponse,
        KRaftVersionRecord, LeaderChangeMessage, LeaveGroupRequest, LeaveGroupResponse,
        ListConfigResourcesRequest, ListConfigResourcesResponse, ListGroupsRequest,
        ListGroupsResponse, ListOffsetsRequest, ListOffsetsResponse,
        ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse,
        ListTransactionsRequest, ListTransactionsResponse, MetadataRequest, MetadataResponse,
        OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteRequest, OffsetDeleteResponse,
        OffsetFetchRequest, OffsetFetchResponse, OffsetForLeaderEpochRequest,
        OffsetForLeaderEpochResponse, ProduceRequest, ProduceResponse, PushTelemetryRequest,
        PushTelemetryResponse, ReadShareGroupStateRequest, ReadShareGroupStateResponse,
        ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse,
        RemoveRaftVoterRequest, RemoveRaftVoterResponse, RenewDelegationTokenRequest,
        RenewDelegationTokenResponse, RequestHeader, ResponseHeader, SaslAuthenticateRequest,
        SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse,
        ShareAcknowledgeRequest, ShareAcknowledgeResponse, ShareFetchRequest,
        ShareFetchResponse, ShareGroupDescribeRequest, ShareGroupDescribeResponse,
        ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, SnapshotFooterRecord,
        SnapshotHeaderRecord, SyncGroupRequest, SyncGroupResponse, TxnOffsetCommitRequest,
        TxnOffsetCommitResponse, UnregisterBrokerRequest, UnregisterBrokerResponse,
        UpdateFeaturesRequest, UpdateFeaturesResponse, UpdateRaftVoterRequest,
        UpdateRaftVoterResponse, VoteRequest, VoteResponse, VotersRecord,
        WriteShareGroupStateRequest, WriteShareGroupStateResponse, WriteTxnMarkersRequest,
        WriteTxnMarkersResponse,
    );

    let mut pairs = pairs;
    pin_version_fields(
        &mut pairs,
        leader_change_sample_018,
        voters_record_sample_018,
    );
    let mut out = Outcome::default();
    run("0.18.0", &pairs, &mut out);
    built_018(&pairs, &mut out);
    kwire_built_018(&mut out);
    // The versions newer than Kafka 3.9.0 (the reason for this half of the test).
    let newer: &[(&str, i16)] = &[
        ("MetadataRequest", 13),
        ("MetadataResponse", 13),
        ("ConsumerGroupHeartbeatRequest", 1),
        ("ConsumerGroupHeartbeatResponse", 1),
        ("ConsumerGroupDescribeRequest", 1),
        ("ConsumerGroupDescribeResponse", 1),
    ];
    let newer_covered = newer.iter().filter(|x| out.covered.contains(x)).count();
    let total: usize = pairs.iter().map(|p| p.common_versions().len()).sum();
    println!(
        "kafka-protocol 0.18.0: {newer_covered} / {} versions newer than 3.9.0 covered; \
         {} / {total} (message, version) pairs of schemas/ covered in all; {} checks, {} excluded, \
         {} disagreements, {:?}",
        newer.len(),
        out.covered.len(),
        out.checks,
        out.excluded.len(),
        out.failures.len(),
        t0.elapsed()
    );
    finish("0.18.0", &out);
    assert_eq!(
        newer_covered,
        newer.len(),
        "every version newer than 3.9.0 is cross-checked"
    );
}

/// Messages built with kafka-protocol 0.18.0's API at the versions newer than 3.9.0.
fn built_018(all: &[Pair], out: &mut Outcome) {
    use kafka_protocol_018::messages::*;
    use kafka_protocol_018::protocol::StrBytes;
    use kp018::encode;
    const V: &str = "0.18.0";
    let pair = |n: &str| {
        *all.iter()
            .find(|p| p.name == n)
            .unwrap_or_else(|| panic!("no pair {n}"))
    };
    let s = |x: &'static str| StrBytes::from_static_str(x);
    let uid = uuid::Uuid::from_u128(0xfeed_0000_0000_0000_0000_0000_0000_beef);

    use kwire_protocol::generated as g;

    let mut m = MetadataResponse::default();
    m.error_code = 35;
    m.cluster_id = Some(s("c"));
    m.controller_id = BrokerId(4);
    let mut t = metadata_response::MetadataResponseTopic::default();
    t.topic_id = uid;
    t.name = None;
    m.topics = vec![t];
    let b = encode(&m, 13);
    check_built(
        V,
        "MetadataResponse(error_code)",
        &pair("MetadataResponse"),
        13,
        b.clone(),
        out,
    );
    if let Some(o) = ours::<g::MetadataResponse>(&b, 13) {
        let ok = o.error_code == 35
            && o.controller_id == 4
            && o.cluster_id.as_deref() == Some("c")
            && o.topics[0].topic_id.as_u128() == uid.as_u128()
            && o.topics[0].name.is_none();
        check_value(V, "MetadataResponse v13", ok, format!("{o:?}"), out);
    }

    let mut m = MetadataRequest::default();
    let mut t = metadata_request::MetadataRequestTopic::default();
    t.topic_id = uid;
    t.name = None;
    m.topics = Some(vec![t]);
    check_built(
        V,
        "MetadataRequest(topic id)",
        &pair("MetadataRequest"),
        13,
        encode(&m, 13),
        out,
    );

    for regex in [None, Some(s("orders-.*"))] {
        let mut m = ConsumerGroupHeartbeatRequest::default();
        m.group_id = GroupId(s("g"));
        m.member_id = s("m");
        m.member_epoch = 0;
        m.rebalance_timeout_ms = 30_000;
        m.subscribed_topic_regex = regex;
        m.server_assignor = Some(s("uniform"));
        m.subscribed_topic_names = Some(vec![TopicName(s("a"))]);
        let mut tp = consumer_group_heartbeat_request::TopicPartitions::default();
        tp.topic_id = uid;
        tp.partitions = vec![0, 1];
        m.topic_partitions = Some(vec![tp]);
        let want = m.subscribed_topic_regex.as_deref().map(str::to_owned);
        let b = encode(&m, 1);
        check_built(
            V,
            "ConsumerGroupHeartbeatRequest(regex)",
            &pair("ConsumerGroupHeartbeatRequest"),
            1,
            b.clone(),
            out,
        );
        if let Some(o) = ours::<g::ConsumerGroupHeartbeatRequest>(&b, 1) {
            let ok = o.subscribed_topic_regex.as_deref() == want.as_deref()
                && o.server_assignor.as_deref() == Some("uniform")
                && o.rebalance_timeout_ms == 30_000
                && o.topic_partitions
                    .as_ref()
                    .is_some_and(|t| t[0].partitions == [0, 1]);
            check_value(
                V,
                "ConsumerGroupHeartbeatRequest v1",
                ok,
                format!("{o:?}"),
                out,
            );
        }
    }

    let mut m = ConsumerGroupHeartbeatResponse::default();
    m.member_id = Some(s("m"));
    m.member_epoch = 2;
    m.assignment = Some(consumer_group_heartbeat_response::Assignment::default());
    check_built(
        V,
        "ConsumerGroupHeartbeatResponse(assignment)",
        &pair("ConsumerGroupHeartbeatResponse"),
        1,
        encode(&m, 1),
        out,
    );

    let mut mem = consumer_group_describe_response::Member::default();
    mem.member_id = s("m");
    mem.member_type = 1;
    mem.subscribed_topic_regex = Some(s("x.*"));
    let mut grp = consumer_group_describe_response::DescribedGroup::default();
    grp.group_id = GroupId(s("g"));
    grp.members = vec![mem];
    let mut m = ConsumerGroupDescribeResponse::default();
    m.groups = vec![grp];
    let b = encode(&m, 1);
    check_built(
        V,
        "ConsumerGroupDescribeResponse(member_type)",
        &pair("ConsumerGroupDescribeResponse"),
        1,
        b.clone(),
        out,
    );
    if let Some(o) = ours::<g::ConsumerGroupDescribeResponse>(&b, 1) {
        let mem = &o.groups[0].members[0];
        let ok = mem.member_type == 1
            && mem.subscribed_topic_regex.as_deref() == Some("x.*")
            && mem.member_id == "m";
        check_value(
            V,
            "ConsumerGroupDescribeResponse v1",
            ok,
            format!("{o:?}"),
            out,
        );
    }

    let mut m = ConsumerGroupDescribeRequest::default();
    m.group_ids = vec![GroupId(s("g"))];
    m.include_authorized_operations = true;
    check_built(
        V,
        "ConsumerGroupDescribeRequest",
        &pair("ConsumerGroupDescribeRequest"),
        1,
        encode(&m, 1),
        out,
    );
}

/// The other way for the fields new since 3.9.0: kwire builds them, kafka-protocol 0.18.0 reads
/// them back into the fields of the same names.
fn kwire_built_018(out: &mut Outcome) {
    use kafka_protocol_018::messages as kp;
    use kafka_protocol_018::protocol::Decodable;
    use kwire_protocol::generated as g;
    const V: &str = "0.18.0";
    fn theirs<T: Decodable>(m: &impl Encode, v: i16) -> Option<T> {
        let mut b = m.to_bytes(v).ok()?;
        T::decode(&mut b, v).ok().filter(|_| b.is_empty())
    }

    let m = g::MetadataResponse {
        error_code: 35,
        controller_id: 4,
        ..Default::default()
    };
    let t = theirs::<kp::MetadataResponse>(&m, 13);
    let ok = t
        .as_ref()
        .is_some_and(|t| t.error_code == 35 && t.controller_id.0 == 4);
    check_value(
        V,
        "kwire-built MetadataResponse v13",
        ok,
        format!("{t:?}"),
        out,
    );

    let m = g::ConsumerGroupHeartbeatRequest {
        group_id: "g".into(),
        subscribed_topic_regex: Some("orders-.*".into()),
        server_assignor: Some("range".into()),
        ..Default::default()
    };
    let t = theirs::<kp::ConsumerGroupHeartbeatRequest>(&m, 1);
    let ok = t.as_ref().is_some_and(|t| {
        t.subscribed_topic_regex.as_deref() == Some("orders-.*")
            && t.server_assignor.as_deref() == Some("range")
    });
    check_value(
        V,
        "kwire-built ConsumerGroupHeartbeatRequest v1",
        ok,
        format!("{t:?}"),
        out,
    );

    let m = g::ConsumerGroupDescribeResponse {
        groups: vec![g::consumer_group_describe_response::DescribedGroup {
            group_id: "g".into(),
            members: vec![g::consumer_group_describe_response::Member {
                member_id: "m".into(),
                member_type: 0,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let t = theirs::<kp::ConsumerGroupDescribeResponse>(&m, 1);
    let ok = t.as_ref().is_some_and(|t| {
        t.groups[0].members[0].member_type == 0 && &*t.groups[0].members[0].member_id == "m"
    });
    check_value(
        V,
        "kwire-built ConsumerGroupDescribeResponse v1",
        ok,
        format!("{t:?}"),
        out,
    );
}

// ---------------------------------------------------------------------------------------------
// The harness itself: a corrupted byte string is reported with the field that covers it.

#[test]
fn a_disagreement_is_reported_with_bytes_and_field() {
    use kwire_protocol::generated::{metadata_response, MetadataResponse};
    let pair =
        pairs!(kwire_protocol::generated, kafka_protocol_018::messages, kp018; MetadataResponse)[0];
    let m = MetadataResponse {
        throttle_time_ms: 1,
        topics: vec![metadata_response::MetadataResponseTopic {
            name: Some("orders".into()),
            partitions: vec![metadata_response::MetadataResponsePartition {
                leader_id: 7,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ours = m.to_bytes(12).expect("encodes");
    let mut other = ours.to_vec();
    // The last partition's leader_id (int32) is the 4 bytes after its error code and index:
    // flip a byte of it by finding the value 7 written big-endian.
    let at = other
        .windows(4)
        .position(|w| w == [0, 0, 0, 7])
        .expect("leader id 7 in the bytes")
        + 3;
    other[at] = 9;
    let report = describe(&pair, 12, &ours, &Bytes::from(other));
    println!("what a disagreement report looks like:\n{report}");
    assert!(
        report.contains(&format!("first differing byte: offset {at}")),
        "{report}"
    );
    assert!(report.contains("leader_id"), "{report}");
    assert!(report.contains(&hex(&ours)), "{report}");
}
