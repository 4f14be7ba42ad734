//! [`Csr`]: a directed graph in compressed sparse row form, the layout
//! that SCC, MEC and game kernels read, built once on the host and
//! uploaded as its two arrays.

use rayon::prelude::*;
use thiserror::Error;

use super::offsets::{self, OffsetsError};

/// The most states a graph here can have: state numbers are `u32`, so the
/// states `0..=u32::MAX - 1` can be named. `u32` halves the memory of every
/// target array (and the GPU bandwidth spent reading it) against `u64`;
/// edge counts, which grow faster, are `u64`.
pub const MAX_STATES: u64 = u32::MAX as u64;

/// Edges times rayon's threads from which [`Csr::transpose`] runs on
/// those threads, when there are several: 2^20 edges on 2 threads, 2^17
/// on 16. The parallel transpose makes more passes, which pay only when
/// spread wide enough. Preparing a parity game (validation and transpose;
/// medians of 9 or 15 runs, `benches/results/2026-12-03l-h200-parity-prepared/`)
/// of 10^5 vertices and 10^6 edges took 6.1-6.8 ms in parallel against
/// 10.6-12.1 in sequence on an H200 host with 16 cores (call B), but 7.8
/// against 4.0 ms on the 2-core machine (`prepare-2core.txt`); of
/// pgrand-200k-s11 (4·10^5 edges), 6.2-6.5 against 6.7-7.7 ms on 16 cores,
/// and on 2 cores the same both ways. A steady game of 6·10^6 edges gained
/// on 2 cores (see [`Csr::transpose_in_parallel`]).
const PARALLEL_TRANSPOSE_WORK: usize = 1 << 21;
/// Edges up to which [`Csr::transpose`] may run on rayon's threads: it
/// takes 8 bytes an edge more than the sequential one while it runs.
const PARALLEL_TRANSPOSE_MAX_EDGES: usize = 1 << 28;
/// Ranges of targets the parallel transpose sorts the edges into first,
/// at most.
const TRANSPOSE_BUCKETS: usize = 4096;

/// `offsets`' rows cut into about `count` ranges of about as many entries
/// each (fewer when rows are long).
fn source_chunks(offsets: &[u64], count: usize) -> Vec<std::ops::Range<usize>> {
    let rows = offsets::rows(offsets);
    let entries = offsets[rows];
    let mut chunks = Vec::with_capacity(count);
    let mut row = 0;
    for i in 1..=count as u64 {
        let end = if i == count as u64 {
            rows
        } else {
            offsets
                .partition_point(|&first| first < entries * i / count as u64)
                .min(rows)
        };
        if end > row {
            chunks.push(row..end);
            row = end;
        }
    }
    chunks
}

/// `slice` cut into consecutive pieces of `lengths`, which must add up to
/// at most its length.
fn split_into<T>(mut slice: &mut [T], lengths: impl IntoIterator<Item = usize>) -> Vec<&mut [T]> {
    lengths
        .into_iter()
        .map(|length| {
            let (piece, rest) = std::mem::take(&mut slice).split_at_mut(length);
            slice = rest;
            piece
        })
        .collect()
}

/// Why arrays do not form a [`Csr`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CsrError {
    /// The offsets do not delimit the targets.
    #[error("offsets {0}")]
    Offsets(#[from] OffsetsError),
    /// An edge names a state that is not in the graph.
    #[error("edge {from} -> {to} leaves the {states} states")]
    EdgeOutOfRange {
        /// Source state of the edge.
        from: u32,
        /// Target state of the edge.
        to: u32,
        /// States in the graph.
        states: u32,
    },
}

/// A directed graph on the states `0..states()`: the successors of state
/// `s` are `targets[offsets[s]..offsets[s + 1]]`.
///
/// The fields are public so that the arrays can be uploaded or written
/// as they are; data that did not come from [`Csr::from_edges`] or
/// [`Csr::transpose`] should pass [`Csr::validate`] before the accessors,
/// which index without checking, are used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    /// `states() + 1` entries, non-decreasing, from 0 to `targets.len()`.
    pub offsets: Vec<u64>,
    /// The successors of every state, state after state.
    pub targets: Vec<u32>,
}

impl Csr {
    /// Builds the graph on `states` states with the given edges
    /// `(source, target)`, by a counting sort on sources that keeps the
    /// order in which each source's edges were given. Fails if an edge
    /// names a state `>= states`.
    pub fn from_edges(
        states: u32,
        edges: impl IntoIterator<Item = (u32, u32)>,
    ) -> Result<Csr, CsrError> {
        let edges: Vec<(u32, u32)> = edges.into_iter().collect();
        check_edges(edges.iter().copied(), states)?;
        let mut targets = vec![0; edges.len()];
        let offsets = offsets::group_by_row(states, edges.iter().copied(), |slot, target| {
            targets[slot] = target
        });
        Ok(Csr { offsets, targets })
    }

