//! An incremental JSON scanner: validates as bytes arrive, never builds a
//! value, never looks at a byte twice.
//!
//! It keeps only a small state and a stack of open containers (bounded by the
//! depth limit, never recursion). It stops whenever a member of the root
//! container begins or ends, so a protocol can tell which bytes are a key,
//! the `name` or the `arguments` without a second pass.

use std::borrow::Cow;

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
    /// An escape that JSON does not have (`\d`, `\.`, `\U`): models write
    /// regular expressions and Windows paths with single backslashes. The
    /// first unconsumed byte is the one after the backslash, and the
    /// scanner is back inside the string: a caller that writes a second
    /// backslash before that byte and goes on keeps the text as written
    /// (`\\d`).
    BadEscape,
    /// Nesting deeper than the limit: the first unconsumed byte opens it.
    TooDeep,
    /// A comma just before a closing bracket (`[1, 2,]`), which models
    /// write now and then; only from a scanner that
    /// [accepts them](JsonScanner::accepting_trailing_commas). The first
    /// unconsumed byte is the closing bracket, which the next step reads as
    /// if the comma were not there; whitespace alone stands between them.
    TrailingComma,
}

impl Signal {
    /// A key's start or end, or a member's start: a boundary inside the
    /// root object that ends no value.
    #[inline]
    pub(crate) fn opens_or_names_member(self) -> bool {
        matches!(self, Signal::KeyStart | Signal::KeyEnd | Signal::ValueStart)
    }
}

// Byte classes: the columns of the transition table.
const C_SPACE: u8 = 0;
/// `\t`, `\n`, `\r`: whitespace between tokens, control bytes in strings.
const C_WS_CONTROL: u8 = 1;
const C_LBRACE: u8 = 2;
const C_RBRACE: u8 = 3;
const C_LBRACKET: u8 = 4;
const C_RBRACKET: u8 = 5;
const C_COLON: u8 = 6;
const C_COMMA: u8 = 7;
const C_QUOTE: u8 = 8;
const C_BACKSLASH: u8 = 9;
const C_SLASH: u8 = 10;
const C_ZERO: u8 = 11;
const C_DIGIT: u8 = 12;
const C_MINUS: u8 = 13;
const C_PLUS: u8 = 14;
const C_DOT: u8 = 15;
// Letters that some state needs to tell apart.
const C_A: u8 = 16;
const C_B: u8 = 17;
const C_C: u8 = 18;
const C_D: u8 = 19;
const C_E: u8 = 20;
const C_F: u8 = 21;
const C_L: u8 = 22;
const C_N: u8 = 23;
const C_R: u8 = 24;
const C_S: u8 = 25;
const C_T: u8 = 26;
const C_U: u8 = 27;
const C_UPPER_E: u8 = 28;
/// `A`–`D`, `F`: hex digits and nothing else.
const C_UPPER_HEX: u8 = 29;
const C_CONTROL: u8 = 30;
const C_OTHER: u8 = 31;
/// Bytes of multi-byte UTF-8 sequences (checked elsewhere).
const C_HIGH: u8 = 32;
const CLASSES: usize = 33;

const CLASS: [u8; 256] = {
    let mut t = [C_OTHER; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = match i as u8 {
            b' ' => C_SPACE,
            b'\t' | b'\n' | b'\r' => C_WS_CONTROL,
            0..=0x1F => C_CONTROL,
            b'{' => C_LBRACE,
            b'}' => C_RBRACE,
            b'[' => C_LBRACKET,
            b']' => C_RBRACKET,
            b':' => C_COLON,
            b',' => C_COMMA,
            b'"' => C_QUOTE,
            b'\\' => C_BACKSLASH,
            b'/' => C_SLASH,
            b'0' => C_ZERO,
            b'1'..=b'9' => C_DIGIT,
            b'-' => C_MINUS,
            b'+' => C_PLUS,
            b'.' => C_DOT,
            b'a' => C_A,
            b'b' => C_B,
            b'c' => C_C,
            b'd' => C_D,
            b'e' => C_E,
            b'f' => C_F,
            b'l' => C_L,
            b'n' => C_N,
            b'r' => C_R,
            b's' => C_S,
            b't' => C_T,
            b'u' => C_U,
            b'E' => C_UPPER_E,
            b'A'..=b'D' | b'F' => C_UPPER_HEX,
            0x80..=0xFF => C_HIGH,
            _ => C_OTHER,
        };
        i += 1;
    }
    t
};

// States: the rows of the transition table.
/// A value must come next.
const VALUE: u8 = 0;
/// After `[`: a value or `]`.
const FIRST_ITEM: u8 = 1;
/// After `{`: a key or `}`.
const FIRST_KEY: u8 = 2;
/// After `,` in an object: a key.
const KEY: u8 = 3;
/// After a key: `:`.
const COLON: u8 = 4;
/// After a value inside a container: `,` or the closer.
const COMMA: u8 = 5;
/// Inside a string (a key when `in_key`).
const STR: u8 = 6;
/// After `\` in a string.
const ESCAPE: u8 = 7;
/// The four hex digits of `\uXXXX`.
const UNICODE_1: u8 = 8;
const UNICODE_4: u8 = 11;
/// After a high surrogate escape: the `\` and `u` of its low half.
const LOW_BACKSLASH: u8 = 12;
const LOW_U: u8 = 13;
/// The four hex digits of the low half.
const LOW_1: u8 = 14;
const LOW_4: u8 = 17;
// Literals, named by the letter they expect next.
const TRUE_R: u8 = 18;
const TRUE_U: u8 = 19;
const TRUE_E: u8 = 20;
const FALSE_A: u8 = 21;
const FALSE_L: u8 = 22;
const FALSE_S: u8 = 23;
const FALSE_E: u8 = 24;
const NULL_U: u8 = 25;
const NULL_L: u8 = 26;
const NULL_L2: u8 = 27;
// Numbers, named by what was read last.
const MINUS: u8 = 28;
const ZERO: u8 = 29;
const INT: u8 = 30;
const DOT: u8 = 31;
const FRAC: u8 = 32;
const EXP: u8 = 33;
const EXP_SIGN: u8 = 34;
const EXP_DIGITS: u8 = 35;
/// The root value is complete.
const DONE: u8 = 36;
/// After `,` in an array: a value (or, wrongly, `]`).
const ITEM: u8 = 37;
const STATES: usize = 38;

