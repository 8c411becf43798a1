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
/// Like a `Cow<'a, str>`, with one more way to hold text: a code point
/// that a chunk boundary split is completed inline (at most four bytes, no
/// heap), so a parser fed bytes in any pieces allocates nothing for text.
/// A delta is one of:
///
/// - **borrowed** from the chunk just fed (the usual case; see
///   [`is_borrowed`](Self::is_borrowed)) or from a static string (the
///   format's syntax, JSON escapes);
/// - **one code point** completed across chunks;
/// - **owned**, for text built from bytes the parser held.
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
    Owned(String),
}

impl<'a> Delta<'a> {
    /// Text that lives as long as `'a`.
    #[inline]
    pub const fn borrowed(text: &'a str) -> Delta<'a> {
        Delta(Repr::Borrowed(text))
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Borrowed(text) => text,
            Repr::Owned(text) => text,
            Repr::Char { utf8, len } => char_str(utf8, *len),
        }
    }

    /// Whether the text is borrowed (from the chunk, or a static string):
    /// neither a completed code point nor owned.
    #[inline]
    pub fn is_borrowed(&self) -> bool {
        matches!(self.0, Repr::Borrowed(_))
    }

    /// The same delta, owned where it was borrowed, so that it outlives
    /// the chunk (a completed code point stays inline).
    pub fn into_static(self) -> Delta<'static> {
        Delta(match self.0 {
            Repr::Borrowed(text) => Repr::Owned(text.to_owned()),
            Repr::Char { utf8, len } => Repr::Char { utf8, len },
            Repr::Owned(text) => Repr::Owned(text),
        })
    }

    /// Whether the text is an owned `String` (which more text can join
    /// without a new allocation).
    pub(crate) fn is_owned(&self) -> bool {
        matches!(self.0, Repr::Owned(_))
    }

    /// `more` joined to the end of the text (which becomes owned, with room
    /// to grow): for joining adjacent deltas.
    pub fn push_str(&mut self, more: &str) {
        match &mut self.0 {
            Repr::Owned(text) => text.push_str(more),
            _ => {
                let mut text = String::with_capacity((self.len() + more.len()) * 2);
                text.push_str(self.as_str());
                text.push_str(more);
                self.0 = Repr::Owned(text);
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
            Repr::Char { .. } => Cow::Owned(self.as_str().to_owned()),
        }
    }
}

/// The text of a [`Repr::Char`]. Out of line, so that reading the usual
/// borrowed delta stays a few instructions.
#[inline(never)]
fn char_str(utf8: &[u8; 4], len: u8) -> &str {
    // Only `From<char>` makes that variant: the bytes are the UTF-8 of one
    // char, so this never falls back.
    std::str::from_utf8(&utf8[..usize::from(len)]).unwrap_or_default()
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
    fn serializes_as_a_string_and_is_as_large_as_a_cow() {
        let delta = Delta::from('é');
        assert_eq!(serde_json::to_string(&delta).unwrap(), "\"é\"");
        let back: Delta<'static> = serde_json::from_str("\"é\"").unwrap();
        assert_eq!(back, delta);
        // Events stay as small as they were with `Cow<str>` deltas.
        assert_eq!(
            std::mem::size_of::<Delta<'_>>(),
            std::mem::size_of::<Cow<'_, str>>()
        );
    }
}
