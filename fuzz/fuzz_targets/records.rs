//! Any bytes as a record set: the borrowed walk (with decompression into one reused buffer) and
//! the owned decode (decompression limit 1 MiB) must not panic; an owned batch re-encoded
//! uncompressed decodes back to the same records (`kwire_fuzz::records`).
//!
//! `cargo +nightly fuzz run records -- -max_total_time=300 -malloc_limit_mb=64 -jobs=1`

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kwire_fuzz::records::records(data);
});
