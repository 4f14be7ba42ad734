//! The encoding every engine explores: bit-packed state vectors and the
//! read-only arrays of GPUexplore (ProcOffsets, StateOffsets, TransArray,
//! rule participants). Every array is linear in the size of the network.
//!
//! Because the reference engine runs on exactly these arrays, the GPU and
//! multi-core engines agree with it by construction of the data; only their
//! search algorithms differ.

mod layout;
mod successors;

pub use layout::{Field, Layout, interaction_order};
pub use successors::{
    CELL_FLOOR, CELLS_PER_RULE, DEFAULT_INDEXED_FROM, DEFAULT_LOOKUP_ROWS, Expansion, FIXED_ROW,
    FlatSuccessorTables, MONITOR_ROW, OwnerChoice, RULE_INDEX, Successor, SuccessorGenerator,
    SuccessorTables,
};

use std::collections::{BTreeMap, HashMap};

use thiserror::Error;

use crate::model::{ErrorKind, Network, UnmatchedLabels};

/// Set in a TransArray label word when the entry fires alone; the low bits
/// are then an action id. Clear: the low bits are a synchronisation rule id.
pub const INDEPENDENT: u32 = 1 << 31;
/// Set in a TransArray target word when the target local state is an error
/// state: the engine reports the successor as a finding.
pub const ERROR_TARGET: u32 = 1 << 31;

/// Why a network cannot be encoded.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum EncodeError {
    /// More local states than a field can number.
    #[error("process `{0}` has more than 2^31 local states")]
    TooManyStates(String),
    /// More rules or actions than a label word can number.
    #[error("the network has more than 2^31 rules or actions")]
    TooManyLabels,
}

/// A local error state, as the engines see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorLocal {
    /// Process index.
    pub process: usize,
    /// Local state number.
    pub state: u32,
    /// What reaching it means.
    pub kind: ErrorKind,
}

/// A network packed for exploration. All arrays are plain `u32` so that
/// they can be copied to a GPU as they are.
#[derive(Debug, Clone)]
pub struct EncodedNetwork {
    /// Where each process's local state lives in a vector.
    pub layout: Layout,
    /// `proc_offsets[i]`: index in `state_offsets` of process `i`'s state 0;
    /// one extra entry at the end.
    pub proc_offsets: Vec<u32>,
    /// `state_offsets[proc_offsets[i] + s] .. state_offsets[proc_offsets[i] + s + 1]`:
    /// the TransArray entries of local state `s` of process `i`. Each process
    /// has `states + 1` entries, so ranges never cross processes.
    pub state_offsets: Vec<u32>,
    /// TransArray: two words per entry, `[label word, target word]`, the
    /// entries of one local state sorted by label word. A label word is an
    /// action id with [`INDEPENDENT`] set, or a rule id; a target word is a
    /// local state number, with [`ERROR_TARGET`] set for error states.
    pub transitions: Vec<u32>,
    /// Number of synchronisation rules.
    pub rule_count: usize,
    /// `rule_participant_offsets[r] .. [r + 1]`: rule `r`'s participants in
    /// `rule_participants`, sorted by process index. (Which participant combines the rule is
    /// chosen by [`SuccessorTables`], not by this order.)
    pub rule_participant_offsets: Vec<u32>,
    /// Participating process indices of every rule.
    pub rule_participants: Vec<u32>,
    /// Action id of each rule's combined step.
    pub rule_actions: Vec<u32>,
    /// Action labels, by id.
    pub actions: Vec<String>,
    /// The initial state vector.
    pub initial: Vec<u32>,
    /// Error states of all processes.
    pub error_locals: Vec<ErrorLocal>,
    /// Process names, for traces.
    pub process_names: Vec<String>,
    /// Local state names per process, for traces.
    pub state_names: Vec<Vec<String>>,
    /// Index of the property monitor process, if one was attached; its
    /// blocked actions are counted.
    pub monitor: Option<usize>,
    /// CPU-side lookup structures of [`SuccessorGenerator`], derived from
    /// the arrays above.
    successor_tables: SuccessorTables,
}

