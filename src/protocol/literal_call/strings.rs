//! A value that is one string, streamed as it comes: the member's key and
//! the opening quote go out once the string has begun, its text as it
//! arrives (runs of plain text lent from the chunk, escapes decoded), the
//! closing quote when the value ends. Any other value is read whole, as
//! the value ends ([`LiteralCall::member`]).
//!
//! What goes out is what reading the whole value would give, at any
//! chunking: a run ends at the same bytes (quotes, backslashes and what
//! JSON escapes) however the text is cut, and a string that turns out
//! not to be a literal (`'a' 'b'`, a bad escape, invalid UTF-8) fails the
//! call where the value ends, as a whole value does.

use super::*;
use crate::scan::{begins_with, find_byte2, find_bytes};

/// Where a value stands on being streamed as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Streaming {
    /// Nothing but whitespace read.
    #[default]
    Undecided,
    /// The value's first bytes (held in `word`) may open a string: a
    /// Python quote (the next byte tells a one-quote string from `''` and
    /// `'''`), or the start of Gemma 4's `<|"|>`.
    Opening,
    /// Inside the string: its text goes out as it comes. `word` holds a
    /// Python escape begun (after its backslash) or the start of Gemma 4's
    /// closing quote.
    On,
    /// The string closed; what follows up to the value's end must be
    /// whitespace.
    Closed,
    /// Not a streamed string: read whole as the value ends.
    Off,
}

/// The most bytes the opening of a streamed string holds (`<escape>`).
const OPENING_MAX: usize = crate::scan::literal::QUOTE_MAX;

/// The bytes that end a run of a string's plain text, by class: a string
/// says which classes close it or start an escape, and which JSON escapes
/// ([`RunEnds`]).
const CLASSES: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = CONTROL;
        b += 1;
    }
    table[b'"' as usize] = DOUBLE_QUOTE;
    table[b'\\' as usize] = BACKSLASH;
    table[b'\'' as usize] = SINGLE_QUOTE;
    table[b'<' as usize] = LESS_THAN;
    table
};
const CONTROL: u8 = 1;
const DOUBLE_QUOTE: u8 = 2;
const BACKSLASH: u8 = 4;
const SINGLE_QUOTE: u8 = 8;
const LESS_THAN: u8 = 16;

/// The classes of [`CLASSES`] that end the runs of the string being read:
/// those that may close it or start an escape (`syntax`), and those JSON
/// escapes (`escaped`).
#[derive(Debug, Clone, Copy)]
pub(super) struct RunEnds {
    syntax: u8,
    escaped: u8,
}

impl RunEnds {
    /// Whether `b` ends a run of plain text.
    #[inline]
    fn at(self, b: u8) -> bool {
        CLASSES[usize::from(b)] & (self.syntax | self.escaped) != 0
    }
}

/// What a steady chunk of a string's text is (see
/// [`LiteralCall::chunk_kind`]).
enum ChunkKind {
    AsItStands,
    Escaped,
    Read,
}

impl LiteralCall {
    /// Streams the value's string from `bytes[*i..]`; `false` when the
    /// bytes ran out inside it or before it was told from other values,
    /// `true` when the rest of the value is for [`scan_value`](Self::scan_value).
    pub(super) fn stream_string<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> bool {
        loop {
            match self.in_value.string {
                Streaming::Undecided => {
                    skip_ws(bytes, i);
                    let Some(&b) = bytes.get(*i) else {
                        return false;
                    };
                    let opens = match self.rules.syntax {
                        Syntax::Python => b == b'\'' || b == b'"',
                        // A quoted value that may be a scalar is read whole.
                        Syntax::Gemma(tokens) => {
                            b == tokens.quote[0]
                                && (!tokens.scalars_in_quotes || self.key_is_string_typed(cx))
                        }
                    };
                    if !opens {
                        self.in_value.string = Streaming::Off;
                        return true;
                    }
                    self.word.push(b);
                    *i += 1;
                    self.in_value.string = Streaming::Opening;
                }
                Streaming::Opening => {
                    let Some(&b) = bytes.get(*i) else {
                        return false;
                    };
                    match self.rules.syntax {
                        Syntax::Python if self.word.first() != Some(&b) => self.open_string(cx),
                        Syntax::Gemma(tokens) if tokens.quote.get(self.word.len()) == Some(&b) => {
                            self.word.push(b);
                            *i += 1;
                            if self.word == tokens.quote {
                                self.open_string(cx);
                            }
                        }
                        _ => {
                            self.read_opening_whole();
                            return true;
                        }
                    }
                }
                Streaming::On => {
                    if !self.string_text(bytes, i, cx) {
                        return false;
                    }
                }
                Streaming::Closed => match self.after_closing_quote(bytes, i, cx) {
                    Some(true) => {}
                    Some(false) => return true,
                    None => return false,
                },
                Streaming::Off => return true,
            }
        }
    }

