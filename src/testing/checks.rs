//! Checks of what the engines report, against the semantics.

use crate::encode::{EncodedNetwork, SuccessorGenerator};
use crate::explicit::{Csr, LabelledGraph};
use crate::explore::livelock::{Lasso, is_internal};
use crate::explore::{Finding, FindingKind, Trace};
use crate::model::{Lts, LtsTransition};

/// Checks that `finding` is real: its trace (if any) starts at the initial
/// state, every step is a successor of the previous state under the stated
/// action, the trace ends in the finding's state, and that state is a
/// deadlock (no successor) or contains the stated error state. Error states
/// are never expanded, so no step may leave one.
pub fn check_finding(net: &EncodedNetwork, finding: &Finding) -> Result<(), String> {
    let mut generator = SuccessorGenerator::new(net);
    match finding.kind {
        FindingKind::Deadlock => {
            let expansion = generator.for_each(&finding.state, |_| {});
            if expansion.successors != 0 {
                return Err(format!(
                    "deadlock state {:?} has {} successors",
                    finding.state, expansion.successors
                ));
            }
        }
        FindingKind::Error(e) => {
            let local = net
                .error_locals
                .get(e)
                .ok_or_else(|| format!("error index {e} out of range"))?;
            if net.layout.get(&finding.state, local.process) != local.state {
                return Err(format!("state {:?} is not in error {e}", finding.state));
            }
        }
    }
    let Some(trace) = &finding.trace else {
        return Ok(());
    };
    check_path(net, trace)?;
    if trace.states.last() != Some(&finding.state) {
        return Err("trace does not end in the finding's state".to_string());
    }
    Ok(())
}

/// Checks that `trace` is a path of `net`: it starts at the initial state,
/// and every step is a successor of the previous state under the stated
/// action, never leaving an error state (error states are not expanded).
pub fn check_path(net: &EncodedNetwork, trace: &Trace) -> Result<(), String> {
    let mut generator = SuccessorGenerator::new(net);
    if trace.states.len() != trace.actions.len() + 1 {
        return Err(format!(
            "trace has {} states but {} actions",
            trace.states.len(),
            trace.actions.len()
        ));
    }
    if trace.states[0] != net.initial {
        return Err(format!(
            "trace starts at {:?}, not the initial state",
            trace.states[0]
        ));
    }
    for (step, (pair, &action)) in trace.states.windows(2).zip(&trace.actions).enumerate() {
        if net.error_in(&pair[0]).is_some() {
            return Err(format!("step {step} leaves error state {:?}", pair[0]));
        }
        let mut matched = false;
        generator.for_each(&pair[0], |s| {
            matched |= s.action == action && s.state == pair[1].as_slice();
        });
        if !matched {
            return Err(format!(
                "step {step}: {:?} is no `{}` successor of {:?}",
                pair[1], net.actions[action as usize], pair[0]
            ));
        }
    }
    Ok(())
}

/// Checks that `lasso` is real: its trace is a path of `net`
/// ([`check_path`]), its cycle has at least one step, every step of the
/// cycle has an internal action, and the cycle ends in its first state.
pub fn check_lasso(net: &EncodedNetwork, lasso: &Lasso) -> Result<(), String> {
    check_path(net, &lasso.trace)?;
    let trace = &lasso.trace;
    if lasso.loop_start >= trace.actions.len() {
        return Err(format!(
            "the cycle starts at step {} of {}",
            lasso.loop_start,
            trace.actions.len()
        ));
    }
    if let Some(&action) = trace.actions[lasso.loop_start..]
        .iter()
        .find(|&&a| !is_internal(&net.actions[a as usize]))
    {
        return Err(format!(
            "the cycle has the visible action `{}`",
            net.actions[action as usize]
        ));
    }
    if trace.states.last() != Some(&trace.states[lasso.loop_start]) {
        return Err("the cycle does not end in its first state".to_string());
    }
    Ok(())
}

/// Per state, its out-degree and sorted outgoing labels, all sorted; and
/// every transition's label, sorted: what any numbering of an LTS keeps.
pub fn numbering_free_shape(lts: &Lts) -> (Vec<(usize, Vec<String>)>, Vec<String>) {
    let mut outgoing = vec![Vec::new(); lts.state_names.len()];
    for t in &lts.transitions {
        outgoing[t.source as usize].push(lts.labels[t.label as usize].clone());
    }
    let mut per_state: Vec<(usize, Vec<String>)> = outgoing
        .into_iter()
        .map(|mut labels| {
            labels.sort();
            (labels.len(), labels)
        })
        .collect();
    per_state.sort();
    let mut labels: Vec<String> = per_state.iter().flat_map(|(_, l)| l.clone()).collect();
    labels.sort();
    (per_state, labels)
}

/// `graph` as an [`Lts`] (states named by number), for
/// [`numbering_free_shape`].
pub fn lts_of(graph: &LabelledGraph) -> Lts {
    Lts {
        state_names: (0..graph.edges.states()).map(|s| s.to_string()).collect(),
        initial: graph.initial,
        labels: graph.actions.clone(),
        transitions: graph
            .transitions()
            .map(|(source, label, target)| LtsTransition {
                source,
                label,
                target,
            })
            .collect(),
    }
}

/// The number of states at each breadth-first distance from state 0 in
/// `graph`: a figure that does not depend on how states are numbered.
pub fn bfs_level_sizes(graph: &Csr) -> Vec<usize> {
    let mut seen = vec![false; graph.states() as usize];
    let mut level = vec![0u32];
    seen[0] = true;
    let mut sizes = Vec::new();
    while !level.is_empty() {
        sizes.push(level.len());
        let mut next = Vec::new();
        for &state in &level {
            for &target in graph.successors(state) {
                if !std::mem::replace(&mut seen[target as usize], true) {
                    next.push(target);
                }
            }
        }
        level = next;
    }
    sizes
}
