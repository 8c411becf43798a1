//! A small language-model abstraction and the wrapper that gives any model
//! tool calling: request transformed, output parsed, finish reason
//! rewritten, problems reported to `on_error`.
//!
//! Streams are `futures::Stream`s; nothing here depends on a runtime.

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};
use serde::{Deserialize, Serialize};
use smallvec::{smallvec, SmallVec};

use super::params::{transform_params, Mode, ParamsOptions, Placement, Request, Transformed};
use super::stream::ResponseParser;
use crate::event::Event;
use crate::event::{Diagnostic, DiagnosticKind};
use crate::{Error, Format, Limits, Reasoning};

/// Why a model stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FinishReason {
    /// It finished its answer.
    #[default]
    Stop,
    /// It hit the token limit.
    Length,
    /// A content filter stopped it.
    ContentFilter,
    /// It called tools.
    ToolCalls,
    /// An error.
    Error,
    /// Something else.
    Other,
}

/// An error from the model itself.
pub type ModelError = Box<dyn std::error::Error + Send + Sync>;

/// Token counts, as a backend reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the prompt.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Tokens generated.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Both.
    #[serde(default)]
    pub total_tokens: u64,
}

/// What a plain text model streams.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelPart {
    /// More output text.
    TextDelta(String),
    /// Reasoning the backend itself separated from the text (vLLM's and
    /// llama.cpp's `reasoning_content`). It is not parsed.
    ReasoningDelta(String),
    /// The token counts (usually just before the end).
    Usage(Usage),
    /// The end, and why.
    Finish(FinishReason),
}

/// A whole generation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Generation {
    /// The output text.
    pub text: String,
    /// Reasoning the backend itself separated from the text.
    pub reasoning: String,
    /// Why it stopped.
    pub finish_reason: FinishReason,
    /// Token counts, when the backend reports them.
    pub usage: Option<Usage>,
}

/// A language model that produces text.
pub trait LanguageModel: Send + Sync {
    /// Generates a whole answer.
    fn generate(&self, request: &Request) -> BoxFuture<'static, Result<Generation, ModelError>>;
    /// Streams an answer.
    fn stream(&self, request: &Request) -> BoxStream<'static, Result<ModelPart, ModelError>>;
}

/// A model that replays a recorded output in given pieces: for tests and
/// examples. It records the requests it was sent.
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    chunks: Vec<String>,
    finish_reason: FinishReason,
    seen: Arc<std::sync::Mutex<Vec<Request>>>,
}

impl ScriptedModel {
    /// Replays `output` cut into `chunk_size`-byte pieces (cut at char
    /// boundaries; 0 = whole).
    pub fn new(output: &str, chunk_size: usize) -> ScriptedModel {
        let chunks = crate::contract::char_chunks(output, chunk_size)
            .into_iter()
            .map(str::to_owned)
            .collect();
        ScriptedModel::from_chunks(chunks)
    }

    /// Replays exactly these pieces.
    pub fn from_chunks(chunks: Vec<String>) -> ScriptedModel {
        ScriptedModel {
            chunks,
            finish_reason: FinishReason::Stop,
            seen: Arc::default(),
        }
    }

    /// Sets the finish reason it reports.
    pub fn with_finish_reason(mut self, reason: FinishReason) -> ScriptedModel {
        self.finish_reason = reason;
        self
    }

    /// The requests it received, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().map(|v| v.clone()).unwrap_or_default()
    }

    fn record(&self, request: &Request) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(request.clone());
        }
    }
}

impl LanguageModel for ScriptedModel {
    fn generate(&self, request: &Request) -> BoxFuture<'static, Result<Generation, ModelError>> {
        self.record(request);
        let generation = Generation {
            text: self.chunks.concat(),
            finish_reason: self.finish_reason,
            ..Generation::default()
        };
        Box::pin(async move { Ok(generation) })
    }

    fn stream(&self, request: &Request) -> BoxStream<'static, Result<ModelPart, ModelError>> {
        self.record(request);
        let parts: Vec<Result<ModelPart, ModelError>> = self
            .chunks
            .iter()
            .map(|c| Ok(ModelPart::TextDelta(c.clone())))
            .chain(std::iter::once(Ok(ModelPart::Finish(self.finish_reason))))
            .collect();
        stream::iter(parts).boxed()
    }
}

