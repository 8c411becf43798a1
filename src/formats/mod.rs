//! One file per wire format: everything toolsieve knows about a format
//! that is not its automaton's code — names, markers, which automaton
//! reads it, the model families that write it, the tool prompt its models
//! were trained on, and how calls and results are written into chat
//! history. The `registry!` below is the one table of formats: it
//! declares the modules, the [`Format`] enum, `Format::ALL` and
//! `Format::spec`. A new format is a new file here, one line in the
//! registry, and its `testdata/` folder.

pub(crate) mod tables;

use std::borrow::Cow;

use serde_json::Value;

use crate::coerce::Untyped;
use crate::error::Error;
use crate::limits::Limits;
use crate::protocol::first_byte::{FirstByte, Lead};
use crate::protocol::json_call::JsonCall;
use crate::protocol::token_call::{NameRule, Rules, TokenCall, Tokens};
use crate::protocol::xml_call::{Dialect, Opening, Tags, Typing, XmlCall};
use crate::protocol::Automaton;
use crate::scan::marker::{Boundary, Marker, MarkerError};
use crate::scan::xml::Pat;
use crate::tool::Tool;

/// The one table of formats: each line is a [`Format`] variant (with its
/// docs) and the module under `src/formats/` whose `SPEC` describes it, in
/// the order `toolsieve formats` lists them.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)*) => {
        $(pub(crate) mod $module;)*

        /// A tool-call wire format. Each is one file in `src/formats/`
        /// over an automaton in `src/protocol/`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Format {
            $($(#[$doc])* $variant,)*
        }

        impl Format {
            /// Every format, in the order `toolsieve formats` lists them.
            pub const ALL: &'static [Format] = &[$(Format::$variant,)*];

            /// The registry: each format's facts, in its file under
            /// `src/formats/`.
            pub(crate) fn spec(self) -> &'static FormatSpec {
                match self {
                    $(Format::$variant => &$module::SPEC,)*
                }
            }
        }
    };
}

