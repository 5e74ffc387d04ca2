//! Where encoders write ([`Sink`], [`RawWriter`]), and the fixed-size values ([`Prim`]) a sink
//! writes in runs: the two traits name each other, so they live in one module.

use super::error::{EncodeError, EncodeErrorKind};
use super::types::Uuid;
use bytes::{BufMut, Bytes};
use std::fmt;

/// A fixed-size value an array element can be: big-endian on the wire.
pub trait Prim: Copy + PartialEq + fmt::Debug + Default + 'static {
    /// Encoded size in bytes.
    const SIZE: usize;
    /// Whether decoded arrays may keep the wire bytes as they are. False for `bool`, whose
    /// non-zero bytes other than 1 must be re-encoded as 1 (encoding is canonical).
    const KEEP_WIRE: bool = true;
    /// Reads one value from exactly `SIZE` bytes (shorter input reads as the default).
    fn from_wire(b: &[u8]) -> Self;
    /// Writes one value.
    fn put<S: Sink>(self, s: &mut S);
}

macro_rules! prim_int {
    ($($t:ty => $n:expr),*) => {$(
        impl Prim for $t {
            const SIZE: usize = $n;
            #[inline(always)]
            fn from_wire(b: &[u8]) -> Self {
                b.try_into().map(<$t>::from_be_bytes).unwrap_or_default()
            }
            #[inline(always)]
            fn put<S: Sink>(self, s: &mut S) {
                s.put_raw(&self.to_be_bytes())
            }
        }
    )*};
}
prim_int!(i8 => 1, i16 => 2, u16 => 2, i32 => 4, u32 => 4, i64 => 8, f64 => 8);

impl Prim for bool {
    const SIZE: usize = 1;
    const KEEP_WIRE: bool = false;
    #[inline(always)]
    fn from_wire(b: &[u8]) -> Self {
        b.first().is_some_and(|&x| x != 0)
    }
    #[inline(always)]
    fn put<S: Sink>(self, s: &mut S) {
        s.put_byte(u8::from(self))
    }
}

impl Prim for Uuid {
    const SIZE: usize = 16;
    #[inline(always)]
    fn from_wire(b: &[u8]) -> Self {
        b.try_into().map(Uuid).unwrap_or_default()
    }
    #[inline(always)]
    fn put<S: Sink>(self, s: &mut S) {
        s.put_raw(&self.0)
    }
}

/// A destination for encoded bytes. Implemented by every [`BufMut`] (so `Vec<u8>` and
/// `BytesMut` work) and by [`RawWriter`], the one sink generated encoders are compiled for (see
/// [`super::Encode`]); [`RawWriter::counter`] is the sink that only counts.
pub trait Sink {
    /// This sink as a [`RawWriter`], when it is one: encoders then write into it directly.
    #[inline]
    fn as_raw_writer(&mut self) -> Option<&mut RawWriter> {
        None
    }
    /// Writes raw bytes.
    fn put_raw(&mut self, s: &[u8]);
    /// Writes shared bytes (a buffer copies them; a [`RawWriter`] may splice them in, see
    /// [`encode_chunks`]).
    fn put_shared(&mut self, b: &Bytes) {
        self.put_raw(b)
    }
    /// Writes one byte.
    fn put_byte(&mut self, v: u8) {
        self.put_raw(&[v])
    }
    /// Writes the first `len` bytes of `data` (`len <= N`).
    #[inline]
    fn put_window<const N: usize>(&mut self, data: &[u8; N], len: usize)
    where
        Self: Sized,
    {
        self.put_raw(&data[..len.min(N)])
    }
    /// Writes fixed-size values, big-endian, one after another.
    #[inline]
    fn put_prims<T: Prim>(&mut self, v: &[T])
    where
        Self: Sized,
    {
        for x in v {
            x.put(self);
        }
    }
    /// Writes an unsigned varint (LEB128, minimal form, at most 5 bytes).
    fn put_uvarint(&mut self, v: u32) {
        let (buf, n) = uvarint_bytes(v);
        self.put_raw(&buf[..n]);
    }
}

impl<B: BufMut> Sink for B {
    #[inline]
    fn put_raw(&mut self, s: &[u8]) {
        self.put_slice(s)
    }
    #[inline]
    fn put_byte(&mut self, v: u8) {
        self.put_u8(v)
    }
}

