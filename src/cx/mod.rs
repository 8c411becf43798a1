//! What an automaton reports through while it reads a call ([`CallCx`]),
//! and the per-stream output state behind it ([`Core`]): ids, the tool
//! list, text and argument output. Below both the engine, which owns a
//! [`Core`], and the automata in `protocol/`, which see only a [`CallCx`].

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::OnInvalid;
use crate::event::{CallId, Delta, Diagnostic, DiagnosticKind, Event, Span};
use crate::limits::Limits;
use crate::scan::utf8::{validate, Utf8Carry, Utf8Piece, SHORT_JOIN};
use crate::tool::Tool;

mod params;
mod raw;
mod text;

pub(crate) use params::{push_key_json, Param, ParamTable};
pub(crate) use raw::{GivenBack, RawCall};
pub(crate) use text::TextOut;

/// Where a stream's events go: any `FnMut(Event)`, under one short name
/// for the many functions that pass it on.
pub(crate) trait Sink<'c>: FnMut(Event<'c>) {}

impl<'c, F: FnMut(Event<'c>) + ?Sized> Sink<'c> for F {}

/// What a stream is read with, fixed when the parser is built: one value
/// shared by the parser's clones and never written.
#[derive(Debug)]
pub(crate) struct Settings {
    pub(crate) tools: Arc<[Tool]>,
    /// What values look up of the tools' parameters, worked out once per
    /// tool.
    pub(crate) params: ParamTable,
    /// Compiled tool schemas, when calls are validated.
    #[cfg(feature = "validate")]
    pub(crate) schemas: Option<Arc<crate::validate::Schemas>>,
    pub(crate) limits: Limits,
    pub(crate) on_invalid: OnInvalid,
}

/// The call being delivered: what was emitted of it, and what its
/// `tool-call` event will carry. A fresh value for each call (see
/// [`CallOut::reset`]), its two buffers kept.
#[derive(Debug, Clone, Default)]
pub(crate) struct CallOut {
    /// The call whose `tool-input-start` was emitted, if any.
    pub(crate) call: Option<CallId>,
    /// Its tool's index in `tools`.
    pub(crate) tool: Option<usize>,
    pub(crate) name: String,
    /// Stream offset where `name` stands verbatim in the input, if it does
    /// (no escapes): events can then borrow it from the chunk.
    pub(crate) name_origin: Option<u64>,
    /// The call's arguments so far, when they are not `raw_input`.
    pub(crate) input: String,
    /// Where the call's arguments stand verbatim in the stream, while they
    /// do (JSON formats stream the model's own bytes): they are then read
    /// from the call's raw bytes or the chunk when the call is delivered,
    /// not copied delta by delta, and a call lying in one chunk borrows
    /// them.
    pub(crate) raw_input: Option<(u64, u64)>,
    /// The start of a code point that the last argument bytes left
    /// unfinished.
    pub(crate) delta_carry: Utf8Carry,
    /// The id the model gave the call in progress, if any.
    pub(crate) model_call_id: Option<String>,
}

impl CallOut {
    /// The call being delivered is over (delivered or given up): as new,
    /// with the buffers kept (field by field: cheaper than moving them out
    /// and back, on every call attempt).
    fn reset(&mut self) {
        self.call = None;
        self.tool = None;
        self.name.clear();
        self.name_origin = None;
        self.input.clear();
        self.raw_input = None;
        self.delta_carry = Utf8Carry::default();
        self.model_call_id = None;
    }
}

/// Everything an automaton may touch while it runs, in parts with methods
/// of their own: the settings, the text out, the call being delivered, the
/// call's raw bytes; and the stream's call count.
#[derive(Debug, Clone)]
pub(crate) struct Core {
    pub(crate) settings: Arc<Settings>,
    pub(crate) text: TextOut,
    pub(crate) out: CallOut,
    /// The call's raw bytes and span, and the read-ahead account.
    pub(crate) raw: RawCall,
    pub(crate) next_call: u32,
    pub(crate) delivered: usize,
}

