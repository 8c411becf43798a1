//! Calls between vendor special tokens, each named before its JSON
//! arguments:
//!
//! - `deepseek`: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`
//!   (DeepSeek-V3.1 and later); DeepSeek-V3 and R1 write
//!   `function<｜tool▁sep｜>NAME` and the arguments in a ```` ```json ````
//!   fence before the call's end token.
//! - `kimi-k2`: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`.
//!
//! - `mistral` (v11 and later): `[TOOL_CALLS]NAME[ARGS]{…}`, v13 with
//!   `[CALL_ID]ID` before `[ARGS]`; one call per `[TOOL_CALLS]`, ended by
//!   the end of its JSON.
//!
//! - `harmony` (gpt-oss): a message header, `<|start|>assistant` or
//!   `<|channel|>commentary`, naming its recipient
//!   (` to=functions.NAME`, maybe `<|constrain|>json`), `<|message|>`, the
//!   JSON arguments and `<|call|>`. A header without a recipient is markup.
//!
//! A section holds any number of calls, each delivered when the next one
//! begins or the section ends. A call's own begin token also opens a block
//! (a model that leaves out the section's tokens, or the call after one that
//! failed). The arguments stream verbatim, as the model writes them.

use crate::protocol::CallAutomaton;
use std::borrow::Cow;
use std::ops::ControlFlow;

use super::{Failure, Outcome, Steady};
use crate::cx::CallCx;
use crate::event::DiagnosticKind;
use crate::scan::is_ws;
use crate::scan::json::{JsonScanner, Repair, Signal};
use crate::scan::partial::{Match, Partial, PartialSet, SetMatch};

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

const DEEPSEEK: Tokens = Tokens {
    section_begin: "<｜tool▁calls▁begin｜>",
    section_end: "<｜tool▁calls▁end｜>",
    call_begin: "<｜tool▁call▁begin｜>",
    sep: "<｜tool▁sep｜>",
    call_end: "<｜tool▁call▁end｜>",
};

const KIMI_K2: Tokens = Tokens {
    section_begin: "<|tool_calls_section_begin|>",
    section_end: "<|tool_calls_section_end|>",
    call_begin: "<|tool_call_begin|>",
    sep: "<|tool_call_argument_begin|>",
    call_end: "<|tool_call_end|>",
};

