//! An incremental JSON scanner: validates as bytes arrive, never builds a
//! value, never looks at a byte twice.
//!
//! It keeps only a small state and a stack of open containers (bounded by the
//! depth limit, never recursion). It stops whenever a member of the root
//! container begins or ends, so a protocol can tell which bytes are a key,
//! the `name` or the `arguments` without a second pass.

use smallvec::SmallVec;

/// Why scanning stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    /// Every byte was consumed; the root value is not complete.
    More,
    /// A key of the root object began; its opening quote was the last byte
    /// consumed.
    KeyStart,
    /// That key ended; its closing quote was the last byte consumed.
    KeyEnd,
    /// A member of the root container began; its first byte was the last
    /// byte consumed.
    ValueStart,
    /// That member ended just before the first unconsumed byte.
    ValueEnd,
    /// The root value is complete; its last byte was the last consumed.
    RootEnd,
    /// Not JSON: the first unconsumed byte is the offending one.
    Syntax,
    /// A raw control byte (such as a newline) inside a string: not JSON, but
    /// models write it often enough that callers may escape it and go on.
    /// The first unconsumed byte is the control byte; skipping it resumes
    /// the string.
    Control,
    /// Nesting deeper than the limit: the first unconsumed byte opens it.
    TooDeep,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

impl Num {
    fn can_end(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpDigits)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A value must come next.
    Value,
    /// After `{`: a key or `}`.
    FirstKey,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After `[`: a value or `]`.
    FirstItem,
    /// After a value inside a container: `,` or the closer.
    Comma,
    Str {
        key: bool,
    },
    Escape {
        key: bool,
    },
    /// Inside `\uXXXX`: `left` hex digits to go, `unit` read so far, `low`
    /// when this escape must be the low half of a surrogate pair.
    Unicode {
        key: bool,
        left: u8,
        unit: u16,
        low: bool,
    },
    /// After a high surrogate escape: `\` of its low half must follow.
    LowBackslash {
        key: bool,
    },
    /// After that `\`: `u`.
    LowU {
        key: bool,
    },
    Literal {
        which: u8,
        at: u8,
    },
    Number(Num),
    Done,
}

const LITERALS: [&[u8]; 3] = [b"true", b"false", b"null"];

/// Bytes that end the fast path inside a string: `"`, `\` and controls.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

#[derive(Debug, Clone)]
pub(crate) struct JsonScanner {
    mode: Mode,
    /// Open containers: `{` or `[`.
    stack: SmallVec<[u8; 32]>,
    max_depth: usize,
}

impl JsonScanner {
    pub(crate) fn new(max_depth: usize) -> JsonScanner {
        JsonScanner {
            mode: Mode::Value,
            stack: SmallVec::new(),
            max_depth,
        }
    }

    pub(crate) fn reset(&mut self) {
        self.mode = Mode::Value;
        self.stack.clear();
    }

    /// Whether the root value is complete (a root number needs no terminator
    /// at the end of input).
    pub(crate) fn is_complete(&self) -> bool {
        match self.mode {
            Mode::Done => true,
            Mode::Number(n) => self.stack.is_empty() && n.can_end(),
            _ => false,
        }
    }

    /// Whether the scanner is inside a string (where markers are data).
    pub(crate) fn in_string(&self) -> bool {
        matches!(
            self.mode,
            Mode::Str { .. }
                | Mode::Escape { .. }
                | Mode::Unicode { .. }
                | Mode::LowBackslash { .. }
                | Mode::LowU { .. }
        )
    }

    /// A value just ended: where does that leave us?
    #[inline]
    fn end_value(&mut self) -> Option<Signal> {
        match self.stack.len() {
            0 => {
                self.mode = Mode::Done;
                Some(Signal::RootEnd)
            }
            1 => {
                self.mode = Mode::Comma;
                Some(Signal::ValueEnd)
            }
            _ => {
                self.mode = Mode::Comma;
                None
            }
        }
    }

