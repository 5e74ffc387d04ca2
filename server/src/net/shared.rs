//! What every connection shares: the router, the configuration, the server-wide byte budgets
//! (answers queued and not yet written; incomplete request frames buffered), and the counters
//! tests and tools read; and the reservations made from the budgets.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore, TryAcquireError};

use crate::config::ServerConfig;
use crate::router::Router;

/// What every connection shares.
#[derive(Debug)]
pub struct Shared {
    /// The state behind its lock.
    pub router: Arc<Router>,
    /// The configuration.
    pub config: ServerConfig,
    /// The server-wide budget of bytes of answers queued and not yet written
    /// (`max_queued_bytes_total` permits).
    pub queued: Arc<Semaphore>,
    /// The server-wide budget of bytes of incomplete request frames buffered by the readers
    /// (`max_buffered_request_bytes` permits; see [`Held`]).
    pub buffered: Arc<Semaphore>,
    /// Counters.
    pub stats: Stats,
}

/// Counters of the server's activity.
#[derive(Debug)]
pub struct Stats {
    /// Requests decoded and handled.
    pub requests: AtomicU64,
    /// Times a connection's reader stopped reading because its answers, or all connections'
    /// answers, held their byte budget.
    pub read_pauses: watch::Sender<u64>,
    /// Times a connection's reader waited because the buffered-request budget was used up.
    pub buffer_waits: watch::Sender<u64>,
}

impl Shared {
    /// What the connections of a server with `router` and `config` share.
    pub fn new(router: Arc<Router>, config: ServerConfig) -> Self {
        Shared {
            router,
            queued: Arc::new(Semaphore::new(config.max_queued_bytes_total.max(1))),
            buffered: Arc::new(Semaphore::new(config.max_buffered_request_bytes.max(1))),
            stats: Stats {
                requests: AtomicU64::new(0),
                read_pauses: watch::channel(0).0,
                buffer_waits: watch::channel(0).0,
            },
            config,
        }
    }
}

/// Why a connection ended, and whether a person running the server needs to know (a limit or
/// a protocol error the server enforced: logged at INFO; an ordinary end is DEBUG).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct End {
    /// Why.
    pub reason: String,
    /// Whether it is logged at INFO.
    pub notable: bool,
}

impl End {
    /// An ordinary end (the client closed, idle, an error already logged as a refusal).
    pub fn ordinary(reason: impl Into<String>) -> Self {
        End {
            reason: reason.into(),
            notable: false,
        }
    }

    /// An end the server enforced (a limit passed, a frame it cannot take).
    pub fn enforced(reason: impl Into<String>) -> Self {
        End {
            reason: reason.into(),
            notable: true,
        }
    }
}

/// The bytes an answer reserved from its connection's and the server's budgets; given back
/// when dropped (once the answer is written, or the connection is gone).
#[derive(Debug)]
pub struct Reserved {
    _conn: OwnedSemaphorePermit,
    _global: OwnedSemaphorePermit,
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

/// Reserves `len` bytes (at most each bound) from the connection's budget `conn`, then from the
/// server's, waiting while they do not have them. `None` if a budget is closed.
pub async fn reserve(len: usize, conn: &Arc<Semaphore>, shared: &Shared) -> Option<Reserved> {
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

/// The bytes of the buffered-request budget one connection's reader holds: what its buffer
/// holds of incomplete frames, and the room of its next read. Given back when dropped.
#[derive(Debug)]
pub struct Held {
    budget: Arc<Semaphore>,
    bytes: usize,
}

impl Held {
    /// Nothing held yet from `budget`.
    pub fn new(budget: Arc<Semaphore>) -> Self {
        Held { budget, bytes: 0 }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Gives back what is held above `keep` bytes.
    pub fn shrink_to(&mut self, keep: usize) {
        if self.bytes > keep {
            self.budget.add_permits(self.bytes - keep);
            self.bytes = keep;
        }
    }

    /// Holds `want` bytes, waiting while the budget does not have them (the wait is counted in
    /// `stats`). `None` if the budget is closed. Cancel-safe: a wait dropped takes nothing.
    pub async fn grow_to(&mut self, want: usize, stats: &Stats) -> Option<()> {
        let Some(need) = want.checked_sub(self.bytes).filter(|n| *n > 0) else {
            return Some(());
        };
        let n = u32::try_from(need).unwrap_or(u32::MAX);
        let permits = match self.budget.try_acquire_many(n) {
            Ok(p) => p,
            Err(TryAcquireError::Closed) => return None,
            Err(TryAcquireError::NoPermits) => {
                stats.buffer_waits.send_modify(|n| *n += 1);
                self.budget.acquire_many(n).await.ok()?
            }
        };
        permits.forget();
        self.bytes += n as usize;
        Some(())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.shrink_to(0);
    }
}
