//! The response side: a wrapped model's stream parts into
//! `chat.completion.chunk`s, and a whole answer into a `chat.completion`.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::wire::{
    AssistantMessage, ChatCompletion, ChatCompletionChunk, Choice, ChunkChoice, Delta,
    FunctionCall, FunctionDelta, ToolCall, ToolCallDelta,
};
use crate::event::{CallId, Event};
use crate::middleware::{Content, FinishReason, GenerateResult, StreamPart};

/// When a call goes out on a stream. OpenAI's wire cannot take a call
/// back, so the two policies differ only for a call that starts and then
/// fails to parse.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamPolicy {
    /// Name and argument fragments go out as they arrive, as OpenAI
    /// streams them. A call that then fails stays on the wire as it was
    /// sent (its `arguments` an unfinished JSON text) and is not counted
    /// for `finish_reason`; its raw text follows as `content`.
    #[default]
    Eager,
    /// A call goes out whole (id, name and all its arguments in one
    /// delta) once its arguments parse, at the parser's commit point. A
    /// call that fails never appears; its raw text comes as `content`.
    /// Text is never held back either way.
    Validated,
}

impl std::str::FromStr for StreamPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<StreamPolicy, String> {
        match s {
            "eager" => Ok(StreamPolicy::Eager),
            "validated" => Ok(StreamPolicy::Validated),
            _ => Err(format!(
                "stream policy must be eager or validated, not {s:?}"
            )),
        }
    }
}

/// Where call ids come from: [`random_call_id`] unless the caller gives
/// its own generator.
pub type CallIdSource = Arc<dyn Fn() -> String + Send + Sync>;

/// A fresh unpredictable value: SipHash keyed by the standard library's
/// per-process random keys, over a counter and the clock.
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    hasher.finish()
}

fn random_suffix(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut out = String::with_capacity(len);
    while out.len() < len {
        let mut bits = random_u64();
        // 10 characters of 62 fit in 64 bits with room to spare.
        for _ in 0..10 {
            if out.len() == len {
                break;
            }
            out.push(ALPHABET[(bits % 62) as usize] as char);
            bits /= 62;
        }
    }
    out
}

/// An OpenAI-style call id: `call_` and 24 random letters and digits.
pub fn random_call_id() -> String {
    format!("call_{}", random_suffix(24))
}

/// A completion id: `chatcmpl-` and 24 random letters and digits.
pub fn completion_id() -> String {
    format!("chatcmpl-{}", random_suffix(24))
}

/// Seconds since the Unix epoch, for `created`.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The wire spelling of a finish reason (`error` and `other` are `stop`:
/// OpenAI has no word for them).
pub fn finish_reason(reason: FinishReason) -> &'static str {
    match reason {
        FinishReason::Length => "length",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::ToolCalls => "tool_calls",
        _ => "stop",
    }
}

/// Turns a wrapped model's [`StreamPart`]s into `chat.completion.chunk`s.
///
/// The first chunk carries `role: "assistant"`; text goes out as
/// `content`, reasoning as `reasoning_content`, calls as `tool_calls`
/// deltas numbered by `index` in the order they go out (see
/// [`StreamPolicy`]), the finish as `finish_reason`, token counts as a
/// last chunk with no choice. Once a call was delivered, a `stop` (or
/// unexplained) finish goes out as `tool_calls`. Parts pushed in one call whose deltas can
/// merge (text after text, arguments after arguments of the same call)
/// go out as one chunk.
///
/// ```
/// use toolsieve::middleware::{FinishReason, StreamPart};
/// use toolsieve::openai::{ChunkEncoder, StreamPolicy};
/// use toolsieve::{Format, Parser};
///
/// let mut encoder = ChunkEncoder::new("chatcmpl-1", "qwen3", 0, StreamPolicy::Eager);
/// let mut chunks = Vec::new();
/// let mut parser = Parser::new(Format::Hermes);
/// let output = r#"<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>"#;
/// for event in parser.parse(output.as_bytes()) {
///     encoder.push(&StreamPart::Event(event.into_owned()), &mut chunks);
/// }
/// // The model stopped; a call went out, so the finish is `tool_calls`.
/// encoder.push(&StreamPart::Finish(FinishReason::Stop), &mut chunks);
/// let call = &chunks[0].choices[0].delta.tool_calls[0];
/// assert_eq!(call.function.name.as_deref(), Some("f"));
/// assert!(call.id.as_deref().unwrap().starts_with("call_"));
/// let last = chunks.last().unwrap();
/// assert_eq!(last.choices[0].finish_reason.as_deref(), Some("tool_calls"));
/// ```
pub struct ChunkEncoder {
    id: String,
    model: String,
    created: u64,
    policy: StreamPolicy,
    call_ids: Option<CallIdSource>,
    /// The call being streamed (eager): its parser id and wire index.
    open_call: Option<(CallId, u32)>,
    next_index: u32,
    /// Calls delivered whole (a `tool-call` event): the finish is then
    /// `tool_calls`.
    delivered: u32,
    role_sent: bool,
    /// Where this push's chunks start in `out` (merging stays inside one
    /// push).
    batch_start: usize,
    /// The ids the model gave this answer's calls so far.
    given_ids: HashSet<String>,
}