// Table entries below `ACTION` are the next state (the byte is consumed and
// nothing else happens: the common case); the others name what to do.
const ACTION: u8 = 64;
/// Not JSON.
const A_SYNTAX: u8 = ACTION;
/// A raw control byte inside a string.
const A_CONTROL: u8 = ACTION + 1;
/// A byte after `\` that no JSON escape begins with.
const A_BAD_ESCAPE: u8 = ACTION + 14;
/// A byte after the root value.
const A_AFTER_ROOT: u8 = ACTION + 2;
/// The first byte of a value.
const A_VALUE: u8 = ACTION + 3;
/// The opening quote of a key.
const A_KEY: u8 = ACTION + 4;
/// The closing quote of a string.
const A_STRING_END: u8 = ACTION + 5;
const A_CLOSE_OBJECT: u8 = ACTION + 6;
const A_CLOSE_ARRAY: u8 = ACTION + 7;
/// `,` between members.
const A_COMMA: u8 = ACTION + 8;
/// A byte that ends a number (and belongs to what follows).
const A_NUMBER_END: u8 = ACTION + 9;
/// The last letter of a literal.
const A_LITERAL_END: u8 = ACTION + 10;
/// The `u` of `\u`.
const A_UNICODE: u8 = ACTION + 11;
/// A closing bracket right after a comma.
const A_TRAILING_COMMA: u8 = ACTION + 13;
/// A hex digit of a `\u` escape.
const A_HEX: u8 = ACTION + 12;

const TABLE: [[u8; CLASSES]; STATES] = {
    let mut t = [[A_SYNTAX; CLASSES]; STATES];
    const fn set(row: &mut [u8; CLASSES], classes: &[u8], to: u8) {
        let mut i = 0;
        while i < classes.len() {
            row[classes[i] as usize] = to;
            i += 1;
        }
    }
    const WS: &[u8] = &[C_SPACE, C_WS_CONTROL];
    const DIGITS: &[u8] = &[C_ZERO, C_DIGIT];
    const HEX: &[u8] = &[
        C_ZERO,
        C_DIGIT,
        C_A,
        C_B,
        C_C,
        C_D,
        C_E,
        C_F,
        C_UPPER_E,
        C_UPPER_HEX,
    ];
    const VALUE_FIRST: &[u8] = &[
        C_QUOTE, C_LBRACE, C_LBRACKET, C_T, C_F, C_N, C_MINUS, C_ZERO, C_DIGIT,
    ];

    set(&mut t[VALUE as usize], WS, VALUE);
    set(&mut t[VALUE as usize], VALUE_FIRST, A_VALUE);
    set(&mut t[FIRST_ITEM as usize], WS, FIRST_ITEM);
    set(&mut t[FIRST_ITEM as usize], VALUE_FIRST, A_VALUE);
    set(&mut t[FIRST_ITEM as usize], &[C_RBRACKET], A_CLOSE_ARRAY);
    set(&mut t[FIRST_KEY as usize], WS, FIRST_KEY);
    set(&mut t[FIRST_KEY as usize], &[C_QUOTE], A_KEY);
    set(&mut t[FIRST_KEY as usize], &[C_RBRACE], A_CLOSE_OBJECT);
    set(&mut t[KEY as usize], WS, KEY);
    set(&mut t[KEY as usize], &[C_QUOTE], A_KEY);
    set(&mut t[KEY as usize], &[C_RBRACE], A_TRAILING_COMMA);
    set(&mut t[ITEM as usize], WS, ITEM);
    set(&mut t[ITEM as usize], VALUE_FIRST, A_VALUE);
    set(&mut t[ITEM as usize], &[C_RBRACKET], A_TRAILING_COMMA);
    set(&mut t[COLON as usize], WS, COLON);
    set(&mut t[COLON as usize], &[C_COLON], VALUE);
    set(&mut t[COMMA as usize], WS, COMMA);
    set(&mut t[COMMA as usize], &[C_COMMA], A_COMMA);
    set(&mut t[COMMA as usize], &[C_RBRACE], A_CLOSE_OBJECT);
    set(&mut t[COMMA as usize], &[C_RBRACKET], A_CLOSE_ARRAY);

    t[STR as usize] = [STR; CLASSES];
    set(&mut t[STR as usize], &[C_WS_CONTROL, C_CONTROL], A_CONTROL);
    set(&mut t[STR as usize], &[C_QUOTE], A_STRING_END);
    set(&mut t[STR as usize], &[C_BACKSLASH], ESCAPE);
    t[ESCAPE as usize] = [A_BAD_ESCAPE; CLASSES];
    set(
        &mut t[ESCAPE as usize],
        &[C_QUOTE, C_BACKSLASH, C_SLASH, C_B, C_F, C_N, C_R, C_T],
        STR,
    );
    set(&mut t[ESCAPE as usize], &[C_U], A_UNICODE);
    let mut s = UNICODE_1;
    while s <= UNICODE_4 {
        set(&mut t[s as usize], HEX, A_HEX);
        s += 1;
    }
    set(&mut t[LOW_BACKSLASH as usize], &[C_BACKSLASH], LOW_U);
    set(&mut t[LOW_U as usize], &[C_U], A_UNICODE);
    let mut s = LOW_1;
    while s <= LOW_4 {
        set(&mut t[s as usize], HEX, A_HEX);
        s += 1;
    }

    set(&mut t[TRUE_R as usize], &[C_R], TRUE_U);
    set(&mut t[TRUE_U as usize], &[C_U], TRUE_E);
    set(&mut t[TRUE_E as usize], &[C_E], A_LITERAL_END);
    set(&mut t[FALSE_A as usize], &[C_A], FALSE_L);
    set(&mut t[FALSE_L as usize], &[C_L], FALSE_S);
    set(&mut t[FALSE_S as usize], &[C_S], FALSE_E);
    set(&mut t[FALSE_E as usize], &[C_E], A_LITERAL_END);
    set(&mut t[NULL_U as usize], &[C_U], NULL_L);
    set(&mut t[NULL_L as usize], &[C_L], NULL_L2);
    set(&mut t[NULL_L2 as usize], &[C_L], A_LITERAL_END);

    // A number ends at the first byte that cannot continue it, once it
    // can end at all (`-`, `1.`, `1e`, `1e+` cannot).
    t[ZERO as usize] = [A_NUMBER_END; CLASSES];
    set(&mut t[ZERO as usize], &[C_DOT], DOT);
    set(&mut t[ZERO as usize], &[C_E, C_UPPER_E], EXP);
    t[INT as usize] = [A_NUMBER_END; CLASSES];
    set(&mut t[INT as usize], DIGITS, INT);
    set(&mut t[INT as usize], &[C_DOT], DOT);
    set(&mut t[INT as usize], &[C_E, C_UPPER_E], EXP);
    set(&mut t[MINUS as usize], &[C_ZERO], ZERO);
    set(&mut t[MINUS as usize], &[C_DIGIT], INT);
    set(&mut t[DOT as usize], DIGITS, FRAC);
    t[FRAC as usize] = [A_NUMBER_END; CLASSES];
    set(&mut t[FRAC as usize], DIGITS, FRAC);
    set(&mut t[FRAC as usize], &[C_E, C_UPPER_E], EXP);
    set(&mut t[EXP as usize], &[C_PLUS, C_MINUS], EXP_SIGN);
    set(&mut t[EXP as usize], DIGITS, EXP_DIGITS);
    set(&mut t[EXP_SIGN as usize], DIGITS, EXP_DIGITS);
    t[EXP_DIGITS as usize] = [A_NUMBER_END; CLASSES];
    set(&mut t[EXP_DIGITS as usize], DIGITS, EXP_DIGITS);

    t[DONE as usize] = [A_AFTER_ROOT; CLASSES];
    t
};

