//! Deterministic sample messages for round-trip checks (feature `sample`).
//!
//! Generated types implement [`Sample`] when their code is emitted with samples on
//! (`kwire_codegen::Builder::samples(true)`; `cargo xtask corpus` does this). A sample is valid
//! for the version it was made for: fields the version lacks hold their defaults, null appears
//! only where the version is nullable, strings stay under 32767 bytes.

use super::codec::Message;

use super::types::{KStr, RawTaggedField, UnknownTaggedFields, Uuid};
use bytes::Bytes;

/// What kind of sample to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleMode {
    /// Every field present in the version holds a non-default value (nullable ones non-null),
    /// arrays have 1 to 3 elements, flexible structs carry unknown tagged fields.
    Full,
    /// Every field that is nullable in the version is null; the rest as in `Random`.
    Nulls,
    /// Random values, lengths 0 to 3, nulls one time in four.
    Random,
}

/// A seeded generator of sample values (SplitMix64).
#[derive(Debug, Clone)]
pub struct SampleGen {
    state: u64,
    mode: SampleMode,
    depth: u32,
    max_depth: u32,
}

/// The struct nesting depth past which [`SampleGen::array_len`] gives empty arrays, unless
/// [`SampleGen::with_max_depth`] says otherwise.
pub const DEFAULT_MAX_DEPTH: u32 = 4;

/// Values a sample can hold.
pub trait SampleValue: Sized + PartialEq {
    /// Any value.
    fn random(g: &mut SampleGen) -> Self;
    /// A value different from `default`.
    fn other_than(g: &mut SampleGen, default: &Self) -> Self {
        for _ in 0..8 {
            let v = Self::random(g);
            if v != *default {
                return v;
            }
        }
        Self::fallback(default)
    }
    /// A deterministic value different from `default`.
    fn fallback(default: &Self) -> Self;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl SampleValue for $t {
            fn random(g: &mut SampleGen) -> Self {
                // Mix small values (varint and boundary friendly) with full-range ones.
                let r = g.next_u64();
                if r & 1 == 0 { ((r >> 8) % 5) as $t } else { (r >> 8) as $t }
            }
            fn fallback(d: &Self) -> Self { d.wrapping_add(1) }
        }
    )*};
}
ints!(i8, i16, u16, i32, u32, i64);

impl SampleValue for bool {
    fn random(g: &mut SampleGen) -> Self {
        g.next_u64() & 1 == 1
    }
    fn fallback(d: &Self) -> Self {
        !*d
    }
}

impl SampleValue for f64 {
    fn random(g: &mut SampleGen) -> Self {
        (g.next_u64() % 2_000_001) as f64 / 8.0 - 125_000.0
    }
    fn fallback(d: &Self) -> Self {
        if d.is_nan() {
            1.5
        } else {
            d + 1.0
        }
    }
}

impl SampleValue for Uuid {
    fn random(g: &mut SampleGen) -> Self {
        Uuid::from_u128(((g.next_u64() as u128) << 64) | g.next_u64() as u128)
    }
    fn fallback(d: &Self) -> Self {
        Uuid::from_u128(d.as_u128().wrapping_add(1))
    }
}

const WORDS: &[&str] = &["a", "topic", "é", "→", "kwire", "-", "0", "grp", "日本"];

impl SampleValue for KStr {
    fn random(g: &mut SampleGen) -> Self {
        let n = (g.next_u64() % 4) as usize;
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(WORDS[(g.next_u64() % WORDS.len() as u64) as usize]);
        }
        KStr::from(s)
    }
    fn fallback(d: &Self) -> Self {
        KStr::from(format!("{d}x"))
    }
}

impl SampleValue for Bytes {
    fn random(g: &mut SampleGen) -> Self {
        let n = (g.next_u64() % 6) as usize;
        (0..n)
            .map(|_| g.next_u64() as u8)
            .collect::<Vec<u8>>()
            .into()
    }
    fn fallback(d: &Self) -> Self {
        let mut v = d.to_vec();
        v.push(0xAB);
        v.into()
    }
}

