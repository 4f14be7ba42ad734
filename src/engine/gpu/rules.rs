//! The encoded network as the kernel's successor generator reads it: per
//! local state a list of **items** (its independent entries, and the rules
//! its process owns with its entries for them), per rule its other
//! participants, and for every other participant a direct table from its
//! local state to its entries of the rule.
//!
//! Three choices make successor generation cheap on the GPU, where one lane
//! combines every rule it owns while the other lanes of its warp wait:
//! - the owner of a rule is the participant that offers the rule in the
//!   smallest share of its local states (the encoding's owner is simply the
//!   lowest participant), so that fewer rules are ever looked at;
//! - a lane never visits the entries of rules that other processes own;
//! - the other participants' entries come from one table load instead of
//!   two binary searches in the TransArray.
//!
//! Any participant may own a rule: exactly one does, and the combination
//! is the same. Rules with the property monitor keep the encoding's owner,
//! so that blocked monitor steps are counted exactly as the reference does.

use crate::encode::{EncodedNetwork, INDEPENDENT};

/// Most `(lo, hi)` rows the lookup table may have (256 MiB).
pub(super) const MAX_LOOKUP_ROWS: usize = 1 << 25;
/// Marks the property monitor in an `others` row (the kernel's `MONITOR_BIT`).
const MONITOR_BIT: u32 = 1 << 31;

/// Device-ready tables (all plain `u32`, see `kernels/explore.cu`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RuleTables {
    /// Indexed like `EncodedNetwork::state_offsets`: the items of local
    /// state `s` of process `p` are `item_offsets[proc_offsets[p] + s] ..
    /// item_offsets[proc_offsets[p] + s + 1]`.
    pub item_offsets: Vec<u32>,
    /// Four words per item: `[INDEPENDENT | action, target, 0, 0]` for an
    /// independent entry; for a rule the process owns, with its TransArray
    /// entries `lo .. hi` for it, `[first, lo, hi, end]`: the rule's other
    /// participants are `others[first .. end]`.
    pub items: Vec<u32>,
    /// Four words per other participant of a rule: its field's word, shift
    /// and (unshifted) mask, and the index of its first row in `lookup`,
    /// with [`MONITOR_BIT`] set for the property monitor.
    pub others: Vec<u32>,
    /// Per row (a local state of that participant): the entry range
    /// `[lo, hi)` of the rule in that state (`lo == hi`: not offered).
    pub lookup: Vec<u32>,
}

/// Local states of process `p`.
fn local_states(net: &EncodedNetwork, p: usize) -> usize {
    (net.proc_offsets[p + 1] - net.proc_offsets[p]) as usize - 1
}

/// Entry range of rule `rule` in local state `state` of process `p`.
fn rule_entries(net: &EncodedNetwork, p: usize, state: u32, rule: u32) -> (u32, u32) {
    let (start, end) = net.entry_range(p, state);
    let (entries, _) = net.transitions[2 * start..2 * end].as_chunks::<2>();
    let lo = entries.partition_point(|e| e[0] < rule);
    let hi = lo + entries[lo..].partition_point(|e| e[0] <= rule);
    ((start + lo) as u32, (start + hi) as u32)
}

