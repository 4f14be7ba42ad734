//! Fuzz target: `aut::parse_graph` on any bytes. An accepted graph must
//! pass `LabelledGraph::validate`. The replay test
//! `tests/it/explicit_inputs.rs` runs the same check on the kept inputs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz.aut");
    if let Ok(graph) = warpcheck::frontend::aut::parse_graph(data, path) {
        assert_eq!(graph.validate(), Ok(()));
    }
});
