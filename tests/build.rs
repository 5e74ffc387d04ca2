//! Exercises `kwire_codegen::Builder` the way a user's build script would: the specs of
//! `schemas/` in, `$OUT_DIR/kwire.rs` out (included by tests/tests/it/builder.rs).
//!
//! It also looks for the shared material (Kafka 3.9.0's spec files under
//! `kafka-specs/3.9.0/`, the golden librdkafka 2.16.0 frames under `golden/librdkafka-2.16.0/`):
//! `$KWIRE_SHARED`, else `../shared` beside the checkout. Found, it compiles Kafka's own clients
//! specs with samples, the JSON form and views on into `$OUT_DIR/kafka390.rs` (the cross-check,
//! JSON round-trips and views use it), passes the folder to the crate as
//! `KWIRE_SHARED_DIR`, and sets `cfg(kwire_shared)`. Not found, the tests that need it are
//! compiled with `#[ignore]` (libtest lists them as ignored, with the reason), except under
//! `CI=true`, where the missing folder fails the build.
//! With the JSON form on, it compiles `tests/fixtures/json-types/` into `$OUT_DIR/json_types.rs`
//! (tests/tests/it/json_form.rs).

use kwire_codegen::rust::names;
use std::path::PathBuf;

/// tests/tests/it/java_oracle.rs needs `java` and `mvn`: with both on `PATH`, or under `CI=true`
/// (where their absence must fail the test, not skip it), sets `cfg(kwire_java)`; otherwise the
/// test is compiled as ignored, with the reason.
fn java_probe() {
    println!("cargo:rerun-if-env-changed=PATH");
    let on_path = |tool: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
    };
    if std::env::var("CI").as_deref() == Ok("true") || (on_path("java") && on_path("mvn")) {
        println!("cargo:rustc-cfg=kwire_java");
    } else {
        println!("cargo:warning=java or mvn not on PATH: the Java oracle test is ignored (install a JDK 17+ and Maven, then rebuild)");
    }
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kwire_shared)");
    println!("cargo::rustc-check-cfg=cfg(kwire_java)");
    java_probe();
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../schemas");
    println!("cargo:rerun-if-env-changed=KWIRE_SHARED");
    println!("cargo:rerun-if-env-changed=CI");
    kwire_codegen::Builder::new()
        .compile_dir("../schemas")
        .expect("schemas/ compiles");
    // tests/tests/it/vectors.rs: a probe message with the tagged shapes schemas/ lacks.
    kwire_codegen::Builder::new()
        .file_name("probe.rs")
        .compile_dir("fixtures/probe")
        .expect("fixtures/probe compiles");
    // tests/tests/it/json_form.rs: the messages of protocol/src/generated (from its root re-exports), as
    // `schema_messages!(module::Type, …);`.
    println!("cargo:rerun-if-changed=../protocol/src/generated/mod.rs");
    let root_mod = std::fs::read_to_string("../protocol/src/generated/mod.rs")
        .expect("protocol/src/generated/mod.rs");
    let generated: Vec<&str> = root_mod
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub use ")?.strip_suffix(';'))
        .filter(|p| !p.ends_with("::*"))
        .collect();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(
        out_dir.join("schema_messages.rs"),
        format!("schema_messages!({});\n", generated.join(", ")),
    )
    .expect("writing schema_messages.rs");
    // tests/tests/it/robustness.rs: the same messages with their borrowed views (kwire-codegen names the view of
    // `Type` `TypeRef`, in the same module), as `schema_message_views!(module::Type / TypeRef, …);`.
    let with_views: Vec<String> = generated
        .iter()
        .filter_map(|p| p.rsplit_once("::"))
        .map(|(m, t)| format!("{m}::{t} / {t}Ref"))
        .collect();
    std::fs::write(
        out_dir.join("schema_message_views.rs"),
        format!("schema_message_views!({});\n", with_views.join(", ")),
    )
    .expect("writing schema_message_views.rs");
    // tests/tests/it/robustness.rs: every struct that is an array element in the generated code (the element type of a
    // `pub field: …::std::vec::Vec<Type>`, read from each module), as `element_structs!(module::Type, …);`.
    let mut elements = std::collections::BTreeSet::new();
    for module in generated
        .iter()
        .filter_map(|p| p.split_once("::"))
        .map(|(m, _)| m)
    {
        let text = std::fs::read_to_string(format!("../protocol/src/generated/{module}.rs"))
            .expect("a generated module");
        for line in text.lines().filter(|l| l.trim_start().starts_with("pub ")) {
            if let Some((_, rest)) = line.split_once("::std::vec::Vec<") {
                let ty: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if ty.starts_with(|c: char| c.is_ascii_uppercase()) {
                    elements.insert(format!("{module}::{ty}"));
                }
            }
        }
    }
    let elements: Vec<String> = elements.into_iter().collect();
    std::fs::write(
        out_dir.join("element_structs.rs"),
        format!("element_structs!({});\n", elements.join(", ")),
    )
    .expect("writing element_structs.rs");
    // tests/tests/it/json_form.rs: one field of every type, with samples and the JSON form.
    kwire_codegen::Builder::new()
        .samples(true)
        .json(true)
        .file_name("json_types.rs")
        .compile_dir("fixtures/json-types")
        .expect("fixtures/json-types compiles");

    // The shared material: $KWIRE_SHARED, else <workspace>/../shared.
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("KWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("..").join("..").join("shared"));
    let clients = shared.join("kafka-specs").join("3.9.0").join("clients");
    let golden = shared.join("golden").join("librdkafka-2.16.0");
    if !clients.is_dir() || !golden.is_dir() {
        let what = if clients.is_dir() {
            golden.display()
        } else {
            clients.display()
        };
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!(
                "the shared material is missing ({what} not found): put it at ../shared beside the \
                 checkout or set KWIRE_SHARED; CI=true makes its absence a failure"
            );
        }
        println!(
            "cargo:warning=shared material not found ({what}): the tests that need Kafka's specs or \
             the golden frames are ignored (put it at ../shared or set KWIRE_SHARED, then rebuild)"
        );
        return;
    }
    let shared = shared.canonicalize().unwrap_or(shared);
    println!("cargo:rerun-if-changed={}", clients.display());
    println!("cargo:rerun-if-changed={}", golden.display());
    println!("cargo:rustc-env=KWIRE_SHARED_DIR={}", shared.display());
    // One module for every test and bench that needs Kafka's own client messages (compiled once,
    // in the kwire-tests library): samples, the JSON form and borrowed views on.
    kwire_codegen::Builder::new()
        .samples(true)
        .json(true)
        .views(true)
        .file_name("kafka390.rs")
        .compile_dir(&clients)
        .expect("Kafka 3.9.0 clients specs compile");
    // …and the list of its messages, as `kafka390_messages!(module::Type, …);`.
    let files = kwire_codegen::source::read_dir(&clients).expect("Kafka 3.9.0 clients specs read");
    let mut names: Vec<String> = kwire_codegen::check_files(files)
        .specs
        .iter()
        .map(|s| s.name.clone())
        .collect();
    names.sort();
    let items: Vec<String> = names
        .iter()
        .map(|n| format!("{}::{}", names::module_ident(n), names::type_ident(n)))
        .collect();
    std::fs::write(
        out_dir.join("kafka390_json_list.rs"),
        format!("kafka390_messages!({});\n", items.join(", ")),
    )
    .expect("writing kafka390_json_list.rs");
    println!("cargo:rustc-cfg=kwire_shared");
}
