//! Request bodies as they stream in, whatever reads them (the REST API, the OAuth endpoints,
//! the pages' forms, `/mcp`): at most `limits.max_body_bytes` in all, counted as the bytes arrive
//! with or without a `Content-Length`, so an oversized body costs no memory beyond the cap; and
//! at most `limits.idle_timeout_seconds` between two pieces of it. A body that breaks either rule
//! fails its reader, and the `Guard` tells the edge to answer 413 or 408 instead of whatever the
//! handler made of the failed read.

use std::{
    io,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicU8, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use poem::{Body, Request, http::header};

type BoxBody = http_body_util::combinators::BoxBody<Bytes, io::Error>;

/// What went wrong with a body, if anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    TooLarge,
    TooSlow,
}

const FINE: u8 = 0;
const TOO_LARGE: u8 = 1;
const TOO_SLOW: u8 = 2;

/// Tells, once the handler is done, whether the body broke a rule.
pub struct Guard(Arc<AtomicU8>);

impl Guard {
    pub fn verdict(&self) -> Option<Verdict> {
        match self.0.load(Ordering::Acquire) {
            TOO_LARGE => Some(Verdict::TooLarge),
            TOO_SLOW => Some(Verdict::TooSlow),
            _ => None,
        }
    }
}

/// Puts `req`'s body under the rules; None when the request has no body.
pub fn limit(req: &mut Request, max_bytes: u64, idle: Duration) -> Option<Guard> {
    let headers = req.headers();
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let streamed = headers.contains_key(header::TRANSFER_ENCODING);
    if declared.unwrap_or(0) == 0 && !streamed {
        return None;
    }
    let state = Arc::new(AtomicU8::new(FINE));
    let inner: BoxBody = req.take_body().into();
    req.set_body(Body::from(BoxBody::new(Limited {
        inner,
        seen: 0,
        max_bytes,
        idle,
        timer: None,
        state: state.clone(),
        failed: false,
    })));
    Some(Guard(state))
}

struct Limited {
    inner: BoxBody,
    seen: u64,
    max_bytes: u64,
    idle: Duration,
    /// Runs while the reader waits for the next piece.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    state: Arc<AtomicU8>,
    failed: bool,
}

impl Limited {
    fn fail(
        &mut self,
        state: u8,
        message: &'static str,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.failed = true;
        self.timer = None;
        self.state.store(state, Ordering::Release);
        Poll::Ready(Some(Err(io::Error::other(message))))
    }
}

impl http_body::Body for Limited {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        if this.failed {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                this.timer = None;
                if let Some(data) = frame.data_ref() {
                    this.seen = this.seen.saturating_add(data.len() as u64);
                    if this.seen > this.max_bytes {
                        return this.fail(TOO_LARGE, "the request body is too large");
                    }
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(other) => {
                this.timer = None;
                Poll::Ready(other)
            }
            Poll::Pending => {
                let idle = this.idle;
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(idle)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => this.fail(TOO_SLOW, "the request body stopped arriving"),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.failed || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunked(chunks: Vec<&'static [u8]>) -> Request {
        let stream = futures_util::stream::iter(
            chunks
                .into_iter()
                .map(|c| Ok::<_, io::Error>(Bytes::from_static(c))),
        );
        Request::builder()
            .header(header::TRANSFER_ENCODING, "chunked")
            .body(Body::from_bytes_stream(stream))
    }

    #[tokio::test]
    async fn a_chunked_body_over_the_cap_fails_its_reader() {
        let mut req = chunked(vec![b"12345", b"67890", b"abcde"]);
        let guard = limit(&mut req, 10, Duration::from_secs(5));
        let read = req.take_body().into_vec().await;
        assert!(read.is_err());
        assert_eq!(guard.and_then(|g| g.verdict()), Some(Verdict::TooLarge));
    }

    #[tokio::test]
    async fn a_body_within_the_cap_reads_whole() {
        let mut req = chunked(vec![b"12345", b"67890"]);
        let guard = limit(&mut req, 10, Duration::from_secs(5));
        let read = req.take_body().into_vec().await.unwrap_or_default();
        assert_eq!(read, b"1234567890");
        assert_eq!(guard.and_then(|g| g.verdict()), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_stops_arriving_times_out() {
        let stream = futures_util::stream::pending::<Result<Bytes, io::Error>>();
        let mut req = Request::builder()
            .header(header::CONTENT_LENGTH, "100")
            .body(Body::from_bytes_stream(stream));
        let guard = limit(&mut req, 1000, Duration::from_secs(60));
        assert!(req.take_body().into_vec().await.is_err());
        assert_eq!(guard.and_then(|g| g.verdict()), Some(Verdict::TooSlow));
    }

    #[test]
    fn a_request_without_a_body_is_left_alone() {
        let mut req = Request::builder().finish();
        assert!(limit(&mut req, 10, Duration::from_secs(1)).is_none());
    }
}
