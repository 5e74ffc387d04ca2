//! `kwire_codegen::diff`: one fixture pair per code (`tests/fixtures/diff/<code>-<slug>/{old,new}`,
//! written by `gen.py` there from one small made-up request), each asserting the whole list of
//! findings: code, impact, kind, message, versions, path and the line of each side's span.

use kwire_codegen::diagnostics::line_col;
use kwire_codegen::diff::{self, Finding, Impact};
use kwire_codegen::{check_files, source, Checked};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff")
}

/// A folder checked as `kwire diff` checks it; it must have no errors.
fn load(dir: &Path) -> Checked {
    let c = check_files(source::read_dir(dir).unwrap());
    assert_eq!(c.error_count(), 0, "{}: {:?}", dir.display(), c.diagnostics);
    c
}

/// The line of a side's span in its file (None for a side without one).
fn line(c: &Checked, side: &Option<diff::Side>) -> Option<usize> {
    let s = side.as_ref()?;
    let f = c.files.iter().find(|f| f.path.display().to_string() == s.file).expect("the side names a file of its set");
    Some(line_col(&f.text, s.span.start).0)
}

/// What one finding must be: code, impact, kind, message, versions, path, old line, new line.
type Want =
    (&'static str, Impact, &'static str, &'static str, &'static [i16], &'static str, Option<usize>, Option<usize>);

fn run(dir: &str) -> (Vec<Finding>, Checked, Checked) {
    let d = fixtures().join(dir);
    let (old, new) = (load(&d.join("old")), load(&d.join("new")));
    (diff::diff(&old, &new), old, new)
}

fn check(dir: &str, want: &[Want]) {
    let (found, old, new) = run(dir);
    let got: Vec<Want> = found
        .iter()
        .map(|f| {
            (
                f.code,
                f.impact,
                f.kind,
                // Leaked for the comparison only: a handful of short strings per test.
                &*Box::leak(f.message.clone().into_boxed_str()),
                &*Box::leak(f.versions.clone().into_boxed_slice()),
                &*Box::leak(f.path.clone().into_boxed_str()),
                line(&old, &f.old),
                line(&new, &f.new),
            )
        })
        .collect();
    assert_eq!(got, want, "{dir}: {found:#?}");
    for f in &found {
        assert_eq!(f.impact, Impact::of_code(f.code));
        assert!(!f.text.is_empty());
    }
}

use Impact::{Breaking as B, Compatible as C};
const W: &str = "WidgetRequest";

#[test]
fn k5001_message_removed() {
    check(
        "K5001-message-removed",
        &[
            ("K5001", B, "removed", "GadgetRequest", &[0, 1], "", Some(6), None),
            ("K5001", B, "removed", "GadgetResponse", &[0, 1], "", Some(5), None),
        ],
    );
}

#[test]
fn k5002_versions_removed() {
    check("K5002-versions-removed", &[("K5002", B, "removed", W, &[0], "", Some(7), Some(7))]);
}

#[test]
fn k5003_api_key_changed() {
    check(
        "K5003-api-key-changed",
        &[
            ("K5003", B, "api-key", W, &[0, 1, 2], "", Some(3), Some(3)),
            ("K5003", B, "api-key", "WidgetResponse", &[0, 1, 2, 3], "", Some(3), Some(3)),
        ],
    );
}

#[test]
fn k5004_message_type_changed() {
    check("K5004-message-type-changed", &[("K5004", B, "type", "WidgetState", &[0], "", Some(3), Some(3))]);
}

#[test]
fn k5005_flexible_moved() {
    check("K5005-flexible-moved", &[("K5005", B, "flexible", W, &[1], "", Some(8), Some(8))]);
}

#[test]
fn k5006_field_added() {
    // Old: the message's `fields` (line 9); new: the added field's `versions`.
    check("K5006-field-added", &[("K5006", B, "layout", W, &[0, 1, 2], "Flags", Some(9), Some(12))]);
}

#[test]
fn k5007_field_removed() {
    check("K5007-field-removed", &[("K5007", B, "layout", W, &[0, 1, 2], "Epoch", Some(12), Some(9))]);
}

#[test]
fn k5008_type_changed() {
    check("K5008-type-changed", &[("K5008", B, "type", W, &[0, 1, 2], "Epoch", Some(12), Some(12))]);
}

#[test]
fn k5009_fields_reordered() {
    check("K5009-fields-reordered", &[("K5009", B, "reorder", W, &[0, 1, 2], "Epoch", Some(10), Some(10))]);
}

#[test]
fn k5010_nullability_changed() {
    check("K5010-nullability-changed", &[("K5010", B, "nullability", W, &[1], "Items.Label", Some(18), Some(18))]);
}

#[test]
fn k5011_tags_swapped() {
    check(
        "K5011-tag-changed",
        &[
            ("K5011", B, "tag", W, &[2], "Hint", Some(23), Some(21)),
            ("K5011", B, "tag", W, &[2], "Note", Some(21), Some(23)),
        ],
    );
}

#[test]
fn k5012_tagged_default_changed() {
    check("K5012-tagged-default-changed", &[("K5012", B, "default", W, &[2], "Hint", Some(21), Some(21))]);
}

#[test]
fn k5013_tagged_field_removed() {
    check("K5013-tagged-field-removed", &[("K5013", B, "tag", W, &[2], "Hint", Some(21), Some(9))]);
}

#[test]
fn k5014_header_version_changed() {
    // Old has no `headerVersions`: its side is the root object (line 2).
    check("K5014-header-version-changed", &[("K5014", B, "header", W, &[0], "", Some(2), Some(9))]);
}

#[test]
fn k5015_tagged_to_untagged() {
    check("K5015-tagged-to-untagged", &[("K5015", B, "layout", W, &[2], "Hint", Some(21), Some(21))]);
}

#[test]
fn k5016_field_flexible_changed() {
    check("K5016-field-flexible-changed", &[("K5016", B, "flexible", W, &[1], "GroupId", Some(10), Some(10))]);
}

#[test]
fn k5101_message_added() {
    check(
        "K5101-message-added",
        &[
            ("K5101", C, "added", "GadgetRequest", &[0, 1], "", None, Some(6)),
            ("K5101", C, "added", "GadgetResponse", &[0, 1], "", None, Some(5)),
        ],
    );
}

#[test]
fn k5102_versions_added() {
    check("K5102-versions-added", &[("K5102", C, "added", W, &[3], "", Some(7), Some(7))]);
}

#[test]
fn k5103_tbd_key_assigned() {
    check(
        "K5103-tbd-key-assigned",
        &[
            ("K5103", C, "api-key", W, &[0, 1, 2], "", Some(3), Some(3)),
            ("K5103", C, "api-key", "WidgetResponse", &[0, 1, 2, 3], "", Some(3), Some(3)),
        ],
    );
}

#[test]
fn k5104_field_in_new_versions() {
    check(
        "K5104-field-in-new-versions",
        &[
            ("K5102", C, "added", W, &[3], "", Some(7), Some(7)),
            ("K5104", C, "added", W, &[3], "Flags", None, Some(14)),
        ],
    );
}

#[test]
fn k5105_tagged_field_added() {
    check("K5105-tagged-field-added", &[("K5105", C, "added", W, &[2], "Note", Some(9), Some(23))]);
}

#[test]
fn k5106_field_renamed() {
    check("K5106-field-renamed", &[("K5106", C, "rename", W, &[0, 1, 2], "WidgetEpoch", Some(12), Some(12))]);
}

#[test]
fn k5107_about_changed() {
    check("K5107-about-changed", &[("K5107", C, "doc", W, &[0, 1, 2], "Epoch", Some(13), Some(13))]);
}

#[test]
fn k5108_flag_changed() {
    check("K5108-flag-changed", &[("K5108", C, "flag", W, &[0, 1, 2], "GroupId", Some(10), Some(10))]);
}

#[test]
fn k5109_field_versions_extended() {
    check(
        "K5109-field-versions-extended",
        &[
            ("K5102", C, "added", W, &[3], "", Some(7), Some(7)),
            ("K5109", C, "added", W, &[3], "Epoch", Some(12), Some(12)),
        ],
    );
}

/// A `data` key and value that become a Kafka 4.x coordinator record with the same fields: one
/// compatible finding each, not a type change and an API-key change (both breaking).
#[test]
fn k5110_data_to_coordinator_record() {
    check(
        "K5110-data-to-coordinator-record",
        &[
            ("K5110", C, "type", "WidgetRecordKey", &[0], "", Some(3), Some(4)),
            ("K5110", C, "type", "WidgetRecordValue", &[0, 1], "", Some(3), Some(4)),
        ],
    );
    // The reverse loses the record type: breaking.
    let d = fixtures().join("K5110-data-to-coordinator-record");
    let back = diff::diff(&load(&d.join("new")), &load(&d.join("old")));
    let codes: Vec<&str> = back.iter().map(|f| f.code).collect();
    assert_eq!(codes, ["K5003", "K5004", "K5003", "K5004"], "{back:#?}");
}

/// Every code of the module's table has a fixture folder.
#[test]
fn every_code_has_a_fixture() {
    let mut codes: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.starts_with('K').then(|| n[..5].to_string())
        })
        .collect();
    codes.sort();
    let want: Vec<String> = (5001..=5016).chain(5101..=5110).map(|c| format!("K{c}")).collect();
    assert_eq!(codes, want);
}

