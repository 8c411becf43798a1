//! End to end: a model without native tools (here a scripted one that
//! replays a recorded Qwen3-Coder answer in 7-byte pieces) wrapped with
//! tool calling, streamed, and printed as events arrive.
//!
//! `cargo run --example stream_tool_call`

use futures::executor::block_on;
use futures::StreamExt;
use serde_json::json;
use toolsieve::middleware::{
    Message, Request, ScriptedModel, StreamPart, ToolCallingModel, ToolChoice,
};
use toolsieve::{Event, Format, Tool};

fn main() {
    let recorded = "I'll look that up.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nSeoul\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";
    let model = ScriptedModel::new(recorded, 7);
    let wrapped = ToolCallingModel::new(model.clone(), Format::Qwen3Coder)
        .on_error(|report| eprintln!("parse problem: {report:?}"));

    let request = Request {
        messages: vec![Message::user(
            "What's the weather in Seoul for the next 3 days?",
        )],
        tools: vec![Tool::new("get_weather")
            .with_description("Weather forecast for a city")
            .with_parameters(json!({
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"]
            }))
            .into()],
        tool_choice: Some(ToolChoice::Auto),
        response_format: None,
        extra: Default::default(),
    };

    let mut stream = match wrapped.stream(&request) {
        Ok(stream) => stream,
        Err(e) => {
            eprintln!("invalid request: {e}");
            std::process::exit(2);
        }
    };
    block_on(async {
        while let Some(part) = stream.next().await {
            match part {
                Ok(StreamPart::Event(Event::TextDelta { delta, .. })) => {
                    println!("text       {delta:?}")
                }
                Ok(StreamPart::Event(Event::ToolInputStart { id, tool_name, .. })) => {
                    println!("call start {id} {tool_name}")
                }
                Ok(StreamPart::Event(Event::ToolInputDelta { delta, .. })) => {
                    println!("args delta {delta}")
                }
                Ok(StreamPart::Event(Event::ToolCall {
                    tool_name, input, ..
                })) => {
                    println!("tool call  {tool_name} {input}")
                }
                Ok(StreamPart::Event(_)) => {}
                Ok(StreamPart::Finish(reason)) => println!("finish     {reason:?}"),
                Ok(_) => {}
                Err(e) => eprintln!("model error: {e}"),
            }
        }
    });

    // What the model was sent: the tool prompt in a system message.
    let sent = &model.requests()[0];
    if let Message::System { content } = &sent.messages[0] {
        println!("\nsystem prompt sent to the model:\n{content}");
    }
}
