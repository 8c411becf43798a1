//! Every golden case through the Anthropic (`/v1/messages`) and Responses
//! (`/v1/responses`) routes: a mock backend writes the case's text, whole
//! or streamed at several piece sizes. Under the validated policy the
//! events of each stream add up to the whole answer of the same route,
//! with the calls the parser reads from that text; under the eager one
//! (calls stream as they arrive) to the same text, with every delivered
//! call among the streamed ones.

mod common;

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use toolsieve::openai::StreamPolicy;
use toolsieve::server::{FormatChoice, ServeConfig};
use toolsieve::{Event, Format};

/// What the mock backend writes, and in pieces of how many characters
/// (0: one).
#[derive(Default)]
struct Script {
    output: String,
    piece: usize,
}

async fn backend(State(script): State<Arc<Mutex<Script>>>, Json(body): Json<Value>) -> Response {
    let (output, piece) = {
        let s = script.lock().unwrap();
        (s.output.clone(), s.piece)
    };
    if body["stream"] != json!(true) {
        return Json(
            json!({"id": "m", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": output}}]}),
        )
        .into_response();
    }
    let chunk = |delta: Value, finish: Value| {
        let c = json!({"id": "m", "object": "chat.completion.chunk", "created": 0, "model": "m",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {c}\n\n")
    };
    let mut sse = String::new();
    for piece in toolsieve::contract::char_chunks(&output, piece) {
        sse.push_str(&chunk(json!({"content": piece}), Value::Null));
    }
    sse.push_str(&chunk(json!({}), json!("stop")));
    sse.push_str("data: [DONE]\n\n");
    ([("content-type", "text/event-stream")], sse).into_response()
}

async fn start(format: Format, policy: StreamPolicy, script: Arc<Mutex<Script>>) -> String {
    let app = Router::new()
        .route("/v1/chat/completions", post(backend))
        .with_state(script);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let backend_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let mut config = ServeConfig::new(backend_url);
    config.format = FormatChoice::Fixed(format);
    config.stream_policy = policy;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(toolsieve::server::run(
        listener,
        config,
        std::future::pending(),
    ));
    url
}

/// The `data` of every event of a server-sent stream.
fn events_of(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|frame| frame.lines().find_map(|l| l.strip_prefix("data: ")))
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect()
}

/// A message's blocks or a response's items, without ids: (kind, text
/// or name, input as JSON).
type Shape = Vec<(String, String, Value)>;

fn message_shape(message: &Value) -> Shape {
    message["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| match b["type"].as_str().unwrap() {
            "text" => (
                "text".into(),
                b["text"].as_str().unwrap().into(),
                Value::Null,
            ),
            "thinking" => (
                "thinking".into(),
                b["thinking"].as_str().unwrap().into(),
                Value::Null,
            ),
            _ => (
                "tool_use".into(),
                b["name"].as_str().unwrap().into(),
                b["input"].clone(),
            ),
        })
        .collect()
}

/// The message an Anthropic client rebuilds from the events.
fn accumulate_message(events: &[Value]) -> (Shape, String) {
    let mut blocks: Vec<(String, String, String)> = Vec::new();
    let mut stop = String::new();
    for e in events {
        match e["type"].as_str().unwrap() {
            "content_block_start" => {
                let b = &e["content_block"];
                let kind = b["type"].as_str().unwrap().to_owned();
                let name = b["name"].as_str().unwrap_or_default().to_owned();
                assert_eq!(e["index"], blocks.len(), "{e}");
                blocks.push((kind, name, String::new()));
            }
            "content_block_delta" => {
                let d = &e["delta"];
                let text = d["text"]
                    .as_str()
                    .or(d["thinking"].as_str())
                    .or(d["partial_json"].as_str());
                let index = e["index"].as_u64().unwrap() as usize;
                blocks[index].2.push_str(text.unwrap());
            }
            "message_delta" => stop = e["delta"]["stop_reason"].as_str().unwrap().to_owned(),
            "error" => panic!("{e}"),
            _ => {}
        }
    }
    let shape = blocks
        .into_iter()
        .map(|(kind, name, text)| match kind.as_str() {
            // A call abandoned on an eager stream may not parse.
            "tool_use" => (
                kind,
                name,
                serde_json::from_str(&text).unwrap_or(Value::String(text)),
            ),
            _ => (kind, text, Value::Null),
        })
        .collect();
    (shape, stop)
}

fn response_shape(response: &Value) -> Shape {
    response["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| match item["type"].as_str().unwrap() {
            "function_call" => {
                let raw = item["arguments"].as_str().unwrap();
                let args = serde_json::from_str(raw).unwrap_or(Value::String(raw.into()));
                (
                    "function_call".into(),
                    item["name"].as_str().unwrap().into(),
                    args,
                )
            }
            kind => (
                kind.into(),
                item["content"][0]["text"].as_str().unwrap().into(),
                Value::Null,
            ),
        })
        .collect()
}

/// The response a Responses client rebuilds from the deltas; checks
/// that the final event carries the same.
fn accumulate_response(events: &[Value]) -> (Shape, String) {
    let mut items: Vec<Value> = Vec::new();
    let mut last = Value::Null;
    for (n, e) in events.iter().enumerate() {
        assert_eq!(e["sequence_number"], n, "{e}");
        let index = e["output_index"].as_u64().unwrap_or(0) as usize;
        match e["type"].as_str().unwrap() {
            "response.output_item.added" => {
                assert_eq!(index, items.len());
                let mut item = e["item"].clone();
                if item["type"] != "function_call" {
                    item["content"] = json!([{"text": ""}]);
                }
                items.push(item);
            }
            "response.output_text.delta" | "response.reasoning_text.delta" => {
                let text = items[index]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                items[index]["content"][0]["text"] = json!(text + e["delta"].as_str().unwrap());
            }
            "response.function_call_arguments.delta" => {
                let args = items[index]["arguments"].as_str().unwrap().to_owned();
                items[index]["arguments"] = json!(args + e["delta"].as_str().unwrap());
            }
            "response.completed" | "response.incomplete" => last = e["response"].clone(),
            "response.failed" => panic!("{e}"),
            _ => {}
        }
    }
    let rebuilt = response_shape(&json!({ "output": items }));
    assert_eq!(
        rebuilt,
        response_shape(&last),
        "the final event differs from the deltas"
    );
    (rebuilt, last["status"].as_str().unwrap().to_owned())
}

/// The calls the parser reads from the case's text.
fn parsed_calls(case: &common::Case) -> Vec<(String, Value)> {
    let events = common::run_whole(&mut case.parser(), &case.input);
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

/// The text and reasoning of a shape, joined by kind.
fn texts_of(shape: &Shape) -> (String, String) {
    let mut text = String::new();
    let mut reasoning = String::new();
    for (kind, t, _) in shape {
        match kind.as_str() {
            "text" | "message" => text.push_str(t),
            "thinking" | "reasoning" => reasoning.push_str(t),
            _ => {}
        }
    }
    (text, reasoning)
}

/// `sub` in order inside `all`.
fn is_subsequence<T: PartialEq>(sub: &[T], all: &[T]) -> bool {
    let mut it = all.iter();
    sub.iter().all(|x| it.any(|y| y == x))
}

/// An eager stream against the whole answer: the same text and
/// reasoning; every delivered call, in order, among the streamed ones
/// (which also hold the calls that began and were then abandoned).
fn check_eager(streamed: &Shape, whole: &Shape, at: &str) {
    assert_eq!(texts_of(streamed), texts_of(whole), "{at}");
    let (got, want) = (calls_of(streamed), calls_of(whole));
    assert!(is_subsequence(&want, &got), "{at}: {want:?} not in {got:?}");
}

fn calls_of(shape: &Shape) -> Vec<(String, Value)> {
    shape
        .iter()
        .filter(|(kind, ..)| kind == "tool_use" || kind == "function_call")
        .map(|(_, name, input)| (name.clone(), input.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_golden_case_streams_to_the_whole_answer_on_both_wires() {
    // The server closes a keep-alive connection idle for its header-read
    // timeout (10 s); a client that keeps idle connections longer may
    // send on one just as it closes. A loaded machine leaves a format's
    // second server idle that long between two cases.
    let client = reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .unwrap();
    // One task per format, each with its own servers: the formats' cases
    // go through at once.
    let mut by_format: Vec<(Format, Vec<common::Case>)> = Vec::new();
    for case in common::cases() {
        match by_format.iter_mut().find(|(f, _)| *f == case.format) {
            Some((_, cases)) => cases.push(case),
            None => by_format.push((case.format, vec![case])),
        }
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (format, cases) in by_format {
        tasks.spawn(check_format(client.clone(), format, cases));
    }
    let mut checked = 0;
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(n) => checked += n,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => panic!("{e}"),
        }
    }
    assert!(checked >= 300, "only {checked} cases");
}

/// The cases of one format through its own servers; how many were checked.
async fn check_format(client: reqwest::Client, format: Format, cases: Vec<common::Case>) -> usize {
    let script = Arc::new(Mutex::new(Script::default()));
    let url = start(format, StreamPolicy::Validated, script.clone()).await;
    let eager = start(format, StreamPolicy::Eager, script.clone()).await;
    let mut checked = 0;
    for case in &cases {
        if check_case(&client, case, (&url, &eager), &script).await {
            checked += 1;
        }
    }
    checked
}

/// One case through both wires, whole, streamed and eager; `false` if the
/// case is not for the wires.
async fn check_case(
    client: &reqwest::Client,
    case: &common::Case,
    (url, eager): (&str, &str),
    script: &Mutex<Script>,
) -> bool {
    // The wires carry text.
    let Ok(text) = std::str::from_utf8(&case.input) else {
        return false;
    };
    let tools = case.tools.clone().unwrap_or_default();
    if tools.is_empty() && case.format == Format::MorphXml {
        return false;
    }
    script.lock().unwrap().output = text.to_owned();
    // A reasoning setup of the case's own is not the route's (the
    // format's default): its calls are compared only between runs.
    let want_calls = case.reasoning.is_none().then(|| parsed_calls(case));
    let at = format!("{}/{}", case.format.name(), case.name);
    let (messages, responses) = requests(&tools);
    let whole = answer(client, url, "messages", &messages).await;
    let whole_message = (
        message_shape(&whole),
        whole["stop_reason"].as_str().unwrap().to_owned(),
    );
    let whole = answer(client, url, "responses", &responses).await;
    let whole_response = (
        response_shape(&whole),
        whole["status"].as_str().unwrap().to_owned(),
    );
    if let Some(want) = &want_calls {
        assert_eq!(&calls_of(&whole_message.0), want, "{at}: messages");
        assert_eq!(&calls_of(&whole_response.0), want, "{at}: responses");
    }
    // One character at a time costs a frame per character: the long
    // cases go in larger pieces.
    let pieces: &[usize] = if text.len() < 4096 { &[1, 0] } else { &[61, 0] };
    for &piece in pieces {
        script.lock().unwrap().piece = piece;
        let got = accumulate_message(&stream(client, url, "messages", &messages).await);
        assert_eq!(got, whole_message, "{at}: messages in pieces of {piece}");
        let got = accumulate_response(&stream(client, url, "responses", &responses).await);
        assert_eq!(got, whole_response, "{at}: responses in pieces of {piece}");
    }
    // Eager: calls stream as they arrive.
    script.lock().unwrap().piece = if text.len() < 4096 { 7 } else { 61 };
    let (got, _) = accumulate_message(&stream(client, eager, "messages", &messages).await);
    check_eager(&got, &whole_message.0, &format!("{at}: eager messages"));
    let (got, _) = accumulate_response(&stream(client, eager, "responses", &responses).await);
    check_eager(&got, &whole_response.0, &format!("{at}: eager responses"));
    true
}

/// The bodies of a Messages and a Responses request offering `tools`.
fn requests(tools: &[toolsieve::Tool]) -> (Value, Value) {
    let mut messages = json!({"model": "m", "max_tokens": 64,
        "messages": [{"role": "user", "content": "go"}]});
    let mut responses = json!({"model": "m", "input": "go"});
    if !tools.is_empty() {
        messages["tools"] = tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        responses["tools"] = tools
            .iter()
            .map(|t| json!({"type": "function", "name": t.name, "parameters": t.parameters}))
            .collect();
    }
    (messages, responses)
}

/// `body` to `{base}/v1/{path}`: the answer as JSON.
async fn answer(client: &reqwest::Client, base: &str, path: &str, body: &Value) -> Value {
    let sent = client.post(format!("{base}/v1/{path}")).json(body).send();
    sent.await.unwrap().json().await.unwrap()
}

/// `body` to `{base}/v1/{path}` as a streamed request: the `data` of every
/// event of the answer.
async fn stream(client: &reqwest::Client, base: &str, path: &str, body: &Value) -> Vec<Value> {
    let mut streamed = body.clone();
    streamed["stream"] = json!(true);
    let sent = client
        .post(format!("{base}/v1/{path}"))
        .json(&streamed)
        .send();
    events_of(&sent.await.unwrap().text().await.unwrap())
}
