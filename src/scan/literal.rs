//! Argument values that are not JSON, turned into JSON: Python literals
//! (`'it''s'`, `True`, `None`, `(1, 2)`, `{'a': 1}`) and Gemma's
//! (`<|"|>text<|"|>` in Gemma 4, `<escape>text<escape>` in FunctionGemma,
//! bare keys `{a:1}`, and now and then a string without its quotes,
//! `unit:celsius`). Numbers keep their digits (a big integer
//! stays exact). Recursion is bounded by the nesting limit.

use super::json::{escape_json_char_into, escape_json_into};

/// Which literal syntax a value is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    Python,
    /// Gemma's `{key:value}`, with the tokens of one model.
    Gemma(&'static GemmaTokens),
}

/// The tokens that tell one Gemma model's calls from another's.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct GemmaTokens {
    /// What opens and closes a string; it begins with `<`.
    pub(crate) quote: &'static [u8],
    /// What ends a call: its end token, then the end of the turn written
    /// in its place.
    pub(crate) ends: &'static [&'static [u8]],
    /// Whether a quoted argument that spells a JSON number, `true`,
    /// `false` or `null` is that value unless its schema says string
    /// (FunctionGemma quotes them now and then; vLLM's parser reads them
    /// so).
    pub(crate) scalars_in_quotes: bool,
}

/// Gemma 4: `<|tool_call>call:f{city:<|"|>Paris<|"|>}<tool_call|>`.
pub(crate) const GEMMA4: GemmaTokens = GemmaTokens {
    quote: b"<|\"|>",
    ends: &[b"<tool_call|>", b"<turn|>"],
    scalars_in_quotes: false,
};

/// FunctionGemma: `<start_function_call>call:f{city:<escape>Paris<escape>}<end_function_call>`.
pub(crate) const FUNCTION_GEMMA: GemmaTokens = GemmaTokens {
    quote: b"<escape>",
    ends: &[b"<end_function_call>", b"<end_of_turn>"],
    scalars_in_quotes: true,
};

/// The longest string quote of any Gemma model.
pub(crate) const QUOTE_MAX: usize = {
    let (a, b) = (GEMMA4.quote.len(), FUNCTION_GEMMA.quote.len());
    if a > b {
        a
    } else {
        b
    }
};

/// The JSON scalar a quoted Gemma value spells (`<escape>42<escape>`:
/// `42`), when its syntax reads such values so; `None` otherwise.
pub(crate) fn quoted_scalar(syntax: Syntax, value: &[u8]) -> Option<&str> {
    let Syntax::Gemma(tokens) = syntax else {
        return None;
    };
    if !tokens.scalars_in_quotes {
        return None;
    }
    let inner = value
        .trim_ascii()
        .strip_prefix(tokens.quote)?
        .strip_suffix(tokens.quote)?
        .trim_ascii();
    if inner.is_empty() {
        return None;
    }
    let text = std::str::from_utf8(inner).ok()?;
    let scalar = matches!(text, "true" | "false" | "null") || is_json_number(text);
    scalar.then_some(text)
}

/// Whether `text` is a JSON number a double holds (`1e999` is not).
fn is_json_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    matches!(bytes.first(), Some(b'-' | b'0'..=b'9'))
        && super::json::is_complete_value(bytes, 1)
        && finite(text).is_ok()
}

impl Syntax {
    /// Gemma's string quote; `None` for Python.
    #[inline]
    pub(crate) const fn gemma_quote(self) -> Option<&'static [u8]> {
        match self {
            Syntax::Python => None,
            Syntax::Gemma(tokens) => Some(tokens.quote),
        }
    }
}

/// Why a value could not be turned into JSON.
pub(crate) type Invalid = &'static str;

/// `text`, one complete value, as JSON text.
///
/// # Complexity
///
/// O(`text.len()`); nesting deeper than `max_depth` is refused.
#[cfg(test)]
pub(crate) fn to_json(syntax: Syntax, text: &[u8], max_depth: usize) -> Result<String, Invalid> {
    let mut out = String::new();
    to_json_into(syntax, text, max_depth, &mut out)?;
    Ok(out)
}

