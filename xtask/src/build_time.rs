//! `cargo xtask build-time SHARED`: the clean release build time of the crate kwire generates for
//! Kafka 3.9.0's request, response and header specs (the ones kafka-protocol 0.15.1 covers),
//! beside kafka-protocol 0.15.1's own, on this machine. Views, samples and the JSON form are off,
//! as kafka-protocol's serde is. Each crate is timed alone: its dependencies are built first, then
//! the crate is cleaned and built again with the clock running.

use anyhow::Context;
use kwire_codegen::{source, Builder};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn build(dir: &Path, target: &Path, package: &str) -> anyhow::Result<f64> {
    let run = |args: &[&str]| -> anyhow::Result<()> {
        let status = Command::new(crate::scratch::cargo())
            .args(args)
            .arg("--manifest-path")
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", target)
            .env_remove("RUSTFLAGS")
            .status()
            .context("running cargo")?;
        anyhow::ensure!(
            status.success(),
            "cargo {args:?} failed in {}",
            dir.display()
        );
        Ok(())
    };
    run(&["build", "--release", "--quiet"])?;
    run(&["clean", "--release", "--quiet", "-p", package])?;
    let t = Instant::now();
    run(&["build", "--release", "--quiet"])?;
    Ok(t.elapsed().as_secs_f64())
}

/// Runs the measurement and prints both times and their ratio.
pub fn run(shared: &Path) -> anyhow::Result<bool> {
    let root = crate::codegen::root();
    let scratch = root.join("target").join("kwire-build-time");
    let clients = shared.join("kafka-specs").join("3.9.0").join("clients");
    // The API specs and the two real headers; not the test-only headers or data specs.
    let files: Vec<_> = source::read_dir(&clients)?
        .into_iter()
        .filter(|f| {
            let n = f.file_name();
            n.ends_with("Request.json")
                || n.ends_with("Response.json")
                || n == "RequestHeader.json"
                || n == "ResponseHeader.json"
        })
        .collect();
    let n = files.len();
    let ours = scratch.join("kwire-gen");
    std::fs::create_dir_all(ours.join("src"))?;
    Builder::new()
        .out_dir(ours.join("src"))
        .file_name("lib.rs")
        .compile_files(files)?;
    std::fs::write(
        ours.join("Cargo.toml"),
        crate::scratch::manifest(
            "kwire-gen",
            "",
            &crate::scratch::kwire_protocol_dependency(&root, &[]),
        ),
    )?;
    let theirs = scratch.join("kafka-protocol-gen");
    std::fs::create_dir_all(theirs.join("src"))?;
    std::fs::write(
        theirs.join("src").join("lib.rs"),
        "pub use kafka_protocol;\n",
    )?;
    std::fs::write(
        theirs.join("Cargo.toml"),
        crate::scratch::manifest(
            "kafka-protocol-gen",
            "",
            "kafka-protocol = { version = \"=0.15.1\", default-features = false, features = [\"messages_enums\", \"client\", \"broker\"] }\n",
        ),
    )?;
    let target: PathBuf = scratch.join("target");
    let a = build(&ours, &target, "kwire-gen")?;
    let b = build(&theirs, &target, "kafka-protocol")?;
    println!("build-time: kwire-generated crate ({n} specs) {a:.1} s, kafka-protocol 0.15.1 {b:.1} s, ratio {:.2}", a / b);
    Ok(true)
}
