//! The events a [`Parser`](crate::Parser) emits.
//!
//! Names follow the stream parts of the AI SDK (`text-delta`,
//! `tool-input-start`, `tool-call`, …), so a server can forward them as they
//! are. Text and argument deltas borrow from the chunk that was just fed
//! whenever the bytes lie inside it (see [`Delta`]): a code point that a
//! chunk boundary split is completed inline, and only text built from
//! bytes held back across a boundary may be owned.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

pub use crate::delta::Delta;
pub use crate::ids::{CallId, ReasoningId, Span, TextId};

/// One event of the output stream.
///
/// `'a` is the lifetime of the chunk passed to [`Parser::feed`](crate::Parser::feed).
/// Use [`Event::into_owned`] to keep an event past the next call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Event<'a> {
    /// A text part begins.
    TextStart {
        /// The part.
        id: TextId,
    },
    /// Text for the user. Adjacent deltas of one part concatenate.
    TextDelta {
        /// The part.
        id: TextId,
        /// The text.
        delta: Delta<'a>,
    },
    /// A text part ends (before a tool call, or at the end of the stream).
    TextEnd {
        /// The part.
        id: TextId,
    },
    /// A reasoning part begins (at the reasoning start tag, or at the start
    /// of a stream that starts inside reasoning; see
    /// [`Reasoning`](crate::Reasoning)).
    ReasoningStart {
        /// The part.
        id: ReasoningId,
    },
    /// The model's reasoning. Adjacent deltas of one part concatenate.
    ReasoningDelta {
        /// The part.
        id: ReasoningId,
        /// The text.
        delta: Delta<'a>,
    },
    /// A reasoning part ends (at the end tag, or at the end of a stream
    /// that left it open, after an
    /// [`UnclosedReasoning`](crate::DiagnosticKind::UnclosedReasoning)
    /// diagnostic). Calls written inside reasoning, when they are
    /// delivered, come between its start and end.
    ReasoningEnd {
        /// The part.
        id: ReasoningId,
    },
    /// A tool call begins: its name is known.
    #[serde(rename_all = "camelCase")]
    ToolInputStart {
        /// The call.
        id: CallId,
        /// The tool's name.
        tool_name: Cow<'a, str>,
        /// The id the model gave the call, when it wrote it before the
        /// name (Mistral's `[CALL_ID]`, Command's `tool_call_id`, an `"id"`
        /// member ahead of `"name"`): a stream that sends each call as it
        /// starts can use it at once. The same id is on the call's
        /// [`Event::ToolCall`], however late the model wrote it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model_call_id: Option<Cow<'a, str>>,
    },
    /// A piece of the call's arguments JSON. The deltas of one call
    /// concatenate to the `input` of its [`Event::ToolCall`].
    ToolInputDelta {
        /// The call.
        id: CallId,
        /// The next piece of arguments text.
        delta: Delta<'a>,
    },
    /// The call's input is complete. A `tool-input-end` that is not followed
    /// by a `tool-call` for the same id means the call was abandoned; a
    /// [`Event::Diagnostic`] before it says why.
    ToolInputEnd {
        /// The call.
        id: CallId,
    },
    /// A complete, validated tool call.
    #[serde(rename_all = "camelCase")]
    ToolCall {
        /// The call.
        #[serde(alias = "toolCallId")]
        id: CallId,
        /// The tool's name.
        tool_name: Cow<'a, str>,
        /// The arguments as JSON text (an object).
        input: Cow<'a, str>,
        /// Where the call's raw text lies in the stream.
        raw_span: Span,
        /// The id the model gave the call, if its format has one
        /// (Mistral's `[CALL_ID]`, Command's `tool_call_id`, an `"id"`
        /// member of a JSON call object): the id to send back with the
        /// call's result, in place of `id`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model_call_id: Option<Cow<'a, str>>,
    },
    /// Bytes of the format's own markup outside calls (gpt-oss's message
    /// headers, Command's response tokens): neither text nor a call. It
    /// ends the text part before it.
    Markup {
        /// Where the markup lies in the stream.
        span: Span,
    },
    /// Something was malformed, repaired, truncated or dropped.
    Diagnostic(Diagnostic),
}

