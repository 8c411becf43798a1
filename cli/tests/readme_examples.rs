//! The command-line examples of the README and of `docs/` print what they
//! show: each `Example (`toolsieve …`)` is run with the built binary and
//! its output compared with the `text` block that follows it.

use std::path::Path;
use std::process::{Command, Output};

/// The repository's root, where the README and `testdata/` are.
fn workspace() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The built `toolsieve` run with `args` in the repository's root.
fn toolsieve<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolsieve"))
        .args(args)
        .current_dir(workspace())
        .output()
        .unwrap()
}

/// `(arguments, expected output)` of every example in the README.
fn examples(readme: &str) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut rest = readme;
    while let Some(at) = rest.find("Example (`toolsieve ") {
        rest = &rest[at + "Example (`toolsieve ".len()..];
        let command = &rest[..rest.find('`').expect("the command's closing backtick")];
        let args = command.split_whitespace().map(str::to_owned).collect();
        let block = rest
            .find("```text\n")
            .expect("a text block after the example")
            + 8;
        rest = &rest[block..];
        let expected = &rest[..rest.find("```").expect("the block's closing fence")];
        out.push((args, expected.to_owned()));
    }
    out
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let root = workspace();
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let mut examples = Vec::new();
    for page in &pages {
        examples.extend(self::examples(&std::fs::read_to_string(page).unwrap()));
    }
    assert!(examples.len() >= 6, "{} examples found", examples.len());
    for (args, expected) in examples {
        let output = toolsieve(&args);
        assert!(output.status.success(), "{args:?}: {output:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            expected,
            "{args:?}"
        );
    }
}

#[test]
fn the_first_readme_command_parses_its_file() {
    let root = workspace();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let first = readme
        .lines()
        .find(|l| l.starts_with("cargo run --release -- "))
        .expect("the README's first command");
    let args: Vec<&str> = first["cargo run --release -- ".len()..]
        .split_whitespace()
        .collect();
    let output = toolsieve(&args);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(r#""type":"tool-call""#), "{stdout}");
}
