//! The push parser: finds start markers in text, hands call bytes to the
//! format's automaton, and turns what it recognises into [`Event`]s.

use std::borrow::Cow;
use std::sync::Arc;

use crate::cx::{CallCx, Core, GivenBack, ParamTable, Settings};
use crate::error::OnInvalid;
use crate::event::{Delta, Event, Span};
use crate::event::{Diagnostic, DiagnosticKind};
use crate::limits::Limits;
use crate::protocol::{Automaton, CallAutomaton, Failure, InCall, Outcome, Steady};
use crate::reasoning::Reasoning;
use crate::scan::marker::{Found, MarkerError, MarkerSet, Misses, Small};
use crate::scan::utf8::SHORT_JOIN;
use crate::scan::xml::{AfterBreak, CutText};
use crate::tool::Tool;

/// Chunks up to this long take [`Parser::feed`]'s plain-text fast path;
/// longer ones are cheaper through memchr and SIMD validation.
const FAST_TEXT_MAX: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The start of a stream that starts inside reasoning: its reasoning
    /// part opens with the first byte.
    Open,
    /// The start of a stream that may open with a call's bare JSON (see
    /// [`ParserBuilder::bare_call_at_start`]): only whitespace so far.
    Lead,
    /// Scanning text for a start marker.
    Text,
    /// Inside a call; the automaton consumes the bytes.
    Call,
}

/// A streaming tool-call parser for one stream at a time.
///
/// Build one with [`Parser::new`] or [`Parser::builder`], then call
/// [`feed`](Parser::feed) for each chunk and [`finish`](Parser::finish) at
/// the end. After `finish` the parser is ready for a new stream and keeps its
/// allocations, so a server can reuse one per connection.
///
/// ```
/// use toolsieve::{Event, Format, Parser};
///
/// let mut parser = Parser::new(Format::Hermes);
/// let mut calls = Vec::new();
/// let mut text = String::new();
/// // `finish`'s events too: text held back at the end comes out there.
/// let mut on_event = |event: Event<'_>| match event {
///     Event::TextDelta { delta, .. } => text.push_str(&delta),
///     Event::ToolCall { tool_name, input, .. } => calls.push((tool_name.into_owned(), input.into_owned())),
///     _ => {}
/// };
/// for chunk in ["Sure. <tool_", "call>{\"name\": \"now\", ", "\"arguments\": {}}</tool_call>"] {
///     parser.feed_str(chunk, &mut on_event);
/// }
/// parser.finish(&mut on_event);
/// assert_eq!(text, "Sure. ");
/// assert_eq!(calls, [("now".to_string(), "{}".to_string())]);
/// ```
#[derive(Debug, Clone)]
pub struct Parser {
    markers: MarkerSet,
    automaton: Automaton,
    core: Core,
    state: State,
    /// Bytes at the end of the last chunk that may begin a marker.
    held: Vec<u8>,
    /// Stream offset of the next byte to be fed.
    offset: u64,
    /// Where markers were searched for in vain (linear time when call
    /// attempts hand bytes back).
    misses: Misses,
    /// The state a stream starts in: `Call` for a parser that reads one bare
    /// JSON call (the `tool_choice` fast path), `Lead` for one that may.
    initial: State,
    /// With [`ParserBuilder::bare_call_at_start`]: the automaton that reads
    /// a call at the start of the stream (JSON without markers). It takes
    /// the place of `automaton` while it does (`lead_call`).
    lead: Option<Box<Automaton>>,
    lead_call: bool,
    /// With [`ParserBuilder::reasoning`]: the marker set not in use.
    think: Option<Box<Think>>,
    /// Where the answer's first byte that opened no bare call came (the
    /// stream offset at which [`State::Lead`] gave way to text), if it did.
    lead_left_at: Option<u64>,
    /// The answer has not begun: the reasoning part in progress opened the
    /// stream (or came right after its leading whitespace), so a bare call
    /// may open the answer after it, as one may open an output without
    /// reasoning (see [`ParserBuilder::bare_call_at_start`]).
    lead_after_reasoning: bool,
    /// The last chunk left the call's arguments inside a JSON string with
    /// nothing held or carried: a next chunk of plain string bytes is the
    /// next delta as it stands (see [`Parser::feed`]). Set by the steady
    /// path only; every other path clears it.
    in_string: bool,
}

/// Reasoning: the stream switches between two marker sets at the
/// reasoning tags. In text, the set is the call markers and the start
/// tag; inside reasoning, the end tag (after the call markers, if calls
/// inside reasoning are delivered). Call markers keep their indices in
/// both.
#[derive(Debug, Clone)]
struct Think {
    reasoning: Reasoning,
    /// The set not in use, and where its markers were searched in vain.
    other: MarkerSet,
    other_misses: Misses,
    /// The index of the tag in the set in use, and in the other.
    tag: usize,
    other_tag: usize,
    /// Calls are not read ([`ParserBuilder::read_calls`]), but the
    /// reasoning set holds the format's call markers: they end reasoning
    /// that calls end, and are then text.
    calls_as_text: bool,
}

/// Sends `text`, a steady chunk `chunk` of a string value, JSON-escaped:
/// runs of the chunk and static escapes, each a delta (nothing allocated),
/// or for a long text one built delta. Out of line, so that the steady
/// path stays small.
#[inline(never)]
fn send_escaped<'c, S: FnMut(Event<'c>)>(
    core: &mut Core,
    text: &'c str,
    chunk: (&'c [u8], u64),
    sink: &mut S,
) {
    use crate::scan::json::{escape_json_pieces, ESCAPED_IN_PIECES};
    if text.len() > ESCAPED_IN_PIECES {
        return send_escaped_long(core, text, chunk, sink);
    }
    escape_json_pieces(text, |piece| {
        core.send_built(Delta::borrowed(piece.as_str()), chunk, sink);
    });
}

/// [`send_escaped`] of a long text: one built delta.
#[inline(never)]
fn send_escaped_long<'c, S: FnMut(Event<'c>)>(
    core: &mut Core,
    text: &str,
    chunk: (&'c [u8], u64),
    sink: &mut S,
) {
    let mut escaped = String::with_capacity(text.len() + text.len() / 8);
    crate::scan::json::escape_json_into(&mut escaped, text);
    core.send_built(Delta::from(escaped), chunk, sink);
}

/// A [`Steady::AfterLineBreak`] chunk of a value: the line break held
/// before it, then its text.
fn send_after_break<'c, S: FnMut(Event<'c>)>(
    core: &mut Core,
    after: AfterBreak<'c>,
    (chunk, offset): (&'c [u8], u64),
    sink: &mut S,
) {
    core.send_built(Delta::borrowed(after.line_break), (chunk, offset), sink);
    send_value_text(
        core,
        after.text,
        offset,
        after.escaped,
        (chunk, offset),
        sink,
    );
}

/// A value's `text`, at stream offset `at` in the chunk (at stream offset
/// `offset`), as it stands or JSON-escaped; nothing if it is empty.
#[inline(always)]
fn send_value_text<'c, S: FnMut(Event<'c>)>(
    core: &mut Core,
    text: &'c str,
    at: u64,
    escaped: bool,
    (chunk, offset): (&'c [u8], u64),
    sink: &mut S,
) {
    match escaped {
        true => send_escaped(core, text, (chunk, offset), sink),
        false if text.is_empty() => {}
        false => core.send_verbatim(Delta::borrowed(text), at, (chunk, offset), sink),
    }
}

/// A [`Steady::Cut`] chunk of a value: the character it completes, then
/// the whole ones after it.
#[inline(never)]
fn send_cut<'c, S: FnMut(Event<'c>)>(
    core: &mut Core,
    cut: CutText<'c>,
    (chunk, offset): (&'c [u8], u64),
    sink: &mut S,
) {
    if let Some(c) = cut.completed {
        // The character and plain text after it: one delta.
        let joined = match cut.escaped || cut.text.is_empty() {
            true => None,
            false => Delta::char_then(c, cut.text),
        };
        if let Some(joined) = joined {
            return core.send_built(joined, (chunk, offset), sink);
        }
        core.send_built(Delta::from(c), (chunk, offset), sink);
    }
    let at = offset + u64::from(cut.text_at);
    send_value_text(core, cut.text, at, cut.escaped, (chunk, offset), sink);
}

/// String text that is not all ASCII, or continues a code point the last
/// chunk cut off, sent: `false` (nothing sent) if it is not UTF-8. Out of
/// line, so that the ASCII fast path stays small.
#[inline(never)]
fn send_string_text<'c, S: FnMut(Event<'c>)>(
    core: &mut Core,
    chunk: &'c [u8],
    offset: u64,
    sink: &mut S,
) -> bool {
    // Whole characters, the common case, are validated where they lie
    // (a token in the same pass that finds a code point it cuts off).
    if core.out.delta_carry.is_empty() && chunk.len() > SHORT_JOIN {
        if let Ok(text) = crate::scan::utf8::validate(chunk) {
            core.send_verbatim(Delta::borrowed(text), offset, (chunk, offset), sink);
            return true;
        }
    }
    core.continue_carried_delta(chunk, offset, sink)
}

