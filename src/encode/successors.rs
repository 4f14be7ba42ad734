//! Successor generation on the CPU, over the encoded arrays, following the
//! GPUexplore scheme: each process fires its independent entries itself;
//! a synchronising rule is combined by one participant, its owner, which
//! looks up the other participants' entries for the same rule.
//!
//! [`SuccessorTables`], built once per network, make both steps direct:
//! - per local state of a process, the rules that process owns there, with
//!   their entry ranges, and where its independent entries start, so that a
//!   state's expansion never walks entry groups of rules owned by others;
//! - per rule and other participant, a table from that participant's local
//!   state to its entry range for the rule (binary search in the TransArray
//!   once the tables' memory budget is spent);
//! - where a process owns many rules in one local state (at least
//!   [`DEFAULT_INDEXED_FROM`]; Petri nets whose units offer thousands of
//!   transitions per place), **rule indexes** in place of the list: the
//!   rules are grouped by their *key participants*, the other participants
//!   that offer the rule in exactly one local state, and a group's rules
//!   are filed in **cells** by those participants' local states (mixed
//!   radix). An expansion reads the keys' fields, computes one cell per
//!   group and looks only at the rules in it, so a rule whose keys are
//!   elsewhere costs nothing and the cost follows the enabled rules. A
//!   group indexes only as many of its keys (most selective first) as keep
//!   its cells within [`CELL_FLOOR`] or [`CELLS_PER_RULE`] per rule, so the
//!   cells stay linear in the rules; the other participants are checked as
//!   in a list. Local states that own fewer rules keep the list, and a
//!   network without any rule index is expanded by a loop that never looks
//!   for one, so nets with few rules per local state are expanded as
//!   before. A rule filed in a cell has its keys' entries fixed: they are
//!   one lookup row each, read without their local state.
//!
//! Any participant may own a rule: exactly one does, and the combinations
//! are the same. The owner is the participant that offers the rule in the
//! smallest share of its local states, so that the fewest rules are looked
//! at (GPUexplore's lowest-indexed participant, [`OwnerChoice::Lowest`],
//! can be chosen for measurement), but never the property monitor (unless
//! it is the only participant):
//! a rule that everybody but the monitor offers is a blocked monitor step.
//! With a non-monitor owner, "every other non-monitor participant offers
//! the rule, the monitor does not" is exactly what is counted as blocked.
//!
//! **Parallel rules** (Petri nets often repeat one transition's arcs under
//! many names: ARMCacheCoherence-PT-none has 33,676 transitions and 1,251
//! distinct arc sets) have the same participants, offered in the same local
//! states with the same targets, and differ only in their actions. Every
//! list of owned rules and every cell orders its rules by their lowest
//! parallel rule, so parallel rules are adjacent, and
//! [`SuccessorGenerator::for_each_merged`] combines each run of them once,
//! counting its successors once per rule, for engines that need the
//! successor vectors and the transition count but not every action (the
//! CPU engine). [`SuccessorGenerator::for_each`] still emits every rule's
//! step with its own action.
//!
//! The GPU engine reads the same tables, flattened into `u32` arrays
//! ([`FlatSuccessorTables`]), so both engines share one owner choice (the
//! order of the rules within a list or cell changes nothing there).

use std::collections::BTreeMap;

use hashbrown::HashMap;

use super::{ERROR_TARGET, EncodedNetwork, Field, INDEPENDENT};

/// Which participant combines a synchronising rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OwnerChoice {
    /// The non-monitor participant offering the rule in the smallest share
    /// of its local states: the fewest rules are looked at.
    #[default]
    MostSelective,
    /// The lowest-indexed non-monitor participant, as in GPUexplore (kept
    /// to measure the difference).
    Lowest,
}

/// Default bound on the rows of the lookup tables (8 bytes each: 32 MiB).
pub const DEFAULT_LOOKUP_ROWS: usize = 1 << 22;

/// Default least number of rules a process must own in one of its local
/// states for them to be indexed there (see the module documentation);
/// [`SuccessorTables::indexed_from`] is the one in use.
pub const DEFAULT_INDEXED_FROM: usize = 64;

/// Cells a rule index may always have, however few its rules.
pub const CELL_FLOOR: u64 = 64;

/// Cells a rule index may have per rule it files, beyond [`CELL_FLOOR`].
pub const CELLS_PER_RULE: u64 = 4;

/// A process's field with its mask precomputed.
#[derive(Debug, Clone, Copy)]
struct Place {
    word: usize,
    shift: u32,
    mask: u32,
}

impl Place {
    fn new(field: Field) -> Self {
        Place {
            word: field.word as usize,
            shift: field.shift,
            mask: field.mask(),
        }
    }

    #[inline]
    fn get(self, vector: &[u32]) -> u32 {
        (vector[self.word] & self.mask) >> self.shift
    }

