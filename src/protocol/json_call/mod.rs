//! JSON between two markers: `<tool_call>{"name": …, "arguments": …}</tool_call>`
//! (hermes, Qwen 2.5/3, and any model with configurable delimiters) and the
//! fenced form `` ```tool_call\n{…}\n``` ``.
//!
//! Arguments stream as the model's own bytes. The automaton tracks the JSON
//! with [`JsonScanner`], so an end marker inside a string is data; it stops at
//! each member of the root object to learn which bytes are the name, the
//! arguments, or something to skip.
//!
//! One block may hold several calls, as models write them: call objects one
//! after another (`{…}\n{…}`), or a JSON array of them (`[{…}, {…}]`). Each
//! is delivered as soon as the next one begins.
//!
//! A block that holds XML calls instead is read by the XML automaton (see
//! [`FirstByte`](crate::protocol::first_byte::FirstByte)).

mod ends;
mod members;
mod relaxed;

use ends::{Reopen, Reopening};
use relaxed::RelaxedBody;

use crate::cx::{CallCx, Sink};
use crate::event::DiagnosticKind;
use crate::protocol::{CallAutomaton, Failure, InCall, Outcome, Steady};
use crate::scan::json::{decode_string_literal, is_complete_value, JsonScanner, Repair, Signal};
use crate::scan::marker::Boundary;
use crate::scan::partial::{Match, Partial, PartialSet, SetMatch};
use crate::scan::skip_ws;

/// A markdown fence's backticks.
const FENCE: &[u8] = b"```";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Whitespace before the `{` (or the `[` of an array of calls).
    Lead,
    /// Inside the JSON object.
    Body,
    /// In an array of calls, after `[` or `,`: the next call object.
    ArrayNext,
    /// In an array of calls, after a call object: `,` or `]`.
    ArrayAfter,
    /// Whitespace after the `}` (or the `]`).
    Trail,
    /// Matching the end marker.
    End(Partial),
    /// After an end marker that also begins the start marker (a fence:
    /// ```` ``` ```` and ```` ```tool_call ````): how much of the start
    /// marker's rest came so far. The end marker closes the call unless the
    /// whole start marker follows: then the call's own end never came, and
    /// the next call begins.
    Reopen(Reopening),
    /// The call object is not JSON: read on to the end marker, to try it as
    /// relaxed JSON (see [`RelaxedBody`]).
    Relaxed,
    /// A markdown fence opening inside the block before the JSON
    /// (```` ```json ````), as some models wrap it: its three backticks.
    FenceOpen(Partial),
    /// The opening fence's language word, if any (`json`).
    FenceWord,
    /// The fence's closing backticks after the JSON.
    FenceClose(Partial),
    /// One of the closing tokens (see [`JsonCall::closed_by_tokens`]) after
    /// the JSON.
    Closer(PartialSet),
}

/// What the bytes of the current root member are being collected for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Capture {
    #[default]
    None,
    Key,
    Name,
    /// An arguments object: streamed as deltas.
    ArgsObject,
    /// Arguments as a JSON-encoded string: decoded when complete.
    ArgsString,
    /// The id the model gave the call (`"id"`, `"tool_call_id"`).
    Id,
    /// A member nobody needs (or `"arguments": null`).
    Skip,
}

/// What the last key announced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Member {
    Name,
    Args,
    Id,
    #[default]
    Other,
}

/// Where [`JsonCall::advance`] stands in its slice.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    /// The next byte to read.
    at: usize,
    /// Where the member being taken began, when that was in this slice:
    /// its first byte and the rest go out as one piece (one delta for
    /// arguments that arrive in one slice).
    member_from: Option<usize>,
}

