//! Limits: past each one the call degrades to text with a diagnostic, memory
//! stays bounded, and the stream goes on.

mod common;

use common::*;
use toolsieve::{DiagnosticKind, Event, Format, Limits, OnInvalid, Parser};

fn calls(events: &Events) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::ToolCall { .. }))
        .count()
}

fn parser(limits: Limits) -> Parser {
    Parser::builder(Format::Hermes)
        .limits(limits)
        .build()
        .unwrap()
}

#[test]
fn call_larger_than_the_limit_becomes_text_and_memory_stays_bounded() {
    let limits = Limits::default().with_max_call_bytes(256);
    let big = format!(
        "<tool_call>{{\"name\": \"f\", \"arguments\": {{\"x\": \"{}\"}}}}</tool_call> ok <tool_call>{{\"name\": \"g\"}}</tool_call>",
        "a".repeat(10_000)
    );
    let mut p = parser(limits);
    let mut most_held = 0;
    let mut events = Vec::new();
    for chunk in big.as_bytes().chunks(7) {
        p.feed(chunk, &mut |e| {
            toolsieve::event::push_merged(&mut events, e)
        });
        most_held = most_held.max(p.held_back());
    }
    p.finish(&mut |e| toolsieve::event::push_merged(&mut events, e));
    assert!(most_held <= 256, "held {most_held} bytes");
    assert_eq!(diagnostic_kinds(&events), [DiagnosticKind::CallTooLarge]);
    assert_eq!(calls(&events), 1, "the small call after it still parses");
    check_contract(big.as_bytes(), &events, true);
    assert_eq!(run_chunked(&mut parser(limits), big.as_bytes(), 1), events);
}

#[test]
fn nesting_deeper_than_the_limit_becomes_text() {
    let limits = Limits::default().with_max_depth(8);
    let deep = format!(
        "<tool_call>{{\"name\": \"f\", \"arguments\": {{\"x\": {}1{}}}}}</tool_call>",
        "[".repeat(100),
        "]".repeat(100)
    );
    let events = run_whole(&mut parser(limits), deep.as_bytes());
    assert_eq!(diagnostic_kinds(&events), [DiagnosticKind::TooDeep]);
    assert_eq!(calls(&events), 0);
    check_contract(deep.as_bytes(), &events, true);
}

#[test]
fn calls_past_max_calls_stay_text() {
    let limits = Limits::default().with_max_calls(2);
    let input = "<tool_call>{\"name\": \"f\"}</tool_call>".repeat(4);
    let events = run_whole(&mut parser(limits), input.as_bytes());
    assert_eq!(calls(&events), 2);
    assert_eq!(
        diagnostic_kinds(&events),
        [DiagnosticKind::TooManyCalls, DiagnosticKind::TooManyCalls]
    );
    check_contract(input.as_bytes(), &events, true);
}

#[test]
fn held_back_text_never_exceeds_the_longest_marker() {
    let mut p = Parser::new(Format::Hermes);
    let max = p.max_held_back();
    assert_eq!(max, "<tool_call>".len());
    let prose = "a < b <tool_ <tool_cal <<<< </tool_call> <tool_callback> ".repeat(50);
    for chunk in prose.as_bytes().chunks(3) {
        p.feed(chunk, &mut |_| {});
        assert!(p.held_back() <= max);
    }
}

/// With reasoning tags, text and reasoning hold back at most the longest
/// marker of either side: a partial end tag inside reasoning is longer
/// than any call marker here.
#[test]
fn held_back_reasoning_never_exceeds_the_longest_marker() {
    let tags = toolsieve::Reasoning::tags("<think>", "</a_very_long_reasoning_end_tag>");
    let mut p = Parser::builder(Format::Hermes)
        .reasoning(tags)
        .build()
        .unwrap();
    let max = p.max_held_back();
    assert_eq!(max, "</a_very_long_reasoning_end_tag>".len());
    let stream =
        "x <think> a </a_very_long_reasoning_end_ta b </a_very_long_reasoning_end_tag> <tool_ "
            .repeat(20);
    for chunk in stream.as_bytes().chunks(5) {
        p.feed(chunk, &mut |_| {});
        assert!(p.held_back() <= max, "{} > {max}", p.held_back());
    }
}

#[test]
fn drop_policy_drops_the_raw_call_but_says_so() {
    let input = "a <tool_call>{broken}</tool_call> b";
    let mut p = Parser::builder(Format::Hermes)
        .on_invalid(OnInvalid::Drop)
        .build()
        .unwrap();
    let events = run_whole(&mut p, input.as_bytes());
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta { delta, .. } => Some(delta.to_string()),
            _ => None,
        })
        .collect();
    // The malformed JSON fails at `b`; what follows the failure point is
    // scanned as text again.
    assert_eq!(text, "a broken}</tool_call> b");
    assert_eq!(diagnostic_kinds(&events), [DiagnosticKind::MalformedCall]);
}

