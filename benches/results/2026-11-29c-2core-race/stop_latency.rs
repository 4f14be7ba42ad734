//! How long `parity::solve` takes to return (its arrays freed) after its stop signal is set, for stops
//! at each DELAY_MS after it starts; one line per stop. Not built here: copy it to `examples/` and run
//! `cargo run --release --example stop_latency -- GAME tangle|pp DELAY_MS...` (as for stop_latency.tsv,
//! README). The solve includes validation and the transpose, which the race does once, before tangle
//! learning starts: stops in the first ~100 ms fall in those.
use std::path::Path;
use std::time::{Duration, Instant};
use warpcheck::explore::StopSignal;
use warpcheck::frontend::pgsolver;
use warpcheck::parity::{self, SolveOptions, Solver};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let game = pgsolver::load(Path::new(&args[0])).expect("a game");
    let solver = match args[1].as_str() {
        "tangle" => Solver::Tangle,
        _ => Solver::Pp,
    };
    let delays: Vec<u64> = args[2..].iter().map(|d| d.parse().unwrap()).collect();
    for d in delays {
        let stop = StopSignal::new();
        let options = SolveOptions {
            threads: 1,
            stop: stop.clone(),
            progress: None,
        };
        let (latency, result) = std::thread::scope(|s| {
            let h = s.spawn(|| {
                let r = parity::solve(&game, solver, &options);
                (Instant::now(), r.is_ok())
            });
            std::thread::sleep(Duration::from_millis(d));
            let asked = Instant::now();
            stop.request();
            let (done, ok) = h.join().unwrap();
            (done.saturating_duration_since(asked), ok)
        });
        println!(
            "{}\tstop at {d} ms\tlatency {:.2} ms\tsolved {result}",
            args[1],
            latency.as_secs_f64() * 1e3
        );
    }
}
