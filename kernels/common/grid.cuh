// Grid-stride loops: each thread's index in the grid and the grid's size.
#pragma once

__device__ __forceinline__ unsigned long long grid_thread() {
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ unsigned long long grid_threads() { return (unsigned long long)gridDim.x * blockDim.x; }

// Runs the waves of a propagation in this one block while they stay short
// (at most max_wave items), so that a long thin chain costs no launch and
// no host round trip a wave: wave w reads lists[w % 2] ({first, second},
// the first wave `length0` items of `first`), and step(item, out, &length)
// appends the next wave's items to the other list. Stops at an empty wave
// or a long one; thread 0 then writes its length to *pending and the waves
// run to *waves (odd: the pending wave is in `second`). Every thread of
// the block calls it.
template <typename Step>
__device__ void short_waves_in_block(unsigned* first, unsigned* second, unsigned long long length0,
                                     unsigned long long max_wave, unsigned long long* pending,
                                     unsigned long long* waves_run, Step step) {
    __shared__ unsigned long long length, next_length;
    unsigned* lists[2] = {first, second};
    if (threadIdx.x == 0) {
        length = length0;
        next_length = 0;
    }
    __syncthreads();
    unsigned long long waves = 0;
    while (length > 0 && length <= max_wave) {
        const unsigned* in = lists[waves & 1];
        unsigned* out = lists[(waves + 1) & 1];
        for (unsigned long long i = threadIdx.x; i < length; i += blockDim.x) step(in[i], out, &next_length);
        __syncthreads();
        if (threadIdx.x == 0) {
            length = next_length;
            next_length = 0;
        }
        ++waves;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *pending = length;
        *waves_run = waves;
    }
}
