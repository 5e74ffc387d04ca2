//! Borrowed, allocation-free views of encoded messages (`…Ref<'a>`, in the manner of planus).
//!
//! A view is made by validating the bytes once, up front ([`View::check_at`]): every length, every
//! string's UTF-8, every nested struct and array element, exactly as owned decoding would, but
//! without allocating. It keeps the slice and the offsets of its fields; reading a field then
//! never fails and never panics (a read that could fail was checked at parse time; should the
//! impossible happen, the type's default comes back instead of a panic). Strings are `&'a str`,
//! bytes and records `&'a [u8]`, arrays [`ArrayRef`]s that yield elements lazily.
//!
//! Owned decoding ([`super::Decode`]) stays the default API; views are for proxies and routers
//! that look at a few fields of a large message.

use super::error::{DecodeError, DecodeErrorKind};
use super::scan::{self, ScanError};
use super::types::{Encoding, Nullable, Uuid};
use std::marker::PhantomData;

/// A cursor over a byte slice for validating views. Offsets in errors are absolute: `base` plus
/// the position in the slice.
#[derive(Debug, Clone, Copy)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
    /// Whether to validate (UTF-8 of strings): off when walking bytes validated before.
    validate: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `buf`, whose first byte is at absolute offset `base`.
    pub fn new(buf: &'a [u8], base: usize) -> Self {
        Cursor {
            buf,
            pos: 0,
            base,
            validate: true,
        }
    }
    /// The whole slice.
    #[inline]
    pub fn buf(&self) -> &'a [u8] {
        self.buf
    }
    /// Position in the slice.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }
    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// An error at the current offset.
    #[cold]
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.base + self.pos)
    }
    #[cold]
    fn eof(&self, needed: usize) -> DecodeError {
        self.error(DecodeErrorKind::UnexpectedEof {
            needed,
            remaining: self.remaining(),
        })
    }
    /// Skips `n` bytes.
    #[inline(always)]
    pub fn skip(&mut self, n: usize) -> Result<(), DecodeError> {
        if n > self.remaining() {
            return Err(self.eof(n));
        }
        self.pos += n;
        Ok(())
    }
    /// Reads an unsigned varint as [`super::Reader::uvarint`] does.
    #[inline(always)]
    pub fn uvarint(&mut self) -> Result<u32, DecodeError> {
        match scan::uvarint(self.buf, self.pos) {
            Ok((v, next)) => {
                self.pos = next;
                Ok(v)
            }
            Err(e) => Err(self.scan_error(e)),
        }
    }
    /// The decode error for a scan that failed at the current position.
    #[cold]
    #[inline(never)]
    fn scan_error(&self, e: ScanError) -> DecodeError {
        e.at(self.base + self.pos, self.remaining())
    }
    /// Reads a length prefix; `None` is null. Same rules as owned decoding ([`scan::length`]).
    #[inline(always)]
    fn length(&mut self, compact: bool, short: bool) -> Result<Option<usize>, DecodeError> {
        match scan::length(self.buf, self.pos, compact, short) {
            Ok((n, next)) => {
                self.pos = next;
                Ok(n.get())
            }
            Err(e) => Err(self.scan_error(e)),
        }
    }
    /// Validates a string (length, limit, UTF-8); `nullable` says whether null is allowed.
    #[inline(always)]
    pub fn check_string(
        &mut self,
        encoding: Encoding,
        nullable: Nullable,
    ) -> Result<(), DecodeError> {
        let compact = encoding.is_compact();
        let nullable = nullable.allows_null();
        let start = self.base + self.pos;
        match self.length(compact, true)? {
            None if nullable => Ok(()),
            None => Err(DecodeError::new(DecodeErrorKind::NullNotAllowed, start)),
            Some(n) if n > i16::MAX as usize => {
                Err(DecodeError::new(DecodeErrorKind::StringTooLong(n), start))
            }
            Some(n) => {
                let s = self
                    .buf
                    .get(self.pos..self.pos + n)
                    .ok_or_else(|| self.eof(n))?;
                if self.validate {
                    std::str::from_utf8(s)
                        .map_err(|_| DecodeError::new(DecodeErrorKind::InvalidUtf8, start))?;
                }
                self.pos += n;
                Ok(())
            }
        }
    }
    /// Validates bytes or records.
    #[inline(always)]
    pub fn check_bytes(
        &mut self,
        encoding: Encoding,
        nullable: Nullable,
    ) -> Result<(), DecodeError> {
        let compact = encoding.is_compact();
        let nullable = nullable.allows_null();
        let start = self.base + self.pos;
        match self.length(compact, false)? {
            None if nullable => Ok(()),
            None => Err(DecodeError::new(DecodeErrorKind::NullNotAllowed, start)),
            Some(n) => self.skip(n),
        }
    }
    /// Reads an array count (`None`: null), checked against the bytes left as owned decoding does.
    #[inline(always)]
    pub fn array_len(
        &mut self,
        encoding: Encoding,
        nullable: Nullable,
    ) -> Result<Option<usize>, DecodeError> {
        let compact = encoding.is_compact();
        let nullable = nullable.allows_null();
        let start = self.base + self.pos;
        match self.length(compact, false)? {
            None if nullable => Ok(None),
            None => Err(DecodeError::new(DecodeErrorKind::NullNotAllowed, start)),
            Some(count) if count > self.remaining() => Err(DecodeError::new(
                DecodeErrorKind::ArrayTooLong {
                    count,
                    remaining: self.remaining(),
                },
                start,
            )),
            Some(n) => Ok(Some(n)),
        }
    }
    /// Reads the int8 marker of a non-tagged nullable struct: `true` when present.
    #[inline(always)]
    pub fn struct_present(&mut self) -> Result<bool, DecodeError> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok((b as i8) >= 0)
            }
            None => Err(self.eof(1)),
        }
    }
    /// Reads the uvarint marker of a tagged nullable struct: `true` when present.
    #[inline]
    pub fn tagged_struct_present(&mut self) -> Result<bool, DecodeError> {
        Ok(scan::tagged_present(self.uvarint()?))
    }
    /// Reads a tagged field's header and returns its tag, the position of its payload in this
    /// cursor's slice, and a cursor over the payload alone.
    #[inline]
    pub fn tagged_field(&mut self) -> Result<(u32, usize, Cursor<'a>), DecodeError> {
        let tag = self.uvarint()?;
        let size = self.uvarint()? as usize;
        let base = self.base + self.pos;
        let start = self.pos;
        self.skip(size).map_err(|e| e.tag(tag))?;
        Ok((
            tag,
            start,
            Cursor {
                buf: &self.buf[start..start + size],
                pos: 0,
                base,
                validate: self.validate,
            },
        ))
    }
    /// Absolute offset of the start of the slice.
    #[inline]
    pub fn base(&self) -> usize {
        self.base
    }
    /// A cursor at `from` in bytes that were validated before: it skips re-validation.
    #[inline]
    pub fn at(buf: &'a [u8], from: usize) -> Cursor<'a> {
        Cursor {
            buf,
            pos: from.min(buf.len()),
            base: 0,
            validate: false,
        }
    }
}

