//! Writes the seed corpus of the `records` fuzz target: record sets built with kwire's
//! `BatchBuilder`, per codec (`kwire_fuzz::records::seeds`), into `corpus/records` (or the
//! directory given).
//!
//! `cargo run --bin seed_records [OUT_DIR]`

use std::path::PathBuf;

fn main() {
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("corpus")
                .join("records")
        });
    std::fs::create_dir_all(&out).expect("corpus dir");
    let seeds = kwire_fuzz::records::seeds();
    for (name, bytes) in &seeds {
        std::fs::write(out.join(name), bytes).expect("writing a seed");
    }
    println!("{} record-set seeds in {}", seeds.len(), out.display());
}
