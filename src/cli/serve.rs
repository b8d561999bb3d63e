//! `shipbase serve`: the HTTP server, until SIGINT or SIGTERM.

use std::path::Path;

use tracing_subscriber::EnvFilter;

use crate::{
    app,
    config::{Config, Overrides},
    service::Ctx,
};

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on (overrides server.listen).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Public URL of the server (overrides server.base_url).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
}

pub fn run(file: Option<&Path>, mut overrides: Overrides, args: Args) -> Result<(), String> {
    overrides.listen = args.listen;
    overrides.base_url = args.base_url;
    let mut config = super::load(file, &overrides)?;
    init_logging(&config);
    // Blocking work (scans on the reader pool, PDF rendering, name lookups) gets a bounded set
    // of threads: tokio's default of 512 let a burst of lists park ~100 threads on the pool's
    // few connections, each keeping its own allocator heap (250 MB resident at 64 connections).
    let blocking = usize::try_from(config.storage.read_connections)
        .unwrap_or(4)
        .saturating_add(4);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(blocking)
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let listen = config.server.listen.clone();
        let listener = tokio::net::TcpListener::bind(&listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        // Without a configured public URL, the issuer and links name the address really bound
        // (the port the OS chose for `:0`).
        if config.server.base_url.is_empty()
            && let Ok(addr) = listener.local_addr()
        {
            config.server.base_url = format!("http://{addr}");
        }
        let base_url = config.base_url();
        let data_dir = config.storage.data_dir.display().to_string();
        // The database: the SQLite file, or the PostgreSQL URL without its password.
        let storage = match config.database_url() {
            Some(url) => crate::store::pg::redacted(url),
            None => config.database_path().display().to_string(),
        };
        let ctx = Ctx::open(config).map_err(super::describe)?;
        tracing::info!(
            listen,
            base_url,
            data_dir,
            storage,
            version = crate::VERSION,
            "shipbase is serving"
        );
        let db = ctx.clone();
        app::serve(ctx, listener, shutdown_signal())
            .await
            .map_err(|e| format!("server failed: {e}"))?;
        // Everything into the file itself: after a clean stop the SQLite file is the whole
        // installation (a copy of it, or a backup put in its place, is what it looks like).
        if let Err(err) = db.db.checkpoint().await {
            tracing::warn!(error = %err, "the last checkpoint failed; the -wal file holds the rest");
        }
        tracing::info!("shut down");
        Ok(())
    })
}

fn init_logging(config: &Config) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&config.log.level));
    // Colour only for a person at a terminal: a log file or a journal gets plain text.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    if config.log.format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    // The handlers are installed here, before the server answers its first request: installed
    // when the future is first polled, a SIGTERM sent right after the first answer could still
    // meet the default action and kill the process without its graceful shutdown.
    #[cfg(unix)]
    let (mut terminate, mut interrupt) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::terminate()).ok(),
            signal(SignalKind::interrupt()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let terminate = async {
                match terminate.as_mut() {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            let interrupt = async {
                match interrupt.as_mut() {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = interrupt => {},
                () = terminate => {},
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        tracing::info!("shutdown signal received; finishing in-flight requests");
    }
}
