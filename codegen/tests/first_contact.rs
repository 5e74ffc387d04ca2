//! What a newcomer meets first with the library: the text of a failed build (`Builder` errors
//! through `.unwrap()`, as the `Builder` docs show) and the diagnostics of a folder where one
//! spec of a request/response pair has an error (no false K4002 for its partner).

use kwire_codegen::{check_files, Builder, SourceFile};
use std::path::{Path, PathBuf};

/// A folder whose `FooRequest.json` misses a `,` (K1002 at 3:20) and whose `FooResponse.json`
/// is fine.
fn broken_pair() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/broken_pair")
}

fn file(name: &str, text: &str) -> SourceFile {
    SourceFile {
        path: PathBuf::from(name),
        text: text.to_string(),
    }
}

fn response_spec() -> String {
    std::fs::read_to_string(broken_pair().join("FooResponse.json")).unwrap()
}

/// (file name, code) of every diagnostic, in file order.
fn codes(files: Vec<SourceFile>) -> Vec<(String, String)> {
    let checked = check_files(files);
    checked
        .files
        .iter()
        .zip(&checked.diagnostics)
        .flat_map(|(f, ds)| ds.iter().map(move |d| (f.file_name(), d.code.to_string())))
        .collect()
}

#[test]
fn debug_of_a_build_error_is_the_rendered_diagnostics() {
    let files = kwire_codegen::source::read_dir(&broken_pair()).unwrap();
    let err = Builder::new().generate(files).unwrap_err();
    let display = format!("{err}");
    assert_eq!(format!("{err:?}"), display);
    let path = broken_pair().join("FooRequest.json").display().to_string();
    assert_eq!(
        display,
        format!(
            "kwire: the specs have errors:\nerror[K1002]: missing `,` between object members\n  ┌─ {path}:3:20\n  │\n3 │   \"type\": \"request\"\n  │                    ^\n  │\n  = help: insert `,` here\n\n"
        )
    );
    // What a build script's `.unwrap()` prints: the same lines, not one escaped string.
    let payload = std::panic::catch_unwind(|| {
        Builder::new()
            .generate(kwire_codegen::source::read_dir(&broken_pair()).unwrap())
            .unwrap();
    })
    .unwrap_err();
    let message = payload.downcast_ref::<String>().unwrap();
    assert_eq!(
        *message,
        format!("called `Result::unwrap()` on an `Err` value: {display}")
    );
    assert!(
        message.contains("\n  │                    ^\n"),
        "{message}"
    );
}

#[test]
fn debug_of_other_build_errors_is_their_display() {
    let err = kwire_codegen::Error::NoOutDir;
    assert_eq!(format!("{err:?}"), format!("{err}"));
    let err = kwire_codegen::Error::from(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "specs: not found",
    ));
    assert_eq!(format!("{err:?}"), "specs: not found");
}

#[test]
fn a_syntax_error_in_a_request_gives_no_false_k4002_for_its_response() {
    let files = kwire_codegen::source::read_dir(&broken_pair()).unwrap();
    assert_eq!(
        codes(files),
        [("FooRequest.json".to_string(), "K1002".to_string())]
    );
}

#[test]
fn a_partner_that_does_not_parse_at_all_counts_as_present_by_its_file_name() {
    // An empty file: K1013, no syntax tree, so neither kind nor API key is known.
    let files = vec![
        file("FooRequest.json", ""),
        file("FooResponse.json", &response_spec()),
    ];
    assert_eq!(
        codes(files),
        [("FooRequest.json".to_string(), "K1013".to_string())]
    );
}

#[test]
fn a_missing_partner_is_still_k4002_when_another_file_fails() {
    let files = vec![
        file("BarRequest.json", ""),
        file("FooResponse.json", &response_spec()),
    ];
    assert_eq!(
        codes(files),
        [
            ("BarRequest.json".to_string(), "K1013".to_string()),
            ("FooResponse.json".to_string(), "K4002".to_string())
        ]
    );
    let files = vec![file("FooResponse.json", &response_spec())];
    assert_eq!(
        codes(files),
        [("FooResponse.json".to_string(), "K4002".to_string())]
    );
}

/// A build with warnings succeeds and hands them to the caller, each with its file, position and
/// code (a build script also prints each as one `cargo:warning=` line).
#[test]
fn builder_warnings_are_returned_with_their_place() {
    let spec = r#"{
  "apiKey": 1000,
  "type": "request",
  "name": "FooRequest",
  "validVersions": "0-2",
  "flexibleVersions": "1+",
  "fields": [
    { "name": "Bar", "type": "string", "versions": "1+", "nullableVersions": "0+", "about": "A string." }
  ]
}
"#;
    let response = response_spec();
    let g = Builder::new()
        .generate_with_warnings(vec![
            file("FooRequest.json", spec),
            file("FooResponse.json", &response),
        ])
        .unwrap();
    assert!(g.code.contains("pub struct FooRequest"));
    assert_eq!(g.warnings.len(), 1, "{:?}", g.warnings);
    let w = &g.warnings[0];
    assert_eq!(
        (w.file.as_path(), w.line, w.column, w.code),
        (Path::new("FooRequest.json"), 8, 78, "K2150")
    );
    assert_eq!(
        w.to_string(),
        "FooRequest.json:8:78: warning[K2150]: field `Bar`: nullableVersions `0+` lie outside versions `1+`; help: nullable versions only matter where the field exists: `1+`"
    );
    let out = std::env::temp_dir().join(format!("kwire-first-contact-{}", std::process::id()));
    let compiled = Builder::new()
        .out_dir(&out)
        .compile_files(vec![
            file("FooRequest.json", spec),
            file("FooResponse.json", &response),
        ])
        .unwrap();
    assert_eq!(
        (compiled.path, compiled.warnings),
        (out.join("kwire.rs"), g.warnings)
    );
    let _ = std::fs::remove_dir_all(&out);
}
