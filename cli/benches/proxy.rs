//! Latency `toolsieve serve` adds to a stream, on loopback.
//!
//! A mock backend streams numbered words at a steady pace and notes when
//! it sent each; a client notes when each arrived, talking to the backend
//! directly and through the proxy. Reported: per-chunk latency p50/p99 of
//! both and their difference; the same with 200 streams at once; and the
//! time from the backend sending a call's first byte to the client seeing
//! the call, for the eager and validated stream policies.
//!
//! Then the load: 1000 streams at once through the `toolsieve serve`
//! binary in a process of its own, each answer with a call; reported:
//! per-chunk latency p50/p99, calls delivered, and the server's peak RSS.
//!
//! `cargo bench --bench proxy`; `PROXY_BENCH_PACE_US=300 cargo bench
//! --bench proxy` streams the words 300 µs apart instead of 2 ms (the
//! other parts keep their pace).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::response::sse::{Event as SseEvent, Sse};
use axum::routing::post;
use axum::{Json, Router};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{json, Value};
use toolsieve::openai::StreamPolicy;
use toolsieve::server::{FormatChoice, ServeConfig};
use toolsieve::Format;

/// What the backend streams, and when each piece left.
struct Script {
    pieces: Vec<String>,
    pace: Duration,
    sent: Mutex<Vec<(u64, Vec<Instant>)>>,
}

