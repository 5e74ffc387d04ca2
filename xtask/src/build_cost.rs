//! `cargo xtask build-cost [--jobs N] [--requests-only] [--keep]`: the build cost of kwire as a
//! user pays it, beside kafka-protocol 0.18.0.
//!
//! Two tiny binary crates are written to a temporary folder, each decoding and encoding one
//! message of every API (a request and a response per API; only the request with
//! `--requests-only`) that both kwire's `schemas/` and kafka-protocol 0.18.0 define, at each
//! library's highest version of that message:
//!
//! * `kwire-user`: `kwire-protocol` by path, `default-features = false` (no coordinator, no
//!   `json`, no `sample`, no `view`: borrowed views are not compiled; `--views` turns `view` on);
//! * `kafka-protocol-user`: `kafka-protocol = "=0.18.0"` with the features that give every message
//!   both codecs (`client`, `broker`), without compression and without `messages_enums`.
//!
//! kafka-protocol's codecs are generic over the buffer, so much of their code is compiled in the
//! user's crate; timing the whole build of the user's binary counts that. Each crate is built from
//! clean (its own new target folder) with `cargo build --release -j N`, after its dependencies are
//! resolved and downloaded (not timed), and the program is run once as a check. With `--runs N`
//! the two crates are built N times each, alternately, and the medians are compared.

use anyhow::Context;
use kwire_codegen::ir::MessageKind;
use kwire_codegen::{check_files, source};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Options of the task.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Parallel jobs for both builds (`cargo build -j`); `None`: cargo's default (the CPU count).
    pub jobs: Option<usize>,
    /// Only the request of each API (by default its response too).
    pub requests_only: bool,
    /// Keep the temporary folder (its path is printed).
    pub keep: bool,
    /// Builds of each crate, alternating (kwire, kafka-protocol, kwire, …); the medians are
    /// compared. 0 counts as 1.
    pub runs: usize,
    /// Compile kwire's borrowed views too (feature `view`).
    pub views: bool,
}

/// A cargo command in `dir` with its own target folder and no inherited flags.
fn cargo_in(dir: &Path) -> Command {
    let mut c = Command::new(crate::scratch::cargo());
    c.current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_PROFILE_RELEASE_DEBUG")
        .env_remove("CARGO_BUILD_JOBS");
    c
}

fn run(c: &mut Command) -> anyhow::Result<String> {
    let out = c.output().with_context(|| format!("running {c:?}"))?;
    anyhow::ensure!(
        out.status.success(),
        "{c:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The messages of kwire's `schemas/` that belong to an API (request and response), by name.
fn kwire_messages(schemas: &Path) -> anyhow::Result<BTreeSet<String>> {
    let checked = check_files(source::read_dir(schemas)?);
    anyhow::ensure!(checked.error_count() == 0, "schemas/ has errors");
    Ok(checked
        .specs
        .iter()
        .filter(|s| matches!(s.kind, MessageKind::Request | MessageKind::Response))
        .map(|s| s.name.clone())
        .collect())
}

/// The request and response types kafka-protocol re-exports from `messages` (`pub use x::Name;`).
fn kafka_protocol_messages(src: &Path) -> anyhow::Result<BTreeSet<String>> {
    let text = std::fs::read_to_string(src.join("src").join("messages.rs")).with_context(|| {
        format!(
            "reading kafka-protocol's messages.rs under {}",
            src.display()
        )
    })?;
    Ok(text
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub use ")?
                .strip_suffix(';')?
                .split("::")
                .nth(1)
                .map(str::to_owned)
        })
        .filter(|n| n.ends_with("Request") || n.ends_with("Response"))
        .collect())
}

/// Where cargo put kafka-protocol's source for the crate in `dir` (after resolution).
fn package_src(dir: &Path, name: &str) -> anyhow::Result<PathBuf> {
    let meta = run(cargo_in(dir).args(["metadata", "--format-version", "1"]))?;
    let meta: serde_json::Value = serde_json::from_str(&meta)?;
    let path = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == name)
        .and_then(|p| p["manifest_path"].as_str())
        .with_context(|| format!("{name} not in cargo metadata"))?;
    Ok(Path::new(path)
        .parent()
        .context("manifest has a folder")?
        .to_path_buf())
}