impl Event<'_> {
    /// Copies whatever is borrowed, so the event outlives the chunk.
    pub fn into_owned(self) -> Event<'static> {
        fn own(c: Cow<'_, str>) -> Cow<'static, str> {
            Cow::Owned(c.into_owned())
        }
        match self {
            Event::TextStart { id } => Event::TextStart { id },
            Event::TextDelta { id, delta } => Event::TextDelta {
                id,
                delta: delta.into_static(),
            },
            Event::TextEnd { id } => Event::TextEnd { id },
            Event::ReasoningStart { id } => Event::ReasoningStart { id },
            Event::ReasoningDelta { id, delta } => Event::ReasoningDelta {
                id,
                delta: delta.into_static(),
            },
            Event::ReasoningEnd { id } => Event::ReasoningEnd { id },
            Event::ToolInputStart {
                id,
                tool_name,
                model_call_id,
            } => Event::ToolInputStart {
                id,
                tool_name: own(tool_name),
                model_call_id: model_call_id.map(own),
            },
            Event::ToolInputDelta { id, delta } => Event::ToolInputDelta {
                id,
                delta: delta.into_static(),
            },
            Event::ToolInputEnd { id } => Event::ToolInputEnd { id },
            Event::ToolCall {
                id,
                tool_name,
                input,
                raw_span,
                model_call_id,
            } => Event::ToolCall {
                id,
                tool_name: own(tool_name),
                input: own(input),
                raw_span,
                model_call_id: model_call_id.map(own),
            },
            Event::Markup { span } => Event::Markup { span },
            Event::Diagnostic(d) => Event::Diagnostic(d),
        }
    }
}

impl<'a> Event<'a> {
    /// The same event with its part and call ids renumbered (a
    /// diagnostic's call too): for streams joined one after another.
    pub fn map_ids(
        self,
        mut text: impl FnMut(TextId) -> TextId,
        mut reasoning: impl FnMut(ReasoningId) -> ReasoningId,
        mut call: impl FnMut(CallId) -> CallId,
    ) -> Event<'a> {
        match self {
            Event::TextStart { id } => Event::TextStart { id: text(id) },
            Event::TextDelta { id, delta } => Event::TextDelta {
                id: text(id),
                delta,
            },
            Event::TextEnd { id } => Event::TextEnd { id: text(id) },
            Event::ReasoningStart { id } => Event::ReasoningStart { id: reasoning(id) },
            Event::ReasoningDelta { id, delta } => Event::ReasoningDelta {
                id: reasoning(id),
                delta,
            },
            Event::ReasoningEnd { id } => Event::ReasoningEnd { id: reasoning(id) },
            Event::ToolInputStart {
                id,
                tool_name,
                model_call_id,
            } => Event::ToolInputStart {
                id: call(id),
                tool_name,
                model_call_id,
            },
            Event::ToolInputDelta { id, delta } => Event::ToolInputDelta {
                id: call(id),
                delta,
            },
            Event::ToolInputEnd { id } => Event::ToolInputEnd { id: call(id) },
            Event::ToolCall {
                id,
                tool_name,
                input,
                raw_span,
                model_call_id,
            } => Event::ToolCall {
                id: call(id),
                tool_name,
                input,
                raw_span,
                model_call_id,
            },
            Event::Markup { span } => Event::Markup { span },
            Event::Diagnostic(mut d) => {
                d.id = d.id.map(call);
                Event::Diagnostic(d)
            }
        }
    }
}

/// Appends `event` to `events`, merging it into the last event when both are
/// deltas of the same part. The result is the canonical form used to compare
/// two runs of the parser over different chunkings of the same input.
pub fn push_merged(events: &mut Vec<Event<'static>>, event: Event<'_>) {
    match (events.last_mut(), &event) {
        (Some(Event::TextDelta { id: a, delta: acc }), Event::TextDelta { id: b, delta })
            if a == b =>
        {
            acc.push_str(delta)
        }
        (
            Some(Event::ToolInputDelta { id: a, delta: acc }),
            Event::ToolInputDelta { id: b, delta },
        ) if a == b => acc.push_str(delta),
        (
            Some(Event::ReasoningDelta { id: a, delta: acc }),
            Event::ReasoningDelta { id: b, delta },
        ) if a == b => acc.push_str(delta),
        _ => events.push(event.into_owned()),
    }
}

/// What a [`Diagnostic`] reports. Small and `Copy`, so matching on it costs
/// nothing; the human-readable detail lives in [`Diagnostic::message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The body of a call is not well-formed (bad JSON, stray bytes after the
    /// start marker, a broken XML element). The raw call text comes back as
    /// text unless [`OnInvalid::Drop`](crate::OnInvalid::Drop) is set.
    MalformedCall,
    /// The call is well-formed but has no usable tool name.
    MissingName,
    /// The arguments are neither an object, a JSON string holding an object,
    /// nor `null` (the call is not delivered); or, with
    /// [`ParserBuilder::validate_arguments`](crate::ParserBuilder::validate_arguments),
    /// they do not match the tool's schema (the call is delivered, and this
    /// diagnostic follows its `tool-call`, naming each path at fault).
    InvalidArguments,
    /// A key such as `name` or `arguments` appears twice in one call.
    DuplicateKey,
    /// A tool list was given and the call names a tool that is not in it.
    UnknownTool,
    /// The call's JSON was repaired and the call delivered: raw control
    /// characters (newlines, tabs) inside strings were escaped, or a body in
    /// relaxed JSON (single quotes, Python literals, trailing commas,
    /// unquoted keys) was read as JSON.
    RepairedJson,
    /// A closing tag (`</parameter>`, `</function>`, …) was missing; the
    /// element was closed by the next structural tag or the end of the call.
    MissingCloseTag,
    /// A closing tag with no element open (`</command>` once more after the
    /// element closed) was skipped; the call was delivered.
    StrayCloseTag,
    /// The call's body is complete but its end marker is missing; the call was
    /// recovered anyway.
    MissingEndMarker,
    /// The stream ended inside a call that could not be recovered; its raw
    /// text comes back as text.
    UnfinishedCall,
    /// A call grew past [`Limits::max_call_bytes`](crate::Limits::max_call_bytes).
    CallTooLarge,
    /// JSON or XML nesting went past [`Limits::max_depth`](crate::Limits::max_depth).
    TooDeep,
    /// More calls than [`Limits::max_calls`](crate::Limits::max_calls).
    TooManyCalls,
    /// Bytes that are not UTF-8. In text they are replaced by U+FFFD (one per
    /// maximal invalid sequence, as `String::from_utf8_lossy` does); inside a
    /// call they make the call malformed.
    InvalidUtf8,
    /// `tool_choice` asked for a call and the output had none.
    NoToolCall,
    /// A value could not be converted to the type its schema asks for and was
    /// kept as a string.
    Coercion,
    /// The stream ended inside reasoning (no end tag): what was written is
    /// delivered as reasoning all the same.
    UnclosedReasoning,
    /// A start marker that also introduces code was followed by code, not
    /// JSON (Llama's `<|python_tag|>` before a call to a built-in tool,
    /// `brave_search.call(query="…")`): kept as text.
    BuiltinToolCall,
}

