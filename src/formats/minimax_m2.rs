//! `minimax-m2`: MiniMax-M2:
//! `<minimax:tool_call><invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke></minimax:tool_call>`,
//! several invokes per block.

use serde_json::Value;

use super::*;

static TAGS: Tags = Tags {
    end: b"</minimax:tool_call>",
    func_open: Some(Pat::Open(b"<invoke name=")),
    func_close: Some(b"</invoke>"),
    param_open: Pat::Open(b"<parameter name="),
    param_close: b"</parameter>",
    escaped_breaks: false,
    padded: true,
    typing: Typing::Schema,
    untyped: Untyped::Text,
};

const DIALECT: Dialect = Dialect {
    block: Opening::block("<minimax:tool_call>", &TAGS),
    others: &[],
};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "minimax-m2",
    aliases: &["minimaxm2"],
    summary: r#"<minimax:tool_call>\n<invoke name="f">\n<parameter name="k">v</parameter>\n</invoke>\n</minimax:tool_call>"#,
    fuzz_id: 3,
    delimiters: ("<minimax:tool_call>", "</minimax:tool_call>"),
    reader,
    template: "# Tools
You may call one or more tools to assist with the user query.
Here are the tools available in JSONSchema format:

<tools>
{tools}
</tools>

When making tool calls, use XML format to invoke tools and pass parameters:

<minimax:tool_call>
<invoke name=\"tool-name-1\">
<parameter name=\"param-key-1\">param-value-1</parameter>
<parameter name=\"param-key-2\">param-value-2</parameter>
</invoke>
</minimax:tool_call>",
    tool_entry,
    tools_separator: "\n",
    render_call,
    call_block: CallBlock::new("<minimax:tool_call>\n", "", "</minimax:tool_call>"),
    render_result,
    families: &[
        // The template opens `<think>` in the prompt on every turn.
        Family::new("MiniMax-M2", &["minimax-m2"], Think::Open),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    xml_reading(&DIALECT, delimiters, limits)
}

fn tool_entry(tool: &Tool) -> String {
    format!("<tool>{}</tool>", plain_tool(tool))
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let mut out = format!("<invoke name=\"{name}\">\n");
    for (k, v) in members(args) {
        out.push_str(&format!(
            "<parameter name=\"{k}\">{}</parameter>\n",
            padded(&value_text(v), false)
        ));
    }
    out.push_str("</invoke>\n");
    out
}

fn render_result(name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<tool_response name=\"{name}\">\n{}\n</tool_response>",
        value_text(result)
    )
}
