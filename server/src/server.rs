//! The listener, the accept loop and the coordinator's timer task.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinSet;

use crate::broker::{Broker, Shared, StartError};
use crate::config::ServerConfig;
use crate::conn;
use crate::events::Cause;
use crate::util::now_ms;

/// Why [`Server::run`] stopped other than by its shutdown signal.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ServeError {
    /// The durable state broke (coordinator records could not be written): the server stopped
    /// rather than go on with a state the log no longer matches.
    #[error("stopped: the durable log cannot be written: {0}")]
    DurableStateBroken(String),
}

/// A bound server, ready to [`Server::run`].
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Server {
    /// Opens the broker (replaying `--data`), binds the listener and learns the bound address,
    /// which Metadata and FindCoordinator then advertise (an unspecified IP is advertised as
    /// 127.0.0.1).
    ///
    /// # Errors
    /// [`StartError`]: an invalid configuration ([`ServerConfig::validate`]), an unreadable,
    /// corrupt or locked log, or a bind failure.
    pub async fn bind(config: ServerConfig) -> Result<Server, StartError> {
        config.validate().map_err(StartError::Invalid)?;
        let mut broker = Broker::open(&config)?;
        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| StartError::Bind {
                    addr: config.listen,
                    source,
                })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind {
            addr: config.listen,
            source,
        })?;
        broker.host = if addr.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else {
            addr.ip().to_string()
        };
        broker.port = i32::from(addr.port());
        tracing::info!(%addr, topics = broker.topics.len(), "kwire-server bound");
        Ok(Server {
            listener,
            addr,
            shared: Arc::new(Shared::new(broker, config)),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The shared state (for tests and tools that look inside).
    pub fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Accepts and serves connections, and fires the coordinator's timers, until `shutdown`
    /// completes; then stops every connection, closes the durable log (releasing the data
    /// directory) and returns. Everything durable was written when it happened, so stopping
    /// loses nothing.
    ///
    /// # Errors
    /// [`ServeError::DurableStateBroken`]: the server stopped by itself because coordinator
    /// records could not be written (see [`crate::broker`]).
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), ServeError> {
        let Server {
            listener, shared, ..
        } = self;
        let mut fatal = shared.lock().fatal();
        let timer = tokio::spawn(timer_loop(shared.clone()));
        let mut conns = JoinSet::new();
        let mut result = Ok(());
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                _ = &mut shutdown => break,
                r = async { fatal.wait_for(Option::is_some).await.map(|r| r.clone()) } => {
                    if let Ok(reason) = r {
                        result = Err(ServeError::DurableStateBroken(reason.unwrap_or_default()));
                    }
                    break;
                }
                r = listener.accept() => match r {
                    Ok((stream, peer)) => {
                        conns.spawn(conn::serve(stream, peer, shared.clone()));
                    }
                    Err(e) => {
                        // E.g. out of file descriptors: back off instead of spinning.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                Some(_) = conns.join_next(), if !conns.is_empty() => {}
            }
        }
        tracing::info!(connections = conns.len(), "shutting down");
        timer.abort();
        conns.shutdown().await;
        let _ = timer.await;
        let mut b = shared.lock();
        if let Err(e) = b.commit() {
            tracing::error!(error = %e, "the last durable writes failed");
        }
        b.close();
        result
    }
}

/// Fires the coordinator's timers at their deadlines (wall-clock ms) and writes what they
/// record. Woken early by [`Shared::timers`] after requests that may arm an earlier timer.
async fn timer_loop(shared: Arc<Shared>) {
    loop {
        let next = {
            let mut b = shared.lock();
            let now = now_ms();
            let records = b.coordinator.fire_timers(now);
            if !records.is_empty() {
                tracing::debug!(records = records.len(), "coordinator timers fired");
                b.queue_records(records, Cause::Timers);
                // A failure breaks the durable state, and the server stops (see the broker).
                let _ = b.commit();
            }
            // Classic answers the timers made ready (the end of a join or sync phase).
            b.drain_group_responses();
            b.coordinator.next_deadline()
        };
        let notified = shared.timers.notified();
        match next {
            Some(deadline) => {
                let wait = u64::try_from(deadline.saturating_sub(now_ms())).unwrap_or(0);
                // Re-check at least once a minute (wall-clock jumps).
                let wait = Duration::from_millis(wait.clamp(1, 60_000));
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = notified => {}
                }
            }
            None => notified.await,
        }
    }
}
