//! Multi-core SCC decomposition: the methods the GPU kernels run
//! ([`super::gpu`]), on CPU threads with atomics, so they are tested
//! without a GPU and are the default engine without one.
//!
//! **Colouring** ([`Method::Coloring`]) works on a list of edges, with two
//! labels per state: the largest label ([`Labels`]) of a state that
//! reaches it (`into`) and of a state it reaches (`out_of`). A round relaxes every
//! edge until no label grows, then a state whose two labels agree is in
//! the component of the state that label names; an edge is kept for the
//! next round only between two states left with the same pair of labels
//! (two states of one component always have the same pair), and the
//! states left restart from their own label. Labels name states, so an
//! edge also raises the labels of the states its endpoints' labels name
//! (`Signatures::relax`): what reaches a state's `into` state reaches
//! it, which carries labels across long paths in few passes.
//!
//! **Forward-backward** ([`Method::ForwardBackward`]) works on the live
//! states, split into partitions that no component crosses (initially
//! one), with the graph's transpose, in rounds of
//! 1. trimming: a live state with no live predecessor or no live
//!    successor in its partition is a component of its own;
//! 2. one pivot per partition (chosen by hashing the partition's key),
//!    whose label travels along the edges and against them inside the
//!    partition, pass by pass from the states whose label grew in the
//!    pass before; the states both reached from the pivot and reaching it
//!    form its component; the others split into partitions by which of
//!    the two they are in.
//!
//! Both methods hand a round that assigns few states (long chains of
//! small components) to Tarjan.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::labels::{Labels, scrambled, unscrambled};
use super::{Components, mutual, reference};
use crate::explicit::Csr;

/// How the rounds find components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Maximum-label propagation forwards and backwards over a list of
    /// edges, every live state a seed (as in Alabandi et al.'s ECL-SCC).
    #[default]
    Coloring,
    /// Forward-backward reachability from one pivot per partition, as in
    /// Wijs, Katoen and Bošnački's decomposition.
    ForwardBackward,
}

/// A state's representative before it is assigned one.
pub const UNASSIGNED: u32 = u32::MAX;
/// The partition key of an assigned state: no live partition has it (a
/// colouring key packs two different labels; hashed keys that hit it are
/// moved off it).
pub const ASSIGNED: u64 = u64::MAX;
/// Trimming passes per round at most: later ones rarely remove enough to
/// pay for a pass over the live states.
pub const TRIM_PASSES: usize = 8;

/// Which side of a [`race`] gave the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Finisher {
    /// Tarjan's algorithm, on one thread.
    Tarjan,
    /// The rounds of the method, on the other threads.
    Rounds,
}

/// The strongly connected components of `graph` on `threads` threads, and
/// which algorithm gave them: on one thread Tarjan's algorithm; on more,
/// Tarjan on one thread races the rounds of `method` on the others, and
/// the first to finish stops the other. The rounds win where they spread
/// well over the threads (large random graphs); Tarjan, which is linear and
/// touches each edge once, wins where the rounds need many passes. Memory:
/// both algorithms' arrays at once.
pub fn race(graph: &Csr, method: Method, threads: usize) -> (Components, Finisher) {
    if threads <= 1 {
        return (reference::decompose(graph), Finisher::Tarjan);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads - 1)
        .build()
        .expect("a thread pool of at least one thread");
    let stop = AtomicBool::new(false);
    let (rounds, tarjan) = std::thread::scope(|scope| {
        let tarjan = scope.spawn(|| {
            let found = reference::representatives_unless(graph, &stop);
            stop.store(true, Relaxed);
            found
        });
        let rounds = pool.install(|| self::rounds(graph, method, true, &stop));
        stop.store(true, Relaxed);
        (
            rounds,
            tarjan.join().expect("the Tarjan thread does not panic"),
        )
    });
    match (rounds, tarjan) {
        (Some(found), _) => (Components::from_representatives(&found), Finisher::Rounds),
        (None, Some(found)) => (Components::from_representatives(&found), Finisher::Tarjan),
        (None, None) => unreachable!("the side that stops the other has finished"),
    }
}

/// The strongly connected components of `graph` on `threads` threads (at
/// least 1), as [`race`] finds them.
pub fn decompose(graph: &Csr, method: Method, threads: usize) -> Components {
    race(graph, method, threads).0
}

/// Each state's component, named by one of its states, by the rounds of
/// `method` on the current thread pool (a stalled round hands the rest to
/// Tarjan).
pub fn representatives(graph: &Csr, method: Method) -> Vec<u32> {
    let never = AtomicBool::new(false);
    rounds(graph, method, true, &never).expect("never stopped")
}

/// [`representatives`] by rounds alone, without handing a stalled round
/// to Tarjan (as the GPU's colouring runs them), so that tests check the
/// rounds themselves against the reference.
pub fn representatives_by_rounds(graph: &Csr, method: Method) -> Vec<u32> {
    let never = AtomicBool::new(false);
    rounds(graph, method, false, &never).expect("never stopped")
}

/// [`representatives_by_rounds`] by colouring with the given `labels`
/// instead of those a sample of the edges chooses ([`Labels::of`]).
pub fn representatives_with_labels(graph: &Csr, labels: Labels) -> Vec<u32> {
    let never = AtomicBool::new(false);
    coloring(graph, labels, false, &never).expect("never stopped")
}