/// What a format says about its JSON calls: set by the format file when it
/// builds the automaton ([`JsonCall::new`] and the builder methods after
/// it), never changed while reading.
#[derive(Debug, Clone, Default)]
struct Rules {
    /// The end marker of a block, unless [`ends_by_marker`](Self::ends_by_marker)
    /// names another.
    end: Box<[u8]>,
    /// See [`JsonCall::ending_by_marker`]: the end marker of the calls
    /// each start marker opens, by the marker's index.
    ends_by_marker: Vec<Box<[u8]>>,
    /// See [`JsonCall::closed_by_tokens`].
    closers: &'static [&'static [u8]],
    /// See [`JsonCall::code_after_marker`].
    code_after_marker: bool,
    /// See [`JsonCall::separated_by_lines`].
    lines_separate: bool,
    /// See [`JsonCall::opening_arrays`].
    opens_arrays: bool,
    /// See [`JsonCall::needing_arguments`].
    needs_args: bool,
    /// See [`Reopen`].
    reopen: Reopen,
}

/// What is known of the call object being read: a fresh value for each
/// object (see [`JsonCall::begin_object`]).
#[derive(Debug, Clone, Default)]
struct Object {
    capture: Capture,
    member: Member,
    /// Whether the call's name was read.
    has_name: bool,
    /// Stream offset of the name's opening quote.
    name_at: u64,
    seen_args: bool,
    /// The kinds of string repair made in this call
    /// ([`Repair::kind_bit`]): each is reported at its first.
    repaired: u8,
    /// Stream offset of the comma held in [`JsonCall::held_comma`].
    held_at: u64,
    /// Whether a trailing comma was dropped from this call.
    dropped_comma: bool,
    /// Bytes consumed since the JSON ended (whitespace, part of the end
    /// marker); given back if the end marker does not follow.
    trail: usize,
    /// Whether a `,` came after the last call object (outside an array).
    comma: bool,
    /// What [`steady`](JsonCall::steady) found scanning the slice that
    /// [`advance`](JsonCall::advance) gets next, from where it stopped
    /// reading it (`resume`; the start without one).
    prescanned: Option<(usize, Signal)>,
    resume: Option<Cursor>,
    /// Stream offset of the current call object's `{`.
    object_at: u64,
    /// The call object read on as relaxed JSON ([`Phase::Relaxed`]).
    relaxed: Option<RelaxedBody>,
    /// Stream offset of the first extra `}` or `]` after the call object
    /// (`{…}}`), if any: ignored when the end marker follows.
    extra_closer: Option<u64>,
    /// The object has an arguments key (its value may be `null`).
    args_key: bool,
    /// With `needs_args`: the name read before the arguments key, and the
    /// stream offset where it ended; the call starts at that key.
    deferred_name: Option<(String, u64)>,
    /// A line break came after the last call object.
    line_broke: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct JsonCall {
    rules: Rules,
    /// This block's end marker (see [`Rules::ends_by_marker`]).
    end: Box<[u8]>,
    phase: Phase,
    json: JsonScanner,
    object: Object,
    /// Raw bytes of the key, name or arguments string being collected.
    /// (This and the two buffers below outlive the object, so that their
    /// memory serves the next.)
    buf: Vec<u8>,
    /// Arguments text read before the name was known.
    pending: Vec<u8>,
    /// A comma that ended the last slice (and whitespace after it), held
    /// back: a closing bracket may show it was a trailing one, to drop.
    held_comma: Vec<u8>,
    /// The first reason this call cannot be delivered; scanning goes on to
    /// find where the call ends, so all of it comes back as text.
    rejected: Option<Failure>,
    /// Whether the block is a JSON array of calls.
    array: bool,
    /// Stream offset just past the last call object read.
    json_end: u64,
    /// Stream offset of the fence that opened in this block, if any…
    fence_at: Option<u64>,
    /// …and whether it is still open.
    fenced: bool,
    /// Stream offset of the `[` of the block's array of calls…
    list_at: u64,
    /// …and whether a call object opened in it.
    list_has_object: bool,
}
impl JsonCall {
    pub(crate) fn new(end: &[u8], max_depth: usize) -> JsonCall {
        JsonCall {
            rules: Rules {
                end: end.into(),
                ..Rules::default()
            },
            end: end.into(),
            phase: Phase::Lead,
            json: JsonScanner::new(max_depth).accepting_trailing_commas(),
            object: Object::default(),
            buf: Vec::new(),
            pending: Vec::new(),
            held_comma: Vec::new(),
            rejected: None,
            array: false,
            json_end: 0,
            fence_at: None,
            fenced: false,
            list_at: 0,
            list_has_object: false,
        }
    }

