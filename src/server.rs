//! `toolsieve serve`: an OpenAI-compatible proxy that gives a text-only
//! backend tool calling.
//!
//! `POST /v1/chat/completions` with tools is rewritten for the backend
//! ([`openai::transform`]: tool prompt, history as text, `tool_choice`),
//! and the backend's text is parsed back into `tool_calls`, streamed
//! (server-sent events) or whole. Requests without tools pass through
//! untouched. `GET /v1/models` is the backend's; `GET /health` answers
//! `{"status": "ok"}`.
//!
//! Errors are OpenAI error bodies: `400` for a request the middleware
//! rejects, `413` for a body over the limit, `503` at the concurrent
//! request limit, `502` when the backend is down or answers with an
//! error. A backend that fails mid-stream ends the stream with an error
//! event, never a torn frame. A client that disconnects drops the backend
//! request with it.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::stream::{self, StreamExt};
use tokio::sync::Semaphore;

use crate::middleware::{ModelError, StreamPart, ToolCallingModel, ToolChoice};
use crate::openai::{
    self, BackendError, ChatMessage, ChatRequest, ChunkEncoder, ErrorBody, HttpModel, StreamPolicy,
};
use crate::{Format, Limits};

/// How `serve` picks the format of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatChoice {
    /// From the request's `model`, with [`Format::for_model`] (its
    /// reasoning tags too); an unknown model is a `400`.
    #[default]
    Auto,
    /// Always this format (and its own reasoning tags, if it has any).
    Fixed(Format),
}

/// What `serve` needs to know.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The backend's base URL, e.g. `http://127.0.0.1:8000/v1`.
    pub backend: String,
    /// How the format is picked.
    pub format: FormatChoice,
    /// Sent to the backend as a bearer token.
    pub api_key: Option<String>,
    /// When calls go out on a stream.
    pub stream_policy: StreamPolicy,
    /// Largest request body accepted (default 8 MiB).
    pub max_body_bytes: usize,
    /// Most requests served at once (default 256).
    pub max_concurrent: usize,
    /// Parser limits.
    pub limits: Limits,
}

impl ServeConfig {
    /// The defaults, for `backend`.
    pub fn new(backend: impl Into<String>) -> ServeConfig {
        ServeConfig {
            backend: backend.into(),
            format: FormatChoice::Auto,
            api_key: None,
            stream_policy: StreamPolicy::Eager,
            max_body_bytes: 8 << 20,
            max_concurrent: 256,
            limits: Limits::default(),
        }
    }
}

struct AppState {
    config: ServeConfig,
    backend: HttpModel,
    slots: Arc<Semaphore>,
}

/// The routes, ready for `axum::serve`.
///
/// # Errors
///
/// When the HTTP client for the backend cannot be built.
pub fn router(config: ServeConfig) -> Result<Router, BackendError> {
    let mut backend = HttpModel::new(&config.backend)?;
    if let Some(key) = &config.api_key {
        backend = backend.api_key(key);
    }
    let state = Arc::new(AppState {
        slots: Arc::new(Semaphore::new(config.max_concurrent)),
        config,
        backend,
    });
    Ok(Router::new()
        .route("/health", get(health))
        .route("/v1/models", get(models))
        .route("/v1/chat/completions", post(chat))
        .with_state(state))
}

/// Serves on `listener` until `shutdown` completes, then stops taking
/// connections and lets the requests in flight finish.
///
/// # Errors
///
/// When the backend client cannot be built, or the listener fails.
pub async fn run(
    listener: tokio::net::TcpListener,
    config: ServeConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let app = router(config).map_err(std::io::Error::other)?;
    // Chunks are small and must go out at once: no Nagle delay.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(target: "toolsieve::serve", error = %e, "TCP_NODELAY not set");
        }
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

fn error(status: StatusCode, body: ErrorBody) -> Response {
    tracing::debug!(target: "toolsieve::serve", %status, error = %body, "error answer");
    (status, Json(body)).into_response()
}

fn backend_error(e: &ModelError) -> Response {
    let (code, message) = match e.downcast_ref::<BackendError>() {
        Some(BackendError::Unreachable(_)) => ("backend_unreachable", e.to_string()),
        _ => ("backend_error", e.to_string()),
    };
    let mut body = ErrorBody::new("server_error", message);
    body.error.code = Some(code.into());
    error(StatusCode::BAD_GATEWAY, body)
}

async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({"status": "ok"}))
}

