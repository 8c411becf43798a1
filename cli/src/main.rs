//! `toolsieve`: parse model output into JSON Lines events.

use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser as ClapParser, Subcommand, ValueEnum};
use toolsieve::middleware::{self, Provider, ToolChoice, ToolSpec, WireOptions};
use toolsieve::{event::push_merged, Event, Format, Limits, OnInvalid, Parser, Reasoning, Tool};

#[derive(ClapParser)]
#[command(
    name = "toolsieve",
    version,
    about = "Streaming parser for LLM tool calls"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse model output into JSON Lines events (one event per line).
    Parse(ParseArgs),
    /// List the formats.
    Formats {
        /// One JSON object per format: name, aliases, summary.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// The format and model-family tables the documentation shows.
        #[arg(long)]
        markdown: bool,
    },
    /// Print the format and reasoning setup of a model id as JSON.
    Model {
        /// A model id: `Qwen/Qwen3-8B-AWQ`, `qwen3:8b`, a path…
        id: String,
    },
    /// Print the tool system prompt of a format.
    Prompt {
        /// Wire format.
        #[arg(long, short)]
        format: String,
        /// JSON file with the tool list.
        #[arg(long)]
        tools: PathBuf,
        /// A template file replacing the format's prompt ({tools} marks the tool block).
        #[arg(long)]
        template: Option<PathBuf>,
    },
    /// Print the response-format JSON Schema of a forced tool_choice.
    Schema {
        /// required, or tool:NAME.
        #[arg(long)]
        tool_choice: String,
        /// JSON file with the tool list.
        #[arg(long)]
        tools: PathBuf,
    },
    /// Print the native request fields for a provider's tool_choice.
    Wire {
        /// openai, anthropic, gemini, deepseek or xai.
        #[arg(long)]
        provider: String,
        /// auto, none, required or tool:NAME (absent: the field is omitted).
        #[arg(long)]
        tool_choice: Option<String>,
        /// JSON file with the tool list.
        #[arg(long)]
        tools: Option<PathBuf>,
        /// At most one call (Anthropic, OpenAI, DeepSeek, xAI).
        #[arg(long)]
        disable_parallel_tool_use: bool,
        /// Anthropic: extended thinking is on (only auto and none allowed).
        #[arg(long)]
        extended_thinking: bool,
    },
    /// Serve the OpenAI chat API in front of a text-only backend, with tool calling.
    #[cfg(feature = "server")]
    Serve(ServeArgs),
}

#[cfg(feature = "server")]
#[derive(clap::Args)]
struct ServeArgs {
    /// The backend's OpenAI base URL, e.g. http://127.0.0.1:8000/v1.
    #[arg(long)]
    backend: String,
    /// Address to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: std::net::SocketAddr,
    /// Use this format for every request.
    #[arg(long, short, conflicts_with = "model_format")]
    format: Option<String>,
    /// Pick the format from each request's model id (the default).
    #[arg(long, value_enum)]
    model_format: Option<ModelFormat>,
    /// With the format picked from the model id: the format of a model id
    /// no known family matches (a backend serving under its own name).
    #[arg(long, conflicts_with = "format")]
    default_format: Option<String>,
    /// How many more times a forced tool_choice (required, a named tool)
    /// is asked for when an answer lacks the call, before the request
    /// fails (502, code tool_choice_unmet).
    #[arg(long, default_value_t = 1)]
    forced_retries: u32,
    /// Refuse (400) earlier turns whose call arguments are not a JSON
    /// object, instead of rendering them as the model wrote them.
    #[arg(long)]
    strict_history: bool,
    /// Environment variable holding the backend's API key.
    #[arg(long)]
    api_key_env: Option<String>,
    /// When calls go out on a stream: as they arrive, or once their
    /// arguments parse.
    #[arg(long, value_enum, default_value_t = Policy::Eager)]
    stream_policy: Policy,
    /// Largest request body, in bytes.
    #[arg(long, default_value_t = 8 << 20)]
    max_body_bytes: usize,
    /// Most requests served at once (503 with Retry-After beyond).
    #[arg(long, default_value_t = 256)]
    max_concurrent: usize,
    /// Most tools one request may carry (400 beyond).
    #[arg(long, default_value_t = 256)]
    max_tools: usize,
    /// Most client connections open at once (more wait to be accepted).
    #[arg(long, default_value_t = 4096)]
    max_connections: usize,
    /// Seconds a client may take to send its request headers.
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    header_timeout: f64,
    /// Seconds a client may take to send its request body (408 beyond).
    #[arg(long, default_value_t = 30.0, value_parser = seconds)]
    body_timeout: f64,
    /// Seconds to connect to the backend.
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    backend_connect_timeout: f64,
    /// Longest silence from the backend, in seconds, before the request
    /// fails (504, or an error event on a stream).
    #[arg(long, default_value_t = 300.0, value_parser = seconds)]
    backend_read_timeout: f64,
    /// Environment variable holding the keys clients must send as
    /// `Authorization: Bearer` (separated by commas, spaces or newlines).
    #[arg(long)]
    client_keys_env: Option<String>,
    /// File with the keys clients must send, one per line (# comments).
    #[arg(long)]
    client_keys_file: Option<PathBuf>,
    /// Listen on a non-loopback address without client keys.
    #[arg(long)]
    allow_unauthenticated: bool,
    /// Log requests and errors to stderr.
    #[arg(long)]
    verbose: bool,
}

