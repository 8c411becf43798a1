//! morph-xml: the tool's name is the root element, each child a parameter.
//!
//! ```text
//! <get_weather>
//!   <city>Seoul</city>
//!   <days>3</days>
//! </get_weather>
//! ```
//!
//! Only tools in the tool list open a call (the engine looks for `<name`
//! followed by `>`, `/` or whitespace), so `<b>` in prose stays prose.
//! `<get_time/>` is a call with `{}`. Repeated children form an array,
//! nested children form objects, entities are decoded, and a string-typed
//! parameter keeps its inner markup verbatim (its entities decoded too). Each parameter is sent once
//! the next sibling with another name begins (a repeat would make it an
//! array) or the root closes; array-typed ones when the root closes, since
//! their elements may come apart (`<command>a</command><cwd>.</cwd>
//! <command>b</command>`). A closing tag with nothing open is skipped.

use std::ops::ControlFlow;

use smallvec::{smallvec, SmallVec};

use crate::coerce::xml_content::{array_items, is_type, json_array, value_json, Json};
use crate::cx::{CallCx, Sink};
use crate::event::DiagnosticKind;
use crate::protocol::xml::{ArgsWriter, Body};
use crate::protocol::{CallAutomaton, Failure, InCall, Outcome, Steady};
use crate::scan::xml::{closes, is_name, opens, skip_ws, tag_end, MAX_TAG};
use crate::tool::Tool;

/// A parameter read and not yet sent.
#[derive(Debug, Clone)]
struct Param {
    key: String,
    /// Its values' JSON: one (inline), or the elements of an array.
    values: SmallVec<[Json; 1]>,
    /// Whether a single value stands alone (not an element of an array).
    single: bool,
    array_typed: bool,
}

impl Param {
    /// The parameter's JSON.
    fn json(self) -> Json {
        if self.values.len() != 1 || !self.single {
            return json_array(&self.values).into();
        }
        self.values.into_iter().next().unwrap_or_default()
    }

    /// Adds an element; a whole array given before becomes its elements.
    fn push(&mut self, json: Json) {
        if self.single {
            let whole = self.values.pop().unwrap_or_default();
            match array_items(&whole) {
                Some(items) => self.values.extend(items.into_iter().map(Json::from)),
                None => self.values.push(whole),
            }
            self.single = false;
        }
        self.values.push(json);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    /// After `<name`: attributes up to `>` or `/>`.
    #[default]
    Open,
    /// Between children.
    Children,
    /// Inside child `key` whose content starts at `start`; `depth` nested
    /// elements of the same name are open.
    Child { start: usize, depth: usize },
}

#[derive(Debug, Clone, Default)]
pub(crate) struct MorphXml {
    /// The tools whose names open a call (set once).
    tools: Vec<String>,
    max_depth: usize,
    /// The tool's name (the root element's).
    name: String,
    phase: Phase,
    body: Body,
    pos: usize,
    scan_from: usize,
    key: String,
    /// The last parameter read, held until we know it does not repeat.
    pending: Option<Param>,
    /// Array-typed parameters, held until the root closes: a later element
    /// of the same name, after other parameters, still adds to them.
    arrays: Vec<Param>,
    /// The buffer of the last parameter sent, for the next key's name:
    /// a key is read into it rather than into a new string.
    spare_key: String,
    /// The buffer a child's content is read into, reused from one child
    /// to the next.
    content: String,
    args: ArgsWriter,
    params: usize,
    rejected: Option<Failure>,
}

impl MorphXml {
    pub(crate) fn new(tools: &[Tool], max_depth: usize) -> MorphXml {
        MorphXml {
            tools: tools.iter().map(|t| t.name.clone()).collect(),
            max_depth,
            ..MorphXml::default()
        }
    }

    fn at(&self, i: usize) -> u64 {
        self.body.at(i)
    }

    fn failed(&self, kind: DiagnosticKind, at: usize, message: impl Into<String>) -> Outcome {
        self.body.failed(kind, at, message)
    }

    /// Not a call of the format, from body index `at` on.
    fn malformed(&self, at: usize, message: impl Into<String>) -> Outcome {
        self.failed(DiagnosticKind::MalformedCall, at, message)
    }

    fn start<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>, at: usize) -> bool {
        let name = self.name.as_str();
        match cx.start_at(name, None, self.body.at(at)) {
            Ok(()) => true,
            Err(f) => {
                self.rejected = Some(f.with_name(name));
                false
            }
        }
    }

