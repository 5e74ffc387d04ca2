//! [`PrimArray`]: arrays of fixed-size values (`[]int32`, `[]int64`, `[]uuid`, …) that decode
//! without allocating.
//!
//! A decoded array keeps the encoded elements as a slice of the input ([`bytes::Bytes`], like
//! strings) and reads each one on access; an array built in code holds a `Vec`. Both compare,
//! hash, print and encode the same way, element by element. Re-encoding a decoded array copies
//! its bytes in one piece.
//!
//! ```
//! use kwire_protocol::wire::PrimArray;
//! let a: PrimArray<i32> = vec![2, 1, 0].into();
//! assert_eq!(a, [2, 1, 0]);
//! assert_eq!(a.iter().sum::<i32>(), 3);
//! assert_eq!(a.get(0), Some(2));
//! ```

use super::sink::{Prim, Sink};
use bytes::Bytes;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Encoded bytes a short array keeps inline (no allocation, no reference count).
const INLINE: usize = 24;

#[derive(Clone)]
enum Repr<T> {
    /// Encoded elements, `len × SIZE` bytes, sliced from the decoded input.
    Wire(Bytes),
    /// A short array's encoded elements, copied inline (`len` bytes of `data` are used).
    Inline { len: u8, data: [u8; INLINE] },
    /// Elements built in code (or decoded when `KEEP_WIRE` is false).
    Owned(Vec<T>),
}

/// An array of fixed-size values; see the module docs.
#[derive(Clone)]
pub struct PrimArray<T: Prim> {
    repr: Repr<T>,
}

impl<T: Prim> PrimArray<T> {
    /// An empty array (no allocation).
    pub const fn new() -> Self {
        PrimArray {
            repr: Repr::Owned(Vec::new()),
        }
    }
    /// An array over encoded elements (`bytes.len()` must be a multiple of `T::SIZE`; a tail
    /// shorter than one element is ignored).
    pub fn from_wire(bytes: Bytes) -> Self {
        Self::from_wire_slice(&bytes).unwrap_or_else(|| Self::from_shared(bytes))
    }

    /// A short array copied inline from encoded elements; `None` when longer than the inline room.
    #[inline(always)]
    pub fn from_wire_slice(bytes: &[u8]) -> Option<Self> {
        if T::KEEP_WIRE && bytes.len() <= INLINE {
            let mut data = [0u8; INLINE];
            data[..bytes.len()].copy_from_slice(bytes);
            Some(PrimArray {
                repr: Repr::Inline {
                    len: bytes.len() as u8,
                    data,
                },
            })
        } else {
            None
        }
    }

    /// As [`PrimArray::from_wire_slice`] for the `len` bytes at the start of `window`, copying a
    /// whole window of 24 bytes when there is one (a fixed-size copy is much cheaper than one of
    /// variable length; the bytes past `len` are never read).
    #[inline(always)]
    pub(crate) fn from_wire_window(window: &[u8], len: usize) -> Option<Self> {
        if !T::KEEP_WIRE || len > INLINE {
            return None;
        }
        match window
            .get(..INLINE)
            .and_then(|w| <[u8; INLINE]>::try_from(w).ok())
        {
            Some(data) => Some(PrimArray {
                repr: Repr::Inline {
                    len: len as u8,
                    data,
                },
            }),
            None => Self::from_wire_slice(window.get(..len)?),
        }
    }

