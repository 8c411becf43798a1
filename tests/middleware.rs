//! The middleware: tool_choice validation and wire mapping, response
//! schemas, prompt injection and history rewriting, and the wrapped model in
//! every tool_choice mode, generating and streaming.

use std::sync::{Arc, Mutex};

use futures::executor::block_on;
use futures::StreamExt;
use serde_json::{json, Value};
use toolsieve::event::push_merged;
use toolsieve::middleware::*;
use toolsieve::{DiagnosticKind, Error, Event, Format, Tool};

fn weather() -> Tool {
    Tool::new("get_weather")
        .with_description("Weather for a city")
        .with_parameters(json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}))
}

fn time() -> Tool {
    Tool::new("get_time").with_description("The time")
}

fn tools() -> Vec<ToolSpec> {
    vec![weather().into(), time().into()]
}

fn search_provider_tool() -> ToolSpec {
    ToolSpec::Provider {
        id: "openai.web_search".into(),
        name: "web_search".into(),
    }
}

fn tool(name: &str) -> ToolChoice {
    ToolChoice::Tool { name: name.into() }
}

fn invalid_request(r: Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Err(Error::InvalidRequest(m)) => m,
        other => panic!("expected an invalid request, got {other:?}"),
    }
}

// ---------------------------------------------------------------- validation

#[test]
fn required_without_tools_is_invalid() {
    let m = invalid_request(validate(&ToolChoice::Required, &[]));
    assert!(m.contains("required"), "{m}");
}

#[test]
fn tool_without_tools_is_invalid() {
    let m = invalid_request(validate(&tool("get_weather"), &[]));
    assert!(m.contains("no tools"), "{m}");
}

#[test]
fn tool_not_in_the_list_is_invalid() {
    let m = invalid_request(validate(&tool("launch"), &tools()));
    assert!(m.contains("not in the tool list"), "{m}");
}

#[test]
fn tool_naming_a_provider_tool_is_invalid() {
    let mut list = tools();
    list.push(search_provider_tool());
    let m = invalid_request(validate(&tool("web_search"), &list));
    assert!(m.contains("provider-defined"), "{m}");
}

#[test]
fn auto_and_none_need_nothing() {
    validate(&ToolChoice::Auto, &[]).unwrap();
    validate(&ToolChoice::None, &[]).unwrap();
    validate(&ToolChoice::Required, &tools()).unwrap();
    validate(&tool("get_time"), &tools()).unwrap();
}

#[test]
fn tool_choice_parses_from_text() {
    assert_eq!("auto".parse::<ToolChoice>().unwrap(), ToolChoice::Auto);
    assert_eq!(
        "tool:get_time".parse::<ToolChoice>().unwrap(),
        tool("get_time")
    );
    assert!("tool:".parse::<ToolChoice>().is_err());
    assert!("always".parse::<ToolChoice>().is_err());
}

#[test]
fn invalid_requests_fail_before_the_model_is_called() {
    let model = ScriptedModel::new("never sent", 0);
    let wrapped = ToolCallingModel::new(model.clone(), Format::Hermes);
    let request = Request {
        messages: vec![Message::user("hi")],
        tools: vec![],
        tool_choice: Some(ToolChoice::Required),
        response_format: None,
        extra: Default::default(),
    };
    let before = request.clone();
    invalid_request(wrapped.generate(&request).map(|_| ()));
    invalid_request(wrapped.stream(&request).map(|_| ()));
    assert!(model.requests().is_empty(), "the model was called");
    assert_eq!(request, before, "tool_choice was mutated");
}

// ---------------------------------------------------------------- wire

#[test]
fn wire_mapping_for_every_provider_and_mode() {
    use Provider::*;
    let t = tools();
    let rows: Vec<(Provider, Option<ToolChoice>, Value)> = vec![
        (OpenAi, None, json!({})),
        (
            OpenAi,
            Some(ToolChoice::Auto),
            json!({"tool_choice": "auto"}),
        ),
        (
            OpenAi,
            Some(ToolChoice::None),
            json!({"tool_choice": "none"}),
        ),
        (
            OpenAi,
            Some(ToolChoice::Required),
            json!({"tool_choice": "required"}),
        ),
        (
            OpenAi,
            Some(tool("get_time")),
            json!({"tool_choice": {"type": "function", "function": {"name": "get_time"}}}),
        ),
        (Anthropic, None, json!({})),
        (
            Anthropic,
            Some(ToolChoice::Auto),
            json!({"tool_choice": {"type": "auto"}}),
        ),
        (
            Anthropic,
            Some(ToolChoice::None),
            json!({"tool_choice": null, "tools": null}),
        ),
        (
            Anthropic,
            Some(ToolChoice::Required),
            json!({"tool_choice": {"type": "any"}}),
        ),
        (
            Anthropic,
            Some(tool("get_time")),
            json!({"tool_choice": {"type": "tool", "name": "get_time"}}),
        ),
        (Gemini, None, json!({})),
        (
            Gemini,
            Some(ToolChoice::Auto),
            json!({"toolConfig": {"functionCallingConfig": {"mode": "AUTO"}}}),
        ),
        (
            Gemini,
            Some(ToolChoice::None),
            json!({"toolConfig": {"functionCallingConfig": {"mode": "NONE"}}}),
        ),
        (
            Gemini,
            Some(ToolChoice::Required),
            json!({"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}),
        ),
        (
            Gemini,
            Some(tool("get_time")),
            json!({"toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_time"]}}}),
        ),
        (DeepSeek, None, json!({})),
        (
            DeepSeek,
            Some(ToolChoice::Auto),
            json!({"tool_choice": "auto"}),
        ),
        (
            DeepSeek,
            Some(ToolChoice::None),
            json!({"tool_choice": "none"}),
        ),
        (
            DeepSeek,
            Some(ToolChoice::Required),
            json!({"tool_choice": "required"}),
        ),
        (
            DeepSeek,
            Some(tool("get_time")),
            json!({"tool_choice": {"type": "function", "function": {"name": "get_time"}}}),
        ),
        (Xai, None, json!({})),
        (Xai, Some(ToolChoice::Auto), json!({"tool_choice": "auto"})),
        (Xai, Some(ToolChoice::None), json!({"tool_choice": "none"})),
        (
            Xai,
            Some(ToolChoice::Required),
            json!({"tool_choice": "required"}),
        ),
        (
            Xai,
            Some(tool("get_time")),
            json!({"tool_choice": {"type": "function", "name": "get_time"}}),
        ),
    ];
    for (provider, choice, want) in rows {
        let got = wire_tool_choice(provider, choice.as_ref(), &t, WireOptions::default()).unwrap();
        assert_eq!(got, want, "{provider:?} {choice:?}");
    }
}

