//! Error answers: OpenAI error bodies with the status a client can act on.

use std::time::Duration;

use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::middleware::{ModelError, ToolChoiceUnmet};
use crate::openai::{BackendError, ErrorBody};

pub(super) fn error(status: StatusCode, body: ErrorBody) -> Response {
    tracing::debug!(target: "toolsieve::serve", %status, error = %body, "error answer");
    (status, Json(body)).into_response()
}

/// An `invalid_request_error` with `code`, answered with `status`.
pub(super) fn refused(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    let mut body = ErrorBody::invalid_request(message, None);
    body.error.code = Some(code.into());
    error(status, body)
}

/// `error` with a `Retry-After` header.
pub(super) fn with_retry_after(mut response: Response, retry_after: Option<&str>) -> Response {
    if let Some(value) = retry_after.and_then(|v| HeaderValue::from_str(v).ok()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// Our own `503`: every slot is taken.
pub(super) fn busy(max_concurrent: usize, retry_after: Duration) -> Response {
    let mut body = ErrorBody::new(
        "server_error",
        format!(
            "toolsieve serve is at its limit of {max_concurrent} requests at once; retry later"
        ),
    );
    body.error.code = Some("server_busy".into());
    let seconds = retry_after.as_secs().max(1).to_string();
    with_retry_after(error(StatusCode::SERVICE_UNAVAILABLE, body), Some(&seconds))
}

/// A backend failure as the client should see it: the backend's own `4xx`
/// with its message and code, `504` for a backend that went silent, `502`
/// for the rest. `Retry-After` is relayed.
pub(super) fn backend_error(e: &ModelError) -> Response {
    let Some(backend) = e.downcast_ref::<BackendError>() else {
        return gateway(StatusCode::BAD_GATEWAY, model_error_code(e), e.to_string());
    };
    match backend {
        BackendError::Status {
            status,
            message,
            kind,
            code,
            param,
            retry_after,
        } => {
            let client_error = StatusCode::from_u16(*status)
                .ok()
                .filter(StatusCode::is_client_error);
            let response = match client_error {
                Some(status) => {
                    let mut body = ErrorBody::invalid_request(message.clone(), param.clone());
                    if let Some(kind) = kind {
                        body.error.kind.clone_from(kind);
                    }
                    body.error.code.clone_from(code);
                    error(status, body)
                }
                None => gateway(StatusCode::BAD_GATEWAY, backend.code(), backend.to_string()),
            };
            with_retry_after(response, retry_after.as_deref())
        }
        BackendError::Interrupted(e) if e.is_timeout() => gateway(
            StatusCode::GATEWAY_TIMEOUT,
            backend.code(),
            backend.to_string(),
        ),
        other => gateway(StatusCode::BAD_GATEWAY, other.code(), other.to_string()),
    }
}

/// The code of an error that is not the backend's own: the model did not
/// make the call a forced `tool_choice` asked for, or something else.
fn model_error_code(e: &ModelError) -> &'static str {
    if e.is::<ToolChoiceUnmet>() {
        "tool_choice_unmet"
    } else {
        "backend_error"
    }
}

fn gateway(status: StatusCode, code: &str, message: String) -> Response {
    let mut body = ErrorBody::new("server_error", message);
    body.error.code = Some(code.into());
    error(status, body)
}

/// The error event that ends a stream the backend broke off.
pub(super) fn stream_error(e: &ModelError) -> ErrorBody {
    let code = e
        .downcast_ref::<BackendError>()
        .map_or_else(|| model_error_code(e), BackendError::code);
    let mut body = ErrorBody::new("server_error", e.to_string());
    body.error.code = Some(code.into());
    body
}

pub(super) async fn not_found(method: Method, uri: Uri) -> Response {
    let message = format!(
        "no route {method} {}; toolsieve serve answers POST /v1/chat/completions, POST /v1/messages, POST /v1/responses, GET /v1/models and GET /health (token counting is not offered: the backend's tokenizer is not known here)",
        uri.path()
    );
    refused(StatusCode::NOT_FOUND, "unknown_url", message)
}

pub(super) async fn method_not_allowed(method: Method, uri: Uri) -> Response {
    let message = format!("{} does not take {method}", uri.path());
    refused(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        message,
    )
}
