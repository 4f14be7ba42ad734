// Small progress measures on the GPU (crate::parity::gpu), after Bootsma's
// thesis: a thread per vertex lifts the vertices of an implicit work queue
// (a dirty flag per vertex) and launches repeat until one raises nothing.
//
// Measures of one player P: a u32 component per priority that favours the
// opponent, stored column-wise (component c of vertex v at c * vertices +
// v, so that the threads of a warp read neighbouring words); ⊤ is a bit
// per vertex. Measures only grow, so any measure read is at most the least
// fixpoint; but a measure written component by component while another
// thread reads it could be read torn, mixing old and new components into a
// value above both. So measures are double-buffered: launch k reads
// `read_measures` and writes `write_measures`, the host swapping them
// between launches, and a vertex raised by launch k - 1 copies its measure
// into the other buffer in launch k (`changed_last`), so that both buffers
// agree again. ⊤, one bit, is set in place with atomicOr: reading it early
// only helps. A vertex raised marks its predecessors in `dirty_next`,
// lifted by the next launch; `dirty` of this launch is only read and
// cleared by each vertex's own thread. The host zeroes each launch's count
// of raised vertices before the launch (the thesis resets its "changed"
// flag inside the kernel, which races with blocks still running).
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

#include "common/grid.cuh"

struct SpmParams {
    unsigned long long offsets;             // u64[vertices + 1]: each vertex's first move
    unsigned long long targets;             // u32: the moves' targets
    unsigned long long predecessor_offsets; // u64[vertices + 1]
    unsigned long long predecessors;        // u32: the moves' sources, by target
    unsigned long long priorities;          // u32[vertices], compressed
    unsigned long long owners;              // u8[vertices]: 0 Even, 1 Odd
    unsigned long long bounds;              // u32[width]: the largest value of each component
    unsigned long long read_measures;       // u32[width * vertices], column-wise
    unsigned long long write_measures;      // u32[width * vertices], column-wise
    unsigned long long top;                 // u32[(vertices + 31) / 32]: bit v set when v's measure is ⊤
    unsigned long long dirty;               // u8[vertices]: lift in this launch
    unsigned long long dirty_next;          // u8[vertices]: lift in the next launch
    unsigned long long changed_last;        // u8[vertices]: raised (not to ⊤) by the last launch
    unsigned long long raised;              // u64: vertices this launch raised, zeroed by the host
    unsigned long long strategy;            // u32[vertices]: the move chosen (spm_strategy)
    unsigned long long lists;               // u32[2 * queue_capacity]: spm_lift_queue's lists
    unsigned long long pending;             // u32[width * queue_capacity]: new measures, by list slot
    unsigned long long vertices;
    unsigned long long width;               // components per measure
    unsigned long long player;              // whose measures: 0 Even, 1 Odd
    unsigned long long queue_capacity;      // slots of each list, at most QUEUE_CAPACITY
    unsigned long long strides;             // spm_lift_queue's budget (see there)
    unsigned long long member;              // u8[vertices]: the set W of spm_won_* and spm_give_up
    unsigned long long check;               // u8[vertices]: look at these in this spm_won_round
    unsigned long long check_next;          // u8[vertices]: look at these in the next one
};

#include "abi_check.h"

#define NO_MOVE 0xffffffffu

// Whether v's measure is ⊤ (read past the L1 cache: other blocks set bits).
__device__ __forceinline__ bool is_top(const SpmParams& p, unsigned v) {
    const unsigned* top = (const unsigned*)p.top;
    return (__ldcg(top + v / 32) >> (v % 32)) & 1u;
}

__device__ __forceinline__ void set_top(const SpmParams& p, unsigned v) {
    atomicOr((unsigned*)p.top + v / 32, 1u << (v % 32));
}

// Component c of v's measure in the column-wise `measures`.
__device__ __forceinline__ unsigned component(const SpmParams& p, const unsigned* measures, unsigned long long c,
                                              unsigned v) {
    return measures[c * p.vertices + v];
}

