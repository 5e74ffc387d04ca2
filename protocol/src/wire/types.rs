//! Value types the generated messages use: zero-copy strings, UUIDs, raw tagged fields, version
//! ranges.

use bytes::Bytes;
use std::fmt;
use std::ops::Deref;

/// A UTF-8 string held as [`Bytes`]: decoding slices it out of the input without copying.
///
/// Derefs to `str`; builds from `&'static str` (no copy), `String` and `&str` (copied).
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KStr(Bytes);

impl KStr {
    /// An empty string.
    pub const fn new() -> Self {
        KStr(Bytes::new())
    }
    /// A string over static text, without copying.
    pub const fn from_static(s: &'static str) -> Self {
        KStr(Bytes::from_static(s.as_bytes()))
    }
    /// Wraps bytes after checking they are UTF-8.
    pub fn from_utf8(b: Bytes) -> Result<Self, std::str::Utf8Error> {
        std::str::from_utf8(&b)?;
        Ok(KStr(b))
    }
    /// The text.
    pub fn as_str(&self) -> &str {
        // SAFETY: every constructor guarantees the bytes are UTF-8: `from_static` and the `From`
        // impls take `str`/`String`, and `from_utf8` validates. `KStr` never hands out `&mut`
        // access to its bytes.
        unsafe { std::str::from_utf8_unchecked(&self.0) }
    }
    /// The UTF-8 bytes (a cheap clone of the underlying buffer).
    pub fn as_bytes(&self) -> &Bytes {
        &self.0
    }
    /// Consumes the string, giving its bytes.
    pub fn into_bytes(self) -> Bytes {
        self.0
    }
}

impl Deref for KStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for KStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for KStr {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&'static str> for KStr {
    fn from(s: &'static str) -> Self {
        KStr::from_static(s)
    }
}

impl From<String> for KStr {
    fn from(s: String) -> Self {
        KStr(Bytes::from(s))
    }
}

impl From<&String> for KStr {
    fn from(s: &String) -> Self {
        KStr(Bytes::copy_from_slice(s.as_bytes()))
    }
}

impl From<KStr> for String {
    fn from(s: KStr) -> String {
        s.as_str().to_owned()
    }
}

impl PartialEq<str> for KStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for KStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for KStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for KStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

/// A Kafka UUID: 16 bytes, most-significant 64 bits first on the wire.
///
/// Displayed as Kafka shows it: URL-safe base64 without padding (22 characters).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// The all-zero UUID (Kafka's `Uuid.ZERO_UUID`), the default of every uuid field.
    pub const ZERO: Uuid = Uuid([0; 16]);
    /// From its 128-bit value.
    pub const fn from_u128(v: u128) -> Self {
        Uuid(v.to_be_bytes())
    }
    /// Its 128-bit value.
    pub const fn as_u128(&self) -> u128 {
        u128::from_be_bytes(self.0)
    }
    /// Parses Kafka's text form: URL-safe base64 of the 16 bytes, with or without `==` padding.
    pub fn parse(s: &str) -> Option<Uuid> {
        let s = s.trim_end_matches('=');
        if s.len() != 22 {
            return None;
        }
        let mut acc: u32 = 0;
        let mut bits = 0;
        let mut out = [0u8; 16];
        let mut n = 0;
        for c in s.bytes() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'-' => 62,
                b'_' => 63,
                _ => return None,
            } as u32;
            acc = (acc << 6) | v;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                if n < 16 {
                    out[n] = (acc >> bits) as u8;
                    n += 1;
                }
                acc &= (1 << bits) - 1;
            }
        }
        Some(Uuid(out))
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut acc: u32 = 0;
        let mut bits = 0;
        for b in self.0 {
            acc = (acc << 8) | b as u32;
            bits += 8;
            while bits >= 6 {
                bits -= 6;
                let c = A[((acc >> bits) & 63) as usize];
                fmt::Write::write_char(f, c as char)?;
            }
        }
        if bits > 0 {
            let c = A[((acc << (6 - bits)) & 63) as usize];
            fmt::Write::write_char(f, c as char)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({self})")
    }
}