impl std::fmt::Debug for ChunkEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkEncoder")
            .field("id", &self.id)
            .field("policy", &self.policy)
            .field("next_index", &self.next_index)
            .finish_non_exhaustive()
    }
}

impl ChunkEncoder {
    /// An encoder for one answer: its completion id, model and `created`
    /// time go on every chunk.
    pub fn new(
        id: impl Into<String>,
        model: impl Into<String>,
        created: u64,
        policy: StreamPolicy,
    ) -> ChunkEncoder {
        ChunkEncoder {
            id: id.into(),
            model: model.into(),
            created,
            policy,
            call_ids: None,
            open_call: None,
            next_index: 0,
            delivered: 0,
            role_sent: false,
            batch_start: 0,
            given_ids: HashSet::new(),
        }
    }

    /// Makes call ids with `source` instead of [`random_call_id`].
    pub fn call_ids(mut self, source: CallIdSource) -> ChunkEncoder {
        self.call_ids = Some(source);
        self
    }

    fn new_call_id(&self) -> String {
        match &self.call_ids {
            Some(source) => source(),
            None => random_call_id(),
        }
    }

    /// The wire id of a call the model gave `given` (or none): kept,
    /// unless an earlier call of the answer had it — a response's calls
    /// need ids apart, and a model may number each alike (`functions.f:0`).
    fn wire_id(&mut self, given: Option<&str>) -> String {
        match given {
            Some(id) if !self.given_ids.contains(id) => {
                self.given_ids.insert(id.to_owned());
                id.to_owned()
            }
            _ => self.new_call_id(),
        }
    }

    fn chunk(&self, delta: Delta, finish_reason: Option<String>) -> ChatCompletionChunk {
        ChatCompletionChunk {
            id: self.id.clone(),
            object: "chat.completion.chunk".into(),
            created: self.created,
            model: self.model.clone(),
            choices: vec![ChunkChoice {
                index: 0,
                delta,
                finish_reason,
            }],
            usage: None,
        }
    }

    /// Adds `delta`, merged into the last chunk of this push when it can.
    fn emit(&mut self, mut delta: Delta, out: &mut Vec<ChatCompletionChunk>) {
        if !self.role_sent {
            delta.role = Some("assistant".into());
            self.role_sent = true;
        }
        if out.len() > self.batch_start {
            if let Some(last) = out.last_mut().and_then(|c| c.choices.first_mut()) {
                if last.finish_reason.is_none() && merge(&mut last.delta, &delta) {
                    return;
                }
            }
        }
        out.push(self.chunk(delta, None));
    }

    /// Encodes one part; the chunks go to `out`.
    pub fn push(&mut self, part: &StreamPart, out: &mut Vec<ChatCompletionChunk>) {
        self.batch_start = out.len();
        self.push_merging(part, out);
    }

