//! Writes the seed corpus of `decode_any`: every frame of the golden captures
//! (`<shared>/golden/librdkafka-2.16.0/*.log`, the `hex=` field), split also into header and body
//! where the API is in `schemas/`, and frames, bodies and headers written by kwire's own encoder
//! from samples at every valid version. Each file is a selector (see `kwire_fuzz`) + bytes.
//!
//! `cargo run --bin seed_corpus [SHARED_DIR [OUT_DIR]]`; SHARED_DIR defaults to `$KWIRE_SHARED`,
//! else `../../shared` from this crate; OUT_DIR to `corpus/decode_any` in this crate.

use std::collections::BTreeSet;
use std::path::PathBuf;

use kwire_fuzz::{selector, Mode};
use kwire_protocol::bytes::Bytes;
use kwire_protocol::generated::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse,
    FindCoordinatorRequest, FindCoordinatorResponse, KwireConsumerGroupCurrentMemberAssignmentKey,
    KwireConsumerGroupCurrentMemberAssignmentValue, KwireConsumerGroupMemberMetadataKey,
    KwireConsumerGroupMemberMetadataValue, KwireConsumerGroupMetadataKey,
    KwireConsumerGroupMetadataValue, KwireConsumerGroupRegularExpressionKey,
    KwireConsumerGroupRegularExpressionValue, KwireConsumerGroupTargetAssignmentMemberKey,
    KwireConsumerGroupTargetAssignmentMemberValue, KwireConsumerGroupTargetAssignmentMetadataKey,
    KwireConsumerGroupTargetAssignmentMetadataValue, MetadataRequest, MetadataResponse, Request,
    RequestFrame, RequestHeader, Response, ResponseFrame, ResponseHeader,
    StreamsGroupDescribeRequest, StreamsGroupDescribeResponse, StreamsGroupHeartbeatRequest,
    StreamsGroupHeartbeatResponse,
};
use kwire_protocol::wire::sample::{Sample, SampleGen, SampleMode};
use kwire_protocol::wire::{Encode, Message};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

struct Corpus(BTreeSet<Vec<u8>>);

impl Corpus {
    fn add(&mut self, mode: Mode, api: ApiKey, version: i16, bytes: &[u8]) {
        let mut v = selector(mode, api, version).to_vec();
        v.extend_from_slice(bytes);
        self.0.insert(v);
    }

    /// Frames, bodies and headers our encoder writes for `api`, from samples.
    fn samples<Q, P>(&mut self, api: ApiKey)
    where
        Q: Message + Sample + Into<Request>,
        P: Message + Sample + Into<Response>,
    {
        let r = api.valid_versions();
        for v in r.lowest..=r.highest {
            for (mode, seed) in [
                (SampleMode::Full, 1),
                (SampleMode::Nulls, 2),
                (SampleMode::Random, 3),
            ] {
                let q = Q::sample(&mut SampleGen::new(seed, mode), v);
                self.add(
                    Mode::RequestBody,
                    api,
                    v,
                    &q.to_bytes(v).expect("sample encodes"),
                );
                let f = RequestFrame::new(q, v, 1, Some("kwire-fuzz"));
                self.add(
                    Mode::RequestFrame,
                    api,
                    v,
                    &f.to_bytes().expect("frame encodes"),
                );
                let p = P::sample(&mut SampleGen::new(seed, mode), v);
                self.add(
                    Mode::ResponseBody,
                    api,
                    v,
                    &p.to_bytes(v).expect("sample encodes"),
                );
                let f = ResponseFrame::new(p, 1);
                self.add(
                    Mode::ResponseFrame,
                    api,
                    v,
                    &f.to_bytes(v).expect("frame encodes"),
                );
            }
            let h = api.request_header_version(v);
            let q = RequestHeader::sample(&mut SampleGen::new(7, SampleMode::Full), h);
            self.add(
                Mode::RequestHeader,
                api,
                h,
                &q.to_bytes(h).expect("header encodes"),
            );
            let h = api.response_header_version(v);
            let p = ResponseHeader::sample(&mut SampleGen::new(7, SampleMode::Full), h);
            self.add(
                Mode::ResponseHeader,
                api,
                h,
                &p.to_bytes(h).expect("header encodes"),
            );
        }
    }

    /// Every coordinator record at every valid version, from samples (decoded through `RECORDS`'
    /// types by name: the seed only needs their bytes, so each is made by its own sampler).
    fn records(&mut self) {
        for (i, (name, range, _)) in kwire_fuzz::RECORDS.iter().enumerate() {
            for v in range.lowest..=range.highest {
                for (mode, seed) in [
                    (SampleMode::Full, 1),
                    (SampleMode::Nulls, 2),
                    (SampleMode::Random, 3),
                ] {
                    let bytes = record_sample(name, mode, seed, v);
                    let mut input = kwire_fuzz::record_selector(i, v).to_vec();
                    input.extend_from_slice(&bytes);
                    self.0.insert(input);
                }
            }
        }
    }

