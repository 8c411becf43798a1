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
    render_result,
    families: &[
        Family::new("Kimi-K2 Thinking", &["kimi-k2-thinking"], Think::Tags),
        Family::new("Kimi-K2", &["kimi-k2", "kimi-k2.5"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    token_reading(&RULES, delimiters, limits)
}

fn render_call(name: &str, args: &Value) -> String {
    format!(
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"
    )
}

fn render_result(name: &str, result: &Value) -> String {
    format!("## Return of functions.{name}:0\n{}", value_text(result))
}
