// Passes over the table of a complete search that turn its states into a
// numbered graph on the device: number the occupied slots densely (the
// initial state first), count each state's transitions, and write them as
// a CSR graph (offsets by state, then target state and action per edge),
// whole or a range of states at a time; or, where the edges would not fit
// in device memory, SCC colouring's passes over the successors generated
// again in every pass. Read-only on the table: no slot is being written
// after a complete search, so every head is final.
//
// Macros from the host: those of network.cuh and table.cuh (src/explore/gpu/kernel.rs),
// and colouring's NUMBERED_LABELS and SCRAMBLE_* (src/scc/gpu.rs).

#include "common/grid.cuh"
#include "common/hash.cuh"
#include "common/warp.cuh"
#include "explore/network.cuh"
#include "explore/table.cuh"
#include "scc/coloring.cuh"


// The lanes of this thread's vector group, which share a state.
__device__ __forceinline__ unsigned group_mask() {
    const unsigned lane = threadIdx.x & 31;
    return (GROUP_THREADS == 32 ? FULL_MASK : ((1u << GROUP_THREADS) - 1)) << (lane / GROUP_THREADS * GROUP_THREADS);
}

// The dense number of occupied slot `slot`: its rank among the occupied
// slots, except that the initial state is 0 and the slots ranked before it
// move up by one.
__device__ __forceinline__ unsigned state_number(const GraphParams& p, unsigned slot) {
    const unsigned word = slot / 32;
    const unsigned below = p.occupied[word] & ((1u << (slot % 32)) - 1);
    const unsigned rank = p.occupied_before[word] + __popc(below);
    if (slot == p.initial_slot) return 0;
    return rank < p.initial_rank ? rank + 1 : rank;
}

// Bit j of occupied[i]: whether slot 32 i + j holds a vector; and
// occupied_before[i] = the bits of word i, which the host turns into
// exclusive prefix sums.
extern "C" __global__ void mark_occupied(const GraphParams p) {
    const unsigned long long words = (p.slots + 31) / 32;
    for (unsigned long long i = grid_thread(); i < words; i += grid_threads()) {
        unsigned bits = 0;
        for (unsigned j = 0; j < 32 && 32 * i + j < p.slots; ++j)
            if (p.table[slot_offset(32 * i + j)] != EMPTY_WORD) bits |= 1u << j;
        p.occupied[i] = bits;
        p.occupied_before[i] = __popc(bits);
    }
}

// slot_of[number] = slot, for every occupied slot.
extern "C" __global__ void number_states(const GraphParams p) {
    for (unsigned long long slot = grid_thread(); slot < p.slots; slot += grid_threads())
        if ((p.occupied[slot / 32] >> (slot % 32)) & 1) p.slot_of[state_number(p, (unsigned)slot)] = (unsigned)slot;
}

// Successors that this lane generates for state `vec` (its processes, as
// in the search); error states have none, as the search does not expand them.
__device__ unsigned lane_successors(const Net& net, const unsigned* vec, unsigned group_lane) {
    if (first_error(net, vec) < net.errors) return 0;
    Generator gen;
    generator_start<false>(gen, net, vec, group_lane);
    unsigned count = 0, blocked = 0, label = 0;
    bool error;
    unsigned out[VEC_WORDS];
    while (generator_next<true, false>(gen, net, vec, out, error, blocked, label)) ++count;
    return count;
}

// Copies the vector of state `state` into `vec`.
__device__ __forceinline__ void load_state(const GraphParams& p, unsigned long long state, unsigned* vec) {
    const unsigned* stored = p.table + slot_offset(p.slot_of[state]);
    for (int i = 0; i < VEC_WORDS; ++i) vec[i] = stored[i];
}

// Calls visit(target, label) for each successor of `vec` that this lane
// generates (error states have none, as the search does not expand them):
// the target's state number, or NO_SLOT (counted in p.missing) if the
// table lacks it, and the action's id.
template <typename Visit>
__device__ __forceinline__ void for_each_successor(const GraphParams& p, const Net& net, const unsigned* vec,
                                                   unsigned group_lane, Visit visit) {
    if (first_error(net, vec) < net.errors) return;
    unsigned out[VEC_WORDS];
    Generator gen;
    generator_start<false>(gen, net, vec, group_lane);
    unsigned blocked = 0, label = 0;
    bool error;
    while (generator_next<true, false>(gen, net, vec, out, error, blocked, label)) {
        const unsigned slot = table_find(p.table, p.buckets, out, hash_words<VEC_WORDS>(out));
        if (slot == NO_SLOT) atomicAdd(p.missing, 1ull);
        visit(slot == NO_SLOT ? NO_SLOT : state_number(p, slot),
              (label & INDEPENDENT) ? label & ~INDEPENDENT : __ldg(&p.rule_actions[label]));
    }
}