/// [`TABLE`] indexed by the byte itself, one row per state (64 rows, so
/// that a state masked to 6 bits needs no bounds check): one load per byte.
static STEP: [[u8; 256]; 64] = {
    let mut t = [[A_SYNTAX; 256]; 64];
    let mut state = 0;
    while state < STATES {
        let mut b = 0;
        while b < 256 {
            t[state][b] = TABLE[state][CLASS[b] as usize];
            b += 1;
        }
        state += 1;
    }
    t
};

/// The index of the first byte at or after `i` that may end plain string
/// content (`"`, `\`, a control byte), eight bytes at a time; where fewer
/// than eight are left, `i` as it is (the table goes on byte by byte).
#[inline]
fn skip_plain_string(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(word) = bytes.get(i..i + 8) {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        // Per byte, "is zero" (for the two compared above) and "is below
        // 0x20": exact for the lowest byte flagged, which is all that is
        // used (a borrow only ever flags bytes above a true one).
        let special = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGH;
        if special != 0 {
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// What a chunk is to a JSON string it continues, outside an escape: see
/// [`string_part`].
pub(crate) enum StringPart<'a> {
    /// ASCII text that only continues the string.
    Ascii(&'a str),
    /// Bytes that only continue the string, some of them not ASCII (not
    /// yet checked to be UTF-8, and maybe cut inside a code point).
    Unicode,
    /// A closing quote, a control byte, an escape the chunk cuts off or
    /// one that is not of the common kinds: more than string text.
    Ends,
}

/// Classifies `bytes` as the next part of a JSON string: one table pass,
/// as [`Parser::feed`](crate::Parser::feed)'s fast path for plain text
/// does, and a look at each escape if there are any (`\"` and `\n` are
/// all through a code argument). Only whole escapes of one character
/// after the backslash (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`,
/// `\t`) continue a string here; `\u` escapes and bad ones are the
/// JSON scanner's.
#[allow(unsafe_code)]
#[inline]
pub(crate) fn string_part(bytes: &[u8]) -> StringPart<'_> {
    let class = super::class_union(&STRING_BYTE, bytes);
    let class = match class & ENDS_PLAIN {
        0 => class,
        // A chunk with a quote and no backslash ends the string: only
        // escapes need the closer look.
        _ if class & (CONTROL | BACKSLASH) == BACKSLASH && whole_short_escapes(bytes) => {
            class & NON_ASCII
        }
        _ => return StringPart::Ends,
    };
    match class {
        // SAFETY: `STRING_BYTE` marks every byte from 0x80 up `NON_ASCII`:
        // a class without it means every byte is ASCII.
        0 => StringPart::Ascii(unsafe { crate::scan::utf8::ascii_str_unchecked(bytes) }),
        _ => StringPart::Unicode,
    }
}

/// Whether every quote and backslash in `bytes` (inside a string, outside
/// an escape) is part of a whole escape of one character after the
/// backslash: no closing quote, no escape cut off or of another kind. A
/// chunk that ends with a backslash is refused at once (an escape cut off,
/// or so rarely a whole one that it is not worth the look).
#[inline(never)]
fn whole_short_escapes(bytes: &[u8]) -> bool {
    if bytes.last() == Some(&b'\\') {
        return false;
    }
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += match b {
            b'"' => return false,
            b'\\' => match bytes.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 2,
                _ => return false,
            },
            _ => 1,
        };
    }
    true
}

/// Per byte: 0 for ASCII that continues a string as it is, [`NON_ASCII`],
/// [`ENDS_PLAIN`] for a quote or a backslash, with [`BACKSLASH`] as well
/// for the backslash and [`CONTROL`] for a control byte.
const STRING_BYTE: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = if b >= 0x80 {
            NON_ASCII
        } else if b < 0x20 {
            ENDS_PLAIN | CONTROL
        } else if b == b'"' as usize {
            ENDS_PLAIN
        } else if b == b'\\' as usize {
            ENDS_PLAIN | BACKSLASH
        } else {
            0
        };
        b += 1;
    }
    table
};
const NON_ASCII: u8 = 1;
const ENDS_PLAIN: u8 = 2;
const CONTROL: u8 = 4;
const BACKSLASH: u8 = 8;

