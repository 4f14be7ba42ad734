// Interval iteration on the GPU (crate::numeric::gpu): every class of
// undecided states (one state, or a collapsed end component) takes the
// best over its choices of the choice's constant (a reward, or 0) plus the
// expected lower and upper bounds of its successors. A group of lanes per
// class (see the kernel).
// What happens to the bounds depends on the phase (crate::numeric::
// reference::Phase): the lower bound only rises; a proven upper bound only
// falls; a guessed upper bound is replaced by its update, and the sweep
// counts the states where that raised it (a sweep raising none proves the
// guess). Both bounds stay valid when a thread reads one another thread
// just wrote. The tally goes to counters[0] (states not yet precise) and
// counters[1] (raised guesses), which the host zeroes before each launch
// (the paper's in-kernel reset of its convergence flag raced with other
// blocks). The classes swept are all of them, or those of a list (the
// ones the peel below left, or one stage of them).
// Before the sweeps, the peel_* kernels solve the classes that reach no
// cycle exactly, in topological order: a class whose successors are all
// settled or solved takes its value in one update, and counts down the
// classes that read it (a backward peel of the class graph from its
// sinks, in waves). Where the classes left are many, the stage_* kernels
// (at the end) file them in stages by the SCCs of what they read, and the
// sweeps run over one stage's list at a time.

#include "common/grid.cuh"

struct IterateParams {
    unsigned long long branch_offsets;  // u64[choices + 1]
    unsigned long long targets;         // u32[branches]
    unsigned long long probabilities;   // f64[branches]
    unsigned long long class_choice_offsets;  // u64[classes + 1]
    unsigned long long class_choices;   // u64: the choices of each class
    unsigned long long class_constants; // f64 per entry of class_choices, or 0: none
    unsigned long long class_member_offsets;  // u64[classes + 1]
    unsigned long long members;         // u32: the states of each class
    unsigned long long lower;           // f64[states]
    unsigned long long upper;           // f64[states]
    unsigned long long counters;        // u64[2]: imprecise states, raised guesses
    unsigned long long classes;
    unsigned long long epsilon_bits;    // the precision, as the bits of a double
    unsigned long long settle_bits;     // the lower-only phase's settling precision
    unsigned long long relative;        // 1: both relative to the value
    unsigned long long minimise;        // 1: minimal values (else maximal, or a chain's one choice)
    unsigned long long phase;           // 0 lower only, 1 verifying a guess, 2 verified
    unsigned long long lanes;           // lanes per class: 1, 2, 4, 8, 16 or 32
    unsigned long long class_list;      // u32[classes]: the classes swept, or 0: class i is i-th
};

#define PHASE_LOWER_ONLY 0ull
#define PHASE_VERIFYING 1ull

__device__ __forceinline__ double bits_to_double(unsigned long long bits) {
    return __longlong_as_double((long long)bits);
}

// Whether [lower, upper] pins the value down (Precision::reached).
__device__ __forceinline__ bool reached(const IterateParams& p, double lower, double upper) {
    const double half = (upper - lower) / 2.0;
    return half <= 0.0 || half <= bits_to_double(p.epsilon_bits) * (p.relative ? lower : 1.0);
}

// Whether a lower bound moved by at most the settling precision
// (Precision::close).
__device__ __forceinline__ bool settled(const IterateParams& p, double before, double lower) {
    return fabs(lower - before) <= bits_to_double(p.settle_bits) * (p.relative ? fabs(lower) : 1.0);
}

// The new bounds of one member `state` of a class whose choices give
// best_low and best_high, as the phase says; counts it when not precise
// and, verifying, when its guess rose.
__device__ __forceinline__ void update_member(const IterateParams& p, unsigned state, double best_low,
                                              double best_high, unsigned long long& imprecise,
                                              unsigned long long& raised) {
    double* lower = (double*)p.lower;
    double* upper = (double*)p.upper;
    const double before = lower[state];
    const double new_lower = fmax(before, best_low);
    lower[state] = new_lower;
    bool precise;
    if (p.phase == PHASE_LOWER_ONLY) {
        precise = settled(p, before, new_lower);
    } else if (p.phase == PHASE_VERIFYING) {
        const double guess = upper[state];
        upper[state] = best_high;
        raised += best_high > guess || best_high < new_lower;
        precise = reached(p, new_lower, best_high);
    } else {
        const double new_upper = fmin(upper[state], best_high);
        upper[state] = new_upper;
        precise = reached(p, new_lower, new_upper);
    }
    imprecise += !precise;
}

