//! UTF-8 decoding across chunk boundaries.
//!
//! A chunk may end inside a code point. [`Utf8Carry`] keeps the at most three
//! bytes of an incomplete sequence and completes it with the next chunk, so
//! every complete piece of text can be handed out as `&str` borrowed from the
//! chunk. Invalid sequences are reported where they start; the caller decides
//! what they become (U+FFFD in text, an error inside a call). Sequences are
//! delimited exactly as [`String::from_utf8_lossy`] does, whatever the
//! chunking, so replacement is split-invariant.

use crate::delta::{Delta, INLINE};

/// The longest chunk [`Utf8Carry::continue_short`] takes: with three
/// carried bytes, it fits in a [`Delta`] held inline.
pub(crate) const SHORT_JOIN: usize = INLINE - 3;

/// `std::str::from_utf8`, with SIMD validation for longer inputs (the
/// result, including `Err`, is the same; only speed differs).
#[allow(unsafe_code)]
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> Result<&str, ()> {
    if bytes.len() >= 32 {
        // SIMD validation has its own ASCII fast path: one pass, not two.
        simdutf8::basic::from_utf8(bytes).map_err(|_| ())
    } else if bytes.is_ascii() {
        // SAFETY: `bytes.is_ascii()` just held.
        Ok(unsafe { ascii_str_unchecked(bytes) })
    } else {
        validate_non_ascii(bytes)
    }
}

/// [`validate`] of fewer than 32 bytes, not all ASCII: a token by one
/// pass of [`whole_prefix`], anything longer by the standard library.
#[allow(unsafe_code)]
#[inline(never)]
fn validate_non_ascii(bytes: &[u8]) -> Result<&str, ()> {
    if bytes.len() > SHORT_JOIN {
        return std::str::from_utf8(bytes).map_err(|_| ());
    }
    match whole_prefix(bytes) == Some(bytes.len()) {
        // SAFETY: `whole_prefix` found every byte of `bytes` in a whole,
        // valid code point.
        true => Ok(unsafe { utf8_str_unchecked(bytes) }),
        false => Err(()),
    }
}

/// For a short slice: `Some(cut)` when `bytes[..cut]` is UTF-8 and the
/// bytes after it (at most three) begin a code point that the end of
/// `bytes` cut off; `None` when `bytes` hold an invalid sequence. One
/// pass and no call, where `std::str::from_utf8` on a token costs more
/// than the rest of its feed; [`validate`] uses it for up to
/// [`SHORT_JOIN`] bytes, [`Utf8Carry::continue_short`] and
/// [`Utf8Carry::continue_with`] for a token's whole code points.
///
/// # Complexity
///
/// Linear in `bytes`: each byte is read once.
#[inline]
pub(crate) fn whole_prefix(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(&lead) = bytes.get(at) {
        if lead < 0x80 {
            at += 1;
            continue;
        }
        let len = sequence_len(lead);
        let rest = &bytes[at..];
        if len == 0 {
            return None;
        }
        if rest.len() < len {
            return starts_sequence(rest).then_some(at);
        }
        let valid =
            second_byte_fits(lead, rest[1]) && rest[2..len].iter().all(|&b| b & 0xC0 == 0x80);
        if !valid {
            return None;
        }
        at += len;
    }
    Some(at)
}

/// Whether `second` may follow `lead` in a code point: a continuation
/// byte, in the narrower range some leads allow (which rules out overlong
/// forms, surrogates and code points past U+10FFFF).
#[inline(always)]
fn second_byte_fits(lead: u8, second: u8) -> bool {
    match lead {
        0xE0 => (0xA0..=0xBF).contains(&second),
        0xED => (0x80..=0x9F).contains(&second),
        0xF0 => (0x90..=0xBF).contains(&second),
        0xF4 => (0x80..=0x8F).contains(&second),
        _ => second & 0xC0 == 0x80,
    }
}

