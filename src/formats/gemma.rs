//! `gemma`: a markdown fence, ```` ```tool_call ```` on its own line, a JSON
//! `{"name", "arguments"}` object, then ```` ``` ```` (the language tag is
//! configurable).

use serde_json::Value;

use super::*;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "gemma",
    aliases: &["gemma3", "tool-call-fence"],
    summary: r#"```tool_call\n{"name": "f", "arguments": {...}}\n```"#,
    fuzz_id: 1,
    delimiters: ("```tool_call", "```"),
    reader,
    template: "You have access to the following functions:
{tools}

To call a function, reply with a fenced block tagged tool_call that holds one JSON object with the function name and arguments, and nothing else in the block:
```tool_call
{\"name\": \"function_name\", \"arguments\": {\"arg\": \"value\"}}
```
Use one block per call. If no function fits, answer normally.",
    tool_entry: plain_tool,
    tools_separator: "\n",
    render_call,
    render_result,
    families: &[
        Family::new("Gemma 3", &["gemma-3", "gemma3", "gemma"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    let (start, end) = json_markers(delimiters, SPEC.delimiters);
    // The fence tag must end its word: ```tool_calls is prose.
    let automaton =
        JsonCall::new(end.as_bytes(), limits.max_depth).reopened_by(&start, Boundary::Whitespace);
    json_reading(start, Boundary::Whitespace, automaton)
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let name = json_string(name);
    format!("```tool_call\n{{\"name\": {name}, \"arguments\": {args}}}\n```")
}

fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!("```tool_output\n{}\n```", value_text(result))
}
