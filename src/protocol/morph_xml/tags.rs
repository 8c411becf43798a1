//! Tags in the buffered body: whether one starts, opens or closes at a
//! position (`None` while the body ends before it can tell).

use crate::protocol::xml::skip_ws;

/// Does `body[at..]` start with `lit`? `None` when it ends first.
pub(super) fn starts(body: &[u8], at: usize, lit: &[u8]) -> Option<bool> {
    let avail = &body[at.min(body.len())..];
    let n = lit.len().min(avail.len());
    if avail[..n] != lit[..n] {
        Some(false)
    } else if n < lit.len() {
        None
    } else {
        Some(true)
    }
}

/// The `>` that ends the tag `head` begins: the first one outside an
/// attribute's quotes (`<content note="a > b">`).
pub(super) fn tag_end(head: &[u8]) -> Option<usize> {
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
pub(super) fn is_name(key: &[u8]) -> bool {
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
pub(super) fn closes(body: &[u8], at: usize, key: &[u8]) -> Option<Option<usize>> {
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
pub(super) fn opens(body: &[u8], at: usize, key: &[u8]) -> Option<bool> {
    match starts(body, at + 1, key)? {
        false => Some(false),
        true => {
            let next = *body.get(at + 1 + key.len())?;
            Some(next == b'>' || next == b'/' || crate::scan::is_ws(next))
        }
    }
}
