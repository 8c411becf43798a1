//! Qwen3-Coder served with a hermes parser writes its XML calls inside the
//! same `<tool_call>` blocks. `hermes` reads a block whose first
//! non-whitespace byte is `<` exactly as `qwen3-coder` reads it: the same
//! events for the same bytes (typed parameters, several functions, unknown
//! tools, missing closing tags, a stream that ends inside a block), next to
//! JSON blocks, at any chunking.

mod common;

use common::{check_contract, proptest_cases, run_chunked, run_cuts, run_whole};
use proptest::prelude::*;
use serde_json::json;
use toolsieve::{Format, Parser, Tool};

fn tools() -> Vec<Tool> {
    vec![
        Tool::new("get_weather").with_parameters(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        })),
        Tool::new("get_time"),
    ]
}

/// A parameter's key and raw value, as Qwen3-Coder writes them.
fn parameter() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        "[a-zA-Z <>&é世\n{}'\"]{0,12}".prop_map(|v| ("city".to_owned(), v)),
        "-?[0-9]{1,4}|x1".prop_map(|v| ("days".to_owned(), v)),
        Just(("tags".to_owned(), r#"["a", "b"]"#.to_owned())),
        "[a-z]{1,5}".prop_map(|v| ("other".to_owned(), v)),
    ]
}

/// One `<function=…>` element.
fn function() -> impl Strategy<Value = String> {
    let name = prop_oneof![Just("get_weather"), Just("get_time"), Just("launch")];
    (
        name,
        proptest::collection::vec((parameter(), any::<bool>()), 0..3),
    )
        .prop_map(|(name, params)| {
            let mut out = format!("<function={name}>\n");
            for ((key, value), closed) in params {
                out.push_str(&format!("<parameter={key}>\n{value}\n"));
                if closed {
                    out.push_str("</parameter>\n");
                }
            }
            out.push_str("</function>");
            out
        })
}

#[derive(Debug, Clone)]
enum Piece {
    Prose(String),
    /// A block of XML functions (or of a JSON call, for contrast); `cut`
    /// shortens it when set.
    Block {
        body: String,
        cut: Option<usize>,
        closed: bool,
    },
}

fn piece() -> impl Strategy<Value = Piece> {
    let body = prop_oneof![
        3 => proptest::collection::vec(function(), 1..3).prop_map(|f| f.join("\n")),
        1 => Just(r#"{"name": "get_time", "arguments": {}}"#.to_owned()),
    ];
    prop_oneof![
        "[a-z .,\n]{0,16}|a < b|<b>x</b>".prop_map(Piece::Prose),
        (
            body,
            proptest::option::weighted(0.2, 1usize..120),
            proptest::bool::weighted(0.9),
        )
            .prop_map(|(body, cut, closed)| Piece::Block { body, cut, closed }),
    ]
}

fn render(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Prose(text) => out.push_str(text),
            Piece::Block { body, cut, closed } => {
                let mut body = body.clone();
                if let Some(cut) = cut {
                    let mut at = (*cut).clamp(1, body.len());
                    while !body.is_char_boundary(at) {
                        at -= 1;
                    }
                    body.truncate(at);
                }
                out.push_str(&format!("<tool_call>\n{body}\n"));
                if *closed {
                    out.push_str("</tool_call>");
                }
            }
        }
    }
    out
}

/// `qwen3-coder` also starts a call at a bare `<function=`; `hermes` does
/// not. Where `hermes` gives such a tag back as text (a failed call), the
/// two read on differently.
fn text_has_function_tag(events: &[toolsieve::Event<'_>]) -> bool {
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            toolsieve::Event::TextDelta { delta, .. } => Some(delta.as_ref()),
            _ => None,
        })
        .collect();
    text.contains("<function=")
}

proptest! {
    #![proptest_config(proptest_cases(256))]

    #[test]
    fn xml_blocks_read_as_qwen3_coder_reads_them(
        pieces in proptest::collection::vec(piece(), 1..5),
        size in 1usize..16,
        cuts in proptest::collection::vec(0usize..600, 0..6),
    ) {
        let text = render(&pieces);
        let input = text.as_bytes();
        let mut hermes = Parser::builder(Format::Hermes).tools(tools()).build().unwrap();
        let mut qwen = Parser::builder(Format::Qwen3Coder).tools(tools()).build().unwrap();
        let got = run_whole(&mut hermes, input);
        check_contract(input, &got, true);
        let want = if text_has_function_tag(&got) {
            got.clone()
        } else {
            run_whole(&mut qwen, input)
        };
        prop_assert_eq!(&got, &want, "on {:?}", text);
        prop_assert_eq!(&run_chunked(&mut hermes, input, size), &want, "in chunks of {}", size);
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
        cuts.sort_unstable();
        prop_assert_eq!(&run_cuts(&mut hermes, input, &cuts), &want, "cut at {:?}", cuts);
    }
}

/// With other delimiters, a block that begins with `<` is not a call.
#[test]
fn other_delimiters_read_no_xml() {
    let input = b"<call>\n<function=get_time>\n</function>\n</call> ok";
    let mut parser = Parser::builder(Format::Hermes)
        .tools(tools())
        .delimiters("<call>", "</call>")
        .build()
        .unwrap();
    let events = run_whole(&mut parser, input);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, toolsieve::Event::ToolCall { .. })),
        "{events:?}"
    );
    check_contract(input, &events, true);
}
