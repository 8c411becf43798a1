//! Low latency (DESIGN.md, rule 7), checked as split invariance of every
//! prefix: after any number of chunks, the events out so far are those the
//! same bytes give fed whole (adjacent deltas merged, no `finish`). An event
//! a chunking delays to a later feed shows here, though the stream's events
//! in the end are the same; a steady path that keeps a chunk the automaton
//! would have decided on is caught this way.

mod common;

use common::*;
use proptest::prelude::*;
use toolsieve::contract::{parser_for, Setup};
use toolsieve::event::push_merged;
use toolsieve::middleware::format_tool_call;
use toolsieve::{Event, Format, Parser};

/// The events of `input` fed cut at `cuts`, without `finish`.
fn fed_so_far(mut parser: Parser, input: &[u8], cuts: &[usize]) -> Events {
    let mut events = Vec::new();
    let mut sink = |e: Event<'_>| push_merged(&mut events, e);
    let mut from = 0;
    for &cut in cuts.iter().chain([&input.len()]) {
        parser.feed(&input[from..cut], &mut sink);
        from = cut;
    }
    events
}

/// The first prefix of `input` whose events, fed in `size`-byte chunks
/// to a parser from `parser`, differ from those it gives fed whole: its
/// length, and the two.
fn prefix_that_differs(
    parser: impl Fn() -> Parser,
    input: &[u8],
    size: usize,
) -> Option<(usize, Events, Events)> {
    let cuts: Vec<usize> = (size..input.len()).step_by(size).collect();
    for (k, end) in cuts.iter().copied().chain([input.len()]).enumerate() {
        let chunked = fed_so_far(parser(), &input[..end], &cuts[..k]);
        let whole = fed_so_far(parser(), &input[..end], &[]);
        if chunked != whole {
            return Some((end, chunked, whole));
        }
    }
    None
}

#[test]
fn every_prefix_of_the_golden_cases_is_split_invariant() {
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.input.len() <= 1024)
        .collect();
    assert!(
        cases.len() >= 150,
        "golden cases went missing: {}",
        cases.len()
    );
    check_cases_in_parallel(&cases, |case| {
        for size in [1, 4, 7] {
            if let Some((end, chunked, whole)) =
                prefix_that_differs(|| case.parser(), &case.input, size)
            {
                assert_eq!(
                    chunked, whole,
                    "{}/{}: {size}-byte chunks, the first {end} bytes",
                    case.format, case.name
                );
            }
        }
    });
}

/// A call of `format` to a sample tool, as the format writes it.
fn rendered_call(format: Format) -> String {
    let args = serde_json::json!({"city": "Paris", "days": 2});
    format_tool_call(format, "get_weather", &args)
}

/// Pieces of a stream in `format`: words, whitespace, a whole call, and
/// the start of one cut anywhere and followed by text (a tag or marker
/// that only begins like one, or a call that stops short).
fn piece(format: Format) -> impl Strategy<Value = String> {
    let call = rendered_call(format);
    let cuts: Vec<usize> = call.char_indices().map(|(i, _)| i).skip(1).collect();
    prop_oneof![
        2 => "[a-zA-Z]{1,8}[ \n]{0,2}",
        1 => Just(call.clone()),
        3 => (prop::sample::select(cuts), "[ \n]{0,2}", "[a-zA-Z<>/=]{1,6}")
            .prop_map(move |(cut, sep, word)| format!("{}{sep}{word}", &call[..cut])),
    ]
}

proptest! {
    #![proptest_config(proptest_cases(256))]

    /// Every prefix of a stream of calls and their cut-off starts, chunked,
    /// gives what it gives fed whole: text that only began like a marker
    /// or a tag goes out in the feed that shows it is not one.
    #[test]
    fn every_prefix_of_lookalikes_is_split_invariant(
        (format, input, size) in prop::sample::select(Format::ALL.to_vec()).prop_flat_map(|f| (
            Just(f),
            prop::collection::vec(piece(f), 1..5).prop_map(|p| p.concat()),
            1..8usize,
        ))
    ) {
        if let Some((end, chunked, whole)) = prefix_that_differs(|| parser_for(format), input.as_bytes(), size) {
            prop_assert_eq!(chunked, whole, "{}: {}-byte chunks, the first {} bytes of {:?}", format, size, end, input);
        }
    }
}

proptest! {
    #![proptest_config(proptest_cases(128))]

    /// The same with `<think>` reasoning, opened by the template or not:
    /// its tags cut off and followed by text, whole, and around calls.
    #[test]
    fn every_prefix_with_reasoning_is_split_invariant(
        (format, open, input, size) in prop::sample::select(Format::ALL.to_vec()).prop_flat_map(|f| {
            let tags = prop::sample::select(vec!["<think>", "</think>", "<think>\n", "\n</think>\n\n"]);
            let tag_piece = (tags, 1..9usize, "[ \n]{0,1}[a-z]{0,4}")
                .prop_map(|(tag, cut, word)| format!("{}{word}", &tag[..cut.min(tag.len())]));
            let piece = prop_oneof![3 => piece(f), 2 => tag_piece];
            (Just(f), any::<bool>(), prop::collection::vec(piece, 1..5).prop_map(|p| p.concat()), 1..8usize)
        })
    ) {
        let setup = Setup { format, bare_call_at_start: false, think: Some((open, false)), think_ends_at_calls: false };
        if let Some((end, chunked, whole)) = prefix_that_differs(|| setup.parser(), input.as_bytes(), size) {
            prop_assert_eq!(chunked, whole, "{}: {}-byte chunks, the first {} bytes of {:?}", setup, size, end, input);
        }
    }
}

proptest! {
    #![proptest_config(proptest_cases(128))]

    /// The same for a call that opens the stream without its marker
    /// (`bare_call_at_start`): its JSON cut off anywhere and followed by
    /// text, then more of the stream.
    #[test]
    fn every_prefix_of_a_bare_call_is_split_invariant(
        (format, json_cut, rest, size) in prop::sample::select(vec![Format::Hermes, Format::Gemma]).prop_flat_map(|f| {
            let json = serde_json::json!({"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}).to_string();
            let len = json.len();
            (Just(f), 1..=len, prop::collection::vec(piece(f), 0..3).prop_map(|p| p.concat()), 1..8usize)
        })
    ) {
        let json = serde_json::json!({"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}).to_string();
        let input = format!("{}{rest}", &json[..json_cut]);
        let setup = Setup { format, bare_call_at_start: true, think: None, think_ends_at_calls: false };
        if let Some((end, chunked, whole)) = prefix_that_differs(|| setup.parser(), input.as_bytes(), size) {
            prop_assert_eq!(chunked, whole, "{}: {}-byte chunks, the first {} bytes of {:?}", setup, size, end, input);
        }
    }
}
