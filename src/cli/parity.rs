//! `warpcheck parity`: solve a parity game read from a PGSolver file: the
//! winner of every vertex and a winning strategy for each player.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use super::allocator::keep_freed_memory;
use super::engines::{preferred_device, required_device};
use super::output::{check_output_path, warn};
use super::{Cli, Interruption, cpu_threads, emit_report, parse_seconds, spinner};
use crate::error::{Error, exit};
use crate::explicit::{ParityGame, Player};
use crate::explore::cpu::MAX_THREADS;
use crate::frontend::pgsolver;
use crate::gpu::{Device, GpuError};
use crate::parity::verify::verify;
use crate::parity::{
    self, Finisher, PreparedGame, Solution, SolveError, SolveOptions, SolveProgress, Solver,
};

/// The exit codes of `parity`.
pub const PARITY_EXIT_CODES: &str = "\
Exit codes:
  0    solved (and, with --verify, the strategies checked)
  2    bad input or usage (messages say file:line:column), or --engine gpu
       without a GPU or with a solver the GPU does not run
  3    not solved: --timeout or Ctrl-C ended the solver, or SPM would need
       more memory than it may take (or than the GPU has)
  4    internal failure: the solution failed --verify, or the GPU failed
  141  standard output was closed by its reader (as a tool killed by SIGPIPE)";

/// The solvers, as the command line names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolverChoice {
    /// Priority promotion and tangle learning at once, the first to
    /// finish wins (priority promotion alone on one thread; from 4
    /// threads Zielonka's algorithm races on a third; priority promotion
    /// takes the threads the others leave).
    Auto,
    /// Zielonka's recursive algorithm (the reference).
    Zielonka,
    /// Alternating small progress measures: both players' measures lifted
    /// in turns with a work queue each, sharing the vertices each proves
    /// won (memory: vertices × priorities counters).
    Spm,
    /// Fixpoint iteration with freezing, multi-threaded.
    Fpi,
    /// Tangle learning: attractor passes that learn the strongly
    /// connected sets one player wins (exponential on the two-counter
    /// games built against it).
    Tangle,
    /// Priority promotion: regions of one player's attractors, promoted
    /// to higher priorities while the opponent can only escape upwards
    /// (the large levels of its dominions' attractors on `--threads`
    /// threads).
    Pp,
}

/// Vertices from which `--engine auto` races the GPU against the CPU. On
/// Oink's random and steady games of 10^6 vertices the CPU took 0.32 to
/// 0.74 s, the GPU 0.05 to 0.22 s (`benches/results/2026-12-02d-h200-parity-gpu/`,
/// `benches/results/2026-12-02f-h200-parity-race/`); on smaller games
/// the CPU's time shrinks and the start of a GPU context (in the
/// command's wall-clock time) does not.
const AUTO_GPU_VERTICES: u64 = 1_000_000;

/// Where the solver runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ParityEngine {
    /// For games of 10^6 vertices or more when a GPU can be opened, a
    /// race of `gpu` (with `--solver` on the rest) and `cpu`, the GPU
    /// joining after 30 ms (its set-up slows the CPU's start): the first
    /// result wins (on Oink's random and steady games of 10^6 vertices the
    /// GPU alone solved them 1.4 to 12.8 times as fast as the CPU with
    /// `--solver auto`; on `counter_qpt 500000`, a long cycle one player
    /// controls, the CPU was 21 to 28 times as fast as the GPU). Else the
    /// CPU.
    Auto,
    /// The CPU.
    Cpu,
    /// The GPU solves the cycles each player controls and their
    /// attractors (on the random and steady games of 10^6 vertices
    /// measured, all but 0 to 150 vertices); the
    /// rest is solved by `--solver`: small progress measures on the GPU
    /// (`spm`), the other solvers on the CPU. A long cycle one player
    /// controls takes a wave a vertex (Oink's `counter_qpt 500000`:
    /// 1.4-1.5 s, against 0.054-0.067 s on the CPU), which `auto` races
    /// against the CPU.
    Gpu,
    /// The CPU's solver (`--solver`) and the GPU (its preprocessing,
    /// then small progress measures) at once: the first result wins, the
    /// other is stopped.
    /// Without a GPU, the CPU alone.
    Race,
}

