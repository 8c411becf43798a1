//! `POST /v1/responses`: the OpenAI Responses API in front of the same
//! text-only backend (what Codex CLI speaks). Stateless: every request
//! carries its whole conversation.

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
use super::errors::{backend_error, busy, error, stream_error};
use super::route::{
    backend_fields, prefixed_id, read_body, sse_answer, wrapped_model, Refusal, WireEvents,
};
use super::sse::SseOut;
use super::AppState;
use crate::middleware::{
    Content, FinishReason, GenerateResult, Message, ModelError, Part, Request, StreamPart,
    ToolChoice, ToolResult, ToolSpec, Usage,
};
use crate::openai::{ErrorBody, StreamPolicy};
use crate::Tool;

/// A Responses API request (the fields toolsieve reads).
#[derive(Debug, Deserialize)]
struct ResponsesRequest {
    model: String,
    input: Input,
    #[serde(default)]
    instructions: Option<String>,
    #[serde(default)]
    tools: Vec<Value>,
    #[serde(default)]
    tool_choice: Option<Value>,
    #[serde(default)]
    parallel_tool_calls: Option<bool>,
    #[serde(default)]
    max_output_tokens: Option<u64>,
    #[serde(default)]
    temperature: Option<f64>,
    #[serde(default)]
    top_p: Option<f64>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    previous_response_id: Option<String>,
    #[serde(default)]
    store: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Input {
    Text(String),
    Items(Vec<Value>),
}

fn invalid(message: impl Into<String>, param: Option<&str>) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        ErrorBody::invalid_request(message, param.map(str::to_owned)),
    )
}

/// The text of a message item's content (a string, or `input_text` /
/// `output_text` parts).
fn content_text(content: &Value, at: &str) -> Result<String, String> {
    match content {
        Value::String(text) => Ok(text.clone()),
        Value::Array(parts) => {
            let mut texts = Vec::with_capacity(parts.len());
            for (j, part) in parts.iter().enumerate() {
                match part.get("type").and_then(Value::as_str) {
                    Some("input_text" | "output_text" | "text") => {
                        texts.push(part.get("text").and_then(Value::as_str).unwrap_or_default());
                    }
                    other => {
                        return Err(format!(
                            "{at}.content[{j}]: {} parts cannot be sent to a text-only model",
                            other.unwrap_or("untyped")
                        ))
                    }
                }
            }
            Ok(texts.join("\n"))
        }
        _ => Err(format!("{at}.content: not a string or a list of parts")),
    }
}

fn field<'v>(item: &'v Value, key: &str, at: &str) -> Result<&'v str, String> {
    item.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{at}.{key}: missing or not a string"))
}

/// The conversation of `input`, after the instructions.
fn conversation(r: &ResponsesRequest) -> Result<Vec<Message>, String> {
    let mut out = Vec::new();
    if let Some(instructions) = r.instructions.as_ref().filter(|i| !i.is_empty()) {
        out.push(Message::System {
            content: instructions.clone(),
        });
    }
    let items = match &r.input {
        Input::Text(text) => {
            out.push(Message::user(text.clone()));
            return Ok(out);
        }
        Input::Items(items) => items,
    };
    let mut calls: Vec<(String, String)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("input[{i}]");
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        match kind {
            "message" => {
                let text = content_text(item.get("content").unwrap_or(&Value::Null), &at)?;
                let message = match field(item, "role", &at)? {
                    "system" | "developer" => Message::System { content: text },
                    "user" => Message::user(text),
                    "assistant" => Message::Assistant {
                        content: vec![Part::text(text)],
                    },
                    other => return Err(format!("{at}.role: {other:?} is not a known role")),
                };
                out.push(message);
            }
            "function_call" => function_call(item, &at, &mut calls, &mut out)?,
            "function_call_output" => function_output(item, &at, &calls, &mut out)?,
            // Earlier reasoning is dropped, as chat templates do.
            "reasoning" => {}
            other => {
                return Err(format!(
                    "{at}.type: {other:?} items cannot be sent to a text-only model"
                ))
            }
        }
    }
    Ok(out)
}

