// The precomputations of `P=? [ left U right ]` (a DTMC's, and an MDP's
// minimum) on the GPU (crate::numeric::gpu::precompute), so that neither
// the predecessor index nor the sets of states with probability 0 or 1 are
// built on the host. The host runs, in order:
//   qual_start    each choice's state, each state's choice count, and the
//                 number of (choice, positive branch) pairs entering each
//                 state (entering_offsets zeroed by the host, then scanned);
//   qual_fill     files each choice under the states its positive branches
//                 enter (a choice may be filed twice under one state: the
//                 searches below ignore repeats);
//   qual_seed     marks the seeds of a backward search as found and lists
//                 them as its first wave;
//   qual_wave / qual_waves_block   the waves of the search, over the grid
//                 or, while short, in one block;
//   qual_undecided, qual_members, qual_choices   the bounds and the classes
//                 of the undecided states (one class per state, with its
//                 usable choices), numbered by a scan of the undecided flags.
// The same searches settle an expected reward until `right` (of a chain,
// or the maximum of an MDP): the first, universal for a maximum, finds
// where `right` is reached with positive probability under every
// scheduler, the second where some scheduler escapes to where it is not;
// the reward is finite, and the state undecided, where none does.
// A maximal probability and a minimal reward (whose end components are
// collapsed on the host) take instead, after the first search, the rounds
// of crate::numeric::gpu::maximal_reach: qual_restrict counts the states
// found last and marks the choices that stay among them, and the next
// existential search from `right` follows only those, until a round finds
// as many states as the one before (Pmax = 1, as
// crate::numeric::qualitative::exists_almost_surely).
// A search is either existential (a state joins when one of its choices
// has a branch into the found set: Pmax > 0, or P > 0 of a chain) or
// universal (when all of its choices have: Pmin > 0, counted down per
// state as in crate::numeric::qualitative::forall_reach), and only states
// whose flags match `allowed` join. Counters are zeroed by the host before
// the pass that appends to them.

#include "common/grid.cuh"

// Bits of the per-state flags the host uploads.
#define QUAL_LEFT 1u
#define QUAL_RIGHT 2u

// The arrays of the precomputations (src/numeric/gpu.rs).
struct QualParams {
    unsigned long long choice_offsets;    // u64[states + 1]
    unsigned long long branch_offsets;    // u64[choices + 1]
    unsigned long long targets;           // u32[branches]
    unsigned long long probabilities;     // f64[branches]
    unsigned long long states;
    unsigned long long flags;             // u8[states]: QUAL_LEFT, QUAL_RIGHT
    unsigned long long choice_state;      // u32[choices]
    unsigned long long choices_left;      // u32[states]: choices not yet into the set
    unsigned long long choice_hit;        // u32[choices]: nonzero once into the set
    unsigned long long entering_offsets;  // u64[states + 1]
    unsigned long long entering;          // u64[entering pairs]: choices by target
    unsigned long long entering_cursor;   // u64[states]: filling entering
    unsigned long long seed_right;        // 1: the seeds are the right states; 0: those
                                          //   the first search did not find
    unsigned long long allowed_mask;      // a state may join where
    unsigned long long allowed_value;     //   (flags[s] & allowed_mask) == allowed_value
    unsigned long long universal;         // 1: all choices must enter the set
    unsigned long long found;             // u32[states]: nonzero once found
    unsigned long long wave;              // u32[states]: this wave
    unsigned long long wave_length;
    unsigned long long next_wave;         // u32[states]: the next wave, appended
    unsigned long long counters;          // u64[QUAL_COUNTERS]
    unsigned long long positive;          // u32[states]: P > 0 (the first search's found)
    unsigned long long escapes;           // u32[states]: the second search's found
    unsigned long long lower;             // f64[states]
    unsigned long long upper;             // f64[states]
    unsigned long long rank;              // u64[states + 1]: undecided flags, then their scan
    unsigned long long members;           // u32[classes]
    unsigned long long member_offsets;    // u64[classes + 1]
    unsigned long long class_choice_offsets;  // u64[classes + 1]: counts, then their scan
    unsigned long long class_choices;     // u64[choices of the classes]
    unsigned long long classes;
    unsigned long long reward;            // 1: an expected reward; 0: a probability
    unsigned long long choice_rewards;    // f64[choices]: each choice's reward
    unsigned long long class_constants;   // f64[choices of the classes]: their rewards
    unsigned long long inside;            // u32[states]: the last round's found set
    unsigned long long usable_choices;    // u32[choices]: nonzero where a search may follow
                                          //   the choice; 0: every choice
};

