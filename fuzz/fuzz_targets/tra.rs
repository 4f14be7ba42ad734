//! Fuzz target: `prism::parse_tra` on any bytes, the type left to the
//! reader. An accepted model must pass its `validate`. The replay test
//! `tests/it/explicit_inputs.rs` runs the same check on the kept inputs.
#![no_main]

use warpcheck::explicit::ExplicitModel;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz.tra");
    match warpcheck::frontend::prism::parse_tra(data, path, None) {
        Ok(ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain)) => {
            assert_eq!(chain.validate(), Ok(()))
        }
        Ok(ExplicitModel::Mdp(mdp)) => assert_eq!(mdp.validate(), Ok(())),
        Err(_) => {}
    }
});
