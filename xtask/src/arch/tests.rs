//! The checker on small scratch workspaces written to a temporary folder.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{check, Report};

/// Writes `files` under a fresh temporary folder and returns it.
fn scratch(files: &[(&str, &str)]) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("kwire-arch-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("a file in a folder")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    dir
}

/// Checks a workspace made of `files`; the folder is removed afterwards.
fn run(files: &[(&str, &str)]) -> anyhow::Result<Report> {
    let dir = scratch(files);
    let report = check(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    report
}

/// A workspace of one package `a` (folder `a/`) with `sources` under `a/` and `rules` as the
/// lines of ARCHITECTURE.md's one ```arch block.
fn package(sources: &[(&str, &str)], rules: &str) -> Report {
    let doc = format!("# A\n\nProse.\n\n```arch\n{rules}\n```\n");
    let mut files: Vec<(String, String)> = vec![
        (
            "Cargo.toml".into(),
            "[workspace]\nmembers = [\"a\"]\n".into(),
        ),
        ("a/Cargo.toml".into(), "[package]\nname = \"a\"\n".into()),
        ("ARCHITECTURE.md".into(), doc),
    ];
    files.extend(
        sources
            .iter()
            .map(|(p, s)| (format!("a/{p}"), (*s).to_owned())),
    );
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, s)| (p.as_str(), s.as_str()))
        .collect();
    run(&refs).expect("a valid scratch workspace")
}

/// The report's lines up to their first ` (`: what and where, without the file:line.
fn heads(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l.split(" (").next().unwrap_or_default().to_owned())
        .collect()
}

const NO_RULES: &str = "max-fn-lines 1000: a/src";

#[test]
fn a_three_module_cycle_is_one_component_with_its_chain() {
    let r = package(
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
            ("src/a.rs", "use crate::b::B;\npub struct A;\n"),
            ("src/b.rs", "pub struct B(pub crate::c::C);\n"),
            (
                "src/c.rs",
                "pub struct C;\nfn f() { let _ = super::a::A; }\n",
            ),
            ("src/d.rs", "use crate::a::A;\n"),
        ],
        NO_RULES,
    );
    assert_eq!(
        r.cycles,
        ["cycle a (3 modules: a, b, c): a -> b (a/src/a.rs:1) -> c (a/src/b.rs:1) -> a (a/src/c.rs:2)"]
    );
    assert!(
        r.summary().contains(", 1 cycles, 0 upward edges,"),
        "{}",
        r.summary()
    );
}

#[test]
fn a_parent_and_child_that_use_each_other_are_a_cycle() {
    let r = package(
        &[
            ("src/lib.rs", "mod p;\n"),
            ("src/p/mod.rs", "mod c;\npub use c::Z;\npub struct W;\n"),
            ("src/p/c.rs", "pub struct Z(pub super::W);\n"),
        ],
        NO_RULES,
    );
    assert_eq!(heads(&r.cycles), ["cycle a"]);
    assert!(r.cycles[0].ends_with("p -> p::c (a/src/p/mod.rs:2) -> p (a/src/p/c.rs:1)"));
}

#[test]
fn a_test_module_and_its_parent_may_use_each_other() {
    let r = package(
        &[
            ("src/lib.rs", "mod b;\n"),
            (
                "src/b.rs",
                "pub fn g() {}\n#[cfg(test)]\nfn h() { tests::t(); }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    pub fn t() { g(); }\n}\n",
            ),
        ],
        NO_RULES,
    );
    assert!(r.is_clean(), "{:?}", r.cycles);
    // Both edges are there; only the cycle is allowed.
    assert_eq!(r.edges.len(), 2, "{:?}", r.edges);
}

#[test]
fn an_edge_from_a_lower_layer_is_upward_and_every_member_needs_a_layer() {
    let r = package(
        &[
            (
                "src/lib.rs",
                "pub mod low;\npub mod high;\npub mod loose;\n#[cfg(test)]\nmod tests;\n",
            ),
            (
                "src/low.rs",
                "pub fn f() -> crate::high::H { crate::high::H }\n",
            ),
            ("src/high.rs", "pub struct H;\n"),
            ("src/loose.rs", ""),
            ("src/tests.rs", "use crate::{high, low};\n"),
        ],
        "layers a/src: low < high < lib",
    );
    assert_eq!(
        r.upward,
        ["upward a: low -> high (a/src/low.rs:1): low is below high (layers a/src, ARCHITECTURE.md:6)"]
    );
    assert_eq!(
        r.breaks,
        ["rule a: a/src/loose is in no layer (layers a/src, ARCHITECTURE.md:6)"]
    );
}