impl EncodedNetwork {
    /// Encodes `network`. When `monitor` names a process, actions it blocks
    /// are counted during exploration (see [`Network::with_monitor`]).
    pub fn new(network: &Network) -> Result<Self, EncodeError> {
        let n = network.processes.len();
        let mut actions: Vec<String> = Vec::new();
        let mut action_ids: HashMap<String, u32> = HashMap::new();
        let mut action_id = |name: &str| -> u32 {
            if let Some(&id) = action_ids.get(name) {
                return id;
            }
            actions.push(name.to_string());
            action_ids.insert(name.to_string(), (actions.len() - 1) as u32);
            (actions.len() - 1) as u32
        };

        // Rules, and which (process, label) pairs take part in which rules.
        let mut rule_participant_offsets = vec![0u32];
        let mut rule_participants = Vec::new();
        let mut rule_actions = Vec::new();
        let mut rules_of: Vec<BTreeMap<&str, Vec<u32>>> = vec![BTreeMap::new(); n];
        for (r, rule) in network.rules.iter().enumerate() {
            for p in &rule.participants {
                rule_participants.push(p.process as u32);
                rules_of[p.process]
                    .entry(p.label.as_str())
                    .or_default()
                    .push(r as u32);
            }
            rule_participant_offsets.push(rule_participants.len() as u32);
            rule_actions.push(action_id(&rule.result));
        }
        if network.rules.len() >= INDEPENDENT as usize {
            return Err(EncodeError::TooManyLabels);
        }

        let mut proc_offsets = Vec::with_capacity(n + 1);
        let mut state_offsets = Vec::new();
        let mut transitions = Vec::new();
        let mut error_locals = Vec::new();
        let mut field_widths = Vec::with_capacity(n);
        for (i, process) in network.processes.iter().enumerate() {
            let lts = &process.lts;
            let states = lts.state_names.len();
            if states >= ERROR_TARGET as usize {
                return Err(EncodeError::TooManyStates(process.name.clone()));
            }
            field_widths.push(bits_for(states as u64));
            let is_error: Vec<bool> = {
                let mut v = vec![false; states];
                for e in &process.error_states {
                    v[e.state as usize] = true;
                    error_locals.push(ErrorLocal {
                        process: i,
                        state: e.state,
                        kind: e.kind.clone(),
                    });
                }
                v
            };
            // Label words of each local label of this process.
            let label_words: Vec<Vec<u32>> = lts
                .labels
                .iter()
                .map(|l| match rules_of[i].get(l.as_str()) {
                    Some(rules) => rules.clone(),
                    None if network.unmatched == UnmatchedLabels::Independent => {
                        vec![INDEPENDENT | action_id(l)]
                    }
                    None => Vec::new(),
                })
                .collect();
            let mut per_state: Vec<Vec<(u32, u32)>> = vec![Vec::new(); states];
            for t in &lts.transitions {
                let target = t.target
                    | if is_error[t.target as usize] {
                        ERROR_TARGET
                    } else {
                        0
                    };
                for &word in &label_words[t.label as usize] {
                    per_state[t.source as usize].push((word, target));
                }
            }
            proc_offsets.push(state_offsets.len() as u32);
            for entries in &mut per_state {
                entries.sort_unstable();
                entries.dedup();
                state_offsets.push((transitions.len() / 2) as u32);
                for &(w, t) in entries.iter() {
                    transitions.push(w);
                    transitions.push(t);
                }
            }
            state_offsets.push((transitions.len() / 2) as u32);
        }
        proc_offsets.push(state_offsets.len() as u32);
        if actions.len() >= INDEPENDENT as usize {
            return Err(EncodeError::TooManyLabels);
        }

        let rule_processes: Vec<Vec<usize>> = network
            .rules
            .iter()
            .map(|rule| rule.participants.iter().map(|p| p.process).collect())
            .collect();
        let layout = Layout::pack(&field_widths, &interaction_order(n, &rule_processes));
        let mut initial = vec![0u32; layout.words];
        for (i, p) in network.processes.iter().enumerate() {
            layout.set(&mut initial, i, p.lts.initial);
        }
        let monitor = network
            .processes
            .iter()
            .position(|p| {
                p.error_states
                    .iter()
                    .any(|e| matches!(e.kind, ErrorKind::Property(_)))
            })
            .filter(|&m| m + 1 == n);

        let mut encoded = EncodedNetwork {
            layout,
            proc_offsets,
            state_offsets,
            transitions,
            rule_count: network.rules.len(),
            rule_participant_offsets,
            rule_participants,
            rule_actions,
            actions,
            initial,
            error_locals,
            process_names: network.processes.iter().map(|p| p.name.clone()).collect(),
            state_names: network
                .processes
                .iter()
                .map(|p| p.lts.state_names.clone())
                .collect(),
            monitor,
            successor_tables: SuccessorTables::default(),
        };
        encoded.successor_tables = SuccessorTables::build(
            &encoded,
            DEFAULT_LOOKUP_ROWS,
            OwnerChoice::MostSelective,
            DEFAULT_INDEXED_FROM,
        );
        Ok(encoded)
    }

    /// Rebuilds the CPU successor tables with at most `rows` rows of direct
    /// (rule, local state) lookup; participants beyond that budget are found
    /// by binary search instead. Successors are the same either way.
    pub fn limit_lookup_tables(&mut self, rows: usize) {
        let indexed_from = self.successor_tables.indexed_from();
        self.successor_tables =
            SuccessorTables::build(self, rows, OwnerChoice::MostSelective, indexed_from);
    }

