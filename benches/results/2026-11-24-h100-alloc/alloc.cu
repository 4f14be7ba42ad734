// Times cuMemAlloc, cuMemsetD8/D32 and cuMemFree of large buffers (growth cost experiment).
#include <cuda.h>
#include <chrono>
#include <cstdio>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { printf("error %d at %s\n", r, #x); return 1; } } while (0)
int main() {
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    size_t sizes[] = {1ull << 30, 4ull << 30, 16ull << 30, 64ull << 30};
    for (int rep = 0; rep < 2; ++rep)
    for (size_t bytes : sizes) {
        CUdeviceptr p;
        double t0 = now(); CK(cuMemAlloc(&p, bytes)); double t1 = now();
        CK(cuMemsetD8Async(p, 0xFF, bytes, s)); CK(cuStreamSynchronize(s)); double t2 = now();
        CK(cuMemsetD32Async(p, 0xFFFFFFFFu, bytes / 4, s)); CK(cuStreamSynchronize(s)); double t3 = now();
        CK(cuMemFree(p)); double t4 = now();
        CUdeviceptr q;
        double a0 = now(); CK(cuMemAllocAsync(&q, bytes, s)); CK(cuStreamSynchronize(s)); double a1 = now();
        CK(cuMemsetD32Async(q, 0xFFFFFFFFu, bytes / 4, s)); CK(cuStreamSynchronize(s)); double a2 = now();
        CK(cuMemFreeAsync(q, s)); CK(cuStreamSynchronize(s)); double a3 = now();
        printf("%6.1f GiB  alloc %.4f  memsetD8 %.4f  memsetD32 %.4f  free %.4f | allocAsync %.4f memsetD32 %.4f freeAsync %.4f\n",
               bytes / 1073741824.0, t1 - t0, t2 - t1, t3 - t2, t4 - t3, a1 - a0, a2 - a1, a3 - a2);
    }
    return 0;
}
