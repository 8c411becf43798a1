//! The wire formats toolsieve recognises.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::formats::{self, FormatSpec};
use crate::limits::Limits;
use crate::protocol::Automaton;
use crate::scan::marker::Marker;
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
    /// Phi-4-mini: `functools[{"name": …, "arguments": {…}}, …]`, ended by
    /// the list's `]`.
    Phi4Mini,
    /// IBM Granite: `<|tool_call|>[{"name": …, "arguments": {…}}]` (3.x,
    /// ended by the list's `]`) and `<tool_call>{…}</tool_call>` (4).
    Granite,
    /// Salesforce xLAM: a JSON list `[{"name": …, "arguments": {…}}]` as
    /// the whole output, in a ```` ```json ```` fence, or after
    /// `[TOOL_CALLS]`.
    Xlam,
    /// Llama 3.1–3.3 custom tools: `{"name": …, "parameters": {…}}` as the
    /// whole output (several separated by `;`) or after `<|python_tag|>`.
    Llama3Json,
    /// Mistral: `[TOOL_CALLS]NAME[ARGS]{…}` (v11+), `[TOOL_CALLS][{…}]` before.
    Mistral,
    /// Command R7B / A: `<|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}]<|END_ACTION|>`.
    Cohere,
    /// gpt-oss: `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`.
    Harmony,
    /// A Python list of calls, `[f(city="Paris"), g()]` (Llama 3.2 / 4, Olmo 3, ToolACE).
    Pythonic,
    /// Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>`.
    Gemma4,
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
        Format::Phi4Mini,
        Format::Granite,
        Format::Xlam,
        Format::Llama3Json,
        Format::Mistral,
        Format::Cohere,
        Format::Harmony,
        Format::Pythonic,
        Format::Gemma4,
    ];

    /// The registry: each format's facts, in its file under
    /// `src/formats/`.
    pub(crate) fn spec(self) -> &'static FormatSpec {
        match self {
            Format::Hermes => &formats::hermes::SPEC,
            Format::Gemma => &formats::gemma::SPEC,
            Format::Qwen3Coder => &formats::qwen3_coder::SPEC,
            Format::MiniMaxM2 => &formats::minimax_m2::SPEC,
            Format::Glm => &formats::glm::SPEC,
            Format::MorphXml => &formats::morph_xml::SPEC,
            Format::DeepSeek => &formats::deepseek_v31::SPEC,
            Format::KimiK2 => &formats::kimi_k2::SPEC,
            Format::DeepSeekDsml => &formats::deepseek_v32::SPEC,
            Format::DeepSeekV3 => &formats::deepseek_v3::SPEC,
            Format::Phi4Mini => &formats::phi4_mini::SPEC,
            Format::Granite => &formats::granite::SPEC,
            Format::Xlam => &formats::xlam::SPEC,
            Format::Llama3Json => &formats::llama3_json::SPEC,
            Format::Mistral => &formats::mistral::SPEC,
            Format::Cohere => &formats::cohere::SPEC,
            Format::Harmony => &formats::harmony::SPEC,
            Format::Pythonic => &formats::pythonic::SPEC,
            Format::Gemma4 => &formats::gemma4::SPEC,
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
