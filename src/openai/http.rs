//! An OpenAI-compatible HTTP backend as a [`LanguageModel`]: reqwest for
//! HTTP, a linear bounded decoder for the server-sent events.

use std::borrow::Cow;
use std::time::Duration;

use std::collections::VecDeque;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};
use serde::Deserialize;
use smallvec::SmallVec;

use super::request::to_backend;
use super::sse::SseDecoder;
use super::wire::{ChatCompletion, ErrorBody, ErrorObject, Usage};
use crate::middleware::{FinishReason, Generation, LanguageModel, ModelError, ModelPart, Request};

/// How long an idle connection to the backend is kept for reuse.
const BACKEND_IDLE: Duration = Duration::from_secs(4);

/// What went wrong talking to the backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// No connection could be made, or the request could not be sent.
    #[error("backend unreachable: {0}")]
    Unreachable(#[source] reqwest::Error),
    /// The connection broke, or went silent past the read timeout, while
    /// the answer was coming.
    #[error("{}", interrupted_message(.0))]
    Interrupted(#[source] reqwest::Error),
    /// The backend answered with an error status.
    #[error("backend answered {status}: {message}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The backend's error message (its OpenAI error body's message,
        /// or the start of its body).
        message: String,
        /// The error body's `type`, if it had one.
        kind: Option<String>,
        /// The error body's `code` (e.g. `context_length_exceeded`).
        code: Option<String>,
        /// The error body's `param`.
        param: Option<String>,
        /// The backend's `Retry-After` header, as it sent it.
        retry_after: Option<String>,
    },
    /// The backend's answer is not what the wire says it should be.
    #[error("backend sent an answer that is not OpenAI's: {0}")]
    Protocol(String),
    /// The answer stream ended with neither `[DONE]` nor a finish reason:
    /// what came before it may be cut anywhere.
    #[error("the backend's answer stream ended before its end (no [DONE] and no finish reason)")]
    Truncated,
}

fn interrupted_message(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "the backend went silent past the read timeout".into()
    } else {
        format!("the backend's answer broke off: {e}")
    }
}

impl BackendError {
    /// The machine-readable code a client gets for this error.
    pub fn code(&self) -> &'static str {
        match self {
            BackendError::Unreachable(_) => "backend_unreachable",
            BackendError::Interrupted(e) if e.is_timeout() => "backend_timeout",
            BackendError::Interrupted(_) => "backend_interrupted",
            BackendError::Status { .. } => "backend_error",
            BackendError::Protocol(_) => "backend_protocol_error",
            BackendError::Truncated => "backend_truncated",
        }
    }
}

/// Bounds on what is read from a backend, beyond the HTTP client's own
/// timeouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackendLimits {
    /// Longest server-sent-event line (and event data), in bytes.
    pub max_line_bytes: usize,
    /// Longest whole (non-streamed) answer body, in bytes.
    pub max_body_bytes: usize,
    /// How much of an error body is read, in bytes.
    pub max_error_body_bytes: usize,
    /// How long reading an error body may take in all.
    pub error_body_timeout: Duration,
}

impl Default for BackendLimits {
    fn default() -> BackendLimits {
        BackendLimits {
            max_line_bytes: 4 << 20,
            max_body_bytes: 64 << 20,
            max_error_body_bytes: 64 << 10,
            error_body_timeout: Duration::from_secs(10),
        }
    }
}

/// An OpenAI-compatible chat-completions endpoint (a llama.cpp server,
/// vLLM, SGLang, Ollama's `/v1`, …) as a plain text model. Requests go out
/// through [`to_backend`]; streamed answers are read as server-sent
/// events. Dropping the stream closes the connection, which cancels the
/// generation on backends that watch for it.
#[derive(Debug, Clone)]
pub struct HttpModel {
    client: reqwest::Client,
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    limits: BackendLimits,
}

impl HttpModel {
    /// A backend at `base_url` (the part before `/chat/completions`, e.g.
    /// `http://127.0.0.1:8000/v1`), with a 10 s connect timeout and a 300 s
    /// timeout between two reads. Idle connections are kept 4 s, less than
    /// the backends' own keep-alive.
    ///
    /// # Errors
    ///
    /// When the HTTP client cannot be built (no TLS roots).
    pub fn new(base_url: impl Into<String>) -> Result<HttpModel, BackendError> {
        HttpModel::with_timeouts(base_url, Duration::from_secs(10), Duration::from_secs(300))
    }

