//! `kwire decode` and `kwire encode`: frames of the APIs in `schemas/` (the protocol crate's
//! generated code) to and from Kafka's JSON form (`kwire_protocol::wire::json`).
//!
//! A frame is header + body, without the 4-byte size prefix (with `--size-prefixed`, `decode`
//! reads and checks the prefix and `encode` writes it). A frame pasted with its prefix but without
//! the flag fails to decode, and the error says so (`hint: the input starts with a 4-byte size
//! prefix …`) when the first 4 bytes, as a big-endian int32, equal the number of bytes after them.
//! Input bytes are given as hex on the
//! command line (whitespace allowed anywhere), or as `@FILE` (`@-` for standard input). The rule
//! for a file: if every byte is printable ASCII or ASCII whitespace, the file is hex text, and a
//! character that is not a hex digit is a usage error that names it (`bad hex in FILE: 'g' at
//! character 1 (line 1, column 2) is not a hex digit`), as on the command line; a file with any
//! other byte (a control byte or a non-ASCII byte) is the raw frame. A raw request frame always
//! starts with a `0x00` byte (API keys are below 256), so it is never mistaken for hex; a raw
//! response frame made only of printable bytes would be, so give such a frame as hex.
//!
//! A request's header (its first 4 bytes; in JSON, `requestApiKey` and `requestApiVersion`) must
//! name `--api` and `--version`: that is checked first, so a mismatch (or a response given
//! without `--response`, whose correlation id reads as some API key) is reported as such, not as
//! whatever error reading the body as `--api` would give.
//!
//! JSON is read as Kafka's JSON converters read it (the contract of `kwire_protocol::wire::json`):
//! unknown keys are ignored, and a field the version lacks is read and refused at encoding only
//! when it holds a non-default value and is not ignorable. `kwire encode --help` says so.
//!
//! Exit codes: 0 done; 1 the input does not decode, does not match `--api`/`--version`, or its
//! JSON cannot be read or encoded (the error, with its field path and, for decoding, byte offset,
//! on standard error); 2 a usage error (an API key or version that `schemas/` lacks, bad hex,
//! text that is not JSON, an unreadable file).

use kwire_protocol::bytes::{Bytes, BytesMut};
use kwire_protocol::generated::{ApiKey, RequestFrame, ResponseFrame};
use kwire_protocol::records::json::with_expanded_records;
use kwire_protocol::records::DecodeOptions as RecordsOptions;
use kwire_protocol::wire::json::Value;
use std::io::Read;
use std::path::Path;

/// A failure and its exit code.
pub struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn usage(message: impl Into<String>) -> Self {
        Failure {
            code: 2,
            message: message.into(),
        }
    }
    fn input(message: impl Into<String>) -> Self {
        Failure {
            code: 1,
            message: message.into(),
        }
    }
    /// Prints the message and gives the exit code.
    pub fn report(self) -> u8 {
        crate::out::eprint(&format!("error: {}\n", self.message));
        self.code
    }
}

/// The API named by `--api`: a key number or a name (`ConsumerGroupHeartbeat`, any case).
pub fn api_key(text: &str) -> Result<ApiKey, Failure> {
    let t = text.trim();
    let found = match t.parse::<i16>() {
        Ok(k) => ApiKey::from_i16(k),
        Err(_) => ApiKey::ALL
            .iter()
            .copied()
            .find(|a| a.name().eq_ignore_ascii_case(t)),
    };
    found.ok_or_else(|| {
        let known: Vec<String> = ApiKey::ALL
            .iter()
            .map(|a| format!("{} {}", a.as_i16(), a.name()))
            .collect();
        let forms =
            "--api takes an API key number or an API name, in any case (e.g. `3` or `Metadata`)";
        let list = format!("schemas/ has {}", known.join(", "));
        Failure::usage(match closest_api(t) {
            Some(a) => format!(
                "unknown API key `{t}`: did you mean `{}` (key {})? {forms}; {list}",
                a.name(),
                a.as_i16()
            ),
            None if t.parse::<i16>().is_ok() => format!("unknown API key `{t}`: {list}; {forms}"),
            None => format!("unknown API key `{t}`: {forms}; {list}"),
        })
    })
}

/// The API whose name is closest to `text` (a typo, or a spec name such as `MetadataRequest`).
fn closest_api(text: &str) -> Option<ApiKey> {
    let lower = text.to_ascii_lowercase();
    let stem = lower
        .strip_suffix("request")
        .or_else(|| lower.strip_suffix("response"))
        .unwrap_or(&lower);
    let names: Vec<&str> = ApiKey::ALL.iter().map(|a| a.name()).collect();
    let name = kwire_codegen::suggest::suggest(stem, &names)?;
    ApiKey::ALL.iter().copied().find(|a| a.name() == name)
}

