//! Low latency (DESIGN.md, rule 7), checked as split invariance of every
//! prefix: after any number of chunks, the events out so far are those the
//! same bytes give fed whole (adjacent deltas merged, no `finish`). An event
//! a chunking delays to a later feed shows here, though the stream's events
//! in the end are the same; a steady path that keeps a chunk the automaton
//! would have decided on is caught this way.

mod common;

use common::*;
use toolsieve::event::push_merged;
use toolsieve::{Event, Parser};

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
            let cuts: Vec<usize> = (size..case.input.len()).step_by(size).collect();
            for (k, &end) in cuts.iter().chain([&case.input.len()]).enumerate() {
                let bytes = &case.input[..end];
                let chunked = fed_so_far(case.parser(), bytes, &cuts[..k]);
                let whole = fed_so_far(case.parser(), bytes, &[]);
                assert_eq!(
                    chunked, whole,
                    "{}/{}: {size}-byte chunks, the first {end} bytes",
                    case.format, case.name
                );
            }
        }
    });
}
