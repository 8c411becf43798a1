//! The response side: reading a model's output text into events according
//! to the request's mode, chunk by chunk.

use std::sync::Arc;

use super::choice::ToolChoice;
use super::params::Mode;
use crate::event::{CallId, Event};
use crate::event::{Diagnostic, DiagnosticKind};
use crate::{Error, Format, Limits, Parser, Reasoning, Tool};

/// Reads one response: calls parsed with the protocol (`auto`), plain text
/// (`none`), or one bare `{"name", "arguments"}` JSON call (`required` /
/// `tool`) — and if the output is not that JSON, the protocol parser gets
/// it before anything is given up.
#[derive(Debug)]
pub struct ResponseParser {
    /// The bare-JSON fast path of a forced call, in front of `protocol`.
    forced: Option<Parser>,
    protocol: Parser,
    /// Calls the fast path delivered (the protocol's ids come after).
    forced_calls: u32,
    calls: usize,
    /// Fast-path diagnostics, reported only if no call came at all.
    held_diagnostics: Vec<Diagnostic>,
    forced_mode: bool,
    scratch: Vec<Event<'static>>,
    /// A forced answer after a prose preamble: a bare JSON call read from
    /// the first `{` of the text (when nothing else is in progress).
    late: Option<Parser>,
    /// The tools a forced call may name (for `late`).
    callable: Arc<[Tool]>,
    /// Whether `late` was started, or any call was (no second chance).
    late_closed: bool,
    limits: Limits,
}

impl ResponseParser {
    /// A reader for `mode`, with the tools the request listed.
    ///
    /// # Errors
    ///
    /// When the format cannot be built (e.g. `morph-xml` without tools).
    pub fn new(
        format: Format,
        tools: &[Tool],
        mode: &Mode,
        limits: Limits,
    ) -> Result<ResponseParser, Error> {
        ResponseParser::with_reasoning(format, tools, mode, limits, format.default_reasoning())
    }

    /// As [`ResponseParser::new`], with the model's reasoning separated as
    /// `reasoning` says (`None`: no separation).
    ///
    /// # Errors
    ///
    /// As [`ResponseParser::new`], and when the reasoning tags clash with
    /// the format's markers.
    pub fn with_reasoning(
        format: Format,
        tools: &[Tool],
        mode: &Mode,
        limits: Limits,
        reasoning: Option<Reasoning>,
    ) -> Result<ResponseParser, Error> {
        let all: Arc<[Tool]> = Arc::from(tools.to_vec());
        // A named tool_choice reads calls to that tool only: a call to
        // another stays text, with an unknown-tool diagnostic.
        let callable: Arc<[Tool]> = match mode {
            Mode::Forced(ToolChoice::Tool { name }) => {
                tools.iter().filter(|t| t.name == *name).cloned().collect()
            }
            _ => all.clone(),
        };
        let protocol = match mode {
            Mode::Text if reasoning.is_none() => Parser::text_only(),
            _ => {
                let builder = Parser::builder(format)
                    .tools(callable.clone())
                    .limits(limits)
                    .reasoning(reasoning);
                match mode {
                    Mode::Text => builder.read_calls(false).build()?,
                    _ => builder.build()?,
                }
            }
        };
        // The forced answer: `{"name", "arguments"}` at the start, in a
        // ```json fence (after a preamble too), or after `[TOOL_CALLS]`,
        // as an object or a list, in relaxed JSON too — what xLAM's
        // reader takes.
        let forced = match mode {
            Mode::Forced(_) => Some(
                Parser::builder(Format::Xlam)
                    .tools(callable.clone())
                    .limits(limits)
                    .build()?,
            ),
            _ => None,
        };
        Ok(ResponseParser {
            forced_mode: forced.is_some(),
            forced,
            protocol,
            forced_calls: 0,
            calls: 0,
            held_diagnostics: Vec::new(),
            scratch: Vec::new(),
            late: None,
            callable,
            late_closed: false,
            limits,
        })
    }

    /// How many tool calls were delivered so far (a reader serves one
    /// response).
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// Reads the next piece of output text; events go to `out`.
    pub fn push(&mut self, text: &str, out: &mut Vec<Event<'static>>) {
        match self.forced.as_mut() {
            None => {
                let calls = &mut self.calls;
                self.protocol.feed_str(text, &mut |e| {
                    *calls += usize::from(matches!(e, Event::ToolCall { .. }));
                    out.push(e.into_owned());
                });
            }
            Some(forced) => {
                let mut stage = std::mem::take(&mut self.scratch);
                forced.feed_str(text, &mut |e| stage.push(e.into_owned()));
                self.route(&mut stage, out);
                self.scratch = stage;
            }
        }
    }

