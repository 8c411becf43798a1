//! Events borrow from the chunk in hand: a JSON call that lies in one chunk
//! hands out its name, its deltas and its whole `input` without a copy.

use std::borrow::Cow;

use toolsieve::{Event, Format, Parser};

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
    for e in &events {
        if let Event::ToolInputDelta { delta, .. } = e {
            assert!(matches!(delta, Cow::Borrowed(_)), "{delta:?}");
        }
    }
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
