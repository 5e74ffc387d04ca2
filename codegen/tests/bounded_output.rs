//! `kwire check` on adversarial specs (Stage 13's first-contact defects): 20,000 fields in one
//! struct, 20,000 bad listeners on one line, 20,000 bad fields, a label over thousands of lines.
//! The human output is bounded (at most `--max-diagnostics` diagnostics, 50 by default, then a
//! count of the rest; every source line cut to a window) and correct (the summary counts every
//! diagnostic); the JSON form has them all. No timing asserts: the bounds are on the output.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `kwire ARGS`: (stdout, stderr, exit code).
fn kwire(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// `text` written to a fresh scratch file `name`; its path.
fn scratch(name: &str, text: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bounded_output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// A request spec with `fields` (one per line) and the extra top-level `extra` text.
fn spec(fields: &[String], extra: &str) -> String {
    format!(
        "{{\n  \"apiKey\": 1000,\n  \"type\": \"request\",\n  \"name\": \"FooRequest\",\n  \"validVersions\": \"0-2\",\n  \"flexibleVersions\": \"1+\",{extra}\n  \"fields\": [\n{}\n  ]\n}}\n",
        fields.join(",\n")
    )
}

fn field(i: usize, ty: &str) -> String {
    format!("    {{ \"name\": \"Field{i}\", \"type\": \"{ty}\", \"versions\": \"0+\", \"about\": \"A number.\" }}")
}

const N: usize = 20_000;

/// The rendered diagnostics of a human output: the lines that start one.
fn headers(err: &str) -> usize {
    err.lines()
        .filter(|l| l.starts_with("error[") || l.starts_with("warning["))
        .count()
}

#[test]
fn twenty_thousand_fields_check_cleanly() {
    let fields: Vec<String> = (0..N).map(|i| field(i, "int32")).collect();
    let path = scratch("fields.json", &spec(&fields, ""));
    let (_, err, code) = kwire(&["check", &path]);
    assert_eq!(
        (code, err.as_str()),
        (0, "kwire check: 1 file, 0 errors, 0 warnings\n")
    );
}

#[test]
fn twenty_thousand_bad_listeners_on_one_line_print_fifty_windows_and_a_count() {
    let listeners: Vec<String> = (0..N).map(|i| format!("\"brokr{i}\"")).collect();
    let path = scratch(
        "listeners.json",
        &spec(
            &[field(0, "int32")],
            &format!("\n  \"listeners\": [{}],", listeners.join(", ")),
        ),
    );
    let (_, err, code) = kwire(&["check", &path]);
    assert_eq!(code, 1);
    assert_eq!(headers(&err), 50, "{err}");
    assert!(err.ends_with("... and 19950 more errors not shown (--max-diagnostics 0 shows them all)\nkwire check: 1 file, 20000 errors, 0 warnings\n"), "{}", &err[err.len() - 300..]);
    // The 250 KB line is shown as a window around each listener.
    assert!(
        err.lines().all(|l| l.chars().count() <= 140),
        "a line of {} characters",
        err.lines().map(|l| l.chars().count()).max().unwrap()
    );
    assert!(err.len() < 50 * 400, "{} bytes", err.len());
    assert!(
        err.contains("\n7 │   \"listeners\": [\"brokr0\", \"brokr1\""),
        "{}",
        &err[..400]
    );
    assert!(err.contains("error[K2011]: unknown listener `brokr49`"));
    assert!(!err.contains("`brokr50`"));
    // Each window holds its own listener and its caret: the 40th starts a window with `…`.
    let at = err.find("unknown listener `brokr40`").unwrap();
    let rendered: Vec<&str> = err[at..].lines().take(5).collect();
    assert!(
        rendered[3].starts_with("7 │ …")
            && rendered[3].contains("\"brokr40\"")
            && rendered[3].ends_with('…'),
        "{rendered:?}"
    );
    let caret = rendered[4].find('^').unwrap();
    assert_eq!(
        rendered[3]
            .chars()
            .skip(caret - 2)
            .take(9)
            .collect::<String>(),
        "\"brokr40\"",
        "{rendered:?}"
    );
}

#[test]
fn the_limit_is_a_flag_and_zero_shows_all() {
    let fields: Vec<String> = (0..N).map(|i| field(i, "int33")).collect();
    let path = scratch("badfields.json", &spec(&fields, ""));
    let (_, err, code) = kwire(&["check", "--max-diagnostics", "5", &path]);
    assert_eq!((code, headers(&err)), (1, 5));
    assert!(err.ends_with("... and 19995 more errors not shown (--max-diagnostics 0 shows them all)\nkwire check: 1 file, 20000 errors, 0 warnings\n"));
    let (_, err, code) = kwire(&["check", "--max-diagnostics", "0", &path]);
    assert_eq!((code, headers(&err)), (1, N));
    assert!(!err.contains("more errors"));
    assert!(err.ends_with("kwire check: 1 file, 20000 errors, 0 warnings\n"));
    // About 300 bytes each: the output grows with the diagnostics, not with the file.
    assert!(err.len() < N * 400, "{} bytes", err.len());
    // The JSON form is complete, whatever the limit.
    let (json, _, code) = kwire(&["check", "--format", "json", "--max-diagnostics", "5", &path]);
    let items: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert_eq!((code, items.len()), (1, N));
    assert_eq!(
        (items[N - 1]["code"].as_str(), items[N - 1]["line"].as_u64()),
        (Some("K2007"), Some(8 + N as u64 - 1))
    );
}

#[test]
fn a_label_over_many_lines_shows_its_first_and_last_lines() {
    // `about` is an object of 5,000 lines: K2003 spans all of it.
    let inner: Vec<String> = (0..5_000).map(|i| format!("      \"k{i}\": {i}")).collect();
    let bad = format!("    {{ \"name\": \"Bar\", \"type\": \"int32\", \"versions\": \"0+\", \"about\": {{\n{}\n    }} }}", inner.join(",\n"));
    let path = scratch("multiline.json", &spec(&[bad], ""));
    let (_, err, code) = kwire(&["check", &path]);
    assert_eq!(code, 1);
    assert_eq!(headers(&err), 1, "{err}");
    assert!(err.lines().count() < 20, "{err}");
    assert!(
        err.contains("\"k0\": 0") && err.contains("5009 │ │     } }"),
        "{err}"
    );
    assert!(!err.contains("\"k10\""), "{err}");
}
