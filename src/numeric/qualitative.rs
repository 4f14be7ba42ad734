//! Graph analyses that settle the states whose probability of `left U
//! right` is exactly 0 or 1 before any numeric iteration (the
//! precomputations of PRISM and Storm): `prob0`/`prob1` of a DTMC, and for
//! MDPs the four combinations of "some scheduler" (E) and "every
//! scheduler" (A). A DTMC is an MDP with one choice a state
//! ([`super::as_mdp`]), where E and A coincide. They look only at which
//! probabilities are positive, never at their values.

use std::collections::VecDeque;

use crate::explicit::Mdp;

/// For every state, the choices of other states with a branch into it
/// (each choice once per target state): what the backward searches follow.
pub struct Predecessors {
    offsets: Vec<u64>,
    choices: Vec<u64>,
    /// The state each choice belongs to.
    owner: Vec<u32>,
}

impl Predecessors {
    /// The predecessor choices of every state of `mdp`.
    pub fn of(mdp: &Mdp) -> Predecessors {
        let states = mdp.states() as usize;
        let mut owner = vec![0u32; mdp.choices() as usize];
        let mut counts = vec![0u64; states + 1];
        // Once per target of a choice (positive branches only): a target
        // seen in the choice already carries the choice's stamp.
        let each_branch = |visit: &mut dyn FnMut(u64, u32)| {
            let mut stamp = vec![u64::MAX; states];
            for state in 0..mdp.states() {
                for choice in mdp.choices_of(state) {
                    let (targets, probabilities) = mdp.branches_of(choice);
                    for (&target, &probability) in targets.iter().zip(probabilities) {
                        if probability > 0.0 && stamp[target as usize] != choice {
                            stamp[target as usize] = choice;
                            visit(choice, target);
                        }
                    }
                }
            }
        };
        each_branch(&mut |_, target| counts[target as usize + 1] += 1);
        for i in 0..states {
            counts[i + 1] += counts[i];
        }
        let mut cursor = counts.clone();
        let mut choices = vec![0u64; counts[states] as usize];
        each_branch(&mut |choice, target| {
            choices[cursor[target as usize] as usize] = choice;
            cursor[target as usize] += 1;
        });
        for state in 0..mdp.states() {
            for choice in mdp.choices_of(state) {
                owner[choice as usize] = state;
            }
        }
        Predecessors {
            offsets: counts,
            choices,
            owner,
        }
    }

    /// The choices with a branch into `state`, and the state of each.
    fn of_state(&self, state: u32) -> impl Iterator<Item = (u64, u32)> + '_ {
        let range =
            self.offsets[state as usize] as usize..self.offsets[state as usize + 1] as usize;
        self.choices[range]
            .iter()
            .map(|&choice| (choice, self.owner[choice as usize]))
    }
}

/// The states from which some path through `left` states reaches a
/// `right` state with positive probability under some scheduler (for a
/// DTMC: P > 0; for an MDP: Pmax > 0).
pub fn exists_reach(predecessors: &Predecessors, left: &[bool], right: &[bool]) -> Vec<bool> {
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

/// The states from which every scheduler reaches a `right` state through
/// `left` states with positive probability (Pmin > 0): the least set
/// holding `right` and every `left` state with at least one choice, all of
/// whose choices have a branch into the set.
pub fn forall_reach(
    mdp: &Mdp,
    predecessors: &Predecessors,
    left: &[bool],
    right: &[bool],
) -> Vec<bool> {
    let mut found = right.to_vec();
    let mut choice_hits = vec![false; mdp.choices() as usize];
    let mut choices_left: Vec<u64> = (0..mdp.states())
        .map(|state| mdp.choices_of(state).count() as u64)
        .collect();
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
    use crate::numeric::tests::end_component_mdp;

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
