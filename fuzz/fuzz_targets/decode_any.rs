//! Any bytes, to any decoder of kwire: a 4-byte selector picks what to decode (see
//! `kwire_fuzz`), the rest is the input. Decoders must not panic; whatever decodes must re-encode
//! canonically and decode back to the same value.
//!
//! `cargo +nightly fuzz run decode_any -- -max_total_time=600 -jobs=1`

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kwire_fuzz::decode_any(data);
});
