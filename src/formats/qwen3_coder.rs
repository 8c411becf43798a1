//! `qwen3-coder`: Qwen3-Coder (and Qwen3.5):
//! `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>`,
//! or the `<function=…>` element alone.

use serde_json::{json, Value};

use super::*;

static TAGS: Tags = function_tags(b"</tool_call>");

/// Qwen3-Coder's elements in a block that `end` closes (its own, or
/// Seed-OSS's).
pub(super) const fn function_tags(end: &'static [u8]) -> Tags {
    Tags {
        end,
        func_open: Some(Pat::Open(b"<function=")),
        func_close: Some(b"</function>"),
        param_open: Pat::Open(b"<parameter="),
        param_close: b"</parameter>",
        escaped_breaks: false,
        padded: true,
        typing: Typing::Schema,
        untyped: Untyped::Text,
    }
}

/// Calls in `<tool_call>` blocks, or a bare `<function=` without one.
pub(crate) const DIALECT: Dialect = Dialect {
    block: Opening::block("<tool_call>", &TAGS),
    others: &[Opening::bare_call("<function=", &TAGS)],
};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "qwen3-coder",
    // vLLM reads StepFun's Step-3.5 (and 3.7) and Step-5 with Qwen3-Coder's
    // grammar, under their own names.
    aliases: &["qwen3-xml", "qwen3coder", "step3p5", "step5"],
    summary: "<tool_call>\\n<function=f>\\n<parameter=k>\\nv\\n</parameter>\\n</function>\\n</tool_call>",
    fuzz_id: 2,
    delimiters: ("<tool_call>", "</tool_call>"),
    reader,
    template: "# Tools

You have access to the following functions:

<tools>
{tools}
</tools>

If you choose to call a function ONLY reply in the following format with NO suffix:

<tool_call>
<function=example_function_name>
<parameter=example_parameter_1>
value_1
</parameter>
<parameter=example_parameter_2>
This is the value for the second parameter
that can span
multiple lines
</parameter>
</function>
</tool_call>

<IMPORTANT>
Reminder:
- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags
- Required parameters MUST be specified
- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after
- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls
</IMPORTANT>",
    tool_entry,
    tools_separator: "\n",
    render_call,
    render_result: tool_response,
    families: &[
        Family::new("Qwen3-Coder", &["qwen3-coder", "qwen3coder"], Think::No),
        Family::new("Qwen3.5", &["qwen3.5", "qwen3.6", "qwen3-5", "qwen35"], Think::Open).switched(Think::Open),
        // The template always opens `<think>`, with no switch.
        Family::new("Step-3.5/3.7", &["step-3.5", "step-3.7", "step3.5", "step3.7", "step3p5"], Think::Open),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    xml_reading(&DIALECT, delimiters, limits)
}

fn tool_entry(tool: &Tool) -> String {
    let mut f = format!("<function>\n<name>{}</name>\n", tool.name);
    if !tool.description.is_empty() {
        f.push_str(&format!(
            "<description>{}</description>\n",
            tool.description
        ));
    }
    f.push_str("<parameters>\n");
    for (name, schema) in properties(tool) {
        f.push_str(&format!(
            "<parameter>\n<name>{name}</name>\n<type>{}</type>\n",
            describe(schema)
        ));
        if let Some(d) = schema.get("description").and_then(Value::as_str) {
            f.push_str(&format!("<description>{d}</description>\n"));
        }
        f.push_str("</parameter>\n");
    }
    let req = required(tool);
    if !req.is_empty() {
        f.push_str(&format!("<required>{}</required>\n", json!(req)));
    }
    f.push_str("</parameters>\n</function>");
    f
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    function_in_block(("<tool_call>", "</tool_call>"), name, args, true)
}

/// A call as Qwen3-Coder's elements in the block `(begin, end)` (its own,
/// or Seed-OSS's), each value padded with the newlines the parser strips
/// (`always`), or only where it begins or ends with one.
pub(super) fn function_in_block(
    (begin, end): (&str, &str),
    name: &str,
    args: &Value,
    always: bool,
) -> String {
    let mut out = format!("{begin}\n<function={name}>\n");
    for (k, v) in members(args) {
        out.push_str(&format!(
            "<parameter={k}>{}</parameter>\n",
            padded(&value_text(v), always)
        ));
    }
    out.push_str("</function>\n");
    out.push_str(end);
    out
}
