//! [`Delta`]: the text an event carries, borrowed from the chunk whenever
//! it can be.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A piece of text carried by [`Event::TextDelta`](crate::Event::TextDelta),
/// [`Event::ReasoningDelta`](crate::Event::ReasoningDelta) and
/// [`Event::ToolInputDelta`](crate::Event::ToolInputDelta).
///
/// Like a `Cow<'a, str>`, with one more way to hold text: short text is
/// held inline (no heap), so a parser fed bytes in any pieces allocates
/// nothing for text. A delta is one of:
///
/// - **borrowed** from the chunk just fed (the usual case; see
///   [`is_borrowed`](Self::is_borrowed)) or from a static string (the
///   format's syntax, JSON escapes);
/// - **inline**: a code point completed across chunks, or up to
///   30 bytes the parser built or held (an XML parameter's
///   `, "city": "Paris"`, a `<` that began no marker);
/// - **owned**, for longer text built from bytes the parser held.
///
/// A `Delta` is four words (32 bytes on 64-bit targets), one more than a
/// `Cow<str>`: room for most built text, and no event is larger for it
/// (a diagnostic is the largest).
///
/// It dereferences to `str`, so most code reads it as one:
///
/// ```
/// use toolsieve::{Delta, Event, Format, Parser};
///
/// let mut parser = Parser::new(Format::Hermes);
/// let mut text = String::new();
/// for chunk in [&b"caf\xC3"[..], b"\xA9 ok"] {
///     parser.feed(chunk, &mut |event| {
///         if let Event::TextDelta { delta, .. } = event {
///             text.push_str(&delta);
///         }
///     });
/// }
/// parser.finish(&mut |_| {});
/// assert_eq!(text, "café ok");
///
/// assert_eq!(Delta::from('é'), "é");
/// assert!(Delta::from("chunk").is_borrowed());
/// ```
#[derive(Clone)]
pub struct Delta<'a>(Repr<'a>);

#[derive(Clone)]
enum Repr<'a> {
    Borrowed(&'a str),
    /// The UTF-8 of one `char`, in its first `len` bytes.
    Char {
        utf8: [u8; 4],
        len: u8,
    },
    /// Built text, in the first `len` bytes: more can join it (while it
    /// fits; then it becomes [`Repr::Owned`]), as it can join an owned one.
    Inline {
        utf8: [u8; INLINE],
        len: u8,
    },
    Owned(String),
}

/// The most bytes a [`Repr::Inline`] holds: what fits beside its length and
/// the variant's tag in four words. A parameter's built delta
/// (`, "units": "metric"`) fits: measured, four words cost fewer
/// instructions than three on every bench corpus, five or six no fewer.
pub(crate) const INLINE: usize = 30;

impl<'a> Delta<'a> {
    /// Text that lives as long as `'a`.
    #[inline]
    pub const fn borrowed(text: &'a str) -> Delta<'a> {
        Delta(Repr::Borrowed(text))
    }

    /// The text.
    #[inline(always)]
    pub fn as_str(&self) -> &str {
        // The usual borrowed delta reads in a few instructions, wherever
        // it is read; the other kinds out of line.
        match &self.0 {
            Repr::Borrowed(text) => text,
            _ => self.held_str(),
        }
    }

    /// [`as_str`](Self::as_str) of a delta that holds its text.
    #[inline(never)]
    fn held_str(&self) -> &str {
        match &self.0 {
            Repr::Borrowed(text) => text,
            Repr::Owned(text) => text,
            Repr::Char { utf8, len } => char_str(utf8, *len),
            Repr::Inline { utf8, len } => inline_str(utf8, *len),
        }
    }

    /// A copy of `text`: inline when it is short, owned otherwise.
    pub(crate) fn copied(text: &str) -> Delta<'static> {
        Delta(Self::inline(text).unwrap_or_else(|| Repr::Owned(text.to_owned())))
    }

