//! A small pipelining Kafka client over kwire's codecs, for tests, tools and the load
//! generator. Requests go out with increasing correlation ids; answers are read back in order.
//!
//! Typed: [`Client::request`] sends an [`ApiRequest`] and decodes its answer as the request's
//! `Response` type, so a test never matches on response variants:
//!
//! ```no_run
//! # async fn demo(addr: std::net::SocketAddr) -> Result<(), kwire_server::ClientError> {
//! use kwire_protocol::generated::metadata_request::MetadataRequest;
//! let mut client = kwire_server::Client::connect(addr).await?;
//! let metadata = client.request(&MetadataRequest::default(), 12).await?;
//! println!("{} brokers", metadata.brokers.len());
//! # Ok(())
//! # }
//! ```
//!
//! Pipelined: [`Client::send`] returns a [`Sent`] ticket for each request, and [`Client::recv`]
//! takes the tickets back in the order they were sent. [`Client::call`] is the untyped form
//! (any [`Request`] in, a [`Response`] out), for callers that handle any API, e.g. comparing
//! with a real broker; [`Client::send_any`] and [`Client::recv_any`] pipeline it, and
//! [`Client::recv_as`] reads such an answer typed. [`Client::send_raw`] and
//! [`Client::recv_frame`] work on bytes (hostile input, header checks).

use std::collections::VecDeque;
use std::io;
use std::marker::PhantomData;
use std::net::SocketAddr;

use bytes::{Bytes, BytesMut};
use kwire_protocol::generated::request_header::RequestHeader;
use kwire_protocol::generated::{
    ApiKey, ApiRequest, ApiResponse, Request, RequestFrame, Response, ResponseFrame,
};
use kwire_protocol::wire::frame::read_frame;
use kwire_protocol::wire::{encode_exact, Encode, EncodeError, Sink};
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
    /// A response was read with no request waiting for it, or for another request than the one
    /// asked for.
    #[error("unexpected response: {0}")]
    Unexpected(String),
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

/// Encodes a typed request frame with its size prefix, without copying the body.
///
/// # Errors
/// An encode error (e.g. a version the codec does not have).
pub fn encode_typed<R: ApiRequest>(
    body: &R,
    version: i16,
    correlation_id: i32,
    client_id: Option<&str>,
) -> Result<Bytes, EncodeError> {
    let header = RequestHeader {
        request_api_key: R::KEY.as_i16(),
        request_api_version: version,
        correlation_id,
        client_id: client_id.map(|c| c.to_string().into()),
        ..Default::default()
    };
    // An API without this version: the body's own encode error says so.
    let hv = R::KEY.request_header_version(version).unwrap_or(1);
    let len = header.encoded_len(hv)? + body.encoded_len(version)?;
    encode_exact(4 + len, |w| {
        w.put_raw(&(len as u32).to_be_bytes());
        header.encode_to(w, hv)?;
        body.encode_to(w, version)
    })
}

/// A request sent and not answered yet: its correlation id, and the answer's type.
#[derive(Debug)]
#[must_use = "the answer is read with Client::recv"]
pub struct Sent<R> {
    /// The request's correlation id.
    pub correlation_id: i32,
    version: i16,
    api: PhantomData<fn() -> R>,
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
    /// Connects to `addr`; requests carry the client id `kwire-client`.
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

    fn next_correlation_id(&mut self) -> i32 {
        let corr = self.next_correlation;
        self.next_correlation = self.next_correlation.wrapping_add(1);
        corr
    }

    /// Sends a request and reads its answer, typed (no other request may be in flight).
    ///
    /// # Errors
    /// As [`Client::send`] and [`Client::recv`].
    pub async fn request<R: ApiRequest>(
        &mut self,
        body: &R,
        version: i16,
    ) -> Result<R::Response, ClientError> {
        let sent = self.send(body, version).await?;
        self.recv(sent).await
    }

    /// Sends a request without waiting; its answer is read with [`Client::recv`], in the order
    /// the requests were sent.
    ///
    /// # Errors
    /// Encode or socket errors.
    pub async fn send<R: ApiRequest>(
        &mut self,
        body: &R,
        version: i16,
    ) -> Result<Sent<R>, ClientError> {
        let corr = self.next_correlation_id();
        let bytes = encode_typed(body, version, corr, Some(&self.client_id))?;
        self.stream.write_all(&bytes).await?;
        self.in_flight.push_back((corr, R::KEY, version));
        Ok(Sent {
            correlation_id: corr,
            version,
            api: PhantomData,
        })
    }

    /// Sends a request the server does not answer (Produce with acks=0); returns its
    /// correlation id.
    ///
    /// # Errors
    /// Encode or socket errors.
    pub async fn send_unanswered<R: ApiRequest>(
        &mut self,
        body: &R,
        version: i16,
    ) -> Result<i32, ClientError> {
        let corr = self.next_correlation_id();
        let bytes = encode_typed(body, version, corr, Some(&self.client_id))?;
        self.stream.write_all(&bytes).await?;
        Ok(corr)
    }

