//! Parity games: who wins from each vertex, and how.
//!
//! Max-parity, as PGSolver and Oink read games: a play is won by Even
//! when the highest priority it visits infinitely often is even. Every
//! solver gives a [`Solution`]: the winner of each vertex and, for each
//! vertex its owner wins, the successor the owner moves to; following
//! those moves wins against every move of the opponent. [`verify`] checks
//! that independently of any solver.
//!
//! * [`reference`](mod@reference): Zielonka's recursive algorithm with an explicit stack,
//!   the oracle of the tests.
//! * [`spm`]: small progress measures (Jurdziński) with a work queue,
//!   optionally over [`shortcuts`] that skip chains of vertices with one
//!   move.
//! * [`gpu`]: the same small progress measures on the GPU, and the
//!   cycles each player controls and their attractors ([`solve_on_gpu`]);
//!   [`race_cpu_gpu`], the CPU's solver against the GPU.
//! * [`fpi`]: fixpoint iteration with distractions and freezing (van Dijk
//!   and Rubbens), multi-threaded over the vertices of a priority.
//! * [`tangle`]: tangle learning (van Dijk).
//! * [`pp`]: priority promotion (Benerecetti, Dell'Erba and Mogavero).
//! * [`solve_auto`]: priority promotion raced by tangle learning (and by
//!   Zielonka's algorithm from [`AT_ONCE_THREADS`] threads).
//!
//! Knows no file format and no CLI.

mod controlled;
pub mod fpi;
pub mod gpu;
pub mod pp;
pub mod reference;
pub mod shortcuts;
pub mod spm;
pub mod tangle;
pub mod verify;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, GameError, ParityGame, Player};
use crate::explore::StopSignal;
use crate::gpu::{Device, GpuError};
use crate::scc::reference::representatives_among;

/// A solved game: the winner of every vertex and a winning strategy for
/// both players.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// The winner of every vertex.
    pub winners: Vec<Player>,
    /// For a vertex its owner wins, the successor the owner moves to;
    /// [`NO_MOVE`] for the others.
    pub strategy: Vec<u32>,
}

impl Solution {
    /// The vertices `player` wins.
    pub fn won_by(&self, player: Player) -> u64 {
        self.winners.iter().filter(|&&w| w == player).count() as u64
    }

    /// Sets [`NO_MOVE`] wherever the owner does not win, so that
    /// solutions compare with `==` whatever a solver left there.
    fn normalised(mut self, game: &ParityGame) -> Solution {
        for (vertex, choice) in self.strategy.iter_mut().enumerate() {
            if self.winners[vertex] != game.owners[vertex] {
                *choice = NO_MOVE;
            }
        }
        self
    }
}

/// The solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Solver {
    /// Zielonka's recursive algorithm ([`reference`](mod@reference)).
    Zielonka,
    /// Small progress measures ([`spm`]).
    Spm,
    /// Fixpoint iteration ([`fpi`]).
    Fpi,
    /// Tangle learning ([`tangle`]).
    Tangle,
    /// Priority promotion ([`pp`]).
    Pp,
}

impl Solver {
    /// Whether the solver uses more than one thread
    /// ([`SolveOptions::threads`]): fixpoint iteration, and priority
    /// promotion for the large levels of its dominions' attractors.
    pub fn multi_threaded(self) -> bool {
        matches!(self, Solver::Fpi | Solver::Pp)
    }

    /// The solver's name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Solver::Zielonka => "zielonka",
            Solver::Spm => "spm",
            Solver::Fpi => "fpi",
            Solver::Tangle => "tangle",
            Solver::Pp => "pp",
        }
    }

    /// Whether the solver first solves the cycles each player controls
    /// and their attractors on the CPU (unless
    /// [`SolveOptions::skip_preprocessing`]); the others solve the game as
    /// it is.
    pub fn preprocesses(self) -> bool {
        matches!(self, Solver::Spm | Solver::Fpi)
    }
}

/// Why a game was not solved.
#[derive(Debug, Error)]
pub enum SolveError {
    /// The arrays do not form a game every solver can read.
    #[error("{0}")]
    Invalid(#[from] GameError),
    /// The stop signal was set (a timeout or Ctrl-C) before the end.
    #[error("stopped before the game was solved")]
    Stopped,
    /// The solver would need more memory than it may take.
    #[error("{0}")]
    TooLarge(String),
    /// The GPU failed, or had too little memory.
    #[error("{0}")]
    Gpu(GpuError),
}

/// How far a solver has come, for a progress line.
#[derive(Debug, Clone)]
pub struct SolveProgress {
    /// Steps so far, in the solver's unit ([`SolveProgress::unit`]).
    pub steps: u64,
    /// What a step is: `lifts`, `iterations`, `subgames`.
    pub unit: &'static str,
    /// Time since the solver started.
    pub elapsed: Duration,
}

/// A callback that shows progress; called from one thread at a time.
pub type ProgressFn = Arc<dyn Fn(&SolveProgress) + Send + Sync>;

/// Options every solver reads.
#[derive(Clone, Default)]
pub struct SolveOptions {
    /// Worker threads of the multi-threaded solvers (0: every core).
    pub threads: usize,
    /// Ends the solver early with [`SolveError::Stopped`].
    pub stop: StopSignal,
    /// Called now and then (about every 0.1 s) with the progress.
    pub progress: Option<ProgressFn>,
    /// Small progress measures on the CPU only: moves into chains of
    /// vertices with one move go to the chain's end ([`shortcuts`]).
    pub shortcuts: bool,
    /// Solve the whole game with the chosen solver: skip the
    /// preprocessing (the cycles each player controls and their
    /// attractors) that small progress measures and fixpoint iteration
    /// run first on the CPU, and every solver on the GPU
    /// ([`gpu::controlled`]), as Oink's `--no-wcwc --no-single` does; so
    /// that a solver can be measured on games that the preprocessing
    /// would solve whole (the propagation games of Bootsma's thesis,
    /// `testing::games`).
    pub skip_preprocessing: bool,
}

impl SolveOptions {
    /// The threads [`SolveOptions::threads`] asks for: every core for 0.
    pub fn thread_count(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }
}

impl std::fmt::Debug for SolveOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolveOptions")
            .field("threads", &self.threads)
            .field("stop", &self.stop)
            .field("shortcuts", &self.shortcuts)
            .field("skip_preprocessing", &self.skip_preprocessing)
            .finish()
    }
}

