//! Serde types of the OpenAI chat-completions wire: the request, its
//! messages and tools, the response, the stream chunks and the error body.
//!
//! The request types keep every field they do not know in `extra`, so a
//! request passes through to a backend with nothing dropped.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::middleware::ToolChoice;
pub use crate::middleware::Usage;

/// `POST /v1/chat/completions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// Function tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ChatTool>,
    /// `"auto"`, `"none"`, `"required"` or
    /// `{"type": "function", "function": {"name": …}}`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "tool_choice_wire"
    )]
    pub tool_choice: Option<ToolChoice>,
    /// `false`: the model should make at most one call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Stream the answer as server-sent events.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    /// `{"type": "text" | "json_object" | "json_schema", …}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Value>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Most tokens to generate (older name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Most tokens to generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u64>,
    /// Stop sequences: a string or a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Value>,
    /// Sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// How many answers (only 1 is supported with tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// Every other field, passed through untouched.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn tool_choice_wire<S: serde::Serializer>(
    choice: &Option<ToolChoice>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match choice {
        None => s.serialize_none(),
        Some(choice) => tool_choice_value(choice).serialize(s),
    }
}

/// A tool choice as OpenAI spells it.
pub fn tool_choice_value(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => Value::from("auto"),
        ToolChoice::None => Value::from("none"),
        ToolChoice::Required => Value::from("required"),
        ToolChoice::Tool { name } => serde_json::json!({
            "type": "function",
            "function": {"name": name},
        }),
    }
}

/// One message of a chat request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum ChatMessage {
    /// Instructions.
    System {
        /// The text.
        content: MessageContent,
        /// A participant name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Instructions (the newer name of `system`).
    Developer {
        /// The text.
        content: MessageContent,
        /// A participant name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The user's turn.
    User {
        /// The text, or parts.
        content: MessageContent,
        /// A participant name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The assistant's turn: text and calls.
    Assistant {
        /// The text (`null` when it only called tools).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<MessageContent>,
        /// The calls it made.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// Its reasoning, as vLLM and DeepSeek return it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning_content: Option<String>,
        /// A participant name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A tool's result.
    Tool {
        /// The call it answers.
        tool_call_id: String,
        /// The result.
        content: MessageContent,
    },
}

/// Message content: a string, or a list of parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    /// Plain text.
    Text(String),
    /// Parts.
    Parts(Vec<ContentPart>),
}

impl MessageContent {
    /// The text parts joined with newlines, or the first part that is not
    /// text (by index).
    pub fn text(&self) -> Result<String, usize> {
        match self {
            MessageContent::Text(text) => Ok(text.clone()),
            MessageContent::Parts(parts) => {
                let mut texts = Vec::with_capacity(parts.len());
                for (i, part) in parts.iter().enumerate() {
                    match part {
                        ContentPart::Text { text } => texts.push(text.as_str()),
                        ContentPart::Other(_) => return Err(i),
                    }
                }
                Ok(texts.join("\n"))
            }
        }
    }
}

/// One part of message content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// Anything else (`image_url`, `input_audio`, `file`, …), kept as sent.
    #[serde(untagged)]
    Other(Value),
}

/// A call in an assistant message or a response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call id.
    pub id: String,
    /// Always `"function"`.
    #[serde(rename = "type", default = "function_kind")]
    pub kind: String,
    /// The function and its arguments.
    pub function: FunctionCall,
}

fn function_kind() -> String {
    "function".into()
}

/// The function of a [`ToolCall`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool.
    pub name: String,
    /// The arguments, as a JSON text.
    pub arguments: String,
}

/// A tool of a request: `{"type": "function", "function": {…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatTool {
    /// `"function"` (other kinds are rejected with a clear error).
    #[serde(rename = "type")]
    pub kind: String,
    /// The function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<FunctionDef>,
    /// Other fields of tools that are not functions.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A function tool's definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDef {
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// OpenAI's structured-outputs switch (kept, not enforced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// A non-streaming answer: `chat.completion`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletion {
    /// `chatcmpl-…`.
    pub id: String,
    /// `"chat.completion"`.
    pub object: String,
    /// Unix seconds.
    pub created: u64,
    /// The model id.
    pub model: String,
    /// The answers (one).
    pub choices: Vec<Choice>,
    /// Token counts, when the backend gave them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// One answer of a [`ChatCompletion`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Its index (0).
    pub index: u32,
    /// The assistant message.
    pub message: AssistantMessage,
    /// `stop`, `length`, `tool_calls` or `content_filter`.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The assistant message of an answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// `"assistant"`.
    pub role: String,
    /// The text; `null` when there is none.
    pub content: Option<String>,
    /// The calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The reasoning, when it was separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
}

/// One server-sent event of a streamed answer: `chat.completion.chunk`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionChunk {
    /// `chatcmpl-…`, the same for every chunk of an answer.
    pub id: String,
    /// `"chat.completion.chunk"`.
    pub object: String,
    /// Unix seconds.
    pub created: u64,
    /// The model id.
    pub model: String,
    /// The delta (one choice; none in a usage-only chunk).
    pub choices: Vec<ChunkChoice>,
    /// Token counts (the last chunk, when asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// The choice of a [`ChatCompletionChunk`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkChoice {
    /// Its index (0).
    #[serde(default)]
    pub index: u32,
    /// What is new.
    #[serde(default)]
    pub delta: Delta,
    /// Set on the last chunk.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// What one chunk adds to the message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// `"assistant"` on the first chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// More text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// More reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// Call pieces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallDelta>,
}

/// A piece of a call in a [`Delta`]: the first piece of a call has its
/// `id`, `type` and name; the later ones argument text only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallDelta {
    /// Which call of the message (0, 1, …).
    pub index: u32,
    /// Its id (first piece).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `"function"` (first piece).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Name and argument text.
    #[serde(default)]
    pub function: FunctionDelta,
}

/// The function part of a [`ToolCallDelta`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionDelta {
    /// The tool (first piece).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// More argument text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
}

/// The body of an error response: `{"error": {…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorObject,
}

/// An OpenAI error object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// What went wrong, in a sentence.
    pub message: String,
    /// `invalid_request_error`, `server_error`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// The request field at fault, as a path (`messages[2].content`).
    #[serde(default)]
    pub param: Option<String>,
    /// A machine-readable code. Read from a number too: vLLM and SGLang
    /// send the HTTP status there (`"code": 400`).
    #[serde(default, deserialize_with = "string_or_number")]
    pub code: Option<String>,
}

/// An optional string that some servers write as a number.
fn string_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Code {
        Text(String),
        Number(serde_json::Number),
    }
    Ok(Option::<Code>::deserialize(d)?.map(|code| match code {
        Code::Text(text) => text,
        Code::Number(number) => number.to_string(),
    }))
}

impl ErrorBody {
    /// An `invalid_request_error`.
    pub fn invalid_request(message: impl Into<String>, param: Option<String>) -> ErrorBody {
        ErrorBody {
            error: ErrorObject {
                message: message.into(),
                kind: "invalid_request_error".into(),
                param,
                code: None,
            },
        }
    }

    /// An error of another kind.
    pub fn new(kind: &str, message: impl Into<String>) -> ErrorBody {
        ErrorBody {
            error: ErrorObject {
                message: message.into(),
                kind: kind.into(),
                param: None,
                code: None,
            },
        }
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.error.param {
            Some(param) => write!(f, "{} ({param}): {}", self.error.kind, self.error.message),
            None => write!(f, "{}: {}", self.error.kind, self.error.message),
        }
    }
}

impl std::error::Error for ErrorBody {}
