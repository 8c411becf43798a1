//! Errors: what went wrong before a stream could start. (What goes wrong
//! inside a stream is a [`Diagnostic`](crate::Diagnostic) event.)

pub use crate::scan::marker::MarkerError;

/// What to do with the raw text of a call that cannot be delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnInvalid {
    /// Give the raw call text back as text (the default: nothing is lost).
    #[default]
    KeepAsText,
    /// Drop the raw call text; the diagnostic still says what was dropped.
    Drop,
}

/// Errors raised before any byte is parsed: bad configuration, bad tool
/// lists, invalid requests.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The format name is not one of [`Format::ALL`](crate::Format::ALL).
    #[error("unknown format `{0}` (known: {known})", known = crate::Format::names().join(", "))]
    UnknownFormat(String),
    /// A configured marker is empty or otherwise unusable.
    #[error("invalid marker: {0}")]
    InvalidMarker(MarkerError),
    /// The format cannot work without a tool list (e.g. `morph-xml`).
    #[error("format `{0}` needs a tool list")]
    ToolsRequired(&'static str),
    /// The tool list could not be read.
    #[error("invalid tool list: {0}")]
    InvalidTools(String),
    /// A request that must not reach a model (see the middleware docs).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// JSON that could not be read.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}
