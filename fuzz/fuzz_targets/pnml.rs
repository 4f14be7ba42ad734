//! Fuzz target: `warpcheck::testing::fuzz::pnml`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::pnml(data);
});
