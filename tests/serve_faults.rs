//! `toolsieve serve` against a failing backend and hostile clients, on
//! loopback. The backend here is raw TCP, so that it can fail the way real
//! ones do: stall with the socket open, tear a body, close mid-call, send
//! an endless line or a trickled error body. Timeouts are configured short
//! so each case takes about a second; every loop is bounded.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolsieve::server::ServeConfig;

mod serve_common;
use serve_common::*;

// ------------------------------------------------------------ the backend

/// How the backend answers every request.
#[derive(Clone)]
enum Fault {
    /// A stream that sends `frames`, then keeps the socket open and silent.
    StallMidStream(Vec<String>),
    /// Reads the request and never answers.
    StallBeforeHeaders,
    /// Promises a body of 1000 bytes and closes after 20.
    TornBody,
    /// A stream that sends `frames` and closes: no finish reason, no
    /// `[DONE]`.
    CloseMidStream(Vec<String>),
    /// A stream whose first line never ends.
    EndlessLine,
    /// This status, these headers, this body, all at once.
    Status(u16, Vec<(&'static str, String)>, Vec<u8>),
    /// This status, and a body sent one byte every 100 ms.
    Trickled(u16),
    /// A complete stream of these frames (each a `data:` line) and
    /// `[DONE]`.
    Stream(Vec<String>),
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"id": "b", "object": "chat.completion.chunk", "created": 0, "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    .to_string()
}

fn content(text: &str) -> String {
    chunk(json!({"content": text}), None)
}

/// Reads one request: headers, then the body its Content-Length gives.
async fn read_request(socket: &mut TcpStream) -> Option<Vec<u8>> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        seen.extend_from_slice(&buf[..n]);
        if let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while seen.len() < end + 4 + length {
                let n = socket.read(&mut buf).await.ok()?;
                if n == 0 {
                    return None;
                }
                seen.extend_from_slice(&buf[..n]);
            }
            return Some(seen[end + 4..].to_vec());
        }
    }
}

const SSE_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

async fn frames(socket: &mut TcpStream, frames: &[String]) -> std::io::Result<()> {
    socket.write_all(SSE_HEAD).await?;
    for frame in frames {
        socket
            .write_all(format!("data: {frame}\n\n").as_bytes())
            .await?;
    }
    socket.flush().await
}

async fn answer(mut socket: TcpStream, fault: Fault) -> std::io::Result<()> {
    let Some(request) = read_request(&mut socket).await else {
        return Ok(());
    };
    let streamed =
        serde_json::from_slice::<Value>(&request).is_ok_and(|body| body["stream"] == json!(true));
    let hold = Duration::from_secs(20);
    match fault {
        Fault::StallMidStream(sent) => {
            frames(&mut socket, &sent).await?;
            tokio::time::sleep(hold).await;
        }
        Fault::StallBeforeHeaders => tokio::time::sleep(hold).await,
        Fault::TornBody => {
            socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"id\": \"b\", \"choi")
                .await?;
        }
        Fault::CloseMidStream(sent) => frames(&mut socket, &sent).await?,
        Fault::EndlessLine => {
            frames(&mut socket, &[content("Sunny")]).await?;
            socket.write_all(b"data: ").await?;
            let block = vec![b'x'; 64 << 10];
            // 32 MiB at most; the proxy should hang up long before.
            for _ in 0..512 {
                socket.write_all(&block).await?;
            }
        }
        Fault::Status(status, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} Whatever\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(&body).await?;
        }
        Fault::Trickled(status) => {
            socket
                .write_all(
                    format!("HTTP/1.1 {status} Slow\r\ncontent-length: 600\r\n\r\n").as_bytes(),
                )
                .await?;
            for _ in 0..600 {
                socket.write_all(b"x").await?;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Fault::Stream(sent) if !streamed => {
            let mut text = String::new();
            for frame in &sent {
                if let Ok(chunk) = serde_json::from_str::<Value>(frame) {
                    text.push_str(
                        chunk["choices"][0]["delta"]["content"]
                            .as_str()
                            .unwrap_or(""),
                    );
                }
            }
            let body = json!({"id": "b", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]});
            let body = body.to_string();
            let head = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(body.as_bytes()).await?;
        }
        Fault::Stream(sent) => {
            let mut all = sent;
            all.push("[DONE]".into());
            frames(&mut socket, &all).await?;
        }
    }
    Ok(())
}

async fn start_backend(fault: Fault) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(answer(socket, fault.clone()));
        }
    });
    url
}

