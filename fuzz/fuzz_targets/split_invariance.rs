//! Split invariance: any chunking of any bytes gives the events of the
//! one-shot parse (adjacent deltas merged), for every format, fed as bytes
//! or (when UTF-8) as `&str`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolsieve::contract::{run_cuts, run_str_cuts, split_case};

fuzz_target!(|data: &[u8]| {
    let Some((setup, cuts, input)) = split_case(data) else {
        return;
    };
    let mut parser = setup.parser();
    let whole = run_cuts(&mut parser, input, &[]);
    let split = run_cuts(&mut parser, input, &cuts);
    assert_eq!(split, whole, "{setup}, cuts {cuts:?}");
    // The same chunks as `&str` (moved to char boundaries): text is not
    // validated again on that path, and must come out the same.
    if let Ok(text) = std::str::from_utf8(input) {
        let as_str = run_str_cuts(&mut parser, text, &cuts);
        assert_eq!(as_str, whole, "{setup}, str cuts {cuts:?}");
    }
    if input.len() <= 512 {
        let bytes: Vec<usize> = (1..input.len()).collect();
        assert_eq!(
            run_cuts(&mut parser, input, &bytes),
            whole,
            "{setup}, 1-byte chunks"
        );
    }
});
