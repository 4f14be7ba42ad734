//! Priority promotion (Benerecetti, Dell'Erba and Mogavero, CAV 2016).
//!
//! A *region* of priority `p` is the attractor, for the player `α` that
//! `p` favours, of the free vertices of priority `p`, taken among the
//! vertices not in a region of higher priority. Every vertex of a region
//! has a priority no higher than the region's, so a play that stays in
//! the region and visits its vertices of priority `p` again and again is
//! won by `α`.
//!
//! The search builds regions from the highest priority down. A region is
//! *open* when the opponent can move from it to a free vertex, or a
//! vertex of `α` of priority `p` has no move into it: then the next
//! region is built at the highest priority left among the free vertices.
//! A *closed* region can only be left by the opponent, into regions of
//! higher priority. If it cannot be left at all it is a dominion: `α`
//! wins it and its attractor in the whole unsolved game, which are
//! removed; the regions above the highest one it takes vertices from are
//! kept, and the highest of those is tested again (should one of them be
//! open with no free vertex left below, every region is freed and the
//! search starts again at the top). Otherwise it is
//! *promoted*: merged into the lowest region `q` it can escape to (whose
//! player is `α` too), the regions between are freed, and region `q` is
//! extended to the attractor of its vertices and the merged ones, then
//! tested again.
//!
//! `α` keeps the moves that drew its vertices into each region, and its
//! vertices of the region's priority move to any vertex of the region; a
//! dominion's strategy is made of those, and they win it: a play either
//! settles in a region merged into it, won by induction, or passes
//! through the dominion's own vertices of its priority again and again.
//!
//! Everything is flat arrays: the regions form a stack of vertex lists,
//! and each vertex counts its moves to vertices that are free or not yet
//! drawn from the attractor's queue, so that a vertex of the opponent is
//! drawn in when its count reaches 0 and a region is open exactly when
//! one of the opponent's vertices in it has a count above 0. Each vertex
//! also counts its moves to unsolved vertices, which only the attractors
//! of dominions in the unsolved game count down: it is never recounted,
//! so such an attractor looks at the moves into it and at no vertex's
//! moves out.
//!
//! Before the first region, each player's vertices that move to
//! themselves on a priority their owner wins are solved with their
//! attractor, as Oink's preprocessing does: the owner can stay there for
//! ever. On random games, which have such vertices, that solves much of
//! the game in one pass (`rngame 1000000 100 1 3`: 494,195 of 10^6
//! vertices; `benches/results/2026-12-03k-2core-pp-self-loops/`).
//!
//! The attractors of dominions, these included, go level by level, and
//! threads ([`SolveOptions::threads`]) draw the levels of 1,024 vertices
//! or more together (`pp/levels.rs`); the solution is the same on any number
//! of threads.
//!
//! A query looks at the region's *seeds* only (its vertices of its
//! priority, with which it was built), not at the whole region: a vertex
//! of the opponent drawn in by the attractor can move only into the
//! region and regions above it, and it keeps those moves for as long as
//! the region stands, since a region above is only ever freed or solved
//! with every region below it. So the region keeps the lowest region its
//! other vertices can escape to, counted once for each vertex, when a
//! query first finds the seeds closed. A promotion looks for vertices to
//! draw in among those that it freed, the only ones that can have become
//! attracted: the others were free when both regions were built.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::{Solution, SolveError, SolveOptions, Watch, compress_priorities};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, ParityGame, Player};
use crate::scc::cpu::{atomics32, into_atomics, into_plain};

mod levels;

/// Region of a vertex in no region.
const FREE: u32 = u32::MAX;
/// Region of a solved vertex.
const SOLVED: u32 = u32::MAX - 1;
/// Region of a dominion while its attractor in the unsolved game grows.
const DOMINION: u32 = u32::MAX - 2;

/// Solves `game` (validated, preprocessed or not) by priority promotion;
/// `predecessors` are its predecessor lists (`game.edges.transpose()`).
pub fn solve(
    game: &ParityGame,
    predecessors: &Csr,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    solve_drawing_levels_from(game, predecessors, options, PARALLEL_LEVEL)
}

/// [`solve`], drawing the levels of `parallel_level` vertices or more of
/// the dominions' attractors on `options.threads` threads.
fn solve_drawing_levels_from(
    game: &ParityGame,
    predecessors: &Csr,
    options: &SolveOptions,
    parallel_level: usize,
) -> Result<Solution, SolveError> {
    let mut run = Promotion::new(game, predecessors);
    run.threads = options.thread_count();
    run.parallel_level = parallel_level;
    let mut watch = Watch::new(options, "queries");
    run.search(&mut watch)?;
    Ok(Solution {
        winners: run.winners,
        strategy: run.strategy,
    })
}

