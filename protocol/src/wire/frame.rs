//! Size-prefixed framing: every Kafka request and response travels as an int32 byte count
//! followed by that many bytes (header + body).
//!
//! ```
//! use kwire_protocol::wire::frame::{read_frame, write_frame, FrameError};
//! use kwire_protocol::bytes::BytesMut;
//!
//! let mut out = BytesMut::new();
//! write_frame(&mut out, b"hello").unwrap();
//! assert_eq!(&out[..], b"\0\0\0\x05hello");
//! let mut input = out.clone();
//! assert_eq!(read_frame(&mut input, 1024).unwrap().unwrap(), &b"hello"[..]);
//! assert!(input.is_empty());
//! // Not enough bytes yet: nothing consumed.
//! let mut partial = BytesMut::from(&b"\0\0\0\x05hel"[..]);
//! assert_eq!(read_frame(&mut partial, 1024).unwrap(), None);
//! // A size over the limit is refused before any allocation.
//! let mut huge = BytesMut::from(&b"\x7f\xff\xff\xff"[..]);
//! assert_eq!(read_frame(&mut huge, 1024), Err(FrameError::TooLarge { size: 0x7fff_ffff, max: 1024 }));
//! ```

use bytes::{BufMut, Bytes, BytesMut};

/// A framing failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The size prefix is negative.
    NegativeSize(i32),
    /// The size prefix exceeds the configured maximum (bytes).
    TooLarge {
        /// Announced size in bytes.
        size: usize,
        /// The limit in bytes.
        max: usize,
    },
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NegativeSize(v) => write!(f, "negative frame size {v}"),
            Self::TooLarge { max, size, .. } => {
                write!(f, "frame of {size} bytes exceeds the maximum of {max}")
            }
        }
    }
}

impl std::error::Error for FrameError {}

/// Splits one complete frame (without its 4-byte size prefix) off the front of `buf`.
///
/// Returns `Ok(None)` when `buf` does not yet hold a whole frame (nothing is consumed), and an
/// error when the announced size is negative or above `max_size` bytes; the size is checked
/// before anything is reserved.
pub fn read_frame(buf: &mut BytesMut, max_size: usize) -> Result<Option<Bytes>, FrameError> {
    let Some(prefix) = buf.get(..4) else {
        return Ok(None);
    };
    let size = i32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
    if size < 0 {
        return Err(FrameError::NegativeSize(size));
    }
    let size = size as usize;
    if size > max_size {
        return Err(FrameError::TooLarge {
            size,
            max: max_size,
        });
    }
    if buf.len() < 4 + size {
        return Ok(None);
    }
    let mut frame = buf.split_to(4 + size);
    let _ = frame.split_to(4);
    Ok(Some(frame.freeze()))
}

/// Writes `frame` (header + body) preceded by its int32 size.
///
/// # Errors
/// [`FrameError::TooLarge`] when `frame` is longer than `i32::MAX` bytes.
pub fn write_frame<B: BufMut>(out: &mut B, frame: &[u8]) -> Result<(), FrameError> {
    if frame.len() > i32::MAX as usize {
        return Err(FrameError::TooLarge {
            size: frame.len(),
            max: i32::MAX as usize,
        });
    }
    out.put_i32(frame.len() as i32);
    out.put_slice(frame);
    Ok(())
}