    /// Ends the response.
    pub fn finish(&mut self, out: &mut Vec<Event<'static>>) {
        if let Some(forced) = self.forced.as_mut() {
            let mut stage = std::mem::take(&mut self.scratch);
            forced.finish(&mut |e| stage.push(e.into_owned()));
            self.route(&mut stage, out);
            if let Some(late) = self.late.as_mut() {
                late.finish(&mut |e| stage.push(e.into_owned()));
                self.route_late(&mut stage, out);
            }
            self.scratch = stage;
        }
        let offset = self.forced_calls;
        let calls = &mut self.calls;
        self.protocol.finish(&mut |e| {
            *calls += usize::from(matches!(e, Event::ToolCall { .. }));
            out.push(shift_ids(e.into_owned(), offset));
        });
        if self.forced_mode && self.calls == 0 {
            for d in self.held_diagnostics.drain(..) {
                out.push(Event::Diagnostic(d));
            }
            out.push(Event::Diagnostic(Diagnostic::new(
                DiagnosticKind::NoToolCall,
                0,
                "tool_choice asked for a tool call and the output has none",
            )));
        }
        self.held_diagnostics.clear();
    }

    /// Fast-path events: calls go out, text goes on to the protocol parser
    /// (or to the late reader of a call after a preamble).
    fn route(&mut self, stage: &mut Vec<Event<'static>>, out: &mut Vec<Event<'static>>) {
        let mut late_stage = Vec::new();
        for e in stage.drain(..) {
            match e {
                Event::TextDelta { delta, .. } => {
                    if let Some(late) = self.late.as_mut() {
                        late.feed_str(&delta, &mut |e| late_stage.push(e.into_owned()));
                        self.route_late(&mut late_stage, out);
                        continue;
                    }
                    let text: &str = &delta;
                    let split = match self.late_closed {
                        true => None,
                        false => text.find('{'),
                    };
                    let (before, rest) = split.map_or((text, ""), |i| text.split_at(i));
                    self.feed_protocol(before, out);
                    if rest.is_empty() {
                        continue;
                    }
                    if self.calls == 0 && self.protocol.at_plain_text() {
                        self.late_closed = true;
                        let mut late = Parser::bare_json_call(self.callable.clone(), self.limits);
                        late.feed_str(rest, &mut |e| late_stage.push(e.into_owned()));
                        self.late = Some(late);
                        self.route_late(&mut late_stage, out);
                    } else {
                        self.feed_protocol(rest, out);
                    }
                }
                Event::TextStart { .. } | Event::TextEnd { .. } => {}
                Event::Diagnostic(d) if d.id.is_none() => self.held_diagnostics.push(d),
                Event::ToolCall { .. } => {
                    self.late_closed = true;
                    self.forced_calls += 1;
                    self.calls += 1;
                    out.push(e);
                }
                other => {
                    if matches!(other, Event::ToolInputStart { .. }) {
                        self.late_closed = true;
                    }
                    out.push(other)
                }
            }
        }
    }

    /// Events of the late reader: its call goes out (after the fast
    /// path's, which had none), its text on to the protocol parser.
    fn route_late(&mut self, stage: &mut Vec<Event<'static>>, out: &mut Vec<Event<'static>>) {
        for e in stage.drain(..) {
            match e {
                Event::TextDelta { delta, .. } => self.feed_protocol(&delta, out),
                Event::TextStart { .. } | Event::TextEnd { .. } => {}
                Event::Diagnostic(d) if d.id.is_none() => self.held_diagnostics.push(d),
                Event::ToolCall { .. } => {
                    self.forced_calls += 1;
                    self.calls += 1;
                    out.push(e);
                }
                other => out.push(other),
            }
        }
    }

    fn feed_protocol(&mut self, text: &str, out: &mut Vec<Event<'static>>) {
        if text.is_empty() {
            return;
        }
        let offset = self.forced_calls;
        let calls = &mut self.calls;
        let closed = &mut self.late_closed;
        self.protocol.feed_str(text, &mut |e| {
            *calls += usize::from(matches!(e, Event::ToolCall { .. }));
            *closed |= matches!(e, Event::ToolInputStart { .. });
            out.push(shift_ids(e.into_owned(), offset));
        });
    }
}

/// Renumbers the protocol parser's calls after the fast path's.
fn shift_ids(e: Event<'static>, by: u32) -> Event<'static> {
    if by == 0 {
        return e;
    }
    e.map_ids(|t| t, |r| r, |id| CallId(id.0 + by))
}
