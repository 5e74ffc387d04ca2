//! `kwire-server`: a single-node in-memory Kafka test broker (see the library docs).
//!
//! Prints `kwire-server listening on HOST:PORT` on stdout once bound; logs go to stderr
//! (`RUST_LOG`, default `info`). SIGINT or SIGTERM stops it with exit code 0. A fatal error is
//! printed once on stderr as `kwire-server: …`: exit code 2 for a bad command line, 1 for a
//! failure to start (e.g. a corrupt or locked data directory) and for a server that stopped
//! because its durable log could not be written.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use kwire_server::Cli;
use kwire_server::Server;
use tracing_subscriber::EnvFilter;

/// Installs the SIGINT and SIGTERM handlers now (before the listening line is printed, so a
/// signal sent right after it is not lost) and returns a future that completes on either.
#[cfg(unix)]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => tracing::info!("SIGINT received"),
            _ = term.recv() => tracing::info!("SIGTERM received"),
        }
    })
}

/// Ctrl-C elsewhere.
#[cfg(not(unix))]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = cli.into_config();
    if let Err(e) = config.validate() {
        Cli::command()
            .error(clap::error::ErrorKind::ValueValidation, e)
            .exit();
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("kwire-server: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    rt.block_on(async {
        let server = match Server::bind(config).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("kwire-server: {e}");
                return ExitCode::from(1);
            }
        };
        let shutdown = match shutdown_signal() {
            Ok(f) => f,
            Err(e) => {
                eprintln!("kwire-server: cannot install signal handlers: {e}");
                return ExitCode::from(1);
            }
        };
        {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "kwire-server listening on {}", server.local_addr());
            let _ = out.flush();
        }
        match server.run(shutdown).await {
            Ok(()) => {
                tracing::info!("stopped");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("kwire-server: {e}");
                ExitCode::from(1)
            }
        }
    })
}
