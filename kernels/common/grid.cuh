// Grid-stride loops: each thread's index in the grid and the grid's size.
#pragma once

__device__ __forceinline__ unsigned long long grid_thread() {
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ unsigned long long grid_threads() { return (unsigned long long)gridDim.x * blockDim.x; }