fn write_crate(dir: &Path, name: &str, deps: &str, main: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(
        dir.join("Cargo.toml"),
        crate::scratch::manifest(name, "", deps),
    )?;
    std::fs::write(dir.join("src").join("main.rs"), main)?;
    Ok(())
}

/// The program: a round trip (encode the default, decode it, encode it again) per message.
fn program(prelude: &str, helper: &str, calls: &[String]) -> String {
    let mut s = format!(
        "//! Generated by `cargo xtask build-cost`: decodes and encodes one message of every API.\n\n\
         {prelude}\n{helper}\n\nfn main() {{\n    let mut out = BytesMut::with_capacity(1 << 16);\n    let mut ok = 0usize;\n"
    );
    for c in calls {
        s.push_str(&format!("    ok += {c}(&mut out) as usize;\n"));
    }
    s.push_str(&format!(
        "    println!(\"{{ok}} of {} round trips\");\n}}\n",
        calls.len()
    ));
    s
}

const KWIRE_HELPER: &str = "\
fn round_trip<T: Message>(out: &mut BytesMut) -> bool {
    let v = T::VALID_VERSIONS.highest;
    let Ok(bytes) = T::default().to_bytes(v) else { return false };
    let Ok(m) = T::decode_bytes(bytes, v) else { return false };
    out.clear();
    m.encode(out, v).is_ok()
}";

const KAFKA_PROTOCOL_HELPER: &str = "\
fn round_trip<T: Encodable + Decodable + Message + Default>(out: &mut BytesMut) -> bool {
    let v = T::VERSIONS.max;
    out.clear();
    if T::default().encode(out, v).is_err() {
        return false;
    }
    let mut bytes = out.split().freeze();
    let Ok(m) = T::decode(&mut bytes, v) else { return false };
    out.clear();
    m.encode(out, v).is_ok()
}";

/// One clean build: wall seconds, and CPU seconds (user + system) of cargo and the compilers.
#[derive(Debug, Clone, Copy)]
struct Timing {
    wall: f64,
    cpu: f64,
}

/// Seconds in the `times` builtin's form, `1m2.5s`.
fn parse_times(t: &str) -> Option<f64> {
    let (m, s) = t.strip_suffix('s')?.split_once('m')?;
    Some(m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?)
}

/// Builds the crate in `dir` from clean with the clock running, then runs it once. The build
/// runs under `sh`, whose `times` gives the CPU time of its children (cargo and every rustc):
/// on a shared machine, a steadier figure than the wall time.
fn timed_build(dir: &Path, jobs: Option<usize>) -> anyhow::Result<(Timing, String)> {
    run(cargo_in(dir).args(["fetch", "--quiet"]))?;
    let _ = std::fs::remove_dir_all(dir.join("target"));
    let mut c = Command::new("sh");
    c.current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_PROFILE_RELEASE_DEBUG")
        .env_remove("CARGO_BUILD_JOBS")
        .args([
            "-c",
            "\"$@\" && times",
            "sh",
            &crate::scratch::cargo(),
            "build",
            "--release",
            "--quiet",
        ]);
    if let Some(j) = jobs {
        c.arg("-j").arg(j.to_string());
    }
    let t = Instant::now();
    let out = run(&mut c)?;
    let wall = t.elapsed().as_secs_f64();
    // `times`: the shell's user and system time, then its children's.
    let cpu = out
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().map(parse_times).sum::<Option<f64>>())
        .with_context(|| format!("reading `times` output {out:?}"))?;
    let out = run(cargo_in(dir).args(["run", "--release", "--quiet"]))?;
    Ok((Timing { wall, cpu }, out.trim().to_owned()))
}

