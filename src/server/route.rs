//! What the three model routes share: the body read under the server's
//! limits, the slot, the wrapped model, ids and sampling settings. Each
//! route says its refusals in its own wire's error shape.

use axum::body::{Body, Bytes};
use axum::response::Response;
use futures::stream::{self, BoxStream, StreamExt};
use serde_json::{Map, Value};
use tokio::sync::OwnedSemaphorePermit;

use super::sse::{self, SseOut};
use super::AppState;
use crate::event::{CallId, Event};
use crate::middleware::{FinishReason, ModelError, StreamPart, ToolCallingModel, Usage};
use crate::openai::{History, HttpModel, StreamPolicy};
use crate::{Format, Reasoning};

/// Why a request was not taken before it was read.
pub(super) enum Refusal {
    /// The body is over `max_body_bytes`.
    TooLarge(usize),
    /// The body did not arrive within `body_read_timeout`.
    TooSlow(std::time::Duration),
    /// Every slot is taken.
    Busy,
}

/// The request body, read under the deadline before a slot is taken (a
/// slow client holds none), and the slot.
pub(super) async fn read_body(
    state: &AppState,
    body: Body,
) -> Result<(Bytes, OwnedSemaphorePermit), Refusal> {
    let config = &state.config;
    let read = axum::body::to_bytes(body, config.max_body_bytes);
    let body = match tokio::time::timeout(config.body_read_timeout, read).await {
        Ok(Ok(body)) => body,
        Ok(Err(_)) => return Err(Refusal::TooLarge(config.max_body_bytes)),
        Err(_) => return Err(Refusal::TooSlow(config.body_read_timeout)),
    };
    let slot = state
        .slots
        .clone()
        .try_acquire_owned()
        .map_err(|_| Refusal::Busy)?;
    Ok((body, slot))
}

/// The backend wrapped for `format`, with the server's history, limits
/// and `tool_choice` rules.
pub(super) fn wrapped_model(
    state: &AppState,
    format: Format,
    reasoning: Option<Reasoning>,
) -> ToolCallingModel<HttpModel> {
    let config = &state.config;
    let wrapped = ToolCallingModel::new(state.backend.clone(), format)
        .tolerant_history(config.history == History::Tolerant)
        .reasoning(reasoning)
        .limits(config.limits);
    match config.forced_retries {
        Some(retries) => wrapped.enforce_tool_choice(retries),
        None => wrapped,
    }
}

/// A fresh id with a wire's prefix (`msg_`, `toolu_`, `resp_`, `fc_`).
pub(super) fn prefixed_id(prefix: &str) -> String {
    let random = crate::openai::random_call_id();
    format!("{prefix}{}", random.trim_start_matches("call_"))
}

/// The backend's request fields: the model, and the settings given, by
/// their chat names.
pub(super) fn backend_fields(
    model: &str,
    settings: &[(&str, Option<Value>)],
) -> Map<String, Value> {
    let mut extra = Map::new();
    extra.insert("model".into(), Value::String(model.to_owned()));
    for (key, value) in settings {
        if let Some(value) = value {
            extra.insert((*key).into(), value.clone());
        }
    }
    extra
}

/// How a wire writes an answer's parts as its events (the Anthropic and
/// Responses encoders); [`sse_answer`] drives it.
pub(super) trait WireEvents: Send + 'static {
    /// Text for the user.
    fn text(&mut self, delta: &str, out: &mut SseOut);
    /// The model's reasoning.
    fn reasoning(&mut self, delta: &str, out: &mut SseOut);
    /// A call begins (its name is known); its arguments follow.
    fn call_start(&mut self, name: &str, out: &mut SseOut);
    /// A piece of the open call's arguments.
    fn call_delta(&mut self, delta: &str, out: &mut SseOut);
    /// The open call ends: delivered with arguments `input`, or (`None`)
    /// abandoned, its raw text to follow as text.
    fn call_end(&mut self, input: Option<&str>, out: &mut SseOut);
    /// A call, delivered whole.
    fn call(&mut self, name: &str, input: &str, out: &mut SseOut) {
        self.call_start(name, out);
        self.call_delta(input, out);
        self.call_end(Some(input), out);
    }
    /// The end, with the backend's token counts if it gave them.
    fn finish(&mut self, reason: FinishReason, usage: Option<&Usage>, out: &mut SseOut);
    /// The backend failed mid-stream: the last event.
    fn fail(&mut self, e: &ModelError, out: &mut SseOut);
}

