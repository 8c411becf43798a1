//! Property tests of the contract on generated streams, for every format:
//! split invariance at random chunkings, 1-byte chunks and mid-UTF-8 cuts;
//! streaming = one-shot; nothing lost; deltas = input; rendered calls parse
//! back to themselves.

mod common;

use common::*;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolsieve::contract::{parser_for, sample_tools, Setup};
use toolsieve::middleware::format_tool_call;
use toolsieve::{Event, Format, Parser, Tool};

/// Pieces a model (or an attacker) might write.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-zA-Z0-9 .,!?\n]{0,40}".prop_map(String::into_bytes),
        2 => "[<>/`{}\\[\\];,\"\\\\:= a-z_]{0,24}".prop_map(String::into_bytes),
        2 => "(é|世界|👋🏽|e\u{301}|🇫🇷| ){1,6}".prop_map(String::into_bytes),
        2 => prop::sample::select(vec![
            "<tool_call>", "</tool_call>", "<tool_", "```tool_call\n", "```", "```json\n",
            "<tool_callback>", "{\"name\": ", "\"arguments\": ", "}", "\n", "\r\n",
            "{\"a\": [1, ", ", ", ",\n}", ", ]", "1}",
            "<function=get_weather>", "<parameter=city>", "</parameter>", "</function>",
            "<minimax:tool_call>", "<invoke name=\"get_time\">", "</invoke>", "</minimax:tool_call>",
            "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "\\n", "\\",
            "<invoke name=\"get_time\" type=\"x\">",
            "<get_weather>", "</get_weather>", "<city>", "</city>", "<get_time/>", "<search>",
            "<|python_tag|>", "; ", "[{",
            "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>",
            "<｜tool▁calls▁end｜>", "<｜tool▁", "function<｜tool▁sep｜>get_time\n```json\n", "```",
            "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "functions.get_time:0",
            "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<|tool_calls_section_end|>", "<|tool_",
            "<think>", "</think>", "<think>\n", "\n</think>\n\n", "<thi", "</thin", "<thinking>",
            // Literal strings: quotes, escapes and Gemma 4's quote, whole and cut.
            "[get_weather(city='", "', days=2)]", "'", "''", "\"\"\"", "\\x4", "\\u00e9", "\\'",
            "<|tool_call>call:get_weather{city:", "<|\"|>", "<|\"", "}<tool_call|>",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..8),
        3 => (prop::sample::select(Format::ALL.to_vec()), known_call())
            .prop_map(|(f, (name, args))| format_tool_call(f, &name, &args).into_bytes()),
        // A call's JSON without markers, as Llama 3 writes it.
        1 => known_call().prop_map(|(name, args)| {
            json!({"name": name, "parameters": args}).to_string().into_bytes()
        }),
    ]
}

/// Every format's parser, alone and with `<think>` reasoning; the JSON
/// formats' with `bare_call_at_start`; and a few with reasoning that
/// starts open, holds calls or ends at them.
fn setups() -> Vec<Setup> {
    let setup = |format, bare_call_at_start, think| Setup {
        format,
        bare_call_at_start,
        think,
        think_ends_at_calls: false,
    };
    let ended_by_calls = |format| Setup {
        think_ends_at_calls: true,
        ..setup(format, false, Some((true, false)))
    };
    let plain = Format::ALL.iter().map(|&f| setup(f, false, None));
    let think = Format::ALL
        .iter()
        .map(|&f| setup(f, false, Some((false, false))));
    let bare = [Format::Hermes, Format::Gemma].map(|f| setup(f, true, None));
    let open = [
        setup(Format::Hermes, false, Some((true, false))),
        setup(Format::Qwen3Coder, false, Some((true, true))),
        setup(Format::DeepSeek, false, Some((false, true))),
        setup(Format::Gemma, true, Some((true, true))),
        ended_by_calls(Format::KimiK2),
        ended_by_calls(Format::Qwen3Coder),
        ended_by_calls(Format::Hermes),
    ];
    plain.chain(think).chain(bare).chain(open).collect()
}

/// A call to one of the sample tools, with arguments that fit its schema.
fn known_call() -> impl Strategy<Value = (String, Value)> {
    prop_oneof![
        ("[A-Za-z é世]{0,12}", 0..40i64).prop_map(|(city, days)| (
            "get_weather".to_owned(),
            json!({"city": city, "days": days})
        )),
        Just(("get_time".to_owned(), json!({}))),
        ("[a-z/.]{1,12}", "[ -;=?-~é\n]{0,40}")
            .prop_map(|(p, c)| ("write_file".to_owned(), json!({"path": p, "content": c}))),
    ]
}

fn stream() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(fragment(), 0..12).prop_map(|v| v.concat())
}

fn stream_and_cuts() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    stream().prop_flat_map(|s| {
        let len = s.len();
        (Just(s), prop::collection::vec(0..=len, 0..16))
    })
}