/// Solves `game` with `solver`. The game is validated first (a vertex
/// without successors is an error, not a loss). Small progress measures
/// and fixpoint iteration first solve the cycles that one player controls
/// and their attractors (`controlled.rs`), as Oink does before its
/// solvers, unless [`SolveOptions::skip_preprocessing`]; the other
/// solvers solve the game as it is.
pub fn solve(
    game: &ParityGame,
    solver: Solver,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    game.validate()?;
    solve_valid(game, solver, &Predecessors::default(), options)
}

/// [`solve`] for a game already validated; the solvers that need
/// `game`'s predecessor lists take them from `predecessors`.
fn solve_valid(
    game: &ParityGame,
    solver: Solver,
    predecessors: &Predecessors,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    let mut watch = Watch::new(options, "rounds");
    let solution = match solver {
        Solver::Zielonka => reference::solve(game, predecessors.of(game), options)?,
        Solver::Spm => preprocessed(game, predecessors, &mut watch, options, |rest| {
            spm::solve(&rest, options)
        })?,
        Solver::Fpi => preprocessed(game, predecessors, &mut watch, options, |rest| {
            fpi::solve(&rest, options)
        })?,
        Solver::Tangle => tangle::solve(game, predecessors.of(game), options)?,
        Solver::Pp => pp::solve(game, predecessors.of(game), options)?,
    };
    Ok(solution.normalised(game))
}

/// `solve_rest` on what the CPU's preprocessing leaves of `game`, or on
/// the whole game with [`SolveOptions::skip_preprocessing`] (then without
/// `game`'s predecessor lists, which only the preprocessing reads).
fn preprocessed(
    game: &ParityGame,
    predecessors: &Predecessors,
    watch: &mut Watch<'_>,
    options: &SolveOptions,
    solve_rest: impl FnOnce(Cow<'_, ParityGame>) -> Result<Solution, SolveError>,
) -> Result<Solution, SolveError> {
    if options.skip_preprocessing {
        solve_rest(Cow::Borrowed(game))
    } else {
        controlled::solve_with(game, predecessors.of(game), watch, solve_rest)
    }
}

/// The predecessor lists of one game ([`Csr::transpose`] of its moves),
/// made by the first solver that asks for them, or before any starts
/// ([`PreparedGame`]): the solvers of a race share them, so that one
/// joining late neither transposes the game again (tens of ms on games
/// of 10^6 vertices, without a look at the stop signal) nor holds a
/// second copy.
#[derive(Default)]
struct Predecessors(OnceLock<Csr>);

impl Predecessors {
    /// The lists of `game`, which must be the game of every call.
    fn of(&self, game: &ParityGame) -> &Csr {
        self.0.get_or_init(|| game.edges.transpose())
    }
}

/// A validated game with its predecessor lists, made before any solver
/// on the CPU starts, so that a caller can time solving apart from
/// preparing: Oink, too, builds its lists of incoming moves (and orders
/// the vertices by priority) before the timer of its "total solving
/// time" starts (`Oink::Oink` and step 6 of `tools/solve.cpp`, at
/// 0a4a37f). Every CPU solver reads these lists; on pgrand-200k-s11
/// (2·10^5 vertices, 4·10^5 moves) preparing took 7.7-10 ms and solving
/// 47-65 ms on H200 hosts with 16 cores
/// (`benches/results/2026-12-03l-h200-parity-prepared/`).
pub struct PreparedGame {
    game: Arc<ParityGame>,
    predecessors: Arc<Predecessors>,
}

impl PreparedGame {
    /// Validates `game` (a vertex without successors is an error, not a
    /// loss) and builds its predecessor lists where `solver` (`None`:
    /// auto) reads them with `options` ([`reads_predecessors`]; else a
    /// solver that asks builds them).
    pub fn new(
        game: Arc<ParityGame>,
        solver: Option<Solver>,
        options: &SolveOptions,
    ) -> Result<PreparedGame, SolveError> {
        game.validate()?;
        let predecessors = Predecessors::default();
        if reads_predecessors(solver, options) {
            predecessors.of(&game);
        }
        Ok(PreparedGame {
            game,
            predecessors: Arc::new(predecessors),
        })
    }
}

/// Whether `solver` (`None`: auto, a race of solvers that all read them)
/// reads the game's predecessor lists with `options`: all do but those
/// that [`Solver::preprocesses`] without the preprocessing, which alone
/// reads them there (small progress measures build lists of their own,
/// fixpoint iteration reads none).
pub fn reads_predecessors(solver: Option<Solver>, options: &SolveOptions) -> bool {
    !(options.skip_preprocessing && solver.is_some_and(Solver::preprocesses))
}

/// [`solve`] for a prepared game.
pub fn solve_prepared(
    prepared: &PreparedGame,
    solver: Solver,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    solve_valid(&prepared.game, solver, &prepared.predecessors, options)
}

/// [`solve_auto`] for a prepared game.
pub fn solve_auto_prepared(
    prepared: &PreparedGame,
    options: &SolveOptions,
) -> Result<(Solution, Solver), SolveError> {
    solve_auto_valid(&prepared.game, &prepared.predecessors, options)
}

/// Solves `game` on `device`: the cycles each player controls and their
/// attractors on the GPU ([`gpu::controlled`], as the CPU's solvers other
/// than Zielonka's do before they start), then the open rest by `rest`:
/// [`Solver::Spm`] on the GPU ([`gpu`]), any other solver on the CPU, and
/// `None` as [`solve_auto`] chooses; with
/// [`SolveOptions::skip_preprocessing`], `rest` solves the whole game. The
/// game is validated first.
pub fn solve_on_gpu(
    game: &ParityGame,
    device: &Device,
    rest: Option<Solver>,
    options: &SolveOptions,
) -> Result<(Solution, Option<Solver>), SolveError> {
    game.validate()?;
    solve_valid_on_gpu(game, device, rest, options)
}

/// [`solve_on_gpu`] for a game already validated; also the solver that
/// solved the rest (`None` when the preprocessing left none open).
fn solve_valid_on_gpu(
    game: &ParityGame,
    device: &Device,
    rest: Option<Solver>,
    options: &SolveOptions,
) -> Result<(Solution, Option<Solver>), SolveError> {
    let mut watch = Watch::new(options, "rounds");
    let mut used = None;
    let mut solve_rest = |open: Cow<'_, ParityGame>| {
        let (solution, solver) = match rest {
            Some(Solver::Spm) => (gpu::solve(device, &open, options)?, Solver::Spm),
            Some(solver) => (
                solve_valid(&open, solver, &Predecessors::default(), options)?,
                solver,
            ),
            // A race leaves its losers running (see `first_to_finish`), so
            // they own the game they solve: the rest, or a copy of the
            // game when the preprocessing solved nothing.
            None => solve_auto_valid(&Arc::new(open.into_owned()), &Arc::default(), options)?,
        };
        used = Some(solver);
        Ok(solution)
    };
    let solution = if options.skip_preprocessing {
        solve_rest(Cow::Borrowed(game))?
    } else {
        gpu::controlled::solve_with(device, game, &mut watch, solve_rest)?
    };
    Ok((solution.normalised(game), used))
}

