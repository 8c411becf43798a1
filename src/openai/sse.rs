//! Server-sent events from a backend, decoded as the bytes arrive.
//!
//! Every byte is looked at once (memchr finds the line ends) and a line
//! is held only until its end arrives, up to a limit: a backend that sends
//! an endless line gets an error, not a buffer that grows with it. Only
//! `data` fields matter to the chat wire; `event`, `id`, `retry` and
//! comments are read and dropped.

use memchr::memchr2;

/// Why a backend's event stream could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SseError {
    /// A line, or the data of one event, is longer than the limit.
    TooLong(usize),
    /// A line is not UTF-8.
    NotUtf8,
}

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SseError::TooLong(limit) => {
                write!(f, "an event stream line is over the limit of {limit} bytes")
            }
            SseError::NotUtf8 => f.write_str("an event stream line is not UTF-8"),
        }
    }
}

/// The decoder of one event stream: feed it bytes, and it hands over the
/// `data` of each complete event (from a buffer it keeps: no allocation
/// per event).
#[derive(Debug)]
pub(crate) struct SseDecoder {
    /// The start of a line whose end has not arrived.
    line: Vec<u8>,
    /// The data lines of the event being read, joined by `\n`.
    data: String,
    has_data: bool,
    /// The last byte was a `\r`: a `\n` first in the next piece ends no line.
    after_cr: bool,
    max_line: usize,
}

impl SseDecoder {
    /// A decoder that refuses lines (and event data) over `max_line` bytes.
    pub(crate) fn new(max_line: usize) -> SseDecoder {
        SseDecoder {
            line: Vec::new(),
            data: String::new(),
            has_data: false,
            after_cr: false,
            max_line,
        }
    }

    /// Reads `bytes`, handing `on_data` the data of every event they
    /// complete, in order. After an error, what follows it in `bytes` is
    /// not read.
    ///
    /// # Complexity
    ///
    /// O(`bytes.len()`): a line split across pieces is copied once.
    pub(crate) fn push(
        &mut self,
        mut bytes: &[u8],
        on_data: &mut impl FnMut(&str),
    ) -> Result<(), SseError> {
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if bytes[0] == b'\n' {
                bytes = &bytes[1..];
            }
        }
        while let Some(end) = memchr2(b'\n', b'\r', bytes) {
            if self.line.is_empty() {
                self.take_line(&bytes[..end], on_data)?;
            } else {
                self.hold(&bytes[..end])?;
                let line = std::mem::take(&mut self.line);
                let taken = self.take_line(&line, on_data);
                self.line = line;
                self.line.clear();
                taken?;
            }
            let mut next = end + 1;
            if bytes[end] == b'\r' {
                match bytes.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            bytes = &bytes[next..];
        }
        self.hold(bytes)
    }

    fn hold(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if self.line.len() + bytes.len() > self.max_line {
            return Err(SseError::TooLong(self.max_line));
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn take_line(&mut self, line: &[u8], on_data: &mut impl FnMut(&str)) -> Result<(), SseError> {
        if line.is_empty() {
            if self.has_data {
                on_data(&self.data);
                self.data.clear();
                self.has_data = false;
            }
            return Ok(());
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(0) => return Ok(()),
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        if field != b"data" {
            return Ok(());
        }
        let value = crate::scan::utf8::validate(value).map_err(|_| SseError::NotUtf8)?;
        if self.data.len() + value.len() + 1 > self.max_line {
            return Err(SseError::TooLong(self.max_line));
        }
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.has_data = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(input: &[u8], cuts: &[usize]) -> Result<Vec<String>, SseError> {
        let mut decoder = SseDecoder::new(64);
        let mut out = Vec::new();
        let mut from = 0;
        for &cut in cuts.iter().chain([&input.len()]) {
            decoder.push(&input[from..cut], &mut |data| out.push(data.to_owned()))?;
            from = cut;
        }
        Ok(out)
    }

    const STREAM: &[u8] = b": comment\r\ndata: {\"a\":1}\r\n\r\nevent: x\ndata:two\ndata: lines\n\ndata:\n\nid: 3\rdata: cr\r\rdata: tail";

    #[test]
    fn events_are_the_same_at_every_split() {
        let whole = decode_in_pieces(STREAM, &[]).unwrap();
        assert_eq!(whole, ["{\"a\":1}", "two\nlines", "", "cr"]);
        for a in 0..=STREAM.len() {
            for b in a..=STREAM.len() {
                assert_eq!(decode_in_pieces(STREAM, &[a, b]).unwrap(), whole, "{a} {b}");
            }
        }
    }

    #[test]
    fn long_lines_and_events_are_refused() {
        let long = [b"data: ".as_slice(), &[b'x'; 80], b"\n\n"].concat();
        for cut in 0..long.len() {
            assert_eq!(
                decode_in_pieces(&long, &[cut]),
                Err(SseError::TooLong(64)),
                "{cut}"
            );
        }
        let many = b"data: 0123456789012345678901234\ndata: 0123456789012345678901234\ndata: 01234567890123456789\n\n";
        assert_eq!(decode_in_pieces(many, &[]), Err(SseError::TooLong(64)));
        assert_eq!(
            decode_in_pieces(b"data: \xff\n\n", &[]),
            Err(SseError::NotUtf8)
        );
    }
}