/// A table-driven JSON validator (the states and byte classes above); a
/// byte that only moves to the next state costs two table loads.
#[derive(Debug, Clone)]
pub(crate) struct JsonScanner {
    state: u8,
    /// Whether the string being read is a key.
    in_key: bool,
    /// The `\u` escape being read: its value so far.
    unit: u16,
    /// Open containers: `{` or `[`.
    stack: SmallVec<[u8; 32]>,
    /// `stack.len()`, kept at hand: every member boundary asks for it.
    depth: usize,
    max_depth: usize,
    /// The depth whose members are signalled: 1 (the root's), or none
    /// ([`quiet_members`](JsonScanner::quiet_members)).
    member_depth: usize,
    /// Whether a comma before a closing bracket is signalled
    /// ([`Signal::TrailingComma`]) rather than a syntax error.
    trailing_commas: bool,
}

impl JsonScanner {
    pub(crate) fn new(max_depth: usize) -> JsonScanner {
        JsonScanner {
            state: VALUE,
            in_key: false,
            unit: 0,
            stack: SmallVec::new(),
            depth: 0,
            max_depth,
            member_depth: 1,
            trailing_commas: false,
        }
    }

    /// Signals no member boundary: only the end of the root value, errors
    /// and control bytes stop the scan (for a root value read whole, such as
    /// a call's arguments object).
    pub(crate) fn quiet_members(mut self) -> JsonScanner {
        self.member_depth = usize::MAX;
        self
    }

    /// Signals a comma before a closing bracket
    /// ([`Signal::TrailingComma`]) instead of failing there.
    pub(crate) fn accepting_trailing_commas(mut self) -> JsonScanner {
        self.trailing_commas = true;
        self
    }

    /// Whether the last thing read was a comma between members or items
    /// (whitespace after it allowed): what comes next decides whether it
    /// was a trailing one.
    #[inline]
    pub(crate) fn after_comma(&self) -> bool {
        self.state == KEY || self.state == ITEM
    }

    pub(crate) fn reset(&mut self) {
        self.state = VALUE;
        self.in_key = false;
        self.stack.clear();
        self.depth = 0;
    }

    /// Whether the root value is complete (a root number needs no terminator
    /// at the end of input).
    pub(crate) fn is_complete(&self) -> bool {
        match self.state {
            DONE => true,
            ZERO | INT | FRAC | EXP_DIGITS => self.depth == 0,
            _ => false,
        }
    }

    /// Whether the scanner is inside a string (where markers are data).
    pub(crate) fn in_string(&self) -> bool {
        (STR..=LOW_4).contains(&self.state)
    }

    /// Whether the scanner is inside a string and outside any escape:
    /// bytes that [`string_part`] finds only continue it leave it there.
    #[inline]
    pub(crate) fn in_plain_string(&self) -> bool {
        self.state == STR
    }

    /// A value just ended: the state that follows, and the signal, if any.
    #[inline]
    fn end_value(&self) -> (u8, Option<Signal>) {
        match self.depth {
            0 => (DONE, Some(Signal::RootEnd)),
            d if d == self.member_depth => (COMMA, Some(Signal::ValueEnd)),
            _ => (COMMA, None),
        }
    }

    /// Scans `bytes` until a root-member boundary, the end of the root value,
    /// an error, or the end of `bytes`. Returns the number of bytes consumed
    /// and why it stopped.
    ///
    /// # Complexity
    ///
    /// O(consumed bytes): one table load per byte.
    #[inline]
    pub(crate) fn advance(&mut self, bytes: &[u8]) -> (usize, Signal) {
        let mut state = self.state;
        let mut i = 0;
        let len = bytes.len();
        let signal = loop {
            let row = &STEP[usize::from(state & 63)];
            if state == STR {
                i = skip_plain_string(bytes, i);
            }
            // Runs of bytes that keep the state: string contents, digits,
            // whitespace.
            while i < len && row[usize::from(bytes[i])] == state {
                i += 1;
            }
            let Some(&b) = bytes.get(i) else {
                break Signal::More;
            };
            let step = row[usize::from(b)];
            if step < ACTION {
                state = step;
                i += 1;
                continue;
            }
            let ended = match step {
                A_VALUE => {
                    let member = self.depth == self.member_depth;
                    state = match b {
                        b'"' => {
                            self.in_key = false;
                            STR
                        }
                        b'{' | b'[' => {
                            if self.depth >= self.max_depth {
                                break Signal::TooDeep;
                            }
                            self.stack.push(b);
                            self.depth += 1;
                            if b == b'{' {
                                FIRST_KEY
                            } else {
                                FIRST_ITEM
                            }
                        }
                        b't' => TRUE_R,
                        b'f' => FALSE_A,
                        b'n' => NULL_U,
                        b'-' => MINUS,
                        b'0' => ZERO,
                        _ => INT,
                    };
                    i += 1;
                    if member {
                        break Signal::ValueStart;
                    }
                    continue;
                }
                A_KEY => {
                    i += 1;
                    state = STR;
                    self.in_key = true;
                    if self.depth == self.member_depth {
                        break Signal::KeyStart;
                    }
                    continue;
                }
                A_STRING_END => {
                    i += 1;
                    if self.in_key {
                        state = COLON;
                        if self.depth == self.member_depth {
                            break Signal::KeyEnd;
                        }
                        continue;
                    }
                    self.end_value()
                }
                A_COMMA => {
                    i += 1;
                    state = if self.stack.last() == Some(&b'{') {
                        KEY
                    } else {
                        ITEM
                    };
                    continue;
                }
                A_CLOSE_OBJECT | A_CLOSE_ARRAY => {
                    let open = if step == A_CLOSE_OBJECT { b'{' } else { b'[' };
                    if self.stack.last() != Some(&open) {
                        break Signal::Syntax;
                    }
                    i += 1;
                    self.stack.pop();
                    self.depth -= 1;
                    self.end_value()
                }
                // The terminator belongs to what follows: not consumed.
                A_NUMBER_END => self.end_value(),
                A_LITERAL_END => {
                    i += 1;
                    self.end_value()
                }
                A_UNICODE => {
                    i += 1;
                    self.unit = 0;
                    state = if state == ESCAPE { UNICODE_1 } else { LOW_1 };
                    continue;
                }
                A_HEX => {
                    let digit = (b as char).to_digit(16).unwrap_or(0) as u16;
                    self.unit = self.unit << 4 | digit;
                    state = match state {
                        // Surrogates must pair up, as serde_json requires.
                        UNICODE_4 => match self.unit {
                            0xD800..=0xDBFF => LOW_BACKSLASH,
                            0xDC00..=0xDFFF => break Signal::Syntax,
                            _ => STR,
                        },
                        LOW_4 => match self.unit {
                            0xDC00..=0xDFFF => STR,
                            _ => break Signal::Syntax,
                        },
                        s => s + 1,
                    };
                    i += 1;
                    continue;
                }
                A_CONTROL => break Signal::Control,
                A_BAD_ESCAPE => {
                    state = STR;
                    break Signal::BadEscape;
                }
                A_AFTER_ROOT => break Signal::RootEnd,
                // The bracket is read next, after a value as it were.
                _ if step == A_TRAILING_COMMA && self.trailing_commas => {
                    state = COMMA;
                    break Signal::TrailingComma;
                }
                _ => break Signal::Syntax,
            };
            state = ended.0;
            if let Some(signal) = ended.1 {
                break signal;
            }
        };
        self.state = state;
        (i, signal)
    }
}

