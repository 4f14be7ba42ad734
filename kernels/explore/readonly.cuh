// How kernels read the encoded network's arrays: `ro(array, i)`.
//
// Macro from the host (src/explore/gpu/kernel.rs):
//   READ_PATH  0 plain loads, 1 the read-only data cache (__ldg), 2 texture
//              objects (the host then passes texture handles in place of
//              those arrays; both are 8 bytes, so parameter blocks keep
//              their layout)
#pragma once

#if READ_PATH == 2
// Texture objects over linear memory: 1, 2 or 4 u32 channels a texel.
struct TexU32 { unsigned long long handle; };
struct TexU2 { unsigned long long handle; };
struct TexU4 { unsigned long long handle; };
typedef TexU32 RoU32;
typedef TexU2 RoU2;
typedef TexU4 RoU4;
__device__ __forceinline__ uint4 tex_fetch(unsigned long long handle, unsigned i) {
    uint4 r;
    asm("tex.1d.v4.u32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(handle), "r"(i));
    return r;
}
__device__ __forceinline__ unsigned ro(TexU32 a, unsigned i) { return tex_fetch(a.handle, i).x; }
__device__ __forceinline__ uint2 ro(TexU2 a, unsigned i) {
    const uint4 r = tex_fetch(a.handle, i);
    return make_uint2(r.x, r.y);
}
__device__ __forceinline__ uint4 ro(TexU4 a, unsigned i) { return tex_fetch(a.handle, i); }
#else
typedef const unsigned* __restrict__ RoU32;
typedef const uint2* __restrict__ RoU2;
typedef const uint4* __restrict__ RoU4;
template <typename T> __device__ __forceinline__ T ro(const T* __restrict__ a, unsigned i) {
#if READ_PATH == 1
    return __ldg(a + i);
#else
    return a[i];

#endif
}
#endif