/// Whether `targets[start..start + moves]` holds `v`. The first
/// [`UNROLLED_MOVES`] places are compared without a branch on the row's
/// length (the moves of the next rows stand behind it in `targets`), which
/// random games make unpredictable: on pgrand-200k-s11 (1 to 3 moves a
/// vertex) counting the moves and finding the self-loops took 0.52-0.55
/// ms with it and 1.15-1.20 ms by a plain `contains`, on the 2-core
/// machine (timed inside `Promotion::new`, five processes each).
fn has_move_to(targets: &[u32], start: usize, moves: usize, v: u32) -> bool {
    let mut found = false;
    for i in 0..UNROLLED_MOVES {
        found |= (i < moves) & (targets.get(start + i) == Some(&v));
    }
    found || (moves > UNROLLED_MOVES && targets[start + UNROLLED_MOVES..start + moves].contains(&v))
}

/// The positions of row `u` of a CSR array whose rows start at `offsets`.
fn row(offsets: &[u64], u: u32) -> std::ops::Range<usize> {
    offsets[u as usize] as usize..offsets[u as usize + 1] as usize
}

/// Moves of a row that [`has_move_to`] compares without a branch.
const UNROLLED_MOVES: usize = 4;

/// What a query decided about the region on top of the stack.
enum Verdict {
    /// The opponent can reach a free vertex, or a vertex of the region's
    /// priority cannot stay: build the next region below.
    Open,
    /// Closed, and the opponent's lowest escape leads into the region of
    /// this priority.
    Promote(u32),
    /// Closed without escapes.
    Dominion,
}

/// The state of one run.
struct Promotion<'a> {
    game: &'a ParityGame,
    /// The predecessor lists' arrays, held as slices rather than through
    /// the [`Csr`]: one load fewer for each look at a list in the
    /// attractors' loops (3 % of the solve time on counter_dp-20).
    predecessor_offsets: &'a [u64],
    predecessor_targets: &'a [u32],
    /// Compressed priorities (dense, parity kept).
    priorities: Vec<u32>,
    /// The vertices by descending priority.
    order: Vec<u32>,
    /// `below[p]`: the position in `order` of the first vertex of
    /// priority lower than `p`.
    below: Vec<u32>,
    /// Each vertex's region and open moves, side by side: an attractor
    /// reads and writes both for every predecessor it looks at, so they
    /// share a cache line (on games of 10^6 vertices and more, random
    /// moves miss the caches for every array read).
    slots: Vec<Slot>,
    /// Each vertex's moves to unsolved vertices not yet drawn into the
    /// attractor of the dominion being solved. Every vertex of that
    /// attractor is solved in the end, so between two dominions these
    /// count the moves to unsolved vertices, kept up to date by the
    /// attractors alone: a vertex of the opponent is drawn in when its
    /// count reaches 0, without a look at its moves. Empty until the
    /// first dominion that leaves vertices unsolved (a dominion of every
    /// unsolved vertex needs no attractor): no vertex is solved before
    /// it, so each count starts as the vertex's number of moves.
    live: Vec<u32>,
    winners: Vec<Player>,
    /// Solved vertices: the winning move where the winner owns them.
    /// Vertices in a region: the move that keeps them there where the
    /// region's player owns them ([`NO_MOVE`] for a vertex of the region's
    /// priority before one is found).
    strategy: Vec<u32>,
    /// The regions' vertices, region after region, highest first; while
    /// a dominion is solved, its attractor in the unsolved game follows.
    zone: Vec<u32>,
    /// The regions on the stack, lowest last.
    regions: Vec<Region>,
    /// Vertices not yet solved.
    unsolved: usize,
    /// The vertices a promotion freed, to be offered to the merged region
    /// (when they are fewer than the promoted region's).
    freed: Vec<u32>,
    /// The vertices with a move to themselves, until
    /// [`Promotion::solve_won_self_loops`] has used them.
    self_loops: Vec<u32>,
    /// Threads that may draw a level of a dominion's attractor.
    threads: usize,
    /// Their pool, once a level was large enough ([`Promotion::pool`]).
    pool: Option<Option<rayon::ThreadPool>>,
    /// Fewest vertices of a level that the pool draws
    /// ([`PARALLEL_LEVEL`] when [`solve`] runs).
    parallel_level: usize,
    /// Scratch of [`levels::Level::draw`]: `u32::MAX` for each vertex
    /// between levels; empty until the first level drawn in parallel.
    first_move: Vec<AtomicU32>,
}

/// Fewest vertices of a level of a dominion's attractor that threads
/// draw together ([`levels`]).
const PARALLEL_LEVEL: usize = 1 << 10;

/// What the search keeps of one vertex.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Slot {
    /// The vertex's region: a priority, [`FREE`], [`SOLVED`] or
    /// [`DOMINION`].
    region: u32,
    /// The vertex's moves to vertices that are free, or in the zone and
    /// not yet drawn from the attractor's queue.
    open: u32,
}

