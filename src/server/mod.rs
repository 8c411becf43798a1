//! `toolsieve serve`: an OpenAI-compatible proxy that gives a text-only
//! backend tool calling.
//!
//! `POST /v1/chat/completions` with tools is rewritten for the backend
//! ([`openai::transform`](crate::openai::transform): tool prompt, history as text, `tool_choice`),
//! and the backend's text is parsed back into `tool_calls`, streamed
//! (server-sent events) or whole. Requests without tools pass through
//! untouched. `GET /v1/models` is the backend's; `GET /health` answers
//! `{"status": "ok"}`.
//!
//! Every limit and timeout is a field of [`ServeConfig`], with the
//! default and what a client gets when it trips documented there and in
//! `docs/server.md`. In short, errors are OpenAI error bodies: `400` for a
//! request the middleware rejects (or one with too many tools), `401`
//! without a valid client key, `404`/`405` for unknown routes, `408` for a
//! body that does not arrive in time, `413` for a body over the limit,
//! `503` (with `Retry-After`) at the concurrent request limit; a backend's
//! `4xx` comes back as that `4xx` with its message and code, its `5xx` or
//! a broken connection as `502`, its silence past the read timeout as
//! `504`. A backend that fails mid-stream ends the stream with an error
//! event and `[DONE]`, never a torn frame and never an unfinished call
//! dressed as a finished one. A client that disconnects drops the backend
//! request with it.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{get, post};
use axum::Router;
use tokio::sync::Semaphore;

use crate::openai::{BackendError, BackendLimits, HttpModel, StreamPolicy};
use crate::{Format, Limits};

mod auth;
mod chat;
mod errors;
mod listen;
mod messages;
mod responses;
mod route;
mod sse;

pub use auth::parse_keys;

/// How `serve` picks the format of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatChoice {
    /// From the request's `model`, with [`Format::for_model`] (its
    /// reasoning tags too); an unknown model is a `400` that says so.
    #[default]
    Auto,
    /// From the request's `model` as [`Auto`](FormatChoice::Auto) does; a
    /// model the registry does not know (a backend serving under a name of
    /// its own) gets this format.
    AutoOr(Format),
    /// Always this format (and its own reasoning tags, if it has any).
    Fixed(Format),
}

/// What `serve` needs to know. [`ServeConfig::new`] gives the defaults
/// documented on each field.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeConfig {
    /// The backend's base URL, e.g. `http://127.0.0.1:8000/v1`.
    pub backend: String,
    /// How the format is picked.
    pub format: FormatChoice,
    /// How many more times a forced `tool_choice` (`required`, a named
    /// tool) is asked for when an answer lacks the call (default 1); then
    /// the request fails (`502`, or an error event, code
    /// `tool_choice_unmet`). `None`: the answer comes as the model gave it.
    pub forced_retries: Option<u32>,
    /// How earlier turns that are not well-formed are taken (default
    /// [`History::Tolerant`](crate::openai::History::Tolerant)).
    pub history: crate::openai::History,
    /// Sent to the backend as a bearer token.
    pub api_key: Option<String>,
    /// Bearer tokens clients must present (`Authorization: Bearer …`);
    /// empty: no check. Every route but `/health` is guarded; a missing or
    /// wrong key gets `401`.
    pub client_keys: Vec<String>,
    /// Listen on a non-loopback address without client keys (refused
    /// otherwise, so that the backend's key is not lent to the network).
    pub allow_unauthenticated: bool,
    /// When calls go out on a stream.
    pub stream_policy: StreamPolicy,
    /// Largest request body accepted (default 8 MiB; `413` beyond).
    pub max_body_bytes: usize,
    /// Most tools one request may carry (default 256; `400` beyond).
    pub max_tools: usize,
    /// Most requests served at once (default 256; `503` with
    /// `Retry-After` beyond). A slot is taken once the body has arrived.
    pub max_concurrent: usize,
    /// Most connections open at once (default 4096); more wait to be
    /// accepted.
    pub max_connections: usize,
    /// How long a client may take to send a request's headers (default
    /// 10 s; the connection is closed). The clock runs from the end of the
    /// previous answer on a keep-alive connection, so this is also how
    /// long an idle connection stays open.
    pub header_read_timeout: Duration,
    /// How long a client may take to send a request's body (default 30 s;
    /// `408`).
    pub body_read_timeout: Duration,
    /// Connecting to the backend (default 10 s; `502`).
    pub backend_connect_timeout: Duration,
    /// The longest silence between two reads from the backend (default
    /// 300 s; `504` before the answer starts, an error event after).
    pub backend_read_timeout: Duration,
    /// Bounds on the backend's event lines, bodies and error bodies.
    pub backend_limits: BackendLimits,
    /// What our own `503` asks clients to wait, in `Retry-After` (default
    /// 1 s).
    pub retry_after: Duration,
    /// Parser limits.
    pub limits: Limits,
}

