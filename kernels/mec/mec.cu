// Maximal end components of an MDP on the GPU (src/mec/gpu.rs): the loop of
// crate::mec::decompose over a shrinking candidate set J, with every pass on
// the device and only two counts read back per iteration. Per iteration:
//   mec_number   numbers the candidates (their index in the list) and clears
//                the per-component marks of this iteration;
//   mec_degree   counts each candidate's edges: a branch of an enabled
//                choice to another candidate (the host scans the counts
//                into CSR offsets);
//   mec_fill     writes those edges, targets by candidate index;
// then the SCC kernels (kernels/scc/scc.cu) give each candidate the index of
// its component's representative, and
//   mec_split    disables every enabled choice with a branch out of its
//                state's component or out of J, marking the component lost,
//                and lists the states it leaves without an enabled choice;
//   mec_deaths   (waves, until none dies) disables every enabled choice
//                into a state of the list, listing the states that leaves
//                without one: the choices into a dead state are gone
//                before the next iteration, as in src/mec/mod.rs;
//   mec_smallest takes the smallest state of every component that lost
//                nothing;
//   mec_settle   labels the states of those components with it (they are
//                MECs) and appends the other candidates that still have an
//                enabled choice to the next candidate list.
// At the end mec_flags and mec_members (after a scan of the flags) list the
// states in MECs with their labels, ascending, for the host.
// The waves also remove the states without choices before the first
// iteration. The choices into a dead state lead into the component of a
// state that lost a choice already (enabled choices stay in their
// component after a split), so the lost marks need no update.
//
// NOT_CANDIDATE and NO_MEC mirror crate::mec's constants. Counters are
// zeroed by the host before the pass that appends to them.

#include "common/grid.cuh"

#define NOT_CANDIDATE 0xffffffffu
#define NO_MEC 0xffffffffu

// The arrays of a decomposition (src/mec/gpu.rs).
struct MecParams {
    unsigned long long choice_offsets;   // u64[states + 1]
    unsigned long long branch_offsets;   // u64[choices + 1]
    unsigned long long targets;          // u32[branches]
    unsigned long long states;
    unsigned long long enabled;          // u32[choices]: nonzero while enabled
    unsigned long long choice_state;     // u32[choices]: the state of each choice
    unsigned long long entering_offsets; // u64[states + 1]: choices into each state
    unsigned long long entering;         // u32[branches]: their ids, by target
    unsigned long long entering_cursor;  // u64[states]: filling entering
    unsigned long long dying;            // u32[states]: this wave's dead states
    unsigned long long dying_count;
    unsigned long long next_dying;       // u32[states]: the next wave's, appended
    unsigned long long enabled_count;    // u32[states]: enabled choices
    unsigned long long local;            // u32[states]: candidate index or NOT_CANDIDATE
    unsigned long long mec_label;        // u32[states]: smallest state of its MEC or NO_MEC
    unsigned long long candidates;       // u32[states]: this iteration's J
    unsigned long long candidate_count;
    unsigned long long next_candidates;  // u32[states]: the next J, appended
    unsigned long long graph_offsets;    // u64[states + 1]: J's graph
    unsigned long long graph_targets;    // u32[edges]
    unsigned long long representative;   // u32[candidate_count]: from the SCC kernels
    unsigned long long lost;             // u32[states], by component index
    unsigned long long smallest;         // u32[states], by component index
    unsigned long long counters;         // u64[MEC_COUNTERS]
    unsigned long long member_rank;      // u32[states + 1]: flags, then their scan
    unsigned long long members;          // u32[states in MECs]: ascending
    unsigned long long member_labels;    // u32[states in MECs]: their labels
};

struct Arrays {
    const unsigned long long* choice_offsets;
    const unsigned long long* branch_offsets;
    const unsigned* targets;
    unsigned* enabled;
    unsigned* choice_state;
    unsigned long long* entering_offsets;
    unsigned* entering;
    const unsigned* dying;
    unsigned* next_dying;
    unsigned* enabled_count;
    unsigned* local;
    unsigned* mec_label;
    const unsigned* candidates;
    unsigned* next_candidates;
    unsigned long long* graph_offsets;
    unsigned* graph_targets;
    const unsigned* representative;
    unsigned* lost;
    unsigned* smallest;
    unsigned long long* counters;

