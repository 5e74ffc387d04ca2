//! One client connection: a reader ([`super::reader`]) and a writer ([`super::writer`]) joined
//! by a queue of answers in request order.
//!
//! A size prefix above the limit, a frame whose header or body does not decode, or an API key or
//! version that is not in the route table ends the connection (bytes after a decoded body are
//! ignored, as Kafka's broker ignores them: see [`super::framing::decode_request`]), after the
//! answers already queued are sent. So do end-of-stream, a read error, `--idle-timeout-ms`
//! without a byte received, a client that reads no answers for that long (a stalled write), and
//! an incomplete frame older than `--request-timeout-ms` (or the idle timeout, if shorter),
//! counted from its first byte: a trickle of bytes does not keep it alive. An ApiVersions
//! request above the highest version served is answered with UNSUPPORTED_VERSION in the
//! version-0 layout (KIP-511) and the connection stays open. A refused request is logged at INFO
//! by API name (`refused Fetch v3 from 127.0.0.1:5555 (client rdkafka): version not supported
//! (Fetch 4-16)`).
//!
//! Memory held by incomplete frames is bounded per frame (`--max-frame-bytes`, checked on the
//! size prefix before anything is reserved) and over all connections together
//! (`--max-buffered-request-bytes`): each reader holds, from that budget, the bytes of its
//! incomplete frame and the room of its next read. When the budget is used up, readers wait
//! (backpressure: TCP pushes back on their clients) until other frames complete or their
//! connections close; a frame that waits past its request timeout closes its connection, with
//! that reason. Backpressure rather than closing at once, as Kafka's `queued.max.request.bytes`
//! mutes channels while its memory pool is empty: a burst of large requests is served in turn,
//! and only a frame stuck past the timeout is refused.
//!
//! Each connection logs at DEBUG when it opens, once its client id is known (with the client
//! software of an ApiVersions v3+ request), and when it closes: the client id, the requests it
//! sent and why it closed. The close line is INFO instead when the server ended the connection
//! for a limit or a frame it cannot take (a frame too large or too short, a request timeout, the
//! buffered-request budget, a client that reads no answers): what a person running the server
//! needs to know. A refused request has its own INFO line. Per-request lines are DEBUG, under
//! the `kwire_server::requests` target.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpStream;
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinHandle;

use super::reader::{read_loop, Peer};
use super::shared::{End, Shared};
use super::writer::write_loop;
use crate::names::count;

/// Aborts a task when dropped (the connection's writer, when the connection is stopped).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves one accepted connection until it ends; logs when it opens and when it closes (with
/// the client id and why; see the module docs for the levels).
pub async fn serve(stream: TcpStream, addr: SocketAddr, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let mut peer = Peer::new(addr);
    tracing::debug!("connection opened from {addr}");
    let (rd, wr) = stream.into_split();
    let (tx, rx) = mpsc::channel(shared.config.max_in_flight.max(1));
    let writer_shared = shared.clone();
    let mut writer = AbortOnDrop(tokio::spawn(async move {
        write_loop(wr, rx, &writer_shared).await
    }));
    let budget = Arc::new(Semaphore::new(shared.config.max_queued_bytes.max(1)));
    let read_end = read_loop(rd, tx, &mut peer, &shared, &budget).await;
    // The reader dropped its sender: the writer sends what is queued, then ends.
    let write_end = (&mut writer.0).await.ok().flatten();
    let end = match (read_end, write_end) {
        (Some(e), _) | (None, Some(e)) => e,
        (None, None) => End::ordinary("the writer stopped"),
    };
    let client = match &peer.client_id {
        Some(c) => format!(" (client {c})"),
        None => String::new(),
    };
    let requests = count(peer.requests, "request");
    let reason = &end.reason;
    if end.notable {
        tracing::info!("connection from {addr}{client} closed after {requests}: {reason}");
    } else {
        tracing::debug!("connection from {addr}{client} closed after {requests}: {reason}");
    }
}
