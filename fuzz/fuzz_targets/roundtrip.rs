//! Structured round trip: arbitrary prose and calls, rendered in a format,
//! parse back to exactly those calls, and the prose comes back as text.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use toolsieve::contract::{check, run_cuts};
use toolsieve::{Event, Format, Parser};

#[derive(Arbitrary, Debug)]
enum Piece {
    Prose(String),
    Call { name: String, args: Vec<(String, Arg)> },
}

#[derive(Arbitrary, Debug)]
enum Arg {
    Null,
    Bool(bool),
    Int(i64),
    Text(String),
    List(Vec<String>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    format: u8,
    pieces: Vec<Piece>,
    cuts: Vec<u16>,
}

fn value(arg: &Arg) -> Value {
    match arg {
        Arg::Null => Value::Null,
        Arg::Bool(b) => Value::Bool(*b),
        Arg::Int(n) => Value::from(*n),
        Arg::Text(s) => Value::String(s.clone()),
        Arg::List(v) => Value::Array(v.iter().cloned().map(Value::String).collect()),
    }
}

fuzz_target!(|input: Input| {
    let format = Format::ALL[input.format as usize % Format::ALL.len()];
    let (start, end) = format.default_delimiters();
    let mut text = String::new();
    let mut want_text = String::new();
    let mut want_calls = Vec::new();
    for piece in &input.pieces {
        match piece {
            // Prose that holds a marker is not prose; keep the generator honest.
            Piece::Prose(p) if p.contains(start) || p.contains('`') || p.contains('<') => {}
            Piece::Prose(p) => {
                text.push_str(p);
                want_text.push_str(p);
            }
            Piece::Call { name, .. } if name.is_empty() => {}
            Piece::Call { name, args } => {
                let args: Map<String, Value> =
                    args.iter().map(|(k, v)| (k.clone(), value(v))).collect();
                let args = Value::Object(args).to_string();
                let body = format!("{{\"name\": {}, \"arguments\": {args}}}", Value::from(name.as_str()));
                text.push_str(&format!("{start}\n{body}\n{end}"));
                want_calls.push((name.clone(), args));
            }
        }
    }
    let cuts: Vec<usize> = input.cuts.iter().map(|&c| c as usize).collect();
    let mut parser = Parser::new(format);
    let events = run_cuts(&mut parser, text.as_bytes(), &cuts);
    if let Err(e) = check(text.as_bytes(), &events, true) {
        panic!("{e}");
    }
    let mut got_text = String::new();
    let mut got_calls = Vec::new();
    for event in &events {
        match event {
            Event::TextDelta { delta, .. } => got_text.push_str(delta),
            Event::ToolCall { tool_name, input, .. } => {
                got_calls.push((tool_name.to_string(), input.to_string()))
            }
            _ => {}
        }
    }
    assert_eq!(got_calls, want_calls);
    assert_eq!(got_text, want_text);
});