/// Arguments of `parity`.
#[derive(Debug, Args)]
pub struct ParityArgs {
    /// The game, in PGSolver format (`parity N;` and a line per vertex),
    /// plain or gzip-compressed; max-parity, as PGSolver and Oink read it.
    pub game: PathBuf,
    /// The solver.
    #[arg(long, value_enum, default_value_t = SolverChoice::Auto)]
    pub solver: SolverChoice,
    /// Where the solver runs.
    #[arg(long, value_enum, default_value_t = ParityEngine::Auto)]
    pub engine: ParityEngine,
    /// GPU to use with `--engine gpu` or `race` (and `auto` on a game of
    /// 10^6 vertices or more), as CUDA numbers the visible devices
    /// (default 0).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
    /// Worker threads of the multi-threaded solvers (default: all cores):
    /// fpi's, and pp's for the large levels of a dominion's attractor;
    /// from 2 on, `auto` races two solvers (three from 4), a thread each
    /// and pp the threads the others leave, and on 1 runs priority
    /// promotion alone.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
    pub threads: Option<u16>,
    /// Write the solution in PGSolver's format: `paritysol N;`, then
    /// `ID WINNER [STRATEGY];` per vertex (winner 0 Even, 1 Odd; the
    /// strategy, a successor, where the winner owns the vertex).
    #[arg(long, value_name = "FILE")]
    pub write_solution: Option<PathBuf>,
    /// Check the strategies independently of the solver: each region
    /// closed, and no cycle its player's strategy allows lost by that
    /// player (exit 4 if the check fails).
    #[arg(long)]
    pub verify: bool,
    /// Stop the solver after this many seconds (fractions allowed), with
    /// exit code 3 and no solution.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// With `--solver spm` (on the CPU and on the GPU): moves into chains
    /// of vertices that have one move each go straight to the chain's
    /// end, carrying the highest priority they pass (Bootsma's thesis,
    /// chapter 6), so that measures cross a chain in one lift. Same
    /// winners; the strategy names each move's first step.
    #[arg(long)]
    pub shortcuts: bool,
    /// Solve the whole game with the solver. Before spm and fpi, and on
    /// the GPU before any solver, the cycles each player controls and
    /// their attractors are solved first (as Oink does by default); this
    /// skips that, as Oink's `--no-wcwc --no-single`, to measure a solver
    /// on games the preprocessing would solve whole. zielonka, tangle and
    /// pp on the CPU never preprocess.
    #[arg(long)]
    pub no_preprocessing: bool,
}

/// What `parity` solved, where, and how long each step took.
#[derive(Debug, serde::Serialize)]
struct ParityReport {
    input: String,
    vertices: u64,
    edges: u64,
    max_priority: Option<u32>,
    won_by_even: u64,
    won_by_odd: u64,
    /// The winner of vertex 0: `even` or `odd`.
    winner_of_first: Option<&'static str>,
    solver: Solver,
    engine: String,
    /// With a GPU and `--engine race`, or `auto` on a game of 10^6
    /// vertices or more: `cpu` or `gpu`, whichever finished first.
    race_winner: Option<&'static str>,
    verified: bool,
    load_seconds: f64,
    /// Validating the game and building its predecessor lists before a
    /// solver on the CPU starts (as Oink does before its solving timer
    /// starts); null when a GPU was opened, whose side prepares its own.
    prepare_seconds: Option<f64>,
    solve_seconds: f64,
    verify_seconds: Option<f64>,
    elapsed_seconds: f64,
    solution_file: Option<String>,
    warnings: Vec<String>,
    exit_code: i32,
}

/// Runs `parity`, then waits for the losers of its races to end (the
/// report is out by then), so that none is still at work on the GPU as
/// the process exits. The memory that loading frees is kept for the
/// solvers ([`keep_freed_memory`]).
pub fn parity(cli: &Cli, args: &ParityArgs) -> Result<i32, Error> {
    if !keep_freed_memory() {
        tracing::debug!("the allocator returns freed memory to the system");
    }
    let outcome = solve_and_report(cli, args);
    parity::wait_for_stopped_contestants();
    outcome
}

