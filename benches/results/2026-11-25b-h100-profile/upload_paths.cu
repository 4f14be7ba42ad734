// Host-to-device copies of an ordinary (pageable, already touched) host
// buffer, three ways, timed on the host around each whole operation:
// a plain cudaMemcpy from pageable memory; registering the buffer
// (cudaHostRegister), copying, unregistering; and a copy through two
// pinned staging chunks of 8 MiB (host memcpy into one while the other
// is sent). Sizes: csma-3-4's MEC upload (33 MB) and wlan-6-0's (137 MB).
// Build: nvcc -O3 -o upload_paths upload_paths.cu
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main() {
    const size_t sizes[] = {33u << 20, 137u << 20};
    const size_t chunk = 8u << 20;
    void* staging[2];
    cudaStream_t stream;
    cudaFree(0);
    cudaStreamCreate(&stream);
    double t = now();
    cudaMallocHost(&staging[0], chunk);
    cudaMallocHost(&staging[1], chunk);
    printf("staging buffers (2 x 8 MiB pinned): %.2f ms\n", (now() - t) * 1e3);
    for (size_t size : sizes) {
        char* host = (char*)malloc(size);
        memset(host, 1, size);
        void* device;
        cudaMalloc(&device, size);
        for (int run = 0; run < 3; ++run) {
            t = now();
            cudaMemcpy(device, host, size, cudaMemcpyHostToDevice);
            const double plain = now() - t;
            t = now();
            cudaHostRegister(host, size, cudaHostRegisterDefault);
            const double registered_at = now() - t;
            cudaMemcpy(device, host, size, cudaMemcpyHostToDevice);
            const double copied_at = now() - t;
            cudaHostUnregister(host);
            const double registered = now() - t;
            t = now();
            cudaEvent_t done[2];
            cudaEventCreate(&done[0]);
            cudaEventCreate(&done[1]);
            bool used[2] = {false, false};
            for (size_t offset = 0, k = 0; offset < size; offset += chunk, ++k) {
                const size_t n = size - offset < chunk ? size - offset : chunk;
                const int b = k & 1;
                if (used[b]) cudaEventSynchronize(done[b]);
                memcpy(staging[b], host + offset, n);
                cudaMemcpyAsync((char*)device + offset, staging[b], n, cudaMemcpyHostToDevice, stream);
                cudaEventRecord(done[b], stream);
                used[b] = true;
            }
            cudaStreamSynchronize(stream);
            const double staged = now() - t;
            cudaEventDestroy(done[0]);
            cudaEventDestroy(done[1]);
            printf("%zu MB run %d: pageable %.2f ms (%.1f GB/s); register %.2f + copy %.2f + unregister %.2f = %.2f ms; "
                   "staged %.2f ms (%.1f GB/s)\n",
                   size >> 20, run, plain * 1e3, size / plain / 1e9, registered_at * 1e3,
                   (copied_at - registered_at) * 1e3, (registered - copied_at) * 1e3, registered * 1e3, staged * 1e3,
                   size / staged / 1e9);
        }
        cudaFree(device);
        free(host);
    }
    printf("error state: %s\n", cudaGetErrorString(cudaGetLastError()));
}
