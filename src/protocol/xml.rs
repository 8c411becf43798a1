//! Pieces shared by the XML-element formats: finding tags in the buffered
//! call body without rescanning, and writing the arguments object as
//! prefix-consistent JSON deltas.

use crate::coerce::coerce;
use crate::cx::CallCx;
use crate::event::DiagnosticKind;
use crate::event::Event;
use crate::protocol::{Failure, Outcome};
use crate::scan::json::{
    escape_json_into, escape_json_pieces, needs_json_escape, Escaped, ESCAPED_IN_PIECES,
};
use crate::scan::same_bytes;

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
    #[inline]
    pub(crate) fn append(&mut self, bytes: &[u8], offset: u64) -> usize {
        self.anchor(offset);
        let before = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
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

/// Longest tag head (`<parameter=…>`) looked at before giving up on a `<`.
pub(crate) const MAX_TAG: usize = 512;

/// A tag to look for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Pat {
    /// Exactly these bytes.
    Lit(&'static [u8]),
    /// These bytes, then an attribute up to `>` (on one line).
    Open(&'static [u8]),
}

/// Result of matching tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    /// Pattern `index` matched at `at`; the tag ends at `end`; its attribute
    /// (for [`Pat::Open`]) is `attr`.
    Found {
        index: usize,
        at: usize,
        end: usize,
        attr: (usize, usize),
    },
    /// The bytes from `at` may still become a tag.
    Need { at: usize },
    /// No tag here (for [`tag_at`]) / none in the bytes (for [`find_tag`]).
    Miss,
}

fn match_one(body: &[u8], at: usize, pat: Pat) -> Tag {
    let (lit, open) = match pat {
        Pat::Lit(l) => (l, false),
        Pat::Open(l) => (l, true),
    };
    let avail = &body[at..];
    let n = lit.len().min(avail.len());
    if !same_bytes(&avail[..n], &lit[..n]) {
        return Tag::Miss;
    }
    if n < lit.len() {
        return Tag::Need { at };
    }
    let after = at + lit.len();
    if !open {
        return Tag::Found {
            index: 0,
            at,
            end: after,
            attr: (after, after),
        };
    }
    let window = &body[after..body.len().min(after + MAX_TAG)];
    match window
        .iter()
        .position(|&b| b == b'>' || b == b'\n' || b == b'<')
    {
        Some(i) if window[i] == b'>' => Tag::Found {
            index: 0,
            at,
            end: after + i + 1,
            attr: (after, after + i),
        },
        Some(_) => Tag::Miss,
        None if window.len() == MAX_TAG => Tag::Miss,
        None => Tag::Need { at },
    }
}

/// Matches `pats` at exactly `at`. A partial match anywhere wins over a
/// miss, so the answer never depends on where a chunk ended.
pub(crate) fn tag_at(body: &[u8], at: usize, pats: &[Pat]) -> Tag {
    let mut need = false;
    for (index, &pat) in pats.iter().enumerate() {
        match match_one(body, at, pat) {
            Tag::Found { at, end, attr, .. } if !need => {
                return Tag::Found {
                    index,
                    at,
                    end,
                    attr,
                }
            }
            Tag::Found { .. } | Tag::Need { .. } => need = true,
            Tag::Miss => {}
        }
    }
    if need {
        Tag::Need { at }
    } else {
        Tag::Miss
    }
}

/// How long an automaton may wait before matching a partly received tag
/// again (see [`need_until`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Wait {
    /// No verdict changes while the body is shorter than this…
    pub(crate) until: usize,
    /// …and, when set, no byte that can end a tag's attribute (`>`, a
    /// newline, `<`) has arrived.
    pub(crate) for_close: bool,
    /// Where the partly received tag begins, for a wait inside a value
    /// (which may end early: see [`early`](Self::early)).
    pub(crate) in_value: Option<usize>,
}

