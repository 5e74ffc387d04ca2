//! What the `decode_any` fuzz target does, as a library so that `seed_corpus` writes inputs in the
//! same layout the target reads.
//!
//! An input is a 4-byte selector followed by the bytes to decode:
//!
//! | byte | meaning |
//! |---|---|
//! | 0 | what to decode, modulo 3: [`Mode`] |
//! | 1, 2 | big-endian index: for the frame modes into `ApiKey::ALL`, for [`Mode::Message`] into [`MESSAGES`] (modulo the length) |
//! | 3 | the version, an offset into the valid versions of the API or message (modulo their count) |
//!
//! Nothing here names a message: the frames go through the generated dispatch (`ApiKey::ALL`,
//! `RequestFrame`, `ResponseFrame`), and [`MESSAGES`] lists every message of the generated code
//! (requests, responses, headers, kwire's records), read by `build.rs` from the generated
//! module's re-exports. A spec added to `schemas/` is fuzzed once `cargo xtask codegen` has run.
//!
//! [`Mode::Message`] reads the bytes twice, owned (`Message::decode_bytes`) and through the
//! message's borrowed view (`<Type>Ref::parse`, read back with `to_owned`): both must accept the
//! same inputs, give the same value, and otherwise fail with the same error kind at the same byte
//! offset.
//!
//! Whatever decodes must keep the codec contract of `kwire_protocol::wire` (its module docs):
//! it re-encodes, `encoded_len` is exact, chunked encoding gives the same bytes, decode(encode(x))
//! == x, and encode(decode(e)) == e for the re-encoding e (canonical bytes are a fixed point). Any
//! panic, in the decoder or in these checks, is a finding.

pub mod coordinator;
pub mod records;

use kwire_protocol::bytes::Bytes;
use kwire_protocol::generated::*;
use kwire_protocol::wire::sample::{Sample, SampleGen, SampleMode};
use kwire_protocol::wire::{DecodeError, Message, MessageKind, VersionRange};

/// What an input asks to decode (selector byte 0, modulo 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `RequestFrame::decode` (the frame's own header names the API and version).
    RequestFrame = 0,
    /// `ResponseFrame::decode` for the selected API and version.
    ResponseFrame = 1,
    /// The selected message of [`MESSAGES`], `Message::decode_bytes`.
    Message = 2,
}

impl Mode {
    /// Every mode, by number.
    pub const ALL: [Mode; 3] = [Mode::RequestFrame, Mode::ResponseFrame, Mode::Message];
}

/// One message of the generated code: what the target and the seed tool need of it.
#[derive(Clone, Copy)]
pub struct MessageEntry {
    /// The spec's `name` (`Message::NAME`).
    pub name: &'static str,
    /// The spec's `type`.
    pub kind: MessageKind,
    /// The spec's `apiKey`, when it has one.
    pub api_key: Option<i16>,
    /// The spec's `validVersions`.
    pub versions: VersionRange,
    /// Decodes bytes at a version, owned and through the message's view (`…Ref::parse`), and
    /// checks that both agree and that the contract holds on success (panicking when not);
    /// whether they decoded.
    pub check: fn(&Bytes, i16) -> bool,
    /// A sample made by the given mode and seed, encoded at a version.
    pub sample: fn(SampleMode, u64, i16) -> Bytes,
}

/// Builds [`MESSAGES`] from the `module::Type / TypeRef` triples `build.rs` found.
macro_rules! messages {
    ($($m:ident :: $t:ident / $r:ident),* $(,)?) => {
        /// Every message of `kwire_protocol::generated`, in the order of its re-exports.
        pub const MESSAGES: &[MessageEntry] = &[$(MessageEntry {
            name: <$m::$t as Message>::NAME,
            kind: <$m::$t as Message>::KIND,
            api_key: <$m::$t as Message>::API_KEY,
            versions: <$m::$t as Message>::VALID_VERSIONS,
            check: |b, v| check::<$m::$t>(b, v, |s, v| $m::$r::parse(s, v).map(|r| r.to_owned())),
            sample: sample::<$m::$t>,
        }),*];
    };
}

include!(concat!(env!("OUT_DIR"), "/messages.rs"));

/// The index into [`MESSAGES`] of the message named `name`.
pub fn message_index(name: &str) -> Option<usize> {
    MESSAGES.iter().position(|m| m.name == name)
}

/// The index into [`MESSAGES`] of the request (or response) of API `key`.
pub fn body_index(kind: MessageKind, key: i16) -> Option<usize> {
    MESSAGES
        .iter()
        .position(|m| m.kind == kind && m.api_key == Some(key))
}