    /// `text` held inline, if it fits.
    #[inline]
    fn inline(text: &str) -> Option<Repr<'static>> {
        Self::joined(text, "")
    }

    /// `text` and then `more` held inline, if they fit.
    fn joined(text: &str, more: &str) -> Option<Repr<'static>> {
        let mut utf8 = [0; INLINE];
        let len = text.len() + more.len();
        let (first, second) = utf8.get_mut(..len)?.split_at_mut(text.len());
        first.copy_from_slice(text.as_bytes());
        second.copy_from_slice(more.as_bytes());
        Some(Repr::Inline {
            utf8,
            len: len as u8,
        })
    }

    /// `c` and then `text` as one delta held inline, when they fit (a code
    /// point that a chunk boundary split, and the whole ones after it in a
    /// token-sized chunk): one event where there would be two.
    #[inline]
    pub(crate) fn char_then(c: char, text: &str) -> Option<Delta<'static>> {
        let mut utf8 = [0; INLINE];
        let first = c.encode_utf8(&mut utf8).len();
        let len = first + text.len();
        utf8.get_mut(first..len)?.copy_from_slice(text.as_bytes());
        Some(Delta(Repr::Inline {
            utf8,
            len: len as u8,
        }))
    }

    /// The first `len` bytes of `utf8` held inline.
    ///
    /// # Safety
    ///
    /// `utf8[..len]` is UTF-8 (the delta reads it as `str` unchecked).
    #[allow(unsafe_code)]
    #[inline]
    pub(crate) unsafe fn inline_prefix(utf8: [u8; INLINE], len: usize) -> Delta<'static> {
        debug_assert!(std::str::from_utf8(&utf8[..len]).is_ok());
        Delta(Repr::Inline {
            utf8,
            len: len as u8,
        })
    }

    /// A delta that `text` starts and more built text may join: inline
    /// when it is short, otherwise owned with room to grow.
    pub(crate) fn building(text: &str) -> Delta<'static> {
        Delta(Self::inline(text).unwrap_or_else(|| Repr::Owned(grown(text, ""))))
    }

    /// The text's length in bytes, as `str::len`, without reading the
    /// text.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Borrowed(text) => text.len(),
            Repr::Owned(text) => text.len(),
            Repr::Char { len, .. } | Repr::Inline { len, .. } => usize::from(*len),
        }
    }

    /// Whether the text is empty, as `str::is_empty`.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text is borrowed (from the chunk, or a static string):
    /// neither inline nor owned.
    #[inline]
    pub fn is_borrowed(&self) -> bool {
        matches!(self.0, Repr::Borrowed(_))
    }

    /// The same delta, holding its text where it was borrowed (inline if
    /// short), so that it outlives the chunk.
    pub fn into_static(self) -> Delta<'static> {
        match self.0 {
            Repr::Borrowed(text) => Delta::copied(text),
            Repr::Char { utf8, len } => Delta(Repr::Char { utf8, len }),
            Repr::Inline { utf8, len } => Delta(Repr::Inline { utf8, len }),
            Repr::Owned(text) => Delta(Repr::Owned(text)),
        }
    }

    /// Whether the text was built (owned, or inline and not one code
    /// point): more text joins it without a new delta.
    pub(crate) fn is_built(&self) -> bool {
        matches!(self.0, Repr::Owned(_) | Repr::Inline { .. })
    }

    /// `more` joined to the end of the text (inline while it fits, then
    /// owned, with room to grow): for joining adjacent deltas.
    pub fn push_str(&mut self, more: &str) {
        match &mut self.0 {
            Repr::Owned(text) => text.push_str(more),
            Repr::Inline { utf8, len } => {
                let at = usize::from(*len);
                match utf8.get_mut(at..at + more.len()) {
                    Some(room) => {
                        room.copy_from_slice(more.as_bytes());
                        *len += more.len() as u8;
                    }
                    None => self.0 = Repr::Owned(grown(inline_str(utf8, *len), more)),
                }
            }
            // Borrowed text or one character: joined inline if it fits
            // (a string's closing quote and the next key, `", "note": "`).
            _ => {
                let joined = Self::joined(self.as_str(), more);
                self.0 = joined.unwrap_or_else(|| Repr::Owned(grown(self.as_str(), more)));
            }
        }
    }

    /// The text as a `String` (no copy if it was owned), as
    /// [`Cow::into_owned`].
    pub fn into_owned(self) -> String {
        match self.0 {
            Repr::Owned(text) => text,
            _ => self.as_str().to_owned(),
        }
    }

    /// The text as a `Cow` (a completed code point becomes owned).
    pub fn into_cow(self) -> Cow<'a, str> {
        match self.0 {
            Repr::Borrowed(text) => Cow::Borrowed(text),
            Repr::Owned(text) => Cow::Owned(text),
            Repr::Char { .. } | Repr::Inline { .. } => Cow::Owned(self.as_str().to_owned()),
        }
    }
}

