//! Colouring's labels: the number each seed spreads, and back.
//!
//! Colouring spreads, forwards and backwards, the largest label of the
//! states that reach a state or that it reaches, and then reads the
//! labels of the states that labels name (`relax` and `jump`). Any
//! bijection of the state numbers that keeps 0 free (no label) will do;
//! which one decides how many times labels grow and where the named
//! states lie in memory:
//! - [`Labels::Numbers`]: a state's number plus one, as ECL-SCC labels.
//!   The named states are the largest-numbered ones, which lie together at
//!   the end of the label arrays (faster where the numbering is random:
//!   `docs/SCC.md`, "Labels").
//! - [`Labels::Scrambled`]: the number plus one through a bijection that
//!   looks random ([`scrambled`]). Needed where the numbers follow the
//!   graph: along the paths of a grid numbered row by row a plain label
//!   would grow on almost every step, and R-MAT's hubs have the smallest
//!   numbers.
//!
//! [`Labels::of`] (and the GPU's `edges_sample` kernel, on the same
//! sampled edges as [`mutual`]) chooses numbers unless the
//! sample shows a local numbering or hubs. The figures (colouring on the
//! CPU, both kinds side by side) are in `docs/SCC.md`, "Labels".

use crate::explicit::Csr;

use super::mutual;

/// How colouring labels its seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Labels {
    /// A state's number plus one.
    Numbers,
    /// A state's number plus one, scrambled ([`scrambled`]).
    Scrambled,
}

/// Sampled edges whose ends are numbered less than this apart are near.
pub const NEAR: u64 = 1 << 12;
/// Rows longer than this are a hub's.
pub const LONG_ROW: u64 = 32;
/// Scrambled labels where at least one sampled edge in this many starts
/// in a row longer than [`LONG_ROW`].
pub const HUB_SHARE: u64 = 16;

/// What a sample of a graph's edges shows about its numbering.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EdgeSample {
    /// Edges sampled.
    pub edges: u64,
    /// Of those, edges between states less than [`NEAR`] apart.
    pub near: u64,
    /// Of those, edges in a row longer than [`LONG_ROW`].
    pub from_hubs: u64,
}

impl Labels {
    /// The label that `state` spreads as a seed (never 0).
    pub fn of_state(self, state: u32) -> u32 {
        match self {
            Labels::Numbers => state + 1,
            Labels::Scrambled => scrambled(state),
        }
    }

    /// The state whose label is `label` (not 0).
    pub fn seed(self, label: u32) -> u32 {
        match self {
            Labels::Numbers => label - 1,
            Labels::Scrambled => unscrambled(label),
        }
    }

    /// The labels for a graph whose sampled edges show `sample`: numbers,
    /// unless at least half of the edges are near (a local numbering,
    /// such as a grid's) or one in [`HUB_SHARE`] leaves a hub.
    pub fn from_sample(sample: EdgeSample) -> Labels {
        // With no edge sampled, `local` holds.
        let local = sample.near * 2 >= sample.edges;
        let hubs = sample.from_hubs * HUB_SHARE >= sample.edges;
        if local || hubs {
            Labels::Scrambled
        } else {
            Labels::Numbers
        }
    }

    /// The labels for `graph`, by [`Labels::from_sample`] on the edges
    /// that [`mutual`] samples.
    pub fn of(graph: &Csr) -> Labels {
        Labels::from_sample(sample(graph))
    }

    /// The value of the kernels' `NUMBERED_LABELS` define.
    pub fn numbered_define(self) -> i64 {
        i64::from(self == Labels::Numbers)
    }
}

