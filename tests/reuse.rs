//! One parser, many streams: after `finish`, or after `reset` in the middle
//! of a stream (inside a call, a held-back marker prefix or a code point),
//! the next stream parses exactly as with a fresh parser; and a parser may
//! move to another thread.

mod common;

use common::*;
use toolsieve::{Event, Format, Parser};

/// Feeds `input[..cut]` in two chunks, so that state is left behind.
fn feed_prefix(parser: &mut Parser, input: &[u8], cut: usize) -> usize {
    let (a, b) = input[..cut].split_at(cut / 2);
    let mut events = 0;
    parser.feed(a, &mut |_| events += 1);
    parser.feed(b, &mut |_| events += 1);
    events
}

#[test]
fn every_golden_case_parses_the_same_after_another_stream() {
    for case in cases() {
        let want = run_whole(&mut case.parser(), &case.input);
        let len = case.input.len();
        for cut in [1, len / 3, len / 2, len.saturating_sub(1)] {
            let cut = cut.min(len);
            let mut parser = case.parser();
            feed_prefix(&mut parser, &case.input, cut);
            parser.finish(&mut |_| {});
            let after_finish = run_whole(&mut parser, &case.input);
            assert_eq!(
                after_finish, want,
                "{}/{} after finish at {cut}",
                case.format, case.name
            );

            let mut parser = case.parser();
            feed_prefix(&mut parser, &case.input, cut);
            parser.reset();
            let after_reset = run_whole(&mut parser, &case.input);
            assert_eq!(
                after_reset, want,
                "{}/{} after reset at {cut}",
                case.format, case.name
            );
        }
    }
}

#[test]
fn reset_emits_nothing() {
    let mut parser = Parser::new(Format::Hermes);
    let mut seen: Vec<Event<'static>> = Vec::new();
    parser.feed_str(
        "Hi. <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": ",
        &mut |e| seen.push(e.into_owned()),
    );
    let before = seen.len();
    parser.reset();
    parser.feed_str("<tool_c", &mut |e| seen.push(e.into_owned()));
    parser.reset();
    assert_eq!(seen.len(), before, "{seen:?}");
    assert_eq!(parser.held_back(), 0);
}

#[test]
fn parsers_and_events_cross_threads() {
    // Servers keep a parser per connection on a multi-threaded runtime.
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Parser>();
    send_sync::<Event<'static>>();
    send_sync::<toolsieve::Tool>();
    let mut parser = Parser::new(Format::Hermes);
    let events = std::thread::spawn(move || {
        parser
            .parse(b"hi")
            .into_iter()
            .map(Event::into_owned)
            .collect::<Vec<_>>()
    })
    .join()
    .unwrap();
    assert_eq!(events.len(), 3);
}
