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
    let mut early_ids: HashMap<u32, Option<&str>> = HashMap::new();
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
            Event::ToolInputStart {
                id,
                tool_name,
                model_call_id,
            } => {
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
                early_ids.insert(id.0, model_call_id.as_deref());
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
                id: tool_call_id,
                input: args,
                raw_span,
                model_call_id,
                ..
            } => {
                if let Some(Some(early)) = early_ids.get(&tool_call_id.0) {
                    if model_call_id.as_deref() != Some(*early) {
                        return Err(format!(
                            "{tool_call_id}: model id {early:?} at its start, {model_call_id:?} at its end"
                        ));
                    }
                }
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

/// What toolsieve's fuzz targets and property tests build their cases
/// with: a parser per fuzz header, cuts from input bytes, sample tools,
/// Python reprs. Behind the `fuzzing` feature; not part of the stable API.
#[cfg(feature = "fuzzing")]
mod fuzzing;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub use fuzzing::*;