    /// Encodes several parts, merging their deltas where they allow.
    pub fn push_all<'p>(
        &mut self,
        parts: impl IntoIterator<Item = &'p StreamPart>,
        out: &mut Vec<ChatCompletionChunk>,
    ) {
        self.batch_start = out.len();
        for part in parts {
            self.push_merging(part, out);
        }
    }

    fn push_merging(&mut self, part: &StreamPart, out: &mut Vec<ChatCompletionChunk>) {
        match part {
            StreamPart::Event(event) => self.event(event, out),
            StreamPart::Reasoning(text) => self.emit(
                Delta {
                    reasoning_content: Some(text.clone()),
                    ..Delta::default()
                },
                out,
            ),
            StreamPart::Usage(usage) => out.push(ChatCompletionChunk {
                choices: Vec::new(),
                usage: Some(*usage),
                ..self.chunk(Delta::default(), None)
            }),
            StreamPart::Warning(warning) => {
                tracing::warn!(target: "toolsieve::parse", "{warning}");
            }
            StreamPart::Finish(reason) => {
                let mut delta = Delta::default();
                if !self.role_sent {
                    delta.role = Some("assistant".into());
                    delta.content = Some(String::new());
                    self.role_sent = true;
                }
                // A delivered call makes the answer's finish `tool_calls`,
                // whatever the model said (a text model stops with `stop`);
                // `length` and `content_filter` are kept.
                let reason = match reason {
                    FinishReason::Stop | FinishReason::Other if self.delivered > 0 => {
                        FinishReason::ToolCalls
                    }
                    reason => *reason,
                };
                out.push(self.chunk(delta, Some(finish_reason(reason).into())));
            }
        }
    }

    fn event(&mut self, event: &Event<'static>, out: &mut Vec<ChatCompletionChunk>) {
        match event {
            Event::TextDelta { delta, .. } => self.emit(
                Delta {
                    content: Some(delta.as_str().to_owned()),
                    ..Delta::default()
                },
                out,
            ),
            Event::ReasoningDelta { delta, .. } => self.emit(
                Delta {
                    reasoning_content: Some(delta.as_str().to_owned()),
                    ..Delta::default()
                },
                out,
            ),
            Event::ToolInputStart {
                id,
                tool_name,
                model_call_id,
            } if self.policy == StreamPolicy::Eager => {
                self.call_started(*id, tool_name, model_call_id.as_deref(), out)
            }
            Event::ToolInputDelta { id, delta } => match self.open_call {
                Some((open, index)) if open == *id => self.emit(
                    Delta {
                        tool_calls: vec![ToolCallDelta {
                            index,
                            function: FunctionDelta {
                                name: None,
                                arguments: Some(delta.as_str().to_owned()),
                            },
                            ..ToolCallDelta::default()
                        }],
                        ..Delta::default()
                    },
                    out,
                ),
                _ => {}
            },
            Event::ToolCall {
                id,
                tool_name,
                input,
                model_call_id,
                ..
            } => self.call_delivered(*id, tool_name, input, model_call_id.as_deref(), out),
            Event::Diagnostic(d) => {
                tracing::debug!(target: "toolsieve::parse", kind = ?d.kind, message = %d.message, "diagnostic");
            }
            _ => {}
        }
    }

    /// Eager: a call's first chunk (its id and name) as soon as it starts.
    fn call_started(
        &mut self,
        id: CallId,
        tool_name: &str,
        model_call_id: Option<&str>,
        out: &mut Vec<ChatCompletionChunk>,
    ) {
        let index = self.next_index;
        self.next_index += 1;
        self.open_call = Some((id, index));
        let call = ToolCallDelta {
            index,
            id: Some(self.wire_id(model_call_id)),
            kind: Some("function".into()),
            function: FunctionDelta {
                name: Some(tool_name.to_owned()),
                arguments: Some(String::new()),
            },
        };
        self.emit(
            Delta {
                tool_calls: vec![call],
                ..Delta::default()
            },
            out,
        );
    }

    /// A delivered call: nothing more if it streamed (eager), else all of
    /// it in one chunk.
    fn call_delivered(
        &mut self,
        id: CallId,
        tool_name: &str,
        input: &str,
        model_call_id: Option<&str>,
        out: &mut Vec<ChatCompletionChunk>,
    ) {
        self.delivered += 1;
        if self.open_call.take().is_some_and(|(open, _)| open == id) {
            // Eager: everything went out already.
            return;
        }
        let index = self.next_index;
        self.next_index += 1;
        let id = self.wire_id(model_call_id);
        self.emit(
            Delta {
                tool_calls: vec![ToolCallDelta {
                    index,
                    id: Some(id),
                    kind: Some("function".into()),
                    function: FunctionDelta {
                        name: Some(tool_name.to_owned()),
                        arguments: Some(input.to_owned()),
                    },
                }],
                ..Delta::default()
            },
            out,
        );
    }
}

