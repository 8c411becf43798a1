//! `deepseek-v3.2`: DeepSeek-V3.2's DSML,
//! `<｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="KEY" string="true">VALUE</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`;
//! `string="false"` marks a JSON value. Also DeepSeek-V4's `tool_calls`
//! block, V4.1's spaced tags, an `invoke` without its block, and DSML whose
//! `｜DSML｜` tokens a server dropped.

use serde_json::Value;

use super::*;

static DSML: Tags = Tags {
    end: "</｜DSML｜function_calls>".as_bytes(),
    func_open: Some(Pat::Open("<｜DSML｜invoke name=".as_bytes())),
    func_close: Some("</｜DSML｜invoke>".as_bytes()),
    param_open: Pat::Open("<｜DSML｜parameter name=".as_bytes()),
    param_close: "</｜DSML｜parameter>".as_bytes(),
    escaped_breaks: false,
    padded: true,
    typing: Typing::StringAttr,
    untyped: Untyped::Text,
};

/// DeepSeek-V4's block is `tool_calls`.
static DSML_V4: Tags = Tags {
    end: "</｜DSML｜tool_calls>".as_bytes(),
    ..DSML
};

/// DeepSeek-V4.1's is `calls`, with a space after the DSML token in every
/// tag.
static DSML_V4_1: Tags = Tags {
    end: "</｜DSML｜ calls>".as_bytes(),
    func_open: Some(Pat::Open("<｜DSML｜ invoke name=".as_bytes())),
    func_close: Some("</｜DSML｜ invoke>".as_bytes()),
    param_open: Pat::Open("<｜DSML｜ parameter name=".as_bytes()),
    param_close: "</｜DSML｜ parameter>".as_bytes(),
    ..DSML
};

/// DSML with its `｜DSML｜` tokens gone, as a server that drops special
/// tokens passes it on.
static DSML_STRIPPED: Tags = Tags {
    end: b"</function_calls>",
    func_open: Some(Pat::Open(b"<invoke name=")),
    func_close: Some(b"</invoke>"),
    param_open: Pat::Open(b"<parameter name="),
    param_close: b"</parameter>",
    ..DSML
};

/// DeepSeek-V3.2's DSML block, V4's and V4.1's, an `invoke` without its
/// block, and the block with its special tokens dropped.
const DIALECT: Dialect = Dialect {
    block: Opening::block("<｜DSML｜function_calls>", &DSML),
    others: &[
        Opening::block("<｜DSML｜tool_calls>", &DSML_V4),
        Opening::block("<｜DSML｜ calls>", &DSML_V4_1),
        Opening::bare_call("<｜DSML｜invoke name=", &DSML),
        Opening::bare_call("<｜DSML｜ invoke name=", &DSML_V4_1),
        Opening::block("<function_calls>", &DSML_STRIPPED),
    ],
};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "deepseek-v3.2",
    aliases: &["deepseekv32", "deepseek-v32", "dsml", "deepseek-v4", "deepseekv4"],
    summary: r#"<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"#,
    fuzz_id: 8,
    delimiters: ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
    reader,
    template: "## Tools

You have access to a set of tools you can use to answer the user's question.
You can invoke functions by writing a \"<｜DSML｜function_calls>\" block like the following as part of your reply to the user:
<｜DSML｜function_calls>
<｜DSML｜invoke name=\"$FUNCTION_NAME\">
<｜DSML｜parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE</｜DSML｜parameter>
...
</｜DSML｜invoke>
</｜DSML｜function_calls>

String and scalar parameters should be specified as is, without escaping or quotes, while lists and objects should use JSON format. The \"string\" attribute should be \"true\" for string parameters and \"false\" for all others (numbers, booleans, arrays, objects).

Here are the functions available in JSONSchema format:
<functions>
{tools}
</functions>",
    tool_entry: openai_tool,
    tools_separator: "\n",
    render_call,
    call_block: CallBlock::new("<｜DSML｜function_calls>\n", "", "</｜DSML｜function_calls>"),
    render_result,
    families: &[
        Family::new("DeepSeek-V3.2", &["deepseek-v3.2", "deepseek-v3-2", "deepseek-v32", "deepseek-v4"], Think::Tags).switched(Think::Open),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    xml_reading(&DIALECT, delimiters, limits)
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let mut out = format!("<｜DSML｜invoke name=\"{name}\">\n");
    for (k, v) in members(args) {
        out.push_str(&format!(
            "<｜DSML｜parameter name=\"{k}\" string=\"{}\">{}</｜DSML｜parameter>\n",
            v.is_string(),
            padded(&value_text(v), false)
        ));
    }
    out.push_str("</｜DSML｜invoke>\n");
    out
}

fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<function_results>\n<result>{}</result>\n</function_results>",
        value_text(result)
    )
}
