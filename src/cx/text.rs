//! Where text goes: the text and reasoning parts of a stream, with the
//! UTF-8 carry across chunks and runs of invalid bytes.

use crate::cx::Sink;
use crate::event::{Delta, Diagnostic, DiagnosticKind, Event, ReasoningId, TextId};
use crate::scan::utf8::{Utf8Carry, Utf8Piece, SHORT_JOIN};

/// Where text goes: text parts, or reasoning parts while the stream is
/// inside reasoning (see [`Reasoning`](crate::Reasoning)).
#[derive(Debug, Clone, Default)]
pub(crate) struct TextOut {
    /// The number of the open part (of the kind `reasoning` says).
    pub(crate) open: Option<u32>,
    pub(crate) next: u32,
    pub(crate) next_reasoning: u32,
    /// Whether the stream is inside reasoning.
    pub(crate) reasoning: bool,
    pub(crate) carry: Utf8Carry,
    /// Invalid UTF-8 that starts before this stream offset continues the
    /// last reported run: it is replaced without a diagnostic of its own.
    pub(crate) quiet_until: u64,
}

/// Invalid sequences closer than this many bytes to the last one are
/// one run: one diagnostic, one text delta per chunk, so the events of
/// random bytes stay within a constant factor of the input. By stream
/// offset, so the same at every chunking.
pub(crate) const INVALID_RUN_GAP: u64 = 64;

