// The global hash table of state vectors (or of their tree roots): buckets
// of 32-word lines holding slots (a key, then its predecessor's slot with
// TRACE), filled by lock-free insertion and read by look-ups along the same
// probe sequence.
// See docs/GPU.md for the insertion protocol and its reasoning.
//
// Macros from the host (src/explore/gpu/kernel.rs):
//   KEY_WORDS         words of a key: the state vector, or with tree storage
//                     its root pair (tree.cuh)
//   SLOT_WORDS        words of a slot (KEY_WORDS, plus SLOT_NUMBER_WORDS for the
//                     predecessor with TRACE)
//   SLOTS_PER_BUCKET  slots per bucket
//   BUCKET_LINES      32-word cache lines per bucket (1 unless SLOT_WORDS > 32)
//   MAX_PROBES        buckets tried before the table counts as full
//   COMPACT           1: tree storage's root pairs are kept compact
//                     (compact.cuh), and the slot layout is that file's
#pragma once

#include "common/warp.cuh"
#include "explore/slot.cuh"

#define EMPTY_WORD 0xffffffffu
#define BUSY_BIT 0x80000000u
#define TAG_MASK 0x3fffffffu
#define BUCKET_WORDS (32 * BUCKET_LINES)

// Word offset of slot `slot` in the table.
__device__ __forceinline__ unsigned long long slot_offset(unsigned long long slot) {
    return (slot / SLOTS_PER_BUCKET) * BUCKET_WORDS + (slot % SLOTS_PER_BUCKET) * SLOT_WORDS;
}

// Outcome of inserting one vector.
#define INS_KNOWN 0
#define INS_NEW 1
#define INS_FULL 2

// Lanes that insert one vector together: with one-line buckets, 8 lanes
// each read 16 bytes of the 128-byte line, so a warp inserts 4 vectors at
// once; buckets of several lines are handled by the whole warp.
#if BUCKET_LINES == 1
#define INSERT_GROUP 8
#else
#define INSERT_GROUP 32
#endif
#define INSERT_GROUPS (32 / INSERT_GROUP)

// OR of `x` over the insertion group (all lanes of `gmask` take part).
__device__ __forceinline__ unsigned group_or(unsigned x, unsigned gmask) {
    for (int o = INSERT_GROUP / 2; o > 0; o >>= 1) x |= __shfl_xor_sync(gmask, x, o);
    return x;
}

// The probe sequence of a vector with hash `h`: its home bucket, then
// double hashing with a step derived from the hash. Insertion and
// look-up share it.
__device__ __forceinline__ void probe_start(unsigned long long h, unsigned long long buckets, unsigned long long& b,
                                            unsigned long long& step) {
    b = __umul64hi(h, buckets);
    step = buckets > 1 ? 1 + __umul64hi(h * 0xD6E8FEB86659FD93ull, buckets - 1) : 1;
}

__device__ __forceinline__ void probe_next(unsigned long long& b, unsigned long long step, unsigned long long buckets) {
    b += step;
    if (b >= buckets) b -= buckets;
}

#if COMPACT
#include "explore/compact.cuh"
#endif

// Asks L2 for the home bucket of a key with hash `h` (with COMPACT, its
// spread value), where its insertion will read first.
__device__ __forceinline__ void prefetch_home(const unsigned* table, unsigned long long buckets, unsigned long long h) {
#if COMPACT
    unsigned long long remainder, b, step;
    compact_address(h, buckets, remainder, b, step);
#else
    unsigned long long b, step;
    probe_start(h, buckets, b, step);
#endif
    for (unsigned l = 0; l < BUCKET_LINES; ++l)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(table + b * BUCKET_WORDS + 32 * l));
}