/// A set compared with itself has no finding.
#[test]
fn identical_sets_have_no_findings() {
    let d = fixtures().join("K5008-type-changed/old");
    assert!(diff::diff(&load(&d), &load(&d)).is_empty());
}

/// The JSON form names both sides with 1-based lines and columns.
#[test]
fn json_form() {
    let (found, old, new) = run("K5008-type-changed");
    let j = diff::to_json(&found, &old, &new);
    let x = &j[0];
    assert_eq!(x["code"], "K5008");
    assert_eq!(x["severity"], "breaking");
    assert_eq!(x["kind"], "type");
    assert_eq!(x["message"], "WidgetRequest");
    assert_eq!(x["versions"], serde_json::json!([0, 1, 2]));
    assert_eq!(x["path"], "Epoch");
    assert_eq!(x["text"], "type changed from `int32` to `int64`");
    assert_eq!(x["old"]["line"], 12);
    assert_eq!(x["new"]["line"], 12);
    assert_eq!(x["new"]["column"], 32);
    assert!(x["old"]["file"].as_str().unwrap().ends_with("old/WidgetRequest.json"));
}

/// The human form shows both files with a caret under the new span.
#[test]
fn human_form() {
    let (found, old, new) = run("K5008-type-changed");
    let text = diff::render_human(&found, &old, &new, false);
    assert!(text.starts_with("error[K5008]: type changed from `int32` to `int64`\n"), "{text}");
    assert!(text.contains("old/WidgetRequest.json:12:32"), "{text}");
    assert!(text.contains("new/WidgetRequest.json:12:32"), "{text}");
    assert!(text.contains("^^^^^^^ new"), "{text}");
    assert!(text.contains("------- old"), "{text}");
}