/// Which side of [`race_cpu_gpu`] finished first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finisher {
    /// The CPU, with this solver.
    Cpu(Solver),
    /// The GPU ([`solve_on_gpu`]), and the solver of what its
    /// preprocessing left (`None` when it left nothing).
    Gpu(Option<Solver>),
}

/// Solves `game` on the CPU and on `device` at once, and gives the first
/// solution with the side that found it; the other side is stopped then
/// (the GPU between two launches or batches of them). The CPU runs
/// `solver`, or with `None` what [`solve_auto`] chooses, on
/// `options.threads`; the GPU runs [`solve_on_gpu`] with `gpu_rest` for
/// what its preprocessing leaves. Either side can be far the faster: the
/// GPU on games of many short cycles (Oink's steady game of 10^6
/// vertices: 0.05-0.07 s against 0.57-0.63 s), the CPU on a long cycle
/// that one player controls, a wave a vertex on the GPU (`counter_qpt
/// 500000`: 0.054-0.067 s against 1.4-1.5 s;
/// `benches/results/2026-12-02f-h200-parity-race/`). The GPU side starts
/// after `gpu_head_start` of wall-clock time (see [`GPU_HEAD_START`]),
/// unless a result is in by then. Progress comes from the
/// CPU. An error only when both sides fail: the error of the last to
/// fail. The losing side ends on its own once it sees the stop, as in
/// every race ([`wait_for_stopped_contestants`]).
pub fn race_cpu_gpu(
    game: &Arc<ParityGame>,
    solver: Option<Solver>,
    gpu_rest: Option<Solver>,
    gpu_head_start: Duration,
    device: &Device,
    options: &SolveOptions,
) -> Result<(Solution, Finisher), SolveError> {
    game.validate()?;
    let cpu_game = Arc::clone(game);
    let on_cpu: Contestant<Finisher> = Box::new(move |cpu_options| match solver {
        Some(solver) => solve_valid(&cpu_game, solver, &Predecessors::default(), &cpu_options)
            .map(|s| (s, Finisher::Cpu(solver))),
        None => solve_auto_valid(&cpu_game, &Arc::default(), &cpu_options)
            .map(|(s, solver)| (s, Finisher::Cpu(solver))),
    });
    let (gpu_game, device) = (Arc::clone(game), device.clone());
    let on_gpu: Contestant<Finisher> = Box::new(move |gpu_options| {
        solve_valid_on_gpu(&gpu_game, &device, gpu_rest, &gpu_options)
            .map(|(s, used)| (s, Finisher::Gpu(used)))
    });
    // Wall-clock time: the CPU side may be a race of its own, whose
    // thread waits rather than runs.
    first_to_finish(
        vec![on_cpu, on_gpu],
        HeadStart::WallClock(gpu_head_start),
        options,
    )
}

/// How long the CPU side of `--engine auto`'s race of the CPU and the GPU
/// runs alone ([`race_cpu_gpu`]). The GPU's set-up (its kernels loaded,
/// the game uploaded: 20 ms on `counter_qpt 500000`) slows the start of
/// the CPU's solvers on the same host: on that game of 10^6 vertices,
/// which the CPU solves in about 50 ms, the race took 0.066 s by median
/// against 0.053 s for the CPU alone; with the GPU idle throughout,
/// 0.049 s; with the GPU starting after 30 ms, 0.053 s (H200 host, 9 runs
/// each; `benches/results/2026-12-03a-h200-parity-contention/run-b.txt`).
/// Where the GPU wins (steady and random games of 10^6 vertices, 0.04 to
/// 0.06 s) the head start delays it by as much.
pub const GPU_HEAD_START: Duration = Duration::from_millis(30);

