//! A connection's writer: its answers written strictly in request order. A held Fetch, or a
//! classic JoinGroup or SyncGroup waiting for the rest of its group, delays the answers queued
//! behind it on its own connection (as in Kafka), never those of other connections. Answers
//! that are already waiting when the writer gets to them go out in one write; large ones and
//! those with shared record chunks are written as they are (vectored), never copied.

use std::time::{Duration, Instant};

use bytes::BytesMut;
use kwire_protocol::wire::Chunks;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc;

use super::framing::encode_response;
use super::shared::{End, Reserved, Shared};
use crate::reply::{group_response, FetchWait, GroupWait};

/// Answers gathered into one socket write.
const WRITE_BATCH: usize = 256 * 1024;
/// Answers at least this large are written as they are rather than copied into a batch.
const COPY_LIMIT: usize = 64 * 1024;

/// An entry of a connection's answer queue.
#[derive(Debug)]
pub enum Pending {
    /// An encoded response, size prefix included, and the bytes it reserved.
    Ready(Chunks, Reserved),
    /// A Fetch held until it has something or its deadline passes.
    Fetch {
        /// The request's correlation id.
        correlation_id: i32,
        /// The held request.
        wait: Box<FetchWait>,
    },
    /// A classic group request waiting for its answer (JoinGroup, SyncGroup).
    Group {
        /// The request's correlation id.
        correlation_id: i32,
        /// The request's version.
        version: i16,
        /// Where the answer comes from.
        wait: GroupWait,
    },
}

/// Answers a held Fetch: looked at again after every produce until it has records or its
/// deadline passes. `None` when the answer cannot be encoded.
async fn wait_fetch(correlation_id: i32, w: Box<FetchWait>, shared: &Shared) -> Option<Chunks> {
    let mut produced = shared.router.produced();
    loop {
        let force = Instant::now() >= w.deadline;
        if let Some(r) = shared.router.fetch_answer(&w, force) {
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

/// The encoded answer of a held entry (a Fetch or a classic group request), once it is ready;
/// `Err` says why the connection must end.
async fn answer_of(item: Pending, shared: &Shared) -> Result<(Chunks, Option<Reserved>), String> {
    match item {
        Pending::Ready(b, r) => Ok((b, Some(r))),
        Pending::Fetch {
            correlation_id,
            wait,
        } => match wait_fetch(correlation_id, wait, shared).await {
            Some(b) => Ok((b, None)),
            None => Err("a Fetch answer could not be encoded".to_string()),
        },
        Pending::Group {
            correlation_id,
            version,
            wait,
        } => {
            // The coordinator answers every waiting request (at the latest when a timer ends
            // the join or sync phase); a dropped sender means the server is stopping.
            let Ok(r) = wait.answer.await else {
                return Err("the server stopped before a group answer was ready".to_string());
            };
            encode_response(group_response(r), correlation_id, version)
                .map(|b| (b, None))
                .map_err(|e| format!("a group answer could not be encoded: {e}"))
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
/// (`None`), or a write fails or stalls for the idle timeout, or an answer cannot be made
/// (why it ended).
pub async fn write_loop(
    mut wr: OwnedWriteHalf,
    mut rx: mpsc::Receiver<Pending>,
    shared: &Shared,
) -> Option<End> {
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
        let (first, r) = match answer_of(item, shared).await {
            Ok(a) => a,
            Err(why) => {
                end = Some(End::ordinary(why));
                break;
            }
        };
        let mut size = first.len();
        batch.push(first);
        reserved.extend(r);
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
            Ok(Err(e)) => return Some(End::ordinary(format!("write error: {e}"))),
            Err(_) => {
                return Some(End::enforced(format!(
                    "the client read no answers for {} ms",
                    shared.config.idle_timeout_ms
                )))
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
