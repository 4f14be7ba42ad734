// Strongly connected components of a CSR graph, by the two methods of
// src/scc/cpu.rs, which runs the same rounds on CPU threads:
// - colouring: two labels per state (the largest priority reaching it and
//   reached from it), raised edge by edge over a list of edges until none
//   grows; states whose labels agree are assigned, edges between states
//   with different label pairs dropped, the rest restarted;
// - forward-backward, in rounds over the live (not yet assigned) states:
//   trimming, then one pivot per partition whose label spreads forwards
//   along the edges and backwards along the transpose, pass after pass
//   from the states whose label grew.
// The host launches the passes, reads the counters, compacts the lists
// and stops when every state is assigned. Summary passes count the
// components, the largest, the trivial and the bottom ones on the device.
//
// UNASSIGNED, and ASSIGNED and NO_LABEL (scc/coloring.cuh), mirror
// crate::scc::cpu's constants.
//
// Counters are zeroed by the host (memsets in stream order) before the
// passes that write them and read after the stream has run them: no kernel
// resets a flag or count that another block may still be using.

#include "common/grid.cuh"
#include "scc/coloring.cuh"

#define UNASSIGNED 0xffffffffu
// Rows longer than this are listed edge by edge (signatures_long_rows),
// shorter ones by their state's thread (list_short_rows). At least 32:
// a row between a warp's first and last edge is then short.
#define LONG_ROW 32

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
    unsigned long long signatures;      // u32[2 * states]: colouring's labels
    unsigned long long edge_list;       // uint2[edges]: colouring's edges
    unsigned long long edge_count;      // entries of the edge list
    unsigned long long next_edges;      // uint2[edges]: the kept edges
    unsigned long long edges;           // edges of the graph
    unsigned long long state_bits;      // u32[states]: colouring's SELF_LOOP
                                        // and LEAVES per state, or 0
    unsigned long long leaves_seen;     // u32[states]: colouring's pass
                                        // stamps (signatures_propagate)
    unsigned long long degrees;         // u32[2 * states]: trimming's
                                        // live in- and out-degrees
    unsigned long long trimmed;         // 1: trimming has assigned states
    unsigned long long assignments;     // uint2[assignment_count]: state and
    unsigned long long assignment_count; // representative, from the host
    unsigned long long batch_pass;      // a colouring pass's place in its batch
    unsigned long long round_pass;      // a colouring pass's place in its
                                        // round, from 1
    unsigned long long roots;           // u32[states]: each state's root in
                                        // the mutual edges' union, or 0
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

// The state whose row holds edge `edge`: the last state whose first edge
// is at or before it (edge-parallel passes: a hub's edges spread over many
// threads instead of one).
__device__ __forceinline__ unsigned source_of(const unsigned long long* offsets, unsigned long long states,
                                              unsigned long long edge) {
    unsigned long long low = 0, high = states;  // offsets[low] <= edge < offsets[high]
    while (high - low > 1) {
        const unsigned long long middle = low + (high - low) / 2;
        if (__ldg(offsets + middle) <= edge)
            low = middle;
        else
            high = middle;
    }
    return (unsigned)low;
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

// Appends the items of a warp that keep theirs to list (whose length is
// counters[slot]) in the warp's order; every lane of the warp calls it.
template <typename T>
__device__ __forceinline__ void append(T* list, unsigned long long* length, bool keep, const T item) {
    const unsigned lanes = __ballot_sync(0xffffffffu, keep);
    if (!lanes) return;
    const unsigned lane = threadIdx.x & 31u, leader = __ffs(lanes) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(length, (unsigned long long)__popc(lanes));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (keep) list[base + __popc(lanes & ((1u << lane) - 1u))] = item;
}

// Trimming (when colouring meets long paths: src/scc/gpu.rs,
// TRIM_AFTER_PASSES): a state with no edge from another
// live state, or none to one, is on no cycle through others: a component
// of its own (trivial, or its self-loop). Assigning it can leave its
// neighbours so in turn: a long chain of such states, which colouring
// would take a round each for, goes a state at a time (trim_drain). A
// state is claimed once, by whoever brings one of its degrees to zero.
// degrees[2 s] counts the edges into s from other states, degrees[2 s + 1]
// those out of s to others (the host zeroes them); every state starts
// unassigned.
extern "C" __global__ void trim_degrees(const SccParams p) {
    const Arrays a(p);
    unsigned* degrees = (unsigned*)p.degrees;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        unsigned out = 0;
        for (unsigned long long e = a.offsets[s]; e < a.offsets[s + 1]; ++e) {
            const unsigned next = a.targets[e];
            if (next == s) continue;
            ++out;
            atomicAdd(&degrees[2ull * next], 1u);
        }
        degrees[2 * s + 1] = out;
        a.representative[s] = UNASSIGNED;
    }
}