    /// A backend at `base_url` with these connect and read timeouts (the
    /// read timeout bounds the silence between two reads, not the answer).
    ///
    /// # Errors
    ///
    /// When the HTTP client cannot be built (no TLS roots).
    pub fn with_timeouts(
        base_url: impl Into<String>,
        connect: Duration,
        read: Duration,
    ) -> Result<HttpModel, BackendError> {
        let client = reqwest::Client::builder()
            .connect_timeout(connect)
            .read_timeout(read)
            // Below uvicorn's 5 s keep-alive (vLLM, SGLang): a request is
            // never sent on a connection the backend is closing.
            .pool_idle_timeout(BACKEND_IDLE)
            .build()
            .map_err(BackendError::Unreachable)?;
        Ok(HttpModel::with_client(client, base_url))
    }

    /// A backend reached with `client` (for its own timeouts, proxies, …).
    pub fn with_client(client: reqwest::Client, base_url: impl Into<String>) -> HttpModel {
        HttpModel {
            client,
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            api_key: None,
            model: None,
            limits: BackendLimits::default(),
        }
    }

    /// Bounds on lines, bodies and error bodies read from the backend.
    pub fn limits(mut self, limits: BackendLimits) -> HttpModel {
        self.limits = limits;
        self
    }

    /// Sends `Authorization: Bearer key`.
    pub fn api_key(mut self, key: impl Into<String>) -> HttpModel {
        self.api_key = Some(key.into());
        self
    }

    /// The model for requests that name none.
    pub fn model(mut self, model: impl Into<String>) -> HttpModel {
        self.model = Some(model.into());
        self
    }

    /// The backend's base URL.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// A request to `path` under the base URL, with the key.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let builder = self
            .client
            .request(method, format!("{}{path}", self.base_url));
        match &self.api_key {
            Some(key) => builder.bearer_auth(key),
            None => builder,
        }
    }

    fn send(
        &self,
        request: &Request,
        stream: bool,
    ) -> BoxFuture<'static, Result<reqwest::Response, BackendError>> {
        let mut body = to_backend(request, stream);
        if body.model.is_empty() {
            body.model = self.model.clone().unwrap_or_default();
        }
        let pending = self
            .request(reqwest::Method::POST, "/chat/completions")
            .json(&body)
            .send();
        let limits = self.limits;
        Box::pin(async move {
            let response = pending.await.map_err(|e| {
                // A backend that took the request and went silent is not
                // unreachable.
                if e.is_timeout() && !e.is_connect() {
                    BackendError::Interrupted(e)
                } else {
                    BackendError::Unreachable(e)
                }
            })?;
            check_status(response, &limits).await
        })
    }
}

/// Passes a success through; an error status becomes
/// [`BackendError::Status`] with the backend's message, code and
/// `Retry-After`. At most `limits.max_error_body_bytes` of the body are
/// read, within `limits.error_body_timeout`.
pub(crate) async fn check_status(
    response: reqwest::Response,
    limits: &BackendLimits,
) -> Result<reqwest::Response, BackendError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let read = read_capped(response, limits.max_error_body_bytes);
    // A body that does not come in time is left: the status says enough.
    let body = match tokio::time::timeout(limits.error_body_timeout, read).await {
        Ok(Ok(body)) => body,
        Ok(Err(_)) | Err(_) => Vec::new(),
    };
    let (message, kind, code, param) = match serde_json::from_slice::<ErrorBody>(&body) {
        Ok(ErrorBody { error }) => (error.message, Some(error.kind), error.code, error.param),
        Err(_) => {
            let text = String::from_utf8_lossy(&body);
            let message: String = text.chars().take(500).collect();
            let message = if message.trim().is_empty() {
                status.canonical_reason().unwrap_or("error").to_owned()
            } else {
                message
            };
            (message, None, None, None)
        }
    };
    Err(BackendError::Status {
        status: status.as_u16(),
        message,
        kind,
        code,
        param,
        retry_after,
    })
}

/// The body, up to `cap` bytes (the rest is not read).
async fn read_capped(mut response: reqwest::Response, cap: usize) -> reqwest::Result<Vec<u8>> {
    let mut body = Vec::new();
    while body.len() < cap {
        let Some(chunk) = response.chunk().await? else {
            break;
        };
        let room = cap - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
    }
    Ok(body)
}

fn finish(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some("stop") | None => FinishReason::Stop,
        Some(_) => FinishReason::Other,
    }
}

