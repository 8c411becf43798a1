//! The OpenAI wire without HTTP: every golden case, streamed through the
//! wrapped model and the chunk encoder at many chunkings, accumulates as
//! an OpenAI client would to the same answer as the non-streaming
//! completion; and the request side keeps what it does not read.

mod common;

use common::*;
use futures::executor::block_on;
use futures::StreamExt;
use serde_json::{json, Value};
use toolsieve::middleware::{Request, ScriptedModel, ToolCallingModel};
use toolsieve::openai::{self, ChatRequest, ChunkEncoder, StreamPolicy};

#[derive(Debug, Default, PartialEq)]
struct Answer {
    content: String,
    reasoning: String,
    /// (name, arguments) in index order.
    calls: Vec<(String, String)>,
    finish: String,
}

fn wrapped(case: &Case, model: ScriptedModel) -> ToolCallingModel<ScriptedModel> {
    let reasoning = case.reasoning.clone().or(case.format.default_reasoning());
    ToolCallingModel::new(model, case.format).reasoning(reasoning)
}

fn request(case: &Case) -> Request {
    let tools = case.tools.clone().unwrap_or_default();
    Request {
        messages: vec![toolsieve::middleware::Message::user("go")],
        tools: tools.into_iter().map(Into::into).collect(),
        ..Request::default()
    }
}

fn streamed(case: &Case, text: &str, size: usize, policy: StreamPolicy) -> (Answer, Vec<String>) {
    let model = wrapped(case, ScriptedModel::new(text, size));
    let mut parts = model.stream(&request(case)).expect("valid request");
    let mut encoder = ChunkEncoder::new("chatcmpl-t", "m", 0, policy);
    let mut chunks = Vec::new();
    block_on(async {
        while let Some(part) = parts.next().await {
            encoder.push(&part.expect("scripted models do not fail"), &mut chunks);
        }
    });
    let mut answer = Answer::default();
    let mut ids = Vec::new();
    for chunk in &chunks {
        // Every chunk is valid wire JSON.
        let value = serde_json::to_value(chunk).unwrap();
        assert_eq!(value["object"], "chat.completion.chunk");
        let choice = &chunk.choices[0];
        answer.content += choice.delta.content.as_deref().unwrap_or("");
        answer.reasoning += choice.delta.reasoning_content.as_deref().unwrap_or("");
        for call in &choice.delta.tool_calls {
            let index = call.index as usize;
            if index == answer.calls.len() {
                answer.calls.push(Default::default());
                ids.push(call.id.clone().expect("the first piece has the id"));
            }
            let slot = &mut answer.calls[index];
            slot.0 += call.function.name.as_deref().unwrap_or("");
            slot.1 += call.function.arguments.as_deref().unwrap_or("");
        }
        if let Some(reason) = &choice.finish_reason {
            answer.finish.clone_from(reason);
        }
    }
    (answer, ids)
}

fn whole(case: &Case, text: &str) -> Answer {
    let model = wrapped(case, ScriptedModel::new(text, 0));
    let result = block_on(model.generate(&request(case)).expect("valid request")).unwrap();
    let completion = openai::completion("chatcmpl-t", "m", 0, &result, None);
    let message = &completion.choices[0].message;
    Answer {
        content: message.content.clone().unwrap_or_default(),
        reasoning: message.reasoning_content.clone().unwrap_or_default(),
        calls: message
            .tool_calls
            .iter()
            .map(|c| (c.function.name.clone(), c.function.arguments.clone()))
            .collect(),
        finish: completion.choices[0].finish_reason.clone().unwrap(),
    }
}

/// `sub` in order inside `all`.
fn is_subsequence<T: PartialEq>(sub: &[T], all: &[T]) -> bool {
    let mut it = all.iter();
    sub.iter().all(|x| it.any(|y| y == x))
}

#[test]
fn streamed_chunks_add_up_to_the_completion_for_every_golden_case_and_chunking() {
    let checked = std::sync::atomic::AtomicUsize::new(0);
    check_cases_in_parallel(&cases(), |case| {
        let Ok(text) = std::str::from_utf8(&case.input) else {
            return;
        };
        let want = whole(case, text);
        for size in [0, 1, 3, 8] {
            let (validated, ids) = streamed(case, text, size, StreamPolicy::Validated);
            assert_eq!(
                validated,
                want,
                "{}/{} at {size}",
                case.format.name(),
                case.name
            );
            let (eager, eager_ids) = streamed(case, text, size, StreamPolicy::Eager);
            let at = format!(
                "{}/{} at {size}: {eager:?} vs {want:?}",
                case.format.name(),
                case.name
            );
            assert_eq!(eager.content, want.content, "{at}");
            assert_eq!(eager.reasoning, want.reasoning, "{at}");
            assert_eq!(eager.finish, want.finish, "{at}");
            assert!(is_subsequence(&want.calls, &eager.calls), "{at}");
            // Validated ids are the model's where it wrote one; eager ones
            // too where it wrote the id before the name (the start event
            // carries it, also for a call abandoned later), and made up
            // otherwise.
            assert!(
                eager_ids.iter().all(|id| id.starts_with("call_")
                    || ids.contains(id)
                    || text.contains(id.as_str())),
                "{at}: {eager_ids:?} vs {ids:?}"
            );
            for run in [&ids, &eager_ids] {
                let mut unique = run.clone();
                unique.sort();
                unique.dedup();
                assert_eq!(unique.len(), run.len(), "call ids repeat: {at}");
            }
        }
        checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let checked = checked.into_inner();
    assert!(checked > 200, "golden cases went missing: {checked}");
}

#[test]
fn a_chat_request_keeps_the_fields_it_does_not_read() {
    let text = r#"{"model": "m", "messages": [{"role": "developer", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, {"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": "auto",
        "temperature": 0.1, "logprobs": true, "metadata": {"k": "v"}, "stream": true}"#;
    let chat: ChatRequest = serde_json::from_str(text).unwrap();
    let request = openai::to_middleware(&chat).unwrap();
    assert_eq!(request.extra["logprobs"], true);
    assert_eq!(request.extra["metadata"], json!({"k": "v"}));
    assert_eq!(request.extra["temperature"], 0.1);
    assert!(!request.extra.contains_key("stream") && !request.extra.contains_key("tools"));
    let (backend, transformed) =
        openai::transform(toolsieve::Format::Hermes, &chat, &Default::default()).unwrap();
    assert_eq!(transformed.tools.len(), 1);
    let sent = serde_json::to_value(&backend).unwrap();
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["logprobs"], true);
    assert_eq!(sent["model"], "m");
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("<tools>") && system.ends_with("a\nb"),
        "{system}"
    );
    // Back in: the backend request is itself a chat request.
    let again: ChatRequest = serde_json::from_value(sent.clone()).unwrap();
    assert_eq!(serde_json::to_value(&again).unwrap(), sent);
}

