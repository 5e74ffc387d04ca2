//! A minimal pipelining Kafka client over kwire's codecs, for tests and the load generator:
//! requests go out with increasing correlation ids, responses are read back in order and decoded
//! with the API and version of the request they answer.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;

use bytes::{Bytes, BytesMut};
use kwire_protocol::generated::{ApiKey, Request, RequestFrame, Response, ResponseFrame};
use kwire_protocol::wire::frame::read_frame;
use kwire_protocol::wire::{encode_exact, EncodeError, Sink};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A client-side failure.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Socket error.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The server closed the connection.
    #[error("connection closed by the server")]
    Closed,
    /// A request could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// A response did not decode.
    #[error("response does not decode: {0}")]
    Decode(String),
    /// A response was read with no request waiting for it.
    #[error("unexpected response")]
    Unexpected,
}

/// Encodes a request frame with its size prefix.
///
/// # Errors
/// An encode error (e.g. a version the codec does not have).
pub fn encode_request(
    body: impl Into<Request>,
    version: i16,
    correlation_id: i32,
    client_id: Option<&str>,
) -> Result<Bytes, EncodeError> {
    let frame = RequestFrame::new(body, version, correlation_id, client_id);
    let len = frame.encoded_len()?;
    encode_exact(4 + len, |w| {
        w.put_raw(&(len as u32).to_be_bytes());
        frame.encode_to(w)
    })
}

/// A connection to a server.
#[derive(Debug)]
pub struct Client {
    stream: TcpStream,
    buf: BytesMut,
    next_correlation: i32,
    in_flight: VecDeque<(i32, ApiKey, i16)>,
    client_id: String,
    max_frame: usize,
}

impl Client {
    /// Connects to `addr`.
    ///
    /// # Errors
    /// The connect error.
    pub async fn connect(addr: SocketAddr) -> io::Result<Client> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Client {
            stream,
            buf: BytesMut::new(),
            next_correlation: 1,
            in_flight: VecDeque::new(),
            client_id: "kwire-client".into(),
            max_frame: 256 << 20,
        })
    }

    /// The client's own address (what the server sees as its peer).
    ///
    /// # Errors
    /// The socket error.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.stream.local_addr()
    }

    /// Sends a request without waiting; returns its correlation id.
    ///
    /// # Errors
    /// Encode or socket errors.
    pub async fn send(
        &mut self,
        body: impl Into<Request>,
        version: i16,
    ) -> Result<i32, ClientError> {
        let body = body.into();
        let key = body.api_key();
        let corr = self.next_correlation;
        self.next_correlation = self.next_correlation.wrapping_add(1);
        let bytes = encode_request(body, version, corr, Some(&self.client_id))?;
        self.stream.write_all(&bytes).await?;
        self.in_flight.push_back((corr, key, version));
        Ok(corr)
    }

    /// Sends raw bytes (hostile-input tests).
    ///
    /// # Errors
    /// Socket errors.
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.stream.write_all(bytes).await?;
        Ok(())
    }

    /// Reads the next whole frame (size prefix removed); `Ok(None)` at end of stream.
    ///
    /// # Errors
    /// Socket errors, or a frame above the client's limit.
    pub async fn recv_frame(&mut self) -> Result<Option<Bytes>, ClientError> {
        loop {
            match read_frame(&mut self.buf, self.max_frame) {
                Ok(Some(f)) => return Ok(Some(f)),
                Ok(None) => {}
                Err(e) => return Err(ClientError::Decode(e.to_string())),
            }
            self.buf.reserve(64 * 1024);
            if self.stream.read_buf(&mut self.buf).await? == 0 {
                return Ok(None);
            }
        }
    }

    /// Reads and decodes the next response (the answer to the oldest request sent).
    ///
    /// # Errors
    /// Socket errors, [`ClientError::Closed`], or a response that does not decode or answers
    /// another correlation id.
    pub async fn recv(&mut self) -> Result<ResponseFrame, ClientError> {
        let frame = self.recv_frame().await?.ok_or(ClientError::Closed)?;
        let (corr, key, version) = self.in_flight.pop_front().ok_or(ClientError::Unexpected)?;
        let resp = ResponseFrame::decode(frame, key, version)
            .map_err(|e| ClientError::Decode(e.to_string()))?;
        if resp.header.correlation_id != corr {
            return Err(ClientError::Decode(format!(
                "correlation id {} where {corr} was due",
                resp.header.correlation_id
            )));
        }
        Ok(resp)
    }

    /// Sends a request and reads its answer (no other request may be in flight).
    ///
    /// # Errors
    /// As [`Client::send`] and [`Client::recv`].
    pub async fn call(
        &mut self,
        body: impl Into<Request>,
        version: i16,
    ) -> Result<Response, ClientError> {
        self.send(body, version).await?;
        Ok(self.recv().await?.body)
    }
}
