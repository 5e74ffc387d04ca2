//! kwire's project tasks.
//!
//! * `cargo xtask codegen [--check]`: regenerates `protocol/src/generated/` from `schemas/`;
//!   `--check` changes nothing and exits 1 when the committed code is stale.
//! * `cargo xtask corpus DIR`: one Builder run per spec folder under DIR, each compiled in its own
//!   scratch crate with `-D warnings`, then round-trip samples of every message at every valid
//!   version. Ends with `corpus: S specs, G generated, C compiled, R round-trips, F failures`.
//! * `cargo xtask build-time SHARED`: release build time of the crate kwire generates for
//!   Kafka's API specs beside kafka-protocol 0.15.1's.
//! * `cargo xtask modgraph [--edges] [WORKSPACE]`: lists every pair of modules of `codegen/src`
//!   and `protocol/src` that import each other (and group-type modules that reach up to the
//!   coordinator facade); exits 1 if there is one. `--edges` lists every edge first. Also run by
//!   `cargo test` (`xtask/tests/modgraph.rs`).

use xtask::{codegen, corpus};

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["codegen"] => codegen::run(false),
        ["codegen", "--check"] => codegen::run(true),
        ["corpus", dir] => corpus::run(std::path::Path::new(dir), &corpus::Options::default()),
        ["modgraph", rest @ ..] if rest.len() <= 2 => {
            let edges = rest.contains(&"--edges");
            let dir = rest.iter().find(|a| **a != "--edges").map(std::path::Path::new);
            xtask::modgraph::run(edges, dir)
        }
        ["build-time", shared] => xtask::build_time::run(std::path::Path::new(shared)),
        ["corpus", dir, "--keep"] => corpus::run(std::path::Path::new(dir), &corpus::Options { keep: true }),
        _ => {
            eprintln!("usage: cargo xtask codegen [--check]\n       cargo xtask corpus DIR [--keep]\n       cargo xtask modgraph [--edges] [WORKSPACE]\n       cargo xtask build-time SHARED");
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
