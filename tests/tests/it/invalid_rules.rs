//! One fixture per diagnostic code (`tests/fixtures/invalid/`), each a small spec that is valid
//! except for the one slip its name describes.
//!
//! * `<CODE>_<name>.json`: a per-file code (K1xxx syntax, K2xxx message and field rules, K3xxx
//!   struct rules), checked alone with [`check_files_alone`] (no folder-wide rules).
//! * `<CODE>_<name>/`: a folder-wide code (K4xxx), its 2-3 spec files checked together as one
//!   folder with [`check_files`].
//!
//! For each fixture the table [`CASES`] gives the code, the file that carries the diagnostic, and
//! where its span must be: the line and column (1-based, columns in characters, as
//! `render::line_col`) of the span's start, and the exact text the span covers (`""` for the
//! zero-width spans of insertions: a missing `,` or `:`, an unclosed `{`, an empty file). The
//! test asserts, per fixture:
//!
//! * the set of error codes is exactly `{CODE}` (for a warning code: there are no errors);
//! * the set of warning codes is exactly `{CODE}` for a warning code, and empty for an error
//!   code, apart from the warnings a case lists in `also` because they cannot be avoided;
//! * exactly one diagnostic has the code, with the severity its doc-table row gives ("warning"
//!   in the row means a warning), in the expected file, at the expected span;
//! * `help` is present where the case says a fix is known.
//!
//! A second test reads the `| Kxxxx |` rows of the module docs of `codegen/src/lower.rs`,
//! `codegen/src/validate.rs` and `codegen/src/syntax/parser.rs` at test time: every documented
//! code must have a fixture here (or be listed in [`WITHOUT_FIXTURE`] with a reason), every
//! fixture must be for a documented code, every code literal in `codegen/src` must be
//! documented, and every file or folder in `tests/fixtures/invalid/` must be in the table.
//!
//! A third test checks Kafka 3.9.0's own specs (`kafka-specs/3.9.0/*`, each folder one unit):
//! no errors, and exactly the warnings of [`CORPUS_WARNINGS`].

use kwire_codegen::diagnostics::{Diagnostic, Severity};
use kwire_codegen::render::line_col;
use kwire_codegen::source::{read_dir, read_file};
use kwire_codegen::{check_files, check_files_alone, Checked};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

/// One fixture and the diagnostic it must produce.
#[derive(Debug, Clone, Copy)]
struct Case {
    /// The code the fixture is for.
    code: &'static str,
    /// A file (per-file codes) or folder (K4xxx) under `tests/fixtures/invalid/`.
    fixture: &'static str,
    /// For a folder: the file of the folder the diagnostic belongs to.
    file: Option<&'static str>,
    /// 1-based line of the span's start.
    line: usize,
    /// 1-based column (in characters) of the span's start.
    col: usize,
    /// Exactly the text the span covers; empty for a zero-width span.
    text: &'static str,
    /// A fix is known: `help` must be present.
    help: bool,
    /// Warnings of other codes the fixture cannot avoid (asserted, not merely tolerated).
    also: &'static [&'static str],
}

/// A per-file fixture whose diagnostic carries a help line.
const fn file(
    code: &'static str,
    fixture: &'static str,
    line: usize,
    col: usize,
    text: &'static str,
) -> Case {
    Case {
        code,
        fixture,
        file: None,
        line,
        col,
        text,
        help: true,
        also: &[],
    }
}

/// A per-file fixture whose diagnostic has no known fix (help not required).
const fn file_no_help(
    code: &'static str,
    fixture: &'static str,
    line: usize,
    col: usize,
    text: &'static str,
) -> Case {
    Case {
        help: false,
        ..file(code, fixture, line, col, text)
    }
}

/// A folder fixture: the diagnostic is on `file` of the folder.
const fn folder(
    code: &'static str,
    fixture: &'static str,
    file: &'static str,
    line: usize,
    col: usize,
    text: &'static str,
) -> Case {
    Case {
        code,
        fixture,
        file: Some(file),
        line,
        col,
        text,
        help: true,
        also: &[],
    }
}

