//! The tool loop: call the model, run the tools it called, feed the
//! results back, until a stop condition holds.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};
use serde::Serialize;
use serde_json::Value;

use super::model::{
    Content, FinishReason, LanguageModel, ModelError, StreamPart, ToolCallingModel, Usage,
};
use super::params::{Message, Part, Request, ToolResult};
use super::ToolChoice;
use crate::event::{CallId, Event, ReasoningId, TextId};
use crate::event::{Diagnostic, DiagnosticKind};
use crate::{Error, Tool};

/// What a tool's executor returns: a JSON result, or what went wrong.
pub type ToolOutput = Result<Value, String>;

type Execute = Arc<dyn Fn(Value) -> BoxFuture<'static, ToolOutput> + Send + Sync>;

/// A tool of the loop: its definition and, unless the caller runs it
/// itself, an executor.
#[derive(Clone)]
pub struct LoopTool {
    /// Name, description, JSON Schema of the arguments.
    pub tool: Tool,
    execute: Option<Execute>,
}

impl std::fmt::Debug for LoopTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopTool")
            .field("tool", &self.tool.name)
            .field("executes", &self.execute.is_some())
            .finish()
    }
}

impl LoopTool {
    /// A tool the caller runs itself: a call to it ends the loop and is
    /// returned.
    pub fn client_side(tool: Tool) -> LoopTool {
        LoopTool {
            tool,
            execute: None,
        }
    }

    /// A tool the loop runs with `execute`, given the call's arguments.
    pub fn new<F, Fut>(tool: Tool, execute: F) -> LoopTool
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolOutput> + Send + 'static,
    {
        LoopTool {
            tool,
            execute: Some(Arc::new(move |input| Box::pin(execute(input)))),
        }
    }

    /// A tool whose executor takes typed arguments and returns a typed
    /// result (through serde); arguments that do not deserialize are an
    /// error result.
    pub fn typed<I, O, F, Fut>(tool: Tool, execute: F) -> LoopTool
    where
        I: serde::de::DeserializeOwned + Send + 'static,
        O: Serialize,
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, String>> + Send + 'static,
    {
        let execute = Arc::new(execute);
        LoopTool::new(tool, move |input: Value| {
            let execute = execute.clone();
            async move {
                let input: I = serde_json::from_value(input)
                    .map_err(|e| format!("the arguments do not fit the tool: {e}"))?;
                let output = execute(input).await?;
                serde_json::to_value(output).map_err(|e| e.to_string())
            }
        })
    }
}

/// One call of a step, as the model made it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepCall {
    /// Its id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments.
    pub input: Value,
}

/// One model call and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// The text the model wrote.
    pub text: String,
    /// Its reasoning.
    pub reasoning: String,
    /// The calls it made.
    pub calls: Vec<StepCall>,
    /// The results of the calls the loop ran (errors included).
    pub results: Vec<ToolResult>,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// Token counts, when the backend reports them.
    pub usage: Option<Usage>,
    /// What went wrong while parsing.
    pub diagnostics: Vec<Diagnostic>,
}

impl Step {
    /// The calls to tools that have no executor: the caller's to run.
    pub fn client_calls<'s>(&'s self, tools: &'s [LoopTool]) -> impl Iterator<Item = &'s StepCall> {
        self.calls.iter().filter(move |c| {
            tools
                .iter()
                .any(|t| t.tool.name == c.name && t.execute.is_none())
        })
    }
}

/// A custom stop condition over the steps so far.
pub type StepPredicate = Arc<dyn Fn(&[Step]) -> bool + Send + Sync>;

/// When the loop stops (after a step; any condition that holds stops it).
#[derive(Clone)]
pub enum StopCondition {
    /// After this many steps.
    StepCountIs(usize),
    /// After a step that called this tool.
    HasToolCall(String),
    /// When this holds for the steps so far.
    Custom(StepPredicate),
}

impl std::fmt::Debug for StopCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopCondition::StepCountIs(n) => write!(f, "StepCountIs({n})"),
            StopCondition::HasToolCall(name) => write!(f, "HasToolCall({name:?})"),
            StopCondition::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

/// Stop after `n` steps.
pub fn step_count_is(n: usize) -> StopCondition {
    StopCondition::StepCountIs(n)
}

