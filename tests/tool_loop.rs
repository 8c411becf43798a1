//! The tool loop over a model that answers each step from a script.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use std::future::Future;

use futures::executor::block_on;
use futures::future::BoxFuture;
use futures::stream::{BoxStream, StreamExt};
use serde_json::{json, Value};
use toolsieve::middleware::{
    has_tool_call, step_count_is, FinishReason, Generation, LanguageModel, LoopEvent, LoopTool,
    Message, ModelError, ModelPart, Request, StepCall, StepOverrides, ToolCallingModel, ToolChoice,
    ToolLoop,
};
use toolsieve::{Format, Tool};

/// Answers step by step from `turns`; records every request.
#[derive(Clone, Default)]
struct Turns {
    turns: Arc<Mutex<VecDeque<String>>>,
    seen: Arc<Mutex<Vec<Request>>>,
}

impl Turns {
    fn new(turns: &[&str]) -> Turns {
        Turns {
            turns: Arc::new(Mutex::new(turns.iter().map(|t| t.to_string()).collect())),
            seen: Arc::default(),
        }
    }

    fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }
}

impl LanguageModel for Turns {
    fn generate(&self, request: &Request) -> BoxFuture<'static, Result<Generation, ModelError>> {
        self.seen.lock().unwrap().push(request.clone());
        let next = self.turns.lock().unwrap().pop_front();
        Box::pin(async move {
            let text = next.ok_or("the script ran out of turns")?;
            Ok(Generation {
                text,
                ..Generation::default()
            })
        })
    }

    fn stream(&self, request: &Request) -> BoxStream<'static, Result<ModelPart, ModelError>> {
        self.seen.lock().unwrap().push(request.clone());
        let next = self.turns.lock().unwrap().pop_front();
        let parts: Vec<Result<ModelPart, ModelError>> = match next {
            None => vec![Err("the script ran out of turns".into())],
            Some(text) => {
                let chars: Vec<char> = text.chars().collect();
                chars
                    .chunks(3)
                    .map(|c| Ok(ModelPart::TextDelta(c.iter().collect())))
                    .chain([Ok(ModelPart::Finish(FinishReason::Stop))])
                    .collect()
            }
        };
        futures::stream::iter(parts).boxed()
    }
}

fn call(name: &str, args: Value) -> String {
    toolsieve::middleware::format_tool_call(Format::Hermes, name, &args)
}

fn weather_tool() -> Tool {
    Tool::new("get_weather").with_parameters(json!({
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"]
    }))
}

fn time_tool() -> Tool {
    Tool::new("get_time").with_parameters(json!({
        "type": "object",
        "properties": {"tz": {"type": "string"}},
        "required": ["tz"]
    }))
}

fn tools(runs: Arc<AtomicUsize>) -> Vec<LoopTool> {
    let weather_runs = runs.clone();
    vec![
        LoopTool::new(weather_tool(), move |input: Value| {
            weather_runs.fetch_add(1, Ordering::SeqCst);
            async move { Ok(json!({"city": input["city"], "temperature": 17.5, "condition": "cloudy"})) }
        }),
        LoopTool::new(time_tool(), |input: Value| async move {
            Ok(json!({"tz": input["tz"], "time": "09:30"}))
        }),
    ]
}

fn ask(text: &str) -> Request {
    Request {
        messages: vec![Message::user(text)],
        ..Request::default()
    }
}