/// The tokens a phase waits for, after whitespace.
#[derive(Debug)]
struct Expected {
    /// After the arguments.
    after_args: [&'static [u8]; 3],
    /// After the arguments, in a fence.
    in_fence: [&'static [u8]; 2],
    /// After the section's begin token or a call's end token.
    between: [&'static [u8]; 2],
}

/// Which token of [`Expected`] a finished match found, by its index there.
const AFTER_ARGS: [Token; 3] = [Token::CallEnd, Token::SectionEnd, Token::CallBegin];
const IN_FENCE: [Token; 2] = [Token::FenceClose, Token::CallEnd];
const BETWEEN: [Token; 2] = [Token::CallBegin, Token::SectionEnd];

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

/// Mistral has neither sections nor end tokens: every call begins with
/// `[TOOL_CALLS]` and ends with its JSON. The empty tokens are never
/// matched (a Mistral call completes where its arguments end).
const MISTRAL: Tokens = Tokens {
    section_begin: "[TOOL_CALLS]",
    section_end: "",
    call_begin: "[TOOL_CALLS]",
    sep: "[ARGS]",
    call_end: "",
};

/// gpt-oss: a message's header ends with `<|message|>`; a call's message
/// with `<|call|>` (or `<|end|>`); the next message starts with `<|start|>`.
const HARMONY: Tokens = Tokens {
    section_begin: "<|start|>",
    section_end: "<|end|>",
    call_begin: "<|start|>",
    sep: "<|message|>",
    call_end: "<|call|>",
};

/// gpt-oss: where a header's channel begins.
const CHANNEL: &str = "<|channel|>";

/// gpt-oss: the marker `<|channel|>analysis to=` (a call from the analysis
/// channel, its recipient after the channel's name), by its index among
/// the format's markers.
pub(crate) const ANALYSIS_TO: &str = "<|channel|>analysis to=";
pub(crate) const ANALYSIS_TO_MARKER: usize = 6;

/// DeepSeek-V3's fence around the arguments.
const FENCE_OPEN: &[u8] = b"```json";
const FENCE_CLOSE: &[u8] = b"```";

/// The most bytes a call's name part may take (`functions.NAME:0`).
const MAX_HEAD: usize = 256;

/// How a vendor names the call in the bytes between its begin token and
/// the separator (trimmed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameRule {
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
    tokens: Tokens,
    expected: Expected,
    name: NameRule,
    /// Calls stand alone (no section, no end token): a call ends with its
    /// JSON, and its name may run into the arguments' `{` (text decoded
    /// without its control tokens reads `[TOOL_CALLS]NAME{…}`).
    ends_with_json: bool,
    /// Each call is a message of its own whose header holds other tokens
    /// (`<|channel|>`, `<|constrain|>`) and names its recipient; a header
    /// naming none is markup.
    headers: bool,
    /// A token that puts the model's id for the call between the name and
    /// the separator.
    id_token: Option<&'static str>,
    /// DeepSeek-V3: the name part `function`, then the name on its own
    /// line, and the arguments in a fence.
    function_line: bool,
}

const DEEPSEEK_RULES: Rules = Rules {
    tokens: DEEPSEEK,
    expected: expected(&DEEPSEEK),
    name: NameRule::Verbatim,
    ends_with_json: false,
    headers: false,
    id_token: None,
    function_line: true,
};

const KIMI_K2_RULES: Rules = Rules {
    tokens: KIMI_K2,
    expected: expected(&KIMI_K2),
    name: NameRule::Namespaced,
    ends_with_json: false,
    headers: false,
    id_token: None,
    function_line: false,
};

const MISTRAL_RULES: Rules = Rules {
    tokens: MISTRAL,
    expected: expected(&MISTRAL),
    name: NameRule::BeforeId,
    ends_with_json: true,
    headers: false,
    id_token: Some("[CALL_ID]"),
    function_line: false,
};

const HARMONY_RULES: Rules = Rules {
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

    const fn rules(self) -> &'static Rules {
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
    fn name_of<'h>(&self, head: &'h str) -> &'h str {
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
                match name.rsplit_once(':') {
                    Some((name, index))
                        if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) =>
                    {
                        name
                    }
                    _ => name,
                }
            }
        }
    }

    /// The model's id for the call in the name part, if it wrote one.
    fn id_of<'h>(&self, head: &'h str) -> Option<&'h str> {
        head.split_once(self.id_token?).map(|(_, id)| id)
    }

    /// Whether a block that began with the section's token holds calls
    /// with begin tokens of their own.
    fn calls_inside_sections(&self) -> bool {
        self.tokens.section_begin != self.tokens.call_begin
    }
}

/// gpt-oss: the tool a header's recipient names (`functions.NAME`, up to
/// whitespace or the next token).
fn recipient(rest: &str) -> &str {
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '<')
        .unwrap_or(rest.len());
    let recipient = &rest[..end];
    recipient.strip_prefix("functions.").unwrap_or(recipient)
}

/// gpt-oss: whether a header the prompt opened has begun its recipient
/// (`Some(true)`), cannot be one (`Some(false)`: the output is text), or
/// may still be (`None`). At most two spaces, then `to=`.
fn opens_recipient(head: &[u8]) -> Option<bool> {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// After the section's begin token: whitespace, then a call's begin
    /// token (or the section's end).
    FirstCall,
    /// The name part, up to the separator (for Mistral, with the call's
    /// id after `[CALL_ID]`).
    Head,
    /// The separator, its first byte read.
    Sep,
    /// The id token (Mistral's `[CALL_ID]`), read where the separator was
    /// expected.
    Id,
    /// DeepSeek-V3: the name after `function<sep>`, up to its line break.
    V3Name,
    /// Whitespace (and DeepSeek-V3's fence) before the arguments' `{`.
    BeforeArgs,
    /// DeepSeek-V3's fence opener, its first byte read.
    FenceOpen,
    /// The arguments object.
    Args,
    /// After the arguments: the fence's close if one opened, then the
    /// call's end token.
    CallEnd,
    /// After a call's end token: the next call, the section's end, or
    /// anything else (the block ends before it).
    Next,
}

