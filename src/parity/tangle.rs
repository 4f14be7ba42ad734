//! Tangle learning (van Dijk, CAV 2018).
//!
//! A *tangle* of player `α` is a strongly connected set of vertices with a
//! strategy for `α`'s vertices in it under which every cycle is won by
//! `α`; the opponent can only leave it by its *escapes*, moves of the
//! opponent's vertices out of it. A tangle without escapes is a dominion:
//! `α` wins all of it.
//!
//! A *pass* decomposes the unsolved game top down as Zielonka's algorithm
//! does: take the highest priority `p` of what is left, favouring `α`, and
//! its `α`-attractor, then the highest priority of the rest, and so on.
//! Priorities are compressed on the fly: an attractor goes on drawing in
//! the next vertices left in priority order while their priorities favour
//! `α` too (a chain of even priorities without an odd one left between
//! them is one attractor, not one each; without that, counter games in
//! the style of Oink's `counter_ortl` need a pass per link of such a
//! chain).
//! The attractor also draws in whole tangles of `α` learned before, once
//! every escape of the tangle that stays in what is left leads into the
//! attractor. In each attractor, the strategy restricted to it (the
//! attracting moves, and any move into it from the vertices of `p`)
//! leaves a graph whose bottom strongly connected components with a cycle
//! are new tangles of `α`. Tangles without escapes are solved with their
//! attractor in the whole unsolved game; the others are kept for the next
//! passes. The lowest attractor of a pass always yields a tangle not known
//! before, so passes end.
//!
//! Two shortcuts: when the first attractor of a pass holds every unsolved
//! vertex, its player wins them all (Zielonka's base case); and the
//! tangles are only sought among the vertices of an attractor that cannot
//! reach one leaving it, found by a backward search first.
//!
//! Everything is flat arrays: tangles are concatenated vertex lists with
//! offsets, and an index from each vertex to the tangles escaping into it.
//! Each vertex and tangle keeps one count per pass, of its moves (escapes)
//! into unsolved vertices not yet drawn into an attractor: it is counted
//! down once per move as attractors grow, so an attractor never scans a
//! vertex's moves, and a count of 0 says that every move leads into this
//! attractor or an earlier one.

use super::{Solution, SolveError, SolveOptions, Watch};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, ParityGame, Player};

/// Region of a vertex not in any attractor of the current pass.
const FREE: u32 = u32::MAX;
/// Region of a solved vertex.
const SOLVED: u32 = u32::MAX - 1;

/// Solves `game` (validated) by tangle learning; `predecessors` are its
/// predecessor lists (`game.edges.transpose()`).
pub fn solve(
    game: &ParityGame,
    predecessors: &Csr,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    solve_counting_passes(game, predecessors, options).map(|(solution, _)| solution)
}

/// [`solve`], also giving the number of passes it took.
fn solve_counting_passes(
    game: &ParityGame,
    predecessors: &Csr,
    options: &SolveOptions,
) -> Result<(Solution, u64), SolveError> {
    let mut watch = Watch::new(options, "passes");
    let mut run = Learning::new(game, predecessors, &watch)?;
    let mut passes = 0u64;
    let mut learned = 0usize;
    while !run.order.is_empty() {
        passes += 1;
        watch.check(passes)?;
        let known = run.tangles.len();
        let mut dominions = run.pass(&mut watch, passes)?;
        learned += run.tangles.len() - known;
        tracing::trace!(
            pass = passes,
            tangles = run.tangles.len() - known,
            dominions = dominions.len(),
            unsolved = run.order.len(),
            "tangle learning pass"
        );
        run.tangles.index(game.vertices() as usize);
        while !dominions.is_empty() {
            run.solve_dominions(&dominions, &watch)?;
            dominions = run.tangles.prune(&run.slots);
            run.tangles.index(game.vertices() as usize);
        }
    }
    tracing::debug!(passes, tangles = learned, "tangle learning");
    let solution = Solution {
        winners: run.winners,
        strategy: run.strategy,
    };
    Ok((solution, passes))
}

/// What a pass keeps of a vertex, side by side for fewer cache misses.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// The attractor of the current pass that holds the vertex, [`FREE`]
    /// or [`SOLVED`].
    region: u32,
    /// Moves to unsolved vertices not yet drawn from the attractors'
    /// queues in this pass: 0 means every move leads into an attractor
    /// computed so far.
    remaining: u32,
}