impl Wait {
    /// Whether `bytes`, appended to a body that then is `len` long, still
    /// leave every verdict as it was.
    #[inline]
    pub(crate) fn holds(&self, len: usize, bytes: &[u8]) -> bool {
        len < self.until && !(self.for_close && bytes.iter().any(|&b| ends_attr(b)))
    }

    /// The partly received tag of a wait in a value, while it may still
    /// prove not to be one early (see [`still_in_play`]): `bytes` end
    /// `body` at `len`. Only tags held to two bytes are checked, which
    /// covers text that shares no third byte with a tag; longer ones wait
    /// in full.
    #[inline]
    pub(crate) fn early<'b>(&self, body: &'b [u8], len: usize, bytes: &[u8]) -> Option<&'b [u8]> {
        let at = self.in_value?;
        body.get(at..len - bytes.len())
            .filter(|held| held.len() <= 2)
    }
}

/// Whether one of `pats` may still begin at `held`, a partly received tag,
/// followed by `bytes`. A wait in a value ends early where none can:
/// `a < b` or `</div>` in a value is decided at the byte after `<` or
/// `</`, not when the longest tag could have ended.
pub(crate) fn still_in_play(pats: &[Pat], held: &[u8], bytes: &[u8]) -> bool {
    pats.iter().any(|pat| {
        let (Pat::Lit(lit) | Pat::Open(lit)) = *pat;
        let agrees = |at: usize, bytes: &[u8]| {
            let rest = lit.get(at..).unwrap_or_default();
            rest.iter().zip(bytes).all(|(a, b)| a == b)
        };
        agrees(0, held) && agrees(held.len(), bytes)
    })
}

/// A byte that ends the attribute of an open tag, one way or the other.
#[inline]
fn ends_attr(b: u8) -> bool {
    matches!(b, b'>' | b'\n' | b'<')
}

/// After [`tag_at`] answered [`Tag::Need`] at `at`: how long no tag can be
/// found (the shortest of the patterns still in play, complete; or, when
/// every pattern in play is an open tag waiting for its `>`, the first byte
/// that can end its attribute). A verdict is the same whenever it is taken
/// (a miss stays a miss), so an automaton may wait that long instead of
/// matching again on every small chunk; a miss is then seen at most that
/// many bytes later, which only delays text that turns out not to be a tag.
pub(crate) fn need_until(body: &[u8], at: usize, pats: &[Pat]) -> Wait {
    let avail = &body[at.min(body.len())..];
    // Nothing in play: the next byte may decide.
    let mut soonest = usize::MAX;
    // The same, reading an open tag's complete literal as a wait for its
    // closing byte.
    let mut for_close = Some(usize::MAX);
    for &pat in pats {
        let (lit, open) = match pat {
            Pat::Lit(l) => (l, false),
            Pat::Open(l) => (l, true),
        };
        let n = lit.len().min(avail.len());
        if !same_bytes(&avail[..n], &lit[..n]) {
            continue;
        }
        if n < lit.len() {
            let until = at + lit.len() + usize::from(open);
            soonest = soonest.min(until);
            for_close = None;
        } else if open {
            // The literal is there; its `>` may be the next byte, or the
            // window may fill up without one.
            soonest = soonest.min(body.len() + 1);
            for_close = for_close.map(|u| u.min(at + lit.len() + MAX_TAG));
        } else {
            for_close = None;
        }
    }
    match for_close {
        Some(until) if until != usize::MAX => Wait {
            until,
            for_close: true,
            in_value: None,
        },
        _ => Wait {
            until: if soonest == usize::MAX {
                body.len() + 1
            } else {
                soonest
            },
            for_close: false,
            in_value: None,
        },
    }
}