// Keeps the better of (low, high) and the best so far (the first choice
// sets it).
__device__ __forceinline__ void keep_best(const IterateParams& p, bool& any, double& best_low, double& best_high,
                                          double low, double high) {
    if (!any) {
        best_low = low;
        best_high = high;
        any = true;
    } else if (p.minimise) {
        best_low = fmin(best_low, low);
        best_high = fmin(best_high, high);
    } else {
        best_low = fmax(best_low, low);
        best_high = fmax(best_high, high);
    }
}

// Adds this thread's tally to the counters: one atomic per warp and counter.
__device__ __forceinline__ void add_tally(const IterateParams& p, unsigned long long imprecise,
                                          unsigned long long raised) {
    for (int offset = 16; offset > 0; offset /= 2) {
        imprecise += __shfl_down_sync(0xffffffffu, imprecise, offset);
        raised += __shfl_down_sync(0xffffffffu, raised, offset);
    }
    unsigned long long* counters = (unsigned long long*)p.counters;
    if ((threadIdx.x & 31u) == 0 && imprecise) atomicAdd(counters, imprecise);
    if ((threadIdx.x & 31u) == 0 && raised) atomicAdd(counters + 1, raised);
}

// The i-th class swept.
__device__ __forceinline__ unsigned long long swept_class(const IterateParams& p, unsigned long long i) {
    return p.class_list ? ((const unsigned*)p.class_list)[i] : i;
}


// The best over class c's choices of the choice's constant plus its
// expected lower bounds (best_low) and, with_upper, upper bounds
// (best_high); both 0 without a choice (a class that can only stay). The
// `lanes` lanes of a group (group_mask in the warp, this one `lane`)
// share the branches of each choice, and all get the result.
__device__ __forceinline__ void best_of_choices(const IterateParams& p, unsigned long long c, unsigned lane,
                                                unsigned lanes, unsigned group_mask, bool with_upper,
                                                double& best_low, double& best_high) {
    const unsigned long long* branch_offsets = (const unsigned long long*)p.branch_offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const double* probabilities = (const double*)p.probabilities;
    const unsigned long long* choice_offsets = (const unsigned long long*)p.class_choice_offsets;
    const unsigned long long* choices = (const unsigned long long*)p.class_choices;
    const double* constants = (const double*)p.class_constants;
    const double* lower = (const double*)p.lower;
    const double* upper = (const double*)p.upper;
    bool any = false;
    best_low = 0.0;
    best_high = 0.0;
    for (unsigned long long i = choice_offsets[c]; i < choice_offsets[c + 1]; ++i) {
        const unsigned long long choice = choices[i];
        double low = 0.0, high = 0.0;
        for (unsigned long long b = branch_offsets[choice] + lane; b < branch_offsets[choice + 1]; b += lanes) {
            const unsigned target = targets[b];
            const double probability = probabilities[b];
            low += probability * __ldcg(lower + target);
            if (with_upper) high += probability * __ldcg(upper + target);
        }
        for (unsigned offset = lanes / 2; offset > 0; offset /= 2) {
            low += __shfl_xor_sync(group_mask, low, offset, lanes);
            high += __shfl_xor_sync(group_mask, high, offset, lanes);
        }
        const double constant = constants ? constants[i] : 0.0;
        keep_best(p, any, best_low, best_high, low + constant, high + constant);
    }
}

