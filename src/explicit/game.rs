//! [`ParityGame`]: a parity game as flat arrays, a priority and an owner
//! per vertex over a [`Csr`] of moves, the layout parity solvers read.

use thiserror::Error;

use super::csr::{Csr, CsrError};

/// The strategy entry of a vertex without a chosen move: one that its
/// owner does not win (solutions and solution files use it).
pub const NO_MOVE: u32 = u32::MAX;

/// One of the two players of a parity game. `#[repr(u8)]` so that an
/// owner array uploads as one byte a vertex: `Even` is 0, `Odd` is 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Player {
    /// The player who wins plays whose deciding priority is even.
    Even = 0,
    /// The player who wins plays whose deciding priority is odd.
    Odd = 1,
}

impl Player {
    /// The other player.
    pub fn opponent(self) -> Player {
        match self {
            Player::Even => Player::Odd,
            Player::Odd => Player::Even,
        }
    }

    /// The player a priority favours: `Even` for even priorities, `Odd`
    /// for odd ones.
    pub fn favoured_by(priority: u32) -> Player {
        if priority.is_multiple_of(2) {
            Player::Even
        } else {
            Player::Odd
        }
    }
}

/// Why arrays do not form a [`ParityGame`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    /// The moves do not form a graph.
    #[error("{0}")]
    Edges(#[from] CsrError),
    /// A per-vertex array has another length than there are vertices.
    #[error("{found} {what} for {vertices} vertices")]
    LengthMismatch {
        /// Which array.
        what: &'static str,
        /// Its length.
        found: usize,
        /// Vertices in the game.
        vertices: u32,
    },
    /// A vertex has no move: plays are infinite, so every vertex needs one.
    #[error("vertex {vertex}{} has no successor; every vertex of a parity game needs one", named(.name))]
    DeadEnd {
        /// The vertex.
        vertex: u32,
        /// Its name, where the game has one.
        name: Option<String>,
    },
}

/// ` (name)` for a named vertex, nothing for an unnamed one.
fn named(name: &Option<String>) -> String {
    name.as_ref()
        .map(|name| format!(" ({name})"))
        .unwrap_or_default()
}

/// A parity game on the vertices `0..vertices()`: vertex `v` has priority
/// `priorities[v]`, belongs to `owners[v]`, who picks its next vertex
/// among `edges.successors(v)`.
///
/// The fields are public for upload and export; a game should pass
/// [`ParityGame::validate`] before it is solved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParityGame {
    /// Priority of every vertex.
    pub priorities: Vec<u32>,
    /// Owner of every vertex.
    pub owners: Vec<Player>,
    /// The moves.
    pub edges: Csr,
    /// Vertex names as a game file gave them: empty when it gave none,
    /// otherwise one entry per vertex (`None` for an unnamed one).
    pub names: Vec<Option<String>>,
}

impl ParityGame {
    /// Number of vertices.
    pub fn vertices(&self) -> u32 {
        self.edges.states()
    }

    /// The highest priority, `None` for a game without vertices.
    pub fn max_priority(&self) -> Option<u32> {
        self.priorities.iter().copied().max()
    }

    /// The name of `vertex`, where the game names it.
    pub fn name(&self, vertex: u32) -> Option<&str> {
        self.names.get(vertex as usize)?.as_deref()
    }

    /// Checks the moves (see [`Csr::validate`]), one priority and one
    /// owner per vertex, names for none or for each vertex, and at least
    /// one move from every vertex.
    pub fn validate(&self) -> Result<(), GameError> {
        self.edges.validate()?;
        let vertices = self.vertices();
        let names = (!self.names.is_empty()).then_some(("names", self.names.len()));
        let per_vertex = [
            ("priorities", self.priorities.len()),
            ("owners", self.owners.len()),
        ];
        if let Some((what, found)) = per_vertex
            .into_iter()
            .chain(names)
            .find(|&(_, found)| found != vertices as usize)
        {
            return Err(GameError::LengthMismatch {
                what,
                found,
                vertices,
            });
        }
        // The offsets (valid by now) scanned for an empty row.
        match super::offsets::first_window(&self.edges.offsets, 2, |row| row[0] == row[1]) {
            Some(vertex) => Err(GameError::DeadEnd {
                vertex: vertex as u32,
                name: self.name(vertex as u32).map(str::to_owned),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explicit::testing::assert_faults;

    /// Vertex 0 (Even, priority 1) moves to 1 or 2; vertex 1 (Odd,
    /// priority 2) to 0; vertex 2 (Odd, priority 0) to itself.
    fn example() -> ParityGame {
        ParityGame {
            priorities: vec![1, 2, 0],
            owners: vec![Player::Even, Player::Odd, Player::Odd],
            edges: Csr::from_edges(3, [(0, 1), (0, 2), (1, 0), (2, 2)]).unwrap(),
            names: Vec::new(),
        }
    }

    #[test]
    fn players_alternate_and_upload_as_bytes() {
        assert_eq!(Player::Even.opponent(), Player::Odd);
        assert_eq!(Player::Odd.opponent(), Player::Even);
        assert_eq!(Player::favoured_by(4), Player::Even);
        assert_eq!(Player::favoured_by(7), Player::Odd);
        assert_eq!(std::mem::size_of::<Player>(), 1);
        assert_eq!([Player::Even as u8, Player::Odd as u8], [0, 1]);
    }

    #[test]
    fn a_total_game_is_valid() {
        let game = example();
        assert_eq!(game.validate(), Ok(()));
        assert_eq!(game.vertices(), 3);
        assert_eq!(game.max_priority(), Some(2));
        assert_eq!(game.name(0), None);
        let named = ParityGame {
            names: vec![Some("start".into()), None, None],
            ..example()
        };
        assert_eq!(named.validate(), Ok(()));
        assert_eq!(named.name(0), Some("start"));
        assert_eq!(named.name(1), None);
    }

    #[test]
    fn an_empty_game_is_valid() {
        let empty = ParityGame {
            priorities: Vec::new(),
            owners: Vec::new(),
            edges: Csr::from_edges(0, []).unwrap(),
            names: Vec::new(),
        };
        assert_eq!(empty.validate(), Ok(()));
        assert_eq!(empty.max_priority(), None);
    }

    #[test]
    fn validate_names_each_fault() {
        fn cut_loop(game: &mut ParityGame) {
            game.edges = Csr::from_edges(3, [(0, 1), (0, 2), (1, 0)]).unwrap();
        }
        assert_faults(
            &example(),
            ParityGame::validate,
            &[
                (
                    |g| g.edges.targets[3] = 3,
                    "edge 2 -> 3 leaves the 3 states",
                ),
                (|g| g.priorities.push(5), "4 priorities for 3 vertices"),
                (|g| g.owners.truncate(2), "2 owners for 3 vertices"),
                (|g| g.names = vec![None], "1 names for 3 vertices"),
                (
                    cut_loop,
                    "vertex 2 has no successor; every vertex of a parity game needs one",
                ),
                (
                    |g| {
                        cut_loop(g);
                        g.names = vec![None, None, Some("sink".into())];
                    },
                    "vertex 2 (sink) has no successor; every vertex of a parity game needs one",
                ),
            ],
        );
    }
}
