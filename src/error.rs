//! Diagnostics (what went wrong inside a stream) and errors (what went wrong
//! before a stream could start).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::event::{CallId, Span};

/// What a [`Diagnostic`] reports. Small and `Copy`, so matching on it costs
/// nothing; the human-readable detail lives in [`Diagnostic::message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The body of a call is not well-formed (bad JSON, stray bytes after the
    /// start marker, a broken XML element). The raw call text comes back as
    /// text unless [`OnInvalid::Drop`] is set.
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
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "toolCallId"
    )]
    pub call: Option<CallId>,
    /// The tool name, when one was read.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "toolName")]
    pub tool_name: Option<String>,
    /// A sentence saying what and why.
    pub message: String,
    /// For a call that was not delivered: where its raw text lies.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "rawSpan")]
    pub span: Option<Span>,
}

/// What to do with the raw text of a call that cannot be delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnInvalid {
    /// Give the raw call text back as text (the default: nothing is lost).
    #[default]
    KeepAsText,
    /// Drop the raw call text; the diagnostic still says what was dropped.
    Drop,
}

/// Errors raised before any byte is parsed: bad configuration, bad tool
/// lists, invalid requests.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The format name is not one of [`Format::ALL`](crate::Format::ALL).
    #[error("unknown format `{0}` (known: {known})", known = crate::Format::names().join(", "))]
    UnknownFormat(String),
    /// A configured marker is empty or otherwise unusable.
    #[error("invalid marker: {0}")]
    InvalidMarker(&'static str),
    /// The format cannot work without a tool list (e.g. `morph-xml`).
    #[error("format `{0}` needs a tool list")]
    ToolsRequired(&'static str),
    /// The tool list could not be read.
    #[error("invalid tool list: {0}")]
    InvalidTools(String),
    /// A request that must not reach a model (see the middleware docs).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// JSON that could not be read.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}
