//! How much of a literal (a token, a closing tag, an end marker) the bytes
//! read so far match, when the literal may be cut by a chunk boundary.
//!
//! quick-xml keeps `Seen0/1/2` states for its two-byte literals; these
//! matchers generalise them: [`Partial`] follows one literal, [`PartialSet`]
//! a set of literals none of which is a prefix of another. Neither keeps
//! the bytes it matched: they are the literal's first [`matched`]
//! bytes.
//!
//! [`matched`]: Partial::matched

use super::{begins_with, same_bytes};

/// What a matcher made of the bytes it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Match {
    /// The whole literal is read.
    Done,
    /// The byte at the position reached differs: it is not consumed;
    /// `matched()` says how many bytes did match. Reset the matcher before
    /// it reads again.
    Mismatch,
    /// The bytes ended inside the literal: all were consumed.
    More,
}

/// How much of one literal is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Partial {
    matched: usize,
}

impl Partial {
    /// Bytes of the literal read so far.
    #[inline]
    pub(crate) fn matched(self) -> usize {
        self.matched
    }

    /// Whether a match is in progress.
    #[inline]
    pub(crate) fn is_started(self) -> bool {
        self.matched > 0
    }

    /// Continues matching `literal` (the same every call until the match
    /// ends) with `bytes[*i..]`, moving `*i` past what matched.
    ///
    /// # Complexity
    ///
    /// O(bytes consumed).
    #[inline]
    pub(crate) fn feed(&mut self, literal: &[u8], bytes: &[u8], i: &mut usize) -> Match {
        let want = literal.get(self.matched..).unwrap_or_default();
        let rest = bytes.get(*i..).unwrap_or_default();
        let common = want.iter().zip(rest).take_while(|(a, b)| a == b).count();
        *i += common;
        if common == want.len() {
            self.matched = 0;
            Match::Done
        } else if common == rest.len() {
            self.matched += common;
            Match::More
        } else {
            self.matched += common;
            Match::Mismatch
        }
    }

    /// Whether all of `bytes` continues `literal` without completing it:
    /// the token-sized chunk inside a literal, taken whole by
    /// [`take`](Self::take).
    #[inline]
    pub(crate) fn continues_without_end(self, literal: &[u8], bytes: &[u8]) -> bool {
        let k = self.matched;
        k + bytes.len() < literal.len() && literal[k..k + bytes.len()] == *bytes
    }

    /// Records `n` more bytes as matched (after
    /// [`continues_without_end`](Self::continues_without_end)).
    #[inline]
    pub(crate) fn take(&mut self, n: usize) {
        self.matched += n;
    }

    /// Back at the start.
    #[inline]
    pub(crate) fn reset(&mut self) {
        self.matched = 0;
    }

    /// Reads byte `b` of running text in which `literal` is looked for
    /// (a quote token inside a value). After a byte that does not go on
    /// with the match, the match starts again at that byte: exact for
    /// literals whose first byte does not occur again in them.
    #[inline]
    pub(crate) fn scan(&mut self, literal: &[u8], b: u8) -> Seen {
        if literal.get(self.matched) == Some(&b) {
            self.matched += 1;
            if self.matched == literal.len() {
                self.matched = 0;
                return Seen::Whole;
            }
            Seen::Partway
        } else {
            self.matched = usize::from(literal.first() == Some(&b));
            Seen::Not
        }
    }
}

/// What [`Partial::scan`] made of a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// The byte completed the literal.
    Whole,
    /// The byte went on with the literal.
    Partway,
    /// The byte is not part of the match in progress (it may start a new
    /// one).
    Not,
}

/// How much of which literal of a set is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PartialSet {
    matched: usize,
    which: usize,
}

/// What a [`PartialSet`] made of the bytes it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetMatch {
    /// Literal `index` of the set is read whole.
    Done(usize),
    /// No literal goes on with the byte at the position reached: it is not
    /// consumed; `matched()` says how many bytes did match. Reset the
    /// matcher before it reads again.
    Mismatch,
    /// The bytes ended inside a literal: all were consumed.
    More,
}

impl PartialSet {
    /// Bytes read so far of the literal being matched.
    #[cfg(test)]
    fn matched(self) -> usize {
        self.matched
    }