// Whether `state` may join the search.
__device__ __forceinline__ bool allowed(const QualParams& p, unsigned state) {
    const unsigned char* flags = (const unsigned char*)p.flags;
    return (flags[state] & p.allowed_mask) == p.allowed_value;
}

// Whether branch b counts (the searches look only at positive branches).
__device__ __forceinline__ bool positive_branch(const QualParams& p, unsigned long long b) {
    return ((const double*)p.probabilities)[b] > 0.0;
}

extern "C" __global__ void qual_start(const QualParams p) {
    const unsigned long long* choice_offsets = (const unsigned long long*)p.choice_offsets;
    const unsigned long long* branch_offsets = (const unsigned long long*)p.branch_offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    unsigned long long* entering_offsets = (unsigned long long*)p.entering_offsets;
    unsigned* choice_state = (unsigned*)p.choice_state;
    unsigned* choices_left = (unsigned*)p.choices_left;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        const unsigned long long first = choice_offsets[s], end = choice_offsets[s + 1];
        choices_left[s] = (unsigned)(end - first);
        for (unsigned long long c = first; c < end; ++c) {
            choice_state[c] = (unsigned)s;
            for (unsigned long long b = branch_offsets[c]; b < branch_offsets[c + 1]; ++b)
                if (positive_branch(p, b)) atomicAdd(&entering_offsets[targets[b]], 1ull);
        }
    }
}

extern "C" __global__ void qual_fill(const QualParams p) {
    const unsigned long long* choice_offsets = (const unsigned long long*)p.choice_offsets;
    const unsigned long long* branch_offsets = (const unsigned long long*)p.branch_offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    unsigned long long* entering = (unsigned long long*)p.entering;
    unsigned long long* cursor = (unsigned long long*)p.entering_cursor;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads())
        for (unsigned long long c = choice_offsets[s]; c < choice_offsets[s + 1]; ++c)
            for (unsigned long long b = branch_offsets[c]; b < branch_offsets[c + 1]; ++b)
                if (positive_branch(p, b)) entering[atomicAdd(&cursor[targets[b]], 1ull)] = c;
}

extern "C" __global__ void qual_seed(const QualParams p) {
    const unsigned char* flags = (const unsigned char*)p.flags;
    const unsigned* positive = (const unsigned*)p.positive;
    unsigned* found = (unsigned*)p.found;
    unsigned* next_wave = (unsigned*)p.next_wave;
    unsigned long long* counters = (unsigned long long*)p.counters;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        const bool seed = p.seed_right ? (flags[s] & QUAL_RIGHT) != 0 : !positive[s];
        found[s] = seed;
        if (seed) next_wave[atomicAdd(&counters[QUAL_COUNTER_WAVE], 1ull)] = (unsigned)s;
    }
}