/// Stop after a step that called `name`.
pub fn has_tool_call(name: impl Into<String>) -> StopCondition {
    StopCondition::HasToolCall(name.into())
}

impl StopCondition {
    fn holds(&self, steps: &[Step]) -> bool {
        match self {
            StopCondition::StepCountIs(n) => steps.len() >= *n,
            StopCondition::HasToolCall(name) => steps
                .last()
                .is_some_and(|s| s.calls.iter().any(|c| &c.name == name)),
            StopCondition::Custom(f) => f(steps),
        }
    }
}

/// What [`ToolLoop::prepare_step`] may change for one step.
#[derive(Debug, Clone, Default)]
pub struct StepOverrides {
    /// Only these tools, by name.
    pub active_tools: Option<Vec<String>>,
    /// This tool choice.
    pub tool_choice: Option<ToolChoice>,
    /// This system prompt (replacing the request's system messages).
    pub system: Option<String>,
    /// These messages instead of the history so far.
    pub messages: Option<Vec<Message>>,
}

/// A call that failed to parse or to validate, handed to the repair hook.
#[derive(Debug, Clone)]
pub struct RepairRequest {
    /// The call, when it parsed (its arguments did not match the schema).
    pub call: Option<StepCall>,
    /// The tool, when known.
    pub tool_name: Option<String>,
    /// What was wrong.
    pub problem: String,
}

type PrepareStep = Arc<dyn Fn(usize, &[Step]) -> StepOverrides + Send + Sync>;
type OnStepFinish = Arc<dyn Fn(&Step) + Send + Sync>;
type Repair = Arc<dyn Fn(RepairRequest) -> BoxFuture<'static, Option<StepCall>> + Send + Sync>;

/// The result of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopResult {
    /// Every step, in order.
    pub steps: Vec<Step>,
    /// The history at the end (the request's messages, then each step's
    /// assistant turn and tool results).
    pub messages: Vec<Message>,
}

impl LoopResult {
    /// The last step's text: the answer.
    pub fn text(&self) -> &str {
        self.steps.last().map_or("", |s| s.text.as_str())
    }
}

/// Why a run stopped without a result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoopError {
    /// The request was rejected before the model was called.
    #[error(transparent)]
    Request(#[from] Error),
    /// The model failed (at this step).
    #[error("step {step}: the model failed: {source}")]
    Model {
        /// The step, from 0.
        step: usize,
        /// The model's error.
        source: ModelError,
    },
}

/// Runs tools for a [`ToolCallingModel`] until a stop condition holds:
/// each step calls the model; the calls it made run concurrently (at most
/// [`max_concurrency`](ToolLoop::max_concurrency) at once); their results
/// go back into history in the format, errors flagged; then the next
/// step. By default the loop stops after one step, so tools run once and
/// the model is not called again unless asked with
/// [`stop_when`](ToolLoop::stop_when). It also stops after a step with no
/// call, or with a call to a tool that has no executor (the caller runs
/// it).
///
/// A call whose arguments do not match its tool's schema (with the
/// `validate` feature), that names an unknown tool, or that could not be
/// parsed becomes an error result the model sees, unless the
/// [`repair`](ToolLoop::repair) hook gives a call to run instead.
pub struct ToolLoop<M> {
    model: ToolCallingModel<M>,
    tools: Vec<LoopTool>,
    stop_when: Vec<StopCondition>,
    prepare_step: Option<PrepareStep>,
    on_step_finish: Option<OnStepFinish>,
    repair: Option<Repair>,
    max_concurrency: usize,
    #[cfg(feature = "validate")]
    validate: bool,
}

impl<M> std::fmt::Debug for ToolLoop<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolLoop")
            .field("tools", &self.tools)
            .field("stop_when", &self.stop_when)
            .finish_non_exhaustive()
    }
}

