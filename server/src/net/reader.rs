//! A connection's reader: complete frames split off its buffer (the size prefix checked against
//! `--max-frame-bytes` before anything is reserved), the API and version checked against the
//! route table, the request decoded and handed to the router at once; what comes back (an
//! encoded answer, a Fetch to hold, a classic answer to wait for) is queued for the writer.
//!
//! What is read ahead is bounded twice: by count (`max_in_flight` queued answers) and by bytes:
//! an encoded answer reserves its size (at most the bound) from the connection's
//! `--max-queued-bytes` and from the server-wide `--max-queued-bytes-total` before it is queued,
//! and gives it back once written. While a reservation waits, the reader reads nothing more, and
//! TCP pushes back on the client. (A held Fetch reserves nothing: its answer is built by the
//! writer and written at once, and is bounded by the request's own MaxBytes.)

use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use kwire_protocol::generated::{ApiKey, Request, RequestFrame};
use kwire_protocol::wire::frame::read_frame;
use kwire_protocol::wire::Chunks;
use tokio::io::AsyncReadExt;
use tokio::net::tcp::OwnedReadHalf;
use tokio::sync::{mpsc, Semaphore};

use super::framing::{decode_request, encode_response, peek_client_id, peek_header};
use super::shared::{reserve, End, Held, Shared};
use super::writer::Pending;
use crate::context::Ctx;
use crate::events::refused;
use crate::names::api_label;
use crate::reply::Reply;
use crate::router::routes::{
    api_versions_unsupported, is_supported, unsupported_reason, API_VERSIONS_MAX,
};
use crate::util::now_ms;

/// The `tracing` target of the one DEBUG line per request (API, version, correlation id,
/// client id): `RUST_LOG=info,kwire_server::requests=debug` shows every request.
pub const REQUEST_LOG_TARGET: &str = "kwire_server::requests";

/// Bytes read at a time (the room of each read, held from the buffered-request budget).
const READ_CHUNK: usize = 16 * 1024;
/// The largest room of one read, for the rest of a large frame.
const LARGE_READ: usize = 256 * 1024;

/// What a connection knows about its client; shown in its log lines.
#[derive(Debug)]
pub struct Peer {
    /// The client's address.
    pub addr: SocketAddr,
    /// The client's address as Kafka shows it (`/127.0.0.1`).
    pub host: String,
    /// The client id of the first request that carried one.
    pub client_id: Option<String>,
    /// Requests decoded so far.
    pub requests: u64,
}

impl Peer {
    /// A client at `addr`, not identified yet.
    pub fn new(addr: SocketAddr) -> Self {
        Peer {
            addr,
            host: format!("/{}", addr.ip()),
            client_id: None,
            requests: 0,
        }
    }

    /// Logs that the request `key`/`version` of `frame` was refused, and why.
    fn refuse(&self, frame: &[u8], key: i16, version: i16, reason: impl fmt::Display) {
        let client = self.client_id.clone().or_else(|| peek_client_id(frame));
        refused(key, version, self.addr, client.as_deref(), reason).emit();
    }

    /// Learns the client id from the first request that carries one (logged, with the client
    /// software of an ApiVersions v3+ request).
    fn identify(&mut self, client_id: &str, body: &Request, version: i16) {
        if self.client_id.is_some() {
            return;
        }
        match body {
            Request::ApiVersions(r) if version >= 3 => tracing::debug!(
                "connection from {} is client {client_id} ({} {})",
                self.addr,
                &*r.client_software_name,
                &*r.client_software_version
            ),
            _ => tracing::debug!("connection from {} is client {client_id}", self.addr),
        }
        self.client_id = Some(client_id.to_string());
    }
}

/// An answer the reader has, before it is queued.
enum Answer {
    /// Encoded (size prefix included).
    Ready(Chunks),
    /// Queued as it is (a held Fetch or classic answer: it reserves nothing).
    Held(Pending),
}

/// What the reader does after a frame.
enum Step {
    Reply(Answer),
    Nothing,
    Close(End),
}