    /// Without an end marker, one of `closers` right after the JSON still
    /// belongs to the call (Llama's `<|eom_id|>` / `<|eot_id|>`): it is
    /// markup, not text. They must share no prefix that is not a prefix of
    /// the first.
    pub(crate) fn closed_by_tokens(mut self, closers: &'static [&'static [u8]]) -> JsonCall {
        self.rules.closers = closers;
        self
    }

    /// The start marker may also introduce code (Llama's `<|python_tag|>`
    /// before a built-in tool's call): code after it is text with a
    /// [`BuiltinToolCall`](DiagnosticKind::BuiltinToolCall) diagnostic.
    pub(crate) fn code_after_marker(mut self) -> JsonCall {
        self.rules.code_after_marker = true;
        self
    }

    /// The automaton that reads a call opening the output without its start
    /// marker (see [`ParserBuilder::bare_call_at_start`](crate::ParserBuilder::bare_call_at_start)):
    /// this one's JSON rules and closing tokens, no end marker, and a call
    /// object must have arguments.
    pub(crate) fn bare_lead(&self, max_depth: usize) -> JsonCall {
        let mut lead = JsonCall::new(b"", max_depth).needing_arguments();
        lead.rules.closers = self.rules.closers;
        lead.rules.lines_separate = self.rules.lines_separate;
        lead
    }

    /// Without an end marker, a line break after a call object separates
    /// it from the next, as `;` does (Llama 3 writes one call per line).
    pub(crate) fn separated_by_lines(mut self) -> JsonCall {
        self.rules.lines_separate = true;
        self
    }

    /// Each start marker has an end marker of its own (`ends[i]` for marker
    /// `i`; empty: the call ends with its JSON), as Granite writes
    /// `<|tool_call|>[…]` and `<tool_call>{…}</tool_call>`.
    pub(crate) fn ending_by_marker(mut self, ends: &[&[u8]]) -> JsonCall {
        self.rules.ends_by_marker = ends.iter().map(|&e| e.into()).collect();
        self
    }

    /// The start marker ends with the `[` of an array of calls
    /// (`functools[`): the block is that array.
    pub(crate) fn opening_arrays(mut self) -> JsonCall {
        self.rules.opens_arrays = true;
        self
    }

    /// A call object must have `"arguments"` or `"parameters"` (for JSON
    /// read without a marker at the start of the output, where
    /// `{"name": "x"}` is prose): the call starts once that key is seen,
    /// and an object without it is not a call.
    pub(crate) fn needing_arguments(mut self) -> JsonCall {
        self.rules.needs_args = true;
        self
    }

    /// The start marker `start` begins with the end marker (a fence): an
    /// end marker followed by the rest of it (and its `boundary`) opens the
    /// next call instead of closing this one.
    pub(crate) fn reopened_by(mut self, start: &[u8], boundary: Boundary) -> JsonCall {
        self.rules.reopen = Reopen::new(start, &self.rules.end, boundary);
        self
    }

    /// Whether a markdown fence may wrap the JSON inside the block (not for
    /// fences themselves, nor without an end marker).
    fn fences(&self) -> bool {
        self.end.first().is_some_and(|&b| b != b'`')
    }

    /// Readies the per-call state for the next call object of the block.
    fn begin_object(&mut self) {
        self.object = Object::default();
        self.json.reset();
        self.buf.clear();
        self.pending.clear();
        self.held_comma.clear();
    }