    /// One golden line: the whole frame, and where the API is ours its header and body apart.
    fn golden(&mut self, request: bool, key: i16, version: i16, frame: &[u8]) {
        let known = ApiKey::from_i16(key).filter(|a| a.valid_versions().contains(version));
        let api = known.unwrap_or(ApiKey::ALL[0]);
        let mode = if request {
            Mode::RequestFrame
        } else {
            Mode::ResponseFrame
        };
        self.add(mode, api, version, frame);
        let Some(api) = known else { return };
        let mut rest = Bytes::copy_from_slice(frame);
        if request {
            let h = api.request_header_version(version);
            if RequestHeader::decode_prefix(&mut rest, h).is_ok() {
                self.add(
                    Mode::RequestHeader,
                    api,
                    h,
                    &frame[..frame.len() - rest.len()],
                );
                self.add(Mode::RequestBody, api, version, &rest);
            }
        } else {
            let h = api.response_header_version(version);
            if ResponseHeader::decode_prefix(&mut rest, h).is_ok() {
                self.add(
                    Mode::ResponseHeader,
                    api,
                    h,
                    &frame[..frame.len() - rest.len()],
                );
                self.add(Mode::ResponseBody, api, version, &rest);
            }
        }
    }
}

/// A sample of the record named `name`, encoded at `v`.
fn record_sample(name: &str, mode: SampleMode, seed: u64, v: i16) -> Bytes {
    fn s<T: Message + Sample>(mode: SampleMode, seed: u64, v: i16) -> Bytes {
        T::sample(&mut SampleGen::new(seed, mode), v)
            .to_bytes(v)
            .expect("sample encodes")
    }
    match name {
        "KwireConsumerGroupCurrentMemberAssignmentKey" => {
            s::<KwireConsumerGroupCurrentMemberAssignmentKey>(mode, seed, v)
        }
        "KwireConsumerGroupCurrentMemberAssignmentValue" => {
            s::<KwireConsumerGroupCurrentMemberAssignmentValue>(mode, seed, v)
        }
        "KwireConsumerGroupMemberMetadataKey" => {
            s::<KwireConsumerGroupMemberMetadataKey>(mode, seed, v)
        }
        "KwireConsumerGroupMemberMetadataValue" => {
            s::<KwireConsumerGroupMemberMetadataValue>(mode, seed, v)
        }
        "KwireConsumerGroupMetadataKey" => s::<KwireConsumerGroupMetadataKey>(mode, seed, v),
        "KwireConsumerGroupMetadataValue" => s::<KwireConsumerGroupMetadataValue>(mode, seed, v),
        "KwireConsumerGroupRegularExpressionKey" => {
            s::<KwireConsumerGroupRegularExpressionKey>(mode, seed, v)
        }
        "KwireConsumerGroupRegularExpressionValue" => {
            s::<KwireConsumerGroupRegularExpressionValue>(mode, seed, v)
        }
        "KwireConsumerGroupTargetAssignmentMemberKey" => {
            s::<KwireConsumerGroupTargetAssignmentMemberKey>(mode, seed, v)
        }
        "KwireConsumerGroupTargetAssignmentMemberValue" => {
            s::<KwireConsumerGroupTargetAssignmentMemberValue>(mode, seed, v)
        }
        "KwireConsumerGroupTargetAssignmentMetadataKey" => {
            s::<KwireConsumerGroupTargetAssignmentMetadataKey>(mode, seed, v)
        }
        "KwireConsumerGroupTargetAssignmentMetadataValue" => {
            s::<KwireConsumerGroupTargetAssignmentMetadataValue>(mode, seed, v)
        }
        other => panic!("no sampler for record {other}: add it here"),
    }
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
    c.samples::<MetadataRequest, MetadataResponse>(ApiKey::Metadata);
    c.samples::<FindCoordinatorRequest, FindCoordinatorResponse>(ApiKey::FindCoordinator);
    c.samples::<ApiVersionsRequest, ApiVersionsResponse>(ApiKey::ApiVersions);
    c.samples::<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse>(
        ApiKey::ConsumerGroupHeartbeat,
    );
    c.samples::<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>(
        ApiKey::ConsumerGroupDescribe,
    );
    c.samples::<StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse>(
        ApiKey::StreamsGroupHeartbeat,
    );
    c.samples::<StreamsGroupDescribeRequest, StreamsGroupDescribeResponse>(
        ApiKey::StreamsGroupDescribe,
    );
    c.records();
    let from_samples = c.0.len();

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
        "{} seeds in {}: {from_samples} from kwire's encoder, the rest from {lines} golden frames",
        c.0.len(),
        out.display()
    );
}
