//! `kwire decode --records`: every `records` field of a frame expanded into its batches (the form
//! of `kwire_protocol::records::json`), and `kwire encode` reading that form back.

#![cfg(feature = "wire")]

use kwire_protocol::bytes::Bytes;
use kwire_protocol::generated::fetch_response::{
    FetchResponse, FetchableTopicResponse, PartitionData,
};
use kwire_protocol::generated::produce_request::{
    PartitionProduceData, ProduceRequest, TopicProduceData,
};
use kwire_protocol::generated::{RequestFrame, ResponseFrame};
use kwire_protocol::records::{BatchBuilder, Compression};
use serde_json::Value;
use std::process::Command;

/// Runs `kwire ARGS`: (stdout, stderr, exit code).
fn kwire(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Two batches: one uncompressed with null key, null header value and duplicate header keys, one
/// with the given codec.
fn record_set(codec: Compression) -> Bytes {
    let mut a = BatchBuilder::new(Compression::None).producer(42, 0, 0);
    a.append(
        1_700_000_000_000,
        None,
        Some(b"v0"),
        &[(b"h", None), (b"h", Some(b"x"))],
    )
    .unwrap();
    a.append(1_700_000_000_250, Some(b"k1"), None, &[]).unwrap();
    let mut b = BatchBuilder::new(codec).base_offset(2);
    b.append(1_700_000_001_000, Some(b"k2"), Some(b"v2"), &[])
        .unwrap();
    let mut out = a.build().unwrap().to_vec();
    out.extend_from_slice(&b.build().unwrap());
    Bytes::from(out)
}

fn produce_frame(records: Bytes) -> Vec<u8> {
    let body = ProduceRequest {
        acks: -1,
        timeout_ms: 1000,
        topic_data: vec![TopicProduceData {
            name: "orders".into(),
            partition_data: vec![PartitionProduceData {
                index: 0,
                records: Some(records),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    RequestFrame::new(body, 9, 7, Some("t"))
        .to_bytes()
        .unwrap()
        .to_vec()
}

#[test]
fn produce_records_expand_into_batches_and_encode_back() {
    let frame = produce_frame(record_set(Compression::None));
    let (out, err, code) = kwire(&[
        "decode",
        "--api",
        "Produce",
        "--version",
        "9",
        "--records",
        &hex(&frame),
    ]);
    assert_eq!(code, 0, "{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    let set = &j["body"]["topicData"][0]["partitionData"][0]["records"];
    let b0 = &set["batches"][0];
    assert_eq!(b0["compression"], "none");
    assert_eq!(b0["producerId"], 42);
    assert_eq!(b0["recordCount"], 2);
    assert_eq!(b0["records"][0]["key"], Value::Null);
    assert_eq!(b0["records"][0]["value"], "djA=");
    assert_eq!(
        b0["records"][0]["headers"],
        serde_json::json!([{"key": "h", "value": null}, {"key": "h", "value": "eA=="}])
    );
    assert_eq!(b0["records"][1]["timestampDelta"], 250);
    assert_eq!(b0["records"][1]["timestamp"], 1_700_000_000_250i64);
    assert_eq!(b0["records"][1]["value"], Value::Null);
    assert_eq!(set["batches"][1]["baseOffset"], 2);
    // Back to the same bytes (uncompressed batches are rewritten byte for byte).
    let (hex_out, err, code) = kwire(&["encode", "--api", "Produce", "--version", "9", &out]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(hex_out.trim(), hex(&frame));
    // Without --records: base64, as before.
    let (plain, _, code) = kwire(&["decode", "--api", "Produce", "--version", "9", &hex(&frame)]);
    assert_eq!(code, 0);
    let j: Value = serde_json::from_str(&plain).unwrap();
    assert!(j["body"]["topicData"][0]["partitionData"][0]["records"].is_string());
}

#[test]
fn every_codec_is_named_and_decompressed_in_a_fetch_response() {
    for codec in [
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let body = FetchResponse {
            responses: vec![FetchableTopicResponse {
                topic: "orders".into(),
                partitions: vec![PartitionData {
                    partition_index: 0,
                    high_watermark: 3,
                    records: Some(record_set(codec)),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let frame = ResponseFrame::new(body, 1).to_bytes(12).unwrap();
        let (out, err, code) = kwire(&[
            "decode",
            "--api",
            "Fetch",
            "--version",
            "12",
            "--response",
            "--records",
            &hex(&frame),
        ]);
        assert_eq!(code, 0, "{codec:?}: {err}");
        let j: Value = serde_json::from_str(&out).unwrap();
        let b1 = &j["body"]["responses"][0]["partitions"][0]["records"]["batches"][1];
        assert_eq!(b1["compression"], codec.name(), "{codec:?}");
        assert_eq!(b1["records"][0]["key"], "azI=");
        assert_eq!(b1["records"][0]["offset"], 2);
    }
}

#[test]
fn a_corrupt_record_set_names_the_field_and_exits_1() {
    let mut records = record_set(Compression::None).to_vec();
    let last = records.len() - 1;
    records[last] ^= 0xff;
    let frame = produce_frame(Bytes::from(records));
    let (_, err, code) = kwire(&[
        "decode",
        "--api",
        "Produce",
        "--version",
        "9",
        "--records",
        &hex(&frame),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("records") && err.to_lowercase().contains("crc"),
        "{err}"
    );
    // The same frame decodes without --records (the bytes are only carried).
    assert_eq!(
        kwire(&["decode", "--api", "Produce", "--version", "9", &hex(&frame)]).2,
        0
    );
}
