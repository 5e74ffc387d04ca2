//! `kwire diff OLD NEW` as a user runs it, on the fixture pairs of `tests/fixtures/diff`: exit 0
//! when nothing is breaking, 1 when something is (or a side has check errors, printed as `kwire
//! check` prints them), 2 on a usage error; the fields of `--format json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `kwire ARGS` in the crate folder: (stdout, stderr, exit code).
fn kwire(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

const FIX: &str = "tests/fixtures/diff";

fn pair(dir: &str) -> (String, String) {
    (format!("{FIX}/{dir}/old"), format!("{FIX}/{dir}/new"))
}

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli_diff-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn compatible_change_exits_0() {
    let (o, n) = pair("K5105-tagged-field-added");
    let (out, err, code) = kwire(&["diff", &o, &n]);
    assert_eq!(code, 0, "{out}{err}");
    // A compatible finding is a note, not a warning: nothing is wrong with it.
    assert!(
        out.starts_with("note[K5105]: tagged field `Note` (tag 1) added\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!("┌─ {n}/WidgetRequest.json:23:")),
        "{out}"
    );
    assert!(
        out.ends_with("kwire diff: 1 finding, 0 breaking, 1 compatible\n"),
        "{out}"
    );
    assert_eq!(err, "");
}

#[test]
fn identical_folders_exit_0_with_no_finding() {
    let (o, _) = pair("K5008-type-changed");
    let (out, err, code) = kwire(&["diff", &o, &o]);
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        ("kwire diff: 0 findings, 0 breaking, 0 compatible\n", "", 0)
    );
}

#[test]
fn breaking_change_exits_1() {
    let (o, n) = pair("K5008-type-changed");
    let (out, _, code) = kwire(&["diff", &o, &n]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("error[K5008]: type changed from `int32` to `int64`\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!("{o}/WidgetRequest.json:12:32")),
        "{out}"
    );
    assert!(
        out.contains(&format!("{n}/WidgetRequest.json:12:32")),
        "{out}"
    );
}

#[test]
fn two_files_are_compared_with_each_other() {
    let (o, n) = pair("K5008-type-changed");
    let (out, _, code) = kwire(&[
        "diff",
        &format!("{o}/WidgetRequest.json"),
        &format!("{n}/WidgetRequest.json"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j.as_array().unwrap().len(), 1);
    assert_eq!(j[0]["code"], "K5008");
}

#[test]
fn json_fields() {
    let (o, n) = pair("K5002-versions-removed");
    let (out, err, code) = kwire(&["diff", &o, &n, "--format", "json"]);
    assert_eq!((code, err.as_str()), (1, ""));
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j,
        serde_json::json!([{
            "code": "K5002",
            "severity": "breaking",
            "level": "error",
            "kind": "removed",
            "message": "WidgetRequest",
            "versions": [0],
            "path": "",
            "text": "versions 0 removed (validVersions 0-2 → 1-2)",
            "old": { "file": format!("{o}/WidgetRequest.json"), "line": 7, "column": 20 },
            "new": { "file": format!("{n}/WidgetRequest.json"), "line": 7, "column": 20 },
        }])
    );
}

#[test]
fn check_errors_exit_1_as_check_prints_them() {
    let dir = scratch("errors");
    let (old, new) = (dir.join("old"), dir.join("new"));
    std::fs::create_dir_all(&old).unwrap();
    std::fs::create_dir_all(&new).unwrap();
    let spec = r#"{ "type": "data", "name": "Foo", "validVersions": "0", "flexibleVersions": "none",
  "fields": [ { "name": "A", "type": "int33", "versions": "0+" } ] }"#;
    std::fs::write(old.join("Foo.json"), spec.replace("int33", "int32")).unwrap();
    std::fs::write(new.join("Foo.json"), spec).unwrap();
    let (out, err, code) = kwire(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(out, "");
    let (_, check_err, check_code) = kwire(&["check", new.to_str().unwrap()]);
    assert_eq!(check_code, 1);
    // The same diagnostics as `kwire check`, then diff's own last line.
    let diags = check_err.rsplit_once("kwire check:").unwrap().0;
    assert!(err.starts_with(diags), "{err}\n---\n{check_err}");
    assert!(
        err.ends_with("kwire diff: 1 error in the specs; nothing compared\n"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let (o, n) = pair("K5008-type-changed");
    // A folder against a file.
    let (_, err, code) = kwire(&["diff", &o, &format!("{n}/WidgetRequest.json")]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: compare a file with a file or a folder with a folder"),
        "{err}"
    );
    // A path that does not exist.
    let (_, err, code) = kwire(&["diff", "no/such/Old.json", "no/such/New.json"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: no/such/Old.json: "), "{err}");
    // A folder without *.json.
    let empty = scratch("empty");
    let e = empty.to_str().unwrap();
    let (_, err, code) = kwire(&["diff", e, e]);
    assert_eq!(code, 2);
    assert_eq!(err, format!("error: no spec files (*.json) in {e}\n"));
    // A missing argument (clap).
    let (_, _, code) = kwire(&["diff", &o]);
    assert_eq!(code, 2);
}
