//! Where encoders write.

use bytes::{BufMut, Bytes};

/// A destination for encoded bytes. Implemented by every [`BufMut`] (so `Vec<u8>` and
/// `BytesMut` work) and by [`Counter`], which only counts: generated encoders run once over a
/// `Counter` to size a message exactly, and once over the buffer to write it.
pub trait Sink {
    /// Writes raw bytes.
    fn put_raw(&mut self, s: &[u8]);
    /// Writes shared bytes (a counter only adds their length; a buffer copies them).
    fn put_shared(&mut self, b: &Bytes) {
        self.put_raw(b)
    }
    /// Writes one byte.
    fn put_byte(&mut self, v: u8) {
        self.put_raw(&[v])
    }
    /// Writes an unsigned varint (LEB128, minimal form, at most 5 bytes).
    fn put_uvarint(&mut self, mut v: u32) {
        let mut buf = [0u8; 5];
        let mut n = 0;
        while v >= 0x80 {
            buf[n] = (v as u8) | 0x80;
            v >>= 7;
            n += 1;
        }
        buf[n] = v as u8;
        self.put_raw(&buf[..=n]);
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

/// A [`Sink`] that counts bytes instead of writing them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counter(pub usize);

impl Counter {
    /// Counts raw bytes (inherent, so generated code needs no trait import).
    #[inline]
    pub fn put_raw(&mut self, s: &[u8]) {
        self.0 += s.len();
    }
    /// Counts shared bytes.
    #[inline]
    pub fn put_shared(&mut self, b: &Bytes) {
        self.0 += b.len();
    }
    /// Counts one byte.
    #[inline]
    pub fn put_byte(&mut self, _: u8) {
        self.0 += 1;
    }
    /// Counts an unsigned varint.
    #[inline]
    pub fn put_uvarint(&mut self, v: u32) {
        self.0 += uvarint_len(v);
    }
}

impl Sink for Counter {
    #[inline]
    fn put_raw(&mut self, s: &[u8]) {
        self.0 += s.len();
    }
    #[inline]
    fn put_byte(&mut self, _: u8) {
        self.0 += 1;
    }
    #[inline]
    fn put_uvarint(&mut self, v: u32) {
        self.0 += uvarint_len(v);
    }
}

/// Bytes an unsigned varint of `v` takes (1 to 5).
#[inline]
pub const fn uvarint_len(v: u32) -> usize {
    match v {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0xfff_ffff => 4,
        _ => 5,
    }
}