async fn models(State(state): State<Arc<AppState>>) -> Response {
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

/// A backend answer passed on as it comes: status, content type, body.
fn relay(response: reqwest::Response) -> Response {
    let status =
        StatusCode::from_u16(response.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
        .to_owned();
    let body = Body::from_stream(response.bytes_stream());
    let mut out = Response::new(body);
    *out.status_mut() = status;
    if let Ok(value) = header::HeaderValue::from_str(&content_type) {
        out.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    out
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

async fn chat(State(state): State<Arc<AppState>>, body: Body) -> Response {
    let Ok(slot) = state.slots.clone().try_acquire_owned() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorBody::new(
                "server_error",
                format!(
                    "toolsieve serve is at its limit of {} requests at once; retry later",
                    state.config.max_concurrent
                ),
            ),
        );
    };
    let body = match axum::body::to_bytes(body, state.config.max_body_bytes).await {
        Ok(body) => body,
        Err(_) => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorBody::invalid_request(
                    format!(
                        "the request body is over the limit of {} bytes",
                        state.config.max_body_bytes
                    ),
                    None,
                ),
            )
        }
    };
    let chat: ChatRequest = match serde_json::from_slice(&body) {
        Ok(chat) => chat,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                ErrorBody::invalid_request(format!("the body is not a chat request: {e}"), None),
            )
        }
    };
    if needs_no_rewrite(&chat) {
        return passthrough(&state, body).await;
    }
    let (format, reasoning) = match state.config.format {
        FormatChoice::Fixed(format) => (format, format.default_reasoning()),
        FormatChoice::Auto => match Format::for_model(&chat.model) {
            Ok(setup) => (setup.format, setup.reasoning),
            Err(e) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    ErrorBody::invalid_request(
                        format!("{e} (or start toolsieve serve with --format)"),
                        Some("model".into()),
                    ),
                )
            }
        },
    };
    let request = match openai::to_middleware(&chat) {
        Ok(request) => request,
        Err(body) => return error(StatusCode::BAD_REQUEST, body),
    };
    tracing::debug!(target: "toolsieve::serve", model = %chat.model, format = format.name(), stream = chat.stream, tools = chat.tools.len(), "chat request");
    let wrapped = ToolCallingModel::new(state.backend.clone(), format)
        .reasoning(reasoning)
        .limits(state.config.limits);
    let id = openai::completion_id();
    let created = openai::unix_now();
    if chat.stream {
        streamed(&state, wrapped, &request, chat.model, id, created, slot).await
    } else {
        let future = match wrapped.generate(&request) {
            Ok(future) => future,
            Err(e) => return error(StatusCode::BAD_REQUEST, openai::request_error(e)),
        };
        match future.await {
            Ok(result) => {
                for warning in &result.warnings {
                    tracing::warn!(target: "toolsieve::serve", "{warning}");
                }
                Json(openai::completion(id, chat.model, created, &result, None)).into_response()
            }
            Err(e) => backend_error(&e),
        }
    }
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
            let e = match openai::check_status(response).await {
                Err(e) => e,
                Ok(response) => return relay(response),
            };
            backend_error(&ModelError::from(e))
        }
        Ok(response) => relay(response),
        Err(e) => backend_error(&ModelError::from(BackendError::Unreachable(e))),
    }
}

async fn streamed(
    state: &AppState,
    wrapped: ToolCallingModel<HttpModel>,
    request: &crate::middleware::Request,
    model: String,
    id: String,
    created: u64,
    slot: tokio::sync::OwnedSemaphorePermit,
) -> Response {
    let mut parts = match wrapped.stream(request) {
        Ok(parts) => parts,
        Err(e) => return error(StatusCode::BAD_REQUEST, openai::request_error(e)),
    };
    // The first part says whether the backend took the request: an error
    // there is still an HTTP status, not an event.
    let first = parts.next().await;
    if let Some(Err(e)) = &first {
        return backend_error(e);
    }
    let mut encoder = ChunkEncoder::new(id, model, created, state.config.stream_policy);
    let parts = stream::iter(first).chain(parts).ready_chunks(64);
    let mut done = false;
    let events = parts
        .map(move |batch| {
            // The slot is held as long as the stream lives.
            let _slot = &slot;
            let mut out: Vec<Result<SseEvent, Infallible>> = Vec::new();
            if done {
                return out;
            }
            let mut chunks = Vec::new();
            let mut ok: Vec<StreamPart> = Vec::with_capacity(batch.len());
            let mut failed = None;
            for part in batch {
                match part {
                    Ok(part) => ok.push(part),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            encoder.push_all(&ok, &mut chunks);
            for chunk in &chunks {
                if let Ok(json) = serde_json::to_string(chunk) {
                    out.push(Ok(SseEvent::default().data(json)));
                }
            }
            if let Some(e) = failed {
                done = true;
                tracing::warn!(target: "toolsieve::serve", error = %e, "backend failed mid-stream");
                let mut body = ErrorBody::new("server_error", e.to_string());
                body.error.code = Some("backend_error".into());
                if let Ok(json) = serde_json::to_string(&body) {
                    out.push(Ok(SseEvent::default().data(json)));
                }
            }
            out
        })
        .flat_map(stream::iter)
        .chain(stream::once(async {
            Ok(SseEvent::default().data("[DONE]"))
        }));
    Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
}
