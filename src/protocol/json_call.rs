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
//! A `hermes` block whose first non-whitespace byte is `<` holds a call in
//! Qwen3-Coder's XML layout (`<function=NAME><parameter=KEY>…`), as
//! Qwen3-Coder writes when it is served with a hermes parser: the XML
//! automaton reads that block, up to the same end marker.

use std::borrow::Cow;

use crate::cx::CallCx;
use crate::event::DiagnosticKind;
use crate::event::Event;
use crate::protocol::CallAutomaton;
use crate::protocol::{Failure, Outcome, Steady};
use crate::scan::json::{is_complete_value, JsonScanner, Repair, Signal};
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
    /// ```` ``` ```` and ```` ```tool_call ````): `seen` bytes of the start
    /// marker's rest so far. The end marker closes the call unless the
    /// whole start marker follows: then the call's own end never came, and
    /// the next call begins.
    Reopen { seen: usize },
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

/// A call object that turned out not to be JSON, kept whole up to the end
/// marker: models write Python dicts (`{'name': 'f', 'arguments': {'x':
/// True}}`), trailing commas and unquoted keys. If it reads as relaxed JSON
/// (and the arguments that already streamed begin its rewrite), the call is
/// delivered with its arguments as JSON; if not, it fails as it would have
/// at once, and what was read after the failure goes back to be read as
/// text.
#[derive(Debug, Clone)]
struct RelaxedBody {
    /// The object's bytes, from its `{`.
    bytes: Vec<u8>,
    /// Why it is not JSON (the offset is where it stopped being JSON).
    failure: Failure,
    /// How far `bytes` were searched for the end marker…
    searched: usize,
    /// …and the string open there (its quote), if any, and whether a
    /// backslash came last in it.
    quote: Option<u8>,
    escaped: bool,
}

impl RelaxedBody {
    fn new(bytes: Vec<u8>, failure: Failure) -> RelaxedBody {
        RelaxedBody {
            bytes,
            failure,
            searched: 0,
            quote: None,
            escaped: false,
        }
    }

    /// Where `end` first stands outside a string (single- or double-quoted)
    /// in the bytes so far, searching on from where the last search
    /// stopped: one pass over the body, and the same answer however it
    /// arrived. A partial `end` at the very end is searched again next time.
    /// An `end` that begins the next call's start marker does not close
    /// the body, which ends before it without its end marker (see
    /// [`Phase::Reopen`]; `at_eof`, the bytes are all there is):
    /// `(where, closes)`.
    fn find_end(&mut self, end: &[u8], reopen: &Reopen, at_eof: bool) -> Option<(usize, bool)> {
        let mut i = self.searched;
        while let Some(&b) = self.bytes.get(i) {
            match self.quote {
                Some(_) if self.escaped => self.escaped = false,
                Some(_) if b == b'\\' => self.escaped = true,
                Some(q) if b == q => self.quote = None,
                Some(_) => {}
                None if b == b'"' || b == b'\'' => self.quote = Some(b),
                None if b == end[0] => {
                    let rest = &self.bytes[i..];
                    if rest.starts_with(end) {
                        match reopen.follows(0, &rest[end.len()..], at_eof) {
                            Some(reopens) => {
                                self.searched = i;
                                return Some((i, !reopens));
                            }
                            // Too few bytes after it yet to tell.
                            None => break,
                        }
                    } else if end.starts_with(rest) {
                        break;
                    }
                }
                None => {}
            }
            i += 1;
        }
        self.searched = i;
        None
    }
}

/// The rest of the start marker after an end marker that begins it
/// (```` ```tool_call ```` after ```` ``` ````), with the boundary the start
/// marker needs; empty for formats whose markers differ.
#[derive(Debug, Clone, Default)]
struct Reopen {
    tail: Box<[u8]>,
    boundary: Option<Boundary>,
}

impl Reopen {
    /// The start marker's rest after `end`, if `start` begins with it.
    fn new(start: &[u8], end: &[u8], boundary: Boundary) -> Reopen {
        match start.strip_prefix(end) {
            Some(tail) if !end.is_empty() && !tail.is_empty() => Reopen {
                tail: tail.into(),
                boundary: Some(boundary),
            },
            _ => Reopen::default(),
        }
    }

