//! The raw bytes of the call in progress and where its span starts: what
//! comes back as text when the call fails, and what `raw_span` covers
//! when it is delivered.

use smallvec::SmallVec;

use crate::event::Span;

/// Bytes a call attempt gives back to be read again (see
/// [`RawCall::take_back`]).
pub(crate) type GivenBack = SmallVec<[u8; 32]>;

/// See [`Core::reread`](RawCall::reread): a second relaxed call after one
/// that lacked its end marker is read, while a chain of such calls costs
/// at most this many times the stream.
pub(crate) const REREAD_FACTOR: u64 = 2;

/// The call's raw bytes since the last delivered call, and the read-ahead
/// account of relaxed bodies. The engine changes it only through its
/// methods.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawCall {
    /// Raw bytes of the call in progress since the last delivered call
    /// (given back as text if it fails).
    pub(super) buf: Vec<u8>,
    /// Stream offset of `buf[0]`.
    pub(super) start: u64,
    /// Where the raw span of the call in progress starts.
    pub(super) span_start: u64,
    /// Set when a call was delivered in the middle of a block (several
    /// calls in one `<minimax:tool_call>`): bytes before it are accounted
    /// for.
    pub(super) delivered_to: Option<u64>,
    /// Stream offset up to which a call body was read ahead as relaxed
    /// JSON.
    pub(super) relaxed_to: u64,
    /// Bytes read ahead a second time (a call given back from an earlier
    /// read-ahead, read ahead in turn): at most [`REREAD_FACTOR`] times
    /// `relaxed_to` in all, so that reading ahead stays linear.
    pub(super) reread: u64,
    /// [`Limits::max_call_bytes`](crate::Limits::max_call_bytes), kept
    /// here for the steady path's check.
    pub(super) max_len: usize,
}

impl RawCall {
    /// A new stream: nothing read, offsets from 0.
    pub(crate) fn start_stream(&mut self) {
        *self = RawCall {
            buf: std::mem::take(&mut self.buf),
            max_len: self.max_len,
            ..RawCall::default()
        };
        self.buf.clear();
    }

    /// A call whose marker begins at stream offset `at` with `held` (bytes
    /// held back from earlier chunks), then `first`; its span starts there.
    #[inline]
    pub(crate) fn begin(&mut self, at: u64, held: &[u8], first: &[u8]) {
        self.start = at;
        self.buf.clear();
        self.buf.extend_from_slice(held);
        self.buf.extend_from_slice(first);
        self.begin_span();
    }

    /// A call with no marker at the start of the stream.
    #[inline]
    pub(crate) fn begin_bare(&mut self) {
        self.buf.clear();
        self.span_start = 0;
        self.delivered_to = None;
    }

    /// The call's span starts where its buffered bytes do.
    #[inline]
    pub(crate) fn begin_span(&mut self) {
        self.span_start = self.start;
        self.delivered_to = None;
    }

    /// More bytes of the call.
    #[inline]
    pub(crate) fn append(&mut self, bytes: &[u8]) {
        crate::scan::append_bytes(&mut self.buf, bytes);
    }

    /// The bytes buffered.
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// How many bytes are buffered.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    /// How many more bytes the call may grow by before its size limit.
    #[inline]
    pub(crate) fn room(&self) -> usize {
        self.max_len.saturating_sub(self.buf.len())
    }

    /// Whether no byte is buffered.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Where the buffered bytes lie in the stream.
    #[inline]
    pub(crate) fn span(&self) -> Span {
        Span {
            start: self.start,
            end: self.start + self.buf.len() as u64,
        }
    }

    /// Forgets the buffered bytes (the attempt ended).
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
    }

    /// Splits off the last `n` bytes, to be read again: held inline when
    /// they are few (the whitespace or marker start a call read past its
    /// end), so that a call's end allocates nothing for them.
    #[inline]
    pub(crate) fn take_back(&mut self, n: usize) -> GivenBack {
        let keep = self.buf.len().saturating_sub(n);
        let back = GivenBack::from_slice(&self.buf[keep..]);
        self.buf.truncate(keep);
        back
    }

    /// Forgets the raw bytes of calls delivered in the middle of a block.
    #[inline]
    pub(crate) fn trim_delivered(&mut self) {
        if let Some(to) = self.delivered_to.take() {
            let cut = usize::try_from(to.saturating_sub(self.start))
                .unwrap_or(usize::MAX)
                .min(self.buf.len());
            self.buf.drain(..cut);
            self.start += cut as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_delivered_mid_block_leaves_the_rest_buffered() {
        let mut raw = RawCall::default();
        raw.begin(10, b"<tool", b"_call>");
        raw.append(b"{}</tool_call><tool_call>{");
        assert_eq!(
            raw.span(),
            Span {
                start: 10,
                end: 10 + 11 + 26
            }
        );
        raw.delivered_to = Some(10 + 11 + 14);
        raw.trim_delivered();
        assert_eq!(raw.bytes(), b"<tool_call>{");
        assert_eq!(raw.span().start, 35);
        assert_eq!(&raw.take_back(1)[..], b"{");
        assert_eq!(raw.bytes(), b"<tool_call>");
        raw.start_stream();
        assert!(raw.is_empty());
        assert_eq!(raw.span(), Span { start: 0, end: 0 });
    }
}