    /// Number of states.
    pub fn states(&self) -> u32 {
        offsets::rows(&self.offsets) as u32
    }

    /// Number of edges.
    pub fn edge_count(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The successors of `state`, in their stored order. Panics if `state`
    /// is not below [`Csr::states`].
    pub fn successors(&self, state: u32) -> &[u32] {
        &self.targets[offsets::row_range(&self.offsets, state as usize)]
    }

    /// Every edge `(source, target)`, by increasing source, each source's
    /// edges in their stored order.
    pub fn edges(&self) -> impl DoubleEndedIterator<Item = (u32, u32)> + Clone + '_ {
        (0..self.states()).flat_map(move |source| {
            self.successors(source)
                .iter()
                .map(move |&target| (source, target))
        })
    }

    /// The reverse graph: an edge `t -> s` for every edge `s -> t`, each
    /// state's predecessors listed by increasing source (a source with
    /// parallel edges appears once per edge). So transposing twice gives
    /// back the graph with each successor list sorted.
    pub fn transpose(&self) -> Csr {
        let edges = self.targets.len();
        let threads = rayon::current_num_threads();
        if threads > 1
            && edges.saturating_mul(threads) >= PARALLEL_TRANSPOSE_WORK
            && edges <= PARALLEL_TRANSPOSE_MAX_EDGES
        {
            self.transpose_in_parallel()
        } else {
            self.transpose_in_sequence()
        }
    }

    /// [`Csr::transpose`] on one thread: a stable counting sort.
    fn transpose_in_sequence(&self) -> Csr {
        let mut targets = vec![0; self.targets.len()];
        let reversed = self.edges().map(|(source, target)| (target, source));
        let offsets = offsets::group_by_row(self.states(), reversed, |slot, source| {
            targets[slot] = source
        });
        Csr { offsets, targets }
    }

    /// [`Csr::transpose`] on rayon's threads, without atomics (a target
    /// with millions of predecessors, as in Oink's `counter_qpt` games,
    /// would serialise them) and in the same order: the targets are cut
    /// into [`TRANSPOSE_BUCKETS`] ranges; each chunk of sources counts its
    /// edges per range, then copies them, still by increasing source, into
    /// its own slice of the range's edges; each range is then grouped by
    /// target, a sequential stable counting sort over a few thousand
    /// targets. On 2 cores, priority promotion (which starts with a
    /// transpose) took 0.50-0.53 s instead of 0.54-0.61 s on a steady game
    /// of 10^6 vertices and 6·10^6 edges; on 16 cores no gain was shown
    /// (`benches/results/2026-12-02f-h200-parity-race/`).
    fn transpose_in_parallel(&self) -> Csr {
        let states = self.states() as usize;
        let edges = self.targets.len();
        let shift = (usize::BITS - (states / TRANSPOSE_BUCKETS).leading_zeros()) as usize;
        let buckets = (states >> shift) + 1;
        let chunks = source_chunks(&self.offsets, rayon::current_num_threads() * 4);
        let targets_of = |rows: &std::ops::Range<usize>| {
            &self.targets[self.offsets[rows.start] as usize..self.offsets[rows.end] as usize]
        };
        let counts: Vec<Vec<u64>> = chunks
            .par_iter()
            .map(|rows| {
                let mut count = vec![0u64; buckets];
                for &target in targets_of(rows) {
                    count[target as usize >> shift] += 1;
                }
                count
            })
            .collect();
        // The edges of each range, chunk after chunk: a slice per chunk
        // and range, handed to the chunk.
        let piece_lengths = (0..buckets).flat_map(|b| counts.iter().map(move |count| count[b]));
        let bucket_starts: Vec<u64> = std::iter::once(0)
            .chain((0..buckets).scan(0, |sum, b| {
                *sum += counts.iter().map(|count| count[b]).sum::<u64>();
                Some(*sum)
            }))
            .collect();
        let mut pairs = vec![0u64; edges];
        let mut slices: Vec<Vec<&mut [u64]>> = chunks.iter().map(|_| Vec::new()).collect();
        let pieces = split_into(&mut pairs, piece_lengths.map(|length| length as usize));
        for (i, piece) in pieces.into_iter().enumerate() {
            slices[i % chunks.len()].push(piece);
        }
        chunks
            .par_iter()
            .zip(slices)
            .for_each(|(rows, mut slices)| {
                let mut cursors = vec![0usize; buckets];
                for source in rows.clone() {
                    for &target in self.successors(source as u32) {
                        let bucket = target as usize >> shift;
                        slices[bucket][cursors[bucket]] = u64::from(target) << 32 | source as u64;
                        cursors[bucket] += 1;
                    }
                }
            });
        let mut targets = vec![0u32; edges];
        let mut offsets = vec![0u64; states + 1];
        offsets[states] = edges as u64;
        let regions = split_into(
            &mut targets,
            bucket_starts.windows(2).map(|w| (w[1] - w[0]) as usize),
        );
        offsets[..states]
            .par_chunks_mut(1 << shift)
            .zip(regions)
            .enumerate()
            .for_each(|(bucket, (offsets, region))| {
                let first = bucket << shift;
                let base = bucket_starts[bucket];
                let pairs = &pairs[base as usize..bucket_starts[bucket + 1] as usize];
                let mut cursors = vec![0u64; offsets.len()];
                for &pair in pairs {
                    cursors[(pair >> 32) as usize - first] += 1;
                }
                let mut sum = 0;
                for (offset, cursor) in offsets.iter_mut().zip(&mut cursors) {
                    *offset = base + sum;
                    sum += *cursor;
                    *cursor = sum - *cursor;
                }
                for &pair in pairs {
                    let cursor = &mut cursors[(pair >> 32) as usize - first];
                    region[*cursor as usize] = pair as u32;
                    *cursor += 1;
                }
            });
        Csr { offsets, targets }
    }