/// A problem reported to [`ToolCallingModel::on_error`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorReport {
    /// What happened.
    pub kind: DiagnosticKind,
    /// Why, in a sentence.
    pub message: String,
    /// The tool, when known.
    pub tool_name: Option<String>,
    /// The call id, when a `tool-input-start` was sent for it.
    pub tool_call_id: Option<String>,
    /// The raw text of the call, only with [`ToolCallingModel::include_raw_text`].
    pub raw_text: Option<String>,
}

/// One piece of a wrapped model's output.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamPart {
    /// A parser event (text, tool input, tool call, diagnostic).
    Event(Event<'static>),
    /// Reasoning the backend separated itself ([`ModelPart::ReasoningDelta`]).
    Reasoning(String),
    /// The backend's token counts.
    Usage(Usage),
    /// Something the request rewrite dropped (a provider-defined tool);
    /// these come first.
    Warning(String),
    /// The end: the finish reason, `tool-calls` when a call was parsed.
    Finish(FinishReason),
}

/// One item of a generated answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text(String),
    /// The model's reasoning: what the parser separated with
    /// [`ToolCallingModel::reasoning`], or what the backend did.
    Reasoning(String),
    /// A tool call.
    ToolCall {
        /// Its id.
        id: String,
        /// The tool.
        name: String,
        /// The arguments JSON.
        input: String,
    },
}

/// A whole answer of a wrapped model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerateResult {
    /// Text and calls, in order.
    pub content: Vec<Content>,
    /// Why it stopped (`tool-calls` when a call was parsed).
    pub finish_reason: FinishReason,
    /// What the request rewrite dropped.
    pub warnings: Vec<String>,
    /// What went wrong while parsing.
    pub diagnostics: Vec<Diagnostic>,
    /// Token counts, when the backend reports them.
    pub usage: Option<Usage>,
}

type OnError = Arc<dyn Fn(&ErrorReport) + Send + Sync>;

/// Gives `model` tool calling through the text protocol `format`.
pub struct ToolCallingModel<M> {
    model: Arc<M>,
    format: Format,
    params: ParamsOptions,
    limits: Limits,
    reasoning: Option<Reasoning>,
    on_error: Option<OnError>,
    include_raw_text: bool,
    /// See [`ToolCallingModel::enforce_tool_choice`].
    pub(super) forced_retries: Option<u32>,
}

impl<M> Clone for ToolCallingModel<M> {
    fn clone(&self) -> Self {
        ToolCallingModel {
            model: self.model.clone(),
            format: self.format,
            params: self.params.clone(),
            limits: self.limits,
            reasoning: self.reasoning.clone(),
            on_error: self.on_error.clone(),
            include_raw_text: self.include_raw_text,
            forced_retries: self.forced_retries,
        }
    }
}

impl<M> std::fmt::Debug for ToolCallingModel<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCallingModel")
            .field("format", &self.format)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

fn rewrite_finish(reason: FinishReason, called: bool) -> FinishReason {
    match reason {
        FinishReason::Length | FinishReason::ContentFilter | FinishReason::Error => reason,
        _ if called => FinishReason::ToolCalls,
        other => other,
    }
}

