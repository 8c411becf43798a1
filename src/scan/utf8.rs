//! UTF-8 decoding across chunk boundaries.
//!
//! A chunk may end inside a code point. [`Utf8Carry`] keeps the at most three
//! bytes of an incomplete sequence and completes it with the next chunk, so
//! every complete piece of text can be handed out as `&str` borrowed from the
//! chunk. Invalid sequences are reported where they start; the caller decides
//! what they become (U+FFFD in text, an error inside a call). Sequences are
//! delimited exactly as [`String::from_utf8_lossy`] does, whatever the
//! chunking, so replacement is split-invariant.

use std::borrow::Cow;

/// `std::str::from_utf8`, with SIMD validation for longer inputs (the
/// result, including `Err`, is the same; only speed differs).
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> Result<&str, ()> {
    if bytes.len() >= 32 {
        // SIMD validation has its own ASCII fast path: one pass, not two.
        simdutf8::basic::from_utf8(bytes).map_err(|_| ())
    } else if bytes.is_ascii() {
        Ok(ascii_str(bytes))
    } else {
        std::str::from_utf8(bytes).map_err(|_| ())
    }
}

/// `bytes`, known to be ASCII, as `&str`.
///
/// # Panics
///
/// In debug builds, if `bytes` is not ASCII (a bug of the caller); release
/// builds would hand out invalid `&str`, hence the few, simple callers.
///
/// The one `unsafe` block of the crate: `std::str::from_utf8` on the short
/// slices of token-sized chunks costs more than the rest of a text feed
/// (see the README's benchmark notes), and an ASCII check is all the
/// validation such bytes need.
#[allow(unsafe_code)]
#[inline]
pub(crate) fn ascii_str(bytes: &[u8]) -> &str {
    debug_assert!(bytes.is_ascii());
    // SAFETY: every caller checked `bytes.is_ascii()`, and ASCII is UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// One decoded piece.
pub(crate) enum Utf8Piece<'c> {
    /// Valid text.
    Text(Cow<'c, str>),
    /// A maximal invalid sequence starting at this stream offset.
    Invalid(u64),
}

#[derive(Debug, Default, Clone, Copy)]
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
                    out(Utf8Piece::Text(Cow::Borrowed(text)));
                }
                return;
            }
        }
        self.push_slow(chunk, base, out)
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
                        out(Utf8Piece::Text(Cow::Borrowed(text)));
                    }
                    return;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    if valid > 0 {
                        // Validated just above; cannot fail.
                        let text = std::str::from_utf8(&rest[..valid]).unwrap_or_default();
                        out(Utf8Piece::Text(Cow::Borrowed(text)));
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
                // The whole window is valid: its first char is the completed one.
                let ch_len = text.chars().next().map_or(avail, char::len_utf8);
                out(Utf8Piece::Text(Cow::Owned(text[..ch_len].to_owned())));
                self.len = 0;
                ch_len - held
            }
            Err(e) if e.valid_up_to() > 0 => {
                let ch_len = std::str::from_utf8(&window[..e.valid_up_to()])
                    .ok()
                    .and_then(|t| t.chars().next())
                    .map_or(1, char::len_utf8);
                let text = String::from_utf8_lossy(&window[..ch_len]).into_owned();
                out(Utf8Piece::Text(Cow::Owned(text)));
                self.len = 0;
                ch_len - held
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
