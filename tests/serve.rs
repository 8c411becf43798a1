//! `toolsieve serve` end to end on loopback: a mock text-only backend (an
//! axum app in this file that replays recorded model outputs in 1–5
//! character pieces) behind the proxy, driven over HTTP.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde_json::{json, Value};
use toolsieve::openai::StreamPolicy;
use toolsieve::server::{FormatChoice, ServeConfig};
use toolsieve::Format;

mod serve_common;
use serve_common::*;

// ------------------------------------------------------------ mock backend

#[derive(Default)]
struct Mock {
    /// What the model answers.
    output: String,
    /// Answers for the next requests, in order (then `output`).
    turns: Mutex<std::collections::VecDeque<String>>,
    /// Reasoning the backend separated itself (sent as `reasoning_content`).
    reasoning: String,
    /// Answer every request with this status and an error body.
    fail_with: Option<u16>,
    /// Wait this long between pieces.
    delay: Duration,
    /// Bodies received.
    requests: Mutex<Vec<Value>>,
    /// Streams that ran to their end / that were dropped before it.
    finished: AtomicUsize,
    dropped: AtomicUsize,
}

/// 1–5 characters at a time, cycling, cut at char boundaries.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut n) = (0, 1);
    while i < chars.len() {
        let end = (i + n).min(chars.len());
        out.push(chars[i..end].iter().collect());
        i = end;
        n = n % 5 + 1;
    }
    out
}

/// Counts a stream as dropped unless it was marked finished.
struct Watch {
    mock: Arc<Mock>,
    done: bool,
}

impl Watch {
    fn saw(&mut self, last: bool) {
        self.done |= last;
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let counter = if self.done {
            &self.mock.finished
        } else {
            &self.mock.dropped
        };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({
        "id": "mock", "object": "chat.completion.chunk", "created": 0, "model": "mock",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })
    .to_string()
}

async fn mock_chat(State(mock): State<Arc<Mock>>, Json(body): Json<Value>) -> Response {
    mock.requests.lock().unwrap().push(body.clone());
    let output = mock
        .turns
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| mock.output.clone());
    if let Some(status) = mock.fail_with {
        let error = json!({"error": {"message": "model overloaded", "type": "server_error"}});
        return (StatusCode::from_u16(status).unwrap(), Json(error)).into_response();
    }
    let usage = json!({"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18});
    if body["stream"] != json!(true) {
        let mut message = json!({"role": "assistant", "content": output});
        if !mock.reasoning.is_empty() {
            message["reasoning_content"] = json!(mock.reasoning);
        }
        return Json(json!({
            "id": "mock", "object": "chat.completion", "created": 0, "model": "mock",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }))
        .into_response();
    }
    let mut frames: Vec<String> = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    frames.extend(
        pieces(&mock.reasoning)
            .into_iter()
            .map(|p| chunk(json!({"reasoning_content": p}), None)),
    );
    frames.extend(
        pieces(&output)
            .into_iter()
            .map(|p| chunk(json!({"content": p}), None)),
    );
    frames.push(chunk(json!({}), Some("stop")));
    if body["stream_options"]["include_usage"] == json!(true) {
        frames.push(
            json!({"id": "mock", "object": "chat.completion.chunk", "created": 0,
                   "model": "mock", "choices": [], "usage": usage})
            .to_string(),
        );
    }
    frames.push("[DONE]".into());
    let delay = mock.delay;
    let total = frames.len();
    let mut watch = Watch {
        mock: mock.clone(),
        done: false,
    };
    let events = futures::stream::iter(frames.into_iter().enumerate())
        .then(move |(i, frame)| async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            (i, frame)
        })
        .map(move |(i, frame)| {
            watch.saw(i + 1 == total);
            Ok::<_, std::convert::Infallible>(SseEvent::default().data(frame))
        });
    Sse::new(events).into_response()
}

async fn mock_models() -> Json<Value> {
    Json(json!({"object": "list", "data": [{"id": "mock-model", "object": "model"}]}))
}

async fn start_backend(mock: Mock) -> (String, Arc<Mock>) {
    let mock = Arc::new(mock);
    let app = Router::new()
        .route("/v1/chat/completions", post(mock_chat))
        .route("/v1/models", get(mock_models))
        .with_state(mock.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, mock)
}

async fn setup(mock: Mock, configure: impl FnOnce(&mut ServeConfig)) -> (String, Arc<Mock>) {
    let (backend, mock) = start_backend(mock).await;
    let mut config = ServeConfig::new(backend);
    configure(&mut config);
    (start_proxy(config).await, mock)
}

fn mock(output: &str) -> Mock {
    Mock {
        output: output.into(),
        ..Mock::default()
    }
}

// ------------------------------------------------------------ client side

fn tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
         "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
        {"type": "function", "function": {"name": "get_time", "description": "Time in a zone",
         "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]}}}
    ])
}

