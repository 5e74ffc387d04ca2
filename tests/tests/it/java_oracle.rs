//! Kafka's own generated classes as the oracle for kwire's codecs and JSON form.
//!
//! `tests/java-oracle/` is a small Java program built with Maven against
//! `org.apache.kafka:kafka-clients:4.4.0` (fetched by Maven, into `~/.m2`). This test builds it
//! once under Cargo's target directory (tests/tests/it/java.rs), starts one JVM, and sends it every sample kwire makes of
//! every message generated from `schemas/` (the list comes from `protocol/src/generated/mod.rs`
//! through tests/build.rs, so new schemas are covered without editing this file), at every
//! version both sides have. For each sample (a `Full` one with every field set and unknown tagged
//! fields, a `Nulls` one, random ones) Java decodes kwire's bytes with the spec's generated class
//! (`…Data` for requests, responses and headers; every byte must be consumed), writes the message
//! back with Kafka's serializer, and renders it with the generated `…JsonConverter.write(data,
//! version)`. The test asserts:
//!
//! * Java's bytes are kwire's bytes, exactly;
//! * Java's JSON equals kwire's JSON form after normalising the two documented differences
//!   (`protocol/src/wire/json.rs`, "Where kwire differs from Kafka"): a `records` value, which
//!   kwire writes as the base64 of its bytes and Kafka as an empty binary (`""`), becomes `""`;
//!   the `"_unknownTaggedFields"` key, which Kafka's JSON has no place for, is removed.
//!
//! `schemas/` mirrors Kafka 4.4.0, so every (message, version) pair of Kafka 4.4.0's client specs
//! is sent: a message kafka-clients has no class for, or a version range that differs from Java's
//! `lowestSupportedVersion()`..`highestSupportedVersion()`, is a failure, and the number of pairs
//! sent must equal the number of pairs in `schemas/` outside kwire's own specs. The one exclusion
//! is kwire's own `Kwire…` record specs, which have no class in kafka-clients ([`Exclusion`]).
//!
//! A field compared under another name would be listed in [`RENAMED_FIELDS`] with its reason
//! (none today).
//!
//! Without `java` or `mvn` on `PATH` when tests/build.rs ran, the test is compiled as ignored,
//! with the reason; under `CI=true` it never is, so their absence is a failure there (as is a
//! Maven build that fails, e.g. Maven Central out of reach).

use crate::java::{classpath, java_ready, Jvm};
use kwire_codegen::ir::{Field, Spec, Type};
use kwire_protocol::wire::json::{JsonForm, Value, UNKNOWN_TAGGED_FIELDS_KEY};
use kwire_protocol::wire::sample::{Sample, SampleGen, SampleMode};
use kwire_protocol::wire::Message;
use std::collections::{BTreeMap, HashMap};

/// The samples sent for each (message, version): as tests/json_form.rs round-trips them.
fn samples() -> Vec<(SampleMode, u64)> {
    let mut s = vec![
        (SampleMode::Full, 0),
        (SampleMode::Full, 1),
        (SampleMode::Nulls, 0),
    ];
    s.extend((0..13).map(|seed| (SampleMode::Random, seed)));
    s
}

/// Why a (message, version) pair is not sent to Java.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Exclusion {
    /// kwire's own record specs (`Kwire…`: the records kwire-server keeps for its topics, group
    /// coordinator and offsets) have no class in kafka-clients (Kafka's own log records are
    /// other specs, outside kafka-clients).
    KwireOwnSpec,
}

impl Exclusion {
    fn reason(self) -> &'static str {
        match self {
            Exclusion::KwireOwnSpec => "kwire's own record spec, no Java counterpart",
        }
    }
}

/// Where a spec of `schemas/` and kafka-clients 4.4.0's spec name the same field differently:
/// (message, version, kwire's JSON key, Java's JSON key, why). Java's key is renamed to kwire's
/// before the JSON is compared, so the value is still checked (the bytes are compared as always).
/// Every entry must be met in the run: an entry no sample meets (the schema caught up) fails the
/// test, so that it is removed.
const RENAMED_FIELDS: &[(&str, i16, &str, &str, &str)] = &[];