/// Arbitrary JSON argument values of one type each, and the schema saying so.
fn typed_value() -> impl Strategy<Value = (Value, Value)> {
    prop_oneof![
        "[ -;=?-~é世😀\n\t]{0,24}".prop_map(|s| (json!(s), json!({"type": "string"}))),
        any::<i64>().prop_map(|n| (json!(n), json!({"type": "integer"}))),
        (-1e9f64..1e9).prop_map(|x| (json!(x), json!({"type": "number"}))),
        any::<bool>().prop_map(|b| (json!(b), json!({"type": "boolean"}))),
        Just((Value::Null, json!({"type": "null"}))),
        prop::collection::vec("[a-z ]{0,6}", 0..4).prop_map(|v| (
            json!(v),
            json!({"type": "array", "items": {"type": "string"}})
        )),
        prop::collection::btree_map("[a-z]{1,5}", any::<i32>(), 0..3)
            .prop_map(|m| (json!(m), json!({"type": "object"}))),
    ]
}

/// A call with typed arguments and the tool whose schema types them.
fn typed_call() -> impl Strategy<Value = (Tool, Value)> {
    (
        "[a-z][a-z0-9_]{0,10}",
        prop::collection::btree_map("[a-z][a-z_]{0,7}", typed_value(), 0..5),
    )
        .prop_map(|(name, params)| {
            let mut args = Map::new();
            let mut props = Map::new();
            for (k, (v, schema)) in params {
                args.insert(k.clone(), v);
                props.insert(k, schema);
            }
            let tool =
                Tool::new(name).with_parameters(json!({"type": "object", "properties": props}));
            (tool, Value::Object(args))
        })
}

proptest! {
    // PROPTEST_CASES=N runs more.
    #![proptest_config(proptest_cases(300))]

    #[test]
    fn random_chunkings_match_one_shot((input, cuts) in stream_and_cuts()) {
        for format in setups() {
            let mut parser = format.parser();
            let whole = run_whole(&mut parser, &input);
            if let Err(e) = toolsieve::contract::check_with(&input, &whole, true, parser.reasoning()) {
                panic!("{format}: {e}");
            }
            let split = run_cuts(&mut parser, &input, &cuts);
            prop_assert_eq!(&split, &whole, "{}", format);
            if let Ok(text) = std::str::from_utf8(&input) {
                let as_str = toolsieve::contract::run_str_cuts(&mut parser, text, &cuts);
                prop_assert_eq!(&as_str, &whole, "{} as &str", format);
            }
        }
    }

    #[test]
    fn one_byte_chunks_match_one_shot(input in stream()) {
        for format in setups() {
            let mut parser = format.parser();
            let whole = run_whole(&mut parser, &input);
            let bytes = run_chunked(&mut parser, &input, 1);
            prop_assert_eq!(bytes, whole, "{}", format);
        }
    }

    #[test]
    fn every_split_point_of_short_streams(input in prop::collection::vec(fragment(), 0..4).prop_map(|v| v.concat())) {
        for format in setups() {
            let mut parser = format.parser();
            let whole = run_whole(&mut parser, &input);
            for cut in 0..=input.len() {
                prop_assert_eq!(&run_cuts(&mut parser, &input, &[cut]), &whole, "{} cut {}", format, cut);
            }
        }
    }

    #[test]
    fn rendered_calls_parse_back(
        format in prop::sample::select(Format::ALL.to_vec()),
        (tool, args) in typed_call(),
        before in "[a-z .\n]{0,20}",
        after in "[a-z .\n]{0,20}",
    ) {
        let input = format!("{before}{}{after}", format_tool_call(format, &tool.name, &args));
        let mut parser = Parser::builder(format).tools(vec![tool.clone()]).build().unwrap();
        for size in [1, 3, input.len().max(1)] {
            let events = run_chunked(&mut parser, input.as_bytes(), size);
            check_contract(input.as_bytes(), &events, true);
            let calls: Vec<(String, Value)> = events.iter().filter_map(|e| match e {
                Event::ToolCall { tool_name, input, .. } => Some((tool_name.to_string(), serde_json::from_str(input).unwrap())),
                _ => None,
            }).collect();
            prop_assert_eq!(calls, vec![(tool.name.clone(), args.clone())], "{}: {}", format, input);
            let diagnostics: Vec<_> = events.iter().filter(|e| matches!(e, Event::Diagnostic(_))).collect();
            prop_assert!(diagnostics.is_empty(), "{:?}", diagnostics);
            let text: String = events.iter().filter_map(|e| match e {
                Event::TextDelta { delta, .. } => Some(delta.to_string()),
                _ => None,
            }).collect();
            prop_assert_eq!(text, format!("{before}{after}"));
        }
    }
}

