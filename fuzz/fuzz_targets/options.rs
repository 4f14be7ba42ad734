//! Fuzz target: `warpcheck::testing::fuzz::options`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::options(data);
});
