//! The tool system prompt, in the layout each model family was trained on.

use serde_json::{json, Value};

use crate::tool::Tool;
use crate::Format;

/// The placeholder a template's tool block replaces.
pub const TOOLS_PLACEHOLDER: &str = "{tools}";

/// The default template of `format`: instructions around [`TOOLS_PLACEHOLDER`].
pub fn default_template(format: Format) -> &'static str {
    match format {
        Format::Hermes => HERMES,
        Format::Gemma => GEMMA,
        Format::Qwen3Coder => QWEN3_CODER,
        Format::MiniMaxM2 => MINIMAX_M2,
        Format::Glm => GLM,
        Format::MorphXml => MORPH_XML,
        Format::DeepSeek => DEEPSEEK,
        Format::KimiK2 => KIMI_K2,
        Format::DeepSeekDsml => DEEPSEEK_DSML,
        Format::DeepSeekV3 => DEEPSEEK_V3,
    }
}

const HERMES: &str = "You are a function calling AI model. You may call one or more functions to assist with the user query. Don't make assumptions about what values to plug into functions. Here are the available tools:
<tools>
{tools}
</tools>
For each function call, return a JSON object with the function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{\"name\": <function-name>, \"arguments\": <args-json-object>}
</tool_call>";

const GEMMA: &str = "You have access to the following functions:
{tools}

To call a function, reply with a fenced block tagged tool_call that holds one JSON object with the function name and arguments, and nothing else in the block:
```tool_call
{\"name\": \"function_name\", \"arguments\": {\"arg\": \"value\"}}
```
Use one block per call. If no function fits, answer normally.";

const QWEN3_CODER: &str = "# Tools

You have access to the following functions:

<tools>
{tools}
</tools>

If you choose to call a function ONLY reply in the following format with NO suffix:

<tool_call>
<function=example_function_name>
<parameter=example_parameter_1>
value_1
</parameter>
<parameter=example_parameter_2>
This is the value for the second parameter
that can span
multiple lines
</parameter>
</function>
</tool_call>

<IMPORTANT>
Reminder:
- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags
- Required parameters MUST be specified
- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after
- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls
</IMPORTANT>";

const MINIMAX_M2: &str = "# Tools
You may call one or more tools to assist with the user query.
Here are the tools available in JSONSchema format:

<tools>
{tools}
</tools>

When making tool calls, use XML format to invoke tools and pass parameters:

<minimax:tool_call>
<invoke name=\"tool-name-1\">
<parameter name=\"param-key-1\">param-value-1</parameter>
<parameter name=\"param-key-2\">param-value-2</parameter>
</invoke>
</minimax:tool_call>";

const DEEPSEEK_DSML: &str = "## Tools

You have access to a set of tools you can use to answer the user's question.
You can invoke functions by writing a \"<｜DSML｜function_calls>\" block like the following as part of your reply to the user:
<｜DSML｜function_calls>
<｜DSML｜invoke name=\"$FUNCTION_NAME\">
<｜DSML｜parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE</｜DSML｜parameter>
...
</｜DSML｜invoke>
</｜DSML｜function_calls>

String and scalar parameters should be specified as is, without escaping or quotes, while lists and objects should use JSON format. The \"string\" attribute should be \"true\" for string parameters and \"false\" for all others (numbers, booleans, arrays, objects).

Here are the functions available in JSONSchema format:
<functions>
{tools}
</functions>";

const GLM: &str = "# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{tools}
</tools>

For each function call, output the function name and arguments within the following XML format:
<tool_call>{function-name}
<arg_key>{arg-key-1}</arg_key>
<arg_value>{arg-value-1}</arg_value>
<arg_key>{arg-key-2}</arg_key>
<arg_value>{arg-value-2}</arg_value>
</tool_call>";

const MORPH_XML: &str = "You can call tools. To call one, write an XML element named after the tool, with one child element per parameter. Write text as it is, numbers and booleans as plain values, arrays by repeating the element, and objects as nested elements. Write nothing else inside the tool element.

Available tools:
{tools}";

const DEEPSEEK: &str = "## Tools
You have access to the following tools:

{tools}

IMPORTANT: ALWAYS adhere to this exact format for tool use:
<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_call_name<｜tool▁sep｜>tool_call_arguments<｜tool▁call▁end｜>{additional_tool_calls}<｜tool▁calls▁end｜>

Where:
- `tool_call_name` must be an exact match to one of the available tools
- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema
- For multiple tool calls, chain them directly without separators or spaces";

const DEEPSEEK_V3: &str = "## Tools
You have access to the following tools:

{tools}

IMPORTANT: ALWAYS adhere to this exact format for tool use:
<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>tool_call_name
```json
tool_call_arguments
```<｜tool▁call▁end｜>{additional_tool_calls}<｜tool▁calls▁end｜>

Where:
- `tool_call_name` must be an exact match to one of the available tools
- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema
- For multiple tool calls, chain them directly without separators or spaces";

const KIMI_K2: &str = "# Tools

You may call one or more tools to assist with the user query. The tools, in JSONSchema format:
{tools}

To call tools, write one section that holds each call, numbered from 0:
<|tool_calls_section_begin|><|tool_call_begin|>functions.tool_name:0<|tool_call_argument_begin|>{\"arg\": \"value\"}<|tool_call_end|><|tool_calls_section_end|>";

fn describe(param: &Value) -> String {
    let ty = match param.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "any".into(),
    };
    let mut s = ty;
    if let Some(Value::Array(members)) = param.get("enum") {
        let members: Vec<String> = members.iter().map(Value::to_string).collect();
        s.push_str(&format!(", one of {}", members.join(", ")));
    }
    s
}

fn properties(tool: &Tool) -> Vec<(&String, &Value)> {
    match tool.parameters.get("properties") {
        Some(Value::Object(p)) => p.iter().collect(),
        _ => Vec::new(),
    }
}

fn required(tool: &Tool) -> Vec<&str> {
    match tool.parameters.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The tool block of `format`'s prompt (what replaces [`TOOLS_PLACEHOLDER`]).
pub fn tools_block(format: Format, tools: &[Tool]) -> String {
    let mut out = Vec::new();
    for tool in tools {
        out.push(match format {
            Format::Hermes => json!({"type": "function", "function": {
                "name": tool.name, "description": tool.description, "parameters": tool.parameters}})
            .to_string(),
            Format::DeepSeek | Format::DeepSeekV3 => format!(
                "### {}\nDescription: {}\n\nParameters: {}",
                tool.name, tool.description, tool.parameters
            ),
            Format::KimiK2 | Format::DeepSeekDsml => json!({"type": "function", "function": {
                "name": tool.name, "description": tool.description, "parameters": tool.parameters}})
            .to_string(),
            Format::Gemma | Format::Glm => json!({
                "name": tool.name, "description": tool.description, "parameters": tool.parameters})
            .to_string(),
            Format::MiniMaxM2 => format!(
                "<tool>{}</tool>",
                json!({"name": tool.name, "description": tool.description, "parameters": tool.parameters})
            ),
            Format::Qwen3Coder => {
                let mut f = format!("<function>\n<name>{}</name>\n", tool.name);
                if !tool.description.is_empty() {
                    f.push_str(&format!("<description>{}</description>\n", tool.description));
                }
                f.push_str("<parameters>\n");
                for (name, schema) in properties(tool) {
                    f.push_str(&format!("<parameter>\n<name>{name}</name>\n<type>{}</type>\n", describe(schema)));
                    if let Some(d) = schema.get("description").and_then(Value::as_str) {
                        f.push_str(&format!("<description>{d}</description>\n"));
                    }
                    f.push_str("</parameter>\n");
                }
                let req = required(tool);
                if !req.is_empty() {
                    f.push_str(&format!("<required>{}</required>\n", json!(req)));
                }
                f.push_str("</parameters>\n</function>");
                f
            }
            Format::MorphXml => {
                let mut f = format!("- {}", tool.name);
                if !tool.description.is_empty() {
                    f.push_str(&format!(": {}", tool.description));
                }
                let req = required(tool);
                let props = properties(tool);
                for (name, schema) in &props {
                    let mut line = format!("\n  - {name} ({}", describe(schema));
                    if req.contains(&name.as_str()) {
                        line.push_str(", required");
                    }
                    line.push(')');
                    if let Some(d) = schema.get("description").and_then(Value::as_str) {
                        line.push_str(&format!(": {d}"));
                    }
                    f.push_str(&line);
                }
                let example: String = props
                    .iter()
                    .map(|(name, _)| format!("<{name}>…</{name}>\n"))
                    .collect();
                if example.is_empty() {
                    f.push_str(&format!("\n  Example: <{}/>", tool.name));
                } else {
                    f.push_str(&format!(
                        "\n  Example:\n<{0}>\n{example}</{0}>",
                        tool.name
                    ));
                }
                f
            }
        });
    }
    // DeepSeek's sections stand a blank line apart.
    out.join(if matches!(format, Format::DeepSeek | Format::DeepSeekV3) {
        "\n\n"
    } else {
        "\n"
    })
}

/// Renders the tool system prompt: `template` (or the format's default) with
/// its [`TOOLS_PLACEHOLDER`] replaced by the tool block. Empty when there are
/// no tools.
pub fn format_tools(format: Format, tools: &[Tool], template: Option<&str>) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let template = template.unwrap_or(default_template(format));
    template.replace(TOOLS_PLACEHOLDER, &tools_block(format, tools))
}
