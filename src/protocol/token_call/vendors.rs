//! What sets one vendor's special-token calls apart from another's, as
//! data built once per vendor: its tokens, the tokens each phase waits
//! for, how its name part names the call, how a call ends.

/// Which token a finished match found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    CallBegin,
    SectionEnd,
    CallEnd,
    FenceClose,
}

/// The vendors whose calls this automaton reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vendor {
    DeepSeek,
    KimiK2,
    Mistral,
    Harmony,
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

pub(super) const DEEPSEEK: Tokens = Tokens {
    section_begin: "<｜tool▁calls▁begin｜>",
    section_end: "<｜tool▁calls▁end｜>",
    call_begin: "<｜tool▁call▁begin｜>",
    sep: "<｜tool▁sep｜>",
    call_end: "<｜tool▁call▁end｜>",
};

pub(super) const KIMI_K2: Tokens = Tokens {
    section_begin: "<|tool_calls_section_begin|>",
    section_end: "<|tool_calls_section_end|>",
    call_begin: "<|tool_call_begin|>",
    sep: "<|tool_call_argument_begin|>",
    call_end: "<|tool_call_end|>",
};

/// The tokens a phase waits for, after whitespace.
#[derive(Debug)]
pub(super) struct Expected {
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

pub(super) const fn expected(t: &Tokens) -> Expected {
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

/// Mistral has neither sections nor end tokens: every call begins with
/// `[TOOL_CALLS]` and ends with its JSON. The empty tokens are never
/// matched (a Mistral call completes where its arguments end).
pub(super) const MISTRAL: Tokens = Tokens {
    section_begin: "[TOOL_CALLS]",
    section_end: "",
    call_begin: "[TOOL_CALLS]",
    sep: "[ARGS]",
    call_end: "",
};

/// gpt-oss: a message's header ends with `<|message|>`; a call's message
/// with `<|call|>` (or `<|end|>`); the next message starts with `<|start|>`.
pub(super) const HARMONY: Tokens = Tokens {
    section_begin: "<|start|>",
    section_end: "<|end|>",
    call_begin: "<|start|>",
    sep: "<|message|>",
    call_end: "<|call|>",
};

/// gpt-oss: where a header's channel begins.
pub(super) const CHANNEL: &str = "<|channel|>";

/// gpt-oss: the marker `<|channel|>analysis to=` (a call from the analysis
/// channel, its recipient after the channel's name), by its index among
/// the format's markers.
pub(crate) const ANALYSIS_TO: &str = "<|channel|>analysis to=";
pub(crate) const ANALYSIS_TO_MARKER: usize = 6;

/// DeepSeek-V3's fence around the arguments.
pub(super) const FENCE_OPEN: &[u8] = b"```json";
pub(super) const FENCE_CLOSE: &[u8] = b"```";

/// The most bytes a call's name part may take (`functions.NAME:0`).
pub(super) const MAX_HEAD: usize = 256;

/// How a vendor names the call in the bytes between its begin token and
/// the separator (trimmed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameRule {
    /// All of them.
    Verbatim,
    /// A header's recipient, `to=functions.NAME` (none: no call).
    Recipient,
    /// `NAME` before the id token (the id is read apart).
    BeforeId,
    /// `functions.NAME:0`: the namespace and the call's index go.
    Namespaced,
}

/// Everything that sets one vendor's calls apart from another's. Built
/// once per vendor; the automaton never changes it.
#[derive(Debug)]
pub(crate) struct Rules {
    pub(super) tokens: Tokens,
    pub(super) expected: Expected,
    pub(super) name: NameRule,
    /// Calls stand alone (no section, no end token): a call ends with its
    /// JSON, and its name may run into the arguments' `{` (text decoded
    /// without its control tokens reads `[TOOL_CALLS]NAME{…}`).
    pub(super) ends_with_json: bool,
    /// Each call is a message of its own whose header holds other tokens
    /// (`<|channel|>`, `<|constrain|>`) and names its recipient; a header
    /// naming none is markup.
    pub(super) headers: bool,
    /// A token that puts the model's id for the call between the name and
    /// the separator.
    pub(super) id_token: Option<&'static str>,
    /// DeepSeek-V3: the name part `function`, then the name on its own
    /// line, and the arguments in a fence.
    pub(super) function_line: bool,
}

pub(super) const DEEPSEEK_RULES: Rules = Rules {
    tokens: DEEPSEEK,
    expected: expected(&DEEPSEEK),
    name: NameRule::Verbatim,
    ends_with_json: false,
    headers: false,
    id_token: None,
    function_line: true,
};

pub(super) const KIMI_K2_RULES: Rules = Rules {
    tokens: KIMI_K2,
    expected: expected(&KIMI_K2),
    name: NameRule::Namespaced,
    ends_with_json: false,
    headers: false,
    id_token: None,
    function_line: false,
};

pub(super) const MISTRAL_RULES: Rules = Rules {
    tokens: MISTRAL,
    expected: expected(&MISTRAL),
    name: NameRule::BeforeId,
    ends_with_json: true,
    headers: false,
    id_token: Some("[CALL_ID]"),
    function_line: false,
};

pub(super) const HARMONY_RULES: Rules = Rules {
    tokens: HARMONY,
    expected: expected(&HARMONY),
    name: NameRule::Recipient,
    ends_with_json: false,
    headers: true,
    id_token: None,
    function_line: false,
};

impl Vendor {
    pub(crate) const fn tokens(self) -> &'static Tokens {
        &self.rules().tokens
    }

    pub(super) const fn rules(self) -> &'static Rules {
        match self {
            Vendor::DeepSeek => &DEEPSEEK_RULES,
            Vendor::KimiK2 => &KIMI_K2_RULES,
            Vendor::Mistral => &MISTRAL_RULES,
            Vendor::Harmony => &HARMONY_RULES,
        }
    }
}

impl Rules {
    /// The call's name in the (trimmed) bytes between its begin token and
    /// the separator.
    pub(super) fn name_of<'h>(&self, head: &'h str) -> &'h str {
        match self.name {
            NameRule::Verbatim => head,
            NameRule::Recipient => match head.find("to=") {
                Some(at) => recipient(&head[at + 3..]),
                None => "",
            },
            NameRule::BeforeId => match self.id_token.and_then(|t| head.split_once(t)) {
                Some((name, _)) => name.trim_end(),
                None => head,
            },
            NameRule::Namespaced => {
                let name = head.strip_prefix("functions.").unwrap_or(head);
                // The index after the last `:` (an ASCII byte: `at` is a
                // character boundary).
                match name.bytes().rposition(|b| b == b':') {
                    Some(at)
                        if at + 1 < name.len()
                            && name.as_bytes()[at + 1..].iter().all(u8::is_ascii_digit) =>
                    {
                        &name[..at]
                    }
                    _ => name,
                }
            }
        }
    }

    /// The model's id for the call in the name part, if it wrote one.
    pub(super) fn id_of<'h>(&self, head: &'h str) -> Option<&'h str> {
        head.split_once(self.id_token?).map(|(_, id)| id)
    }

    /// Whether a block that began with the section's token holds calls
    /// with begin tokens of their own.
    pub(super) fn calls_inside_sections(&self) -> bool {
        self.tokens.section_begin != self.tokens.call_begin
    }
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