/// A [`Sink`] over a raw, possibly uninitialized region of known capacity (the spare capacity of
/// a buffer). Writes past the capacity are not made; they are counted, so that after a pass
/// [`RawWriter::written`] is the exact size needed and [`RawWriter::overflowed`] says whether the
/// region held it. [`RawWriter::counter`] has no region at all: it only counts.
///
/// Generated encoders write to a `RawWriter` only ([`super::Encode::encode_raw`]), so each is
/// compiled once; its methods are inherent (no trait import needed).
pub struct RawWriter {
    ptr: *mut u8,
    cap: usize,
    pos: usize,
    /// Shared bytes at least this long are not copied but spliced in ([`encode_chunks`]);
    /// `usize::MAX` (the default) copies everything.
    splice_min: usize,
    /// Where splices are recorded as (position in the written bytes, bytes); null while only
    /// counting.
    splices: *mut Vec<(usize, Bytes)>,
    /// Splices made (or, while counting, that would be made).
    spliced: usize,
}

impl RawWriter {
    /// A writer over `cap` bytes at `ptr`.
    ///
    /// # Safety
    /// `ptr` must be valid for writes of `cap` bytes for as long as the writer is used.
    #[inline]
    pub(crate) unsafe fn new(ptr: *mut u8, cap: usize) -> Self {
        RawWriter {
            ptr,
            cap,
            pos: 0,
            splice_min: usize::MAX,
            splices: std::ptr::null_mut(),
            spliced: 0,
        }
    }
    /// A writer over no memory at all: every write is only counted ([`RawWriter::written`]).
    #[inline]
    pub fn counter() -> Self {
        // SAFETY: with a capacity of 0 nothing is ever written through the (dangling, aligned,
        // non-null) pointer.
        unsafe { RawWriter::new(std::ptr::NonNull::<u8>::dangling().as_ptr(), 0) }
    }
    /// Bytes written (or, after an overflow, needed).
    #[inline]
    pub fn written(&self) -> usize {
        self.pos
    }
    /// Whether some write did not fit.
    #[inline]
    pub fn overflowed(&self) -> bool {
        self.pos > self.cap
    }
    /// Writes raw bytes (as [`Sink::put_raw`], without the trait).
    #[inline(always)]
    pub fn write_raw(&mut self, s: &[u8]) {
        let end = self.pos.wrapping_add(s.len());
        if end <= self.cap && end >= self.pos {
            // SAFETY: `self.pos + s.len() <= self.cap` (checked just above, without overflow),
            // and `new`'s contract makes `ptr..ptr + cap` valid for writes (for `counter`,
            // `cap` is 0 and only empty copies, to a dangling but aligned non-null pointer, are
            // made); `s` is a shared slice, so it cannot overlap the exclusively borrowed
            // destination region.
            unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), self.ptr.add(self.pos), s.len()) };
        }
        self.pos = end.max(self.pos);
    }
    /// Writes the first `len` bytes of `data` (`len <= N`). When the region has room for all
    /// `N`, copies all of them (a fixed-size copy, much cheaper than one of variable length;
    /// the bytes past `len` are overwritten by what follows or lie past the end written).
    #[inline(always)]
    pub fn write_window<const N: usize>(&mut self, data: &[u8; N], len: usize) {
        let len = len.min(N);
        match self.pos.checked_add(N) {
            Some(end) if end <= self.cap => {
                // SAFETY: `pos + N <= cap` (checked just above, without overflow), inside the
                // region `new` vouches for; `data` is a shared array, not part of that region.
                unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(self.pos), N) };
                self.pos += len;
            }
            _ => self.write_raw(&data[..len]),
        }
    }
    /// Writes shared bytes (as [`Sink::put_shared`]); under [`encode_chunks`], long ones are
    /// spliced in (shared, not copied) and take no room here.
    #[inline(always)]
    pub fn write_shared(&mut self, b: &Bytes) {
        if b.len() >= self.splice_min {
            self.splice(b);
        } else {
            self.write_raw(b)
        }
    }
    #[inline(never)]
    fn splice(&mut self, b: &Bytes) {
        // SAFETY: `splices` is null or, set by `encode_chunks` only, points to a vector that
        // outlives this writer and that nothing else touches while it is used.
        if let Some(v) = unsafe { self.splices.as_mut() } {
            v.push((self.pos, b.clone()));
        }
        self.spliced += 1;
    }
    /// Writes one byte (as [`Sink::put_byte`]).
    #[inline(always)]
    pub fn write_byte(&mut self, v: u8) {
        if self.pos < self.cap {
            // SAFETY: `self.pos < self.cap`, inside the region `new` vouches for.
            unsafe { self.ptr.add(self.pos).write(v) };
        }
        self.pos += 1;
    }
    /// Writes an unsigned varint (as [`Sink::put_uvarint`]).
    #[inline(always)]
    pub fn write_uvarint(&mut self, v: u32) {
        if v < 0x80 {
            self.write_byte(v as u8);
        } else if v < 0x4000 {
            // Two bytes (lengths of records and of most byte fields).
            self.write_raw(&[(v as u8) | 0x80, (v >> 7) as u8]);
        } else {
            self.write_uvarint_long(v);
        }
    }
    #[inline(never)]
    fn write_uvarint_long(&mut self, v: u32) {
        let (buf, n) = uvarint_bytes(v);
        self.write_raw(&buf[..n]);
    }
}