/// Every fixture. The `text` column is the marker: the exact offending text of the fixture.
const CASES: &[Case] = &[
    // K1xxx: syntax.
    file("K1001", "K1001_hash_comment.json", 8, 3, "# a hash comment"),
    file("K1002", "K1002_missing_comma.json", 4, 20, ""),
    file(
        "K1003",
        "K1003_unterminated_string.json",
        9,
        66,
        "\"A number.",
    ),
    file("K1004", "K1004_tab_in_string.json", 9, 68, "\t"),
    file("K1005", "K1005_invalid_escape.json", 9, 69, "\\x"),
    file(
        "K1006",
        "K1006_unterminated_block_comment.json",
        12,
        1,
        "/*",
    ),
    file("K1007", "K1007_trailing_comma.json", 9, 79, ","),
    file("K1008", "K1008_missing_colon.json", 5, 9, ""),
    file("K1009", "K1009_bare_key.json", 6, 3, "validVersions"),
    file("K1010", "K1010_unclosed_brace.json", 11, 1, ""),
    file(
        "K1011",
        "K1011_trailing_content.json",
        12,
        1,
        "{ \"name\": \"Baz\" }",
    ),
    file("K1012", "K1012_leading_zero.json", 3, 13, "01000"),
    file("K1013", "K1013_empty.json", 2, 1, ""),
    // The 126th `[` of the `fields` of a `[]int32` field (fields Kafka ignores) is level 129.
    file("K1014", "K1014_too_deep.json", 10, 142, "["),
    file("K1015", "K1015_nbsp.json", 4, 10, "\u{a0}"),
    // K2xxx: message and field rules. K2001 has one fixture per kind of place.
    file(
        "K2001",
        "K2001_missing_field_versions.json",
        9,
        7,
        "\"name\"",
    ),
    file("K2001", "K2001_missing_flexible_versions.json", 2, 1, "{"),
    file("K2002", "K2002_unknown_key.json", 9, 57, "\"abut\""),
    file_no_help("K2003", "K2003_wrong_kind.json", 9, 66, "[\"A number.\"]"),
    file(
        "K2004",
        "K2004_version_range_spaces.json",
        9,
        51,
        "\"0 - 2\"",
    ),
    file(
        "K2005",
        "K2005_unknown_message_type.json",
        4,
        11,
        "\"requets\"",
    ),
    file("K2006", "K2006_bare_word.json", 9, 70, "yes"),
    file("K2007", "K2007_unknown_field_type.json", 9, 30, "\"int\""),
    file_no_help("K2008", "K2008_api_key_out_of_range.json", 3, 13, "40000"),
    file_no_help("K2009", "K2009_bad_boolean.json", 9, 70, "\"yes\""),
    file("K2010", "K2010_invalid_default.json", 9, 68, "\"0X10\""),
    file("K2011", "K2011_unknown_listener.json", 8, 17, "\"brokr\""),
    file(
        "K2012",
        "K2012_unknown_entity_type.json",
        9,
        72,
        "\"topic\"",
    ),
    file_no_help(
        "K2013",
        "K2013_header_versions_outside.json",
        8,
        23,
        "\"5+\"",
    ),
    file("K2014", "K2014_float_api_key.json", 3, 13, "1000.5"),
    file("K2015", "K2015_duplicate_key.json", 9, 57, "\"versions\""),
    file("K2016", "K2016_tbd_api_key.json", 3, 13, "TBD"),
    file(
        "K2101",
        "K2101_flexible_not_open_ended.json",
        7,
        23,
        "\"1-2\"",
    ),
    file(
        "K2102",
        "K2102_listeners_on_response.json",
        8,
        16,
        "[\"broker\"]",
    ),
    file("K2103", "K2103_unstable_on_response.json", 8, 28, "true"),
    file(
        "K2104",
        "K2104_valid_versions_open_ended.json",
        6,
        20,
        "\"0+\"",
    ),
    file("K2105", "K2105_invalid_field_name.json", 9, 15, "\"_Bar\""),
    file(
        "K2106",
        "K2106_array_of_arrays.json",
        9,
        30,
        "\"[][]int32\"",
    ),
    file("K2107", "K2107_nullable_int.json", 9, 77, "\"0+\""),
    file(
        "K2108",
        "K2108_entity_type_mismatch.json",
        9,
        71,
        "\"topicName\"",
    ),
    file(
        "K2109",
        "K2109_fields_on_primitive.json",
        10,
        7,
        "\"fields\"",
    ),
    file(
        "K2110",
        "K2110_flexible_override_on_int.json",
        9,
        77,
        "\"none\"",
    ),
    file(
        "K2111",
        "K2111_flexible_override_not_subset.json",
        9,
        78,
        "\"0+\"",
    ),
    file("K2112", "K2112_zero_copy_on_string.json", 9, 70, "true"),
    file("K2113", "K2113_tagged_map_key.json", 10, 82, "0"),
    file("K2114", "K2114_negative_tag.json", 9, 64, "-1"),
    file(
        "K2115",
        "K2115_tag_without_tagged_versions.json",
        9,
        64,
        "0",
    ),
    file(
        "K2116",
        "K2116_tagged_versions_without_tag.json",
        9,
        75,
        "\"1+\"",
    ),
    file(
        "K2117",
        "K2117_partly_nullable_tagged.json",
        9,
        78,
        "\"2+\"",
    ),
    file(
        "K2118",
        "K2118_tagged_versions_not_open_ended.json",
        9,
        85,
        "\"1-2\"",
    ),
    file(
        "K2119",
        "K2119_tagged_versions_not_in_versions.json",
        9,
        86,
        "\"1+\"",
    ),
    file(
        "K2120",
        "K2120_tagged_versions_not_flexible.json",
        9,
        85,
        "\"0+\"",
    ),
    file("K2121", "K2121_tagged_records.json", 9, 92, "0"),
    file(
        "K2122",
        "K2122_array_of_records.json",
        9,
        30,
        "\"[]records\"",
    ),
    file("K2123", "K2123_empty_valid_versions.json", 6, 20, "\"3-1\""),
    file("K2124", "K2124_coordinator_value_without_api_key.json", 2, 1, "{"),
    file("K2125", "K2125_coordinator_key_versions.json", 6, 20, "\"0-1\""),
    file("K2126", "K2126_coordinator_key_flexible.json", 7, 23, "\"0+\""),
    file(
        "K2150",
        "K2150_nullable_outside_versions.json",
        9,
        78,
        "\"0+\"",
    ),
    file(
        "K2151",
        "K2151_deprecated_outside_valid.json",
        8,
        25,
        "\"7-9\"",
    ),
    file(
        "K2152",
        "K2152_primitive_outside_versions.json",
        10,
        51,
        "\"5+\"",
    ),
    file("K2153", "K2153_versions_none.json", 10, 51, "\"none\""),
    file("K2154", "K2154_empty_struct_fields.json", 9, 94, "[]"),
    file("K2155", "K2155_octal_default.json", 9, 68, "\"010\""),
    file("K2156", "K2156_bare_null_default.json", 9, 95, "null"),
    // K3xxx: struct rules.
    file("K3001", "K3001_undefined_struct.json", 9, 30, "\"Missing\""),
    file("K3002", "K3002_duplicate_tag.json", 10, 64, "0"),
    file("K3003", "K3003_tags_not_contiguous.json", 9, 64, "1"),
    file(
        "K3004",
        "K3004_duplicate_field_name.json",
        10,
        15,
        "\"Bar\"",
    ),
    // A lower-case common struct cannot be referenced (a lower-case type is K2007), so it is
    // also unused.
    file(
        "K3005",
        "K3005_lower_case_common_struct.json",
        12,
        15,
        "\"baz\"",
    ),
    file("K3006", "K3006_common_struct_twice.json", 15, 15, "\"Baz\""),
    file(
        "K3007",
        "K3007_common_struct_respecified.json",
        9,
        30,
        "\"Baz\"",
    ),
    file("K3008", "K3008_inline_struct_twice.json", 12, 31, "\"Baz\""),
    file(
        "K3009",
        "K3009_inline_struct_in_common_struct.json",
        13,
        32,
        "\"Inner\"",
    ),
    file(
        "K3010",
        "K3010_struct_field_outside_versions.json",
        10,
        49,
        "\"5+\"",
    ),
    file("K3011", "K3011_top_level_map_key.json", 9, 67, "true"),
    file(
        "K3012",
        "K3012_rust_name_collision.json",
        10,
        15,
        "\"fooBar\"",
    ),
    file(
        "K3050",
        "K3050_unused_common_struct.json",
        12,
        15,
        "\"Baz\"",
    ),
    file("K3051", "K3051_map_key_outside_array.json", 10, 68, "true"),
    // K4xxx: folder-wide rules.
    folder(
        "K4001",
        "K4001_duplicate_api_key",
        "OtherResponse.json",
        3,
        13,
        "1000",
    ),
    folder(
        "K4002",
        "K4002_request_without_response",
        "BarRequest.json",
        3,
        13,
        "1001",
    ),
    folder(
        "K4003",
        "K4003_missing_suffix",
        "FooRequest.json",
        5,
        11,
        "\"Foo\"",
    ),
    folder(
        "K4004",
        "K4004_duplicate_metadata_key",
        "FooRecord.json",
        3,
        13,
        "90",
    ),
    folder(
        "K4005",
        "K4005_duplicate_name",
        "Foo.json",
        5,
        11,
        "\"FooData\"",
    ),
    folder(
        "K4006",
        "K4006_mismatched_names",
        "FooRequest.json",
        5,
        11,
        "\"FooRequest\"",
    ),
    folder(
        "K4007",
        "K4007_duplicate_coordinator_key",
        "FooKey.json",
        3,
        13,
        "5",
    ),
    folder(
        "K4008",
        "K4008_duplicate_coordinator_value",
        "FooValue.json",
        3,
        13,
        "5",
    ),
    folder(
        "K4009",
        "K4009_coordinator_key_without_value",
        "BarKey.json",
        3,
        13,
        "6",
    ),
    folder(
        "K4010",
        "K4010_coordinator_names_differ",
        "BarValue.json",
        5,
        11,
        "\"BarValue\"",
    ),
    folder(
        "K4050",
        "K4050_valid_versions_differ",
        "FooRequest.json",
        6,
        20,
        "\"0-2\"",
    ),
    folder(
        "K4051",
        "K4051_flexible_versions_differ",
        "FooRequest.json",
        7,
        23,
        "\"1+\"",
    ),
];

