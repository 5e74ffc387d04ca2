//! The `kwire` binary at its edges: a reader that goes away early (`| head -1`), spec files that
//! are not UTF-8, folders without specs, `@FILE` hex with a typo, frames and JSON whose header
//! names another API than `--api`, and the JSON-form leniency `encode` documents. Every case
//! asserts the exact exit code and message. Self-contained: the inputs are written by the tests.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn kwire_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kwire"));
    c.args(args).stdin(Stdio::null());
    c
}

/// Runs `kwire ARGS`: (stdout, stderr, exit code).
fn kwire(args: &[&str]) -> (String, String, i32) {
    let out = kwire_cmd(args).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli_errors-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// A request spec with one slip: the `,` after `"type": "request"` is missing (K1002 at 3:20).
const MISSING_COMMA: &str = r#"{
  "apiKey": 1000,
  "type": "request"
  "name": "FooRequest",
  "validVersions": "0-2",
  "flexibleVersions": "1+",
  "fields": [
    { "name": "Bar", "type": "int32", "versions": "0+", "about": "A number." }
  ]
}
"#;

fn k1002(path: &str) -> String {
    format!(
        "error[K1002]: missing `,` between object members\n  ┌─ {path}:3:20\n  │\n3 │   \"type\": \"request\"\n  │                    ^\n  │\n  = help: insert `,` here\n\n"
    )
}

/// An ApiVersions v0 response frame (correlation id 1) with `n` api keys, as raw bytes: its JSON
/// form is about 88 bytes per key.
fn api_versions_v0_response(n: i32) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&1i32.to_be_bytes());
    b.extend_from_slice(&0i16.to_be_bytes());
    b.extend_from_slice(&n.to_be_bytes());
    for i in 0..n {
        for v in [(i % 100) as i16, 0, 3] {
            b.extend_from_slice(&v.to_be_bytes());
        }
    }
    b
}

