// Strongly connected components of a CSR graph, in rounds over the live
// (not yet assigned) states, as src/scc/cpu.rs runs them on CPU threads:
// trimming, then colouring (every live state a seed) or forward-backward
// (one pivot per partition the only seed), both spreading the largest seed
// label forwards along the edges and backwards along the transpose, pass
// after pass from the states whose label grew. Every kernel loops over the
// work list of live states or over a frontier; the host launches the
// passes, reads the frontier lengths, compacts the work list and stops when
// every state is assigned. Summary passes count the components, the
// largest, the trivial and the bottom ones on the device.
//
// UNASSIGNED, ASSIGNED and NO_LABEL mirror crate::scc::cpu's constants.
//
// Counters are zeroed by the host (memsets in stream order) before the
// passes that write them and read after the stream has run them: no kernel
// resets a flag or count that another block may still be using.

#include "common/grid.cuh"

#define UNASSIGNED 0xffffffffu
#define ASSIGNED 0xffffffffffffffffull
#define NO_LABEL 0u
#define SELF_LOOP 1u
#define LEAVES 2u

// Counter slots (SCC_COUNTER_*, from src/scc/gpu.rs): the compacted work
// list's length, the summary figures, and the frontier lengths of the
// propagation passes.

// The arrays of a decomposition (src/scc/gpu.rs).
struct SccParams {
    unsigned long long offsets;         // u64[states + 1]
    unsigned long long targets;         // u32[edges]
    unsigned long long states;
    unsigned long long partition;       // u64[states], ASSIGNED once assigned
    unsigned long long representative;  // u32[states], UNASSIGNED before
    unsigned long long forward;         // u32[states]: label, flags or sizes
    unsigned long long backward;        // u32[states]: label or summary bits
    unsigned long long live;            // u32[states]: the work list
    unsigned long long live_count;      // entries of the work list
    unsigned long long next_live;       // u32[states]: the compacted list
    unsigned long long counters;        // u64[SCC_COUNTERS]
    unsigned long long pass;            // propagation pass (queued[] stamp)
    unsigned long long pivots;          // u32[pivot_mask + 1]
    unsigned long long pivot_mask;
    unsigned long long round;           // salts split keys
    unsigned long long reverse_offsets; // u64[states + 1]: the transpose
    unsigned long long reverse_targets; // u32[edges]
    unsigned long long frontier_forward;  // u32[states]: seeds of a round
    unsigned long long frontier_backward; // u32[states]
    unsigned long long count_forward_in;  // counter slots of the seeds
    unsigned long long count_backward_in;
    unsigned long long pass_offsets;    // propagate: the graph or transpose
    unsigned long long pass_targets;
    unsigned long long pass_labels;     // u32[states]: forward or backward
    unsigned long long pass_queued;     // u32[states]
    unsigned long long pass_frontier;   // u32[states]: this pass's states
    unsigned long long pass_count;      // counter slot of their number
    unsigned long long pass_next;       // u32[states]: the next frontier
    unsigned long long pass_next_count; // counter slot of its length
};

struct Arrays {
    const unsigned long long* offsets;
    const unsigned* targets;
    unsigned long long* partition;
    unsigned* representative;
    unsigned* forward;
    unsigned* backward;
    const unsigned* live;
    unsigned* next_live;
    unsigned long long* counters;
    unsigned* pivots;
    unsigned* frontier_forward;
    unsigned* frontier_backward;
    __device__ explicit Arrays(const SccParams& p)
        : offsets((const unsigned long long*)p.offsets), targets((const unsigned*)p.targets),
          partition((unsigned long long*)p.partition), representative((unsigned*)p.representative),
          forward((unsigned*)p.forward), backward((unsigned*)p.backward), live((const unsigned*)p.live),
          next_live((unsigned*)p.next_live), counters((unsigned long long*)p.counters),
          pivots((unsigned*)p.pivots), frontier_forward((unsigned*)p.frontier_forward),
          frontier_backward((unsigned*)p.frontier_backward) {}
};

// Loads that other blocks may be changing during the pass.
__device__ __forceinline__ unsigned long long load_key(const unsigned long long* partition, unsigned state) {
    return *((volatile const unsigned long long*)partition + state);
}
__device__ __forceinline__ unsigned load_label(const unsigned* labels, unsigned state) {
    return *((volatile const unsigned*)labels + state);
}


__device__ __forceinline__ void assign(const Arrays& a, unsigned state, unsigned representative) {
    a.representative[state] = representative;
    a.partition[state] = ASSIGNED;
}

// The SplitMix64 finaliser, as crate::scc::cpu::mix.
__device__ __forceinline__ unsigned long long mix(unsigned long long key) {
    key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ull;
    key = (key ^ (key >> 27)) * 0x94d049bb133111ebull;
    return key ^ (key >> 31);
}

