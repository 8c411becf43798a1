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
    let mut checker = Checker {
        input,
        reasoning,
        rebuilt: String::new(),
        open_text: None,
        open_call: None,
        open_reasoning: None,
        deltas: HashMap::new(),
        early_ids: HashMap::new(),
        last_ended: None,
    };
    for (index, event) in events.iter().enumerate() {
        let previous = index.checked_sub(1).map(|i| &events[i]);
        checker.event(index, event, previous)?;
    }
    checker.finish(keeps_text)
}

/// The state of [`check_with`] between events.
struct Checker<'e, 'i> {
    input: &'i [u8],
    reasoning: Option<&'i crate::Reasoning>,
    /// The input as the events rebuild it.
    rebuilt: String,
    open_text: Option<crate::TextId>,
    open_call: Option<crate::CallId>,
    open_reasoning: Option<crate::ReasoningId>,
    /// Each call's deltas, joined.
    deltas: HashMap<u32, String>,
    /// The model's id at each call's start, if it gave one there.
    early_ids: HashMap<u32, Option<&'e str>>,
    last_ended: Option<crate::CallId>,
}

impl<'e> Checker<'e, '_> {
    fn event(
        &mut self,
        index: usize,
        event: &'e Event<'_>,
        previous: Option<&Event<'_>>,
    ) -> Result<(), String> {
        match event {
            Event::ReasoningStart { .. }
            | Event::ReasoningDelta { .. }
            | Event::ReasoningEnd { .. } => self.reasoning_event(index, event, previous),
            Event::TextStart { .. } | Event::TextDelta { .. } | Event::TextEnd { .. } => {
                self.text_event(event)
            }
            Event::ToolInputStart { .. }
            | Event::ToolInputDelta { .. }
            | Event::ToolInputEnd { .. } => self.call_event(event),
            Event::ToolCall {
                id,
                input,
                raw_span,
                model_call_id,
                ..
            } => self.tool_call(*id, input, *raw_span, model_call_id.as_deref()),
            Event::Markup { span } => {
                if self.open_text.is_some() || self.open_call.is_some() {
                    return Err(format!("{event:?} while a text part or call is open"));
                }
                let (start, end) = (span.start as usize, span.end as usize);
                let Some(raw) = self.input.get(start..end).filter(|r| !r.is_empty()) else {
                    return Err(format!("markup span {span:?} outside the input, or empty"));
                };
                self.rebuilt.push_str(&String::from_utf8_lossy(raw));
                Ok(())
            }
            Event::Diagnostic(d) if d.offset > self.input.len() as u64 => {
                Err(format!("diagnostic past the end: {d:?}"))
            }
            Event::Diagnostic(_) => Ok(()),
        }
    }

    fn reasoning_event(
        &mut self,
        index: usize,
        event: &Event<'_>,
        previous: Option<&Event<'_>>,
    ) -> Result<(), String> {
        match event {
            Event::ReasoningStart { id } => {
                let Some(tags) = self.reasoning else {
                    return Err(format!("{event:?} without reasoning tags"));
                };
                if self.open_text.is_some()
                    || self.open_call.is_some()
                    || self.open_reasoning.is_some()
                {
                    return Err(format!("{event:?} while a part is open"));
                }
                self.open_reasoning = Some(*id);
                if !(tags.starts_open && index == 0) {
                    self.rebuilt.push_str(&tags.start);
                }
            }
            Event::ReasoningDelta { id, delta } => {
                if self.open_reasoning != Some(*id) || self.open_call.is_some() || delta.is_empty()
                {
                    return Err(format!("{event:?} outside its part, or empty"));
                }
                self.rebuilt.push_str(delta);
            }
            Event::ReasoningEnd { id } => {
                if self.open_reasoning.take() != Some(*id) || self.open_call.is_some() {
                    return Err(format!("{event:?} without its start, or in a call"));
                }
                let unclosed = matches!(
                    previous,
                    Some(Event::Diagnostic(d)) if d.kind == crate::DiagnosticKind::UnclosedReasoning
                );
                let end = self.reasoning.map_or("", |t| t.end.as_str());
                // Reasoning that a call ends has no end tag there.
                let ended_by_call = self.reasoning.is_some_and(|t| t.ends_at_calls)
                    && !self.input_goes_on_with(end);
                if !unclosed && !ended_by_call {
                    self.rebuilt.push_str(end);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether the input, after what the events so far rebuilt, goes on
    /// with `text`.
    fn input_goes_on_with(&self, text: &str) -> bool {
        // The rebuilt text is the input's lossy decoding so far.
        let input = String::from_utf8_lossy(self.input);
        let rest = input.get(self.rebuilt.len()..).unwrap_or_default();
        rest.starts_with(text)
    }

    fn text_event(&mut self, event: &Event<'_>) -> Result<(), String> {
        match event {
            Event::TextStart { id } => {
                if self.open_text.is_some()
                    || self.open_call.is_some()
                    || self.open_reasoning.is_some()
                {
                    return Err(format!("{event:?} while a part is open"));
                }
                self.open_text = Some(*id);
            }
            Event::TextDelta { id, delta } => {
                if self.open_text != Some(*id) || delta.is_empty() {
                    return Err(format!("{event:?} outside its part, or empty"));
                }
                self.rebuilt.push_str(delta);
            }
            Event::TextEnd { id } => {
                let open = self.open_text.take();
                if open != Some(*id) {
                    return Err(format!("{event:?} without its start"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn call_event(&mut self, event: &'e Event<'_>) -> Result<(), String> {
        match event {
            Event::ToolInputStart {
                id,
                tool_name,
                model_call_id,
            } => {
                let calls_inside = self.reasoning.is_some_and(|t| t.calls_inside);
                if self.open_text.is_some()
                    || self.open_call.is_some()
                    || (self.open_reasoning.is_some() && !calls_inside)
                    || tool_name.is_empty()
                {
                    return Err(format!("{event:?} while a part is open, or unnamed"));
                }
                self.open_call = Some(*id);
                self.deltas.insert(id.0, String::new());
                self.early_ids.insert(id.0, model_call_id.as_deref());
            }
            Event::ToolInputDelta { id, delta } => {
                if self.open_call != Some(*id) {
                    return Err(format!("{event:?} outside its call"));
                }
                self.deltas.entry(id.0).or_default().push_str(delta);
            }
            Event::ToolInputEnd { id } => {
                if self.open_call.take() != Some(*id) {
                    return Err(format!("{event:?} without its start"));
                }
                self.last_ended = Some(*id);
            }
            _ => {}
        }
        Ok(())
    }

    fn tool_call(
        &mut self,
        tool_call_id: crate::CallId,
        args: &str,
        raw_span: crate::Span,
        model_call_id: Option<&str>,
    ) -> Result<(), String> {
        if let Some(Some(early)) = self.early_ids.get(&tool_call_id.0) {
            if model_call_id != Some(*early) {
                return Err(format!(
                    "{tool_call_id}: model id {early:?} at its start, {model_call_id:?} at its end"
                ));
            }
        }
        if self.last_ended.take() != Some(tool_call_id) {
            return Err(format!("tool-call {tool_call_id} not right after its end"));
        }
        if self.deltas.get(&tool_call_id.0).map(String::as_str) != Some(args) {
            return Err(format!("{tool_call_id}: deltas do not add up to the input"));
        }
        // RFC 8259 grammar, not serde_json's f64 range: a number like
        // 1e400 is valid JSON and passes through as written.
        let is_object = args.trim_start().starts_with('{')
            && crate::scan::json::is_complete_value(args.as_bytes(), usize::MAX);
        if !is_object {
            return Err(format!(
                "{tool_call_id}: input is not a JSON object: {args}"
            ));
        }
        let (start, end) = (raw_span.start as usize, raw_span.end as usize);
        let Some(raw) = self.input.get(start..end) else {
            return Err(format!(
                "{tool_call_id}: span {raw_span:?} outside the input"
            ));
        };
        self.rebuilt.push_str(&String::from_utf8_lossy(raw));
        Ok(())
    }

    fn finish(self, keeps_text: bool) -> Result<(), String> {
        if self.open_text.is_some() || self.open_call.is_some() || self.open_reasoning.is_some() {
            return Err("a part is left open at the end".into());
        }
        if keeps_text && self.rebuilt != String::from_utf8_lossy(self.input) {
            return Err(format!(
                "bytes were lost:\n input: {:?}\n built: {:?}",
                String::from_utf8_lossy(self.input),
                self.rebuilt
            ));
        }
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{check, check_with};
    use crate::event::{CallId, Delta, Diagnostic, DiagnosticKind, Event, Span, TextId};

    const INPUT: &[u8] = b"Hi <tool_call>{}</tool_call>";

    fn text(delta: &'static str) -> Vec<Event<'static>> {
        vec![
            Event::TextStart { id: TextId(0) },
            Event::TextDelta {
                id: TextId(0),
                delta: Delta::borrowed(delta),
            },
            Event::TextEnd { id: TextId(0) },
        ]
    }

    fn call(deltas: &[&'static str], input: &'static str, span: (u64, u64)) -> Vec<Event<'static>> {
        let id = CallId(0);
        let mut events = vec![Event::ToolInputStart {
            id,
            tool_name: Cow::Borrowed("f"),
            model_call_id: Some(Cow::Borrowed("early")),
        }];
        events.extend(deltas.iter().map(|d| Event::ToolInputDelta {
            id,
            delta: Delta::borrowed(d),
        }));
        events.push(Event::ToolInputEnd { id });
        events.push(Event::ToolCall {
            id,
            tool_name: Cow::Borrowed("f"),
            input: Cow::Borrowed(input),
            raw_span: Span {
                start: span.0,
                end: span.1,
            },
            model_call_id: Some(Cow::Borrowed("early")),
        });
        events
    }

    fn valid() -> Vec<Event<'static>> {
        let mut events = text("Hi ");
        events.extend(call(&["{", "}"], "{}", (3, 28)));
        events
    }

    /// Checks `events` after `change`, expecting the rule named by `broken`.
    fn breaks(change: impl FnOnce(&mut Vec<Event<'static>>), broken: &str) {
        let mut events = valid();
        change(&mut events);
        let verdict = check(INPUT, &events, true);
        assert!(
            verdict.as_ref().is_err_and(|e| e.contains(broken)),
            "{broken:?}: {verdict:?}"
        );
    }

    #[test]
    fn a_valid_stream_passes() {
        assert_eq!(check(INPUT, &valid(), true), Ok(()));
    }

    #[test]
    fn every_rule_is_checked() {
        breaks(|e| e[1] = text("")[1].clone(), "outside its part, or empty");
        breaks(|e| drop(e.remove(0)), "outside its part");
        breaks(|e| drop(e.remove(2)), "while a part is open");
        breaks(|e| e.truncate(2), "a part is left open at the end");
        breaks(|e| e[1] = text("Ho ")[1].clone(), "bytes were lost");
        breaks(
            |e| e.splice(3.., call(&["{"], "{}", (3, 28))).for_each(drop),
            "deltas do not add up",
        );
        breaks(
            |e| e.splice(3.., call(&["[]"], "[]", (3, 28))).for_each(drop),
            "not a JSON object",
        );
        breaks(
            |e| e.splice(3.., call(&["{}"], "{}", (3, 99))).for_each(drop),
            "outside the input",
        );
        breaks(|e| drop(e.remove(6)), "not right after its end");
        breaks(
            |e| {
                if let Event::ToolCall { model_call_id, .. } = &mut e[7] {
                    *model_call_id = None;
                }
            },
            "at its start",
        );
        breaks(
            |e| {
                let past = Diagnostic::new(DiagnosticKind::InvalidUtf8, 99, "past");
                e.push(Event::Diagnostic(past));
            },
            "diagnostic past the end",
        );
        breaks(
            |e| {
                e.insert(
                    0,
                    Event::ReasoningStart {
                        id: crate::ReasoningId(0),
                    },
                )
            },
            "without reasoning tags",
        );
    }

    #[test]
    fn reasoning_tags_count_as_input() {
        let tags = crate::Reasoning::think();
        let input = b"<think>hm</think>";
        let events = [
            Event::ReasoningStart {
                id: crate::ReasoningId(0),
            },
            Event::ReasoningDelta {
                id: crate::ReasoningId(0),
                delta: Delta::borrowed("hm"),
            },
            Event::ReasoningEnd {
                id: crate::ReasoningId(0),
            },
        ];
        assert_eq!(check_with(input, &events, true, Some(&tags)), Ok(()));
        let lost = check_with(b"<think>hmm</think>", &events, true, Some(&tags));
        assert!(lost.is_err_and(|e| e.contains("bytes were lost")));
    }
}
