//! Framing: a request frame's header peeked before it is decoded (API key, version,
//! correlation id, client id), the request decoded (bytes after its body ignored, as Kafka's
//! broker ignores them: see [`decode_request`]), and answers encoded with their size prefix
//! into chunks whose large record sets stay shared with the partition logs.

use bytes::Bytes;
use kwire_protocol::generated::{RequestFrame, Response, ResponseFrame};
use kwire_protocol::wire::{encode_chunks, Chunks, DecodeError, EncodeError, Reader, Sink};

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

/// A request decoded from its frame, and how many bytes of the frame followed it.
#[derive(Debug)]
pub struct Decoded {
    /// The header and body.
    pub frame: RequestFrame,
    /// Bytes left in the frame after the body (ignored).
    pub trailing: usize,
}

/// Decodes a request frame (size prefix removed): header and body, as Kafka's broker reads it
/// (`RequestContext.parseRequest` reads the header and the body and leaves whatever follows
/// unread). Bytes after the body are therefore accepted and ignored: librdkafka 2.16's
/// all-topics Metadata v13 request carries 3 of them, and Kafka 4.4 answers it. The strict
/// check stays the library's default ([`RequestFrame::decode`] fails with `TrailingBytes`);
/// the server uses [`RequestFrame::decode_from`], which leaves them, and logs them at DEBUG.
///
/// # Errors
/// The header's or body's decode error (a body cut short, a bad field).
pub fn decode_request(frame: Bytes) -> Result<Decoded, DecodeError> {
    let mut r = Reader::new(frame);
    let frame = RequestFrame::decode_from(&mut r)?;
    Ok(Decoded {
        frame,
        trailing: r.remaining(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kwire_protocol::generated::metadata_request::MetadataRequest;
    use kwire_protocol::generated::{ApiKey, Request};

    /// librdkafka 2.16's all-topics Metadata v13 request (AdminClient.list_topics() of
    /// confluent-kafka 2.16), size prefix removed: 3 bytes follow the body.
    const RDKAFKA_METADATA_V13: &str = "0003000d00000003000772646b61666b610000000000010000";

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    }

    #[test]
    fn trailing_bytes_are_ignored_as_kafka_does() {
        let frame = Bytes::from(unhex(RDKAFKA_METADATA_V13));
        // The library's strict decode refuses them ...
        let strict = RequestFrame::decode(frame.clone()).expect_err("strict");
        assert!(strict.to_string().contains("trailing"), "{strict}");
        // ... the server decodes the header and body and ignores them.
        let d = decode_request(frame).expect("lenient");
        assert_eq!(d.trailing, 3);
        let h = &d.frame.header;
        assert_eq!(
            (h.request_api_key, h.request_api_version, h.correlation_id),
            (ApiKey::Metadata.as_i16(), 13, 3)
        );
        assert_eq!(h.client_id.as_deref(), Some("rdkafka"));
        let all_topics = MetadataRequest {
            topics: None,
            allow_auto_topic_creation: false,
            include_topic_authorized_operations: false,
            ..Default::default()
        };
        assert_eq!(d.frame.body, Request::from(all_topics));
    }
}
