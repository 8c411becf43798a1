//! Schema-typed coercion: the raw text an XML-format model wrote for a
//! parameter becomes the JSON value its JSON Schema asks for.
//!
//! Rules (the first that applies wins):
//! - no schema, or a schema without a type: the text as a JSON string
//!   (or, as the format reads such values, see [`Untyped`], the JSON it is);
//! - `anyOf` / `oneOf`: each alternative in order, the first that fits
//!   (but `null` / `None` is null where an alternative allows null);
//! - `enum`: the member that equals the text (strings exactly or, failing
//!   that, with the text's surrounding whitespace trimmed; other members by
//!   their JSON text);
//! - `type` may be a list; each type in order:
//!   `string` keeps the text verbatim (never a number: `"00123"` stays a
//!   string); `integer` / `number` take finite numbers and keep the digits
//!   as written (`9007199254740993` stays exact); `boolean` takes `true` /
//!   `false` in any case (Python's `True` / `False`); `null` takes `null` /
//!   `None`; `array` / `object` take JSON text, or relaxed JSON (single
//!   quotes, trailing commas, Python literals), or either escaped once more
//!   (a JSON string holding it, or the inside of one); `str`, `int`,
//!   `float`, `bool`, `list`, `dict` and the like, which hand-written tool
//!   lists use, name the same types;
//! - local `$ref`s are read as what they point to (see
//!   [`inline_local_refs`], applied once when the parser is built);
//! - nothing fits: `null` / `None` is null, any other text stays a string;
//!   a diagnostic says why.

pub(crate) mod xml_content;

use std::borrow::Cow;

use serde_json::Value;

use crate::scan::json::json_string;

/// A coerced value: its JSON text (borrowed from the raw text where that
/// is already the JSON, as for most integers), and why coercion fell back
/// to a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Coerced<'r> {
    pub(crate) json: Cow<'r, str>,
    pub(crate) problem: Option<String>,
}

/// JSON text: borrowed from the raw text or static where it can be.
type Json<'r> = Cow<'r, str>;

fn string(raw: &str) -> Json<'static> {
    Cow::Owned(json_string(raw))
}

/// What a format makes of a value its schema leaves untyped: no schema
/// for the parameter, or one with none of `type`, `enum`, `anyOf`,
/// `oneOf`, `const`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Untyped {
    /// The text, as a string.
    Text,
    /// JSON, as its tag says (DSML's `string="false"`, where the parameter
    /// has no schema): a string, with a diagnostic, if it is not.
    MarkedJson,
    /// The JSON value (or Python literal) the text is, if it is one, and
    /// the text as a string if not: GLM's template writes every value
    /// that is not a string as JSON, and its own parsers read it back so.
    JsonIfAny,
}

/// Coerces `raw` to `schema` (a property's JSON Schema) as [`coerce`]
/// does, reading an untyped value as `untyped` says.
pub(crate) fn coerce_value<'r>(
    raw: &'r str,
    schema: Option<&Value>,
    untyped: Untyped,
    max_depth: usize,
) -> Coerced<'r> {
    match untyped {
        Untyped::MarkedJson if schema.is_none() => coerce_json(raw, max_depth),
        Untyped::JsonIfAny if !schema.is_some_and(has_constraint) => Coerced {
            json: json_if_any(raw, max_depth),
            problem: None,
        },
        _ => coerce(raw, schema, max_depth),
    }
}

