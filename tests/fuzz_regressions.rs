//! Inputs the fuzz targets once failed on, replayed through the same checks
//! (`fuzz/fuzz_targets/*.rs`). Each file in `tests/fuzz_regressions/` is a
//! raw target input; its name says which target and what went wrong.

use std::path::Path;

use toolsieve::contract::{check, run_cuts};
use toolsieve::{Format, Parser};

/// The `split_invariance` target's decoding of its input.
fn split_invariance(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let format = Format::ALL[selector as usize % Format::ALL.len()];
    let ncuts = (selector as usize >> 4).min(rest.len()).min(8);
    let (cut_bytes, input) = rest.split_at(ncuts);
    let cuts: Vec<usize> = cut_bytes
        .iter()
        .scan(0usize, |at, &b| {
            *at += b as usize;
            Some(*at)
        })
        .collect();
    let mut parser = Parser::new(format);
    let whole = run_cuts(&mut parser, input, &[]);
    check(input, &whole, true).unwrap();
    assert_eq!(run_cuts(&mut parser, input, &cuts), whole, "cuts {cuts:?}");
    let bytes: Vec<usize> = (1..input.len()).collect();
    assert_eq!(run_cuts(&mut parser, input, &bytes), whole, "1-byte chunks");
}

/// The `nothing_lost` target.
fn nothing_lost(data: &[u8]) {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let format = Format::ALL[selector as usize % Format::ALL.len()];
    let events = run_cuts(&mut Parser::new(format), input, &[]);
    check(input, &events, true).unwrap();
}

#[test]
fn replay_fuzz_findings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(&path).unwrap();
        if name.starts_with("split_") {
            split_invariance(&data);
        } else if name.starts_with("lost_") {
            nothing_lost(&data);
        } else {
            panic!("{name}: unknown target prefix");
        }
        seen += 1;
    }
    assert!(seen > 0);
}
