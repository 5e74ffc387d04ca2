//! The `kwire` binary as a newcomer first runs it: `--help` names every subcommand, `generate`
//! takes the options of `kwire_codegen::Builder`, and a frame pasted with its 4-byte size prefix
//! gets a hint saying so (or is read with `--size-prefixed`). Every case asserts the exact exit
//! code and output. Self-contained: the inputs are written by the tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `kwire ARGS` in `dir`: (stdout, stderr, exit code).
fn kwire_in(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

fn kwire(args: &[&str]) -> (String, String, i32) {
    kwire_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli_usage-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A folder `specs` in `dir` with one small data spec, `Foo`.
fn specs(dir: &Path) -> &'static str {
    let specs = dir.join("specs");
    std::fs::create_dir_all(&specs).unwrap();
    let spec = "{\n  \"type\": \"data\",\n  \"name\": \"Foo\",\n  \"validVersions\": \"0\",\n  \"flexibleVersions\": \"0+\",\n  \"fields\": [\n    { \"name\": \"Bar\", \"type\": \"int32\", \"versions\": \"0+\", \"about\": \"A number.\" }\n  ]\n}\n";
    std::fs::write(specs.join("Foo.json"), spec).unwrap();
    "specs"
}

#[test]
fn help_names_every_subcommand() {
    let (out, err, code) = kwire(&["--help"]);
    assert_eq!((code, err.as_str()), (0, ""));
    for sub in ["check", "diff", "generate", "decode", "encode"] {
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with(&format!("{sub} "))),
            "{sub} missing from:\n{out}"
        );
    }
    let (out, _, code) = kwire(&["generate", "--help"]);
    assert_eq!(code, 0);
    for option in [
        "--out <OUT>",
        "--out-dir <OUT_DIR>",
        "--file-name <FILE_NAME>",
        "--samples",
        "--json",
        "--views",
    ] {
        assert!(out.contains(option), "{option} missing from:\n{out}");
    }
}

#[test]
fn generate_takes_the_builder_options() {
    let dir = scratch("generate");
    let specs = specs(&dir);
    let (out, err, code) = kwire_in(&dir, &["generate", specs, "-o", "one/out.rs", "--views"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let (_, err, code) = kwire_in(
        &dir,
        &[
            "generate",
            specs,
            "--out-dir",
            "two",
            "--file-name",
            "out.rs",
            "--views",
        ],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let (_, err, code) = kwire_in(&dir, &["generate", specs, "--out-dir", "three"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let one = std::fs::read_to_string(dir.join("one/out.rs")).unwrap();
    let three = std::fs::read_to_string(dir.join("three/kwire.rs")).unwrap();
    // -o FILE and --out-dir with --file-name write the same file; --views adds the views.
    assert_eq!(
        one,
        std::fs::read_to_string(dir.join("two/out.rs")).unwrap()
    );
    assert!(one.contains("pub struct FooRef<'a>"), "views missing");
    assert!(
        !three.contains("pub struct FooRef<'a>"),
        "views without --views"
    );
    // The output goes to exactly one place.
    let (_, err, code) = kwire_in(
        &dir,
        &["generate", specs, "-o", "x.rs", "--file-name", "y.rs"],
    );
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: the argument '--") && err.contains("' cannot be used with '--"),
        "{err}"
    );
    assert!(
        err.contains("'--file-name <FILE_NAME>'") && err.contains("'--out <OUT>'"),
        "{err}"
    );
    let (_, err, code) = kwire_in(&dir, &["generate", specs]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: the following required arguments were not provided:"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_with_errors_prints_the_diagnostics_and_writes_nothing() {
    let dir = scratch("generate-errors");
    let specs = dir.join("specs");
    std::fs::create_dir_all(&specs).unwrap();
    let broken = "{\n  \"apiKey\": 1000,\n  \"type\": \"data\"\n  \"name\": \"Foo\",\n  \"validVersions\": \"0\",\n  \"flexibleVersions\": \"none\",\n  \"fields\": []\n}\n";
    std::fs::write(specs.join("Foo.json"), broken).unwrap();
    let (out, err, code) = kwire_in(&dir, &["generate", "specs", "-o", "out.rs"]);
    let path = Path::new("specs").join("Foo.json").display().to_string();
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            format!(
                "kwire: the specs have errors:\nerror[K1002]: missing `,` between object members\n  ┌─ {path}:3:17\n  │\n3 │   \"type\": \"data\"\n  │                 ^\n  │\n  = help: insert `,` here\n\n\n"
            )
            .as_str()
        )
    );
    assert!(!dir.join("out.rs").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A ConsumerGroupHeartbeat v1 request frame (header v2 + body), as in the README.
#[cfg(feature = "wire")]
const HEARTBEAT: &str =
    "0044000100000004000570726f6265000267026d000000000000000493e002027400000100";

#[cfg(feature = "wire")]
#[test]
fn a_frame_pasted_with_its_size_prefix_gets_a_hint() {
    let prefixed = format!("00000025{HEARTBEAT}");
    let (out, err, code) = kwire(&["decode", "--api", "68", "--version", "1", &prefixed]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            "error: the frame's header says API key 0 (Produce) version 37, but --api 68 --version 1 was given (if it is a response, add --response)\n\
             hint: the input starts with a 4-byte size prefix (37, the number of bytes after it); drop it, or pass --size-prefixed\n"
        )
    );
    // With --size-prefixed it is the same frame.
    let (plain, err, code) = kwire(&["decode", "--api", "68", "--version", "1", HEARTBEAT]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (out, err, code) = kwire(&[
        "decode",
        "--api",
        "68",
        "--version",
        "1",
        "--size-prefixed",
        &prefixed,
    ]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, plain.as_str(), ""));
    // …and encode --size-prefixed writes it back with its prefix.
    let (out, err, code) = kwire(&[
        "encode",
        "--api",
        "68",
        "--version",
        "1",
        "--size-prefixed",
        &plain,
    ]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, format!("{prefixed}\n").as_str(), "")
    );
    // A response (ApiVersions v0, correlation id 1, error 0, no keys) with its prefix.
    let (_, err, code) = kwire(&[
        "decode",
        "--api",
        "18",
        "--version",
        "0",
        "--response",
        "0000000a00000001000000000000",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.ends_with("\nhint: the input starts with a 4-byte size prefix (10, the number of bytes after it); drop it, or pass --size-prefixed\n"),
        "{err}"
    );
    let (_, err, code) = kwire(&[
        "decode",
        "--api",
        "18",
        "--version",
        "0",
        "--response",
        "--size-prefixed",
        "0000000a00000001000000000000",
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[cfg(feature = "wire")]
#[test]
fn size_prefixed_checks_the_prefix() {
    let cases: &[(String, &str)] = &[
        (format!("00000026{HEARTBEAT}"), "error: the size prefix says 38 bytes, but only 37 follow it\n"),
        (format!("00000024{HEARTBEAT}"), "error: the size prefix says 36 bytes, but 37 follow it (--size-prefixed: one frame, nothing after it)\n"),
        ("0000".to_string(), "error: --size-prefixed: 2 bytes, too short for the 4-byte size prefix\n"),
    ];
    for (input, want) in cases {
        let (out, err, code) = kwire(&[
            "decode",
            "--api",
            "68",
            "--version",
            "1",
            "--size-prefixed",
            input,
        ]);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (1, "", *want),
            "{input}"
        );
    }
    // A frame that decodes as given gets no hint, even when it could be read as size-prefixed.
    let (_, err, code) = kwire(&["decode", "--api", "68", "--version", "1", HEARTBEAT]);
    assert_eq!((code, err.as_str()), (0, ""));
}
