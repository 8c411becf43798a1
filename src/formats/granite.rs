//! `granite`: IBM Granite. Granite 3.x writes `<|tool_call|>` and a JSON
//! list of calls, closed by nothing but the list's end:
//! `<|tool_call|>[{"name": …, "arguments": {…}}]`; Granite 4 writes
//! Hermes' `<tool_call>{…}</tool_call>` blocks; Granite 20B
//! function-calling writes `<function_call> {"name": …, "arguments": {…}}`,
//! one marker per call, several in a row, no closing tag. All are read.

use serde_json::Value;

use super::*;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "granite",
    aliases: &["granite3", "granite-20b-fc", "granite4"],
    summary: r#"<|tool_call|>[{"name": "f", "arguments": {...}}] (3.x); <tool_call>{...}</tool_call> (4); <function_call> {...} (20B FC)"#,
    fuzz_id: 11,
    delimiters: ("<|tool_call|>", ""),
    reader,
    template: "You are a helpful assistant with access to the following tools. When a tool is required to answer the user's query, respond only with <|tool_call|> followed by a JSON list of tools used. If a tool does not exist in the provided list of tools, notify the user that you do not have the ability to fulfill the request.

Available tools:
{tools}",
    tool_entry: openai_tool,
    tools_separator: "\n",
    render_call,
    call_block: CallBlock::new("<|tool_call|>[", ", ", "]"),
    render_result,
    families: &[
        Family::new("Granite", &["granite"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

/// Granite 4's start and end markers, beside 3.x's `<|tool_call|>`.
const BLOCK: (&str, &str) = ("<tool_call>", "</tool_call>");

/// Granite 20B function-calling: one call after it, ended by its JSON.
const FUNCTION_CALL: &str = "<function_call>";

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    no_delimiters(delimiters)?;
    let automaton =
        JsonCall::new(b"", limits.max_depth).ending_by_marker(&[b"", BLOCK.1.as_bytes(), b""]);
    Ok((
        markers(&[SPEC.delimiters.0, BLOCK.0, FUNCTION_CALL]),
        Automaton::Json(automaton),
    ))
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let name = json_string(name);
    format!("{{\"name\": {name}, \"arguments\": {args}}}")
}

/// A result as Granite's template writes a `tool` turn.
fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<|start_of_role|>tool<|end_of_role|>{}<|end_of_text|>",
        value_text(result)
    )
}
