//! A value may hold its format's own tags as text (code and docs about tool
//! calling): an element, a stray function close or end marker followed by
//! text, a whole call. A tag only counts when what follows it is
//! structural, so such values come back as written, at any chunking.

mod common;

use common::*;
use proptest::prelude::*;
use serde_json::json;
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

/// The tags of `format` that a value may hold as text, each to be
/// followed by a word.
fn tag_texts(format: Format) -> Vec<String> {
    let call = format_tool_call(format, "get_weather", &json!({"city": "Paris", "days": 2}));
    let (param, func_close, end) = match format {
        Format::Qwen3Coder => (
            "<parameter=city>Paris</parameter>",
            "</function>",
            "</tool_call>",
        ),
        Format::SeedOss => (
            "<parameter=city>Paris</parameter>",
            "</function>",
            "</seed:tool_call>",
        ),
        Format::MiniMaxM2 => (
            "<parameter name=\"city\">Paris</parameter>",
            "</invoke>",
            "</minimax:tool_call>",
        ),
        Format::Glm => (
            "<arg_key>city</arg_key><arg_value>Paris</arg_value>",
            "</arg_value>",
            "</tool_call>",
        ),
        Format::KimiK3 => (
            "<|open|>argument key=\"city\" type=\"string\"<|sep|>Paris<|close|>argument<|sep|>",
            "<|close|>call<|sep|>",
            "<|close|>tools<|sep|>",
        ),
        _ => (
            "<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>",
            "</｜DSML｜invoke>",
            "</｜DSML｜function_calls>",
        ),
    };
    let start = format.default_delimiters().0;
    let open = match format {
        Format::Qwen3Coder | Format::SeedOss => "f\"<function={name}>\"",
        Format::MiniMaxM2 => "'<invoke name=\"' + name + '\">'",
        Format::Glm => "s.find(\"<tool_call>\")",
        Format::KimiK3 => "f'<|open|>call tool=\"{name}\"<|sep|>'",
        _ => "\"<｜DSML｜invoke name=\\\"{name}\\\">\"",
    };
    vec![
        call,
        param.into(),
        func_close.into(),
        end.into(),
        start.into(),
        format!("{param}\n{func_close}"),
        // Code that names an open tag, and opens nothing.
        open.into(),
    ]
}

/// Value text: words, and tags each followed by a word.
fn content(format: Format) -> impl Strategy<Value = String> {
    let tags = tag_texts(format);
    let piece = prop_oneof![
        2 => "[a-zA-Z]{1,8}",
        1 => (prop::sample::select(tags), "[ \n]", "[a-zA-Z]{1,8}")
            .prop_map(|(tag, sep, word)| format!("{tag}{sep}{word}")),
    ];
    prop::collection::vec(piece, 1..6).prop_map(|pieces| pieces.join(" "))
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new("write_file").with_parameters(json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}}})),
        Tool::new("get_weather"),
    ]
}

proptest! {
    #![proptest_config(proptest_cases(200))]

    #[test]
    fn values_holding_tags_come_back_as_written(
        (format, text, cuts) in prop::sample::select(XML.to_vec())
            .prop_flat_map(|f| (Just(f), content(f), prop::collection::vec(0..2000usize, 0..6)))
    ) {
        let args = json!({"path": "docs/tools.md", "content": text});
        let input = format!("Writing.\n{}\nDone.", format_tool_call(format, "write_file", &args));
        let mut parser = Parser::builder(format).tools(tools()).build().unwrap();
        let whole = run_whole(&mut parser, input.as_bytes());
        check_contract(input.as_bytes(), &whole, true);
        let calls: Vec<(String, serde_json::Value)> = whole.iter().filter_map(|e| match e {
            Event::ToolCall { tool_name, input, .. } => Some((tool_name.to_string(), serde_json::from_str(input).unwrap())),
            _ => None,
        }).collect();
        prop_assert_eq!(calls, vec![("write_file".to_string(), args)], "{}", input);
        prop_assert!(!whole.iter().any(|e| matches!(e, Event::Diagnostic(_))), "{:?}", whole);
        prop_assert_eq!(&run_cuts(&mut parser, input.as_bytes(), &cuts), &whole);
        prop_assert_eq!(&run_chunked(&mut parser, input.as_bytes(), 1), &whole);
    }
}