/// The solvers that [`solve_auto`] races on two or three threads.
pub const AUTO_RACE: [Solver; 2] = [Solver::Pp, Solver::Tangle];

/// The solvers that [`solve_auto`] races from [`AT_ONCE_THREADS`]
/// threads: Zielonka's algorithm joins on a third core, for the games
/// where it beats both (`counter_qpt 500000` on an H200 host, 9 rounds
/// in one process: least and median 0.038 and 0.051 s, against
/// priority promotion's 0.052 and 0.055 and tangle learning's 0.067 and
/// 0.072; `benches/results/2026-12-03c-h200-spm-large/run-b.txt`). With
/// it, `--engine auto` on `counter_qpt 5000000` took 0.400 s by median
/// against 0.457 s for the race of two, Zielonka's first in 7 of 7
/// runs; on the other games of 10^5 vertices or more measured the two
/// builds' ranges overlap (`counter_ortl 200000` 0.249 against 0.231 s
/// by median; `run-c.txt` there, 7 rounds of both builds).
pub const AUTO_RACE_AT_ONCE: [Solver; 3] = [Solver::Pp, Solver::Tangle, Solver::Zielonka];

/// The solvers that [`solve_auto`] races on `threads` threads (from 2).
pub fn auto_race(threads: usize) -> &'static [Solver] {
    if threads >= AT_ONCE_THREADS {
        &AUTO_RACE_AT_ONCE
    } else {
        &AUTO_RACE
    }
}

/// Solves `game` with the solver that suits it, and names that solver.
/// On two threads or more, priority promotion starts, and tangle
/// learning joins it on a second thread ([`AUTO_RACE`], a [`race`]) if it
/// is not done after a head start of about one pass over the game
/// ([`head_start`], counted in its own CPU time, so that a busy machine
/// does not start the second thread early); from [`AT_ONCE_THREADS`]
/// threads both start at once, and Zielonka's algorithm on a third
/// ([`AUTO_RACE_AT_ONCE`]); the first to finish wins and
/// stops the others. Priority promotion draws the large levels of its
/// attractors on the threads that the others leave. On one
/// thread, priority promotion alone: of the solvers, the one whose
/// slowest game measured is the fastest. Priority promotion is the
/// fastest solver on most games measured, the two-counter families
/// built against tangle learning included; tangle learning finishes in
/// under a millisecond the counter families built against priority
/// promotion, where it takes up to a second (README, parity section).
pub fn solve_auto(
    game: &Arc<ParityGame>,
    options: &SolveOptions,
) -> Result<(Solution, Solver), SolveError> {
    game.validate()?;
    solve_auto_valid(game, &Arc::default(), options)
}

/// [`solve_auto`] for a game already validated, whose predecessor lists
/// are kept in `predecessors`.
fn solve_auto_valid(
    game: &Arc<ParityGame>,
    predecessors: &Arc<Predecessors>,
    options: &SolveOptions,
) -> Result<(Solution, Solver), SolveError> {
    let threads = options.thread_count();
    if threads < 2 {
        let solution = solve_valid(game, Solver::Pp, predecessors, options)?;
        return Ok((solution, Solver::Pp));
    }
    let delay = if threads >= AT_ONCE_THREADS {
        Duration::ZERO
    } else {
        head_start(game)
    };
    race_valid(game, predecessors, auto_race(threads), delay, options)
}

/// Threads from which [`solve_auto`]'s solvers start at once: each has a
/// core of its own, and waiting for the head start only delays tangle
/// learning where it is the faster (Oink's `counter_m 333333` and
/// `counter_ortl 200000` on 2 cores: 0.41-0.43 s with the head start,
/// 0.12-0.19 s without, as fast as tangle learning alone:
/// `benches/results/2026-12-02f-h200-parity-race/head-start-2core.txt`).
pub const AT_ONCE_THREADS: usize = 4;

/// How much CPU time the first solver of [`solve_auto`] runs alone: 100
/// ns per vertex and edge, at least 0.2 ms (about the time to start a thread
/// and solve a game of a few hundred vertices). Tangle learning joins
/// after 0.2 ms on the small counter families built against priority
/// promotion, while most games are solved by priority promotion in less
/// time than that and never start a second thread.
pub fn head_start(game: &ParityGame) -> Duration {
    let size = u64::from(game.vertices()) + game.edges.edge_count();
    Duration::from_micros(200).max(Duration::from_nanos(100 * size))
}

/// Runs `solvers` on `game`, a thread each, and gives the first solution
/// with its solver; the others are stopped then. The first solver starts
/// at once, the others once it has run for `delay` of its own CPU time
/// without finishing (wall-clock time where the system cannot tell), or
/// at the latest after four times `delay` of wall-clock time.
/// Progress comes from the first solver only. The game is validated
/// once, first, and its predecessor lists made once, by the first solver
/// that needs them. The losers end on their own once they see the stop
/// ([`wait_for_stopped_contestants`]).
pub fn race(
    game: &Arc<ParityGame>,
    solvers: &[Solver],
    delay: Duration,
    options: &SolveOptions,
) -> Result<(Solution, Solver), SolveError> {
    game.validate()?;
    race_valid(game, &Arc::default(), solvers, delay, options)
}