#[test]
fn the_middleware_request_reads_openai_spellings() {
    let request: Request = serde_json::from_value(json!({
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
        "temperature": 0.5
    }))
    .unwrap();
    assert_eq!(request.tools[0].name(), "f");
    assert_eq!(
        request.tool_choice,
        Some(toolsieve::middleware::ToolChoice::Tool { name: "f".into() })
    );
    assert_eq!(request.extra["temperature"], 0.5);
    for word in ["auto", "none", "required"] {
        let r: Request =
            serde_json::from_value(json!({"messages": [], "tool_choice": word})).unwrap();
        assert_eq!(
            serde_json::to_value(r.tool_choice.unwrap()).unwrap()["type"],
            word
        );
    }
    let bad =
        serde_json::from_value::<Request>(json!({"messages": [], "tool_choice": "sometimes"}));
    assert!(bad.is_err());
    let value = Value::from("x");
    assert!(serde_json::from_value::<Request>(json!({"messages": value})).is_err());
}

#[test]
fn the_encoder_finishes_with_tool_calls_once_a_call_was_delivered() {
    use toolsieve::middleware::{FinishReason, StreamPart};
    use toolsieve::openai::{ChunkEncoder, StreamPolicy};
    let finish = |output: &str, reason: FinishReason, policy: StreamPolicy| {
        let mut encoder = ChunkEncoder::new("c", "m", 0, policy);
        let mut chunks = Vec::new();
        let mut parser = toolsieve::Parser::new(toolsieve::Format::Hermes);
        for event in parser.parse(output.as_bytes()) {
            encoder.push(&StreamPart::Event(event.into_owned()), &mut chunks);
        }
        encoder.push(&StreamPart::Finish(reason), &mut chunks);
        chunks.last().unwrap().choices[0]
            .finish_reason
            .clone()
            .unwrap()
    };
    let call = r#"Sure. <tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
    let broken = r#"Sure. <tool_call>{"name": "f", "arguments": {"#;
    for policy in [StreamPolicy::Eager, StreamPolicy::Validated] {
        assert_eq!(finish(call, FinishReason::Stop, policy), "tool_calls");
        assert_eq!(finish(call, FinishReason::Other, policy), "tool_calls");
        assert_eq!(finish(call, FinishReason::Length, policy), "length");
        assert_eq!(finish("Just text.", FinishReason::Stop, policy), "stop");
        // A call that started but failed was not delivered.
        assert_eq!(finish(broken, FinishReason::Stop, policy), "stop");
    }
}

/// Ids the model wrote (Kimi's `functions.NAME:INDEX`, Mistral's
/// `[CALL_ID]`) go on the wire, streamed and whole; one it wrote twice
/// in an answer goes out once, the later call getting an id of its own.
#[test]
fn model_call_ids_go_on_the_wire_once_each() {
    use toolsieve::middleware::{Message, StreamPart};
    let output = "<|tool_calls_section_begin|>\
        <|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>\
        <|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{}<|tool_call_end|>\
        <|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>\
        <|tool_calls_section_end|>";
    let check = |ids: Vec<String>| {
        assert_eq!(ids.len(), 3, "{ids:?}");
        assert_eq!(ids[..2], ["functions.f:0", "functions.g:1"]);
        assert!(ids[2].starts_with("call_"), "{ids:?}");
    };
    for policy in [StreamPolicy::Eager, StreamPolicy::Validated] {
        let mut encoder = ChunkEncoder::new("c", "m", 0, policy);
        let mut chunks = Vec::new();
        let mut parser = toolsieve::Parser::new(toolsieve::Format::KimiK2);
        for event in parser.parse(output.as_bytes()) {
            encoder.push(&StreamPart::Event(event.into_owned()), &mut chunks);
        }
        let ids = chunks
            .iter()
            .flat_map(|c| &c.choices[0].delta.tool_calls)
            .filter_map(|call| call.id.clone())
            .collect();
        check(ids);
    }
    let model = ToolCallingModel::new(ScriptedModel::new(output, 0), toolsieve::Format::KimiK2);
    let request = Request {
        messages: vec![Message::user("go")],
        ..Request::default()
    };
    let result = block_on(model.generate(&request).expect("valid request")).unwrap();
    let completion = openai::completion("c", "m", 0, &result, None);
    check(
        completion.choices[0]
            .message
            .tool_calls
            .iter()
            .map(|c| c.id.clone())
            .collect(),
    );
}
