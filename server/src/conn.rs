//! One client connection: framing, decoding, pipelining and ordered answers.
//!
//! A connection runs two halves in one task. The reader splits complete frames off its buffer
//! (the size prefix is checked against `--max-frame-bytes` before anything is reserved), checks
//! the API and version against [`crate::apis`], decodes, and hands the request to
//! [`crate::handlers::handle`] at once; what comes back (an encoded response, or a Fetch to hold)
//! goes into a bounded queue. The writer sends the queue's entries strictly in request order: a
//! held Fetch delays the answers queued behind it on its own connection (as in Kafka), never
//! those of other connections. Up to `max_in_flight` requests are read ahead; then the reader
//! waits, and TCP pushes back on the client.
//!
//! A size prefix above the limit, a frame that does not decode, or an API key or version that is
//! not advertised ends the connection with one log line, after the answers already queued are
//! sent. So do end-of-stream, a read error, `--idle-timeout-ms` without a byte received, and a
//! client that reads no answers for that long (a stalled write). An ApiVersions request above
//! the highest version served is answered with UNSUPPORTED_VERSION in the version-0 layout
//! (KIP-511) and the connection stays open.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use kwire_protocol::generated::{RequestFrame, Response, ResponseFrame};
use kwire_protocol::wire::frame::read_frame;
use kwire_protocol::wire::{encode_exact, EncodeError, Sink};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::apis;
use crate::broker::Shared;
use crate::handlers::{self, Ctx, FetchWait, Outcome};
use crate::util::now_ms;

/// Bytes reserved for each socket read.
const READ_CHUNK: usize = 16 * 1024;
/// Answers gathered into one socket write.
const WRITE_BATCH: usize = 256 * 1024;

/// Encodes a response frame with its size prefix: header (v0, or v1 for flexible versions;
/// always v0 for ApiVersions) and body at `version`.
///
/// # Errors
/// An encode error of the header or body (e.g. a field the version cannot carry).
pub fn encode_response(
    body: Response,
    correlation_id: i32,
    version: i16,
) -> Result<Bytes, EncodeError> {
    let frame = ResponseFrame::new(body, correlation_id);
    let len = frame.encoded_len(version)?;
    encode_exact(4 + len, |w| {
        w.put_raw(&(len as u32).to_be_bytes());
        frame.encode_to(w, version)
    })
}

/// An entry of a connection's answer queue.
#[derive(Debug)]
enum Pending {
    /// An encoded response, size prefix included.
    Ready(Bytes),
    /// A Fetch held until it has something or its deadline passes.
    Fetch {
        correlation_id: i32,
        wait: Box<FetchWait>,
    },
}

/// What the reader does after a frame.
enum Step {
    Reply(Pending),
    Nothing,
    Close(String),
}

/// Handles one request frame (size prefix removed).
fn on_frame(frame: Bytes, shared: &Shared, host: &str) -> Step {
    if frame.len() < 8 {
        return Step::Close(format!(
            "a {}-byte frame cannot hold a request header",
            frame.len()
        ));
    }
    let key = i16::from_be_bytes([frame[0], frame[1]]);
    let version = i16::from_be_bytes([frame[2], frame[3]]);
    let correlation_id = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
    if key == 18 && version > apis::API_VERSIONS_MAX {
        tracing::debug!(
            version,
            correlation_id,
            "ApiVersions above the highest version served: UNSUPPORTED_VERSION"
        );
        return match encode_response(apis::api_versions_unsupported().into(), correlation_id, 0) {
            Ok(b) => Step::Reply(Pending::Ready(b)),
            Err(e) => Step::Close(format!("cannot encode the ApiVersions answer: {e}")),
        };
    }
    if !apis::is_supported(key, version) {
        return Step::Close(format!(
            "API key {key} version {version} is not served (correlation id {correlation_id})"
        ));
    }
    let RequestFrame { header, body } = match RequestFrame::decode(frame) {
        Ok(r) => r,
        Err(e) => {
            return Step::Close(format!(
                "undecodable request (API key {key} version {version}, correlation id {correlation_id}): {e}"
            ))
        }
    };
    let client_id = header.client_id.as_deref().unwrap_or("");
    tracing::debug!(api_key = key, version, correlation_id, client_id, "request");
    let ctx = Ctx {
        version,
        client_id,
        client_host: host,
        now: now_ms(),
    };
    match handlers::handle(shared, &ctx, body) {
        Outcome::Respond(body) => match encode_response(body, correlation_id, version) {
            Ok(b) => Step::Reply(Pending::Ready(b)),
            Err(e) => Step::Close(format!(
                "cannot encode the answer to API key {key} version {version}: {e}"
            )),
        },
        Outcome::Silent => Step::Nothing,
        Outcome::Park(wait) => Step::Reply(Pending::Fetch {
            correlation_id,
            wait: Box::new(wait),
        }),
    }
}

