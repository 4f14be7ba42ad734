//! Registers, stack frame and spills of the search kernel (ptxas's report
//! through NVRTC: no GPU needed) in the variants that a net of WORDS-word
//! vectors gets with each storage and frontier, without traces and with
//! 64-bit slot numbers (the large tables). The kernel is capped at 64
//! registers, and what does not fit spills to local memory, so the report
//! compares kernel changes before a device measures them
//! (`benches/results/2026-12-04e-h200-tree-frontier/`):
//!
//! ```text
//! export LD_LIBRARY_PATH=$(scripts/nvrtc.sh)
//! cargo run --release --example search_registers -- [WORDS, default 3]
//! WARPCHECK_KERNEL_DIR=/another/kernels ./target/release/examples/search_registers
//! ```

use warpcheck::explore::gpu::kernel::{NetworkKernel, SearchKernel, warp_cache_entries};
use warpcheck::explore::gpu::{Frontier, ReadOnlyPath, SyncCombination};

fn main() {
    let words: usize = match std::env::args().nth(1).map(|w| w.parse()) {
        None => 3,
        Some(Ok(words)) if words > 0 => words,
        Some(_) => {
            eprintln!("usage: search_registers [WORDS]");
            std::process::exit(2);
        }
    };
    // (name, tree, compact roots, key words, slots per bucket): the
    // layouts of search.rs's Geometry::shaped without traces.
    let storages = [
        ("plain", false, false, words, (32 / words).max(1)),
        ("tree, root pairs", true, false, 2, 16),
        ("tree, compact roots", true, true, 2, 21),
    ];
    for (storage, tree, compact, key_words, slots_per_bucket) in storages {
        for frontier in [Frontier::Queue, Frontier::NewMarks, Frontier::SpillingQueue] {
            let kernel = SearchKernel {
                network: NetworkKernel {
                    vec_words: words,
                    key_words,
                    slot_words: key_words,
                    slots_per_bucket,
                    bucket_lines: key_words.div_ceil(32),
                    wide_slots: true,
                    compact,
                    group_threads: 1,
                    read_path: ReadOnlyPath::Texture,
                    rule_indexes: true,
                    wide_combinations: false,
                },
                trace: false,
                tree,
                cache_entries: warp_cache_entries(words),
                work_claiming: true,
                frontier,
                sync: SyncCombination::Lookup,
                max_offers: 1,
                warps: 8,
                partitioned: false,
            };
            match kernel.build().kernel_resources("sm_90", "explore_levels") {
                Ok(r) => println!(
                    "{storage}, {frontier:?}: {} registers; {} bytes stack frame, \
                     {} bytes spill stores, {} bytes spill loads",
                    r.registers, r.stack_frame, r.spill_stores, r.spill_loads
                ),
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(1);
                }
            }
        }
    }
}