/// A wire encoder, the usage seen so far, and whether it failed.
struct Driving<W> {
    wire: W,
    /// Calls stream as they arrive (eager) or go out whole (validated).
    policy: StreamPolicy,
    /// The call streaming (eager), and whether its input ended.
    open_call: Option<(CallId, bool)>,
    usage: Option<Usage>,
    failed: bool,
    /// The events of the part being written.
    out: SseOut,
    /// Held as long as the stream lives.
    _slot: OwnedSemaphorePermit,
}

impl<W: WireEvents> Driving<W> {
    fn part(&mut self, part: Result<StreamPart, ModelError>) -> Bytes {
        let out = &mut self.out;
        // A call whose input ended with anything but its `tool-call` after
        // it was abandoned.
        if let Some((id, true)) = self.open_call {
            let delivered =
                matches!(&part, Ok(StreamPart::Event(Event::ToolCall { id: c, .. })) if *c == id);
            if !delivered {
                self.open_call = None;
                self.wire.call_end(None, out);
            }
        }
        let eager = self.policy == StreamPolicy::Eager;
        match part {
            Ok(StreamPart::Event(Event::ToolInputStart { id, tool_name, .. })) if eager => {
                self.open_call = Some((id, false));
                self.wire.call_start(&tool_name, out);
            }
            Ok(StreamPart::Event(Event::ToolInputDelta { id, delta }))
                if self.open_call.is_some_and(|(open, _)| open == id) =>
            {
                self.wire.call_delta(&delta, out)
            }
            Ok(StreamPart::Event(Event::ToolInputEnd { id }))
                if self.open_call.is_some_and(|(open, _)| open == id) =>
            {
                self.open_call = Some((id, true));
            }
            Ok(StreamPart::Event(Event::ToolCall { id, input, .. }))
                if self.open_call.is_some_and(|(open, _)| open == id) =>
            {
                self.open_call = None;
                self.wire.call_end(Some(&input), out);
            }
            Ok(StreamPart::Event(Event::TextDelta { delta, .. })) => self.wire.text(&delta, out),
            Ok(StreamPart::Event(Event::ReasoningDelta { delta, .. })) => {
                self.wire.reasoning(&delta, out)
            }
            Ok(StreamPart::Reasoning(text)) => self.wire.reasoning(&text, out),
            Ok(StreamPart::Event(Event::ToolCall {
                tool_name, input, ..
            })) => self.wire.call(&tool_name, &input, out),
            Ok(StreamPart::Usage(usage)) => self.usage = Some(usage),
            Ok(StreamPart::Finish(reason)) => self.wire.finish(reason, self.usage.as_ref(), out),
            Ok(_) => {}
            Err(e) => {
                self.failed = true;
                self.wire.fail(&e, out);
            }
        }
        out.take()
    }
}

/// An answer's stream as server-sent events: `opening` first, then what
/// `wire` makes of each part. The first part is read before answering,
/// so that a backend that refused the request is an HTTP error
/// (`refused`), not an event.
pub(super) async fn sse_answer<W: WireEvents>(
    mut parts: BoxStream<'static, Result<StreamPart, ModelError>>,
    policy: StreamPolicy,
    slot: OwnedSemaphorePermit,
    opening: impl FnOnce(&mut W, &mut SseOut),
    mut wire: W,
    refused: impl FnOnce(&ModelError) -> Response,
) -> Response {
    let first = parts.next().await;
    if let Some(Err(e)) = &first {
        return refused(e);
    }
    let mut out = SseOut::default();
    opening(&mut wire, &mut out);
    let opening = out.take();
    let driving = Driving {
        wire,
        policy,
        open_call: None,
        usage: None,
        failed: false,
        out,
        _slot: slot,
    };
    let frames = stream::iter(first)
        .chain(parts)
        .scan(driving, |driving, part| {
            let out = (!driving.failed).then(|| driving.part(part));
            futures::future::ready(out)
        });
    sse::response(stream::once(async { opening }).chain(frames).boxed())
}
