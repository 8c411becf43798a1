//! Finding start markers in text, across chunk boundaries.
//!
//! A [`MarkerSet`] is built once per parser. Outside a call the engine asks it
//! for the first place in a chunk where a marker starts ([`Found::Marker`]),
//! or where the chunk ends with what may still become one
//! ([`Found::Partial`]); only those few bytes are held back.

use std::borrow::Cow;

use super::same_bytes;

/// Why a set of markers (start markers, delimiters, reasoning tags) cannot
/// be used. Small and `Copy`; its `Display` is a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MarkerError {
    /// A marker is empty.
    #[error("a marker is empty")]
    Empty,
    /// One marker (with its boundary byte) is a proper prefix of another:
    /// the held-back bytes could then hold more than the shorter marker,
    /// and the answer would depend on where a chunk ended.
    #[error("one marker is a prefix of another")]
    PrefixOfAnother,
    /// The custom start marker is empty.
    #[error("the start marker must not be empty")]
    EmptyStart,
    /// A reasoning tag is empty.
    #[error("the reasoning tags must not be empty")]
    EmptyReasoningTag,
    /// A reasoning tag is a prefix of a call marker, or the other way
    /// round.
    #[error("a reasoning tag is a prefix of a call marker, or the other way round")]
    ReasoningTagClash,
    /// Custom delimiters were given to a format that is not a JSON one.
    #[error("only the JSON formats take custom delimiters")]
    DelimitersNotTaken,
    /// [`ParserBuilder::bare_call_at_start`](crate::ParserBuilder::bare_call_at_start)
    /// for a format that cannot read a call without its marker.
    #[error(
        "only the JSON formats, pythonic and harmony read a call at the start without its marker"
    )]
    NoBareCall,
    /// `morph-xml`'s markers are its tool names: none can be given.
    #[error("morph-xml markers are the tool names")]
    MarkersAreToolNames,
    /// The format only renders prompts; it reads no calls.
    #[error("this format has no reader")]
    NoReader,
}

/// What must follow a marker for it to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Boundary {
    /// Nothing: the marker alone counts.
    None,
    /// JSON whitespace (a fence line break, `"```tool_call\n"`).
    Whitespace,
    /// The end of an XML tag name: `>`, `/` or whitespace.
    TagNameEnd,
}

