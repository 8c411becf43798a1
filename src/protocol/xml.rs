//! Pieces shared by the XML-element automata: the buffered call body
//! (tags in it are found by [`crate::scan::xml`]), and the arguments object
//! written as prefix-consistent JSON deltas.

use crate::coerce::{as_type, coerce_value, Untyped};
use crate::cx::{push_key_json, CallCx, Param, Sink};
use crate::event::DiagnosticKind;
use crate::protocol::{Failure, Outcome};
use crate::scan::json::{
    escape_json_into, escape_json_pieces, needs_json_escape, Escaped, ESCAPED_IN_PIECES,
};

/// The buffered bytes of a call after its start marker, as the XML-format
/// automata keep them: each byte is appended once and scanned from where the
/// last step stopped.
#[derive(Debug, Clone, Default)]
pub(crate) struct Body {
    bytes: Vec<u8>,
    /// Stream offset of `bytes[0]`.
    base: u64,
}

impl std::ops::Deref for Body {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Body {
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
    }

    /// Stream offset of `self[i]`.
    pub(crate) fn at(&self, i: usize) -> u64 {
        self.base + i as u64
    }

    /// Appends the slice that starts at stream offset `offset`; returns the
    /// length before.
    #[inline(always)]
    pub(crate) fn append(&mut self, bytes: &[u8], offset: u64) -> usize {
        self.anchor(offset);
        let before = self.bytes.len();
        crate::scan::append_bytes(&mut self.bytes, bytes);
        before
    }

    /// Appends the next piece of `slice`, from `from` (at stream offset
    /// `offset`); returns where the piece ends (see
    /// [`piece_end`](super::piece_end)).
    #[inline]
    pub(crate) fn append_piece(&mut self, slice: &[u8], from: usize, offset: u64) -> usize {
        let to = super::piece_end(self.bytes.len(), from, slice.len());
        self.append(&slice[from..to], offset);
        to
    }

    /// Sets where the body begins, if no byte has come yet.
    pub(crate) fn anchor(&mut self, offset: u64) {
        if self.bytes.is_empty() {
            self.base = offset;
        }
    }

    /// Turns the outcome of a step over the whole body into the engine's
    /// terms for the slice just appended (which began at `before`): the call
    /// ends where the outcome says; bytes of the slice after that are not
    /// consumed, bytes of earlier slices after it are given back.
    #[inline]
    pub(crate) fn settle(
        &self,
        before: usize,
        slice_len: usize,
        mut outcome: Outcome,
    ) -> (usize, Outcome) {
        let Some(give_back) = outcome.given_back_mut() else {
            return (slice_len, outcome);
        };
        let end = self.bytes.len() - (*give_back).min(self.bytes.len());
        *give_back = before.saturating_sub(end);
        (end.saturating_sub(before), outcome)
    }

    /// A failure at body index `at`: what follows it is given back.
    pub(crate) fn failed(
        &self,
        kind: DiagnosticKind,
        at: usize,
        message: impl Into<String>,
    ) -> Outcome {
        let mut f = Failure::new(kind, self.at(at), message);
        f.give_back = self.bytes.len().saturating_sub(at);
        Outcome::failed(f)
    }
}

/// Writes the arguments object one parameter at a time: `{"a": 1`, then
/// `, "b": 2`, then `}`. The deltas concatenate to the final input at every
/// step.
#[derive(Debug, Clone, Default)]
pub(crate) struct ArgsWriter {
    /// The keys sent so far, one after another; each ends where
    /// `key_ends` says (one buffer, not a `String` per key).
    keys: String,
    key_ends: Vec<usize>,
    scratch: String,
    /// The arguments went out as one object ([`whole`](Self::whole)).
    whole: bool,
}

impl ArgsWriter {
    pub(crate) fn reset(&mut self) {
        self.keys.clear();
        self.key_ends.clear();
        self.whole = false;
    }

    /// Whether nothing has been sent.
    pub(crate) fn is_empty(&self) -> bool {
        self.key_ends.is_empty() && !self.whole
    }

    /// Whether the arguments went out as one object.
    pub(crate) fn is_whole(&self) -> bool {
        self.whole
    }

    /// Sends `object`, a complete JSON object, as all the arguments (a
    /// model that wrote JSON in place of parameter elements). Only while
    /// nothing else was sent.
    pub(crate) fn whole<'c, S: Sink<'c>>(&mut self, object: &str, cx: &mut CallCx<'_, 'c, S>) {
        debug_assert!(self.is_empty());
        cx.delta_text(object);
        self.whole = true;
    }

    /// Coerces `raw` for `key` and emits it: by the key's schema, and
    /// where that gives it no type as `untyped` says. A repeated key is
    /// reported and skipped (the first value was already sent).
    pub(crate) fn add<'c, S: Sink<'c>>(
        &mut self,
        key: &str,
        raw: &str,
        untyped: Untyped,
        offset: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        if self.has(key) {
            cx.recovered(
                DiagnosticKind::DuplicateKey,
                offset,
                format!("parameter {key:?} given twice; the first value is kept"),
            );
            return;
        }
        let max_depth = cx.limits().max_depth;
        // A value of the one type its schema names: read without the schema.
        let param = cx.param(key);
        let as_its_type = param
            .and_then(|p| p.one_type.as_deref())
            .and_then(|ty| as_type(raw, ty, max_depth));
        if let Some(json) = as_its_type {
            let delta = self.member(key, param, &json);
            return cx.delta_text(delta);
        }
        let coerced = coerce_value(raw, cx.param_schema(key), untyped, max_depth);
        if let Some(problem) = coerced.problem {
            cx.recovered(
                DiagnosticKind::Coercion,
                offset,
                format!("parameter {key:?}: {problem}"),
            );
        }
        self.add_json(key, &coerced.json, cx);
    }

