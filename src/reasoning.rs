//! How a model's reasoning is delimited in its output.

use serde::{Deserialize, Serialize};

/// Where a model's reasoning (its chain of thought) stands in the output,
/// for [`ParserBuilder::reasoning`](crate::ParserBuilder::reasoning): the
/// text between `start` and `end` comes out as `reasoning-*` events, not
/// as text.
///
/// ```
/// use toolsieve::{Event, Format, Parser, Reasoning};
///
/// let mut parser = Parser::builder(Format::Hermes)
///     .reasoning(Reasoning::think())
///     .build()?;
/// let events = parser.parse(b"<think>Paris? Ask the tool.</think>Checking.");
/// let reasoning: String = events.iter().filter_map(|e| match e {
///     Event::ReasoningDelta { delta, .. } => Some(delta.as_ref()),
///     _ => None,
/// }).collect();
/// assert_eq!(reasoning, "Paris? Ask the tool.");
/// # Ok::<(), toolsieve::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Reasoning {
    /// The tag that opens reasoning (`<think>`).
    pub start: String,
    /// The tag that closes it (`</think>`).
    pub end: String,
    /// The output starts inside reasoning: the chat template opened the
    /// start tag in the prompt, so the model writes only the end tag
    /// (DeepSeek-R1, QwQ, Qwen3 thinking templates, GLM-4.7+, MiniMax-M2). A
    /// start tag that begins the output all the same is markup
    /// ([`Event::Markup`](crate::Event::Markup)), not reasoning.
    pub starts_open: bool,
    /// Calls written inside reasoning are delivered as calls. Off by
    /// default: what a model writes while it thinks was thought, not done,
    /// and comes out as reasoning text.
    pub calls_inside: bool,
    /// A call ends the reasoning, its end tag or not: the model may go
    /// from thinking straight to its calls (Kimi-K2 writes
    /// `…thought<|tool_calls_section_begin|>…` without `</think>`). The
    /// part ends where the call's marker begins, and what follows the
    /// calls is text. Takes the place of `calls_inside`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ends_at_calls: bool,
}

impl Reasoning {
    /// `<think>` … `</think>`, closed at the start of the output.
    pub fn think() -> Reasoning {
        Reasoning::tags("<think>", "</think>")
    }

    /// Reasoning between `start` and `end`.
    pub fn tags(start: impl Into<String>, end: impl Into<String>) -> Reasoning {
        Reasoning {
            start: start.into(),
            end: end.into(),
            starts_open: false,
            calls_inside: false,
            ends_at_calls: false,
        }
    }

    /// Sets [`starts_open`](Self::starts_open).
    #[must_use]
    pub fn starting_open(mut self, on: bool) -> Reasoning {
        self.starts_open = on;
        self
    }

    /// Sets [`ends_at_calls`](Self::ends_at_calls).
    #[must_use]
    pub fn ending_at_calls(mut self, on: bool) -> Reasoning {
        self.ends_at_calls = on;
        self
    }

    /// Sets [`calls_inside`](Self::calls_inside).
    #[must_use]
    pub fn with_calls_inside(mut self, on: bool) -> Reasoning {
        self.calls_inside = on;
        self
    }
}