/// The `len` bytes at stream offset `offset`, if they lie in `chunk`
/// (which starts at stream offset `base`).
#[inline]
pub(crate) fn chunk_bytes(chunk: &[u8], base: u64, offset: u64, len: usize) -> Option<&[u8]> {
    let from = usize::try_from(offset.checked_sub(base)?).ok()?;
    chunk.get(from..from.checked_add(len)?)
}

/// [`chunk_bytes`] as text, for bytes known to be valid (re-checked: cheap
/// for the short names it serves).
#[inline]
pub(crate) fn text_in_chunk(
    chunk: &[u8],
    base: u64,
    offset: u64,
    len: usize,
) -> Option<Cow<'_, str>> {
    let bytes = chunk_bytes(chunk, base, offset, len)?;
    validate(bytes).ok().map(Cow::Borrowed)
}

impl Core {
    pub(crate) fn new(settings: Settings) -> Core {
        Core {
            text: TextOut::default(),
            out: CallOut::default(),
            raw: RawCall {
                max_len: settings.limits.max_call_bytes,
                ..RawCall::default()
            },
            settings: Arc::new(settings),
            next_call: 0,
            delivered: 0,
        }
    }

    /// Argument bytes in `chunk` (at stream offset `offset`) that go on
    /// from a code point the last ones left unfinished, or a token that is
    /// not all ASCII: the delta they complete goes out, and a code point
    /// their end cuts off is carried. `false` (nothing sent) when they are
    /// not UTF-8 after what was carried. Inlined
    /// into its two callers, both out of line: a token of CJK text in an
    /// argument comes here on every chunk.
    #[inline(always)]
    pub(crate) fn continue_carried_delta<'c>(
        &mut self,
        chunk: &'c [u8],
        offset: u64,
        sink: &mut impl Sink<'c>,
    ) -> bool {
        if self.out.call.is_none() {
            return false;
        }
        let at = self.out.delta_carry.pending_offset().unwrap_or(offset);
        if chunk.len() <= SHORT_JOIN {
            // A token: the code point it completes and the whole ones
            // after it go out as one delta.
            let end = offset + chunk.len() as u64;
            return match self.out.delta_carry.continue_short(chunk, end) {
                Ok(Some(delta)) => {
                    self.send_verbatim(delta, at, (chunk, offset), sink);
                    true
                }
                Ok(None) => true,
                Err(()) => false,
            };
        }
        let Some(next) = self.out.delta_carry.continue_with(chunk) else {
            return false;
        };
        self.out.delta_carry = next.carry(offset + chunk.len() as u64);
        if let Some(c) = next.completed() {
            self.send_verbatim(Delta::from(c), at, (chunk, offset), sink);
        }
        if !next.text().is_empty() {
            let at = at + next.completed().map_or(0, |c| c.len_utf8() as u64);
            self.send_verbatim(Delta::borrowed(next.text()), at, (chunk, offset), sink);
        }
        true
    }

    /// Sends `delta`, the stream's own bytes at stream offset `offset`, as
    /// the next delta of the call in progress (none: nothing is sent).
    /// `chunk` is the caller's chunk in hand, at its stream offset. Every
    /// verbatim delta goes out here, the steady path's included (inlined
    /// into it: a call per token-sized chunk shows in the counts).
    #[inline(always)]
    pub(crate) fn send_verbatim<'c>(
        &mut self,
        delta: Delta<'c>,
        offset: u64,
        chunk: (&'c [u8], u64),
        sink: &mut impl Sink<'c>,
    ) {
        if let Some(id) = self.out.call {
            self.note_verbatim(&delta, offset, chunk);
            sink(Event::ToolInputDelta { id, delta });
        }
    }

    /// Sends `delta`, text the automaton built, as the next delta of the
    /// call in progress (see [`send_verbatim`](Self::send_verbatim)).
    #[inline(always)]
    pub(crate) fn send_built<'c>(
        &mut self,
        delta: Delta<'c>,
        chunk: (&'c [u8], u64),
        sink: &mut impl Sink<'c>,
    ) {
        if let Some(id) = self.out.call {
            self.note_built(&delta, chunk);
            sink(Event::ToolInputDelta { id, delta });
        }
    }

    /// Emits `tool-input-end` and `tool-call` for the call in progress, its
    /// raw span ending at `end`. Nothing if no call was started.
    /// `chunk` (at stream offset `base`) is the caller's chunk in hand.
    pub(crate) fn deliver<'c>(
        &mut self,
        end: u64,
        (chunk, base): (&'c [u8], u64),
        sink: &mut impl Sink<'c>,
    ) -> bool {
        let Some(id) = self.out.call else {
            return false;
        };
        sink(Event::ToolInputEnd { id });
        let tool_name = match self
            .out
            .name_origin
            .and_then(|o| text_in_chunk(chunk, base, o, self.out.name.len()))
        {
            Some(name) => name,
            // Copies of exact size: the parser keeps its grown buffers for
            // the next call instead of growing new ones from nothing.
            None => Cow::Owned(self.out.name.as_str().to_owned()),
        };
        let input = match self.out.raw_input {
            Some(span) => self.raw_text(span, (chunk, base)),
            None => Cow::Owned(self.out.input.as_str().to_owned()),
        };
        let raw_span = Span {
            start: self.raw.span_start,
            end,
        };
        #[cfg(feature = "validate")]
        let violation = match (&self.settings.schemas, self.out.tool) {
            (Some(schemas), Some(tool)) => schemas.check(tool, &tool_name, &input),
            _ => None,
        };
        #[cfg(feature = "validate")]
        let name_for_diagnostic = violation.as_ref().map(|_| tool_name.to_string());
        sink(Event::ToolCall {
            id,
            tool_name,
            input,
            raw_span,
            model_call_id: self.out.model_call_id.take().map(Cow::Owned),
        });
        // After the call it concerns: the call was delivered.
        #[cfg(feature = "validate")]
        if let Some(message) = violation {
            sink(Event::Diagnostic(
                Diagnostic::new(DiagnosticKind::InvalidArguments, end, message)
                    .about_call(Some(id), name_for_diagnostic)
                    .with_span(raw_span),
            ));
        }
        self.delivered += 1;
        self.raw.span_start = end;
        self.out.reset();
        true
    }

    /// Records a delta that is the stream's own bytes at `offset` (see
    /// `raw_input`). `chunk` (at stream offset `base`) is the chunk in hand.
    #[inline(always)]
    pub(crate) fn note_verbatim(&mut self, text: &Delta, offset: u64, chunk: (&[u8], u64)) {
        // The length alone, while the arguments stay verbatim: a delta
        // held inline is not read.
        let end = offset + text.len() as u64;
        match &mut self.out.raw_input {
            Some((_, to)) if *to == offset => *to = end,
            None if self.out.input.is_empty() => self.out.raw_input = Some((offset, end)),
            _ => self.note_built(text, chunk),
        }
    }

    /// Records a delta the automaton built.
    #[inline]
    pub(crate) fn note_built(&mut self, text: &str, chunk: (&[u8], u64)) {
        if self.out.raw_input.is_some() {
            self.materialize(chunk);
        }
        crate::scan::append_str(&mut self.out.input, text);
    }

    /// The arguments stop being verbatim: copies what they were so far.
    #[cold]
    #[inline(never)]
    pub(crate) fn materialize(&mut self, chunk: (&[u8], u64)) {
        if let Some(span) = self.out.raw_input.take() {
            let raw = self.raw_text(span, chunk);
            self.out.input.push_str(&raw);
        }
    }

    /// The arguments standing verbatim at stream offsets `from..to`: borrowed
    /// when they lie in `chunk` (at stream offset `base`), else read from the
    /// call buffer and the chunk. Every byte of the call is in one of the
    /// two: `call_buf` holds it up to where the chunk in hand continues it.
    pub(crate) fn raw_text<'c>(
        &self,
        (from, to): (u64, u64),
        (chunk, base): (&'c [u8], u64),
    ) -> Cow<'c, str> {
        let len = usize::try_from(to - from).unwrap_or(usize::MAX);
        if let Some(text) = text_in_chunk(chunk, base, from, len) {
            return text;
        }
        let (buffered, in_chunk) = self.call_parts((from, to), (chunk, base));
        debug_assert_eq!(
            buffered.len() + in_chunk.len(),
            len,
            "arguments out of reach"
        );
        // Each delta was UTF-8: both parts are checked by the SIMD validator
        // and copied, cheaper than `String::from_utf8`'s own check of long
        // arguments. A code point split between the parts takes the
        // general way.
        Cow::Owned(match (validate(buffered), validate(in_chunk)) {
            (Ok(buffered), Ok(in_chunk)) => {
                // Not `concat`: its generic join costs more than the copy.
                let mut text = String::with_capacity(len);
                text.push_str(buffered);
                text.push_str(in_chunk);
                text
            }
            _ => String::from_utf8_lossy(&[buffered, in_chunk].concat()).into_owned(),
        })
    }

    /// The call's bytes at stream offsets `from..to`, copied: see
    /// [`call_parts`](Self::call_parts).
    pub(crate) fn call_bytes(&self, span: (u64, u64), chunk: (&[u8], u64)) -> Vec<u8> {
        let (buffered, in_chunk) = self.call_parts(span, chunk);
        [buffered, in_chunk].concat()
    }

    /// The call's bytes at stream offsets `from..to`, in two parts: from
    /// the call buffer, which holds them up to where `chunk` (at stream
    /// offset `base`) continues it, and from the chunk.
    fn call_parts<'a>(
        &'a self,
        (from, to): (u64, u64),
        (chunk, base): (&'a [u8], u64),
    ) -> (&'a [u8], &'a [u8]) {
        let buf = &self.raw.buf;
        let in_buf = |o: u64| {
            let i = usize::try_from(o.saturating_sub(self.raw.start));
            i.map_or(buf.len(), |i| i.min(buf.len()))
        };
        let buffered = buf.get(in_buf(from)..in_buf(to)).unwrap_or_default();
        let rest = from.max(self.raw.start + buf.len() as u64);
        let len = usize::try_from(to.saturating_sub(rest)).unwrap_or(usize::MAX);
        (
            buffered,
            chunk_bytes(chunk, base, rest, len).unwrap_or_default(),
        )
    }

    /// A new stream: no call, no part open, ids and offsets from 0
    /// (inside reasoning if `starts_open`).
    pub(crate) fn start_stream(&mut self, starts_open: bool) {
        self.out.reset();
        self.text = TextOut {
            reasoning: starts_open,
            ..TextOut::default()
        };
        self.next_call = 0;
        self.delivered = 0;
        self.raw.start_stream();
    }

    /// The call attempt is over (delivered, failed, or not a call): its
    /// state and raw bytes go.
    pub(crate) fn abandon_call(&mut self) {
        self.out.reset();
        self.raw.clear();
    }
}

