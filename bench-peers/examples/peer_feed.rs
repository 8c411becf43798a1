//! Streams a bench corpus through toolsieve or the peer, many times, as
//! `benches/peers.rs` does: a small program for counting instructions,
//! which the shared machine's noise does not move. The difference between
//! two runs of different lengths is the work per run:
//!
//! ```sh
//! cargo build --release -p toolsieve-bench-peers --example peer_feed
//! for n in 100 200; do valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/peer_feed tool-parser mixed hermes 0 $n; done
//! ```
//!
//! Arguments: `toolsieve` or `tool-parser`, corpus (`mixed`, `big_arg`, or
//! one of the dense documents, `dense_hermes`, `dense_mistral`,
//! `dense_llama`, read as `hermes` with their delimiters), format
//! (`hermes`, `qwen3-coder`, `glm`, `minimax-m2`, `deepseek-v3.1`,
//! `deepseek-v3`, `kimi-k2`, `deepseek-v3.2`), chunk size in characters
//! (`0` for whole), runs.

use std::process::ExitCode;

use tool_parser::ParserFactory;
use toolsieve::contract::char_chunks;
use toolsieve::{Format, Parser, Tool};
use toolsieve_bench_peers::{corpus, dense_tools, openai_tools, run_ours, run_peer, DENSE};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peer_feed: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [who, corpus_name, format, size, runs] = args.as_slice() else {
        return Err("usage: peer_feed toolsieve|tool-parser CORPUS FORMAT CHUNK RUNS".into());
    };
    let format: Format = format.parse().map_err(|e| format!("{e}"))?;
    let dense = DENSE.iter().find(|(name, ..)| name == corpus_name);
    let peer_name = match (dense, format) {
        (Some((.., peer)), Format::Hermes) => peer,
        (Some(_), _) => return Err("the dense documents are read as hermes".into()),
        (None, Format::Hermes) => "qwen",
        (None, Format::Qwen3Coder) => "qwen_coder",
        (None, Format::Glm) => "glm45_moe",
        (None, Format::MiniMaxM2) => "minimax_m2",
        (None, Format::DeepSeek) => "deepseek31",
        (None, Format::DeepSeekV3) => "deepseek",
        (None, Format::DeepSeekDsml) => "deepseek32",
        (None, Format::KimiK2) => "kimik2",
        (None, Format::KimiK3) => "kimi_k3",
        (None, other) => return Err(format!("the peer has no parser for {other}")),
    };
    let size = match size.parse::<usize>().map_err(|e| e.to_string())? {
        0 => usize::MAX,
        n => n,
    };
    let runs: usize = runs
        .parse()
        .map_err(|e: std::num::ParseIntError| e.to_string())?;
    let (text, tools) = match dense {
        Some(_) => (corpus(&format!("{corpus_name}.txt")), dense_tools()),
        None => (
            corpus(&format!("{corpus_name}_{}.txt", format.name())),
            Tool::list_from_json(&corpus("tools.json")).map_err(|e| e.to_string())?,
        ),
    };
    let pieces = char_chunks(&text, size);
    let mut calls = 0;
    match who.as_str() {
        "toolsieve" => {
            let mut builder = Parser::builder(format).tools(tools);
            if let Some((_, (start, end), _)) = dense {
                builder = builder.delimiters(*start, *end);
            }
            let mut parser = builder.build().map_err(|e| e.to_string())?;
            for _ in 0..runs {
                calls += run_ours(&mut parser, &pieces);
            }
        }
        "tool-parser" => {
            let tools = openai_tools(&tools);
            let factory = ParserFactory::new();
            let mut parser = factory
                .registry()
                .create_parser(peer_name)
                .ok_or("no such peer parser")?;
            for _ in 0..runs {
                calls += run_peer(&mut *parser, &pieces, &tools);
            }
        }
        other => return Err(format!("{other}: toolsieve or tool-parser")),
    }
    println!("{who}: {runs} runs, {calls}");
    Ok(())
}
