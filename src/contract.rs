//! Checks of the contract, for property tests and fuzz targets (toolsieve's
//! own and its users'): run a parser over a chunking, then verify the events.

use std::collections::HashMap;

use crate::event::{push_merged, Event};
use crate::Parser;

/// Runs `parser` over `input` cut at the offsets `cuts` (any order, any
/// values: they are sorted and clamped) and returns the events with adjacent
/// deltas merged: the canonical form two chunkings must agree on.
pub fn run_cuts(parser: &mut Parser, input: &[u8], cuts: &[usize]) -> Vec<Event<'static>> {
    let mut events = Vec::new();
    let mut sink = |e: Event<'_>| push_merged(&mut events, e);
    for piece in pieces(cuts, input.len(), |_| true) {
        parser.feed(&input[piece], &mut sink);
    }
    parser.finish(&mut sink);
    events
}

/// [`run_cuts`] through [`Parser::feed_str`]: each cut moves back to the
/// nearest char boundary (a `&str` chunk cannot split a code point). The
/// events must equal those of the same input fed as bytes.
pub fn run_str_cuts(parser: &mut Parser, input: &str, cuts: &[usize]) -> Vec<Event<'static>> {
    let mut events = Vec::new();
    let mut sink = |e: Event<'_>| push_merged(&mut events, e);
    for piece in pieces(cuts, input.len(), |i| input.is_char_boundary(i)) {
        parser.feed_str(&input[piece], &mut sink);
    }
    parser.finish(&mut sink);
    events
}

/// The chunks that `cuts` make of `len` bytes: sorted, clamped, each cut
/// moved back to the nearest offset where `boundary` holds (it holds at 0).
fn pieces(
    cuts: &[usize],
    len: usize,
    boundary: impl Fn(usize) -> bool,
) -> Vec<std::ops::Range<usize>> {
    let mut cuts = cuts.to_vec();
    cuts.sort_unstable();
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for cut in cuts.into_iter().chain(std::iter::once(len)) {
        let mut cut = cut.clamp(from, len);
        while cut > from && !boundary(cut) {
            cut -= 1;
        }
        pieces.push(from..cut);
        from = cut;
    }
    pieces
}

