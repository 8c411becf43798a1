//! `cohere`: Cohere's Command R7B and Command A. Calls are a JSON list
//! between `<|START_ACTION|>` and `<|END_ACTION|>`, each
//! `{"tool_call_id": …, "tool_name": …, "parameters": {…}}`; the answer
//! stands between `<|START_RESPONSE|>` and `<|END_RESPONSE|>` (Command A
//! Plus and Command 4: `<|START_TEXT|>` and `<|END_TEXT|>`), which are
//! markup; reasoning between `<|START_THINKING|>` and `<|END_THINKING|>`.
//! The model's `tool_call_id` becomes the call's `model_call_id`.

use serde_json::Value;

use super::*;
use crate::protocol::markup::WithMarkup;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "cohere",
    aliases: &["command-r", "command-a", "command-r7b", "command"],
    summary: r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {...}}]<|END_ACTION|>"#,
    fuzz_id: 15,
    delimiters: ("<|START_ACTION|>", "<|END_ACTION|>"),
    reader,
    // Command A Reasoning: on by default, as harmony's analysis channel.
    reasoning: Some(("<|START_THINKING|>", "<|END_THINKING|>")),
    template: "## Available Tools
Here is a list of tools that you have available to you:

```json
[
{tools}
]
```

To call tools, write a JSON list of the calls between <|START_ACTION|> and <|END_ACTION|>, each with an id, the tool's name and its parameters:
<|START_ACTION|>[
    {\"tool_call_id\": \"0\", \"tool_name\": \"tool_name\", \"parameters\": {\"arg\": \"value\"}}
]<|END_ACTION|>
Write your answer to the user between <|START_RESPONSE|> and <|END_RESPONSE|>.",
    tool_entry: plain_tool,
    tools_separator: ",\n",
    render_call,
    call_block: CallBlock::new("<|START_ACTION|>[\n    ", ",\n    ", "\n]<|END_ACTION|>"),
    render_result,
    families: &[
        Family::new("Command-R/A", &["command-r", "command-a", "c4ai-command"], Think::Tagged("<|START_THINKING|>", "<|END_THINKING|>")),
    ],
    ..FormatSpec::DEFAULT
};

/// The markup around the answer: Command R7B's and A's, then Command A
/// Plus's and Command 4's.
const RESPONSE: [&str; 4] = [
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
];

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    no_delimiters(delimiters)?;
    let (start, end) = SPEC.delimiters;
    let automaton = JsonCall::new(end.as_bytes(), limits.max_depth);
    let markers = markers(&[start, RESPONSE[0], RESPONSE[1], RESPONSE[2], RESPONSE[3]]);
    let automaton = WithMarkup::new(Automaton::Json(automaton), 1..usize::MAX);
    Ok((markers, Automaton::WithMarkup(Box::new(automaton))))
}

fn render_call(name: &str, args: &Value, call: CallRef<'_>) -> String {
    let name = json_string(name);
    let id = call.index;
    format!(
        "{{\"tool_call_id\": \"{id}\", \"tool_name\": {name}, \"parameters\": {args}}}"
    )
}

/// A result as Command's template writes a tool turn.
fn render_result(_name: &str, result: &Value, call: CallRef<'_>) -> String {
    let id = call.index;
    format!(
        "<|START_TOOL_RESULT|>[\n    {{\"tool_call_id\": \"{id}\", \"results\": {{\"0\": {}}}, \"is_error\": null}}\n]<|END_TOOL_RESULT|>",
        serde_json::to_string(result).unwrap_or_default()
    )
}
