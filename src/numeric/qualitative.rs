//! Graph analyses that settle the states whose probability of `left U
//! right` is exactly 0 or 1 before any numeric iteration (the
//! precomputations of PRISM and Storm): `prob0`/`prob1` of a DTMC, and for
//! MDPs the four combinations of "some scheduler" (E) and "every
//! scheduler" (A). A DTMC is an MDP with one choice a state
//! ([`super::as_mdp`]), where E and A coincide. They look only at which
//! probabilities are positive, never at their values.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::Spare;
use super::reference::Classes;
use crate::explicit::Mdp;
use crate::scc::cpu::{CountingSort, into_plain, zeroed_atomics};

/// States of one level of [`by_levels`] that one task expands.
const STATES_PER_TASK: usize = 1 << 10;

/// A search level by level from `seeds`: `expand` is given each state of
/// a level and adds the states of the next one to the list it is given;
/// `visit` sees each level, seeds first, before it is expanded. A level
/// of at least two tasks' states is expanded on the current rayon pool
/// (so `expand` shares its marks with other threads through atomics,
/// and the next level comes in no set order), a smaller one on this thread.
pub(crate) fn by_levels(
    seeds: Vec<u32>,
    expand: impl Fn(u32, &mut Vec<u32>) + Sync,
    mut visit: impl FnMut(&mut Vec<u32>),
) {
    // Two lists, the level and the next one, swapped level after level so
    // that their memory serves every level.
    let (mut level, mut next) = (seeds, Vec::new());
    while !level.is_empty() {
        visit(&mut level);
        next.clear();
        if level.len() >= 2 * STATES_PER_TASK {
            let parts: Vec<Vec<u32>> = level
                .par_chunks(STATES_PER_TASK)
                .map(|chunk| {
                    let mut part = Vec::new();
                    chunk.iter().for_each(|&state| expand(state, &mut part));
                    part
                })
                .collect();
            parts.iter().for_each(|part| next.extend_from_slice(part));
        } else {
            level.iter().for_each(|&state| expand(state, &mut next));
        }
        std::mem::swap(&mut level, &mut next);
    }
}

/// Whether the current rayon pool has more than one thread, so that the
/// searches run level by level on them (else the sequential searches,
/// which need no atomics).
fn in_parallel() -> bool {
    rayon::current_num_threads() > 1
}

/// The states where `set` holds, in increasing order, found on the
/// current rayon pool.
fn states_in(set: &[bool]) -> Vec<u32> {
    (0..set.len() as u32)
        .into_par_iter()
        .filter(|&s| set[s as usize])
        .collect()
}

/// Where some scheduler of an MDP reaches `right` through `left` states:
/// what a maximal probability (and a minimal reward, with `left` every
/// state) settles before its end components are collapsed.
pub struct MaximalReach {
    /// Pmax > 0.
    pub positive: Vec<bool>,
    /// Pmax = 1, the `right` states included.
    pub almost_sure: Vec<bool>,
}

/// For every state, the choices of other states with a branch into it
/// (each choice once per target state), each with the state it belongs
/// to: what the backward searches follow.
pub struct Predecessors {
    offsets: Vec<u64>,
    choices: Vec<u64>,
    /// The state of each entry's choice, beside it, so that a search
    /// reads both in one place.
    owners: Vec<u32>,
}

impl Predecessors {
    /// The predecessor choices of every state of `mdp`, on the current
    /// rayon pool: a [`CountingSort`] by target, so that each state's
    /// list is in no set order (the searches find the same sets in any
    /// order).
    pub fn of(mdp: &Mdp) -> Predecessors {
        // The positive branches of `choice` whose target did not come
        // before in it.
        let targets_of = |choice: u64| {
            let (targets, probabilities) = mdp.branches_of(choice);
            let increasing = targets.windows(2).all(|pair| pair[0] < pair[1]);
            targets
                .iter()
                .zip(probabilities)
                .enumerate()
                .filter(move |&(i, (target, &probability))| {
                    probability > 0.0 && (increasing || !targets[..i].contains(target))
                })
                .map(|(_, (&target, _))| target as usize)
        };
        let mut sort = CountingSort::new(mdp.states() as usize);
        (0..mdp.choices()).into_par_iter().for_each(|choice| {
            targets_of(choice).for_each(|target| sort.count(target));
        });
        let entries = sort.close_counts();
        let choices = zeroed_atomics::<AtomicU64>(entries);
        let owners = zeroed_atomics::<AtomicU32>(entries);
        (0..mdp.states()).into_par_iter().for_each(|state| {
            for choice in mdp.choices_of(state) {
                for target in targets_of(choice) {
                    let slot = sort.place(target);
                    choices[slot].store(choice, Relaxed);
                    owners[slot].store(state, Relaxed);
                }
            }
        });
        Predecessors {
            offsets: sort.into_offsets(),
            choices: into_plain(choices),
            owners: into_plain(owners),
        }
    }

