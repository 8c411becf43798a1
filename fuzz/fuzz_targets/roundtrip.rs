//! Structured round trip, per format: arbitrary prose and calls with
//! arbitrary arguments for an arbitrary schema, rendered with
//! `format_tool_call` (and, for the JSON formats, several calls in one block:
//! objects one after another or an array, and calls written as Python dicts,
//! as some models write them, and with single backslashes before characters
//! no JSON escape begins with; for the XML formats but morph-xml, arrays of
//! JSON calls in their blocks; for hermes, Qwen3-Coder's XML calls in its
//! blocks; for the special-token formats, several calls in one section),
//! parse back to exactly those calls (after coercion to the schema), and
//! the prose comes back as text.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};
use toolsieve::contract::{check, python_repr, run_cuts, with_single_backslashes};
use toolsieve::middleware::format_tool_call;
use toolsieve::{DiagnosticKind, Event, Format, Parser, Tool};

#[derive(Arbitrary, Debug)]
enum Piece {
    Prose(String),
    Call {
        tool: u8,
        args: Vec<(u8, Arg)>,
    },
    Block {
        calls: Vec<(u8, Vec<(u8, Arg)>)>,
        array: bool,
    },
    /// For the JSON formats, the call as Python's `repr` writes it.
    Python {
        tool: u8,
        args: Vec<(u8, Arg)>,
    },
    /// For hermes, the call as Qwen3-Coder writes it (served as hermes).
    Qwen {
        tool: u8,
        args: Vec<(u8, Arg)>,
    },
    /// For the JSON formats, the tool named by `"function"`: the nested
    /// object of the OpenAI API, or a string.
    Function {
        tool: u8,
        args: Vec<(u8, Arg)>,
        nested: bool,
    },
    /// For the JSON and special-token formats, the call with a single
    /// backslash where its JSON has an escaped one before a character no
    /// escape begins with (`"\d+"`), as models write regular expressions.
    Backslashes {
        tool: u8,
        args: Vec<(u8, Arg)>,
    },
}