impl<M: LanguageModel + 'static> ToolLoop<M> {
    /// A loop over `model` with `tools`.
    pub fn new(model: ToolCallingModel<M>, tools: Vec<LoopTool>) -> ToolLoop<M> {
        ToolLoop {
            model,
            tools,
            stop_when: vec![step_count_is(1)],
            prepare_step: None,
            on_step_finish: None,
            repair: None,
            max_concurrency: 8,
            #[cfg(feature = "validate")]
            validate: true,
        }
    }

    /// Replaces the stop conditions (any that holds stops the loop).
    pub fn stop_when(mut self, conditions: Vec<StopCondition>) -> Self {
        self.stop_when = conditions;
        self
    }

    /// Called before each step with its number and the steps so far.
    pub fn prepare_step(
        mut self,
        f: impl Fn(usize, &[Step]) -> StepOverrides + Send + Sync + 'static,
    ) -> Self {
        self.prepare_step = Some(Arc::new(f));
        self
    }

    /// Called after each step.
    pub fn on_step_finish(mut self, f: impl Fn(&Step) + Send + Sync + 'static) -> Self {
        self.on_step_finish = Some(Arc::new(f));
        self
    }

    /// Gets a call that failed to parse or validate before it becomes an
    /// error result; a call it returns is run instead.
    pub fn repair<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RepairRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<StepCall>> + Send + 'static,
    {
        self.repair = Some(Arc::new(move |r| Box::pin(f(r))));
        self
    }

    /// Most tool calls run at once (default 8).
    pub fn max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = n.max(1);
        self
    }

    /// Checks arguments against the tools' schemas (on by default).
    #[cfg(feature = "validate")]
    pub fn validate_arguments(mut self, on: bool) -> Self {
        self.validate = on;
        self
    }

    /// Runs the loop from `request` (its tools are replaced by the loop's).
    ///
    /// # Errors
    ///
    /// [`LoopError::Request`] for an invalid request (before any model
    /// call), [`LoopError::Model`] when the model fails.
    pub async fn run(&self, request: &Request) -> Result<LoopResult, LoopError> {
        let schemas = self.schemas()?;
        let mut messages = request.messages.clone();
        let mut steps: Vec<Step> = Vec::new();
        let mut calls_so_far = 0;
        loop {
            let number = steps.len();
            let step_request = self.step_request(request, &messages, &steps);
            let result = self
                .model
                .generate(&step_request)?
                .await
                .map_err(|source| LoopError::Model {
                    step: number,
                    source,
                })?;
            let mut step = Step {
                text: String::new(),
                reasoning: String::new(),
                calls: Vec::new(),
                results: Vec::new(),
                finish_reason: result.finish_reason,
                usage: result.usage,
                diagnostics: result.diagnostics,
            };
            for content in result.content {
                match content {
                    Content::Text(t) => step.text.push_str(&t),
                    Content::Reasoning(r) => step.reasoning.push_str(&r),
                    Content::ToolCall { id, name, input } => step.calls.push(StepCall {
                        id: unique_id(id, calls_so_far),
                        name,
                        // The parser delivers JSON objects only.
                        input: serde_json::from_str(&input).unwrap_or(Value::Null),
                    }),
                }
            }
            calls_so_far += step.calls.len();
            let client_side = self.settle(&mut step, number, schemas.as_ref()).await;
            let go_on = self.record(&mut messages, &mut steps, step, client_side);
            if !go_on {
                return Ok(LoopResult { steps, messages });
            }
        }
    }

    /// Runs the loop as one stream: each step's parser events (ids unique
    /// across the run), the backend's reasoning, each tool's result, step
    /// boundaries, and a last [`LoopEvent::Finish`] with every step and
    /// the history. An error ends the stream.
    pub fn stream<'a>(
        &'a self,
        request: &'a Request,
    ) -> BoxStream<'a, Result<LoopEvent, LoopError>> {
        let state = StreamRun {
            messages: request.messages.clone(),
            steps: Vec::new(),
            schemas: None,
            phase: Phase::Start,
            shift: Shift::default(),
        };
        stream::unfold(Some(state), move |state| async move {
            let mut state = state?;
            let (items, next) = self.advance(request, &mut state).await;
            Some((items, next.then_some(state)))
        })
        .flat_map(stream::iter)
        .boxed()
    }

    /// One move of a streamed run: what it yields, and whether it goes on.
    async fn advance(
        &self,
        request: &Request,
        state: &mut StreamRun,
    ) -> (Vec<Result<LoopEvent, LoopError>>, bool) {
        match &mut state.phase {
            Phase::Start => {
                if state.steps.is_empty() {
                    match self.schemas() {
                        Ok(schemas) => state.schemas = schemas,
                        Err(e) => return (vec![Err(e)], false),
                    }
                }
                let number = state.steps.len();
                let step_request = self.step_request(request, &state.messages, &state.steps);
                match self.model.stream(&step_request) {
                    Ok(parts) => {
                        state.phase = Phase::Streaming {
                            parts,
                            step: Step::empty(),
                        };
                        (vec![Ok(LoopEvent::StepStart { step: number })], true)
                    }
                    Err(e) => (vec![Err(e.into())], false),
                }
            }
            Phase::Streaming { parts, step } => match parts.next().await {
                Some(Ok(part)) => {
                    let out = state.shift.part(part, step);
                    (out.into_iter().map(Ok).collect(), true)
                }
                Some(Err(source)) => {
                    let step = state.steps.len();
                    (vec![Err(LoopError::Model { step, source })], false)
                }
                None => {
                    let mut step = std::mem::replace(step, Step::empty());
                    state.shift.step_done();
                    let number = state.steps.len();
                    let client_side = self.settle(&mut step, number, state.schemas.as_ref()).await;
                    let mut out: Vec<Result<LoopEvent, LoopError>> = step
                        .results
                        .iter()
                        .map(|r| Ok(LoopEvent::ToolResult(r.clone())))
                        .collect();
                    out.push(Ok(LoopEvent::StepFinish(step.clone())));
                    let go_on =
                        self.record(&mut state.messages, &mut state.steps, step, client_side);
                    if go_on {
                        state.phase = Phase::Start;
                    } else {
                        out.push(Ok(LoopEvent::Finish(LoopResult {
                            steps: std::mem::take(&mut state.steps),
                            messages: std::mem::take(&mut state.messages),
                        })));
                    }
                    (out, go_on)
                }
            },
        }
    }

    #[cfg(feature = "validate")]
    fn schemas(&self) -> Result<Option<crate::validate::Schemas>, LoopError> {
        if !self.validate {
            return Ok(None);
        }
        let tools: Vec<Tool> = self.tools.iter().map(|t| t.tool.clone()).collect();
        Ok(Some(crate::validate::Schemas::compile(&tools)?))
    }

    #[cfg(not(feature = "validate"))]
    fn schemas(&self) -> Result<Option<Schemas>, LoopError> {
        Ok(None)
    }

    /// The request of step `steps.len()`, after `prepare_step`.
    fn step_request(&self, request: &Request, messages: &[Message], steps: &[Step]) -> Request {
        let overrides = match &self.prepare_step {
            Some(prepare) => prepare(steps.len(), steps),
            None => StepOverrides::default(),
        };
        let mut step_request = request.clone();
        step_request.messages = overrides
            .messages
            .clone()
            .unwrap_or_else(|| messages.to_vec());
        if let Some(system) = &overrides.system {
            step_request
                .messages
                .retain(|m| !matches!(m, Message::System { .. }));
            step_request.messages.insert(
                0,
                Message::System {
                    content: system.clone(),
                },
            );
        }
        step_request.tools = self
            .tools
            .iter()
            .filter(|t| {
                overrides
                    .active_tools
                    .as_ref()
                    .is_none_or(|names| names.contains(&t.tool.name))
            })
            .map(|t| t.tool.clone().into())
            .collect();
        if let Some(choice) = &overrides.tool_choice {
            step_request.tool_choice = Some(choice.clone());
        }
        step_request
    }

    /// Validates, repairs and runs the step's calls; its results are set.
    /// True when a call went to a tool the caller runs.
    async fn settle(&self, step: &mut Step, number: usize, schemas: Option<&Schemas>) -> bool {
        // What cannot run as it is: schema violations and calls that
        // failed to parse.
        let mut problems: Vec<RepairRequest> = Vec::new();
        let mut runnable: Vec<StepCall> = Vec::new();
        for call in &step.calls {
            let index = self.tools.iter().position(|t| t.tool.name == call.name);
            let problem = match (schemas, index) {
                (Some(schemas), Some(i)) => check(schemas, i, call),
                _ => None,
            };
            match problem {
                Some(problem) => problems.push(RepairRequest {
                    call: Some(call.clone()),
                    tool_name: Some(call.name.clone()),
                    problem,
                }),
                None => runnable.push(call.clone()),
            }
        }
        for d in &step.diagnostics {
            if is_failed_call(d.kind) {
                problems.push(RepairRequest {
                    call: None,
                    tool_name: d.tool_name.clone(),
                    problem: d.message.clone(),
                });
            }
        }
        let mut errors: Vec<ToolResult> = Vec::new();
        for (i, problem) in problems.into_iter().enumerate() {
            let repaired = match &self.repair {
                Some(repair) => repair(problem.clone()).await,
                None => None,
            };
            match repaired {
                Some(call) => runnable.push(call),
                None => {
                    let (id, name) = match &problem.call {
                        Some(call) => (call.id.clone(), call.name.clone()),
                        None => (
                            format!("failed_{number}_{i}"),
                            problem.tool_name.clone().unwrap_or_default(),
                        ),
                    };
                    errors.push(ToolResult {
                        tool_call_id: id,
                        tool_name: name,
                        output: Value::String(problem.problem),
                        is_error: true,
                    });
                }
            }
        }
        let client_side = runnable.iter().any(|c| {
            self.tools
                .iter()
                .any(|t| t.tool.name == c.name && t.execute.is_none())
        });
        let executed: Vec<ToolResult> = stream::iter(runnable)
            .map(|call| self.execute(call))
            .buffered(self.max_concurrency)
            .filter_map(|r| async move { r })
            .collect()
            .await;
        step.results = executed.into_iter().chain(errors).collect();
        client_side
    }

    /// Puts the step into history and the steps; true when the loop goes
    /// on.
    fn record(
        &self,
        messages: &mut Vec<Message>,
        steps: &mut Vec<Step>,
        step: Step,
        client_side: bool,
    ) -> bool {
        let mut parts = Vec::new();
        if !step.reasoning.is_empty() {
            parts.push(Part::Reasoning {
                text: step.reasoning.clone(),
            });
        }
        if !step.text.is_empty() {
            parts.push(Part::text(step.text.clone()));
        }
        for call in &step.calls {
            parts.push(Part::ToolCall {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                input: call.input.clone(),
            });
        }
        messages.push(Message::Assistant { content: parts });
        if !step.results.is_empty() {
            messages.push(Message::Tool {
                content: step.results.clone(),
            });
        }
        if let Some(f) = &self.on_step_finish {
            f(&step);
        }
        let called = !step.calls.is_empty() || !step.results.is_empty();
        steps.push(step);
        called && !client_side && !self.stop_when.iter().any(|c| c.holds(steps))
    }

    /// Runs one call; `None` for a tool the caller runs itself.
    async fn execute(&self, call: StepCall) -> Option<ToolResult> {
        let Some(tool) = self.tools.iter().find(|t| t.tool.name == call.name) else {
            return Some(ToolResult {
                tool_call_id: call.id,
                output: Value::String(format!("there is no tool named {:?}", call.name)),
                tool_name: call.name,
                is_error: true,
            });
        };
        let execute = tool.execute.as_ref()?;
        let (output, is_error) = match execute(call.input).await {
            Ok(output) => (output, false),
            Err(message) => (Value::String(message), true),
        };
        Some(ToolResult {
            tool_call_id: call.id,
            tool_name: call.name,
            output,
            is_error,
        })
    }
}

