//! Rendering calls and results as the text each format's models write, for
//! chat history. Whatever [`format_tool_call`] writes, the format's parser
//! reads back as the same call (a property test and a fuzz target check it).

use serde_json::Value;

use crate::Format;

/// A parameter value as text: strings verbatim, everything else as JSON.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Wraps a value in the newlines the parsers strip (one after the opening
/// tag, one before the closing tag; `\r\n` counts as one). Inline formats
/// (`always == false`) only wrap values that begin or end with a newline.
fn padded(text: &str, always: bool) -> String {
    let needed = text.starts_with('\n') || text.starts_with("\r\n") || text.ends_with('\n');
    if !(always || needed) {
        return text.to_owned();
    }
    // A value ending in `\r` would make `\r\n` with a plain `\n`.
    let close = if text.ends_with('\r') { "\r\n" } else { "\n" };
    format!("\n{text}{close}")
}

/// Escapes text for an XML element.
fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn members(args: &Value) -> Vec<(&String, &Value)> {
    match args {
        Value::Object(map) => map.iter().collect(),
        _ => Vec::new(),
    }
}

/// Renders an assistant's call to `name` with `args` (a JSON object) the way
/// `format`'s models write it.
///
/// ```
/// use serde_json::json;
/// use toolsieve::{middleware::format_tool_call, Format};
///
/// let text = format_tool_call(Format::Hermes, "get_weather", &json!({"city": "Paris"}));
/// assert_eq!(text, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n</tool_call>");
/// ```
pub fn format_tool_call(format: Format, name: &str, args: &Value) -> String {
    let json_name = Value::String(name.to_owned()).to_string();
    let empty = Value::Object(Default::default());
    let args = if args.is_object() { args } else { &empty };
    match format {
        Format::Hermes => {
            format!("<tool_call>\n{{\"name\": {json_name}, \"arguments\": {args}}}\n</tool_call>")
        }
        Format::Gemma => {
            format!("```tool_call\n{{\"name\": {json_name}, \"arguments\": {args}}}\n```")
        }
        Format::Qwen3Coder => {
            let mut out = format!("<tool_call>\n<function={name}>\n");
            for (k, v) in members(args) {
                out.push_str(&format!(
                    "<parameter={k}>{}</parameter>\n",
                    padded(&value_text(v), true)
                ));
            }
            out.push_str("</function>\n</tool_call>");
            out
        }
        Format::MiniMaxM2 => {
            let mut out = format!("<minimax:tool_call>\n<invoke name=\"{name}\">\n");
            for (k, v) in members(args) {
                out.push_str(&format!(
                    "<parameter name=\"{k}\">{}</parameter>\n",
                    padded(&value_text(v), false)
                ));
            }
            out.push_str("</invoke>\n</minimax:tool_call>");
            out
        }
        Format::DeepSeekDsml => {
            let mut out = format!("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"{name}\">\n");
            for (k, v) in members(args) {
                out.push_str(&format!(
                    "<｜DSML｜parameter name=\"{k}\" string=\"{}\">{}</｜DSML｜parameter>\n",
                    v.is_string(),
                    padded(&value_text(v), false)
                ));
            }
            out.push_str("</｜DSML｜invoke>\n</｜DSML｜function_calls>");
            out
        }
        Format::Glm => {
            let mut out = format!("<tool_call>{name}\n");
            for (k, v) in members(args) {
                out.push_str(&format!(
                    "<arg_key>{k}</arg_key>\n<arg_value>{}</arg_value>\n",
                    padded(&value_text(v), false)
                ));
            }
            out.push_str("</tool_call>");
            out
        }
        // `function` names DeepSeek-V3's layout, where the name follows.
        Format::DeepSeek if name == "function" => format!(
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>function\n```json\n{args}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        Format::DeepSeek => format!(
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        Format::DeepSeekV3 => format!(
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        Format::KimiK2 => format!(
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"
        ),
        Format::MorphXml => {
            let members = members(args);
            if members.is_empty() {
                return format!("<{name}/>");
            }
            let mut out = format!("<{name}>\n");
            for (k, v) in members {
                out.push_str(&format!(
                    "<{k}>{}</{k}>\n",
                    padded(&xml_escape(&value_text(v)), false)
                ));
            }
            out.push_str(&format!("</{name}>"));
            out
        }
    }
}

/// Renders a tool's result for the model, as a user-turn block in the
/// layout its family was trained on.
pub fn format_tool_response(format: Format, name: &str, result: &Value) -> String {
    let text = value_text(result);
    match format {
        Format::Hermes | Format::Qwen3Coder | Format::Glm => {
            format!("<tool_response>\n{text}\n</tool_response>")
        }
        Format::Gemma => format!("```tool_output\n{text}\n```"),
        Format::DeepSeek | Format::DeepSeekV3 => {
            format!("<｜tool▁output▁begin｜>{text}<｜tool▁output▁end｜>")
        }
        Format::KimiK2 => format!("## Return of functions.{name}:0\n{text}"),
        Format::MiniMaxM2 => format!("<tool_response name=\"{name}\">\n{text}\n</tool_response>"),
        Format::DeepSeekDsml => {
            format!("<function_results>\n<result>{text}</result>\n</function_results>")
        }
        Format::MorphXml => format!(
            "<tool_response>\n<tool_name>{}</tool_name>\n<result>{}</result>\n</tool_response>",
            xml_escape(name),
            xml_escape(&text)
        ),
    }
}