/// Coerces `raw` to `schema` (a property's JSON Schema), nesting at most
/// `max_depth` deep in relaxed JSON.
pub(crate) fn coerce<'r>(raw: &'r str, schema: Option<&Value>, max_depth: usize) -> Coerced<'r> {
    match schema.and_then(|s| try_schema(raw, s, max_depth, 0)) {
        Some(json) => Coerced {
            json,
            problem: None,
        },
        // `null` (Python's `None`) where the schema allows no null: the
        // model meant no value, as the vendors' own parsers read it.
        None if schema.is_some() && as_type(raw, "null", max_depth).is_some() => Coerced {
            json: Cow::Borrowed("null"),
            problem: schema.map(|s| {
                format!(
                    "null where the schema {} allows none; kept as null",
                    truncate(&s.to_string(), 80)
                )
            }),
        },
        None => {
            let problem = schema.filter(|s| has_constraint(s)).map(|s| {
                format!(
                    "{:?} does not fit the schema {}; kept as a string",
                    truncate(raw, 40),
                    truncate(&s.to_string(), 80)
                )
            });
            Coerced {
                json: string(raw),
                problem,
            }
        }
    }
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Local references (`{"$ref": "#/$defs/Unit"}`, as Pydantic writes
/// them) replaced by what they point to, so that coercion sees the types
/// behind them; `None` if `root` has none. Keywords beside a `$ref` are
/// kept where the target lacks them. A reference inside an inlined one is
/// followed at most [`REF_DEPTH`] deep and [`REF_BUDGET`] times in all
/// (recursive schemas): past that it stays, and its values stay strings.
pub(crate) fn inline_local_refs(root: &Value) -> Option<Value> {
    fn has_ref(v: &Value) -> bool {
        match v {
            Value::Object(m) => {
                m.get("$ref")
                    .and_then(Value::as_str)
                    .is_some_and(|r| r.starts_with('#'))
                    || m.values().any(has_ref)
            }
            Value::Array(a) => a.iter().any(has_ref),
            _ => false,
        }
    }
    fn inline(v: &Value, root: &Value, depth: usize, budget: &mut usize) -> Value {
        match v {
            Value::Object(m) => {
                let target = m
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix('#'))
                    .filter(|_| depth < REF_DEPTH && *budget > 0)
                    .and_then(|pointer| root.pointer(pointer));
                if let Some(Value::Object(target)) = target {
                    *budget -= 1;
                    let mut merged = target.clone();
                    for (k, v) in m.iter().filter(|(k, _)| *k != "$ref") {
                        merged.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                    return inline(&Value::Object(merged), root, depth + 1, budget);
                }
                Value::Object(
                    m.iter()
                        .map(|(k, v)| (k.clone(), inline(v, root, depth, budget)))
                        .collect(),
                )
            }
            Value::Array(a) => {
                Value::Array(a.iter().map(|v| inline(v, root, depth, budget)).collect())
            }
            other => other.clone(),
        }
    }
    let mut budget = REF_BUDGET;
    has_ref(root).then(|| inline(root, root, 0, &mut budget))
}

/// How deep references inside inlined references are followed.
const REF_DEPTH: usize = 8;
/// How many references one tool's schema may inline in all.
const REF_BUDGET: usize = 256;

/// `schema[key]` of a schema object. A schema has a handful of keywords:
/// comparing them beats hashing the key.
#[inline(always)]
pub(crate) fn field<'v>(
    schema: &'v serde_json::Map<String, Value>,
    key: &str,
) -> Option<&'v Value> {
    if schema.len() <= 8 {
        for (k, v) in schema {
            if k.len() == key.len() && k == key {
                return Some(v);
            }
        }
        None
    } else {
        schema.get(key)
    }
}

/// [`field`] of a schema that may not be an object.
#[inline]
pub(crate) fn keyword<'v>(schema: &'v Value, key: &str) -> Option<&'v Value> {
    field(schema.as_object()?, key)
}

fn has_constraint(schema: &Value) -> bool {
    ["type", "enum", "anyOf", "oneOf", "const"]
        .iter()
        .any(|k| keyword(schema, k).is_some())
}

/// The one type `schema` names, when that type alone decides how a value
/// is read under it: a `type` string, and no `anyOf`, `oneOf`, `const` or
/// `enum` beside it. [`as_type`] with it then reads a value as
/// [`coerce`] with the schema does, whenever the value fits.
pub(crate) fn one_type(schema: &Value) -> Option<&str> {
    let object = schema.as_object()?;
    let alternatives = ["anyOf", "oneOf", "const", "enum"];
    if alternatives.iter().any(|k| field(object, k).is_some()) {
        return None;
    }
    field(object, "type")?.as_str()
}

