//! Record headers (KIP-82): [`HeaderRef`] and [`HeaderIter`], read in place, and the owned
//! [`Header`] and [`Headers`]. A record's headers stay in their wire form (after the header
//! count: per header a varint key length and key, a varint value length, -1 for null, and value)
//! and are read on demand; duplicate keys and null values are kept, in order.

use std::fmt;
use std::hash::{Hash, Hasher};

use bytes::Bytes;

use super::codec::{check_header_section, header_pairs_len, read_varint, write_header_pairs};
use super::error::RecordsError;

/// One record header, read in place: key (UTF-8 in Kafka, kept as bytes) and nullable value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeaderRef<'a> {
    /// The header key.
    pub key: &'a [u8],
    /// The header value; `None` when null (kafka-protocol-rs #133).
    pub value: Option<&'a [u8]>,
}

/// Iterates headers in wire order (from [`RecordRef::headers`](super::RecordRef::headers) or
/// [`Headers::iter`]).
#[derive(Debug, Clone)]
pub struct HeaderIter<'a> {
    buf: &'a [u8],
    pos: usize,
    remaining: u32,
}

impl<'a> HeaderIter<'a> {
    /// Iterates `count` headers of `section`, which was validated (`check_header_section` or
    /// `read_record`).
    #[inline(always)]
    pub(crate) fn new(section: &'a [u8], count: u32) -> Self {
        HeaderIter {
            buf: section,
            pos: 0,
            remaining: count,
        }
    }

    #[inline(always)]
    fn field(&mut self) -> Option<Option<&'a [u8]>> {
        let len = read_varint(self.buf, &mut self.pos).ok()?;
        if len < 0 {
            return Some(None);
        }
        let start = self.pos;
        let end = start.checked_add(len as usize)?;
        let s = self.buf.get(start..end)?;
        self.pos = end;
        Some(Some(s))
    }
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = HeaderRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<HeaderRef<'a>> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        // Validated before: a failure here cannot happen, and ends iteration.
        let parsed = self.field().flatten().and_then(|key| {
            Some(HeaderRef {
                key,
                value: self.field()?,
            })
        });
        if parsed.is_none() {
            self.remaining = 0;
        }
        parsed
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

impl ExactSizeIterator for HeaderIter<'_> {}

impl std::iter::FusedIterator for HeaderIter<'_> {}

/// One owned record header: key (UTF-8 in Kafka, kept as bytes) and nullable value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Header {
    /// The header key.
    pub key: Bytes,
    /// The header value; `None` when null (kafka-protocol-rs #133).
    pub value: Option<Bytes>,
}

impl Header {
    /// The key as UTF-8 (Kafka's header keys are strings).
    ///
    /// # Errors
    /// The [`std::str::Utf8Error`] of invalid UTF-8.
    pub fn key_str(&self) -> Result<&str, std::str::Utf8Error> {
        std::str::from_utf8(&self.key)
    }
}

/// The headers of an owned [`Record`](super::Record), in wire order, duplicate keys and null
/// values kept: one [`Bytes`] holding them as the record does (so a decoded record's headers are
/// one slice of the input, not one per key and value) and their count.
///
/// Equality and hashing compare the headers (keys and values in order), not the bytes: a varint
/// written in more bytes than it needs, which Kafka reads, does not make two header lists differ.
///
/// ```
/// use kwire_protocol::records::{HeaderRef, Headers};
///
/// let h = Headers::from_pairs([(&b"trace"[..], Some(&b"1"[..])), (&b"trace"[..], None)])?;
/// assert_eq!(h.len(), 2);
/// assert_eq!(h.iter().nth(1), Some(HeaderRef { key: b"trace", value: None }));
/// assert_eq!(h.to_vec()[0].value.as_deref(), Some(&b"1"[..]));
/// # Ok::<(), kwire_protocol::records::RecordsError>(())
/// ```
#[derive(Clone, Default)]
pub struct Headers {
    section: Bytes,
    count: u32,
}

impl Headers {
    /// No headers.
    pub const fn new() -> Self {
        Headers {
            section: Bytes::new(),
            count: 0,
        }
    }

    /// Headers from (key, nullable value) pairs, in order; one allocation of their wire size.
    ///
    /// # Errors
    /// [`RecordsErrorKind::Invalid`](super::RecordsErrorKind::Invalid) for a key or value above
    /// int32 bytes or more than int32 headers.
    pub fn from_pairs<'h, I>(pairs: I) -> Result<Self, RecordsError>
    where
        I: IntoIterator<Item = (&'h [u8], Option<&'h [u8]>)>,
        I::IntoIter: Clone,
    {
        let pairs = pairs.into_iter();
        let (count, size) = header_pairs_len(pairs.clone())?;
        let count = i32::try_from(count)
            .map_err(|_| RecordsError::invalid("more than int32 headers", 0))?
            as u32;
        if count == 0 {
            return Ok(Headers::new());
        }
        let mut section = Vec::with_capacity(size);
        write_header_pairs(&mut section, pairs);
        Ok(Headers {
            section: Bytes::from(section),
            count,
        })
    }

