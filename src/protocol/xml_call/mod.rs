//! Calls written as XML-ish elements with one parameter per element:
//! Qwen3-Coder's, MiniMax-M2's, GLM's and DeepSeek-V3.2's DSML. Each
//! format file (`formats/qwen3_coder.rs`, `minimax_m2.rs`, `glm.rs`,
//! `deepseek_v32.rs`) shows its layout and builds its [`Dialect`].
//!
//! Qwen3-Coder also writes a bare `<function=NAME>…</function>` without the
//! `<tool_call>` wrapper: the engine starts such a call at `<function=`
//! (marker 1), and it ends with `</function>`.
//!
//! A block that holds JSON calls instead (`{` or `[` first) is read by the
//! JSON automaton (see [`FirstByte`](crate::protocol::first_byte::FirstByte)).
//!
//! The call body is buffered (it is needed anyway to give a failed call back
//! as text) and scanned once, from where the last step stopped. Values are
//! raw text: one newline after the opening tag and one before the closing
//! tag are not part of them. A closing tag only counts when the next thing
//! is a structural tag (or the end), so a value may contain `</parameter>`
//! look-alikes and code. Each parameter is coerced to its schema type and
//! sent as soon as it is complete.

mod dialect;
mod values;

pub(crate) use dialect::{Dialect, Opening, Tags, Typing};

use crate::coerce::Untyped;
use crate::cx::{CallCx, Sink};
use crate::event::DiagnosticKind;
use crate::protocol::xml::{ArgsWriter, Body};
use crate::protocol::{CallAutomaton, Failure, InCall, Outcome, Steady};
use crate::scan::json::{JsonScanner, Signal};
use crate::scan::same_bytes;
use crate::scan::utf8::validate;
use crate::scan::xml::{
    attr_text_into, attr_value, find_tag, need_until, skip_ws, strip_one_newline, tag_at,
    value_text, value_text_cut, Pat, Tag, ValueText, Wait, WaitMemo, MAX_TAG, VALUE_TEXT_BLOCK,
};

/// GLM's key close.
const ARG_KEY_CLOSE: &[u8] = b"</arg_key>";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the function name.
    Lead,
    /// Between parameters.
    Params,
    /// GLM: inside `<arg_key>`, since `start`.
    Key { start: usize },
    /// GLM: after `</arg_key>`, before `<arg_value>`.
    ValueOpen,
    /// DSML: the arguments as one JSON object in place of parameter tags,
    /// since `start` (read by [`XmlCall::args_json`]).
    JsonArgs { start: usize },
    /// Inside a value that began at `start`.
    Value { start: usize },
    /// A closing tag at `close_at` may end the value; whitespace up to
    /// `ws_to` has been seen after it.
    ValueEnd {
        start: usize,
        close_at: usize,
        ws_to: usize,
    },
    /// Inside a value, the function's close or the end marker at `at`:
    /// it ends the value only if what follows it is structural (whitespace
    /// up to `ws_to` has been seen after it). `close` is the parameter
    /// close before it, if any; without one, the value's close is missing.
    ValueCut {
        start: usize,
        at: usize,
        ws_to: usize,
        close: Option<usize>,
    },
    /// After the function's closing tag, which ended at `func_end`.
    AfterFunc { func_end: usize },
    /// The call is rejected: looking for the end marker to give it all back.
    Skip,
}

/// What [`XmlCall::stray_close`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stray {
    /// A closing tag with nothing open: skipped.
    Skipped,
    /// It may still come: more bytes are needed.
    Undecided,
    /// None there.
    Absent,
}