/// A tagged field this version of the spec does not know: kept from decoding and written back.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawTaggedField {
    /// The tag.
    pub tag: u32,
    /// The payload, without its size prefix.
    pub data: Bytes,
}

/// The unknown tagged fields of a decoded struct (tags its spec does not name at the version
/// read), sorted by tag, kept so that encoding writes them back.
///
/// One pointer wide (8 bytes; a `Vec` takes 24), and an empty set, the usual case, owns no
/// allocation and drops without a call: every generated struct of a flexible version carries
/// one, so this keeps decoded arrays of structs small. Reads as a slice (`Deref`); build one
/// with [`UnknownTaggedFields::push`], `From<Vec<RawTaggedField>>` or `collect()`.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
// The box is the point: one pointer in every struct instead of a three-word `Vec`.
#[allow(clippy::box_collection)]
pub struct UnknownTaggedFields(Option<Box<Vec<RawTaggedField>>>);

impl Drop for UnknownTaggedFields {
    /// Inline test for the empty case; freeing is out of line. (Without this, dropping a struct
    /// called out-of-line drop glue for each of its empty sets.)
    #[inline]
    fn drop(&mut self) {
        if self.0.is_some() {
            drop_fields(self.0.take());
        }
    }
}

#[cold]
#[inline(never)]
#[allow(clippy::box_collection)]
fn drop_fields(v: Option<Box<Vec<RawTaggedField>>>) {
    drop(v)
}

impl UnknownTaggedFields {
    /// No fields (no allocation).
    pub const fn new() -> Self {
        UnknownTaggedFields(None)
    }
    /// Appends a field (the caller keeps tag order; decoding sorts after reading a section).
    pub fn push(&mut self, f: RawTaggedField) {
        self.0.get_or_insert_with(Default::default).push(f)
    }
    /// The fields, in order.
    #[inline]
    pub fn as_slice(&self) -> &[RawTaggedField] {
        match &self.0 {
            Some(v) => v,
            None => &[],
        }
    }
    /// The fields, in order, mutably (their number cannot change through this).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [RawTaggedField] {
        match &mut self.0 {
            Some(v) => v,
            None => &mut [],
        }
    }
    /// The fields as a vector.
    pub fn into_vec(mut self) -> Vec<RawTaggedField> {
        self.0.take().map(|b| *b).unwrap_or_default()
    }
}

