// Preprocessing of parity games on the GPU (src/parity/gpu/controlled.rs):
// the cycles one player controls alone, and that player's attractor of
// them, as src/parity/controlled.rs finds them on the CPU.
//
// For one player, rounds over its open vertices (the members):
//   ctl_number   numbers the members (local) and clears their component
//                figures;
//   ctl_degree, a scan, ctl_fill  build the graph of the moves between
//                members, which the SCC kernels decompose;
//   ctl_tops     gives each component its top (highest priority, then
//                highest vertex) and its size;
//   ctl_classify keeps going: a member of a cyclic component whose top
//                favours the player is won (the top now, the others by
//                the search back from it); a member of an acyclic
//                component drops out, and so does a member of a cyclic
//                component at its top priority when that favours the
//                opponent; the others are the next round's members;
//   ctl_waves(_block) search back from the tops within their components
//                (within_components set), each member reached won with
//                the move it was reached along.
// Then ctl_remaining counts the moves of the opponent's open vertices that
// stay open or reach the player's vertices, ctl_won lists the player's
// vertices, and ctl_waves(_block) (within_components clear) attract: a
// vertex of the player joins with the move it was reached along, one of
// the opponent's once its count runs out.
// Counters are zeroed by the host before the kernel that appends to them.

#include "common/grid.cuh"

#define OPEN 2u
#define NOT_MEMBER 0xffffffffu
#define NO_MOVE 0xffffffffu

// The game and the preprocessing's arrays (src/parity/gpu/controlled.rs).
struct ControlledParams {
    unsigned long long offsets;             // u64[vertices + 1]: moves
    unsigned long long targets;             // u32[moves]
    unsigned long long predecessor_offsets; // u64[vertices + 1]
    unsigned long long predecessors;        // u32[moves]
    unsigned long long priorities;          // u32[vertices]
    unsigned long long owners;              // u8[vertices]: 0 Even, 1 Odd
    unsigned long long vertices;
    unsigned long long winners;             // u32[vertices]: 0, 1 or OPEN
    unsigned long long strategy;            // u32[vertices]: a move or NO_MOVE
    unsigned long long remaining;           // u32[vertices]: attractor counts
    unsigned long long player;              // 0 Even, 1 Odd
    unsigned long long local;               // u32[vertices]: member index or NOT_MEMBER
    unsigned long long members;             // u32[vertices]: this round's
    unsigned long long member_count;
    unsigned long long next_members;        // u32[vertices]: appended
    unsigned long long graph_offsets;       // u64[members + 1]
    unsigned long long graph_targets;       // u32[graph moves]: member indices
    unsigned long long representative;      // u32[members]: from the SCC kernels
    unsigned long long tops;                // u64[members], by component
    unsigned long long sizes;               // u32[members], by component
    unsigned long long self_loops;          // u32[members]: 1 with a move to itself
    unsigned long long wave;                // u32[vertices]: this wave's vertices
    unsigned long long wave_count;
    unsigned long long next_wave;           // u32[vertices]: appended
    unsigned long long within_components;   // 1: the search back from the tops
    unsigned long long cursor;              // u64[vertices]: filling predecessors
    unsigned long long counters;            // u64[CONTROLLED_COUNTERS]
};

struct Arrays {
    const unsigned long long* offsets;
    const unsigned* targets;
    const unsigned long long* predecessor_offsets;
    const unsigned* predecessors;
    const unsigned* priorities;
    const unsigned char* owners;
    unsigned* winners;
    unsigned* strategy;
    unsigned* remaining;
    unsigned* local;
    const unsigned* members;
    unsigned* next_members;
    unsigned long long* graph_offsets;
    unsigned* graph_targets;
    const unsigned* representative;
    unsigned long long* tops;
    unsigned* sizes;
    unsigned* self_loops;
    unsigned long long* counters;
    unsigned player;
    __device__ explicit Arrays(const ControlledParams& p)
        : offsets((const unsigned long long*)p.offsets), targets((const unsigned*)p.targets),
          predecessor_offsets((const unsigned long long*)p.predecessor_offsets),
          predecessors((const unsigned*)p.predecessors), priorities((const unsigned*)p.priorities),
          owners((const unsigned char*)p.owners), winners((unsigned*)p.winners), strategy((unsigned*)p.strategy),
          remaining((unsigned*)p.remaining), local((unsigned*)p.local), members((const unsigned*)p.members),
          next_members((unsigned*)p.next_members), graph_offsets((unsigned long long*)p.graph_offsets),
          graph_targets((unsigned*)p.graph_targets), representative((const unsigned*)p.representative),
          tops((unsigned long long*)p.tops), sizes((unsigned*)p.sizes), self_loops((unsigned*)p.self_loops),
          counters((unsigned long long*)p.counters), player((unsigned)p.player) {}