#[test]
fn random_bytes_never_panic_and_keep_the_contract() {
    // A cheap deterministic generator: the fuzz targets do the real search.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"<tool_call>{}\"\\:,[]nameargu \n`\xff\xe2\x82";
    for _ in 0..300 {
        let len = (next() % 200) as usize;
        let input: Vec<u8> = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        for format in [Format::Hermes, Format::Gemma] {
            let mut p = Parser::new(format);
            let whole = run_whole(&mut p, &input);
            check_contract(&input, &whole, true);
            assert_eq!(run_chunked(&mut p, &input, 1), whole);
        }
    }
}

#[test]
fn every_call_size_limit_gives_the_same_events_at_every_chunking() {
    // Partly received tags, text that is not a tag, values: wherever the
    // limit falls among them, chunked runs must agree with one-shot.
    let inputs = [
        (Format::Glm, "a <tool_call>f\n</, \"x\n<arg_key>k</arg_key><arg_value>v</arg_value></tool_call> b"),
        (Format::Qwen3Coder, "a <tool_call>\n<function=f>\n<parameter=k>\nv<w\n</parameter>\n</fu x</function>\n</tool_call> b"),
        (Format::MiniMaxM2, "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"k\">v</parameter>\n</inv\n</invoke>\n</minimax:tool_call>"),
        (Format::Hermes, "a <tool_call>{\"name\": \"f\", \"arguments\": {\"k\": \"v\\\"w\"}}</tool_call> b"),
        // Long strings, which chunks inside them stream past the automaton.
        (Format::Hermes, "<tool_call>{\"name\": \"f\", \"arguments\": {\"k\": \"plain text, é 世界 and more\"}}</tool_call>"),
        (Format::Mistral, "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"k\": \"plain text, é 世界 and more\"}}]"),
    ];
    for (format, input) in inputs {
        for max_call_bytes in 1..input.len() + 2 {
            let limits = Limits::default().with_max_call_bytes(max_call_bytes);
            let mut parser = Parser::builder(format).limits(limits).build().unwrap();
            let whole = run_whole(&mut parser, input.as_bytes());
            check_contract(input.as_bytes(), &whole, true);
            for size in [1, 2, 3, 5] {
                let chunked = run_chunked(&mut parser, input.as_bytes(), size);
                assert_eq!(
                    chunked, whole,
                    "{format} limit {max_call_bytes} chunks of {size}"
                );
            }
        }
    }
}

/// A body that stops being JSON is read ahead to its end marker, to try it
/// as relaxed JSON; given back, those bytes are not read ahead again. Before
/// that rule, each of these attempts read to the end of the stream: this
/// input took minutes (quadratic), now a pass.
#[test]
fn relaxed_read_ahead_is_linear() {
    for tail in ["", "</tool_call>"] {
        let text = format!("{}{tail}", "<tool_call>{'x".repeat(5000));
        let input = text.as_bytes();
        let mut parser = parser(Limits::default());
        let events = run_chunked(&mut parser, input, 64);
        check_contract(input, &events, true);
        assert_eq!(calls(&events), 0);
        let kinds = diagnostic_kinds(&events);
        assert_eq!(kinds.len(), 5000, "one failure per attempt");
        assert!(kinds.iter().all(|k| *k == DiagnosticKind::MalformedCall));
        assert_eq!(run_whole(&mut parser, input), events);
    }
}

#[test]
fn events_of_random_bytes_stay_within_a_constant_factor_of_the_input() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let input: Vec<u8> = (0..256 << 10)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let tools: std::sync::Arc<[toolsieve::Tool]> = vec![toolsieve::Tool::new("get_weather")].into();
    for &format in Format::ALL {
        let mut p = Parser::builder(format)
            .tools(tools.clone())
            .build()
            .unwrap();
        let mut written = 0usize;
        let mut diagnostics = 0usize;
        let mut count = |event: Event<'_>| {
            diagnostics += usize::from(matches!(event, Event::Diagnostic(_)));
            written += serde_json::to_vec(&event).unwrap().len() + 1;
        };
        for chunk in input.chunks(4096) {
            p.feed(chunk, &mut count);
        }
        p.finish(&mut count);
        // Every invalid byte becomes U+FFFD (3 bytes) and control bytes
        // \u00XX escapes (6): a small constant, not an event per byte.
        assert!(
            written <= 8 * input.len(),
            "{format:?}: {written} bytes of JSON for {} input bytes",
            input.len()
        );
        assert!(diagnostics < input.len() / 64, "{format:?}: {diagnostics}");
    }
}

#[test]
fn runs_of_invalid_utf8_report_once_at_every_chunking() {
    let mut input = b"ok \xff\xfe\xfd then ".to_vec();
    input.extend_from_slice(&[b'a'; 70]);
    input.extend_from_slice(b"\xc3(\xff and \xe2\x82 end");
    let mut p = Parser::new(Format::Hermes);
    let whole = run_whole(&mut p, &input);
    check_contract(&input, &whole, true);
    // Two runs: the second starts more than the gap after the first.
    let kinds = diagnostic_kinds(&whole);
    assert_eq!(kinds, [DiagnosticKind::InvalidUtf8; 2], "{whole:?}");
    for size in [1, 2, 3, 5, 16] {
        assert_eq!(run_chunked(&mut p, &input, size), whole, "{size}");
    }
    for cut in split_points(&input) {
        assert_eq!(run_cuts(&mut p, &input, &[cut]), whole, "{cut}");
    }
}
