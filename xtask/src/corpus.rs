//! `cargo xtask corpus DIR`: compile every spec folder under DIR with the Builder into its own
//! scratch crate, build it with `-D warnings`, and round-trip samples of every message at every
//! valid version.

use anyhow::Context;
use kwire_codegen::rust::names;
use kwire_codegen::{check_files, render, source, Builder};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Options of a corpus run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Keep going quietly about scratch crates (they are always kept under target/ for a look).
    pub keep: bool,
}

/// The figures a corpus run ends with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Spec files found.
    pub specs: usize,
    /// Spec files generated (in folders whose Builder run succeeded).
    pub generated: usize,
    /// Spec files in scratch crates that compiled.
    pub compiled: usize,
    /// Round-trip checks passed.
    pub round_trips: u64,
    /// Failed spec files plus failed checks.
    pub failures: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "corpus: {} specs, {} generated, {} compiled, {} round-trips, {} failures",
            self.specs, self.generated, self.compiled, self.round_trips, self.failures
        )
    }
}

/// Random samples per (message, version), besides one `Full` (every field non-default) and one
/// `Nulls` (every nullable field null) sample.
pub const RANDOM_SAMPLES: u64 = 13;

/// Runs the corpus over `dir` and prints the summary line; `Ok(true)` when nothing failed.
pub fn run(dir: &Path, opts: &Options) -> anyhow::Result<bool> {
    let s = corpus(dir, opts)?;
    println!("{s}");
    Ok(s.failures == 0 && s.specs > 0)
}

/// Runs the corpus over `dir` and returns its figures.
pub fn corpus(dir: &Path, _opts: &Options) -> anyhow::Result<Summary> {
    let root = crate::codegen::root();
    let scratch = root.join("target").join("kwire-corpus");
    std::fs::create_dir_all(&scratch)?;
    let mut sum = Summary::default();
    let folders = source::spec_folders(dir).with_context(|| format!("reading {}", dir.display()))?;
    if folders.is_empty() {
        anyhow::bail!("no *.json spec files at or under {}", dir.display());
    }
    for folder in folders {
        let files = source::read_dir(&folder)?;
        let n = files.len();
        sum.specs += n;
        let rel = folder.strip_prefix(dir).unwrap_or(&folder).to_string_lossy().replace(['/', '\\'], "-");
        let rel = if rel.is_empty() {
            folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".into())
        } else {
            rel
        };
        let unit = names::snake(&rel).replace('-', "_");
        let checked = check_files(files.clone());
        if checked.error_count() > 0 {
            eprint!("{}", render::render_all(&checked, false));
            eprintln!("corpus: {}: {} of {n} specs have errors", folder.display(), n - checked.specs.len());
            sum.failures += (n - checked.specs.len()) as u64;
            continue;
        }
        let crate_dir = scratch.join(&unit);
        std::fs::create_dir_all(crate_dir.join("src"))?;
        Builder::new()
            .samples(true)
            .views(true)
            .out_dir(crate_dir.join("src"))
            .file_name("lib.rs")
            .compile_files(files)
            .with_context(|| format!("generating {}", folder.display()))?;
        sum.generated += n;
        write_if_changed(&crate_dir.join("Cargo.toml"), &manifest(&unit, &root))?;
        // Pin the scratch crate's dependencies to the workspace's lock file.
        if !crate_dir.join("Cargo.lock").exists() {
            if let Ok(lock) = std::fs::read_to_string(root.join("Cargo.lock")) {
                std::fs::write(crate_dir.join("Cargo.lock"), lock)?;
            }
        }
        write_if_changed(&crate_dir.join("src").join("main.rs"), &runner(&unit, &checked.specs))?;
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--quiet", "--manifest-path"])
            .arg(crate_dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", scratch.join("target"))
            .env("RUSTFLAGS", "-D warnings")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .status()
            .context("running cargo build")?;
        if !status.success() {
            eprintln!("corpus: {}: scratch crate {} failed to compile", folder.display(), crate_dir.display());
            sum.failures += n as u64;
            continue;
        }
        sum.compiled += n;
        let bin = scratch.join("target").join("debug").join(format!("corpus-{}", unit.replace('_', "-")));
        let out = Command::new(&bin).output().with_context(|| format!("running {}", bin.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        let (passed, failed) = stdout
            .lines()
            .rev()
            .find_map(|l| {
                let l = l.strip_prefix("round-trips: ")?;
                let (p, f) = l.split_once(" passed, ")?;
                Some((p.parse::<u64>().ok()?, f.strip_suffix(" failed")?.parse::<u64>().ok()?))
            })
            .unwrap_or((0, 1));
        eprintln!("corpus: {}: {n} specs, {passed} round-trips, {failed} failed", folder.display());
        sum.round_trips += passed;
        sum.failures += failed;
        if !out.status.success() && failed == 0 {
            sum.failures += 1;
        }
    }
    Ok(sum)
}

fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text)?;
    }
    Ok(())
}