    /// The arrays, for later phases to reuse.
    pub fn into_spare(self) -> Spare {
        let mut spare = Spare::default();
        spare.keep_words(self.offsets);
        spare.keep_words(self.choices);
        spare.keep_halves(self.owners);
        spare
    }

    /// The choices with a branch into `state`, and the state of each.
    fn of_state(&self, state: u32) -> impl Iterator<Item = (u64, u32)> + '_ {
        let range =
            self.offsets[state as usize] as usize..self.offsets[state as usize + 1] as usize;
        self.choices[range.clone()]
            .iter()
            .copied()
            .zip(self.owners[range].iter().copied())
    }
}

/// The states from which some path through `left` states reaches a
/// `right` state with positive probability under some scheduler (for a
/// DTMC: P > 0; for an MDP: Pmax > 0), on the threads of the current
/// rayon pool ([`exists_reach_by_levels`] on more than one,
/// [`exists_reach_sequential`] on one).
pub fn exists_reach(predecessors: &Predecessors, left: &[bool], right: &[bool]) -> Vec<bool> {
    if in_parallel() {
        exists_reach_by_levels(predecessors, left, right)
    } else {
        exists_reach_sequential(predecessors, left, right)
    }
}

/// [`exists_reach`] by one breadth-first search on this thread: the
/// sequential reference.
pub fn exists_reach_sequential(
    predecessors: &Predecessors,
    left: &[bool],
    right: &[bool],
) -> Vec<bool> {
    let mut found = right.to_vec();
    let mut queue: VecDeque<u32> = (0..right.len() as u32)
        .filter(|&s| right[s as usize])
        .collect();
    while let Some(state) = queue.pop_front() {
        for (_, owner) in predecessors.of_state(state) {
            if left[owner as usize] && !found[owner as usize] {
                found[owner as usize] = true;
                queue.push_back(owner);
            }
        }
    }
    found
}

/// [`exists_reach`] by a breadth-first search level by level on the
/// current rayon pool (`by_levels`).
pub fn exists_reach_by_levels(
    predecessors: &Predecessors,
    left: &[bool],
    right: &[bool],
) -> Vec<bool> {
    let found: Vec<AtomicBool> = right.par_iter().map(|&r| AtomicBool::new(r)).collect();
    let expand = |state: u32, next: &mut Vec<u32>| {
        for (_, owner) in predecessors.of_state(state) {
            let o = owner as usize;
            // Two threads may both find `owner` here and list it twice
            // for the next level, which only repeats its expansion.
            if left[o] && !found[o].load(Relaxed) {
                found[o].store(true, Relaxed);
                next.push(owner);
            }
        }
    };
    by_levels(states_in(right), expand, |_| {});
    into_plain(found)
}

/// The states from which every scheduler reaches a `right` state through
/// `left` states with positive probability (Pmin > 0): the least set
/// holding `right` and every `left` state with at least one choice, all of
/// whose choices have a branch into the set; on the threads of the
/// current rayon pool ([`forall_reach_by_levels`] on more than one,
/// [`forall_reach_sequential`] on one).
pub fn forall_reach(
    mdp: &Mdp,
    predecessors: &Predecessors,
    left: &[bool],
    right: &[bool],
) -> Vec<bool> {
    if in_parallel() {
        forall_reach_by_levels(mdp, predecessors, left, right)
    } else {
        forall_reach_sequential(mdp, predecessors, left, right)
    }
}

