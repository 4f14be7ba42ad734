//! Compiles the SCC kernels (`kernels/scc/`, or the tree that
//! `WARPCHECK_KERNEL_DIR` names) with NVRTC into a cubin, for reading
//! their register counts without a GPU; with colouring's scrambled
//! labels, or its numbered ones given `numbers`:
//!
//! ```text
//! export LD_LIBRARY_PATH=$(scripts/nvrtc.sh)
//! cargo run --release --example scc_cubin -- /tmp/scc.cubin [sm_90 [numbers]]
//! python3 benches/results/2026-12-03d-h200-scc-sweep-order/registers.py /tmp/scc.cubin
//! ```

use warpcheck::scc::labels::Labels;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), arch) = (args.next(), args.next()) else {
        eprintln!("usage: scc_cubin OUT.cubin [ARCH, default sm_90 [numbers]]");
        std::process::exit(2);
    };
    let arch = arch.unwrap_or_else(|| "sm_90".to_string());
    let labels = match args.next().as_deref() {
        Some("numbers") => Labels::Numbers,
        _ => Labels::Scrambled,
    };
    match warpcheck::scc::gpu::build(labels).compile_binary(&arch) {
        Ok(cubin) => {
            if let Err(e) = std::fs::write(&path, cubin) {
                eprintln!("cannot write {path}: {e}");
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