/// [`parity`] up to its report.
fn solve_and_report(cli: &Cli, args: &ParityArgs) -> Result<i32, Error> {
    let started = Instant::now();
    let chosen = match args.solver {
        SolverChoice::Auto => None,
        SolverChoice::Zielonka => Some(Solver::Zielonka),
        SolverChoice::Spm => Some(Solver::Spm),
        SolverChoice::Fpi => Some(Solver::Fpi),
        SolverChoice::Tangle => Some(Solver::Tangle),
        SolverChoice::Pp => Some(Solver::Pp),
    };
    if args.shortcuts && chosen != Some(Solver::Spm) {
        return Err(Error::Usage(
            "--shortcuts applies to small progress measures only: add --solver spm".into(),
        ));
    }
    if let Some(path) = &args.write_solution {
        check_output_path(path, &args.game, "--write-solution")?;
    }
    let ordinal = args.device.unwrap_or(0);
    let device = match args.engine {
        ParityEngine::Gpu => Some(required_device(ordinal)?),
        ParityEngine::Race => preferred_device(ordinal, cli.quiet, "the CPU alone"),
        ParityEngine::Auto | ParityEngine::Cpu => None,
    };
    let loading = Instant::now();
    let game = Arc::new(pgsolver::load(&args.game)?);
    let load_seconds = loading.elapsed().as_secs_f64();
    // `auto` opens a GPU for a large game only (AUTO_GPU_VERTICES).
    let device = match args.engine {
        ParityEngine::Auto if u64::from(game.vertices()) >= AUTO_GPU_VERTICES => {
            preferred_device(ordinal, true, "the CPU")
        }
        _ => device,
    };
    let mut warnings = Vec::new();
    if device.is_none() && args.device.is_some() {
        warnings.push("--device only affects the GPU, which does not run here".into());
    }
    if args.engine == ParityEngine::Gpu && args.threads.is_some() && chosen == Some(Solver::Spm) {
        warnings.push("--threads only affects the CPU solvers, which do not run here".into());
    } else if let Some(solver) = chosen.filter(|&s| args.threads.is_some() && !s.multi_threaded()) {
        warnings.push(format!(
            "--threads only affects the fpi, pp and auto solvers; {} runs on one thread",
            solver.name()
        ));
    }
    if args.no_preprocessing && device.is_none() && !chosen.is_some_and(Solver::preprocesses) {
        warnings.push(format!(
            "--no-preprocessing only affects spm and fpi, and the GPU; {} never preprocesses",
            chosen.map_or("auto", Solver::name)
        ));
    }
    for w in &warnings {
        warn(w);
    }
    let threads = cpu_threads(args.threads);
    let interruption = Interruption::arm(args.timeout, cli.quiet);
    let bar = (!cli.quiet && std::io::stderr().is_terminal()).then(spinner);
    let shown = bar.clone();
    let options = SolveOptions {
        threads,
        stop: interruption.stop.clone(),
        progress: shown.map(|bar| {
            Arc::new(move |p: &SolveProgress| {
                bar.set_message(format!(
                    "solving: {} {}, {:.1} s",
                    p.steps,
                    p.unit,
                    p.elapsed.as_secs_f64()
                ));
                bar.tick();
            }) as parity::ProgressFn
        }),
        shortcuts: args.shortcuts,
        skip_preprocessing: args.no_preprocessing,
    };
    // Off the GPU the game is prepared first (see `solve`).
    if let Some(bar) = bar.as_ref().filter(|_| device.is_none()) {
        bar.set_message("preparing: checking the game, listing each vertex's predecessors");
    }
    let started_solving = Instant::now();
    let outcome = solve(&game, args.engine, chosen, device.as_ref(), &options);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let (solution, ran, preparing) = match outcome {
        Ok(solved) => solved,
        Err(SolveError::Invalid(e)) => {
            return Err(Error::Model(format!("{}: {e}", args.game.display())));
        }
        Err(SolveError::Stopped) => {
            let what = match args.timeout {
                Some(t) if !interruption.by_user.load(Ordering::Relaxed) => {
                    format!("the --timeout of {} s was reached", t.as_secs_f64())
                }
                _ => "interrupted (Ctrl-C)".to_string(),
            };
            return Err(Error::Incomplete(format!(
                "{}: not solved: {what}",
                args.game.display()
            )));
        }
        Err(SolveError::TooLarge(message)) => {
            return Err(Error::Incomplete(format!(
                "{}: not solved: {message}",
                args.game.display()
            )));
        }
        Err(SolveError::Gpu(GpuError::OutOfMemory { requested, free })) => {
            return Err(Error::Incomplete(format!(
                "{}: not solved: the GPU has too little memory for this game \
                 ({requested} bytes more asked, {free} free); use --engine cpu",
                args.game.display()
            )));
        }
        Err(SolveError::Gpu(error)) => return Err(Error::Gpu(error)),
    };
    let solver = ran.solver();
    let prepare_seconds = preparing.map(|took| took.as_secs_f64());
    let solve_seconds = (started_solving.elapsed() - preparing.unwrap_or_default()).as_secs_f64();
    let verify_seconds = if args.verify {
        let checking = Instant::now();
        verify(&game, &solution).map_err(|flaw| {
            Error::Internal(format!(
                "the {} solution of {} failed verification: {flaw}",
                solver.name(),
                args.game.display()
            ))
        })?;
        Some(checking.elapsed().as_secs_f64())
    } else {
        None
    };
    if let Some(path) = &args.write_solution {
        write_solution(path, &solution)?;
    }
    let name = |player: Player| match player {
        Player::Even => "even",
        Player::Odd => "odd",
    };
    let report = ParityReport {
        input: args.game.display().to_string(),
        vertices: u64::from(game.vertices()),
        edges: game.edges.edge_count(),
        max_priority: game.max_priority(),
        won_by_even: solution.won_by(Player::Even),
        won_by_odd: solution.won_by(Player::Odd),
        winner_of_first: solution.winners.first().map(|&w| name(w)),
        solver,
        engine: ran.describe(chosen, threads, device.as_ref(), !args.no_preprocessing),
        race_winner: match ran {
            Ran::RaceWonByCpu(_) => Some("cpu"),
            Ran::RaceWonByGpu(_) => Some("gpu"),
            Ran::Cpu(_) | Ran::Gpu(_) => None,
        },
        verified: args.verify,
        load_seconds,
        prepare_seconds,
        solve_seconds,
        verify_seconds,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        solution_file: args
            .write_solution
            .as_ref()
            .map(|p| p.display().to_string()),
        warnings,
        exit_code: exit::OK,
    };
    emit_report(cli, &report, text_report)?;
    Ok(exit::OK)
}