    __device__ explicit Arrays(const MecParams& p)
        : choice_offsets((const unsigned long long*)p.choice_offsets),
          branch_offsets((const unsigned long long*)p.branch_offsets),
          targets((const unsigned*)p.targets),
          enabled((unsigned*)p.enabled),
          choice_state((unsigned*)p.choice_state),
          entering_offsets((unsigned long long*)p.entering_offsets),
          entering((unsigned*)p.entering),
          dying((const unsigned*)p.dying),
          next_dying((unsigned*)p.next_dying),
          enabled_count((unsigned*)p.enabled_count),
          local((unsigned*)p.local),
          mec_label((unsigned*)p.mec_label),
          candidates((const unsigned*)p.candidates),
          next_candidates((unsigned*)p.next_candidates),
          graph_offsets((unsigned long long*)p.graph_offsets),
          graph_targets((unsigned*)p.graph_targets),
          representative((const unsigned*)p.representative),
          lost((unsigned*)p.lost),
          smallest((unsigned*)p.smallest),
          counters((unsigned long long*)p.counters) {}

    // Appends `state` to the next candidate list.
    __device__ void append(unsigned state) const {
        next_candidates[atomicAdd(&counters[MEC_COUNTER_NEXT], 1ull)] = state;
    }

    // Appends `state`, just left without an enabled choice, to the next
    // wave of deaths.
    __device__ void dies(unsigned state) const {
        next_dying[atomicAdd(&counters[MEC_COUNTER_DYING], 1ull)] = state;
    }
};

// Every choice enabled (set by the host), every state's count of them, no
// state a candidate or in a MEC; the states without a choice are the first
// wave of deaths. Counts the choices entering each state (entering_offsets
// zeroed by the host, scanned after).
extern "C" __global__ void mec_start(const MecParams p) {
    const Arrays a(p);
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        const unsigned long long first = a.choice_offsets[s], end = a.choice_offsets[s + 1];
        a.enabled_count[s] = (unsigned)(end - first);
        a.local[s] = NOT_CANDIDATE;
        a.mec_label[s] = NO_MEC;
        for (unsigned long long c = first; c < end; ++c) {
            a.choice_state[c] = (unsigned)s;
            for (unsigned long long b = a.branch_offsets[c]; b < a.branch_offsets[c + 1]; ++b)
                atomicAdd(&a.entering_offsets[a.targets[b]], 1ull);
        }
        if (end == first) a.dies((unsigned)s);
    }
}

// After the first waves of deaths: the live states are the first J.
extern "C" __global__ void mec_first(const MecParams p) {
    const Arrays a(p);
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads())
        if (a.enabled_count[s] > 0) a.append((unsigned)s);
}

// Files every choice under the states its branches enter, through one
// cursor per state (entering_cursor: a copy of the scanned offsets).
extern "C" __global__ void mec_entering(const MecParams p) {
    const Arrays a(p);
    unsigned long long* cursor = (unsigned long long*)p.entering_cursor;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads())
        for (unsigned long long c = a.choice_offsets[s]; c < a.choice_offsets[s + 1]; ++c)
            for (unsigned long long b = a.branch_offsets[c]; b < a.branch_offsets[c + 1]; ++b)
                a.entering[atomicAdd(&cursor[a.targets[b]], 1ull)] = (unsigned)c;
}

// Disables the enabled choices into `dead` and appends the states that
// leaves without one to out (whose length is *length).
__device__ __forceinline__ void kill(const Arrays& a, unsigned dead, unsigned* out,
                                     unsigned long long* length) {
    for (unsigned long long e = a.entering_offsets[dead]; e < a.entering_offsets[dead + 1]; ++e) {
        const unsigned c = a.entering[e];
        if (atomicExch(&a.enabled[c], 0u) == 0u) continue;
        const unsigned state = a.choice_state[c];
        if (atomicSub(&a.enabled_count[state], 1u) == 1u) out[atomicAdd(length, 1ull)] = state;
    }
}

// Waves of deaths in one block while they stay short (at most
// MEC_BLOCK_WAVE states; short_waves_in_block), alternating between dying
// and next_dying: the pending wave's length goes to
// counters[MEC_COUNTER_DYING], the waves run to counters[MEC_COUNTER_WAVES].
extern "C" __global__ void mec_deaths_block(const MecParams p) {
    const Arrays a(p);
    short_waves_in_block((unsigned*)p.dying, a.next_dying, p.dying_count, MEC_BLOCK_WAVE, ~0ull,
                         &a.counters[MEC_COUNTER_DYING], &a.counters[MEC_COUNTER_WAVES],
                         [&](unsigned dead, unsigned* out, unsigned long long* length) { kill(a, dead, out, length); });
}