/// Spawns `cmd` with `stream` ("stdout" or "stderr") piped, reads one byte of it and closes the
/// read end, as `| head -c1` does; the other stream is captured (or discarded). The output must
/// be far larger than a pipe's buffer (64 KiB; at most 1 MiB when a program enlarges it), so
/// that the writer is still writing when the reader goes. Returns (exit code, the other stream).
fn read_one_byte_then_close(mut cmd: Command, stream: &str) -> (i32, String) {
    let mut first = [0u8; 1];
    if stream == "stdout" {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stderr).unwrap(),
        )
    } else {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stderr.take().unwrap().read_exact(&mut first).unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
        )
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly_with_its_own_status() {
    let dir = scratch("pipe");
    // decode: 1.7 MB of JSON on stdout, the reader takes one byte (`kwire decode … | head -c1`).
    let frame = dir.join("big.bin");
    std::fs::write(&frame, api_versions_v0_response(20_000)).unwrap();
    let arg = format!("@{}", s(&frame));
    let (json, err, code) = kwire(&[
        "decode",
        "--api",
        "18",
        "--version",
        "0",
        "--response",
        &arg,
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(json.len() > 1_500_000, "{} bytes of JSON", json.len());
    let (code, err) = read_one_byte_then_close(
        kwire_cmd(&[
            "decode",
            "--api",
            "18",
            "--version",
            "0",
            "--response",
            &arg,
        ]),
        "stdout",
    );
    assert_eq!((code, err.as_str()), (0, ""), "exit 0 and no panic message");

    // check: 600 files with an error each, about 150 KB of diagnostics on stderr, all of them
    // (`kwire check --max-diagnostics 0 DIR 2>&1 | head -c1`), then the same as JSON on stdout.
    let specs = dir.join("specs");
    std::fs::create_dir(&specs).unwrap();
    for i in 0..600 {
        std::fs::write(specs.join(format!("Foo{i:03}Request.json")), MISSING_COMMA).unwrap();
    }
    let (_, err, code) = kwire(&["check", "--max-diagnostics", "0", &s(&specs)]);
    assert_eq!(code, 1);
    assert!(
        err.len() > 120_000 && err.ends_with("kwire check: 600 files, 600 errors, 0 warnings\n"),
        "{} bytes",
        err.len()
    );
    let (code, out) = read_one_byte_then_close(
        kwire_cmd(&["check", "--max-diagnostics", "0", &s(&specs)]),
        "stderr",
    );
    assert_eq!(
        (code, out.as_str()),
        (1, ""),
        "exit 1, as with the whole output read"
    );
    let (code, err) = read_one_byte_then_close(
        kwire_cmd(&["check", "--format", "json", &s(&specs)]),
        "stdout",
    );
    assert_eq!((code, err.as_str()), (1, ""));

    // A usage error whose message finds standard error already closed: still 2.
    let mut child = kwire_cmd(&["check", &s(&dir.join("missing"))])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spec_file_that_is_not_utf8_is_reported_and_the_others_checked() {
    let dir = scratch("utf8");
    // A UTF-16LE `{}` (BOM FF FE), and a valid spec but for a Latin-1 `é` (0xE9) in an `about`.
    std::fs::write(dir.join("binary.json"), b"\xff\xfe{\x00}\x00").unwrap();
    let mut latin1 = MISSING_COMMA
        .replace("\"type\": \"request\"\n", "\"type\": \"request\",\n")
        .into_bytes();
    let at = latin1.windows(9).position(|w| w == b"A number.").unwrap() + 2;
    latin1[at] = 0xe9;
    std::fs::write(dir.join("latin1.json"), &latin1).unwrap();
    std::fs::write(dir.join("missing_comma.json"), MISSING_COMMA).unwrap();
    let d = s(&dir);
    let binary = format!(
        "error: file is not valid UTF-8: byte 0xff at byte offset 0\n  ┌─ {d}/binary.json:1:1\n  │\n  \
         = help: the file starts with a UTF-16 byte-order mark; spec files are read as UTF-8: save it as UTF-8\n\n"
    );
    let latin = format!(
        "error: file is not valid UTF-8: byte 0xe9 at byte offset {at}\n  ┌─ {d}/latin1.json:8:69\n  │\n  \
         = help: spec files are read as UTF-8: save it as UTF-8\n\n"
    );
    let (out, err, code) = kwire(&["check", &d]);
    let want = format!(
        "{binary}{latin}{}kwire check: 3 files, 3 errors, 0 warnings\n",
        k1002(&format!("{d}/missing_comma.json"))
    );
    assert_eq!((code, out.as_str(), err.as_str()), (1, "", want.as_str()));

    // The same files named one by one.
    let files: Vec<String> = ["binary.json", "missing_comma.json"]
        .iter()
        .map(|f| format!("{d}/{f}"))
        .collect();
    let (out, err, code) = kwire(&["check", &files[0], &files[1]]);
    let want = format!(
        "{binary}{}kwire check: 2 files, 2 errors, 0 warnings\n",
        k1002(&files[1])
    );
    assert_eq!((code, out.as_str(), err.as_str()), (1, "", want.as_str()));

    // As JSON: an object like the others, with `code` null.
    let (out, err, code) = kwire(&["check", "--format", "json", &files[0]]);
    assert_eq!((code, err.as_str()), (1, ""));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!([{
            "code": null, "column": 1, "end_column": 2, "end_line": 1, "file": files[0],
            "help": "the file starts with a UTF-16 byte-order mark; spec files are read as UTF-8: save it as UTF-8", "line": 1,
            "message": "file is not valid UTF-8: byte 0xff at byte offset 0", "severity": "error"
        }])
    );

    // `generate` cannot skip a file: it stops, naming the file (not only the folder).
    let (_, err, code) = kwire(&["generate", &d, "-o", &s(&dir.join("out.rs"))]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            format!("error: {d}: binary.json: file is not valid UTF-8: byte 0xff at byte offset 0 (line 1, column 1)\n").as_str()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_without_spec_files_is_a_usage_error() {
    let dir = scratch("empty");
    std::fs::create_dir_all(dir.join("a").join("b")).unwrap();
    std::fs::write(dir.join("a").join("notes.txt"), "not a spec").unwrap();
    let d = s(&dir);
    for format in ["human", "json"] {
        let (out, err, code) = kwire(&["check", "--format", format, &d]);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (
                2,
                "",
                format!("error: no spec files (*.json) under {d}\n").as_str()
            )
        );
    }
    // With a spec somewhere below, the folder is fine.
    std::fs::write(
        dir.join("a").join("b").join("FooRequest.json"),
        MISSING_COMMA,
    )
    .unwrap();
    let (_, err, code) = kwire(&["check", &d]);
    assert_eq!(
        (
            code,
            err.ends_with("kwire check: 1 file, 1 error, 0 warnings\n")
        ),
        (1, true),
        "{err}"
    );
    let (help, _, code) = kwire(&["check", "--help"]);
    assert_eq!(code, 0);
    assert!(
        help.contains(
            "a folder with no *.json file at any depth (\"no spec files (*.json) under DIR\")"
        ),
        "{help}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hex_in_a_file_with_a_typo_is_bad_hex_and_binary_is_raw() {
    let dir = scratch("hex");
    // ApiVersions v0, correlation id 7, client id "cli".
    let frame = "00120000000000070003636c69";
    let (json, _, code) = kwire(&["decode", "--api", "18", "--version", "0", frame]);
    assert_eq!(code, 0);
    let cases: &[(&str, &[u8], i32, &str)] = &[
        // Hex text, whitespace and line breaks allowed.
        ("ok.hex", b"0012 0000\n00000007\r\n0003636c69\n", 0, ""),
        // A typo: reported, not read as a raw frame.
        ("typo.hex", b"0g120000000000070003636c69\n", 2,
            "error: bad hex in {}: 'g' at character 1 (line 1, column 2) is not a hex digit (a file of printable text is read as hex)\n"),
        ("typo2.hex", b"00120000\n  000000o70003636c69\n", 2,
            "error: bad hex in {}: 'o' at character 17 (line 2, column 9) is not a hex digit (a file of printable text is read as hex)\n"),
        ("0x.hex", b"0x00120000000000070003636c69", 2,
            "error: bad hex in {}: 'x' at character 1 (line 1, column 2) is not a hex digit (a file of printable text is read as hex)\n"),
        ("odd.hex", b"00120000000000070003636c6", 2, "error: bad hex in {}: odd number of hex digits (25)\n"),
        // Raw bytes: a request starts with 0x00.
        ("raw.bin", b"\x00\x12\x00\x00\x00\x00\x00\x07\x00\x03cli", 0, ""),
    ];
    for (name, bytes, want_code, want_err) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let (out, err, code) = kwire(&[
            "decode",
            "--api",
            "18",
            "--version",
            "0",
            &format!("@{}", s(&path)),
        ]);
        let want_err = want_err.replace("{}", &s(&path));
        let want_out = if *want_code == 0 { json.as_str() } else { "" };
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (*want_code, want_out, want_err.as_str()),
            "{name}"
        );
    }
    // Standard input follows the same rule.
    let mut child = kwire_cmd(&["decode", "--api", "18", "--version", "0", "@-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"0012 00zz").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        (out.status.code(), String::from_utf8(out.stderr).unwrap().as_str()),
        (Some(2), "error: bad hex in standard input: 'z' at character 7 (line 1, column 8) is not a hex digit (a file of printable text is read as hex)\n")
    );
    // Inline hex counts characters, not bytes.
    let (_, err, code) = kwire(&["decode", "--api", "18", "--version", "0", "00é12"]);
    assert_eq!(
        (code, err.as_str()),
        (2, "error: bad hex: 'é' at character 2 is not a hex digit\n")
    );
    let (help, _, _) = kwire(&["decode", "--help"]);
    assert!(
        help.contains("A file whose bytes are all printable ASCII or whitespace is hex text"),
        "{help}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_header_naming_another_api_is_reported_as_the_mismatch() {
    // The start of a ProduceRequest v3 (correlation id 1, no client id): the header is checked
    // before the body is read, so the rest does not matter.
    let produce_v3 = "0000000300000001ffffffff";
    // An ApiVersions v0 request, correlation id 7, client id "cli".
    let api_versions_v0 = "00120000000000070003636c69";
    let cases: &[(&[&str], i32, &str)] = &[
        (&["decode", "--api", "18", "--version", "3", produce_v3], 1,
            "error: the frame's header says API key 0 (Produce) version 3, but --api 18 --version 3 was given (if it is a response, add --response)\n"),
        // A response (correlation id 3) without --response: its correlation id reads as Produce v3.
        (&["decode", "--api", "ApiVersions", "--version", "3", "000000030000000000"], 1,
            "error: the frame's header says API key 0 (Produce) version 3, but --api 18 --version 3 was given (if it is a response, add --response)\n"),
        (&["decode", "--api", "18", "--version", "3", "04d2000300000001"], 1,
            "error: the frame's header says API key 1234 (not in schemas/) version 3, but --api 18 --version 3 was given (if it is a response, add --response)\n"),
        // Same API, another version: no hint about --response.
        (&["decode", "--api", "18", "--version", "1", api_versions_v0], 1,
            "error: the frame's header says API key 18 (ApiVersions) version 0, but --api 18 --version 1 was given\n"),
        // A request given with --response: the decode error, and a hint.
        (&["decode", "--api", "18", "--version", "0", "--response", api_versions_v0], 1,
            "error: decode: ApiVersionsResponse.api_keys at byte 6: array of 458755 elements cannot fit in the 3 bytes left \
             (the frame starts with the request header of --api 18 --version 0: if it is a request, drop --response)\n"),
        // Under 4 bytes there is no header to compare: the decoder says why.
        (&["decode", "--api", "18", "--version", "0", "0012"], 1,
            "error: decode: at byte 0: needed 4 bytes, 2 left\n"),
        // JSON: the header is checked before the body is read as --api.
        (&["encode", "--api", "18", "--version", "3",
            r#"{"header": {"requestApiKey": 0, "requestApiVersion": 3, "correlationId": 1, "clientId": null}, "body": {"acks": 1}}"#], 1,
            "error: the JSON's header says API key 0 (Produce) version 3, but --api 18 --version 3 was given (if it is a response, add --response)\n"),
        (&["encode", "--api", "18", "--version", "0", "--response",
            r#"{"header": {"requestApiKey": 18, "requestApiVersion": 0, "correlationId": 7, "clientId": "cli"}, "body": {}}"#], 1,
            "error: the JSON's header is a request header (requestApiKey 18, requestApiVersion 0), but --response was given\n"),
    ];
    for (args, want_code, want) in cases {
        let (out, err, code) = kwire(args);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (*want_code, "", *want),
            "{args:?}"
        );
    }
}

#[test]
fn encode_reads_json_as_leniently_as_kafka_and_says_so() {
    // ApiVersions v0, correlation id 7, client id "cli".
    let want = "00120000000000070003636c69\n";
    let json = r#"{"header": {"requestApiKey": 18, "requestApiVersion": 0, "correlationId": 7, "clientId": "cli"}, "body": {}}"#;
    let (hex, err, code) = kwire(&["encode", "--api", "18", "--version", "0", json]);
    assert_eq!((code, hex.as_str(), err.as_str()), (0, want, ""));
    // Unknown keys are ignored, as Kafka's converters ignore them; so is a v3+ field at its default.
    let lenient = r#"{"header": {"requestApiKey": 18, "requestApiVersion": 0, "correlationId": 7, "clientId": "cli", "extra": 1},
                      "body": {"bogus": [1, 2], "clientSoftwareName": ""}}"#;
    let (hex, err, code) = kwire(&["encode", "--api", "18", "--version", "0", lenient]);
    assert_eq!((code, hex.as_str(), err.as_str()), (0, want, ""));
    // A v3+ field with a value v0 cannot carry: read, then dropped when encoding, as Kafka's
    // writer does, because the spec makes it ignorable (ClientSoftwareName)...
    let ignorable = r#"{"header": {"requestApiKey": 18, "requestApiVersion": 0, "correlationId": 7, "clientId": "cli"},
                        "body": {"clientSoftwareName": "x"}}"#;
    let (hex, err, code) = kwire(&["encode", "--api", "18", "--version", "0", ignorable]);
    assert_eq!((code, hex.as_str(), err.as_str()), (0, want, ""));
    // ...and refused when it is not (SubscribedTopicRegex of ConsumerGroupHeartbeat is v1+).
    let not_ignorable = r#"{
      "header": {"requestApiKey": 68, "requestApiVersion": 0, "correlationId": 1, "clientId": null},
      "body": {"groupId": "g", "memberId": "m", "memberEpoch": 0, "instanceId": null, "rackId": null,
               "rebalanceTimeoutMs": -1, "subscribedTopicNames": null, "subscribedTopicRegex": "x",
               "serverAssignor": null, "topicPartitions": null}
    }"#;
    let (hex, err, code) = kwire(&["encode", "--api", "68", "--version", "0", not_ignorable]);
    assert_eq!(
        (code, hex.as_str(), err.as_str()),
        (1, "", "error: encode: ConsumerGroupHeartbeatRequest.subscribed_topic_regex: field is not in version 0 but holds a non-default value\n")
    );
    let (help, _, _) = kwire(&["encode", "--help"]);
    assert!(help.contains("unknown keys are ignored; a field the version lacks is read, and refused when encoding only if it holds a non-default value and is not ignorable"), "{help}");
}
