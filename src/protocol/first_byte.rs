//! A block read by one of two automata, picked by its first byte after
//! the start marker and whitespace: Mistral's `[TOOL_CALLS]` holds a JSON
//! list (before v11) or `NAME[ARGS]{…}` (v11 on); a Hermes `<tool_call>`
//! block holds JSON or, from Qwen3-Coder served as Hermes, an XML call; an
//! XML format's block holds XML calls or, from a model prompted with the
//! hermes layout, JSON. Neither automaton knows the other.

use super::{CallAutomaton, Failure, Outcome};
use crate::cx::{CallCx, Sink};
use crate::event::DiagnosticKind;
use crate::scan::skip_ws;

/// Which automaton reads the block in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// Only whitespace followed the marker.
    Undecided,
    First,
    Second,
}

/// What the whitespace before the deciding byte is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lead {
    /// Read by the first automaton, which is begun with the block: the
    /// second, if picked, gets the deciding byte's whole slice.
    First,
    /// Skipped here; the picked automaton is begun at the deciding byte.
    /// A stream that ends before it is an unfinished call (`message`).
    Skipped(&'static str),
}

/// Marker `marker`'s bit in [`FirstByte::first_only_after`]'s set: the
/// first 64 markers have one (no format composes more), the others none.
fn marker_bit(marker: usize) -> u64 {
    u32::try_from(marker)
        .ok()
        .and_then(|m| 1u64.checked_shl(m))
        .unwrap_or(0)
}

/// See [`FirstByte::picked`].
pub(crate) enum Picked<'a, A, B> {
    First(&'a mut A),
    Second(&'a mut B),
    Neither,
}

impl<'a, A, B> Picked<'a, A, B> {
    pub(crate) fn first(self) -> Option<&'a mut A> {
        match self {
            Picked::First(a) => Some(a),
            _ => None,
        }
    }

    pub(crate) fn second(self) -> Option<&'a mut B> {
        match self {
            Picked::Second(b) => Some(b),
            _ => None,
        }
    }
}

/// Two automata, one of which reads each block, picked by its first byte.
///
/// It has no steady path of its own (a steady chunk is always run):
/// [`Automaton`](super::Automaton) sends steady chunks to the side reading
/// the block, so that each automaton's steady path is inlined once, in one
/// place, whichever formats compose it.
#[derive(Debug, Clone)]
pub(crate) struct FirstByte<A, B> {
    first: A,
    second: B,
    /// The bytes that pick `second`.
    picks_second: fn(u8) -> bool,
    lead: Lead,
    /// The start markers (a bit each, by index) whose calls the first
    /// automaton reads whatever their first byte.
    first_only: u64,
    side: Side,
    marker: usize,
}

impl<A: CallAutomaton, B: CallAutomaton> FirstByte<A, B> {
    pub(crate) fn new(first: A, second: B, picks_second: fn(u8) -> bool, lead: Lead) -> Self {
        FirstByte {
            first,
            second,
            picks_second,
            lead,
            first_only: 0,
            side: Side::Undecided,
            marker: 0,
        }
    }

    /// The calls that `markers` open are the first automaton's whatever
    /// their first byte (a bare `<function=` holds no JSON block).
    pub(crate) fn first_only_after(mut self, markers: impl IntoIterator<Item = usize>) -> Self {
        for marker in markers {
            self.first_only |= marker_bit(marker);
        }
        self
    }

    /// The automaton that reads blocks its first byte does not send to
    /// the second.
    pub(crate) fn first(&self) -> &A {
        &self.first
    }

    /// The automaton that reads blocks whose first byte picks it.
    pub(crate) fn second(&self) -> &B {
        &self.second
    }

