//! `harmony`: OpenAI's gpt-oss. The output is a run of messages, each a
//! header, `<|message|>` and its content: `<|channel|>analysis<|message|>…<|end|>`
//! is reasoning (the format's own reasoning tags, on by default);
//! `<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`
//! is a call (the recipient may stand in the `<|start|>` header instead);
//! `<|start|>assistant<|channel|>final<|message|>…` and commentary without
//! a recipient are text. Headers, `<|end|>`, `<|return|>` and `<|call|>`
//! are markup. The first message of a turn goes on from the prompt's
//! `<|start|>assistant`, so an output that opens ` to=functions.NAME…` is
//! a call; so is `<|channel|>analysis to=functions.NAME<|message|>…`
//! (gpt-oss calls tools from the analysis channel too).

use serde_json::Value;

use super::*;
use crate::protocol::markup::WithMarkup;

// Every field is set; the spread is there so that a field added to
// `FormatSpec` takes its default here too.
#[allow(clippy::needless_update)]
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "harmony",
    aliases: &["gpt-oss", "openai"],
    summary: "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{...}<|call|>; analysis → reasoning, final → text",
    fuzz_id: 16,
    delimiters: ("<|channel|>commentary", "<|call|>"),
    reader,
    // The prompt ends with `<|start|>assistant`: an output may go on with
    // the header (` to=functions.NAME<|channel|>commentary json<|message|>…`).
    bare_calls_at_start: true,
    reasoning: Some(("<|channel|>analysis<|message|>", "<|end|>")),
    template: "# Tools

## functions

namespace functions {

{tools}

} // namespace functions

To call a function, write a message on the commentary channel addressed to it, with its arguments as JSON:
<|start|>assistant<|channel|>commentary to=functions.tool_name <|constrain|>json<|message|>{\"arg\": \"value\"}<|call|>",
    tool_entry,
    tools_separator: "\n\n",
    render_call,
    render_result,
    families: &[
        Family::new("gpt-oss", &["gpt-oss"], Think::Tagged("<|channel|>analysis<|message|>", "<|end|>")),
    ],
    ..FormatSpec::DEFAULT
};

/// The message headers that may name a recipient, then the markup that
/// ends messages, then a call from the analysis channel (marker
/// [`ANALYSIS_TO_MARKER`]).
const MARKERS: [&str; 7] = [
    "<|start|>",
    "<|channel|>commentary",
    "<|channel|>final",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|channel|>analysis to=",
];

/// The marker `<|channel|>analysis to=` (the last): a call from the
/// analysis channel, its recipient after the channel's name.
const ANALYSIS_TO_MARKER: usize = MARKERS.len() - 1;

/// A message's header ends with `<|message|>`; a call's message with
/// `<|call|>` (or `<|end|>`); the next message starts with `<|start|>`.
/// Each call is a message whose header names its recipient.
const RULES: Rules = Rules {
    headers: true,
    addressed_marker: Some(ANALYSIS_TO_MARKER),
    ..Rules::new(
        Tokens {
            section_begin: "<|start|>",
            section_end: "<|end|>",
            call_begin: "<|start|>",
            sep: "<|message|>",
            call_end: "<|call|>",
        },
        NameRule::Recipient,
    )
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    no_delimiters(delimiters)?;
    let automaton = Automaton::Token(TokenCall::new(&RULES, limits.max_depth));
    Ok((
        markers(&MARKERS),
        Automaton::WithMarkup(Box::new(WithMarkup::new(automaton, 3..ANALYSIS_TO_MARKER))),
    ))
}

/// A tool as gpt-oss's template declares it: a TypeScript-like signature
/// after its description (here with the JSON Schema of its parameters).
fn tool_entry(tool: &Tool) -> String {
    format!(
        "// {}\ntype {} = (_: {}) => any;",
        tool.description.replace('\n', "\n// "),
        tool.name,
        tool.parameters
    )
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    format!("<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{args}<|call|>")
}

/// A result as gpt-oss's template writes the tool's message.
fn render_result(name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<|start|>functions.{name} to=assistant<|channel|>commentary<|message|>{}<|end|>",
        serde_json::to_string(result).unwrap_or_default()
    )
}