/// Documented codes deliberately without a fixture, with the reason. Empty: every documented
/// code has one (K1014, the nesting limit, is a fixture file too: 126 brackets on one line).
const WITHOUT_FIXTURE: &[(&str, &str)] = &[];

/// The warnings of Kafka 3.9.0's specs, each folder checked as one unit: (code, file name), one
/// entry per warning.
const CORPUS_WARNINGS: &[(&str, &str)] = &[
    ("K2150", "CreateTopicsResponse.json"),
    ("K2150", "DescribeConfigsResponse.json"),
    ("K2150", "DescribeConfigsResponse.json"),
    ("K2015", "DescribeTopicPartitionsRequest.json"),
    ("K2015", "DescribeTopicPartitionsRequest.json"),
    ("K2015", "DescribeTopicPartitionsResponse.json"),
    ("K2150", "SimpleExampleMessage.json"),
    ("K2150", "UpdateMetadataRequest.json"),
    ("K2156", "ConsumerGroupMemberMetadataValue.json"),
];

/// The module docs that hold the code tables.
const DOC_SOURCES: &[&str] = &[
    "codegen/src/lower.rs",
    "codegen/src/validate.rs",
    "codegen/src/syntax/parser.rs",
];

fn fixtures_dir() -> PathBuf {
    kwire_tests::workspace_root()
        .join("tests")
        .join("fixtures")
        .join("invalid")
}