/// Builds the tables; `None` when the lookup table would exceed
/// [`MAX_LOOKUP_ROWS`] rows.
pub(super) fn build(net: &EncodedNetwork) -> Option<RuleTables> {
    // offered[r][i]: local states of participant i of rule r offering r.
    let mut offered: Vec<Vec<u32>> = (0..net.rule_count)
        .map(|r| vec![0; net.participants(r).len()])
        .collect();
    for p in 0..net.processes() {
        for state in 0..local_states(net, p) as u32 {
            let (start, end) = net.entry_range(p, state);
            let mut previous = None;
            for entry in start..end {
                let label = net.transitions[2 * entry];
                if label & INDEPENDENT != 0 || previous == Some(label) {
                    continue;
                }
                previous = Some(label);
                let parts = net.participants(label as usize);
                if let Some(i) = parts.iter().position(|&q| q as usize == p) {
                    offered[label as usize][i] += 1;
                }
            }
        }
    }
    // Per rule: its owner, and the range of its other participants.
    let mut owners = Vec::with_capacity(net.rule_count);
    let mut other_ranges = Vec::with_capacity(net.rule_count);
    let mut tables = RuleTables {
        item_offsets: Vec::with_capacity(net.state_offsets.len()),
        items: Vec::new(),
        others: Vec::new(),
        lookup: Vec::new(),
    };
    for (r, offered) in offered.iter().enumerate() {
        let parts = net.participants(r);
        let share =
            |i: usize| offered[i] as f64 / local_states(net, parts[i] as usize).max(1) as f64;
        let has_monitor = parts.iter().any(|&q| Some(q as usize) == net.monitor);
        let owner = if has_monitor {
            0
        } else {
            (0..parts.len())
                .min_by(|&a, &b| share(a).total_cmp(&share(b)))
                .unwrap_or(0)
        };
        owners.push(parts.get(owner).copied());
        // The others, most often missing first, so that a disabled rule is
        // usually seen as such at the first look-up.
        let mut others: Vec<usize> = (0..parts.len()).filter(|&i| i != owner).collect();
        others.sort_by(|&a, &b| share(a).total_cmp(&share(b)));
        let first = (tables.others.len() / 4) as u32;
        other_ranges.push((first, first + others.len() as u32));
        for i in others {
            let q = parts[i] as usize;
            let field = &net.layout.fields[q];
            let monitor = if Some(q) == net.monitor {
                MONITOR_BIT
            } else {
                0
            };
            tables.others.extend([
                field.word,
                field.shift,
                ((1u64 << field.bits) - 1) as u32,
                (tables.lookup.len() / 2) as u32 | monitor,
            ]);
            if tables.lookup.len() / 2 + local_states(net, q) > MAX_LOOKUP_ROWS {
                return None;
            }
            for state in 0..local_states(net, q) as u32 {
                let (lo, hi) = rule_entries(net, q, state, r as u32);
                tables.lookup.extend([lo, hi]);
            }
        }
    }
    for p in 0..net.processes() {
        for state in 0..=local_states(net, p) as u32 {
            tables.item_offsets.push((tables.items.len() / 4) as u32);
            if state as usize == local_states(net, p) {
                break; // the end marker of the last state
            }
            let (start, end) = net.entry_range(p, state);
            let mut entry = start;
            while entry < end {
                let (label, target) = (net.transitions[2 * entry], net.transitions[2 * entry + 1]);
                if label & INDEPENDENT != 0 {
                    tables.items.extend([label, target, 0, 0]);
                    entry += 1;
                    continue;
                }
                let (_, group_end) = rule_entries(net, p, state, label);
                if owners[label as usize] == Some(p as u32) {
                    let (first, end) = other_ranges[label as usize];
                    tables.items.extend([first, entry as u32, group_end, end]);
                }
                entry = group_end as usize;
            }
        }
    }
    Some(tables)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{ERROR_TARGET, SuccessorGenerator};
    use crate::model::{Lts, LtsTransition, Network, Participant, Process, SyncRule};

    /// Process `name` with `states` states in a ring of `label` steps,
    /// except that the label is offered only in the states `offering`.
    fn process(name: &str, states: u32, offering: &[u32]) -> Process {
        let mut lts = Lts {
            state_names: (0..states).map(|s| format!("s{s}")).collect(),
            ..Lts::default()
        };
        let label = lts.intern_label("sync");
        for &source in offering {
            lts.transitions.push(LtsTransition {
                source,
                label,
                target: (source + 1) % states,
            });
        }
        Process {
            name: name.into(),
            lts,
            error_states: Vec::new(),
        }
    }

    fn network() -> Network {
        Network {
            // p0 offers the rule in all of its 2 states, p1 in 1 of 4, p2 in 2 of 3.
            processes: vec![
                process("p0", 2, &[0, 1]),
                process("p1", 4, &[2]),
                process("p2", 3, &[0, 2]),
            ],
            rules: vec![SyncRule {
                participants: (0..3)
                    .map(|process| Participant {
                        process,
                        label: "sync".into(),
                    })
                    .collect(),
                result: "sync".into(),
            }],
            ..Network::default()
        }
    }

    #[test]
    fn the_most_selective_participant_owns_the_rule() {
        let net = EncodedNetwork::new(&network()).unwrap();
        let tables = build(&net).unwrap();
        // Owner p1 (1/4); then p2 (2/3, rows 0..3) before p0 (2/2, rows 3..5).
        let field = |p: usize| {
            let f = &net.layout.fields[p];
            [f.word, f.shift, ((1u64 << f.bits) - 1) as u32]
        };
        assert_eq!(tables.others[..3], field(2));
        assert_eq!(tables.others[3], 0);
        assert_eq!(tables.others[4..7], field(0));
        assert_eq!(tables.others[7], 3);
        // Only p1's state 2 has an item: the rule with p1's one entry.
        let entry = net.entry_range(1, 2).0 as u32;
        assert_eq!(tables.items, vec![0, entry, entry + 1, 2]);
        let p1 = net.proc_offsets[1] as usize;
        assert_eq!(tables.item_offsets[p1..p1 + 5], [0, 0, 0, 1, 1]);
        assert_eq!(tables.item_offsets.len(), net.state_offsets.len());
    }

    /// The kernel's generator over the tables, on the host: every successor
    /// (vector, error flag), sorted, and the blocked monitor steps.
    fn successors_via_tables(
        net: &EncodedNetwork,
        tables: &RuleTables,
        state: &[u32],
    ) -> (Vec<(Vec<u32>, bool)>, u64) {
        let layout = &net.layout;
        // A field as [word, shift, mask] (the kernel's get_field/set_field).
        let get = |f: &[u32], vector: &[u32]| (vector[f[0] as usize] >> f[1]) & f[2];
        let set = |f: &[u32], vector: &mut [u32], value: u32| {
            let word = &mut vector[f[0] as usize];
            *word = (*word & !(f[2] << f[1])) | ((value & f[2]) << f[1]);
        };
        let (mut found, mut blocked) = (Vec::new(), 0);
        for p in 0..net.processes() {
            let field = &net.layout.fields[p];
            let own_field = [field.word, field.shift, ((1u64 << field.bits) - 1) as u32];
            let at = net.proc_offsets[p] as usize + layout.get(state, p) as usize;
            for item in tables.item_offsets[at]..tables.item_offsets[at + 1] {
                let item = &tables.items[4 * item as usize..][..4];
                let mut next = state.to_vec();
                if item[0] & INDEPENDENT != 0 {
                    set(&own_field, &mut next, item[1] & !ERROR_TARGET);
                    found.push((next, item[1] & ERROR_TARGET != 0));
                    continue;
                }
                let mut ranges = vec![(&own_field[..], item[1] as usize, item[2] as usize)];
                let mut monitor_missing = false;
                let mut enabled = true;
                for o in item[0] as usize..item[3] as usize {
                    let row = &tables.others[4 * o..][..4];
                    let at = (row[3] & !MONITOR_BIT) as usize + get(row, state) as usize;
                    let (lo, hi) = (
                        tables.lookup[2 * at] as usize,
                        tables.lookup[2 * at + 1] as usize,
                    );
                    if lo < hi {
                        ranges.push((row, lo, hi));
                    } else if row[3] & MONITOR_BIT != 0 {
                        monitor_missing = true;
                    } else {
                        enabled = false;
                    }
                }
                if !enabled {
                    continue;
                }
                if monitor_missing {
                    blocked += 1;
                    continue;
                }
                let combos: usize = ranges.iter().map(|r| r.2 - r.1).product();
                for mut c in 0..combos {
                    let mut next = state.to_vec();
                    let mut error = false;
                    for &(f, lo, hi) in &ranges {
                        let target = net.transitions[2 * (lo + c % (hi - lo)) + 1];
                        c /= hi - lo;
                        error |= target & ERROR_TARGET != 0;
                        set(f, &mut next, target & !ERROR_TARGET);
                    }
                    found.push((next, error));
                }
            }
        }
        found.sort();
        (found, blocked)
    }

    /// Every reachable state of `net` has the same successors through the
    /// tables as through the reference generator.
    fn assert_tables_generate_the_reference_successors(net: &EncodedNetwork, what: &str) {
        let tables = build(net).unwrap();
        let mut generator = SuccessorGenerator::new(net);
        let mut seen = std::collections::HashSet::from([net.initial.clone()]);
        let mut queue = vec![net.initial.clone()];
        while let Some(state) = queue.pop() {
            let mut expected = Vec::new();
            let expansion =
                generator.for_each(&state, |s| expected.push((s.state.to_vec(), s.error)));
            expected.sort();
            let (found, blocked) = successors_via_tables(net, &tables, &state);
            assert_eq!(found, expected, "{what}: successors of {state:?}");
            assert_eq!(
                blocked, expansion.monitor_blocked,
                "{what}: blocked at {state:?}"
            );
            for (next, _) in expected {
                if seen.len() < 20_000 && seen.insert(next.clone()) {
                    queue.push(next);
                }
            }
        }
    }

    #[test]
    fn tables_generate_the_reference_successors() {
        assert_tables_generate_the_reference_successors(
            &EncodedNetwork::new(&network()).unwrap(),
            "three processes",
        );
        let mut models: Vec<_> = std::fs::read_dir("tests/data/mcc")
            .expect("tests/data/mcc")
            .map(|e| e.unwrap().path().join("model.pnml"))
            .filter(|m| m.is_file())
            .collect();
        models.sort();
        assert!(!models.is_empty());
        for model in models {
            let network = crate::frontend::pnml::load(&model).unwrap();
            let net = EncodedNetwork::new(&network).unwrap();
            assert_tables_generate_the_reference_successors(&net, &model.display().to_string());
        }
    }

    #[test]
    fn lookup_rows_are_the_entry_ranges_of_each_local_state() {
        let net = EncodedNetwork::new(&network()).unwrap();
        let tables = build(&net).unwrap();
        // Rows of p2 (3 states) from 0, of p0 (2 states) from 3.
        for (q, base) in [(2, 0), (0, 3)] {
            for state in 0..local_states(&net, q) {
                let (start, end) = net.entry_range(q, state as u32);
                let offered = end > start;
                let row = &tables.lookup[2 * (base + state)..2 * (base + state) + 2];
                assert_eq!(row[1] > row[0], offered, "process {q} state {state}");
                if offered {
                    assert_eq!((row[0] as usize, row[1] as usize), (start, end));
                }
            }
        }
        assert_eq!(tables.lookup.len(), 2 * (3 + 2));
    }
}
