//! Client keys: a bearer token every guarded route asks for.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::errors::refused;
use super::AppState;

/// Lets the request through when the config has no keys or the request
/// carries one of them; `401` with an OpenAI error body otherwise.
pub(super) async fn check_key(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let keys = &state.config.client_keys;
    if keys.is_empty() {
        return next.run(request).await;
    }
    // OpenAI clients send `Authorization: Bearer`, Anthropic's `x-api-key`.
    let headers = request.headers();
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .or_else(|| headers.get("x-api-key").and_then(|v| v.to_str().ok()))
        .map(str::trim);
    match presented {
        Some(key) if matches_any(key.as_bytes(), keys) => next.run(request).await,
        presented => {
            let message = if presented.is_some() {
                "the API key is not one this server accepts"
            } else {
                "this server needs an API key: send Authorization: Bearer <key> (or x-api-key: <key>)"
            };
            if request.uri().path().starts_with("/v1/messages") {
                // Anthropic clients read Anthropic's error shape.
                let body = serde_json::json!({"type": "error",
                    "error": {"type": "authentication_error", "message": message}});
                return (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response();
            }
            refused(StatusCode::UNAUTHORIZED, "invalid_api_key", message)
        }
    }
}

/// Compares against every key, each in constant time, so that neither
/// the bytes of a key nor which key matched shows in the time taken.
fn matches_any(presented: &[u8], keys: &[String]) -> bool {
    keys.iter().fold(0u8, |found, key| {
        found | presented.ct_eq(key.as_bytes()).unwrap_u8()
    }) == 1
}

/// Keys from text: one per line or separated by commas or spaces; blank
/// lines and `#` comments are skipped.
pub fn parse_keys(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .flat_map(|line| line.split([',', ' ', '\t']))
        .map(str::trim)
        .filter(|key| !key.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_exactly() {
        let keys = parse_keys("# operators\nsk-one, sk-two\n\nsk-three # ci\n");
        assert_eq!(keys, ["sk-one", "sk-two", "sk-three"]);
        assert!(matches_any(b"sk-two", &keys));
        assert!(matches_any(b"sk-three", &keys));
        for wrong in ["sk-tw", "sk-two2", "", "SK-ONE"] {
            assert!(!matches_any(wrong.as_bytes(), &keys), "{wrong}");
        }
    }
}
