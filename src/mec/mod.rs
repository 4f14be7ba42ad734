//! Maximal end components (MECs) of an [`Mdp`].
//!
//! An end component is a set of states together with, for each of them,
//! a non-empty set of its choices whose branches all stay in the set,
//! such that the graph of those choices' branches is strongly connected
//! on the set. The maximal ones are disjoint. Two loops find them, both
//! by repeated SCC decomposition of the graph of the choices still
//! enabled (an edge `s -> t` for every enabled choice of `s` with a
//! branch to `t`):
//!
//! - [`reference()`], the textbook loop, sequential, on Tarjan's SCCs:
//!   every choice starts enabled, a state without choices is dead; each
//!   iteration decomposes the whole graph, disables every choice with a
//!   branch to another SCC, and removes the states left without an
//!   enabled choice together with every choice that can reach them (and
//!   so on); it stops when an iteration disables nothing. The SCCs of the
//!   live states are then the MECs.
//! - [`decompose`], with the SCC engine as a parameter ([`cpu()`]; [`gpu()`]
//!   runs the same loop on the device), decomposes only a candidate set J that shrinks from one
//!   iteration to the next. J starts as the states that have a choice.
//!   After the SCCs of J's graph are known, a choice of a candidate is
//!   disabled when a branch leads to another SCC or out of J (a state
//!   that died, or was never live); an SCC none of whose states lost a
//!   choice in this iteration is final, a MEC, and leaves J; the states of
//!   the other SCCs that still have an enabled choice form the next J.
//!   Deaths need no search of their own: a choice into a dead state is
//!   disabled when the next iteration finds its target outside J. An
//!   enabled choice only ever leads into the SCC of its state, so J's
//!   graph never has an edge between two SCCs of the iteration before:
//!   each SCC that lost something is decomposed alone, and the work per
//!   iteration is what is still undecided, not the whole MDP.
//!
//! Both loops only disable choices that no end component uses (each end
//! component lies inside one SCC of the enabled choices and never loses
//! its choices), and both stop when every remaining SCC keeps all its
//! enabled choices inside, which makes it an end component; so both find
//! the same MECs. Their iteration counts can differ: J's loop stops as
//! soon as no SCC that lost something keeps a live state, where the
//! textbook runs one more decomposition to see nothing change, and its
//! deaths take effect one iteration later.
//!
//! The SCCs are always those of the enabled choices only. Splitting the
//! components of the whole graph once and then only trimming states (as
//! some textbook presentations do) keeps edges of choices that were
//! disabled and can merge states that no end component joins: with
//! `u: a -> {v, x}, b -> {u}` and `v: c -> {u}`, the SCC `{u, v}` loses
//! `a`, but `{u, v}` is no end component, since `v`'s only way back is
//! through `u`, which can no longer reach `v`; the MEC is `{u}`.

use std::convert::Infallible;
use std::io::{self, Write};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

pub mod gpu;

use crate::explicit::{Csr, Mdp};
use crate::gpu::{Device, GpuError};
use crate::scc;
use crate::scc::cpu::{CountingSort, Method, atomics32, into_plain, zeroed_atomics};

/// [`Mecs::of_state`] of a state that is in no MEC.
pub const NO_MEC: u32 = u32::MAX;

/// The maximal end components of an MDP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mecs {
    /// The MEC of every state (its index in [`Mecs::mecs`]), or [`NO_MEC`].
    pub of_state: Vec<u32>,
    /// The states of every MEC, each list ascending, the lists ordered by
    /// their smallest state.
    pub mecs: Vec<Vec<u32>>,
    /// SCC decompositions run (at least 1, also for an MDP without
    /// states).
    pub iterations: u32,
}

/// The counts of a MEC decomposition, as `warpcheck mec` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct MecSummary {
    /// Maximal end components.
    pub mecs: u64,
    /// States in some MEC.
    pub states_in_mecs: u64,
    /// States of the largest MEC (0 when there is none).
    pub largest_mec: u64,
}

impl Mecs {
    /// Number of MECs.
    pub fn count(&self) -> u64 {
        self.mecs.len() as u64
    }

    /// Number of states in some MEC.
    pub fn states_in_mecs(&self) -> u64 {
        self.mecs.iter().map(|mec| mec.len() as u64).sum()
    }