// One wave over the grid: disables the enabled choices into the dying
// states and lists the states that leaves without one.
extern "C" __global__ void mec_deaths(const MecParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.dying_count; i += grid_threads())
        kill(a, a.dying[i], a.next_dying, &a.counters[MEC_COUNTER_DYING]);
}

extern "C" __global__ void mec_number(const MecParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.candidate_count; i += grid_threads()) {
        a.local[a.candidates[i]] = (unsigned)i;
        a.lost[i] = 0;
        a.smallest[i] = NO_MEC;
    }
}

extern "C" __global__ void mec_degree(const MecParams p) {
    const Arrays a(p);
    const unsigned long long n = p.candidate_count;
    for (unsigned long long i = grid_thread(); i < n; i += grid_threads()) {
        const unsigned state = a.candidates[i];
        unsigned long long degree = 0;
        for (unsigned long long c = a.choice_offsets[state]; c < a.choice_offsets[state + 1]; ++c) {
            if (!a.enabled[c]) continue;
            for (unsigned long long b = a.branch_offsets[c]; b < a.branch_offsets[c + 1]; ++b)
                degree += a.local[a.targets[b]] != NOT_CANDIDATE;
        }
        a.graph_offsets[i] = degree;
        // The entry past the last, scanned into the edge total.
        if (i == 0) a.graph_offsets[n] = 0;
    }
}

extern "C" __global__ void mec_fill(const MecParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.candidate_count; i += grid_threads()) {
        const unsigned state = a.candidates[i];
        unsigned long long at = a.graph_offsets[i];
        for (unsigned long long c = a.choice_offsets[state]; c < a.choice_offsets[state + 1]; ++c) {
            if (!a.enabled[c]) continue;
            for (unsigned long long b = a.branch_offsets[c]; b < a.branch_offsets[c + 1]; ++b) {
                const unsigned target = a.local[a.targets[b]];
                if (target != NOT_CANDIDATE) a.graph_targets[at++] = target;
            }
        }
    }
}

extern "C" __global__ void mec_split(const MecParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.candidate_count; i += grid_threads()) {
        const unsigned state = a.candidates[i];
        const unsigned own = a.representative[i];
        unsigned disabled = 0;
        for (unsigned long long c = a.choice_offsets[state]; c < a.choice_offsets[state + 1]; ++c) {
            if (!a.enabled[c]) continue;
            bool leaves = false;
            for (unsigned long long b = a.branch_offsets[c]; b < a.branch_offsets[c + 1] && !leaves; ++b) {
                const unsigned target = a.local[a.targets[b]];
                leaves = target == NOT_CANDIDATE || a.representative[target] != own;
            }
            if (leaves) {
                a.enabled[c] = 0;
                ++disabled;
            }
        }
        if (disabled > 0) {
            a.lost[own] = 1;
            a.enabled_count[state] -= disabled;
            if (a.enabled_count[state] == 0) a.dies(state);
        }
    }
}

extern "C" __global__ void mec_smallest(const MecParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.candidate_count; i += grid_threads()) {
        const unsigned own = a.representative[i];
        if (!a.lost[own]) atomicMin(&a.smallest[own], a.candidates[i]);
    }
}

extern "C" __global__ void mec_settle(const MecParams p) {
    const Arrays a(p);
    for (unsigned long long i = grid_thread(); i < p.candidate_count; i += grid_threads()) {
        const unsigned state = a.candidates[i];
        const unsigned own = a.representative[i];
        a.local[state] = NOT_CANDIDATE;
        if (!a.lost[own])
            a.mec_label[state] = a.smallest[own];
        else if (a.enabled_count[state] > 0)
            a.append(state);
    }
}

// 1 for every state in a MEC, scanned next into its rank among them.
extern "C" __global__ void mec_flags(const MecParams p) {
    const Arrays a(p);
    unsigned* rank = (unsigned*)p.member_rank;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads())
        rank[s] = a.mec_label[s] != NO_MEC;
    if (grid_thread() == 0) rank[p.states] = 0;
}

// The states in MECs at their ranks, with their labels.
extern "C" __global__ void mec_members(const MecParams p) {
    const Arrays a(p);
    const unsigned* rank = (const unsigned*)p.member_rank;
    unsigned* members = (unsigned*)p.members;
    unsigned* labels = (unsigned*)p.member_labels;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        const unsigned label = a.mec_label[s];
        if (label == NO_MEC) continue;
        members[rank[s]] = (unsigned)s;
        labels[rank[s]] = label;
    }
}

#include "abi_check.h"
