//! Helpers shared by the integration tests: running a parser over a chunking
//! and checking the contract of DESIGN.md on the result.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolsieve::event::push_merged;
use toolsieve::{Event, Format, Parser, Tool};

/// Events of one run, adjacent deltas merged.
pub type Events = Vec<Event<'static>>;

/// Runs `parser` over `input` cut at `cuts` (sorted offsets) and merges.
pub fn run_cuts(parser: &mut Parser, input: &[u8], cuts: &[usize]) -> Events {
    let mut events = Vec::new();
    let mut sink = |e: Event<'_>| push_merged(&mut events, e);
    let mut from = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        let cut = cut.clamp(from, input.len());
        parser.feed(&input[from..cut], &mut sink);
        from = cut;
    }
    parser.finish(&mut sink);
    events
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

/// Checks the contract on the merged events of `input`:
/// nothing lost (text + raw call spans = input), deltas = input per call,
/// every delivered input is a JSON object, and the event grammar holds.
pub fn check_contract(input: &[u8], events: &Events, keeps_text: bool) {
    let mut rebuilt = String::new();
    let mut open_text = None;
    let mut open_call = None;
    let mut deltas: HashMap<u32, String> = HashMap::new();
    let mut ended = Vec::new();
    for event in events {
        match event {
            Event::TextStart { id } => {
                assert!(open_text.is_none() && open_call.is_none(), "{event:?}");
                open_text = Some(*id);
            }
            Event::TextDelta { id, delta } => {
                assert_eq!(open_text, Some(*id), "delta outside its part");
                assert!(!delta.is_empty(), "empty text delta");
                rebuilt.push_str(delta);
            }
            Event::TextEnd { id } => {
                assert_eq!(open_text.take(), Some(*id));
            }
            Event::ToolInputStart { id, tool_name } => {
                assert!(open_text.is_none() && open_call.is_none(), "{event:?}");
                assert!(!tool_name.is_empty());
                open_call = Some(*id);
                deltas.insert(id.0, String::new());
            }
            Event::ToolInputDelta { id, delta } => {
                assert_eq!(open_call, Some(*id), "argument delta outside its call");
                deltas.get_mut(&id.0).unwrap().push_str(delta);
            }
            Event::ToolInputEnd { id } => {
                assert_eq!(open_call.take(), Some(*id));
                ended.push(id.0);
            }
            Event::ToolCall {
                tool_call_id,
                input: args,
                raw_span,
                ..
            } => {
                assert_eq!(ended.last(), Some(&tool_call_id.0), "tool-call before its end");
                assert_eq!(&deltas[&tool_call_id.0], args, "deltas != input");
                let value: serde_json::Value =
                    serde_json::from_str(args).expect("input is JSON");
                assert!(value.is_object(), "input is not an object: {args}");
                let raw = &input[raw_span.start as usize..raw_span.end as usize];
                rebuilt.push_str(&String::from_utf8_lossy(raw));
            }
            Event::Diagnostic(d) => {
                assert!(d.offset <= input.len() as u64, "{d:?}");
            }
        }
    }
    assert!(open_text.is_none() && open_call.is_none(), "a part is left open");
    if keeps_text {
        assert_eq!(rebuilt, String::from_utf8_lossy(input), "bytes were lost");
    }
}

/// A golden case: `testdata/<format>/<name>.txt` (+ `.tools.json`).
pub struct Case {
    pub format: Format,
    pub name: String,
    pub path: PathBuf,
    pub input: Vec<u8>,
    pub tools: Option<Vec<Tool>>,
}

impl Case {
    pub fn parser(&self) -> Parser {
        let mut builder = Parser::builder(self.format);
        if let Some(tools) = &self.tools {
            builder = builder.tools(Arc::<[Tool]>::from(tools.clone()));
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
            out.push(Case {
                format: *format,
                input: std::fs::read(&path).unwrap(),
                name,
                path,
                tools,
            });
        }
    }
    out
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
            points.extend([i, i + 1, i + 2].into_iter().filter(|&p| p > 0 && p < input.len()));
        }
    }
    points.extend(input.len().saturating_sub(64)..input.len());
    points.sort_unstable();
    points.dedup();
    points.retain(|&p| p > 0);
    points
}