/// One message generated from `schemas/`: its name, versions, API key, and a sampler giving
/// kwire's bytes and JSON for (version, mode, seed).
struct Entry {
    name: &'static str,
    api_key: Option<i16>,
    lowest: i16,
    highest: i16,
    sample: fn(i16, SampleMode, u64) -> (Vec<u8>, Value),
}

/// kwire's bytes and JSON form of the sample (`mode`, `seed`) of `T` at `version`.
fn sample_of<T: Message + Sample + JsonForm>(
    version: i16,
    mode: SampleMode,
    seed: u64,
) -> (Vec<u8>, Value) {
    let m = T::sample(&mut SampleGen::new(seed, mode), version);
    let bytes = m
        .to_bytes(version)
        .unwrap_or_else(|e| panic!("{} v{version} encode: {e}", T::NAME));
    let json = m
        .to_json(version)
        .unwrap_or_else(|e| panic!("{} v{version} to_json: {e}", T::NAME));
    (bytes.to_vec(), json)
}

macro_rules! schema_messages {
    ($($m:ident :: $t:ident),* $(,)?) => {
        /// Every message generated from schemas/ (tests/build.rs lists them from
        /// protocol/src/generated/mod.rs).
        fn schema_messages() -> Vec<Entry> {
            vec![$({
                type T = kwire_protocol::generated::$m::$t;
                Entry {
                    name: <T as Message>::NAME,
                    api_key: <T as Message>::API_KEY,
                    lowest: <T as Message>::VALID_VERSIONS.lowest,
                    highest: <T as Message>::VALID_VERSIONS.highest,
                    sample: sample_of::<T>,
                }
            }),*]
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/schema_messages.rs"));

// ---------------------------------------------------------------------------------------------
// Building and talking to the Java oracle
// ---------------------------------------------------------------------------------------------

/// One JVM running `dev.kwire.oracle.Oracle` (protocol: its class doc).
struct Oracle(Jvm);

/// What Java said about one sample.
enum Reply {
    Ok { bytes: Vec<u8>, json: String },
    Err(String),
}

impl Oracle {
    fn start(classpath: &str) -> Oracle {
        Oracle(Jvm::start(classpath, "dev.kwire.oracle.Oracle"))
    }

    /// Java's (lowest, highest, api key) for `name`, or why there is no such class.
    fn versions(&mut self, name: &str) -> Result<(i16, i16, i16), String> {
        let j = &mut self.0;
        j.put(b"V");
        j.put_str(name);
        j.flush();
        match j.u8() {
            0 => Ok((j.i16(), j.i16(), j.i16())),
            _ => Err(j.string()),
        }
    }

    fn round_trip(&mut self, name: &str, version: i16, bytes: &[u8]) -> Reply {
        let j = &mut self.0;
        j.put(b"R");
        j.put_str(name);
        j.put(&version.to_be_bytes());
        j.put_blob(bytes);
        j.flush();
        match j.u8() {
            0 => Reply::Ok {
                bytes: j.blob(),
                json: j.string(),
            },
            _ => Reply::Err(j.string()),
        }
    }

    /// Closes Java's stdin (which ends the program) and waits for it.
    fn finish(self) {
        self.0.finish();
    }
}

// ---------------------------------------------------------------------------------------------
// JSON normalisation: the two documented differences
// ---------------------------------------------------------------------------------------------

/// `GroupId` → `groupId`, as both JSON forms name keys.
fn json_key(name: &str) -> String {
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// How many values [`normalise`] rewrote.
#[derive(Default)]
struct Normalised {
    /// Records values (kwire's base64 of the bytes) made `""`.
    records: usize,
    /// `"_unknownTaggedFields"` keys removed.
    unknown_tags: usize,
}

/// Rewrites kwire's JSON of a message with `fields` into what Kafka's converter writes: records
/// values (non-null) become `""`, and `"_unknownTaggedFields"` keys go.
fn normalise(
    v: &mut Value,
    fields: &[Field],
    structs: &HashMap<&str, &[Field]>,
    n: &mut Normalised,
) {
    let Value::Object(map) = v else { return };
    if map.remove(UNKNOWN_TAGGED_FIELDS_KEY).is_some() {
        n.unknown_tags += 1;
    }
    for f in fields {
        let Some(x) = map.get_mut(&json_key(&f.name)) else {
            continue;
        };
        normalise_value(x, &f.ty, structs, n);
    }
}

fn normalise_value(
    x: &mut Value,
    ty: &Type,
    structs: &HashMap<&str, &[Field]>,
    n: &mut Normalised,
) {
    match ty {
        Type::Records if !x.is_null() => {
            *x = Value::String(String::new());
            n.records += 1;
        }
        Type::Struct(s) => normalise(x, structs[s.as_str()], structs, n),
        Type::Array(elem) => {
            if let Value::Array(items) = x {
                for i in items {
                    normalise_value(i, elem, structs, n);
                }
            }
        }
        _ => {}
    }
}

/// The specs of schemas/, by name.
fn specs() -> HashMap<String, Spec> {
    let dir = kwire_tests::workspace_root().join("schemas");
    let files = kwire_codegen::source::read_dir(&dir).expect("schemas/ reads");
    let checked = kwire_codegen::check_files(files);
    assert_eq!(checked.error_count(), 0, "schemas/ has errors");
    checked
        .specs
        .into_iter()
        .map(|s| (s.name.clone(), s))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn kafka_clients_decode_reencode_and_render_every_kwire_sample_identically() {
    if !java_ready("java oracle") {
        return;
    }
    let classpath = classpath();
    let specs = specs();
    let mut oracle = Oracle::start(&classpath);

    let (mut pairs, mut sent, mut same_bytes, mut same_json) = (0usize, 0usize, 0usize, 0usize);
    let mut excluded: BTreeMap<Exclusion, Vec<String>> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut renamed_met = vec![false; RENAMED_FIELDS.len()];
    let mut removed_stubs: Vec<&str> = Vec::new();
    let mut normalised = Normalised::default();
    let messages = schema_messages();
    // Every version of every message that is not kwire's own: what 100% coverage means.
    let kafka_pairs: usize = messages
        .iter()
        .filter(|e| !e.name.starts_with("Kwire"))
        .map(|e| (e.lowest..=e.highest).count())
        .sum();
    for e in &messages {
        let versions: Vec<i16> = (e.lowest..=e.highest).collect();
        if versions.is_empty() {
            // A removed API's stub ("validVersions": "none"): no version to send, and Kafka's
            // generator makes no class for it.
            removed_stubs.push(e.name);
            continue;
        }
        let (jlow, jhigh) = match oracle.versions(e.name) {
            Ok((lo, hi, key)) => {
                if let Some(k) = e.api_key {
                    assert_eq!(k, key, "{}: kwire's API key {k}, Java's {key}", e.name);
                }
                (lo, hi)
            }
            Err(_) if e.name.starts_with("Kwire") => {
                let list = excluded.entry(Exclusion::KwireOwnSpec).or_default();
                list.extend(versions.iter().map(|v| format!("{} v{v}", e.name)));
                continue;
            }
            Err(why) => {
                failures.push(format!(
                    "{}: kafka-clients 4.4.0 has no class for it: {why}",
                    e.name
                ));
                continue;
            }
        };
        let spec = &specs[e.name];
        let structs: HashMap<&str, &[Field]> = spec
            .structs
            .iter()
            .map(|s| (s.name.as_str(), s.fields.as_slice()))
            .collect();
        if !versions.is_empty() && (jlow, jhigh) != (e.lowest, e.highest) {
            failures.push(format!(
                "{}: kwire has versions {}-{}, kafka-clients 4.4.0 {jlow}-{jhigh}",
                e.name, e.lowest, e.highest
            ));
            continue;
        }
        for v in versions {
            pairs += 1;
            for (mode, seed) in samples() {
                let (bytes, mut kjson) = (e.sample)(v, mode, seed);
                sent += 1;
                let what = format!("{} v{v} ({mode:?} seed {seed})", e.name);
                match oracle.round_trip(e.name, v, &bytes) {
                    Reply::Err(err) => failures.push(format!(
                        "{what}: Java refused kwire's bytes: {err}\n  kwire: {}",
                        kwire_tests::hex(&bytes)
                    )),
                    Reply::Ok {
                        bytes: jbytes,
                        json,
                    } => {
                        if jbytes == bytes {
                            same_bytes += 1;
                        } else {
                            failures.push(format!(
                                "{what}: bytes differ\n  kwire: {}\n  Java:  {}",
                                kwire_tests::hex(&bytes),
                                kwire_tests::hex(&jbytes)
                            ));
                        }
                        let mut jjson: Value = serde_json::from_str(&json).expect("JSON from Java");
                        for (i, &(m, rv, kkey, jkey, _)) in RENAMED_FIELDS.iter().enumerate() {
                            if m == e.name
                                && rv == v
                                && kjson.get(kkey).is_some()
                                && kjson.get(jkey).is_none()
                            {
                                if let Some(x) = jjson.as_object_mut().and_then(|o| o.remove(jkey))
                                {
                                    jjson[kkey] = x;
                                    renamed_met[i] = true;
                                }
                            }
                        }
                        normalise(&mut kjson, &spec.fields, &structs, &mut normalised);
                        if jjson == kjson {
                            same_json += 1;
                        } else {
                            failures.push(format!(
                                "{what}: JSON differs\n  kwire: {kjson}\n  Java:  {jjson}"
                            ));
                        }
                    }
                }
            }
        }
    }
    oracle.finish();

    let excluded_count: usize = excluded.values().map(Vec::len).sum();
    let reasons: Vec<String> = excluded
        .iter()
        .map(|(x, l)| format!("{} {}", l.len(), x.reason()))
        .collect();
    println!(
        "java oracle: {pairs} of {kafka_pairs} Kafka 4.4.0 (message, version) pairs, {sent} samples, {same_bytes} byte-identical, \
         {same_json} JSON-equal, {excluded_count} excluded ({}); JSON normalised: {} records values, \
         {} unknown-tagged-field lists",
        if reasons.is_empty() { "none".to_string() } else { reasons.join("; ") },
        normalised.records,
        normalised.unknown_tags
    );
    for (x, list) in &excluded {
        println!("  excluded, {}: {}", x.reason(), list.join(", "));
    }
    println!(
        "  removed API stubs (no versions, no Java class): {}",
        removed_stubs.join(", ")
    );
    for (&(m, v, kkey, jkey, why), met) in RENAMED_FIELDS.iter().zip(&renamed_met) {
        println!("  renamed field, {m} v{v}: kwire `{kkey}`, Java `{jkey}` ({why})");
        if !met {
            failures.push(format!(
                "{m} v{v}: the RENAMED_FIELDS entry `{kkey}` ← `{jkey}` never applied (the spec has \
                 caught up with kafka-clients): remove it"
            ));
        }
    }
    for f in failures.iter().take(40) {
        println!("DISAGREEMENT {f}");
    }
    assert!(
        failures.is_empty(),
        "{} disagreements between kwire and kafka-clients 4.4.0 (listed above)",
        failures.len()
    );
    assert_eq!(same_bytes, sent);
    assert_eq!(same_json, sent);
    // 16 samples a pair; every (message, version) of Kafka 4.4.0 in schemas/ reached Java.
    assert_eq!(sent, pairs * samples().len());
    assert_eq!(
        pairs, kafka_pairs,
        "every Kafka (message, version) pair must be sent"
    );
    assert!(pairs >= 600, "{pairs} pairs");
    // Both documented differences were met (the samples carry records and unknown tagged fields).
    assert!(normalised.records > 0 && normalised.unknown_tags > 0);
}