// Assigns `state` to itself unless it is assigned already; whether this
// call did.
__device__ __forceinline__ bool claim(const Arrays& a, unsigned state) {
    return atomicCAS(&a.representative[state], UNASSIGNED, state) == UNASSIGNED;
}

// Trimming's first states: those with a degree of zero, appended to
// next_live (its length in counters[SCC_COUNTER_LIVE], zeroed by the
// host).
extern "C" __global__ void trim_seed(const SccParams p) {
    const Arrays a(p);
    const uint2* degrees = (const uint2*)p.degrees;
    const unsigned long long lane = threadIdx.x & 31u;
    for (unsigned long long first = grid_thread() - lane; first < p.states; first += grid_threads()) {
        const unsigned long long s = first + lane;
        bool alone = false;
        if (s < p.states) {
            const uint2 degree = degrees[s];
            alone = (degree.x == 0 || degree.y == 0) && claim(a, (unsigned)s);
        }
        append(a.next_live, &a.counters[SCC_COUNTER_LIVE], alone, (unsigned)s);
    }
}

// Takes the assigned `state`'s edges off its neighbours' degrees, and
// claims and adds to the work list those left at zero.
__device__ __forceinline__ void peel(const SccParams& p, const Arrays& a, unsigned state, WorkAppender& appender) {
    unsigned* degrees = (unsigned*)p.degrees;
    const unsigned long long* reverse_offsets = (const unsigned long long*)p.reverse_offsets;
    const unsigned* reverse_targets = (const unsigned*)p.reverse_targets;
    for (unsigned long long e = a.offsets[state]; e < a.offsets[state + 1]; ++e) {
        const unsigned next = a.targets[e];
        if (next != state && atomicSub(&degrees[2ull * next], 1u) == 1u && claim(a, next)) appender.push(next);
    }
    for (unsigned long long e = reverse_offsets[state]; e < reverse_offsets[state + 1]; ++e) {
        const unsigned previous = reverse_targets[e];
        if (previous != state && atomicSub(&degrees[2ull * previous + 1], 1u) == 1u && claim(a, previous))
            appender.push(previous);
    }
}

// Trimming as one work list (drain_work_list, no waves): the states that
// trim_seed assigned (in next_live, their count in
// counters[SCC_COUNTER_LIVE], WORK_EMPTY beyond) are peeled, and so in
// turn is every state that peeling leaves without a live edge to or from
// another state. Every state assigned is appended once or handled by the
// thread that claimed it (counters[SCC_COUNTER_TRIM_CONTINUED]), so the
// two counts add up to the states trimmed.
extern "C" __global__ void trim_drain(const SccParams p) {
    const Arrays a(p);
    const WorkList list{a.next_live, &a.counters[SCC_COUNTER_LIVE], &a.counters[SCC_COUNTER_TRIM_TAKEN],
                        &a.counters[SCC_COUNTER_TRIM_FINISHED], &a.counters[SCC_COUNTER_TRIM_CONTINUED]};
    drain_work_list(list, [&](unsigned state, WorkAppender& appender) { peel(p, a, state, appender); });
}

