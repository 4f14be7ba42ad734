//! The encoded network as the kernel's successor generator reads it: the
//! CPU's [`SuccessorTables`](crate::encode::SuccessorTables), flattened
//! into `u32` arrays ([`FlatSuccessorTables`]): per local state a list of
//! **items** (its independent entries, the rules its process owns with
//! its entries for them, and the rule indexes that file the rules it owns
//! where it owns many), per rule its other participants, and for every
//! other participant a direct table from its local state to its entries of
//! the rule.
//!
//! The choices that make successor generation cheap on the GPU, where one
//! lane combines every rule it owns while the other lanes of its warp wait,
//! are the CPU's: the owner of a rule is its non-monitor participant that
//! offers it in the smallest share of its local states; a lane never visits
//! the entries of rules that other processes own; the other participants'
//! entries come from one table load instead of two binary searches. The one
//! difference is that the kernel has no binary-search fallback: every
//! participant needs its lookup rows, and a network needing more than
//! [`MAX_LOOKUP_ROWS`] is refused.

use super::GpuError;
use crate::encode::{EncodedNetwork, FlatSuccessorTables, OwnerChoice};

/// Most `(lo, hi)` rows the lookup table may have (256 MiB).
pub(super) const MAX_LOOKUP_ROWS: usize = 1 << 25;

