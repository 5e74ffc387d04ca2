//! The one scanner of lengths and varints: every reader of the wire format ([`super::Reader`],
//! [`super::view::Cursor`] and the trusted skips of [`super::view`]) parses them here, so Java's
//! quirks live in one place.
//!
//! Each function looks at a byte slice from a position and returns the value and the position
//! after it, or a [`ScanError`]; none panics, none moves anything on error. Every error belongs
//! to the value that starts at the given position: the caller turns it into a
//! [`DecodeError`] at that offset ([`ScanError::at`]).
//!
//! The rules, as Kafka's Java reader applies them (`ByteUtils.readUnsignedVarint`,
//! `org.apache.kafka.common.protocol.ByteBufferAccessor` and the generated `read` methods; see
//! the leniency table in [`super`]):
//!
//! * an unsigned varint has at most 5 bytes, 7 bits each, low group first; non-minimal forms
//!   are accepted, the bits of the 5th byte past the 32nd are dropped, and a 5th byte with its
//!   high bit set is [`DecodeErrorKind::VarintTooLong`];
//! * a compact length (or count) is the varint minus 1, taken as a Java `int`: 0 is null, a
//!   varint above 2^31 is negative and so null, and exactly 2^31 wraps to the length 2^31 - 1;
//! * a classic length (int16 for strings, int32 for bytes, records and array counts) of -1 is
//!   null, any other negative value is [`DecodeErrorKind::InvalidLength`].

use super::error::{DecodeError, DecodeErrorKind};

/// A length (or array count) prefix as read: null, or a length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Length {
    /// The null value (classic -1; compact 0, or a varint above 2^31).
    Null,
    /// A length in bytes (strings, bytes, records) or a count of elements (arrays).
    Len(usize),
}

impl Length {
    /// `None` for null.
    #[inline(always)]
    pub(crate) fn get(self) -> Option<usize> {
        match self {
            Length::Null => None,
            Length::Len(n) => Some(n),
        }
    }
}

/// Why a scan failed; the value it belongs to starts at the position scanned from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// The input ended inside the value, which needs (at least) this many bytes.
    Eof(u8),
    /// A varint whose 5th byte has its high bit set.
    VarintTooLong,
    /// A classic length below -1.
    InvalidLength(i32),
}

impl ScanError {
    /// The decode error for a value at absolute `offset` with `remaining` bytes left from there.
    #[cold]
    #[inline(never)]
    pub(crate) fn at(self, offset: usize, remaining: usize) -> DecodeError {
        let kind = match self {
            ScanError::Eof(needed) => DecodeErrorKind::UnexpectedEof {
                needed: needed as usize,
                remaining,
            },
            ScanError::VarintTooLong => DecodeErrorKind::VarintTooLong,
            ScanError::InvalidLength(n) => DecodeErrorKind::InvalidLength(n as i64),
        };
        DecodeError::new(kind, offset)
    }
}

/// Reads an unsigned varint at `pos`: its value and the position after it.
///
/// One- and two-byte varints (every tag, tagged-field count and short length; lengths up to
/// 16383) are read inline; longer ones out of line.
///
/// # Errors
/// [`ScanError::Eof`] (needing one byte more than were there) or [`ScanError::VarintTooLong`].
#[inline(always)]
pub(crate) fn uvarint(buf: &[u8], pos: usize) -> Result<(u32, usize), ScanError> {
    if let Some(&b) = buf.get(pos) {
        if b < 0x80 {
            return Ok((b as u32, pos + 1));
        }
        if let Some(&c) = buf.get(pos + 1) {
            if c < 0x80 {
                return Ok(((b & 0x7f) as u32 | (c as u32) << 7, pos + 2));
            }
        }
    }
    uvarint_slow(buf, pos)
}

