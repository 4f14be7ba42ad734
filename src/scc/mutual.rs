//! Contraction of mutual edges before colouring.
//!
//! Two states joined by edges both ways lie in one component, and so does
//! every cluster that chains of such pairs join. Colouring can run on the
//! clusters instead of the states: each cluster is stood for by its root
//! (its smallest state), an edge becomes an edge between the roots of its
//! ends (dropped inside a cluster), and each state takes its root's
//! component at the end. Graphs with many mutual edges shrink a lot (a
//! 3000² grid whose neighbour pairs are joined both ways half of the time:
//! 9·10^6 states into 8.8·10^5 clusters, 2.7·10^7 edges into 4.5·10^6
//! between clusters, `cargo run --release --example mutual_clusters`),
//! and their long paths through clusters go in a step;
//! graphs without them (most state spaces) pay only a sample of their
//! edges ([`worth_contracting`]). The GPU kernels
//! (`kernels/scc/scc.cu`, `mutual_*`) run the same rules.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use crate::explicit::Csr;

/// Edges from or to a state with a longer row are not looked at: a hub
/// would cost its whole row for each edge into it, and the thread that
/// goes through its row a look-up an edge (on R-MAT 2^22, joining hubs'
/// pairs took 197 ms on an H200). Pairs through hubs are rarely on the
/// long paths that contraction shortens.
pub const SCANNED_ROW: usize = 32;
/// Edges looked at, evenly spaced, to decide whether contraction pays.
pub const SAMPLED_EDGES: u64 = 4096;
/// Contraction pays when at least one sampled edge in this many has its
/// reverse.
pub const MUTUAL_SHARE: u64 = 16;

/// Whether `to`'s row holds an edge back to `from` (another state), both
/// rows at most [`SCANNED_ROW`] long.
pub fn has_reverse(graph: &Csr, from: u32, to: u32) -> bool {
    let back = graph.successors(to);
    from != to
        && graph.successors(from).len() <= SCANNED_ROW
        && back.len() <= SCANNED_ROW
        && back.contains(&from)
}

/// The edge that sample number `sample` of [`worth_contracting`] looks
/// at: every edge up to [`SAMPLED_EDGES`], else that many evenly spaced
/// (`edges_sample` in the kernels picks the same).
fn sampled_edge(edges: u64, sample: u64) -> u64 {
    if edges <= SAMPLED_EDGES {
        sample
    } else {
        sample * edges / SAMPLED_EDGES
    }
}

/// Whether contraction pays on a graph of `edges` edges, `mutual` of
/// whose sampled edges have their reverse: at least one in
/// [`MUTUAL_SHARE`] of the samples (the CPU's [`worth_contracting`] and
/// the GPU's count of `edges_sample` both decide by this).
pub fn pays(mutual: u64, edges: u64) -> bool {
    mutual > 0 && mutual * MUTUAL_SHARE >= edges.min(SAMPLED_EDGES)
}

/// The source and target of sampled edge number `sample` (below
/// `SAMPLED_EDGES` and the edge count), as `sampled_edge` picks it;
/// [`super::labels`] reads the same edges.
pub fn sampled_pair(graph: &Csr, sample: u64) -> (u32, u32) {
    let edge = sampled_edge(graph.edge_count(), sample);
    // The last state whose first edge is at or before `edge`.
    let source = graph.offsets.partition_point(|&first| first <= edge) - 1;
    (source as u32, graph.targets[edge as usize])
}

/// Whether at least one sampled edge in [`MUTUAL_SHARE`] has its reverse
/// ([`has_reverse`]).
pub fn worth_contracting(graph: &Csr) -> bool {
    let edges = graph.edge_count();
    let mutual = (0..edges.min(SAMPLED_EDGES))
        .filter(|&sample| {
            let (source, target) = sampled_pair(graph, sample);
            has_reverse(graph, source, target)
        })
        .count() as u64;
    pays(mutual, edges)
}

