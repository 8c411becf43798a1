//! `xlam`: Salesforce's xLAM models answer a call with a JSON list of
//! `{"name", "arguments"}` objects: the whole output, or inside a
//! ```` ```json ```` fence, or after `[TOOL_CALLS]`.

use serde_json::Value;

use super::*;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "xlam",
    aliases: &["xlam-2", "llama-xlam"],
    summary: r#"[{"name": "f", "arguments": {...}}] (the whole output, a ```json fence, or after [TOOL_CALLS])"#,
    fuzz_id: 12,
    delimiters: ("```json", "```"),
    reader,
    bare_calls_at_start: true,
    template: "You are an expert in composing functions. You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out and refuse to answer.

Here is a list of functions in JSON format that you can invoke:
{tools}

If you decide to invoke any of the function(s), answer with only a JSON list of the calls, in this format:
[{\"name\": \"func_name1\", \"arguments\": {\"argument1\": \"value1\", \"argument2\": \"value2\"}}, ...]",
    tool_entry: plain_tool,
    tools_separator: "\n",
    render_call,
    call_block: CallBlock::new("```json\n[", ", ", "]\n```"),
    render_result: tool_response,
    families: &[
        Family::new("xLAM", &["xlam"], Think::No).fine_tune(),
    ],
    ..FormatSpec::DEFAULT
};

/// The other start marker: Mistral's token, which some xLAM fine-tunes
/// keep. Nothing but the end of its JSON closes its list.
const TOOL_CALLS: &str = "[TOOL_CALLS]";

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    no_delimiters(delimiters)?;
    let (fence, close) = SPEC.delimiters;
    // ```json must end its word (```jsonc is prose); a ``` closing the
    // fence that ```json follows opens the next one.
    let automaton = JsonCall::new(close.as_bytes(), limits.max_depth)
        .reopened_by(fence.as_bytes(), Boundary::Whitespace)
        .ending_by_marker(&[close.as_bytes(), b""]);
    let markers = vec![
        Marker {
            bytes: Cow::Borrowed(fence.as_bytes()),
            boundary: Boundary::Whitespace,
        },
        Marker {
            bytes: Cow::Borrowed(TOOL_CALLS.as_bytes()),
            boundary: Boundary::None,
        },
    ];
    Ok((markers, Automaton::Json(automaton)))
}

/// In a fence: a bare list is read only at the start of the output, and a
/// call in history may follow text.
fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let name = json_string(name);
    format!("{{\"name\": {name}, \"arguments\": {args}}}")
}