    /// Emits an already-built JSON value for `key`.
    pub(crate) fn add_json<'c, S: Sink<'c>>(
        &mut self,
        key: &str,
        json: &str,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let delta = self.member(key, cx.param(key), json);
        cx.delta_text(delta);
    }

    /// The delta that sends member `key` with value `json`; `param` is the
    /// key's entry in the tool's table ([`CallCx::param`]).
    #[inline]
    fn member(&mut self, key: &str, param: Option<&Param>, json: &str) -> &str {
        self.key_prefix(key, param);
        self.scratch.push_str(json);
        &self.scratch
    }

    /// Starts `scratch` with `{"key": ` (or `, "key": `) and records the key;
    /// `param` is the key's entry in the tool's table, written as it is.
    fn key_prefix(&mut self, key: &str, param: Option<&Param>) {
        self.scratch.clear();
        self.scratch
            .push_str(if self.key_ends.is_empty() { "{" } else { ", " });
        push_key_json(&mut self.scratch, key, param);
        self.keys.push_str(key);
        self.key_ends.push(self.keys.len());
    }

    /// Whether `key` was already sent.
    pub(crate) fn has(&self, key: &str) -> bool {
        let mut start = 0;
        self.key_ends.iter().any(|&end| {
            let seen = &self.keys.as_bytes()[start..end];
            start = end;
            crate::scan::same_bytes(seen, key.as_bytes())
        })
    }

    /// Opens a string value sent in parts: the delta to send,
    /// `{"key": "` (or `, "key": "`). `param` is the key's entry in the
    /// tool's table ([`CallCx::param`]), which the caller has in hand.
    pub(crate) fn begin_string(&mut self, key: &str, param: Option<&Param>) -> &str {
        self.key_prefix(key, param);
        self.scratch.push('"');
        &self.scratch
    }

    /// A part of that string, JSON-escaped (escaping is per character, so
    /// the parts add up to the escaped whole), in deltas that allocate
    /// nothing but for unescaped text that is not in the chunk.
    ///
    /// `raw` is the same text where it lies in the caller's chunk, if it
    /// does; `lend` finds a run of text elsewhere in a static string.
    pub(crate) fn string_part<'c, S: Sink<'c>>(
        &mut self,
        text: &str,
        raw: Option<&'c str>,
        lend: impl Fn(&str) -> Option<&'static str>,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        debug_assert!(raw.is_none_or(|raw| raw == text));
        let short = text.len() <= ESCAPED_IN_PIECES;
        // A step that built text sends one delta: the text joins it.
        // Otherwise (a chunk inside a value) each piece of the escaped text
        // is a delta of its own: joined, they would be copied.
        let join = cx.building_owned();
        let borrowed = raw.filter(|_| (short && !join) || !needs_json_escape(text.as_bytes()));
        if let Some(text) = borrowed {
            escape_json_pieces(text, |piece| {
                if !join {
                    cx.flush();
                }
                cx.delta_borrowed(piece.as_str());
            });
        } else if raw.is_none() && short {
            // Held bytes: escapes, tag prefixes and ASCII characters have
            // static strings, other characters go out inline.
            escape_json_pieces(text, |piece| {
                if !join {
                    cx.flush();
                }
                match piece {
                    Escaped::Escape(escape) => cx.delta_borrowed(escape),
                    Escaped::Run(run) => match lend(run) {
                        Some(run) => cx.delta_borrowed(run),
                        None if join || run.len() > HELD_BY_CHARACTER => cx.delta_text(run),
                        None => lend_by_character(run, &lend, join, cx),
                    },
                }
            });
        } else {
            // Escapes in a step that built text, or in a long text: in one
            // pass, one delta.
            self.scratch.clear();
            escape_json_into(&mut self.scratch, text);
            cx.delta_text(&self.scratch);
        }
    }

    /// Closes that string.
    pub(crate) fn end_string<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        cx.delta_borrowed("\"");
    }

    /// Closes the object.
    pub(crate) fn close<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        if !self.whole {
            cx.delta_borrowed(if self.key_ends.is_empty() { "{}" } else { "}" });
        }
        self.reset();
    }
}

/// Held text up to this long goes out character by character rather than
/// copied (a held newline or tag prefix, and a code point a chunk split).
const HELD_BY_CHARACTER: usize = 16;

/// `run` (held text that `lend` did not find whole) as one delta per
/// character: ASCII lent from a static string, others inline.
fn lend_by_character<'c, S: Sink<'c>>(
    run: &str,
    lend: &impl Fn(&str) -> Option<&'static str>,
    join: bool,
    cx: &mut CallCx<'_, 'c, S>,
) {
    let mut utf8 = [0; 4];
    for c in run.chars() {
        if !join {
            cx.flush();
        }
        match lend(c.encode_utf8(&mut utf8)) {
            Some(lent) => cx.delta_borrowed(lent),
            None => cx.delta_char(c),
        }
    }
}
