//! Split invariance: any chunking of any bytes gives the events of the
//! one-shot parse (adjacent deltas merged), for every format.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolsieve::contract::{parser_for, run_cuts};
use toolsieve::Format;

fuzz_target!(|data: &[u8]| {
    // First byte: format; next up to 8 bytes: cut points; the rest: stream.
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
    let mut parser = parser_for(format);
    let whole = run_cuts(&mut parser, input, &[]);
    let split = run_cuts(&mut parser, input, &cuts);
    assert_eq!(split, whole, "cuts {cuts:?}");
    if input.len() <= 512 {
        let bytes: Vec<usize> = (1..input.len()).collect();
        assert_eq!(run_cuts(&mut parser, input, &bytes), whole, "1-byte chunks");
    }
});
