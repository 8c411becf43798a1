//! One automaton per wire format. Each sees only the bytes of a call (the
//! engine finds the start markers) and reports through [`CallCx`] what it
//! recognised; the engine turns that into events.

pub(crate) mod first_byte;
pub(crate) mod json_call;
pub(crate) mod literal_call;
pub(crate) mod markup;
pub(crate) mod morph_xml;
pub(crate) mod token_call;
pub(crate) mod xml;
pub(crate) mod xml_call;

pub(crate) use crate::cx::Failure;
use crate::cx::{CallCx, Sink};
use crate::event::DiagnosticKind;
use crate::scan::json::Repair;
use first_byte::{FirstByte, Picked};

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
    /// What was read, less the last `give_back` bytes, is the format's
    /// markup ([`Event::Markup`](crate::Event::Markup)): neither text nor a
    /// call, and no diagnostic.
    Markup { give_back: usize },
    /// Nothing read makes it a call: all `read` bytes go back to be
    /// scanned as text, without a diagnostic.
    NotACall { read: usize },
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

    /// A failed attempt whose bytes are not a call of the format, found at
    /// stream offset `at`.
    pub(crate) fn malformed(at: u64, message: impl Into<String>) -> Outcome {
        Outcome::failed(Failure::malformed(at, message))
    }

    /// How many consumed bytes at the end the outcome gives back (none
    /// while the call goes on).
    pub(crate) fn given_back_mut(&mut self) -> Option<&mut usize> {
        match self {
            Outcome::More => None,
            Outcome::Complete { give_back } | Outcome::Markup { give_back, .. } => Some(give_back),
            Outcome::NotACall { read, .. } => Some(read),
            Outcome::Failed(f) => Some(&mut f.give_back),
        }
    }

    /// The same outcome, with `more` consumed bytes at the end given back.
    pub(crate) fn giving_back(mut self, more: usize) -> Outcome {
        if let Some(give_back) = self.given_back_mut() {
            *give_back = give_back.saturating_add(more);
        }
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
    /// ([`Automaton::reject_invalid_utf8`]). `in_string`: the chunk ended
    /// inside a JSON string, outside any escape, so that the next chunk of
    /// plain string bytes only continues it (see
    /// [`string_part`](crate::scan::json::string_part)).
    Verbatim { in_string: bool },
    /// Consumed; the chunk is the next part of a JSON string value: the
    /// delta is it JSON-escaped.
    Escaped(&'c str),
    /// Consumed; a chunk of a string value that begins or ends inside a
    /// character: the character it completes (a built delta), then its
    /// whole characters, as they stand or JSON-escaped.
    Cut(crate::scan::xml::CutText<'c>),
    /// Consumed; a string value's line break held back from before the
    /// chunk (it might have been the one stripped before the close) is
    /// part of the value: it is the next delta, and the chunk's text the
    /// one after it.
    AfterLineBreak(crate::scan::xml::AfterBreak<'c>),
    /// Consumed; a comma held back from before the chunk (`comma`, at
    /// stream offset `at`) was not a trailing one: it is the next delta,
    /// and the chunk, `text` as it stands, the one after it.
    AfterComma {
        comma: &'static str,
        at: u64,
        text: &'c str,
    },
}

/// The call in progress, as a steady chunk finds it
/// ([`CallAutomaton::steady`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct InCall {
    /// The call's `tool-input-start` was emitted.
    pub(crate) started: bool,
    /// Earlier argument bytes ended inside a code point.
    pub(crate) carried: bool,
}

/// What every call automaton does. The engine finds a start marker and
/// calls [`begin`](Self::begin); from then on it hands the automaton the
/// call's bytes ([`advance`](Self::advance), or [`steady`](Self::steady)
/// first for a token-sized chunk) until the automaton says the call is
/// complete or failed ([`Outcome`]), or the stream ends
/// ([`finish`](Self::finish)). Automata never see text outside calls and
/// report only through [`CallCx`].
pub(crate) trait CallAutomaton {
    /// A call begins: the start marker `marker` (an index into the
    /// format's markers) was just consumed.
    fn begin(&mut self, marker: usize);

    /// The common token-sized chunk in the middle of a call: if all of
    /// `bytes` (at stream offset `offset`) leaves the automaton with no
    /// event to emit but at most one delta of exactly those bytes,
    /// consumes them and says which ([`Steady`]), skipping the automaton's
    /// machinery. On [`Steady::No`] the engine hands the same `bytes` to
    /// [`advance`](Self::advance) at once (an automaton may have scanned
    /// them already and keep the result).
    fn steady<'c>(&mut self, _bytes: &'c [u8], _offset: u64, _call: InCall) -> Steady<'c> {
        Steady::No
    }

    /// The bytes of a [`Steady::Verbatim`] answer were not UTF-8: the call
    /// fails, at stream offset `at`, where the automaton reports failures.
    fn reject_invalid_utf8(&mut self, _at: u64) {}

    /// Consumes bytes of the call in progress; returns how many, and how
    /// the call goes on.
    ///
    /// # Complexity
    ///
    /// O(`bytes.len()`): no byte is scanned twice, whatever the chunking.
    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome);

    /// The stream ended inside the call.
    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome;
}