/// The two sides may name the same path with different texts (a file against its committed
/// version, as the codegen gate compares them): each side's lines come from its own text.
#[test]
fn same_path_on_both_sides() {
    let d = fixtures().join("K5006-field-added");
    let side = |s: &str| {
        let text = std::fs::read_to_string(d.join(s).join("WidgetRequest.json")).unwrap();
        kwire_codegen::check_files_alone(vec![kwire_codegen::SourceFile {
            path: "schemas/WidgetRequest.json".into(),
            text,
        }])
    };
    let (old, new) = (side("old"), side("new"));
    let found = diff::diff(&old, &new);
    assert_eq!(found.len(), 1);
    assert_eq!((line(&old, &found[0].old), line(&new, &found[0].new)), (Some(9), Some(12)));
    let text = diff::render_human(&found, &old, &new, false);
    assert!(text.contains("schemas/WidgetRequest.json:9:"), "{text}");
    assert!(text.contains("schemas/WidgetRequest.json:12:"), "{text}");
    let j = diff::to_json(&found, &old, &new);
    assert_eq!((j[0]["old"]["line"].as_u64(), j[0]["new"]["line"].as_u64()), (Some(9), Some(12)));
}

/// A spec given as text, checked alone under `path`.
fn spec(path: &str, text: &str) -> Checked {
    let c = kwire_codegen::check_files_alone(vec![kwire_codegen::SourceFile { path: path.into(), text: text.into() }]);
    assert_eq!(c.error_count(), 0, "{:?}", c.diagnostics);
    c
}

/// Common structs are resolved (their fields reached through the field that names them), and a
/// struct field that becomes nullable is breaking: it gains a one-byte marker.
#[test]
fn common_struct_resolved_and_struct_made_nullable() {
    let base = r#"{
  "type": "data",
  "name": "Box",
  "validVersions": "0-1",
  "flexibleVersions": "1+",
  "fields": [
    { "name": "Inner", "type": "Part", "versions": "0+" }
  ],
  "commonStructs": [
    { "name": "Part", "versions": "0+", "fields": [
      { "name": "Size", "type": "int32", "versions": "0+" }
    ]}
  ]
}
"#;
    let old = spec("Box.json", base);
    let new = spec(
        "Box.json",
        &base
            .replace(
                r#""type": "Part", "versions": "0+""#,
                r#""type": "Part", "versions": "0+", "nullableVersions": "1+""#,
            )
            .replace(r#""name": "Size", "type": "int32""#, r#""name": "Size", "type": "int64""#),
    );
    let found = diff::diff(&old, &new);
    let got: Vec<(&str, &str, Vec<i16>)> =
        found.iter().map(|f| (f.code, f.path.as_str(), f.versions.clone())).collect();
    assert_eq!(got, vec![("K5008", "Inner.Size", vec![0, 1]), ("K5010", "Inner", vec![1])]);
    assert_eq!(found[1].text, "`Inner` became nullable at this version (a struct gains a one-byte null marker)");
    assert_eq!((line(&old, &found[0].old), line(&new, &found[0].new)), (Some(11), Some(11)));
}

/// A renamed field's other attributes are compared with its old self.
#[test]
fn renamed_field_keeps_its_attributes_compared() {
    let d = fixtures().join("K5106-field-renamed");
    let text = |s: &str| std::fs::read_to_string(d.join(s).join("WidgetRequest.json")).unwrap();
    let old = spec("WidgetRequest.json", &text("old"));
    let new = spec("WidgetRequest.json", &text("new").replace("The widget's epoch.", "The widget's epoch, renamed."));
    let got: Vec<(&str, String)> = diff::diff(&old, &new).iter().map(|f| (f.code, f.path.clone())).collect();
    assert_eq!(got, vec![("K5106", "WidgetEpoch".to_string()), ("K5107", "WidgetEpoch".to_string())]);
}