    /// Rebuilds the successor tables (of every engine) so that the rules a
    /// process owns in a local state are indexed there when they are at
    /// least `rules` ([`DEFAULT_INDEXED_FROM`] unless changed; 0 or 1:
    /// wherever it owns a rule with key participants), keeping the rows
    /// budget of [`EncodedNetwork::limit_lookup_tables`]. Successors are
    /// the same either way.
    pub fn index_rules_from(&mut self, rules: usize) {
        let rows = self.successor_tables.row_budget();
        self.successor_tables =
            SuccessorTables::build(self, rows, OwnerChoice::MostSelective, rules);
    }

    /// The successor tables as plain arrays for a device that has no
    /// binary-search fallback (see [`FlatSuccessorTables`]): this network's
    /// own tables when every participant has lookup rows, at most
    /// `max_rows` in all, otherwise tables rebuilt with that budget (or
    /// with owners other than the CPU's [`OwnerChoice::MostSelective`]).
    /// `None` when `max_rows` rows are not enough.
    pub fn flat_successor_tables(
        &self,
        max_rows: usize,
        owners: OwnerChoice,
    ) -> Option<FlatSuccessorTables> {
        let own = &self.successor_tables;
        if owners == OwnerChoice::MostSelective
            && own.tables_every_participant()
            && own.lookup_rows() <= max_rows
        {
            return own.flatten(self);
        }
        SuccessorTables::build(self, max_rows, owners, own.indexed_from()).flatten(self)
    }

    /// The CPU successor tables (see [`SuccessorTables`]).
    pub fn successor_tables(&self) -> &SuccessorTables {
        &self.successor_tables
    }

    /// Number of processes.
    pub fn processes(&self) -> usize {
        self.process_names.len()
    }

    /// Words of one state vector.
    pub fn words(&self) -> usize {
        self.layout.words
    }

    /// TransArray entry range (in entries) of local state `state` of `process`.
    #[inline]
    pub fn entry_range(&self, process: usize, state: u32) -> (usize, usize) {
        let at = self.proc_offsets[process] as usize + state as usize;
        (
            self.state_offsets[at] as usize,
            self.state_offsets[at + 1] as usize,
        )
    }

    /// Participants of rule `r`, sorted by process index.
    #[inline]
    pub fn participants(&self, r: usize) -> &[u32] {
        &self.rule_participants[self.rule_participant_offsets[r] as usize
            ..self.rule_participant_offsets[r + 1] as usize]
    }

    /// The first error state found in `state`, if any (index into
    /// [`EncodedNetwork::error_locals`]).
    pub fn error_in(&self, state: &[u32]) -> Option<usize> {
        self.error_locals
            .iter()
            .position(|e| self.layout.get(state, e.process) == e.state)
    }

    /// Name of local state `state` of `process`.
    pub fn state_name(&self, process: usize, state: u32) -> &str {
        &self.state_names[process][state as usize]
    }

    /// Total number of TransArray entries.
    pub fn entry_count(&self) -> usize {
        self.transitions.len() / 2
    }
}

/// Bits needed to number `count` values (at least one).
pub fn bits_for(count: u64) -> u32 {
    (64 - count.saturating_sub(1).leading_zeros()).max(1)
}

/// A fast, well-mixing hash of a state vector, shared by every engine: the
/// GPU kernels compute the same (`kernels/common/hash.cuh`), so that the
/// host can place the initial state in the device's table. [`HASH_GOLDEN`]
/// pins both.
#[inline]
pub fn hash_words(words: &[u32]) -> u64 {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15 ^ words.len() as u64;
    for &w in words {
        h = (h ^ w as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 29;
    }
    h = (h ^ (h >> 32)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 29)
}

/// Vectors and their [`hash_words`]: a test checks the host's function
/// against these values and a GPU test the kernels', so that neither side
/// can change alone.
pub const HASH_GOLDEN: [(&[u32], u64); 4] = [
    (&[0], 0x934a_182e_d5f9_2621),
    (&[1, 2, 3], 0x5ea3_c0fa_9d96_e510),
    (&[u32::MAX; 5], 0x73cd_3921_1fb8_4803),
    (
        &[
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
        ],
        0xaeb2_1e39_6703_6f0a,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_its_golden_values() {
        for (vector, hash) in HASH_GOLDEN {
            assert_eq!(hash_words(vector), hash, "{vector:?}");
        }
    }

    #[test]
    fn bits_for_small_counts() {
        assert_eq!(bits_for(1), 1);
        assert_eq!(bits_for(2), 1);
        assert_eq!(bits_for(3), 2);
        assert_eq!(bits_for(4), 2);
        assert_eq!(bits_for(5), 3);
        assert_eq!(bits_for(1 << 20), 20);
    }
}