/// The text of the last message the model was sent.
fn last_message_text(request: &Request) -> String {
    match request.messages.last() {
        Some(Message::User { content }) => serde_json::to_string(content).unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn steps_run_tools_and_feed_results_back_until_the_answer() {
    let model = Turns::new(&[
        &call("get_weather", json!({"city": "Paris"})),
        "It is 17.5°C and cloudy in Paris.",
    ]);
    let runs = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicUsize::new(0));
    let seen_steps = finished.clone();
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        tools(runs.clone()),
    )
    .stop_when(vec![step_count_is(5)])
    .on_step_finish(move |_| {
        seen_steps.fetch_add(1, Ordering::SeqCst);
    });
    let result = block_on(run.run(&ask("Weather in Paris?"))).unwrap();
    assert_eq!(result.steps.len(), 2);
    assert_eq!(result.text(), "It is 17.5°C and cloudy in Paris.");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(finished.load(Ordering::SeqCst), 2);
    let first = &result.steps[0];
    assert_eq!(first.calls[0].name, "get_weather");
    assert_eq!(first.results[0].output["temperature"], 17.5);
    assert!(!first.results[0].is_error);
    // The second request carries the call and its result, as text.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let sent = last_message_text(&requests[1]);
    assert!(
        sent.contains("<tool_response>") && sent.contains("17.5"),
        "{sent}"
    );
    assert_eq!(result.messages.len(), 4, "user, assistant, tool, assistant");
    assert_eq!(first.calls[0].id, "call_0");
    assert_eq!(first.results[0].tool_call_id, "call_0");
}

#[test]
fn by_default_one_step_runs_its_tools_and_stops() {
    let model = Turns::new(&[&call("get_weather", json!({"city": "Oslo"}))]);
    let runs = Arc::new(AtomicUsize::new(0));
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        tools(runs.clone()),
    );
    let result = block_on(run.run(&ask("Weather in Oslo?"))).unwrap();
    assert_eq!(result.steps.len(), 1);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(result.steps[0].results.len(), 1);
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn a_failing_tool_is_an_error_result_the_model_recovers_from() {
    let model = Turns::new(&[
        &call("get_weather", json!({"city": "Atlantis"})),
        &call("get_weather", json!({"city": "Paris"})),
        "Paris it is: 17.5°C.",
    ]);
    let tool = LoopTool::new(weather_tool(), |input: Value| async move {
        match input["city"].as_str() {
            Some("Atlantis") => Err("no such city".to_owned()),
            _ => Ok(json!({"temperature": 17.5})),
        }
    });
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        vec![tool],
    )
    .stop_when(vec![step_count_is(5)]);
    let result = block_on(run.run(&ask("Weather?"))).unwrap();
    assert_eq!(result.steps.len(), 3);
    assert!(result.steps[0].results[0].is_error);
    assert!(!result.steps[1].results[0].is_error);
    let sent = last_message_text(&model.requests()[1]);
    assert!(
        sent.contains("error") && sent.contains("no such city"),
        "{sent}"
    );
    assert_eq!(result.text(), "Paris it is: 17.5°C.");
}

#[test]
fn stop_conditions_end_the_loop() {
    let model = Turns::new(&[
        &call("get_weather", json!({"city": "Rome"})),
        &call("get_time", json!({"tz": "Europe/Rome"})),
        "never reached",
    ]);
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        tools(Arc::default()),
    )
    .stop_when(vec![step_count_is(10), has_tool_call("get_time")]);
    let result = block_on(run.run(&ask("Weather and time in Rome?"))).unwrap();
    assert_eq!(result.steps.len(), 2);
    assert_eq!(model.requests().len(), 2);
    let custom = toolsieve::middleware::StopCondition::Custom(Arc::new(
        |steps: &[toolsieve::middleware::Step]| {
            steps.iter().map(|s| s.calls.len()).sum::<usize>() >= 1
        },
    ));
    let model = Turns::new(&[&call("get_weather", json!({"city": "Rome"})), "x"]);
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        tools(Arc::default()),
    )
    .stop_when(vec![step_count_is(10), custom]);
    assert_eq!(block_on(run.run(&ask("?"))).unwrap().steps.len(), 1);
}