/// Diagnostics that mean a call was attempted and not delivered.
fn is_failed_call(kind: DiagnosticKind) -> bool {
    matches!(
        kind,
        DiagnosticKind::MalformedCall
            | DiagnosticKind::MissingName
            | DiagnosticKind::UnknownTool
            | DiagnosticKind::UnfinishedCall
            | DiagnosticKind::CallTooLarge
            | DiagnosticKind::TooDeep
    ) || (kind == DiagnosticKind::InvalidArguments)
}

/// The parser numbers calls per answer (`call_0`, …); across a run they
/// are numbered on (`call_<calls before this step + n>`). An id the model
/// wrote is kept.
fn unique_id(id: String, calls_before: usize) -> String {
    match id.parse::<CallId>() {
        Ok(n) => format!("call_{}", calls_before + n.0 as usize),
        Err(_) => id,
    }
}

#[cfg(feature = "validate")]
type Schemas = crate::validate::Schemas;

/// Placeholder when validation is compiled out.
#[cfg(not(feature = "validate"))]
enum Schemas {}

#[cfg(feature = "validate")]
fn check(schemas: &Schemas, tool: usize, call: &StepCall) -> Option<String> {
    schemas.check(tool, &call.name, &call.input.to_string())
}

#[cfg(not(feature = "validate"))]
fn check(schemas: &Schemas, _: usize, _: &StepCall) -> Option<String> {
    match *schemas {}
}

