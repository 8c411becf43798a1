//! The wire formats toolsieve recognises.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::limits::Limits;
use crate::protocol::json_call::JsonCall;
use crate::protocol::morph_xml::MorphXml;
use crate::protocol::token_call::{TokenCall, Vendor};
use crate::protocol::xml_call::{Dialect, XmlCall};
use crate::protocol::Automaton;
use crate::scan::marker::{Boundary, Marker};
use crate::tool::Tool;

/// A tool-call wire format. Each has one automaton in `src/protocol/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// `<tool_call>{"name": …, "arguments": {…}}</tool_call>` — Hermes,
    /// Qwen 2.5 / Qwen 3 and every model that wraps a JSON call in two
    /// markers (both configurable).
    Hermes,
    /// A markdown fence: ```` ```tool_call ```` on its own line, a JSON
    /// `{"name", "arguments"}` object, then ```` ``` ````. The language tag is
    /// configurable.
    Gemma,
    /// Qwen3-Coder: `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>`.
    Qwen3Coder,
    /// MiniMax-M2: `<minimax:tool_call><invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke></minimax:tool_call>`.
    MiniMaxM2,
    /// morph-xml: the root element is the tool's name, each child a
    /// parameter: `<get_weather><city>Paris</city></get_weather>`. Needs the
    /// tool list.
    MorphXml,
    /// GLM-4.5 / 4.6 / 4.7: `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call>`.
    Glm,
    /// DeepSeek-V3.1 and later (`deepseek-v3.1`, alias `deepseek`):
    /// `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
    /// also reads DeepSeek-V3 / R1's `function<｜tool▁sep｜>NAME` with the
    /// arguments in a ```` ```json ```` fence.
    DeepSeek,
    /// Kimi-K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`.
    KimiK2,
    /// DeepSeek-V3.2's DSML: `<｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="KEY" string="true">VALUE</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`;
    /// `string="false"` marks a JSON value. Also DeepSeek-V4's
    /// `<｜DSML｜tool_calls>` blocks, V4.1's spaced tags (`<｜DSML｜ calls>`),
    /// an `invoke` without its block, and DSML whose `｜DSML｜` tokens a
    /// server dropped (`<function_calls><invoke name="NAME">…`).
    DeepSeekDsml,
    /// DeepSeek-V3 and R1 (`deepseek-v3`): `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`
    /// and the arguments in a ```` ```json ```` fence. Reads the V3.1 layout
    /// too, as [`Format::DeepSeek`] does; prompts and history are written in
    /// the V3 layout.
    DeepSeekV3,
}

/// The facts of one format that are not code: its names, its one-line
/// summary and its fuzz id. [`Format::spec`] is the registry.
struct Spec {
    /// The canonical name (`--format`).
    name: &'static str,
    /// Other names accepted for it: the names vLLM's and SGLang's
    /// `--tool-call-parser` give the same format, and older names.
    aliases: &'static [&'static str],
    summary: &'static str,
    /// The format's number in fuzz inputs: never reused, never changed, so
    /// that seeds and regression files keep their meaning as formats are
    /// added.
    fuzz_id: u8,
}