// Find-or-insert of `vec` (in shared memory, the same for all lanes of the
// insertion group `gmask`; `h` its hash) into the global table. Returns
// INS_NEW with slot_out set when this group stored it. Must be called by
// the whole group.
__device__ int table_insert(unsigned* table, unsigned long long buckets, const unsigned* vec,
                            unsigned long long h, slot_t parent, slot_t& slot_out, unsigned gmask) {
    const unsigned lane = threadIdx.x & 31;
    unsigned long long b, step;
    probe_start(h, buckets, b, step);
    const unsigned head = vec[0];
#if BUCKET_LINES == 1
    // This lane reads words 4 * gl .. 4 * gl + 3 of the line; the group
    // assembles word-indexed masks (bit w: word w of the line).
    const unsigned gl = lane % INSERT_GROUP;
    const unsigned first_lane = lane - gl;
    const unsigned vector_mask = KEY_WORDS >= 32 ? FULL_MASK : ((1u << KEY_WORDS) - 1);
    unsigned want[4];
    for (int j = 0; j < 4; ++j) {
        const unsigned w = 4 * gl + j;
        want[j] = (w < SLOTS_PER_BUCKET * SLOT_WORDS && w % SLOT_WORDS < KEY_WORDS) ? vec[w % SLOT_WORDS] : 0;
    }
#endif
    for (int probe = 0; probe < MAX_PROBES; ++probe) {
        unsigned* bucket = table + b * BUCKET_WORDS;
#if BUCKET_LINES == 1
        // Heads (word bits) seen published and equal to ours before a fence:
        // every later read of their slots sees the final words.
        unsigned trusted = 0;
#endif
        for (;;) {
#if BUCKET_LINES == 1
            const uint4 line = __ldcg(reinterpret_cast<const uint4*>(bucket) + gl);
            const unsigned words[4] = {line.x, line.y, line.z, line.w};
            unsigned mismatch = 0, empty = 0, busy = 0, blank = 0, same_head = 0;
            for (int j = 0; j < 4; ++j) {
                const unsigned w = 4 * gl + j, off = w % SLOT_WORDS, word = words[j], bit = 1u << w;
                if (w >= SLOTS_PER_BUCKET * SLOT_WORDS) continue;
                if (off < KEY_WORDS && word != want[j]) mismatch |= bit;
                if (off == 0) {
                    if (word == EMPTY_WORD) empty |= bit;
                    else if ((word & BUSY_BIT) && (word & TAG_MASK) == (head & TAG_MASK)) busy |= bit;
                    if (word == head) same_head |= bit;
                } else if (off < KEY_WORDS && word == EMPTY_WORD) {
                    blank |= bit;
                }
            }
            mismatch = group_or(mismatch, gmask);
            empty = group_or(empty, gmask);
            busy = group_or(busy, gmask);
            same_head = group_or(same_head, gmask);
            unsigned match = 0, doubtful = 0;
            if (KEY_WORDS > 1) blank = group_or(blank, gmask);
            for (unsigned m = same_head; m; m &= m - 1) {
                const unsigned w = __ffs(m) - 1;
                if (((mismatch >> w) & vector_mask) == 0) match |= 1u << w;
                if (((blank >> w) & vector_mask) != 0) doubtful |= 1u << w;
            }
            // Words 1.. of a slot go from EMPTY to their final value once,
            // before the head is published. A published head equal to ours
            // whose other words read EMPTY may have been read before those
            // writes: fence (acquire) and read again before deciding.
            if (KEY_WORDS > 1 && (doubtful & ~trusted)) {
                trusted |= same_head;
                FENCE();
                continue;
            }
            if (match) return INS_KNOWN;
            if (busy) {
                __nanosleep(20);
                continue;
            }
            if (!empty) break;
            const unsigned at = __ffs(empty) - 1;
            const unsigned at_lane = first_lane + at / 4;
            unsigned won = 0;
            if (lane == at_lane) {
                unsigned claim = KEY_WORDS == 1 ? head : (BUSY_BIT | (head & TAG_MASK));
                won = atomicCAS(bucket + at, EMPTY_WORD, claim) == EMPTY_WORD;
            }
            won = __shfl_sync(gmask, won, at_lane);
            if (!won) continue;
            for (int j = 0; j < 4; ++j) {
                const unsigned w = 4 * gl + j;
                if (w > at && w < at + SLOT_WORDS)
                    bucket[w] = w - at < KEY_WORDS ? vec[w - at] : slot_word(parent, w - at - KEY_WORDS);
            }
            if (KEY_WORDS > 1) {
                FENCE();
                __syncwarp(gmask);
                if (lane == at_lane) {
                    FENCE();
                    atomicExch(bucket + at, head);
                }
            }
            slot_out = (slot_t)(b * SLOTS_PER_BUCKET + at / SLOT_WORDS);
            return INS_NEW;
#else
            // Buckets of several lines hold one slot each.
            (void)gmask;
            unsigned first = __shfl_sync(FULL_MASK, lane == 0 ? __ldcg(bucket) : 0, 0);
            if (first == EMPTY_WORD) {
                unsigned won = 0;
                if (lane == 0) won = atomicCAS(bucket, EMPTY_WORD, BUSY_BIT | (head & TAG_MASK)) == EMPTY_WORD;
                won = __shfl_sync(FULL_MASK, won, 0);
                if (!won) continue;
                for (unsigned i = lane; i < SLOT_WORDS; i += 32)
                    if (i > 0) bucket[i] = i < KEY_WORDS ? vec[i] : slot_word(parent, i - KEY_WORDS);
                FENCE();
                __syncwarp();
                if (lane == 0) atomicExch(bucket, head);
                slot_out = (slot_t)b;
                return INS_NEW;
            }
            if (first & BUSY_BIT) {
                if ((first & TAG_MASK) == (head & TAG_MASK)) {
                    __nanosleep(20);
                    continue;
                }
                break;
            }
            if (first != head) break;
            FENCE(); // acquire: the published head orders the words after it
            bool differs = false;
            for (unsigned i = lane; i < KEY_WORDS; i += 32) differs |= __ldcg(bucket + i) != vec[i];
            if (!__any_sync(FULL_MASK, differs)) return INS_KNOWN;
            break;
#endif
        }
        probe_next(b, step, buckets);
    }
    return INS_FULL;
}

// The slot holding `vec` (hash `h`), or NO_SLOT: a look-up along the
// insertion's probe sequence in a table that no longer changes. Insertion
// fills a bucket's slots before moving on, so a bucket with an empty slot
// ends the sequence.
__device__ slot_t table_find(const unsigned* table, unsigned long long buckets, const unsigned* vec,
                               unsigned long long h) {
    unsigned long long b, step;
    probe_start(h, buckets, b, step);
    for (int probe = 0; probe < MAX_PROBES; ++probe) {
        const unsigned* bucket = table + b * BUCKET_WORDS;
        bool empty = false;
        for (unsigned s = 0; s < SLOTS_PER_BUCKET; ++s) {
            const unsigned* slot = bucket + s * SLOT_WORDS;
            if (slot[0] == EMPTY_WORD) {
                empty = true;
                continue;
            }
            bool same = true;
            for (int i = 0; i < KEY_WORDS && same; ++i) same = slot[i] == vec[i];
            if (same) return (slot_t)(b * SLOTS_PER_BUCKET + s);
        }
        if (empty) return NO_SLOT;
        probe_next(b, step, buckets);
    }
    return NO_SLOT;
}