/// A repair of a JSON string that models get wrong, which call automata
/// make and go on: the text written in place, and what the diagnostic says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repair {
    /// A raw control byte ([`Signal::Control`]), escaped.
    Control(u8),
    /// A backslash that began no escape ([`Signal::BadEscape`]): a second
    /// one goes before the byte after it.
    Backslash,
    /// `\'`, which JSON does not have but Python and JavaScript do
    /// ([`Signal::BadEscape`] before a `'`): the apostrophe is written as
    /// `u0027` after the backslash, which may already have gone out, and
    /// is skipped.
    Apostrophe,
}

impl Repair {
    /// The repair at [`Signal::BadEscape`], where `byte` follows the
    /// backslash.
    pub(crate) fn of_bad_escape(byte: u8) -> Repair {
        if byte == b'\'' {
            Repair::Apostrophe
        } else {
            Repair::Backslash
        }
    }

    /// The repair's kind as a bit, for a set of the kinds made in a call
    /// (each is reported once per call).
    pub(crate) fn kind_bit(self) -> u8 {
        match self {
            Repair::Control(_) => 1,
            Repair::Backslash => 2,
            Repair::Apostrophe => 4,
        }
    }

    /// How many bytes of the input the repair replaces (skipped after it):
    /// the control byte, the apostrophe; none for a backslash, whose next
    /// byte is read as string content.
    pub(crate) fn replaced(self) -> usize {
        match self {
            Repair::Backslash => 0,
            Repair::Control(_) | Repair::Apostrophe => 1,
        }
    }

    /// The JSON text written: for a control byte `\n`, `\r`, `\t` or
    /// `\u00XX` (in `buf`), for a backslash another one, for `\'` the rest
    /// of `\u0027`.
    pub(crate) fn text(self, buf: &mut [u8; 6]) -> &[u8] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        match self {
            Repair::Backslash => b"\\",
            Repair::Apostrophe => b"u0027",
            Repair::Control(b'\n') => b"\\n",
            Repair::Control(b'\r') => b"\\r",
            Repair::Control(b'\t') => b"\\t",
            Repair::Control(byte) => {
                *buf = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(byte >> 4)],
                    HEX[usize::from(byte & 15)],
                ];
                buf
            }
        }
    }

    /// What the `repaired-json` diagnostic says.
    pub(crate) fn message(self) -> &'static str {
        match self {
            Repair::Control(_) => "raw control characters inside JSON strings were escaped",
            Repair::Backslash => {
                "backslashes that begin no JSON escape (`\\d`, `C:\\Users`) were kept as backslashes"
            }
            Repair::Apostrophe => "`\\'`, which JSON does not have, was read as an apostrophe",
        }
    }
}

/// Decodes a JSON string literal (`raw`, quotes included) that the scanner
/// accepted; borrowed when it has no escapes. `None` if it is not one.
/// Escapes are checked; raw quotes and control bytes inside are not looked
/// for, since the scanner refuses them (or escapes control bytes first).
///
/// The decoded text is never longer than `raw`, so one allocation of that
/// size holds it (`serde_json` grows its buffer as it goes, which cost more
/// than the decoding itself for long escaped strings such as arguments
/// given as a JSON-encoded string).
///
/// # Complexity
///
/// O(`raw.len()`): one UTF-8 validation and one memchr pass, plus each
/// escape.
pub(crate) fn decode_string_literal(raw: &[u8]) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let text = crate::scan::utf8::validate(inner).ok()?;
    let Some(first) = crate::scan::find_byte(b'\\', inner) else {
        return Some(Cow::Borrowed(text));
    };
    let mut out = String::with_capacity(inner.len());
    let mut rest = text;
    let mut next = Some(first);
    while let Some(k) = next {
        out.push_str(&rest[..k]);
        let (c, len) = escape_at(&rest.as_bytes()[k..])?;
        out.push(c);
        rest = rest.get(k + len..)?;
        next = crate::scan::find_byte(b'\\', rest.as_bytes());
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// The character of the escape at the start of `bytes` (its backslash
/// first) and the escape's length; a `\u` high surrogate takes its low
/// half with it.
fn escape_at(bytes: &[u8]) -> Option<(char, usize)> {
    let simple = match bytes.get(1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let high = hex4(bytes.get(2..6)?)?;
            return match high {
                0xD800..=0xDBFF => {
                    if bytes.get(6..8)? != b"\\u" {
                        return None;
                    }
                    let low = hex4(bytes.get(8..12)?)?;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return None;
                    }
                    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                    Some((char::from_u32(code)?, 12))
                }
                _ => Some((char::from_u32(high)?, 6)),
            };
        }
        _ => return None,
    };
    Some((simple, 2))
}

