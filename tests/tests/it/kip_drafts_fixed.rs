//! The seed drafts with their syntax fixed (`tests/fixtures/kip-drafts-fixed/`: no-break spaces
//! replaced, wrapped `about` strings joined, missing commas added, `byte` → `int8`,
//! `[]int32int16` → `[]int32`, bare `null` defaults quoted; `TBD` keys kept) compile to types and
//! codecs that round-trip, and their `TBD` messages are left out of API-key dispatch with one
//! warning each.

use kwire_codegen::source::read_dir;

fn fixed_dir() -> std::path::PathBuf {
    kwire_tests::workspace_root().join("tests/fixtures/kip-drafts-fixed")
}

#[test]
fn fixed_drafts_check_clean_with_one_tbd_warning_each() {
    let checked = kwire_codegen::check_files(read_dir(&fixed_dir()).unwrap());
    assert_eq!(
        checked.error_count(),
        0,
        "{}",
        kwire_codegen::render::render_all(&checked, false)
    );
    assert_eq!(checked.specs.len(), 4);
    for (f, diags) in checked.files.iter().zip(&checked.diagnostics) {
        let tbd: Vec<_> = diags.iter().filter(|d| d.code == "K2016").collect();
        assert_eq!(tbd.len(), 1, "{}: {diags:?}", f.path.display());
        let (line, col) = kwire_codegen::render::line_col(&f.text, tbd[0].span.start);
        assert_eq!((line, col), (2, 13), "{}", f.path.display());
    }
}

#[test]
fn tbd_messages_get_codecs_but_no_api_key() {
    let code = kwire_codegen::Builder::new()
        .generate(read_dir(&fixed_dir()).unwrap())
        .unwrap();
    // Types and codecs for every draft…
    for name in [
        "ConsumerGroupHeartbeatRequest",
        "StreamsGroupHeartbeatRequest",
        "StreamsGroupHeartbeatResponse",
        "StreamsGroupDescribeResponse",
    ] {
        assert!(code.contains(&format!("pub struct {name} {{")), "{name}");
        assert!(
            code.contains(&format!("impl rt::Decode for {name} {{")),
            "{name}"
        );
        assert!(code.contains(
            "const API_KEY: ::core::option::Option<i16> = ::core::option::Option::None;"
        ));
    }
    // …and an ApiKey enum without them.
    assert!(
        code.contains("pub enum ApiKey {}"),
        "TBD messages must not be dispatched"
    );
    assert!(!code.contains("pub enum Request {"));
}

#[test]
fn fixed_drafts_compile_and_round_trip() {
    let s = xtask::corpus::corpus(&fixed_dir(), &Default::default()).expect("corpus run");
    println!("{s}");
    assert_eq!(
        (s.specs, s.generated, s.compiled, s.failures),
        (4, 4, 4, 0),
        "{s}"
    );
    // 4 messages at version 0, 16 samples each.
    assert_eq!(s.round_trips, 4 * 16, "{s}");
}
