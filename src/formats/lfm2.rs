//! `lfm2`: Liquid AI's LFM2 and LFM2.5 write a Python list of calls
//! between two special tokens,
//! `<|tool_call_start|>[get_weather(city="Paris"), get_time()]<|tool_call_end|>`,
//! read as `pythonic` reads Llama 4's list; a missing end token is
//! recovered with a diagnostic.

use super::*;
use crate::protocol::literal_call::LiteralCall;
use crate::scan::literal::Syntax;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "lfm2",
    aliases: &["lfm2.5", "liquid"],
    summary: r#"<|tool_call_start|>[f(city="Paris", days=3), g()]<|tool_call_end|>"#,
    fuzz_id: 22,
    delimiters: ("<|tool_call_start|>", "<|tool_call_end|>"),
    reader,
    template: "List of tools: <|tool_list_start|>[{tools}]<|tool_list_end|>

To call tools, write them as a Python list between <|tool_call_start|> and <|tool_call_end|>:
<|tool_call_start|>[func_name1(params_name1=params_value1, params_name2=params_value2), func_name2(params)]<|tool_call_end|>",
    tool_entry: plain_tool,
    tools_separator: ", ",
    render_call: super::pythonic::render_call,
    call_block: CallBlock::new("<|tool_call_start|>[", ", ", "]<|tool_call_end|>"),
    render_result,
    families: &[Family::new("LFM2", &["lfm2", "lfm-2"], Think::No)],
    ..FormatSpec::DEFAULT
};

const END: &[&[u8]] = &[SPEC.delimiters.1.as_bytes()];

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    no_delimiters(delimiters)?;
    let automaton = LiteralCall::new(Syntax::Python, limits.max_depth)
        .ending_lists_with(END)
        .repairing_quotes();
    Ok((markers(&[SPEC.delimiters.0]), Automaton::Literal(automaton)))
}

/// A result as LFM2's template writes a tool turn.
fn render_result(_name: &str, result: &serde_json::Value, _call: CallRef<'_>) -> String {
    format!(
        "<|tool_response_start|>{}<|tool_response_end|>",
        value_text(result)
    )
}
