//! The middleware around the engine: tool prompts, history rewriting and
//! `tool_choice`, for models without a native tool-calling API.

mod render;

pub use render::{format_tool_call, format_tool_response};