registry! {
    /// `<tool_call>{"name": …, "arguments": {…}}</tool_call>` — Hermes,
    /// Qwen 2.5 / Qwen 3 and every model that wraps a JSON call in two
    /// markers (both configurable).
    Hermes => hermes,
    /// A markdown fence: ```` ```tool_call ```` on its own line, a JSON
    /// `{"name", "arguments"}` object, then ```` ``` ````. The language tag is
    /// configurable.
    Gemma => gemma,
    /// Qwen3-Coder: `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>`.
    Qwen3Coder => qwen3_coder,
    /// MiniMax-M2: `<minimax:tool_call><invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke></minimax:tool_call>`.
    MiniMaxM2 => minimax_m2,
    /// GLM-4.5 / 4.6 / 4.7: `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call>`.
    Glm => glm,
    /// morph-xml: the root element is the tool's name, each child a
    /// parameter: `<get_weather><city>Paris</city></get_weather>`. Needs the
    /// tool list.
    MorphXml => morph_xml,
    /// DeepSeek-V3.1 and later (`deepseek-v3.1`, alias `deepseek`):
    /// `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
    /// also reads DeepSeek-V3 / R1's `function<｜tool▁sep｜>NAME` with the
    /// arguments in a ```` ```json ```` fence.
    DeepSeek => deepseek_v31,
    /// Kimi-K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`.
    KimiK2 => kimi_k2,
    /// DeepSeek-V3.2's DSML: `<｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="KEY" string="true">VALUE</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`;
    /// `string="false"` marks a JSON value. Also DeepSeek-V4's
    /// `<｜DSML｜tool_calls>` blocks, V4.1's spaced tags (`<｜DSML｜ calls>`),
    /// an `invoke` without its block, and DSML whose `｜DSML｜` tokens a
    /// server dropped (`<function_calls><invoke name="NAME">…`).
    DeepSeekDsml => deepseek_v32,
    /// DeepSeek-V3 and R1 (`deepseek-v3`): `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`
    /// and the arguments in a ```` ```json ```` fence. Reads the V3.1 layout
    /// too, as [`Format::DeepSeek`] does; prompts and history are written in
    /// the V3 layout.
    DeepSeekV3 => deepseek_v3,
    /// Phi-4-mini: `functools[{"name": …, "arguments": {…}}, …]`, ended by
    /// the list's `]`.
    Phi4Mini => phi4_mini,
    /// IBM Granite: `<|tool_call|>[{"name": …, "arguments": {…}}]` (3.x,
    /// ended by the list's `]`) and `<tool_call>{…}</tool_call>` (4).
    Granite => granite,
    /// Salesforce xLAM: a JSON list `[{"name": …, "arguments": {…}}]` as
    /// the whole output, in a ```` ```json ```` fence, or after
    /// `[TOOL_CALLS]`.
    Xlam => xlam,
    /// Llama 3.1–3.3 custom tools: `{"name": …, "parameters": {…}}` as the
    /// whole output (several separated by `;`) or after `<|python_tag|>`.
    Llama3Json => llama3_json,
    /// Mistral: `[TOOL_CALLS]NAME[ARGS]{…}` (v11+), `[TOOL_CALLS][{…}]` before.
    Mistral => mistral,
    /// Command R7B / A: `<|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}]<|END_ACTION|>`.
    Cohere => cohere,
    /// gpt-oss: `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`.
    Harmony => harmony,
    /// A Python list of calls, `[f(city="Paris"), g()]` (Llama 3.2 / 4, Olmo 3, ToolACE).
    Pythonic => pythonic,
    /// Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>`.
    Gemma4 => gemma4,
    /// Seed-OSS: `<seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></seed:tool_call>`,
    /// reasoning between `<seed:think>` and `</seed:think>`.
    SeedOss => seed_oss,
    /// Kimi-K3's XTML: `<|open|>tools<|sep|><|open|>call tool="NAME" index="1"<|sep|><|open|>argument key="KEY" type="string"<|sep|>VALUE<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`,
    /// reasoning in its think channel, the answer's channel tags markup.
    KimiK3 => kimi_k3,
    /// FunctionGemma: `<start_function_call>call:NAME{key:<escape>text<escape>,n:3}<end_function_call>`.
    FunctionGemma => function_gemma,
    /// LFM2 / LFM2.5: `<|tool_call_start|>[f(city="Paris"), g()]<|tool_call_end|>`.
    Lfm2 => lfm2,
}

/// Start and end markers the user gave in place of a format's own.
pub(crate) type Delimiters<'a> = Option<(&'a str, &'a str)>;

/// A format's start markers and the automaton that reads its calls.
pub(crate) type Reading = Result<(Vec<Marker>, Automaton), Error>;

