//! Argument validation against the tools' JSON Schemas, in every format
//! family, at every chunking; hostile schemas give errors, never panics.

mod common;

use std::sync::Arc;

use common::*;
use serde_json::json;
use toolsieve::middleware::format_tool_call;
use toolsieve::{DiagnosticKind, Error, Event, Format, Parser, Tool};

fn weather() -> Tool {
    Tool::new("get_weather").with_parameters(json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1}
        },
        "required": ["city"],
        "additionalProperties": false
    }))
}

fn parser(format: Format, tools: Vec<Tool>) -> Parser {
    Parser::builder(format)
        .tools(Arc::<[Tool]>::from(tools))
        .validate_arguments(true)
        .build()
        .unwrap()
}

/// (calls delivered, invalid-arguments messages), checking the contract.
fn outcome(format: Format, text: &str, cuts: &[usize]) -> (usize, Vec<String>) {
    let mut p = parser(format, vec![weather()]);
    let events = run_cuts(&mut p, text.as_bytes(), cuts);
    check_contract(text.as_bytes(), &events, true);
    let calls = events
        .iter()
        .filter(|e| matches!(e, Event::ToolCall { .. }))
        .count();
    let problems = events
        .iter()
        .filter_map(|e| match e {
            Event::Diagnostic(d) if d.kind == DiagnosticKind::InvalidArguments => {
                assert!(d.id.is_some() && d.raw_span.is_some(), "{d:?}");
                Some(d.message.clone())
            }
            _ => None,
        })
        .collect();
    (calls, problems)
}

fn is_xml(format: Format) -> bool {
    matches!(
        format,
        Format::Qwen3Coder
            | Format::MiniMaxM2
            | Format::Glm
            | Format::MorphXml
            | Format::DeepSeekDsml
            | Format::SeedOss
            | Format::KimiK3
    )
}

#[test]
fn every_format_reports_schema_violations_by_path_and_still_delivers() {
    let cases = [
        (json!({"city": "Paris", "days": 3}), None),
        (json!({"days": 3}), Some("required")),
        (json!({"city": 7}), Some("at /city")),
        (json!({"city": "Paris", "days": 0}), Some("at /days")),
        (json!({"city": "Paris", "when": "now"}), Some("when")),
    ];
    for format in Format::ALL {
        for (args, problem) in &cases {
            let text = format!("Sure. {}", format_tool_call(*format, "get_weather", args));
            let mut seen = None;
            for cuts in [
                vec![],
                (1..text.len()).collect::<Vec<_>>(),
                vec![text.len() / 2],
            ] {
                let got = outcome(*format, &text, &cuts);
                if let Some(first) = &seen {
                    assert_eq!(
                        &got, first,
                        "{format:?} {args}: chunking changed the outcome"
                    );
                }
                seen = Some(got);
            }
            let (calls, problems) = seen.unwrap();
            if calls == 0 {
                panic!("{format:?}: {args} was not delivered: {text:?}");
            }
            match problem {
                None => assert!(problems.is_empty(), "{format:?} {args}: {problems:?}"),
                // The XML formats type values by the schema, and so does
                // Gemma 4 and FunctionGemma for bare values: 7 is read as
                // the string "7", which is valid.
                Some("at /city")
                    if is_xml(*format)
                        || matches!(format, Format::Gemma4 | Format::FunctionGemma) =>
                {
                    assert!(problems.is_empty(), "{format:?}: {problems:?}");
                }
                Some(word) => assert!(
                    problems[0].contains(word) && problems[0].contains("get_weather"),
                    "{format:?} {args}: {problems:?}"
                ),
            }
        }
    }
}

#[test]
fn without_the_option_nothing_is_checked() {
    let text = r#"<tool_call>{"name": "get_weather", "arguments": {"days": "x"}}</tool_call>"#;
    let mut p = Parser::builder(Format::Hermes)
        .tools(vec![weather()])
        .build()
        .unwrap();
    let events = p.parse(text.as_bytes());
    assert!(!events.iter().any(|e| matches!(e, Event::Diagnostic(_))));
}

#[test]
fn hostile_schemas_are_errors_or_harmless_never_panics() {
    let invalid = Tool::new("f").with_parameters(json!({"type": 5}));
    let built = Parser::builder(Format::Hermes)
        .tools(vec![invalid])
        .validate_arguments(true)
        .build();
    assert!(
        matches!(built, Err(Error::InvalidTools(ref m)) if m.contains("\"f\"")),
        "{built:?}"
    );

    // A schema that refers to itself, and one nested deep.
    let mut deep = json!({"type": "object"});
    for _ in 0..200 {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    let tools = vec![
        Tool::new("tree").with_parameters(json!({
            "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node"
        })),
        Tool::new("deep").with_parameters(deep),
    ];
    let mut p = parser(Format::Hermes, tools);
    let text = r#"<tool_call>{"name": "tree", "arguments": {"kids": [{"kids": [{"kids": 1}]}]}}</tool_call><tool_call>{"name": "deep", "arguments": {"a": {"a": 3}}}</tool_call>"#;
    let events = p.parse(text.as_bytes());
    let problems: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Diagnostic(d) => Some(d.message.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("/kids/0/kids/0/kids"), "{problems:?}");
    assert!(problems[1].contains("/a/a"), "{problems:?}");
}

#[test]
fn the_required_response_schema_accepts_exactly_the_calls_of_the_tool_list() {
    use toolsieve::middleware::{response_schema, ToolChoice, ToolSpec};
    let time = Tool::new("get_time").with_parameters(json!({
        "type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]
    }));
    let tools = [ToolSpec::Function(weather()), ToolSpec::Function(time)];
    let schema = response_schema(&ToolChoice::Required, &tools)
        .unwrap()
        .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let accepted = [
        json!({"name": "get_weather", "arguments": {"city": "Paris"}}),
        json!({"name": "get_time", "arguments": {"tz": "UTC"}}),
    ];
    let refused = [
        json!({"name": "get_weather", "arguments": {"tz": "UTC"}}),
        json!({"name": "get_time", "arguments": {"city": "Paris"}}),
        json!({"name": "get_news", "arguments": {}}),
        json!({"name": "get_time"}),
        json!({"name": "get_time", "arguments": {"tz": "UTC"}, "extra": 1}),
    ];
    for call in &accepted {
        assert!(validator.is_valid(call), "{call}");
    }
    for call in &refused {
        assert!(!validator.is_valid(call), "{call}");
    }
}