#[inline(never)]
fn uvarint_slow(buf: &[u8], pos: usize) -> Result<(u32, usize), ScanError> {
    let mut v: u32 = 0;
    for i in 0..5 {
        let Some(&b) = buf.get(pos + i) else {
            return Err(ScanError::Eof(i as u8 + 1));
        };
        // At i = 4 the shift is 28: the byte's bits past the 32nd fall off, as in Java.
        v |= ((b & 0x7f) as u32) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((v, pos + i + 1));
        }
    }
    Err(ScanError::VarintTooLong)
}

/// What the varint `n` of a compact length or count means, as Java's `int` arithmetic gives it:
/// 0 and anything above 2^31 (negative as an `int`, so negative after `- 1`) are null; 2^31
/// (`Integer.MIN_VALUE`) minus 1 wraps to `Integer.MAX_VALUE`, the length 2^31 - 1.
#[inline(always)]
pub(crate) const fn compact_length(n: u32) -> Length {
    if n == 0 || n > 1 << 31 {
        Length::Null
    } else {
        Length::Len(n as usize - 1)
    }
}

/// Whether the uvarint marker `n` of a tagged nullable struct says present: 0 and varints of
/// 2^31 and above (negative as a Java `int`) are null.
#[inline(always)]
pub(crate) const fn tagged_present(n: u32) -> bool {
    n != 0 && n <= i32::MAX as u32
}

/// Reads a compact length or count (a uvarint of the length + 1) at `pos`.
///
/// # Errors
/// As [`uvarint`].
#[inline(always)]
pub(crate) fn compact_len(buf: &[u8], pos: usize) -> Result<(Length, usize), ScanError> {
    // The common case, a length below 127, without the general mapping.
    if let Some(&b) = buf.get(pos) {
        if b < 0x80 {
            let len = match b {
                0 => Length::Null,
                b => Length::Len(b as usize - 1),
            };
            return Ok((len, pos + 1));
        }
    }
    let (n, next) = uvarint(buf, pos)?;
    Ok((compact_length(n), next))
}

/// Reads a classic length or count at `pos`: an int16 when `short` (strings), else an int32
/// (bytes, records, array counts).
///
/// # Errors
/// [`ScanError::Eof`] when fewer than 2 (or 4) bytes are left; [`ScanError::InvalidLength`] for a
/// value below -1.
#[inline(always)]
pub(crate) fn classic_len(
    buf: &[u8],
    pos: usize,
    short: bool,
) -> Result<(Length, usize), ScanError> {
    let (n, next) = if short {
        match buf.get(pos..pos + 2) {
            Some(s) => (i16::from_be_bytes([s[0], s[1]]) as i32, pos + 2),
            None => return Err(ScanError::Eof(2)),
        }
    } else {
        match buf.get(pos..pos + 4) {
            Some(s) => (i32::from_be_bytes([s[0], s[1], s[2], s[3]]), pos + 4),
            None => return Err(ScanError::Eof(4)),
        }
    };
    match n {
        -1 => Ok((Length::Null, next)),
        n if n < 0 => Err(ScanError::InvalidLength(n)),
        n => Ok((Length::Len(n as usize), next)),
    }
}

