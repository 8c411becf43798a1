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
        let (_, Value::Object(properties)) = schema.iter().find(|(k, _)| *k == "properties")?
        else {
            return None;
        };
        properties.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
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
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Entry {
            Wrapped { function: Tool },
            Plain(Tool),
        }
        let entries: Vec<Entry> =
            serde_json::from_str(text).map_err(|e| Error::InvalidTools(e.to_string()))?;
        let tools: Vec<Tool> = entries
            .into_iter()
            .map(|e| match e {
                Entry::Wrapped { function } | Entry::Plain(function) => function,
            })
            .collect();
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