/// A region on the stack; its vertices are `zone[start..]` up to the
/// start of the next region.
#[derive(Clone, Copy)]
struct Region {
    priority: u32,
    start: usize,
    /// `zone[start..seeds_end]`: the vertices of its priority it was
    /// built from (for a merged region, those of the region merged into).
    seeds_end: usize,
    /// The lowest other region (a priority, or [`SOLVED`]) that one of
    /// its vertices of the opponent in `zone[seeds_end..counted]` can move
    /// to; [`FREE`] if none can.
    escape: u32,
    /// The end in `zone` of the vertices whose moves `escape` counts.
    counted: usize,
}

impl<'a> Promotion<'a> {
    fn new(game: &'a ParityGame, predecessors: &'a Csr) -> Promotion<'a> {
        let vertices = game.vertices() as usize;
        let (priorities, highest) = compress_priorities(&game.priorities);
        // Counting sort by descending priority, in place: `below[p + 1]`
        // counts the vertices of priority `p` or higher, the end of the
        // slots of priority `p`, which fill from the back until it is
        // their start, `below[p + 1]` as it should be in the end.
        let levels = highest as usize + 1;
        let mut below = vec![0u32; levels + 1];
        for &p in &priorities {
            below[p as usize + 1] += 1;
        }
        for p in (1..levels).rev() {
            below[p] += below[p + 1];
        }
        below[0] = vertices as u32;
        let mut order = vec![0u32; vertices];
        for (v, &p) in priorities.iter().enumerate().rev() {
            let slot = &mut below[p as usize + 1];
            *slot -= 1;
            order[*slot as usize] = v as u32;
        }
        // Each vertex's moves, counted in the pass that finds the vertices
        // with a move to themselves.
        let targets = &game.edges.targets[..];
        let mut self_loops = Vec::new();
        let slots = (game.edges.offsets.windows(2).enumerate())
            .map(|(v, row)| {
                let (start, moves) = (row[0] as usize, (row[1] - row[0]) as usize);
                if has_move_to(targets, start, moves, v as u32) {
                    self_loops.push(v as u32);
                }
                Slot {
                    region: FREE,
                    open: moves as u32,
                }
            })
            .collect();
        Promotion {
            game,
            predecessor_offsets: &predecessors.offsets,
            predecessor_targets: &predecessors.targets,
            priorities,
            order,
            below,
            live: Vec::new(),
            slots,
            winners: vec![Player::Even; vertices],
            strategy: vec![NO_MOVE; vertices],
            // Room for every vertex, taken from the system only where used.
            zone: Vec::with_capacity(vertices),
            regions: Vec::new(),
            unsolved: vertices,
            freed: Vec::new(),
            self_loops,
            threads: 1,
            pool: None,
            parallel_level: usize::MAX,
            first_move: Vec::new(),
        }
    }

    /// Builds, tests and promotes regions until every vertex is solved.
    fn search(&mut self, watch: &mut Watch<'_>) -> Result<(), SolveError> {
        let mut queries = 0u64;
        let (mut promotions, mut dominions, mut restarts) = (0u64, 0u64, 0u64);
        let by_self_loops = self.solve_won_self_loops(watch)?;
        let mut cursor = 0;
        while self.unsolved > 0 {
            // The next region: the free vertices of the highest priority
            // left, below the regions on the stack.
            while cursor < self.order.len()
                && self.slots[self.order[cursor] as usize].region != FREE
            {
                cursor += 1;
            }
            if cursor == self.order.len() {
                // Only after a dominion that kept regions: one of them is
                // open, but every vertex it can move to is in one of them.
                // Start again from the top, every region freed (a loop
                // that a stop also ends, should a bug keep it going).
                watch.stopped()?;
                restarts += 1;
                self.free(0..self.zone.len());
                self.zone.clear();
                self.regions.clear();
                cursor = 0;
                continue;
            }
            let priority = self.priorities[self.order[cursor] as usize];
            let start = self.zone.len();
            while let Some(&v) = self.order.get(cursor) {
                if self.priorities[v as usize] != priority {
                    break;
                }
                if self.slots[v as usize].region == FREE {
                    self.slots[v as usize].region = priority;
                    self.strategy[v as usize] = NO_MOVE;
                    self.zone.push(v);
                }
                cursor += 1;
            }
            self.regions.push(Region {
                priority,
                start,
                seeds_end: self.zone.len(),
                escape: FREE,
                counted: self.zone.len(),
            });
            self.attract(Player::favoured_by(priority), priority, start, watch)?;
            loop {
                queries += 1;
                watch.check(queries)?;
                let top = self
                    .regions
                    .last()
                    .expect("a region is on the stack")
                    .priority;
                match self.query() {
                    Verdict::Open => break,
                    Verdict::Promote(target) => {
                        promotions += 1;
                        self.promote(target, watch)?;
                        cursor = self.below[target as usize] as usize;
                    }
                    Verdict::Dominion => {
                        dominions += 1;
                        let before = self.unsolved;
                        cursor = self.solve_dominion(Player::favoured_by(top), watch)?;
                        tracing::trace!(
                            top,
                            solved = before - self.unsolved,
                            unsolved = self.unsolved,
                            kept = self.regions.len(),
                            queries,
                            "pp dominion"
                        );
                        if self.regions.is_empty() {
                            break;
                        }
                        // The region now on top may be closed without the
                        // solved vertices: ask again.
                    }
                }
            }
        }
        tracing::debug!(
            by_self_loops,
            queries,
            promotions,
            dominions,
            restarts,
            "priority promotion"
        );
        Ok(())
    }

    /// Extends the zone at the top of the stack, in region `region` (the
    /// region on top of the stack), to `player`'s attractor of it among
    /// the free vertices; its vertices from `queue` on are not yet drawn
    /// from the queue. Looks at the stop signal as it draws them
    /// ([`Watch::poll`]): one attractor can take most of a large game.
    fn attract(
        &mut self,
        player: Player,
        region: u32,
        queue: usize,
        watch: &Watch<'_>,
    ) -> Result<(), SolveError> {
        let mut next = queue;
        while next < self.zone.len() {
            watch.poll(next)?;
            let u = self.zone[next];
            next += 1;
            for edge in self.predecessor_range(u) {
                let v = self.predecessor_targets[edge];
                self.slots[v as usize].open -= 1;
                self.offer(player, region, u, v);
            }
        }
        Ok(())
    }

    /// The positions of `u`'s predecessors in `predecessor_targets`.
    fn predecessor_range(&self, u: u32) -> std::ops::Range<usize> {
        row(self.predecessor_offsets, u)
    }

    /// The predecessors of `u`.
    fn predecessors(&self, u: u32) -> &'a [u32] {
        &self.predecessor_targets[self.predecessor_range(u)]
    }

    /// Draws `v`, a predecessor of `u` in the zone, into region `region`
    /// of `player` if it is free and either `player`'s (moving to `u`) or
    /// left without moves to free vertices or vertices still queued.
    fn offer(&mut self, player: Player, region: u32, u: u32, v: u32) {
        let slot = v as usize;
        if self.slots[slot].region != FREE {
            return;
        }
        if self.game.owners[slot] == player {
            self.strategy[slot] = u;
        } else if self.slots[slot].open > 0 {
            return;
        }
        self.slots[slot].region = region;
        self.zone.push(v);
    }

    /// The lowest region other than `region` (a priority, [`SOLVED`] or
    /// [`FREE`]) that `v` can move to; [`FREE`] if it has no such move.
    fn lowest_escape(&self, v: u32, region: u32) -> u32 {
        self.game
            .edges
            .successors(v)
            .iter()
            .map(|&w| self.slots[w as usize].region)
            .filter(|&r| r != region)
            .min()
            .unwrap_or(FREE)
    }

    /// Tests the region on top of the stack; gives its seeds owned by its
    /// player a move into it where they have one. Only the seeds can be
    /// open: the region's other vertices of the opponent have no free
    /// moves, and their escapes are counted once, in the region's
    /// `escape`.
    fn query(&mut self) -> Verdict {
        let top = *self.regions.last().expect("a region is on the stack");
        let priority = top.priority;
        let player = Player::favoured_by(priority);
        let game = self.game;
        // A region that holds every unsolved vertex has no escapes: the
        // opponent's moves out of it lead to vertices the player won.
        let whole = self.zone.len() - top.start == self.unsolved;
        let mut lowest_escape = FREE;
        for &v in &self.zone[top.start..top.seeds_end] {
            let slot = v as usize;
            if game.owners[slot] == player {
                if self.strategy[slot] == NO_MOVE {
                    let slots = &self.slots;
                    match game
                        .edges
                        .successors(v)
                        .iter()
                        .find(|&&w| slots[w as usize].region == priority)
                    {
                        Some(&w) => self.strategy[slot] = w,
                        None => return Verdict::Open,
                    }
                }
            } else if self.slots[slot].open > 0 {
                return Verdict::Open;
            } else if !whole {
                lowest_escape = lowest_escape.min(self.lowest_escape(v, priority));
            }
        }
        if whole {
            return Verdict::Dominion;
        }
        let mut escape = top.escape;
        for &v in &self.zone[top.counted..] {
            if game.owners[v as usize] != player {
                escape = escape.min(self.lowest_escape(v, priority));
            }
        }
        let top = self.regions.last_mut().expect("checked above");
        top.escape = escape;
        top.counted = self.zone.len();
        lowest_escape = lowest_escape.min(escape);
        if lowest_escape >= SOLVED {
            // Only solved vertices (won by the player) lie outside.
            Verdict::Dominion
        } else {
            Verdict::Promote(lowest_escape)
        }
    }

    /// Frees the vertices of `zone[range]`, but for those of a dominion.
    fn free(&mut self, range: std::ops::Range<usize>) {
        for i in range {
            let v = self.zone[i];
            if self.slots[v as usize].region == DOMINION {
                continue;
            }
            self.slots[v as usize].region = FREE;
            for &u in self.predecessors(v) {
                self.slots[u as usize].open += 1;
            }
        }
    }

    /// Merges the region on top of the stack into the region of priority
    /// `target` below it on the stack, frees the regions between, and
    /// extends the merged region to its attractor.
    ///
    /// The merged vertices' moves lead into the merged region or above
    /// (`target` was their lowest escape), so none of them is open; their
    /// escapes are counted again at the next query. Of the free vertices,
    /// only those just freed can be attracted now, and only by a move into
    /// the promoted region's vertices: the others were free, and not
    /// attracted, when both regions were built. So whichever is fewer is
    /// looked at: the vertices just freed, or the promoted region's
    /// vertices, whose free predecessors are offered.
    fn promote(&mut self, target: u32, watch: &Watch<'_>) -> Result<(), SolveError> {
        let top_start = self.regions.pop().expect("a region is on the stack").start;
        let mut end_of_target = top_start;
        while let Some(region) = self.regions.last() {
            if region.priority == target {
                break;
            }
            end_of_target = region.start;
            self.regions.pop();
        }
        self.free(end_of_target..top_start);
        let moved = self.zone.len() - top_start;
        let by_freed = top_start - end_of_target <= moved;
        let mut freed = std::mem::take(&mut self.freed);
        freed.clear();
        if by_freed {
            freed.extend_from_slice(&self.zone[end_of_target..top_start]);
        }
        self.zone.copy_within(top_start.., end_of_target);
        self.zone.truncate(end_of_target + moved);
        let player = Player::favoured_by(target);
        for i in end_of_target..self.zone.len() {
            self.slots[self.zone[i] as usize].region = target;
        }
        let queue = self.zone.len();
        if !by_freed {
            for i in end_of_target..queue {
                let u = self.zone[i];
                for edge in self.predecessor_range(u) {
                    let v = self.predecessor_targets[edge];
                    self.offer(player, target, u, v);
                }
            }
        }
        for &v in &freed {
            let slot = v as usize;
            // The opponent's vertices with a free move stay out: skip
            // looking at their moves.
            if self.slots[slot].region != FREE
                || (self.game.owners[slot] != player && self.slots[slot].open > 0)
            {
                continue;
            }
            let slots = &self.slots;
            let into = self
                .game
                .edges
                .successors(v)
                .iter()
                .find(|&&w| slots[w as usize].region == target);
            if let Some(&u) = into {
                self.offer(player, target, u, v);
            }
        }
        self.freed = freed;
        self.attract(player, target, queue, watch)
    }

    /// Solves the closed region on top of the stack, which the opponent
    /// cannot leave, for `player`, with its attractor in the whole
    /// unsolved game. The regions that lose a vertex to it are freed with
    /// every region below them; those above are kept: each is still its
    /// player's attractor of its vertices with the strategy that keeps
    /// them in it, though maybe no longer the whole attractor, and maybe
    /// closed now. Gives the position in `order` to build the next region
    /// from. Looks at the stop signal as it draws vertices.
    fn solve_dominion(&mut self, player: Player, watch: &Watch<'_>) -> Result<usize, SolveError> {
        let top = *self.regions.last().expect("a region is on the stack");
        // The attractor grows on the top of the zone: `zone[top.start..]`
        // is the dominion, then its attractor, in the order drawn (a
        // vertex drawn from a region stays in that region's list too).
        for &v in &self.zone[top.start..] {
            self.slots[v as usize].region = DOMINION;
        }
        // A dominion of every unsolved vertex has nothing left to attract.
        let next = if self.zone.len() - top.start == self.unsolved {
            self.zone.len()
        } else {
            top.start
        };
        // The highest region that loses a vertex.
        let highest = self
            .attract_to_dominion(player, next, true, watch)?
            .map_or(top.priority, |region| region.max(top.priority));
        let kept = self.regions.partition_point(|r| r.priority > highest);
        let cut = self.regions[kept].start;
        self.free(cut..top.start);
        self.settle(player, top.start);
        self.zone.truncate(cut);
        self.regions.truncate(kept);
        Ok(match self.regions.last() {
            Some(region) => self.below[region.priority as usize] as usize,
            None => 0,
        })
    }

    /// Draws into the dominion of `player` that `zone` ends with (its
    /// vertices marked [`DOMINION`], those from `next` on not yet drawn
    /// from the queue) its attractor in the whole unsolved game, and gives
    /// the highest region that lost a vertex to it, if any did. With
    /// `count_open`, the predecessors of each free vertex drawn in lose a
    /// move to a free vertex; without, the caller counts again. Levels of
    /// [`Promotion::parallel_level`] vertices or more are drawn by the
    /// pool's threads.
    fn attract_to_dominion(
        &mut self,
        player: Player,
        mut next: usize,
        count_open: bool,
        watch: &Watch<'_>,
    ) -> Result<Option<u32>, SolveError> {
        let game = self.game;
        if next < self.zone.len() && self.live.is_empty() {
            self.live = (0..game.vertices())
                .map(|v| game.edges.successors(v).len() as u32)
                .collect();
        }
        let mut highest = None;
        // Level by level: the vertices queued when a level starts are
        // drawn from the queue before any that they draw in.
        while next < self.zone.len() {
            let end = self.zone.len();
            let level = if end - next >= self.parallel_level && self.pool().is_some() {
                watch.stopped()?;
                self.draw_level_in_parallel(player, next, count_open)
            } else {
                self.draw_level(player, next, count_open, watch)?
            };
            highest = highest.max(level);
            next = end;
        }
        Ok(highest)
    }

    /// [`Promotion::attract_to_dominion`]'s level `zone[next..]` drawn
    /// from the queue on this thread, vertex after vertex; gives the
    /// highest region that lost a vertex.
    fn draw_level(
        &mut self,
        player: Player,
        mut next: usize,
        count_open: bool,
        watch: &Watch<'_>,
    ) -> Result<Option<u32>, SolveError> {
        let game = self.game;
        let end = self.zone.len();
        let mut highest = None;
        while next < end {
            watch.poll(next)?;
            let u = self.zone[next];
            next += 1;
            for &v in self.predecessors(u) {
                let slot = v as usize;
                let region = self.slots[slot].region;
                if region == DOMINION || region == SOLVED {
                    continue;
                }
                let live = &mut self.live[slot];
                *live -= 1;
                if game.owners[slot] != player {
                    if *live > 0 {
                        continue;
                    }
                } else {
                    self.strategy[slot] = u;
                }
                if region != FREE {
                    highest = highest.max(Some(region));
                } else if count_open {
                    // Drawn from the free vertices: no longer free.
                    for &w in self.predecessors(v) {
                        self.slots[w as usize].open -= 1;
                    }
                }
                self.slots[slot].region = DOMINION;
                self.zone.push(v);
            }
        }
        Ok(highest)
    }

    /// [`Promotion::draw_level`] on the threads of [`Promotion::pool`]
    /// ([`levels`]): the same vertices drawn, the same counts of the
    /// vertices left undrawn, the level's vertices in ascending order.
    fn draw_level_in_parallel(
        &mut self,
        player: Player,
        next: usize,
        count_open: bool,
    ) -> Option<u32> {
        let game = self.game;
        let pool = self.pool.as_ref().and_then(Option::as_ref).expect("a pool");
        if self.first_move.is_empty() {
            self.first_move = pool.install(|| atomics32(game.vertices() as usize, u32::MAX));
        }
        let level = levels::Level {
            owners: &game.owners,
            predecessor_offsets: self.predecessor_offsets,
            predecessor_targets: self.predecessor_targets,
            player,
            count_open,
        };
        let slots = into_atomics::<levels::AtomicSlot>(std::mem::take(&mut self.slots));
        let live = into_atomics::<AtomicU32>(std::mem::take(&mut self.live));
        let (drawn, highest) =
            pool.install(|| level.draw(&self.zone[next..], next, &slots, &live, &self.first_move));
        self.slots = into_plain(slots);
        self.live = into_plain(live);
        for &v in &drawn {
            if game.owners[v as usize] == player {
                let first = self.first_move[v as usize].swap(u32::MAX, Relaxed);
                self.strategy[v as usize] = self.zone[first as usize];
            }
        }
        self.zone.extend(drawn);
        highest
    }

    /// The threads that draw large levels of a dominion's attractor, made
    /// at the first such level; `None` with one thread, or where the
    /// system would not start them.
    fn pool(&mut self) -> Option<&rayon::ThreadPool> {
        let threads = self.threads;
        self.pool
            .get_or_insert_with(|| {
                (threads > 1)
                    .then(|| {
                        rayon::ThreadPoolBuilder::new()
                            .num_threads(threads)
                            .build()
                            .ok()
                    })
                    .flatten()
            })
            .as_ref()
    }

    /// Marks the vertices of `zone[start..]` solved, won by `player`.
    fn settle(&mut self, player: Player, start: usize) {
        for &v in &self.zone[start..] {
            self.slots[v as usize].region = SOLVED;
            self.winners[v as usize] = player;
        }
        self.unsolved -= self.zone.len() - start;
    }

    /// Before any region: solves, for each player in turn, the vertices
    /// it owns with a move to themselves and a priority it wins (it can
    /// stay there for ever), and its attractor of them in the unsolved
    /// game, as Oink's preprocessing does. On a random game of 10^5
    /// vertices with 5 to 15 moves each, that solves every vertex in one
    /// pass where the regions took three queries: the solve takes 13.8 ms
    /// instead of 22.2 by median on the 2-core machine
    /// (`benches/results/2026-12-03k-2core-pp-self-loops/`). Gives the
    /// vertices solved.
    fn solve_won_self_loops(&mut self, watch: &Watch<'_>) -> Result<usize, SolveError> {
        let before = self.unsolved;
        let self_loops = std::mem::take(&mut self.self_loops);
        for player in [Player::Even, Player::Odd] {
            for &v in &self_loops {
                let slot = v as usize;
                if self.slots[slot].region == FREE
                    && self.game.owners[slot] == player
                    && Player::favoured_by(self.priorities[slot]) == player
                {
                    self.slots[slot].region = DOMINION;
                    self.strategy[slot] = v;
                    self.zone.push(v);
                }
            }
            if self.zone.is_empty() {
                continue;
            }
            let next = if self.zone.len() == self.unsolved {
                self.zone.len()
            } else {
                0
            };
            self.attract_to_dominion(player, next, false, watch)?;
            self.settle(player, 0);
            self.zone.clear();
        }
        // The moves to free vertices, counted once for the vertices left
        // rather than counted down for each vertex solved: no vertex is in
        // a region, so they are the moves to unsolved vertices, which the
        // attractors kept in `live` (initialised as soon as one ran).
        if self.unsolved > 0 && self.unsolved < before {
            for (slot, &live) in self.slots.iter_mut().zip(&self.live) {
                if slot.region == FREE {
                    slot.open = live;
                }
            }
        }
        Ok(before - self.unsolved)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::explore::StopSignal;
    use crate::parity::{reference, verify::verify};
    use crate::testing::games::{games_with_hubs, random_game};

    /// `game` solved with every level of a dominion's attractor drawn in
    /// parallel, on `threads` threads; a search that runs for 60 s (a
    /// vertex never drawn makes it restart for ever) fails.
    fn drawn_in_parallel(game: &ParityGame, predecessors: &Csr, threads: usize) -> Solution {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let options = SolveOptions {
            threads,
            stop: StopSignal::new().with_deadline(deadline),
            ..SolveOptions::default()
        };
        solve_drawing_levels_from(game, predecessors, &options, 1).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// Levels drawn by threads: the reference's winners, strategies
        /// that win, and one solution on 2 threads and on 4.
        #[test]
        fn levels_drawn_in_parallel_give_one_winning_solution(game in games_with_hubs(40, 9)) {
            let predecessors = game.edges.transpose();
            let options = SolveOptions::default();
            let reference = reference::solve(&game, &predecessors, &options).unwrap();
            let solution = drawn_in_parallel(&game, &predecessors, 4);
            prop_assert_eq!(&solution.winners, &reference.winners);
            prop_assert_eq!(verify(&game, &solution), Ok(()));
            prop_assert_eq!(drawn_in_parallel(&game, &predecessors, 2), solution);
        }
    }

    /// On a random game of 20,000 vertices, whose self-loops and their
    /// attractors solve it whole in levels of thousands of vertices, the
    /// threads race for the same vertices: the solution is the same in
    /// every run and on any number of threads, and has the winners of the
    /// sequential run.
    #[test]
    fn levels_drawn_in_parallel_do_not_hang_on_how_the_threads_ran() {
        let game = random_game(20_000, 1000, 5, 15, 7);
        let predecessors = game.edges.transpose();
        let sequential = solve(
            &game,
            &predecessors,
            &SolveOptions {
                threads: 1,
                ..SolveOptions::default()
            },
        )
        .unwrap();
        let solution = drawn_in_parallel(&game, &predecessors, 4);
        assert_eq!(solution.winners, sequential.winners);
        assert_eq!(verify(&game, &solution), Ok(()));
        for threads in [2, 3, 4, 4, 8] {
            assert_eq!(
                drawn_in_parallel(&game, &predecessors, threads),
                solution,
                "{threads} threads"
            );
        }
    }

    #[test]
    fn a_region_of_every_unsolved_vertex_is_solved_without_a_search_for_escapes() {
        // 0 (priority 5, Odd's) loops: Odd's dominion, solved first. Then
        // 1 (priority 2, Even's, moves to itself and to 0) is a closed
        // region of Even's without escapes; and last, the region of 2
        // (priority 0, Odd's, moves to 1 and to itself) holds every
        // unsolved vertex.
        let game = ParityGame {
            priorities: vec![5, 2, 0],
            owners: vec![Player::Odd, Player::Even, Player::Odd],
            edges: Csr::from_edges(3, vec![(0, 0), (1, 1), (1, 0), (2, 1), (2, 2)]).unwrap(),
            names: Vec::new(),
        };
        let options = SolveOptions::default();
        let solution = solve(&game, &game.edges.transpose(), &options).unwrap();
        assert_eq!(solution.winners, [Player::Odd, Player::Even, Player::Even]);
        assert_eq!(solution.strategy[..2], [0, 1]);
        assert_eq!(verify(&game, &solution), Ok(()));
        let oracle = reference::solve(&game, &game.edges.transpose(), &options).unwrap();
        assert_eq!(oracle.winners, solution.winners);
    }

    #[test]
    fn a_move_is_found_in_its_row_only() {
        // Rows: [7, 9] from 0, [1, 2, 3, 4, 5, 9] from 2, [9] from 8.
        let targets = [7, 9, 1, 2, 3, 4, 5, 9, 9];
        assert!(has_move_to(&targets, 0, 2, 9));
        // 9 stands right behind the row: not in it.
        assert!(!has_move_to(&targets, 0, 1, 9));
        assert!(has_move_to(&targets, 2, 6, 3));
        assert!(has_move_to(&targets, 2, 6, 9));
        assert!(!has_move_to(&targets, 2, 5, 9));
        assert!(!has_move_to(&targets, 2, 6, 7));
        assert!(has_move_to(&targets, 8, 1, 9));
        assert!(!has_move_to(&targets, 8, 1, 7));
        assert!(!has_move_to(&targets, 9, 0, 9));
    }

    #[test]
    fn won_self_loops_and_their_attractors_are_solved_before_any_region() {
        // 1 (priority 4, Even's) and 0, 3 (priorities 3 and 5, Odd's)
        // loop on a priority their owner wins. Even's attractor of 1 takes
        // 4 (Even's, whose own loop has priority 1, won by Odd, and which
        // moves to 1); Odd's attractor of 0 and 3 takes 2 (Even's, whose
        // only move leads to 0) and 5 (Odd's, which moves to 3).
        let game = ParityGame {
            priorities: vec![3, 4, 6, 5, 1, 8],
            owners: vec![
                Player::Odd,
                Player::Even,
                Player::Even,
                Player::Odd,
                Player::Even,
                Player::Odd,
            ],
            edges: Csr::from_edges(
                6,
                vec![
                    (0, 0),
                    (0, 1),
                    (1, 1),
                    (1, 0),
                    (2, 0),
                    (3, 3),
                    (3, 1),
                    (4, 4),
                    (4, 1),
                    (5, 1),
                    (5, 3),
                ],
            )
            .unwrap(),
            names: Vec::new(),
        };
        let predecessors = game.edges.transpose();
        let options = SolveOptions::default();
        let watch = Watch::new(&options, "queries");
        let mut run = Promotion::new(&game, &predecessors);
        assert_eq!(run.solve_won_self_loops(&watch).ok(), Some(6));
        use Player::{Even, Odd};
        assert_eq!(run.winners, [Odd, Even, Odd, Odd, Even, Odd]);
        let winning_moves: Vec<u32> = [0, 1, 3, 4, 5].map(|v| run.strategy[v]).to_vec();
        assert_eq!(winning_moves, [0, 1, 3, 1, 3]);
        let solution = solve(&game, &predecessors, &options).unwrap();
        assert_eq!(verify(&game, &solution), Ok(()));
        assert_eq!(
            reference::solve(&game, &predecessors, &options)
                .unwrap()
                .winners,
            solution.winners
        );
    }

    #[test]
    fn a_vertex_is_drawn_into_a_dominion_by_moves_counted_across_dominions() {
        // 0 (priority 6, Even's, loops) is Even's dominion, solved first;
        // its attractor leaves 2 (priority 3, Odd's), which can still move
        // to 1. 2 is then an open region of Odd's (no move into it), and 1
        // (priority 2, Even's, loops) Even's dominion: its attractor draws
        // 2 in only if 2's move to 0 was counted off by the first
        // dominion's attractor. Were it not, 2 would be left in an open
        // region with no free vertex below, rebuilt again and again (until
        // the deadline stops the search).
        let game = ParityGame {
            priorities: vec![6, 2, 3],
            owners: vec![Player::Even, Player::Even, Player::Odd],
            edges: Csr::from_edges(3, vec![(0, 0), (1, 1), (2, 0), (2, 1)]).unwrap(),
            names: Vec::new(),
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let options = SolveOptions {
            stop: StopSignal::new().with_deadline(deadline),
            ..SolveOptions::default()
        };
        let solution = solve(&game, &game.edges.transpose(), &options).unwrap();
        assert_eq!(solution.winners, [Player::Even; 3]);
        assert_eq!(solution.strategy[..2], [0, 1]);
        assert_eq!(verify(&game, &solution), Ok(()));
        let oracle = reference::solve(&game, &game.edges.transpose(), &options).unwrap();
        assert_eq!(oracle.winners, solution.winners);
    }
}
