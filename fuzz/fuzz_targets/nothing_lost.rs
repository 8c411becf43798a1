//! Nothing lost: for any bytes, text deltas plus the raw spans of the calls
//! rebuild the input, argument deltas add up to each call's input, and the
//! event grammar holds (the first byte picks the parser: `Setup::of_selector`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolsieve::contract::{check, run_cuts, Setup};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let mut parser = Setup::of_selector(selector).parser();
    let events = run_cuts(&mut parser, input, &[]);
    if let Err(e) = check(input, &events, true) {
        panic!("{e}");
    }
});