/// Colouring's rounds without an edge list, as the GPU runs them where it
/// regenerates each state's successors in every pass instead of storing
/// the edges (`kernels/explore/graph.cu`): a state keeps, as its key, its
/// pair of labels from the round before, and an edge joins two states only
/// while both are live with the same key. Each state's representative; the
/// executable specification of those kernels.
pub fn representatives_by_keyed_rounds(graph: &Csr) -> Vec<u32> {
    let never = AtomicBool::new(false);
    let signatures = Signatures::new(graph, Labels::Scrambled, &never);
    // Every state starts live in one part (no pair of labels is 0).
    let keys = atomics64(graph.states() as usize, 0);
    let mut round = 0u64;
    loop {
        round += 1;
        tracing::debug!(round, "SCC keyed colouring round (CPU)");
        signatures.propagate_keyed(graph, &keys);
        if signatures.split_keys(&keys) == 0 {
            break;
        }
    }
    signatures
        .into
        .par_iter()
        .map(|label| unscrambled(label.load(Relaxed)))
        .collect()
}

/// The rounds of `method` until every state is assigned or, with
/// `fall_back`, until one stalls; then Tarjan on the live states. `None`
/// once `stop` is seen set (between passes).
fn rounds(graph: &Csr, method: Method, fall_back: bool, stop: &AtomicBool) -> Option<Vec<u32>> {
    match method {
        Method::Coloring => coloring(graph, Labels::of(graph), fall_back, stop),
        Method::ForwardBackward => forward_backward(graph, fall_back, stop),
    }
}

/// Colouring's rounds with `labels`, on the clusters of mutual edges when
/// [`mutual::worth_contracting`] says so (each state then takes its
/// root's representative).
fn coloring(graph: &Csr, labels: Labels, fall_back: bool, stop: &AtomicBool) -> Option<Vec<u32>> {
    if !mutual::worth_contracting(graph) {
        return Signatures::new(graph, labels, stop).rounds(graph, None, fall_back, stop);
    }
    let roots = mutual::roots(graph);
    let signatures = Signatures {
        into: own_labels(graph, labels),
        out_of: own_labels(graph, labels),
        labels,
    };
    signatures.rounds(graph, Some(&roots), fall_back, stop)
}

/// Forward-backward rounds until every state is assigned or, with
/// `fall_back`, until one stalls; then Tarjan on the live states. `None`
/// once `stop` is seen set.
fn forward_backward(graph: &Csr, fall_back: bool, stop: &AtomicBool) -> Option<Vec<u32>> {
    let reverse = transpose(graph, stop);
    if stop.load(Relaxed) {
        return None;
    }
    let mut run = Rounds::new(graph, &reverse, stop);
    // Live states when the last round started (see [`stalled`]).
    let mut last_round_start = None;
    while !run.live.is_empty() {
        run.trim();
        let live = run.live.len() as u64;
        if stop.load(Relaxed) {
            return None;
        }
        if live == 0 || (fall_back && last_round_start.is_some_and(|start| stalled(start, live))) {
            break;
        }
        tracing::debug!(round = run.round, live, "SCC round (CPU)");
        last_round_start = Some(live);
        run.forward_backward_round();
        run.compact();
    }
    if stop.load(Relaxed) {
        return None;
    }
    let representative = run
        .representative
        .into_par_iter()
        .map(AtomicU32::into_inner)
        .collect();
    let partition = &run.partition;
    let is_live = |state: u32| partition[state as usize].load(Relaxed) != ASSIGNED;
    finish_with_tarjan(graph, &run.live, is_live, representative, stop)
}

/// `representative` with the components of the states of `live` (those
/// `is_live` accepts) filled in by Tarjan on the subgraph they induce, or
/// `None` once `stop` is seen set.
fn finish_with_tarjan(
    graph: &Csr,
    live: &[u32],
    is_live: impl Fn(u32) -> bool,
    mut representative: Vec<u32>,
    stop: &AtomicBool,
) -> Option<Vec<u32>> {
    let members = live.iter().copied();
    let finished = live.is_empty()
        || reference::representatives_among_unless(
            graph,
            members,
            is_live,
            &mut representative,
            stop,
        );
    finished.then_some(representative)
}

/// The reverse graph of `graph`, built on the current rayon pool's threads
/// (see `transpose`).
pub fn transposed(graph: &Csr) -> Csr {
    transpose(graph, &AtomicBool::new(false))
}

/// The reverse graph, built on the pool's threads (each state's
/// predecessors in no particular order, which no method depends on): by
/// parts with private counts where they take no more memory than the
/// edges (a part a thread), else by a shared [`CountingSort`]. Once
/// `stop` is set the states left are skipped, and the result is not a
/// transpose.
fn transpose(graph: &Csr, stop: &AtomicBool) -> Csr {
    let parts = rayon::current_num_threads();
    let (states, edges) = (graph.states() as usize, graph.targets.len());
    if edges <= u32::MAX as usize && parts.saturating_mul(states) <= edges {
        transpose_by_parts(graph, stop, parts)
    } else {
        transpose_by_counting_sort(graph, stop)
    }
}

/// [`transpose`] by a [`CountingSort`] of the edges by target: an atomic
/// add and an atomic subtract an edge, so that states whose edges share
/// a target (R-MAT's hubs) move its counter between the cores.
fn transpose_by_counting_sort(graph: &Csr, stop: &AtomicBool) -> Csr {
    let mut sort = CountingSort::new(graph.states() as usize);
    (0..graph.states()).into_par_iter().for_each(|state| {
        if stop.load(Relaxed) {
            return;
        }
        for &target in graph.successors(state) {
            sort.count(target as usize);
        }
    });
    let targets = zeroed_atomics::<AtomicU32>(sort.close_counts());
    (0..graph.states()).into_par_iter().for_each(|state| {
        if stop.load(Relaxed) {
            return;
        }
        for &target in graph.successors(state) {
            targets[sort.place(target as usize)].store(state, Relaxed);
        }
    });
    Csr {
        offsets: sort.into_offsets(),
        targets: into_plain(targets),
    }
}

