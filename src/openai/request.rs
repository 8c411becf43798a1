//! The request side: an OpenAI chat request into the middleware's
//! [`Request`], and a (transformed) middleware request back out as an
//! OpenAI request for a text-only backend.

use serde_json::{json, Map, Value};

use super::wire::{ChatMessage, ChatRequest, ChatTool, FunctionCall, MessageContent, ToolCall};
use super::ErrorBody;
use crate::middleware::{
    transform_params, Message, ParamsOptions, Part, Request, ToolResult, ToolSpec, Transformed,
};
use crate::{Error, Format, Tool};

/// Fields of [`ChatRequest`] the middleware reads itself; everything else
/// goes to [`Request::extra`] and on to the backend.
const READ_HERE: &[&str] = &[
    "messages",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "stream",
    "n",
];

/// Reads an OpenAI chat request into the middleware's [`Request`]: string
/// or part content, nested function tools, assistant `tool_calls` (their
/// arguments parsed), `tool` messages (named by the call they answer).
/// `model`, the sampling fields, `response_format` and every unknown field
/// land in [`Request::extra`], untouched.
///
/// History is read [`History::Tolerant`]ly: see [`to_middleware_with`]
/// for the strict reading.
///
/// # Errors
///
/// An `invalid_request_error` naming the field: a tool that is not a
/// function, two tools with one name, `n` above 1 with tools, content
/// parts other than text (a text-only backend cannot take them), a `tool`
/// message answering no earlier call.
pub fn to_middleware(chat: &ChatRequest) -> Result<Request, ErrorBody> {
    to_middleware_with(chat, History::Tolerant)
}

/// How earlier turns that are not well-formed are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum History {
    /// A call of an earlier turn whose arguments are not a JSON object (a
    /// call cut by `max_tokens` and replayed, a model that wrote a list)
    /// is rendered as the model wrote it, its arguments the JSON value
    /// they are or, if they are not JSON, the text they are; a warning is
    /// logged. One bad turn does not break every later turn of a
    /// conversation.
    #[default]
    Tolerant,
    /// Such a call is an `invalid_request_error` naming its arguments.
    Strict,
}

/// [`to_middleware`], with earlier turns read as `history` says.
///
/// # Errors
///
/// As [`to_middleware`]; with [`History::Strict`], also call arguments
/// that are not a JSON object.
pub fn to_middleware_with(chat: &ChatRequest, history: History) -> Result<Request, ErrorBody> {
    let tools = function_tools(&chat.tools)?;
    if chat.n.is_some_and(|n| n > 1) && !tools.is_empty() {
        return Err(ErrorBody::invalid_request(
            "n above 1 is not supported with tools",
            Some("n".into()),
        ));
    }
    let messages = messages(&chat.messages, history)?;
    let mut extra = match serde_json::to_value(chat) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    extra.retain(|key, _| !READ_HERE.contains(&key.as_str()));
    Ok(Request {
        messages,
        tools,
        tool_choice: chat.tool_choice.clone(),
        response_format: None,
        extra,
    })
}

/// The whole request rewrite for a text-only backend: [`to_middleware`],
/// [`transform_params`], then [`to_backend`]. The result has no `tools`
/// or `tool_choice`, the tool prompt in its system message, history as
/// text in `format`, and for `required` / a named tool a `json_schema`
/// response format.
///
/// # Errors
///
/// As [`to_middleware`], and the `tool_choice` rules of
/// [`validate`](crate::middleware::validate) (param `tool_choice`).
pub fn transform(
    format: Format,
    chat: &ChatRequest,
    options: &ParamsOptions,
) -> Result<(ChatRequest, Transformed), ErrorBody> {
    let request = to_middleware(chat)?;
    let transformed = transform_params(format, &request, options).map_err(request_error)?;
    let backend = to_backend(&transformed.request, chat.stream);
    Ok((backend, transformed))
}

/// A middleware error as the OpenAI error a client gets.
pub fn request_error(error: Error) -> ErrorBody {
    match error {
        Error::InvalidRequest(message) => {
            let param = message
                .contains("tool_choice")
                .then(|| "tool_choice".into());
            ErrorBody::invalid_request(message, param)
        }
        other => ErrorBody::invalid_request(other.to_string(), None),
    }
}