/// A borrowed view of a struct or message. Generated for every struct.
///
/// Bytes are validated once ([`View::check_at`]); later walks over the same bytes
/// ([`View::skip_at`], [`View::locate_at`]) trust them and do no checks. On bytes that were not
/// validated they still never panic or read out of bounds: they stop at the end of the slice.
pub trait View<'a>: Sized + Copy {
    /// Validates one value at the cursor, at `version`, exactly as owned decoding would; the
    /// cursor moves past it.
    ///
    /// # Errors
    /// Exactly the errors owned decoding gives for the same bytes.
    fn check_at(c: &mut Cursor<'a>, version: i16) -> Result<(), DecodeError>;
    /// The position after the value at `pos` (validated before).
    fn skip_at(buf: &'a [u8], pos: usize, version: i16) -> usize;
    /// The view of the value at `pos` (validated before) and the position after it.
    fn locate_at(buf: &'a [u8], pos: usize, version: i16) -> (Self, usize);
}

/// An element of an array view: a struct view, a primitive, a string or bytes.
pub trait Element<'a>: Sized {
    /// The encoded size of every element when it is fixed (ints, bool, uuid), else 0.
    const FIXED: usize = 0;
    /// Validates one element at the cursor (`encoding`: the array's, from its version).
    ///
    /// # Errors
    /// As owned decoding.
    fn check(c: &mut Cursor<'a>, version: i16, encoding: Encoding) -> Result<(), DecodeError>;
    /// Reads one validated element and moves the cursor past it; `None` only if the bytes do not
    /// hold one (impossible after validation).
    fn read(c: &mut Cursor<'a>, version: i16, encoding: Encoding) -> Option<Self>;
    /// The position after the (validated) element at `pos`.
    fn skip(buf: &'a [u8], pos: usize, version: i16, encoding: Encoding) -> usize {
        let mut c = Cursor::at(buf, pos);
        match Self::read(&mut c, version, encoding) {
            Some(_) => c.pos,
            None => buf.len(),
        }
    }
}

impl<'a, T: View<'a>> Element<'a> for T {
    #[inline]
    fn check(c: &mut Cursor<'a>, version: i16, _encoding: Encoding) -> Result<(), DecodeError> {
        T::check_at(c, version)
    }
    #[inline]
    fn read(c: &mut Cursor<'a>, version: i16, _encoding: Encoding) -> Option<Self> {
        if c.pos >= c.buf.len() {
            return None;
        }
        let (v, end) = T::locate_at(c.buf, c.pos, version);
        c.pos = end.min(c.buf.len());
        Some(v)
    }
    #[inline]
    fn skip(buf: &'a [u8], pos: usize, version: i16, _encoding: Encoding) -> usize {
        T::skip_at(buf, pos, version)
    }
}

macro_rules! fixed_element {
    ($($t:ty => $n:expr),*) => {$(
        impl<'a> Element<'a> for $t {
            const FIXED: usize = $n;
            #[inline]
            fn check(c: &mut Cursor<'a>, _version: i16, _encoding: Encoding) -> Result<(), DecodeError> {
                c.skip($n)
            }
            #[inline]
            fn read(c: &mut Cursor<'a>, _version: i16, _encoding: Encoding) -> Option<Self> {
                let b = c.buf.get(c.pos..c.pos + $n)?;
                c.pos += $n;
                Some(<$t>::from_be_bytes(b.try_into().ok()?))
            }
            #[inline]
            fn skip(_buf: &'a [u8], pos: usize, _version: i16, _encoding: Encoding) -> usize {
                pos + $n
            }
        }
    )*};
}
fixed_element!(i8 => 1, i16 => 2, u16 => 2, i32 => 4, u32 => 4, i64 => 8, f64 => 8);

impl<'a> Element<'a> for bool {
    const FIXED: usize = 1;
    #[inline]
    fn check(c: &mut Cursor<'a>, _version: i16, _encoding: Encoding) -> Result<(), DecodeError> {
        c.skip(1)
    }
    #[inline]
    fn read(c: &mut Cursor<'a>, _version: i16, _encoding: Encoding) -> Option<Self> {
        let b = *c.buf.get(c.pos)?;
        c.pos += 1;
        Some(b != 0)
    }
}

impl<'a> Element<'a> for Uuid {
    const FIXED: usize = 16;
    #[inline]
    fn check(c: &mut Cursor<'a>, _version: i16, _encoding: Encoding) -> Result<(), DecodeError> {
        c.skip(16)
    }
    #[inline]
    fn read(c: &mut Cursor<'a>, _version: i16, _encoding: Encoding) -> Option<Self> {
        let b = c.buf.get(c.pos..c.pos + 16)?;
        c.pos += 16;
        Some(Uuid(b.try_into().ok()?))
    }
}

impl<'a> Element<'a> for &'a str {
    #[inline]
    fn check(c: &mut Cursor<'a>, _version: i16, encoding: Encoding) -> Result<(), DecodeError> {
        c.check_string(encoding, Nullable::No)
    }
    #[inline]
    fn read(c: &mut Cursor<'a>, _version: i16, encoding: Encoding) -> Option<Self> {
        let n = c.length(encoding.is_compact(), true).ok()??;
        let s = c.buf.get(c.pos..c.pos + n)?;
        c.pos += n;
        std::str::from_utf8(s).ok()
    }
}

impl<'a> Element<'a> for &'a [u8] {
    #[inline]
    fn check(c: &mut Cursor<'a>, _version: i16, encoding: Encoding) -> Result<(), DecodeError> {
        c.check_bytes(encoding, Nullable::No)
    }
    #[inline]
    fn read(c: &mut Cursor<'a>, _version: i16, encoding: Encoding) -> Option<Self> {
        let n = c.length(encoding.is_compact(), false).ok()??;
        let s = c.buf.get(c.pos..c.pos + n)?;
        c.pos += n;
        Some(s)
    }
}