/// The learned tangles, concatenated, and the index of their escapes.
#[derive(Default)]
struct Tangles {
    /// The player that wins each tangle's cycles.
    player: Vec<Player>,
    /// Tangle `t`'s vertices are `vertices[vertex_starts[t]..vertex_starts[t + 1]]`.
    vertex_starts: Vec<usize>,
    vertices: Vec<u32>,
    /// The move of each vertex in `vertices` that the tangle's player
    /// owns; [`NO_MOVE`] for the opponent's.
    moves: Vec<u32>,
    /// Tangle `t`'s escapes (distinct vertices outside it) are
    /// `escapes[escape_starts[t]..escape_starts[t + 1]]`.
    escape_starts: Vec<usize>,
    escapes: Vec<u32>,
    /// The tangles that escape into vertex `v`:
    /// `escaping_into[escaping_starts[v]..escaping_starts[v + 1]]`.
    escaping_starts: Vec<usize>,
    escaping_into: Vec<u32>,
    /// Escapes of each tangle not yet drawn from the attractors'
    /// queues in this pass.
    remaining: Vec<u32>,
}

impl Tangles {
    fn len(&self) -> usize {
        self.player.len()
    }

    fn vertices_of(&self, t: usize) -> std::ops::Range<usize> {
        self.vertex_starts[t]..self.vertex_starts[t + 1]
    }

    fn escapes_of(&self, t: usize) -> &[u32] {
        &self.escapes[self.escape_starts[t]..self.escape_starts[t + 1]]
    }

    /// Adds a tangle of `player` on `members` (with their moves) and its
    /// `escapes`; gives its number.
    fn push(&mut self, player: Player, members: &[(u32, u32)], escapes: &[u32]) -> usize {
        if self.vertex_starts.is_empty() {
            self.vertex_starts.push(0);
            self.escape_starts.push(0);
        }
        self.player.push(player);
        self.vertices.extend(members.iter().map(|&(v, _)| v));
        self.moves.extend(members.iter().map(|&(_, m)| m));
        self.vertex_starts.push(self.vertices.len());
        self.escapes.extend_from_slice(escapes);
        self.escape_starts.push(self.escapes.len());
        self.remaining.push(0);
        self.len() - 1
    }

    /// Rebuilds the index from escapes to tangles for a game of
    /// `vertices` vertices.
    fn index(&mut self, vertices: usize) {
        let starts = &mut self.escaping_starts;
        starts.clear();
        starts.resize(vertices + 1, 0);
        for &w in &self.escapes {
            starts[w as usize + 1] += 1;
        }
        for v in 0..vertices {
            starts[v + 1] += starts[v];
        }
        self.escaping_into.clear();
        self.escaping_into.resize(self.escapes.len(), 0);
        let mut next = starts.clone();
        for t in 0..self.len() {
            for i in self.escape_starts[t]..self.escape_starts[t + 1] {
                let slot = &mut next[self.escapes[i] as usize];
                self.escaping_into[*slot] = t as u32;
                *slot += 1;
            }
        }
    }

    /// Drops the tangles that lost a vertex to the solved part (region
    /// [`SOLVED`] in `slots`) and the escapes into it; gives the tangles left
    /// without escapes, which are dominions now.
    fn prune(&mut self, slots: &[Slot]) -> Vec<usize> {
        let solved = |v: u32| slots[v as usize].region == SOLVED;
        let old = std::mem::take(self);
        let mut members = Vec::new();
        let mut escapes = Vec::new();
        let mut dominions = Vec::new();
        for t in 0..old.len() {
            let range = old.vertices_of(t);
            if old.vertices[range.clone()].iter().any(|&v| solved(v)) {
                continue;
            }
            members.clear();
            members.extend(range.map(|i| (old.vertices[i], old.moves[i])));
            escapes.clear();
            escapes.extend(old.escapes_of(t).iter().copied().filter(|&w| !solved(w)));
            let kept = self.push(old.player[t], &members, &escapes);
            if escapes.is_empty() {
                dominions.push(kept);
            }
        }
        self.escaping_starts = old.escaping_starts;
        self.escaping_into = old.escaping_into;
        dominions
    }

