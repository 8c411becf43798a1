//! The tool system prompt, in the layout each model family was trained on.

use crate::tool::Tool;
use crate::Format;

/// The placeholder a template's tool block replaces.
pub const TOOLS_PLACEHOLDER: &str = crate::formats::TOOLS_PLACEHOLDER;

/// The default template of `format`: instructions around [`TOOLS_PLACEHOLDER`].
pub fn default_template(format: Format) -> &'static str {
    format.spec().template
}

/// The tool block of `format`'s prompt (what replaces [`TOOLS_PLACEHOLDER`]).
pub fn tools_block(format: Format, tools: &[Tool]) -> String {
    let spec = format.spec();
    let entries: Vec<String> = tools.iter().map(spec.tool_entry).collect();
    entries.join(spec.tools_separator)
}

/// Renders the tool system prompt: `template` (or the format's default) with
/// its [`TOOLS_PLACEHOLDER`] replaced by the tool block. Empty when there are
/// no tools.
pub fn format_tools(format: Format, tools: &[Tool], template: Option<&str>) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let template = template.unwrap_or(default_template(format));
    template.replace(TOOLS_PLACEHOLDER, &tools_block(format, tools))
}
