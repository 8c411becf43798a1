//! What the XML formats ask of a tool's parameter at every value it
//! opens: whether the value streams as a string, and the key as the
//! arguments JSON writes it. Worked out once, when the parser is built,
//! so that opening a value scans a few short names instead of walking
//! the tool's schema and escaping the key again.

use serde_json::Value;

use crate::coerce::keyword;
use crate::scan::json::escape_json_into;
use crate::scan::same_bytes;
use crate::tool::Tool;

/// The parameters of every tool of a parser's list, in the list's order.
#[derive(Debug, Default)]
pub(crate) struct ParamTable {
    by_tool: Box<[Box<[Param]>]>,
}

/// One parameter of a tool's schema.
#[derive(Debug)]
pub(crate) struct Param {
    name: Box<str>,
    /// `"name": `: the key, JSON-escaped and quoted, and the colon after
    /// it, as [`ArgsWriter`](crate::protocol::xml::ArgsWriter) writes it.
    pub(crate) key_json: Box<str>,
    /// The schema types it exactly `"string"`, with no `enum`: its value
    /// is sent as it arrives, not coerced once complete.
    pub(crate) streams_as_string: bool,
}

impl ParamTable {
    /// The table of `tools`.
    ///
    /// # Complexity
    ///
    /// O(the tools' parameters), once per parser build.
    pub(crate) fn new(tools: &[Tool]) -> ParamTable {
        ParamTable {
            by_tool: tools.iter().map(params_of).collect(),
        }
    }

    /// Parameter `key` of the tool at `tool` in the list, if its schema
    /// lists one so named.
    ///
    /// # Complexity
    ///
    /// A linear scan of the tool's parameters: few, with short names, so
    /// cheaper than hashing the key.
    #[inline]
    pub(crate) fn get(&self, tool: usize, key: &str) -> Option<&Param> {
        self.by_tool
            .get(tool)?
            .iter()
            .find(|p| same_bytes(p.name.as_bytes(), key.as_bytes()))
    }
}

/// The parameters `tool`'s schema lists under `properties`, as
/// [`Tool::param_schema`] finds them.
fn params_of(tool: &Tool) -> Box<[Param]> {
    let Some(Value::Object(properties)) = keyword(&tool.parameters, "properties") else {
        return Box::default();
    };
    properties
        .iter()
        .map(|(name, schema)| {
            let mut key_json = String::with_capacity(name.len() + 4);
            key_json.push('"');
            escape_json_into(&mut key_json, name);
            key_json.push_str("\": ");
            Param {
                name: name.as_str().into(),
                key_json: key_json.into(),
                streams_as_string: keyword(schema, "type").is_some_and(|t| t == "string")
                    && keyword(schema, "enum").is_none(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(parameters: Value) -> Tool {
        Tool {
            parameters,
            ..Tool::new("f")
        }
    }

    #[test]
    fn streams_only_plain_strings() {
        let table = ParamTable::new(&[tool(serde_json::json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "days": {"type": "integer"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            }
        }))]);
        let streams = |key| table.get(0, key).map(|p| p.streams_as_string);
        assert_eq!(streams("city"), Some(true));
        assert_eq!(streams("unit"), Some(false));
        assert_eq!(streams("days"), Some(false));
        assert_eq!(streams("note"), Some(false));
        assert_eq!(streams("other"), None);
        assert!(table.get(1, "city").is_none());
    }

    #[test]
    fn keys_are_written_as_json() {
        let table = ParamTable::new(&[tool(serde_json::json!({
            "properties": {"plain": {}, "say \"hi\"\n": {}}
        }))]);
        assert_eq!(&*table.get(0, "plain").unwrap().key_json, "\"plain\": ");
        assert_eq!(
            &*table.get(0, "say \"hi\"\n").unwrap().key_json,
            "\"say \\\"hi\\\"\\n\": "
        );
    }

    #[test]
    fn schemas_without_properties_list_none() {
        let table = ParamTable::new(&[tool(serde_json::json!(true)), tool(Value::Null)]);
        assert!(table.get(0, "x").is_none());
        assert!(table.get(1, "x").is_none());
    }
}
