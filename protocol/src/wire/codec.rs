//! The traits generated messages implement, and the write helpers their encoders call.

use super::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use super::reader::Reader;
use super::sink::{RawWriter, Sink};
use super::types::{
    Encoding, KStr, MessageKind, Nullable, RawTaggedField, UnknownTaggedFields, VersionRange,
};
use bytes::{BufMut, Bytes};

/// Encoding at a given version. Generated for every message and struct.
///
/// One method, [`Encode::encode_raw`], does the work, always over a [`RawWriter`] (so each
/// encoder is compiled once): into reserved memory to write, or over no memory to size
/// ([`RawWriter::counter`]), so [`Encode::encoded_len`] is exact and checks everything encoding
/// checks. The other methods are built on it.
pub trait Encode {
    /// Writes `self` at `version` to `w`.
    ///
    /// # Errors
    /// [`EncodeErrorKind::UnsupportedVersion`] outside `validVersions` (top-level messages);
    /// [`EncodeErrorKind::NonDefaultField`] for a non-default, non-ignorable field the version
    /// lacks; [`EncodeErrorKind::NullNotAllowed`]; [`EncodeErrorKind::StringTooLong`];
    /// [`EncodeErrorKind::TaggedFieldsNotFlexible`] / [`EncodeErrorKind::InvalidUnknownTag`] for
    /// unknown tagged fields that cannot be written. Nothing is guaranteed about what was written
    /// before an error.
    fn encode_raw(&self, w: &mut RawWriter, version: i16) -> Result<(), EncodeError>;

    /// Writes `self` at `version` to any [`Sink`]: directly into a [`RawWriter`] (a counting one,
    /// [`RawWriter::counter`], included), else encoded into a buffer of its exact size first and
    /// copied.
    ///
    /// # Errors
    /// As [`Encode::encode_raw`].
    fn encode_to<S: Sink>(&self, s: &mut S, version: i16) -> Result<(), EncodeError> {
        if let Some(w) = s.as_raw_writer() {
            return self.encode_raw(w, version);
        }
        let b = self.to_bytes(version)?;
        s.put_shared(&b);
        Ok(())
    }

    /// Writes `self` at `version` into a buffer.
    ///
    /// Fast path: when the buffer's current chunk has room (reserve capacity first, e.g.
    /// `BytesMut::reserve(m.encoded_len(v)?)`), the message is written there in one pass with a
    /// bounds-checked raw writer. Otherwise it is encoded into a new buffer of the size that pass
    /// found and copied. Either way, on error the buffer's length is unchanged.
    fn encode<B: BufMut>(&self, buf: &mut B, version: i16) -> Result<(), EncodeError> {
        let chunk = buf.chunk_mut();
        // SAFETY: `chunk_mut` returns a region valid for writes of `chunk.len()` bytes, which
        // stays valid while `buf` is not touched; `buf` is only used again below, after the
        // writer is done.
        let mut w = unsafe { RawWriter::new(chunk.as_mut_ptr(), chunk.len()) };
        self.encode_raw(&mut w, version)?;
        if !w.overflowed() {
            // SAFETY: the writer wrote every byte of `0..written` (writes are contiguous, and
            // none was skipped since it did not overflow), so they are initialized, and
            // `written <= chunk.len()`.
            unsafe { buf.advance_mut(w.written()) };
            return Ok(());
        }
        let b = super::sink::encode_exact(w.written(), |w| self.encode_raw(w, version))?;
        buf.put_slice(&b);
        Ok(())
    }

    /// The exact number of bytes [`Encode::encode`] writes at `version`.
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError> {
        let mut c = RawWriter::counter();
        self.encode_raw(&mut c, version)?;
        Ok(c.written())
    }

    /// Encodes into a new buffer of exactly the right size.
    fn to_bytes(&self, version: i16) -> Result<Bytes, EncodeError> {
        super::sink::encode_exact(self.encoded_len(version)?, |w| self.encode_raw(w, version))
    }

    /// Encodes into [`Chunks`](super::Chunks): bytes and records fields of at least
    /// `splice_min` bytes are shared with the message, not copied (for vectored socket writes;
    /// see [`encode_chunks`](super::encode_chunks)). The chunks in order are the bytes
    /// [`Encode::to_bytes`] gives.
    ///
    /// # Errors
    /// As [`Encode::encode_raw`].
    fn to_chunks(
        &self,
        version: i16,
        splice_min: usize,
    ) -> Result<super::sink::Chunks, EncodeError> {
        super::sink::encode_chunks(splice_min, |w| self.encode_raw(w, version))
    }
}