#[cfg(feature = "server")]
#[derive(Clone, Copy, ValueEnum)]
enum ModelFormat {
    /// From the request's model id.
    Auto,
}

#[cfg(feature = "server")]
#[derive(Clone, Copy, ValueEnum)]
enum Policy {
    /// Call fragments go out as they arrive.
    Eager,
    /// A call goes out whole once its arguments parse.
    Validated,
}

#[derive(clap::Args)]
struct ParseArgs {
    /// Wire format (see `toolsieve formats`).
    #[arg(
        long,
        short,
        required_unless_present = "model",
        conflicts_with = "model"
    )]
    format: Option<String>,
    /// Pick the format and reasoning setup from a model id (see `toolsieve model`).
    #[arg(long)]
    model: Option<String>,
    /// Separate reasoning: `think` for <think>…</think>, `none` to turn off
    /// what --model set.
    #[arg(long, value_enum)]
    reasoning: Option<ReasoningArg>,
    /// Replace the reasoning start tag (needs --reasoning-end).
    #[arg(long, requires = "reasoning_end")]
    reasoning_start: Option<String>,
    /// Replace the reasoning end tag (needs --reasoning-start).
    #[arg(long, requires = "reasoning_start")]
    reasoning_end: Option<String>,
    /// The output starts inside reasoning (the template opened the tag).
    #[arg(long)]
    reasoning_open: bool,
    /// The chat template's thinking switch was on or off (with --model:
    /// DeepSeek-V3.1/V3.2 thinking starts inside reasoning; off, no
    /// reasoning is read).
    #[arg(long, value_enum, requires = "model")]
    thinking: Option<Switch>,
    /// Deliver calls written inside reasoning (by default they are reasoning text).
    #[arg(long)]
    calls_in_reasoning: bool,
    /// A call ends the reasoning, its end tag or not (Kimi-K2 goes from
    /// thinking straight to its calls).
    #[arg(long)]
    calls_end_reasoning: bool,
    /// JSON file with the tool list: [{"name", "description", "parameters"}].
    #[arg(long)]
    tools: Option<PathBuf>,
    /// Feed the parser N bytes at a time (may split UTF-8); default: all at once.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    chunk_size: Option<u64>,
    /// Merge adjacent deltas of the same part (output then does not depend on --chunk-size).
    #[arg(long)]
    merge: bool,
    /// What to do with the raw text of calls that cannot be delivered.
    #[arg(long, value_enum, default_value_t = InvalidPolicy::Keep)]
    on_invalid: InvalidPolicy,
    /// Replace the format's start marker (needs --end-marker).
    #[arg(long, requires = "end_marker")]
    start_marker: Option<String>,
    /// Replace the format's end marker (needs --start-marker; may be empty:
    /// a call then ends with its JSON).
    #[arg(long, requires = "start_marker")]
    end_marker: Option<String>,
    /// Also read a call whose JSON opens the output without the start
    /// marker (Llama 3's `{"name": …, "parameters": …}`); JSON formats only.
    #[arg(long)]
    bare_call_at_start: bool,
    /// Check each call's arguments against its tool's JSON Schema (needs
    /// --tools): an invalid-arguments diagnostic names each path at fault.
    #[arg(long, requires = "tools")]
    validate: bool,
    /// Most bytes one call may span.
    #[arg(long)]
    max_call_bytes: Option<usize>,
    /// Log to stderr: raw chunks (stream) or a parse summary (parse).
    #[arg(long, value_enum)]
    debug: Option<Debug>,
    /// Input file, or - for standard input.
    #[arg(default_value = "-")]
    file: PathBuf,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Switch {
    On,
    Off,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReasoningArg {
    /// `<think>` … `</think>`.
    Think,
    /// No reasoning separation.
    None,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Debug {
    /// Every chunk fed and every event.
    Stream,
    /// A summary per call and at the end.
    Parse,
}

#[derive(Clone, Copy, ValueEnum)]
enum InvalidPolicy {
    /// Give the raw text back as text.
    Keep,
    /// Drop it (a diagnostic still says what was dropped).
    Drop,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Formats { json, markdown } => formats(json, markdown),
        Command::Model { id } => model(&id),
        Command::Parse(args) => parse(args),
        Command::Prompt {
            format,
            tools,
            template,
        } => prompt(&format, &tools, template.as_ref()),
        Command::Schema { tool_choice, tools } => schema(&tool_choice, &tools),
        Command::Wire {
            provider,
            tool_choice,
            tools,
            disable_parallel_tool_use,
            extended_thinking,
        } => wire(
            &provider,
            tool_choice.as_deref(),
            tools.as_ref(),
            WireOptions {
                disable_parallel_tool_use,
                extended_thinking,
            },
        ),
        #[cfg(feature = "server")]
        Command::Serve(args) => serve(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toolsieve: {e}");
            ExitCode::from(2)
        }
    }
}

fn formats(json: bool, markdown: bool) -> io::Result<()> {
    let mut out = io::stdout().lock();
    if markdown {
        let tables = [Format::formats_markdown(), Format::families_markdown()];
        return write!(out, "{}", tables.join("\n"));
    }
    for format in Format::ALL {
        if json {
            let line = serde_json::json!({
                "name": format.name(),
                "aliases": format.aliases(),
                "summary": format.summary(),
            });
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "{:<14} {}", format.name(), format.summary())?;
        }
    }
    Ok(())
}