// Follows the choices entering `state`, appending to out (whose length is
// *length) the states that join.
__device__ __forceinline__ void expand(const QualParams& p, unsigned state, unsigned* out,
                                       unsigned long long* length) {
    const unsigned long long* entering_offsets = (const unsigned long long*)p.entering_offsets;
    const unsigned long long* entering = (const unsigned long long*)p.entering;
    const unsigned* choice_state = (const unsigned*)p.choice_state;
    unsigned* found = (unsigned*)p.found;
    for (unsigned long long e = entering_offsets[state]; e < entering_offsets[state + 1]; ++e) {
        const unsigned long long c = entering[e];
        if (p.usable_choices && !((const unsigned*)p.usable_choices)[c]) continue;
        const unsigned owner = choice_state[c];
        if (p.universal) {
            unsigned* hit = (unsigned*)p.choice_hit + c;
            // Each choice is struck off its state once; the state joins
            // when its last one is.
            if (*hit || atomicExch(hit, 1u)) continue;
            if (atomicSub((unsigned*)p.choices_left + owner, 1u) != 1u) continue;
        }
        if (!allowed(p, owner) || found[owner] || atomicExch(&found[owner], 1u)) continue;
        out[atomicAdd(length, 1ull)] = owner;
    }
}

// Waves in one block while they stay short (short_waves_in_block): the
// pending wave's length goes to counters[QUAL_COUNTER_WAVE], the waves run
// to counters[QUAL_COUNTER_WAVES].
extern "C" __global__ void qual_waves_block(const QualParams p) {
    unsigned long long* counters = (unsigned long long*)p.counters;
    short_waves_in_block((unsigned*)p.wave, (unsigned*)p.next_wave, p.wave_length, QUAL_BLOCK_WAVE, ~0ull,
                         &counters[QUAL_COUNTER_WAVE], &counters[QUAL_COUNTER_WAVES],
                         [&](unsigned state, unsigned* out, unsigned long long* length) {
                             expand(p, state, out, length);
                         });
}

// One wave over the grid.
extern "C" __global__ void qual_wave(const QualParams p) {
    const unsigned* wave = (const unsigned*)p.wave;
    unsigned long long* counters = (unsigned long long*)p.counters;
    for (unsigned long long i = grid_thread(); i < p.wave_length; i += grid_threads())
        expand(p, wave[i], (unsigned*)p.next_wave, &counters[QUAL_COUNTER_WAVE]);
}

// A round of maximal_reach: counts the states of `inside` in
// counters[QUAL_COUNTER_INSIDE] (one atomic a warp) and marks usable the
// choices whose positive branches all stay inside.
extern "C" __global__ void qual_restrict(const QualParams p) {
    const unsigned long long* choice_offsets = (const unsigned long long*)p.choice_offsets;
    const unsigned long long* branch_offsets = (const unsigned long long*)p.branch_offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const unsigned* inside = (const unsigned*)p.inside;
    unsigned* usable = (unsigned*)p.usable_choices;
    unsigned long long count = 0;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        count += inside[s] != 0;
        for (unsigned long long c = choice_offsets[s]; c < choice_offsets[s + 1]; ++c) {
            unsigned stays = 1;
            for (unsigned long long b = branch_offsets[c]; b < branch_offsets[c + 1] && stays; ++b)
                if (positive_branch(p, b) && !inside[targets[b]]) stays = 0;
            usable[c] = stays;
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) count += __shfl_down_sync(0xffffffffu, count, offset);
    if ((threadIdx.x & 31u) == 0 && count) atomicAdd((unsigned long long*)p.counters + QUAL_COUNTER_INSIDE, count);
}

// The bounds every state starts from, and the undecided flags. For a
// probability: 0 and 0 where P = 0 (not positive), 1 and 1 where P = 1 (no
// escape), else 0 and 1. For an expected reward: 0 at the targets and
// where the targets are reached with probability 1 (no escape; those
// states are undecided), infinity elsewhere.
extern "C" __global__ void qual_undecided(const QualParams p) {
    const unsigned char* flags = (const unsigned char*)p.flags;
    const unsigned* positive = (const unsigned*)p.positive;
    const unsigned* escapes = (const unsigned*)p.escapes;
    double* lower = (double*)p.lower;
    double* upper = (double*)p.upper;
    unsigned long long* rank = (unsigned long long*)p.rank;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        if (p.reward) {
            const bool target = (flags[s] & QUAL_RIGHT) != 0, undecided = !escapes[s] && !target;
            const double value = target || undecided ? 0.0 : __longlong_as_double(0x7ff0000000000000ll);
            lower[s] = value;
            upper[s] = value;
            rank[s] = undecided;
        } else {
            const bool zero = !positive[s], one = !escapes[s];
            lower[s] = one ? 1.0 : 0.0;
            upper[s] = zero ? 0.0 : 1.0;
            rank[s] = !zero && !one;
        }
    }
}