    /// Whether a match is in progress.
    #[inline]
    pub(crate) fn is_started(self) -> bool {
        self.matched > 0
    }

    /// The index in the set of the literal being matched (meaningful while
    /// [`is_started`](Self::is_started)).
    #[cfg(test)]
    fn which(self) -> usize {
        self.which
    }

    /// Continues matching one of `set` (the same every call until the
    /// match ends; no literal a prefix of another) with `bytes[*i..]`,
    /// moving `*i` past what matched.
    ///
    /// # Complexity
    ///
    /// O(bytes consumed × `set.len()`), and a single comparison per byte
    /// while the literal being matched goes on.
    #[inline]
    pub(crate) fn feed(&mut self, set: &[&[u8]], bytes: &[u8], i: &mut usize) -> SetMatch {
        if let [literal] = set {
            // A set of one: the plain matcher, inlined.
            let mut one = Partial {
                matched: self.matched,
            };
            let found = one.feed(literal, bytes, i);
            self.matched = one.matched;
            return match found {
                Match::Done => SetMatch::Done(0),
                Match::More => SetMatch::More,
                Match::Mismatch => SetMatch::Mismatch,
            };
        }
        self.feed_any(set, bytes, i)
    }

    /// [`feed`](Self::feed) for a set of several literals.
    fn feed_any(&mut self, set: &[&[u8]], bytes: &[u8], i: &mut usize) -> SetMatch {
        // The usual cases take one comparison per candidate: a whole
        // literal in the slice, the slice ending inside one, or going on
        // with the literal being matched. Otherwise byte by byte.
        let rest = bytes.get(*i..).unwrap_or_default();
        if self.matched == 0 {
            if let Some(index) = set
                .iter()
                .position(|l| !l.is_empty() && begins_with(rest, l))
            {
                *i += set[index].len();
                return SetMatch::Done(index);
            }
            if let Some(index) = set
                .iter()
                .position(|l| !rest.is_empty() && begins_with(l, rest))
            {
                self.which = index;
                self.matched = rest.len();
                *i += rest.len();
                return SetMatch::More;
            }
        } else {
            let literal = set.get(self.which).copied().unwrap_or_default();
            let want = literal.get(self.matched..).unwrap_or_default();
            if begins_with(rest, want) {
                *i += want.len();
                self.matched = 0;
                return SetMatch::Done(self.which);
            }
            if begins_with(want, rest) {
                *i += rest.len();
                self.matched += rest.len();
                return SetMatch::More;
            }
        }
        while let Some(&b) = bytes.get(*i) {
            let k = self.matched;
            let current = set.get(self.which).copied().unwrap_or_default();
            if !(k > 0 && current.get(k) == Some(&b)) {
                // Another literal with the same first `k` bytes that goes
                // on with `b`.
                let read = current.get(..k).unwrap_or_default();
                match set
                    .iter()
                    .position(|l| l.len() > k && begins_with(l, read) && l[k] == b)
                {
                    Some(index) => self.which = index,
                    None => return SetMatch::Mismatch,
                }
            }
            *i += 1;
            self.matched += 1;
            if self.matched == set[self.which].len() {
                self.matched = 0;
                return SetMatch::Done(self.which);
            }
        }
        SetMatch::More
    }

    /// Whether all of `bytes` go on with a literal of `set` that agrees
    /// with the bytes matched so far, without completing it: then they are
    /// taken, as [`feed`](Self::feed) would take them (answering
    /// [`SetMatch::More`]), at one comparison a literal. `false`, nothing
    /// taken, otherwise, and while no match is in progress.
    #[inline]
    pub(crate) fn goes_on_without_end(&mut self, set: &[&[u8]], bytes: &[u8]) -> bool {
        let (k, n) = (self.matched, bytes.len());
        let Some(current) = set.get(self.which).filter(|_| k > 0) else {
            return false;
        };
        let goes_on = |l: &[u8]| l.len() > k + n && same_bytes(&l[k..k + n], bytes);
        // The literal being matched first, as `feed` keeps it while it
        // agrees; then any other with the same start.
        if goes_on(current) {
            self.matched += n;
            return true;
        }
        let Some(read) = current.get(..k) else {
            return false;
        };
        match set
            .iter()
            .position(|l| goes_on(l) && same_bytes(&l[..k], read))
        {
            Some(which) => {
                (self.which, self.matched) = (which, k + n);
                true
            }
            None => false,
        }
    }

