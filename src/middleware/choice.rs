//! `tool_choice`: the four modes, their pre-send validation, the
//! response-format JSON Schema for `required` / `tool`, and the native wire
//! mapping for providers that support tools themselves.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::Error;
use crate::tool::Tool;

/// How the model may use tools.
///
/// Serialized as `{"type": "auto"}`, …, `{"type": "tool", "toolName": "x"}`;
/// also read from OpenAI's spellings: `"auto"`, `"none"`, `"required"` and
/// `{"type": "function", "function": {"name": "x"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", from = "AnyToolChoice")]
pub enum ToolChoice {
    /// The model decides (calls are parsed from its output).
    Auto,
    /// The model must not call tools: no tool prompt, output is text.
    None,
    /// The model must call exactly one of the tools.
    Required,
    /// The model must call this tool.
    Tool {
        /// The tool's name.
        #[serde(rename = "toolName", alias = "name")]
        name: String,
    },
}

/// Every spelling of a tool choice that [`ToolChoice`] reads.
#[derive(Deserialize)]
#[serde(untagged)]
enum AnyToolChoice {
    Word(Word),
    Tagged(Tagged),
    OpenAi {
        #[allow(dead_code)]
        r#type: FunctionTag,
        function: Named,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Word {
    Auto,
    None,
    Required,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum FunctionTag {
    Function,
}

#[derive(Deserialize)]
struct Named {
    name: String,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Tagged {
    Auto,
    None,
    Required,
    Tool {
        #[serde(rename = "toolName", alias = "name")]
        name: String,
    },
}

impl From<AnyToolChoice> for ToolChoice {
    fn from(any: AnyToolChoice) -> ToolChoice {
        match any {
            AnyToolChoice::Word(Word::Auto) | AnyToolChoice::Tagged(Tagged::Auto) => {
                ToolChoice::Auto
            }
            AnyToolChoice::Word(Word::None) | AnyToolChoice::Tagged(Tagged::None) => {
                ToolChoice::None
            }
            AnyToolChoice::Word(Word::Required) | AnyToolChoice::Tagged(Tagged::Required) => {
                ToolChoice::Required
            }
            AnyToolChoice::Tagged(Tagged::Tool { name })
            | AnyToolChoice::OpenAi {
                function: Named { name },
                ..
            } => ToolChoice::Tool { name },
        }
    }
}

impl std::str::FromStr for ToolChoice {
    type Err = Error;

    /// `auto`, `none`, `required`, or `tool:NAME`.
    fn from_str(s: &str) -> Result<ToolChoice, Error> {
        match s {
            "auto" => Ok(ToolChoice::Auto),
            "none" => Ok(ToolChoice::None),
            "required" => Ok(ToolChoice::Required),
            _ => match s.strip_prefix("tool:") {
                Some(name) if !name.is_empty() => Ok(ToolChoice::Tool {
                    name: name.to_owned(),
                }),
                _ => Err(Error::InvalidRequest(format!(
                    "tool_choice must be auto, none, required or tool:NAME, not {s:?}"
                ))),
            },
        }
    }
}

/// A tool as a request lists it: a function the middleware can describe to
/// the model, or a provider-defined tool (web search, code execution, …)
/// that only the provider can run.
///
/// Serialized as `{"type": "function", "name", "description",
/// "parameters"}`; OpenAI's nested `{"type": "function", "function": {…}}`
/// is read too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", from = "AnyToolSpec")]
pub enum ToolSpec {
    /// A function tool.
    Function(Tool),
    /// A provider-defined tool, by id (`openai.web_search`) and name.
    Provider {
        /// Provider tool id.
        id: String,
        /// Name the model would call it by.
        name: String,
    },
}

#[derive(Deserialize)]
#[serde(untagged)]
enum AnyToolSpec {
    Nested {
        #[allow(dead_code)]
        r#type: FunctionTag,
        function: Tool,
    },
    Tagged(TaggedSpec),
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum TaggedSpec {
    Function(Tool),
    Provider { id: String, name: String },
}

impl From<AnyToolSpec> for ToolSpec {
    fn from(any: AnyToolSpec) -> ToolSpec {
        match any {
            AnyToolSpec::Nested { function, .. }
            | AnyToolSpec::Tagged(TaggedSpec::Function(function)) => ToolSpec::Function(function),
            AnyToolSpec::Tagged(TaggedSpec::Provider { id, name }) => {
                ToolSpec::Provider { id, name }
            }
        }
    }
}

impl ToolSpec {
    /// The name the model calls it by.
    pub fn name(&self) -> &str {
        match self {
            ToolSpec::Function(t) => &t.name,
            ToolSpec::Provider { name, .. } => name,
        }
    }
}

impl From<Tool> for ToolSpec {
    fn from(tool: Tool) -> ToolSpec {
        ToolSpec::Function(tool)
    }
}

/// Checks `choice` against `tools` before anything reaches a model. Every
/// failure is an [`Error::InvalidRequest`] with its own message; `choice` is
/// never changed.
///
/// # Errors
///
/// - `required` with no tools;
/// - `tool` with no tools;
/// - `tool` naming a tool that is not in the list;
/// - `tool` naming a provider-defined tool.
pub fn validate(choice: &ToolChoice, tools: &[ToolSpec]) -> Result<(), Error> {
    match choice {
        ToolChoice::Auto | ToolChoice::None => Ok(()),
        ToolChoice::Required if tools.is_empty() => Err(Error::InvalidRequest(
            "tool_choice \"required\" needs at least one tool".into(),
        )),
        ToolChoice::Required => Ok(()),
        ToolChoice::Tool { name } if tools.is_empty() => Err(Error::InvalidRequest(format!(
            "tool_choice names tool {name:?} but the request has no tools"
        ))),
        ToolChoice::Tool { name } => match tools.iter().find(|t| t.name() == name) {
            None => Err(Error::InvalidRequest(format!(
                "tool_choice names tool {name:?}, which is not in the tool list"
            ))),
            Some(ToolSpec::Provider { id, .. }) => Err(Error::InvalidRequest(format!(
                "tool_choice names {name:?}, a provider-defined tool ({id}); only function tools can be forced"
            ))),
            Some(ToolSpec::Function(_)) => Ok(()),
        },
    }
}

fn function_tools(tools: &[ToolSpec]) -> Vec<&Tool> {
    tools
        .iter()
        .filter_map(|t| match t {
            ToolSpec::Function(f) => Some(f),
            ToolSpec::Provider { .. } => None,
        })
        .collect()
}

/// The JSON Schema a `required` / `tool` response must follow, as the
/// response format: `{"name": …, "arguments": …}`. `None` for `auto` and
/// `none`.
///
/// For `tool`: `name` is the const tool name and `arguments` that tool's
/// schema; the tool's name and description are the schema's `title` and
/// `description`. For `required`: an `anyOf` with one such branch per
/// function tool, built in time linear in the tool list, nesting no
/// deeper than the tools' own schemas.
///
/// # Errors
///
/// As [`validate`]; `required` also fails when every tool is
/// provider-defined.
pub fn response_schema(choice: &ToolChoice, tools: &[ToolSpec]) -> Result<Option<Value>, Error> {
    validate(choice, tools)?;
    let functions = function_tools(tools);
    match choice {
        ToolChoice::Auto | ToolChoice::None => Ok(None),
        ToolChoice::Tool { name } => {
            let tool = functions
                .iter()
                .find(|t| t.name == *name)
                .ok_or_else(|| Error::InvalidRequest(format!("no function tool {name:?}")))?;
            Ok(Some(call_schema(tool)))
        }
        ToolChoice::Required => {
            if functions.is_empty() {
                return Err(Error::InvalidRequest(
                    "tool_choice \"required\" needs at least one function tool; provider-defined tools cannot be required here".into(),
                ));
            }
            // One flat branch per tool: built in linear time, no nesting
            // that grows with the tool list, and the shape validators and
            // grammar converters (llama.cpp's, xgrammar's) handle best.
            let branches: Vec<Value> = functions.iter().map(|tool| call_schema(tool)).collect();
            let mut schema = Map::new();
            schema.insert("type".into(), json!("object"));
            schema.insert("anyOf".into(), Value::Array(branches));
            Ok(Some(Value::Object(schema)))
        }
    }
}

/// `{"name": <the tool>, "arguments": <its schema>}`, with the tool's name
/// and description as hints for providers whose response format has room
/// for them.
fn call_schema(tool: &Tool) -> Value {
    let mut schema = json!({
        "title": tool.name,
        "type": "object",
        "properties": {
            "name": {"const": tool.name},
            "arguments": tool.parameters,
        },
        "required": ["name", "arguments"],
        "additionalProperties": false,
    });
    if !tool.description.is_empty() {
        schema["description"] = json!(tool.description);
    }
    schema
}

/// A provider with a native tool-calling API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI chat completions.
    OpenAi,
    /// Anthropic messages.
    Anthropic,
    /// Google Gemini.
    Gemini,
    /// DeepSeek (OpenAI-compatible).
    DeepSeek,
    /// xAI Grok.
    Xai,
}

impl std::str::FromStr for Provider {
    type Err = Error;

    fn from_str(s: &str) -> Result<Provider, Error> {
        Ok(match s {
            "openai" => Provider::OpenAi,
            "anthropic" => Provider::Anthropic,
            "gemini" | "google" => Provider::Gemini,
            "deepseek" => Provider::DeepSeek,
            "xai" | "grok" => Provider::Xai,
            _ => {
                return Err(Error::InvalidRequest(format!(
                    "unknown provider {s:?} (openai, anthropic, gemini, deepseek, xai)"
                )))
            }
        })
    }
}

/// Options of [`wire_tool_choice`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WireOptions {
    /// At most one call: Anthropic's `disable_parallel_tool_use: true` in
    /// its `tool_choice`; `parallel_tool_calls: false` for OpenAI, DeepSeek
    /// and xAI. Gemini has no such switch (the option is ignored there).
    pub disable_parallel_tool_use: bool,
    /// Anthropic: the request has extended thinking on, which allows only
    /// `auto` and `none`; `required` or a named tool is then an error.
    pub extended_thinking: bool,
}

/// The request fields that carry `choice` to `provider`'s native API, as a
/// JSON object to merge into the request body. A field set to `null` must be
/// removed from the request (Anthropic has no `none`: its tools are removed).
/// An absent `choice` gives `{}`: the field is omitted and the provider's
/// default applies.
///
/// # Errors
///
/// As [`validate`]; for Anthropic with
/// [`WireOptions::extended_thinking`], `required` and a named tool.
pub fn wire_tool_choice(
    provider: Provider,
    choice: Option<&ToolChoice>,
    tools: &[ToolSpec],
    options: WireOptions,
) -> Result<Value, Error> {
    let Some(choice) = choice else {
        return Ok(json!({}));
    };
    validate(choice, tools)?;
    if provider == Provider::Anthropic
        && options.extended_thinking
        && matches!(choice, ToolChoice::Required | ToolChoice::Tool { .. })
    {
        return Err(Error::InvalidRequest(
            "Anthropic's extended thinking allows tool_choice auto or none only".into(),
        ));
    }
    let one_call = options.disable_parallel_tool_use && *choice != ToolChoice::None;
    let mut fields = match (provider, choice) {
        (Provider::OpenAi | Provider::DeepSeek, ToolChoice::Tool { name }) => {
            json!({"tool_choice": {"type": "function", "function": {"name": name}}})
        }
        (Provider::Xai, ToolChoice::Tool { name }) => {
            json!({"tool_choice": {"type": "function", "name": name}})
        }
        (Provider::OpenAi | Provider::DeepSeek | Provider::Xai, mode) => {
            let mode = match mode {
                ToolChoice::Auto => "auto",
                ToolChoice::None => "none",
                _ => "required",
            };
            json!({ "tool_choice": mode })
        }
        (Provider::Anthropic, mode) => {
            let mut tc = match mode {
                // Anthropic has no `none`: the tools are removed instead.
                ToolChoice::None => json!(null),
                ToolChoice::Auto => json!({"type": "auto"}),
                ToolChoice::Required => json!({"type": "any"}),
                ToolChoice::Tool { name } => json!({"type": "tool", "name": name}),
            };
            if tc.is_null() {
                json!({"tool_choice": null, "tools": null})
            } else {
                if one_call {
                    tc["disable_parallel_tool_use"] = json!(true);
                }
                json!({ "tool_choice": tc })
            }
        }
        (Provider::Gemini, mode) => {
            let config = match mode {
                ToolChoice::Auto => json!({"mode": "AUTO"}),
                ToolChoice::None => json!({"mode": "NONE"}),
                ToolChoice::Required => json!({"mode": "ANY"}),
                ToolChoice::Tool { name } => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
            };
            json!({"toolConfig": {"functionCallingConfig": config}})
        }
    };
    if one_call
        && matches!(
            provider,
            Provider::OpenAi | Provider::DeepSeek | Provider::Xai
        )
    {
        fields["parallel_tool_calls"] = json!(false);
    }
    Ok(fields)
}
