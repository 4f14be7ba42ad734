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
//!   once the tables' memory budget is spent).
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
//! The GPU engine reads the same tables, flattened into `u32` arrays
//! ([`FlatSuccessorTables`]), so both engines share one owner choice.

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

/// [`OtherParticipant::rows`] of a participant found by binary search.
const NO_TABLE: u32 = u32::MAX;

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
    /// `owned[owned_start..owned_end]`: the rules it owns and offers here.
    owned_start: u32,
    owned_end: u32,
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
}

/// A participant of a rule other than its owner.
#[derive(Debug, Clone, Copy)]
struct OtherParticipant {
    process: u32,
    place: Place,
    /// Index in `lookup` of the row of its local state 0, or [`NO_TABLE`].
    rows: u32,
    /// Whether it is the property monitor (its absence blocks the rule
    /// and is counted).
    is_monitor: bool,
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
    /// (`lo == hi`: the rule is not offered there).
    lookup: Vec<[u32; 2]>,
}

impl SuccessorTables {
    /// Builds the tables for `net`, with at most `max_rows` lookup rows and
    /// owners chosen by `owners`.
    pub(super) fn build(net: &EncodedNetwork, max_rows: usize, owners: OwnerChoice) -> Self {
        let places: Vec<Place> = net.layout.fields.iter().map(|&f| Place::new(f)).collect();
        let local_states = |p: usize| (net.proc_offsets[p + 1] - net.proc_offsets[p]) as usize - 1;
        let groups_of = |p: usize, s: usize| {
            let (start, end) = net.entry_range(p, s as u32);
            rule_groups(net, start, end)
        };

        // offered[r][i]: local states of participant i of rule r offering r.
        let mut offered: Vec<Vec<u32>> = (0..net.rule_count)
            .map(|r| vec![0; net.participants(r).len()])
            .collect();
        for p in 0..net.processes() {
            for s in 0..local_states(p) {
                for (rule, _, _) in groups_of(p, s) {
                    // Participants are sorted by process index.
                    let parts = net.participants(rule as usize);
                    if let Ok(i) = parts.binary_search(&(p as u32)) {
                        offered[rule as usize][i] += 1;
                    }
                }
            }
        }

        // Owner and other participants (most often absent first, so that a
        // disabled rule is usually recognised at the first look-up).
        let mut owner = vec![u32::MAX; net.rule_count];
        let mut others_range = vec![(0u32, 0u32); net.rule_count];
        let mut others = Vec::new();
        let mut rows = 0usize;
        // Row base of every tabled (rule, other participant).
        let mut row_base: HashMap<(u32, u32), u32> = HashMap::new();
        for (r, offered) in offered.iter().enumerate() {
            let parts = net.participants(r);
            let share =
                |i: usize| offered[i] as f64 / local_states(parts[i] as usize).max(1) as f64;
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
            for i in rest {
                let q = parts[i] as usize;
                let states = local_states(q);
                let tabled = rows + states <= max_rows.min(NO_TABLE as usize);
                others.push(OtherParticipant {
                    process: q as u32,
                    place: places[q],
                    rows: if tabled { rows as u32 } else { NO_TABLE },
                    is_monitor: is_monitor(i),
                });
                if tabled {
                    row_base.insert((r as u32, q as u32), rows as u32);
                    rows += states;
                }
            }
            others_range[r] = (start, others.len() as u32);
        }

        let mut lookup = vec![[0u32; 2]; rows];
        let mut slots = Vec::with_capacity(net.state_offsets.len());
        let mut owned = Vec::new();
        for p in 0..net.processes() {
            for s in 0..=local_states(p) {
                let owned_start = owned.len() as u32;
                if s == local_states(p) {
                    let end = net.state_offsets[net.proc_offsets[p] as usize + s];
                    slots.push(SlotPlan {
                        owned_start,
                        owned_end: owned_start,
                        independent_start: end,
                        end,
                    });
                    continue;
                }
                let (start, end) = net.entry_range(p, s as u32);
                let mut independent_start = start;
                for (rule, lo, hi) in groups_of(p, s) {
                    independent_start = hi;
                    let (others_start, others_end) = others_range[rule as usize];
                    if owner[rule as usize] as usize == p {
                        owned.push(OwnedGroup {
                            rule,
                            lo: lo as u32,
                            hi: hi as u32,
                            others_start,
                            others_end,
                            action: net.rule_actions[rule as usize],
                        });
                    } else if let Some(&base) = row_base.get(&(rule, p as u32)) {
                        lookup[base as usize + s] = [lo as u32, hi as u32];
                    }
                }
                slots.push(SlotPlan {
                    owned_start,
                    owned_end: owned.len() as u32,
                    independent_start: independent_start as u32,
                    end: end as u32,
                });
            }
        }
        SuccessorTables {
            places,
            slots,
            owned,
            others,
            lookup,
        }
    }

    /// Rows of the lookup tables in use.
    pub fn lookup_rows(&self) -> usize {
        self.lookup.len()
    }