impl Format {
    /// Every format, in the order `toolsieve formats` lists them.
    pub const ALL: &'static [Format] = &[
        Format::Hermes,
        Format::Gemma,
        Format::Qwen3Coder,
        Format::MiniMaxM2,
        Format::Glm,
        Format::MorphXml,
        Format::DeepSeek,
        Format::KimiK2,
        Format::DeepSeekDsml,
        Format::DeepSeekV3,
    ];

    /// The registry: every fact about a format that is not code.
    fn spec(self) -> &'static Spec {
        match self {
            Format::Hermes => &Spec {
                name: "hermes",
                aliases: &["qwen", "qwen25", "qwen2.5", "hermes2-pro"],
                summary: r#"<tool_call>{"name": "f", "arguments": {...}}</tool_call>"#,
                fuzz_id: 0,
            },
            Format::Gemma => &Spec {
                name: "gemma",
                aliases: &["gemma3", "tool-call-fence"],
                summary: r#"```tool_call\n{"name": "f", "arguments": {...}}\n```"#,
                fuzz_id: 1,
            },
            Format::Qwen3Coder => &Spec {
                name: "qwen3-coder",
                aliases: &["qwen3-xml", "qwen3coder"],
                summary: "<tool_call>\\n<function=f>\\n<parameter=k>\\nv\\n</parameter>\\n</function>\\n</tool_call>",
                fuzz_id: 2,
            },
            Format::MiniMaxM2 => &Spec {
                name: "minimax-m2",
                aliases: &["minimaxm2"],
                summary: r#"<minimax:tool_call>\n<invoke name="f">\n<parameter name="k">v</parameter>\n</invoke>\n</minimax:tool_call>"#,
                fuzz_id: 3,
            },
            Format::Glm => &Spec {
                name: "glm",
                aliases: &["glm45", "glm-4.5", "glm47", "glm-4.7", "glm4-moe"],
                summary: "<tool_call>f\\n<arg_key>k</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call>",
                fuzz_id: 4,
            },
            Format::MorphXml => &Spec {
                name: "morph-xml",
                aliases: &["morphxml", "xml"],
                summary: "<f>\\n<k>v</k>\\n</f>   (needs --tools)",
                fuzz_id: 5,
            },
            Format::DeepSeek => &Spec {
                name: "deepseek-v3.1",
                aliases: &["deepseek", "deepseekv31", "deepseek-v31"],
                summary: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{...}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
                fuzz_id: 6,
            },
            Format::KimiK2 => &Spec {
                name: "kimi-k2",
                aliases: &["kimik2", "kimi"],
                summary: "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{...}<|tool_call_end|><|tool_calls_section_end|>",
                fuzz_id: 7,
            },
            Format::DeepSeekDsml => &Spec {
                name: "deepseek-v3.2",
                aliases: &["deepseekv32", "deepseek-v32", "dsml", "deepseek-v4", "deepseekv4"],
                summary: r#"<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"#,
                fuzz_id: 8,
            },
            Format::DeepSeekV3 => &Spec {
                name: "deepseek-v3",
                aliases: &["deepseekv3", "deepseek-r1"],
                summary: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{...}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
                fuzz_id: 9,
            },
        }
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
        match self {
            Format::Hermes => ("<tool_call>", "</tool_call>"),
            Format::Gemma => ("```tool_call", "```"),
            Format::Qwen3Coder | Format::Glm => ("<tool_call>", "</tool_call>"),
            Format::MiniMaxM2 => ("<minimax:tool_call>", "</minimax:tool_call>"),
            Format::DeepSeekDsml => ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
            // One marker per tool: `<name`; these are placeholders.
            Format::MorphXml => ("<", ">"),
            // A call's own begin token also opens a block.
            Format::DeepSeek => section(Vendor::DeepSeek),
            Format::DeepSeekV3 => section(Vendor::DeepSeek),
            Format::KimiK2 => section(Vendor::KimiK2),
        }
    }

    pub(crate) fn automaton(
        self,
        delimiters: Option<(&str, &str)>,
        tools: &[Tool],
        limits: &Limits,
    ) -> Result<(Vec<Marker>, Automaton), Error> {
        if self == Format::MorphXml {
            if tools.is_empty() {
                return Err(Error::ToolsRequired("morph-xml"));
            }
            if delimiters.is_some() {
                return Err(Error::InvalidMarker("morph-xml markers are the tool names"));
            }
            let markers = tools
                .iter()
                .map(|t| Marker {
                    bytes: Cow::Owned(format!("<{}", t.name).into_bytes()),
                    boundary: Boundary::TagNameEnd,
                })
                .collect();
            return Ok((
                markers,
                Automaton::Morph(MorphXml::new(tools, limits.max_depth)),
            ));
        }
        let start: Cow<'static, [u8]> = match delimiters {
            Some((start, _)) => Cow::Owned(start.as_bytes().to_vec()),
            None => Cow::Borrowed(self.default_delimiters().0.as_bytes()),
        };
        let end = delimiters.map_or(self.default_delimiters().1, |(_, end)| end);
        // An empty end marker is allowed: the call then ends with its JSON
        // (Mistral's `[TOOL_CALLS][…]`, Llama's `<|python_tag|>{…}`).
        if start.is_empty() {
            return Err(Error::InvalidMarker("the start marker must not be empty"));
        }
        let (boundary, automaton) = match self {
            Format::DeepSeek | Format::DeepSeekV3 => {
                return token_automaton(Vendor::DeepSeek, delimiters, limits)
            }
            Format::KimiK2 => return token_automaton(Vendor::KimiK2, delimiters, limits),
            Format::Hermes => {
                let mut automaton = JsonCall::new(end.as_bytes(), limits.max_depth)
                    .reopened_by(&start, Boundary::None);
                // Qwen3-Coder served as hermes writes its XML calls in the
                // same `<tool_call>` blocks.
                if end.as_bytes() == Dialect::Qwen3Coder.end_marker() {
                    automaton = automaton.with_xml_blocks(Dialect::Qwen3Coder, limits.max_depth);
                }
                (Boundary::None, Automaton::Json(automaton))
            }
            // The fence tag must end its word: ```tool_calls is prose.
            Format::Gemma => (
                Boundary::Whitespace,
                Automaton::Json(
                    JsonCall::new(end.as_bytes(), limits.max_depth)
                        .reopened_by(&start, Boundary::Whitespace),
                ),
            ),
            Format::Qwen3Coder
            | Format::MiniMaxM2
            | Format::Glm
            | Format::DeepSeekDsml
            | Format::MorphXml => {
                if delimiters.is_some() {
                    return Err(Error::InvalidMarker(
                        "only the JSON formats take custom delimiters",
                    ));
                }
                let dialect = match self {
                    Format::Qwen3Coder => Dialect::Qwen3Coder,
                    Format::MiniMaxM2 => Dialect::MiniMaxM2,
                    Format::DeepSeekDsml => Dialect::DeepSeekDsml,
                    _ => Dialect::Glm,
                };
                debug_assert_eq!(dialect.start_marker(), self.default_delimiters().0);
                (
                    Boundary::None,
                    Automaton::Xml(XmlCall::new(dialect, limits.max_depth)),
                )
            }
        };
        let mut markers = vec![Marker {
            bytes: start,
            boundary,
        }];
        // Qwen3-Coder and DeepSeek also write calls without their block;
        // DeepSeek-V4 and V4.1 name the DSML block otherwise.
        let others: &[&str] = match self {
            Format::Qwen3Coder => Dialect::Qwen3Coder.other_markers(),
            Format::DeepSeekDsml => Dialect::DeepSeekDsml.other_markers(),
            _ => &[],
        };
        markers.extend(others.iter().map(|m| Marker {
            bytes: Cow::Borrowed(m.as_bytes()),
            boundary: Boundary::None,
        }));
        Ok((markers, automaton))
    }
}

/// A vendor's section tokens.
fn section(vendor: Vendor) -> (&'static str, &'static str) {
    let tokens = vendor.tokens();
    (tokens.section_begin, tokens.section_end)
}

/// The markers and automaton of a format read by the token automaton.
fn token_automaton(
    vendor: Vendor,
    delimiters: Option<(&str, &str)>,
    limits: &Limits,
) -> Result<(Vec<Marker>, Automaton), Error> {
    if delimiters.is_some() {
        return Err(Error::InvalidMarker(
            "only the JSON formats take custom delimiters",
        ));
    }
    let markers = TokenCall::markers(vendor)
        .into_iter()
        .map(|m| Marker {
            bytes: Cow::Borrowed(m.as_bytes()),
            boundary: Boundary::None,
        })
        .collect();
    Ok((
        markers,
        Automaton::Token(TokenCall::new(vendor, limits.max_depth)),
    ))
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
