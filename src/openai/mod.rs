//! The OpenAI chat-completions wire around the middleware: requests in,
//! chunks and completions out.
//!
//! - [`to_middleware`] reads a [`ChatRequest`] (string or part content,
//!   nested function tools, snake_case fields, sampling settings) into the
//!   middleware's [`Request`](crate::middleware::Request); [`transform`]
//!   goes on to the request a text-only backend gets: no `tools` or
//!   `tool_choice`, the tool prompt in the system message, history as text
//!   in the format, `required` / a named tool as a `json_schema` response
//!   format. Fields it does not read pass through untouched.
//! - [`ChunkEncoder`] turns a wrapped model's stream into
//!   `chat.completion.chunk`s (`content`, `reasoning_content`,
//!   `tool_calls` deltas, `finish_reason`), under a [`StreamPolicy`];
//!   [`completion`] builds the non-streaming answer from the same parse.
//! - With the `server` feature, [`HttpModel`] is an OpenAI-compatible
//!   backend as a [`LanguageModel`](crate::middleware::LanguageModel), and
//!   [`crate::server`] the proxy `toolsieve serve` runs.
//!
//! ```
//! use toolsieve::middleware::ParamsOptions;
//! use toolsieve::openai::{transform, ChatRequest};
//! use toolsieve::Format;
//!
//! let chat: ChatRequest = serde_json::from_str(r#"{
//!     "model": "qwen3-8b",
//!     "temperature": 0.2,
//!     "messages": [{"role": "user", "content": "Weather in Paris?"}],
//!     "tools": [{"type": "function", "function": {"name": "get_weather",
//!         "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
//!     "tool_choice": "required"
//! }"#).unwrap();
//! let (backend, _) = transform(Format::Hermes, &chat, &ParamsOptions::default()).unwrap();
//! let json = serde_json::to_value(&backend).unwrap();
//! assert!(json.get("tools").is_none() && json.get("tool_choice").is_none());
//! assert_eq!(json["temperature"], 0.2);
//! assert_eq!(json["response_format"]["type"], "json_schema");
//! assert!(json["messages"][0]["content"].as_str().unwrap().contains("get_weather"));
//! ```

mod chunks;
#[cfg(feature = "server")]
mod http;
mod request;
#[cfg(feature = "server")]
mod sse;
mod wire;

pub use chunks::{
    completion, completion_id, finish_reason, message, random_call_id, unix_now, CallIdSource,
    ChunkEncoder, StreamPolicy,
};
#[cfg(feature = "server")]
pub(crate) use http::check_status;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use http::{BackendError, BackendLimits, HttpModel};
pub use request::{
    request_error, to_backend, to_middleware, to_middleware_with, transform, History,
};
pub use wire::{
    tool_choice_value, AssistantMessage, ChatCompletion, ChatCompletionChunk, ChatMessage,
    ChatRequest, ChatTool, Choice, ChunkChoice, ContentPart, Delta, ErrorBody, ErrorObject,
    FunctionCall, FunctionDef, FunctionDelta, MessageContent, ToolCall, ToolCallDelta, Usage,
};