fn model(id: &str) -> io::Result<()> {
    let setup = Format::for_model(id).map_err(invalid)?;
    let value = serde_json::to_value(&setup).map_err(invalid)?;
    let mut out = io::stdout().lock();
    writeln!(out, "{value}")
}

/// The format and reasoning setup `parse` was asked for.
fn parse_setup(args: &ParseArgs) -> io::Result<(Format, Option<Reasoning>)> {
    let (format, mut reasoning) = match (&args.format, &args.model) {
        (Some(name), _) => (name.parse().map_err(invalid)?, None),
        (None, Some(id)) => {
            let mut setup = Format::for_model(id).map_err(invalid)?;
            if let Some(switch) = args.thinking {
                setup = setup.thinking(switch == Switch::On);
            }
            (setup.format, setup.reasoning)
        }
        (None, None) => return Err(invalid("give --format or --model")),
    };
    match args.reasoning {
        Some(ReasoningArg::None) => reasoning = None,
        Some(ReasoningArg::Think) => {
            reasoning.get_or_insert_with(Reasoning::think);
        }
        None => {}
    }
    if let (Some(start), Some(end)) = (&args.reasoning_start, &args.reasoning_end) {
        let open = reasoning.as_ref().is_some_and(|r| r.starts_open);
        reasoning = Some(Reasoning::tags(start.as_str(), end.as_str()).starting_open(open));
    }
    if args.reasoning_open || args.calls_in_reasoning || args.calls_end_reasoning {
        // A format's own tags (Seed-OSS's, gpt-oss's analysis channel) are
        // adjusted, not replaced by `<think>`.
        let r = reasoning
            .take()
            .or_else(|| format.default_reasoning())
            .unwrap_or_else(Reasoning::think);
        let open = r.starts_open || args.reasoning_open;
        let calls = r.calls_inside || args.calls_in_reasoning;
        let ending = r.ends_at_calls || args.calls_end_reasoning;
        reasoning = Some(
            r.starting_open(open)
                .with_calls_inside(calls)
                .ending_at_calls(ending),
        );
    }
    Ok((format, reasoning))
}