/// Reads a length or count prefix at `pos`: compact when `compact` (flexible versions), else
/// classic (int16 when `short`, int32 otherwise).
///
/// # Errors
/// As [`compact_len`] or [`classic_len`].
#[inline(always)]
pub(crate) fn length(
    buf: &[u8],
    pos: usize,
    compact: bool,
    short: bool,
) -> Result<(Length, usize), ScanError> {
    if compact {
        compact_len(buf, pos)
    } else {
        classic_len(buf, pos, short)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes `v` as a minimal uvarint (the writer's form).
    fn minimal(mut v: u32) -> Vec<u8> {
        let mut out = Vec::new();
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out
    }

    #[test]
    fn uvarint_of_one_to_five_bytes() {
        for (v, len) in [
            (0u32, 1),
            (1, 1),
            (0x7f, 1),
            (0x80, 2),
            (300, 2),
            (0x3fff, 2),
            (0x4000, 3),
            (0x1f_ffff, 3),
            (0x20_0000, 4),
            (0xfff_ffff, 4),
            (0x1000_0000, 5),
            (1 << 31, 5),
            (u32::MAX, 5),
        ] {
            let bytes = minimal(v);
            assert_eq!(bytes.len(), len, "{v}");
            assert_eq!(uvarint(&bytes, 0), Ok((v, len)), "{v}");
            // From a position inside a larger buffer, with bytes after it.
            let mut padded = vec![0xaa, 0xbb];
            padded.extend_from_slice(&bytes);
            padded.push(0xcc);
            assert_eq!(uvarint(&padded, 2), Ok((v, len + 2)), "{v} at 2");
        }
    }

    #[test]
    fn uvarint_accepts_non_minimal_forms() {
        assert_eq!(uvarint(&[0x80, 0x00], 0), Ok((0, 2)));
        assert_eq!(uvarint(&[0x81, 0x80, 0x00], 0), Ok((1, 3)));
        assert_eq!(uvarint(&[0xff, 0x80, 0x80, 0x80, 0x00], 0), Ok((0x7f, 5)));
    }

    #[test]
    fn uvarint_fifth_byte_high_bit_is_too_long() {
        assert_eq!(
            uvarint(&[0xff, 0xff, 0xff, 0xff, 0x8f], 0),
            Err(ScanError::VarintTooLong)
        );
        assert_eq!(
            uvarint(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0),
            Err(ScanError::VarintTooLong)
        );
    }

    #[test]
    fn uvarint_drops_excess_bits_of_the_fifth_byte() {
        // 0x7f in the 5th byte: only its low 4 bits fit in 32.
        assert_eq!(
            uvarint(&[0xff, 0xff, 0xff, 0xff, 0x7f], 0),
            Ok((u32::MAX, 5))
        );
        assert_eq!(uvarint(&[0x80, 0x80, 0x80, 0x80, 0x70], 0), Ok((0, 5)));
        assert_eq!(
            uvarint(&[0x80, 0x80, 0x80, 0x80, 0x18], 0),
            Ok((1 << 31, 5))
        );
    }

    #[test]
    fn uvarint_at_the_end_needs_one_more_byte() {
        assert_eq!(uvarint(&[], 0), Err(ScanError::Eof(1)));
        assert_eq!(uvarint(&[0x05], 1), Err(ScanError::Eof(1)));
        assert_eq!(uvarint(&[0x80], 0), Err(ScanError::Eof(2)));
        assert_eq!(uvarint(&[0x80, 0x80], 0), Err(ScanError::Eof(3)));
        assert_eq!(
            uvarint(&[0x80, 0x80, 0x80, 0x80], 0),
            Err(ScanError::Eof(5))
        );
        // A position past the end is only the end.
        assert_eq!(uvarint(&[0x01], 7), Err(ScanError::Eof(1)));
    }

    #[test]
    fn compact_lengths_as_java_reads_them() {
        let len = |v: u32| compact_len(&minimal(v), 0).map(|(l, _)| l);
        assert_eq!(len(0), Ok(Length::Null));
        assert_eq!(len(1), Ok(Length::Len(0)));
        assert_eq!(len(0x7f), Ok(Length::Len(0x7e)));
        assert_eq!(len(0x80), Ok(Length::Len(0x7f)));
        assert_eq!(len(0x4000), Ok(Length::Len(0x3fff)));
        assert_eq!(len((1 << 31) - 1), Ok(Length::Len((1 << 31) - 2)));
        // 2^31 wraps to 2^31 - 1 (Integer.MIN_VALUE - 1 == Integer.MAX_VALUE).
        assert_eq!(len(1 << 31), Ok(Length::Len((1 << 31) - 1)));
        // Above 2^31 the int is negative: null.
        assert_eq!(len((1 << 31) + 1), Ok(Length::Null));
        assert_eq!(len(u32::MAX), Ok(Length::Null));
        // The position after it.
        assert_eq!(compact_len(&[9, 0x81, 0x01], 1), Ok((Length::Len(128), 3)));
        assert_eq!(compact_len(&[0x00], 0), Ok((Length::Null, 1)));
        // Errors come from the varint.
        assert_eq!(compact_len(&[], 0), Err(ScanError::Eof(1)));
        assert_eq!(compact_len(&[0x80], 0), Err(ScanError::Eof(2)));
        assert_eq!(
            compact_len(&[0xff, 0xff, 0xff, 0xff, 0xff], 0),
            Err(ScanError::VarintTooLong)
        );
        for n in [0, 1, 2, 0x7f, 0x80, 1 << 31, (1 << 31) + 1, u32::MAX] {
            assert_eq!(
                Ok((compact_length(n), minimal(n).len())),
                compact_len(&minimal(n), 0)
            );
        }
    }

    #[test]
    fn tagged_markers_as_java_reads_them() {
        assert!(!tagged_present(0));
        assert!(tagged_present(1));
        assert!(tagged_present(i32::MAX as u32));
        assert!(!tagged_present(1 << 31));
        assert!(!tagged_present(u32::MAX));
    }

    #[test]
    fn classic_int16_lengths() {
        let len = |n: i16| classic_len(&n.to_be_bytes(), 0, true);
        assert_eq!(len(0), Ok((Length::Len(0), 2)));
        assert_eq!(len(5), Ok((Length::Len(5), 2)));
        assert_eq!(len(i16::MAX), Ok((Length::Len(32767), 2)));
        assert_eq!(len(-1), Ok((Length::Null, 2)));
        assert_eq!(len(-2), Err(ScanError::InvalidLength(-2)));
        assert_eq!(len(i16::MIN), Err(ScanError::InvalidLength(-32768)));
        assert_eq!(classic_len(&[0x00], 0, true), Err(ScanError::Eof(2)));
        assert_eq!(classic_len(&[0, 0, 0, 3], 2, true), Ok((Length::Len(3), 4)));
        assert_eq!(classic_len(&[0, 0, 0], 2, true), Err(ScanError::Eof(2)));
    }

    #[test]
    fn classic_int32_lengths() {
        let len = |n: i32| classic_len(&n.to_be_bytes(), 0, false);
        assert_eq!(len(0), Ok((Length::Len(0), 4)));
        assert_eq!(len(70_000), Ok((Length::Len(70_000), 4)));
        assert_eq!(len(i32::MAX), Ok((Length::Len(i32::MAX as usize), 4)));
        assert_eq!(len(-1), Ok((Length::Null, 4)));
        assert_eq!(len(-2), Err(ScanError::InvalidLength(-2)));
        assert_eq!(len(i32::MIN), Err(ScanError::InvalidLength(i32::MIN)));
        assert_eq!(
            classic_len(&[0xff, 0xff, 0xff], 0, false),
            Err(ScanError::Eof(4))
        );
        assert_eq!(
            classic_len(&[1, 0, 0, 0, 2], 1, false),
            Ok((Length::Len(2), 5))
        );
    }

    #[test]
    fn length_picks_the_form() {
        assert_eq!(
            length(&[0x03, 0x00], 0, true, true),
            Ok((Length::Len(2), 1))
        );
        assert_eq!(
            length(&[0x00, 0x03], 0, false, true),
            Ok((Length::Len(3), 2))
        );
        assert_eq!(
            length(&[0, 0, 0, 3], 0, false, false),
            Ok((Length::Len(3), 4))
        );
    }

    #[test]
    fn errors_become_decode_errors_at_the_value() {
        let e = ScanError::Eof(4).at(10, 3);
        assert_eq!(e.offset(), 10);
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::UnexpectedEof {
                needed: 4,
                remaining: 3
            }
        );
        let e = ScanError::InvalidLength(-7).at(2, 0);
        assert_eq!(
            (e.offset(), e.kind()),
            (2, &DecodeErrorKind::InvalidLength(-7))
        );
        let e = ScanError::VarintTooLong.at(5, 5);
        assert_eq!((e.offset(), e.kind()), (5, &DecodeErrorKind::VarintTooLong));
    }
}