/// [`transpose`] without atomic counters: the states are split into
/// `parts` runs of about equal edges, each run counts its edges' targets
/// in a private array, the arrays become each run's cursors (run by run,
/// within each target's range), and each run places its edges with them.
/// Takes `parts` times 4 bytes a state, and fewer than 2^32 edges. A
/// target's predecessors come run by run, each run's in state order.
fn transpose_by_parts(graph: &Csr, stop: &AtomicBool, parts: usize) -> Csr {
    let states = graph.states() as usize;
    let edges = graph.targets.len() as u64;
    let bounds: Vec<usize> = (0..=parts as u64)
        .map(|k| graph.offsets[..states].partition_point(|&o| o < edges * k / parts as u64))
        .collect();
    let run = |p: usize| (bounds[p]..bounds[p + 1]).map(|s| s as u32);
    let mut cursors: Vec<Vec<u32>> = (0..parts)
        .into_par_iter()
        .map(|p| {
            let mut counts = vec![0u32; states];
            for state in run(p) {
                if stop.load(Relaxed) {
                    break;
                }
                for &target in graph.successors(state) {
                    counts[target as usize] += 1;
                }
            }
            counts
        })
        .collect();
    let totals: Vec<u64> = (0..states)
        .into_par_iter()
        .map(|v| cursors.iter().map(|c| u64::from(c[v])).sum())
        .collect();
    let offsets = prefix_sums(totals);
    const CHUNK: usize = 1 << 14;
    let mut columns: Vec<_> = cursors.iter_mut().map(|c| c.chunks_mut(CHUNK)).collect();
    let chunks: Vec<Vec<&mut [u32]>> = (0..states.div_ceil(CHUNK))
        .map(|_| {
            columns
                .iter_mut()
                .map(|c| c.next().expect("a chunk"))
                .collect()
        })
        .collect();
    chunks
        .into_par_iter()
        .enumerate()
        .for_each(|(i, mut slices)| {
            for j in 0..slices[0].len() {
                let mut at = offsets[i * CHUNK + j];
                for slice in slices.iter_mut() {
                    let count = slice[j];
                    slice[j] = at as u32;
                    at += u64::from(count);
                }
            }
        });
    let targets = zeroed_atomics::<AtomicU32>(edges as usize);
    cursors
        .into_par_iter()
        .enumerate()
        .for_each(|(p, mut cursor)| {
            for state in run(p) {
                if stop.load(Relaxed) {
                    break;
                }
                for &target in graph.successors(state) {
                    let at = &mut cursor[target as usize];
                    targets[*at as usize].store(state, Relaxed);
                    *at += 1;
                }
            }
        });
    Csr {
        offsets,
        targets: into_plain(targets),
    }
}

/// A counting sort of items into buckets on the pool's threads, with one
/// array of atomic counters that serves in turn as the counts, the
/// cursors and the offsets, so that no copy of it is made: [`count`]
/// every item, [`close_counts`] (each counter becomes the end of its
/// bucket), then [`place`] every item again, which fills each bucket from
/// its end, so that each counter ends at the start of its bucket
/// ([`into_offsets`]). Items of one bucket land in no set order.
///
/// [`count`]: CountingSort::count
/// [`close_counts`]: CountingSort::close_counts
/// [`place`]: CountingSort::place
/// [`into_offsets`]: CountingSort::into_offsets
pub struct CountingSort {
    /// One counter per bucket, then the total.
    bounds: Vec<AtomicU64>,
}

impl CountingSort {
    /// A sort into `buckets` buckets, all empty.
    pub fn new(buckets: usize) -> CountingSort {
        CountingSort {
            bounds: zeroed_atomics(buckets + 1),
        }
    }

    /// Counts one item of `bucket`.
    pub fn count(&self, bucket: usize) {
        self.bounds[bucket].fetch_add(1, Relaxed);
    }

    /// Ends the counting: each counter becomes the end of its bucket in
    /// the sorted array, whose length this returns.
    pub fn close_counts(&mut self) -> usize {
        let mut ends = into_plain(std::mem::take(&mut self.bounds));
        inclusive_sums(&mut ends);
        let total = *ends.last().expect("a counter for the total") as usize;
        self.bounds = into_atomics(ends);
        total
    }

    /// The slot in the sorted array of one item of `bucket`; each bucket
    /// hands out as many slots as items were counted in it.
    pub fn place(&self, bucket: usize) -> usize {
        self.bounds[bucket].fetch_sub(1, Relaxed) as usize - 1
    }

    /// Where each bucket starts in the sorted array, then its length:
    /// once every counted item has been placed.
    pub fn into_offsets(self) -> Vec<u64> {
        into_plain(self.bounds)
    }
}

/// Values summed a block a task by [`prefix_sums`] and [`inclusive_sums`].
const SUM_BLOCK: usize = 1 << 16;

/// The exclusive prefix sums of `counts`, then their total, on the
/// current rayon pool (each block summed, the blocks' sums added up, then
/// each block's sums from its start).
pub fn prefix_sums(mut counts: Vec<u64>) -> Vec<u64> {
    counts.push(0);
    let starts = block_starts(&counts);
    counts
        .par_chunks_mut(SUM_BLOCK)
        .zip(starts)
        .for_each(|(block, mut total)| {
            for entry in block {
                let count = *entry;
                *entry = total;
                total += count;
            }
        });
    counts
}