#[test]
fn crate_layers_see_paths_into_other_packages() {
    let files = [
        ("Cargo.toml", "[workspace]\nmembers = [\"low\", \"high\"]\n"),
        (
            "low/Cargo.toml",
            "[package]\nname = \"low\"\n[dev-dependencies]\nhigh = { path = \"../high\" }\n",
        ),
        (
            "low/src/lib.rs",
            "pub fn f() {}\n#[cfg(test)]\nmod tests { use high::g; }\n",
        ),
        (
            "high/Cargo.toml",
            "[package]\nname = \"high\"\n[dependencies]\nlow = { path = \"../low\" }\n",
        ),
        ("high/src/lib.rs", "pub fn g() { low::f() }\n"),
        ("ARCHITECTURE.md", "```arch\ncrates: low < high\n```\n"),
    ];
    let r = run(&files).expect("valid");
    assert_eq!(
        r.upward,
        ["upward low -> high (low/src/lib.rs:3, in tests): low is below high (crates, ARCHITECTURE.md:2)"]
    );
    assert_eq!(
        r.edges,
        [
            "high -> low (high/src/lib.rs:1)",
            "low -> high (low/src/lib.rs:3)"
        ]
    );
}

#[test]
fn independent_siblings_that_import_each_other_break_the_rule() {
    let r = package(
        &[
            ("src/lib.rs", "mod handlers;\n"),
            (
                "src/handlers/mod.rs",
                "mod admin;\nmod meta;\nmod shared;\n",
            ),
            (
                "src/handlers/admin.rs",
                "use super::shared::S;\nfn f() { super::meta::g(); }\n",
            ),
            ("src/handlers/meta.rs", "pub fn g() {}\n"),
            ("src/handlers/shared.rs", "pub struct S;\n"),
        ],
        "independent a/src/handlers: admin meta",
    );
    assert_eq!(
        r.breaks,
        ["rule a: handlers::admin -> handlers::meta (a/src/handlers/admin.rs:2): admin and meta never import each other (independent a/src/handlers, ARCHITECTURE.md:6)"]
    );
}

#[test]
fn group_types_must_not_reach_the_facade() {
    let r = package(
        &[
            ("src/lib.rs", "pub mod coordinator;\n"),
            (
                "src/coordinator/mod.rs",
                "pub mod classic;\npub mod consumer;\nmod context;\npub struct GroupCoordinator;\npub use context::Ctx;\n",
            ),
            ("src/coordinator/context.rs", "pub struct Ctx;\n"),
            ("src/coordinator/classic.rs", "use super::context::Ctx;\n"),
            (
                "src/coordinator/consumer/mod.rs",
                "mod manager;\nuse super::context::Ctx;\nuse super::Ctx as Again;\n",
            ),
            (
                "src/coordinator/consumer/manager.rs",
                "fn f(_: &crate::coordinator::GroupCoordinator) {}\n",
            ),
        ],
        "forbid a/src/coordinator: classic consumer -> self GroupCoordinator",
    );
    assert_eq!(
        heads(&r.breaks),
        [
            "rule a: coordinator::consumer -> coordinator",
            "rule a: coordinator::consumer::manager -> coordinator",
            "rule a: coordinator::consumer::manager names GroupCoordinator",
        ]
    );
    assert!(r.breaks[2].contains("(a/src/coordinator/consumer/manager.rs:1)"));
}

#[test]
fn long_functions_and_files_are_reported_in_limited_folders_only() {
    let body = "    let x = 1;\n".repeat(6);
    let long = format!("pub fn long() {{\n{body}}}\npub fn short() {{}}\n");
    let r = package(
        &[
            ("src/lib.rs", "mod limited;\nmod free;\n"),
            ("src/limited.rs", &long),
            ("src/free.rs", &long),
        ],
        "max-fn-lines 5: a/src/limited\nmax-file-lines 8: a/src/limited",
    );
    assert_eq!(
        r.long_fns,
        ["long fn a/src/limited.rs:1 long (8 lines) (max-fn-lines 5, ARCHITECTURE.md:6)"]
    );
    assert_eq!(
        r.long_files,
        ["long file a/src/limited.rs (9 lines) (max-file-lines 8, ARCHITECTURE.md:7)"]
    );
    assert!(r
        .figures
        .iter()
        .any(|l| l == "  a/src/free.rs:1 long (8 lines)"));
}

