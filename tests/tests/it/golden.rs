//! Golden frames: requests and responses captured from a real client (librdkafka 2.16.0, the C
//! client inside confluent-kafka 2.16.1) talking to librdkafka's own mock broker and to a minimal
//! test server, one frame a line (seconds, connection, direction, API key, version, correlation
//! id, client id, length, hex; see `parse_log`), in the shared material's
//! `golden/librdkafka-2.16.0/`.
//!
//! * Every request of an API/version in `schemas/` decodes and re-encodes to the same bytes, and
//!   its header matches the log line (no frame is skipped: counts are asserted).
//! * Every response of an API/version in `schemas/` decodes and re-encodes to the same bytes,
//!   except the mock broker's known quirks, which are asserted precisely: (a) its ApiVersions v3
//!   answer is in a non-standard layout (fails to decode, and is not a v0 response either);
//!   (b) its Metadata v13 answers end with one stray byte (reported as `TrailingBytes { len: 1 }`);
//!   (c) it sends ErrorMessage "Success" where Kafka sends null (decodes and re-encodes exactly:
//!   it is a value difference, not a byte-level one).
//! * Spot checks of real values, printed so that the assertions are grounded in the bytes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use bytes::Bytes;
use kwire_protocol::generated::{ApiKey, Request, RequestFrame, Response, ResponseFrame};
use kwire_protocol::wire::{DecodeError, DecodeErrorKind, Message};
use kwire_tests::{hex, shared, unhex};

// ---------------------------------------------------------------------------------------------
// Log parsing
// ---------------------------------------------------------------------------------------------

const MOCK_LOG: &str = "librdkafka-2.16.0_consumer-protocol_via_mock.log";
const DUMB_LOG: &str = "librdkafka-2.16.0_consumer_first-bytes_dumb-server.log";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    Request,
    Response,
}

#[derive(Debug, Clone)]
struct Frame {
    file: &'static str,
    line_no: usize,
    conn: String,
    dir: Dir,
    key: i16,
    version: i16,
    corr: i32,
    /// Only on request lines.
    client: Option<String>,
    bytes: Vec<u8>,
}

impl Frame {
    fn is_from_mock(&self) -> bool {
        self.file == MOCK_LOG
    }
    fn at(&self) -> String {
        format!(
            "{}:{} ({} {} key={} v{} corr={})",
            self.file,
            self.line_no,
            self.conn,
            if self.dir == Dir::Request { "->" } else { "<-" },
            self.key,
            self.version,
            self.corr
        )
    }
    /// The API, when the key is in schemas/ and the version in its valid versions.
    fn in_schemas(&self) -> Option<ApiKey> {
        let api = ApiKey::from_i16(self.key)?;
        api.valid_versions().contains(self.version).then_some(api)
    }
}

fn golden_dir() -> PathBuf {
    shared().join("golden").join("librdkafka-2.16.0")
}

/// Parses one log. Every line is either a frame line (`SECONDS CONN -> key=.. v.. corr=..
/// client=.. len=.. hex=..` / `SECONDS CONN <- key=.. v.. corr=.. len=.. hex=..`), which must
/// parse completely, or an event line (listening, accepted, closed, proxy), which is counted.
fn parse_log(dir: &std::path::Path, file: &'static str) -> (Vec<Frame>, usize) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut frames = Vec::new();
    let mut events = 0;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.is_empty() {
            continue;
        }
        let dir = match toks.get(2) {
            Some(&"->") => Dir::Request,
            Some(&"<-") => Dir::Response,
            _ => {
                assert!(
                    !line.contains("key=") && !line.contains("hex="),
                    "{file}:{line_no}: looks like a frame but does not parse: {line}"
                );
                events += 1;
                continue;
            }
        };
        toks[0]
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("{file}:{line_no}: bad seconds in {line}"));
        let mut fields: BTreeMap<&str, &str> = BTreeMap::new();
        let mut version = None;
        for t in &toks[3..] {
            if let Some((k, v)) = t.split_once('=') {
                assert!(fields.insert(k, v).is_none(), "{file}:{line_no}: {k} twice");
            } else if let Some(v) = t.strip_prefix('v') {
                version = Some(
                    v.parse::<i16>()
                        .unwrap_or_else(|_| panic!("{file}:{line_no}: bad version {t}")),
                );
            } else {
                panic!("{file}:{line_no}: unexpected token {t:?}");
            }
        }
        let get = |k: &str| {
            *fields
                .get(k)
                .unwrap_or_else(|| panic!("{file}:{line_no}: no {k}= in {line}"))
        };
        let bytes = unhex(get("hex"));
        let len: usize = get("len").parse().unwrap();
        assert_eq!(
            bytes.len(),
            len,
            "{file}:{line_no}: len= disagrees with the hex"
        );
        let client = match dir {
            Dir::Request => Some(get("client").to_string()),
            Dir::Response => {
                assert!(
                    !fields.contains_key("client"),
                    "{file}:{line_no}: client= on a response line"
                );
                None
            }
        };
        frames.push(Frame {
            file,
            line_no,
            conn: toks[1].to_string(),
            dir,
            key: get("key").parse().unwrap(),
            version: version.unwrap_or_else(|| panic!("{file}:{line_no}: no version")),
            corr: get("corr").parse().unwrap(),
            client,
            bytes,
        });
    }
    (frames, events)
}

