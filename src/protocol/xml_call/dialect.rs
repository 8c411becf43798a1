//! What sets one XML layout apart from another, as data: the tags a block
//! is read with, and what each start marker opens. Each format file builds
//! its dialect as a constant (`qwen3_coder::DIALECT`, …).

use crate::coerce::Untyped;
use crate::scan::xml::Pat;

/// The tags of one layout.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tags {
    pub(crate) end: &'static [u8],
    /// Opens a call, the name in the attribute (`None`: GLM's bare name).
    pub(crate) func_open: Option<Pat>,
    pub(crate) func_close: Option<&'static [u8]>,
    /// Opens a parameter: with the key as attribute, or GLM's `<arg_key>`.
    pub(crate) param_open: Pat,
    pub(crate) param_close: &'static [u8],
    /// Whether a literal `\n` (a backslash and an `n`) separates elements
    /// as a line break does: some servers deliver GLM's line breaks escaped
    /// (`<tool_call>f\n<arg_key>k</arg_key>\n<arg_value>…`).
    pub(crate) escaped_breaks: bool,
    /// Whether one line break after a value's open tag and one before its
    /// close are layout, not the value's (Qwen3-Coder writes them); a
    /// layout without them (Kimi-K3's) keeps every byte between the tags.
    pub(crate) padded: bool,
    /// What a parameter's attributes say of its value's type.
    pub(crate) typing: Typing,
    /// How a value its schema leaves untyped is read (a DSML value marked
    /// `string="false"` is JSON whatever this says).
    pub(crate) untyped: Untyped,
}

/// How a parameter's tag types its value, where its schema does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Typing {
    /// It does not: the schema alone.
    Schema,
    /// DSML's: the `string` attribute (`string="false"` marks JSON), and
    /// an `invoke` may hold one JSON object in place of parameters
    /// (`Phase::JsonArgs`).
    StringAttr,
    /// Kimi-K3's: a `type` attribute other than `"string"` marks JSON.
    TypeAttr,
}

/// A start marker and what it opens.
#[derive(Debug)]
pub(crate) struct Opening {
    pub(crate) marker: &'static str,
    /// The tags to read it with.
    pub(crate) tags: &'static Tags,
    /// It opens one call without its block: its function's open tag up to
    /// the name (Qwen3-Coder's bare `<function=`, a DSML `invoke`), ending
    /// at the function's close.
    pub(crate) bare_call: bool,
}

impl Opening {
    /// A block opened by `marker`, read with `tags`.
    pub(crate) const fn block(marker: &'static str, tags: &'static Tags) -> Opening {
        Opening {
            marker,
            tags,
            bare_call: false,
        }
    }

    /// One call without its block, opened by `marker`.
    pub(crate) const fn bare_call(marker: &'static str, tags: &'static Tags) -> Opening {
        Opening {
            marker,
            tags,
            bare_call: true,
        }
    }
}

/// An XML layout: the block its calls stand in, and the other start
/// markers it reads (bare calls, other versions' blocks), in the engine's
/// marker order after the block's.
#[derive(Debug)]
pub(crate) struct Dialect {
    pub(crate) block: Opening,
    pub(crate) others: &'static [Opening],
}

impl Dialect {
    /// The start markers, by index.
    pub(crate) fn markers(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once(self.block.marker).chain(self.others.iter().map(|o| o.marker))
    }

    /// What start marker `marker` opens (the block's, for an index past
    /// the others).
    pub(crate) fn opened_by(&self, marker: usize) -> &Opening {
        marker
            .checked_sub(1)
            .and_then(|i| self.others.get(i))
            .unwrap_or(&self.block)
    }

    /// The marker that ends what start marker `marker` opens, or `None`
    /// when it opens one call without its block.
    pub(crate) fn block_end(&self, marker: usize) -> Option<&'static [u8]> {
        let opening = self.opened_by(marker);
        (!opening.bare_call).then_some(opening.tags.end)
    }
}