/// [`race`] for a game already validated, whose predecessor lists are
/// kept in `predecessors`.
fn race_valid(
    game: &Arc<ParityGame>,
    predecessors: &Arc<Predecessors>,
    solvers: &[Solver],
    delay: Duration,
    options: &SolveOptions,
) -> Result<(Solution, Solver), SolveError> {
    let threads = options.thread_count();
    let contestants = solvers
        .iter()
        .map(|&solver| -> Contestant<Solver> {
            let (game, predecessors) = (Arc::clone(game), Arc::clone(predecessors));
            // Priority promotion draws the large levels of its dominions'
            // attractors on the threads that the others leave.
            let own_threads = match solver {
                Solver::Pp => threads.saturating_sub(solvers.len() - 1).max(1),
                _ => 1,
            };
            Box::new(move |contestant: SolveOptions| {
                let own = SolveOptions {
                    threads: own_threads,
                    ..contestant
                };
                solve_valid(&game, solver, &predecessors, &own).map(|s| (s, solver))
            })
        })
        .collect();
    first_to_finish(contestants, HeadStart::CpuTime(delay), options)
}

/// One side of a race: solves with the options it is given and names
/// itself with a `T`. It owns what it reads (the game behind an [`Arc`]),
/// since it may run on after the race has returned.
type Contestant<T> =
    Box<dyn FnOnce(SolveOptions) -> Result<(Solution, T), SolveError> + Send + 'static>;

/// How long the first contestant of a race runs alone.
#[derive(Debug, Clone, Copy)]
enum HeadStart {
    /// This much of its own CPU time ([`ThreadClock`]), or at the latest
    /// [`WALL_BOUND`] times this much wall-clock time.
    CpuTime(Duration),
    /// This much wall-clock time.
    WallClock(Duration),
}

/// Runs `contestants`, a thread each, and gives the first solution; the
/// others are stopped then. The first starts at once, the others after
/// its `head_start` without finishing. Each gets `options` with a
/// stop signal of the race, a [`StopSignal::child`] of `options.stop`
/// set when a solution is in (none starts once it is set), so that a
/// stop of the caller reaches the contestants at once, not when this
/// thread next wakes; progress goes to the first only.
/// When all fail, the last error.
///
/// The race returns as soon as it has its result: the contestants still
/// running are stopped but not waited for, so that a loser caught in a
/// long step without a look at the stop signal (a transpose or a sort
/// over 10^7 vertices: `pp` on `counter_qpt 5000000` returned up to 0.41
/// s after its stop on 2 cores, `cargo run --release --example
/// parity_stop_latency`, `benches/results/2026-12-02j-h200-parity-detach/`)
/// does not delay the winner. They end on their own;
/// [`wait_for_stopped_contestants`] waits for them.
fn first_to_finish<T: Send + 'static>(
    contestants: Vec<Contestant<T>>,
    head_start: HeadStart,
    options: &SolveOptions,
) -> Result<(Solution, T), SolveError> {
    let rivals_done = options.stop.child();
    let (sender, receiver) = std::sync::mpsc::channel();
    let started = Instant::now();
    let first_clock = Arc::new(OnceLock::new());
    // How long the first contestant has run: its CPU time, wall-clock
    // time where the system has no clock of a thread's CPU time, none
    // before it has started or once it has ended (its result is then on
    // its way, and the others start if it is an error).
    let first_ran = || match first_clock.get() {
        Some(Some(clock)) => ThreadClock::read(clock).unwrap_or_default(),
        Some(None) => started.elapsed(),
        None => Duration::ZERO,
    };
    let head_start_left = || match head_start {
        HeadStart::CpuTime(delay) => {
            let by_clock = delay.saturating_sub(first_ran());
            by_clock.min((delay * WALL_BOUND).saturating_sub(started.elapsed()))
        }
        HeadStart::WallClock(delay) => delay.saturating_sub(started.elapsed()),
    };
    let mut waiting = contestants.into_iter().enumerate();
    let mut running = 0;
    let mut last_error = SolveError::Stopped;
    loop {
        let due = !rivals_done.is_set() && (running == 0 || head_start_left().is_zero());
        if let Some((i, contestant)) = due.then(|| waiting.next()).flatten() {
            let own = SolveOptions {
                threads: options.threads,
                stop: rivals_done.clone(),
                progress: if i == 0 {
                    options.progress.clone()
                } else {
                    None
                },
                shortcuts: options.shortcuts,
                skip_preprocessing: options.skip_preprocessing,
            };
            let sender = sender.clone();
            let first_clock = Arc::clone(&first_clock);
            running += 1;
            leave_running(move || {
                if i == 0 {
                    first_clock.get_or_init(ThreadClock::of_this_thread);
                }
                // The receiver is gone only once a result was taken.
                let _ = sender.send(contestant(own));
            });
            continue;
        }
        if running == 0 {
            return Err(last_error);
        }
        // The first contestant's CPU time grows no faster than
        // wall-clock time: what is left of the head start is the least
        // time to wait.
        let wait = match head_start_left() {
            left if !left.is_zero() => left.min(REPORT_INTERVAL),
            _ => REPORT_INTERVAL,
        };
        match receiver.recv_timeout(wait) {
            Ok(Ok(solved)) => {
                rivals_done.request();
                return Ok(solved);
            }
            Ok(Err(error)) => {
                running -= 1;
                last_error = error;
            }
            Err(_) => {}
        }
    }
}

/// The contestants of races that are stopped but not yet ended, and the
/// condition signalled when one ends.
static STOPPED_CONTESTANTS: (std::sync::Mutex<usize>, std::sync::Condvar) =
    (std::sync::Mutex::new(0), std::sync::Condvar::new());

/// Runs `job` on a thread of its own that no one joins, counted in
/// [`STOPPED_CONTESTANTS`] while it runs.
fn leave_running(job: impl FnOnce() + Send + 'static) {
    /// Uncounts its thread when dropped, also on a panic.
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            let (count, ended) = &STOPPED_CONTESTANTS;
            *count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
            ended.notify_all();
        }
    }
    *STOPPED_CONTESTANTS
        .0
        .lock()
        .unwrap_or_else(|e| e.into_inner()) += 1;
    let counted = Counted;
    std::thread::spawn(move || {
        let _counted = counted;
        job();
    });
}

