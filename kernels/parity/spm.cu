// Small progress measures on the GPU (crate::parity::gpu), after Bootsma's
// thesis: the vertices of an implicit work queue (a dirty flag per vertex)
// are lifted, and launches repeat until one raises nothing. A tile of
// lanes (`tile`: enough for a measure's components, a power of two up to
// a warp) lifts one vertex at a time, reading neighbouring components of
// a measure at once: measures have a component per opponent's priority
// (100 on a game of 200 priorities), and a thread that compared them one
// component at a time, each a read that waits for the one before, took
// tens of microseconds a lift, which a round of a few vertices waited for.
// A vertex with more moves than its tile has lanes lets each lane choose
// among moves of its own, and in the grid-wide launches a vertex with more
// moves or predecessors than a warp has lanes is lifted by a whole warp
// (is_heavy): prop50_1k's source, with a move into each of 50 paths, is
// lifted in each of its 1,000 rounds, and a tile of 2 lanes comparing one
// move after another held every round for about 40 us (on an H200 its
// rounds took 41 us before, 19.5 us since:
// benches/results/2026-12-04a-h200-spm-heavy/).
//
// Measures of one player P: a u32 component per priority that favours the
// opponent, stored row by row (component c of vertex v at v * width + c,
// so that a tile comparing two measures reads neighbouring words); ⊤ is a
// bit per vertex. Measures only grow, so any measure read is at most the
// least fixpoint; but a measure written component by component while
// another thread reads it could be read torn, mixing old and new
// components into a value above both. So measures are double-buffered:
// launch k reads `read_measures` and writes `write_measures`, the host
// swapping them between launches, and a vertex raised by launch k - 1
// copies its measure into the other buffer in launch k (`changed_last`),
// so that both buffers agree again. ⊤, one bit, is set in place with
// atomicOr: reading it early only helps, but a tile reads each ⊤ bit it
// branches on in one lane and shares it, so that its lanes agree. A vertex
// raised marks its predecessors in `dirty_next`, lifted by the next
// launch; `dirty` of this launch is only read and cleared by the warp
// whose tile lifts the vertex. The host zeroes each launch's count of
// raised vertices before the launch (the thesis resets its "changed" flag
// inside the kernel, which races with blocks still running).
//
// Those grid-wide launches lift each queued vertex once. A game may need
// millions of such rounds, each raising a handful of vertices (a measure
// counting up around a short cycle, one step a round), and a launch costs
// microseconds however little it does. So while the queue is short, the
// host runs `spm_lift_queue` instead: one block that keeps the queued
// vertices in a list and runs many rounds in one launch, each round in
// two phases separated by barriers: every listed vertex computes its new
// measure from the measures as they are (into `pending`), then the raised
// ones write theirs and queue their predecessors. These are the very
// rounds of `spm_lift` (reads never meet writes), only cheaper; the
// host switches back to grid-wide launches when the list would overflow.
// Any order of lifts reaches the same least fixpoint anyway (lifting is
// monotone and only ever raises a measure to at most its value in the
// least fixpoint), so the measures, and the strategy picked from them,
// are the CPU solver's whatever the mix of launches.
//
// With shortcuts (crate::parity::shortcuts), moves carry priorities of
// their own (`move_priorities`), the highest of the chain of one-move
// vertices they skip, and the strategy names a move's first step in the
// game (`first_steps`). The progress along each move then has a shape of
// its own, and a lift compares the moves' progress, not their targets'
// measures.

#include "common/grid.cuh"
#include "common/warp.cuh"

struct SpmParams {
    unsigned long long offsets;             // u64[vertices + 1]: each vertex's first move
    unsigned long long targets;             // u32: the moves' targets
    unsigned long long predecessor_offsets; // u64[vertices + 1]
    unsigned long long predecessors;        // u32: the moves' sources, by target
    unsigned long long priorities;          // u32[vertices], compressed
    unsigned long long owners;              // u8[vertices]: 0 Even, 1 Odd
    unsigned long long bounds;              // u32[width]: the largest value of each component
    unsigned long long read_measures;       // u32[vertices * width], row by row
    unsigned long long write_measures;      // u32[vertices * width], row by row
    unsigned long long top;                 // u32[(vertices + 31) / 32]: bit v set when v's measure is ⊤
    unsigned long long dirty;               // u8[vertices]: lift in this launch
    unsigned long long dirty_next;          // u8[vertices]: lift in the next launch
    unsigned long long changed_last;        // u8[vertices]: raised (not to ⊤) by the last launch
    unsigned long long raised;              // u64: vertices this launch raised, zeroed by the host
    unsigned long long strategy;            // u32[vertices]: the move chosen (spm_strategy)
    unsigned long long lists;               // u32[2 * queue_capacity]: spm_lift_queue's lists
    unsigned long long pending;             // u32[queue_capacity * width]: new measures, by list slot
    unsigned long long vertices;
    unsigned long long width;               // components per measure
    unsigned long long player;              // whose measures: 0 Even, 1 Odd
    unsigned long long queue_capacity;      // slots of each list, at most QUEUE_CAPACITY
    unsigned long long strides;             // spm_lift_queue's budget (see there)
    unsigned long long member;              // u8[vertices]: the set W of spm_won_* and spm_give_up
    unsigned long long check;               // u8[vertices]: look at these in this spm_won_round
    unsigned long long check_next;          // u8[vertices]: look at these in the next one
    unsigned long long tile;                // lanes that lift a vertex together: 1, 2, 4, 8, 16 or 32
    unsigned long long move_priorities;     // u32: each move's priority (shortcuts), or 0: its source's
    unsigned long long first_steps;         // u32: each move's first step in the game (`targets` without shortcuts)
    unsigned long long predecessor_priorities; // u32: each move's priority by target (shortcuts), or 0: its source's
    unsigned long long heavy;               // u32[heavy_count]: the vertices a whole warp lifts (see is_heavy)
    unsigned long long heavy_bits;          // u32[(vertices + 31) / 32]: bit v set when v is listed in `heavy`
    unsigned long long heavy_count;
    unsigned long long heavy_warps;         // warps of a grid-wide launch that take `heavy`, the first ones
};

