// The vector hash that the host (crate::encode::hash_words) and every
// kernel share: a table slot is found from it on both sides. A golden-value
// test pins both implementations to the same outputs.
#pragma once

template <int WORDS>
__device__ __forceinline__ unsigned long long hash_words(const unsigned* vec) {
    unsigned long long h = 0x9E3779B97F4A7C15ull ^ (unsigned long long)WORDS;
    for (int i = 0; i < WORDS; ++i) {
        h = (h ^ (unsigned long long)vec[i]) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
    }
    h = (h ^ (h >> 32)) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}
