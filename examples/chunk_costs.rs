//! Feeds a file in N-byte chunks to a warm parser, marking each chunk
//! with a call of [`chunk_boundary`], so that callgrind can count the
//! instructions of every chunk on its own. Where
//! `examples/chunked_feed.rs` gives the cost per byte of a whole corpus,
//! this says which chunks of a call cost what: a chunk of prose, one
//! that waits for the rest of a tag, one that completes a tag, one that
//! streams an argument.
//!
//! ```sh
//! cargo build --release --example chunk_costs
//! python3 benches/python/chunk_costs.py target/release/examples/chunk_costs \
//!     testdata/qwen3-coder/typed_parameters.txt 4 qwen3-coder
//! ```
//!
//! Arguments: the file, the chunk size in bytes, the format, and how many
//! times the file is fed before the counted pass (default 3; the counted
//! pass then runs on grown buffers, as a server's long-lived parser does).
//! The tools are those of the bench corpora (`testdata/bench/tools.json`).
//! Run alone it prints the number of chunks of the counted pass.

use std::hint::black_box;
use std::process::ExitCode;

use toolsieve::{Format, Parser, Tool};

/// Called before each chunk of the counted pass (and once after the
/// last): callgrind's `--dump-before=chunk_costs::chunk_boundary` writes
/// the instructions since the previous call to a file of its own.
#[inline(never)]
fn chunk_boundary(index: usize) {
    black_box(index);
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chunk_costs: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, size, format, rest @ ..] = args.as_slice() else {
        return Err("usage: chunk_costs FILE CHUNK_SIZE FORMAT [WARM_PASSES]".into());
    };
    let input = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let size: usize = match size.parse() {
        Ok(0) | Err(_) => return Err(format!("chunk size: {size:?} is not a positive number")),
        Ok(n) => n,
    };
    let format: Format = format.parse().map_err(|e| format!("{e}"))?;
    let warm: usize = match rest.first() {
        None => 3,
        Some(n) => n.parse().map_err(|e| format!("warm passes: {e}"))?,
    };
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/bench");
    let tools = std::fs::read_to_string(format!("{dir}/tools.json")).map_err(|e| e.to_string())?;
    let tools = Tool::list_from_json(&tools).map_err(|e| e.to_string())?;
    let mut parser = Parser::builder(format)
        .tools(tools)
        .build()
        .map_err(|e| e.to_string())?;
    for _ in 0..warm {
        for chunk in input.chunks(size) {
            parser.feed(black_box(chunk), &mut |e| {
                black_box(&e);
            });
        }
        parser.finish(&mut |e| {
            black_box(&e);
        });
    }
    // The callback of `examples/chunked_feed.rs`: the counts compare.
    for (index, chunk) in input.chunks(size).enumerate() {
        chunk_boundary(index);
        parser.feed(black_box(chunk), &mut |e| {
            black_box(&e);
        });
    }
    let chunks = input.chunks(size).len();
    chunk_boundary(chunks);
    parser.finish(&mut |e| {
        black_box(&e);
    });
    println!("{file} {format} chunks of {size}: {chunks} counted");
    Ok(())
}