/// Checks merged `events` of `input` against the contract:
///
/// - the event grammar: deltas only inside their open part, parts never
///   nested, every part closed at the end, `tool-call` right after its
///   `tool-input-end`;
/// - deltas = input: a call's argument deltas concatenate to its `input`,
///   which is a JSON object (RFC 8259 grammar; numbers are kept as
///   written, even beyond `f64` range);
/// - nothing lost (when `keeps_text`): text deltas and the raw spans of the
///   calls, in order, rebuild the input (invalid UTF-8 as U+FFFD).
///
/// # Errors
///
/// A sentence naming the first rule broken.
pub fn check(input: &[u8], events: &[Event<'_>], keeps_text: bool) -> Result<(), String> {
    check_with(input, events, keeps_text, None)
}

/// [`check`] for a parser that separates reasoning
/// ([`Parser::reasoning`]): reasoning deltas count as input too, and so
/// do the reasoning tags, one at every `reasoning-start` (but the first
/// event of a stream that starts inside reasoning) and every
/// `reasoning-end` (but one right after an `unclosed-reasoning`
/// diagnostic). Calls may stand inside a reasoning part.
///
/// # Errors
///
/// A sentence naming the first rule broken.
pub fn check_with(
    input: &[u8],
    events: &[Event<'_>],
    keeps_text: bool,
    reasoning: Option<&crate::Reasoning>,
) -> Result<(), String> {
    let mut rebuilt = String::new();
    let mut open_text = None;
    let mut open_call = None;
    let mut open_reasoning = None;
    let mut deltas: HashMap<u32, String> = HashMap::new();
    let mut last_ended = None;
    for (index, event) in events.iter().enumerate() {
        match event {
            Event::ReasoningStart { id } => {
                let Some(tags) = reasoning else {
                    return Err(format!("{event:?} without reasoning tags"));
                };
                if open_text.is_some() || open_call.is_some() || open_reasoning.is_some() {
                    return Err(format!("{event:?} while a part is open"));
                }
                open_reasoning = Some(*id);
                if !(tags.starts_open && index == 0) {
                    rebuilt.push_str(&tags.start);
                }
            }
            Event::ReasoningDelta { id, delta } => {
                if open_reasoning != Some(*id) || open_call.is_some() || delta.is_empty() {
                    return Err(format!("{event:?} outside its part, or empty"));
                }
                rebuilt.push_str(delta);
            }
            Event::ReasoningEnd { id } => {
                if open_reasoning.take() != Some(*id) || open_call.is_some() {
                    return Err(format!("{event:?} without its start, or in a call"));
                }
                let unclosed = matches!(
                    index.checked_sub(1).map(|i| &events[i]),
                    Some(Event::Diagnostic(d)) if d.kind == crate::DiagnosticKind::UnclosedReasoning
                );
                if !unclosed {
                    rebuilt.push_str(reasoning.map_or("", |t| t.end.as_str()));
                }
            }
            Event::TextStart { id } => {
                if open_text.is_some() || open_call.is_some() || open_reasoning.is_some() {
                    return Err(format!("{event:?} while a part is open"));
                }
                open_text = Some(*id);
            }
            Event::TextDelta { id, delta } => {
                if open_text != Some(*id) || delta.is_empty() {
                    return Err(format!("{event:?} outside its part, or empty"));
                }
                rebuilt.push_str(delta);
            }
            Event::TextEnd { id } => {
                if open_text.take() != Some(*id) {
                    return Err(format!("{event:?} without its start"));
                }
            }
            Event::ToolInputStart { id, tool_name } => {
                let calls_inside = reasoning.is_some_and(|t| t.calls_inside);
                if open_text.is_some()
                    || open_call.is_some()
                    || (open_reasoning.is_some() && !calls_inside)
                    || tool_name.is_empty()
                {
                    return Err(format!("{event:?} while a part is open, or unnamed"));
                }
                open_call = Some(*id);
                deltas.insert(id.0, String::new());
            }
            Event::ToolInputDelta { id, delta } => {
                if open_call != Some(*id) {
                    return Err(format!("{event:?} outside its call"));
                }
                deltas.entry(id.0).or_default().push_str(delta);
            }
            Event::ToolInputEnd { id } => {
                if open_call.take() != Some(*id) {
                    return Err(format!("{event:?} without its start"));
                }
                last_ended = Some(*id);
            }
            Event::ToolCall {
                tool_call_id,
                input: args,
                raw_span,
                ..
            } => {
                if last_ended.take() != Some(*tool_call_id) {
                    return Err(format!("tool-call {tool_call_id} not right after its end"));
                }
                if deltas.get(&tool_call_id.0).map(String::as_str) != Some(args.as_ref()) {
                    return Err(format!("{tool_call_id}: deltas do not add up to the input"));
                }
                // RFC 8259 grammar, not serde_json's f64 range: a number
                // like 1e400 is valid JSON and passes through as written.
                let is_object = args.trim_start().starts_with('{')
                    && crate::scan::json::is_complete_value(args.as_bytes(), usize::MAX);
                if !is_object {
                    return Err(format!(
                        "{tool_call_id}: input is not a JSON object: {args}"
                    ));
                }
                let (start, end) = (raw_span.start as usize, raw_span.end as usize);
                let Some(raw) = input.get(start..end) else {
                    return Err(format!(
                        "{tool_call_id}: span {raw_span:?} outside the input"
                    ));
                };
                rebuilt.push_str(&String::from_utf8_lossy(raw));
            }
            Event::Markup { span } => {
                if open_text.is_some() || open_call.is_some() {
                    return Err(format!("{event:?} while a text part or call is open"));
                }
                let (start, end) = (span.start as usize, span.end as usize);
                let Some(raw) = input.get(start..end).filter(|r| !r.is_empty()) else {
                    return Err(format!("markup span {span:?} outside the input, or empty"));
                };
                rebuilt.push_str(&String::from_utf8_lossy(raw));
            }
            Event::Diagnostic(d) => {
                if d.offset > input.len() as u64 {
                    return Err(format!("diagnostic past the end: {d:?}"));
                }
            }
        }
    }
    if open_text.is_some() || open_call.is_some() || open_reasoning.is_some() {
        return Err("a part is left open at the end".into());
    }
    if keeps_text && rebuilt != String::from_utf8_lossy(input) {
        return Err(format!(
            "bytes were lost:\n input: {:?}\n built: {rebuilt:?}",
            String::from_utf8_lossy(input)
        ));
    }
    Ok(())
}

#[doc(hidden)]
/// A small tool list with typed schemas (`get_weather`, `get_time`,
/// `write_file`, `search`), for fuzzing formats that need one.
pub fn sample_tools() -> Vec<crate::Tool> {
    use serde_json::json;
    vec![
        crate::Tool::new("get_weather").with_parameters(json!({"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}}})),
        crate::Tool::new("get_time"),
        crate::Tool::new("write_file").with_parameters(json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}}})),
        crate::Tool::new("search").with_parameters(json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "filter": {"type": "object", "properties": {"age": {"type": "integer"}}}}})),
    ]
}