/// Checks a frame's API and version, then decodes it; the refusal step when it cannot be served.
fn check_and_decode(frame: Bytes, peer: &Peer) -> Result<RequestFrame, Step> {
    let Some((key, version, correlation_id)) = peek_header(&frame) else {
        return Err(Step::Close(End::enforced(format!(
            "a {}-byte frame cannot hold a request header",
            frame.len()
        ))));
    };
    if key == ApiKey::ApiVersions.as_i16() && version > API_VERSIONS_MAX {
        peer.refuse(
            &frame,
            key,
            version,
            format_args!(
                "{}; answered UNSUPPORTED_VERSION so that the client retries at a lower version",
                unsupported_reason(key)
            ),
        );
        return Err(
            match encode_response(api_versions_unsupported().into(), correlation_id, 0) {
                Ok(b) => Step::Reply(Answer::Ready(b)),
                Err(e) => Step::Close(End::ordinary(format!(
                    "cannot encode the ApiVersions answer: {e}"
                ))),
            },
        );
    }
    if !is_supported(key, version) {
        peer.refuse(&frame, key, version, unsupported_reason(key));
        return Err(Step::Close(End::ordinary(format!(
            "it sent {} v{version}, which is not served",
            api_label(key)
        ))));
    }
    let decoded = decode_request(frame.clone()).map_err(|e| {
        peer.refuse(
            &frame,
            key,
            version,
            format_args!("the request does not decode: {e}"),
        );
        Step::Close(End::ordinary(format!(
            "it sent an undecodable {} v{version} request",
            api_label(key)
        )))
    })?;
    if decoded.trailing > 0 {
        tracing::debug!(
            api = api_label(key),
            version,
            correlation_id,
            trailing = decoded.trailing,
            "bytes after the request body ignored, as Kafka ignores them"
        );
    }
    Ok(decoded.frame)
}

/// Handles one request frame (size prefix removed).
fn on_frame(frame: Bytes, shared: &Shared, peer: &mut Peer) -> Step {
    let RequestFrame { header, body } = match check_and_decode(frame, peer) {
        Ok(f) => f,
        Err(step) => return step,
    };
    let (key, version, correlation_id) = (
        header.request_api_key,
        header.request_api_version,
        header.correlation_id,
    );
    let client_id = header.client_id.as_deref().unwrap_or("");
    if header.client_id.is_some() {
        peer.identify(client_id, &body, version);
    }
    peer.requests += 1;
    tracing::debug!(
        target: REQUEST_LOG_TARGET,
        api = api_label(key),
        api_key = key,
        version,
        correlation_id,
        client_id,
        "request"
    );
    shared.stats.requests.fetch_add(1, Ordering::Relaxed);
    let ctx = Ctx {
        version,
        client_id,
        client_host: &peer.host,
        peer: peer.addr,
        now: now_ms(),
    };
    match shared.router.handle(&ctx, body) {
        Reply::Respond(body) => match encode_response(body, correlation_id, version) {
            Ok(b) => Step::Reply(Answer::Ready(b)),
            Err(e) => {
                tracing::warn!(
                    "cannot encode the answer to {} v{version} for {}: {e}",
                    api_label(key),
                    peer.addr
                );
                Step::Close(End::ordinary(format!(
                    "the answer to {} v{version} could not be encoded",
                    api_label(key)
                )))
            }
        },
        Reply::Silent => Step::Nothing,
        Reply::Close(why) => Step::Close(End::ordinary(why)),
        Reply::Park(wait) => Step::Reply(Answer::Held(Pending::Fetch {
            correlation_id,
            wait: Box::new(wait),
        })),
        Reply::Wait(wait) => Step::Reply(Answer::Held(Pending::Group {
            correlation_id,
            version,
            wait,
        })),
    }
}

/// Handles the complete frames in `buf` and queues their answers; `Err` ends the connection
/// (why, or `None` when the writer stopped first). Whether a frame was taken.
async fn handle_frames(
    buf: &mut BytesMut,
    tx: &mpsc::Sender<Pending>,
    peer: &mut Peer,
    shared: &Shared,
    budget: &Arc<Semaphore>,
) -> Result<bool, Option<End>> {
    let mut got_frame = false;
    loop {
        let frame = match read_frame(buf, shared.config.max_frame_bytes) {
            Ok(Some(frame)) => frame,
            Ok(None) => return Ok(got_frame),
            Err(e) => return Err(Some(End::enforced(e.to_string()))),
        };
        got_frame = true;
        let pending = match on_frame(frame, shared, peer) {
            Step::Reply(Answer::Ready(b)) => {
                let Some(r) = reserve(b.len(), budget, shared).await else {
                    return Err(Some(End::ordinary("the server is stopping")));
                };
                Pending::Ready(b, r)
            }
            Step::Reply(Answer::Held(p)) => p,
            Step::Nothing => continue,
            Step::Close(end) => return Err(Some(end)),
        };
        if tx.send(pending).await.is_err() {
            return Err(None);
        }
    }
}

/// The room to read into next: a chunk, or the rest of a frame whose size is known (up to
/// [`LARGE_READ`]).
fn read_room(buf: &BytesMut) -> usize {
    match buf.get(..4) {
        Some(p) => {
            let size = u32::from_be_bytes([p[0], p[1], p[2], p[3]]) as usize;
            (4 + size)
                .saturating_sub(buf.len())
                .clamp(READ_CHUNK, LARGE_READ)
        }
        None => READ_CHUNK,
    }
}