fn invalid(message: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_string())
}

fn read_path(path: &PathBuf) -> io::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut input = Vec::new();
        io::stdin().lock().read_to_end(&mut input)?;
        Ok(input)
    } else {
        std::fs::read(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    }
}

fn read_tools(path: &PathBuf) -> io::Result<Vec<Tool>> {
    let text = read_path(path)?;
    let text = String::from_utf8(text).map_err(|_| invalid("tool list is not UTF-8"))?;
    Tool::list_from_json(&text).map_err(|e| invalid(format!("{}: {e}", path.display())))
}

fn print_json(value: &serde_json::Value) -> io::Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)
}

fn prompt(format: &str, tools: &PathBuf, template: Option<&PathBuf>) -> io::Result<()> {
    let format: Format = format.parse().map_err(invalid)?;
    let tools = read_tools(tools)?;
    let template = match template {
        Some(path) => Some(String::from_utf8_lossy(&read_path(path)?).into_owned()),
        None => None,
    };
    let text = middleware::format_tools(format, &tools, template.as_deref());
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")
}

fn specs(tools: Vec<Tool>) -> Vec<ToolSpec> {
    tools.into_iter().map(ToolSpec::Function).collect()
}

fn schema(choice: &str, tools: &PathBuf) -> io::Result<()> {
    let choice: ToolChoice = choice.parse().map_err(invalid)?;
    if !matches!(choice, ToolChoice::Required | ToolChoice::Tool { .. }) {
        return Err(invalid("--tool-choice must be required or tool:NAME"));
    }
    let tools = specs(read_tools(tools)?);
    match middleware::response_schema(&choice, &tools).map_err(invalid)? {
        Some(schema) => print_json(&schema),
        None => Err(invalid("no schema for this tool_choice")),
    }
}

fn wire(
    provider: &str,
    choice: Option<&str>,
    tools: Option<&PathBuf>,
    options: WireOptions,
) -> io::Result<()> {
    let provider: Provider = provider.parse().map_err(invalid)?;
    let choice: Option<ToolChoice> = choice.map(str::parse).transpose().map_err(invalid)?;
    let tools = match tools {
        Some(path) => specs(read_tools(path)?),
        None => Vec::new(),
    };
    let fields = middleware::wire_tool_choice(provider, choice.as_ref(), &tools, options)
        .map_err(invalid)?;
    print_json(&fields)
}

/// `--debug`, or else `TOOLSIEVE_DEBUG=stream|parse`.
fn init_debug(debug: Option<Debug>) {
    let from_env = || match std::env::var("TOOLSIEVE_DEBUG").as_deref() {
        Ok("stream") => Some(Debug::Stream),
        Ok("parse") => Some(Debug::Parse),
        Ok(other) => {
            eprintln!("toolsieve: TOOLSIEVE_DEBUG={other:?} is neither stream nor parse; ignored");
            None
        }
        Err(_) => None,
    };
    let Some(debug) = debug.or_else(from_env) else {
        return;
    };
    let target = match debug {
        Debug::Stream => "toolsieve::stream",
        Debug::Parse => "toolsieve::parse",
    };
    let filter =
        tracing_subscriber::filter::Targets::new().with_target(target, tracing::Level::DEBUG);
    use tracing_subscriber::prelude::*;
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(io::stderr)
                .with_ansi(io::stderr().is_terminal())
                .without_time(),
        )
        .with(filter)
        .try_init();
}