/// Each state's root: the smallest state that a chain of edges found both
/// ways ([`has_reverse`]) joins it to. A union-find on the current rayon
/// pool, each union hooking the larger root under the smaller by a
/// compare-and-swap, so roots only fall and a tree's root is its smallest
/// state.
pub fn roots(graph: &Csr) -> Vec<u32> {
    let parent: Vec<AtomicU32> = (0..graph.states()).map(AtomicU32::new).collect();
    (0..graph.states()).into_par_iter().for_each(|state| {
        for &next in graph.successors(state) {
            if has_reverse(graph, state, next) {
                join(&parent, state, next);
            }
        }
    });
    (0..graph.states())
        .into_par_iter()
        .map(|state| root_of(&parent, state))
        .collect()
}

/// The root of `state`'s tree.
fn root_of(parent: &[AtomicU32], mut state: u32) -> u32 {
    loop {
        let up = parent[state as usize].load(Relaxed);
        if up == state {
            return state;
        }
        state = up;
    }
}

/// Joins the trees of `a` and `b`: the larger root goes under the smaller.
fn join(parent: &[AtomicU32], a: u32, b: u32) {
    let (mut a, mut b) = (a, b);
    loop {
        a = root_of(parent, a);
        b = root_of(parent, b);
        if a == b {
            return;
        }
        let (low, high) = (a.min(b), a.max(b));
        if parent[high as usize]
            .compare_exchange(high, low, Relaxed, Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scc::reference;
    use proptest::prelude::*;

    /// 0 ⇄ 1 ⇄ 2 and 3 ⇄ 4 are joined; 5 ⇄ 6 is not, 5's row being longer
    /// than [`SCANNED_ROW`] (6 ⇄ 7 with 7's row as long is not either).
    #[test]
    fn roots_join_the_pairs_joined_both_ways() {
        let long = SCANNED_ROW as u32 + 1;
        let mut edges = vec![
            (0, 1),
            (1, 0),
            (2, 1),
            (1, 2),
            (3, 4),
            (4, 3),
            (6, 5),
            (6, 7),
        ];
        edges.extend((8..8 + long).map(|to| (5, to)));
        edges.extend((8..8 + long).map(|to| (7, to)));
        edges.push((7, 6));
        edges.push((5, 6));
        let graph = Csr::from_edges(8 + long, edges).unwrap();
        assert_eq!(graph.successors(5).len(), SCANNED_ROW + 2);
        let found = roots(&graph);
        assert_eq!(&found[..8], &[0, 0, 0, 3, 3, 5, 6, 7]);
        assert!(
            found[8..]
                .iter()
                .enumerate()
                .all(|(i, &r)| r == 8 + i as u32)
        );
        let short = Csr::from_edges(8, graph.edges().filter(|&(_, to)| to < 8)).unwrap();
        assert_eq!(roots(&short), [0, 0, 0, 3, 3, 5, 5, 5]);
    }

    #[test]
    fn contraction_pays_from_one_sampled_edge_in_sixteen() {
        // A cycle of 64 states with `mutual` of its edges doubled back.
        let cycle = |mutual: u32| {
            let forward = (0..64).map(|s| (s, (s + 1) % 64));
            let back = (0..mutual).map(|s| ((s + 1) % 64, s));
            Csr::from_edges(64, forward.chain(back)).unwrap()
        };
        // 64 + m edges, 2 m of them with their reverse.
        assert!(!worth_contracting(&cycle(0)));
        assert!(!worth_contracting(&cycle(2)));
        assert!(worth_contracting(&cycle(3)));
        let grid = crate::testing::graphs::grid(100, 100, 0.5, 1);
        assert!(worth_contracting(&grid));
        let random = crate::testing::graphs::random_graph(100_000, 500_000, 1);
        assert!(!worth_contracting(&random));
    }

    proptest! {
        /// A root's cluster lies in one component, and the root is its
        /// smallest state.
        #[test]
        fn clusters_lie_in_components(edges in proptest::collection::vec((0u32..30, 0u32..30), 0..90)) {
            let graph = Csr::from_edges(30, edges).unwrap();
            let components = reference::decompose(&graph);
            for (state, &root) in roots(&graph).iter().enumerate() {
                prop_assert!(root as usize <= state);
                prop_assert_eq!(components.of_state[root as usize], components.of_state[state]);
            }
        }
    }
}
