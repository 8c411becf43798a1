//! A parameter's value: where it ends (a closing tag counts only before a
//! structural tag), nested calls and stray closers inside it, and how it
//! streams out, coerced to its schema type.

use super::*;
use crate::cx::Sink;
use crate::scan::json::needs_json_escape;
use crate::scan::utf8::valid_prefix;
use crate::scan::xml::{
    lend_static, newline_at_end, newline_at_start, text_before_break, AfterBreak,
};

impl XmlCall {
    /// Inside a value.
    pub(super) fn value<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
        start: usize,
    ) -> Option<Outcome> {
        let len = self.body.len();
        let pats = &self.value_pats;
        let found = find_tag(&self.body, self.scan_from, pats);
        // String values stream up to where a tag may begin, or
        // where the value may have ended.
        let limit = match found {
            Tag::Found { at, .. } | Tag::Need { at } => at,
            Tag::Miss => len,
        };
        let until = limit.min(self.in_value.may_end_at.unwrap_or(len));
        self.stream_value(start, until, cx);
        if self.rejected.is_some() {
            self.phase = Phase::Skip;
            return None;
        }
        match found {
            // Tags of a call the value holds as text.
            Tag::Found {
                index: index @ (4 | 5),
                at,
                end,
                ..
            } => return self.nested_call_tag(index, at, end, eof),
            Tag::Found { index, at, .. } if self.closes_nested(index) => {
                self.scan_from = at + 1;
            }
            Tag::Found {
                index: 0, at, end, ..
            } => {
                self.phase = Phase::ValueEnd {
                    start,
                    close_at: at,
                    ws_to: end,
                };
            }
            Tag::Found { index: 1, at, .. } => {
                // The next parameter, or text: the value's next
                // close decides (see `open_in_value`).
                self.in_value.open_in_value.get_or_insert(at);
                self.in_value.may_end_at.get_or_insert(at);
                self.scan_from = at + 1;
            }
            Tag::Found { at, end, .. } => {
                self.phase = Phase::ValueCut {
                    start,
                    at,
                    ws_to: end,
                    close: None,
                };
            }
            Tag::Need { at } if !eof => {
                self.scan_from = at;
                self.wait = self.value_wait(at);
                return Some(Outcome::More);
            }
            _ if !eof => {
                self.scan_from = len;
                return Some(Outcome::More);
            }
            _ => return self.value_at_eof(start, cx),
        }
        None
    }

    /// The steady path's chunk of a string value that holds line breaks
    /// or a `<`, or follows a line break that the chunks before it ended
    /// with (from body index `sent`; `start` is where the value began). A
    /// break is held back while it may be the one stripped before the
    /// close, and text after it shows that it was the value's own; text
    /// stops at a tag that the chunk's end cuts off, which waits for the
    /// rest (see [`need_until`]). So the held break and the chunk's text
    /// go out, up to a break that ends it, or that ends the text before
    /// the tag, held in turn (see [`steady`](CallAutomaton::steady)): what
    /// the automaton would send and hold; the value's first break is
    /// stripped whatever follows. `No` where the automaton decides: a
    /// chunk that begins with the value's first break, a tag that may have
    /// ended the value before the chunk, a whole tag or a `<` before the
    /// tag, a cut character, a held `\r` that the chunk's `\n` goes on.
    #[inline(never)]
    pub(super) fn steady_with_stops<'c>(
        &mut self,
        start: usize,
        sent: usize,
        bytes: &'c [u8],
        offset: u64,
    ) -> Steady<'c> {
        let first = sent == start;
        let (line_break, held) = match &self.body[sent..] {
            [] => (None, false),
            // The value's first line break: stripped whatever follows.
            b"\n" | b"\r\n" if first => (None, true),
            b"\n" => (Some("\\n"), true),
            b"\r\n" => (Some("\\r\\n"), true),
            b"\r" if !first && bytes.first() != Some(&b'\n') => (Some("\\r"), true),
            _ => return Steady::No,
        };
        let opens = first && !held && newline_at_start(bytes) > 0;
        if opens || self.in_value.may_end_at.is_some() || self.scan_from != self.body.len() {
            return Steady::No;
        }
        // The chunk's text, up to the tag it may end with.
        let pats = &self.value_pats;
        let lt = bytes.iter().position(|&b| b == b'<');
        let text_end = match lt {
            None => bytes.len(),
            Some(lt) if tag_at(bytes, lt, pats) == (Tag::Need { at: lt }) => lt,
            // A `<` that may be text, with nothing held before it.
            Some(_) if line_break.is_none() => return self.steady_text_with_lt(bytes, offset),
            Some(_) => return Steady::No,
        };
        let Some((text, tail)) = text_before_break(&bytes[..text_end]) else {
            return Steady::No;
        };
        let escaped = needs_json_escape(text.as_bytes());
        let steady = match line_break {
            // Only a tag follows the break: it may still be the stripped one.
            Some(_) if text_end == 0 => Steady::Quiet,
            Some(line_break) => Steady::AfterLineBreak(AfterBreak {
                line_break,
                text,
                escaped,
            }),
            None if text.is_empty() => Steady::Quiet,
            None if escaped => Steady::Escaped(text),
            None => Steady::Delta(text),
        };
        let before = self.body.append(bytes, offset);
        if !held || text_end > 0 {
            self.in_value.streamed = Some(before + text_end - tail);
        }
        self.scan_from = before + text_end;
        if lt.is_some() {
            let at = before + text_end;
            self.wait = self.value_wait(at);
        }
        steady
    }

    /// The steady path's chunk of a string value, with nothing held before
    /// it, that holds a `<` no tag can begin with: the byte after each one
    /// is in the chunk and is none of the value's tags' second byte
    /// (`a < b`, `Vec<u8>`, `<=`). Such a `<` is text whatever follows,
    /// as the automaton would find; `No` for anything else (a tag may
    /// begin, a line break, a cut character).
    #[inline(never)]
    pub(super) fn steady_text_with_lt<'c>(&mut self, bytes: &'c [u8], offset: u64) -> Steady<'c> {
        let pats = &self.value_pats;
        let begins_tag = |b: u8| pats.iter().any(|pat| pat.lit().get(1) == Some(&b));
        for (i, &b) in bytes.iter().enumerate() {
            let text = match b {
                b'<' => bytes.get(i + 1).is_some_and(|&next| !begins_tag(next)),
                b'\n' | b'\r' => false,
                _ => true,
            };
            if !text {
                return Steady::No;
            }
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Steady::No;
        };
        self.body.append(bytes, offset);
        self.scan_from = self.body.len();
        self.in_value.streamed = Some(self.body.len());
        match needs_json_escape(bytes) {
            true => Steady::Escaped(text),
            false => Steady::Delta(text),
        }
    }

    /// The stream ended inside a value: it closes where it may have ended
    /// without its close, if anywhere.
    fn value_at_eof<'c, S: Sink<'c>>(
        &mut self,
        start: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        match self.in_value.may_end_at {
            Some(at) => {
                self.close_missing(start, at, cx);
                None
            }
            None => {
                Some(self.unfinished(format!("the stream ended inside parameter {:?}", self.key)))
            }
        }
    }

    /// The wait for a partly received tag at body index `at` inside a
    /// value: [`need_until`] for the [`value_patterns`],
    /// taken from the automaton's memo when the same bytes were in hand
    /// before.
    fn value_wait(&mut self, at: usize) -> Wait {
        let pats = &self.value_pats;
        self.value_waits
            .need_until(&self.body, at, pats)
            .in_value(at)
    }

    /// Inside a value, a tag (pattern `index`, at `at`, ending at `end`)
    /// that may open a call the value holds as text.
    pub(super) fn nested_call_tag(
        &mut self,
        index: usize,
        at: usize,
        end: usize,
        eof: bool,
    ) -> Option<Outcome> {
        match self.opens_nested_call(index, end, eof) {
            Some(nested) => {
                if nested && index == 4 {
                    self.in_value.nested_functions += 1;
                } else if nested {
                    self.in_value.nested_blocks += 1;
                }
                self.scan_from = at + 1;
                None
            }
            None => {
                self.scan_from = at;
                Some(self.wait_one_byte())
            }
        }
    }

    /// After a function close or end marker inside a value: does it count?
    pub(super) fn value_cut<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
        start: usize,
        at: usize,
        ws_to: usize,
        close: Option<usize>,
    ) -> Option<Outcome> {
        let t = self.tags;

        let Some(next) = self.skip_separators(ws_to, eof) else {
            return Some(self.wait_one_byte());
        };
        self.phase = Phase::ValueCut {
            start,
            at,
            ws_to: next,
            close,
        };
        // What may follow a close inside a value for it to
        // count: the block's end, another call, a close once
        // more (models double them), the next parameter, or
        // nothing.
        let follow = [
            Pat::Lit(t.end),
            t.func_open.unwrap_or(Pat::Open(t.end)),
            Pat::Lit(self.dialect.block.marker.as_bytes()),
            Pat::Lit(t.func_close.unwrap_or(t.end)),
            t.param_open,
        ];
        let verdict = self.what_follows(next, eof, &follow);
        match (verdict, close) {
            (Tag::Found { .. }, Some(close_at)) => self.close_value(start, close_at, cx),
            (Tag::Found { .. }, None) => {
                let cut = self.in_value.open_in_value.map_or(at, |open| open.min(at));
                self.close_missing(start, cut, cx);
            }
            (Tag::Need { .. }, _) if !eof => {
                self.wait = need_until(&self.body, next, &follow);
                return Some(Outcome::More);
            }
            (_, Some(close_at)) => self.close_is_content(start, close_at),
            (_, None) => {
                // Followed by text: the tag was content.
                self.in_value.may_end_at.get_or_insert(at);
                self.phase = Phase::Value { start };
                self.scan_from = at + 1;
            }
        }
        None
    }

    /// What a parameter close counts before (see
    /// [`value_end`](Self::value_end)): the next parameter, the function's
    /// close, the end marker; and the same close once more.
    fn after_close_patterns(&self) -> [Pat; 4] {
        let t = self.tags;
        [
            t.param_open,
            Pat::Lit(t.func_close.unwrap_or(t.end)),
            Pat::Lit(t.end),
            Pat::Lit(t.param_close),
        ]
    }

    /// The steady path's chunk of a value that does not stream (typed by
    /// its schema, or JSON), held whole until its close: text goes into
    /// the body as a run would put it there, and a tag the chunk's end
    /// cuts off waits for the rest as [`value`](Self::value) makes it
    /// wait, without a run of the automaton. `No` for anything else (a
    /// whole tag, a `<` that may be text, a tag that may have ended the
    /// value before).
    #[inline(never)]
    pub(super) fn steady_held_value<'c>(
        &mut self,
        start: usize,
        bytes: &'c [u8],
        offset: u64,
    ) -> Steady<'c> {
        if self.wait.in_value == Some(self.scan_from) {
            return self.steady_close(start, None, bytes, offset);
        }
        if self.in_value.may_end_at.is_some() || self.scan_from != self.body.len() {
            return Steady::No;
        }
        let pats = &self.value_pats;
        let lt = bytes.iter().position(|&b| b == b'<');
        if lt.is_some_and(|lt| tag_at(bytes, lt, pats) != (Tag::Need { at: lt })) {
            return Steady::No;
        }
        let before = self.body.append(bytes, offset);
        self.scan_from = before + lt.unwrap_or(bytes.len());
        if lt.is_some() {
            self.wait = self.value_wait(self.scan_from);
        }
        Steady::Quiet
    }

    /// The steady path's chunk that completes the parameter close a value
    /// waits for at `scan_from` (see [`value`](Self::value)), with nothing
    /// after it but whitespace and the start of a tag the chunk's end cuts
    /// off, and nothing held before it but a line break (from body index
    /// `sent`, for a value that streams; `start` is where the value
    /// began): the value may have ended
    /// there, and what follows decides. So the close waits for the next
    /// tag as [`value_end`](Self::value_end) makes it wait, without a run
    /// of the automaton; `No` for anything else (another tag, text after
    /// the close, a call the value holds).
    #[inline(never)]
    pub(super) fn steady_close<'c>(
        &mut self,
        start: usize,
        sent: Option<usize>,
        bytes: &'c [u8],
        offset: u64,
    ) -> Steady<'c> {
        let (at, len, close) = (self.scan_from, self.body.len(), self.tags.param_close);
        // The close's bytes still to come; whitespace; then nothing, or
        // the start of a tag that may follow a close, cut off by the
        // chunk's end.
        let Some(rest) = close.get(len.saturating_sub(at)..) else {
            return Steady::No;
        };
        if bytes.len() < rest.len() {
            return Steady::No;
        }
        let next = skip_ws(bytes, rest.len());
        let pats = self.after_close_patterns();
        let follows =
            next == bytes.len() || tag_at(bytes, next, &pats[..3]) == (Tag::Need { at: next });
        let completes = same_bytes(&bytes[..rest.len()], rest)
            && same_bytes(&self.body[at..], &close[..close.len() - rest.len()]);
        let in_value = &self.in_value;
        let waits_in_value = self.wait.in_value == Some(at)
            && in_value.may_end_at.is_none()
            && in_value.nested_functions == 0
            && in_value.nested_blocks == 0;
        // A typed value is held whole until its close: nothing to check.
        let only_a_break = sent.is_none_or(|sent| {
            matches!(self.body.get(sent..at), Some(b"" | b"\n" | b"\r\n" | b"\r"))
        });
        if !(follows && completes && waits_in_value && only_a_break) {
            return Steady::No;
        }
        let next = self.body.append(bytes, offset) + next;
        self.phase = Phase::ValueEnd {
            start,
            close_at: at,
            ws_to: next,
        };
        self.wait = self.close_waits.need_until(&self.body, next, &pats);
        Steady::Quiet
    }

    /// After a parameter close: does it count?
    pub(super) fn value_end<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
        start: usize,
        close_at: usize,
        ws_to: usize,
    ) -> Option<Outcome> {
        let t = self.tags;
        let len = self.body.len();

        let Some(next) = self.skip_separators(ws_to, eof) else {
            return Some(self.wait_one_byte());
        };
        self.phase = Phase::ValueEnd {
            start,
            close_at,
            ws_to: next,
        };
        let [open, func_close, end, close] = self.after_close_patterns();
        let follow = [open, func_close, end];
        let verdict = self.what_follows(next, eof, &follow);
        // The same close once more counts too: models double
        // it now and then (the second is then skipped as stray).
        let again = [close];
        let verdict = match verdict {
            Tag::Miss => match tag_at(&self.body, next, &again) {
                Tag::Found { at, end, attr, .. } => Tag::Found {
                    index: 3,
                    at,
                    end,
                    attr,
                },
                verdict => verdict,
            },
            verdict => verdict,
        };
        match verdict {
            // A value holding an open tag may hold its close and
            // more: the same close once more, or (in a block)
            // the function's close, count once what follows
            // them does.
            Tag::Found {
                index: index @ (1 | 3),
                at,
                end,
                ..
            } if self.in_value.open_in_value.is_some()
                && (index == 3 || (t.func_close.is_some() && !self.bare && next < len)) =>
            {
                self.phase = Phase::ValueCut {
                    start,
                    at,
                    ws_to: end,
                    close: Some(close_at),
                };
            }
            Tag::Found { .. } => self.close_value(start, close_at, cx),
            Tag::Need { .. } if !eof => {
                let pats = self.after_close_patterns();
                self.wait = self.close_waits.need_until(&self.body, next, &pats);
                return Some(Outcome::More);
            }
            _ => self.close_is_content(start, close_at),
        }
        None
    }

    /// Whether the function open tag (`index` 4) or start marker (5) that
    /// ends at `end`, inside a value, opens a call the value holds as text:
    /// what follows is a call's structure — after a function open tag, a
    /// parameter open tag or the function's close; after a start marker, a
    /// function open tag (GLM: a name on its line, then `<arg_key>`), with
    /// only whitespace between. Code that merely names the tag
    /// (`f"<function={name}>"`) opens nothing. `None`: more bytes decide.
    pub(super) fn opens_nested_call(&self, index: usize, end: usize, eof: bool) -> Option<bool> {
        let t = self.tags;
        let len = self.body.len();
        let mut at = end;
        if index == 5 && t.func_open.is_none() {
            // GLM's tool name, right after the marker.
            let window = &self.body[at..len.min(at + MAX_TAG)];
            let name = |b: &u8| b.is_ascii_alphanumeric() || b"_-.:".contains(b);
            match window.iter().position(|b| !name(b)) {
                Some(0) => return Some(false),
                Some(i) => at += i,
                None if eof || window.len() == MAX_TAG => return Some(false),
                None => return None,
            }
        }
        let next = skip_ws(&self.body, at);
        if next == len {
            return if eof { Some(false) } else { None };
        }
        let structure = match (index, t.func_open) {
            (4, _) | (_, None) => [t.param_open, Pat::Lit(t.func_close.unwrap_or(t.end))],
            (_, Some(open)) => [open, open],
        };
        match tag_at(&self.body, next, &structure) {
            Tag::Found { .. } => Some(true),
            Tag::Need { .. } if !eof => None,
            _ => Some(false),
        }
    }

    /// Whether tag `index` of the value's patterns (parameter close, open,
    /// function close, end marker) belongs to a call the value holds as
    /// text (see `nested_functions`); a close then closes it. Dialects
    /// without function tags (GLM) nest by block.
    pub(super) fn closes_nested(&mut self, index: usize) -> bool {
        let by_function = self.tags.func_open.is_some();
        let nested = match index {
            0..=2 if by_function => &mut self.in_value.nested_functions,
            0..=3 => &mut self.in_value.nested_blocks,
            _ => return false,
        };
        if *nested == 0 {
            return false;
        }
        // The function's close (GLM: the block's end at index 2, as its
        // function close stands in for it) and the end close a level.
        if index >= 2 {
            *nested -= 1;
        }
        true
    }

    /// Which of `pats` stands at `next`, after a close and the whitespace
    /// after it; the end of the stream counts as structure too (index 0).
    pub(super) fn what_follows(&self, next: usize, eof: bool, pats: &[Pat]) -> Tag {
        match self.body.len() {
            len if next < len => tag_at(&self.body, next, pats),
            _ if eof => Tag::Found {
                index: 0,
                at: next,
                end: next,
                attr: (next, next),
            },
            _ => Tag::Need { at: next },
        }
    }

    /// The parameter close at `close_at` is structural: it ends the value
    /// that began at `start` — or, when an open tag stands in the value,
    /// the parameter that tag began (the value's own close is missing).
    pub(super) fn close_value<'c, S: Sink<'c>>(
        &mut self,
        start: usize,
        close_at: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        match self.in_value.open_in_value {
            Some(open) => self.close_missing(start, open, cx),
            None => {
                self.commit_value(start, close_at, cx);
                self.pos = close_at + self.tags.param_close.len();
                self.phase = Phase::Params;
            }
        }
    }

    /// The parameter close at `close_at` is followed by text: it was
    /// content, and so was an open tag it pairs with.
    pub(super) fn close_is_content(&mut self, start: usize, close_at: usize) {
        if let Some(open) = self.in_value.open_in_value.take() {
            if self.in_value.may_end_at == Some(open) {
                self.in_value.may_end_at = None;
            }
        }
        self.phase = Phase::Value { start };
        self.scan_from = close_at + 1;
    }

    /// The value that began at `start` ends at `at` without its close: it
    /// is committed, and the tag at `at` read again as structure.
    pub(super) fn close_missing<'c, S: Sink<'c>>(
        &mut self,
        start: usize,
        at: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        cx.recovered(
            DiagnosticKind::MissingCloseTag,
            self.at(at),
            format!("parameter {:?} is not closed", self.key),
        );
        self.commit_value(start, at, cx);
        self.pos = at;
        self.phase = Phase::Params;
    }

    /// After the structural tags did not match at `pos`: whether one of
    /// `closes` stands there (`</parameter>` or `</function>` once more,
    /// with no element open); if so it is skipped.
    #[cold]
    #[inline(never)]
    pub(super) fn stray_close<'c, S: Sink<'c>>(
        &mut self,
        closes: &[Pat],
        eof: bool,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Stray {
        match tag_at(&self.body, self.pos, closes) {
            Tag::Found { end, .. } => {
                let tag = String::from_utf8_lossy(&self.body[self.pos..end]).into_owned();
                cx.recovered(
                    DiagnosticKind::StrayCloseTag,
                    self.at(self.pos),
                    format!("stray {tag} skipped"),
                );
                self.pos = end;
                Stray::Skipped
            }
            Tag::Need { .. } if !eof => {
                self.wait = need_until(&self.body, self.pos, closes);
                Stray::Undecided
            }
            _ => Stray::Absent,
        }
    }

    /// [`skip_separators`](Self::skip_separators) from the backslash at
    /// `at`, for a dialect with escaped line breaks.
    #[inline(never)]
    pub(super) fn skip_escaped_breaks(&self, mut at: usize, eof: bool) -> Option<usize> {
        loop {
            match self.body.get(at..at + 2) {
                Some(b"\\n" | b"\\r" | b"\\t") => at = skip_ws(&self.body, at + 2),
                None if !eof && self.body.get(at) == Some(&b'\\') => return None,
                _ => return Some(at),
            }
        }
    }

    /// A value begins at `start`. A string value (schema type exactly
    /// `"string"`, or no schema where the format reads untyped values as
    /// text) is sent as it arrives; others are coerced
    /// once complete.
    pub(super) fn open_value<'c, S: Sink<'c>>(&mut self, start: usize, cx: &mut CallCx<'_, 'c, S>) {
        self.phase = Phase::Value { start };
        self.scan_from = start;
        self.pos = start;
        self.in_value = InValue::default();
        let param = cx.param(&self.key);
        let string_typed = match param {
            None => self.untyped() == Untyped::Text,
            Some(param) => param.streams_as_string,
        };
        if self.rejected.is_none() && cx.started() && string_typed && !self.args.has(&self.key) {
            let opening = self.args.begin_string(&self.key, param);
            cx.delta_text(opening);
            self.in_value.streamed = Some(start);
        }
    }

    /// Sends the streamed value's content up to `limit`, holding back what
    /// may still be cut: a leading newline not yet followed by anything, a
    /// trailing newline (it is stripped if the value ends there), and an
    /// incomplete UTF-8 sequence.
    pub(super) fn stream_value<'c, S: Sink<'c>>(
        &mut self,
        start: usize,
        limit: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let Some(sent) = self.in_value.streamed else {
            return;
        };
        let value = &self.body[start..limit];
        if value.is_empty() || value == b"\r" {
            return;
        }
        let padded = self.tags.padded;
        let lead = if padded { newline_at_start(value) } else { 0 };
        let mut end = limit;
        if padded && self.body[..end].ends_with(b"\n") {
            end -= 1;
        }
        if padded && self.body[..end].ends_with(b"\r") {
            end -= 1;
        }
        let from = sent.max(start + lead);
        if end <= from {
            return;
        }
        self.send_part(from, end, cx);
    }

    /// Sends `body[from..end]` of the streamed value, up to the last whole
    /// character; rejects the call at invalid UTF-8.
    pub(super) fn send_part<'c, S: Sink<'c>>(
        &mut self,
        from: usize,
        end: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        // Bytes held from an earlier chunk (a newline that might have
        // ended the value) come before those in this one.
        let held = cx.offset(0).saturating_sub(self.at(from));
        let held = usize::try_from(held).map_or(end - from, |held| held.min(end - from));
        let close = self.tags.param_close;
        let lend = |run: &str| lend_static(run, close);
        let (valid, invalid) = match cx.in_chunk(self.at(from), end - from) {
            // The common case, all of it in the chunk: validated once,
            // where it lies.
            Some(bytes) if held == 0 => {
                let (text, invalid) = valid_prefix(bytes);
                if !text.is_empty() {
                    self.args.string_part(text, Some(text), lend, cx);
                }
                (text.len(), invalid)
            }
            _ => self.send_held_part(from, end, held, cx),
        };
        if valid > 0 {
            self.in_value.streamed = Some(from + valid);
        }
        if invalid {
            let f = self.not_utf8(from + valid);
            self.in_value.streamed = None;
            self.reject(f);
        }
    }

    /// [`send_part`](Self::send_part) of a part whose first `held` bytes
    /// came before the chunk: they go out first, with the rest of a code
    /// point that the chunk boundary split. Returns how many bytes are
    /// valid, and whether invalid bytes follow them.
    fn send_held_part<'c, S: Sink<'c>>(
        &mut self,
        from: usize,
        end: usize,
        held: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, bool) {
        let (text, invalid) = valid_prefix(&self.body[from..end]);
        let valid = text.len();
        let held = held.min(valid);
        let cut = (held..=valid)
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(valid);
        let (before, in_chunk) = text.split_at(cut);
        let close = self.tags.param_close;
        for (part, at) in [(before, from), (in_chunk, from + cut)] {
            if !part.is_empty() {
                let raw = cx.in_chunk(self.at(at), part.len());
                let raw = raw.and_then(|raw| validate(raw).ok());
                let lend = |run: &str| lend_static(run, close);
                self.args.string_part(part, raw, lend, cx);
            }
        }
        (valid, invalid)
    }

    /// The value being read is not UTF-8 at body index `at`.
    fn not_utf8(&self, at: usize) -> Failure {
        let message = format!("parameter {:?} is not UTF-8", self.key);
        Failure::new(DiagnosticKind::InvalidUtf8, self.at(at), message)
    }

    /// How the value in progress is read if its schema leaves it untyped.
    fn untyped(&self) -> Untyped {
        match self.json_value {
            true => Untyped::MarkedJson,
            false => self.tags.untyped,
        }
    }

    pub(super) fn commit_value<'c, S: Sink<'c>>(
        &mut self,
        start: usize,
        end: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        if let Some(sent) = self.in_value.streamed.take() {
            // The rest of a streamed string: up to the stripped newline.
            let value = &self.body[start..end];
            let (lead, content_end) = match self.tags.padded {
                true => {
                    let lead = newline_at_start(value);
                    (lead, end - newline_at_end(&value[lead..]))
                }
                false => (0, end),
            };
            let from = sent.max(start + lead);
            if content_end > from {
                self.in_value.streamed = Some(from);
                self.send_part(from, content_end, cx);
                if self.rejected.is_some() {
                    return;
                }
                // An incomplete sequence at the very end is invalid.
                if self.in_value.streamed != Some(content_end) {
                    let f = self.not_utf8(content_end);
                    return self.reject(f);
                }
                self.in_value.streamed = None;
            }
            self.args.end_string(cx);
            self.key.clear();
            self.params += 1;
            return;
        }
        let Ok(text) = validate(&self.body[start..end]) else {
            let f = self.not_utf8(start);
            return self.reject(f);
        };
        let mut key = std::mem::take(&mut self.key);
        let text = match self.tags.padded {
            true => strip_one_newline(text),
            false => text,
        };
        self.args
            .add(&key, text, self.untyped(), self.at(start), cx);
        key.clear();
        self.key = key;
        self.params += 1;
    }
}

/// The tags that matter inside a value of a block read with `tags`, by
/// their index in the matches of [`XmlCall::value`]: the parameter's
/// close, the next parameter's open, the function's close, the end
/// marker, and the opening tags of a call the value holds as text.
pub(super) fn value_patterns(tags: &Tags, dialect: &Dialect) -> [Pat; 6] {
    [
        Pat::Lit(tags.param_close),
        tags.param_open,
        Pat::Lit(tags.func_close.unwrap_or(tags.end)),
        Pat::Lit(tags.end),
        // (GLM has no function tags: a repeat, never reached.)
        tags.func_open.unwrap_or(Pat::Open(tags.end)),
        Pat::Lit(dialect.block.marker.as_bytes()),
    ]
}