/// The longest prefix of `bytes` that is UTF-8, and whether the bytes
/// after it are invalid (`false` when there are none, or when they begin
/// a code point that the end of `bytes` cut off).
///
/// # Complexity
///
/// One validation of `bytes` when they end in whole or cut-off code
/// points (a chunk boundary); a second pass only for invalid bytes.
pub(crate) fn valid_prefix(bytes: &[u8]) -> (&str, bool) {
    let whole = incomplete_tail(bytes).unwrap_or(bytes.len());
    if let Ok(text) = validate(&bytes[..whole]) {
        return (text, false);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            // Validated up to there; cannot fail.
            let text = std::str::from_utf8(valid).unwrap_or_default();
            (text, e.error_len().is_some())
        }
    }
}

/// [`validate`] for a token-sized slice on a hot path: plain ASCII is
/// checked inline, anything else by [`validate`]. The call alone costs
/// as much as checking a few bytes.
#[inline(always)]
pub(crate) fn validate_token(bytes: &[u8]) -> Result<&str, ()> {
    match ascii_token(bytes) {
        Some(text) => Ok(text),
        None => validate(bytes),
    }
}

/// A token-sized slice of plain ASCII (at most eight bytes) as `&str`,
/// checked inline; `None` for anything else.
#[allow(unsafe_code)]
#[inline(always)]
pub(crate) fn ascii_token(bytes: &[u8]) -> Option<&str> {
    // SAFETY: `bytes.is_ascii()` holds where the closure runs.
    (bytes.len() <= 8 && bytes.is_ascii()).then(|| unsafe { ascii_str_unchecked(bytes) })
}

/// `bytes`, which [`whole_prefix`] found to be whole, valid code points,
/// as `&str`: the second of the crate's `unsafe` functions, for the
/// same reason as [`ascii_str_unchecked`] (short non-ASCII text, CJK
/// prose above all, fed a token at a time).
///
/// # Safety
///
/// `bytes` is UTF-8. Debug builds check it.
#[allow(unsafe_code)]
#[inline]
pub(crate) unsafe fn utf8_str_unchecked(bytes: &[u8]) -> &str {
    debug_assert!(std::str::from_utf8(bytes).is_ok());
    // SAFETY: the caller guarantees UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// `bytes`, known to be ASCII, as `&str`.
///
/// The first of the crate's `unsafe` functions: `std::str::from_utf8`
/// on the short slices of token-sized chunks costs more than the rest of
/// a text feed (see the README's benchmark notes), and the pass that found
/// the bytes ASCII is all the validation they need. Its callers are the checks
/// themselves: [`validate`], [`validate_token`], the marker table's
/// `classify_small` and the XML value classifier `value_text`.
///
/// # Safety
///
/// Every byte of `bytes` is ASCII (below 0x80). Debug builds check it.
#[allow(unsafe_code)]
#[inline]
pub(crate) unsafe fn ascii_str_unchecked(bytes: &[u8]) -> &str {
    debug_assert!(bytes.is_ascii());
    // SAFETY: the caller guarantees ASCII, and ASCII is UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// One decoded piece.
pub(crate) enum Utf8Piece<'c> {
    /// Valid text.
    Text(Delta<'c>),
    /// A maximal invalid sequence starting at this stream offset.
    Invalid(u64),
}

/// The decoding of bytes that continue a stream after a [`Utf8Carry`],
/// when they hold no invalid sequence: see [`Utf8Carry::continue_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Continued<'c> {
    /// The code point the carried bytes began, now whole.
    completed: Option<char>,
    /// Whole code points after it, borrowed from the bytes.
    text: &'c str,
    /// The start of a code point the bytes end inside (its first
    /// `tail_len` bytes), carried on.
    tail: [u8; 3],
    tail_len: u8,
}

impl<'c> Continued<'c> {
    /// What to carry after bytes that end at stream offset `end`.
    pub(crate) fn carry(&self, end: u64) -> Utf8Carry {
        let mut carry = Utf8Carry::default();
        if self.tail_len > 0 {
            carry.bytes[..3].copy_from_slice(&self.tail);
            carry.len = self.tail_len;
            carry.offset = end - u64::from(self.tail_len);
        }
        carry
    }

    /// The code point the carried bytes began, now whole (it cannot be
    /// borrowed from either chunk: it goes out inline).
    pub(crate) fn completed(&self) -> Option<char> {
        self.completed
    }

    /// The whole code points after it, borrowed from the bytes.
    pub(crate) fn text(&self) -> &'c str {
        self.text
    }

    /// How many bytes at the end begin a code point that they cut off.
    pub(crate) fn tail_len(&self) -> usize {
        usize::from(self.tail_len)
    }
}