/// Waits until every contestant of every race so far has ended: a race
/// returns with its winner's result while the others are still stopping
/// (`pp` up to 0.41 s on `counter_qpt 5000000` on 2 cores:
/// `benches/results/2026-12-02j-h200-parity-detach/stop-latency-2core.txt`). The
/// command-line tool calls it before it exits, so that no thread is still
/// at work on the GPU when the process ends.
pub fn wait_for_stopped_contestants() {
    let (count, ended) = &STOPPED_CONTESTANTS;
    let mut running = count.lock().unwrap_or_else(|e| e.into_inner());
    while *running > 0 {
        running = ended.wait(running).unwrap_or_else(|e| e.into_inner());
    }
}

/// The clock of the CPU time one thread has run, which a loaded machine
/// does not stretch as it does wall-clock time: a head start measured on
/// it is the same amount of work whatever else the cores run.
struct ThreadClock(#[cfg(unix)] libc::clockid_t);

impl ThreadClock {
    /// The clock of the calling thread; `None` where there is none.
    fn of_this_thread() -> Option<ThreadClock> {
        #[cfg(unix)]
        {
            let mut clock: libc::clockid_t = 0;
            // SAFETY: `pthread_self` names the calling thread, which is
            // alive, and `clock` is a place to write a clock id to.
            let found = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
            (found == 0).then_some(ThreadClock(clock))
        }
        #[cfg(not(unix))]
        None
    }

    /// The CPU time the thread has run; `None` once it has ended.
    fn read(&self) -> Option<Duration> {
        #[cfg(unix)]
        {
            let mut time = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `time` is a place to write a time to; a clock id of
            // a thread that has ended is refused with an error.
            let read = unsafe { libc::clock_gettime(self.0, &mut time) };
            (read == 0).then(|| Duration::new(time.tv_sec as u64, time.tv_nsec as u32))
        }
        #[cfg(not(unix))]
        None
    }
}

/// How many times its head start in CPU time the first contestant of a
/// race may take in wall-clock time before the others start: on a machine
/// so busy that it gets a quarter of a core, waiting for its CPU time
/// would hold back a rival that may finish at once.
const WALL_BOUND: u32 = 4;

/// Reports progress at most every 0.1 s and watches the stop signal: the
/// common part of every solver's main loop.
struct Watch<'a> {
    options: &'a SolveOptions,
    unit: &'static str,
    started: Instant,
    next_report: Instant,
}

/// Time between two progress reports.
const REPORT_INTERVAL: Duration = Duration::from_millis(100);

/// How often [`Watch::poll`] looks at the stop signal: once every so
/// many vertices drawn from an attractor's queue (or other pieces of work
/// as small), well under a millisecond, so that a solver stopped in the
/// middle of an attractor over millions of vertices (tens of ms) ends at
/// once.
const POLL_INTERVAL: usize = 4096;

impl<'a> Watch<'a> {
    fn new(options: &'a SolveOptions, unit: &'static str) -> Watch<'a> {
        let started = Instant::now();
        Watch {
            options,
            unit,
            started,
            next_report: started + REPORT_INTERVAL,
        }
    }

    /// Piece `count` of a loop of small pieces of work inside a step (a
    /// vertex drawn from an attractor's queue): [`SolveError::Stopped`]
    /// if the stop signal is set, looked at only where `count` is one
    /// short of a multiple of [`POLL_INTERVAL`]. A test of a number the
    /// loop keeps anyway: nothing is counted or stored for it.
    #[inline]
    fn poll(&self, count: usize) -> Result<(), SolveError> {
        if count % POLL_INTERVAL == POLL_INTERVAL - 1 {
            return self.stopped();
        }
        Ok(())
    }

    /// [`SolveError::Stopped`] if the stop signal is set: out of the
    /// loops that [`Watch::poll`] is inlined into.
    #[cold]
    #[inline(never)]
    fn stopped(&self) -> Result<(), SolveError> {
        if self.options.stop.is_set() {
            return Err(SolveError::Stopped);
        }
        Ok(())
    }

    /// After `steps` steps: [`SolveError::Stopped`] if the stop signal is
    /// set, and a progress report when one is due.
    fn check(&mut self, steps: u64) -> Result<(), SolveError> {
        if self.options.stop.is_set() {
            return Err(SolveError::Stopped);
        }
        if let Some(progress) = &self.options.progress {
            let now = Instant::now();
            if now >= self.next_report {
                self.next_report = now + REPORT_INTERVAL;
                progress(&SolveProgress {
                    steps,
                    unit: self.unit,
                    elapsed: now - self.started,
                });
            }
        }
        Ok(())
    }
}

/// Priorities renumbered densely with their order and parity kept: the
/// distinct priorities ascending, neighbours of equal parity merged, the
/// lowest mapped to 0 when even and to 1 when odd, and each change of
/// parity one higher. Winners and strategies do not change; solvers that
/// work per priority get fewer of them. Gives the new priorities and the
/// highest one (0 for a game without vertices).
pub fn compress_priorities(priorities: &[u32]) -> (Vec<u32>, u32) {
    use rayon::prelude::*;
    let highest = priorities.iter().copied().max().unwrap_or(0) as usize;
    if highest <= DIRECT_TABLE.max(2 * priorities.len()) {
        // A table indexed by priority: no sort.
        let mut table = vec![u32::MAX; highest + 1];
        for &p in priorities {
            table[p as usize] = 0;
        }
        let mut current = 0u32;
        let mut previous: Option<usize> = None;
        for (p, slot) in table.iter_mut().enumerate() {
            if *slot == u32::MAX {
                continue;
            }
            current = match previous {
                None => p as u32 % 2,
                Some(q) if (p ^ q) & 1 == 0 => current,
                Some(_) => current + 1,
            };
            *slot = current;
            previous = Some(p);
        }
        let compressed = if priorities.len() < PARALLEL_MAP {
            priorities.iter().map(|&p| table[p as usize]).collect()
        } else {
            priorities.par_iter().map(|&p| table[p as usize]).collect()
        };
        return (compressed, current);
    }
    let mut distinct = priorities.to_vec();
    distinct.par_sort_unstable();
    distinct.dedup();
    let mut renumbered = Vec::with_capacity(distinct.len());
    let mut current = 0u32;
    for (i, &priority) in distinct.iter().enumerate() {
        current = match i {
            0 => priority % 2,
            _ if (priority ^ distinct[i - 1]) & 1 == 0 => current,
            _ => current + 1,
        };
        renumbered.push(current);
    }
    let map = |priority: u32| {
        let index = distinct.partition_point(|&p| p < priority);
        renumbered[index]
    };
    let compressed: Vec<u32> = if priorities.len() < PARALLEL_MAP {
        priorities.iter().map(|&p| map(p)).collect()
    } else {
        priorities.par_iter().map(|&p| map(p)).collect()
    };
    (compressed, current)
}

