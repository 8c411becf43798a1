//! One method per phase of [`LiteralCall::advance`]: each reads from
//! `bytes[*i..]` and goes on with the next phase or returns the outcome.

use super::*;
use crate::cx::Sink;

impl LiteralCall {
    /// Bytes that only go on with the name, key or end token being read
    /// (a key's first ones after whitespace too): consumed as
    /// [`advance`](CallAutomaton::advance) consumes them, and `true`. Token
    /// by token a name or key takes several chunks, each of which would
    /// otherwise run the automaton for nothing. `false`, nothing done,
    /// for any other bytes.
    #[inline]
    pub(super) fn steady_quiet(&mut self, bytes: &[u8]) -> bool {
        if self.in_block.phase == Phase::End {
            return self.steady_end(bytes);
        }
        // The classes every byte is of.
        let all = bytes
            .iter()
            .fold(!0, |acc, &b| acc & WORD_CLASSES[usize::from(b)]);
        let fits = |word: &[u8], n: usize| word.len() + n <= MAX_WORD;
        let taken = match self.in_block.phase {
            // Past its first byte, whose offset `name` notes.
            Phase::Name if all & IN_NAME != 0 && !self.word.is_empty() => {
                let taken = fits(&self.word, bytes.len());
                if taken {
                    self.word.extend_from_slice(bytes);
                }
                taken
            }
            Phase::Key if all & IN_KEY != 0 => {
                let taken = fits(&self.key, bytes.len());
                if taken {
                    self.key.extend_from_slice(bytes);
                }
                taken
            }
            // Whitespace, then a key (the close is no key byte).
            Phase::Member if all & IN_KEY != 0 && fits(&[], bytes.len()) => {
                let key = &bytes[crate::scan::skip_ws(bytes)..];
                if !key.is_empty() {
                    self.key.clear();
                    self.key.extend_from_slice(key);
                    self.in_block.phase = Phase::Key;
                }
                true
            }
            _ => false,
        };
        self.note_read(taken, bytes.len());
        taken
    }

    /// [`steady_quiet`](Self::steady_quiet) in an end token: the bytes
    /// go on with it, not completing it. Out of line: once a call.
    #[inline(never)]
    fn steady_end(&mut self, bytes: &[u8]) -> bool {
        let tokens = self.end_tokens();
        let taken = self.in_block.end.goes_on_without_end(tokens, bytes);
        if taken {
            self.in_block.trail += bytes.len();
        }
        self.note_read(taken, bytes.len());
        taken
    }

    /// `n` bytes were `taken` on the steady path: while no call started,
    /// they count as read, as [`advance`](CallAutomaton::advance) counts
    /// them.
    #[inline]
    fn note_read(&mut self, taken: bool, n: usize) {
        if taken && !self.in_block.any_call {
            self.in_block.read += n;
        }
    }