// A group of p.lanes lanes (a power of two up to 32, chosen by the host
// from the mean number of branches per class) updates each class: its
// lanes share the branches of each choice, their sums meet by shuffles
// within the group, and they share the class's members. One lane a class
// suits short rows, a whole warp long ones.
extern "C" __global__ void iterate(const IterateParams p) {
    const unsigned long long* member_offsets = (const unsigned long long*)p.class_member_offsets;
    const unsigned* members = (const unsigned*)p.members;
    const bool with_upper = p.phase != PHASE_LOWER_ONLY;
    const unsigned lanes = (unsigned)p.lanes;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const unsigned warp_lane = threadIdx.x & 31u;
    const unsigned group_mask = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1) << (warp_lane & ~(lanes - 1));
    const unsigned long long groups = grid_threads() / lanes;
    unsigned long long imprecise = 0, raised = 0;
    for (unsigned long long i = grid_thread() / lanes; i < p.classes; i += groups) {
        const unsigned long long c = swept_class(p, i);
        double best_low, best_high;
        best_of_choices(p, c, lane, lanes, group_mask, with_upper, best_low, best_high);
        for (unsigned long long m = member_offsets[c] + lane; m < member_offsets[c + 1]; m += lanes) {
            update_member(p, members[m], best_low, best_high, imprecise, raised);
        }
    }
    add_tally(p, imprecise, raised);
}

// Sets the upper bound of every member of the classes swept to the guess
// a little above its lower bound (reference::guess_above, with the
// precision in epsilon_bits and relative).
extern "C" __global__ void iterate_guess(const IterateParams p) {
    const unsigned long long* member_offsets = (const unsigned long long*)p.class_member_offsets;
    const unsigned* members = (const unsigned*)p.members;
    const double* lower = (const double*)p.lower;
    double* upper = (double*)p.upper;
    const double epsilon = bits_to_double(p.epsilon_bits);
    for (unsigned long long i = grid_thread(); i < p.classes; i += grid_threads()) {
        const unsigned long long c = swept_class(p, i);
        for (unsigned long long m = member_offsets[c]; m < member_offsets[c + 1]; ++m) {
            const unsigned state = members[m];
            upper[state] = p.relative ? lower[state] * (1.0 + epsilon) : lower[state] + epsilon;
        }
    }
}

// Sets the upper bound of every member of the classes swept to infinity:
// none is proven.
extern "C" __global__ void iterate_forget_upper(const IterateParams p) {
    const unsigned long long* member_offsets = (const unsigned long long*)p.class_member_offsets;
    const unsigned* members = (const unsigned*)p.members;
    double* upper = (double*)p.upper;
    for (unsigned long long i = grid_thread(); i < p.classes; i += grid_threads()) {
        const unsigned long long c = swept_class(p, i);
        for (unsigned long long m = member_offsets[c]; m < member_offsets[c + 1]; ++m)
            upper[members[m]] = __longlong_as_double(0x7ff0000000000000ll);
    }
}

// The peel's arrays (crate::numeric::gpu::peel). The host runs, in order:
//   peel_class_of   each undecided state's class (class_of filled with
//                   PEEL_NONE by the host);
//   peel_count      per class, its branches into undecided states (its
//                   waiting count; a branch into its own members too, so
//                   that a class that reads itself never gets to 0), and
//                   per class the branches of other classes into it
//                   (entering_offsets zeroed by the host, then scanned);
//                   the classes waiting for none are the first wave;
//   peel_fill       files each class under the classes it reads, once a
//                   branch (entering_cursor a copy of the offsets);
//   peel_wave / peel_waves_block   the waves: each class of a wave takes
//                   its value, marks itself solved (waiting = PEEL_SOLVED)
//                   and counts down the classes filed under it; those at 0
//                   make the next wave;
//   peel_unsolved, then a scan of its flags, then peel_list   the list of
//                   the classes left for the sweeps, in class order (those
//                   of a wave still pending included).
struct PeelParams {
    IterateParams sweep;                  // the classes, bounds and model; classes: all
    unsigned long long class_of;          // u32[states]: each state's class, or PEEL_NONE
    unsigned long long waiting;           // u32[classes]: branches into unsolved classes
    unsigned long long entering_offsets;  // u64[classes + 1]
    unsigned long long entering;          // u32: the reading classes, filed by the class read
    unsigned long long entering_cursor;   // u64[classes]
    unsigned long long wave;              // u32[classes]: this wave
    unsigned long long wave_length;
    unsigned long long next_wave;         // u32[classes]: the next wave, appended
    unsigned long long counters;          // u64[2]: PEEL_COUNTER_WAVE, PEEL_COUNTER_WAVES
    unsigned long long upper_known;       // 1: the upper bounds are known (else guessed)
    unsigned long long unsolved;          // u32[classes + 1]: flags, then their scan
    unsigned long long class_list;        // u32: the classes left, in order
};