fn manifest(unit: &str, root: &Path) -> String {
    let name = format!("corpus-{}", unit.replace('_', "-"));
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [lib]\npath = \"src/lib.rs\"\n\n[[bin]]\nname = \"{name}\"\npath = \"src/main.rs\"\n\n\
         [dependencies]\nkwire-protocol = {{ path = {:?}, default-features = false, features = [\"sample\"] }}\n\n\
         [workspace]\n",
        root.join("protocol").display().to_string()
    )
}

/// Checks of Kafka's hard-coded header special cases, for a folder that has the APIs and headers
/// (kafka-spec-reference.md section 5). A failure counts as a failed check.
fn special_cases(krate: &str, specs: &[kwire_codegen::ir::Spec]) -> String {
    let has = |name: &str| specs.iter().any(|s| s.name == name);
    if !(has("RequestHeader") && has("ResponseHeader")) {
        return String::new();
    }
    let mut s = String::new();
    if has("ControlledShutdownRequest") {
        // ControlledShutdown v0 requests use request header v0: key, version, correlation id,
        // and no client id (the ignorable ClientId is dropped), then the int32 broker id.
        let _ = writeln!(
            s,
            "    {{\n        \
             let key = {krate}::api::ApiKey::ControlledShutdown;\n        \
             let hv: Vec<i16> = (0..=3).map(|v| key.request_header_version(v)).collect();\n        \
             let body = {krate}::controlled_shutdown_request::ControlledShutdownRequest {{ broker_id: 258, ..Default::default() }};\n        \
             let frame = {krate}::api::RequestFrame::new(body, 0, 42, Some(\"dropped\"));\n        \
             let bytes = frame.to_bytes().expect(\"encode\");\n        \
             let back = {krate}::api::RequestFrame::decode(bytes.clone()).expect(\"decode\");\n        \
             let ok = hv == [0, 1, 1, 2] && &bytes[..] == [0, 7, 0, 0, 0, 0, 0, 42, 0, 0, 1, 2] && back.body == frame.body;\n        \
             println!(\"special case: ControlledShutdown v0 request header v0: {{}}\", if ok {{ \"ok\" }} else {{ \"FAILED\" }});\n        \
             if !ok {{ failed += 1; eprintln!(\"FAIL ControlledShutdown header versions {{hv:?}}, bytes {{bytes:?}}\"); }}\n    \
             }}"
        );
    }
    if has("ApiVersionsResponse") {
        // ApiVersions responses always use response header v0 (KIP-511): at v3 (flexible) the
        // correlation id is followed directly by the body, with no tagged-field byte.
        let _ = writeln!(
            s,
            "    {{\n        \
             let key = {krate}::api::ApiKey::ApiVersions;\n        \
             let hv: Vec<i16> = (0..=3).map(|v| key.response_header_version(v)).collect();\n        \
             let frame = {krate}::api::ResponseFrame::new({krate}::api_versions_response::ApiVersionsResponse::default(), 5);\n        \
             let bytes = frame.to_bytes(3).expect(\"encode\");\n        \
             let ok = hv == [0, 0, 0, 0] && bytes[..6] == [0, 0, 0, 5, 0, 0];\n        \
             println!(\"special case: ApiVersions response header v0: {{}}\", if ok {{ \"ok\" }} else {{ \"FAILED\" }});\n        \
             if !ok {{ failed += 1; eprintln!(\"FAIL ApiVersions header versions {{hv:?}}, bytes {{bytes:?}}\"); }}\n    \
             }}"
        );
    }
    s
}