/// [`forall_reach`] by one breadth-first search on this thread: the
/// sequential reference.
pub fn forall_reach_sequential(
    mdp: &Mdp,
    predecessors: &Predecessors,
    left: &[bool],
    right: &[bool],
) -> Vec<bool> {
    let mut found = right.to_vec();
    let mut choice_hits = vec![false; mdp.choices() as usize];
    let mut choices_left: Vec<u32> = (0..mdp.states()).map(|s| choice_count(mdp, s)).collect();
    let mut queue: VecDeque<u32> = (0..right.len() as u32)
        .filter(|&s| right[s as usize])
        .collect();
    while let Some(state) = queue.pop_front() {
        for (choice, owner) in predecessors.of_state(state) {
            if choice_hits[choice as usize] {
                continue;
            }
            choice_hits[choice as usize] = true;
            let remaining = &mut choices_left[owner as usize];
            *remaining -= 1;
            if *remaining == 0 && left[owner as usize] && !found[owner as usize] {
                found[owner as usize] = true;
                queue.push_back(owner);
            }
        }
    }
    found
}

/// [`forall_reach`] by a breadth-first search level by level on the
/// current rayon pool (`by_levels`): each choice is struck off its
/// state once, by whichever thread first finds it leads into the set.
pub fn forall_reach_by_levels(
    mdp: &Mdp,
    predecessors: &Predecessors,
    left: &[bool],
    right: &[bool],
) -> Vec<bool> {
    let found: Vec<AtomicBool> = right.par_iter().map(|&r| AtomicBool::new(r)).collect();
    let choice_hits = zeroed_atomics::<AtomicBool>(mdp.choices() as usize);
    let choices_left: Vec<AtomicU32> = (0..mdp.states())
        .into_par_iter()
        .map(|s| AtomicU32::new(choice_count(mdp, s)))
        .collect();
    let expand = |state: u32, next: &mut Vec<u32>| {
        for (choice, owner) in predecessors.of_state(state) {
            let hit = &choice_hits[choice as usize];
            if hit.load(Relaxed) || hit.swap(true, Relaxed) {
                continue;
            }
            // The last of its choices is struck off once.
            let o = owner as usize;
            if choices_left[o].fetch_sub(1, Relaxed) == 1 && left[o] && !found[o].load(Relaxed) {
                found[o].store(true, Relaxed);
                next.push(owner);
            }
        }
    };
    by_levels(states_in(right), expand, |_| {});
    into_plain(found)
}

/// The number of choices of `state`.
fn choice_count(mdp: &Mdp, state: u32) -> u32 {
    let choices = mdp.choices_of(state);
    (choices.end - choices.start) as u32
}

