//! Fuzz target: `warpcheck::testing::fuzz::net`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::net(data);
});