/// The JSON text for `raw` under `schema`, or `None` if it does not fit.
fn try_schema<'r>(
    raw: &'r str,
    schema: &Value,
    max_depth: usize,
    level: usize,
) -> Option<Json<'r>> {
    if level > 8 {
        return None;
    }
    let Value::Object(schema) = schema else {
        // `true` / `{}`-like schemas accept anything: keep the text.
        return Some(string(raw));
    };
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alternatives)) = field(schema, key) {
            // `null` first, as for a list of types: `anyOf: [string, null]`
            // reads `null` as null, not as the string "null".
            if let Some(json) = as_type(raw, "null", max_depth) {
                if alternatives.iter().any(|alt| allows_null(alt, level + 1)) {
                    return Some(json);
                }
            }
            return alternatives
                .iter()
                .find_map(|alt| try_schema(raw, alt, max_depth, level + 1));
        }
    }
    if let Some(constant) = field(schema, "const") {
        return member_of(raw, std::slice::from_ref(constant));
    }
    if let Some(Value::Array(members)) = field(schema, "enum") {
        return member_of(raw, members);
    }
    let one_type: [&str; 1];
    let listed: Vec<&str>;
    // One type is the usual case: no list is built for it.
    let types: &[&str] = match field(schema, "type") {
        Some(Value::String(t)) => {
            one_type = [t.as_str()];
            &one_type
        }
        Some(Value::Array(ts)) => {
            listed = ts.iter().filter_map(Value::as_str).collect();
            &listed
        }
        _ if field(schema, "properties").is_some() => &["object"],
        _ if field(schema, "items").is_some() => &["array"],
        _ => return Some(string(raw)),
    };
    // Types in the order written, but `null` first, so that
    // `["string", "null"]` reads `null` as null.
    if types.contains(&"null") {
        if let Some(json) = as_type(raw, "null", max_depth) {
            return Some(json);
        }
    }
    types
        .iter()
        .filter(|t| **t != "null")
        .find_map(|t| as_type(raw, t, max_depth))
}

/// Reads `raw`, which the model marked as JSON (DSML's `string="false"`)
/// where no schema types it: the JSON value it is (numbers keep their
/// digits; relaxed JSON is read as for `array` / `object`), or else the text
/// as a string, with a diagnostic.
pub(crate) fn coerce_json(raw: &str, max_depth: usize) -> Coerced<'_> {
    let t = raw.trim();
    if t.starts_with('"') {
        if let Ok(s) = serde_json::from_str::<String>(t) {
            return Coerced {
                json: string(&s),
                problem: None,
            };
        }
    }
    let json = ["null", "boolean", "number", "array", "object"]
        .iter()
        .find_map(|ty| as_type(raw, ty, max_depth));
    match json {
        Some(json) => Coerced {
            json,
            problem: None,
        },
        None => Coerced {
            json: string(raw),
            problem: Some("marked as JSON but is not; kept as a string".into()),
        },
    }
}

/// The JSON value `raw` is written as, as Python's `json.loads` and then
/// `ast.literal_eval` read it (GLM's own parsers): JSON, `True` / `False`
/// / `None`, relaxed arrays and objects (single quotes, tuples, trailing
/// commas); anything else, `00123` and `TRUE` included, is a string.
fn json_if_any(raw: &str, max_depth: usize) -> Json<'_> {
    let t = raw.trim();
    match t {
        "true" | "True" => return Cow::Borrowed("true"),
        "false" | "False" => return Cow::Borrowed("false"),
        "null" | "None" => return Cow::Borrowed("null"),
        _ => {}
    }
    let json = match t.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<String>(t).ok().map(|s| string(&s)),
        Some(b'[' | b'{' | b'(') => structured_as_written(t, max_depth),
        Some(b'-' | b'0'..=b'9') => {
            let number = crate::scan::json::is_complete_value(t.as_bytes(), 1)
                && crate::scan::json::all_finite(t.as_bytes());
            number.then_some(Cow::Borrowed(t))
        }
        _ => None,
    };
    json.unwrap_or_else(|| string(raw))
}

/// Whether `schema` accepts `null` (by type, enum, const or one of its
/// alternatives).
fn allows_null(schema: &Value, level: usize) -> bool {
    if level > 8 {
        return false;
    }
    let Value::Object(schema) = schema else {
        return schema.as_bool().unwrap_or(false);
    };
    match field(schema, "type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(ts)) if ts.iter().any(|t| t == "null") => return true,
        _ => {}
    }
    if field(schema, "const").is_some_and(Value::is_null) {
        return true;
    }
    if let Some(Value::Array(members)) = field(schema, "enum") {
        return members.iter().any(Value::is_null);
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        matches!(field(schema, key), Some(Value::Array(alts))
            if alts.iter().any(|alt| allows_null(alt, level + 1)))
    })
}