/// Which token a finished match found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    CallBegin,
    SectionEnd,
    CallEnd,
    FenceClose,
}

#[derive(Debug, Clone)]
pub(crate) struct TokenCall {
    rules: &'static Rules,
    phase: Phase,
    /// Whether the block began with the section's token.
    sectioned: bool,
    /// The name part read so far, or DeepSeek-V3's name.
    head: Vec<u8>,
    /// Stream offset of `head[0]`.
    head_at: u64,
    /// The token being matched among those the phase expects.
    token: PartialSet,
    /// The separator, id token or fence opener being matched.
    literal: Partial,
    /// Stream offset of the first byte of the token or literal being
    /// matched.
    token_at: u64,
    /// Bytes consumed since the last thing that belongs to the call
    /// (whitespace, a token being matched): given back if the block ends
    /// there.
    trail: usize,
    /// Whether the arguments sit in a fence that is still open.
    fenced: bool,
    json: JsonScanner,
    /// What [`steady`](Self::steady) found scanning the start of the slice
    /// that [`advance`](Self::advance) gets next.
    prescanned: Option<(usize, Signal)>,
    /// The kinds of string repair made in this call
    /// ([`Repair::kind_bit`]): each is reported at its first.
    repaired: u8,
    /// Why the call in progress cannot be delivered (its arguments are not
    /// UTF-8): it fails where its arguments end.
    rejected: Option<Failure>,
    /// gpt-oss: the automaton reads the output's start, a header the
    /// prompt's `<|start|>assistant` opened.
    prompt_opened: bool,
    /// Until ` to=` is read, such a header may still be text.
    confirming: bool,
    /// gpt-oss: the marker was `<|channel|>analysis to=`: the head is
    /// the recipient.
    addressed: bool,
}

/// A phase's step: go on with the next phase, or return the outcome.
type Step = ControlFlow<Outcome>;

/// Goes on once a call started; otherwise ends with why it did not.
fn step_of(started: Result<(), Outcome>) -> Step {
    match started {
        Ok(()) => ControlFlow::Continue(()),
        Err(outcome) => ControlFlow::Break(outcome),
    }
}

impl TokenCall {
    pub(crate) fn new(vendor: Vendor, max_depth: usize) -> TokenCall {
        TokenCall {
            rules: vendor.rules(),
            phase: Phase::FirstCall,
            sectioned: true,
            head: Vec::new(),
            head_at: 0,
            token: PartialSet::default(),
            literal: Partial::default(),
            token_at: 0,
            trail: 0,
            fenced: false,
            json: JsonScanner::new(max_depth).quiet_members(),
            prescanned: None,
            repaired: 0,
            rejected: None,
            prompt_opened: false,
            confirming: false,
            addressed: false,
        }
    }

    /// gpt-oss: the automaton for the output's start, which goes on with
    /// the header the prompt opened (` to=functions.NAME<|channel|>…`).
    /// Vendors without headers have no such calls.
    pub(crate) fn bare_lead(&self) -> Option<TokenCall> {
        let mut lead = self.clone();
        lead.prompt_opened = true;
        self.rules.headers.then_some(lead)
    }

    /// The start markers: the section's begin token (index 0), a call's
    /// (index 1).
    pub(crate) fn markers(vendor: Vendor) -> [&'static str; 2] {
        let t = vendor.tokens();
        [t.section_begin, t.call_begin]
    }

    /// Readies the per-call state.
    fn next_call(&mut self) {
        self.head.clear();
        self.token.reset();
        self.literal.reset();
        self.trail = 0;
        self.fenced = false;
        self.json.reset();
        self.prescanned = None;
        self.repaired = 0;
    }