fn parse(args: ParseArgs) -> io::Result<()> {
    init_debug(args.debug);
    let (format, reasoning) = parse_setup(&args)?;
    let tools: Vec<Tool> = match &args.tools {
        Some(path) => read_tools(path)?,
        None => Vec::new(),
    };
    let mut limits = Limits::default();
    if let Some(max) = args.max_call_bytes {
        limits.max_call_bytes = max;
    }
    let mut builder = Parser::builder(format)
        .tools(Arc::<[Tool]>::from(tools))
        .limits(limits)
        .on_invalid(match args.on_invalid {
            InvalidPolicy::Keep => OnInvalid::KeepAsText,
            InvalidPolicy::Drop => OnInvalid::Drop,
        });
    if let (Some(start), Some(end)) = (args.start_marker, args.end_marker) {
        builder = builder.delimiters(start, end);
    }
    if let Some(reasoning) = reasoning {
        builder = builder.reasoning(reasoning);
    }
    if args.bare_call_at_start {
        builder = builder.bare_call_at_start(true);
    }
    if args.validate {
        builder = builder.validate_arguments(true);
    }
    let mut parser = builder.build().map_err(invalid)?;
    let mut input = open_input(&args.file)?;
    // Without --chunk-size the parser gets what each read returns: from a
    // pipe, as soon as it arrives.
    let chunk = args
        .chunk_size
        .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let mut buf = vec![0; READ_BUFFER];

    let mut out = BufWriter::new(io::stdout().lock());
    let mut status = Ok(());
    let mut summary = Summary::default();
    let mut total = 0usize;
    // With --merge the last event may still grow, so it is held; the
    // others are written after every read.
    let mut merged: Vec<Event<'static>> = Vec::new();
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n;
        for piece in buf[..n].chunks(chunk) {
            tracing::debug!(target: "toolsieve::stream", chunk = %String::from_utf8_lossy(piece), "feed");
            parser.feed(piece, &mut |e: Event<'_>| {
                summary.see(&e);
                if args.merge {
                    push_merged(&mut merged, e.into_owned());
                } else if status.is_ok() {
                    status = write_event(&mut out, &e);
                }
            });
        }
        std::mem::replace(&mut status, Ok(()))?;
        if merged.len() > 1 {
            let keep = merged.pop();
            for event in merged.drain(..) {
                write_event(&mut out, &event)?;
            }
            merged.extend(keep);
        }
        out.flush()?;
    }
    parser.finish(&mut |e: Event<'_>| {
        summary.see(&e);
        if args.merge {
            push_merged(&mut merged, e.into_owned());
        } else if status.is_ok() {
            status = write_event(&mut out, &e);
        }
    });
    status?;
    for event in &merged {
        write_event(&mut out, event)?;
    }
    tracing::debug!(
        target: "toolsieve::parse",
        bytes = total,
        text_bytes = summary.text_bytes,
        calls = summary.calls,
        diagnostics = summary.diagnostics,
        "parsed"
    );
    out.flush()
}

/// Bytes read from the input at a time.
const READ_BUFFER: usize = 64 * 1024;

fn open_input(path: &PathBuf) -> io::Result<Box<dyn Read>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(io::stdin()))
    } else {
        std::fs::File::open(path)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    }
}

/// What `--debug parse` reports.
#[derive(Default)]
struct Summary {
    text_bytes: usize,
    calls: usize,
    diagnostics: usize,
}

impl Summary {
    fn see(&mut self, event: &Event<'_>) {
        match event {
            Event::TextDelta { delta, .. } => self.text_bytes += delta.len(),
            Event::ToolCall {
                tool_name, input, ..
            } => {
                self.calls += 1;
                tracing::debug!(target: "toolsieve::parse", tool = %tool_name, input = %input, "call");
            }
            Event::Diagnostic(d) => {
                self.diagnostics += 1;
                let span = d.raw_span.map(|s| format!("{}..{}", s.start, s.end));
                tracing::debug!(target: "toolsieve::parse", kind = %d.kind, offset = d.offset, span = span.as_deref().unwrap_or("-"), tool = d.tool_name.as_deref().unwrap_or("-"), message = %d.message, "diagnostic");
            }
            _ => {}
        }
    }
}

