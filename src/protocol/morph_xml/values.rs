//! A parameter's content as JSON: by its schema, repeated children as
//! arrays, nested children as objects, entities decoded.

use serde_json::Value;

use super::tags::{closes, tag_end};
use crate::coerce::coerce;
use crate::protocol::xml::{skip_ws, strip_one_newline};

/// A parameter read and not yet sent.
#[derive(Debug, Clone)]
pub(super) struct Param {
    pub(super) key: String,
    /// Its values' JSON: one, or the elements of an array.
    pub(super) values: Vec<String>,
    /// Whether a single value stands alone (not an element of an array).
    pub(super) single: bool,
    pub(super) array_typed: bool,
}

impl Param {
    /// The parameter's JSON.
    pub(super) fn json(self) -> String {
        match <[String; 1]>::try_from(self.values) {
            Ok([value]) if self.single => value,
            Ok([value]) => format!("[{value}]"),
            Err(values) => format!("[{}]", values.join(", ")),
        }
    }

    /// Adds an element; a whole array given before becomes its elements.
    pub(super) fn push(&mut self, json: String) {
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
pub(super) fn array_items(json: &str) -> Option<Vec<String>> {
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

pub(super) fn is_type(schema: &Value, ty: &str) -> bool {
    match crate::coerce::keyword(schema, "type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == ty),
        _ => false,
    }
}

/// XML content to JSON text under `schema`.
pub(super) fn convert(
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
        return crate::scan::json::json_string(&text);
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
            c.json.into_owned()
        }
    }
}

/// A child's value as JSON (`None`: an empty element), typed by its
/// parameter's schema (of its items, for a repeated element of a
/// parameter the schema types as an array); `true` when an array-typed
/// value was the whole array.
#[inline]
pub(super) fn value_json(
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
pub(super) fn whole_or_item(
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
                None => (whole.json.into_owned(), true),
                Some(_) => (convert(content, items, max_depth, problem), false),
            }
        }
    }
}

/// Whether `schema` asks for a number, an integer or a boolean.
pub(super) fn is_scalar(schema: Option<&Value>) -> bool {
    schema.is_some_and(|s| {
        ["number", "integer", "boolean"]
            .iter()
            .any(|t| is_type(s, t))
    })
}

/// Whether `kids` are the members of one item under `items`: an object
/// schema that has every one of their names as a property.
pub(super) fn is_item_of(kids: &[(String, String)], items: Option<&Value>) -> bool {
    let Some(props) = items
        .filter(|s| is_type(s, "object"))
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return false;
    };
    kids.iter().all(|(k, _)| props.contains_key(k))
}

pub(super) fn object_or_array(
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
pub(super) fn children(content: &str, max_depth: usize) -> Option<Vec<(String, String)>> {
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
