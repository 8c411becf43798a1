//! Byte-level primitives shared by the formats: marker search, UTF-8 carry
//! across chunk boundaries, an incremental JSON scanner, XML tags, Python
//! and Gemma 4 literals, and the partial-literal matcher.

pub(crate) mod json;
pub(crate) mod literal;
pub(crate) mod marker;
pub(crate) mod partial;
pub(crate) mod relaxed;
pub(crate) mod utf8;
pub(crate) mod xml;

/// The union (`|`) of the classes `table` gives the bytes of `hay`, with
/// no early exit (a branch-free pass over a token is cheaper). The bytes
/// are read four at a time, in reads that may overlap, since a byte read
/// twice changes nothing: a token of up to sixteen bytes takes no loop.
///
/// # Complexity
///
/// O(`hay.len()`), about one table load a byte.
#[inline(always)]
pub(crate) fn class_union(table: &[u8; 256], hay: &[u8]) -> u8 {
    let class = |b: u8| table[usize::from(b)];
    let four = |q: &[u8]| class(q[0]) | class(q[1]) | class(q[2]) | class(q[3]);
    let n = hay.len();
    match *hay {
        [a, b, c, d] => class(a) | class(b) | class(c) | class(d),
        // One, two or three bytes: the first, middle and last cover them.
        [a, ..] if n < 4 => class(a) | class(hay[n / 2]) | class(hay[n - 1]),
        _ if (5..=8).contains(&n) => four(&hay[..4]) | four(&hay[n - 4..]),
        _ if (9..=16).contains(&n) => {
            four(&hay[..4]) | four(&hay[4..8]) | four(&hay[n - 8..n - 4]) | four(&hay[n - 4..])
        }
        // Eight a step, and the last eight for what is left.
        _ if n > 16 => hay.chunks_exact(8).fold(
            four(&hay[n - 8..n - 4]) | four(&hay[n - 4..]),
            |seen, eight| seen | four(&eight[..4]) | four(&eight[4..]),
        ),
        _ => 0,
    }
}

/// JSON whitespace.
#[inline]
pub(crate) const fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Index of the first non-whitespace byte of `bytes`, or its length.
#[inline]
pub(crate) fn skip_ws(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| !is_ws(b)).unwrap_or(bytes.len())
}

/// Index of the last non-whitespace byte of `bytes`, if any.
#[inline]
pub(crate) fn last_non_ws(bytes: &[u8]) -> Option<usize> {
    bytes.iter().rposition(|&b| !is_ws(b))
}

/// `bytes` without whitespace at either end.
pub(crate) fn trim_ws(bytes: &[u8]) -> &[u8] {
    let start = skip_ws(bytes);
    let end = last_non_ws(bytes).map_or(start, |i| i + 1);
    &bytes[start..end.max(start)]
}

/// `buf.extend_from_slice(bytes)`, with the copy of a token-sized slice
/// inline: a copy of unknown length is a call into the C library's
/// `memcpy`, which costs more than the few bytes of a token (two of them a
/// chunk inside a call: its raw bytes and the automaton's body).
#[inline(always)]
pub(crate) fn append_bytes(buf: &mut Vec<u8>, bytes: &[u8]) {
    match *bytes {
        [a] => buf.push(a),
        [a, b] => buf.extend_from_slice(&[a, b]),
        [a, b, c] => buf.extend_from_slice(&[a, b, c]),
        [a, b, c, d] => buf.extend_from_slice(&[a, b, c, d]),
        [a, b, c, d, e, f, g, h] => buf.extend_from_slice(&[a, b, c, d, e, f, g, h]),
        _ => buf.extend_from_slice(bytes),
    }
}

/// `buf.push_str(text)`, with the copy of a token-sized text inline, as
/// [`append_bytes`] does (a built delta joins the call's input this way,
/// once a chunk).
#[inline(always)]
pub(crate) fn append_str(buf: &mut String, text: &str) {
    // Each arm slices `text` to its own length, a constant the copy is
    // then compiled for (the char-boundary check folds away).
    match text.len() {
        1 => buf.push_str(&text[..1]),
        2 => buf.push_str(&text[..2]),
        3 => buf.push_str(&text[..3]),
        4 => buf.push_str(&text[..4]),
        _ => buf.push_str(text),
    }
}

/// Below this many bytes a byte loop finds a byte for less than memchr's
/// set-up (tokens and names are this short).
const SHORT: usize = 16;

/// The first `needle` in `hay`: [`memchr::memchr`], but a loop for a
/// token-sized `hay`.
#[inline]
pub(crate) fn find_byte(needle: u8, hay: &[u8]) -> Option<usize> {
    match hay.len() < SHORT {
        true => hay.iter().position(|&b| b == needle),
        false => memchr::memchr(needle, hay),
    }
}

/// The first `a` or `b` in `hay`, as [`find_byte`] finds one.
#[inline]
pub(crate) fn find_byte2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    match hay.len() < SHORT {
        true => hay.iter().position(|&c| c == a || c == b),
        false => memchr::memchr2(a, b, hay),
    }
}

/// The first `needle` in `hay`: [`memchr::memmem::find`], but a
/// comparison at each place for a token-sized `hay` (the finder's set-up
/// costs more than that).
#[inline]
pub(crate) fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    match hay.len() < SHORT && !needle.is_empty() {
        true => hay
            .windows(needle.len())
            .position(|w| same_bytes(w, needle)),
        false => memchr::memmem::find(hay, needle),
    }
}