/// The member of an `enum` that `raw` names: one equal to it or, failing
/// that, to it trimmed — a value written on its own, indented line
/// (` celsius\n`) names the member, whose text is what the tool expects.
fn member_of(raw: &str, members: &[Value]) -> Option<Json<'static>> {
    members
        .iter()
        .find_map(|m| matches_member(raw, m))
        .or_else(|| {
            let trimmed = raw.trim();
            (trimmed.len() < raw.len())
                .then(|| members.iter().find_map(|m| matches_member(trimmed, m)))
                .flatten()
        })
}

fn matches_member(raw: &str, member: &Value) -> Option<Json<'static>> {
    match member {
        Value::String(s) => (s == raw).then(|| string(raw)),
        other => {
            let text = other.to_string();
            let trimmed = raw.trim();
            let same = trimmed == text
                || (other.is_boolean() && trimmed.eq_ignore_ascii_case(&text))
                || (other.is_null() && trimmed == "None")
                || (other.is_number()
                    && crate::scan::relaxed::number(trimmed)
                        .is_some_and(|n| n.parse::<f64>().ok() == other.as_f64()));
            same.then_some(Cow::Owned(text))
        }
    }
}

pub(crate) fn as_type<'r>(raw: &'r str, ty: &str, max_depth: usize) -> Option<Json<'r>> {
    let t = crate::scan::trim(raw);
    // The JSON Schema names, and the names hand-written tool lists use
    // for them (Python's and C's).
    match ty {
        "string" | "str" | "text" => Some(string(raw)),
        "integer" | "int" | "long" => integer(t),
        "number" | "float" | "double" => crate::scan::relaxed::number(t),
        "boolean" | "bool" => {
            if t.eq_ignore_ascii_case("true") {
                Some(Cow::Borrowed("true"))
            } else if t.eq_ignore_ascii_case("false") {
                Some(Cow::Borrowed("false"))
            } else {
                None
            }
        }
        "null" => (t == "null" || t == "None").then_some(Cow::Borrowed("null")),
        "array" | "list" => structured(t, max_depth).filter(|v| v.starts_with('[')),
        "object" | "dict" => structured(t, max_depth).filter(|v| v.starts_with('{')),
        _ => None,
    }
}

/// An integer as written (sign and leading zeros normalised), or a number
/// whose fraction is all zeros.
fn integer(t: &str) -> Option<Json<'_>> {
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    // A byte search: `split_once`'s char searcher costs more than the
    // few digits.
    let (int, frac) = match digits.bytes().position(|b| b == b'.') {
        Some(dot) => (&digits[..dot], &digits[dot + 1..]),
        None => (digits, ""),
    };
    let valid = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b == b'0');
    if !valid {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    Some(if neg && int != "0" {
        if t.len() == int.len() + 1 {
            // `-` and the digits, as written.
            Cow::Borrowed(t)
        } else {
            Cow::Owned(format!("-{int}"))
        }
    } else {
        Cow::Borrowed(int)
    })
}

