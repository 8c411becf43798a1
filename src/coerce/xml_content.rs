//! XML content as JSON under a schema, for formats whose parameters hold
//! elements (`<steps><step>…</step></steps>`): repeated children become
//! arrays, nested children objects, text is coerced by its schema with
//! entities decoded.

use serde_json::Value;

use super::{coerce, keyword};
use crate::event::Delta;
use crate::scan::xml::{children, decode_entities, strip_one_newline};

/// A value's JSON text: held inline when short (most are), so a
/// parameter costs no allocation of its own.
pub(crate) type Json = Delta<'static>;

/// The elements of `json` as written, if it is a JSON array (key order
/// and number digits kept).
pub(crate) fn array_items(json: &str) -> Option<Vec<String>> {
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

pub(crate) fn is_type(schema: &Value, ty: &str) -> bool {
    match keyword(schema, "type") {
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
) -> Json {
    // Exactly `"type": "string"`: unions go through coercion (so that
    // `["string", "null"]` can read `None` as null).
    let string_typed = schema.is_some_and(|s| keyword(s, "type").is_some_and(|t| t == "string"));
    if string_typed {
        // Markup stays verbatim, and entities are decoded in it too:
        // models escape `<` and `&` as XML asks, and a file written
        // through the tool must not hold `&lt;`.
        let text = decode_entities(strip_one_newline(content));
        return crate::scan::json::json_string_delta(&text);
    }
    match children(content, max_depth) {
        // One element around a number or a boolean (`<data><item>42</item></data>`).
        Some(kids) if kids.len() == 1 && is_scalar(schema) => {
            convert(&kids[0].1, schema, max_depth.saturating_sub(1), problem)
        }
        Some(kids) if !kids.is_empty() => object_or_array(&kids, schema, max_depth, problem).into(),
        _ => {
            let text = decode_entities(strip_one_newline(content));
            let c = coerce(&text, schema, max_depth);
            if let Some(p) = c.problem {
                problem(p);
            }
            Delta::from(c.json).into_static()
        }
    }
}

/// A child's value as JSON (`None`: an empty element), typed by its
/// parameter's schema (of its items, for a repeated element of a
/// parameter the schema types as an array); `true` when an array-typed
/// value was the whole array.
#[inline]
pub(crate) fn value_json(
    content: Option<&str>,
    schema: Option<&Value>,
    (array_typed, repeated): (bool, bool),
    max_depth: usize,
    report: &mut impl FnMut(String),
) -> (Json, bool) {
    let Some(content) = content else {
        let empty = match schema {
            None => "\"\"",
            Some(s) if is_type(s, "string") => "\"\"",
            Some(_) => "null",
        };
        return (Delta::borrowed(empty), false);
    };
    if array_typed && !repeated {
        return whole_or_item(content, schema, max_depth, report);
    }
    let s = if repeated && array_typed {
        schema.and_then(|s| keyword(s, "items"))
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
) -> (Json, bool) {
    let items = schema.and_then(|s| keyword(s, "items"));
    match children(content, max_depth) {
        // Children named as the properties of an object item are that
        // item (`<step><name>a</name><status>done</status></step>`).
        Some(kids) if !kids.is_empty() && !is_item_of(&kids, items) => (
            object_or_array(&kids, schema, max_depth, problem).into(),
            true,
        ),
        Some(kids) if !kids.is_empty() => {
            let item = object_or_array(&kids, items, max_depth.saturating_sub(1), problem);
            (item.into(), false)
        }
        _ => {
            let text = decode_entities(strip_one_newline(content));
            let whole = coerce(&text, schema, max_depth);
            match whole.problem {
                None => (Delta::from(whole.json).into_static(), true),
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
        .and_then(|s| keyword(s, "properties"))
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
        let items = schema.and_then(|s| keyword(s, "items"));
        let values: Vec<Json> = kids
            .iter()
            .map(|(_, c)| convert(c, items, max_depth.saturating_sub(1), problem))
            .collect();
        return json_array(&values);
    }
    let mut keys: Vec<&str> = Vec::new();
    for (k, _) in kids {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let props = schema.and_then(|s| keyword(s, "properties"));
    let members: Vec<String> = keys
        .iter()
        .map(|k| {
            let sub = props.and_then(|p| p.get(*k));
            let depth = max_depth.saturating_sub(1);
            let mut elements = kids.iter().filter(|(kk, _)| kk == k).map(|(_, c)| c);
            let v = if sub.is_some_and(|s| is_type(s, "array")) {
                // The array in one element, or its items one per element.
                let items = sub.and_then(|s| keyword(s, "items"));
                let first = elements.next().map_or((Json::default(), true), |c| {
                    whole_or_item(c, sub, depth, problem)
                });
                let rest: Vec<Json> = elements
                    .map(|c| convert(c, items, depth, problem))
                    .collect();
                match first {
                    (whole, true) if rest.is_empty() => whole,
                    (first, _) => {
                        let mut all = vec![first];
                        all.extend(rest);
                        json_array(&all).into()
                    }
                }
            } else {
                let values: Vec<Json> = elements.map(|c| convert(c, sub, depth, problem)).collect();
                if values.len() == 1 {
                    values.into_iter().next().unwrap_or_default()
                } else {
                    json_array(&values).into()
                }
            };
            format!("{}: {v}", Value::String((*k).to_owned()))
        })
        .collect();
    format!("{{{}}}", members.join(", "))
}

/// `values`, JSON texts, as one JSON array.
pub(crate) fn json_array(values: &[Json]) -> String {
    let mut array = String::from("[");
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            array.push_str(", ");
        }
        array.push_str(value);
    }
    array.push(']');
    array
}
