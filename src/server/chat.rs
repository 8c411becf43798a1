//! The routes: chat completions (rewritten, passed through), models,
//! health.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};
use tokio::sync::OwnedSemaphorePermit;

use super::errors::{backend_error, busy, error, refused, stream_error, with_retry_after};
use super::route::{read_body, wrapped_model, Refusal};
use super::sse::{self, SseOut};
use super::{AppState, FormatChoice};
use crate::middleware::{GenerateResult, ModelError, StreamPart, ToolChoice};
use crate::openai::{
    self, BackendError, ChatCompletionChunk, ChatMessage, ChatRequest, ChunkEncoder, ErrorBody,
};
use crate::{Format, ModelLookupError};

pub(super) async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({"status": "ok"}))
}

pub(super) async fn models(State(state): State<Arc<AppState>>) -> Response {
    let sent = state
        .backend
        .request(reqwest::Method::GET, "/models")
        .send()
        .await;
    match sent {
        Ok(response) => relay(response),
        Err(e) => backend_error(&ModelError::from(BackendError::Unreachable(e))),
    }
}

/// A backend answer passed on as it comes: status, content type,
/// `Retry-After`, body.
fn relay(response: reqwest::Response) -> Response {
    let status =
        StatusCode::from_u16(response.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    let header_of = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type =
        header_of(reqwest::header::CONTENT_TYPE).unwrap_or_else(|| "application/json".into());
    let retry_after = header_of(reqwest::header::RETRY_AFTER);
    let body = Body::from_stream(response.bytes_stream());
    let mut out = Response::new(body);
    *out.status_mut() = status;
    if let Ok(value) = header::HeaderValue::from_str(&content_type) {
        out.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    with_retry_after(out, retry_after.as_deref())
}

/// A request the backend can take as it is: no tools, no call history.
fn needs_no_rewrite(chat: &ChatRequest) -> bool {
    chat.tools.is_empty()
        && matches!(
            chat.tool_choice,
            None | Some(ToolChoice::Auto | ToolChoice::None)
        )
        && chat.messages.iter().all(|m| match m {
            ChatMessage::Assistant { tool_calls, .. } => tool_calls.is_empty(),
            ChatMessage::Tool { .. } => false,
            _ => true,
        })
}

/// What a request became once read and checked.
enum Prepared {
    /// Sent on to the backend untouched.
    Passthrough(Bytes),
    Whole {
        model: String,
        answer: BoxFuture<'static, Result<GenerateResult, ModelError>>,
    },
    Streamed {
        model: String,
        parts: BoxStream<'static, Result<StreamPart, ModelError>>,
    },
}

pub(super) async fn chat(State(state): State<Arc<AppState>>, body: Body) -> Response {
    let config = &state.config;
    let (body, slot) = match read_body(&state, body).await {
        Ok(read) => read,
        Err(Refusal::TooLarge(limit)) => return too_large(limit),
        Err(Refusal::TooSlow(limit)) => return too_slow(limit),
        Err(Refusal::Busy) => return busy(config.max_concurrent, config.retry_after),
    };
    // Parsing, checking and rendering the prompt are CPU work that grows
    // with the request: off the async workers.
    let preparing = state.clone();
    let prepared = tokio::task::spawn_blocking(move || prepare(&preparing, &body)).await;
    let prepared = match prepared {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(response)) => return *response,
        Err(e) => {
            let body = ErrorBody::new("server_error", format!("request preparation failed: {e}"));
            return error(StatusCode::INTERNAL_SERVER_ERROR, body);
        }
    };
    match prepared {
        Prepared::Passthrough(body) => passthrough(&state, body).await,
        Prepared::Whole { model, answer } => match answer.await {
            Ok(result) => {
                for warning in &result.warnings {
                    tracing::warn!(target: "toolsieve::serve", "{warning}");
                }
                let (id, created) = (openai::completion_id(), openai::unix_now());
                Json(openai::completion(id, model, created, &result, None)).into_response()
            }
            Err(e) => backend_error(&e),
        },
        Prepared::Streamed { model, parts } => streamed(&state, parts, model, slot).await,
    }
}

fn too_large(limit: usize) -> Response {
    let message = format!("the request body is over the limit of {limit} bytes");
    refused(StatusCode::PAYLOAD_TOO_LARGE, "request_too_large", message)
}

fn too_slow(limit: std::time::Duration) -> Response {
    let message = format!(
        "the request body did not arrive within {} s",
        limit.as_secs_f64()
    );
    refused(StatusCode::REQUEST_TIMEOUT, "request_timeout", message)
}

/// Reads and checks the request, and starts the backend request; an
/// error answer if the request is refused.
fn prepare(state: &AppState, body: &Bytes) -> Result<Prepared, Box<Response>> {
    let chat = read_chat(body).map_err(refuse)?;
    if needs_no_rewrite(&chat) {
        return Ok(Prepared::Passthrough(body.clone()));
    }
    let config = &state.config;
    if chat.tools.len() > config.max_tools {
        let mut body = ErrorBody::invalid_request(
            format!(
                "the request has {} tools; this server takes at most {}",
                chat.tools.len(),
                config.max_tools
            ),
            Some("tools".into()),
        );
        body.error.code = Some("too_many_tools".into());
        return Err(refuse(body));
    }
    let request = openai::to_middleware_with(&chat, config.history).map_err(refuse)?;
    let (format, reasoning) =
        pick_format(config.format, &chat.model, request.thinking()).map_err(refuse)?;
    tracing::debug!(target: "toolsieve::serve", model = %chat.model, format = format.name(), stream = chat.stream, tools = chat.tools.len(), "chat request");
    let wrapped = wrapped_model(state, format, reasoning);
    let refused = |e| refuse(openai::request_error(e));
    Ok(if chat.stream {
        Prepared::Streamed {
            parts: wrapped.stream(&request).map_err(refused)?,
            model: chat.model,
        }
    } else {
        Prepared::Whole {
            answer: wrapped.generate(&request).map_err(refused)?,
            model: chat.model,
        }
    })
}

/// A `400` for a request refused before the backend is called.
/// The format of a request for `model` (and its reasoning tags, with the
/// thinking switch the request set), or why there is none.
pub(super) fn pick_format(
    choice: FormatChoice,
    model: &str,
    thinking: Option<bool>,
) -> Result<(Format, Option<crate::Reasoning>), ErrorBody> {
    match (choice, Format::for_model(model)) {
        (FormatChoice::Fixed(format), _) | (FormatChoice::AutoOr(format), Err(_)) => {
            Ok((format, format.default_reasoning()))
        }
        (FormatChoice::Auto | FormatChoice::AutoOr(_), Ok(setup)) => {
            let setup = match thinking {
                Some(on) => setup.thinking(on),
                None => setup,
            };
            Ok((setup.format, setup.reasoning))
        }
        (FormatChoice::Auto, Err(ModelLookupError::Unknown { closest, .. })) => {
            let message = format!(
                "this server reads tool calls in the format of the model family named in `model`, and no family it knows matches {model:?} (closest: {}); send a model id that names its family (e.g. Qwen/Qwen3-8B), or ask the server's operator to set a default format",
                closest.join(", ")
            );
            let mut body = ErrorBody::invalid_request(message, Some("model".into()));
            body.error.code = Some("unknown_model_family".into());
            Err(body)
        }
    }
}

fn refuse(body: ErrorBody) -> Box<Response> {
    Box::new(error(StatusCode::BAD_REQUEST, body))
}

/// The body as a chat request, or an error naming the field at fault.
fn read_chat(body: &[u8]) -> Result<ChatRequest, ErrorBody> {
    let mut json = serde_json::Deserializer::from_slice(body);
    let chat: ChatRequest = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let path = e.path().to_string();
        field_error(&path, &e.into_inner())
    })?;
    json.end().map_err(|e| {
        ErrorBody::invalid_request(format!("the body is not a chat request: {e}"), None)
    })?;
    Ok(chat)
}