fn ask(extra: Value) -> Value {
    let mut body = json!({
        "model": "qwen2.5-7b-instruct",
        "messages": [{"role": "user", "content": "Weather in Paris and time in Tokyo?"}],
        "tools": tools(),
    });
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    body
}

async fn post_json(url: &str, body: &Value) -> (u16, Value) {
    let response = post_chat(url, body).await;
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn calls_of(message: &Value) -> Vec<(String, String, String)> {
    message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_owned(),
                c["function"]["name"].as_str().unwrap().to_owned(),
                c["function"]["arguments"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn without_ids(calls: &[(String, String, String)]) -> Vec<(String, Value)> {
    calls
        .iter()
        .map(|(_, name, args)| (name.clone(), serde_json::from_str(args).unwrap()))
        .collect()
}

const TWO_CALLS: &str = "Let me check both.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"Asia/Tokyo\"}}\n</tool_call>";

// ------------------------------------------------------------ tests

#[tokio::test]
async fn stream_and_whole_answers_carry_the_same_parallel_calls() {
    for policy in [StreamPolicy::Eager, StreamPolicy::Validated] {
        let (url, mock) = setup(mock(TWO_CALLS), |c| c.stream_policy = policy).await;
        let streamed = stream(
            &url,
            &ask(json!({"stream_options": {"include_usage": true}})),
        )
        .await;
        let (status, whole) = post_json(&url, &ask(json!({}))).await;
        assert_eq!(status, 200, "{whole}");
        let message = &whole["choices"][0]["message"];
        assert_eq!(whole["object"], "chat.completion");
        assert_eq!(whole["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(streamed.finish_reason.as_deref(), Some("tool_calls"));
        assert!(streamed.done && streamed.errors.is_empty());
        // The newline between the two calls is text too: nothing is lost.
        assert_eq!(message["content"], "Let me check both.\n\n");
        assert_eq!(streamed.content, "Let me check both.\n\n");
        let expected = vec![
            ("get_weather".to_owned(), json!({"city": "Paris"})),
            ("get_time".to_owned(), json!({"tz": "Asia/Tokyo"})),
        ];
        assert_eq!(without_ids(&streamed.calls), expected, "{policy:?}");
        assert_eq!(without_ids(&calls_of(message)), expected);
        let whole_calls = calls_of(message);
        let mut ids: Vec<&String> = streamed
            .calls
            .iter()
            .chain(&whole_calls)
            .map(|c| &c.0)
            .collect();
        let all: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        assert!(
            all.iter()
                .all(|id| id.starts_with("call_") && id.len() == 29),
            "{all:?}"
        );
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 4, "call ids repeat: {all:?}");
        assert_eq!(
            streamed.usage,
            Some(json!({"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}))
        );
        assert_eq!(whole["usage"]["total_tokens"], 18);
        // The backend saw a text-only request: the prompt, no tools.
        let sent = mock.requests.lock().unwrap().clone();
        for body in &sent {
            assert!(
                body.get("tools").is_none() && body.get("tool_choice").is_none(),
                "{body}"
            );
            let system = body["messages"][0]["content"].as_str().unwrap();
            assert!(
                system.contains("<tools>") && system.contains("get_time"),
                "{system}"
            );
            assert_eq!(body["model"], "qwen2.5-7b-instruct");
        }
        assert_eq!(sent[0]["stream"], true);
        assert_eq!(sent[0]["stream_options"], json!({"include_usage": true}));
        assert!(sent[1].get("stream").is_none());
    }
}

#[tokio::test]
async fn required_and_named_tool_choice_ask_for_json_and_read_it() {
    let bare = r#"{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}"#;
    let (url, mock) = setup(mock(bare), |_| {}).await;
    let streamed = stream(&url, &ask(json!({"tool_choice": "required"}))).await;
    assert_eq!(
        without_ids(&streamed.calls),
        vec![("get_time".to_owned(), json!({"tz": "Europe/Paris"}))]
    );
    assert_eq!(streamed.content, "");
    let named = json!({"tool_choice": {"type": "function", "function": {"name": "get_time"}}});
    let (status, whole) = post_json(&url, &ask(named)).await;
    assert_eq!(status, 200);
    assert_eq!(calls_of(&whole["choices"][0]["message"])[0].1, "get_time");
    assert!(whole["choices"][0]["message"]["content"].is_null());
    let sent = mock.requests.lock().unwrap().clone();
    assert_eq!(sent[0]["response_format"]["type"], "json_schema");
    let schema = &sent[1]["response_format"]["json_schema"]["schema"];
    assert_eq!(
        schema["properties"]["name"]["const"], "get_time",
        "{schema}"
    );
    // The forced tool's name and description as hints.
    assert_eq!(
        sent[1]["response_format"]["json_schema"]["name"],
        "get_time"
    );
    assert_eq!(
        sent[1]["response_format"]["json_schema"]["description"],
        "Time in a zone"
    );
    assert_eq!(
        sent[0]["response_format"]["json_schema"]["name"],
        "tool_call"
    );
}

#[tokio::test]
async fn a_forced_tool_choice_is_asked_again_then_fails_clearly() {
    let call = "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}";
    let body = ask(json!({"tool_choice": "required"}));
    for streamed in [false, true] {
        // Prose first, the call when asked again.
        let prose_then_call = Mock {
            output: call.into(),
            turns: Mutex::new(["Hi there!".to_string()].into()),
            ..Mock::default()
        };
        let (url, backend) = setup(prose_then_call, |_| {}).await;
        let (content, calls, finish) = if streamed {
            let s = stream(&url, &body).await;
            assert!(s.errors.is_empty(), "{:?}", s.errors);
            (
                s.content,
                s.calls.len(),
                s.finish_reason.unwrap_or_default(),
            )
        } else {
            let (status, whole) = post_json(&url, &body).await;
            assert_eq!(status, 200, "{whole}");
            let message = &whole["choices"][0]["message"];
            let content = message["content"].as_str().unwrap_or_default().to_owned();
            let finish = whole["choices"][0]["finish_reason"]
                .as_str()
                .unwrap()
                .to_owned();
            (content, calls_of(message).len(), finish)
        };
        // The prose of the first answer is not passed off as the answer.
        assert!(!content.contains("Hi there"), "{content}");
        assert_eq!((calls, finish.as_str()), (1, "tool_calls"));
        let requests = backend.requests.lock().unwrap().clone();
        assert_eq!(requests.len(), 2);
        let retry = requests[1]["messages"].as_array().unwrap();
        let asked_again = retry.last().unwrap()["content"].as_str().unwrap();
        assert!(
            asked_again.contains("tool call is required"),
            "{asked_again}"
        );
        assert_eq!(retry[retry.len() - 2]["content"], "Hi there!");

        // Prose every time: an error the client sees, after one retry.
        let (url, backend) = setup(mock("Hi there!"), |_| {}).await;
        // Streamed too, the text waited for a call that never began: the
        // error comes before any event, as a plain error response.
        let mut asked = body.clone();
        asked["stream"] = json!(streamed);
        let (status, error) = post_json(&url, &asked).await;
        assert_eq!(status, 502, "{error}");
        assert_eq!(error["error"]["code"], "tool_choice_unmet");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains("2 times"), "{message}");
        assert_eq!(backend.requests.lock().unwrap().len(), 2);
    }
}

#[tokio::test]
async fn tool_choice_none_sends_no_prompt_and_reads_text() {
    let (url, mock) = setup(mock(TWO_CALLS), |_| {}).await;
    let streamed = stream(&url, &ask(json!({"tool_choice": "none"}))).await;
    assert!(streamed.calls.is_empty());
    assert_eq!(streamed.content, TWO_CALLS);
    assert_eq!(streamed.finish_reason.as_deref(), Some("stop"));
    let sent = mock.requests.lock().unwrap().clone();
    assert_eq!(sent[0]["messages"][0]["role"], "user", "{}", sent[0]);
}

#[tokio::test]
async fn history_with_calls_and_results_goes_to_the_backend_as_text() {
    let (url, mock) = setup(mock("It is 18°C in Paris."), |_| {}).await;
    let body = ask(json!({"messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_abc", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_abc", "content": "{\"temperature\": 18}"}
    ]}));
    let (status, whole) = post_json(&url, &body).await;
    assert_eq!(status, 200, "{whole}");
    assert_eq!(
        whole["choices"][0]["message"]["content"],
        "It is 18°C in Paris."
    );
    assert_eq!(whole["choices"][0]["finish_reason"], "stop");
    let sent = mock.requests.lock().unwrap()[0].clone();
    let roles: Vec<&str> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"], "{sent}");
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("<tools>") && system.ends_with("Be brief."),
        "{system}"
    );
    let assistant = sent["messages"][2]["content"].as_str().unwrap();
    assert!(
        assistant.contains("<tool_call>") && assistant.contains("\"Paris\""),
        "{assistant}"
    );
    let result = sent["messages"][3]["content"].as_str().unwrap();
    assert!(
        result.contains("<tool_response>") && result.contains("18"),
        "{result}"
    );
}

#[tokio::test]
async fn malformed_calls_of_earlier_turns_are_rendered_as_written_unless_strict() {
    let body = ask(json!({"messages": [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"role": "assistant", "content": null, "tool_calls": [
            // Cut by max_tokens, then replayed.
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Par"}},
            // A model that wrote a list.
            {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": "[\"Rome\"]"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "error: bad arguments"},
        {"role": "tool", "tool_call_id": "c2", "content": "error: bad arguments"},
        {"role": "user", "content": "Try again."}
    ]}));
    for format in [Format::Hermes, Format::Qwen3Coder] {
        let (url, mock) = setup(mock("Sorry."), |c| c.format = FormatChoice::Fixed(format)).await;
        let (status, whole) = post_json(&url, &body).await;
        assert_eq!(status, 200, "{format:?}: {whole}");
        let sent = mock.requests.lock().unwrap()[0].clone();
        let assistant = sent["messages"][2]["content"].as_str().unwrap();
        // Nothing the model wrote is lost from the prompt.
        assert!(
            assistant.contains("Par") && assistant.contains("Rome"),
            "{format:?}: {assistant}"
        );
    }
    let (url, mock) = setup(mock("never"), |c| {
        c.history = toolsieve::openai::History::Strict
    })
    .await;
    let (status, error) = post_json(&url, &body).await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(
        error["error"]["param"],
        "messages[1].tool_calls[0].function.arguments"
    );
    assert!(mock.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn invalid_requests_get_openai_errors_before_the_backend_is_called() {
    let (url, mock) = setup(mock("never"), |_| {}).await;
    let cases = [
        (
            ask(json!({"tool_choice": {"type": "function", "function": {"name": "nope"}}})),
            "tool_choice",
        ),
        (ask(json!({"model": "unheard-of-model"})), "model"),
        (ask(json!({"model": "my-finetune"})), "model"),
        (
            ask(json!({"tools": [{"type": "web_search"}]})),
            "tools[0].type",
        ),
        (
            ask(json!({"messages": [{"role": "tool", "tool_call_id": "x", "content": "1"}]})),
            "messages[0].tool_call_id",
        ),
        (
            ask(
                json!({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:"}}]}]}),
            ),
            "messages[0].content[0]",
        ),
    ];
    for (body, param) in cases {
        let (status, error) = post_json(&url, &body).await;
        assert_eq!(status, 400, "{error}");
        assert_eq!(error["error"]["type"], "invalid_request_error");
        assert_eq!(error["error"]["param"], param, "{error}");
        if param == "model" {
            // Words for an HTTP client: what to send, not a CLI flag.
            assert_eq!(error["error"]["code"], "unknown_model_family");
            let message = error["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("operator") && !message.contains("--"),
                "{message}"
            );
        }
    }
    let (status, error) = post_json(&url, &json!({"messages": 3})).await;
    assert_eq!(status, 400);
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not a chat request"));
    assert!(mock.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn backend_errors_are_502_with_an_error_body() {
    let failing = Mock {
        fail_with: Some(503),
        ..Mock::default()
    };
    let (url, _) = setup(failing, |_| {}).await;
    for stream_it in [false, true] {
        let (status, error) = post_json(&url, &ask(json!({"stream": stream_it}))).await;
        assert_eq!(status, 502, "{error}");
        assert_eq!(error["error"]["code"], "backend_error");
        assert!(
            error["error"]["message"]
                .as_str()
                .unwrap()
                .contains("model overloaded"),
            "{error}"
        );
    }
    // Nothing listens there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let url = start_proxy(ServeConfig::new(dead)).await;
    let (status, error) = post_json(&url, &ask(json!({"stream": true}))).await;
    assert_eq!(status, 502);
    assert_eq!(error["error"]["code"], "backend_unreachable");
}

#[tokio::test]
async fn a_client_that_disconnects_cancels_the_backend_stream() {
    let long = "word ".repeat(400);
    let slow = Mock {
        output: long,
        delay: Duration::from_millis(5),
        ..Mock::default()
    };
    let (url, mock) = setup(slow, |_| {}).await;
    let response = post_stream(&url, &ask(json!({}))).await;
    let mut bytes = response.bytes_stream();
    let first = bytes.next().await.unwrap().unwrap();
    assert!(!first.is_empty());
    drop(bytes);
    for _ in 0..200 {
        if mock.dropped.load(Ordering::SeqCst) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        mock.dropped.load(Ordering::SeqCst),
        1,
        "the backend stream was not dropped"
    );
    assert_eq!(mock.finished.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_failed_call_is_content_and_only_eager_streams_its_start() {
    let broken = "Try: <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par";
    for (policy, streamed_calls) in [(StreamPolicy::Eager, 1), (StreamPolicy::Validated, 0)] {
        let (url, _) = setup(mock(broken), |c| c.stream_policy = policy).await;
        let streamed = stream(&url, &ask(json!({}))).await;
        assert_eq!(
            streamed.calls.len(),
            streamed_calls,
            "{policy:?}: {streamed:?}"
        );
        assert_eq!(
            streamed.content, broken,
            "{policy:?}: the raw text comes as content"
        );
        assert_eq!(streamed.finish_reason.as_deref(), Some("stop"));
        let (_, whole) = post_json(&url, &ask(json!({}))).await;
        assert!(whole["choices"][0]["message"].get("tool_calls").is_none());
        assert_eq!(whole["choices"][0]["message"]["content"], broken);
    }
}

#[tokio::test]
async fn model_auto_separates_reasoning_and_fixed_format_overrides() {
    let thinking = "<think>Paris, so get_weather.</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let (url, _) = setup(mock(thinking), |_| {}).await;
    let body = ask(json!({"model": "Qwen/Qwen3-8B"}));
    let streamed = stream(&url, &body).await;
    assert_eq!(streamed.reasoning, "Paris, so get_weather.");
    assert_eq!(streamed.calls.len(), 1);
    let (_, whole) = post_json(&url, &body).await;
    assert_eq!(
        whole["choices"][0]["message"]["reasoning_content"],
        "Paris, so get_weather."
    );

    // Reasoning the backend separated itself comes through too.
    let separated = Mock {
        output: "No tool needed.".into(),
        reasoning: "Simple question.".into(),
        ..Mock::default()
    };
    let (url, _) = setup(separated, |c| {
        c.format = FormatChoice::Fixed(Format::Hermes)
    })
    .await;
    let streamed = stream(&url, &ask(json!({"model": "anything"}))).await;
    assert_eq!(streamed.reasoning, "Simple question.");
    assert_eq!(streamed.content, "No tool needed.");
    let (_, whole) = post_json(&url, &ask(json!({"model": "anything"}))).await;
    assert_eq!(
        whole["choices"][0]["message"]["reasoning_content"],
        "Simple question."
    );
}

#[tokio::test]
async fn a_model_no_family_matches_gets_the_default_format() {
    let thinking = "<think>Paris, so get_weather.</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let (url, _) = setup(mock(thinking), |c| {
        c.format = FormatChoice::AutoOr(Format::Hermes)
    })
    .await;
    let body = ask(json!({"model": "my-finetune"}));
    let streamed = stream(&url, &body).await;
    assert_eq!(streamed.calls.len(), 1, "{streamed:?}");
    // Hermes has no reasoning tags of its own.
    assert!(streamed.content.contains("<think>"), "{streamed:?}");
    let (status, whole) = post_json(&url, &body).await;
    assert_eq!(status, 200, "{whole}");
    assert_eq!(calls_of(&whole["choices"][0]["message"]).len(), 1);
    // A model a family matches still picks its own format and tags.
    let streamed = stream(&url, &ask(json!({"model": "Qwen/Qwen3-8B"}))).await;
    assert_eq!(streamed.reasoning, "Paris, so get_weather.");
    assert_eq!(streamed.calls.len(), 1);
}

#[tokio::test]
async fn requests_without_tools_pass_through_untouched() {
    let (url, mock) = setup(mock("Hello there."), |_| {}).await;
    let body = json!({"model": "any", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.5, "logit_bias": {"1": 2}, "x_vendor": [1]});
    let (status, whole) = post_json(&url, &body).await;
    assert_eq!(status, 200);
    assert_eq!(whole["id"], "mock", "answered by the backend itself");
    assert_eq!(mock.requests.lock().unwrap()[0], body);
    let streamed = stream(&url, &body).await;
    assert_eq!(streamed.content, "Hello there.");
    assert!(streamed.done);
}

#[tokio::test]
async fn unknown_fields_and_sampling_settings_reach_the_backend() {
    let (url, mock) = setup(mock("ok"), |_| {}).await;
    let extra = json!({"temperature": 0.3, "max_tokens": 50, "top_k": 20, "stop": ["\n\n"], "parallel_tool_calls": false});
    let (status, _) = post_json(&url, &ask(extra)).await;
    assert_eq!(status, 200);
    let sent = mock.requests.lock().unwrap()[0].clone();
    assert_eq!(sent["temperature"], 0.3);
    assert_eq!(sent["max_tokens"], 50);
    assert_eq!(sent["top_k"], 20);
    assert_eq!(sent["stop"], json!(["\n\n"]));
    assert!(sent.get("parallel_tool_calls").is_none());
}

#[tokio::test]
async fn health_models_and_limits() {
    let (url, _) = setup(mock("ok"), |c| {
        c.max_body_bytes = 2048;
    })
    .await;
    let base = url.trim_end_matches("/v1");
    let health: Value = reqwest::get(format!("{base}/health"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health, json!({"status": "ok"}));
    let models: Value = reqwest::get(format!("{url}/models"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["data"][0]["id"], "mock-model");
    let big = ask(json!({"messages": [{"role": "user", "content": "x".repeat(4096)}]}));
    let (status, error) = post_json(&url, &big).await;
    assert_eq!(status, 413, "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("2048"));
}

#[tokio::test]
async fn concurrent_streams_over_the_limit_are_refused_clearly() {
    let slow = Mock {
        output: "a b c d e f".into(),
        delay: Duration::from_millis(30),
        ..Mock::default()
    };
    let (url, _) = setup(slow, |c| c.max_concurrent = 2).await;
    let body = ask(json!({"stream": true}));
    let mut open = Vec::new();
    for _ in 0..2 {
        let response = post_chat(&url, &body).await;
        assert_eq!(response.status(), 200);
        open.push(response);
    }
    let (status, error) = post_json(&url, &body).await;
    assert_eq!(status, 503, "{error}");
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("limit of 2"));
    for response in open {
        let text = response.text().await.unwrap();
        assert!(text.trim_end().ends_with("data: [DONE]"), "{text}");
    }
    // Slots come back when streams end.
    let streamed = stream(&url, &ask(json!({}))).await;
    assert!(streamed.done);
}

#[tokio::test]
async fn shutdown_lets_the_streams_in_flight_finish() {
    let slow = Mock {
        output: "one two three four five six".into(),
        delay: Duration::from_millis(20),
        ..Mock::default()
    };
    let (backend, _) = start_backend(slow).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(toolsieve::server::run(
        listener,
        ServeConfig::new(backend),
        async move {
            let _ = stopped.await;
        },
    ));
    let response = post_stream(&url, &ask(json!({}))).await;
    stop.send(()).unwrap();
    let text = response.text().await.unwrap();
    assert!(
        text.contains(r#""finish_reason":"stop""#) && text.trim_end().ends_with("data: [DONE]"),
        "{text}"
    );
    let ended = tokio::time::timeout(Duration::from_secs(10), server).await;
    assert!(
        matches!(ended, Ok(Ok(Ok(())))),
        "the server did not stop: {ended:?}"
    );
    // No new connections after that.
    assert!(reqwest::get(format!("{url}/models")).await.is_err());
}

#[tokio::test]
async fn the_tool_loop_runs_against_an_http_backend() {
    use toolsieve::middleware::{
        step_count_is, LoopTool, Message, Request, ToolCallingModel, ToolLoop,
    };
    let scripted = Mock {
        turns: Mutex::new(
            [
                // Fails validation: the model sees an error result.
                "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": 75}}\n</tool_call>",
                "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
                "It is 17.5°C in Paris.",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
        ),
        ..Mock::default()
    };
    let (backend, mock) = start_backend(scripted).await;
    let model = toolsieve::openai::HttpModel::new(backend)
        .unwrap()
        .model("qwen2.5-7b-instruct");
    let weather = toolsieve::Tool::new("get_weather").with_parameters(
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    );
    let tools = vec![LoopTool::new(weather, |input: Value| async move {
        Ok(json!({"city": input["city"], "temperature": 17.5}))
    })];
    let agent = ToolLoop::new(ToolCallingModel::new(model, Format::Hermes), tools)
        .stop_when(vec![step_count_is(5)]);
    let request = Request {
        messages: vec![Message::user("Weather in Paris?")],
        ..Request::default()
    };
    let result = agent.run(&request).await.unwrap();
    assert_eq!(result.steps.len(), 3);
    assert_eq!(result.text(), "It is 17.5°C in Paris.");
    assert!(result.steps[0].results[0].is_error);
    assert_eq!(result.steps[0].usage.map(|u| u.total_tokens), Some(18));
    let sent = mock.requests.lock().unwrap().clone();
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[2]["model"], "qwen2.5-7b-instruct");
    let last_of = |i: usize| {
        sent[i]["messages"].as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(
        last_of(1).contains("error") && last_of(1).contains("/city"),
        "{}",
        last_of(1)
    );
    assert!(
        last_of(2).contains("<tool_response>") && last_of(2).contains("17.5"),
        "{}",
        last_of(2)
    );
}

#[tokio::test]
async fn the_thinking_switch_of_the_request_sets_how_reasoning_is_read() {
    // DeepSeek-V3.1 in thinking mode: the template opened `<think>`.
    let opened = "Paris, so get_weather.</think>It is sunny.";
    let (url, backend) = setup(mock(opened), |_| {}).await;
    let body = ask(json!({"model": "deepseek-ai/DeepSeek-V3.1",
        "chat_template_kwargs": {"thinking": true}}));
    let streamed = stream(&url, &body).await;
    assert_eq!(streamed.reasoning, "Paris, so get_weather.");
    assert_eq!(streamed.content, "It is sunny.");
    // The switch reaches the backend too.
    let sent = backend.requests.lock().unwrap()[0].clone();
    assert_eq!(sent["chat_template_kwargs"], json!({"thinking": true}));
    // Off: no reasoning is read.
    let body = ask(json!({"model": "deepseek-ai/DeepSeek-V3.1",
        "chat_template_kwargs": {"thinking": false}}));
    assert_eq!(stream(&url, &body).await.content, opened);

    // Qwen3 with thinking off writes no tags: any it writes are text.
    let tagged = "<think>not reasoning</think>Hi.";
    let (url, _) = setup(mock(tagged), |_| {}).await;
    let off =
        ask(json!({"model": "Qwen/Qwen3-8B", "chat_template_kwargs": {"enable_thinking": false}}));
    let (_, whole) = post_json(&url, &off).await;
    assert_eq!(whole["choices"][0]["message"]["content"], tagged);
    let on = ask(json!({"model": "Qwen/Qwen3-8B"}));
    let (_, whole) = post_json(&url, &on).await;
    assert_eq!(
        whole["choices"][0]["message"]["reasoning_content"],
        "not reasoning"
    );
}
