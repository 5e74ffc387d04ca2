//! kwire's project tasks.
//!
//! * `cargo xtask codegen [--check] [--baseline REV] [--allow-breaking]`: first compares
//!   `schemas/` with its committed version (git `HEAD`, or REV) and exits 1 on a change that breaks
//!   a version already on the wire (`kwire diff`'s breaking findings, printed) unless
//!   `--allow-breaking`; then regenerates `protocol/src/generated/` from `schemas/`; `--check`
//!   changes nothing and exits 1 when the committed code is stale.
//! * `cargo xtask corpus DIR [--keep]`: one Builder run per spec folder under DIR (or per
//!   `common/message` folder of a Kafka source checkout), each compiled in its own scratch crate
//!   with `-D warnings`, then round-trip samples of every message at every valid version. Ends
//!   with `corpus: S specs, G generated, C compiled, R round-trips, F failures`.
//! * `cargo xtask build-time SHARED`: release build time of the crate kwire generates for
//!   Kafka's API specs beside kafka-protocol 0.15.1's.
//! * `cargo xtask build-cost [--jobs N] [--runs N] [--views] [--requests-only] [--keep]`: clean
//!   release build time of a small binary that decodes and encodes one message of every API, on
//!   kwire and on kafka-protocol 0.18.0 (exits 1 when kwire's is longer).
//! * `cargo xtask arch [--edges] [--lengths] [WORKSPACE]`: checks every crate of the workspace
//!   (and the harness crates outside it) against the rules of ARCHITECTURE.md: no import cycles
//!   of any length, no upward edge between the declared layers, the sibling and facade rules,
//!   the function and file length limits; exits 1 when anything is reported. `--edges` lists
//!   every edge first, `--lengths` adds the workspace's longest functions and files. Also run by
//!   `cargo test` (`xtask/tests/arch.rs`).
//!
//! `cargo xtask help [COMMAND]`, `cargo xtask --help` and `cargo xtask COMMAND --help` print help.

use xtask::{codegen, corpus};

use std::io::Write as _;
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask codegen [--check] [--baseline REV] [--allow-breaking]
       cargo xtask corpus DIR [--keep]
       cargo xtask arch [--edges] [--lengths] [WORKSPACE]
       cargo xtask build-time SHARED
       cargo xtask build-cost [--jobs N] [--runs N] [--views] [--requests-only] [--keep]
       cargo xtask help [COMMAND]";

const HELP: &str = "\
kwire's project tasks.

Commands:
  codegen [--check] [--baseline REV] [--allow-breaking]
                       refuse a wire-breaking edit of schemas/ (against git HEAD or REV), then
                       regenerate protocol/src/generated/ from it (--check: exit 1 if stale)
  corpus DIR [--keep]  compile and round-trip every spec folder under DIR (a Kafka checkout too)
  arch [--edges] [--lengths] [WORKSPACE]
                       check the crates against ARCHITECTURE.md: cycles, layers, rules, lengths
  build-time SHARED    time the release build of kwire's generated crate against kafka-protocol's
  build-cost [--jobs N] [--runs N] [--views] [--requests-only] [--keep]
                       time the clean release build of an all-APIs binary on kwire and on
                       kafka-protocol 0.18.0
  help [COMMAND]       print this help, or a command's

Run `cargo xtask COMMAND --help` for a command's options.";

const CODEGEN_HELP: &str = "\
usage: cargo xtask codegen [--check] [--baseline REV] [--allow-breaking]

Regenerates protocol/src/generated/ from the spec files in schemas/ (the committed generated code
of kwire-protocol).

First, the wire-compatibility gate: schemas/ is compared with schemas/ as of git HEAD (or REV), as
`kwire diff` compares two folders. A breaking change (the bytes of a version both sides have
differ, or a version or message is gone) prints the findings and exits 1. Outside a git repository,
or when the revision has no schemas/, the gate is skipped with a printed line.

Options:
  --check           change nothing; exit 1 and name the stale files when the committed code
                    differs from what schemas/ generates
  --baseline REV    compare schemas/ with REV instead of HEAD (a commit, branch or tag)
  --allow-breaking  print breaking findings but go on";

const CORPUS_HELP: &str = "\
usage: cargo xtask corpus DIR [--keep]

Compiles Kafka's spec files with kwire's Builder, one unit per spec folder, each into a scratch
crate under target/kwire-corpus/ built with -D warnings, then round-trips samples of every message
at every valid version (owned decoding and borrowed views). Ends with one line:
  corpus: S specs, G generated, C compiled, R round-trips, F failures
and exits 1 when anything failed.