#define PEEL_NONE 0xffffffffu
#define PEEL_SOLVED 0xffffffffu

extern "C" __global__ void peel_class_of(const PeelParams p) {
    const unsigned long long* member_offsets = (const unsigned long long*)p.sweep.class_member_offsets;
    const unsigned* members = (const unsigned*)p.sweep.members;
    unsigned* class_of = (unsigned*)p.class_of;
    for (unsigned long long c = grid_thread(); c < p.sweep.classes; c += grid_threads())
        for (unsigned long long m = member_offsets[c]; m < member_offsets[c + 1]; ++m)
            class_of[members[m]] = (unsigned)c;
}

// Calls read(class read) for each branch of class c's choices into an
// undecided state.
template <typename Read>
__device__ __forceinline__ void for_each_read(const PeelParams& p, unsigned long long c, Read read) {
    const unsigned long long* branch_offsets = (const unsigned long long*)p.sweep.branch_offsets;
    const unsigned* targets = (const unsigned*)p.sweep.targets;
    const unsigned long long* choice_offsets = (const unsigned long long*)p.sweep.class_choice_offsets;
    const unsigned long long* choices = (const unsigned long long*)p.sweep.class_choices;
    const unsigned* class_of = (const unsigned*)p.class_of;
    for (unsigned long long i = choice_offsets[c]; i < choice_offsets[c + 1]; ++i) {
        const unsigned long long choice = choices[i];
        for (unsigned long long b = branch_offsets[choice]; b < branch_offsets[choice + 1]; ++b) {
            const unsigned read_class = class_of[targets[b]];
            if (read_class != PEEL_NONE) read(read_class);
        }
    }
}

extern "C" __global__ void peel_count(const PeelParams p) {
    unsigned* waiting = (unsigned*)p.waiting;
    unsigned long long* entering_offsets = (unsigned long long*)p.entering_offsets;
    unsigned long long* counters = (unsigned long long*)p.counters;
    for (unsigned long long c = grid_thread(); c < p.sweep.classes; c += grid_threads()) {
        unsigned count = 0;
        for_each_read(p, c, [&](unsigned read_class) {
            ++count;
            if (read_class != c) atomicAdd(&entering_offsets[read_class], 1ull);
        });
        waiting[c] = count;
        if (count == 0)
            ((unsigned*)p.next_wave)[atomicAdd(&counters[PEEL_COUNTER_WAVE], 1ull)] = (unsigned)c;
    }
}

extern "C" __global__ void peel_fill(const PeelParams p) {
    unsigned* entering = (unsigned*)p.entering;
    unsigned long long* cursor = (unsigned long long*)p.entering_cursor;
    for (unsigned long long c = grid_thread(); c < p.sweep.classes; c += grid_threads())
        for_each_read(p, c, [&](unsigned read_class) {
            if (read_class != c) entering[atomicAdd(&cursor[read_class], 1ull)] = (unsigned)c;
        });
}

// Solves class c, whose successors are all settled or solved (their lower
// and upper bounds equal), by one update from their lower bounds, as the
// CPU engine updates a class that reads no cycle (a proven upper bound
// where one is known, else the update itself), then counts down the
// classes that read it, appending to out (of length *length) those it was
// the last for.
__device__ __forceinline__ void solve(const PeelParams& p, unsigned c, unsigned* out, unsigned long long* length) {
    const IterateParams& s = p.sweep;
    const unsigned long long* member_offsets = (const unsigned long long*)s.class_member_offsets;
    const unsigned* members = (const unsigned*)s.members;
    const unsigned long long* entering_offsets = (const unsigned long long*)p.entering_offsets;
    const unsigned* entering = (const unsigned*)p.entering;
    unsigned* waiting = (unsigned*)p.waiting;
    double* lower = (double*)s.lower;
    double* upper = (double*)s.upper;
    double value, unused;
    best_of_choices(s, c, 0, 1, 1u << (threadIdx.x & 31u), false, value, unused);
    for (unsigned long long m = member_offsets[c]; m < member_offsets[c + 1]; ++m) {
        const unsigned state = members[m];
        lower[state] = fmax(lower[state], value);
        upper[state] = p.upper_known ? fmin(upper[state], value) : value;
    }
    waiting[c] = PEEL_SOLVED;
    // The bounds before the count-downs that let a reader be solved.
    __threadfence();
    for (unsigned long long e = entering_offsets[c]; e < entering_offsets[c + 1]; ++e) {
        const unsigned reader = entering[e];
        if (atomicSub(&waiting[reader], 1u) == 1u) out[atomicAdd(length, 1ull)] = reader;
    }
}