    /// Sets every tangle's count of escapes to all of them, for a new
    /// pass.
    fn reset(&mut self) {
        for (t, remaining) in self.remaining.iter_mut().enumerate() {
            *remaining = (self.escape_starts[t + 1] - self.escape_starts[t]) as u32;
        }
    }
}

/// The state of one run.
struct Learning<'a> {
    game: &'a ParityGame,
    predecessors: &'a Csr,
    /// The unsolved vertices, highest priority first.
    order: Vec<u32>,
    slots: Vec<Slot>,
    /// Each vertex's moves to unsolved vertices.
    live_moves: Vec<u32>,
    winners: Vec<Player>,
    /// Solved vertices: the winning move where the winner owns them.
    /// Others: the move of the current attractor.
    strategy: Vec<u32>,
    tangles: Tangles,
    /// The current attractor's vertices, in the order they were drawn in.
    zone: Vec<u32>,
    /// The current attractor's heads, the vertices it was started from.
    heads: Vec<u32>,
    /// Scratch of the component search.
    search: ComponentSearch,
    /// Mark of the vertices of the current attractor that reach a vertex
    /// leaving it.
    reaches_out: Vec<u32>,
    mark: u32,
    /// Scratch: the vertices to search backwards from.
    open: Vec<u32>,
}