    fn from_shared(bytes: Bytes) -> Self {
        if T::KEEP_WIRE {
            PrimArray {
                repr: Repr::Wire(bytes),
            }
        } else {
            PrimArray {
                repr: Repr::Owned(bytes.chunks_exact(T::SIZE).map(T::from_wire).collect()),
            }
        }
    }
    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Wire(b) => b.len() / T::SIZE,
            Repr::Inline { len, .. } => *len as usize / T::SIZE,
            Repr::Owned(v) => v.len(),
        }
    }
    /// Whether there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Element `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        match &self.repr {
            Repr::Wire(b) => b.get(i * T::SIZE..(i + 1) * T::SIZE).map(T::from_wire),
            Repr::Inline { len, data } => data[..*len as usize]
                .get(i * T::SIZE..(i + 1) * T::SIZE)
                .map(T::from_wire),
            Repr::Owned(v) => v.get(i).copied(),
        }
    }
    /// The elements, in order.
    #[inline]
    pub fn iter(&self) -> PrimIter<'_, T> {
        PrimIter {
            a: self,
            front: 0,
            back: self.len(),
        }
    }
    /// The elements as a `Vec`.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }
    /// The elements as a `Vec`, without copying when the array was built from one.
    pub fn into_vec(self) -> Vec<T> {
        match self.repr {
            Repr::Owned(v) => v,
            Repr::Wire(_) | Repr::Inline { .. } => self.to_vec(),
        }
    }
    /// Appends an element (a decoded array becomes an owned one first).
    pub fn push(&mut self, value: T) {
        if !matches!(self.repr, Repr::Owned(_)) {
            self.repr = Repr::Owned(self.to_vec());
        }
        if let Repr::Owned(v) = &mut self.repr {
            v.push(value);
        }
    }
    /// The encoded elements, when the array holds them shared with the buffer it was decoded
    /// from (arrays longer than 24 bytes; shorter ones are copied inline).
    pub fn wire_bytes(&self) -> Option<&Bytes> {
        match &self.repr {
            Repr::Wire(b) => Some(b),
            _ => None,
        }
    }
    /// Writes the elements (not the count).
    #[inline]
    pub fn put_elements<S: Sink>(&self, s: &mut S) {
        match &self.repr {
            Repr::Wire(b) => s.put_shared(b),
            Repr::Inline { len, data } => s.put_window(data, *len as usize),
            Repr::Owned(v) => s.put_prims(v),
        }
    }
}

impl<T: Prim> Default for PrimArray<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Iterator over a [`PrimArray`], by value.
#[derive(Clone)]
pub struct PrimIter<'a, T: Prim> {
    a: &'a PrimArray<T>,
    front: usize,
    back: usize,
}

impl<T: Prim> Iterator for PrimIter<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.front >= self.back {
            return None;
        }
        let x = self.a.get(self.front);
        self.front += 1;
        x
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<T: Prim> DoubleEndedIterator for PrimIter<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.a.get(self.back)
    }
}

impl<T: Prim> ExactSizeIterator for PrimIter<'_, T> {}

impl<'a, T: Prim> IntoIterator for &'a PrimArray<T> {
    type Item = T;
    type IntoIter = PrimIter<'a, T>;
    fn into_iter(self) -> PrimIter<'a, T> {
        self.iter()
    }
}

impl<T: Prim> FromIterator<T> for PrimArray<T> {
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        PrimArray {
            repr: Repr::Owned(it.into_iter().collect()),
        }
    }
}

impl<T: Prim> From<Vec<T>> for PrimArray<T> {
    fn from(v: Vec<T>) -> Self {
        PrimArray {
            repr: Repr::Owned(v),
        }
    }
}

impl<T: Prim> From<&[T]> for PrimArray<T> {
    fn from(v: &[T]) -> Self {
        PrimArray {
            repr: Repr::Owned(v.to_vec()),
        }
    }
}

impl<T: Prim, const N: usize> From<[T; N]> for PrimArray<T> {
    fn from(v: [T; N]) -> Self {
        PrimArray {
            repr: Repr::Owned(v.to_vec()),
        }
    }
}

impl<T: Prim> From<PrimArray<T>> for Vec<T> {
    fn from(a: PrimArray<T>) -> Vec<T> {
        a.into_vec()
    }
}

impl<T: Prim> PartialEq for PrimArray<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<T: Prim + Eq> Eq for PrimArray<T> {}

impl<T: Prim> PartialEq<[T]> for PrimArray<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl<T: Prim> PartialEq<Vec<T>> for PrimArray<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        *self == other[..]
    }
}

impl<T: Prim, const N: usize> PartialEq<[T; N]> for PrimArray<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        *self == other[..]
    }
}

impl<T: Prim + Hash> Hash for PrimArray<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.len().hash(h);
        for x in self.iter() {
            x.hash(h);
        }
    }
}

impl<T: Prim> fmt::Debug for PrimArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