/// `text` and `more` in a new string with room to grow (built deltas
/// usually take a few more pieces).
fn grown(text: &str, more: &str) -> String {
    let mut grown = String::with_capacity((text.len() + more.len()).max(32) * 2);
    grown.push_str(text);
    grown.push_str(more);
    grown
}

/// The text of a [`Repr::Char`].
#[allow(unsafe_code)]
fn char_str(utf8: &[u8; 4], len: u8) -> &str {
    let bytes = &utf8[..usize::from(len)];
    debug_assert!(std::str::from_utf8(bytes).is_ok());
    // SAFETY: only `From<char>` makes that variant: the bytes are the
    // UTF-8 of one char.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// The text of a [`Repr::Inline`]. Read on every built delta that goes
/// out (the call's input joins it), so not validated again.
#[allow(unsafe_code)]
fn inline_str(utf8: &[u8; INLINE], len: u8) -> &str {
    let bytes = &utf8[..usize::from(len)];
    debug_assert!(std::str::from_utf8(bytes).is_ok());
    // SAFETY: the variant is made from `&str`, joined with `&str` (whole
    // code points), or by `inline_prefix`, whose callers guarantee UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

impl Default for Delta<'_> {
    fn default() -> Self {
        Delta::borrowed("")
    }
}

impl Deref for Delta<'_> {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Delta<'_> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Delta<'_> {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl<'a> From<&'a str> for Delta<'a> {
    #[inline]
    fn from(text: &'a str) -> Self {
        Delta::borrowed(text)
    }
}

impl From<String> for Delta<'_> {
    fn from(text: String) -> Self {
        Delta(Repr::Owned(text))
    }
}

impl From<char> for Delta<'_> {
    /// One code point, held inline.
    fn from(c: char) -> Self {
        let mut utf8 = [0; 4];
        let len = c.encode_utf8(&mut utf8).len() as u8;
        Delta(Repr::Char { utf8, len })
    }
}

impl<'a> From<Cow<'a, str>> for Delta<'a> {
    fn from(text: Cow<'a, str>) -> Self {
        match text {
            Cow::Borrowed(text) => Delta::borrowed(text),
            Cow::Owned(text) => Delta(Repr::Owned(text)),
        }
    }
}

impl<'a> From<Delta<'a>> for Cow<'a, str> {
    fn from(delta: Delta<'a>) -> Self {
        delta.into_cow()
    }
}

impl From<Delta<'_>> for String {
    fn from(delta: Delta<'_>) -> Self {
        delta.into_owned()
    }
}