    // The player a priority favours: Even an even one.
    __device__ unsigned favoured_by(unsigned priority) const { return priority & 1u; }

    __device__ void append(unsigned* list, int slot, unsigned vertex) const {
        list[atomicAdd(&counters[slot], 1ull)] = vertex;
    }
};

// Counts every vertex's predecessors into predecessor_offsets (zeroed by
// the host; scanned after).
extern "C" __global__ void ctl_count_predecessors(const ControlledParams p) {
    const Arrays a(p);
    unsigned long long* counts = (unsigned long long*)p.predecessor_offsets;
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads())
        for (unsigned long long e = a.offsets[v]; e < a.offsets[v + 1]; ++e) atomicAdd(&counts[a.targets[e]], 1ull);
}

// Files every move under its target, through one cursor per vertex (a
// copy of the scanned offsets).
extern "C" __global__ void ctl_fill_predecessors(const ControlledParams p) {
    const Arrays a(p);
    unsigned long long* cursor = (unsigned long long*)p.cursor;
    unsigned* predecessors = (unsigned*)p.predecessors;
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads())
        for (unsigned long long e = a.offsets[v]; e < a.offsets[v + 1]; ++e)
            predecessors[atomicAdd(&cursor[a.targets[e]], 1ull)] = (unsigned)v;
}

// Every vertex open, without a move chosen, no member.
extern "C" __global__ void ctl_start(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads()) {
        a.winners[v] = OPEN;
        a.strategy[v] = NO_MOVE;
        a.local[v] = NOT_MEMBER;
    }
}

// The player's open vertices, the first round's members (appended to
// next_members).
extern "C" __global__ void ctl_first_members(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads())
        if (a.winners[v] == OPEN && a.owners[v] == a.player) a.append(a.next_members, CONTROLLED_COUNTER_NEXT, (unsigned)v);
}

extern "C" __global__ void ctl_number(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.member_count; i += grid_threads()) {
        a.local[a.members[i]] = (unsigned)i;
        a.tops[i] = 0;
        a.sizes[i] = 0;
        a.self_loops[i] = 0;
    }
}

// Takes the members of the round before out of the numbering (members
// holds them when the host launches this).
extern "C" __global__ void ctl_unnumber(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.member_count; i += grid_threads()) a.local[a.members[i]] = NOT_MEMBER;
}

extern "C" __global__ void ctl_degree(const ControlledParams p) {
    const Arrays a(p);
    const unsigned long long n = p.member_count;
    for (unsigned long long i = grid_thread(); i < n; i += grid_threads()) {
        const unsigned v = a.members[i];
        unsigned long long degree = 0;
        for (unsigned long long e = a.offsets[v]; e < a.offsets[v + 1]; ++e) {
            const unsigned w = a.targets[e];
            degree += a.local[w] != NOT_MEMBER;
            if (w == v) a.self_loops[i] = 1;
        }
        a.graph_offsets[i] = degree;
        // The entry past the last, scanned into the total.
        if (i == 0) a.graph_offsets[n] = 0;
    }
}

extern "C" __global__ void ctl_fill(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.member_count; i += grid_threads()) {
        const unsigned v = a.members[i];
        unsigned long long at = a.graph_offsets[i];
        for (unsigned long long e = a.offsets[v]; e < a.offsets[v + 1]; ++e) {
            const unsigned target = a.local[a.targets[e]];
            if (target != NOT_MEMBER) a.graph_targets[at++] = target;
        }
    }
}

extern "C" __global__ void ctl_tops(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.member_count; i += grid_threads()) {
        const unsigned v = a.members[i], component = a.representative[i];
        atomicMax(&a.tops[component], ((unsigned long long)a.priorities[v] << 32) | v);
        atomicAdd(&a.sizes[component], 1u);
    }
}

