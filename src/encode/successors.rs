//! Successor generation on the CPU, over the encoded arrays, following the
//! GPUexplore scheme: each process fires its independent entries itself;
//! a synchronising rule is combined by its owner (lowest participant), which
//! looks up the other participants' entries for the same rule.

use super::{ERROR_TARGET, EncodedNetwork, INDEPENDENT};

/// One successor of a state.
#[derive(Debug)]
pub struct Successor<'s> {
    /// Action id of the step.
    pub action: u32,
    /// The successor vector.
    pub state: &'s [u32],
    /// Whether some process entered an error state in this step.
    pub error: bool,
}

/// Reusable buffers for successor generation (one per thread).
#[derive(Debug, Clone)]
pub struct SuccessorGenerator<'n> {
    net: &'n EncodedNetwork,
    /// Entry ranges of the participants of the rule being combined.
    ranges: Vec<(usize, usize)>,
    /// Current choice within each range.
    choice: Vec<usize>,
    /// The successor being built.
    next: Vec<u32>,
}

/// What one call of [`SuccessorGenerator::for_each`] saw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Expansion {
    /// Successors emitted (transitions of the state).
    pub successors: u64,
    /// Rule firings that everybody but the monitor was ready for.
    pub monitor_blocked: u64,
}

impl<'n> SuccessorGenerator<'n> {
    /// Buffers for `net`.
    pub fn new(net: &'n EncodedNetwork) -> Self {
        Self {
            net,
            ranges: Vec::new(),
            choice: Vec::new(),
            next: vec![0; net.words()],
        }
    }

    /// Calls `emit` for every successor of `state`, in a fixed order.
    pub fn for_each(&mut self, state: &[u32], mut emit: impl FnMut(Successor<'_>)) -> Expansion {
        let net = self.net;
        let layout = &net.layout;
        let mut seen = Expansion::default();
        for process in 0..net.processes() {
            let local = layout.get(state, process);
            let (start, end) = net.entry_range(process, local);
            let mut k = start;
            while k < end {
                let label = net.transitions[2 * k];
                if label & INDEPENDENT != 0 {
                    let target = net.transitions[2 * k + 1];
                    self.next.copy_from_slice(state);
                    layout.set(&mut self.next, process, target & !ERROR_TARGET);
                    seen.successors += 1;
                    emit(Successor {
                        action: label & !INDEPENDENT,
                        state: &self.next,
                        error: target & ERROR_TARGET != 0,
                    });
                    k += 1;
                    continue;
                }
                // All entries of this rule at this local state.
                let group_end = k + net.transitions[2 * k..2 * end]
                    .chunks_exact(2)
                    .take_while(|e| e[0] == label)
                    .count();
                let rule = label as usize;
                if net.participants(rule)[0] as usize == process {
                    self.combine(state, rule, (k, group_end), &mut seen, &mut emit);
                }
                k = group_end;
            }
        }
        seen
    }

    /// Fires rule `rule`, owned by the current process whose entries are
    /// `own`, if every other participant has entries for it.
    fn combine(
        &mut self,
        state: &[u32],
        rule: usize,
        own: (usize, usize),
        seen: &mut Expansion,
        emit: &mut impl FnMut(Successor<'_>),
    ) {
        let net = self.net;
        let participants = net.participants(rule);
        self.ranges.clear();
        self.ranges.push(own);
        let mut missing_monitor = false;
        for &p in &participants[1..] {
            let p = p as usize;
            let (start, end) = net.entry_range(p, net.layout.get(state, p));
            let (entries, _) = net.transitions[2 * start..2 * end].as_chunks::<2>();
            let lo = entries.partition_point(|e| e[0] < rule as u32);
            let hi = lo + entries[lo..].partition_point(|e| e[0] <= rule as u32);
            if lo == hi {
                if Some(p) == net.monitor {
                    missing_monitor = true;
                    continue;
                }
                return;
            }
            self.ranges.push((start + lo, start + hi));
        }
        if missing_monitor {
            seen.monitor_blocked += 1;
            return;
        }
        let action = net.rule_actions[rule];
        self.choice.clear();
        self.choice.extend(self.ranges.iter().map(|r| r.0));
        loop {
            self.next.copy_from_slice(state);
            let mut error = false;
            for (&p, &k) in participants.iter().zip(&self.choice) {
                let target = net.transitions[2 * k + 1];
                error |= target & ERROR_TARGET != 0;
                net.layout
                    .set(&mut self.next, p as usize, target & !ERROR_TARGET);
            }
            seen.successors += 1;
            emit(Successor {
                action,
                state: &self.next,
                error,
            });
            // Next combination of nondeterministic choices (odometer).
            let mut i = self.choice.len();
            loop {
                if i == 0 {
                    return;
                }
                i -= 1;
                self.choice[i] += 1;
                if self.choice[i] < self.ranges[i].1 {
                    break;
                }
                self.choice[i] = self.ranges[i].0;
            }
        }
    }
}