/// Decoding at a given version. Generated for every message and struct.
pub trait Decode: Sized {
    /// Reads one value at `version` from `r`, leaving any bytes after it unread.
    ///
    /// # Errors
    /// A [`DecodeError`] naming the field path and byte offset; see [`DecodeErrorKind`].
    fn decode(r: &mut Reader, version: i16) -> Result<Self, DecodeError>;

    /// Reads one value at `version` from `r` into `self`, which must hold the type's default
    /// (as `Default::default()` gives it): the fields that `version` lacks, and those its bytes do
    /// not set, keep the values they have, and unknown tagged fields are appended. This is how
    /// array elements are decoded, in place. On error `self` is partly written.
    ///
    /// # Errors
    /// As [`Decode::decode`].
    fn decode_into(&mut self, r: &mut Reader, version: i16) -> Result<(), DecodeError> {
        *self = Self::decode(r, version)?;
        Ok(())
    }
}

/// Reads an array of structs (count first) at `version`, each element decoded in place.
///
/// # Errors
/// As [`Reader::array_len`]; an element's error gets its index.
#[inline(always)]
#[doc(hidden)]
pub fn decode_struct_array<T: Decode + Default>(
    r: &mut Reader,
    encoding: Encoding,
    version: i16,
) -> Result<Vec<T>, DecodeError> {
    match r.array_len(encoding)? {
        0 => Ok(Vec::new()),
        n => decode_struct_elements(r, n, version),
    }
}

/// Reads a nullable array of structs (count first, `None` for null) at `version`.
///
/// # Errors
/// As [`decode_struct_array`].
#[inline(always)]
#[doc(hidden)]
pub fn decode_nullable_struct_array<T: Decode + Default>(
    r: &mut Reader,
    encoding: Encoding,
    version: i16,
) -> Result<Option<Vec<T>>, DecodeError> {
    match r.nullable_array_len(encoding)? {
        Some(0) => Ok(Some(Vec::new())),
        Some(n) => decode_struct_elements(r, n, version).map(Some),
        None => Ok(None),
    }
}

#[inline(never)]
fn decode_struct_elements<T: Decode + Default>(
    r: &mut Reader,
    n: usize,
    version: i16,
) -> Result<Vec<T>, DecodeError> {
    let mut a: Vec<T> = Vec::with_capacity(super::reader::bounded_capacity::<T>(n, r.remaining()));
    for i in 0..n {
        a.reserve(1);
        let len = a.len();
        // The element is built in its slot (`push` built it on the stack and copied it in).
        let Some(slot) = a.spare_capacity_mut().first_mut() else {
            unreachable!("reserved above")
        };
        let res = slot.write(T::default()).decode_into(r, version);
        // SAFETY: slot `len` is within capacity and was initialized just above.
        unsafe { a.set_len(len + 1) };
        if let Err(e) = res {
            return Err(e.index(i));
        }
    }
    Ok(a)
}

/// Reads an array of strings (count first).
///
/// # Errors
/// As [`Reader::array_len`] and [`Reader::string`]; an element's error gets its index.
#[doc(hidden)]
pub fn decode_string_array(r: &mut Reader, encoding: Encoding) -> Result<Vec<KStr>, DecodeError> {
    let n = r.array_len(encoding)?;
    decode_string_elements(r, n, encoding)
}

/// Reads a nullable array of strings (count first, `None` for null).
///
/// # Errors
/// As [`decode_string_array`].
#[doc(hidden)]
pub fn decode_nullable_string_array(
    r: &mut Reader,
    encoding: Encoding,
) -> Result<Option<Vec<KStr>>, DecodeError> {
    match r.nullable_array_len(encoding)? {
        Some(n) => decode_string_elements(r, n, encoding).map(Some),
        None => Ok(None),
    }
}

fn decode_string_elements(
    r: &mut Reader,
    n: usize,
    encoding: Encoding,
) -> Result<Vec<KStr>, DecodeError> {
    let mut a: Vec<KStr> =
        Vec::with_capacity(super::reader::bounded_capacity::<KStr>(n, r.remaining()));
    for i in 0..n {
        match r.string(encoding) {
            Ok(s) => a.push(s),
            Err(e) => return Err(e.index(i)),
        }
    }
    Ok(a)
}

