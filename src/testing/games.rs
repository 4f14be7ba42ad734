//! Parity games for tests and benchmarks: random ones for property
//! tests, and the propagation games of Bootsma's thesis.

use proptest::prelude::*;

use crate::explicit::{Csr, ParityGame, Player};
use crate::testing::graphs::SplitMix;

/// Random games of up to `max_vertices` vertices, every vertex with one
/// to three moves, priorities up to `max_priority`.
pub fn small_games(max_vertices: u32, max_priority: u32) -> impl Strategy<Value = ParityGame> {
    (1..=max_vertices).prop_flat_map(move |vertices| {
        let vertex = (
            0..=max_priority,
            any::<bool>(),
            proptest::collection::vec(0..vertices, 1..=3),
        );
        proptest::collection::vec(vertex, vertices as usize).prop_map(move |rows| {
            let edges = rows
                .iter()
                .enumerate()
                .flat_map(|(v, (_, _, moves))| moves.iter().map(move |&w| (v as u32, w)));
            ParityGame {
                priorities: rows.iter().map(|(p, _, _)| *p).collect(),
                owners: rows
                    .iter()
                    .map(|(_, odd, _)| if *odd { Player::Odd } else { Player::Even })
                    .collect(),
                edges: Csr::from_edges(vertices, edges.collect::<Vec<_>>()).unwrap(),
                names: Vec::new(),
            }
        })
    })
}

/// Games of [`small_games`] with heavy vertices added: a vertex that
/// about three vertices in four move to (a predecessor list longer than a
/// warp has lanes, from 33 vertices), and two hubs of 33 to 80 more
/// moves, a third of them into that vertex; moves repeat and measures
/// tie, which is where the GPU's lanes, each choosing among moves of its
/// own, must still break ties as the CPU does.
pub fn games_with_hubs(max_vertices: u32, max_priority: u32) -> impl Strategy<Value = ParityGame> {
    small_games(max_vertices, max_priority).prop_flat_map(|game| {
        let vertices = game.vertices();
        let hub = (
            0..vertices,
            proptest::collection::vec((0..3u8, 0..vertices), 33..=80),
        );
        (
            Just(game),
            0..vertices,
            proptest::collection::vec(0..4u8, vertices as usize),
            proptest::collection::vec(hub, 2),
        )
            .prop_map(|(game, sink, into_sink, hubs)| {
                let mut edges: Vec<(u32, u32)> = (0..game.vertices())
                    .flat_map(|v| game.edges.successors(v).iter().map(move |&w| (v, w)))
                    .collect();
                edges.extend(
                    (0..game.vertices())
                        .filter(|&v| into_sink[v as usize] != 0)
                        .map(|v| (v, sink)),
                );
                for (hub, moves) in hubs {
                    edges.extend(
                        moves
                            .into_iter()
                            .map(|(kind, w)| (hub, if kind == 0 { sink } else { w })),
                    );
                }
                ParityGame {
                    edges: Csr::from_edges(game.vertices(), edges)
                        .expect("moves between the game's vertices"),
                    ..game
                }
            })
    })
}

/// Owner and priority of every vertex, and the moves, as a game whose
/// successor lists are sorted (as the PGSolver reader keeps them).
fn game_of(rows: Vec<(Player, u32)>, mut moves: Vec<(u32, u32)>) -> ParityGame {
    let vertices = rows.len() as u32;
    moves.sort_unstable();
    ParityGame {
        owners: rows.iter().map(|&(owner, _)| owner).collect(),
        priorities: rows.iter().map(|&(_, priority)| priority).collect(),
        edges: Csr::from_edges(vertices, moves).expect("moves between the game's vertices"),
        names: Vec::new(),
    }
}

