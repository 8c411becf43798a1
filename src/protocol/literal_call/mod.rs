//! Calls written as code, their argument values as literals that are not
//! JSON (converted by [`crate::scan::literal`]): Python lists of calls
//! (`formats/pythonic.rs`: Llama 3.2 and 4, Olmo 3) and Gemma 4's calls
//! (`formats/gemma4.rs`); those files show the layouts.
//!
//! The call starts when its name is read; its arguments stream as JSON
//! built one member at a time: a string value as its text comes
//! (`strings.rs`), any other as it completes (the deltas always
//! concatenate to the final input). In a Python list each call is
//! delivered when the next begins or the list ends.

mod phases;
mod strings;

use super::{CallAutomaton, Failure, InCall, Outcome, Steady};
use crate::cx::{push_key_json, CallCx, Param, Sink};
use crate::event::DiagnosticKind;
use crate::scan::is_ws;
use crate::scan::json::{escape_json_char_into, escape_json_into};
use crate::scan::literal::{is_word, python_escape, to_json_into, Invalid, PythonEscape, Syntax};
use crate::scan::partial::{Match, Partial, PartialSet, Seen, SetMatch};

/// Llama 4's end of a call list.
const PYTHON_END: &[u8] = b"<|python_end|>";
/// Olmo 3's block of calls, one per line.
pub(crate) const FUNCTION_CALLS: (&str, &str) = ("<function_calls>", "</function_calls>");
/// Gemma's words before the name.
const GEMMA_CALL: &[u8] = b"call:";
/// The end tokens of Llama 4's list and of Olmo 3's lines.
const PYTHON_ENDS: &[&[u8]] = &[PYTHON_END];
const LINES_ENDS: &[&[u8]] = &[FUNCTION_CALLS.1.as_bytes()];
/// The longest name or key read.
const MAX_WORD: usize = 256;

/// What a block of Python calls looks like (see [`LiteralCall::begin`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Block {
    /// A list, `[f(…), g(…)]`.
    #[default]
    List,
    /// Olmo 3: calls one per line up to `</function_calls>`.
    Lines,
    /// A list whose `[`, first name and `(` were the marker: the name is
    /// the `n`th of `known`.
    Known(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    /// Python: whitespace, then the list's `[`.
    #[default]
    Open,
    /// A known tool's marker was read: its call starts.
    Known,
    /// Gemma 4: `call:` (or a bare `:`) before the name.
    Prefix,
    /// A call's name, up to `(` or `{`.
    Name,
    /// After `(` or `{` or a member's `,`: whitespace, a key or the close.
    Member,
    /// A key, up to `=` or `:`.
    Key,
    /// A value, up to the `,` or close that follows it at depth 0.
    Value,
    /// Python: a call of the list that cannot be delivered: the rest of
    /// its arguments, up to its `)`, to give it back alone.
    Skip,
    /// Python: after a call's `)`: whitespace, then `,` or `]`.
    AfterCall,
    /// An end token (`<|python_end|>`, `<tool_call|>`, `<turn|>` or
    /// `</function_calls>`) after whitespace.
    End,
}

/// What a format says about its calls: set when the automaton is built,
/// never changed while reading.
#[derive(Debug, Clone)]
struct Rules {
    syntax: Syntax,
    max_depth: usize,
    /// Whether a list begins after `<|python_start|>` (its end token
    /// follows), or at the start of the output (a list that is no call
    /// list is prose; see [`LiteralCall::bare_lead`]).
    after_marker: bool,
    /// The tools whose `[NAME(` are markers, from marker 2 on.
    known: Vec<String>,
    /// The token that must end a list (LFM2's), where Llama 4's may be
    /// left out.
    list_end: Option<&'static [&'static [u8]]>,
    /// Whether a quote of a string's own kind left unescaped is read as
    /// text where the value does not end after it (LFM2, as vLLM's `lfm2`
    /// parser repairs it; its `pythonic` parser does not).
    repairs_quotes: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct LiteralCall {
    rules: Rules,
    /// What is known inside the block being read.
    in_block: InBlock,
    /// What is known inside the value being read.
    in_value: InValue,
    /// The name, key or value being read.
    word: Vec<u8>,
    /// The current key.
    key: Vec<u8>,
    /// A member's JSON, built to go out as one delta.
    piece: String,
}

