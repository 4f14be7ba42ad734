// Ceiling for the explorer's insertions: how many random 128-byte lines of
// a table of TABLE_GB gigabytes one H200 reads a second when, as in
// table_insert / compact_insert, 8 lanes read one line 16 bytes a lane
// (ld.global.cg) and combine what they read. Each group reads LINES_PER_GROUP
// lines one after the other (the next address depends on nothing read, as
// successors' hashes do not). nvcc -O3 -arch=sm_90 random_lines.cu
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned long long mix(unsigned long long x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

__global__ void read_lines(const uint4* table, unsigned long long lines, unsigned per_group, unsigned* sink) {
    const unsigned long long group = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) / 8;
    const unsigned lane8 = threadIdx.x % 8;
    unsigned acc = 0;
    for (unsigned i = 0; i < per_group; ++i) {
        const unsigned long long line = __umul64hi(mix(group * per_group + i), lines);
        const uint4 v = __ldcg(table + line * 8 + lane8);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
        acc |= __shfl_xor_sync(0xffffffffu, acc, 1);
    }
    if (acc == 0x12345678u) *sink = acc;
}

int main(int argc, char** argv) {
    const double gb = argc > 1 ? atof(argv[1]) : 32;
    const unsigned long long bytes = (unsigned long long)(gb * (1ull << 30)) / 128 * 128;
    const unsigned long long lines = bytes / 128;
    uint4* table; unsigned* sink;
    if (cudaMalloc(&table, bytes) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess) { printf("alloc failed\n"); return 1; }
    cudaMemset(table, 1, bytes);
    const unsigned per_group = 64, threads = 256;
    for (unsigned blocks : {132u * 8, 132u * 16, 132u * 32}) {
        cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
        read_lines<<<blocks, threads>>>(table, lines, per_group, sink);
        cudaEventRecord(a);
        const int reps = 5;
        for (int r = 0; r < reps; ++r) read_lines<<<blocks, threads>>>(table, lines, per_group, sink);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        const double reads = (double)blocks * threads / 8 * per_group * reps;
        printf("table %.0f GB, %u blocks x %u threads: %.3e random lines/s (%.0f GB/s of lines)\n", gb, blocks, threads,
               reads / (ms / 1e3), reads * 128 / (ms / 1e3) / 1e9);
    }
    return cudaGetLastError() != cudaSuccess;
}
