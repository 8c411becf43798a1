//! Golden cases: every `testdata/<format>/<case>.txt` parses to the events in
//! `<case>.jsonl` (adjacent deltas merged), whatever the chunking.
//! `TOOLSIEVE_BLESS=1 cargo test --test golden` rewrites the expectations.

mod common;

use common::*;

#[test]
fn golden_cases_match_expected_events() {
    let bless = std::env::var_os("TOOLSIEVE_BLESS").is_some();
    let cases = cases();
    assert!(cases.len() >= 50, "golden cases went missing");
    let mut failures = Vec::new();
    for case in &cases {
        let events = run_whole(&mut case.parser(), &case.input);
        let got = to_jsonl(&events);
        if bless {
            std::fs::write(case.expected_path(), &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(case.expected_path())
            .unwrap_or_else(|_| panic!("{}: no expected events; bless them", case.name));
        if got != want {
            failures.push(format!(
                "{}/{}\n--- want\n{want}--- got\n{got}",
                case.format, case.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn golden_cases_keep_the_contract() {
    for case in cases() {
        let mut parser = case.parser();
        let events = run_whole(&mut parser, &case.input);
        // The case's reasoning tags, or the format's own.
        if let Err(e) =
            toolsieve::contract::check_with(&case.input, &events, true, parser.reasoning())
        {
            panic!("{}/{}: {e}", case.format, case.name);
        }
    }
}

#[test]
fn golden_cases_are_split_invariant_at_every_split_point() {
    // Quadratic in each case's length: the longest check of the suite.
    check_cases_in_parallel(&cases(), |case| {
        let mut parser = case.parser();
        let whole = run_whole(&mut parser, &case.input);
        for cut in split_points(&case.input) {
            let split = run_cuts(&mut parser, &case.input, &[cut]);
            assert_eq!(split, whole, "{}/{} split at {cut}", case.format, case.name);
        }
    });
}

#[test]
fn golden_cases_are_split_invariant_in_small_chunks() {
    for case in cases() {
        let mut parser = case.parser();
        let whole = run_whole(&mut parser, &case.input);
        for size in [1, 2, 3, 4, 7, 16, 64] {
            let chunked = run_chunked(&mut parser, &case.input, size);
            assert_eq!(
                chunked, whole,
                "{}/{} chunk size {size}",
                case.format, case.name
            );
        }
    }
}

#[test]
fn golden_cases_fed_as_str_match_bytes() {
    let mut checked = 0;
    for case in cases() {
        let Ok(text) = std::str::from_utf8(&case.input) else {
            continue;
        };
        checked += 1;
        let mut parser = case.parser();
        let whole = run_whole(&mut parser, &case.input);
        let fed = toolsieve::contract::run_str_cuts(&mut parser, text, &[]);
        assert_eq!(fed, whole, "{}/{} as one &str", case.format, case.name);
        parser.reset();
        let mut one_shot = Vec::new();
        for event in parser.parse_str(text) {
            toolsieve::event::push_merged(&mut one_shot, event);
        }
        assert_eq!(
            one_shot, whole,
            "{}/{} by parse_str",
            case.format, case.name
        );
        for size in [1, 3, 16, 33, 64, 200] {
            let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
            let fed = toolsieve::contract::run_str_cuts(&mut parser, text, &cuts);
            assert_eq!(
                fed, whole,
                "{}/{} as &str chunks of {size}",
                case.format, case.name
            );
        }
    }
    assert!(checked >= 100, "only {checked} UTF-8 golden cases");
}

/// A parser that reads reasoning alone (`read_calls(false)`, as the vLLM
/// and SGLang reasoning plugins build it) finds the same reasoning as the
/// full parser in every case with `<think>` tags whose calls inside
/// reasoning stay reasoning; all else is text, no call is read, and the
/// contract holds at 1- to 8-byte chunks. With `ends_at_calls`, a call's
/// marker still ends the reasoning, as text.
#[test]
fn reasoning_only_parsers_find_the_same_reasoning() {
    let reasoning_of = |events: &Events| -> String {
        events
            .iter()
            .filter_map(|e| match e {
                toolsieve::Event::ReasoningDelta { delta, .. } => Some(delta.to_string()),
                _ => None,
            })
            .collect()
    };
    let mut checked = 0;
    for case in cases() {
        let Some(reasoning) = case.reasoning.clone().filter(|r| !r.calls_inside) else {
            continue;
        };
        let full = run_whole(&mut case.parser(), &case.input);
        let mut builder = toolsieve::Parser::builder(case.format)
            .read_calls(false)
            .reasoning(reasoning);
        if let Some(tools) = &case.tools {
            builder = builder.tools(tools.clone());
        }
        let mut parser = builder.build().expect("reasoning-only parser");
        let whole = run_whole(&mut parser, &case.input);
        let name = format!("{}/{}", case.format, case.name);
        assert_eq!(reasoning_of(&whole), reasoning_of(&full), "{name}");
        assert!(tool_calls(&whole).is_empty(), "{name}");
        if let Err(e) =
            toolsieve::contract::check_with(&case.input, &whole, true, parser.reasoning())
        {
            panic!("{name}: {e}");
        }
        for size in 1..=8 {
            assert_eq!(
                run_chunked(&mut parser, &case.input, size),
                whole,
                "{name} at {size}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 100, "reasoning cases went missing: {checked}");
}
