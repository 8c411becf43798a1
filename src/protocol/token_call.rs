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

use super::{Failure, Outcome, Steady};
use crate::cx::CallCx;
use crate::event::DiagnosticKind;
use crate::scan::is_ws;
use crate::scan::json::{JsonScanner, Repair, Signal};

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
struct Expected {
    /// After the arguments.
    after_args: [(&'static [u8], Token); 3],
    /// After the arguments, in a fence.
    in_fence: [(&'static [u8], Token); 2],
    /// After the section's begin token or a call's end token.
    between: [(&'static [u8], Token); 2],
}

const fn expected(t: &Tokens) -> Expected {
    Expected {
        after_args: [
            (t.call_end.as_bytes(), Token::CallEnd),
            (t.section_end.as_bytes(), Token::SectionEnd),
            (t.call_begin.as_bytes(), Token::CallBegin),
        ],
        in_fence: [
            (FENCE_CLOSE, Token::FenceClose),
            (t.call_end.as_bytes(), Token::CallEnd),
        ],
        between: [
            (t.call_begin.as_bytes(), Token::CallBegin),
            (t.section_end.as_bytes(), Token::SectionEnd),
        ],
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

/// Mistral v13: the call's id, between its name and `[ARGS]`.
const CALL_ID: &[u8] = b"[CALL_ID]";

const DEEPSEEK_EXPECTED: Expected = expected(&DEEPSEEK);
const MISTRAL_EXPECTED: Expected = expected(&MISTRAL);
const HARMONY_EXPECTED: Expected = expected(&HARMONY);
const KIMI_K2_EXPECTED: Expected = expected(&KIMI_K2);

/// DeepSeek-V3's fence around the arguments.
const FENCE_OPEN: &[u8] = b"```json";
const FENCE_CLOSE: &[u8] = b"```";

/// The most bytes a call's name part may take (`functions.NAME:0`).
const MAX_HEAD: usize = 256;

impl Vendor {
    pub(crate) const fn tokens(self) -> &'static Tokens {
        match self {
            Vendor::DeepSeek => &DEEPSEEK,
            Vendor::KimiK2 => &KIMI_K2,
            Vendor::Mistral => &MISTRAL,
            Vendor::Harmony => &HARMONY,
        }
    }

    fn expected(self) -> &'static Expected {
        match self {
            Vendor::DeepSeek => &DEEPSEEK_EXPECTED,
            Vendor::KimiK2 => &KIMI_K2_EXPECTED,
            Vendor::Mistral => &MISTRAL_EXPECTED,
            Vendor::Harmony => &HARMONY_EXPECTED,
        }
    }

    /// The call's name in the (trimmed) bytes between its begin token and
    /// the separator.
    fn name_of(self, head: &str) -> &str {
        match self {
            Vendor::DeepSeek => head,
            // The header's recipient, `to=functions.NAME` (none: no call).
            Vendor::Harmony => match head.find("to=") {
                Some(at) => recipient(&head[at + 3..]),
                None => "",
            },
            // `NAME[CALL_ID]ID`: the id is read apart.
            Vendor::Mistral => match head.split_once("[CALL_ID]") {
                Some((name, _)) => name.trim_end(),
                None => head,
            },
            // `functions.NAME:0`: the namespace and the call's index go.
            Vendor::KimiK2 => {
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
    vendor: Vendor,
    phase: Phase,
    /// Whether the block began with the section's token.
    sectioned: bool,
    /// The name part read so far, or DeepSeek-V3's name.
    head: Vec<u8>,
    /// Stream offset of `head[0]`.
    head_at: u64,
    /// Bytes of a token being matched (`<` and what follows).
    pending: Vec<u8>,
    /// Stream offset of `pending[0]`.
    pending_at: u64,
    /// The index, among the tokens the phase expects, of one that `pending`
    /// begins.
    matching: usize,
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

impl TokenCall {
    pub(crate) fn new(vendor: Vendor, max_depth: usize) -> TokenCall {
        TokenCall {
            vendor,
            phase: Phase::FirstCall,
            sectioned: true,
            head: Vec::new(),
            head_at: 0,
            pending: Vec::new(),
            pending_at: 0,
            matching: 0,
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
    /// Other vendors have no such calls.
    pub(crate) fn bare_lead(&self) -> Option<TokenCall> {
        let mut lead = self.clone();
        lead.prompt_opened = true;
        (self.vendor == Vendor::Harmony).then_some(lead)
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
        self.pending.clear();
        self.trail = 0;
        self.fenced = false;
        self.json.reset();
        self.prescanned = None;
        self.repaired = 0;
    }

    /// The tokens the phase waits for (one of the `Expect` phases).
    fn expected(&self) -> &'static [(&'static [u8], Token)] {
        let e = self.vendor.expected();
        match self.phase {
            Phase::CallEnd if self.fenced => &e.in_fence,
            Phase::CallEnd => &e.after_args,
            _ => &e.between,
        }
    }

    /// A token matched; `Some` when it ends the block.
    fn on_token<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        which: Token,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let at = self.pending_at;
        self.pending.clear();
        match (self.phase, which) {
            (_, Token::FenceClose) => {
                self.fenced = false;
                self.trail = 0;
                None
            }
            // A gpt-oss message ends with its call's token (or `<|end|>`);
            // the next one (`<|start|>`) is read as a message of its own.
            (Phase::CallEnd, Token::CallEnd | Token::SectionEnd)
                if self.vendor == Vendor::Harmony =>
            {
                Some(Outcome::Complete { give_back: 0 })
            }
            (Phase::CallEnd, Token::CallBegin) if self.vendor == Vendor::Harmony => {
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
    ) -> Result<(), Failure> {
        let head = String::from_utf8_lossy(&self.head);
        let name = match self.phase {
            Phase::V3Name => head.trim(),
            _ if self.addressed => recipient(head.trim()),
            _ => self.vendor.name_of(head.trim()),
        };
        if self.confirming {
            let read = self.head.len() + self.vendor.tokens().sep.len();
            return Err(Failure::no_call(at, read));
        }
        if self.vendor == Vendor::Harmony && name.is_empty() {
            return Err(self.harmony_markup(at));
        }
        let plausible = !name.is_empty()
            && !name.contains(char::REPLACEMENT_CHARACTER)
            && !name.chars().any(|c| c.is_whitespace() || c.is_control());
        if !plausible {
            return Err(Failure::new(
                DiagnosticKind::MissingName,
                at,
                format!("{name:?} is not a tool name"),
            ));
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
        if self.vendor == Vendor::Mistral {
            if let Some((_, id)) = head.split_once("[CALL_ID]") {
                cx.model_call_id(id);
            }
        }
        cx.start_at(name, origin, at)
            .map_err(|f| f.with_name(name))?;
        self.phase = Phase::BeforeArgs;
        Ok(())
    }

    /// The byte that ends the name part: the separator's first, or for
    /// DeepSeek-V3's name the line break.
    fn name_stop(&self) -> u8 {
        match self.phase {
            Phase::V3Name => b'\n',
            _ => self.vendor.tokens().sep.as_bytes()[0],
        }
    }

    /// Where the name part ends in `bytes`: at [`name_stop`](Self::name_stop),
    /// or for Mistral also at the arguments' `{` (text decoded without its
    /// control tokens reads `[TOOL_CALLS]NAME{…}`).
    fn name_end(&self, bytes: &[u8]) -> Option<usize> {
        match self.vendor {
            Vendor::Mistral if self.phase == Phase::Head => memchr::memchr2(b'[', b'{', bytes),
            _ => memchr::memchr(self.name_stop(), bytes),
        }
    }

    /// A gpt-oss header without a recipient (ending at stream offset `at`)
    /// is markup; after `<|start|>`, only up to its channel, which goes
    /// back to be read again (as the reasoning tag of the analysis
    /// channel, or as a header of its own).
    fn harmony_markup(&self, at: u64) -> Failure {
        // `sectioned`: the header began with `<|start|>` (marker 0).
        let channel = self
            .sectioned
            .then(|| memchr::memmem::find(&self.head, CHANNEL.as_bytes()))
            .flatten();
        let give_back = channel.map_or(0, |c| self.head.len() - c + HARMONY.sep.len());
        Failure::markup(at, give_back)
    }

    /// Whether the name part holds a Mistral call id already.
    fn head_has_id(&self) -> bool {
        memchr::memmem::find(&self.head, CALL_ID).is_some()
    }

    /// Whether the name part, trimmed, is `word`.
    fn head_is(&self, word: &[u8]) -> bool {
        std::str::from_utf8(&self.head).is_ok_and(|h| h.trim().as_bytes() == word)
    }

    /// Matches `bytes` from `*i` on against the rest of `literal` after the
    /// `pending` bytes of it already read: `Some(true)` once all of it is
    /// read (`pending` is then cleared), `Some(false)` at the first byte
    /// that differs (not consumed), `None` when the slice ends first.
    fn continue_literal(&mut self, literal: &[u8], bytes: &[u8], i: &mut usize) -> Option<bool> {
        let want = literal.get(self.pending.len()..).unwrap_or_default();
        let rest = &bytes[*i..];
        let common = want.iter().zip(rest).take_while(|(a, b)| a == b).count();
        self.pending.extend_from_slice(&rest[..common]);
        *i += common;
        if common == want.len() {
            self.pending.clear();
            Some(true)
        } else if common == rest.len() {
            None
        } else {
            Some(false)
        }
    }

    /// `failed` with the bytes that matched a token only in part given
    /// back: they may begin a marker (a section's begin token after a
    /// call-begin token written in prose).
    fn giving_back_pending(&mut self, failed: Outcome) -> Outcome {
        let matched = self.pending.len();
        self.pending.clear();
        failed.giving_back(matched)
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
        let token = self.vendor.tokens().call_end;
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
        let token = self.vendor.tokens().section_end;
        cx.recovered(
            DiagnosticKind::MissingEndMarker,
            at,
            format!("the section's end token {token:?} is missing; calls recovered"),
        );
    }
}

impl CallAutomaton for TokenCall {
    fn begin(&mut self, marker: usize) {
        self.confirming = self.prompt_opened;
        self.addressed = self.vendor == Vendor::Harmony && marker == ANALYSIS_TO_MARKER;
        self.sectioned = marker == 0 && self.vendor != Vendor::Mistral;
        self.phase = if self.sectioned && self.vendor != Vendor::Harmony {
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
        // The rest of a token begun in an earlier chunk, not all of it.
        let continues = |pending: &[u8], token: &[u8]| {
            let k = pending.len();
            k + bytes.len() < token.len() && token[k..k + bytes.len()] == *bytes
        };
        match self.phase {
            Phase::Args if started => {
                let scan = self.json.advance(bytes);
                if scan.1 == Signal::More {
                    return Steady::Verbatim;
                }
                self.prescanned = Some(scan);
                Steady::No
            }
            Phase::FirstCall | Phase::Next | Phase::CallEnd if !self.pending.is_empty() => {
                match self.expected().get(self.matching) {
                    Some((token, _)) if continues(&self.pending, token) => {
                        self.pending.extend_from_slice(bytes);
                        self.trail += bytes.len();
                        Steady::Quiet
                    }
                    _ => Steady::No,
                }
            }
            Phase::Sep
                if self.matching == 0
                    && continues(&self.pending, self.vendor.tokens().sep.as_bytes()) =>
            {
                self.pending.extend_from_slice(bytes);
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
        let t = self.vendor.tokens();
        let mut i = 0;
        loop {
            match self.phase {
                Phase::FirstCall | Phase::Next | Phase::CallEnd => {
                    if self.pending.is_empty() {
                        let ws = bytes[i..].iter().take_while(|&&b| is_ws(b)).count();
                        i += ws;
                        self.trail += ws;
                    }
                    let Some(&b) = bytes.get(i) else {
                        return (i, Outcome::More);
                    };
                    let candidates = self.expected();
                    if self.pending.is_empty() {
                        self.pending_at = cx.offset(i);
                        // The usual case, a whole token in the slice: one
                        // comparison (no candidate is a prefix of another).
                        let whole = candidates.iter().find(|(c, _)| bytes[i..].starts_with(c));
                        if let Some(&(token, which)) = whole {
                            i += token.len();
                            self.trail += token.len();
                            if let Some(done) = self.on_token(which, cx) {
                                return (i, done);
                            }
                            continue;
                        }
                    }
                    // `pending` is a prefix of candidate `matching`: most
                    // bytes only need comparing with its next one.
                    let k = self.pending.len();
                    let next_of = |c: &[u8]| c.get(k) == Some(&b);
                    self.pending.push(b);
                    let found = match candidates.get(self.matching) {
                        Some(&(c, which)) if k > 0 && next_of(c) => Some((c, which)),
                        _ => candidates
                            .iter()
                            .position(|(c, _)| c.starts_with(&self.pending))
                            .map(|index| {
                                self.matching = index;
                                candidates[index]
                            }),
                    };
                    match found {
                        Some((token, which)) => {
                            i += 1;
                            self.trail += 1;
                            if token.len() == self.pending.len() {
                                if let Some(done) = self.on_token(which, cx) {
                                    return (i, done);
                                }
                            }
                        }
                        None => {
                            // The byte is not consumed: it begins what follows.
                            self.pending.pop();
                            return (i, self.no_token(cx.offset(i), cx));
                        }
                    }
                }
                Phase::Head | Phase::V3Name => {
                    let rest = &bytes[i..];
                    let n = self.name_end(rest).unwrap_or(rest.len());
                    // Up to the limit, then the failure: at the same byte
                    // however the name was cut into chunks.
                    let room = MAX_HEAD.saturating_sub(self.head.len());
                    if self.head.is_empty() {
                        self.head_at = cx.offset(i);
                    }
                    self.head.extend_from_slice(&rest[..n.min(room)]);
                    i += n.min(room);
                    if self.confirming {
                        match opens_recipient(&self.head) {
                            Some(true) => self.confirming = false,
                            Some(false) => {
                                let read = self.head.len();
                                return (i, Outcome::failed(Failure::no_call(cx.offset(i), read)));
                            }
                            None => {}
                        }
                    }
                    if n > room {
                        return (
                            i,
                            self.malformed(cx.offset(i), "the call's name is too long"),
                        );
                    }
                    if i == bytes.len() {
                        return (i, Outcome::More);
                    }
                    if bytes[i] == b'{' && self.vendor == Vendor::Mistral {
                        if let Err(f) = self.start_call(cx.offset(i), cx) {
                            return (i, Outcome::failed(f));
                        }
                    } else if self.phase == Phase::Head {
                        self.pending.clear();
                        self.pending_at = cx.offset(i);
                        self.matching = 0;
                        self.phase = Phase::Sep;
                    } else {
                        i += 1;
                        if let Err(f) = self.start_call(cx.offset(i), cx) {
                            return (i, Outcome::failed(f));
                        }
                    }
                }
                Phase::Sep if self.matching == 1 => {
                    match self.continue_literal(CALL_ID, bytes, &mut i) {
                        None => return (i, Outcome::More),
                        Some(false) => {
                            let at = self.pending_at;
                            let f = self.malformed(at, "expected [ARGS] after the call's id");
                            return (i, self.giving_back_pending(f));
                        }
                        Some(true) => {
                            self.head.extend_from_slice(CALL_ID);
                            self.phase = Phase::Head;
                        }
                    }
                }
                Phase::Sep => match self.continue_literal(t.sep.as_bytes(), bytes, &mut i) {
                    None => return (i, Outcome::More),
                    // gpt-oss: other tokens of the header (`<|channel|>`,
                    // `<|constrain|>`) belong to it.
                    Some(false) if self.vendor == Vendor::Harmony => {
                        self.head.append(&mut self.pending);
                        self.phase = Phase::Head;
                    }
                    // Mistral v13: `[CALL_ID]` comes first.
                    Some(false)
                        if self.vendor == Vendor::Mistral
                            && !self.head_has_id()
                            && CALL_ID.starts_with(&self.pending)
                            && CALL_ID.get(self.pending.len()) == bytes.get(i) =>
                    {
                        self.matching = 1;
                    }
                    Some(false) => {
                        let at = self.pending_at;
                        let f = self.malformed(at, "expected the separator after the call's name");
                        return (i, self.giving_back_pending(f));
                    }
                    // DeepSeek-V3: the name follows, on its own line.
                    Some(true) if self.vendor == Vendor::DeepSeek && self.head_is(b"function") => {
                        self.head.clear();
                        self.phase = Phase::V3Name;
                    }
                    Some(true) => {
                        if let Err(f) = self.start_call(cx.offset(i), cx) {
                            return (i, Outcome::failed(f));
                        }
                    }
                },
                Phase::BeforeArgs => {
                    let ws = bytes[i..].iter().take_while(|&&b| is_ws(b)).count();
                    i += ws;
                    match bytes.get(i) {
                        None => return (i, Outcome::More),
                        Some(b'{') => self.phase = Phase::Args,
                        Some(b'`') if !self.fenced && self.vendor == Vendor::DeepSeek => {
                            self.pending.clear();
                            self.pending_at = cx.offset(i);
                            self.phase = Phase::FenceOpen;
                        }
                        Some(_) => {
                            return (
                                i,
                                self.malformed(cx.offset(i), "expected the arguments' JSON object"),
                            )
                        }
                    }
                }
                Phase::FenceOpen => match self.continue_literal(FENCE_OPEN, bytes, &mut i) {
                    None => return (i, Outcome::More),
                    Some(false) => {
                        let at = self.pending_at;
                        let f = self.malformed(at, "expected the arguments' JSON object");
                        return (i, self.giving_back_pending(f));
                    }
                    Some(true) => {
                        self.fenced = true;
                        self.phase = Phase::BeforeArgs;
                    }
                },
                Phase::Args => {
                    let (n, signal) = match self.prescanned.take() {
                        Some(scan) => scan,
                        None => self.json.advance(&bytes[i..]),
                    };
                    if self.rejected.is_none() {
                        if let Err(at) = cx.delta(&bytes[i..i + n], cx.offset(i)) {
                            self.rejected = Some(invalid_utf8(at));
                        }
                    }
                    i += n;
                    match signal {
                        Signal::More => return (i, Outcome::More),
                        // A call that cannot be delivered fails where its
                        // arguments end, whatever the chunking.
                        Signal::RootEnd if self.rejected.is_some() => {
                            let f = self.rejected.take().unwrap_or_else(|| invalid_utf8(0));
                            return (i, Outcome::failed(f));
                        }
                        // Nothing but its JSON ends a Mistral call.
                        Signal::RootEnd if self.vendor == Vendor::Mistral => {
                            return (i, Outcome::Complete { give_back: 0 });
                        }
                        Signal::RootEnd => {
                            self.trail = 0;
                            self.phase = Phase::CallEnd;
                        }
                        Signal::Control => {
                            self.repair(Repair::Control(bytes[i]), cx.offset(i), cx);
                            i += 1;
                        }
                        Signal::BadEscape => {
                            let repair = Repair::of_bad_escape(bytes[i]);
                            self.repair(repair, cx.offset(i), cx);
                            i += repair.replaced();
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
                            let at = cx.offset(i);
                            let f = Failure::new(
                                kind,
                                at,
                                format!("{what} in the call's arguments at byte {at}"),
                            );
                            return (i, Outcome::failed(self.rejected.take().unwrap_or(f)));
                        }
                    }
                }
            }
        }
    }
    fn finish<'c, S: FnMut(crate::Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        if let Some(f) = self.rejected.take() {
            return Outcome::failed(f);
        }
        if self.confirming {
            let read = self.head.len() + self.pending.len();
            return Outcome::failed(Failure::no_call(cx.offset(0), read));
        }
        let give_back = self.trail;
        match self.phase {
            Phase::CallEnd => {
                self.missing_call_end(cx.offset(0).saturating_sub(self.trail as u64), cx);
                Outcome::Complete { give_back }
            }
            Phase::Next => {
                if self.sectioned {
                    self.missing_section_end(cx.offset(0).saturating_sub(self.trail as u64), cx);
                }
                Outcome::Complete { give_back }
            }
            Phase::Args => {
                let what = if self.json.in_string() {
                    "the stream ended inside a string of the call's arguments"
                } else {
                    "the stream ended before the call's arguments were complete"
                };
                Outcome::failed(Failure::new(
                    DiagnosticKind::UnfinishedCall,
                    cx.offset(0),
                    what,
                ))
            }
            Phase::FirstCall => Outcome::failed(Failure::new(
                DiagnosticKind::UnfinishedCall,
                cx.offset(0),
                "the stream ended before the section's first call",
            )),
            Phase::Head | Phase::Sep | Phase::V3Name => Outcome::failed(Failure::new(
                DiagnosticKind::UnfinishedCall,
                cx.offset(0),
                "the stream ended inside the call's name",
            )),
            Phase::BeforeArgs | Phase::FenceOpen => Outcome::failed(Failure::new(
                DiagnosticKind::UnfinishedCall,
                cx.offset(0),
                "the stream ended before the call's arguments began",
            )),
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
