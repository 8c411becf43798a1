//! Byte-level XML as the XML-element formats write it: tags found in a
//! buffered call body without rescanning (and how long a partly received
//! tag may wait), attributes, child elements and entities.

use std::borrow::Cow;

use crate::scan::same_bytes;

/// Longest tag head (`<parameter=…>`) looked at before giving up on a `<`.
pub(crate) const MAX_TAG: usize = 512;

/// A tag to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pat {
    /// Exactly these bytes.
    Lit(&'static [u8]),
    /// These bytes, then an attribute up to `>` (on one line).
    Open(&'static [u8]),
    /// These bytes, then an attribute up to [`SEP`] (on one line):
    /// Kimi-K3's tags, whose attributes may hold a `<` or a `>`. (Every
    /// variant holds just its literal, so that reading it takes no branch.)
    OpenSep(&'static [u8]),
}

/// What ends the attribute of a [`Pat::OpenSep`] tag.
pub(crate) const SEP: &[u8] = b"<|sep|>";

impl Pat {
    /// The literal the tag begins with.
    #[inline(always)]
    pub(crate) fn lit(self) -> &'static [u8] {
        match self {
            Pat::Lit(lit) | Pat::Open(lit) | Pat::OpenSep(lit) => lit,
        }
    }

    /// What ends the tag's attribute, if it has one (for messages).
    pub(crate) fn attr_end(self) -> &'static [u8] {
        match self {
            Pat::Lit(_) => b"",
            Pat::Open(_) => b">",
            Pat::OpenSep(_) => SEP,
        }
    }

    /// Whether an attribute follows the literal.
    #[inline(always)]
    fn has_attr(self) -> bool {
        !matches!(self, Pat::Lit(_))
    }
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

/// How many bytes of `lit` the bytes in hand `avail` hold, if they agree
/// with it that far (a partly received tag holds fewer than all). Most
/// tags a `<` is tried against differ at the byte after it: the first two
/// bytes settle them in one comparison.
#[inline(always)]
fn agreeing_prefix(avail: &[u8], lit: &[u8]) -> Option<usize> {
    if let (Some(a), Some(l)) = (avail.get(..2), lit.get(..2)) {
        if a != l {
            return None;
        }
    }
    let n = lit.len().min(avail.len());
    same_bytes(&avail[..n], &lit[..n]).then_some(n)
}

fn match_one(body: &[u8], at: usize, pat: Pat) -> Tag {
    let lit = pat.lit();
    let avail = &body[at..];
    let Some(n) = agreeing_prefix(avail, lit) else {
        return Tag::Miss;
    };
    if n < lit.len() {
        return Tag::Need { at };
    }
    let after = at + lit.len();
    match pat {
        Pat::Lit(_) => {
            return Tag::Found {
                index: 0,
                at,
                end: after,
                attr: (after, after),
            }
        }
        Pat::OpenSep(_) => return attr_until_sep(body, at, after),
        Pat::Open(_) => {}
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

/// An open tag from `at` whose attribute, from `after`, ends at [`SEP`]
/// on the same line, within [`MAX_TAG`] bytes; a byte of the attribute
/// may be any other (`calc<beta`). Out of line: the other tags' matches
/// are the hot ones. A wait for such a tag is one for an open tag's
/// (see [`Wait::close`]): only a line break, the `>` that completes the
/// close, or a full window can change its verdict, and each ends the wait.
#[inline(never)]
fn attr_until_sep(body: &[u8], at: usize, after: usize) -> Tag {
    let (close, first) = (SEP, SEP[0]);
    let window = &body[after..body.len().min(after + MAX_TAG)];
    let mut from = 0;
    while let Some(rel) = crate::scan::find_byte2(first, b'\n', &window[from..]) {
        let i = from + rel;
        if window[i] == b'\n' {
            return Tag::Miss;
        }
        let rest = &body[after + i..];
        let n = rest.len().min(close.len());
        if same_bytes(&rest[..n], &close[..n]) {
            return match n == close.len() {
                true => Tag::Found {
                    index: 0,
                    at,
                    end: after + i + n,
                    attr: (after, after + i),
                },
                // The body ends inside what may be the close.
                false => Tag::Need { at },
            };
        }
        from = i + 1;
    }
    match window.len() == MAX_TAG {
        true => Tag::Miss,
        false => Tag::Need { at },
    }
}

/// Matches `pats` at exactly `at`. A partial match anywhere wins over a
/// miss, so the answer never depends on where a chunk ended.
pub(crate) fn tag_at(body: &[u8], at: usize, pats: &[Pat]) -> Tag {
    for (index, &pat) in pats.iter().enumerate() {
        match match_one(body, at, pat) {
            Tag::Found { at, end, attr, .. } => {
                return Tag::Found {
                    index,
                    at,
                    end,
                    attr,
                }
            }
            // A later pattern's match cannot win over it.
            Tag::Need { .. } => return Tag::Need { at },
            Tag::Miss => {}
        }
    }
    Tag::Miss
}

/// How long an automaton may wait before matching a partly received tag
/// again (see [`need_until`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Wait {
    /// No verdict changes while the body is shorter than this…
    pub(crate) until: usize,
    /// …and, when set, an open tag's literal ends [`MAX_TAG`] bytes
    /// before `until`, and past it no byte that can end a tag's attribute
    /// (`>`, a newline, `<`) has arrived…
    pub(crate) close: bool,
    /// …where, when set, every tag waited for is a [`Pat::OpenSep`], whose
    /// attribute a `<` does not end: only the `>` of [`SEP`] or a newline
    /// can (`type="string"<|se` still waits)…
    sep: bool,
    /// …and the bytes go on with the tag followed (see [`InPlay`]).
    in_play: InPlay,
    /// Where the partly received tag begins, for a wait inside a value.
    pub(crate) in_value: Option<usize>,
}

/// The literal a partly received tag goes on with (see [`Wait::holds`]):
/// a wait ends at the first byte that it does not go on with, as one
/// pass over the bytes would find, not when the longest tag could have
/// ended. Of the tags in play only the first is followed: when the bytes
/// leave it, the automaton matches them again, and waits for the next one
/// in play, if any is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct InPlay {
    /// The literal; empty: a wait by length alone.
    lead: &'static [u8],
    /// Body index of the tag's first byte; `None` while nothing but
    /// whitespace has come (before a tag with nothing of it in hand)…
    tag_at: Option<usize>,
    /// …since this one, from which the wait's length counts until then.
    from: usize,
    /// The next tag in play, when none begins another: the wait follows
    /// it instead where the bytes leave the first (`</function>` where
    /// `<parameter=` was first), rather than ending.
    next: Option<Pat>,
}

impl InPlay {
    /// How many of `bytes`, which begin at body index `start`, come before
    /// the tag (whitespace, all of them while it has not begun). Where it
    /// begins moves `until` along with it. The same bytes given again
    /// answer the same.
    #[inline]
    fn tag_start(&mut self, start: usize, bytes: &[u8], until: &mut usize) -> usize {
        let tag_at = match self.tag_at {
            Some(at) => at,
            None => match bytes.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(i) => {
                    *until += (start + i).saturating_sub(self.from);
                    *self.tag_at.insert(start + i)
                }
                None => return bytes.len(),
            },
        };
        tag_at.saturating_sub(start).min(bytes.len())
    }

    /// Whether the literal goes on with `bytes`, the tag's from body index
    /// `start` on.
    #[inline]
    fn goes_on(&self, start: usize, bytes: &[u8]) -> bool {
        let tag_at = self.tag_at.unwrap_or(start);
        // Past the literal's end its tag is complete, which the wait's
        // length covers.
        let rest = self.lead.get(start - tag_at..).unwrap_or_default();
        let n = rest.len().min(bytes.len());
        same_bytes(&rest[..n], &bytes[..n])
    }
}