/// `text` as JSON, appended to `out` (which holds a prefix of the
/// value's JSON when it fails). `Ok(true)` when a Gemma 4 value in it was
/// bare text read as a string (see [`Reader::gemma_bare`]): a caller says
/// so in a diagnostic.
pub(crate) fn to_json_into(
    syntax: Syntax,
    text: &[u8],
    max_depth: usize,
    out: &mut String,
) -> Result<bool, Invalid> {
    out.reserve(text.len() + 2);
    // Once for the whole value: the pieces are then cut at ASCII bytes.
    let source = crate::scan::utf8::validate(text).map_err(|()| "invalid UTF-8")?;
    let mut reader = Reader {
        syntax,
        source,
        text,
        at: 0,
        max_depth,
        out,
        bare: false,
    };
    reader.value(0)?;
    reader.skip_ws();
    if reader.at != text.len() {
        return Err("unexpected characters after the value");
    }
    Ok(reader.bare)
}

struct Reader<'t, 'o> {
    syntax: Syntax,
    /// The value's text, and the same as bytes.
    source: &'t str,
    text: &'t [u8],
    at: usize,
    max_depth: usize,
    out: &'o mut String,
    /// A Gemma 4 value was bare text, read as a string.
    bare: bool,
}

/// What a Python escape stands for, by the byte after its backslash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PythonEscape {
    /// One character: `\n`, `\'`, `\\` and the like.
    Char(char),
    /// A backslash at the end of a line: nothing.
    LineContinuation,
    /// `\x`, `\u`, `\U`: a code point in this many hex digits.
    Hex(usize),
    /// Not an escape: Python keeps the backslash and what follows.
    Unknown,
}

/// The escape whose letter (the byte after the backslash) is `letter`.
pub(crate) fn python_escape(letter: u8) -> PythonEscape {
    let c = match letter {
        b'n' => '\n',
        b't' => '\t',
        b'r' => '\r',
        b'0' => '\0',
        b'a' => '\x07',
        b'b' => '\x08',
        b'f' => '\x0c',
        b'v' => '\x0b',
        b'\\' | b'\'' | b'"' => char::from(letter),
        b'\n' => return PythonEscape::LineContinuation,
        b'x' => return PythonEscape::Hex(2),
        b'u' => return PythonEscape::Hex(4),
        b'U' => return PythonEscape::Hex(8),
        _ => return PythonEscape::Unknown,
    };
    PythonEscape::Char(c)
}

/// Appends `text` as a JSON string.
fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    escape_json_into(out, text);
    out.push('"');
}

