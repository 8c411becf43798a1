//! Tool definitions, as callers describe them to a model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// A function tool: a name, a description and a JSON Schema for its
/// arguments. Deserializes from the usual `{"name", "description",
/// "parameters"}` object (`inputSchema` and `input_schema` are accepted for
/// `parameters`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// JSON Schema of the arguments object.
    #[serde(
        default = "empty_object_schema",
        alias = "inputSchema",
        alias = "input_schema"
    )]
    pub parameters: Value,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

impl Tool {
    /// The JSON Schema of parameter `key`, if the tool's schema lists it.
    ///
    /// A linear scan: property maps are small, and comparing a few short
    /// strings is cheaper than hashing one.
    pub(crate) fn param_schema(&self, key: &str) -> Option<&Value> {
        let Value::Object(schema) = &self.parameters else {
            return None;
        };
        // Keys are short: compared without a libc call.
        let same = |k: &String, want: &str| crate::scan::same_bytes(k.as_bytes(), want.as_bytes());
        let (_, Value::Object(properties)) = schema.iter().find(|(k, _)| same(k, "properties"))?
        else {
            return None;
        };
        properties
            .iter()
            .find(|(k, _)| same(k, key))
            .map(|(_, v)| v)
    }

    /// A tool with the given name and an empty-object schema.
    pub fn new(name: impl Into<String>) -> Tool {
        Tool {
            name: name.into(),
            description: String::new(),
            parameters: empty_object_schema(),
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Tool {
        self.description = description.into();
        self
    }

    /// Sets the JSON Schema of the arguments.
    pub fn with_parameters(mut self, parameters: Value) -> Tool {
        self.parameters = parameters;
        self
    }

    /// Reads a JSON array of tools. Also accepts the OpenAI shape
    /// `[{"type": "function", "function": {…}}]`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidTools`] when the text is not such an array, a name is
    /// empty, or two tools share a name.
    pub fn list_from_json(text: &str) -> Result<Vec<Tool>, Error> {
        let entries: Vec<Value> = serde_json::from_str(text)
            .map_err(|e| Error::InvalidTools(format!("not a JSON array of tools: {e}")))?;
        let tools = entries
            .into_iter()
            .enumerate()
            .map(|(i, entry)| tool_entry(i, entry))
            .collect::<Result<Vec<Tool>, Error>>()?;
        for (i, tool) in tools.iter().enumerate() {
            if tool.name.is_empty() {
                return Err(Error::InvalidTools(format!("tool {i} has an empty name")));
            }
            if tools[..i].iter().any(|t| t.name == tool.name) {
                return Err(Error::InvalidTools(format!(
                    "two tools are named `{}`",
                    tool.name
                )));
            }
        }
        Ok(tools)
    }
}

/// Entry `i` of a tool list: a tool, or OpenAI's `{"type": "function",
/// "function": {…}}` around one. Errors name the entry and the field.
fn tool_entry(i: usize, entry: Value) -> Result<Tool, Error> {
    let bad = |what: String| Error::InvalidTools(format!("tool {i}: {what}"));
    let Value::Object(mut object) = entry else {
        return Err(bad(format!("expected an object, not {entry}")));
    };
    let (mut object, at) = match object.remove("function") {
        Some(Value::Object(function)) => (function, "function."),
        Some(other) => return Err(bad(format!("\"function\" must be an object, not {other}"))),
        None => (object, ""),
    };
    let name = match object.remove("name") {
        Some(Value::String(name)) => name,
        Some(other) => return Err(bad(format!("\"{at}name\" must be a string, not {other}"))),
        None => return Err(bad(format!("\"{at}name\" is missing"))),
    };
    let description = match object.remove("description") {
        Some(Value::String(text)) => text,
        None | Some(Value::Null) => String::new(),
        Some(other) => {
            return Err(bad(format!(
                "\"{at}description\" must be a string, not {other}"
            )))
        }
    };
    let parameters = ["parameters", "inputSchema", "input_schema"]
        .iter()
        .find_map(|key| object.remove(*key))
        .unwrap_or_else(empty_object_schema);
    if !matches!(parameters, Value::Object(_) | Value::Bool(_)) {
        return Err(bad(format!(
            "\"{at}parameters\" must be a JSON Schema object, not {parameters}"
        )));
    }
    Ok(Tool {
        name,
        description,
        parameters,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(text: &str) -> String {
        Tool::list_from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn tool_list_errors_name_the_entry_and_the_field() {
        assert!(error_of(r#"[{"name": "a"}, {"name": 3}]"#)
            .contains("tool 1: \"name\" must be a string"));
        assert!(
            error_of(r#"[{"type": "function", "function": {"nme": "x"}}]"#)
                .contains("tool 0: \"function.name\" is missing")
        );
        assert!(
            error_of(r#"[{"name": "a", "parameters": "{}"}]"#).contains("\"parameters\" must be")
        );
        assert!(error_of(r#"[{"name": "a"}, {"name": "a"}]"#).contains("two tools are named `a`"));
        assert!(error_of(r#"{"name": "a"}"#).contains("not a JSON array"));
        let tools = Tool::list_from_json(
            r#"[{"type": "function", "function": {"name": "a", "description": "A", "parameters": {"type": "object"}}},
                {"name": "b", "input_schema": {"type": "object"}}]"#,
        )
        .unwrap();
        assert_eq!(
            (tools[0].name.as_str(), tools[0].description.as_str()),
            ("a", "A")
        );
        assert_eq!(tools[1].parameters, serde_json::json!({"type": "object"}));
    }
}