    /// Back at the start.
    #[inline]
    pub(crate) fn reset(&mut self) {
        self.matched = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LITERALS: &[&[u8]] = &[
        b"</tool_call>",
        b"<|tool_call_end|>",
        "<｜tool▁call▁end｜>".as_bytes(),
        b"[ARGS]",
        b"```",
        b"x",
    ];

    /// Feeds `input` cut at `cuts` to one matcher; returns each outcome and
    /// where it left `i` in its piece.
    fn run_one(literal: &[u8], input: &[u8], cuts: &[usize]) -> Vec<(Match, usize)> {
        let mut partial = Partial::default();
        let mut out = Vec::new();
        let mut from = 0;
        for &to in cuts.iter().chain(std::iter::once(&input.len())) {
            let piece = &input[from..to];
            let mut i = 0;
            let m = partial.feed(literal, piece, &mut i);
            out.push((m, i));
            from = to;
            if m != Match::More {
                break;
            }
        }
        out
    }

    #[test]
    fn a_set_goes_on_as_feed_takes_the_bytes() {
        let sets: [&[&[u8]]; 3] = [
            &[b"<|eom_id|>", b"<|eot_id|>"],
            &[b"<tool_call|>", b"<turn|>"],
            &[b"<|python_end|>"],
        ];
        for set in sets {
            for literal in set {
                for start in 1..literal.len() {
                    for end in start..=literal.len() + 1 {
                        // Bytes after `start` of them read: the literal's
                        // own (to its end and past it), or another's.
                        let mut bytes = literal[start..end.min(literal.len())].to_vec();
                        if end > literal.len() {
                            bytes.push(b'x');
                        }
                        let mut fed = PartialSet::default();
                        let mut i = 0;
                        assert_eq!(fed.feed(set, &literal[..start], &mut i), SetMatch::More);
                        let mut fast = fed;
                        let mut i = 0;
                        let found = fed.feed(set, &bytes, &mut i);
                        let more = found == SetMatch::More && i == bytes.len();
                        assert_eq!(fast.goes_on_without_end(set, &bytes), more, "{bytes:?}");
                        if more {
                            assert_eq!(fast.matched, fed.matched);
                            // What comes next is read alike.
                            let rest = &literal[end..];
                            let (mut a, mut b) = (0, 0);
                            assert_eq!(fast.feed(set, rest, &mut a), fed.feed(set, rest, &mut b));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_literal_is_read_whole_at_every_split() {
        for literal in LITERALS {
            for cut in 0..=literal.len() {
                let steps = run_one(literal, literal, &[cut]);
                let (last, _) = *steps.last().unwrap();
                assert_eq!(last, Match::Done, "{literal:?} cut at {cut}");
                let consumed: usize = steps.iter().map(|s| s.1).sum();
                assert_eq!(consumed, literal.len());
            }
            // One byte at a time.
            let cuts: Vec<usize> = (1..literal.len()).collect();
            let steps = run_one(literal, literal, &cuts);
            assert_eq!(steps.last().unwrap().0, Match::Done);
            assert!(steps[..steps.len() - 1].iter().all(|s| s.0 == Match::More));
        }
    }

    #[test]
    fn a_differing_byte_is_a_mismatch_at_every_split_and_is_not_consumed() {
        for literal in LITERALS {
            for wrong_at in 0..literal.len() {
                let mut input = literal.to_vec();
                input[wrong_at] ^= 0x20;
                for cut in 0..=input.len() {
                    let steps = run_one(literal, &input, &[cut]);
                    let (last, i) = *steps.last().unwrap();
                    assert_eq!(last, Match::Mismatch, "{literal:?} {wrong_at} {cut}");
                    let consumed: usize = steps.iter().map(|s| s.1).sum();
                    assert_eq!(consumed, wrong_at, "{literal:?} {wrong_at} {cut}");
                    let piece_start = if cut <= wrong_at { cut } else { 0 };
                    assert_eq!(i + piece_start, wrong_at);
                }
                let mut partial = Partial::default();
                let mut i = 0;
                assert_eq!(partial.feed(literal, &input, &mut i), Match::Mismatch);
                assert_eq!(partial.matched(), wrong_at);
            }
        }
    }

    #[test]
    fn scanning_text_finds_every_occurrence_of_a_literal() {
        let quote = b"<|\"|>";
        for text in [
            &b"a<|\"|>b<|\"|>"[..],
            b"<<|\"|>",
            b"<|<|\"|>x",
            b"<|\"<|\"|>",
        ] {
            let mut partial = Partial::default();
            let found: Vec<usize> = text
                .iter()
                .enumerate()
                .filter(|&(_, &b)| partial.scan(quote, b) == Seen::Whole)
                .map(|(at, _)| at + 1 - quote.len())
                .collect();
            let want: Vec<usize> = (0..text.len())
                .filter(|&at| text[at..].starts_with(quote))
                .collect();
            assert_eq!(found, want, "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn continues_without_end_takes_a_middle_piece_only() {
        let literal = b"</tool_call>";
        let mut partial = Partial::default();
        let mut i = 0;
        assert_eq!(partial.feed(literal, b"</to", &mut i), Match::More);
        assert!(partial.continues_without_end(literal, b"ol_"));
        assert!(!partial.continues_without_end(literal, b"ol_call>"));
        assert!(!partial.continues_without_end(literal, b"oX"));
        partial.take(3);
        assert_eq!(partial.matched(), 7);
        let mut i = 0;
        assert_eq!(partial.feed(literal, b"call>rest", &mut i), Match::Done);
        assert_eq!(i, 5);
    }

    /// Every literal of `set`, and every literal with one byte changed,
    /// cut at every split point: the set matcher agrees with matching
    /// the input against each literal whole.
    #[test]
    fn a_set_matches_what_a_whole_comparison_finds_at_every_split() {
        let set: &[&[u8]] = &[
            b"<|tool_call_end|>",
            b"<|tool_calls_section_end|>",
            b"<|tool_call_begin|>",
            b"```",
        ];
        let mut inputs: Vec<Vec<u8>> = set.iter().map(|l| l.to_vec()).collect();
        for l in set {
            for at in 0..l.len() {
                let mut wrong = l.to_vec();
                wrong[at] = b'#';
                inputs.push(wrong);
            }
        }
        for input in &inputs {
            let whole = set.iter().position(|l| input.starts_with(l));
            let common = set
                .iter()
                .map(|l| l.iter().zip(input).take_while(|(a, b)| a == b).count())
                .max()
                .unwrap();
            for cut in 0..=input.len() {
                let mut matcher = PartialSet::default();
                let mut consumed = 0;
                let mut result = SetMatch::More;
                for piece in [&input[..cut], &input[cut..]] {
                    let mut i = 0;
                    result = matcher.feed(set, piece, &mut i);
                    consumed += i;
                    if result != SetMatch::More {
                        break;
                    }
                }
                match whole {
                    Some(index) => {
                        assert_eq!(result, SetMatch::Done(index), "{input:?} at {cut}");
                        assert_eq!(consumed, set[index].len());
                    }
                    None => {
                        assert_eq!(result, SetMatch::Mismatch, "{input:?} at {cut}");
                        assert_eq!(consumed, common, "{input:?} at {cut}");
                        assert_eq!(matcher.matched(), common, "{input:?} at {cut}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_set_follows_the_literal_that_goes_on() {
        let set: &[&[u8]] = &[b"<|end|>", b"<|call|>"];
        let mut matcher = PartialSet::default();
        let mut i = 0;
        assert_eq!(matcher.feed(set, b"<|", &mut i), SetMatch::More);
        assert!(matcher.is_started());
        let mut i = 0;
        assert_eq!(matcher.feed(set, b"ca", &mut i), SetMatch::More);
        assert_eq!(matcher.which(), 1);
        assert!(!matcher.clone().goes_on_without_end(set, b"ll|>"));
        let mut i = 0;
        assert_eq!(matcher.feed(set, b"ll|>", &mut i), SetMatch::Done(1));
        assert_eq!(matcher.matched(), 0);
    }
}