// ------------------------------------------------------------ the proxy

/// The defaults with timeouts short enough for tests.
fn config(backend: String) -> ServeConfig {
    let mut config = ServeConfig::new(backend);
    config.backend_read_timeout = Duration::from_millis(600);
    config.header_read_timeout = Duration::from_millis(500);
    config.body_read_timeout = Duration::from_millis(500);
    config.backend_limits.error_body_timeout = Duration::from_millis(500);
    config.backend_limits.max_line_bytes = 64 << 10;
    config
}

async fn proxy_for(fault: Fault) -> String {
    start_proxy(config(start_backend(fault).await)).await
}

// ------------------------------------------------------------ the client

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])
}

fn ask(stream: bool) -> Value {
    json!({"model": "qwen2.5-7b-instruct", "stream": stream, "tools": tools(),
           "messages": [{"role": "user", "content": "Weather in Paris?"}]})
}

async fn whole(url: &str) -> (u16, reqwest::header::HeaderMap, Value) {
    let response = post_chat(url, &ask(false)).await;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (
        status,
        headers,
        response.json().await.unwrap_or(Value::Null),
    )
}

/// The start of a call whose arguments never end.
fn half_a_call() -> Vec<String> {
    vec![
        content("Checking. <tool_call>\n{\"name\": \"get_weather\", "),
        content("\"arguments\": {\"city\": \"Par"),
    ]
}

// ------------------------------------------------------------ backend faults

#[tokio::test]
async fn a_backend_silent_mid_stream_ends_the_stream_at_the_read_timeout() {
    let url = proxy_for(Fault::StallMidStream(half_a_call())).await;
    let started = Instant::now();
    let seen = stream(&url, &ask(true)).await;
    let took = started.elapsed();
    // 600 ms of silence, then the error and [DONE]; not the backend's 20 s.
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(seen.done, "{seen:?}");
    assert_eq!(seen.errors.len(), 1, "{seen:?}");
    assert_eq!(seen.errors[0]["error"]["code"], "backend_timeout");
    assert_eq!(seen.finish_reason, None, "a cut stream is not finished");
    assert_eq!(seen.content, "Checking. ");
}

#[tokio::test]
async fn a_backend_silent_before_its_headers_is_a_504() {
    let url = proxy_for(Fault::StallBeforeHeaders).await;
    let started = Instant::now();
    let (status, _, body) = whole(&url).await;
    assert_eq!(status, 504, "{body}");
    assert_eq!(body["error"]["code"], "backend_timeout");
    let response = post_chat(&url, &ask(true)).await;
    assert_eq!(response.status(), 504);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_torn_body_is_an_interrupted_answer_not_a_protocol_error() {
    let url = proxy_for(Fault::TornBody).await;
    let (status, _, body) = whole(&url).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "backend_interrupted", "{body}");
}

#[tokio::test]
async fn a_stream_closed_mid_call_is_reported_and_the_call_not_finished() {
    let url = proxy_for(Fault::CloseMidStream(half_a_call())).await;
    let seen = stream(&url, &ask(true)).await;
    assert!(seen.done, "{seen:?}");
    assert_eq!(seen.errors.len(), 1, "{seen:?}");
    assert_eq!(seen.errors[0]["error"]["code"], "backend_truncated");
    assert_eq!(seen.finish_reason, None, "{seen:?}");
    // The eager policy showed the call's start; it is never completed.
    for (_, name, arguments) in &seen.calls {
        assert_eq!(name, "get_weather");
        assert!(
            serde_json::from_str::<Value>(arguments).is_err(),
            "{arguments}"
        );
    }
}

