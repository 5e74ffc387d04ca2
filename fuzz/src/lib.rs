//! What the `decode_any` fuzz target does, as a library so that `seed_corpus` writes inputs in the
//! same layout the target reads.
//!
//! An input is a 3-byte selector followed by the bytes to decode:
//!
//! | byte | meaning |
//! |---|---|
//! | 0 | what to decode, modulo 7: [`Mode`] |
//! | 1 | the API, an index into `ApiKey::ALL` (modulo its length); for [`Mode::Record`], an index into [`RECORDS`] |
//! | 2 | the version, an offset into the valid versions of the API, header or record (modulo their count) |
//!
//! Whatever decodes must satisfy DESIGN.md's contract: it re-encodes, `encoded_len` is exact,
//! decode(encode(x)) == x, and encode(decode(e)) == e for the re-encoding e (canonical bytes are a
//! fixed point). Any panic, in the decoder or in these checks, is a finding.

use kwire_protocol::bytes::Bytes;
use kwire_protocol::generated::*;
use kwire_protocol::wire::{Message, VersionRange};

/// What an input asks to decode (selector byte 0, modulo 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `RequestFrame::decode` (the frame's own header names the API and version).
    RequestFrame = 0,
    /// `ResponseFrame::decode` for the selected API and version.
    ResponseFrame = 1,
    /// The selected API's request body, `Message::decode_bytes`.
    RequestBody = 2,
    /// The selected API's response body, `Message::decode_bytes`.
    ResponseBody = 3,
    /// `RequestHeader::decode_bytes` at the selected header version.
    RequestHeader = 4,
    /// `ResponseHeader::decode_bytes` at the selected header version.
    ResponseHeader = 5,
    /// A coordinator record of `schemas/` (a data message without API key), `decode_bytes`.
    Record = 6,
}

impl Mode {
    /// Every mode, by number.
    pub const ALL: [Mode; 7] = [
        Mode::RequestFrame,
        Mode::ResponseFrame,
        Mode::RequestBody,
        Mode::ResponseBody,
        Mode::RequestHeader,
        Mode::ResponseHeader,
        Mode::Record,
    ];
}

/// A record decoder: decodes the bytes at a version and checks the contract; whether it decoded.
pub type RecordCheck = fn(&Bytes, i16) -> bool;