#[test]
fn every_provider_with_the_switch_can_disable_parallel_tool_use() {
    let one = WireOptions {
        disable_parallel_tool_use: true,
        ..WireOptions::default()
    };
    let rows = [
        (
            Provider::Anthropic,
            json!({"tool_choice": {"type": "any", "disable_parallel_tool_use": true}}),
        ),
        (
            Provider::OpenAi,
            json!({"tool_choice": "required", "parallel_tool_calls": false}),
        ),
        (
            Provider::DeepSeek,
            json!({"tool_choice": "required", "parallel_tool_calls": false}),
        ),
        (
            Provider::Xai,
            json!({"tool_choice": "required", "parallel_tool_calls": false}),
        ),
        (
            Provider::Gemini,
            json!({"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}),
        ),
    ];
    for (provider, want) in rows {
        let got = wire_tool_choice(provider, Some(&ToolChoice::Required), &tools(), one).unwrap();
        assert_eq!(got, want, "{provider:?}");
    }
    // With `none` there is no call to limit.
    let got = wire_tool_choice(Provider::OpenAi, Some(&ToolChoice::None), &tools(), one).unwrap();
    assert_eq!(got, json!({"tool_choice": "none"}));
    let got =
        wire_tool_choice(Provider::Anthropic, Some(&ToolChoice::None), &tools(), one).unwrap();
    assert_eq!(got, json!({"tool_choice": null, "tools": null}));
}

#[test]
fn anthropic_extended_thinking_allows_only_auto_and_none() {
    let thinking = WireOptions {
        extended_thinking: true,
        ..WireOptions::default()
    };
    for choice in [ToolChoice::Auto, ToolChoice::None] {
        assert!(wire_tool_choice(Provider::Anthropic, Some(&choice), &tools(), thinking).is_ok());
    }
    for choice in [ToolChoice::Required, tool("get_weather")] {
        invalid_request(wire_tool_choice(
            Provider::Anthropic,
            Some(&choice),
            &tools(),
            thinking,
        ));
        // Other providers have no such rule.
        assert!(wire_tool_choice(Provider::OpenAi, Some(&choice), &tools(), thinking).is_ok());
    }
}

#[test]
fn wire_mapping_validates_first() {
    for p in [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::DeepSeek,
        Provider::Xai,
    ] {
        invalid_request(wire_tool_choice(
            p,
            Some(&ToolChoice::Required),
            &[],
            WireOptions::default(),
        ));
        invalid_request(wire_tool_choice(
            p,
            Some(&tool("x")),
            &tools(),
            WireOptions::default(),
        ));
    }
}

// ---------------------------------------------------------------- schemas

#[test]
fn tool_schema_fixes_the_name_and_uses_the_tool_schema() {
    let schema = response_schema(&tool("get_weather"), &tools())
        .unwrap()
        .unwrap();
    assert_eq!(
        schema["properties"]["name"],
        json!({"const": "get_weather"})
    );
    assert_eq!(schema["properties"]["arguments"], weather().parameters);
    assert_eq!(schema["required"], json!(["name", "arguments"]));
}

#[test]
fn required_schema_selects_the_arguments_by_name() {
    let schema = response_schema(&ToolChoice::Required, &tools())
        .unwrap()
        .unwrap();
    let branches = schema["anyOf"].as_array().unwrap();
    let names: Vec<&Value> = branches
        .iter()
        .map(|b| &b["properties"]["name"]["const"])
        .collect();
    assert_eq!(names, [&json!("get_weather"), &json!("get_time")]);
    assert_eq!(branches[0]["properties"]["arguments"], weather().parameters);
    assert_eq!(branches[1]["required"], json!(["name", "arguments"]));
    assert_eq!(branches[1]["additionalProperties"], json!(false));
    assert_eq!(response_schema(&ToolChoice::Auto, &tools()).unwrap(), None);
}

#[test]
fn required_schema_grows_linearly_and_stays_flat_with_thousands_of_tools() {
    let many: Vec<ToolSpec> = (0..5000)
        .map(|i| {
            ToolSpec::Function(Tool::new(format!("tool_{i}")).with_parameters(
                json!({"type": "object", "properties": {"x": {"type": "string"}}}),
            ))
        })
        .collect();
    let schema = response_schema(&ToolChoice::Required, &many)
        .unwrap()
        .unwrap();
    let text = serde_json::to_string(&schema).unwrap();
    // Each tool's branch once: no copy of the rest of the list per tool.
    assert!(text.len() < 5000 * 250, "{} bytes", text.len());
    fn depth(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    assert!(depth(&schema) < 10, "depth {}", depth(&schema));
}

#[test]
fn required_with_only_provider_tools_is_invalid() {
    invalid_request(response_schema(
        &ToolChoice::Required,
        &[search_provider_tool()],
    ));
}

// ---------------------------------------------------------------- request side

fn request(messages: Vec<Message>, choice: Option<ToolChoice>) -> Request {
    Request {
        messages,
        tools: tools(),
        tool_choice: choice,
        response_format: None,
        extra: Default::default(),
    }
}

fn system_text(t: &Transformed) -> Option<String> {
    t.request.messages.iter().find_map(|m| match m {
        Message::System { content } => Some(content.clone()),
        _ => None,
    })
}

#[test]
fn prompt_goes_into_a_new_system_message() {
    let t = transform_params(
        Format::Hermes,
        &request(vec![Message::user("hi")], None),
        &ParamsOptions::default(),
    )
    .unwrap();
    let system = system_text(&t).unwrap();
    assert!(
        system.contains("<tools>") && system.contains("\"get_weather\""),
        "{system}"
    );
    assert!(matches!(t.request.messages[0], Message::System { .. }));
    assert!(t.request.tools.is_empty() && t.request.tool_choice.is_none());
    assert_eq!(t.tools.len(), 2);
    assert_eq!(t.mode, Mode::Parse);
}

#[test]
fn prompt_merges_with_an_existing_system_message_first_or_last() {
    let msgs = vec![
        Message::System {
            content: "Be brief.".into(),
        },
        Message::user("hi"),
    ];
    for (placement, first) in [(Placement::First, true), (Placement::Last, false)] {
        let options = ParamsOptions {
            placement,
            ..ParamsOptions::default()
        };
        let t = transform_params(Format::Hermes, &request(msgs.clone(), None), &options).unwrap();
        let system = system_text(&t).unwrap();
        assert_eq!(system.starts_with("Be brief."), !first, "{system}");
        assert_eq!(t.request.messages.len(), 2);
    }
}

#[test]
fn no_tools_no_prompt() {
    let mut r = request(vec![Message::user("hi")], None);
    r.tools.clear();
    let t = transform_params(Format::Hermes, &r, &ParamsOptions::default()).unwrap();
    assert_eq!(system_text(&t), None);
}

#[test]
fn tool_choice_none_sends_no_prompt_but_rewrites_history() {
    let msgs = vec![Message::Assistant {
        content: vec![Part::ToolCall {
            tool_call_id: "c1".into(),
            tool_name: "get_time".into(),
            input: json!({}),
        }],
    }];
    let t = transform_params(
        Format::Hermes,
        &request(msgs, Some(ToolChoice::None)),
        &ParamsOptions::default(),
    )
    .unwrap();
    assert_eq!(system_text(&t), None);
    assert_eq!(t.mode, Mode::Text);
    assert_eq!(
        t.request.messages,
        vec![Message::Assistant {
            content: vec![Part::text(format_tool_call(
                Format::Hermes,
                "get_time",
                &json!({})
            ))]
        }]
    );
}

#[test]
fn custom_template_replaces_the_prompt() {
    let options = ParamsOptions {
        placement: Placement::First,
        template: Some("TOOLS:\n{tools}\nEND".into()),
        ..ParamsOptions::default()
    };
    let t = transform_params(Format::Hermes, &request(vec![], None), &options).unwrap();
    let system = system_text(&t).unwrap();
    assert!(
        system.starts_with("TOOLS:\n{\"type\":\"function\"") && system.ends_with("\nEND"),
        "{system}"
    );
}

#[test]
fn assistant_calls_become_text_in_the_format() {
    for &format in Format::ALL {
        let msgs = vec![Message::Assistant {
            content: vec![
                Part::text("Checking."),
                Part::ToolCall {
                    tool_call_id: "c1".into(),
                    tool_name: "get_weather".into(),
                    input: json!({"city": "Paris"}),
                },
            ],
        }];
        let t = transform_params(format, &request(msgs, None), &ParamsOptions::default()).unwrap();
        let Message::Assistant { content } = &t.request.messages[1] else {
            panic!()
        };
        let want = format!(
            "Checking.\n{}",
            format_tool_call(format, "get_weather", &json!({"city": "Paris"}))
        );
        assert_eq!(content, &vec![Part::text(want)], "{format}");
    }
}

#[test]
fn tool_results_of_one_turn_become_one_user_message() {
    let msgs = vec![Message::Tool {
        content: vec![
            ToolResult {
                tool_call_id: "c1".into(),
                tool_name: "get_weather".into(),
                output: json!({"temp": 21}),
                is_error: false,
            },
            ToolResult {
                tool_call_id: "c2".into(),
                tool_name: "get_time".into(),
                output: json!("12:00"),
                is_error: false,
            },
        ],
    }];
    let t = transform_params(
        Format::Hermes,
        &request(msgs, None),
        &ParamsOptions::default(),
    )
    .unwrap();
    assert_eq!(
        t.request.messages[1],
        Message::User { content: vec![Part::text("<tool_response>\n{\"temp\":21}\n</tool_response>\n<tool_response>\n12:00\n</tool_response>")] }
    );
}

#[test]
fn multi_part_text_is_condensed_and_user_messages_merge() {
    let msgs = vec![
        Message::User {
            content: vec![Part::text("a"), Part::text("b")],
        },
        Message::user("c"),
        Message::Tool {
            content: vec![ToolResult {
                tool_call_id: "c".into(),
                tool_name: "get_time".into(),
                output: json!("now"),
                is_error: false,
            }],
        },
    ];
    let t = transform_params(
        Format::Hermes,
        &request(msgs, None),
        &ParamsOptions::default(),
    )
    .unwrap();
    assert_eq!(t.request.messages.len(), 2, "{:?}", t.request.messages);
    assert_eq!(
        t.request.messages[1],
        Message::User {
            content: vec![Part::text(
                "a\nb\nc\n<tool_response>\nnow\n</tool_response>"
            )]
        }
    );
}

#[test]
fn provider_tools_are_dropped_with_a_warning() {
    let mut r = request(vec![Message::user("hi")], None);
    r.tools.push(search_provider_tool());
    let t = transform_params(Format::Hermes, &r, &ParamsOptions::default()).unwrap();
    assert_eq!(t.tools.len(), 2);
    assert_eq!(t.warnings.len(), 1);
    assert!(t.warnings[0].contains("web_search"));
    assert!(!system_text(&t).unwrap().contains("web_search"));
}

#[test]
fn forced_modes_set_the_response_format() {
    let t = transform_params(
        Format::Hermes,
        &request(vec![], Some(tool("get_time"))),
        &ParamsOptions::default(),
    )
    .unwrap();
    assert_eq!(t.mode, Mode::Forced(tool("get_time")));
    assert_eq!(
        t.request.response_format,
        response_schema(&tool("get_time"), &tools()).unwrap()
    );
}

#[test]
fn prompts_follow_each_family() {
    let t = [weather()];
    let has = |f: Format, s: &str| assert!(format_tools(f, &t, None).contains(s), "{f}: {s}");
    has(
        Format::Hermes,
        "<tools>\n{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"",
    );
    has(Format::Qwen3Coder, "<function>\n<name>get_weather</name>");
    has(Format::Qwen3Coder, "<parameter=example_parameter_1>");
    has(Format::MiniMaxM2, "<invoke name=\"tool-name-1\">");
    has(Format::Glm, "<arg_key>{arg-key-1}</arg_key>");
    has(Format::SeedOss, "def get_weather(city: str,days: int):");
    has(Format::SeedOss, "- city (str) [必填]:");
    has(
        Format::SeedOss,
        "<seed:tool_call>\n<function=example_function_name>",
    );
    has(
        Format::KimiK3,
        "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"",
    );
    has(
        Format::KimiK3,
        "<|open|>call tool=\"tool_name\" index=\"1\"<|sep|><|open|>argument key=\"arg\" type=\"string\"<|sep|>",
    );
    has(Format::Gemma, "```tool_call");
    has(Format::MorphXml, "  - city (string, required)");
    has(Format::MorphXml, "<get_weather>\n<city>…</city>");
    assert_eq!(format_tools(Format::Hermes, &[], None), "");
}

// ---------------------------------------------------------------- model side

fn run_stream(
    wrapped: &ToolCallingModel<ScriptedModel>,
    r: &Request,
) -> (Vec<Event<'static>>, FinishReason) {
    let mut events = Vec::new();
    let mut finish = None;
    let mut stream = wrapped.stream(r).unwrap();
    block_on(async {
        while let Some(part) = stream.next().await {
            match part.unwrap() {
                StreamPart::Event(e) => push_merged(&mut events, e),
                StreamPart::Finish(f) => finish = Some(f),
                other => panic!("unexpected part {other:?}"),
            }
        }
    });
    (events, finish.expect("finish part"))
}

fn calls(events: &[Event<'_>]) -> Vec<(String, Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall {
                tool_name, input, ..
            } => Some((tool_name.to_string(), serde_json::from_str(input).unwrap())),
            _ => None,
        })
        .collect()
}

fn text(events: &[Event<'_>]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta { delta, .. } => Some(delta.to_string()),
            _ => None,
        })
        .collect()
}

