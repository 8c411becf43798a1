//! # toolsieve
//!
//! A zero-copy push parser for LLM tool calls.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod contract;
pub(crate) mod coerce;
mod engine;
mod error;
pub mod event;
pub mod middleware;
mod format;
mod limits;
mod protocol;
mod scan;
mod tool;

pub use engine::{Parser, ParserBuilder};
pub use error::{Diagnostic, DiagnosticKind, Error, OnInvalid};
pub use event::{CallId, Event, Span, TextId};
pub use format::Format;
pub use limits::Limits;
pub use tool::Tool;