/// The coordinator records of `schemas/` (data messages, no API key): name, valid versions, check.
pub const RECORDS: &[(&str, VersionRange, RecordCheck)] = &[
    ("KwireCommittedOffsetKey", KwireCommittedOffsetKey::VALID_VERSIONS, check::<KwireCommittedOffsetKey>),
    ("KwireCommittedOffsetValue", KwireCommittedOffsetValue::VALID_VERSIONS, check::<KwireCommittedOffsetValue>),
    ("KwireConsumerGroupCurrentMemberAssignmentKey", KwireConsumerGroupCurrentMemberAssignmentKey::VALID_VERSIONS, check::<KwireConsumerGroupCurrentMemberAssignmentKey>),
    ("KwireConsumerGroupCurrentMemberAssignmentValue", KwireConsumerGroupCurrentMemberAssignmentValue::VALID_VERSIONS, check::<KwireConsumerGroupCurrentMemberAssignmentValue>),
    ("KwireConsumerGroupMemberMetadataKey", KwireConsumerGroupMemberMetadataKey::VALID_VERSIONS, check::<KwireConsumerGroupMemberMetadataKey>),
    ("KwireConsumerGroupMemberMetadataValue", KwireConsumerGroupMemberMetadataValue::VALID_VERSIONS, check::<KwireConsumerGroupMemberMetadataValue>),
    ("KwireConsumerGroupMetadataKey", KwireConsumerGroupMetadataKey::VALID_VERSIONS, check::<KwireConsumerGroupMetadataKey>),
    ("KwireConsumerGroupMetadataValue", KwireConsumerGroupMetadataValue::VALID_VERSIONS, check::<KwireConsumerGroupMetadataValue>),
    ("KwireConsumerGroupRegularExpressionKey", KwireConsumerGroupRegularExpressionKey::VALID_VERSIONS, check::<KwireConsumerGroupRegularExpressionKey>),
    ("KwireConsumerGroupRegularExpressionValue", KwireConsumerGroupRegularExpressionValue::VALID_VERSIONS, check::<KwireConsumerGroupRegularExpressionValue>),
    ("KwireConsumerGroupTargetAssignmentMemberKey", KwireConsumerGroupTargetAssignmentMemberKey::VALID_VERSIONS, check::<KwireConsumerGroupTargetAssignmentMemberKey>),
    ("KwireConsumerGroupTargetAssignmentMemberValue", KwireConsumerGroupTargetAssignmentMemberValue::VALID_VERSIONS, check::<KwireConsumerGroupTargetAssignmentMemberValue>),
    ("KwireConsumerGroupTargetAssignmentMetadataKey", KwireConsumerGroupTargetAssignmentMetadataKey::VALID_VERSIONS, check::<KwireConsumerGroupTargetAssignmentMetadataKey>),
    ("KwireConsumerGroupTargetAssignmentMetadataValue", KwireConsumerGroupTargetAssignmentMetadataValue::VALID_VERSIONS, check::<KwireConsumerGroupTargetAssignmentMetadataValue>),
    ("KwirePartitionEndKey", KwirePartitionEndKey::VALID_VERSIONS, check::<KwirePartitionEndKey>),
    ("KwirePartitionEndValue", KwirePartitionEndValue::VALID_VERSIONS, check::<KwirePartitionEndValue>),
    ("KwireStreamsGroupCurrentMemberAssignmentKey", KwireStreamsGroupCurrentMemberAssignmentKey::VALID_VERSIONS, check::<KwireStreamsGroupCurrentMemberAssignmentKey>),
    ("KwireStreamsGroupCurrentMemberAssignmentValue", KwireStreamsGroupCurrentMemberAssignmentValue::VALID_VERSIONS, check::<KwireStreamsGroupCurrentMemberAssignmentValue>),
    ("KwireStreamsGroupMemberMetadataKey", KwireStreamsGroupMemberMetadataKey::VALID_VERSIONS, check::<KwireStreamsGroupMemberMetadataKey>),
    ("KwireStreamsGroupMemberMetadataValue", KwireStreamsGroupMemberMetadataValue::VALID_VERSIONS, check::<KwireStreamsGroupMemberMetadataValue>),
    ("KwireStreamsGroupMetadataKey", KwireStreamsGroupMetadataKey::VALID_VERSIONS, check::<KwireStreamsGroupMetadataKey>),
    ("KwireStreamsGroupMetadataValue", KwireStreamsGroupMetadataValue::VALID_VERSIONS, check::<KwireStreamsGroupMetadataValue>),
    ("KwireStreamsGroupTargetAssignmentMemberKey", KwireStreamsGroupTargetAssignmentMemberKey::VALID_VERSIONS, check::<KwireStreamsGroupTargetAssignmentMemberKey>),
    ("KwireStreamsGroupTargetAssignmentMemberValue", KwireStreamsGroupTargetAssignmentMemberValue::VALID_VERSIONS, check::<KwireStreamsGroupTargetAssignmentMemberValue>),
    ("KwireStreamsGroupTargetAssignmentMetadataKey", KwireStreamsGroupTargetAssignmentMetadataKey::VALID_VERSIONS, check::<KwireStreamsGroupTargetAssignmentMetadataKey>),
    ("KwireStreamsGroupTargetAssignmentMetadataValue", KwireStreamsGroupTargetAssignmentMetadataValue::VALID_VERSIONS, check::<KwireStreamsGroupTargetAssignmentMetadataValue>),
    ("KwireStreamsGroupTopologyKey", KwireStreamsGroupTopologyKey::VALID_VERSIONS, check::<KwireStreamsGroupTopologyKey>),
    ("KwireStreamsGroupTopologyValue", KwireStreamsGroupTopologyValue::VALID_VERSIONS, check::<KwireStreamsGroupTopologyValue>),
    ("KwireTopicKey", KwireTopicKey::VALID_VERSIONS, check::<KwireTopicKey>),
    ("KwireTopicValue", KwireTopicValue::VALID_VERSIONS, check::<KwireTopicValue>),
];

/// A decoded selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selector {
    /// What to decode.
    pub mode: Mode,
    /// The API (for [`Mode::Record`], the record is `RECORDS[index]` instead).
    pub api: ApiKey,
    /// Selector byte 1, modulo the length of the list it indexes.
    pub index: usize,
    /// The version (of the API, or of the header for the header modes).
    pub version: i16,
}

/// Length of the selector in front of every input.
pub const SELECTOR_LEN: usize = 3;

fn pick(lowest: i16, highest: i16, b: u8) -> i16 {
    let n = (highest as i32 - lowest as i32 + 1).max(1);
    (lowest as i32 + b as i32 % n) as i16
}

/// Splits an input into its selector and the bytes to decode; `None` under 3 bytes.
pub fn split(data: &[u8]) -> Option<(Selector, &[u8])> {
    let (sel, rest) = data.split_first_chunk::<SELECTOR_LEN>()?;
    let mode = Mode::ALL[sel[0] as usize % Mode::ALL.len()];
    let n = if mode == Mode::Record {
        RECORDS.len()
    } else {
        ApiKey::ALL.len()
    };
    let index = sel[1] as usize % n;
    let api = ApiKey::ALL[sel[1] as usize % ApiKey::ALL.len()];
    let range = versions(mode, api, index);
    let version = pick(range.lowest, range.highest, sel[2]);
    Some((
        Selector {
            mode,
            api,
            index,
            version,
        },
        rest,
    ))
}

