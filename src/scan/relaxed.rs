//! Relaxed JSON, as models write it in call bodies, rewritten as JSON.
//!
//! The rewrite goes token by token and keeps every byte that is already JSON
//! as it stands, so JSON text that streamed before the body turned out to be
//! relaxed is still a prefix of the rewritten text.

use std::borrow::Cow;

/// Rewrites relaxed JSON as JSON: single-quoted strings become
/// double-quoted, Python `True` / `False` / `None` become `true` / `false` /
/// `null`, tuples become arrays, unquoted keys are quoted, numbers JSON
/// does not write (`.5`, `+1`, `1.`) are written as JSON, a comma just
/// before a closing bracket is dropped, and raw control characters inside
/// strings are escaped. Nothing else changes. Stops where the outermost bracket of the first value
/// closes, and returns the JSON and how many bytes of `text` were read;
/// `None` when a string is not closed. The result is not checked to be JSON
/// (the caller does that).
pub(crate) fn relax_value(text: &str) -> Option<(String, usize)> {
    relax(text).map(|(json, read, _)| (json, read))
}

/// [`relax_value`] for a value that may end before its closing brackets
/// (`{"a": [1, 2` — a model that stopped early): the brackets still open at
/// the end of `text` are closed (a trailing comma before them dropped). Also
/// returns how many were added.
pub(crate) fn relax_value_closing(text: &str) -> Option<(String, usize, usize)> {
    let (mut json, read, open) = relax(text)?;
    if open.is_empty() {
        return Some((json, read, 0));
    }
    json.truncate(json.trim_end().len());
    if json.ends_with(',') {
        json.pop();
    }
    for &b in open.iter().rev() {
        json.push(if b == b'{' { '}' } else { ']' });
    }
    Some((json, read, open.len()))
}

/// [`relax_value`], with the brackets still open where it stopped.
fn relax(text: &str) -> Option<(String, usize, Vec<u8>)> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    // Open containers, and whether a key may come next.
    let mut open = Vec::new();
    let mut key_next = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' | b'\'' => {
                let end = string_end(bytes, i)?;
                write_string(&mut out, &text[i + 1..end], b);
                i = end + 1;
                key_next = false;
            }
            b'{' | b'[' | b'(' => {
                // A Python tuple is an array.
                let b = if b == b'(' { b'[' } else { b };
                open.push(b);
                key_next = b == b'{';
                out.push(char::from(b));
                i += 1;
            }
            b'}' | b']' | b')' => {
                open.pop();
                key_next = false;
                out.push(if b == b'}' { '}' } else { ']' });
                i += 1;
                if open.is_empty() {
                    break;
                }
            }
            b',' => {
                i += 1;
                let next = i + super::skip_ws(&bytes[i..]);
                if matches!(bytes.get(next), Some(b'}' | b']' | b')')) {
                    // A trailing comma goes with the whitespace after it,
                    // as the JSON automaton drops it.
                    i = next;
                } else {
                    out.push(',');
                    key_next = open.last() == Some(&b'{');
                }
            }
            b':' => {
                out.push(':');
                key_next = false;
                i += 1;
            }
            _ if is_word_byte(b) => {
                let end = i + bytes[i..].iter().take_while(|&&c| is_word_byte(c)).count();
                let word = &text[i..end];
                if key_next {
                    out.push('"');
                    out.push_str(word);
                    out.push('"');
                } else {
                    match word {
                        "True" => out.push_str("true"),
                        "False" => out.push_str("false"),
                        "None" => out.push_str("null"),
                        other => match number(other) {
                            Some(n) => out.push_str(&n),
                            None => out.push_str(other),
                        },
                    }
                }
                i = end;
            }
            _ => {
                // Whitespace, or a character JSON has no use for here (the
                // check of the result refuses it): copied.
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + len]);
                i += len;
            }
        }
    }
    Some((out, i, open))
}

/// `t` as a JSON number: as written if it is one (its digits kept, even
/// beyond `f64`), else as `f64` reads it (`.5`, `+1`, `1.`, `1E5`) when
/// that is finite.
pub(crate) fn number(t: &str) -> Option<Cow<'_, str>> {
    if super::json::is_complete_value(t.as_bytes(), 1)
        && matches!(t.as_bytes().first(), Some(b'-' | b'0'..=b'9'))
        && super::json::all_finite(t.as_bytes())
    {
        return Some(Cow::Borrowed(t));
    }
    let looks_numeric = !t.is_empty()
        && t.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    let x: f64 = t.parse().ok().filter(|_| looks_numeric)?;
    if !x.is_finite() {
        return None;
    }
    serde_json::Number::from_f64(x).map(|n| Cow::Owned(n.to_string()))
}

/// `json` (valid JSON) without the whitespace between its tokens.
pub(crate) fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if !c.is_ascii_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// Bytes of a bare word: a number, a literal, an unquoted key.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'.' | b'$')
}

