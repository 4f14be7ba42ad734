//! Fuzz target: `warpcheck::testing::fuzz::pgsolver`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpcheck::testing::fuzz::pgsolver(data);
});
