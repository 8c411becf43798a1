//! The `toolsieve` command line: `model`, `formats`, `parse` by model,
//! live output, debug logging.

use toolsieve::Format;

fn toolsieve(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsieve"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// The standard output of a `toolsieve` run that must succeed.
fn toolsieve_ok(args: &[&str], stdin: &[u8]) -> String {
    let out = toolsieve(args, stdin);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn cli_model_prints_one_json_object_or_exits_2() {
    let out = toolsieve(&["model", "Qwen/Qwen3-8B-AWQ"], b"");
    assert!(out.status.success());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["model"], "Qwen/Qwen3-8B-AWQ");
    assert_eq!(value["format"], "hermes");
    assert_eq!(value["reasoning"]["start"], "<think>");
    let out = toolsieve(&["model", "zzz-unknown"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("closest"));
}

#[test]
fn cli_formats_json_lists_every_format_with_its_aliases() {
    let out = toolsieve(&["formats", "--json"], b"");
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(lines.len(), Format::ALL.len());
    let deepseek = lines.iter().find(|l| l["name"] == "deepseek-v3.1").unwrap();
    assert!(deepseek["aliases"]
        .as_array()
        .unwrap()
        .contains(&"deepseek".into()));
}

#[test]
fn cli_parse_by_model_separates_reasoning() {
    let input = b"Paris, then.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let out = toolsieve(
        &[
            "parse",
            "--model",
            "deepseek-ai/DeepSeek-R1",
            "--merge",
            "-",
        ],
        b"",
    );
    assert!(out.status.success());
    let text = toolsieve_ok(
        &[
            "parse",
            "--model",
            "Qwen/Qwen3-8B",
            "--reasoning-open",
            "--merge",
        ],
        input,
    );
    assert!(
        text.contains(r#""type":"reasoning-delta","id":"reasoning_0","delta":"Paris, then.\n""#),
        "{text}"
    );
    assert!(text.contains(r#""type":"tool-call""#), "{text}");
    // `--reasoning none` turns off what the model set.
    let out = toolsieve(
        &[
            "parse",
            "--model",
            "Qwen/Qwen3-8B",
            "--reasoning",
            "none",
            "--merge",
        ],
        b"<think>x</think>",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains("reasoning") && text.contains("<think>x</think>"),
        "{text}"
    );
    // --format and --model exclude each other.
    let out = toolsieve(
        &["parse", "--model", "Qwen/Qwen3-8B", "--format", "hermes"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
}

/// `--reasoning-open` and the other reasoning switches keep the tags a
/// format reads by default: Seed-OSS's, not `<think>` (a Seed-OSS template
/// with a thinking budget of 0 opens `<seed:think>` itself).
#[test]
fn cli_reasoning_switches_keep_a_formats_own_tags() {
    let cases: [(&str, &[u8], &str); 2] = [
        (
            "--reasoning-open",
            b"Budget 0.</seed:cot_budget_reflect>\n</seed:think>Sunny.",
            r#""delta":"Budget 0.</seed:cot_budget_reflect>\n""#,
        ),
        (
            "--calls-in-reasoning",
            b"<seed:think>Plan.</seed:think>Sunny.",
            r#""delta":"Plan.""#,
        ),
    ];
    for (switch, input, reasoning) in cases {
        let text = toolsieve_ok(
            &["parse", "--format", "seed-oss", switch, "--merge", "-"],
            input,
        );
        let reasoning = format!(r#""type":"reasoning-delta","id":"reasoning_0",{reasoning}"#);
        assert!(text.contains(&reasoning), "{switch}: {text}");
        assert!(
            text.contains(r#""type":"text-delta","id":"text_0","delta":"Sunny.""#),
            "{switch}: {text}"
        );
    }
}

#[test]
fn cli_parse_writes_events_as_their_bytes_arrive() {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::mpsc;
    use std::time::Duration;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsieve"))
        .args(["parse", "--format", "hermes", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines_tx, lines) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    // A call, while the input stays open: its event must come out now.
    stdin
        .write_all(b"Checking. <tool_call>{\"name\": \"f\", \"arguments\": {\"x\": 1}}</tool_call>")
        .unwrap();
    stdin.flush().unwrap();
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l.contains("\"tool-call\"")) {
        match lines.recv_timeout(Duration::from_secs(20)) {
            Ok(line) => seen.push(line),
            Err(_) => panic!("no tool-call event while the input is open; got {seen:?}"),
        }
    }
    assert!(seen[0].contains("text-start"), "{seen:?}");
    stdin.write_all(b" Done.").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
    let rest: Vec<String> = lines.try_iter().collect();
    assert!(rest.iter().any(|l| l.contains(" Done.")), "{rest:?}");
}

#[test]
fn cli_debug_can_be_switched_on_from_the_environment() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsieve"))
        .args(["parse", "--format", "hermes", "-"])
        .env("TOOLSIEVE_DEBUG", "parse")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call> <tool_call>{\"name\": ")?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("tool=f") && log.contains("parsed"), "{log}");
    // The dropped call is named with its span.
    assert!(
        log.contains("unfinished-call") && log.contains("span=\"54..74\""),
        "{log}"
    );
}