    /// Reads the body held so far, phase by phase (`eof`: it is all
    /// there is).
    fn run<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>, eof: bool) -> Outcome {
        loop {
            let step = match self.phase {
                Phase::Open => self.open_tag(cx, eof),
                Phase::Children => self.children(cx, eof),
                Phase::Child { start, depth } => self.child(start, depth, cx, eof),
            };
            if let ControlFlow::Break(outcome) = step {
                return outcome;
            }
        }
    }

    /// The call's opening tag, `<name>` (or `<name/>`, a call without
    /// arguments).
    #[inline]
    fn open_tag<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
    ) -> ControlFlow<Outcome> {
        let len = self.body.len();
        let window = &self.body[..len.min(MAX_TAG)];
        let Some(gt) = tag_end(window) else {
            if eof || len >= MAX_TAG {
                let f = self.malformed(0, "unclosed tag");
                return ControlFlow::Break(f);
            }
            return ControlFlow::Break(Outcome::More);
        };
        self.pos = gt + 1;
        if !self.start(cx, gt + 1) {
            if let Some(mut f) = self.rejected.take() {
                // Without the call's body we cannot find its end: give
                // back everything after the tag.
                f.give_back = len - (gt + 1);
                return ControlFlow::Break(Outcome::failed(f));
            }
        }
        if gt > 0 && self.body[gt - 1] == b'/' {
            return ControlFlow::Break(self.complete(cx, gt + 1));
        }
        self.phase = Phase::Children;
        ControlFlow::Continue(())
    }

    /// Between children: the next child's opening tag, or the call's
    /// closing tag.
    #[inline]
    fn children<'c, S: Sink<'c>>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
    ) -> ControlFlow<Outcome> {
        let len = self.body.len();
        self.pos = skip_ws(&self.body, self.pos);
        if self.pos == len {
            let ended = if eof {
                self.end_early(cx)
            } else {
                Outcome::More
            };
            return ControlFlow::Break(ended);
        }
        let at = self.pos;
        if self.body[at] != b'<' {
            return ControlFlow::Break(self.end_early(cx));
        }
        match closes(&self.body, at, self.name.as_bytes()) {
            Some(Some(end)) => return ControlFlow::Break(self.complete(cx, end)),
            None if !eof => return ControlFlow::Break(Outcome::More),
            _ => {}
        }
        // A child: `<key>`, `<key attr>` or `<key/>`.
        let window = &self.body[at + 1..len.min(at + 1 + MAX_TAG)];
        let Some(gt) = tag_end(window) else {
            if !eof && window.len() < MAX_TAG {
                return ControlFlow::Break(Outcome::More);
            }
            return ControlFlow::Break(self.end_early(cx));
        };
        let head = &window[..gt];
        let end = at + 1 + gt + 1;
        if let Some(stray) = head
            .strip_prefix(b"/")
            .map(crate::scan::trim_ws)
            .filter(|k| is_name(k))
        {
            // A closing tag with no element open (`</command>` once more
            // after `</command>`), as models now and then write one:
            // skipped.
            cx.recovered(
                DiagnosticKind::StrayCloseTag,
                self.at(at),
                format!("stray </{}> skipped", String::from_utf8_lossy(stray)),
            );
            self.pos = end;
            return ControlFlow::Continue(());
        }
        let name_len = head
            .iter()
            .position(|&b| b == b'/' || crate::scan::is_ws(b))
            .unwrap_or(head.len());
        if !is_name(&head[..name_len]) {
            return ControlFlow::Break(self.end_early(cx));
        }
        let mut key = std::mem::take(&mut self.spare_key);
        key.clear();
        // A name is ASCII (`is_name`): each byte is its character.
        key.extend(head[..name_len].iter().map(|&b| char::from(b)));
        if self.params >= cx.limits().max_params {
            let f = self.failed(DiagnosticKind::CallTooLarge, at, "too many parameters");
            return ControlFlow::Break(f);
        }
        self.pos = end;
        if head.last() == Some(&b'/') {
            // `<key/>`: an empty value.
            self.value(key, "", false, at, cx);
            return ControlFlow::Continue(());
        }
        self.key = key;
        self.scan_from = end;
        self.phase = Phase::Child {
            start: end,
            depth: 0,
        };
        ControlFlow::Continue(())
    }

    /// Inside child `self.key`, whose content begins at `start`, `depth`
    /// elements of the same name deep: up to its closing tag.
    #[inline]
    fn child<'c, S: Sink<'c>>(
        &mut self,
        start: usize,
        mut depth: usize,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
    ) -> ControlFlow<Outcome> {
        let len = self.body.len();
        let mut i = self.scan_from;
        loop {
            let Some(rel) = crate::scan::find_byte(b'<', &self.body[i..]) else {
                self.scan_from = len;
                self.phase = Phase::Child { start, depth };
                if eof {
                    let what = format!("the stream ended inside <{}>", self.key);
                    let f = self.failed(DiagnosticKind::UnfinishedCall, len, what);
                    return ControlFlow::Break(f);
                }
                return ControlFlow::Break(Outcome::More);
            };
            let lt = i + rel;
            let (body, key) = (&self.body, self.key.as_bytes());
            let close_key = closes(body, lt, key);
            let nested = opens(body, lt, key);
            let root_close = closes(body, lt, self.name.as_bytes());
            if (close_key.is_none() || nested.is_none() || root_close.is_none()) && !eof {
                self.scan_from = lt;
                self.phase = Phase::Child { start, depth };
                return ControlFlow::Break(Outcome::More);
            }
            if let Some(Some(close_end)) = close_key {
                if depth == 0 {
                    self.child_value(start, lt, close_end, cx);
                    return ControlFlow::Continue(());
                }
                depth -= 1;
            } else if nested == Some(true) {
                if depth + 1 >= self.max_depth {
                    let f = self.failed(DiagnosticKind::TooDeep, lt, "elements nested too deep");
                    return ControlFlow::Break(f);
                }
                depth += 1;
            } else if matches!(root_close, Some(Some(_))) {
                cx.recovered(
                    DiagnosticKind::MissingCloseTag,
                    self.at(lt),
                    format!("<{}> is not closed", self.key),
                );
                self.child_value(start, lt, lt, cx);
                return ControlFlow::Continue(());
            }
            i = lt + 1;
        }
    }

    /// Child `self.key`'s content is `body[start..end]`; reading goes on
    /// at `next`, between children.
    #[inline(always)]
    fn child_value<'c, S: Sink<'c>>(
        &mut self,
        start: usize,
        end: usize,
        next: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        // Checked by the SIMD validator first: `from_utf8_lossy`'s own
        // check reads a long value byte by byte.
        let raw = &self.body[start..end];
        let mut content = std::mem::take(&mut self.content);
        content.clear();
        match crate::scan::utf8::validate(raw) {
            Ok(text) => content.push_str(text),
            Err(()) => content.push_str(&String::from_utf8_lossy(raw)),
        }
        let key = std::mem::take(&mut self.key);
        self.value(key, &content, true, start, cx);
        self.content = content;
        self.pos = next;
        self.phase = Phase::Children;
    }

    /// A child element closed: hold it until we know whether it repeats.
    fn value<'c, S: Sink<'c>>(
        &mut self,
        key: String,
        content: &str,
        has_content: bool,
        at: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        self.params += 1;
        // The tool list is shared: a handle to it lends the schema without
        // holding on to `cx` (a clone of the schema cost more than all the
        // rest of a parameter).
        let tools = cx.tools();
        let schema = cx
            .tool_index()
            .and_then(|t| tools.get(t))
            .and_then(|tool| tool.param_schema(&key));
        let repeated = matches!(&self.pending, Some(p) if p.key == key);
        // A name seen before, with other parameters in between.
        let held = self.arrays.iter().position(|p| p.key == key);
        // A name sent before (a later element of it is a duplicate).
        if !repeated && held.is_none() && self.args.has(&key) {
            cx.recovered(
                DiagnosticKind::DuplicateKey,
                self.body.at(at),
                format!("parameter {key:?} given twice; the first value is kept"),
            );
            return;
        }
        let repeated = repeated || held.is_some();
        let array_typed = schema.is_some_and(|s| is_type(s, "array"));
        // Repeated elements form an array, values never dropped; one whose
        // schema says it is something else is told.
        let typed_otherwise = schema.is_some_and(|s| crate::coerce::keyword(s, "type").is_some());
        let first_repeat = matches!(&self.pending, Some(p) if p.key == key && p.values.len() == 1);
        if first_repeat && typed_otherwise && !array_typed {
            cx.recovered(
                DiagnosticKind::Coercion,
                self.body.at(at),
                format!("parameter {key:?} is repeated, so an array, though its schema does not allow one"),
            );
        }
        let mut report = |problem: String| {
            cx.recovered(
                DiagnosticKind::Coercion,
                self.body.at(at),
                format!("parameter {key:?}: {problem}"),
            )
        };
        let content = has_content.then_some(content);
        let (json, whole) = value_json(
            content,
            schema,
            (array_typed, repeated),
            self.max_depth,
            &mut report,
        );
        if let Some(i) = held {
            // What was read in between is complete.
            self.flush(cx);
            if let Some(param) = self.arrays.get_mut(i) {
                param.push(json);
            }
            return;
        }
        if let Some(param) = self.pending.as_mut().filter(|_| repeated) {
            param.push(json);
            return;
        }
        self.flush(cx);
        self.pending = Some(Param {
            key,
            values: smallvec![json],
            single: whole || !array_typed,
            array_typed,
        });
    }

    /// Sends the held parameter, or keeps it with the arrays.
    fn flush<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        let Some(mut param) = self.pending.take() else {
            return;
        };
        if param.array_typed {
            self.arrays.push(param);
            return;
        }
        let key = std::mem::take(&mut param.key);
        self.args.add_json(&key, &param.json(), cx);
        self.spare_key = key;
    }

    fn complete<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>, end: usize) -> Outcome {
        if let Some(mut f) = self.rejected.take() {
            f.give_back = self.body.len().saturating_sub(end);
            return Outcome::failed(f);
        }
        self.flush(cx);
        for mut param in std::mem::take(&mut self.arrays) {
            let key = std::mem::take(&mut param.key);
            self.args.add_json(&key, &param.json(), cx);
        }
        self.args.close(cx);
        Outcome::Complete {
            give_back: self.body.len().saturating_sub(end),
        }
    }

    /// The root's closing tag is missing.
    fn end_early<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        if self.params == 0 {
            return self.malformed(
                self.pos,
                format!("<{}> has no parameters and is not closed", self.name),
            );
        }
        cx.recovered(
            DiagnosticKind::MissingEndMarker,
            self.at(self.pos),
            format!("</{}> is missing; call recovered", self.name),
        );
        let pos = self.pos;
        self.complete(cx, pos)
    }
}

