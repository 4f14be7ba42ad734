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
// blocks).

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

// A group of p.lanes lanes (a power of two up to 32, chosen by the host
// from the mean number of branches per class) updates each class: its
// lanes share the branches of each choice, their sums meet by shuffles
// within the group, and they share the class's members. One lane a class
// suits short rows, a whole warp long ones.
extern "C" __global__ void iterate(const IterateParams p) {
    const unsigned long long* branch_offsets = (const unsigned long long*)p.branch_offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const double* probabilities = (const double*)p.probabilities;
    const unsigned long long* choice_offsets = (const unsigned long long*)p.class_choice_offsets;
    const unsigned long long* choices = (const unsigned long long*)p.class_choices;
    const double* constants = (const double*)p.class_constants;
    const unsigned long long* member_offsets = (const unsigned long long*)p.class_member_offsets;
    const unsigned* members = (const unsigned*)p.members;
    const double* lower = (const double*)p.lower;
    const double* upper = (const double*)p.upper;
    const bool with_upper = p.phase != PHASE_LOWER_ONLY;
    const unsigned lanes = (unsigned)p.lanes;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const unsigned warp_lane = threadIdx.x & 31u;
    const unsigned group_mask = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1) << (warp_lane & ~(lanes - 1));
    const unsigned long long groups = grid_threads() / lanes;
    unsigned long long imprecise = 0, raised = 0;
    for (unsigned long long c = grid_thread() / lanes; c < p.classes; c += groups) {
        bool any = false;
        double best_low = 0.0, best_high = 0.0;
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
        // A class without a choice out of it can only stay: value 0.
        for (unsigned long long m = member_offsets[c] + lane; m < member_offsets[c + 1]; m += lanes) {
            update_member(p, members[m], best_low, best_high, imprecise, raised);
        }
    }
    add_tally(p, imprecise, raised);
}

#include "abi_check.h"