/// The per-format automata, dispatched by `match` (no vtable on the hot
/// path).
#[derive(Debug, Clone)]
pub(crate) enum Automaton {
    Json(json_call::JsonCall),
    Morph(morph_xml::MorphXml),
    Token(token_call::TokenCall),
    /// An XML format's blocks, or JSON ones.
    XmlOrJson(FirstByte<xml_call::XmlCall, json_call::JsonCall>),
    /// Hermes's JSON blocks, or Qwen3-Coder's XML ones.
    JsonOrXml(FirstByte<json_call::JsonCall, xml_call::XmlCall>),
    /// Mistral's `NAME[ARGS]` calls (v11 on), or its JSON lists.
    TokenOrJson(Box<FirstByte<token_call::TokenCall, json_call::JsonCall>>),
    WithMarkup(Box<markup::WithMarkup>),
    Literal(literal_call::LiteralCall),
}

/// Reports `repair` at stream offset `offset`, unless the call reported a
/// repair of its kind already (`repaired`: the kinds it did, by
/// [`Repair::kind_bit`]).
pub(crate) fn report_repair<'c, S: Sink<'c>>(
    repaired: &mut u8,
    repair: Repair,
    offset: u64,
    cx: &mut CallCx<'_, 'c, S>,
) {
    if *repaired & repair.kind_bit() == 0 {
        *repaired |= repair.kind_bit();
        cx.recovered(
            DiagnosticKind::RepairedJson,
            offset,
            repair.message().into(),
        );
    }
}

