//! Inputs the fuzz targets once failed on, replayed through the same checks
//! (`fuzz/fuzz_targets/*.rs`). Each file in `tests/fuzz_regressions/` is a
//! raw target input; its name says which target and what went wrong.

use std::path::Path;

use toolsieve::contract::{check, check_with, fuzz_case, run_cuts, run_str_cuts, split_case};
use toolsieve::{Event, Format, Parser};

/// The `split_invariance` target.
fn split_invariance(data: &[u8]) {
    let Some((setup, cuts, input)) = split_case(data) else {
        return;
    };
    let mut parser = setup.parser();
    let whole = run_cuts(&mut parser, input, &[]);
    check_with(input, &whole, true, parser.reasoning()).unwrap();
    assert_eq!(run_cuts(&mut parser, input, &cuts), whole, "cuts {cuts:?}");
    let bytes: Vec<usize> = (1..input.len()).collect();
    assert_eq!(run_cuts(&mut parser, input, &bytes), whole, "1-byte chunks");
    if let Ok(text) = std::str::from_utf8(input) {
        let as_str = run_str_cuts(&mut parser, text, &cuts);
        assert_eq!(as_str, whole, "str cuts {cuts:?}");
    }
}

/// The `nothing_lost` target.
fn nothing_lost(data: &[u8]) {
    let Some((setup, input)) = fuzz_case(data) else {
        return;
    };
    let mut parser = setup.parser();
    let events = run_cuts(&mut parser, input, &[]);
    check_with(input, &events, true, parser.reasoning()).unwrap();
}

#[test]
fn replay_fuzz_findings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(&path).unwrap();
        if name.starts_with("split_") {
            split_invariance(&data);
        } else if name.starts_with("lost_") {
            nothing_lost(&data);
        } else {
            panic!("{name}: unknown target prefix");
        }
        seen += 1;
    }
    assert!(seen > 0);
}

/// Every seed of the `split_invariance` and `nothing_lost` targets has a
/// header that picks a parser (fuzz ids never change), and keeps the
/// contract at its own cuts.
#[test]
fn fuzz_seeds_pick_a_parser_and_keep_the_contract() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let mut seen = 0;
    for target in ["split_invariance", "nothing_lost"] {
        for entry in std::fs::read_dir(seeds.join(target)).unwrap() {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let (setup, cuts, input) = match target {
                "split_invariance" => split_case(&data),
                _ => fuzz_case(&data).map(|(setup, input)| (setup, Vec::new(), input)),
            }
            .unwrap_or_else(|| panic!("{}: no parser for its header", path.display()));
            let mut parser = setup.parser();
            let whole = run_cuts(&mut parser, input, &[]);
            if let Err(e) = check_with(input, &whole, true, parser.reasoning()) {
                panic!("{}: {e}", path.display());
            }
            assert_eq!(
                run_cuts(&mut parser, input, &cuts),
                whole,
                "{}",
                path.display()
            );
            seen += 1;
        }
    }
    assert!(seen > 1000, "{seen} seeds");
}

/// `roundtrip` found: a morph-xml string value made only of newlines (and a
/// parameter named like its tool) did not come back as written.
#[test]
fn roundtrip_morph_string_of_newlines() {
    use serde_json::json;
    use toolsieve::middleware::format_tool_call;
    use toolsieve::Tool;
    let tool = Tool::new("p1").with_parameters(json!({"type": "object", "properties": {
        "p1": {"type": "string"}, "p5": {"type": "object"}}}));
    for &format in Format::ALL {
        for value in [
            "\n",
            "\n\n",
            "\r\n",
            " \n x \n ",
            "",
            "\r",
            "a\r",
            "\n\r",
            "\r\n\r",
        ] {
            let args = json!({"p1": value, "p5": {"k": -1}});
            let text = format_tool_call(format, "p1", &args);
            let mut parser = Parser::builder(format)
                .tools(vec![tool.clone()])
                .build()
                .unwrap();
            let events = run_cuts(&mut parser, text.as_bytes(), &[3]);
            check(text.as_bytes(), &events, true).unwrap();
            let got: Vec<serde_json::Value> = events
                .iter()
                .filter_map(|e| match e {
                    Event::ToolCall { input, .. } => serde_json::from_str(input).ok(),
                    _ => None,
                })
                .collect();
            assert_eq!(
                got,
                std::slice::from_ref(&args),
                "{format} {value:?}\n{text}"
            );
        }
    }
}

/// `roundtrip` found: JSON right after a call that ends with its JSON (no
/// end marker) was read as the next call object of the block, so prose
/// beginning with `{` failed as malformed JSON. Only after a separator
/// does a `{` continue the block.
#[test]
fn json_after_an_unmarked_call_end_is_text() {
    for (format, input) in [
        (
            Format::Phi4Mini,
            r#"functools[{"name": "a", "arguments": {}}]{a#a"#,
        ),
        (
            Format::Granite,
            r#"<|tool_call|>[{"name": "a", "arguments": {}}]{"x": 1}"#,
        ),
        (
            Format::Llama3Json,
            r#"{"name": "a", "parameters": {}}{not json"#,
        ),
    ] {
        let mut parser = Parser::new(format);
        let events = parser.parse(input.as_bytes());
        let calls: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCall { tool_name, .. } => Some(tool_name.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(calls, ["a"], "{format}");
        assert!(
            !events.iter().any(|e| matches!(e, Event::Diagnostic(_))),
            "{format}: {events:?}"
        );
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                Event::TextDelta { delta, .. } => Some(delta.as_ref()),
                _ => None,
            })
            .collect();
        assert!(text.starts_with('{'), "{format}: {text}");
    }
}
