//! The request side: tool prompt injection, history rewriting and the
//! `tool_choice` response format (`transform_params`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::choice::{response_schema, validate, ToolChoice, ToolSpec};
use super::prompt::format_tools;
use super::render::{render_calls, render_result_at};
use crate::error::Error;
use crate::formats::CallRef;
use crate::tool::Tool;
use crate::Format;

/// One part of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// The assistant's reasoning: dropped from history unless
    /// [`ParamsOptions::reasoning_in_history`] is set.
    Reasoning {
        /// The text.
        text: String,
    },
    /// A call the assistant made.
    #[serde(rename_all = "camelCase")]
    ToolCall {
        /// Its id.
        tool_call_id: String,
        /// The tool.
        tool_name: String,
        /// The arguments object.
        input: Value,
    },
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Part {
        Part::Text { text: text.into() }
    }
}

/// The result of a call, sent back in a `tool` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The call it answers.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// What it returned (for an error: what went wrong).
    pub output: Value,
    /// The tool failed, or the call could not be run: the model is shown
    /// `{"error": output}`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl ToolResult {
    /// What the model is shown: the output, or `{"error": output}`.
    pub fn shown(&self) -> Value {
        if self.is_error {
            serde_json::json!({ "error": self.output })
        } else {
            self.output.clone()
        }
    }
}

/// A chat message. `content` may also be a plain string (one text part).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// System instructions.
    System {
        /// The text (text parts are joined with newlines).
        #[serde(deserialize_with = "system_text")]
        content: String,
    },
    /// The user's turn.
    User {
        /// Its parts.
        #[serde(deserialize_with = "parts")]
        content: Vec<Part>,
    },
    /// The assistant's turn.
    Assistant {
        /// Its parts (text and calls).
        #[serde(deserialize_with = "parts")]
        content: Vec<Part>,
    },
    /// Tool results.
    Tool {
        /// The results.
        content: Vec<ToolResult>,
    },
}

/// A string or a list of parts.
#[derive(Deserialize)]
#[serde(untagged)]
enum PartsOrText {
    Text(String),
    Parts(Vec<Part>),
}

fn parts<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Part>, D::Error> {
    Ok(match PartsOrText::deserialize(d)? {
        PartsOrText::Text(text) => vec![Part::Text { text }],
        PartsOrText::Parts(parts) => parts,
    })
}

fn system_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match PartsOrText::deserialize(d)? {
        PartsOrText::Text(text) => Ok(text),
        PartsOrText::Parts(parts) => parts
            .into_iter()
            .map(|p| match p {
                Part::Text { text } => Ok(text),
                _ => Err(serde::de::Error::custom(
                    "a system message holds text parts only",
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|texts| texts.join("\n")),
    }
}

impl Message {
    /// A user message with one text part.
    pub fn user(text: impl Into<String>) -> Message {
        Message::User {
            content: vec![Part::text(text)],
        }
    }
}

/// A request to a language model. Field names are camelCase
/// (`toolChoice`); the snake_case spellings are accepted too.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The conversation.
    pub messages: Vec<Message>,
    /// Tools the model may call.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// How it may call them (`None`: not set).
    #[serde(default, alias = "tool_choice")]
    pub tool_choice: Option<ToolChoice>,
    /// A JSON Schema the response must follow (set for `required` / `tool`).
    #[serde(default, alias = "response_format")]
    pub response_format: Option<Value>,
    /// Every other field (the model name, sampling settings, …): not read
    /// by the middleware, passed on to the model untouched.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

impl Request {
    /// The thinking switch the caller set for the model's chat template:
    /// `chat_template_kwargs.thinking` or `chat_template_kwargs.enable_thinking`
    /// (as vLLM and SGLang take them), or a top-level `enable_thinking`.
    /// `None` when none is set. See
    /// [`ModelSetup::thinking`](crate::ModelSetup::thinking) for what it does
    /// to the reading of the output.
    pub fn thinking(&self) -> Option<bool> {
        let kwargs = self.extra.get("chat_template_kwargs");
        let switch = |v: Option<&Value>| v.and_then(Value::as_bool);
        switch(kwargs.and_then(|k| k.get("thinking")))
            .or_else(|| switch(kwargs.and_then(|k| k.get("enable_thinking"))))
            .or_else(|| switch(self.extra.get("enable_thinking")))
    }
}

/// Where the tool prompt goes in the system message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Placement {
    /// Before the existing system text (the default).
    #[default]
    First,
    /// After it.
    Last,
}

/// How the response side must read the model's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Parse calls with the protocol (`auto`, or no `tool_choice`).
    Parse,
    /// Plain text (`none`).
    Text,
    /// A single `{name, arguments}` JSON call (`required` / `tool`).
    Forced(ToolChoice),
}

