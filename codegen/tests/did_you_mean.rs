//! "Did you mean" hints for a misspelt spec key, at each level of Kafka's spec dialect (the
//! message, a field, a common struct; a key of another level is named as such), and for a
//! misspelt `--api` of `kwire decode` / `kwire encode`.

use kwire_codegen::{check_files_alone, SourceFile};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The help of the one K2002 of a request spec with `top` extra top-level members, one field
/// with `field` extra members and one common struct with `common` extra members.
fn k2002_help(top: &str, field: &str, common: &str) -> String {
    let text = format!(
        r#"{{ "apiKey": 1000, "type": "request", "name": "FooRequest", "validVersions": "0", "flexibleVersions": "0+", {top}
  "fields": [ {{ "name": "Bar", "type": "Baz", "versions": "0+", "about": "x" {field} }} ],
  "commonStructs": [ {{ "name": "Baz", "versions": "0+", "fields": [] {common} }} ] }}"#
    );
    let checked = check_files_alone(vec![SourceFile {
        path: PathBuf::from("FooRequest.json"),
        text,
    }]);
    let k2002: Vec<_> = checked
        .diagnostics
        .iter()
        .flatten()
        .filter(|d| d.code == "K2002")
        .collect();
    assert_eq!(k2002.len(), 1, "{:?}", checked.diagnostics);
    k2002[0].help.clone().unwrap()
}

#[test]
fn misspelt_keys_at_each_level() {
    // A field.
    assert_eq!(
        k2002_help("", r#", "abuot": "y""#, ""),
        "did you mean `about`?"
    );
    assert_eq!(
        k2002_help("", r#", "tagedVersions": "0+""#, ""),
        "did you mean `taggedVersions`?"
    );
    assert_eq!(
        k2002_help("", r#", "nullabelVersions": "0+""#, ""),
        "did you mean `nullableVersions`?"
    );
    assert_eq!(
        k2002_help("", r#", "entitytype": "groupId""#, ""),
        "did you mean `entityType`?"
    );
    // The message.
    assert_eq!(
        k2002_help(r#""apiKye": 1,"#, "", ""),
        "did you mean `apiKey`?"
    );
    assert_eq!(
        k2002_help(r#""validVerisons": "0","#, "", ""),
        "did you mean `validVersions`?"
    );
    assert_eq!(
        k2002_help(r#""comonStructs": [],"#, "", ""),
        "did you mean `commonStructs`?"
    );
    // A common struct.
    assert_eq!(
        k2002_help("", "", r#", "deprecatedVersion": "0""#),
        "did you mean `deprecatedVersions`?"
    );
    // A key of another level, as it is or misspelt.
    let h = k2002_help("", r#", "validVersions": "0""#, "");
    assert!(h.starts_with("`validVersions` is a key of the message, not of a field; the keys of a field are: name, type,"), "{h}");
    let h = k2002_help("", "", r#", "about": "y""#);
    assert!(
        h.starts_with("`about` is a key of a field, not of a common struct"),
        "{h}"
    );
    let h = k2002_help("", r#", "latestVersionUnstabel": true"#, "");
    assert!(
        h.starts_with(
            "did you mean `latestVersionUnstable`? (a key of the message, not of a field;"
        ),
        "{h}"
    );
    // Nothing close.
    let h = k2002_help("", r#", "zzzzzzzz": 1"#, "");
    assert!(
        h.starts_with("the keys of a field are: name, type, versions,"),
        "{h}"
    );
}

/// `kwire ARGS`: (stderr, exit code).
fn kwire(args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn a_misspelt_api_names_the_closest_and_the_forms_api_takes() {
    let forms = "--api takes an API key number or an API name, in any case (e.g. `3` or `Metadata`); schemas/ has 0 Produce, 1 Fetch,";
    for (api, want) in [
        ("Metadta", "Metadata` (key 3)"),
        ("MetadataRequest", "Metadata` (key 3)"),
        ("consumergroupheartbaet", "ConsumerGroupHeartbeat` (key 68)"),
    ] {
        for cmd in ["decode", "encode"] {
            let (err, code) = kwire(&[cmd, "--api", api, "--version", "0", "00"]);
            assert_eq!(code, 2, "{err}");
            let head = format!("error: unknown API key `{api}`: did you mean `{want}? {forms}");
            assert!(err.starts_with(&head), "{err}");
        }
    }
    let (err, code) = kwire(&["decode", "--api", "NoSuchThing", "--version", "0", "00"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("error: unknown API key `NoSuchThing`: {forms}")),
        "{err}"
    );
    let (err, _) = kwire(&["decode", "--api", "99", "--version", "0", "00"]);
    assert!(
        err.starts_with("error: unknown API key `99`: schemas/ has 0 Produce,")
            && err
                .trim_end()
                .ends_with("in any case (e.g. `3` or `Metadata`)"),
        "{err}"
    );
}
