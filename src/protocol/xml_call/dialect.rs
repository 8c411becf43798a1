//! The three layouts (and DeepSeek's DSML variants): their tags.

use super::BARE_FUNCTION;
use crate::scan::xml::Pat;

/// Which of the three layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Qwen3Coder,
    MiniMaxM2,
    Glm,
    /// DeepSeek-V3.2's DSML, and DeepSeek-V4's (its block is `tool_calls`)
    /// and V4.1's (`calls`, a space after the DSML token in every tag).
    DeepSeekDsml,
}

/// The tags of one dialect.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tags {
    pub(super) end: &'static [u8],
    /// Opens a call, the name in the attribute (`None`: GLM's bare name).
    pub(super) func_open: Option<&'static [u8]>,
    pub(super) func_close: Option<&'static [u8]>,
    /// Opens a parameter: with the key as attribute, or GLM's `<arg_key>`.
    pub(super) param_open: Pat,
    pub(super) param_close: &'static [u8],
    /// Whether a literal `\n` (a backslash and an `n`) separates elements
    /// as a line break does: some servers deliver GLM's line breaks escaped
    /// (`<tool_call>f\n<arg_key>k</arg_key>\n<arg_value>…`).
    pub(super) escaped_breaks: bool,
    /// DSML's typing: a parameter's `string` attribute types its value
    /// (`string="false"` marks JSON), and an `invoke` may hold one JSON
    /// object in place of parameters (`Phase::JsonArgs`).
    pub(super) string_attr: bool,
}

impl Dialect {
    pub(crate) fn start_marker(self) -> &'static str {
        match self {
            Dialect::Qwen3Coder | Dialect::Glm => "<tool_call>",
            Dialect::MiniMaxM2 => "<minimax:tool_call>",
            Dialect::DeepSeekDsml => "<｜DSML｜function_calls>",
        }
    }

    /// The dialect's start markers after [`start_marker`](Self::start_marker),
    /// in the engine's marker order: a call without its block
    /// (Qwen3-Coder's `<function=`, a DSML `invoke`), or DSML's blocks of
    /// later versions. [`opened_by`](Self::opened_by) says what each opens.
    pub(crate) fn other_markers(self) -> &'static [&'static str] {
        match self {
            Dialect::Qwen3Coder => &[BARE_FUNCTION],
            Dialect::DeepSeekDsml => &[
                "<｜DSML｜tool_calls>",
                "<｜DSML｜ calls>",
                "<｜DSML｜invoke name=",
                "<｜DSML｜ invoke name=",
                "<function_calls>",
            ],
            _ => &[],
        }
    }

    /// What start marker `marker` opens: the tags to read it with, and
    /// whether it is one call without its block (its function's open tag up
    /// to the name, ending at the function's close).
    pub(super) fn opened_by(self, marker: usize) -> (&'static Tags, bool) {
        match (self, marker) {
            (Dialect::Qwen3Coder, 1) => (&QWEN3_CODER, true),
            (Dialect::DeepSeekDsml, 1) => (&DSML_V4, false),
            (Dialect::DeepSeekDsml, 2) => (&DSML_V4_1, false),
            (Dialect::DeepSeekDsml, 3) => (&DSML, true),
            (Dialect::DeepSeekDsml, 4) => (&DSML_V4_1, true),
            (Dialect::DeepSeekDsml, 5) => (&DSML_STRIPPED, false),
            _ => (self.tags(), false),
        }
    }

    /// The marker that ends the block start marker `marker` opens, or
    /// `None` when it opens one call without its block.
    pub(crate) fn block_end(self, marker: usize) -> Option<&'static [u8]> {
        match self.opened_by(marker) {
            (tags, false) => Some(tags.end),
            (_, true) => None,
        }
    }

    pub(super) fn tags(self) -> &'static Tags {
        match self {
            Dialect::Qwen3Coder => &QWEN3_CODER,
            Dialect::MiniMaxM2 => &MINIMAX_M2,
            Dialect::Glm => &GLM,
            Dialect::DeepSeekDsml => &DSML,
        }
    }
}

static QWEN3_CODER: Tags = Tags {
    end: b"</tool_call>",
    func_open: Some(b"<function="),
    func_close: Some(b"</function>"),
    param_open: Pat::Open(b"<parameter="),
    param_close: b"</parameter>",
    escaped_breaks: false,
    string_attr: false,
};

static MINIMAX_M2: Tags = Tags {
    end: b"</minimax:tool_call>",
    func_open: Some(b"<invoke name="),
    func_close: Some(b"</invoke>"),
    param_open: Pat::Open(b"<parameter name="),
    param_close: b"</parameter>",
    escaped_breaks: false,
    string_attr: false,
};

static GLM: Tags = Tags {
    end: b"</tool_call>",
    func_open: None,
    func_close: None,
    param_open: Pat::Lit(b"<arg_key>"),
    param_close: b"</arg_value>",
    escaped_breaks: true,
    string_attr: false,
};

static DSML: Tags = Tags {
    end: "</｜DSML｜function_calls>".as_bytes(),
    func_open: Some("<｜DSML｜invoke name=".as_bytes()),
    func_close: Some("</｜DSML｜invoke>".as_bytes()),
    param_open: Pat::Open("<｜DSML｜parameter name=".as_bytes()),
    param_close: "</｜DSML｜parameter>".as_bytes(),
    escaped_breaks: false,
    string_attr: true,
};

static DSML_V4: Tags = Tags {
    end: "</｜DSML｜tool_calls>".as_bytes(),
    ..DSML
};

/// DSML with its `｜DSML｜` tokens gone, as a server that drops special
/// tokens passes it on.
static DSML_STRIPPED: Tags = Tags {
    end: b"</function_calls>",
    func_open: Some(b"<invoke name="),
    func_close: Some(b"</invoke>"),
    param_open: Pat::Open(b"<parameter name="),
    param_close: b"</parameter>",
    ..DSML
};

static DSML_V4_1: Tags = Tags {
    end: "</｜DSML｜ calls>".as_bytes(),
    func_open: Some("<｜DSML｜ invoke name=".as_bytes()),
    func_close: Some("</｜DSML｜ invoke>".as_bytes()),
    param_open: Pat::Open("<｜DSML｜ parameter name=".as_bytes()),
    param_close: "</｜DSML｜ parameter>".as_bytes(),
    ..DSML
};
