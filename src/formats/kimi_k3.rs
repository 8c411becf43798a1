//! `kimi-k3`: Kimi-K3's XTML, a `tools` channel of `call` elements whose
//! tags end at `<|sep|>`:
//! `<|open|>tools<|sep|><|open|>call tool="NAME" index="1"<|sep|><|open|>argument key="KEY" type="string"<|sep|>VALUE<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`.
//!
//! An argument's `type` other than `"string"` marks a JSON value where the
//! tool's schema does not type it. The answer stands in a `response`
//! channel, whose tags are markup, as is the message's close; the model
//! reasons in a `think` channel, read by default. Attributes may hold a
//! `<` or `>` (`tool="a<b"`): only `<|sep|>` ends a tag. A value is every
//! byte between its tags: unlike Qwen3-Coder's, no line break at its ends
//! is layout.

use serde_json::Value;

use super::*;
use crate::protocol::markup::WithMarkup;

static TAGS: Tags = Tags {
    end: b"<|close|>tools<|sep|>",
    func_open: Some(Pat::OpenSep(b"<|open|>call tool=")),
    func_close: Some(b"<|close|>call<|sep|>"),
    param_open: Pat::OpenSep(b"<|open|>argument key="),
    param_close: b"<|close|>argument<|sep|>",
    escaped_breaks: false,
    padded: false,
    typing: Typing::TypeAttr,
    untyped: Untyped::Text,
};

/// The tags as a detokenizer that spaces special tokens apart writes them
/// (vLLM's, unless both `skip_special_tokens` and
/// `spaces_between_special_tokens` are off): `<|open|> call tool="f" <|sep|>`.
static SPACED_TAGS: Tags = Tags {
    end: b"<|close|> tools <|sep|>",
    func_open: Some(Pat::OpenSep(b"<|open|> call tool=")),
    func_close: Some(b"<|close|> call <|sep|>"),
    param_open: Pat::OpenSep(b"<|open|> argument key="),
    param_close: b"<|close|> argument <|sep|>",
    ..TAGS
};

/// Calls in the `tools` channel, its tags written as the model writes
/// them or spaced apart.
const DIALECT: Dialect = Dialect {
    block: Opening::block("<|open|>tools<|sep|>", &TAGS),
    others: &[Opening::block("<|open|> tools <|sep|>", &SPACED_TAGS)],
};

/// The channel tags around the answer, and the message's close, as the
/// model writes them and spaced apart: markup.
const MARKUP: [&str; 6] = [
    "<|open|>response<|sep|>",
    "<|close|>response<|sep|>",
    "<|close|>message<|sep|>",
    "<|open|> response <|sep|>",
    "<|close|> response <|sep|>",
    "<|close|> message <|sep|>",
];

/// The reasoning channel.
const THINK: (&str, &str) = ("<|open|>think<|sep|>", "<|close|>think<|sep|>");

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "kimi-k3",
    aliases: &["kimik3", "xtml"],
    summary: r#"<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="k" type="string"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"#,
    fuzz_id: 20,
    delimiters: ("<|open|>tools<|sep|>", "<|close|>tools<|sep|>"),
    reader,
    // Its own channel tags, which nothing else uses: read by default.
    reasoning: Some(THINK),
    template: "# Tools

You may call one or more tools to assist with the user query. The tools, in JSONSchema format:
{tools}

To call tools, close the channel you are in and write one tools channel that holds each call, numbered from 1. Each argument names its type (string, number, boolean, object, array or null); write a string as it is, without quotes or escapes, and any other value as JSON:
<|open|>tools<|sep|><|open|>call tool=\"tool_name\" index=\"1\"<|sep|><|open|>argument key=\"arg\" type=\"string\"<|sep|>value<|close|>argument<|sep|><|open|>argument key=\"count\" type=\"number\"<|sep|>3<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
    tool_entry: openai_tool,
    tools_separator: "\n",
    render_call,
    call_block: CallBlock::new("<|open|>tools<|sep|>", "", "<|close|>tools<|sep|>"),
    families: &[
        // The template leaves the think channel open with thinking on (its
        // default), the response channel with it off.
        Family::new("Kimi-K3", &["kimi-k3", "kimik3"], Think::TaggedOpen(THINK.0, THINK.1))
            .switched(Think::TaggedOpen(THINK.0, THINK.1)),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    let (mut markers, automaton) = xml_reading(&DIALECT, delimiters, limits)?;
    let calls = markers.len();
    markers.extend(super::markers(&MARKUP));
    let automaton = WithMarkup::new(automaton, calls..usize::MAX);
    Ok((markers, Automaton::WithMarkup(Box::new(automaton))))
}

/// One call as the model writes it: each argument typed by its value, a
/// string as it is (line breaks at its ends are its own), anything else as
/// compact JSON.
fn render_call(name: &str, args: &Value, call: CallRef<'_>) -> String {
    let mut out = format!(
        "<|open|>call tool=\"{}\" index=\"{}\"<|sep|>",
        escape_attr(name),
        call.index + 1
    );
    for (key, value) in members(args) {
        let kind = match value {
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            Value::Object(_) => "object",
            Value::Array(_) => "array",
            Value::Null => "null",
        };
        out.push_str(&format!(
            "<|open|>argument key=\"{}\" type=\"{kind}\"<|sep|>{}<|close|>argument<|sep|>",
            escape_attr(key),
            value_text(value)
        ));
    }
    out.push_str("<|close|>call<|sep|>");
    out
}

/// An attribute's value as the template escapes it.
fn escape_attr(value: &str) -> String {
    value.replace('&', "&amp;").replace('"', "&quot;")
}