impl<'a> Learning<'a> {
    /// The state before the first pass; [`SolveError::Stopped`] once
    /// `watch` sees the stop signal.
    fn new(
        game: &'a ParityGame,
        predecessors: &'a Csr,
        watch: &Watch<'_>,
    ) -> Result<Learning<'a>, SolveError> {
        let vertices = game.vertices() as usize;
        let free = Slot {
            region: FREE,
            remaining: 0,
        };
        // The order and the move counts are a pass over the game each
        // (tens of ms on games of millions of vertices): both watch the
        // stop signal.
        let order = by_descending_priority(&game.priorities, watch)?;
        let mut live_moves = Vec::with_capacity(vertices);
        for v in 0..game.vertices() {
            watch.poll(v as usize)?;
            live_moves.push(game.edges.successors(v).len() as u32);
        }
        Ok(Learning {
            game,
            predecessors,
            order,
            slots: vec![free; vertices],
            live_moves,
            winners: vec![Player::Even; vertices],
            strategy: vec![NO_MOVE; vertices],
            tangles: Tangles::default(),
            zone: Vec::new(),
            heads: Vec::new(),
            search: ComponentSearch::default(),
            reaches_out: Vec::new(),
            mark: 0,
            open: Vec::new(),
        })
    }

    /// A fresh mark for [`Learning::reaches_out`].
    fn next_mark(&mut self) -> u32 {
        if self.mark == u32::MAX {
            self.reaches_out.fill(0);
            self.mark = 0;
        }
        self.mark += 1;
        self.mark
    }

    /// Frees every unsolved vertex and resets the move and escape counts,
    /// for a new decomposition.
    fn reset(&mut self) {
        for (slot, &moves) in self.slots.iter_mut().zip(&self.live_moves) {
            if slot.region != SOLVED {
                *slot = Slot {
                    region: FREE,
                    remaining: moves,
                };
            }
        }
        self.tangles.reset();
    }

    /// One decomposition of the unsolved game into attractors, learning
    /// the tangles in each; gives the new tangles without escapes.
    fn pass(&mut self, watch: &mut Watch<'_>, passes: u64) -> Result<Vec<usize>, SolveError> {
        self.reset();
        let mut dominions = Vec::new();
        let mut attractor = 0u32;
        let mut cursor = 0;
        while cursor < self.order.len() {
            let top = self.order[cursor];
            if self.slots[top as usize].region != FREE {
                cursor += 1;
                continue;
            }
            watch.check(passes)?;
            let player = Player::favoured_by(self.game.priorities[top as usize]);
            self.zone.clear();
            self.heads.clear();
            // The heads are the free vertices from `top` down to the first
            // free one whose priority favours the opponent, each drawn in
            // after the attractor of those before it: every cycle of the
            // attractor passes through the first head it reaches, whose
            // priority is its highest (priorities compressed on the fly).
            while let Some(&v) = self.order.get(cursor) {
                if self.slots[v as usize].region != FREE {
                    cursor += 1;
                    continue;
                }
                if Player::favoured_by(self.game.priorities[v as usize]) != player {
                    break;
                }
                self.slots[v as usize].region = attractor;
                let drawn = self.zone.len();
                self.zone.push(v);
                self.heads.push(v);
                self.attract(player, attractor, drawn, watch)?;
                cursor += 1;
            }
            for (i, &v) in self.heads.iter().enumerate() {
                watch.poll(i)?;
                if self.game.owners[v as usize] == player {
                    let slots = &self.slots;
                    self.strategy[v as usize] = self
                        .game
                        .edges
                        .successors(v)
                        .iter()
                        .copied()
                        .find(|&w| slots[w as usize].region == attractor)
                        .unwrap_or(NO_MOVE);
                }
            }
            if attractor == 0 && self.zone.len() == self.order.len() {
                // The first attractor holds every unsolved vertex: every
                // cycle's highest priority is a head's, so its player
                // wins them all (Zielonka's base case).
                for &v in &self.zone {
                    self.slots[v as usize].region = SOLVED;
                    self.winners[v as usize] = player;
                }
                self.order.clear();
                break;
            }
            self.learn(player, attractor, &mut dominions, watch)?;
            attractor += 1;
        }
        Ok(dominions)
    }

    /// Extends `zone` (its vertices in region `attractor` already, those
    /// from `next` on not yet drawn from the queue) to `player`'s
    /// attractor of it among the [`FREE`] vertices, drawing in
    /// `player`'s tangles once their escapes to unsolved vertices all lie
    /// in this attractor or earlier ones; the vertices of `player` drawn
    /// in get the move that leads there. Counts down the moves and
    /// escapes of every vertex and tangle into the vertices drawn in.
    /// [`SolveError::Stopped`] (the attractor left unfinished) once
    /// `watch` sees the stop signal.
    fn attract(
        &mut self,
        player: Player,
        attractor: u32,
        mut next: usize,
        watch: &Watch<'_>,
    ) -> Result<(), SolveError> {
        let game = self.game;
        while next < self.zone.len() {
            watch.poll(next)?;
            let u = self.zone[next];
            next += 1;
            for &v in self.predecessors.successors(u) {
                let slot = &mut self.slots[v as usize];
                if slot.region == attractor {
                    slot.remaining -= 1;
                    continue;
                }
                if slot.region != FREE {
                    continue;
                }
                slot.remaining -= 1;
                if game.owners[v as usize] == player {
                    self.strategy[v as usize] = u;
                } else if slot.remaining > 0 {
                    continue;
                }
                slot.region = attractor;
                self.zone.push(v);
            }
            let tangles = &mut self.tangles;
            let escaping = tangles.escaping_starts.get(u as usize..u as usize + 2);
            let Some(&[first, end]) = escaping else {
                continue;
            };
            for i in first..end {
                let t = tangles.escaping_into[i] as usize;
                tangles.remaining[t] -= 1;
                if tangles.remaining[t] > 0 || tangles.player[t] != player {
                    continue;
                }
                let slots = &self.slots;
                let whole = tangles.vertices[tangles.vertices_of(t)].iter().all(|&w| {
                    let region = slots[w as usize].region;
                    region == FREE || region == attractor
                });
                if !whole {
                    continue;
                }
                for i in tangles.vertices_of(t) {
                    let w = tangles.vertices[i] as usize;
                    if self.slots[w].region == FREE {
                        self.slots[w].region = attractor;
                        if game.owners[w] == player {
                            self.strategy[w] = tangles.moves[i];
                        }
                        self.zone.push(w as u32);
                    }
                }
            }
        }
        Ok(())
    }

    /// Learns the tangles of the attractor `zone` (region `attractor`,
    /// won by `player` in it): the bottom components, with a cycle, of
    /// the graph where `player` follows its strategy and the opponent
    /// makes any move among the vertices not in earlier attractors. Adds
    /// them to the tangles, and those without escapes to `dominions`.
    /// [`SolveError::Stopped`] once `watch` sees the stop signal.
    fn learn(
        &mut self,
        player: Player,
        attractor: u32,
        dominions: &mut Vec<usize>,
        watch: &Watch<'_>,
    ) -> Result<(), SolveError> {
        // Allocated on first use: games often end at their first attractor.
        let vertices = self.slots.len();
        if self.reaches_out.len() < vertices {
            self.reaches_out.resize(vertices, 0);
            self.search.numbers.resize(vertices, [0, 0]);
        }
        let mark = self.next_mark();
        let game = self.game;
        let slots = &self.slots;
        let strategy = &self.strategy;
        let owned = |v: u32| game.owners[v as usize] == player;
        let moves = |v: u32| -> &[u32] {
            if owned(v) {
                let choice = &strategy[v as usize];
                if *choice == NO_MOVE {
                    &[]
                } else {
                    std::slice::from_ref(choice)
                }
            } else {
                game.edges.successors(v)
            }
        };
        let inside = |w: u32| slots[w as usize].region == attractor;
        // No bottom component holds a vertex that can reach one that
        // leaves the attractor for a later one: `player`'s whose
        // strategy does not stay, the opponent's with a move not counted
        // down. Those are found backwards first, and left out.
        let reaches_out = &mut self.reaches_out;
        let open = &mut self.open;
        open.clear();
        for (i, &v) in self.zone.iter().enumerate() {
            watch.poll(i)?;
            let leaves = if owned(v) {
                let choice = strategy[v as usize];
                choice == NO_MOVE || !inside(choice)
            } else {
                slots[v as usize].remaining > 0
            };
            if leaves {
                reaches_out[v as usize] = mark;
                open.push(v);
            }
        }
        let mut searched = 0;
        while let Some(w) = open.pop() {
            watch.poll(searched)?;
            searched += 1;
            for &u in self.predecessors.successors(w) {
                let slot = u as usize;
                if !inside(u) || reaches_out[slot] == mark || (owned(u) && strategy[slot] != w) {
                    continue;
                }
                reaches_out[slot] = mark;
                open.push(u);
            }
        }
        let reaches_out = &self.reaches_out;
        let mut closed = Vec::new();
        for (i, &v) in self.zone.iter().enumerate() {
            watch.poll(i)?;
            if reaches_out[v as usize] != mark {
                closed.push(v);
            }
        }
        if closed.is_empty() {
            return Ok(());
        }
        let tangles = &mut self.tangles;
        let within = |w: u32| inside(w) && reaches_out[w as usize] != mark;
        self.search.bottom_components(
            &closed,
            moves,
            within,
            watch,
            |component, members, escapes| {
                members.clear();
                escapes.clear();
                for &v in component {
                    if owned(v) {
                        members.push((v, strategy[v as usize]));
                    } else {
                        members.push((v, NO_MOVE));
                        // Its moves that stay in the attractor stay in the
                        // component; the others lead to earlier attractors
                        // (or are solved).
                        escapes.extend(game.edges.successors(v).iter().copied().filter(|&w| {
                            let region = slots[w as usize].region;
                            region != attractor && region != SOLVED
                        }));
                    }
                }
                escapes.sort_unstable();
                escapes.dedup();
                let t = tangles.push(player, members, escapes);
                if escapes.is_empty() {
                    dominions.push(t);
                }
            },
        )
    }

    /// Solves the tangles `dominions` (without escapes) and their
    /// attractors in the unsolved game, Even's first.
    /// [`SolveError::Stopped`] once `watch` sees the stop signal.
    fn solve_dominions(
        &mut self,
        dominions: &[usize],
        watch: &Watch<'_>,
    ) -> Result<(), SolveError> {
        self.reset();
        for player in [Player::Even, Player::Odd] {
            self.zone.clear();
            for &t in dominions {
                if self.tangles.player[t] != player {
                    continue;
                }
                for i in self.tangles.vertices_of(t) {
                    watch.poll(i)?;
                    let w = self.tangles.vertices[i] as usize;
                    if self.slots[w].region == FREE {
                        self.slots[w].region = 0;
                        if self.game.owners[w] == player {
                            self.strategy[w] = self.tangles.moves[i];
                        }
                        self.zone.push(w as u32);
                    }
                }
            }
            self.attract(player, 0, 0, watch)?;
            for (i, &v) in self.zone.iter().enumerate() {
                watch.poll(i)?;
                self.slots[v as usize].region = SOLVED;
                self.winners[v as usize] = player;
                for &u in self.predecessors.successors(v) {
                    self.live_moves[u as usize] -= 1;
                }
            }
        }
        let slots = &self.slots;
        self.order.retain(|&v| slots[v as usize].region != SOLVED);
        Ok(())
    }
}