fn function_tools(tools: &[ChatTool]) -> Result<Vec<ToolSpec>, ErrorBody> {
    let mut out: Vec<ToolSpec> = Vec::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        let function = match (tool.kind.as_str(), &tool.function) {
            ("function", Some(function)) => function,
            ("function", None) => {
                return Err(ErrorBody::invalid_request(
                    "a function tool needs its `function` object",
                    Some(format!("tools[{i}].function")),
                ))
            }
            (kind, _) => {
                return Err(ErrorBody::invalid_request(
                    format!("tools of type {kind:?} are not supported; only \"function\""),
                    Some(format!("tools[{i}].type")),
                ))
            }
        };
        if function.name.is_empty() {
            return Err(ErrorBody::invalid_request(
                "a tool's name must not be empty",
                Some(format!("tools[{i}].function.name")),
            ));
        }
        if out.iter().any(|t| t.name() == function.name) {
            return Err(ErrorBody::invalid_request(
                format!("two tools are named {:?}", function.name),
                Some(format!("tools[{i}].function.name")),
            ));
        }
        let mut t = Tool::new(&function.name);
        if let Some(description) = &function.description {
            t = t.with_description(description);
        }
        if let Some(parameters) = &function.parameters {
            t = t.with_parameters(parameters.clone());
        }
        out.push(ToolSpec::Function(t));
    }
    Ok(out)
}

fn text_of(content: &MessageContent, at: &str) -> Result<String, ErrorBody> {
    content.text().map_err(|j| {
        ErrorBody::invalid_request(
            "only text content parts can be sent to a text-only backend with tools",
            Some(format!("{at}.content[{j}]")),
        )
    })
}

fn messages(chat: &[ChatMessage], history: History) -> Result<Vec<Message>, ErrorBody> {
    let mut out: Vec<Message> = Vec::with_capacity(chat.len());
    // Tool names by call id, for the `tool` messages that answer them.
    let mut calls: Vec<(String, String)> = Vec::new();
    for (i, message) in chat.iter().enumerate() {
        let at = format!("messages[{i}]");
        let message = match message {
            ChatMessage::System { content, .. } | ChatMessage::Developer { content, .. } => {
                Message::System {
                    content: text_of(content, &at)?,
                }
            }
            ChatMessage::User { content, .. } => Message::User {
                content: vec![Part::text(text_of(content, &at)?)],
            },
            ChatMessage::Assistant {
                content,
                tool_calls,
                reasoning_content,
                ..
            } => {
                let mut parts = Vec::with_capacity(2 + tool_calls.len());
                if let Some(text) = reasoning_content.as_ref().filter(|r| !r.is_empty()) {
                    parts.push(Part::Reasoning { text: text.clone() });
                }
                if let Some(content) = content {
                    let text = text_of(content, &at)?;
                    if !text.is_empty() {
                        parts.push(Part::text(text));
                    }
                }
                for (j, call) in tool_calls.iter().enumerate() {
                    let field = || format!("{at}.tool_calls[{j}].function.arguments");
                    let input = call_input(&call.function.arguments, history, field)?;
                    calls.push((call.id.clone(), call.function.name.clone()));
                    parts.push(Part::ToolCall {
                        tool_call_id: call.id.clone(),
                        tool_name: call.function.name.clone(),
                        input,
                    });
                }
                Message::Assistant { content: parts }
            }
            ChatMessage::Tool {
                tool_call_id,
                content,
            } => {
                let Some((_, tool_name)) = calls.iter().rev().find(|(id, _)| id == tool_call_id)
                else {
                    return Err(ErrorBody::invalid_request(
                        format!("no earlier assistant message made the call {tool_call_id:?}"),
                        Some(format!("{at}.tool_call_id")),
                    ));
                };
                let text = text_of(content, &at)?;
                // A result that is JSON is rendered as JSON, anything else
                // as a string.
                let output = serde_json::from_str(&text).unwrap_or(Value::String(text));
                let result = ToolResult {
                    tool_call_id: tool_call_id.clone(),
                    tool_name: tool_name.clone(),
                    output,
                    is_error: false,
                };
                // Results of one step go together, as the formats render them.
                if let Some(Message::Tool { content }) = out.last_mut() {
                    content.push(result);
                    continue;
                }
                Message::Tool {
                    content: vec![result],
                }
            }
        };
        out.push(message);
    }
    Ok(out)
}

