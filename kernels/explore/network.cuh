// The encoded network as the kernels read it, and GPUexplore's successor
// generation over it: one lane's resumable generator over its processes.
// Shared by the search (search.cu) and the state-space passes (graph.cu).
//
// Macros from the host (src/explore/gpu/kernel.rs):
//   VEC_WORDS      words of a state vector
//   GROUP_THREADS  threads per vector group (power of two, at most 32)
//   SYNC_BUFFERS   1: GPUexplore's combination of synchronising rules: each
//                  thread lists the rules its process offers in the state
//                  in shared memory, and a rule's owner reads the other
//                  participants' entries from those lists (needs
//                  GROUP_THREADS >= processes); 0: the owner reads them from
//                  `lookup`
//   MAX_OFFERS     most rules one local state offers (list length, SYNC_BUFFERS)
//   RULE_INDEXES   1: the items may hold rule indexes (their cells are
//                  walked); 0: they hold none and the walk is left out
//   WIDE_COMBINATIONS 1: a rule may have more combinations in one state
//                  than 32 bits count; 0: they are counted in 32 bits,
//                  which keeps two registers free in the search's
//                  successor loop (its register budget is tight)
#pragma once

#define INDEPENDENT 0x80000000u
#define ERROR_TARGET 0x80000000u
#define RULE_INDEX 0x40000000u
#define GROUPS_PER_WARP (32 / GROUP_THREADS)

#include "explore/params.cuh"

struct Net {
    RoU4 fields;                               // word, shift, mask, 0 per process
    RoU32 proc_offsets;
    RoU32 item_offsets;                        // like StateOffsets, into `items`
    RoU4 items;                                // what each local state fires, owns or indexes
    RoU32 trans;                               // [label word, target word] pairs
    RoU4 others;                               // participant's word, shift, mask; base of its rows in `lookup`
                                               // (or a rule index key's word, shift, mask, stride)
    RoU2 lookup;                               // entry range [lo, hi) of the rule per local state
                                               // (or a cell's item range [lo, hi))
    const unsigned* __restrict__ error_locals; // process, state, fatal per error state (read rarely)
    unsigned errors;
    unsigned processes;
    // With SYNC_BUFFERS (the search only): StateOffsets, each `others`
    // row's process, and this warp's offer lists in shared memory.
    const unsigned* __restrict__ state_offsets;
    const unsigned* __restrict__ other_processes;
    unsigned* offers;
};

// The network as a kernel reads it: the host's arrays, and this warp's
// offer lists in shared memory (SYNC_BUFFERS; null otherwise).
__device__ __forceinline__ Net network_of(const NetworkParams& p, unsigned* offers) {
    return Net{p.fields,       p.proc_offsets,  p.item_offsets, p.items,         p.trans,
               p.others,       p.lookup,        p.error_locals, p.errors,        p.processes,
               p.state_offsets, p.other_processes, offers};
}

// Words of one lane's offer list: the count, then (rule, lo, hi) per rule.
#define OFFER_WORDS (1 + 3 * MAX_OFFERS)

// A local state field: word f.x, shift f.y, mask f.z.
__device__ __forceinline__ unsigned get_field(const uint4 f, const unsigned* vec) { return (vec[f.x] >> f.y) & f.z; }

__device__ __forceinline__ void set_field(const uint4 f, unsigned* vec, unsigned value) {
    vec[f.x] = (vec[f.x] & ~(f.z << f.y)) | ((value & f.z) << f.y);
}

__device__ __forceinline__ unsigned get_local(const Net& net, const unsigned* vec, unsigned p) {
    return get_field(ro(net.fields, p), vec);
}

// Items [lo, hi) of process p in local state `local`.
__device__ __forceinline__ void item_range(const Net& net, unsigned p, unsigned local, unsigned& lo, unsigned& hi) {
    unsigned at = ro(net.proc_offsets, p) + local;
    lo = ro(net.item_offsets, at);
    hi = ro(net.item_offsets, at + 1);
}

// Set in an `others` row base for the property monitor, and for a key
// participant whose local state a rule index's cell matched: its entries
// are the row itself, whatever its local state.
#define MONITOR_BIT 0x80000000u
#define FIXED_BIT 0x40000000u

// Entries [x, y) of the rule that `other` (an index into net.others)
// describes, in that participant's local state in `vec`; empty if none.
__device__ __forceinline__ uint2 other_entries(const Net& net, const unsigned* vec, unsigned other, uint4& o) {
    o = ro(net.others, other);
#if RULE_INDEXES
    const unsigned row = o.w & ~(MONITOR_BIT | FIXED_BIT);
    return ro(net.lookup, (o.w & FIXED_BIT) ? row : row + get_field(o, vec));
#else
    // Only the cells of rule indexes fix a row.
    return ro(net.lookup, (o.w & ~MONITOR_BIT) + get_field(o, vec));
#endif
}