/// A `function_call` item: the call goes with the assistant turn before
/// it (calls of one turn go together, after its text).
fn function_call(
    item: &Value,
    at: &str,
    calls: &mut Vec<(String, String)>,
    out: &mut Vec<Message>,
) -> Result<(), String> {
    let (id, name) = (field(item, "call_id", at)?, field(item, "name", at)?);
    let arguments = field(item, "arguments", at)?;
    let input =
        serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()));
    calls.push((id.to_owned(), name.to_owned()));
    let part = Part::ToolCall {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        input,
    };
    match out.last_mut() {
        Some(Message::Assistant { content }) => content.push(part),
        _ => out.push(Message::Assistant {
            content: vec![part],
        }),
    }
    Ok(())
}

/// A `function_call_output` item: a result, with the others of its turn.
fn function_output(
    item: &Value,
    at: &str,
    calls: &[(String, String)],
    out: &mut Vec<Message>,
) -> Result<(), String> {
    let id = field(item, "call_id", at)?;
    let Some((_, name)) = calls.iter().rev().find(|(c, _)| c == id) else {
        return Err(format!(
            "{at}.call_id: no earlier function_call has the call_id {id:?}"
        ));
    };
    let shown = match item.get("output") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => content_text(other, at).unwrap_or_else(|_| other.to_string()),
        None => String::new(),
    };
    let result = ToolResult {
        tool_call_id: id.to_owned(),
        tool_name: name.clone(),
        output: serde_json::from_str(&shown).unwrap_or(Value::String(shown)),
        is_error: false,
    };
    match out.last_mut() {
        Some(Message::Tool { content }) => content.push(result),
        _ => out.push(Message::Tool {
            content: vec![result],
        }),
    }
    Ok(())
}

fn read_tool(i: usize, tool: &Value) -> Result<ToolSpec, String> {
    match tool.get("type").and_then(Value::as_str) {
        Some("function") => {}
        other => {
            return Err(format!(
                "tools[{i}].type: {} tools cannot be called through a text-only model; only function tools",
                other.unwrap_or("untyped")
            ))
        }
    }
    let tool: Tool = serde_json::from_value(tool.clone())
        .map_err(|e| format!("tools[{i}]: not a function tool with a name: {e}"))?;
    Ok(ToolSpec::Function(tool))
}

fn read_choice(choice: &Value) -> Result<ToolChoice, String> {
    match choice {
        Value::String(s) if s == "auto" => Ok(ToolChoice::Auto),
        Value::String(s) if s == "none" => Ok(ToolChoice::None),
        Value::String(s) if s == "required" => Ok(ToolChoice::Required),
        Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("function") => {
            match o.get("name").and_then(Value::as_str) {
                Some(name) => Ok(ToolChoice::Tool { name: name.into() }),
                None => Err("tool_choice: a function choice needs its name".into()),
            }
        }
        _ => Err("tool_choice must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"name\": \"…\"}".into()),
    }
}

