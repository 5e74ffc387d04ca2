//! Writes the seed corpus of `decode_any`: for every message of the generated code
//! (`kwire_fuzz::MESSAGES`), samples encoded by kwire's own encoder at every valid version; for
//! every API (`ApiKey::ALL`), request and response frames built from those samples; and, when
//! librdkafka's golden captures are at hand, every captured frame, split also into header and
//! body where the API is in `schemas/`. Each file is a selector (see `kwire_fuzz`) + bytes.
//!
//! `cargo run --bin seed_corpus [SHARED_DIR [OUT_DIR]]`. The golden captures are the `*.log`
//! files of `SHARED_DIR/golden/librdkafka-2.16.0` (one frame per line, with `key=`, `vN` and
//! `hex=` fields); SHARED_DIR defaults to `$KWIRE_SHARED`, else the `shared` folder beside the
//! repository. Without them the seeds come from samples only. OUT_DIR defaults to
//! `corpus/decode_any` in this crate.

use std::collections::BTreeSet;
use std::path::PathBuf;

use kwire_fuzz::{api_index, body_index, message_index, selector, Mode, MESSAGES};
use kwire_protocol::bytes::Bytes;
use kwire_protocol::generated::{
    ApiKey, Request, RequestFrame, RequestHeader, Response, ResponseFrame, ResponseHeader,
};
use kwire_protocol::wire::sample::SampleMode;
use kwire_protocol::wire::{Message, MessageKind, Reader};

/// The sample modes and seeds every message is sampled with.
const SAMPLES: [(SampleMode, u64); 3] = [
    (SampleMode::Full, 1),
    (SampleMode::Nulls, 2),
    (SampleMode::Random, 3),
];

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

struct Corpus(BTreeSet<Vec<u8>>);

impl Corpus {
    fn add(&mut self, mode: Mode, index: usize, version: i16, bytes: &[u8]) {
        let mut v = selector(mode, index, version).to_vec();
        v.extend_from_slice(bytes);
        self.0.insert(v);
    }

    /// Every message at every valid version, from samples; for a request or response of an API
    /// in `ApiKey::ALL`, its frame too.
    fn samples(&mut self) {
        for (i, m) in MESSAGES.iter().enumerate() {
            let api = m.api_key.and_then(ApiKey::from_i16);
            for v in m.versions.lowest..=m.versions.highest {
                for (mode, seed) in SAMPLES {
                    let body = (m.sample)(mode, seed, v);
                    self.add(Mode::Message, i, v, &body);
                    let Some(api) = api.filter(|a| a.valid_versions().contains(v)) else {
                        continue;
                    };
                    let frame = match m.kind {
                        MessageKind::Request => {
                            let q = decode_whole(&body, |r| Request::decode(api, v, r));
                            RequestFrame::new(q, v, 1, Some("kwire-fuzz"))
                                .to_bytes()
                                .expect("frame encodes")
                        }
                        MessageKind::Response => {
                            let p = decode_whole(&body, |r| Response::decode(api, v, r));
                            ResponseFrame::new(p, 1).to_bytes(v).expect("frame encodes")
                        }
                        _ => continue,
                    };
                    let mode = if m.kind == MessageKind::Request {
                        Mode::RequestFrame
                    } else {
                        Mode::ResponseFrame
                    };
                    self.add(mode, api_index(api), v, &frame);
                }
            }
        }
    }