/// Where a solution came from.
#[derive(Debug, Clone, Copy)]
enum Ran {
    /// The CPU, with this solver.
    Cpu(Solver),
    /// The GPU.
    Gpu(GpuRun),
    /// A race of the CPU and the GPU, won by the CPU with this solver.
    RaceWonByCpu(Solver),
    /// A race of the CPU and the GPU, won by the GPU.
    RaceWonByGpu(GpuRun),
}

/// What the GPU ran: its preprocessing, and the rest by this solver (on
/// the GPU for small progress measures, else on the CPU), or, when
/// nothing was left, the one asked for (`auto`: priority promotion).
#[derive(Debug, Clone, Copy)]
struct GpuRun {
    /// The rest's solver.
    rest: Solver,
    /// Whether anything was left to it.
    left: bool,
}

impl GpuRun {
    /// The run of [`parity::solve_on_gpu`], which names the rest's solver
    /// `used` (`None`: nothing left), asked to run `asked` on it.
    fn new(used: Option<Solver>, asked: Option<Solver>) -> GpuRun {
        GpuRun {
            rest: used.or(asked).unwrap_or(Solver::Pp),
            left: used.is_some(),
        }
    }
}

impl Ran {
    /// The solver that gave the solution.
    fn solver(self) -> Solver {
        match self {
            Ran::Cpu(solver) | Ran::RaceWonByCpu(solver) => solver,
            Ran::Gpu(run) | Ran::RaceWonByGpu(run) => run.rest,
        }
    }

    /// The engine as the report names it; `chosen` is the solver asked
    /// for (`None`: auto), `threads` the CPU's, `preprocessing` whether
    /// the GPU's side solved the cycles one player controls first.
    fn describe(
        self,
        chosen: Option<Solver>,
        threads: usize,
        device: Option<&Device>,
        preprocessing: bool,
    ) -> String {
        let cpu = |solver: Solver| match (chosen, solver) {
            (None, _) if threads > 1 => {
                let names: Vec<&str> = parity::auto_race(threads)
                    .iter()
                    .map(|s| s.name())
                    .collect();
                let (last, others) = names.split_last().expect("a race has solvers");
                format!(
                    "cpu (race of {} and {last}, {} first)",
                    others.join(", "),
                    solver.name()
                )
            }
            (_, solver) if solver.multi_threaded() && threads > 1 => {
                format!("cpu ({threads} threads)")
            }
            _ => "cpu (1 thread)".to_string(),
        };
        let gpu = || {
            format!(
                "gpu ({})",
                device.map_or(String::new(), Device::description)
            )
        };
        let on_gpu = |run: GpuRun| {
            let solver = match run.rest {
                Solver::Spm => "spm on the gpu".to_string(),
                solver => format!("{} on the {}", solver.name(), cpu(solver)),
            };
            if !preprocessing {
                return format!("no preprocessing; the whole game: {solver}");
            }
            let rest = if run.left { solver } else { "none left".into() };
            format!("cycles one player controls and their attractors; the rest: {rest}")
        };
        match self {
            Ran::Cpu(solver) => cpu(solver),
            Ran::Gpu(run) => format!("{}: {}", gpu(), on_gpu(run)),
            Ran::RaceWonByCpu(solver) => {
                format!("race of cpu and {}: {} first", gpu(), cpu(solver))
            }
            Ran::RaceWonByGpu(run) => {
                format!("race of cpu and {}: the gpu first ({})", gpu(), on_gpu(run))
            }
        }
    }
}

