//! `cargo xtask corpus DIR`: compile every spec folder under DIR with the Builder into its own
//! scratch crate, build it with `-D warnings`, and round-trip samples of every message at every
//! valid version.
//!
//! DIR is either a folder of spec folders (or one spec folder), such as the shared material's
//! `kafka-specs/3.9.0`, where every folder holding `*.json` files is one unit, or a Kafka source
//! checkout, where only the generator's input folders are units: every
//! `<module>/src/main/resources/common/message` (and the metadata module's `common/metadata`), as
//! Kafka's build runs its message generator once per such folder; other JSON files in the
//! checkout (build output, tooling, test data) are ignored.

use anyhow::Context;
use kwire_codegen::rust::names;
use kwire_codegen::{check_files, render, source, Builder};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
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
    for (rel, folder) in spec_units(dir)? {
        let files = source::read_dir(&folder)?;
        let n = files.len();
        sum.specs += n;
        let unit = names::snake(&rel).replace('-', "_");
        let checked = check_files(files.clone());
        if checked.error_count() > 0 {
            eprint!("{}", render::render_all(&checked, false));
            eprintln!(
                "corpus: {}: {} of {n} specs have errors",
                folder.display(),
                n - checked.specs.len()
            );
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
        write_if_changed(
            &crate_dir.join("src").join("main.rs"),
            &runner(&unit, &checked.specs),
        )?;
        let status = Command::new(crate::scratch::cargo())
            .args(["build", "--quiet", "--manifest-path"])
            .arg(crate_dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", scratch.join("target"))
            .env("RUSTFLAGS", "-D warnings")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .status()
            .context("running cargo build")?;
        if !status.success() {
            eprintln!(
                "corpus: {}: scratch crate {} failed to compile",
                folder.display(),
                crate_dir.display()
            );
            sum.failures += n as u64;
            continue;
        }
        sum.compiled += n;
        let bin = scratch
            .join("target")
            .join("debug")
            .join(format!("corpus-{}", unit.replace('_', "-")));
        let out = Command::new(&bin)
            .output()
            .with_context(|| format!("running {}", bin.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        let (passed, failed) = stdout
            .lines()
            .rev()
            .find_map(|l| {
                let l = l.strip_prefix("round-trips: ")?;
                let (p, f) = l.split_once(" passed, ")?;
                Some((
                    p.parse::<u64>().ok()?,
                    f.strip_suffix(" failed")?.parse::<u64>().ok()?,
                ))
            })
            .unwrap_or((0, 1));
        eprintln!(
            "corpus: {}: {n} specs, {passed} round-trips, {failed} failed",
            folder.display()
        );
        sum.round_trips += passed;
        sum.failures += failed;
        if !out.status.success() && failed == 0 {
            sum.failures += 1;
        }
    }
    Ok(sum)
}

/// Where to get Kafka's spec files, for error messages.
pub const WHERE_SPECS_ARE: &str = "Kafka's message specs come with Kafka's source \
    (git clone https://github.com/apache/kafka): pass the checkout, or one of its spec folders such \
    as clients/src/main/resources/common/message.\nKafka 3.9.0's specs are also in the shared \
    material: $KWIRE_SHARED/kafka-specs/3.9.0, else ../shared/kafka-specs/3.9.0 beside the checkout.";

/// The folders below a checkout's module root that Kafka's build feeds to its message generator.
const GENERATOR_INPUTS: [&str; 2] = ["message", "metadata"];

/// The units of a corpus run over `dir`, sorted: (name, spec folder). The name is the folder's
/// path below `dir` with `-` for the separators; in a Kafka checkout it is the module's path
/// (`clients`, `group-coordinator`, …).
///
/// # Errors
/// `dir` is not a folder, cannot be read, or holds no spec files (the messages say where to get
/// Kafka's specs).
pub fn spec_units(dir: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    if !dir.is_dir() {
        anyhow::bail!("{} is not a folder.\n{WHERE_SPECS_ARE}", dir.display());
    }
    let checkout = generator_folders(dir).with_context(|| format!("reading {}", dir.display()))?;
    let folders = if checkout.is_empty() {
        source::spec_folders(dir).with_context(|| format!("reading {}", dir.display()))?
    } else {
        checkout
    };
    if folders.is_empty() {
        anyhow::bail!(
            "no *.json spec files at or under {}.\n{WHERE_SPECS_ARE}",
            dir.display()
        );
    }
    Ok(folders
        .into_iter()
        .map(|folder| {
            // In a checkout, `<module>/src/main/resources/common/message` is named for its module.
            let module = folder
                .ancestors()
                .find(|a| a.ends_with("src/main/resources"))
                .and_then(|a| a.parent()?.parent()?.parent());
            let rel = module.unwrap_or(&folder);
            let rel = match rel.strip_prefix(dir) {
                Ok(r) if !r.as_os_str().is_empty() => r.to_path_buf(),
                _ => rel
                    .file_name()
                    .map_or_else(|| PathBuf::from("root"), PathBuf::from),
            };
            let name = rel.to_string_lossy().replace(['/', '\\'], "-");
            (name, folder)
        })
        .collect())
}

/// The `…/src/main/resources/common/{message,metadata}` folders at or under `dir` (a Kafka source
/// checkout), sorted; empty when `dir` is not one. Hidden folders and build output (`build`,
/// `target`, `out`, `bin`, `node_modules`) are not searched.
fn generator_folders(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if GENERATOR_INPUTS
            .iter()
            .any(|leaf| d.ends_with(Path::new("src/main/resources/common").join(leaf)))
        {
            out.push(d);
            continue;
        }
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let name = e.file_name();
            let name = name.to_string_lossy();
            let skip = name.starts_with('.')
                || ["build", "target", "out", "bin", "node_modules"].contains(&&*name);
            if !skip && e.file_type()?.is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text)?;
    }
    Ok(())
}

fn manifest(unit: &str, root: &Path) -> String {
    let name = format!("corpus-{}", unit.replace('_', "-"));
    let targets = format!(
        "[lib]\npath = \"src/lib.rs\"\n\n[[bin]]\nname = \"{name}\"\npath = \"src/main.rs\"\n\n"
    );
    crate::scratch::manifest(
        &name,
        &targets,
        &crate::scratch::kwire_protocol_dependency(root, &["sample"]),
    )
}

/// Checks of Kafka's hard-coded header special cases, for a folder that has the APIs and headers
/// (Kafka's `ApiKeys.requestHeaderVersion`/`responseHeaderVersion`: ControlledShutdown v0 requests
/// carry request header v0, ApiVersions responses response header v0 as KIP-511 has it). A failure
/// counts as a failed check.
fn special_cases(krate: &str, specs: &[kwire_codegen::ir::Spec]) -> String {
    let has = |name: &str| specs.iter().any(|s| s.name == name);
    if !(has("RequestHeader") && has("ResponseHeader")) {
        return String::new();
    }
    let mut s = String::new();
    // Only where the request still has version 0: since Kafka 4.0 the spec is a removed-API stub
    // (`"validVersions": "none"`, no fields), with nothing to encode.
    let controlled_shutdown_v0 = specs
        .iter()
        .any(|s| s.name == "ControlledShutdownRequest" && s.valid.contains(0));
    if controlled_shutdown_v0 {
        // ControlledShutdown v0 requests use request header v0: key, version, correlation id,
        // and no client id (the ignorable ClientId is dropped), then the int32 broker id.
        let _ = writeln!(
            s,
            "    {{\n        \
             let key = {krate}::api::ApiKey::ControlledShutdown;\n        \
             let hv: Vec<Option<i16>> = (0..=3).map(|v| key.request_header_version(v)).collect();\n        \
             let body = {krate}::controlled_shutdown_request::ControlledShutdownRequest {{ broker_id: 258, ..Default::default() }};\n        \
             let frame = {krate}::api::RequestFrame::new(body, 0, 42, Some(\"dropped\"));\n        \
             let bytes = frame.to_bytes().expect(\"encode\");\n        \
             let back = {krate}::api::RequestFrame::decode(bytes.clone()).expect(\"decode\");\n        \
             let ok = hv == [Some(0), Some(1), Some(1), Some(2)] && &bytes[..] == [0, 7, 0, 0, 0, 0, 0, 42, 0, 0, 1, 2] && back.body == frame.body;\n        \
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
             let hv: Vec<Option<i16>> = (0..=3).map(|v| key.response_header_version(v)).collect();\n        \
             let frame = {krate}::api::ResponseFrame::new({krate}::api_versions_response::ApiVersionsResponse::default(), 5);\n        \
             let bytes = frame.to_bytes(3).expect(\"encode\");\n        \
             let ok = hv == [Some(0); 4] && bytes[..6] == [0, 0, 0, 5, 0, 0];\n        \
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
    s.push_str(
        "//! Round-trips samples of every message of this spec folder at every valid version.\n\n",
    );
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
