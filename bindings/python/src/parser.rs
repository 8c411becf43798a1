//! `toolsieve_parser.Parser`: the streaming parser of one output.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyBool, PyDict, PyList};
use toolsieve::{Event, Format, ParserBuilder, Reasoning, Tool};

use crate::{error, events};

/// Inputs at least this long are parsed with the GIL released.
const DETACH_FROM: usize = 64 * 1024;

/// A piece of output: text, or bytes that may split a UTF-8 character (and
/// may not be UTF-8 at all: such bytes come out as U+FFFD with a
/// diagnostic, never as an exception).
#[derive(FromPyObject)]
enum Input {
    Text(PyBackedStr),
    Bytes(PyBackedBytes),
}

impl Input {
    fn len(&self) -> usize {
        match self {
            Input::Text(text) => text.len(),
            Input::Bytes(bytes) => bytes.len(),
        }
    }
}

/// The streaming parser of one model output in one format.
///
/// Feed it the output in pieces of any size (`feed`), then `finish()`; each
/// call returns the events of what it could decide. The events of any
/// split of an output concatenate to those of the whole (adjacent deltas
/// merged). One parser serves one output at a time: `reset()` (or `parse`)
/// starts the next.
#[pyclass(module = "toolsieve_parser")]
pub struct Parser {
    inner: toolsieve::Parser,
    format: Format,
}

#[pymethods]
impl Parser {
    /// A parser for `format` (a name from `formats()`), with an optional tool
    /// list (OpenAI tool dicts, or `{"name", "parameters"}` dicts), reasoning
    /// tags (`None`: the format's own; `False`: none; `True`: the format's
    /// or `<think>`; or `{"start", "end", "starts_open", "calls_inside"}`),
    /// and the delimiters of a format that takes them.
    #[new]
    #[pyo3(signature = (format, tools=None, reasoning=None, *, delimiters=None, bare_call_at_start=None, read_calls=true))]
    fn new(
        format: &str,
        tools: Option<&Bound<'_, PyAny>>,
        reasoning: Option<&Bound<'_, PyAny>>,
        delimiters: Option<(String, String)>,
        bare_call_at_start: Option<bool>,
        read_calls: bool,
    ) -> PyResult<Parser> {
        let format = format_named(format)?;
        let mut builder = toolsieve::Parser::builder(format).read_calls(read_calls);
        if let Some((start, end)) = delimiters {
            builder = builder.delimiters(start, end);
        }
        if let Some(on) = bare_call_at_start {
            builder = builder.bare_call_at_start(on);
        }
        builder = with_reasoning(builder, format, reasoning)?;
        build(builder, format, tools)
    }

    /// The parser for a model id (`"Qwen/Qwen3-8B"`, a local path, …): its
    /// family's format and reasoning tags; `thinking` as the request's
    /// `enable_thinking` switch for families that have one.
    #[staticmethod]
    #[pyo3(signature = (model, tools=None, *, thinking=None))]
    fn for_model(
        model: &str,
        tools: Option<&Bound<'_, PyAny>>,
        thinking: Option<bool>,
    ) -> PyResult<Parser> {
        let mut setup = Format::for_model(model).map_err(|e| error::new_err(e.to_string()))?;
        if let Some(on) = thinking {
            setup = setup.thinking(on);
        }
        build(setup.parser_builder(), setup.format, tools)
    }

    /// The format's name.
    #[getter]
    fn format(&self) -> &'static str {
        self.format.name()
    }

    /// Bytes held back at the end of what was fed (a partial marker, a
    /// split UTF-8 character): they come out with the next piece or at
    /// `finish()`.
    #[getter]
    fn held_back(&self) -> usize {
        self.inner.held_back()
    }

    /// The events of the next piece of output (`str`, or `bytes` split
    /// anywhere).
    fn feed(&mut self, py: Python<'_>, data: Input) -> PyResult<Py<PyList>> {
        let events = read(py, &mut self.inner, &data, false);
        to_list(py, events)
    }

    /// The end of the output: what was held back, calls cut short
    /// (diagnosed), open parts closed. The parser is then ready for the next
    /// output.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let mut events = Vec::new();
        self.inner.finish(&mut |e: Event<'static>| events.push(e));
        to_list(py, events)
    }

    /// Forgets the output so far.
    fn reset(&mut self) {
        self.inner.reset();
    }

    /// A whole output at once (the parser is reset first): the same events
    /// as feeding it in pieces and finishing.
    fn parse(&mut self, py: Python<'_>, data: Input) -> PyResult<Py<PyList>> {
        self.inner.reset();
        let events = read(py, &mut self.inner, &data, true);
        to_list(py, events)
    }

    /// `feed`, folded: the piece's text, reasoning and completed calls in
    /// one object instead of an object per event (what a server plugin
    /// sends per delta).
    fn feed_piece(&mut self, py: Python<'_>, data: Input) -> PyResult<Piece> {
        let events = read(py, &mut self.inner, &data, false);
        Piece::fold(py, events)
    }

    /// `finish`, folded as `feed_piece`.
    fn finish_piece(&mut self, py: Python<'_>) -> PyResult<Piece> {
        let mut events = Vec::new();
        self.inner.finish(&mut |e: Event<'static>| events.push(e));
        Piece::fold(py, events)
    }

    /// `parse`, folded as `feed_piece`.
    fn parse_piece(&mut self, py: Python<'_>, data: Input) -> PyResult<Piece> {
        self.inner.reset();
        let events = read(py, &mut self.inner, &data, true);
        Piece::fold(py, events)
    }

    fn __repr__(&self) -> String {
        format!("Parser(format={:?})", self.format.name())
    }
}