#include "abi_check.h"

// The position of no move in `targets`.
#define NO_EDGE 0xffffffffffffffffull

// The tile of lanes that lifts one vertex: lane `tile_lane` of p.tile
// lanes of the warp from lane `tile_base`. Tiles of a warp go their own
// ways; the warp-level steps name the tile's lanes.
__device__ __forceinline__ unsigned tile_lane(const SpmParams& p) { return threadIdx.x & ((unsigned)p.tile - 1); }
__device__ __forceinline__ unsigned tile_base(const SpmParams& p) { return (threadIdx.x & 31u) & ~((unsigned)p.tile - 1); }
__device__ __forceinline__ unsigned tile_mask(const SpmParams& p) {
    return p.tile == 32 ? FULL_MASK : ((1u << p.tile) - 1) << tile_base(p);
}
// The tile's lanes where `pred` holds, as bits from the tile's first lane.
__device__ __forceinline__ unsigned tile_ballot(const SpmParams& p, bool pred) {
    return __ballot_sync(tile_mask(p), pred) >> tile_base(p);
}
// `value` of the tile's lane `from`.
template <typename T>
__device__ __forceinline__ T tile_shuffle(const SpmParams& p, T value, unsigned from) {
    return __shfl_sync(tile_mask(p), value, from, (int)p.tile);
}
// `value` of the tile's lane whose number differs from this lane's in
// the bits of `bits`.
template <typename T>
__device__ __forceinline__ T tile_shuffle_xor(const SpmParams& p, T value, unsigned bits) {
    return __shfl_xor_sync(tile_mask(p), value, bits, (int)p.tile);
}

// p with tiles of `lanes` lanes: 1 for a lane that works alone, 32 for a
// whole warp.
__device__ __forceinline__ SpmParams with_tile(const SpmParams& p, unsigned lanes) {
    SpmParams q = p;
    q.tile = lanes;
    return q;
}

// Whether v has more moves or predecessors than a warp has lanes (the
// host lists those in p.heavy): in the grid-wide launches a whole warp
// lifts it, its lanes taking its moves and predecessors at once (see the
// top of the file). spm_lift_queue's tiles lift such vertices too: warps
// of their own made its rounds no faster, and the kernel's code twice as
// large made them slower (benches/results/2026-12-04a-h200-spm-heavy/).
__device__ __forceinline__ bool is_heavy(const SpmParams& p, unsigned v) {
    return p.heavy_count && ((((const unsigned*)p.heavy_bits)[v / 32] >> (v % 32)) & 1u);
}

// Whether v's measure is ⊤ (read past the L1 cache: other blocks set bits).
__device__ __forceinline__ bool is_top(const SpmParams& p, unsigned v) {
    const unsigned* top = (const unsigned*)p.top;
    return (__ldcg(top + v / 32) >> (v % 32)) & 1u;
}

// is_top as the tile's first lane read it, so that its lanes branch alike.
__device__ __forceinline__ bool tile_is_top(const SpmParams& p, unsigned v) {
    unsigned top = 0;
    if (tile_lane(p) == 0) top = is_top(p, v);
    return tile_shuffle(p, top, 0) != 0;
}

__device__ __forceinline__ void set_top(const SpmParams& p, unsigned v) {
    atomicOr((unsigned*)p.top + v / 32, 1u << (v % 32));
}

// v's measure: `width` components from the lowest (T: unsigned or const
// unsigned).
template <typename T>
__device__ __forceinline__ T* row_of(const SpmParams& p, T* measures, unsigned v) {
    return measures + (unsigned long long)v * p.width;
}

// The order of x and y (components c of two measures, given as functions
// of c) on the components from `cut` up, compared from the highest down:
// negative, 0 or positive; the highest component where they differ goes
// into `*differ_at` when given. Called by the whole tile: lane l looks at
// the component l below the highest of each step of p.tile.
template <typename X, typename Y>
__device__ int compare_down(const SpmParams& p, unsigned cut, X x, Y y, unsigned* differ_at = nullptr) {
    const unsigned lane = tile_lane(p), step = (unsigned)p.tile;
    for (unsigned high = (unsigned)p.width; high > cut; high = high > step ? high - step : 0) {
        unsigned xc = 0, yc = 0;
        if (lane < high - cut) {
            xc = x(high - 1 - lane);
            yc = y(high - 1 - lane);
        }
        const unsigned differ = tile_ballot(p, xc != yc);
        if (differ) {
            const unsigned first = __ffs(differ) - 1;
            if (differ_at) *differ_at = high - 1 - first;
            return tile_shuffle(p, xc < yc ? -1 : 1, first);
        }
    }
    return 0;
}