/// Index of the quote that closes the string opening at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = bytes[start];
    let mut i = start + 1;
    loop {
        match *bytes.get(i)? {
            b'\\' => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
}

/// Writes the content of a string quoted with `quote` as a JSON string.
fn write_string(out: &mut String, content: &str, quote: u8) {
    out.push('"');
    let mut chars = content.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                // `\'` only means something in single quotes.
                Some('\'') => out.push('\''),
                // Python's `\xHH`.
                Some('x') => {
                    let hex: String = chars.clone().take(2).collect();
                    if hex.len() == 2 && hex.chars().all(|h| h.is_ascii_hexdigit()) {
                        out.push_str("\\u00");
                        out.push_str(&hex);
                        chars.nth(1);
                    } else {
                        out.push_str("\\\\x");
                    }
                }
                Some(e @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u')) => {
                    out.push('\\');
                    out.push(e);
                }
                // An escape neither JSON nor Python has (`\d` in a regular
                // expression): a backslash, as Python reads it.
                Some(e) => {
                    out.push_str("\\\\");
                    out.push(e);
                }
                None => out.push_str("\\\\"),
            },
            '"' if quote == b'\'' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::{relax_value, relax_value_closing};

    #[test]
    fn open_brackets_are_closed_at_the_end() {
        let cases = [
            (r#"{"a": {"b": 1}"#, r#"{"a": {"b": 1}}"#, 1),
            ("{'a': [1, 2, ", r#"{"a": [1, 2]}"#, 2),
            (r#"{"a": {"b": [true]"#, r#"{"a": {"b": [true]}}"#, 2),
            (r#"{"a": 1}"#, r#"{"a": 1}"#, 0),
        ];
        for (text, json, added) in cases {
            let (got, read, n) = relax_value_closing(text).expect(text);
            assert_eq!((got.as_str(), read, n), (json, text.len(), added), "{text}");
        }
        // A string cut short is not closed.
        assert_eq!(relax_value_closing(r#"{"a": "b"#), None);
    }

    fn relax_to_json(text: &str) -> Option<String> {
        relax_value(text).map(|(json, _)| json)
    }

    #[test]
    fn python_dicts_become_json() {
        let cases = [
            (
                "{'arguments': {'symbol': 'TSLA', 'exact': True, 'limit': None}, 'name': 'f'}",
                r#"{"arguments": {"symbol": "TSLA", "exact": true, "limit": null}, "name": "f"}"#,
            ),
            ("{'q': 'it\\'s \"x\"'}", r#"{"q": "it's \"x\""}"#),
            (
                "{name: 'f', arguments: {a: [1, 2,],},}",
                r#"{"name": "f", "arguments": {"a": [1, 2]}}"#,
            ),
            ("{\"a\": \"line\nbreak\"}", r#"{"a": "line\nbreak"}"#),
            ("{'a': False, 'b': -1.5e3}", r#"{"a": false, "b": -1.5e3}"#),
            ("{'c': 'a\\x01b\\\\'}", r#"{"c": "a\u0001b\\"}"#),
            // Escapes neither JSON nor Python has stay backslashes.
            (
                "{'re': '\\d+\\.py', 'x': '\\xZ'}",
                r#"{"re": "\\d+\\.py", "x": "\\xZ"}"#,
            ),
        ];
        for (relaxed, json) in cases {
            assert_eq!(relax_to_json(relaxed).as_deref(), Some(json), "{relaxed}");
            assert!(serde_json::from_str::<serde_json::Value>(json).is_ok());
        }
    }

    #[test]
    fn json_stays_byte_for_byte() {
        for json in [
            r#"{"name": "f", "arguments": {"x": [1, {"y": null}], "s": "a\"b\\c\u00e9"}}"#,
            "{ \"a\" :\n\t true }",
            "[]",
        ] {
            assert_eq!(relax_to_json(json).as_deref(), Some(json));
        }
    }

    #[test]
    fn the_first_value_ends_at_its_bracket() {
        let text = "  {'a': [1, {'b': '}'}]} and then {'c': 2}";
        let (json, read) = relax_value(text).unwrap();
        assert_eq!(json, r#"  {"a": [1, {"b": "}"}]}"#);
        assert_eq!(&text[read..], " and then {'c': 2}");
    }

    #[test]
    fn tuples_and_python_numbers() {
        let cases = [
            ("('a', 1)", r#"["a", 1]"#),
            ("{'p': (1, (2, 3),)}", r#"{"p": [1, [2, 3]]}"#),
            (
                "[.5, +1, 1., 1E2, 12345678901234567890]",
                "[0.5, 1.0, 1.0, 1E2, 12345678901234567890]",
            ),
        ];
        for (relaxed, json) in cases {
            assert_eq!(relax_to_json(relaxed).as_deref(), Some(json), "{relaxed}");
        }
        assert_eq!(
            super::compact("{\"a\": [1, \"b c\\\" d\"]}"),
            "{\"a\":[1,\"b c\\\" d\"]}"
        );
    }

    #[test]
    fn unclosed_strings_are_refused() {
        assert_eq!(relax_to_json("{'a': 'b}"), None);
        assert_eq!(relax_to_json("{\"a\": \"b\\\"}"), None);
    }
}