    /// The tokens the phase waits for (one of the expecting phases), and
    /// what each is.
    fn expected(&self) -> (&'static [&'static [u8]], &'static [Token]) {
        let e = &self.rules.expected;
        match self.phase {
            Phase::CallEnd if self.fenced => (&e.in_fence, &IN_FENCE),
            Phase::CallEnd => (&e.after_args, &AFTER_ARGS),
            _ => (&e.between, &BETWEEN),
        }
    }

    /// A token matched; `Some` when it ends the block.
    fn on_token<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        which: Token,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let at = self.token_at;
        let one_per_message = self.rules.headers;
        match (self.phase, which) {
            (_, Token::FenceClose) => {
                self.fenced = false;
                self.trail = 0;
                None
            }
            // A gpt-oss message ends with its call's token (or `<|end|>`);
            // the next one (`<|start|>`) is read as a message of its own.
            (Phase::CallEnd, Token::CallEnd | Token::SectionEnd) if one_per_message => {
                Some(Outcome::Complete { give_back: 0 })
            }
            (Phase::CallEnd, Token::CallBegin) if one_per_message => {
                self.missing_call_end(at, cx);
                Some(Outcome::Complete {
                    give_back: self.trail,
                })
            }
            (Phase::CallEnd, Token::CallEnd) => {
                self.trail = 0;
                self.phase = Phase::Next;
                None
            }
            (Phase::FirstCall, Token::CallBegin) => {
                self.next_call();
                self.phase = Phase::Head;
                None
            }
            (Phase::Next | Phase::CallEnd, Token::CallBegin) => {
                if self.phase == Phase::CallEnd {
                    self.missing_call_end(at, cx);
                }
                cx.deliver(at);
                self.next_call();
                self.phase = Phase::Head;
                None
            }
            (Phase::CallEnd, Token::SectionEnd) => {
                self.missing_call_end(at, cx);
                Some(Outcome::Complete { give_back: 0 })
            }
            (Phase::Next, Token::SectionEnd) => Some(Outcome::Complete { give_back: 0 }),
            // A section that holds no call: nothing to deliver.
            _ => Some(Outcome::failed(Failure::new(
                DiagnosticKind::MalformedCall,
                at,
                "the tool call section holds no call",
            ))),
        }
    }

    /// What follows (from stream offset `at`) is not a token this phase
    /// expects.
    fn no_token<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Outcome {
        let give_back = self.trail;
        match self.phase {
            Phase::FirstCall => Outcome::failed(Failure::new(
                DiagnosticKind::MalformedCall,
                at,
                "expected a tool call after the section's begin token",
            ))
            .giving_back(give_back),
            Phase::CallEnd => {
                self.missing_call_end(at.saturating_sub(self.trail as u64), cx);
                Outcome::Complete { give_back }
            }
            _ => {
                if self.sectioned {
                    self.missing_section_end(at.saturating_sub(self.trail as u64), cx);
                }
                Outcome::Complete { give_back }
            }
        }
    }

    /// The name is read (ending at stream offset `at`): checks it and
    /// starts the call.
    fn start_call<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Result<(), Outcome> {
        let head = String::from_utf8_lossy(&self.head);
        let name = match self.phase {
            Phase::V3Name => head.trim(),
            _ if self.addressed => recipient(head.trim()),
            _ => self.rules.name_of(head.trim()),
        };
        if self.confirming {
            let read = self.head.len() + self.rules.tokens.sep.len();
            return Err(Outcome::NotACall { read });
        }
        if self.rules.headers && name.is_empty() {
            return Err(self.header_markup());
        }
        let plausible = !name.is_empty()
            && !name.contains(char::REPLACEMENT_CHARACTER)
            && !name.chars().any(|c| c.is_whitespace() || c.is_control());
        if !plausible {
            return Err(Outcome::failed(Failure::new(
                DiagnosticKind::MissingName,
                at,
                format!("{name:?} is not a tool name"),
            )));
        }
        // Where the name stands in the stream (a slice of the head, which
        // is the stream's bytes when they are UTF-8): events borrow it from
        // the chunk.
        let origin = match head {
            Cow::Borrowed(h) => {
                Some(self.head_at + (name.as_ptr() as usize - h.as_ptr() as usize) as u64)
            }
            Cow::Owned(_) => None,
        };
        // Before the start, so that `tool-input-start` carries it.
        if let Some(id) = self.rules.id_of(&head) {
            cx.model_call_id(id);
        }
        cx.start_at(name, origin, at)
            .map_err(|f| Outcome::failed(f.with_name(name)))?;
        self.phase = Phase::BeforeArgs;
        Ok(())
    }

    /// The byte that ends the name part: the separator's first, or for
    /// DeepSeek-V3's name the line break.
    fn name_stop(&self) -> u8 {
        match self.phase {
            Phase::V3Name => b'\n',
            _ => self.rules.tokens.sep.as_bytes()[0],
        }
    }

    /// Where the name part ends in `bytes`: at [`name_stop`](Self::name_stop),
    /// or for calls that end with their JSON also at the arguments' `{`.
    fn name_end(&self, bytes: &[u8]) -> Option<usize> {
        match self.phase {
            Phase::Head if self.rules.ends_with_json => memchr::memchr2(b'[', b'{', bytes),
            _ => memchr::memchr(self.name_stop(), bytes),
        }
    }

    /// A gpt-oss header without a recipient is markup; after `<|start|>`, only up to its channel, which goes
    /// back to be read again (as the reasoning tag of the analysis
    /// channel, or as a header of its own).
    fn header_markup(&self) -> Outcome {
        // `sectioned`: the header began with `<|start|>` (marker 0).
        let channel = self
            .sectioned
            .then(|| memchr::memmem::find(&self.head, CHANNEL.as_bytes()))
            .flatten();
        let sep = self.rules.tokens.sep.len();
        let give_back = channel.map_or(0, |c| self.head.len() - c + sep);
        Outcome::Markup { give_back }
    }

    /// Whether the name part holds the model's call id already.
    fn head_has_id(&self) -> bool {
        self.rules
            .id_token
            .is_some_and(|t| memchr::memmem::find(&self.head, t.as_bytes()).is_some())
    }

    /// Whether the name part, trimmed, is `word`.
    fn head_is(&self, word: &[u8]) -> bool {
        std::str::from_utf8(&self.head).is_ok_and(|h| h.trim().as_bytes() == word)
    }

    /// A malformed call at the literal being matched: the bytes that
    /// matched it in part go back (they may begin a marker: a section's
    /// begin token after a call-begin token written in prose).
    fn malformed_at_literal(&mut self, message: &str) -> Step {
        let matched = self.literal.matched();
        self.literal.reset();
        ControlFlow::Break(self.malformed(self.token_at, message).giving_back(matched))
    }

    fn malformed(&self, at: u64, message: &str) -> Outcome {
        Outcome::failed(Failure::new(DiagnosticKind::MalformedCall, at, message))
    }

    /// Writes `repair` where the model's bytes were not JSON, and says so
    /// once per call.
    fn repair<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        repair: Repair,
        offset: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        if self.rejected.is_some() {
            return;
        }
        if self.repaired & repair.kind_bit() == 0 {
            self.repaired |= repair.kind_bit();
            cx.recovered(
                DiagnosticKind::RepairedJson,
                offset,
                repair.message().into(),
            );
        }
        let mut buf = [0; 6];
        let fixed = repair.text(&mut buf);
        let _ = cx.delta_owned(fixed, offset);
    }

    fn missing_call_end<'c, S: FnMut(crate::Event<'c>)>(
        &self,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let token = self.rules.tokens.call_end;
        cx.recovered(
            DiagnosticKind::MissingEndMarker,
            at,
            format!("the call's arguments are complete but its end token {token:?} is missing; call recovered"),
        );
    }

    fn missing_section_end<'c, S: FnMut(crate::Event<'c>)>(
        &self,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let token = self.rules.tokens.section_end;
        cx.recovered(
            DiagnosticKind::MissingEndMarker,
            at,
            format!("the section's end token {token:?} is missing; calls recovered"),
        );
    }
}