impl Sink for RawWriter {
    #[inline]
    fn as_raw_writer(&mut self) -> Option<&mut RawWriter> {
        Some(self)
    }
    #[inline]
    fn put_prims<T: Prim>(&mut self, v: &[T]) {
        let need = v.len().saturating_mul(T::SIZE);
        if self.pos.saturating_add(need) > self.cap {
            // Does not fit: count it (the caller will see the overflow).
            self.pos = self.pos.saturating_add(need);
            return;
        }
        let mut tmp = [0u8; 16];
        for x in v {
            // SAFETY: `tmp` is valid for writes of its 16 bytes while `w` lives.
            let mut w = unsafe { RawWriter::new(tmp.as_mut_ptr(), 16) };
            x.put(&mut w);
            // SAFETY: `pos + need <= cap` was checked above, and each element adds exactly
            // `T::SIZE` bytes, so every copy stays inside the region `new` vouches for.
            unsafe { std::ptr::copy_nonoverlapping(tmp.as_ptr(), self.ptr.add(self.pos), T::SIZE) };
            self.pos += T::SIZE;
        }
    }
    #[inline(always)]
    fn put_raw(&mut self, s: &[u8]) {
        self.write_raw(s)
    }
    #[inline(always)]
    fn put_shared(&mut self, b: &Bytes) {
        self.write_shared(b)
    }
    #[inline(always)]
    fn put_byte(&mut self, v: u8) {
        self.write_byte(v)
    }
    #[inline(always)]
    fn put_window<const N: usize>(&mut self, data: &[u8; N], len: usize) {
        self.write_window(data, len)
    }
    #[inline(always)]
    fn put_uvarint(&mut self, v: u32) {
        self.write_uvarint(v)
    }
}

/// Encodes exactly `len` bytes (as sized by a [`RawWriter::counter`] pass) into a new buffer through `write`,
/// in one pass over a [`RawWriter`].
///
/// # Errors
/// What `write` returns; an internal error if `write` wrote other than `len` bytes.
pub fn encode_exact(
    len: usize,
    write: impl FnOnce(&mut RawWriter) -> Result<(), EncodeError>,
) -> Result<Bytes, EncodeError> {
    let mut v: Vec<u8> = Vec::with_capacity(len);
    let spare = v.spare_capacity_mut();
    // SAFETY: `spare` is valid for writes of `spare.len()` bytes and is not touched again until
    // the writer is done.
    let mut w = unsafe { RawWriter::new(spare.as_mut_ptr().cast(), spare.len()) };
    write(&mut w)?;
    if w.overflowed() || w.written() != len {
        return Err(EncodeError::new(EncodeErrorKind::TooLong(w.written())));
    }
    // SAFETY: the writer wrote every byte of `0..written` contiguously (no overflow), and
    // `written <= capacity`.
    unsafe { v.set_len(w.written()) };
    Ok(Bytes::from(v))
}