fn runner(unit: &str, specs: &[kwire_codegen::ir::Spec]) -> String {
    let krate = format!("corpus_{unit}");
    let mut s = String::new();
    s.push_str("//! Round-trips samples of every message of this spec folder at every valid version.\n\n");
    s.push_str("use kwire_protocol::wire::sample::{check_roundtrip, Sample, SampleGen, SampleMode};\nuse kwire_protocol::wire::{DecodeError, Message};\n\n");
    let _ = writeln!(
        s,
        "/// Checks samples of `T` at every valid version: the runtime contract (check_roundtrip), then\n\
         /// that the borrowed view of the same bytes reads the same value as owned decoding.\n\
         fn run<T: Message + Sample>(view: impl Fn(&[u8], i16) -> Result<T, DecodeError>, passed: &mut u64, failed: &mut u64) {{\n    \
         let v = T::VALID_VERSIONS;\n    \
         for version in v.lowest..=v.highest {{\n        \
         let mut samples = vec![(SampleMode::Full, 0u64), (SampleMode::Full, 1), (SampleMode::Nulls, 0)];\n        \
         samples.extend((0..{RANDOM_SAMPLES}u64).map(|s| (SampleMode::Random, s)));\n        \
         for (mode, seed) in samples {{\n            \
         let viewed = || -> Result<(), String> {{\n                \
         let bytes = T::sample(&mut SampleGen::new(seed, mode), version).to_bytes(version).map_err(|e| e.to_string())?;\n                \
         let owned = T::decode_bytes(bytes.clone(), version).map_err(|e| e.to_string())?;\n                \
         let seen = view(&bytes, version).map_err(|e| format!(\"view: {{e}}\"))?;\n                \
         if seen == owned {{ Ok(()) }} else {{ Err(format!(\"view reads {{seen:?}}, owned decoding {{owned:?}}\")) }}\n            \
         }};\n            \
         match check_roundtrip::<T>(version, seed, mode).and_then(|()| viewed()) {{\n                \
         Ok(()) => *passed += 1,\n                \
         Err(e) => {{\n                    \
         *failed += 1;\n                    \
         eprintln!(\"FAIL {{}} v{{version}} {{mode:?}} seed {{seed}}: {{e}}\", T::NAME);\n                \
         }}\n            }}\n        }}\n    }}\n}}\n"
    );
    s.push_str("\nfn main() {\n    let (mut passed, mut failed) = (0u64, 0u64);\n");
    let mut sorted: Vec<_> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    for spec in sorted {
        let _ = writeln!(
            s,
            "    run::<{krate}::{m}::{t}>(|b, v| {krate}::{m}::{t}Ref::parse(b, v).map(|r| r.to_owned()), &mut passed, &mut failed);",
            m = names::module_ident(&spec.name),
            t = names::type_ident(&spec.name).to_string().trim_start_matches("r#"),
        );
    }
    s.push_str(&special_cases(&krate, specs));
    s.push_str("    println!(\"round-trips: {passed} passed, {failed} failed\");\n    if failed > 0 {\n        std::process::exit(1);\n    }\n}\n");
    s
}
