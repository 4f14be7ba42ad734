// Hashes `count` vectors of VEC_WORDS words with the kernels' hash, so that
// a test can compare it with the host's (crate::encode::hash_words).

#include "common/hash.cuh"

// The arrays of one check (src/explore/gpu/kernel.rs, tests).
struct HashCheckParams {
    const unsigned* vectors;
    unsigned long long count;
    unsigned long long* hashes;
};

extern "C" __global__ void hash_vectors(const HashCheckParams p) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.count;
         i += (unsigned long long)gridDim.x * blockDim.x)
        p.hashes[i] = hash_words<VEC_WORDS>(p.vectors + i * VEC_WORDS);
}

#include "abi_check.h"