/// Streams `output` at several chunkings; the merged events must agree and
/// match what `generate` returns.
fn both_ways(
    format: Format,
    output: &str,
    choice: Option<ToolChoice>,
) -> (Vec<Event<'static>>, FinishReason, GenerateResult) {
    let r = request(vec![Message::user("weather in Paris?")], choice);
    let mut first: Option<(Vec<Event<'static>>, FinishReason)> = None;
    for size in [0, 1, 3, 17] {
        let wrapped = ToolCallingModel::new(ScriptedModel::new(output, size), format);
        let got = run_stream(&wrapped, &r);
        match &first {
            None => first = Some(got),
            Some(f) => assert_eq!(&got, f, "chunk size {size}"),
        }
    }
    let wrapped = ToolCallingModel::new(ScriptedModel::new(output, 0), format);
    let generated = block_on(wrapped.generate(&r).unwrap()).unwrap();
    let (events, finish) = first.unwrap();
    assert_eq!(generated.finish_reason, finish);
    (events, finish, generated)
}

#[test]
fn auto_parses_calls_with_the_protocol() {
    let out = format!(
        "Let me check.\n{}",
        format_tool_call(
            Format::Qwen3Coder,
            "get_weather",
            &json!({"city": "Paris", "days": 2})
        )
    );
    let (events, finish, generated) = both_ways(Format::Qwen3Coder, &out, Some(ToolChoice::Auto));
    assert_eq!(
        calls(&events),
        [(
            "get_weather".to_string(),
            json!({"city": "Paris", "days": 2})
        )]
    );
    assert_eq!(text(&events), "Let me check.\n");
    assert_eq!(finish, FinishReason::ToolCalls);
    assert_eq!(
        generated.content[0],
        Content::Text("Let me check.\n".into())
    );
    assert!(
        matches!(&generated.content[1], Content::ToolCall { name, .. } if name == "get_weather")
    );
}

#[test]
fn none_returns_plain_text_even_if_it_looks_like_a_call() {
    let out = format!(
        "No tools: {}",
        format_tool_call(Format::Hermes, "get_time", &json!({}))
    );
    let (events, finish, generated) = both_ways(Format::Hermes, &out, Some(ToolChoice::None));
    assert!(calls(&events).is_empty());
    assert_eq!(text(&events), out);
    assert_eq!(finish, FinishReason::Stop);
    assert_eq!(generated.content, [Content::Text(out)]);
}

#[test]
fn required_reads_the_bare_json_call() {
    let out = "  {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n";
    let (events, finish, _) = both_ways(Format::Hermes, out, Some(ToolChoice::Required));
    assert_eq!(
        calls(&events),
        [("get_weather".to_string(), json!({"city": "Oslo"}))]
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ToolInputStart { .. })));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ToolInputDelta { .. })));
    assert!(
        !events.iter().any(|e| matches!(e, Event::Diagnostic(_))),
        "{events:?}"
    );
    assert_eq!(finish, FinishReason::ToolCalls);
}