/// The sample of `graph`'s edges that [`Labels::of`] reads.
pub fn sample(graph: &Csr) -> EdgeSample {
    let edges = graph.edge_count();
    let mut sample = EdgeSample {
        edges: edges.min(mutual::SAMPLED_EDGES),
        ..EdgeSample::default()
    };
    for index in 0..sample.edges {
        let (source, target) = mutual::sampled_pair(graph, index);
        sample.near += u64::from(u64::from(source.abs_diff(target)) < NEAR);
        sample.from_hubs += u64::from(graph.successors(source).len() as u64 > LONG_ROW);
    }
    sample
}

/// A state's number plus one, scrambled by a bijection of `u32` that
/// keeps 0 at 0: two rounds of multiplying by an odd number and folding
/// the high half onto the low.
pub fn scrambled(state: u32) -> u32 {
    let mut x = (state + 1).wrapping_mul(SCRAMBLE_FIRST);
    x ^= x >> 16;
    x = x.wrapping_mul(SCRAMBLE_SECOND);
    x ^ (x >> 16)
}

/// The state whose [`scrambled`] label is `label` (not 0).
pub fn unscrambled(label: u32) -> u32 {
    let mut x = label ^ (label >> 16);
    x = x.wrapping_mul(SCRAMBLE_SECOND_INVERSE);
    x ^= x >> 16;
    x.wrapping_mul(SCRAMBLE_FIRST_INVERSE) - 1
}

/// The odd multipliers of [`scrambled`], and their inverses modulo 2^32.
pub const SCRAMBLE_FIRST: u32 = 0x7feb_352d;
/// See [`SCRAMBLE_FIRST`].
pub const SCRAMBLE_SECOND: u32 = 0x846c_a68b;
/// See [`SCRAMBLE_FIRST`].
pub const SCRAMBLE_FIRST_INVERSE: u32 = 0x1d69_e2a5;
/// See [`SCRAMBLE_FIRST`].
pub const SCRAMBLE_SECOND_INVERSE: u32 = 0x4302_1123;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::graphs;

    #[test]
    fn labels_are_bijections_that_keep_zero_free() {
        for labels in [Labels::Numbers, Labels::Scrambled] {
            let spread = (0..u32::MAX).step_by(65_537);
            for state in (0..1u32 << 20)
                .chain(spread)
                .chain(u32::MAX - 1000..u32::MAX)
            {
                let label = labels.of_state(state);
                assert_ne!(label, 0, "{labels:?} {state}");
                assert_eq!(labels.seed(label), state, "{labels:?}");
            }
        }
    }

    #[test]
    fn the_sample_keeps_grids_and_hubs_scrambled() {
        assert_eq!(
            Labels::of(&graphs::random_graph(100_000, 500_000, 1)),
            Labels::Numbers
        );
        assert_eq!(
            Labels::of(&graphs::permuted(&graphs::grid(300, 300, 0.5, 3), 7)),
            Labels::Numbers
        );
        assert_eq!(
            Labels::of(&graphs::grid(300, 300, 0.5, 3)),
            Labels::Scrambled
        );
        assert_eq!(
            Labels::of(&graphs::rmat(16, 1_000_000, 2)),
            Labels::Scrambled
        );
        // Fewer states than NEAR: every edge is near.
        assert_eq!(
            Labels::of(&graphs::random_graph(1000, 5000, 1)),
            Labels::Scrambled
        );
        assert_eq!(
            Labels::of(&graphs::random_graph(100_000, 0, 1)),
            Labels::Scrambled
        );
    }

    #[test]
    fn the_sample_counts_near_edges_and_hub_edges() {
        // 0 -> 1 .. 40 (a hub), 41 -> 41 + NEAR (far), 42 -> 43 (near).
        let far = 41 + NEAR as u32;
        let mut edges: Vec<(u32, u32)> = (1..=40).map(|t| (0, t)).collect();
        edges.extend([(41, far), (42, 43)]);
        let graph = Csr::from_edges(far + 1, edges).unwrap();
        assert_eq!(
            sample(&graph),
            EdgeSample {
                edges: 42,
                near: 41,
                from_hubs: 40
            }
        );
    }
}