/// `text.trim()`, without its Unicode search where both ends are ASCII
/// (names, keys and attributes nearly always are): that search costs more
/// than the rest of reading a short tag.
#[inline]
pub(crate) fn trim(text: &str) -> &str {
    let t = text.trim_ascii();
    // What `trim_ascii` leaves that `trim` does not: U+000B, and
    // whitespace beyond ASCII.
    let plain = |b: Option<&u8>| b.is_none_or(|&b| b.is_ascii() && b != 0x0b);
    match plain(t.as_bytes().first()) && plain(t.as_bytes().last()) {
        true => t,
        false => trim_beyond_ascii(t),
    }
}

/// [`trim`] where an end is not plain ASCII: out of line, as it is rare.
#[cold]
#[inline(never)]
fn trim_beyond_ascii(text: &str) -> &str {
    text.trim()
}

/// `hay.starts_with(prefix)` by [`same_bytes`]: no libc call for the
/// short literals it is asked about.
#[inline]
pub(crate) fn begins_with(hay: &[u8], prefix: &[u8]) -> bool {
    hay.len() >= prefix.len() && same_bytes(&hay[..prefix.len()], prefix)
}

/// The `W` bytes of `s` from `at`, as an array: one load, no libc call.
///
/// # Panics
///
/// If `s` holds fewer than `at + W` bytes.
#[inline]
pub(crate) fn word<const W: usize>(s: &[u8], at: usize) -> [u8; W] {
    let mut w = [0; W];
    w.copy_from_slice(&s[at..at + W]);
    w
}

/// Slice equality without a libc memcmp call, which costs more than the
/// comparison for markers and tags: up to 16 bytes are two overlapping word
/// compares, anything longer a byte loop.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        _ => (0..n).all(|i| a[i] == b[i]),
    }
}

#[cfg(test)]
mod tests {
    use super::{append_bytes, append_str, begins_with, find_byte2, find_bytes, same_bytes, trim};

    /// The short searches answer as the slice methods and memchr do, on
    /// both sides of the length where they switch.
    #[test]
    fn short_searches_answer_as_memchr() {
        let text = b"ab<|\"|>c\\\"<|\"|>d<|\"|";
        for from in 0..text.len() {
            for to in from..=text.len() {
                let hay = &text[from..to];
                let padded = [hay, &[b'x'; 20][..]].concat();
                for hay in [hay, &padded[..]] {
                    for needle in [&b"<|\"|>"[..], b"\\", b"d", b""] {
                        let want = hay.windows(needle.len().max(1)).position(|w| w == needle);
                        let want = if needle.is_empty() { Some(0) } else { want };
                        assert_eq!(find_bytes(hay, needle), want, "{hay:?} {needle:?}");
                        assert_eq!(begins_with(hay, needle), hay.starts_with(needle));
                    }
                    let want = hay.iter().position(|&b| b == b'"' || b == b'\\');
                    assert_eq!(find_byte2(b'"', b'\\', hay), want, "{hay:?}");
                }
            }
        }
    }

    #[test]
    fn trim_is_str_trim() {
        let ends = [
            "",
            " ",
            "\t\n",
            "\u{b}",
            " \u{b} ",
            "\u{a0}",
            "\u{3000} ",
            "\u{1c}",
            "x",
            "é",
        ];
        for a in ends {
            for b in ends {
                for middle in ["", "city", " a b ", "\u{b}", "東京"] {
                    let s = format!("{a}{middle}{b}");
                    assert_eq!(trim(&s), s.trim(), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn same_bytes_is_slice_equality() {
        let base: Vec<u8> = (0..40).collect();
        for len in 0..40 {
            let a = &base[..len];
            assert!(same_bytes(a, a));
            assert!(!same_bytes(a, &base[..len + 1]));
            for flip in 0..len {
                let mut b = a.to_vec();
                b[flip] ^= 0x20;
                assert!(!same_bytes(a, &b), "len {len}, byte {flip}");
            }
        }
    }

    #[test]
    fn append_bytes_is_extend_from_slice() {
        let base: Vec<u8> = (1..=20).collect();
        for before in [0, 3, 7] {
            for len in 0..base.len() {
                let mut want = vec![0xAA; before];
                want.extend_from_slice(&base[..len]);
                // Exactly full, so that every length also makes it grow.
                let mut got = Vec::with_capacity(before);
                got.resize(before, 0xAA);
                append_bytes(&mut got, &base[..len]);
                assert_eq!(got, want, "{before} then {len}");
            }
        }
    }

    #[test]
    fn append_str_is_push_str() {
        // Texts of every length the inline arms take and past them, with
        // characters of two, three and four bytes among them.
        let texts = [
            "", "a", "é", "世", "ab", "aé", "𝄞", "a世", "éé", "ab世", "é世", "a𝄞x",
        ];
        for before in ["", "x", "前缀"] {
            for text in texts {
                let mut want = String::from(before);
                want.push_str(text);
                // Exactly full, so that every length also makes it grow.
                let mut got = String::with_capacity(before.len());
                got.push_str(before);
                append_str(&mut got, text);
                assert_eq!(got, want, "{before:?} then {text:?}");
            }
        }
    }
}