/// Whether `a` and `b` are distinct tags of which one begins the other
/// (the same tag twice ends at the same byte, and the same way).
fn nested_tags(a: Pat, b: Pat) -> bool {
    let ((a, a_open), (b, b_open)) = ((a.lit(), a.has_attr()), (b.lit(), b.has_attr()));
    let n = a.len().min(b.len());
    same_bytes(&a[..n], &b[..n]) && (a.len() != b.len() || a_open != b_open)
}

impl Wait {
    /// A wait for the byte after a body `len` long.
    pub(crate) fn next_byte(len: usize) -> Wait {
        Wait {
            until: len + 1,
            ..Wait::default()
        }
    }

    /// The same wait for bytes that stand at body index `to` where they
    /// stood at `from` (every index it holds is at `from` or past it).
    fn moved(self, from: usize, to: usize) -> Wait {
        // (Modular: a wait moved there and back is the same wait.)
        let shift = |i: usize| i.wrapping_sub(from).wrapping_add(to);
        Wait {
            until: shift(self.until),
            in_play: InPlay {
                tag_at: self.in_play.tag_at.map(shift),
                from: shift(self.in_play.from),
                ..self.in_play
            },
            in_value: self.in_value.map(shift),
            ..self
        }
    }

    /// The wait, for a tag that begins at body index `at` inside a value.
    pub(crate) fn in_value(self, at: usize) -> Wait {
        Wait {
            in_value: Some(at),
            ..self
        }
    }

    /// Whether `bytes`, appended to a body that then is `len` long, still
    /// leave every verdict as it was. Bytes it holds for are to be
    /// appended: a wait follows them (given again, they change nothing).
    #[inline]
    pub(crate) fn holds(&mut self, len: usize, bytes: &[u8]) -> bool {
        len < self.until && self.holds_within(len, bytes)
    }

    /// [`holds`](Self::holds) for bytes that come before `until`. Out of
    /// line: most chunks of a call come while nothing waits.
    #[inline(never)]
    fn holds_within(&mut self, len: usize, bytes: &[u8]) -> bool {
        // The common cases, kept small: bytes in the middle of a literal
        // tag, or of an open tag (its literal, then its attribute).
        let lead = self.in_play.lead;
        let into_tag = match self.in_play.tag_at {
            Some(tag_at) if !lead.is_empty() => (len - bytes.len()).checked_sub(tag_at),
            _ => None,
        };
        if let Some(into_tag) = into_tag {
            // Past an open tag's literal, its attribute.
            let rest = lead.get(into_tag..).unwrap_or_default();
            match self.close {
                // A literal tag's last byte completes it: the automaton's.
                false if rest.len() > bytes.len() && same_bytes(&rest[..bytes.len()], bytes) => {
                    return true
                }
                false => {}
                true => {
                    let n = rest.len().min(bytes.len());
                    if same_bytes(&rest[..n], &bytes[..n]) {
                        // The tag goes on as followed: its attribute decides
                        // (a byte that ends it ends the wait, as in general).
                        if self.attr_goes_on(len, bytes) {
                            return true;
                        }
                        self.until = 0;
                        return false;
                    }
                }
            }
        }
        self.holds_in_general(len, bytes)
    }

    /// [`holds_within`](Self::holds_within) past its common case.
    #[inline(never)]
    fn holds_in_general(&mut self, len: usize, bytes: &[u8]) -> bool {
        let start = len - bytes.len();
        let skip = match self.in_play.lead {
            [] => 0,
            _ => self.in_play.tag_start(start, bytes, &mut self.until),
        };
        let (tag, start) = (&bytes[skip..], start + skip);
        let holds = tag.is_empty()
            || ((self.in_play.lead.is_empty()
                || self.in_play.goes_on(start, tag)
                || self.follow_next(len, start, tag))
                && (!self.close || self.attr_goes_on(len, tag)));
        if !holds {
            // Over: the next verdict is the automaton's.
            self.until = 0;
        }
        holds
    }

    /// Whether the next tag in play goes on with `tag`, the tag's bytes
    /// from body index `start` to `len`, where the first does not: the
    /// wait then follows it, as [`lead_wait`] would have.
    fn follow_next(&mut self, len: usize, start: usize, tag: &[u8]) -> bool {
        let (Some(next), Some(tag_at)) = (self.in_play.next.take(), self.in_play.tag_at) else {
            return false;
        };
        let lit = next.lit();
        // It agrees with the bytes before these, which the first took.
        let before = (start - tag_at).min(lit.len());
        let lead = self.in_play.lead;
        let agrees = lead.len() >= before && same_bytes(&lit[..before], &lead[..before]);
        let follows = InPlay {
            lead: lit,
            ..self.in_play
        };
        if !(agrees && follows.goes_on(start, tag)) {
            return false;
        }
        *self = Wait {
            in_value: self.in_value,
            ..lead_wait(next, self.in_play.from, Some(tag_at))
        };
        // A shorter tag may end sooner.
        self.until += tag_at - self.in_play.from;
        len < self.until
    }

    /// Whether no byte of `bytes`, which end the body at `len`, ends the
    /// attribute of an open tag (see [`Wait::close`]).
    #[inline]
    fn attr_goes_on(&self, len: usize, bytes: &[u8]) -> bool {
        let attr_from = self.until - MAX_TAG;
        let skip = attr_from.saturating_sub(len - bytes.len()).min(bytes.len());
        let attr = &bytes[skip..];
        match self.sep {
            true => !attr.iter().any(|&b| b == b'>' || b == b'\n'),
            false => !attr.iter().any(|&b| ends_attr(b)),
        }
    }
}

/// A byte that ends the attribute of an open tag, one way or the other.
#[inline]
fn ends_attr(b: u8) -> bool {
    matches!(b, b'>' | b'\n' | b'<')
}

/// After [`tag_at`] answered [`Tag::Need`] at `at` (or with nothing in
/// hand there yet, after whitespace): how long no verdict can change. The
/// wait follows the first tag in play byte by byte, and the next one where
/// the bytes leave it; when none of the tags in play begins another, it
/// lasts until that tag is complete (an open tag: until the first byte
/// that can end its attribute), otherwise until the shortest could be. A
/// verdict is the same whenever it is taken (a miss stays a miss), so an
/// automaton may wait instead of matching again on every small chunk, and
/// the wait ends by the first byte that no tag it follows goes on with:
/// text that only began like a tag goes out as soon as in one pass.
pub(crate) fn need_until(body: &[u8], at: usize, pats: &[Pat]) -> Wait {
    let avail = &body[at.min(body.len())..];
    if avail.is_empty() {
        return nothing_in_hand(body, at, pats);
    }
    need_until_in_play(body, at, pats)
}

/// The waits [`need_until`] found for one set of tags, by the few bytes
/// of a partly received tag in hand (none, up to eight). A wait depends on those bytes and the
/// tags alone, up to where it begins, and a value's waits are mostly the
/// same few (none yet after a close, `<`, `</`, `</pa` at a chunk's end):
/// taken from here, such a
/// wait costs a comparison instead of matching the tags again.
#[derive(Debug, Clone, Default)]
pub(crate) struct WaitMemo {
    /// On the heap: an automaton holds a few, and is itself moved whole.
    slots: Box<[Option<Memo>; MEMO_SLOTS]>,
}

const MEMO_SLOTS: usize = 8;

/// A wait for `len` bytes in hand (0 to 8) whose [`short_word`] is `word`, as it
/// stands for a tag beginning at body index 0.
#[derive(Debug, Clone, Copy)]
struct Memo {
    word: u64,
    len: usize,
    wait: Wait,
}