// As crate::scc::cpu::split_key.
__device__ __forceinline__ unsigned long long split_key(unsigned long long key, unsigned long long bits,
                                                        unsigned long long round) {
    const unsigned long long split = mix(key ^ mix(bits + 1 + (round << 2)));
    return split == ASSIGNED ? split - 1 : split;
}

// Every state live in partition 0, unassigned, in the work list.
extern "C" __global__ void scc_start(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        a.partition[s] = 0;
        a.representative[s] = UNASSIGNED;
        a.next_live[s] = (unsigned)s;
    }
}

// Appends the live states of the work list to next_live.
extern "C" __global__ void compact(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) {
        const unsigned state = a.live[i];
        if (a.partition[state] != ASSIGNED) a.next_live[atomicAdd(&a.counters[SCC_COUNTER_LIVE], 1ull)] = state;
    }
}

// Trimming, first pass: forward[s] = whether s has a live predecessor in
// its partition (cleared by trim_clear).
extern "C" __global__ void trim_clear(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) a.forward[a.live[i]] = 0;
}

extern "C" __global__ void trim_mark(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) {
        const unsigned state = a.live[i];
        const unsigned long long key = a.partition[state];
        for (unsigned long long e = a.offsets[state]; e < a.offsets[state + 1]; ++e) {
            const unsigned next = a.targets[e];
            if (next != state && a.partition[next] == key && !a.forward[next]) a.forward[next] = 1;
        }
    }
}

// Trimming, second pass: a live state without a live predecessor or
// successor in its partition is a component of its own.
extern "C" __global__ void trim_remove(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) {
        const unsigned state = a.live[i];
        const unsigned long long key = a.partition[state];
        bool alone = a.forward[state] == 0;
        if (!alone) {
            alone = true;
            for (unsigned long long e = a.offsets[state]; e < a.offsets[state + 1]; ++e) {
                const unsigned next = a.targets[e];
                if (next != state && load_key(a.partition, next) == key) {
                    alone = false;
                    break;
                }
            }
        }
        if (alone) {
            assign(a, state, state);
        }
    }
}

// The label a seed spreads: its number plus one, scrambled by a bijection
// that keeps 0 at 0 (crate::scc::cpu::priority); and its inverse.
__device__ __forceinline__ unsigned priority(unsigned state) {
    unsigned x = (state + 1) * PRIORITY_FIRST;
    x ^= x >> 16;
    x *= PRIORITY_SECOND;
    return x ^ (x >> 16);
}
__device__ __forceinline__ unsigned seed_of(unsigned label) {
    unsigned x = label ^ (label >> 16);
    x *= PRIORITY_SECOND_INVERSE;
    x ^= x >> 16;
    return x * PRIORITY_FIRST_INVERSE - 1;
}

// Colouring: every live state is a seed, on both frontiers.
extern "C" __global__ void coloring_start(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) {
        const unsigned state = a.live[i];
        a.forward[state] = priority(state);
        a.backward[state] = priority(state);
        a.frontier_forward[i] = state;
        a.frontier_backward[i] = state;
    }
}

// A state whose labels agree joins that label's seed's component; the
// others split into partitions by their pair of labels.
extern "C" __global__ void coloring_finish(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) {
        const unsigned state = a.live[i];
        const unsigned into = a.forward[state], out_of = a.backward[state];
        if (into == out_of)
            assign(a, state, seed_of(into));
        else
            a.partition[state] = ((unsigned long long)into << 32) | out_of;
    }
}

__device__ __forceinline__ unsigned* pivot_slot(const SccParams& p, const Arrays& a, unsigned long long key) {
    return &a.pivots[mix(key) & p.pivot_mask];
}

// Forward-backward: the largest state hashed to each slot (plus one; the
// host zeroes the slots) is the pivot of its partition.
extern "C" __global__ void pivots_choose(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) {
        const unsigned state = a.live[i];
        atomicMax(pivot_slot(p, a, a.partition[state]), state + 1);
    }
}

// Pivots are the only seeds; they go on both frontiers (counted in
// counters[p.count_forward_in] and [p.count_backward_in], zeroed by the host).
extern "C" __global__ void pivots_seed(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) {
        const unsigned state = a.live[i];
        const bool pivot = *pivot_slot(p, a, a.partition[state]) == state + 1;
        const unsigned label = pivot ? priority(state) : NO_LABEL;
        a.forward[state] = label;
        a.backward[state] = label;
        if (pivot) {
            a.frontier_forward[atomicAdd(&a.counters[p.count_forward_in], 1ull)] = state;
            a.frontier_backward[atomicAdd(&a.counters[p.count_backward_in], 1ull)] = state;
        }
    }
}