#[test]
fn prepare_step_switches_tool_choice_from_required_to_auto() {
    let model = Turns::new(&[
        r#"{"name": "get_weather", "arguments": {"city": "Lima"}}"#,
        "Lima: 17.5°C.",
    ]);
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        tools(Arc::default()),
    )
    .stop_when(vec![step_count_is(3)])
    .prepare_step(|number, _| StepOverrides {
        tool_choice: Some(if number == 0 {
            ToolChoice::Required
        } else {
            ToolChoice::Auto
        }),
        active_tools: (number == 0).then(|| vec!["get_weather".to_owned()]),
        ..StepOverrides::default()
    });
    let result = block_on(run.run(&ask("Weather in Lima?"))).unwrap();
    assert_eq!(result.steps.len(), 2);
    let requests = model.requests();
    assert!(
        requests[0].response_format.is_some(),
        "required asks for JSON"
    );
    assert!(requests[1].response_format.is_none());
    let system = |r: &Request| match &r.messages[0] {
        Message::System { content } => content.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        !system(&requests[0]).contains("get_time"),
        "only the active tool"
    );
    assert!(system(&requests[1]).contains("get_time"));
}

#[test]
fn parallel_calls_run_in_one_step_and_keep_their_order() {
    let both = format!(
        "{}\n{}",
        call("get_time", json!({"tz": "Asia/Tokyo"})),
        call("get_weather", json!({"city": "Tokyo"}))
    );
    let model = Turns::new(&[&both, "Done."]);
    let run = ToolLoop::new(
        ToolCallingModel::new(model, Format::Hermes),
        tools(Arc::default()),
    )
    .stop_when(vec![step_count_is(2)]);
    let result = block_on(run.run(&ask("Tokyo?"))).unwrap();
    let names: Vec<&str> = result.steps[0]
        .results
        .iter()
        .map(|r| r.tool_name.as_str())
        .collect();
    assert_eq!(names, ["get_time", "get_weather"]);
    let ids: Vec<&str> = result.steps[0]
        .calls
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn a_call_that_fails_validation_is_an_error_unless_repaired() {
    let bad = call("get_weather", json!({"city": 5}));
    let model = Turns::new(&[&bad, "Sorry."]);
    let runs = Arc::new(AtomicUsize::new(0));
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        tools(runs.clone()),
    )
    .stop_when(vec![step_count_is(2)]);
    let result = block_on(run.run(&ask("?"))).unwrap();
    assert_eq!(
        runs.load(Ordering::SeqCst),
        0,
        "an invalid call must not run"
    );
    let error = &result.steps[0].results[0];
    assert!(
        error.is_error && error.output.as_str().unwrap().contains("at /city"),
        "{error:?}"
    );
    assert!(last_message_text(&model.requests()[1]).contains("at /city"));

    // The repair hook fixes it instead.
    let model = Turns::new(&[&bad]);
    let runs = Arc::new(AtomicUsize::new(0));
    let run = ToolLoop::new(
        ToolCallingModel::new(model, Format::Hermes),
        tools(runs.clone()),
    )
    .repair(|problem| async move {
        let call = problem.call?;
        Some(StepCall {
            input: json!({"city": call.input["city"].to_string()}),
            ..call
        })
    });
    let result = block_on(run.run(&ask("?"))).unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(result.steps[0].results[0].output["city"], "5");
}