    #[inline]
    fn set(self, vector: &mut [u32], value: u32) {
        let w = &mut vector[self.word];
        *w = (*w & !self.mask) | ((value << self.shift) & self.mask);
    }
}

/// What a process does in one local state.
#[derive(Debug, Clone, Copy)]
struct SlotPlan {
    /// `owned[owned_start..owned_end]`: the rules it owns and offers here
    /// and checks one by one.
    owned_start: u32,
    owned_end: u32,
    /// `indexes[indexes_start..indexes_end]`: the indexes of the rules it
    /// owns and offers here that are filed by their key participants.
    indexes_start: u32,
    indexes_end: u32,
    /// `independent_start..end`: its independent TransArray entries (they
    /// sort after all rule entries).
    independent_start: u32,
    end: u32,
}

/// A rule offered by its owner in one of the owner's local states.
#[derive(Debug, Clone, Copy)]
struct OwnedGroup {
    /// The rule id.
    rule: u32,
    /// The owner's entries `lo..hi` of the rule.
    lo: u32,
    hi: u32,
    /// `others[others_start..others_end]`: the rule's other participants.
    others_start: u32,
    others_end: u32,
    /// Action id of the combined step.
    action: u32,
    /// How many groups from this one on (itself included) are parallel
    /// rules of the same list or cell: the one combination of this group
    /// stands for all of them in [`SuccessorGenerator::for_each_merged`].
    copies: u32,
}

/// [`OtherParticipant::rows`] of a participant found by binary search.
const NO_TABLE: u32 = u32::MAX;

/// A participant of a rule other than its owner.
#[derive(Debug, Clone, Copy)]
struct OtherParticipant {
    process: u32,
    place: Place,
    /// Index in `lookup` of the row of its local state 0, or [`NO_TABLE`].
    rows: u32,
    /// The mask its local state is read with to pick its row: its field's,
    /// or 0 for a key participant of a rule index, whose local state the
    /// cell has matched and whose one row is `rows` (see [`FIXED_ROW`]).
    row_mask: u32,
    /// Whether it is the property monitor (its absence blocks the rule
    /// and is counted).
    is_monitor: bool,
}

/// The rules one process owns in one local state that share their key
/// participants, filed by the keys' local states.
#[derive(Debug, Clone, Copy)]
struct RuleIndex {
    /// `keys[keys_start..keys_end]`: the key participants.
    keys_start: u32,
    keys_end: u32,
    /// Index in `cells` of cell 0.
    cells_start: u32,
}

/// A key participant of a [`RuleIndex`]: its local state times `stride`,
/// summed over the keys, numbers the cell.
#[derive(Debug, Clone, Copy)]
struct IndexKey {
    process: u32,
    place: Place,
    stride: u32,
}

/// CPU lookup structures derived from the encoded arrays (see the module
/// documentation); read-only and shared by all threads.
#[derive(Debug, Clone, Default)]
pub struct SuccessorTables {
    /// Per process: its field.
    places: Vec<Place>,
    /// Indexed like `state_offsets`; a process's extra last slot is empty.
    slots: Vec<SlotPlan>,
    owned: Vec<OwnedGroup>,
    others: Vec<OtherParticipant>,
    /// `(lo, hi)` entry range per local state of each tabled participant
    /// (`lo == hi`: the rule is not offered there), then one per key
    /// participant of each indexed rule.
    lookup: Vec<[u32; 2]>,
    /// The rule indexes of all slots, their keys, and their cells: a cell
    /// is the range `[lo, hi)` of `owned` that it files.
    indexes: Vec<RuleIndex>,
    keys: Vec<IndexKey>,
    cells: Vec<[u32; 2]>,
    /// Whether some list or cell holds parallel rules (see
    /// [`SuccessorGenerator::for_each_merged`]).
    has_parallel_rules: bool,
    /// The least number of rules owned in a local state that are indexed.
    indexed_from: usize,
    /// The most lookup rows by local state the tables were allowed, and
    /// how many they have.
    row_budget: usize,
    lookup_rows: usize,
}

