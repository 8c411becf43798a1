//! Events borrow from the chunk in hand: a JSON call that lies in one chunk
//! hands out its name, its arguments (as one delta) and its whole `input`
//! without a copy; what the XML and literal automata build in one step
//! goes out as one delta; and a string value that spans chunks is lent
//! from each.

use std::borrow::Cow;

use toolsieve::{Delta, Event, Format, Parser, Tool};

const CALL: &str = "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"東京\", \"days\": 3}}\n</tool_call>\n";

#[test]
fn a_call_in_one_chunk_borrows_its_input() {
    let events = Parser::new(Format::Hermes).parse(CALL.as_bytes());
    let (name, input) = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCall {
                tool_name, input, ..
            } => Some((tool_name, input)),
            _ => None,
        })
        .expect("one call");
    assert!(matches!(name, Cow::Borrowed("get_weather")), "{name:?}");
    assert!(
        matches!(input, Cow::Borrowed(r#"{"city": "東京", "days": 3}"#)),
        "{input:?}"
    );
    let deltas: Vec<&Delta<'_>> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolInputDelta { delta, .. } => Some(delta),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, [r#"{"city": "東京", "days": 3}"#], "{deltas:?}");
    assert!(deltas[0].is_borrowed());
}

#[test]
fn a_repaired_call_owns_its_input() {
    // A raw newline inside a string is escaped: the input is no longer the
    // model's bytes, and must say what the deltas said.
    let text =
        "<tool_call>{\"name\": \"note\", \"arguments\": {\"a\": \"x\ny\", \"b\": 1}}</tool_call>";
    for size in [1, 3, text.len()] {
        let mut parser = Parser::new(Format::Hermes);
        let mut deltas = String::new();
        let mut input = None;
        for chunk in text.as_bytes().chunks(size) {
            parser.feed(chunk, &mut |e| match e {
                Event::ToolInputDelta { delta, .. } => deltas.push_str(&delta),
                Event::ToolCall { input: i, .. } => input = Some(i.into_owned()),
                _ => {}
            });
        }
        parser.finish(&mut |_| {});
        assert_eq!(
            input.as_deref(),
            Some(r#"{"a": "x\ny", "b": 1}"#),
            "chunks of {size}"
        );
        assert_eq!(deltas, r#"{"a": "x\ny", "b": 1}"#);
    }
}

#[test]
fn a_built_call_in_one_chunk_sends_its_arguments_as_one_delta() {
    // The pieces of JSON the automaton builds for one step go out as one
    // event: a server forwards each delta as a message of its own.
    let tools = toolsieve::Tool::list_from_json(
        r#"[{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}]"#,
    )
    .unwrap();
    let cases = [
        (Format::Qwen3Coder, "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"),
        (Format::MiniMaxM2, "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n</minimax:tool_call>"),
        (Format::SeedOss, "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</seed:tool_call>"),
        (Format::KimiK3, "<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>Paris<|close|>argument<|sep|><|open|>argument key=\"days\" type=\"number\"<|sep|>3<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"),
        (Format::Glm, "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>"),
        (Format::MorphXml, "<get_weather>\n<city>Paris</city>\n<days>3</days>\n</get_weather>"),
        // The literal formats stream string values, yet a call in one
        // chunk is one delta too.
        (Format::Pythonic, "[get_weather(city='Paris', days=3)]"),
        (Format::Lfm2, "<|tool_call_start|>[get_weather(city='Paris', days=3)]<|tool_call_end|>"),
        (Format::Gemma4, "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>"),
        (Format::FunctionGemma, "<start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>"),
    ];
    for (format, text) in cases {
        let mut parser = Parser::builder(format)
            .tools(tools.clone())
            .build()
            .unwrap();
        let events = parser.parse(text.as_bytes());
        let deltas: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolInputDelta { delta, .. } => Some(delta.as_ref()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, [r#"{"city": "Paris", "days": 3}"#], "{format}");
    }
}

/// The special-token formats borrow the same way: the name is a slice of
/// the call's id (`functions.get_weather:0`), the arguments the model's
/// bytes.
#[test]
fn a_token_call_in_one_chunk_borrows_its_name_and_input() {
    let texts = [
        (Format::DeepSeek, "Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"東京\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        (Format::KimiK2, "Sure.<|tool_calls_section_begin|><|tool_call_begin|> functions.get_weather:0 <|tool_call_argument_begin|>{\"city\": \"東京\"}<|tool_call_end|><|tool_calls_section_end|>"),
    ];
    for (format, text) in texts {
        let events = Parser::new(format).parse(text.as_bytes());
        let borrowed = events.iter().any(|e| {
            matches!(
                e,
                Event::ToolCall {
                    tool_name: Cow::Borrowed("get_weather"),
                    input: Cow::Borrowed(r#"{"city": "東京"}"#),
                    ..
                }
            )
        });
        assert!(borrowed, "{format}: {events:?}");
    }
}

/// A `<` that proves not to be a tag (`a < b`, `</div>`) is sent with the
/// byte that decides it, not when the longest tag could have ended, and
/// without a copy: the held bytes go out as static strings.
#[test]
fn a_lone_angle_bracket_in_a_value_is_sent_when_the_next_byte_decides() {
    let tools = toolsieve::Tool::list_from_json(
        r#"[{"name": "write", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}}]"#,
    )
    .unwrap();
    for (value, after) in [("a <", " b"), ("x </", "div>")] {
        let mut parser = Parser::builder(Format::Qwen3Coder)
            .tools(tools.clone())
            .build()
            .unwrap();
        let mut deltas = String::new();
        let mut take = |e: Event<'_>| {
            if let Event::ToolInputDelta { delta, .. } = e {
                deltas.push_str(&delta);
            }
        };
        let head = format!("<tool_call>\n<function=write>\n<parameter=text>\n{value}");
        parser.feed_str(&head, &mut take);
        parser.feed_str(after, &mut take);
        let sent = format!("{{\"text\": \"{value}{after}");
        assert_eq!(deltas, sent, "{value:?} then {after:?}");
    }
}

/// A comma that ends a chunk of the arguments is held back until the next
/// chunk shows it was no trailing one; then the comma (with the whitespace
/// it came with) goes out, and that chunk after it, each borrowed.
#[test]
fn a_held_comma_goes_out_before_the_next_chunk_both_borrowed() {
    let head = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1";
    let tail = "}}\n</tool_call>";
    for (pieces, comma, next) in [
        (&[",", " \"b\": 2"][..], ",", " \"b\": 2"),
        (&[",\n  ", "\"b\": 2"][..], ",\n  ", "\"b\": 2"),
        (&[", ", " ", "\"b\": [3, 4]"][..], ",  ", "\"b\": [3, 4]"),
        (&[",", "\"b\":", "\"x\""][..], ",", "\"b\":"),
    ] {
        let mut parser = Parser::new(Format::Hermes);
        let mut deltas = Vec::new();
        let mut input = None;
        let mut sink = |e: Event<'_>| match e {
            Event::ToolInputDelta { delta, .. } => {
                assert!(delta.is_borrowed(), "{delta:?} in {pieces:?}");
                deltas.push(delta.to_string());
            }
            Event::ToolCall { input: i, .. } => input = Some(i.into_owned()),
            _ => {}
        };
        parser.feed(head.as_bytes(), &mut sink);
        for piece in pieces {
            parser.feed(piece.as_bytes(), &mut sink);
        }
        parser.feed(tail.as_bytes(), &mut sink);
        parser.finish(&mut sink);
        let expected = format!("{{\"a\": 1{}}}", pieces.concat());
        assert_eq!(input.as_deref(), Some(expected.as_str()), "{pieces:?}");
        assert_eq!(deltas.concat(), expected, "{pieces:?}");
        let at = deltas.iter().position(|d| d == comma);
        assert_eq!(
            at.and_then(|at| deltas.get(at + 1)).map(String::as_str),
            Some(next),
            "{deltas:?}"
        );
    }
}

/// Chunks inside a string argument go out as they stand, each the next
/// delta borrowed from its chunk, in the JSON and special-token formats
/// alike, whatever they hold: escapes and a closing quote are the
/// automaton's again, and the deltas still add up to the input.
#[test]
fn chunks_inside_a_string_argument_are_the_next_deltas() {
    let value = r#"plain text that runs on, then \"quoted\", é 世界 and a {brace}"#;
    let calls = [
        (
            Format::Hermes,
            format!("<tool_call>\n{{\"name\": \"f\", \"arguments\": {{\"k\": \"{value}\", \"n\": 1}}}}\n</tool_call>"),
        ),
        (
            Format::Mistral,
            format!("[TOOL_CALLS][{{\"name\": \"f\", \"arguments\": {{\"k\": \"{value}\", \"n\": 1}}}}]"),
        ),
        (
            Format::KimiK2,
            format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{{\"k\": \"{value}\", \"n\": 1}}<|tool_call_end|><|tool_calls_section_end|>"),
        ),
    ];
    let expected = format!("{{\"k\": \"{value}\", \"n\": 1}}");
    for (format, call) in calls {
        for size in [1, 3, 4, 8, 64] {
            let mut parser = Parser::new(format);
            let mut deltas = Vec::new();
            let mut input = None;
            for chunk in call.as_bytes().chunks(size) {
                parser.feed(chunk, &mut |e| match e {
                    Event::ToolInputDelta { delta, .. } => {
                        // (A code point the chunks split is completed
                        // inline, joined with the whole ones after it in
                        // its chunk.)
                        let first = delta.chars().next().map_or(1, char::len_utf8);
                        let rest = &delta.as_bytes()[first..];
                        let in_chunk =
                            rest.is_empty() || chunk.windows(rest.len()).any(|w| w == rest);
                        let split = first > 1 && in_chunk && delta.len() <= 15;
                        assert!(delta.is_borrowed() || split, "{format} {size}: {delta:?}");
                        // Inside the plain part of the string, a delta is
                        // a whole chunk, or the part of one after the open
                        // quote.
                        if delta.starts_with("text that") || delta.starts_with(" on, ") {
                            assert!(chunk.ends_with(delta.as_bytes()), "{format} {size}");
                        }
                        deltas.push(delta.to_string());
                    }
                    Event::ToolCall { input: i, .. } => input = Some(i.into_owned()),
                    _ => {}
                });
            }
            parser.finish(&mut |e| {
                if let Event::ToolCall { input: i, .. } = e {
                    input = Some(i.into_owned());
                }
            });
            assert_eq!(input.as_deref(), Some(expected.as_str()), "{format} {size}");
            assert_eq!(deltas.concat(), expected, "{format} {size}");
        }
    }
}

/// A Python or Gemma string value streams as the model writes it: each
/// chunk inside it goes out at once, lent from the chunk, escapes decoded,
/// and the deltas add up to the delivered input at every chunk size.
/// (FunctionGemma streams a quoted value where the schema says string;
/// another may be a quoted number.)
#[test]
fn a_literal_string_value_streams_as_it_comes() {
    let write = Tool::new("write").with_parameters(serde_json::json!({"type": "object",
        "properties": {"path": {"type": "string"}, "code": {"type": "string"}}}));
    let parser_of = |format| {
        Parser::builder(format)
            .tools(vec![write.clone()])
            .build()
            .unwrap()
    };
    let text = "x = 1\\n\\u00e9 \\\"quoted\\\" and some more code, 東京, to stream";
    let cases = [
        (Format::Pythonic, format!("[write(path='a.py', code=\"{text}\")]")),
        (Format::Lfm2, format!("<|tool_call_start|>[write(path='a.py', code=\"{text}\")]<|tool_call_end|>")),
        (Format::Gemma4, format!("<|tool_call>call:write{{path:<|\"|>a.py<|\"|>,code:<|\"|>{text}<|\"|>}}<tool_call|>")),
        (Format::FunctionGemma, format!("<start_function_call>call:write{{path:<escape>a.py<escape>,code:<escape>{text}<escape>}}<end_function_call>")),
    ];
    for (format, call) in cases {
        let whole = parser_of(format).parse(call.as_bytes());
        let input = whole
            .iter()
            .find_map(|e| match e {
                Event::ToolCall { input, .. } => Some(input.to_string()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{format}: no call in {whole:?}"));
        for size in [1, 4, 16] {
            let mut parser = parser_of(format);
            let (mut deltas, mut lent, mut fed) = (String::new(), 0, 0);
            let value_start = call.find(text).unwrap();
            let value_end = value_start + text.len();
            for chunk in call.as_bytes().chunks(size) {
                fed += chunk.len();
                let before = deltas.len();
                parser.feed(chunk, &mut |e| {
                    if let Event::ToolInputDelta { delta, .. } = e {
                        lent += usize::from(delta.is_borrowed());
                        deltas.push_str(&delta);
                    }
                });
                // Inside the value, past its escapes, every chunk of plain
                // text sends something.
                let past_escapes = value_start + text.rfind('\\').unwrap() + 2;
                let inside = fed > past_escapes && fed < value_end;
                let plain = chunk
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b' ');
                if inside && plain {
                    assert!(
                        deltas.len() > before,
                        "{format} at {size}: nothing sent at byte {fed}"
                    );
                }
            }
            parser.finish(&mut |_| {});
            assert_eq!(deltas, input, "{format} at {size}");
            assert!(lent > 0, "{format} at {size}: nothing lent");
        }
    }
}

/// A name the model wrote with an escape is not the chunk's bytes: both
/// events carry it decoded (owned), in one chunk as at every split. One
/// without escapes is borrowed where the chunk holds it.
#[test]
fn an_escaped_name_is_decoded_not_borrowed() {
    for (text, name) in [
        (
            r#"<tool_call>{"name": "get\u005fweather", "arguments": {}}</tool_call>"#,
            "get_weather",
        ),
        (
            r#"<tool_call>{"name": "a\"b\\c", "arguments": {}}</tool_call>"#,
            "a\"b\\c",
        ),
    ] {
        for size in [1, 2, 5, text.len()] {
            let mut parser = Parser::new(Format::Hermes);
            let mut names = Vec::new();
            for chunk in text.as_bytes().chunks(size) {
                parser.feed(chunk, &mut |e| match e {
                    Event::ToolInputStart { tool_name, .. } | Event::ToolCall { tool_name, .. } => {
                        assert!(matches!(tool_name, Cow::Owned(_)), "{tool_name:?}");
                        names.push(tool_name.into_owned());
                    }
                    _ => {}
                });
            }
            parser.finish(&mut |_| {});
            assert_eq!(names, [name, name], "{text} in chunks of {size}");
        }
    }
    let plain = r#"<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>"#;
    let events = Parser::new(Format::Hermes).parse(plain.as_bytes());
    let start = events.iter().find_map(|e| match e {
        Event::ToolInputStart { tool_name, .. } => Some(tool_name),
        _ => None,
    });
    assert!(
        matches!(start, Some(Cow::Borrowed("get_weather"))),
        "{start:?}"
    );
}
