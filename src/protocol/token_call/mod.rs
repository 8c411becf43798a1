//! Calls between vendor special tokens, each named before its JSON
//! arguments: DeepSeek's, Kimi-K2's, Mistral's (v11 on) and gpt-oss's
//! (harmony). Each vendor's format file (`formats/deepseek_v3.rs`,
//! `kimi_k2.rs`, `mistral.rs`, `harmony.rs`) shows its layout and builds
//! its [`Rules`].
//!
//! A section holds any number of calls, each delivered when the next one
//! begins or the section ends. A call's own begin token also opens a block
//! (a model that leaves out the section's tokens, or the call after one that
//! failed). The arguments stream verbatim, as the model writes them.

mod phases;
mod rules;

use rules::*;
pub(crate) use rules::{NameRule, Rules, Tokens};

use crate::protocol::{CallAutomaton, InCall};
use std::borrow::Cow;
use std::ops::ControlFlow;

use super::{Failure, Outcome, Steady};
use crate::cx::{CallCx, Sink};
use crate::event::DiagnosticKind;
use crate::scan::json::{JsonScanner, Repair, Signal};
use crate::scan::partial::{Match, Partial, PartialSet, SetMatch};
use crate::scan::{find_byte, find_byte2, skip_ws};

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

/// What is known of the call being read: a fresh value for each call (see
/// [`TokenCall::next_call`]).
#[derive(Debug, Clone, Default)]
struct Call {
    /// Stream offset of the name part's first byte.
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
    /// What [`steady`](TokenCall::steady) found scanning the start of the
    /// slice that [`advance`](TokenCall::advance) gets next.
    prescanned: Option<(usize, Signal)>,
    /// The kinds of string repair made in this call
    /// ([`Repair::kind_bit`]): each is reported at its first.
    repaired: u8,
}

#[derive(Debug, Clone)]
pub(crate) struct TokenCall {
    /// The vendor's rules, set once.
    rules: &'static Rules,
    /// gpt-oss: the automaton reads the output's start, a header the
    /// prompt's `<|start|>assistant` opened (set once, for the lead).
    prompt_opened: bool,
    /// What is known inside the block being read.
    in_block: InBlock,
    call: Call,
    /// The name part read so far, or DeepSeek-V3's name. (This buffer and
    /// the scanner serve every call.)
    head: Vec<u8>,
    json: JsonScanner,
}

