//! Exercises `kwire_codegen::Builder` the way a user's build script would: the specs of
//! `schemas/` in, `$OUT_DIR/kwire.rs` out (included by tests/builder.rs).

fn main() {
    kwire_codegen::Builder::new().compile_dir("../schemas").expect("schemas/ compiles");
}
