//! Nothing lost: for any bytes, text deltas plus the raw spans of the calls
//! rebuild the input, argument deltas add up to each call's input, and the
//! event grammar holds (two header bytes pick the parser: `contract::fuzz_case`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolsieve::contract::{check_with, fuzz_case, run_cuts};

fuzz_target!(|data: &[u8]| {
    let Some((setup, input)) = fuzz_case(data) else {
        return;
    };
    let mut parser = setup.parser();
    let events = run_cuts(&mut parser, input, &[]);
    if let Err(e) = check_with(input, &events, true, parser.reasoning()) {
        panic!("{e}");
    }
});
