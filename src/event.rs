//! The events a [`Parser`](crate::Parser) emits.
//!
//! Names follow the stream parts of the AI SDK (`text-delta`,
//! `tool-input-start`, `tool-call`, …), so a server can forward them as they
//! are. Text and argument deltas borrow from the chunk that was just fed
//! whenever the bytes lie inside it; only bytes held back across a chunk
//! boundary (a partial marker, a split UTF-8 code point) are owned.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use crate::error::Diagnostic;

macro_rules! numbered_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            /// Reads the displayed form back.
            fn from_str(text: &str) -> Result<Self, String> {
                text.strip_prefix($prefix)
                    .and_then(|n| n.parse().ok())
                    .map($name)
                    .ok_or_else(|| concat!("expected `", $prefix, "<n>`").to_owned())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = Cow::<str>::deserialize(d)?;
                text.parse().map_err(de::Error::custom)
            }
        }
    };
}

numbered_id!(
    /// Identifies one text part of a stream; displayed as `text_N`.
    TextId,
    "text_"
);
numbered_id!(
    /// Identifies one tool call of a stream; displayed as `call_N`. Numbers
    /// count from 0 per stream, so they are the same for every chunking.
    CallId,
    "call_"
);

numbered_id!(
    /// Identifies one reasoning part of a stream; displayed as `reasoning_N`.
    ReasoningId,
    "reasoning_"
);

/// Where a call's raw text lies in the stream: byte offsets, end exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// Offset of the first byte of the start marker.
    pub start: u64,
    /// Offset one past the last byte of the call (end marker included).
    pub end: u64,
}

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
        delta: Cow<'a, str>,
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
        delta: Cow<'a, str>,
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
    },
    /// A piece of the call's arguments JSON. The deltas of one call
    /// concatenate to the `input` of its [`Event::ToolCall`].
    ToolInputDelta {
        /// The call.
        id: CallId,
        /// The next piece of arguments text.
        delta: Cow<'a, str>,
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
        tool_call_id: CallId,
        /// The tool's name.
        tool_name: Cow<'a, str>,
        /// The arguments as JSON text (an object).
        input: Cow<'a, str>,
        /// Where the call's raw text lies in the stream.
        raw_span: Span,
        /// The id the model gave the call, if its format has one
        /// (Mistral's `[CALL_ID]`, Command's `tool_call_id`, an `"id"`
        /// member of a JSON call object): the id to send back with the
        /// call's result, in place of `tool_call_id`.
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
                delta: own(delta),
            },
            Event::TextEnd { id } => Event::TextEnd { id },
            Event::ReasoningStart { id } => Event::ReasoningStart { id },
            Event::ReasoningDelta { id, delta } => Event::ReasoningDelta {
                id,
                delta: own(delta),
            },
            Event::ReasoningEnd { id } => Event::ReasoningEnd { id },
            Event::ToolInputStart { id, tool_name } => Event::ToolInputStart {
                id,
                tool_name: own(tool_name),
            },
            Event::ToolInputDelta { id, delta } => Event::ToolInputDelta {
                id,
                delta: own(delta),
            },
            Event::ToolInputEnd { id } => Event::ToolInputEnd { id },
            Event::ToolCall {
                tool_call_id,
                tool_name,
                input,
                raw_span,
                model_call_id,
            } => Event::ToolCall {
                tool_call_id,
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
            Event::ToolInputStart { id, tool_name } => Event::ToolInputStart {
                id: call(id),
                tool_name,
            },
            Event::ToolInputDelta { id, delta } => Event::ToolInputDelta {
                id: call(id),
                delta,
            },
            Event::ToolInputEnd { id } => Event::ToolInputEnd { id: call(id) },
            Event::ToolCall {
                tool_call_id,
                tool_name,
                input,
                raw_span,
                model_call_id,
            } => Event::ToolCall {
                tool_call_id: call(tool_call_id),
                tool_name,
                input,
                raw_span,
                model_call_id,
            },
            Event::Markup { span } => Event::Markup { span },
            Event::Diagnostic(mut d) => {
                d.call = d.call.map(call);
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
            acc.to_mut().push_str(delta)
        }
        (
            Some(Event::ToolInputDelta { id: a, delta: acc }),
            Event::ToolInputDelta { id: b, delta },
        ) if a == b => acc.to_mut().push_str(delta),
        (
            Some(Event::ReasoningDelta { id: a, delta: acc }),
            Event::ReasoningDelta { id: b, delta },
        ) if a == b => acc.to_mut().push_str(delta),
        _ => events.push(event.into_owned()),
    }
}
