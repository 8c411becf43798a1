//! A call object that is not JSON, read on to the end marker and tried as
//! relaxed JSON (Python dicts, trailing commas, unquoted keys).

use super::members::{arguments_text, CallMembers};
use super::*;
use crate::cx::Sink;

/// A call object that turned out not to be JSON, kept whole up to the end
/// marker: models write Python dicts (`{'name': 'f', 'arguments': {'x':
/// True}}`), trailing commas and unquoted keys. If it reads as relaxed JSON
/// (and the arguments that already streamed begin its rewrite), the call is
/// delivered with its arguments as JSON; if not, it fails as it would have
/// at once, and what was read after the failure goes back to be read as
/// text.
#[derive(Debug, Clone)]
pub(super) struct RelaxedBody {
    /// The object's bytes, from its `{`.
    pub(super) bytes: Vec<u8>,
    /// Why it is not JSON (the offset is where it stopped being JSON).
    pub(super) failure: Failure,
    /// How far `bytes` were searched for the end marker…
    pub(super) searched: usize,
    /// …and the string open there (its quote), if any, and whether a
    /// backslash came last in it.
    pub(super) quote: Option<u8>,
    pub(super) escaped: bool,
}

impl RelaxedBody {
    pub(super) fn new(bytes: Vec<u8>, failure: Failure) -> RelaxedBody {
        RelaxedBody {
            bytes,
            failure,
            searched: 0,
            quote: None,
            escaped: false,
        }
    }

    /// Where `end` first stands outside a string (single- or double-quoted)
    /// in the bytes so far, searching on from where the last search
    /// stopped: one pass over the body, and the same answer however it
    /// arrived. A partial `end` at the very end is searched again next time.
    /// An `end` that begins the next call's start marker does not close
    /// the body, which ends before it without its end marker (see
    /// [`Phase::Reopen`]; `at_eof`, the bytes are all there is):
    /// `(where, closes)`.
    pub(super) fn find_end(
        &mut self,
        end: &[u8],
        reopen: &Reopen,
        at_eof: bool,
    ) -> Option<(usize, bool)> {
        let mut i = self.searched;
        while let Some(&b) = self.bytes.get(i) {
            match self.quote {
                Some(_) if self.escaped => self.escaped = false,
                Some(_) if b == b'\\' => self.escaped = true,
                Some(q) if b == q => self.quote = None,
                Some(_) => {}
                None if b == b'"' || b == b'\'' => self.quote = Some(b),
                None if b == end[0] => {
                    let rest = &self.bytes[i..];
                    if rest.starts_with(end) {
                        match reopen.follows(&mut Reopening::default(), &rest[end.len()..], at_eof)
                        {
                            Some(reopens) => {
                                self.searched = i;
                                return Some((i, !reopens));
                            }
                            // Too few bytes after it yet to tell.
                            None => break,
                        }
                    } else if end.starts_with(rest) {
                        break;
                    }
                }
                None => {}
            }
            i += 1;
        }
        self.searched = i;
        None
    }
}

impl JsonCall {
    /// The relaxed call object ended at stream offset `end_at` (past its end
    /// marker, or the end of the stream when `missing_end`): delivered if it
    /// reads as relaxed JSON, failed as it first failed if not.
    pub(super) fn relaxed_end<'c, S: Sink<'c>>(
        &mut self,
        end_at: u64,
        missing_end: bool,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Outcome {
        cx.read_ahead_to(end_at);
        let Some(relaxed) = self.object.relaxed.as_ref() else {
            return self.relaxed_failed(end_at);
        };
        let max_depth = cx.limits().max_depth;
        let text = std::str::from_utf8(&relaxed.bytes).ok();
        let read_as_is = text.and_then(|text| relaxed_call(text, max_depth, false));
        // Models now and then stop before the object's last closing
        // brackets: before an end marker (not at the end of the stream,
        // which may have cut the call short), they are added.
        let closed = read_as_is.is_none() && !missing_end;
        let Some((name, args, read)) = read_as_is.or_else(|| {
            text.filter(|_| closed)
                .and_then(|text| relaxed_call(text, max_depth, true))
        }) else {
            return self.relaxed_failed(end_at);
        };
        let at = relaxed.failure.offset;
        // Something else follows the object before the end marker (or the
        // end of the stream): the call ends with its object, as a JSON one
        // does, and what follows is read again as text.
        let object_end = self.object.object_at + read as u64;
        let after = relaxed.bytes[read..].to_vec();
        let give_back = self.after_relaxed(&after, object_end, end_at, missing_end);
        let missing_end = missing_end || give_back > 0;
        // Arguments that streamed before the body stopped being JSON must
        // be where the rewritten arguments begin.
        let streamed = cx.input_text();
        let Some(rest) = args.strip_prefix(streamed.as_ref()) else {
            return self.relaxed_failed(end_at);
        };
        let rest = rest.to_owned();
        match cx.started_name() {
            Some(started) if started != name => return self.relaxed_failed(end_at),
            Some(_) => {}
            // A tool refused here fails the whole call, as it would in JSON.
            None => {
                if let Err(f) = cx.start_at(&name, None, at) {
                    self.object.relaxed = None;
                    return Outcome::failed(f.with_name(&name));
                }
            }
        }
        self.object.relaxed = None;
        let what = if closed {
            "the call's body ended before its closing brackets: closed (and read as JSON if relaxed)"
        } else {
            "the call's body is relaxed JSON (single quotes, Python literals, trailing commas or unquoted keys); read as JSON"
        };
        cx.recovered(DiagnosticKind::RepairedJson, at, what.into());
        self.report_fence(cx);
        if missing_end {
            self.missing_end_marker("body", object_end, cx);
        }
        self.report_extra_closer(cx);
        let _ = cx.delta_owned(rest.as_bytes(), end_at);
        self.object.seen_args = true;
        Outcome::Complete { give_back }
    }

    /// What follows a relaxed object (ending at stream offset
    /// `object_end`) up to the end marker or the stream's end (`end_at`):
    /// extra closing brackets are ignored, as after a JSON object, and so
    /// is the close of a fence around it; anything else is given back
    /// (how many bytes, returned) and the call ends with its object.
    pub(super) fn after_relaxed(
        &mut self,
        after: &[u8],
        object_end: u64,
        end_at: u64,
        missing_end: bool,
    ) -> usize {
        let fenced = self.fenced;
        let closers_only = !missing_end
            && after.iter().all(|&b| {
                matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'}' | b']') || (fenced && b == b'`')
            });
        if closers_only {
            self.object.extra_closer = after
                .iter()
                .position(|b| matches!(b, b'}' | b']'))
                .map(|k| object_end + k as u64);
        }
        if closers_only || crate::scan::skip_ws(after) == after.len() {
            0
        } else {
            usize::try_from(end_at - object_end).unwrap_or(usize::MAX)
        }
    }