// Whether a class may take `choice`: every choice for a probability; for a
// reward, only one whose positive branches all stay where the targets are
// reached with probability 1.
__device__ __forceinline__ bool usable(const QualParams& p, unsigned long long choice) {
    if (!p.reward) return true;
    const unsigned long long* branch_offsets = (const unsigned long long*)p.branch_offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const unsigned* escapes = (const unsigned*)p.escapes;
    for (unsigned long long b = branch_offsets[choice]; b < branch_offsets[choice + 1]; ++b)
        if (positive_branch(p, b) && escapes[targets[b]]) return false;
    return true;
}

// Each undecided state's class (its rank among them): its member, and the
// count of its usable choices; counts their branches in
// counters[QUAL_COUNTER_BRANCHES] (one atomic a warp).
extern "C" __global__ void qual_members(const QualParams p) {
    const unsigned long long* choice_offsets = (const unsigned long long*)p.choice_offsets;
    const unsigned long long* branch_offsets = (const unsigned long long*)p.branch_offsets;
    const unsigned long long* rank = (const unsigned long long*)p.rank;
    unsigned* members = (unsigned*)p.members;
    unsigned long long* member_offsets = (unsigned long long*)p.member_offsets;
    unsigned long long* counts = (unsigned long long*)p.class_choice_offsets;
    unsigned long long branches = 0;
    for (unsigned long long s = grid_thread(); s < p.states; s += grid_threads()) {
        if (rank[s] == rank[s + 1]) continue;
        const unsigned long long c = rank[s];
        members[c] = (unsigned)s;
        member_offsets[c] = c;
        unsigned long long kept = 0;
        for (unsigned long long choice = choice_offsets[s]; choice < choice_offsets[s + 1]; ++choice) {
            if (!usable(p, choice)) continue;
            ++kept;
            branches += branch_offsets[choice + 1] - branch_offsets[choice];
        }
        counts[c] = kept;
    }
    if (grid_thread() == 0) member_offsets[p.classes] = p.classes;
    for (int offset = 16; offset > 0; offset /= 2) branches += __shfl_down_sync(0xffffffffu, branches, offset);
    if ((threadIdx.x & 31u) == 0 && branches)
        atomicAdd((unsigned long long*)p.counters + QUAL_COUNTER_BRANCHES, branches);
}

// The usable choices of each class, after the scan of their counts, and
// for a reward each one's reward as its constant.
extern "C" __global__ void qual_choices(const QualParams p) {
    const unsigned long long* choice_offsets = (const unsigned long long*)p.choice_offsets;
    const unsigned* members = (const unsigned*)p.members;
    const unsigned long long* offsets = (const unsigned long long*)p.class_choice_offsets;
    const double* choice_rewards = (const double*)p.choice_rewards;
    unsigned long long* choices = (unsigned long long*)p.class_choices;
    double* constants = (double*)p.class_constants;
    for (unsigned long long c = grid_thread(); c < p.classes; c += grid_threads()) {
        const unsigned state = members[c];
        unsigned long long i = offsets[c];
        for (unsigned long long choice = choice_offsets[state]; choice < choice_offsets[state + 1]; ++choice) {
            if (!usable(p, choice)) continue;
            choices[i] = choice;
            if (p.reward) constants[i] = choice_rewards[choice];
            ++i;
        }
    }
}

#include "abi_check.h"
