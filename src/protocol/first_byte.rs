//! A block read by one of two automata, picked by its first byte after
//! the start marker and whitespace: Mistral's `[TOOL_CALLS]` holds a JSON
//! list (before v11) or `NAME[ARGS]{…}` (v11 on); a Hermes `<tool_call>`
//! block holds JSON or, from Qwen3-Coder served as Hermes, an XML call.
//! Neither automaton knows the other.

use super::{Automaton, CallAutomaton, Failure, Outcome, Steady};
use crate::cx::CallCx;
use crate::event::DiagnosticKind;
use crate::scan::is_ws;

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

#[derive(Debug, Clone)]
pub(crate) struct FirstByte {
    first: Automaton,
    second: Automaton,
    /// The bytes that pick `second`.
    picks_second: fn(u8) -> bool,
    lead: Lead,
    side: Side,
    marker: usize,
}

impl FirstByte {
    pub(crate) fn new(
        first: Automaton,
        second: Automaton,
        picks_second: fn(u8) -> bool,
        lead: Lead,
    ) -> FirstByte {
        FirstByte {
            first,
            second,
            picks_second,
            lead,
            side: Side::Undecided,
            marker: 0,
        }
    }

    /// The automaton that reads blocks its first byte does not send to
    /// the second.
    pub(crate) fn first(&self) -> &Automaton {
        &self.first
    }

    /// The automaton of the side picked (`first` while undecided).
    fn picked(&mut self) -> &mut Automaton {
        match self.side {
            Side::Second => &mut self.second,
            _ => &mut self.first,
        }
    }

    /// Picks a side at `bytes[from]`, a byte that is not whitespace, and
    /// begins it.
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

impl CallAutomaton for FirstByte {
    fn begin(&mut self, marker: usize) {
        self.side = Side::Undecided;
        self.marker = marker;
        if self.lead == Lead::First {
            self.first.begin(marker);
        }
    }

    #[inline]
    fn steady<'c>(
        &mut self,
        bytes: &'c [u8],
        offset: u64,
        started: bool,
        carried: bool,
    ) -> Steady<'c> {
        match self.side {
            Side::Undecided => Steady::No,
            Side::First => self.first.steady(bytes, offset, started, carried),
            // The second side is given no code point carried from bytes
            // the first read.
            Side::Second if carried && self.lead == Lead::First => Steady::No,
            Side::Second => self.second.steady(bytes, offset, started, carried),
        }
    }

    fn reject_invalid_utf8(&mut self, at: u64) {
        if self.side != Side::Undecided {
            self.picked().reject_invalid_utf8(at);
        }
    }

    fn advance<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        if self.side != Side::Undecided {
            return self.picked().advance(bytes, cx);
        }
        let ws = bytes.iter().take_while(|&&b| is_ws(b)).count();
        let Some(&b) = bytes.get(ws) else {
            return match self.lead {
                Lead::First => self.first.advance(bytes, cx),
                Lead::Skipped(_) => (bytes.len(), Outcome::More),
            };
        };
        self.decide(b);
        let from = match self.lead {
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

    fn finish<'c, S: FnMut(crate::Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        match (self.side, self.lead) {
            (Side::Undecided, Lead::Skipped(message)) => Outcome::failed(Failure::new(
                DiagnosticKind::UnfinishedCall,
                cx.offset(0),
                message,
            )),
            _ => self.picked().finish(cx),
        }
    }
}
