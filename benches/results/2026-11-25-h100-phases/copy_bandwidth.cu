// Device copy bandwidth: the best of 10 device-to-device copies of 4 GiB,
// counted as bytes read plus bytes written (the yardstick that issue 14
// asks the probabilistic sweeps' bandwidth to be compared with).
#include <cstdio>
#include <cuda_runtime.h>

int main() {
    const size_t bytes = 4ull << 30;
    void *from, *to;
    if (cudaMalloc(&from, bytes) != cudaSuccess || cudaMalloc(&to, bytes) != cudaSuccess) return 1;
    cudaMemset(from, 1, bytes);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    float best = 1e30f;
    for (int i = 0; i < 10; ++i) {
        cudaEventRecord(start);
        cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms;
        cudaEventElapsedTime(&ms, start, stop);
        if (ms < best) best = ms;
    }
    printf("copy_bandwidth_gb_per_s\t%.1f\n", 2.0 * bytes / (best / 1e3) / 1e9);
    return 0;
}