    /// Another call object follows in the same block: delivers the one just
    /// read and starts on the next. Each call of a block stands or falls
    /// alone, as in the XML blocks: one rejected while its JSON held (no
    /// name, an unknown tool, arguments that are no object) comes back as
    /// text on its own. JSON that is no call at all (no arguments where
    /// they are needed) gives the rest of the block back at its end.
    fn next_object<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        if let Some(failure) = self.rejected.take() {
            cx.reject_part(failure, self.json_end);
            self.begin_object();
            return;
        }
        self.require_arguments(self.json_end);
        if self.rejected.is_none() {
            self.report_extra_closer(cx);
            if !self.object.seen_args {
                cx.delta_borrowed("{}");
            }
            cx.deliver(self.json_end);
        }
        self.begin_object();
    }

    /// With `needs_args`, an object without arguments is not a call.
    fn require_arguments(&mut self, at: u64) {
        if self.rules.needs_args && !self.object.args_key {
            self.reject(Failure::malformed(
                at,
                "JSON with neither \"arguments\" nor \"parameters\" is not a call",
            ));
        }
    }

    fn reject(&mut self, failure: Failure) {
        if self.rejected.is_none() {
            self.rejected = Some(failure);
        }
    }

    /// A call object begins with the `{` at stream offset `at`.
    fn open_object(&mut self, at: u64) {
        self.object.object_at = at;
        self.list_has_object = true;
        self.phase = Phase::Body;
    }

    /// Before the call object: `{`, the `[` of an array of calls, a fence,
    /// or an XML call.
    fn lead<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        cur.at += skip_ws(&bytes[cur.at..]);
        match bytes.get(cur.at) {
            None => return Some(Outcome::More),
            Some(b'{') => self.open_object(cx.offset(cur.at)),
            Some(b'[') => {
                self.list_at = cx.offset(cur.at);
                self.list_has_object = false;
                cur.at += 1;
                self.array = true;
                self.phase = Phase::ArrayNext;
            }
            Some(b'`') if self.fences() && self.fence_at.is_none() => {
                self.fence_at = Some(cx.offset(cur.at));
                self.phase = Phase::FenceOpen(Partial::default());
            }
            Some(_) if self.rules.code_after_marker && self.fence_at.is_none() => {
                return Some(Outcome::failed(Failure::new(
                    DiagnosticKind::BuiltinToolCall,
                    cx.offset(cur.at),
                    "code after the start marker: a call to a built-in tool, kept as text",
                )))
            }
            Some(_) => return Some(no_object(cx.offset(cur.at))),
        }
        None
    }

    /// Inside the call object: the scanner runs to the next member
    /// boundary, and what it read goes to the member being taken.
    fn body<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let i = cur.at;
        let (n, signal) = match self.object.prescanned.take() {
            Some(scan) => scan,
            None => self.json.advance(&bytes[i..]),
        };
        let from = cur.member_from.take().unwrap_or(i);
        let seg = &bytes[from..i + n];
        let seg_offset = cx.offset(from);
        let i = i + n;
        cur.at = i;
        if !self.held_comma.is_empty() && self.settle_held_comma(seg, signal, cx) {
            return Some(Outcome::More);
        }
        match signal {
            // A comma (and whitespace) at the end: held back until what
            // follows shows whether it is a trailing one.
            Signal::More if self.json.after_comma() => {
                self.comma_at_end(seg, seg_offset, false, cx);
                return Some(Outcome::More);
            }
            Signal::More => {
                self.take(seg, seg_offset, cx);
                return Some(Outcome::More);
            }
            // The closing bracket is read next; the comma before it is
            // dropped with the whitespace after it (if it was held back, it
            // already was).
            Signal::TrailingComma => {
                self.comma_at_end(seg, seg_offset, true, cx);
                cur.member_from = Some(i);
            }
            Signal::KeyStart => {
                self.object.capture = Capture::Key;
                self.buf.clear();
                self.buf.push(b'"');
            }
            Signal::ValueStart => {
                self.value_start(seg[seg.len() - 1], cx.offset(i - 1));
                cur.member_from = Some(i - 1);
            }
            Signal::KeyEnd => {
                self.take(seg, seg_offset, cx);
                self.key_end(cx.offset(i), cx);
            }
            Signal::ValueEnd => {
                self.take(seg, seg_offset, cx);
                self.value_end(cx.offset(i), cx);
            }
            Signal::RootEnd => self.root_end(cx.offset(i), cx),
            Signal::Control => {
                self.take(seg, seg_offset, cx);
                self.repair(Repair::Control(bytes[i]), cx.offset(i), cx);
                cur.at += 1;
            }
            Signal::BadEscape => {
                self.take(seg, seg_offset, cx);
                let repair = Repair::of_bad_escape(bytes[i]);
                self.repair(repair, cx.offset(i), cx);
                cur.at += repair.replaced();
            }
            Signal::Syntax | Signal::TooDeep => {
                self.take(seg, seg_offset, cx);
                return self.not_json(signal, cx.offset(i), cx);
            }
        }
        None
    }

    /// The call object closed at `at`.
    fn root_end<'c, S: Sink<'c>>(&mut self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
        if !self.object.has_name && self.rejected.is_none() {
            self.name_from_function(at, cx);
        }
        if !self.object.has_name {
            self.reject(Failure::new(
                DiagnosticKind::MissingName,
                at,
                "the call object has no \"name\"",
            ));
        }
        self.json_end = at;
        self.phase = if self.array {
            Phase::ArrayAfter
        } else {
            Phase::Trail
        };
    }

    /// The call object stopped being JSON at `at`: it fails, unless it may
    /// still be relaxed JSON ([`Phase::Relaxed`] reads on to the end marker
    /// to try).
    fn not_json<'c, S: Sink<'c>>(
        &mut self,
        signal: Signal,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let (kind, what) = if signal == Signal::TooDeep {
            (DiagnosticKind::TooDeep, "JSON nested too deep")
        } else {
            (DiagnosticKind::MalformedCall, "malformed JSON")
        };
        let f = Failure::new(kind, at, format!("{what} in the call body at byte {at}"));
        let relaxable = signal == Signal::Syntax
            && self.rejected.is_none()
            && !self.array
            && !self.end.is_empty()
            && cx.claim_read_ahead(at);
        if relaxable {
            self.object.relaxed = Some(RelaxedBody::new(
                cx.call_bytes(self.object.object_at, at),
                f,
            ));
            self.phase = Phase::Relaxed;
            return None;
        }
        Some(Outcome::failed(self.rejected.take().unwrap_or(f)))
    }

    /// In an array of calls, after `[` or `,`: the next call object.
    fn array_next<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        cur.at += skip_ws(&bytes[cur.at..]);
        match bytes.get(cur.at) {
            None => Some(Outcome::More),
            Some(b'{') => {
                self.open_object(cx.offset(cur.at));
                None
            }
            // Unmarked JSON at the start whose list holds no object first
            // (`[1] …`, `[TOOL_CALLS]`) is prose: all of it is read again
            // as text, where a marker may begin at its `[`.
            Some(_) if self.rules.needs_args && !self.list_has_object => {
                let at = cx.offset(cur.at);
                let read = usize::try_from(at - self.list_at).unwrap_or(usize::MAX);
                Some(Outcome::NotACall { read })
            }
            Some(_) => {
                let f = Failure::malformed(
                    cx.offset(cur.at),
                    "expected a call object in the array of calls",
                );
                Some(Outcome::failed(self.rejected.take().unwrap_or(f)))
            }
        }
    }

    /// In an array of calls, after a call object: `,` or `]`.
    fn array_after<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let ws = skip_ws(&bytes[cur.at..]);
        cur.at += ws;
        self.object.trail += ws;
        match bytes.get(cur.at) {
            None => return Some(Outcome::More),
            Some(b',') => {
                cur.at += 1;
                self.next_object(cx);
                self.phase = Phase::ArrayNext;
            }
            Some(b']') => {
                cur.at += 1;
                self.object.trail = 0;
                self.array = false;
                self.json_end = cx.offset(cur.at);
                self.phase = Phase::Trail;
            }
            // The array ends early: so does the call.
            Some(_) => return Some(self.conclude(cx, Some(self.json_end))),
        }
        None
    }
}

