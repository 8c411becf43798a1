//! The events as Python objects: one small frozen class per kind, with the
//! fields of [`toolsieve::Event`] (snake_case) and `to_dict()` giving the
//! JSON shape of the Rust events (camelCase), as in `testdata/*.jsonl`.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use toolsieve::{Event, Span};

/// A value as it goes into `to_dict()`: `None` fields are left out, as the
/// Rust events serialize them.
trait DictValue {
    fn set_into(&self, dict: &Bound<'_, PyDict>, key: &str) -> PyResult<()>;
}

impl DictValue for String {
    fn set_into(&self, dict: &Bound<'_, PyDict>, key: &str) -> PyResult<()> {
        dict.set_item(key, self)
    }
}

impl DictValue for u64 {
    fn set_into(&self, dict: &Bound<'_, PyDict>, key: &str) -> PyResult<()> {
        dict.set_item(key, self)
    }
}

/// A span `(start, end)`: `{"start": …, "end": …}` in the dict.
impl DictValue for (u64, u64) {
    fn set_into(&self, dict: &Bound<'_, PyDict>, key: &str) -> PyResult<()> {
        let span = PyDict::new(dict.py());
        span.set_item("start", self.0)?;
        span.set_item("end", self.1)?;
        dict.set_item(key, span)
    }
}

impl<T: DictValue> DictValue for Option<T> {
    fn set_into(&self, dict: &Bound<'_, PyDict>, key: &str) -> PyResult<()> {
        match self {
            Some(value) => value.set_into(dict, key),
            None => Ok(()),
        }
    }
}

/// Declares an event class: its Rust name, its `type` (as in the JSON
/// events), and its fields with their JSON keys.
macro_rules! event_class {
    ($(#[$doc:meta])* $name:ident, $kind:literal { $($field:ident : $ty:ty => $key:literal),* $(,)? }) => {
        $(#[$doc])*
        #[pyclass(frozen, get_all, eq, module = "toolsieve_parser")]
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $(pub $field: $ty),*
        }

        #[pymethods]
        impl $name {
            #[new]
            fn new($($field: $ty),*) -> Self {
                Self { $($field),* }
            }

            /// The event's kind, as `"type"` in its JSON form.
            #[getter(r#type)]
            fn kind(&self) -> &'static str {
                $kind
            }

            /// The event as the Rust crate serializes it (camelCase keys,
            /// `None` fields left out).
            fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
                let dict = PyDict::new(py);
                dict.set_item("type", $kind)?;
                $(DictValue::set_into(&self.$field, &dict, $key)?;)*
                Ok(dict)
            }

            /// `ToolCall(id='call_0', tool_name='f', …)`: each field as
            /// Python writes it.
            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                let fields: Vec<String> = vec![$(format!(
                    "{}={}",
                    stringify!($field),
                    self.$field.clone().into_pyobject(py)?.repr()?
                )),*];
                Ok(format!("{}({})", stringify!($name), fields.join(", ")))
            }
        }
    };
}

event_class!(
    /// A text part begins.
    TextStart, "text-start" { id: String => "id" }
);
event_class!(
    /// Text for the user; adjacent deltas of one part concatenate.
    TextDelta, "text-delta" { id: String => "id", delta: String => "delta" }
);
event_class!(
    /// A text part ends.
    TextEnd, "text-end" { id: String => "id" }
);
event_class!(
    /// A reasoning part begins.
    ReasoningStart, "reasoning-start" { id: String => "id" }
);
event_class!(
    /// The model's reasoning; adjacent deltas of one part concatenate.
    ReasoningDelta, "reasoning-delta" { id: String => "id", delta: String => "delta" }
);
event_class!(
    /// A reasoning part ends.
    ReasoningEnd, "reasoning-end" { id: String => "id" }
);
event_class!(
    /// A tool call begins: its name is known.
    ToolInputStart, "tool-input-start" {
        id: String => "id",
        tool_name: String => "toolName",
        model_call_id: Option<String> => "modelCallId",
    }
);
event_class!(
    /// A piece of the call's arguments JSON.
    ToolInputDelta, "tool-input-delta" { id: String => "id", delta: String => "delta" }
);
event_class!(
    /// The call's input is complete (without a `ToolCall` after it, the
    /// call was abandoned: a `Diagnostic` says why).
    ToolInputEnd, "tool-input-end" { id: String => "id" }
);
event_class!(
    /// A complete, validated tool call; `input` is a JSON object's text.
    ToolCall, "tool-call" {
        id: String => "id",
        tool_name: String => "toolName",
        input: String => "input",
        raw_span: (u64, u64) => "rawSpan",
        model_call_id: Option<String> => "modelCallId",
    }
);
event_class!(
    /// The format's own markup outside calls: neither text nor a call.
    Markup, "markup" { span: (u64, u64) => "span" }
);
event_class!(
    /// Something was malformed, repaired, truncated or dropped.
    Diagnostic, "diagnostic" {
        kind: String => "kind",
        offset: u64 => "offset",
        id: Option<String> => "id",
        tool_name: Option<String> => "toolName",
        message: String => "message",
        raw_span: Option<(u64, u64)> => "rawSpan",
    }
);

