// cuMemAlloc'ed memory freed with cuMemFreeAsync: return codes, time, and whether the memory comes back.
#include <cuda.h>
#include <chrono>
#include <cstdio>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { printf("error %d at %s\n", r, #x); return 1; } } while (0)
int main() {
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    for (int rep = 0; rep < 3; ++rep) {
        size_t free0, total; CK(cuMemGetInfo(&free0, &total));
        size_t bytes = 60ull << 30;
        CUdeviceptr p; double t0 = now(); CK(cuMemAlloc(&p, bytes)); double t1 = now();
        CK(cuMemsetD32Async(p, 0xFFFFFFFFu, bytes / 4, s)); double t2 = now();
        CUresult r = cuMemFreeAsync(p, s); CUresult q = cuStreamSynchronize(s); double t3 = now();
        size_t free1; CK(cuMemGetInfo(&free1, &total));
        printf("rep %d: alloc %.4f s, memset queued %.4f s, freeAsync rc %d, sync rc %d, %.4f s; free before %.1f GiB after %.1f GiB\n",
               rep, t1 - t0, t2 - t1, (int)r, (int)q, t3 - t2, free0 / 1073741824.0, free1 / 1073741824.0);
    }
    // and the default pool with a high release threshold: second allocation of the same size
    CUmemoryPool pool; CK(cuDeviceGetDefaultMemPool(&pool, dev));
    unsigned long long threshold = ~0ull; CK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
    for (int rep = 0; rep < 3; ++rep) {
        CUdeviceptr p; double t0 = now(); CK(cuMemAllocAsync(&p, 60ull << 30, s)); CK(cuStreamSynchronize(s)); double t1 = now();
        CK(cuMemFreeAsync(p, s)); CK(cuStreamSynchronize(s)); double t2 = now();
        printf("pool kept: allocAsync %.4f s, freeAsync %.4f s\n", t1 - t0, t2 - t1);
    }
    return 0;
}