/// One method per phase: each consumes from `bytes[*i..]` and either
/// moves to a phase that goes on ([`ControlFlow::Continue`]) or ends the
/// slice's work with an outcome ([`ControlFlow::Break`], `More` when the
/// slice ran out).
impl TokenCall {
    /// Whitespace, then one of the tokens the phase expects.
    fn expect_token<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        if !self.token.is_started() {
            let ws = bytes[*i..].iter().take_while(|&&b| is_ws(b)).count();
            *i += ws;
            self.trail += ws;
            if *i == bytes.len() {
                return ControlFlow::Break(Outcome::More);
            }
            self.token_at = cx.offset(*i);
        }
        let (tokens, kinds) = self.expected();
        let from = *i;
        let found = self.token.feed(tokens, bytes, i);
        self.trail += *i - from;
        match found {
            SetMatch::More => ControlFlow::Break(Outcome::More),
            SetMatch::Done(index) => match self.on_token(kinds[index], cx) {
                Some(done) => ControlFlow::Break(done),
                None => ControlFlow::Continue(()),
            },
            SetMatch::Mismatch => {
                // The byte is not consumed: it begins what follows.
                self.token.reset();
                ControlFlow::Break(self.no_token(cx.offset(*i), cx))
            }
        }
    }

    /// The name part (or DeepSeek-V3's name line), up to what ends it.
    fn name_part<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        let rest = &bytes[*i..];
        let n = self.name_end(rest).unwrap_or(rest.len());
        // Up to the limit, then the failure: at the same byte however the
        // name was cut into chunks.
        let room = MAX_HEAD.saturating_sub(self.head.len());
        if self.head.is_empty() {
            self.head_at = cx.offset(*i);
        }
        self.head.extend_from_slice(&rest[..n.min(room)]);
        *i += n.min(room);
        if self.confirming {
            match opens_recipient(&self.head) {
                Some(true) => self.confirming = false,
                Some(false) => {
                    let read = self.head.len();
                    return ControlFlow::Break(Outcome::NotACall { read });
                }
                None => {}
            }
        }
        if n > room {
            let at = cx.offset(*i);
            return ControlFlow::Break(self.malformed(at, "the call's name is too long"));
        }
        if *i == bytes.len() {
            return ControlFlow::Break(Outcome::More);
        }
        if bytes[*i] == b'{' && self.rules.ends_with_json {
            return step_of(self.start_call(cx.offset(*i), cx));
        }
        if self.phase == Phase::V3Name {
            *i += 1;
            return step_of(self.start_call(cx.offset(*i), cx));
        }
        self.literal.reset();
        self.token_at = cx.offset(*i);
        self.phase = Phase::Sep;
        ControlFlow::Continue(())
    }

    /// The separator between the name part and the arguments.
    fn separator<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        let sep = self.rules.tokens.sep.as_bytes();
        match self.literal.feed(sep, bytes, i) {
            Match::More => ControlFlow::Break(Outcome::More),
            Match::Mismatch => {
                let read = &sep[..self.literal.matched()];
                if self.rules.headers {
                    // gpt-oss: other tokens of the header (`<|channel|>`,
                    // `<|constrain|>`) belong to it.
                    self.head.extend_from_slice(read);
                    self.literal.reset();
                    self.phase = Phase::Head;
                    return ControlFlow::Continue(());
                }
                // Mistral v13: `[CALL_ID]` comes first.
                let id = self.rules.id_token.map(str::as_bytes);
                let begins_id = id
                    .is_some_and(|id| id.starts_with(read) && id.get(read.len()) == bytes.get(*i));
                if begins_id && !self.head_has_id() {
                    // What matched of the separator matched the id token.
                    self.phase = Phase::Id;
                    return ControlFlow::Continue(());
                }
                self.malformed_at_literal("expected the separator after the call's name")
            }
            // DeepSeek-V3: the name follows, on its own line.
            Match::Done if self.rules.function_line && self.head_is(b"function") => {
                self.head.clear();
                self.phase = Phase::V3Name;
                ControlFlow::Continue(())
            }
            Match::Done => step_of(self.start_call(cx.offset(*i), cx)),
        }
    }

    /// The id token where the separator was expected; the id follows it
    /// in the name part.
    fn id_token(&mut self, bytes: &[u8], i: &mut usize) -> Step {
        let id = self.rules.id_token.unwrap_or_default().as_bytes();
        match self.literal.feed(id, bytes, i) {
            Match::More => ControlFlow::Break(Outcome::More),
            Match::Mismatch => self.malformed_at_literal("expected [ARGS] after the call's id"),
            Match::Done => {
                self.head.extend_from_slice(id);
                self.phase = Phase::Head;
                ControlFlow::Continue(())
            }
        }
    }

    /// Whitespace (and DeepSeek-V3's fence) before the arguments.
    fn before_args<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        *i += bytes[*i..].iter().take_while(|&&b| is_ws(b)).count();
        match bytes.get(*i) {
            None => return ControlFlow::Break(Outcome::More),
            Some(b'{') => self.phase = Phase::Args,
            Some(b'`') if !self.fenced && self.rules.function_line => {
                self.literal.reset();
                self.token_at = cx.offset(*i);
                self.phase = Phase::FenceOpen;
            }
            Some(_) => {
                let at = cx.offset(*i);
                let f = self.malformed(at, "expected the arguments' JSON object");
                return ControlFlow::Break(f);
            }
        }
        ControlFlow::Continue(())
    }

    /// DeepSeek-V3's fence opener.
    fn fence_open(&mut self, bytes: &[u8], i: &mut usize) -> Step {
        match self.literal.feed(FENCE_OPEN, bytes, i) {
            Match::More => ControlFlow::Break(Outcome::More),
            Match::Mismatch => self.malformed_at_literal("expected the arguments' JSON object"),
            Match::Done => {
                self.fenced = true;
                self.phase = Phase::BeforeArgs;
                ControlFlow::Continue(())
            }
        }
    }

    /// The arguments object, streamed verbatim.
    #[inline]
    fn args<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        let (n, signal) = match self.prescanned.take() {
            Some(scan) => scan,
            None => self.json.advance(&bytes[*i..]),
        };
        if self.rejected.is_none() {
            if let Err(at) = cx.delta(&bytes[*i..*i + n], cx.offset(*i)) {
                self.rejected = Some(invalid_utf8(at));
            }
        }
        *i += n;
        match signal {
            Signal::More => return ControlFlow::Break(Outcome::More),
            // A call that cannot be delivered fails where its arguments
            // end, whatever the chunking.
            Signal::RootEnd if self.rejected.is_some() => {
                let f = self.rejected.take().unwrap_or_else(|| invalid_utf8(0));
                return ControlFlow::Break(Outcome::failed(f));
            }
            Signal::RootEnd if self.rules.ends_with_json => {
                return ControlFlow::Break(Outcome::Complete { give_back: 0 });
            }
            Signal::RootEnd => {
                self.trail = 0;
                self.phase = Phase::CallEnd;
            }
            Signal::Control => {
                self.repair(Repair::Control(bytes[*i]), cx.offset(*i), cx);
                *i += 1;
            }
            Signal::BadEscape => {
                let repair = Repair::of_bad_escape(bytes[*i]);
                self.repair(repair, cx.offset(*i), cx);
                *i += repair.replaced();
            }
            // The scanner signals no member (`quiet_members`).
            Signal::KeyStart
            | Signal::KeyEnd
            | Signal::ValueStart
            | Signal::ValueEnd
            | Signal::TrailingComma => {}
            Signal::Syntax | Signal::TooDeep => {
                let (kind, what) = if signal == Signal::TooDeep {
                    (DiagnosticKind::TooDeep, "JSON nested too deep")
                } else {
                    (DiagnosticKind::MalformedCall, "malformed JSON")
                };
                let at = cx.offset(*i);
                let f = Failure::new(
                    kind,
                    at,
                    format!("{what} in the call's arguments at byte {at}"),
                );
                return ControlFlow::Break(Outcome::failed(self.rejected.take().unwrap_or(f)));
            }
        }
        ControlFlow::Continue(())
    }
}