/// The vertices ordered by descending priority, those of one priority by
/// number where games have many: one counting pass with a bucket per
/// priority where the highest priority is at most the number of vertices,
/// a radix sort of two passes on 16-bit digits where games have millions
/// of vertices and higher priorities. [`SolveError::Stopped`] once
/// `watch` sees the stop signal.
fn by_descending_priority(priorities: &[u32], watch: &Watch<'_>) -> Result<Vec<u32>, SolveError> {
    let highest = priorities.iter().copied().max().unwrap_or(0);
    let vertices = 0..priorities.len() as u32;
    if highest as usize <= priorities.len() {
        let bucket = |v: u32| (highest - priorities[v as usize]) as usize;
        return counting_pass(vertices, highest as usize + 1, bucket, watch);
    }
    let keys = |v: u32| !priorities[v as usize];
    if priorities.len() < 1 << 16 {
        let mut order: Vec<u32> = vertices.collect();
        order.sort_unstable_by_key(|&v| keys(v));
        return Ok(order);
    }
    let low_digit = |v: u32| (keys(v) & 0xffff) as usize;
    let by_low_digit = counting_pass(vertices, 1 << 16, low_digit, watch)?;
    let high_digit = |v: u32| (keys(v) >> 16) as usize;
    counting_pass(by_low_digit.into_iter(), 1 << 16, high_digit, watch)
}

