//! `deepseek-v3`: DeepSeek-V3 and R1,
//! `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and the arguments in a
//! ```` ```json ```` fence. Read by the same automaton as `deepseek-v3.1`
//! (either layout); prompts and history are written in the V3 layout.

use serde_json::Value;

use super::*;

/// DeepSeek's tokens (V3, R1, V3.1). V3 and R1 name the call on a line of
/// its own after `function` and fence the arguments, V3.1 writes the name
/// alone: these rules read both.
pub(crate) const RULES: Rules = Rules {
    function_line: true,
    ..Rules::new(
        Tokens {
            section_begin: "<｜tool▁calls▁begin｜>",
            section_end: "<｜tool▁calls▁end｜>",
            call_begin: "<｜tool▁call▁begin｜>",
            sep: "<｜tool▁sep｜>",
            call_end: "<｜tool▁call▁end｜>",
        },
        NameRule::Verbatim,
    )
};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "deepseek-v3",
    aliases: &["deepseekv3", "deepseek-r1"],
    summary: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{...}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    fuzz_id: 9,
    delimiters: section(&RULES),
    reader,
    template: "## Tools
You have access to the following tools:

{tools}

IMPORTANT: ALWAYS adhere to this exact format for tool use:
<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>tool_call_name
```json
tool_call_arguments
```<｜tool▁call▁end｜>{additional_tool_calls}<｜tool▁calls▁end｜>

Where:
- `tool_call_name` must be an exact match to one of the available tools
- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema
- For multiple tool calls, chain them directly without separators or spaces",
    tool_entry,
    tools_separator: "\n\n",
    render_call,
    call_block: CALL_BLOCK,
    render_result,
    families: &[
        Family::new("DeepSeek-R1", &["deepseek-r1"], Think::Open).fine_tune(),
        Family::new("DeepSeek-V3", &["deepseek-v3", "deepseek-chat"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    token_reading(&RULES, delimiters, limits)
}

/// DeepSeek's calls of one turn, in one section, a line apart.
pub(crate) const CALL_BLOCK: CallBlock =
    CallBlock::new("<｜tool▁calls▁begin｜>", "\n", "<｜tool▁calls▁end｜>");

pub(crate) fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜>"
    )
}

/// A tool as DeepSeek's templates list them (sections a blank line apart).
pub(crate) fn tool_entry(tool: &Tool) -> String {
    format!(
        "### {}\nDescription: {}\n\nParameters: {}",
        tool.name, tool.description, tool.parameters
    )
}

/// A result in DeepSeek's output tokens.
pub(crate) fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<｜tool▁output▁begin｜>{}<｜tool▁output▁end｜>",
        value_text(result)
    )
}
