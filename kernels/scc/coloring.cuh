// Colouring's labels and its edge rule (crate::scc::cpu::Signatures),
// shared by the passes over an edge list (scc/scc.cu) and those over
// successors that the explorer regenerates from its table
// (explore/graph.cu).
//
// Macros from the host: NUMBERED_LABELS, SCRAMBLE_* and MAX_JUMPS
// (src/scc/gpu.rs).
#pragma once

#define ASSIGNED 0xffffffffffffffffull
#define NO_LABEL 0u
// Summary bits of a component: a self-loop, an edge to another component.
#define SELF_LOOP 1u
#define LEAVES 2u

// The label a seed spreads, and its inverse (crate::scc::labels::Labels):
// its number plus one, with NUMBERED_LABELS; else that number scrambled
// by a bijection that keeps 0 at 0 (crate::scc::labels::scrambled).
__device__ __forceinline__ unsigned priority(unsigned state) {
#if NUMBERED_LABELS
    return state + 1;
#else
    unsigned x = (state + 1) * SCRAMBLE_FIRST;
    x ^= x >> 16;
    x *= SCRAMBLE_SECOND;
    return x ^ (x >> 16);
#endif
}
__device__ __forceinline__ unsigned seed_of(unsigned label) {
#if NUMBERED_LABELS
    return label - 1;
#else
    unsigned x = label ^ (label >> 16);
    x *= SCRAMBLE_SECOND_INVERSE;
    x ^= x >> 16;
    return x * SCRAMBLE_FIRST_INVERSE - 1;
#endif
}

// signatures[2 s] is `into`, signatures[2 s + 1] is `out_of`; both are
// read as one uint2. load_signature reads the pair from L2 (__ldcg), so
// that a block sweeping its share of the edges again sees at once the
// labels that other blocks raised; load_cached_signature by a plain load,
// which L1 may serve, as it serves the pairs of states with many edges
// (signatures_propagate says which pass uses which). The label of the
// state that a label names is read by a plain load (load_half): the few
// states that most labels name are best served by L1. A stale read only
// costs a pass more, since a pass counts nothing only if no label grew in
// it (raise below says whether one truly grew, so a stale read cannot
// keep a block repeating), and each launch starts with L1 invalid.
__device__ __forceinline__ uint2 load_signature(const unsigned* signatures, unsigned state) {
    return __ldcg((const uint2*)signatures + state);
}
__device__ __forceinline__ uint2 load_cached_signature(const unsigned* signatures, unsigned state) {
    return ((const uint2*)signatures)[state];
}
// The slots of a state's two labels (64-bit: twice a state number
// overflows 32 bits beyond 2^31 states).
__device__ __forceinline__ unsigned long long into_slot(unsigned state) { return 2ull * state; }
__device__ __forceinline__ unsigned long long out_slot(unsigned state) { return 2ull * state + 1; }
__device__ __forceinline__ unsigned load_half(const unsigned* signatures, unsigned long long index) {
    return signatures[index];
}
// Raises signatures[index] to label; whether it grew.
__device__ __forceinline__ bool raise(unsigned* signatures, unsigned long long index, unsigned label) {
    return atomicMax(&signatures[index], label) < label;
}

// As crate::scc::cpu::Signatures::relax, given both ends' labels as
// loaded.
__device__ __forceinline__ bool relax_loaded(unsigned* signatures, const uint2 edge, const uint2 at_from,
                                             const uint2 at_to) {
    const unsigned from = edge.x, to = edge.y;
    unsigned reaching = at_from.x, reached = at_to.y;
    if (reaching != priority(from)) reaching = max(reaching, load_half(signatures, into_slot(seed_of(reaching))));
    if (reached != priority(to)) reached = max(reached, load_half(signatures, out_slot(seed_of(reached))));
    bool grew = false;
    if (at_from.x < reaching) grew |= raise(signatures, into_slot(from), reaching);
    if (at_to.x < reaching) grew |= raise(signatures, into_slot(to), reaching);
    if (at_from.y < reached) grew |= raise(signatures, out_slot(from), reached);
    if (at_to.y < reached) grew |= raise(signatures, out_slot(to), reached);
    // A state's out_of is at least its own label, and its into too: only
    // labels below the new value can name a state that still needs it.
    const unsigned into_labels[2] = {at_from.x, at_to.x};
    const unsigned out_labels[2] = {at_from.y, at_to.y};
    for (int k = 0; k < 2; ++k) {
        if (into_labels[k] < reached && (k == 0 || into_labels[1] != into_labels[0])) {
            const unsigned long long index = out_slot(seed_of(into_labels[k]));
            if (load_half(signatures, index) < reached) grew |= raise(signatures, index, reached);
        }
        if (out_labels[k] < reaching && (k == 0 || out_labels[1] != out_labels[0])) {
            const unsigned long long index = into_slot(seed_of(out_labels[k]));
            if (load_half(signatures, index) < reaching) grew |= raise(signatures, index, reaching);
        }
    }
    return grew;
}

// As crate::scc::cpu::Signatures::relax.
__device__ __forceinline__ bool relax(unsigned* signatures, const uint2 edge) {
    return relax_loaded(signatures, edge, load_signature(signatures, edge.x), load_signature(signatures, edge.y));
}

// As crate::scc::cpu::Signatures::jump: raises a state's labels along the
// chain of the states they name, up to MAX_JUMPS steps.
__device__ __forceinline__ bool jump(unsigned* signatures, unsigned state) {
    bool grew = false;
    const unsigned long long slots[2] = {into_slot(state), out_slot(state)};
    for (int k = 0; k < 2; ++k) {
        const unsigned own = load_half(signatures, slots[k]);
        unsigned label = own;
        for (unsigned step = 0; step < MAX_JUMPS; ++step) {
            const unsigned long long named_slot = k == 0 ? into_slot(seed_of(label)) : out_slot(seed_of(label));
            const unsigned named = load_half(signatures, named_slot);
            if (named <= label) break;
            label = named;
        }
        if (label > own) grew |= raise(signatures, slots[k], label);
    }
    return grew;
}

// A state's labels when it starts or restarts: its own priority on both.
__device__ __forceinline__ uint2 own_labels(unsigned state) { return make_uint2(priority(state), priority(state)); }

// A live state's key in rounds over generated edges: its pair of labels
// (two different labels, so never ASSIGNED nor the first round's 0).
__device__ __forceinline__ unsigned long long pair_key(const uint2 labels) {
    return ((unsigned long long)labels.x << 32) | labels.y;
}