fn versions(mode: Mode, api: ApiKey, index: usize) -> VersionRange {
    match mode {
        Mode::RequestHeader => RequestHeader::VALID_VERSIONS,
        Mode::ResponseHeader => ResponseHeader::VALID_VERSIONS,
        Mode::Record => RECORDS[index].1,
        _ => api.valid_versions(),
    }
}

/// The selector bytes for `mode`, `api` and `version` (the inverse of [`split`]); not for
/// [`Mode::Record`] (see [`record_selector`]).
pub fn selector(mode: Mode, api: ApiKey, version: i16) -> [u8; SELECTOR_LEN] {
    let idx = ApiKey::ALL
        .iter()
        .position(|a| *a == api)
        .expect("an API of schemas/");
    let lowest = versions(mode, api, 0).lowest;
    [
        mode as u8,
        idx as u8,
        (version - lowest).clamp(0, 255) as u8,
    ]
}

/// The selector bytes for record `RECORDS[index]` at `version`.
pub fn record_selector(index: usize, version: i16) -> [u8; SELECTOR_LEN] {
    let lowest = RECORDS[index].1.lowest;
    [
        Mode::Record as u8,
        index as u8,
        (version - lowest).clamp(0, 255) as u8,
    ]
}

/// Decodes `data` as its selector says and checks the contract on success. Returns whether the
/// bytes decoded.
///
/// # Panics
/// When the decoder panics, or when a decoded value breaks the contract.
pub fn decode_any(data: &[u8]) -> bool {
    let Some((sel, rest)) = split(data) else {
        return false;
    };
    let b = Bytes::copy_from_slice(rest);
    let ok = match sel.mode {
        Mode::RequestFrame => RequestFrame::decode(b.clone())
            .map(|f| check_request(&f, &b))
            .is_ok(),
        Mode::ResponseFrame => ResponseFrame::decode(b.clone(), sel.api, sel.version)
            .map(|f| check_response(&f, &b, sel.api, sel.version))
            .is_ok(),
        Mode::RequestBody => request_body(sel.api, &b, sel.version),
        Mode::ResponseBody => response_body(sel.api, &b, sel.version),
        Mode::RequestHeader => check::<RequestHeader>(&b, sel.version),
        Mode::ResponseHeader => check::<ResponseHeader>(&b, sel.version),
        Mode::Record => (RECORDS[sel.index].2)(&b, sel.version),
    };
    check_view(sel, rest, ok);
    ok
}

// TODO(view): hook for the borrowed view API (`kwire_protocol::wire::view`, generated `…Ref<'a>`
// types), which is being added separately. When it lands, decode `bytes` here as a view of the
// same message or frame and check that it agrees with the owned decode: Ok exactly when
// `owned_ok`, the same error kind and offset otherwise, and view → owned equal to the owned value.
fn check_view(_sel: Selector, _bytes: &[u8], _owned_ok: bool) {}

fn request_body(api: ApiKey, b: &Bytes, v: i16) -> bool {
    match api {
        ApiKey::Produce => check::<ProduceRequest>(b, v),
        ApiKey::Fetch => check::<FetchRequest>(b, v),
        ApiKey::ListOffsets => check::<ListOffsetsRequest>(b, v),
        ApiKey::Metadata => check::<MetadataRequest>(b, v),
        ApiKey::OffsetCommit => check::<OffsetCommitRequest>(b, v),
        ApiKey::OffsetFetch => check::<OffsetFetchRequest>(b, v),
        ApiKey::FindCoordinator => check::<FindCoordinatorRequest>(b, v),
        ApiKey::DescribeGroups => check::<DescribeGroupsRequest>(b, v),
        ApiKey::ListGroups => check::<ListGroupsRequest>(b, v),
        ApiKey::ApiVersions => check::<ApiVersionsRequest>(b, v),
        ApiKey::CreateTopics => check::<CreateTopicsRequest>(b, v),
        ApiKey::ConsumerGroupHeartbeat => check::<ConsumerGroupHeartbeatRequest>(b, v),
        ApiKey::ConsumerGroupDescribe => check::<ConsumerGroupDescribeRequest>(b, v),
        ApiKey::StreamsGroupHeartbeat => check::<StreamsGroupHeartbeatRequest>(b, v),
        ApiKey::StreamsGroupDescribe => check::<StreamsGroupDescribeRequest>(b, v),
    }
}

