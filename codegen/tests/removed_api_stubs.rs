//! Removed-API stubs: Kafka 4.0 keeps the spec files of APIs it removed (e.g.
//! `ControlledShutdownRequest.json`) with `"validVersions": "none"` and nothing else. Kafka's
//! `MessageSpec` reads the literal `none` as a message with no versions and then requires neither
//! `flexibleVersions` nor `fields`; kwire does the same, and generates for it a message whose
//! encode and decode refuse every version.

use kwire_codegen::{check_files, Builder, SourceFile};
use std::path::PathBuf;

fn file(name: &str, text: &str) -> SourceFile {
    SourceFile {
        path: PathBuf::from(name),
        text: text.to_string(),
    }
}

/// A stub pair (key 7, as in Kafka 4.x) and a live pair (key 8), so that `ApiKey` lists both.
fn stub_set() -> Vec<SourceFile> {
    vec![
        file(
            "ControlledShutdownRequest.json",
            "{ \"apiKey\": 7, \"type\": \"request\", \"name\": \"ControlledShutdownRequest\",\n  // This request was removed.\n  \"validVersions\": \"none\" }\n",
        ),
        file(
            "ControlledShutdownResponse.json",
            "{ \"apiKey\": 7, \"type\": \"response\", \"name\": \"ControlledShutdownResponse\",\n  \"validVersions\": \"none\" }\n",
        ),
        file(
            "PingRequest.json",
            r#"{ "apiKey": 8, "type": "request", "listeners": ["broker"], "name": "PingRequest",
  "validVersions": "0-1", "flexibleVersions": "1+",
  "fields": [ { "name": "Id", "type": "int32", "versions": "0+" } ] }"#,
        ),
        file(
            "PingResponse.json",
            r#"{ "apiKey": 8, "type": "response", "name": "PingResponse",
  "validVersions": "0-1", "flexibleVersions": "1+",
  "fields": [ { "name": "ErrorCode", "type": "int16", "versions": "0+" } ] }"#,
        ),
    ]
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
fn a_stub_pair_checks_clean() {
    assert_eq!(codes(stub_set()), Vec::<(String, String)>::new());
}

#[test]
fn a_stub_pair_generates_parseable_code_with_an_empty_range() {
    let text = Builder::new()
        .samples(true)
        .views(true)
        .json(true)
        .generate(stub_set())
        .unwrap();
    syn::parse_file(&text).unwrap_or_else(|e| panic!("generated code does not parse: {e}\n{text}"));
    // The messages carry the empty range (0, -1), which contains no version; the `ApiKey` entry
    // has `VersionRange::NONE` and no header version.
    assert!(
        text.contains("pub struct ControlledShutdownRequest"),
        "{text}"
    );
    assert!(
        text.contains("pub struct ControlledShutdownResponse"),
        "{text}"
    );
    assert!(text.contains("ControlledShutdown = 7,"), "{text}");
    assert!(
        text.contains("ApiKey::ControlledShutdown => rt::VersionRange::NONE"),
        "{text}"
    );
    assert!(
        text.contains("ApiKey::ControlledShutdown => ::core::option::Option::None"),
        "{text}"
    );
    assert!(
        text.contains(
            "const VALID_VERSIONS: rt::VersionRange = rt::VersionRange::new(0i16, -1i16);"
        ),
        "{text}"
    );
}

#[test]
fn only_the_literal_none_is_a_stub() {
    // An explicitly empty range is still an error, and still needs flexibleVersions.
    let files = vec![file(
        "EmptyRequest.json",
        r#"{ "apiKey": 7, "type": "request", "name": "EmptyRequest", "validVersions": "5-3" }"#,
    )];
    let got: Vec<String> = codes(files).into_iter().map(|(_, c)| c).collect();
    assert!(got.contains(&"K2123".to_string()), "{got:?}");
    assert!(got.contains(&"K2001".to_string()), "{got:?}");
}

#[test]
fn a_stub_may_still_declare_flexible_versions() {
    let files = vec![
        file(
            "GoneRequest.json",
            r#"{ "apiKey": 7, "type": "request", "name": "GoneRequest", "validVersions": " none ", "flexibleVersions": "none", "fields": [] }"#,
        ),
        file(
            "GoneResponse.json",
            r#"{ "apiKey": 7, "type": "response", "name": "GoneResponse", "validVersions": "none" }"#,
        ),
    ];
    assert_eq!(codes(files), Vec::<(String, String)>::new());
}