/// A [`Steady::Verbatim`] chunk (at stream offset `offset`) that begins or
/// ends inside a code point, or is not UTF-8: then the call fails, as the
/// automaton decides for such bytes elsewhere. `true` if the chunk was
/// UTF-8 (so far as it goes), `false` if the call fails.
#[inline(never)]
fn verbatim_split<'c, S: FnMut(Event<'c>)>(
    core: &mut Core,
    automaton: &mut Automaton,
    chunk: &'c [u8],
    offset: u64,
    sink: &mut S,
) -> bool {
    if core.continue_carried_delta(chunk, offset, sink) {
        return true;
    }
    let mut cx = CallCx {
        core,
        sink,
        base: offset,
        chunk,
        at_limit: false,
        pending: None,
    };
    let decoded = cx.delta(chunk, offset);
    cx.flush();
    if let Err(at) = decoded {
        automaton.reject_invalid_utf8(at);
    }
    false
}

/// Configures a [`Parser`]: tools, limits, what to do with invalid calls,
/// and the format's markers.
#[derive(Debug, Clone)]
#[must_use]
pub struct ParserBuilder {
    format: crate::Format,
    tools: Arc<[Tool]>,
    limits: Limits,
    on_invalid: OnInvalid,
    delimiters: Option<(String, String)>,
    bare_call_at_start: bool,
    reasoning: Option<Reasoning>,
    /// Off: no call marker is recognised (text and reasoning only).
    calls: bool,
    /// With `calls` off: the format asked for, whose call markers still
    /// end reasoning that calls end ([`Reasoning::ends_at_calls`]).
    calls_format: Option<crate::Format>,
    #[cfg(feature = "validate")]
    validate: bool,
}

impl ParserBuilder {
    /// Checks every delivered call's arguments against its tool's JSON
    /// Schema (off by default; needs a tool list and the `validate`
    /// feature). A call that does not match is still delivered — its
    /// arguments parse, and a stream may already have sent them — and is
    /// followed by an [`InvalidArguments`](DiagnosticKind::InvalidArguments)
    /// diagnostic for its id that names each path at fault.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolsieve::{DiagnosticKind, Event, Format, Parser, Tool};
    ///
    /// let tool = Tool::new("get_weather").with_parameters(json!({
    ///     "type": "object",
    ///     "properties": {"city": {"type": "string"}},
    ///     "required": ["city"]
    /// }));
    /// let mut parser = Parser::builder(Format::Hermes)
    ///     .tools(vec![tool])
    ///     .validate_arguments(true)
    ///     .build()?;
    /// let events = parser.parse(br#"<tool_call>{"name": "get_weather", "arguments": {"city": 5}}</tool_call>"#);
    /// let problem = events.iter().find_map(|e| match e {
    ///     Event::Diagnostic(d) if d.kind == DiagnosticKind::InvalidArguments => Some(d.message.clone()),
    ///     _ => None,
    /// });
    /// assert!(problem.unwrap().contains("at /city"));
    /// # Ok::<(), toolsieve::Error>(())
    /// ```
    ///
    /// Building fails with [`Error::InvalidTools`](crate::Error::InvalidTools)
    /// when a schema is not a valid JSON Schema. References are resolved
    /// inside the schema only; nothing is fetched.
    #[cfg(feature = "validate")]
    #[cfg_attr(docsrs, doc(cfg(feature = "validate")))]
    pub fn validate_arguments(mut self, on: bool) -> Self {
        self.validate = on;
        self
    }

    /// Whether to read calls at all (on by default). Off, the output is
    /// text, and reasoning when [`reasoning`](Self::reasoning) is set: what
    /// a gateway does for `tool_choice: "none"`, where markup the model
    /// writes anyway must reach the user as it was written. The format
    /// still decides the reasoning tags and its defaults; its tool list is
    /// not needed.
    ///
    /// ```
    /// use toolsieve::{Event, Format, Parser};
    ///
    /// let mut parser = Parser::builder(Format::Hermes).read_calls(false).build()?;
    /// let output = "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    /// let events = parser.parse(output.as_bytes());
    /// assert!(!events.iter().any(|e| matches!(e, Event::ToolCall { .. })));
    /// # Ok::<(), toolsieve::Error>(())
    /// ```
    pub fn read_calls(mut self, on: bool) -> Self {
        self.calls = on;
        if on {
            if let Some(format) = self.calls_format.take() {
                self.format = format;
            }
        } else {
            self.bare_call_at_start = false;
            self.calls_format.get_or_insert(self.format);
            // An automaton that needs no tool list; it is never entered.
            self.format = crate::Format::Hermes;
        }
        self
    }

    /// The tools the model may call. With a list, a call to any other name
    /// stays text (with an [`UnknownTool`](DiagnosticKind::UnknownTool)
    /// diagnostic); without one, every well-formed call is accepted. Share one
    /// `Arc` between the parsers of many streams. The XML formats type their
    /// values by the tools' parameter schemas; schemas with local `$ref`s
    /// (`#/$defs/…`) are copied once, when the parser is built, with the
    /// references resolved.
    pub fn tools(mut self, tools: impl Into<Arc<[Tool]>>) -> Self {
        self.tools = tools.into();
        self
    }

    /// Bounds on call size, nesting and count.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// What becomes of the raw text of a call that cannot be delivered.
    pub fn on_invalid(mut self, on_invalid: OnInvalid) -> Self {
        self.on_invalid = on_invalid;
        self
    }

    /// Replaces the format's start and end markers: `<tool_call>` /
    /// `</tool_call>` for [`Format::Hermes`](crate::Format::Hermes); for
    /// [`Format::Gemma`](crate::Format::Gemma) the start is the fence opener
    /// (`` ```tool_call ``) and the end the closer (`` ``` ``).
    ///
    /// The end may be empty: a call then ends with its JSON object (or
    /// array of objects), as models with only a start token write them;
    /// further call objects may follow it after `,` or `;` (Llama writes
    /// `{…}; {…}`), so a call's `tool-call` event comes with the first byte
    /// after its JSON that is neither whitespace nor such a separator (or
    /// with [`finish`](Parser::finish)).
    ///
    /// ```
    /// use toolsieve::{Event, Format, Parser};
    ///
    /// // Mistral: `[TOOL_CALLS]` and an array of calls, no end marker.
    /// let mut parser = Parser::builder(Format::Hermes)
    ///     .delimiters("[TOOL_CALLS]", "")
    ///     .build()?;
    /// let text = r#"[TOOL_CALLS][{"name": "now", "arguments": {}}, {"name": "now", "arguments": {"tz": "UTC"}}] done"#;
    /// let calls: Vec<String> = parser
    ///     .parse(text.as_bytes())
    ///     .into_iter()
    ///     .filter_map(|e| match e {
    ///         Event::ToolCall { input, .. } => Some(input.into_owned()),
    ///         _ => None,
    ///     })
    ///     .collect();
    /// assert_eq!(calls, ["{}", r#"{"tz": "UTC"}"#]);
    /// # Ok::<(), toolsieve::Error>(())
    /// ```
    pub fn delimiters(mut self, start: impl Into<String>, end: impl Into<String>) -> Self {
        self.delimiters = Some((start.into(), end.into()));
        self
    }