/// Reads a tagged-field section that has no known tags: every field is kept in `unknown`.
///
/// # Errors
/// As [`Reader::tagged_field`].
#[doc(hidden)]
pub fn decode_unknown_tags(
    r: &mut Reader,
    unknown: &mut UnknownTaggedFields,
) -> Result<(), DecodeError> {
    let n = r.uvarint()?;
    if n == 0 {
        return Ok(());
    }
    decode_unknown_tags_slow(r, n, unknown)
}

#[inline(never)]
fn decode_unknown_tags_slow(
    r: &mut Reader,
    n: u32,
    unknown: &mut UnknownTaggedFields,
) -> Result<(), DecodeError> {
    for _ in 0..n {
        let (tag, p) = r.tagged_field()?;
        push_unknown_tag(unknown, tag, p);
    }
    finish_unknown_tags(unknown);
    Ok(())
}

/// Writes an array of structs at `version`: its count, then each element.
///
/// # Errors
/// As [`write_array_len`]; an element's error gets its index.
#[doc(hidden)]
pub fn write_struct_array<T: Encode>(
    w: &mut RawWriter,
    a: &[T],
    encoding: Encoding,
    version: i16,
) -> Result<(), EncodeError> {
    write_array_len(w, a.len(), encoding)?;
    for i in 0..a.len() {
        let Some(e) = a.get(i) else { break };
        if let Err(e) = e.encode_raw(w, version) {
            return Err(e.index(i));
        }
    }
    Ok(())
}

/// Writes an array of strings: its count, then each string.
///
/// # Errors
/// As [`write_array_len`] and [`write_string`]; an element's error gets its index.
#[doc(hidden)]
pub fn write_string_array(
    w: &mut RawWriter,
    a: &[KStr],
    encoding: Encoding,
) -> Result<(), EncodeError> {
    write_array_len(w, a.len(), encoding)?;
    for (i, e) in a.iter().enumerate() {
        if let Err(e) = write_string(w, e, encoding) {
            return Err(e.index(i));
        }
    }
    Ok(())
}

/// Writes the tagged-field section of a struct that has no known tags: checks the unknown
/// tagged fields as [`check_unknown_tags`] does, then, when `encoding` is compact (a flexible
/// version), writes their count and the fields.
///
/// # Errors
/// As [`check_unknown_tags`].
#[inline(always)]
#[doc(hidden)]
pub fn write_unknown_tags(
    w: &mut RawWriter,
    unknown: &[RawTaggedField],
    encoding: Encoding,
    version: i16,
) -> Result<(), EncodeError> {
    let flexible = encoding.is_compact();
    if unknown.is_empty() {
        if flexible {
            w.write_byte(0);
        }
        return Ok(());
    }
    write_unknown_tags_slow(w, unknown, encoding, version)
}

#[inline(never)]
fn write_unknown_tags_slow(
    w: &mut RawWriter,
    unknown: &[RawTaggedField],
    encoding: Encoding,
    version: i16,
) -> Result<(), EncodeError> {
    check_unknown_tags(unknown, &[], encoding, version)?;
    w.write_uvarint(unknown.len() as u32);
    write_unknown_tags_below(w, unknown, 0, u64::MAX)?;
    Ok(())
}

/// A top-level message (one spec file): request, response, header, data or metadata record.
pub trait Message: Encode + Decode + Default + Clone + PartialEq + std::fmt::Debug {
    /// The spec's `name`, e.g. `"MetadataRequest"`.
    const NAME: &'static str;
    /// The spec's `type`.
    const KIND: MessageKind;
    /// The spec's `apiKey`; `None` when absent or `TBD`.
    const API_KEY: Option<i16>;
    /// The spec's `validVersions`.
    const VALID_VERSIONS: VersionRange;
    /// The spec's `flexibleVersions`.
    const FLEXIBLE_VERSIONS: VersionRange;

    /// Decodes exactly one message from `bytes`.
    ///
    /// # Errors
    /// Any decode error, or [`DecodeErrorKind::TrailingBytes`] when bytes are left over.
    fn decode_bytes(bytes: Bytes, version: i16) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let m = Self::decode(&mut r, version)?;
        r.finish().map_err(|e| e.in_type(Self::NAME))?;
        Ok(m)
    }

    /// Decodes one message from the front of `bytes` and leaves the rest in `bytes`.
    fn decode_prefix(bytes: &mut Bytes, version: i16) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes.clone());
        let m = Self::decode(&mut r, version)?;
        *bytes = r.take_rest();
        Ok(m)
    }
}

