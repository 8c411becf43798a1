//! Mistral's calls after `[TOOL_CALLS]`, in either of the layouts its
//! tokenizers write: before v11 a JSON array of call objects
//! (`[TOOL_CALLS][{"name": …, "arguments": {…}}]`, read by
//! [`JsonCall`]); from v11 on the call's name, then `[ARGS]` and its
//! arguments, v13 with `[CALL_ID]ID` between (read by [`TokenCall`]).
//! The first byte after the marker and its whitespace says which.

use super::json_call::JsonCall;
use super::token_call::{TokenCall, Vendor};
use super::{CallAutomaton, Failure, Outcome, Steady};
use crate::cx::CallCx;
use crate::event::DiagnosticKind;
use crate::scan::is_ws;

/// Which layout the call in progress has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Not known yet: only whitespace followed the marker.
    Unknown,
    /// A JSON array (or object) of calls.
    Json,
    /// `NAME[ARGS]{…}`.
    Named,
}

#[derive(Debug, Clone)]
pub(crate) struct MistralCall {
    layout: Layout,
    json: JsonCall,
    named: TokenCall,
}

impl MistralCall {
    pub(crate) fn new(max_depth: usize) -> MistralCall {
        MistralCall {
            layout: Layout::Unknown,
            json: JsonCall::new(b"", max_depth),
            named: TokenCall::new(Vendor::Mistral, max_depth),
        }
    }
}

impl CallAutomaton for MistralCall {
    fn begin(&mut self, _marker: usize) {
        self.layout = Layout::Unknown;
    }

    #[inline]
    fn steady<'c>(
        &mut self,
        bytes: &'c [u8],
        offset: u64,
        started: bool,
        carried: bool,
    ) -> Steady<'c> {
        match self.layout {
            Layout::Unknown => Steady::No,
            Layout::Json => self.json.steady(bytes, offset, started, carried),
            Layout::Named => self.named.steady(bytes, offset, started, carried),
        }
    }

    fn reject_invalid_utf8(&mut self, at: u64) {
        match self.layout {
            Layout::Unknown => {}
            Layout::Json => self.json.reject_invalid_utf8(at),
            Layout::Named => self.named.reject_invalid_utf8(at),
        }
    }

    fn advance<'c, S: FnMut(crate::Event<'c>)>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let mut from = 0;
        if self.layout == Layout::Unknown {
            from = bytes.iter().take_while(|&&b| is_ws(b)).count();
            let Some(&first) = bytes.get(from) else {
                return (from, Outcome::More);
            };
            self.layout = if matches!(first, b'[' | b'{') {
                self.json.begin(0);
                Layout::Json
            } else {
                self.named.begin(0);
                Layout::Named
            };
        }
        let rest = &bytes[from..];
        let (used, outcome) = match self.layout {
            Layout::Json => cx.with_rest_from(from, |cx| self.json.advance(rest, cx)),
            _ => cx.with_rest_from(from, |cx| self.named.advance(rest, cx)),
        };
        (from + used, outcome)
    }

    fn finish<'c, S: FnMut(crate::Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        match self.layout {
            Layout::Unknown => Outcome::failed(Failure::new(
                DiagnosticKind::UnfinishedCall,
                cx.offset(0),
                "the stream ended after [TOOL_CALLS]",
            )),
            Layout::Json => self.json.finish(cx),
            Layout::Named => self.named.finish(cx),
        }
    }
}