// The pivot's component: reached from it and reaching it; the others
// split by which of the two they are in.
extern "C" __global__ void pivots_finish(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.live_count; i += grid_threads()) {
        const unsigned state = a.live[i];
        const unsigned into = a.forward[state], out_of = a.backward[state];
        if (into == out_of && into != NO_LABEL) {
            assign(a, state, seed_of(into));
        } else {
            const unsigned long long bits = (into != NO_LABEL) | ((unsigned long long)(out_of != NO_LABEL) << 1);
            a.partition[state] = split_key(a.partition[state], bits, p.round);
        }
    }
}

// One propagation pass in one direction (the host passes the graph or its
// transpose, and the matching labels, frontiers and counter slots): each
// state of the frontier first raises its label to its label's seed's label,
// then raises its partners' labels to its own; those that grew form the
// next frontier, each once (queued[] holds the pass that queued it).
extern "C" __global__ void propagate(const SccParams p) {
    const Arrays a(p);
    const unsigned long long* offsets = (const unsigned long long*)p.pass_offsets;
    const unsigned* targets = (const unsigned*)p.pass_targets;
    unsigned* labels = (unsigned*)p.pass_labels;
    unsigned* queued = (unsigned*)p.pass_queued;
    const unsigned* frontier = (const unsigned*)p.pass_frontier;
    unsigned* next = (unsigned*)p.pass_next;
    const unsigned long long count = *((volatile unsigned long long*)a.counters + p.pass_count);
    for (unsigned long long i = grid_thread(); i < count; i += grid_threads()) {
        const unsigned state = frontier[i];
        const unsigned long long key = a.partition[state];
        unsigned label = load_label(labels, state);
        const unsigned jumped = label == NO_LABEL ? label : load_label(labels, seed_of(label));
        if (jumped > label) label = max(atomicMax(&labels[state], jumped), jumped);
        for (unsigned long long e = offsets[state]; e < offsets[state + 1]; ++e) {
            const unsigned target = targets[e];
            if (target == state || a.partition[target] != key || load_label(labels, target) >= label) continue;
            if (atomicMax(&labels[target], label) < label && atomicExch(&queued[target], (unsigned)p.pass) != (unsigned)p.pass)
                next[atomicAdd(&a.counters[p.pass_next_count], 1ull)] = target;
        }
    }
}

// Transpose, first pass: each state's in-degree at reverse_offsets[state]
// (zeroed by the host, then scanned into offsets).
extern "C" __global__ void transpose_count(const SccParams p) {
    const Arrays a(p);
    unsigned long long* reverse_offsets = (unsigned long long*)p.reverse_offsets;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads())
        for (unsigned long long e = a.offsets[s]; e < a.offsets[s + 1]; ++e)
            atomicAdd(&reverse_offsets[a.targets[e]], 1ull);
}

// Transpose, last pass (after the host scanned the counts into offsets and
// copied them into the cursors, one per state): each edge s -> t as t -> s.
extern "C" __global__ void transpose_fill(const SccParams p) {
    const Arrays a(p);
    unsigned long long* cursor = a.partition;
    unsigned* reverse_targets = (unsigned*)p.reverse_targets;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads())
        for (unsigned long long e = a.offsets[s]; e < a.offsets[s + 1]; ++e)
            reverse_targets[atomicAdd(&cursor[a.targets[e]], 1ull)] = (unsigned)s;
}

// Summary, first pass: sizes (in forward) and bits (in backward) zeroed.
extern "C" __global__ void summary_clear(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        a.forward[s] = 0;
        a.backward[s] = 0;
    }
}

// Sizes, self-loops and edges that leave a component, at its representative.
extern "C" __global__ void summary_edges(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        const unsigned state = (unsigned)s, mine = a.representative[state];
        atomicAdd(&a.forward[mine], 1u);
        unsigned bits = 0;
        for (unsigned long long e = a.offsets[state]; e < a.offsets[state + 1]; ++e) {
            const unsigned next = a.targets[e];
            if (next == state)
                bits |= SELF_LOOP;
            else if (a.representative[next] != mine)
                bits |= LEAVES;
        }
        if (bits && (load_label(a.backward, mine) & bits) != bits) atomicOr(&a.backward[mine], bits);
    }
}

// The figures, one atomic per thread.
extern "C" __global__ void summary_count(const SccParams p) {
    const Arrays a(p);
    unsigned long long components = 0, trivial = 0, bottom = 0, largest = 0;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        if (a.representative[s] != s) continue;
        const unsigned size = a.forward[s], bits = a.backward[s];
        components += 1;
        largest = max(largest, (unsigned long long)size);
        trivial += size == 1 && !(bits & SELF_LOOP);
        bottom += !(bits & LEAVES);
    }
    if (components) {
        atomicAdd(&a.counters[SCC_COUNTER_COMPONENTS], components);
        atomicMax(&a.counters[SCC_COUNTER_LARGEST], largest);
        atomicAdd(&a.counters[SCC_COUNTER_TRIVIAL], trivial);
        atomicAdd(&a.counters[SCC_COUNTER_BOTTOM], bottom);
    }
}