// The item range [x, y) of the cell of rule index `item` ({RULE_INDEX |
// first key, end of keys, cell 0's row, -}) that `vec` selects: the keys'
// local states times their strides, summed.
__device__ __forceinline__ uint2 index_cell(const Net& net, const unsigned* vec, const uint4 item) {
    unsigned cell = 0;
    for (unsigned k = item.x & ~RULE_INDEX; k < item.y; ++k) {
        const uint4 key = ro(net.others, k);
        cell += get_field(key, vec) * key.w;
    }
    return ro(net.lookup, item.z + cell);
}

// With shared-memory buffers: the entries [lo, hi) of rule `rule` that
// `other` (an index into net.others) offers in this state, read from its
// thread's offer list (thread i of a group handles process i).
__device__ __forceinline__ uint2 buffered_entries(const Net& net, unsigned rule, unsigned other, uint4& o) {
    o = ro(net.others, other);
    const unsigned lane = threadIdx.x & 31;
    const unsigned* list = net.offers + (lane / GROUP_THREADS * GROUP_THREADS + __ldg(&net.other_processes[other])) * OFFER_WORDS;
    for (unsigned i = 0; i < list[0]; ++i)
        if (list[1 + 3 * i] == rule) return make_uint2(list[2 + 3 * i], list[3 + 3 * i]);
    return make_uint2(0, 0);
}

// Writes this lane's offer list: the rules that process p (or none, when p
// is not a process) offers in local state `local`, with their entry
// ranges. Rule entries come first in a state's TransArray entries, sorted
// by rule id, so each rule is one run.
__device__ void write_offers(const Net& net, unsigned p, unsigned local) {
    unsigned* mine = net.offers + (threadIdx.x & 31) * OFFER_WORDS;
    unsigned count = 0;
    if (p < net.processes) {
        const unsigned at = ro(net.proc_offsets, p) + local;
        unsigned e = __ldg(&net.state_offsets[at]);
        const unsigned end = __ldg(&net.state_offsets[at + 1]);
        while (e < end) {
            const unsigned rule = ro(net.trans, 2 * e);
            if (rule & INDEPENDENT) break;
            const unsigned lo = e;
            while (e < end && ro(net.trans, 2 * e) == rule) ++e;
            mine[1 + 3 * count] = rule;
            mine[2 + 3 * count] = lo;
            mine[3 + 3 * count] = e;
            ++count;
        }
    }
    mine[0] = count;
}

// One lane's resumable successor generator over its processes
// p = lane-in-group, + GROUP_THREADS, + 2 GROUP_THREADS, ...; a rule is combined by its owner.
// A local state's items are its independent entries, the rules its
// process owns (with the entries it has for them), and its rule indexes,
// each of which stands for the owned-rule items of the one cell that the
// state selects: rules owned by others, and indexed rules of other cells,
// cost this lane nothing. All scalars (no arrays), so that nothing lives in
// local memory: the combinations of a rule are numbered 0 .. combos - 1 in
// mixed radix over the participants' entry counts, decoded per successor.
#if WIDE_COMBINATIONS
typedef unsigned long long combo_t;
#else
typedef unsigned combo_t;
#endif

struct Generator {
    unsigned process, k, end;             // the process and its remaining items
    unsigned cell_k, cell_end;            // the remaining items of the cell being walked
    uint4 field;                          // the process's field
    unsigned rule;                        // the rule being combined (read with BUFFERS)
    unsigned own_lo, own_hi;              // the owner's entries of the rule being combined
    unsigned others_begin, others_end;    // the rule's other participants
    combo_t combo, combos;                // next combination, and their number (0: not combining)
};

// With BUFFERS, every lane of the warp must call this together (it
// publishes the lane's offer list with __syncwarp).
template <bool BUFFERS>
__device__ __forceinline__ void generator_start(Generator& g, const Net& net, const unsigned* vec, unsigned first) {
    g.process = first;
    g.combo = g.combos = 0;
    g.k = g.end = 0;
    g.cell_k = g.cell_end = 0;
    unsigned local = 0;
    if (first < net.processes) {
        g.field = ro(net.fields, first);
        local = get_field(g.field, vec);
        item_range(net, first, local, g.k, g.end);
    }
    if (BUFFERS) {
        write_offers(net, first, local);
        __syncwarp();
    }
}

// Entries of `other` for the rule being combined: from the shared-memory
// offer lists or from the look-up rows.
template <bool BUFFERS>
__device__ __forceinline__ uint2 participant_entries(const Net& net, const Generator& g, const unsigned* vec,
                                                     unsigned other, uint4& o) {
    return BUFFERS ? buffered_entries(net, g.rule, other, o) : other_entries(net, vec, other, o);
}