fn check_version(api: ApiKey, version: i16) -> Result<(), Failure> {
    let v = api.valid_versions();
    if v.contains(version) {
        Ok(())
    } else {
        Err(Failure::usage(format!(
            "{} has no version {version} (valid versions {v})",
            api.name()
        )))
    }
}

/// The raw contents of `@FILE` (`@-`: standard input).
fn read_arg_file(path: &str) -> Result<Vec<u8>, Failure> {
    let (name, source): (&str, Box<dyn Read>) = if path == "-" {
        ("standard input", Box::new(std::io::stdin()))
    } else {
        (
            path,
            Box::new(
                std::fs::File::open(path).map_err(|e| Failure::usage(format!("{path}: {e}")))?,
            ),
        )
    };
    let mut v = Vec::new();
    source
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut v)
        .map_err(|e| Failure::usage(format!("{name}: {e}")))?;
    if v.len() as u64 > MAX_INPUT_BYTES {
        return Err(Failure::usage(format!(
            "{name}: more than {MAX_INPUT_BYTES} bytes; a frame is at most Kafka's socket.request.max.bytes \
             (100 MiB by default), twice that as hex text"
        )));
    }
    Ok(v)
}

/// The most `@FILE` (or `@-`) may hold, in bytes: 256 MiB, room for a frame of Kafka's default
/// `socket.request.max.bytes` (100 MiB) written as hex text. Reading stops there, so a file such
/// as `/dev/zero` is refused instead of filling memory.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Bytes from hex text, whitespace ignored. A bad character is named by its 0-based index among
/// the characters of `text`.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, Failure> {
    parse_hex_in(text, None)
}

/// As [`parse_hex`]; for the text of `@FILE` (`file`), the message names the file and the line
/// and column of a bad character.
fn parse_hex_in(text: &str, file: Option<&str>) -> Result<Vec<u8>, Failure> {
    let mut digits = Vec::new();
    let (mut line, mut column) = (1, 1);
    for (i, c) in text.chars().enumerate() {
        if c.is_ascii_hexdigit() {
            digits.push(c);
        } else if !c.is_whitespace() {
            return Err(Failure::usage(match file {
                None => format!("bad hex: {c:?} at character {i} is not a hex digit"),
                Some(f) => format!(
                    "bad hex in {f}: {c:?} at character {i} (line {line}, column {column}) is not a hex digit \
                     (a file of printable text is read as hex)"
                ),
            }));
        }
        if c == '\n' {
            (line, column) = (line + 1, 1);
        } else {
            column += 1;
        }
    }
    if digits.len() % 2 == 1 {
        let place = file.map(|f| format!(" in {f}")).unwrap_or_default();
        return Err(Failure::usage(format!(
            "bad hex{place}: odd number of hex digits ({})",
            digits.len()
        )));
    }
    Ok(digits
        .chunks(2)
        .map(|p| {
            let hi = p[0].to_digit(16).unwrap_or(0);
            let lo = p[1].to_digit(16).unwrap_or(0);
            (hi * 16 + lo) as u8
        })
        .collect())
}

/// Whether the contents of `@FILE` are hex text rather than a raw frame: every byte printable
/// ASCII or ASCII whitespace (see the module docs).
pub fn is_hex_text(raw: &[u8]) -> bool {
    raw.iter()
        .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace())
}

/// The frame bytes of a `decode` argument: hex, or `@FILE` (hex text or raw bytes).
pub fn frame_bytes(arg: &str) -> Result<Vec<u8>, Failure> {
    match arg.strip_prefix('@') {
        Some(path) => {
            let raw = read_arg_file(path)?;
            if is_hex_text(&raw) {
                let name = if path == "-" { "standard input" } else { path };
                parse_hex_in(std::str::from_utf8(&raw).unwrap_or_default(), Some(name))
            } else {
                Ok(raw)
            }
        }
        None => parse_hex(arg),
    }
}