impl SuccessorTables {
    /// Builds the tables for `net`, with at most `max_rows` lookup rows,
    /// owners chosen by `owners`, and the rules of local states that own at
    /// least `indexed_from` of them indexed.
    pub(super) fn build(
        net: &EncodedNetwork,
        max_rows: usize,
        owners: OwnerChoice,
        indexed_from: usize,
    ) -> Self {
        let places: Vec<Place> = net.layout.fields.iter().map(|&f| Place::new(f)).collect();
        let local_states = |p: usize| (net.proc_offsets[p + 1] - net.proc_offsets[p]) as usize - 1;
        let groups_of = |p: usize, s: usize| {
            let (start, end) = net.entry_range(p, s as u32);
            rule_groups(net, start, end)
        };

        // offered[r][i]: how many local states of participant i of rule r
        // offer r, and the last of them.
        let mut offered: Vec<Vec<(u32, u32)>> = (0..net.rule_count)
            .map(|r| vec![(0, 0); net.participants(r).len()])
            .collect();
        for p in 0..net.processes() {
            for s in 0..local_states(p) {
                for (rule, _, _) in groups_of(p, s) {
                    // Participants are sorted by process index.
                    let parts = net.participants(rule as usize);
                    if let Ok(i) = parts.binary_search(&(p as u32)) {
                        let (count, last) = &mut offered[rule as usize][i];
                        *count += 1;
                        *last = s as u32;
                    }
                }
            }
        }

        // Owner and other participants (most often absent first, so that a
        // disabled rule is usually recognised at the first look-up); the
        // key participants, in the same order, with their one local state.
        let mut owner = vec![u32::MAX; net.rule_count];
        let mut others_range = vec![(0u32, 0u32); net.rule_count];
        let mut others = Vec::new();
        let mut keys_range = vec![(0u32, 0u32); net.rule_count];
        let mut rule_keys: Vec<(u32, u32)> = Vec::new();
        let mut rows = 0usize;
        // Row base of every tabled (rule, other participant).
        let mut row_base: HashMap<(u32, u32), u32> = HashMap::new();
        for (r, offered) in offered.iter().enumerate() {
            let parts = net.participants(r);
            let share =
                |i: usize| offered[i].0 as f64 / local_states(parts[i] as usize).max(1) as f64;
            let is_monitor = |i: usize| Some(parts[i] as usize) == net.monitor;
            let candidates = (0..parts.len()).filter(|&i| !is_monitor(i));
            let chosen = match owners {
                OwnerChoice::MostSelective => {
                    candidates.min_by(|&a, &b| share(a).total_cmp(&share(b)))
                }
                OwnerChoice::Lowest => candidates.min_by_key(|&i| parts[i]),
            };
            let Some(own) = chosen.or((!parts.is_empty()).then_some(0)) else {
                continue;
            };
            owner[r] = parts[own];
            let mut rest: Vec<usize> = (0..parts.len()).filter(|&i| i != own).collect();
            rest.sort_by(|&a, &b| share(a).total_cmp(&share(b)));
            let start = others.len() as u32;
            let keys_start = rule_keys.len() as u32;
            for i in rest {
                let q = parts[i] as usize;
                let states = local_states(q);
                let tabled = rows + states <= max_rows.min(NO_TABLE as usize);
                others.push(OtherParticipant {
                    process: q as u32,
                    place: places[q],
                    rows: if tabled { rows as u32 } else { NO_TABLE },
                    row_mask: places[q].mask,
                    is_monitor: is_monitor(i),
                });
                if tabled {
                    row_base.insert((r as u32, q as u32), rows as u32);
                    rows += states;
                }
                if offered[i].0 == 1 && states > 1 && !is_monitor(i) {
                    rule_keys.push((q as u32, offered[i].1));
                }
            }
            others_range[r] = (start, others.len() as u32);
            keys_range[r] = (keys_start, rule_keys.len() as u32);
        }
        let keys_of = |rule: u32| {
            let (start, end) = keys_range[rule as usize];
            &rule_keys[start as usize..end as usize]
        };

        // The lowest rule parallel to each rule: the rules of one list or
        // cell are ordered by it, so that parallel rules are adjacent.
        let class = parallel_rules(net);
        let mut tables = SuccessorTables {
            places,
            slots: Vec::with_capacity(net.state_offsets.len()),
            others,
            lookup: vec![[0u32; 2]; rows],
            indexed_from,
            row_budget: max_rows,
            lookup_rows: rows,
            ..SuccessorTables::default()
        };
        for p in 0..net.processes() {
            for s in 0..=local_states(p) {
                let indexes_start = tables.indexes.len() as u32;
                if s == local_states(p) {
                    let owned_start = tables.owned.len() as u32;
                    let end = net.state_offsets[net.proc_offsets[p] as usize + s];
                    tables.slots.push(SlotPlan {
                        owned_start,
                        owned_end: owned_start,
                        indexes_start,
                        indexes_end: indexes_start,
                        independent_start: end,
                        end,
                    });
                    continue;
                }
                let (start, end) = net.entry_range(p, s as u32);
                let mut independent_start = start;
                let mut owned_here = Vec::new();
                for (rule, lo, hi) in groups_of(p, s) {
                    independent_start = hi;
                    let (others_start, others_end) = others_range[rule as usize];
                    if owner[rule as usize] as usize == p {
                        owned_here.push(OwnedGroup {
                            rule,
                            lo: lo as u32,
                            hi: hi as u32,
                            others_start,
                            others_end,
                            action: net.rule_actions[rule as usize],
                            copies: 1,
                        });
                    } else if let Some(&base) = row_base.get(&(rule, p as u32)) {
                        tables.lookup[base as usize + s] = [lo as u32, hi as u32];
                    }
                }
                if owned_here.len() >= indexed_from.max(1) {
                    owned_here =
                        tables.index_rules(net, owned_here, &keys_of, &local_states, &class);
                }
                // The rules checked one by one follow those that the cells
                // file (in `owned` too).
                order_parallel(&mut owned_here, &class);
                let owned_start = tables.owned.len() as u32;
                tables.owned.extend(owned_here);
                tables.slots.push(SlotPlan {
                    owned_start,
                    owned_end: tables.owned.len() as u32,
                    indexes_start,
                    indexes_end: tables.indexes.len() as u32,
                    independent_start: independent_start as u32,
                    end: end as u32,
                });
            }
        }
        tables.has_parallel_rules = tables.owned.iter().any(|group| group.copies > 1);
        tables
    }

