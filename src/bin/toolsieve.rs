//! `toolsieve`: parse model output into JSON Lines events.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser as ClapParser, Subcommand, ValueEnum};
use toolsieve::{event::push_merged, Event, Format, Limits, OnInvalid, Parser, Tool};

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
    Formats,
}

#[derive(clap::Args)]
struct ParseArgs {
    /// Wire format (see `toolsieve formats`).
    #[arg(long, short)]
    format: String,
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
    /// Replace the format's end marker (needs --start-marker).
    #[arg(long, requires = "start_marker")]
    end_marker: Option<String>,
    /// Most bytes one call may span.
    #[arg(long)]
    max_call_bytes: Option<usize>,
    /// Input file, or - for standard input.
    #[arg(default_value = "-")]
    file: PathBuf,
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
        Command::Formats => formats(),
        Command::Parse(args) => parse(args),
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

fn formats() -> io::Result<()> {
    let mut out = io::stdout().lock();
    for format in Format::ALL {
        writeln!(out, "{:<12} {}", format.name(), format.summary())?;
    }
    Ok(())
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

fn parse(args: ParseArgs) -> io::Result<()> {
    let format: Format = args.format.parse().map_err(invalid)?;
    let tools: Vec<Tool> = match &args.tools {
        Some(path) => {
            let text = read_path(path)?;
            let text = String::from_utf8(text).map_err(|_| invalid("tool list is not UTF-8"))?;
            Tool::list_from_json(&text).map_err(|e| invalid(format!("{}: {e}", path.display())))?
        }
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
    let mut parser = builder.build().map_err(invalid)?;
    let input = read_path(&args.file)?;
    let chunk = args.chunk_size.map_or(input.len().max(1), |n| {
        usize::try_from(n).unwrap_or(usize::MAX)
    });

    let mut out = BufWriter::new(io::stdout().lock());
    let mut status = Ok(());
    if args.merge {
        let mut events = Vec::new();
        let mut sink = |e: Event<'_>| push_merged(&mut events, e);
        for piece in input.chunks(chunk) {
            parser.feed(piece, &mut sink);
        }
        parser.finish(&mut sink);
        for event in &events {
            write_event(&mut out, event)?;
        }
    } else {
        let mut sink = |e: Event<'_>| {
            if status.is_ok() {
                status = write_event(&mut out, &e);
            }
        };
        for piece in input.chunks(chunk) {
            parser.feed(piece, &mut sink);
        }
        parser.finish(&mut sink);
    }
    status?;
    out.flush()
}

fn write_event(out: &mut impl Write, event: &Event<'_>) -> io::Result<()> {
    serde_json::to_writer(&mut *out, event)?;
    out.write_all(b"\n")
}