    /// Headers from owned [`Header`]s (see [`from_pairs`](Self::from_pairs)).
    ///
    /// # Errors
    /// As [`from_pairs`](Self::from_pairs).
    pub fn from_headers(headers: &[Header]) -> Result<Self, RecordsError> {
        Self::from_pairs(headers.iter().map(|h| (&h.key[..], h.value.as_deref())))
    }

    /// Headers from their wire form: `count` headers in `section` as a record holds them after
    /// its header count (Kafka's `DefaultRecord`), sharing `section`.
    ///
    /// # Errors
    /// [`RecordsErrorKind::Invalid`](super::RecordsErrorKind::Invalid) or
    /// [`Truncated`](super::RecordsErrorKind::Truncated) (offset within `section`) when
    /// `section` is not exactly `count` headers: a null key, a length running past the end,
    /// bytes left over.
    pub fn from_wire(section: Bytes, count: u32) -> Result<Self, RecordsError> {
        check_header_section(&section, count)?;
        Ok(Headers { section, count })
    }

    /// Headers already checked by `read_record`.
    #[inline(always)]
    pub(crate) fn from_checked(section: Bytes, count: u32) -> Self {
        Headers { section, count }
    }

    /// Number of headers.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether there are no headers.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The headers in order, borrowed.
    pub fn iter(&self) -> HeaderIter<'_> {
        HeaderIter::new(&self.section, self.count)
    }

    /// The headers as owned [`Header`]s whose keys and values are slices of this list's bytes
    /// (no copy).
    pub fn to_vec(&self) -> Vec<Header> {
        self.iter()
            .map(|h| Header {
                key: self.section.slice_ref(h.key),
                value: h.value.map(|v| self.section.slice_ref(v)),
            })
            .collect()
    }

    /// The headers' wire form (after the record's header count).
    pub fn wire_bytes(&self) -> &Bytes {
        &self.section
    }
}

impl<'a> IntoIterator for &'a Headers {
    type Item = HeaderRef<'a>;
    type IntoIter = HeaderIter<'a>;

    fn into_iter(self) -> HeaderIter<'a> {
        self.iter()
    }
}

impl PartialEq for Headers {
    fn eq(&self, other: &Self) -> bool {
        self.count == other.count && (self.section == other.section || self.iter().eq(other.iter()))
    }
}

impl Eq for Headers {}

impl Hash for Headers {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.count.hash(state);
        for h in self {
            h.hash(state);
        }
    }
}

impl fmt::Debug for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_round_trip_keeping_duplicates_and_nulls() {
        let h = Headers::from_pairs([
            (&b"a"[..], Some(&b"1"[..])),
            (&b"a"[..], None),
            (&b""[..], Some(&b""[..])),
        ])
        .unwrap();
        assert_eq!(h.len(), 3);
        // a: len 1 → 2, 'a', len 1 → 2, '1'; a, null → 1; empty key 0, empty value 0.
        assert_eq!(&h.wire_bytes()[..], &[2, b'a', 2, b'1', 2, b'a', 1, 0, 0]);
        let v = h.to_vec();
        assert_eq!(
            v[1],
            Header {
                key: Bytes::from_static(b"a"),
                value: None
            }
        );
        assert_eq!(Headers::from_headers(&v).unwrap(), h);
        assert!(Headers::from_pairs(std::iter::empty()).unwrap().is_empty());
    }

    #[test]
    fn equality_is_by_headers_not_bytes() {
        let short = Headers::from_wire(Bytes::from_static(&[2, b'k', 1]), 1).unwrap();
        // The key length 1 (zigzag 2) written in two bytes, as Kafka's readVarint accepts.
        let long = Headers::from_wire(Bytes::from_static(&[0x82, 0x00, b'k', 1]), 1).unwrap();
        assert_eq!(short, long);
        let hash = |h: &Headers| {
            let mut s = std::collections::hash_map::DefaultHasher::new();
            h.hash(&mut s);
            s.finish()
        };
        assert_eq!(hash(&short), hash(&long));
        assert_eq!(
            format!("{short:?}"),
            r#"[HeaderRef { key: [107], value: None }]"#
        );
    }

    #[test]
    fn from_wire_refuses_what_a_record_would() {
        for (bytes, count, offset) in [
            (&[1u8, 1][..], 1, 0),           // null key
            (&[2, b'k', 4, b'v'][..], 1, 2), // value runs past the end
            (&[2, b'k', 1, 0][..], 1, 3),    // a byte left over
            (&[2, b'k', 1][..], 2, 0),       // count above what the bytes hold
        ] {
            let e = Headers::from_wire(Bytes::copy_from_slice(bytes), count).unwrap_err();
            assert_eq!(e.offset, offset, "{bytes:?}");
        }
    }
}
