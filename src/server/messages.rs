//! `POST /v1/messages`: the Anthropic Messages API in front of the same
//! text-only backend. The request becomes the middleware's, as a chat
//! request does; the answer comes back as Anthropic content blocks, whole
//! or as Anthropic's event stream.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::OwnedSemaphorePermit;

use super::chat::pick_format;
use super::route::{
    backend_fields, prefixed_id, read_body, sse_answer, wrapped_model, Refusal, WireEvents,
};
use super::sse::SseOut;
use super::AppState;
use crate::middleware::{
    Content, FinishReason, GenerateResult, Message, ModelError, Part, Request, StreamPart,
    ToolChoice, ToolResult, ToolSpec, Usage,
};
use crate::openai::{BackendError, StreamPolicy};
use crate::Tool;

/// A Messages API request (the fields toolsieve reads; others are
/// refused by name when they matter, ignored otherwise).
#[derive(Debug, Deserialize)]
struct MessagesRequest {
    model: String,
    max_tokens: u64,
    messages: Vec<InMessage>,
    #[serde(default)]
    system: Option<TextOrBlocks>,
    #[serde(default)]
    tools: Vec<Value>,
    #[serde(default)]
    tool_choice: Option<InToolChoice>,
    #[serde(default)]
    stop_sequences: Vec<String>,
    #[serde(default)]
    temperature: Option<f64>,
    #[serde(default)]
    top_p: Option<f64>,
    #[serde(default)]
    top_k: Option<u64>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    thinking: Option<Value>,
    /// Accepted and not sent on (`user_id` is for Anthropic's abuse checks).
    #[serde(default)]
    #[allow(dead_code)]
    metadata: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum TextOrBlocks {
    Text(String),
    Blocks(Vec<InBlock>),
}

#[derive(Debug, Deserialize)]
struct InMessage {
    role: String,
    content: TextOrBlocks,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum InBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(default)]
        content: Option<TextOrBlocks>,
        #[serde(default)]
        is_error: bool,
    },
    Thinking {
        thinking: String,
    },
    RedactedThinking {},
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum InToolChoice {
    Auto {},
    Any {},
    Tool { name: String },
    None {},
}

/// An Anthropic error answer.
fn error(status: StatusCode, kind: &str, message: impl Into<String>) -> Response {
    let body = json!({"type": "error", "error": {"type": kind, "message": message.into()}});
    (status, Json(body)).into_response()
}

fn invalid(message: impl Into<String>) -> Response {
    error(StatusCode::BAD_REQUEST, "invalid_request_error", message)
}

/// A model error as an Anthropic error: the backend's client errors keep
/// their status, a forced choice not met and other failures are `502`s
/// (`api_error`), timeouts `504`s.
fn model_error(e: &ModelError) -> Response {
    match e.downcast_ref::<BackendError>() {
        Some(BackendError::Status {
            status, message, ..
        }) if (400..500).contains(status) => {
            let status = StatusCode::from_u16(*status).unwrap_or(StatusCode::BAD_REQUEST);
            error(status, "invalid_request_error", message.clone())
        }
        Some(BackendError::Interrupted(inner)) if inner.is_timeout() => {
            error(StatusCode::GATEWAY_TIMEOUT, "api_error", e.to_string())
        }
        _ => error(StatusCode::BAD_GATEWAY, "api_error", e.to_string()),
    }
}