/// Reads, handles and queues requests until the connection ends; why it ended, or `None` when
/// the writer stopped first (the writer says why).
///
/// Bytes of incomplete frames are held from the server's `--max-buffered-request-bytes` budget
/// ([`Held`]), with the room of the next read: while the budget lacks them the reader reads
/// nothing more (backpressure). A frame not complete `--request-timeout-ms` (or the idle
/// timeout, if shorter) after its first byte ends the connection, whether its client sent it
/// too slowly or it waited for the budget; so does `--idle-timeout-ms` without a byte.
pub async fn read_loop(
    mut rd: OwnedReadHalf,
    tx: mpsc::Sender<Pending>,
    peer: &mut Peer,
    shared: &Shared,
    budget: &Arc<Semaphore>,
) -> Option<End> {
    let c = &shared.config;
    let idle = Duration::from_millis(c.idle_timeout_ms.max(1));
    let frame_limit = Duration::from_millis(c.request_timeout_ms.min(c.idle_timeout_ms).max(1));
    let mut buf = BytesMut::new();
    let mut held = Held::new(shared.buffered.clone());
    // When the first bytes of the incomplete frame now in `buf` arrived.
    let mut partial_since: Option<Instant> = None;
    loop {
        let got_frame = match handle_frames(&mut buf, &tx, peer, shared, budget).await {
            Ok(got) => got,
            Err(end) => return end,
        };
        // The frames taken are the handlers' now: only the rest stays held.
        held.shrink_to(buf.len());
        let now = Instant::now();
        if buf.is_empty() {
            partial_since = None;
        } else if got_frame || partial_since.is_none() {
            partial_since = Some(now);
        }
        let deadline = match partial_since {
            Some(t) => t + frame_limit,
            None => now + idle,
        };
        let want = (buf.len() + read_room(&buf)).min(c.max_buffered_request_bytes);
        if held.bytes() < want {
            tokio::select! {
                r = held.grow_to(want, &shared.stats) => {
                    if r.is_none() {
                        return Some(End::ordinary("the server is stopping"));
                    }
                }
                _ = tokio::time::sleep_until(deadline.into()) => {
                    return Some(waited_too_long(&buf, partial_since.is_some(), c));
                }
                _ = tx.closed() => return None,
            }
        }
        let room = held.bytes() - buf.len();
        buf.reserve(room);
        let mut into = (&mut buf).limit(room);
        tokio::select! {
            r = tokio::time::timeout_at(deadline.into(), rd.read_buf(&mut into)) => match r {
                Err(_) if partial_since.is_some() => {
                    return Some(End::enforced(format!(
                        "an incomplete request frame ({}) is older than the request timeout ({} ms)",
                        frame_progress(&buf),
                        c.request_timeout_ms.min(c.idle_timeout_ms)
                    )));
                }
                Err(_) => return Some(End::ordinary(format!("idle for {} ms", c.idle_timeout_ms))),
                Ok(Ok(0)) if buf.is_empty() => return Some(End::ordinary("the client closed it")),
                Ok(Ok(0)) => {
                    return Some(End::ordinary(format!(
                        "the client closed it inside a request frame ({} bytes read)",
                        buf.len()
                    )));
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Some(End::ordinary(format!("read error: {e}"))),
            },
            _ = tx.closed() => return None,
        }
    }
}

/// `N of M bytes` of the incomplete frame in `buf` (`N bytes` before its size is known).
fn frame_progress(buf: &BytesMut) -> String {
    match buf.get(..4) {
        Some(p) => format!(
            "{} of {} bytes",
            buf.len(),
            4 + u32::from_be_bytes([p[0], p[1], p[2], p[3]]) as usize
        ),
        None => format!("{} bytes", buf.len()),
    }
}

/// The end of a connection whose reader waited for the buffered-request budget until its
/// deadline (the request timeout of its incomplete frame, or the idle timeout).
fn waited_too_long(buf: &BytesMut, partial: bool, c: &crate::config::ServerConfig) -> End {
    let (what, ms) = if partial {
        (
            format!("an incomplete request frame ({})", frame_progress(buf)),
            c.request_timeout_ms.min(c.idle_timeout_ms),
        )
    } else {
        ("the next request".to_string(), c.idle_timeout_ms)
    };
    End::enforced(format!(
        "{what} waited {ms} ms for the server's buffered-request budget (--max-buffered-request-bytes {}, used up by other connections' frames)",
        c.max_buffered_request_bytes
    ))
}