    /// The automaton reading the block in progress. The second is not
    /// given a chunk that continues a code point (`carried`) begun in bytes
    /// the first read.
    #[inline]
    pub(crate) fn picked(&mut self, carried: bool) -> Picked<'_, A, B> {
        match self.side {
            Side::First => Picked::First(&mut self.first),
            Side::Second if !(carried && self.lead == Lead::First) => {
                Picked::Second(&mut self.second)
            }
            _ => Picked::Neither,
        }
    }

    /// The first automaton unless the second reads the block (`Err`: the
    /// second, if it may take a chunk that continues a code point, see
    /// [`picked`](Self::picked)). With [`Lead::First`] the first is begun
    /// with each block and given the whitespace before the deciding byte:
    /// until then it waits for its first byte, as a steady chunk finds it.
    #[inline]
    pub(crate) fn first_unless_second(&mut self, carried: bool) -> Result<&mut A, Option<&mut B>> {
        debug_assert!(self.lead == Lead::First);
        match self.side {
            Side::Second => Err((!carried).then_some(&mut self.second)),
            _ => Ok(&mut self.first),
        }
    }

    /// Picks a side at `b`, the block's first byte that is not whitespace,
    /// and begins it.
    fn decide(&mut self, b: u8) {
        self.side = if (self.picks_second)(b) {
            self.second.begin(self.marker);
            Side::Second
        } else {
            if let Lead::Skipped(_) = self.lead {
                self.first.begin(self.marker);
            }
            Side::First
        };
    }
}

impl<A: CallAutomaton, B: CallAutomaton> CallAutomaton for FirstByte<A, B> {
    fn begin(&mut self, marker: usize) {
        self.side = Side::Undecided;
        self.marker = marker;
        if self.lead == Lead::First {
            self.first.begin(marker);
        }
        if self.first_only & marker_bit(marker) != 0 {
            self.side = Side::First;
            if let Lead::Skipped(_) = self.lead {
                self.first.begin(marker);
            }
        }
    }

    fn reject_invalid_utf8(&mut self, at: u64) {
        match self.side {
            Side::Undecided => {}
            Side::First => self.first.reject_invalid_utf8(at),
            Side::Second => self.second.reject_invalid_utf8(at),
        }
    }

    #[inline]
    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        match self.side {
            Side::First => self.first.advance(bytes, cx),
            Side::Second => self.second.advance(bytes, cx),
            Side::Undecided => self.decide_and_advance(bytes, cx),
        }
    }

    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        match (self.side, self.lead) {
            (Side::Undecided, Lead::Skipped(message)) => Outcome::failed(Failure::new(
                DiagnosticKind::UnfinishedCall,
                cx.offset(0),
                message,
            )),
            (Side::Second, _) => self.second.finish(cx),
            _ => self.first.finish(cx),
        }
    }
}

impl<A: CallAutomaton, B: CallAutomaton> FirstByte<A, B> {
    /// [`advance`](CallAutomaton::advance) before the block's side is
    /// picked: skips whitespace, then picks at the first other byte.
    #[inline(never)]
    fn decide_and_advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let ws = skip_ws(bytes);
        let Some(&b) = bytes.get(ws) else {
            return match self.lead {
                Lead::First => self.first.advance(bytes, cx),
                Lead::Skipped(_) => (bytes.len(), Outcome::More),
            };
        };
        self.decide(b);
        let from = match self.lead {
            // The first side read the whitespace: it goes on with the slice.
            Lead::First if self.side == Side::First => return self.first.advance(bytes, cx),
            Lead::First => 0,
            Lead::Skipped(_) => ws,
        };
        let rest = &bytes[from..];
        let (used, outcome) = match self.side {
            Side::Second => cx.with_rest_from(from, |cx| self.second.advance(rest, cx)),
            _ => cx.with_rest_from(from, |cx| self.first.advance(rest, cx)),
        };
        (from + used, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::marker_bit;

    #[test]
    fn markers_past_the_set_have_no_bit() {
        assert_eq!(marker_bit(0), 1);
        assert_eq!(marker_bit(63), 1 << 63);
        assert_eq!(marker_bit(64), 0);
        assert_eq!(marker_bit(usize::MAX), 0);
    }
}