    /// Files the `rules` one process owns in one local state of `net` in
    /// rule indexes by their key participants (`keys_of`: a rule's keys,
    /// most selective first, with the local state each offers it in),
    /// parallel rules (`class`, see [`order_parallel`]) adjacent in each
    /// cell; returns the rules left to check one by one, those without keys.
    fn index_rules<'k>(
        &mut self,
        net: &EncodedNetwork,
        rules: Vec<OwnedGroup>,
        keys_of: &impl Fn(u32) -> &'k [(u32, u32)],
        local_states: &impl Fn(usize) -> usize,
        class: &[u32],
    ) -> Vec<OwnedGroup> {
        let mut by_keys: BTreeMap<Vec<u32>, Vec<OwnedGroup>> = BTreeMap::new();
        for rule in rules {
            let keys = keys_of(rule.rule).iter().map(|&(q, _)| q).collect();
            by_keys.entry(keys).or_default().push(rule);
        }
        // Each group keeps the most selective keys whose cells fit its
        // budget; groups left with the same keys share an index.
        let mut indexed: BTreeMap<Vec<u32>, Vec<OwnedGroup>> = BTreeMap::new();
        for (mut keys, group) in by_keys {
            let budget = CELL_FLOOR.max(CELLS_PER_RULE * group.len() as u64);
            let mut cells = 1u64;
            let fitting = keys
                .iter()
                .take_while(|&&q| {
                    cells *= local_states(q as usize) as u64;
                    cells <= budget
                })
                .count();
            keys.truncate(fitting);
            indexed.entry(keys).or_default().extend(group);
        }
        let unkeyed = indexed.remove(&Vec::new()).unwrap_or_default();
        for (keys, group) in indexed {
            let keys_start = self.keys.len() as u32;
            let mut cells = 1u32;
            for &q in &keys {
                self.keys.push(IndexKey {
                    process: q,
                    place: self.places[q as usize],
                    stride: cells,
                });
                cells *= local_states(q as usize) as u32;
            }
            // Each rule in the cell of its keys' local states (mixed
            // radix), with the keys' entries fixed and its other
            // participants left to check (stored cell by cell, so that a
            // cell's rules and their participants are read in one sweep).
            let cell_of = |rule: &OwnedGroup| -> u32 {
                keys_of(rule.rule)
                    .iter()
                    .zip(&self.keys[keys_start as usize..])
                    .map(|(&(_, state), key)| state * key.stride)
                    .sum()
            };
            let mut filed: Vec<(u32, OwnedGroup)> = group
                .into_iter()
                .map(|rule| (cell_of(&rule), rule))
                .collect();
            filed.sort_by_key(|&(cell, _)| cell);
            for (_, rule) in &mut filed {
                let matched = &keys_of(rule.rule)[..keys.len()];
                let others_start = self.others.len() as u32;
                for at in rule.others_start..rule.others_end {
                    let other = self.others[at as usize];
                    if !matched.iter().any(|&(q, _)| q == other.process) {
                        self.others.push(other);
                    }
                }
                for &(q, state) in matched {
                    self.others.push(OtherParticipant {
                        process: q,
                        place: self.places[q as usize],
                        rows: self.lookup.len() as u32,
                        row_mask: 0,
                        is_monitor: false,
                    });
                    self.lookup
                        .push(search_rule(net, q as usize, state, rule.rule));
                }
                rule.others_start = others_start;
                rule.others_end = self.others.len() as u32;
            }
            self.indexes.push(RuleIndex {
                keys_start,
                keys_end: self.keys.len() as u32,
                cells_start: self.cells.len() as u32,
            });
            let mut filed = filed.into_iter().peekable();
            for cell in 0..cells {
                let lo = self.owned.len() as u32;
                while let Some((_, entry)) = filed.next_if(|&(at, _)| at == cell) {
                    self.owned.push(entry);
                }
                order_parallel(&mut self.owned[lo as usize..], class);
                self.cells.push([lo, self.owned.len() as u32]);
            }
        }
        unkeyed
    }

    /// Rows of the lookup tables by local state in use (the rows that
    /// [`SuccessorTables::row_budget`] bounds; the one row of each key
    /// participant of an indexed rule comes on top).
    pub fn lookup_rows(&self) -> usize {
        self.lookup_rows
    }

    /// Whether every other participant of every rule has a lookup table
    /// (none is found by binary search).
    pub fn tables_every_participant(&self) -> bool {
        self.others.iter().all(|other| other.rows != NO_TABLE)
    }

    /// The least number of rules a process must own in a local state for
    /// them to be indexed there (see the module documentation).
    pub fn indexed_from(&self) -> usize {
        self.indexed_from
    }

    /// The most lookup rows these tables were allowed (see
    /// [`EncodedNetwork::limit_lookup_tables`]).
    pub fn row_budget(&self) -> usize {
        self.row_budget
    }

    /// Rule indexes in all local states, and the cells they have in all.
    pub fn index_sizes(&self) -> (usize, usize) {
        (self.indexes.len(), self.cells.len())
    }

    /// The same tables as plain `u32` arrays (see [`FlatSuccessorTables`]),
    /// for `net`, the network they were built for. `None` unless
    /// [`SuccessorTables::tables_every_participant`]: the flat form has no
    /// binary-search fallback.
    pub fn flatten(&self, net: &EncodedNetwork) -> Option<FlatSuccessorTables> {
        // Row numbers keep bits 31 and 30 for the monitor and fixed flags,
        // the first word of an item bits 31 and 30 for the kinds of items.
        let rows = self.lookup.len() + self.cells.len();
        let participant_rows = self.others.len() + self.keys.len();
        if !self.tables_every_participant()
            || rows > FIXED_ROW as usize
            || participant_rows > RULE_INDEX as usize
        {
            return None;
        }
        let mut flat = FlatSuccessorTables {
            item_offsets: Vec::with_capacity(self.slots.len()),
            items: Vec::new(),
            others: Vec::with_capacity(4 * participant_rows),
            lookup: Vec::with_capacity(2 * rows),
            other_processes: Vec::with_capacity(participant_rows),
        };
        let owned_item =
            |group: &OwnedGroup| [group.others_start, group.lo, group.hi, group.others_end];
        let (keys_base, cells_base) = (self.others.len() as u32, self.lookup.len() as u32);
        for slot in &self.slots {
            flat.item_offsets.push((flat.items.len() / 4) as u32);
            for group in &self.owned[slot.owned_start as usize..slot.owned_end as usize] {
                flat.items.extend(owned_item(group));
            }
            for index in &self.indexes[slot.indexes_start as usize..slot.indexes_end as usize] {
                flat.items.extend([
                    RULE_INDEX | (keys_base + index.keys_start),
                    keys_base + index.keys_end,
                    cells_base + index.cells_start,
                    0,
                ]);
            }
            let independent =
                &net.transitions[2 * slot.independent_start as usize..2 * slot.end as usize];
            for &[label, target] in independent.as_chunks::<2>().0 {
                flat.items.extend([label, target, 0, 0]);
            }
        }
        let indexed_base = (flat.items.len() / 4) as u32;
        if !self.cells.is_empty() {
            for group in &self.owned {
                flat.items.extend(owned_item(group));
            }
        }
        flat.lookup.extend(self.lookup.as_flattened());
        for &[lo, hi] in &self.cells {
            flat.lookup.extend([indexed_base + lo, indexed_base + hi]);
        }
        let field_row = |process: u32| {
            let field = net.layout.fields[process as usize];
            [field.word, field.shift, field.mask() >> field.shift]
        };
        for other in &self.others {
            let monitor = if other.is_monitor { MONITOR_ROW } else { 0 };
            let fixed = if other.row_mask == 0 { FIXED_ROW } else { 0 };
            flat.others.extend(field_row(other.process));
            flat.others.push(other.rows | fixed | monitor);
            flat.other_processes.push(other.process);
        }
        for key in &self.keys {
            flat.others.extend(field_row(key.process));
            flat.others.push(key.stride);
            flat.other_processes.push(key.process);
        }
        Some(flat)
    }
}

