//! Finding start markers in text, across chunk boundaries.
//!
//! A [`MarkerSet`] is built once per parser. Outside a call the engine asks it
//! for the first place in a chunk where a marker starts ([`Found::Marker`]),
//! or where the chunk ends with what may still become one
//! ([`Found::Partial`]); only those few bytes are held back.

use std::borrow::Cow;

use super::same_bytes;

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
    /// For a set of a few markers (every format but morph-xml): substring
    /// searchers, which skip the first byte's frequent false hits (`<` in
    /// prose) with a SIMD prefilter on rarer bytes — one per marker, or one
    /// per group of markers sharing a prefix long enough to be rare
    /// (`<｜tool▁call` of `<｜tool▁calls▁begin｜>` and `<｜tool▁call▁begin｜>`):
    /// one pass per group instead of one per marker.
    finders: Vec<memchr::memmem::Finder<'static>>,
    /// For each searcher, the markers it finds the start of: one marker,
    /// or a group that shares its needle (see [`prefix_groups`]).
    groups: Vec<Vec<usize>>,
}

/// The shortest prefix shared by all markers that one searcher looks for
/// instead of each marker.
const MIN_SHARED_PREFIX: usize = 4;

/// The markers in groups that one searcher each can find: markers that
/// share a prefix of at least [`MIN_SHARED_PREFIX`] bytes go together
/// (`<｜DSML｜invoke name=` and `<｜DSML｜tool_calls>`), searched for by
/// that prefix; the others alone, by their own bytes. Each group: its
/// needle and its markers' indices, in the markers' order.
fn prefix_groups(markers: &[Marker]) -> Vec<(Vec<u8>, Vec<usize>)> {
    let mut groups: Vec<(Vec<u8>, Vec<usize>)> = Vec::new();
    for (index, marker) in markers.iter().enumerate() {
        let bytes = &marker.bytes[..];
        let common = |needle: &[u8]| needle.iter().zip(bytes).take_while(|(a, b)| a == b).count();
        match groups
            .iter_mut()
            .find(|(needle, _)| common(needle) >= MIN_SHARED_PREFIX)
        {
            Some((needle, group)) => {
                let keep = common(needle);
                needle.truncate(keep);
                group.push(index);
            }
            None => groups.push((bytes.to_vec(), vec![index])),
        }
    }
    groups
}

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
    pub(crate) fn new(markers: Vec<Marker>) -> Result<MarkerSet, &'static str> {
        for a in &markers {
            if a.bytes.is_empty() {
                return Err("a marker is empty");
            }
            for b in &markers {
                let shadows = b.bytes.len() < a.bytes.len()
                    && a.bytes.starts_with(&b.bytes)
                    && b.boundary.accepts(a.bytes[b.bytes.len()]);
                if shadows {
                    return Err("one marker is a prefix of another");
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
        let groups = prefix_groups(&markers);
        let memmem = groups.len() <= MAX_FINDERS && markers.iter().all(|m| m.bytes.len() >= 2);
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
        Ok(MarkerSet {
            finders,
            groups,
            markers,
            firsts,
            small_table: small_table(&first_table),
            first_table,
            second_table,
            longest,
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
            finders: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// What a small chunk holds: [`SMALL_MARKER`] if a byte of it may start
    /// a marker, [`SMALL_NON_ASCII`] if one is not ASCII (0: plain ASCII
    /// text, which needs no other look).
    #[inline]
    pub(crate) fn classify_small(&self, hay: &[u8]) -> u8 {
        // No early exit: a branch-free pass over a token is cheaper.
        hay.iter()
            .fold(0, |seen, &b| seen | self.small_table[b as usize])
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

    /// Compares the markers of `group` with `hay` at its start: the answer
    /// of [`check_all`](Self::check_all) where the group's needle matched
    /// (a marker outside the group shares less than the needle with it).
    fn check_group(&self, group: &[usize], hay: &[u8]) -> Result<usize, Check> {
        let mut partial = false;
        for &index in group {
            match check(&self.markers[index], hay, &[]) {
                Check::Full if !partial => return Ok(index),
                Check::Full | Check::Prefix => partial = true,
                Check::Mismatch => {}
            }
        }
        Err(if partial {
            Check::Prefix
        } else {
            Check::Mismatch
        })
    }

    /// Compares every marker with `head ++ tail` at its start.
    fn check_all(&self, head: &[u8], tail: &[u8]) -> Result<usize, Check> {
        let mut partial = false;
        for (index, marker) in self.markers.iter().enumerate() {
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
        if !self.finders.is_empty() && hay.len() >= 64 {
            return self.find_with_memmem(hay, base, misses);
        }
        let mut from = 0;
        while let Some(rel) = self.next_candidate(&hay[from..]) {
            let at = from + rel;
            if hay
                .get(at + 1)
                .is_some_and(|&b| !self.second_table[b as usize])
            {
                from = at + 1;
                continue;
            }
            match self.check_all(&hay[at..], &[]) {
                Ok(index) => return Found::Marker { at, index },
                Err(Check::Prefix) => return Found::Partial { at },
                Err(_) => from = at + 1,
            }
        }
        Found::None
    }

    /// [`find`](Self::find) with one memmem pass per marker: the same
    /// answer. The first full match wins; a partial one can only lie in the
    /// last `longest - 1` bytes, and counts if it comes first.
    fn find_with_memmem(&self, hay: &[u8], base: u64, misses: &mut Misses) -> Found {
        let mut first: Option<(usize, usize)> = None;
        for (index, finder) in self.finders.iter().enumerate() {
            let needle_len = finder.needle().len();
            // Only a match before the best so far matters.
            let limit = first.map_or(hay.len(), |(at, _)| at);
            // Where this marker is known not to start (a call attempt that
            // failed hands its bytes back to be searched again).
            let mut from = misses.skip(index, base).min(limit);
            let searched_from = from;
            let mut searched_to = from;
            while from < limit {
                let end = hay.len().min(limit + needle_len);
                let found = finder.find(&hay[from..end]);
                #[cfg(test)]
                tests::SEARCHED.with(|n| {
                    let upto = found.map_or(end, |rel| from + rel + needle_len);
                    n.set(n.get() + (upto - from));
                });
                let Some(rel) = found else {
                    searched_to = (end + 1).saturating_sub(needle_len);
                    break;
                };
                let at = from + rel;
                searched_to = at;
                let check = self.check_group(&self.groups[index], &hay[at..]);
                match check {
                    Ok(found) => {
                        first = Some((at, found));
                        break;
                    }
                    // Its boundary byte is still to come: a partial match
                    // (found below).
                    Err(Check::Prefix) => break,
                    Err(_) => from = at + 1,
                }
            }
            misses.note(index, base, (searched_from, searched_to));
        }
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

/// A small chunk has a byte that may start a marker.
pub(crate) const SMALL_MARKER: u8 = 1;
/// A small chunk has a byte that is not ASCII.
pub(crate) const SMALL_NON_ASCII: u8 = 2;

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
    fn memmem_path_agrees_with_the_byte_path() {
        let sets: [&[(&str, Boundary)]; 5] = [
            &[("<tool_call>", Boundary::None)],
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
        ];
        for markers in sets {
            let fast = set(markers);
            let mut slow = fast.clone();
            slow.finders.clear();
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
            ];
            // Every concatenation of three pieces, padded past the memmem threshold.
            for a in pieces {
                for b2 in pieces {
                    for c in pieces {
                        let hay = format!("{}{a}{b2}{c}", "p".repeat(64));
                        assert_eq!(
                            fast.find_fresh(hay.as_bytes()),
                            slow.find_fresh(hay.as_bytes()),
                            "{hay:?}"
                        );
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
        let s = set(&[
            ("<tool_call>", Boundary::None),
            ("<function=", Boundary::None),
        ]);
        let hay = "<function=f> ".repeat(20_000);
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

    impl MarkerSet {
        fn find_fresh(&self, hay: &[u8]) -> Found {
            self.find(hay, 0, &mut Misses::default())
        }
    }

    #[test]
    fn remembered_misses_change_no_answer() {
        let s = set(&[
            ("<tool_call>", Boundary::None),
            ("<function=", Boundary::None),
        ]);
        let unit = "<function=f> x <tool_cal <functio ";
        let hay = format!("{}<tool_call>{}", unit.repeat(8), unit.repeat(4));
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
                "from {from}"
            );
        }
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