/// The value of four hex digits.
fn hex4(digits: &[u8]) -> Option<u32> {
    digits
        .iter()
        .try_fold(0, |value, &d| Some(value << 4 | (d as char).to_digit(16)?))
}

/// Arguments given as a JSON-encoded string (`raw`, quotes included): the
/// object it holds (`{}` when blank); `None` if it holds anything else.
pub(crate) fn object_in_string(raw: &[u8], max_depth: usize) -> Option<String> {
    let decoded = decode_string_literal(raw)?;
    if decoded.trim().is_empty() {
        return Some("{}".to_owned());
    }
    let is_object =
        decoded.trim_start().starts_with('{') && is_complete_value(decoded.as_bytes(), max_depth);
    is_object.then(|| decoded.into_owned())
}

/// The members of the JSON object `json` (known to be complete): the byte
/// ranges of each raw key (quotes included) and of its value.
pub(crate) fn root_members(
    json: &[u8],
    max_depth: usize,
) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let mut scanner = JsonScanner::new(max_depth);
    let mut members = Vec::new();
    let (mut key, mut value) = (0..0, 0);
    let mut at = 0;
    while at < json.len() {
        let (n, signal) = scanner.advance(&json[at..]);
        at += n;
        match signal {
            Signal::KeyStart => key.start = at - 1,
            Signal::KeyEnd => key.end = at,
            Signal::ValueStart => value = at - 1,
            Signal::ValueEnd => members.push((key.clone(), value..at)),
            _ => break,
        }
    }
    members
}

/// Whether every number in `json` (JSON text) is one a double holds: a
/// number with a fraction or an exponent past its range (`1e999`) is
/// valid JSON by the grammar, but most readers refuse it (serde_json) or
/// make it infinite (Python's `json`, `JSON.parse`), so a value holding
/// one is not coerced into JSON. Integers count as finite however long
/// (they are kept digit for digit).
///
/// # Complexity
///
/// O(`json.len()`).
pub(crate) fn all_finite(json: &[u8]) -> bool {
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b'"' => {
                // Past the string: its closing quote is the first that no
                // backslash escapes.
                i += 1;
                while i < json.len() && json[i] != b'"' {
                    i += if json[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let n = json[i..]
                    .iter()
                    .take_while(|b| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
                    .count();
                let token = &json[i..i + n];
                let float = token.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
                // Parsed only when it may overflow: most numbers are short
                // integers.
                let infinite = || {
                    std::str::from_utf8(token)
                        .ok()
                        .and_then(|t| t.parse::<f64>().ok())
                        .is_some_and(f64::is_infinite)
                };
                if float && infinite() {
                    return false;
                }
                i += n;
            }
            _ => i += 1,
        }
    }
    true
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
            Signal::Syntax | Signal::Control | Signal::BadEscape | Signal::TooDeep => return false,
            _ => {}
        }
    }
}