/// Each of `values` plus those before it, in place, on the current rayon
/// pool, as [`prefix_sums`] does it.
fn inclusive_sums(values: &mut [u64]) {
    let starts = block_starts(values);
    values
        .par_chunks_mut(SUM_BLOCK)
        .zip(starts)
        .for_each(|(block, mut total)| {
            for entry in block {
                total += *entry;
                *entry = total;
            }
        });
}

/// The sum of the values before each block of [`SUM_BLOCK`] of `values`.
fn block_starts(values: &[u64]) -> Vec<u64> {
    let block_sums: Vec<u64> = values
        .par_chunks(SUM_BLOCK)
        .map(|block| block.iter().sum())
        .collect();
    let block_starts = block_sums.iter().scan(0, |total, &sum| {
        let start = *total;
        *total += sum;
        Some(start)
    });
    block_starts.collect()
}

/// An atomic type whose plain counterpart has the same size, alignment
/// and bit validity, so that a vector of one can take over the memory of
/// a vector of the other ([`into_atomics`], [`into_plain`]).
///
/// # Safety
/// `Self` and `Self::Plain` must have the same size, alignment and bit
/// validity.
pub unsafe trait AtomicOf: Sync {
    /// The plain type.
    type Plain: Copy + Default;
}

// SAFETY: the standard library documents each atomic type as having the
// same size and bit validity as its plain type; the alignment is checked
// in `reuse_vec`.
unsafe impl AtomicOf for AtomicBool {
    type Plain = bool;
}
// SAFETY: as above.
unsafe impl AtomicOf for AtomicU32 {
    type Plain = u32;
}
// SAFETY: as above.
unsafe impl AtomicOf for AtomicU64 {
    type Plain = u64;
}

/// The memory of `values` holding them as `To`s.
///
/// # Safety
/// `From` and `To` must have the same size, alignment and bit validity.
unsafe fn reuse_vec<From, To>(values: Vec<From>) -> Vec<To> {
    const {
        assert!(size_of::<From>() == size_of::<To>());
        assert!(align_of::<From>() == align_of::<To>());
    }
    let mut values = std::mem::ManuallyDrop::new(values);
    // SAFETY: the allocation is handed over whole with its length and
    // capacity, and it has the size and alignment that `Vec<To>` frees it
    // with; its values are valid `To`s by the caller's promise.
    unsafe { Vec::from_raw_parts(values.as_mut_ptr().cast(), values.len(), values.capacity()) }
}

/// `values` as atomics, in their own memory.
pub fn into_atomics<A: AtomicOf>(values: Vec<A::Plain>) -> Vec<A> {
    // SAFETY: `AtomicOf` promises the same size, alignment and bits.
    unsafe { reuse_vec(values) }
}

/// What `atomics` hold, in their own memory.
pub fn into_plain<A: AtomicOf>(atomics: Vec<A>) -> Vec<A::Plain> {
    // SAFETY: `AtomicOf` promises the same size, alignment and bits.
    unsafe { reuse_vec(atomics) }
}

/// `len` atomics holding 0 (or `false`), in memory the allocator hands
/// out zeroed: large blocks come zeroed from the kernel and are not
/// written before their first use.
pub fn zeroed_atomics<A: AtomicOf>(len: usize) -> Vec<A> {
    into_atomics(vec![A::Plain::default(); len])
}

/// `len` atomics holding `value`, made on the pool's threads (0 as
/// [`zeroed_atomics`] makes them).
pub fn atomics32(len: usize, value: u32) -> Vec<AtomicU32> {
    if value == 0 {
        return zeroed_atomics(len);
    }
    (0..len)
        .into_par_iter()
        .map(|_| AtomicU32::new(value))
        .collect()
}

/// `len` atomics holding `value`, made on the pool's threads (0 as
/// [`zeroed_atomics`] makes them).
pub fn atomics64(len: usize, value: u64) -> Vec<AtomicU64> {
    if value == 0 {
        return zeroed_atomics(len);
    }
    (0..len)
        .into_par_iter()
        .map(|_| AtomicU64::new(value))
        .collect()
}

/// A round that assigns fewer than one live state in this many has
/// stalled (long chains of small components, where each round finishes a
/// few): the rest then goes to the sequential reference, which is linear.
pub const STALLED_ROUND: u64 = 10;

/// Whether a round that started with `start` live states and left `live`
/// (after forward-backward, the trimming that follows it counted) has
/// stalled.
pub fn stalled(start: u64, live: u64) -> bool {
    (start - live) * STALLED_ROUND < start
}

/// The label of a state that has none (forward-backward: not reached).
const NO_LABEL: u32 = 0;

/// Pivot slots at most (forward-backward): partitions beyond this many
/// share slots, and those without a pivot wait for a later round.
pub const MAX_PIVOT_SLOTS: usize = 1 << 20;

/// The shared arrays of a decomposition in progress.
struct Rounds<'a> {
    graph: &'a Csr,
    /// The graph's transpose, along which backward labels travel.
    reverse: &'a Csr,
    /// Partition key of every state, [`ASSIGNED`] once it has a component.
    partition: Vec<AtomicU64>,
    /// The component of every assigned state, [`UNASSIGNED`] before.
    representative: Vec<AtomicU32>,
    /// Forward label: the largest [`scrambled`] label of a seed that reaches
    /// the state; also trimming's has-a-predecessor flag.
    forward: Vec<AtomicU32>,
    /// Backward label: the largest [`scrambled`] label of a seed the state reaches.
    backward: Vec<AtomicU32>,
    /// The pass in which a state was last put on the next forward and
    /// backward frontier, so that it is put there once.
    queued: [Vec<AtomicU32>; 2],
    /// Propagation passes so far (the stamp of `queued`).
    passes: u32,
    /// The live states.
    live: Vec<u32>,
    /// Rounds run, salting forward-backward's partition keys.
    round: u64,
    /// Set when the run is to stop (checked between passes).
    stop: &'a AtomicBool,
}