impl CallAutomaton for JsonCall {
    fn begin(&mut self, marker: usize) {
        if let Some(end) = self.rules.ends_by_marker.get(marker) {
            // Allocates only when the marker differs from the last call's.
            if *end != self.end {
                self.end = end.clone();
            }
        }
        self.phase = if self.rules.opens_arrays {
            Phase::ArrayNext
        } else {
            Phase::Lead
        };
        self.rejected = None;
        self.array = self.rules.opens_arrays;
        self.fence_at = None;
        self.fenced = false;
        self.begin_object();
    }
    /// See [`Automaton::reject_invalid_utf8`](super::Automaton::reject_invalid_utf8).
    fn reject_invalid_utf8(&mut self, at: u64) {
        self.reject(invalid_utf8(at));
    }
    /// See [`Automaton::steady`](super::Automaton::steady): bytes of the
    /// call object that end no member of it. When they do, the scan is kept
    /// for [`advance`](Self::advance), which comes next with the same bytes.
    #[inline]
    fn steady<'c>(&mut self, bytes: &'c [u8], offset: u64, call: InCall) -> Steady<'c> {
        if let Phase::End(marker) = &mut self.phase {
            // More of the end marker, not yet all of it.
            if marker.continues_without_end(&self.end, bytes) {
                marker.take(bytes.len());
                self.object.trail += bytes.len();
                return Steady::Quiet;
            }
            return Steady::No;
        }
        if self.phase == Phase::Trail {
            return self.steady_trail(bytes);
        }
        if self.phase != Phase::Body || self.rejected.is_some() {
            return match self.phase {
                Phase::Closer(_) if self.rejected.is_none() => self.steady_closer(bytes),
                _ => Steady::No,
            };
        }
        let scan = self.json.advance(bytes);
        if scan.1.opens_or_names_member() {
            return self.quiet_members(bytes, offset, scan);
        }
        // A comma at the end may be a trailing one: it is held back.
        if scan.1 == Signal::More && self.held_comma.is_empty() && self.json.after_comma() {
            if let Some(steady) = self.comma_ends_chunk(bytes, offset, call) {
                return steady;
            }
        } else if scan.1 == Signal::More && !self.held_comma.is_empty() {
            if let Some(steady) = self.comma_before_chunk(bytes, call) {
                return steady;
            }
        } else if scan.1 == Signal::More {
            match self.object.capture {
                Capture::ArgsObject if call.started => {
                    return Steady::Verbatim {
                        in_string: self.json.in_plain_string(),
                    }
                }
                Capture::ArgsObject => {
                    crate::scan::append_bytes(&mut self.pending, bytes);
                    return Steady::Quiet;
                }
                Capture::Key | Capture::Name | Capture::Id | Capture::ArgsString => {
                    crate::scan::append_bytes(&mut self.buf, bytes);
                    return Steady::Quiet;
                }
                Capture::None | Capture::Skip => return Steady::Quiet,
            }
        }
        self.object.prescanned = Some(scan);
        Steady::No
    }
    /// Reads `bytes` phase by phase. Each phase is a step of its own, which
    /// returns `None` when it moved to another phase (the loop goes on) and
    /// the outcome otherwise; `cur` is where it stands in `bytes`.
    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let mut cur = self.object.resume.take().unwrap_or(Cursor {
            at: 0,
            member_from: None,
        });
        loop {
            let step = match self.phase {
                Phase::Lead => self.lead(bytes, &mut cur, cx),
                Phase::Body => self.body(bytes, &mut cur, cx),
                Phase::ArrayNext => self.array_next(bytes, &mut cur, cx),
                Phase::ArrayAfter => self.array_after(bytes, &mut cur, cx),
                Phase::Trail => self.trailing(bytes, &mut cur, cx),
                Phase::Relaxed => self.relaxed_read(bytes, &mut cur, cx),
                Phase::FenceOpen(ticks) => self.fence_open(ticks, bytes, &mut cur, cx),
                Phase::FenceWord => self.fence_word(bytes, &mut cur),
                Phase::FenceClose(ticks) => self.fence_close(ticks, bytes, &mut cur, cx),
                Phase::End(marker) => self.matching_end(marker, bytes, &mut cur, cx),
                Phase::Reopen(reading) => self.after_end_marker(reading, bytes, &mut cur, cx),
                Phase::Closer(closer) => self.closing_token(closer, bytes, &mut cur, cx),
            };
            if let Some(outcome) = step {
                return (cur.at, outcome);
            }
        }
    }

    /// The stream ended inside the call.
    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        match self.phase {
            Phase::Lead
            | Phase::Body
            | Phase::ArrayNext
            | Phase::FenceOpen(_)
            | Phase::FenceWord => {
                let what = if self.json.in_string() {
                    "the stream ended inside a string of the call's JSON"
                } else {
                    "the stream ended before the call's JSON was complete"
                };
                Outcome::failed(Failure::new(
                    DiagnosticKind::UnfinishedCall,
                    cx.offset(0),
                    what,
                ))
            }
            Phase::ArrayAfter => self.conclude(cx, Some(self.json_end)),
            Phase::Relaxed => {
                // An end marker the read-ahead left undecided (the start
                // marker may have been following it) closes at the end of
                // the stream; what follows it is text again.
                let end = self.end.len();
                let closed = match self.object.relaxed.as_mut() {
                    Some(relaxed) => match relaxed.find_end(&self.end, &self.rules.reopen, true) {
                        Some((k, closes)) => {
                            // The read-ahead returns any marker it can decide.
                            debug_assert!(closes, "a decided marker ends the read-ahead");
                            let after = relaxed.bytes.len() - (k + end);
                            relaxed.bytes.truncate(k);
                            Some(after)
                        }
                        None => None,
                    },
                    None => None,
                };
                match self.relaxed_end(cx.offset(0), closed.is_none(), cx) {
                    Outcome::Complete { give_back: 0 } => Outcome::Complete {
                        give_back: closed.unwrap_or(0),
                    },
                    outcome => outcome,
                }
            }
            Phase::Trail if self.end.is_empty() => self.conclude(cx, None),
            // The end marker closed the call.
            Phase::Reopen(reading) => {
                self.object.trail = self.rules.reopen.read(reading);
                self.conclude(cx, None)
            }
            // A closer cut short by the end of the stream is text.
            Phase::Closer(_) => self.conclude(cx, None),
            Phase::Trail | Phase::End(_) | Phase::FenceClose(_) => {
                let end_of_json = cx.offset(0).saturating_sub(self.object.trail as u64);
                self.conclude(cx, Some(end_of_json))
            }
        }
    }
}

/// The block does not begin with a call object (the byte at stream offset
/// `at` is something else).
fn no_object(at: u64) -> Outcome {
    Outcome::malformed(at, "expected a JSON object after the start marker")
}

fn invalid_utf8(offset: u64) -> Failure {
    Failure::new(
        DiagnosticKind::InvalidUtf8,
        offset,
        "invalid UTF-8 inside the call's arguments",
    )
}