#[test]
fn test_code_is_not_held_to_the_length_limits() {
    let body = "    let x = 1;\n".repeat(6);
    let lib = format!(
        "pub mod m;\n#[cfg(test)]\nmod t;\n#[test]\nfn a() {{\n{body}}}\n#[tokio::test]\nasync fn b() {{\n{body}}}\n\
         #[cfg(test)]\nmod inline {{\n    fn c() {{\n{body}    }}\n}}\n#[cfg(test)]\nimpl S {{\n    fn d() {{\n{body}    }}\n}}\npub struct S;\n"
    );
    let method = format!("pub struct T;\nimpl T {{\n    /// Docs.\n    #[inline]\n    pub fn e(&self) {{\n{body}    }}\n}}\n");
    let r = package(
        &[
            ("src/lib.rs", &lib),
            ("src/m.rs", &method),
            ("src/t.rs", &format!("fn f() {{\n{body}}}\n")),
            ("tests/it.rs", &format!("fn g() {{\n{body}}}\n")),
        ],
        "max-fn-lines 5: a/src a/tests\nmax-file-lines 1000: a/src",
    );
    // Only the method counts: from its `fn` line to its brace, attributes and docs excluded.
    assert_eq!(
        r.long_fns,
        ["long fn a/src/m.rs:5 T::e (8 lines) (max-fn-lines 5, ARCHITECTURE.md:6)"]
    );
}

#[test]
fn paths_in_macro_calls_count_but_not_in_quote_bodies() {
    let r = package(
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\n"),
            (
                "src/a.rs",
                "pub fn f() { assert_eq!(crate::b::X, 1); }\nfn g() { vec![1, ::a::e::E]; }\n",
            ),
            ("src/e.rs", "pub const E: u8 = 1;\n"),
            ("src/b.rs", "pub const X: u8 = 1;\n"),
            ("src/c.rs", "pub fn g() { let _ = quote::quote!(crate::d::Y); }\n"),
            (
                "src/d.rs",
                "macro_rules! m { () => { $crate::a::f(); crate::b::X } }\n// crate::c::g\npub fn s() -> &'static str { \"crate::c\" }\n",
            ),
        ],
        NO_RULES,
    );
    assert_eq!(
        r.edges,
        [
            "a: a -> b (a/src/a.rs:1)",
            "a: a -> e (a/src/a.rs:2)",
            "a: d -> b (a/src/d.rs:1)"
        ]
    );
}

#[test]
fn path_attributes_inline_modules_use_trees_and_aliases_resolve() {
    let r = package(
        &[
            (
                "src/lib.rs",
                "mod a;\n#[path = \"elsewhere/x.rs\"]\nmod b;\nmod c {\n    pub mod inner;\n}\n",
            ),
            (
                "src/a.rs",
                "use crate::{b::{self as bee, Y}, c::inner::*};\nfn f() { bee::deep::Z; }\n",
            ),
            ("src/elsewhere/x.rs", "pub mod deep;\npub struct Y;\n"),
            ("src/elsewhere/deep.rs", "pub struct Z;\n"),
            ("src/c/inner.rs", "use super::super::b as sibling;\n"),
        ],
        NO_RULES,
    );
    assert_eq!(
        heads(&r.edges),
        [
            "a: a -> b",
            "a: a -> b::deep",
            "a: a -> c::inner",
            "a: c::inner -> b"
        ]
    );
    assert_eq!(r.modules, 6, "crate, a, b, b::deep, c, c::inner");
    assert!(r
        .edges
        .iter()
        .any(|e| e.contains("(a/src/a.rs:2)") && e.contains("b::deep")));
}

#[test]
fn targets_come_from_the_manifests_and_cargos_default_paths() {
    let files = [
        ("Cargo.toml", "[workspace]\nmembers = [\"a\"]\nexclude = [\"harness\", \"absent\"]\n"),
        (
            "a/Cargo.toml",
            "[package]\nname = \"a-b\"\n[[bin]]\nname = \"tool\"\npath = \"tools/tool.rs\"\n[[bench]]\nname = \"speed\"\n",
        ),
        ("a/src/lib.rs", "pub fn f() {}\n"),
        ("a/src/main.rs", "fn main() { a_b::f(); }\n"),
        ("a/src/bin/extra.rs", "fn main() {}\n"),
        ("a/tools/tool.rs", "fn main() {}\n"),
        ("a/tests/t.rs", "use a_b::f;\n"),
        ("a/tests/multi/main.rs", "mod helper;\n"),
        ("a/tests/multi/helper.rs", ""),
        ("a/benches/speed.rs", "fn main() {}\n"),
        ("a/examples/ex.rs", "fn main() {}\n"),
        ("a/build.rs", "fn main() {}\n"),
        ("harness/Cargo.toml", "[package]\nname = \"h\"\n[workspace]\n"),
        ("harness/src/main.rs", "fn main() {}\n"),
        ("ARCHITECTURE.md", "```arch\ncrates: a-b < h\n```\n"),
    ];
    let r = run(&files).expect("valid");
    assert_eq!((r.packages, r.crates, r.modules), (2, 10, 11));
    assert_eq!(
        r.edges,
        [
            "a-b: main -> crate (a/src/main.rs:1)",
            "a-b: test:t -> crate (a/tests/t.rs:1)"
        ]
    );
}