#[derive(Arbitrary, Debug)]
enum Arg {
    Null,
    Bool(bool),
    Int(i64),
    Float(f32),
    Text(String),
    List(Vec<String>),
    Map(Vec<(u8, i32)>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    format: u8,
    tool_names: Vec<String>,
    pieces: Vec<Piece>,
    cuts: Vec<u16>,
}

/// The value and the schema type it is declared with.
fn value(arg: &Arg, xml: bool) -> Option<(Value, Value)> {
    let text_ok = |s: &str| !xml || !s.contains(['<', '>', '&']);
    Some(match arg {
        Arg::Null => (Value::Null, json!({"type": "null"})),
        Arg::Bool(b) => (json!(b), json!({"type": "boolean"})),
        Arg::Int(n) => (json!(n), json!({"type": "integer"})),
        Arg::Float(x) if x.is_finite() => (json!(x), json!({"type": "number"})),
        Arg::Float(_) => return None,
        Arg::Text(s) if text_ok(s) => (json!(s), json!({"type": "string"})),
        Arg::Text(_) => return None,
        Arg::List(v) if v.iter().all(|s| text_ok(s)) => (
            json!(v),
            json!({"type": "array", "items": {"type": "string"}}),
        ),
        Arg::List(_) => return None,
        Arg::Map(m) => {
            let obj: Map<String, Value> =
                m.iter().map(|(k, v)| (format!("k{k}"), json!(v))).collect();
            (Value::Object(obj), json!({"type": "object"}))
        }
    })
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 40
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A call to tool `tool` with those of `args` that fit the schema built so
/// far (one type per key and tool: the first one seen).
fn call(
    tool: u8,
    args: &[(u8, Arg)],
    names: &[String],
    schemas: &mut [Map<String, Value>],
    xml: bool,
) -> (String, Value) {
    let t = tool as usize % names.len();
    let mut obj = Map::new();
    for (k, arg) in args {
        let key = format!("p{}", k % 16);
        let Some((v, schema)) = value(arg, xml) else {
            continue;
        };
        let declared = schemas[t].entry(key.clone()).or_insert(schema.clone());
        if *declared != schema || obj.contains_key(&key) {
            continue;
        }
        obj.insert(key, v);
    }
    (names[t].clone(), Value::Object(obj))
}

fuzz_target!(|input: Input| {
    let format = Format::ALL[input.format as usize % Format::ALL.len()];
    // Calls named outside their JSON arguments, between special tokens.
    let tokens = matches!(
        format,
        Format::DeepSeek | Format::DeepSeekV3 | Format::KimiK2
    );
    // Arguments as XML values, coerced by their schema.
    let xml = matches!(
        format,
        Format::Qwen3Coder
            | Format::MiniMaxM2
            | Format::Glm
            | Format::MorphXml
            | Format::DeepSeekDsml
            | Format::SeedOss
            | Format::KimiK3
    );
    // Formats whose calls are JSON objects between two markers. The others
    // (JSON lists after a token, bare JSON) get their own rendering only.
    let json_objects = matches!(format, Format::Hermes | Format::Gemma);
    // Formats that read JSON at the start of the output without a marker.
    let bare = matches!(format, Format::Xlam | Format::Llama3Json | Format::Pythonic);
    // Formats whose calls end with their JSON, with no end marker.
    let unmarked_end = matches!(
        format,
        Format::Phi4Mini | Format::Granite | Format::Xlam | Format::Llama3Json | Format::Mistral
    );
    // Text values that stay clear of markup: XML's, and Gemma's string
    // tokens.
    let gemma = matches!(format, Format::Gemma4 | Format::FunctionGemma);
    let safe_text = xml || gemma;
    // Arguments written as literals that are not JSON.
    let literal = gemma || matches!(format, Format::Pythonic | Format::Lfm2);
    // Whether the last piece written was a call.
    let mut after_call = false;
    let mut names: Vec<String> = Vec::new();
    for name in input.tool_names.iter().filter(|n| valid_name(n)) {
        // morph-xml markers are `<name`: no name may extend another.
        let clash = names
            .iter()
            .any(|n| n.starts_with(name.as_str()) || name.starts_with(n.as_str()));
        if !clash {
            names.push(name.clone());
        }
    }
    if names.is_empty() {
        return;
    }
    let (start, _) = format.default_delimiters();
    // A second start marker without `<` or a backtick (which prose never
    // holds here): xLAM also reads Mistral's `[TOOL_CALLS]`.
    let also = (format == Format::Xlam).then_some("[TOOL_CALLS]");
    let mut calls = Vec::new();
    let mut schemas: Vec<Map<String, Value>> = vec![Map::new(); names.len()];
    let mut text = String::new();
    let mut want_text = String::new();
    let mut repairs = 0;
    for piece in &input.pieces {
        let (calls_before, text_before) = (calls.len(), text.len());
        match piece {
            // Prose that is, or would make with the end of what comes
            // before it (gemma's closing fence and `tool_call`), a start
            // marker is not prose.
            Piece::Prose(p)
                if p.contains(start)
                    || p.contains(['<', '`'])
                    // Pythonic with a tool list: `[NAME(` in prose opens
                    // a call to a known tool.
                    || (format == Format::Pythonic && p.contains('['))
                    || straddles(text.as_bytes(), p.as_bytes(), start.as_bytes())
                    || also.is_some_and(|m| {
                        p.contains(m) || straddles(text.as_bytes(), p.as_bytes(), m.as_bytes())
                    })
                    || (bare && opens_json(&text, p))
                    || (format == Format::Harmony && opens_recipient(&text, p))
                    || (unmarked_end && after_call && continues_json(p)) => {}
            Piece::Prose(p) => {
                text.push_str(p);
                want_text.push_str(p);
            }
            Piece::Call { tool, args } => {
                let (name, args) = call(*tool, args, &names, &mut schemas, safe_text);
                text.push_str(&format_tool_call(format, &name, &args));
                calls.push((name, args));
            }
            Piece::Python { tool, args } => {
                let (name, args) = call(*tool, args, &names, &mut schemas, safe_text);
                if !json_objects {
                    text.push_str(&format_tool_call(format, &name, &args));
                } else {
                    let body = python_repr(&json!({"name": name, "arguments": args}));
                    let (start, end) = format.default_delimiters();
                    text.push_str(&format!("{start}\n{body}\n{end}"));
                    repairs += 1;
                }
                calls.push((name, args));
            }
            Piece::Function { tool, args, nested } => {
                let (name, args) = call(*tool, args, &names, &mut schemas, safe_text);
                if !json_objects {
                    text.push_str(&format_tool_call(format, &name, &args));
                } else {
                    let body = if *nested {
                        json!({"type": "function", "function": {"name": name, "arguments": args}})
                    } else {
                        json!({"arguments": args, "function": name})
                    };
                    let (start, end) = format.default_delimiters();
                    text.push_str(&format!("{start}\n{body}\n{end}"));
                }
                calls.push((name, args));
            }
            Piece::Backslashes { tool, args } => {
                let (name, args) = call(*tool, args, &names, &mut schemas, safe_text);
                let rendered = format_tool_call(format, &name, &args);
                let sloppy = with_single_backslashes(&rendered);
                // Literal formats have no JSON escapes to get wrong.
                if xml || literal || sloppy == rendered {
                    text.push_str(&rendered);
                } else {
                    text.push_str(&sloppy);
                    repairs += 1;
                }
                calls.push((name, args));
            }
            Piece::Qwen { tool, args } => {
                let qwen = format == Format::Hermes;
                let (name, args) = call(*tool, args, &names, &mut schemas, safe_text || qwen);
                let layout = if qwen { Format::Qwen3Coder } else { format };
                text.push_str(&format_tool_call(layout, &name, &args));
                calls.push((name, args));
            }
            Piece::Block {
                calls: block,
                array,
            } => {
                let block: Vec<(String, Value)> = block
                    .iter()
                    .map(|(tool, args)| call(*tool, args, &names, &mut schemas, safe_text))
                    .collect();
                if block.is_empty() {
                    continue;
                }
                // The XML formats' blocks may hold JSON calls too.
                let json_block = json_objects || (xml && *array && format != Format::MorphXml);
                if tokens {
                    // One section around all the calls (after a line break
                    // each, or none).
                    let (section_begin, section_end) = format.default_delimiters();
                    text.push_str(section_begin);
                    for (name, args) in &block {
                        let one = format_tool_call(format, name, args);
                        let inner = one
                            .strip_prefix(section_begin)
                            .and_then(|c| c.strip_suffix(section_end))
                            .unwrap_or(&one);
                        text.push_str(inner);
                        if *array {
                            text.push('\n');
                        }
                    }
                    text.push_str(section_end);
                } else if !json_block {
                    for (name, args) in &block {
                        text.push_str(&format_tool_call(format, name, args));
                    }
                } else {
                    let objects: Vec<String> = block
                        .iter()
                        .map(|(name, args)| json!({"name": name, "arguments": args}).to_string())
                        .collect();
                    let body = if *array {
                        format!("[{}]", objects.join(",\n "))
                    } else {
                        objects.join("\n")
                    };
                    let (start, end) = format.default_delimiters();
                    text.push_str(&format!("{start}\n{body}\n{end}"));
                }
                calls.extend(block);
            }
        }
        // Whitespace after a call leaves what may come next as it was.
        let ws: &[char] = &[' ', '\t', '\n', '\r'];
        if calls.len() > calls_before {
            after_call = true;
        } else if !text[text_before..].trim_matches(ws).is_empty() {
            after_call = false;
        }
    }
    let tools: Vec<Tool> = names
        .iter()
        .zip(&schemas)
        .map(|(n, props)| {
            Tool::new(n.clone()).with_parameters(json!({"type": "object", "properties": props}))
        })
        .collect();
    let mut parser = Parser::builder(format).tools(tools).build().unwrap();
    let cuts: Vec<usize> = input.cuts.iter().map(|&c| c as usize).collect();
    let events = run_cuts(&mut parser, text.as_bytes(), &cuts);
    if let Err(e) = check(text.as_bytes(), &events, true) {
        panic!("{e}");
    }
    let mut got_text = String::new();
    let mut got_calls = Vec::new();
    for event in &events {
        match event {
            Event::TextDelta { delta, .. } => got_text.push_str(delta),
            Event::ToolCall {
                tool_name, input, ..
            } => {
                let args: Value = serde_json::from_str(input).unwrap();
                got_calls.push((tool_name.to_string(), args))
            }
            Event::Diagnostic(d) if d.kind == DiagnosticKind::RepairedJson && repairs > 0 => {
                repairs -= 1
            }
            Event::Diagnostic(d) => panic!("diagnostic on a rendered call: {d:?}\n{text}"),
            _ => {}
        }
    }
    assert_eq!(
        repairs, 0,
        "a Python-dict call, or one with single backslashes, without its diagnostic\n{text}"
    );
    assert_eq!(got_calls, calls, "{text}");
    assert_eq!(got_text, want_text);
});

/// Whether prose `p` after `text` would open the output with a recipient:
/// for harmony, the rest of the prompt's `<|start|>assistant` header (a
/// call, or a header with a diagnostic), not prose.
fn opens_recipient(text: &str, p: &str) -> bool {
    let joined = format!("{text}{p}");
    let rest = ["  ", " "]
        .iter()
        .find_map(|spaces| joined.strip_prefix(spaces))
        .unwrap_or(&joined);
    rest.starts_with("to=")
}

/// Whether prose `p` after `text` would put JSON at the start of the
/// output (only JSON whitespace before it): a bare call there.
fn opens_json(text: &str, p: &str) -> bool {
    let ws: &[char] = &[' ', '\t', '\n', '\r'];
    text.trim_start_matches(ws).is_empty() && p.trim_start_matches(ws).starts_with(['{', '['])
}

/// Whether prose `p` would continue the JSON of a call that ends without
/// an end marker: another call object (Llama 3 writes one a line), or a
/// separator before one.
fn continues_json(p: &str) -> bool {
    let ws: &[char] = &[' ', '\t', '\n', '\r'];
    p.trim_start_matches(ws).starts_with([';', ',', '{', '['])
}

/// Whether `marker` occurs in `before` followed by `after` across the
/// place where they meet.
fn straddles(before: &[u8], after: &[u8], marker: &[u8]) -> bool {
    let tail = &before[before.len().saturating_sub(marker.len() - 1)..];
    let head = &after[..after.len().min(marker.len() - 1)];
    let joined = [tail, head].concat();
    joined.windows(marker.len()).any(|w| w == marker)
}
