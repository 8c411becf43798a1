//! `deepseek-v3.1` (alias `deepseek`): DeepSeek-V3.1 and later,
//! `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
//! the V3 / R1 layout (`function<｜tool▁sep｜>NAME` and a ```` ```json ````
//! fence) is read too.

use serde_json::Value;

use super::*;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "deepseek-v3.1",
    aliases: &["deepseek", "deepseekv31", "deepseek-v31"],
    summary: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{...}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    fuzz_id: 6,
    delimiters: section(&deepseek_v3::RULES),
    reader,
    template: "## Tools
You have access to the following tools:

{tools}

IMPORTANT: ALWAYS adhere to this exact format for tool use:
<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_call_name<｜tool▁sep｜>tool_call_arguments<｜tool▁call▁end｜>{additional_tool_calls}<｜tool▁calls▁end｜>

Where:
- `tool_call_name` must be an exact match to one of the available tools
- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema
- For multiple tool calls, chain them directly without separators or spaces",
    tool_entry: super::deepseek_v3::tool_entry,
    tools_separator: "\n\n",
    render_call,
    call_block: CallBlock::new("<｜tool▁calls▁begin｜>", "", "<｜tool▁calls▁end｜>"),
    render_result: super::deepseek_v3::render_result,
    families: &[
        Family::new("DeepSeek-V3.1", &["deepseek-v3.1", "deepseek-v3-1", "deepseek-v31"], Think::Tags).switched(Think::Open),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    token_reading(&deepseek_v3::RULES, delimiters, limits)
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    // `function` names DeepSeek-V3's layout, where the name follows.
    if name == "function" {
        return super::deepseek_v3::render_call(name, args, _call);
    }
    format!(
        "<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜>"
    )
}