impl<'a> Rounds<'a> {
    fn new(graph: &'a Csr, reverse: &'a Csr, stop: &'a AtomicBool) -> Rounds<'a> {
        let states = graph.states() as usize;
        Rounds {
            graph,
            reverse,
            partition: atomics64(states, 0),
            representative: atomics32(states, UNASSIGNED),
            forward: atomics32(states, NO_LABEL),
            backward: atomics32(states, NO_LABEL),
            queued: [atomics32(states, 0), atomics32(states, 0)],
            passes: 0,
            live: (0..states as u32).into_par_iter().collect(),
            round: 0,
            stop,
        }
    }

    /// The neighbours of `state` in `graph` that are in its partition
    /// `key`, itself left out.
    fn partners<'g>(
        &'g self,
        graph: &'g Csr,
        state: u32,
        key: u64,
    ) -> impl Iterator<Item = u32> + 'g {
        graph
            .successors(state)
            .iter()
            .copied()
            .filter(move |&next| {
                next != state && self.partition[next as usize].load(Relaxed) == key
            })
    }

    /// Assigns `state` to the component of `representative`.
    fn assign(&self, state: u32, representative: u32) {
        self.representative[state as usize].store(representative, Relaxed);
        self.partition[state as usize].store(ASSIGNED, Relaxed);
    }

    /// Keeps only the live states in the work list.
    fn compact(&mut self) {
        let partition = &self.partition;
        self.live = self
            .live
            .par_iter()
            .copied()
            .filter(|&state| partition[state as usize].load(Relaxed) != ASSIGNED)
            .collect();
    }

    /// Up to [`TRIM_PASSES`] passes that make a component of every live
    /// state without a live predecessor or successor in its partition,
    /// while a pass removes at least one live state in a hundred.
    fn trim(&mut self) {
        // Each sweep skips its states once `stop` is set, and the caller
        // then returns without a result.
        let stop = self.stop;
        let stopped = || stop.load(Relaxed);
        for _ in 0..TRIM_PASSES {
            if stopped() {
                return;
            }
            let has_predecessor = &self.forward;
            self.live.par_iter().for_each(|&state| {
                if !stopped() {
                    has_predecessor[state as usize].store(0, Relaxed);
                }
            });
            self.live.par_iter().for_each(|&state| {
                if stopped() {
                    return;
                }
                let key = self.partition[state as usize].load(Relaxed);
                for next in self.partners(self.graph, state, key) {
                    // Read first: a hub's flag, once set, stays in every
                    // core's cache instead of moving at each store.
                    let flag = &has_predecessor[next as usize];
                    if flag.load(Relaxed) == 0 {
                        flag.store(1, Relaxed);
                    }
                }
            });
            self.live.par_iter().for_each(|&state| {
                if stopped() {
                    return;
                }
                let key = self.partition[state as usize].load(Relaxed);
                let alone = has_predecessor[state as usize].load(Relaxed) == 0
                    || self.partners(self.graph, state, key).next().is_none();
                if alone {
                    self.assign(state, state);
                }
            });
            if stopped() {
                return;
            }
            let before = self.live.len();
            self.compact();
            let removed = before - self.live.len();
            if removed == 0 || removed * 100 < self.live.len() {
                return;
            }
        }
    }

    /// Spreads the largest label along the edges (forward labels) and
    /// against them (backward labels) inside each partition, from the
    /// states of the two frontiers, until no label grows.
    fn propagate(&mut self, mut frontiers: [Vec<u32>; 2]) {
        while frontiers.iter().any(|f| !f.is_empty()) && !self.stop.load(Relaxed) {
            self.passes += 1;
            let stamp = self.passes;
            let run = &*self;
            let directions = [(run.graph, &run.forward), (run.reverse, &run.backward)];
            frontiers = [0, 1].map(|side| {
                let (graph, labels) = directions[side];
                let queued = &run.queued[side];
                frontiers[side]
                    .par_iter()
                    .fold(Vec::new, |mut next, &state| {
                        let key = run.partition[state as usize].load(Relaxed);
                        let label = run.jump(labels, state);
                        for target in run.partners(graph, state, key) {
                            // Read first, as in trimming: most edges
                            // bring no larger label.
                            let held = &labels[target as usize];
                            if held.load(Relaxed) < label
                                && held.fetch_max(label, Relaxed) < label
                                && queued[target as usize].swap(stamp, Relaxed) != stamp
                            {
                                next.push(target);
                            }
                        }
                        next
                    })
                    .reduce(Vec::new, |mut a, mut b| {
                        if a.len() < b.len() {
                            std::mem::swap(&mut a, &mut b);
                        }
                        a.extend(b);
                        a
                    })
            });
        }
    }

    /// The label of `state`, first raised to the label of the seed that
    /// its label names (what reaches that seed reaches `state`; what that
    /// seed reaches, `state` reaches): labels then cross long paths in
    /// few passes.
    fn jump(&self, labels: &[AtomicU32], state: u32) -> u32 {
        let label = labels[state as usize].load(Relaxed);
        if label == NO_LABEL {
            return label;
        }
        let jumped = labels[unscrambled(label) as usize].load(Relaxed);
        if jumped > label {
            labels[state as usize]
                .fetch_max(jumped, Relaxed)
                .max(jumped)
        } else {
            label
        }
    }

    /// One forward-backward round: one pivot per partition (the largest
    /// state hashed to its key's slot) is the only seed; the states both
    /// reached from it and reaching it form its component, the others
    /// split by which of the two they are in.
    fn forward_backward_round(&mut self) {
        self.round += 1;
        let slots = self.live.len().next_power_of_two().min(MAX_PIVOT_SLOTS);
        let pivots: Vec<AtomicU32> = (0..slots).map(|_| AtomicU32::new(0)).collect();
        let slot = |key: u64| (mix(key) as usize) & (slots - 1);
        let key_of = |state: u32| self.partition[state as usize].load(Relaxed);
        self.live.par_iter().for_each(|&state| {
            pivots[slot(key_of(state))].fetch_max(state + 1, Relaxed);
        });
        let seeds: Vec<u32> = self
            .live
            .par_iter()
            .copied()
            .filter(|&state| pivots[slot(key_of(state))].load(Relaxed) == state + 1)
            .collect();
        self.live.par_iter().for_each(|&state| {
            self.forward[state as usize].store(NO_LABEL, Relaxed);
            self.backward[state as usize].store(NO_LABEL, Relaxed);
        });
        seeds.par_iter().for_each(|&state| {
            self.forward[state as usize].store(scrambled(state), Relaxed);
            self.backward[state as usize].store(scrambled(state), Relaxed);
        });
        self.propagate([seeds.clone(), seeds]);
        let round = self.round;
        let key_of = |state: u32| self.partition[state as usize].load(Relaxed);
        self.live.par_iter().for_each(|&state| {
            let (into, out_of) = (
                self.forward[state as usize].load(Relaxed),
                self.backward[state as usize].load(Relaxed),
            );
            if into == out_of && into != NO_LABEL {
                self.assign(state, unscrambled(into));
            } else {
                let bits = u64::from(into != NO_LABEL) | (u64::from(out_of != NO_LABEL) << 1);
                let key = split_key(key_of(state), bits, round);
                self.partition[state as usize].store(key, Relaxed);
            }
        });
    }
}

