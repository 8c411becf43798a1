//! A `<tool_call>` block of an XML format that holds hermes-style JSON is
//! read exactly as the `hermes` format reads it: the same events for the
//! same bytes (valid calls, parallel calls, Python dicts, unknown tools,
//! broken JSON, a markdown fence around the JSON, a stream that ends inside
//! a block), at any chunking.

mod common;

use common::{check_contract, proptest_cases, run_chunked, run_cuts, run_whole};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolsieve::contract::python_repr;
use toolsieve::{Format, Parser, Tool};

fn tools() -> Vec<Tool> {
    vec![Tool::new("get_weather"), Tool::new("get_time")]
}

fn arguments() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z '\"\\\\\né世]{0,8}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            proptest::collection::vec(("[a-z]{1,4}", inner), 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    });
    proptest::collection::vec(("[a-z_]{1,6}", value), 0..3)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>()))
}

/// One call object's text, in one of the ways models write it.
fn call_text() -> impl Strategy<Value = String> {
    let name = prop_oneof![Just("get_weather"), Just("get_time"), Just("launch")];
    (name, arguments(), 0u8..4).prop_map(|(name, args, style)| match style {
        0 => json!({"name": name, "arguments": args}).to_string(),
        1 => format!(r#"{{"arguments": {args}, "name": "{name}"}}"#),
        2 => format!("{{'name': '{name}', 'arguments': {}}}", python_repr(&args)),
        _ => serde_json::to_string_pretty(&json!({"name": name, "arguments": args})).unwrap(),
    })
}

#[derive(Debug, Clone)]
enum Piece {
    Prose(String),
    /// A block of calls; `cut` shortens its body (broken JSON) when set.
    Block {
        calls: Vec<String>,
        array: bool,
        cut: Option<usize>,
        closed: bool,
        /// Wrapped in a markdown fence (```` ```json ````).
        fenced: bool,
    },
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        "[a-z .,\n]{0,16}|a < b|<b>x</b>".prop_map(Piece::Prose),
        (
            proptest::collection::vec(call_text(), 1..3),
            any::<bool>(),
            proptest::option::weighted(0.2, 1usize..200),
            proptest::bool::weighted(0.9),
            proptest::bool::weighted(0.2),
        )
            .prop_map(|(calls, array, cut, closed, fenced)| Piece::Block {
                calls,
                array,
                cut,
                closed,
                fenced,
            }),
    ]
}

fn render(pieces: &[Piece], start: &str, end: &str) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Prose(text) => out.push_str(text),
            Piece::Block {
                calls,
                array,
                cut,
                closed,
                fenced,
            } => {
                let mut body = if *array {
                    format!("[{}]", calls.join(", "))
                } else {
                    calls.join("\n")
                };
                if let Some(cut) = cut {
                    // Keep the opening bracket: the block must still be JSON.
                    let mut at = (*cut).clamp(1, body.len());
                    while !body.is_char_boundary(at) {
                        at -= 1;
                    }
                    body.truncate(at);
                }
                if *fenced {
                    body = format!("```json\n{body}\n```");
                }
                out.push_str(&format!("{start}\n{body}\n"));
                if *closed {
                    out.push_str(end);
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(proptest_cases(256))]

    #[test]
    fn json_blocks_read_as_hermes_reads_them(
        pieces in proptest::collection::vec(piece(), 1..5),
        size in 1usize..16,
        cuts in proptest::collection::vec(0usize..600, 0..6),
    ) {
        for (format, start, end) in [
            (Format::Qwen3Coder, "<tool_call>", "</tool_call>"),
            (Format::Glm, "<tool_call>", "</tool_call>"),
            (Format::MiniMaxM2, "<minimax:tool_call>", "</minimax:tool_call>"),
            (Format::SeedOss, "<seed:tool_call>", "</seed:tool_call>"),
            (Format::KimiK3, "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"),
        ] {
            let text = render(&pieces, start, end);
            let input = text.as_bytes();
            let mut hermes = Parser::builder(Format::Hermes)
                .tools(tools())
                .delimiters(start, end)
                .build()
                .unwrap();
            let mut xml = Parser::builder(format).tools(tools()).build().unwrap();
            let want = run_whole(&mut hermes, input);
            let got = run_whole(&mut xml, input);
            prop_assert_eq!(&got, &want, "{} on {:?}", format, text);
            check_contract(input, &got, true);
            prop_assert_eq!(&run_chunked(&mut xml, input, size), &want, "{} in chunks of {}", format, size);
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
            cuts.sort_unstable();
            prop_assert_eq!(&run_cuts(&mut xml, input, &cuts), &want, "{} cut at {:?}", format, cuts);
        }
    }
}
