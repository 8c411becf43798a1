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

use serde_json::Value;
use std::ops::ControlFlow;

use crate::coerce::coerce;
use crate::cx::CallCx;
use crate::event::DiagnosticKind;
use crate::event::Event;
use crate::protocol::xml::{skip_ws, strip_one_newline, ArgsWriter, Body, MAX_TAG};
use crate::protocol::CallAutomaton;
use crate::protocol::{Failure, Outcome};
use crate::tool::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// After `<name`: attributes up to `>` or `/>`.
    Open,
    /// Between children.
    Children,
    /// Inside child `key` whose content starts at `start`; `depth` nested
    /// elements of the same name are open.
    Child { start: usize, depth: usize },
}

/// Does `body[at..]` start with `lit`? `None` when it ends first.
fn starts(body: &[u8], at: usize, lit: &[u8]) -> Option<bool> {
    let avail = &body[at.min(body.len())..];
    let n = lit.len().min(avail.len());
    if avail[..n] != lit[..n] {
        Some(false)
    } else if n < lit.len() {
        None
    } else {
        Some(true)
    }
}

/// The `>` that ends the tag `head` begins: the first one outside an
/// attribute's quotes (`<content note="a > b">`).
fn tag_end(head: &[u8]) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in head.iter().enumerate() {
        match (quote, b) {
            (None, b'>') => return Some(i),
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            _ => {}
        }
    }
    None
}