/// Highest priority up to which [`compress_priorities`] renumbers through
/// a table indexed by priority, whatever the number of vertices.
const DIRECT_TABLE: usize = 1 << 16;

/// Fewest vertices whose priorities [`compress_priorities`] maps in
/// parallel.
const PARALLEL_MAP: usize = 1 << 16;

/// The strongly connected components of the live part of a graph, found
/// again as vertices die, with each component's size and its member of
/// highest priority: what the strategy verifier and the preprocessing of
/// player-controlled cycles both ask after each round.
pub(crate) struct TopComponents {
    /// Each vertex's component, named by one of its members.
    pub(crate) representative: Vec<u32>,
    size: Vec<u32>,
    highest: Vec<u32>,
}

impl TopComponents {
    /// Scratch arrays for a graph of `vertices` vertices.
    pub(crate) fn new(vertices: usize) -> TopComponents {
        TopComponents {
            representative: vec![0; vertices],
            size: vec![0; vertices],
            highest: vec![0; vertices],
        }
    }

    /// Decomposes `graph` restricted to the `alive` vertices, which are
    /// `members`, and finds each component's size and member of highest
    /// priority.
    pub(crate) fn decompose(
        &mut self,
        graph: &Csr,
        priorities: &[u32],
        members: &[u32],
        alive: &[bool],
    ) {
        representatives_among(
            graph,
            members.iter().copied(),
            |v| alive[v as usize],
            &mut self.representative,
        );
        for &v in members {
            let root = self.representative[v as usize] as usize;
            self.size[root] = 0;
            self.highest[root] = v;
        }
        for &v in members {
            let root = self.representative[v as usize] as usize;
            self.size[root] += 1;
            if priorities[v as usize] > priorities[self.highest[root] as usize] {
                self.highest[root] = v;
            }
        }
    }

    /// The member of highest priority of `vertex`'s component.
    pub(crate) fn top(&self, vertex: u32) -> u32 {
        self.highest[self.representative[vertex as usize] as usize]
    }

    /// Whether `vertex` lies on a cycle of the live graph: its component
    /// has another member, or it moves to itself.
    pub(crate) fn on_cycle(&self, graph: &Csr, vertex: u32) -> bool {
        self.size[self.representative[vertex as usize] as usize] > 1
            || graph.successors(vertex).contains(&vertex)
    }
}