/// Validates an array at the cursor: its count, then every element.
///
/// # Errors
/// As owned decoding; element errors carry the index.
#[inline(always)]
#[doc(hidden)]
pub fn check_array<'a, E: Element<'a>>(
    c: &mut Cursor<'a>,
    version: i16,
    encoding: Encoding,
    nullable: Nullable,
) -> Result<(), DecodeError> {
    if let Some(n) = c.array_len(encoding, nullable)? {
        if E::FIXED > 0 {
            // `n` is at most the bytes left, so this cannot overflow.
            let need = n * E::FIXED;
            if need > c.remaining() {
                // Report it where owned decoding does: at the first element that does not fit.
                let i = c.remaining() / E::FIXED;
                c.pos += i * E::FIXED;
                return Err(c.eof(E::FIXED).index(i));
            }
            c.pos += need;
            return Ok(());
        }
        for i in 0..n {
            E::check(c, version, encoding).map_err(|e| e.index(i))?;
        }
    }
    Ok(())
}

/// A validated array: its count and the bytes of its elements, read lazily.
#[derive(Debug, Clone, Copy)]
pub struct ArrayRef<'a, E> {
    buf: &'a [u8],
    count: usize,
    version: i16,
    encoding: Encoding,
    _e: PhantomData<fn() -> E>,
}