#[test]
fn a_call_to_a_client_side_tool_ends_the_loop_and_is_returned() {
    let model = Turns::new(&[
        &call("ask_user", json!({"question": "Which city?"})),
        "never",
    ]);
    let ask_user = LoopTool::client_side(Tool::new("ask_user"));
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        vec![ask_user],
    )
    .stop_when(vec![step_count_is(5)]);
    let result = block_on(run.run(&ask("Weather?"))).unwrap();
    assert_eq!(result.steps.len(), 1);
    assert!(result.steps[0].results.is_empty());
    assert_eq!(result.steps[0].calls[0].name, "ask_user");
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn dropping_the_run_cancels_it_mid_loop() {
    struct Flag(Arc<AtomicBool>);
    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let model = Turns::new(&[&call("get_weather", json!({"city": "Paris"})), "never"]);
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = dropped.clone();
    let (_hold, never) = futures::channel::oneshot::channel::<()>();
    let never = Arc::new(Mutex::new(Some(never)));
    let tool = LoopTool::new(weather_tool(), move |_| {
        let guard = Flag(flag.clone());
        let never = never.lock().unwrap().take();
        async move {
            let _guard = guard;
            if let Some(never) = never {
                let _ = never.await;
            }
            Ok(json!({}))
        }
    });
    let run = ToolLoop::new(
        ToolCallingModel::new(model.clone(), Format::Hermes),
        vec![tool],
    )
    .stop_when(vec![step_count_is(5)]);
    let request = ask("?");
    let mut running = Box::pin(run.run(&request));
    // Poll until the tool is running, then give up on the run.
    let waker = futures::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(running.as_mut().poll(&mut cx).is_pending());
    assert!(!dropped.load(Ordering::SeqCst));
    drop(running);
    assert!(
        dropped.load(Ordering::SeqCst),
        "the tool's future was not dropped"
    );
    assert_eq!(model.requests().len(), 1, "no step after the cancel");
}

#[test]
fn the_streamed_run_ends_as_the_whole_run_and_numbers_ids_across_steps() {
    let script = [
        format!(
            "Checking. {}",
            call("get_weather", json!({"city": "Paris"}))
        ),
        format!(
            "And the time. {}",
            call("get_time", json!({"tz": "Europe/Paris"}))
        ),
        "17.5°C and 09:30.".to_owned(),
    ];
    let turns: Vec<&str> = script.iter().map(String::as_str).collect();
    let agent = |model: Turns| {
        ToolLoop::new(
            ToolCallingModel::new(model, Format::Hermes),
            tools(Arc::default()),
        )
        .stop_when(vec![step_count_is(5)])
    };
    let whole = block_on(agent(Turns::new(&turns)).run(&ask("Paris?"))).unwrap();
    let streaming = agent(Turns::new(&turns));
    let request = ask("Paris?");
    let events: Vec<LoopEvent> = block_on(
        streaming
            .stream(&request)
            .map(Result::unwrap)
            .collect::<Vec<_>>(),
    );
    let Some(LoopEvent::Finish(result)) = events.last() else {
        panic!("no finish: {events:?}")
    };
    assert_eq!(result, &whole, "stream and run disagree");
    let starts: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::StepStart { step } => Some(*step),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [0, 1, 2]);
    let mut text_ids = Vec::new();
    let mut call_ids = Vec::new();
    for e in &events {
        match e {
            LoopEvent::Event(toolsieve::Event::TextStart { id }) => text_ids.push(id.to_string()),
            LoopEvent::Event(toolsieve::Event::ToolCall { id, .. }) => {
                call_ids.push(id.to_string())
            }
            _ => {}
        }
    }
    assert_eq!(text_ids, ["text_0", "text_1", "text_2"]);
    assert_eq!(call_ids, ["call_0", "call_1"]);
    let results: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolResult(r) => Some(r.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["call_0", "call_1"]);
    assert_eq!(result.text(), "17.5°C and 09:30.");
}

#[test]
fn a_streamed_run_reports_tool_errors_and_model_failures() {
    let model = Turns::new(&[&call("get_weather", json!({"city": 5}))]);
    let agent = ToolLoop::new(
        ToolCallingModel::new(model, Format::Hermes),
        tools(Arc::default()),
    )
    .stop_when(vec![step_count_is(3)]);
    let request = ask("?");
    let events: Vec<_> = block_on(agent.stream(&request).collect::<Vec<_>>());
    let error = events.iter().find_map(|e| match e {
        Ok(LoopEvent::ToolResult(r)) => Some(r.clone()),
        _ => None,
    });
    assert!(error.is_some_and(|r| r.is_error), "{events:?}");
    // The second step finds the script empty: the model fails, the stream ends.
    assert!(
        matches!(
            events.last(),
            Some(Err(toolsieve::middleware::LoopError::Model { step: 1, .. }))
        ),
        "{events:?}"
    );
}
