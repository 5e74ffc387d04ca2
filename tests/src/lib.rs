//! Shared helpers for kwire's integration tests: where the shared material is, hex.

use std::path::PathBuf;

/// Kafka 3.9.0's own client messages (all 190 specs of `kafka-specs/3.9.0/clients`), compiled by
/// tests/build.rs with the Builder (samples, JSON form and borrowed views on), for the cross-check,
/// JSON round-trips and benchmarks. Present when the shared material was found at build time.
#[cfg(kwire_kafka390)]
#[allow(missing_docs)]
pub mod kafka390 {
    include!(concat!(env!("OUT_DIR"), "/kafka390.rs"));
}

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The shared material: `$KWIRE_SHARED`, else `<workspace root>/../shared`. `None` (after a
/// visible message) when it is absent and `CI` is not `true`; with `CI=true` its absence panics.
pub fn shared() -> Option<PathBuf> {
    let p = std::env::var_os("KWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("..").join("shared"));
    if p.join("kafka-specs").is_dir() {
        return Some(p);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("shared material not found at {} (set KWIRE_SHARED); CI=true makes this a failure", p.display());
    }
    eprintln!("SKIPPED: shared material not found at {} (set KWIRE_SHARED)", p.display());
    None
}

/// Lower-case hex of bytes.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Bytes from hex (whitespace and `_` ignored).
///
/// # Panics
/// On characters that are not hex digits (test input is ours).
pub fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace() && *c != '_').collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}
