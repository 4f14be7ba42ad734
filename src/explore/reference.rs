//! The reference engine: sequential breadth-first search with predecessor
//! links. Simple enough to trust; every other engine is checked against it.

use std::time::{Duration, Instant};

use hashbrown::HashTable;

use super::livelock::{FlatVectors, StateSpace};
use super::outcome::{self, Ending};
use super::{
    Completion, Exploration, Finding, FindingKind, Progress, SearchOptions, Storage, Trace,
};
use crate::encode::{EncodedNetwork, SuccessorGenerator, hash_words};
use crate::error::Error;
use crate::explicit::{Edge, GraphSink, LabelledGraphBuilder};

/// The engine's name in reports.
const ENGINE: &str = "reference (sequential BFS)";
/// Edges handed to a sink at once.
const EDGE_BATCH: usize = 4096;

/// Marks "no predecessor" (the initial state) in the predecessor array.
const NONE: u32 = u32::MAX;

/// Most states the store numbers: indices are `u32`, and [`NONE`] is taken.
const MAX_STATES: usize = NONE as usize;

/// Distinct vectors in discovery order; since discovery order is
/// breadth-first, the store doubles as the BFS queue.
struct Store {
    words: usize,
    vectors: Vec<u32>,
    table: HashTable<u32>,
    /// Predecessor index and action of each state (empty with `no_trace`).
    parents: Vec<(u32, u32)>,
    /// Most bytes the three collections may take together.
    limit: u64,
}

/// Whether [`Store::find_or_insert`] found the state, added it, or had no
/// room for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stored {
    Found(u32),
    Added(u32),
    Full,
}

impl Store {
    fn len(&self) -> usize {
        self.vectors.len() / self.words
    }

    fn get(&self, index: u32) -> &[u32] {
        vector_at(&self.vectors, self.words, index)
    }

    /// Index of `state`, whose hash is `hash`, if it is stored.
    fn find(&self, hash: u64, state: &[u32]) -> Option<u32> {
        self.table.find(hash, |&i| self.get(i) == state).copied()
    }

    /// Index of `state`, adding it when it is new and the store has room.
    fn find_or_insert(&mut self, state: &[u32], parent: (u32, u32), trace: bool) -> Stored {
        let hash = hash_words(state);
        if let Some(i) = self.find(hash, state) {
            return Stored::Found(i);
        }
        if !self.has_room(trace) {
            return Stored::Full;
        }
        let index = self.len() as u32;
        let (vectors, words) = (&self.vectors, self.words);
        self.table
            .insert_unique(hash, index, |&i| hash_words(vector_at(vectors, words, i)));
        self.vectors.extend_from_slice(state);
        if trace {
            self.parents.push(parent);
        }
        Stored::Added(index)
    }

    /// Bytes the stored states occupy: their vectors, table entries and
    /// predecessor records.
    fn state_bytes(&self) -> u64 {
        let states = self.len() as u64;
        states * (4 * self.words as u64 + 4) + std::mem::size_of_val(self.parents.as_slice()) as u64
    }

    fn memory_bytes(&self) -> u64 {
        Self::bytes(
            self.vectors.capacity(),
            self.table.capacity(),
            self.parents.capacity(),
        )
    }

    /// Bytes of collections of these capacities (the table's control bytes
    /// and spare buckets counted as one more byte an entry and an eighth).
    fn bytes(vector_words: usize, table_entries: usize, parents: usize) -> u64 {
        (vector_words * 4 + table_entries * 8 / 7 * (4 + 1) + parents * 8) as u64
    }

    /// Whether one more state fits: the state ids are not exhausted, and
    /// the collections, after the doubling that one more element may cause,
    /// stay within the limit.
    fn has_room(&self, trace: bool) -> bool {
        let grown = |capacity: usize, len: usize, more: usize| {
            if len + more > capacity {
                (2 * capacity).max(len + more)
            } else {
                capacity
            }
        };
        let vector_words = grown(self.vectors.capacity(), self.vectors.len(), self.words);
        let table_entries = grown(self.table.capacity(), self.table.len(), 1);
        let parents = if trace {
            grown(self.parents.capacity(), self.parents.len(), 1)
        } else {
            0
        };
        self.len() < MAX_STATES && Self::bytes(vector_words, table_entries, parents) <= self.limit
    }

