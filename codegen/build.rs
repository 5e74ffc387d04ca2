//! For this crate's own tests only: sets `cfg(kwire_shared)` when the shared material (Kafka
//! 3.9.0's spec files under `kafka-specs/3.9.0/`, librdkafka's golden frames under
//! `golden/librdkafka-2.16.0/`) is at `$KWIRE_SHARED`, else at `../shared` beside the
//! workspace. Without it, the tests that read it are compiled as ignored, with the reason, so
//! `cargo test` lists them as such; under `CI=true` the cfg is always set, so a missing folder
//! fails those tests instead. Nothing the library compiles depends on it.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kwire_shared)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=KWIRE_SHARED");
    println!("cargo:rerun-if-env-changed=CI");
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("KWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("..").join("..").join("shared"));
    let specs = shared.join("kafka-specs").join("3.9.0");
    let golden = shared.join("golden").join("librdkafka-2.16.0");
    let found = specs.is_dir() && golden.is_dir();
    if found {
        println!("cargo:rerun-if-changed={}", specs.display());
        println!("cargo:rerun-if-changed={}", golden.display());
    }
    if found || std::env::var("CI").as_deref() == Ok("true") {
        println!("cargo:rustc-cfg=kwire_shared");
    }
}