/// What is known inside the value being read: a fresh value for each (see
/// [`XmlCall::open_value`]).
#[derive(Debug, Clone, Default)]
struct InValue {
    /// For a string value sent as it arrives: how far it has been sent.
    streamed: Option<usize>,
    /// Inside a value: the first parameter open tag in it not yet paired
    /// with a close that turned out to be content. If the value's next
    /// close is structural, the open tag began the next parameter and the
    /// value ended there, its own close missing; if not, both were content
    /// (code about tool calls).
    open_in_value: Option<usize>,
    /// Inside a value: the first tag where it may have ended without its
    /// close. The value is not streamed past it, and a stream that ends
    /// inside the value closes it there.
    may_end_at: Option<usize>,
    /// Inside a value: function open tags and block start markers seen in
    /// it, not yet closed in it. While one is open, the closes that follow
    /// are its own: the value holds a whole call as text.
    nested_functions: u32,
    nested_blocks: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct XmlCall {
    dialect: &'static Dialect,
    /// The tags of the block being read.
    tags: &'static Tags,
    /// The tags that matter inside a value (see [`value_patterns`]), kept
    /// with the block's tags: built once a call, not at every chunk.
    value_pats: [Pat; 6],
    phase: Phase,
    /// The call's bytes after the start marker.
    body: Body,
    /// Everything before `pos` is processed.
    pos: usize,
    /// Where the search for a tag resumes inside a value.
    scan_from: usize,
    key: String,
    /// The function name's buffer.
    name: String,
    /// How long to wait before matching a partly received structural tag
    /// again (see [`need_until`]).
    wait: Wait,
    /// The waits for a partly received tag inside a value, after a
    /// parameter's close, between parameters and after the function's
    /// close, by the bytes of it in hand (see [`WaitMemo`]): each for its
    /// one set of tags.
    value_waits: WaitMemo,
    close_waits: WaitMemo,
    param_waits: WaitMemo,
    func_waits: WaitMemo,
    in_value: InValue,
    args: ArgsWriter,
    params: usize,
    rejected: Option<Failure>,
    /// A call of this block was given back as text on its own
    /// ([`CallCx::reject_part`]): what is left of the block when it ends
    /// without a call in progress is text too.
    parts_given_back: bool,
    /// A call that began without its block, at a bare `<function=` or
    /// DSML `invoke`: it ends with the function's close, and its name comes
    /// first thing.
    bare: bool,
    /// The value being read is JSON by its tag's `string="false"` or
    /// `type` (see [`Tags::typing`]).
    json_value: bool,
    /// Reads the arguments object of [`Phase::JsonArgs`].
    args_json: JsonScanner,
}

impl XmlCall {
    pub(crate) fn new(dialect: &'static Dialect, max_depth: usize) -> XmlCall {
        let tags = dialect.block.tags;
        XmlCall {
            dialect,
            tags,
            value_pats: values::value_patterns(tags, dialect),
            phase: Phase::Lead,
            body: Body::default(),
            pos: 0,
            scan_from: 0,
            key: String::new(),
            name: String::new(),
            wait: Wait::default(),
            value_waits: WaitMemo::default(),
            close_waits: WaitMemo::default(),
            param_waits: WaitMemo::default(),
            func_waits: WaitMemo::default(),
            in_value: InValue::default(),
            args: ArgsWriter::default(),
            params: 0,
            rejected: None,
            parts_given_back: false,
            bare: false,
            json_value: false,
            args_json: JsonScanner::new(max_depth).quiet_members(),
        }
    }

    /// The tag that ends the call.
    fn end_tag(&self) -> &'static [u8] {
        match self.tags.func_close {
            Some(close) if self.bare => close,
            _ => self.tags.end,
        }
    }

    fn at(&self, i: usize) -> u64 {
        self.body.at(i)
    }

    /// Whether `bytes`, appended to a body that then is `len` long, leave
    /// the wait for a partly received tag holding.
    #[inline]
    fn holds(&mut self, len: usize, bytes: &[u8]) -> bool {
        self.wait.holds(len, bytes)
    }

    fn give_back(&self, from: usize) -> usize {
        self.body.len().saturating_sub(from)
    }

    fn failed(&self, kind: DiagnosticKind, at: usize, message: impl Into<String>) -> Outcome {
        self.body.failed(kind, at, message)
    }

    /// The stream ended before the call did (`message` says where).
    fn unfinished(&self, message: impl Into<String>) -> Outcome {
        self.failed(DiagnosticKind::UnfinishedCall, self.body.len(), message)
    }

    /// Not a call of the format, from body index `at` on.
    fn malformed(&self, at: usize, message: impl Into<String>) -> Outcome {
        self.failed(DiagnosticKind::MalformedCall, at, message)
    }

    fn reject(&mut self, failure: Failure) {
        if self.rejected.is_none() {
            self.rejected = Some(failure);
        }
        self.phase = Phase::Skip;
    }

