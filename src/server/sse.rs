//! Server-sent events to the client, written straight into the bytes that
//! go out: each event's JSON is serialised into one reused buffer, and the
//! events of one batch of parts leave as one body frame.
//!
//! JSON as serde_json writes it holds no raw line break (they are escaped
//! in strings), so its text is one `data:` line as it stands.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use bytes::{BufMut, BytesMut};
use futures::stream::{BoxStream, Stream, StreamExt};
use serde::Serialize;

/// How long a stream may say nothing before a comment keeps the
/// connection alive (through proxies that close idle ones).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Events being written, to be taken as one frame.
#[derive(Debug, Default)]
pub(super) struct SseOut {
    buf: BytesMut,
    /// One event's JSON: serde_json writes a value in many small pieces,
    /// which a `Vec` takes faster than a `BytesMut` writer.
    json: Vec<u8>,
}

impl SseOut {
    /// A `data:` event of `value` as JSON.
    pub(super) fn data(&mut self, value: &impl Serialize) {
        self.data_with(|json| serde_json::to_writer(json, value));
    }

    /// A `data:` event whose JSON `write` writes (into an empty buffer).
    pub(super) fn data_with(&mut self, write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>) {
        if self.serialise(write) {
            self.buf.put_slice(b"data: ");
            self.put_json();
        }
    }

    /// An `event: name` (a name of the wire's, on one line) with `value`
    /// as its JSON data.
    pub(super) fn event(&mut self, name: &str, value: &impl Serialize) {
        if self.serialise(|json| serde_json::to_writer(json, value)) {
            self.buf.put_slice(b"event: ");
            self.buf.put_slice(name.as_bytes());
            self.buf.put_slice(b"\ndata: ");
            self.put_json();
        }
    }

    /// The chat stream's last event, `data: [DONE]`.
    pub(super) fn done(&mut self) {
        self.buf.put_slice(b"data: [DONE]\n\n");
    }

    /// Whether `write` wrote its JSON (into `json`). Writing into memory
    /// fails only for a value that cannot be serialised, which the wire
    /// types never are: such an event is left out, never sent torn.
    fn serialise(&mut self, write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>) -> bool {
        self.json.clear();
        write(&mut self.json).is_ok()
    }

    fn put_json(&mut self) {
        self.buf.put_slice(&self.json);
        self.buf.put_slice(b"\n\n");
    }

    /// The events written since the last take, as one frame.
    pub(super) fn take(&mut self) -> Bytes {
        self.buf.split().freeze()
    }
}

/// A `text/event-stream` response of `frames` (empty ones, parts that
/// made no event, left out), with a keep-alive comment after each quiet
/// [`KEEP_ALIVE`].
pub(super) fn response(frames: BoxStream<'static, Bytes>) -> Response {
    let frames = frames
        .filter(|frame| std::future::ready(!frame.is_empty()))
        .boxed();
    let body = Body::from_stream(KeepAlive::new(frames));
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `frames`, with a comment whenever they say nothing for a while.
struct KeepAlive {
    frames: BoxStream<'static, Bytes>,
    quiet: Pin<Box<tokio::time::Sleep>>,
}

impl KeepAlive {
    /// `frames`, the first comment due a quiet while from now.
    fn new(frames: BoxStream<'static, Bytes>) -> KeepAlive {
        KeepAlive {
            frames,
            quiet: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
        }
    }
}

impl Stream for KeepAlive {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let next = match this.frames.as_mut().poll_next(cx) {
            Poll::Ready(frame) => frame,
            Poll::Pending => match this.quiet.as_mut().poll(cx) {
                Poll::Ready(()) => Some(Bytes::from_static(b":\n\n")),
                Poll::Pending => return Poll::Pending,
            },
        };
        if next.is_some() {
            let deadline = tokio::time::Instant::now() + KEEP_ALIVE;
            this.quiet.as_mut().reset(deadline);
        }
        Poll::Ready(next.map(Ok))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed_as_the_wire_reads_them() {
        let mut out = SseOut::default();
        out.data(&serde_json::json!({"text": "two\nlines"}));
        out.event("ping", &serde_json::json!({"type": "ping"}));
        out.done();
        assert_eq!(
            &out.take()[..],
            b"data: {\"text\":\"two\\nlines\"}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\ndata: [DONE]\n\n"
        );
        assert!(out.take().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_quiet_stream_gets_comments_and_ends_with_its_frames() {
        let (tx, rx) = futures::channel::mpsc::unbounded::<Bytes>();
        let mut stream = KeepAlive::new(rx.boxed());
        tx.unbounded_send(Bytes::from_static(b"data: 1\n\n"))
            .unwrap();
        assert_eq!(&stream.next().await.unwrap().unwrap()[..], b"data: 1\n\n");
        // Nothing for longer than the keep-alive: a comment, twice.
        assert_eq!(&stream.next().await.unwrap().unwrap()[..], b":\n\n");
        assert_eq!(&stream.next().await.unwrap().unwrap()[..], b":\n\n");
        tx.unbounded_send(Bytes::from_static(b"data: 2\n\n"))
            .unwrap();
        drop(tx);
        assert_eq!(&stream.next().await.unwrap().unwrap()[..], b"data: 2\n\n");
        assert!(stream.next().await.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_comment_comes_a_quiet_while_after_the_last_frame() {
        let (tx, rx) = futures::channel::mpsc::unbounded::<Bytes>();
        let mut stream = KeepAlive::new(rx.boxed());
        let start = tokio::time::Instant::now();
        tokio::time::sleep(Duration::from_secs(10)).await;
        tx.unbounded_send(Bytes::from_static(b"data: 1\n\n"))
            .unwrap();
        assert_eq!(&stream.next().await.unwrap().unwrap()[..], b"data: 1\n\n");
        // Not 15 s after the start: 15 s after the frame.
        assert_eq!(&stream.next().await.unwrap().unwrap()[..], b":\n\n");
        assert_eq!(start.elapsed(), Duration::from_secs(10) + KEEP_ALIVE);
        assert_eq!(&stream.next().await.unwrap().unwrap()[..], b":\n\n");
        assert_eq!(start.elapsed(), Duration::from_secs(10) + 2 * KEEP_ALIVE);
    }
}