impl<'t> Reader<'t, '_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(super::is_ws) {
            self.at += 1;
        }
    }

    fn rest(&self) -> &'t [u8] {
        &self.text[self.at..]
    }

    /// The next `n` bytes as text: they end before an ASCII byte (or at
    /// the end), so on a character boundary.
    fn piece(&self, n: usize) -> &'t str {
        &self.source[self.at..self.at + n]
    }

    fn value(&mut self, depth: usize) -> Result<(), Invalid> {
        self.skip_ws();
        let quote = self.syntax.gemma_quote();
        let gemma = quote.is_some();
        let Some(b) = self.peek() else {
            return match gemma {
                true => self.gemma_bare(),
                false => Err("a value is missing"),
            };
        };
        if let Some(quote) = quote.filter(|q| self.rest().starts_with(q)) {
            return self.gemma_string(quote);
        }
        match b {
            b'"' | b'\'' if self.syntax == Syntax::Python => self.python_string(),
            b'[' => self.sequence(b']', depth),
            b'(' if self.syntax == Syntax::Python => self.sequence(b')', depth),
            b'{' => self.mapping(depth),
            b'-' | b'+' | b'.' | b'0'..=b'9' if gemma => self.gemma_number(),
            _ if gemma => self.gemma_bare(),
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(),
            _ => self.word(),
        }
    }

    /// A Gemma 4 value that begins as a number does: the number, if it
    /// is one up to the `,`, `}` or `]` after it (the usual case, read
    /// without [`gemma_bare`](Self::gemma_bare)'s second look), and
    /// otherwise the bare text it begins (`2024-01-15`).
    fn gemma_number(&mut self) -> Result<(), Invalid> {
        let (at, written) = (self.at, self.out.len());
        if self.number().is_ok() {
            let next = self.rest().iter().find(|&&b| !super::is_ws(b));
            if matches!(next, None | Some(b',' | b'}' | b']')) {
                return Ok(());
            }
        }
        self.at = at;
        self.out.truncate(written);
        self.gemma_bare()
    }

    /// A Gemma 4 value without quotes, up to the `,`, `}` or `]` after it:
    /// a number, `true`, `false` or `null` if it spells one, and otherwise
    /// the text it spells, trimmed, as a string — the model left the
    /// quotes out (`unit:celsius`, `date:2024-01-15`), as vLLM's and
    /// SGLang's parsers read it. Nothing at all is the empty string.
    fn gemma_bare(&mut self) -> Result<(), Invalid> {
        let n = self
            .rest()
            .iter()
            .position(|b| matches!(b, b',' | b'}' | b']'))
            .unwrap_or(self.rest().len());
        let run = self.piece(n);
        self.at += n;
        let text = run.trim_ascii();
        if !text.is_empty() {
            let mut literal = Reader {
                syntax: self.syntax,
                source: text,
                text: text.as_bytes(),
                at: 0,
                max_depth: self.max_depth,
                out: &mut *self.out,
                bare: false,
            };
            let before = literal.out.len();
            let read = match text.as_bytes()[0] {
                b'-' | b'+' | b'.' | b'0'..=b'9' => literal.number(),
                _ => literal.word(),
            };
            if read.is_ok() && literal.at == text.len() {
                return Ok(());
            }
            self.out.truncate(before);
        }
        self.bare = true;
        push_json_string(self.out, text);
        Ok(())
    }

    fn deeper(&self, depth: usize) -> Result<usize, Invalid> {
        if depth >= self.max_depth {
            return Err("nested too deep");
        }
        Ok(depth + 1)
    }

    fn sequence(&mut self, close: u8, depth: usize) -> Result<(), Invalid> {
        let depth = self.deeper(depth)?;
        self.at += 1;
        self.out.push('[');
        let mut first = true;
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.at += 1;
                self.out.push(']');
                return Ok(());
            }
            if !first {
                self.out.push_str(", ");
            }
            self.value(depth)?;
            first = false;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(c) if c == close => {}
                _ => return Err("expected ',' or the end of a list"),
            }
        }
    }

    fn mapping(&mut self, outer: usize) -> Result<(), Invalid> {
        let depth = self.deeper(outer)?;
        let (start, written) = (self.at, self.out.len());
        self.at += 1;
        self.out.push('{');
        let mut first = true;
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.at += 1;
                self.out.push('}');
                return Ok(());
            }
            if !first {
                self.out.push_str(", ");
            }
            self.key()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                // Python's set, `{'urgent', 'bug'}`: a list in JSON.
                if first && self.syntax == Syntax::Python {
                    self.at = start;
                    self.out.truncate(written);
                    return self.sequence(b'}', outer);
                }
                return Err("expected ':' after a key");
            }
            self.at += 1;
            self.out.push_str(": ");
            self.value(depth)?;
            first = false;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {}
                _ => return Err("expected ',' or '}'"),
            }
        }
    }

    /// A mapping's key: a string, or (Gemma 4) a bare word; numbers and
    /// words become strings, as JSON keys must be.
    fn key(&mut self) -> Result<(), Invalid> {
        let quoted = match self.syntax {
            Syntax::Python => matches!(self.peek(), Some(b'"' | b'\'')),
            Syntax::Gemma(tokens) => self.rest().starts_with(tokens.quote),
        };
        if quoted {
            return self.value(0);
        }
        let n = self.rest().iter().take_while(|&&b| is_word(b)).count();
        if n == 0 {
            return Err("expected a key");
        }
        let word = self.piece(n);
        push_json_string(self.out, word);
        self.at += n;
        Ok(())
    }

    fn gemma_string(&mut self, quote: &[u8]) -> Result<(), Invalid> {
        self.at += quote.len();
        let Some(n) = memchr::memmem::find(self.rest(), quote) else {
            return Err("a string is not closed");
        };
        let text = self.piece(n);
        push_json_string(self.out, text);
        self.at += n + quote.len();
        Ok(())
    }

    fn python_string(&mut self) -> Result<(), Invalid> {
        let quote = self.text[self.at];
        let triple = [quote; 3];
        let long = self.rest().starts_with(&triple);
        self.at += if long { 3 } else { 1 };
        self.out.push('"');
        loop {
            // Plain bytes up to the next quote or backslash go in at once
            // (whole characters: both are ASCII).
            let run =
                crate::scan::find_byte2(quote, b'\\', self.rest()).unwrap_or(self.rest().len());
            let text = self.piece(run);
            escape_json_into(self.out, text);
            self.at += run;
            let Some(b) = self.peek() else {
                return Err("a string is not closed");
            };
            self.at += 1;
            if b == quote {
                if !long || self.rest().starts_with(&triple[1..]) {
                    self.at += if long { 2 } else { 0 };
                    break;
                }
                escape_json_char_into(self.out, char::from(quote));
                continue;
            }
            let Some(e) = self.peek() else {
                return Err("a string is not closed");
            };
            self.at += 1;
            let c = match python_escape(e) {
                PythonEscape::Char(c) => c,
                PythonEscape::LineContinuation => continue,
                PythonEscape::Hex(digits) => self.code_point(digits)?,
                // Python keeps an unknown escape as written: the backslash
                // here, what follows with the next run.
                PythonEscape::Unknown => {
                    self.at -= 1;
                    '\\'
                }
            };
            escape_json_char_into(self.out, c);
        }
        self.out.push('"');
        Ok(())
    }

    fn code_point(&mut self, digits: usize) -> Result<char, Invalid> {
        let hex = self.rest().get(..digits).ok_or("a short escape")?;
        let hex = std::str::from_utf8(hex).map_err(|_| "a bad escape")?;
        let c = u32::from_str_radix(hex, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or("a bad escape")?;
        self.at += digits;
        Ok(c)
    }

    /// A number, its digits kept: `+` and `_` dropped, `.5` and `5.` given
    /// the zero JSON wants, hexadecimal, octal and binary integers in
    /// decimal.
    fn number(&mut self) -> Result<(), Invalid> {
        let n = self
            .rest()
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_'))
            .count();
        let written = &self.rest()[..n];
        // Most numbers are JSON already.
        let plain = written
            .iter()
            .all(|&b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
        if plain && crate::scan::json::is_complete_value(written, 1) {
            let text = self.piece(n);
            finite(text)?;
            self.out.push_str(text);
            self.at += n;
            return Ok(());
        }
        let raw: String = self.piece(n).chars().filter(|&c| c != '_').collect();
        self.at += n;
        let (sign, digits) = match raw.strip_prefix('-') {
            Some(d) => ("-", d),
            None => ("", raw.strip_prefix('+').unwrap_or(&raw)),
        };
        let radix = match digits.get(..2) {
            Some("0x" | "0X") => Some(16),
            Some("0o" | "0O") => Some(8),
            Some("0b" | "0B") => Some(2),
            _ => None,
        };
        if let Some(radix) = radix {
            let v = u128::from_str_radix(&digits[2..], radix).map_err(|_| "a bad number")?;
            self.out.push_str(sign);
            self.out.push_str(&v.to_string());
            return Ok(());
        }
        // A zero-padded integer part (`month=07`, which Python refuses)
        // is the number it spells, as vLLM reads it.
        let digits = match self.syntax {
            Syntax::Python => {
                let whole = digits.bytes().take_while(u8::is_ascii_digit).count();
                let zeros = digits.bytes().take_while(|&b| b == b'0').count();
                &digits[zeros.min(whole.saturating_sub(1))..]
            }
            Syntax::Gemma(_) => digits,
        };
        let mut json = String::with_capacity(digits.len() + 2);
        json.push_str(sign);
        if digits.starts_with('.') {
            json.push('0');
        }
        json.push_str(digits);
        if let Some(stripped) = json.strip_suffix('.') {
            json = format!("{stripped}.0");
        }
        json = json.replace(".e", ".0e").replace(".E", ".0E");
        if !crate::scan::json::is_complete_value(json.as_bytes(), 1) {
            return Err("a bad number");
        }
        finite(&json)?;
        self.out.push_str(&json);
        Ok(())
    }

    fn word(&mut self) -> Result<(), Invalid> {
        let n = self.rest().iter().take_while(|&&b| is_word(b)).count();
        let json = match &self.rest()[..n] {
            b"True" | b"true" => "true",
            b"False" | b"false" => "false",
            b"None" | b"null" => "null",
            _ => return Err("not a literal value"),
        };
        self.at += n;
        self.out.push_str(json);
        Ok(())
    }
}

/// Refuses a JSON number with a fraction or exponent that no float holds
/// (`1e999`, infinity in Python): JSON has no infinity, and most readers
/// of the arguments (serde_json, `JSON.parse` gives `Infinity`) would
/// fail on it or change it. Integers stay exact however long.
fn finite(json: &str) -> Result<(), Invalid> {
    match super::json::all_finite(json.as_bytes()) {
        true => Ok(()),
        false => Err("a number too large for a float"),
    }
}

/// A byte of a name or bare word.
pub(crate) const fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(s: &str) -> Result<String, Invalid> {
        to_json(Syntax::Python, s.as_bytes(), 8)
    }

    #[test]
    fn python_literals_become_json() {
        assert_eq!(py("'it\\'s'").unwrap(), r#""it's""#);
        assert_eq!(py(r#""a\nb\x41\u00e9""#).unwrap(), r#""a\nbAé""#);
        assert_eq!(py("True").unwrap(), "true");
        assert_eq!(py("None").unwrap(), "null");
        assert_eq!(
            py("-12345678901234567890123").unwrap(),
            "-12345678901234567890123"
        );
        assert_eq!(py(".5").unwrap(), "0.5");
        assert_eq!(py("5.").unwrap(), "5.0");
        assert_eq!(py("1_000").unwrap(), "1000");
        assert_eq!(py("0x1F").unwrap(), "31");
        assert_eq!(
            py("(1, [2, {'a': None}],)").unwrap(),
            r#"[1, [2, {"a": null}]]"#
        );
        assert_eq!(py("{1: 'x'}").unwrap(), r#"{"1": "x"}"#);
        assert_eq!(py("'''tri'ple'''").unwrap(), r#""tri'ple""#);
        assert_eq!(py(r#"'''a "b" ''c'''"#).unwrap(), r#""a \"b\" ''c""#);
        // Unknown escapes stay as written, whatever character follows.
        assert_eq!(py(r"'\é\q'").unwrap(), r#""\\é\\q""#);
        assert_eq!(
            py(r"'a\0b\x01\U0001F600'").unwrap(),
            r#""a\u0000b\u0001😀""#
        );
        assert_eq!(py("'tab\\tquote\\''").unwrap(), r#""tab\tquote'""#);
        assert_eq!(py("1e+5").unwrap(), "1e+5");
        assert_eq!(py("-0x10").unwrap(), "-16");
        // Bytes that are not UTF-8, plain or after a backslash.
        let raw = |bytes: &[u8]| to_json(Syntax::Python, bytes, 8);
        assert!(raw(b"'\xc3'").is_err());
        assert!(raw(b"'a\\\xc3'").is_err());
        assert_eq!(raw(b"'\\\xc3\xa9'").unwrap(), r#""\\é""#);
        assert!(py("[[[[[[[[[1]]]]]]]]]").is_err());
        assert!(py("nan").is_err());
        assert!(py("1e999").is_err());
        assert!(py("-1.5e400").is_err());
        assert_eq!(py("1e308").unwrap(), "1e308");
        assert_eq!(
            py("123456789012345678901234567890").unwrap(),
            "123456789012345678901234567890"
        );
        assert!(py("'open").is_err());
        // Sets are lists; zero-padded integers the numbers they spell.
        assert_eq!(py("{'urgent', 'bug'}").unwrap(), r#"["urgent", "bug"]"#);
        assert_eq!(py("{1, (2, 3)}").unwrap(), "[1, [2, 3]]");
        assert_eq!(py("{'k': {'a'}}").unwrap(), r#"{"k": ["a"]}"#);
        assert_eq!(
            py("[07, 00, 0, -012, 007.5, 0.5]").unwrap(),
            "[7, 0, 0, -12, 7.5, 0.5]"
        );
        assert!(py("1 2").is_err());
    }

    #[test]
    fn gemma4_literals_become_json() {
        let g = |s: &str| to_json(Syntax::Gemma(&GEMMA4), s.as_bytes(), 8);
        assert_eq!(g(r#"<|"|>a "b"<|"|>"#).unwrap(), r#""a \"b\"""#);
        assert_eq!(
            g(r#"{k:<|"|>v<|"|>,n:-3,f:true,xs:[1,null]}"#).unwrap(),
            r#"{"k": "v", "n": -3, "f": true, "xs": [1, null]}"#
        );
        assert!(g("<|\"|>open").is_err());
    }

    #[test]
    fn function_gemma_quotes_strings_with_its_own_token() {
        let g = |s: &str| to_json(Syntax::Gemma(&FUNCTION_GEMMA), s.as_bytes(), 8);
        assert_eq!(
            g(r#"{city:<escape>Paris, "FR"<escape>,days:3,o:{k:[<escape>x<escape>]}}"#).unwrap(),
            r#"{"city": "Paris, \"FR\"", "days": 3, "o": {"k": ["x"]}}"#
        );
        // Gemma 4's quote is no quote here: a bare string, as written.
        assert_eq!(g(r#"<|"|>a<|"|>"#).unwrap(), r#""<|\"|>a<|\"|>""#);
        assert!(g("<escape>open").is_err());
    }

    #[test]
    fn function_gemma_quoted_scalars_are_json_gemma4_ones_strings() {
        fn fg(s: &str) -> Option<&str> {
            quoted_scalar(Syntax::Gemma(&FUNCTION_GEMMA), s.as_bytes())
        }
        assert_eq!(fg(" <escape> 42 <escape> "), Some("42"));
        assert_eq!(fg("<escape>-2.5e3<escape>"), Some("-2.5e3"));
        assert_eq!(fg("<escape>false<escape>"), Some("false"));
        assert_eq!(fg("<escape>null<escape>"), Some("null"));
        for text in ["007", "1e999", "True", "", "4 2", "Paris", "[1]"] {
            assert_eq!(fg(&format!("<escape>{text}<escape>")), None, "{text}");
        }
        assert_eq!(fg("42"), None);
        let g4 = quoted_scalar(Syntax::Gemma(&GEMMA4), b"<|\"|>42<|\"|>");
        assert_eq!(g4, None);
        assert_eq!(quoted_scalar(Syntax::Python, b"'42'"), None);
    }

    #[test]
    fn gemma4_bare_values_are_literals_or_strings() {
        let g = |s: &str| {
            let mut out = String::new();
            to_json_into(Syntax::Gemma(&GEMMA4), s.as_bytes(), 8, &mut out).map(|bare| (out, bare))
        };
        // A literal stays one, and is no bare string.
        assert_eq!(g(" 108. ").unwrap(), ("108.0".into(), false));
        assert_eq!(
            g("[true, null, -2]").unwrap(),
            ("[true, null, -2]".into(), false)
        );
        // The rest is the text it spells, trimmed; nothing is "".
        assert_eq!(g(" celsius ").unwrap(), (r#""celsius""#.into(), true));
        assert_eq!(g("2024-01-15").unwrap(), (r#""2024-01-15""#.into(), true));
        assert_eq!(g("").unwrap(), (String::from("\"\""), true));
        assert_eq!(
            g(r#"{a:b c,n:1.5,e:,xs:[Paris, "x" ,3]}"#).unwrap().0,
            r#"{"a": "b c", "n": 1.5, "e": "", "xs": ["Paris", "\"x\"", 3]}"#
        );
        // Python keeps refusing a word that is no literal.
        assert!(to_json(Syntax::Python, b"celsius", 8).is_err());
        // What is no Gemma 4 value at all still fails.
        assert!(g("{a b}").is_err());
        assert!(g("[a}b]").is_err());
    }
}
