//! Helpers shared by the integration tests: running a parser over a chunking
//! and checking the contract of DESIGN.md on the result.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use toolsieve::{Event, Format, Parser, Reasoning, Tool};

/// A proptest block's configuration: `default` cases, or as many as
/// `PROPTEST_CASES` asks for.
pub fn proptest_cases(default: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default),
        ..proptest::test_runner::Config::default()
    }
}

/// Events of one run, adjacent deltas merged.
pub type Events = Vec<Event<'static>>;

/// Runs `parser` over `input` cut at `cuts` and merges.
pub fn run_cuts(parser: &mut Parser, input: &[u8], cuts: &[usize]) -> Events {
    toolsieve::contract::run_cuts(parser, input, cuts)
}

/// Runs with fixed-size chunks.
pub fn run_chunked(parser: &mut Parser, input: &[u8], size: usize) -> Events {
    let cuts: Vec<usize> = (size..input.len()).step_by(size.max(1)).collect();
    run_cuts(parser, input, &cuts)
}

/// One-shot run.
pub fn run_whole(parser: &mut Parser, input: &[u8]) -> Events {
    run_cuts(parser, input, &[])
}

/// The kinds of the diagnostics among `events`, in order.
pub fn diagnostic_kinds(events: &Events) -> Vec<toolsieve::DiagnosticKind> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Diagnostic(d) => Some(d.kind),
            _ => None,
        })
        .collect()
}

/// Checks the contract (see `toolsieve::contract::check`), panicking with
/// the rule broken.
pub fn check_contract(input: &[u8], events: &Events, keeps_text: bool) {
    if let Err(e) = toolsieve::contract::check(input, events, keeps_text) {
        panic!("{e}");
    }
}

/// A golden case: `testdata/<format>/<name>.txt` (+ `.tools.json`).
pub struct Case {
    pub format: Format,
    pub name: String,
    pub path: PathBuf,
    pub input: Vec<u8>,
    pub tools: Option<Vec<Tool>>,
    /// From `<case>.reasoning.json`.
    pub reasoning: Option<Reasoning>,
}

impl Case {
    pub fn parser(&self) -> Parser {
        let mut builder = Parser::builder(self.format);
        if let Some(tools) = &self.tools {
            builder = builder.tools(Arc::<[Tool]>::from(tools.clone()));
        }
        if let Some(reasoning) = &self.reasoning {
            builder = builder.reasoning(reasoning.clone());
        }
        builder.build().expect("parser")
    }

    pub fn expected_path(&self) -> PathBuf {
        self.path.with_extension("jsonl")
    }
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// All golden cases of every format directory that exists.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for format in Format::ALL {
        let dir = root().join("testdata").join(format.name());
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        paths.sort();
        for path in paths {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let tools_path = path.with_extension("tools.json");
            let tools = std::fs::read_to_string(&tools_path)
                .ok()
                .map(|t| Tool::list_from_json(&t).expect("tools"));
            let reasoning = std::fs::read_to_string(path.with_extension("reasoning.json"))
                .ok()
                .map(|r| serde_json::from_str(&r).expect("reasoning"));
            out.push(Case {
                format: *format,
                input: std::fs::read(&path).unwrap(),
                name,
                path,
                tools,
                reasoning,
            });
        }
    }
    out
}

/// Runs `check` on every case, the cases spread over the machine's cores
/// (for checks quadratic in a case's length). A panic in any of them fails
/// the caller, once all have stopped.
pub fn check_cases_in_parallel(cases: &[Case], check: impl Fn(&Case) + Sync) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    check(case);
                }
            });
        }
    });
}

pub fn to_jsonl(events: &Events) -> String {
    let mut s = String::new();
    for e in events {
        s.push_str(&serde_json::to_string(e).unwrap());
        s.push('\n');
    }
    s
}

/// Cut points for "every split point": all of them for small inputs, an
/// even spread plus the neighbourhood of every `<`, `` ` `` and `{` for big ones.
pub fn split_points(input: &[u8]) -> Vec<usize> {
    if input.len() <= 4096 {
        return (1..input.len()).collect();
    }
    let mut points: Vec<usize> = (1..input.len()).step_by(input.len() / 257).collect();
    for (i, b) in input.iter().enumerate().take(2048) {
        if matches!(b, b'<' | b'`' | b'{' | b'"' | b'\\') {
            points.extend(
                [i, i + 1, i + 2]
                    .into_iter()
                    .filter(|&p| p > 0 && p < input.len()),
            );
        }
    }
    points.extend(input.len().saturating_sub(64)..input.len());
    points.sort_unstable();
    points.dedup();
    points.retain(|&p| p > 0);
    points
}

/// The calls among `events`: each one's tool name and input.
pub fn tool_calls(events: &Events) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall {
                tool_name, input, ..
            } => Some((tool_name.to_string(), input.to_string())),
            _ => None,
        })
        .collect()
}
