//! Fuzz target: `warpcheck::testing::fuzz::lab`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::lab(data);
});