proptest! {
    #![proptest_config(proptest_cases(64))]

    /// A turn of several calls, rendered into history as one block where
    /// the format writes them so, parses back to those calls in order.
    #[test]
    fn a_turns_rendered_calls_parse_back(
        format in prop::sample::select(Format::ALL.to_vec()),
        made in prop::collection::vec(known_call(), 1..4),
    ) {
        use toolsieve::middleware::{transform_params, Message, ParamsOptions, Part, Request};
        let content = made
            .iter()
            .enumerate()
            .map(|(i, (name, input))| Part::ToolCall {
                tool_call_id: format!("call_{i}"),
                tool_name: name.clone(),
                input: input.clone(),
            })
            .collect();
        let request = Request {
            messages: vec![Message::Assistant { content }],
            tools: Vec::new(),
            tool_choice: None,
            response_format: None,
            extra: Default::default(),
        };
        let rewritten = transform_params(format, &request, &ParamsOptions::default()).unwrap();
        let [Message::Assistant { content }] = rewritten.request.messages.as_slice() else {
            panic!("{format}: {:?}", rewritten.request.messages)
        };
        let [Part::Text { text }] = content.as_slice() else {
            panic!("{format}: {content:?}")
        };
        let mut parser = Parser::builder(format).tools(sample_tools()).build().unwrap();
        for size in [1, 7, text.len().max(1)] {
            let events = run_chunked(&mut parser, text.as_bytes(), size);
            let calls: Vec<(String, Value)> = events.iter().filter_map(|e| match e {
                Event::ToolCall { tool_name, input, .. } => Some((tool_name.to_string(), serde_json::from_str(input).unwrap())),
                _ => None,
            }).collect();
            prop_assert_eq!(&calls, &made, "{} at {}: {}", format, size, text);
        }
    }
}

#[test]
fn sample_tools_cover_the_generated_calls() {
    let names: Vec<String> = sample_tools().into_iter().map(|t| t.name).collect();
    for name in ["get_weather", "get_time", "write_file"] {
        assert!(names.iter().any(|n| n == name));
    }
}

#[test]
fn every_cut_inside_multibyte_characters() {
    let args = json!({"s": "é世😀", "city": "東京"});
    for &format in Format::ALL {
        let input = format!(
            "é世😀 {} 👋🏽é",
            format_tool_call(format, "get_weather", &args)
        );
        let input = input.as_bytes();
        let mut parser = parser_for(format);
        let whole = run_whole(&mut parser, input);
        assert!(
            whole.iter().any(|e| matches!(e, Event::ToolCall { .. })),
            "{format}"
        );
        for a in (0..input.len()).step_by(3) {
            for b in a..input.len() {
                assert_eq!(
                    run_cuts(&mut parser, input, &[a, b]),
                    whole,
                    "{format} cuts {a} {b}"
                );
            }
        }
    }
}

/// Call objects whose members come in other orders, with ids, escaped or
/// repeated keys, extra members and whitespace, and what may follow them
/// before the end marker: the events at every chunking are the one-shot
/// ones (chunks that only carry the object's keys, or whitespace and part
/// of the end marker after it, take a shorter path than the others).
#[test]
fn call_object_members_split_anywhere() {
    let objects = [
        r#"{"id": "c1", "name": "get_time", "arguments": {}}"#,
        r#"{"arguments": {"city": "Paris"}, "name": "get_weather"}"#,
        r#"{ "name" : "get_weather" , "extra": [1, {"k": "v"}], "arguments" : {"city": "東京"} }"#,
        r#"{"n\u0061me": "get_time", "parameters": {}}"#,
        r#"{"name": "get_time", "name": "get_weather", "arguments": {}}"#,
        r#"{"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}"#,
        r#"{"name": "get_weather", "arguments": {"city": "Rome",}, }"#,
        r#"{"tool_name": "get_time", "call_id": 7, "arguments": null}"#,
    ];
    for object in objects {
        for (format, input) in [
            (
                Format::Hermes,
                format!("a <tool_call>\n{object}\n</tool_call> b"),
            ),
            (
                Format::Hermes,
                format!("<tool_call>{object}}}  \n\n</tool_call>"),
            ),
            (
                Format::Hermes,
                format!("<tool_call>{object} \n </tool_callx> b"),
            ),
            (
                Format::Hermes,
                format!("<tool_call>{object} ,\n{object}\n</tool_call>"),
            ),
            (Format::Llama3Json, object.to_string()),
            (Format::Gemma, format!("```tool_call\n{object}\n```")),
        ] {
            let input = input.as_bytes();
            let mut parser = parser_for(format);
            let whole = run_whole(&mut parser, input);
            for size in 1..=8 {
                assert_eq!(
                    run_chunked(&mut parser, input, size),
                    whole,
                    "{format} {object} {size}"
                );
            }
            for cut in split_points(input) {
                assert_eq!(
                    run_cuts(&mut parser, input, &[cut]),
                    whole,
                    "{format} {object} {cut}"
                );
            }
        }
    }
}