/// What a piece of output gave, folded: its text and reasoning (deltas
/// joined) and the calls that completed in it. Diagnostics, markup and the
/// start and end of parts are left out.
#[pyclass(frozen, get_all, module = "toolsieve_parser")]
pub struct Piece {
    /// The text to show.
    text: String,
    /// The reasoning to show.
    reasoning: String,
    /// The calls that completed, in order.
    calls: Vec<Py<events::ToolCall>>,
}

impl Piece {
    fn fold(py: Python<'_>, events: Vec<Event<'_>>) -> PyResult<Piece> {
        let mut piece = Piece {
            text: String::new(),
            reasoning: String::new(),
            calls: Vec::new(),
        };
        for event in events {
            match event {
                Event::TextDelta { delta, .. } => piece.text.push_str(&delta),
                Event::ReasoningDelta { delta, .. } => piece.reasoning.push_str(&delta),
                other => {
                    if let Ok(call) = events::ToolCall::of(other) {
                        piece.calls.push(Py::new(py, call)?);
                    }
                }
            }
        }
        Ok(piece)
    }
}

#[pymethods]
impl Piece {
    fn __repr__(&self) -> String {
        format!(
            "Piece(text={:?}, reasoning={:?}, calls={})",
            self.text,
            self.reasoning,
            self.calls.len()
        )
    }
}

/// The events of `data` (and of the end, with `finish`), the GIL released
/// for a long input.
fn read<'c>(
    py: Python<'_>,
    parser: &mut toolsieve::Parser,
    data: &'c Input,
    finish: bool,
) -> Vec<Event<'c>> {
    if data.len() >= DETACH_FROM {
        py.detach(|| feed_into(parser, data, finish))
    } else {
        feed_into(parser, data, finish)
    }
}

fn feed_into<'c>(parser: &mut toolsieve::Parser, data: &'c Input, finish: bool) -> Vec<Event<'c>> {
    let mut events = Vec::new();
    let mut sink = |e| events.push(e);
    match data {
        Input::Text(text) => parser.feed_str(text, &mut sink),
        Input::Bytes(bytes) => parser.feed(bytes, &mut sink),
    }
    if finish {
        parser.finish(&mut sink);
    }
    events
}

fn to_list(py: Python<'_>, events: Vec<Event<'_>>) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    for event in events {
        list.append(events::to_python(py, event)?)?;
    }
    Ok(list.unbind())
}

fn build(
    builder: ParserBuilder,
    format: Format,
    tools: Option<&Bound<'_, PyAny>>,
) -> PyResult<Parser> {
    let builder = match tools {
        Some(tools) if !tools.is_none() => builder.tools(Arc::<[Tool]>::from(tool_list(tools)?)),
        _ => builder,
    };
    let inner = builder.build().map_err(|e| error::new_err(e.to_string()))?;
    Ok(Parser { inner, format })
}

/// The format of a name or alias.
pub fn format_named(name: &str) -> PyResult<Format> {
    Format::from_name(name).ok_or_else(|| {
        error::new_err(format!(
            "unknown format `{name}`; the formats are {}",
            Format::names().join(", ")
        ))
    })
}

/// A Python tool list (OpenAI tool dicts, pydantic models with
/// `model_dump`, or plain `{"name", "parameters"}` dicts).
pub fn tool_list(tools: &Bound<'_, PyAny>) -> PyResult<Vec<Tool>> {
    let json = crate::to_json(tools)?;
    Tool::list_from_json(&json).map_err(|e| error::new_err(e.to_string()))
}

fn with_reasoning(
    builder: ParserBuilder,
    format: Format,
    reasoning: Option<&Bound<'_, PyAny>>,
) -> PyResult<ParserBuilder> {
    let Some(reasoning) = reasoning.filter(|r| !r.is_none()) else {
        return Ok(builder);
    };
    if let Ok(on) = reasoning.cast::<PyBool>() {
        let tags = on
            .is_true()
            .then(|| format.default_reasoning().unwrap_or_else(Reasoning::think));
        return Ok(builder.reasoning(tags));
    }
    let Ok(dict) = reasoning.cast::<PyDict>() else {
        return Err(PyTypeError::new_err(
            "reasoning must be None, a bool, or a dict with \"start\" and \"end\"",
        ));
    };
    Ok(builder.reasoning(reasoning_from(dict)?))
}

/// `{"start", "end", "starts_open", "calls_inside", "ends_at_calls"}` (the camelCase keys of
/// the Rust type's JSON too).
fn reasoning_from(dict: &Bound<'_, PyDict>) -> PyResult<Reasoning> {
    let text = |key: &str| -> PyResult<String> {
        dict.get_item(key)?
            .ok_or_else(|| error::new_err(format!("reasoning needs \"{key}\"")))?
            .extract()
    };
    let flag = |snake: &str, camel: &str| -> PyResult<bool> {
        match dict.get_item(snake)?.or(dict.get_item(camel)?) {
            Some(value) => value.extract(),
            None => Ok(false),
        }
    };
    Ok(Reasoning::tags(text("start")?, text("end")?)
        .starting_open(flag("starts_open", "startsOpen")?)
        .with_calls_inside(flag("calls_inside", "callsInside")?)
        .ending_at_calls(flag("ends_at_calls", "endsAtCalls")?))
}