/// Set in the row base of a [`FlatSuccessorTables::others`] row whose
/// participant is the property monitor (the kernel's `MONITOR_BIT`).
pub const MONITOR_ROW: u32 = 1 << 31;

/// Set in the row of a [`FlatSuccessorTables::others`] row whose entries
/// are the same in every state it is looked at in, a key participant that
/// the cell of a rule index has matched: its entries are that row of
/// `lookup` itself, not the row of its local state (the kernel's
/// `FIXED_BIT`).
pub const FIXED_ROW: u32 = 1 << 30;

/// Set in the first word of a [`FlatSuccessorTables::items`] item that is
/// a rule index (the kernel's `RULE_INDEX`).
pub const RULE_INDEX: u32 = 1 << 30;

/// [`SuccessorTables`] as plain `u32` arrays, the layout the GPU kernel
/// (`kernels/explore.cu`) reads, so that both engines share one owner
/// choice and one set of tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatSuccessorTables {
    /// Indexed like [`EncodedNetwork::state_offsets`]: the items of local
    /// state `s` of process `p` are `item_offsets[proc_offsets[p] + s] ..
    /// item_offsets[proc_offsets[p] + s + 1]`.
    pub item_offsets: Vec<u32>,
    /// Four words per item. A local state's items are the rules its process
    /// owns there and checks one by one, then its rule indexes, then its
    /// independent entries: for an owned rule, with its TransArray entries
    /// `lo .. hi`, `[first, lo, hi, end]`, its other participants being
    /// `others[first .. end]`; for a rule index, `[RULE_INDEX | first,
    /// end, cells, 0]`, its keys being `others[first .. end]` and its cell
    /// 0 the row `cells` of `lookup`; for an independent entry,
    /// `[INDEPENDENT | action, target, 0, 0]`. Where there are rule indexes,
    /// all owned rules follow the last local state's items again, and the
    /// cells' ranges point there.
    pub items: Vec<u32>,
    /// Four words per other participant of a rule: its field's word, shift
    /// and unshifted mask, and the index of its local state 0's row in
    /// `lookup`, with [`MONITOR_ROW`] set for the property monitor, or,
    /// with [`FIXED_ROW`] set, of its one row. Then
    /// four words per key of a rule index: its field's word, shift and
    /// unshifted mask, and its stride (the cell is the sum of the keys'
    /// local states times their strides).
    pub others: Vec<u32>,
    /// Two words per row. First a row per local state of one participant
    /// of one rule: the entry range `[lo, hi)` of the rule there (`lo ==
    /// hi`: the rule is not offered). Then a row per key participant of
    /// an indexed rule: its entry range of the rule (the row of an
    /// `others` row with [`FIXED_ROW`]). Then a row per cell of the rule
    /// indexes: the range `[lo, hi)` of the items of the rules it files.
    pub lookup: Vec<u32>,
    /// The process of each `others` row (for GPUexplore's shared-memory
    /// combination, where a thread reads the list of that process's thread).
    pub other_processes: Vec<u32>,
}