/// The automaton that reads the call in progress, where it has a steady
/// path of its own (see [`Automaton::reading`]).
enum Reading<'a> {
    Json(&'a mut json_call::JsonCall),
    Xml(&'a mut xml_call::XmlCall),
    Other,
}

/// `$body` with `$a` bound to the automaton inside `$self`.
macro_rules! dispatch {
    ($self:expr, $a:ident => $body:expr) => {
        match $self {
            Automaton::Json($a) => $body,
            Automaton::Morph($a) => $body,
            Automaton::Token($a) => $body,
            Automaton::XmlOrJson($a) => $body,
            Automaton::JsonOrXml($a) => $body,
            Automaton::TokenOrJson($a) => $body,
            Automaton::WithMarkup($a) => $body,
            Automaton::Literal($a) => $body,
        }
    };
}

impl Automaton {
    /// A JSON call object `{"name", "arguments"}` with no marker around
    /// it (the forced `tool_choice` answer).
    #[cfg_attr(not(feature = "middleware"), allow(dead_code))]
    pub(crate) fn bare_json(max_depth: usize) -> Automaton {
        Automaton::Json(json_call::JsonCall::new(b"", max_depth))
    }

    /// The automaton that reads a call written at the start of the output
    /// without its marker (see
    /// [`ParserBuilder::bare_call_at_start`](crate::ParserBuilder::bare_call_at_start)),
    /// if the format has such calls.
    pub(crate) fn bare_lead(&self, max_depth: usize) -> Option<Automaton> {
        match self {
            Automaton::Json(json) => Some(Automaton::Json(json.bare_lead(max_depth))),
            Automaton::Literal(code) => Some(Automaton::Literal(code.bare_lead())),
            Automaton::Token(token) => token.bare_lead().map(Automaton::Token),
            Automaton::WithMarkup(marked) => marked.inner().bare_lead(max_depth),
            Automaton::JsonOrXml(either) => {
                Some(Automaton::Json(either.first().bare_lead(max_depth)))
            }
            Automaton::TokenOrJson(either) => {
                Some(Automaton::Json(either.second().bare_lead(max_depth)))
            }
            _ => None,
        }
    }

    /// Whether the stream's first byte `b` (after whitespace, unless
    /// [`Automaton::lead_keeps_whitespace`]) opens a bare call.
    pub(crate) fn opens_lead(&self, b: u8) -> bool {
        match self {
            Automaton::Token(_) => b == b' ' || b == b't',
            _ => b == b'{' || b == b'[',
        }
    }

    /// The JSON or XML automaton reading the call in progress, alone or as
    /// a side of a composed one (`carried`: see [`FirstByte::picked`]). A
    /// composed automaton's first side is named unless the second reads:
    /// before a side is picked it waits for its first byte, and answers a
    /// steady chunk with `No` (see [`FirstByte::first_unless_second`]).
    #[inline]
    fn reading(&mut self, carried: bool) -> Reading<'_> {
        match self {
            Automaton::Json(json) => Reading::Json(json),
            Automaton::XmlOrJson(either) => match either.first_unless_second(carried) {
                Ok(xml) => Reading::Xml(xml),
                Err(Some(json)) => Reading::Json(json),
                Err(None) => Reading::Other,
            },
            Automaton::JsonOrXml(either) => match either.first_unless_second(carried) {
                Ok(json) => Reading::Json(json),
                Err(Some(xml)) => Reading::Xml(xml),
                Err(None) => Reading::Other,
            },
            Automaton::TokenOrJson(either) => match either.picked(carried) {
                Picked::Second(json) => Reading::Json(json),
                _ => Reading::Other,
            },
            _ => Reading::Other,
        }
    }

    /// Whether whitespace at the start belongs to a bare call (gpt-oss's
    /// header, ` to=functions.NAME`, goes on from the prompt).
    pub(crate) fn lead_keeps_whitespace(&self) -> bool {
        matches!(self, Automaton::Token(_))
    }
}

impl CallAutomaton for Automaton {
    #[inline]
    fn begin(&mut self, marker: usize) {
        dispatch!(self, a => a.begin(marker))
    }

    /// Sends the chunk to the JSON or XML automaton reading the call, alone
    /// or as a side of a composed one: each has one call site here, where
    /// its steady path is inlined.
    #[inline]
    fn steady<'c>(&mut self, bytes: &'c [u8], offset: u64, call: InCall) -> Steady<'c> {
        match self.reading(call.carried) {
            Reading::Json(json) => return json.steady(bytes, offset, call),
            Reading::Xml(xml) => return xml.steady(bytes, offset, call),
            Reading::Other => {}
        }
        match self {
            Automaton::Morph(a) => a.steady(bytes, offset, call),
            Automaton::Token(a) => a.steady(bytes, offset, call),
            Automaton::WithMarkup(a) => a.steady(bytes, offset, call),
            Automaton::Literal(a) => a.steady(bytes, offset, call),
            Automaton::TokenOrJson(either) => match either.picked(call.carried) {
                Picked::First(token) => token.steady(bytes, offset, call),
                _ => Steady::No,
            },
            // A composed automaton before its side is picked, or whose
            // second side may not take the chunk: it is run.
            _ => Steady::No,
        }
    }

    fn reject_invalid_utf8(&mut self, at: u64) {
        dispatch!(self, a => a.reject_invalid_utf8(at))
    }

    #[inline]
    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        // The XML automaton's `advance` has this one call site on the
        // hot path too, where it is inlined.
        let xml = match self {
            Automaton::XmlOrJson(either) => either.picked(false).first(),
            Automaton::JsonOrXml(either) => either.picked(false).second(),
            _ => None,
        };
        if let Some(xml) = xml {
            return xml.advance(bytes, cx);
        }
        dispatch!(self, a => a.advance(bytes, cx))
    }

    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        dispatch!(self, a => a.finish(cx))
    }
}
