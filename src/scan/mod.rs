//! Byte-level primitives shared by every format: marker search, UTF-8 carry
//! across chunk boundaries, and an incremental JSON scanner.

pub(crate) mod json;
pub(crate) mod marker;
pub(crate) mod utf8;

/// JSON whitespace.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Index of the first non-whitespace byte of `bytes`, or its length.
#[inline]
pub(crate) fn skip_ws(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| !is_ws(b)).unwrap_or(bytes.len())
}

/// Slice equality as a byte loop: markers and tags are short, and a libc
/// memcmp call costs more than the comparison.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (0..a.len()).all(|i| a[i] == b[i])
}