/// The request as it goes to a model without native tools.
#[derive(Debug, Clone, PartialEq)]
pub struct Transformed {
    /// System prompt injected, history rewritten, native tools and
    /// `tool_choice` cleared, `response_format` set for forced calls.
    pub request: Request,
    /// The function tools, kept for parsing the response.
    pub tools: Vec<Tool>,
    /// How to read the response.
    pub mode: Mode,
    /// Things dropped on the way (provider-defined tools).
    pub warnings: Vec<String>,
}

/// Options of [`transform_params`].
#[derive(Debug, Clone, Default)]
pub struct ParamsOptions {
    /// Where the tool prompt goes.
    pub placement: Placement,
    /// Replaces the format's prompt template (see
    /// [`TOOLS_PLACEHOLDER`](super::TOOLS_PLACEHOLDER)).
    pub template: Option<String>,
    /// Keep the assistant's reasoning parts in history, written in the
    /// format's reasoning tags (`<think>`…`</think>` for formats without
    /// their own). Off: they are dropped, as most chat templates do.
    pub reasoning_in_history: bool,
    /// Render a call of an earlier turn whose input is not a JSON object
    /// (a call cut short and replayed) as it stands, with a warning in the
    /// log, instead of refusing the request. Off: such a call is an
    /// [`Error::InvalidRequest`].
    pub tolerant_history: bool,
}

/// Rewrites `request` for a model that reads tools from its prompt. The
/// input is not changed.
///
/// - validates `tool_choice` first (see [`validate`]);
/// - renders the tool prompt into the system message (merged with an
///   existing one, first or last; nothing when there are no tools or with
///   `none`);
/// - assistant tool calls become text as [`format_tool_call`](super::format_tool_call)
///   writes them, a turn's calls in one block where the format writes them
///   so, numbered where it numbers them; `tool` results become one user
///   message as [`format_tool_response`](super::format_tool_response)
///   writes them;
///   multi-part text is condensed and consecutive user messages merged;
/// - provider-defined tools are dropped with a warning; the native `tools`
///   and `tool_choice` fields are cleared;
/// - `required` / `tool` set `response_format` to [`response_schema`].
///
/// # Errors
///
/// [`Error::InvalidRequest`] from the `tool_choice` validation, and for an
/// assistant call in history whose input is not a JSON object.
pub fn transform_params(
    format: Format,
    request: &Request,
    options: &ParamsOptions,
) -> Result<Transformed, Error> {
    let choice = request.tool_choice.clone().unwrap_or(ToolChoice::Auto);
    validate(&choice, &request.tools)?;
    let mut warnings = Vec::new();
    let mut tools = Vec::new();
    for spec in &request.tools {
        match spec {
            ToolSpec::Function(t) => tools.push(t.clone()),
            ToolSpec::Provider { id, name } => warnings.push(format!(
                "provider-defined tool {name:?} ({id}) is not supported without native tools; dropped"
            )),
        }
    }
    let mode = match &choice {
        ToolChoice::Auto => Mode::Parse,
        ToolChoice::None => Mode::Text,
        forced => Mode::Forced(forced.clone()),
    };
    let response_format = match &mode {
        Mode::Forced(choice) => response_schema(choice, &request.tools)?,
        _ => request.response_format.clone(),
    };
    let prompt = match mode {
        Mode::Text => String::new(),
        _ => format_tools(format, &tools, options.template.as_deref()),
    };
    let mut messages = rewrite_history(format, &request.messages, options)?;
    if !prompt.is_empty() {
        match messages.iter_mut().find_map(|m| match m {
            Message::System { content } => Some(content),
            _ => None,
        }) {
            Some(content) if !content.is_empty() => {
                *content = match options.placement {
                    Placement::First => format!("{prompt}\n\n{content}"),
                    Placement::Last => format!("{content}\n\n{prompt}"),
                };
            }
            Some(content) => *content = prompt,
            None => messages.insert(0, Message::System { content: prompt }),
        }
    }
    Ok(Transformed {
        request: Request {
            messages,
            tools: Vec::new(),
            tool_choice: None,
            response_format,
            extra: request.extra.clone(),
        },
        tools,
        mode,
        warnings,
    })
}

fn join_text(parts: &[String]) -> Vec<Part> {
    if parts.is_empty() {
        Vec::new()
    } else {
        vec![Part::text(parts.join("\n"))]
    }
}