    /// Whether the start marker's rest (and its boundary) follows the end
    /// marker, where `seen` bytes of it did and `after` comes next. `None`
    /// while `after` is too short to tell, unless `at_eof` (it is all there
    /// is).
    fn follows(&self, seen: usize, after: &[u8], at_eof: bool) -> Option<bool> {
        let Some(boundary) = self.boundary else {
            return Some(false);
        };
        let tail = self.tail.get(seen..).unwrap_or_default();
        let n = after.len().min(tail.len());
        if after[..n] != tail[..n] {
            return Some(false);
        }
        let decided = if n < tail.len() {
            None
        } else if boundary == Boundary::None {
            Some(true)
        } else {
            after.get(n).map(|&b| boundary.accepts(b))
        };
        decided.or(at_eof.then_some(false))
    }
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
    /// What [`steady`](JsonCall::steady) found scanning the start of the
    /// slice that [`advance`](JsonCall::advance) gets next.
    prescanned: Option<(usize, Signal)>,
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
    /// The marker that ends the call.
    pub(crate) fn end_marker(&self) -> &[u8] {
        &self.end
    }

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
    /// read (unless the block was rejected: then all of it comes back as
    /// text at its end) and starts on the next.
    fn next_object<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        self.require_arguments(self.json_end);
        if self.rejected.is_none() {
            self.report_extra_closer(cx);
            if !self.object.seen_args {
                cx.delta_static("{}");
            }
            cx.deliver(self.json_end);
        }
        self.begin_object();
    }

    /// With `needs_args`, an object without arguments is not a call.
    fn require_arguments(&mut self, at: u64) {
        if self.rules.needs_args && !self.object.args_key {
            self.reject(Failure::new(
                DiagnosticKind::MalformedCall,
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

    /// Bytes of the current member, in the current chunk.
    #[inline]
    fn take<'c, S: FnMut(Event<'c>)>(
        &mut self,
        seg: &'c [u8],
        offset: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        if seg.is_empty() || self.rejected.is_some() {
            return;
        }
        match self.object.capture {
            Capture::None | Capture::Skip => {}
            Capture::Key | Capture::Name | Capture::Id | Capture::ArgsString => {
                self.buf.extend_from_slice(seg)
            }
            Capture::ArgsObject => {
                if cx.started() {
                    if let Err(at) = cx.delta(seg, offset) {
                        self.reject(invalid_utf8(at));
                    }
                } else {
                    self.pending.extend_from_slice(seg);
                }
            }
        }
    }

    /// The slice `seg` follows a held-back comma, and the scan stopped with
    /// `signal`: a closing bracket after nothing but whitespace drops the
    /// comma (and the whitespace after it); anything else sends it. Whether
    /// it is still held (only whitespace so far, more to come).
    #[cold]
    #[inline(never)]
    fn settle_held_comma<'c, S: FnMut(Event<'c>)>(
        &mut self,
        seg: &[u8],
        signal: Signal,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> bool {
        let only_ws = last_token(seg).is_none();
        if only_ws && signal == Signal::More {
            self.held_comma.extend_from_slice(seg);
            return true;
        }
        if only_ws && signal == Signal::TrailingComma {
            self.comma_dropped(self.object.held_at, cx);
        } else if self.rejected.is_none() && self.object.capture == Capture::ArgsObject {
            // (No other capture spans a comma.)
            if cx.started() {
                cx.delta_held(&self.held_comma, self.object.held_at);
            } else {
                self.pending.extend_from_slice(&self.held_comma);
            }
        }
        self.held_comma.clear();
        false
    }

    /// `seg` (at stream offset `offset`) ends with a comma and whitespace
    /// (unless a comma held back before it was dropped already): what comes
    /// before the comma goes out; the comma is then dropped if `trailing`
    /// (a closing bracket follows), else held back with the whitespace.
    #[cold]
    #[inline(never)]
    fn comma_at_end<'c, S: FnMut(Event<'c>)>(
        &mut self,
        seg: &'c [u8],
        offset: u64,
        trailing: bool,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let Some(k) = last_token(seg) else {
            return;
        };
        self.take(&seg[..k], offset, cx);
        if trailing {
            self.comma_dropped(offset + k as u64, cx);
        } else {
            self.held_comma.extend_from_slice(&seg[k..]);
            self.object.held_at = offset + k as u64;
        }
    }

    /// A trailing comma at stream offset `at` was left out of the
    /// arguments: reported, once per call.
    fn comma_dropped<'c, S: FnMut(Event<'c>)>(&mut self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
        if !self.object.dropped_comma && self.rejected.is_none() {
            self.object.dropped_comma = true;
            cx.recovered(
                DiagnosticKind::RepairedJson,
                at,
                "a trailing comma in the call's JSON was dropped".into(),
            );
        }
    }

    /// Writes `repair` where the model's bytes were not JSON, and says so
    /// once per call.
    fn repair<'c, S: FnMut(Event<'c>)>(
        &mut self,
        repair: Repair,
        offset: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        if self.rejected.is_some() {
            return;
        }
        if self.object.repaired & repair.kind_bit() == 0 {
            self.object.repaired |= repair.kind_bit();
            cx.recovered(
                DiagnosticKind::RepairedJson,
                offset,
                repair.message().into(),
            );
        }
        let mut buf = [0; 6];
        let fixed = repair.text(&mut buf);
        match self.object.capture {
            Capture::None | Capture::Skip => {}
            Capture::Key | Capture::Name | Capture::Id | Capture::ArgsString => {
                self.buf.extend_from_slice(fixed)
            }
            Capture::ArgsObject if cx.started() => {
                let _ = cx.delta_owned(fixed, offset);
            }
            Capture::ArgsObject => self.pending.extend_from_slice(fixed),
        }
    }

    /// The JSON is complete and the call ends (`missing_end` says where, if
    /// the end marker never came).
    fn conclude<'c, S: FnMut(Event<'c>)>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        missing_end: Option<u64>,
    ) -> Outcome {
        let give_back = self.object.trail;
        self.require_arguments(self.json_end);
        if let Some(mut f) = self.rejected.take() {
            f.give_back = give_back;
            return Outcome::failed(f);
        }
        self.report_fence(cx);
        match missing_end {
            Some(offset) => self.missing_end_marker("JSON", offset, cx),
            None => self.report_extra_closer(cx),
        }
        if !self.object.seen_args {
            // No arguments (or `null`): the input is an empty object.
            cx.delta_static("{}");
        }
        Outcome::Complete { give_back }
    }

    /// A markdown fence around the JSON is part of the call: reported.
    fn report_fence<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        if let Some(at) = self.fence_at.take() {
            cx.recovered(
                DiagnosticKind::RepairedJson,
                at,
                "the call's JSON was wrapped in a markdown code fence; read inside it".into(),
            );
        }
    }

    /// Extra closing brackets after the call object are part of the call:
    /// reported.
    fn report_extra_closer<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        if let Some(at) = self.object.extra_closer.take() {
            cx.recovered(
                DiagnosticKind::RepairedJson,
                at,
                "extra closing brackets after the call's JSON were ignored".into(),
            );
        }
    }

    /// The call's `body` (its JSON, or its relaxed body) is complete at
    /// stream offset `offset`, but its end marker does not follow: reported,
    /// and the call delivered.
    fn missing_end_marker<'c, S: FnMut(Event<'c>)>(
        &self,
        body: &str,
        offset: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let message = if self.end.is_empty() {
            // Only a list of calls is closed without an end marker.
            "the list of calls is not closed (no `]`); call recovered".to_owned()
        } else {
            let end = String::from_utf8_lossy(&self.end);
            format!("the call's {body} is complete but its end marker {end:?} is missing; call recovered")
        };
        cx.recovered(DiagnosticKind::MissingEndMarker, offset, message);
    }

    /// A call object begins with the `{` at stream offset `at`.
    fn open_object(&mut self, at: u64) {
        self.object.object_at = at;
        self.list_has_object = true;
        self.phase = Phase::Body;
    }

    /// The relaxed call object ended at stream offset `end_at` (past its end
    /// marker, or the end of the stream when `missing_end`): delivered if it
    /// reads as relaxed JSON, failed as it first failed if not.
    fn relaxed_end<'c, S: FnMut(Event<'c>)>(
        &mut self,
        end_at: u64,
        missing_end: bool,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Outcome {
        cx.read_ahead_to(end_at);
        let Some(relaxed) = self.object.relaxed.as_ref() else {
            return self.relaxed_failed(end_at);
        };
        let max_depth = cx.limits().max_depth;
        let text = std::str::from_utf8(&relaxed.bytes).ok();
        let read_as_is = text.and_then(|text| relaxed_call(text, max_depth, false));
        // Models now and then stop before the object's last closing
        // brackets: before an end marker (not at the end of the stream,
        // which may have cut the call short), they are added.
        let closed = read_as_is.is_none() && !missing_end;
        let Some((name, args, read)) = read_as_is.or_else(|| {
            text.filter(|_| closed)
                .and_then(|text| relaxed_call(text, max_depth, true))
        }) else {
            return self.relaxed_failed(end_at);
        };
        let at = relaxed.failure.offset;
        // Something else follows the object before the end marker (or the
        // end of the stream): the call ends with its object, as a JSON one
        // does, and what follows is read again as text.
        let object_end = self.object.object_at + read as u64;
        let after = relaxed.bytes[read..].to_vec();
        let give_back = self.after_relaxed(&after, object_end, end_at, missing_end);
        let missing_end = missing_end || give_back > 0;
        // Arguments that streamed before the body stopped being JSON must
        // be where the rewritten arguments begin.
        let streamed = cx.input_text();
        let Some(rest) = args.strip_prefix(streamed.as_ref()) else {
            return self.relaxed_failed(end_at);
        };
        let rest = rest.to_owned();
        match cx.started_name() {
            Some(started) if started != name => return self.relaxed_failed(end_at),
            Some(_) => {}
            // A tool refused here fails the whole call, as it would in JSON.
            None => {
                if let Err(f) = cx.start_at(&name, None, at) {
                    self.object.relaxed = None;
                    return Outcome::failed(f.with_name(&name));
                }
            }
        }
        self.object.relaxed = None;
        let what = if closed {
            "the call's body ended before its closing brackets: closed (and read as JSON if relaxed)"
        } else {
            "the call's body is relaxed JSON (single quotes, Python literals, trailing commas or unquoted keys); read as JSON"
        };
        cx.recovered(DiagnosticKind::RepairedJson, at, what.into());
        self.report_fence(cx);
        if missing_end {
            self.missing_end_marker("body", object_end, cx);
        }
        self.report_extra_closer(cx);
        let _ = cx.delta_owned(rest.as_bytes(), end_at);
        self.object.seen_args = true;
        Outcome::Complete { give_back }
    }

    /// What follows a relaxed object (ending at stream offset
    /// `object_end`) up to the end marker or the stream's end (`end_at`):
    /// extra closing brackets are ignored, as after a JSON object, and so
    /// is the close of a fence around it; anything else is given back
    /// (how many bytes, returned) and the call ends with its object.
    fn after_relaxed(
        &mut self,
        after: &[u8],
        object_end: u64,
        end_at: u64,
        missing_end: bool,
    ) -> usize {
        let fenced = self.fenced;
        let closers_only = !missing_end
            && after.iter().all(|&b| {
                matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'}' | b']') || (fenced && b == b'`')
            });
        if closers_only {
            self.object.extra_closer = after
                .iter()
                .position(|b| matches!(b, b'}' | b']'))
                .map(|k| object_end + k as u64);
        }
        if closers_only || crate::scan::skip_ws(after) == after.len() {
            0
        } else {
            usize::try_from(end_at - object_end).unwrap_or(usize::MAX)
        }
    }

    /// The relaxed call object is not relaxed JSON either: it fails as it
    /// first failed, and what was read after that (up to stream offset
    /// `end_at`) goes back to be read as text.
    fn relaxed_failed(&mut self, end_at: u64) -> Outcome {
        let Some(relaxed) = self.object.relaxed.take() else {
            return Outcome::failed(Failure::new(
                DiagnosticKind::MalformedCall,
                end_at,
                "malformed JSON in the call body",
            ));
        };
        let mut f = relaxed.failure;
        f.give_back = usize::try_from(end_at.saturating_sub(f.offset)).unwrap_or(usize::MAX);
        Outcome::failed(f)
    }

    /// A member's value begins with byte `first`, at stream offset `offset`
    /// (taken with the bytes that follow it).
    fn value_start(&mut self, first: u8, offset: u64) {
        self.buf.clear();
        self.object.capture = match self.object.member {
            Member::Other => Capture::Skip,
            Member::Id if first == b'"' => Capture::Id,
            Member::Id => Capture::Skip,
            Member::Name => {
                self.object.name_at = offset;
                Capture::Name
            }
            Member::Args => match first {
                b'{' => Capture::ArgsObject,
                b'"' => Capture::ArgsString,
                b'n' => {
                    self.object.seen_args = false;
                    Capture::Skip
                }
                _ => {
                    self.reject(Failure::new(
                        DiagnosticKind::InvalidArguments,
                        offset,
                        "\"arguments\" must be an object",
                    ));
                    Capture::Skip
                }
            },
        };
    }

    fn key_end<'c, S: FnMut(Event<'c>)>(&mut self, offset: u64, cx: &mut CallCx<'_, 'c, S>) {
        self.object.capture = Capture::None;
        self.object.member = match self.buf.as_slice() {
            // The keys as models write them, without decoding.
            br#""name""# | br#""tool_name""# => Member::Name,
            br#""arguments""# | br#""parameters""# => Member::Args,
            br#""id""# | br#""tool_call_id""# | br#""call_id""# => Member::Id,
            raw if !raw.contains(&b'\\') => Member::Other,
            raw => match decode_string(raw).as_deref() {
                Some("name" | "tool_name") => Member::Name,
                Some("arguments" | "parameters") => Member::Args,
                Some("id" | "tool_call_id" | "call_id") => Member::Id,
                _ => Member::Other,
            },
        };
        let duplicate = match self.object.member {
            Member::Name => self.object.has_name,
            Member::Args => self.object.seen_args,
            Member::Id | Member::Other => false,
        };
        if duplicate {
            self.reject(Failure::new(
                DiagnosticKind::DuplicateKey,
                offset,
                format!(
                    "{} appears twice in the call",
                    String::from_utf8_lossy(&self.buf)
                ),
            ));
        }
        if self.object.member == Member::Args {
            self.object.seen_args = true;
            self.object.args_key = true;
            if let Some((name, at)) = self.object.deferred_name.take() {
                if let Err(f) = cx.start(&name, at) {
                    self.reject(f.with_name(&name));
                }
            }
        }
    }

    /// The call object, which ended at stream offset `end`, has no
    /// `"name"`: if it names its tool by `"function"`
    /// ([`named_by_function`]), the call starts now, with all of its
    /// arguments.
    #[cold]
    #[inline(never)]
    fn name_from_function<'c, S: FnMut(Event<'c>)>(
        &mut self,
        end: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let object = cx.call_bytes(self.object.object_at, end);
        let Some((name, args)) = named_by_function(&object, cx.limits().max_depth) else {
            return;
        };
        if let Err(f) = cx.start(&name, end) {
            return self.reject(f.with_name(&name));
        }
        self.object.has_name = true;
        // Without arguments of its own, the object's are those read so
        // far (none: the conclusion sends `{}`).
        let args = match args {
            Some(nested) => {
                self.object.args_key = true;
                nested.into_bytes()
            }
            None => std::mem::take(&mut self.pending),
        };
        self.object.seen_args |= !args.is_empty();
        if let Err(at) = cx.delta_owned(&args, end) {
            self.reject(invalid_utf8(at));
        }
        self.pending.clear();
    }

    fn value_end<'c, S: FnMut(Event<'c>)>(&mut self, offset: u64, cx: &mut CallCx<'_, 'c, S>) {
        let capture = std::mem::replace(&mut self.object.capture, Capture::None);
        if self.rejected.is_some() {
            return;
        }
        match capture {
            Capture::Name => {
                // Without escapes the name stands verbatim after its quote.
                let origin = (!self.buf.contains(&b'\\')).then_some(self.object.name_at + 1);
                let started = match decode_str(&self.buf).filter(|n| !n.is_empty()) {
                    None => Err(Failure::new(
                        DiagnosticKind::MissingName,
                        offset,
                        "\"name\" must be a non-empty string",
                    )),
                    Some(name) if self.rules.needs_args && !self.object.seen_args => {
                        self.object.deferred_name = Some((name.into_owned(), offset));
                        Ok(())
                    }
                    Some(name) => cx
                        .start_at(&name, origin, offset)
                        .map_err(|f| f.with_name(&name)),
                };
                if let Err(f) = started {
                    return self.reject(f);
                }
                self.object.has_name = true;
                if !self.pending.is_empty() {
                    let pending = std::mem::take(&mut self.pending);
                    if let Err(at) = cx.delta_owned(&pending, offset) {
                        self.reject(invalid_utf8(at));
                    }
                    self.pending = pending;
                    self.pending.clear();
                }
            }
            Capture::ArgsString => {
                let Some(text) = object_in_string(&self.buf, cx.limits().max_depth) else {
                    return self.reject(Failure::new(
                        DiagnosticKind::InvalidArguments,
                        offset,
                        "\"arguments\" is a string that does not hold a JSON object",
                    ));
                };
                if cx.started() {
                    let _ = cx.delta_owned(text.as_bytes(), offset);
                } else {
                    self.pending.extend_from_slice(text.as_bytes());
                }
            }
            Capture::Id => {
                if let Some(id) = decode_str(&self.buf) {
                    cx.model_call_id(&id);
                }
            }
            Capture::None | Capture::Key | Capture::ArgsObject | Capture::Skip => {}
        }
    }

    /// Before the call object: `{`, the `[` of an array of calls, a fence,
    /// or an XML call.
    fn lead<'c, S: FnMut(Event<'c>)>(
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
    fn body<'c, S: FnMut(Event<'c>)>(
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
    fn root_end<'c, S: FnMut(Event<'c>)>(&mut self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
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
    fn not_json<'c, S: FnMut(Event<'c>)>(
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
    fn array_next<'c, S: FnMut(Event<'c>)>(
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
                let f = Failure::new(
                    DiagnosticKind::MalformedCall,
                    cx.offset(cur.at),
                    "expected a call object in the array of calls",
                );
                Some(Outcome::failed(self.rejected.take().unwrap_or(f)))
            }
        }
    }

    /// In an array of calls, after a call object: `,` or `]`.
    fn array_after<'c, S: FnMut(Event<'c>)>(
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

    /// After the call object (or the array): the next object, a separator,
    /// a fence's close, an extra closer, or the end marker.
    fn trailing<'c, S: FnMut(Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let ws = skip_ws(&bytes[cur.at..]);
        if self.rules.lines_separate && !self.object.line_broke {
            self.object.line_broke = memchr::memchr(b'\n', &bytes[cur.at..cur.at + ws]).is_some();
        }
        cur.at += ws;
        self.object.trail += ws;
        match bytes.get(cur.at) {
            None => return Some(Outcome::More),
            // The next call object of the block; without an end marker,
            // only after a separator (`{…}; {…}`): JSON right after the
            // call is text.
            Some(b'{') if !self.end.is_empty() || self.object.comma || self.object.line_broke => {
                self.next_object(cx);
                self.open_object(cx.offset(cur.at));
            }
            // Objects separated by commas (or semicolons, as Llama writes
            // them), without the brackets of an array.
            Some(b',' | b';') if !self.object.comma => {
                cur.at += 1;
                self.object.trail += 1;
                self.object.comma = true;
            }
            Some(b'`') if self.fenced => self.phase = Phase::FenceClose(Partial::default()),
            // The object closed once too often (`{…}}`), as models now and
            // then write it: ignored if the end marker follows, given back
            // as text if not.
            Some(b'}' | b']') if !self.end.is_empty() => {
                self.object.extra_closer.get_or_insert(cx.offset(cur.at));
                cur.at += 1;
                self.object.trail += 1;
            }
            Some(&b)
                if self.end.is_empty()
                    && self.rules.closers.iter().any(|c| c.first() == Some(&b)) =>
            {
                self.phase = Phase::Closer(PartialSet::default())
            }
            // Unmarked JSON at the start with prose after it on its line
            // is an example the model shows, not a call (JSON right after
            // it is not prose: the call ends with its JSON).
            Some(&b)
                if self.rules.lines_separate
                    && !matches!(b, b'{' | b'[')
                    && self.rules.needs_args
                    && self.object.args_key
                    && self.end.is_empty()
                    && !self.object.line_broke =>
            {
                return Some(Outcome::failed(Failure::new(
                    DiagnosticKind::MalformedCall,
                    cx.offset(cur.at),
                    "JSON at the start of the output with prose after it on its line is an example, not a call",
                )));
            }
            // Without an end marker, the call ends with its JSON.
            Some(_) if self.end.is_empty() => return Some(self.conclude(cx, None)),
            Some(_) => self.phase = Phase::End(Partial::default()),
        }
        None
    }

    /// A closing token after the JSON.
    fn closing_token<'c, S: FnMut(Event<'c>)>(
        &mut self,
        mut closer: PartialSet,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let before = cur.at;
        let found = closer.feed(self.rules.closers, bytes, &mut cur.at);
        self.object.trail += cur.at - before;
        match found {
            SetMatch::More => {
                self.phase = Phase::Closer(closer);
                Some(Outcome::More)
            }
            SetMatch::Done(_) => {
                self.object.trail = 0;
                Some(self.conclude(cx, None))
            }
            // Not a closer: the call ends with its JSON, and what followed
            // it is text.
            SetMatch::Mismatch => Some(self.conclude(cx, None)),
        }
    }

    /// A call object that is not JSON, read on to the end marker.
    fn relaxed_read<'c, S: FnMut(Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let Some(relaxed) = self.object.relaxed.as_mut() else {
            return Some(self.relaxed_end(cx.offset(cur.at), false, cx));
        };
        while cur.at < bytes.len() {
            let to = super::piece_end(relaxed.bytes.len(), cur.at, bytes.len());
            relaxed.bytes.extend_from_slice(&bytes[cur.at..to]);
            cur.at = to;
            if let Some((k, closes)) = relaxed.find_end(&self.end, &self.rules.reopen, false) {
                relaxed.bytes.truncate(k);
                let marker = if closes { self.end.len() } else { 0 };
                let end_at = self.object.object_at + (k + marker) as u64;
                // Where the marker ends in this slice; or the bytes that
                // followed it to tell whether it closes were read in earlier
                // ones, and go back.
                cur.at = usize::try_from(end_at.saturating_sub(cx.offset(0)))
                    .map_or(bytes.len(), |n| n.min(bytes.len()));
                let past =
                    usize::try_from(cx.offset(0).saturating_sub(end_at)).unwrap_or(usize::MAX);
                let outcome = self.relaxed_end(end_at, !closes, cx);
                return Some(outcome.giving_back(past));
            }
        }
        if cx.at_limit() {
            cx.read_ahead_to(cx.offset(cur.at));
            return Some(self.relaxed_failed(cx.offset(cur.at)));
        }
        Some(Outcome::More)
    }

    /// A markdown fence opening before the JSON: its backticks.
    fn fence_open<'c, S: FnMut(Event<'c>)>(
        &mut self,
        mut ticks: Partial,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        match ticks.feed(FENCE, bytes, &mut cur.at) {
            Match::Done => {
                self.phase = Phase::FenceWord;
                None
            }
            Match::Mismatch => Some(no_object(cx.offset(cur.at))),
            Match::More => {
                self.phase = Phase::FenceOpen(ticks);
                Some(Outcome::More)
            }
        }
    }

    /// The opening fence's language word, if any (`json`).
    fn fence_word(&mut self, bytes: &[u8], cur: &mut Cursor) -> Option<Outcome> {
        cur.at += bytes[cur.at..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+'))
            .count();
        if cur.at == bytes.len() {
            return Some(Outcome::More);
        }
        self.fenced = true;
        self.phase = Phase::Lead;
        None
    }

    /// The fence's closing backticks after the JSON.
    fn fence_close<'c, S: FnMut(Event<'c>)>(
        &mut self,
        mut ticks: Partial,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let before = cur.at;
        let found = ticks.feed(FENCE, bytes, &mut cur.at);
        self.object.trail += cur.at - before;
        match found {
            Match::Done => {
                self.fenced = false;
                self.phase = Phase::Trail;
                None
            }
            // Not a fence: the call ends with its JSON.
            Match::Mismatch => {
                let end_of_json = cx.offset(cur.at).saturating_sub(self.object.trail as u64);
                Some(self.conclude(cx, Some(end_of_json)))
            }
            Match::More => {
                self.phase = Phase::FenceClose(ticks);
                Some(Outcome::More)
            }
        }
    }

    /// The end marker.
    fn matching_end<'c, S: FnMut(Event<'c>)>(
        &mut self,
        mut marker: Partial,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let before = cur.at;
        let found = marker.feed(&self.end, bytes, &mut cur.at);
        self.object.trail += cur.at - before;
        match found {
            Match::Done if self.rules.reopen.boundary.is_some() => {
                self.phase = Phase::Reopen { seen: 0 };
                None
            }
            Match::Done => {
                self.object.trail = 0;
                Some(self.conclude(cx, None))
            }
            Match::More => {
                self.phase = Phase::End(marker);
                Some(Outcome::More)
            }
            // Something else follows the JSON: the call ends with it.
            Match::Mismatch => {
                let end_of_json = cx.offset(cur.at).saturating_sub(self.object.trail as u64);
                Some(self.conclude(cx, Some(end_of_json)))
            }
        }
    }

    /// After an end marker that also begins the start marker: `seen` bytes
    /// of the start marker's rest so far.
    fn after_end_marker<'c, S: FnMut(Event<'c>)>(
        &mut self,
        seen: usize,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        match self.rules.reopen.follows(seen, &bytes[cur.at..], false) {
            // All of it may still be the start marker.
            None => {
                let more = bytes.len() - cur.at;
                self.object.trail += more;
                self.phase = Phase::Reopen { seen: seen + more };
                cur.at = bytes.len();
                Some(Outcome::More)
            }
            // The next call's start marker: this call's end never came, and
            // the marker is read again.
            Some(true) => {
                let end_of_json = cx.offset(cur.at).saturating_sub(self.object.trail as u64);
                Some(self.conclude(cx, Some(end_of_json)))
            }
            // The end marker closed the call: what followed it is read again
            // as text.
            Some(false) => {
                self.object.trail = seen;
                Some(self.conclude(cx, None))
            }
        }
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
    fn steady<'c>(
        &mut self,
        bytes: &'c [u8],
        _offset: u64,
        started: bool,
        _carried: bool,
    ) -> Steady<'c> {
        if let Phase::End(marker) = &mut self.phase {
            // More of the end marker, not yet all of it.
            if marker.continues_without_end(&self.end, bytes) {
                marker.take(bytes.len());
                self.object.trail += bytes.len();
                return Steady::Quiet;
            }
            return Steady::No;
        }
        if self.phase != Phase::Body || self.rejected.is_some() {
            return Steady::No;
        }
        let scan = self.json.advance(bytes);
        // A comma at the end may be a trailing one: `advance` holds it back.
        if scan.1 == Signal::More && self.held_comma.is_empty() && !self.json.after_comma() {
            match self.object.capture {
                Capture::ArgsObject if started => return Steady::Verbatim,
                Capture::ArgsObject => {
                    self.pending.extend_from_slice(bytes);
                    return Steady::Quiet;
                }
                Capture::Key | Capture::Name | Capture::Id | Capture::ArgsString => {
                    self.buf.extend_from_slice(bytes);
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
    fn advance<'c, S: FnMut(Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let mut cur = Cursor {
            at: 0,
            member_from: None,
        };
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
                Phase::Reopen { seen } => self.after_end_marker(seen, bytes, &mut cur, cx),
                Phase::Closer(closer) => self.closing_token(closer, bytes, &mut cur, cx),
            };
            if let Some(outcome) = step {
                return (cur.at, outcome);
            }
        }
    }

    /// The stream ended inside the call.
    fn finish<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
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
            Phase::Reopen { seen } => {
                self.object.trail = seen;
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

/// A call object in relaxed JSON at the start of `body`: its name, its
/// arguments as JSON text (the rewritten text itself, so that arguments
/// streamed before the body turned out to be relaxed are a prefix of it;
/// `{}` when absent or `null`; a string holding an object is decoded), and
/// the length of the object in `body`. With `close`, brackets still open at
/// the end of `body` are closed.
fn relaxed_call(body: &str, max_depth: usize, close: bool) -> Option<(String, String, usize)> {
    let (json, read) = if close {
        let (json, read, added) = crate::scan::relaxed::relax_value_closing(body)?;
        (added > 0).then_some((json, read))?
    } else {
        crate::scan::relaxed::relax_value(body)?
    };
    let json = json.trim();
    if !is_complete_value(json.as_bytes(), max_depth) || !json.starts_with('{') {
        return None;
    }
    let members = CallMembers::of(json, max_depth)?;
    let (name, nested) = match members.name {
        Some(name) => (decode_str(name.as_bytes())?.into_owned(), None),
        None => members.by_function(max_depth)?,
    };
    let args = match nested {
        Some(args) => args,
        None => arguments_text(members.args, max_depth)?,
    };
    (!name.is_empty()).then_some((name, args, read))
}

/// The raw values of the members of a call object that name the tool and
/// hold its arguments.
#[derive(Default)]
struct CallMembers<'j> {
    name: Option<&'j str>,
    /// `arguments`, or `parameters`.
    args: Option<&'j str>,
    function: Option<&'j str>,
}