// Whether colouring starts from some states and edges only: those
// trimming left unassigned (p.trimmed), or the roots of the mutual edges'
// clusters and the edges between them (p.roots).
__device__ __forceinline__ bool filtered(const SccParams& p) { return p.trimmed || p.roots; }

// The root of `state`'s cluster of mutual edges (itself without
// contraction).
__device__ __forceinline__ unsigned root_of(const SccParams& p, unsigned state) {
    return p.roots ? ((const unsigned*)p.roots)[state] : state;
}

// Every state's own priority on both labels, and every state in the work
// list (next_live): in order, or when filtered those that trimming left
// unassigned and that are their cluster's root, appended (the length in
// counters[SCC_COUNTER_LIVE], zeroed by the host).
extern "C" __global__ void signatures_start(const SccParams p) {
    const Arrays a(p);
    uint2* signatures = (uint2*)p.signatures;
    const unsigned long long lane = threadIdx.x & 31u;
    for (unsigned long long first = grid_thread() - lane; first < p.states; first += grid_threads()) {
        const unsigned long long s = first + lane;
        bool live = false;
        if (s < p.states) {
            signatures[s] = own_labels((unsigned)s);
            ((unsigned*)p.state_bits)[s] = 0;
            live = a.representative[s] == UNASSIGNED && root_of(p, (unsigned)s) == s;
            if (!filtered(p)) a.next_live[s] = (unsigned)s;
        }
        if (filtered(p)) append(a.next_live, &a.counters[SCC_COUNTER_LIVE], live, (unsigned)s);
    }
}

// Colouring's first start: every edge in the list in order (self-loops
// too: the first split drops them). A row of at most LONG_ROW edges is
// listed by its state's thread, which raises the state's out_of to the
// largest priority of its successors by a plain store (no other thread
// lists that row); longer rows are counted in
// counters[SCC_COUNTER_LONG_ROWS] and left to signatures_long_rows.
__device__ void list_short_rows(const SccParams& p, const Arrays& a) {
    unsigned* signatures = (unsigned*)p.signatures;
    uint2* list = (uint2*)p.edge_list;
    bool long_rows = false;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        const unsigned long long begin = a.offsets[s], end = a.offsets[s + 1];
        if (end - begin > LONG_ROW) {
            long_rows = true;
            continue;
        }
        unsigned out_of = priority((unsigned)s);
        for (unsigned long long e = begin; e < end; ++e) {
            const unsigned next = a.targets[e];
            list[e] = make_uint2((unsigned)s, next);
            out_of = max(out_of, priority(next));
        }
        signatures[out_slot((unsigned)s)] = out_of;
    }
    if (long_rows) atomicAdd(&a.counters[SCC_COUNTER_LONG_ROWS], 1ull);
}

// The rows that list_short_rows left (if it counted any): a warp takes 32
// consecutive edges and finds the rows of its first and last edge; the
// rows between them lie wholly within the 32 and so are short. Lanes in a
// long row list their edge, and the lanes of one row raise its out_of
// once, by their largest priority.
extern "C" __global__ void signatures_long_rows(const SccParams p) {
    const Arrays a(p);
    if (*(volatile unsigned long long*)&a.counters[SCC_COUNTER_LONG_ROWS] == 0) return;
    unsigned* signatures = (unsigned*)p.signatures;
    uint2* list = (uint2*)p.edge_list;
    const unsigned long long lane = threadIdx.x & 31u;
    for (unsigned long long first = grid_thread() - lane; first < p.edges; first += grid_threads()) {
        const unsigned long long e = first + lane, last = min(first + 31, p.edges - 1);
        const unsigned first_row = source_of(a.offsets, p.states, first),
                       last_row = source_of(a.offsets, p.states, last);
        unsigned row = UNASSIGNED, label = 0;
        if (e < p.edges) {
            row = e < a.offsets[first_row + 1] ? first_row : e >= a.offsets[last_row] ? last_row : UNASSIGNED;
            if (row != UNASSIGNED && a.offsets[row + 1] - a.offsets[row] <= LONG_ROW) row = UNASSIGNED;
        }
        if (row != UNASSIGNED) {
            const unsigned next = a.targets[e];
            list[e] = make_uint2(row, next);
            label = priority(next);
        }
        const unsigned same = __match_any_sync(0xffffffffu, row);
        label = __reduce_max_sync(same, label);
        if (row != UNASSIGNED && lane == (unsigned)(__ffs(same) - 1) &&
            load_half(signatures, out_slot(row)) < label)
            raise(signatures, out_slot(row), label);
    }
}