/// JSON text of an array or object: the text itself if it is JSON, else
/// relaxed JSON re-serialised. Failing both, the text may be that JSON
/// escaped once more, as models write it now and then: a JSON string
/// (`"[1, 2]"`) or the inside of one (`[{\"id\": \"1\"}]`).
fn structured(t: &str, max_depth: usize) -> Option<Json<'_>> {
    let is_structure = |json: &Json<'_>| json.starts_with(['[', '{']);
    let as_written = structured_as_written(t, max_depth).filter(is_structure);
    as_written.or_else(|| {
        let inner = if t.starts_with('"') {
            serde_json::from_str::<String>(t).ok()?
        } else if t.contains("\\\"") {
            serde_json::from_str::<String>(&format!("\"{t}\"")).ok()?
        } else {
            return None;
        };
        structured_as_written(inner.trim(), max_depth)
            .map(|json| Cow::Owned(json.into_owned()))
            .filter(is_structure)
    })
}

/// (A value with a number no double holds, `[1e999]`, is none: see
/// [`all_finite`](crate::scan::json::all_finite).)
fn structured_as_written(t: &str, max_depth: usize) -> Option<Json<'_>> {
    use crate::scan::json::{all_finite, is_complete_value};
    if is_complete_value(t.as_bytes(), max_depth) {
        return all_finite(t.as_bytes()).then_some(Cow::Borrowed(t));
    }
    let (json, read) = crate::scan::relaxed::relax_value(t)?;
    let whole = t[read..].trim().is_empty();
    (whole && is_complete_value(json.as_bytes(), max_depth) && all_finite(json.as_bytes()))
        .then(|| Cow::Owned(crate::scan::relaxed::compact(&json)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn c(raw: &str, schema: Value) -> String {
        coerce(raw, Some(&schema), 16).json.into_owned()
    }

    /// A value read by the one type its schema names is what the whole
    /// schema reads it as, whenever it fits that type; schemas whose
    /// alternatives decide too name no one type.
    #[test]
    fn one_type_reads_as_the_schema_does() {
        let schemas = [
            json!({"type": "integer"}),
            json!({"type": "number", "description": "a count"}),
            json!({"type": "boolean"}),
            json!({"type": "null"}),
            json!({"type": "string"}),
            json!({"type": "array", "items": {"type": "integer"}}),
            json!({"type": "object"}),
            json!({"type": "int"}),
        ];
        let raws = [
            "4",
            " 42 ",
            "-1.5e3",
            "1e999",
            "true",
            "False",
            "null",
            "None",
            "[1, 2]",
            "{\"a\": 1}",
            "{'a': 1}",
            "text",
            "",
            "\"quoted\"",
            "0x10",
            "東京",
        ];
        let mut read = 0;
        for schema in &schemas {
            let ty = one_type(schema).expect("one type");
            for raw in raws {
                if let Some(json) = as_type(raw, ty, 16) {
                    read += 1;
                    let whole = coerce(raw, Some(schema), 16);
                    assert_eq!(json, whole.json, "{raw:?} under {schema}");
                    assert_eq!(whole.problem, None, "{raw:?} under {schema}");
                }
            }
        }
        // Every schema reads some of the values.
        assert!(read >= schemas.len() * 2, "{read}");
        for schema in [
            json!({"type": "string", "enum": ["c", "f"]}),
            json!({"type": "integer", "const": 3}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!({"type": ["integer", "null"]}),
            json!({"oneOf": [{"type": "integer"}], "type": "integer"}),
            json!({"properties": {}}),
            json!(true),
        ] {
            assert_eq!(one_type(&schema), None, "{schema}");
        }
    }

    /// Values whose JSON is their text (trimmed) are lent, not copied: a
    /// typed parameter costs no allocation.
    #[test]
    fn values_written_as_json_are_borrowed() {
        let lent = |raw: &str, schema: Value| {
            matches!(coerce(raw, Some(&schema), 16).json, Cow::Borrowed(_))
        };
        assert!(lent(" 42\n", json!({"type": "integer"})));
        assert!(lent("-7", json!({"type": "integer"})));
        assert!(lent("3.0", json!({"type": "integer"})));
        assert!(lent("2.5", json!({"type": ["number", "null"]})));
        assert!(lent("True", json!({"type": "boolean"})));
        assert!(lent(
            "None",
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        ));
        assert!(lent("[1, 2]", json!({"type": "array"})));
        // Rewritten: copies.
        assert!(!lent("-007", json!({"type": "integer"})));
        assert!(!lent("[1, 2,]", json!({"type": "array"})));
        assert!(!lent("text", json!({"type": "string"})));
        assert_eq!(c("-007", json!({"type": "integer"})), "-7");
        assert_eq!(c("-0", json!({"type": "integer"})), "0");
        assert_eq!(c("+5", json!({"type": "integer"})), "5");
    }

    #[test]
    fn scalars() {
        assert_eq!(c("3", json!({"type": "integer"})), "3");
        assert_eq!(c(" 007 ", json!({"type": "integer"})), "7");
        assert_eq!(c("3.0", json!({"type": "integer"})), "3");
        assert_eq!(
            c("9007199254740993", json!({"type": "integer"})),
            "9007199254740993"
        );
        assert_eq!(c("2.50", json!({"type": "number"})), "2.50");
        assert_eq!(c(".5", json!({"type": "number"})), "0.5");
        assert_eq!(c("inf", json!({"type": "number"})), "\"inf\"");
        assert_eq!(c("NaN", json!({"type": "number"})), "\"NaN\"");
        assert_eq!(c("True", json!({"type": "boolean"})), "true");
        assert_eq!(c("false", json!({"type": "boolean"})), "false");
        assert_eq!(c("None", json!({"type": ["string", "null"]})), "null");
        assert_eq!(c("00123", json!({"type": "string"})), "\"00123\"");
        assert_eq!(c("12", json!({})), "\"12\"");
        // Type names of hand-written tool lists.
        assert_eq!(c("3.5", json!({"type": "float"})), "3.5");
        assert_eq!(c("7", json!({"type": "int"})), "7");
        assert_eq!(c("True", json!({"type": "bool"})), "true");
        assert_eq!(c("['a']", json!({"type": "list"})), r#"["a"]"#);
    }

    #[test]
    fn structures_enums_and_unions() {
        assert_eq!(c("[1, 2]", json!({"type": "array"})), "[1, 2]");
        assert_eq!(
            c(
                "{'a': True, 'b': [1, 2,], 'c': None,}",
                json!({"type": "object"})
            ),
            r#"{"a":true,"b":[1,2],"c":null}"#
        );
        assert_eq!(
            c("celsius", json!({"enum": ["celsius", "fahrenheit"]})),
            "\"celsius\""
        );
        assert_eq!(c("2", json!({"enum": [1, 2, 3]})), "2");
        // Whitespace around a member's name is the layout's, not the value's.
        assert_eq!(
            c(" celsius\n", json!({"enum": ["celsius", "fahrenheit"]})),
            "\"celsius\""
        );
        assert_eq!(c(" c ", json!({"enum": ["c", " c "]})), "\" c \"");
        assert_eq!(c(" c ", json!({"const": "c"})), "\"c\"");
        // Escapes read as JSON and Python read them; a backslash that begins
        // none stays (a regular expression, a Windows path).
        let read: Value = serde_json::from_str(&c(
            r#"["\d+", "C:\Users", 'a\tb\x41\'', "\b\f\/\u00e9"]"#,
            json!({"type": "array"}),
        ))
        .unwrap();
        assert_eq!(read, json!(["\\d+", "C:\\Users", "a\tbA'", "\u{8}\u{c}/é"]));
        // Structures escaped once more: a JSON string, or its inside.
        assert_eq!(c(r#""[1, 2]""#, json!({"type": "array"})), "[1, 2]");
        assert_eq!(
            c(
                r#"[{\"id\": \"1\", \"p\": \"C:\\\\x\"}]"#,
                json!({"type": "array"})
            ),
            r#"[{"id": "1", "p": "C:\\x"}]"#
        );
        assert_eq!(c(r#""abc""#, json!({"type": "array"})), r#""\"abc\"""#);
        // `null` before the alternatives' order, where one allows it.
        let nullable = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        assert_eq!(c("null", nullable.clone()), "null");
        assert_eq!(c("hi", nullable), "\"hi\"");
        assert_eq!(
            c(
                "null",
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
            ),
            "\"null\""
        );
        assert_eq!(
            c(
                "42",
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
            ),
            "42"
        );
        assert_eq!(
            c(
                "abc",
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
            ),
            "\"abc\""
        );
    }

    #[test]
    fn local_refs_are_inlined() {
        let root = json!({
            "type": "object",
            "properties": {
                "unit": {"$ref": "#/$defs/Unit", "description": "unit"},
                "days": {"$ref": "#/definitions/Days"},
                "tree": {"$ref": "#/$defs/Node"},
                "far": {"$ref": "https://example.com/schema"}
            },
            "$defs": {
                "Unit": {"enum": ["c", "f"], "type": "string"},
                "Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
            },
            "definitions": {"Days": {"type": "integer"}}
        });
        let inlined = inline_local_refs(&root).expect("has refs");
        let days = &inlined["properties"]["days"];
        assert_eq!(c("3", days.clone()), "3");
        assert_eq!(inlined["properties"]["unit"]["description"], "unit");
        assert_eq!(c("c", inlined["properties"]["unit"].clone()), "\"c\"");
        // A recursive schema is inlined a bounded number of levels.
        assert!(inlined.to_string().len() < 100_000);
        // Remote references stay as they are.
        assert_eq!(
            inlined["properties"]["far"]["$ref"],
            "https://example.com/schema"
        );
        assert!(inline_local_refs(&json!({"properties": {"a": {"type": "integer"}}})).is_none());
    }

    #[test]
    fn misfits_stay_strings_with_a_reason() {
        let r = coerce("three", Some(&json!({"type": "integer"})), 16);
        assert_eq!(r.json, "\"three\"");
        assert!(r.problem.is_some());
        let r = coerce("kelvin", Some(&json!({"enum": ["celsius"]})), 16);
        assert_eq!(r.json, "\"kelvin\"");
        assert!(r.problem.is_some());
    }

    /// A number no double holds is no JSON a reader takes (serde_json
    /// refuses it, Python makes it infinite): the text stays a string, as
    /// vLLM's and SGLang's coercions keep it; a finite one is coerced.
    #[test]
    fn numbers_past_a_double_stay_strings() {
        for (raw, ty) in [
            ("1e999", "number"),
            ("-1e999", "number"),
            ("inf", "number"),
            ("NaN", "number"),
            ("[1, 2, 1e999]", "array"),
            ("{\"x\": 1e999}", "object"),
            ("(1e999,)", "array"),
            ("{'x': 1e999}", "object"),
        ] {
            let r = coerce(raw, Some(&json!({"type": ty})), 16);
            assert_eq!(r.json, serde_json::to_string(raw).unwrap(), "{raw}");
            assert!(r.problem.is_some(), "{raw}");
            assert_eq!(
                coerce(raw, None, 16).json,
                serde_json::to_string(raw).unwrap()
            );
        }
        for (raw, ty, json) in [
            ("1e308", "number", "1e308"),
            ("[1, \"1e999\", 2.5]", "array", "[1, \"1e999\", 2.5]"),
            (
                "123456789012345678901234567890",
                "integer",
                "123456789012345678901234567890",
            ),
        ] {
            assert_eq!(coerce(raw, Some(&json!({"type": ty})), 16).json, json);
        }
    }

    /// `null` where the schema allows none is null (what the model meant),
    /// with a diagnostic; a string schema keeps the text.
    #[test]
    fn null_for_a_type_without_null_is_null() {
        for (raw, schema) in [
            ("null", json!({"type": "integer"})),
            ("None", json!({"type": "object"})),
            ("\nnull\n", json!({"enum": ["a", "b"]})),
        ] {
            let r = coerce(raw, Some(&schema), 16);
            assert_eq!(r.json, "null", "{raw:?}");
            assert!(r.problem.is_some(), "{raw:?}");
        }
        assert_eq!(c("null", json!({"type": "string"})), "\"null\"");
        assert_eq!(c("nullable", json!({"type": "integer"})), "\"nullable\"");
        let nullable = coerce("None", Some(&json!({"type": ["integer", "null"]})), 16);
        assert_eq!((nullable.json.as_ref(), nullable.problem), ("null", None));
    }

    /// GLM's untyped values read as its own parsers read them (JSON, then
    /// a Python literal, then the text); a type in the schema still rules.
    #[test]
    fn untyped_values_read_as_json_if_they_are() {
        let untyped = |raw: &str, schema: Option<Value>| {
            let r = coerce_value(raw, schema.as_ref(), Untyped::JsonIfAny, 16);
            assert!(r.problem.is_none(), "{raw:?}: {:?}", r.problem);
            r.json.into_owned()
        };
        for (raw, json) in [
            ("42", "42"),
            (" -1.5e3\n", "-1.5e3"),
            ("true", "true"),
            ("True", "true"),
            ("None", "null"),
            ("\"7\"", "\"7\""),
            ("[1, 2.5, null]", "[1, 2.5, null]"),
            ("{'a': (1, 2), 'b': False}", "{\"a\":[1,2],\"b\":false}"),
            // Not JSON, nor a Python literal: the text.
            ("00123", "\"00123\""),
            ("TRUE", "\"TRUE\""),
            ("[1, 2", "\"[1, 2\""),
            ("Paris", "\"Paris\""),
            ("\"[1]\"", "\"[1]\""),
            ("", "\"\""),
        ] {
            assert_eq!(untyped(raw, None), json, "{raw:?}");
            assert_eq!(
                untyped(raw, Some(json!({"description": "d"}))),
                json,
                "{raw:?}"
            );
        }
        assert_eq!(untyped("42", Some(json!({"type": "string"}))), "\"42\"");
        assert_eq!(untyped("7", Some(json!({"type": "integer"}))), "7");
        // The other readings keep the text of an untyped value.
        assert_eq!(coerce_value("42", None, Untyped::Text, 16).json, "\"42\"");
        let marked = coerce_value("Paris", None, Untyped::MarkedJson, 16);
        assert!(marked.problem.is_some());
    }
}
