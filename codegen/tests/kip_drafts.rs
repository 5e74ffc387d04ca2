//! The KIP drafts of `tests/fixtures/kip-drafts/` (the JSON blocks of the project's seed pages,
//! copied verbatim, mistakes included) through `kwire check`: insta snapshots of exactly what it
//! prints, human and JSON, and its exit code. Each snapshot was reviewed by hand against the
//! draft: line, column and advice.

use std::path::Path;
use std::process::Command;

fn kwire(args: &[&str]) -> (String, String, i32) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn drafts() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(root.join("tests/fixtures/kip-drafts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_seed_draft_is_a_fixture() {
    assert_eq!(
        drafts(),
        [
            "ConsumerGroupHeartbeatRequest.json",
            "StreamsGroupDescribeResponse.json",
            "StreamsGroupHeartbeatRequest.json",
            "StreamsGroupHeartbeatResponse.json"
        ]
    );
}

#[test]
fn kwire_check_on_each_draft() {
    for name in drafts() {
        let path = format!("tests/fixtures/kip-drafts/{name}");
        let (stdout, stderr, code) = kwire(&["check", &path]);
        assert_eq!(stdout, "");
        assert_eq!(code, 1, "{name}: every draft has errors");
        insta::assert_snapshot!(name.trim_end_matches(".json"), stderr);
        let (json, _, code) = kwire(&["check", "--format", "json", &path]);
        assert_eq!(code, 1);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        insta::assert_snapshot!(
            format!("{}.json", name.trim_end_matches(".json")),
            serde_json::to_string_pretty(&v).unwrap()
        );
    }
}
