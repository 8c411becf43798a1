//! One value per format with the whole protocol interface: prompt, history
//! rendering, one-shot and streaming parsing.

use std::sync::Arc;

use serde_json::Value;

use super::{format_tool_call, format_tool_response, format_tools};
use crate::{Error, Event, Format, Parser, Tool};

/// A format seen as a tool-calling protocol. Every format plugs into the
/// middleware the same way, through these five operations.
///
/// ```
/// use serde_json::json;
/// use toolsieve::middleware::Protocol;
/// use toolsieve::{Event, Format, Tool};
///
/// let protocol = Protocol::new(Format::Glm);
/// let tools = [Tool::new("get_time")];
/// assert!(protocol.format_tools(&tools).contains("<arg_key>"));
/// let text = protocol.format_tool_call("get_time", &json!({"tz": "UTC"}));
/// let events = protocol.parse(&text, &tools).unwrap();
/// assert!(events.iter().any(|e| matches!(e, Event::ToolCall { input, .. } if input == r#"{"tz": "UTC"}"#)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protocol {
    format: Format,
    template: Option<String>,
}

impl Protocol {
    /// The protocol of `format`, with its default prompt template.
    pub fn new(format: Format) -> Protocol {
        Protocol {
            format,
            template: None,
        }
    }

    /// Replaces the prompt template (`{tools}` marks the tool block).
    pub fn with_template(mut self, template: impl Into<String>) -> Protocol {
        self.template = Some(template.into());
        self
    }

    /// The format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The tool system prompt.
    pub fn format_tools(&self, tools: &[Tool]) -> String {
        format_tools(self.format, tools, self.template.as_deref())
    }

    /// An assistant's call, as text for history.
    pub fn format_tool_call(&self, name: &str, args: &Value) -> String {
        format_tool_call(self.format, name, args)
    }

    /// A tool's result, as text for history.
    pub fn format_tool_response(&self, name: &str, result: &Value) -> String {
        format_tool_response(self.format, name, result)
    }

    /// Parses a whole output.
    ///
    /// # Errors
    ///
    /// When the format needs tools and none are given.
    pub fn parse(&self, text: &str, tools: &[Tool]) -> Result<Vec<Event<'static>>, Error> {
        let mut parser = self.stream_parser(tools)?;
        Ok(parser
            .parse(text.as_bytes())
            .into_iter()
            .map(Event::into_owned)
            .collect())
    }

    /// A streaming parser for outputs of this format.
    ///
    /// # Errors
    ///
    /// When the format needs tools and none are given.
    pub fn stream_parser(&self, tools: &[Tool]) -> Result<Parser, Error> {
        Parser::builder(self.format)
            .tools(Arc::<[Tool]>::from(tools.to_vec()))
            .build()
    }
}