/// One piece of a streamed run ([`ToolLoop::stream`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LoopEvent {
    /// A step begins (numbered from 0).
    StepStart {
        /// Its number.
        step: usize,
    },
    /// A parser event of the step's answer: text, reasoning, tool input,
    /// tool calls, diagnostics. Text, reasoning and call ids are unique
    /// across the run.
    Event(Event<'static>),
    /// Reasoning the backend separated itself.
    Reasoning(String),
    /// Something the request rewrite dropped.
    Warning(String),
    /// A call's result (`is_error` for a tool error or a call that could
    /// not run).
    ToolResult(ToolResult),
    /// The step is over: all of it.
    StepFinish(Step),
    /// The run is over.
    Finish(LoopResult),
}

enum Phase {
    Start,
    Streaming {
        parts: BoxStream<'static, Result<StreamPart, ModelError>>,
        step: Step,
    },
}

struct StreamRun {
    messages: Vec<Message>,
    steps: Vec<Step>,
    schemas: Option<Schemas>,
    phase: Phase,
    shift: Shift,
}

impl Step {
    fn empty() -> Step {
        Step {
            text: String::new(),
            reasoning: String::new(),
            calls: Vec::new(),
            results: Vec::new(),
            finish_reason: FinishReason::Other,
            usage: None,
            diagnostics: Vec::new(),
        }
    }
}

