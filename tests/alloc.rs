//! Text-only input costs no heap allocation per chunk: deltas borrow from the
//! chunk and the parser's buffers stay untouched. Failed call attempts in a
//! long chunk copy no more than they read.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use toolsieve::{Event, Format, Parser, Tool};

struct Counting;

thread_local! {
    /// Set on the thread under test: the test harness (and the other
    /// tests) allocate on their own threads meanwhile, which must not count.
    static COUNTED: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    /// Bytes allocated and not yet freed while counted, and the most there
    /// ever were.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    /// Bytes allocated in all while counted (growth included).
    static TOTAL: Cell<usize> = const { Cell::new(0) };
}

fn count(grown: isize) {
    if COUNTED.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + usize::from(grown > 0)));
        let live = LIVE.with(|l| {
            l.set(l.get() + grown);
            l.get()
        });
        PEAK.with(|p| p.set(p.get().max(live)));
        TOTAL.with(|t| t.set(t.get() + usize::try_from(grown).unwrap_or(0)));
    }
}

fn size(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(size(layout.size()));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-size(layout.size()));
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(size(new_size) - size(layout.size()));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The tools of the bench corpora (morph-xml needs them).
fn bench_tools() -> Vec<Tool> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/bench");
    let tools = std::fs::read_to_string(format!("{dir}/tools.json")).expect("tools.json");
    Tool::list_from_json(&tools).expect("tools")
}

/// How many allocations `run` makes on this thread.
fn allocations_in(run: impl FnOnce()) -> usize {
    COUNTED.with(|c| c.set(true));
    let before = ALLOCATIONS.with(Cell::get);
    run();
    let after = ALLOCATIONS.with(Cell::get);
    COUNTED.with(|c| c.set(false));
    after - before
}

#[test]
fn text_only_chunks_do_not_allocate() {
    let prose =
        "Plain prose with punctuation, numbers 1 2 3, unicode é 世界, `ticks`, a < b and <b>x</b>. "
            .repeat(64);
    let prose = prose.as_str();
    let tools = bench_tools();
    for &format in Format::ALL {
        let mut parser = Parser::builder(format)
            .tools(tools.clone())
            .build()
            .unwrap();
        let mut bytes = 0usize;
        // Warm up: the first stream may size the parser's buffers.
        parser.feed_str("warm up", &mut |_| {});
        parser.finish(&mut |_| {});
        // Byte chunks: code points split across them are completed inline,
        // and a `<` held until it proves to begin no marker comes back
        // inline too.
        for size in [1, 4, 16, 64, 4096] {
            let (allocations, text) = feed_in_chunks(&mut parser, prose, size, |e| match e {
                Event::TextDelta { delta, .. } => delta.len(),
                _ => 0,
            });
            bytes += text;
            assert_eq!(allocations, 0, "{format} allocated at chunk size {size}");
            parser.finish(&mut |_| {});
        }
        assert_eq!(bytes, prose.len() * 5);
    }
}