/// Serves one accepted connection until it ends.
pub(crate) async fn serve(stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let host = format!("/{}", peer.ip());
    tracing::debug!(%peer, "connection opened");
    let (rd, wr) = stream.into_split();
    let (tx, rx) = mpsc::channel(shared.config.max_in_flight.max(1));
    tokio::join!(
        read_loop(rd, tx, peer, &host, &shared),
        write_loop(wr, rx, peer, &shared)
    );
    tracing::debug!(%peer, "connection closed");
}

async fn read_loop(
    mut rd: OwnedReadHalf,
    tx: mpsc::Sender<Pending>,
    peer: SocketAddr,
    host: &str,
    shared: &Shared,
) {
    let idle = Duration::from_millis(shared.config.idle_timeout_ms.max(1));
    let max = shared.config.max_frame_bytes;
    let mut buf = BytesMut::new();
    loop {
        loop {
            match read_frame(&mut buf, max) {
                Ok(Some(frame)) => match on_frame(frame, shared, host) {
                    Step::Reply(p) => {
                        if tx.send(p).await.is_err() {
                            return;
                        }
                    }
                    Step::Nothing => {}
                    Step::Close(reason) => {
                        tracing::info!(%peer, %reason, "closing connection");
                        return;
                    }
                },
                Ok(None) => break,
                Err(e) => {
                    tracing::info!(%peer, reason = %e, "closing connection");
                    return;
                }
            }
        }
        if buf.capacity() - buf.len() < READ_CHUNK / 2 {
            buf.reserve(READ_CHUNK);
        }
        tokio::select! {
            r = tokio::time::timeout(idle, rd.read_buf(&mut buf)) => match r {
                Err(_) => {
                    tracing::info!(%peer, idle_ms = shared.config.idle_timeout_ms, "closing idle connection");
                    return;
                }
                Ok(Ok(0)) => {
                    if !buf.is_empty() {
                        tracing::debug!(%peer, bytes = buf.len(), "end of stream inside a frame");
                    }
                    return;
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    tracing::debug!(%peer, error = %e, "read error");
                    return;
                }
            },
            _ = tx.closed() => return,
        }
    }
}

/// Answers a held Fetch: re-evaluated after every produce until it has records or its deadline
/// passes. `None` when the answer cannot be encoded.
async fn wait_fetch(correlation_id: i32, w: Box<FetchWait>, shared: &Shared) -> Option<Bytes> {
    let mut produced = shared.produced.subscribe();
    loop {
        let force = Instant::now() >= w.deadline;
        let resp = {
            let b = shared.lock();
            handlers::fetch_response(&b, &w.request, w.version, force)
        };
        if let Some(r) = resp {
            return match encode_response(r.into(), correlation_id, w.version) {
                Ok(b) => Some(b),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot encode a Fetch answer");
                    None
                }
            };
        }
        let deadline = tokio::time::Instant::from_std(w.deadline);
        tokio::select! {
            r = produced.changed() => {
                if r.is_err() {
                    tokio::time::sleep_until(deadline).await;
                }
            }
            _ = tokio::time::sleep_until(deadline) => {}
        }
    }
}

async fn write_loop(
    mut wr: OwnedWriteHalf,
    mut rx: mpsc::Receiver<Pending>,
    peer: SocketAddr,
    shared: &Shared,
) {
    let mut out = BytesMut::new();
    let mut next: Option<Pending> = None;
    loop {
        let item = match next.take() {
            Some(p) => p,
            None => match rx.recv().await {
                Some(p) => p,
                None => break,
            },
        };
        match item {
            Pending::Ready(b) => out.extend_from_slice(&b),
            Pending::Fetch {
                correlation_id,
                wait,
            } => match wait_fetch(correlation_id, wait, shared).await {
                Some(b) => out.extend_from_slice(&b),
                None => break,
            },
        }
        while out.len() < WRITE_BATCH {
            match rx.try_recv() {
                Ok(Pending::Ready(b)) => out.extend_from_slice(&b),
                Ok(p) => {
                    next = Some(p);
                    break;
                }
                Err(_) => break,
            }
        }
        let idle = Duration::from_millis(shared.config.idle_timeout_ms.max(1));
        match tokio::time::timeout(idle, wr.write_all(&out)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::debug!(%peer, error = %e, "write error");
                return;
            }
            Err(_) => {
                tracing::info!(%peer, idle_ms = shared.config.idle_timeout_ms, "closing connection: the client reads no answers");
                return;
            }
        }
        out.clear();
        if out.capacity() > 4 * WRITE_BATCH {
            out = BytesMut::new();
        }
    }
    let _ = wr.shutdown().await;
}