    /// Python: whitespace, then the list's `[`.
    pub(super) fn open_list<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        skip_ws(bytes, i);
        match bytes.get(*i) {
            None => Some(Outcome::More),
            Some(b'[') => {
                *i += 1;
                self.word.clear();
                self.in_block.phase = Phase::Name;
                None
            }
            Some(_) => Some(self.fail(*i, cx.offset(*i), "expected a list of calls")),
        }
    }

    /// Gemma 4: `call:` before the name, or a bare `:` (which Gemma 4's
    /// native parser reads too).
    pub(super) fn prefix<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        if !self.in_block.token.is_started() && bytes.get(*i) == Some(&b':') {
            *i += 1;
            self.word.clear();
            self.in_block.phase = Phase::Name;
            return None;
        }
        match self.in_block.token.feed(GEMMA_CALL, bytes, i) {
            Match::More => Some(Outcome::More),
            Match::Mismatch => Some(self.fail(*i, cx.offset(*i), "expected call: and a name")),
            Match::Done => {
                self.word.clear();
                self.in_block.phase = Phase::Name;
                None
            }
        }
    }

    /// A call's name, up to `(` or `{`: the call starts.
    pub(super) fn name<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        if self.word.is_empty() {
            skip_ws(bytes, i);
            self.in_block.word_at = cx.offset(*i);
        }
        let rest = &bytes[*i..];
        // At most one byte past the longest name: the verdict falls at the
        // same byte however the text was cut.
        let n = rest
            .iter()
            .take(MAX_WORD + 1 - self.word.len().min(MAX_WORD))
            .take_while(|&&b| is_word(b) || b == b'.' || b == b'-')
            .count();
        self.word.extend_from_slice(&rest[..n]);
        *i += n;
        if self.word.len() > MAX_WORD {
            return Some(self.fail(*i, cx.offset(*i), "the call's name is too long"));
        }
        let Some(&b) = bytes.get(*i) else {
            return Some(Outcome::More);
        };
        let name = std::str::from_utf8(&self.word).unwrap_or("");
        let close = self.closer_of(b);
        let Some(close) =
            close.filter(|_| !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()))
        else {
            return Some(self.fail(
                *i,
                cx.offset(*i),
                "expected a call: a name and its arguments",
            ));
        };
        self.in_block.close = close;
        *i += 1;
        if let Err(f) = cx.start_at(name, Some(self.in_block.word_at), cx.offset(*i)) {
            let name = name.to_owned();
            self.in_value = InValue::default();
            return self.reject_call(f.with_name(&name));
        }
        self.in_block.any_call = true;
        self.in_block.has_member = false;
        self.in_block.phase = Phase::Member;
        None
    }

    /// After `(` or `{` or a member's `,`: whitespace, a key or the close.
    pub(super) fn next_member<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        skip_ws(bytes, i);
        match bytes.get(*i) {
            None => Some(Outcome::More),
            Some(&b) if b == self.in_block.close => {
                *i += 1;
                self.close_call(cx.offset(*i), cx);
                if self.rules.syntax == Syntax::Python {
                    self.in_block.phase = Phase::AfterCall;
                } else {
                    self.expect_end();
                }
                None
            }
            Some(_) => {
                self.key.clear();
                self.in_block.phase = Phase::Key;
                None
            }
        }
    }

    /// A key, up to `=` or `:`.
    pub(super) fn key<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let assign = match self.rules.syntax {
            Syntax::Python => b'=',
            Syntax::Gemma(_) => b':',
        };
        let rest = &bytes[*i..];
        // At most one byte past the longest key (see `name`).
        let n = rest
            .iter()
            .take(MAX_WORD + 1 - self.key.len().min(MAX_WORD))
            .take_while(|&&b| is_word(b) || is_ws(b))
            .count();
        self.key.extend_from_slice(&rest[..n]);
        *i += n;
        if self.key.len() > MAX_WORD {
            return Some(self.fail(*i, cx.offset(*i), "an argument's name is too long"));
        }
        match bytes.get(*i) {
            None => Some(Outcome::More),
            Some(&b) if b == assign && !self.key.trim_ascii().is_empty() => {
                *i += 1;
                self.word.clear();
                self.in_value = InValue::default();
                self.in_block.phase = Phase::Value;
                None
            }
            Some(_) => Some(self.fail(*i, cx.offset(*i), "expected an argument: name=value")),
        }
    }

    /// A value, up to the `,` or close that follows it at depth 0: the
    /// member goes out.
    pub(super) fn value<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        if !self.stream_string(bytes, i, cx) || !self.scan_value(bytes, i) {
            return Some(Outcome::More);
        }
        if let Err(f) = self.member(cx.offset(*i), cx) {
            return self.reject_call(f);
        }
        if bytes[*i] == b',' {
            *i += 1;
        }
        self.in_block.phase = Phase::Member;
        None
    }

    /// Python: the rest of a call that cannot be delivered, up to its
    /// `)` (its arguments read as values are, for their strings and
    /// brackets): then it is given back as text, and the list goes on.
    pub(super) fn skip<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        loop {
            let ended = self.scan_value(bytes, i);
            // What is skipped needs no keeping: only where it ends.
            self.word.clear();
            if !ended {
                return Some(Outcome::More);
            }
            *i += 1;
            if bytes[*i - 1] != b',' {
                break;
            }
            self.in_value = InValue::default();
        }
        // (`reject_call` set the reason before the phase; a default keeps
        // this free of a panic path.)
        let failure = self.in_block.skipping.take().unwrap_or_else(|| {
            Failure::malformed(cx.offset(*i), "a call of the list could not be delivered")
        });
        cx.reject_part(failure, cx.offset(*i));
        self.in_block.parts_given_back = true;
        self.in_block.phase = Phase::AfterCall;
        None
    }

    /// Python: after a call's `)`, the next call, the list's end, or (Olmo
    /// 3) the next line's call or the end token.
    pub(super) fn after_call<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        skip_ws(bytes, i);
        let Some(&b) = bytes.get(*i) else {
            return Some(Outcome::More);
        };
        match (b, self.in_block.block) {
            (b',', _) => {
                self.next_call(cx.offset(*i), cx);
                *i += 1;
            }
            (b']', Block::List) if self.rules.after_marker => {
                *i += 1;
                self.expect_end();
            }
            (b']', Block::List | Block::Known(_)) => {
                *i += 1;
                return Some(self.complete(0, cx.offset(*i), cx));
            }
            (b'<', Block::Lines) => self.expect_end(),
            (b, Block::Lines) if is_word(b) => self.next_call(cx.offset(*i), cx),
            _ => return Some(self.fail(*i, cx.offset(*i), "expected ',' or ']' after a call")),
        }
        None
    }

    /// A known tool's marker was read: its call starts.
    pub(super) fn known<'c, S: Sink<'c>>(
        &mut self,
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let Block::Known(n) = self.in_block.block else {
            return Some(self.fail(*i, cx.offset(*i), "expected a call"));
        };
        self.start_known(n, cx.offset(*i), cx)
            .err()
            .map(Outcome::failed)
    }

    /// An end token (`<|python_end|>`, `<tool_call|>`,
    /// `</function_calls>`) after whitespace.
    pub(super) fn end<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        if !self.in_block.end.is_started() {
            self.in_block.trail += skip_ws(bytes, i);
        }
        let tokens = self.end_tokens();
        let before = *i;
        let found = self.in_block.end.feed(tokens, bytes, i);
        self.in_block.trail += *i - before;
        Some(match found {
            SetMatch::More => Outcome::More,
            SetMatch::Done(_) => self.complete(0, cx.offset(*i), cx),
            // Llama 4's end token may be left out; Gemma 4's and Olmo 3's
            // are missing.
            SetMatch::Mismatch => {
                let at = cx.offset(*i).saturating_sub(self.in_block.trail as u64);
                self.report_missing_end(at, cx);
                self.complete(self.in_block.trail, cx.offset(*i), cx)
            }
        })
    }
}

/// Byte classes for [`LiteralCall::steady_quiet`]: bytes of a name
/// (`is_word`, `.` and `-`), and of a key (`is_word` and whitespace).
const WORD_CLASSES: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if is_word(byte) {
            table[b] = IN_NAME | IN_KEY;
        } else if is_ws(byte) {
            table[b] = IN_KEY;
        } else if byte == b'.' || byte == b'-' {
            table[b] = IN_NAME;
        }
        b += 1;
    }
    table
};
const IN_NAME: u8 = 1;
const IN_KEY: u8 = 2;