/// Edges relaxed by one task before it looks at the others' progress: a
/// task repeats its slice until no label in it grows, as a GPU block does.
const EDGES_PER_TASK: usize = 1 << 12;

/// The two labels of every state in colouring: `into[s]` is the largest
/// label of a state known to reach `s`, `out_of[s]` of a state known to be
/// reached from `s` (each at least `s`'s own), within the part of the
/// graph the current edge list joins.
struct Signatures {
    into: Vec<AtomicU32>,
    out_of: Vec<AtomicU32>,
    labels: Labels,
}

/// Every state's own label.
fn own_labels(graph: &Csr, labels: Labels) -> Vec<AtomicU32> {
    (0..graph.states())
        .into_par_iter()
        .map(|state| AtomicU32::new(labels.of_state(state)))
        .collect()
}

impl Signatures {
    /// Every state's own label; `out_of` already raised over its
    /// successors (unless `stop` is set).
    fn new(graph: &Csr, labels: Labels, stop: &AtomicBool) -> Signatures {
        let own = |state: u32| labels.of_state(state);
        Signatures {
            labels,
            into: own_labels(graph, labels),
            out_of: (0..graph.states())
                .into_par_iter()
                .map(|state| {
                    // Once stopped, the labels are never read.
                    let successors = graph
                        .successors(state)
                        .iter()
                        .take_while(|_| !stop.load(Relaxed));
                    let successors = successors.map(|&t| own(t));
                    AtomicU32::new(successors.fold(own(state), u32::max))
                })
                .collect(),
        }
    }

    /// Rounds until every state is assigned or, with `fall_back`, until
    /// one stalls (Tarjan then takes the live states); each state's
    /// representative, or `None` once `stop` is seen set. With `roots`
    /// ([`mutual::roots`]), the rounds run on the roots and the edges
    /// between them (their `out_of` raised over those edges here), and
    /// each state takes its root's representative.
    fn rounds(
        self,
        graph: &Csr,
        roots: Option<&[u32]>,
        fall_back: bool,
        stop: &AtomicBool,
    ) -> Option<Vec<u32>> {
        let root = |state: u32| roots.map_or(state, |roots| roots[state as usize]);
        let mut edges: Vec<(u32, u32)> = (0..graph.states())
            .into_par_iter()
            .flat_map_iter(|state| {
                // Once stopped, the list is never read.
                let successors = if stop.load(Relaxed) {
                    [].iter()
                } else {
                    graph.successors(state).iter()
                };
                successors
                    .map(move |&next| (root(state), root(next)))
                    .filter(|&(from, to)| from != to)
            })
            .collect();
        if roots.is_some() {
            edges.par_iter().for_each(|&(from, to)| {
                self.out_of[from as usize].fetch_max(self.labels.of_state(to), Relaxed);
            });
        }
        let mut live: Vec<u32> = (0..graph.states())
            .into_par_iter()
            .filter(|&state| root(state) == state)
            .collect();
        let mut round = 0u64;
        while !stop.load(Relaxed) {
            round += 1;
            tracing::debug!(
                round,
                live = live.len(),
                edges = edges.len(),
                "SCC colouring round (CPU)"
            );
            self.propagate(&edges, stop);
            if stop.load(Relaxed) {
                return None;
            }
            edges = edges
                .into_par_iter()
                .filter(|&(from, to)| self.joined(from, to))
                .collect();
            let before = live.len() as u64;
            live = self.restart(&live);
            if live.is_empty() || (fall_back && stalled(before, live.len() as u64)) {
                break;
            }
        }
        if stop.load(Relaxed) {
            return None;
        }
        let representative: Vec<u32> = (0..graph.states())
            .into_par_iter()
            .map(|state| {
                self.labels
                    .seed(self.into[root(state) as usize].load(Relaxed))
            })
            .collect();
        let mut is_live = vec![false; representative.len()];
        for &state in &live {
            is_live[state as usize] = true;
        }
        // The members of the live clusters.
        if roots.is_some() {
            live = (0..graph.states())
                .filter(|&state| is_live[root(state) as usize])
                .collect();
            for &state in &live {
                is_live[state as usize] = true;
            }
        }
        let is_live = |state: u32| is_live[state as usize];
        finish_with_tarjan(graph, &live, is_live, representative, stop)
    }