    /// One golden line: the whole frame, and where the API is ours its header and body apart.
    fn golden(&mut self, request: bool, key: i16, version: i16, frame: &[u8]) {
        let known = ApiKey::from_i16(key).filter(|a| a.valid_versions().contains(version));
        let mode = if request {
            Mode::RequestFrame
        } else {
            Mode::ResponseFrame
        };
        self.add(mode, known.map_or(0, api_index), version, frame);
        let Some(api) = known else { return };
        let mut rest = Bytes::copy_from_slice(frame);
        let (h, header_ok, header, body) = if request {
            let Some(h) = api.request_header_version(version) else {
                return;
            };
            (
                h,
                RequestHeader::decode_prefix(&mut rest, h).is_ok(),
                RequestHeader::NAME,
                MessageKind::Request,
            )
        } else {
            let Some(h) = api.response_header_version(version) else {
                return;
            };
            (
                h,
                ResponseHeader::decode_prefix(&mut rest, h).is_ok(),
                ResponseHeader::NAME,
                MessageKind::Response,
            )
        };
        if !header_ok {
            return;
        }
        let header = message_index(header).expect("the headers are generated messages");
        self.add(Mode::Message, header, h, &frame[..frame.len() - rest.len()]);
        if let Some(i) = body_index(body, key) {
            self.add(Mode::Message, i, version, &rest);
        }
    }
}

/// The body a sample encoded to, decoded back through the generated dispatch.
fn decode_whole<T, E: std::fmt::Display>(
    body: &Bytes,
    decode: impl FnOnce(&mut Reader) -> Result<T, E>,
) -> T {
    let mut r = Reader::new(body.clone());
    let value = decode(&mut r).unwrap_or_else(|e| panic!("a sample decodes: {e}"));
    r.finish().expect("a sample decodes whole");
    value
}

fn main() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut args = std::env::args_os().skip(1);
    let shared = args
        .next()
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("KWIRE_SHARED").map(PathBuf::from))
        .unwrap_or_else(|| here.join("..").join("..").join("shared"));
    let out = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| here.join("corpus").join("decode_any"));

    let mut c = Corpus(BTreeSet::new());
    c.samples();
    let from_samples = c.0.len();
    // The target reads back what was written: every sample seed decodes (and keeps the contract).
    for input in &c.0 {
        assert!(
            kwire_fuzz::decode_any(input),
            "a sample seed does not decode: {input:02x?}"
        );
    }

    let golden = shared.join("golden").join("librdkafka-2.16.0");
    let mut lines = 0;
    match std::fs::read_dir(&golden) {
        Err(e) => eprintln!("SKIPPED golden frames: {}: {e}", golden.display()),
        Ok(dir) => {
            let mut logs: Vec<PathBuf> = dir
                .map(|e| e.expect("dir entry").path())
                .filter(|p| p.extension().is_some_and(|x| x == "log"))
                .collect();
            logs.sort();
            for log in logs {
                let text = std::fs::read_to_string(&log).expect("log");
                for line in text.lines() {
                    let toks: Vec<&str> = line.split_whitespace().collect();
                    let request = match toks.get(2) {
                        Some(&"->") => true,
                        Some(&"<-") => false,
                        _ => continue,
                    };
                    let field = |k: &str| toks.iter().find_map(|t| t.strip_prefix(k));
                    let (Some(key), Some(version), Some(hex)) = (
                        field("key=").and_then(|k| k.parse().ok()),
                        toks[3..]
                            .iter()
                            .find_map(|t| t.strip_prefix('v').and_then(|v| v.parse().ok())),
                        field("hex="),
                    ) else {
                        panic!("{}: unparsable frame line: {line}", log.display());
                    };
                    c.golden(request, key, version, &unhex(hex));
                    lines += 1;
                }
            }
        }
    }

    std::fs::create_dir_all(&out).expect("corpus dir");
    for input in &c.0 {
        // FNV-1a names: stable, so that re-running adds nothing new.
        let h = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ *b as u64).wrapping_mul(0x100_0000_01b3)
        });
        std::fs::write(out.join(format!("seed-{h:016x}")), input).expect("write seed");
    }
    println!(
        "{} seeds in {}: {from_samples} from kwire's encoder over {} messages and {} APIs, the rest from {lines} golden frames",
        c.0.len(),
        out.display(),
        MESSAGES.len(),
        ApiKey::ALL.len()
    );
}
