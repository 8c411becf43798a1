//! toolsieve against the `tool-parser` crate (the SGLang model gateway's
//! parser), on the formats both support, in one run: the same corpora, the
//! same chunkings, the same tool list, both streaming. Besides the shared
//! corpora, documents of dense calls with large nested arguments in the JSON
//! layouts the peer's own benchmarks cover (hermes blocks, Mistral's
//! `[TOOL_CALLS]` array, Llama's `<|python_tag|>`), with a tool list
//! naming their tools.
//!
//! `cargo bench -p toolsieve-bench-peers`

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use tool_parser::ParserFactory;
use toolsieve::contract::char_chunks;
use toolsieve::{Format, Parser, Tool};
use toolsieve_bench_peers::{corpus, dense_tools, openai_tools, run_ours, run_peer, DENSE};

const CHUNKS: [usize; 5] = [1, 4, 16, 64, usize::MAX];

/// toolsieve format, tool-parser's parser for it.
const PAIRS: [(Format, &str); 14] = [
    (Format::Hermes, "qwen"),
    (Format::Qwen3Coder, "qwen_coder"),
    (Format::Glm, "glm45_moe"),
    (Format::MiniMaxM2, "minimax_m2"),
    (Format::DeepSeek, "deepseek31"),
    (Format::DeepSeekV3, "deepseek"),
    (Format::DeepSeekDsml, "deepseek32"),
    (Format::KimiK2, "kimik2"),
    (Format::Llama3Json, "llama"),
    (Format::Mistral, "mistral"),
    (Format::Pythonic, "pythonic"),
    (Format::Cohere, "cohere"),
    (Format::Gemma4, "gemma4"),
    (Format::KimiK3, "kimi_k3"),
];

fn label(size: usize) -> String {
    if size == usize::MAX {
        "whole".into()
    } else {
        size.to_string()
    }
}

fn peers(c: &mut Criterion) {
    let tools_json = corpus("tools.json");
    let ours_tools = Tool::list_from_json(&tools_json).unwrap();
    let openai_tools = openai_tools(&ours_tools);
    let factory = ParserFactory::new();
    for corpus_name in ["mixed", "big_arg"] {
        for (format, peer_name) in PAIRS {
            let text = corpus(&format!("{corpus_name}_{}.txt", format.name()));
            let mut group = c.benchmark_group(format!("peers/{corpus_name}/{}", format.name()));
            group.throughput(Throughput::Bytes(text.len() as u64));
            let mut ours = Parser::builder(format)
                .tools(ours_tools.clone())
                .build()
                .unwrap();
            // The peer re-parses its buffer per chunk: on the 64 KB argument
            // small chunks take minutes per sample, so they are left out.
            let sizes: &[usize] = if corpus_name == "big_arg" {
                &CHUNKS[3..]
            } else {
                &CHUNKS
            };
            let name = format!("{corpus_name}/{}", format.name());
            race(
                &mut group,
                &name,
                &text,
                sizes,
                (&mut ours, (&factory, peer_name)),
                &openai_tools,
            );
            group.finish();
        }
    }
}

/// One-shot, the whole text at once: toolsieve's `&str` entry point
/// against the peer's `parse_complete`, on the mixed corpus, the 64 KB
/// argument, and prose without calls.
fn complete(c: &mut Criterion) {
    let tools_json = corpus("tools.json");
    let ours_tools = Tool::list_from_json(&tools_json).unwrap();
    let openai_tools = openai_tools(&ours_tools);
    let factory = ParserFactory::new();
    let prose = corpus("prose.txt");
    for (format, peer_name) in PAIRS {
        for corpus_name in ["mixed", "big_arg", "prose"] {
            let text = match corpus_name {
                "prose" => prose.clone(),
                _ => corpus(&format!("{corpus_name}_{}.txt", format.name())),
            };
            let mut group = c.benchmark_group(format!("complete/{corpus_name}/{}", format.name()));
            group.throughput(Throughput::Bytes(text.len() as u64));
            let mut ours = Parser::builder(format)
                .tools(ours_tools.clone())
                .build()
                .unwrap();
            let name = format!("complete/{corpus_name}/{}", format.name());
            race(
                &mut group,
                &name,
                &text,
                &[usize::MAX],
                (&mut ours, (&factory, peer_name)),
                &openai_tools,
            );
            group.finish();
        }
    }
}

fn dense(c: &mut Criterion) {
    let factory = ParserFactory::new();
    let ours_tools = dense_tools();
    let openai_tools = openai_tools(&ours_tools);
    for (name, (start, end), peer_name) in DENSE {
        let text = corpus(&format!("{name}.txt"));
        let mut group = c.benchmark_group(format!("peers/{name}"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        let mut ours = Parser::builder(Format::Hermes)
            .tools(ours_tools.clone())
            .delimiters(start, end)
            .build()
            .unwrap();
        race(
            &mut group,
            name,
            &text,
            &CHUNKS,
            (&mut ours, (&factory, peer_name)),
            &openai_tools,
        );
        group.finish();
    }
}

/// Benches toolsieve and the peer (the factory's parser of that name) on
/// `text` at each chunk size, after saying how many calls each finds (the
/// race is only fair if they agree).
fn race(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    text: &str,
    sizes: &[usize],
    (ours, (factory, peer_name)): (&mut Parser, (&ParserFactory, &str)),
    tools: &[openai_protocol::common::Tool],
) {
    let mut theirs = factory
        .registry()
        .create_parser(peer_name)
        .expect("peer parser");
    let theirs = &mut *theirs;
    // A peer that panicked is not timed again (its state is unknown).
    let mut peer_ok = true;
    for &size in sizes {
        let pieces = char_chunks(text, size);
        let ours_calls = run_ours(ours, &pieces);
        let theirs_calls = match peer_ok {
            true => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_peer(theirs, &pieces, tools)
            }))
            .ok(),
            false => None,
        };
        peer_ok = theirs_calls.is_some();
        let theirs_label = theirs_calls.map_or("panicked; not timed".into(), |n| n.to_string());
        eprintln!(
            "{name} at {}: toolsieve {ours_calls} calls, tool-parser {theirs_label}",
            label(size)
        );
        group.bench_with_input(
            BenchmarkId::new("toolsieve", label(size)),
            &pieces,
            |b, pieces| b.iter(|| run_ours(ours, pieces)),
        );
        if peer_ok {
            group.bench_with_input(
                BenchmarkId::new("tool-parser", label(size)),
                &pieces,
                |b, pieces| b.iter(|| run_peer(theirs, pieces, tools)),
            );
        }
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
}

criterion_group! {
    name = benches;
    config = config();
    targets = peers, complete, dense
}
criterion_main!(benches);
