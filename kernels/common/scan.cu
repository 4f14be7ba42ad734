// Device-wide exclusive prefix sums, in place: each block scans one tile
// of SCAN_TILE elements and writes the tile's total; the host scans the
// totals the same way (recursively) and adds each tile's offset. Used to
// turn counts into offsets (CSR graphs, dense numberings).

#define SCAN_THREADS 256
#define SCAN_ITEMS 8
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)

// The arrays of one scan step (src/gpu/scan.rs).
struct ScanParams {
    unsigned long long data;        // elements, u32 or u64 by kernel
    unsigned long long len;
    unsigned long long tile_sums;   // one element per tile
};

template <typename T> __device__ void scan_tile(const ScanParams& p) {
    __shared__ T partial[SCAN_THREADS];
    T* data = reinterpret_cast<T*>(p.data);
    const unsigned long long first = (unsigned long long)blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
    T items[SCAN_ITEMS];
    T sum = 0;
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        items[k] = first + k < p.len ? data[first + k] : 0;
        sum += items[k];
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned offset = 1; offset < SCAN_THREADS; offset <<= 1) {
        const T add = threadIdx.x >= offset ? partial[threadIdx.x - offset] : 0;
        __syncthreads();
        partial[threadIdx.x] += add;
        __syncthreads();
    }
    T running = partial[threadIdx.x] - sum;
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        if (first + k < p.len) data[first + k] = running;
        running += items[k];
    }
    if (threadIdx.x == SCAN_THREADS - 1) reinterpret_cast<T*>(p.tile_sums)[blockIdx.x] = partial[SCAN_THREADS - 1];
}

template <typename T> __device__ void add_tile_offsets(const ScanParams& p) {
    T* data = reinterpret_cast<T*>(p.data);
    const T* offsets = reinterpret_cast<const T*>(p.tile_sums);
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.len;
         i += (unsigned long long)gridDim.x * blockDim.x)
        data[i] += offsets[i / SCAN_TILE];
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_tiles_u32(const ScanParams p) { scan_tile<unsigned>(p); }
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_tiles_u64(const ScanParams p) {
    scan_tile<unsigned long long>(p);
}
extern "C" __global__ void add_tile_offsets_u32(const ScanParams p) { add_tile_offsets<unsigned>(p); }
extern "C" __global__ void add_tile_offsets_u64(const ScanParams p) { add_tile_offsets<unsigned long long>(p); }

#include "abi_check.h"