/// Merges `next` into `last` when the result means the same: text after
/// text, reasoning after reasoning, arguments after arguments of one call.
fn merge(last: &mut Delta, next: &Delta) -> bool {
    let holds = holds(last);
    if next.role.is_some() || holds.is_none() || holds != self::holds(next) {
        return false;
    }
    let (a, b) = match holds {
        Some(Holds::Content) => (&mut last.content, &next.content),
        Some(Holds::Reasoning) => (&mut last.reasoning_content, &next.reasoning_content),
        _ => match (last.tool_calls.last_mut(), next.tool_calls.as_slice()) {
            (Some(a), [b]) if a.index == b.index && b.id.is_none() => {
                (&mut a.function.arguments, &b.function.arguments)
            }
            _ => return false,
        },
    };
    match (a, b) {
        (Some(a), Some(b)) => {
            a.push_str(b);
            true
        }
        _ => false,
    }
}

/// The one kind of thing a delta holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    Content,
    Reasoning,
    Calls,
}

/// What a delta holds, when it holds one kind of thing.
fn holds(delta: &Delta) -> Option<Holds> {
    match (
        delta.content.is_some(),
        delta.reasoning_content.is_some(),
        !delta.tool_calls.is_empty(),
    ) {
        (true, false, false) => Some(Holds::Content),
        (false, true, false) => Some(Holds::Reasoning),
        (false, false, true) => Some(Holds::Calls),
        _ => None,
    }
}

/// Ids the engine numbers per stream (`call_0`, `call_1`, …) are replaced
/// by OpenAI-style ones; an id the model wrote is kept unless an earlier
/// call of the answer (in `kept`) had it.
fn wire_call_id<'i>(
    id: &'i str,
    source: Option<&CallIdSource>,
    kept: &mut HashSet<&'i str>,
) -> String {
    let engine_numbered = id.parse::<CallId>().is_ok();
    if !engine_numbered && kept.insert(id) {
        return id.to_owned();
    }
    match source {
        Some(source) => source(),
        None => random_call_id(),
    }
}

/// The assistant message of a whole answer: text joined, reasoning
/// joined, calls with OpenAI-style ids (see [`ChunkEncoder::call_ids`] for
/// `source`), `content` `null` when there is no text.
pub fn message(result: &GenerateResult, source: Option<&CallIdSource>) -> AssistantMessage {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut tool_calls = Vec::new();
    let mut kept = HashSet::new();
    for content in &result.content {
        match content {
            Content::Text(t) => text.push_str(t),
            Content::Reasoning(r) => reasoning.push_str(r),
            Content::ToolCall { id, name, input } => tool_calls.push(ToolCall {
                id: wire_call_id(id, source, &mut kept),
                kind: "function".into(),
                function: FunctionCall {
                    name: name.clone(),
                    arguments: input.clone(),
                },
            }),
        }
    }
    AssistantMessage {
        role: "assistant".into(),
        content: (!text.is_empty()).then_some(text),
        tool_calls,
        reasoning_content: (!reasoning.is_empty()).then_some(reasoning),
    }
}

/// A whole answer as a `chat.completion`.
pub fn completion(
    id: impl Into<String>,
    model: impl Into<String>,
    created: u64,
    result: &GenerateResult,
    source: Option<&CallIdSource>,
) -> ChatCompletion {
    ChatCompletion {
        id: id.into(),
        object: "chat.completion".into(),
        created,
        model: model.into(),
        choices: vec![Choice {
            index: 0,
            message: message(result, source),
            finish_reason: Some(finish_reason(result.finish_reason).into()),
        }],
        usage: result.usage,
    }
}
