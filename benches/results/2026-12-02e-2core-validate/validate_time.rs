//! Times `ParityGame::validate` (and the `Csr::validate` inside it) on
//! one game, seven times. Copied into `examples/` at each commit to
//! compare: `cargo run --release --example validate_time GAME.pg`.
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: validate_time GAME.pg");
    let game = warpcheck::frontend::pgsolver::load(std::path::Path::new(&path)).unwrap();
    for _ in 0..7 {
        let started = Instant::now();
        game.edges.validate().unwrap();
        let csr = started.elapsed();
        let started = Instant::now();
        game.validate().unwrap();
        println!(
            "csr_ms {:.3} game_ms {:.3}",
            csr.as_secs_f64() * 1e3,
            started.elapsed().as_secs_f64() * 1e3
        );
    }
}