    /// Checks the arrays: offsets start at 0, never decrease and end at
    /// `targets.len()`; at most [`MAX_STATES`] states; every target is a
    /// state.
    pub fn validate(&self) -> Result<(), CsrError> {
        offsets::check(&self.offsets, self.targets.len(), MAX_STATES)?;
        let states = self.states();
        // Sources are rows, below `states` by construction: only the
        // targets need a look, in one flat scan (with the offsets'
        // check below, 16.1 ms became 0.99 ms on a game of 10^6 vertices:
        // benches/results/2026-12-02e-2core-validate/).
        match offsets::first_window(&self.targets, 1, |to| to[0] >= states) {
            Some(index) => {
                // The row holding the edge: the last state whose first
                // edge is at or before it.
                let from = self.offsets.partition_point(|&first| first <= index as u64) - 1;
                Err(CsrError::EdgeOutOfRange {
                    from: from as u32,
                    to: self.targets[index],
                    states,
                })
            }
            None => Ok(()),
        }
    }
}

/// Checks that every edge `(from, to)` joins two of `states` states.
fn check_edges(mut edges: impl Iterator<Item = (u32, u32)>, states: u32) -> Result<(), CsrError> {
    match edges.find(|&(from, to)| from >= states || to >= states) {
        Some((from, to)) => Err(CsrError::EdgeOutOfRange { from, to, states }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explicit::testing::assert_faults;
    use proptest::prelude::*;

    /// Edges of a small graph, sources given out of order.
    const EDGES: [(u32, u32); 5] = [(2, 0), (0, 1), (2, 3), (0, 2), (2, 1)];

    #[test]
    fn from_edges_groups_by_source_and_keeps_each_source_order() {
        let graph = Csr::from_edges(4, EDGES).unwrap();
        assert_eq!(graph.offsets, [0, 2, 2, 5, 5]);
        assert_eq!(graph.targets, [1, 2, 0, 3, 1]);
        assert_eq!(graph.states(), 4);
        assert_eq!(graph.edge_count(), 5);
        assert_eq!(graph.successors(1), [] as [u32; 0]);
        assert_eq!(graph.successors(2), [0, 3, 1]);
        assert_eq!(
            graph.edges().collect::<Vec<_>>(),
            [(0, 1), (0, 2), (2, 0), (2, 3), (2, 1)]
        );
        assert_eq!(graph.validate(), Ok(()));
    }

    #[test]
    fn transpose_lists_predecessors_by_increasing_source() {
        let reverse = Csr::from_edges(4, EDGES).unwrap().transpose();
        assert_eq!(reverse.offsets, [0, 1, 3, 4, 5]);
        assert_eq!(reverse.targets, [2, 0, 2, 0, 2]);
        assert_eq!(reverse.validate(), Ok(()));
    }

    #[test]
    fn the_parallel_transpose_equals_the_sequential_one() {
        // Random graphs with parallel edges, self-loops and states
        // without predecessors (a fixed linear congruential sequence).
        let mut seed = 12345u64;
        let mut next = |bound: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % bound) as u32
        };
        for states in [1u32, 2, 7, 100, 5000, 40_000] {
            let edges: Vec<(u32, u32)> = (0..4 * states)
                .map(|_| (next(u64::from(states)), next(u64::from(states) / 2 + 1)))
                .collect();
            let graph = Csr::from_edges(states, edges).unwrap();
            let parallel = graph.transpose_in_parallel();
            assert_eq!(parallel, graph.transpose_in_sequence(), "{states} states");
            assert_eq!(parallel.validate(), Ok(()));
        }
        // One target with every state's edge, as in counter_qpt.
        let hot = Csr::from_edges(
            50_000,
            (0..50_000).flat_map(|v| [(v, 0), (v, (v + 1) % 50_000)]),
        )
        .unwrap();
        assert_eq!(hot.transpose_in_parallel(), hot.transpose_in_sequence());
    }

    #[test]
    fn transposing_twice_gives_back_a_graph_with_sorted_successors() {
        let sorted = Csr::from_edges(3, [(0, 1), (0, 2), (1, 1), (2, 0), (2, 0)]).unwrap();
        assert_eq!(sorted.transpose().transpose(), sorted);
    }

    #[test]
    fn empty_graphs_are_graphs() {
        let none = Csr::from_edges(0, []).unwrap();
        assert_eq!(none.offsets, [0]);
        assert_eq!(none.validate(), Ok(()));
        assert_eq!(none.transpose(), none);
        let isolated = Csr::from_edges(2, []).unwrap();
        assert_eq!(isolated.offsets, [0, 0, 0]);
        assert_eq!(isolated.transpose(), isolated);
    }

    #[test]
    fn from_edges_refuses_states_outside_the_graph() {
        let message = |edges: [(u32, u32); 1]| Csr::from_edges(3, edges).unwrap_err().to_string();
        assert_eq!(message([(3, 0)]), "edge 3 -> 0 leaves the 3 states");
        assert_eq!(message([(0, 7)]), "edge 0 -> 7 leaves the 3 states");
    }

    #[test]
    fn validate_names_each_fault() {
        let valid = Csr::from_edges(2, [(0, 1), (1, 0)]).unwrap();
        assert_faults(
            &valid,
            Csr::validate,
            &[
                (
                    |g| g.offsets.clear(),
                    "offsets are empty; they need one entry more than there are rows",
                ),
                (|g| g.offsets[0] = 1, "offsets start at 1, not 0"),
                (|g| g.offsets[1] = 3, "offsets decrease at row 1: 3 then 2"),
                (
                    |g| g.targets.push(0),
                    "offsets end at 2, but there are 3 entries",
                ),
                (|g| g.targets[1] = 2, "edge 1 -> 2 leaves the 2 states"),
            ],
        );
    }

    #[test]
    fn an_edge_out_of_range_is_named_by_its_row_past_empty_rows() {
        // Rows 1 and 2 are empty; edge 2 is row 3's first.
        let graph = Csr {
            offsets: vec![0, 2, 2, 2, 4],
            targets: vec![1, 0, 9, 3],
        };
        assert_eq!(
            graph.validate(),
            Err(CsrError::EdgeOutOfRange {
                from: 3,
                to: 9,
                states: 4
            })
        );
    }

    /// Successor lists kept the naive way, to check [`Csr`] against.
    fn adjacency(states: u32, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let mut lists = vec![Vec::new(); states as usize];
        for &(source, target) in edges {
            lists[source as usize].push(target);
        }
        lists
    }

    /// The successor lists of `graph`, in the naive shape.
    fn lists_of(graph: &Csr) -> Vec<Vec<u32>> {
        (0..graph.states())
            .map(|state| graph.successors(state).to_vec())
            .collect()
    }

    /// Small graphs: a state count and edges between those states.
    fn graphs() -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
        (0u32..12).prop_flat_map(|states| {
            let edge = (0..states.max(1), 0..states.max(1));
            let edges = if states == 0 { 0..1 } else { 0..40 };
            (Just(states), proptest::collection::vec(edge, edges))
        })
    }

    proptest! {
        #[test]
        fn from_edges_and_transpose_match_adjacency_lists((states, edges) in graphs()) {
            let graph = Csr::from_edges(states, edges.iter().copied()).unwrap();
            prop_assert_eq!(graph.validate(), Ok(()));
            prop_assert_eq!(graph.edge_count(), edges.len() as u64);
            prop_assert_eq!(lists_of(&graph), adjacency(states, &edges));

            let reversed: Vec<(u32, u32)> = graph.edges().map(|(s, t)| (t, s)).collect();
            let transpose = graph.transpose();
            prop_assert_eq!(transpose.validate(), Ok(()));
            prop_assert_eq!(lists_of(&transpose), adjacency(states, &reversed));

            let mut sorted = adjacency(states, &edges);
            sorted.iter_mut().for_each(|list| list.sort_unstable());
            prop_assert_eq!(lists_of(&transpose.transpose()), sorted);
        }
    }
}