/// Whether `key` may name an element: not empty, letters, digits and
/// `_-.:`.
fn is_name(key: &[u8]) -> bool {
    !key.is_empty()
        && key
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// Is there a closing tag `</key>` at `at`? Where it ends if so. Whitespace
/// may stand around the name: models wrap long lines inside tags
/// (`</\n  step>`), and XML allows it before the `>`. `None` when the body
/// ends before that is known.
#[inline]
fn closes(body: &[u8], at: usize, key: &[u8]) -> Option<Option<usize>> {
    // Byte by byte: cheaper than a `memcmp` call, on every `<` of a value.
    if body.get(at) != Some(&b'<') || *body.get(at + 1)? != b'/' {
        return Some(None);
    }
    let mut name = at + 2;
    if crate::scan::is_ws(*body.get(name)?) {
        name = skip_ws(body, name);
    }
    if !starts(body, name, key)? {
        return Some(None);
    }
    let mut gt = name + key.len();
    if crate::scan::is_ws(*body.get(gt)?) {
        gt = skip_ws(body, gt);
    }
    match body.get(gt)? {
        b'>' => Some(Some(gt + 1)),
        _ => Some(None),
    }
}

/// Is there an opening tag `<key` (then `>`, `/` or whitespace) at `at`?
fn opens(body: &[u8], at: usize, key: &[u8]) -> Option<bool> {
    match starts(body, at + 1, key)? {
        false => Some(false),
        true => {
            let next = *body.get(at + 1 + key.len())?;
            Some(next == b'>' || next == b'/' || crate::scan::is_ws(next))
        }
    }
}

/// A parameter read and not yet sent.
#[derive(Debug, Clone)]
struct Param {
    key: String,
    /// Its values' JSON: one, or the elements of an array.
    values: Vec<String>,
    /// Whether a single value stands alone (not an element of an array).
    single: bool,
    array_typed: bool,
}

impl Param {
    /// The parameter's JSON.
    fn json(self) -> String {
        match <[String; 1]>::try_from(self.values) {
            Ok([value]) if self.single => value,
            Ok([value]) => format!("[{value}]"),
            Err(values) => format!("[{}]", values.join(", ")),
        }
    }

    /// Adds an element; a whole array given before becomes its elements.
    fn push(&mut self, json: String) {
        if self.single {
            let whole = self.values.pop().unwrap_or_default();
            match array_items(&whole) {
                Some(items) => self.values.extend(items),
                None => self.values.push(whole),
            }
            self.single = false;
        }
        self.values.push(json);
    }
}

/// The elements of `json` as written, if it is a JSON array (key order
/// and number digits kept).
fn array_items(json: &str) -> Option<Vec<String>> {
    let inner = json.trim().strip_prefix('[')?.strip_suffix(']')?;
    if !crate::scan::json::is_complete_value(json.trim().as_bytes(), usize::MAX) {
        return None;
    }
    let mut items = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut from) = (0usize, false, false, 0);
    for (i, b) in inner.bytes().enumerate() {
        match b {
            _ if in_string => match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            },
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                items.push(inner[from..i].trim().to_owned());
                from = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[from..].trim();
    if !last.is_empty() {
        items.push(last.to_owned());
    }
    Some(items)
}

#[derive(Debug, Clone)]
pub(crate) struct MorphXml {
    tools: Vec<String>,
    name: Vec<u8>,
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
    /// The parameters sent so far (a later element of the same name is a
    /// duplicate).
    sent: Vec<String>,
    args: ArgsWriter,
    params: usize,
    rejected: Option<Failure>,
    max_depth: usize,
}

impl MorphXml {
    pub(crate) fn new(tools: &[Tool], max_depth: usize) -> MorphXml {
        MorphXml {
            tools: tools.iter().map(|t| t.name.clone()).collect(),
            name: Vec::new(),
            phase: Phase::Open,
            body: Body::default(),
            pos: 0,
            scan_from: 0,
            key: String::new(),
            pending: None,
            arrays: Vec::new(),
            sent: Vec::new(),
            args: ArgsWriter::default(),
            params: 0,
            rejected: None,
            max_depth,
        }
    }

    fn at(&self, i: usize) -> u64 {
        self.body.at(i)
    }

    fn failed(&self, kind: DiagnosticKind, at: usize, message: impl Into<String>) -> Outcome {
        self.body.failed(kind, at, message)
    }

    fn start<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>, at: usize) -> bool {
        let name = String::from_utf8_lossy(&self.name).into_owned();
        match cx.start(&name, self.at(at)) {
            Ok(()) => true,
            Err(f) => {
                self.rejected = Some(f.with_name(&name));
                false
            }
        }
    }

    /// Reads the body held so far, phase by phase (`eof`: it is all
    /// there is).
    fn run<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>, eof: bool) -> Outcome {
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
    fn open_tag<'c, S: FnMut(Event<'c>)>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
    ) -> ControlFlow<Outcome> {
        let len = self.body.len();
        let window = &self.body[..len.min(MAX_TAG)];
        let Some(gt) = tag_end(window) else {
            if eof || len >= MAX_TAG {
                let f = self.failed(DiagnosticKind::MalformedCall, 0, "unclosed tag");
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
    fn children<'c, S: FnMut(Event<'c>)>(
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
        match closes(&self.body, at, &self.name) {
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
        let key = String::from_utf8_lossy(&head[..name_len]).into_owned();
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
    fn child<'c, S: FnMut(Event<'c>)>(
        &mut self,
        start: usize,
        mut depth: usize,
        cx: &mut CallCx<'_, 'c, S>,
        eof: bool,
    ) -> ControlFlow<Outcome> {
        let len = self.body.len();
        let mut i = self.scan_from;
        loop {
            let Some(rel) = memchr::memchr(b'<', &self.body[i..]) else {
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
            let root_close = closes(body, lt, &self.name);
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
    fn child_value<'c, S: FnMut(Event<'c>)>(
        &mut self,
        start: usize,
        end: usize,
        next: usize,
        cx: &mut CallCx<'_, 'c, S>,
    ) {
        let content = String::from_utf8_lossy(&self.body[start..end]).into_owned();
        let key = std::mem::take(&mut self.key);
        self.value(key, &content, true, start, cx);
        self.pos = next;
        self.phase = Phase::Children;
    }

    /// A child element closed: hold it until we know whether it repeats.
    fn value<'c, S: FnMut(Event<'c>)>(
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
        if !repeated && held.is_none() && self.sent.contains(&key) {
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
            values: vec![json],
            single: whole || !array_typed,
            array_typed,
        });
    }

    /// Sends the held parameter, or keeps it with the arrays.
    fn flush<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) {
        let Some(mut param) = self.pending.take() else {
            return;
        };
        if param.array_typed {
            self.arrays.push(param);
            return;
        }
        let key = std::mem::take(&mut param.key);
        self.args.add_json(&key, &param.json(), cx);
        self.sent.push(key);
    }

    fn complete<'c, S: FnMut(Event<'c>)>(
        &mut self,
        cx: &mut CallCx<'_, 'c, S>,
        end: usize,
    ) -> Outcome {
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
    fn end_early<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        if self.params == 0 {
            return self.failed(
                DiagnosticKind::MalformedCall,
                self.pos,
                format!(
                    "<{}> has no parameters and is not closed",
                    String::from_utf8_lossy(&self.name)
                ),
            );
        }
        cx.recovered(
            DiagnosticKind::MissingEndMarker,
            self.at(self.pos),
            format!(
                "</{}> is missing; call recovered",
                String::from_utf8_lossy(&self.name)
            ),
        );
        let pos = self.pos;
        self.complete(cx, pos)
    }
}

