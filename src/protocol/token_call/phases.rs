//! One method per phase of [`TokenCall::advance`]: each reads from
//! `bytes[*i..]` and goes on with the next phase or returns the outcome.

use super::*;
use crate::cx::Sink;

impl TokenCall {
    /// Whitespace, then one of the tokens the phase expects.
    pub(super) fn expect_token<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        if !self.call.token.is_started() {
            let ws = skip_ws(&bytes[*i..]);
            *i += ws;
            self.call.trail += ws;
            if *i == bytes.len() {
                return ControlFlow::Break(Outcome::More);
            }
            self.call.token_at = cx.offset(*i);
        }
        let (tokens, kinds) = self.expected();
        let from = *i;
        let found = self.call.token.feed(tokens, bytes, i);
        self.call.trail += *i - from;
        match found {
            SetMatch::More => ControlFlow::Break(Outcome::More),
            SetMatch::Done(index) => match self.on_token(kinds[index], cx) {
                Some(done) => ControlFlow::Break(done),
                None => ControlFlow::Continue(()),
            },
            SetMatch::Mismatch => {
                // The byte is not consumed: it begins what follows.
                self.call.token.reset();
                ControlFlow::Break(self.no_token(cx.offset(*i), cx))
            }
        }
    }

    /// The name part (or DeepSeek-V3's name line), up to what ends it.
    pub(super) fn name_part<'c, S: Sink<'c>>(
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
            self.call.head_at = cx.offset(*i);
        }
        self.head.extend_from_slice(&rest[..n.min(room)]);
        *i += n.min(room);
        if self.in_block.confirming {
            match opens_recipient(&self.head) {
                Some(true) => self.in_block.confirming = false,
                Some(false) => {
                    let read = self.head.len();
                    return ControlFlow::Break(Outcome::NotACall { read });
                }
                None => {}
            }
        }
        if n > room {
            let at = cx.offset(*i);
            return ControlFlow::Break(Outcome::malformed(at, "the call's name is too long"));
        }
        if *i == bytes.len() {
            return ControlFlow::Break(Outcome::More);
        }
        if bytes[*i] == b'{' && self.rules.ends_with_json {
            return step_of(self.start_call(cx.offset(*i), cx));
        }
        if self.in_block.phase == Phase::V3Name {
            *i += 1;
            return step_of(self.start_call(cx.offset(*i), cx));
        }
        self.call.literal.reset();
        self.call.token_at = cx.offset(*i);
        self.in_block.phase = Phase::Sep;
        ControlFlow::Continue(())
    }

    /// The separator between the name part and the arguments.
    pub(super) fn separator<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        let sep = self.rules.tokens.sep.as_bytes();
        match self.call.literal.feed(sep, bytes, i) {
            Match::More => ControlFlow::Break(Outcome::More),
            Match::Mismatch => {
                let read = &sep[..self.call.literal.matched()];
                if self.rules.headers {
                    // gpt-oss: a message's start or end (`<|start|>`,
                    // `<|end|>`, `<|return|>`) ends the header, which was
                    // no call; the token is read again. (One the prompt
                    // opened is confirmed or given back as text first.)
                    let boundary = matches!(bytes.get(*i), Some(b's' | b'e' | b'r'));
                    if read == b"<|" && boundary && !self.in_block.confirming {
                        return self
                            .malformed_at_literal("a message began or ended inside the header");
                    }
                    // Other tokens of the header (`<|channel|>`,
                    // `<|constrain|>`) belong to it.
                    self.head.extend_from_slice(read);
                    self.call.literal.reset();
                    self.in_block.phase = Phase::Head;
                    return ControlFlow::Continue(());
                }
                // Mistral v13: `[CALL_ID]` comes first.
                let id = self.rules.id_token.map(str::as_bytes);
                let begins_id = id
                    .is_some_and(|id| id.starts_with(read) && id.get(read.len()) == bytes.get(*i));
                if begins_id && !self.head_has_id() {
                    // What matched of the separator matched the id token.
                    self.in_block.phase = Phase::Id;
                    return ControlFlow::Continue(());
                }
                self.malformed_at_literal("expected the separator after the call's name")
            }
            // DeepSeek-V3: the name follows, on its own line.
            Match::Done if self.rules.function_line && self.head_is(b"function") => {
                self.head.clear();
                self.in_block.phase = Phase::V3Name;
                ControlFlow::Continue(())
            }
            Match::Done => step_of(self.start_call(cx.offset(*i), cx)),
        }
    }

    /// The id token where the separator was expected; the id follows it
    /// in the name part.
    pub(super) fn id_token(&mut self, bytes: &[u8], i: &mut usize) -> Step {
        let id = self.rules.id_token.unwrap_or_default().as_bytes();
        match self.call.literal.feed(id, bytes, i) {
            Match::More => ControlFlow::Break(Outcome::More),
            Match::Mismatch => self.malformed_at_literal("expected [ARGS] after the call's id"),
            Match::Done => {
                self.head.extend_from_slice(id);
                self.in_block.phase = Phase::Head;
                ControlFlow::Continue(())
            }
        }
    }

    /// Whitespace (and DeepSeek-V3's fence) before the arguments.
    pub(super) fn before_args<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        *i += skip_ws(&bytes[*i..]);
        match bytes.get(*i) {
            None => return ControlFlow::Break(Outcome::More),
            Some(b'{') => self.in_block.phase = Phase::Args,
            Some(b'`') if !self.call.fenced && self.rules.function_line => {
                self.call.literal.reset();
                self.call.token_at = cx.offset(*i);
                self.in_block.phase = Phase::FenceOpen;
            }
            Some(_) => {
                let at = cx.offset(*i);
                let f = Outcome::malformed(at, "expected the arguments' JSON object");
                return ControlFlow::Break(f);
            }
        }
        ControlFlow::Continue(())
    }

    /// DeepSeek-V3's fence opener.
    pub(super) fn fence_open(&mut self, bytes: &[u8], i: &mut usize) -> Step {
        match self.call.literal.feed(FENCE_OPEN, bytes, i) {
            Match::More => ControlFlow::Break(Outcome::More),
            Match::Mismatch => self.malformed_at_literal("expected the arguments' JSON object"),
            Match::Done => {
                self.call.fenced = true;
                self.in_block.phase = Phase::BeforeArgs;
                ControlFlow::Continue(())
            }
        }
    }

    /// The arguments object, streamed verbatim.
    #[inline]
    pub(super) fn args<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        i: &mut usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Step {
        let (n, signal) = match self.call.prescanned.take() {
            Some(scan) => scan,
            None => self.json.advance(&bytes[*i..]),
        };
        if self.in_block.rejected.is_none() {
            if let Err(at) = cx.delta(&bytes[*i..*i + n], cx.offset(*i)) {
                self.in_block.rejected = Some(invalid_utf8(at));
            }
        }
        *i += n;
        match signal {
            Signal::More => return ControlFlow::Break(Outcome::More),
            // A call that cannot be delivered fails where its arguments
            // end, whatever the chunking.
            Signal::RootEnd if self.in_block.rejected.is_some() => {
                let f = self
                    .in_block
                    .rejected
                    .take()
                    .unwrap_or_else(|| invalid_utf8(0));
                return ControlFlow::Break(Outcome::failed(f));
            }
            Signal::RootEnd if self.rules.ends_with_json => {
                return ControlFlow::Break(Outcome::Complete { give_back: 0 });
            }
            Signal::RootEnd => {
                self.call.trail = 0;
                self.in_block.phase = Phase::CallEnd;
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
                return ControlFlow::Break(Outcome::failed(
                    self.in_block.rejected.take().unwrap_or(f),
                ));
            }
        }
        ControlFlow::Continue(())
    }
}
