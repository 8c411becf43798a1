//! One automaton per wire format. Each sees only the bytes of a call (the
//! engine finds the start markers) and reports through [`CallCx`] what it
//! recognised; the engine turns that into events.

pub(crate) mod json_call;
pub(crate) mod morph_xml;
pub(crate) mod token_call;
pub(crate) mod xml;
pub(crate) mod xml_call;

use crate::engine::CallCx;
use crate::error::DiagnosticKind;

/// Where the next piece of a slice ends, from `from` in a slice `len` long,
/// for an automaton that copies the slice into a buffer `buffered` long to
/// read it. Pieces at least double the buffer: an attempt that ends early
/// in a long slice (as failed ones do in a one-shot parse, and the bytes
/// after them are read again) then copies a bounded multiple of what it
/// read, not the rest of the slice, and the whole stream stays linear.
#[inline]
pub(crate) fn piece_end(buffered: usize, from: usize, len: usize) -> usize {
    from + (len - from).min(buffered.max(MIN_PIECE))
}

/// The smallest piece of a slice copied at once (see [`piece_end`]).
pub(crate) const MIN_PIECE: usize = 512;

/// How a call attempt went, after [`Automaton::advance`] or
/// [`Automaton::finish`].
#[derive(Debug)]
pub(crate) enum Outcome {
    /// All bytes consumed, the call goes on.
    More,
    /// The call is complete and delivered. Its raw text ends `give_back`
    /// bytes before the consumed position: those bytes (whitespace, a
    /// partial end marker that turned out to be something else) are scanned
    /// again as text.
    Complete { give_back: usize },
    /// The call cannot be delivered. Its raw text ends at the consumed
    /// position; scanning resumes there.
    Failed(Box<Failure>),
}

impl Outcome {
    /// A failed attempt (boxed: the outcome of every chunk is returned by
    /// value, and failures are rare).
    pub(crate) fn failed(failure: Failure) -> Outcome {
        Outcome::Failed(Box::new(failure))
    }

    /// The same outcome, with `more` consumed bytes at the end given back.
    pub(crate) fn giving_back(self, more: usize) -> Outcome {
        match self {
            Outcome::More => Outcome::More,
            Outcome::Complete { give_back } => Outcome::Complete {
                give_back: give_back.saturating_add(more),
            },
            Outcome::Failed(mut f) => {
                f.give_back = f.give_back.saturating_add(more);
                Outcome::Failed(f)
            }
        }
    }
}

/// Why a call attempt failed.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub(crate) kind: DiagnosticKind,
    /// Stream offset where the problem was found.
    pub(crate) offset: u64,
    pub(crate) message: String,
    /// The tool name, when one was read.
    pub(crate) name: Option<String>,
    /// Consumed bytes at the end that are not part of the call (see
    /// [`Outcome::Complete`]).
    pub(crate) give_back: usize,
}

impl Failure {
    pub(crate) fn new(kind: DiagnosticKind, offset: u64, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            offset,
            message: message.into(),
            name: None,
            give_back: 0,
        }
    }

    pub(crate) fn with_name(mut self, name: &str) -> Failure {
        self.name = Some(name.to_owned());
        self
    }
}

/// What [`Automaton::steady`] made of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Steady<'c> {
    /// Not a steady chunk: run the automaton on it.
    No,
    /// Consumed; nothing to emit.
    Quiet,
    /// Consumed; the chunk is the next argument delta, as it stands.
    Delta(&'c str),
    /// Consumed; the chunk is the next argument delta as it stands, once
    /// decoded after the start of a code point the engine may carry from
    /// the chunk before. If it is not UTF-8 the engine says so
    /// ([`Automaton::reject_invalid_utf8`]).
    Verbatim,
    /// Consumed; the chunk is the next part of a JSON string value: the
    /// delta is it JSON-escaped.
    Escaped(&'c str),
}

/// The per-format automata, dispatched by `match` (no vtable on the hot path).
#[derive(Debug, Clone)]
pub(crate) enum Automaton {
    Json(json_call::JsonCall),
    Xml(xml_call::XmlCall),
    Morph(morph_xml::MorphXml),
    Token(token_call::TokenCall),
}

impl Automaton {
    /// A call begins: the start marker `marker` was just consumed.
    pub(crate) fn begin(&mut self, marker: usize) {
        match self {
            Automaton::Json(a) => a.begin(marker),
            Automaton::Xml(a) => a.begin(marker),
            Automaton::Morph(a) => a.begin(marker),
            Automaton::Token(a) => a.begin(marker),
        }
    }

    /// The common token-sized chunk in the middle of a call: if all of
    /// `bytes` (at stream offset `offset`) leaves the automaton with no
    /// event to emit but at most one delta of exactly those bytes, consumes
    /// them and says which ([`Steady`]), skipping the automaton's machinery.
    /// `started` is whether the call's `tool-input-start` was emitted. On
    /// [`Steady::No`] the engine must hand the same `bytes` to
    /// [`advance`](Self::advance) at once (an automaton may have scanned
    /// them already and keep the result). `carried` is whether earlier
    /// argument bytes ended inside a code point.
    #[inline]
    pub(crate) fn steady<'c>(
        &mut self,
        bytes: &'c [u8],
        offset: u64,
        started: bool,
        carried: bool,
    ) -> Steady<'c> {
        match self {
            Automaton::Json(a) => a.steady(bytes, offset, started, carried),
            // Their deltas are built: nothing is carried between steady ones.
            Automaton::Xml(a) if !carried => a.steady(bytes, offset, started),
            Automaton::Token(a) => a.steady(bytes, offset, started),
            Automaton::Xml(_) | Automaton::Morph(_) => Steady::No,
        }
    }

    /// The bytes of a [`Steady::Verbatim`] answer were not UTF-8: the call
    /// fails, at stream offset `at`, where the automaton reports failures.
    pub(crate) fn reject_invalid_utf8(&mut self, at: u64) {
        match self {
            Automaton::Json(a) => a.reject_invalid_utf8(at),
            Automaton::Xml(a) => a.reject_invalid_utf8(at),
            Automaton::Token(a) => a.reject_invalid_utf8(at),
            // Never answers `Verbatim`.
            Automaton::Morph(_) => {}
        }
    }

    /// Consumes bytes of the call in progress.
    ///
    /// # Complexity
    ///
    /// O(`bytes.len()`): no byte is scanned twice, whatever the chunking.
    #[inline]
    pub(crate) fn advance<'c, S>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome)
    where
        S: FnMut(crate::Event<'c>),
    {
        match self {
            Automaton::Json(a) => a.advance(bytes, cx),
            Automaton::Xml(a) => a.advance(bytes, cx),
            Automaton::Morph(a) => a.advance(bytes, cx),
            Automaton::Token(a) => a.advance(bytes, cx),
        }
    }

    /// The stream ended inside the call.
    pub(crate) fn finish<'c, S>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome
    where
        S: FnMut(crate::Event<'c>),
    {
        match self {
            Automaton::Json(a) => a.finish(cx),
            Automaton::Xml(a) => a.finish(cx),
            Automaton::Morph(a) => a.finish(cx),
            Automaton::Token(a) => a.finish(cx),
        }
    }
}