/// The text of a system prompt, a tool result or a message made of blocks.
fn text_of(content: &TextOrBlocks) -> String {
    match content {
        TextOrBlocks::Text(text) => text.clone(),
        TextOrBlocks::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                InBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Reads the request into the middleware's, with the model's sampling
/// settings in its OpenAI names for the backend.
fn to_middleware(m: &MessagesRequest) -> Result<Request, String> {
    let mut messages = Vec::with_capacity(m.messages.len() + 1);
    if let Some(system) = &m.system {
        messages.push(Message::System {
            content: text_of(system),
        });
    }
    // Tool names by call id, for the results that answer them.
    let mut calls: Vec<(String, String)> = Vec::new();
    for (i, message) in m.messages.iter().enumerate() {
        let single;
        let blocks: Vec<&InBlock> = match &message.content {
            TextOrBlocks::Blocks(b) => b.iter().collect(),
            TextOrBlocks::Text(text) => {
                single = InBlock::Text { text: text.clone() };
                vec![&single]
            }
        };
        match message.role.as_str() {
            "user" => user_turn(i, &blocks, &calls, &mut messages)?,
            "assistant" => messages.push(assistant_turn(i, &blocks, &mut calls)?),
            other => {
                return Err(format!(
                    "messages.{i}.role: {other:?} is not user or assistant"
                ))
            }
        }
    }
    let tools = m
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| read_tool(i, t))
        .collect::<Result<Vec<_>, _>>()?;
    let tool_choice = m.tool_choice.as_ref().map(|c| match c {
        InToolChoice::Auto {} => ToolChoice::Auto,
        InToolChoice::Any {} => ToolChoice::Required,
        InToolChoice::Tool { name } => ToolChoice::Tool { name: name.clone() },
        InToolChoice::None {} => ToolChoice::None,
    });
    let stop = (!m.stop_sequences.is_empty()).then(|| json!(m.stop_sequences));
    let extra = backend_fields(
        &m.model,
        &[
            ("max_tokens", Some(json!(m.max_tokens))),
            ("stop", stop),
            ("temperature", m.temperature.map(|v| json!(v))),
            ("top_p", m.top_p.map(|v| json!(v))),
            ("top_k", m.top_k.map(|v| json!(v))),
        ],
    );
    Ok(Request {
        messages,
        tools,
        tool_choice,
        response_format: None,
        extra,
    })
}

fn read_tool(i: usize, tool: &Value) -> Result<ToolSpec, String> {
    // Custom tools have no type, or `"custom"`; Anthropic's own tools
    // (web search, computer use, …) cannot run behind a text-only model.
    match tool.get("type").and_then(Value::as_str) {
        None | Some("custom") => {}
        Some(other) => {
            return Err(format!(
                "tools.{i}.type: {other:?} is a server tool; only custom tools (name, description, input_schema) can be called through a text-only model"
            ))
        }
    }
    let tool: Tool = serde_json::from_value(tool.clone())
        .map_err(|e| format!("tools.{i}: not a tool with a name and an input_schema: {e}"))?;
    Ok(ToolSpec::Function(tool))
}

/// A user turn: its text, and its tool results as one tool message
/// (before the text, as the calls they answer came before it).
fn user_turn(
    i: usize,
    blocks: &[&InBlock],
    calls: &[(String, String)],
    out: &mut Vec<Message>,
) -> Result<(), String> {
    let mut results = Vec::new();
    let mut text = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        match block {
            InBlock::Text { text: t } => text.push(Part::text(t.clone())),
            InBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                let Some((_, name)) = calls.iter().rev().find(|(id, _)| id == tool_use_id) else {
                    return Err(format!(
                        "messages.{i}.content.{j}.tool_use_id: no earlier tool_use has the id {tool_use_id:?}"
                    ));
                };
                let shown = content.as_ref().map(text_of).unwrap_or_default();
                let output = serde_json::from_str(&shown).unwrap_or(Value::String(shown));
                results.push(ToolResult {
                    tool_call_id: tool_use_id.clone(),
                    tool_name: name.clone(),
                    output,
                    is_error: *is_error,
                });
            }
            InBlock::Other => {
                return Err(format!(
                    "messages.{i}.content.{j}: only text and tool_result blocks can be sent to a text-only model"
                ))
            }
            _ => {}
        }
    }
    if !results.is_empty() {
        out.push(Message::Tool { content: results });
    }
    if !text.is_empty() {
        out.push(Message::User { content: text });
    }
    Ok(())
}

fn assistant_turn(
    i: usize,
    blocks: &[&InBlock],
    calls: &mut Vec<(String, String)>,
) -> Result<Message, String> {
    let mut parts = Vec::with_capacity(blocks.len());
    for (j, block) in blocks.iter().enumerate() {
        match block {
            InBlock::Text { text } => parts.push(Part::text(text.clone())),
            InBlock::Thinking { thinking } => parts.push(Part::Reasoning {
                text: thinking.clone(),
            }),
            InBlock::ToolUse { id, name, input } => {
                calls.push((id.clone(), name.clone()));
                let input = if input.is_null() { json!({}) } else { input.clone() };
                parts.push(Part::ToolCall {
                    tool_call_id: id.clone(),
                    tool_name: name.clone(),
                    input,
                });
            }
            InBlock::RedactedThinking {} => {}
            InBlock::ToolResult { .. } | InBlock::Other => {
                return Err(format!(
                    "messages.{i}.content.{j}: an assistant turn holds text, thinking and tool_use blocks"
                ))
            }
        }
    }
    Ok(Message::Assistant { content: parts })
}

/// The thinking switch of the request (`{"type": "enabled"}`).
fn thinking_switch(m: &MessagesRequest) -> Option<bool> {
    match m.thinking.as_ref()?.get("type")?.as_str()? {
        "enabled" => Some(true),
        "disabled" => Some(false),
        _ => None,
    }
}

