//! `kimi-k2`: Kimi-K2,
//! `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`.

use serde_json::Value;

use super::*;

/// `functions.NAME:0` between the call's begin token and the arguments.
const RULES: Rules = Rules::new(
    Tokens {
        section_begin: "<|tool_calls_section_begin|>",
        section_end: "<|tool_calls_section_end|>",
        call_begin: "<|tool_call_begin|>",
        sep: "<|tool_call_argument_begin|>",
        call_end: "<|tool_call_end|>",
    },
    NameRule::Namespaced,
);

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "kimi-k2",
    aliases: &["kimik2", "kimi"],
    summary: "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{...}<|tool_call_end|><|tool_calls_section_end|>",
    fuzz_id: 7,
    delimiters: section(&RULES),
    reader,
    template: "# Tools

You may call one or more tools to assist with the user query. The tools, in JSONSchema format:
{tools}

To call tools, write one section that holds each call, numbered from 0:
<|tool_calls_section_begin|><|tool_call_begin|>functions.tool_name:0<|tool_call_argument_begin|>{\"arg\": \"value\"}<|tool_call_end|><|tool_calls_section_end|>",
    tool_entry: openai_tool,
    tools_separator: "\n",
    render_call,
    call_block: CallBlock::new("<|tool_calls_section_begin|>", "", "<|tool_calls_section_end|>"),
    render_result,
    families: &[
        // Their templates open `<think>` in the prompt (K2.5 and K2.6 with
        // thinking on, their default), and the model may go from thinking
        // straight to its calls.
        Family::new("Kimi-K2 Thinking", &["kimi-k2-thinking"], Think::OpenUntilCalls),
        Family::new("Kimi-K2.5", &["kimi-k2.5", "kimi-k2.6", "kimi-k2-5", "kimi-k2-6"], Think::OpenUntilCalls).switched(Think::OpenUntilCalls),
        Family::new("Kimi-K2", &["kimi-k2"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    token_reading(&RULES, delimiters, limits)
}

fn render_call(name: &str, args: &Value, call: CallRef<'_>) -> String {
    let id = call_id(name, call);
    format!(
        "<|tool_call_begin|>{id}<|tool_call_argument_begin|>{args}<|tool_call_end|>"
    )
}

fn render_result(name: &str, result: &Value, call: CallRef<'_>) -> String {
    format!("## Return of {}\n{}", call_id(name, call), value_text(result))
}

/// The call's id as Kimi-K2 writes it, `functions.NAME:N`: the history's
/// own when it is one (the model's, handed back), else numbered by the
/// call's place in its turn.
fn call_id(name: &str, call: CallRef<'_>) -> String {
    let own = call
        .id
        .strip_prefix("functions.")
        .and_then(|rest| rest.strip_prefix(name))
        .and_then(|rest| rest.strip_prefix(':'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    match own {
        true => call.id.to_owned(),
        false => format!("functions.{name}:{}", call.index),
    }
}