impl CallAutomaton for MorphXml {
    fn begin(&mut self, marker: usize) {
        self.name.clear();
        if let Some(name) = self.tools.get(marker) {
            self.name.extend_from_slice(name.as_bytes());
        }
        self.phase = Phase::Open;
        self.body.clear();
        self.pos = 0;
        self.scan_from = 0;
        self.key.clear();
        self.pending = None;
        self.arrays.clear();
        self.sent.clear();
        self.args.reset();
        self.params = 0;
        self.rejected = None;
    }
    fn advance<'c, S: FnMut(Event<'c>)>(
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
    fn finish<'c, S: FnMut(Event<'c>)>(&mut self, cx: &mut CallCx<'_, 'c, S>) -> Outcome {
        self.body.anchor(cx.offset(0));
        self.run(cx, true)
    }
}

fn is_type(schema: &Value, ty: &str) -> bool {
    match crate::coerce::keyword(schema, "type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == ty),
        _ => false,
    }
}

/// XML content to JSON text under `schema`.
fn convert(
    content: &str,
    schema: Option<&Value>,
    max_depth: usize,
    problem: &mut dyn FnMut(String),
) -> String {
    // Exactly `"type": "string"`: unions go through coercion (so that
    // `["string", "null"]` can read `None` as null).
    let string_typed = schema.is_some_and(|s| s.get("type").is_some_and(|t| t == "string"));
    if string_typed {
        // Markup stays verbatim, and entities are decoded in it too:
        // models escape `<` and `&` as XML asks, and a file written
        // through the tool must not hold `&lt;`.
        let text = decode_entities(strip_one_newline(content));
        return Value::String(text).to_string();
    }
    match children(content, max_depth) {
        // One element around a number or a boolean (`<data><item>42</item></data>`).
        Some(kids) if kids.len() == 1 && is_scalar(schema) => {
            convert(&kids[0].1, schema, max_depth.saturating_sub(1), problem)
        }
        Some(kids) if !kids.is_empty() => object_or_array(&kids, schema, max_depth, problem),
        _ => {
            let text = decode_entities(strip_one_newline(content));
            let c = coerce(&text, schema, max_depth);
            if let Some(p) = c.problem {
                problem(p);
            }
            c.json
        }
    }
}

/// A child's value as JSON (`None`: an empty element), typed by its
/// parameter's schema (of its items, for a repeated element of a
/// parameter the schema types as an array); `true` when an array-typed
/// value was the whole array.
#[inline]
fn value_json(
    content: Option<&str>,
    schema: Option<&Value>,
    (array_typed, repeated): (bool, bool),
    max_depth: usize,
    report: &mut impl FnMut(String),
) -> (String, bool) {
    let Some(content) = content else {
        let empty = match schema {
            None => "\"\"",
            Some(s) if is_type(s, "string") => "\"\"",
            Some(_) => "null",
        };
        return (empty.to_owned(), false);
    };
    if array_typed && !repeated {
        return whole_or_item(content, schema, max_depth, report);
    }
    let s = if repeated && array_typed {
        schema.and_then(|s| s.get("items"))
    } else {
        schema
    };
    (convert(content, s, max_depth, report), false)
}

/// An element of an array-typed parameter: the whole array (as JSON, or
/// one child per item) or one item of it (the first of elements that
/// repeat, or the only one). The JSON, and whether it is the whole array.
fn whole_or_item(
    content: &str,
    schema: Option<&Value>,
    max_depth: usize,
    problem: &mut dyn FnMut(String),
) -> (String, bool) {
    let items = schema.and_then(|s| s.get("items"));
    match children(content, max_depth) {
        // Children named as the properties of an object item are that
        // item (`<step><name>a</name><status>done</status></step>`).
        Some(kids) if !kids.is_empty() && !is_item_of(&kids, items) => {
            (object_or_array(&kids, schema, max_depth, problem), true)
        }
        Some(kids) if !kids.is_empty() => {
            let item = object_or_array(&kids, items, max_depth.saturating_sub(1), problem);
            (item, false)
        }
        _ => {
            let text = decode_entities(strip_one_newline(content));
            let whole = coerce(&text, schema, max_depth);
            match whole.problem {
                None => (whole.json, true),
                Some(_) => (convert(content, items, max_depth, problem), false),
            }
        }
    }
}

/// Whether `schema` asks for a number, an integer or a boolean.
fn is_scalar(schema: Option<&Value>) -> bool {
    schema.is_some_and(|s| {
        ["number", "integer", "boolean"]
            .iter()
            .any(|t| is_type(s, t))
    })
}

/// Whether `kids` are the members of one item under `items`: an object
/// schema that has every one of their names as a property.
fn is_item_of(kids: &[(String, String)], items: Option<&Value>) -> bool {
    let Some(props) = items
        .filter(|s| is_type(s, "object"))
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return false;
    };
    kids.iter().all(|(k, _)| props.contains_key(k))
}