    /// [`advance`](Self::advance) for a long slice, appended in pieces (see
    /// [`piece_end`](super::piece_end)).
    #[inline(never)]
    fn advance_in_pieces<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let before = self.body.len();
        let mut from = 0;
        loop {
            let to = self.body.append_piece(bytes, from, cx.offset(from));
            let piece = &bytes[from..to];
            from = to;
            let last = from == bytes.len();
            if !(self.holds(self.body.len(), piece) && !(last && cx.at_limit())) {
                self.wait = Wait::default();
                let outcome = self.run(cx, false);
                if last || !matches!(outcome, Outcome::More) {
                    return self.body.settle(before, from, outcome);
                }
            } else if last {
                return (from, Outcome::More);
            }
        }
    }

    /// Processes the body from `pos`; `eof` when no more bytes will come.
    /// Each phase is a step of its own, which returns `None` when it moved
    /// to another phase (the loop goes on) and the outcome otherwise.
    fn run<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>, eof: bool) -> Outcome {
        loop {
            if self.rejected.is_some() {
                self.phase = Phase::Skip;
            }
            let step = match self.phase {
                Phase::Lead => self.lead(cx, eof),
                Phase::Params | Phase::ValueOpen => self.params(cx, eof),
                Phase::JsonArgs { start } => self.json_args(cx, eof, start),
                Phase::Key { start } => self.key(eof, start),
                Phase::Value { start } => self.value(cx, eof, start),
                Phase::ValueCut {
                    start,
                    at,
                    ws_to,
                    close,
                } => self.value_cut(cx, eof, start, at, ws_to, close),
                Phase::ValueEnd {
                    start,
                    close_at,
                    ws_to,
                } => self.value_end(cx, eof, start, close_at, ws_to),
                Phase::AfterFunc { func_end } if self.bare => {
                    self.after_bare_func(cx, eof, func_end)
                }
                Phase::AfterFunc { .. } => self.after_func(cx, eof),
                Phase::Skip => self.skip(cx, eof),
            };
            if let Some(outcome) = step {
                return outcome;
            }
        }
    }

    /// Before the function name.
    #[inline(never)]
    fn lead<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>, eof: bool) -> Option<Outcome> {
        let t = self.tags;
        let len = self.body.len();

        self.pos = skip_ws(&self.body, self.pos);
        let Some(open) = t.func_open else {
            return Some(self.glm_name(cx, eof));
        };
        // A bare call's `<function=` was its start marker.
        // (Bare calls are read only in dialects whose tags end at `>`.)
        let pats = [if self.bare { Pat::Open(b"") } else { open }];
        match tag_at(&self.body, self.pos, &pats) {
            Tag::Found { end, attr, .. } => {
                let mut name = std::mem::take(&mut self.name);
                // `<invoke name="f"/>`: a call without parameters.
                let attr = &self.body[attr.0..attr.1];
                let closed = crate::scan::trim_ws(attr).strip_suffix(b"/");
                attr_text_into(closed.unwrap_or(attr), &mut name);
                let closed = closed.is_some();
                self.start(&name, end, cx);
                self.name = name;
                if closed && self.phase == Phase::Params {
                    self.phase = Phase::AfterFunc { func_end: end };
                }
                // `<function=x>` naming no tool is more likely
                // prose than a call: only the tag is given up.
                if self.bare {
                    if let Some(mut f) = self.rejected.take() {
                        f.give_back = self.give_back(end);
                        return Some(Outcome::failed(f));
                    }
                }
            }
            // Nothing yet: the next byte may also begin JSON.
            _ if self.pos == len && !eof => return Some(Outcome::More),
            Tag::Need { .. } if !eof => {
                self.wait = need_until(&self.body, self.pos, &pats);
                return Some(Outcome::More);
            }
            _ if self.pos == len => {
                return Some(self.unfinished("the stream ended before the call named a function"))
            }
            _ => {
                let (what, close) = (
                    String::from_utf8_lossy(open.lit()),
                    String::from_utf8_lossy(open.attr_end()),
                );
                return Some(self.malformed(
                    self.pos,
                    format!("expected `{what}…{close}` or a JSON call object to open the call"),
                ));
            }
        }
        None
    }

    /// Between parameters (GLM: also after `</arg_key>`).
    fn params<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
    ) -> Option<Outcome> {
        let t = self.tags;
        let len = self.body.len();

        let Some(pos) = self.skip_separators(self.pos, eof) else {
            return Some(self.wait_one_byte());
        };
        self.pos = pos;
        let value_open = self.phase == Phase::ValueOpen;
        let pats: &[Pat] = if value_open {
            &[Pat::Lit(b"<arg_value>")]
        } else {
            &[
                t.param_open,
                Pat::Lit(t.func_close.unwrap_or(t.end)),
                Pat::Lit(t.end),
            ]
        };
        if self.pos == len {
            if eof {
                return Some(self.end_early(cx));
            }
            // Nothing of the next tag yet: no verdict before the shortest
            // could be whole (unless an arguments object may come instead).
            if t.typing != Typing::StringAttr {
                self.wait = self.params_wait(value_open, pats);
            }
            return Some(Outcome::More);
        }
        if t.typing == Typing::StringAttr && self.body[self.pos] == b'{' && self.args.is_empty() {
            self.args_json.reset();
            self.scan_from = self.pos;
            self.phase = Phase::JsonArgs { start: self.pos };
            return None;
        }
        match tag_at(&self.body, self.pos, pats) {
            Tag::Found { end, .. } if value_open => self.open_value(end, cx),
            Tag::Found {
                index: 0,
                end,
                attr,
                ..
            } => return self.param_open(end, attr, cx),
            Tag::Found { index: 1, end, .. } if t.func_close.is_some() => {
                self.pos = end;
                self.phase = Phase::AfterFunc { func_end: end };
            }
            Tag::Found { end, .. } => {
                // The end marker: the function's close is missing
                // (or, for GLM, not needed).
                if t.func_close.is_some() {
                    cx.recovered(
                        DiagnosticKind::MissingCloseTag,
                        self.at(self.pos),
                        "the function's closing tag is missing".into(),
                    );
                }
                self.pos = end;
                return Some(self.complete(cx, end));
            }
            Tag::Need { .. } if !eof => {
                self.wait = self.params_wait(value_open, pats);
                return Some(Outcome::More);
            }
            _ => return self.between_params(value_open, cx, eof),
        }
        None
    }

    /// The wait for a partly received tag at `pos` between parameters,
    /// for `pats`, the tags [`params`](Self::params) looks for there: from
    /// the memo for those tags unless a value's open is (GLM's, a set of
    /// its own).
    fn params_wait(&mut self, value_open: bool, pats: &[Pat]) -> Wait {
        match value_open {
            true => need_until(&self.body, self.pos, pats),
            false => self.param_waits.need_until(&self.body, self.pos, pats),
        }
    }

    /// A parameter's opening tag, ending at `end`, with its attributes at
    /// `attr`.
    #[inline]
    fn param_open<'c, S: Sink<'c>>(
        &mut self,
        end: usize,
        attr: (usize, usize),
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let t = self.tags;
        if self.args.is_whole() {
            return Some(self.malformed(self.pos, "a parameter after the arguments object"));
        }
        if self.params >= cx.limits().max_params {
            let f = Failure::new(
                DiagnosticKind::CallTooLarge,
                self.at(self.pos),
                format!("more than {} parameters", cx.limits().max_params),
            );
            self.reject(f);
            return None;
        }
        self.pos = end;
        if t.func_open.is_none() {
            self.phase = Phase::Key { start: end };
            self.scan_from = end;
        } else {
            let attr = &self.body[attr.0..attr.1];
            attr_text_into(attr, &mut self.key);
            self.json_value = match t.typing {
                Typing::Schema => false,
                Typing::StringAttr => attr_value(attr, b"string").is_some_and(|v| v == b"false"),
                // No type, or an empty one, is a string.
                Typing::TypeAttr => {
                    attr_value(attr, b"type").is_some_and(|v| !v.is_empty() && v != b"string")
                }
            };
            self.open_value(end, cx);
        }
        None
    }

    /// Between parameters, neither a parameter nor the call's end: a
    /// parameter's close once too often is skipped; anything else ends
    /// the call.
    #[inline]
    fn between_params<'c, S: Sink<'c>>(
        &mut self,
        value_open: bool,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
    ) -> Option<Outcome> {
        let stray = if value_open {
            Stray::Absent
        } else {
            self.stray_close(&[Pat::Lit(self.tags.param_close)], eof, cx)
        };
        match stray {
            Stray::Skipped => None,
            Stray::Undecided => Some(Outcome::More),
            Stray::Absent if eof => Some(self.end_early(cx)),
            Stray::Absent => Some(self.malformed(self.pos, "unexpected text between parameters")),
        }
    }

    /// DSML: an arguments object in place of parameters.
    #[inline(never)]
    fn json_args<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
        start: usize,
    ) -> Option<Outcome> {
        let (n, signal) = self.args_json.advance(&self.body[self.scan_from..]);
        self.scan_from += n;
        match signal {
            Signal::More if !eof => return Some(Outcome::More),
            Signal::More => {
                return Some(self.unfinished("the stream ended inside the arguments object"))
            }
            Signal::RootEnd => {
                let Ok(object) = validate(&self.body[start..self.scan_from]) else {
                    return Some(self.failed(
                        DiagnosticKind::InvalidUtf8,
                        start,
                        "the arguments object is not UTF-8",
                    ));
                };
                self.args.whole(object, cx);
                self.pos = self.scan_from;
                self.phase = Phase::Params;
            }
            _ => return Some(self.malformed(self.scan_from, "the arguments object is not JSON")),
        }
        None
    }

    /// GLM: a token of a key, or of the tool name, that decides nothing
    /// (see [`key`](Self::key), [`glm_name`](Self::glm_name)): it goes
    /// into the body as a run would put it there, a `</arg_key>` the
    /// token's end cuts off waiting for the rest, without a run of the
    /// automaton. `No` for a token that may end the key or the name.
    #[inline(never)]
    fn steady_glm<'c>(&mut self, bytes: &'c [u8], offset: u64) -> Steady<'c> {
        let len = self.body.len();
        match self.phase {
            // Inside the name, past its first byte, with no byte that ends
            // it in hand (nor a backslash waiting for the next).
            Phase::Lead if self.pos < len && len + bytes.len() < self.pos + MAX_TAG => {
                // Names are short: a byte loop, not a memchr set-up.
                let ends = |b: &[u8]| b.iter().any(|&c| matches!(c, b'\n' | b'<' | b'\\'));
                if ends(&self.body[self.pos..]) || ends(bytes) {
                    return Steady::No;
                }
            }
            Phase::Key { start } if len + bytes.len() <= start + MAX_TAG + ARG_KEY_CLOSE.len() => {
                // A close partly received at `scan_from` goes on, or the
                // token's first `<` begins one.
                let pending = &self.body[self.scan_from.min(len)..];
                let (close_at, tail) = match (pending, bytes.iter().position(|&b| b == b'<')) {
                    ([], None) => (len + bytes.len(), &b""[..]),
                    ([], Some(lt)) => (len + lt, &bytes[lt..]),
                    _ => (self.scan_from, bytes),
                };
                let partial = pending.len() + tail.len() < ARG_KEY_CLOSE.len()
                    && same_bytes(pending, &ARG_KEY_CLOSE[..pending.len()])
                    && same_bytes(tail, &ARG_KEY_CLOSE[pending.len()..][..tail.len()]);
                if !tail.is_empty() && !partial {
                    return Steady::No;
                }
                self.scan_from = close_at;
            }
            _ => return Steady::No,
        }
        self.body.append(bytes, offset);
        Steady::Quiet
    }

    /// GLM: inside `<arg_key>`.
    fn key(&mut self, eof: bool, start: usize) -> Option<Outcome> {
        let len = self.body.len();

        // A key is short: look no further than MAX_TAG bytes, so
        // the verdict does not depend on how much has arrived.
        let horizon = len.min(start + MAX_TAG + ARG_KEY_CLOSE.len());
        match find_tag(
            &self.body[..horizon],
            self.scan_from,
            &[Pat::Lit(ARG_KEY_CLOSE)],
        ) {
            Tag::Found { at, end, .. } => {
                attr_text_into(&self.body[start..at], &mut self.key);
                self.pos = end;
                self.phase = Phase::ValueOpen;
            }
            Tag::Need { at } if !eof && horizon == len => {
                self.scan_from = at;
                return Some(Outcome::More);
            }
            _ if !eof && horizon == len => {
                self.scan_from = len;
                return Some(Outcome::More);
            }
            _ => return Some(self.malformed(start, "`<arg_key>` is not closed")),
        }
        None
    }

    /// After a bare function's close: its block's end may follow.
    #[inline(never)]
    fn after_bare_func<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
        func_end: usize,
    ) -> Option<Outcome> {
        let t = self.tags;
        let len = self.body.len();

        // Models that leave out the opening `<tool_call>` often
        // still write the closing one: it belongs to the call.
        self.pos = skip_ws(&self.body, self.pos);
        if self.pos == len && !eof {
            return Some(Outcome::More);
        }
        let after = [Pat::Lit(t.end)];
        match tag_at(&self.body, self.pos, &after) {
            Tag::Found { end, .. } => Some(self.complete(cx, end)),
            Tag::Need { .. } if !eof => {
                self.wait = need_until(&self.body, self.pos, &after);
                Some(Outcome::More)
            }
            _ => Some(self.complete(cx, func_end)),
        }
    }

    /// After a function's close: the block's end, or another call.
    #[inline(never)]
    fn after_func<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
    ) -> Option<Outcome> {
        let t = self.tags;
        let len = self.body.len();

        self.pos = skip_ws(&self.body, self.pos);
        let open = t.func_open.unwrap_or(Pat::Open(t.end));
        let after = [Pat::Lit(t.end), open];
        if self.pos == len {
            if eof {
                return Some(self.end_early(cx));
            }
            self.wait = self.func_waits.need_until(&self.body, self.pos, &after);
            return Some(Outcome::More);
        }
        match tag_at(&self.body, self.pos, &after) {
            Tag::Found { index: 0, end, .. } => return Some(self.complete(cx, end)),
            Tag::Found { at, .. } => {
                // Another call in the same block.
                self.args.close(cx);
                cx.deliver(self.at(at));
                self.params = 0;
                self.phase = Phase::Lead;
            }
            Tag::Need { .. } if !eof => {
                self.wait = self.func_waits.need_until(&self.body, self.pos, &after);
                return Some(Outcome::More);
            }
            // The function's (or a parameter's) close once too
            // often is skipped.
            _ => {
                let closes = [
                    Pat::Lit(t.func_close.unwrap_or(t.end)),
                    Pat::Lit(t.param_close),
                ];
                match self.stray_close(&closes, eof, cx) {
                    Stray::Skipped => {}
                    Stray::Undecided => return Some(Outcome::More),
                    Stray::Absent => return Some(self.end_early(cx)),
                }
            }
        }
        None
    }

    /// A rejected call: up to its end, to give it back.
    #[inline(never)]
    fn skip<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>, eof: bool) -> Option<Outcome> {
        let t = self.tags;
        let len = self.body.len();

        let reason = self
            .rejected
            .clone()
            .unwrap_or_else(|| Failure::malformed(self.at(self.pos), "rejected"));
        // In a block of several calls, each stands or falls
        // alone: the rejected one ends with its function's
        // close.
        let own_close = match t.func_close {
            Some(close) if !self.bare => close,
            _ => self.end_tag(),
        };
        let ends = [Pat::Lit(self.end_tag()), Pat::Lit(own_close)];
        match find_tag(&self.body, self.scan_from.max(self.pos), &ends) {
            Tag::Found { index: 1, end, .. } => {
                self.rejected = None;
                cx.reject_part(reason, self.at(end));
                self.parts_given_back = true;
                self.args.reset();
                self.params = 0;
                self.json_value = false;
                self.in_value.streamed = None;
                self.pos = end;
                self.scan_from = end;
                self.phase = Phase::AfterFunc { func_end: end };
            }
            Tag::Found { end, .. } => {
                let mut f = reason;
                f.give_back = self.give_back(end);
                return Some(Outcome::failed(f));
            }
            Tag::Need { at } if !eof => {
                self.scan_from = at;
                return Some(Outcome::More);
            }
            _ if !eof => {
                self.scan_from = len;
                return Some(Outcome::More);
            }
            _ => return Some(Outcome::failed(reason)),
        }
        None
    }

    /// The first byte at or after `from` that is neither whitespace nor,
    /// where the dialect has them, an escaped line break (`\n`, `\r`,
    /// `\t` written out). `None` while a lone backslash at the end of the
    /// body may begin one.
    #[inline]
    fn skip_separators(&self, from: usize, eof: bool) -> Option<usize> {
        let at = skip_ws(&self.body, from);
        if !self.tags.escaped_breaks || self.body.get(at) != Some(&b'\\') {
            return Some(at);
        }
        self.skip_escaped_breaks(at, eof)
    }

    /// Waits for the next byte: one more decides what the last begins.
    fn wait_one_byte(&mut self) -> Outcome {
        self.wait = Wait::next_byte(self.body.len());
        Outcome::More
    }

    /// GLM: the name is the text up to the first newline, tag or
    /// backslash.
    fn glm_name<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>, eof: bool) -> Outcome {
        let from = self.pos;
        // Only the first MAX_TAG bytes may hold the name, however many have
        // arrived: the verdict must not depend on the chunking.
        let rest = &self.body[from..self.body.len().min(from + MAX_TAG)];
        // A backslash ends it too: names have none, and an escaped line
        // break (`\n`) may follow (see `Tags::escaped_breaks`).
        // Names are short: a byte loop, not a memchr set-up.
        let stop = rest.iter().position(|&b| matches!(b, b'\n' | b'<' | b'\\'));
        let Some(stop) = stop.or((rest.len() == MAX_TAG).then_some(rest.len())) else {
            if eof {
                // `<tool_call>get_wea` cut off: the name may be a prefix of
                // the one meant, and prose mentioning the tag ends like this.
                return self.unfinished("the stream ended inside the tool name");
            }
            return Outcome::More;
        };
        if rest.get(stop) == Some(&b'\\') && from + stop + 1 == self.body.len() {
            // A backslash last: an escaped line break or not, the call is
            // decided by the next byte (the end here, as inside the name).
            if eof {
                return self.unfinished("the stream ended after the tool name's backslash");
            }
            return self.wait_one_byte();
        }
        // Into the name's buffer, kept from one call to the next.
        let mut name = std::mem::take(&mut self.name);
        name.clear();
        let plausible = glm_name_into(&rest[..stop], &mut name);
        let end = from + stop;
        if plausible {
            self.start(&name, end, cx);
        }
        self.name = name;
        match plausible {
            true => self.run(cx, eof),
            false => self.malformed(from, "expected a tool name after the start marker"),
        }
    }

    fn start<'c, S: Sink<'c>>(&mut self, name: &str, end: usize, cx: &mut CallCx<'_, 'c, S>) {
        self.pos = end;
        self.scan_from = end;
        if name.is_empty() {
            let f = Failure::new(
                DiagnosticKind::MissingName,
                self.at(end),
                "empty function name",
            );
            return self.reject(f);
        }
        match cx.start_at(name, None, self.at(end)) {
            Ok(()) => self.phase = Phase::Params,
            Err(f) => self.reject(f.with_name(name)),
        }
    }

    fn complete<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>, end: usize) -> Outcome {
        if let Some(mut f) = self.rejected.take() {
            f.give_back = self.give_back(end);
            return Outcome::failed(f);
        }
        self.args.close(cx);
        if self.parts_given_back && !cx.started() {
            // The block's last call was given back: its rest is text too.
            cx.text_up_to(self.at(end));
        }
        Outcome::Complete {
            give_back: self.give_back(end),
        }
    }

    /// The block ended (or something else began) before its end marker:
    /// deliver what is complete.
    fn end_early<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        if !cx.started() {
            return self.failed(
                DiagnosticKind::UnfinishedCall,
                self.pos,
                "the call ended before naming a function",
            );
        }
        let end = String::from_utf8_lossy(self.end_tag()).into_owned();
        cx.recovered(
            DiagnosticKind::MissingEndMarker,
            self.at(self.pos),
            format!("the call's end marker {end:?} is missing; call recovered"),
        );
        let pos = self.pos;
        self.complete(cx, pos)
    }
}