#[test]
fn a_rule_that_does_not_parse_or_names_nothing_is_an_error() {
    let bad = |rules: &str| {
        let doc = format!("```arch\n{rules}\n```\n");
        let files = [
            ("Cargo.toml", "[workspace]\nmembers = [\"a\"]\n"),
            ("a/Cargo.toml", "[package]\nname = \"a\"\n"),
            ("a/src/lib.rs", "mod m;\n"),
            ("a/src/m.rs", ""),
            ("ARCHITECTURE.md", doc.as_str()),
        ];
        run(&files).map(|r| r.summary()).unwrap_err().to_string()
    };
    assert_eq!(
        bad("layers a/src: m < nothing"),
        "ARCHITECTURE.md:2: no module `nothing` in `a/src` (there are: lib m)"
    );
    assert_eq!(
        bad("layers b/src: m < lib"),
        "ARCHITECTURE.md:2: no module under `b/src`"
    );
    assert_eq!(bad("crates: a < b"), "ARCHITECTURE.md:2: no package `b`");
    assert_eq!(
        bad("max-fn-lines 9: a/lib"),
        "ARCHITECTURE.md:2: no source file under `a/lib`"
    );
    assert_eq!(
        bad("opaque: a/src/gen"),
        "ARCHITECTURE.md: opaque `a/src/gen` is no module"
    );
    assert_eq!(
        bad("layers a/src: m"),
        "ARCHITECTURE.md:2: cannot parse `layers a/src: m`: expected layers `a b < c < …`"
    );
    assert_eq!(
        bad("forbid a/src m: m -> lib"),
        "ARCHITECTURE.md:2: cannot parse `forbid a/src m: m -> lib`: expected one folder after `forbid`"
    );
    let looped = [
        ("Cargo.toml", "[workspace]\nmembers = [\"a\"]\n"),
        ("a/Cargo.toml", "[package]\nname = \"a\"\n"),
        ("a/src/lib.rs", "#[path = \"lib.rs\"]\nmod again;\n"),
        ("ARCHITECTURE.md", "```arch\nmax-fn-lines 9: a/src\n```\n"),
    ];
    let err = run(&looped).map(|r| r.summary()).unwrap_err();
    assert_eq!(
        format!("{err:#}"),
        "reading package a: a/src/lib.rs is its own descendant module (a #[path] loop)"
    );
    assert_eq!(
        bad("layer a/src: m < lib"),
        "ARCHITECTURE.md:2: cannot parse `layer a/src: m < lib`: unknown rule `layer`"
    );
}

#[test]
fn opaque_modules_are_one_module_and_not_read() {
    let r = package(
        &[
            ("src/lib.rs", "pub mod generated;\nmod user;\n"),
            ("src/generated/mod.rs", "this is not Rust {{{"),
            ("src/user.rs", "use crate::generated::thing::Thing;\n"),
        ],
        "opaque: a/src/generated",
    );
    assert_eq!(r.modules, 3);
    assert_eq!(heads(&r.edges), ["a: user -> generated"]);
}

#[test]
fn use_trees_expand_into_leaves_with_the_names_they_bind() {
    let facts = super::source::read("use crate::a::{b, c::{self, d as e}, f::*, g as _};")
        .expect("valid Rust");
    let leaves: Vec<(String, Option<&str>)> = facts
        .paths
        .iter()
        .map(|p| (p.segments.join("::"), p.alias.as_deref()))
        .collect();
    let want = [
        ("crate::a::b", Some("b")),
        ("crate::a::c", Some("c")),
        ("crate::a::c::d", Some("e")),
        ("crate::a::f::*", None),
        ("crate::a::g", None),
    ];
    let want: Vec<(String, Option<&str>)> =
        want.iter().map(|(p, a)| ((*p).to_owned(), *a)).collect();
    assert_eq!(leaves, want);
}