// The order of the measures of a and b (neither ⊤) on the components from
// `cut` up. Called by the whole tile.
__device__ int compare_from(const SpmParams& p, const unsigned* measures, unsigned a, unsigned b, unsigned cut) {
    const unsigned *x = row_of(p, measures, a), *y = row_of(p, measures, b);
    return compare_down(p, cut, [&](unsigned c) { return x[c]; }, [&](unsigned c) { return y[c]; });
}

// The first component that matters to a move of `priority`: lower ones
// count priorities below it, which a pass along it forgets.
__device__ __forceinline__ unsigned first_component(const SpmParams& p, unsigned priority) {
    return (priority + (unsigned)p.player) / 2;
}

// The priority of v's move e: its own with shortcuts, else v's.
__device__ __forceinline__ unsigned move_priority(const SpmParams& p, unsigned v, unsigned long long e) {
    return p.move_priorities ? ((const unsigned*)p.move_priorities)[e] : ((const unsigned*)p.priorities)[v];
}

// The move of v that P's progress measures favour when v's moves share
// its priority, the tile's lanes taking the moves in turn together: the
// successor whose measure, from `cut` up, is least when `least` (P's
// choice), else the greatest (the opponent's); ⊤ is the greatest of all.
// The first one on a tie, as the CPU solver (crate::parity::spm) chooses.
// Progress adds the same increment to every move's measure, which keeps
// their order, so the successors' measures are compared as they are.
// Gives the move's position in `targets` (NO_EDGE for a vertex without
// moves: its self-loops favoured the opponent and were all it had) and
// sets `chosen_top` to whether the successor chosen was ⊤ when compared
// (a bit set since then must not count, as the other moves were compared
// with its measure), true without moves: the owner loses such a vertex,
// as on the CPU. The same choice as `extreme` makes of progress without
// increments, but cheaper: choosing through `extreme` here took tc-10
// from 2.94 to 3.51 s and pgrand-200k-s11 from 0.107-0.115 to
// 0.125-0.136 s, most of it in the one-block launches
// (benches/results/2026-12-04a-h200-spm-heavy/, call C, v6 against v7).
// Called by the whole tile.
__device__ unsigned long long extreme_move(const SpmParams& p, const unsigned* measures, unsigned v, unsigned cut,
                                           bool least, bool& chosen_top) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    if (offsets[v] == offsets[v + 1]) {
        chosen_top = true;
        return NO_EDGE;
    }
    unsigned long long best = offsets[v];
    bool best_top = tile_is_top(p, targets[best]);
    for (unsigned long long e = offsets[v] + 1; e < offsets[v + 1] && !(best_top && !least); ++e) {
        const unsigned w = targets[e];
        const bool w_top = tile_is_top(p, w);
        const bool better = least ? best_top ? !w_top : !w_top && compare_from(p, measures, w, targets[best], cut) < 0
                                  : w_top || compare_from(p, measures, w, targets[best], cut) > 0;
        if (better) {
            best = e;
            best_top = w_top;
        }
    }
    chosen_top = best_top;
    return best;
}

// The highest component of a measure that changed when it became ⊤: a
// change every move sees.
#define ALL_COMPONENTS 0xffffffffu

// Whether the move that is predecessor entry e of a vertex sees a change
// of that vertex's measure whose highest changed component is `changed`:
// the progress along a move reads the components from the first that
// matters to the move's priority up, so a change below it changes nothing
// there (as the CPU solver's queue, crate::parity::spm). Looked at with
// shortcuts only: a chain's end raised low down would otherwise flag
// every vertex that skips into it (on an H200 `tc-10` took 5.1 s instead
// of 3.75), while without shortcuts the filter took
// `syntcomp-genbuf2` from 0.036-0.041 s to 0.061-0.066 s (281,457 raises
// against 131,360: a vertex left unflagged is lifted later, in other
// steps; benches/results/2026-12-03i-h200-spm-shortcuts/, call B).
__device__ __forceinline__ bool sees_change(const SpmParams& p, unsigned long long e, unsigned changed) {
    return !p.predecessor_priorities ||
           changed >= first_component(p, ((const unsigned*)p.predecessor_priorities)[e]);
}

// Calls visit(u) for each predecessor u of v that is not ⊤ and sees
// v's change (`changed`: the highest component that changed,
// sees_change), a predecessor a lane. Called by the whole tile.
template <typename Visit>
__device__ __forceinline__ void for_predecessors_seeing(const SpmParams& p, unsigned v, unsigned changed,
                                                        Visit visit) {
    const unsigned long long* offsets = (const unsigned long long*)p.predecessor_offsets;
    const unsigned* predecessors = (const unsigned*)p.predecessors;
    for (unsigned long long e = offsets[v] + tile_lane(p); e < offsets[v + 1]; e += p.tile) {
        const unsigned u = predecessors[e];
        if (sees_change(p, e, changed) && !is_top(p, u)) visit(u);
    }
}

// Marks v's predecessors that are not ⊤ and see its change for the next
// launch (for_predecessors_seeing).
__device__ void mark_predecessors(const SpmParams& p, unsigned v, unsigned changed) {
    unsigned char* dirty_next = (unsigned char*)p.dirty_next;
    for_predecessors_seeing(p, v, changed, [&](unsigned u) { dirty_next[u] = 1; });
}

// What lifting a vertex did.
enum Lift { UNCHANGED, RAISED, RAISED_TO_TOP };