impl CallAutomaton for XmlCall {
    fn begin(&mut self, marker: usize) {
        let opening = self.dialect.opened_by(marker);
        (self.tags, self.bare) = (opening.tags, opening.bare_call);
        self.value_pats = values::value_patterns(self.tags, self.dialect);
        self.json_value = false;
        self.phase = Phase::Lead;
        self.body.clear();
        self.pos = 0;
        self.scan_from = 0;
        self.wait = Wait::default();
        self.key.clear();
        self.in_value.streamed = None;
        self.args.reset();
        self.params = 0;
        self.rejected = None;
        self.parts_given_back = false;
    }
    /// See [`Automaton::steady`](super::Automaton::steady): a string value
    /// being streamed (no newline held back, no tag in view) continues with
    /// whole characters that cannot begin a tag or a newline; or a partly
    /// received tag still waits for more (see [`need_until`]).
    #[inline]
    fn steady<'c>(&mut self, bytes: &'c [u8], offset: u64, call: InCall) -> Steady<'c> {
        // Built deltas: nothing is carried between steady ones.
        if call.carried {
            return Steady::No;
        }
        if self.holds(self.body.len() + bytes.len(), bytes) {
            self.body.append(bytes, offset);
            return Steady::Quiet;
        }
        let Phase::Value { start } = self.phase else {
            return match self.tags.func_open {
                None if self.rejected.is_none() => self.steady_glm(bytes, offset),
                _ => Steady::No,
            };
        };
        if self.rejected.is_some() {
            return Steady::No;
        }
        let Some(sent) = self.in_value.streamed else {
            return self.steady_held_value(start, bytes, offset);
        };
        // Bytes held after `sent`: the start of a character the last
        // chunk cut off (from a lead byte, 0xC0 up), a line break that may
        // be one of those stripped (see `steady_with_stops`), or a tag the
        // value waits for (see `steady_close`).
        let Some(held) = self.body.get(sent..) else {
            return Steady::No;
        };
        let whole = match held {
            [] => value_text(bytes),
            [0xC0..=0xFF, ..] => ValueText::Cut,
            // (Only a padded value holds a line break back.)
            b"\n" | b"\r\n" | b"\r" => return self.steady_with_stops(start, sent, bytes, offset),
            // A tag the value waited for (see `steady_close`).
            _ if self.wait.in_value == Some(self.scan_from) => {
                return self.steady_close(start, Some(sent), bytes, offset)
            }
            _ => return Steady::No,
        };
        let (steady, tail) = match whole {
            ValueText::Plain(text) => (Steady::Delta(text), 0),
            ValueText::Escaped(text) => (Steady::Escaped(text), 0),
            // A line break, or a `<` in a token. In a value without
            // padding a line break is text like any other; a `<` is the
            // automaton's.
            ValueText::Breaks if !self.tags.padded => match validate(bytes) {
                Ok(text) => (Steady::Escaped(text), 0),
                Err(()) => return Steady::No,
            },
            ValueText::Other if !self.tags.padded => return Steady::No,
            ValueText::Breaks => return self.steady_with_stops(start, sent, bytes, offset),
            ValueText::Other if bytes.len() <= VALUE_TEXT_BLOCK => {
                return self.steady_with_stops(start, sent, bytes, offset)
            }
            ValueText::Other => return Steady::No,
            // Characters cut by a chunk boundary.
            ValueText::Cut => match value_text_cut(held, bytes) {
                Some(cut) => (Steady::Cut(cut), usize::from(cut.tail)),
                None => return Steady::No,
            },
        };
        self.body.append(bytes, offset);
        self.scan_from = self.body.len();
        self.in_value.streamed = Some(self.body.len() - tail);
        steady
    }

    #[inline]
    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        if bytes.len() > super::MIN_PIECE {
            return self.advance_in_pieces(bytes, cx);
        }
        let before = self.body.append(bytes, cx.offset(0));
        if self.holds(self.body.len(), bytes) && !cx.at_limit() {
            return (bytes.len(), Outcome::More);
        }
        self.wait = Wait::default();
        let outcome = self.run(cx, false);
        self.body.settle(before, bytes.len(), outcome)
    }
    /// See [`Automaton::reject_invalid_utf8`](super::Automaton::reject_invalid_utf8):
    /// XML values never answer [`Steady::Verbatim`].
    fn reject_invalid_utf8(&mut self, _at: u64) {}
    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        self.body.anchor(cx.offset(0));
        if std::mem::take(&mut self.wait).until > 0 {
            // Bytes that arrived while waiting are first read as any chunk
            // would have been: a miss among them is a failure, not the end.
            match self.run(cx, false) {
                Outcome::More => {}
                done => return done,
            }
        }
        self.run(cx, true)
    }
}