    /// States of the largest MEC, 0 when there is none.
    pub fn largest(&self) -> u64 {
        self.mecs
            .iter()
            .map(|mec| mec.len() as u64)
            .max()
            .unwrap_or(0)
    }

    /// The three counts together.
    pub fn summary(&self) -> MecSummary {
        MecSummary {
            mecs: self.count(),
            states_in_mecs: self.states_in_mecs(),
            largest_mec: self.largest(),
        }
    }

    /// Writes one line per MEC, its states ascending and separated by
    /// single spaces, MECs in order of their smallest state (the `.mec`
    /// format of the project's Storm oracles).
    pub fn write_lines(&self, out: &mut impl Write) -> io::Result<()> {
        for mec in &self.mecs {
            let mut line = String::with_capacity(mec.len() * 8);
            for (i, state) in mec.iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                line.push_str(&state.to_string());
            }
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// The text [`Mecs::write_lines`] writes.
    pub fn to_lines(&self) -> String {
        let mut out = Vec::new();
        self.write_lines(&mut out)
            .expect("writing to a vector does not fail");
        String::from_utf8(out).expect("digits and spaces are UTF-8")
    }
}

/// The MECs of `mdp`, with `scc` as the SCC engine; its errors are passed
/// on. `scc` labels each state of the graph it is given with a number
/// below the graph's state count, the same number exactly for the states
/// of one component (representatives or component numbers both do).
/// `mdp` must be valid ([`Mdp::validate`]).
///
/// Each iteration decomposes only the candidate set J (see the module
/// doc); every pass over the candidates runs on the current rayon pool.
pub fn decompose<E>(
    mdp: &Mdp,
    mut scc: impl FnMut(&Csr) -> Result<Vec<u32>, E>,
) -> Result<Mecs, E> {
    let setting_up = Instant::now();
    let run = Shrinking::new(mdp);
    let mut candidates = run.live_states();
    tracing::debug!(seconds = setting_up.elapsed().as_secs_f64(), "MEC set-up");
    let mut iterations = 0;
    loop {
        iterations += 1;
        let mut phases = Phases::new();
        run.number(&candidates);
        let graph = run.graph_of(&candidates);
        phases.end("graph");
        let component = if candidates.is_empty() {
            Vec::new()
        } else {
            scc(&graph)?
        };
        phases.end("scc");
        let next = run.split(&candidates, &component);
        phases.end("split");
        tracing::debug!(
            iteration = iterations,
            candidates = candidates.len(),
            edges = graph.targets.len(),
            left = next.len(),
            phases = %phases,
            "MEC iteration"
        );
        if next.is_empty() {
            let labels: Vec<u32> = run
                .mec_label
                .into_iter()
                .map(AtomicU32::into_inner)
                .collect();
            return Ok(Mecs::from_labels(&labels, iterations));
        }
        run.unnumber(&candidates);
        candidates = next;
    }
}

/// The MECs of `mdp` by the sequential reference: the textbook loop, each
/// iteration Tarjan's SCCs of the whole graph of the enabled choices.
pub fn reference(mdp: &Mdp) -> Mecs {
    let mut run = Pruning::new(mdp);
    let mut iterations = 0;
    loop {
        iterations += 1;
        let component = scc::reference::representatives(&run.graph());
        if !run.split(&component) {
            let labels: Vec<u32> = (0..mdp.states())
                .map(|state| {
                    if run.live(state) {
                        component[state as usize]
                    } else {
                        NO_MEC
                    }
                })
                .collect();
            return Mecs::from_labels(&labels, iterations);
        }
    }
}

/// The MECs of `mdp` with the multi-core SCC engine by `method`, on
/// `threads` threads (at least 1): the host passes on all of them, each
/// SCC decomposition as [`scc::cpu::race`] runs it (Tarjan against the
/// method's rounds).
pub fn cpu(mdp: &Mdp, method: Method, threads: usize) -> Mecs {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool of at least one thread");
    let never: Result<Mecs, Infallible> = pool.install(|| {
        decompose(mdp, |graph| {
            Ok(scc::cpu::race(graph, method, threads).0.of_state)
        })
    });
    match never {
        Ok(mecs) => mecs,
        Err(never) => match never {},
    }
}

/// The MECs of `mdp` on `device`, each iteration's graph decomposed by
/// the GPU SCC engine by `method`: the loop of [`decompose`] with every
/// pass on the device ([`gpu::decompose`]).
pub fn gpu(device: &Device, mdp: &Mdp, method: Method) -> Result<Mecs, GpuError> {
    gpu::decompose(device, mdp, method)
}

/// Compiles the kernels [`gpu()`] runs for `device` (or takes them from
/// the cache), so that a timing of [`gpu()`] can leave that out.
pub fn prepare_gpu(device: &Device) -> Result<(), GpuError> {
    for labels in [scc::labels::Labels::Scrambled, scc::labels::Labels::Numbers] {
        device.function(&scc::gpu::build(labels), "scc_start")?;
    }
    device.function(&crate::gpu::scan::build(), "scan_tiles_u64")?;
    device.function(&gpu::build(), "mec_start").map(drop)
}

impl Mecs {
    /// The MECs given by `labels`: for every state the same label as the
    /// other states of its MEC, or [`NO_MEC`]; numbered in the order of
    /// their smallest state. Labels are below the number of states.
    fn from_labels(labels: &[u32], iterations: u32) -> Mecs {
        // The first state of each label is the smallest of its MEC.
        let mut smallest = vec![NO_MEC; labels.len()];
        let labelled = labels
            .iter()
            .enumerate()
            .filter(|&(_, &label)| label != NO_MEC)
            .map(|(state, &label)| {
                let first = &mut smallest[label as usize];
                if *first == NO_MEC {
                    *first = state as u32;
                }
                (state as u32, *first)
            });
        Mecs::from_smallest(labels.len(), labelled, iterations)
    }