// The shape of the progress that a vertex of `priority` (first component
// that matters `cut`) needs to move to w (not ⊤), from the measures
// `read`: components below `zeroed` are 0, component `incremented`
// (p.width when none) is w's plus one, the others are w's. One more pass
// of a priority that favours the opponent counts at `cut`, carrying into
// higher components past their bounds; false when it carries past the
// last (the progress is ⊤). Called by the whole tile: the first
// component from `cut` up below its bound, p.tile at a time.
__device__ bool progress_shape(const SpmParams& p, const unsigned* read, unsigned priority, unsigned w, unsigned cut,
                               unsigned& zeroed, unsigned& incremented) {
    const unsigned* bounds = (const unsigned*)p.bounds;
    const unsigned* measure = row_of(p, read, w);
    const unsigned width = (unsigned)p.width;
    zeroed = cut;
    incremented = width;
    if ((priority & 1u) == p.player) return true;
    for (unsigned low = cut; low < width; low += (unsigned)p.tile) {
        const unsigned c = low + tile_lane(p);
        const unsigned below = tile_ballot(p, c < width && measure[c] < bounds[c]);
        if (below) {
            incremented = low + __ffs(below) - 1;
            break;
        }
    }
    zeroed = incremented;
    return incremented < width;
}

// The progress along a move to w: w's measure with components below
// `zeroed` at 0 and component `incremented` plus one (progress_shape), or
// ⊤ (`top`).
struct Progress {
    unsigned w, zeroed, incremented;
    bool top;
};

// The progress along a move of `priority` to w (⊤ when w is). Called by
// the whole tile.
__device__ Progress progress_along(const SpmParams& p, const unsigned* read, unsigned priority, unsigned w) {
    Progress g = {w, 0, 0, tile_is_top(p, w)};
    if (!g.top) g.top = !progress_shape(p, read, priority, w, first_component(p, priority), g.zeroed, g.incremented);
    return g;
}

// Component c of progress g (not ⊤).
__device__ __forceinline__ unsigned progress_component(const SpmParams& p, const unsigned* read, const Progress& g,
                                                       unsigned c) {
    return c < g.zeroed ? 0u : row_of(p, read, g.w)[c] + (c == g.incremented);
}

// The order of progress a against b (neither ⊤), from the highest
// component down to the lowest that is not 0 in both. Called by the whole
// tile.
__device__ int compare_progress(const SpmParams& p, const unsigned* read, const Progress& a, const Progress& b) {
    return compare_down(
        p, min(a.zeroed, b.zeroed), [&](unsigned c) { return progress_component(p, read, a, c); },
        [&](unsigned c) { return progress_component(p, read, b, c); });
}

// The order of v's measure against progress g (not ⊤), from the highest
// component down; the highest component where they differ goes into
// `*differ_at` when given. Called by the whole tile.
__device__ int compare_with_progress(const SpmParams& p, const unsigned* read, unsigned v, const Progress& g,
                                     unsigned* differ_at = nullptr) {
    const unsigned* mine = row_of(p, read, v);
    return compare_down(
        p, 0, [&](unsigned c) { return mine[c]; }, [&](unsigned c) { return progress_component(p, read, g, c); },
        differ_at);
}

// Whether P's measures favour progress g, along move e, over progress h,
// along move f (e != f): the lesser when `least` (P's choice), else the
// greater (the opponent's), ⊤ above all; the first move on a tie, as the
// CPU solver (crate::parity::spm) chooses. Called by the whole tile.
__device__ bool favoured(const SpmParams& p, const unsigned* read, bool least, const Progress& g, unsigned long long e,
                         const Progress& h, unsigned long long f) {
    if (g.top || h.top) return g.top == h.top ? e < f : g.top != least;
    const int order = compare_progress(p, read, g, h);
    return order == 0 ? e < f : (order < 0) == least;
}

// Whether a tile choosing among `moves` moves lets each lane take moves
// of its own (extreme): where there are more moves than lanes. Where
// there are fewer, the lanes choose together, a component of a measure
// a lane: on prop50_1k, lanes that each took one of a vertex's two moves
// made the one-block launches twice as slow, and the grid-wide ones no
// faster (benches/results/2026-12-04a-h200-spm-heavy/, call B).
__device__ __forceinline__ bool lanes_over_moves(const SpmParams& p, unsigned long long moves) {
    return moves > p.tile;
}

// The move of v whose progress P's measures favour most (favoured), the
// progress along move e being along(q, e) for a tile q: gives its
// position in `targets` (NO_EDGE without moves) and its progress in
// `chosen` (⊤ without moves). Either the tile's lanes take the moves in
// turn together, a component a lane, or (lanes_over_moves) each lane
// takes every p.tile-th move alone and keeps its favourite, and then the
// lanes pair off, swapping favourites, until each holds the favourite of
// all: `favoured` is a total order, so both lanes of a pair keep the
// same. A move's ⊤ bit is read once, by the lane that takes the move,
// and travels with it: a bit set since then must not count, as other
// moves were compared with the measure. Called by the whole tile.
template <typename Along>
__device__ unsigned long long extreme(const SpmParams& p, const unsigned* read, unsigned v, bool least, Along along,
                                      Progress& chosen) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned long long first = offsets[v], last = offsets[v + 1];
    unsigned long long best = NO_EDGE;
    chosen = {0, 0, 0, true};
    // Nothing comes before the first ⊤ in the opponent's choice.
    const auto settled = [&] { return best != NO_EDGE && chosen.top && !least; };
    const auto consider = [&](const SpmParams& q, const Progress& g, unsigned long long e) {
        if (best == NO_EDGE || favoured(q, read, least, g, e, chosen, best)) {
            best = e;
            chosen = g;
        }
    };
    if (!lanes_over_moves(p, last - first)) {
        for (unsigned long long e = first; e < last && !settled(); ++e) consider(p, along(p, e), e);
        return best;
    }
    const SpmParams alone = with_tile(p, 1);
    for (unsigned long long e = first + tile_lane(p); e < last && !settled(); e += p.tile) {
        consider(alone, along(alone, e), e);
    }
    for (unsigned bits = 1; bits < p.tile; bits *= 2) {
        const unsigned long long e = tile_shuffle_xor(p, best, bits);
        const Progress g = {tile_shuffle_xor(p, chosen.w, bits), tile_shuffle_xor(p, chosen.zeroed, bits),
                            tile_shuffle_xor(p, chosen.incremented, bits),
                            tile_shuffle_xor(p, (unsigned)chosen.top, bits) != 0};
        if (e != NO_EDGE) consider(alone, g, e);
    }
    return best;
}

