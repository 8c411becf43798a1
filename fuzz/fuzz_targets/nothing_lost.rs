//! Nothing lost: for any bytes, text deltas plus the raw spans of the calls
//! rebuild the input, argument deltas add up to each call's input, and the
//! event grammar holds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolsieve::contract::{check, parser_for, run_cuts};
use toolsieve::Format;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let format = Format::ALL[selector as usize % Format::ALL.len()];
    let mut parser = parser_for(format);
    let events = run_cuts(&mut parser, input, &[]);
    if let Err(e) = check(input, &events, true) {
        panic!("{e}");
    }
});