// The order of the measures of a and b (neither ⊤) on the components from
// `cut` up, compared from the highest down: negative, 0 or positive.
__device__ int compare_from(const SpmParams& p, const unsigned* measures, unsigned a, unsigned b, unsigned cut) {
    for (unsigned long long c = p.width; c-- > cut;) {
        const unsigned x = component(p, measures, c, a), y = component(p, measures, c, b);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

// The first component that matters to a vertex of `priority`: lower ones
// count priorities below it, which a pass through it forgets.
__device__ __forceinline__ unsigned first_component(const SpmParams& p, unsigned priority) {
    return (priority + (unsigned)p.player) / 2;
}

// The move of v that P's progress measures favour: the successor whose
// measure, from `cut` up, is least when `least` (P's choice), else the
// greatest (the opponent's); ⊤ is the greatest of all. The first one on a
// tie, as the CPU solver (crate::parity::spm) chooses. Progress adds the
// same increment to every move's measure, which keeps their order, so the
// successors' measures are compared as they are. Sets `chosen_top` to
// whether the move chosen was ⊤ when compared: a bit set since then must
// not count, as the other moves were compared with its measure. A vertex
// left without moves (its self-loops favoured the opponent and were all
// it had) has NO_MOVE, ⊤: its owner loses it, as on the CPU.
__device__ unsigned extreme_move(const SpmParams& p, const unsigned* measures, unsigned v, unsigned cut, bool least,
                                 bool& chosen_top) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    if (offsets[v] == offsets[v + 1]) {
        chosen_top = true;
        return NO_MOVE;
    }
    unsigned best = targets[offsets[v]];
    bool best_top = is_top(p, best);
    for (unsigned long long e = offsets[v] + 1; e < offsets[v + 1] && !(best_top && !least); ++e) {
        const unsigned w = targets[e];
        const bool w_top = is_top(p, w);
        const bool better = least ? best_top ? !w_top : !w_top && compare_from(p, measures, w, best, cut) < 0
                                  : w_top || compare_from(p, measures, w, best, cut) > 0;
        if (better) {
            best = w;
            best_top = w_top;
        }
    }
    chosen_top = best_top;
    return best;
}

// Marks v's predecessors that are not ⊤ for the next launch.
__device__ void mark_predecessors(const SpmParams& p, unsigned v) {
    const unsigned long long* offsets = (const unsigned long long*)p.predecessor_offsets;
    const unsigned* predecessors = (const unsigned*)p.predecessors;
    unsigned char* dirty_next = (unsigned char*)p.dirty_next;
    for (unsigned long long e = offsets[v]; e < offsets[v + 1]; ++e) {
        const unsigned u = predecessors[e];
        if (!is_top(p, u)) dirty_next[u] = 1;
    }
}

// What lifting a vertex did.
enum Lift { UNCHANGED, RAISED, RAISED_TO_TOP };

// The shape of the progress that a vertex of `priority` (first component
// that matters `cut`) needs to move to w (not ⊤), from the measures
// `read`: components below `zeroed` are 0, component `incremented`
// (p.width when none) is w's plus one, the others are w's. One more pass
// of a priority that favours the opponent counts at `cut`, carrying into
// higher components past their bounds; false when it carries past the
// last (the progress is ⊤).
__device__ bool progress_shape(const SpmParams& p, const unsigned* read, unsigned priority, unsigned w, unsigned cut,
                               unsigned& zeroed, unsigned& incremented) {
    const unsigned* bounds = (const unsigned*)p.bounds;
    zeroed = cut;
    incremented = (unsigned)p.width;
    if ((priority & 1u) == p.player) return true;
    incremented = cut;
    while (incremented < p.width && component(p, read, incremented, w) >= bounds[incremented]) ++incremented;
    zeroed = incremented;
    return incremented < p.width;
}

// The order of v's measure against the progress of the shape above
// (w's measure, `zeroed`, `incremented`), from the highest component
// down: negative, 0 or positive.
__device__ int compare_with_progress(const SpmParams& p, const unsigned* read, unsigned v, unsigned w,
                                     unsigned zeroed, unsigned incremented) {
    for (unsigned long long c = p.width; c-- > 0;) {
        const unsigned mine = component(p, read, c, v);
        const unsigned needed = c < zeroed ? 0u : component(p, read, c, w) + (c == incremented);
        if (mine != needed) return mine < needed ? -1 : 1;
    }
    return 0;
}

// Lifts v (not ⊤) from the measures `read`: its owner, when it is P,
// takes the move of least measure, else the move of greatest; the measure
// needed there is the successor's from the first component that matters
// up, plus one at v's own component when v's priority favours the
// opponent (carrying into higher components past their bounds, ⊤ past
// the last). A measure above v's is written into row `row` of the
// column-wise `out` of `rows` rows; nothing is written otherwise.
__device__ Lift lift(const SpmParams& p, const unsigned* read, unsigned v, unsigned* out, unsigned long long row,
                     unsigned long long rows) {
    const unsigned priority = ((const unsigned*)p.priorities)[v];
    const unsigned cut = first_component(p, priority);
    const bool own = ((const unsigned char*)p.owners)[v] == p.player;
    bool w_top;
    const unsigned w = extreme_move(p, read, v, cut, own, w_top);
    unsigned zeroed, incremented;
    if (w_top || !progress_shape(p, read, priority, w, cut, zeroed, incremented)) {
        set_top(p, v);
        return RAISED_TO_TOP;
    }
    if (compare_with_progress(p, read, v, w, zeroed, incremented) >= 0) return UNCHANGED;
    for (unsigned long long c = 0; c < p.width; ++c) {
        out[c * rows + row] = c < zeroed ? 0u : component(p, read, c, w) + (c == incremented);
    }
    return RAISED;
}

// Copies v's measure from `read_measures` into `write_measures`.
__device__ void keep_measure(const SpmParams& p, unsigned v) {
    const unsigned* read = (const unsigned*)p.read_measures;
    unsigned* write = (unsigned*)p.write_measures;
    for (unsigned long long c = 0; c < p.width; ++c) write[c * p.vertices + v] = read[c * p.vertices + v];
}

// Adds this thread's count to the launch's: one atomic per warp.
__device__ __forceinline__ void add_raised(const SpmParams& p, unsigned long long raised) {
    for (int offset = 16; offset > 0; offset /= 2) raised += __shfl_down_sync(0xffffffffu, raised, offset);
    if ((threadIdx.x & 31u) == 0 && raised) atomicAdd((unsigned long long*)p.raised, raised);
}

// The first work queue: every vertex that is not ⊤ and whose priority
// favours the opponent (no other measure can grow before one of those).
extern "C" __global__ void spm_start(const SpmParams p) {
    const unsigned* priorities = (const unsigned*)p.priorities;
    unsigned char* dirty = (unsigned char*)p.dirty;
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads()) {
        dirty[v] = !is_top(p, (unsigned)v) && (priorities[v] & 1u) != p.player;
    }
}

