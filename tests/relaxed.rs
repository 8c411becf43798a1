//! Call bodies in relaxed JSON: arbitrary arguments written as a Python dict
//! (`repr`, as Hermes 2 Pro's function-calling examples write calls) come out as the same JSON, at any
//! chunking, with the contract kept; so do trailing commas, and strings
//! written with single backslashes (`"\d+"`).

mod common;

use common::{check_contract, proptest_cases, run_chunked, run_cuts, run_whole, tool_calls};
use proptest::prelude::*;
use serde_json::{Map, Value};
use toolsieve::contract::{python_repr, with_single_backslashes};
use toolsieve::{DiagnosticKind, Event, Format, Parser};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z '\"\\\\\n\t\u{1}é世]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec(("[a-z_]{1,6}", inner), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Value> {
    proptest::collection::vec(("[a-z_]{1,6}", json_value()), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>()))
}

proptest! {
    #![proptest_config(proptest_cases(256))]

    #[test]
    fn python_dict_bodies_read_as_json(
        args in arguments(),
        name_first in any::<bool>(),
        size in 1usize..24,
        cuts in proptest::collection::vec(0usize..400, 0..6),
    ) {
        let call = if name_first {
            format!("{{'name': 'f', 'arguments': {}}}", python_repr(&args))
        } else {
            format!("{{'arguments': {}, 'name': 'f'}}", python_repr(&args))
        };
        let text = format!("Sure.\n<tool_call>\n{call}\n</tool_call>\nDone.");
        let input = text.as_bytes();
        let mut parser = Parser::new(Format::Hermes);
        let whole = run_whole(&mut parser, input);
        check_contract(input, &whole, true);
        let calls = tool_calls(&whole);
        prop_assert_eq!(calls.len(), 1, "{}", text);
        prop_assert_eq!(calls[0].0.as_str(), "f");
        let read: Value = serde_json::from_str(&calls[0].1).expect("the input is JSON");
        prop_assert_eq!(&read, &args, "{}", text);
        let repaired = whole.iter().any(|e| matches!(e, Event::Diagnostic(d) if d.kind == DiagnosticKind::RepairedJson));
        prop_assert!(repaired);
        prop_assert_eq!(&run_chunked(&mut parser, input, size), &whole);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (input.len() + 1)).collect();
        cuts.sort_unstable();
        prop_assert_eq!(&run_cuts(&mut parser, input, &cuts), &whole);
    }
}

/// `text`, read whole, keeps the contract and holds one call whose
/// arguments read as `args`; chunks of `size`, of one byte and cuts at
/// `cuts` give the same events.
fn reads_back(
    format: Format,
    text: &str,
    args: &Value,
    size: usize,
    cuts: Vec<usize>,
) -> Result<(), TestCaseError> {
    let input = text.as_bytes();
    let mut parser = Parser::new(format);
    let whole = run_whole(&mut parser, input);
    check_contract(input, &whole, true);
    let calls = tool_calls(&whole);
    prop_assert_eq!(calls.len(), 1, "{}", text);
    let read: Value = serde_json::from_str(&calls[0].1).expect("the input is JSON");
    prop_assert_eq!(&read, args, "{}", text);
    prop_assert_eq!(
        &run_chunked(&mut parser, input, size),
        &whole,
        "chunks of {}",
        size
    );
    prop_assert_eq!(&run_chunked(&mut parser, input, 1), &whole, "1-byte chunks");
    let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (input.len() + 1)).collect();
    cuts.sort_unstable();
    prop_assert_eq!(&run_cuts(&mut parser, input, &cuts), &whole);
    Ok(())
}

