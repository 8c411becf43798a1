//! `mistral`: Mistral's models. From tokenizer v11 on (Mistral Small 3.1+,
//! Magistral, Devstral, Ministral 3) each call is
//! `[TOOL_CALLS]NAME[ARGS]{…}`, v13 with `[CALL_ID]ID` before `[ARGS]`;
//! nothing but the end of its JSON closes a call. Older models (Mistral 7B
//! v0.3, Nemo) write `[TOOL_CALLS][{"name": …, "arguments": {…}, "id": …}]`.
//! A model-given id becomes the call's `model_call_id`.

use serde_json::Value;

use super::*;

/// From v11: neither sections nor end tokens; every call begins with
/// `[TOOL_CALLS]` and ends with its JSON (the empty tokens are never
/// matched), v13 puts `[CALL_ID]ID` before `[ARGS]`.
const RULES: Rules = Rules {
    ends_with_json: true,
    id_token: Some("[CALL_ID]"),
    ..Rules::new(
        Tokens {
            section_begin: "[TOOL_CALLS]",
            section_end: "",
            call_begin: "[TOOL_CALLS]",
            sep: "[ARGS]",
            call_end: "",
        },
        NameRule::BeforeId,
    )
};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "mistral",
    aliases: &["magistral", "devstral", "mistral-v11"],
    summary: "[TOOL_CALLS]f[ARGS]{...} (v11+; [CALL_ID]id before [ARGS] in v13) or [TOOL_CALLS][{\"name\": \"f\", \"arguments\": {...}}]",
    fuzz_id: 14,
    delimiters: ("[TOOL_CALLS]", ""),
    reader,
    template: "[AVAILABLE_TOOLS][{tools}][/AVAILABLE_TOOLS]

To call a tool, write [TOOL_CALLS], the tool's name, [ARGS] and its arguments as a JSON object; repeat for each call:
[TOOL_CALLS]tool_name[ARGS]{\"arg\": \"value\"}",
    tool_entry: openai_tool,
    tools_separator: ", ",
    render_call,
    render_result,
    families: &[
        Family::new("Magistral", &["magistral", "ministral-3-3b-reasoning", "ministral-3-8b-reasoning", "ministral-3-14b-reasoning"], Think::Tagged("[THINK]", "[/THINK]")),
        Family::new("Mistral", &["mistral", "devstral", "mixtral", "ministral", "codestral"], Think::No),
    ],
    ..FormatSpec::DEFAULT
};

fn reader(delimiters: Delimiters<'_>, _tools: &[Tool], limits: &Limits) -> Reading {
    no_delimiters(delimiters)?;
    Ok((
        markers(&[SPEC.delimiters.0]),
        Automaton::TokenOrJson(Box::new(FirstByte::new(
            TokenCall::new(&RULES, limits.max_depth),
            JsonCall::new(b"", limits.max_depth),
            // From v11 on `NAME[ARGS]{…}`; before, a JSON list of calls.
            |b| matches!(b, b'[' | b'{'),
            Lead::Skipped("the stream ended after [TOOL_CALLS]"),
        ))),
    ))
}

fn render_call(name: &str, args: &Value, _call: CallRef<'_>) -> String {
    format!("[TOOL_CALLS]{name}[ARGS]{args}")
}

fn render_result(_name: &str, result: &Value, _call: CallRef<'_>) -> String {
    format!("[TOOL_RESULTS]{}[/TOOL_RESULTS]", value_text(result))
}