// The edges between two live states in the list, and out_of raised over
// them (after signatures_start): every edge in order (list_short_rows,
// then signatures_long_rows), or when filtered the edges between the
// roots of two different clusters, both unassigned, appended (the length
// in counters[SCC_COUNTER_EDGES], zeroed by the host). An edge from or
// to a state that trimming assigned is recorded in its source's
// state_bits now, as a split would; one inside a cluster records only a
// self-loop (a cluster of two or more states is a component's part).
extern "C" __global__ void signatures_edges(const SccParams p) {
    const Arrays a(p);
    if (!filtered(p)) {
        list_short_rows(p, a);
        return;
    }
    unsigned* signatures = (unsigned*)p.signatures;
    unsigned* state_bits = (unsigned*)p.state_bits;
    const unsigned long long lane = threadIdx.x & 31u;
    for (unsigned long long first = grid_thread() - lane; first < p.edges; first += grid_threads()) {
        const unsigned long long e = first + lane;
        bool keep = false;
        unsigned from = 0, to = 0;
        if (e < p.edges) {
            const unsigned state = source_of(a.offsets, p.states, e), next = a.targets[e];
            from = root_of(p, state);
            to = root_of(p, next);
            const bool inside = from == to;
            keep = !inside && a.representative[from] == UNASSIGNED && a.representative[to] == UNASSIGNED;
            if (keep) {
                const unsigned label = priority(to);
                if (load_half(signatures, out_slot(from)) < label) raise(signatures, out_slot(from), label);
            } else {
                const unsigned bit = next == state ? SELF_LOOP : inside ? 0u : LEAVES;
                if (bit && !(load_label(state_bits, state) & bit)) atomicOr(&state_bits[state], bit);
            }
        }
        append((uint2*)p.edge_list, &a.counters[SCC_COUNTER_EDGES], keep, make_uint2(from, to));
    }
}

// Contraction of mutual edges (crate::scc::mutual): whether to's row
// holds an edge back to from (another state), both rows at most
// MUTUAL_SCANNED_ROW long.
__device__ __forceinline__ bool has_reverse(const Arrays& a, unsigned from, unsigned to) {
    const unsigned long long begin = a.offsets[to], end = a.offsets[to + 1];
    if (from == to || end - begin > MUTUAL_SCANNED_ROW || a.offsets[from + 1] - a.offsets[from] > MUTUAL_SCANNED_ROW)
        return false;
    for (unsigned long long e = begin; e < end; ++e)
        if (a.targets[e] == from) return true;
    return false;
}

// Counts over the sampled edges (as crate::scc::mutual::sampled_edge), in
// counters zeroed by the host: in SCC_COUNTER_MUTUAL those that have
// their reverse (contraction), in SCC_COUNTER_NEAR those between states
// less than LABELS_NEAR apart and in SCC_COUNTER_FROM_HUBS those in a row
// longer than LABELS_LONG_ROW (colouring's labels:
// crate::scc::labels::sample).
extern "C" __global__ void edges_sample(const SccParams p) {
    const Arrays a(p);
    const unsigned long long samples = min(p.edges, (unsigned long long)MUTUAL_SAMPLED_EDGES);
    for (unsigned long long i = grid_thread(); i < samples; i += grid_threads()) {
        const unsigned long long e = p.edges <= MUTUAL_SAMPLED_EDGES ? i : i * p.edges / MUTUAL_SAMPLED_EDGES;
        const unsigned from = source_of(a.offsets, p.states, e), to = a.targets[e];
        if (has_reverse(a, from, to)) atomicAdd(&a.counters[SCC_COUNTER_MUTUAL], 1ull);
        if ((from > to ? from - to : to - from) < LABELS_NEAR) atomicAdd(&a.counters[SCC_COUNTER_NEAR], 1ull);
        if (a.offsets[from + 1] - a.offsets[from] > LABELS_LONG_ROW)
            atomicAdd(&a.counters[SCC_COUNTER_FROM_HUBS], 1ull);
    }
}

