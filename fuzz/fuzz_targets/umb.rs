//! Fuzz target: `warpcheck::testing::fuzz::umb`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::umb(data);
});
