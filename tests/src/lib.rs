//! Shared helpers for kwire's integration tests: where the shared material is, hex.

use std::path::PathBuf;

/// Kafka 3.9.0's own client messages (all 190 specs of `kafka-specs/3.9.0/clients`), compiled by
/// tests/build.rs with the Builder (samples, JSON form and borrowed views on), for the cross-check,
/// JSON round-trips and views. Present when the shared material was found at build
/// time (`cfg(kwire_shared)`).
#[cfg(kwire_shared)]
#[allow(missing_docs)]
pub mod kafka390 {
    include!(concat!(env!("OUT_DIR"), "/kafka390.rs"));
}

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The shared material tests/build.rs found (`$KWIRE_SHARED`, else `<workspace root>/../shared`):
/// Kafka's spec files under `kafka-specs/<version>/`, golden frames under `golden/`.
#[cfg(kwire_shared)]
pub fn shared() -> PathBuf {
    PathBuf::from(env!("KWIRE_SHARED_DIR"))
}

/// The shared material, which tests/build.rs did not find (`cfg(kwire_shared)` is off).
///
/// # Panics
/// Always: the tests that call it are compiled `#[ignore]`d, so only `--ignored` reaches this.
#[cfg(not(kwire_shared))]
pub fn shared() -> PathBuf {
    panic!("the shared material was not found when tests/build.rs ran: put it at ../shared or set KWIRE_SHARED, then rebuild")
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
    let s: String = s
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}
