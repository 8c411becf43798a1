//! The accept loop: HTTP/1 connections with a header-read timeout, a cap
//! on open connections, and a graceful shutdown that lets requests in
//! flight finish.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::ServeConfig;

/// The connection-level settings of a [`ServeConfig`].
pub(super) struct Options {
    header_read_timeout: Duration,
    max_connections: usize,
}

impl Options {
    pub(super) fn of(config: &ServeConfig) -> Options {
        Options {
            header_read_timeout: config.header_read_timeout,
            max_connections: config.max_connections.max(1),
        }
    }
}

pub(super) async fn serve(
    listener: TcpListener,
    app: Router,
    options: Options,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let connections = Arc::new(Semaphore::new(options.max_connections));
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // At the cap, new connections wait in the listen backlog.
        let permit = tokio::select! {
            permit = connections.clone().acquire_owned() => permit.map_err(std::io::Error::other)?,
            () = &mut shutdown => break,
        };
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                Err(e) => {
                    // Out of file descriptors and the like: pass, then retry.
                    tracing::debug!(target: "toolsieve::serve", error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Chunks are small and must go out at once: no Nagle delay.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(target: "toolsieve::serve", error = %e, "TCP_NODELAY not set");
        }
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(options.header_read_timeout);
        let connection =
            http.serve_connection(TokioIo::new(tcp), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(target: "toolsieve::serve", error = %e, "connection ended");
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
