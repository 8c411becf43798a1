//! A format's automaton plus markup tokens: start markers in a range of
//! indices are markup of their own ([`Event::Markup`](crate::Event::Markup)),
//! not calls (Command's `<|START_RESPONSE|>` around its answer).

use super::{Automaton, CallAutomaton, InCall, Outcome, Steady};
use crate::cx::{CallCx, Sink};

#[derive(Debug, Clone)]
pub(crate) struct WithMarkup {
    inner: Automaton,
    /// The indices of the markup markers.
    markup_markers: std::ops::Range<usize>,
    /// Whether the marker just read is markup.
    markup: bool,
}

impl WithMarkup {
    /// The automaton that reads the calls.
    pub(crate) fn inner(&self) -> &Automaton {
        &self.inner
    }

    pub(crate) fn new(inner: Automaton, markup_markers: std::ops::Range<usize>) -> WithMarkup {
        WithMarkup {
            inner,
            markup_markers,
            markup: false,
        }
    }
}

impl CallAutomaton for WithMarkup {
    fn begin(&mut self, marker: usize) {
        self.markup = self.markup_markers.contains(&marker);
        if !self.markup {
            self.inner.begin(marker);
        }
    }

    #[inline]
    fn steady<'c>(&mut self, bytes: &'c [u8], offset: u64, call: InCall) -> Steady<'c> {
        if self.markup {
            return Steady::No;
        }
        self.inner.steady(bytes, offset, call)
    }

    fn reject_invalid_utf8(&mut self, at: u64) {
        self.inner.reject_invalid_utf8(at);
    }

    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        if self.markup {
            return (0, Outcome::Markup { give_back: 0 });
        }
        self.inner.advance(bytes, cx)
    }

    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        if self.markup {
            return Outcome::Markup { give_back: 0 };
        }
        self.inner.finish(cx)
    }
}
