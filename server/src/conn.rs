//! One client connection: framing, decoding, pipelining and ordered answers.
//!
//! A connection runs two tasks. The reader splits complete frames off its buffer (the size
//! prefix is checked against `--max-frame-bytes` before anything is reserved), checks the API
//! and version against [`crate::apis`], decodes, and hands the request to
//! [`crate::handlers::handle`] at once; what comes back (an encoded response, or a Fetch to hold)
//! goes into a queue. The writer, a task of its own, writes each answer as soon as it is at the
//! head of the queue, strictly in request order: a held Fetch delays the answers queued behind it
//! on its own connection (as in Kafka), never those of other connections. Answers that are
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
//! not advertised ends the connection with one log line, after the answers already queued are
//! sent. So do end-of-stream, a read error, `--idle-timeout-ms` without a byte received, an
//! incomplete frame older than `--idle-timeout-ms` (a trickle of bytes does not keep it alive),
//! and a client that reads no answers for that long (a stalled write). An ApiVersions request
//! above the highest version served is answered with UNSUPPORTED_VERSION in the version-0 layout
//! (KIP-511) and the connection stays open.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use kwire_protocol::generated::{RequestFrame, Response, ResponseFrame};
use kwire_protocol::wire::frame::read_frame;
use kwire_protocol::wire::{encode_chunks, Chunks, EncodeError, Sink};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio::task::JoinHandle;

use crate::apis;
use crate::broker::Shared;
use crate::handlers::{self, Ctx, FetchWait, Outcome};
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
}

/// What the reader does after a frame.
enum Step {
    Reply(Answer),
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
            Ok(b) => Step::Reply(Answer::Ready(b)),
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
    shared.stats.requests.fetch_add(1, Ordering::Relaxed);
    let ctx = Ctx {
        version,
        client_id,
        client_host: host,
        now: now_ms(),
    };
    match handlers::handle(shared, &ctx, body) {
        Outcome::Respond(body) => match encode_response(body, correlation_id, version) {
            Ok(b) => Step::Reply(Answer::Ready(b)),
            Err(e) => Step::Close(format!(
                "cannot encode the answer to API key {key} version {version}: {e}"
            )),
        },
        Outcome::Silent => Step::Nothing,
        Outcome::Park(wait) => Step::Reply(Answer::Fetch {
            correlation_id,
            wait: Box::new(wait),
        }),
    }
}

/// Aborts a task when dropped (the connection's writer, when the connection is stopped).
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves one accepted connection until it ends.
pub(crate) async fn serve(stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let host = format!("/{}", peer.ip());
    tracing::debug!(%peer, "connection opened");
    let (rd, wr) = stream.into_split();
    let (tx, rx) = mpsc::channel(shared.config.max_in_flight.max(1));
    let mut writer = AbortOnDrop(tokio::spawn(write_loop(wr, rx, peer, shared.clone())));
    let budget = Arc::new(Semaphore::new(shared.config.max_queued_bytes.max(1)));
    read_loop(rd, tx, peer, &host, &shared, &budget).await;
    // The reader dropped its sender: the writer sends what is queued, then ends.
    let _ = (&mut writer.0).await;
    tracing::debug!(%peer, "connection closed");
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

async fn read_loop(
    mut rd: OwnedReadHalf,
    tx: mpsc::Sender<Pending>,
    peer: SocketAddr,
    host: &str,
    shared: &Shared,
    budget: &Arc<Semaphore>,
) {
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
                    let pending = match on_frame(frame, shared, host) {
                        Step::Reply(Answer::Ready(b)) => {
                            let Some(r) = reserve(b.len(), budget, shared).await else {
                                return;
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
                        Step::Nothing => continue,
                        Step::Close(reason) => {
                            tracing::info!(%peer, %reason, "closing connection");
                            return;
                        }
                    };
                    if tx.send(pending).await.is_err() {
                        return;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::info!(%peer, reason = %e, "closing connection");
                    return;
                }
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
                    tracing::info!(%peer, idle_ms = shared.config.idle_timeout_ms, bytes = buf.len(), "closing connection: an incomplete request frame is older than the idle timeout");
                    return;
                }
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

async fn write_loop(
    mut wr: OwnedWriteHalf,
    mut rx: mpsc::Receiver<Pending>,
    peer: SocketAddr,
    shared: Arc<Shared>,
) {
    let idle = Duration::from_millis(shared.config.idle_timeout_ms.max(1));
    let mut out = BytesMut::new();
    let mut batch: Vec<Chunks> = Vec::new();
    // The reservations of the answers in `batch`, given back once they are written.
    let mut reserved: Vec<Reserved> = Vec::new();
    let mut next: Option<Pending> = None;
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
                None => break,
            },
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
            Ok(Err(e)) => {
                tracing::debug!(%peer, error = %e, "write error");
                return;
            }
            Err(_) => {
                tracing::info!(%peer, idle_ms = shared.config.idle_timeout_ms, "closing connection: the client reads no answers");
                return;
            }
        }
        batch.clear();
        reserved.clear();
        if out.capacity() > 4 * WRITE_BATCH {
            out = BytesMut::new();
        }
    }
    let _ = wr.shutdown().await;
}
