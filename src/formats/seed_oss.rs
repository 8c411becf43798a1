//! `seed-oss`: ByteDance's Seed-OSS:
//! `<seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></seed:tool_call>`,
//! one call a block, Qwen3-Coder's elements in a block of its own. The
//! block's tag is one token of the model's, which it does not leave out:
//! a `<function=…>` outside a block is text (and prose is searched for one
//! marker prefix, `<seed:`, in one pass). The model reasons between
//! `<seed:think>` and `</seed:think>`, and may reflect on its thinking
//! budget inside (`<seed:cot_budget_reflect>`), which stays reasoning.

use serde_json::Value;

use super::*;

static TAGS: Tags = super::qwen3_coder::function_tags(b"</seed:tool_call>");

/// Calls in `<seed:tool_call>` blocks.
const DIALECT: Dialect = Dialect {
    block: Opening::block("<seed:tool_call>", &TAGS),
    others: &[],
};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "seed-oss",
    aliases: &["seedoss"],
    summary: "<seed:tool_call>\\n<function=f>\\n<parameter=k>v</parameter>\\n</function>\\n</seed:tool_call>",
    fuzz_id: 19,
    delimiters: ("<seed:tool_call>", "</seed:tool_call>"),
    reader,
    // The model writes its own reasoning tags, which nothing else uses:
    // read by default, as gpt-oss's analysis channel.
    reasoning: Some(("<seed:think>", "</seed:think>")),
    template: "You may call one or more functions to assist with the user query.
{tools}

工具调用请遵循如下格式:
<seed:tool_call>
<function=example_function_name>
<parameter=example_parameter_1>value_1</parameter>
<parameter=example_parameter_2>This is the value for the second parameter
that can span
multiple lines</parameter>
</function>
</seed:tool_call>",
    tool_entry,
    tools_separator: "",
    render_call,
    render_result,
    families: &[Family::new(
        "Seed-OSS",
        &["seed-oss", "seedoss"],
        Think::Tagged("<seed:think>", "</seed:think>"),
    )],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    xml_reading(&DIALECT, delimiters, limits)
}

/// A parameter's type as the model's template names it.
fn py_type(schema: &Value) -> &'static str {
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => "str",
        Some("number" | "integer") => "int",
        Some("boolean") => "bool",
        Some("array") => "list",
        _ => "Any",
    }
}

/// A tool as the template documents it: a Python signature and docstring,
/// each parameter marked required (`[必填]`) or optional (`[选填]`).
fn tool_entry(tool: &Tool) -> String {
    let params = properties(tool);
    let signature: Vec<String> = params
        .iter()
        .map(|(name, schema)| format!("{name}: {}", py_type(schema)))
        .collect();
    let mut f = format!(
        "\n\nFunction:\ndef {}({}):\n    \"\"\"\n    {}\n",
        tool.name,
        signature.join(","),
        tool.description.trim()
    );
    if !params.is_empty() {
        f.push_str("\n    Args:");
        let req = required(tool);
        for (name, schema) in &params {
            let mark = match req.contains(&name.as_str()) {
                true => "[必填]",
                false => "[选填]",
            };
            let about = schema.get("description").and_then(Value::as_str);
            f.push_str(&format!(
                "\n\n    - {name} ({}) {mark}: {}",
                py_type(schema),
                about.unwrap_or_default()
            ));
        }
        f.push('\n');
    }
    f.push_str("\n    \"\"\"");
    f
}

/// One call in its own block, as the template writes an assistant's calls:
/// values inline, padded only where the parser strips a newline.
fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    super::qwen3_coder::function_in_block(SPEC.delimiters, name, args, false)
}

/// A result in the template's tool turn.
fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!("<seed:bos>tool\n{}<seed:eos>", value_text(result))
}
