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

use crate::explicit::{Csr, Mdp};
use crate::gpu::{Device, GpuError};
use crate::scc::{self, Components, cpu::Method};

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
/// on. `mdp` must be valid ([`Mdp::validate`]).
pub fn decompose<E>(
    mdp: &Mdp,
    mut scc: impl FnMut(&Csr) -> Result<Components, E>,
) -> Result<Mecs, E> {
    let mut run = Pruning::new(mdp);
    let mut iterations = 0;
    loop {
        iterations += 1;
        let graph = run.graph();
        let components = scc(&graph)?;
        if !run.split(&components.of_state) {
            return Ok(run.mecs(&components.of_state, iterations));
        }
    }
}

/// The MECs of `mdp` by the sequential reference: Tarjan's SCCs.
pub fn reference(mdp: &Mdp) -> Mecs {
    let never: Result<Mecs, Infallible> =
        decompose(mdp, |graph| Ok(scc::reference::decompose(graph)));
    match never {
        Ok(mecs) => mecs,
        Err(never) => match never {},
    }
}

/// The MECs of `mdp` with the multi-core SCC engine by `method`, on
/// `threads` threads (at least 1).
pub fn cpu(mdp: &Mdp, method: Method, threads: usize) -> Mecs {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool of at least one thread");
    let never: Result<Mecs, Infallible> = pool.install(|| {
        decompose(mdp, |graph| {
            Ok(Components::from_representatives(
                &scc::cpu::representatives(graph, method),
            ))
        })
    });
    match never {
        Ok(mecs) => mecs,
        Err(never) => match never {},
    }
}

/// The MECs of `mdp` with the GPU SCC engine by `method` on `device`:
/// each iteration's graph is built on the host, uploaded and decomposed
/// there, and its partition copied back.
pub fn gpu(device: &Device, mdp: &Mdp, method: Method) -> Result<Mecs, GpuError> {
    decompose(mdp, |graph| {
        let uploaded = scc::gpu::upload(device, graph)?;
        let result = scc::gpu::decompose(device, uploaded.view(), method, true)?;
        result.components.ok_or_else(|| GpuError::Inconsistent {
            during: "MEC decomposition",
            detail: "the SCC partition was not copied back".to_string(),
        })
    })
}

/// The state of the loop of [`decompose`]: which choices are enabled and
/// which states live.
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

    /// The MECs once nothing more is disabled: the components of the live
    /// states, numbered by their smallest state.
    fn mecs(&self, component: &[u32], iterations: u32) -> Mecs {
        let states = self.mdp.states();
        let mut number = vec![NO_MEC; component.len()];
        let mut of_state = vec![NO_MEC; states as usize];
        let mut mecs: Vec<Vec<u32>> = Vec::new();
        for state in 0..states {
            if !self.live(state) {
                continue;
            }
            let slot = &mut number[component[state as usize] as usize];
            if *slot == NO_MEC {
                *slot = mecs.len() as u32;
                mecs.push(Vec::new());
            }
            of_state[state as usize] = *slot;
            mecs[*slot as usize].push(state);
        }
        Mecs {
            of_state,
            mecs,
            iterations,
        }
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
        assert_eq!(cpu(&example, Method::Coloring, 2), mecs);
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