#[doc(hidden)]
/// A parser for `format`: with [`sample_tools`] where the format needs a
/// tool list, without one otherwise.
pub fn parser_for(format: crate::Format) -> Parser {
    let builder = Parser::builder(format);
    match builder.clone().build() {
        Ok(parser) => parser,
        Err(_) => builder
            .tools(sample_tools())
            .build()
            .unwrap_or_else(|e| panic!("{format}: {e}")),
    }
}

#[doc(hidden)]
/// A parser the fuzz targets pick by the two header bytes of their input
/// ([`Setup::of_header`]): a format, and for the JSON formats whether a call
/// may also open the stream without its marker (with Llama's
/// `<|python_tag|>` and no end marker for `hermes`, so that calls ending
/// with their JSON are fuzzed too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// The wire format.
    pub format: crate::Format,
    /// See [`ParserBuilder::bare_call_at_start`](crate::ParserBuilder::bare_call_at_start).
    pub bare_call_at_start: bool,
    /// `<think>` reasoning (see [`Reasoning`](crate::Reasoning)), with
    /// its `starts_open` and `calls_inside`.
    pub think: Option<(bool, bool)>,
}

#[doc(hidden)]
/// Option bit of a fuzz header: [`Setup::bare_call_at_start`].
pub const OPT_BARE_CALL: u8 = 0x80;
#[doc(hidden)]
/// Option bit of a fuzz header: `<think>` reasoning ([`Setup::think`]).
pub const OPT_THINK: u8 = 0x40;
#[doc(hidden)]
/// Option bit of a fuzz header: the stream starts inside reasoning.
pub const OPT_THINK_OPEN: u8 = 0x20;
#[doc(hidden)]
/// Option bit of a fuzz header: calls inside reasoning are delivered.
pub const OPT_CALLS_IN_THINK: u8 = 0x10;
#[doc(hidden)]
/// The bits of a fuzz header's option byte that count cut offsets
/// ([`split_case`]; at most 8 are read).
pub const OPT_CUTS: u8 = 0x0f;

impl Setup {
    /// The setup a fuzz input's header asks for: `format_id` is a
    /// [`Format::fuzz_id`](crate::Format::fuzz_id) (stable: a new format
    /// never changes what an old input means), `options` holds
    /// [`OPT_BARE_CALL`]. `None` for an id no format has.
    pub fn of_header(format_id: u8, options: u8) -> Option<Setup> {
        let think = (options & OPT_THINK != 0).then_some((
            options & OPT_THINK_OPEN != 0,
            options & OPT_CALLS_IN_THINK != 0,
        ));
        Some(Setup {
            format: crate::Format::from_fuzz_id(format_id)?,
            bare_call_at_start: options & OPT_BARE_CALL != 0,
            think,
        })
    }

