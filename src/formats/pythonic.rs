//! `pythonic`: a Python list of calls, `[get_weather(city="Paris"),
//! get_time()]`, as the whole output (Llama 3.2 and 4, ToolACE) or after
//! Llama 4's `<|python_start|>` (closed by `<|python_end|>`); Olmo 3's
//! calls one per line between `<function_calls>` and `</function_calls>`.
//! Values are Python literals, turned into JSON. A bracketed list at the
//! start that is not a call list is prose. With a tool list, a list that
//! opens with a known tool's name and `(` is read anywhere in the text
//! (Llama writes a sentence, then the list); brackets with other names
//! stay prose.

use serde_json::Value;

use super::*;
use crate::protocol::literal_call::{LiteralCall, FUNCTION_CALLS};
use crate::scan::literal::Syntax;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "pythonic",
    aliases: &["llama4-pythonic", "olmo3", "toolace"],
    summary: r#"[f(city="Paris", days=3), g()] as the output, or after <|python_start|>"#,
    fuzz_id: 17,
    delimiters: ("<|python_start|>", "<|python_end|>"),
    reader,
    bare_calls_at_start: true,
    template: "Here is a list of functions in JSON format that you can invoke:
{tools}

If you decide to invoke any of the function(s), you MUST put it in the format of
[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]
You SHOULD NOT include any other text in the response if you call a function.",
    tool_entry: plain_tool,
    tools_separator: "\n",
    render_call,
    call_block: CallBlock::new("<|python_start|>[", ", ", "]<|python_end|>"),
    render_result,
    families: &[
        Family::new("ToolACE", &["toolace"], Think::No).fine_tune(),
        Family::new("Llama 4", &["llama-4", "llama4"], Think::No),
        Family::new("Llama 3.2", &["llama-3.2", "llama3.2"], Think::No),
        // Olmo 3's Think models reason in `<think>` tags, the first one
        // opened by the template or written by the model.
        Family::new("Olmo 3 Think", &["olmo-3-7b-think", "olmo-3-32b-think", "olmo-3.1-32b-think", "olmo3-7b-think", "olmo3-32b-think"], Think::Open),
        Family::new("Olmo 3", &["olmo-3", "olmo3"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, tools: &[Tool], limits: &Limits) -> Reading {
    no_delimiters(delimiters)?;
    let mut names: Vec<String> = Vec::with_capacity(tools.len());
    for tool in tools {
        if !tool.name.is_empty() && !names.contains(&tool.name) {
            names.push(tool.name.clone());
        }
    }
    let mut all = markers(&[SPEC.delimiters.0, FUNCTION_CALLS.0]);
    all.extend(names.iter().map(|name| Marker {
        bytes: Cow::Owned(format!("[{name}(").into_bytes()),
        boundary: Boundary::None,
    }));
    let automaton = LiteralCall::new(Syntax::Python, limits.max_depth).knowing(names);
    Ok((all, Automaton::Literal(automaton)))
}

/// A JSON value as a Python literal.
pub(crate) fn python(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        // JSON's escapes are Python's, but for `\/` (never written by
        // serde_json).
        Value::String(s) => json_string(s),
        Value::Array(xs) => format!("[{}]", xs.iter().map(python).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", json_string(k), python(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Between Llama 4's tokens: a bare list is read only at the start of
/// the output, and a call in history may follow text.
pub(crate) fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    let members: Vec<String> = members(args)
        .into_iter()
        .map(|(k, v)| format!("{k}={}", python(v)))
        .collect();
    format!("{name}({})", members.join(", "))
}

/// A result as Llama's template writes an `ipython` turn.
fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<|start_header_id|>ipython<|end_header_id|>\n\n{}<|eot_id|>",
        value_text(result)
    )
}
