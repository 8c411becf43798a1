//! The wire formats toolsieve recognises.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::limits::Limits;
use crate::protocol::json_call::JsonCall;
use crate::protocol::Automaton;
use crate::scan::marker::{Boundary, Marker};
use crate::tool::Tool;

/// A tool-call wire format. Each has one automaton in `src/protocol/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// `<tool_call>{"name": …, "arguments": {…}}</tool_call>` — Hermes,
    /// Qwen 2.5 / Qwen 3 and every model that wraps a JSON call in two
    /// markers (both configurable).
    Hermes,
    /// A markdown fence: ```` ```tool_call ```` on its own line, a JSON
    /// `{"name", "arguments"}` object, then ```` ``` ````. The language tag is
    /// configurable.
    Gemma,
}

impl Format {
    /// Every format, in the order `toolsieve formats` lists them.
    pub const ALL: &'static [Format] = &[Format::Hermes, Format::Gemma];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Hermes => "hermes",
            Format::Gemma => "gemma",
        }
    }

    /// The names of all formats.
    pub fn names() -> Vec<&'static str> {
        Format::ALL.iter().map(|f| f.name()).collect()
    }

    /// One line on what the format looks like.
    pub fn summary(self) -> &'static str {
        match self {
            Format::Hermes => r#"<tool_call>{"name": "f", "arguments": {...}}</tool_call>"#,
            Format::Gemma => r#"```tool_call\n{"name": "f", "arguments": {...}}\n```"#,
        }
    }

    /// The default start and end markers.
    pub fn default_delimiters(self) -> (&'static str, &'static str) {
        match self {
            Format::Hermes => ("<tool_call>", "</tool_call>"),
            Format::Gemma => ("```tool_call", "```"),
        }
    }

    pub(crate) fn automaton(
        self,
        delimiters: Option<(&str, &str)>,
        _tools: &[Tool],
        limits: &Limits,
    ) -> Result<(Vec<Marker>, Automaton), Error> {
        let start: Cow<'static, [u8]> = match delimiters {
            Some((start, _)) => Cow::Owned(start.as_bytes().to_vec()),
            None => Cow::Borrowed(self.default_delimiters().0.as_bytes()),
        };
        let end = delimiters.map_or(self.default_delimiters().1, |(_, end)| end);
        if start.is_empty() || end.is_empty() {
            return Err(Error::InvalidMarker("start and end markers must not be empty"));
        }
        let boundary = match self {
            Format::Hermes => Boundary::None,
            // The fence tag must end its word: ```tool_calls is prose.
            Format::Gemma => Boundary::Whitespace,
        };
        let marker = Marker {
            bytes: start,
            boundary,
        };
        let automaton = Automaton::Json(JsonCall::new(end.as_bytes(), limits.max_depth));
        Ok((vec![marker], automaton))
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Format, Error> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| Error::UnknownFormat(s.to_owned()))
    }
}