impl WaitMemo {
    /// [`need_until`]`(body, at, pats)`, where `pats` is the set of tags
    /// this memo is for, the same at every call.
    pub(crate) fn need_until(&mut self, body: &[u8], at: usize, pats: &[Pat]) -> Wait {
        let avail = body.get(at..).unwrap_or_default();
        let Some(word) = short_word(avail) else {
            return need_until(body, at, pats);
        };
        let len = avail.len();
        // A multiplicative hash of the bytes and their number picks a slot.
        let hash = (word ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = &mut self.slots[(hash >> 61) as usize % MEMO_SLOTS];
        match slot {
            Some(memo) if memo.word == word && memo.len == len => memo.wait.moved(0, at),
            _ => {
                let wait = need_until(body, at, pats);
                *slot = Some(Memo {
                    word,
                    len,
                    wait: wait.moved(at, 0),
                });
                wait
            }
        }
    }
}

/// The bytes of a slice of at most eight as a little-endian word (zero
/// past its end); `None` for a longer one. Two reads of four that may
/// overlap rather than a copy into a zeroed word: this runs at most
/// chunks that end in a tag.
fn short_word(bytes: &[u8]) -> Option<u64> {
    let four = |at: usize| u64::from(u32::from_le_bytes(super::word(bytes, at)));
    let byte = |at: usize| u64::from(bytes[at]);
    let word = match bytes.len() {
        // The last read's bytes past the first's, moved down to follow it.
        n @ 4..=8 => four(0) | (four(n - 4) >> (8 * (8 - n))) << 32,
        3 => byte(0) | byte(1) << 8 | byte(2) << 16,
        2 => byte(0) | byte(1) << 8,
        1 => byte(0),
        0 => 0,
        _ => return None,
    };
    Some(word)
}

/// [`need_until`] by the patterns that agree with the bytes in hand.
fn need_until_in_play(body: &[u8], at: usize, pats: &[Pat]) -> Wait {
    let avail = &body[at.min(body.len())..];
    // Nothing in play: the next byte may decide.
    let mut soonest = usize::MAX;
    // The same, reading an open tag's complete literal as a wait for its
    // closing byte.
    let mut for_close = Some(usize::MAX);
    // An open tag's literal is whole, its attribute to come (and every
    // such tag's attribute ends at `SEP`).
    let (mut whole_open, mut all_sep) = (false, true);
    // The first partly received literal, followed byte by byte.
    let mut lead = None;
    // Whether a literal in play begins the first or the next (the wait
    // cannot follow that one alone).
    let (mut nested, mut next, mut next_nested) = (false, None, false);
    for &pat in pats {
        let (lit, open) = match pat {
            Pat::Lit(l) => (l, false),
            Pat::Open(l) | Pat::OpenSep(l) => (l, true),
        };
        let Some(n) = agreeing_prefix(avail, lit) else {
            continue;
        };
        if n < lit.len() {
            match (lead, next) {
                (None, _) => lead = Some(pat),
                (Some(first), None) => {
                    nested |= nested_tags(first, pat);
                    next = Some(pat);
                }
                (Some(first), Some(second)) => {
                    nested |= nested_tags(first, pat);
                    next_nested |= nested_tags(second, pat);
                }
            }
            let until = at + lit.len() + usize::from(open);
            soonest = soonest.min(until);
            for_close = None;
        } else if open {
            // The literal is there; its `>` may be the next byte, or the
            // window may fill up without one.
            soonest = soonest.min(body.len() + 1);
            for_close = for_close.map(|u| u.min(at + lit.len() + MAX_TAG));
            whole_open = true;
            all_sep &= matches!(pat, Pat::OpenSep(_));
        } else {
            for_close = None;
        }
    }
    let tag_at = (!avail.is_empty()).then_some(at);
    match (for_close, lead) {
        // The tags in play are all partly here, and none begins another:
        // while the bytes go on with the first, no other can end first.
        (None, Some(lead)) if !nested && !whole_open => {
            let mut wait = lead_wait(lead, at, tag_at);
            wait.in_play.next = next.filter(|_| !next_nested);
            wait
        }
        (Some(until), _) if until != usize::MAX => Wait {
            until,
            close: true,
            sep: all_sep,
            ..Wait::default()
        },
        _ if soonest == usize::MAX => Wait {
            until: body.len() + 1,
            ..Wait::default()
        },
        (_, lead) => Wait {
            until: soonest,
            in_play: InPlay {
                lead: lead.map_or(&[][..], |(Pat::Lit(l) | Pat::Open(l) | Pat::OpenSep(l))| l),
                tag_at,
                from: at,
                next: None,
            },
            ..Wait::default()
        },
    }
}

/// The wait for `lead`, the first of the tags in play (none of which
/// begins another), from body index `at`; `tag_at` if its first byte is
/// in hand. A literal tag waits until its last byte, an open tag until
/// the first byte that can end its attribute, or its window filling up.
fn lead_wait(lead: Pat, at: usize, tag_at: Option<usize>) -> Wait {
    let (lit, close) = (lead.lit(), lead.has_attr());
    Wait {
        until: at + lit.len() + if close { MAX_TAG } else { 0 },
        close,
        sep: matches!(lead, Pat::OpenSep(_)),
        in_play: InPlay {
            lead: lit,
            tag_at,
            from: at,
            next: None,
        },
        ..Wait::default()
    }
}

/// What a chunk of a streamed value's text holds, by one pass over it
/// (see [`value_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueText<'c> {
    /// Whole characters that need no JSON escape.
    Plain(&'c str),
    /// Whole characters, some of which JSON escapes.
    Escaped(&'c str),
    /// Bytes that begin or end inside a character, or are not UTF-8, but
    /// hold no `<` or line break: see [`value_text_cut`].
    Cut,
    /// A `<` (a tag may begin), or a line break in a chunk longer than a
    /// token: the automaton decides.
    Other,
    /// Line breaks (one may be the one stripped before the close) and no
    /// `<`, in a token-sized chunk: see [`text_before_break`].
    Breaks,
}

/// The next chunk of a streamed value that [`value_text`] found
/// [`Cut`](ValueText::Cut), after `held`, the first bytes of a character
/// that ended the chunks before it (none, or up to three): see
/// [`value_text_cut`]. Small, as it travels in every steady answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CutText<'c> {
    /// The whole characters after the one completed.
    pub(crate) text: &'c str,
    /// The character `held` began, completed by the chunk's first bytes.
    pub(crate) completed: Option<char>,
    /// Whether `text` has bytes that JSON escapes.
    pub(crate) escaped: bool,
    /// Where `text` begins in the chunk (after the bytes that complete
    /// a character: at most three).
    pub(crate) text_at: u8,
    /// How many bytes at the end begin a character the chunk cuts off
    /// (`held` among them if the chunk did not complete it): at most three.
    pub(crate) tail: u8,
}

/// A string value's line break, held back before a chunk, that the
/// chunk's text shows to be the value's own (see
/// [`text_before_break`]). Small, as it travels in every steady answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AfterBreak<'c> {
    /// The line break, JSON-escaped.
    pub(crate) line_break: &'static str,
    /// The chunk's text after it, up to a line break held back in turn.
    pub(crate) text: &'c str,
    /// Whether `text` has bytes that JSON escapes.
    pub(crate) escaped: bool,
}

/// [`value_text`] of the next chunk of a streamed value when it begins or
/// ends inside a character (CJK text in byte-sized tokens): `None` if it
/// holds a `<` or line break, is not UTF-8 after `held`, or `held` begins
/// no character (the automaton reads the chunk then).
pub(crate) fn value_text_cut<'c>(held: &[u8], bytes: &'c [u8]) -> Option<CutText<'c>> {
    let class = chunk_class(bytes);
    if class & STOP != 0 {
        return None;
    }
    let next = crate::scan::utf8::Utf8Carry::holding(held)?.continue_with(bytes)?;
    // Counted from the start of `held`: a chunk too short to complete
    // the character leaves the held bytes and its own in the tail.
    let tail = next.tail_len();
    let text_at = bytes.len().saturating_sub(tail + next.text().len());
    Some(CutText {
        text: next.text(),
        completed: next.completed(),
        escaped: class & ESCAPED != 0,
        text_at: text_at as u8,
        tail: tail as u8,
    })
}

