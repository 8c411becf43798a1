//! `glm`: GLM-4.5 / 4.6 / 4.7:
//! `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call>`
//! (GLM-4.7 without the newlines).

use serde_json::Value;

use super::*;

/// No function tags (the name comes first), keys and values apart.
static TAGS: Tags = Tags {
    end: b"</tool_call>",
    func_open: None,
    func_close: None,
    param_open: Pat::Lit(b"<arg_key>"),
    param_close: b"</arg_value>",
    escaped_breaks: true,
    padded: true,
    typing: Typing::Schema,
    untyped: Untyped::JsonIfAny,
};

const DIALECT: Dialect = Dialect {
    block: Opening::block("<tool_call>", &TAGS),
    others: &[],
};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "glm",
    aliases: &["glm45", "glm-4.5", "glm47", "glm-4.7", "glm4-moe"],
    summary: "<tool_call>f\\n<arg_key>k</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call>",
    fuzz_id: 4,
    delimiters: ("<tool_call>", "</tool_call>"),
    reader,
    template: "# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{tools}
</tools>

For each function call, output the function name and arguments within the following XML format:
<tool_call>{function-name}
<arg_key>{arg-key-1}</arg_key>
<arg_value>{arg-value-1}</arg_value>
<arg_key>{arg-key-2}</arg_key>
<arg_value>{arg-value-2}</arg_value>
</tool_call>",
    tool_entry: plain_tool,
    tools_separator: "\n",
    render_call,
    render_result: tool_response,
    families: &[
        // GLM-4.7's and GLM-5's templates open `<think>` in the prompt
        // (thinking on, their default); GLM-4.5's and 4.6's leave it to
        // the model.
        Family::new("GLM-4.7/5", &["glm-4.7", "glm4.7", "glm-5", "glm5"], Think::Open).switched(Think::Open),
        Family::new("GLM-4.5/4.6", &["glm-4.5", "glm-4.6", "glm4.5", "glm4.6"], Think::Tags).switched(Think::Tags),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    xml_reading(&DIALECT, delimiters, limits)
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let mut out = format!("<tool_call>{name}\n");
    for (k, v) in members(args) {
        out.push_str(&format!(
            "<arg_key>{k}</arg_key>\n<arg_value>{}</arg_value>\n",
            padded(&value_text(v), false)
        ));
    }
    out.push_str("</tool_call>");
    out
}