// The move of v that P's measures favour (the least progress when
// `least`, else the greatest) and its progress, into `chosen`: gives its
// position in `targets`, NO_EDGE without moves (`chosen` then ⊤). With
// shortcuts each move's progress has a shape of its own (extreme);
// without, the moves share v's priority, and the successors' measures
// are compared (extreme_move, or extreme on progress of no increment
// where lanes take moves of their own), the chosen one's progress shaped
// after. Called by the whole tile.
__device__ unsigned long long chosen_move(const SpmParams& p, const unsigned* read, unsigned v, bool least,
                                          Progress& chosen) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    if (p.move_priorities) {
        const unsigned* priorities = (const unsigned*)p.move_priorities;
        return extreme(
            p, read, v, least,
            [&](const SpmParams& q, unsigned long long e) { return progress_along(q, read, priorities[e], targets[e]); },
            chosen);
    }
    const unsigned priority = ((const unsigned*)p.priorities)[v];
    const unsigned cut = first_component(p, priority);
    unsigned long long e;
    if (lanes_over_moves(p, offsets[v + 1] - offsets[v])) {
        e = extreme(
            p, read, v, least,
            [&](const SpmParams& q, unsigned long long e) {
                const unsigned w = targets[e];
                return Progress{w, cut, (unsigned)p.width, tile_is_top(q, w)};
            },
            chosen);
    } else {
        e = extreme_move(p, read, v, cut, least, chosen.top);
        if (!chosen.top) chosen.w = targets[e];
    }
    if (!chosen.top) chosen.top = !progress_shape(p, read, priority, chosen.w, cut, chosen.zeroed, chosen.incremented);
    return e;
}

// Lifts v (not ⊤) from the measures `read`: its owner, when it is P,
// takes the move of least progress, else the move of greatest; the
// progress along a move is the successor's measure from the first
// component that matters to the move's priority up, plus one at that
// component when the priority favours the opponent (carrying into higher
// components past their bounds, ⊤ past the last). A measure above v's is
// written into `out` (`width` components); nothing is written otherwise.
// A raise leaves in `changed` the highest component that changed
// (ALL_COMPONENTS for ⊤). Called by the whole tile.
__device__ Lift lift(const SpmParams& p, const unsigned* read, unsigned v, unsigned* out, unsigned& changed) {
    const bool own = ((const unsigned char*)p.owners)[v] == p.player;
    Progress needed;
    chosen_move(p, read, v, own, needed);
    changed = ALL_COMPONENTS;
    if (needed.top) {
        if (tile_lane(p) == 0) set_top(p, v);
        return RAISED_TO_TOP;
    }
    if (compare_with_progress(p, read, v, needed, &changed) >= 0) return UNCHANGED;
    for (unsigned c = tile_lane(p); c < p.width; c += p.tile) out[c] = progress_component(p, read, needed, c);
    return RAISED;
}

// Copies v's measure from `read_measures` into `write_measures`. Called by
// the whole tile.
__device__ void keep_measure(const SpmParams& p, unsigned v) {
    const unsigned* read = row_of(p, (const unsigned*)p.read_measures, v);
    unsigned* write = row_of(p, (unsigned*)p.write_measures, v);
    for (unsigned c = tile_lane(p); c < p.width; c += p.tile) write[c] = read[c];
}

// Adds this thread's count to the launch's: one atomic per warp.
__device__ __forceinline__ void add_raised(const SpmParams& p, unsigned long long raised) {
    for (int offset = 16; offset > 0; offset /= 2) raised += __shfl_down_sync(FULL_MASK, raised, offset);
    if ((threadIdx.x & 31u) == 0 && raised) atomicAdd((unsigned long long*)p.raised, raised);
}