/// The facts of one format.
///
/// The prompt and history fields are read by the middleware only; the
/// parser built alone still carries them, since they are a format's facts
/// and cost a few static strings.
#[cfg_attr(not(feature = "middleware"), allow(dead_code))]
pub(crate) struct FormatSpec {
    /// The canonical name (`--format`).
    pub(crate) name: &'static str,
    /// Other names accepted for it: the names vLLM's and SGLang's
    /// `--tool-call-parser` give the same format, and older names.
    pub(crate) aliases: &'static [&'static str],
    /// One line on what the model writes.
    pub(crate) summary: &'static str,
    /// The format's number in fuzz inputs: never reused, never changed, so
    /// that seeds and regression files keep their meaning as formats are
    /// added.
    pub(crate) fuzz_id: u8,
    /// The default start and end markers.
    pub(crate) delimiters: (&'static str, &'static str),
    /// The markers and automaton, given the user's delimiters (if the
    /// format takes any), the tool list and the limits.
    pub(crate) reader: fn(Delimiters<'_>, &[Tool], &Limits) -> Reading,
    /// Whether the format's models write calls as the whole output, with
    /// no marker: [`ParserBuilder::bare_call_at_start`](crate::ParserBuilder::bare_call_at_start)
    /// is then on by default.
    pub(crate) bare_calls_at_start: bool,
    /// The reasoning tags the format itself defines (gpt-oss's analysis
    /// channel): [`ParserBuilder::reasoning`](crate::ParserBuilder::reasoning)
    /// is then set by default.
    pub(crate) reasoning: Option<(&'static str, &'static str)>,
    /// The tool system prompt, with [`TOOLS_PLACEHOLDER`] for the tools.
    pub(crate) template: &'static str,
    /// One tool in the prompt's tool block.
    pub(crate) tool_entry: fn(&Tool) -> String,
    /// What stands between two tools in the block.
    pub(crate) tools_separator: &'static str,
    /// An assistant's call as the format's models write it; `args` is a
    /// JSON object. What it writes, the format's parser reads back as the
    /// same call.
    pub(crate) render_call: fn(&str, &Value, CallRef<'_>) -> String,
    /// What holds the calls of one turn (a lone call too).
    pub(crate) call_block: CallBlock,
    /// A tool's result as a user-turn block in the family's layout.
    pub(crate) render_result: fn(&str, &Value, CallRef<'_>) -> String,
    /// The model families that write the format (see
    /// [`Format::for_model`](crate::Format::for_model)).
    pub(crate) families: &'static [Family],
}

impl FormatSpec {
    /// What a format has unless its file says otherwise: spread it
    /// (`..FormatSpec::DEFAULT`) so that a new field is one edit here.
    pub(crate) const DEFAULT: FormatSpec = FormatSpec {
        name: "",
        aliases: &[],
        summary: "",
        fuzz_id: u8::MAX,
        delimiters: ("", ""),
        reader: no_reader,
        bare_calls_at_start: false,
        reasoning: None,
        template: "",
        tool_entry: plain_tool,
        tools_separator: "\n",
        render_call: |_, _, _| String::new(),
        call_block: CallBlock::new("", "\n", ""),
        render_result: |_, result, _| value_text(result),
        families: &[],
    };
}

/// Which call of its turn a rendered call, or the call a rendered result
/// answers, is: the formats that number calls (Kimi-K2's
/// `functions.NAME:0`, Command's `tool_call_id`) write it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CallRef<'a> {
    /// The call's id in the chat history (none for a lone call).
    pub(crate) id: &'a str,
    /// Its place among its turn's calls, from 0.
    pub(crate) index: usize,
}

/// How a format writes the calls of one turn: one block, `begin`, the
/// calls with `between` between two, `end`. A lone call is such a block.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "middleware"), allow(dead_code))]
pub(crate) struct CallBlock {
    pub(crate) begin: &'static str,
    pub(crate) between: &'static str,
    pub(crate) end: &'static str,
}

impl CallBlock {
    pub(crate) const fn new(
        begin: &'static str,
        between: &'static str,
        end: &'static str,
    ) -> CallBlock {
        CallBlock {
            begin,
            between,
            end,
        }
    }
}

fn no_reader(_: Delimiters<'_>, _: &[Tool], _: &Limits) -> Reading {
    Err(Error::InvalidMarker(MarkerError::NoReader))
}

/// How a model family reasons in text.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Think {
    No,
    /// `<think>` … `</think>`, written by the model.
    Tags,
    /// The template opens `<think>` in the prompt: the output starts
    /// inside reasoning.
    Open,
    /// As `Open`, and the model may end its reasoning by starting its
    /// calls, without the end tag (Kimi-K2).
    OpenUntilCalls,
    /// The family's own tags.
    Tagged(&'static str, &'static str),
    /// The family's own tags, the start tag in the prompt: the output
    /// starts inside reasoning (Kimi-K3's think channel).
    TaggedOpen(&'static str, &'static str),
}

impl Think {
    pub(crate) fn reasoning(self) -> Option<crate::Reasoning> {
        match self {
            Think::No => None,
            Think::Tags => Some(crate::Reasoning::think()),
            Think::Open => Some(crate::Reasoning::think().starting_open(true)),
            Think::OpenUntilCalls => Some(
                crate::Reasoning::think()
                    .starting_open(true)
                    .ending_at_calls(true),
            ),
            Think::Tagged(start, end) => Some(crate::Reasoning::tags(start, end)),
            Think::TaggedOpen(start, end) => {
                Some(crate::Reasoning::tags(start, end).starting_open(true))
            }
        }
    }
}

