//! `llama3-json`: Llama 3.1–3.3 calling custom tools. The model writes a
//! JSON object `{"name": …, "parameters": {…}}` as its whole output (several
//! separated by `;` or line breaks), or after `<|python_tag|>`;
//! `<|eom_id|>` or `<|eot_id|>` right after the JSON closes the call;
//! prose after it is text. `<|python_tag|>`
//! followed by code is a call to a built-in tool (`brave_search.call(…)`),
//! which is kept as text.

use serde_json::Value;

use super::*;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "llama3-json",
    aliases: &["llama3", "llama", "llama4-json"],
    summary: r#"{"name": "f", "parameters": {...}} as the output, or after <|python_tag|>"#,
    fuzz_id: 13,
    delimiters: ("<|python_tag|>", ""),
    reader,
    bare_calls_at_start: true,
    template: "Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.

Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}. Do not use variables.

{tools}",
    tool_entry: openai_tool,
    tools_separator: "\n\n",
    render_call,
    render_result,
    families: &[
        Family::new("Llama 3.x", &["llama-3", "llama3"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

/// The tokens that end the assistant's turn right after a call.
const CLOSERS: &[&[u8]] = &[b"<|eom_id|>", b"<|eot_id|>"];

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    let (start, end) = json_markers(delimiters, SPEC.delimiters);
    let mut automaton = JsonCall::new(end.as_bytes(), limits.max_depth)
        .closed_by_tokens(CLOSERS)
        .separated_by_lines();
    if delimiters.is_none() {
        automaton = automaton.code_after_marker();
    }
    json_reading(start, Boundary::None, automaton)
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let name = json_string(name);
    format!("<|python_tag|>{{\"name\": {name}, \"parameters\": {args}}}")
}

/// A result as Llama 3's template writes an `ipython` turn.
fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<|start_header_id|>ipython<|end_header_id|>\n\n{}<|eot_id|>",
        value_text(result)
    )
}