/// The states from which some scheduler reaches `right` through `left`
/// states with probability 1 (Pmax = 1; for a DTMC, P = 1): the greatest
/// set `U` such that the `right` states, and the `left` states with a
/// choice that stays in `U` and has a branch closer to `right`, reach
/// `right` inside `U`. Each round searches backwards from `right` and
/// drops from `U` what it did not reach. Every choice counts its targets
/// outside `U`, raised as states are dropped, so that whether it stays
/// costs one look; and every state reached keeps the choice and the target
/// it was reached through, so that a round searches again only from the
/// states whose chain of such choices to `right` a drop has broken.
pub fn exists_almost_surely(
    mdp: &Mdp,
    predecessors: &Predecessors,
    left: &[bool],
    right: &[bool],
) -> Vec<bool> {
    let states = mdp.states() as usize;
    // The greatest fixed point lies within the states that reach `right`
    // at all: starting there saves the rounds that would remove the rest.
    let mut inside = exists_reach(predecessors, left, right);
    let mut outside_targets = vec![0u32; mdp.choices() as usize];
    let count_outside = |dropped: &[u32], counts: &mut [u32]| {
        for &state in dropped {
            for (choice, _) in predecessors.of_state(state) {
                counts[choice as usize] += 1;
            }
        }
    };
    let mut dropped: Vec<u32> = (0..states as u32)
        .filter(|&s| !inside[s as usize])
        .collect();
    count_outside(&dropped, &mut outside_targets);
    let mut reached = right.to_vec();
    // The choice each state was reached through, and its target reached
    // before.
    let mut witness = vec![(u64::MAX, u32::MAX); states];
    let mut queue: VecDeque<u32> = (0..states as u32).filter(|&s| right[s as usize]).collect();
    // The states the search may not reach, first all.
    let mut broken: Vec<u32> = (0..states as u32)
        .filter(|&s| inside[s as usize] && !right[s as usize])
        .collect();
    loop {
        // Within `inside`: the states that can move closer to `right`
        // with a choice whose branches all stay inside.
        while let Some(state) = queue.pop_front() {
            for (choice, owner) in predecessors.of_state(state) {
                let o = owner as usize;
                if !reached[o] && left[o] && inside[o] && outside_targets[choice as usize] == 0 {
                    reached[o] = true;
                    witness[o] = (choice, state);
                    queue.push_back(owner);
                }
            }
        }
        dropped.clear();
        dropped.extend(broken.iter().filter(|&&s| !reached[s as usize]));
        if dropped.is_empty() {
            return reached;
        }
        for &state in &dropped {
            inside[state as usize] = false;
        }
        count_outside(&dropped, &mut outside_targets);
        // Unreached again: the states reached through a choice that now
        // leaves, and those reached through them.
        broken.clear();
        for &state in &dropped {
            for (choice, owner) in predecessors.of_state(state) {
                if reached[owner as usize] && witness[owner as usize].0 == choice {
                    reached[owner as usize] = false;
                    broken.push(owner);
                }
            }
        }
        let mut next = 0;
        while let Some(&state) = broken.get(next) {
            next += 1;
            for (choice, owner) in predecessors.of_state(state) {
                if reached[owner as usize] && witness[owner as usize] == (choice, state) {
                    reached[owner as usize] = false;
                    broken.push(owner);
                }
            }
        }
        // The next round searches from those of them that still have a
        // staying choice into a reached state.
        for &state in &broken {
            let found = mdp.choices_of(state).find_map(|choice| {
                if outside_targets[choice as usize] > 0 {
                    return None;
                }
                let (targets, probabilities) = mdp.branches_of(choice);
                targets
                    .iter()
                    .zip(probabilities)
                    .find(|&(&t, &p)| p > 0.0 && reached[t as usize])
                    .map(|(&t, _)| (choice, t))
            });
            if let Some(through) = found {
                reached[state as usize] = true;
                witness[state as usize] = through;
                queue.push_back(state);
            }
        }
    }
}

/// Which of `classes` some scheduler leads into `right` with probability 1
/// (Pmax = 1), where `classes` are the states that are neither `right`
/// nor of value 0 (`zero`), each maximal end component among them one
/// class whose choices are those that leave it
/// ([`Classes::collapsing_end_components`]). So collapsed they hold no end
/// component, so that every scheduler leaves them with probability 1,
/// into `right` or into `zero`: the value is 1 where some scheduler never
/// risks `zero`, which is outside the least set holding `zero` and every
/// class all of whose choices have a branch into it. One backward search,
/// where [`exists_almost_surely`] needs rounds.
pub fn almost_surely_collapsed(
    mdp: &Mdp,
    predecessors: &Predecessors,
    classes: &Classes,
    zero: &[bool],
) -> Vec<bool> {
    let mut class_of = vec![u32::MAX; zero.len()];
    for class in 0..classes.count() {
        for &state in classes.states(class) {
            class_of[state as usize] = class as u32;
        }
    }
    // The choices of the classes that have no branch into the set yet.
    let mut open = vec![false; mdp.choices() as usize];
    for &choice in &classes.choices {
        open[choice as usize] = true;
    }
    let mut choices_left: Vec<u64> = classes
        .choice_offsets
        .windows(2)
        .map(|range| range[1] - range[0])
        .collect();
    let mut queue: Vec<u32> = (0..zero.len() as u32)
        .filter(|&s| zero[s as usize])
        .collect();
    let mut sure = vec![true; classes.count()];
    for (class, _) in choices_left.iter().enumerate().filter(|&(_, &n)| n == 0) {
        sure[class] = false;
        queue.extend(classes.states(class));
    }
    while let Some(state) = queue.pop() {
        for (choice, owner) in predecessors.of_state(state) {
            let class = class_of[owner as usize];
            if class == u32::MAX || !open[choice as usize] {
                continue;
            }
            open[choice as usize] = false;
            choices_left[class as usize] -= 1;
            if choices_left[class as usize] == 0 {
                sure[class as usize] = false;
                queue.extend(classes.states(class as usize));
            }
        }
    }
    sure
}