/// What is known inside a block: a fresh value at each block's start.
#[derive(Debug, Clone, Default)]
struct InBlock {
    phase: Phase,
    block: Block,
    /// Stream offset of the name's first byte.
    word_at: u64,
    /// Gemma 4's `call:` being read.
    token: Partial,
    /// The end token being read.
    end: PartialSet,
    /// The byte that closes the arguments of the call being read: `)`,
    /// or Gemma 4's `}` (`)` where it opened them with `(`).
    close: u8,
    /// Whether the call in progress has a member yet.
    has_member: bool,
    /// Whether a call of this block started.
    any_call: bool,
    /// Bytes consumed since `begin` while no call started (given back if
    /// the list is no call list).
    read: usize,
    /// Consumed bytes after the last that belongs to the block.
    trail: usize,
    /// Why the call being skipped ([`Phase::Skip`]) cannot be delivered.
    skipping: Option<Failure>,
    /// A call of the block was given back as text on its own: the rest
    /// of the block after it is text too, unless a call follows.
    parts_given_back: bool,
}

impl InBlock {
    fn new(block: Block, phase: Phase) -> InBlock {
        InBlock {
            phase,
            block,
            close: b')',
            ..InBlock::default()
        }
    }
}

/// What is known inside a value: a fresh value at each value's start.
#[derive(Debug, Clone, Default)]
struct InValue {
    /// Bracket depth, and string state.
    depth: usize,
    quote: Option<u8>,
    escaped: bool,
    /// Python: whether the string is triple-quoted; the quotes just read
    /// at its start (deciding that) or, in a triple-quoted one, in a row.
    long: bool,
    quotes: u8,
    /// Gemma 4: how much of a string quote `<|"|>` the value's bytes
    /// last read.
    quote_mark: Partial,
    /// Whether the value is a string streamed as it comes.
    string: strings::Streaming,
    /// The streamed string opened in the chunk being read.
    opened_here: bool,
    /// Python: the quote that closed the streamed string, while what
    /// follows may show it was text (see `strings::after_closing_quote`).
    closed_quote: Option<u8>,
    /// Why a streamed string is no literal (the call fails where the
    /// value ends).
    rejected: Option<Invalid>,
}

impl LiteralCall {
    pub(crate) fn new(syntax: Syntax, max_depth: usize) -> LiteralCall {
        LiteralCall {
            rules: Rules {
                syntax,
                max_depth,
                after_marker: true,
                known: Vec::new(),
                list_end: None,
                repairs_quotes: false,
            },
            in_block: InBlock::new(Block::List, Phase::Open),
            in_value: InValue::default(),
            word: Vec::new(),
            key: Vec::new(),
            piece: String::new(),
        }
    }

    /// Markers 2 on are `[NAME(` of these tools (marker 1 is Olmo 3's
    /// `<function_calls>`).
    pub(crate) fn knowing(mut self, names: Vec<String>) -> LiteralCall {
        self.rules.known = names;
        self
    }