// One round: every dirty vertex is lifted once.
extern "C" __global__ void spm_lift(const SpmParams p) {
    unsigned char* dirty = (unsigned char*)p.dirty;
    unsigned char* changed_last = (unsigned char*)p.changed_last;
    unsigned long long raised = 0;
    for (unsigned long long i = grid_thread(); i < p.vertices; i += grid_threads()) {
        const unsigned v = (unsigned)i;
        const bool was_dirty = dirty[v], was_changed = changed_last[v];
        if (!was_dirty && !was_changed) continue;
        dirty[v] = 0;
        changed_last[v] = 0;
        if (is_top(p, v)) continue;
        const Lift outcome =
            was_dirty ? lift(p, (const unsigned*)p.read_measures, v, (unsigned*)p.write_measures, v, p.vertices)
                      : UNCHANGED;
        if (outcome == UNCHANGED) {
            if (was_changed) keep_measure(p, v);
            continue;
        }
        changed_last[v] = outcome == RAISED;
        mark_predecessors(p, v);
        ++raised;
    }
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

// Queues v's predecessors that are neither ⊤ nor queued: their flag in
// `queued` is set and they go into `list`, whose length is `length`; one
// that finds the list full sets `overflow` (its flag stays set).
__device__ void queue_predecessors(const SpmParams& p, unsigned v, unsigned char* queued, unsigned* list,
                                   unsigned* length, bool* overflow) {
    const unsigned long long* offsets = (const unsigned long long*)p.predecessor_offsets;
    const unsigned* predecessors = (const unsigned*)p.predecessors;
    for (unsigned long long e = offsets[v]; e < offsets[v + 1]; ++e) {
        const unsigned u = predecessors[e];
        if (is_top(p, u) || !set_flag(queued, u)) continue;
        const unsigned slot = atomicAdd(length, 1u);
        if (slot < p.queue_capacity) {
            list[slot] = u;
        } else {
            *overflow = true;
        }
    }
}

// Rounds of lifting in one block, on a list of the queued
// vertices (see the top of the file). Starts with what a grid-wide launch
// would: copies the measures `changed_last` marks into `write_measures`,
// then lists the vertices `dirty` flags. Each round lifts every listed
// vertex against `read_measures` into its `pending` row (phase 1), then
// writes the raised measures into both buffers, so that they stay equal,
// and lists their predecessors, deduplicated by their `dirty` flags
// (phase 2). A listed vertex's flag stays set until its round clears it,
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
    if (threadIdx.x == 0) {
        length[0] = length[1] = 0;
        overflow = false;
        raised_here = 0;
    }
    __syncthreads();
    for (unsigned long long i = threadIdx.x; i < p.vertices; i += blockDim.x) {
        const unsigned v = (unsigned)i;
        if (changed_last[v]) {
            keep_measure(p, v);
            changed_last[v] = 0;
        }
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
        for (unsigned i = threadIdx.x; i < listed; i += blockDim.x) {
            const unsigned v = list[i];
            queued[v] = 0;
            outcomes[i] = is_top(p, v) ? UNCHANGED : lift(p, measures, v, pending, i, p.queue_capacity);
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < listed; i += blockDim.x) {
            if (outcomes[i] == UNCHANGED) continue;
            const unsigned v = list[i];
            if (outcomes[i] == RAISED) {
                for (unsigned long long c = 0; c < p.width; ++c) {
                    const unsigned value = pending[c * p.queue_capacity + i];
                    measures[c * p.vertices + v] = value;
                    copy[c * p.vertices + v] = value;
                }
            }
            queue_predecessors(p, v, queued, lists + next * p.queue_capacity, &length[next], &overflow);
            ++raised;
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
// owns and wins (not ⊤), the move of least measure.
extern "C" __global__ void spm_strategy(const SpmParams p) {
    const unsigned char* owners = (const unsigned char*)p.owners;
    const unsigned* priorities = (const unsigned*)p.priorities;
    unsigned* strategy = (unsigned*)p.strategy;
    for (unsigned long long i = grid_thread(); i < p.vertices; i += grid_threads()) {
        const unsigned v = (unsigned)i;
        if (owners[v] != p.player || is_top(p, v)) continue;
        bool chosen_top;
        const unsigned move =
            extreme_move(p, (const unsigned*)p.read_measures, v, first_component(p, priorities[v]), true, chosen_top);
        if (!chosen_top) strategy[v] = move;
    }
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
__device__ bool stays(const SpmParams& p, const unsigned* read, unsigned v) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const unsigned char* member = (const unsigned char*)p.member;
    const unsigned priority = ((const unsigned*)p.priorities)[v];
    const unsigned cut = first_component(p, priority);
    const bool own = ((const unsigned char*)p.owners)[v] == p.player;
    for (unsigned long long e = offsets[v]; e < offsets[v + 1]; ++e) {
        const unsigned w = targets[e];
        unsigned zeroed, incremented;
        const bool kept = __ldcg(member + w) && progress_shape(p, read, priority, w, cut, zeroed, incremented) &&
                          compare_with_progress(p, read, v, w, zeroed, incremented) >= 0;
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

// One round: the flagged vertices of W that do not stay leave it; counts
// them in `raised`.
extern "C" __global__ void spm_won_round(const SpmParams p) {
    const unsigned long long* offsets = (const unsigned long long*)p.predecessor_offsets;
    const unsigned* predecessors = (const unsigned*)p.predecessors;
    unsigned char* member = (unsigned char*)p.member;
    unsigned char* check = (unsigned char*)p.check;
    unsigned char* check_next = (unsigned char*)p.check_next;
    unsigned long long dropped = 0;
    for (unsigned long long i = grid_thread(); i < p.vertices; i += grid_threads()) {
        const unsigned v = (unsigned)i;
        if (!check[v]) continue;
        check[v] = 0;
        if (!member[v] || stays(p, (const unsigned*)p.read_measures, v)) continue;
        member[v] = 0;
        ++dropped;
        for (unsigned long long e = offsets[v]; e < offsets[v + 1]; ++e) {
            const unsigned u = predecessors[e];
            if (__ldcg(member + u)) check_next[u] = 1;
        }
    }
    add_raised(p, dropped);
}

// The opponent's side (this block is the opponent's): ⊤ on every vertex
// of W that is not ⊤ yet, its predecessors queued in `dirty_next` (the
// opponent's queue of the next lifting launch); counts them in `raised`.
extern "C" __global__ void spm_give_up(const SpmParams p) {
    const unsigned char* member = (const unsigned char*)p.member;
    unsigned long long given = 0;
    for (unsigned long long i = grid_thread(); i < p.vertices; i += grid_threads()) {
        const unsigned v = (unsigned)i;
        if (!member[v] || is_top(p, v)) continue;
        set_top(p, v);
        mark_predecessors(p, v);
        ++given;
    }
    add_raised(p, given);
}