extern "C" __global__ void ctl_classify(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.member_count; i += grid_threads()) {
        const unsigned v = a.members[i], component = a.representative[i];
        const unsigned long long top = a.tops[component];
        const unsigned top_priority = (unsigned)(top >> 32), top_vertex = (unsigned)top;
        const bool cyclic = a.sizes[component] > 1 || a.self_loops[i];
        if (!cyclic) continue;
        if (a.favoured_by(top_priority) == a.player) {
            if (v != top_vertex) continue;
            // The top goes round: a move to a member of its component.
            for (unsigned long long e = a.offsets[v]; e < a.offsets[v + 1]; ++e) {
                const unsigned w = a.local[a.targets[e]];
                if (w != NOT_MEMBER && a.representative[w] == component) {
                    a.strategy[v] = a.targets[e];
                    break;
                }
            }
            a.winners[v] = a.player;
            a.append((unsigned*)p.next_wave, CONTROLLED_COUNTER_WAVE, v);
        } else if (a.priorities[v] != top_priority) {
            a.append(a.next_members, CONTROLLED_COUNTER_NEXT, v);
        }
    }
}

// One step of a wave from `reached` (won by the player): its open
// predecessors that join. Within components, a member of the same
// component; else a vertex of the player at once, one of the opponent
// when its last remaining move is taken off.
__device__ __forceinline__ void reach(const ControlledParams& p, const Arrays& a, unsigned reached, unsigned* out,
                                      unsigned long long* length) {
    const unsigned component = p.within_components ? a.representative[a.local[reached]] : 0u;
    for (unsigned long long e = a.predecessor_offsets[reached]; e < a.predecessor_offsets[reached + 1]; ++e) {
        const unsigned v = a.predecessors[e];
        if (a.winners[v] != OPEN) continue;
        bool joins;
        if (p.within_components) {
            const unsigned index = a.local[v];
            joins = index != NOT_MEMBER && a.representative[index] == component &&
                    atomicCAS(&a.winners[v], OPEN, a.player) == OPEN;
            if (joins) a.strategy[v] = reached;
        } else if (a.owners[v] == a.player) {
            joins = atomicCAS(&a.winners[v], OPEN, a.player) == OPEN;
            if (joins) a.strategy[v] = reached;
        } else {
            joins = atomicSub(&a.remaining[v], 1u) == 1u;
            if (joins) a.winners[v] = a.player;
        }
        if (joins) out[atomicAdd(length, 1ull)] = v;
    }
}

// Waves in one block while they stay short (short_waves_in_block), at
// most CONTROLLED_BLOCK_WAVES a launch (so that the host sees a stop
// between launches): the pending wave's length goes to
// counters[CONTROLLED_COUNTER_WAVE], the waves run to
// counters[CONTROLLED_COUNTER_WAVES].
extern "C" __global__ void ctl_waves_block(const ControlledParams p) {
    const Arrays a(p);
    short_waves_in_block((unsigned*)p.wave, (unsigned*)p.next_wave, p.wave_count, CONTROLLED_BLOCK_WAVE,
                         CONTROLLED_BLOCK_WAVES,
                         &a.counters[CONTROLLED_COUNTER_WAVE], &a.counters[CONTROLLED_COUNTER_WAVES],
                         [&](unsigned reached, unsigned* out, unsigned long long* length) {
                             reach(p, a, reached, out, length);
                         });
}

// One wave over the grid.
extern "C" __global__ void ctl_waves(const ControlledParams p) {
    const Arrays a(p);
    const unsigned* wave = (const unsigned*)p.wave;
    for (unsigned long long i = grid_thread(); i < p.wave_count; i += grid_threads())
        reach(p, a, wave[i], (unsigned*)p.next_wave, &a.counters[CONTROLLED_COUNTER_WAVE]);
}

// The opponent's open vertices: their moves that stay open or reach the
// player's vertices (each of the latter is taken off once, when its end
// joins the attractor or starts it).
extern "C" __global__ void ctl_remaining(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads()) {
        if (a.winners[v] != OPEN || a.owners[v] == a.player) continue;
        unsigned count = 0;
        for (unsigned long long e = a.offsets[v]; e < a.offsets[v + 1]; ++e) {
            const unsigned w = a.winners[a.targets[e]];
            count += w == OPEN || w == a.player;
        }
        a.remaining[v] = count;
    }
}

// The player's vertices, the attractor's first wave (appended to
// next_wave).
extern "C" __global__ void ctl_won(const ControlledParams p) {
    const Arrays a(p);
    for (unsigned long long v = grid_thread(); v < p.vertices; v += grid_threads())
        if (a.winners[v] == a.player) a.append((unsigned*)p.next_wave, CONTROLLED_COUNTER_WAVE, (unsigned)v);
}
