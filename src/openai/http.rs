//! An OpenAI-compatible HTTP backend as a [`LanguageModel`]: reqwest for
//! HTTP, eventsource-stream for the server-sent events.

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};

use super::request::to_backend;
use super::wire::{ChatCompletion, ChatCompletionChunk, ErrorBody};
use crate::middleware::{FinishReason, Generation, LanguageModel, ModelError, ModelPart, Request};

/// What went wrong talking to the backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// No connection, or it broke, or it timed out.
    #[error("backend unreachable: {0}")]
    Unreachable(#[source] reqwest::Error),
    /// The backend answered with an error status.
    #[error("backend answered {status}: {message}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The backend's error message (its OpenAI error body's message,
        /// or the start of its body).
        message: String,
    },
    /// The backend's answer is not what the wire says it should be.
    #[error("backend sent an answer that is not OpenAI's: {0}")]
    Protocol(String),
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
}

impl HttpModel {
    /// A backend at `base_url` (the part before `/chat/completions`, e.g.
    /// `http://127.0.0.1:8000/v1`), with a 10 s connect timeout and a 300 s
    /// timeout between two reads.
    ///
    /// # Errors
    ///
    /// When the HTTP client cannot be built (no TLS roots).
    pub fn new(base_url: impl Into<String>) -> Result<HttpModel, BackendError> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(Duration::from_secs(300))
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
        }
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
        Box::pin(async move {
            let response = pending.await.map_err(BackendError::Unreachable)?;
            check_status(response).await
        })
    }
}

/// Passes a success through; an error status becomes
/// [`BackendError::Status`] with the backend's message.
pub(crate) async fn check_status(
    response: reqwest::Response,
) -> Result<reqwest::Response, BackendError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let body = response.text().await.unwrap_or_default();
    let message = match serde_json::from_str::<ErrorBody>(&body) {
        Ok(error) => error.error.message,
        Err(_) => body.chars().take(500).collect(),
    };
    Err(BackendError::Status {
        status: status.as_u16(),
        message,
    })
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
        Box::pin(async move {
            let response = sent.await?;
            let body = response.bytes().await.map_err(BackendError::Unreachable)?;
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
        stream::once(sent)
            .flat_map(|response| match response {
                Err(e) => stream::iter([Err(ModelError::from(e))]).boxed(),
                Ok(response) => events(response),
            })
            .boxed()
    }
}

/// The parts of one streamed answer; ends after `[DONE]`, at the end of
/// the body, or after the first error.
fn events(response: reqwest::Response) -> BoxStream<'static, Result<ModelPart, ModelError>> {
    let mut finished = false;
    response
        .bytes_stream()
        .eventsource()
        .map(move |event| -> Vec<Result<ModelPart, ModelError>> {
            if finished {
                return Vec::new();
            }
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    finished = true;
                    return vec![Err(BackendError::Protocol(e.to_string()).into())];
                }
            };
            if event.data.trim() == "[DONE]" {
                finished = true;
                return Vec::new();
            }
            if let Ok(error) = serde_json::from_str::<ErrorBody>(&event.data) {
                finished = true;
                return vec![Err(BackendError::Status {
                    status: 200,
                    message: error.error.message,
                }
                .into())];
            }
            let chunk: ChatCompletionChunk = match serde_json::from_str(&event.data) {
                Ok(chunk) => chunk,
                Err(e) => {
                    finished = true;
                    return vec![Err(BackendError::Protocol(format!(
                        "{e} in {:?}",
                        event.data
                    ))
                    .into())];
                }
            };
            let mut parts = Vec::new();
            for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
                if let Some(reasoning) = choice.delta.reasoning_content.filter(|r| !r.is_empty()) {
                    parts.push(Ok(ModelPart::ReasoningDelta(reasoning)));
                }
                if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
                    parts.push(Ok(ModelPart::TextDelta(text)));
                }
                if let Some(reason) = choice.finish_reason {
                    parts.push(Ok(ModelPart::Finish(finish(Some(&reason)))));
                }
            }
            if let Some(usage) = chunk.usage {
                parts.push(Ok(ModelPart::Usage(usage)));
            }
            parts
        })
        .flat_map(stream::iter)
        .boxed()
}
