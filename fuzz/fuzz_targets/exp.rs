//! Fuzz target: `warpcheck::testing::fuzz::exp`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::exp(data);
});