// Runs body(v, kinds) for each vertex v whose kinds = flagged(v), two
// bits, are not 0: the warp's lanes test `span` vertices at once, and
// each tile takes every (32 / p.tile)-th of those flagged, in turn. Warp
// `warp` of `warps` takes the vertices `span` at a time, every `warps *
// span`. The span is one vertex a tile where the warps can go over all
// vertices so (the host launches a tile for every vertex where the grid
// allows): a tile then lifts at most one vertex a launch, where a span of
// 32 had it lift up to p.tile of them one after another, and the round
// waited for the slowest (on an H200, prop50_1k's lifting took 43.9 ms
// instead of 50.8: benches/results/2026-12-03n-h200-spm-local/, call B).
// Else 32: fewer, wider steps over the flags.
template <typename Flagged, typename Body>
__device__ void for_flagged_vertices(const SpmParams& p, unsigned long long warp, unsigned long long warps,
                                     Flagged flagged, Body body) {
    const unsigned lane = threadIdx.x & 31u, tiles = 32 / (unsigned)p.tile, tile = lane / (unsigned)p.tile;
    const unsigned span = warps * tiles >= p.vertices ? tiles : 32u;
    for (unsigned long long base = warp * span; base < p.vertices; base += warps * span) {
        const unsigned kinds = lane < span && base + lane < p.vertices ? flagged((unsigned)(base + lane)) : 0u;
        const unsigned first_kind = __ballot_sync(FULL_MASK, kinds & 1u);
        const unsigned second_kind = __ballot_sync(FULL_MASK, kinds & 2u);
        unsigned todo = first_kind | second_kind;
        for (unsigned k = 0; k < tile; ++k) todo &= todo - 1;
        while (todo) {
            const unsigned at = __ffs(todo) - 1;
            body((unsigned)base + at, ((first_kind >> at) & 1u) | ((second_kind >> at) & 1u) << 1);
            for (unsigned k = 0; k < tiles; ++k) todo &= todo - 1;
        }
    }
}

// for_flagged_vertices over the grid, with heavy vertices apart: the
// grid's first p.heavy_warps warps take the heavy vertices (is_heavy),
// each warp one at a time as one tile, and the other warps the others.
// Runs body(q, v, kinds) where q is p with the tile that takes v; the
// heavy vertices' flags are read (`flagged`) by one lane each.
template <typename Flagged, typename Body>
__device__ void for_flagged_in_grid(const SpmParams& p, Flagged flagged, Body body) {
    const unsigned long long warp = grid_thread() / 32, warps = grid_threads() / 32;
    if (warp >= p.heavy_warps) {
        for_flagged_vertices(
            p, warp - p.heavy_warps, warps - p.heavy_warps,
            [&](unsigned v) { return is_heavy(p, v) ? 0u : flagged(v); },
            [&](unsigned v, unsigned kinds) { body(p, v, kinds); });
        return;
    }
    const SpmParams whole = with_tile(p, 32);
    const unsigned* heavy = (const unsigned*)p.heavy;
    for (unsigned long long i = warp; i < p.heavy_count; i += p.heavy_warps) {
        const unsigned v = heavy[i];
        unsigned kinds = 0;
        if ((threadIdx.x & 31u) == 0) kinds = flagged(v);
        kinds = __shfl_sync(FULL_MASK, kinds, 0);
        if (kinds) body(whole, v, kinds);
    }
}

// The first work queue: every vertex that is not ⊤ and has a move whose
// priority favours the opponent, and P's vertices without moves (no
// other measure can grow before one of those). Without shortcuts, a
// vertex left without moves had only self-loops of a priority that
// favours its opponent, so this is every vertex whose priority favours
// the opponent.
extern "C" __global__ void spm_start(const SpmParams p) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned char* owners = (const unsigned char*)p.owners;
    unsigned char* dirty = (unsigned char*)p.dirty;
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads()) {
        bool grows = offsets[v] == offsets[v + 1] && owners[v] == p.player;
        for (unsigned long long e = offsets[v]; e < offsets[v + 1] && !grows; ++e) {
            grows = (move_priority(p, (unsigned)v, e) & 1u) != p.player;
        }
        dirty[v] = grows && !is_top(p, (unsigned)v);
    }
}

// One round: every dirty vertex is lifted once, a tile a vertex.
extern "C" __global__ void spm_lift(const SpmParams p) {
    unsigned char* dirty = (unsigned char*)p.dirty;
    unsigned char* changed_last = (unsigned char*)p.changed_last;
    unsigned long long raised = 0;
    for_flagged_in_grid(
        p, [&](unsigned v) { return (dirty[v] ? 1u : 0u) | (changed_last[v] ? 2u : 0u); },
        [&](const SpmParams& q, unsigned v, unsigned kinds) {
            const bool top = tile_is_top(q, v);
            unsigned changed;
            const Lift outcome = top || !(kinds & 1u) ? UNCHANGED
                                                       : lift(q, (const unsigned*)q.read_measures, v,
                                                              row_of(q, (unsigned*)q.write_measures, v), changed);
            const bool first = tile_lane(q) == 0;
            if (first) {
                dirty[v] = 0;
                changed_last[v] = outcome == RAISED;
            }
            if (outcome == UNCHANGED) {
                // Raised by the last launch: its measure goes into the
                // other buffer too.
                if ((kinds & 2u) && !top) keep_measure(q, v);
                return;
            }
            mark_predecessors(q, v, changed);
            if (first) ++raised;
        });
    add_raised(p, raised);
}

// Threads of spm_lift_queue's one block, and the most slots of its lists
// (the host's queue_capacity may be less): the host defines both.
#if !defined(QUEUE_THREADS) || !defined(QUEUE_CAPACITY)
#error "QUEUE_THREADS and QUEUE_CAPACITY are defined by the host (crate::parity::gpu)"
#endif

// Sets v's flag in the byte array `flags` (4-byte aligned) and says
// whether it was clear: of threads that set one flag at once, exactly one
// is told so.
__device__ __forceinline__ bool set_flag(unsigned char* flags, unsigned v) {
    unsigned* word = (unsigned*)(flags + (v & ~3u));
    const unsigned bit = 1u << (8 * (v & 3u));
    return !(atomicOr(word, bit) & bit);
}

