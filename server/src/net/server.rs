//! The server: the listener, the accept loop, the coordinator's timer task, and the shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinSet;

use super::connection;
use super::shared::Shared;
use crate::config::ServerConfig;
use crate::router::Router;
use crate::services::open::StartError;

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
        let router = Router::open(&config)?;
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
        let host = if addr.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else {
            addr.ip().to_string()
        };
        router.set_address(host, i32::from(addr.port()));
        tracing::info!(%addr, topics = router.topic_count(), "kwire-server bound");
        Ok(Server {
            listener,
            addr,
            shared: Arc::new(Shared::new(Arc::new(router), config)),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// What the connections share (for tests that look inside).
    #[cfg(test)]
    pub(crate) fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Accepts and serves connections, and fires the coordinator's timers, until `shutdown`
    /// completes; then stops every connection, closes the durable log (releasing the data
    /// directory) and returns. Everything durable was written when it happened, so stopping
    /// loses nothing.
    ///
    /// # Errors
    /// [`ServeError::DurableStateBroken`]: the server stopped by itself because coordinator
    /// records could not be written (see the store).
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), ServeError> {
        let Server {
            listener, shared, ..
        } = self;
        let mut fatal = shared.router.fatal();
        let timer = tokio::spawn(shared.router.clone().run_timers());
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
                        conns.spawn(connection::serve(stream, peer, shared.clone()));
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
        shared.router.close();
        result
    }
}