impl DiagnosticKind {
    /// The kebab-case name used in JSON output (`"malformed-call"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::MalformedCall => "malformed-call",
            DiagnosticKind::MissingName => "missing-name",
            DiagnosticKind::InvalidArguments => "invalid-arguments",
            DiagnosticKind::DuplicateKey => "duplicate-key",
            DiagnosticKind::UnknownTool => "unknown-tool",
            DiagnosticKind::RepairedJson => "repaired-json",
            DiagnosticKind::MissingCloseTag => "missing-close-tag",
            DiagnosticKind::StrayCloseTag => "stray-close-tag",
            DiagnosticKind::MissingEndMarker => "missing-end-marker",
            DiagnosticKind::UnfinishedCall => "unfinished-call",
            DiagnosticKind::CallTooLarge => "call-too-large",
            DiagnosticKind::TooDeep => "too-deep",
            DiagnosticKind::TooManyCalls => "too-many-calls",
            DiagnosticKind::InvalidUtf8 => "invalid-utf8",
            DiagnosticKind::NoToolCall => "no-tool-call",
            DiagnosticKind::Coercion => "coercion",
            DiagnosticKind::UnclosedReasoning => "unclosed-reasoning",
            DiagnosticKind::BuiltinToolCall => "builtin-tool-call",
        }
    }

    /// Whether the call this diagnostic belongs to was still delivered as a
    /// tool call (a repair) rather than given back as text.
    pub fn is_recovered(self) -> bool {
        matches!(
            self,
            DiagnosticKind::MissingEndMarker
                | DiagnosticKind::MissingCloseTag
                | DiagnosticKind::StrayCloseTag
                | DiagnosticKind::RepairedJson
                | DiagnosticKind::Coercion
        )
    }
}

impl fmt::Display for DiagnosticKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something in the stream was malformed, repaired, truncated or dropped.
///
/// `offset` is the byte offset in the whole stream where the problem was
/// found, so it is the same however the stream was chunked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Diagnostic {
    /// What happened.
    pub kind: DiagnosticKind,
    /// Byte offset in the stream where it was detected.
    pub offset: u64,
    /// The call it concerns, when a `tool-input-start` was already emitted
    /// for it (that call then ends without a `tool-call`, except after a
    /// schema check: see [`DiagnosticKind::InvalidArguments`]).
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "toolCallId")]
    pub id: Option<CallId>,
    /// The tool name, when one was read.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "toolName")]
    pub tool_name: Option<String>,
    /// A sentence saying what and why.
    pub message: String,
    /// For a call that was not delivered: where its raw text lies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_span: Option<Span>,
}

impl Diagnostic {
    /// A diagnostic of `kind`, found at stream offset `offset`, saying
    /// `message`; about no call and with no span until
    /// [`about_call`](Diagnostic::about_call) and
    /// [`with_span`](Diagnostic::with_span) say otherwise.
    pub fn new(kind: DiagnosticKind, offset: u64, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind,
            offset,
            id: None,
            tool_name: None,
            message: message.into(),
            raw_span: None,
        }
    }

    /// The diagnostic concerns call `id`, of tool `tool_name`.
    #[must_use]
    pub fn about_call(mut self, id: Option<CallId>, tool_name: Option<String>) -> Diagnostic {
        self.id = id;
        self.tool_name = tool_name;
        self
    }

    /// The raw text of the call it concerns lies at `span`.
    #[must_use]
    pub fn with_span(mut self, span: Span) -> Diagnostic {
        self.raw_span = Some(span);
        self
    }
}