// Queues v's predecessors that are not ⊤, see its change
// (for_predecessors_seeing) and are not queued yet: their flag in
// `queued` is set and they go into `list`, whose length is `length`; one
// that finds the list full sets `overflow` (its flag stays set).
__device__ void queue_predecessors(const SpmParams& p, unsigned v, unsigned changed, unsigned char* queued,
                                   unsigned* list, unsigned* length, bool* overflow) {
    for_predecessors_seeing(p, v, changed, [&](unsigned u) {
        if (!set_flag(queued, u)) return;
        const unsigned slot = atomicAdd(length, 1u);
        if (slot < p.queue_capacity) {
            list[slot] = u;
        } else {
            *overflow = true;
        }
    });
}

// Rounds of lifting in one block, on a list of the queued
// vertices (see the top of the file). Starts with what a grid-wide launch
// would: copies the measures `changed_last` marks into `write_measures`,
// then lists the vertices `dirty` flags. Each round lifts every listed
// vertex against `read_measures` into its `pending` row (phase 1), then
// writes the raised measures into both buffers, so that they stay equal,
// and lists their predecessors, deduplicated by their `dirty` flags
// (phase 2); the block's tiles take the listed vertices in turn. A listed
// vertex's flag stays set until its round clears it,
// so whatever the launch leaves undone, the flags say: the next launch of
// either kind goes on from them. The launch's work is counted in strides
// of the block over vertices (the first scan counts one per
// QUEUE_THREADS vertices, a round one per QUEUE_THREADS listed ones, at
// least one): rounds follow while fewer than `strides` were taken, so
// that the host can bound a launch's time. Leaves in `raised[0]` the vertices
// raised and in `raised[1]` those left queued: 0 at the least fixpoint,
// more than queue_capacity when a list overflowed. One block: the
// barriers order every phase, and the counters live in shared memory,
// zeroed before any thread uses them.
extern "C" __global__ void __launch_bounds__(QUEUE_THREADS) spm_lift_queue(const SpmParams p) {
    __shared__ unsigned length[2];
    __shared__ bool overflow;
    __shared__ unsigned long long raised_here;
    __shared__ unsigned char outcomes[QUEUE_CAPACITY];
    unsigned char* queued = (unsigned char*)p.dirty;
    unsigned char* changed_last = (unsigned char*)p.changed_last;
    unsigned* measures = (unsigned*)p.read_measures;
    unsigned* copy = (unsigned*)p.write_measures;
    unsigned* pending = (unsigned*)p.pending;
    unsigned* lists = (unsigned*)p.lists;
    const unsigned tile = threadIdx.x / (unsigned)p.tile, tiles = QUEUE_THREADS / (unsigned)p.tile;
    const bool first_lane = tile_lane(p) == 0;
    if (threadIdx.x == 0) {
        length[0] = length[1] = 0;
        overflow = false;
        raised_here = 0;
    }
    __syncthreads();
    for_flagged_vertices(
        p, threadIdx.x / 32, blockDim.x / 32, [&](unsigned v) { return changed_last[v] ? 1u : 0u; },
        [&](unsigned v, unsigned) {
            keep_measure(p, v);
            if (first_lane) changed_last[v] = 0;
        });
    for (unsigned long long i = threadIdx.x; i < p.vertices; i += blockDim.x) {
        const unsigned v = (unsigned)i;
        if (!queued[v]) continue;
        const unsigned slot = atomicAdd(&length[0], 1u);
        if (slot < p.queue_capacity) {
            lists[slot] = v;
        } else {
            overflow = true;
        }
    }
    __syncthreads();
    unsigned current = 0;
    unsigned long long raised = 0, strides = (p.vertices + QUEUE_THREADS - 1) / QUEUE_THREADS;
    for (bool first = true; (first || strides < p.strides) && !overflow && length[current] != 0; first = false) {
        const unsigned listed = length[current], next = 1 - current;
        strides += (listed + QUEUE_THREADS - 1) / QUEUE_THREADS;
        const unsigned* list = lists + current * p.queue_capacity;
        for (unsigned i = tile; i < listed; i += tiles) {
            const unsigned v = list[i];
            unsigned changed; // found again in phase 2, where it is read
            const Lift outcome = tile_is_top(p, v)
                                     ? UNCHANGED
                                     : lift(p, measures, v, pending + (unsigned long long)i * p.width, changed);
            if (first_lane) {
                queued[v] = 0;
                outcomes[i] = outcome;
            }
        }
        __syncthreads();
        for (unsigned i = tile; i < listed; i += tiles) {
            if (outcomes[i] == UNCHANGED) continue;
            const unsigned v = list[i];
            unsigned changed = ALL_COMPONENTS;
            if (outcomes[i] == RAISED) {
                // The highest component that changed, found again where
                // sees_change reads it: the measure is still the one
                // phase 1 compared.
                const unsigned* measure = pending + (unsigned long long)i * p.width;
                unsigned *into = row_of(p, measures, v), *also = row_of(p, copy, v);
                if (p.predecessor_priorities) {
                    compare_down(
                        p, 0, [&](unsigned c) { return measure[c]; }, [&](unsigned c) { return into[c]; }, &changed);
                }
                for (unsigned c = tile_lane(p); c < p.width; c += p.tile) into[c] = also[c] = measure[c];
            }
            queue_predecessors(p, v, changed, queued, lists + next * p.queue_capacity, &length[next], &overflow);
            if (first_lane) ++raised;
        }
        __syncthreads();
        if (threadIdx.x == 0) length[current] = 0;
        current = next;
        __syncthreads();
    }
    if (raised) atomicAdd(&raised_here, raised);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long* counts = (unsigned long long*)p.raised;
        counts[0] = raised_here;
        counts[1] = length[current];
    }
}