impl SampleGen {
    /// A generator for `mode`, seeded.
    pub fn new(seed: u64, mode: SampleMode) -> Self {
        SampleGen {
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
            mode,
            depth: 0,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
    /// The same generator, with arrays filled down to struct nesting depth `depth` instead of
    /// [`DEFAULT_MAX_DEPTH`] (deeper arrays are empty). Samples grow with the depth: up to 3
    /// elements an array in [`SampleMode::Full`].
    pub fn with_max_depth(mut self, depth: u32) -> Self {
        self.max_depth = depth;
        self
    }
    /// The mode.
    pub fn mode(&self) -> SampleMode {
        self.mode
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Whether a field that is nullable in this version should be null.
    pub fn null(&mut self) -> bool {
        match self.mode {
            SampleMode::Full => false,
            SampleMode::Nulls => true,
            SampleMode::Random => self.next_u64().is_multiple_of(4),
        }
    }
    /// A value for a present field (non-default in `Full` mode).
    pub fn value<T: SampleValue>(&mut self, default: &T) -> T {
        match self.mode {
            SampleMode::Full => T::other_than(self, default),
            _ => T::random(self),
        }
    }
    /// An array length (0 beyond the maximum nesting depth, [`DEFAULT_MAX_DEPTH`] unless set
    /// by [`SampleGen::with_max_depth`]).
    pub fn array_len(&mut self) -> usize {
        if self.depth > self.max_depth {
            return 0;
        }
        match self.mode {
            SampleMode::Full => 1 + (self.next_u64() % 3) as usize,
            _ => (self.next_u64() % 4) as usize,
        }
    }
    /// Enters a nested struct (limits depth).
    pub fn enter(&mut self) {
        self.depth += 1;
    }
    /// Leaves a nested struct.
    pub fn leave(&mut self) {
        self.depth -= 1;
    }
    /// Unknown tagged fields for a flexible struct whose known tags are below `first_free`.
    pub fn unknown_tags(&mut self, first_free: u32) -> UnknownTaggedFields {
        let n = match self.mode {
            SampleMode::Full => 1 + (self.next_u64() % 2) as usize,
            SampleMode::Nulls => 0,
            SampleMode::Random => (self.next_u64() % 3) as usize,
        };
        let mut tag = first_free;
        (0..n)
            .map(|_| {
                tag += 1 + (self.next_u64() % 200) as u32;
                RawTaggedField {
                    tag,
                    data: Bytes::random(self),
                }
            })
            .collect()
    }
}

/// A type that can make samples of itself valid at a version.
pub trait Sample: Sized {
    /// A sample valid at `version`.
    fn sample(g: &mut SampleGen, version: i16) -> Self;
}

/// Makes a sample of `T` at `version` and checks the runtime contract on it: `encoded_len`
/// equals the bytes written, decode(encode(x)) == x, and encode(decode(b)) == b.
///
/// # Errors
/// A description of the first broken property, with the bytes in hex.
pub fn check_roundtrip<T: Message + Sample>(
    version: i16,
    seed: u64,
    mode: SampleMode,
) -> Result<(), String> {
    let mut g = SampleGen::new(seed, mode);
    let msg = T::sample(&mut g, version);
    let bytes = msg.to_bytes(version).map_err(|e| format!("encode: {e}"))?;
    let len = msg
        .encoded_len(version)
        .map_err(|e| format!("encoded_len: {e}"))?;
    if len != bytes.len() {
        return Err(format!(
            "encoded_len {len} but {} bytes written",
            bytes.len()
        ));
    }
    // Chunked encoding, every shared field spliced, gives the same bytes.
    let chunked = msg
        .to_chunks(version, 1)
        .map_err(|e| format!("to_chunks: {e}"))?
        .to_bytes();
    if chunked != bytes {
        return Err(format!(
            "to_chunks differs from to_bytes\n  chunks: {}\n  bytes:  {}",
            hex(&chunked),
            hex(&bytes)
        ));
    }
    let back = T::decode_bytes(bytes.clone(), version)
        .map_err(|e| format!("decode: {e}\n  bytes: {}", hex(&bytes)))?;
    if back != msg {
        return Err(format!(
            "decode(encode(x)) != x\n  x:    {msg:?}\n  back: {back:?}\n  bytes: {}",
            hex(&bytes)
        ));
    }
    let again = back
        .to_bytes(version)
        .map_err(|e| format!("re-encode: {e}"))?;
    if again != bytes {
        return Err(format!(
            "re-encode differs\n  first:  {}\n  second: {}",
            hex(&bytes),
            hex(&again)
        ));
    }
    Ok(())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
