//! One client connection: framing, decoding, pipelining and ordered answers.
//!
//! A connection runs two tasks. The reader splits complete frames off its buffer (the size
//! prefix is checked against `--max-frame-bytes` before anything is reserved), checks the API
//! and version against [`crate::apis`], decodes, and hands the request to
//! [`crate::handlers::handle`] at once; what comes back (an encoded response, or a Fetch to hold)
//! goes into a queue. The writer, a task of its own, writes each answer as soon as it is at the
//! head of the queue, strictly in request order: a held Fetch, or a classic JoinGroup or
//! SyncGroup waiting for the rest of its group, delays the answers queued behind it on its own
//! connection (as in Kafka), never those of other connections. Answers that are
//! already waiting when the writer gets to them go out in one write. Answers are encoded into
//! chunks ([`kwire_protocol::wire::Chunks`]): record sets of at least [`SPLICE_MIN`] bytes stay
//! shared with the partition log and go out with vectored writes, never copied.
//!
//! What is read ahead is bounded twice: by count (`max_in_flight` queued answers) and by bytes:
//! an encoded answer reserves its size (at most the bound) from the connection's
//! `--max-queued-bytes` and from the server-wide `--max-queued-bytes-total` before it is queued,
//! and gives it back once written. While a reservation waits, the reader reads nothing more, and
//! TCP pushes back on the client. (A held Fetch reserves nothing: its answer is built by the
//! writer and written at once, and is bounded by the request's own MaxBytes.)
//!
//! A size prefix above the limit, a frame that does not decode, or an API key or version that is
//! not advertised ends the connection, after the answers already queued are sent. So do
//! end-of-stream, a read error, `--idle-timeout-ms` without a byte received, an incomplete frame
//! older than `--idle-timeout-ms` (a trickle of bytes does not keep it alive), and a client that
//! reads no answers for that long (a stalled write). An ApiVersions request above the highest
//! version served is answered with UNSUPPORTED_VERSION in the version-0 layout (KIP-511) and the
//! connection stays open. A refused request is logged at INFO by API name (`refused Fetch v3
//! from 127.0.0.1:5555 (client rdkafka): version not supported (Fetch 4-16)`; see
//! [`crate::events::refused`]).
//!
//! Each connection logs at INFO when it opens, once its client id is known (with the client
//! software of an ApiVersions v3+ request), and when it closes: the client id, the requests it
//! sent and why it closed. Per-request lines are DEBUG.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use kwire_protocol::generated::{ApiKey, Request, RequestFrame, Response, ResponseFrame};
use kwire_protocol::wire::frame::read_frame;
use kwire_protocol::wire::{encode_chunks, Chunks, EncodeError, Sink};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio::task::JoinHandle;

use crate::apis;
use crate::broker::Shared;
use crate::events;
use crate::handlers::{self, Ctx, FetchWait, GroupWait, Outcome};
use crate::util::now_ms;

/// Bytes reserved for each socket read.
const READ_CHUNK: usize = 16 * 1024;
/// Answers gathered into one socket write.
const WRITE_BATCH: usize = 256 * 1024;
/// Answers at least this large are written as they are rather than copied into a batch.
const COPY_LIMIT: usize = 64 * 1024;
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

/// The bytes an answer reserved from its connection's and the server's budgets; given back
/// when dropped (once the answer is written, or the connection is gone).
#[derive(Debug)]
struct Reserved {
    _conn: OwnedSemaphorePermit,
    _global: OwnedSemaphorePermit,
}

/// An entry of a connection's answer queue.
#[derive(Debug)]
enum Pending {
    /// An encoded response, size prefix included, and the bytes it reserved.
    Ready(Chunks, Reserved),
    /// A Fetch held until it has something or its deadline passes.
    Fetch {
        correlation_id: i32,
        wait: Box<FetchWait>,
    },
    /// A classic group request waiting for its answer (JoinGroup, SyncGroup).
    Group {
        correlation_id: i32,
        version: i16,
        wait: GroupWait,
    },
}

/// An answer the reader has, before it is queued.
enum Answer {
    /// Encoded (size prefix included).
    Ready(Chunks),
    /// A Fetch to hold.
    Fetch {
        correlation_id: i32,
        wait: Box<FetchWait>,
    },
    /// A classic answer to wait for.
    Group {
        correlation_id: i32,
        version: i16,
        wait: GroupWait,
    },
}

/// What the reader does after a frame.
enum Step {
    Reply(Answer),
    Nothing,
    Close(String),
}