// The root of `state`'s tree in the union-find of mutual_join (a root's
// parent is UNASSIGNED).
__device__ __forceinline__ unsigned tree_root(const unsigned* parent, unsigned state) {
    for (;;) {
        const unsigned up = load_label(parent, state);
        if (up == UNASSIGNED) return state;
        state = up;
    }
}

// Joins the trees of every edge found both ways (p.roots: every state a
// root at first, all ones): the larger root goes under the smaller by a
// compare-and-swap, so roots only fall and a tree's root is its smallest
// state.
extern "C" __global__ void mutual_join(const SccParams p) {
    const Arrays a(p);
    unsigned* parent = (unsigned*)p.roots;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        const unsigned long long begin = a.offsets[s], end = a.offsets[s + 1];
        if (end - begin > MUTUAL_SCANNED_ROW) continue;
        for (unsigned long long e = begin; e < end; ++e) {
            const unsigned next = a.targets[e];
            if (!has_reverse(a, (unsigned)s, next)) continue;
            unsigned x = (unsigned)s, y = next;
            for (;;) {
                x = tree_root(parent, x);
                y = tree_root(parent, y);
                if (x == y) break;
                const unsigned low = min(x, y), high = max(x, y);
                if (atomicCAS(&parent[high], UNASSIGNED, low) == UNASSIGNED) break;
            }
        }
    }
}

// Every state's parent replaced by its tree's root, a root's by itself
// (after mutual_join); the states that are not roots counted in
// counters[SCC_COUNTER_MUTUAL] (zeroed by the host). A thread reads the
// parents of states that other threads overwrite, with the root or, for
// a root, itself, which leads to the same root.
extern "C" __global__ void mutual_flatten(const SccParams p) {
    const Arrays a(p);
    unsigned* parent = (unsigned*)p.roots;
    unsigned joined = 0;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        unsigned state = (unsigned)s;
        for (;;) {
            const unsigned up = load_label(parent, state);
            if (up == UNASSIGNED || up == state) break;
            state = up;
        }
        parent[s] = state;
        joined += state != s;
    }
    joined = __reduce_add_sync(0xffffffffu, joined);
    if ((threadIdx.x & 31u) == 0 && joined) atomicAdd(&a.counters[SCC_COUNTER_MUTUAL], (unsigned long long)joined);
}