/// Classes of [`VALUE_TEXT_CLASS`].
const ESCAPED: u8 = 1;
const NON_ASCII: u8 = 2;
const STOP: u8 = 4;
const TAG: u8 = 8;

/// Each byte's class in a streamed value: [`STOP`] for `<`, `\n` and
/// `\r`, and [`TAG`] too for `<`; [`ESCAPED`] for the bytes a JSON string
/// escapes; [`NON_ASCII`] from 0x80 up.
static VALUE_TEXT_CLASS: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = if b == b'<' as usize {
            STOP | TAG
        } else if b == b'\n' as usize || b == b'\r' as usize {
            STOP
        } else if b < 0x20 || b == b'"' as usize || b == b'\\' as usize {
            ESCAPED
        } else if b >= 0x80 {
            NON_ASCII
        } else {
            0
        };
        b += 1;
    }
    table
};

/// Bytes classified in one branch-free pass by [`value_text`].
pub(crate) const VALUE_TEXT_BLOCK: usize = 32;

/// The union of the classes of `bytes`.
#[inline(always)]
fn value_text_class(bytes: &[u8]) -> u8 {
    super::class_union(&VALUE_TEXT_CLASS, bytes)
}

/// [`value_text_class`] of a long chunk, block by block, up to the first
/// block that holds a [`STOP`] byte (the automaton reads the chunk then).
#[inline(never)]
fn long_value_text_class(bytes: &[u8]) -> u8 {
    let mut class = 0;
    for block in bytes.chunks(VALUE_TEXT_BLOCK) {
        class |= value_text_class(block);
        if class & STOP != 0 {
            break;
        }
    }
    class
}

/// The classes of a chunk of a streamed value: a token in one pass (no
/// early exit: a branch-free pass over a token is cheaper), a longer chunk
/// block by block up to a [`STOP`] byte.
#[inline(always)]
fn chunk_class(bytes: &[u8]) -> u8 {
    if bytes.len() <= VALUE_TEXT_BLOCK {
        value_text_class(bytes)
    } else {
        long_value_text_class(bytes)
    }
}

/// Classifies `bytes`, the next chunk of a value being streamed: one
/// table pass, then a UTF-8 check only if a byte is not ASCII.
#[allow(unsafe_code)]
#[inline(always)]
pub(crate) fn value_text(bytes: &[u8]) -> ValueText<'_> {
    let class = chunk_class(bytes);
    if class & STOP != 0 {
        // A long chunk's class stops at the first block with a stop byte:
        // only a token's tells that it holds no `<`.
        return match class & TAG == 0 && bytes.len() <= VALUE_TEXT_BLOCK {
            true => ValueText::Breaks,
            false => ValueText::Other,
        };
    }
    let text = if class & NON_ASCII == 0 {
        // SAFETY: `VALUE_TEXT_CLASS` gives every byte from 0x80 up
        // `NON_ASCII`: a class without it means every byte is ASCII.
        unsafe { crate::scan::utf8::ascii_str_unchecked(bytes) }
    } else {
        // A token that ends inside a character (checked first, as a
        // failed validation costs more) is `value_text_cut`'s.
        if crate::scan::utf8::incomplete_tail(bytes).is_some() {
            return ValueText::Cut;
        }
        match crate::scan::utf8::validate(bytes) {
            Ok(text) => text,
            Err(()) => return ValueText::Cut,
        }
    };
    if class & ESCAPED == 0 {
        ValueText::Plain(text)
    } else {
        ValueText::Escaped(text)
    }
}

/// The next chunk of a streamed value after a line break, or one that
/// holds line breaks (see [`ValueText::Breaks`]): its text up to a line
/// break that ends it (`\n`, `\r\n`, or a `\r` that a `\n` may follow,
/// which may be the one stripped before the close) or up to a character
/// its end cuts off, and how many bytes that leaves. `None` if it holds a
/// `<`, is not UTF-8 or begins inside a character.
pub(crate) fn text_before_break(bytes: &[u8]) -> Option<(&str, usize)> {
    if bytes.contains(&b'<') {
        return None;
    }
    let n = match bytes {
        [.., b'\r', b'\n'] => 2,
        [.., b'\n' | b'\r'] => 1,
        _ => 0,
    };
    let text = &bytes[..bytes.len() - n];
    // The common case, whole characters: the short validator, not the
    // standard library's (a token-sized chunk comes here often).
    if let Ok(text) = crate::scan::utf8::validate(text) {
        return Some((text, n));
    }
    match std::str::from_utf8(text) {
        Ok(text) => Some((text, n)),
        // A character the chunk's end cuts off is held back too.
        Err(e) if n == 0 && e.error_len().is_none() => {
            let (text, _) = bytes.split_at(e.valid_up_to());
            Some((std::str::from_utf8(text).ok()?, bytes.len() - text.len()))
        }
        Err(_) => None,
    }
}

/// [`need_until`] with no byte of the tag in hand yet (after a close,
/// waiting for what follows it): every pattern is in play.
#[inline]
fn nothing_in_hand(body: &[u8], at: usize, pats: &[Pat]) -> Wait {
    let mut until = usize::MAX;
    let Some(&lead) = pats.first() else {
        return Wait::next_byte(body.len());
    };
    let next = pats.get(1).copied();
    let (mut nested, mut next_nested) = (false, false);
    for (k, &pat) in pats.iter().enumerate() {
        match pat {
            Pat::Lit(lit) if !lit.is_empty() => until = until.min(at + lit.len()),
            Pat::Open(lit) | Pat::OpenSep(lit) if !lit.is_empty() => {
                until = until.min(at + lit.len() + 1)
            }
            // An empty literal is whole already: `need_until`'s own rules.
            _ => return need_until_in_play(body, at, pats),
        }
        nested |= k > 0 && nested_tags(lead, pat);
        next_nested |= k > 1 && next.is_some_and(|next| nested_tags(next, pat));
    }
    // Whitespace may come first where nothing of the tag is in hand
    // (every such wait is after a tag and the whitespace after it).
    if !nested {
        let mut wait = lead_wait(lead, at, None);
        wait.in_play.next = next.filter(|_| !next_nested);
        return wait;
    }
    let first = lead.lit();
    Wait {
        until,
        in_play: InPlay {
            lead: first,
            tag_at: None,
            from: at,
            next: None,
        },
        ..Wait::default()
    }
}

/// Finds the first of `pats` at or after `from`.
///
/// # Complexity
///
/// One memchr pass over `body[from..]` plus a short comparison per `<`.
pub(crate) fn find_tag(body: &[u8], from: usize, pats: &[Pat]) -> Tag {
    let mut i = from;
    while let Some(rel) = crate::scan::find_byte(b'<', &body[i..]) {
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
/// descriptions) are not part of it. Its entities are decoded.
pub(crate) fn attr_text_into(raw: &[u8], out: &mut String) {
    let t = match crate::scan::utf8::validate(raw) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(()) => String::from_utf8_lossy(raw),
    };
    let t = crate::scan::trim(&t);
    // The quotes are ASCII: a byte search finds them at char boundaries.
    let quoted = |q: u8| {
        let inner = t.strip_prefix(q as char)?;
        crate::scan::find_byte(q, inner.as_bytes()).map(|end| &inner[..end])
    };
    out.clear();
    match quoted(b'"').or_else(|| quoted(b'\'')) {
        // A quoted value is XML's: `&quot;` is how it holds a quote.
        Some(value) => out.push_str(&decode_entities(value)),
        None => out.push_str(t),
    }
}

/// The value of attribute `name` in a tag's attribute text (`name="city"
/// string="true"`), quoted with `"` or `'`; `None` when the tag has no such
/// attribute. The first attribute is the tag's own (`name=` was part of the
/// pattern), so only attributes after it are looked at.
pub(crate) fn attr_value<'a>(raw: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let mut rest = raw;
    while let Some(at) = find_in_attr(rest, name) {
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
        let end = crate::scan::find_byte(quote, inner)?;
        return Some(&inner[..end]);
    }
    None
}

