// Warp-level and memory-ordering helpers shared by every kernel.
#pragma once

#define FULL_MASK 0xffffffffu
// Release/acquire fence at GPU scope: what message passing from a writer
// to its readers in global memory needs, and no stronger than that
// (__threadfence() is sequentially consistent, fence.sc.gpu); the two
// timed alike (benches/results/gpu.md, "Where the time went").
#define FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