/// A model family that writes a format: the id fragments that name it
/// (any of them, in the model's name, normalized).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Family {
    pub(crate) name: &'static str,
    pub(crate) any: &'static [&'static str],
    pub(crate) think: Think,
    /// The reasoning with the template's thinking switch on, if it has one.
    pub(crate) switch: Option<Think>,
    /// A fine-tune of another family's base model (Hermes on Llama, R1's
    /// distills on Qwen): it wins over the base family's fragments.
    pub(crate) fine_tune: bool,
}

impl Family {
    pub(crate) const fn new(
        name: &'static str,
        any: &'static [&'static str],
        think: Think,
    ) -> Family {
        Family {
            name,
            any,
            think,
            switch: None,
            fine_tune: false,
        }
    }

    /// The family's template switches thinking; `on` is the reasoning then.
    pub(crate) const fn switched(mut self, on: Think) -> Family {
        self.switch = Some(on);
        self
    }

    /// See [`Family::fine_tune`].
    pub(crate) const fn fine_tune(mut self) -> Family {
        self.fine_tune = true;
        self
    }
}

/// The placeholder a template's tool block replaces.
#[cfg_attr(not(feature = "middleware"), allow(dead_code))]
pub(crate) const TOOLS_PLACEHOLDER: &str = "{tools}";

/// A JSON format's start and end markers: the user's, or the format's own
/// (borrowed, so that text held back at a partial marker is released
/// without a copy).
pub(crate) fn json_markers<'d>(
    delimiters: Delimiters<'d>,
    defaults: (&'static str, &'d str),
) -> (Cow<'static, [u8]>, &'d str) {
    match delimiters {
        Some((start, end)) => (Cow::Owned(start.as_bytes().to_vec()), end),
        None => (Cow::Borrowed(defaults.0.as_bytes()), defaults.1),
    }
}

/// The start marker and automaton of a JSON format.
pub(crate) fn json_reading(
    start: Cow<'static, [u8]>,
    boundary: Boundary,
    automaton: JsonCall,
) -> Reading {
    Ok((json_marker(start, boundary)?, Automaton::Json(automaton)))
}

/// The one start marker of a JSON format.
pub(crate) fn json_marker(
    start: Cow<'static, [u8]>,
    boundary: Boundary,
) -> Result<Vec<Marker>, Error> {
    // An empty end marker is allowed: the call then ends with its JSON
    // (Mistral's `[TOOL_CALLS][…]`, Llama's `<|python_tag|>{…}`).
    if start.is_empty() {
        return Err(Error::InvalidMarker(MarkerError::EmptyStart));
    }
    Ok(vec![Marker {
        bytes: start,
        boundary,
    }])
}

/// Only the JSON formats take other delimiters.
fn no_delimiters(delimiters: Delimiters<'_>) -> Result<(), Error> {
    match delimiters {
        Some(_) => Err(Error::InvalidMarker(MarkerError::DelimitersNotTaken)),
        None => Ok(()),
    }
}

