//! `kwire decode` and `kwire encode`: frames of the APIs in `schemas/` (the protocol crate's
//! generated code) to and from Kafka's JSON form (`kwire_protocol::wire::json`).
//!
//! A frame is header + body, without the 4-byte size prefix. Input bytes are given as hex on the
//! command line (whitespace allowed anywhere), or as `@FILE` (`@-` for standard input): a file
//! whose every byte is an ASCII hex digit or whitespace is read as hex text, anything else as the
//! raw frame. A raw request frame always starts with a `0x00` byte (API keys are below 256), so it
//! is never mistaken for hex; a raw response frame made only of hex-digit bytes would be, so give
//! such a frame as hex.
//!
//! Exit codes: 0 done; 1 the input does not decode, does not match `--api`/`--version`, or its
//! JSON cannot be read or encoded (the error, with its field path and, for decoding, byte offset,
//! on standard error); 2 a usage error (an API key or version that `schemas/` lacks, bad hex,
//! text that is not JSON, an unreadable file).

use kwire_protocol::bytes::Bytes;
use kwire_protocol::generated::{ApiKey, RequestFrame, ResponseFrame};
use kwire_protocol::wire::json::Value;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

/// A failure and its exit code.
pub struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn usage(message: impl Into<String>) -> Self {
        Failure { code: 2, message: message.into() }
    }
    fn input(message: impl Into<String>) -> Self {
        Failure { code: 1, message: message.into() }
    }
    /// Prints the message and gives the exit code.
    pub fn report(self) -> ExitCode {
        eprintln!("error: {}", self.message);
        ExitCode::from(self.code)
    }
}

/// The API named by `--api`: a key number or a name (`ConsumerGroupHeartbeat`, any case).
pub fn api_key(text: &str) -> Result<ApiKey, Failure> {
    let t = text.trim();
    let found = match t.parse::<i16>() {
        Ok(k) => ApiKey::from_i16(k),
        Err(_) => ApiKey::ALL.iter().copied().find(|a| a.name().eq_ignore_ascii_case(t)),
    };
    found.ok_or_else(|| {
        let known: Vec<String> = ApiKey::ALL.iter().map(|a| format!("{} {}", a.as_i16(), a.name())).collect();
        Failure::usage(format!("unknown API key `{t}`: schemas/ has {}", known.join(", ")))
    })
}

fn check_version(api: ApiKey, version: i16) -> Result<(), Failure> {
    let v = api.valid_versions();
    if v.contains(version) {
        Ok(())
    } else {
        Err(Failure::usage(format!("{} has no version {version} (valid versions {v})", api.name())))
    }
}

/// The raw contents of `@FILE` (`@-`: standard input).
fn read_arg_file(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        let mut v = Vec::new();
        std::io::stdin().read_to_end(&mut v).map_err(|e| Failure::usage(format!("standard input: {e}")))?;
        return Ok(v);
    }
    std::fs::read(path).map_err(|e| Failure::usage(format!("{path}: {e}")))
}

/// Bytes from hex text, whitespace ignored.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, Failure> {
    let digits: Vec<(usize, char)> = text.char_indices().filter(|(_, c)| !c.is_whitespace()).collect();
    if let Some((i, c)) = digits.iter().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(Failure::usage(format!("bad hex: {c:?} at character {i} is not a hex digit")));
    }
    if digits.len() % 2 == 1 {
        return Err(Failure::usage(format!("bad hex: odd number of hex digits ({})", digits.len())));
    }
    Ok(digits
        .chunks(2)
        .map(|p| {
            let hi = p[0].1.to_digit(16).unwrap_or(0);
            let lo = p[1].1.to_digit(16).unwrap_or(0);
            (hi * 16 + lo) as u8
        })
        .collect())
}

/// The frame bytes of a `decode` argument: hex, or `@FILE` (hex text or raw bytes).
pub fn frame_bytes(arg: &str) -> Result<Vec<u8>, Failure> {
    match arg.strip_prefix('@') {
        Some(path) => {
            let raw = read_arg_file(path)?;
            let is_hex_text = raw.iter().any(u8::is_ascii_hexdigit)
                && raw.iter().all(|b| b.is_ascii_hexdigit() || b.is_ascii_whitespace());
            if is_hex_text {
                parse_hex(std::str::from_utf8(&raw).unwrap_or_default())
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
        Some(path) => String::from_utf8(read_arg_file(path)?).map_err(|_| Failure::usage(format!("{path}: not UTF-8 text")))?,
        None => arg.to_string(),
    };
    serde_json::from_str(&text).map_err(|e| Failure::usage(format!("not JSON: {e}")))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn check_header(api: ApiKey, version: i16, key: i16, hv: i16) -> Result<(), Failure> {
    if key != api.as_i16() || hv != version {
        return Err(Failure::input(format!(
            "the frame's header says API key {key} version {hv}, but --api {} --version {version} were given",
            api.as_i16()
        )));
    }
    Ok(())
}

/// `kwire decode`: the frame as pretty JSON, `{"header": …, "body": …}`.
pub fn decode(api: &str, version: i16, response: bool, input: &str) -> Result<String, Failure> {
    let api = api_key(api)?;
    check_version(api, version)?;
    let bytes = Bytes::from(frame_bytes(input)?);
    let json = if response {
        let frame = ResponseFrame::decode(bytes, api, version).map_err(|e| Failure::input(format!("decode: {e}")))?;
        frame.to_json(version)
    } else {
        let frame = RequestFrame::decode(bytes).map_err(|e| Failure::input(format!("decode: {e}")))?;
        check_header(api, version, frame.header.request_api_key, frame.header.request_api_version)?;
        frame.to_json()
    };
    let json = json.map_err(|e| Failure::input(format!("to JSON: {e}")))?;
    serde_json::to_string_pretty(&json).map_err(|e| Failure::input(format!("to JSON: {e}")))
}

/// `kwire encode`: the frame bytes of a frame's JSON form.
pub fn encode(api: &str, version: i16, response: bool, input: &str) -> Result<Vec<u8>, Failure> {
    let api = api_key(api)?;
    check_version(api, version)?;
    let json = json_arg(input)?;
    let bytes = if response {
        let frame = ResponseFrame::from_json(&json, api, version).map_err(|e| Failure::input(format!("from JSON: {e}")))?;
        frame.to_bytes(version)
    } else {
        let frame = RequestFrame::from_json(&json).map_err(|e| Failure::input(format!("from JSON: {e}")))?;
        check_header(api, version, frame.header.request_api_key, frame.header.request_api_version)?;
        frame.to_bytes()
    };
    Ok(bytes.map_err(|e| Failure::input(format!("encode: {e}")))?.to_vec())
}

/// Runs `kwire decode` and prints the result.
pub fn run_decode(api: &str, version: i16, response: bool, input: &str) -> ExitCode {
    match decode(api, version, response, input) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(f) => f.report(),
    }
}

/// Runs `kwire encode`: hex on standard output, or the raw frame into `out`.
pub fn run_encode(api: &str, version: i16, response: bool, input: &str, out: Option<&Path>) -> ExitCode {
    match encode(api, version, response, input) {
        Ok(bytes) => match out {
            Some(path) => match std::fs::write(path, &bytes) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => Failure::usage(format!("{}: {e}", path.display())).report(),
            },
            None => {
                println!("{}", hex(&bytes));
                ExitCode::SUCCESS
            }
        },
        Err(f) => f.report(),
    }
}
