//! The members of a call object: which bytes are the name, the arguments,
//! the id, or something to skip; commas held back and string repairs.

use super::*;
use crate::cx::Sink;
use crate::scan::json::{object_in_string, root_members};

/// The raw values of the members of a call object that name the tool and
/// hold its arguments.
#[derive(Default)]
pub(super) struct CallMembers<'j> {
    pub(super) name: Option<&'j str>,
    /// `arguments`, or `parameters`.
    pub(super) args: Option<&'j str>,
    pub(super) function: Option<&'j str>,
}

impl<'j> CallMembers<'j> {
    /// The members of `json`, a complete JSON object; `None` if one of
    /// them is given twice (as JSON refuses it).
    pub(super) fn of(json: &'j str, max_depth: usize) -> Option<CallMembers<'j>> {
        let mut members = CallMembers::default();
        for (key, value) in root_members(json.as_bytes(), max_depth) {
            let slot = match decode_string_literal(&json.as_bytes()[key])?.as_ref() {
                "name" => &mut members.name,
                "arguments" | "parameters" => &mut members.args,
                "function" => &mut members.function,
                _ => continue,
            };
            if slot.replace(&json[value]).is_some() {
                return None;
            }
        }
        Some(members)
    }

    /// For a call object without `"name"` that names its tool by
    /// `"function"` instead: a string (`{"function": "f", "arguments":
    /// {…}}`; its arguments are the object's own, so `None` here), or the
    /// nested shape of the OpenAI API (`{"type": "function", "function":
    /// {"name": "f", "arguments": {…}}}`, with the arguments inside). The
    /// name and those arguments.
    pub(super) fn by_function(&self, max_depth: usize) -> Option<(String, Option<String>)> {
        let function = self.function?;
        let (name, args) = match function.as_bytes().first() {
            Some(b'"') => (function, None),
            Some(b'{') => {
                let inner = CallMembers::of(function, max_depth)?;
                (inner.name?, Some(arguments_text(inner.args, max_depth)?))
            }
            _ => return None,
        };
        let name = decode_string_literal(name.as_bytes())?.into_owned();
        (!name.is_empty()).then_some((name, args))
    }
}

/// A call's arguments from the raw value of its arguments member: `{}`
/// when absent or `null`, an object as it stands, a string holding an
/// object decoded; `None` for anything else.
pub(super) fn arguments_text(raw: Option<&str>, max_depth: usize) -> Option<String> {
    let Some(raw) = raw else {
        return Some("{}".to_owned());
    };
    match raw.as_bytes().first() {
        Some(b'n') => Some("{}".to_owned()),
        Some(b'{') => Some(raw.to_owned()),
        Some(b'"') => object_in_string(raw.as_bytes(), max_depth),
        _ => None,
    }
}

/// [`CallMembers::by_function`] of the complete JSON object `object`.
pub(super) fn named_by_function(
    object: &[u8],
    max_depth: usize,
) -> Option<(String, Option<String>)> {
    let object = std::str::from_utf8(object).ok()?;
    if !is_complete_value(object.as_bytes(), max_depth) {
        return None;
    }
    CallMembers::of(object.trim(), max_depth)?.by_function(max_depth)
}

impl JsonCall {
    /// Bytes of the current member, in the current chunk.
    #[inline]
    pub(super) fn take<'c, S: Sink<'c>>(
        &mut self,
        seg: &'c [u8],
        offset: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        if seg.is_empty() || self.rejected.is_some() {
            return;
        }
        match self.object.capture {
            Capture::None | Capture::Skip => {}
            Capture::Key | Capture::Name | Capture::Id | Capture::ArgsString => {
                self.buf.extend_from_slice(seg)
            }
            Capture::ArgsObject => {
                if cx.started() {
                    if let Err(at) = cx.delta(seg, offset) {
                        self.reject(invalid_utf8(at));
                    }
                } else {
                    self.pending.extend_from_slice(seg);
                }
            }
        }
    }