impl<M: LanguageModel + 'static> ToolCallingModel<M> {
    /// Wraps `model`.
    pub fn new(model: M, format: Format) -> ToolCallingModel<M> {
        ToolCallingModel {
            model: Arc::new(model),
            format,
            params: ParamsOptions::default(),
            limits: Limits::default(),
            reasoning: format.default_reasoning(),
            on_error: None,
            include_raw_text: false,
            forced_retries: None,
        }
    }

    /// Holds a forced `tool_choice` (`required`, a named tool) to what it
    /// promises: an answer without the call is asked for again, with a
    /// corrective message, at most `retries` more times; then the answer
    /// is an error ([`ToolChoiceUnmet`](super::ToolChoiceUnmet)), not
    /// prose dressed as an answer. On a stream, text waits until a call
    /// begins (it may still be taken back). Off by default: the answer
    /// comes as the model gave it, with a
    /// [`NoToolCall`](crate::DiagnosticKind::NoToolCall) diagnostic.
    pub fn enforce_tool_choice(mut self, retries: u32) -> Self {
        self.forced_retries = Some(retries);
        self
    }

    /// Where the tool prompt goes in the system message.
    pub fn placement(mut self, placement: Placement) -> Self {
        self.params.placement = placement;
        self
    }

    /// Replaces the prompt template.
    pub fn template(mut self, template: impl Into<String>) -> Self {
        self.params.template = Some(template.into());
        self
    }

    /// Parser limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Separates the model's reasoning from its text (see
    /// [`ParserBuilder::reasoning`](crate::ParserBuilder::reasoning));
    /// `None` turns off what the format itself defines.
    pub fn reasoning(mut self, reasoning: Option<Reasoning>) -> Self {
        self.reasoning = reasoning;
        self
    }

    /// Called for every diagnostic while parsing.
    pub fn on_error(mut self, f: impl Fn(&ErrorReport) + Send + Sync + 'static) -> Self {
        self.on_error = Some(Arc::new(f));
        self
    }

    /// See [`ParamsOptions::tolerant_history`].
    pub fn tolerant_history(mut self, on: bool) -> Self {
        self.params.tolerant_history = on;
        self
    }

    /// Include the raw text of failed calls in [`ErrorReport::raw_text`]
    /// (off by default: it may hold user data).
    pub fn include_raw_text(mut self, yes: bool) -> Self {
        self.include_raw_text = yes;
        self
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.model
    }

    fn prepare(&self, request: &Request) -> Result<(Transformed, ResponseParser), Error> {
        let transformed = transform_params(self.format, request, &self.params)?;
        let parser = ResponseParser::with_reasoning(
            self.format,
            &transformed.tools,
            &transformed.mode,
            self.limits,
            self.reasoning.clone(),
        )?;
        Ok((transformed, parser))
    }

    /// One answer, as the model gives it (see
    /// [`generate`](ToolCallingModel::generate)).
    pub(super) fn generate_once(
        &self,
        request: &Request,
    ) -> Result<BoxFuture<'static, Result<GenerateResult, ModelError>>, Error> {
        let (transformed, mut parser) = self.prepare(request)?;
        let future = self.model.generate(&transformed.request);
        let reporter = Reporter::new(self.on_error.clone(), self.include_raw_text);
        let warnings = transformed.warnings;
        Ok(Box::pin(async move {
            let generation = future.await?;
            tracing::debug!(target: "toolsieve::stream", text = %generation.text, "model output");
            let mut events = Vec::new();
            parser.push(&generation.text, &mut events);
            parser.finish(&mut events);
            let mut reporter = reporter;
            reporter.seen(&generation.text);
            let mut content = Vec::new();
            if !generation.reasoning.is_empty() {
                content.push(Content::Reasoning(generation.reasoning));
            }
            let mut diagnostics = Vec::new();
            for e in events {
                match e {
                    Event::TextDelta { delta, .. } => match content.last_mut() {
                        Some(Content::Text(t)) => t.push_str(&delta),
                        _ => content.push(Content::Text(delta.into_owned())),
                    },
                    Event::ReasoningDelta { delta, .. } => match content.last_mut() {
                        Some(Content::Reasoning(t)) => t.push_str(&delta),
                        _ => content.push(Content::Reasoning(delta.into_owned())),
                    },
                    Event::ToolCall {
                        id: tool_call_id,
                        tool_name,
                        input,
                        model_call_id,
                        ..
                    } => content.push(Content::ToolCall {
                        id: model_call_id
                            .map_or_else(|| tool_call_id.to_string(), std::borrow::Cow::into_owned),
                        name: tool_name.into_owned(),
                        input: input.into_owned(),
                    }),
                    Event::Diagnostic(d) => {
                        reporter.report(&d);
                        diagnostics.push(d);
                    }
                    _ => {}
                }
            }
            let called = content
                .iter()
                .any(|c| matches!(c, Content::ToolCall { .. }));
            tracing::debug!(target: "toolsieve::parse", calls = content.iter().filter(|c| matches!(c, Content::ToolCall { .. })).count(), diagnostics = diagnostics.len(), "parsed");
            Ok(GenerateResult {
                content,
                finish_reason: rewrite_finish(generation.finish_reason, called),
                warnings,
                diagnostics,
                usage: generation.usage,
            })
        }))
    }

    /// One answer's stream, as the model gives it (see
    /// [`stream`](ToolCallingModel::stream)).
    pub(super) fn stream_once(
        &self,
        request: &Request,
    ) -> Result<BoxStream<'static, Result<StreamPart, ModelError>>, Error> {
        let (transformed, parser) = self.prepare(request)?;
        if matches!(transformed.mode, Mode::Forced(_)) {
            tracing::debug!(target: "toolsieve::parse", "tool_choice fast path");
        }
        let inner = self.model.stream(&transformed.request);
        let state = StreamState {
            parser,
            reporter: Reporter::new(self.on_error.clone(), self.include_raw_text),
            events: Vec::new(),
            finished: false,
            failed: false,
        };
        let warnings = transformed
            .warnings
            .into_iter()
            .map(|w| Ok(StreamPart::Warning(w)));
        // After a model error nothing more is read: a backend that broke
        // off is not polled again.
        let parts = inner
            .map(Some)
            .chain(stream::iter([None]))
            .scan(state, |state, item| {
                let out = (!state.failed).then(|| state.step(item));
                futures::future::ready(out)
            })
            .flat_map(stream::iter);
        Ok(stream::iter(warnings).chain(parts).boxed())
    }
}

