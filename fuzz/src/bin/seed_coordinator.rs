//! Writes the seed corpus of the `coordinator` fuzz target: short classic-group scenarios and
//! consumer-protocol bytes in the target's input layout (`kwire_fuzz::coordinator::seeds`), into
//! `corpus/coordinator` (or the directory given), and runs each through the target once.
//!
//! `cargo run --bin seed_coordinator [OUT_DIR]`; `cargo run --bin seed_coordinator -- --run FILE`
//! replays one input (set `KWIRE_FUZZ_TRACE=1` to print every answer and timer round).

use std::path::PathBuf;

fn main() {
    // `seed_coordinator --run FILE`: runs one input through the target (a finding's replay).
    let args: Vec<_> = std::env::args_os().collect();
    if args.len() == 3 && args[1] == "--run" {
        let data = std::fs::read(&args[2]).expect("reading the input");
        kwire_fuzz::coordinator::run(&data);
        println!("no finding");
        return;
    }
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("corpus")
                .join("coordinator")
        });
    std::fs::create_dir_all(&out).expect("corpus dir");
    let seeds = kwire_fuzz::coordinator::seeds();
    for (name, bytes) in &seeds {
        std::fs::write(out.join(name), bytes).expect("writing a seed");
        // Every seed must pass the target's checks before the fuzzer mutates it.
        kwire_fuzz::coordinator::run(bytes);
    }
    println!("{} coordinator seeds in {}", seeds.len(), out.display());
}
