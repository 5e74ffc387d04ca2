//! Kafka's JSON form (`kwire_protocol::wire::json`, the shape of the `…JsonConverter` classes
//! Kafka's message generator writes; the module docs of `wire::json` have the table).
//!
//! * Hand-written expected JSON for `tests/fixtures/json-types/JsonTypesData.json` (one field of
//!   every type, compiled by tests/build.rs with the JSON form on) at each of its versions: key
//!   names and order, uuid as base64url, bytes and records as base64, float literals, nulls,
//!   fields absent in a version left out, tagged fields only when non-default, unknown tagged
//!   fields under `_unknownTaggedFields`.
//! * Writing fails exactly where binary encoding fails, with the same error.
//! * Reading is Kafka-lenient (missing tagged / absent fields get defaults, fields for a version
//!   that lacks them are read, unknown keys ignored) and strict on types, with JSON paths.
//! * Serde adapters, frames (a golden librdkafka request), round-trips of samples of every
//!   message of `schemas/` (and of Kafka 3.9.0's clients specs, when the shared material is
//!   there) at every version: to_json → from_json gives the message back, through text too, and
//!   the same bytes.
//! * insta snapshots: one canonical message (a `Full` sample, seed 0) per schema and version, as
//!   hex and JSON (tests/tests/snapshots/json_form__<Message>_v<N>.snap).

use bytes::Bytes;
use kwire_protocol::generated::*;
use kwire_protocol::wire::json::{
    JsonError, JsonErrorKind, JsonForm, Value, Versioned, VersionedSeed,
};
use kwire_protocol::wire::sample::{Sample, SampleGen, SampleMode};
use kwire_protocol::wire::{Encode, EncodeErrorKind, Message, RawTaggedField, Uuid};
use serde::de::DeserializeSeed;
use serde_json::json;

// The generated root re-exports every item; these tests use a few of them.
#[allow(dead_code, unused_imports)]
mod json_types {
    include!(concat!(env!("OUT_DIR"), "/json_types.rs"));
}

use json_types::json_types_data::{Item, JsonTypesData, Opt, Point};

// ---------------------------------------------------------------------------------------------
// Hand-written shapes
// ---------------------------------------------------------------------------------------------

