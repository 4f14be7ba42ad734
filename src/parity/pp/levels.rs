//! A level of a dominion's attractor drawn on several threads.
//!
//! The attractor of a dominion in the unsolved game is a breadth-first
//! search backwards over the moves: the vertices drawn while the queue
//! holds one level are the next level. A level of many vertices is cut
//! into chunks that threads take; each move into the level counts off
//! its start's moves left with an atomic subtraction, so that a vertex of
//! the opponent is drawn by the one thread that takes its count to 0, and
//! a vertex of the dominion's player by the thread whose exchange of its
//! region succeeds. The result does not hang on how the threads ran: the
//! level's vertices are drawn in ascending order rather than in the order
//! found, and a vertex of the player keeps the move to the vertex of the
//! level that stands first in the queue, the move the sequential loop
//! would keep (the first level drawn in parallel keeps the sequential
//! order's moves; later ones may differ from it, and win as well).
//!
//! On the random game of 10^5 vertices with 5 to 15 moves each
//! (`examples/parity_random.rs 100000 1000 5 15 7`), which the
//! self-loops and their attractors solve whole, each player's attractor
//! has two or three levels of 1.4·10^4 to 2.3·10^4 vertices. There, on an
//! H200 host's 16 cores, priority promotion took 0.0133 s by median
//! against 0.0209 s on one thread, and `--solver auto --engine cpu` took
//! the same generator's game of 10^6 vertices in 0.13 s against 0.37 s
//! before
//! (`benches/results/2026-12-04b-h200-pp-parallel-levels/`, call A).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use super::{DOMINION, FREE, SOLVED, Slot, row};
use crate::explicit::Player;
use crate::scc::cpu::AtomicOf;

/// A [`Slot`] whose fields the threads of a level share.
#[repr(C)]
pub(super) struct AtomicSlot {
    region: AtomicU32,
    open: AtomicU32,
}

// SAFETY: `Slot` and `AtomicSlot` are both `repr(C)` pairs of 32-bit
// fields in the same order, and `AtomicU32` has the size, alignment and
// bit validity of `u32`.
unsafe impl AtomicOf for AtomicSlot {
    type Plain = Slot;
}

/// Region of a vertex drawn in the level being drawn, [`DOMINION`] once
/// the level is done: a vertex of the player reached again in the level
/// still takes the move in ([`Level::draw`]'s `first_move`).
const DRAWN: u32 = DOMINION - 1;

/// Vertices of the queue a thread takes at a time.
const CHUNK: usize = 256;

/// What every thread of a level reads.
pub(super) struct Level<'a> {
    /// The game's owners.
    pub owners: &'a [Player],
    /// The predecessor lists.
    pub predecessor_offsets: &'a [u64],
    pub predecessor_targets: &'a [u32],
    /// The dominion's player.
    pub player: Player,
    /// Whether each free vertex drawn takes a move off its predecessors'
    /// moves to free vertices (`Slot::open`).
    pub count_open: bool,
}

impl Level<'_> {
    /// The predecessors of `u`.
    fn predecessors(&self, u: u32) -> &[u32] {
        &self.predecessor_targets[row(self.predecessor_offsets, u)]
    }

    /// Draws the vertices that the attractor takes for the moves into
    /// `queued`, the level standing in the zone from position `first`:
    /// gives them in ascending order, marked [`DOMINION`], and the highest
    /// region that lost one. Each vertex of the player drawn holds in `first_move` (all
    /// `u32::MAX` before) the least zone position of the vertices of
    /// `queued` it moves to; the caller turns that into its move and sets
    /// `first_move` back.
    pub(super) fn draw(
        &self,
        queued: &[u32],
        first: usize,
        slots: &[AtomicSlot],
        live: &[AtomicU32],
        first_move: &[AtomicU32],
    ) -> (Vec<u32>, Option<u32>) {
        let parts: Vec<(Vec<u32>, Option<u32>)> = queued
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(chunk, vertices)| {
                let mut drawn = Vec::new();
                let mut highest = None;
                for (i, &u) in vertices.iter().enumerate() {
                    let position = (first + chunk * CHUNK + i) as u32;
                    for &v in self.predecessors(u) {
                        let slot = &slots[v as usize];
                        let region = slot.region.load(Relaxed);
                        if region == DOMINION || region == SOLVED {
                            continue;
                        }
                        let players = self.owners[v as usize] == self.player;
                        if players {
                            // Every move in from this level counts, also
                            // those looked at after another thread drew it.
                            first_move[v as usize].fetch_min(position, Relaxed);
                            if region == DRAWN {
                                continue;
                            }
                        }
                        // A vertex of the opponent's count is exact: each
                        // of its moves into the attractor is counted off
                        // once, so only the last reaches 0. A vertex of the
                        // player is drawn at its first move in, and its
                        // count no longer matters.
                        let left = live[v as usize].fetch_sub(1, Relaxed).wrapping_sub(1);
                        if players {
                            if (slot.region)
                                .compare_exchange(region, DRAWN, Relaxed, Relaxed)
                                .is_err()
                            {
                                continue;
                            }
                        } else if left > 0 {
                            continue;
                        } else {
                            slot.region.store(DRAWN, Relaxed);
                        }
                        if region != FREE {
                            highest = highest.max(Some(region));
                        } else if self.count_open {
                            for &w in self.predecessors(v) {
                                slots[w as usize].open.fetch_sub(1, Relaxed);
                            }
                        }
                        drawn.push(v);
                    }
                }
                (drawn, highest)
            })
            .collect();
        let highest = parts.iter().filter_map(|&(_, highest)| highest).max();
        let mut drawn: Vec<u32> = parts.into_iter().flat_map(|(drawn, _)| drawn).collect();
        drawn.par_sort_unstable();
        for &v in &drawn {
            slots[v as usize].region.store(DOMINION, Relaxed);
        }
        (drawn, highest)
    }
}