/// `value` as JSON text, with a trailing comma (and some whitespace) after
/// the last item of each container that `commas` picks, in turn.
fn with_trailing_commas(value: &Value, commas: &mut impl Iterator<Item = (bool, u8)>) -> String {
    let (items, open, close): (Vec<String>, char, char) = match value {
        Value::Array(a) => (
            a.iter().map(|v| with_trailing_commas(v, commas)).collect(),
            '[',
            ']',
        ),
        Value::Object(m) => (
            m.iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        Value::from(k.as_str()),
                        with_trailing_commas(v, commas)
                    )
                })
                .collect(),
            '{',
            '}',
        ),
        leaf => return leaf.to_string(),
    };
    let (comma, ws) = commas.next().unwrap_or((false, 0));
    let tail = if comma && !items.is_empty() {
        format!(",{}", [" ", "\n", "", "  \n "][usize::from(ws % 4)])
    } else {
        String::new()
    };
    format!("{open}{}{tail}{close}", items.join(", "))
}

proptest! {
    #![proptest_config(proptest_cases(256))]

    /// Trailing commas anywhere in the arguments (and after them) are
    /// dropped: the call comes out with its arguments, the same at any
    /// chunking (a comma that ends a chunk is held back).
    #[test]
    fn trailing_commas_are_dropped_at_any_chunking(
        args in arguments(),
        commas in proptest::collection::vec((any::<bool>(), any::<u8>()), 0..24),
        outer_comma in any::<bool>(),
        size in 1usize..12,
        cuts in proptest::collection::vec(0usize..400, 0..6),
    ) {
        let mut picks = commas.iter().copied();
        let body = with_trailing_commas(&args, &mut picks);
        let outer = if outer_comma { ", " } else { "" };
        let text = format!("<tool_call>{{\"name\": \"f\", \"arguments\": {body}{outer}}}</tool_call> ok");
        reads_back(Format::Hermes, &text, &args, size, cuts)?;
    }
}

fn arguments_with_backslashes() -> impl Strategy<Value = Value> {
    proptest::collection::vec(("[a-z_]{1,6}", r"([a-z.$ é]|\\[a-zA-Z.$ é]){0,10}"), 1..4).prop_map(
        |m| {
            Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect::<Map<_, _>>(),
            )
        },
    )
}

proptest! {
    #![proptest_config(proptest_cases(256))]

    /// Strings written with single backslashes before characters that no
    /// JSON escape begins with come out as written, at any chunking, in
    /// every JSON-argument format.
    #[test]
    fn single_backslashes_are_kept_at_any_chunking(
        args in arguments_with_backslashes(),
        format in prop::sample::select(vec![Format::Hermes, Format::DeepSeek, Format::KimiK2]),
        size in 1usize..12,
        cuts in proptest::collection::vec(0usize..400, 0..6),
    ) {
        let call = with_single_backslashes(&toolsieve::middleware::format_tool_call(format, "f", &args));
        let text = format!("Sure.\n{call}\nDone.");
        reads_back(format, &text, &args, size, cuts)?;
    }
}

proptest! {
    #![proptest_config(proptest_cases(256))]

    /// Apostrophes escaped as Python and JavaScript escape them (`it\'s`,
    /// not JSON) read as apostrophes, at any chunking, in every
    /// JSON-argument format, with a `repaired-json` diagnostic.
    #[test]
    fn escaped_apostrophes_read_as_apostrophes_at_any_chunking(
        args in arguments(),
        format in prop::sample::select(vec![Format::Hermes, Format::DeepSeek, Format::KimiK2]),
        size in 1usize..12,
        cuts in proptest::collection::vec(0usize..400, 0..6),
    ) {
        let call = toolsieve::middleware::format_tool_call(format, "f", &args);
        // In JSON text an apostrophe only stands inside strings.
        let text = format!("Sure.\n{}\nDone.", call.replace('\'', "\\'"));
        reads_back(format, &text, &args, size, cuts)?;
        let events = run_whole(&mut Parser::new(format), text.as_bytes());
        let repaired = events.iter().any(|e| {
            matches!(e, Event::Diagnostic(d) if d.kind == DiagnosticKind::RepairedJson)
        });
        prop_assert_eq!(repaired, call.contains('\''));
    }
}