impl ServeConfig {
    /// The defaults, for `backend`.
    pub fn new(backend: impl Into<String>) -> ServeConfig {
        ServeConfig {
            backend: backend.into(),
            format: FormatChoice::Auto,
            history: crate::openai::History::Tolerant,
            forced_retries: Some(1),
            api_key: None,
            client_keys: Vec::new(),
            allow_unauthenticated: false,
            stream_policy: StreamPolicy::Eager,
            max_body_bytes: 8 << 20,
            max_tools: 256,
            max_concurrent: 256,
            max_connections: 4096,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            backend_connect_timeout: Duration::from_secs(10),
            backend_read_timeout: Duration::from_secs(300),
            backend_limits: BackendLimits::default(),
            retry_after: Duration::from_secs(1),
            limits: Limits::default(),
        }
    }
}

struct AppState {
    config: ServeConfig,
    backend: HttpModel,
    slots: Arc<Semaphore>,
}

/// The routes, ready for `axum::serve` (which sets no header timeout:
/// [`run`] serves them with every limit of the config).
///
/// # Errors
///
/// When the HTTP client for the backend cannot be built.
pub fn router(config: ServeConfig) -> Result<Router, BackendError> {
    let mut backend = HttpModel::with_timeouts(
        &config.backend,
        config.backend_connect_timeout,
        config.backend_read_timeout,
    )?
    .limits(config.backend_limits);
    if let Some(key) = &config.api_key {
        backend = backend.api_key(key);
    }
    let state = Arc::new(AppState {
        slots: Arc::new(Semaphore::new(config.max_concurrent.max(1))),
        config,
        backend,
    });
    let guarded = Router::new()
        .route("/v1/models", get(chat::models))
        .route("/v1/chat/completions", post(chat::chat))
        .route("/v1/messages", post(messages::messages))
        .route("/v1/responses", post(responses::responses))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::check_key,
        ));
    Ok(guarded
        .route("/health", get(chat::health))
        .fallback(errors::not_found)
        .method_not_allowed_fallback(errors::method_not_allowed)
        .with_state(state))
}

/// Serves on `listener` until `shutdown` completes, then stops taking
/// connections and lets the requests in flight finish.
///
/// # Errors
///
/// When the backend client cannot be built, when `listener` is on a
/// non-loopback address and the config has no client keys (unless
/// [`ServeConfig::allow_unauthenticated`]), or when the listener fails.
pub async fn run(
    listener: tokio::net::TcpListener,
    config: ServeConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    if !local.ip().is_loopback() && config.client_keys.is_empty() && !config.allow_unauthenticated {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "refusing to listen on {local} without client keys: anyone who can reach it \
                 could use the backend; give client keys (--client-keys-env or \
                 --client-keys-file) or say --allow-unauthenticated"
            ),
        ));
    }
    let options = listen::Options::of(&config);
    let app = router(config).map_err(std::io::Error::other)?;
    listen::serve(listener, app, options, shutdown).await
}