// Relaxes the edge list; each block repeats its share until no label in
// it grows, and counts into counters[SCC_COUNTER_GREW_BY_PASS +
// p.batch_pass] (zeroed by the host) if any grew: the host launches
// passes in batches and reads the counts after each, until a pass counts
// nothing. A pass after the first of its batch returns at once if the
// pass before counted nothing (the labels were final then), so passes
// past convergence cost a launch, not a sweep.
// Past a round's first RESWEEP_AFTER_PASSES passes, a block whose share
// is still sweeps it again while other blocks' sweeps grow labels
// (counters[SCC_COUNTER_GROWTHS] counts the growing sweeps), up to
// COLORING_IDLE_SWEEPS still sweeps in a row: labels then cross from
// share to share within a pass instead of a pass a crossing. A pass that
// counts nothing still saw no label grow in any block's sweep.
// A pass with p.pass set stamps it on each source whose labels agree and
// that has an edge to a state with other labels (leaves_seen): in the
// pass that counts nothing the labels are final, and its stamps say
// which assigned states have an edge that leaves their component, which
// the split then need not look up.
// Blocks wait on each other's growth, so all of them must be resident:
// the bounds keep the registers within what lets a multiprocessor hold
// COLORING_MIN_BLOCKS blocks, and the host launches as many threads as
// the occupancy query says fit. (At 40 registers instead of 31, colouring
// took 1.6 to 5 times as long on an H200, Peterson-PT-3 the worst: fewer
// blocks than launched were resident, and those waited for the rest.)
extern "C" __global__ void __launch_bounds__(SCC_THREADS, COLORING_MIN_BLOCKS)
    signatures_propagate(const SccParams p) {
    const Arrays a(p);
    unsigned* signatures = (unsigned*)p.signatures;
    unsigned* leaves_seen = (unsigned*)p.leaves_seen;
    const unsigned stamp = (unsigned)p.pass;
    const uint2* edges = (const uint2*)p.edge_list;
    unsigned long long* grew_in_pass = &a.counters[SCC_COUNTER_GREW_BY_PASS];
    // Written by an earlier launch: the same value for every thread.
    if (p.batch_pass && *(volatile unsigned long long*)&grew_in_pass[p.batch_pass - 1] == 0) return;
    unsigned long long* growths = &a.counters[SCC_COUNTER_GROWTHS];
    const bool resweep = p.round_pass > RESWEEP_AFTER_PASSES;
    bool grew_here = false, grew, again;
    unsigned still_sweeps = 0;
    unsigned long long growths_before = 0;  // thread 0's
    do {
        if (resweep && threadIdx.x == 0) growths_before = *(volatile unsigned long long*)growths;
        grew = false;
        for (unsigned long long i = grid_thread(); i < p.edge_count; i += grid_threads()) {
            const uint2 edge = edges[i];
            // Through L1 in a round's first pass, where R-MAT's hubs gain
            // (from L2 it took 2 ms more); from L2 while blocks resweep, so
            // that they see other blocks' raises (Peterson-PT-3: 35-45
            // passes instead of 46-56).
            const uint2 at_from = resweep ? load_signature(signatures, edge.x)
                                          : load_cached_signature(signatures, edge.x);
            const uint2 at_to = resweep ? load_signature(signatures, edge.y)
                                        : load_cached_signature(signatures, edge.y);
            grew |= relax_loaded(signatures, edge, at_from, at_to);
            if (stamp && at_from.x == at_from.y && (at_to.x != at_from.x || at_to.y != at_from.y))
                leaves_seen[edge.x] = stamp;
        }
        grew_here |= grew;
        if (__syncthreads_or(grew)) {
            if (resweep && threadIdx.x == 0) atomicAdd(growths, 1ull);
            still_sweeps = 0;
            again = true;
        } else {
            again = resweep && ++still_sweeps <= COLORING_IDLE_SWEEPS &&
                    __syncthreads_or(threadIdx.x == 0 && *(volatile unsigned long long*)growths != growths_before);
        }
    } while (again);
    if (__syncthreads_or(grew_here) && threadIdx.x == 0) atomicAdd(&grew_in_pass[p.batch_pass], 1ull);
}


// Keeps, in next_edges, the edges between two live states with the same
// pair of labels (as crate::scc::cpu::Signatures::joined). Every edge is
// dropped once, by the split of the round that assigns its source or
// separates its ends: then its source's state_bits record a self-loop or
// an edge to another component (ends with different pairs), for the
// summary.
// With p.pass set, the round's last pass (which stamped p.pass) saw the
// final labels: an edge from an assigned state is dropped without looking
// up its target, leaves_seen saying whether any of the state's edges
// leaves.
extern "C" __global__ void signatures_split(const SccParams p) {
    const Arrays a(p);
    const unsigned* signatures = (const unsigned*)p.signatures;
    const unsigned* leaves_seen = (const unsigned*)p.leaves_seen;
    const uint2* edges = (const uint2*)p.edge_list;
    uint2* kept = (uint2*)p.next_edges;
    unsigned* state_bits = (unsigned*)p.state_bits;
    const unsigned long long lane = threadIdx.x & 31u;
    for (unsigned long long first = grid_thread() - lane; first < p.edge_count; first += grid_threads()) {
        const unsigned long long i = first + lane;
        bool keep = false;
        uint2 edge = make_uint2(0, 0);
        if (i < p.edge_count) {
            edge = edges[i];
            const uint2 at_from = load_signature(signatures, edge.x);
            unsigned bit;
            if (p.pass && at_from.x == at_from.y) {
                bit = edge.x == edge.y ? SELF_LOOP : leaves_seen[edge.x] == (unsigned)p.pass ? LEAVES : 0u;
            } else {
                const uint2 at_to = load_signature(signatures, edge.y);
                const bool same = at_from.x == at_to.x && at_from.y == at_to.y;
                keep = edge.x != edge.y && at_from.x != at_from.y && same;
                bit = edge.x == edge.y ? SELF_LOOP : same ? 0u : LEAVES;
            }
            if (bit && !(load_label(state_bits, edge.x) & bit)) atomicOr(&state_bits[edge.x], bit);
        }
        append(kept, &a.counters[SCC_COUNTER_EDGES], keep, edge);
    }
}