    /// Relaxes `edges` until no label grows: each task repeats its slice
    /// until it is stable, and the passes repeat until one changes
    /// nothing anywhere (or `stop` is set).
    fn propagate(&self, edges: &[(u32, u32)], stop: &AtomicBool) {
        while !stop.load(Relaxed) {
            let grew = edges
                .par_chunks(EDGES_PER_TASK)
                .map(|slice| {
                    let mut grew = false;
                    while !stop.load(Relaxed)
                        && slice
                            .iter()
                            .fold(false, |any, &(from, to)| self.relax(from, to) | any)
                    {
                        grew = true;
                    }
                    grew
                })
                .reduce(|| false, |a, b| a | b);
            if !grew {
                return;
            }
        }
    }

    /// [`Self::propagate`] over the edges between live states with equal
    /// keys, found from each state's successors: sweeps over all states
    /// until one changes no label (the GPU's passes over generated edges
    /// do not repeat a block's share, which would generate its successors
    /// again).
    fn propagate_keyed(&self, graph: &Csr, keys: &[AtomicU64]) {
        let relax_from = |state: u32| {
            let key = keys[state as usize].load(Relaxed);
            if key == ASSIGNED {
                return false;
            }
            let jumped = self.jump(state);
            graph.successors(state).iter().fold(jumped, |grew, &next| {
                let joined = next != state && keys[next as usize].load(Relaxed) == key;
                (joined && self.relax(state, next)) | grew
            })
        };
        while (0..graph.states())
            .into_par_iter()
            .map(relax_from)
            .reduce(|| false, |a, b| a | b)
        {}
    }

    /// Raises `state`'s labels along the chain of the states they name,
    /// up to [`MAX_JUMPS`] steps: what reaches the state that `into` names
    /// reaches `state`, what the state that `out_of` names reaches is
    /// reached from it. Whether a label grew. Mirrored by `jump` in
    /// `kernels/scc/coloring.cuh`; where every pass generates the
    /// successors again, a few memory reads that save passes pay.
    fn jump(&self, state: u32) -> bool {
        let mut grew = false;
        for labels in [&self.into, &self.out_of] {
            let own = labels[state as usize].load(Relaxed);
            let mut label = own;
            for _ in 0..MAX_JUMPS {
                let named = labels[self.labels.seed(label) as usize].load(Relaxed);
                if named <= label {
                    break;
                }
                label = named;
            }
            if label > own {
                grew |= labels[state as usize].fetch_max(label, Relaxed) < label;
            }
        }
        grew
    }

    /// After a keyed round: a live state whose labels agree is assigned
    /// (its key [`ASSIGNED`]); the others take their pair of labels as
    /// their key and restart from their own label. The live states
    /// left.
    fn split_keys(&self, keys: &[AtomicU64]) -> usize {
        keys.par_iter()
            .enumerate()
            .filter(|(state, key)| {
                if key.load(Relaxed) == ASSIGNED {
                    return false;
                }
                let (into, out_of) = (&self.into[*state], &self.out_of[*state]);
                let pair = (into.load(Relaxed), out_of.load(Relaxed));
                if pair.0 == pair.1 {
                    key.store(ASSIGNED, Relaxed);
                    return false;
                }
                key.store(u64::from(pair.0) << 32 | u64::from(pair.1), Relaxed);
                let own = self.labels.of_state(*state as u32);
                into.store(own, Relaxed);
                out_of.store(own, Relaxed);
                true
            })
            .count()
    }

    /// Raises the labels that the edge `from -> to` shows too small:
    /// `reaching` (the larger of `from`'s `into` and that label's state's
    /// `into`) reaches both endpoints, and `reached` (the larger of `to`'s
    /// `out_of` and that label's state's `out_of`) is reached from both;
    /// the states that the endpoints' `into` labels name reach `reached`,
    /// and those their `out_of` labels name are reached from `reaching`.
    /// Whether a label grew. Mirrored by `relax` in `kernels/scc/coloring.cuh`.
    fn relax(&self, from: u32, to: u32) -> bool {
        let (into, out_of) = (&self.into, &self.out_of);
        let load = |labels: &[AtomicU32], state: u32| labels[state as usize].load(Relaxed);
        let raise = |labels: &[AtomicU32], state: u32, label: u32| {
            labels[state as usize].fetch_max(label, Relaxed) < label
        };
        let (from_into, from_out) = (load(into, from), load(out_of, from));
        let (to_into, to_out) = (load(into, to), load(out_of, to));
        let (own, seed) = (
            |state| self.labels.of_state(state),
            |label| self.labels.seed(label),
        );
        let mut reaching = from_into;
        if reaching != own(from) {
            reaching = reaching.max(load(into, seed(reaching)));
        }
        let mut reached = to_out;
        if reached != own(to) {
            reached = reached.max(load(out_of, seed(reached)));
        }
        let mut grew = false;
        if from_into < reaching {
            grew |= raise(into, from, reaching);
        }
        if to_into < reaching {
            grew |= raise(into, to, reaching);
        }
        if from_out < reached {
            grew |= raise(out_of, from, reached);
        }
        if to_out < reached {
            grew |= raise(out_of, to, reached);
        }
        // A state's labels are at least its own: only a label
        // below the new value can name a state that still needs it.
        for (k, label) in [from_into, to_into].into_iter().enumerate() {
            let state = seed(label);
            if label < reached && (k == 0 || label != from_into) && load(out_of, state) < reached {
                grew |= raise(out_of, state, reached);
            }
        }
        for (k, label) in [from_out, to_out].into_iter().enumerate() {
            let state = seed(label);
            if label < reaching && (k == 0 || label != from_out) && load(into, state) < reaching {
                grew |= raise(into, state, reaching);
            }
        }
        grew
    }

