//! What sets one vendor's special-token calls apart from another's, as
//! data: its tokens, the tokens each phase waits for, how its name part
//! names the call, how a call ends. Each format file builds its vendor's
//! [`Rules`] once, as a constant.

use crate::scan::find_bytes;

/// Which token a finished match found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    CallBegin,
    SectionEnd,
    CallEnd,
    FenceClose,
}

/// One vendor's special tokens.
#[derive(Debug)]
pub(crate) struct Tokens {
    pub(crate) section_begin: &'static str,
    pub(crate) section_end: &'static str,
    pub(crate) call_begin: &'static str,
    /// Between a call's name and its arguments.
    pub(crate) sep: &'static str,
    pub(crate) call_end: &'static str,
}

/// The tokens a phase waits for, after whitespace.
#[derive(Debug)]
pub(crate) struct Expected {
    /// After the arguments.
    pub(super) after_args: [&'static [u8]; 3],
    /// After the arguments, in a fence.
    pub(super) in_fence: [&'static [u8]; 2],
    /// After the section's begin token or a call's end token.
    pub(super) between: [&'static [u8]; 2],
}

/// Which token of [`Expected`] a finished match found, by its index there.
pub(super) const AFTER_ARGS: [Token; 3] = [Token::CallEnd, Token::SectionEnd, Token::CallBegin];
pub(super) const IN_FENCE: [Token; 2] = [Token::FenceClose, Token::CallEnd];
pub(super) const BETWEEN: [Token; 2] = [Token::CallBegin, Token::SectionEnd];

const fn expected(t: &Tokens) -> Expected {
    Expected {
        after_args: [
            t.call_end.as_bytes(),
            t.section_end.as_bytes(),
            t.call_begin.as_bytes(),
        ],
        in_fence: [FENCE_CLOSE, t.call_end.as_bytes()],
        between: [t.call_begin.as_bytes(), t.section_end.as_bytes()],
    }
}

/// gpt-oss: where a header's channel begins.
pub(super) const CHANNEL: &str = "<|channel|>";

/// DeepSeek-V3's fence around the arguments.
pub(super) const FENCE_OPEN: &[u8] = b"```json";
pub(super) const FENCE_CLOSE: &[u8] = b"```";

/// The most bytes a call's name part may take (`functions.NAME:0`).
pub(super) const MAX_HEAD: usize = 256;

/// How a vendor names the call in the bytes between its begin token and
/// the separator (trimmed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameRule {
    /// All of them.
    Verbatim,
    /// A header's recipient, `to=functions.NAME` (none: no call).
    Recipient,
    /// `NAME` before the id token (the id is read apart).
    BeforeId,
    /// `functions.NAME:0`: the namespace and the call's index go.
    Namespaced,
}

/// Everything that sets one vendor's calls apart from another's: a
/// constant of the vendor's format file, from [`Rules::new`] with the
/// fields that differ set; the automaton never changes it.
#[derive(Debug)]
pub(crate) struct Rules {
    pub(crate) tokens: Tokens,
    /// Derived from `tokens` by [`Rules::new`].
    pub(crate) expected: Expected,
    pub(crate) name: NameRule,
    /// Calls stand alone (no section, no end token): a call ends with its
    /// JSON, and its name may run into the arguments' `{` (text decoded
    /// without its control tokens reads `[TOOL_CALLS]NAME{…}`).
    pub(crate) ends_with_json: bool,
    /// Each call is a message of its own whose header holds other tokens
    /// (`<|channel|>`, `<|constrain|>`) and names its recipient; a header
    /// naming none is markup.
    pub(crate) headers: bool,
    /// A token that puts the model's id for the call between the name and
    /// the separator.
    pub(crate) id_token: Option<&'static str>,
    /// DeepSeek-V3: the name part `function`, then the name on its own
    /// line, and the arguments in a fence.
    pub(crate) function_line: bool,
    /// With `headers`: the start marker whose header is addressed already
    /// (gpt-oss's `<|channel|>analysis to=`), by its index.
    pub(crate) addressed_marker: Option<usize>,
}

impl Rules {
    /// A vendor's rules: its tokens and how it names a call; calls in a
    /// section, ending with an end token, without headers or ids (set the
    /// fields that differ).
    pub(crate) const fn new(tokens: Tokens, name: NameRule) -> Rules {
        Rules {
            expected: expected(&tokens),
            tokens,
            name,
            ends_with_json: false,
            headers: false,
            id_token: None,
            function_line: false,
            addressed_marker: None,
        }
    }

    /// The start markers: the section's begin token (index 0), a call's
    /// (index 1).
    pub(crate) const fn markers(&self) -> [&'static str; 2] {
        [self.tokens.section_begin, self.tokens.call_begin]
    }

    /// The call's name in the (trimmed) bytes between its begin token and
    /// the separator.
    pub(super) fn name_of<'h>(&self, head: &'h str) -> &'h str {
        match self.name {
            NameRule::Verbatim => head,
            NameRule::Recipient => match find_bytes(head.as_bytes(), b"to=") {
                Some(at) => recipient(&head[at + 3..]),
                None => "",
            },
            NameRule::BeforeId => match self.id_token.and_then(|t| split_at_token(head, t)) {
                Some((name, _)) => name.trim_end(),
                None => head,
            },
            NameRule::Namespaced => {
                let name = head.strip_prefix("functions.").unwrap_or(head);
                without_index(name).unwrap_or(name)
            }
        }
    }

