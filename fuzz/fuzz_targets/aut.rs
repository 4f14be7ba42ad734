//! Fuzz target: `warpcheck::testing::fuzz::aut`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::aut(data);
});