    /// [`Mecs::from_labels`] of `states` states, given the states in MECs
    /// ascending, each with the smallest state of its MEC.
    fn from_smallest(
        states: usize,
        labelled: impl Iterator<Item = (u32, u32)>,
        iterations: u32,
    ) -> Mecs {
        // Filled by all threads: the first touch of each page is what
        // costs (12.5 ms alone for wlan-6-0's 5,007,548 states on the
        // H100 machine's host).
        let mut of_state = Vec::with_capacity(states);
        of_state.par_extend(rayon::iter::repeat_n(NO_MEC, states));
        let mut mecs: Vec<Vec<u32>> = Vec::new();
        for (state, smallest) in labelled {
            // The smallest state comes first and opens its MEC.
            let slot = if state == smallest {
                mecs.push(Vec::new());
                mecs.len() as u32 - 1
            } else {
                of_state[smallest as usize]
            };
            of_state[state as usize] = slot;
            mecs[slot as usize].push(state);
        }
        Mecs {
            of_state,
            mecs,
            iterations,
        }
    }
}

/// Seconds per phase of an iteration, for the debug log.
struct Phases {
    since: Instant,
    seconds: Vec<(&'static str, f64)>,
}

impl Phases {
    fn new() -> Phases {
        Phases {
            since: Instant::now(),
            seconds: Vec::new(),
        }
    }

    /// Closes the phase `name`, which began when the last one ended.
    fn end(&mut self, name: &'static str) {
        self.seconds
            .push((name, self.since.elapsed().as_secs_f64()));
        self.since = Instant::now();
    }
}

impl std::fmt::Display for Phases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (name, seconds)) in self.seconds.iter().enumerate() {
            let separator = if i == 0 { "" } else { " " };
            write!(f, "{separator}{name} {seconds:.4}")?;
        }
        Ok(())
    }
}

/// Candidates per task of the parallel passes.
const CHUNK: usize = 1 << 12;

/// Dying states from which on the choices into them are disabled in
/// parallel.
const PARALLEL_WAVE: usize = 1 << 12;

/// The index of a state that is no candidate, in [`Shrinking::local`].
const NOT_CANDIDATE: u32 = u32::MAX;

/// The state of the loop of [`decompose`], shared by the threads of its
/// passes: which choices are enabled, which states live, where the
/// candidates stand, and the MECs found so far.
struct Shrinking<'a> {
    mdp: &'a Mdp,
    /// Whether each choice is still enabled.
    enabled: Vec<AtomicBool>,
    /// Enabled choices of every state; a state is live while it has one.
    enabled_count: Vec<AtomicU32>,
    /// Each candidate's index in the candidates of the iteration;
    /// [`NOT_CANDIDATE`] for other states.
    local: Vec<AtomicU32>,
    /// For the states of the MECs found so far, the smallest state of
    /// their MEC; [`NO_MEC`] for the others.
    mec_label: Vec<AtomicU32>,
    /// Built when the first state dies.
    entering: OnceLock<Entering>,
}