impl<'a, E: Element<'a>> ArrayRef<'a, E> {
    /// The array whose count starts at `off` in `buf` (validated earlier); `None` when null.
    #[inline]
    pub fn at(buf: &'a [u8], off: usize, version: i16, encoding: Encoding) -> Option<Self> {
        let compact = encoding.is_compact();
        let mut c = Cursor::at(buf, off);
        let count = c.length(compact, false).ok()??;
        Some(ArrayRef {
            buf: &buf[c.pos..],
            count,
            version,
            encoding,
            _e: PhantomData,
        })
    }
    /// An empty array.
    pub fn empty() -> Self {
        ArrayRef {
            buf: &[],
            count: 0,
            version: 0,
            encoding: Encoding::Classic,
            _e: PhantomData,
        }
    }
    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }
    /// Whether there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The elements, in order.
    #[inline]
    pub fn iter(&self) -> ArrayIter<'a, E> {
        ArrayIter {
            c: Cursor::at(self.buf, 0),
            left: self.count,
            version: self.version,
            encoding: self.encoding,
            _e: PhantomData,
        }
    }
}

impl<'a, E: Element<'a>> IntoIterator for ArrayRef<'a, E> {
    type Item = E;
    type IntoIter = ArrayIter<'a, E>;
    fn into_iter(self) -> ArrayIter<'a, E> {
        self.iter()
    }
}

/// Iterator over an [`ArrayRef`].
#[derive(Debug, Clone)]
pub struct ArrayIter<'a, E> {
    c: Cursor<'a>,
    left: usize,
    version: i16,
    encoding: Encoding,
    _e: PhantomData<fn() -> E>,
}

impl<'a, E: Element<'a>> Iterator for ArrayIter<'a, E> {
    type Item = E;
    #[inline]
    fn next(&mut self) -> Option<E> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let e = E::read(&mut self.c, self.version, self.encoding);
        if e.is_none() {
            self.left = 0;
        }
        e
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