impl FlatSuccessorTables {
    /// Whether any local state's items hold a rule index (the GPU kernels
    /// are compiled with or without the walk of its cells).
    pub fn has_rule_indexes(&self) -> bool {
        self.items
            .chunks_exact(4)
            .any(|item| item[0] & INDEPENDENT == 0 && item[0] & RULE_INDEX != 0)
    }
}

/// For every rule of `net`, the lowest id of the rules parallel to it
/// (its own when none is lower). Rules are parallel when they have the
/// same participants and each participant offers them in the same local
/// states with the same targets (error flags included): they are enabled
/// in the same states and lead to the same successors, and differ only in
/// their actions. Petri nets often repeat one transition's arcs under many
/// names.
fn parallel_rules(net: &EncodedNetwork) -> Vec<u32> {
    // A rule's signature: its participants, then, for each local state
    // that offers it (process by process, state by state), the process,
    // the state and the targets of its entries there.
    let mut signatures: Vec<Vec<u32>> = (0..net.rule_count)
        .map(|rule| {
            let participants = net.participants(rule);
            let mut signature = vec![participants.len() as u32];
            signature.extend(participants);
            signature
        })
        .collect();
    for p in 0..net.processes() {
        let states = net.proc_offsets[p + 1] - net.proc_offsets[p] - 1;
        for s in 0..states {
            let (start, end) = net.entry_range(p, s);
            for (rule, lo, hi) in rule_groups(net, start, end) {
                let signature = &mut signatures[rule as usize];
                signature.extend([p as u32, s, (hi - lo) as u32]);
                signature.extend((lo..hi).map(|entry| net.transitions[2 * entry + 1]));
            }
        }
    }
    let mut lowest: HashMap<&[u32], u32> = HashMap::with_capacity(signatures.len());
    signatures
        .iter()
        .enumerate()
        .map(|(rule, signature)| *lowest.entry(signature.as_slice()).or_insert(rule as u32))
        .collect()
}

/// Orders the rules of one list or cell by `class`, the lowest rule
/// parallel to each rule ([`parallel_rules`]), then by rule id (so that a
/// network without parallel rules keeps its order), and sets each one's
/// count of adjacent parallel copies.
fn order_parallel(groups: &mut [OwnedGroup], class: &[u32]) {
    let class_of = |group: &OwnedGroup| class[group.rule as usize];
    groups.sort_unstable_by_key(|group| (class_of(group), group.rule));
    let mut copies = 0;
    for at in (0..groups.len()).rev() {
        let same_as_next = groups
            .get(at + 1)
            .is_some_and(|next| class_of(next) == class_of(&groups[at]));
        copies = if same_as_next { copies + 1 } else { 1 };
        groups[at].copies = copies;
    }
}