    /// The parser: [`parser_for`] the format, or the bare-call variant,
    /// with reasoning tags if asked.
    pub fn parser(self) -> Parser {
        use crate::Format;
        let mut builder = Parser::builder(self.format);
        builder = match self.format {
            Format::Hermes if self.bare_call_at_start => builder
                .delimiters("<|python_tag|>", "")
                .bare_call_at_start(true),
            Format::Gemma if self.bare_call_at_start => builder.bare_call_at_start(true),
            _ => builder,
        };
        if builder.clone().build().is_err() {
            builder = builder.tools(sample_tools());
        }
        if let Some((open, calls)) = self.think {
            let reasoning = crate::Reasoning::think()
                .starting_open(open)
                .with_calls_inside(calls);
            builder = builder.reasoning(reasoning);
        }
        builder.build().unwrap_or_else(|e| panic!("{self}: {e}"))
    }
}

impl std::fmt::Display for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.format)?;
        if self.bare_call_at_start {
            f.write_str(" (bare call at start)")?;
        }
        if let Some((open, calls)) = self.think {
            write!(f, " (reasoning, open: {open}, calls inside: {calls})")?;
        }
        Ok(())
    }
}

#[doc(hidden)]
/// How the `nothing_lost` fuzz target reads its input: two header bytes
/// ([`Setup::of_header`]), then the stream.
pub fn fuzz_case(data: &[u8]) -> Option<(Setup, &[u8])> {
    let [format_id, options, input @ ..] = data else {
        return None;
    };
    Some((Setup::of_header(*format_id, *options)?, input))
}

#[doc(hidden)]
/// How the `split_invariance` fuzz target reads its input (shared with the
/// regression tests that replay its findings): two header bytes
/// ([`Setup::of_header`]), as many cut offsets (as increments) as the
/// option byte's [`OPT_CUTS`] say (at most 8), then the stream.
pub fn split_case(data: &[u8]) -> Option<(Setup, Vec<usize>, &[u8])> {
    let (setup, rest) = fuzz_case(data)?;
    let ncuts = usize::from(data[1] & OPT_CUTS).min(8).min(rest.len());
    let (cut_bytes, input) = rest.split_at(ncuts);
    let cuts = cut_bytes
        .iter()
        .scan(0usize, |at, &b| {
            *at += b as usize;
            Some(*at)
        })
        .collect();
    Some((setup, cuts, input))
}

#[doc(hidden)]
/// `text` in pieces of about `size` bytes (0: one piece), each cut moved
/// forward to a character boundary: chunkings for `&str` consumers.
pub fn char_chunks(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut cut = if size == 0 {
            rest.len()
        } else {
            size.min(rest.len())
        };
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    out
}

#[doc(hidden)]
/// `json` with a single backslash where it has an escaped one before a
/// character that no JSON escape begins with (`"\\d+"` becomes `"\d+"`):
/// regular expressions and Windows paths as models write them, for tests
/// and fuzzers to render. Not before `'`: `\'` reads as an apostrophe.
pub fn with_single_backslashes(json: &str) -> String {
    let escapes = |c: Option<char>| {
        matches!(
            c,
            Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u' | '\'')
        )
    };
    let mut out = String::with_capacity(json.len());
    let mut chars = json.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '\\' {
            let next = chars.next();
            if next != Some('\\') || escapes(chars.peek().copied()) {
                out.extend(next);
            }
        }
    }
    out
}

#[doc(hidden)]
/// `value` as Python's `repr` writes it (`{'k': True, 'n': None}`): the
/// relaxed call bodies some models write, for tests and fuzzers to render.
pub fn python_repr(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let mut out = String::from("'");
            for c in s.chars() {
                match c {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    c if u32::from(c) < 0x20 => out.push_str(&format!("\\x{:02x}", u32::from(c))),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(python_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        python_repr(&Value::String(k.clone())),
                        python_repr(v)
                    )
                })
                .collect();
            format!("{{{}}}", members.join(", "))
        }
    }
}