    /// The path from the initial state to `index`.
    fn trace_to(&self, index: u32) -> Trace {
        let mut states = vec![self.get(index).to_vec()];
        let mut actions = Vec::new();
        let mut at = index;
        while self.parents[at as usize].0 != NONE {
            let (parent, action) = self.parents[at as usize];
            actions.push(action);
            states.push(self.get(parent).to_vec());
            at = parent;
        }
        states.reverse();
        actions.reverse();
        Trace { states, actions }
    }
}

/// Vector `index` of `vectors`, which holds vectors of `words` words one
/// after the other (a function of the fields, not of the [`Store`], so that
/// the table can rehash while it is borrowed mutably).
fn vector_at(vectors: &[u32], words: usize, index: u32) -> &[u32] {
    let at = index as usize * words;
    &vectors[at..at + words]
}

/// Explores the state space of `net` breadth-first.
pub fn explore(net: &EncodedNetwork, options: &SearchOptions) -> Exploration {
    search(net, options, |_, _, _| {}).0
}

/// Like [`explore`], and pushes every transition into `sink`, with states
/// numbered in discovery (breadth-first) order from 0, the initial state;
/// the sink is finished only when the search is complete.
pub fn explore_into(
    net: &EncodedNetwork,
    options: &SearchOptions,
    sink: &mut dyn GraphSink,
) -> Result<Exploration, Error> {
    Ok(search_into(net, options, sink)?.0)
}

/// Like [`explore`] and, after a complete search, its state space in
/// memory (`None` for an incomplete search), numbered as [`explore_into`]
/// numbers it, with the store's vectors: what the livelock check reads.
pub fn explore_space(
    net: &EncodedNetwork,
    options: &SearchOptions,
) -> Result<(Exploration, Option<StateSpace>), Error> {
    let mut builder = LabelledGraphBuilder::new(net.actions.clone());
    let (exploration, vectors) = search_into(net, options, &mut builder)?;
    let space = builder.into_graph().map(|graph| StateSpace {
        graph,
        vectors: Box::new(FlatVectors {
            words: net.words(),
            vectors,
        }),
    });
    Ok((exploration, space))
}

/// [`explore_into`], also giving back the vectors of the stored states,
/// one after the other in the sink's numbering.
fn search_into(
    net: &EncodedNetwork,
    options: &SearchOptions,
    sink: &mut dyn GraphSink,
) -> Result<(Exploration, Vec<u32>), Error> {
    let mut batch: Vec<Edge> = Vec::with_capacity(EDGE_BATCH);
    let mut failure = None;
    let (exploration, vectors) = search(net, options, |source, action, target| {
        // After a failure the sink takes nothing more (the search still
        // ends normally, so that its figures stay exact).
        if failure.is_some() {
            return;
        }
        batch.push((u64::from(source), action, u64::from(target)));
        if batch.len() == EDGE_BATCH {
            failure = sink.edges(&batch).err();
            batch.clear();
        }
    });
    if let Some(e) = failure {
        return Err(e.into());
    }
    sink.edges(&batch)?;
    if exploration.completion == Completion::Complete {
        sink.finish(exploration.states, exploration.transitions)?;
    }
    Ok((exploration, vectors))
}