impl std::ops::Deref for UnknownTaggedFields {
    type Target = [RawTaggedField];
    #[inline]
    fn deref(&self) -> &[RawTaggedField] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for UnknownTaggedFields {
    #[inline]
    fn deref_mut(&mut self) -> &mut [RawTaggedField] {
        self.as_mut_slice()
    }
}

impl From<Vec<RawTaggedField>> for UnknownTaggedFields {
    fn from(v: Vec<RawTaggedField>) -> Self {
        // Empty is always `None`, so equal sets compare and hash equal.
        UnknownTaggedFields(if v.is_empty() {
            None
        } else {
            Some(Box::new(v))
        })
    }
}

impl PartialEq<Vec<RawTaggedField>> for UnknownTaggedFields {
    fn eq(&self, other: &Vec<RawTaggedField>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl FromIterator<RawTaggedField> for UnknownTaggedFields {
    fn from_iter<I: IntoIterator<Item = RawTaggedField>>(it: I) -> Self {
        Vec::from_iter(it).into()
    }
}

impl<'a> IntoIterator for &'a UnknownTaggedFields {
    type Item = &'a RawTaggedField;
    type IntoIter = std::slice::Iter<'a, RawTaggedField>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for UnknownTaggedFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// An inclusive range of versions, `lowest..=highest` (Kafka's `N`, `N+`, `N-M`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VersionRange {
    /// Lowest version.
    pub lowest: i16,
    /// Highest version (`i16::MAX` for an open-ended range).
    pub highest: i16,
}

impl VersionRange {
    /// `lowest..=highest`.
    pub const fn new(lowest: i16, highest: i16) -> Self {
        VersionRange { lowest, highest }
    }
    /// The empty range (`none`).
    pub const NONE: VersionRange = VersionRange {
        lowest: 0,
        highest: -1,
    };
    /// Whether `v` is inside.
    pub const fn contains(&self, v: i16) -> bool {
        v >= self.lowest && v <= self.highest
    }
    /// Whether the range holds no version.
    pub const fn is_empty(&self) -> bool {
        self.lowest > self.highest
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.highest == i16::MAX {
            write!(f, "{}+", self.lowest)
        } else if self.lowest == self.highest {
            write!(f, "{}", self.lowest)
        } else {
            write!(f, "{}-{}", self.lowest, self.highest)
        }
    }
}

/// A version range as error messages show it (`none` when empty, else as
/// [`VersionRange`]'s `Display`).
pub(crate) fn range_text(lowest: &i16, highest: &i16) -> VersionRange {
    VersionRange::new(*lowest, *highest)
}

/// The `type` of a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// A request body.
    Request,
    /// A response body.
    Response,
    /// A request or response header.
    Header,
    /// Free-standing data (records, embedded payloads).
    Data,
    /// A KRaft metadata record.
    Metadata,
    /// The key of a coordinator record (Kafka 4.x `coordinator-key`): its `apiKey` is the
    /// record type.
    CoordinatorKey,
    /// The value of a coordinator record (Kafka 4.x `coordinator-value`), paired with the key
    /// of the same record type.
    CoordinatorValue,
}

/// How a version encodes lengths, counts and the tagged-field section (KIP-482): classic in the
/// versions before a message's `flexibleVersions`, compact in them. Generated code passes it to
/// the runtime's string, bytes and array helpers instead of a bare `bool`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Encoding {
    /// Non-flexible versions: INT16 string lengths, INT32 bytes lengths and array counts (-1 for
    /// null), and no tagged-field section.
    Classic = 0,
    /// Flexible versions: lengths and counts as an UNSIGNED_VARINT of the value plus one (0 for
    /// null), and a tagged-field section after each struct.
    Compact = 1,
}

impl Encoding {
    /// [`Encoding::Compact`] when `flexible` (the version is one of the flexible versions),
    /// else [`Encoding::Classic`].
    #[inline(always)]
    pub const fn compact_when(flexible: bool) -> Self {
        // SAFETY: a `bool` is 0 or 1, the discriminants of `Classic` and `Compact` in this
        // `repr(u8)` enum. Branch-free, so generated code compiles as it did with a `bool`.
        unsafe { std::mem::transmute::<bool, Encoding>(flexible) }
    }

    /// Whether this is [`Encoding::Compact`].
    #[inline(always)]
    pub const fn is_compact(self) -> bool {
        self as u8 == Encoding::Compact as u8
    }
}

/// Whether a field may be null in the version at hand (the spec's `nullableVersions`).
/// Generated code passes it to the runtime's nullable helpers instead of a bare `bool`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Nullable {
    /// Null is refused: decoding reports `NullNotAllowed`, encoding `None` is an error.
    No = 0,
    /// Null is allowed (encoded as length or count -1, or 0 when compact).
    Yes = 1,
}

impl Nullable {
    /// [`Nullable::Yes`] when `nullable`, else [`Nullable::No`].
    #[inline(always)]
    pub const fn when(nullable: bool) -> Self {
        // SAFETY: a `bool` is 0 or 1, the discriminants of `No` and `Yes` in this `repr(u8)`
        // enum. Branch-free, as [`Encoding::compact_when`].
        unsafe { std::mem::transmute::<bool, Nullable>(nullable) }
    }

    /// Whether null is allowed.
    #[inline(always)]
    pub const fn allows_null(self) -> bool {
        self as u8 == Nullable::Yes as u8
    }
}

#[cfg(test)]
mod tests {
    use super::{Encoding, Nullable};

    #[test]
    fn two_valued_types_convert_from_and_to_bool() {
        assert_eq!(Encoding::compact_when(false), Encoding::Classic);
        assert_eq!(Encoding::compact_when(true), Encoding::Compact);
        assert!(!Encoding::Classic.is_compact());
        assert!(Encoding::Compact.is_compact());
        assert_eq!(Nullable::when(false), Nullable::No);
        assert_eq!(Nullable::when(true), Nullable::Yes);
        assert!(!Nullable::No.allows_null());
        assert!(Nullable::Yes.allows_null());
    }
}