/// Whether `s` is a diagnostic code: `K` and four digits.
fn is_code(s: &str) -> bool {
    s.len() == 5 && s.starts_with('K') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The `| Kxxxx | ... |` rows of the module docs (`//!` lines) of [`DOC_SOURCES`]: code → whether
/// the row calls it a warning. A code documented in two tables (K3005, K3009) appears once.
fn documented_codes() -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    for src in DOC_SOURCES {
        let path = kwire_tests::workspace_root().join(src);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let mut rows = 0;
        for line in text.lines() {
            let Some(doc) = line.trim_start().strip_prefix("//!") else {
                continue;
            };
            let Some(row) = doc.trim().strip_prefix('|') else {
                continue;
            };
            let code = row.split('|').next().unwrap_or("").trim();
            if is_code(code) {
                rows += 1;
                let warning = row.contains("warning");
                let prev = out.insert(code.to_string(), warning);
                assert!(
                    prev.is_none() || prev == Some(warning),
                    "{code} is documented both as a warning and as an error"
                );
            }
        }
        assert!(
            rows > 0,
            "no `| Kxxxx |` rows found in the module docs of {src}"
        );
    }
    out
}

/// The code string literals (`"K1234"`) of every `.rs` file under `codegen/src`, except
/// `codegen/src/diff/`, whose K5xxx codes are `kwire diff` findings, not `kwire check`
/// diagnostics ([`every_diff_code_has_a_fixture_pair`]).
fn code_literals() -> BTreeMap<String, String> {
    fn walk(dir: &std::path::Path, out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("reading codegen/src")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "diff") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("reading a source file");
                for (i, _) in text.match_indices("\"K") {
                    let lit = &text[i + 1..];
                    if lit.len() > 5 && is_code(&lit[..5]) && lit.as_bytes()[5] == b'"' {
                        out.entry(lit[..5].to_string())
                            .or_insert_with(|| p.display().to_string());
                    }
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &kwire_tests::workspace_root().join("codegen").join("src"),
        &mut out,
    );
    out
}