#[tokio::test]
async fn an_endless_line_is_cut_at_the_limit() {
    let url = proxy_for(Fault::EndlessLine).await;
    let started = Instant::now();
    let seen = stream(&url, &ask(true)).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(seen.errors.len(), 1, "{seen:?}");
    assert_eq!(seen.errors[0]["error"]["code"], "backend_protocol_error");
    assert!(seen.errors[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("65536"));
    assert!(seen.done);
}

#[tokio::test]
async fn error_bodies_are_read_capped_and_under_a_deadline() {
    let huge = vec![b'e'; 8 << 20];
    let url = proxy_for(Fault::Status(400, vec![], huge)).await;
    let (status, _, body) = whole(&url).await;
    assert_eq!(status, 400);
    assert!(body["error"]["message"].as_str().unwrap().len() <= 1500);

    let url = proxy_for(Fault::Trickled(500)).await;
    let started = Instant::now();
    let (status, _, body) = whole(&url).await;
    assert_eq!(status, 502, "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn backend_client_errors_keep_their_status_code_and_retry_after() {
    let body = |code: &str, message: &str| {
        json!({"error": {"message": message, "type": "invalid_request_error", "param": "messages", "code": code}})
            .to_string()
            .into_bytes()
    };
    let cases = [
        (429, "rate_limit_exceeded", Some("7"), 429),
        (400, "context_length_exceeded", None, 400),
        (401, "invalid_api_key", None, 401),
        (503, "overloaded", Some("30"), 502),
    ];
    for (sent, code, retry_after, expected) in cases {
        let headers = retry_after
            .map(|v| vec![("retry-after", v.to_owned())])
            .unwrap_or_default();
        let fault = Fault::Status(sent, headers, body(code, "the backend says no"));
        let url = proxy_for(fault).await;
        for streamed in [false, true] {
            let response = post_chat(&url, &ask(streamed)).await;
            assert_eq!(response.status().as_u16(), expected, "{sent} {streamed}");
            let relayed = response
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_owned());
            assert_eq!(relayed.as_deref(), retry_after, "{sent}");
            let error: Value = response.json().await.unwrap();
            assert!(
                error["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("the backend says no"),
                "{error}"
            );
            if expected < 500 {
                assert_eq!(error["error"]["code"], code);
                assert_eq!(error["error"]["param"], "messages");
            } else {
                assert_eq!(error["error"]["code"], "backend_error");
            }
        }
    }
}

#[tokio::test]
async fn a_dead_backend_is_unreachable_not_a_protocol_error() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let url = start_proxy(config(dead)).await;
    let (status, _, body) = whole(&url).await;
    assert_eq!(status, 502);
    assert_eq!(body["error"]["code"], "backend_unreachable");
}

#[tokio::test]
async fn empty_data_lines_are_valid_sse() {
    let frames = vec![
        String::new(),
        content("Hello"),
        String::new(),
        content(" there."),
        chunk(json!({}), Some("stop")),
    ];
    let url = proxy_for(Fault::Stream(frames)).await;
    let seen = stream(&url, &ask(true)).await;
    assert!(seen.errors.is_empty(), "{seen:?}");
    assert_eq!(seen.content, "Hello there.");
    assert_eq!(seen.finish_reason.as_deref(), Some("stop"));
}

// ------------------------------------------------------------ hostile clients

/// A healthy backend for the client-side cases.
async fn healthy() -> String {
    let frames = vec![content("Sunny."), chunk(json!({}), Some("stop"))];
    start_backend(Fault::Stream(frames)).await
}

fn address(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned()
}

#[tokio::test]
async fn slow_clients_hold_no_slot_and_are_cut_off() {
    let mut config = config(healthy().await);
    config.max_concurrent = 4;
    let url = start_proxy(config).await;
    let addr = address(&url);
    let body = serde_json::to_vec(&ask(false)).unwrap();
    // 40 sockets trickle their headers, 40 their bodies, one byte every
    // 50 ms: ten times the slots.
    let mut slow = Vec::new();
    for i in 0..80 {
        let (addr, body) = (addr.clone(), body.clone());
        slow.push(tokio::spawn(async move {
            let started = Instant::now();
            let socket = TcpStream::connect(&addr).await.unwrap();
            let (mut reader, mut writer) = socket.into_split();
            let head = format!(
                "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            tokio::spawn(async move {
                let (sent_at_once, trickled) = if i % 2 == 0 {
                    (&[][..], head.as_bytes())
                } else {
                    (head.as_bytes(), &body[..])
                };
                let _ = writer.write_all(sent_at_once).await;
                for byte in trickled.iter().take(100) {
                    if writer.write_all(&[*byte]).await.is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            });
            let mut answer = Vec::new();
            let _ = tokio::time::timeout(
                Duration::from_secs(6),
                reader.read_to_end(&mut answer),
            )
            .await;
            (String::from_utf8_lossy(&answer).into_owned(), started.elapsed())
        }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Meanwhile, normal clients are served.
    for _ in 0..8 {
        let (status, _, body) = whole(&url).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["choices"][0]["message"]["content"], "Sunny.");
    }
    let answers: Vec<(String, Duration)> = futures::future::join_all(slow)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    for (i, (answer, took)) in answers.iter().enumerate() {
        // Cut off at the timeout (500 ms), not after the 5 s of trickle.
        assert!(*took < Duration::from_secs(3), "{i}: open for {took:?}");
        if i % 2 == 1 {
            assert!(answer.starts_with("HTTP/1.1 408"), "{i}: {answer}");
            assert!(answer.contains("request_timeout"), "{answer}");
        } else {
            // Slow headers: the connection is closed, maybe with a 408.
            assert!(
                answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
                "{i}: {answer}"
            );
        }
    }
}

#[tokio::test]
async fn thousands_of_tools_are_refused_or_handled_in_linear_time() {
    let many = |n: usize| -> Value {
        (0..n)
            .map(|i| {
                json!({"type": "function", "function": {"name": format!("tool_{i}"),
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}})
            })
            .collect()
    };
    let mut body = ask(false);
    body["tools"] = many(3500);
    body["tool_choice"] = json!("required");
    let url = start_proxy(config(healthy().await)).await;
    let response = post_chat(&url, &body).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["param"], "tools");
    assert_eq!(error["error"]["code"], "too_many_tools");

    // Allowed by the operator: the server stays up and answers.
    let mut roomy = config(healthy().await);
    roomy.max_tools = 10_000;
    let url = start_proxy(roomy).await;
    let started = Instant::now();
    let (status, _, answer) = {
        let response = post_chat(&url, &body).await;
        let status = response.status().as_u16();
        (status, (), response.json::<Value>().await.unwrap())
    };
    // The backend answers prose, asked once more: the forced choice is
    // not met, and says so.
    assert_eq!(status, 502, "{answer}");
    assert_eq!(answer["error"]["code"], "tool_choice_unmet", "{answer}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let health = reqwest::get(format!("{}/health", url.trim_end_matches("/v1")))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn malformed_requests_and_unknown_routes_get_openai_errors() {
    let url = start_proxy(config(healthy().await)).await;
    let mut bad_choice = ask(false);
    bad_choice["tool_choice"] = json!("sometimes");
    let response = post_chat(&url, &bad_choice).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["param"], "tool_choice");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("\"auto\"") && message.contains("\"required\""),
        "{message}"
    );
    assert!(!message.contains("untagged"), "{message}");

    let http = reqwest::Client::new();
    let missing = http.get(format!("{url}/nowhere")).send().await.unwrap();
    assert_eq!(missing.status(), 404);
    let error: Value = missing.json().await.unwrap();
    assert_eq!(error["error"]["type"], "invalid_request_error");
    let wrong = http
        .get(format!("{url}/chat/completions"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 405);
    let error: Value = wrong.json().await.unwrap();
    assert!(error["error"]["message"].as_str().unwrap().contains("GET"));
}

#[tokio::test]
async fn client_keys_guard_every_route_but_health() {
    let mut guarded = config(healthy().await);
    guarded.client_keys = vec!["sk-first".into(), "sk-second".into()];
    let url = start_proxy(guarded).await;
    let http = reqwest::Client::new();
    let send = |key: Option<&'static str>| {
        let mut request = http
            .post(format!("{url}/chat/completions"))
            .json(&ask(false));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        request.send()
    };
    for key in [None, Some("sk-third"), Some("sk-firs")] {
        let response = send(key).await.unwrap();
        assert_eq!(response.status(), 401, "{key:?}");
        let error: Value = response.json().await.unwrap();
        assert_eq!(error["error"]["code"], "invalid_api_key");
    }
    for key in ["sk-first", "sk-second"] {
        assert_eq!(send(Some(key)).await.unwrap().status(), 200);
    }
    let models = http.get(format!("{url}/models")).send().await.unwrap();
    assert_eq!(models.status(), 401);
    let health = http
        .get(format!("{}/health", url.trim_end_matches("/v1")))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn no_open_listening_without_keys_unless_asked() {
    let backend = healthy().await;
    let open = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let refused = toolsieve::server::run(open, config(backend.clone()), async {}).await;
    let e = refused.unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("client keys"), "{e}");

    let open = TcpListener::bind("0.0.0.0:0").await.unwrap();
    let mut allowed = config(backend);
    allowed.allow_unauthenticated = true;
    // Runs, and stops at once when asked.
    let ran = tokio::time::timeout(
        Duration::from_secs(5),
        toolsieve::server::run(open, allowed, async {}),
    )
    .await;
    assert!(matches!(ran, Ok(Ok(()))), "{ran:?}");
}