/// All frames of both logs, in file order (mock log first).
fn load() -> Vec<Frame> {
    let dir = golden_dir();
    let mut all = Vec::new();
    for file in [MOCK_LOG, DUMB_LOG] {
        let (frames, events) = parse_log(&dir, file);
        let req = frames.iter().filter(|f| f.dir == Dir::Request).count();
        println!(
            "{file}: {req} request lines, {} response lines, {events} event lines",
            frames.len() - req
        );
        assert!(!frames.is_empty(), "{file}: no frames");
        all.extend(frames);
    }
    // Every response answers an earlier request on the same connection with the same key,
    // version and correlation id.
    for (i, f) in all
        .iter()
        .enumerate()
        .filter(|(_, f)| f.dir == Dir::Response)
    {
        assert!(
            all[..i].iter().any(|q| q.dir == Dir::Request
                && q.file == f.file
                && q.conn == f.conn
                && q.key == f.key
                && q.version == f.version
                && q.corr == f.corr),
            "{}: no matching request",
            f.at()
        );
    }
    all
}

fn first_diff(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Asserts `got == want`, printing both in hex and the first differing offset otherwise.
fn assert_same_bytes(what: &str, want: &[u8], got: &[u8]) {
    if want != got {
        panic!("{what}: re-encoding differs at byte {} (captured {} bytes, re-encoded {} bytes)\n  captured:   {}\n  re-encoded: {}",
            first_diff(want, got), want.len(), got.len(), hex(want), hex(got));
    }
}

fn print_counts(title: &str, counts: &BTreeMap<(i16, i16), usize>) {
    println!("{title}:");
    for ((k, v), n) in counts {
        let name = ApiKey::from_i16(*k).map_or("?", |a| a.name());
        println!("  key={k:<3} {name:<24} v{v:<3} {n}");
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Requests
// ---------------------------------------------------------------------------------------------

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn requests_decode_and_reencode_byte_exact() {
    let frames = load();
    let mut checked: BTreeMap<(i16, i16), usize> = BTreeMap::new();
    let mut out_of_schemas: BTreeMap<(i16, i16), usize> = BTreeMap::new();
    let mut expected = 0usize;
    for f in frames.iter().filter(|f| f.dir == Dir::Request) {
        let Some(api) = f.in_schemas() else {
            *out_of_schemas.entry((f.key, f.version)).or_default() += 1;
            continue;
        };
        expected += 1;
        let frame = RequestFrame::decode(Bytes::from(f.bytes.clone()))
            .unwrap_or_else(|e| panic!("{}: decode failed: {e}\n  hex: {}", f.at(), hex(&f.bytes)));
        let h = &frame.header;
        assert_eq!(h.request_api_key, f.key, "{}: header key", f.at());
        assert_eq!(
            h.request_api_version,
            f.version,
            "{}: header version",
            f.at()
        );
        assert_eq!(
            h.correlation_id,
            f.corr,
            "{}: header correlation id",
            f.at()
        );
        assert_eq!(
            h.client_id.as_deref(),
            f.client.as_deref(),
            "{}: header client id",
            f.at()
        );
        assert!(
            h.unknown_tagged_fields.is_empty(),
            "{}: header tagged fields {:?}",
            f.at(),
            h.unknown_tagged_fields
        );
        assert_eq!(frame.body.api_key(), api, "{}: body API", f.at());
        let again = frame
            .to_bytes()
            .unwrap_or_else(|e| panic!("{}: encode failed: {e}", f.at()));
        assert_same_bytes(&f.at(), &f.bytes, &again);
        // Decoding the re-encoding gives the same frame back.
        assert_eq!(RequestFrame::decode(again).unwrap(), frame, "{}", f.at());
        *checked.entry((f.key, f.version)).or_default() += 1;
    }
    print_counts("requests decoded and re-encoded byte-exact", &checked);
    print_counts(
        "requests of APIs/versions not in schemas/ (not checked)",
        &out_of_schemas,
    );
    let total: usize = checked.values().sum();
    println!("requests checked: {total} of {expected} in-schema request lines");
    assert!(total > 0);
    assert_eq!(
        total, expected,
        "every in-schema request line must be checked"
    );
    // What the logs hold today (a change in the logs should be noticed, not absorbed).
    let want: BTreeMap<(i16, i16), usize> = [
        ((0, 10), 3),
        ((1, 16), 12),
        ((2, 7), 3),
        ((3, 13), 5),
        ((8, 9), 2),
        ((9, 6), 1),
        ((10, 2), 4),
        ((18, 0), 4),
        ((18, 3), 5),
        ((68, 1), 4),
        ((71, 0), 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(checked, want);
}

// ---------------------------------------------------------------------------------------------
// 2. Responses
// ---------------------------------------------------------------------------------------------

/// How one in-schema response frame was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Decoded; re-encoded to the same bytes.
    Exact,
    /// Quirk (a): the mock's ApiVersions v3 answer; fails as v3 and as v0, layout confirmed.
    ApiVersionsV3Quirk,
    /// Quirk (b): the mock's Metadata v13 answer with one stray byte; the rest is exact.
    MetadataStrayByte,
}

/// Decodes a whole response frame and checks it re-encodes to the same bytes.
fn decode_exact(f: &Frame, bytes: &[u8], api: ApiKey, version: i16) -> ResponseFrame {
    let resp = ResponseFrame::decode(Bytes::copy_from_slice(bytes), api, version)
        .unwrap_or_else(|e| panic!("{}: decode failed: {e}\n  hex: {}", f.at(), hex(bytes)));
    assert_eq!(
        resp.header.correlation_id,
        f.corr,
        "{}: correlation id",
        f.at()
    );
    assert!(
        resp.header.unknown_tagged_fields.is_empty(),
        "{}: header tags",
        f.at()
    );
    assert_eq!(resp.body.api_key(), api);
    let again = resp
        .to_bytes(version)
        .unwrap_or_else(|e| panic!("{}: encode failed: {e}", f.at()));
    assert_same_bytes(&f.at(), bytes, &again);
    assert_eq!(
        ResponseFrame::decode(again, api, version).unwrap(),
        resp,
        "{}",
        f.at()
    );
    resp
}

/// Quirk (a). librdkafka's mock handcrafts its ApiVersions answer (rdkafka_mock_handlers.c,
/// `rd_kafka_mock_handle_ApiVersion`): for a flexible request it writes ErrorCode (int16), then
/// the ApiKeys count as a raw int8 holding the count itself (not a compact count+1), then each
/// entry as ApiKey/MinVersion/MaxVersion with no tagged-field section, then ThrottleTimeMs, and
/// no top-level tagged-field section. When the version is unsupported it lists only ApiVersions.
/// The 13 body bytes are therefore
/// `0023 | 01 | 0012 0000 0002 | 00000000` =
/// UNSUPPORTED_VERSION, 1 entry {ApiVersions, 0..2}, throttle 0.
///
/// Read as v3 that is: error 35, ApiKeys compact count 1 = 0 entries, ThrottleTimeMs = 0x00120000,
/// tagged-field count 0, then 5 bytes left (`02 00 00 00 00`) => TrailingBytes { len: 5 }.
///
/// Kafka clients retry a parse that fails as v0 (Java's `ApiVersionsResponse.parse` catches the
/// exception and re-reads the buffer at version 0), because a Kafka broker answers an ApiVersions
/// request of a version it does not support with a v0 response. That does not work here either: as v0 the int32 ApiKeys count is `0x01001200` = 16781824 with 7 bytes left =>
/// ArrayTooLong. So this frame is neither a v3 nor a v0 ApiVersionsResponse; librdkafka itself
/// reads the count as a compact count (0 entries), sees the error with no entries and retries
/// the request with ApiVersions v0 (the next line of the log).
fn check_api_versions_v3_quirk(f: &Frame) {
    let b = &f.bytes;
    assert_eq!(b.len(), 17, "{}", f.at());
    assert_eq!(
        i32::from_be_bytes(b[0..4].try_into().unwrap()),
        f.corr,
        "{}: header v0 corr",
        f.at()
    );
    // The layout described above, byte for byte: error 35 | raw count 1 | {18, 0, 2} | throttle 0.
    assert_eq!(
        hex(&b[4..]),
        ["0023", "01", "0012", "0000", "0002", "00000000"].concat(),
        "{}: mock ApiVersions v3 layout",
        f.at()
    );

    let e3 = ResponseFrame::decode(Bytes::copy_from_slice(b), ApiKey::ApiVersions, 3)
        .expect_err("the mock's ApiVersions v3 answer must not decode as v3");
    println!("  {}: as v3: {e3}", f.at());
    assert_eq!(
        e3.kind(),
        &DecodeErrorKind::TrailingBytes { offset: 12, len: 5 },
        "{}",
        f.at()
    );
    assert_eq!(e3.offset(), 12);
    // The KIP-511 fallback (Kafka's client retries at v0) does not read it either: kwire reads
    // whole bodies, so it gives the v3 error (Kafka's lenient v3 parse would stop at byte 12).
    let fb = ResponseFrame::decode_with_fallback(Bytes::copy_from_slice(b), ApiKey::ApiVersions, 3);
    assert_eq!(
        fb.expect_err("neither v3 nor v0").kind(),
        e3.kind(),
        "{}",
        f.at()
    );
    // What the v3 reader consumed before it stopped (its prefix decode) is the misreading above.
    let mut prefix = Bytes::copy_from_slice(&b[4..]);
    let misread =
        kwire_protocol::generated::ApiVersionsResponse::decode_prefix(&mut prefix, 3).unwrap();
    assert_eq!(misread.error_code, 35);
    assert!(misread.api_keys.is_empty());
    assert_eq!(misread.throttle_time_ms, 0x0012_0000);
    assert_eq!(&prefix[..], &[0x02, 0, 0, 0, 0]);

    let e0 = ResponseFrame::decode(Bytes::copy_from_slice(b), ApiKey::ApiVersions, 0)
        .expect_err("the mock's ApiVersions v3 answer is not a v0 response either");
    println!("  {}: as v0 (Kafka's fallback): {e0}", f.at());
    assert_eq!(
        e0.kind(),
        &DecodeErrorKind::ArrayTooLong {
            count: 0x0100_1200,
            remaining: 7
        },
        "{}",
        f.at()
    );
    assert_eq!(e0.offset(), 6);
    // Not as v1/v2 either (same int32 count).
    for v in [1, 2] {
        let e =
            ResponseFrame::decode(Bytes::copy_from_slice(b), ApiKey::ApiVersions, v).unwrap_err();
        assert!(
            matches!(e.kind(), DecodeErrorKind::ArrayTooLong { .. }),
            "{}: v{v}: {e}",
            f.at()
        );
    }
}

/// Quirk (b): the mock's Metadata v13 answers end with one stray byte after a complete body.
/// The error must be exactly TrailingBytes { len: 1 } at the last byte, and the frame without
/// that byte must decode and re-encode to exactly those bytes.
fn check_metadata_stray_byte(f: &Frame) -> ResponseFrame {
    let b = &f.bytes;
    let e = ResponseFrame::decode(Bytes::copy_from_slice(b), ApiKey::Metadata, 13)
        .expect_err("the stray byte must be reported, never dropped");
    println!("  {}: {e} (stray byte {:02x})", f.at(), b[b.len() - 1]);
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::TrailingBytes {
            offset: b.len() - 1,
            len: 1
        },
        "{}",
        f.at()
    );
    assert_eq!(e.offset(), b.len() - 1);
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::TrailingBytes { len: 1, .. }
    ));
    assert_eq!(b[b.len() - 1], 0x00, "{}: the stray byte", f.at());
    decode_exact(f, &b[..b.len() - 1], ApiKey::Metadata, 13)
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn responses_decode_and_reencode() {
    let frames = load();
    let mut checked: BTreeMap<(i16, i16, Outcome), usize> = BTreeMap::new();
    let mut out_of_schemas: BTreeMap<(i16, i16), usize> = BTreeMap::new();
    let mut expected = 0usize;
    let mut success_messages = 0;
    for f in frames.iter().filter(|f| f.dir == Dir::Response) {
        let Some(api) = f.in_schemas() else {
            *out_of_schemas.entry((f.key, f.version)).or_default() += 1;
            continue;
        };
        expected += 1;
        let outcome = match (f.is_from_mock(), api, f.version) {
            (true, ApiKey::ApiVersions, 3) => {
                check_api_versions_v3_quirk(f);
                Outcome::ApiVersionsV3Quirk
            }
            (true, ApiKey::Metadata, 13) => {
                check_metadata_stray_byte(f);
                Outcome::MetadataStrayByte
            }
            _ => {
                let resp = decode_exact(f, &f.bytes, api, f.version);
                // Quirk (c): ErrorMessage "Success" with ErrorCode 0 where Kafka sends null. It is
                // a value, kept as Some("Success") and written back as the same 8 bytes
                // (compact length 8 + "Success"), so the re-encoding above is exact.
                if let Response::ConsumerGroupHeartbeat(r) = &resp.body {
                    assert_eq!(r.error_code, 0, "{}", f.at());
                    assert_eq!(r.error_message.as_deref(), Some("Success"), "{}", f.at());
                    success_messages += 1;
                }
                Outcome::Exact
            }
        };
        *checked.entry((f.key, f.version, outcome)).or_default() += 1;
    }
    println!("responses:");
    for ((k, v, o), n) in &checked {
        println!(
            "  key={k:<3} {:<24} v{v:<3} {n} {o:?}",
            ApiKey::from_i16(*k).unwrap().name()
        );
    }
    print_counts(
        "responses of APIs/versions not in schemas/ (not checked)",
        &out_of_schemas,
    );
    let total: usize = checked.values().sum();
    println!("responses checked: {total} of {expected} in-schema response lines; \"Success\" error messages: {success_messages}");
    assert!(total > 0);
    assert_eq!(
        total, expected,
        "every in-schema response line must be checked"
    );
    assert_eq!(success_messages, 4);
    let want: BTreeMap<(i16, i16, Outcome), usize> = [
        ((0, 10, Outcome::Exact), 3),
        ((1, 16, Outcome::Exact), 11), // one of the 12 fetches is unanswered in the log
        ((2, 7, Outcome::Exact), 3),
        ((3, 13, Outcome::MetadataStrayByte), 4),
        ((8, 9, Outcome::Exact), 2),
        ((9, 6, Outcome::Exact), 1),
        ((10, 2, Outcome::Exact), 3),
        ((18, 0, Outcome::Exact), 4),
        ((18, 3, Outcome::Exact), 1), // the dumb test server's (standard) answer
        ((18, 3, Outcome::ApiVersionsV3Quirk), 4),
        ((68, 1, Outcome::Exact), 4),
        ((71, 0, Outcome::Exact), 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(checked, want);
}

// ---------------------------------------------------------------------------------------------
// 3. Spot checks of real values
// ---------------------------------------------------------------------------------------------

fn find(frames: &[Frame], dir: Dir, key: i16, version: i16) -> impl Iterator<Item = &Frame> {
    frames
        .iter()
        .filter(move |f| f.dir == dir && f.key == key && f.version == version)
}

fn request(f: &Frame) -> Request {
    RequestFrame::decode(Bytes::from(f.bytes.clone()))
        .unwrap_or_else(|e| panic!("{}: {e}", f.at()))
        .body
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn spot_check_consumer_group_heartbeat() {
    let frames = load();
    let hb: Vec<_> = find(&frames, Dir::Request, 68, 1)
        .map(|f| match request(f) {
            Request::ConsumerGroupHeartbeat(r) => (f, r),
            other => panic!("{}: {other:?}", f.at()),
        })
        .collect();
    for (f, r) in &hb {
        println!("{}: group_id={:?} member_id={:?} member_epoch={} instance_id={:?} rack_id={:?} rebalance_timeout_ms={} subscribed_topic_names={:?} subscribed_topic_regex={:?} server_assignor={:?} topic_partitions={:?}",
            f.at(), r.group_id, r.member_id, r.member_epoch, r.instance_id, r.rack_id, r.rebalance_timeout_ms,
            r.subscribed_topic_names, r.subscribed_topic_regex, r.server_assignor,
            r.topic_partitions.as_ref().map(|v| v.iter().map(|t| (t.topic_id.to_string(), t.partitions.clone())).collect::<Vec<_>>()));
    }
    assert_eq!(hb.len(), 4);
    let member = "TAXNTJoPTA65W7IXEGStuw";
    // The join: epoch 0, full subscription, a client-generated member id (KIP-1082).
    let (f, join) = &hb[0];
    assert_eq!(f.corr, 4);
    assert_eq!(join.group_id, "g-consumer");
    assert_eq!(join.member_id, member);
    assert_eq!(join.member_epoch, 0);
    assert_eq!(join.instance_id, None);
    assert_eq!(join.rack_id, None);
    assert_eq!(join.rebalance_timeout_ms, 300_000);
    let names: Vec<&str> = join
        .subscribed_topic_names
        .as_ref()
        .unwrap()
        .iter()
        .map(|s| s.as_str())
        .collect();
    assert_eq!(names, ["t1"]);
    // librdkafka sends an empty (not null) regex and an empty (not null) owned-partitions list.
    assert_eq!(join.subscribed_topic_regex.as_deref(), Some(""));
    assert_eq!(join.server_assignor, None);
    assert_eq!(join.topic_partitions.as_deref().map(|v| v.len()), Some(0));
    // The ack of the assignment: epoch 2, owned partitions 2, 1, 0 of t1's id.
    let (_, ack) = &hb[1];
    assert_eq!(ack.member_epoch, 2);
    assert_eq!(ack.rebalance_timeout_ms, -1);
    assert_eq!(ack.subscribed_topic_names, None);
    let tp = ack.topic_partitions.as_ref().unwrap();
    assert_eq!(tp.len(), 1);
    assert_eq!(hex(&tp[0].topic_id.0), "40467f049d764ef4bdbe889b6b010dfc");
    assert_eq!(tp[0].partitions, [2, 1, 0]);
    // The leave: epoch -1.
    let (_, leave) = &hb[3];
    assert_eq!(leave.member_epoch, -1);
    assert_eq!(leave.member_id, member);

    // The answer to the join: epoch 2, heartbeat 3000 ms, the assignment t1 [2, 1, 0] (the
    // bytes: `04 00000002 00000001 00000000`), which the client then acks in the same order.
    let f = find(&frames, Dir::Response, 68, 1).next().unwrap();
    let r = match ResponseFrame::decode(
        Bytes::from(f.bytes.clone()),
        ApiKey::ConsumerGroupHeartbeat,
        1,
    )
    .unwrap()
    .body
    {
        Response::ConsumerGroupHeartbeat(r) => r,
        other => panic!("{other:?}"),
    };
    println!("{}: {r:?}", f.at());
    assert_eq!(r.error_code, 0);
    assert_eq!(r.error_message.as_deref(), Some("Success"));
    assert_eq!(r.member_id.as_deref(), Some(member));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.heartbeat_interval_ms, 3000);
    let a = r.assignment.expect("assignment");
    assert_eq!(a.topic_partitions.len(), 1);
    assert_eq!(a.topic_partitions[0].topic_id, tp[0].topic_id);
    assert_eq!(a.topic_partitions[0].partitions, [2, 1, 0]);
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn spot_check_metadata() {
    let frames = load();
    // Requests: first an empty topic list (brokers only), then t1 by topic id, with no name.
    let reqs: Vec<_> = find(&frames, Dir::Request, 3, 13)
        .map(|f| match request(f) {
            Request::Metadata(r) => (f, r),
            other => panic!("{other:?}"),
        })
        .collect();
    for (f, r) in &reqs {
        println!("{}: {r:?}", f.at());
        assert!(!r.allow_auto_topic_creation);
        assert!(!r.include_topic_authorized_operations);
    }
    assert_eq!(reqs[0].1.topics.as_deref().map(|t| t.len()), Some(0));
    let by_id = reqs
        .iter()
        .find(|(_, r)| r.topics.as_ref().is_some_and(|t| t.len() == 1))
        .unwrap();
    let t = &by_id.1.topics.as_ref().unwrap()[0];
    assert_eq!(hex(&t.topic_id.0), "40467f049d764ef4bdbe889b6b010dfc");
    assert_eq!(t.name, None);

    let mut seen_topics = 0;
    for f in find(&frames, Dir::Response, 3, 13) {
        let body = &f.bytes[..f.bytes.len() - 1]; // without the stray byte (quirk b)
        let r = match ResponseFrame::decode(Bytes::copy_from_slice(body), ApiKey::Metadata, 13)
            .unwrap()
            .body
        {
            Response::Metadata(r) => r,
            other => panic!("{other:?}"),
        };
        let brokers: Vec<_> = r
            .brokers
            .iter()
            .map(|b| format!("{}@{}:{} rack={:?}", b.node_id, b.host, b.port, b.rack))
            .collect();
        let topics: Vec<_> = r.topics.iter().map(|t| format!("{:?} id={} internal={} partitions={} (leaders {:?}, replicas {:?}, isr {:?}) ops={}",
            t.name, t.topic_id, t.is_internal, t.partitions.len(),
            t.partitions.iter().map(|p| p.leader_id).collect::<Vec<_>>(),
            t.partitions.iter().map(|p| p.replica_nodes.clone()).collect::<Vec<_>>(),
            t.partitions.iter().map(|p| p.isr_nodes.clone()).collect::<Vec<_>>(),
            t.topic_authorized_operations)).collect();
        println!("{}: throttle={} brokers={brokers:?} cluster_id={:?} controller_id={} topics={topics:?} error_code={}",
            f.at(), r.throttle_time_ms, r.cluster_id, r.controller_id, r.error_code);
        assert_eq!(r.brokers.len(), 1);
        assert_eq!(r.brokers[0].node_id, 1);
        assert_eq!(r.brokers[0].host, "127.0.0.1");
        assert_eq!(r.brokers[0].port, 19393); // the logging proxy's port
        assert_eq!(r.brokers[0].rack, None);
        assert_eq!(r.cluster_id.as_deref(), Some("mockCluster155cee462efc"));
        assert_eq!(r.controller_id, 0); // as the mock writes it
        assert_eq!(r.error_code, 0);
        for t in &r.topics {
            seen_topics += 1;
            assert_eq!(t.name.as_deref(), Some("t1"));
            assert_eq!(hex(&t.topic_id.0), "40467f049d764ef4bdbe889b6b010dfc");
            assert!(!t.is_internal);
            assert_eq!(t.partitions.len(), 3);
            for (i, p) in t.partitions.iter().enumerate() {
                assert_eq!(p.error_code, 0);
                assert_eq!(p.partition_index, i as i32);
                assert_eq!(p.leader_id, 1);
                assert_eq!(p.leader_epoch, 0);
                assert_eq!(p.replica_nodes, [1]);
                assert_eq!(p.isr_nodes, [1]);
                assert!(p.offline_replicas.is_empty());
            }
            assert_eq!(t.topic_authorized_operations, i32::MIN);
        }
    }
    assert_eq!(seen_topics, 1, "only the by-id request returns a topic");
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn spot_check_api_versions_and_find_coordinator() {
    let frames = load();
    for f in find(&frames, Dir::Request, 18, 3) {
        match request(f) {
            Request::ApiVersions(r) => {
                assert_eq!(
                    r.client_software_name,
                    "confluent-kafka-python",
                    "{}",
                    f.at()
                );
                assert_eq!(
                    r.client_software_version,
                    "2.16.1-rdkafka-2.16.0",
                    "{}",
                    f.at()
                );
            }
            other => panic!("{other:?}"),
        }
    }
    for f in find(&frames, Dir::Request, 18, 0) {
        assert_eq!(
            request(f),
            Request::ApiVersions(Default::default()),
            "{}",
            f.at()
        );
    }

    let mut n = 0;
    for f in find(&frames, Dir::Response, 18, 0) {
        let r = match ResponseFrame::decode(Bytes::from(f.bytes.clone()), ApiKey::ApiVersions, 0)
            .unwrap()
            .body
        {
            Response::ApiVersions(r) => r,
            other => panic!("{other:?}"),
        };
        let list: Vec<String> = r
            .api_keys
            .iter()
            .map(|k| format!("{}:{}-{}", k.api_key, k.min_version, k.max_version))
            .collect();
        println!(
            "{}: error={} api_keys({})={}",
            f.at(),
            r.error_code,
            list.len(),
            list.join(" ")
        );
        assert_eq!(r.error_code, 0);
        assert_eq!(r.api_keys.len(), 24);
        let get = |key: i16| {
            r.api_keys
                .iter()
                .find(|k| k.api_key == key)
                .map(|k| (k.min_version, k.max_version))
        };
        assert_eq!(get(68), Some((1, 1)), "ConsumerGroupHeartbeat");
        assert_eq!(get(18), Some((0, 2)), "ApiVersions");
        assert_eq!(get(3), Some((0, 13)), "Metadata");
        assert_eq!(get(10), Some((0, 3)), "FindCoordinator");
        assert_eq!(get(69), None, "ConsumerGroupDescribe");
        n += 1;
    }
    assert_eq!(n, 4);

    // The dumb test server's (standard) v3 answer.
    let f = find(&frames, Dir::Response, 18, 3)
        .find(|f| !f.is_from_mock())
        .unwrap();
    let r = match ResponseFrame::decode(Bytes::from(f.bytes.clone()), ApiKey::ApiVersions, 3)
        .unwrap()
        .body
    {
        Response::ApiVersions(r) => r,
        other => panic!("{other:?}"),
    };
    println!(
        "{}: error={} {} api keys, throttle={}",
        f.at(),
        r.error_code,
        r.api_keys.len(),
        r.throttle_time_ms
    );
    assert_eq!(r.error_code, 0);
    assert_eq!(r.api_keys.len(), 24);
    assert!(r
        .api_keys
        .iter()
        .any(|k| (k.api_key, k.min_version, k.max_version) == (68, 1, 1)));

    for f in find(&frames, Dir::Request, 10, 2) {
        match request(f) {
            Request::FindCoordinator(r) => {
                assert_eq!(r.key, "g-consumer", "{}", f.at());
                assert_eq!(r.key_type, 0, "{}", f.at());
            }
            other => panic!("{other:?}"),
        }
    }
    for f in find(&frames, Dir::Response, 10, 2) {
        let r =
            match ResponseFrame::decode(Bytes::from(f.bytes.clone()), ApiKey::FindCoordinator, 2)
                .unwrap()
                .body
            {
                Response::FindCoordinator(r) => r,
                other => panic!("{other:?}"),
            };
        println!("{}: {r:?}", f.at());
        assert_eq!((r.error_code, r.error_message.as_deref()), (0, None)); // null here, unlike CGHB's "Success"
        assert_eq!(
            (r.node_id, r.host.as_str(), r.port),
            (1, "127.0.0.1", 19393)
        );
    }
}

/// Quirks (a) and (b) on their own, so that they are visible by name.
#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn mock_quirks() {
    let frames = load();
    let av: Vec<_> = find(&frames, Dir::Response, 18, 3)
        .filter(|f| f.is_from_mock())
        .collect();
    assert_eq!(av.len(), 4);
    for f in av {
        check_api_versions_v3_quirk(f);
    }
    let md: Vec<_> = find(&frames, Dir::Response, 3, 13).collect();
    assert_eq!(md.len(), 4);
    for f in md {
        assert!(f.is_from_mock());
        check_metadata_stray_byte(f);
    }
    // The error names the offset and the kind.
    let f = find(&frames, Dir::Response, 3, 13).next().unwrap();
    let e: DecodeError =
        ResponseFrame::decode(Bytes::from(f.bytes.clone()), ApiKey::Metadata, 13).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "at byte {}: 1 trailing bytes after a complete message",
            f.bytes.len() - 1
        )
    );
    // Metadata v13's last field is the top-level ErrorCode (KIP-1102): the 2 bytes before the
    // top-level tag count and the stray byte are 00 00.
    assert_eq!(hex(&f.bytes[f.bytes.len() - 4..]), "00000000");
}