    /// Python: after a closing quote, whether the value ends there. A
    /// model now and then leaves a quote of the string's own kind
    /// unescaped (`command='sed -n '1,9p' f.py'`): where the format
    /// repairs it (LFM2), a quote followed, past whitespace, by anything
    /// but the `,` or `)` that ends the value was text. `Some(true)`: the
    /// string goes on (the quote and the whitespace sent as its text);
    /// `Some(false)`: the value ends; `None`: the bytes ran out in the
    /// whitespace (held).
    fn after_closing_quote<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<bool> {
        let Some(quote) = self.in_value.closed_quote else {
            return Some(false);
        };
        while let Some(&b) = bytes.get(*i) {
            if is_ws(b) {
                self.word.push(b);
                *i += 1;
                continue;
            }
            if b == b',' || b == self.in_block.close {
                return Some(false);
            }
            self.in_value.closed_quote = None;
            self.in_value.quote = Some(quote);
            self.in_value.string = Streaming::On;
            let held = std::mem::take(&mut self.word);
            let at = cx.offset(*i);
            self.send_char(char::from(quote), at, cx);
            for &h in &held {
                self.send_char(char::from(h), at, cx);
            }
            return Some(true);
        }
        None
    }

    /// Whether the current key's schema says string.
    fn key_is_string_typed<'c, S: Sink<'c>>(&self, cx: &CallCx<'_, 'c, S>) -> bool {
        let key = std::str::from_utf8(self.key.trim_ascii()).unwrap_or_default();
        cx.param(key).is_some_and(|p| p.string_typed)
    }

    /// The opening read is no string's to stream: its bytes are scanned
    /// as the start of a value read whole.
    fn read_opening_whole(&mut self) {
        let mut held = [0; OPENING_MAX];
        let n = self.word.len().min(OPENING_MAX);
        held[..n].copy_from_slice(&self.word[..n]);
        self.word.clear();
        self.in_value.string = Streaming::Off;
        let mut j = 0;
        // A quote or a part of `<|"|>` ends no value.
        let ended = self.scan_value(&held[..n], &mut j);
        debug_assert!(!ended && j == n);
    }