/// Renumbers a step's ids after the steps before it, and notes what the
/// step said.
#[derive(Default)]
struct Shift {
    text: Renumber,
    reasoning: Renumber,
    call: Renumber,
}

/// One kind of id across steps.
#[derive(Default)]
struct Renumber {
    /// Ids used by the steps before.
    base: u32,
    /// One past the largest id of this step.
    seen: u32,
}

impl Renumber {
    fn id(&mut self, id: u32) -> u32 {
        self.seen = self.seen.max(id + 1);
        self.base + id
    }

    fn step_done(&mut self) {
        self.base += self.seen;
        self.seen = 0;
    }
}

impl Shift {
    fn step_done(&mut self) {
        self.text.step_done();
        self.reasoning.step_done();
        self.call.step_done();
    }

    fn part(&mut self, part: StreamPart, step: &mut Step) -> Option<LoopEvent> {
        let event = match part {
            StreamPart::Event(event) => event,
            StreamPart::Reasoning(text) => {
                step.reasoning.push_str(&text);
                return Some(LoopEvent::Reasoning(text));
            }
            StreamPart::Usage(usage) => {
                step.usage = Some(usage);
                return None;
            }
            StreamPart::Warning(warning) => return Some(LoopEvent::Warning(warning)),
            StreamPart::Finish(reason) => {
                step.finish_reason = reason;
                return None;
            }
        };
        let event = event.map_ids(
            |id| TextId(self.text.id(id.0)),
            |id| ReasoningId(self.reasoning.id(id.0)),
            |id| CallId(self.call.id(id.0)),
        );
        match &event {
            Event::TextDelta { delta, .. } => step.text.push_str(delta),
            Event::ReasoningDelta { delta, .. } => step.reasoning.push_str(delta),
            Event::ToolCall {
                id: tool_call_id,
                tool_name,
                input,
                model_call_id,
                ..
            } => step.calls.push(StepCall {
                id: model_call_id
                    .as_ref()
                    .map_or_else(|| tool_call_id.to_string(), |m| m.to_string()),
                name: tool_name.to_string(),
                input: serde_json::from_str(input).unwrap_or(Value::Null),
            }),
            Event::Diagnostic(d) => step.diagnostics.push(d.clone()),
            _ => {}
        }
        Some(LoopEvent::Event(event))
    }
}
