//! The wire formats toolsieve recognises.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::limits::Limits;
use crate::protocol::Automaton;
use crate::scan::marker::Marker;
use crate::tool::Tool;

pub use crate::formats::Format;

impl Format {
    /// The formats as a Markdown table (name, aliases, what the model
    /// writes, whether it needs a tool list), as the documentation shows
    /// it; `toolsieve formats --markdown` prints it.
    #[doc(hidden)]
    pub fn formats_markdown() -> String {
        crate::formats::tables::formats_markdown()
    }

    /// The model families as a Markdown table (format, reasoning, thinking
    /// switch), as the documentation shows it.
    #[doc(hidden)]
    pub fn families_markdown() -> String {
        crate::formats::tables::families_markdown()
    }

    /// The canonical name, used on the command line and in `Display`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The other names [`FromStr`] accepts for the format: vLLM's and
    /// SGLang's `--tool-call-parser` names for it, and older names.
    /// Matching ignores case and treats `_` as `-`.
    pub fn aliases(self) -> &'static [&'static str] {
        self.spec().aliases
    }

    /// The canonical names of all formats.
    pub fn names() -> Vec<&'static str> {
        Format::ALL.iter().map(|f| f.name()).collect()
    }

    /// One line on what the format looks like.
    pub fn summary(self) -> &'static str {
        self.spec().summary
    }

    /// The format's stable number in fuzz inputs (see
    /// [`Format::from_fuzz_id`]).
    #[doc(hidden)]
    pub fn fuzz_id(self) -> u8 {
        self.spec().fuzz_id
    }

    /// The format whose [`fuzz_id`](Format::fuzz_id) is `id`, if any.
    #[doc(hidden)]
    pub fn from_fuzz_id(id: u8) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.fuzz_id() == id)
    }

    /// The format a name or alias stands for (case-insensitive, `_` and
    /// `-` alike), as [`FromStr`] reads it.
    ///
    /// ```
    /// use toolsieve::Format;
    ///
    /// assert_eq!(Format::from_name("qwen3_coder"), Some(Format::Qwen3Coder));
    /// assert_eq!(Format::from_name("GLM45"), Some(Format::Glm));
    /// assert_eq!(Format::from_name("deepseek"), Some(Format::DeepSeek));
    /// assert_eq!(Format::from_name("nope"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Format> {
        let wanted = normalize_name(name);
        Format::ALL.iter().copied().find(|f| {
            normalize_name(f.name()) == wanted
                || f.aliases().iter().any(|a| normalize_name(a) == wanted)
        })
    }

    /// The default start and end markers.
    pub fn default_delimiters(self) -> (&'static str, &'static str) {
        self.spec().delimiters
    }

    /// The format's start markers and the automaton that reads its calls.
    /// The reasoning tags the format itself defines (gpt-oss's analysis
    /// channel), as a parser built for it uses them by default.
    pub fn default_reasoning(self) -> Option<crate::Reasoning> {
        self.spec()
            .reasoning
            .map(|(start, end)| crate::Reasoning::tags(start, end))
    }

    pub(crate) fn automaton(
        self,
        delimiters: Option<(&str, &str)>,
        tools: &[Tool],
        limits: &Limits,
    ) -> Result<(Vec<Marker>, Automaton), Error> {
        (self.spec().reader)(delimiters, tools, limits)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Format, Error> {
        Format::from_name(s).ok_or_else(|| Error::UnknownFormat(s.to_owned()))
    }
}

/// `name` lowercased, with `_` read as `-`.
fn normalize_name(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| {
            if c == '_' {
                '-'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// As its canonical name (`"qwen3-coder"`).
impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// From its name or any alias, as [`FromStr`] reads it.
impl<'de> serde::Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Format, D::Error> {
        let name = Cow::<str>::deserialize(d)?;
        Format::from_name(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown format `{name}` (known: {})",
                Format::names().join(", ")
            ))
        })
    }
}