impl Boundary {
    #[inline]
    pub(crate) fn accepts(self, b: u8) -> bool {
        match self {
            Boundary::None => true,
            Boundary::Whitespace => super::is_ws(b),
            Boundary::TagNameEnd => b == b'>' || b == b'/' || super::is_ws(b),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Marker {
    /// Borrowed for the built-in markers, so that held-back bytes released
    /// as text can borrow from it instead of allocating.
    pub(crate) bytes: Cow<'static, [u8]>,
    pub(crate) boundary: Boundary,
}

impl Marker {
    /// Bytes that must be seen before the marker can be decided.
    fn window(&self) -> usize {
        self.bytes.len() + usize::from(self.boundary != Boundary::None)
    }
}

/// How a marker compares with the bytes at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Full,
    Prefix,
    Mismatch,
}

/// Result of [`MarkerSet::find`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// Marker `index` starts at `at`.
    Marker { at: usize, index: usize },
    /// The bytes from `at` to the end may still become a marker.
    Partial { at: usize },
    /// No marker starts in these bytes.
    None,
}

impl Found {
    /// The same result for a hay that starts `by` bytes earlier.
    fn shifted(self, by: usize) -> Found {
        match self {
            Found::Marker { at, index } => Found::Marker { at: by + at, index },
            Found::Partial { at } => Found::Partial { at: by + at },
            Found::None => Found::None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct MarkerSet {
    markers: Vec<Marker>,
    /// Distinct first bytes, for memchr.
    firsts: Vec<u8>,
    first_table: [bool; 256],
    /// Bytes that may follow a first byte (any marker's second byte): a
    /// cheap filter before the full comparison, since a `<` in prose is
    /// rarely followed by one.
    second_table: [bool; 256],
    /// [`SMALL_MARKER`] for marker first bytes, [`SMALL_NON_ASCII`] for
    /// bytes ≥ 0x80: what the small-chunk fast path must know.
    small_table: [u8; 256],
    longest: usize,
    /// Whether every marker is two bytes or more: a first byte alone is
    /// then never a whole marker.
    no_one_byte_marker: bool,
    /// For a set of a few markers (every format but morph-xml): substring
    /// searchers, which skip the first byte's frequent false hits (`<` in
    /// prose) with a SIMD prefilter on rarer bytes — one per marker, or one
    /// per group of markers that share a rare enough part (see
    /// [`search_groups`]): one pass per group instead of one per marker.
    finders: Vec<memchr::memmem::Finder<'static>>,
    /// For each searcher, the markers it finds and where its needle stands
    /// in each.
    groups: Vec<Group>,
    /// One byte of each searcher's needle, rare in prose, looked for in one
    /// memchr pass before the searchers (see [`RareBytes`]).
    rare: Option<RareBytes>,
}

/// A byte of each marker that prose seldom holds (`_` of `<tool_call>`,
/// `=` of `<function=`): one memchr pass for them finds every marker where
/// a memmem pass per marker would cost two or three passes, and runs
/// faster than memmem's own prefilter, which looks for bytes rare in code
/// (`<`, `>`). Where they are not rare (code), the search goes on with the
/// memmem passes (or, for more markers than searchers, the first bytes).
#[derive(Debug, Clone)]
struct RareBytes {
    /// One to three distinct bytes.
    bytes: Vec<u8>,
    /// Where they stand in the markers.
    offsets: Group,
    /// Where each of `bytes` stands: a hit is a marker start only there.
    by_byte: Vec<Group>,
    /// Whether a byte is one of `bytes`.
    table: [bool; 256],
}

impl RareBytes {
    /// The rare bytes of `needles` (each standing in its markers at its
    /// group's offsets), if each has one and there are at most three.
    fn pick(needles: &[(Vec<u8>, Group)]) -> Option<RareBytes> {
        let mut bytes = Vec::new();
        let mut by_byte: Vec<Vec<usize>> = Vec::new();
        for (needle, group) in needles {
            let (at, &byte) =
                (needle.iter().enumerate()).min_by_key(|&(_, &b)| commonness_in_prose(b))?;
            if commonness_in_prose(byte) > RARE_IN_PROSE {
                return None;
            }
            let k = match bytes.iter().position(|&b| b == byte) {
                Some(k) => k,
                None => {
                    bytes.push(byte);
                    by_byte.push(Vec::new());
                    bytes.len() - 1
                }
            };
            by_byte[k].extend(group.offsets.iter().map(|o| o + at));
        }
        let mut table = [false; 256];
        for &b in &bytes {
            table[usize::from(b)] = true;
        }
        (bytes.len() <= 3).then(|| RareBytes {
            bytes,
            offsets: Group::new(by_byte.concat()),
            by_byte: by_byte.into_iter().map(Group::new).collect(),
            table,
        })
    }

    /// The first of the bytes in `hay`. A few bytes (the rest of a marker
    /// already found) are looked at one by one: memchr's set-up costs more.
    #[inline]
    fn find(&self, hay: &[u8]) -> Option<usize> {
        if hay.len() < 16 {
            return hay.iter().position(|&b| self.table[usize::from(b)]);
        }
        match *self.bytes {
            [a] => memchr::memchr(a, hay),
            [a, b] => memchr::memchr2(a, b, hay),
            [a, b, c] => memchr::memchr3(a, b, c, hay),
            _ => None,
        }
    }

    /// Where the byte `b`, one of [`bytes`](Self::bytes), stands in the
    /// markers.
    #[inline]
    fn offsets_of(&self, b: u8) -> &[usize] {
        match self.bytes.iter().position(|&x| x == b) {
            Some(k) => &self.by_byte[k].offsets,
            None => &[],
        }
    }
}

/// The most common a [`RareBytes`] byte may be: a symbol of Markdown
/// (`[` of `functools[`) when a marker holds nothing rarer. Where
/// Markdown writes them densely (links, lists), the search gives way to
/// the markers' searchers after a few false hits.
const RARE_IN_PROSE: u8 = 2;

/// How common `b` is in prose, Markdown included: 0 for control bytes,
/// 1 for symbols that prose seldom writes and for `0xEF`, which begins
/// U+F000 to U+FFFF (fullwidth forms, which only CJK prose writes: there
/// the search falls back to memmem), 2 for Markdown's symbols, 3 for
/// markup's (`<` begins most markers and is common in text, code and
/// HTML), the backtick (code fences hold three in a row) and other
/// non-ASCII bytes (other scripts), 4 for letters, digits, white space
/// and sentence punctuation.
fn commonness_in_prose(b: u8) -> u8 {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b' ' | b'\n' | b'\t' => 4,
        b'.' | b',' | b';' | b':' | b'!' | b'?' | b'\'' | b'"' | b'(' | b')' | b'-' => 4,
        0xEF => 1,
        b'<' | b'>' | b'/' | b'`' | 0x80.. => 3,
        b'*' | b'#' | b'[' | b']' | b'\r' => 2,
        0..=0x1f | 0x7f => 0,
        _ => 1,
    }
}

/// Where a searcher's needle stands in the markers it finds: the distinct
/// offsets, ascending (`[0]` for a shared prefix). A hit at `p` may be a
/// marker starting at `p - offset` for each.
#[derive(Debug, Clone)]
struct Group {
    offsets: Vec<usize>,
}

impl Group {
    fn new(mut offsets: Vec<usize>) -> Group {
        offsets.sort_unstable();
        offsets.dedup();
        Group { offsets }
    }

    fn min_offset(&self) -> usize {
        self.offsets.first().copied().unwrap_or(0)
    }

    fn max_offset(&self) -> usize {
        self.offsets.last().copied().unwrap_or(0)
    }
}

/// The shortest prefix shared by markers that one searcher looks for
/// instead of each marker, unless it holds a byte rare in text.
const MIN_SHARED_PREFIX: usize = 4;

/// A needle rare enough in text that one searcher for it beats a searcher
/// per marker: [`MIN_SHARED_PREFIX`] bytes, or at least two with one that
/// prose seldom holds (the `|` of `<|`, unlike the `/` of `</`).
fn rare_enough(needle: &[u8]) -> bool {
    let rare_byte = |b: &u8| b.is_ascii_punctuation() && !b"\"'()*,-./:;<>?[]_`{}!#=&+".contains(b);
    needle.len() >= MIN_SHARED_PREFIX || (needle.len() >= 2 && needle.iter().any(rare_byte))
}

/// The needles of the searchers that together find every marker, each
/// with where it stands in the markers it finds. Markers that share a
/// prefix of at least [`MIN_SHARED_PREFIX`] bytes go together
/// (`<｜DSML｜invoke name=` and `<｜DSML｜tool_calls>`), searched for by
/// that prefix; the others alone, by their own bytes. When that leaves
/// several needles, a part that all markers hold and that is
/// [`rare_enough`] makes one: the `<|` of gpt-oss's six header tokens, the
/// `tool_call` of `<|tool_call|>` and `<tool_call>`.
fn search_groups(markers: &[Marker]) -> Vec<(Vec<u8>, Group)> {
    let mut needles: Vec<Vec<u8>> = Vec::new();
    for marker in markers {
        let bytes = &marker.bytes[..];
        let common = |needle: &[u8]| needle.iter().zip(bytes).take_while(|(a, b)| a == b).count();
        match needles
            .iter_mut()
            .find(|needle| common(needle) >= MIN_SHARED_PREFIX)
        {
            Some(needle) => needle.truncate(common(needle)),
            None => needles.push(bytes.to_vec()),
        }
    }
    if needles.len() > 1 {
        if let Some(needle) = shared_part(markers).filter(|n| rare_enough(n)) {
            let finder = memchr::memmem::Finder::new(&needle);
            let offsets = markers
                .iter()
                .filter_map(|m| finder.find(&m.bytes))
                .collect();
            return vec![(needle, Group::new(offsets))];
        }
    }
    needles
        .into_iter()
        .map(|needle| (needle, Group::new(vec![0])))
        .collect()
}

/// The longest run of bytes that every marker holds (the first such run
/// of the shortest marker), if there are a few markers.
fn shared_part(markers: &[Marker]) -> Option<Vec<u8>> {
    // Above this, the set takes the memchr path anyway.
    const MAX_MARKERS: usize = 8;
    if markers.len() > MAX_MARKERS {
        return None;
    }
    let shortest = markers
        .iter()
        .map(|m| &m.bytes[..])
        .min_by_key(|b| b.len())?;
    (1..=shortest.len()).rev().find_map(|len| {
        shortest.windows(len).find_map(|part| {
            let everywhere = markers
                .iter()
                .all(|m| m.bytes.windows(len).any(|w| w == part));
            everywhere.then(|| part.to_vec())
        })
    })
}

/// The shortest hay searched with memmem: below it, setting a search up
/// costs more than it saves.
const MIN_MEMMEM_HAY: usize = 64;

/// The shortest hay searched by rare bytes where there are no searchers
/// (more markers than [`MAX_FINDERS`]).
const MIN_RARE_HAY_ALONE: usize = 256;

/// With several searchers, the first bytes of the markers are looked for
/// as long as at most one in this many bytes is a false hit (a memchr
/// restart costs about as much as searching this many bytes with memmem).
const SPARSE_HITS: usize = 256;

/// Most searchers (one memmem pass each) for a set of markers; larger sets
/// (one marker per tool) take the memchr path.
const MAX_FINDERS: usize = 3;

/// Per marker, the stream offsets where it is known not to start: the last
/// stretch a memmem search went through in vain. A call attempt that fails
/// hands its bytes back to be searched again, and markers that do not occur
/// would otherwise be searched for up to the end of a long chunk after every
/// attempt (quadratic time); with this, every stream byte is searched once
/// per marker, give or take a marker's length.
#[derive(Debug, Clone, Default)]
pub(crate) struct Misses {
    /// Half-open ranges of stream offsets.
    ranges: [(u64, u64); MAX_FINDERS],
}

impl Misses {
    /// Forgets everything (a new stream reuses offsets).
    pub(crate) fn clear(&mut self) {
        *self = Misses::default();
    }

    /// Where in a hay that starts at stream offset `base` marker `index`
    /// may first start.
    #[inline]
    fn skip(&self, index: usize, base: u64) -> usize {
        match self.ranges.get(index) {
            Some(&(lo, hi)) if lo <= base && base < hi => {
                usize::try_from(hi - base).unwrap_or(usize::MAX)
            }
            _ => 0,
        }
    }

    /// Records that marker `index` starts nowhere in `from..to` of a hay at
    /// stream offset `base`; kept if it reaches further than what is known.
    #[inline]
    fn note(&mut self, index: usize, base: u64, (from, to): (usize, usize)) {
        let Some(range) = self.ranges.get_mut(index) else {
            return;
        };
        let (lo, hi) = (base + from as u64, base + to as u64);
        if hi <= range.1 && lo >= range.0 {
            return;
        }
        if lo <= range.1 && lo >= range.0 {
            range.1 = range.1.max(hi);
        } else if hi > lo {
            *range = (lo, hi);
        }
    }
}

impl MarkerSet {
    /// Builds the set.
    ///
    /// # Errors
    ///
    /// When a marker is empty, or when one marker (with its boundary byte)
    /// is a proper prefix of another: the held-back bytes could then hold
    /// more than the shorter marker, and the answer would depend on where a
    /// chunk ended.
    pub(crate) fn new(markers: Vec<Marker>) -> Result<MarkerSet, MarkerError> {
        for a in &markers {
            if a.bytes.is_empty() {
                return Err(MarkerError::Empty);
            }
            for b in &markers {
                let shadows = b.bytes.len() < a.bytes.len()
                    && a.bytes.starts_with(&b.bytes)
                    && b.boundary.accepts(a.bytes[b.bytes.len()]);
                if shadows {
                    return Err(MarkerError::PrefixOfAnother);
                }
            }
        }
        let mut first_table = [false; 256];
        let mut firsts = Vec::new();
        for m in &markers {
            let b = m.bytes[0];
            if !first_table[b as usize] {
                first_table[b as usize] = true;
                firsts.push(b);
            }
        }
        let longest = markers.iter().map(Marker::window).max().unwrap_or(0);
        let mut second_table = [false; 256];
        for m in &markers {
            match m.bytes.get(1) {
                Some(&b) => second_table[b as usize] = true,
                // A one-byte marker: anything may follow.
                None => second_table = [true; 256],
            }
        }
        let groups = search_groups(&markers);
        let memmem = groups.len() <= MAX_FINDERS && markers.iter().all(|m| m.bytes.len() >= 2);
        // Also where there are too many searchers (a marker per tool): the
        // one pass then gives way to the first bytes.
        let rare = RareBytes::pick(&groups);
        let (finders, groups) = if memmem {
            let finders = groups
                .iter()
                .map(|(needle, _)| memchr::memmem::Finder::new(needle).into_owned())
                .collect();
            (
                finders,
                groups.into_iter().map(|(_, group)| group).collect(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let no_one_byte_marker = markers.iter().all(|m| m.bytes.len() >= 2);
        Ok(MarkerSet {
            finders,
            groups,
            rare,
            markers,
            firsts,
            small_table: small_table(&first_table),
            first_table,
            second_table,
            longest,
            no_one_byte_marker,
        })
    }

    /// A set that finds nothing: all input is text.
    #[cfg_attr(not(feature = "middleware"), allow(dead_code))]
    pub(crate) fn empty() -> MarkerSet {
        MarkerSet {
            markers: Vec::new(),
            firsts: Vec::new(),
            first_table: [false; 256],
            second_table: [false; 256],
            small_table: small_table(&[false; 256]),
            longest: 0,
            no_one_byte_marker: true,
            finders: Vec::new(),
            groups: Vec::new(),
            rare: None,
        }
    }

    /// What a small chunk holds, by one table pass over it.
    #[allow(unsafe_code)]
    #[inline]
    pub(crate) fn classify_small<'c>(&self, hay: &'c [u8]) -> Small<'c> {
        let class = super::class_union(&self.small_table, hay);
        if class & SMALL_MARKER != 0 && !self.no_marker_starts_in(hay) {
            Small::MayStartMarker
        } else if class & SMALL_NON_ASCII == 0 {
            // SAFETY: `small_table` (the only maker of `self.small_table`)
            // sets `SMALL_NON_ASCII` for every byte from 0x80 up: a class
            // without it means every byte of `hay` is ASCII.
            Small::PlainAscii(unsafe { super::utf8::ascii_str_unchecked(hay) })
        } else {
            Small::Text
        }
    }

    /// Whether the byte after each marker first byte in `hay` is there
    /// and begins no marker's second byte (`a < b`, `<b>`): then no marker
    /// starts in `hay`, and nothing needs to be held. Out of line: few
    /// chunks of prose hold a first byte.
    #[inline(never)]
    fn no_marker_starts_in(&self, hay: &[u8]) -> bool {
        hay.iter().enumerate().all(|(at, &b)| {
            !self.first_table[b as usize]
                || hay
                    .get(at + 1)
                    .is_some_and(|&next| !self.second_table[next as usize])
        })
    }

    /// Whether the last byte of `hay` is the only one that may start a
    /// marker (`a <`): every other first byte is followed, in `hay`, by a
    /// byte that begins no marker's second. Then the text before it is
    /// text, and only that byte is held.
    #[inline(never)]
    pub(crate) fn only_last_may_start(&self, hay: &[u8]) -> bool {
        let Some((&last, before)) = hay.split_last() else {
            return false;
        };
        self.no_one_byte_marker
            && self.first_table[last as usize]
            && before.iter().enumerate().all(|(at, &b)| {
                !self.first_table[b as usize] || !self.second_table[hay[at + 1] as usize]
            })
    }

    /// Where `hay` ends inside a marker that begins in it (`\n<to`), if
    /// no marker can begin before: every marker first byte before that
    /// position is followed by a byte that begins no marker's second, as
    /// in [`only_last_may_start`](Self::only_last_may_start). The text
    /// before it is then text, and the rest is held (what scanning the
    /// chunk finds, at a few comparisons a marker).
    #[inline(never)]
    pub(crate) fn held_tail_at(&self, hay: &[u8]) -> Option<usize> {
        if !self.no_one_byte_marker {
            return None;
        }
        let at = hay.iter().enumerate().position(|(at, &b)| {
            self.first_table[b as usize]
                && hay
                    .get(at + 1)
                    .is_none_or(|&next| self.second_table[next as usize])
        })?;
        self.continues_held(&[], &hay[at..]).then_some(at)
    }

    /// `held`, one byte that may start a marker, as the text it is when
    /// `next` (the bytes after it) begins with a byte that no marker has
    /// second; `None` when a marker may still follow, or the byte is
    /// neither ASCII nor a built-in marker's (it is then released the
    /// general way).
    #[inline]
    pub(crate) fn refuted_first_byte(&self, held: &[u8], next: &[u8]) -> Option<&'static [u8]> {
        match (held, next.first()) {
            ([first], Some(&b))
                if self.first_table[*first as usize] && !self.second_table[b as usize] =>
            {
                // An ASCII byte (`<`, `[`) without the search of the markers.
                match ASCII.get(usize::from(*first)) {
                    Some(byte) => Some(std::slice::from_ref(byte)),
                    None => self.static_prefix(held),
                }
            }
            _ => None,
        }
    }

    pub(crate) fn marker(&self, index: usize) -> &Marker {
        &self.markers[index]
    }

    /// The most bytes ever held back outside a call.
    pub(crate) fn longest(&self) -> usize {
        self.longest
    }

    /// Next position at or after `from` holding a byte that starts a marker.
    #[inline]
    fn next_candidate(&self, hay: &[u8]) -> Option<usize> {
        // Tokens are short: below this a table loop beats memchr's setup.
        if hay.len() < 16 {
            return hay.iter().position(|&b| self.first_table[b as usize]);
        }
        match *self.firsts.as_slice() {
            [] => None,
            [a] => memchr::memchr(a, hay),
            [a, b] => memchr::memchr2(a, b, hay),
            [a, b, c] => memchr::memchr3(a, b, c, hay),
            _ => hay.iter().position(|&b| self.first_table[b as usize]),
        }
    }

    /// Compares every marker with `head ++ tail` at its start.
    fn check_all(&self, head: &[u8], tail: &[u8]) -> Result<usize, Check> {
        let mut partial = false;
        for (index, marker) in self.markers.iter().enumerate() {
            // Held bytes and a new chunk: the chunk's first byte rules out
            // most markers at once (several share their held prefix).
            if let (Some(&b), Some(&m)) = (tail.first(), marker.bytes.get(head.len())) {
                if b != m {
                    continue;
                }
            }
            match check(marker, head, tail) {
                Check::Full => {
                    if !partial {
                        return Ok(index);
                    }
                }
                Check::Prefix => partial = true,
                Check::Mismatch => {}
            }
        }
        // A marker that may still match wins over one that already did, so
        // the answer never depends on where the chunk ended.
        Err(if partial {
            Check::Prefix
        } else {
            Check::Mismatch
        })
    }

    /// Finds the first marker in `hay` (which starts at stream offset
    /// `base`), or the partial marker it ends with. `misses` remembers
    /// where markers were already searched for in vain in this stream.
    ///
    /// # Complexity
    ///
    /// One memchr pass plus a comparison of at most `longest` bytes per
    /// candidate byte (a `<` in prose costs one short comparison). With a
    /// few markers, one memmem pass per marker, each over stream bytes not
    /// searched for that marker before (see [`Misses`]).
    #[inline]
    pub(crate) fn find(&self, hay: &[u8], base: u64, misses: &mut Misses) -> Found {
        let long = hay.len() >= MIN_MEMMEM_HAY;
        // Without searchers, the first bytes' one pass has no set-up to
        // amortise: the rare bytes pay where the hay is long.
        let rare_pays = match self.finders.is_empty() {
            true => hay.len() >= MIN_RARE_HAY_ALONE,
            false => long,
        };
        if let Some(rare) = self.rare.as_ref().filter(|_| rare_pays) {
            return self.find_rare(hay, base, misses, rare);
        }
        self.find_plain(hay, base, misses, long && !self.finders.is_empty())
    }

    /// [`find`](Self::find) without the rare bytes: memmem for one
    /// searcher, else the first bytes while they are rare.
    #[inline(always)]
    fn find_plain(&self, hay: &[u8], base: u64, misses: &mut Misses, memmem: bool) -> Found {
        if memmem && self.finders.len() == 1 {
            return self.find_with_memmem(hay, base, misses);
        }
        // Several searchers cost a pass each, the first bytes one pass: they
        // are looked for first, while they are rare in this text.
        let switch = if memmem { SPARSE_HITS } else { 0 };
        // Tokens are short: below 16 bytes a table loop beats memchr's
        // setup. (Each call below has its own iterator type, so that every
        // `find_among` has one call site and is inlined: sharing one
        // costs about 1% more instructions at token-sized chunks.)
        if hay.len() < 16 {
            let candidates = hay
                .iter()
                .enumerate()
                .filter(|&(_, &b)| self.first_table[b as usize])
                .map(|(at, _)| at);
            return self.find_among(hay, candidates, base, misses, switch);
        }
        match *self.firsts.as_slice() {
            [] => Found::None,
            [a] => self.find_among(hay, memchr::memchr_iter(a, hay), base, misses, switch),
            [a, b] => self.find_among(hay, memchr::memchr2_iter(a, b, hay), base, misses, switch),
            [a, b, c] => {
                let candidates = memchr::memchr3_iter(a, b, c, hay);
                self.find_among(hay, candidates, base, misses, switch)
            }
            _ => {
                let candidates = hay
                    .iter()
                    .map(|&b| self.first_table[b as usize])
                    .enumerate()
                    .filter_map(|(at, starts)| starts.then_some(at));
                self.find_among(hay, candidates, base, misses, switch)
            }
        }
    }

    /// [`find`](Self::find) over the `candidates`, the positions of bytes
    /// that start a marker. Once false hits outnumber one in `switch`
    /// bytes (0: never), the rest of the hay goes to memmem.
    #[inline]
    fn find_among(
        &self,
        hay: &[u8],
        candidates: impl Iterator<Item = usize>,
        base: u64,
        misses: &mut Misses,
        switch: usize,
    ) -> Found {
        for (false_hits, at) in candidates.enumerate() {
            let second_fits = hay
                .get(at + 1)
                .is_none_or(|&b| self.second_table[b as usize]);
            if second_fits {
                match self.check_all(&hay[at..], &[]) {
                    Ok(index) => return Found::Marker { at, index },
                    Err(Check::Prefix) => return Found::Partial { at },
                    Err(_) => {}
                }
            }
            let from = at + 1;
            if (false_hits + 1) * switch > from && hay.len() - from >= MIN_MEMMEM_HAY {
                let rest = self.find_with_memmem(&hay[from..], base + from as u64, misses);
                return rest.shifted(from);
            }
        }
        Found::None
    }

    /// [`find`](Self::find) by one pass over the markers' rare bytes: the
    /// same answer. Once false hits outnumber one in [`SPARSE_HITS`] bytes,
    /// the rest of the hay is searched as without them.
    fn find_rare(&self, hay: &[u8], base: u64, misses: &mut Misses, rare: &RareBytes) -> Found {
        let offsets = &rare.offsets;
        let mut first: Option<(usize, usize)> = None;
        let mut from = offsets.min_offset();
        let mut false_hits = 0;
        loop {
            // Only a start before the best so far matters.
            let limit = first.map_or(hay.len(), |(at, _)| {
                (at + offsets.max_offset()).min(hay.len())
            });
            let Some(hit) = hay.get(from..limit).and_then(|h| rare.find(h)) else {
                break;
            };
            let hit = from + hit;
            let before = first;
            let starts = rare.offsets_of(hay[hit]).iter();
            for at in starts.filter_map(|&o| hit.checked_sub(o)) {
                if first.is_none_or(|(best, _)| at < best) {
                    if let Ok(index) = self.check_all(&hay[at..], &[]) {
                        first = Some((at, index));
                    }
                }
            }
            from = hit + 1;
            false_hits += usize::from(first == before);
            if first.is_none()
                && false_hits * SPARSE_HITS > from
                && hay.len() - from >= MIN_MEMMEM_HAY
            {
                // Each start before `start` had its rare byte looked at.
                let start = from.saturating_sub(offsets.max_offset());
                let memmem = hay.len() - start >= MIN_MEMMEM_HAY && !self.finders.is_empty();
                return (self.find_plain(&hay[start..], base + start as u64, misses, memmem))
                    .shifted(start);
            }
        }
        self.first_or_partial(hay, first)
    }

    /// [`find`](Self::find) with one memmem pass per group: the same
    /// answer. The first full match wins; a partial one can only lie in the
    /// last `longest - 1` bytes, and counts if it comes first.
    fn find_with_memmem(&self, hay: &[u8], base: u64, misses: &mut Misses) -> Found {
        let mut first: Option<(usize, usize)> = None;
        for (index, (finder, group)) in self.finders.iter().zip(&self.groups).enumerate() {
            let needle_len = finder.needle().len();
            let first_start = |first: Option<(usize, usize)>| first.map_or(hay.len(), |(at, _)| at);
            // Where this group's markers are known not to start (a call
            // attempt that failed hands its bytes back to be searched again).
            let skip = misses.skip(index, base).min(first_start(first));
            // Needle positions are searched from `from`; the ones before
            // `scanned` held no marker start at or after `skip`.
            let mut from = skip + group.min_offset();
            let mut scanned = from;
            loop {
                // Only a start before the best so far matters.
                let limit = (first_start(first) + group.max_offset()).min(hay.len());
                if from >= limit {
                    scanned = scanned.max(limit);
                    break;
                }
                let end = hay.len().min(limit + needle_len);
                let found = finder.find(&hay[from..end]);
                #[cfg(test)]
                tests::SEARCHED.with(|n| {
                    let upto = found.map_or(end, |rel| from + rel + needle_len);
                    n.set(n.get() + (upto - from));
                });
                let Some(rel) = found else {
                    scanned = (end + 1).saturating_sub(needle_len).max(from);
                    break;
                };
                let hit = from + rel;
                scanned = hit;
                if hit >= limit {
                    break;
                }
                let mut undecided = false;
                for &offset in &group.offsets {
                    let Some(at) = hit.checked_sub(offset) else {
                        continue;
                    };
                    if at < skip || at >= first_start(first) {
                        continue;
                    }
                    match self.check_all(&hay[at..], &[]) {
                        Ok(found) => first = Some((at, found)),
                        // Its bytes run to the end of the hay: a partial
                        // match (found below).
                        Err(Check::Prefix) => undecided = true,
                        Err(_) => {}
                    }
                }
                if undecided {
                    break;
                }
                from = hit + 1;
                scanned = from;
            }
            // A start `at` has its needle in `at + min_offset ..= at +
            // max_offset`: those before `scanned` were all looked at.
            let known = scanned.saturating_sub(group.max_offset());
            let known = known.min(first_start(first));
            if known > skip {
                misses.note(index, base, (skip, known));
            }
        }
        self.first_or_partial(hay, first)
    }

    /// The marker found first, or a partial one before it at the end of
    /// the hay (a partial match can only lie in the last `longest - 1`
    /// bytes).
    fn first_or_partial(&self, hay: &[u8], first: Option<(usize, usize)>) -> Found {
        let limit = first.map_or(hay.len(), |(at, _)| at);
        let mut k = hay.len().saturating_sub(self.longest);
        while k < limit {
            let Some(rel) = self.next_candidate(&hay[k..limit]) else {
                break;
            };
            let at = k + rel;
            if self.check_all(&hay[at..], &[]) == Err(Check::Prefix) {
                return Found::Partial { at };
            }
            k = at + 1;
        }
        match first {
            Some((at, index)) => Found::Marker { at, index },
            None => Found::None,
        }
    }

    /// Decides the bytes `held` (which start with a possible marker) given
    /// the following `tail`: `Ok(index)` when a marker starts at `held[0]`,
    /// `Err(true)` when more bytes are needed, `Err(false)` when none does.
    pub(crate) fn check_held(&self, held: &[u8], tail: &[u8]) -> Result<usize, bool> {
        self.check_all(held, tail).map_err(|c| c == Check::Prefix)
    }

    /// Whether `held ++ tail` (bytes held, then the chunk that follows
    /// them) goes on with a marker without completing it: then
    /// [`check_held`](Self::check_held) answers `Err(true)` (no marker
    /// can be complete there, as none shadows another), and this answers
    /// it at a few comparisons a marker.
    #[inline]
    pub(crate) fn continues_held(&self, held: &[u8], tail: &[u8]) -> bool {
        let (h, n) = (held.len(), tail.len());
        let Some(&first) = tail.first() else {
            return false;
        };
        self.markers.iter().any(|m| {
            let m = &m.bytes[..];
            m.len() > h + n
                && m[h] == first
                && same_bytes(&m[..h], held)
                && same_bytes(&m[h..h + n], tail)
        })
    }

    /// `bytes` as a slice of a built-in marker, if they are a prefix of one:
    /// releasing them as text then needs no allocation.
    pub(crate) fn static_prefix(&self, bytes: &[u8]) -> Option<&'static [u8]> {
        self.markers.iter().find_map(|m| match &m.bytes {
            Cow::Borrowed(s) if s.starts_with(bytes) => Some(&s[..bytes.len()]),
            _ => None,
        })
    }

    /// Position in `held[1..]`+1 of the next byte that may start a marker.
    pub(crate) fn next_start_after_first(&self, held: &[u8]) -> usize {
        held.get(1..)
            .and_then(|rest| self.next_candidate(rest))
            .map_or(held.len(), |p| p + 1)
    }
}

/// Every ASCII byte, each at its own index: a held byte released as text
/// borrows its one-byte slice.
static ASCII: [u8; 128] = {
    let mut bytes = [0; 128];
    let mut b = 0;
    while b < 128 {
        bytes[b] = b as u8;
        b += 1;
    }
    bytes
};

/// A small chunk has a byte that may start a marker.
pub(crate) const SMALL_MARKER: u8 = 1;
/// A small chunk has a byte that is not ASCII.
pub(crate) const SMALL_NON_ASCII: u8 = 2;

/// What [`MarkerSet::classify_small`] found in a small chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Small<'c> {
    /// A byte of it may start a marker.
    MayStartMarker,
    /// Plain ASCII text, which needs no other look.
    PlainAscii(&'c str),
    /// Text with bytes that are not ASCII (to decode).
    Text,
}

fn small_table(first_table: &[bool; 256]) -> [u8; 256] {
    let mut table = [0; 256];
    for (b, class) in table.iter_mut().enumerate() {
        if first_table[b] {
            *class |= SMALL_MARKER;
        }
        if b >= 0x80 {
            *class |= SMALL_NON_ASCII;
        }
    }
    table
}

/// Compares `marker` (and its boundary byte) with `head ++ tail`.
#[inline]
fn check(marker: &Marker, head: &[u8], tail: &[u8]) -> Check {
    let m = &marker.bytes[..];
    let from_head = head.len().min(m.len());
    let from_tail = tail.len().min(m.len() - from_head);
    if !same_bytes(&head[..from_head], &m[..from_head])
        || !same_bytes(&tail[..from_tail], &m[from_head..from_head + from_tail])
    {
        return Check::Mismatch;
    }
    if from_head + from_tail < m.len() {
        return Check::Prefix;
    }
    if marker.boundary == Boundary::None {
        return Check::Full;
    }
    let next = match head.get(m.len()) {
        Some(&b) => Some(b),
        None => tail.get(m.len() - head.len()).copied(),
    };
    match next {
        None => Check::Prefix,
        Some(b) if marker.boundary.accepts(b) => Check::Full,
        Some(_) => Check::Mismatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(markers: &[(&str, Boundary)]) -> MarkerSet {
        MarkerSet::new(
            markers
                .iter()
                .map(|(m, b)| Marker {
                    bytes: Cow::Owned(m.as_bytes().to_vec()),
                    boundary: *b,
                })
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn a_chunk_ending_inside_a_marker_holds_from_where_it_begins() {
        let markers = set(&[("<tool_call>", Boundary::None), ("<think>", Boundary::None)]);
        let cases: [(&[u8], Option<usize>); 8] = [
            (b"\n<to", Some(1)),
            (b"<too", Some(0)),
            (b"<<to", Some(1)),
            (b"a < <th", Some(4)),
            (b"a <b>", None),
            (b"<tool_call>", None),
            (b"x<tox", None),
            (b"<t <x", None),
        ];
        for (hay, want) in cases {
            assert_eq!(markers.held_tail_at(hay), want, "{hay:?}");
        }
        let one_byte = set(&[("[", Boundary::Whitespace), ("<tool_call>", Boundary::None)]);
        assert_eq!(one_byte.held_tail_at(b"\n<to"), None);
    }

    #[test]
    fn held_bytes_that_go_on_with_a_marker_need_more_as_check_held_says() {
        let sets = [
            set(&[("<tool_call>", Boundary::None), ("<think>", Boundary::None)]),
            set(&[
                ("<｜tool▁calls▁begin｜>", Boundary::None),
                ("<｜tool▁call▁begin｜>", Boundary::None),
            ]),
            set(&[
                ("[TOOL_CALLS]", Boundary::None),
                ("[", Boundary::Whitespace),
            ]),
            set(&[
                ("<tool", Boundary::TagNameEnd),
                ("<tool_call>", Boundary::None),
            ]),
        ];
        let tails: [&[u8]; 6] = [b"x", b" ", b">", b"_c", b"all>", b"\xe2\x96"];
        for markers in &sets {
            for m in &markers.markers {
                let m = &m.bytes[..];
                for h in 1..m.len() {
                    // Every way on from `h` bytes held: the marker's own
                    // bytes (to its end and past it) and others.
                    let own = (h + 1..=m.len() + 1).map(|e| &m[h..e.min(m.len())]);
                    for tail in own.chain(tails.iter().copied()) {
                        let held = &m[..h];
                        let goes_on = markers.continues_held(held, tail);
                        if goes_on {
                            assert_eq!(markers.check_held(held, tail), Err(true));
                        }
                        // Inside this marker: the fast answer is there.
                        if h + tail.len() < m.len() && m[h..].starts_with(tail) {
                            assert!(goes_on, "{held:?} then {tail:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn memmem_path_agrees_with_the_byte_path() {
        let sets: [&[(&str, Boundary)]; 9] = [
            &[("<tool_call>", Boundary::None)],
            // Rare bytes of a non-ASCII marker (0xEF) and an ASCII one.
            &[
                ("<｜DSML｜tool_calls>", Boundary::None),
                ("<function_calls>", Boundary::None),
            ],
            &[("```tool_call", Boundary::Whitespace)],
            &[
                ("<tool_call>", Boundary::None),
                ("<function=", Boundary::None),
            ],
            &[
                ("```tool_call", Boundary::Whitespace),
                ("<tool_call>", Boundary::None),
                ("<fn", Boundary::TagNameEnd),
            ],
            // A shared prefix: one searcher for both.
            &[
                ("<|tool_calls_section_begin|>", Boundary::None),
                ("<|tool_call_begin|>", Boundary::None),
            ],
            // A shared part at different offsets: one searcher for both.
            &[
                ("<|tool_call|>", Boundary::None),
                ("<tool_call>", Boundary::None),
            ],
            // A shared rare prefix: one searcher for all.
            &[
                ("<|start|>", Boundary::None),
                ("<|channel|>commentary", Boundary::None),
                ("<|channel|>final", Boundary::None),
                ("<|end|>", Boundary::None),
                ("<|call|>", Boundary::None),
            ],
            &[
                ("```json", Boundary::Whitespace),
                ("[TOOL_CALLS]", Boundary::None),
            ],
        ];
        for markers in sets {
            let pieces = [
                "a < b ",
                "<tool_call>",
                "```tool_call\n",
                "```tool_calls",
                "<tool_",
                "```tool_cal",
                "<function=",
                "<functio",
                "<fn>",
                "<fn",
                "<fnx",
                "x",
                "<<",
                "``",
                "<|tool_calls_section_begin|>",
                "<|tool_call_begin|>",
                "<|tool_call_end|>",
                "<|tool_calls_sec",
                "<|tool_call_b",
                "<|tool_",
                "<|tool_call|>",
                "<|tool_call|",
                "<tool_call",
                "<|start|>",
                "<|channel|>final",
                "<|channel|>fin",
                "<|end|",
                "<|",
                "```json",
                "```json\n",
                "[TOOL_CALLS]",
                "[TOOL_CAL",
                "tool_call",
                "<｜DSML｜tool_calls>",
                "<｜DSML｜",
                "<function_calls>",
                "，",
            ];
            agrees_with_the_byte_path(markers, &pieces, 1);
        }
    }

    /// [`memmem_path_agrees_with_the_byte_path`] for markers whose rarest
    /// byte is a Markdown symbol, and for more markers than searchers.
    #[test]
    fn markdown_rare_bytes_agree_with_the_byte_path() {
        let sets: [&[(&str, Boundary)]; 2] = [
            &[("functools[", Boundary::None)],
            &[
                ("<|python_start|>", Boundary::None),
                ("<function_calls>", Boundary::None),
                ("[get_weather(", Boundary::None),
                ("[lookup(", Boundary::None),
            ],
        ];
        let pieces = [
            "a < b ",
            "x",
            "[",
            "[[",
            "functools[",
            "functools",
            "[lookup(",
            "[looku",
            "[get_weather(",
            "[get_wea",
            "<|python_start|>",
            "<|python_st",
            "<function_calls>",
            "<function_",
            "_|",
        ];
        // Past the longer threshold of a set without searchers too.
        for markers in sets {
            agrees_with_the_byte_path(markers, &pieces, 4);
        }
    }

    /// Every concatenation of three `pieces`, padded past the memmem
    /// threshold (`pad` times), is searched for `markers` with the same
    /// answer by every path: behind prose, or behind false hits dense
    /// enough to leave the first-byte search for memmem; at the end of the
    /// hay (partial markers) or before more prose.
    fn agrees_with_the_byte_path(markers: &[(&str, Boundary)], pieces: &[&str], pad: usize) {
        let fast = set(markers);
        let mut slow = fast.clone();
        (slow.finders, slow.rare) = (Vec::new(), None);
        let (sparse, tail) = ("p".repeat(64 * pad), "p".repeat(64 * pad));
        let dense = "<`[ ".repeat(32 * pad);
        // Dense rare bytes too: the one-pass search gives way to memmem.
        let rare = "_=x|，".repeat(32 * pad);
        let settings = [
            (&sparse, ""),
            (&dense, ""),
            (&dense, tail.as_str()),
            (&rare, ""),
            (&rare, tail.as_str()),
        ];
        for a in pieces {
            for b2 in pieces {
                for c in pieces {
                    for (prose, after) in settings {
                        let hay = format!("{prose}{a}{b2}{c}{after}");
                        let hay = hay.as_bytes();
                        let expected = slow.find_fresh(hay);
                        assert_eq!(fast.find_fresh(hay), expected, "{hay:?}");
                        if !fast.finders.is_empty() {
                            let memmem = fast.find_with_memmem(hay, 0, &mut Misses::default());
                            assert_eq!(memmem, expected, "{hay:?}");
                        }
                    }
                }
            }
        }
    }

    thread_local! {
        /// Bytes handed to memmem searches.
        pub(super) static SEARCHED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// A marker that never occurs is not searched for again after every
    /// call attempt (each of which hands the rest of the chunk back): every
    /// byte is searched about once per marker. Before, this took a search
    /// over the rest of the chunk per attempt (quadratic time).
    #[test]
    fn an_absent_marker_is_searched_for_once() {
        let cases: [(&[(&str, Boundary)], &str); 2] = [
            (
                &[
                    ("<tool_call>", Boundary::None),
                    ("<function=", Boundary::None),
                ],
                "<function=f> ",
            ),
            // One searcher, for a part at different offsets.
            (
                &[
                    ("<|tool_call|>", Boundary::None),
                    ("<tool_call>", Boundary::None),
                ],
                "<tool_call>f ",
            ),
        ];
        for (markers, unit) in cases {
            let s = set(markers);
            let hay = unit.repeat(20_000);
            let hay = hay.as_bytes();
            let mut misses = Misses::default();
            SEARCHED.with(|n| n.set(0));
            let (mut from, mut found) = (0, 0);
            while let Found::Marker { at, index } = s.find(&hay[from..], from as u64, &mut misses) {
                from += at + s.marker(index).bytes.len();
                found += 1;
            }
            assert_eq!(found, 20_000);
            let searched = SEARCHED.with(std::cell::Cell::get);
            assert!(searched < 3 * hay.len(), "{searched} bytes searched");
        }
    }

    impl MarkerSet {
        fn find_fresh(&self, hay: &[u8]) -> Found {
            self.find(hay, 0, &mut Misses::default())
        }
    }

    /// The small-chunk shortcuts answer as the full search does: a chunk
    /// whose last byte alone may start a marker holds just that byte, and
    /// a held first byte refuted by the next one is text.
    #[test]
    fn small_chunk_shortcuts_agree_with_the_search() {
        let sets: [&[(&str, Boundary)]; 4] = [
            &[("<tool_call>", Boundary::None), ("<think>", Boundary::None)],
            &[("<|python_tag|>", Boundary::None), ("{\"", Boundary::None)],
            &[("<", Boundary::None)],
            &[("<a", Boundary::TagNameEnd), ("[b", Boundary::None)],
        ];
        let alphabet = b"<t|{\"a [>b";
        for markers in sets {
            // Built in, as the formats' are (released text borrows them).
            let built_in = markers.iter().map(|(m, b)| Marker {
                bytes: Cow::Borrowed(m.as_bytes()),
                boundary: *b,
            });
            let set = MarkerSet::new(built_in.collect()).unwrap();
            let mut checked = [0, 0];
            for len in 1..=4u32 {
                for mut n in 0..alphabet.len().pow(len) {
                    let hay: Vec<u8> = (0..len)
                        .map(|_| {
                            let b = alphabet[n % alphabet.len()];
                            n /= alphabet.len();
                            b
                        })
                        .collect();
                    if set.only_last_may_start(&hay) {
                        checked[0] += 1;
                        let at = hay.len() - 1;
                        assert_eq!(set.find_fresh(&hay), Found::Partial { at }, "{hay:?}");
                    }
                    let (held, next) = hay.split_at(1);
                    if let Some(text) = set.refuted_first_byte(held, next) {
                        checked[1] += 1;
                        assert_eq!(text, held);
                        assert_eq!(set.check_held(held, next), Err(false), "{hay:?}");
                        assert_eq!(set.next_start_after_first(held), 1);
                    }
                }
            }
            // Both shortcuts are taken, except where a one-byte marker
            // rules them out.
            let one_byte = markers.iter().any(|(m, _)| m.len() == 1);
            assert_eq!(
                checked.iter().all(|&n| n > 0),
                !one_byte,
                "{markers:?}: {checked:?}"
            );
        }
    }

    /// The small-chunk classification reads every byte of a chunk of any
    /// length, whichever reads of four cover it: one byte that may start
    /// a marker, or one that is not ASCII, anywhere, is seen.
    #[test]
    fn small_chunks_are_classified_by_every_byte() {
        let set = MarkerSet::new(vec![Marker {
            bytes: Cow::Borrowed(b"<tool_call>"),
            boundary: Boundary::None,
        }])
        .unwrap();
        for len in 0..=80 {
            let plain = vec![b'a'; len];
            assert!(matches!(set.classify_small(&plain), Small::PlainAscii(t) if t.len() == len));
            for at in 0..len {
                let mut hay = plain.clone();
                // `<` then nothing, or `<t`: a marker may start at `at`.
                hay[at] = b'<';
                if at + 1 < len {
                    hay[at + 1] = b't';
                }
                let found = set.classify_small(&hay);
                assert!(matches!(found, Small::MayStartMarker), "{len} {at}");
                let mut hay = plain.clone();
                hay[at] = 0xC3;
                let found = set.classify_small(&hay);
                assert!(matches!(found, Small::Text), "{len} {at}");
            }
        }
    }

    #[test]
    fn remembered_misses_change_no_answer() {
        let sets: [&[(&str, Boundary)]; 3] = [
            &[
                ("<tool_call>", Boundary::None),
                ("<function=", Boundary::None),
            ],
            &[
                ("<|tool_call|>", Boundary::None),
                ("<tool_call>", Boundary::None),
            ],
            &[("<|start|>", Boundary::None), ("<|end|>", Boundary::None)],
        ];
        let unit = "<function=f> x <tool_cal <functio tool_call <|tool_cal <|star <|en ";
        for markers in sets {
            let s = set(markers);
            let hay = format!(
                "{}<tool_call>{}<|tool_call|><|end|>{}",
                unit.repeat(8),
                unit.repeat(3),
                unit.repeat(2)
            );
            let hay = hay.as_bytes();
            // Forward, and back again as given-back bytes are.
            let mut starts: Vec<usize> = (0..hay.len()).step_by(3).collect();
            starts.extend((0..hay.len()).rev().step_by(7));
            starts.extend((0..hay.len()).step_by(5));
            let mut misses = Misses::default();
            for from in starts {
                let rest = &hay[from..];
                assert_eq!(
                    s.find(rest, from as u64, &mut misses),
                    s.find_fresh(rest),
                    "from {from} in {markers:?}"
                );
            }
        }
    }

    /// Which markers one searcher finds: a shared prefix of four bytes, or
    /// a shared part with a byte rare in text; never a common pair (`</`).
    #[test]
    fn searchers_share_rare_parts() {
        let needles = |markers: &[&'static str]| -> Vec<String> {
            let markers: Vec<Marker> = markers
                .iter()
                .map(|m| Marker {
                    bytes: Cow::Borrowed(m.as_bytes()),
                    boundary: Boundary::None,
                })
                .collect();
            search_groups(&markers)
                .into_iter()
                .map(|(needle, _)| String::from_utf8(needle).unwrap())
                .collect()
        };
        assert_eq!(needles(&["<|tool_call|>", "<tool_call>"]), ["tool_call"]);
        assert_eq!(needles(&["<|start|>", "<|end|>", "<|call|>"]), ["<|"]);
        assert_eq!(
            needles(&["<|tool_calls_section_begin|>", "<|tool_call_begin|>"]),
            ["<|tool_call"]
        );
        assert_eq!(needles(&["</a>", "</b>"]), ["</a>", "</b>"]);
        assert_eq!(
            needles(&["<tool_call>", "<function="]),
            ["<tool_call>", "<function="]
        );
        assert_eq!(
            needles(&["```json", "[TOOL_CALLS]"]),
            ["```json", "[TOOL_CALLS]"]
        );
    }

    /// The searchers give way to one pass over a byte of each marker that
    /// prose seldom holds, when each has one.
    #[test]
    fn rare_bytes_stand_for_several_searchers() {
        let rare = |markers: &[&str]| {
            let markers: Vec<_> = markers.iter().map(|m| (*m, Boundary::None)).collect();
            set(&markers).rare.map(|r| (r.bytes, r.offsets.offsets))
        };
        let picked = rare(&["<tool_call>", "<function="]);
        assert_eq!(picked, Some((b"_=".to_vec(), vec![5, 9])));
        assert_eq!(rare(&["<tool_call>"]), Some((b"_".to_vec(), vec![5])));
        // A part shared at different offsets (`tool_call`).
        let picked = rare(&["<|tool_call|>", "<tool_call>"]);
        assert_eq!(picked, Some((b"_".to_vec(), vec![5, 6])));
        // A marker with no rare byte (`<` and `>` are markup's).
        assert_eq!(rare(&["<tool_call>", "<fn>"]), None);
        // A Markdown symbol where a marker holds nothing rarer, first
        // bytes included, and a set with more markers than searchers.
        assert_eq!(rare(&["functools["]), Some((b"[".to_vec(), vec![9])));
        // Not a fence's backtick: code holds them three at a time.
        assert_eq!(rare(&["```json", "[TOOL_CALLS]"]), None);
        let picked = rare(&[
            "<|python_start|>",
            "<function_calls>",
            "[get_weather(",
            "[lookup(",
        ]);
        assert_eq!(picked, Some((b"|_[".to_vec(), vec![0, 1, 4, 9])));
        let picked = rare(&["<｜DSML｜invoke", "<｜DSML｜calls", "<function_calls>"]);
        assert_eq!(picked, Some((vec![0xEF, b'_'], vec![1, 9])));
    }

    #[test]
    fn rejects_shadowing_markers() {
        let m = |s: &'static str| Marker {
            bytes: Cow::Borrowed(s.as_bytes()),
            boundary: Boundary::None,
        };
        assert!(MarkerSet::new(vec![m("<ab"), m("<a")]).is_err());
        assert!(MarkerSet::new(vec![m("")]).is_err());
        assert!(MarkerSet::new(vec![m("<a>"), m("<b>")]).is_ok());
    }

    #[test]
    fn finds_full_partial_and_none() {
        let s = set(&[("<tool_call>", Boundary::None)]);
        assert_eq!(
            s.find_fresh(b"ab <tool_call>{"),
            Found::Marker { at: 3, index: 0 }
        );
        assert_eq!(s.find_fresh(b"a < b <tool_"), Found::Partial { at: 6 });
        assert_eq!(s.find_fresh(b"a <tool_callback> b"), Found::None);
        assert_eq!(s.find_fresh(b"plain prose"), Found::None);
    }

    #[test]
    fn boundary_byte_decides() {
        let s = set(&[("```tool_call", Boundary::Whitespace)]);
        assert_eq!(s.find_fresh(b"```tool_call"), Found::Partial { at: 0 });
        assert_eq!(s.find_fresh(b"```tool_calls"), Found::None);
        assert_eq!(
            s.find_fresh(b"x```tool_call\n"),
            Found::Marker { at: 1, index: 0 }
        );
    }

    #[test]
    fn held_bytes_resolve_with_the_next_chunk() {
        let s = set(&[("<tool_call>", Boundary::None)]);
        assert_eq!(s.check_held(b"<tool", b"_call>x"), Ok(0));
        assert_eq!(s.check_held(b"<tool", b"_c"), Err(true));
        assert_eq!(s.check_held(b"<tool", b"box"), Err(false));
        assert_eq!(s.next_start_after_first(b"<to<"), 3);
        assert_eq!(s.next_start_after_first(b"<to"), 3);
    }
}