fn field_error(path: &str, inner: &serde_json::Error) -> ErrorBody {
    if path == "tool_choice" || path.starts_with("tool_choice.") {
        return ErrorBody::invalid_request(
            "tool_choice must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": {\"name\": \"…\"}}",
            Some("tool_choice".into()),
        );
    }
    let param = (path != ".").then(|| path.to_owned());
    ErrorBody::invalid_request(format!("the body is not a chat request: {inner}"), param)
}

async fn passthrough(state: &AppState, body: Bytes) -> Response {
    let sent = state
        .backend
        .request(reqwest::Method::POST, "/chat/completions")
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await;
    match sent {
        Ok(response) if response.status().is_server_error() => {
            let limits = state.config.backend_limits;
            match openai::check_status(response, &limits).await {
                Err(e) => backend_error(&ModelError::from(e)),
                Ok(response) => relay(response),
            }
        }
        Ok(response) => relay(response),
        Err(e) => backend_error(&ModelError::from(BackendError::Unreachable(e))),
    }
}

/// The stream's state: the encoder and its reused buffers.
struct Encoding {
    encoder: ChunkEncoder,
    /// The chunks of a batch (reused).
    chunks: Vec<ChatCompletionChunk>,
    out: SseOut,
    head: ChunkHead,
    /// Held as long as the stream lives.
    _slot: OwnedSemaphorePermit,
}

async fn streamed(
    state: &AppState,
    mut parts: BoxStream<'static, Result<StreamPart, ModelError>>,
    model: String,
    slot: OwnedSemaphorePermit,
) -> Response {
    // The first part says whether the backend took the request: an error
    // there is still an HTTP status, not an event.
    let first = parts.next().await;
    if let Some(Err(e)) = &first {
        return backend_error(e);
    }
    let (id, created) = (openai::completion_id(), openai::unix_now());
    let encoding = Encoding {
        encoder: ChunkEncoder::new(id, model, created, state.config.stream_policy),
        chunks: Vec::new(),
        out: SseOut::default(),
        head: ChunkHead::default(),
        _slot: slot,
    };
    let frames = Batches {
        parts: stream::iter(first).chain(parts),
        encoding,
        ready: Vec::new(),
        ended: false,
    }
    .chain(stream::once(async {
        let mut out = SseOut::default();
        out.done();
        out.take()
    }));
    sse::response(frames.boxed())
}

/// The parts that are ready at each poll (up to [`BATCH`]), encoded as
/// one frame; the stream ends after the parts do, or after the first
/// error's event (nothing more is read from the backend then).
struct Batches<S> {
    parts: S,
    encoding: Encoding,
    /// The parts of the batch being taken (reused).
    ready: Vec<StreamPart>,
    ended: bool,
}

/// At most this many parts go in one frame, so that a backend that
/// floods the proxy still gets its frames written as they come.
const BATCH: usize = 64;

impl<S> futures::Stream for Batches<S>
where
    S: futures::Stream<Item = Result<StreamPart, ModelError>> + Unpin,
{
    type Item = Bytes;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Bytes>> {
        use std::task::Poll;
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        let mut failed = None;
        while this.ready.len() < BATCH {
            match this.parts.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(part))) => this.ready.push(part),
                Poll::Ready(Some(Err(e))) => {
                    failed = Some(e);
                    this.ended = true;
                    break;
                }
                Poll::Ready(None) => {
                    this.ended = true;
                    break;
                }
                Poll::Pending => break,
            }
        }
        if this.ready.is_empty() && failed.is_none() {
            return match this.ended {
                true => Poll::Ready(None),
                false => Poll::Pending,
            };
        }
        let frame = this.encoding.batch(&this.ready, failed);
        this.ready.clear();
        Poll::Ready(Some(frame))
    }
}

