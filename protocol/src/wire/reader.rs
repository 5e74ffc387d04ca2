//! The decoding cursor.

use super::error::{DecodeError, DecodeErrorKind};
use super::prim::PrimArray;
use super::scan::{self, ScanError};
use super::sink::Prim;
use super::types::{Encoding, KStr, RawTaggedField, Uuid};
use bytes::Bytes;

/// A cursor over a [`Bytes`] buffer that knows its absolute byte offset, for errors.
///
/// Every read either returns a value or a [`DecodeError`] at the offset of the value; none
/// panics. Strings, bytes and records are slices of the buffer (no copy).
#[derive(Debug, Clone)]
pub struct Reader {
    buf: Bytes,
    pos: usize,
    base: usize,
}

/// How many elements an array decoder may reserve up front for a count read from the wire:
/// at most `count`, and at most what `2 × remaining` bytes of memory hold (at least 1 element of
/// room is not guaranteed). Growth past that happens only as elements are actually decoded.
#[inline]
pub fn bounded_capacity<T>(count: usize, remaining: usize) -> usize {
    let size = std::mem::size_of::<T>().max(1);
    count.min(remaining.saturating_mul(2) / size)
}

macro_rules! fixed {
    ($(#[$m:meta])* $name:ident, $at:ident, $t:ty, $n:expr) => {
        $(#[$m])*
        #[inline]
        pub fn $name(&mut self) -> Result<$t, DecodeError> {
            let b = self.take_array::<$n>()?;
            Ok(<$t>::from_be_bytes(b))
        }
        #[doc = concat!("As [`Reader::", stringify!($name), "`], an error naming the field `field`.")]
        #[inline]
        pub fn $at(&mut self, field: &'static str) -> Result<$t, DecodeError> {
            match self.buf.get(self.pos..self.pos + $n) {
                Some(s) => {
                    let mut a = [0u8; $n];
                    a.copy_from_slice(s);
                    self.pos += $n;
                    Ok(<$t>::from_be_bytes(a))
                }
                None => Err(self.eof_at($n, field)),
            }
        }
    };
}

impl Reader {
    /// A reader over the whole of `buf`, offsets counted from its start.
    pub fn new(buf: Bytes) -> Self {
        Reader {
            buf,
            pos: 0,
            base: 0,
        }
    }
    /// Absolute offset of the next byte.
    #[inline]
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }
    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// The bytes left, without consuming them.
    pub fn peek_rest(&self) -> &[u8] {
        &self.buf[self.pos..]
    }
    /// Consumes and returns all bytes left.
    pub fn take_rest(&mut self) -> Bytes {
        let b = self.buf.slice(self.pos..);
        self.pos = self.buf.len();
        b
    }
    /// An error of `kind` at the current offset.
    #[cold]
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.offset())
    }
    /// Fails with [`DecodeErrorKind::TrailingBytes`] if any bytes are left.
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            len => Err(self.error(DecodeErrorKind::TrailingBytes {
                offset: self.offset(),
                len,
            })),
        }
    }

    #[cold]
    #[inline(never)]
    fn eof_at(&self, needed: usize, field: &'static str) -> DecodeError {
        self.eof(needed).field(field)
    }

    #[inline]
    fn eof(&self, needed: usize) -> DecodeError {
        self.error(DecodeErrorKind::UnexpectedEof {
            needed,
            remaining: self.remaining(),
        })
    }

    #[inline]
    fn take_array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        match self.buf.get(self.pos..self.pos + N) {
            Some(s) => {
                let mut a = [0u8; N];
                a.copy_from_slice(s);
                self.pos += N;
                Ok(a)
            }
            None => Err(self.eof(N)),
        }
    }

    /// Takes `n` bytes as a zero-copy slice.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<Bytes, DecodeError> {
        if n > self.remaining() {
            return Err(self.eof(n));
        }
        let b = self.buf.slice(self.pos..self.pos + n);
        self.pos += n;
        Ok(b)
    }

    /// A reader over the next `n` bytes (offsets stay absolute); this reader skips past them.
    pub fn sub(&mut self, n: usize) -> Result<Reader, DecodeError> {
        let base = self.offset();
        let buf = self.take(n)?;
        Ok(Reader { buf, pos: 0, base })
    }

    fixed!(
        /// Reads an int8.
        i8, i8_at, i8, 1
    );
    fixed!(
        /// Reads a big-endian int16.
        i16, i16_at, i16, 2
    );
    fixed!(
        /// Reads a big-endian uint16.
        u16, u16_at, u16, 2
    );
    fixed!(
        /// Reads a big-endian int32.
        i32, i32_at, i32, 4
    );
    fixed!(
        /// Reads a big-endian uint32.
        u32, u32_at, u32, 4
    );
    fixed!(
        /// Reads a big-endian int64.
        i64, i64_at, i64, 8
    );
    fixed!(
        /// Reads a big-endian IEEE-754 float64 (raw bits kept).
        f64, f64_at, f64, 8
    );

    /// Reads a bool: any non-zero byte is true, as in Kafka.
    #[inline]
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        Ok(self.i8()? != 0)
    }

    /// As [`Reader::bool`], an error naming the field `field`.
    #[inline]
    pub fn bool_at(&mut self, field: &'static str) -> Result<bool, DecodeError> {
        Ok(self.i8_at(field)? != 0)
    }

    /// As [`Reader::uuid`], an error naming the field `field`.
    #[inline]
    pub fn uuid_at(&mut self, field: &'static str) -> Result<Uuid, DecodeError> {
        match self.buf.get(self.pos..self.pos + 16) {
            Some(s) => {
                let mut a = [0u8; 16];
                a.copy_from_slice(s);
                self.pos += 16;
                Ok(Uuid(a))
            }
            None => Err(self.eof_at(16, field)),
        }
    }

    /// Reads a uuid (16 bytes).
    #[inline]
    pub fn uuid(&mut self) -> Result<Uuid, DecodeError> {
        Ok(Uuid(self.take_array::<16>()?))
    }

    /// Reads an unsigned varint as Kafka does: up to 5 bytes, non-minimal forms accepted, excess
    /// bits of the 5th byte dropped; a 5th byte with its high bit set is an error.
    #[inline(always)]
    pub fn uvarint(&mut self) -> Result<u32, DecodeError> {
        match scan::uvarint(&self.buf, self.pos) {
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
        e.at(self.offset(), self.remaining())
    }

    /// Reads a length prefix: int16 (`short`), int32, or a compact uvarint length+1. `None` means
    /// null (see [`scan::length`] for Java's rules).
    #[inline(always)]
    fn length(&mut self, compact: bool, short: bool) -> Result<Option<usize>, DecodeError> {
        match scan::length(&self.buf, self.pos, compact, short) {
            Ok((n, next)) => {
                self.pos = next;
                Ok(n.get())
            }
            Err(e) => Err(self.scan_error(e)),
        }
    }

    /// Reads a nullable string (int16 length when `encoding` is classic, uvarint length+1 when
    /// compact).
    pub fn nullable_string(&mut self, encoding: Encoding) -> Result<Option<KStr>, DecodeError> {
        let compact = encoding.is_compact();
        let start = self.offset();
        let Some(n) = self.length(compact, true)? else {
            return Ok(None);
        };
        if n > i16::MAX as usize {
            return Err(DecodeError::new(DecodeErrorKind::StringTooLong(n), start));
        }
        let b = self.take(n)?;
        KStr::from_utf8(b)
            .map(Some)
            .map_err(|_| DecodeError::new(DecodeErrorKind::InvalidUtf8, start))
    }

    /// Reads a non-nullable string; null is [`DecodeErrorKind::NullNotAllowed`].
    #[inline]
    pub fn string(&mut self, encoding: Encoding) -> Result<KStr, DecodeError> {
        let start = self.offset();
        self.nullable_string(encoding)?
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::NullNotAllowed, start))
    }

    /// Reads nullable bytes or records (int32 length, or compact length+1).
    pub fn nullable_bytes(&mut self, encoding: Encoding) -> Result<Option<Bytes>, DecodeError> {
        let compact = encoding.is_compact();
        match self.length(compact, false)? {
            None => Ok(None),
            Some(n) => self.take(n).map(Some),
        }
    }

    /// Reads non-nullable bytes or records.
    #[inline]
    pub fn bytes(&mut self, encoding: Encoding) -> Result<Bytes, DecodeError> {
        let start = self.offset();
        self.nullable_bytes(encoding)?
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::NullNotAllowed, start))
    }

    /// Reads an array count (int32, or compact count+1); `None` is null. A count larger than the
    /// bytes left is [`DecodeErrorKind::ArrayTooLong`], as in Kafka, even for elements of 0 bytes.
    #[inline(always)]
    pub fn nullable_array_len(&mut self, encoding: Encoding) -> Result<Option<usize>, DecodeError> {
        let compact = encoding.is_compact();
        let start = self.offset();
        let n = self.length(compact, false)?;
        if let Some(count) = n {
            if count > self.remaining() {
                return Err(DecodeError::new(
                    DecodeErrorKind::ArrayTooLong {
                        count,
                        remaining: self.remaining(),
                    },
                    start,
                ));
            }
        }
        Ok(n)
    }

    /// Reads a non-nullable array count.
    #[inline]
    pub fn array_len(&mut self, encoding: Encoding) -> Result<usize, DecodeError> {
        let start = self.offset();
        self.nullable_array_len(encoding)?
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::NullNotAllowed, start))
    }

    /// Reads an array of fixed-size values without allocating (the elements stay a slice of the
    /// input); `None` is null. Errors as element-by-element decoding gives them: an array that
    /// runs out is reported at the first element that does not fit, with its index.
    #[inline(always)]
    pub fn nullable_prim_array<T: Prim>(
        &mut self,
        encoding: Encoding,
    ) -> Result<Option<PrimArray<T>>, DecodeError> {
        let Some(n) = self.nullable_array_len(encoding)? else {
            return Ok(None);
        };
        // `n` is at most the bytes left (checked above), so this cannot overflow.
        let need = n * T::SIZE;
        if need > self.remaining() {
            let i = self.remaining() / T::SIZE;
            self.pos += i * T::SIZE;
            return Err(self.eof(T::SIZE).index(i));
        }
        // Short arrays are copied inline: cheaper than sharing the buffer (no reference count).
        if let Some(a) = PrimArray::from_wire_window(&self.buf[self.pos..], need) {
            self.pos += need;
            return Ok(Some(a));
        }
        Ok(Some(PrimArray::from_wire(self.take(need)?)))
    }

    /// Reads a non-nullable array of fixed-size values; see [`Reader::nullable_prim_array`].
    #[inline(always)]
    pub fn prim_array<T: Prim>(&mut self, encoding: Encoding) -> Result<PrimArray<T>, DecodeError> {
        let start = self.offset();
        self.nullable_prim_array(encoding)?
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::NullNotAllowed, start))
    }

    /// Reads the marker byte of a non-tagged nullable struct: a negative int8 means null.
    #[inline]
    pub fn struct_present(&mut self) -> Result<bool, DecodeError> {
        Ok(self.i8()? >= 0)
    }

    /// Reads the marker of a tagged nullable struct: uvarint 0 (or ≥ 2^31) means null.
    #[inline]
    pub fn tagged_struct_present(&mut self) -> Result<bool, DecodeError> {
        Ok(scan::tagged_present(self.uvarint()?))
    }

    /// Reads the header of one tagged field: its tag and a reader over its payload.
    pub fn tagged_field(&mut self) -> Result<(u32, Reader), DecodeError> {
        let tag = self.uvarint()?;
        let size = self.uvarint()? as usize;
        Ok((tag, self.sub(size).map_err(|e| e.tag(tag))?))
    }
}

/// Keeps unknown tagged fields sorted by tag (stably), so that encoding writes them back in order.
pub(crate) fn sort_unknown(fields: &mut [RawTaggedField]) {
    if !fields.windows(2).all(|w| w[0].tag <= w[1].tag) {
        fields.sort_by_key(|f| f.tag);
    }
}