/// The special tokens of the token formats, as prose may mention them.
fn tokens(format: Format) -> Vec<&'static str> {
    match format {
        Format::KimiK2 => vec![
            "<|tool_calls_section_begin|>",
            "<|tool_call_begin|>",
            "<|tool_call_argument_begin|>",
            "<|tool_call_end|>",
            "<|tool_calls_section_end|>",
        ],
        _ => vec![
            "<｜tool▁calls▁begin｜>",
            "<｜tool▁call▁begin｜>",
            "<｜tool▁sep｜>",
            "<｜tool▁call▁end｜>",
            "<｜tool▁calls▁end｜>",
        ],
    }
}

proptest! {
    #![proptest_config(proptest_cases(200))]

    /// A token written in prose (a call-begin token before the real
    /// section, say) never hides the call that follows on its own line.
    #[test]
    fn tokens_in_prose_do_not_hide_the_next_call(
        (format, prose) in prop::sample::select(vec![Format::KimiK2, Format::DeepSeek, Format::DeepSeekV3])
            .prop_flat_map(|f| {
                let piece = prop_oneof![
                    2 => "[a-zA-Z .]{1,12}",
                    1 => prop::sample::select(tokens(f)).prop_map(str::to_owned),
                ];
                (Just(f), prop::collection::vec(piece, 1..5).prop_map(|p| p.concat()))
            }),
    ) {
        let args = json!({"city": "Paris"});
        let input = format!("{prose}\n{}", format_tool_call(format, "get_weather", &args));
        let mut parser = Parser::builder(format).tools(tools()).build().unwrap();
        let events = run_whole(&mut parser, input.as_bytes());
        check_contract(input.as_bytes(), &events, true);
        let calls: Vec<serde_json::Value> = events.iter().filter_map(|e| match e {
            Event::ToolCall { input, .. } => Some(serde_json::from_str(input).unwrap()),
            _ => None,
        }).collect();
        prop_assert_eq!(calls.last(), Some(&args), "{}", input);
        // The call's section begin token is markup, never text.
        let text: String = events.iter().filter_map(|e| match e {
            Event::TextDelta { delta, .. } => Some(delta.as_ref()),
            _ => None,
        }).collect();
        let section = format!("\n{}", tokens(format)[0]);
        prop_assert!(!text.contains(&section), "{:?} from {}", text, input);
        prop_assert_eq!(&run_chunked(&mut parser, input.as_bytes(), 1), &events);
    }
}

proptest! {
    #![proptest_config(proptest_cases(200))]

    /// morph-xml: a string parameter keeps its markup verbatim, and the
    /// entity references in it are decoded (`&lt;` is `<` in the file the
    /// tool writes).
    #[test]
    fn morph_string_values_keep_markup_and_decode_entities(
        pieces in prop::collection::vec(prop_oneof![
            // Text as the model escapes it, and what it means.
            "[a-z <>&\"'=;]{1,10}".prop_map(|t| {
                let escaped = t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
                (escaped, t)
            }),
            // Markup, kept as written.
            "[a-z]{1,6}".prop_map(|w| (format!("<b>{w}</b>"), format!("<b>{w}</b>"))),
            Just(("<br/>".to_string(), "<br/>".to_string())),
            Just(("&#x263A;&#65;".to_string(), "☺A".to_string())),
        ], 1..6),
    ) {
        let raw: String = pieces.iter().map(|(raw, _)| raw.as_str()).collect();
        let want: String = pieces.iter().map(|(_, meant)| meant.as_str()).collect();
        let input = format!("<write_file>\n<path>a.html</path>\n<content>{raw}</content>\n</write_file>");
        let mut parser = Parser::builder(Format::MorphXml).tools(tools()).build().unwrap();
        let events = run_whole(&mut parser, input.as_bytes());
        check_contract(input.as_bytes(), &events, true);
        let calls: Vec<serde_json::Value> = events.iter().filter_map(|e| match e {
            Event::ToolCall { input, .. } => Some(serde_json::from_str(input).unwrap()),
            _ => None,
        }).collect();
        prop_assert_eq!(calls, vec![json!({"path": "a.html", "content": want})], "{}", input);
        prop_assert_eq!(&run_chunked(&mut parser, input.as_bytes(), 3), &events);
    }
}