/// Fails with `UnsupportedVersion` unless `version` is in `valid` (decode side).
#[inline]
#[doc(hidden)]
pub fn check_decode_version(
    r: &Reader,
    version: i16,
    valid: VersionRange,
    name: &'static str,
) -> Result<(), DecodeError> {
    if valid.contains(version) {
        Ok(())
    } else {
        Err(r
            .error(DecodeErrorKind::UnsupportedVersion {
                version,
                lowest: valid.lowest,
                highest: valid.highest,
            })
            .in_type(name))
    }
}

/// Fails with `UnsupportedVersion` unless `version` is in `valid` (view side).
#[inline]
#[doc(hidden)]
pub fn check_view_version(
    c: &super::view::Cursor<'_>,
    version: i16,
    valid: VersionRange,
    name: &'static str,
) -> Result<(), DecodeError> {
    if valid.contains(version) {
        Ok(())
    } else {
        Err(c
            .error(DecodeErrorKind::UnsupportedVersion {
                version,
                lowest: valid.lowest,
                highest: valid.highest,
            })
            .in_type(name))
    }
}

/// Fails with `UnsupportedVersion` unless `version` is in `valid` (encode side).
#[inline]
#[doc(hidden)]
pub fn check_encode_version(
    version: i16,
    valid: VersionRange,
    name: &'static str,
) -> Result<(), EncodeError> {
    if valid.contains(version) {
        Ok(())
    } else {
        Err(EncodeError::new(EncodeErrorKind::UnsupportedVersion {
            version,
            lowest: valid.lowest,
            highest: valid.highest,
        })
        .in_type(name))
    }
}

/// The error for a non-default, non-ignorable field written at a version that lacks it.
#[cold]
#[doc(hidden)]
pub fn non_default(version: i16) -> EncodeError {
    EncodeError::new(EncodeErrorKind::NonDefaultField { version })
}

/// The error for `None` in a version where the field is not nullable.
#[cold]
#[doc(hidden)]
pub fn null_not_allowed(version: i16) -> EncodeError {
    EncodeError::new(EncodeErrorKind::NullNotAllowed { version })
}

#[inline]
fn put_len<S: Sink>(s: &mut S, n: usize, compact: bool, short: bool) -> Result<(), EncodeError> {
    if compact {
        if n >= u32::MAX as usize || n > i32::MAX as usize {
            return Err(EncodeError::new(EncodeErrorKind::TooLong(n)));
        }
        s.put_uvarint(n as u32 + 1);
    } else if short {
        s.put_raw(&(n as i16).to_be_bytes());
    } else {
        if n > i32::MAX as usize {
            return Err(EncodeError::new(EncodeErrorKind::TooLong(n)));
        }
        s.put_raw(&(n as i32).to_be_bytes());
    }
    Ok(())
}

/// Writes a non-null string: int16 length (or compact length+1), then UTF-8 bytes.
///
/// # Errors
/// [`EncodeErrorKind::StringTooLong`] above 32767 bytes (in both encodings, as in Kafka).
#[inline]
#[doc(hidden)]
pub fn write_string<S: Sink>(s: &mut S, v: &KStr, encoding: Encoding) -> Result<(), EncodeError> {
    let compact = encoding.is_compact();
    let n = v.len();
    if n > i16::MAX as usize {
        return Err(EncodeError::new(EncodeErrorKind::StringTooLong(n)));
    }
    put_len(s, n, compact, true)?;
    s.put_shared(v.as_bytes());
    Ok(())
}

/// Writes a nullable string; null is int16 -1 or compact 0. `nullable` says whether the version
/// allows null.
#[inline]
#[doc(hidden)]
pub fn write_nullable_string<S: Sink>(
    s: &mut S,
    v: Option<&KStr>,
    encoding: Encoding,
    nullable: Nullable,
    version: i16,
) -> Result<(), EncodeError> {
    let compact = encoding.is_compact();
    let nullable = nullable.allows_null();
    match v {
        Some(v) => write_string(s, v, encoding),
        None if !nullable => Err(null_not_allowed(version)),
        None if compact => {
            s.put_byte(0);
            Ok(())
        }
        None => {
            s.put_raw(&(-1i16).to_be_bytes());
            Ok(())
        }
    }
}

/// Writes non-null bytes or records: int32 length (or compact length+1), then the bytes.
#[inline]
#[doc(hidden)]
pub fn write_bytes<S: Sink>(s: &mut S, v: &Bytes, encoding: Encoding) -> Result<(), EncodeError> {
    let compact = encoding.is_compact();
    put_len(s, v.len(), compact, false)?;
    s.put_shared(v);
    Ok(())
}

