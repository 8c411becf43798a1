//! `phi4-mini`: Phi-4-mini writes all of its calls as one JSON list after
//! the word `functools`, with no closing marker:
//! `functools[{"name": …, "arguments": {…}}, …]`. The call list ends with
//! its `]`; what follows is text.

use serde_json::Value;

use super::*;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "phi4-mini",
    aliases: &["phi4_mini_json", "phi-4-mini", "functools"],
    summary: r#"functools[{"name": "f", "arguments": {...}}, ...]"#,
    fuzz_id: 10,
    delimiters: ("functools[", ""),
    reader,
    template: "You are a helpful assistant with these tools:
{tools}

If you decide to call functions:
* prefix function calls with the functools marker (no closing marker required)
* write all function calls in a single JSON list: functools[{\"name\": [function name], \"arguments\": [function arguments as JSON]}, ...]
* follow the provided JSON schema; do not invent arguments or values",
    tool_entry: plain_tool,
    tools_separator: "\n",
    render_call,
    call_block: CallBlock::new("functools[", ", ", "]"),
    render_result,
    families: &[
        Family::new("Phi-4-mini", &["phi-4-mini", "phi4-mini"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    no_delimiters(delimiters)?;
    // The marker holds the list's `[`: `functools` alone in prose (the
    // Python module) is text.
    let automaton = JsonCall::new(b"", limits.max_depth).opening_arrays();
    json_reading(
        Cow::Borrowed(SPEC.delimiters.0.as_bytes()),
        Boundary::None,
        automaton,
    )
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let name = json_string(name);
    format!("{{\"name\": {name}, \"arguments\": {args}}}")
}

/// A result as the chat template writes a `tool` turn.
fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!("<|tool|>{}<|end|>", value_text(result))
}
