//! Line breaks and `<` in the XML formats' string values. One line break
//! right after the open tag and one right before the close are stripped,
//! every other one is the value's own: a break at the end of a chunk may
//! be the stripped one, so it is held back until what follows shows which
//! it is. A `<` is text unless a tag may begin with it. At any chunking
//! the value comes back the same, and as the rules say.

mod common;

use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use toolsieve::middleware::format_tool_call;
use toolsieve::{Event, Format, Parser, Tool};

const XML: [Format; 6] = [
    Format::Qwen3Coder,
    Format::MiniMaxM2,
    Format::Glm,
    Format::DeepSeekDsml,
    Format::SeedOss,
    Format::KimiK3,
];

/// Value text as written between the tags: text, line breaks of every
/// kind, characters a JSON string escapes, `<` that begins no tag and
/// `<` that may.
fn raw_value() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a",
        "fn main() {",
        "  ",
        "\n",
        "\r\n",
        "\r",
        "\n\n",
        "é",
        "世界",
        "\"q\"",
        "\\",
        "\t",
        "a < b",
        "<b>",
        "x\n",
    ]);
    prop::collection::vec(piece, 0..10).prop_map(|pieces| pieces.concat())
}

/// `raw` as the value it writes: one line break stripped after the open
/// tag and one before the close, where the format pads values so
/// (Kimi-K3's values are every byte between the tags).
fn stripped(format: Format, raw: &str) -> &str {
    if format == Format::KimiK3 {
        return raw;
    }
    let raw = raw
        .strip_prefix("\r\n")
        .or_else(|| raw.strip_prefix('\n'))
        .unwrap_or(raw);
    raw.strip_suffix("\r\n")
        .or_else(|| raw.strip_suffix('\n'))
        .unwrap_or(raw)
}

/// A `write_file` call of `format` whose `content` is `raw` as it stands
/// between the tags.
fn call_with_raw_value(format: Format, raw: &str) -> String {
    let placeholder = "@@VALUE@@";
    let call = format_tool_call(format, "write_file", &json!({"content": placeholder}));
    match call.find(&format!("\n{placeholder}\n")) {
        Some(at) => format!(
            "{}{raw}{}",
            &call[..at],
            &call[at + placeholder.len() + 2..]
        ),
        None => call.replace(placeholder, raw),
    }
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new("write_file").with_parameters(json!({"type": "object", "properties": {
        "content": {"type": "string"}}})),
    ]
}

proptest! {
    #![proptest_config(proptest_cases(200))]

    #[test]
    fn values_keep_all_but_the_stripped_line_breaks(
        format in prop::sample::select(XML.to_vec()),
        raw in raw_value(),
        cuts in prop::collection::vec(0..400usize, 0..8),
    ) {
        let input = format!("Writing.\n{}\nDone.", call_with_raw_value(format, &raw));
        let mut parser = Parser::builder(format).tools(tools()).build().unwrap();
        let whole = run_whole(&mut parser, input.as_bytes());
        check_contract(input.as_bytes(), &whole, true);
        let contents: Vec<Value> = whole.iter().filter_map(|e| match e {
            Event::ToolCall { input, .. } => serde_json::from_str::<Value>(input).ok(),
            _ => None,
        }).collect();
        prop_assert_eq!(contents, vec![json!({"content": stripped(format, &raw)})], "{:?}", input);
        prop_assert_eq!(&run_cuts(&mut parser, input.as_bytes(), &cuts), &whole);
        for size in 1..=5 {
            prop_assert_eq!(&run_chunked(&mut parser, input.as_bytes(), size), &whole, "{}", size);
        }
    }
}

/// Chunks of 1 to 6 bytes at every alignment give `whole`.
fn assert_every_alignment(parser: &mut Parser, input: &str, whole: &Events, format: Format) {
    for size in 1..=6 {
        for first in 1..=size {
            let cuts: Vec<usize> = (first..input.len()).step_by(size).collect();
            assert_eq!(
                &run_cuts(parser, input.as_bytes(), &cuts),
                whole,
                "{format:?}, chunks of {size} from {first}"
            );
        }
    }
}

/// Token-sized chunks at every alignment, over a value whose line breaks
/// fall at chunk ends, inside chunks and across them (`\r` | `\n`), with
/// `<` before text, before a tag's second byte and at a chunk's end: each
/// token takes the steady path or the automaton's, and both agree.
#[test]
fn token_chunks_at_every_alignment() {
    let raw = "\nfn main() {\r\n    a < b;\n\n\"x\"\r}\n<p>Vec<u8> x<=y</p>\r\n\n";
    for format in XML {
        let input = format!("Go.\n{}\nDone.", call_with_raw_value(format, raw));
        let mut parser = Parser::builder(format).tools(tools()).build().unwrap();
        let whole = run_whole(&mut parser, input.as_bytes());
        let calls = tool_calls(&whole);
        assert_eq!(calls.len(), 1, "{format:?}: {whole:?}");
        let args: Value = serde_json::from_str(&calls[0].1).unwrap();
        assert_eq!(
            args,
            json!({"content": stripped(format, raw)}),
            "{format:?}"
        );
        assert_every_alignment(&mut parser, &input, &whole, format);
    }
}

/// Values typed by the schema are held whole until their close, which
/// waits and completes on the steady path as a string value's does: every
/// alignment of token-sized chunks gives the one-shot calls.
#[test]
fn typed_values_at_every_alignment() {
    let tool = Tool::new("set").with_parameters(json!({"type": "object", "properties": {
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "on": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "unit": {"type": "string", "enum": ["metric", "imperial"]},
    }}));
    let args =
        json!({"count": 42, "ratio": -0.5, "on": true, "tags": ["a<b", "c"], "unit": "metric"});
    for format in XML {
        let input = format!(
            "Set.\n{}\n{}\nDone.",
            format_tool_call(format, "set", &args),
            format_tool_call(format, "set", &json!({"count": 7, "on": false}))
        );
        let mut parser = Parser::builder(format)
            .tools(vec![tool.clone()])
            .build()
            .unwrap();
        let whole = run_whole(&mut parser, input.as_bytes());
        let calls: Vec<Value> = tool_calls(&whole)
            .iter()
            .map(|(_, input)| serde_json::from_str(input).unwrap())
            .collect();
        assert_eq!(
            calls,
            vec![args.clone(), json!({"count": 7, "on": false})],
            "{format:?}"
        );
        assert_every_alignment(&mut parser, &input, &whole, format);
    }
}