/// What an automaton gets to report through while it consumes call bytes.
pub(crate) struct CallCx<'p, 'c, S> {
    pub(crate) core: &'p mut Core,
    pub(crate) sink: &'p mut S,
    /// Stream offset of the first byte of the slice being advanced.
    pub(crate) base: u64,
    /// That slice of the caller's chunk (empty at the end of the stream).
    pub(crate) chunk: &'c [u8],
    /// Whether the slice brings the call to its size limit: no byte of it
    /// will follow, so whatever is pending must be decided now.
    pub(crate) at_limit: bool,
    /// Built deltas not sent yet: consecutive ones go out as one event (one
    /// allocation, not one per piece of syntax), before any other event and
    /// when the automaton's step ends ([`flush`](Self::flush)).
    pub(crate) pending: Option<Delta<'c>>,
}

impl<'c, S: Sink<'c>> CallCx<'_, 'c, S> {
    /// Runs `f` on a context for the slice being advanced from its byte
    /// `from` on (an automaton that hands the rest of its slice to
    /// another).
    pub(crate) fn with_rest_from<R>(
        &mut self,
        from: usize,
        f: impl FnOnce(&mut CallCx<'_, 'c, S>) -> R,
    ) -> R {
        self.flush();
        let from = from.min(self.chunk.len());
        let mut rest = CallCx {
            core: &mut *self.core,
            sink: &mut *self.sink,
            base: self.base + from as u64,
            chunk: &self.chunk[from..],
            at_limit: self.at_limit,
            pending: None,
        };
        let r = f(&mut rest);
        rest.flush();
        r
    }