/// A decoded selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selector {
    /// What to decode.
    pub mode: Mode,
    /// Selector bytes 1 and 2, modulo the length of the list they index (`ApiKey::ALL` for the
    /// frame modes, [`MESSAGES`] for [`Mode::Message`]).
    pub index: usize,
    /// The version (of the API, or of the message).
    pub version: i16,
}

impl Selector {
    /// The API of a frame mode.
    pub fn api(&self) -> ApiKey {
        ApiKey::ALL[self.index % ApiKey::ALL.len()]
    }
}

/// Length of the selector in front of every input.
pub const SELECTOR_LEN: usize = 4;

fn pick(range: VersionRange, b: u8) -> i16 {
    let n = (range.highest as i32 - range.lowest as i32 + 1).max(1);
    (range.lowest as i32 + b as i32 % n) as i16
}

fn versions(mode: Mode, index: usize) -> VersionRange {
    match mode {
        Mode::Message => MESSAGES[index].versions,
        Mode::RequestFrame | Mode::ResponseFrame => ApiKey::ALL[index].valid_versions(),
    }
}

/// Splits an input into its selector and the bytes to decode; `None` under 4 bytes.
pub fn split(data: &[u8]) -> Option<(Selector, &[u8])> {
    let (sel, rest) = data.split_first_chunk::<SELECTOR_LEN>()?;
    let mode = Mode::ALL[sel[0] as usize % Mode::ALL.len()];
    let n = match mode {
        Mode::Message => MESSAGES.len(),
        Mode::RequestFrame | Mode::ResponseFrame => ApiKey::ALL.len(),
    };
    let index = u16::from_be_bytes([sel[1], sel[2]]) as usize % n;
    let version = pick(versions(mode, index), sel[3]);
    Some((
        Selector {
            mode,
            index,
            version,
        },
        rest,
    ))
}

/// The selector bytes for `mode`, `index` (into `ApiKey::ALL` or [`MESSAGES`], by mode) and
/// `version` (the inverse of [`split`]).
pub fn selector(mode: Mode, index: usize, version: i16) -> [u8; SELECTOR_LEN] {
    let [hi, lo] = u16::try_from(index)
        .expect("fewer than 65536 messages")
        .to_be_bytes();
    let lowest = versions(mode, index).lowest;
    [mode as u8, hi, lo, (version - lowest).clamp(0, 255) as u8]
}

/// The index of `api` in `ApiKey::ALL`.
pub fn api_index(api: ApiKey) -> usize {
    ApiKey::ALL
        .iter()
        .position(|a| *a == api)
        .expect("an API of schemas/")
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
    match sel.mode {
        Mode::RequestFrame => RequestFrame::decode(b.clone())
            .map(|f| check_request(&f, &b))
            .is_ok(),
        Mode::ResponseFrame => ResponseFrame::decode(b.clone(), sel.api(), sel.version)
            .map(|f| check_response(&f, &b, sel.api(), sel.version))
            .is_ok(),
        Mode::Message => (MESSAGES[sel.index].check)(&b, sel.version),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A sample of `T` made by `mode` from `seed`, encoded at `v`.
fn sample<T: Message + Sample>(mode: SampleMode, seed: u64, v: i16) -> Bytes {
    T::sample(&mut SampleGen::new(seed, mode), v)
        .to_bytes(v)
        .expect("a sample encodes")
}

/// Decodes `b` as `T` at `v`, owned and with `view` (the message's borrowed view, read back into
/// an owned value): both must succeed or fail together, with the same value or the same error
/// kind at the same byte offset (the promise of `kwire_protocol::wire::view::View::check_at`). On
/// success checks the contract (panicking when it breaks).
fn check<T: Message>(b: &Bytes, v: i16, view: fn(&[u8], i16) -> Result<T, DecodeError>) -> bool {
    let n = T::NAME;
    let owned = T::decode_bytes(b.clone(), v);
    let viewed = view(b, v);
    let m = match (owned, viewed) {
        (Ok(m), Ok(w)) => {
            assert_eq!(
                w, m,
                "{n} v{v}: the view reads another value than owned decoding"
            );
            m
        }
        (Err(a), Err(w)) => {
            assert!(
                a.kind() == w.kind() && a.offset() == w.offset(),
                "{n} v{v}: owned decoding fails with {a}, the view with {w}"
            );
            return false;
        }
        (a, w) => panic!("{n} v{v}: owned decoding gives {a:?}, the view {w:?}"),
    };
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
    assert_eq!(
        hex(&chunks.to_bytes()),
        hex(&e1),
        "{n} v{v}: chunks differ from to_bytes"
    );
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