/// Finds the first of `pats` at or after `from`.
///
/// # Complexity
///
/// One memchr pass over `body[from..]` plus a short comparison per `<`.
pub(crate) fn find_tag(body: &[u8], from: usize, pats: &[Pat]) -> Tag {
    let mut i = from;
    while let Some(rel) = memchr::memchr(b'<', &body[i..]) {
        let at = i + rel;
        match tag_at(body, at, pats) {
            Tag::Miss => i = at + 1,
            found_or_need => return found_or_need,
        }
    }
    Tag::Miss
}

/// Index of the first non-whitespace byte at or after `from`.
#[inline]
pub(crate) fn skip_ws(body: &[u8], from: usize) -> usize {
    from + crate::scan::skip_ws(&body[from..])
}

/// An attribute value, trimmed and with surrounding quotes removed, written
/// into `out` (cleared first, its allocation reused).
///
/// A quoted value ends at its closing quote: attributes after it
/// (`<invoke name="run" description="…">`, which models echo from tool
/// descriptions) are not part of it.
pub(crate) fn attr_text_into(raw: &[u8], out: &mut String) {
    let t = match crate::scan::utf8::validate(raw) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(()) => String::from_utf8_lossy(raw),
    };
    let t = t.trim();
    // The quotes are ASCII: a byte search finds them at char boundaries.
    let quoted = |q: u8| {
        let inner = t.strip_prefix(q as char)?;
        memchr::memchr(q, inner.as_bytes()).map(|end| &inner[..end])
    };
    let unq = quoted(b'"').or_else(|| quoted(b'\'')).unwrap_or(t);
    out.clear();
    out.push_str(unq);
}

/// The value of attribute `name` in a tag's attribute text (`name="city"
/// string="true"`), quoted with `"` or `'`; `None` when the tag has no such
/// attribute. The first attribute is the tag's own (`name=` was part of the
/// pattern), so only attributes after it are looked at.
pub(crate) fn attr_value<'a>(raw: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let mut rest = raw;
    while let Some(at) = memchr::memmem::find(rest, name) {
        let before = at.checked_sub(1).map(|i| rest[i]);
        let after = &rest[at + name.len()..];
        rest = after;
        if !before.is_some_and(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let after = &after[skip_ws(after, 0)..];
        let Some(after) = after.strip_prefix(b"=") else {
            continue;
        };
        let after = &after[skip_ws(after, 0)..];
        let (&quote, inner) = after.split_first()?;
        if quote != b'"' && quote != b'\'' {
            continue;
        }
        let end = memchr::memchr(quote, inner)?;
        return Some(&inner[..end]);
    }
    None
}

