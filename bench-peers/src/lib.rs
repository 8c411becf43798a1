//! What `benches/peers.rs` and `examples/peer_feed.rs` share: the corpora,
//! the tool list in the peer's terms, and one streamed run of each parser.

use std::hint::black_box;

use futures::executor::block_on;
use tool_parser::ToolParser;
use toolsieve::{Event, Parser, Tool};

/// A corpus of `testdata/bench/`.
///
/// # Panics
///
/// If the file cannot be read (a bench without its data).
pub fn corpus(name: &str) -> String {
    let path = format!("{}/../testdata/bench/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The dense-call documents: corpus name, toolsieve's delimiters (for
/// its `hermes` automaton), the peer's parser for them.
pub const DENSE: [(&str, (&str, &str), &str); 3] = [
    ("dense_hermes", ("<tool_call>", "</tool_call>"), "qwen"),
    ("dense_mistral", ("[TOOL_CALLS]", ""), "mistral"),
    ("dense_llama", ("<|python_tag|>", ""), "llama"),
];

/// The tools the dense documents call.
pub fn dense_tools() -> Vec<Tool> {
    [
        "create_pipeline",
        "schedule_job",
        "run_query",
        "execute_code",
    ]
    .into_iter()
    .map(|name| Tool::new(name).with_parameters(serde_json::json!({"type": "object"})))
    .collect()
}

/// The tool list in the peer's terms.
///
/// # Panics
///
/// If a tool does not convert (its parameters are not a JSON object).
pub fn openai_tools(tools: &[Tool]) -> Vec<openai_protocol::common::Tool> {
    tools
        .iter()
        .map(|t| {
            serde_json::from_value(serde_json::json!({
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters}
            }))
            .unwrap()
        })
        .collect()
}

/// Streams `pieces` through toolsieve (one piece: the whole text at once);
/// returns the calls it delivered.
pub fn run_ours(parser: &mut Parser, pieces: &[&str]) -> usize {
    let mut seen = 0usize;
    let mut calls = 0;
    let mut sink = |e: Event<'_>| match e {
        Event::TextDelta { delta, .. } | Event::ToolInputDelta { delta, .. } => seen += delta.len(),
        Event::ToolCall { .. } => calls += 1,
        _ => {}
    };
    for piece in pieces {
        parser.feed_str(black_box(piece), &mut sink);
    }
    parser.finish(&mut sink);
    black_box(seen);
    calls
}

/// Streams `pieces` into the peer; returns the calls it announced. One
/// piece (the whole text) goes to its one-shot `parse_complete` instead:
/// its streaming entry point announces one call per invocation, so a
/// single invocation would leave most of a document unparsed.
pub fn run_peer(
    parser: &mut dyn ToolParser,
    pieces: &[&str],
    tools: &[openai_protocol::common::Tool],
) -> usize {
    if let [whole] = pieces {
        let calls = match block_on(parser.parse_complete(black_box(whole))) {
            Ok((normal_text, calls)) => {
                black_box(normal_text.len());
                calls.len()
            }
            Err(_) => 0,
        };
        return calls;
    }
    parser.reset();
    let mut calls = 0;
    let mut seen = 0;
    for piece in pieces {
        if let Ok(result) = block_on(parser.parse_incremental(black_box(piece), tools)) {
            seen += result.normal_text.len();
            calls += result.calls.iter().filter(|c| c.name.is_some()).count();
        }
    }
    seen += parser.take_unstreamed_normal_text().len();
    black_box(seen);
    calls
}
