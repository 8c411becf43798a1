//! What the server tests share: an OpenAI client's side of a chat
//! request, streamed or not.

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{json, Value};
use toolsieve::server::ServeConfig;

/// `toolsieve serve` with `config` on a free loopback port; its URL.
pub async fn start_proxy(config: ServeConfig) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(toolsieve::server::run(
        listener,
        config,
        std::future::pending(),
    ));
    url
}

/// Posts `body` to the proxy's chat endpoint.
pub async fn post_chat(url: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{url}/chat/completions"))
        .json(body)
        .timeout(std::time::Duration::from_secs(30))
        .send()
        .await
        .unwrap()
}

/// Posts `body` as a streamed request.
pub async fn post_stream(url: &str, body: &Value) -> reqwest::Response {
    let mut body = body.clone();
    body["stream"] = json!(true);
    post_chat(url, &body).await
}

/// What an OpenAI client accumulates from a stream.
#[derive(Debug, Default, PartialEq)]
pub struct Accumulated {
    pub content: String,
    pub reasoning: String,
    /// (id, name, arguments) by index.
    pub calls: Vec<(String, String, String)>,
    pub finish_reason: Option<String>,
    pub usage: Option<Value>,
    pub errors: Vec<Value>,
    pub done: bool,
}

pub async fn stream(url: &str, body: &Value) -> Accumulated {
    let response = post_stream(url, body).await;
    assert_eq!(response.status(), 200, "stream refused");
    let mut events = response.bytes_stream().eventsource();
    let mut acc = Accumulated::default();
    while let Some(event) = events.next().await {
        let event = event.expect("a well-formed SSE frame");
        if event.data == "[DONE]" {
            acc.done = true;
            continue;
        }
        let chunk: Value = serde_json::from_str(&event.data).unwrap();
        if chunk.get("error").is_some() {
            acc.errors.push(chunk);
            continue;
        }
        assert_eq!(chunk["object"], "chat.completion.chunk");
        if !chunk["usage"].is_null() {
            acc.usage = Some(chunk["usage"].clone());
        }
        for choice in chunk["choices"].as_array().unwrap() {
            let delta = &choice["delta"];
            if let Some(t) = delta["content"].as_str() {
                acc.content.push_str(t);
            }
            if let Some(t) = delta["reasoning_content"].as_str() {
                acc.reasoning.push_str(t);
            }
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let index = call["index"].as_u64().unwrap() as usize;
                if index == acc.calls.len() {
                    acc.calls.push(Default::default());
                }
                let slot = &mut acc.calls[index];
                if let Some(id) = call["id"].as_str() {
                    assert!(slot.0.is_empty(), "id sent twice");
                    slot.0 = id.into();
                }
                if let Some(name) = call["function"]["name"].as_str() {
                    assert!(slot.1.is_empty(), "name sent twice");
                    slot.1 = name.into();
                }
                if let Some(args) = call["function"]["arguments"].as_str() {
                    slot.2.push_str(args);
                }
            }
            if let Some(reason) = choice["finish_reason"].as_str() {
                acc.finish_reason = Some(reason.into());
            }
        }
    }
    acc
}