impl LanguageModel for HttpModel {
    fn generate(&self, request: &Request) -> BoxFuture<'static, Result<Generation, ModelError>> {
        let sent = self.send(request, false);
        let cap = self.limits.max_body_bytes;
        Box::pin(async move {
            let response = sent.await?;
            if response.content_length().is_some_and(|n| n > cap as u64) {
                return Err(too_big(cap).into());
            }
            let body = read_capped(response, cap.saturating_add(1))
                .await
                .map_err(BackendError::Interrupted)?;
            if body.len() > cap {
                return Err(too_big(cap).into());
            }
            let completion: ChatCompletion =
                serde_json::from_slice(&body).map_err(|e| BackendError::Protocol(e.to_string()))?;
            let Some(choice) = completion.choices.into_iter().next() else {
                return Err(BackendError::Protocol("no choice in the answer".into()).into());
            };
            Ok(Generation {
                text: choice.message.content.unwrap_or_default(),
                reasoning: choice.message.reasoning_content.unwrap_or_default(),
                finish_reason: finish(choice.finish_reason.as_deref()),
                usage: completion.usage,
            })
        })
    }

    fn stream(&self, request: &Request) -> BoxStream<'static, Result<ModelPart, ModelError>> {
        let sent = self.send(request, true);
        let max_line = self.limits.max_line_bytes;
        stream::once(sent)
            .flat_map(move |response| match response {
                Err(e) => stream::iter([Err(ModelError::from(e))]).boxed(),
                Ok(response) => events(response, max_line),
            })
            .boxed()
    }
}

fn too_big(cap: usize) -> BackendError {
    BackendError::Protocol(format!("the answer is over the limit of {cap} bytes"))
}

/// One streamed answer being read.
struct Reading {
    body: BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    decoder: SseDecoder,
    parts: Parts,
}

/// What the events read so far gave.
struct Parts {
    ready: VecDeque<Result<ModelPart, ModelError>>,
    /// `[DONE]`, an error or the end of the body was seen: nothing more is
    /// read.
    ended: bool,
    /// A finish reason was seen.
    finished: bool,
}

/// The parts of one streamed answer. The stream ends after `[DONE]`, at
/// the end of the body, or right after its first error (a body that ends
/// with neither `[DONE]` nor a finish reason ends with
/// [`BackendError::Truncated`]); it never polls the body again after that.
fn events(
    response: reqwest::Response,
    max_line: usize,
) -> BoxStream<'static, Result<ModelPart, ModelError>> {
    let reading = Reading::new(response.bytes_stream().boxed(), max_line);
    stream::unfold(reading, |mut reading| async move {
        loop {
            if let Some(part) = reading.parts.ready.pop_front() {
                return Some((part, reading));
            }
            if reading.parts.ended {
                return None;
            }
            reading.read().await;
        }
    })
    .boxed()
}

impl Reading {
    fn new(body: BoxStream<'static, reqwest::Result<bytes::Bytes>>, max_line: usize) -> Reading {
        Reading {
            body,
            decoder: SseDecoder::new(max_line),
            parts: Parts {
                ready: VecDeque::new(),
                ended: false,
                finished: false,
            },
        }
    }

    async fn read(&mut self) {
        let parts = &mut self.parts;
        match self.body.next().await {
            Some(Ok(bytes)) => {
                let decoded = self.decoder.push(&bytes, &mut |data| parts.event(data));
                if let Err(e) = decoded {
                    parts.fail(BackendError::Protocol(e.to_string()));
                }
            }
            Some(Err(e)) => parts.fail(BackendError::Interrupted(e)),
            None if parts.finished => parts.ended = true,
            None => parts.fail(BackendError::Truncated),
        }
    }
}

impl Parts {
    /// Ends the answer with `e` (the first error only: nothing is read
    /// after it).
    fn fail(&mut self, e: BackendError) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.ready.push_back(Err(e.into()));
    }

    fn event(&mut self, data: &str) {
        // Events after the end in the same piece of the body.
        if self.ended {
            return;
        }
        let data = data.trim();
        // An empty `data:` is valid and says nothing.
        if data.is_empty() {
            return;
        }
        if data == "[DONE]" {
            self.ended = true;
            return;
        }
        let event: StreamData<'_> = match serde_json::from_str(data) {
            Ok(event) => event,
            Err(e) => return self.fail(unreadable(&e, data)),
        };
        if let Some(error) = event.error {
            return self.fail(BackendError::Status {
                status: 200,
                message: error.message,
                kind: Some(error.kind),
                code: error.code,
                param: error.param,
                retry_after: None,
            });
        }
        let Some(choices) = event.choices else {
            return self.fail(unreadable(&"missing field `choices`", data));
        };
        for choice in choices.into_iter().filter(|c| c.index == 0) {
            let delta = choice.delta;
            if let Some(Text(reasoning)) = delta.reasoning_content.filter(|r| !r.0.is_empty()) {
                self.ready
                    .push_back(Ok(ModelPart::ReasoningDelta(reasoning.into_owned())));
            }
            if let Some(Text(text)) = delta.content.filter(|t| !t.0.is_empty()) {
                self.ready
                    .push_back(Ok(ModelPart::TextDelta(text.into_owned())));
            }
            if let Some(Text(reason)) = choice.finish_reason {
                self.finished = true;
                self.ready
                    .push_back(Ok(ModelPart::Finish(finish(Some(&reason)))));
            }
        }
        if let Some(usage) = event.usage {
            self.ready.push_back(Ok(ModelPart::Usage(usage)));
        }
    }
}