    /// Whether every other participant of every rule has a lookup table
    /// (none is found by binary search).
    pub fn tables_every_participant(&self) -> bool {
        self.others.iter().all(|other| other.rows != NO_TABLE)
    }

    /// The same tables as plain `u32` arrays (see [`FlatSuccessorTables`]),
    /// for `net`, the network they were built for. `None` unless
    /// [`SuccessorTables::tables_every_participant`]: the flat form has no
    /// binary-search fallback.
    pub fn flatten(&self, net: &EncodedNetwork) -> Option<FlatSuccessorTables> {
        // Row bases and item words keep bit 31 for the kernel's flags.
        if !self.tables_every_participant()
            || self.lookup.len() > MONITOR_ROW as usize
            || self.others.len() > INDEPENDENT as usize
        {
            return None;
        }
        let mut flat = FlatSuccessorTables {
            item_offsets: Vec::with_capacity(self.slots.len()),
            items: Vec::new(),
            others: Vec::with_capacity(4 * self.others.len()),
            lookup: self.lookup.as_flattened().to_vec(),
            other_processes: self.others.iter().map(|o| o.process).collect(),
        };
        for slot in &self.slots {
            flat.item_offsets.push((flat.items.len() / 4) as u32);
            for group in &self.owned[slot.owned_start as usize..slot.owned_end as usize] {
                flat.items
                    .extend([group.others_start, group.lo, group.hi, group.others_end]);
            }
            let independent =
                &net.transitions[2 * slot.independent_start as usize..2 * slot.end as usize];
            for &[label, target] in independent.as_chunks::<2>().0 {
                flat.items.extend([label, target, 0, 0]);
            }
        }
        for other in &self.others {
            let field = net.layout.fields[other.process as usize];
            let monitor = if other.is_monitor { MONITOR_ROW } else { 0 };
            flat.others.extend([
                field.word,
                field.shift,
                field.mask() >> field.shift,
                other.rows | monitor,
            ]);
        }
        Some(flat)
    }
}

/// Set in the row base of a [`FlatSuccessorTables::others`] row whose
/// participant is the property monitor (the kernel's `MONITOR_BIT`).
pub const MONITOR_ROW: u32 = 1 << 31;

/// [`SuccessorTables`] as plain `u32` arrays, the layout the GPU kernel
/// (`kernels/explore.cu`) reads, so that both engines share one owner
/// choice and one set of tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatSuccessorTables {
    /// Indexed like [`EncodedNetwork::state_offsets`]: the items of local
    /// state `s` of process `p` are `item_offsets[proc_offsets[p] + s] ..
    /// item_offsets[proc_offsets[p] + s + 1]`.
    pub item_offsets: Vec<u32>,
    /// Four words per item, the rules the process owns there first: for
    /// such a rule, with its TransArray entries `lo .. hi`, `[first, lo,
    /// hi, end]`, its other participants being `others[first .. end]`;
    /// for an independent entry, `[INDEPENDENT | action, target, 0, 0]`.
    pub items: Vec<u32>,
    /// Four words per other participant of a rule: its field's word, shift
    /// and unshifted mask, and the index of its local state 0's row in
    /// `lookup`, with [`MONITOR_ROW`] set for the property monitor.
    pub others: Vec<u32>,
    /// Two words per row (a local state of one participant of one rule):
    /// the entry range `[lo, hi)` of the rule there (`lo == hi`: the rule
    /// is not offered).
    pub lookup: Vec<u32>,
    /// The process of each `others` row (for GPUexplore's shared-memory
    /// combination, where a thread reads the list of that process's thread).
    pub other_processes: Vec<u32>,
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
    pub fn for_each(&mut self, state: &[u32], mut emit: impl FnMut(Successor<'_>)) -> Expansion {
        let net = self.net;
        let tables = &net.successor_tables;
        let mut seen = Expansion::default();
        self.next.copy_from_slice(state);
        for (&place, &base) in tables.places.iter().zip(&net.proc_offsets) {
            let local = place.get(state);
            let slot = tables.slots[(base + local) as usize];
            for group in &tables.owned[slot.owned_start as usize..slot.owned_end as usize] {
                self.combine(state, place, group, &mut seen, &mut emit);
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
    /// other participant has entries for it.
    fn combine(
        &mut self,
        state: &[u32],
        owner: Place,
        group: &OwnedGroup,
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
            let local = other.place.get(state);
            let [lo, hi] = if other.rows == NO_TABLE {
                search_rule(net, other.process as usize, local, group.rule)
            } else {
                tables.lookup[other.rows as usize + local as usize]
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
            seen.monitor_blocked += 1;
            return;
        }
        'combinations: loop {
            let mut error = false;
            for pick in &self.picks {
                let target = net.transitions[2 * pick.at as usize + 1];
                error |= target & ERROR_TARGET != 0;
                pick.place.set(&mut self.next, target & !ERROR_TARGET);
            }
            seen.successors += 1;
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
