//! Split invariance: any chunking of any bytes gives the events of the
//! one-shot parse (adjacent deltas merged), for every format.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolsieve::contract::{parser_for, run_cuts, split_case};

fuzz_target!(|data: &[u8]| {
    let Some((format, cuts, input)) = split_case(data) else {
        return;
    };
    let mut parser = parser_for(format);
    let whole = run_cuts(&mut parser, input, &[]);
    let split = run_cuts(&mut parser, input, &cuts);
    assert_eq!(split, whole, "{format}, cuts {cuts:?}");
    if input.len() <= 512 {
        let bytes: Vec<usize> = (1..input.len()).collect();
        assert_eq!(run_cuts(&mut parser, input, &bytes), whole, "{format}, 1-byte chunks");
    }
});