/// Writes nullable bytes or records; null is int32 -1 or compact 0.
#[inline]
#[doc(hidden)]
pub fn write_nullable_bytes<S: Sink>(
    s: &mut S,
    v: Option<&Bytes>,
    encoding: Encoding,
    nullable: Nullable,
    version: i16,
) -> Result<(), EncodeError> {
    match v {
        Some(v) => write_bytes(s, v, encoding),
        None => write_null_len(s, encoding, nullable, version),
    }
}

/// Writes an array count: int32, or compact count+1.
#[inline]
#[doc(hidden)]
pub fn write_array_len<S: Sink>(
    s: &mut S,
    n: usize,
    encoding: Encoding,
) -> Result<(), EncodeError> {
    let compact = encoding.is_compact();
    put_len(s, n, compact, false)
}

/// Writes the null length of bytes, records or an array (int32 -1 or compact 0).
#[inline]
#[doc(hidden)]
pub fn write_null_len<S: Sink>(
    s: &mut S,
    encoding: Encoding,
    nullable: Nullable,
    version: i16,
) -> Result<(), EncodeError> {
    let compact = encoding.is_compact();
    let nullable = nullable.allows_null();
    if !nullable {
        return Err(null_not_allowed(version));
    }
    if compact {
        s.put_byte(0);
    } else {
        s.put_raw(&(-1i32).to_be_bytes());
    }
    Ok(())
}

/// Checks that unknown tagged fields can be written: sorted by tag (ties allowed, as decoding
/// keeps duplicates), none using one of the struct's `known` tags, none at all when the version is
/// not flexible.
#[doc(hidden)]
pub fn check_unknown_tags(
    unknown: &[RawTaggedField],
    known: &[u32],
    encoding: Encoding,
    version: i16,
) -> Result<(), EncodeError> {
    let flexible = encoding.is_compact();
    if unknown.is_empty() {
        return Ok(());
    }
    if !flexible {
        return Err(EncodeError::new(EncodeErrorKind::TaggedFieldsNotFlexible {
            version,
        }));
    }
    let mut last = 0u32;
    for f in unknown {
        if f.tag < last || known.contains(&f.tag) {
            return Err(EncodeError::new(EncodeErrorKind::InvalidUnknownTag {
                tag: f.tag,
            }));
        }
        last = f.tag;
    }
    Ok(())
}

/// Writes the unknown tagged fields from `unknown[i..]` whose tag is below `below`; returns the
/// index of the first one not written. Used to merge them with known tags in ascending order.
#[inline(always)]
#[doc(hidden)]
pub fn write_unknown_tags_below<S: Sink>(
    s: &mut S,
    unknown: &[RawTaggedField],
    i: usize,
    below: u64,
) -> Result<usize, EncodeError> {
    if i >= unknown.len() {
        return Ok(i);
    }
    write_unknown_tags_below_slow(s, unknown, i, below)
}

#[inline(never)]
fn write_unknown_tags_below_slow<S: Sink>(
    s: &mut S,
    unknown: &[RawTaggedField],
    mut i: usize,
    below: u64,
) -> Result<usize, EncodeError> {
    while let Some(f) = unknown.get(i) {
        if f.tag as u64 >= below {
            break;
        }
        write_tag_header(s, f.tag, f.data.len())?;
        s.put_shared(&f.data);
        i += 1;
    }
    Ok(i)
}

/// Writes the header of one tagged field: its tag and payload size.
#[inline]
#[doc(hidden)]
pub fn write_tag_header<S: Sink>(s: &mut S, tag: u32, size: usize) -> Result<(), EncodeError> {
    if size > u32::MAX as usize {
        return Err(EncodeError::new(EncodeErrorKind::TooLong(size)));
    }
    s.put_uvarint(tag);
    s.put_uvarint(size as u32);
    Ok(())
}

/// Records an unknown tagged field read from the wire.
#[inline]
#[doc(hidden)]
pub fn push_unknown_tag(unknown: &mut UnknownTaggedFields, tag: u32, mut payload: Reader) {
    unknown.push(RawTaggedField {
        tag,
        data: payload.take_rest(),
    });
}

/// Sorts unknown tagged fields after a tagged section was read (stable: duplicates keep order).
#[inline]
#[doc(hidden)]
pub fn finish_unknown_tags(unknown: &mut [RawTaggedField]) {
    if unknown.len() > 1 {
        super::reader::sort_unknown(unknown)
    }
}