fn stop_reason(reason: FinishReason) -> &'static str {
    match reason {
        FinishReason::ToolCalls => "tool_use",
        FinishReason::Length => "max_tokens",
        _ => "end_turn",
    }
}

fn usage_json(usage: Option<&Usage>) -> Value {
    let (input, output) = usage.map_or((0, 0), |u| (u.prompt_tokens, u.completion_tokens));
    json!({"input_tokens": input, "output_tokens": output})
}

/// A whole answer as an Anthropic message.
fn message_of(model: &str, result: &GenerateResult) -> Value {
    let content: Vec<Value> = result
        .content
        .iter()
        .map(|c| match c {
            Content::Text(text) => json!({"type": "text", "text": text}),
            Content::Reasoning(text) => {
                json!({"type": "thinking", "thinking": text, "signature": ""})
            }
            Content::ToolCall { name, input, .. } => {
                let input: Value = serde_json::from_str(input).unwrap_or_else(|_| json!({}));
                json!({"type": "tool_use", "id": prefixed_id("toolu_"), "name": name, "input": input})
            }
        })
        .collect();
    json!({
        "id": prefixed_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason(result.finish_reason),
        "stop_sequence": null,
        "usage": usage_json(result.usage.as_ref()),
    })
}

pub(super) async fn messages(State(state): State<Arc<AppState>>, body: Body) -> Response {
    let config = &state.config;
    let (body, slot) = match read_body(&state, body).await {
        Ok(read) => read,
        Err(Refusal::TooLarge(limit)) => {
            let message = format!("the request body is over {limit} bytes");
            return error(StatusCode::PAYLOAD_TOO_LARGE, "request_too_large", message);
        }
        Err(Refusal::TooSlow(_)) => {
            let message = "the request body did not arrive in time";
            return error(StatusCode::REQUEST_TIMEOUT, "timeout_error", message);
        }
        Err(Refusal::Busy) => {
            let overloaded = StatusCode::from_u16(529).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
            let message = "too many requests at once; retry shortly";
            return error(overloaded, "overloaded_error", message);
        }
    };
    let request: MessagesRequest = {
        let mut json = serde_json::Deserializer::from_slice(&body);
        match serde_path_to_error::deserialize(&mut json) {
            Ok(request) => request,
            Err(e) => {
                return invalid(format!(
                    "{}: the body is not a Messages request: {}",
                    e.path(),
                    e.inner()
                ))
            }
        }
    };
    if request.tools.len() > config.max_tools {
        return invalid(format!(
            "tools: the request has {} tools; this server takes at most {}",
            request.tools.len(),
            config.max_tools
        ));
    }
    let middle = match to_middleware(&request) {
        Ok(middle) => middle,
        Err(message) => return invalid(message),
    };
    let (format, reasoning) =
        match pick_format(config.format, &request.model, thinking_switch(&request)) {
            Ok(picked) => picked,
            Err(body) => return invalid(body.error.message),
        };
    let wrapped = wrapped_model(&state, format, reasoning);
    if request.stream {
        match wrapped.stream(&middle) {
            Ok(parts) => streamed(parts, config.stream_policy, request.model, slot).await,
            Err(e) => invalid(e.to_string()),
        }
    } else {
        let answer = match wrapped.generate(&middle) {
            Ok(answer) => answer.await,
            Err(e) => return invalid(e.to_string()),
        };
        drop(slot);
        match answer {
            Ok(result) => Json(message_of(&request.model, &result)).into_response(),
            Err(e) => model_error(&e),
        }
    }
}

/// The Anthropic event stream of an answer.
async fn streamed(
    parts: BoxStream<'static, Result<StreamPart, ModelError>>,
    policy: StreamPolicy,
    model: String,
    slot: OwnedSemaphorePermit,
) -> Response {
    let opening = move |_: &mut Encoder, out: &mut SseOut| {
        let start = json!({"type": "message_start", "message": {
            "id": prefixed_id("msg_"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 0, "output_tokens": 0}}});
        out.event("message_start", &start);
        out.event("ping", &json!({"type": "ping"}));
    };
    let encoder = Encoder {
        open: None,
        next_index: 0,
        called: false,
    };
    sse_answer(parts, policy, slot, opening, encoder, model_error).await
}