impl CallAutomaton for MorphXml {
    fn begin(&mut self, marker: usize) {
        self.name.clear();
        if let Some(name) = self.tools.get(marker) {
            self.name.push_str(name);
        }
        self.phase = Phase::Open;
        self.body.clear();
        self.pos = 0;
        self.scan_from = 0;
        self.key.clear();
        self.pending = None;
        self.arrays.clear();
        self.args.reset();
        self.params = 0;
        self.rejected = None;
    }
    fn advance<'c, S: Sink<'c>>(
        &mut self,
        bytes: &'c [u8],
        cx: &mut CallCx<'_, 'c, S>,
    ) -> (usize, Outcome) {
        let before = self.body.len();
        let mut from = 0;
        loop {
            from = self.body.append_piece(bytes, from, cx.offset(from));
            let outcome = self.run(cx, false);
            if from == bytes.len() || !matches!(outcome, Outcome::More) {
                return self.body.settle(before, from, outcome);
            }
        }
    }
    fn finish<'c, S: Sink<'c>>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        self.body.anchor(cx.offset(0));
        self.run(cx, true)
    }

    /// A chunk that leaves every verdict as a run would leave it, and
    /// sends nothing: kept on the steady path. That is a chunk of a
    /// child's content without a `<`, with no tag partly read before it
    /// (the value goes out whole at its close; `child` would only keep
    /// it), or one that goes on with the root's open tag or the tag between
    /// children without ending it (see [`tag_goes_on`](Self::tag_goes_on)).
    ///
    /// # Complexity
    ///
    /// One pass over `bytes`, and their copy.
    #[inline]
    fn steady<'c>(&mut self, bytes: &'c [u8], offset: u64, _call: InCall) -> Steady<'c> {
        if self.rejected.is_some() {
            return Steady::No;
        }
        if let Phase::Child { .. } = self.phase {
            if self.scan_from != self.body.len() || crate::scan::find_byte(b'<', bytes).is_some() {
                return Steady::No;
            }
            self.body.append(bytes, offset);
            self.scan_from = self.body.len();
            return Steady::Quiet;
        }
        let Some(pos) = self.tag_goes_on(bytes) else {
            return Steady::No;
        };
        self.body.append(bytes, offset);
        self.pos = pos;
        Steady::Quiet
    }
}

impl MorphXml {
    /// Whether `bytes` leave the root's open tag, or the whitespace and
    /// tag between children, incomplete and shorter than [`MAX_TAG`]:
    /// then [`open_tag`](Self::open_tag) and
    /// [`children`](Self::children) would wait for more. With no `>` among
    /// them no tag can end, so no verdict changes. Where reading between
    /// children goes on after them (the position `children` skips to).
    fn tag_goes_on(&self, bytes: &[u8]) -> Option<usize> {
        if crate::scan::find_byte(b'>', bytes).is_some() {
            return None;
        }
        let len = self.body.len() + bytes.len();
        if self.phase == Phase::Open {
            return (len < MAX_TAG).then_some(self.pos);
        }
        // The first byte that is not whitespace, in the body or the chunk.
        let at = skip_ws(&self.body, self.pos);
        let (at, first) = match self.body.get(at) {
            Some(&b) => (at, Some(b)),
            None => {
                let k = crate::scan::skip_ws(bytes);
                (at + k, bytes.get(k).copied())
            }
        };
        match first {
            // Whitespace only: `children` would skip it.
            None => Some(len),
            Some(b'<') => (len - (at + 1) < MAX_TAG).then_some(at),
            Some(_) => None,
        }
    }
}