/// Feeds `text` to `parser` in byte chunks of `size` (no `finish`): the
/// allocations that took, and the bytes `counted` finds in the events.
fn feed_in_chunks(
    parser: &mut Parser,
    text: &str,
    size: usize,
    counted: fn(&Event<'_>) -> usize,
) -> (usize, usize) {
    let mut bytes = 0;
    let allocations = allocations_in(|| {
        for chunk in text.as_bytes().chunks(size) {
            parser.feed(chunk, &mut |e| bytes += counted(&e));
        }
    });
    (allocations, bytes)
}

/// Reasoning streams as text does: a stream that starts inside `<think>`
/// allocates nothing per chunk either, byte chunks included.
#[test]
fn reasoning_chunks_do_not_allocate() {
    let prose = "Let me think: 1 2 3, unicode é 世界 and `ticks`. ".repeat(64);
    let tools = bench_tools();
    for &format in Format::ALL {
        let reasoning = toolsieve::Reasoning::think().starting_open(true);
        let mut parser = Parser::builder(format)
            .tools(tools.clone())
            .reasoning(reasoning)
            .build()
            .unwrap();
        parser.feed_str("warm up", &mut |_| {});
        parser.finish(&mut |_| {});
        for size in [1, 4, 16, 64] {
            let (allocations, bytes) = feed_in_chunks(&mut parser, &prose, size, |e| match e {
                Event::ReasoningDelta { delta, .. } => delta.len(),
                _ => 0,
            });
            assert_eq!(allocations, 0, "{format} allocated at chunk size {size}");
            assert_eq!(bytes, prose.len(), "{format} at chunk size {size}");
            parser.finish(&mut |_| {});
        }
    }
}

/// Call attempts that fail early in a long chunk (a one-shot parse of a
/// stream of broken calls) copy a bounded multiple of what they read into
/// the parser's buffers, not the rest of the chunk: before, each of these
/// attempts copied everything after it (quadratic time, and a buffer as
/// large as the input).
#[test]
fn failed_attempts_in_a_long_chunk_copy_what_they_read() {
    let tools = vec![
        Tool::new("f"),
        Tool::new("get_weather").with_parameters(serde_json::json!({
            "type": "object", "properties": {"city": {"type": "string"}}
        })),
    ];
    let cases: [(Format, &str); 6] = [
        // XML in a hermes block, failing at the next tag.
        (Format::Hermes, "<tool_call>"),
        // A body read ahead as relaxed JSON to its end marker.
        (
            Format::Gemma,
            "```tool_call\n{\"name\": \"f\", \"arguments\": {\"a\": ",
        ),
        (Format::Qwen3Coder, "<function=f>"),
        (Format::Glm, "<tool_call>f<arg_key>"),
        (
            Format::MiniMaxM2,
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=",
        ),
        (Format::MorphXml, "<get_weather "),
    ];
    for (format, unit) in cases {
        let input = unit.repeat(256 * 1024 / unit.len());
        let mut parser = Parser::builder(format)
            .tools(tools.clone())
            .build()
            .unwrap();
        COUNTED.with(|c| c.set(true));
        let start = LIVE.with(Cell::get);
        PEAK.with(|p| p.set(start));
        parser.feed_str(&input, &mut |_| {});
        parser.finish(&mut |_| {});
        let peak = PEAK.with(Cell::get) - start;
        COUNTED.with(|c| c.set(false));
        assert!(
            peak < 64 * 1024,
            "{format}: {peak} bytes held at once for a {} byte chunk",
            input.len()
        );
    }
}

/// Relaxed calls that each lack their end marker, one after another, before
/// the one end marker: a call given back from an earlier call's read-ahead
/// may be read ahead again (so that the second of two such calls is
/// found), but the bytes read twice stay a bounded multiple of the stream.
/// Without the bound each call would read ahead to the far end marker
/// again (quadratic).
#[test]
fn relaxed_calls_read_ahead_again_within_a_linear_budget() {
    for format in [Format::Hermes, Format::Gemma] {
        let (start, end) = match format {
            Format::Gemma => ("```tool_call\n", "\n```"),
            _ => ("<tool_call>", "</tool_call>"),
        };
        let unit = format!("{start}{{'name': 'get_time', 'arguments': {{}}}}\n");
        let input = unit.repeat(2000) + end;
        let mut parser = Parser::new(format);
        let mut calls = 0;
        COUNTED.with(|c| c.set(true));
        let before = TOTAL.with(Cell::get);
        parser.feed_str(&input, &mut |e| {
            calls += usize::from(matches!(e, Event::ToolCall { .. }))
        });
        parser.finish(&mut |e| calls += usize::from(matches!(e, Event::ToolCall { .. })));
        let total = TOTAL.with(Cell::get) - before;
        COUNTED.with(|c| c.set(false));
        assert!(calls >= 2, "{format}: {calls} calls");
        assert!(
            total < 40 * input.len(),
            "{format}: {total} bytes allocated for a {} byte input",
            input.len()
        );
    }
}

/// Streaming a long argument allocates a few times per call (its name, its
/// delivered arguments), never per chunk: from 1-byte to 64-byte chunks the
/// count stays the same small number, in every format, for code and for
/// CJK text. (An XML value's JSON escapes go out as static strings between
/// runs of the chunk; a character a chunk cuts is completed inline.)
#[test]
fn long_arguments_allocate_per_call_not_per_chunk() {
    for &format in Format::ALL {
        for kind in ["big_arg", "cjk_arg"] {
            let (mut parser, input) = bench_corpus(kind, format);
            // Byte chunks, so that many split a character.
            for size in [1, 4, 16, 64] {
                let (allocations, calls) = stream_counting_calls(&mut parser, &input, size);
                assert_eq!(calls, 1, "{format} {kind}");
                assert!(
                    allocations <= 32,
                    "{format} {kind} at {size}-byte chunks: {allocations} allocations"
                );
            }
        }
    }
}

/// The mixed corpora (prose and calls of every kind the bench has) allocate
/// a few times per call, whatever the chunk size: a call's name and
/// delivered arguments, and what its format builds per parameter; never
/// per chunk. An XML parameter's built delta (`, "city": "`, or the whole
/// `, "units": "metric"` of a typed value) goes out inline.
#[test]
fn mixed_streams_allocate_per_call_not_per_chunk() {
    for &format in Format::ALL {
        let (mut parser, input) = bench_corpus("mixed", format);
        let per_call = if format == Format::MorphXml { 7 } else { 6 };
        for size in [1, 4, 16, 64] {
            let (allocations, calls) = stream_counting_calls(&mut parser, &input, size);
            assert!(calls >= 6, "{format}: {calls} calls");
            assert!(
                allocations <= per_call * calls,
                "{format} at {size}-byte chunks: {allocations} allocations for {calls} calls"
            );
        }
        // Token-sized chunks: what the events must own and no more (a
        // step that builds more than a delta holds inline, as 64-byte
        // chunks may, takes one more).
        let owned = match format {
            // A value's JSON that outgrows a delta, and its delta, besides.
            Format::MorphXml => 6,
            // The model's call id too, in both events.
            Format::KimiK2 | Format::Cohere => 5,
            // The call's name in its two events, and its arguments.
            _ => 3,
        };
        let (allocations, calls) = stream_counting_calls(&mut parser, &input, 4);
        assert!(
            allocations <= owned * calls,
            "{format} at 4-byte chunks: {allocations} allocations for {calls} calls"
        );
    }
}

/// Streams `input` through `parser` in `size`-byte chunks, after a warm-up
/// stream of it (the first stream sizes the parser's buffers): the
/// allocations the counted stream made, and its calls.
fn stream_counting_calls(parser: &mut Parser, input: &str, size: usize) -> (usize, usize) {
    parser.feed_str(input, &mut |_| {});
    parser.finish(&mut |_| {});
    let mut calls = 0;
    let mut count = |e: Event<'_>| calls += usize::from(matches!(e, Event::ToolCall { .. }));
    let allocations = allocations_in(|| {
        for chunk in input.as_bytes().chunks(size) {
            parser.feed(chunk, &mut count);
        }
        parser.finish(&mut count);
    });
    (allocations, calls)
}

/// A parser of `format` with the bench's tools, and its bench corpus of
/// that kind (`mixed`, `big_arg`, `cjk_arg`).
fn bench_corpus(kind: &str, format: Format) -> (Parser, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/bench");
    let input = std::fs::read_to_string(format!("{dir}/{kind}_{format}.txt"))
        .unwrap_or_else(|e| panic!("{kind}_{format}.txt: {e}"));
    let parser = Parser::builder(format)
        .tools(bench_tools())
        .build()
        .unwrap();
    (parser, input)
}
