//! What the XML formats ask of a tool's parameter at every value it
//! opens: whether the value streams as a string, and the key as the
//! arguments JSON writes it. Worked out once per tool, the first time a
//! value of a call to it opens, so that opening a value scans a few short
//! names instead of walking the tool's schema and escaping the key again;
//! a parser that reads no XML call, or a list of thousands of tools of
//! which a stream calls two, builds nothing for the rest.

use std::sync::OnceLock;

use serde_json::Value;

use crate::coerce::{keyword, one_type};
use crate::scan::json::escape_json_into;
use crate::scan::same_bytes;
use crate::tool::Tool;

/// The parameters of the tools of a parser's list, in the list's order,
/// each tool's filled in when first asked for.
#[derive(Debug, Default)]
pub(crate) struct ParamTable {
    by_tool: Box<[OnceLock<Box<[Param]>>]>,
}

/// One parameter of a tool's schema.
#[derive(Debug)]
pub(crate) struct Param {
    name: Box<str>,
    /// `"name": `: the key, JSON-escaped and quoted, and the colon after
    /// it, as [`ArgsWriter`](crate::protocol::xml::ArgsWriter) writes it.
    pub(crate) key_json: Box<str>,
    /// The schema's `type` is exactly `"string"` (an `enum` or not).
    pub(crate) string_typed: bool,
    /// The schema types it exactly `"string"`, with no `enum`: its value
    /// is sent as it arrives, not coerced once complete.
    pub(crate) streams_as_string: bool,
    /// The one type its schema names, when that alone decides how a
    /// complete value is read (see [`one_type`]): a value of that type is
    /// read without walking the schema.
    pub(crate) one_type: Option<Box<str>>,
}

impl ParamTable {
    /// An empty table for a list of `tools` tools.
    pub(crate) fn new(tools: usize) -> ParamTable {
        ParamTable {
            by_tool: (0..tools).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Parameter `key` of `tools[tool]`, if its schema lists one so named
    /// (`tools` is the list the table was made for).
    ///
    /// # Complexity
    ///
    /// A linear scan of the tool's parameters: few, with short names, so
    /// cheaper than hashing the key. The first call for a tool also reads
    /// its schema's `properties` once.
    #[inline]
    pub(crate) fn get<'t>(&'t self, tools: &[Tool], tool: usize, key: &str) -> Option<&'t Param> {
        self.by_tool
            .get(tool)?
            .get_or_init(|| tools.get(tool).map(params_of).unwrap_or_default())
            .iter()
            .find(|p| same_bytes(p.name.as_bytes(), key.as_bytes()))
    }
}

/// Appends `"key": ` (the key JSON-escaped and quoted, then the colon):
/// `param`'s, the key's entry in the table, where the caller has it.
#[inline]
pub(crate) fn push_key_json(out: &mut String, key: &str, param: Option<&Param>) {
    match param {
        Some(param) => out.push_str(&param.key_json),
        None => {
            out.push('"');
            escape_json_into(out, key);
            out.push_str("\": ");
        }
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
            push_key_json(&mut key_json, name, None);
            let string_typed = keyword(schema, "type").is_some_and(|t| t == "string");
            Param {
                name: name.as_str().into(),
                key_json: key_json.into(),
                string_typed,
                streams_as_string: string_typed && keyword(schema, "enum").is_none(),
                one_type: one_type(schema).map(Into::into),
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
        let tools = [tool(serde_json::json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "days": {"type": "integer"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            }
        }))];
        let table = ParamTable::new(tools.len());
        let streams = |key| table.get(&tools, 0, key).map(|p| p.streams_as_string);
        assert_eq!(streams("city"), Some(true));
        assert_eq!(streams("unit"), Some(false));
        assert_eq!(streams("days"), Some(false));
        assert_eq!(streams("note"), Some(false));
        assert_eq!(streams("other"), None);
        assert!(table.get(&tools, 1, "city").is_none());
        // Typed as a string, with an `enum` or not (Gemma 4's bare values).
        let typed = |key| table.get(&tools, 0, key).map(|p| p.string_typed);
        assert_eq!(typed("city"), Some(true));
        assert_eq!(typed("unit"), Some(true));
        assert_eq!(typed("days"), Some(false));
        assert_eq!(typed("note"), Some(false));
    }

    #[test]
    fn keys_are_written_as_json() {
        let tools = [tool(serde_json::json!({
            "properties": {"plain": {}, "say \"hi\"\n": {}}
        }))];
        let table = ParamTable::new(tools.len());
        let key_json = |key| &*table.get(&tools, 0, key).unwrap().key_json;
        assert_eq!(key_json("plain"), "\"plain\": ");
        assert_eq!(key_json("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\": ");
    }

    #[test]
    fn only_the_tools_asked_for_are_read() {
        let schema = serde_json::json!({"properties": {"x": {"type": "string"}}});
        let tools: Vec<Tool> = (0..1000).map(|_| tool(schema.clone())).collect();
        let table = ParamTable::new(tools.len());
        assert!(table.get(&tools, 7, "x").is_some());
        let built: Vec<usize> = (0..tools.len())
            .filter(|&i| table.by_tool[i].get().is_some())
            .collect();
        assert_eq!(built, [7]);
    }

    #[test]
    fn schemas_without_properties_list_none() {
        let tools = [tool(serde_json::json!(true)), tool(Value::Null)];
        let table = ParamTable::new(tools.len());
        assert!(table.get(&tools, 0, "x").is_none());
        assert!(table.get(&tools, 1, "x").is_none());
    }
}
