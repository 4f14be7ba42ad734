//! Directed graphs of the shapes that stress SCC algorithms: random
//! graphs, chains of cycles, long chains of components (forward-backward's
//! worst case), many self-loops, grids with random orientation, and R-MAT
//! graphs for benchmarks; every generator is deterministic in its seed.

use proptest::prelude::*;

use crate::explicit::Csr;

/// A small deterministic generator (SplitMix64): the same graphs on every
/// machine, without tying the tests to a crate's sequence.
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        crate::scc::cpu::mix(self.0)
    }

    /// A number below `bound` (> 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// `edges` edges between uniformly random states of `states` states.
pub fn random_graph(states: u32, edges: u64, seed: u64) -> Csr {
    let mut rng = SplitMix::new(seed);
    let list: Vec<(u32, u32)> = (0..if states == 0 { 0 } else { edges })
        .map(|_| {
            (
                rng.below(states as u64) as u32,
                rng.below(states as u64) as u32,
            )
        })
        .collect();
    Csr::from_edges(states, list).expect("edges between the states")
}

/// `count` cycles of `length` states, each linked to the next; with
/// `closed`, the last links back to the first, making one component.
pub fn chain_of_cycles(count: u32, length: u32, closed: bool) -> Csr {
    let states = count * length;
    let mut edges = Vec::new();
    for cycle in 0..count {
        let first = cycle * length;
        for i in 0..length {
            edges.push((first + i, first + (i + 1) % length));
        }
        if cycle + 1 < count {
            edges.push((first + length - 1, first + length));
        } else if closed && count > 1 {
            edges.push((first + length - 1, 0));
        }
    }
    Csr::from_edges(states, edges).expect("edges between the states")
}

/// `count` components of `size` states (each a ring both ways), linked
/// in a line, with edges skipping ahead from every component to a later
/// one: many components in one long chain.
pub fn component_chain(count: u32, size: u32, seed: u64) -> Csr {
    let mut rng = SplitMix::new(seed);
    let states = count * size;
    let mut edges = Vec::new();
    for component in 0..count {
        let first = component * size;
        for i in 0..size.saturating_sub(1) {
            edges.push((first + i, first + i + 1));
            edges.push((first + i + 1, first + i));
        }
        if component + 1 < count {
            let from = first + rng.below(size as u64) as u32;
            edges.push((from, first + size + rng.below(size as u64) as u32));
            let ahead = component + 1 + rng.below((count - component - 1) as u64) as u32;
            edges.push((from, ahead * size));
        }
    }
    Csr::from_edges(states, edges).expect("edges between the states")
}

/// `states` states, each with a self-loop, plus `extra` random edges.
pub fn self_loops(states: u32, extra: u64, seed: u64) -> Csr {
    let mut rng = SplitMix::new(seed);
    let mut edges: Vec<(u32, u32)> = (0..states).map(|s| (s, s)).collect();
    if states > 0 {
        edges.extend((0..extra).map(|_| {
            (
                rng.below(states as u64) as u32,
                rng.below(states as u64) as u32,
            )
        }));
    }
    Csr::from_edges(states, edges).expect("edges between the states")
}

/// A `width` × `height` grid whose neighbour pairs are joined one way
/// (either, at random) or, with probability `both`, both ways.
pub fn grid(width: u32, height: u32, both: f64, seed: u64) -> Csr {
    let mut rng = SplitMix::new(seed);
    let mut edges = Vec::new();
    let mut join = |a: u32, b: u32, edges: &mut Vec<(u32, u32)>| {
        if rng.chance(both) {
            edges.extend([(a, b), (b, a)]);
        } else if rng.chance(0.5) {
            edges.push((a, b));
        } else {
            edges.push((b, a));
        }
    };
    for y in 0..height {
        for x in 0..width {
            let state = y * width + x;
            if x + 1 < width {
                join(state, state + 1, &mut edges);
            }
            if y + 1 < height {
                join(state, state + width, &mut edges);
            }
        }
    }
    Csr::from_edges(width * height, edges).expect("edges between the states")
}

