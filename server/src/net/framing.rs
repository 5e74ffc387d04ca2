//! Framing: a request frame's header peeked before it is decoded (API key, version,
//! correlation id, client id), the request decoded, and answers encoded with their size prefix
//! into chunks whose large record sets stay shared with the partition logs.

use bytes::Bytes;
use kwire_protocol::generated::{RequestFrame, Response, ResponseFrame};
use kwire_protocol::wire::{encode_chunks, Chunks, DecodeError, EncodeError, Sink};

/// Records (and bytes fields) at least this large are not copied into an answer but written
/// from the buffers that hold them (vectored writes); smaller ones are cheaper to copy.
pub const SPLICE_MIN: usize = 4 * 1024;

/// Encodes a response frame with its size prefix: header (v0, or v1 for flexible versions;
/// always v0 for ApiVersions) and body at `version`, as chunks: records of at least
/// [`SPLICE_MIN`] bytes are shared, not copied.
///
/// # Errors
/// An encode error of the header or body (e.g. a field the version cannot carry).
pub fn encode_response(
    body: Response,
    correlation_id: i32,
    version: i16,
) -> Result<Chunks, EncodeError> {
    let frame = ResponseFrame::new(body, correlation_id);
    let len = frame.encoded_len(version)?;
    encode_chunks(SPLICE_MIN, |w| {
        w.put_raw(&(len as u32).to_be_bytes());
        frame.encode_to(w, version)
    })
}

/// The client id of a raw request frame (header v1 and v2 both carry it as a nullable string
/// right after the correlation id), for logging a request refused before it is decoded.
pub fn peek_client_id(frame: &[u8]) -> Option<String> {
    let len = usize::try_from(i16::from_be_bytes([*frame.get(8)?, *frame.get(9)?])).ok()?;
    let raw = frame.get(10..10 + len)?;
    Some(String::from_utf8_lossy(raw).into_owned())
}

/// The API key, version and correlation id of a raw request frame (size prefix removed);
/// `None` under the 8 bytes they take.
pub fn peek_header(frame: &[u8]) -> Option<(i16, i16, i32)> {
    let h = frame.get(..8)?;
    Some((
        i16::from_be_bytes([h[0], h[1]]),
        i16::from_be_bytes([h[2], h[3]]),
        i32::from_be_bytes([h[4], h[5], h[6], h[7]]),
    ))
}

/// Decodes a request frame (size prefix removed): header and body.
///
/// # Errors
/// The frame's decode error.
pub fn decode_request(frame: Bytes) -> Result<RequestFrame, DecodeError> {
    RequestFrame::decode(frame)
}