    /// Lists end with `token` (LFM2's `<|tool_call_end|>`) in place of
    /// Llama 4's optional `<|python_end|>`; one missing is reported.
    pub(crate) fn ending_lists_with(mut self, token: &'static [&'static [u8]]) -> LiteralCall {
        self.rules.list_end = Some(token);
        self
    }

    /// A quote of a string's own kind left unescaped is text where the
    /// value does not end after it (`command='sed -n '1,9p' f.py'`).
    pub(crate) fn repairing_quotes(mut self) -> LiteralCall {
        self.rules.repairs_quotes = true;
        self
    }

    /// The same automaton reading a list at the start of the output.
    pub(crate) fn bare_lead(&self) -> LiteralCall {
        let mut lead = self.clone();
        lead.rules.after_marker = false;
        lead
    }

    /// The byte that closes a call's arguments opened by `open`, if
    /// `open` opens them: Python's `(`; Gemma 4's `{`, or `(` as its
    /// native parser also reads.
    fn closer_of(&self, open: u8) -> Option<u8> {
        match (self.rules.syntax, open) {
            (Syntax::Python | Syntax::Gemma(_), b'(') => Some(b')'),
            (Syntax::Gemma(_), b'{') => Some(b'}'),
            _ => None,
        }
    }

    /// The tokens that end the block; the first is the one its format
    /// names.
    fn end_tokens(&self) -> &'static [&'static [u8]] {
        match (self.rules.syntax, self.in_block.block) {
            (Syntax::Python, Block::Lines) => LINES_ENDS,
            (Syntax::Python, _) => self.rules.list_end.unwrap_or(PYTHON_ENDS),
            (Syntax::Gemma(tokens), _) => tokens.ends,
        }
    }

    /// A known tool's call begins at the stream offset `at` of its
    /// arguments (its name and `(` stand just before).
    fn start_known<'c, S: Sink<'c>>(
        &mut self,
        n: usize,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Result<(), Failure> {
        let name = self.rules.known.get(n).map_or("", String::as_str);
        let origin = at.checked_sub(name.len() as u64 + 1);
        cx.start_at(name, origin, at)
            .map_err(|f| f.with_name(name))?;
        self.in_block.any_call = true;
        self.in_block.has_member = false;
        self.in_block.close = b')';
        self.in_block.phase = Phase::Member;
        Ok(())
    }

    /// After a call's `)`, the next call begins (`at` is where the
    /// previous one was delivered).
    fn next_call<'c, S: Sink<'c>>(&mut self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
        cx.deliver(at);
        self.word.clear();
        self.in_block.phase = Phase::Name;
    }

    /// The end token is missing at stream offset `at`: Gemma's, Olmo 3's
    /// and LFM2's are recovered with a diagnostic; Llama 4's may be left
    /// out.
    fn report_missing_end<'c, S: Sink<'c>>(&self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
        let required = match self.rules.syntax {
            Syntax::Gemma(_) => true,
            Syntax::Python => self.in_block.block == Block::Lines || self.rules.list_end.is_some(),
        };
        if required {
            let token = String::from_utf8_lossy(self.end_tokens()[0]).into_owned();
            missing_end(&token, at, cx);
        }
    }

    /// Expects the end token next.
    fn expect_end(&mut self) {
        self.in_block.end.reset();
        self.in_block.trail = 0;
        self.in_block.phase = Phase::End;
    }

    /// In a Python list each call stands or falls alone: one that cannot
    /// be delivered (`failure`) is read to its `)` and given back as text
    /// (see [`Phase::Skip`]), and the list goes on. Elsewhere the attempt
    /// fails.
    fn reject_call(&mut self, failure: Failure) -> Option<Outcome> {
        if self.rules.syntax != Syntax::Python {
            return Some(Outcome::failed(failure));
        }
        self.in_block.skipping = Some(failure);
        self.in_block.phase = Phase::Skip;
        None
    }

    /// The block ends, `give_back` bytes before stream offset `at`: if its
    /// last call was given back, what is left of it is text too.
    fn complete<'c, S: Sink<'c>>(
        &self,
        give_back: usize,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Outcome {
        if self.in_block.parts_given_back && !cx.started() {
            cx.text_up_to(at.saturating_sub(give_back as u64));
        }
        Outcome::Complete { give_back }
    }

    /// The attempt fails at stream offset `at`, `consumed` bytes into the
    /// slice: silently, as prose, while a bare list has started no call.
    fn fail(&self, consumed: usize, at: u64, message: &str) -> Outcome {
        if !self.in_block.any_call && !self.rules.after_marker {
            return Outcome::NotACall {
                read: self.in_block.read + consumed,
            };
        }
        Outcome::malformed(at, message)
    }

    /// A member's value is complete: its key and JSON go out.
    fn member<'c, S: Sink<'c>>(
        &mut self,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Result<(), Failure> {
        if self.in_value.string == strings::Streaming::Closed {
            return self.end_streamed(at, cx);
        }
        let bad = |m: &str| Failure::new(DiagnosticKind::InvalidArguments, at, m.to_owned());
        let key = std::str::from_utf8(&self.key)
            .map_err(|_| bad("a key is not UTF-8"))?
            .trim();
        let param = cx.param(key);
        member_key(&mut self.piece, self.in_block.has_member, key, param);
        let string_typed = param.is_some_and(|p| p.string_typed);
        let piece = &mut self.piece;
        let scalar = match string_typed {
            true => None,
            false => crate::scan::literal::quoted_scalar(self.rules.syntax, &self.word),
        };
        match (
            scalar,
            bare_string(self.rules.syntax, &self.word, string_typed),
        ) {
            (Some(json), _) => piece.push_str(json),
            (None, Some(text)) => {
                piece.push('"');
                escape_json_into(piece, text);
                piece.push('"');
                let message = format!(
                    "parameter {key:?}: a bare value where the schema says string, read as that string"
                );
                cx.recovered(DiagnosticKind::Coercion, at, message);
            }
            (None, None) => {
                let bare = to_json_into(self.rules.syntax, &self.word, self.rules.max_depth, piece)
                    .map_err(|e| bad(&format!("an argument's value is not a literal: {e}")))?;
                if bare {
                    let message =
                        format!("parameter {key:?}: a value without quotes, read as a string");
                    cx.recovered(DiagnosticKind::Coercion, at, message);
                }
            }
        }
        self.in_block.has_member = true;
        cx.delta_text(piece);
        Ok(())
    }

    /// The call's arguments close at stream offset `at`.
    fn close_call<'c, S: Sink<'c>>(&mut self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
        let close: &[u8] = if self.in_block.has_member {
            b"}"
        } else {
            b"{}"
        };
        let _ = cx.delta_owned(close, at);
    }

    /// Inside a string, with no escape or quote half read: how many bytes
    /// of `rest` hold nothing that could end it (`None` when none, or not
    /// in such a string).
    #[inline]
    fn string_run(&self, rest: &[u8]) -> Option<usize> {
        let n = match (self.rules.syntax, self.in_value.quote) {
            (Syntax::Python, Some(q)) if !self.in_value.escaped && self.in_value.quotes == 0 => {
                crate::scan::find_byte2(q, b'\\', rest)
            }
            // Every quote begins with `<`.
            (Syntax::Gemma(_), Some(_)) if !self.in_value.quote_mark.is_started() => {
                crate::scan::find_byte(b'<', rest)
            }
            _ => Some(0),
        };
        let n = n.unwrap_or(rest.len());
        (n > 0).then_some(n)
    }

    /// Python: byte `b` of a value whose arguments `close` ends; `true`
    /// when it ends the value (and is not consumed).
    fn python_byte(&mut self, b: u8, close: u8) -> bool {
        let v = &mut self.in_value;
        let Some(q) = v.quote else {
            match b {
                b'\'' | b'"' => {
                    v.quote = Some(b);
                    v.quotes = 1;
                }
                b'[' | b'(' | b'{' => v.depth += 1,
                b']' | b')' | b'}' if v.depth > 0 => v.depth -= 1,
                b',' if v.depth == 0 => return true,
                _ if b == close && v.depth == 0 => return true,
                _ => {}
            }
            return false;
        };
        match (v.long, v.quotes) {
            // The quotes a string opens with tell `'…'` from `''` and
            // `'''…'''`.
            (false, 1 | 2) if b == q => {
                v.quotes += 1;
                if v.quotes == 3 {
                    (v.long, v.quotes) = (true, 0);
                }
                return false;
            }
            (false, 2) => {
                // `''`, an empty string: `b` follows it.
                (v.quote, v.quotes) = (None, 0);
                return self.python_byte(b, close);
            }
            (false, 1) => v.quotes = 0,
            _ => {}
        }
        if v.escaped {
            v.escaped = false;
        } else if b == b'\\' {
            (v.escaped, v.quotes) = (true, 0);
        } else if b != q {
            v.quotes = 0;
        } else if !v.long {
            v.quote = None;
        } else {
            v.quotes += 1;
            if v.quotes == 3 {
                (v.quote, v.long, v.quotes) = (None, false, 0);
            }
        }
        false
    }

    /// Scans a value's bytes from `bytes[*i..]`; `true` when the byte at
    /// `*i` (not consumed) ends it.
    fn scan_value(&mut self, bytes: &[u8], i: &mut usize) -> bool {
        let close = self.in_block.close;
        while let Some(&b) = bytes.get(*i) {
            // Inside a string, only its quote (and for Python a backslash)
            // matters: the bytes up to the next one go in at once.
            if let Some(n) = self.string_run(&bytes[*i..]) {
                self.word.extend_from_slice(&bytes[*i..*i + n]);
                *i += n;
                continue;
            }
            match self.rules.syntax {
                Syntax::Python => {
                    if self.python_byte(b, close) {
                        return true;
                    }
                }
                Syntax::Gemma(tokens) => {
                    // The quote token opens and closes strings.
                    match self.in_value.quote_mark.scan(tokens.quote, b) {
                        Seen::Whole => {
                            self.in_value.quote = if self.in_value.quote.is_some() {
                                None
                            } else {
                                Some(b'"')
                            };
                        }
                        Seen::Partway => {}
                        Seen::Not if self.in_value.quote.is_none() => match b {
                            b'[' | b'{' => self.in_value.depth += 1,
                            b']' | b'}' if self.in_value.depth > 0 => self.in_value.depth -= 1,
                            b',' if self.in_value.depth == 0 => return true,
                            _ if b == close && self.in_value.depth == 0 => return true,
                            _ => {}
                        },
                        Seen::Not => {}
                    }
                }
            }
            self.word.push(b);
            *i += 1;
        }
        false
    }
}

/// Starts `piece` with a member's key: the comma after an earlier member
/// (`has_member`), the key as a JSON string, and the colon; `param` is the
/// key's entry in the tool's table, whose JSON is written as it is.
fn member_key(piece: &mut String, has_member: bool, key: &str, param: Option<&Param>) {
    piece.clear();
    piece.push_str(if has_member { ", " } else { "{" });
    push_key_json(piece, key, param);
}

/// Gemma 4 writes a string argument now and then without its `<|"|>`
/// quotes (`serial:AB-12`): where the tool's schema says string, such a
/// bare value (not a list, an object or a quoted string) is read as the
/// string it spells, trimmed.
fn bare_string(syntax: Syntax, value: &[u8], string_typed: bool) -> Option<&str> {
    let quote = syntax.gemma_quote()?;
    // A quoted string, a list or an object is told by its first byte,
    // without validating the whole value (which may be long).
    let quoted =
        |text: &[u8]| text.starts_with(quote) || text.starts_with(b"[") || text.starts_with(b"{");
    if !string_typed || quoted(value.trim_ascii_start()) {
        return None;
    }
    let text = crate::scan::utf8::validate(value).ok()?.trim();
    (!text.is_empty() && !quoted(text.as_bytes())).then_some(text)
}

/// Skips whitespace from `bytes[*i]` on; how much.
fn skip_ws(bytes: &[u8], i: &mut usize) -> usize {
    let n = crate::scan::skip_ws(&bytes[*i..]);
    *i += n;
    n
}

/// The phases of [`LiteralCall::advance`], one method each.
impl CallAutomaton for LiteralCall {
    /// Plain text inside a streamed string: the chunk as it stands; more
    /// of a name, a key or an end token: nothing to emit.
    #[inline]
    fn steady<'c>(&mut self, bytes: &'c [u8], _offset: u64, call: InCall) -> Steady<'c> {
        if self.in_block.phase == Phase::Value {
            return self.steady_text(bytes, call);
        }
        match self.steady_quiet(bytes) {
            true => Steady::Quiet,
            false => Steady::No,
        }
    }

    /// A streamed string is not UTF-8: the call fails where its value ends.
    fn reject_invalid_utf8(&mut self, _at: u64) {
        self.in_value.rejected.get_or_insert("invalid UTF-8");
    }

    /// Marker 0 opens a list (or Gemma 4's call), 1 Olmo 3's lines, 2 on
    /// a known tool's list.
    fn begin(&mut self, marker: usize) {
        let block = match marker {
            0 => Block::List,
            1 => Block::Lines,
            k => Block::Known(k - 2),
        };
        let phase = match (self.rules.syntax, block) {
            (Syntax::Gemma(_), _) => Phase::Prefix,
            (Syntax::Python, Block::List) => Phase::Open,
            (Syntax::Python, Block::Lines) => Phase::Name,
            (Syntax::Python, Block::Known(_)) => Phase::Known,
        };
        self.in_block = InBlock::new(block, phase);
        self.in_value = InValue::default();
        self.word.clear();
    }

    /// Reads `bytes` phase by phase: each phase is a method of its own,
    /// which returns `None` when it moved on (the loop goes on) and the
    /// outcome otherwise; `i` is where it stands in `bytes`.
    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let mut i = 0;
        let outcome = loop {
            let i = &mut i;
            let step = match self.in_block.phase {
                Phase::Open => self.open_list(bytes, i, cx),
                Phase::Prefix => self.prefix(bytes, i, cx),
                Phase::Name => self.name(bytes, i, cx),
                Phase::Member => self.next_member(bytes, i, cx),
                Phase::Key => self.key(bytes, i, cx),
                Phase::Value => self.value(bytes, i, cx),
                Phase::Skip => self.skip(bytes, i, cx),
                Phase::AfterCall => self.after_call(bytes, i, cx),
                Phase::Known => self.known(i, cx),
                Phase::End => self.end(bytes, i, cx),
            };
            if let Some(outcome) = step {
                break outcome;
            }
        };
        if !self.in_block.any_call {
            self.in_block.read += i;
        }
        (i, outcome)
    }

    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        let at = cx.offset(0);
        match self.in_block.phase {
            Phase::End => {
                self.report_missing_end(at.saturating_sub(self.in_block.trail as u64), cx);
                self.complete(self.in_block.trail, at, cx)
            }
            Phase::AfterCall if self.in_block.block == Block::Lines => {
                missing_end(FUNCTION_CALLS.1, at, cx);
                self.complete(0, at, cx)
            }
            Phase::AfterCall => {
                cx.recovered(
                    DiagnosticKind::MissingEndMarker,
                    at,
                    "the list of calls is not closed; calls recovered".into(),
                );
                self.complete(0, at, cx)
            }
            Phase::Known => Outcome::failed(Failure::new(
                DiagnosticKind::UnfinishedCall,
                at,
                "the stream ended at the start of a call",
            )),
            _ if !self.in_block.any_call && !self.rules.after_marker => Outcome::NotACall {
                read: self.in_block.read,
            },
            _ => Outcome::failed(Failure::new(
                DiagnosticKind::UnfinishedCall,
                at,
                "the stream ended inside a call",
            )),
        }
    }
}

fn missing_end<'c, S: Sink<'c>>(token: &str, at: u64, cx: &mut CallCx<'_, 'c, S>) {
    let message = if token == FUNCTION_CALLS.1 {
        format!("the calls' end token {token} is missing; calls recovered")
    } else {
        format!("the call's end token {token} is missing; call recovered")
    };
    cx.recovered(DiagnosticKind::MissingEndMarker, at, message);
}
