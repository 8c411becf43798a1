//! Feeds a bench corpus to the parser in N-byte chunks, as
//! `benches/throughput.rs` does, and prints the time per chunk. Small and
//! deterministic, for counting instructions on a noisy machine:
//!
//! ```sh
//! cargo build --release --example chunked_feed
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/chunked_feed mixed 4 hermes 50
//! ```
//!
//! Arguments: corpus (`mixed`, `prose`, `cjk_prose`, `big_arg`, `small_arg`, `cjk_arg`, or a path
//! to any file), chunk size
//! in bytes (`0` for whole), format, and about how many 64 KiB of input to
//! feed in all (default 50): whole copies of the corpus, as many as fit.
//! The instruction count divided by the bytes fed, which the program
//! prints, is the cost per input byte (for the 4 KB `mixed` corpora that
//! many times 65 536 is within 0.1% of it; for a 64 KB `big_arg` corpus
//! it can be 14% over). The process's start-up (the loader, reading the
//! corpus and the tools) is about 0.6 million instructions: 0.2 per byte
//! at the default amount, 1.9 at 5.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use toolsieve::{Format, Parser, Tool};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chunked_feed: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let corpus = args.first().map_or("mixed", String::as_str);
    let size = match args.get(1).map(|s| s.parse::<usize>()) {
        None => 4,
        Some(Ok(0)) => usize::MAX,
        Some(Ok(n)) => n,
        Some(Err(e)) => return Err(format!("chunk size: {e}")),
    };
    let format: Format = match args.get(2) {
        None => Format::Hermes,
        Some(name) => name.parse().map_err(|e| format!("{e}"))?,
    };
    let blocks: usize = match args.get(3).map(|s| s.parse()) {
        None => 50,
        Some(Ok(n)) => n,
        Some(Err(e)) => return Err(format!("amount: {e}")),
    };
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/bench");
    let file = match corpus {
        "prose" | "cjk_prose" => format!("{dir}/{corpus}.txt"),
        path if path.contains('/') => path.to_string(),
        other => format!("{dir}/{other}_{format}.txt"),
    };
    let input = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
    let tools = std::fs::read_to_string(format!("{dir}/tools.json")).map_err(|e| e.to_string())?;
    let tools = Tool::list_from_json(&tools).map_err(|e| e.to_string())?;
    let mut parser = Parser::builder(format)
        .tools(tools)
        .build()
        .map_err(|e| e.to_string())?;
    let reps = (blocks * 65536 / input.len().max(1)).max(1);
    let chunks = input.chunks(size.min(input.len().max(1))).count();
    let start = Instant::now();
    for _ in 0..reps {
        for chunk in input.chunks(size.min(input.len().max(1))) {
            parser.feed(black_box(chunk), &mut |e| {
                black_box(&e);
            });
        }
        parser.finish(&mut |e| {
            black_box(&e);
        });
    }
    let elapsed = start.elapsed();
    let per_chunk = elapsed.as_nanos() as f64 / (reps * chunks) as f64;
    let rate = (reps * input.len()) as f64 / elapsed.as_secs_f64() / 1e6;
    let size = if size == usize::MAX {
        "whole".to_string()
    } else {
        size.to_string()
    };
    let fed = reps * input.len();
    println!(
        "{corpus} {format} chunks of {size}: {per_chunk:.1} ns/chunk, {rate:.0} MB/s, {fed} bytes fed"
    );
    Ok(())
}