/// A random game, reproducibly from `seed`: each vertex in turn draws
/// between `min_degree` and `max_degree` distinct successors uniformly
/// (itself included), in the order drawn, then a priority in
/// `0..=max_priority` and an owner. `examples/parity_random.rs` writes
/// these games, so that a command names one game everywhere.
pub fn random_game(
    vertices: u32,
    max_priority: u32,
    min_degree: u32,
    max_degree: u32,
    seed: u64,
) -> ParityGame {
    assert!(
        vertices > 0 && 1 <= min_degree && min_degree <= max_degree && max_degree <= vertices,
        "need 1 <= min_degree <= max_degree <= vertices"
    );
    let mut random = SplitMix::new(seed);
    let mut offsets = Vec::with_capacity(vertices as usize + 1);
    offsets.push(0u64);
    let mut targets = Vec::new();
    let (mut priorities, mut owners) = (Vec::new(), Vec::new());
    for _ in 0..vertices {
        let degree =
            min_degree as usize + random.below(u64::from(max_degree - min_degree) + 1) as usize;
        let row = targets.len();
        while targets.len() - row < degree {
            let w = random.below(u64::from(vertices)) as u32;
            if !targets[row..].contains(&w) {
                targets.push(w);
            }
        }
        offsets.push(targets.len() as u64);
        priorities.push(random.below(u64::from(max_priority) + 1) as u32);
        owners.push(if random.below(2) == 0 {
            Player::Even
        } else {
            Player::Odd
        });
    }
    ParityGame {
        priorities,
        owners,
        edges: Csr { offsets, targets },
        names: Vec::new(),
    }
}

/// The standard propagation game of Bootsma's thesis (section 8.1), made
/// so that small progress measures must lift most vertices many times
/// whatever their order: a source (vertex 0, Even's, priority 0) with a
/// move into the first vertex of each of `paths` paths of `length`
/// vertices; a path's neighbours joined both ways; its last vertex
/// joined to the first of two targets (1 and 2, priorities 4 and 0, a
/// cycle Even wins). Paths alternate owners, Even first; Even's paths
/// have an odd priority (1 and 3 by turns), Odd's priority 2, so that no
/// player wins by staying in a path it owns. Path `p` holds the vertices
/// from `3 + p * length` on. Even wins everywhere. The thesis's
/// `prop50_1k` is `propagation_paths(50, 1000)` (50,003 vertices,
/// 100,002 moves); it leaves owners and priority values open, these are
/// ours.
pub fn propagation_paths(paths: u32, length: u32) -> ParityGame {
    assert!(paths > 0 && length > 0, "at least one path of one vertex");
    let first = |p: u32| 3 + p * length;
    let mut rows = vec![(Player::Even, 0), (Player::Even, 4), (Player::Even, 0)];
    let mut moves: Vec<(u32, u32)> = (0..paths).map(|p| (0, first(p))).collect();
    moves.extend([(1, 2), (2, 1)]);
    for p in 0..paths {
        let row = match p % 4 {
            0 => (Player::Even, 1),
            2 => (Player::Even, 3),
            _ => (Player::Odd, 2),
        };
        for i in 0..length {
            let v = first(p) + i;
            rows.push(row);
            if i > 0 {
                moves.push((v, v - 1));
            }
            moves.push((v, if i + 1 < length { v + 1 } else { 1 }));
        }
    }
    game_of(rows, moves)
}

/// The propagation tree of Bootsma's thesis (section 8.1): a complete tree
/// of `levels` levels and `fanout` children a vertex, in breadth-first
/// order from the root (vertex 0; `v`'s children are `v * fanout + 1 ..=
/// v * fanout + fanout`), parents and children joined both ways, and a
/// move from the last leaf to the first of two targets after the tree,
/// which move to each other. The root has priority 2, the other tree
/// vertices 1, the targets 0; Even owns every vertex and wins everywhere.
/// The thesis's `tprop21` is `propagation_tree(22, 2)` (4,194,305
/// vertices, 8,388,607 moves).
pub fn propagation_tree(levels: u32, fanout: u32) -> ParityGame {
    let nodes: u64 = (0..levels).map(|level| u64::from(fanout).pow(level)).sum();
    assert!(
        levels > 0 && fanout > 0 && nodes + 2 <= u64::from(u32::MAX),
        "a tree of at least one level and fewer than 2^32 - 2 vertices"
    );
    let nodes = nodes as u32;
    let mut rows = vec![(Player::Even, 1); nodes as usize];
    rows[0].1 = 2;
    rows.extend([(Player::Even, 0), (Player::Even, 0)]);
    let mut moves = Vec::with_capacity(2 * nodes as usize + 1);
    for v in 1..nodes {
        let parent = (v - 1) / fanout;
        moves.extend([(parent, v), (v, parent)]);
    }
    moves.extend([(nodes - 1, nodes), (nodes, nodes + 1), (nodes + 1, nodes)]);
    game_of(rows, moves)
}