    /// Also reads a call whose JSON opens the output without the start
    /// marker, as Llama 3 writes its calls to custom tools
    /// (`{"name": "f", "parameters": {…}}`, or several separated by `;`)
    /// and as JSON-only models answer. Only the very start counts (after
    /// whitespace): a `{` or `[` there opens a call read as with an empty
    /// end marker (see [`delimiters`](Self::delimiters)); any other byte
    /// means text, and markers are looked for as usual from then on. JSON
    /// there that is not a call comes back as text with a diagnostic.
    /// The JSON formats, `pythonic` (a bare `[f(…)]` list) and `harmony`
    /// (an output that goes on with the header the prompt's
    /// `<|start|>assistant` opened: ` to=functions.f…`); on by default for
    /// the formats whose models write calls without a marker at the start
    /// (`xlam`, `llama3-json`, `pythonic`, `harmony`). Other formats refuse
    /// it ([`Error::InvalidMarker`](crate::Error::InvalidMarker)).
    ///
    /// ```
    /// use toolsieve::{Event, Format, Parser};
    ///
    /// // Llama 3: a call alone, or after `<|python_tag|>`.
    /// let mut parser = Parser::builder(Format::Hermes)
    ///     .delimiters("<|python_tag|>", "")
    ///     .bare_call_at_start(true)
    ///     .build()?;
    /// let calls = |events: Vec<Event<'_>>| -> Vec<String> {
    ///     events
    ///         .into_iter()
    ///         .filter_map(|e| match e {
    ///             Event::ToolCall { tool_name, .. } => Some(tool_name.into_owned()),
    ///             _ => None,
    ///         })
    ///         .collect()
    /// };
    /// let bare = r#"{"name": "now", "parameters": {}}; {"name": "today", "parameters": {}}"#;
    /// assert_eq!(calls(parser.parse(bare.as_bytes())), ["now", "today"]);
    /// let prose = r#"It is {"name": "now"} o'clock."#;
    /// assert!(calls(parser.parse(prose.as_bytes())).is_empty());
    /// # Ok::<(), toolsieve::Error>(())
    /// ```
    pub fn bare_call_at_start(mut self, on: bool) -> Self {
        self.bare_call_at_start = on;
        self
    }

    /// Separates the model's reasoning from its answer: text between the
    /// reasoning tags comes out as `reasoning-start` / `reasoning-delta` /
    /// `reasoning-end` events, in the same pass as the calls, and the tags
    /// themselves are markup (neither text nor reasoning). A call written
    /// inside reasoning is reasoning text unless
    /// [`Reasoning::calls_inside`] is set. A stream that ends inside
    /// reasoning delivers it, with an
    /// [`UnclosedReasoning`](DiagnosticKind::UnclosedReasoning) diagnostic.
    ///
    /// ```
    /// use toolsieve::{Event, Format, Parser, Reasoning};
    ///
    /// // Qwen3's thinking template opens `<think>` in the prompt.
    /// let mut parser = Parser::builder(Format::Hermes)
    ///     .reasoning(Reasoning::think().starting_open(true))
    ///     .build()?;
    /// let output = "The user wants Paris.</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    /// let kinds: Vec<&str> = parser.parse(output.as_bytes()).iter().map(|e| match e {
    ///     Event::ReasoningStart { .. } => "reasoning-start",
    ///     Event::ReasoningDelta { .. } => "reasoning",
    ///     Event::ReasoningEnd { .. } => "reasoning-end",
    ///     Event::TextDelta { .. } => "text",
    ///     Event::ToolCall { .. } => "call",
    ///     _ => "",
    /// }).filter(|k| !k.is_empty()).collect();
    /// assert_eq!(kinds, ["reasoning-start", "reasoning", "reasoning-end", "text", "call"]);
    /// # Ok::<(), toolsieve::Error>(())
    /// ```
    pub fn reasoning(mut self, reasoning: impl Into<Option<Reasoning>>) -> Self {
        self.reasoning = reasoning.into();
        self
    }

    /// `format`'s start markers and automaton, with this builder's
    /// delimiters, tools and limits.
    fn automaton_of(
        &self,
        format: crate::Format,
    ) -> Result<(Vec<crate::scan::marker::Marker>, Automaton), crate::Error> {
        let delimiters = self
            .delimiters
            .as_ref()
            .map(|(s, e)| (s.as_str(), e.as_str()));
        format.automaton(delimiters, &self.tools, &self.limits)
    }

    /// Without calls read, the call markers of the format asked for, if
    /// they end `reasoning` (as text); none for a format whose markers
    /// are its tools' names and no tool list.
    fn markers_ending_reasoning(&self, reasoning: &Reasoning) -> Vec<crate::scan::marker::Marker> {
        match self.calls_format {
            Some(format) if !self.calls && reasoning.ends_at_calls => self
                .automaton_of(format)
                .map_or_else(|_| Vec::new(), |(markers, _)| markers),
            _ => Vec::new(),
        }
    }

    /// Builds the parser.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidMarker`](crate::Error::InvalidMarker) for empty or
    /// conflicting markers, [`Error::ToolsRequired`](crate::Error::ToolsRequired)
    /// for formats that need the tool list.
    pub fn build(mut self) -> Result<Parser, crate::Error> {
        self.tools = with_refs_inlined(self.tools);
        let (markers, automaton) = self.automaton_of(self.format)?;
        let markers = if self.calls { markers } else { Vec::new() };
        let ending = self
            .reasoning
            .as_ref()
            .map(|r| self.markers_ending_reasoning(r))
            .unwrap_or_default();
        let (markers, think) = match self.reasoning {
            Some(reasoning) => {
                let (markers, think) = Think::new(markers, ending, reasoning)?;
                (markers, Some(Box::new(think)))
            }
            None => (
                MarkerSet::new(markers).map_err(crate::Error::InvalidMarker)?,
                None,
            ),
        };
        let reasoning_longest = think.as_ref().map_or(0, |t| t.other.longest());
        let held = Vec::with_capacity(markers.longest().max(reasoning_longest));
        let lead = match self.bare_call_at_start {
            false => None,
            true => match automaton.bare_lead(self.limits.max_depth) {
                Some(lead) => Some(Box::new(lead)),
                None => return Err(crate::Error::InvalidMarker(MarkerError::NoBareCall)),
            },
        };
        let starts_open = think.as_ref().is_some_and(|t| t.reasoning.starts_open);
        let initial = if starts_open {
            State::Open
        } else if lead.is_some() {
            State::Lead
        } else {
            State::Text
        };
        #[cfg(feature = "validate")]
        let schemas = match self.validate && !self.tools.is_empty() {
            true => Some(Arc::new(crate::validate::Schemas::compile(&self.tools)?)),
            false => None,
        };
        let mut parser = Parser {
            markers,
            automaton,
            core: Core::new(Settings {
                params: ParamTable::new(self.tools.len()),
                tools: self.tools,
                #[cfg(feature = "validate")]
                schemas,
                limits: self.limits,
                on_invalid: self.on_invalid,
            }),
            state: initial,
            lead_left_at: None,
            lead_after_reasoning: false,
            held,
            offset: 0,
            misses: Misses::default(),
            initial,
            lead,
            lead_call: false,
            think,
            in_string: false,
        };
        parser.start_stream();
        Ok(parser)
    }
}

