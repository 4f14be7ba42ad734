// Interval iteration of `left U right` on the GPU (crate::numeric::gpu):
// every class of undecided states (one state, or a collapsed end
// component) takes the best over its choices of the expected lower and
// upper bounds of its successors, and keeps the better of that and its
// last bounds (both sequences are monotone, so an update that reads a
// bound another thread just wrote is still a valid bound). One thread per
// class; the precision test counts the states not yet within it into
// counters[0], which the host zeroes before each launch (the paper's
// in-kernel reset of its convergence flag raced with other blocks).

#include "common/grid.cuh"

struct IterateParams {
    unsigned long long branch_offsets;  // u64[choices + 1]
    unsigned long long targets;         // u32[branches]
    unsigned long long probabilities;   // f64[branches]
    unsigned long long class_choice_offsets;  // u64[classes + 1]
    unsigned long long class_choices;   // u64: the choices of each class
    unsigned long long class_member_offsets;  // u64[classes + 1]
    unsigned long long members;         // u32: the states of each class
    unsigned long long lower;           // f64[states]
    unsigned long long upper;           // f64[states]
    unsigned long long counters;        // u64[1]: states not yet within the precision
    unsigned long long classes;
    unsigned long long epsilon_bits;    // the precision, as the bits of a double
    unsigned long long relative;        // 1: epsilon relative to the value
    unsigned long long minimise;        // 1: Pmin (else Pmax, or a DTMC's one choice)
    unsigned long long sound;           // 0: plain value iteration (the lower bounds only)
};

// Whether the interval [lower, upper] pins the value down (as
// crate::numeric::Precision::reached), or in the unsound mode whether the
// lower bound moved by at most the precision (Precision::close).
__device__ __forceinline__ bool precise(const IterateParams& p, double before, double lower, double upper) {
    const double epsilon = __longlong_as_double((long long)p.epsilon_bits);
    if (p.sound) {
        const double half = (upper - lower) / 2.0;
        return half <= 0.0 || half <= epsilon * (p.relative ? lower : 1.0);
    }
    return fabs(lower - before) <= epsilon * (p.relative ? fabs(lower) : 1.0);
}

extern "C" __global__ void iterate(const IterateParams p) {
    const unsigned long long* branch_offsets = (const unsigned long long*)p.branch_offsets;
    const unsigned* targets = (const unsigned*)p.targets;
    const double* probabilities = (const double*)p.probabilities;
    const unsigned long long* choice_offsets = (const unsigned long long*)p.class_choice_offsets;
    const unsigned long long* choices = (const unsigned long long*)p.class_choices;
    const unsigned long long* member_offsets = (const unsigned long long*)p.class_member_offsets;
    const unsigned* members = (const unsigned*)p.members;
    double* lower = (double*)p.lower;
    double* upper = (double*)p.upper;
    unsigned long long imprecise = 0;
    for (unsigned long long c = grid_thread(); c < p.classes; c += grid_threads()) {
        bool any = false;
        double best_low = 0.0, best_high = 0.0;
        for (unsigned long long i = choice_offsets[c]; i < choice_offsets[c + 1]; ++i) {
            const unsigned long long choice = choices[i];
            double low = 0.0, high = 0.0;
            for (unsigned long long b = branch_offsets[choice]; b < branch_offsets[choice + 1]; ++b) {
                const unsigned target = targets[b];
                const double probability = probabilities[b];
                low += probability * __ldcg(lower + target);
                high += probability * __ldcg(upper + target);
            }
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
        // A class without a choice out of it can only stay: value 0.
        for (unsigned long long m = member_offsets[c]; m < member_offsets[c + 1]; ++m) {
            const unsigned state = members[m];
            const double before = lower[state];
            const double new_lower = fmax(before, best_low), new_upper = fmin(upper[state], best_high);
            lower[state] = new_lower;
            upper[state] = new_upper;
            imprecise += !precise(p, before, new_lower, new_upper);
        }
    }
    // One atomic per warp.
    for (int offset = 16; offset > 0; offset /= 2) imprecise += __shfl_down_sync(0xffffffffu, imprecise, offset);
    if ((threadIdx.x & 31u) == 0 && imprecise) atomicAdd((unsigned long long*)p.counters, imprecise);
}