/// What is known inside a block: a fresh value at each block's start.
#[derive(Debug, Clone)]
struct InBlock {
    phase: Phase,
    /// Whether the block began with the section's token.
    sectioned: bool,
    /// Why the call in progress cannot be delivered (its arguments are not
    /// UTF-8): it fails where its arguments end.
    rejected: Option<Failure>,
    /// Until ` to=` is read, a header the prompt opened may still be text.
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
    pub(crate) fn new(rules: &'static Rules, max_depth: usize) -> TokenCall {
        TokenCall {
            rules,
            prompt_opened: false,
            in_block: InBlock {
                phase: Phase::FirstCall,
                sectioned: true,
                rejected: None,
                confirming: false,
                addressed: false,
            },
            call: Call::default(),
            head: Vec::new(),
            json: JsonScanner::new(max_depth).quiet_members(),
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

    /// Readies the per-call state.
    fn next_call(&mut self) {
        self.call = Call::default();
        self.head.clear();
        self.json.reset();
    }

    /// The tokens the phase waits for (one of the expecting phases), and
    /// what each is.
    fn expected(&self) -> (&'static [&'static [u8]], &'static [Token]) {
        let e = &self.rules.expected;
        match self.in_block.phase {
            Phase::CallEnd if self.call.fenced => (&e.in_fence, &IN_FENCE),
            Phase::CallEnd => (&e.after_args, &AFTER_ARGS),
            _ => (&e.between, &BETWEEN),
        }
    }

    /// A token matched; `Some` when it ends the block.
    fn on_token<'c, S: Sink<'c>>(
        &mut self,
        which: Token,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let at = self.call.token_at;
        let one_per_message = self.rules.headers;
        match (self.in_block.phase, which) {
            (_, Token::FenceClose) => {
                self.call.fenced = false;
                self.call.trail = 0;
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
                    give_back: self.call.trail,
                })
            }
            (Phase::CallEnd, Token::CallEnd) => {
                self.call.trail = 0;
                self.in_block.phase = Phase::Next;
                None
            }
            (Phase::FirstCall, Token::CallBegin) => {
                self.next_call();
                self.in_block.phase = Phase::Head;
                None
            }
            (Phase::Next | Phase::CallEnd, Token::CallBegin) => {
                if self.in_block.phase == Phase::CallEnd {
                    self.missing_call_end(at, cx);
                }
                cx.deliver(at);
                self.next_call();
                self.in_block.phase = Phase::Head;
                None
            }
            (Phase::CallEnd, Token::SectionEnd) => {
                self.missing_call_end(at, cx);
                Some(Outcome::Complete { give_back: 0 })
            }
            (Phase::Next, Token::SectionEnd) => Some(Outcome::Complete { give_back: 0 }),
            // A section that holds no call: nothing to deliver.
            _ => Some(Outcome::malformed(
                at,
                "the tool call section holds no call",
            )),
        }
    }

    /// What follows (from stream offset `at`) is not a token this phase
    /// expects.
    fn no_token<'c, S: Sink<'c>>(&mut self, at: u64, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        let give_back = self.call.trail;
        match self.in_block.phase {
            Phase::FirstCall => {
                Outcome::malformed(at, "expected a tool call after the section's begin token")
                    .giving_back(give_back)
            }
            Phase::CallEnd => {
                self.missing_call_end(at.saturating_sub(self.call.trail as u64), cx);
                Outcome::Complete { give_back }
            }
            _ => {
                if self.in_block.sectioned {
                    self.missing_section_end(at.saturating_sub(self.call.trail as u64), cx);
                }
                Outcome::Complete { give_back }
            }
        }
    }

    /// The name is read (ending at stream offset `at`): checks it and
    /// starts the call.
    fn start_call<'c, S: Sink<'c>>(
        &mut self,
        at: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Result<(), Outcome> {
        let head = match crate::scan::utf8::validate(&self.head) {
            Ok(head) => Cow::Borrowed(head),
            Err(()) => String::from_utf8_lossy(&self.head),
        };
        let trimmed = crate::scan::trim(&head);
        let name = match self.in_block.phase {
            Phase::V3Name => trimmed,
            _ if self.in_block.addressed => recipient(trimmed),
            _ => self.rules.name_of(trimmed),
        };
        if self.in_block.confirming {
            let read = self.head.len() + self.rules.tokens.sep.len();
            return Err(Outcome::NotACall { read });
        }
        if self.rules.headers && name.is_empty() {
            return Err(self.header_markup());
        }
        let plausible = !name.is_empty() && plausible_name(name);
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
                Some(self.call.head_at + (name.as_ptr() as usize - h.as_ptr() as usize) as u64)
            }
            Cow::Owned(_) => None,
        };
        // Before the start, so that `tool-input-start` carries it.
        if let Some(id) = self.rules.id_of(trimmed) {
            cx.model_call_id(id);
        }
        cx.start_at(name, origin, at)
            .map_err(|f| Outcome::failed(f.with_name(name)))?;
        self.in_block.phase = Phase::BeforeArgs;
        Ok(())
    }

    /// The byte that ends the name part: the separator's first, or for
    /// DeepSeek-V3's name the line break.
    fn name_stop(&self) -> u8 {
        match self.in_block.phase {
            Phase::V3Name => b'\n',
            _ => self.rules.tokens.sep.as_bytes()[0],
        }
    }

    /// Where the name part ends in `bytes`: at [`name_stop`](Self::name_stop),
    /// or for calls that end with their JSON also at the arguments' `{`.
    fn name_end(&self, bytes: &[u8]) -> Option<usize> {
        match self.in_block.phase {
            Phase::Head if self.rules.ends_with_json => find_byte2(b'[', b'{', bytes),
            _ => find_byte(self.name_stop(), bytes),
        }
    }

    /// A gpt-oss header without a recipient is markup; after `<|start|>`,
    /// only up to its channel, which goes back to be read again (as the
    /// reasoning tag of the analysis channel, or as a header of its own).
    fn header_markup(&self) -> Outcome {
        // `sectioned`: the header began with `<|start|>` (marker 0).
        let channel = (self.in_block.sectioned)
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
        let matched = self.call.literal.matched();
        self.call.literal.reset();
        ControlFlow::Break(Outcome::malformed(self.call.token_at, message).giving_back(matched))
    }

    /// Writes `repair` where the model's bytes were not JSON, and says so
    /// once per call.
    fn repair<'c, S: Sink<'c>>(&mut self, repair: Repair, offset: u64, cx: &mut CallCx<'_, 'c, S>) {
        if self.in_block.rejected.is_some() {
            return;
        }
        crate::protocol::report_repair(&mut self.call.repaired, repair, offset, cx);
        let mut buf = [0; 6];
        let fixed = repair.text(&mut buf);
        let _ = cx.delta_owned(fixed, offset);
    }

    fn missing_call_end<'c, S: Sink<'c>>(&self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
        let token = self.rules.tokens.call_end;
        cx.recovered(
            DiagnosticKind::MissingEndMarker,
            at,
            format!("the call's arguments are complete but its end token {token:?} is missing; call recovered"),
        );
    }

    fn missing_section_end<'c, S: Sink<'c>>(&self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
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
impl CallAutomaton for TokenCall {
    fn begin(&mut self, marker: usize) {
        let sectioned = marker == 0 && !self.rules.ends_with_json;
        self.in_block = InBlock {
            phase: match sectioned && self.rules.calls_inside_sections() {
                true => Phase::FirstCall,
                false => Phase::Head,
            },
            sectioned,
            rejected: None,
            confirming: self.prompt_opened,
            addressed: self.rules.addressed_marker == Some(marker),
        };
        self.next_call();
    }
    /// The arguments are not UTF-8 at stream offset `at`: the call fails
    /// where they end (nothing more of them is sent).
    fn reject_invalid_utf8(&mut self, at: u64) {
        self.in_block.rejected.get_or_insert(invalid_utf8(at));
    }
    /// See [`Automaton::steady`](super::Automaton::steady): bytes inside the
    /// arguments that do not end them, or inside a name or a token that
    /// they do not end.
    #[inline(never)]
    fn steady<'c>(&mut self, bytes: &'c [u8], offset: u64, call: InCall) -> Steady<'c> {
        if self.in_block.rejected.is_some() {
            return Steady::No;
        }
        match self.in_block.phase {
            Phase::Args if call.started => {
                let scan = self.json.advance(bytes);
                if scan.1 == Signal::More {
                    return Steady::Verbatim {
                        in_string: self.json.in_plain_string(),
                    };
                }
                self.call.prescanned = Some(scan);
                Steady::No
            }
            Phase::FirstCall | Phase::Next | Phase::CallEnd => {
                let tokens = self.expected().0;
                if !self.call.token.goes_on_without_end(tokens, bytes) {
                    return Steady::No;
                }
                self.call.trail += bytes.len();
                Steady::Quiet
            }
            Phase::Sep
                if self
                    .call
                    .literal
                    .continues_without_end(self.rules.tokens.sep.as_bytes(), bytes) =>
            {
                self.call.literal.take(bytes.len());
                Steady::Quiet
            }
            // A header the prompt opened is checked byte by byte until its
            // recipient begins (see `advance`).
            Phase::Head if self.in_block.confirming => Steady::No,
            Phase::Head | Phase::V3Name => {
                if self.head.len() + bytes.len() > MAX_HEAD || self.name_end(bytes).is_some() {
                    return Steady::No;
                }
                if self.head.is_empty() {
                    self.call.head_at = offset;
                }
                self.head.extend_from_slice(bytes);
                Steady::Quiet
            }
            _ => Steady::No,
        }
    }
    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let mut i = 0;
        loop {
            let step = match self.in_block.phase {
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
    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        if let Some(f) = self.in_block.rejected.take() {
            return Outcome::failed(f);
        }
        let at = cx.offset(0);
        if self.in_block.confirming {
            let read = self.head.len() + self.call.literal.matched();
            return Outcome::NotACall { read };
        }
        let give_back = self.call.trail;
        let unfinished =
            |what: &str| Outcome::failed(Failure::new(DiagnosticKind::UnfinishedCall, at, what));
        match self.in_block.phase {
            Phase::CallEnd => {
                self.missing_call_end(at.saturating_sub(self.call.trail as u64), cx);
                Outcome::Complete { give_back }
            }
            Phase::Next => {
                if self.in_block.sectioned {
                    self.missing_section_end(at.saturating_sub(self.call.trail as u64), cx);
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

/// Whether `name` holds no whitespace, control character or U+FFFD (where
/// bytes that were not UTF-8 stood): an ASCII name by its bytes.
fn plausible_name(name: &str) -> bool {
    let bad = |c: char| c == char::REPLACEMENT_CHARACTER || c.is_whitespace() || c.is_control();
    match name.is_ascii() {
        // ASCII's whitespace and controls, `char`'s included (U+000B).
        true => !name
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control()),
        false => !name.chars().any(bad),
    }
}

#[cfg(test)]
mod tests {
    use super::plausible_name;

    #[test]
    fn plausible_names_are_those_without_whitespace_controls_or_replacements() {
        let names = [
            "get_weather",
            "a b",
            "a\u{b}b",
            "a\tb",
            "a\u{7f}",
            "a\u{85}",
            "東京",
            "x\u{3000}",
            "a\u{fffd}",
            "functions.f:0",
            "a\u{1c}b",
            "\u{a0}",
        ];
        for name in names {
            let slow = !name.contains(char::REPLACEMENT_CHARACTER)
                && !name.chars().any(|c| c.is_whitespace() || c.is_control());
            assert_eq!(plausible_name(name), slow, "{name:?}");
        }
    }
}