impl<'a> Shrinking<'a> {
    /// All choices enabled; states without choices dead, with what that
    /// disables; no candidate, no MEC.
    fn new(mdp: &'a Mdp) -> Shrinking<'a> {
        let run = Shrinking {
            mdp,
            enabled: (0..mdp.choices())
                .into_par_iter()
                .map(|_| AtomicBool::new(true))
                .collect(),
            enabled_count: (0..mdp.states())
                .into_par_iter()
                .map(|state| AtomicU32::new(mdp.choices_of(state).count() as u32))
                .collect(),
            local: atomics32(mdp.states() as usize, NOT_CANDIDATE),
            mec_label: atomics32(mdp.states() as usize, NO_MEC),
            entering: OnceLock::new(),
        };
        let dead = (0..mdp.states())
            .into_par_iter()
            .filter(|&state| !run.live(state))
            .collect();
        run.remove_dying(dead);
        run
    }

    /// Whether `state` is live.
    fn live(&self, state: u32) -> bool {
        self.enabled_count[state as usize].load(Relaxed) > 0
    }

    /// The live states, ascending.
    fn live_states(&self) -> Vec<u32> {
        (0..self.mdp.states())
            .into_par_iter()
            .filter(|&state| self.live(state))
            .collect()
    }

    /// Gives every state of `candidates` its index there.
    fn number(&self, candidates: &[u32]) {
        candidates
            .par_iter()
            .enumerate()
            .for_each(|(local, &state)| self.local[state as usize].store(local as u32, Relaxed));
    }

    /// Undoes [`Shrinking::number`].
    fn unnumber(&self, candidates: &[u32]) {
        candidates
            .par_iter()
            .for_each(|&state| self.local[state as usize].store(NOT_CANDIDATE, Relaxed));
    }

    /// The candidate index of `state`, which must be a candidate.
    fn local(&self, state: u32) -> usize {
        let local = self.local[state as usize].load(Relaxed);
        debug_assert_ne!(local, NOT_CANDIDATE, "state {state} is no candidate");
        local as usize
    }

    /// The graph of the enabled choices of `candidates` (ascending, just
    /// numbered; every enabled choice of a candidate leads to candidates
    /// only), state `i` standing for `candidates[i]`: each edge once,
    /// each state's successors ascending. Built a chunk of candidates per
    /// task.
    fn graph_of(&self, candidates: &[u32]) -> Csr {
        let pieces: Vec<(Vec<u64>, Vec<u32>)> = candidates
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut ends = Vec::with_capacity(chunk.len());
                let mut targets = Vec::new();
                for &state in chunk {
                    let start = targets.len();
                    for choice in self.mdp.choices_of(state) {
                        if self.enabled[choice as usize].load(Relaxed) {
                            let branches = self.mdp.branches_of(choice).0;
                            targets.extend(branches.iter().map(|&t| self.local(t) as u32));
                        }
                    }
                    targets[start..].sort_unstable();
                    let kept = start + dedup_sorted(&mut targets[start..]);
                    targets.truncate(kept);
                    ends.push(targets.len() as u64);
                }
                (ends, targets)
            })
            .collect();
        let edges = pieces.iter().map(|(_, piece)| piece.len()).sum();
        let mut offsets = Vec::with_capacity(candidates.len() + 1);
        offsets.push(0);
        let mut targets = Vec::with_capacity(edges);
        for (ends, piece) in pieces {
            let base = targets.len() as u64;
            offsets.extend(ends.iter().map(|end| base + end));
            targets.extend_from_slice(&piece);
        }
        Csr { offsets, targets }
    }

    /// Given each candidate's component (`component`, by candidate
    /// index), disables every enabled choice of a candidate with a branch
    /// to another component, and what the deaths that follow disable;
    /// records the states of every component that lost nothing as a MEC;
    /// returns the next candidates: the live states of the components
    /// that lost a choice.
    fn split(&self, candidates: &[u32], component: &[u32]) -> Vec<u32> {
        let lost: Vec<AtomicBool> = (0..candidates.len())
            .into_par_iter()
            .map(|_| AtomicBool::new(false))
            .collect();
        let dying: Vec<u32> = candidates
            .par_iter()
            .zip(component)
            .filter_map(|(&state, &own)| {
                let mut disabled = 0;
                for choice in self.mdp.choices_of(state) {
                    if self.enabled[choice as usize].load(Relaxed)
                        && self
                            .mdp
                            .branches_of(choice)
                            .0
                            .iter()
                            .any(|&target| component[self.local(target)] != own)
                    {
                        self.enabled[choice as usize].store(false, Relaxed);
                        disabled += 1;
                    }
                }
                if disabled == 0 {
                    return None;
                }
                lost[own as usize].store(true, Relaxed);
                let count = &self.enabled_count[state as usize];
                (count.fetch_sub(disabled, Relaxed) == disabled).then_some(state)
            })
            .collect();
        // A choice disabled by a death leads into its own component, where
        // the state that died first lost a choice already: `lost` is
        // complete.
        self.remove_dying(dying);
        // The smallest state of every component that lost nothing.
        let smallest = atomics32(candidates.len(), NO_MEC);
        candidates
            .par_iter()
            .zip(component)
            .for_each(|(&state, &own)| {
                if !lost[own as usize].load(Relaxed) {
                    smallest[own as usize].fetch_min(state, Relaxed);
                }
            });
        candidates
            .par_iter()
            .zip(component)
            .filter_map(|(&state, &own)| {
                if !lost[own as usize].load(Relaxed) {
                    let label = smallest[own as usize].load(Relaxed);
                    self.mec_label[state as usize].store(label, Relaxed);
                    None
                } else {
                    self.live(state).then_some(state)
                }
            })
            .collect()
    }

    /// Disables every enabled choice with a branch to a state of `dying`
    /// (states just left without an enabled choice), then every one into
    /// a state that this leaves without one, and so on, a wave of states
    /// at a time (in parallel while waves are large).
    fn remove_dying(&self, mut dying: Vec<u32>) {
        if dying.is_empty() {
            return;
        }
        let entering = self.entering.get_or_init(|| {
            let building = Instant::now();
            let entering = Entering::new(self.mdp);
            let seconds = building.elapsed().as_secs_f64();
            tracing::debug!(seconds, "MEC index of entering choices");
            entering
        });
        let disable = |&choice: &u64| -> Option<u32> {
            let enabled = &self.enabled[choice as usize];
            if !enabled.load(Relaxed) || !enabled.swap(false, Relaxed) {
                return None;
            }
            let owner = entering.owner[choice as usize];
            let count = &self.enabled_count[owner as usize];
            (count.fetch_sub(1, Relaxed) == 1).then_some(owner)
        };
        while !dying.is_empty() {
            dying = if dying.len() >= PARALLEL_WAVE {
                dying
                    .par_iter()
                    .flat_map_iter(|&dead| entering.choices_to(dead))
                    .filter_map(disable)
                    .collect()
            } else {
                dying
                    .iter()
                    .flat_map(|&dead| entering.choices_to(dead))
                    .filter_map(disable)
                    .collect()
            };
        }
    }
}