/// The rule groups `(rule, lo, hi)` among entries `start..end` of one local
/// state (rule entries come first, sorted by rule id).
fn rule_groups(
    net: &EncodedNetwork,
    start: usize,
    end: usize,
) -> impl Iterator<Item = (u32, usize, usize)> {
    let (entries, _) = net.transitions[2 * start..2 * end].as_chunks::<2>();
    entries
        .chunk_by(|a, b| a[0] == b[0])
        .scan(start, |at, group| {
            let lo = *at;
            *at += group.len();
            Some((group[0][0], lo, *at))
        })
        .take_while(|&(label, _, _)| label & INDEPENDENT == 0)
}

impl EncodedNetwork {
    /// The most synchronising rules that one local state of one process
    /// offers (the GPU's shared-memory offer lists are this long).
    pub fn max_rules_offered(&self) -> usize {
        (0..self.processes())
            .flat_map(|p| {
                let states = self.proc_offsets[p + 1] - self.proc_offsets[p] - 1;
                (0..states).map(move |s| {
                    let (start, end) = self.entry_range(p, s);
                    rule_groups(self, start, end).count()
                })
            })
            .max()
            .unwrap_or(0)
    }

    /// An upper bound on the successors one synchronising rule gives in
    /// one state (the combinations of its participants' entries): over the
    /// rules, the product of each participant's most entries for the rule
    /// in any of its local states (saturating). The GPU kernels count
    /// combinations in 32 bits when this fits.
    pub fn max_combinations(&self) -> u64 {
        let mut most: HashMap<(u32, usize), u64> = HashMap::new();
        for p in 0..self.processes() {
            let states = self.proc_offsets[p + 1] - self.proc_offsets[p] - 1;
            for s in 0..states {
                let (start, end) = self.entry_range(p, s);
                for (rule, lo, hi) in rule_groups(self, start, end) {
                    let entries = most.entry((rule, p)).or_default();
                    *entries = (*entries).max((hi - lo) as u64);
                }
            }
        }
        (0..self.rule_count)
            .map(|rule| {
                self.participants(rule).iter().fold(1u64, |product, &p| {
                    let entries = most.get(&(rule as u32, p as usize)).copied().unwrap_or(0);
                    product.saturating_mul(entries)
                })
            })
            .max()
            .unwrap_or(0)
    }
}

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

/// One participant's choices while a rule is combined.
#[derive(Debug, Clone, Copy)]
struct Pick {
    place: Place,
    /// Its entries of the rule, and the one chosen now.
    lo: u32,
    hi: u32,
    at: u32,
}