// Keeps, in next_live, the states of the work list whose labels differ,
// each restarted from its own priority (crate::scc::cpu::Signatures::restart).
extern "C" __global__ void signatures_restart(const SccParams p) {
    const Arrays a(p);
    uint2* signatures = (uint2*)p.signatures;
    const unsigned long long lane = threadIdx.x & 31u;
    for (unsigned long long first = grid_thread() - lane; first < p.live_count; first += grid_threads()) {
        const unsigned long long i = first + lane;
        bool live = false;
        unsigned state = 0;
        if (i < p.live_count) {
            state = a.live[i];
            const uint2 labels = signatures[state];
            live = labels.x != labels.y;
            if (live) signatures[state] = own_labels(state);
        }
        append(a.next_live, &a.counters[SCC_COUNTER_LIVE], live, state);
    }
}

// Colouring over generated edges (crate::scc::cpu::representatives_by_keyed_rounds;
// the relaxing pass is the explorer's, kernels/explore/graph.cu): every
// state's own priority on both labels, and every state live with key 0.
extern "C" __global__ void keyed_start(const SccParams p) {
    const Arrays a(p);
    uint2* signatures = (uint2*)p.signatures;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        signatures[s] = own_labels((unsigned)s);
        a.partition[s] = 0;
    }
}

// After a round's passes: a live state whose labels agree is assigned
// (key ASSIGNED); the others take their pair as their key and restart
// from their own priority. Counts the live ones in counters[SCC_COUNTER_LIVE].
extern "C" __global__ void keyed_split(const SccParams p) {
    const Arrays a(p);
    uint2* signatures = (uint2*)p.signatures;
    const unsigned long long lane = threadIdx.x & 31u;
    for (unsigned long long first = grid_thread() - lane; first < p.states; first += grid_threads()) {
        const unsigned long long s = first + lane;
        bool live = false;
        if (s < p.states && a.partition[s] != ASSIGNED) {
            const uint2 labels = signatures[s];
            live = labels.x != labels.y;
            a.partition[s] = live ? pair_key(labels) : ASSIGNED;
            if (live) signatures[s] = own_labels((unsigned)s);
        }
        const unsigned lanes = __ballot_sync(0xffffffffu, live);
        if (lane == 0 && lanes) atomicAdd(&a.counters[SCC_COUNTER_LIVE], (unsigned long long)__popc(lanes));
    }
}

// A round finished on the host (Tarjan over a small live graph): each
// listed state's labels become its representative's priority, so that the
// split records its edges' bits and the restart assigns it.
extern "C" __global__ void signatures_assign(const SccParams p) {
    uint2* signatures = (uint2*)p.signatures;
    const uint2* assignments = (const uint2*)p.assignments;
    for (unsigned long long i = grid_thread(); i < p.assignment_count; i += grid_threads()) {
        const uint2 assignment = assignments[i];
        const unsigned label = priority(assignment.y);
        signatures[assignment.x] = make_uint2(label, label);
    }
}

