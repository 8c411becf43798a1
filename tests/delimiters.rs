//! Custom delimiters for the JSON formats: other tags, and no end marker at
//! all (a call ends with its JSON), checked at every split point.

mod common;

use common::{check_contract, diagnostic_kinds, run_cuts, run_whole, tool_calls, Events};
use toolsieve::{DiagnosticKind, Error, Event, Format, Parser};

fn parser(start: &str, end: &str) -> Parser {
    Parser::builder(Format::Hermes)
        .delimiters(start, end)
        .build()
        .expect("valid delimiters")
}

/// The one-shot events, after checking every single split point against
/// them and the contract.
fn events(start: &str, end: &str, text: &str) -> Events {
    checked(parser(start, end), text)
}

/// [`events`] for any parser.
fn checked(mut parser: Parser, text: &str) -> Events {
    let input = text.as_bytes();
    let whole = run_whole(&mut parser, input);
    check_contract(input, &whole, true);
    for cut in 1..input.len() {
        assert_eq!(run_cuts(&mut parser, input, &[cut]), whole, "cut at {cut}");
    }
    let bytes: Vec<usize> = (1..input.len()).collect();
    assert_eq!(run_cuts(&mut parser, input, &bytes), whole, "1-byte chunks");
    whole
}

fn text(events: &Events) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta { delta, .. } => Some(delta.as_ref()),
            _ => None,
        })
        .collect()
}