/// Runs the measurement and prints both times and their ratio.
pub fn run_task(opts: &Options) -> anyhow::Result<bool> {
    let root = crate::codegen::root();
    let scratch = std::env::temp_dir().join(format!("kwire-build-cost-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let theirs = scratch.join("kafka-protocol-user");
    let ours = scratch.join("kwire-user");
    // kafka-protocol's crate first (resolved and downloaded), to read its list of messages.
    let kp_dep = "kafka-protocol = { version = \"=0.18.0\", default-features = false, features = [\"client\", \"broker\"] }\n\
                  bytes = \"1\"\n";
    write_crate(&theirs, "kafka-protocol-user", kp_dep, "fn main() {}\n")?;
    run(cargo_in(&theirs).args(["fetch", "--quiet"]))?;
    let kp_names = kafka_protocol_messages(&package_src(&theirs, "kafka-protocol")?)?;
    let kw_names = kwire_messages(&root.join("schemas"))?;
    // APIs both define, request and response.
    let apis: Vec<String> = kw_names
        .iter()
        .filter_map(|n| n.strip_suffix("Request"))
        .filter(|a| {
            [format!("{a}Request"), format!("{a}Response")]
                .iter()
                .all(|m| kw_names.contains(m) && kp_names.contains(m))
        })
        .map(str::to_owned)
        .collect();
    let only_kwire = kw_names
        .iter()
        .filter_map(|n| n.strip_suffix("Request"))
        .filter(|a| !apis.iter().any(|x| x == a))
        .count();
    let messages: Vec<String> = apis
        .iter()
        .flat_map(|a| {
            let mut m = vec![format!("{a}Request")];
            if !opts.requests_only {
                m.push(format!("{a}Response"));
            }
            m
        })
        .collect();
    let kw_calls: Vec<String> = messages
        .iter()
        .map(|m| format!("round_trip::<generated::{m}>"))
        .collect();
    let kp_calls: Vec<String> = messages
        .iter()
        .map(|m| format!("round_trip::<messages::{m}>"))
        .collect();
    write_crate(
        &theirs,
        "kafka-protocol-user",
        kp_dep,
        &program(
            "use bytes::BytesMut;\nuse kafka_protocol::messages;\nuse kafka_protocol::protocol::{Decodable, Encodable, Message};\n",
            KAFKA_PROTOCOL_HELPER,
            &kp_calls,
        ),
    )?;
    let features: &[&str] = if opts.views { &["view"] } else { &[] };
    let kw_dep = crate::scratch::kwire_protocol_dependency(&root, features);
    write_crate(
        &ours,
        "kwire-user",
        &kw_dep,
        &program(
            "use kwire_protocol::bytes::BytesMut;\nuse kwire_protocol::generated;\nuse kwire_protocol::wire::{Encode, Message};\n",
            KWIRE_HELPER,
            &kw_calls,
        ),
    )?;
    println!(
        "build-cost: {} APIs in both ({only_kwire} only in kwire's schemas/), {} messages per binary, jobs {}",
        apis.len(),
        messages.len(),
        opts.jobs.map_or_else(|| "default".to_owned(), |j| j.to_string())
    );
    let runs = opts.runs.max(1);
    let (mut wa, mut wb, mut ca, mut cb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 1..=runs {
        let (a, a_run) = timed_build(&ours, opts.jobs)?;
        println!(
            "build-cost: run {i}: kwire-protocol (path, no default features, views {}): {:.1} s wall, {:.1} s CPU; program: {a_run}",
            if opts.views { "on" } else { "off" },
            a.wall,
            a.cpu
        );
        let (b, b_run) = timed_build(&theirs, opts.jobs)?;
        println!(
            "build-cost: run {i}: kafka-protocol 0.18.0 (client, broker): {:.1} s wall, {:.1} s CPU; program: {b_run}",
            b.wall, b.cpu
        );
        wa.push(a.wall);
        wb.push(b.wall);
        ca.push(a.cpu);
        cb.push(b.cpu);
    }
    let (a, b, c, d) = (
        median(&mut wa),
        median(&mut wb),
        median(&mut ca),
        median(&mut cb),
    );
    println!(
        "build-cost: {} of {runs} run(s): kwire {a:.1} s wall ({c:.1} s CPU), kafka-protocol {b:.1} s wall ({d:.1} s CPU); \
         ratio kwire/kafka-protocol {:.2} wall, {:.2} CPU",
        if runs > 1 { "median" } else { "one" },
        a / b,
        c / d
    );
    if opts.keep {
        println!("build-cost: crates kept in {}", scratch.display());
    } else {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    Ok(a <= b)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