    /// The model's id for the call in the (trimmed) name part, if it
    /// wrote one: after the id token, or Kimi's whole
    /// `functions.NAME:INDEX` (its template refers to the call by it).
    pub(super) fn id_of<'h>(&self, head: &'h str) -> Option<&'h str> {
        match self.name {
            NameRule::Namespaced => without_index(head).map(|_| head),
            _ => split_at_token(head, self.id_token?).map(|(_, id)| id),
        }
    }

    /// Whether a block that began with the section's token holds calls
    /// with begin tokens of their own.
    pub(super) fn calls_inside_sections(&self) -> bool {
        self.tokens.section_begin != self.tokens.call_begin
    }
}

/// `head` split around the first `token`, as `str::split_once` splits it,
/// without the searcher's set-up, which costs more than the search in a
/// call's short head (once per call, some 800 instructions).
fn split_at_token<'h>(head: &'h str, token: &str) -> Option<(&'h str, &'h str)> {
    let at = find_bytes(head.as_bytes(), token.as_bytes())?;
    // `at` and `at + token.len()` bound a whole `str`: character boundaries.
    Some((&head[..at], &head[at + token.len()..]))
}

/// `name` without the call's index after its last `:` (`f:0` is `f`);
/// `None` if it has none.
fn without_index(name: &str) -> Option<&str> {
    // `at` is a character boundary: `:` is ASCII.
    let at = name.bytes().rposition(|b| b == b':')?;
    let index = &name.as_bytes()[at + 1..];
    (!index.is_empty() && index.iter().all(u8::is_ascii_digit)).then(|| &name[..at])
}

/// gpt-oss: the tool a header's recipient names (`functions.NAME`, up to
/// whitespace or the next token).
pub(super) fn recipient(rest: &str) -> &str {
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '<')
        .unwrap_or(rest.len());
    let recipient = &rest[..end];
    recipient.strip_prefix("functions.").unwrap_or(recipient)
}

/// gpt-oss: whether a header the prompt opened has begun its recipient
/// (`Some(true)`), cannot be one (`Some(false)`: the output is text), or
/// may still be (`None`). At most two spaces, then `to=`.
pub(super) fn opens_recipient(head: &[u8]) -> Option<bool> {
    const TO: &[u8] = b"to=";
    let spaces = head.iter().take_while(|&&b| b == b' ').count();
    let rest = &head[spaces..];
    if spaces > 2 {
        Some(false)
    } else if rest.len() >= TO.len() {
        Some(rest.starts_with(TO))
    } else if TO.starts_with(rest) {
        None
    } else {
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte search splits where `str::split_once` does: at the first
    /// token, around multi-byte text, in heads shorter and longer than
    /// the short search's limit.
    #[test]
    fn splits_at_the_token_as_split_once() {
        let long = format!("{}[CALL_ID]x[CALL_ID]y", "名".repeat(9));
        let heads = [
            "get_weather[CALL_ID]abc123",
            "get_weather",
            "[CALL_ID]",
            "f [CALL_ID] [CALL_ID]",
            "東京[CALL_ID]é",
            "[CALL_I",
            "",
            &long,
        ];
        for head in heads {
            for token in ["[CALL_ID]", "to=", "x"] {
                assert_eq!(
                    split_at_token(head, token),
                    head.split_once(token),
                    "{head:?} {token:?}"
                );
            }
        }
    }
}
