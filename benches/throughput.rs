//! Engine throughput by format × corpus × chunk size, with the yardsticks of
//! DESIGN.md measured in the same run: a bare memchr scan of the same bytes,
//! and serde_json over the same arguments.
//!
//! `cargo bench --bench throughput` (all), or filter: `cargo bench -- mixed/hermes`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use toolsieve::{Event, Format, Parser, Tool};

const CHUNKS: [usize; 5] = [1, 4, 16, 64, usize::MAX];

fn corpus(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/bench/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The corpora's tool list (XML formats type their values with it).
fn parser(format: Format) -> Parser {
    let tools = Tool::list_from_json(&String::from_utf8(corpus("tools.json")).unwrap()).unwrap();
    Parser::builder(format).tools(tools).build().unwrap()
}

fn chunk_label(size: usize) -> String {
    if size == usize::MAX {
        "whole".into()
    } else {
        size.to_string()
    }
}

/// Bytes of output in an event (counted so the work cannot be optimised
/// away).
fn output_len(e: &Event<'_>) -> usize {
    match e {
        Event::TextDelta { delta, .. } | Event::ToolInputDelta { delta, .. } => delta.len(),
        Event::ToolCall { input, .. } => input.len(),
        _ => 1,
    }
}

/// Feeds `input` in `size`-byte chunks; returns the bytes of output seen, so
/// the work cannot be optimised away.
fn run(parser: &mut Parser, input: &[u8], size: usize) -> usize {
    let mut seen = 0usize;
    let mut sink = |e: Event<'_>| seen += output_len(&e);
    for chunk in input.chunks(size.min(input.len().max(1))) {
        parser.feed(black_box(chunk), &mut sink);
    }
    parser.finish(&mut sink);
    seen
}

/// [`run`] for a whole `&str` input.
fn run_str(parser: &mut Parser, input: &str) -> usize {
    let mut seen = 0usize;
    let mut sink = |e: Event<'_>| seen += output_len(&e);
    parser.feed_str(black_box(input), &mut sink);
    parser.finish(&mut sink);
    seen
}

fn engine(c: &mut Criterion) {
    let corpora = [
        ("mixed", "mixed_{f}.txt"),
        ("prose", "prose.txt"),
        ("big_arg", "big_arg_{f}.txt"),
        ("small_arg", "small_arg_{f}.txt"),
        ("cjk_arg", "cjk_arg_{f}.txt"),
    ];
    for (label, file) in corpora {
        let mut group = c.benchmark_group(label);
        for &format in Format::ALL {
            let input = corpus(&file.replace("{f}", format.name()));
            group.throughput(Throughput::Bytes(input.len() as u64));
            let mut parser = parser(format);
            for size in CHUNKS {
                let id = BenchmarkId::new(format.name(), chunk_label(size));
                group.bench_with_input(id, &input, |b, input| {
                    b.iter(|| run(&mut parser, input, size))
                });
            }
            // The same input given as `&str` (text needs no validation).
            let text = std::str::from_utf8(&input).expect("corpora are UTF-8");
            let id = BenchmarkId::new(format.name(), "whole-str");
            group.bench_with_input(id, text, |b, text| b.iter(|| run_str(&mut parser, text)));
        }
        // Yardstick: the physical limit for finding a marker's first byte.
        let input = corpus(&file.replace("{f}", "hermes"));
        group.bench_with_input(BenchmarkId::new("memchr", "whole"), &input, |b, input| {
            b.iter(|| memchr::memchr_iter(b'<', black_box(input)).count())
        });
        group.finish();
    }
}

/// The arguments JSON of the first call in a corpus.
fn arguments_of(format: Format, input: &[u8]) -> Vec<u8> {
    parser(format)
        .parse(input)
        .into_iter()
        .find_map(|e| match e {
            Event::ToolCall { input, .. } => Some(input.into_owned().into_bytes()),
            _ => None,
        })
        .expect("corpus has a call")
}

fn arguments(c: &mut Criterion) {
    let mut group = c.benchmark_group("arguments");
    for file in [
        "big_arg_hermes.txt",
        "small_arg_hermes.txt",
        "big_arg_qwen3-coder.txt",
        "small_arg_qwen3-coder.txt",
    ] {
        let format = if file.contains("qwen") {
            Format::Qwen3Coder
        } else {
            Format::Hermes
        };
        let input = corpus(file);
        let args = arguments_of(format, &input);
        // The whole call through the engine (markers, name, streaming deltas)…
        group.throughput(Throughput::Bytes(args.len() as u64));
        let mut parser = parser(format);
        group.bench_with_input(
            BenchmarkId::new("toolsieve-call", file),
            &input,
            |b, input| b.iter(|| run(&mut parser, input, usize::MAX)),
        );
        // …against serde_json reading just the arguments.
        group.bench_with_input(
            BenchmarkId::new("serde_json-value", file),
            &args,
            |b, args| {
                b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(args)).unwrap())
            },
        );
        group.bench_with_input(
            BenchmarkId::new("serde_json-ignored", file),
            &args,
            |b, args| {
                b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(black_box(args)).unwrap())
            },
        );
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = engine, arguments
}
criterion_main!(benches);