// Waves in one block while they stay short, at most PEEL_BLOCK_WAVES a
// launch (so that the host can stop a peel that does not pay): the
// pending wave's length goes to counters[PEEL_COUNTER_WAVE], the waves run
// to counters[PEEL_COUNTER_WAVES].
extern "C" __global__ void peel_waves_block(const PeelParams p) {
    unsigned long long* counters = (unsigned long long*)p.counters;
    short_waves_in_block((unsigned*)p.wave, (unsigned*)p.next_wave, p.wave_length, PEEL_BLOCK_WAVE,
                         PEEL_BLOCK_WAVES, &counters[PEEL_COUNTER_WAVE], &counters[PEEL_COUNTER_WAVES],
                         [&](unsigned c, unsigned* out, unsigned long long* length) { solve(p, c, out, length); });
}

// One wave over the grid.
extern "C" __global__ void peel_wave(const PeelParams p) {
    const unsigned* wave = (const unsigned*)p.wave;
    unsigned long long* counters = (unsigned long long*)p.counters;
    for (unsigned long long i = grid_thread(); i < p.wave_length; i += grid_threads())
        solve(p, wave[i], (unsigned*)p.next_wave, &counters[PEEL_COUNTER_WAVE]);
}

// 1 for each class not solved, 0 for the others.
extern "C" __global__ void peel_unsolved(const PeelParams p) {
    const unsigned* waiting = (const unsigned*)p.waiting;
    unsigned* unsolved = (unsigned*)p.unsolved;
    for (unsigned long long c = grid_thread(); c < p.sweep.classes; c += grid_threads())
        unsolved[c] = waiting[c] != PEEL_SOLVED;
}

// The classes not solved, at their ranks (the scan of peel_unsolved's flags).
extern "C" __global__ void peel_list(const PeelParams p) {
    const unsigned* waiting = (const unsigned*)p.waiting;
    const unsigned* rank = (const unsigned*)p.unsolved;
    unsigned* list = (unsigned*)p.class_list;
    for (unsigned long long c = grid_thread(); c < p.sweep.classes; c += grid_threads())
        if (waiting[c] != PEEL_SOLVED) list[rank[c]] = (unsigned)c;
}

// The stages of the classes the peel left (crate::numeric::gpu::stages):
// their read graph (node i is the i-th class of the peel's list) is
// decomposed into SCCs on the device (scc::gpu::representatives), the
// host orders the components (the condensation, downloaded as pairs of
// component numbers) and gives each its stage, and the sweeps then run
// stage after stage, each over its own list of classes. The host runs:
//   stage_count, scan, stage_fill   the read graph as CSR (`offsets`
//                  zeroed by the host; a class's reads of itself kept, as
//                  self-loops);
//   stage_reps, scan, scan   flags the representatives (then numbered by
//                  the scan of the flags: the component numbers) and counts
//                  each node's edges into other components (then scanned);
//   stage_cross    each component's size and cyclic flag (zeroed by the
//                  host) and the pairs (component read from, component
//                  read) of those edges;
//   stage_assign   files each node's class in its stage's part of
//                  stage_list (stage_cursors start at each part's offset).
struct StageParams {
    PeelParams peel;                      // class_of, waiting, unsolved (ranks), class_list
    unsigned long long nodes;             // the classes left
    unsigned long long offsets;           // u64[nodes + 1]
    unsigned long long targets;           // u32[edges]: nodes read
    unsigned long long representative;    // u32[nodes]
    unsigned long long component;         // u32[nodes + 1]: representative flags, then their scan
    unsigned long long cross_offsets;     // u64[nodes + 1]: counts, then their scan
    unsigned long long pairs;             // u32[2 * cross edges]
    unsigned long long sizes;             // u32[components]
    unsigned long long cyclic;            // u8[components]
    unsigned long long component_stage;   // u8[components]
    unsigned long long stage_cursors;     // u64[stages]
    unsigned long long stage_list;        // u32[nodes]: the classes, stage by stage
};

