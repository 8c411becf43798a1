//! `gemma4`: Gemma 4,
//! `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3,flag:true,xs:[…],o:{…}}<tool_call|>`:
//! bare keys, strings between `<|"|>` tokens, bare numbers, booleans and
//! null, nesting; the arguments become JSON. Its thinking stands between
//! `<|channel>thought` and `<channel|>` (special tokens: on by default).

use serde_json::Value;

use super::*;
use crate::scan::literal::Syntax;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "gemma4",
    aliases: &["gemma-4"],
    summary: r#"<|tool_call>call:f{city:<|"|>Paris<|"|>,days:3}<tool_call|>"#,
    fuzz_id: 18,
    delimiters: ("<|tool_call>", "<tool_call|>"),
    reader,
    reasoning: Some(("<|channel>thought", "<channel|>")),
    template: "You can call the following tools, described in JSON Schema:
{tools}

To call a tool, write <|tool_call>call:, its name and its arguments in braces, with strings between <|\"|> tokens, then <tool_call|>:
<|tool_call>call:tool_name{arg:<|\"|>value<|\"|>,count:3}<tool_call|>",
    tool_entry: plain_tool,
    tools_separator: "\n",
    render_call,
    render_result,
    families: &[
        Family::new("Gemma 4", &["gemma-4", "gemma4"], Think::Tagged("<|channel>thought", "<channel|>")).switched(Think::Tagged("<|channel>thought", "<channel|>")),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    literal_reading(Syntax::Gemma(&crate::scan::literal::GEMMA4), SPEC.delimiters.0, delimiters, limits)
}

/// A JSON value in Gemma 4's syntax.
fn gemma(v: &Value) -> String {
    gemma_value(v, "<|\"|>")
}

/// A JSON value in Gemma's syntax, its strings between `quote` tokens
/// (FunctionGemma's `<escape>`).
pub(crate) fn gemma_value(v: &Value, quote: &str) -> String {
    match v {
        Value::String(s) => format!("{quote}{s}{quote}"),
        Value::Array(xs) => {
            let items: Vec<_> = xs.iter().map(|x| gemma_value(x, quote)).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(map) => {
            let members: Vec<_> = map
                .iter()
                .map(|(k, v)| format!("{}:{}", gemma_key(k, quote), gemma_value(v, quote)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        other => other.to_string(),
    }
}

/// A key bare when it is a word, else quoted.
fn gemma_key(k: &str, quote: &str) -> String {
    let bare = !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if bare {
        k.to_owned()
    } else {
        format!("{quote}{k}{quote}")
    }
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    format!("<|tool_call>call:{name}{}<tool_call|>", gemma(args))
}

/// A result as Gemma 4's template writes a tool response.
fn render_result(name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<|tool_response>response:{name}{}<tool_response|>",
        gemma(result)
    )
}
