//! The HTTP server under the routes (DESIGN §19 limits): it admits connections within
//! `limits.max_connections` in all and `limits.max_connections_per_ip` per client address,
//! serves each with HTTP/1.1 under a header-read and an idle timeout, caps request bodies while
//! they stream, and on shutdown lets in-flight requests finish for the grace period.

use std::{convert::Infallible, future::Future, io, net::SocketAddr, sync::Arc, time::Duration};

use poem::{Endpoint, Response, endpoint::DynEndpoint};
use tokio::{net::TcpListener, sync::watch};
use tokio_util::task::TaskTracker;

use crate::config::Config;

mod admission;
pub mod body;
pub mod client;
mod connection;

/// How connections are limited (from `[limits]` and `server.trusted_proxies`).
#[derive(Clone, Debug)]
pub struct Limits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub max_connections_per_ip: usize,
    pub proxies: client::Proxies,
}

impl Limits {
    pub fn of(config: &Config) -> Limits {
        let limits = &config.limits;
        Limits {
            header_timeout: Duration::from_secs(limits.header_timeout_seconds),
            idle_timeout: Duration::from_secs(limits.idle_timeout_seconds),
            max_connections: usize::try_from(limits.max_connections).unwrap_or(usize::MAX),
            max_connections_per_ip: usize::try_from(limits.max_connections_per_ip)
                .unwrap_or(usize::MAX),
            // Checked by `Config::validate`.
            proxies: client::Proxies::parse(&config.server.trusted_proxies).unwrap_or_default(),
        }
    }
}

/// What a connection is told when the server stops: finish what is under way, then stop
/// (`Drain`), or stop now (`Abort`, once the grace period is over).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Run,
    Drain,
    Abort,
}

/// The endpoint every connection serves.
type App = Arc<dyn DynEndpoint<Output = Response>>;

/// Serves `ep` on `listener` until `shutdown` resolves; then stops accepting, gives in-flight
/// requests `grace` to finish, and closes what is left.
pub async fn run<E>(
    listener: TcpListener,
    ep: E,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> io::Result<()>
where
    E: Endpoint<Output = Response> + 'static,
{
    let local = listener.local_addr()?;
    let app: App = Arc::new(poem::endpoint::ToDynEndpoint(ep));
    let admission = Arc::new(admission::Admission::new(&limits));
    let limits = Arc::new(limits);
    let (stop, stopped) = watch::channel(Stop::Run);
    let connections = TaskTracker::new();
    tracing::info!(addr = %local, "listening");
    tokio::pin!(shutdown);
    loop {
        let (socket, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors or a connection reset before it was accepted:
                    // wait a moment instead of spinning.
                    tracing::warn!(error = %err, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Some(ticket) = admission.admit(peer.ip()) else {
            admission::refuse(socket);
            continue;
        };
        let _ = socket.set_nodelay(true);
        connections.spawn(connection::serve(
            connection::Peer {
                socket,
                local,
                remote: peer,
            },
            app.clone(),
            limits.clone(),
            stopped.clone(),
            ticket,
        ));
    }
    drop(listener);
    connections.close();
    let _ = stop.send(Stop::Drain);
    if tokio::time::timeout(grace, connections.wait())
        .await
        .is_err()
    {
        tracing::warn!("closing connections still busy after the grace period");
        let _ = stop.send(Stop::Abort);
        connections.wait().await;
    }
    Ok(())
}

/// A poem request from hyper's, with the connection's addresses.
fn request(
    req: hyper::Request<hyper::body::Incoming>,
    local: SocketAddr,
    remote: SocketAddr,
) -> poem::Request {
    poem::Request::from((
        req,
        poem::web::LocalAddr(poem::Addr::SocketAddr(local)),
        poem::web::RemoteAddr(poem::Addr::SocketAddr(remote)),
        poem::http::uri::Scheme::HTTP,
    ))
}

/// The body type poem hands hyper.
type BoxBody = http_body_util::combinators::BoxBody<bytes::Bytes, io::Error>;

/// hyper's service answer for a poem response.
fn response(response: Response) -> Result<hyper::Response<BoxBody>, Infallible> {
    Ok(response.into())
}