#[test]
fn other_tags() {
    let e = events(
        "<function_call>",
        "</function_call>",
        r#"Ok. <function_call>{"name": "f", "arguments": {"s": "</tool_call>"}}</function_call> <tool_call>{}</tool_call>"#,
    );
    assert_eq!(
        tool_calls(&e),
        [("f".into(), r#"{"s": "</tool_call>"}"#.into())]
    );
    assert_eq!(text(&e), "Ok.  <tool_call>{}</tool_call>");
    assert!(diagnostic_kinds(&e).is_empty());
}

/// A fence pair as delimiters: a closing fence that begins the next
/// opening one means the first call's own closing fence never came; one
/// followed by other words still closes.
#[test]
fn fence_delimiters_reopen() {
    let input = "```json\n{\"name\": \"a\", \"arguments\": {}}\n```json\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n```js end";
    let events = events("```json", "```", input);
    assert_eq!(
        tool_calls(&events),
        [
            ("a".into(), "{}".into()),
            ("b".into(), r#"{"x": 1}"#.into())
        ]
    );
    assert_eq!(text(&events), "\njs end");
    assert_eq!(
        diagnostic_kinds(&events),
        [DiagnosticKind::MissingEndMarker]
    );
}

#[test]
fn no_end_marker_array_of_calls() {
    let e = events(
        "[TOOL_CALLS]",
        "",
        r#"Let me check. [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]"#,
    );
    assert_eq!(
        tool_calls(&e),
        [
            ("get_weather".into(), r#"{"city": "Paris"}"#.into()),
            ("get_time".into(), "{}".into())
        ]
    );
    assert_eq!(text(&e), "Let me check. ");
    assert!(diagnostic_kinds(&e).is_empty());
}

#[test]
fn no_end_marker_one_object_then_text() {
    let e = events(
        "<|python_tag|>",
        "",
        "<|python_tag|>{\"name\": \"search\", \"parameters\": {\"q\": \"rust\"}}\nThat is all.",
    );
    assert_eq!(
        tool_calls(&e),
        [("search".into(), r#"{"q": "rust"}"#.into())]
    );
    assert_eq!(text(&e), "\nThat is all.");
    assert!(diagnostic_kinds(&e).is_empty());
}

#[test]
fn no_end_marker_calls_separated_by_semicolons() {
    // Llama 3 writes several calls after one `<|python_tag|>` this way.
    let e = events(
        "<|python_tag|>",
        "",
        "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {\"x\": 1}} ; done",
    );
    assert_eq!(
        tool_calls(&e),
        [
            ("a".into(), "{}".into()),
            ("b".into(), r#"{"x": 1}"#.into())
        ]
    );
    // What follows the last call, separator included, is text again.
    assert_eq!(text(&e), " ; done");
    assert!(diagnostic_kinds(&e).is_empty());
}

#[test]
fn semicolon_between_calls_in_a_block() {
    let e = events(
        "<tool_call>",
        "</tool_call>",
        "<tool_call>{\"name\": \"a\", \"arguments\": {}};\n{\"name\": \"b\", \"arguments\": {}}</tool_call>",
    );
    assert_eq!(
        tool_calls(&e),
        [("a".into(), "{}".into()), ("b".into(), "{}".into())]
    );
    assert!(text(&e).is_empty());
    assert!(diagnostic_kinds(&e).is_empty());
}

#[test]
fn no_end_marker_not_json_is_text() {
    let e = events("[TOOL_CALLS]", "", "[TOOL_CALLS] sorry, no call");
    assert!(tool_calls(&e).is_empty());
    assert_eq!(text(&e), "[TOOL_CALLS] sorry, no call");
    assert_eq!(diagnostic_kinds(&e), [DiagnosticKind::MalformedCall]);
}

#[test]
fn no_end_marker_unfinished_at_eof() {
    let e = events("[TOOL_CALLS]", "", r#"[TOOL_CALLS][{"name": "f", "argu"#);
    assert!(tool_calls(&e).is_empty());
    assert_eq!(text(&e), r#"[TOOL_CALLS][{"name": "f", "argu"#);
    assert_eq!(diagnostic_kinds(&e), [DiagnosticKind::UnfinishedCall]);
}

#[test]
fn bad_delimiters_are_errors() {
    let empty_start = Parser::builder(Format::Hermes).delimiters("", "x").build();
    assert!(matches!(empty_start, Err(Error::InvalidMarker(_))));
    let xml = Parser::builder(Format::Qwen3Coder)
        .delimiters("<a>", "</a>")
        .build();
    assert!(matches!(xml, Err(Error::InvalidMarker(_))));
}

/// Llama 3: `<|python_tag|>` and no end marker, and calls also written
/// without the tag at the very start.
fn llama() -> Parser {
    Parser::builder(Format::Hermes)
        .delimiters("<|python_tag|>", "")
        .bare_call_at_start(true)
        .build()
        .expect("valid options")
}

#[test]
fn bare_calls_at_start() {
    let input = concat!(
        "\n  {\"name\": \"a\", \"parameters\": {\"x\": 1}}; ",
        "{\"name\": \"b\", \"parameters\": {}} then ",
        "<|python_tag|>{\"name\": \"c\", \"parameters\": {}}",
    );
    let e = checked(llama(), input);
    assert_eq!(
        tool_calls(&e),
        [
            ("a".into(), r#"{"x": 1}"#.into()),
            ("b".into(), "{}".into()),
            ("c".into(), "{}".into())
        ]
    );
    assert_eq!(text(&e), "\n   then ");
    assert!(diagnostic_kinds(&e).is_empty());
}

#[test]
fn bare_array_at_start() {
    let mut parser = Parser::builder(Format::Hermes)
        .delimiters("[TOOL_CALLS]", "")
        .bare_call_at_start(true)
        .build()
        .unwrap();
    let input = r#"[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"y": [2]}}]"#;
    let e = checked(parser.clone(), input);
    assert_eq!(
        tool_calls(&e),
        [
            ("a".into(), "{}".into()),
            ("b".into(), r#"{"y": [2]}"#.into())
        ]
    );
    // The parser keeps the option for the next stream, after `finish` or
    // after `reset` in the middle of such a call.
    parser.feed_str(r#"[{"name": "a", "#, &mut |_| {});
    parser.reset();
    assert_eq!(tool_calls(&parser.parse(input.as_bytes())), tool_calls(&e));
}

/// Only the start counts: JSON after prose is prose, and so is a `{`
/// later in the stream; JSON at the start that is not a call is text with
/// a diagnostic.
#[test]
fn bare_call_only_at_start() {
    let prose = r#"Use {"name": "a", "parameters": {}} to call a."#;
    let e = checked(llama(), prose);
    assert!(tool_calls(&e).is_empty());
    assert_eq!(text(&e), prose);
    assert!(diagnostic_kinds(&e).is_empty());

    let data = r#"{"answer": 42} is the result"#;
    let e = checked(llama(), data);
    assert!(tool_calls(&e).is_empty());
    assert_eq!(text(&e), data);
    assert_eq!(diagnostic_kinds(&e), [DiagnosticKind::MissingName]);

    let hermes = Parser::builder(Format::Hermes)
        .bare_call_at_start(true)
        .build()
        .unwrap();
    let input =
        r#"{"name": "a", "arguments": {}} <tool_call>{"name": "b", "arguments": {}}</tool_call>"#;
    let e = checked(hermes, input);
    assert_eq!(
        tool_calls(&e),
        [("a".into(), "{}".into()), ("b".into(), "{}".into())]
    );
    assert_eq!(text(&e), " ");

    let plain = Parser::builder(Format::Hermes).build().unwrap();
    assert!(tool_calls(&checked(plain, input)).len() == 1);
}

#[test]
fn bare_call_at_start_needs_a_json_format() {
    let xml = Parser::builder(Format::Glm)
        .bare_call_at_start(true)
        .build();
    assert!(matches!(xml, Err(Error::InvalidMarker(_))));
}

/// Llama 3 at the start: an object naming a tool but with neither
/// `parameters` nor `arguments` is prose (`{"name": "Ada"}` is data), and
/// no call starts for it; `"arguments": null` and OpenAI's nested
/// `function` object are calls.
#[test]
fn bare_call_at_start_needs_its_arguments_key() {
    for prose in [
        r#"{"name": "Ada"} is the user's record."#,
        r#"{"name": "Ada", "age": 36}"#,
        r#"[{"name": "a"}, {"name": "b", "parameters": {}}]"#,
    ] {
        let e = checked(llama(), prose);
        assert!(tool_calls(&e).is_empty(), "{prose}");
        assert_eq!(text(&e), prose);
        assert_eq!(
            diagnostic_kinds(&e),
            [DiagnosticKind::MalformedCall],
            "{prose}"
        );
        assert!(
            !e.iter().any(|e| matches!(e, Event::ToolInputStart { .. })),
            "{prose}: a call started"
        );
    }
    for (call, input) in [
        (r#"{"name": "now", "arguments": null}"#, "{}"),
        (r#"{"parameters": {"a": 1}, "name": "now"}"#, r#"{"a": 1}"#),
        (
            r#"{"type": "function", "function": {"name": "now", "arguments": {"tz": "UTC"}}}"#,
            r#"{"tz": "UTC"}"#,
        ),
    ] {
        let e = checked(llama(), call);
        assert_eq!(tool_calls(&e), [("now".into(), input.into())], "{call}");
    }
}