/// A `content_block_delta` event's data, serialised as it stands rather
/// than built as a `Value` first: one goes out per token.
#[derive(Serialize)]
struct BlockDelta<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    index: u32,
    delta: DeltaBody<'a>,
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum DeltaBody<'a> {
    #[serde(rename = "text_delta")]
    Text { text: &'a str },
    #[serde(rename = "thinking_delta")]
    Thinking { thinking: &'a str },
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: &'a str },
}

impl BlockDelta<'_> {
    fn write(out: &mut SseOut, index: u32, delta: DeltaBody<'_>) {
        let data = BlockDelta {
            kind: "content_block_delta",
            index,
            delta,
        };
        out.event("content_block_delta", &data);
    }
}

/// The kind of content block open on the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    ToolUse,
}

/// Stream parts into Anthropic events: one content block per text or
/// thinking part, one `tool_use` block per call (its input in
/// `input_json_delta`s as it arrives, or in one once the call parsed,
/// as the stream policy says).
struct Encoder {
    open: Option<(Block, u32)>,
    next_index: u32,
    called: bool,
}

impl Encoder {
    fn open(&mut self, kind: Block, out: &mut SseOut) -> u32 {
        if let Some((open, index)) = self.open {
            if open == kind {
                return index;
            }
        }
        self.close(out);
        let index = self.next_index;
        self.next_index += 1;
        let block = match kind {
            Block::Text | Block::ToolUse => json!({"type": "text", "text": ""}),
            Block::Thinking => json!({"type": "thinking", "thinking": "", "signature": ""}),
        };
        out.event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        self.open = Some((kind, index));
        index
    }

    fn close(&mut self, out: &mut SseOut) {
        if let Some((_, index)) = self.open.take() {
            out.event(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": index}),
            );
        }
    }

    fn delta(&mut self, kind: Block, text: &str, out: &mut SseOut) {
        if text.is_empty() {
            return;
        }
        let index = self.open(kind, out);
        let delta = match kind {
            Block::Text | Block::ToolUse => DeltaBody::Text { text },
            Block::Thinking => DeltaBody::Thinking { thinking: text },
        };
        BlockDelta::write(out, index, delta);
    }
}

impl WireEvents for Encoder {
    fn text(&mut self, delta: &str, out: &mut SseOut) {
        self.delta(Block::Text, delta, out);
    }

    fn reasoning(&mut self, delta: &str, out: &mut SseOut) {
        self.delta(Block::Thinking, delta, out);
    }

    fn call_start(&mut self, name: &str, out: &mut SseOut) {
        self.close(out);
        let index = self.next_index;
        self.next_index += 1;
        let block =
            json!({"type": "tool_use", "id": prefixed_id("toolu_"), "name": name, "input": {}});
        out.event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        self.open = Some((Block::ToolUse, index));
    }

    fn call_delta(&mut self, delta: &str, out: &mut SseOut) {
        if let Some((Block::ToolUse, index)) = self.open {
            if !delta.is_empty() {
                let delta = DeltaBody::InputJson {
                    partial_json: delta,
                };
                BlockDelta::write(out, index, delta);
            }
        }
    }

    fn call_end(&mut self, input: Option<&str>, out: &mut SseOut) {
        // An abandoned call stays as sent (the wire cannot take a block
        // back); its raw text follows as text.
        self.called |= input.is_some();
        self.close(out);
    }

    fn finish(&mut self, reason: FinishReason, usage: Option<&Usage>, out: &mut SseOut) {
        self.close(out);
        let reason = if self.called {
            FinishReason::ToolCalls
        } else {
            reason
        };
        out.event(
            "message_delta",
            &json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason(reason), "stop_sequence": null},
            "usage": usage_json(usage)}),
        );
        out.event("message_stop", &json!({"type": "message_stop"}));
    }

    fn fail(&mut self, e: &ModelError, out: &mut SseOut) {
        out.event(
            "error",
            &json!({"type": "error", "error": {"type": "api_error", "message": e.to_string()}}),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_deltas_are_the_wire_values_byte_for_byte() {
        let text = "a \"q\"\n\u{e9}";
        let cases = [
            (
                DeltaBody::Text { text },
                json!({"type": "text_delta", "text": text}),
            ),
            (
                DeltaBody::Thinking { thinking: text },
                json!({"type": "thinking_delta", "thinking": text}),
            ),
            (
                DeltaBody::InputJson { partial_json: text },
                json!({"type": "input_json_delta", "partial_json": text}),
            ),
        ];
        for (delta, value) in cases {
            let typed = BlockDelta {
                kind: "content_block_delta",
                index: 3,
                delta,
            };
            let expected = json!({"type": "content_block_delta", "index": 3, "delta": value});
            assert_eq!(serde_json::to_string(&typed).unwrap(), expected.to_string());
        }
    }
}
