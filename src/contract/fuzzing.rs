//! Helpers of the fuzz targets and property tests (feature `fuzzing`).

use crate::Parser;

#[doc(hidden)]
/// A small tool list with typed schemas (`get_weather`, `get_time`,
/// `write_file`, `search`), for fuzzing formats that need one.
pub fn sample_tools() -> Vec<crate::Tool> {
    use serde_json::json;
    vec![
        crate::Tool::new("get_weather").with_parameters(json!({"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"}}})),
        crate::Tool::new("get_time"),
        crate::Tool::new("write_file").with_parameters(json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}}})),
        crate::Tool::new("search").with_parameters(json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "filter": {"type": "object", "properties": {"age": {"type": "integer"}}}}})),
    ]
}

#[doc(hidden)]
/// A parser for `format`: with [`sample_tools`] where the format needs a
/// tool list, without one otherwise.
pub fn parser_for(format: crate::Format) -> Parser {
    let builder = Parser::builder(format);
    match builder.clone().build() {
        Ok(parser) => parser,
        Err(_) => builder
            .tools(sample_tools())
            .build()
            .unwrap_or_else(|e| panic!("{format}: {e}")),
    }
}

#[doc(hidden)]
/// A parser the fuzz targets pick by the two header bytes of their input
/// ([`Setup::of_header`]): a format, and for the JSON formats whether a call
/// may also open the stream without its marker (with Llama's
/// `<|python_tag|>` and no end marker for `hermes`, so that calls ending
/// with their JSON are fuzzed too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// The wire format.
    pub format: crate::Format,
    /// See [`ParserBuilder::bare_call_at_start`](crate::ParserBuilder::bare_call_at_start).
    pub bare_call_at_start: bool,
    /// `<think>` reasoning (see [`Reasoning`](crate::Reasoning)), with
    /// its `starts_open` and `calls_inside`.
    pub think: Option<(bool, bool)>,
    /// With `think`: calls end the reasoning
    /// ([`Reasoning::ends_at_calls`](crate::Reasoning::ends_at_calls)),
    /// asked for by [`FORMAT_ENDS_AT_CALLS`] in the format byte.
    pub think_ends_at_calls: bool,
}

#[doc(hidden)]
/// Option bit of a fuzz header: [`Setup::bare_call_at_start`].
pub const OPT_BARE_CALL: u8 = 0x80;
#[doc(hidden)]
/// Option bit of a fuzz header: `<think>` reasoning ([`Setup::think`]).
pub const OPT_THINK: u8 = 0x40;
#[doc(hidden)]
/// Option bit of a fuzz header: the stream starts inside reasoning.
pub const OPT_THINK_OPEN: u8 = 0x20;
#[doc(hidden)]
/// Option bit of a fuzz header: calls inside reasoning are delivered.
pub const OPT_CALLS_IN_THINK: u8 = 0x10;
#[doc(hidden)]
/// Bit of a fuzz header's format byte (no fuzz id has it): with
/// [`OPT_THINK`], calls end the reasoning ([`Setup::think_ends_at_calls`]).
pub const FORMAT_ENDS_AT_CALLS: u8 = 0x80;
#[doc(hidden)]
/// The bits of a fuzz header's option byte that count cut offsets
/// ([`split_case`]; at most 8 are read).
pub const OPT_CUTS: u8 = 0x0f;

impl Setup {
    /// The setup a fuzz input's header asks for: `format_id` is a
    /// [`Format::fuzz_id`](crate::Format::fuzz_id) (stable: a new format
    /// never changes what an old input means), perhaps with
    /// [`FORMAT_ENDS_AT_CALLS`]; `options` holds [`OPT_BARE_CALL`] and the
    /// reasoning bits. `None` for an id no format has.
    pub fn of_header(format_id: u8, options: u8) -> Option<Setup> {
        let think = (options & OPT_THINK != 0).then_some((
            options & OPT_THINK_OPEN != 0,
            options & OPT_CALLS_IN_THINK != 0,
        ));
        Some(Setup {
            format: crate::Format::from_fuzz_id(format_id & !FORMAT_ENDS_AT_CALLS)?,
            bare_call_at_start: options & OPT_BARE_CALL != 0,
            think,
            think_ends_at_calls: think.is_some() && format_id & FORMAT_ENDS_AT_CALLS != 0,
        })
    }