/// The search, calling `on_edge(source, action, target)` for every
/// transition; gives back the stored vectors too, in discovery order.
fn search(
    net: &EncodedNetwork,
    options: &SearchOptions,
    mut on_edge: impl FnMut(u32, u32, u32),
) -> (Exploration, Vec<u32>) {
    let start = Instant::now();
    if let Some(exploration) = outcome::initial_error(net, options, ENGINE.to_string(), start) {
        return (exploration, net.initial.clone());
    }
    let trace = !options.no_trace;
    let mut store = Store {
        words: net.words(),
        vectors: Vec::new(),
        table: HashTable::new(),
        parents: Vec::new(),
        limit: options
            .memory_bytes
            .unwrap_or_else(crate::explore::cpu::default_memory_limit),
    };
    let mut result = Exploration {
        states: 0,
        transitions: 0,
        depth: 0,
        deadlocks: 0,
        errors: 0,
        monitor_blocked: 0,
        first: None,
        completion: Completion::Complete,
        elapsed: Duration::ZERO,
        memory_bytes: 0,
        storage: Storage::Plain,
        state_bytes: 0,
        engine: ENGINE.to_string(),
    };
    let mut error_states = hashbrown::HashSet::new();
    // The first finding is kept, unless a fatal one comes later.
    let record = |result: &mut Exploration, store: &Store, index: u32, kind: FindingKind| {
        if outcome::replaces(net, result.first.as_ref().map(|f| &f.kind), &kind) {
            result.first = Some(Finding {
                kind,
                state: store.get(index).to_vec(),
                trace: trace.then(|| store.trace_to(index)),
            });
        }
    };

    if store.find_or_insert(&net.initial, (NONE, NONE), trace) == Stored::Full {
        result.completion = Completion::TableFull;
        result.elapsed = start.elapsed();
        return (result, Vec::new());
    }

    let mut generator = SuccessorGenerator::new(net);
    let mut current = vec![0u32; net.words()];
    let mut level_end = 1usize;
    let mut next_progress = Duration::from_millis(500);
    let mut index = 0usize;
    let mut state_limit = false;
    let mut out_of_room = false;
    let mut interrupted = false;
    'search: while index < store.len() {
        if outcome::finding_ends(net, options, result.first.as_ref().map(|f| &f.kind)) {
            break;
        }
        if index == level_end {
            result.depth += 1;
            level_end = store.len();
        }
        if error_states.contains(&(index as u32)) {
            index += 1;
            continue;
        }
        current.copy_from_slice(store.get(index as u32));
        let parent = index as u32;
        let mut limit_hit = false;
        let mut full = false;
        let expansion = generator.for_each(&current, |s| {
            if limit_hit || full {
                return;
            }
            if options.max_states.is_some_and(|m| store.len() as u64 >= m) {
                // Only a lookup is allowed now; a new state would exceed the limit.
                limit_hit = store.find(hash_words(s.state), s.state).is_none();
                return;
            }
            let target = match store.find_or_insert(s.state, (parent, s.action), trace) {
                Stored::Found(target) => target,
                Stored::Added(target) => {
                    if s.error {
                        error_states.insert(target);
                        result.errors += 1;
                        let e = net
                            .error_in(s.state)
                            .expect("a successor flagged as error contains an error state");
                        record(&mut result, &store, target, FindingKind::Error(e));
                    }
                    target
                }
                Stored::Full => {
                    full = true;
                    return;
                }
            };
            on_edge(parent, s.action, target);
        });
        if limit_hit || full {
            state_limit = limit_hit;
            out_of_room = full;
            break 'search;
        }
        result.transitions += expansion.successors;
        result.monitor_blocked += expansion.monitor_blocked;
        if expansion.successors == 0 && options.check_deadlock {
            result.deadlocks += 1;
            record(&mut result, &store, parent, FindingKind::Deadlock);
        }
        index += 1;
        if !index.is_multiple_of(4096) {
            continue;
        }
        if options.stop.is_set() {
            interrupted = true;
            break;
        }
        if let Some(progress) = &options.progress
            && start.elapsed() >= next_progress
        {
            next_progress = start.elapsed() + Duration::from_millis(500);
            progress(&Progress {
                states: store.len() as u64,
                transitions: result.transitions,
                depth: result.depth,
                elapsed: start.elapsed(),
            });
        }
    }
    result.completion = Ending {
        finding_ends: outcome::finding_ends(net, options, result.first.as_ref().map(|f| &f.kind)),
        out_of_room,
        state_limit,
        interrupted,
    }
    .completion();
    result.states = store.len() as u64;
    result.elapsed = start.elapsed();
    result.memory_bytes = store.memory_bytes();
    result.state_bytes = store.state_bytes();
    (result, store.vectors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        ErrorKind, ErrorState, Lts, LtsTransition, Network, Participant, Process, SyncRule,
    };

    fn process(name: &str, states: usize, trans: &[(u32, &str, u32)]) -> Process {
        let mut lts = Lts {
            state_names: (0..states).map(|s| format!("{name}{s}")).collect(),
            ..Lts::default()
        };
        for &(source, label, target) in trans {
            let label = lts.intern_label(label);
            lts.transitions.push(LtsTransition {
                source,
                label,
                target,
            });
        }
        Process {
            name: name.to_string(),
            lts,
            error_states: vec![],
        }
    }

    /// A network of `p` alone, whose local state `state` is an error of
    /// kind `kind`.
    fn alone_with_error(mut p: Process, state: u32, kind: ErrorKind) -> Network {
        p.error_states.push(ErrorState { state, kind });
        Network {
            processes: vec![p],
            ..Network::default()
        }
    }

    fn sync(label: &str, processes: &[usize]) -> SyncRule {
        SyncRule {
            participants: processes
                .iter()
                .map(|&process| Participant {
                    process,
                    label: label.to_string(),
                })
                .collect(),
            result: label.to_string(),
        }
    }

    fn run(net: &Network, keep_going: bool) -> Exploration {
        let encoded = EncodedNetwork::new(net).unwrap();
        explore(
            &encoded,
            &SearchOptions {
                check_deadlock: true,
                keep_going,
                ..SearchOptions::default()
            },
        )
    }

    #[test]
    fn sync_then_independent_step_deadlocks() {
        // P: 0 -s-> 1 -x-> 0 ; Q: 0 -s-> 1. Reachable: (0,0) (1,1) (0,1).
        let net = Network {
            processes: vec![
                process("P", 2, &[(0, "s", 1), (1, "x", 0)]),
                process("Q", 2, &[(0, "s", 1)]),
            ],
            rules: vec![sync("s", &[0, 1])],
            ..Network::default()
        };
        let r = run(&net, true);
        assert_eq!(
            (r.states, r.transitions, r.deadlocks, r.depth),
            (3, 2, 1, 2)
        );
        let first = run(&net, false).first.unwrap();
        assert_eq!(first.kind, FindingKind::Deadlock);
        let trace = first.trace.unwrap();
        let encoded = EncodedNetwork::new(&net).unwrap();
        let names: Vec<&str> = trace
            .actions
            .iter()
            .map(|&a| encoded.actions[a as usize].as_str())
            .collect();
        assert_eq!(names, ["s", "x"]);
    }

    #[test]
    fn nondeterministic_sync_multiplies_targets() {
        // Both processes choose among two targets on `s`: 4 successors.
        let net = Network {
            processes: vec![
                process("P", 3, &[(0, "s", 1), (0, "s", 2)]),
                process("Q", 3, &[(0, "s", 1), (0, "s", 2)]),
            ],
            rules: vec![sync("s", &[0, 1])],
            ..Network::default()
        };
        let r = run(&net, true);
        assert_eq!((r.states, r.transitions, r.deadlocks), (5, 4, 4));
    }

    #[test]
    fn error_state_is_found_with_shortest_trace_and_not_expanded() {
        let net = alone_with_error(
            process(
                "P",
                3,
                &[(0, "a", 1), (1, "b", 2), (0, "c", 2), (2, "d", 0)],
            ),
            2,
            ErrorKind::Property("m".into()),
        );
        let r = run(&net, false);
        let f = r.first.unwrap();
        assert_eq!(f.kind, FindingKind::Error(0));
        assert_eq!(f.trace.unwrap().actions.len(), 1);
        let all = run(&net, true);
        assert_eq!(
            (all.states, all.transitions, all.errors, all.deadlocks),
            (3, 3, 1, 0)
        );
    }

    #[test]
    fn state_limit_stops_incomplete() {
        let net = Network {
            processes: vec![process("P", 4, &[(0, "a", 1), (1, "a", 2), (2, "a", 3)])],
            ..Network::default()
        };
        let encoded = EncodedNetwork::new(&net).unwrap();
        let r = explore(
            &encoded,
            &SearchOptions {
                max_states: Some(2),
                ..SearchOptions::default()
            },
        );
        assert_eq!(r.completion, Completion::StateLimit);
        assert_eq!(r.states, 2);
    }

    #[test]
    fn model_error_after_a_deadlock_ends_even_a_keep_going_search() {
        // 0 -a-> 1 (deadlock), 0 -b-> 2 -c-> 3 (model error), 3 -d-> 4.
        let net = alone_with_error(
            process(
                "P",
                5,
                &[(0, "a", 1), (0, "b", 2), (2, "c", 3), (3, "d", 4)],
            ),
            3,
            ErrorKind::Model("broken".into()),
        );
        let r = run(&net, true);
        assert_eq!(r.first.unwrap().kind, FindingKind::Error(0));
        assert_eq!(r.completion, Completion::StoppedAtFinding);
        assert_eq!((r.states, r.deadlocks), (4, 1));
    }
}