/// A uuid whose base64url form uses both `-` and `_` (so the alphabet is checked).
const ID: Uuid = Uuid([0xfb, 0xef, 0xbe, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
const ID_TEXT: &str = "----_wAAAAAAAAAAAAAAAQ";

fn item(key: &'static str, weight: f64) -> Item {
    Item {
        key: key.into(),
        weight,
        ..Default::default()
    }
}

/// A message valid at every version of JsonTypesData (v0 included: no tagged value set, names
/// not null).
fn base() -> JsonTypesData {
    JsonTypesData {
        flag: true,
        tiny: -5,
        small: 300,
        port: 65535,
        count: -70000,
        unsigned: 4_000_000_000,
        big: -9_000_000_000_000,
        ratio: 5.0,
        name: "kwire".into(),
        nick: None,
        blob: Bytes::from_static(&[0xfb, 0xff, 0xfe]),
        maybe_blob: Some(Bytes::from_static(&[0, 1, 2, 3])),
        id: ID,
        records: Some(Bytes::from_static(b"rec")),
        ints: vec![1, -2].into(),
        names: Some(vec!["a".into(), "é".into()]),
        point: Point {
            x: 1,
            y: -1,
            ..Default::default()
        },
        items: vec![item("k", 1.5), item("", -0.25)],
        dropped: "d".into(),
        ..Default::default()
    }
}

/// The common part of the expected JSON text, in spec order.
const COMMON: &str = concat!(
    r#"{"flag":true,"tiny":-5,"small":300,"port":65535,"count":-70000,"unsigned":4000000000,"#,
    r#""big":-9000000000000,"ratio":5.0,"name":"kwire","nick":null,"blob":"+//+","maybeBlob":"AAECAw==","#,
    r#""id":"----_wAAAAAAAAAAAAAAAQ","records":"cmVj","ints":[1,-2],"names":["a","é"],"point":{"x":1,"y":-1},"#,
    r#""items":[{"key":"k","weight":1.5},{"key":"","weight":-0.25}]"#
);

fn text(m: &JsonTypesData, v: i16) -> String {
    serde_json::to_string(&m.to_json(v).unwrap_or_else(|e| panic!("v{v}: {e}"))).unwrap()
}

/// to_json → from_json gives the message back (through text too), and the same bytes.
fn assert_round_trip<T: Message + JsonForm>(m: &T, v: i16) {
    let j = m
        .to_json(v)
        .unwrap_or_else(|e| panic!("{} v{v}: to_json: {e}", T::NAME));
    let back =
        T::from_json(&j, v).unwrap_or_else(|e| panic!("{} v{v}: from_json: {e}\n{j:#}", T::NAME));
    assert_eq!(
        &back,
        m,
        "{} v{v}: from_json(to_json(x)) != x\n{j:#}",
        T::NAME
    );
    let parsed: Value = serde_json::from_str(&serde_json::to_string(&j).unwrap()).unwrap();
    assert_eq!(parsed, j, "{} v{v}: JSON text changed the value", T::NAME);
    let back2 = T::from_json(&parsed, v)
        .unwrap_or_else(|e| panic!("{} v{v}: from_json(text): {e}", T::NAME));
    assert_eq!(&back2, m, "{} v{v}: through text", T::NAME);
    assert_eq!(
        back.to_bytes(v).unwrap(),
        m.to_bytes(v).unwrap(),
        "{} v{v}: bytes differ",
        T::NAME
    );
}

#[test]
fn every_type_has_kafkas_shape_at_v0() {
    let m = JsonTypesData { mixed: 0, ..base() };
    // v0: not flexible, so no tagged fields; Mixed is untagged and written even when 0; Added
    // (v2+) is left out; Dropped (v0-1) is written.
    assert_eq!(
        text(&m, 0),
        format!(r#"{COMMON},"dropped":"d","mixed":0}}"#)
    );
    assert_round_trip(&m, 0);
}

#[test]
fn every_type_has_kafkas_shape_at_v1_with_defaults_left_out() {
    let m = base();
    // v1: Mixed, Hint, Note and Opt are tagged and hold their defaults (0, 7, null, null): left out.
    assert_eq!(text(&m, 1), format!(r#"{COMMON},"dropped":"d"}}"#));
    assert_round_trip(&m, 1);
}

#[test]
fn tagged_fields_are_written_when_non_default() {
    let m = JsonTypesData {
        mixed: 3,
        hint: 8,
        note: Some("n".into()),
        opt: Some(Opt {
            v: 2,
            ..Default::default()
        }),
        ..base()
    };
    assert_eq!(
        text(&m, 1),
        format!(r#"{COMMON},"dropped":"d","mixed":3,"hint":8,"note":"n","opt":{{"v":2}}}}"#)
    );
    assert_round_trip(&m, 1);
    // At v2 Added (v2+) is mandatory and written even at its default; Dropped (v0-1, ignorable)
    // is dropped although it holds a value, as the binary encoder drops it.
    assert_eq!(
        text(&m, 2),
        format!(r#"{COMMON},"added":0,"mixed":3,"hint":8,"note":"n","opt":{{"v":2}}}}"#)
    );
    let back = JsonTypesData::from_json(&m.to_json(2).unwrap(), 2).unwrap();
    assert_eq!(
        back,
        JsonTypesData {
            dropped: "".into(),
            ..m.clone()
        }
    );
    assert_eq!(back.to_bytes(2).unwrap(), m.to_bytes(2).unwrap());
}

#[test]
fn non_finite_floats_and_nulls() {
    let m = JsonTypesData {
        ratio: f64::NEG_INFINITY,
        maybe_blob: None,
        records: None,
        names: None,
        items: vec![item("x", f64::INFINITY)],
        ..base()
    };
    let j = m.to_json(1).unwrap();
    assert_eq!(j["ratio"], json!("-Infinity"));
    assert_eq!(j["items"][0]["weight"], json!("Infinity"));
    assert_eq!(
        (
            j["maybeBlob"].clone(),
            j["records"].clone(),
            j["names"].clone()
        ),
        (Value::Null, Value::Null, Value::Null)
    );
    assert_round_trip(&m, 1);
    let nan = JsonTypesData {
        ratio: f64::NAN,
        ..base()
    };
    let j = nan.to_json(1).unwrap();
    assert_eq!(j["ratio"], json!("NaN"));
    assert!(JsonTypesData::from_json(&j, 1).unwrap().ratio.is_nan());
}

#[test]
fn unknown_tagged_fields_round_trip_under_their_own_key() {
    let m = JsonTypesData {
        hint: 9,
        unknown_tagged_fields: vec![
            RawTaggedField {
                tag: 10,
                data: Bytes::from_static(&[1, 2]),
            },
            RawTaggedField {
                tag: 300,
                data: Bytes::new(),
            },
        ]
        .into(),
        point: Point::default(),
        ..base()
    };
    let j = m.to_json(1).unwrap();
    assert_eq!(
        j["_unknownTaggedFields"],
        json!([{"tag": 10, "data": "AQI="}, {"tag": 300, "data": ""}])
    );
    assert_eq!(
        j.as_object()
            .unwrap()
            .keys()
            .next_back()
            .map(String::as_str),
        Some("_unknownTaggedFields")
    );
    assert_round_trip(&m, 1);
    // Not flexible: the same error as binary encoding.
    let m = JsonTypesData { hint: 7, ..m };
    assert_eq!(m.to_json(0).unwrap_err(), m.to_bytes(0).unwrap_err());
    assert!(matches!(
        m.to_json(0).unwrap_err().kind(),
        EncodeErrorKind::TaggedFieldsNotFlexible { version: 0 }
    ));
}

// ---------------------------------------------------------------------------------------------
// Write-side errors: the binary encoder's
// ---------------------------------------------------------------------------------------------

#[test]
fn writing_fails_where_encoding_fails_with_the_same_error() {
    let cases: Vec<(JsonTypesData, i16, &str)> = vec![
        (
            JsonTypesData { added: 5, ..base() },
            1,
            "JsonTypesData.added: field is not in version 1 but holds a non-default value",
        ),
        (
            JsonTypesData {
                note: Some("n".into()),
                ..base()
            },
            0,
            "JsonTypesData.note: field is not in version 0 but holds a non-default value",
        ),
        (
            JsonTypesData { hint: 8, ..base() },
            0,
            "JsonTypesData.hint: field is not in version 0 but holds a non-default value",
        ),
        (
            JsonTypesData {
                names: None,
                ..base()
            },
            0,
            "JsonTypesData.names: null is not allowed in version 0",
        ),
        (
            base(),
            3,
            "JsonTypesData: version 3 is outside the valid versions 0-2",
        ),
    ];
    for (m, v, want) in cases {
        let e = m.to_json(v).unwrap_err();
        assert_eq!(e.to_string(), want);
        assert_eq!(e, m.to_bytes(v).unwrap_err(), "{want}");
    }
    // Ignorable: dropped silently at v2, as the binary encoder does.
    assert!(base().to_json(2).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Read side
// ---------------------------------------------------------------------------------------------

fn v1_json() -> Value {
    base().to_json(1).unwrap()
}

fn read_err(j: &Value, v: i16) -> JsonError {
    match JsonTypesData::from_json(j, v) {
        Ok(m) => panic!("expected an error, read {m:?}"),
        Err(e) => e,
    }
}

#[test]
fn missing_mandatory_fields_are_errors_and_the_rest_get_defaults() {
    let mut j = v1_json();
    j.as_object_mut().unwrap().remove("flag");
    let e = read_err(&j, 1);
    assert_eq!(
        e.to_string(),
        "JsonTypesData: unable to locate field 'flag', which is mandatory in version 1"
    );
    assert!(matches!(
        e.kind(),
        JsonErrorKind::MissingField {
            key: "flag",
            version: Some(1)
        }
    ));

    // Tagged (hint, mixed at v1) and absent-in-version (added at v1) fields get their defaults;
    // the same keys are mandatory where the version has them untagged (added at v2, mixed at v0).
    let j = v1_json();
    for k in ["hint", "mixed", "note", "opt", "added"] {
        assert!(j.get(k).is_none(), "{k}");
    }
    let m = JsonTypesData::from_json(&j, 1).unwrap();
    assert_eq!((m.hint, m.mixed, m.added), (7, 0, 0));
    assert_eq!(
        read_err(&j, 2).to_string(),
        "JsonTypesData: unable to locate field 'added', which is mandatory in version 2"
    );
    assert_eq!(
        read_err(&j, 0).to_string(),
        "JsonTypesData: unable to locate field 'mixed', which is mandatory in version 0"
    );

    // Nested: the path names the element.
    let mut j = v1_json();
    j["items"][1].as_object_mut().unwrap().remove("weight");
    assert_eq!(
        read_err(&j, 1).to_string(),
        "JsonTypesData.items[1]: unable to locate field 'weight', which is mandatory in version 1"
    );
}

#[test]
fn fields_for_other_versions_are_read_and_unknown_keys_ignored() {
    let mut j = v1_json();
    j["added"] = json!(5);
    j["someFutureField"] = json!({"x": [1, 2]});
    let m = JsonTypesData::from_json(&j, 1).unwrap();
    assert_eq!(m.added, 5, "read although v1 lacks it, as Kafka does");
    // …and writing it back at v1 fails, as it would in Kafka.
    assert!(matches!(
        m.to_json(1).unwrap_err().kind(),
        EncodeErrorKind::NonDefaultField { version: 1 }
    ));
    // Null is accepted for a field nullable in any version (names: nullable from v1) at v0 too;
    // encoding then refuses it.
    let mut j = base().to_json(0).unwrap();
    j["names"] = Value::Null;
    let m = JsonTypesData::from_json(&j, 0).unwrap();
    assert_eq!(m.names, None);
    assert!(m.to_bytes(0).is_err());
}

#[test]
fn values_are_type_checked_with_their_json_path() {
    let cases: Vec<(&str, Value, &str)> = vec![
        ("ratio", json!(5), "JsonTypesData.ratio: expected a floating-point number such as 5.0, found an integer"),
        ("tiny", json!(300), "JsonTypesData.tiny: 300 does not fit in int8"),
        ("port", json!(-1), "JsonTypesData.port: -1 does not fit in uint16"),
        ("unsigned", json!(4294967296u64), "JsonTypesData.unsigned: 4294967296 does not fit in uint32"),
        ("count", json!("5"), "JsonTypesData.count: expected an integer, found a string"),
        ("big", json!(1.0), "JsonTypesData.big: expected an integer, found a floating-point number"),
        ("flag", json!(1), "JsonTypesData.flag: expected a boolean, found an integer"),
        ("name", Value::Null, "JsonTypesData.name: expected a string, found null"),
        ("id", json!("AAAA"), "JsonTypesData.id: invalid uuid \"AAAA\": expected 22 characters of URL-safe base64"),
        ("blob", json!("-_8"), "JsonTypesData.blob: invalid base64: Invalid symbol 45, offset 0."),
        ("ints", json!([1, "2"]), "JsonTypesData.ints[1]: expected an integer, found a string"),
        ("point", json!([1, 2]), "JsonTypesData.point: expected an object, found an array"),
        ("items", json!([{"key": "k", "weight": 1.5}, {"key": "x", "weight": "heavy"}]),
            "JsonTypesData.items[1].weight: expected a floating-point number such as 5.0, found a string"),
        ("_unknownTaggedFields", json!([{"tag": -1, "data": ""}]), "JsonTypesData._unknownTaggedFields[0].tag: -1 does not fit in uint32"),
    ];
    for (key, value, want) in cases {
        let mut j = v1_json();
        j[key] = value;
        assert_eq!(read_err(&j, 1).to_string(), want, "{key}");
    }
    assert_eq!(
        read_err(&json!([]), 1).to_string(),
        "JsonTypesData: expected an object, found an array"
    );
    assert_eq!(
        read_err(&v1_json(), 3).to_string(),
        "JsonTypesData: version 3 is outside the valid versions 0-2"
    );
    // Leniency that costs nothing: unpadded base64, padded uuids, exponents for floats.
    let mut j = v1_json();
    j["maybeBlob"] = json!("AAECAw");
    j["id"] = json!(format!("{ID_TEXT}=="));
    j["ratio"] = serde_json::from_str("5e0").unwrap();
    assert_eq!(JsonTypesData::from_json(&j, 1).unwrap(), base());
}

// ---------------------------------------------------------------------------------------------
// Serde adapters
// ---------------------------------------------------------------------------------------------

#[test]
fn serde_adapters_carry_the_version() {
    let m = JsonTypesData { hint: 8, ..base() };
    let s = serde_json::to_string(&Versioned(&m, 1)).unwrap();
    assert_eq!(s, text(&m, 1));
    let back = VersionedSeed::<JsonTypesData>::new(1)
        .deserialize(&mut serde_json::Deserializer::from_str(&s))
        .unwrap();
    assert_eq!(back, m);
    // An encode error becomes the serializer's error; a JSON error the deserializer's.
    let e = serde_json::to_string(&Versioned(&m, 0)).unwrap_err();
    assert!(
        e.to_string()
            .contains("JsonTypesData.hint: field is not in version 0"),
        "{e}"
    );
    let e = VersionedSeed::<JsonTypesData>::new(1)
        .deserialize(&mut serde_json::Deserializer::from_str(r#"{"flag": 1}"#))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("JsonTypesData.flag: expected a boolean, found an integer"),
        "{e}"
    );
    assert_eq!(
        kwire_protocol::wire::json::from_str::<JsonTypesData>(&s, 1).unwrap(),
        m
    );
    assert!(matches!(
        kwire_protocol::wire::json::from_str::<JsonTypesData>("{", 1)
            .unwrap_err()
            .kind(),
        JsonErrorKind::Syntax(_)
    ));
}

// ---------------------------------------------------------------------------------------------
// Frames
// ---------------------------------------------------------------------------------------------

/// The first ConsumerGroupHeartbeat v1 request librdkafka 2.16.0 sent (golden log, mock broker).
const CGH_V1: &str =
    "0044000100000004000e70726f62652d636f6e73756d6572000b672d636f6e73756d6572175441584e544a6f50\
                      5441363557374958454753747577000000000000000493e00203743101000100";

#[test]
fn request_frame_json_of_a_real_client_frame() {
    let bytes = Bytes::from(kwire_tests::unhex(CGH_V1));
    let frame = RequestFrame::decode(bytes.clone()).unwrap();
    let j = frame.to_json().unwrap();
    assert_eq!(
        j,
        json!({
            "header": {"requestApiKey": 68, "requestApiVersion": 1, "correlationId": 4, "clientId": "probe-consumer"},
            "body": {
                "groupId": "g-consumer",
                "memberId": "TAXNTJoPTA65W7IXEGStuw",
                "memberEpoch": 0,
                "instanceId": null,
                "rackId": null,
                "rebalanceTimeoutMs": 300000,
                "subscribedTopicNames": ["t1"],
                "subscribedTopicRegex": "",
                "serverAssignor": null,
                "topicPartitions": []
            }
        })
    );
    // Header first, then body; fields in spec order.
    let s = serde_json::to_string(&j).unwrap();
    assert!(
        s.starts_with(
            r#"{"header":{"requestApiKey":68,"requestApiVersion":1,"correlationId":4,"clientId""#
        ),
        "{s}"
    );
    let back = RequestFrame::from_json(&j).unwrap();
    assert_eq!(back, frame);
    assert_eq!(back.to_bytes().unwrap(), bytes);
}

#[test]
fn frame_json_errors() {
    let j = RequestFrame::decode(Bytes::from(kwire_tests::unhex(CGH_V1)))
        .unwrap()
        .to_json()
        .unwrap();
    let mut no_body = j.clone();
    no_body.as_object_mut().unwrap().remove("body");
    assert_eq!(
        RequestFrame::from_json(&no_body).unwrap_err().to_string(),
        "unable to locate field 'body'"
    );
    let mut bad_key = j.clone();
    bad_key["header"]["requestApiKey"] = json!(999);
    assert_eq!(
        RequestFrame::from_json(&bad_key).unwrap_err().to_string(),
        "header.requestApiKey: unknown API key 999"
    );
    let mut bad_version = j.clone();
    bad_version["header"]["requestApiVersion"] = json!(7);
    assert_eq!(
        RequestFrame::from_json(&bad_version)
            .unwrap_err()
            .to_string(),
        "ConsumerGroupHeartbeatRequest: version 7 is outside the valid versions 0-1"
    );
    let mut bad_body = j;
    bad_body["body"]["memberEpoch"] = json!("zero");
    assert_eq!(
        RequestFrame::from_json(&bad_body).unwrap_err().to_string(),
        "ConsumerGroupHeartbeatRequest.memberEpoch: expected an integer, found a string"
    );
}

#[test]
fn response_frames_take_their_version() {
    let body = ConsumerGroupHeartbeatResponse {
        error_message: Some("boom".into()),
        member_epoch: 5,
        assignment: Some(consumer_group_heartbeat_response::Assignment {
            topic_partitions: vec![consumer_group_heartbeat_response::TopicPartitions {
                topic_id: ID,
                partitions: vec![0, 2].into(),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    let frame = ResponseFrame::new(body, 42);
    let j = frame.to_json(1).unwrap();
    assert_eq!(j["header"], json!({"correlationId": 42}));
    assert_eq!(
        j["body"]["assignment"],
        json!({"topicPartitions": [{"topicId": ID_TEXT, "partitions": [0, 2]}]})
    );
    let back = ResponseFrame::from_json(&j, ApiKey::ConsumerGroupHeartbeat, 1).unwrap();
    assert_eq!(back, frame);
    assert_eq!(back.to_bytes(1).unwrap(), frame.to_bytes(1).unwrap());
    assert_eq!(
        Response::from_json(ApiKey::ConsumerGroupHeartbeat, 1, &j["body"]).unwrap(),
        frame.body
    );
    assert_eq!(frame.body.to_json(1).unwrap(), j["body"]);
}

/// A frame of an API Kafka removed (LeaderAndIsr, `"validVersions": "none"`): no version reads or
/// writes in JSON either, with a typed error.
#[test]
fn frames_of_removed_apis_refuse_every_version_in_json() {
    let j = json!({"header": {"requestApiKey": 4, "requestApiVersion": 0, "correlationId": 1, "clientId": null}, "body": {}});
    let e = RequestFrame::from_json(&j).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            JsonErrorKind::UnsupportedVersion {
                version: 0,
                lowest: 0,
                highest: -1
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "LeaderAndIsrRequest: version 0 is outside the valid versions none"
    );
    let r = json!({"header": {"correlationId": 1}, "body": {}});
    let e = ResponseFrame::from_json(&r, ApiKey::LeaderAndIsr, 0).unwrap_err();
    assert!(
        matches!(e.kind(), JsonErrorKind::UnsupportedVersion { .. }),
        "{e}"
    );
    let f = RequestFrame::new(LeaderAndIsrRequest::default(), 0, 1, None);
    assert!(matches!(
        f.to_json().unwrap_err().kind(),
        EncodeErrorKind::UnsupportedVersion { highest: -1, .. }
    ));
    let f = ResponseFrame::new(LeaderAndIsrResponse::default(), 1);
    assert!(matches!(
        f.to_json(0).unwrap_err().kind(),
        EncodeErrorKind::UnsupportedVersion { highest: -1, .. }
    ));
}

// ---------------------------------------------------------------------------------------------
// Samples of every message: JSON round-trips
// ---------------------------------------------------------------------------------------------

fn samples() -> Vec<(SampleMode, u64)> {
    let mut s = vec![
        (SampleMode::Full, 0),
        (SampleMode::Full, 1),
        (SampleMode::Nulls, 0),
    ];
    s.extend((0..13).map(|seed| (SampleMode::Random, seed)));
    s
}

/// Round-trips every sample of `T` at every valid version; returns how many.
fn round_trip_all<T: Message + Sample + JsonForm>() -> usize {
    let mut n = 0;
    let valid = T::VALID_VERSIONS;
    for v in valid.lowest..=valid.highest {
        for (mode, seed) in samples() {
            let m = T::sample(&mut SampleGen::new(seed, mode), v);
            assert_round_trip(&m, v);
            n += 1;
        }
    }
    n
}

macro_rules! schema_messages {
    ($($m:ident :: $t:ident),* $(,)?) => {
        /// (spec name, round-trip count, snapshot function) for every message generated from
        /// schemas/ (tests/build.rs lists them from protocol/src/generated/mod.rs; that the
        /// generated code is fresh is tests/codegen_fresh.rs's business).
        fn schema_messages() -> Vec<(&'static str, fn() -> usize, fn())> {
            vec![$((
                <kwire_protocol::generated::$m::$t as Message>::NAME,
                round_trip_all::<kwire_protocol::generated::$m::$t> as fn() -> usize,
                snapshot::<kwire_protocol::generated::$m::$t> as fn(),
            )),*]
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/schema_messages.rs"));

#[test]
fn samples_of_every_schema_message_round_trip_through_json() {
    let mut total = 0;
    for (name, run, _) in schema_messages() {
        let n = run();
        println!("{name}: {n} JSON round-trips");
        total += n;
    }
    // 16 samples for each (message, version).
    let messages = schema_messages().len();
    assert!(
        messages >= 16 && total >= 69 * 16,
        "{messages} messages, {total} round-trips"
    );
    assert_eq!(round_trip_all::<JsonTypesData>(), 3 * 16);
}

#[cfg(kwire_shared)]
use kwire_tests::kafka390;

#[cfg(kwire_shared)]
macro_rules! kafka390_messages {
    ($($m:ident :: $t:ident),* $(,)?) => {
        /// (messages, round-trips) over every Kafka 3.9.0 clients message.
        fn kafka390_round_trips() -> (usize, usize) {
            let (mut specs, mut total) = (0, 0);
            $(
                specs += 1;
                total += round_trip_all::<kafka390::$m::$t>();
            )*
            (specs, total)
        }
    };
}

#[cfg(kwire_shared)]
include!(concat!(env!("OUT_DIR"), "/kafka390_json_list.rs"));

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn samples_of_every_kafka_390_client_message_round_trip_through_json() {
    #[cfg(kwire_shared)]
    {
        let (specs, total) = kafka390_round_trips();
        println!("Kafka 3.9.0 clients: {specs} messages, {total} JSON round-trips");
        assert!(specs >= 190, "{specs}");
    }
}

// ---------------------------------------------------------------------------------------------
// Snapshots: one canonical message per schema and version
// ---------------------------------------------------------------------------------------------

/// `offset  xx xx …`, 16 bytes a line.
fn hexdump(b: &[u8]) -> String {
    b.chunks(16)
        .enumerate()
        .map(|(i, c)| {
            let bytes: Vec<String> = c.iter().map(|x| format!("{x:02x}")).collect();
            format!("{:04x}  {}\n", i * 16, bytes.join(" "))
        })
        .collect()
}

/// Snapshots the `Full` sample (seed 0: every field the version has holds a non-default value)
/// at every valid version: hex, then JSON.
fn snapshot<T: Message + Sample + JsonForm>() {
    let valid = T::VALID_VERSIONS;
    for v in valid.lowest..=valid.highest {
        let m = T::sample(&mut SampleGen::new(0, SampleMode::Full), v);
        let bytes = m.to_bytes(v).unwrap();
        let j = m.to_json(v).unwrap();
        let text = format!(
            "{} v{v}: SampleGen seed 0, SampleMode::Full; {} bytes\n\n{}\n{}\n",
            T::NAME,
            bytes.len(),
            hexdump(&bytes),
            serde_json::to_string_pretty(&j).unwrap()
        );
        insta::assert_snapshot!(format!("json_form__{}_v{v}", T::NAME), text);
    }
}

#[test]
fn snapshots_of_one_canonical_message_per_schema_and_version() {
    // The snapshot files keep the names and the folder they had when this module was a test
    // binary of its own (`tests/tests/snapshots/json_form__<Message>_v<N>.snap`), whatever the
    // module path.
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (_, _, snap) in schema_messages() {
            snap();
        }
    });
}
