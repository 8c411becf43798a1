//! Bounds that keep memory and work finite on hostile input.

/// Limits on what one stream may make the parser hold or build.
///
/// Past a limit the parser does not grow: the call in progress degrades to
/// text with a [`Diagnostic`](crate::Diagnostic) and scanning goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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

impl Limits {
    /// Sets [`max_call_bytes`](Self::max_call_bytes).
    #[must_use]
    pub fn with_max_call_bytes(mut self, n: usize) -> Limits {
        self.max_call_bytes = n;
        self
    }

    /// Sets [`max_depth`](Self::max_depth).
    #[must_use]
    pub fn with_max_depth(mut self, n: usize) -> Limits {
        self.max_depth = n;
        self
    }

    /// Sets [`max_calls`](Self::max_calls).
    #[must_use]
    pub fn with_max_calls(mut self, n: usize) -> Limits {
        self.max_calls = n;
        self
    }

    /// Sets [`max_params`](Self::max_params).
    #[must_use]
    pub fn with_max_params(mut self, n: usize) -> Limits {
        self.max_params = n;
        self
    }
}