// offsets[s] = the number of transitions of state s, for every state; a
// vector group of GROUP_THREADS lanes a state.
extern "C" __global__ void count_edges(const GraphParams p) {
    const Net net = network_of(p.net, nullptr);
    const unsigned group_lane = threadIdx.x % GROUP_THREADS;
    const unsigned mask = group_mask();
    unsigned vec[VEC_WORDS];
    for (unsigned long long s = grid_thread() / GROUP_THREADS; s < p.states; s += grid_threads() / GROUP_THREADS) {
        load_state(p, s, vec);
        unsigned count = lane_successors(net, vec, group_lane);
        for (unsigned o = GROUP_THREADS / 2; o > 0; o >>= 1) count += __shfl_xor_sync(mask, count, o);
        if (group_lane == 0) p.offsets[s] = count;
    }
}

// The edges of states [first_state, end_state): target state and action of
// each, at offsets[s] - offsets[first_state] onwards, each lane's after
// those of the lanes before it in the group.
extern "C" __global__ void fill_edges(const GraphParams p) {
    const Net net = network_of(p.net, nullptr);
    const unsigned group_lane = threadIdx.x % GROUP_THREADS;
    const unsigned mask = group_mask();
    const unsigned long long base = p.offsets[p.first_state];
    unsigned vec[VEC_WORDS];
    for (unsigned long long s = p.first_state + grid_thread() / GROUP_THREADS; s < p.end_state;
         s += grid_threads() / GROUP_THREADS) {
        load_state(p, s, vec);
        const unsigned mine = lane_successors(net, vec, group_lane);
        unsigned before = mine;
        for (unsigned o = 1; o < GROUP_THREADS; o <<= 1) {
            const unsigned up = __shfl_up_sync(mask, before, o, GROUP_THREADS);
            if (group_lane >= o) before += up;
        }
        if (mine == 0) continue;
        unsigned long long at = p.offsets[s] - base + before - mine;
        for_each_successor(p, net, vec, group_lane, [&](unsigned target, unsigned action) {
            p.targets[at] = target;
            if (p.labels) p.labels[at] = action;
            ++at;
        });
    }
}

// SCC colouring over generated edges (crate::scc::cpu::representatives_by_keyed_rounds):
// relaxes every edge between two live states with the same key, and counts
// into *p.grew (zeroed by the host) the blocks in which a label grew. One
// sweep a launch: unlike over an edge list, repeating a block's share
// would cost a generation of its successors each time.
extern "C" __global__ void coloring_generated(const GraphParams p) {
    const Net net = network_of(p.net, nullptr);
    const unsigned group_lane = threadIdx.x % GROUP_THREADS;
    bool grew = false;
    unsigned vec[VEC_WORDS];
    for (unsigned long long s = grid_thread() / GROUP_THREADS; s < p.states; s += grid_threads() / GROUP_THREADS) {
        const unsigned long long key = p.keys[s];
        if (key == ASSIGNED) continue;
        if (group_lane == 0) grew |= jump(p.signatures, (unsigned)s);
        load_state(p, s, vec);
        for_each_successor(p, net, vec, group_lane, [&](unsigned next, unsigned) {
            if (next != NO_SLOT && next != s && p.keys[next] == key)
                grew |= relax(p.signatures, make_uint2((unsigned)s, next));
        });
    }
    if (__syncthreads_or(grew) && threadIdx.x == 0) atomicAdd(p.grew, 1ull);
}

// The summary bits of the components over generated edges: a self-loop, or
// an edge to another component, ORed into component_bits at the
// representative.
extern "C" __global__ void summary_generated(const GraphParams p) {
    const Net net = network_of(p.net, nullptr);
    const unsigned group_lane = threadIdx.x % GROUP_THREADS;
    unsigned vec[VEC_WORDS];
    for (unsigned long long s = grid_thread() / GROUP_THREADS; s < p.states; s += grid_threads() / GROUP_THREADS) {
        const unsigned mine = p.representative[s];
        load_state(p, s, vec);
        for_each_successor(p, net, vec, group_lane, [&](unsigned next, unsigned) {
            if (next == NO_SLOT) return;
            const unsigned bit = next == s ? SELF_LOOP : p.representative[next] != mine ? LEAVES : 0u;
            if (bit && !(*((volatile unsigned*)p.component_bits + mine) & bit)) atomicOr(&p.component_bits[mine], bit);
        });
    }
}

#include "abi_check.h"