// P's winning moves once the measures are stable: from every vertex P
// owns and wins (not ⊤), the move of least progress, as its first step in
// the game; a tile a vertex.
extern "C" __global__ void spm_strategy(const SpmParams p) {
    const unsigned char* owners = (const unsigned char*)p.owners;
    const unsigned* first_steps = (const unsigned*)p.first_steps;
    unsigned* strategy = (unsigned*)p.strategy;
    for_flagged_in_grid(
        p, [&](unsigned v) { return owners[v] == p.player && !is_top(p, v) ? 1u : 0u; },
        [&](const SpmParams& q, unsigned v, unsigned) {
            Progress chosen;
            const unsigned long long move = chosen_move(q, (const unsigned*)q.read_measures, v, true, chosen);
            if (!chosen.top && tile_lane(q) == 0) strategy[v] = first_steps[move];
        });
}

// Alternating SPM (Bootsma's thesis, chapter 5; crate::parity::spm on
// the CPU): after a turn of P's lifting, the vertices that P's measures
// already prove won by P are the greatest set W of vertices not ⊤ whose
// measure is at least the progress of a move into W (P's vertices) or of
// every move, all into W (the opponent's). spm_won_start puts every
// vertex not ⊤ in W and asks to look at each; each spm_won_round looks at
// the vertices `check` flags, drops from W those that fail, and flags
// their predecessors in W for the next round (`check_next`); the host
// runs rounds until one drops nothing. Dropping only ever shrinks W, so
// a stale read of a successor's membership (still in W while another
// thread drops it) is undone by the next round, which looks at the
// vertex again. spm_give_up then sets ⊤ on W in the opponent's measures
// and queues their predecessors there.

// Whether v, in W, stays: it keeps its measure with the moves into W.
// Called by the whole tile, which reads each membership in one lane.
__device__ bool stays(const SpmParams& p, const unsigned* read, unsigned v) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const unsigned char* member = (const unsigned char*)p.member;
    const bool own = ((const unsigned char*)p.owners)[v] == p.player;
    for (unsigned long long e = offsets[v]; e < offsets[v + 1]; ++e) {
        const unsigned w = targets[e];
        const unsigned priority = move_priority(p, v, e);
        unsigned in = 0;
        if (tile_lane(p) == 0) in = __ldcg(member + w);
        Progress g = {w, 0, 0, false};
        const bool kept = tile_shuffle(p, in, 0) &&
                          progress_shape(p, read, priority, w, first_component(p, priority), g.zeroed, g.incremented) &&
                          compare_with_progress(p, read, v, g) >= 0;
        if (kept == own) return kept;
    }
    return !own;
}

// W: every vertex not ⊤, each to be looked at.
extern "C" __global__ void spm_won_start(const SpmParams p) {
    unsigned char* member = (unsigned char*)p.member;
    unsigned char* check = (unsigned char*)p.check;
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads()) {
        const unsigned char in = !is_top(p, (unsigned)v);
        member[v] = in;
        check[v] = in;
    }
}

// One round: the flagged vertices of W that do not stay leave it, a tile
// a vertex; counts them in `raised`.
extern "C" __global__ void spm_won_round(const SpmParams p) {
    const unsigned long long* offsets = (const unsigned long long*)p.predecessor_offsets;
    const unsigned* predecessors = (const unsigned*)p.predecessors;
    unsigned char* member = (unsigned char*)p.member;
    unsigned char* check = (unsigned char*)p.check;
    unsigned char* check_next = (unsigned char*)p.check_next;
    unsigned long long dropped = 0;
    for_flagged_in_grid(
        p,
        [&](unsigned v) {
            if (!check[v]) return 0u;
            check[v] = 0;
            return member[v] ? 1u : 0u;
        },
        [&](const SpmParams& q, unsigned v, unsigned) {
            if (stays(q, (const unsigned*)q.read_measures, v)) return;
            if (tile_lane(q) == 0) {
                member[v] = 0;
                ++dropped;
            }
            for (unsigned long long e = offsets[v] + tile_lane(q); e < offsets[v + 1]; e += q.tile) {
                const unsigned u = predecessors[e];
                if (__ldcg(member + u)) check_next[u] = 1;
            }
        });
    add_raised(p, dropped);
}

// The opponent's side (this block is the opponent's): ⊤ on every vertex
// of W that is not ⊤ yet, its predecessors queued in `dirty_next` (the
// opponent's queue of the next lifting launch); counts them in `raised`.
extern "C" __global__ void spm_give_up(const SpmParams p) {
    const unsigned char* member = (const unsigned char*)p.member;
    unsigned long long given = 0;
    for_flagged_in_grid(
        p, [&](unsigned v) { return member[v] && !is_top(p, v) ? 1u : 0u; },
        [&](const SpmParams& q, unsigned v, unsigned) {
            if (tile_lane(q) == 0) {
                set_top(q, v);
                ++given;
            }
            mark_predecessors(q, v, ALL_COMPONENTS);
        });
    add_raised(p, given);
}