fn object_or_array(
    kids: &[(String, String)],
    schema: Option<&Value>,
    max_depth: usize,
    problem: &mut dyn FnMut(String),
) -> String {
    let as_array = schema.is_some_and(|s| is_type(s, "array"));
    if as_array {
        let items = schema.and_then(|s| s.get("items"));
        let values: Vec<String> = kids
            .iter()
            .map(|(_, c)| convert(c, items, max_depth.saturating_sub(1), problem))
            .collect();
        return format!("[{}]", values.join(", "));
    }
    let mut keys: Vec<&str> = Vec::new();
    for (k, _) in kids {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let props = schema.and_then(|s| s.get("properties"));
    let members: Vec<String> = keys
        .iter()
        .map(|k| {
            let sub = props.and_then(|p| p.get(*k));
            let depth = max_depth.saturating_sub(1);
            let mut elements = kids.iter().filter(|(kk, _)| kk == k).map(|(_, c)| c);
            let v = if sub.is_some_and(|s| is_type(s, "array")) {
                // The array in one element, or its items one per element.
                let items = sub.and_then(|s| s.get("items"));
                let first = elements.next().map_or((String::new(), true), |c| {
                    whole_or_item(c, sub, depth, problem)
                });
                let rest: Vec<String> = elements
                    .map(|c| convert(c, items, depth, problem))
                    .collect();
                match first {
                    (whole, true) if rest.is_empty() => whole,
                    (first, _) => {
                        let mut all = vec![first];
                        all.extend(rest);
                        format!("[{}]", all.join(", "))
                    }
                }
            } else {
                let values: Vec<String> =
                    elements.map(|c| convert(c, sub, depth, problem)).collect();
                if values.len() == 1 {
                    values.into_iter().next().unwrap_or_default()
                } else {
                    format!("[{}]", values.join(", "))
                }
            };
            format!("{}: {v}", Value::String((*k).to_owned()))
        })
        .collect();
    format!("{{{}}}", members.join(", "))
}

/// The child elements of `content`, if it is only elements and whitespace.
fn children(content: &str, max_depth: usize) -> Option<Vec<(String, String)>> {
    if max_depth == 0 {
        return None;
    }
    let b = content.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(b, 0);
    while i < b.len() {
        if b[i] != b'<' {
            return None;
        }
        let gt = i + tag_end(&b[i..])?;
        let head = &content[i + 1..gt];
        let name_len = head
            .find(|c: char| c == '/' || c.is_ascii_whitespace())
            .unwrap_or(head.len());
        let name = &head[..name_len];
        if name.is_empty() || name.starts_with(['/', '!', '?']) {
            return None;
        }
        if head.ends_with('/') {
            out.push((name.to_owned(), String::new()));
            i = skip_ws(b, gt + 1);
            continue;
        }
        // Find the matching close, counting nested same-name elements.
        let open = format!("<{name}");
        let mut depth = 0usize;
        let mut j = gt + 1;
        let (end, after) = loop {
            let lt = j + memchr::memchr(b'<', &b[j..])?;
            if let Some(Some(after)) = closes(b, lt, name.as_bytes()) {
                if depth == 0 {
                    break (lt, after);
                }
                depth -= 1;
            } else if content[lt..].starts_with(&open)
                && b.get(lt + open.len())
                    .is_some_and(|&c| c == b'>' || c == b'/' || c.is_ascii_whitespace())
            {
                depth += 1;
            }
            j = lt + 1;
        };
        out.push((name.to_owned(), content[gt + 1..end].to_owned()));
        i = skip_ws(b, after);
    }
    Some(out)
}

/// Decodes the XML entities `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` and
/// numeric references; anything else stays as written.
pub(crate) fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        // Byte search: `;` is ASCII, so the cut is a char boundary.
        let semi = memchr::memchr(b';', &tail.as_bytes()[..tail.len().min(12)]);
        let decoded = semi.and_then(|semi| {
            let entity = &tail[1..semi];
            let c = match entity {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => entity
                    .strip_prefix("#x")
                    .or_else(|| entity.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            }?;
            Some((c, semi + 1))
        });
        match decoded {
            Some((c, used)) => {
                out.push(c);
                rest = &tail[used..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities() {
        assert_eq!(
            decode_entities("a &lt;b&gt; &amp;&amp; &#65;&#x42; &bogus; &"),
            "a <b> && AB &bogus; &"
        );
        // Regression: a multibyte char within the entity window.
        assert_eq!(decode_entities("&amp;é:I=\né"), "&é:I=\né");
        assert_eq!(decode_entities("&éééééééé;"), "&éééééééé;");
    }

    #[test]
    fn nested_children() {
        let kids = children("<a>1</a>\n<b><c>x</c></b><a/>", 8).unwrap();
        assert_eq!(
            kids,
            [
                ("a".into(), "1".into()),
                ("b".into(), "<c>x</c>".into()),
                ("a".into(), String::new())
            ]
        );
        assert!(children("text <a>1</a>", 8).is_none());
    }
}
