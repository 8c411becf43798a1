//! # toolsieve
//!
//! A zero-copy push parser for LLM tool calls, and a thin middleware around
//! it for models without a native tool-calling API.
//!
//! Open models write tool calls as text: `<tool_call>{…}</tool_call>`, fenced
//! JSON, XML elements, vendor tags. A server receives that text in arbitrary
//! pieces. A [`Parser`] takes the pieces as they come ([`Parser::feed`]) and
//! hands back [`Event`]s at once: text for the user, tool input as it
//! streams, complete tool calls, and [`Diagnostic`]s when something was
//! malformed. [`Parser::finish`] ends the stream ([`Parser::reset`]
//! abandons it); the parser is then ready for the next one.
//!
//! ```
//! use toolsieve::{Event, Format, Parser};
//!
//! let mut parser = Parser::new(Format::Hermes);
//! let mut text = String::new();
//! let mut calls = Vec::new();
//! // Chunks may split anywhere: inside a marker, a JSON escape, a code point.
//! for chunk in ["Checking. <tool", "_call>{\"name\": \"get_weather\", \"argu", "ments\": {\"city\": \"Paris\"}}</tool_call>"] {
//!     parser.feed_str(chunk, &mut |event| match event {
//!         Event::TextDelta { delta, .. } => text.push_str(&delta),
//!         Event::ToolCall { tool_name, input, .. } => calls.push(format!("{tool_name} {input}")),
//!         _ => {}
//!     });
//! }
//! parser.finish(&mut |_| {});
//! assert_eq!(text, "Checking. ");
//! assert_eq!(calls, [r#"get_weather {"city": "Paris"}"#]);
//! ```
//!
//! ## Formats
//!
//! | [`Format`] | what the model writes |
//! |---|---|
//! | `hermes` | `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (delimiters configurable; several call objects, or an array of them, per block; a body in relaxed JSON — a Python dict, single quotes, `True` — is read too, and so is JSON with trailing commas, in a markdown fence, with a closing bracket too many, or missing its last ones before the end marker; the tool may be named by `"function"`, a string or OpenAI's nested object) |
//! | `gemma` | a ```` ```tool_call ```` fence holding `{"name", "arguments"}` (or several, as for `hermes`) |
//! | `qwen3-coder` | `<tool_call><function=NAME><parameter=KEY>…</parameter></function></tool_call>`, or the `<function=…>` element alone |
//! | `minimax-m2` | `<minimax:tool_call><invoke name="NAME"><parameter name="KEY">…</parameter></invoke></minimax:tool_call>` |
//! | `glm` | `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>…</arg_value></tool_call>` |
//! | `morph-xml` | `<NAME><KEY>…</KEY></NAME>` for the tools in the tool list |
//! | `deepseek-v3.1` (alias `deepseek`) | `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>` (and V3/R1's `function<｜tool▁sep｜>NAME` with a ```` ```json ```` fence) |
//! | `deepseek-v3` | the same tokens in V3/R1's layout, which its prompts and history use (it reads both) |
//! | `deepseek-v3.2` | `<｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="KEY" string="true">…</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>` (`string="false"` marks JSON; also an `invoke` alone, an `invoke` holding one JSON object, DeepSeek-V4's `tool_calls` block, V4.1's spaced tags, and the block with its `｜DSML｜` tokens dropped) |
//! | `kimi-k2` | `<\|tool_calls_section_begin\|><\|tool_call_begin\|>functions.NAME:0<\|tool_call_argument_begin\|>{…}<\|tool_call_end\|><\|tool_calls_section_end\|>` |
//! | `phi4-mini` | `functools[{"name": NAME, "arguments": {…}}, …]` |
//! | `granite` | `<\|tool_call\|>[{"name": NAME, "arguments": {…}}]` (Granite 3.x) and `<tool_call>{…}</tool_call>` (Granite 4) |
//! | `xlam` | `[{"name": NAME, "arguments": {…}}]` as the whole output, in a ```` ```json ```` fence, or after `[TOOL_CALLS]` |
//! | `llama3-json` | `{"name": NAME, "parameters": {…}}` as the whole output (`;` between calls) or after `<\|python_tag\|>` |
//! | `mistral` | `[TOOL_CALLS]NAME[ARGS]{…}` (v11+; v13's `[CALL_ID]ID` gives the call's `model_call_id`), or `[TOOL_CALLS][{"name": NAME, "arguments": {…}}]` |
//! | `cohere` | `<\|START_ACTION\|>[{"tool_call_id": ID, "tool_name": NAME, "parameters": {…}}]<\|END_ACTION\|>`; the response tokens are [`Event::Markup`] |
//! | `harmony` | gpt-oss's messages: `<\|channel\|>commentary to=functions.NAME <\|constrain\|>json<\|message\|>{…}<\|call\|>` is a call, the analysis channel reasoning, headers markup |
//! | `pythonic` | `[NAME(key="value", n=3), …]` as the whole output or after `<\|python_start\|>`; Python literals become JSON |
//! | `gemma4` | `<\|tool_call>call:NAME{key:<\|"\|>text<\|"\|>,n:3}<tool_call\|>`; the arguments become JSON |
//!
//! Names are case-insensitive, and vLLM's and SGLang's parser names are
//! aliases ([`Format::from_name`]). A model id gives its format and
//! reasoning setup ([`Format::for_model`]).
//!
//! The XML formats' blocks (all but `morph-xml`) may also hold calls in the
//! `hermes` layout, as models of those families write when prompted so:
//! they are read as `hermes` reads them. The other way round, a `hermes`
//! block that holds Qwen3-Coder's `<function=…>` elements (Qwen3-Coder
//! served with a hermes parser) is read as `qwen3-coder` reads it.
//!
//! In the XML formats every value is raw text; with a tool list, each is
//! coerced to the type its JSON Schema asks for (numbers keep their digits,
//! `"00123"` stays a string for a string parameter, relaxed JSON is accepted
//! for arrays and objects). A value that does not fit stays a string with a
//! [`DiagnosticKind::Coercion`] diagnostic.
//!
//! ## Reasoning
//!
//! [`ParserBuilder::reasoning`] separates the model's chain of thought
//! (`<think>…</think>`, or any tags; see [`Reasoning`]) from its answer in
//! the same pass as the calls: [`Event::ReasoningStart`],
//! [`Event::ReasoningDelta`] and [`Event::ReasoningEnd`], with the same
//! guarantees as text.
//!
//! ```
//! use toolsieve::{Event, Format};
//!
//! let setup = Format::for_model("deepseek-ai/DeepSeek-R1-0528")?;
//! let mut parser = setup.parser_builder().build()?;
//! // R1's template opens `<think>`: the output starts inside reasoning.
//! let events = parser.parse("The user wants the time.</think>It is noon.".as_bytes());
//! assert!(matches!(&events[1], Event::ReasoningDelta { delta, .. } if delta == "The user wants the time."));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## The contract
//!
//! Every format keeps these, and the tests and fuzz targets check them:
//!
//! 1. **Split invariance**: any chunking gives the same events once adjacent
//!    deltas are merged ([`event::push_merged`]).
//! 2. **Nothing lost**: text events plus the raw spans of the calls are the
//!    input (with reasoning: text, reasoning, its tags and the spans); a call that cannot be delivered comes back as text, with a
//!    diagnostic (unless [`OnInvalid::Drop`] is set).
//! 3. **Streaming equals one-shot**: [`Parser::parse`] runs the same
//!    automaton.
//! 4. **Linear** in the input whatever the chunking; held-back bytes outside
//!    a call are at most the longest marker ([`Parser::max_held_back`]).
//! 5. **Bounded** by [`Limits`]; past one, the call degrades to text.
//! 6. **Never panics**, on any bytes (invalid UTF-8 becomes U+FFFD in text,
//!    with a diagnostic).
//! 7. **Low latency**: text that cannot start a marker is emitted by the
//!    `feed` that brought it; argument deltas stream as they are read, and
//!    concatenate to the final `input`.
//!
//! [`contract`] has the checks, for your own property tests and fuzzers.
//!
//! ## Speed
//!
//! Token-sized chunks of prose that hold no marker's first byte, and
//! token-sized chunks of a string argument being streamed, take fast paths
//! that skip the automaton. Prefer [`Parser::feed_str`] when the text is
//! already a `&str`: it is not validated again. The crate's one `unsafe`
//! block turns bytes just checked to be ASCII into `&str`.
//!
//! ## Features
//!
//! The default build is the parser alone (memchr, simdutf8, serde,
//! serde_json, smallvec, thiserror): no async runtime, no HTTP, no CLI.
//! The rest is opt-in:
//!
//! - `middleware`: prompts, history, `tool_choice`, wrapped models
//!   (futures, tracing);
//! - `validate`: call arguments checked against their tool's JSON Schema
//!   ([`ParserBuilder::validate_arguments`]; jsonschema);
//! - `openai`: the OpenAI chat wire, no I/O (with `middleware`);
//! - `server`: the proxy `toolsieve serve` runs and an HTTP backend model
//!   (tokio, axum, hyper, reqwest).
//!
//! The `toolsieve` command line is the `toolsieve-cli` crate.
//!
//! ## Middleware
//!
//! [`middleware`] renders the tool prompt ([`middleware::format_tools`]),
//! rewrites chat history ([`middleware::transform_params`]), implements
//! `tool_choice` (validation, response schema, provider wire mapping), and
//! wraps any [`middleware::LanguageModel`] so that its stream comes out as
//! these events ([`middleware::ToolCallingModel`]).
//!
//! ## The OpenAI wire
//!
//! [`openai`] reads OpenAI chat requests into the middleware, rewrites
//! them for a text-only backend, and turns the events back into
//! `chat.completion.chunk`s or a `chat.completion`; `server` is the proxy
//! `toolsieve serve` runs on it.
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub(crate) mod coerce;
pub mod contract;
mod cx;
mod engine;
mod error;
pub mod event;
mod format;
mod formats;
mod limits;
#[cfg(feature = "middleware")]
#[cfg_attr(docsrs, doc(cfg(feature = "middleware")))]
pub mod middleware;
mod model;
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub mod openai;
mod protocol;
mod reasoning;
mod scan;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
mod tool;
#[cfg(feature = "validate")]
mod validate;

pub use engine::{Parser, ParserBuilder};
pub use error::{Diagnostic, DiagnosticKind, Error, OnInvalid};
pub use event::{CallId, Event, ReasoningId, Span, TextId};
pub use format::Format;
pub use limits::Limits;
pub use model::{ModelError, ModelSetup};
pub use reasoning::Reasoning;
pub use tool::Tool;

/// The README's examples, compiled and run as doctests (they use every
/// feature).
#[doc = include_str!("../README.md")]
#[cfg(all(doctest, feature = "server", feature = "validate"))]
pub struct ReadmeDoctests;