/// The input of a call of an earlier turn, from its arguments text.
fn call_input(
    arguments: &str,
    history: History,
    field: impl Fn() -> String,
) -> Result<Value, ErrorBody> {
    let parsed = serde_json::from_str::<Value>(arguments);
    match parsed {
        Ok(Value::Object(map)) => return Ok(Value::Object(map)),
        // Some clients send "" for a call without arguments.
        _ if arguments.trim().is_empty() => return Ok(json!({})),
        _ if history == History::Strict => {
            return Err(ErrorBody::invalid_request(
                "a call's arguments must be a JSON object",
                Some(field()),
            ))
        }
        _ => {}
    }
    // The middleware renders it as it stands, and logs a warning.
    Ok(parsed.unwrap_or_else(|_| Value::String(arguments.to_owned())))
}

fn joined(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// A middleware request as an OpenAI request. Text parts become string
/// content; tool-call parts and tool results keep OpenAI's shape (after
/// [`transform_params`] there are none); a `response_format` schema set by
/// `required` / a named tool becomes `{"type": "json_schema", …}`;
/// [`Request::extra`] is merged back.
pub fn to_backend(request: &Request, stream: bool) -> ChatRequest {
    let mut messages = Vec::with_capacity(request.messages.len());
    for message in &request.messages {
        push_backend_message(message, &mut messages);
    }
    let mut extra = request.extra.clone();
    if let Some(schema) = &request.response_format {
        extra.insert("response_format".into(), response_format(schema));
    }
    // The typed fields stay empty: what the caller set is in `extra` and
    // serializes from there, exactly as it came.
    let model = match extra.remove("model") {
        Some(Value::String(model)) => model,
        Some(other) => {
            extra.insert("model".into(), other);
            String::new()
        }
        None => String::new(),
    };
    let mut chat = ChatRequest {
        model,
        extra,
        ..ChatRequest::default()
    };
    chat.messages = messages;
    chat.stream = stream;
    chat
}

/// `message` in OpenAI's shape, pushed to `messages` (a tool message
/// holds one result per message).
fn push_backend_message(message: &Message, messages: &mut Vec<ChatMessage>) {
    match message {
        Message::System { content } => messages.push(ChatMessage::System {
            content: MessageContent::Text(content.clone()),
            name: None,
        }),
        Message::User { content } => messages.push(ChatMessage::User {
            content: MessageContent::Text(joined(content)),
            name: None,
        }),
        Message::Assistant { content } => {
            let tool_calls: Vec<ToolCall> = content
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall {
                        tool_call_id,
                        tool_name,
                        input,
                    } => Some(ToolCall {
                        id: tool_call_id.clone(),
                        kind: "function".into(),
                        function: FunctionCall {
                            name: tool_name.clone(),
                            arguments: input.to_string(),
                        },
                    }),
                    _ => None,
                })
                .collect();
            let text = joined(content);
            messages.push(ChatMessage::Assistant {
                content: (!text.is_empty() || tool_calls.is_empty())
                    .then_some(MessageContent::Text(text)),
                tool_calls,
                reasoning_content: None,
                name: None,
            });
        }
        Message::Tool { content } => {
            for result in content {
                messages.push(ChatMessage::Tool {
                    tool_call_id: result.tool_call_id.clone(),
                    content: MessageContent::Text(match &result.shown() {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    }),
                });
            }
        }
    }
}

/// A `response_format` schema as OpenAI's `{"type": "json_schema", …}`.
fn response_format(schema: &Value) -> Value {
    // OpenAI's schema name allows letters, digits, `_` and `-`, up to
    // 64: a forced tool's name when it fits.
    let name = schema["title"]
        .as_str()
        .filter(|t| {
            !t.is_empty()
                && t.len() <= 64
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
        .unwrap_or("tool_call");
    let mut format = json!({"name": name, "schema": schema});
    if let Some(description) = schema["description"].as_str() {
        format["description"] = json!(description);
    }
    json!({"type": "json_schema", "json_schema": format})
}
