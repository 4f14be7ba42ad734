//! Maximal end components (MECs) of an [`Mdp`].
//!
//! An end component is a set of states together with, for each of them,
//! a non-empty set of its choices whose branches all stay in the set,
//! such that the graph of those choices' branches is strongly connected
//! on the set. The maximal ones are disjoint; [`decompose`] finds them
//! all by repeated SCC decomposition, the SCC engine given as a
//! parameter, so the same loop runs on Tarjan ([`reference()`]), the
//! multi-core engine ([`cpu()`]) and the GPU ([`gpu()`]):
//!
//! 1. every choice starts enabled; a state without choices is dead;
//! 2. the graph has an edge `s -> t` for every enabled choice of a live
//!    state `s` with a branch to `t`; its SCCs are computed;
//! 3. a choice with a branch to another SCC is disabled; a state left
//!    without an enabled choice dies, which disables every choice with a
//!    branch to it, and so on;
//! 4. steps 2 and 3 repeat until step 3 disables nothing. The SCCs of the
//!    live states are then the MECs.
//!
//! The SCCs are always those of the enabled choices only. Splitting the
//! components of the whole graph once and then only trimming states (as
//! some textbook presentations do) keeps edges of choices that were
//! disabled and can merge states that no end component joins: with
//! `u: a -> {v, x}, b -> {u}` and `v: c -> {u}`, the SCC `{u, v}` loses
//! `a`, but `{u, v}` is no end component, since `v`'s only way back is
//! through `u`, which can no longer reach `v`; the MEC is `{u}`.
//!
//! An iteration costs a pass over the choices and branches plus the SCC
//! call; the number of iterations is at most the number of choices plus
//! one, and small on the models measured.

use std::convert::Infallible;
use std::io::{self, Write};

use rayon::prelude::*;

use crate::explicit::{Csr, Mdp};
use crate::gpu::{Device, GpuError};
use crate::scc::{self, cpu::Method};

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
/// Each iteration decomposes only the candidate states: at first every
/// live state, later the live states of the components that lost a
/// choice or a state in the iteration before (see the module doc). The
/// graph, the split and the sorting of the components run on the current
/// rayon pool.
pub fn decompose<E>(
    mdp: &Mdp,
    mut scc: impl FnMut(&Csr) -> Result<Vec<u32>, E>,
) -> Result<Mecs, E> {
    let mut run = Pruning::new(mdp);
    let states = mdp.states() as usize;
    let mut candidates: Vec<u32> = (0..mdp.states())
        .into_par_iter()
        .filter(|&state| run.live(state))
        .collect();
    // Each candidate's index in `candidates`; stale for other states,
    // which no candidate's enabled choice leads to.
    let mut local_of = vec![0u32; states];
    // For the states of MECs found so far, the smallest state of their MEC.
    let mut mec_label = vec![NO_MEC; states];
    let mut iterations = 0;
    loop {
        iterations += 1;
        number_candidates(&candidates, &mut local_of);
        let component = if candidates.is_empty() {
            Vec::new()
        } else {
            scc(&run.graph_of(&candidates, &local_of))?
        };
        let in_component = |state: u32| component[local_of[state as usize] as usize];
        run.split_candidates(&candidates, in_component);
        let mut lost = vec![false; candidates.len()];
        for state in run.take_losers() {
            debug_assert_eq!(candidates[local_of[state as usize] as usize], state);
            lost[in_component(state) as usize] = true;
        }
        let mut smallest = vec![NO_MEC; candidates.len()];
        let mut next = Vec::new();
        for &state in &candidates {
            if !run.live(state) {
                continue;
            }
            let own = in_component(state) as usize;
            if lost[own] {
                next.push(state);
            } else {
                if smallest[own] == NO_MEC {
                    smallest[own] = state;
                }
                mec_label[state as usize] = smallest[own];
            }
        }
        if next.is_empty() {
            return Ok(Mecs::from_labels(&mec_label, iterations));
        }
        candidates = next;
    }
}

/// Writes each candidate's index in `candidates` at it in `local_of`.
fn number_candidates(candidates: &[u32], local_of: &mut [u32]) {
    for (local, &state) in candidates.iter().enumerate() {
        local_of[state as usize] = local as u32;
    }
}