/// Markers made of static strings.
fn markers(all: &[&'static str]) -> Vec<Marker> {
    all.iter()
        .map(|m| Marker {
            bytes: Cow::Borrowed(m.as_bytes()),
            boundary: Boundary::None,
        })
        .collect()
}

/// The markers and automaton of an XML dialect: its block's start marker,
/// then the others it opens calls with. A block whose first byte begins
/// JSON (`{`, `[`, a fence's backtick) holds JSON calls up to the same end.
pub(crate) fn xml_reading(
    dialect: &'static Dialect,
    delimiters: Delimiters<'_>,
    limits: &Limits,
) -> Reading {
    no_delimiters(delimiters)?;
    let all: Vec<&'static str> = dialect.markers().collect();
    let ends: Vec<Option<&[u8]>> = (0..all.len()).map(|m| dialect.block_end(m)).collect();
    let json_ends: Vec<&[u8]> = ends.iter().map(|end| end.unwrap_or_default()).collect();
    let json = JsonCall::new(json_ends[0], limits.max_depth).ending_by_marker(&json_ends);
    let either = FirstByte::new(
        XmlCall::new(dialect, limits.max_depth),
        json,
        |b| matches!(b, b'{' | b'[' | b'`'),
        Lead::First,
    )
    .first_only_after((0..all.len()).filter(|&m| ends[m].is_none()));
    Ok((markers(&all), Automaton::XmlOrJson(either)))
}

/// The markers and automaton of a special-token format.
pub(crate) fn token_reading(
    rules: &'static Rules,
    delimiters: Delimiters<'_>,
    limits: &Limits,
) -> Reading {
    no_delimiters(delimiters)?;
    Ok((
        markers(&rules.markers()),
        Automaton::Token(TokenCall::new(rules, limits.max_depth)),
    ))
}

/// The marker and automaton of a format whose arguments are literals
/// (`pythonic`, `gemma4`).
pub(crate) fn literal_reading(
    syntax: crate::scan::literal::Syntax,
    start: &'static str,
    delimiters: Delimiters<'_>,
    limits: &Limits,
) -> Reading {
    no_delimiters(delimiters)?;
    let automaton = crate::protocol::literal_call::LiteralCall::new(syntax, limits.max_depth);
    Ok((markers(&[start]), Automaton::Literal(automaton)))
}

/// A vendor's section tokens: a call's own begin token also opens a block.
pub(crate) const fn section(rules: &Rules) -> (&'static str, &'static str) {
    (rules.tokens.section_begin, rules.tokens.section_end)
}

/// A parameter value as text: strings verbatim, everything else as JSON.
pub(crate) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(crate) use crate::scan::json::json_string;

/// Wraps a value in the newlines the parsers strip (one after the opening
/// tag, one before the closing tag; `\r\n` counts as one). Inline formats
/// (`always == false`) only wrap values that begin or end with a newline.
pub(crate) fn padded(text: &str, always: bool) -> String {
    let needed = text.starts_with('\n') || text.starts_with("\r\n") || text.ends_with('\n');
    if !(always || needed) {
        return text.to_owned();
    }
    // A value ending in `\r` would make `\r\n` with a plain `\n`.
    let close = if text.ends_with('\r') { "\r\n" } else { "\n" };
    format!("\n{text}{close}")
}

/// Escapes text for an XML element.
pub(crate) fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The members of a JSON object; anything else but `null` is one member,
/// `arguments`.
pub(crate) fn members(args: &Value) -> Vec<(&str, &Value)> {
    match args {
        Value::Object(map) => map.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        // Arguments that are not an object (an earlier turn's call read
        // tolerantly) keep all they hold, as one parameter.
        Value::Null => Vec::new(),
        other => vec![("arguments", other)],
    }
}

/// A parameter's type in words (`string`, `integer | null, one of 1, 2`).
pub(crate) fn describe(param: &Value) -> String {
    let ty = match param.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "any".into(),
    };
    let mut s = ty;
    if let Some(Value::Array(members)) = param.get("enum") {
        let members: Vec<String> = members.iter().map(Value::to_string).collect();
        s.push_str(&format!(", one of {}", members.join(", ")));
    }
    s
}

/// A tool's parameters, in the schema's order.
pub(crate) fn properties(tool: &Tool) -> Vec<(&String, &Value)> {
    match tool.parameters.get("properties") {
        Some(Value::Object(p)) => p.iter().collect(),
        _ => Vec::new(),
    }
}

/// A tool's required parameters.
pub(crate) fn required(tool: &Tool) -> Vec<&str> {
    match tool.parameters.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A tool as OpenAI's API describes it:
/// `{"type": "function", "function": {"name", "description", "parameters"}}`.
pub(crate) fn openai_tool(tool: &Tool) -> String {
    serde_json::json!({"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}})
    .to_string()
}

/// A tool as a plain `{"name", "description", "parameters"}` object.
pub(crate) fn plain_tool(tool: &Tool) -> String {
    serde_json::json!({"name": tool.name, "description": tool.description, "parameters": tool.parameters})
        .to_string()
}

/// A result in Hermes' `<tool_response>` block.
pub(crate) fn tool_response(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!("<tool_response>\n{}\n</tool_response>", value_text(result))
}