    /// The slice `seg` follows a held-back comma, and the scan stopped with
    /// `signal`: a closing bracket after nothing but whitespace drops the
    /// comma (and the whitespace after it); anything else sends it. Whether
    /// it is still held (only whitespace so far, more to come).
    #[cold]
    #[inline(never)]
    pub(super) fn settle_held_comma<'c, S: Sink<'c>>(
        &mut self,
        seg: &[u8],
        signal: Signal,
        cx: &mut CallCx<'_, 'c, S>,
    ) -> bool {
        let only_ws = crate::scan::last_non_ws(seg).is_none();
        if only_ws && signal == Signal::More {
            self.held_comma.extend_from_slice(seg);
            return true;
        }
        if only_ws && signal == Signal::TrailingComma {
            self.comma_dropped(self.object.held_at, cx);
        } else if self.rejected.is_none() && self.object.capture == Capture::ArgsObject {
            // (No other capture spans a comma.)
            if cx.started() {
                cx.delta_held(&self.held_comma, self.object.held_at);
            } else {
                self.pending.extend_from_slice(&self.held_comma);
            }
        }
        self.held_comma.clear();
        false
    }

    /// `seg` (at stream offset `offset`) ends with a comma and whitespace
    /// (unless a comma held back before it was dropped already): what comes
    /// before the comma goes out; the comma is then dropped if `trailing`
    /// (a closing bracket follows), else held back with the whitespace.
    #[cold]
    #[inline(never)]
    pub(super) fn comma_at_end<'c, S: Sink<'c>>(
        &mut self,
        seg: &'c [u8],
        offset: u64,
        trailing: bool,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let Some(k) = crate::scan::last_non_ws(seg) else {
            return;
        };
        self.take(&seg[..k], offset, cx);
        if trailing {
            self.comma_dropped(offset + k as u64, cx);
        } else {
            self.held_comma.extend_from_slice(&seg[k..]);
            self.object.held_at = offset + k as u64;
        }
    }