    /// Reads the answer to `sent`, which must be the oldest request in flight.
    ///
    /// # Errors
    /// Socket errors, [`ClientError::Closed`], [`ClientError::Unexpected`] when `sent` is not
    /// the oldest request in flight or the answer carries another correlation id, or a
    /// response that does not decode.
    pub async fn recv<R: ApiRequest>(&mut self, sent: Sent<R>) -> Result<R::Response, ClientError> {
        match self.in_flight.front() {
            Some((corr, _, _)) if *corr == sent.correlation_id => {}
            other => {
                return Err(ClientError::Unexpected(format!(
                    "the answer to request {} asked for, the oldest in flight is {other:?}",
                    sent.correlation_id
                )))
            }
        }
        let frame = self.recv_frame().await?.ok_or(ClientError::Closed)?;
        self.in_flight.pop_front();
        let (header, body) = R::Response::decode_response_frame(frame, sent.version)
            .map_err(|e| ClientError::Decode(e.to_string()))?;
        if header.correlation_id != sent.correlation_id {
            return Err(ClientError::Unexpected(format!(
                "correlation id {} where {} was due",
                header.correlation_id, sent.correlation_id
            )));
        }
        Ok(body)
    }

    /// Sends any request without waiting (untyped); its answer is read with
    /// [`Client::recv_any`], in the order the requests were sent. Returns its correlation id.
    ///
    /// # Errors
    /// Encode or socket errors.
    pub async fn send_any(
        &mut self,
        body: impl Into<Request>,
        version: i16,
    ) -> Result<i32, ClientError> {
        let body = body.into();
        let key = body.api_key();
        let corr = self.next_correlation_id();
        let bytes = encode_request(body, version, corr, Some(&self.client_id))?;
        self.stream.write_all(&bytes).await?;
        self.in_flight.push_back((corr, key, version));
        Ok(corr)
    }

    /// Reads the answer to the oldest request in flight, untyped (decoded with the API and
    /// version of the request it answers).
    ///
    /// # Errors
    /// Socket errors, [`ClientError::Closed`], [`ClientError::Unexpected`] with nothing in
    /// flight or for another correlation id, or a response that does not decode.
    pub async fn recv_any(&mut self) -> Result<ResponseFrame, ClientError> {
        let Some(&(corr, key, version)) = self.in_flight.front() else {
            return Err(ClientError::Unexpected("no request in flight".into()));
        };
        let resp = self.recv_untyped(corr, key, version).await;
        self.in_flight.pop_front();
        resp
    }

    /// Reads the answer to the oldest request in flight as a `T`, decoded at that request's
    /// version: the typed read of an answer to [`Client::send_any`], for callers that queue
    /// requests untyped but know what each answer is.
    ///
    /// # Errors
    /// [`ClientError::Unexpected`] with nothing in flight or when the oldest request in flight
    /// is not of `T`'s API; otherwise as [`Client::recv`].
    pub async fn recv_as<T: ApiResponse>(&mut self) -> Result<T, ClientError> {
        let Some(&(corr, key, version)) = self.in_flight.front() else {
            return Err(ClientError::Unexpected("no request in flight".into()));
        };
        if key != T::KEY {
            return Err(ClientError::Unexpected(format!(
                "a {:?} answer asked for, the oldest request in flight is {key:?}",
                T::KEY
            )));
        }
        let sent = Sent::<T::Request> {
            correlation_id: corr,
            version,
            api: PhantomData,
        };
        self.recv(sent).await
    }

    /// Reads the next frame as the answer to request `corr` of `key` at `version`.
    async fn recv_untyped(
        &mut self,
        corr: i32,
        key: ApiKey,
        version: i16,
    ) -> Result<ResponseFrame, ClientError> {
        let frame = self.recv_frame().await?.ok_or(ClientError::Closed)?;
        let resp = ResponseFrame::decode(frame, key, version)
            .map_err(|e| ClientError::Decode(e.to_string()))?;
        if resp.header.correlation_id != corr {
            return Err(ClientError::Unexpected(format!(
                "correlation id {} where {corr} was due",
                resp.header.correlation_id
            )));
        }
        Ok(resp)
    }

    /// Sends any request and reads its answer, untyped (no other request may be in flight).
    ///
    /// # Errors
    /// Encode or socket errors, [`ClientError::Closed`], or a response that does not decode or
    /// answers another correlation id.
    pub async fn call(
        &mut self,
        body: impl Into<Request>,
        version: i16,
    ) -> Result<Response, ClientError> {
        let body = body.into();
        let key = body.api_key();
        let corr = self.next_correlation_id();
        let bytes = encode_request(body, version, corr, Some(&self.client_id))?;
        self.stream.write_all(&bytes).await?;
        Ok(self.recv_untyped(corr, key, version).await?.body)
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
}