/// Solves `game` where `engine` says, with the solver `chosen` (`None`:
/// auto) on the CPU; `device` is the GPU opened for `gpu`, `race` and
/// `auto` on a large game (for `race` and `auto`, `None` when none could
/// be opened: the CPU alone). The CPU alone first prepares the game
/// ([`PreparedGame`]) and gives the time that took, so that the report
/// times solving as Oink times itself; a GPU's side prepares its own
/// arrays inside the solve (`None`).
fn solve(
    game: &Arc<ParityGame>,
    engine: ParityEngine,
    chosen: Option<Solver>,
    device: Option<&Device>,
    options: &SolveOptions,
) -> Result<(Solution, Ran, Option<Duration>), SolveError> {
    let race = |gpu_rest: Option<Solver>, head_start: Duration, device: &Device| {
        parity::race_cpu_gpu(game, chosen, gpu_rest, head_start, device, options).map(
            |(s, finisher)| {
                let ran = match finisher {
                    Finisher::Cpu(solver) => Ran::RaceWonByCpu(solver),
                    Finisher::Gpu(used) => Ran::RaceWonByGpu(GpuRun::new(used, gpu_rest)),
                };
                (s, ran, None)
            },
        )
    };
    match (engine, device) {
        (ParityEngine::Gpu, Some(device)) => parity::solve_on_gpu(game, device, chosen, options)
            .map(|(s, used)| (s, Ran::Gpu(GpuRun::new(used, chosen)), None)),
        (ParityEngine::Auto, Some(device)) => race(chosen, parity::GPU_HEAD_START, device),
        (ParityEngine::Race, Some(device)) => race(Some(Solver::Spm), Duration::ZERO, device),
        _ => {
            let preparing = Instant::now();
            let prepared = PreparedGame::new(Arc::clone(game), chosen, options)?;
            let preparing = Some(preparing.elapsed());
            match chosen {
                Some(solver) => parity::solve_prepared(&prepared, solver, options)
                    .map(|s| (s, Ran::Cpu(solver), preparing)),
                None => parity::solve_auto_prepared(&prepared, options)
                    .map(|(s, solver)| (s, Ran::Cpu(solver), preparing)),
            }
        }
    }
}

/// The report as `name: value` lines.
fn text_report(report: &ParityReport) -> String {
    let priority = report
        .max_priority
        .map_or("none".to_string(), |p| p.to_string());
    let mut lines = vec![
        format!(
            "input: {} ({} vertices, {} edges, highest priority {priority})",
            report.input, report.vertices, report.edges
        ),
        format!("won by Even: {} vertices", report.won_by_even),
        format!("won by Odd: {} vertices", report.won_by_odd),
    ];
    if let Some(winner) = report.winner_of_first {
        lines.push(format!("vertex 0 is won by {winner}"));
    }
    lines.push(format!(
        "solver: {}, engine: {}",
        report.solver.name(),
        report.engine
    ));
    if report.verified {
        lines.push("strategies verified".to_string());
    }
    let preparing = report
        .prepare_seconds
        .map_or(String::new(), |s| format!(", prepare {s:.3} s"));
    let verifying = report
        .verify_seconds
        .map_or(String::new(), |s| format!(", verify {s:.3} s"));
    lines.push(format!(
        "time: load {:.3} s{preparing}, solve {:.3} s{verifying}, total {:.3} s",
        report.load_seconds, report.solve_seconds, report.elapsed_seconds
    ));
    if let Some(file) = &report.solution_file {
        lines.push(format!("solution written to {file}"));
    }
    lines.join("\n") + "\n"
}

/// Writes `solution` to `path` in PGSolver's solution format.
fn write_solution(path: &Path, solution: &Solution) -> Result<(), Error> {
    let write_error = |source| Error::Write {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::create(path).map_err(write_error)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    pgsolver::write_solution(&mut out, &solution.winners, &solution.strategy)
        .map_err(write_error)?;
    out.flush().map_err(write_error)
}