    /// The parser: [`parser_for`] the format, or the bare-call variant,
    /// with reasoning tags if asked.
    pub fn parser(self) -> Parser {
        use crate::Format;
        let mut builder = Parser::builder(self.format);
        builder = match self.format {
            Format::Hermes if self.bare_call_at_start => builder
                .delimiters("<|python_tag|>", "")
                .bare_call_at_start(true),
            Format::Gemma if self.bare_call_at_start => builder.bare_call_at_start(true),
            _ => builder,
        };
        if builder.clone().build().is_err() {
            builder = builder.tools(sample_tools());
        }
        if let Some((open, calls)) = self.think {
            let reasoning = crate::Reasoning::think()
                .starting_open(open)
                .with_calls_inside(calls)
                .ending_at_calls(self.think_ends_at_calls);
            builder = builder.reasoning(reasoning);
        }
        builder.build().unwrap_or_else(|e| panic!("{self}: {e}"))
    }
}

impl std::fmt::Display for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.format)?;
        if self.bare_call_at_start {
            f.write_str(" (bare call at start)")?;
        }
        if let Some((open, calls)) = self.think {
            write!(f, " (reasoning, open: {open}, calls inside: {calls})")?;
            if self.think_ends_at_calls {
                f.write_str(" (calls end reasoning)")?;
            }
        }
        Ok(())
    }
}

#[doc(hidden)]
/// How the `nothing_lost` fuzz target reads its input: two header bytes
/// ([`Setup::of_header`]), then the stream.
pub fn fuzz_case(data: &[u8]) -> Option<(Setup, &[u8])> {
    let [format_id, options, input @ ..] = data else {
        return None;
    };
    Some((Setup::of_header(*format_id, *options)?, input))
}

#[doc(hidden)]
/// How the `split_invariance` fuzz target reads its input (shared with the
/// regression tests that replay its findings): two header bytes
/// ([`Setup::of_header`]), as many cut offsets (as increments) as the
/// option byte's [`OPT_CUTS`] say (at most 8), then the stream.
pub fn split_case(data: &[u8]) -> Option<(Setup, Vec<usize>, &[u8])> {
    let (setup, rest) = fuzz_case(data)?;
    let ncuts = usize::from(data[1] & OPT_CUTS).min(8).min(rest.len());
    let (cut_bytes, input) = rest.split_at(ncuts);
    let cuts = cut_bytes
        .iter()
        .scan(0usize, |at, &b| {
            *at += b as usize;
            Some(*at)
        })
        .collect();
    Some((setup, cuts, input))
}

#[doc(hidden)]
/// `json` with a single backslash where it has an escaped one before a
/// character that no JSON escape begins with (`"\\d+"` becomes `"\d+"`):
/// regular expressions and Windows paths as models write them, for tests
/// and fuzzers to render. Not before `'`: `\'` reads as an apostrophe.
pub fn with_single_backslashes(json: &str) -> String {
    let escapes = |c: Option<char>| {
        matches!(
            c,
            Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u' | '\'')
        )
    };
    let mut out = String::with_capacity(json.len());
    let mut chars = json.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '\\' {
            let next = chars.next();
            if next != Some('\\') || escapes(chars.peek().copied()) {
                out.extend(next);
            }
        }
    }
    out
}

#[doc(hidden)]
/// `value` as Python's `repr` writes it (`{'k': True, 'n': None}`): the
/// relaxed call bodies some models write, for tests and fuzzers to render.
pub fn python_repr(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let mut out = String::from("'");
            for c in s.chars() {
                match c {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    c if u32::from(c) < 0x20 => out.push_str(&format!("\\x{:02x}", u32::from(c))),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(python_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        python_repr(&Value::String(k.clone())),
                        python_repr(v)
                    )
                })
                .collect();
            format!("{{{}}}", members.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;

    /// The format byte's high bit asks for reasoning that calls end, and
    /// means nothing without reasoning; the fuzz id is read without it.
    #[test]
    fn the_format_byte_asks_for_reasoning_that_calls_end() {
        let kimi: Format = "kimi-k2".parse().unwrap();
        let id = kimi.fuzz_id();
        let setup = Setup::of_header(id | FORMAT_ENDS_AT_CALLS, OPT_THINK | OPT_THINK_OPEN);
        let setup = setup.unwrap();
        assert_eq!(setup.format, kimi);
        assert!(setup.think_ends_at_calls);
        assert!(setup.parser().reasoning().is_some_and(|r| r.ends_at_calls));
        let plain = Setup::of_header(id, OPT_THINK).unwrap();
        assert!(!plain.think_ends_at_calls);
        let no_think = Setup::of_header(id | FORMAT_ENDS_AT_CALLS, 0).unwrap();
        assert!(!no_think.think_ends_at_calls && no_think.think.is_none());
        // No fuzz id has the bit.
        assert!(Format::ALL
            .iter()
            .all(|f| f.fuzz_id() & FORMAT_ENDS_AT_CALLS == 0));
    }
}