/// What a connection knows about its client; shown in its log lines.
struct Peer {
    /// The client's address.
    addr: SocketAddr,
    /// The client's address as Kafka shows it (`/127.0.0.1`).
    host: String,
    /// The client id of the first request that carried one.
    client_id: Option<String>,
    /// Requests decoded so far.
    requests: u64,
}

/// The client id of a raw request frame (header v1 and v2 both carry it as a nullable string
/// right after the correlation id), for logging a request refused before it is decoded.
fn peek_client_id(frame: &[u8]) -> Option<String> {
    let len = usize::try_from(i16::from_be_bytes([*frame.get(8)?, *frame.get(9)?])).ok()?;
    let raw = frame.get(10..10 + len)?;
    Some(String::from_utf8_lossy(raw).into_owned())
}

/// Logs at INFO that the request `key`/`version` of `frame` was refused, and why.
fn refuse(peer: &Peer, frame: &[u8], key: i16, version: i16, reason: impl std::fmt::Display) {
    let client = peer.client_id.clone().or_else(|| peek_client_id(frame));
    events::refused(key, version, peer.addr, client.as_deref(), reason);
}

/// Handles one request frame (size prefix removed).
fn on_frame(frame: Bytes, shared: &Shared, peer: &mut Peer) -> Step {
    if frame.len() < 8 {
        return Step::Close(format!(
            "a {}-byte frame cannot hold a request header",
            frame.len()
        ));
    }
    let key = i16::from_be_bytes([frame[0], frame[1]]);
    let version = i16::from_be_bytes([frame[2], frame[3]]);
    let correlation_id = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
    if key == ApiKey::ApiVersions.as_i16() && version > apis::API_VERSIONS_MAX {
        refuse(
            peer,
            &frame,
            key,
            version,
            format_args!(
                "{}; answered UNSUPPORTED_VERSION so that the client retries at a lower version",
                apis::unsupported_reason(key)
            ),
        );
        return match encode_response(apis::api_versions_unsupported().into(), correlation_id, 0) {
            Ok(b) => Step::Reply(Answer::Ready(b)),
            Err(e) => Step::Close(format!("cannot encode the ApiVersions answer: {e}")),
        };
    }
    if !apis::is_supported(key, version) {
        refuse(peer, &frame, key, version, apis::unsupported_reason(key));
        return Step::Close(format!(
            "it sent {} v{version}, which is not served",
            apis::api_label(key)
        ));
    }
    let RequestFrame { header, body } = match RequestFrame::decode(frame.clone()) {
        Ok(r) => r,
        Err(e) => {
            refuse(
                peer,
                &frame,
                key,
                version,
                format_args!("the request does not decode: {e}"),
            );
            return Step::Close(format!(
                "it sent an undecodable {} v{version} request",
                apis::api_label(key)
            ));
        }
    };
    let client_id = header.client_id.as_deref().unwrap_or("");
    if peer.client_id.is_none() && header.client_id.is_some() {
        match &body {
            Request::ApiVersions(r) if version >= 3 => tracing::info!(
                "connection from {} is client {client_id} ({} {})",
                peer.addr,
                &*r.client_software_name,
                &*r.client_software_version
            ),
            _ => tracing::info!("connection from {} is client {client_id}", peer.addr),
        }
        peer.client_id = Some(client_id.to_string());
    }
    peer.requests += 1;
    tracing::debug!(
        api = apis::api_label(key),
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
    match handlers::handle(shared, &ctx, body) {
        Outcome::Respond(body) => match encode_response(body, correlation_id, version) {
            Ok(b) => Step::Reply(Answer::Ready(b)),
            Err(e) => {
                tracing::warn!(
                    "cannot encode the answer to {} v{version} for {}: {e}",
                    apis::api_label(key),
                    peer.addr
                );
                Step::Close(format!(
                    "the answer to {} v{version} could not be encoded",
                    apis::api_label(key)
                ))
            }
        },
        Outcome::Silent => Step::Nothing,
        Outcome::Close(why) => Step::Close(why),
        Outcome::Park(wait) => Step::Reply(Answer::Fetch {
            correlation_id,
            wait: Box::new(wait),
        }),
        Outcome::Wait(wait) => Step::Reply(Answer::Group {
            correlation_id,
            version,
            wait,
        }),
    }
}

/// Aborts a task when dropped (the connection's writer, when the connection is stopped).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves one accepted connection until it ends; logs at INFO when it opens and when it closes
/// (with the client id and why).
pub(crate) async fn serve(stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let mut who = Peer {
        addr: peer,
        host: format!("/{}", peer.ip()),
        client_id: None,
        requests: 0,
    };
    tracing::info!("connection opened from {peer}");
    let (rd, wr) = stream.into_split();
    let (tx, rx) = mpsc::channel(shared.config.max_in_flight.max(1));
    let mut writer = AbortOnDrop(tokio::spawn(write_loop(wr, rx, shared.clone())));
    let budget = Arc::new(Semaphore::new(shared.config.max_queued_bytes.max(1)));
    let read_end = read_loop(rd, tx, &mut who, &shared, &budget).await;
    // The reader dropped its sender: the writer sends what is queued, then ends.
    let write_end = (&mut writer.0).await.ok().flatten();
    let reason = match (read_end, write_end) {
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => "the writer stopped".to_string(),
    };
    let client = match &who.client_id {
        Some(c) => format!(" (client {c})"),
        None => String::new(),
    };
    let requests = events::count(who.requests, "request");
    tracing::info!("connection from {peer}{client} closed after {requests}: {reason}");
}

/// Takes `len` permits (at most `max`) from `sem`, waiting while it does not have them (the
/// first wait of a reservation counts as a pause of the reader). `None` if it is closed.
async fn take(
    sem: &Arc<Semaphore>,
    len: usize,
    max: usize,
    paused: &mut bool,
    shared: &Shared,
) -> Option<OwnedSemaphorePermit> {
    let n = u32::try_from(len.clamp(1, max.max(1))).unwrap_or(u32::MAX);
    match sem.clone().try_acquire_many_owned(n) {
        Ok(p) => Some(p),
        Err(TryAcquireError::Closed) => None,
        Err(TryAcquireError::NoPermits) => {
            if !*paused {
                *paused = true;
                shared.stats.read_pauses.send_modify(|n| *n += 1);
            }
            sem.clone().acquire_many_owned(n).await.ok()
        }
    }
}

/// Reserves `len` bytes (at most each bound) from the connection's budget, then from the
/// server's, waiting while they do not have them. `None` if a budget is closed.
async fn reserve(len: usize, conn: &Arc<Semaphore>, shared: &Shared) -> Option<Reserved> {
    let mut paused = false;
    let c = shared.config.max_queued_bytes;
    let conn_permit = take(conn, len, c, &mut paused, shared).await?;
    let t = shared.config.max_queued_bytes_total;
    let global_permit = take(&shared.queued, len, t, &mut paused, shared).await?;
    Some(Reserved {
        _conn: conn_permit,
        _global: global_permit,
    })
}

/// Reads, handles and queues requests until the connection ends; why it ended, or `None` when
/// the writer stopped first (the writer says why).
async fn read_loop(
    mut rd: OwnedReadHalf,
    tx: mpsc::Sender<Pending>,
    peer: &mut Peer,
    shared: &Shared,
    budget: &Arc<Semaphore>,
) -> Option<String> {
    let idle = Duration::from_millis(shared.config.idle_timeout_ms.max(1));
    let max = shared.config.max_frame_bytes;
    let mut buf = BytesMut::new();
    // When the first bytes of the incomplete frame now in `buf` arrived.
    let mut partial_since: Option<Instant> = None;
    loop {
        let mut got_frame = false;
        loop {
            match read_frame(&mut buf, max) {
                Ok(Some(frame)) => {
                    got_frame = true;
                    let pending = match on_frame(frame, shared, peer) {
                        Step::Reply(Answer::Ready(b)) => {
                            let Some(r) = reserve(b.len(), budget, shared).await else {
                                return Some("the server is stopping".into());
                            };
                            Pending::Ready(b, r)
                        }
                        Step::Reply(Answer::Fetch {
                            correlation_id,
                            wait,
                        }) => Pending::Fetch {
                            correlation_id,
                            wait,
                        },
                        Step::Reply(Answer::Group {
                            correlation_id,
                            version,
                            wait,
                        }) => Pending::Group {
                            correlation_id,
                            version,
                            wait,
                        },
                        Step::Nothing => continue,
                        Step::Close(reason) => return Some(reason),
                    };
                    if tx.send(pending).await.is_err() {
                        return None;
                    }
                }
                Ok(None) => break,
                Err(e) => return Some(e.to_string()),
            }
        }
        let now = Instant::now();
        if buf.is_empty() {
            partial_since = None;
        } else if got_frame || partial_since.is_none() {
            partial_since = Some(now);
        }
        let deadline = partial_since.unwrap_or(now) + idle;
        if buf.capacity() - buf.len() < READ_CHUNK / 2 {
            buf.reserve(READ_CHUNK);
        }
        tokio::select! {
            r = tokio::time::timeout_at(deadline.into(), rd.read_buf(&mut buf)) => match r {
                Err(_) if partial_since.is_some() => {
                    return Some(format!(
                        "an incomplete request frame ({} bytes) is older than the idle timeout ({} ms)",
                        buf.len(),
                        shared.config.idle_timeout_ms
                    ));
                }
                Err(_) => {
                    return Some(format!(
                        "idle for {} ms",
                        shared.config.idle_timeout_ms
                    ));
                }
                Ok(Ok(0)) if buf.is_empty() => return Some("the client closed it".into()),
                Ok(Ok(0)) => {
                    return Some(format!(
                        "the client closed it inside a request frame ({} bytes read)",
                        buf.len()
                    ));
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Some(format!("read error: {e}")),
            },
            _ = tx.closed() => return None,
        }
    }
}

/// Answers a held Fetch: re-evaluated after every produce until it has records or its deadline
/// passes. `None` when the answer cannot be encoded.
async fn wait_fetch(correlation_id: i32, w: Box<FetchWait>, shared: &Shared) -> Option<Chunks> {
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

/// Writes `batch` (answers in request order): small answers copied into one buffer, large ones
/// and those with shared record chunks written as they are (vectored).
async fn write_batch(
    wr: &mut OwnedWriteHalf,
    batch: &mut [Chunks],
    out: &mut BytesMut,
) -> std::io::Result<()> {
    out.clear();
    for b in batch.iter_mut() {
        if b.len() >= COPY_LIMIT || b.part_count() > 1 {
            if !out.is_empty() {
                wr.write_all(out).await?;
                out.clear();
            }
            wr.write_all_buf(b).await?;
        } else {
            for p in b.parts() {
                out.extend_from_slice(p);
            }
        }
    }
    if !out.is_empty() {
        wr.write_all(out).await?;
    }
    Ok(())
}

/// Writes the answers in request order until the reader is done and the queue is empty
/// (`None`), or a write fails or stalls (why).
async fn write_loop(
    mut wr: OwnedWriteHalf,
    mut rx: mpsc::Receiver<Pending>,
    shared: Arc<Shared>,
) -> Option<String> {
    let idle = Duration::from_millis(shared.config.idle_timeout_ms.max(1));
    let mut out = BytesMut::new();
    let mut batch: Vec<Chunks> = Vec::new();
    // The reservations of the answers in `batch`, given back once they are written.
    let mut reserved: Vec<Reserved> = Vec::new();
    let mut next: Option<Pending> = None;
    let mut end = None;
    loop {
        let item = match next.take() {
            Some(p) => p,
            None => match rx.recv().await {
                Some(p) => p,
                None => break,
            },
        };
        let mut size = 0usize;
        match item {
            Pending::Ready(b, r) => {
                size += b.len();
                batch.push(b);
                reserved.push(r);
            }
            Pending::Fetch {
                correlation_id,
                wait,
            } => match wait_fetch(correlation_id, wait, &shared).await {
                Some(b) => {
                    size += b.len();
                    batch.push(b);
                }
                None => {
                    end = Some("a Fetch answer could not be encoded".to_string());
                    break;
                }
            },
            Pending::Group {
                correlation_id,
                version,
                wait,
            } => {
                // The coordinator answers every waiting request (at the latest when a timer
                // ends the join or sync phase); a dropped sender means the server is stopping.
                let Ok(r) = wait.answer.await else {
                    end = Some("the server stopped before a group answer was ready".to_string());
                    break;
                };
                match encode_response(handlers::group_response(r), correlation_id, version) {
                    Ok(b) => {
                        size += b.len();
                        batch.push(b);
                    }
                    Err(e) => {
                        end = Some(format!("a group answer could not be encoded: {e}"));
                        break;
                    }
                }
            }
        }
        // Whatever else is already queued goes out in the same write.
        while size < WRITE_BATCH {
            match rx.try_recv() {
                Ok(Pending::Ready(b, r)) => {
                    size += b.len();
                    batch.push(b);
                    reserved.push(r);
                }
                Ok(p) => {
                    next = Some(p);
                    break;
                }
                Err(_) => break,
            }
        }
        match tokio::time::timeout(idle, write_batch(&mut wr, &mut batch, &mut out)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Some(format!("write error: {e}")),
            Err(_) => {
                return Some(format!(
                    "the client read no answers for {} ms",
                    shared.config.idle_timeout_ms
                ))
            }
        }
        batch.clear();
        reserved.clear();
        if out.capacity() > 4 * WRITE_BATCH {
            out = BytesMut::new();
        }
    }
    let _ = wr.shutdown().await;
    end
}
