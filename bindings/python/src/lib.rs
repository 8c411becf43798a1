//! Python bindings of toolsieve (`pip install toolsieve-parser`, `import
//! toolsieve_parser`): the streaming parser with its events as Python
//! objects, the format list, the middleware's tool prompt and history
//! rewrite. The vLLM and SGLang plugins are Python modules of the package
//! built on these (`python/toolsieve_parser/`).

#![forbid(unsafe_code)]

mod events;
mod middleware;
mod parser;

use pyo3::prelude::*;
use toolsieve::Format;

mod error {
    use pyo3::create_exception;
    use pyo3::exceptions::PyValueError;
    use pyo3::PyErr;

    create_exception!(
        toolsieve_parser,
        ToolsieveError,
        PyValueError,
        "What toolsieve refused: an unknown format or model, a bad tool list or request."
    );

    pub fn new_err(message: impl Into<String>) -> PyErr {
        ToolsieveError::new_err(message.into())
    }
}

/// A Python value as JSON text: dicts and lists as they are, pydantic
/// models (vLLM's and SGLang's tool types) through `model_dump`.
fn to_json(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = value.py();
    let default = py.eval(
        c"lambda o: o.model_dump(exclude_none=True) if hasattr(o, 'model_dump') else str(o)",
        None,
        None,
    )?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("default", default)?;
    py.import("json")?
        .call_method("dumps", (value,), Some(&kwargs))?
        .extract()
}

/// The names of the formats, for `Parser(format)`.
#[pyfunction]
fn formats() -> Vec<&'static str> {
    Format::names()
}

/// The format a model id writes its calls in (`"Qwen/Qwen3-8B"` →
/// `"hermes"`).
#[pyfunction]
fn format_for_model(model: &str) -> PyResult<&'static str> {
    Format::for_model(model)
        .map(|setup| setup.format.name())
        .map_err(|e| error::new_err(e.to_string()))
}

/// The reasoning tags a format defines itself (gpt-oss's analysis
/// channel), as `(start, end)`; `None` for formats without their own.
#[pyfunction]
fn format_reasoning(format: &str) -> PyResult<Option<(String, String)>> {
    let format = parser::format_named(format)?;
    Ok(format.default_reasoning().map(|r| (r.start, r.end)))
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add(
        "ToolsieveError",
        module.py().get_type::<error::ToolsieveError>(),
    )?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<parser::Parser>()?;
    module.add_class::<parser::Piece>()?;
    events::register(module)?;
    module.add_function(wrap_pyfunction!(formats, module)?)?;
    module.add_function(wrap_pyfunction!(format_for_model, module)?)?;
    module.add_function(wrap_pyfunction!(format_reasoning, module)?)?;
    module.add_function(wrap_pyfunction!(middleware::tool_prompt, module)?)?;
    module.add_function(wrap_pyfunction!(middleware::rewrite_chat_request, module)?)
}