    /// The string opened: the member's key and the opening quote go out.
    fn open_string<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        self.in_value.quote = Some(match self.rules.syntax {
            Syntax::Python => self.word.first().copied().unwrap_or(b'"'),
            Syntax::Gemma(_) => b'"',
        });
        self.word.clear();
        self.in_value.string = Streaming::On;
        self.in_value.opened_here = true;
        // Keys are words and spaces: ASCII.
        let key = std::str::from_utf8(self.key.trim_ascii()).unwrap_or_default();
        member_key(
            &mut self.piece,
            self.in_block.has_member,
            key,
            cx.param(key),
        );
        self.piece.push('"');
        cx.delta_text(&self.piece);
    }

    /// The string's text from `bytes[*i..]`; `true` once it closed.
    fn string_text<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> bool {
        let quote = self.in_value.quote.unwrap_or(b'"');
        // A string that opens and closes in one chunk goes out with its
        // key as one delta (a server sends each delta as a message); one
        // that spans chunks lends its runs from them.
        let close = match std::mem::take(&mut self.in_value.opened_here) {
            true => self.text_end_in(&bytes[*i..], quote),
            false => None,
        };
        let whole = close.is_some();
        if let (Some(end), Syntax::Gemma(tokens)) = (close, self.rules.syntax) {
            if self.whole_gemma_string(bytes, i, (end, tokens.quote), cx) {
                return true;
            }
        }
        while let Some(&b) = bytes.get(*i) {
            if self.in_value.escaped {
                self.escape(b, i, cx);
                continue;
            }
            if !self.word.is_empty() {
                // Gemma 4: a closing quote begun.
                if self.closing_mark(b, i, cx) {
                    return true;
                }
                continue;
            }
            let rest = &bytes[*i..];
            let ends = self.run_ends();
            let n = rest.iter().position(|&b| ends.at(b)).unwrap_or(rest.len());
            if n > 0 {
                self.send(&rest[..n], whole, cx.offset(*i), cx);
                *i += n;
                continue;
            }
            *i += 1;
            match (self.rules.syntax, b) {
                (Syntax::Python, _) if b == quote => {
                    self.close_string();
                    return true;
                }
                (Syntax::Python, b'\\') => self.in_value.escaped = true,
                (Syntax::Gemma(_), b'<') => self.word.push(b),
                _ => self.send_char(char::from(b), cx.offset(*i), cx),
            }
        }
        false
    }

    /// Gemma 4: a string that closes in the chunk in hand, read in one
    /// piece: its text (the `end` bytes up to the first `<|"|>`, Gemma 4
    /// having no escapes) validated and JSON-escaped in one pass each, which is
    /// what the run-by-run reading joins into one delta (a 64 KB argument
    /// read whole costs a pass or two over it, not a delta's join per
    /// escaped byte). `false`, nothing read, where that reading has more
    /// to say: text that is not UTF-8, a value already rejected.
    #[inline(never)]
    fn whole_gemma_string<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        (end, quote): (usize, &[u8]),
        cx: &mut CallCx<'_, 'c, S>,
    ) -> bool {
        if self.in_value.rejected.is_some() || !self.word.is_empty() {
            return false;
        }
        let Ok(text) = crate::scan::utf8::validate(&bytes[*i..*i + end]) else {
            return false;
        };
        self.piece.clear();
        escape_json_into(&mut self.piece, text);
        cx.delta_text(&self.piece);
        *i += end + quote.len();
        self.close_string();
        true
    }

    /// What ends a run of the string's plain text.
    #[inline]
    fn run_ends(&self) -> RunEnds {
        let (syntax, escaped) = match (self.rules.syntax, self.in_value.quote) {
            (Syntax::Python, Some(b'\'')) => (SINGLE_QUOTE | BACKSLASH, DOUBLE_QUOTE | CONTROL),
            (Syntax::Python, _) => (DOUBLE_QUOTE | BACKSLASH, CONTROL),
            (Syntax::Gemma(_), _) => (LESS_THAN, DOUBLE_QUOTE | BACKSLASH | CONTROL),
        };
        RunEnds { syntax, escaped }
    }

    /// The common token-sized chunk inside a streamed string, with no
    /// byte that may close it or start an escape: the chunk as it stands,
    /// or JSON-escaped (see [`Automaton::steady`](crate::protocol::Automaton)).
    #[inline]
    pub(super) fn steady_text<'c>(&self, bytes: &'c [u8], call: InCall) -> Steady<'c> {
        let v = &self.in_value;
        let plain_state = v.string == Streaming::On
            && !v.escaped
            && self.word.is_empty()
            && v.rejected.is_none()
            && call.started
            && self.in_block.phase == Phase::Value;
        if !plain_state {
            return Steady::No;
        }
        let ends = self.run_ends();
        let classes = bytes
            .iter()
            .fold(0, |acc, &b| acc | CLASSES[usize::from(b)]);
        if classes & (ends.syntax | ends.escaped) == 0 {
            return Steady::Verbatim { in_string: false };
        }
        match self.chunk_kind(bytes, ends) {
            ChunkKind::AsItStands => Steady::Verbatim { in_string: false },
            // Escaped text must be whole characters.
            ChunkKind::Escaped => match std::str::from_utf8(bytes) {
                Ok(text) if !call.carried => Steady::Escaped(text),
                _ => Steady::No,
            },
            ChunkKind::Read => Steady::No,
        }
    }

    /// A chunk of the string's text holding bytes that may end its runs:
    /// whether its JSON is the chunk as it stands (a Python escape that
    /// JSON writes alike, `\"` or `\n`; Gemma 4's `<` before anything but
    /// `|"|>`), the chunk JSON-escaped (only bytes JSON escapes, and no
    /// Python escape), or for the automaton to read.
    fn chunk_kind(&self, bytes: &[u8], ends: RunEnds) -> ChunkKind {
        let (mut escaped, mut python_escapes) = (false, false);
        let mut j = 0;
        while let Some(k) = bytes[j..].iter().position(|&b| ends.at(b)) {
            let at = j + k;
            let b = bytes[at];
            j = at + 1;
            match (self.rules.syntax, b) {
                (Syntax::Python, b'\\') => match bytes.get(at + 1) {
                    Some(b'"' | b'\\' | b'n' | b't' | b'r' | b'b' | b'f') => {
                        python_escapes = true;
                        j += 1;
                    }
                    _ => return ChunkKind::Read,
                },
                (Syntax::Gemma(tokens), b'<') => {
                    // Text when a byte in the chunk tells it from the quote.
                    let after = &bytes[at..];
                    let n = after.len().min(tokens.quote.len());
                    if after[..n] == tokens.quote[..n] {
                        return ChunkKind::Read;
                    }
                }
                _ if CLASSES[usize::from(b)] & ends.syntax != 0 => return ChunkKind::Read,
                _ => escaped = true,
            }
        }
        match (escaped, python_escapes) {
            (false, _) => ChunkKind::AsItStands,
            (true, false) => ChunkKind::Escaped,
            (true, true) => ChunkKind::Read,
        }
    }

    /// Gemma 4: byte `b` after the start of `<|"|>` held in `word`; `true`
    /// when it completes the closing quote. Otherwise the held bytes were
    /// text, and `b` is read again as text.
    fn closing_mark<'c, S: Sink<'c>>(
        &mut self,
        b: u8,
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> bool {
        let quote = self.rules.syntax.gemma_quote().unwrap_or_default();
        if quote.get(self.word.len()) == Some(&b) {
            self.word.push(b);
            *i += 1;
            if self.word == quote {
                self.close_string();
                return true;
            }
            return false;
        }
        let held = quote.get(..self.word.len()).unwrap_or_default();
        self.word.clear();
        for &h in held {
            self.send_char(char::from(h), cx.offset(*i), cx);
        }
        false
    }

    /// A Python escape: `b` follows its backslash, or the letter and the
    /// hex digits held in `word`. An unknown escape is kept as written:
    /// its backslash goes out, and `b` is read again as text.
    fn escape<'c, S: Sink<'c>>(&mut self, b: u8, i: &mut usize, cx: &mut CallCx<'_, 'c, S>) {
        let at = cx.offset(*i);
        let Some(&letter) = self.word.first() else {
            match python_escape(b) {
                PythonEscape::Hex(_) => {
                    self.word.push(b);
                    *i += 1;
                }
                PythonEscape::Char(c) => {
                    *i += 1;
                    self.in_value.escaped = false;
                    self.send_char(c, at, cx);
                }
                PythonEscape::LineContinuation => {
                    *i += 1;
                    self.in_value.escaped = false;
                }
                PythonEscape::Unknown => {
                    self.in_value.escaped = false;
                    self.send_char('\\', at, cx);
                }
            }
            return;
        };
        // `word` holds only a hex escape's letter and digits.
        let PythonEscape::Hex(digits) = python_escape(letter) else {
            self.end_escape(None, at, cx);
            return;
        };
        if !b.is_ascii_hexdigit() {
            // `b` is read again: it may close the string.
            self.end_escape(None, at, cx);
            return;
        }
        self.word.push(b);
        *i += 1;
        if self.word.len() > digits {
            let c = std::str::from_utf8(&self.word[1..])
                .ok()
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .and_then(char::from_u32);
            self.end_escape(c, at, cx);
        }
    }

    /// A `\x`, `\u` or `\U` escape ends, as this character or as a bad
    /// escape.
    fn end_escape<'c, S: Sink<'c>>(
        &mut self,
        c: Option<char>,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        self.word.clear();
        self.in_value.escaped = false;
        match c {
            Some(c) => self.send_char(c, at, cx),
            None => self.reject("a bad escape"),
        }
    }

    fn close_string(&mut self) {
        self.word.clear();
        // A short Python string's quote may turn out to be text.
        let repairs = self.rules.repairs_quotes && !self.in_value.long;
        self.in_value.closed_quote = match (self.rules.syntax, repairs) {
            (Syntax::Python, true) => self.in_value.quote,
            _ => None,
        };
        self.in_value.quote = None;
        self.in_value.escaped = false;
        self.in_value.string = Streaming::Closed;
    }

    /// The value cannot be delivered: nothing more of it goes out, and
    /// the call fails where it ends.
    fn reject(&mut self, why: Invalid) {
        self.in_value.rejected.get_or_insert(why);
    }

    /// Text of the string, as it stands in the stream at offset `at`:
    /// lent, or copied to join the built text around it (`built`).
    fn send<'c, S: Sink<'c>>(
        &mut self,
        text: &'c [u8],
        built: bool,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        if self.in_value.rejected.is_some() {
            return;
        }
        let sent = match built {
            true => cx.delta_owned(text, at),
            false => cx.delta(text, at),
        };
        if sent.is_err() {
            self.reject("invalid UTF-8");
        }
    }

    /// Where the string's text ends in `rest`, read from where it stands,
    /// if it closes there: the index of its closing quote (`0` where a
    /// Gemma 4 closing quote begun in the held bytes goes on in `rest`).
    fn text_end_in(&self, rest: &[u8], quote: u8) -> Option<usize> {
        match self.rules.syntax {
            Syntax::Python => {
                // Past a backslash, the byte it escapes (as `escape` reads:
                // a hex digit never closes the string, and a byte that
                // ends a hex escape is read again).
                let mut j = usize::from(self.in_value.escaped && self.word.is_empty());
                while let Some(n) = rest.get(j..).and_then(|r| find_byte2(quote, b'\\', r)) {
                    if rest[j + n] == quote {
                        return Some(j + n);
                    }
                    j += n + 2;
                }
                None
            }
            Syntax::Gemma(tokens) => {
                let held = self.word.len();
                let rest_of_quote = tokens.quote.get(held..).unwrap_or_default();
                match held > 0 && begins_with(rest, rest_of_quote) {
                    true => Some(0),
                    false => find_bytes(rest, tokens.quote),
                }
            }
        }
    }

    /// One character of the string, JSON-escaped.
    fn send_char<'c, S: Sink<'c>>(&mut self, c: char, at: u64, cx: &mut CallCx<'_, 'c, S>) {
        if self.in_value.rejected.is_some() {
            return;
        }
        self.piece.clear();
        escape_json_char_into(&mut self.piece, c);
        // After a character cut short: the text is not UTF-8.
        if cx.delta_owned(self.piece.as_bytes(), at).is_err() {
            self.reject("invalid UTF-8");
        }
    }

    /// The value of a streamed string ends at stream offset `at`: its
    /// closing quote goes out, unless it is no literal.
    pub(super) fn end_streamed<'c, S: Sink<'c>>(
        &mut self,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Result<(), Failure> {
        if !self.word.trim_ascii().is_empty() {
            self.reject("unexpected characters after the value");
        }
        if self.in_value.rejected.is_none() && cx.delta_owned(b"\"", at).is_err() {
            self.reject("invalid UTF-8");
        }
        if let Some(why) = self.in_value.rejected {
            let message = format!("an argument's value is not a literal: {why}");
            return Err(Failure::new(DiagnosticKind::InvalidArguments, at, message));
        }
        self.in_block.has_member = true;
        Ok(())
    }
}