/// GLM: the tool name `written` on the start marker's line, trimmed as
/// `str::trim` trims, into `name`; whether it is one (not empty, and only
/// ASCII letters, digits and `_-.:/`). Trimmed and checked byte by byte
/// first: a name is short and ASCII, and needs no UTF-8 pass.
fn glm_name_into(written: &[u8], name: &mut String) -> bool {
    let is_name_byte =
        |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/');
    // `str::trim`'s ASCII whitespace: `is_ascii_whitespace` and the
    // vertical tab.
    let space = |b: &u8| b.is_ascii_whitespace() || *b == 0x0B;
    let lead = written
        .iter()
        .position(|b| !space(b))
        .unwrap_or(written.len());
    let tail = written
        .iter()
        .rposition(|b| !space(b))
        .map_or(lead, |i| i + 1);
    match std::str::from_utf8(&written[lead..tail]) {
        Ok(trimmed) if !trimmed.is_empty() && trimmed.bytes().all(|b| is_name_byte(&b)) => {
            name.push_str(trimmed);
            true
        }
        // Other whitespace may end it (`str::trim` knows more).
        _ => {
            name.push_str(String::from_utf8_lossy(written).trim());
            !name.is_empty() && name.bytes().all(|b| is_name_byte(&b))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::glm_name_into;

    /// The reading `glm_name_into` replaces: a lossy UTF-8 pass, then
    /// `str::trim`.
    fn by_str(written: &[u8]) -> (bool, String) {
        let name = String::from_utf8_lossy(written).trim().to_owned();
        let plausible = !name.is_empty()
            && name.bytes().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/')
            });
        (plausible, name)
    }

    #[test]
    fn glm_names_read_as_trimmed_text() {
        let cases: &[&[u8]] = &[
            b"get_weather",
            b"  get_weather \t",
            b"\x0bget_weather\x0c\r",
            b"",
            b" \t ",
            b"get weather",
            b"ns.tool:v1/x-y",
            "get_weather\u{3000}".as_bytes(),
            "\u{a0}get_weather\u{85}".as_bytes(),
            "t\u{e9}l\u{e9}".as_bytes(),
            b"get_\xffweather",
            b"\xe4\xb8",
        ];
        for written in cases {
            let mut name = String::from("left over");
            name.clear();
            let plausible = glm_name_into(written, &mut name);
            assert_eq!((plausible, name), by_str(written), "{written:?}");
        }
    }
}