#[test]
fn tool_mode_reads_the_named_call_only() {
    let out = "{\"name\": \"get_time\", \"arguments\": {}}";
    let (events, _, _) = both_ways(Format::Hermes, out, Some(tool("get_time")));
    assert_eq!(calls(&events), [("get_time".to_string(), json!({}))]);
    let wrong = "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}";
    let (events, finish, _) = both_ways(Format::Hermes, wrong, Some(tool("get_time")));
    assert!(calls(&events).is_empty());
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Diagnostic(d) if d.kind == DiagnosticKind::NoToolCall)));
    assert_eq!(finish, FinishReason::Stop);
}

#[test]
fn forced_modes_fall_back_to_the_protocol() {
    let out = format!(
        "Sure.\n{}",
        format_tool_call(Format::Glm, "get_weather", &json!({"city": "Lima"}))
    );
    let (events, finish, _) = both_ways(Format::Glm, &out, Some(ToolChoice::Required));
    assert_eq!(
        calls(&events),
        [("get_weather".to_string(), json!({"city": "Lima"}))]
    );
    assert_eq!(text(&events), "Sure.\n");
    assert_eq!(finish, FinishReason::ToolCalls);
}

#[test]
fn forced_modes_report_output_without_a_call() {
    let (events, _, generated) = both_ways(
        Format::Hermes,
        "I cannot do that.",
        Some(ToolChoice::Required),
    );
    assert_eq!(text(&events), "I cannot do that.");
    assert!(generated
        .diagnostics
        .iter()
        .any(|d| d.kind == DiagnosticKind::NoToolCall));
}