/// Where `name` first stands in `attr`, a tag's attribute text: by its
/// first byte and a comparison there, which costs less than a `memmem`
/// search in text as short as an attribute.
fn find_in_attr(attr: &[u8], name: &[u8]) -> Option<usize> {
    let Some((&first, _)) = name.split_first() else {
        return Some(0);
    };
    let mut from = 0;
    while let Some(i) = crate::scan::find_byte(first, &attr[from..]) {
        let at = from + i;
        if crate::scan::begins_with(&attr[at..], name) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// A parameter value without the one newline after its opening tag and the
/// one before its closing tag (`\r\n` counts as one).
pub(crate) fn strip_one_newline(v: &str) -> &str {
    let v = &v[newline_at_start(v.as_bytes())..];
    &v[..v.len() - newline_at_end(v.as_bytes())]
}

/// How long the newline (`\n` or `\r\n`) that `v` starts with is.
pub(crate) fn newline_at_start(v: &[u8]) -> usize {
    [b"\r\n".as_slice(), b"\n"]
        .into_iter()
        .find(|nl| v.starts_with(nl))
        .map_or(0, <[u8]>::len)
}

/// How long the newline (`\n` or `\r\n`) that `v` ends with is.
pub(crate) fn newline_at_end(v: &[u8]) -> usize {
    [b"\r\n".as_slice(), b"\n"]
        .into_iter()
        .find(|nl| v.ends_with(nl))
        .map_or(0, <[u8]>::len)
}

/// Does `body[at..]` start with `lit`? `None` when it ends first.
fn starts(body: &[u8], at: usize, lit: &[u8]) -> Option<bool> {
    let avail = &body[at.min(body.len())..];
    let n = lit.len().min(avail.len());
    if !same_bytes(&avail[..n], &lit[..n]) {
        Some(false)
    } else if n < lit.len() {
        None
    } else {
        Some(true)
    }
}

/// The `>` that ends the tag `head` begins: the first one outside an
/// attribute's quotes (`<content note="a > b">`).
pub(crate) fn tag_end(head: &[u8]) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in head.iter().enumerate() {
        match (quote, b) {
            (None, b'>') => return Some(i),
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            _ => {}
        }
    }
    None
}

/// Whether `key` may name an element: not empty, letters, digits and
/// `_-.:`.
pub(crate) fn is_name(key: &[u8]) -> bool {
    !key.is_empty()
        && key
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// Is there a closing tag `</key>` at `at`? Where it ends if so. Whitespace
/// may stand around the name: models wrap long lines inside tags
/// (`</\n  step>`), and XML allows it before the `>`. `None` when the body
/// ends before that is known.
#[inline]
pub(crate) fn closes(body: &[u8], at: usize, key: &[u8]) -> Option<Option<usize>> {
    // Byte by byte: cheaper than a `memcmp` call, on every `<` of a value.
    if body.get(at) != Some(&b'<') || *body.get(at + 1)? != b'/' {
        return Some(None);
    }
    let mut name = at + 2;
    if crate::scan::is_ws(*body.get(name)?) {
        name = skip_ws(body, name);
    }
    if !starts(body, name, key)? {
        return Some(None);
    }
    let mut gt = name + key.len();
    if crate::scan::is_ws(*body.get(gt)?) {
        gt = skip_ws(body, gt);
    }
    match body.get(gt)? {
        b'>' => Some(Some(gt + 1)),
        _ => Some(None),
    }
}

/// Is there an opening tag `<key` (then `>`, `/` or whitespace) at `at`?
pub(crate) fn opens(body: &[u8], at: usize, key: &[u8]) -> Option<bool> {
    match starts(body, at + 1, key)? {
        false => Some(false),
        true => {
            let next = *body.get(at + 1 + key.len())?;
            Some(next == b'>' || next == b'/' || crate::scan::is_ws(next))
        }
    }
}

/// The child elements of `content`, if it is only elements and whitespace.
pub(crate) fn children(content: &str, max_depth: usize) -> Option<Vec<(String, String)>> {
    if max_depth == 0 {
        return None;
    }
    let b = content.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(b, 0);
    while i < b.len() {
        if b[i] != b'<' {
            return None;
        }
        let gt = i + tag_end(&b[i..])?;
        let head = &content[i + 1..gt];
        let name_len = head
            .find(|c: char| c == '/' || c.is_ascii_whitespace())
            .unwrap_or(head.len());
        let name = &head[..name_len];
        if name.is_empty() || name.starts_with(['/', '!', '?']) {
            return None;
        }
        if head.ends_with('/') {
            out.push((name.to_owned(), String::new()));
            i = skip_ws(b, gt + 1);
            continue;
        }
        // Find the matching close, counting nested same-name elements.
        let open = format!("<{name}");
        let mut depth = 0usize;
        let mut j = gt + 1;
        let (end, after) = loop {
            let lt = j + memchr::memchr(b'<', &b[j..])?;
            if let Some(Some(after)) = closes(b, lt, name.as_bytes()) {
                if depth == 0 {
                    break (lt, after);
                }
                depth -= 1;
            } else if content[lt..].starts_with(&open)
                && b.get(lt + open.len())
                    .is_some_and(|&c| c == b'>' || c == b'/' || c.is_ascii_whitespace())
            {
                depth += 1;
            }
            j = lt + 1;
        };
        out.push((name.to_owned(), content[gt + 1..end].to_owned()));
        i = skip_ws(b, after);
    }
    Some(out)
}

/// Decodes the XML entities `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` and
/// numeric references; anything else stays as written. Text without an
/// `&` is lent back as it is.
pub(crate) fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        // Byte search: `;` is ASCII, so the cut is a char boundary.
        let semi = memchr::memchr(b';', &tail.as_bytes()[..tail.len().min(12)]);
        let decoded = semi.and_then(|semi| {
            let entity = &tail[1..semi];
            let c = match entity {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => entity
                    .strip_prefix("#x")
                    .or_else(|| entity.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            }?;
            Some((c, semi + 1))
        });
        match decoded {
            Some((c, used)) => {
                out.push(c);
                rest = &tail[used..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// `run`, held from an earlier chunk, lent from a static string: a prefix
/// of the value's close tag that proved not to be one, or one ASCII
/// character (so that it goes out without a copy).
pub(crate) fn lend_static(run: &str, close: &'static [u8]) -> Option<&'static str> {
    const ASCII: &str = "\0\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\
        \x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f \
        !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f";
    let bytes = run.as_bytes();
    if let [b] = bytes {
        return ASCII.get(usize::from(*b)..usize::from(*b) + 1);
    }
    close
        .get(..bytes.len())
        .filter(|prefix| *prefix == bytes)
        .and_then(|prefix| std::str::from_utf8(prefix).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const K3_CALL: Pat = Pat::OpenSep(b"<|open|>call tool=");

    /// The memo's word is the bytes zero-padded, at every length it takes.
    #[test]
    fn short_words_are_the_bytes_zero_padded() {
        let bytes = *b"\x01\x82\x03\xf4\x05\x06\x07\xf8\x09";
        for n in 0..=8 {
            let mut padded = [0; 8];
            padded[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(
                short_word(&bytes[..n]),
                Some(u64::from_le_bytes(padded)),
                "{n} bytes"
            );
        }
        assert_eq!(short_word(&bytes), None);
    }

    /// Kimi-K3's tags: the attribute ends at `<|sep|>` and may hold `<`
    /// and `>`; a line break, or no close within [`MAX_TAG`], refutes it;
    /// a body that ends inside the close, or before it, needs more.
    #[test]
    fn open_tags_end_at_their_close_literal() {
        let pats = [K3_CALL];
        let tag = br#"<|open|>call tool="a<b>" index="1"<|sep|>rest"#;
        let end = tag.len() - "rest".len();
        let attr_end = end - "<|sep|>".len();
        assert_eq!(
            tag_at(tag, 0, &pats),
            Tag::Found {
                index: 0,
                at: 0,
                end,
                attr: ("<|open|>call tool=".len(), attr_end),
            }
        );
        for cut in [
            "<|open|>call tool=\"f\"<|se",
            "<|open|>call tool=\"f\"",
            "<|open|>ca",
        ] {
            assert_eq!(
                tag_at(cut.as_bytes(), 0, &pats),
                Tag::Need { at: 0 },
                "{cut}"
            );
        }
        assert_eq!(
            tag_at(b"<|open|>call tool=\"f\"\n<|sep|>", 0, &pats),
            Tag::Miss
        );
        assert_eq!(
            tag_at(b"<|open|>call tool=\"f\"<|sex|>", 0, &pats),
            Tag::Need { at: 0 }
        );
        let long = [b"<|open|>call tool=".as_slice(), &[b'x'; MAX_TAG]].concat();
        assert_eq!(tag_at(&long, 0, &pats), Tag::Miss);
    }

    /// A name in an attribute is found where a substring search finds it,
    /// and `attr_value` reads the value after it, quoted either way.
    #[test]
    fn names_in_attributes_are_found_as_by_a_search() {
        let text = b" tt type=\"typed\" stype='x' type = \"string\"";
        for from in 0..text.len() {
            for to in from..=text.len() {
                let attr = &text[from..to];
                for name in [&b"type"[..], b"t", b"string", b""] {
                    let want = memchr::memmem::find(attr, name);
                    assert_eq!(find_in_attr(attr, name), want, "{attr:?} {name:?}");
                }
            }
        }
        assert_eq!(attr_value(text, b"type"), Some(&b"typed"[..]));
        assert_eq!(
            attr_value(b"key=\"a\" type = 'number'", b"type"),
            Some(&b"number"[..])
        );
        assert_eq!(attr_value(b"key=\"a\" subtype=\"x\"", b"type"), None);
    }

    /// A wait taken from the memo is the wait worked out afresh, for every
    /// partly received tag of a set, at every place in the body, asked
    /// once (a miss) and again (a hit, moved from where it was found).
    #[test]
    fn memoised_waits_are_the_waits() {
        let pats = [
            Pat::Lit(b"</parameter>"),
            Pat::Open(b"<parameter="),
            Pat::Lit(b"</function>"),
            Pat::Lit(b"</tool_call>"),
            Pat::Open(b"<function="),
            Pat::OpenSep(b"<|tool_call_begin|>"),
        ];
        let tails: [&[u8]; 6] = [
            b"</parameter>",
            b"<parameter=units",
            b"</function>",
            b"<|tool_call_begin|>",
            b"<x",
            b"\xe6<",
        ];
        let mut memo = WaitMemo::default();
        for lead in [&b""[..], b"text ", b"a longer value \n"] {
            for tail in tails {
                for end in 1..=tail.len() {
                    let mut body = lead.to_vec();
                    body.extend_from_slice(&tail[..end]);
                    for at in lead.len()..=body.len() {
                        let want = need_until(&body, at, &pats);
                        assert_eq!(memo.need_until(&body, at, &pats), want, "{body:?} at {at}");
                        assert_eq!(memo.need_until(&body, at, &pats), want, "{body:?} at {at}");
                    }
                }
            }
        }
    }

    /// A wait for such a tag follows its literal, then lasts through its
    /// attribute up to a byte that may end it: the `>` of its close, or a
    /// line break. A `<` does not (the attribute may hold one, and the
    /// close it may begin is not whole before its `>`), so the close's
    /// first bytes arrive without the tag being matched again.
    #[test]
    fn waits_for_open_tags_with_a_close_literal() {
        let pats = [K3_CALL, Pat::Lit(b"<|close|>tools<|sep|>")];
        let mut wait = need_until(b"<|op", 0, &pats);
        assert!(wait.holds(b"<|open|>ca".len(), b"en|>ca"));
        assert!(!wait.holds(b"<|open|>cX".len(), b"en|>cX"));
        let whole = b"<|open|>call tool=\"f";
        let mut wait = need_until(whole, 0, &pats);
        assert!(wait.holds(whole.len() + 9, b"\" index="));
        assert!(wait.holds(whole.len() + 13, b"1\"<|"));
        assert!(wait.holds(whole.len() + 15, b"se"));
        assert!(!wait.holds(whole.len() + 18, b"p|>"));
        let mut wait = need_until(whole, 0, &pats);
        assert!(wait.holds(whole.len() + 3, b"a<b"));
        assert!(!wait.holds(whole.len() + 5, b"\"\n"));
        let mut wait = need_until(b"<|open|>call tool=\"f\"<|se", 0, &pats);
        assert!(!wait.holds(b"<|open|>call tool=\"f\"<|sep|>".len(), b"p|>"));
        // Beside a tag whose attribute a `<` ends, a `<` ends the wait.
        let mixed = [K3_CALL, Pat::Open(b"<|open|>call tool=")];
        let mut wait = need_until(whole, 0, &mixed);
        assert!(!wait.holds(whole.len() + 3, b"a<b"));
    }

    /// The first pattern that matches or may still match decides: a
    /// partly received tag ahead of a complete one keeps it waiting (the
    /// bytes may yet go on with the first), a complete one ahead of a
    /// partial one is found, and later patterns are not looked at.
    #[test]
    fn tag_at_is_decided_by_the_first_pattern_in_play() {
        let long = Pat::Lit(b"</parameter>");
        let short = Pat::Lit(b"</p");
        let open = Pat::Open(b"<parameter=");
        let found = |index, at, end, attr| Tag::Found {
            index,
            at,
            end,
            attr,
        };
        assert_eq!(tag_at(b"x</p", 1, &[long, short]), Tag::Need { at: 1 });
        assert_eq!(tag_at(b"x</p", 1, &[short, long]), found(0, 1, 4, (4, 4)));
        assert_eq!(tag_at(b"</pa", 0, &[open, long]), Tag::Need { at: 0 });
        let param = tag_at(b"<parameter=k>", 0, &[long, open]);
        assert_eq!(param, found(1, 0, 13, (11, 12)));
        assert_eq!(tag_at(b"<q", 0, &[long, open]), Tag::Miss);
        assert_eq!(tag_at(b"<pa", 0, &[long, open]), Tag::Need { at: 0 });
    }

    /// The one-pass classifier gives what the byte-by-byte rules say: a
    /// `<` stops the steady path, and so does a line break in a chunk
    /// longer than a token (in a token it is `Breaks`), invalid or cut-off
    /// UTF-8 too, and text is escaped when JSON escapes one of its bytes.
    #[test]
    fn value_text_classifies_as_the_rules_say() {
        let mut cases: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b'a', b]).collect();
        let text = "x é\"世\\\t😀<\r\n".as_bytes();
        for from in 0..text.len() {
            for to in from..=text.len() {
                cases.push(text[from..to].to_vec());
            }
        }
        // Past one block: a stop, an escape or a cut character anywhere.
        let long = "plain text, é and 世界 ".repeat(4);
        for at in 0..=long.len() {
            for put in [&b"<"[..], b"\n", b"\"", b"\xE4\xB8"] {
                let mut bytes = long.as_bytes().to_vec();
                bytes.splice(at..at, put.iter().copied());
                cases.push(bytes);
            }
        }
        cases.push(long.into_bytes());
        for bytes in cases {
            let breaks = bytes.iter().any(|&b| matches!(b, b'\n' | b'\r'));
            let expected = match std::str::from_utf8(&bytes) {
                _ if bytes.contains(&b'<') => ValueText::Other,
                _ if breaks && bytes.len() <= VALUE_TEXT_BLOCK => ValueText::Breaks,
                _ if breaks => ValueText::Other,
                Ok(text) if text.contains(|c: char| c < ' ' || c == '"' || c == '\\') => {
                    ValueText::Escaped(text)
                }
                Ok(text) => ValueText::Plain(text),
                Err(_) => ValueText::Cut,
            };
            assert_eq!(value_text(&bytes), expected, "{bytes:x?}");
        }
    }

    /// `text_before_break` holds back exactly the line break that ends a
    /// chunk (the one a close may strip), and refuses tags and cut
    /// characters.
    #[test]
    fn text_before_break_holds_back_the_last_line_break() {
        type TextAndBreak = Option<(&'static str, usize)>;
        let cases: [(&[u8], TextAndBreak); 12] = [
            (b"ab\n", Some(("ab", 1))),
            (b"ab\r\n", Some(("ab", 2))),
            (b"ab\r", Some(("ab", 1))),
            (b"a\nb", Some(("a\nb", 0))),
            (b"\n\n", Some(("\n", 1))),
            (b"a\n\r", Some(("a\n", 1))),
            (b"\n", Some(("", 1))),
            (b"a\n<", None),
            (b"\xE4\xB8\n", None),
            (b"\xE4\xB8\x96\n", Some(("\u{4e16}", 1))),
            (b"\na\xE4\xB8", Some(("\na", 2))),
            (b"\xB8\x96a", None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(text_before_break(bytes), expected, "{bytes:x?}");
        }
    }

    /// `value_text_cut` decodes every chunk that text split anywhere can
    /// give, after the start of a character the chunks before it cut off:
    /// the character completed, the whole ones after it, the bytes of the
    /// one it cuts off in turn; and refuses what is not UTF-8 there.
    #[test]
    fn value_text_cut_decodes_every_split() {
        let text = "x é\"世\\\t😀z東";
        let bytes = text.as_bytes();
        let boundary_at_or_before = |i: usize| (0..=i).rev().find(|&b| text.is_char_boundary(b));
        for i in 0..=bytes.len() {
            let start = boundary_at_or_before(i).unwrap_or(0);
            for j in i..=bytes.len() {
                let (held, chunk) = (&bytes[start..i], &bytes[i..j]);
                let cut = value_text_cut(held, chunk).expect("UTF-8 split anywhere");
                // What the chunks up to `j` make whole, from `start` on.
                let end = boundary_at_or_before(j).unwrap_or(0).max(start);
                let whole = &text[start..end];
                let completed = (!held.is_empty()).then(|| whole.chars().next()).flatten();
                // The text after the completed character (none if the
                // chunk did not complete it).
                let from = start + completed.map_or(0, char::len_utf8);
                let from = if held.is_empty() || completed.is_some() {
                    from
                } else {
                    end
                };
                assert_eq!(cut.completed, completed, "{held:x?} {chunk:x?}");
                assert_eq!(cut.text, &text[from..end], "{held:x?} {chunk:x?}");
                assert_eq!(usize::from(cut.tail), j - end, "{held:x?} {chunk:x?}");
                let text_at = from.saturating_sub(i);
                assert_eq!(usize::from(cut.text_at), text_at, "{held:x?} {chunk:x?}");
                let escaped = chunk.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
                assert_eq!(cut.escaped, escaped, "{held:x?} {chunk:x?}");
            }
        }
        for (held, chunk) in [
            (&b"\xE4"[..], &b"A"[..]),
            (b"\xE4\xB8", b"\xE4"),
            (b"A", b"b"),
            (b"\x80", b"\x80"),
            (b"", b"\xFF"),
            (b"\xE4", b"\xB8\x96<"),
            (b"", b"\xE4\xB8\x96\n"),
        ] {
            assert_eq!(value_text_cut(held, chunk), None, "{held:x?} {chunk:x?}");
        }
    }

    /// With nothing of a tag in hand, the shortcut waits as long as the
    /// pattern-by-pattern rules do, for every set the automata use and
    /// for an empty literal (a bare call's open tag).
    #[test]
    fn waits_with_nothing_in_hand_follow_the_rules() {
        let sets: [&[Pat]; 5] = [
            &[],
            &[
                Pat::Lit(b"</parameter>"),
                Pat::Open(b"<parameter="),
                Pat::Lit(b"</function>"),
            ],
            &[Pat::Lit(b"</tool_call>"), Pat::Open(b"<function=")],
            &[Pat::Open(b"")],
            &[Pat::Lit(b"</f>"), Pat::Lit(b"")],
        ];
        for pats in sets {
            for (body, at) in [(&b""[..], 0), (b"x\n", 2), (b"abc", 5)] {
                assert_eq!(
                    need_until(body, at, pats),
                    need_until_in_play(body, at, pats),
                    "{pats:?} at {at}"
                );
            }
        }
    }

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
            (w.until, w.close)
        };
        // `</f` can only complete as `</function>` (11 bytes from 2).
        assert_eq!(wait(b"\n\n</f", 2), (13, false));
        // `<` may still be either: the shorter one decides.
        assert_eq!(wait(b"\n<", 1), (12, false));
        // `<parameter=` is there but not its `>`: the next byte that can
        // end the attribute decides, or the window filling up.
        assert_eq!(wait(b"<parameter=ci", 0), (11 + MAX_TAG, true));
        // The one tag in play an open tag, its literal partly here: the
        // rest of the literal, then the attribute's end.
        let w = need_until(b"\n<par", 1, &pats);
        assert_eq!((w.until, w.close), (12 + MAX_TAG, true));
        let holds = |len, bytes: &[u8]| w.clone().holds(len, bytes);
        assert!(holds(9, b"amet"));
        assert!(holds(13, b"er=c"));
        assert!(!holds(9, b"anet"));
        assert!(!holds(14, b"er=\n"));
        assert!(!holds(13, b"er>c"));
        // An open tag's literal next to a literal tag still in play: the
        // next byte may decide.
        let mixed = [Pat::Open(b"<a="), Pat::Lit(b"<a=b>")];
        let w = need_until(b"<a=", 0, &mixed);
        assert_eq!((w.until, w.close), (4, false));
    }

    /// A wait ends at the first byte that the first tag in play does not
    /// go on with: at the latest where no tag can begin any more.
    #[test]
    fn a_wait_follows_the_first_tag_in_play() {
        let pats = [Pat::Lit(b"</function>"), Pat::Open(b"<parameter=")];
        // `held` in hand from body index 2, then `bytes`, chunk by chunk.
        let goes_on = |held: &[u8], chunks: &[&[u8]]| {
            let mut body = [b"a ", held].concat();
            let mut wait = need_until(&body, 2, &pats);
            chunks.iter().all(|bytes| {
                body.extend_from_slice(bytes);
                wait.holds(body.len(), bytes)
            })
        };
        assert!(goes_on(b"<", &[b"/"]));
        assert!(goes_on(b"<", &[b"/fu", b"nc"]));
        assert!(!goes_on(b"<", &[b" "]));
        assert!(!goes_on(b"<", &[b"/fx"]));
        assert!(!goes_on(b"</", &[b"div>"]));
        assert!(!goes_on(b"</f", &[b"unctiox"]));
        assert!(!goes_on(b"<", &[b"/", b"a"]));
        // The bytes leave the first tag for the next one in play: the
        // wait follows that one, and ends where it is left too.
        assert!(goes_on(b"<", &[b"p"]));
        assert!(goes_on(b"<", &[b"p", b"ar"]));
        assert!(!goes_on(b"<", &[b"p", b"x"]));
        assert!(goes_on(b"<p", &[b"ar"]));
        let three = [Pat::Lit(b"</a>"), Pat::Lit(b"<b>"), Pat::Lit(b"<c>")];
        let mut wait = need_until(b"<", 0, &three);
        assert!(!wait.holds(2, b"c"), "only the next one is followed");
        // Nothing of a tag in hand: whitespace may come first.
        assert!(goes_on(b"", &[b"\n", b" </f"]));
        assert!(goes_on(b"", &[b"\n</", b"fun"]));
        assert!(!goes_on(b"", &[b"\n", b"x"]));
        assert!(!goes_on(b"", &[b"\n<", b" "]));
        // The same bytes given again answer the same, and the next ones
        // are followed on from them.
        let again = [
            (&b"a <"[..], &b"/f"[..], &b"u"[..], true),
            (b"a ", b"\n\n<", b"/x", false),
        ];
        for (held, bytes, next, holds) in again {
            let mut body = held.to_vec();
            let mut wait = need_until(&body, 2, &pats);
            body.extend_from_slice(bytes);
            assert!(wait.holds(body.len(), bytes));
            assert!(wait.holds(body.len(), bytes));
            body.extend_from_slice(next);
            assert_eq!(wait.holds(body.len(), next), holds);
        }
    }

    /// The patterns a parameter or the function's close follow.
    const PARAMS: [Pat; 3] = [
        Pat::Open(b"<parameter="),
        Pat::Lit(b"</function>"),
        Pat::Lit(b"</tool_call>"),
    ];

    /// With nothing of a tag in hand, whitespace may come first: a wait
    /// holds while the tag after it may still be one, and ends by the
    /// byte that decides it.
    #[test]
    fn a_wait_with_nothing_in_hand_follows_the_tag_after_whitespace() {
        let tags: [&[u8]; 8] = [
            b"<parameter=city>",
            b"</function>",
            b"</tool_call>",
            b"</tool_ca>",
            b"<parameter=ci\nty>",
            b"<pa x",
            b"x",
            b"</parameter>",
        ];
        for ws in ["", "\n", " \n\t "] {
            for tag in tags {
                let full = [ws.as_bytes(), tag].concat();
                let mut wait = need_until(b"", 0, &PARAMS);
                let stop = (1..=full.len()).find(|&len| !wait.holds(len, &full[len - 1..len]));
                let decided = (ws.len() + 1..=full.len()).find(|&len| {
                    !matches!(tag_at(&full[..len], ws.len(), &PARAMS), Tag::Need { .. })
                });
                match (stop, decided) {
                    (Some(stop), Some(decided)) => {
                        assert!(stop <= decided, "{full:?}: {stop} > {decided}")
                    }
                    (None, Some(decided)) => panic!("{full:?}: still waits, decided at {decided}"),
                    (_, None) => {}
                }
            }
        }
    }

    /// Waiting changes no verdict: no tag is found while a wait holds, and a
    /// miss seen during it is still a miss where it ends, seen soon.
    #[test]
    fn attribute_text_is_trimmed_as_str_trim_does() {
        let mut out = String::new();
        for (raw, want) in [
            (&b" city "[..], "city"),
            (b"\x0bcity\x0b", "city"),
            (b"\xc2\xa0city", "city"),
            (b" \"a b\" ", "a b"),
        ] {
            attr_text_into(raw, &mut out);
            assert_eq!(out, want, "{raw:?}");
        }
    }

    #[test]
    fn the_common_case_answers_as_the_general_one() {
        let sets: [&[Pat]; 3] = [
            &[Pat::Lit(b"</function>"), Pat::Open(b"<parameter=")],
            &[Pat::Open(b"<function=")],
            &PARAMS,
        ];
        let tags: [&[u8]; 7] = [
            b"</function>",
            b"<parameter=city>",
            b"<parameter=ci\nty>",
            b"<parameter=a<b>",
            b"<function=get_weather>",
            b"<functio\n",
            b"<parax=1>",
        ];
        for pats in sets {
            for tag in tags {
                for cut in 1..tag.len() {
                    let mut wait = need_until(&tag[..cut], 0, pats);
                    // Byte by byte, then the rest at once, from each point.
                    for len in cut + 1..=tag.len() {
                        let rest = &tag[len - 1..];
                        let (mut fast, mut general) = (wait, wait);
                        let end = tag.len();
                        if len - 1 < wait.until {
                            assert_eq!(
                                fast.holds_within(end, rest),
                                general.holds_in_general(end, rest),
                                "{tag:?} cut at {cut}, rest from {}",
                                len - 1
                            );
                            assert_eq!(fast, general);
                        }
                        if !wait.holds(len, &tag[len - 1..len]) {
                            break;
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn waiting_changes_no_verdict() {
        let long_attr = format!("<parameter={}>", "x".repeat(MAX_TAG + 3));
        let sets: [&[Pat]; 5] = [
            &[Pat::Lit(b"</function>"), Pat::Open(b"<parameter=")],
            &[Pat::Open(b"<a="), Pat::Lit(b"<a=b>")],
            &[Pat::Open(b"<function=")],
            &PARAMS,
            &[Pat::Lit(b"</p>"), Pat::Lit(b"</parameter>")],
        ];
        let tags: [&[u8]; 16] = [
            b"</function>",
            b"</tool_call>",
            b"</tool_ca>",
            b"</parameter>",
            b"<parameter=city>",
            b"<parax=1>",
            b"<parax=1234567890>",
            b"<parameter>",
            b"<function=get_weather>",
            b"<functio\n",
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
                    // The rest in one chunk, or byte by byte (which may
                    // follow the next tag in play where one chunk ends
                    // the wait): either stops by the first byte that
                    // decides, and no sooner than a run would find one.
                    let mut bytewise = wait;
                    let stops = [
                        (cut + 1..=tag.len()).find(|&len| !wait.clone().holds(len, &tag[cut..len])),
                        (cut + 1..=tag.len()).find(|&len| !bytewise.holds(len, &tag[len - 1..len])),
                    ];
                    let decided = (cut + 1..=tag.len())
                        .find(|&len| !matches!(tag_at(&tag[..len], 0, pats), Tag::Need { .. }));
                    for stop in stops {
                        match (stop, decided) {
                            (Some(stop), Some(decided)) => {
                                assert!(stop <= decided, "{tag:?} cut at {cut}: {stop} > {decided}")
                            }
                            (None, Some(decided)) => {
                                panic!("{tag:?} cut at {cut}: still waits, decided at {decided}")
                            }
                            (_, None) => {}
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn newline_stripping_takes_one_each_side() {
        assert_eq!(strip_one_newline("\n\nx\n\n"), "\nx\n");
        assert_eq!(strip_one_newline("\r\nx\r\n"), "x");
        assert_eq!(strip_one_newline("x"), "x");
    }

    #[test]
    fn entities() {
        assert_eq!(
            decode_entities("a &lt;b&gt; &amp;&amp; &#65;&#x42; &bogus; &"),
            "a <b> && AB &bogus; &"
        );
        // Regression: a multibyte char within the entity window.
        assert_eq!(decode_entities("&amp;é:I=\né"), "&é:I=\né");
        assert_eq!(decode_entities("&éééééééé;"), "&éééééééé;");
    }

    #[test]
    fn nested_children() {
        let kids = children("<a>1</a>\n<b><c>x</c></b><a/>", 8).unwrap();
        assert_eq!(
            kids,
            [
                ("a".into(), "1".into()),
                ("b".into(), "<c>x</c>".into()),
                ("a".into(), String::new())
            ]
        );
        assert!(children("text <a>1</a>", 8).is_none());
    }

    #[test]
    fn held_runs_are_lent_from_static_strings() {
        for b in 0..=127u8 {
            let one = char::from(b).to_string();
            assert_eq!(lend_static(&one, b"</parameter>"), Some(one.as_str()));
        }
        assert_eq!(lend_static("</par", b"</parameter>"), Some("</par"));
        assert_eq!(lend_static("</pax", b"</parameter>"), None);
        assert_eq!(lend_static("é", b"</parameter>"), None);
        // A prefix that ends inside a character of the tag is not text.
        assert_eq!(
            lend_static("<\u{ff5c}", "<\u{ff5c}DSML".as_bytes()),
            Some("<\u{ff5c}")
        );
        assert_eq!(lend_static("</parameter>x", b"</parameter>"), None);
    }
}
