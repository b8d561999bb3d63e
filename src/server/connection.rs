//! One connection, served with HTTP/1.1 and watched for two kinds of slowness:
//! - a request's head must arrive whole within `header_timeout` of its first byte (and a new
//!   connection must send one within that time of being accepted);
//! - between requests, or while an answer is being written, the connection may carry no bytes
//!   for at most `idle_timeout`.
//!
//! A request whose handler is running is never cut here: a body that trickles in is timed by
//! `body` and an answer that takes long to compute is not the client's fault. Both clocks are
//! kept by the socket wrapper below, which notes when bytes move; the connection's task looks at
//! them at least every `min(header_timeout, idle_timeout)`, so that requests never wake it.

use std::{
    pin::Pin,
    sync::{
        Arc, OnceLock,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use poem::Endpoint;
use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::TcpStream,
    sync::watch,
};

use super::{App, Limits, Stop, admission::Ticket};

/// The accepted socket and both ends' addresses.
pub struct Peer {
    pub socket: TcpStream,
    pub local: std::net::SocketAddr,
    pub remote: std::net::SocketAddr,
}

/// hyper's read buffer at most (a request head larger than this is refused with 431).
const MAX_BUFFER: usize = 64 * 1024;

pub async fn serve(
    peer: Peer,
    app: App,
    limits: Arc<Limits>,
    mut stop: watch::Receiver<Stop>,
    _ticket: Ticket,
) {
    let clock = Arc::new(Clock::new());
    let io = Watched {
        inner: peer.socket,
        clock: clock.clone(),
    };
    let (local, remote) = (peer.local, peer.remote);
    let handler_clock = clock.clone();
    let service = hyper::service::service_fn(move |req| {
        let app = app.clone();
        let busy = handler_clock.start_request();
        async move {
            let response = app.get_response(super::request(req, local, remote)).await;
            drop(busy);
            super::response(response)
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.max_buf_size(MAX_BUFFER);
    let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(io), service);
    tokio::pin!(conn);
    let mut draining = *stop.borrow() != Stop::Run;
    if draining {
        conn.as_mut().graceful_shutdown();
    }
    // Requests starting and ending move the deadline, without waking this task: it looks again
    // at least this often, so a deadline is kept to within that much.
    let look_every = limits.header_timeout.min(limits.idle_timeout);
    loop {
        let deadline = clock.deadline(&limits).min(Instant::now() + look_every);
        tokio::select! {
            _ = conn.as_mut() => return,
            () = tokio::time::sleep_until(deadline.into()) => {
                if Instant::now() >= clock.deadline(&limits) {
                    tracing::debug!(address = %remote, "closing a slow or idle connection");
                    return;
                }
            }
            changed = stop.changed() => {
                let now = *stop.borrow_and_update();
                match (changed, now) {
                    (Ok(()), Stop::Drain) if !draining => {
                        draining = true;
                        conn.as_mut().graceful_shutdown();
                    }
                    (Ok(()), Stop::Run | Stop::Drain) => {}
                    _ => return,
                }
            }
        }
    }
}

/// When bytes last moved, when the request head under way began, and how many handlers run.
/// Milliseconds since `epoch()`; 0 means "not now".
struct Clock {
    last_io: AtomicU64,
    head_started: AtomicU64,
    busy: AtomicUsize,
}

/// A second before the first connection, so that no moment reads as 0.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(|| {
        let now = Instant::now();
        now.checked_sub(Duration::from_secs(1)).unwrap_or(now)
    })
}

fn now_ms() -> u64 {
    u64::try_from(epoch().elapsed().as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

fn at(ms: u64) -> Instant {
    epoch() + Duration::from_millis(ms)
}

impl Clock {
    /// A new connection is expected to send a request head right away.
    fn new() -> Clock {
        let now = now_ms();
        Clock {
            last_io: AtomicU64::new(now),
            head_started: AtomicU64::new(now),
            busy: AtomicUsize::new(0),
        }
    }

    fn read(&self) {
        let now = now_ms();
        self.last_io.store(now, Ordering::Relaxed);
        if self.busy.load(Ordering::Relaxed) == 0 {
            let _ =
                self.head_started
                    .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    fn wrote(&self) {
        self.last_io.store(now_ms(), Ordering::Relaxed);
    }

    /// A request head arrived whole and its handler starts.
    fn start_request(self: &Arc<Clock>) -> Busy {
        self.head_started.store(0, Ordering::Relaxed);
        self.busy.fetch_add(1, Ordering::Relaxed);
        Busy(self.clone())
    }

    /// When the connection is to be closed unless something happens first.
    fn deadline(&self, limits: &Limits) -> Instant {
        if self.busy.load(Ordering::Relaxed) > 0 {
            return Instant::now() + limits.idle_timeout;
        }
        match self.head_started.load(Ordering::Relaxed) {
            0 => at(self.last_io.load(Ordering::Relaxed)) + limits.idle_timeout,
            started => at(started) + limits.header_timeout,
        }
    }
}

/// A running handler; when it answers, the idle clock starts again.
struct Busy(Arc<Clock>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.wrote();
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The socket, noting on the clock when bytes move.
struct Watched {
    inner: TcpStream,
    clock: Arc<Clock>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.clock.read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.clock.wrote();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.clock.wrote();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 1,
            max_connections_per_ip: 1,
            proxies: super::super::client::Proxies::default(),
        }
    }

    #[test]
    fn a_new_connection_has_the_header_timeout_and_an_answered_one_the_idle_timeout() {
        let clock = Arc::new(Clock::new());
        let start = Instant::now();
        let first = clock.deadline(&limits());
        assert!(first <= start + Duration::from_secs(10) + Duration::from_millis(5));
        let busy = clock.start_request();
        assert!(clock.deadline(&limits()) >= start + Duration::from_secs(59));
        clock.read();
        assert_eq!(
            clock.head_started.load(Ordering::Relaxed),
            0,
            "body bytes of a running request start no head"
        );
        drop(busy);
        assert!(clock.deadline(&limits()) >= start + Duration::from_secs(59));
        clock.read();
        assert!(
            clock.deadline(&limits()) <= Instant::now() + Duration::from_secs(10),
            "the next request's first byte starts the header clock"
        );
    }
}