/// A stream event the proxy cannot read, with the start of its text.
fn unreadable(e: &dyn std::fmt::Display, data: &str) -> BackendError {
    let start: String = data.chars().take(200).collect();
    BackendError::Protocol(format!("{e} in {start:?}"))
}

/// What is read of one event of a streamed answer: an error, or the
/// choices and token counts of a `chat.completion.chunk`. One pass over
/// the event, its strings borrowed where they hold no escape, and every
/// other field skipped without being kept: the proxy reads one of these
/// per token.
#[derive(Deserialize)]
struct StreamData<'a> {
    #[serde(default)]
    error: Option<ErrorObject>,
    /// One choice is the rule: no allocation for it.
    #[serde(default, borrow)]
    choices: Option<SmallVec<[StreamChoice<'a>; 1]>>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct StreamChoice<'a> {
    #[serde(default)]
    index: u32,
    #[serde(default, borrow)]
    delta: StreamDelta<'a>,
    #[serde(default, borrow)]
    finish_reason: Option<Text<'a>>,
}

#[derive(Default, Deserialize)]
struct StreamDelta<'a> {
    #[serde(default, borrow)]
    content: Option<Text<'a>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Text<'a>>,
}

/// A string of the event: borrowed unless it holds an escape (serde
/// borrows a `Cow` only when it is not inside an `Option`).
#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts (or the error's text) that one event's data makes.
    fn read(data: &str) -> (Vec<ModelPart>, Option<String>, bool) {
        let mut reading = Reading::new(stream::empty().boxed(), 1 << 16);
        reading.parts.event(data);
        let mut parts = Vec::new();
        let mut error = None;
        for part in reading.parts.ready {
            match part {
                Ok(part) => parts.push(part),
                Err(e) => error = Some(e.to_string()),
            }
        }
        (parts, error, reading.parts.ended)
    }

    #[test]
    fn a_chunk_gives_its_first_choice_text_reasoning_and_finish() {
        let data = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":null,
            "choices":[{"index":1,"delta":{"content":"other"}},
                       {"index":0,"logprobs":null,"delta":{"role":"assistant","reasoning_content":"hm","content":"a \"q\"\n\u00e9"},"finish_reason":"length"}],
            "usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#;
        let (parts, error, ended) = read(data);
        assert_eq!(error, None);
        assert!(!ended);
        assert_eq!(
            parts[..3],
            [
                ModelPart::ReasoningDelta("hm".into()),
                ModelPart::TextDelta("a \"q\"\né".into()),
                ModelPart::Finish(FinishReason::Length),
            ]
        );
        assert!(matches!(parts[3], ModelPart::Usage(_)), "{parts:?}");
    }

    #[test]
    fn empty_and_null_fields_give_nothing() {
        let data = r#"{"choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"finish_reason":null}]}"#;
        assert_eq!(read(data), (Vec::new(), None, false));
        assert_eq!(read(r#"{"choices":[]}"#), (Vec::new(), None, false));
    }

    #[test]
    fn an_error_event_is_the_backend_error() {
        let data = r#"{"error":{"message":"overloaded","type":"server_error","code":"busy"},"choices":[]}"#;
        let (parts, error, ended) = read(data);
        assert!(parts.is_empty());
        assert_eq!(error.as_deref(), Some("backend answered 200: overloaded"));
        assert!(ended);
    }

    #[test]
    fn a_numeric_error_code_is_read_as_text() {
        // vLLM's and SGLang's error events give the HTTP status as the code.
        let data = r#"{"error":{"object":"error","message":"too long","type":"BadRequestError","param":null,"code":400}}"#;
        let mut reading = Reading::new(stream::empty().boxed(), 1 << 16);
        reading.parts.event(data);
        let error = reading.parts.ready.pop_front().unwrap().unwrap_err();
        match error.downcast_ref::<BackendError>() {
            Some(BackendError::Status {
                message,
                kind,
                code,
                ..
            }) => {
                assert_eq!(message, "too long");
                assert_eq!(kind.as_deref(), Some("BadRequestError"));
                assert_eq!(code.as_deref(), Some("400"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_event_that_is_no_chunk_is_a_protocol_error_quoting_it() {
        for data in [
            r#"{"id":"c"}"#,
            r#"{"choices":{}}"#,
            r#"{"error":"boom"}"#,
            "[1,",
        ] {
            let (parts, error, ended) = read(data);
            assert!(parts.is_empty(), "{data}");
            let error = error.unwrap_or_default();
            assert!(error.contains(&format!("{data:?}")), "{error}");
            assert!(ended, "{data}");
        }
        let (_, error, _) = read(r#"{"id":"c"}"#);
        assert!(error.unwrap().contains("`choices`"));
    }
}