/// Reusable buffers for successor generation (one per thread).
#[derive(Debug, Clone)]
pub struct SuccessorGenerator<'n> {
    net: &'n EncodedNetwork,
    /// Participants of the rule being combined.
    picks: Vec<Pick>,
    /// The successor being built; equal to the expanded state between
    /// steps, so that a step only writes (and then restores) its fields.
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
            picks: Vec::new(),
            next: vec![0; net.words()],
        }
    }

    /// Calls `emit` for every successor of `state`, in a fixed order.
    pub fn for_each(&mut self, state: &[u32], emit: impl FnMut(Successor<'_>)) -> Expansion {
        // Decided per network: one without rule indexes runs a loop that
        // has no look at them.
        if self.net.successor_tables.indexes.is_empty() {
            self.expand::<false, false>(state, emit)
        } else {
            self.expand::<true, false>(state, emit)
        }
    }

    /// Like [`SuccessorGenerator::for_each`], but the successors of
    /// parallel rules (same participants, same local states and targets,
    /// other actions) are emitted once, with the action of one of them:
    /// for engines that need the successor vectors and not every action.
    /// The [`Expansion`] still counts every transition (and every blocked
    /// monitor step) of each parallel rule.
    pub fn for_each_merged(&mut self, state: &[u32], emit: impl FnMut(Successor<'_>)) -> Expansion {
        // Decided per network, as in `for_each`: one without parallel rules
        // runs `for_each`'s own loop.
        let tables = &self.net.successor_tables;
        match (tables.indexes.is_empty(), tables.has_parallel_rules) {
            (_, false) => self.for_each(state, emit),
            (true, true) => self.expand::<false, true>(state, emit),
            (false, true) => self.expand::<true, true>(state, emit),
        }
    }

    /// [`SuccessorGenerator::for_each`], looking up the cells of rule
    /// indexes if `INDEXED`, and combining each run of parallel rules once
    /// if `MERGED`.
    ///
    /// Not inlined: `for_each` and `for_each_merged` hold four copies of
    /// this loop, and inlined into them (and on into the engine's
    /// expansion) the loop calls `emit` from eight places, so the compiler
    /// stopped inlining the CPU engine's `emit` closure (hashing, prefetch
    /// and copy of each successor) and called it once a successor. Each
    /// copy as a function of its own calls `emit` from two places and
    /// takes the closure in, at the cost of one call a state (measured in
    /// `benches/results/2026-11-24-h100-aslink/bisect-cachegrind.md`).
    #[inline(never)]
    fn expand<const INDEXED: bool, const MERGED: bool>(
        &mut self,
        state: &[u32],
        mut emit: impl FnMut(Successor<'_>),
    ) -> Expansion {
        let net = self.net;
        let tables = &net.successor_tables;
        let mut seen = Expansion::default();
        self.next.copy_from_slice(state);
        for (&place, &base) in tables.places.iter().zip(&net.proc_offsets) {
            let local = place.get(state);
            let slot = tables.slots[(base + local) as usize];
            // The rules it checks one by one, then those in the cells
            // that this state selects in its rule indexes.
            let mut rules = slot.owned_start as usize..slot.owned_end as usize;
            let mut indexes = slot.indexes_start as usize..slot.indexes_end as usize;
            loop {
                let groups = &tables.owned[rules];
                let mut at = 0;
                while let Some(group) = groups.get(at) {
                    let copies = if MERGED { group.copies } else { 1 };
                    self.combine(state, place, group, copies, &mut seen, &mut emit);
                    at += copies as usize;
                }
                let Some(index) = indexes.next().filter(|_| INDEXED) else {
                    break;
                };
                let index = tables.indexes[index];
                let keys = &tables.keys[index.keys_start as usize..index.keys_end as usize];
                let cell: u32 = keys.iter().map(|k| k.place.get(state) * k.stride).sum();
                let [lo, hi] = tables.cells[(index.cells_start + cell) as usize];
                rules = lo as usize..hi as usize;
            }
            let independent =
                &net.transitions[2 * slot.independent_start as usize..2 * slot.end as usize];
            if independent.is_empty() {
                continue;
            }
            for entry in independent.as_chunks::<2>().0 {
                let [label, target] = *entry;
                place.set(&mut self.next, target & !ERROR_TARGET);
                seen.successors += 1;
                emit(Successor {
                    action: label & !INDEPENDENT,
                    state: &self.next,
                    error: target & ERROR_TARGET != 0,
                });
            }
            self.next[place.word] = state[place.word];
        }
        seen
    }

    /// Fires the rule of `group`, owned by the process at `owner`, if every
    /// other participant has entries for it; each successor counts as
    /// `copies` transitions (the group and its parallel copies).
    #[inline(always)]
    fn combine(
        &mut self,
        state: &[u32],
        owner: Place,
        group: &OwnedGroup,
        copies: u32,
        seen: &mut Expansion,
        emit: &mut impl FnMut(Successor<'_>),
    ) {
        let net = self.net;
        let tables = &net.successor_tables;
        self.picks.clear();
        self.picks.push(Pick {
            place: owner,
            lo: group.lo,
            hi: group.hi,
            at: group.lo,
        });
        let mut missing_monitor = false;
        for other in &tables.others[group.others_start as usize..group.others_end as usize] {
            let [lo, hi] = if other.rows == NO_TABLE {
                search_rule(
                    net,
                    other.process as usize,
                    other.place.get(state),
                    group.rule,
                )
            } else {
                let local = (state[other.place.word] & other.row_mask) >> other.place.shift;
                tables.lookup[(other.rows + local) as usize]
            };
            if lo == hi {
                if other.is_monitor {
                    missing_monitor = true;
                    continue;
                }
                return;
            }
            self.picks.push(Pick {
                place: other.place,
                lo,
                hi,
                at: lo,
            });
        }
        if missing_monitor {
            seen.monitor_blocked += copies as u64;
            return;
        }
        'combinations: loop {
            let mut error = false;
            for pick in &self.picks {
                let target = net.transitions[2 * pick.at as usize + 1];
                error |= target & ERROR_TARGET != 0;
                pick.place.set(&mut self.next, target & !ERROR_TARGET);
            }
            seen.successors += copies as u64;
            emit(Successor {
                action: group.action,
                state: &self.next,
                error,
            });
            // Next combination of nondeterministic choices (odometer).
            for pick in self.picks.iter_mut().rev() {
                pick.at += 1;
                if pick.at < pick.hi {
                    continue 'combinations;
                }
                pick.at = pick.lo;
            }
            break;
        }
        for pick in &self.picks {
            self.next[pick.place.word] = state[pick.place.word];
        }
    }
}

/// Entry range `[lo, hi)` of `rule` in local state `local` of `process`, by
/// binary search in the TransArray.
fn search_rule(net: &EncodedNetwork, process: usize, local: u32, rule: u32) -> [u32; 2] {
    let (start, end) = net.entry_range(process, local);
    let (entries, _) = net.transitions[2 * start..2 * end].as_chunks::<2>();
    let lo = entries.partition_point(|e| e[0] < rule);
    let hi = lo + entries[lo..].partition_point(|e| e[0] <= rule);
    [(start + lo) as u32, (start + hi) as u32]
}
