//! Rendering calls and results as the text each format's models write, for
//! chat history. Whatever [`format_tool_call`] writes, the format's parser
//! reads back as the same call (a property test and a fuzz target check it).

use serde_json::Value;

use crate::formats::CallRef;
use crate::Format;

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
    render_calls(format, &[(name, args, CallRef::default())])
}

/// The calls of one turn, in one block where the format writes them so
/// (`[f(), g()]`, one section of special tokens).
pub(crate) fn render_calls(format: Format, calls: &[(&str, &Value, CallRef<'_>)]) -> String {
    let spec = format.spec();
    let block = spec.call_block;
    // `null` arguments are none. Anything else that is not an object (a
    // call of an earlier turn read tolerantly) is written as it stands:
    // the JSON formats write the value, the others one `arguments`
    // parameter holding it.
    let empty = Value::Object(Default::default());
    let mut out = String::from(block.begin);
    for (i, &(name, args, call)) in calls.iter().enumerate() {
        if i > 0 {
            out.push_str(block.between);
        }
        let args = if args.is_null() { &empty } else { args };
        out.push_str(&(spec.render_call)(name, args, call));
    }
    out.push_str(block.end);
    out
}

/// Renders a tool's result for the model, as a user-turn block in the
/// layout its family was trained on.
pub fn format_tool_response(format: Format, name: &str, result: &Value) -> String {
    render_result_at(format, name, result, CallRef::default())
}

/// [`format_tool_response`] of the result that answers the call at `call`
/// in its turn.
pub(crate) fn render_result_at(
    format: Format,
    name: &str,
    result: &Value,
    call: CallRef<'_>,
) -> String {
    (format.spec().render_result)(name, result, call)
}