impl ToolCall {
    /// The call of a `tool-call` event; any other event back as it was.
    pub fn of(event: Event<'_>) -> Result<ToolCall, Event<'_>> {
        match event {
            Event::ToolCall {
                id,
                tool_name,
                input,
                raw_span,
                model_call_id,
            } => Ok(ToolCall {
                id: id.to_string(),
                tool_name: tool_name.into_owned(),
                input: input.into_owned(),
                raw_span: span(raw_span),
                model_call_id: model_call_id.map(|c| c.into_owned()),
            }),
            other => Err(other),
        }
    }
}

fn span(span: Span) -> (u64, u64) {
    (span.start, span.end)
}

/// The Python object of one event.
pub fn to_python(py: Python<'_>, event: Event<'_>) -> PyResult<Py<PyAny>> {
    let object = match event {
        Event::TextStart { id } => TextStart { id: id.to_string() }
            .into_pyobject(py)?
            .into_any(),
        Event::TextDelta { id, delta } => TextDelta {
            id: id.to_string(),
            delta: delta.into_owned(),
        }
        .into_pyobject(py)?
        .into_any(),
        Event::TextEnd { id } => TextEnd { id: id.to_string() }.into_pyobject(py)?.into_any(),
        Event::ReasoningStart { id } => ReasoningStart { id: id.to_string() }
            .into_pyobject(py)?
            .into_any(),
        Event::ReasoningDelta { id, delta } => ReasoningDelta {
            id: id.to_string(),
            delta: delta.into_owned(),
        }
        .into_pyobject(py)?
        .into_any(),
        Event::ReasoningEnd { id } => ReasoningEnd { id: id.to_string() }
            .into_pyobject(py)?
            .into_any(),
        other => return call_event(py, other),
    };
    Ok(object.unbind())
}

/// [`to_python`] for the call events, markup and diagnostics.
fn call_event(py: Python<'_>, event: Event<'_>) -> PyResult<Py<PyAny>> {
    let event = match ToolCall::of(event) {
        Ok(call) => return Ok(call.into_pyobject(py)?.into_any().unbind()),
        Err(other) => other,
    };
    let object = match event {
        Event::ToolInputStart {
            id,
            tool_name,
            model_call_id,
        } => ToolInputStart {
            id: id.to_string(),
            tool_name: tool_name.into_owned(),
            model_call_id: model_call_id.map(|c| c.into_owned()),
        }
        .into_pyobject(py)?
        .into_any(),
        Event::ToolInputDelta { id, delta } => ToolInputDelta {
            id: id.to_string(),
            delta: delta.into_owned(),
        }
        .into_pyobject(py)?
        .into_any(),
        Event::ToolInputEnd { id } => ToolInputEnd { id: id.to_string() }
            .into_pyobject(py)?
            .into_any(),
        Event::Markup { span: s } => Markup { span: span(s) }.into_pyobject(py)?.into_any(),
        Event::Diagnostic(d) => Diagnostic {
            kind: d.kind.as_str().to_owned(),
            offset: d.offset,
            id: d.id.map(|id| id.to_string()),
            tool_name: d.tool_name,
            message: d.message,
            raw_span: d.raw_span.map(span),
        }
        .into_pyobject(py)?
        .into_any(),
        // `Event` is non-exhaustive: a kind this module does not know yet
        // is an error, not a silent drop.
        other => {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "toolsieve event without a Python class: {other:?}"
            )))
        }
    };
    Ok(object.unbind())
}

/// Adds the event classes to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<TextStart>()?;
    module.add_class::<TextDelta>()?;
    module.add_class::<TextEnd>()?;
    module.add_class::<ReasoningStart>()?;
    module.add_class::<ReasoningDelta>()?;
    module.add_class::<ReasoningEnd>()?;
    module.add_class::<ToolInputStart>()?;
    module.add_class::<ToolInputDelta>()?;
    module.add_class::<ToolInputEnd>()?;
    module.add_class::<ToolCall>()?;
    module.add_class::<Markup>()?;
    module.add_class::<Diagnostic>()
}