/// Coercion reads the types behind `$ref`s: the parser keeps its own copy
/// of the schemas that have them, with the references inlined (the list
/// as it is when none has).
fn with_refs_inlined(tools: Arc<[Tool]>) -> Arc<[Tool]> {
    let inlined: Vec<Option<serde_json::Value>> = tools
        .iter()
        .map(|t| crate::coerce::inline_local_refs(&t.parameters))
        .collect();
    if inlined.iter().all(Option::is_none) {
        return tools;
    }
    tools
        .iter()
        .zip(inlined)
        .map(|(t, inlined)| match inlined {
            Some(parameters) => t.clone().with_parameters(parameters),
            None => t.clone(),
        })
        .collect()
}

impl Think {
    /// The set in use at the start (text) and the reasoning setup, from
    /// the format's call markers (`calls`), or with calls not read, the
    /// markers that only end reasoning (`ending`, kept as text).
    fn new(
        calls: Vec<crate::scan::marker::Marker>,
        ending: Vec<crate::scan::marker::Marker>,
        reasoning: Reasoning,
    ) -> Result<(MarkerSet, Think), crate::Error> {
        use crate::scan::marker::{Boundary, Marker};
        if reasoning.start.is_empty() || reasoning.end.is_empty() {
            return Err(crate::Error::InvalidMarker(MarkerError::EmptyReasoningTag));
        }
        let tag = |t: &str| Marker {
            bytes: Cow::Owned(t.as_bytes().to_vec()),
            boundary: Boundary::None,
        };
        let calls_as_text = !ending.is_empty();
        let mut inside = if reasoning.calls_inside || reasoning.ends_at_calls {
            calls.clone()
        } else {
            Vec::new()
        };
        inside.extend(ending);
        inside.push(tag(&reasoning.end));
        let mut outside = calls;
        outside.push(tag(&reasoning.start));
        let (tag, other_tag) = (outside.len() - 1, inside.len() - 1);
        let clash = |e| {
            crate::Error::InvalidMarker(match e {
                MarkerError::PrefixOfAnother => MarkerError::ReasoningTagClash,
                other => other,
            })
        };
        let text_set = MarkerSet::new(outside).map_err(clash)?;
        let think = Think {
            reasoning,
            other: MarkerSet::new(inside).map_err(clash)?,
            other_misses: Misses::default(),
            tag,
            other_tag,
            calls_as_text,
        };
        Ok((text_set, think))
    }
}

impl Parser {
    /// A parser for `format` with default limits and no tool list.
    ///
    /// # Panics
    ///
    /// Never for the formats that need no tool list; for those that do
    /// (`morph-xml`), use [`Parser::builder`] and handle the error.
    pub fn new(format: crate::Format) -> Parser {
        match Parser::builder(format).build() {
            Ok(parser) => parser,
            Err(e) => panic!("{e}"),
        }
    }

    /// Starts configuring a parser for `format`.
    pub fn builder(format: crate::Format) -> ParserBuilder {
        ParserBuilder {
            format,
            tools: Arc::from(Vec::new()),
            limits: Limits::default(),
            on_invalid: OnInvalid::default(),
            delimiters: None,
            bare_call_at_start: format.spec().bare_calls_at_start,
            reasoning: format.default_reasoning(),
            calls: true,
            calls_format: None,
            #[cfg(feature = "validate")]
            validate: false,
        }
    }

    /// The most bytes held back outside a call (the longest marker, plus
    /// one byte where a marker must be followed by a boundary).
    pub fn max_held_back(&self) -> usize {
        let reasoning = self.think.as_ref().map_or(0, |t| t.other.longest());
        self.markers.longest().max(reasoning)
    }

    /// Bytes currently held back (a possible marker prefix, or a call in
    /// progress).
    pub fn held_back(&self) -> usize {
        self.held.len() + self.core.raw.len()
    }