    /// Stream offset of byte `i` of the slice being advanced.
    #[inline]
    pub(crate) fn offset(&self, i: usize) -> u64 {
        self.base + i as u64
    }

    /// The `len` bytes at stream offset `offset`, if they lie in the
    /// caller's chunk (so that a delta of them can borrow instead of copy).
    #[inline]
    pub(crate) fn in_chunk(&self, offset: u64, len: usize) -> Option<&'c [u8]> {
        chunk_bytes(self.chunk, self.base, offset, len)
    }

    /// Whether this slice brings the call to its size limit.
    pub(crate) fn at_limit(&self) -> bool {
        self.at_limit
    }

    pub(crate) fn limits(&self) -> &Limits {
        &self.core.settings.limits
    }

    /// The tool list (a shared handle).
    pub(crate) fn tools(&self) -> Arc<[Tool]> {
        Arc::clone(&self.core.settings.tools)
    }

    /// The index in [`tools`](Self::tools) of the call's tool, once known.
    pub(crate) fn tool_index(&self) -> Option<usize> {
        self.core.out.tool
    }

    /// The JSON Schema of parameter `key` of the call in progress, if the
    /// tool list has one.
    pub(crate) fn param_schema(&self, key: &str) -> Option<&serde_json::Value> {
        let tool = self.core.settings.tools.get(self.core.out.tool?)?;
        tool.param_schema(key)
    }

    /// Parameter `key` of the call's tool, from the parser's table (see
    /// [`ParamTable`], filled for a tool when first asked): `None` where
    /// [`param_schema`](Self::param_schema) finds no schema.
    #[inline]
    pub(crate) fn param(&self, key: &str) -> Option<&Param> {
        let settings = &self.core.settings;
        settings
            .params
            .get(&settings.tools, self.core.out.tool?, key)
    }

    /// Whether a `tool-input-start` was emitted for the call in progress.
    pub(crate) fn started(&self) -> bool {
        self.core.out.call.is_some()
    }

    /// Whether a call body that stops being JSON at stream offset `at` may
    /// be read ahead as relaxed JSON, and if so counts the bytes it will
    /// read again: all of them while an earlier read-ahead did not cover
    /// `at`; after one did, while the bytes read twice stay within
    /// [`REREAD_FACTOR`](raw::REREAD_FACTOR) times the stream read ahead (linear time whatever
    /// the input).
    pub(crate) fn claim_read_ahead(&mut self, at: u64) -> bool {
        let raw = &mut self.core.raw;
        let again = raw.relaxed_to.saturating_sub(at);
        let reread = raw.reread.saturating_add(again);
        if again > 0 && reread > raw.relaxed_to.saturating_mul(raw::REREAD_FACTOR) {
            return false;
        }
        raw.reread = reread;
        true
    }

    /// A read-ahead went up to stream offset `to`.
    pub(crate) fn read_ahead_to(&mut self, to: u64) {
        self.core.raw.relaxed_to = self.core.raw.relaxed_to.max(to);
    }

    /// The name of the call in progress, once started.
    pub(crate) fn started_name(&self) -> Option<&str> {
        self.core.out.call.map(|_| self.core.out.name.as_str())
    }

    /// The argument deltas emitted so far for the call in progress.
    pub(crate) fn input_text(&self) -> Cow<'c, str> {
        match self.core.out.raw_input {
            Some(span) => self.core.raw_text(span, (self.chunk, self.base)),
            None => Cow::Owned(self.core.out.input.clone()),
        }
    }

    /// The call's bytes from stream offset `from` up to the byte of the
    /// slice being advanced at stream offset `to` (copied: they may lie
    /// partly in the call buffer).
    pub(crate) fn call_bytes(&self, from: u64, to: u64) -> Vec<u8> {
        self.core.call_bytes((from, to), (self.chunk, self.base))
    }

    /// The tool name is known: checks it and emits `tool-input-start`.
    /// A name that stands verbatim at stream offset `origin` is borrowed
    /// by the events while it is in the chunk.
    pub(crate) fn start_at(
        &mut self,
        name: &str,
        origin: Option<u64>,
        offset: u64,
    ) -> Result<(), Failure> {
        let core = &mut *self.core;
        core.out.tool = core.settings.tools.iter().position(|t| t.name == name);
        if !core.settings.tools.is_empty() && core.out.tool.is_none() {
            return Err(Failure::new(
                DiagnosticKind::UnknownTool,
                offset,
                format!("`{name}` is not in the tool list"),
            ));
        }
        if core.delivered >= core.settings.limits.max_calls {
            return Err(Failure::new(
                DiagnosticKind::TooManyCalls,
                offset,
                format!(
                    "more than {} tool calls in one stream",
                    core.settings.limits.max_calls
                ),
            ));
        }
        core.text.flush_carry(self.sink);
        core.text.close_for_call(self.sink);
        let id = CallId(core.next_call);
        core.next_call += 1;
        core.out.call = Some(id);
        core.out.name.clear();
        core.out.name.push_str(name);
        core.out.name_origin = origin;
        let tool_name = origin
            .and_then(|o| text_in_chunk(self.chunk, self.base, o, name.len()))
            .unwrap_or_else(|| Cow::Owned(name.to_owned()));
        let model_call_id = core.out.model_call_id.clone().map(Cow::Owned);
        (self.sink)(Event::ToolInputStart {
            id,
            tool_name,
            model_call_id,
        });
        Ok(())
    }

    /// Emits a delta that is the stream's own bytes at `offset`.
    #[inline]
    fn emit_verbatim(&mut self, delta: Delta<'c>, offset: u64) {
        if delta.is_empty() {
            return;
        }
        self.flush();
        self.core
            .send_verbatim(delta, offset, (self.chunk, self.base), self.sink);
    }

    /// [`delta_borrowed`](Self::delta_borrowed) for text that does not
    /// live as long as the chunk.
    fn emit_built_str(&mut self, delta: &str) {
        self.pend(delta, || Delta::building(delta));
    }

    /// [`delta_borrowed`](Self::delta_borrowed) of one character, which
    /// goes out inline when it does not join other built text.
    pub(crate) fn delta_char(&mut self, c: char) {
        let mut utf8 = [0; 4];
        self.pend(c.encode_utf8(&mut utf8), || Delta::from(c));
    }

    /// Adds `delta` to `pending`, which `first` starts when it is empty.
    #[inline]
    fn pend(&mut self, delta: &str, first: impl FnOnce() -> Delta<'c>) {
        if delta.is_empty() || self.core.out.call.is_none() {
            return;
        }
        self.core.note_built(delta, (self.chunk, self.base));
        match &mut self.pending {
            None => self.pending = Some(first()),
            Some(pending) => pending.push_str(delta),
        }
    }

    /// Arguments text the automaton built, in whole characters.
    pub(crate) fn delta_text(&mut self, text: &str) {
        if self.core.out.delta_carry.is_empty() {
            self.emit_built_str(text);
        } else {
            // After the start of a code point: it ends the call as invalid.
            let _ = self.delta_owned(text.as_bytes(), self.base);
        }
    }

    /// Whether built deltas wait to be sent in an owned string (as one
    /// event), which more text can join without a new allocation.
    pub(crate) fn building_owned(&self) -> bool {
        self.pending.as_ref().is_some_and(Delta::is_built)
    }

    /// Sends the built deltas not sent yet, as one event.
    #[inline]
    pub(crate) fn flush(&mut self) {
        if self.pending.is_some() {
            self.send_pending();
        }
    }

    #[inline(never)]
    fn send_pending(&mut self) {
        if let (Some(delta), Some(id)) = (self.pending.take(), self.core.out.call) {
            // Noted as built when it was pended.
            (self.sink)(Event::ToolInputDelta { id, delta });
        }
    }

    /// Arguments text standing verbatim in the current chunk at stream
    /// offset `offset`. `Err(offset)` when it is not UTF-8.
    #[inline]
    pub(crate) fn delta(&mut self, bytes: &'c [u8], offset: u64) -> Result<(), u64> {
        // The common case, kept small enough to inline: whole code points.
        if self.core.out.delta_carry.is_empty() {
            if let Ok(text) = validate(bytes) {
                self.emit_verbatim(Delta::borrowed(text), offset);
                return Ok(());
            }
        }
        self.delta_split(bytes, offset)
    }

    /// [`delta`](Self::delta) of bytes that continue or end inside a code
    /// point, or are not UTF-8.
    #[inline(never)]
    fn delta_split(&mut self, bytes: &'c [u8], offset: u64) -> Result<(), u64> {
        let mut carry = self.core.out.delta_carry;
        let mut bad = None;
        // The pieces are the stream's bytes one after another, from the
        // carried start of a code point if there is one.
        let mut at = carry.pending_offset().unwrap_or(offset);
        // Nothing after an invalid sequence is emitted: the call is over.
        carry.push(bytes, offset, &mut |p| match p {
            Utf8Piece::Text(t) if bad.is_none() => {
                let len = t.len() as u64;
                self.emit_verbatim(t, at);
                at += len;
            }
            Utf8Piece::Text(_) => {}
            Utf8Piece::Invalid(o) => bad = bad.or(Some(o)),
        });
        self.core.out.delta_carry = carry;
        bad.map_or(Ok(()), Err)
    }

    /// Arguments text standing verbatim at stream offset `offset` that an
    /// automaton held back from an earlier chunk: a comma and the
    /// whitespace after it (ASCII, so whole characters).
    pub(crate) fn delta_held(&mut self, bytes: &[u8], offset: u64) {
        let delta = match held_comma_text(bytes) {
            Some(text) => Delta::borrowed(text),
            None => Delta::copied(&String::from_utf8_lossy(bytes)),
        };
        self.emit_verbatim(delta, offset);
    }

    /// Arguments text the automaton built that lives as long as the chunk:
    /// the format's syntax, static escapes, runs of the chunk. Joined to
    /// the built deltas before it (see `pending`).
    #[inline]
    pub(crate) fn delta_borrowed(&mut self, text: &'c str) {
        self.pend(text, || Delta::borrowed(text));
    }

    /// Arguments text the automaton built or held; `offset` is where it
    /// was decided, reported if the bytes are not UTF-8.
    pub(crate) fn delta_owned(&mut self, bytes: &[u8], offset: u64) -> Result<(), u64> {
        // The common case, whole characters with nothing carried: no
        // decoding pass.
        if self.core.out.delta_carry.is_empty() {
            if let Ok(text) = validate(bytes) {
                self.emit_built_str(text);
                return Ok(());
            }
        }
        let mut carry = self.core.out.delta_carry;
        let mut bad = None;
        carry.push(bytes, offset, &mut |p| match p {
            Utf8Piece::Text(t) if bad.is_none() => self.emit_built_str(&t),
            Utf8Piece::Text(_) => {}
            // Built bytes have no stream position of their own.
            Utf8Piece::Invalid(_) => bad = bad.or(Some(offset)),
        });
        self.core.out.delta_carry = carry;
        bad.map_or(Ok(()), Err)
    }

    /// The call in progress is complete and the block goes on (several calls
    /// in one block): delivers it with its raw span ending at `end`.
    pub(crate) fn deliver(&mut self, end: u64) {
        self.flush();
        if self.core.deliver(end, (self.chunk, self.base), self.sink) {
            self.core.raw.delivered_to = Some(end);
        }
    }

    /// One call of a block cannot be delivered (several calls in one
    /// block, each standing or falling alone): its raw text, from the end
    /// of what was accounted for up to stream offset `to`, comes back as
    /// text (unless [`OnInvalid::Drop`]) with a diagnostic, and the block
    /// goes on.
    pub(crate) fn reject_part(&mut self, failure: Failure, to: u64) {
        self.flush();
        let core = &mut *self.core;
        let call = core.out.call;
        let tool_name = failure.name.or_else(|| call.map(|_| core.out.name.clone()));
        let span = Span {
            start: core.raw.span_start,
            end: to,
        };
        (self.sink)(Event::Diagnostic(
            Diagnostic::new(failure.kind, failure.offset, failure.message)
                .about_call(call, tool_name)
                .with_span(span),
        ));
        if let Some(id) = call {
            (self.sink)(Event::ToolInputEnd { id });
        }
        core.out.reset();
        self.text_up_to(to);
    }

    /// The block's bytes from the end of what was accounted for up to
    /// stream offset `to` belong to no call: they are text, or dropped with
    /// [`OnInvalid::Drop`] as a failed call's are.
    pub(crate) fn text_up_to(&mut self, to: u64) {
        let core = &mut *self.core;
        if core.settings.on_invalid == OnInvalid::KeepAsText {
            let bytes = core.call_bytes((core.raw.span_start, to), (self.chunk, self.base));
            core.text.push_owned(&bytes, core.raw.span_start, self.sink);
        }
        core.raw.span_start = to;
        core.raw.delivered_to = Some(to);
    }

    /// The model gave the call in progress an id (an empty one is none).
    pub(crate) fn model_call_id(&mut self, id: &str) {
        let id = id.trim();
        if !id.is_empty() {
            self.core.out.model_call_id = Some(id.to_owned());
        }
    }

    /// A problem that was repaired: the call is still delivered.
    pub(crate) fn recovered(&mut self, kind: DiagnosticKind, offset: u64, message: String) {
        self.flush();
        let tool_name = self.core.out.call.map(|_| self.core.out.name.clone());
        (self.sink)(Event::Diagnostic(
            Diagnostic::new(kind, offset, message).about_call(self.core.out.call, tool_name),
        ));
    }
}