fn response_body(api: ApiKey, b: &Bytes, v: i16) -> bool {
    match api {
        ApiKey::Produce => check::<ProduceResponse>(b, v),
        ApiKey::Fetch => check::<FetchResponse>(b, v),
        ApiKey::ListOffsets => check::<ListOffsetsResponse>(b, v),
        ApiKey::Metadata => check::<MetadataResponse>(b, v),
        ApiKey::OffsetCommit => check::<OffsetCommitResponse>(b, v),
        ApiKey::OffsetFetch => check::<OffsetFetchResponse>(b, v),
        ApiKey::FindCoordinator => check::<FindCoordinatorResponse>(b, v),
        ApiKey::DescribeGroups => check::<DescribeGroupsResponse>(b, v),
        ApiKey::ListGroups => check::<ListGroupsResponse>(b, v),
        ApiKey::ApiVersions => check::<ApiVersionsResponse>(b, v),
        ApiKey::CreateTopics => check::<CreateTopicsResponse>(b, v),
        ApiKey::ConsumerGroupHeartbeat => check::<ConsumerGroupHeartbeatResponse>(b, v),
        ApiKey::ConsumerGroupDescribe => check::<ConsumerGroupDescribeResponse>(b, v),
        ApiKey::StreamsGroupHeartbeat => check::<StreamsGroupHeartbeatResponse>(b, v),
        ApiKey::StreamsGroupDescribe => check::<StreamsGroupDescribeResponse>(b, v),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Decodes `b` as `T` at `v`; on success checks the contract (panicking when it breaks).
fn check<T: Message>(b: &Bytes, v: i16) -> bool {
    let Ok(m) = T::decode_bytes(b.clone(), v) else {
        return false;
    };
    let n = T::NAME;
    let e1 = m
        .to_bytes(v)
        .unwrap_or_else(|e| panic!("{n} v{v}: decodes but does not re-encode: {e}"));
    assert_eq!(
        m.encoded_len(v).ok(),
        Some(e1.len()),
        "{n} v{v}: encoded_len is not exact"
    );
    // Chunked encoding (every shared field spliced) gives the same bytes.
    let chunks = m
        .to_chunks(v, 1)
        .unwrap_or_else(|e| panic!("{n} v{v}: encodes but not into chunks: {e}"));
    assert_eq!(hex(&chunks.to_bytes()), hex(&e1), "{n} v{v}: chunks differ from to_bytes");
    if e1 != b {
        let m2 = T::decode_bytes(e1.clone(), v)
            .unwrap_or_else(|e| panic!("{n} v{v}: re-encoding {} does not decode: {e}", hex(&e1)));
        assert_eq!(m2, m, "{n} v{v}: decode(encode(decode(b))) != decode(b)");
        let e2 = m2.to_bytes(v).expect("re-encodes");
        assert_eq!(
            hex(&e2),
            hex(&e1),
            "{n} v{v}: the re-encoding is not canonical"
        );
    }
    true
}

fn check_request(f: &RequestFrame, b: &Bytes) {
    let e1 = f
        .to_bytes()
        .unwrap_or_else(|e| panic!("request frame decodes but does not re-encode: {e}"));
    assert_eq!(
        f.encoded_len().ok(),
        Some(e1.len()),
        "request frame: encoded_len is not exact"
    );
    if e1 != b {
        let f2 = RequestFrame::decode(e1.clone()).unwrap_or_else(|e| {
            panic!(
                "request frame re-encoding {} does not decode: {e}",
                hex(&e1)
            )
        });
        assert_eq!(
            &f2, f,
            "request frame: decode(encode(decode(b))) != decode(b)"
        );
        assert_eq!(
            hex(&f2.to_bytes().expect("re-encodes")),
            hex(&e1),
            "request frame: not canonical"
        );
    }
}

fn check_response(f: &ResponseFrame, b: &Bytes, api: ApiKey, v: i16) {
    let at = || format!("{} v{v} response frame", api.name());
    let e1 = f
        .to_bytes(v)
        .unwrap_or_else(|e| panic!("{} decodes but does not re-encode: {e}", at()));
    assert_eq!(
        f.encoded_len(v).ok(),
        Some(e1.len()),
        "{}: encoded_len is not exact",
        at()
    );
    if e1 != b {
        let f2 = ResponseFrame::decode(e1.clone(), api, v)
            .unwrap_or_else(|e| panic!("{}: re-encoding {} does not decode: {e}", at(), hex(&e1)));
        assert_eq!(&f2, f, "{}: decode(encode(decode(b))) != decode(b)", at());
        assert_eq!(
            hex(&f2.to_bytes(v).expect("re-encodes")),
            hex(&e1),
            "{}: not canonical",
            at()
        );
    }
}