impl CallAutomaton for TokenCall {
    fn begin(&mut self, marker: usize) {
        self.confirming = self.prompt_opened;
        self.addressed = self.rules.headers && marker == ANALYSIS_TO_MARKER;
        self.sectioned = marker == 0 && !self.rules.ends_with_json;
        self.phase = if self.sectioned && self.rules.calls_inside_sections() {
            Phase::FirstCall
        } else {
            Phase::Head
        };
        self.rejected = None;
        self.next_call();
    }
    /// The arguments are not UTF-8 at stream offset `at`: the call fails
    /// where they end (nothing more of them is sent).
    fn reject_invalid_utf8(&mut self, at: u64) {
        self.rejected.get_or_insert(invalid_utf8(at));
    }
    /// See [`Automaton::steady`](super::Automaton::steady): bytes inside the
    /// arguments that do not end them, or inside a name or a token that
    /// they do not end.
    #[inline(never)]
    fn steady<'c>(
        &mut self,
        bytes: &'c [u8],
        offset: u64,
        started: bool,
        _carried: bool,
    ) -> Steady<'c> {
        if self.rejected.is_some() {
            return Steady::No;
        }
        match self.phase {
            Phase::Args if started => {
                let scan = self.json.advance(bytes);
                if scan.1 == Signal::More {
                    return Steady::Verbatim;
                }
                self.prescanned = Some(scan);
                Steady::No
            }
            Phase::FirstCall | Phase::Next | Phase::CallEnd
                if self.token.continues_without_end(self.expected().0, bytes) =>
            {
                self.token.take(bytes.len());
                self.trail += bytes.len();
                Steady::Quiet
            }
            Phase::Sep
                if self
                    .literal
                    .continues_without_end(self.rules.tokens.sep.as_bytes(), bytes) =>
            {
                self.literal.take(bytes.len());
                Steady::Quiet
            }
            // A header the prompt opened is checked byte by byte until its
            // recipient begins (see `advance`).
            Phase::Head if self.confirming => Steady::No,
            Phase::Head | Phase::V3Name => {
                if self.head.len() + bytes.len() > MAX_HEAD || self.name_end(bytes).is_some() {
                    return Steady::No;
                }
                if self.head.is_empty() {
                    self.head_at = offset;
                }
                self.head.extend_from_slice(bytes);
                Steady::Quiet
            }
            _ => Steady::No,
        }
    }
    fn advance<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let mut i = 0;
        loop {
            let step = match self.phase {
                Phase::FirstCall | Phase::Next | Phase::CallEnd => {
                    self.expect_token(bytes, &mut i, cx)
                }
                Phase::Head | Phase::V3Name => self.name_part(bytes, &mut i, cx),
                Phase::Sep => self.separator(bytes, &mut i, cx),
                Phase::Id => self.id_token(bytes, &mut i),
                Phase::BeforeArgs => self.before_args(bytes, &mut i, cx),
                Phase::FenceOpen => self.fence_open(bytes, &mut i),
                Phase::Args => self.args(bytes, &mut i, cx),
            };
            if let ControlFlow::Break(outcome) = step {
                return (i, outcome);
            }
        }
    }
    fn finish<'c, S: FnMut(crate::Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        if let Some(f) = self.rejected.take() {
            return Outcome::failed(f);
        }
        let at = cx.offset(0);
        if self.confirming {
            let read = self.head.len() + self.literal.matched();
            return Outcome::NotACall { read };
        }
        let give_back = self.trail;
        let unfinished =
            |what: &str| Outcome::failed(Failure::new(DiagnosticKind::UnfinishedCall, at, what));
        match self.phase {
            Phase::CallEnd => {
                self.missing_call_end(at.saturating_sub(self.trail as u64), cx);
                Outcome::Complete { give_back }
            }
            Phase::Next => {
                if self.sectioned {
                    self.missing_section_end(at.saturating_sub(self.trail as u64), cx);
                }
                Outcome::Complete { give_back }
            }
            Phase::Args if self.json.in_string() => {
                unfinished("the stream ended inside a string of the call's arguments")
            }
            Phase::Args => unfinished("the stream ended before the call's arguments were complete"),
            Phase::FirstCall => unfinished("the stream ended before the section's first call"),
            Phase::Head | Phase::Sep | Phase::Id | Phase::V3Name => {
                unfinished("the stream ended inside the call's name")
            }
            Phase::BeforeArgs | Phase::FenceOpen => {
                unfinished("the stream ended before the call's arguments began")
            }
        }
    }
}

fn invalid_utf8(offset: u64) -> Failure {
    Failure::new(
        DiagnosticKind::InvalidUtf8,
        offset,
        "invalid UTF-8 in the call's arguments",
    )
}