/// Why a call attempt failed.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub(crate) kind: DiagnosticKind,
    /// Stream offset where the problem was found.
    pub(crate) offset: u64,
    pub(crate) message: String,
    /// The tool name, when one was read.
    pub(crate) name: Option<String>,
    /// Consumed bytes at the end that are not part of the call (see
    /// [`Outcome::Complete`](crate::protocol::Outcome::Complete)).
    pub(crate) give_back: usize,
}

impl Failure {
    pub(crate) fn new(kind: DiagnosticKind, offset: u64, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            offset,
            message: message.into(),
            name: None,
            give_back: 0,
        }
    }

    /// Bytes that are not a call of the format, found at stream offset
    /// `offset`.
    pub(crate) fn malformed(offset: u64, message: impl Into<String>) -> Failure {
        Failure::new(DiagnosticKind::MalformedCall, offset, message)
    }

    pub(crate) fn with_name(mut self, name: &str) -> Failure {
        self.name = Some(name.to_owned());
        self
    }
}

/// A comma held back and the whitespace after it, in its usual shapes
/// (spaces, or a newline and spaces), as a static string: no allocation.
pub(crate) fn held_comma_text(bytes: &[u8]) -> Option<&'static str> {
    const SPACES: &str = ",                ";
    const NEWLINE: &str = ",\n                ";
    let fits = |shape: &'static str, ws: usize| {
        let len = bytes.len();
        (len <= shape.len()
            && bytes[..ws] == shape.as_bytes()[..ws]
            && bytes[ws..].iter().all(|&b| b == b' '))
        .then(|| &shape[..len])
    };
    match bytes.get(1) {
        Some(b'\n') => fits(NEWLINE, 2),
        _ => fits(SPACES, 1),
    }
}
