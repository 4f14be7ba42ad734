//! Fuzz target: `warpcheck::testing::fuzz::properties`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::properties(data);
});