impl<'j> CallMembers<'j> {
    /// The members of `json`, a complete JSON object; `None` if one of
    /// them is given twice (as JSON refuses it).
    fn of(json: &'j str, max_depth: usize) -> Option<CallMembers<'j>> {
        let mut members = CallMembers::default();
        for (key, value) in root_members(json.as_bytes(), max_depth) {
            let slot = match decode_str(&json.as_bytes()[key])?.as_ref() {
                "name" => &mut members.name,
                "arguments" | "parameters" => &mut members.args,
                "function" => &mut members.function,
                _ => continue,
            };
            if slot.replace(&json[value]).is_some() {
                return None;
            }
        }
        Some(members)
    }

    /// For a call object without `"name"` that names its tool by
    /// `"function"` instead: a string (`{"function": "f", "arguments":
    /// {…}}`; its arguments are the object's own, so `None` here), or the
    /// nested shape of the OpenAI API (`{"type": "function", "function":
    /// {"name": "f", "arguments": {…}}}`, with the arguments inside). The
    /// name and those arguments.
    fn by_function(&self, max_depth: usize) -> Option<(String, Option<String>)> {
        let function = self.function?;
        let (name, args) = match function.as_bytes().first() {
            Some(b'"') => (function, None),
            Some(b'{') => {
                let inner = CallMembers::of(function, max_depth)?;
                (inner.name?, Some(arguments_text(inner.args, max_depth)?))
            }
            _ => return None,
        };
        let name = decode_str(name.as_bytes())?.into_owned();
        (!name.is_empty()).then_some((name, args))
    }
}

/// A call's arguments from the raw value of its arguments member: `{}`
/// when absent or `null`, an object as it stands, a string holding an
/// object decoded; `None` for anything else.
fn arguments_text(raw: Option<&str>, max_depth: usize) -> Option<String> {
    let Some(raw) = raw else {
        return Some("{}".to_owned());
    };
    match raw.as_bytes().first() {
        Some(b'n') => Some("{}".to_owned()),
        Some(b'{') => Some(raw.to_owned()),
        Some(b'"') => object_in_string(raw.as_bytes(), max_depth),
        _ => None,
    }
}

/// [`CallMembers::by_function`] of the complete JSON object `object`.
fn named_by_function(object: &[u8], max_depth: usize) -> Option<(String, Option<String>)> {
    let object = std::str::from_utf8(object).ok()?;
    if !is_complete_value(object.as_bytes(), max_depth) {
        return None;
    }
    CallMembers::of(object.trim(), max_depth)?.by_function(max_depth)
}

/// Arguments given as a JSON-encoded string (`raw`, quotes included): the
/// object it holds (`{}` when blank); `None` if it holds anything else.
fn object_in_string(raw: &[u8], max_depth: usize) -> Option<String> {
    let decoded = decode_string(raw)?;
    if decoded.trim().is_empty() {
        return Some("{}".to_owned());
    }
    let is_object =
        decoded.trim_start().starts_with('{') && is_complete_value(decoded.as_bytes(), max_depth);
    is_object.then_some(decoded)
}

/// The members of the JSON object `json` (known to be complete): the byte
/// ranges of each raw key (quotes included) and of its value.
fn root_members(
    json: &[u8],
    max_depth: usize,
) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let mut scanner = JsonScanner::new(max_depth);
    let mut members = Vec::new();
    let (mut key, mut value) = (0..0, 0);
    let mut at = 0;
    while at < json.len() {
        let (n, signal) = scanner.advance(&json[at..]);
        at += n;
        match signal {
            Signal::KeyStart => key.start = at - 1,
            Signal::KeyEnd => key.end = at,
            Signal::ValueStart => value = at - 1,
            Signal::ValueEnd => members.push((key.clone(), value..at)),
            _ => break,
        }
    }
    members
}

/// The block does not begin with a call object (the byte at stream offset
/// `at` is something else).
fn no_object(at: u64) -> Outcome {
    Outcome::failed(Failure::new(
        DiagnosticKind::MalformedCall,
        at,
        "expected a JSON object after the start marker",
    ))
}

/// The index of the last byte of `bytes` that is not JSON whitespace.
fn last_token(bytes: &[u8]) -> Option<usize> {
    bytes
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

fn invalid_utf8(offset: u64) -> Failure {
    Failure::new(
        DiagnosticKind::InvalidUtf8,
        offset,
        "invalid UTF-8 inside the call's arguments",
    )
}

/// Decodes a raw JSON string (quotes included); `None` if it is not one.
fn decode_string(raw: &[u8]) -> Option<String> {
    decode_str(raw).map(Cow::into_owned)
}

/// [`decode_string`], borrowing from `raw` when it has no escapes.
fn decode_str(raw: &[u8]) -> Option<Cow<'_, str>> {
    crate::scan::json::decode_string_literal(raw)
}