/// A turn's parts as texts: its calls in a row as one block of the
/// format's, numbered in the turn; reasoning inside `reasoning_tags`
/// (dropped without them).
fn turn_texts(
    format: Format,
    content: &[Part],
    reasoning_tags: Option<&(String, String)>,
    places: &mut CallPlaces,
) -> Vec<String> {
    let mut texts = Vec::new();
    let mut calls: Vec<(&str, &Value, CallRef<'_>)> = Vec::new();
    let mut in_turn = 0;
    for part in content {
        let text = match part {
            Part::Text { text } => text.clone(),
            Part::Reasoning { text } => reasoning_tags
                .map(|(start, end)| format!("{start}{text}{end}"))
                .unwrap_or_default(),
            Part::ToolCall {
                tool_call_id,
                tool_name,
                input,
            } => {
                let call = CallRef {
                    id: tool_call_id,
                    index: in_turn,
                };
                in_turn += 1;
                places.insert(tool_call_id.clone(), call.index);
                calls.push((tool_name, input, call));
                continue;
            }
        };
        if text.is_empty() {
            continue;
        }
        if !calls.is_empty() {
            texts.push(render_calls(format, &calls));
            calls.clear();
        }
        texts.push(text);
    }
    if !calls.is_empty() {
        texts.push(render_calls(format, &calls));
    }
    texts
}

/// Each call id of the history so far, and its place in its turn.
type CallPlaces = std::collections::HashMap<String, usize>;

/// The history rules of [`transform_params`].
fn rewrite_history(
    format: Format,
    messages: &[Message],
    options: &ParamsOptions,
) -> Result<Vec<Message>, Error> {
    let tags = format
        .default_reasoning()
        .map_or(("<think>".to_owned(), "</think>".to_owned()), |r| {
            (r.start, r.end)
        });
    let reasoning_tags = options.reasoning_in_history.then_some(&tags);
    let mut out: Vec<Message> = Vec::new();
    let mut places = CallPlaces::default();
    for (i, message) in messages.iter().enumerate() {
        check_call_inputs(i, message, options)?;
        let rewritten = rewrite_message(format, message, reasoning_tags, &mut places);
        // Consecutive user messages merge into one.
        if let (Some(Message::User { content: prev }), Message::User { content: next }) =
            (out.last_mut(), &rewritten)
        {
            let mut texts: Vec<String> = prev
                .iter()
                .chain(next)
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.clone()),
                    _ => None,
                })
                .collect();
            texts.retain(|t| !t.is_empty());
            *prev = join_text(&texts);
            continue;
        }
        out.push(rewritten);
    }
    Ok(out)
}

/// An assistant message's calls must have object inputs: an error, or
/// with `tolerant_history` a warning (the input is rendered as it stands).
fn check_call_inputs(i: usize, message: &Message, options: &ParamsOptions) -> Result<(), Error> {
    let Message::Assistant { content } = message else {
        return Ok(());
    };
    for part in content {
        if let Part::ToolCall {
            tool_name, input, ..
        } = part
        {
            if !input.is_object() {
                let problem = format!(
                    "message {i}: the input of the call to {tool_name:?} is not a JSON object"
                );
                if !options.tolerant_history {
                    return Err(Error::InvalidRequest(problem));
                }
                tracing::warn!(target: "toolsieve::history", "{problem}; rendered as it stands");
            }
        }
    }
    Ok(())
}

/// One message as text: calls in the format's layout, reasoning inside
/// `reasoning_tags` (dropped without them), tool results as a user turn.
fn rewrite_message(
    format: Format,
    message: &Message,
    reasoning_tags: Option<&(String, String)>,
    places: &mut CallPlaces,
) -> Message {
    match message {
        Message::System { content } => Message::System {
            content: content.clone(),
        },
        Message::User { content } | Message::Assistant { content } => {
            let texts = turn_texts(format, content, reasoning_tags, places);
            match message {
                Message::User { .. } => Message::User {
                    content: join_text(&texts),
                },
                _ => Message::Assistant {
                    content: join_text(&texts),
                },
            }
        }
        Message::Tool { content } => {
            let texts: Vec<String> = content
                .iter()
                .enumerate()
                .map(|(position, r)| {
                    // The place of the call it answers, else its own.
                    let index = places.get(&r.tool_call_id).copied().unwrap_or(position);
                    let call = CallRef {
                        id: &r.tool_call_id,
                        index,
                    };
                    render_result_at(format, &r.tool_name, &r.shown(), call)
                })
                .collect();
            Message::User {
                content: join_text(&texts),
            }
        }
    }
}