DIR is one of:
  * a Kafka source checkout (git clone https://github.com/apache/kafka): every
    <module>/src/main/resources/common/message folder (and metadata's common/metadata) is one
    unit, as in Kafka's own build; other JSON files in the checkout are ignored;
  * one spec folder, e.g. a checkout's clients/src/main/resources/common/message;
  * a folder of spec folders, e.g. the shared material's kafka-specs/3.9.0
    ($KWIRE_SHARED/kafka-specs/3.9.0, else ../shared/kafka-specs/3.9.0 beside this checkout).

Options:
  --keep  accepted for older scripts; the scratch crates are always kept under
          target/kwire-corpus/ (later runs rebuild only what changed)";

const BUILD_TIME_HELP: &str = "\
usage: cargo xtask build-time SHARED

Times a release build of the crate kwire generates for Kafka's API specs (from the shared
material at SHARED) against kafka-protocol 0.15.1's, and prints both times and their ratio.";

const BUILD_COST_HELP: &str = "\
usage: cargo xtask build-cost [--jobs N] [--runs N] [--views] [--requests-only] [--keep]

Writes two small binary crates to a temporary folder, each decoding and encoding one message of
every API that both kwire's schemas/ and kafka-protocol 0.18.0 define (request and response), one
on kwire-protocol (path dependency, no default features: no coordinator, json, sample or view),
one on kafka-protocol 0.18.0 (features client and broker, no compression). Builds each from clean
with `cargo build --release` (dependencies downloaded first, not timed), runs it once, and prints
both wall times and their ratio. Exits 1 when kwire's build is the longer (the medians, with
--runs).

Options:
  --jobs N         build with `-j N` (default: cargo's, the CPU count)
  --runs N         build each crate N times, alternately, and compare the medians (default 1)
  --views          compile kwire's borrowed views too (feature `view`)
  --requests-only  only the request of each API
  --keep           keep the temporary crates (their folder is printed)";

const ARCH_HELP: &str = "\
usage: cargo xtask arch [--edges] [--lengths] [WORKSPACE]

Reads every package of the workspace (members, and the harness crates its root manifest
excludes: fuzz/, benches/, tests/confluent-rust/) with all their targets, builds the module graph
of each, and checks it against the rules in the ```arch blocks of ARCHITECTURE.md:
  * import cycles of any length (one chain per strongly connected component);
  * upward edges between the declared layers of crates and of folders;
  * independent siblings that import each other, forbidden imports (the coordinator's facade);
  * production functions and non-test files over the declared line limits.
Prints the violations, then one summary line; exits 1 when anything is reported, 2 when a rule
does not parse or names a module that does not exist. Also run by `cargo test`
(xtask/tests/arch.rs).

Options:
  --edges    list every import edge first (module-level, then crate-level)
  --lengths  also list the workspace's longest production functions and non-test files
  WORKSPACE  the workspace root to read (default: this checkout)";

/// Prints help text on standard output; a reader that went away (`| head`) is not an error.
fn say(text: &str) {
    let _ = writeln!(std::io::stdout(), "{text}");
}

fn help_of(command: &str) -> Option<&'static str> {
    match command {
        "codegen" => Some(CODEGEN_HELP),
        "corpus" => Some(CORPUS_HELP),
        "build-time" => Some(BUILD_TIME_HELP),
        "arch" => Some(ARCH_HELP),
        "build-cost" => Some(BUILD_COST_HELP),
        _ => None,
    }
}

/// The options of `arch`: `--edges`, `--lengths`, at most one workspace folder; `None` on an
/// unknown option.
fn arch_options<'a>(args: &[&'a str]) -> Option<(bool, bool, Option<&'a std::path::Path>)> {
    let (mut edges, mut lengths, mut dir) = (false, false, None);
    for a in args {
        match *a {
            "--edges" => edges = true,
            "--lengths" => lengths = true,
            _ if a.starts_with('-') || dir.is_some() => return None,
            _ => dir = Some(std::path::Path::new(*a)),
        }
    }
    Some((edges, lengths, dir))
}

/// The options of `build-cost`; `None` on an unknown or malformed one.
fn build_cost_options(args: &[&str]) -> Option<xtask::build_cost::Options> {
    let mut o = xtask::build_cost::Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "--jobs" => o.jobs = Some(it.next()?.parse().ok().filter(|j| *j > 0)?),
            "--requests-only" => o.requests_only = true,
            "--keep" => o.keep = true,
            "--views" => o.views = true,
            "--runs" => o.runs = it.next()?.parse().ok().filter(|r| *r > 0)?,
            _ => return None,
        }
    }
    Some(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let is_help = |a: &&str| matches!(*a, "--help" | "-h");
    if args.is_empty() || matches!(args.as_slice(), ["help"]) || args.first().is_some_and(is_help) {
        say(HELP);
        return if args.is_empty() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    if let ["help", command] | [command, ..] = args.as_slice() {
        if args[0] == "help" || args.iter().any(is_help) {
            return match help_of(command) {
                Some(h) => {
                    say(h);
                    ExitCode::SUCCESS
                }
                None => {
                    eprintln!("xtask: no command `{command}`\n{USAGE}");
                    ExitCode::from(2)
                }
            };
        }
    }
    let result = match args.as_slice() {
        ["codegen", rest @ ..] => match codegen::CodegenOptions::parse(rest) {
            Some(o) => codegen::run(&o),
            None => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        },
        ["corpus", dir] => corpus::run(std::path::Path::new(dir), &corpus::Options::default()),
        ["arch", rest @ ..] => match arch_options(rest) {
            Some((edges, lengths, dir)) => xtask::arch::run(edges, lengths, dir),
            None => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        },
        ["corpus", dir, "--keep"] => {
            corpus::run(std::path::Path::new(dir), &corpus::Options { keep: true })
        }
        ["build-time", shared] => xtask::build_time::run(std::path::Path::new(shared)),
        ["build-cost", rest @ ..] => match build_cost_options(rest) {
            Some(o) => xtask::build_cost::run_task(&o),
            None => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::from(2)
        }
    }
}