/// The JSON of an `encode` argument: JSON text, or `@FILE`.
fn json_arg(arg: &str) -> Result<Value, Failure> {
    let text = match arg.strip_prefix('@') {
        Some(path) => String::from_utf8(read_arg_file(path)?)
            .map_err(|_| Failure::usage(format!("{path}: not UTF-8 text")))?,
        None => arg.to_string(),
    };
    serde_json::from_str(&text).map_err(|e| Failure::usage(format!("not JSON: {e}")))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `API key 18 (ApiVersions)`, or `API key 99 (not in schemas/)`.
fn describe_key(key: i16) -> String {
    match ApiKey::from_i16(key) {
        Some(a) => format!("API key {key} ({})", a.name()),
        None => format!("API key {key} (not in schemas/)"),
    }
}

/// A request header (of the frame or of its JSON: `what`) must name `--api` and `--version`.
fn check_header(what: &str, api: ApiKey, version: i16, key: i16, hv: i16) -> Result<(), Failure> {
    if key == api.as_i16() && hv == version {
        return Ok(());
    }
    // A response's header starts with its correlation id, which reads as some API key.
    let hint = if key != api.as_i16() {
        " (if it is a response, add --response)"
    } else {
        ""
    };
    Err(Failure::input(format!(
        "{what} says {} version {hv}, but --api {} --version {version} was given{hint}",
        describe_key(key),
        api.as_i16()
    )))
}

/// The API key and version a frame starts with, if it has 4 bytes.
fn peek_key(bytes: &[u8]) -> Option<(i16, i16)> {
    match bytes {
        [a, b, c, d, ..] => Some((i16::from_be_bytes([*a, *b]), i16::from_be_bytes([*c, *d]))),
        _ => None,
    }
}

/// The `requestApiKey` and `requestApiVersion` of a JSON frame's header, when both are there
/// as 16-bit integers (otherwise reading the JSON reports what is wrong).
fn json_key(json: &Value) -> Option<(i16, i16)> {
    let h = json.get("header")?;
    let get = |k: &str| h.get(k)?.as_i64().and_then(|n| i16::try_from(n).ok());
    Some((get("requestApiKey")?, get("requestApiVersion")?))
}

/// Whether `raw` looks like a frame with its size prefix: its first 4 bytes, as a big-endian
/// int32, equal the number of bytes after them. Gives that number.
pub fn size_prefix_of(raw: &[u8]) -> Option<usize> {
    let (prefix, rest) = raw.split_first_chunk::<4>()?;
    let n = i32::from_be_bytes(*prefix);
    (usize::try_from(n).ok() == Some(rest.len())).then_some(rest.len())
}

/// The frame inside `raw`, a size prefix followed by exactly that many bytes
/// (`kwire_protocol::wire::frame::read_frame`).
fn strip_size_prefix(raw: Vec<u8>) -> Result<Vec<u8>, Failure> {
    let total = raw.len();
    let mut buf = BytesMut::from(&raw[..]);
    match kwire_protocol::wire::frame::read_frame(&mut buf, i32::MAX as usize) {
        Ok(Some(frame)) if buf.is_empty() => Ok(frame.to_vec()),
        Ok(Some(frame)) => Err(Failure::input(format!(
            "the size prefix says {} bytes, but {} follow it (--size-prefixed: one frame, nothing after it)",
            frame.len(),
            total - 4
        ))),
        Ok(None) if total < 4 => Err(Failure::input(format!("--size-prefixed: {total} bytes, too short for the 4-byte size prefix"))),
        Ok(None) => Err(Failure::input(format!(
            "the size prefix says {} bytes, but only {} follow it",
            i32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]]),
            total - 4
        ))),
        Err(e) => Err(Failure::input(format!("the size prefix: {e}"))),
    }
}

/// Which frame `kwire decode` and `kwire encode` read or write: the options they share.
#[derive(Debug, Clone, Copy)]
pub struct FrameArgs<'a> {
    /// `--api`: key number or name.
    pub api: &'a str,
    /// `--version`.
    pub version: i16,
    /// `--response`: a response to a request of that API and version.
    pub response: bool,
    /// `--size-prefixed`: behind the 4-byte size prefix.
    pub size_prefixed: bool,
}

/// `kwire decode`: the frame as pretty JSON, `{"header": …, "body": …}`. With `size_prefixed`,
/// the input is the frame behind its 4-byte size prefix; without it, an input that fails to
/// decode and looks size-prefixed ([`size_prefix_of`]) gets a hint saying so. With `records`,
/// every `records` field is expanded into its batches (`kwire_protocol::records::json`) instead
/// of base64; a record set that does not decode is an input error naming the field.
pub fn decode(args: &FrameArgs<'_>, records: bool, input: &str) -> Result<String, Failure> {
    let &FrameArgs {
        api,
        version,
        response,
        size_prefixed,
    } = args;
    let api = api_key(api)?;
    check_version(api, version)?;
    let raw = frame_bytes(input)?;
    let to_json = |raw| {
        if records {
            with_expanded_records(RecordsOptions::default(), || {
                decode_frame(api, version, response, raw)
            })
        } else {
            decode_frame(api, version, response, raw)
        }
    };
    if size_prefixed {
        return to_json(strip_size_prefix(raw)?);
    }
    let prefix = size_prefix_of(&raw);
    to_json(raw).map_err(|mut f| {
        if let (1, Some(n)) = (f.code, prefix) {
            f.message.push_str(&format!(
                "\nhint: the input starts with a 4-byte size prefix ({n}, the number of bytes after it); \
                 drop it, or pass --size-prefixed"
            ));
        }
        f
    })
}