/// Bytes that JSON strings escape: `"`, `\\` and the controls.
static NEEDS_ESCAPE: [bool; 256] = {
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

/// Whether [`escape_json_into`] would change `text`.
#[inline]
pub(crate) fn needs_json_escape(text: &[u8]) -> bool {
    first_to_escape(text, 0) < text.len()
}

/// The position of the first byte at or after `from` that JSON strings
/// escape (`text.len()` if none): eight bytes at a time, then one.
#[inline]
fn first_to_escape(text: &[u8], mut from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero (or less than `n`): the classic bit tricks.
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let has_less = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS;
    while let Some(word) = text.get(from..from + 8) {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let x = u64::from_le_bytes(eight);
        let special = has_less(x, 0x20)
            | has_zero(x ^ (ONES * u64::from(b'"')))
            | has_zero(x ^ (ONES * u64::from(b'\\')));
        if special != 0 {
            // The lowest flagged byte is a special one (the tricks' false
            // flags only stand above a true one).
            return from + (special.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    text[from..]
        .iter()
        .position(|&b| NEEDS_ESCAPE[b as usize])
        .map_or(text.len(), |p| from + p)
}

/// Appends `c` JSON-escaped, as serde_json writes it.
#[inline]
pub(crate) fn escape_json_char_into(out: &mut String, c: char) {
    match u8::try_from(c) {
        Ok(b) if NEEDS_ESCAPE[usize::from(b)] => out.push_str(escape_of(b)),
        _ => out.push(c),
    }
}

/// Appends `text` JSON-escaped (without quotes), as serde_json writes it.
pub(crate) fn escape_json_into(out: &mut String, text: &str) {
    // Keys and names seldom hold anything to escape: one check, one copy.
    if !needs_json_escape(text.as_bytes()) {
        out.push_str(text);
        return;
    }
    out.reserve(text.len());
    escape_json_pieces(text, |piece| out.push_str(piece.as_str()));
}

/// [`json_string`] held inline when it is short; longer text goes the
/// `String` way (the delta's joins would grow it twice).
pub(crate) fn json_string_delta(text: &str) -> crate::event::Delta<'static> {
    use crate::event::Delta;
    // Room for the text and its quotes.
    if text.len() + 2 > crate::delta::INLINE {
        return Delta::from(json_string(text));
    }
    let mut json = Delta::borrowed("\"");
    escape_json_pieces(text, |piece| json.push_str(piece.as_str()));
    json.push_str("\"");
    json
}

/// `text` as a JSON string, quotes included, as serde_json writes it.
pub(crate) fn json_string(text: &str) -> String {
    let mut json = String::with_capacity(text.len() + 2);
    json.push('"');
    escape_json_into(&mut json, text);
    json.push('"');
    json
}

/// A piece of JSON-escaped text (see [`escape_json_pieces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Escaped<'t> {
    /// A run of the text that needs no escape.
    Run(&'t str),
    /// The escape of one character.
    Escape(&'static str),
}

impl<'t> Escaped<'t> {
    pub(crate) fn as_str(self) -> &'t str {
        match self {
            Escaped::Run(text) | Escaped::Escape(text) => text,
        }
    }
}

/// The longest text a caller passes on in [`escape_json_pieces`] rather
/// than escaped into one string: past a few escapes, a delta per piece
/// costs more than the allocation it saves.
pub(crate) const ESCAPED_IN_PIECES: usize = 256;

/// `text` JSON-escaped (without quotes), as serde_json writes it, in
/// pieces that concatenate to it: runs of `text` itself and the static
/// escapes between them, so a caller that passes them on allocates nothing.
#[inline]
pub(crate) fn escape_json_pieces<'t>(text: &'t str, mut piece: impl FnMut(Escaped<'t>)) {
    let bytes = text.as_bytes();
    let mut plain = 0;
    loop {
        let i = first_to_escape(bytes, plain);
        if i > plain {
            piece(Escaped::Run(&text[plain..i]));
        }
        let Some(&b) = bytes.get(i) else {
            break;
        };
        piece(Escaped::Escape(escape_of(b)));
        plain = i + 1;
    }
}

/// The escape serde_json writes for `b`, one of the [`NEEDS_ESCAPE`] bytes
/// (any other byte has none: `""`).
fn escape_of(b: u8) -> &'static str {
    /// The control characters' escapes, `\u00XX` but for the five short ones.
    const CONTROL: [&str; 32] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011",
        "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019",
        "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    match b {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        _ => CONTROL.get(usize::from(b)).copied().unwrap_or(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inline JSON string is the same text as the `String` one, on
    /// both sides of the length where it stops fitting, escapes included.
    #[test]
    fn json_string_delta_is_json_string() {
        let room = crate::delta::INLINE - 2;
        let texts = [
            String::new(),
            "Paris".into(),
            "東京".into(),
            "a \"quote\" and a \\ and \n".into(),
            "x".repeat(room),
            "x".repeat(room + 1),
            format!("{}\"", "x".repeat(room - 1)),
        ];
        for text in texts {
            assert_eq!(json_string_delta(&text), json_string(&text), "{text:?}");
        }
    }

    /// What `string_part` lets through the string fast path, the scanner
    /// reads as string text that leaves it inside the string, outside any
    /// escape; and whole short escapes do get through: every string of up
    /// to five bytes from an alphabet of quotes, backslashes, escape
    /// letters, a byte that is not ASCII and a control byte.
    #[test]
    fn string_parts_only_continue_the_string() {
        let alphabet = [b'a', b'"', b'\\', b'n', b'u', b'/', 0xC3, b'q', b'\n'];
        let mut cases: Vec<Vec<u8>> = vec![Vec::new()];
        let mut passed = 0;
        for _ in 0..5 {
            cases = cases
                .iter()
                .flat_map(|case| alphabet.iter().map(move |&b| [&case[..], &[b]].concat()))
                .collect();
            for bytes in &cases {
                let mut scanner = JsonScanner::new(64);
                scanner.advance(b"{\"k\": \"");
                assert!(scanner.in_plain_string());
                if matches!(string_part(bytes), StringPart::Ends) {
                    continue;
                }
                passed += 1;
                assert_eq!(
                    scanner.advance(bytes),
                    (bytes.len(), Signal::More),
                    "{bytes:x?}"
                );
                assert!(scanner.in_plain_string(), "{bytes:x?}");
            }
        }
        assert!(matches!(string_part(br#"a\"b\\c\n"#), StringPart::Ascii(_)));
        assert!(matches!(string_part(b"\\t\xC3\xA9"), StringPart::Unicode));
        assert!(passed > 10_000, "{passed}");
    }

    /// The escaper writes what serde_json writes, with special bytes at
    /// every position of the eight-byte words and after them.
    #[test]
    fn escapes_as_serde_json_does() {
        let ascii: String = (0u8..0x80).map(char::from).collect();
        for text in [ascii.as_str(), "é世😀</x>", ""] {
            let mut ours = String::new();
            escape_json_into(&mut ours, text);
            assert_eq!(format!("\"{ours}\""), serde_json::to_string(text).unwrap());
        }
        let specials = [
            "\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", "é", "世", " ", "~",
        ];
        for len in 0..20 {
            for at in 0..len {
                for special in specials {
                    // With a second special byte after it, in the same
                    // word or the next.
                    let mut text = "a".repeat(len);
                    if at + 3 < len {
                        text.replace_range(at + 3..at + 4, "\u{8}");
                    }
                    text.replace_range(at..=at, special);
                    let mut ours = String::new();
                    escape_json_into(&mut ours, &text);
                    let theirs = serde_json::to_string(&text).unwrap();
                    assert_eq!(format!("\"{ours}\""), theirs, "{text:?}");
                    let changed = theirs[1..theirs.len() - 1] != text;
                    assert_eq!(needs_json_escape(text.as_bytes()), changed, "{text:?}");
                    let mut by_char = String::new();
                    text.chars()
                        .for_each(|c| escape_json_char_into(&mut by_char, c));
                    assert_eq!(by_char, ours, "{text:?}");
                }
            }
        }
    }

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

    /// Every signal with the byte position where it came, feeding `text` in
    /// pieces cut at `cuts`.
    fn signals(text: &[u8], cuts: &[usize]) -> Vec<(usize, Signal)> {
        let mut s = JsonScanner::new(16);
        let mut seen = Vec::new();
        let mut from = 0;
        for &to in cuts.iter().chain([&text.len()]) {
            let mut at = from;
            while at < to {
                let (n, signal) = s.advance(&text[at..to]);
                at += n;
                match signal {
                    Signal::More => {}
                    Signal::Control => {
                        seen.push((at, signal));
                        at += 1;
                    }
                    Signal::BadEscape => seen.push((at, signal)),
                    other => {
                        seen.push((at, other));
                        if matches!(other, Signal::RootEnd | Signal::Syntax | Signal::TooDeep) {
                            return seen;
                        }
                    }
                }
            }
            from = to;
        }
        seen.push((text.len(), Signal::More));
        seen
    }

    /// JSON values, written compactly or pretty, with numbers, escapes and
    /// nesting of every kind.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just("null".to_string()),
            any::<bool>().prop_map(|b| b.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            proptest::sample::select(&["0", "-0", "0.5", "-12.25e-3", "1E+9", "6.02e23"][..])
                .prop_map(str::to_string),
            "[a-zé\\\\\"/\\n\\t\u{1F600}\\x00 ]{0,20}"
                .prop_map(|s| serde_json::to_string(&s).unwrap()),
            Just(r#""\ud83d\ude00\u00E9\/""#.to_string()),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|items| format!("[{}]", items.join(","))),
                proptest::collection::vec(("[a-z]{0,3}", inner), 0..4).prop_map(|members| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(k, v)| format!("{}: {v}", serde_json::to_string(&k).unwrap()))
                        .collect();
                    format!("{{ {} }}", members.join(", "))
                }),
            ]
        })
    }

    proptest::proptest! {
        /// Valid JSON, and JSON with one token put in place of a few bytes:
        /// the verdict is serde_json's, and the signals do not depend on
        /// where the input was cut.
        #[test]
        fn agrees_with_serde_json_and_any_chunking(
            valid in json_text(),
            edit in proptest::option::of((0usize..512, 0usize..3, proptest::sample::select(&[
                "{", "}", "[", "]", ":", ",", " ", "\n", "\"", "\\", "\\u", "\\ud800",
                "0", "1", "-", ".", "e", "+", "t", "x", "é", "\u{1}",
            ][..]))),
            cut in 0usize..512,
        ) {
            let mut text = valid;
            if let Some((at, removed, inserted)) = edit {
                let mut at = at % (text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let mut end = (at + removed).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                text.replace_range(at..end, inserted);
            }
            let bytes = text.as_bytes();
            let ours = is_complete_value(bytes, 16);
            let theirs = match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(_) => true,
                // A number out of f64's range is still JSON.
                Err(e) if e.to_string().contains("out of range") => {
                    serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok()
                }
                Err(_) => false,
            };
            proptest::prop_assert_eq!(ours, theirs, "{}", text);
            let whole = signals(bytes, &[]);
            let cut = cut % (bytes.len() + 1);
            proptest::prop_assert_eq!(&signals(bytes, &[cut]), &whole, "cut at {}", cut);
            let ones: Vec<usize> = (1..bytes.len()).collect();
            proptest::prop_assert_eq!(&signals(bytes, &ones), &whole, "1-byte pieces");
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
        let members: Vec<(&[u8], &[u8])> = root_members(text, 8)
            .into_iter()
            .map(|(k, v)| (&text[k], &text[v]))
            .collect();
        assert_eq!(
            members,
            [
                (&b"\"name\""[..], &b"\"f\""[..]),
                (b"\"arguments\"", b"{\"x\": [1]}")
            ]
        );
        assert_eq!(
            object_in_string(br#""{\"a\": 1}""#, 8).as_deref(),
            Some(r#"{"a": 1}"#)
        );
        assert_eq!(object_in_string(br#"" ""#, 8).as_deref(), Some("{}"));
        assert_eq!(object_in_string(br#""[1]""#, 8), None);
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

    /// A JSON string literal with escapes of every kind, valid or not.
    fn string_literal() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            "[a-zé€\u{1F600} ]{0,6}",
            proptest::sample::select(
                &[
                    "\\\"",
                    "\\\\",
                    "\\/",
                    "\\b",
                    "\\f",
                    "\\n",
                    "\\r",
                    "\\t",
                    "\\u00e9",
                    "\\u0000",
                    "\\u20AC",
                    "\\ud83d\\ude00",
                    "\\uD83D\\uDE00",
                    // Not JSON: a lone or misordered surrogate, a bad hex
                    // digit, an unknown or cut escape.
                    "\\ud83d",
                    "\\ude00",
                    "\\ud83dx",
                    "\\ud83d\\u0041",
                    "\\u12g4",
                    "\\x",
                    "\\u12",
                    "\\",
                ][..]
            )
            .prop_map(str::to_string),
        ];
        proptest::collection::vec(piece, 0..8).prop_map(|p| format!("\"{}\"", p.concat()))
    }

    proptest::proptest! {
        /// Decoding agrees with serde_json, accepting and refusing alike.
        #[test]
        fn string_literals_decode_as_serde_json_does(raw in string_literal()) {
            // A cut escape before an escaped quote makes a raw quote that
            // ends the literal early: the scanner refuses such literals
            // before they are decoded, and the decoder does not look.
            let (n, signal) = JsonScanner::new(8).advance(raw.as_bytes());
            proptest::prop_assume!(!(signal == Signal::RootEnd && n < raw.len()));
            let ours = decode_string_literal(raw.as_bytes()).map(Cow::into_owned);
            let theirs = serde_json::from_str::<String>(&raw).ok();
            proptest::prop_assert_eq!(ours, theirs, "{}", raw);
        }

        #[test]
        fn any_text_encoded_by_serde_json_decodes_back(text in "\\PC{0,40}|[\\x00-\\x7f]{0,40}") {
            let raw = serde_json::to_string(&text).unwrap();
            let decoded = decode_string_literal(raw.as_bytes());
            proptest::prop_assert_eq!(decoded.as_deref(), Some(text.as_str()));
        }
    }

    #[test]
    fn string_literals_without_escapes_are_borrowed() {
        let raw = "\"café </tool_call>\"".as_bytes();
        assert!(matches!(
            decode_string_literal(raw),
            Some(Cow::Borrowed("café </tool_call>"))
        ));
        assert_eq!(decode_string_literal(b"\""), None);
        assert_eq!(decode_string_literal(b"abc"), None);
    }
}
