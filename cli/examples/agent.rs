//! The tool loop against an OpenAI-compatible backend that only writes
//! text: two tools, at most five steps, the answer on stdout and each step
//! as a JSON line on stderr.
//!
//! `cargo run --release -p toolsieve-cli --example agent -- --backend URL --model M [--format F] "PROMPT"`

use clap::Parser as ClapParser;
use serde::Deserialize;
use serde_json::{json, Value};
use toolsieve::middleware::{
    step_count_is, LoopTool, Message, Request, ToolCallingModel, ToolLoop,
};
use toolsieve::openai::HttpModel;
use toolsieve::{Format, Tool};

#[derive(ClapParser)]
struct Args {
    /// The backend's OpenAI base URL, e.g. http://127.0.0.1:8000/v1.
    #[arg(long)]
    backend: String,
    /// The model id (also picks the format, unless --format is given).
    #[arg(long)]
    model: String,
    /// The wire format.
    #[arg(long)]
    format: Option<String>,
    /// Environment variable holding the backend's API key.
    #[arg(long)]
    api_key_env: Option<String>,
    /// What to ask.
    prompt: String,
}

#[derive(Deserialize)]
struct City {
    city: String,
}

#[derive(Deserialize)]
struct Zone {
    tz: String,
}

fn tools() -> Vec<LoopTool> {
    let weather = Tool::new("get_weather")
        .with_description("Current weather for a city")
        .with_parameters(json!({
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"]
        }));
    let time = Tool::new("get_time")
        .with_description("Current local time in an IANA time zone")
        .with_parameters(json!({
            "type": "object",
            "properties": {"tz": {"type": "string", "description": "e.g. Europe/Paris"}},
            "required": ["tz"]
        }));
    vec![
        LoopTool::typed(weather, |input: City| async move {
            Ok::<Value, String>(
                json!({"city": input.city, "temperature": 17.5, "condition": "cloudy"}),
            )
        }),
        LoopTool::typed(time, |input: Zone| async move {
            Ok::<Value, String>(json!({"tz": input.tz, "time": "09:30"}))
        }),
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let (format, reasoning) = match &args.format {
        Some(name) => {
            let format: Format = name.parse()?;
            (format, format.default_reasoning())
        }
        None => {
            let setup = Format::for_model(&args.model)?;
            (setup.format, setup.reasoning)
        }
    };
    let mut backend = HttpModel::new(&args.backend)?.model(&args.model);
    if let Some(var) = &args.api_key_env {
        backend = backend.api_key(std::env::var(var)?);
    }
    let agent = ToolLoop::new(
        ToolCallingModel::new(backend, format).reasoning(reasoning),
        tools(),
    )
    .stop_when(vec![step_count_is(5)])
    .on_step_finish(|step| {
        if let Ok(line) = serde_json::to_string(step) {
            eprintln!("{line}");
        }
    });
    let request = Request {
        messages: vec![Message::user(args.prompt)],
        ..Request::default()
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let result = runtime.block_on(agent.run(&request))?;
    println!("{}", result.text());
    Ok(())
}
