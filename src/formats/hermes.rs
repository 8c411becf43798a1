//! `hermes`: Hermes, Qwen 2.5 / Qwen 3 and every model that wraps a JSON
//! call in two markers: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
//! (both markers configurable). Its blocks may also hold Qwen3-Coder's
//! XML calls (Qwen3-Coder served with a hermes parser).

use serde_json::Value;

use super::*;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "hermes",
    aliases: &["qwen", "qwen25", "qwen2.5", "hermes2-pro"],
    summary: r#"<tool_call>{"name": "f", "arguments": {...}}</tool_call>"#,
    fuzz_id: 0,
    delimiters: ("<tool_call>", "</tool_call>"),
    reader,
    template: "You are a function calling AI model. You may call one or more functions to assist with the user query. Don't make assumptions about what values to plug into functions. Here are the available tools:
<tools>
{tools}
</tools>
For each function call, return a JSON object with the function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{\"name\": <function-name>, \"arguments\": <args-json-object>}
</tool_call>",
    tool_entry: openai_tool,
    tools_separator: "\n",
    render_call,
    render_result: tool_response,
    families: &[
        Family::new("Hermes 4", &["hermes-4"], Think::Tags).switched(Think::Tags).fine_tune(),
        Family::new("Hermes", &["hermes-2", "hermes-3", "hermes"], Think::No).fine_tune(),
        Family::new("Qwen3 Thinking", &["qwen3-next-80b-a3b-thinking", "thinking-2507"], Think::Open),
        Family::new("QwQ", &["qwq"], Think::Open),
        Family::new("Qwen3", &["qwen3"], Think::Tags).switched(Think::Tags),
        Family::new("Qwen 2.5", &["qwen2.5", "qwen2", "qwen-2.5", "qwen"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    let (start, end) = json_markers(delimiters, SPEC.delimiters);
    let automaton =
        JsonCall::new(end.as_bytes(), limits.max_depth).reopened_by(&start, Boundary::None);
    // Qwen3-Coder served as hermes writes its XML calls in the same
    // `<tool_call>` blocks: a block that begins with `<` is read as XML.
    if Some(end.as_bytes()) == qwen3_coder::DIALECT.block_end(0) {
        let markers = json_marker(start, Boundary::None)?;
        let xml = XmlCall::new(&qwen3_coder::DIALECT, limits.max_depth);
        let either = FirstByte::new(automaton, xml, |b| b == b'<', Lead::First);
        return Ok((markers, Automaton::JsonOrXml(either)));
    }
    json_reading(start, Boundary::None, automaton)
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let name = json_string(name);
    format!("<tool_call>\n{{\"name\": {name}, \"arguments\": {args}}}\n</tool_call>")
}