/// For every state, the choices with a branch to it (a choice once per
/// such branch), and the state of every choice: what disabling the
/// choices into a dead state needs. Built in parallel, the first time a
/// state dies.
struct Entering {
    /// Offsets into `choices`, per state.
    offsets: Vec<u64>,
    /// See `offsets`.
    choices: Vec<u64>,
    /// The state every choice belongs to.
    owner: Vec<u32>,
}

impl Entering {
    fn new(mdp: &Mdp) -> Entering {
        let mut sort = CountingSort::new(mdp.states() as usize);
        mdp.targets
            .par_iter()
            .for_each(|&target| sort.count(target as usize));
        let choices = zeroed_atomics::<AtomicU64>(sort.close_counts());
        let owner = zeroed_atomics::<AtomicU32>(mdp.choices() as usize);
        (0..mdp.states()).into_par_iter().for_each(|state| {
            for choice in mdp.choices_of(state) {
                owner[choice as usize].store(state, Relaxed);
                for &target in mdp.branches_of(choice).0 {
                    choices[sort.place(target as usize)].store(choice, Relaxed);
                }
            }
        });
        Entering {
            offsets: sort.into_offsets(),
            choices: into_plain(choices),
            owner: into_plain(owner),
        }
    }

    /// The choices with a branch to `state`.
    fn choices_to(&self, state: u32) -> &[u64] {
        let state = state as usize;
        &self.choices[self.offsets[state] as usize..self.offsets[state + 1] as usize]
    }
}