/// Encodes through `write` (run twice: once to size, once to write) into [`Chunks`]: shared
/// bytes of at least `splice_min` bytes (records, large byte fields) are not copied but kept
/// as chunks of their own, sharing the buffers they came from; everything else is written into
/// one new buffer, whose pieces between those chunks are the other chunks. The chunks in order
/// are exactly the bytes a contiguous encoding gives.
///
/// This is for writing to a socket with vectored writes: a FetchResponse of 1 MiB of records
/// is then encoded without copying them (as Kafka's brokers send log segments). A `splice_min`
/// of 0 is taken as 1 (empty fields are always copied).
///
/// # Errors
/// What `write` returns; an internal error if the two runs disagree.
pub fn encode_chunks(
    splice_min: usize,
    mut write: impl FnMut(&mut RawWriter) -> Result<(), EncodeError>,
) -> Result<Chunks, EncodeError> {
    let splice_min = splice_min.max(1);
    let mut c = RawWriter::counter();
    c.splice_min = splice_min;
    write(&mut c)?;
    let inline = c.written();
    let mut splices: Vec<(usize, Bytes)> = Vec::with_capacity(c.spliced);
    let buf = encode_exact(inline, |w| {
        w.splice_min = splice_min;
        w.splices = &mut splices;
        let r = write(w);
        w.splices = std::ptr::null_mut();
        r
    })?;
    let mut parts = std::collections::VecDeque::with_capacity(2 * splices.len() + 1);
    let mut at = 0;
    let mut len = buf.len();
    for (pos, b) in splices {
        if pos > at {
            parts.push_back(buf.slice(at..pos));
            at = pos;
        }
        len += b.len();
        parts.push_back(b);
    }
    if at < buf.len() {
        parts.push_back(buf.slice(at..));
    }
    Ok(Chunks { parts, len })
}

/// An encoded message as a sequence of shared buffers (see [`encode_chunks`]). A [`bytes::Buf`]:
/// write it with vectored writes (`chunks_vectored`), or flatten it with [`Chunks::to_bytes`].
/// (No `PartialEq`: equal bytes may be split differently; compare [`Chunks::to_bytes`].)
#[derive(Debug, Clone, Default)]
pub struct Chunks {
    parts: std::collections::VecDeque<Bytes>,
    len: usize,
}

impl Chunks {
    /// Total bytes left.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether no byte is left.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The chunks left, in order (none empty).
    pub fn parts(&self) -> impl Iterator<Item = &Bytes> {
        self.parts.iter()
    }
    /// Number of chunks left.
    pub fn part_count(&self) -> usize {
        self.parts.len()
    }
    /// All bytes left in one buffer (copied, unless there is a single chunk).
    pub fn to_bytes(&self) -> Bytes {
        match self.parts.len() {
            0 => Bytes::new(),
            1 => self.parts[0].clone(),
            _ => {
                let mut v = Vec::with_capacity(self.len);
                for p in &self.parts {
                    v.extend_from_slice(p);
                }
                v.into()
            }
        }
    }
}

impl bytes::Buf for Chunks {
    fn remaining(&self) -> usize {
        self.len
    }
    fn chunk(&self) -> &[u8] {
        self.parts.front().map_or(&[], |b| &b[..])
    }
    /// # Panics
    /// When `cnt` is more than [`Chunks::len`], as `Bytes` does.
    fn advance(&mut self, mut cnt: usize) {
        assert!(
            cnt <= self.len,
            "advance past the end: {cnt} > {}",
            self.len
        );
        self.len -= cnt;
        while cnt > 0 {
            let Some(front) = self.parts.front_mut() else {
                break;
            };
            if cnt < front.len() {
                front.advance(cnt);
                break;
            }
            cnt -= front.len();
            self.parts.pop_front();
        }
    }
    fn chunks_vectored<'a>(&'a self, dst: &mut [std::io::IoSlice<'a>]) -> usize {
        let mut n = 0;
        for (d, p) in dst.iter_mut().zip(&self.parts) {
            *d = std::io::IoSlice::new(p);
            n += 1;
        }
        n
    }
}

/// The minimal unsigned varint (LEB128) of `v`: its bytes, and how many of them are used (1 to 5).
#[inline]
fn uvarint_bytes(mut v: u32) -> ([u8; 5], usize) {
    let mut buf = [0u8; 5];
    let mut n = 0;
    while v >= 0x80 {
        buf[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    buf[n] = v as u8;
    (buf, n + 1)
}