/// The kernel's tables for `net`, with at most `max_rows` lookup rows
/// ([`MAX_LOOKUP_ROWS`] on a device) and owners chosen by `owners`;
/// [`GpuError::Invalid`] when they need more.
pub(super) fn build(
    net: &EncodedNetwork,
    max_rows: usize,
    owners: OwnerChoice,
) -> Result<FlatSuccessorTables, GpuError> {
    net.flat_successor_tables(max_rows, owners).ok_or_else(|| {
        GpuError::Invalid(format!(
            "the rules' look-up table would exceed {max_rows} rows"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{FIXED_ROW, INDEPENDENT, MONITOR_ROW, RULE_INDEX};
    use crate::model::{
        ErrorKind, ErrorState, Lts, LtsTransition, Network, Participant, Process, SyncRule,
    };

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

    /// One rule `sync` over all of `processes`.
    fn network(processes: Vec<Process>) -> Network {
        Network {
            rules: vec![SyncRule {
                participants: (0..processes.len())
                    .map(|process| Participant {
                        process,
                        label: "sync".into(),
                    })
                    .collect(),
                result: "sync".into(),
            }],
            processes,
            ..Network::default()
        }
    }

    /// p0 offers the rule in all of its 2 states, p1 in 1 of 4, p2 in 2 of 3.
    fn three_processes() -> Network {
        network(vec![
            process("p0", 2, &[0, 1]),
            process("p1", 4, &[2]),
            process("p2", 3, &[0, 2]),
        ])
    }

    /// Process `p`'s field as an `others` row starts: word, shift, mask.
    fn field(net: &EncodedNetwork, p: usize) -> [u32; 3] {
        let f = &net.layout.fields[p];
        [f.word, f.shift, ((1u64 << f.bits) - 1) as u32]
    }

    #[test]
    fn the_most_selective_participant_owns_the_rule() {
        let net = EncodedNetwork::new(&three_processes()).unwrap();
        let tables = build(&net, MAX_LOOKUP_ROWS, OwnerChoice::MostSelective).unwrap();
        // Owner p1 (1/4); then p2 (2/3, rows 0..3) before p0 (2/2, rows 3..5).
        assert_eq!(tables.others[..3], field(&net, 2));
        assert_eq!(tables.others[3], 0);
        assert_eq!(tables.others[4..7], field(&net, 0));
        assert_eq!(tables.others[7], 3);
        // Only p1's state 2 has an item: the rule with p1's one entry.
        let entry = net.entry_range(1, 2).0 as u32;
        assert_eq!(tables.items, vec![0, entry, entry + 1, 2]);
        let p1 = net.proc_offsets[1] as usize;
        assert_eq!(tables.item_offsets[p1..p1 + 5], [0, 0, 0, 1, 1]);
        assert_eq!(tables.item_offsets.len(), net.state_offsets.len());
    }

    #[test]
    fn offer_lists_hold_the_most_rules_a_local_state_offers() {
        // One rule, offered in some states of each process.
        assert_eq!(
            EncodedNetwork::new(&three_processes())
                .unwrap()
                .max_rules_offered(),
            1
        );
        // Two rules over the same processes: both offered in p0's state 0.
        let mut two = three_processes();
        let mut second = two.rules[0].clone();
        for participant in &mut second.participants {
            participant.label = "other".into();
        }
        second.result = "other".into();
        two.rules.push(second);
        let label = two.processes[0].lts.intern_label("other");
        two.processes[0].lts.transitions.push(LtsTransition {
            source: 0,
            label,
            target: 1,
        });
        let net = EncodedNetwork::new(&two).unwrap();
        assert_eq!(net.max_rules_offered(), 2);
    }

    #[test]
    fn the_lowest_participant_owns_the_rule_when_asked() {
        let net = EncodedNetwork::new(&three_processes()).unwrap();
        let tables = build(&net, MAX_LOOKUP_ROWS, OwnerChoice::Lowest).unwrap();
        // Owner p0; then p1 (1/4, rows 0..4) before p2 (2/3, rows 4..7).
        assert_eq!(tables.others[..3], field(&net, 1));
        assert_eq!(tables.others[3], 0);
        assert_eq!(tables.others[4..7], field(&net, 2));
        assert_eq!(tables.others[7], 4);
        // Both of p0's states own the rule: an item each.
        let p0 = net.proc_offsets[0] as usize;
        assert_eq!(tables.item_offsets[p0..p0 + 3], [0, 1, 2]);
        assert_eq!(tables.items.len(), 2 * 4);
    }

    #[test]
    fn the_monitor_never_owns_a_rule_it_shares() {
        // p0 offers the rule in 2 of 2 states, p1 in 2 of 4, and the
        // monitor p2 in 1 of 3: the most selective non-monitor p1 owns it
        // (not the lowest participant p0, not the monitor).
        let mut monitor = process("monitor", 3, &[0]);
        monitor.error_states.push(ErrorState {
            state: 2,
            kind: ErrorKind::Property("never".into()),
        });
        let net = network(vec![
            process("p0", 2, &[0, 1]),
            process("p1", 4, &[1, 3]),
            monitor,
        ]);
        let net = EncodedNetwork::new(&net).unwrap();
        assert_eq!(net.monitor, Some(2));
        let tables = build(&net, MAX_LOOKUP_ROWS, OwnerChoice::MostSelective).unwrap();
        // The monitor (1/3, rows 0..3, flagged) is checked before p0 (2/2).
        assert_eq!(tables.others[..3], field(&net, 2));
        assert_eq!(tables.others[3], MONITOR_ROW);
        assert_eq!(tables.others[4..7], field(&net, 0));
        assert_eq!(tables.others[7], 3);
        let p1 = net.proc_offsets[1] as usize;
        assert_eq!(tables.item_offsets[p1..p1 + 5], [0, 0, 1, 1, 2]);
        assert_eq!(tables.items.len(), 2 * 4);
    }

    #[test]
    fn lookup_rows_are_the_entry_ranges_of_each_local_state() {
        let net = EncodedNetwork::new(&three_processes()).unwrap();
        let tables = build(&net, MAX_LOOKUP_ROWS, OwnerChoice::MostSelective).unwrap();
        // Rows of p2 (3 states) from 0, of p0 (2 states) from 3.
        for (q, base) in [(2, 0), (0, 3)] {
            for state in 0..net.state_names[q].len() {
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

    /// Owner p0 (4 states) offers rules `r0`, `r1`, `r2` in its state 0
    /// only; p1 (3 states) offers `rk` in its state k alone.
    fn indexed_rules() -> EncodedNetwork {
        let mut p0 = process("p0", 4, &[]);
        let mut p1 = process("p1", 3, &[]);
        let mut rules = Vec::new();
        for k in 0..3u32 {
            let name = format!("r{k}");
            for (p, source) in [(&mut p0, 0), (&mut p1, k)] {
                let label = p.lts.intern_label(&name);
                p.lts.transitions.push(LtsTransition {
                    source,
                    label,
                    target: 1,
                });
            }
            rules.push(SyncRule {
                participants: (0..2)
                    .map(|process| Participant {
                        process,
                        label: name.clone(),
                    })
                    .collect(),
                result: name,
            });
        }
        let network = Network {
            rules,
            processes: vec![p0, p1],
            ..Network::default()
        };
        let mut net = EncodedNetwork::new(&network).unwrap();
        net.index_rules_from(0);
        net
    }

    #[test]
    fn an_index_item_files_each_rule_in_the_cell_of_its_key() {
        let net = indexed_rules();
        let tables = build(&net, MAX_LOOKUP_ROWS, OwnerChoice::MostSelective).unwrap();
        let item = |at: u32| &tables.items[4 * at as usize..][..4];
        let row = |at: u32| {
            [
                tables.lookup[2 * at as usize],
                tables.lookup[2 * at as usize + 1],
            ]
        };
        // p0's state 0: one rule index over the key p1 (stride 1); its
        // other states: nothing.
        let p0 = net.proc_offsets[0] as usize;
        assert_eq!(tables.item_offsets[p0..p0 + 5], [0, 1, 1, 1, 1]);
        let index = item(0);
        assert_eq!(index[0] & (INDEPENDENT | RULE_INDEX), RULE_INDEX);
        let key = (index[0] & !RULE_INDEX) as usize;
        assert_eq!(index[1] as usize, key + 1);
        assert_eq!(tables.others[4 * key..][..3], field(&net, 1));
        assert_eq!(tables.others[4 * key + 3], 1);
        for k in 0..3u32 {
            // Cell k: the one rule p1 offers in state k, with p0's entry
            // for it and p1's, fixed (no look-up by local state).
            let [lo, hi] = row(index[2] + k);
            assert_eq!(hi, lo + 1, "cell {k}");
            let [first, own_lo, own_hi, end]: [u32; 4] = item(lo).try_into().unwrap();
            assert_eq!(net.transitions[2 * own_lo as usize], k, "rule r{k}");
            assert_eq!(own_hi, own_lo + 1);
            assert_eq!(end, first + 1);
            let other = &tables.others[4 * first as usize..][..4];
            assert_eq!(other[..3], field(&net, 1));
            assert_eq!(other[3] & (FIXED_ROW | MONITOR_ROW), FIXED_ROW);
            let entries = row(other[3] & !FIXED_ROW);
            assert_eq!(entries[1], entries[0] + 1);
            assert_eq!(net.entry_range(1, k).0 as u32, entries[0]);
        }
    }

    #[test]
    fn without_an_index_the_owner_lists_its_rules() {
        let mut net = indexed_rules();
        net.index_rules_from(usize::MAX);
        let tables = build(&net, MAX_LOOKUP_ROWS, OwnerChoice::MostSelective).unwrap();
        let p0 = net.proc_offsets[0] as usize;
        assert_eq!(tables.item_offsets[p0..p0 + 5], [0, 3, 3, 3, 3]);
        assert!(tables.items.chunks(4).all(|item| item[0] & RULE_INDEX == 0));
        assert_eq!(tables.lookup.len(), 2 * 3 * 3);
    }

    #[test]
    fn tables_over_the_row_budget_are_refused() {
        // The three processes need 5 rows; the CPU falls back to binary
        // search beyond its budget, the kernel cannot.
        let mut net = EncodedNetwork::new(&three_processes()).unwrap();
        let tables = build(&net, 5, OwnerChoice::MostSelective).unwrap();
        let refusal = build(&net, 4, OwnerChoice::MostSelective).unwrap_err();
        assert!(matches!(refusal, GpuError::Invalid(_)));
        assert_eq!(
            refusal.to_string(),
            "invalid GPU setting: the rules' look-up table would exceed 4 rows"
        );
        // CPU tables without any lookup rows: the kernel's are rebuilt, the same.
        net.limit_lookup_tables(0);
        assert!(!net.successor_tables().tables_every_participant());
        assert_eq!(
            build(&net, MAX_LOOKUP_ROWS, OwnerChoice::MostSelective).unwrap(),
            tables
        );
        assert!(build(&net, 4, OwnerChoice::MostSelective).is_err());
    }
}