impl TextOut {
    #[inline]
    pub(crate) fn delta<'c>(&mut self, delta: Delta<'c>, sink: &mut impl Sink<'c>) {
        let n = match self.open {
            Some(n) => n,
            None => self.open(sink),
        };
        if self.reasoning {
            sink(Event::ReasoningDelta {
                id: ReasoningId(n),
                delta,
            });
        } else {
            sink(Event::TextDelta {
                id: TextId(n),
                delta,
            });
        }
    }

    /// Opens a part of the current kind.
    #[cold]
    pub(crate) fn open<'c>(&mut self, sink: &mut impl Sink<'c>) -> u32 {
        let n = if self.reasoning {
            let n = self.next_reasoning;
            self.next_reasoning += 1;
            sink(Event::ReasoningStart { id: ReasoningId(n) });
            n
        } else {
            let n = self.next;
            self.next += 1;
            sink(Event::TextStart { id: TextId(n) });
            n
        };
        self.open = Some(n);
        n
    }

    #[inline]
    pub(crate) fn piece<'c>(&mut self, piece: Utf8Piece<'c>, sink: &mut impl Sink<'c>) {
        let mut run = None;
        self.merged_piece(piece, &mut run, sink);
        self.flush_run(run, sink);
    }

    /// As [`TextOut::piece`], but text after an invalid sequence that
    /// continues a run is collected in `run` (one delta instead of one per
    /// sequence) until the next diagnostic or [`TextOut::flush_run`].
    fn merged_piece<'c>(
        &mut self,
        piece: Utf8Piece<'c>,
        run: &mut Option<String>,
        sink: &mut impl Sink<'c>,
    ) {
        match piece {
            Utf8Piece::Text(t) => match run {
                Some(run) => run.push_str(&t),
                None => self.delta(t, sink),
            },
            Utf8Piece::Invalid(offset) => {
                let reported = offset >= self.quiet_until;
                self.quiet_until = offset.saturating_add(INVALID_RUN_GAP);
                if reported {
                    let before = run.take();
                    self.flush_run(before, sink);
                    self.delta(Delta::borrowed("\u{FFFD}"), sink);
                    sink(invalid_utf8(offset));
                } else {
                    run.get_or_insert_with(String::new).push('\u{FFFD}');
                }
            }
        }
    }

    fn flush_run<'c>(&mut self, run: Option<String>, sink: &mut impl Sink<'c>) {
        if let Some(run) = run.filter(|r| !r.is_empty()) {
            self.delta(Delta::from(run), sink);
        }
    }

    /// Text borrowed from the current chunk.
    #[inline]
    pub(crate) fn push<'c>(&mut self, bytes: &'c [u8], base: u64, sink: &mut impl Sink<'c>) {
        if bytes.is_empty() {
            return;
        }
        if bytes.len() <= SHORT_JOIN {
            // ASCII with nothing carried (prose before a held `<`): as it
            // is, without the decoding pass.
            if let Some(text) = crate::scan::utf8::ascii_token(bytes) {
                if self.carry.is_empty() {
                    return self.delta(Delta::borrowed(text), sink);
                }
            }
            // A token: one pass over it and the carried bytes, one delta.
            let end = base + bytes.len() as u64;
            if let Ok(delta) = self.carry.continue_short(bytes, end) {
                if let Some(delta) = delta {
                    self.delta(delta, sink);
                }
                return;
            }
        } else if self.carry.is_empty() {
            // The common case: whole code points, valid, borrowed as they are.
            if let Ok(text) = crate::scan::utf8::validate(bytes) {
                return self.delta(Delta::borrowed(text), sink);
            }
        }
        self.push_split(bytes, base, sink);
    }

    /// [`TextOut::push`] of bytes that begin or end inside a code point, or
    /// hold an invalid sequence.
    #[inline(never)]
    fn push_split<'c>(&mut self, bytes: &'c [u8], base: u64, sink: &mut impl Sink<'c>) {
        // Valid bytes around a chunk boundary: the completed code point
        // inline, the whole ones after it borrowed, the cut one carried.
        if let Some(next) = self.carry.continue_with(bytes) {
            self.carry = next.carry(base + bytes.len() as u64);
            let text = next.text();
            match next.completed() {
                None if text.is_empty() => {}
                None => self.delta(Delta::borrowed(text), sink),
                Some(c) if text.is_empty() => self.delta(Delta::from(c), sink),
                Some(c) => match Delta::char_then(c, text) {
                    Some(joined) => self.delta(joined, sink),
                    None => {
                        self.delta(Delta::from(c), sink);
                        self.delta(Delta::borrowed(text), sink);
                    }
                },
            }
            return;
        }
        self.push_invalid(bytes, base, sink);
    }

    /// [`TextOut::push`] of bytes that hold an invalid sequence.
    #[cold]
    fn push_invalid<'c>(&mut self, bytes: &'c [u8], base: u64, sink: &mut impl Sink<'c>) {
        let mut carry = self.carry;
        let mut run = None;
        carry.push_split(bytes, base, &mut |p| self.merged_piece(p, &mut run, sink));
        self.flush_run(run, sink);
        self.carry = carry;
    }

    /// Text from bytes the parser held (copied into the events).
    pub(crate) fn push_owned<'c>(&mut self, bytes: &[u8], base: u64, sink: &mut impl Sink<'c>) {
        if bytes.is_empty() {
            return;
        }
        let mut carry = self.carry;
        let mut run = None;
        carry.push(bytes, base, &mut |p| {
            let p = match p {
                Utf8Piece::Text(t) => Utf8Piece::Text(t.into_static()),
                Utf8Piece::Invalid(o) => Utf8Piece::Invalid(o),
            };
            self.merged_piece(p, &mut run, sink)
        });
        self.flush_run(run, sink);
        self.carry = carry;
    }

    /// An incomplete code point cannot continue past a call or the end.
    pub(crate) fn flush_carry<'c>(&mut self, sink: &mut impl Sink<'c>) {
        if let Some(offset) = self.carry.finish() {
            self.piece(Utf8Piece::Invalid(offset), sink);
        }
    }

    pub(crate) fn close<'c>(&mut self, sink: &mut impl Sink<'c>) {
        if let Some(n) = self.open.take() {
            sink(if self.reasoning {
                Event::ReasoningEnd { id: ReasoningId(n) }
            } else {
                Event::TextEnd { id: TextId(n) }
            });
        }
    }

    /// A call begins: it ends the text part, but not a reasoning part (a
    /// call made inside reasoning stands within it).
    pub(crate) fn close_for_call<'c>(&mut self, sink: &mut impl Sink<'c>) {
        if !self.reasoning {
            self.close(sink);
        }
    }
}

fn invalid_utf8(offset: u64) -> Event<'static> {
    Event::Diagnostic(Diagnostic::new(
        DiagnosticKind::InvalidUtf8,
        offset,
        format!(
            "invalid UTF-8 in text, replaced by U+FFFD (as is any within the next {INVALID_RUN_GAP} bytes)"
        ),
    ))
}
