//! `morph-xml`: the root element is the tool's name, each child a
//! parameter: `<get_weather><city>Paris</city></get_weather>`. Needs the
//! tool list: each tool's name is a start marker.

use std::borrow::Cow;

use serde_json::Value;

use super::*;
use crate::protocol::morph_xml::MorphXml;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "morph-xml",
    aliases: &["morphxml", "xml"],
    summary: "<f>\\n<k>v</k>\\n</f>   (needs --tools)",
    fuzz_id: 5,
    // One marker per tool: `<name`; these are placeholders.
    delimiters: ("<", ">"),
    reader,
    template: "You can call tools. To call one, write an XML element named after the tool, with one child element per parameter. Write text as it is, numbers and booleans as plain values, arrays by repeating the element, and objects as nested elements. Write nothing else inside the tool element.

Available tools:
{tools}",
    tool_entry,
    tools_separator: "\n",
    render_call,
    render_result,
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, tools: &[Tool], limits: &Limits) -> Reading {
    if tools.is_empty() {
        return Err(Error::ToolsRequired("morph-xml"));
    }
    if delimiters.is_some() {
        return Err(Error::InvalidMarker(crate::MarkerError::MarkersAreToolNames));
    }
    let markers = tools
        .iter()
        .map(|t| Marker {
            bytes: Cow::Owned(format!("<{}", t.name).into_bytes()),
            boundary: Boundary::TagNameEnd,
        })
        .collect();
    Ok((
        markers,
        Automaton::Morph(MorphXml::new(tools, limits.max_depth)),
    ))
}

fn tool_entry(tool: &Tool) -> String {
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
        f.push_str(&format!("\n  Example:\n<{0}>\n{example}</{0}>", tool.name));
    }
    f
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
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

fn render_result(name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!(
        "<tool_response>\n<tool_name>{}</tool_name>\n<result>{}</result>\n</tool_response>",
        xml_escape(name),
        xml_escape(&value_text(result))
    )
}