/// `vertices` sorted by `bucket` (below `buckets`), keeping their order
/// within a bucket; [`SolveError::Stopped`] once `watch` sees the stop
/// signal.
fn counting_pass(
    vertices: impl Iterator<Item = u32> + Clone,
    buckets: usize,
    bucket: impl Fn(u32) -> usize,
    watch: &Watch<'_>,
) -> Result<Vec<u32>, SolveError> {
    let mut starts = vec![0u32; buckets + 1];
    for (i, v) in vertices.clone().enumerate() {
        watch.poll(i)?;
        starts[bucket(v) + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut sorted = vec![0u32; starts[buckets] as usize];
    for (i, v) in vertices.enumerate() {
        watch.poll(i)?;
        let slot = &mut starts[bucket(v)];
        sorted[*slot as usize] = v;
        *slot += 1;
    }
    Ok(sorted)
}

/// Tarjan's strongly connected components over a set of vertices, with
/// arrays kept from one call to the next.
#[derive(Default)]
struct ComponentSearch {
    /// Per vertex (sized by the caller): its visit number and the least
    /// visit number it reaches, [`DONE`] once its component is complete;
    /// then the visit number is replaced by the component's number.
    /// Numbers below `base` are from earlier searches.
    numbers: Vec<[u32; 2]>,
    stack: Vec<u32>,
    calls: Vec<(u32, u32)>,
    clock: u32,
    base: u32,
    component: Vec<u32>,
    members: Vec<(u32, u32)>,
    escapes: Vec<u32>,
}

/// Low number of a vertex whose component is complete.
const DONE: u32 = u32::MAX;

impl ComponentSearch {
    /// Finds the strongly connected components of the graph on `members`
    /// (`within` says which vertices those are; no member moves to
    /// another vertex that `within` accepts) with the moves `moves(v)`,
    /// those to non-members ignored. Calls `found` with each component
    /// that has a cycle and that no move leaves, and two scratch vectors.
    /// [`SolveError::Stopped`] (the search left unfinished) once `watch`
    /// sees the stop signal.
    fn bottom_components<'m>(
        &mut self,
        members: &[u32],
        moves: impl Fn(u32) -> &'m [u32],
        within: impl Fn(u32) -> bool,
        watch: &Watch<'_>,
        mut found: impl FnMut(&[u32], &mut Vec<(u32, u32)>, &mut Vec<u32>),
    ) -> Result<(), SolveError> {
        // Visit and component numbers both come from the clock.
        if u64::from(self.clock) + 2 * members.len() as u64 + 2 >= u64::from(DONE) {
            self.numbers.fill([0, 0]);
            self.clock = 0;
        }
        self.clock += 1;
        self.base = self.clock;
        let mut finished = 0;
        for (i, &root) in members.iter().enumerate() {
            watch.poll(i)?;
            if self.numbers[root as usize][0] >= self.base {
                continue;
            }
            self.enter(root);
            while let Some(&mut (v, ref mut next)) = self.calls.last_mut() {
                let out = moves(v);
                let mut i = *next as usize;
                while i < out.len() && !within(out[i]) {
                    i += 1;
                }
                if let Some(&w) = out.get(i) {
                    *next = i as u32 + 1;
                    let [visit, low] = self.numbers[w as usize];
                    if visit < self.base {
                        self.enter(w);
                    } else if low != DONE {
                        let own = &mut self.numbers[v as usize][1];
                        *own = (*own).min(visit);
                    }
                    continue;
                }
                self.calls.pop();
                watch.poll(finished)?;
                finished += 1;
                let [visit, low] = self.numbers[v as usize];
                if let Some(&(parent, _)) = self.calls.last() {
                    let own = &mut self.numbers[parent as usize][1];
                    *own = (*own).min(low);
                }
                if low == visit {
                    self.complete(v, &moves, &within, watch, &mut found)?;
                }
            }
        }
        Ok(())
    }

    /// Pops the component of `root` off the stack, numbers it, and hands
    /// it to `found` when it is bottom and has a cycle;
    /// [`SolveError::Stopped`] once `watch` sees the stop signal.
    fn complete<'m>(
        &mut self,
        root: u32,
        moves: &impl Fn(u32) -> &'m [u32],
        within: &impl Fn(u32) -> bool,
        watch: &Watch<'_>,
        found: &mut impl FnMut(&[u32], &mut Vec<(u32, u32)>, &mut Vec<u32>),
    ) -> Result<(), SolveError> {
        self.clock += 1;
        let number = self.clock;
        self.component.clear();
        while let Some(w) = self.stack.pop() {
            self.numbers[w as usize] = [number, DONE];
            self.component.push(w);
            if w == root {
                break;
            }
        }
        let mut cyclic = self.component.len() > 1;
        let mut bottom = true;
        for (i, &w) in self.component.iter().enumerate() {
            watch.poll(i)?;
            let out = moves(w);
            cyclic |= out.contains(&w);
            bottom &= out
                .iter()
                .all(|&x| !within(x) || self.numbers[x as usize][0] == number);
        }
        if bottom && cyclic {
            found(&self.component, &mut self.members, &mut self.escapes);
        }
        Ok(())
    }

    /// Numbers `v` and starts its call.
    fn enter(&mut self, v: u32) {
        self.clock += 1;
        self.numbers[v as usize] = [self.clock, self.clock];
        self.stack.push(v);
        self.calls.push((v, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parity::{POLL_INTERVAL, reference, verify};

    /// A game shaped like Oink's `counter_ortl` family, with `n` of each
    /// part: a hub (priority 0, Odd) with a self-loop and a move to every
    /// link of a chain; link `i` (priority `2i + 2`, Even) back to the hub
    /// or to gate `i`; gate `i` (even, above the chain) into Odd's vertex
    /// of pair `i`, a two-cycle of priority 1 whose Even vertex may leave
    /// by exit `i` (the odd priority above the gate) back to link `i`.
    /// Even wins everything: the hub and the chain are Even's dominion,
    /// which the pairs, Odd's tangles, reach by their exits.
    fn counter_like(n: u32) -> ParityGame {
        let hub = 0;
        let link = |i: u32| 1 + i;
        let even_of_pair = |i: u32| 1 + n + 2 * i;
        let odd_of_pair = |i: u32| 2 + n + 2 * i;
        let gate = |i: u32| 1 + 3 * n + 2 * i;
        let exit = |i: u32| 2 + 3 * n + 2 * i;
        let mut priorities = vec![0];
        let mut owners = vec![Player::Odd];
        let mut edges = vec![(hub, hub)];
        for i in 0..n {
            priorities.push(2 * i + 2);
            owners.push(Player::Even);
            edges.extend([(hub, link(i)), (link(i), hub), (link(i), gate(i))]);
        }
        for i in 0..n {
            priorities.extend([1, 1]);
            owners.extend([Player::Even, Player::Odd]);
            edges.extend([
                (even_of_pair(i), odd_of_pair(i)),
                (even_of_pair(i), exit(i)),
                (odd_of_pair(i), even_of_pair(i)),
            ]);
        }
        for i in 0..n {
            priorities.extend([2 * n + 2 + 2 * i, 2 * n + 3 + 2 * i]);
            owners.extend([Player::Even, Player::Even]);
            edges.extend([(gate(i), odd_of_pair(i)), (exit(i), link(i))]);
        }
        ParityGame {
            priorities,
            owners,
            edges: Csr::from_edges(1 + 5 * n, edges).unwrap(),
            names: Vec::new(),
        }
    }

    #[test]
    fn a_counter_like_game_is_learned_in_two_passes_whatever_its_size() {
        for n in [1, 10, 200] {
            let game = counter_like(n);
            game.validate().unwrap();
            let options = SolveOptions::default();
            let predecessors = game.edges.transpose();
            let (solution, passes) = solve_counting_passes(&game, &predecessors, &options).unwrap();
            // One pass learns every pair; the next finds the chain's
            // dominion only if the chain's even priorities are one region.
            assert_eq!(passes, 2, "n = {n}");
            assert_eq!(solution.won_by(Player::Even), u64::from(1 + 5 * n));
            verify::verify(&game, &solution).unwrap();
            // Zielonka's algorithm takes time exponential in `n` here.
            if n <= 10 {
                let expected = reference::solve(&game, &predecessors, &options).unwrap();
                assert_eq!(solution.winners, expected.winners, "n = {n}");
            }
        }
    }

    /// A ring of `vertices` vertices of Even's, each moving to the next;
    /// vertex 0 of priority 2, the others of priority 1. Even's attractor
    /// of vertex 0 is the whole ring, drawn in one vertex at a time
    /// backwards from it.
    fn ring(vertices: u32) -> ParityGame {
        let mut priorities = vec![1; vertices as usize];
        priorities[0] = 2;
        let moves = (0..vertices).map(|v| (v, (v + 1) % vertices));
        ParityGame {
            priorities,
            owners: vec![Player::Even; vertices as usize],
            edges: Csr::from_edges(vertices, moves).unwrap(),
            names: Vec::new(),
        }
    }

    #[test]
    fn a_stop_ends_an_attractor_within_a_poll_interval() {
        let vertices = 8 * POLL_INTERVAL as u32;
        let game = ring(vertices);
        let predecessors = game.edges.transpose();
        for stopped in [false, true] {
            let options = SolveOptions::default();
            let watch = Watch::new(&options, "passes");
            let mut run = Learning::new(&game, &predecessors, &watch).unwrap();
            run.reset();
            run.slots[0].region = 0;
            run.zone.push(0);
            if stopped {
                options.stop.request();
            }
            let attracted = run.attract(Player::Even, 0, 0, &watch);
            if stopped {
                // Each vertex drawn from the queue draws in the one before
                // it on the ring: at most a poll interval of them.
                assert!(matches!(attracted, Err(SolveError::Stopped)));
                assert!(run.zone.len() <= 1 + POLL_INTERVAL, "{}", run.zone.len());
            } else {
                attracted.unwrap();
                assert_eq!(run.zone.len(), vertices as usize);
            }
        }
    }

    #[test]
    fn every_sort_orders_the_vertices_by_descending_priority() {
        let scattered = |v: u32| v.wrapping_mul(2_654_435_761) >> (v % 29);
        // A comparison sort (few vertices, high priorities), the radix
        // sort (many vertices, high priorities), and a counting pass (no
        // priority above the number of vertices).
        let cases: [(u32, &dyn Fn(u32) -> u32); 4] = [
            (5, &scattered),
            (70_000, &scattered),
            (70_000, &|v| v % 101),
            (300, &|v| (v * 7) % 301),
        ];
        for (vertices, priority) in cases {
            let priorities: Vec<u32> = (0..vertices).map(priority).collect();
            let options = SolveOptions::default();
            let watch = Watch::new(&options, "passes");
            let order = by_descending_priority(&priorities, &watch).unwrap();
            let mut expected: Vec<u32> = (0..vertices).collect();
            expected.sort_by_key(|&v| std::cmp::Reverse(priorities[v as usize]));
            let sorted: Vec<u32> = order.iter().map(|&v| priorities[v as usize]).collect();
            let wanted: Vec<u32> = expected.iter().map(|&v| priorities[v as usize]).collect();
            assert_eq!(sorted, wanted, "{vertices} vertices");
            let mut seen = order.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..vertices).collect::<Vec<_>>());
        }
    }
}