/// Decodes a frame without size prefix (see [`decode`]).
fn decode_frame(
    api: ApiKey,
    version: i16,
    response: bool,
    raw: Vec<u8>,
) -> Result<String, Failure> {
    let peeked = peek_key(&raw);
    let bytes = Bytes::from(raw);
    let json = if response {
        // ApiVersions: a broker that does not know the version asked answers in the v0 layout
        // (KIP-511); read it as Kafka's client does and say so.
        // (`decode_with_fallback` is plain `decode` for every other API.)
        let (frame, read_at) =
            ResponseFrame::decode_with_fallback(bytes, api, version).map_err(|e| {
                // A request of --api/--version given with --response.
                let hint = if peeked == Some((api.as_i16(), version)) {
                    format!(
                    " (the frame starts with the request header of --api {} --version {version}: \
                     if it is a request, drop --response)",
                    api.as_i16()
                )
                } else {
                    String::new()
                };
                Failure::input(format!("decode: {e}{hint}"))
            })?;
        if read_at != version {
            eprintln!(
                "note: read in the ApiVersions v{read_at} layout: a broker that does not know v{version} \
                 answers so (KIP-511)"
            );
        }
        frame.to_json(read_at)
    } else {
        if let Some((key, hv)) = peeked {
            check_header("the frame's header", api, version, key, hv)?;
        }
        let frame =
            RequestFrame::decode(bytes).map_err(|e| Failure::input(format!("decode: {e}")))?;
        frame.to_json()
    };
    let json = json.map_err(|e| Failure::input(format!("to JSON: {e}")))?;
    serde_json::to_string_pretty(&json).map_err(|e| Failure::input(format!("to JSON: {e}")))
}

/// `kwire encode`: the frame bytes of a frame's JSON form (with `size_prefixed`, behind their
/// 4-byte size prefix).
pub fn encode(args: &FrameArgs<'_>, input: &str) -> Result<Vec<u8>, Failure> {
    let &FrameArgs {
        api,
        version,
        response,
        size_prefixed,
    } = args;
    let frame = encode_frame(api, version, response, input)?;
    if !size_prefixed {
        return Ok(frame);
    }
    let mut out = Vec::with_capacity(frame.len() + 4);
    kwire_protocol::wire::frame::write_frame(&mut out, &frame)
        .map_err(|e| Failure::input(format!("encode: {e}")))?;
    Ok(out)
}

/// Encodes a frame without size prefix (see [`encode`]).
fn encode_frame(api: &str, version: i16, response: bool, input: &str) -> Result<Vec<u8>, Failure> {
    let api = api_key(api)?;
    check_version(api, version)?;
    let json = json_arg(input)?;
    let bytes = if response {
        if let Some((key, hv)) = json_key(&json) {
            return Err(Failure::input(format!(
                "the JSON's header is a request header (requestApiKey {key}, requestApiVersion {hv}), but --response was given"
            )));
        }
        let frame = ResponseFrame::from_json(&json, api, version)
            .map_err(|e| Failure::input(format!("from JSON: {e}")))?;
        frame.to_bytes(version)
    } else {
        if let Some((key, hv)) = json_key(&json) {
            check_header("the JSON's header", api, version, key, hv)?;
        }
        let frame = RequestFrame::from_json(&json)
            .map_err(|e| Failure::input(format!("from JSON: {e}")))?;
        frame.to_bytes()
    };
    Ok(bytes
        .map_err(|e| Failure::input(format!("encode: {e}")))?
        .to_vec())
}

/// Runs `kwire decode` and prints the result: the exit status.
pub fn run_decode(args: &FrameArgs<'_>, records: bool, input: &str) -> u8 {
    match decode(args, records, input) {
        Ok(text) => {
            crate::out::print(&format!("{text}\n"));
            0
        }
        Err(f) => f.report(),
    }
}

/// Runs `kwire encode`: hex on standard output, or the raw frame into `out`. The exit status.
pub fn run_encode(args: &FrameArgs<'_>, input: &str, out: Option<&Path>) -> u8 {
    match encode(args, input) {
        Ok(bytes) => match out {
            Some(path) => match std::fs::write(path, &bytes) {
                Ok(()) => 0,
                Err(e) => Failure::usage(format!("{}: {e}", path.display())).report(),
            },
            None => {
                crate::out::print(&format!("{}\n", hex(&bytes)));
                0
            }
        },
        Err(f) => f.report(),
    }
}