impl fmt::Debug for Delta<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Delta<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<Delta<'_>> for Delta<'_> {
    fn eq(&self, other: &Delta<'_>) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Delta<'_> {}

impl PartialEq<str> for Delta<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Delta<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Delta<'_> {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Delta<'_>> for &str {
    fn eq(&self, other: &Delta<'_>) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Delta<'_>> for str {
    fn eq(&self, other: &Delta<'_>) -> bool {
        self == other.as_str()
    }
}

impl Hash for Delta<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl Serialize for Delta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Delta<'_> {
    /// Always owned, as a deserialized `Cow<str>` is.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Delta::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_as_its_text() {
        let owned = Delta::from(String::from("owned"));
        assert_eq!(owned, "owned");
        assert!(!owned.is_borrowed());
        for c in ['a', 'é', '世', '🦀'] {
            let delta = Delta::from(c);
            assert_eq!(delta.as_str(), c.to_string());
            assert!(!delta.is_borrowed());
            assert_eq!(delta.clone().into_static(), delta);
            assert_eq!(delta.into_cow(), c.to_string());
        }
        let borrowed = Delta::from("chunk");
        assert_eq!(borrowed.clone().into_static().as_str(), "chunk");
        assert_eq!(String::from(borrowed), "chunk");
    }

    #[test]
    fn short_text_is_held_inline_and_grows_into_a_string() {
        let mut built = Delta::building("{\"city\": \"");
        assert!(built.is_built() && !built.is_borrowed());
        assert!(matches!(built.0, Repr::Inline { .. }));
        built.push_str("Paris");
        assert_eq!(built, "{\"city\": \"Paris");
        let fill = "x".repeat(INLINE - built.len());
        built.push_str(&fill);
        assert_eq!(built.len(), INLINE);
        assert!(matches!(built.0, Repr::Inline { .. }), "{INLINE} bytes fit");
        built.push_str("é");
        assert_eq!(built, format!("{{\"city\": \"Paris{fill}é"));
        assert!(matches!(built.0, Repr::Owned(_)));
        // Held text given back (a `<` that began no marker) stays inline.
        let held = Delta::from("<tool_c").into_static();
        assert!(matches!(held.0, Repr::Inline { .. }));
        assert_eq!(held.clone().into_cow(), "<tool_c");
        assert_eq!(held.into_owned(), "<tool_c");
        let long = Delta::from("a text of more than thirty bytes, held owned").into_static();
        assert!(matches!(long.0, Repr::Owned(_)));
        let mut c = Delta::from('é');
        assert!(!c.is_built());
        c.push_str("t");
        assert_eq!(c, "ét");
        assert!(
            matches!(c.0, Repr::Inline { .. }),
            "a char and more, inline"
        );
        // Borrowed text joined by more: inline while it fits.
        let mut quote = Delta::borrowed("\"");
        quote.push_str(", \"note\": \"");
        assert_eq!(quote, "\", \"note\": \"");
        assert!(matches!(quote.0, Repr::Inline { .. }));
        let mut long = Delta::borrowed("\"");
        long.push_str(&"x".repeat(INLINE));
        assert!(matches!(long.0, Repr::Owned(_)));
        assert_eq!(long.len(), INLINE + 1);
        for text in [
            "",
            "x",
            "0123456789abcde",
            "0123456789abcdef",
            "0123456789abcdef0123456789abcd",
            "0123456789abcdef0123456789abcde",
            "世界世界世界",
        ] {
            assert_eq!(Delta::copied(text), text);
            assert_eq!(Delta::building(text), text);
        }
    }

    #[test]
    fn serializes_as_a_string_and_keeps_events_small() {
        let delta = Delta::from('é');
        assert_eq!(serde_json::to_string(&delta).unwrap(), "\"é\"");
        let back: Delta<'static> = serde_json::from_str("\"é\"").unwrap();
        assert_eq!(back, delta);
        // Four words, and no event grows for it: a diagnostic is larger.
        assert_eq!(
            std::mem::size_of::<Delta<'_>>(),
            4 * std::mem::size_of::<usize>()
        );
        assert!(std::mem::size_of::<Delta<'_>>() < std::mem::size_of::<crate::Diagnostic>());
        assert!(
            std::mem::size_of::<crate::Event<'_>>()
                <= std::mem::size_of::<crate::Diagnostic>() + std::mem::size_of::<u64>()
        );
    }
}