fn write_event(out: &mut impl Write, event: &Event<'_>) -> io::Result<()> {
    serde_json::to_writer(&mut *out, event)?;
    out.write_all(b"\n")
}

#[cfg(feature = "server")]
fn serve(args: ServeArgs) -> io::Result<()> {
    use std::time::Duration;
    use toolsieve::openai::StreamPolicy;
    use toolsieve::server::{FormatChoice, ServeConfig};

    if args.verbose {
        let filter = tracing_subscriber::filter::Targets::new()
            .with_target("toolsieve::serve", tracing::Level::DEBUG);
        use tracing_subscriber::prelude::*;
        let _ = tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(io::stderr)
                    .with_ansi(io::stderr().is_terminal()),
            )
            .with(filter)
            .try_init();
    }
    let mut config = ServeConfig::new(&args.backend);
    if let Some(name) = &args.format {
        config.format = FormatChoice::Fixed(name.parse().map_err(invalid)?);
    }
    config.forced_retries = Some(args.forced_retries);
    if args.strict_history {
        config.history = toolsieve::openai::History::Strict;
    }
    if let Some(name) = &args.default_format {
        config.format = FormatChoice::AutoOr(name.parse().map_err(invalid)?);
    }
    if let Some(var) = &args.api_key_env {
        let key =
            std::env::var(var).map_err(|_| invalid(format!("--api-key-env: ${var} is not set")))?;
        config.api_key = Some(key);
    }
    config.stream_policy = match args.stream_policy {
        Policy::Eager => StreamPolicy::Eager,
        Policy::Validated => StreamPolicy::Validated,
    };
    config.max_body_bytes = args.max_body_bytes;
    config.max_concurrent = args.max_concurrent.max(1);
    config.max_tools = args.max_tools;
    config.max_connections = args.max_connections.max(1);
    config.header_read_timeout = Duration::from_secs_f64(args.header_timeout);
    config.body_read_timeout = Duration::from_secs_f64(args.body_timeout);
    config.backend_connect_timeout = Duration::from_secs_f64(args.backend_connect_timeout);
    config.backend_read_timeout = Duration::from_secs_f64(args.backend_read_timeout);
    config.allow_unauthenticated = args.allow_unauthenticated;
    if let Some(var) = &args.client_keys_env {
        let keys = std::env::var(var)
            .map_err(|_| invalid(format!("--client-keys-env: ${var} is not set")))?;
        config
            .client_keys
            .extend(toolsieve::server::parse_keys(&keys));
    }
    if let Some(path) = &args.client_keys_file {
        let keys = std::fs::read_to_string(path)
            .map_err(|e| invalid(format!("--client-keys-file {}: {e}", path.display())))?;
        config
            .client_keys
            .extend(toolsieve::server::parse_keys(&keys));
    }
    if (args.client_keys_env.is_some() || args.client_keys_file.is_some())
        && config.client_keys.is_empty()
    {
        return Err(invalid("the client keys given are empty"));
    }
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen).await?;
        let local = listener.local_addr()?;
        {
            let mut out = io::stdout().lock();
            writeln!(
                out,
                "toolsieve serve: listening on http://{local}/v1, backend {}",
                args.backend
            )?;
            out.flush()?;
        }
        toolsieve::server::run(listener, config, shutdown_signal()).await
    })
}

/// A number of seconds: positive and finite.
#[cfg(feature = "server")]
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(s),
        _ => Err(format!("{text:?} is not a number of seconds above 0")),
    }
}

/// Ctrl-C, or SIGTERM on Unix.
#[cfg(feature = "server")]
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
    eprintln!("toolsieve serve: shutting down; requests in flight finish");
}