// Calls read(node) for each branch of class c's choices into a class the
// peel did not solve (c itself included).
template <typename Read>
__device__ __forceinline__ void for_each_unsolved_read(const StageParams& p, unsigned long long c, Read read) {
    const unsigned* waiting = (const unsigned*)p.peel.waiting;
    const unsigned* rank = (const unsigned*)p.peel.unsolved;
    for_each_read(p.peel, c, [&](unsigned read_class) {
        if (waiting[read_class] != PEEL_SOLVED) read(rank[read_class]);
    });
}

extern "C" __global__ void stage_count(const StageParams p) {
    const unsigned* list = (const unsigned*)p.peel.class_list;
    unsigned long long* offsets = (unsigned long long*)p.offsets;
    for (unsigned long long i = grid_thread(); i < p.nodes; i += grid_threads()) {
        unsigned long long count = 0;
        for_each_unsolved_read(p, list[i], [&](unsigned) { ++count; });
        offsets[i] = count;
    }
}

extern "C" __global__ void stage_fill(const StageParams p) {
    const unsigned* list = (const unsigned*)p.peel.class_list;
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    unsigned* targets = (unsigned*)p.targets;
    for (unsigned long long i = grid_thread(); i < p.nodes; i += grid_threads()) {
        unsigned long long at = offsets[i];
        for_each_unsolved_read(p, list[i], [&](unsigned node) { targets[at++] = node; });
    }
}

extern "C" __global__ void stage_reps(const StageParams p) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const unsigned* representative = (const unsigned*)p.representative;
    unsigned* component = (unsigned*)p.component;
    unsigned long long* cross = (unsigned long long*)p.cross_offsets;
    for (unsigned long long i = grid_thread(); i < p.nodes; i += grid_threads()) {
        const unsigned own = representative[i];
        component[i] = own == i;
        unsigned long long count = 0;
        for (unsigned long long e = offsets[i]; e < offsets[i + 1]; ++e) count += representative[targets[e]] != own;
        cross[i] = count;
    }
}

extern "C" __global__ void stage_cross(const StageParams p) {
    const unsigned long long* offsets = (const unsigned long long*)p.offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const unsigned* representative = (const unsigned*)p.representative;
    const unsigned* component = (const unsigned*)p.component;
    const unsigned long long* cross = (const unsigned long long*)p.cross_offsets;
    unsigned* pairs = (unsigned*)p.pairs;
    unsigned char* cyclic = (unsigned char*)p.cyclic;
    for (unsigned long long i = grid_thread(); i < p.nodes; i += grid_threads()) {
        const unsigned own = representative[i];
        const unsigned from = component[own];
        // A component of more than one class, or one that reads itself.
        bool loops = own != i;
        unsigned long long at = cross[i];
        for (unsigned long long e = offsets[i]; e < offsets[i + 1]; ++e) {
            const unsigned read = representative[targets[e]];
            loops |= targets[e] == i;
            if (read == own) continue;
            pairs[2 * at] = from;
            pairs[2 * at + 1] = component[read];
            ++at;
        }
        if (loops) cyclic[from] = 1;
        atomicAdd((unsigned*)p.sizes + from, 1u);
    }
}

extern "C" __global__ void stage_assign(const StageParams p) {
    const unsigned* list = (const unsigned*)p.peel.class_list;
    const unsigned* representative = (const unsigned*)p.representative;
    const unsigned* component = (const unsigned*)p.component;
    const unsigned char* component_stage = (const unsigned char*)p.component_stage;
    unsigned long long* cursors = (unsigned long long*)p.stage_cursors;
    unsigned* stage_list = (unsigned*)p.stage_list;
    for (unsigned long long i = grid_thread(); i < p.nodes; i += grid_threads()) {
        const unsigned stage = component_stage[component[representative[i]]];
        stage_list[atomicAdd(&cursors[stage], 1ull)] = list[i];
    }
}

#include "abi_check.h"