/// Makes one generated graph when called (a benchmark's graphs are made
/// one at a time, each dropped before the next).
pub type GraphMaker = Box<dyn Fn() -> Csr>;

/// The generated graphs of the SCC benchmarks (`scc_bench`,
/// `mutual_clusters`), by name, with every size divided by `scale` (1 for
/// the measured sizes): a random graph of 10^7 states and 5·10^7 edges,
/// R-MAT 2^22 with 6.4·10^7 edges, and a 3000² grid joined both ways
/// half of the time. Named by the sizes at `scale` 1.
pub fn benchmark_graphs(scale: u32) -> Vec<(&'static str, GraphMaker)> {
    vec![
        (
            "random-1e7-5e7",
            Box::new(move || random_graph(10_000_000 / scale, 50_000_000 / u64::from(scale), 1)),
        ),
        (
            "rmat-22-64m",
            Box::new(move || rmat(22 - scale.ilog2(), 64_000_000 / u64::from(scale), 2)),
        ),
        (
            "grid-3000-p0.5",
            Box::new(move || grid(3000 / scale.isqrt(), 3000 / scale.isqrt(), 0.5, 3)),
        ),
    ]
}

/// Each state's number of edges in and out (`[in, out]`), self-loops
/// aside: a state with none in or none out is one that trimming assigns.
pub fn in_out_degrees(graph: &Csr) -> Vec<[u32; 2]> {
    let mut degrees = vec![[0u32; 2]; graph.states() as usize];
    for (from, to) in graph.edges().filter(|&(from, to)| from != to) {
        degrees[to as usize][0] += 1;
        degrees[from as usize][1] += 1;
    }
    degrees
}

/// An R-MAT graph on `2^scale` states with `edges` edges (quadrant
/// probabilities 0.57, 0.19, 0.19, 0.05): skewed degrees, one giant
/// component and many small ones.
pub fn rmat(scale: u32, edges: u64, seed: u64) -> Csr {
    let mut rng = SplitMix::new(seed);
    let list: Vec<(u32, u32)> = (0..edges)
        .map(|_| {
            let (mut from, mut to) = (0u32, 0u32);
            for _ in 0..scale {
                let p = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let (down, right) = match p {
                    p if p < 0.57 => (0, 0),
                    p if p < 0.76 => (0, 1),
                    p if p < 0.95 => (1, 0),
                    _ => (1, 1),
                };
                from = from << 1 | down;
                to = to << 1 | right;
            }
            (from, to)
        })
        .collect();
    Csr::from_edges(1 << scale, list).expect("edges between the states")
}

/// `graph` with its states renumbered by a random permutation.
pub fn permuted(graph: &Csr, seed: u64) -> Csr {
    let mut rng = SplitMix::new(seed);
    let states = graph.states();
    let mut name: Vec<u32> = (0..states).collect();
    for i in (1..states as usize).rev() {
        name.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let edges = graph
        .edges()
        .map(|(from, to)| (name[from as usize], name[to as usize]));
    Csr::from_edges(states, edges.collect::<Vec<_>>()).expect("a permutation of the states")
}

/// Small graphs of every shape above, permuted or not.
pub fn graph_shapes() -> impl Strategy<Value = Csr> {
    let shape = prop_oneof![
        (1u32..60, 0u64..150, any::<u64>()).prop_map(|(n, m, s)| random_graph(n, m, s)),
        (1u32..8, 1u32..8, any::<bool>()).prop_map(|(k, l, c)| chain_of_cycles(k, l, c)),
        (1u32..30, 1u32..5, any::<u64>()).prop_map(|(k, size, s)| component_chain(k, size, s)),
        (1u32..30, 0u64..30, any::<u64>()).prop_map(|(n, m, s)| self_loops(n, m, s)),
        (1u32..9, 1u32..9, 0.0..1.0f64, any::<u64>()).prop_map(|(x, y, p, s)| grid(x, y, p, s)),
    ];
    (shape, any::<bool>(), any::<u64>()).prop_map(|(graph, permute, seed)| {
        if permute {
            permuted(&graph, seed)
        } else {
            graph
        }
    })
}