    /// The relaxed call object is not relaxed JSON either: it fails as it
    /// first failed, and what was read after that (up to stream offset
    /// `end_at`) goes back to be read as text.
    pub(super) fn relaxed_failed(&mut self, end_at: u64) -> Outcome {
        let Some(relaxed) = self.object.relaxed.take() else {
            return Outcome::malformed(end_at, "malformed JSON in the call body");
        };
        let mut f = relaxed.failure;
        f.give_back = usize::try_from(end_at.saturating_sub(f.offset)).unwrap_or(usize::MAX);
        Outcome::failed(f)
    }

    /// A call object that is not JSON, read on to the end marker.
    pub(super) fn relaxed_read<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cur: &mut Cursor,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> Option<Outcome> {
        let Some(relaxed) = self.object.relaxed.as_mut() else {
            return Some(self.relaxed_end(cx.offset(cur.at), false, cx));
        };
        while cur.at < bytes.len() {
            let to = crate::protocol::piece_end(relaxed.bytes.len(), cur.at, bytes.len());
            relaxed.bytes.extend_from_slice(&bytes[cur.at..to]);
            cur.at = to;
            if let Some((k, closes)) = relaxed.find_end(&self.end, &self.rules.reopen, false) {
                relaxed.bytes.truncate(k);
                let marker = if closes { self.end.len() } else { 0 };
                let end_at = self.object.object_at + (k + marker) as u64;
                // Where the marker ends in this slice; or the bytes that
                // followed it to tell whether it closes were read in earlier
                // ones, and go back.
                cur.at = usize::try_from(end_at.saturating_sub(cx.offset(0)))
                    .map_or(bytes.len(), |n| n.min(bytes.len()));
                let past =
                    usize::try_from(cx.offset(0).saturating_sub(end_at)).unwrap_or(usize::MAX);
                let outcome = self.relaxed_end(end_at, !closes, cx);
                return Some(outcome.giving_back(past));
            }
        }
        if cx.at_limit() {
            cx.read_ahead_to(cx.offset(cur.at));
            return Some(self.relaxed_failed(cx.offset(cur.at)));
        }
        Some(Outcome::More)
    }
}

/// A call object in relaxed JSON at the start of `body`: its name, its
/// arguments as JSON text (the rewritten text itself, so that arguments
/// streamed before the body turned out to be relaxed are a prefix of it;
/// `{}` when absent or `null`; a string holding an object is decoded), and
/// the length of the object in `body`. With `close`, brackets still open at
/// the end of `body` are closed.
pub(super) fn relaxed_call(
    body: &str,
    max_depth: usize,
    close: bool,
) -> Option<(String, String, usize)> {
    let (json, read) = if close {
        let (json, read, added) = crate::scan::relaxed::relax_value_closing(body)?;
        (added > 0).then_some((json, read))?
    } else {
        crate::scan::relaxed::relax_value(body)?
    };
    let json = json.trim();
    if !is_complete_value(json.as_bytes(), max_depth) || !json.starts_with('{') {
        return None;
    }
    let members = CallMembers::of(json, max_depth)?;
    let (name, nested) = match members.name {
        Some(name) => (decode_string_literal(name.as_bytes())?.into_owned(), None),
        None => members.by_function(max_depth)?,
    };
    let args = match nested {
        Some(args) => args,
        None => arguments_text(members.args, max_depth)?,
    };
    (!name.is_empty()).then_some((name, args, read))
}
