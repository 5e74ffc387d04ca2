//! The two showcases of `kwire diff`, as insta snapshots (one line per finding: code, level
//! (`error` or `note`, the human form's label), severity (`breaking` or `compatible`), kind,
//! message, versions, path, both places, text), reviewed by hand against the spec files:
//!
//! * Kafka 3.9.0's client messages against 4.4.0's (`kafka-specs/{3.9.0,4.4.0}/clients` of the
//!   shared material): the versions KIP-896 removed, the messages added, and the layout changes
//!   inside versions both releases have.
//! * The KIP-1071 seed drafts (`tests/fixtures/kip-drafts-fixed/`, the three Streams group drafts)
//!   against the StreamsGroupHeartbeat/StreamsGroupDescribe specs 4.4.0 shipped.
//!
//! Both need the shared material (found by tests/build.rs: `$KWIRE_SHARED`, else `../shared`
//! beside the checkout); without it they are listed as ignored, with the reason, and under
//! `CI=true` its absence fails the build.

use kwire_codegen::diff;
use kwire_codegen::source::{self, SourceFile};
use kwire_codegen::{check_files, render, Checked};
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The `*.json` files of `dir` named by `filter` (all when `None`), each path shown as
/// `shown/NAME` so that snapshots do not hold this machine's paths.
fn load(dir: &Path, shown: &str, filter: Option<&[&str]>) -> Checked {
    let files: Vec<SourceFile> = source::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .into_iter()
        .filter(|f| filter.is_none_or(|names| names.contains(&f.file_name().as_str())))
        .map(|f| SourceFile {
            path: PathBuf::from(format!("{shown}/{}", f.file_name())),
            text: f.text,
        })
        .collect();
    let checked = check_files(files);
    assert_eq!(
        checked.error_count(),
        0,
        "{}",
        render::render_all(&checked, false)
    );
    checked
}

/// One line per finding, from the JSON form: `CODE level severity kind Message vVERSIONS path
/// (old FILE:LINE → new FILE:LINE): text`.
fn listing(old: &Checked, new: &Checked) -> (String, usize) {
    let findings = diff::diff(old, new);
    let json = diff::to_json(&findings, old, new);
    let place = |v: &serde_json::Value| match v {
        serde_json::Value::Object(o) => {
            let file = o["file"].as_str().unwrap_or("?");
            let file = file.rsplit('/').next().unwrap_or(file);
            format!("{file}:{}", o["line"])
        }
        _ => "-".to_string(),
    };
    let mut out = String::new();
    for f in json.as_array().expect("an array of findings") {
        let versions: Vec<String> = f["versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap().to_string())
            .collect();
        out.push_str(&format!(
            "{} {} {} {} {} v[{}] {} ({} -> {}): {}\n",
            f["code"].as_str().unwrap(),
            f["level"].as_str().unwrap(),
            f["severity"].as_str().unwrap(),
            f["kind"].as_str().unwrap(),
            f["message"].as_str().unwrap(),
            versions.join(","),
            if f["path"].as_str().unwrap().is_empty() {
                "-"
            } else {
                f["path"].as_str().unwrap()
            },
            place(&f["old"]),
            place(&f["new"]),
            f["text"].as_str().unwrap(),
        ));
    }
    let breaking = findings
        .iter()
        .filter(|f| f.impact == diff::Impact::Breaking)
        .count();
    (out, breaking)
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 and 4.4.0 specs): put it at ../shared or set KWIRE_SHARED"
)]
fn kafka_3_9_0_to_4_4_0_clients() {
    let shared = kwire_tests::shared();
    let specs = shared.join("kafka-specs");
    let old = load(&specs.join("3.9.0/clients"), "3.9.0/clients", None);
    let new = load(&specs.join("4.4.0/clients"), "4.4.0/clients", None);
    let (text, breaking) = listing(&old, &new);
    // KIP-896 removed versions: breaking by definition.
    assert!(breaking > 0);
    assert!(text.contains("K5002"), "{text}");
    insta::assert_snapshot!("kafka_3_9_0_to_4_4_0_clients", text);
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 and 4.4.0 specs): put it at ../shared or set KWIRE_SHARED"
)]
fn kip_1071_drafts_to_4_4_0() {
    let shared = kwire_tests::shared();
    const DRAFTS: &[&str] = &[
        "StreamsGroupHeartbeatRequest.json",
        "StreamsGroupHeartbeatResponse.json",
        "StreamsGroupDescribeResponse.json",
    ];
    const SHIPPED: &[&str] = &[
        "StreamsGroupHeartbeatRequest.json",
        "StreamsGroupHeartbeatResponse.json",
        "StreamsGroupDescribeRequest.json",
        "StreamsGroupDescribeResponse.json",
    ];
    let old = load(
        &workspace_root().join("tests/fixtures/kip-drafts-fixed"),
        "kip-drafts-fixed",
        Some(DRAFTS),
    );
    let new = load(
        &shared.join("kafka-specs/4.4.0/clients"),
        "4.4.0/clients",
        Some(SHIPPED),
    );
    let (text, _) = listing(&old, &new);
    // The TBD api keys became numbers.
    assert!(text.contains("K5103"), "{text}");
    insta::assert_snapshot!("kip_1071_drafts_to_4_4_0", text);
}
