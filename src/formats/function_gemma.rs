//! `function-gemma`: FunctionGemma (Gemma 3 270M tuned for calling),
//! `<start_function_call>call:NAME{key:<escape>text<escape>,n:3}<end_function_call>`:
//! Gemma 4's braces with `<escape>` tokens around strings, one call per
//! block, several blocks in a row for parallel calls. The arguments
//! become JSON as Gemma 4's do (bare numbers, booleans, nesting).

use serde_json::Value;

use super::gemma4::gemma_value;
use super::*;
use crate::scan::literal::{Syntax, FUNCTION_GEMMA};

const QUOTE: &str = "<escape>";

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "function-gemma",
    aliases: &["functiongemma"],
    summary: "<start_function_call>call:f{city:<escape>Paris<escape>,days:3}<end_function_call>",
    fuzz_id: 21,
    delimiters: ("<start_function_call>", "<end_function_call>"),
    reader,
    template: "You are a model that can do function calling with the following functions{tools}

To call a function, write <start_function_call>call:, its name and its arguments in braces, with strings between <escape> tokens, then <end_function_call>:
<start_function_call>call:function_name{arg:<escape>value<escape>,count:3}<end_function_call>",
    tool_entry: declaration,
    tools_separator: "",
    render_call,
    render_result,
    families: &[
        // Before Gemma 3, whose ids it contains.
        Family::new("FunctionGemma", &["functiongemma", "function-gemma"], Think::No).fine_tune(),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    literal_reading(
        Syntax::Gemma(&FUNCTION_GEMMA),
        SPEC.delimiters.0,
        delimiters,
        limits,
    )
}

/// A tool as FunctionGemma's template declares it.
fn declaration(tool: &Tool) -> String {
    let mut fields = serde_json::Map::new();
    if !tool.description.is_empty() {
        fields.insert("description".into(), Value::from(tool.description.as_str()));
    }
    fields.insert("parameters".into(), tool.parameters.clone());
    format!(
        "<start_function_declaration>declaration:{}{}<end_function_declaration>",
        tool.name,
        gemma_value(&Value::Object(fields), QUOTE)
    )
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<start_function_call>call:{name}{}<end_function_call>",
        gemma_value(args, QUOTE)
    )
}

/// A result as FunctionGemma's template writes a function response.
fn render_result(name: &str, result: &Value, _call: CallRef<'_>) -> String {
    let result = match result {
        Value::Object(_) => result.clone(),
        other => serde_json::json!({ "result": other }),
    };
    format!(
        "<start_function_response>response:{name}{}<end_function_response>",
        gemma_value(&result, QUOTE)
    )
}
