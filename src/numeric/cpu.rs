//! The multi-core engine of `warpcheck prob`: the sweeps of
//! [`super::reference::iterate`] spread over rayon threads, every class
//! updated once a sweep (Jacobi and Gauss-Seidel mixed: a thread reads
//! whatever bound another has written, which is still a valid bound, see
//! [`super::reference::SharedBounds`]).

use rayon::prelude::*;

use super::SolveOptions;
use super::reference::{Bounds, Iteration, Tally, sweep_until_precise};
use crate::explicit::Mdp;

/// Classes one task updates.
const CLASSES_PER_TASK: usize = 1 << 10;

/// Refines `iteration` of `mdp` on `threads` threads within `options`.
pub fn iterate(mdp: &Mdp, iteration: Iteration, options: &SolveOptions, threads: usize) -> Bounds {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool of at least one thread");
    pool.install(|| {
        sweep_until_precise(iteration, options, |bounds, classes, rule| {
            (0..classes.count())
                .into_par_iter()
                .with_min_len(CLASSES_PER_TASK)
                .map(|class| bounds.update(mdp, classes, class, rule))
                .reduce(Tally::default, |a, b| a + b)
        })
    })
}