/// The number of bytes of a code point whose first byte is `lead` (0 for
/// a byte that cannot begin one).
fn sequence_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

/// The code point that `bytes`, one whole UTF-8 sequence, encode; `None`
/// if they are not valid UTF-8 (overlong, a surrogate, past U+10FFFF, a
/// byte that does not continue the sequence). A few instructions where
/// `std::str::from_utf8` is a call: a code point split by a chunk boundary
/// is completed this way on every such chunk.
#[inline]
fn decode_char(bytes: &[u8]) -> Option<char> {
    let (&lead, rest) = bytes.split_first()?;
    let (mut code, min) = match bytes.len() {
        2 => (u32::from(lead & 0x1F), 0x80),
        3 => (u32::from(lead & 0x0F), 0x800),
        4 => (u32::from(lead & 0x07), 0x1_0000),
        _ => return None,
    };
    for &b in rest {
        if b & 0xC0 != 0x80 {
            return None;
        }
        code = code << 6 | u32::from(b & 0x3F);
    }
    // `from_u32` rejects surrogates and code points past U+10FFFF.
    char::from_u32(code).filter(|_| code >= min)
}

/// Whether `bytes` are the first bytes of a valid UTF-8 sequence of more
/// bytes than they are: a lead byte, then continuation bytes in the ranges
/// its second byte allows (which rule out overlong forms, surrogates and
/// code points past U+10FFFF). What `std::str::from_utf8` calls an
/// unexpected end, without the call.
#[inline]
fn starts_sequence(bytes: &[u8]) -> bool {
    let Some((&lead, rest)) = bytes.split_first() else {
        return false;
    };
    sequence_len(lead) > bytes.len().max(1)
        && rest.first().is_none_or(|&b| second_byte_fits(lead, b))
        && rest.iter().skip(1).all(|&b| b & 0xC0 == 0x80)
}

/// `src`, at most three bytes (the part of a code point), into `dst` of
/// the same length: without the call a variable-length copy makes.
#[inline(always)]
fn put_small(dst: &mut [u8], src: &[u8]) {
    match (dst, src) {
        ([a], [x]) => *a = *x,
        ([a, b], [x, y]) => (*a, *b) = (*x, *y),
        ([a, b, c], [x, y, z]) => (*a, *b, *c) = (*x, *y, *z),
        (dst, src) => dst.copy_from_slice(src),
    }
}

