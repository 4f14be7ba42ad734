//! Random parity games for property tests.

use proptest::prelude::*;

use crate::explicit::{Csr, ParityGame, Player};

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