// Picks entry number `c mod count` of [lo, lo + count) and divides c by count.
__device__ __forceinline__ unsigned pick(unsigned lo, unsigned count, combo_t& c) {
    if (count == 1) return lo;
    const unsigned at = lo + (unsigned)(c % count);
    c /= count;
    return at;
}

// Writes the next successor of `vec` into `out`; false when there is none.
// With LABELS, `label` gets the step's label word (INDEPENDENT | action, or
// a rule id); the search instantiates it without, so it costs nothing there.
template <bool LABELS, bool BUFFERS>
__device__ bool generator_next(Generator& g, const Net& net, const unsigned* vec, unsigned* out,
                               bool& error, unsigned& monitor_blocked, unsigned& label) {
    while (g.process < net.processes) {
        if (g.combo < g.combos) {
            for (int i = 0; i < VEC_WORDS; ++i) out[i] = vec[i];
            combo_t c = g.combo;
            const unsigned own = pick(g.own_lo, g.own_hi - g.own_lo, c);
            if (LABELS) label = ro(net.trans, 2 * own);
            unsigned target = ro(net.trans, 2 * own + 1);
            error = (target & ERROR_TARGET) != 0;
            set_field(g.field, out, target & ~ERROR_TARGET);
            for (unsigned o = g.others_begin; o < g.others_end; ++o) {
                uint4 other;
                const uint2 r = participant_entries<BUFFERS>(net, g, vec, o, other); // never empty: enabled
                target = ro(net.trans, 2 * pick(r.x, r.y - r.x, c) + 1);
                error |= (target & ERROR_TARGET) != 0;
                set_field(other, out, target & ~ERROR_TARGET);
            }
            if (++g.combo == g.combos) g.combo = g.combos = 0;
            return true;
        }
        if (g.k < g.end || (RULE_INDEXES && g.cell_k < g.cell_end)) {
            // {INDEPENDENT | action, target, -, -}, {RULE_INDEX | first
            // key, end of keys, cell 0's row, -}, or for an owned rule
            // {first other, own lo, own hi, end of others}; a cell's items
            // (owned rules only) before the local state's next item.
#if RULE_INDEXES
            const unsigned at = g.cell_k < g.cell_end ? g.cell_k++ : g.k++;
#else
            const unsigned at = g.k++;
#endif
            const uint4 item = ro(net.items, at);
            if (item.x & INDEPENDENT) {
                for (int i = 0; i < VEC_WORDS; ++i) out[i] = vec[i];
                set_field(g.field, out, item.y & ~ERROR_TARGET);
                error = (item.y & ERROR_TARGET) != 0;
                if (LABELS) label = item.x;
                return true;
            }
#if RULE_INDEXES
            if (item.x & RULE_INDEX) {
                const uint2 cell = index_cell(net, vec, item);
                g.cell_k = cell.x;
                g.cell_end = cell.y;
                continue;
            }
#endif
            combo_t combos = item.z - item.y;
            bool monitor_missing = false;
            if (BUFFERS) g.rule = ro(net.trans, 2 * item.y);
            for (unsigned o = item.x; o < item.w; ++o) {
                uint4 other;
                const uint2 r = participant_entries<BUFFERS>(net, g, vec, o, other);
                if (r.x < r.y) {
                    combos *= r.y - r.x;
                } else if (other.w & MONITOR_BIT) {
                    monitor_missing = true;
                } else {
                    combos = 0;
                    break;
                }
            }
            if (combos == 0) continue;
            if (monitor_missing) {
                ++monitor_blocked;
                continue;
            }
            g.own_lo = item.y;
            g.own_hi = item.z;
            g.others_begin = item.x;
            g.others_end = item.w;
            g.combo = 0;
            g.combos = combos;
            continue;
        }
        g.process += GROUP_THREADS;
        if (g.process < net.processes) {
            g.field = ro(net.fields, g.process);
            item_range(net, g.process, get_field(g.field, vec), g.k, g.end);
        }
    }
    return false;
}

// Index of the first error state in `vec` (in the order of the encoding's
// error list, as the host reports it), or `net.errors` if there is none.
__device__ unsigned first_error(const Net& net, const unsigned* vec) {
    unsigned i = 0;
    while (i < net.errors && get_local(net, vec, __ldg(&net.error_locals[3 * i])) != __ldg(&net.error_locals[3 * i + 1])) ++i;
    return i;
}

// Whether the first error state in `vec` ends the search even with --all.
__device__ bool first_error_is_fatal(const Net& net, const unsigned* vec) {
    const unsigned i = first_error(net, vec);
    return i < net.errors && __ldg(&net.error_locals[3 * i + 2]) != 0;
}