    /// Feeds the next chunk of the stream; `sink` receives the events it
    /// completes, in order.
    ///
    /// Text that cannot begin a marker is emitted before this returns. Text
    /// and argument deltas borrow from `chunk` where they lie inside it.
    ///
    /// # Complexity
    ///
    /// O(`chunk.len()`) amortised: outside a call one memchr pass plus a
    /// short comparison per candidate byte; inside one, each byte is scanned
    /// once by the format's automaton. No allocation on text-only input.
    ///
    /// # Panics
    ///
    /// Never, whatever the bytes (invalid UTF-8 included).
    #[inline]
    pub fn feed<'c, S>(&mut self, chunk: &'c [u8], sink: &mut S)
    where
        S: FnMut(Event<'c>),
    {
        // Token-sized text where no marker can start: nothing to hold or
        // look for, and plain ASCII needs no decoding either. A token that
        // goes on with a string argument needs no automaton: sent as it is,
        // without the set-up of the general path.
        if chunk.len() <= FAST_TEXT_MAX {
            if self.state == State::Text {
                let done = match self.held.len() {
                    0 => self.small_text(chunk, sink),
                    1 => self.small_text_after_held(chunk, sink),
                    _ => self.more_of_held_marker(chunk),
                };
                if done {
                    self.offset += chunk.len() as u64;
                    return;
                }
            } else if self.in_string && self.string_bytes(chunk, sink) {
                return;
            }
        }
        self.feed_general(chunk, None, sink);
    }

    /// A token-sized chunk of text with nothing held before it, if no
    /// marker can start in it (or only at its last byte, which is then
    /// held): sent, and `true`. `false` (nothing done) otherwise.
    #[inline(always)]
    fn small_text<'c, S: FnMut(Event<'c>)>(&mut self, chunk: &'c [u8], sink: &mut S) -> bool {
        match self.markers.classify_small(chunk) {
            Small::PlainAscii(text) if self.core.text.carry.is_empty() => {
                if !text.is_empty() {
                    self.core.text.delta(Delta::borrowed(text), sink);
                }
                true
            }
            Small::MayStartMarker => self.small_text_held_at_end(chunk, sink),
            _ => {
                self.core.text.push(chunk, self.offset, sink);
                true
            }
        }
    }

    /// A token-sized chunk whose last byte alone may start a marker
    /// (`a <`), or that ends inside a marker beginning in it (`\n<to`):
    /// the text before it sent, the rest held. `false` (nothing done)
    /// when a marker may begin elsewhere, or is complete in the chunk.
    #[inline(never)]
    fn small_text_held_at_end<'c, S: FnMut(Event<'c>)>(
        &mut self,
        chunk: &'c [u8],
        sink: &mut S,
    ) -> bool {
        if !self.markers.only_last_may_start(chunk) {
            // More than the last byte: the chunk may end inside a marker
            // that begins in it (`\n<to`).
            let Some(at) = self.markers.held_tail_at(chunk) else {
                return false;
            };
            let (text, tail) = chunk.split_at(at);
            self.core.text.push(text, self.offset, sink);
            self.held.extend_from_slice(tail);
            return true;
        }
        let Some((&last, text)) = chunk.split_last() else {
            return false;
        };
        self.core.text.push(text, self.offset, sink);
        self.held.push(last);
        true
    }

    /// A token-sized chunk after one held byte that it shows begins no
    /// marker (`<` then ` b`): the byte sent as text, then the chunk as
    /// [`small_text`](Self::small_text) sends it. `false` when the held
    /// byte may go on as a marker, or the chunk is not small text; the
    /// held byte is then sent or still held, and the chunk not touched.
    #[inline(never)]
    fn small_text_after_held<'c, S: FnMut(Event<'c>)>(
        &mut self,
        chunk: &'c [u8],
        sink: &mut S,
    ) -> bool {
        let Some(held) = self.markers.refuted_first_byte(&self.held, chunk) else {
            return self.more_of_held_marker(chunk);
        };
        self.core.text.push(held, self.offset - 1, sink);
        self.held.clear();
        self.small_text(chunk, sink)
    }

    /// A token-sized chunk that goes on with the marker the held bytes
    /// begin, without completing it: held in turn, and `true`, with no
    /// need to scan the chunk or look at every marker (see
    /// [`MarkerSet::continues_held`]). `false`, nothing done, otherwise.
    #[inline(never)]
    fn more_of_held_marker(&mut self, chunk: &[u8]) -> bool {
        let goes_on = self.markers.continues_held(&self.held, chunk);
        if goes_on {
            self.held.extend_from_slice(chunk);
        }
        goes_on
    }

    /// A chunk that continues the string argument the last one ended in
    /// (`in_string`), if it only does: sent as the next delta, after the
    /// code point the last chunk cut off, if one did (CJK text split into
    /// tokens of bytes). `false` (nothing done) otherwise.
    #[inline(always)]
    fn string_bytes<'c, S: FnMut(Event<'c>)>(&mut self, chunk: &'c [u8], sink: &mut S) -> bool {
        use crate::scan::json::{string_part, StringPart};
        // A chunk that reaches the size limit is the automaton's to decide.
        if chunk.is_empty() || chunk.len() >= self.core.raw.room() {
            return false;
        }
        let offset = self.offset;
        let core = &mut self.core;
        match string_part(chunk) {
            StringPart::Ascii(text) if core.out.delta_carry.is_empty() => {
                core.send_verbatim(Delta::borrowed(text), offset, (chunk, offset), sink);
            }
            StringPart::Ends => return false,
            // Invalid UTF-8 is the automaton's to report.
            _ if !send_string_text(core, chunk, offset, sink) => return false,
            _ => {}
        }
        core.raw.append(chunk);
        self.offset += chunk.len() as u64;
        true
    }

    /// [`feed`](Parser::feed) past its fast paths; kept out of line so the
    /// fast paths stay a small function. `text` is `chunk` when the caller
    /// gave it as `&str`.
    #[inline(never)]
    fn feed_general<'c, S: FnMut(Event<'c>)>(
        &mut self,
        chunk: &'c [u8],
        text: Option<&'c str>,
        sink: &mut S,
    ) {
        // A token inside a string argument took `feed`'s fast path, or
        // ends the string here.
        self.in_string = false;
        if self.state == State::Call && self.steady_call_bytes(chunk, sink) {
            self.offset += chunk.len() as u64;
            return;
        }
        self.run(chunk, text, sink);
        self.offset += chunk.len() as u64;
    }

    /// A chunk in the middle of a call that needs none of the automaton's
    /// machinery (see [`Automaton::steady`]): consumed here, emitted as one
    /// delta if it is one. `false` (and the chunk still to be run) otherwise.
    #[inline]
    fn steady_call_bytes<'c, S: FnMut(Event<'c>)>(
        &mut self,
        chunk: &'c [u8],
        sink: &mut S,
    ) -> bool {
        let core = &mut self.core;
        // A chunk that reaches the size limit must be decided by the
        // automaton (`CallCx::at_limit`).
        let below_limit = chunk.len() < core.raw.room();
        if chunk.is_empty() || !below_limit || !self.held.is_empty() {
            return false;
        }
        let call = InCall {
            started: core.out.call.is_some(),
            carried: !core.out.delta_carry.is_empty(),
        };
        match self.automaton.steady(chunk, self.offset, call) {
            Steady::No => return false,
            Steady::Quiet => {}
            Steady::Delta(text) => {
                // Automata stream arguments only once the call has started.
                debug_assert!(core.out.call.is_some());
                core.send_verbatim(
                    Delta::borrowed(text),
                    self.offset,
                    (chunk, self.offset),
                    sink,
                );
            }
            Steady::Verbatim { in_string } => {
                debug_assert!(core.out.call.is_some());
                // The common case: whole code points, nothing carried.
                let plain = match core.out.delta_carry.is_empty() {
                    true => crate::scan::utf8::validate_token(chunk).ok(),
                    false => None,
                };
                match plain {
                    Some(text) => {
                        core.send_verbatim(
                            Delta::borrowed(text),
                            self.offset,
                            (chunk, self.offset),
                            sink,
                        );
                        self.in_string = in_string;
                    }
                    None => {
                        let decoded =
                            verbatim_split(core, &mut self.automaton, chunk, self.offset, sink);
                        self.in_string = in_string && decoded;
                    }
                }
            }
            Steady::Escaped(text) => {
                debug_assert!(core.out.call.is_some());
                send_escaped(core, text, (chunk, self.offset), sink);
            }
            Steady::Cut(cut) => {
                debug_assert!(core.out.call.is_some());
                send_cut(core, cut, (chunk, self.offset), sink);
            }
            Steady::AfterLineBreak(after) => {
                debug_assert!(core.out.call.is_some());
                send_after_break(core, after, (chunk, self.offset), sink);
            }
            Steady::AfterComma { comma, at, text } => {
                debug_assert!(core.out.call.is_some());
                core.send_verbatim(Delta::borrowed(comma), at, (chunk, self.offset), sink);
                core.send_verbatim(
                    Delta::borrowed(text),
                    self.offset,
                    (chunk, self.offset),
                    sink,
                );
            }
        }
        core.raw.append(chunk);
        true
    }

    /// Processes `chunk`, which starts at stream offset `self.offset` (and
    /// is `text`, if known to be UTF-8). Out of line, so that the steady path
    /// of [`feed_general`](Self::feed_general) stays small.
    #[inline(never)]
    fn run<'c, S: FnMut(Event<'c>)>(
        &mut self,
        chunk: &'c [u8],
        text: Option<&'c str>,
        sink: &mut S,
    ) {
        let mut i = 0;
        while i < chunk.len() {
            // At the start of open reasoning the held bytes are its own.
            if !self.held.is_empty() && self.state != State::Open {
                i += self.resolve_held(&chunk[i..], self.offset + i as u64, sink);
                continue;
            }
            i = match self.state {
                State::Open => self.open_reasoning(chunk, i, sink),
                State::Lead => self.lead(chunk, i, sink),
                State::Text => self.scan_text(chunk, text, i, sink),
                State::Call => self.advance_call(chunk, i, sink),
            };
        }
    }

    /// The first bytes of a stream that starts inside reasoning: its
    /// reasoning part opens, and a start tag there is markup — the model
    /// wrote the tag that the chat template was to open (a template that
    /// does not, or a model that writes it again), after whitespace too.
    /// Bytes that may still be the tag are held; from the first that
    /// cannot, the stream is read as reasoning, those held included.
    /// Returns where reading goes on.
    #[cold]
    #[inline(never)]
    fn open_reasoning<'c, S: FnMut(Event<'c>)>(
        &mut self,
        chunk: &'c [u8],
        i: usize,
        sink: &mut S,
    ) -> usize {
        if self.core.text.open.is_none() {
            self.core.text.open(sink);
        }
        let tag = self
            .think
            .as_deref()
            .map_or(&b""[..], |t| t.reasoning.start.as_bytes());
        let matched = self.held.len();
        let rest = &chunk[i..];
        // Whitespace before the tag (`\n<think>`, as some models write it)
        // is reasoning and leaves the tag still to come: sent at once.
        let blank = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if matched == 0 && blank > 0 {
            self.core
                .text
                .push(&rest[..blank], self.offset + i as u64, sink);
            return i + blank;
        }
        let n = tag.len().saturating_sub(matched).min(rest.len());
        if matched < tag.len() && rest[..n] == tag[matched..matched + n] {
            if matched + n < tag.len() {
                self.held.extend_from_slice(&rest[..n]);
                return i + n;
            }
            let end = self.offset + (i + n) as u64;
            self.held.clear();
            sink(Event::Markup {
                span: Span {
                    start: end - tag.len() as u64,
                    end,
                },
            });
            self.state = State::Text;
            return i + n;
        }
        self.state = State::Text;
        if matched > 0 {
            // A prefix of the tag, and then not the tag: reasoning (or the
            // start of a marker), read again as any text is.
            let back = std::mem::take(&mut self.held);
            self.rescan_owned(&back, self.offset + i as u64, sink);
            if self.held.is_empty() {
                // Keep the buffer's room: a stream allocates nothing here.
                self.held = back;
                self.held.clear();
            }
        }
        i
    }

    /// Scans `back` again — bytes a call attempt consumed and gave back —
    /// as if it had not been consumed; it ends at stream offset `end`.
    /// Events from it are owned (the bytes are the parser's, not the
    /// caller's chunk). Bounded: `back` is part of what one call attempt
    /// read, and every attempt inside it consumes at least its marker.
    fn rescan_owned<'c, S: FnMut(Event<'c>)>(&mut self, back: &[u8], end: u64, sink: &mut S) {
        if back.is_empty() {
            return;
        }
        let saved = self.offset;
        self.offset = end - back.len() as u64;
        let mut owned = |e: Event<'_>| sink(e.into_owned());
        // A trait object, so that a rescan inside a rescan does not make a
        // new closure type (and the compiler an endless chain of them).
        let mut dyn_sink: &mut dyn FnMut(Event<'_>) = &mut owned;
        self.run(back, None, &mut dyn_sink);
        self.offset = saved;
    }

    /// [`feed`](Parser::feed) for string chunks. Text in them is not
    /// validated again: a long `&str` chunk of prose costs little more than
    /// the search for a marker.
    #[inline]
    pub fn feed_str<'c, S>(&mut self, chunk: &'c str, sink: &mut S)
    where
        S: FnMut(Event<'c>),
    {
        if chunk.len() <= FAST_TEXT_MAX {
            return self.feed(chunk.as_bytes(), sink);
        }
        self.feed_general(chunk.as_bytes(), Some(chunk), sink);
    }

    /// Ends the stream: flushes held-back text, recovers or gives back the
    /// call in progress, closes the open text part. The parser is then ready
    /// for a new stream (ids and offsets start again from 0).
    pub fn finish<'c, S>(&mut self, sink: &mut S)
    where
        S: FnMut(Event<'c>),
    {
        // Given-back bytes are scanned again, and may hold another call
        // that the end of the stream must finish in turn.
        while self.state == State::Call {
            let mut cx = CallCx {
                core: &mut self.core,
                sink,
                base: self.offset,
                chunk: &[],
                at_limit: false,
                pending: None,
            };
            let outcome = self.automaton.finish(&mut cx);
            cx.flush();
            self.core.raw.trim_delivered();
            let end = self.offset;
            let back = match outcome {
                Outcome::More => {
                    let f = Failure::new(
                        DiagnosticKind::UnfinishedCall,
                        end,
                        "the stream ended inside a call",
                    );
                    self.fail_call(f, sink);
                    GivenBack::new()
                }
                ended => self.settle(ended, end, (&[], end), sink),
            };
            self.rescan_owned(&back, end, sink);
        }
        let held = std::mem::take(&mut self.held);
        let base = self.offset - held.len() as u64;
        self.core.text.push_owned(&held, base, sink);
        self.held = held;
        self.held.clear();
        self.core.text.flush_carry(sink);
        if self.core.text.reasoning && self.core.text.open.is_some() {
            sink(Event::Diagnostic(Diagnostic::new(
                DiagnosticKind::UnclosedReasoning,
                self.offset,
                "the stream ended inside reasoning",
            )));
        }
        self.core.text.close(sink);
        self.start_stream();
    }

    /// Abandons the stream in progress without a word: held-back text and
    /// a call in progress are dropped, no event is emitted, and the parser
    /// is ready for a new stream, as after [`finish`](Parser::finish) (a
    /// server whose client went away reuses it so). Buffers keep their
    /// allocations.
    ///
    /// ```
    /// use toolsieve::{Format, Parser};
    ///
    /// let mut parser = Parser::new(Format::Hermes);
    /// parser.feed_str("Let me see. <tool_call>{\"name\": \"a\", ", &mut |_| {});
    /// parser.reset();
    /// let events = parser.parse(b"Fresh start.");
    /// assert_eq!(events, Parser::new(Format::Hermes).parse(b"Fresh start."));
    /// ```
    pub fn reset(&mut self) {
        self.start_stream();
    }

    /// Readies the parser for a new stream: ids and offsets from 0,
    /// nothing held, no call.
    fn start_stream(&mut self) {
        self.in_string = false;
        self.held.clear();
        let starts_open = self.initial == State::Open;
        if self.core.text.reasoning != starts_open {
            self.swap_marker_sets();
        }
        self.core.start_stream(starts_open);
        self.offset = 0;
        self.misses.clear();
        if let Some(think) = self.think.as_deref_mut() {
            think.other_misses.clear();
        }
        self.leave_lead_call();
        self.state = self.initial;
        self.lead_left_at = None;
        self.lead_after_reasoning = starts_open && self.leads_after_reasoning();
        if self.initial == State::Call {
            self.enter_bare_call();
        }
    }

    /// A parser whose stream is one bare JSON call `{"name", "arguments"}`
    /// (no markers), as a model constrained by a JSON schema writes it;
    /// anything after it, or the whole output if it is not such a call, is
    /// text. With a tool list, a call to another tool is text too (with an
    /// [`UnknownTool`](DiagnosticKind::UnknownTool) diagnostic): the reader
    /// a gateway needs for a forced `tool_choice`.
    ///
    /// ```
    /// use toolsieve::{Event, Limits, Parser, Tool};
    ///
    /// let tools = vec![Tool::new("get_weather")];
    /// let mut parser = Parser::bare_json_call(tools, Limits::default());
    /// let events = parser.parse(br#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#);
    /// assert!(events.iter().any(|e| matches!(e, Event::ToolCall { tool_name, .. } if tool_name == "get_weather")));
    /// ```
    pub fn bare_json_call(tools: impl Into<Arc<[Tool]>>, limits: Limits) -> Parser {
        let tools = tools.into();
        let automaton = Automaton::bare_json(limits.max_depth);
        let mut parser = Parser {
            markers: MarkerSet::empty(),
            automaton,
            core: Core::new(Settings {
                params: ParamTable::new(tools.len()),
                tools,
                #[cfg(feature = "validate")]
                schemas: None,
                limits,
                on_invalid: OnInvalid::KeepAsText,
            }),
            state: State::Text,
            lead_left_at: None,
            lead_after_reasoning: false,
            held: Vec::new(),
            offset: 0,
            misses: Misses::default(),
            initial: State::Call,
            lead: None,
            lead_call: false,
            think: None,
            in_string: false,
        };
        parser.enter_bare_call();
        parser
    }

    /// Whether the parser stands in plain text: outside any call and
    /// reasoning, with no byte held back, so the next byte continues
    /// nothing that came before. A gateway that gives up on a format at
    /// such a point (to try another reader on the rest) loses nothing.
    pub fn at_plain_text(&self) -> bool {
        self.state == State::Text && self.held.is_empty() && !self.core.text.reasoning
    }

    /// A parser that recognises no call and no reasoning: text in, text
    /// out, with invalid UTF-8 replaced and reported as everywhere else.
    pub fn text_only() -> Parser {
        let mut parser = Parser::bare_json_call(Vec::new(), Limits::default());
        parser.initial = State::Text;
        parser.state = State::Text;
        parser
    }

    fn enter_bare_call(&mut self) {
        self.core.raw.begin_bare();
        self.automaton.begin(0);
        self.state = State::Call;
    }

    /// Parses a whole input at once: the same automaton as streaming, so the
    /// result equals any chunked run once adjacent deltas are merged.
    pub fn parse<'c>(&mut self, input: &'c [u8]) -> Vec<Event<'c>> {
        let mut events = Vec::new();
        let mut sink = |e| events.push(e);
        self.feed(input, &mut sink);
        self.finish(&mut sink);
        events
    }

    /// [`parse`](Parser::parse) for text already known to be UTF-8: it is
    /// not validated again, so a `&str` of prose costs little more than
    /// the search for a marker. The events are the same as `parse` gives
    /// for its bytes.
    ///
    /// ```
    /// use toolsieve::{Event, Format, Parser};
    ///
    /// let output = "Checking.<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>";
    /// let events = Parser::new(Format::Hermes).parse_str(output);
    /// assert_eq!(events, Parser::new(Format::Hermes).parse(output.as_bytes()));
    /// assert!(events.iter().any(|e| matches!(e, Event::ToolCall { .. })));
    /// ```
    ///
    /// # Complexity
    ///
    /// O(`input.len()`), as [`feed`](Parser::feed).
    pub fn parse_str<'c>(&mut self, input: &'c str) -> Vec<Event<'c>> {
        let mut events = Vec::new();
        let mut sink = |e| events.push(e);
        self.feed_str(input, &mut sink);
        self.finish(&mut sink);
        events
    }

    /// Resolves the held bytes, which lie just before `tail` (at stream
    /// offset `tail_offset`); returns how many bytes of `tail` that used.
    fn resolve_held<'c, S: FnMut(Event<'c>)>(
        &mut self,
        tail: &'c [u8],
        tail_offset: u64,
        sink: &mut S,
    ) -> usize {
        let chunk = tail;
        loop {
            match self.markers.check_held(&self.held, chunk) {
                Ok(index) if self.is_reasoning_tag(index) => {
                    let len = self.markers.marker(index).bytes.len();
                    let from_chunk = len.saturating_sub(self.held.len());
                    let tag_at = tail_offset - self.held.len() as u64;
                    self.held.clear();
                    self.switch_reasoning(tag_at, sink);
                    return from_chunk;
                }
                Ok(index) => {
                    let len = self.markers.marker(index).bytes.len();
                    // Markers never shadow each other, and given-back bytes
                    // never hold a whole marker, so the held bytes all
                    // belong to this one.
                    debug_assert!(self.held.len() <= len);
                    let from_chunk = len.saturating_sub(self.held.len());
                    let at = tail_offset - self.held.len() as u64;
                    if self.end_reasoning_at_call(sink) {
                        let held = std::mem::take(&mut self.held);
                        self.core.text.push_owned(&held, at, sink);
                        self.core.text.push(&chunk[..from_chunk], tail_offset, sink);
                        self.held = held;
                        self.held.clear();
                        return from_chunk;
                    }
                    self.core.raw.begin(at, &self.held, &chunk[..from_chunk]);
                    self.held.clear();
                    self.begin_call(index, sink);
                    return from_chunk;
                }
                Err(true) => {
                    self.held.extend_from_slice(chunk);
                    return chunk.len();
                }
                Err(false) => {
                    let cut = self.markers.next_start_after_first(&self.held);
                    let base = tail_offset - self.held.len() as u64;
                    let released = &self.held[..cut];
                    match self.markers.static_prefix(released) {
                        Some(text) => self.core.text.push(text, base, sink),
                        None => self.core.text.push_owned(released, base, sink),
                    }
                    self.held.drain(..cut);
                    if self.held.is_empty() {
                        return 0;
                    }
                }
            }
        }
    }

    #[inline]
    fn scan_text<'c, S: FnMut(Event<'c>)>(
        &mut self,
        chunk: &'c [u8],
        text: Option<&'c str>,
        i: usize,
        sink: &mut S,
    ) -> usize {
        let base = self.offset + i as u64;
        let rest = &chunk[i..];
        // Text before `end`, as `&str` without validation when the chunk is
        // one and the range falls on char boundaries (markers start on one).
        let emit = |core: &mut Core, end: usize, sink: &mut S| match text
            .and_then(|s| s.get(i..i + end))
        {
            Some(s) if core.text.carry.is_empty() => {
                if !s.is_empty() {
                    core.text.delta(Delta::borrowed(s), sink);
                }
            }
            _ => core.text.push(&rest[..end], base, sink),
        };
        match self.markers.find(rest, base, &mut self.misses) {
            Found::None => {
                emit(&mut self.core, rest.len(), sink);
                chunk.len()
            }
            Found::Partial { at } => {
                emit(&mut self.core, at, sink);
                self.held.extend_from_slice(&rest[at..]);
                chunk.len()
            }
            Found::Marker { at, index } if self.is_reasoning_tag(index) => {
                emit(&mut self.core, at, sink);
                let len = self.markers.marker(index).bytes.len();
                self.switch_reasoning(base + at as u64, sink);
                i + at + len
            }
            Found::Marker { at, index } => {
                emit(&mut self.core, at, sink);
                // Before the sets may swap: `index` is of the set in use.
                let len = self.markers.marker(index).bytes.len();
                if self.end_reasoning_at_call(sink) {
                    let marker = &rest[at..at + len];
                    self.core.text.push(marker, base + at as u64, sink);
                    return i + at + len;
                }
                self.core
                    .raw
                    .begin(base + at as u64, &[], &rest[at..at + len]);
                self.begin_call(index, sink);
                i + at + len
            }
        }
    }

    /// Whether marker `index` of the set in use is a reasoning tag.
    #[inline]
    fn is_reasoning_tag(&self, index: usize) -> bool {
        self.think.as_ref().is_some_and(|t| t.tag == index)
    }

    /// A call's marker was found: inside reasoning that calls end (see
    /// [`Reasoning::ends_at_calls`]), the reasoning part ends there, and
    /// the call and what follows it are read as in text (the call
    /// markers keep their indices in the text set). `true` when calls are
    /// not read: the marker is then text.
    fn end_reasoning_at_call<'c, S: FnMut(Event<'c>)>(&mut self, sink: &mut S) -> bool {
        let Some(think) = self.think.as_deref() else {
            return false;
        };
        let as_text = think.calls_as_text;
        if think.reasoning.ends_at_calls && self.core.text.reasoning {
            // A call opens the answer: no bare call is looked for after it.
            // (The tag's offset matters only when reasoning begins.)
            self.lead_after_reasoning = false;
            self.switch_reasoning(self.offset, sink);
        }
        as_text
    }

    /// A reasoning tag was consumed: the open part ends, the stream goes
    /// into or out of reasoning, and the other marker set takes over. A
    /// reasoning part opens at its tag, so that every `reasoning-start`
    /// but one at the very start of a stream stands for a start tag.
    /// `tag_at` is the stream offset of the tag's first byte.
    #[cold]
    fn switch_reasoning<'c, S: FnMut(Event<'c>)>(&mut self, tag_at: u64, sink: &mut S) {
        let text = &mut self.core.text;
        text.flush_carry(sink);
        text.close(sink);
        text.reasoning = !text.reasoning;
        if text.reasoning {
            text.open(sink);
            self.lead_after_reasoning =
                self.lead_left_at == Some(tag_at) && self.leads_after_reasoning();
        } else if std::mem::take(&mut self.lead_after_reasoning) {
            // The answer begins: a bare call may open it.
            self.state = State::Lead;
        }
        self.swap_marker_sets();
    }

    fn swap_marker_sets(&mut self) {
        if let Some(think) = self.think.as_deref_mut() {
            std::mem::swap(&mut self.markers, &mut think.other);
            std::mem::swap(&mut self.misses, &mut think.other_misses);
            std::mem::swap(&mut think.tag, &mut think.other_tag);
        }
    }

    /// How this parser separates reasoning, if it does.
    pub fn reasoning(&self) -> Option<&Reasoning> {
        self.think.as_ref().map(|t| &t.reasoning)
    }

    fn begin_call<'c, S: FnMut(Event<'c>)>(&mut self, marker: usize, sink: &mut S) {
        // A code point cannot continue across a marker.
        self.core.text.flush_carry(sink);
        self.core.raw.begin_span();
        self.automaton.begin(marker);
        self.state = State::Call;
    }

    fn advance_call<'c, S: FnMut(Event<'c>)>(
        &mut self,
        chunk: &'c [u8],
        i: usize,
        sink: &mut S,
    ) -> usize {
        let room = self.core.raw.room();
        let end = chunk.len().min(i.saturating_add(room));
        let slice = &chunk[i..end];
        let base = self.offset + i as u64;
        let mut cx = CallCx {
            core: &mut self.core,
            sink,
            base,
            chunk: slice,
            at_limit: slice.len() == room,
            pending: None,
        };
        let (used, outcome) = self.automaton.advance(slice, &mut cx);
        cx.flush();
        let used = used.min(slice.len());
        self.core.raw.append(&slice[..used]);
        self.core.raw.trim_delivered();
        let at = base + used as u64;
        match outcome {
            Outcome::More if end < chunk.len() || (room == 0 && i < chunk.len()) => {
                let limit = self.core.settings.limits.max_call_bytes;
                self.fail_call(
                    Failure::new(
                        DiagnosticKind::CallTooLarge,
                        at,
                        format!("the call is longer than {limit} bytes"),
                    ),
                    sink,
                );
            }
            Outcome::More => {}
            ended => {
                let back = self.settle(ended, at, (slice, base), sink);
                self.rescan_owned(&back, at, sink);
            }
        }
        i + used
    }

    /// The attempt ended at stream offset `end` (`chunk` at stream offset
    /// `base` in hand) with `outcome`: delivers, reports or drops it, and
    /// returns the bytes it gave back, to be scanned again. Once per
    /// call: kept out of the feed loop.
    #[inline(never)]
    fn settle<'c, S: FnMut(Event<'c>)>(
        &mut self,
        outcome: Outcome,
        end: u64,
        chunk: (&'c [u8], u64),
        sink: &mut S,
    ) -> GivenBack {
        match outcome {
            Outcome::More => GivenBack::new(),
            Outcome::Complete { give_back } => {
                let back = self.core.raw.take_back(give_back);
                self.complete_call(end - back.len() as u64, chunk, sink);
                back
            }
            Outcome::Markup { give_back } => {
                let back = self.core.raw.take_back(give_back);
                match self.core.out.call {
                    None => self.markup(sink),
                    Some(_) => self.fail_call(
                        Failure::new(
                            DiagnosticKind::MalformedCall,
                            end,
                            "the call went on as the format's markup",
                        ),
                        sink,
                    ),
                }
                back
            }
            Outcome::NotACall { read } => {
                let back = self.core.raw.take_back(read);
                if self.core.out.call.is_none() && self.core.raw.is_empty() {
                    // All it read was given back: nothing to report.
                    self.end_attempt();
                } else {
                    let f = Failure::new(DiagnosticKind::MalformedCall, end, "not a tool call");
                    self.fail_call(f, sink);
                }
                back
            }
            Outcome::Failed(f) => {
                let back = self.core.raw.take_back(f.give_back);
                self.fail_call(*f, sink);
                back
            }
        }
    }

    /// `chunk` (at stream offset `base`) is the caller's chunk in hand.
    fn complete_call<'c, S: FnMut(Event<'c>)>(
        &mut self,
        end: u64,
        chunk: (&'c [u8], u64),
        sink: &mut S,
    ) {
        if !self.core.deliver(end, chunk, sink) && !self.core.raw.is_empty() {
            let f = Failure::new(DiagnosticKind::MissingName, end, "the call names no tool");
            return self.fail_call(f, sink);
        }
        self.end_attempt();
    }

    /// The call attempt is over (delivered, failed, or not a call): its
    /// state and raw bytes go, and reading goes on in text.
    fn end_attempt(&mut self) {
        self.core.abandon_call();
        self.state = State::Text;
        self.leave_lead_call();
    }

    fn fail_call<'c, S: FnMut(Event<'c>)>(&mut self, failure: Failure, sink: &mut S) {
        let call = self.core.out.call;
        let tool_name = failure
            .name
            .or_else(|| call.map(|_| self.core.out.name.clone()));
        let span = self.core.raw.span();
        sink(Event::Diagnostic(
            Diagnostic::new(failure.kind, failure.offset, failure.message)
                .about_call(call, tool_name)
                .with_span(span),
        ));
        if let Some(id) = call {
            sink(Event::ToolInputEnd { id });
        }
        if self.core.settings.on_invalid == OnInvalid::KeepAsText {
            self.core
                .text
                .push_owned(self.core.raw.bytes(), span.start, sink);
        }
        self.end_attempt();
    }

    /// The bytes read since the marker are the format's markup: they end
    /// the text part and are neither text nor a call.
    #[cold]
    fn markup<'c, S: FnMut(Event<'c>)>(&mut self, sink: &mut S) {
        let Span { start, end } = self.core.raw.span();
        self.core.text.close_for_call(sink);
        if end > start {
            sink(Event::Markup {
                span: Span { start, end },
            });
        }
        self.end_attempt();
    }

    /// The stream's first bytes (see [`State::Lead`]): whitespace is text
    /// whatever follows (unless the lead automaton keeps it); then a byte
    /// that opens a bare call (`{` or `[`; for gpt-oss, its header going
    /// on from the prompt) starts one, read by the `lead` automaton;
    /// anything else is text.
    #[cold]
    #[inline(never)]
    fn lead<'c, S: FnMut(Event<'c>)>(&mut self, chunk: &'c [u8], i: usize, sink: &mut S) -> usize {
        let rest = &chunk[i..];
        let keeps_ws = self
            .lead
            .as_deref()
            .is_some_and(Automaton::lead_keeps_whitespace);
        let ws = match keeps_ws {
            true => 0,
            false => crate::scan::skip_ws(rest),
        };
        let base = self.offset + i as u64;
        self.core.text.push(&rest[..ws], base, sink);
        match (rest.get(ws), self.lead.as_deref_mut()) {
            (None, _) => return chunk.len(),
            (Some(&b), Some(lead)) if lead.opens_lead(b) => {
                std::mem::swap(&mut self.automaton, lead);
                self.lead_call = true;
                self.core.raw.begin(base + ws as u64, &[], &[]);
                self.begin_call(0, sink);
            }
            _ => {
                self.state = State::Text;
                self.lead_left_at = Some(base + ws as u64);
            }
        }
        i + ws
    }

    /// Whether a bare call may open the answer after the reasoning that
    /// opened the stream: for formats that read one at the output's start,
    /// but for gpt-oss, whose lead is a header going on from the prompt.
    fn leads_after_reasoning(&self) -> bool {
        self.lead
            .as_deref()
            .is_some_and(|lead| !lead.lead_keeps_whitespace())
    }

    /// A call read by the `lead` automaton is over: the format's own
    /// automaton reads the calls that follow.
    #[inline]
    fn leave_lead_call(&mut self) {
        if self.lead_call {
            self.swap_lead_back();
        }
    }

    #[cold]
    #[inline(never)]
    fn swap_lead_back(&mut self) {
        self.lead_call = false;
        if let Some(lead) = self.lead.as_deref_mut() {
            std::mem::swap(&mut self.automaton, lead);
        }
    }
}
