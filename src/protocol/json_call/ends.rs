//! How a block ends: whitespace and extra closers after the JSON, a
//! markdown fence around it, a closing token, the end marker, and the
//! start marker of the next call right after it.

use super::*;
use crate::cx::Sink;

/// The rest of the start marker after an end marker that begins it
/// (```` ```tool_call ```` after ```` ``` ````), with the boundary the start
/// marker needs; empty for formats whose markers differ.
#[derive(Debug, Clone, Default)]
pub(super) struct Reopen {
    pub(super) tail: Box<[u8]>,
    pub(super) boundary: Option<Boundary>,
}

impl Reopen {
    /// The start marker's rest after `end`, if `start` begins with it.
    pub(super) fn new(start: &[u8], end: &[u8], boundary: Boundary) -> Reopen {
        match start.strip_prefix(end) {
            Some(tail) if !end.is_empty() && !tail.is_empty() => Reopen {
                tail: tail.into(),
                boundary: Some(boundary),
            },
            _ => Reopen::default(),
        }
    }

    /// Whether the start marker's rest (and its boundary) follows the end
    /// marker, where `reading` says how much of it did and `after` comes
    /// next (all of `after` is then read). `None` while `after` is too
    /// short to tell, unless `at_eof` (it is all there is).
    pub(super) fn follows(
        &self,
        reading: &mut Reopening,
        after: &[u8],
        at_eof: bool,
    ) -> Option<bool> {
        let Some(boundary) = self.boundary else {
            return Some(false);
        };
        let mut i = 0;
        if let Reopening::Tail(tail) = reading {
            match tail.feed(&self.tail, after, &mut i) {
                Match::Mismatch => return Some(false),
                Match::More => return at_eof.then_some(false),
                Match::Done => *reading = Reopening::Boundary,
            }
        }
        let decided = match boundary {
            Boundary::None => Some(true),
            _ => after.get(i).map(|&b| boundary.accepts(b)),
        };
        decided.or(at_eof.then_some(false))
    }

    /// How many bytes after the end marker `reading` has read.
    pub(super) fn read(&self, reading: Reopening) -> usize {
        match reading {
            Reopening::Tail(tail) => tail.matched(),
            Reopening::Boundary => self.tail.len(),
        }
    }
}

/// How much of the start marker's rest after an end marker is read (see
/// [`Reopen`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reopening {
    Tail(Partial),
    /// All of it: its boundary comes next.
    Boundary,
}

impl Default for Reopening {
    fn default() -> Self {
        Reopening::Tail(Partial::default())
    }
}

impl JsonCall {
    /// A markdown fence around the JSON is part of the call: reported.
    pub(super) fn report_fence<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
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
    pub(super) fn report_extra_closer<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
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
    pub(super) fn missing_end_marker<'c, S: Sink<'c>>(
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

    /// After the call object (or the array): the next object, a separator,
    /// a fence's close, an extra closer, or the end marker.
    pub(super) fn trailing<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let ws = skip_ws(&bytes[cur.at..]);
        if self.rules.lines_separate && !self.object.line_broke {
            self.object.line_broke =
                crate::scan::find_byte(b'\n', &bytes[cur.at..cur.at + ws]).is_some();
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
            // Without an end marker, the call ends with its JSON: prose
            // after it, on its line too, is text (`{…} I used it.`, as
            // vLLM's and SGLang's Llama parsers read it).
            Some(_) if self.end.is_empty() => return Some(self.conclude(cx, None)),
            Some(_) => self.phase = Phase::End(Partial::default()),
        }
        None
    }

    /// [`trailing`](Self::trailing) on the steady path: whitespace after
    /// the call object, then (maybe) the start of the end marker, not all
    /// of it. `No` for anything else.
    #[inline(never)]
    pub(super) fn steady_trail<'c>(&mut self, bytes: &'c [u8]) -> Steady<'c> {
        let ws = skip_ws(bytes);
        let rest = &bytes[ws..];
        let mut marker = Partial::default();
        // What `trailing` reads as something other than the end marker.
        let other = |b: &u8| matches!(b, b'{' | b'[' | b',' | b';' | b'`' | b'}' | b']');
        let ends = !self.end.is_empty() && !rest.first().is_some_and(other);
        let marker_goes_on = ends && marker.continues_without_end(&self.end, rest);
        if !(rest.is_empty() || marker_goes_on) {
            return Steady::No;
        }
        if self.rules.lines_separate && !self.object.line_broke {
            self.object.line_broke = crate::scan::find_byte(b'\n', &bytes[..ws]).is_some();
        }
        self.object.trail += bytes.len();
        if !rest.is_empty() {
            marker.take(rest.len());
            self.phase = Phase::End(marker);
        }
        Steady::Quiet
    }

    /// [`closing_token`](Self::closing_token) on the steady path: more
    /// of the token, not yet all of it. `No` for anything else.
    #[inline(never)]
    pub(super) fn steady_closer<'c>(&mut self, bytes: &'c [u8]) -> Steady<'c> {
        let Phase::Closer(closer) = &mut self.phase else {
            return Steady::No;
        };
        if !closer.goes_on_without_end(self.rules.closers, bytes) {
            return Steady::No;
        }
        self.object.trail += bytes.len();
        Steady::Quiet
    }

    /// A closing token after the JSON.
    pub(super) fn closing_token<'c, S: Sink<'c>>(
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

    /// A markdown fence opening before the JSON: its backticks.
    pub(super) fn fence_open<'c, S: Sink<'c>>(
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
    pub(super) fn fence_word(&mut self, bytes: &[u8], cur: &mut Cursor) -> Option<Outcome> {
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
    pub(super) fn fence_close<'c, S: Sink<'c>>(
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
    pub(super) fn matching_end<'c, S: Sink<'c>>(
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
                self.phase = Phase::Reopen(Reopening::default());
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

    /// After an end marker that also begins the start marker: `reading`
    /// says how much of the start marker's rest came so far.
    pub(super) fn after_end_marker<'c, S: Sink<'c>>(
        &mut self,
        mut reading: Reopening,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let read = self.rules.reopen.read(reading);
        match self
            .rules
            .reopen
            .follows(&mut reading, &bytes[cur.at..], false)
        {
            // All of it may still be the start marker.
            None => {
                self.object.trail += bytes.len() - cur.at;
                self.phase = Phase::Reopen(reading);
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
                self.object.trail = read;
                Some(self.conclude(cx, None))
            }
        }
    }
}