/// Moves the distinct values of the ascending `values` to its front;
/// returns how many there are.
fn dedup_sorted(values: &mut [u32]) -> usize {
    let mut kept = 0;
    for i in 0..values.len() {
        if kept == 0 || values[i] != values[kept - 1] {
            values[kept] = values[i];
            kept += 1;
        }
    }
    kept
}

/// The state of the textbook loop of [`reference()`]: which choices are
/// enabled and which states live.
struct Pruning<'a> {
    mdp: &'a Mdp,
    /// The state every choice belongs to.
    owner: Vec<u32>,
    /// For every state, the choices with a branch to it (a choice once
    /// per such branch), as offsets into `entering`.
    entering_offsets: Vec<u64>,
    /// See `entering_offsets`.
    entering: Vec<u64>,
    /// Whether each choice is still enabled.
    enabled: Vec<bool>,
    /// Enabled choices of every state; a state is live while it has one.
    enabled_count: Vec<u64>,
    /// States that died and whose entering choices are still to be
    /// disabled.
    dying: Vec<u32>,
}

impl<'a> Pruning<'a> {
    /// All choices enabled; states without choices dead, with what that
    /// disables.
    fn new(mdp: &'a Mdp) -> Pruning<'a> {
        let states = mdp.states();
        let choices = mdp.choices() as usize;
        let mut owner = vec![0u32; choices];
        let mut enabled_count = vec![0u64; states as usize];
        for state in 0..states {
            let range = mdp.choices_of(state);
            enabled_count[state as usize] = range.end - range.start;
            for choice in range {
                owner[choice as usize] = state;
            }
        }
        // Counting sort of the branches by target.
        let mut entering_offsets = vec![0u64; states as usize + 1];
        for &target in &mdp.targets {
            entering_offsets[target as usize + 1] += 1;
        }
        for i in 0..states as usize {
            entering_offsets[i + 1] += entering_offsets[i];
        }
        let mut next = entering_offsets.clone();
        let mut entering = vec![0u64; mdp.targets.len()];
        for choice in 0..choices as u64 {
            for &target in mdp.branches_of(choice).0 {
                let slot = &mut next[target as usize];
                entering[*slot as usize] = choice;
                *slot += 1;
            }
        }
        let dying = (0..states)
            .filter(|&s| enabled_count[s as usize] == 0)
            .collect();
        let mut run = Pruning {
            mdp,
            owner,
            entering_offsets,
            entering,
            enabled: vec![true; choices],
            enabled_count,
            dying,
        };
        run.remove_dying();
        run
    }

    /// Whether `state` is live.
    fn live(&self, state: u32) -> bool {
        self.enabled_count[state as usize] > 0
    }

    /// Disables `choice` (enabled); a state left without choices is queued
    /// to die.
    fn disable(&mut self, choice: u64) {
        self.enabled[choice as usize] = false;
        let state = self.owner[choice as usize];
        let count = &mut self.enabled_count[state as usize];
        *count -= 1;
        if *count == 0 {
            self.dying.push(state);
        }
    }

    /// Disables every enabled choice with a branch to a dying state, until
    /// no state is left dying.
    fn remove_dying(&mut self) {
        while let Some(state) = self.dying.pop() {
            let from = self.entering_offsets[state as usize] as usize;
            let to = self.entering_offsets[state as usize + 1] as usize;
            for i in from..to {
                let choice = self.entering[i];
                if self.enabled[choice as usize] {
                    self.disable(choice);
                }
            }
        }
    }

    /// The graph of the enabled choices of live states: each edge once,
    /// each state's successors in the order of its choices' branches.
    /// Dead states have no edges (and no enabled choice leads to them).
    fn graph(&self) -> Csr {
        let states = self.mdp.states();
        let mut offsets = Vec::with_capacity(states as usize + 1);
        offsets.push(0);
        let mut targets = Vec::new();
        // The last source that listed each target: sources come in
        // increasing order, so no reset is needed between them.
        let mut listed_by = vec![u32::MAX; states as usize];
        for state in 0..states {
            for choice in self.mdp.choices_of(state) {
                if !self.enabled[choice as usize] {
                    continue;
                }
                for &target in self.mdp.branches_of(choice).0 {
                    if listed_by[target as usize] != state {
                        listed_by[target as usize] = state;
                        targets.push(target);
                    }
                }
            }
            offsets.push(targets.len() as u64);
        }
        Csr { offsets, targets }
    }

    /// Disables every enabled choice with a branch outside its state's
    /// component (`component` gives each state's), and what the deaths
    /// that follow disable; whether anything was disabled.
    fn split(&mut self, component: &[u32]) -> bool {
        let mut changed = false;
        for state in 0..self.mdp.states() {
            if !self.live(state) {
                continue;
            }
            let own = component[state as usize];
            for choice in self.mdp.choices_of(state) {
                if self.enabled[choice as usize]
                    && self
                        .mdp
                        .branches_of(choice)
                        .0
                        .iter()
                        .any(|&target| component[target as usize] != own)
                {
                    self.disable(choice);
                    changed = true;
                }
            }
        }
        self.remove_dying();
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mdp(choices: Vec<Vec<Vec<(u32, f64)>>>) -> Mdp {
        Mdp::from_choices(0, choices).unwrap()
    }

    #[test]
    fn a_choice_that_can_leave_does_not_hold_a_component_together() {
        // u = 0: a -> {v, x}, b -> {u}; v = 1: c -> {u}; x = 2: d -> {x}.
        let example = mdp(vec![
            vec![vec![(1, 0.5), (2, 0.5)], vec![(0, 1.0)]],
            vec![vec![(0, 1.0)]],
            vec![vec![(2, 1.0)]],
        ]);
        let mecs = reference(&example);
        assert_eq!(mecs.mecs, [vec![0], vec![2]]);
        assert_eq!(mecs.of_state, [0, NO_MEC, 1]);
        assert_eq!(mecs.iterations, 3);
        // The candidates of the second iteration are {u, v}; it splits
        // them and v dies, so no component that lost something keeps a
        // live state: the third, confirming decomposition is not run.
        let fast = cpu(&example, Method::Coloring, 2);
        assert_eq!((&fast.mecs, &fast.of_state), (&mecs.mecs, &mecs.of_state));
        assert_eq!(fast.iterations, 2);
        assert_eq!(mecs.to_lines(), "0\n2\n");
    }

    #[test]
    fn states_without_choices_and_what_must_reach_them_are_in_no_mec() {
        // 0 -> {1, 2} and 1 -> 0: {0, 1} would be one, but 2 is a
        // deadlock; 3 <-> 4 is a MEC that 5 enters and cannot stay in.
        let example = mdp(vec![
            vec![vec![(1, 0.5), (2, 0.5)]],
            vec![vec![(0, 1.0)]],
            vec![],
            vec![vec![(4, 1.0)]],
            vec![vec![(3, 1.0)]],
            vec![vec![(3, 1.0)]],
        ]);
        let mecs = reference(&example);
        assert_eq!(mecs.mecs, [vec![3, 4]]);
        assert_eq!(mecs.of_state, [NO_MEC, NO_MEC, NO_MEC, 0, 0, NO_MEC]);
        assert_eq!(
            mecs.summary(),
            MecSummary {
                mecs: 1,
                states_in_mecs: 2,
                largest_mec: 2
            }
        );
    }

    #[test]
    fn one_choice_that_stays_is_enough() {
        // 0 has a choice out to the absorbing 2 and one into {0, 1}.
        let example = mdp(vec![
            vec![vec![(2, 1.0)], vec![(1, 1.0)]],
            vec![vec![(0, 0.5), (1, 0.5)]],
            vec![vec![(2, 1.0)]],
        ]);
        let mecs = reference(&example);
        assert_eq!(mecs.mecs, [vec![0, 1], vec![2]]);
        assert_eq!(mecs.iterations, 2);
    }

    #[test]
    fn an_mdp_without_states_has_no_mec() {
        let empty = Mdp {
            choice_offsets: vec![0],
            branch_offsets: vec![0],
            targets: Vec::new(),
            probabilities: Vec::new(),
            choice_labels: None,
            initial: 0,
        };
        let mecs = reference(&empty);
        assert_eq!(mecs.mecs, Vec::<Vec<u32>>::new());
        assert_eq!(mecs.summary(), MecSummary::default());
        assert_eq!(mecs.to_lines(), "");
    }
}