/// The states from which every scheduler reaches `right` through `left`
/// states with probability 1 (Pmin = 1): those from which no scheduler can
/// reach, through `left` states that are not `right`, a state where some
/// scheduler avoids `right` for ever (`not_forall_reach`, the complement of
/// [`forall_reach`]).
pub fn forall_almost_surely(
    predecessors: &Predecessors,
    left: &[bool],
    right: &[bool],
    not_forall_reach: &[bool],
) -> Vec<bool> {
    let between: Vec<bool> = left.iter().zip(right).map(|(&l, &r)| l && !r).collect();
    let escapes = exists_reach(predecessors, &between, not_forall_reach);
    escapes.iter().map(|&e| !e).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::tests::{end_component_mdp, pool, random_mdp, random_set};

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// On random MDPs large enough that levels are split into tasks,
        /// the searches by levels on three threads find the sets of the
        /// sequential searches.
        #[test]
        fn the_searches_by_levels_find_the_sequential_sets(
            states in 2000u32..12_000,
            back in 0.0..0.2f64,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let mdp = random_mdp(states, back, seed);
            let left = random_set(states, 0.9, seed ^ 1);
            let right = random_set(states, 0.03, seed ^ 2);
            let predecessors = pool(3).install(|| Predecessors::of(&mdp));
            let (exists, forall) = pool(3).install(|| {
                (
                    exists_reach_by_levels(&predecessors, &left, &right),
                    forall_reach_by_levels(&mdp, &predecessors, &left, &right),
                )
            });
            proptest::prop_assert_eq!(exists, exists_reach_sequential(&predecessors, &left, &right));
            proptest::prop_assert_eq!(
                forall,
                forall_reach_sequential(&mdp, &predecessors, &left, &right)
            );
        }
    }

    /// Each state's predecessor choices, each once however many of its
    /// branches lead there, without the branches of probability 0.
    #[test]
    fn predecessors_count_each_choice_once_per_target() {
        let mdp = Mdp {
            choice_offsets: vec![0, 2, 3, 4],
            branch_offsets: vec![0, 3, 4, 6, 7],
            targets: vec![1, 2, 1, 0, 2, 1, 2],
            probabilities: vec![0.25, 0.5, 0.25, 1.0, 1.0, 0.0, 1.0],
            choice_labels: None,
            initial: 0,
        };
        let predecessors = Predecessors::of(&mdp);
        let of = |state| {
            let mut found: Vec<(u64, u32)> = predecessors.of_state(state).collect();
            found.sort_unstable();
            found
        };
        assert_eq!(of(0), [(1, 0)]);
        assert_eq!(of(1), [(0, 0)]);
        assert_eq!(of(2), [(0, 0), (2, 1), (3, 2)]);
    }

    #[test]
    fn the_four_analyses_on_a_small_mdp() {
        let mdp = end_component_mdp();
        let predecessors = Predecessors::of(&mdp);
        let all = vec![true; 4];
        let goal = vec![false, true, false, false];
        assert_eq!(
            exists_reach(&predecessors, &all, &goal),
            [true, true, false, true]
        );
        // State 0 can loop on b for ever: Pmin = 0 there, and from 3 with 0.5.
        let forall = forall_reach(&mdp, &predecessors, &all, &goal);
        assert_eq!(forall, [false, true, false, true]);
        // No scheduler reaches the goal surely from 0 (a risks the trap).
        assert_eq!(
            exists_almost_surely(&mdp, &predecessors, &all, &goal),
            [false, true, false, false]
        );
        let not_forall: Vec<bool> = forall.iter().map(|&f| !f).collect();
        assert_eq!(
            forall_almost_surely(&predecessors, &all, &goal, &not_forall),
            [false, true, false, false]
        );
        // Until: through state 3 only, 0 and 2 are not `left`.
        let left = vec![false, false, false, true];
        assert_eq!(
            exists_reach(&predecessors, &left, &goal),
            [false, true, false, true]
        );
    }
}