/// A parameter value without the one newline after its opening tag and the
/// one before its closing tag (`\r\n` counts as one).
pub(crate) fn strip_one_newline(v: &str) -> &str {
    let v = v
        .strip_prefix("\r\n")
        .or_else(|| v.strip_prefix('\n'))
        .unwrap_or(v);
    v.strip_suffix("\r\n")
        .or_else(|| v.strip_suffix('\n'))
        .unwrap_or(v)
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
    pub(crate) fn whole<'c, S: FnMut(Event<'c>)>(
        &mut self,
        object: &str,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        debug_assert!(self.is_empty());
        cx.delta_text(object);
        self.whole = true;
    }

    /// Coerces `raw` for `key` and emits it: by the key's schema, or where
    /// there is none and its tag marked it as JSON (`marked_json`), as the
    /// JSON value it is (a string with a diagnostic if it is not). A
    /// repeated key is reported and skipped (the first value was already
    /// sent).
    pub(crate) fn add<'c, S: FnMut(Event<'c>)>(
        &mut self,
        key: &str,
        raw: &str,
        marked_json: bool,
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
        let coerced = match cx.param_schema(key) {
            None if marked_json => crate::coerce::coerce_json(raw, max_depth),
            schema => coerce(raw, schema, max_depth),
        };
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
    pub(crate) fn add_json<'c, S: FnMut(Event<'c>)>(
        &mut self,
        key: &str,
        json: &str,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        self.key_prefix(key);
        self.scratch.push_str(json);
        cx.delta_text(&self.scratch);
    }

    /// Starts `scratch` with `{"key": ` (or `, "key": `) and records the key.
    fn key_prefix(&mut self, key: &str) {
        self.scratch.clear();
        self.scratch
            .push_str(if self.key_ends.is_empty() { "{" } else { ", " });
        self.scratch.push('"');
        escape_json_into(&mut self.scratch, key);
        self.scratch.push_str("\": ");
        self.keys.push_str(key);
        self.key_ends.push(self.keys.len());
    }

    /// Whether `key` was already sent.
    pub(crate) fn has(&self, key: &str) -> bool {
        let mut start = 0;
        self.key_ends.iter().any(|&end| {
            let seen = &self.keys[start..end];
            start = end;
            seen == key
        })
    }

    /// Opens a string value sent in parts: `{"key": "` (or `, "key": "`).
    pub(crate) fn begin_string<'c, S: FnMut(Event<'c>)>(
        &mut self,
        key: &str,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        self.key_prefix(key);
        self.scratch.push('"');
        cx.delta_text(&self.scratch);
    }

    /// A part of that string, JSON-escaped (escaping is per character, so
    /// the parts add up to the escaped whole), in deltas that allocate
    /// nothing but for unescaped text that is not in the chunk.
    ///
    /// `raw` is the same text where it lies in the caller's chunk, if it
    /// does; `lend` finds a run of text elsewhere in a static string.
    pub(crate) fn string_part<'c, S: FnMut(Event<'c>)>(
        &mut self,
        text: &str,
        raw: Option<&'c [u8]>,
        lend: impl Fn(&str) -> Option<&'static str>,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        debug_assert!(raw.is_none_or(|raw| raw == text.as_bytes()));
        let short = text.len() <= ESCAPED_IN_PIECES;
        // A step that built text sends one delta: the text joins it.
        // Otherwise (a chunk inside a value) each piece of the escaped text
        // is a delta of its own: joined, they would be copied.
        let join = cx.building_owned();
        let borrowed = raw
            .filter(|_| (short && !join) || !needs_json_escape(text.as_bytes()))
            .and_then(|raw| crate::scan::utf8::validate(raw).ok());
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
    pub(crate) fn end_string<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        cx.delta_borrowed("\"");
    }

    /// Closes the object.
    pub(crate) fn close<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
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
fn lend_by_character<'c, S: FnMut(Event<'c>)>(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_found_or_held() {
        let pats = [Pat::Lit(b"</parameter>"), Pat::Open(b"<parameter=")];
        let body = b"a < b </param";
        assert_eq!(find_tag(body, 0, &pats), Tag::Need { at: 6 });
        let body = b"x <parameter=city>Seoul";
        assert_eq!(
            find_tag(body, 0, &pats),
            Tag::Found {
                index: 1,
                at: 2,
                end: 18,
                attr: (13, 17)
            }
        );
        assert_eq!(find_tag(b"<parameter=a\nb>", 0, &pats), Tag::Miss);
    }

    #[test]
    fn a_partly_received_tag_waits_for_its_shortest_completion() {
        let pats = [Pat::Lit(b"</function>"), Pat::Open(b"<parameter=")];
        let wait = |body: &[u8], at| {
            let w = need_until(body, at, &pats);
            (w.until, w.for_close)
        };
        // `</f` can only complete as `</function>` (11 bytes from 2).
        assert_eq!(wait(b"\n\n</f", 2), (13, false));
        // `<` may still be either: the shorter one decides.
        assert_eq!(wait(b"\n<", 1), (12, false));
        // `<parameter=` is there but not its `>`: the next byte that can
        // end the attribute decides, or the window filling up.
        assert_eq!(wait(b"<parameter=ci", 0), (11 + MAX_TAG, true));
        // An open tag's literal next to a literal tag still in play: the
        // next byte may decide.
        let mixed = [Pat::Open(b"<a="), Pat::Lit(b"<a=b>")];
        let w = need_until(b"<a=", 0, &mixed);
        assert_eq!((w.until, w.for_close), (4, false));
    }

    /// A wait may end at the first byte that no tag in play goes on with.
    #[test]
    fn a_tag_stays_in_play_while_a_literal_agrees() {
        let pats = [Pat::Lit(b"</function>"), Pat::Open(b"<parameter=")];
        let goes_on = |held: &[u8], bytes: &[u8]| {
            let body = [b"a ", held, bytes].concat();
            let wait = Wait {
                in_value: Some(2),
                ..need_until(&body[..2 + held.len()], 2, &pats)
            };
            wait.early(&body, body.len(), bytes)
                .is_none_or(|held| still_in_play(&pats, held, bytes))
        };
        assert!(goes_on(b"<", b"/"));
        assert!(goes_on(b"<", b"p"));
        assert!(!goes_on(b"<", b" "));
        assert!(goes_on(b"<", b"/fu"));
        assert!(!goes_on(b"<", b"/fx"));
        assert!(!goes_on(b"</", b"div>"));
        assert!(goes_on(b"</", b"func"));
        // Longer held tags wait in full.
        assert!(goes_on(b"</f", b"unctionx"));
    }

    /// Waiting changes no verdict: no tag is found while a wait holds, and a
    /// miss seen during it is still a miss where it ends.
    #[test]
    fn waiting_changes_no_verdict() {
        let long_attr = format!("<parameter={}>", "x".repeat(MAX_TAG + 3));
        let sets: [&[Pat]; 3] = [
            &[Pat::Lit(b"</function>"), Pat::Open(b"<parameter=")],
            &[Pat::Open(b"<a="), Pat::Lit(b"<a=b>")],
            &[Pat::Open(b"<function=")],
        ];
        let tags: [&[u8]; 8] = [
            b"</function>",
            b"<parameter=city>",
            b"</x>",
            b"<pa\n",
            b"<parameter=ci\nty>",
            b"<parameter=a<b>",
            b"<a=b>x",
            long_attr.as_bytes(),
        ];
        for pats in sets {
            for tag in tags {
                for cut in 1..tag.len() {
                    if !matches!(tag_at(&tag[..cut], 0, pats), Tag::Need { .. }) {
                        continue;
                    }
                    let wait = need_until(&tag[..cut], 0, pats);
                    let waits = |len: usize| wait.holds(len, &tag[cut..len]);
                    let Some(stop) = (cut + 1..=tag.len()).find(|&len| !waits(len)) else {
                        continue;
                    };
                    let at_stop = tag_at(&tag[..stop], 0, pats);
                    for len in cut..stop {
                        match tag_at(&tag[..len], 0, pats) {
                            Tag::Found { .. } => panic!("{tag:?} found at {len} < {stop}"),
                            Tag::Miss => assert_eq!(at_stop, Tag::Miss, "{tag:?} at {len}"),
                            Tag::Need { .. } => {}
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn escaping_matches_serde_json() {
        let ascii: String = (0u8..0x80).map(char::from).collect();
        for text in [
            "plain",
            "q\"b\\s",
            "\n\r\t\u{8}\u{c}\u{1}\u{1f}",
            "é世😀</x>",
            "",
            &ascii,
        ] {
            let mut ours = String::new();
            escape_json_into(&mut ours, text);
            let theirs = serde_json::Value::String(text.to_owned()).to_string();
            assert_eq!(format!("\"{ours}\""), theirs);
        }
    }

    #[test]
    fn newline_stripping_takes_one_each_side() {
        assert_eq!(strip_one_newline("\n\nx\n\n"), "\nx\n");
        assert_eq!(strip_one_newline("\r\nx\r\n"), "x");
        assert_eq!(strip_one_newline("x"), "x");
    }
}
