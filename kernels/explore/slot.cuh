// Slot numbers: where a state lives in the table. They travel through the
// frontier queues, the predecessor links (TRACE) and the findings. Tables
// of fewer than 2^32 - 1 slots number them in 32 bits; larger ones in 64.
//
// Macro from the host (src/explore/gpu/kernel.rs):
//   WIDE_SLOTS   1: 64-bit slot numbers (two words a predecessor link)
#pragma once

#if WIDE_SLOTS
typedef unsigned long long slot_t;
#define NO_SLOT 0xffffffffffffffffull
#define SLOT_NUMBER_WORDS 2
#else
typedef unsigned slot_t;
#define NO_SLOT 0xffffffffu
#define SLOT_NUMBER_WORDS 1
#endif

// Word `k` (0: low) of a slot number as stored in a predecessor link.
__device__ __forceinline__ unsigned slot_word(slot_t slot, unsigned k) {
    return k == 0 ? (unsigned)slot : (unsigned)((unsigned long long)slot >> 32);
}

// The slot number stored in `words` (SLOT_NUMBER_WORDS words, low first).
__device__ __forceinline__ slot_t read_slot_number(const unsigned* words) {
#if WIDE_SLOTS
    return (unsigned long long)words[0] | ((unsigned long long)words[1] << 32);
#else
    return words[0];
#endif
}