/// Checks a case's fixture: a file alone, or a folder as one unit.
fn check_case(case: &Case) -> Checked {
    let path = fixtures_dir().join(case.fixture);
    if case.file.is_some() {
        assert!(
            path.is_dir(),
            "{}: a folder fixture must be a folder",
            path.display()
        );
        let files = read_dir(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        assert!(
            (2..=3).contains(&files.len()),
            "{}: expected 2-3 spec files, found {}",
            case.fixture,
            files.len()
        );
        check_files(files)
    } else {
        let f =
            read_file(path.clone()).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        check_files_alone(vec![f])
    }
}

fn describe(checked: &Checked) -> String {
    let mut s = String::new();
    for (f, ds) in checked.files.iter().zip(&checked.diagnostics) {
        for d in ds {
            let (l, c) = line_col(&f.text, d.span.start);
            let text = f
                .text
                .get(d.span.start..d.span.end)
                .unwrap_or("<not a char range>");
            let _ = write!(
                s,
                "\n  {} {} {}:{l}:{c} {text:?}: {} (help: {:?})",
                d.code,
                d.severity.as_str(),
                f.file_name(),
                d.message,
                d.help
            );
        }
    }
    if s.is_empty() {
        s.push_str(" none");
    }
    s
}

/// The problems of one case (empty when it passes).
fn case_problems(case: &Case, documented: &BTreeMap<String, bool>) -> Vec<String> {
    let mut problems = Vec::new();
    let checked = check_case(case);
    let all: Vec<(&str, &str, &Diagnostic)> = checked
        .files
        .iter()
        .zip(&checked.diagnostics)
        .flat_map(|(f, ds)| {
            ds.iter()
                .map(move |d| (f.text.as_str(), f.path.to_str().unwrap_or(""), d))
        })
        .collect();
    let Some(&is_warning) = documented.get(case.code) else {
        return vec![format!("{} is not documented in any code table", case.code)];
    };
    let errors: BTreeSet<&str> = all
        .iter()
        .filter(|(_, _, d)| d.is_error())
        .map(|(_, _, d)| d.code)
        .collect();
    let warnings: BTreeSet<&str> = all
        .iter()
        .filter(|(_, _, d)| !d.is_error())
        .map(|(_, _, d)| d.code)
        .collect();
    let mut want_errors = BTreeSet::new();
    let mut want_warnings: BTreeSet<&str> = case.also.iter().copied().collect();
    if is_warning {
        want_warnings.insert(case.code);
    } else {
        want_errors.insert(case.code);
    }
    if errors != want_errors {
        problems.push(format!(
            "error codes are {errors:?}, expected {want_errors:?}"
        ));
    }
    if warnings != want_warnings {
        problems.push(format!(
            "warning codes are {warnings:?}, expected {want_warnings:?}"
        ));
    }
    let mine: Vec<&(&str, &str, &Diagnostic)> =
        all.iter().filter(|(_, _, d)| d.code == case.code).collect();
    if mine.len() != 1 {
        problems.push(format!(
            "{} diagnostics with code {}, expected exactly 1",
            mine.len(),
            case.code
        ));
    }
    if let Some((text, path, d)) = mine.first() {
        let want_sev = if is_warning {
            Severity::Warning
        } else {
            Severity::Error
        };
        if d.severity != want_sev {
            problems.push(format!("severity {:?}, expected {want_sev:?}", d.severity));
        }
        if let Some(f) = case.file {
            if !path.ends_with(f) {
                problems.push(format!("reported on {path}, expected {f}"));
            }
        }
        if line_col(text, d.span.start) != (case.line, case.col) {
            problems.push(format!(
                "span starts at {:?}, expected {}:{}",
                line_col(text, d.span.start),
                case.line,
                case.col
            ));
        }
        match text.get(d.span.start..d.span.end) {
            Some(t) if t == case.text => {}
            Some(t) => problems.push(format!("span covers {t:?}, expected {:?}", case.text)),
            None => problems.push(format!("span {:?} is not a char range of the file", d.span)),
        }
        // The marker must be where the table says, so that the table is checkable by eye.
        let line_text = text.lines().nth(case.line - 1).unwrap_or("");
        let rest: String = line_text.chars().skip(case.col - 1).collect();
        if !case.text.is_empty() && !rest.starts_with(case.text.lines().next().unwrap_or("")) {
            problems.push(format!(
                "the table's text {:?} is not at {}:{} of the fixture",
                case.text, case.line, case.col
            ));
        }
        let has_help = d.help.as_deref().is_some_and(|h| !h.trim().is_empty());
        if case.help && !has_help {
            problems.push("no help, though a fix is known".to_string());
        }
        if d.message.trim().is_empty() {
            problems.push("empty message".to_string());
        }
    }
    if !problems.is_empty() {
        problems.push(format!("diagnostics:{}", describe(&checked)));
    }
    problems
}

#[test]
fn every_fixture_gives_exactly_its_code_at_its_span() {
    let documented = documented_codes();
    let mut failures = Vec::new();
    for case in CASES {
        let p = case_problems(case, &documented);
        if !p.is_empty() {
            failures.push(format!(
                "{} ({}):\n    {}",
                case.code,
                case.fixture,
                p.join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures fail:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// `kwire diff`'s codes: every row of the code table in `codegen/src/diff/mod.rs` has a fixture
/// pair `codegen/tests/fixtures/diff/<code>-<slug>/{old,new}/` (which codegen/tests/diff_rules.rs
/// asserts), every pair has a row, and every code literal of `codegen/src/diff/` has a row.
#[test]
fn every_diff_code_has_a_fixture_pair() {
    let root = kwire_tests::workspace_root();
    let text = std::fs::read_to_string(root.join("codegen/src/diff/mod.rs")).unwrap();
    let documented: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("//!")?.trim().strip_prefix('|'))
        .map(|row| row.split('|').next().unwrap_or("").trim().to_string())
        .filter(|c| is_code(c))
        .collect();
    assert_eq!(documented.len(), 26, "{documented:?}");
    let fixtures = root.join("codegen/tests/fixtures/diff");
    let mut pairs = BTreeSet::new();
    for e in std::fs::read_dir(&fixtures).unwrap().filter_map(Result::ok) {
        if !e.path().is_dir() {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(
            e.path().join("old").is_dir() && e.path().join("new").is_dir(),
            "{name}: old/ and new/"
        );
        pairs.insert(name[..5].to_string());
    }
    assert_eq!(documented, pairs, "documented codes vs fixture pairs");
    let mut used = BTreeSet::new();
    for e in std::fs::read_dir(root.join("codegen/src/diff"))
        .unwrap()
        .filter_map(Result::ok)
    {
        let text = std::fs::read_to_string(e.path()).unwrap();
        for (i, _) in text.match_indices("\"K") {
            let lit = &text[i + 1..];
            if lit.len() > 5 && is_code(&lit[..5]) && lit.as_bytes()[5] == b'"' {
                used.insert(lit[..5].to_string());
            }
        }
    }
    let undocumented: Vec<_> = used.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "used in codegen/src/diff/ without a row: {undocumented:?}"
    );
}

#[test]
fn every_documented_code_has_a_fixture() {
    let documented = documented_codes();
    let with_fixture: BTreeSet<&str> = CASES.iter().map(|c| c.code).collect();
    let without: BTreeMap<&str, &str> = WITHOUT_FIXTURE.iter().copied().collect();
    let mut problems = Vec::new();
    for code in documented.keys() {
        match (with_fixture.contains(code.as_str()), without.get(code.as_str())) {
            (false, None) => problems.push(format!("{code} is documented but has no fixture in tests/fixtures/invalid/ (add one and a row to CASES, or list it in WITHOUT_FIXTURE with the reason)")),
            (true, Some(_)) => problems.push(format!("{code} has a fixture but is also listed in WITHOUT_FIXTURE")),
            _ => {}
        }
    }
    for code in with_fixture.iter().chain(without.keys()) {
        if !documented.contains_key(*code) {
            problems.push(format!("{code} has a fixture (or a WITHOUT_FIXTURE entry) but no row in the code tables of {DOC_SOURCES:?}"));
        }
    }
    for (reason_code, reason) in WITHOUT_FIXTURE {
        if reason.trim().is_empty() {
            problems.push(format!("{reason_code}: WITHOUT_FIXTURE needs a reason"));
        }
    }
    for (code, file) in code_literals() {
        if !documented.contains_key(&code) {
            problems.push(format!("{code} is used in {file} but documented in none of the code tables of {DOC_SOURCES:?}"));
        }
    }
    // Every fixture on disk is in the table, under its own code.
    let mut on_disk: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("reading tests/fixtures/invalid")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    for name in &on_disk {
        if !CASES.iter().any(|c| c.fixture == name) {
            problems.push(format!("tests/fixtures/invalid/{name} is not in CASES"));
        }
    }
    for c in CASES {
        if !c.fixture.starts_with(&format!("{}_", c.code)) {
            problems.push(format!(
                "fixture {} of {} does not start with `{}_`",
                c.fixture, c.code, c.code
            ));
        }
        if c.code.starts_with("K4") != c.file.is_some() {
            problems.push(format!(
                "{}: folder-wide codes (K4xxx) have folder fixtures, the others file fixtures",
                c.code
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!(
        "{} fixtures cover {} of {} documented codes; without a fixture: {:?}",
        CASES.len(),
        with_fixture.len(),
        documented.len(),
        WITHOUT_FIXTURE
    );
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 3.9.0 specs, golden frames): put it at ../shared or set KWIRE_SHARED"
)]
fn kafka_3_9_0_corpus_has_no_errors_and_known_warnings() {
    let root = kwire_tests::shared().join("kafka-specs").join("3.9.0");
    assert!(root.is_dir(), "{} is absent", root.display());
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("reading kafka-specs/3.9.0")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(!folders.is_empty(), "{} holds no folders", root.display());
    let mut errors = Vec::new();
    let mut warnings: Vec<(String, String)> = Vec::new();
    let mut nfiles = 0;
    for dir in &folders {
        let checked =
            check_files(read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())));
        nfiles += checked.files.len();
        for (f, ds) in checked.files.iter().zip(&checked.diagnostics) {
            for d in ds {
                let (l, c) = line_col(&f.text, d.span.start);
                if d.is_error() {
                    errors.push(format!(
                        "{}:{l}:{c}: {} {}",
                        f.path.display(),
                        d.code,
                        d.message
                    ));
                } else {
                    warnings.push((d.code.to_string(), f.file_name()));
                }
            }
        }
    }
    assert_eq!(nfiles, 245, "Kafka 3.9.0 has 245 spec files");
    assert!(
        errors.is_empty(),
        "errors in Kafka 3.9.0's specs:\n{}",
        errors.join("\n")
    );
    let mut want: Vec<(String, String)> = CORPUS_WARNINGS
        .iter()
        .map(|(c, f)| (c.to_string(), f.to_string()))
        .collect();
    want.sort();
    warnings.sort();
    assert_eq!(warnings, want, "the warnings of Kafka 3.9.0's specs");
}

/// A request spec (valid 0-2, flexible 1+) whose only field is `field`.
fn spec_with_field(field: &str) -> String {
    format!(
        "{{\n  \"apiKey\": 1000,\n  \"type\": \"request\",\n  \"name\": \"FooRequest\",\n  \"validVersions\": \"0-2\",\n  \"flexibleVersions\": \"1+\",\n  \"fields\": [\n    {field}\n  ]\n}}\n"
    )
}

/// Where kwire and Kafka's generator (3.9.0, `FieldSpec`/`Versions.parse`) disagree. Ignored
/// each entry is (spec field, the error codes kwire should give).
#[test]
fn kafka_divergences() {
    let cases: &[(&str, &[&str])] = &[
        // Kafka: a tag with empty taggedVersions fails rule 21 (`taggedVersions.empty()`).
        // kwire: accepted silently, the field is tagged in no version.
        (
            r#"{ "name": "Bar", "type": "int32", "versions": "0+", "tag": 0, "taggedVersions": "none" }"#,
            &["K2115"],
        ),
        // Kafka: taggedVersions `none` without a tag is fine (rule 22 tests `!taggedVersions.empty()`).
        // kwire: K2116.
        (
            r#"{ "name": "Bar", "type": "int32", "versions": "0+", "taggedVersions": "none" }"#,
            &[],
        ),
        // Kafka: an empty `versions` is absent, and with no taggedVersions fails rule 10.
        // kwire: no diagnostic at all, and the field silently disappears from the spec.
        (
            r#"{ "name": "Bar", "type": "int32", "versions": "" }"#,
            &["K2001"],
        ),
        // Kafka: no versions and taggedVersions `none` fails rule 10. kwire: K2116 instead of K2001.
        (
            r#"{ "name": "Bar", "type": "int32", "taggedVersions": "none" }"#,
            &["K2001"],
        ),
        // Kafka: an empty version string is absent (`Versions.parse` returns the default).
        // kwire: K2004 (and for taggedVersions also K2116).
        (
            r#"{ "name": "Bar", "type": "string", "versions": "0+", "nullableVersions": "" }"#,
            &[],
        ),
        (
            r#"{ "name": "Bar", "type": "string", "versions": "0+", "taggedVersions": "" }"#,
            &[],
        ),
        (
            r#"{ "name": "Bar", "type": "string", "versions": "0+", "flexibleVersions": "" }"#,
            &[],
        ),
        // One slip, one error: a tag that is not an int32 is K2008; kwire adds a K2116 ("has
        // taggedVersions but no tag").
        (
            r#"{ "name": "Bar", "type": "int32", "versions": "1+", "tag": 3000000000, "taggedVersions": "1+" }"#,
            &["K2008"],
        ),
        (
            r#"{ "name": "Bar", "type": "int32", "versions": "1+", "tag": "abc", "taggedVersions": "1+" }"#,
            &["K2008"],
        ),
    ];
    let mut failures = Vec::new();
    for (field, want) in cases {
        let text = spec_with_field(field);
        let checked = check_files_alone(vec![kwire_codegen::SourceFile {
            path: PathBuf::from("FooRequest.json"),
            text,
        }]);
        let got: Vec<&str> = checked
            .diagnostics
            .iter()
            .flatten()
            .filter(|d| d.is_error())
            .map(|d| d.code)
            .collect();
        let fields = checked.specs.first().map(|s| s.fields.len());
        if got != *want || (want.is_empty() && fields != Some(1)) {
            failures.push(format!(
                "{field}\n    errors {got:?}, expected {want:?}; fields lowered: {fields:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