    /// [`comma_at_end`](Self::comma_at_end) on the steady path: a chunk
    /// (at stream offset `offset`) of the arguments, or between members,
    /// ends with a comma and whitespace. The comma is held back and what
    /// comes before it is the chunk's steady delta; `None` where that takes
    /// more (a code point carried into the chunk or split in it, arguments
    /// before the call started, a comma before the chunk).
    #[cold]
    #[inline(never)]
    pub(super) fn comma_ends_chunk<'c>(
        &mut self,
        bytes: &'c [u8],
        offset: u64,
        call: InCall,
    ) -> Option<Steady<'c>> {
        let k = crate::scan::last_non_ws(bytes)?;
        let steady = match self.object.capture {
            Capture::ArgsObject if call.started && !call.carried => {
                match crate::scan::utf8::validate(&bytes[..k]).ok()? {
                    "" => Steady::Quiet,
                    text => Steady::Delta(text),
                }
            }
            Capture::None | Capture::Skip => Steady::Quiet,
            _ => return None,
        };
        self.held_comma.extend_from_slice(&bytes[k..]);
        self.object.held_at = offset + k as u64;
        Some(steady)
    }

    /// A chunk of the arguments after a comma held back before it, which
    /// the chunk shows was no trailing one (something other than
    /// whitespace follows it, and no member ends): the comma goes out, then
    /// the chunk, on the steady path. `None` where that takes more (a code
    /// point carried into the chunk or split in it, arguments before the
    /// call started, a comma at the chunk's end too, a comma held with
    /// unusual whitespace).
    #[cold]
    #[inline(never)]
    pub(super) fn comma_before_chunk<'c>(
        &mut self,
        bytes: &'c [u8],
        call: InCall,
    ) -> Option<Steady<'c>> {
        let steady_args = self.object.capture == Capture::ArgsObject && call.started;
        if !steady_args || call.carried || self.json.after_comma() {
            return None;
        }
        crate::scan::last_non_ws(bytes)?;
        let comma = crate::cx::held_comma_text(&self.held_comma)?;
        let text = crate::scan::utf8::validate(bytes).ok()?;
        self.held_comma.clear();
        Some(Steady::AfterComma {
            comma,
            at: self.object.held_at,
            text,
        })
    }

    /// A trailing comma at stream offset `at` was left out of the
    /// arguments: reported, once per call.
    pub(super) fn comma_dropped<'c, S: Sink<'c>>(&mut self, at: u64, cx: &mut CallCx<'_, 'c, S>) {
        if !self.object.dropped_comma && self.rejected.is_none() {
            self.object.dropped_comma = true;
            cx.recovered(
                DiagnosticKind::RepairedJson,
                at,
                "a trailing comma in the call's JSON was dropped".into(),
            );
        }
    }

    /// Writes `repair` where the model's bytes were not JSON, and says so
    /// once per call.
    pub(super) fn repair<'c, S: Sink<'c>>(
        &mut self,
        repair: Repair,
        offset: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        if self.rejected.is_some() {
            return;
        }
        crate::protocol::report_repair(&mut self.object.repaired, repair, offset, cx);
        let mut buf = [0; 6];
        let fixed = repair.text(&mut buf);
        match self.object.capture {
            Capture::None | Capture::Skip => {}
            Capture::Key | Capture::Name | Capture::Id | Capture::ArgsString => {
                self.buf.extend_from_slice(fixed)
            }
            Capture::ArgsObject if cx.started() => {
                let _ = cx.delta_owned(fixed, offset);
            }
            Capture::ArgsObject => self.pending.extend_from_slice(fixed),
        }
    }

    /// The JSON is complete and the call ends (`missing_end` says where, if
    /// the end marker never came).
    pub(super) fn conclude<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        missing_end: Option<u64>,
    ) -> Outcome {
        let give_back = self.object.trail;
        self.require_arguments(self.json_end);
        if let Some(mut f) = self.rejected.take() {
            f.give_back = give_back;
            return Outcome::failed(f);
        }
        self.report_fence(cx);
        match missing_end {
            Some(offset) => self.missing_end_marker("JSON", offset, cx),
            None => self.report_extra_closer(cx),
        }
        if !self.object.seen_args {
            // No arguments (or `null`): the input is an empty object.
            cx.delta_borrowed("{}");
        }
        Outcome::Complete { give_back }
    }

    /// A member's value begins with byte `first`, at stream offset `offset`
    /// (taken with the bytes that follow it).
    pub(super) fn value_start(&mut self, first: u8, offset: u64) {
        self.buf.clear();
        self.object.capture = match self.object.member {
            Member::Other => Capture::Skip,
            Member::Id if first == b'"' => Capture::Id,
            Member::Id => Capture::Skip,
            Member::Name => {
                self.object.name_at = offset;
                Capture::Name
            }
            Member::Args => match first {
                b'{' => Capture::ArgsObject,
                b'"' => Capture::ArgsString,
                b'n' => {
                    self.object.seen_args = false;
                    Capture::Skip
                }
                _ => {
                    self.reject(Failure::new(
                        DiagnosticKind::InvalidArguments,
                        offset,
                        "\"arguments\" must be an object",
                    ));
                    Capture::Skip
                }
            },
        };
    }

    pub(super) fn key_end<'c, S: Sink<'c>>(&mut self, offset: u64, cx: &mut CallCx<'_, 'c, S>) {
        self.key_member(offset);
        if self.object.member == Member::Args {
            if let Some((name, at)) = self.object.deferred_name.take() {
                if let Err(f) = cx.start_at(&name, None, at) {
                    self.reject(f.with_name(&name));
                }
            }
        }
    }

    /// The member whose key (in `buf`) ended at stream offset `offset`: its
    /// kind, and a duplicate rejected.
    fn key_member(&mut self, offset: u64) {
        self.object.capture = Capture::None;
        self.object.member = match self.buf.as_slice() {
            // The keys as models write them, without decoding.
            br#""name""# | br#""tool_name""# => Member::Name,
            br#""arguments""# | br#""parameters""# => Member::Args,
            br#""id""# | br#""tool_call_id""# | br#""call_id""# => Member::Id,
            raw if !raw.contains(&b'\\') => Member::Other,
            raw => match decode_string_literal(raw).as_deref() {
                Some("name" | "tool_name") => Member::Name,
                Some("arguments" | "parameters") => Member::Args,
                Some("id" | "tool_call_id" | "call_id") => Member::Id,
                _ => Member::Other,
            },
        };
        let duplicate = match self.object.member {
            Member::Name => self.object.has_name,
            Member::Args => self.object.seen_args,
            Member::Id | Member::Other => false,
        };
        if duplicate {
            self.reject(Failure::new(
                DiagnosticKind::DuplicateKey,
                offset,
                format!(
                    "{} appears twice in the call",
                    String::from_utf8_lossy(&self.buf)
                ),
            ));
        }
        if self.object.member == Member::Args {
            self.object.seen_args = true;
            self.object.args_key = true;
        }
    }

    /// On the steady path, where the scan of `bytes` (at stream offset
    /// `offset`) stopped at a member boundary: reads the call object's keys
    /// and the start of members other than the arguments, which send
    /// nothing, as [`body`](Self::body) would. Out of line: a few chunks of
    /// a call hold one.
    #[inline(never)]
    pub(super) fn quiet_members<'c>(
        &mut self,
        bytes: &'c [u8],
        offset: u64,
        mut scan: (usize, Signal),
    ) -> Steady<'c> {
        let mut cur = Cursor {
            at: 0,
            member_from: None,
        };
        while self.quiet_member(bytes, offset, &mut cur, scan) {
            scan = self.json.advance(&bytes[cur.at..]);
            if !scan.1.opens_or_names_member() {
                break;
            }
        }
        self.after_quiet_members(bytes, cur, scan)
    }

    /// One member boundary of [`quiet_members`](Self::quiet_members),
    /// read as [`body`](Self::body) would; `false` (nothing done) where
    /// that takes more than the call object's own state.
    fn quiet_member(
        &mut self,
        bytes: &[u8],
        offset: u64,
        cur: &mut Cursor,
        (n, signal): (usize, Signal),
    ) -> bool {
        if !self.held_comma.is_empty() {
            // A comma between members, followed by the next key: it was
            // no trailing one, and outside the arguments it sends nothing.
            let between = matches!(self.object.capture, Capture::None | Capture::Skip);
            if signal != Signal::KeyStart || !between {
                return false;
            }
            self.held_comma.clear();
        }
        let end = cur.at + n;
        match signal {
            Signal::KeyStart => {
                self.object.capture = Capture::Key;
                self.buf.clear();
                self.buf.push(b'"');
                cur.member_from = None;
            }
            Signal::KeyEnd
                if self.object.capture == Capture::Key && self.object.deferred_name.is_none() =>
            {
                let from = cur.member_from.take().unwrap_or(cur.at);
                crate::scan::append_bytes(&mut self.buf, &bytes[from..end]);
                self.key_member(offset + end as u64);
            }
            Signal::ValueStart if self.object.member != Member::Args => {
                self.value_start(bytes[end - 1], offset + end as u64 - 1);
                cur.member_from = Some(end - 1);
            }
            _ => return false,
        }
        cur.at = end;
        true
    }

    /// After [`quiet_members`](Self::quiet_members) read `bytes` up to
    /// `cur`: the rest, if it only continues a member captured into `buf`
    /// or skipped; otherwise it is kept for [`advance`](Self::advance),
    /// which resumes at `cur` (the start, if nothing was read).
    fn after_quiet_members<'c>(
        &mut self,
        bytes: &'c [u8],
        mut cur: Cursor,
        scan: (usize, Signal),
    ) -> Steady<'c> {
        let quiet = cur.at > 0
            && scan.1 == Signal::More
            && self.held_comma.is_empty()
            && !self.json.after_comma();
        match self.object.capture {
            Capture::Key | Capture::Name | Capture::Id | Capture::ArgsString if quiet => {
                let from = cur.member_from.take().unwrap_or(cur.at);
                crate::scan::append_bytes(&mut self.buf, &bytes[from..]);
                Steady::Quiet
            }
            Capture::None | Capture::Skip if quiet => Steady::Quiet,
            _ => {
                self.object.prescanned = Some(scan);
                self.object.resume = Some(cur);
                Steady::No
            }
        }
    }

    /// The call object, which ended at stream offset `end`, has no
    /// `"name"`: if it names its tool by `"function"`
    /// ([`named_by_function`]), the call starts now, with all of its
    /// arguments.
    #[cold]
    #[inline(never)]
    pub(super) fn name_from_function<'c, S: Sink<'c>>(
        &mut self,
        end: u64,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let object = cx.call_bytes(self.object.object_at, end);
        let Some((name, args)) = named_by_function(&object, cx.limits().max_depth) else {
            return;
        };
        if let Err(f) = cx.start_at(&name, None, end) {
            return self.reject(f.with_name(&name));
        }
        self.object.has_name = true;
        // Without arguments of its own, the object's are those read so
        // far (none: the conclusion sends `{}`).
        let args = match args {
            Some(nested) => {
                self.object.args_key = true;
                nested.into_bytes()
            }
            None => std::mem::take(&mut self.pending),
        };
        self.object.seen_args |= !args.is_empty();
        if let Err(at) = cx.delta_owned(&args, end) {
            self.reject(invalid_utf8(at));
        }
        self.pending.clear();
    }

    pub(super) fn value_end<'c, S: Sink<'c>>(&mut self, offset: u64, cx: &mut CallCx<'_, 'c, S>) {
        let capture = std::mem::replace(&mut self.object.capture, Capture::None);
        if self.rejected.is_some() {
            return;
        }
        match capture {
            Capture::Name => {
                let name = decode_string_literal(&self.buf).filter(|n| !n.is_empty());
                // Without escapes (borrowed as it is) the name stands
                // verbatim after its quote.
                let verbatim = matches!(name, Some(std::borrow::Cow::Borrowed(_)));
                let origin = verbatim.then_some(self.object.name_at + 1);
                let started = match name {
                    None => Err(Failure::new(
                        DiagnosticKind::MissingName,
                        offset,
                        "\"name\" must be a non-empty string",
                    )),
                    Some(name) if self.rules.needs_args && !self.object.seen_args => {
                        self.object.deferred_name = Some((name.into_owned(), offset));
                        Ok(())
                    }
                    Some(name) => cx
                        .start_at(&name, origin, offset)
                        .map_err(|f| f.with_name(&name)),
                };
                if let Err(f) = started {
                    return self.reject(f);
                }
                self.object.has_name = true;
                if !self.pending.is_empty() {
                    let pending = std::mem::take(&mut self.pending);
                    if let Err(at) = cx.delta_owned(&pending, offset) {
                        self.reject(invalid_utf8(at));
                    }
                    self.pending = pending;
                    self.pending.clear();
                }
            }
            Capture::ArgsString => {
                let Some(text) = object_in_string(&self.buf, cx.limits().max_depth) else {
                    return self.reject(Failure::new(
                        DiagnosticKind::InvalidArguments,
                        offset,
                        "\"arguments\" is a string that does not hold a JSON object",
                    ));
                };
                if cx.started() {
                    let _ = cx.delta_owned(text.as_bytes(), offset);
                } else {
                    self.pending.extend_from_slice(text.as_bytes());
                }
            }
            Capture::Id => {
                if let Some(id) = decode_string_literal(&self.buf) {
                    cx.model_call_id(&id);
                }
            }
            Capture::None | Capture::Key | Capture::ArgsObject | Capture::Skip => {}
        }
    }
}