struct StreamState {
    parser: ResponseParser,
    reporter: Reporter,
    /// The events of a step (reused).
    events: Vec<Event<'static>>,
    finished: bool,
    /// The model's stream failed.
    failed: bool,
}

/// The parts of one step: one, as a rule (a text delta), kept inline.
type StepParts = SmallVec<[Result<StreamPart, ModelError>; 1]>;

impl StreamState {
    fn step(&mut self, item: Option<Result<ModelPart, ModelError>>) -> StepParts {
        if self.finished {
            // Backends send their token counts after the finish.
            return match item {
                Some(Ok(ModelPart::Usage(usage))) => smallvec![Ok(StreamPart::Usage(usage))],
                _ => StepParts::new(),
            };
        }
        let events = &mut self.events;
        let mut finish = None;
        match item {
            Some(Ok(ModelPart::TextDelta(text))) => {
                tracing::debug!(target: "toolsieve::stream", chunk = %text, "model chunk");
                self.reporter.seen(&text);
                self.parser.push(&text, events);
            }
            Some(Ok(ModelPart::Finish(reason))) => finish = Some(reason),
            Some(Ok(ModelPart::ReasoningDelta(text))) => {
                return smallvec![Ok(StreamPart::Reasoning(text))];
            }
            Some(Ok(ModelPart::Usage(usage))) => return smallvec![Ok(StreamPart::Usage(usage))],
            Some(Err(e)) => {
                self.finished = true;
                self.failed = true;
                return smallvec![Err(e)];
            }
            // The model's stream ended without saying why.
            None => finish = Some(FinishReason::Other),
        }
        if finish.is_some() {
            self.parser.finish(events);
            self.finished = true;
        }
        let calls = self.parser.calls();
        let mut out = StepParts::new();
        for e in events.drain(..) {
            if let Event::Diagnostic(d) = &e {
                self.reporter.report(d);
            }
            out.push(Ok(StreamPart::Event(e)));
        }
        if let Some(reason) = finish {
            let called = calls > 0;
            tracing::debug!(target: "toolsieve::parse", called, "stream finished");
            out.push(Ok(StreamPart::Finish(rewrite_finish(reason, called))));
        }
        out
    }
}

/// Turns diagnostics into [`ErrorReport`]s for `on_error`.
struct Reporter {
    on_error: Option<OnError>,
    raw: Option<String>,
}

impl Reporter {
    fn new(on_error: Option<OnError>, include_raw: bool) -> Reporter {
        Reporter {
            raw: (include_raw && on_error.is_some()).then(String::new),
            on_error,
        }
    }

    fn seen(&mut self, text: &str) {
        if let Some(raw) = self.raw.as_mut() {
            raw.push_str(text);
        }
    }

    fn report(&self, d: &Diagnostic) {
        let Some(on_error) = &self.on_error else {
            return;
        };
        let raw_text = match (&self.raw, d.raw_span) {
            (Some(raw), Some(span)) => raw
                .as_bytes()
                .get(span.start as usize..span.end as usize)
                .map(|b| String::from_utf8_lossy(b).into_owned()),
            _ => None,
        };
        on_error(&ErrorReport {
            kind: d.kind,
            message: d.message.clone(),
            tool_name: d.tool_name.clone(),
            tool_call_id: d.id.map(|c| c.to_string()),
            raw_text,
        });
    }
}