async fn backend(
    State(script): State<Arc<Script>>,
    Json(body): Json<Value>,
) -> Sse<impl futures::Stream<Item = Result<SseEvent, std::convert::Infallible>>> {
    let stream_id = body["metadata"]["stream"].as_u64().unwrap_or(0);
    let pieces = script.pieces.clone();
    let pace = script.pace;
    let script2 = script.clone();
    let events = futures::stream::iter(pieces.into_iter().map(Some).chain([None]))
        .then(move |piece| {
            let script = script2.clone();
            async move {
                tokio::time::sleep(pace).await;
                let Some(piece) = piece else {
                    return SseEvent::default().data("[DONE]");
                };
                let chunk = json!({"id": "b", "object": "chat.completion.chunk", "created": 0, "model": "m",
                    "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
                let mut sent = script.sent.lock().unwrap();
                match sent.iter_mut().find(|(id, _)| *id == stream_id) {
                    Some((_, times)) => times.push(Instant::now()),
                    None => sent.push((stream_id, vec![Instant::now()])),
                }
                SseEvent::default().data(chunk.to_string())
            }
        })
        .map(Ok);
    Sse::new(events)
}

async fn start_backend(script: Arc<Script>) -> String {
    let app = Router::new()
        .route("/v1/chat/completions", post(backend))
        .with_state(script);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

async fn start_proxy(backend: &str, policy: StreamPolicy) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let mut config = ServeConfig::new(backend);
    config.format = FormatChoice::Fixed(Format::Hermes);
    config.stream_policy = policy;
    tokio::spawn(toolsieve::server::run(
        listener,
        config,
        std::future::pending(),
    ));
    url
}

/// Streams one answer; the arrival time of each numbered word `w<i>`, and
/// of the first call delta.
async fn client(
    client: &reqwest::Client,
    url: &str,
    stream_id: u64,
    tools: bool,
) -> (Vec<(usize, Instant)>, Option<Instant>) {
    let mut body = json!({"model": "m", "stream": true, "metadata": {"stream": stream_id},
        "messages": [{"role": "user", "content": "go"}]});
    if tools {
        body["tools"] = json!([{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]);
    }
    let response = client
        .post(format!("{url}/chat/completions"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let mut events = response.bytes_stream().eventsource();
    let mut seen = Vec::new();
    let mut call_at = None;
    while let Some(Ok(event)) = events.next().await {
        let now = Instant::now();
        if event.data == "[DONE]" {
            break;
        }
        let chunk: Value = serde_json::from_str(&event.data).unwrap();
        let delta = &chunk["choices"][0]["delta"];
        if delta["tool_calls"].is_array() && call_at.is_none() {
            call_at = Some(now);
        }
        if let Some(text) = delta["content"].as_str() {
            for word in text.split_whitespace() {
                if let Some(i) = word.strip_prefix('w').and_then(|n| n.parse().ok()) {
                    seen.push((i, now));
                }
            }
        }
    }
    (seen, call_at)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Per-word latencies (µs) of the streams run so far.
fn latencies(script: &Script, arrivals: &[(u64, Vec<(usize, Instant)>)]) -> Vec<f64> {
    let sent = script.sent.lock().unwrap();
    let mut out = Vec::new();
    for (stream_id, seen) in arrivals {
        let Some((_, times)) = sent.iter().find(|(id, _)| id == stream_id) else {
            continue;
        };
        for (i, at) in seen {
            if let Some(t) = times.get(*i) {
                out.push(at.duration_since(*t).as_secs_f64() * 1e6);
            }
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

async fn run_streams(
    script: &Arc<Script>,
    url: &str,
    first_id: u64,
    count: u64,
    concurrent: bool,
    tools: bool,
) -> Vec<f64> {
    let http = reqwest::Client::new();
    let mut arrivals = Vec::new();
    if concurrent {
        let tasks: Vec<_> = (first_id..first_id + count)
            .map(|id| {
                let (http, url) = (http.clone(), url.to_owned());
                tokio::spawn(async move { (id, client(&http, &url, id, tools).await.0) })
            })
            .collect();
        for task in tasks {
            arrivals.push(task.await.unwrap());
        }
    } else {
        for id in first_id..first_id + count {
            arrivals.push((id, client(&http, url, id, tools).await.0));
        }
    }
    latencies(script, &arrivals)
}

/// `count` streams on each route (URL, and whether the request has
/// tools), one at a time and the routes in turn; the per-word latencies
/// of each route.
async fn in_turns<const N: usize>(
    script: &Arc<Script>,
    routes: &[(&str, bool); N],
    count: u64,
) -> [Vec<f64>; N] {
    let http = reqwest::Client::new();
    let mut arrivals: [Vec<_>; N] = std::array::from_fn(|_| Vec::new());
    for i in 0..count {
        for (route, (url, tools)) in routes.iter().enumerate() {
            let id = 100_000 * (route as u64 + 1) + i;
            arrivals[route].push((id, client(&http, url, id, *tools).await.0));
        }
    }
    arrivals.map(|arrivals| latencies(script, &arrivals))
}

fn report(name: &str, direct: &[f64], proxied: &[f64]) {
    let (d50, d99) = (percentile(direct, 0.5), percentile(direct, 0.99));
    let (p50, p99) = (percentile(proxied, 0.5), percentile(proxied, 0.99));
    println!(
        "{name:<34} direct p50 {d50:>7.0} µs p99 {d99:>7.0} µs | proxy p50 {p50:>7.0} µs p99 {p99:>7.0} µs | added p50 {:>6.0} µs p99 {:>6.0} µs ({} chunks)",
        p50 - d50,
        p99 - d99,
        proxied.len()
    );
}

/// The `toolsieve serve` binary on a free port; its URL.
fn spawn_server(backend: &str) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsieve"))
        .args(["serve", "--backend", backend, "--format", "hermes"])
        .args(["--listen", "127.0.0.1:0", "--max-concurrent", "4096"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the toolsieve binary");
    let mut line = String::new();
    let stdout = child.stdout.take().unwrap();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .trim_end_matches(',')
        .to_owned();
    (child, url)
}

/// Peak resident memory of a process, in MiB (Linux).
fn peak_rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// CPU time a process has used (user and system), in seconds (Linux).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // The kernel's clock ticks are 100 a second on Linux.
    Some(ticks / 100.0)
}

/// Many streams at once through the binary: latency, calls, peak RSS.
async fn load(streams: u64, words: usize) {
    let mut pieces: Vec<String> = (0..words).map(|i| format!("w{i} ")).collect();
    pieces.push(
        "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"q\": \"x\"}}\n</tool_call>".into(),
    );
    let script = Arc::new(Script {
        pieces,
        pace: Duration::from_millis(5),
        sent: Mutex::new(Vec::new()),
    });
    let backend = start_backend(script.clone()).await;
    let (mut server, url) = spawn_server(&backend);
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let started = Instant::now();
    let tasks: Vec<_> = (0..streams)
        .map(|id| {
            let (http, url) = (http.clone(), url.clone());
            tokio::spawn(async move { (id, client(&http, &url, id, true).await) })
        })
        .collect();
    let mut arrivals = Vec::new();
    let mut calls = 0;
    for task in tasks {
        let (id, (seen, call_at)) = task.await.unwrap();
        calls += usize::from(call_at.is_some());
        arrivals.push((id, seen));
    }
    let took = started.elapsed();
    let latencies = latencies(&script, &arrivals);
    let rss = peak_rss_mib(server.id()).unwrap_or(f64::NAN);
    let cpu = cpu_seconds(server.id()).unwrap_or(f64::NAN);
    let _ = server.kill();
    let _ = server.wait();
    println!(
        "{streams} streams at once through the binary: p50 {:.0} µs p99 {:.0} µs per chunk ({} chunks), {calls}/{streams} calls, {:.1} s, server peak RSS {rss:.0} MiB, server CPU {:.1} µs per chunk",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.len(),
        took.as_secs_f64(),
        cpu * 1e6 / latencies.len() as f64
    );
}

/// How far apart the backend sends the words: 2 ms, or
/// `PROXY_BENCH_PACE_US` µs.
fn word_pace() -> Duration {
    let Ok(pace) = std::env::var("PROXY_BENCH_PACE_US") else {
        return Duration::from_millis(2);
    };
    let us = pace.parse().unwrap_or_else(|_| {
        panic!("PROXY_BENCH_PACE_US is a whole number of microseconds, not {pace:?}")
    });
    Duration::from_micros(us)
}

fn main() {
    // `cargo test --benches` runs this too: keep that short.
    let quick =
        std::env::args().any(|a| a == "--test") || !std::env::args().any(|a| a == "--bench");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let words = if quick { 20 } else { 200 };
        let script = Arc::new(Script {
            pieces: (0..words).map(|i| format!("w{i} ")).collect(),
            pace: word_pace(),
            sent: Mutex::new(Vec::new()),
        });
        let backend = start_backend(script.clone()).await;
        let proxy = start_proxy(&backend, StreamPolicy::Eager).await;
        let streams = if quick { 2 } else { 20 };
        // Warm up connections.
        run_streams(&script, &proxy, 1_000_000, 1, false, true).await;
        // Taken in turns, a stream of each at a time, so that the
        // machine's drift over the run weighs on all three alike. Without
        // tools the proxy relays the backend's bytes untouched: the cost
        // of the hop itself, the floor under the parsed stream.
        let routes = [(backend.as_str(), false), (proxy.as_str(), false), (proxy.as_str(), true)];
        println!("words {} µs apart", script.pace.as_micros());
        let [direct, relayed, proxied] = in_turns(&script, &routes, streams).await;
        report("one stream at a time, relayed", &direct, &relayed);
        report("one stream at a time", &direct, &proxied);
        let many = if quick { 10 } else { 200 };
        let direct = run_streams(&script, &backend, 20_000, many, true, false).await;
        let proxied = run_streams(&script, &proxy, 30_000, many, true, true).await;
        report(&format!("{many} streams at once"), &direct, &proxied);

        // A call whose arguments arrive in 100 pieces: when does the client
        // first see it?
        let mut pieces = vec!["<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"q\": \"".to_owned()];
        pieces.extend((0..100).map(|i| format!("part{i} ")));
        pieces.push("\"}}\n</tool_call>".into());
        let call_script = Arc::new(Script {
            pieces,
            pace: Duration::from_millis(2),
            sent: Mutex::new(Vec::new()),
        });
        let call_backend = start_backend(call_script.clone()).await;
        for policy in [StreamPolicy::Eager, StreamPolicy::Validated] {
            let proxy = start_proxy(&call_backend, policy).await;
            let http = reqwest::Client::new();
            let mut waits = Vec::new();
            for id in 0..if quick { 1 } else { 10 } {
                let id = id + if policy == StreamPolicy::Eager { 0 } else { 100 };
                let (_, call_at) = client(&http, &proxy, id, true).await;
                let sent = call_script.sent.lock().unwrap();
                let first = sent.iter().find(|(s, _)| *s == id).map(|(_, t)| t[0]).unwrap();
                waits.push(call_at.unwrap().duration_since(first).as_secs_f64() * 1e3);
            }
            waits.sort_by(f64::total_cmp);
            println!(
                "call seen after its first byte, {policy:?}: p50 {:.1} ms (arguments take 100 pieces at 2 ms)",
                percentile(&waits, 0.5)
            );
        }
        if quick {
            load(20, 10).await;
        } else {
            load(1000, 100).await;
        }
    });
}