/// Reads a validated fixed-size value at `off` (the type's zero if out of bounds, which
/// validation rules out).
#[inline]
#[doc(hidden)]
pub fn fixed<'a, T: Element<'a> + Default>(buf: &'a [u8], off: usize) -> T {
    T::read(&mut Cursor::at(buf, off), 0, Encoding::Classic).unwrap_or_default()
}

/// Reads a validated string at `off`; `None` when null.
#[inline]
#[doc(hidden)]
pub fn str_at(buf: &[u8], off: usize, encoding: Encoding) -> Option<&str> {
    <&str as Element>::read(&mut Cursor::at(buf, off), 0, encoding)
}

/// Reads validated bytes at `off`; `None` when null.
#[inline]
#[doc(hidden)]
pub fn bytes_at(buf: &[u8], off: usize, encoding: Encoding) -> Option<&[u8]> {
    <&[u8] as Element>::read(&mut Cursor::at(buf, off), 0, encoding)
}

/// Reads a validated struct view at `off`.
#[inline]
#[doc(hidden)]
pub fn struct_at<'a, V: View<'a>>(buf: &'a [u8], off: usize, version: i16) -> Option<V> {
    (off < buf.len()).then(|| V::locate_at(buf, off, version).0)
}

/// Where a field is written: in the struct's body or in its tagged-field section (KIP-482). A
/// nullable struct's null marker is an INT8 in the body and an UNSIGNED_VARINT in a tagged
/// field's payload.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
#[doc(hidden)]
pub enum Section {
    /// The struct's body (the field's untagged versions).
    Body = 0,
    /// The tagged-field section (the field's tagged versions).
    Tagged = 1,
}

impl Section {
    /// [`Section::Tagged`] when `tagged`, else [`Section::Body`].
    #[inline(always)]
    pub const fn tagged_when(tagged: bool) -> Self {
        // SAFETY: a `bool` is 0 or 1, the discriminants of `Body` and `Tagged` in this
        // `repr(u8)` enum. Branch-free, as `Encoding::compact_when`.
        unsafe { std::mem::transmute::<bool, Section>(tagged) }
    }
}

/// Reads the marker of a validated nullable struct at `off` and then the struct; `None` when
/// null. `section` says which marker: an INT8 in the body, a uvarint in a tagged field.
#[inline]
#[doc(hidden)]
pub fn nullable_struct_at<'a, V: View<'a>>(
    buf: &'a [u8],
    off: usize,
    version: i16,
    section: Section,
) -> Option<V> {
    let mut c = Cursor::at(buf, off);
    let present = match section {
        Section::Tagged => c.tagged_struct_present().ok()?,
        Section::Body => c.struct_present().ok()?,
    };
    if present {
        struct_at(buf, c.pos, version)
    } else {
        None
    }
}

/// The int8 marker of a validated, non-tagged nullable struct at `pos`: the position of the
/// struct when present, `None` when null.
#[inline]
#[doc(hidden)]
pub fn struct_marker(buf: &[u8], pos: usize) -> Option<usize> {
    match buf.get(pos) {
        Some(&b) if (b as i8) >= 0 => Some(pos + 1),
        _ => None,
    }
}

/// Reads a validated length prefix at `pos`: the length (`None` for null) and where the data
/// starts. A prefix that does not scan (impossible after validation) reads as null at the end.
#[inline(always)]
fn trusted_len(buf: &[u8], pos: usize, compact: bool, short: bool) -> (Option<usize>, usize) {
    match scan::length(buf, pos, compact, short) {
        Ok((n, next)) => (n.get(), next),
        Err(_) => (None, buf.len()),
    }
}

/// The position after a validated string at `pos` (INT16 length when classic).
#[inline(always)]
#[doc(hidden)]
pub fn skip_string(buf: &[u8], pos: usize, encoding: Encoding) -> usize {
    skip_len(buf, pos, encoding.is_compact(), true)
}

/// The position after a validated bytes or records value at `pos` (INT32 length when classic).
#[inline(always)]
#[doc(hidden)]
pub fn skip_bytes(buf: &[u8], pos: usize, encoding: Encoding) -> usize {
    skip_len(buf, pos, encoding.is_compact(), false)
}

