//! The middleware around the engine: tool prompts, history rewriting and
//! `tool_choice`, for models without a native tool-calling API.

mod choice;
mod enforce;
mod model;
mod params;
mod prompt;
mod protocol;
mod render;
mod stream;
mod tool_loop;

pub use choice::{
    response_schema, validate, wire_tool_choice, Provider, ToolChoice, ToolSpec, WireOptions,
};
pub use enforce::ToolChoiceUnmet;
pub use model::{
    Content, ErrorReport, FinishReason, GenerateResult, Generation, LanguageModel, ModelError,
    ModelPart, ScriptedModel, StreamPart, ToolCallingModel, Usage,
};
pub use params::{
    transform_params, Message, Mode, ParamsOptions, Part, Placement, Request, ToolResult,
    Transformed,
};
pub use prompt::{default_template, format_tools, tools_block, TOOLS_PLACEHOLDER};
pub use protocol::Protocol;
pub use render::{format_tool_call, format_tool_response};
pub use stream::ResponseParser;
pub use tool_loop::{
    has_tool_call, step_count_is, LoopError, LoopEvent, LoopResult, LoopTool, RepairRequest, Step,
    StepCall, StepOverrides, StepPredicate, StopCondition, ToolLoop, ToolOutput,
};
