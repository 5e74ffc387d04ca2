//! Decides, when the crate is built, whether the real-client tests (tests/librdkafka.rs) can run:
//! they build a Python virtual environment, so they need a `python3` (or `$KWIRE_PYTHON`) that
//! has the `venv` and `ensurepip` modules. With it, or with `CI=true` (where a missing Python must
//! fail the test rather than hide it), this sets `cfg(kwire_python)`; without it the test is
//! compiled `#[ignore]`d and libtest lists it as ignored, with the reason.

use std::process::{Command, Stdio};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kwire_python)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=KWIRE_PYTHON");
    println!("cargo:rerun-if-env-changed=CI");
    let python = std::env::var_os("KWIRE_PYTHON").unwrap_or_else(|| "python3".into());
    let found = Command::new(&python)
        .args(["-c", "import venv, ensurepip"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found || std::env::var("CI").as_deref() == Ok("true") {
        println!("cargo:rustc-cfg=kwire_python");
    }
}
