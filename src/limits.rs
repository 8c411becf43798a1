//! Bounds that keep memory and work finite on hostile input.

/// Limits on what one stream may make the parser hold or build.
///
/// Past a limit the parser does not grow: the call in progress degrades to
/// text with a [`Diagnostic`](crate::Diagnostic) and scanning goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes one call may span, markers included (default 4 MiB).
    pub max_call_bytes: usize,
    /// Deepest JSON or XML nesting inside a call (default 64).
    pub max_depth: usize,
    /// Most tool calls delivered per stream (default 1024); later calls come
    /// back as text.
    pub max_calls: usize,
    /// Most parameters (XML formats) per call (default 1024).
    pub max_params: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_call_bytes: 4 << 20,
            max_depth: 64,
            max_calls: 1024,
            max_params: 1024,
        }
    }
}