impl Encoding {
    /// The events of a batch of parts, as one frame; then, after an
    /// error, the error event.
    fn batch(&mut self, parts: &[StreamPart], failed: Option<ModelError>) -> Bytes {
        self.chunks.clear();
        self.encoder.push_all(parts, &mut self.chunks);
        for chunk in &self.chunks {
            let head = &mut self.head;
            self.out.data_with(|json| head.write(chunk, json));
        }
        if let Some(e) = failed {
            tracing::warn!(target: "toolsieve::serve", error = %e, "backend failed mid-stream");
            self.out.data(&stream_error(&e));
        }
        self.out.take()
    }
}

/// What every chunk of a stream begins with, `{"id":…,"object":…,
/// "created":…,"model":…,"choices":`, serialised once: a chunk is then
/// that, its choices and usage, and `}`: the bytes serde_json writes for
/// the whole chunk, for less than half the work.
#[derive(Default)]
struct ChunkHead {
    /// The fields the bytes are of.
    of: Option<(String, String, u64, String)>,
    bytes: Vec<u8>,
}

/// The fields of a chunk that [`ChunkHead`] holds, in their order.
#[derive(serde::Serialize)]
struct HeadFields<'a> {
    id: &'a str,
    object: &'a str,
    created: u64,
    model: &'a str,
}