// Every state's representative: the state its root's (agreeing) labels
// name.
extern "C" __global__ void signatures_finish(const SccParams p) {
    const Arrays a(p);
    const uint2* signatures = (const uint2*)p.signatures;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads())
        a.representative[s] = seed_of(signatures[root_of(p, (unsigned)s)].x);
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
// (zeroed by the host, then scanned into offsets). One thread per edge.
extern "C" __global__ void transpose_count(const SccParams p) {
    const Arrays a(p);
    unsigned long long* reverse_offsets = (unsigned long long*)p.reverse_offsets;
    for (unsigned long long e = grid_thread(); e < p.edges; e += grid_threads())
        atomicAdd(&reverse_offsets[a.targets[e]], 1ull);
}

// Transpose, last pass (after the host scanned the counts into offsets and
// copied them into the cursors, one per state): each edge s -> t as t -> s.
// One thread per state: finding an edge's source costs a binary search.
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

// Sizes at the representatives, and colouring's state_bits (if any)
// ORed there; the lanes of a warp that share one add together (a giant
// component would serialise one atomic per state).
extern "C" __global__ void summary_sizes(const SccParams p) {
    const Arrays a(p);
    const unsigned* state_bits = (const unsigned*)p.state_bits;
    const unsigned long long lane = threadIdx.x & 31u;
    for (unsigned long long first = grid_thread() - lane; first < p.states; first += grid_threads()) {
        const unsigned long long s = first + lane;
        const bool mine = s < p.states;
        const unsigned representative = mine ? a.representative[s] : UNASSIGNED;
        const unsigned same = __match_any_sync(0xffffffffu, representative);
        const unsigned bits = __reduce_or_sync(same, mine && state_bits ? state_bits[s] : 0u);
        if (mine && lane == (unsigned)(__ffs(same) - 1)) {
            atomicAdd(&a.forward[representative], (unsigned)__popc(same));
            if (bits) atomicOr(&a.backward[representative], bits);
        }
    }
}

// Self-loops and edges that leave a component, at its representative; one
// thread per edge (when no state_bits recorded them).
extern "C" __global__ void summary_edges(const SccParams p) {
    const Arrays a(p);
    for (unsigned long long e = grid_thread(); e < p.edges; e += grid_threads()) {
        const unsigned state = source_of(a.offsets, p.states, e), next = a.targets[e];
        const unsigned mine = a.representative[state];
        const unsigned bit = next == state ? SELF_LOOP : a.representative[next] != mine ? LEAVES : 0u;
        if (bit && !(load_label(a.backward, mine) & bit)) atomicOr(&a.backward[mine], bit);
    }
}

// The figures, summed over each warp, one atomic a warp (every lane
// reaches the sums; they fit 32 bits, as states are numbered in 32 bits).
extern "C" __global__ void summary_count(const SccParams p) {
    const Arrays a(p);
    unsigned components = 0, trivial = 0, bottom = 0, largest = 0;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        if (a.representative[s] != s) continue;
        const unsigned size = a.forward[s], bits = a.backward[s];
        components += 1;
        largest = max(largest, size);
        trivial += size == 1 && !(bits & SELF_LOOP);
        bottom += !(bits & LEAVES);
    }
    components = __reduce_add_sync(0xffffffffu, components);
    if (components == 0) return;
    largest = __reduce_max_sync(0xffffffffu, largest);
    trivial = __reduce_add_sync(0xffffffffu, trivial);
    bottom = __reduce_add_sync(0xffffffffu, bottom);
    if ((threadIdx.x & 31u) == 0) {
        atomicAdd(&a.counters[SCC_COUNTER_COMPONENTS], (unsigned long long)components);
        atomicMax(&a.counters[SCC_COUNTER_LARGEST], (unsigned long long)largest);
        atomicAdd(&a.counters[SCC_COUNTER_TRIVIAL], (unsigned long long)trivial);
        atomicAdd(&a.counters[SCC_COUNTER_BOTTOM], (unsigned long long)bottom);
    }
}

#include "abi_check.h"