#[test]
fn length_and_content_filter_finish_reasons_are_kept() {
    let out = format_tool_call(Format::Hermes, "get_time", &json!({}));
    for reason in [
        FinishReason::Length,
        FinishReason::ContentFilter,
        FinishReason::Error,
    ] {
        let model = ScriptedModel::new(&out, 4).with_finish_reason(reason);
        let wrapped = ToolCallingModel::new(model, Format::Hermes);
        let (events, finish) = run_stream(&wrapped, &request(vec![], None));
        assert_eq!(calls(&events).len(), 1);
        assert_eq!(finish, reason);
    }
}

#[test]
fn the_model_receives_the_transformed_request() {
    let model = ScriptedModel::new("ok", 0);
    let wrapped = ToolCallingModel::new(model.clone(), Format::MorphXml);
    block_on(
        wrapped
            .generate(&request(vec![Message::user("hi")], None))
            .unwrap(),
    )
    .unwrap();
    let sent = model.requests();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].tools.is_empty());
    let Message::System { content } = &sent[0].messages[0] else {
        panic!()
    };
    assert!(
        content.contains("- get_weather: Weather for a city"),
        "{content}"
    );
}

#[test]
fn on_error_gets_metadata_and_raw_text_only_when_asked() {
    let out = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": }}</tool_call> ok";
    for include_raw in [false, true] {
        let reports = Arc::new(Mutex::new(Vec::new()));
        let sink = reports.clone();
        let wrapped = ToolCallingModel::new(ScriptedModel::new(out, 5), Format::Hermes)
            .include_raw_text(include_raw)
            .on_error(move |r| sink.lock().unwrap().push(r.clone()));
        run_stream(&wrapped, &request(vec![], None));
        let reports = reports.lock().unwrap();
        assert_eq!(reports.len(), 1);
        let r = &reports[0];
        assert_eq!(r.kind, DiagnosticKind::MalformedCall);
        assert_eq!(r.tool_name.as_deref(), Some("get_weather"));
        assert_eq!(r.tool_call_id.as_deref(), Some("call_0"));
        let want_raw = include_raw.then(|| {
            "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": ".to_string()
        });
        assert_eq!(r.raw_text, want_raw);
    }
}