/// The request as the middleware's, with the sampling settings in their
/// chat names for the backend; `Err` names the field at fault.
fn to_middleware(r: &ResponsesRequest) -> Result<Request, (String, &'static str)> {
    if r.previous_response_id.is_some() {
        return Err((
            "previous_response_id: this server keeps no responses; send the whole conversation in input".into(),
            "previous_response_id",
        ));
    }
    if r.store == Some(true) {
        return Err((
            "store: this server keeps no responses; send store: false (or leave it out)".into(),
            "store",
        ));
    }
    let messages = conversation(r).map_err(|m| (m, "input"))?;
    let tools = r
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| read_tool(i, t))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|m| (m, "tools"))?;
    let tool_choice = match &r.tool_choice {
        Some(choice) => Some(read_choice(choice).map_err(|m| (m, "tool_choice"))?),
        None => None,
    };
    let extra = backend_fields(
        &r.model,
        &[
            ("max_tokens", r.max_output_tokens.map(|v| json!(v))),
            ("temperature", r.temperature.map(|v| json!(v))),
            ("top_p", r.top_p.map(|v| json!(v))),
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

fn usage_json(usage: Option<&Usage>) -> Value {
    let (input, output) = usage.map_or((0, 0), |u| (u.prompt_tokens, u.completion_tokens));
    json!({"input_tokens": input, "output_tokens": output, "total_tokens": input + output,
           "input_tokens_details": {"cached_tokens": 0},
           "output_tokens_details": {"reasoning_tokens": 0}})
}

/// The response object around `output`.
fn response_json(
    meta: &Meta,
    status: &str,
    output: Vec<Value>,
    usage: Option<&Usage>,
    incomplete: bool,
) -> Value {
    json!({
        "id": meta.id, "object": "response", "created_at": meta.created,
        "status": status, "model": meta.model, "output": output,
        "error": null,
        "incomplete_details": if incomplete { json!({"reason": "max_output_tokens"}) } else { Value::Null },
        "instructions": null, "metadata": {}, "parallel_tool_calls": meta.parallel,
        "temperature": null, "top_p": null, "tool_choice": "auto", "tools": [],
        "usage": if status == "in_progress" { Value::Null } else { usage_json(usage) },
    })
}

/// What every event of one response repeats.
struct Meta {
    id: String,
    model: String,
    created: u64,
    parallel: bool,
}

fn message_item(id: &str, text: &str, status: &str) -> Value {
    json!({"type": "message", "id": id, "status": status, "role": "assistant",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

fn call_item(id: &str, call_id: &str, name: &str, arguments: &str, status: &str) -> Value {
    json!({"type": "function_call", "id": id, "call_id": call_id, "name": name,
           "arguments": arguments, "status": status})
}

fn reasoning_item(id: &str, text: &str) -> Value {
    json!({"type": "reasoning", "id": id, "summary": [],
           "content": [{"type": "reasoning_text", "text": text}]})
}

/// A whole answer as a response object.
fn response_of(meta: &Meta, result: &GenerateResult) -> Value {
    let output = result
        .content
        .iter()
        .map(|c| match c {
            Content::Text(text) => message_item(&prefixed_id("msg_"), text, "completed"),
            Content::Reasoning(text) => reasoning_item(&prefixed_id("rs_"), text),
            Content::ToolCall { name, input, .. } => call_item(
                &prefixed_id("fc_"),
                &crate::openai::random_call_id(),
                name,
                input,
                "completed",
            ),
        })
        .collect();
    let incomplete = result.finish_reason == FinishReason::Length;
    let status = if incomplete {
        "incomplete"
    } else {
        "completed"
    };
    response_json(meta, status, output, result.usage.as_ref(), incomplete)
}

pub(super) async fn responses(State(state): State<Arc<AppState>>, body: Body) -> Response {
    let config = &state.config;
    let (body, slot) = match read_body(&state, body).await {
        Ok(read) => read,
        Err(Refusal::TooLarge(limit)) => {
            return invalid(format!("the request body is over {limit} bytes"), None)
        }
        Err(Refusal::TooSlow(_)) => {
            return invalid("the request body did not arrive in time", None)
        }
        Err(Refusal::Busy) => return busy(config.max_concurrent, config.retry_after),
    };
    let request: ResponsesRequest = {
        let mut json = serde_json::Deserializer::from_slice(&body);
        match serde_path_to_error::deserialize(&mut json) {
            Ok(request) => request,
            Err(e) => {
                let path = e.path().to_string();
                return invalid(
                    format!("the body is not a Responses request: {}", e.inner()),
                    Some(&path),
                );
            }
        }
    };
    if request.tools.len() > config.max_tools {
        let message = format!(
            "the request has {} tools; this server takes at most {}",
            request.tools.len(),
            config.max_tools
        );
        return invalid(message, Some("tools"));
    }
    let middle = match to_middleware(&request) {
        Ok(middle) => middle,
        Err((message, param)) => return invalid(message, Some(param)),
    };
    let (format, reasoning) = match pick_format(config.format, &request.model, None) {
        Ok(picked) => picked,
        Err(body) => return error(StatusCode::BAD_REQUEST, body),
    };
    let wrapped = wrapped_model(&state, format, reasoning);
    let meta = Meta {
        id: prefixed_id("resp_"),
        model: request.model.clone(),
        created: crate::openai::unix_now(),
        parallel: request.parallel_tool_calls.unwrap_or(true),
    };
    if request.stream {
        return match wrapped.stream(&middle) {
            Ok(parts) => streamed(parts, config.stream_policy, meta, slot).await,
            Err(e) => invalid(e.to_string(), None),
        };
    }
    let answer = match wrapped.generate(&middle) {
        Ok(answer) => answer.await,
        Err(e) => return invalid(e.to_string(), None),
    };
    drop(slot);
    match answer {
        Ok(result) => Json(response_of(&meta, &result)).into_response(),
        Err(e) => backend_error(&e),
    }
}

/// The Responses event stream of an answer.
async fn streamed(
    parts: BoxStream<'static, Result<StreamPart, ModelError>>,
    policy: StreamPolicy,
    meta: Meta,
    slot: OwnedSemaphorePermit,
) -> Response {
    let opening = |encoder: &mut Encoder, out: &mut SseOut| {
        let response = response_json(&encoder.meta, "in_progress", Vec::new(), None, false);
        encoder.event(out, "response.created", json!({ "response": response }));
    };
    let encoder = Encoder {
        meta,
        sequence: 0,
        output: Vec::new(),
        open: None,
        calling: false,
        so_far: String::new(),
    };
    sse_answer(parts, policy, slot, opening, encoder, backend_error).await
}

/// The output item open on the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Message,
    Reasoning,
}

/// The data of a text, reasoning or arguments delta event, its `type`
/// and `sequence_number` last as [`Encoder::event`] writes them.
#[derive(Serialize)]
struct ItemDelta<'a> {
    item_id: &'a str,
    output_index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_index: Option<u32>,
    delta: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    sequence_number: u64,
}

/// Stream parts into Responses events: one output item per text or
/// reasoning part, one `function_call` item per delivered call (its
/// arguments in one delta, once the call parsed).
struct Encoder {
    meta: Meta,
    sequence: u64,
    /// The items so far (the open one last).
    output: Vec<Value>,
    open: Option<Open>,
    /// A call's item is open (the last one).
    calling: bool,
    /// The text or arguments of the open item so far: written into the
    /// item when it closes, so that a long answer is not copied per delta.
    so_far: String,
}

impl Encoder {
    fn event(&mut self, out: &mut SseOut, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        out.event(kind, &data);
    }

    /// A delta event, serialised as it stands rather than built as a
    /// `Value` first: one goes out per token. Its keys come in the order
    /// [`event`](Self::event) gives them.
    fn delta_event(
        &mut self,
        out: &mut SseOut,
        kind: &'static str,
        (index, content_index): (usize, Option<u32>),
        delta: &str,
    ) {
        let data = ItemDelta {
            item_id: self.output[index]["id"].as_str().unwrap_or_default(),
            output_index: index,
            content_index,
            delta,
            kind,
            sequence_number: self.sequence,
        };
        self.sequence += 1;
        out.event(kind, &data);
    }

    fn open(&mut self, kind: Open, out: &mut SseOut) -> usize {
        if self.open == Some(kind) {
            return self.output.len() - 1;
        }
        self.close(out);
        let index = self.output.len();
        let item = match kind {
            Open::Message => {
                json!({"type": "message", "id": prefixed_id("msg_"), "status": "in_progress", "role": "assistant", "content": []})
            }
            Open::Reasoning => {
                json!({"type": "reasoning", "id": prefixed_id("rs_"), "summary": [], "content": []})
            }
        };
        self.event(
            out,
            "response.output_item.added",
            json!({"output_index": index, "item": item}),
        );
        let id = item["id"].clone();
        let part = match kind {
            Open::Message => json!({"type": "output_text", "text": "", "annotations": []}),
            Open::Reasoning => json!({"type": "reasoning_text", "text": ""}),
        };
        self.event(
            out,
            "response.content_part.added",
            json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
        );
        let mut item = item;
        item["content"] = json!([part]);
        self.output.push(item);
        self.open = Some(kind);
        index
    }

    fn close(&mut self, out: &mut SseOut) {
        let Some(kind) = self.open.take() else {
            return;
        };
        let index = self.output.len() - 1;
        let text = json!(std::mem::take(&mut self.so_far));
        self.output[index]["content"][0]["text"] = text.clone();
        let id = self.output[index]["id"].clone();
        if kind == Open::Message {
            self.event(
                out,
                "response.output_text.done",
                json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
            );
            self.output[index]["status"] = json!("completed");
        } else {
            self.event(
                out,
                "response.reasoning_text.done",
                json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
            );
        }
        let part = self.output[index]["content"][0].clone();
        self.event(
            out,
            "response.content_part.done",
            json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
        );
        let item = self.output[index].clone();
        self.event(
            out,
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
    }

    fn delta(&mut self, kind: Open, text: &str, out: &mut SseOut) {
        if text.is_empty() {
            return;
        }
        let index = self.open(kind, out);
        self.so_far.push_str(text);
        let name = match kind {
            Open::Message => "response.output_text.delta",
            Open::Reasoning => "response.reasoning_text.delta",
        };
        self.delta_event(out, name, (index, Some(0)), text);
    }
}

impl WireEvents for Encoder {
    fn text(&mut self, delta: &str, out: &mut SseOut) {
        self.delta(Open::Message, delta, out);
    }

    fn reasoning(&mut self, delta: &str, out: &mut SseOut) {
        self.delta(Open::Reasoning, delta, out);
    }

    fn call_start(&mut self, name: &str, out: &mut SseOut) {
        self.close(out);
        let index = self.output.len();
        let (id, call_id) = (prefixed_id("fc_"), crate::openai::random_call_id());
        let added = call_item(&id, &call_id, name, "", "in_progress");
        self.event(
            out,
            "response.output_item.added",
            json!({"output_index": index, "item": added.clone()}),
        );
        self.output.push(added);
        self.calling = true;
    }

    fn call_delta(&mut self, delta: &str, out: &mut SseOut) {
        if !self.calling || delta.is_empty() {
            return;
        }
        let index = self.output.len() - 1;
        self.so_far.push_str(delta);
        let name = "response.function_call_arguments.delta";
        self.delta_event(out, name, (index, None), delta);
    }

    fn call_end(&mut self, input: Option<&str>, out: &mut SseOut) {
        if !self.calling {
            return;
        }
        self.calling = false;
        let index = self.output.len() - 1;
        let id = self.output[index]["id"].clone();
        let arguments = json!(std::mem::take(&mut self.so_far));
        self.output[index]["arguments"] = arguments.clone();
        self.event(
            out,
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": index, "arguments": arguments}),
        );
        // An abandoned call stays as sent, marked incomplete; its raw
        // text follows as text.
        let status = if input.is_some() {
            "completed"
        } else {
            "incomplete"
        };
        self.output[index]["status"] = json!(status);
        let item = self.output[index].clone();
        self.event(
            out,
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
    }

    fn finish(&mut self, reason: FinishReason, usage: Option<&Usage>, out: &mut SseOut) {
        self.close(out);
        let incomplete = reason == FinishReason::Length;
        let (status, kind) = if incomplete {
            ("incomplete", "response.incomplete")
        } else {
            ("completed", "response.completed")
        };
        let response = response_json(&self.meta, status, self.output.clone(), usage, incomplete);
        self.event(out, kind, json!({ "response": response }));
    }

    fn fail(&mut self, e: &ModelError, out: &mut SseOut) {
        // The open item as far as it went.
        if let Some(last) = self.output.last_mut() {
            match (self.open.is_some(), self.calling) {
                (true, _) => last["content"][0]["text"] = json!(self.so_far),
                (_, true) => last["arguments"] = json!(self.so_far),
                _ => {}
            }
        }
        let body = stream_error(e);
        let mut response = response_json(&self.meta, "failed", self.output.clone(), None, false);
        response["error"] = json!({"code": body.error.code, "message": body.error.message});
        self.event(out, "response.failed", json!({ "response": response }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_deltas_are_the_wire_values_byte_for_byte() {
        let text = "a \"q\"\n\u{e9}";
        for (content_index, kind) in [
            (Some(0), "response.output_text.delta"),
            (None, "response.function_call_arguments.delta"),
        ] {
            let typed = ItemDelta {
                item_id: "msg_1",
                output_index: 2,
                content_index,
                delta: text,
                kind,
                sequence_number: 7,
            };
            let mut expected = json!({"item_id": "msg_1", "output_index": 2});
            if let Some(index) = content_index {
                expected["content_index"] = json!(index);
            }
            expected["delta"] = json!(text);
            expected["type"] = json!(kind);
            expected["sequence_number"] = json!(7);
            assert_eq!(serde_json::to_string(&typed).unwrap(), expected.to_string());
        }
    }
}