/// The MECs of `mdp` by the sequential reference: the textbook loop, each
/// iteration Tarjan's SCCs of the whole graph of the enabled choices.
pub fn reference(mdp: &Mdp) -> Mecs {
    let mut run = Pruning::new(mdp);
    let mut iterations = 0;
    loop {
        iterations += 1;
        let component = scc::reference::representatives(&run.whole_graph());
        run.split_whole(&component);
        if run.take_losers().is_empty() {
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
/// `threads` threads (at least 1).
pub fn cpu(mdp: &Mdp, method: Method, threads: usize) -> Mecs {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool of at least one thread");
    let never: Result<Mecs, Infallible> =
        pool.install(|| decompose(mdp, |graph| Ok(scc::cpu::representatives(graph, method))));
    match never {
        Ok(mecs) => mecs,
        Err(never) => match never {},
    }
}

/// The MECs of `mdp` with the GPU SCC engine by `method` on `device`:
/// each iteration's graph of the candidate states is built on the host,
/// uploaded and decomposed there, and its partition copied back.
pub fn gpu(device: &Device, mdp: &Mdp, method: Method) -> Result<Mecs, GpuError> {
    decompose(mdp, |graph| {
        let uploaded = scc::gpu::upload(device, graph)?;
        let result = scc::gpu::decompose(device, uploaded.view(), method, true)?;
        match result.components {
            Some(components) => Ok(components.of_state),
            None => Err(GpuError::Inconsistent {
                during: "MEC decomposition",
                detail: "the SCC partition was not copied back".to_string(),
            }),
        }
    })
}

impl Mecs {
    /// The MECs given by `labels`: for every state the same label as the
    /// other states of its MEC, or [`NO_MEC`]; numbered in the order of
    /// their smallest state. Labels are below the number of states.
    fn from_labels(labels: &[u32], iterations: u32) -> Mecs {
        let mut number = vec![NO_MEC; labels.len()];
        let mut of_state = vec![NO_MEC; labels.len()];
        let mut mecs: Vec<Vec<u32>> = Vec::new();
        for (state, &label) in labels.iter().enumerate() {
            if label == NO_MEC {
                continue;
            }
            let slot = &mut number[label as usize];
            if *slot == NO_MEC {
                *slot = mecs.len() as u32;
                mecs.push(Vec::new());
            }
            of_state[state] = *slot;
            mecs[*slot as usize].push(state as u32);
        }
        Mecs {
            of_state,
            mecs,
            iterations,
        }
    }
}

/// Candidate states per task of the parallel passes.
const CHUNK: usize = 1 << 12;

/// The state of the loop: which choices are enabled and which states
/// live.
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
    /// The owner of every choice disabled since [`Pruning::take_losers`]
    /// (once per choice).
    losers: Vec<u32>,
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
            losers: Vec::new(),
        };
        run.remove_dying();
        run.losers.clear();
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
        self.losers.push(state);
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

    /// The owners of the choices disabled since the last call.
    fn take_losers(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.losers)
    }

    /// Whether enabled `choice` has a branch to a state for which
    /// `in_component` differs from `own`.
    fn leaves(&self, choice: u64, own: u32, in_component: impl Fn(u32) -> u32) -> bool {
        self.mdp
            .branches_of(choice)
            .0
            .iter()
            .any(|&target| in_component(target) != own)
    }

    /// The graph of the enabled choices of live states, on all states:
    /// each edge once, each state's successors in the order of its
    /// choices' branches. Dead states have no edges (and no enabled choice
    /// leads to them).
    fn whole_graph(&self) -> Csr {
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
    /// that follow disable, one state after the other.
    fn split_whole(&mut self, component: &[u32]) {
        for state in 0..self.mdp.states() {
            if !self.live(state) {
                continue;
            }
            let own = component[state as usize];
            for choice in self.mdp.choices_of(state) {
                if self.enabled[choice as usize]
                    && self.leaves(choice, own, |target| component[target as usize])
                {
                    self.disable(choice);
                }
            }
        }
        self.remove_dying();
    }

    /// The graph of the enabled choices of `candidates` (live, ascending,
    /// closed under the enabled choices' branches), state `i` standing
    /// for `candidates[i]` (`local_of` maps back): each edge once, each
    /// state's successors ascending. Built in parallel, a chunk of
    /// candidates per task.
    fn graph_of(&self, candidates: &[u32], local_of: &[u32]) -> Csr {
        let pieces: Vec<(Vec<u64>, Vec<u32>)> = candidates
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut ends = Vec::with_capacity(chunk.len());
                let mut targets = Vec::new();
                for &state in chunk {
                    let start = targets.len();
                    for choice in self.mdp.choices_of(state) {
                        if self.enabled[choice as usize] {
                            let branches = self.mdp.branches_of(choice).0;
                            targets.extend(branches.iter().map(|&t| local_of[t as usize]));
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

    /// [`Pruning::split_whole`] on the candidates only (`in_component`
    /// gives their components): the choices that leave are found in
    /// parallel, then disabled with what the deaths that follow disable.
    fn split_candidates(&mut self, candidates: &[u32], in_component: impl Fn(u32) -> u32 + Sync) {
        let leaving: Vec<u64> = candidates
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                let mut leaving = Vec::new();
                for &state in chunk {
                    let own = in_component(state);
                    leaving.extend(self.mdp.choices_of(state).filter(|&choice| {
                        self.enabled[choice as usize] && self.leaves(choice, own, &in_component)
                    }));
                }
                leaving
            })
            .collect();
        for choice in leaving {
            self.disable(choice);
        }
        self.remove_dying();
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