/// Where an incomplete but so far valid code point begins at the end of
/// `bytes`, if one does.
#[inline]
pub(crate) fn incomplete_tail(bytes: &[u8]) -> Option<usize> {
    // The lead byte among the last three, behind continuation bytes only
    // (a pattern per case: no loop on a path every cut chunk takes).
    let continues = |b: u8| b & 0xC0 == 0x80;
    let start = match *bytes {
        [.., last] if last < 0x80 => return None,
        [.., last] if !continues(last) => bytes.len() - 1,
        [.., lead, _] if !continues(lead) => bytes.len() - 2,
        [.., lead, _, _] if !continues(lead) => bytes.len() - 3,
        _ => return None,
    };
    starts_sequence(&bytes[start..]).then_some(start)
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Utf8Carry {
    bytes: [u8; 4],
    len: u8,
    /// Stream offset of `bytes[0]`.
    offset: u64,
}

impl Utf8Carry {
    /// Decodes `chunk`, which starts at stream offset `base`, and reports the
    /// pieces in order. An incomplete sequence at the end is kept.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A carry of `held`, the first bytes of a code point that a chunk
    /// boundary cut off (at a stream offset that does not matter to the
    /// caller); `None` for more than three bytes. Whether they can begin
    /// a code point is [`continue_with`](Self::continue_with)'s to check.
    pub(crate) fn holding(held: &[u8]) -> Option<Utf8Carry> {
        if held.len() > 3 {
            return None;
        }
        let mut carry = Utf8Carry::default();
        put_small(&mut carry.bytes[..held.len()], held);
        carry.len = held.len() as u8;
        Some(carry)
    }

    /// [`continue_with`](Self::continue_with) for a short chunk (at most
    /// [`SHORT_JOIN`] bytes), which ends at stream offset `end`, with what
    /// it decodes to as one delta: the code point the carried bytes began
    /// and the whole ones after it joined inline, or the chunk's whole code
    /// points borrowed when nothing was carried (`None`: none yet). The
    /// carry is updated. `Err` (nothing done) when the bytes hold an
    /// invalid sequence.
    ///
    /// # Complexity
    ///
    /// One pass over at most [`INLINE`] bytes, no call.
    #[allow(unsafe_code)]
    #[inline(always)]
    pub(crate) fn continue_short<'c>(
        &mut self,
        bytes: &'c [u8],
        end: u64,
    ) -> Result<Option<Delta<'c>>, ()> {
        debug_assert!(bytes.len() <= SHORT_JOIN);
        if self.len == 0 {
            let cut = whole_prefix(bytes).ok_or(())?;
            self.keep(&bytes[cut..], end);
            // SAFETY: `whole_prefix` found `bytes[..cut]` whole code points.
            let text = unsafe { utf8_str_unchecked(&bytes[..cut]) };
            return Ok((cut > 0).then_some(Delta::borrowed(text)));
        }
        let held = usize::from(self.len);
        let mut joined = [0; INLINE];
        joined[..4].copy_from_slice(&self.bytes);
        for (slot, &b) in joined[held..].iter_mut().zip(bytes) {
            *slot = b;
        }
        let len = held + bytes.len();
        let cut = whole_prefix(&joined[..len]).ok_or(())?;
        self.keep(&joined[cut..len], end);
        // SAFETY: `whole_prefix` found `joined[..cut]` whole code points.
        Ok((cut > 0).then(|| unsafe { Delta::inline_prefix(joined, cut) }))
    }

    /// Carries `tail`, the at most three bytes that begin a code point
    /// and end at stream offset `end` (none: nothing is carried).
    #[inline(always)]
    fn keep(&mut self, tail: &[u8], end: u64) {
        self.len = tail.len() as u8;
        self.offset = end - tail.len() as u64;
        for (slot, &b) in self.bytes.iter_mut().zip(tail) {
            *slot = b;
        }
    }

    /// Stream offset of the incomplete sequence kept, if any.
    pub(crate) fn pending_offset(&self) -> Option<u64> {
        (self.len > 0).then_some(self.offset)
    }

    #[inline]
    pub(crate) fn push<'c>(
        &mut self,
        chunk: &'c [u8],
        base: u64,
        out: &mut impl FnMut(Utf8Piece<'c>),
    ) {
        if self.len == 0 {
            // The common case: whole code points, valid.
            if let Ok(text) = validate(chunk) {
                if !text.is_empty() {
                    out(Utf8Piece::Text(Delta::borrowed(text)));
                }
                return;
            }
        }
        self.push_split(chunk, base, out)
    }

    /// [`push`](Self::push) of bytes that begin or end inside a code point,
    /// or hold an invalid sequence.
    #[inline(never)]
    pub(crate) fn push_split<'c>(
        &mut self,
        chunk: &'c [u8],
        base: u64,
        out: &mut impl FnMut(Utf8Piece<'c>),
    ) {
        match self.continue_with(chunk) {
            Some(next) => {
                if let Some(c) = next.completed {
                    out(Utf8Piece::Text(Delta::from(c)));
                }
                if !next.text.is_empty() {
                    out(Utf8Piece::Text(Delta::borrowed(next.text)));
                }
                *self = next.carry(base + chunk.len() as u64);
            }
            None => self.push_slow(chunk, base, out),
        }
    }

    /// Decodes `bytes`, which continue the stream, without emitting
    /// anything: the carried code point completed, the whole code points
    /// after it, and what to carry next. `None` if the bytes hold an
    /// invalid sequence ([`push`](Self::push) reports those). The text
    /// begins where the carried bytes did, if any were carried.
    ///
    /// # Complexity
    ///
    /// One validation of `bytes`, plus at most four bytes looked at twice.
    // Always inlined into its two callers, the steady paths of CJK tokens:
    // left to the compiler, an unrelated change once put it out of line
    // and cost an XML format's CJK argument 6% more instructions.
    #[allow(unsafe_code)]
    #[inline(always)]
    pub(crate) fn continue_with<'c>(&self, bytes: &'c [u8]) -> Option<Continued<'c>> {
        let mut completed = None;
        let mut rest = bytes;
        if self.len > 0 {
            let held = usize::from(self.len);
            let whole = sequence_len(self.bytes[0]);
            let need = whole.checked_sub(held).filter(|&n| n > 0)?;
            let mut window = self.bytes;
            if need > rest.len() {
                // Still incomplete: carried on if it can still be valid.
                let len = held + rest.len();
                put_small(&mut window[held..len], rest);
                return starts_sequence(&window[..len]).then_some(Continued {
                    completed: None,
                    text: "",
                    tail: [window[0], window[1], window[2]],
                    tail_len: len as u8,
                });
            }
            put_small(&mut window[held..whole], &rest[..need]);
            completed = Some(decode_char(&window[..whole])?);
            rest = &rest[need..];
        }
        let (cut, text) = if rest.len() <= SHORT_JOIN {
            // One pass finds the tail and checks the rest.
            let cut = whole_prefix(rest)?;
            // SAFETY: `whole_prefix` found `rest[..cut]` whole code points.
            (cut, unsafe { utf8_str_unchecked(&rest[..cut]) })
        } else {
            // The tail first, so that the bytes are validated once.
            let cut = incomplete_tail(rest).unwrap_or(rest.len());
            (cut, validate(&rest[..cut]).ok()?)
        };
        let mut tail = [0; 3];
        put_small(&mut tail[..rest.len() - cut], &rest[cut..]);
        Some(Continued {
            completed,
            text,
            tail,
            tail_len: (rest.len() - cut) as u8,
        })
    }

    #[cold]
    fn push_slow<'c>(&mut self, chunk: &'c [u8], base: u64, out: &mut impl FnMut(Utf8Piece<'c>)) {
        let mut rest = chunk;
        let mut offset = base;
        if self.len > 0 {
            let taken = self.complete(rest, out);
            rest = &rest[taken..];
            offset += taken as u64;
            if self.len > 0 {
                return;
            }
        }
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    if !text.is_empty() {
                        out(Utf8Piece::Text(Delta::borrowed(text)));
                    }
                    return;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    if valid > 0 {
                        // Validated just above; cannot fail.
                        let text = std::str::from_utf8(&rest[..valid]).unwrap_or_default();
                        out(Utf8Piece::Text(Delta::borrowed(text)));
                    }
                    match e.error_len() {
                        Some(bad) => {
                            out(Utf8Piece::Invalid(offset + valid as u64));
                            rest = &rest[valid + bad..];
                            offset += (valid + bad) as u64;
                        }
                        None => {
                            let tail = &rest[valid..];
                            self.bytes[..tail.len()].copy_from_slice(tail);
                            self.len = tail.len() as u8;
                            self.offset = offset + valid as u64;
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Completes the carried sequence with bytes from `rest`; returns how many
    /// bytes of `rest` it used.
    fn complete<'c>(&mut self, rest: &[u8], out: &mut impl FnMut(Utf8Piece<'c>)) -> usize {
        let held = self.len as usize;
        let mut window = self.bytes;
        let extra = rest.len().min(4 - held);
        window[held..held + extra].copy_from_slice(&rest[..extra]);
        let avail = held + extra;
        match std::str::from_utf8(&window[..avail]) {
            Ok(text) => {
                // The whole window is valid: its first char is the completed
                // one (there is one: the window holds the carried bytes).
                let first = text.chars().next().unwrap_or_default();
                out(Utf8Piece::Text(Delta::from(first)));
                self.len = 0;
                first.len_utf8().saturating_sub(held)
            }
            Err(e) if e.valid_up_to() > 0 => {
                // The valid start holds the completed char.
                let first = std::str::from_utf8(&window[..e.valid_up_to()])
                    .ok()
                    .and_then(|t| t.chars().next())
                    .unwrap_or_default();
                out(Utf8Piece::Text(Delta::from(first)));
                self.len = 0;
                first.len_utf8().saturating_sub(held)
            }
            Err(e) => match e.error_len() {
                Some(bad) => {
                    out(Utf8Piece::Invalid(self.offset));
                    self.len = 0;
                    bad.saturating_sub(held)
                }
                None => {
                    // Still incomplete: `rest` was too short and is all taken.
                    self.bytes = window;
                    self.len = avail as u8;
                    extra
                }
            },
        }
    }

    /// Ends the stream: an incomplete sequence is invalid. Returns its offset.
    pub(crate) fn finish(&mut self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        self.len = 0;
        Some(self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `valid_prefix` answers as `std::str::from_utf8` does: the valid
    /// prefix, and whether the rest is invalid rather than cut off, for
    /// every cut of text with one- to four-byte characters, with invalid
    /// bytes put in, short and past the SIMD validator's threshold.
    #[test]
    fn valid_prefix_agrees_with_std() {
        let text = "a<é\"世\\😀z".repeat(3);
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for end in 0..=text.len() {
            for from in 0..end.min(8) {
                let cut = &text.as_bytes()[from..end];
                cases.push(cut.to_vec());
                for bad in [0xFF, 0x80, 0xC0, 0xED] {
                    let mut spoilt = cut.to_vec();
                    spoilt.insert(cut.len() / 2, bad);
                    cases.push(spoilt);
                }
            }
        }
        for bytes in cases {
            let expected = match std::str::from_utf8(&bytes) {
                Ok(text) => (text.len(), false),
                Err(e) => (e.valid_up_to(), e.error_len().is_some()),
            };
            let (text, invalid) = valid_prefix(&bytes);
            assert_eq!((text.len(), invalid), expected, "{bytes:x?}");
            assert_eq!(text.as_bytes(), &bytes[..text.len()]);
        }
    }

    /// The one-sequence decoder agrees with `std::str::from_utf8` on every
    /// two-byte sequence and on all sequences of three and four bytes that
    /// begin with the boundary lead bytes.
    #[test]
    fn one_sequence_decodes_as_std_does() {
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for a in 0x80..=0xFFu8 {
            for b in 0..=0xFFu8 {
                cases.push(vec![a, b]);
                for lead in [0xE0, 0xE1, 0xED, 0xEE, 0xEF] {
                    cases.push(vec![lead, a, b]);
                }
                for lead in [0xF0, 0xF1, 0xF4, 0xF5] {
                    cases.push(vec![lead, a, b, 0x80]);
                    cases.push(vec![lead, 0x90, a, b]);
                }
            }
        }
        for bytes in cases {
            let std = std::str::from_utf8(&bytes).ok().map(|s| s.chars().next());
            let ours = (sequence_len(bytes[0]) == bytes.len())
                .then(|| decode_char(&bytes))
                .flatten();
            assert_eq!(ours, std.flatten(), "{bytes:x?}");
        }
    }

    /// `starts_sequence` agrees with `std::str::from_utf8`'s "unexpected
    /// end" on every sequence of one to three bytes that begins above
    /// ASCII.
    #[test]
    fn sequence_starts_as_std_sees_them() {
        // An unexpected end with nothing valid before it: one sequence.
        let ends_early = |bytes: &[u8]| {
            matches!(std::str::from_utf8(bytes),
                Err(e) if e.error_len().is_none() && e.valid_up_to() == 0)
        };
        for a in 0x80..=0xFFu8 {
            assert_eq!(starts_sequence(&[a]), ends_early(&[a]), "{a:x}");
            for b in 0..=0xFFu8 {
                assert_eq!(starts_sequence(&[a, b]), ends_early(&[a, b]), "{a:x} {b:x}");
                for c in 0..=0xFFu8 {
                    let bytes = [a, b, c];
                    assert_eq!(starts_sequence(&bytes), ends_early(&bytes), "{bytes:x?}");
                }
            }
        }
        assert!(!starts_sequence(&[]));
        assert!(!starts_sequence(b"a"));
    }

    /// Bytes at every boundary of UTF-8's byte classes: ASCII, each
    /// continuation range, the leads with narrow second bytes, bytes that
    /// never appear.
    const BOUNDARY_BYTES: [u8; 24] = [
        0x00, 0x3C, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
    ];

    /// Every string of up to five of those bytes, and the same after a
    /// few ASCII bytes: the inputs `whole_prefix` and `validate` decide.
    fn boundary_strings() -> Vec<Vec<u8>> {
        let mut all: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|s| {
                    BOUNDARY_BYTES.iter().map(move |&b| {
                        let mut longer = s.clone();
                        longer.push(b);
                        longer
                    })
                })
                .collect();
            all.extend(last.iter().cloned());
        }
        let prefixed: Vec<Vec<u8>> = all.iter().map(|s| [b"ab".as_slice(), s].concat()).collect();
        all.extend(prefixed);
        all
    }

    /// `whole_prefix` agrees with `std::str::from_utf8`: the valid prefix
    /// when the rest is a cut-off start of a code point (or nothing), and
    /// `None` when the bytes hold an invalid sequence; `validate` accepts
    /// exactly what std does.
    #[test]
    fn whole_prefix_agrees_with_std() {
        for bytes in boundary_strings() {
            let expected = match std::str::from_utf8(&bytes) {
                Ok(text) => Some(text.len()),
                Err(e) if e.error_len().is_none() => Some(e.valid_up_to()),
                Err(_) => None,
            };
            assert_eq!(whole_prefix(&bytes), expected, "{bytes:x?}");
            let std = std::str::from_utf8(&bytes).ok();
            assert_eq!(validate(&bytes).ok(), std, "{bytes:x?}");
            assert_eq!(validate_token(&bytes).ok(), std, "{bytes:x?}");
        }
    }

    /// `continue_short` decodes every carry and token as `continue_with`
    /// does, as one delta, and refuses exactly what it refuses.
    #[test]
    fn short_continuation_agrees_with_the_general_one() {
        let text = "aé世😀\"z東".as_bytes();
        let mut carries = vec![Utf8Carry::default()];
        for lead in [
            &text[1..2],
            &text[3..5],
            &text[6..7],
            &text[6..9],
            &b"\xE0"[..],
        ] {
            carries.push(Utf8Carry::holding(lead).unwrap());
        }
        let mut tokens: Vec<Vec<u8>> = Vec::new();
        for from in 0..text.len() {
            for to in from..=(from + SHORT_JOIN).min(text.len()) {
                tokens.push(text[from..to].to_vec());
            }
        }
        tokens.extend(boundary_strings().into_iter().filter(|s| s.len() <= 3));
        for carry in carries {
            for token in &tokens {
                let end = 100 + token.len() as u64;
                let general = carry.continue_with(token);
                let mut short = carry;
                match (general, short.continue_short(token, end)) {
                    (None, Err(())) => assert_eq!(short, carry, "{carry:?} {token:x?}"),
                    (Some(next), Ok(delta)) => {
                        let expected: String = next.completed().into_iter().collect();
                        let expected = expected + next.text();
                        let delta = delta.map_or(String::new(), |d| d.to_string());
                        assert_eq!(delta, expected, "{carry:?} {token:x?}");
                        // Alike in what they hold (bytes past `len` are
                        // stale, the offset of nothing is any).
                        let held = |c: Utf8Carry| {
                            (c.pending_offset(), c.bytes[..usize::from(c.len)].to_vec())
                        };
                        assert_eq!(held(short), held(next.carry(end)), "{carry:?} {token:x?}");
                    }
                    (general, short) => {
                        panic!("{carry:?} {token:x?}: {general:?} against {short:?}")
                    }
                }
            }
        }
    }

    fn decode_chunked(input: &[u8], size: usize) -> String {
        let mut carry = Utf8Carry::default();
        let mut out = String::new();
        let mut base = 0;
        for chunk in input.chunks(size.max(1)) {
            carry.push(chunk, base, &mut |p| match p {
                Utf8Piece::Text(t) => out.push_str(&t),
                Utf8Piece::Invalid(_) => out.push('\u{FFFD}'),
            });
            base += chunk.len() as u64;
        }
        if carry.finish().is_some() {
            out.push('\u{FFFD}');
        }
        out
    }

    /// Valid text in any chunking is decoded by `continue_with` alone (the
    /// slow path is only for invalid bytes), and carries what it should.
    #[test]
    fn valid_text_continues_at_every_chunk_size() {
        let text = "héllo wörld 你好 👋🏽 e\u{301} ok";
        for size in 1..=8 {
            let mut carry = Utf8Carry::default();
            let mut out = String::new();
            let mut base = 0;
            for chunk in text.as_bytes().chunks(size) {
                let next = carry
                    .continue_with(chunk)
                    .unwrap_or_else(|| panic!("size {size}: {chunk:?} after {carry:?}"));
                out.extend(next.completed());
                out.push_str(next.text());
                base += chunk.len() as u64;
                carry = next.carry(base);
                if let Some(at) = carry.pending_offset() {
                    assert_eq!(at + u64::from(carry.len), base, "size {size}");
                }
            }
            assert!(carry.is_empty());
            assert_eq!(out, text, "size {size}");
        }
    }

    #[test]
    fn continuing_refuses_what_is_not_utf8() {
        let carried = Utf8Carry {
            bytes: [0xE4, 0, 0, 0],
            len: 1,
            offset: 7,
        };
        // Not a continuation byte; not one that can follow 0xE4 0xBD; fine.
        assert_eq!(carried.continue_with(b"a"), None);
        assert_eq!(carried.continue_with(b"\xBDa"), None);
        let next = carried.continue_with(b"\xBD").unwrap();
        assert_eq!((next.completed(), next.text()), (None, ""));
        assert_eq!(
            next.carry(9),
            Utf8Carry {
                bytes: [0xE4, 0xBD, 0, 0],
                len: 2,
                offset: 7
            }
        );
        let next = carried.continue_with(b"\xBD\xA0!").unwrap();
        assert_eq!((next.completed, next.text), (Some('你'), "!"));
        assert!(next.carry(11).is_empty());
        // An invalid sequence after the valid text, and an invalid start of
        // one at the end.
        let empty = Utf8Carry::default();
        assert_eq!(empty.continue_with(b"ab\xFFcd"), None);
        assert_eq!(empty.continue_with(b"ab\xE0\x80"), None);
        let next = empty.continue_with(b"ab\xF0\x9F").unwrap();
        assert_eq!(next.text, "ab");
        assert_eq!(
            next.carry(4),
            Utf8Carry {
                bytes: [0xF0, 0x9F, 0, 0],
                len: 2,
                offset: 2
            }
        );
    }

    #[test]
    fn matches_lossy_at_every_chunk_size() {
        let samples: &[&[u8]] = &[
            "héllo wörld 你好 👋🏽 e\u{301}".as_bytes(),
            b"\xF0\x9F\x61\xE2\x82\xFF\xC3",
            b"ok\xED\xA0\x80ok\xF4\x90\x80\x80",
            b"\xE2\x82",
            b"\xC0\xAFab\xF0\x9F\x98",
        ];
        for s in samples {
            let want = String::from_utf8_lossy(s);
            for size in 1..=s.len() {
                assert_eq!(decode_chunked(s, size), want, "size {size} of {s:?}");
            }
        }
    }
}