    /// Scans `bytes` until a root-member boundary, the end of the root value,
    /// an error, or the end of `bytes`. Returns the number of bytes consumed
    /// and why it stopped.
    ///
    /// # Complexity
    ///
    /// O(consumed bytes); string contents go through a table-driven fast loop.
    pub(crate) fn advance(&mut self, bytes: &[u8]) -> (usize, Signal) {
        let mut i = 0;
        let len = bytes.len();
        while i < len {
            let b = bytes[i];
            match self.mode {
                Mode::Str { key } => {
                    while i < len && !STRING_STOP[bytes[i] as usize] {
                        i += 1;
                    }
                    if i == len {
                        break;
                    }
                    match bytes[i] {
                        b'"' => {
                            i += 1;
                            if key {
                                self.mode = Mode::Colon;
                                if self.stack.len() == 1 {
                                    return (i, Signal::KeyEnd);
                                }
                            } else if let Some(signal) = self.end_value() {
                                return (i, signal);
                            }
                        }
                        b'\\' => {
                            i += 1;
                            self.mode = Mode::Escape { key };
                        }
                        _ => return (i, Signal::Control),
                    }
                }
                Mode::Escape { key } => {
                    self.mode = match b {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Mode::Str { key },
                        b'u' => Mode::Unicode {
                            key,
                            left: 4,
                            unit: 0,
                            low: false,
                        },
                        _ => return (i, Signal::Syntax),
                    };
                    i += 1;
                }
                Mode::Unicode {
                    key,
                    left,
                    unit,
                    low,
                } => {
                    let Some(digit) = (b as char).to_digit(16) else {
                        return (i, Signal::Syntax);
                    };
                    let unit = unit << 4 | digit as u16;
                    if left > 1 {
                        self.mode = Mode::Unicode {
                            key,
                            left: left - 1,
                            unit,
                            low,
                        };
                    } else {
                        // Surrogates must pair up, as serde_json requires.
                        let is_high = (0xD800..0xDC00).contains(&unit);
                        let is_low = (0xDC00..0xE000).contains(&unit);
                        self.mode = match (low, is_high, is_low) {
                            (false, true, _) => Mode::LowBackslash { key },
                            (false, false, false) | (true, _, true) => Mode::Str { key },
                            _ => return (i, Signal::Syntax),
                        };
                    }
                    i += 1;
                }
                Mode::LowBackslash { key } => {
                    if b != b'\\' {
                        return (i, Signal::Syntax);
                    }
                    self.mode = Mode::LowU { key };
                    i += 1;
                }
                Mode::LowU { key } => {
                    if b != b'u' {
                        return (i, Signal::Syntax);
                    }
                    self.mode = Mode::Unicode {
                        key,
                        left: 4,
                        unit: 0,
                        low: true,
                    };
                    i += 1;
                }
                Mode::Value | Mode::FirstItem => {
                    if super::is_ws(b) {
                        i += 1;
                        continue;
                    }
                    if b == b']' && self.mode == Mode::FirstItem {
                        i += 1;
                        self.stack.pop();
                        if let Some(signal) = self.end_value() {
                            return (i, signal);
                        }
                        continue;
                    }
                    let member = self.stack.len() == 1;
                    self.mode = match b {
                        b'"' => Mode::Str { key: false },
                        b'{' | b'[' => {
                            if self.stack.len() >= self.max_depth {
                                return (i, Signal::TooDeep);
                            }
                            self.stack.push(b);
                            if b == b'{' {
                                Mode::FirstKey
                            } else {
                                Mode::FirstItem
                            }
                        }
                        b't' => Mode::Literal { which: 0, at: 1 },
                        b'f' => Mode::Literal { which: 1, at: 1 },
                        b'n' => Mode::Literal { which: 2, at: 1 },
                        b'-' => Mode::Number(Num::Minus),
                        b'0' => Mode::Number(Num::Zero),
                        b'1'..=b'9' => Mode::Number(Num::Int),
                        _ => return (i, Signal::Syntax),
                    };
                    i += 1;
                    if member {
                        return (i, Signal::ValueStart);
                    }
                }
                Mode::FirstKey | Mode::Key => {
                    if super::is_ws(b) {
                        i += 1;
                        continue;
                    }
                    match b {
                        b'"' => {
                            i += 1;
                            self.mode = Mode::Str { key: true };
                            if self.stack.len() == 1 {
                                return (i, Signal::KeyStart);
                            }
                        }
                        b'}' if self.mode == Mode::FirstKey => {
                            i += 1;
                            self.stack.pop();
                            if let Some(signal) = self.end_value() {
                                return (i, signal);
                            }
                        }
                        _ => return (i, Signal::Syntax),
                    }
                }
                Mode::Colon => {
                    i += 1;
                    match b {
                        b':' => self.mode = Mode::Value,
                        _ if super::is_ws(b) => {}
                        _ => return (i - 1, Signal::Syntax),
                    }
                }
                Mode::Comma => {
                    if super::is_ws(b) {
                        i += 1;
                        continue;
                    }
                    let top = self.stack.last().copied();
                    match (b, top) {
                        (b',', Some(b'{')) => self.mode = Mode::Key,
                        (b',', Some(_)) => self.mode = Mode::Value,
                        (b'}', Some(b'{')) | (b']', Some(b'[')) => {
                            i += 1;
                            self.stack.pop();
                            if let Some(signal) = self.end_value() {
                                return (i, signal);
                            }
                            continue;
                        }
                        _ => return (i, Signal::Syntax),
                    }
                    i += 1;
                }
                Mode::Literal { which, at } => {
                    let lit = LITERALS[which as usize];
                    if b != lit[at as usize] {
                        return (i, Signal::Syntax);
                    }
                    i += 1;
                    if at as usize + 1 == lit.len() {
                        if let Some(signal) = self.end_value() {
                            return (i, signal);
                        }
                    } else {
                        self.mode = Mode::Literal { which, at: at + 1 };
                    }
                }
                Mode::Number(n) => {
                    let next = match (n, b) {
                        (Num::Minus, b'0') => Some(Num::Zero),
                        (Num::Minus, b'1'..=b'9') => Some(Num::Int),
                        (Num::Int, b'0'..=b'9') => Some(Num::Int),
                        (Num::Zero | Num::Int, b'.') => Some(Num::Dot),
                        (Num::Dot | Num::Frac, b'0'..=b'9') => Some(Num::Frac),
                        (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Some(Num::Exp),
                        (Num::Exp, b'+' | b'-') => Some(Num::ExpSign),
                        (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => {
                            Some(Num::ExpDigits)
                        }
                        _ => None,
                    };
                    match next {
                        Some(n) => {
                            self.mode = Mode::Number(n);
                            i += 1;
                        }
                        None if n.can_end() => {
                            // The terminator belongs to what follows.
                            if let Some(signal) = self.end_value() {
                                return (i, signal);
                            }
                        }
                        None => return (i, Signal::Syntax),
                    }
                }
                Mode::Done => return (i, Signal::RootEnd),
            }
        }
        (i, Signal::More)
    }
}

/// Whether `text` is exactly one complete JSON value (whitespace around it
/// allowed).
pub(crate) fn is_complete_value(text: &[u8], max_depth: usize) -> bool {
    let mut scanner = JsonScanner::new(max_depth);
    let mut rest = text;
    loop {
        let (n, signal) = scanner.advance(rest);
        rest = &rest[n..];
        match signal {
            Signal::More => return scanner.is_complete() && rest.is_empty(),
            Signal::RootEnd => return super::skip_ws(rest) == rest.len(),
            Signal::Syntax | Signal::Control | Signal::TooDeep => return false,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_serde_json_on_validity() {
        let cases = [
            r#"{"a": [1, 2.5e-3, -0, true, false, null, "x\u00e9\n"]}"#,
            r#"{"a":{"b":{"c":[]}},"d":{}}"#,
            r#"[]"#,
            r#"  "just a string"  "#,
            "12",
            "-",
            "01",
            "1.",
            "1e",
            r#"{"a" 1}"#,
            r#"{"a":1,}"#,
            r#"[1,]"#,
            r#"{"a":tru}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12G4"}"#,
            "{\"a\":\"raw\ncontrol\"}",
            r#"{"a":1}}"#,
            r#"{"a":[1}"#,
            r#"nul"#,
            r#"["\ud83d\ude00"]"#,
            r#"["\ude00"]"#,
            r#"["\ud83d"]"#,
            r#"["\ud83dx"]"#,
            r#"["\ud83d\u0041"]"#,
            r#"["\u00e9\uFFFF"]"#,
        ];
        for case in cases {
            let ours = is_complete_value(case.as_bytes(), 64);
            let theirs = serde_json::from_str::<serde_json::Value>(case).is_ok();
            assert_eq!(ours, theirs, "{case}");
        }
    }

    #[test]
    fn reports_root_members() {
        let text = br#"{"name": "f", "arguments": {"x": [1]}}"#;
        let mut s = JsonScanner::new(8);
        let mut rest = &text[..];
        let mut seen = Vec::new();
        loop {
            let (n, signal) = s.advance(rest);
            rest = &rest[n..];
            seen.push(signal);
            if matches!(signal, Signal::RootEnd | Signal::More | Signal::Syntax) {
                break;
            }
        }
        use Signal::*;
        assert_eq!(
            seen,
            [
                KeyStart, KeyEnd, ValueStart, ValueEnd, KeyStart, KeyEnd, ValueStart, ValueEnd,
                RootEnd
            ]
        );
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(100);
        let mut s = JsonScanner::new(10);
        let mut at = 0;
        loop {
            let (n, signal) = s.advance(&deep.as_bytes()[at..]);
            at += n;
            match signal {
                Signal::TooDeep => break,
                Signal::ValueStart => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(at, 10);
    }
}