/// The position after a validated string (`short`) or bytes value at `pos`.
#[inline(always)]
fn skip_len(buf: &[u8], pos: usize, compact: bool, short: bool) -> usize {
    match trusted_len(buf, pos, compact, short) {
        (Some(n), at) => at + n,
        (None, at) => at,
    }
}

/// The position after a validated array at `pos`.
#[inline(always)]
#[doc(hidden)]
pub fn skip_array<'a, E: Element<'a>>(
    buf: &'a [u8],
    pos: usize,
    version: i16,
    encoding: Encoding,
) -> usize {
    let compact = encoding.is_compact();
    match trusted_len(buf, pos, compact, false) {
        (Some(n), at) if E::FIXED > 0 => at + n * E::FIXED,
        (Some(n), mut at) => {
            for _ in 0..n {
                at = E::skip(buf, at, version, encoding);
            }
            at
        }
        (None, at) => at,
    }
}

/// The count of a validated tagged section at `pos` and where its first field starts.
#[inline]
#[doc(hidden)]
pub fn tag_count(buf: &[u8], pos: usize) -> (u32, usize) {
    scan::uvarint(buf, pos).unwrap_or((0, buf.len()))
}

/// The tag of the validated tagged field at `pos`, where its payload starts, and where the next
/// field starts.
#[inline]
#[doc(hidden)]
pub fn tag_header(buf: &[u8], pos: usize) -> (u32, usize, usize) {
    let Ok((tag, p)) = scan::uvarint(buf, pos) else {
        return (u32::MAX, buf.len(), buf.len());
    };
    let Ok((size, p)) = scan::uvarint(buf, p) else {
        return (u32::MAX, buf.len(), buf.len());
    };
    (tag, p, p.saturating_add(size as usize))
}

/// The position after a validated tagged section at `pos`.
#[inline(always)]
#[doc(hidden)]
pub fn skip_tags(buf: &[u8], pos: usize) -> usize {
    // The common case, inline: an empty section, one zero byte.
    if buf.get(pos) == Some(&0) {
        return pos + 1;
    }
    skip_tagged_fields(buf, pos)
}

/// [`skip_tags`] of a section that is not empty (out of line: it is rare).
#[inline(never)]
fn skip_tagged_fields(buf: &[u8], pos: usize) -> usize {
    let (mut n, mut p) = tag_count(buf, pos);
    while n > 0 && p < buf.len() {
        n -= 1;
        p = tag_header(buf, p).2;
    }
    p
}

/// The unknown tagged fields of a validated struct: `(tag, payload)` in wire order.
#[derive(Debug, Clone)]
pub struct UnknownTags<'a> {
    c: Cursor<'a>,
    left: u32,
    known: &'static [u32],
}

impl<'a> UnknownTags<'a> {
    /// The tagged section starting at `off` in `buf` (`ABSENT`: none); `known` are the tags the
    /// struct's spec defines.
    pub fn at(buf: &'a [u8], off: u32, known: &'static [u32]) -> Self {
        if off == ABSENT {
            return UnknownTags {
                c: Cursor::at(&[], 0),
                left: 0,
                known,
            };
        }
        let mut c = Cursor::at(buf, off as usize);
        let left = c.uvarint().unwrap_or(0);
        UnknownTags { c, left, known }
    }
}

impl<'a> Iterator for UnknownTags<'a> {
    type Item = (u32, &'a [u8]);
    fn next(&mut self) -> Option<(u32, &'a [u8])> {
        while self.left > 0 {
            self.left -= 1;
            let Ok((tag, _, p)) = self.c.tagged_field() else {
                self.left = 0;
                return None;
            };
            if !self.known.contains(&tag) {
                return Some((tag, p.buf));
            }
        }
        None
    }
}

/// "No offset": the field is not in this version (or a tagged field that was not sent).
#[doc(hidden)]
pub const ABSENT: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::Section;

    #[test]
    fn section_converts_from_bool() {
        assert_eq!(Section::tagged_when(false), Section::Body);
        assert_eq!(Section::tagged_when(true), Section::Tagged);
    }
}