    /// Whether `from` and `to` are live with the same pair of labels
    /// (after a round: the edge may lie inside a component still to be
    /// found).
    fn joined(&self, from: u32, to: u32) -> bool {
        let pair = |state: u32| {
            (
                self.into[state as usize].load(Relaxed),
                self.out_of[state as usize].load(Relaxed),
            )
        };
        let (from_pair, to_pair) = (pair(from), pair(to));
        from_pair.0 != from_pair.1 && from_pair == to_pair
    }

    /// The states of `live` whose labels differ (not yet assigned), each
    /// restarted from its own label; the others keep the label of
    /// their component.
    fn restart(&self, live: &[u32]) -> Vec<u32> {
        live.par_iter()
            .copied()
            .filter(|&state| {
                let index = state as usize;
                let own = self.labels.of_state(state);
                let assigned = self.into[index].load(Relaxed) == self.out_of[index].load(Relaxed);
                if !assigned {
                    self.into[index].store(own, Relaxed);
                    self.out_of[index].store(own, Relaxed);
                }
                !assigned
            })
            .collect()
    }
}

/// Steps along the chain of named states that a colouring jump takes
/// at most (the kernels' `MAX_JUMPS`).
pub const MAX_JUMPS: u32 = 16;

/// A 64-bit mixing function (the finaliser of SplitMix64): pivot slots
/// and split partition keys from keys.
pub fn mix(mut key: u64) -> u64 {
    key = (key ^ (key >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    key = (key ^ (key >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    key ^ (key >> 31)
}

/// The key of the part of partition `key` whose states have reachability
/// `bits` after forward-backward round `round`. Two parts that draw the
/// same key merge, which is safe (no component is split) and only costs
/// a round; [`ASSIGNED`] is never drawn.
pub fn split_key(key: u64, bits: u64, round: u64) -> u64 {
    let split = mix(key ^ mix(bits + 1 + (round << 2)));
    if split == ASSIGNED { split - 1 } else { split }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn graphs() -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
        (1u32..40).prop_flat_map(|states| {
            let edge = (0..states, 0..states);
            (Just(states), proptest::collection::vec(edge, 0..120))
        })
    }

    /// Each state's predecessors, sorted: the transpose as a multiset of
    /// edges, whatever order its builder left them in.
    fn sorted_predecessors(transpose: &Csr) -> Vec<Vec<u32>> {
        (0..transpose.states())
            .map(|state| {
                let mut predecessors = transpose.successors(state).to_vec();
                predecessors.sort_unstable();
                predecessors
            })
            .collect()
    }

    proptest! {
        /// The transpose by parts (private counts) and by the shared
        /// counting sort hold the same edges, for any number of parts,
        /// and their offsets agree.
        #[test]
        fn the_transpose_by_parts_equals_the_counting_sorts((states, edges) in graphs(), parts in 1usize..5) {
            let graph = Csr::from_edges(states, edges.iter().copied()).unwrap();
            let never = AtomicBool::new(false);
            let by_parts = transpose_by_parts(&graph, &never, parts);
            let by_sort = transpose_by_counting_sort(&graph, &never);
            prop_assert_eq!(&by_parts.offsets, &by_sort.offsets);
            prop_assert_eq!(sorted_predecessors(&by_parts), sorted_predecessors(&by_sort));
            prop_assert_eq!(by_parts.targets.len(), edges.len());
        }
    }

    /// A race gives the reference partition whichever side wins, and a
    /// side that sees the stop flag gives nothing.
    #[test]
    fn a_race_gives_the_reference_and_stops_the_loser() {
        let chain = crate::testing::graphs::component_chain(20_000, 3, 6);
        for method in [Method::Coloring, Method::ForwardBackward] {
            for threads in [1, 2, 4] {
                assert_eq!(
                    race(&chain, method, threads).0,
                    reference::decompose(&chain)
                );
            }
            let stopped = AtomicBool::new(true);
            assert_eq!(rounds(&chain, method, true, &stopped), None);
        }
        assert_eq!(race(&chain, Method::Coloring, 1).1, Finisher::Tarjan);
        let stopped = AtomicBool::new(true);
        assert_eq!(reference::representatives_unless(&chain, &stopped), None);
    }

    proptest! {
        #[test]
        fn both_methods_give_the_reference_partition((states, edges) in graphs()) {
            let graph = Csr::from_edges(states, edges).unwrap();
            let expected = reference::decompose(&graph);
            for method in [Method::Coloring, Method::ForwardBackward] {
                for threads in [1, 3] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    let found = pool.install(|| representatives(&graph, method));
                    prop_assert_eq!(&Components::from_representatives(&found), &expected);
                }
                let by_rounds = representatives_by_rounds(&graph, method);
                prop_assert_eq!(&Components::from_representatives(&by_rounds), &expected);
                prop_assert_eq!(&decompose(&graph, method, 3), &expected);
            }
            let keyed = representatives_by_keyed_rounds(&graph);
            prop_assert_eq!(&Components::from_representatives(&keyed), &expected);
        }
    }
}
