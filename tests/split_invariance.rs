//! Property tests of the contract on generated streams: split invariance at
//! random chunkings, 1-byte chunks and mid-UTF-8 cuts; streaming = one-shot;
//! nothing lost; deltas = input; rendered calls parse back to themselves.

mod common;

use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use toolsieve::{Event, Format, Parser};

/// Pieces a model (or an attacker) might write.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-zA-Z0-9 .,!?\n]{0,40}".prop_map(String::into_bytes),
        2 => "[<>/`{}\"\\\\: a-z_]{0,24}".prop_map(String::into_bytes),
        2 => "(é|世界|👋🏽|e\u{301}|🇫🇷| ){1,6}".prop_map(String::into_bytes),
        1 => prop::sample::select(vec![
            "<tool_call>", "</tool_call>", "<tool_", "```tool_call\n", "```", "```json\n",
            "<tool_callback>", "{\"name\": ", "\"arguments\": ", "}", "\n", "\r\n",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..8),
        3 => call().prop_map(|(f, name, args)| render(f, &name, &args).into_bytes()),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|n| json!(n)),
        "[ -~é世😀<>/`\"\\\\\n\t]{0,16}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Value> {
    prop::collection::btree_map("[a-z_]{1,8}", json_value(), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

fn call() -> impl Strategy<Value = (Format, String, Value)> {
    (
        prop::sample::select(vec![Format::Hermes, Format::Gemma]),
        "[a-z_][a-z0-9_]{0,12}",
        arguments(),
    )
}

fn render(format: Format, name: &str, args: &Value) -> String {
    let body = json!({"name": name, "arguments": args}).to_string();
    match format {
        Format::Gemma => format!("```tool_call\n{body}\n```"),
        _ => format!("<tool_call>\n{body}\n</tool_call>"),
    }
}

fn stream() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(fragment(), 0..12).prop_map(|v| v.concat())
}

fn cuts(len: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=len, 0..16).prop_map(|mut v| {
        v.sort_unstable();
        v
    })
}

fn stream_and_cuts() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    stream().prop_flat_map(|s| {
        let len = s.len();
        (Just(s), cuts(len))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_chunkings_match_one_shot((input, cuts) in stream_and_cuts()) {
        for format in [Format::Hermes, Format::Gemma] {
            let mut parser = Parser::new(format);
            let whole = run_whole(&mut parser, &input);
            check_contract(&input, &whole, true);
            let split = run_cuts(&mut parser, &input, &cuts);
            prop_assert_eq!(&split, &whole);
        }
    }

    #[test]
    fn one_byte_chunks_match_one_shot(input in stream()) {
        for format in [Format::Hermes, Format::Gemma] {
            let mut parser = Parser::new(format);
            let whole = run_whole(&mut parser, &input);
            let bytes = run_chunked(&mut parser, &input, 1);
            prop_assert_eq!(bytes, whole);
        }
    }

    #[test]
    fn every_split_point_of_short_streams(input in prop::collection::vec(fragment(), 0..4).prop_map(|v| v.concat())) {
        let mut parser = Parser::new(Format::Hermes);
        let whole = run_whole(&mut parser, &input);
        for cut in 0..=input.len() {
            prop_assert_eq!(&run_cuts(&mut parser, &input, &[cut]), &whole, "cut {}", cut);
        }
    }

    #[test]
    fn rendered_calls_parse_back((format, name, args) in call(), before in "[a-z .\n]{0,20}", after in "[a-z .\n]{0,20}") {
        let input = format!("{before}{}{after}", render(format, &name, &args));
        let mut parser = Parser::new(format);
        for size in [1, 3, input.len().max(1)] {
            let events = run_chunked(&mut parser, input.as_bytes(), size);
            check_contract(input.as_bytes(), &events, true);
            // The input is the model's own bytes: exactly what was rendered.
            let calls: Vec<(String, String)> = events.iter().filter_map(|e| match e {
                Event::ToolCall { tool_name, input, .. } => Some((tool_name.to_string(), input.to_string())),
                _ => None,
            }).collect();
            prop_assert_eq!(calls, vec![(name.clone(), args.to_string())]);
            let text: String = events.iter().filter_map(|e| match e {
                Event::TextDelta { delta, .. } => Some(delta.to_string()),
                _ => None,
            }).collect();
            prop_assert_eq!(text, format!("{before}{after}"));
        }
    }
}

#[test]
fn every_cut_inside_multibyte_characters() {
    let input =
        "é世😀 <tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"é世😀\"}}</tool_call> 👋🏽é"
            .as_bytes();
    let mut parser = Parser::new(Format::Hermes);
    let whole = run_whole(&mut parser, input);
    for a in 0..input.len() {
        for b in a..input.len() {
            assert_eq!(run_cuts(&mut parser, input, &[a, b]), whole, "cuts {a} {b}");
        }
    }
}
