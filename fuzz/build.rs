//! Lists every message of the protocol crate's generated code, so that the fuzz target and the
//! seed tool cover each spec of `schemas/` without a hand-kept list.
//!
//! The list is read from `../protocol/src/generated/mod.rs`, which kwire-codegen writes with one
//! `pub use module::Type;` line per spec (requests, responses, headers and kwire's records alike).
//! It is written to `$OUT_DIR/messages.rs` as `messages!(module_a::TypeA / TypeARef, …);` (each
//! message with its borrowed view, which kwire-codegen names `<Type>Ref` in the same module), a
//! call of the macro in `src/lib.rs` that turns it into the table `MESSAGES`.

use std::path::PathBuf;

fn main() {
    let generated = "../protocol/src/generated/mod.rs";
    println!("cargo:rerun-if-changed={generated}");
    let text =
        std::fs::read_to_string(generated).unwrap_or_else(|e| panic!("reading {generated}: {e}"));
    let types: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub use ")?.strip_suffix(';'))
        .filter(|p| !p.ends_with("::*"))
        .filter_map(|p| p.rsplit_once("::"))
        .map(|(module, ty)| format!("{module}::{ty} / {ty}Ref"))
        .collect();
    assert!(
        !types.is_empty(),
        "{generated} re-exports no message (`pub use module::Type;`)"
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("messages.rs");
    std::fs::write(&out, format!("messages!({});\n", types.join(", ")))
        .unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}