/// The thread pool of `threads` workers (0: every core) that runs `work`.
fn with_threads<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// The lists are built before the clock only for the solvers that read
    /// them; every solver still gets the reference's winners.
    #[test]
    fn a_prepared_game_has_predecessor_lists_where_its_solver_reads_them() {
        let game = Arc::new(crate::testing::games::propagation_paths(3, 5));
        let reference =
            reference::solve(&game, &game.edges.transpose(), &SolveOptions::default()).unwrap();
        let solvers = [
            Solver::Zielonka,
            Solver::Spm,
            Solver::Fpi,
            Solver::Tangle,
            Solver::Pp,
        ];
        for skip_preprocessing in [false, true] {
            let options = SolveOptions {
                skip_preprocessing,
                ..SolveOptions::default()
            };
            for solver in solvers.map(Some).into_iter().chain([None]) {
                let prepared = PreparedGame::new(Arc::clone(&game), solver, &options).unwrap();
                let reads = !(skip_preprocessing
                    && matches!(solver, Some(Solver::Spm) | Some(Solver::Fpi)));
                assert_eq!(
                    prepared.predecessors.0.get().is_some(),
                    reads,
                    "{solver:?}, skip {skip_preprocessing}"
                );
                let solution = match solver {
                    Some(solver) => solve_prepared(&prepared, solver, &options).unwrap(),
                    None => solve_auto_prepared(&prepared, &options).unwrap().0,
                };
                assert_eq!(solution.winners, reference.winners, "{solver:?}");
            }
        }
    }

    #[test]
    fn a_poll_looks_at_the_stop_signal_once_every_poll_interval() {
        let options = SolveOptions::default();
        let watch = Watch::new(&options, "steps");
        for count in 0..2 * POLL_INTERVAL {
            watch.poll(count).unwrap();
        }
        options.stop.request();
        for count in 0..2 * POLL_INTERVAL {
            let looked = watch.poll(count).is_err();
            assert_eq!(
                looked,
                count % POLL_INTERVAL == POLL_INTERVAL - 1,
                "{count}"
            );
        }
    }

    #[test]
    fn a_thread_clock_counts_work_and_not_sleep() {
        let clock = ThreadClock::of_this_thread().expect("a clock of this thread");
        let start = clock.read().expect("this thread runs");
        std::thread::sleep(Duration::from_millis(60));
        let slept = clock.read().expect("this thread runs") - start;
        assert!(slept < Duration::from_millis(30), "{slept:?}");
        let spinning = Instant::now();
        while clock.read().expect("this thread runs") - start < Duration::from_millis(5) {
            assert!(spinning.elapsed() < Duration::from_secs(20));
        }
    }

    #[test]
    fn the_head_start_is_counted_in_the_first_contestants_cpu_time() {
        // The first contestant sleeps beyond the delay (300 ms against
        // 200 ms) but uses no CPU time: the second never starts (it would
        // at four times the delay), and the first wins. On wall-clock time
        // alone the second would have started at 200 ms and won.
        let solved = |i: u32| Solution {
            winners: vec![Player::Even],
            strategy: vec![i],
        };
        let second_started = Arc::new(AtomicBool::new(false));
        let sleeper: Contestant<u32> = Box::new(move |_| {
            std::thread::sleep(Duration::from_millis(300));
            Ok((solved(0), 0))
        });
        let started = Arc::clone(&second_started);
        let quick: Contestant<u32> = Box::new(move |_| {
            started.store(true, Ordering::Relaxed);
            Ok((solved(1), 1))
        });
        let options = SolveOptions::default();
        let (_, winner) = first_to_finish(
            vec![sleeper, quick],
            HeadStart::CpuTime(Duration::from_millis(200)),
            &options,
        )
        .unwrap();
        assert_eq!(winner, 0);
        assert!(!second_started.load(Ordering::Relaxed));
    }

    /// A first contestant that takes no CPU time is joined after
    /// [`WALL_BOUND`] times a head start in its CPU time, and after a head
    /// start in wall-clock time on time.
    #[test]
    fn a_first_contestant_without_cpu_time_is_joined_after_its_head_start() {
        let joined_after = |head_start| {
            let solved = |i: u32| Solution {
                winners: vec![Player::Even],
                strategy: vec![i],
            };
            let sleeper: Contestant<u32> = Box::new(move |options| {
                // Sleeps until the race is won, at most 20 s.
                let asleep = Instant::now();
                while !options.stop.is_set() && asleep.elapsed() < Duration::from_secs(20) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Ok((solved(0), 0))
            });
            let quick: Contestant<u32> = Box::new(move |_| Ok((solved(1), 1)));
            let started = Instant::now();
            let (_, winner) =
                first_to_finish(vec![sleeper, quick], head_start, &SolveOptions::default())
                    .unwrap();
            assert_eq!(winner, 1);
            started.elapsed()
        };
        let by_cpu_time = joined_after(HeadStart::CpuTime(Duration::from_millis(50)));
        assert!(by_cpu_time >= Duration::from_millis(50) * WALL_BOUND);
        let head_start = Duration::from_millis(100);
        let by_wall_clock = joined_after(HeadStart::WallClock(head_start));
        assert!(by_wall_clock >= head_start, "{by_wall_clock:?}");
        assert!(by_wall_clock < head_start * 3, "{by_wall_clock:?}");
    }

    #[test]
    fn a_race_returns_before_its_losers_end_and_they_can_be_waited_for() {
        let solved = Solution {
            winners: vec![Player::Even],
            strategy: vec![0],
        };
        let loser_ended = Arc::new(AtomicBool::new(false));
        let ended = Arc::clone(&loser_ended);
        let (slow, quick) = (solved.clone(), solved);
        // Blind to the stop signal, as a solver is in a long step.
        let loser: Contestant<u32> = Box::new(move |_| {
            std::thread::sleep(Duration::from_millis(400));
            ended.store(true, Ordering::Relaxed);
            Ok((slow, 0))
        });
        let winner: Contestant<u32> = Box::new(move |_| Ok((quick, 1)));
        let started = Instant::now();
        let (_, first) = first_to_finish(
            vec![loser, winner],
            HeadStart::CpuTime(Duration::ZERO),
            &SolveOptions::default(),
        )
        .unwrap();
        assert_eq!(first, 1);
        assert!(!loser_ended.load(Ordering::Relaxed));
        assert!(started.elapsed() < Duration::from_millis(400));
        wait_for_stopped_contestants();
        assert!(loser_ended.load(Ordering::Relaxed));
    }

    #[test]
    fn a_stop_of_the_caller_reaches_the_contestants_at_once() {
        // The contestant stops the caller and looks at its own signal
        // straight after: the race's thread, asleep until a result comes,
        // has had no chance to pass the stop on.
        let options = SolveOptions::default();
        let caller = options.stop.clone();
        let contestant: Contestant<bool> = Box::new(move |own| {
            caller.request();
            let seen = own.stop.is_set();
            let solved = Solution {
                winners: vec![Player::Even],
                strategy: vec![0],
            };
            Ok((solved, seen))
        });
        let (_, seen) = first_to_finish(
            vec![contestant],
            HeadStart::WallClock(Duration::ZERO),
            &options,
        )
        .unwrap();
        assert!(seen);
    }

    #[test]
    fn compression_keeps_order_and_parity() {
        let (compressed, highest) = compress_priorities(&[1000, 31, 999, 2, 31, 4]);
        assert_eq!(compressed, [2, 1, 1, 0, 1, 0]);
        assert_eq!(highest, 2);
        assert_eq!(compress_priorities(&[0, 0]), (vec![0, 0], 0));
        assert_eq!(compress_priorities(&[7]), (vec![1], 1));
        assert_eq!(compress_priorities(&[]), (vec![], 0));
        // Sparse priorities far above the number of vertices: the sort.
        let (sparse, top) = compress_priorities(&[u32::MAX - 1, 5, 1 << 30, u32::MAX]);
        assert_eq!(sparse, [2, 1, 2, 3]);
        assert_eq!(top, 3);
    }
}
