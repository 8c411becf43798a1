//! The middleware for Python users outside vLLM and SGLang: the tool prompt
//! of a format, and a chat request rewritten for a model without native
//! tools.

use pyo3::prelude::*;
use toolsieve::middleware::{format_tools, ParamsOptions, Placement};
use toolsieve::openai::{transform, ChatRequest};

use crate::error;
use crate::parser::{format_named, tool_list};

/// The system-prompt text that tells a model in `format` about `tools`
/// (`template`: your own, with `{tools}` where the tool list goes).
#[pyfunction]
#[pyo3(signature = (format, tools, template=None))]
pub fn tool_prompt(
    format: &str,
    tools: &Bound<'_, PyAny>,
    template: Option<&str>,
) -> PyResult<String> {
    let format = format_named(format)?;
    let tools = tool_list(tools)?;
    Ok(format_tools(format, &tools, template))
}

/// An OpenAI chat-completions request (a dict) rewritten for a model that
/// reads its tools from the prompt: the tool prompt in the system message,
/// earlier assistant calls and tool results as text in `format`, `tools` and
/// `tool_choice` removed, a JSON schema response format for `required` or a
/// named tool. Raises `ToolsieveError` for what an OpenAI server would
/// refuse (an unknown tool in `tool_choice`, a malformed message).
#[pyfunction]
#[pyo3(signature = (format, request, *, prompt_last=false, reasoning_in_history=false))]
pub fn rewrite_chat_request<'py>(
    py: Python<'py>,
    format: &str,
    request: &Bound<'py, PyAny>,
    prompt_last: bool,
    reasoning_in_history: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let format = format_named(format)?;
    let json = crate::to_json(request)?;
    let chat: ChatRequest = serde_json::from_str(&json)
        .map_err(|e| error::new_err(format!("not a chat request: {e}")))?;
    let options = ParamsOptions {
        placement: if prompt_last {
            Placement::Last
        } else {
            Placement::First
        },
        reasoning_in_history,
        tolerant_history: true,
        ..ParamsOptions::default()
    };
    let (backend, _) =
        transform(format, &chat, &options).map_err(|e| error::new_err(e.error.message))?;
    let text = serde_json::to_string(&backend).map_err(|e| error::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}