impl ChunkHead {
    /// Writes `chunk` as JSON into `json`.
    fn write(&mut self, chunk: &ChatCompletionChunk, json: &mut Vec<u8>) -> serde_json::Result<()> {
        if !self.holds(chunk) {
            self.of = None;
            let fields = HeadFields {
                id: &chunk.id,
                object: &chunk.object,
                created: chunk.created,
                model: &chunk.model,
            };
            self.bytes.clear();
            serde_json::to_writer(&mut self.bytes, &fields)?;
            // `…"model":"m"}` becomes `…"model":"m","choices":`.
            self.bytes.pop();
            self.bytes.extend_from_slice(b",\"choices\":");
            let (id, object, model) = (&chunk.id, &chunk.object, &chunk.model);
            self.of = Some((id.clone(), object.clone(), chunk.created, model.clone()));
        }
        json.extend_from_slice(&self.bytes);
        serde_json::to_writer(&mut *json, &chunk.choices)?;
        if let Some(usage) = &chunk.usage {
            json.extend_from_slice(b",\"usage\":");
            serde_json::to_writer(&mut *json, usage)?;
        }
        json.push(b'}');
        Ok(())
    }

    fn holds(&self, chunk: &ChatCompletionChunk) -> bool {
        self.of
            .as_ref()
            .is_some_and(|(id, object, created, model)| {
                *id == chunk.id
                    && *object == chunk.object
                    && *created == chunk.created
                    && *model == chunk.model
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_with_a_cached_head_are_serde_json_byte_for_byte() {
        use crate::openai::{ChunkChoice, Delta, FunctionDelta, ToolCallDelta};
        let text = |id: &str, model: &str, content: &str| ChatCompletionChunk {
            id: id.into(),
            object: "chat.completion.chunk".into(),
            created: 7,
            model: model.into(),
            choices: vec![ChunkChoice {
                index: 0,
                delta: Delta {
                    content: Some(content.into()),
                    ..Delta::default()
                },
                finish_reason: None,
            }],
            usage: None,
        };
        let call = ChatCompletionChunk {
            choices: vec![ChunkChoice {
                delta: Delta {
                    role: Some("assistant".into()),
                    tool_calls: vec![ToolCallDelta {
                        index: 1,
                        id: Some("call_1".into()),
                        function: FunctionDelta {
                            name: Some("f".into()),
                            arguments: Some("{\"a\": \"\\n\"}".into()),
                        },
                        ..ToolCallDelta::default()
                    }],
                    ..Delta::default()
                },
                finish_reason: Some("tool_calls".into()),
                ..ChunkChoice::default()
            }],
            ..text("c", "m", "")
        };
        let usage = ChatCompletionChunk {
            choices: Vec::new(),
            usage: Some(crate::middleware::Usage {
                prompt_tokens: 1,
                completion_tokens: 2,
                total_tokens: 3,
            }),
            ..text("c", "m", "")
        };
        let mut head = ChunkHead::default();
        // The head is made again when a field it holds changes.
        for chunk in [
            text("c", "m", "a \"q\"\n\u{e9}"),
            call,
            usage,
            text("c", "Qwen/\"x\"", "b"),
            text("d\\", "Qwen/\"x\"", ""),
            text("d\\", "Qwen/\"x\"", "é"),
        ] {
            let mut json = Vec::new();
            head.write(&chunk, &mut json).unwrap();
            assert_eq!(
                String::from_utf8(json).unwrap(),
                serde_json::to_string(&chunk).unwrap()
            );
        }
    }

    #[test]
    fn body_errors_name_the_field() {
        let bad_choice = br#"{"model": "m", "messages": [], "tool_choice": "sometimes"}"#;
        let e = read_chat(bad_choice).unwrap_err();
        assert_eq!(e.error.param.as_deref(), Some("tool_choice"));
        assert!(e.error.message.contains("\"required\""), "{e}");
        let bad_message = br#"{"model": "m", "messages": [{"role": "user", "content": 3}]}"#;
        let e = read_chat(bad_message).unwrap_err();
        assert!(
            e.error
                .param
                .as_deref()
                .unwrap_or("")
                .starts_with("messages[0]"),
            "{e}"
        );
        let trailing = br#"{"model": "m", "messages": []} x"#;
        assert!(read_chat(trailing).is_err());
        assert!(read_chat(br#"{"model": "m", "messages": []}"#).is_ok());
    }
}