/// Every format's default prompt shows the model the markers its parser
/// looks for.
#[test]
fn default_prompts_show_the_parsers_markers() {
    for &format in Format::ALL {
        if format == Format::MorphXml {
            continue; // Its markers are the tools' names.
        }
        let weather = Tool::new("get_weather")
            .with_parameters(json!({"type": "object", "properties": {"city": {"type": "string"}}}));
        let prompt = format_tools(format, &[weather], None);
        if matches!(format, Format::Xlam | Format::Llama3Json) {
            // Their calls need no marker: the output is the JSON.
            assert!(prompt.contains("{\"name\": "), "{prompt}");
            continue;
        }
        if format == Format::Pythonic {
            // The output is the Python list.
            assert!(prompt.contains("[func_name1("), "{prompt}");
            continue;
        }
        let (start, _) = format.default_delimiters();
        assert!(prompt.contains(start), "{format}: {prompt}");
        assert!(prompt.contains("get_weather"), "{format}: {prompt}");
    }
}

#[test]
fn vendor_token_formats_render_results_in_their_layout() {
    let result = json!({"temp": 21});
    assert_eq!(
        format_tool_response(Format::DeepSeek, "get_weather", &result),
        "<｜tool▁output▁begin｜>{\"temp\":21}<｜tool▁output▁end｜>"
    );
    assert_eq!(
        format_tool_response(Format::KimiK2, "get_weather", &result),
        "## Return of functions.get_weather:0\n{\"temp\":21}"
    );
    // DeepSeek-V3's `function` names the layout where the name follows the
    // separator: a tool of that name still parses back.
    let call = format_tool_call(Format::DeepSeek, "function", &json!({"x": 1}));
    let events = toolsieve::Parser::new(Format::DeepSeek).parse(call.as_bytes());
    let calls: Vec<(String, String)> = events
        .into_iter()
        .filter_map(|e| match e {
            Event::ToolCall {
                tool_name, input, ..
            } => Some((tool_name.into_owned(), input.into_owned())),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [("function".to_string(), r#"{"x":1}"#.to_string())]);
}

#[test]
fn dsml_history_marks_json_values_and_parses_back_without_a_schema() {
    let args = json!({"city": "Oslo", "days": 3, "tags": ["a", "b"], "zip": "00123"});
    let call = format_tool_call(Format::DeepSeekDsml, "get_weather", &args);
    assert!(
        call.contains(r#"<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>"#),
        "{call}"
    );
    assert!(
        call.contains(r#"<｜DSML｜parameter name="zip" string="true">00123</｜DSML｜parameter>"#),
        "{call}"
    );
    // No tool list: the `string` attribute alone types the values.
    let events = toolsieve::Parser::new(Format::DeepSeekDsml).parse(call.as_bytes());
    let inputs: Vec<Value> = events
        .into_iter()
        .filter_map(|e| match e {
            Event::ToolCall { input, .. } => serde_json::from_str(&input).ok(),
            _ => None,
        })
        .collect();
    assert_eq!(inputs, [args]);
    assert_eq!(
        format_tool_response(Format::DeepSeekDsml, "get_weather", &json!({"temp": 21})),
        "<function_results>\n<result>{\"temp\":21}</result>\n</function_results>"
    );
}

#[test]
fn provider_tool_warnings_reach_the_caller_in_stream_mode_too() {
    let mut r = request(vec![Message::user("hi")], None);
    r.tools.push(search_provider_tool());
    let wrapped = ToolCallingModel::new(ScriptedModel::new("Hello.", 2), Format::Hermes);
    let generated = block_on(wrapped.generate(&r).unwrap()).unwrap();
    assert_eq!(generated.warnings.len(), 1);
    let parts: Vec<StreamPart> = block_on(
        wrapped
            .stream(&r)
            .unwrap()
            .map(Result::unwrap)
            .collect::<Vec<_>>(),
    );
    match &parts[0] {
        StreamPart::Warning(w) => assert_eq!(w, &generated.warnings[0]),
        other => panic!("the warning does not come first: {other:?}"),
    }
}

#[test]
fn a_call_in_history_whose_input_is_not_an_object_is_invalid() {
    let history = vec![
        Message::user("hi"),
        Message::Assistant {
            content: vec![Part::ToolCall {
                tool_call_id: "c1".into(),
                tool_name: "get_weather".into(),
                input: json!(["Paris"]),
            }],
        },
    ];
    invalid_request(transform_params(
        Format::Hermes,
        &request(history, None),
        &ParamsOptions::default(),
    ));
}

#[test]
fn a_call_in_history_whose_input_is_not_an_object_is_rendered_when_tolerant() {
    let history = vec![
        Message::user("hi"),
        Message::Assistant {
            content: vec![Part::ToolCall {
                tool_call_id: "c1".into(),
                tool_name: "get_weather".into(),
                input: json!(["Paris"]),
            }],
        },
    ];
    let options = ParamsOptions {
        tolerant_history: true,
        ..ParamsOptions::default()
    };
    for format in [Format::Hermes, Format::Qwen3Coder, Format::Pythonic] {
        let out = transform_params(format, &request(history.clone(), None), &options).unwrap();
        let Some(Message::Assistant { content }) = out.request.messages.last() else {
            panic!("{format:?}: {:?}", out.request.messages);
        };
        let text = format!("{content:?}");
        assert!(text.contains("Paris"), "{format:?}: {text}");
    }
}

#[test]
fn an_enforced_tool_choice_asks_again_then_is_an_error() {
    let prose = ScriptedModel::new("Hi there!", 3);
    let wrapped = ToolCallingModel::new(prose.clone(), Format::Hermes).enforce_tool_choice(2);
    let r = request(vec![Message::user("hi")], Some(tool("get_weather")));
    let error = block_on(wrapped.generate(&r).unwrap()).unwrap_err();
    let unmet = error
        .downcast_ref::<toolsieve::middleware::ToolChoiceUnmet>()
        .expect("a ToolChoiceUnmet");
    assert_eq!(
        (unmet.tool.as_deref(), unmet.attempts),
        (Some("get_weather"), 3)
    );
    let sent = prose.requests();
    assert_eq!(sent.len(), 3);
    // Each retry carries the answer without the call and the correction.
    let last = format!("{:?}", sent[2].messages);
    assert!(
        last.contains("Hi there!") && last.contains("did not call the tool `get_weather`"),
        "{last}"
    );

    // Streamed: the held text never goes out; the error does.
    let mut stream = wrapped.stream(&r).unwrap();
    let parts: Vec<_> = block_on(async {
        let mut parts = Vec::new();
        while let Some(part) = stream.next().await {
            parts.push(part);
        }
        parts
    });
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert!(parts[0].is_err());

    // A call to the named tool goes through at once, text and all.
    let call = "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let calling = ScriptedModel::new(call, 4);
    let wrapped = ToolCallingModel::new(calling.clone(), Format::Hermes).enforce_tool_choice(2);
    let (events, finish) = run_stream(&wrapped, &r);
    assert_eq!(calls(&events).len(), 1, "{events:?}");
    assert_eq!(finish, FinishReason::ToolCalls);
    assert_eq!(calling.requests().len(), 1);
}

#[test]
fn a_named_tool_choice_does_not_deliver_a_call_to_another_tool() {
    let other = "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>";
    let wrapped = ToolCallingModel::new(ScriptedModel::new(other, 3), Format::Hermes);
    let r = request(vec![Message::user("hi")], Some(tool("get_weather")));
    let (events, finish) = run_stream(&wrapped, &r);
    assert!(calls(&events).is_empty(), "{events:?}");
    let kinds: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Diagnostic(d) => Some(d.kind),
            _ => None,
        })
        .collect();
    assert!(kinds.contains(&DiagnosticKind::UnknownTool), "{kinds:?}");
    assert_ne!(finish, FinishReason::ToolCalls);
}

#[test]
fn reasoning_in_history_is_dropped_or_written_in_the_format_tags() {
    let history = vec![
        Message::user("hi"),
        Message::Assistant {
            content: vec![
                Part::Reasoning {
                    text: "They greet me.".into(),
                },
                Part::text("Hello!"),
            ],
        },
    ];
    let assistant = |options: &ParamsOptions, format: Format| {
        let t = transform_params(format, &request(history.clone(), None), options).unwrap();
        match &t.request.messages[2] {
            Message::Assistant { content } => content.clone(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        assistant(&ParamsOptions::default(), Format::Hermes),
        vec![Part::text("Hello!")]
    );
    let keep = ParamsOptions {
        reasoning_in_history: true,
        ..ParamsOptions::default()
    };
    assert_eq!(
        assistant(&keep, Format::Hermes),
        vec![Part::text("<think>They greet me.</think>\nHello!")]
    );
    let harmony = assistant(&keep, Format::Harmony);
    let Part::Text { text } = &harmony[0] else {
        panic!("{harmony:?}")
    };
    assert!(
        text.starts_with("<|channel|>analysis<|message|>They greet me.<|end|>"),
        "{text}"
    );
}

#[test]
fn forced_answers_are_read_in_a_fence_after_a_preamble_and_in_relaxed_json() {
    let answers = [
        r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#,
        "Sure, here is the call:\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```",
        r#"{"name": "get_weather", "arguments": {"city": "Paris",},}"#,
        "```json\n{'name': 'get_weather', 'arguments': {'city': 'Paris'}}\n```",
        "Sure! Here it is: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}",
        "Calling {the tool} now. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        r#"[{"name": "get_weather", "arguments": {"city": "Paris"}}]"#,
    ];
    for answer in answers {
        for choice in [ToolChoice::Required, tool("get_weather")] {
            for size in [0, 1, 4] {
                let wrapped =
                    ToolCallingModel::new(ScriptedModel::new(answer, size), Format::Hermes);
                let r = request(
                    vec![Message::user("Weather in Paris?")],
                    Some(choice.clone()),
                );
                let (events, finish) = run_stream(&wrapped, &r);
                assert_eq!(
                    calls(&events),
                    vec![("get_weather".to_owned(), json!({"city": "Paris"}))],
                    "{answer:?} {choice:?} at {size}: {events:?}"
                );
                assert_eq!(finish, FinishReason::ToolCalls);
                let no_call = events.iter().any(
                    |e| matches!(e, Event::Diagnostic(d) if d.kind == DiagnosticKind::NoToolCall),
                );
                assert!(!no_call);
            }
        }
    }
}

#[test]
fn a_forced_answer_without_a_call_is_all_text_with_a_no_call_diagnostic() {
    for answer in [
        "I cannot {do} that.",
        "Sure: {\"name\": \"get_weather\", \"argu",
        "{not json} at all {",
    ] {
        for size in [0, 1, 3] {
            let wrapped = ToolCallingModel::new(ScriptedModel::new(answer, size), Format::Hermes);
            let r = request(vec![Message::user("?")], Some(ToolChoice::Required));
            let (events, finish) = run_stream(&wrapped, &r);
            let text: String = events
                .iter()
                .filter_map(|e| match e {
                    Event::TextDelta { delta, .. } => Some(delta.to_string()),
                    _ => None,
                })
                .collect();
            assert_eq!(text, answer, "{answer:?} at {size}: bytes lost: {events:?}");
            assert!(calls(&events).is_empty());
            assert!(events.iter().any(
                |e| matches!(e, Event::Diagnostic(d) if d.kind == DiagnosticKind::NoToolCall)
            ));
            assert_ne!(finish, FinishReason::ToolCalls);
        }
    }
}

/// A turn with several calls reads back, in the history the model sees, as
/// those calls in order: what the model learns to write from its own
/// turns is what its parser reads.
#[test]
fn an_assistant_turn_with_several_calls_parses_back_as_those_calls() {
    let made = [
        ("get_weather", json!({"city": "Paris"})),
        ("get_time", json!({"tz": "UTC"})),
        ("get_weather", json!({"city": "東京"})),
    ];
    for &format in Format::ALL {
        let mut content = vec![Part::text("Checking.")];
        for (i, (name, input)) in made.iter().enumerate() {
            content.push(Part::ToolCall {
                tool_call_id: format!("c{i}"),
                tool_name: (*name).into(),
                input: input.clone(),
            });
        }
        let msgs = vec![Message::Assistant { content }];
        let t = transform_params(format, &request(msgs, None), &ParamsOptions::default()).unwrap();
        let Message::Assistant { content } = &t.request.messages[1] else {
            panic!("{format}: no assistant message")
        };
        let [Part::Text { text: rendered }] = content.as_slice() else {
            panic!("{format}: {content:?}")
        };
        let mut parser = toolsieve::Parser::builder(format)
            .tools(vec![weather(), time()])
            .build()
            .unwrap();
        let events = parser.parse_str(rendered);
        let want: Vec<(String, Value)> = made
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect();
        assert_eq!(calls(&events), want, "{format}: {rendered}");
        assert_eq!(text(&events).trim(), "Checking.", "{format}: {rendered}");
    }
}

/// Kimi-K2 numbers a turn's calls (`functions.NAME:0`, `:1`) and names
/// the call each result answers; an id the model wrote comes back as it
/// was. Command numbers them in `tool_call_id`.
#[test]
fn formats_that_number_calls_number_a_turns_calls_and_their_results() {
    let call = |id: &str, name: &str| Part::ToolCall {
        tool_call_id: id.into(),
        tool_name: name.into(),
        input: json!({}),
    };
    let result = |id: &str, name: &str| ToolResult {
        tool_call_id: id.into(),
        tool_name: name.into(),
        output: json!("ok"),
        is_error: false,
    };
    let msgs = vec![
        Message::Assistant {
            content: vec![
                call("c1", "get_weather"),
                call("functions.get_time:7", "get_time"),
            ],
        },
        // Answered out of order.
        Message::Tool {
            content: vec![
                result("functions.get_time:7", "get_time"),
                result("c1", "get_weather"),
            ],
        },
    ];
    let rendered = |format| {
        let t = transform_params(
            format,
            &request(msgs.clone(), None),
            &ParamsOptions::default(),
        )
        .unwrap();
        let text_of = |m: &Message| match m {
            Message::Assistant { content } | Message::User { content } => {
                match content.as_slice() {
                    [Part::Text { text }] => text.clone(),
                    other => panic!("{other:?}"),
                }
            }
            other => panic!("{other:?}"),
        };
        (
            text_of(&t.request.messages[1]),
            text_of(&t.request.messages[2]),
        )
    };
    let (calls, results) = rendered(Format::KimiK2);
    let at = |text: &str, needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle} in {text}"))
    };
    assert!(
        at(&calls, "functions.get_weather:0") < at(&calls, "functions.get_time:7"),
        "{calls}"
    );
    assert!(
        at(&results, "## Return of functions.get_time:7")
            < at(&results, "## Return of functions.get_weather:0"),
        "{results}"
    );
    let (calls, results) = rendered(Format::Cohere);
    assert!(
        at(&calls, "\"tool_call_id\": \"0\"") < at(&calls, "\"tool_call_id\": \"1\""),
        "{calls}"
    );
    assert!(
        at(&results, "\"tool_call_id\": \"1\"") < at(&results, "\"tool_call_id\": \"0\""),
        "{results}"
    );
}

/// A turn's calls go in one block where the format's models write them
/// so: one Python list, one section of special tokens, one JSON list.
#[test]
fn a_turns_calls_render_as_one_block() {
    let msgs = vec![Message::Assistant {
        content: vec![
            Part::text("Checking."),
            Part::ToolCall {
                tool_call_id: "a".into(),
                tool_name: "get_weather".into(),
                input: json!({"city": "Paris"}),
            },
            Part::ToolCall {
                tool_call_id: "b".into(),
                tool_name: "get_time".into(),
                input: json!({}),
            },
        ],
    }];
    let cases = [
        (Format::Pythonic, "Checking.\n<|python_start|>[get_weather(city=\"Paris\"), get_time()]<|python_end|>"),
        (Format::KimiK2, "Checking.\n<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\":\"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"),
        (Format::Xlam, "Checking.\n```json\n[{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}, {\"name\": \"get_time\", \"arguments\": {}}]\n```"),
        // Formats that write a block per call keep doing so.
        (Format::Hermes, "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>"),
    ];
    for (format, want) in cases {
        let t = transform_params(
            format,
            &request(msgs.clone(), None),
            &ParamsOptions::default(),
        )
        .unwrap();
        let Message::Assistant { content } = &t.request.messages[1] else {
            panic!("{format}")
        };
        assert_eq!(content, &vec![Part::text(want)], "{format}");
    }
}
