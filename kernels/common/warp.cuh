// Warp-level and memory-ordering helpers shared by every kernel.
#pragma once

#define FULL_MASK 0xffffffffu
// Release/acquire fence at GPU scope: what message passing from a writer
// to its readers in global memory needs; measured as fast as
// __threadfence(), which is sequentially consistent (fence.sc.gpu).
#define FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
