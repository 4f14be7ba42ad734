// Compact roots (COMPACT, with tree storage): the table keeps a root pair
// in 47 bits instead of 64, after Cleary's quotienting. The pair's 63 bits
// (word 0 without its reserved top bit, then the tree value) go through a
// bijection `spread`; the product t = P * buckets of the result P names
// its home bucket (t >> 63, as a multiply-high maps a hash to a bucket)
// and a remainder: t's bits below bit 63 without their low `shift` ones,
// shift = floor(log2 buckets). A slot stores only the remainder and the
// number of probes that led from the home bucket to the slot's bucket, so
// the bucket the slot sits in gives the rest back: home = bucket less that
// many probe steps, and P * buckets is the one multiple of buckets in
// [home * 2^63 + remainder * 2^shift, + 2^shift). The probe step comes from
// the remainder alone, so decoding needs nothing else. Insertion needs no
// division; decoding (once per expanded state) divides by an estimate in
// double precision and corrects it exactly.
//
// A bucket is one 128-byte line of SLOTS_PER_BUCKET slots: words 0 .. S-1
// hold the slots' heads (the stored value's bits 16..46, top bit the busy
// flag as in table.cuh), halfwords 2S .. 3S-1 their sides (bits 0..15),
// and with TRACE the predecessor link of 40 bits: words LINK_AT .. as the
// low 32 bits, bytes LINK_HIGH_AT .. as the high 8. 21 slots fit without
// links (6.1 bytes a state), 11 with them (11.6 bytes).
//
// The stored value is remainder * MAX_PROBES + probe, below 2^47 when the
// table has at least 2^(63 - 47 + PROBE_BITS) buckets (the host's
// compact::MIN_BUCKETS): the remainder has 63 - shift bits.
//
// Mirrored by src/explore/gpu/compact.rs (the host decodes slots for
// traces); included by table.cuh after the helpers both use.
#pragma once

#define PROBE_BITS 5
#define SIDE_AT (2 * SLOTS_PER_BUCKET)
#define LINK_AT (SLOTS_PER_BUCKET + (SLOTS_PER_BUCKET + 1) / 2)
#define LINK_HIGH_AT (4 * (LINK_AT + SLOTS_PER_BUCKET))
#define NO_LINK 0xffffffffffull
#define KEY_SPACE 0x7fffffffffffffffull
#define SPREAD_M1 0xBF58476D1CE4E5B9ull
#define SPREAD_M1_INVERSE 0x96DE1B173F119089ull
#define SPREAD_M2 0x94D049BB133111EBull
#define SPREAD_M2_INVERSE 0x319642B2D24D8EC3ull

static_assert(MAX_PROBES == 1 << PROBE_BITS, "a slot stores its probe count in PROBE_BITS bits");
static_assert(BUCKET_LINES == 1, "a compact bucket is one line");
static_assert(SPREAD_M1 * SPREAD_M1_INVERSE == 1ull && SPREAD_M2 * SPREAD_M2_INVERSE == 1ull,
              "the multipliers' inverses");
#if TRACE
static_assert(LINK_HIGH_AT + SLOTS_PER_BUCKET <= 128, "heads, sides and links fill at most a line");
#else
static_assert(SIDE_AT + SLOTS_PER_BUCKET <= 64, "heads and sides fill at most a line");
#endif

// A bijection of [0, 2^63): xor-shifts and odd multipliers modulo 2^63.
__device__ __forceinline__ unsigned long long spread(unsigned long long x) {
    x ^= x >> 32;
    x = (x * SPREAD_M1) & KEY_SPACE;
    x ^= x >> 32;
    x = (x * SPREAD_M2) & KEY_SPACE;
    return x ^ (x >> 32);
}

// The inverse of `spread`: x ^ (x >> 32) undoes itself on 63 bits.
__device__ __forceinline__ unsigned long long unspread(unsigned long long x) {
    x ^= x >> 32;
    x = (x * SPREAD_M2_INVERSE) & KEY_SPACE;
    x ^= x >> 32;
    x = (x * SPREAD_M1_INVERSE) & KEY_SPACE;
    return x ^ (x >> 32);
}

// The probe step of a remainder, in [1, buckets - 1].
__device__ __forceinline__ unsigned long long remainder_step(unsigned long long remainder, unsigned long long buckets) {
    unsigned long long h = (remainder + 0x9E3779B97F4A7C15ull) * SPREAD_M2;
    h ^= h >> 29;
    return buckets > 1 ? 1 + __umul64hi(h, buckets - 1) : 1;
}

// floor(log2 buckets): the low bits of a remainder that a slot drops.
__device__ __forceinline__ unsigned bucket_shift(unsigned long long buckets) { return 63 - __clzll(buckets); }

// Where root pair value `p` (spread) lives: its remainder, home bucket and
// probe step.
__device__ __forceinline__ void compact_address(unsigned long long p, unsigned long long buckets,
                                                unsigned long long& remainder, unsigned long long& home,
                                                unsigned long long& step) {
    const unsigned long long high = __umul64hi(p, buckets), low = p * buckets;
    home = (high << 1) | (low >> 63);
    remainder = (low & KEY_SPACE) >> bucket_shift(buckets);
    step = remainder_step(remainder, buckets);
}

// The value p whose home bucket and remainder these are: p * buckets is
// the multiple of buckets in [t, t + 2^shift), t = home * 2^63 +
// remainder * 2^shift, so p = ceil(t / buckets). An estimate in double
// precision is off by at most about 2^12; t - estimate * buckets (below
// 2^53 in magnitude, so exact in 64 bits and in a double) corrects it.
__device__ __forceinline__ unsigned long long compact_value(unsigned long long home, unsigned long long remainder,
                                                            unsigned long long buckets) {
    const unsigned long long low = (home << 63) | (remainder << bucket_shift(buckets));
    const double b = (double)buckets;
    const double estimate = ((double)home * 9223372036854775808.0 + (double)(low & KEY_SPACE)) / b;
    const unsigned long long p = estimate >= 9223372036854775807.0 ? KEY_SPACE : (unsigned long long)estimate;
    // t - p * buckets: its low 64 bits, which are all of it.
    const long long gap = (long long)(low - p * buckets);
    long long k = (long long)floor((double)gap / b);
    long long rest = gap - k * (long long)buckets;
    while (rest > 0) {
        ++k;
        rest -= (long long)buckets;
    }
    while (rest <= -(long long)buckets) {
        --k;
        rest += (long long)buckets;
    }
    return p + k;
}

// The spread value of root pair `key`.
__device__ __forceinline__ unsigned long long compact_of(const unsigned* key) {
    return spread(((unsigned long long)(key[0] & 0x7fffffffu) << 32) | key[1]);
}

// The spread value stored at slot `index` of bucket `b` (whose line is
// `line`; its head published) of a table of `buckets` buckets.
__device__ __forceinline__ unsigned long long compact_stored(const unsigned* line, unsigned index,
                                                             unsigned long long b, unsigned long long buckets) {
    const unsigned head = __ldcg(line + index);
    const unsigned side = __ldcg(reinterpret_cast<const unsigned short*>(line) + SIDE_AT + index);
    const unsigned long long value = ((unsigned long long)head << 16) | side;
    const unsigned probes = (unsigned)(value & (MAX_PROBES - 1));
    const unsigned long long remainder = value >> PROBE_BITS;
    const unsigned long long step = remainder_step(remainder, buckets);
    unsigned long long home = b;
    for (unsigned k = 0; k < probes; ++k) home = home >= step ? home - step : home + buckets - step;
    return compact_value(home, remainder, buckets);
}

// The root pair stored at slot `slot` into `key`.
__device__ __forceinline__ void compact_key(const unsigned* table, unsigned long long buckets, slot_t slot,
                                            unsigned* key) {
    const unsigned long long b = (unsigned long long)slot / SLOTS_PER_BUCKET;
    const unsigned long long pair =
        unspread(compact_stored(table + b * 32, (unsigned)((unsigned long long)slot % SLOTS_PER_BUCKET), b, buckets));
    key[0] = (unsigned)(pair >> 32);
    key[1] = (unsigned)pair;
}

#if TRACE
// The predecessor link of slot `index` of `line`.
__device__ __forceinline__ slot_t compact_link(const unsigned* line, unsigned index) {
    const unsigned long long link =
        line[LINK_AT + index] | ((unsigned long long)reinterpret_cast<const unsigned char*>(line)[LINK_HIGH_AT + index] << 32);
    return link == NO_LINK ? NO_SLOT : (slot_t)link;
}

__device__ __forceinline__ void set_compact_link(unsigned* line, unsigned index, slot_t link) {
    const unsigned long long stored = link == NO_SLOT ? NO_LINK : (unsigned long long)link;
    line[LINK_AT + index] = (unsigned)stored;
    reinterpret_cast<unsigned char*>(line)[LINK_HIGH_AT + index] = (unsigned char)(stored >> 32);
}
#endif

// Find-or-insert of the root pair of spread value `p` (compact_of: each
// lane computes its own before the groups insert them in turn; the same
// for all lanes of the insertion group `gmask`), as table_insert: the
// group reads a bucket's line 16 bytes a lane; a slot is claimed by its
// head (busy flag and tag), its side and link are written, and the head
// is published after a fence.
__device__ int compact_insert(unsigned* table, unsigned long long buckets, unsigned long long p, slot_t parent,
                              slot_t& slot_out, unsigned gmask) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned gl = lane % INSERT_GROUP;
    const unsigned first_lane = lane - gl;
    unsigned long long remainder, b, step;
    compact_address(p, buckets, remainder, b, step);
    for (unsigned probe = 0; probe < MAX_PROBES; ++probe) {
        const unsigned long long value = (remainder << PROBE_BITS) | probe;
        const unsigned head = (unsigned)(value >> 16), side = (unsigned)(value & 0xffff);
        unsigned* bucket = table + b * 32;
        // Slots (bits) whose published head equals ours, seen before a fence.
        unsigned trusted = 0;
        for (;;) {
            const uint4 line = __ldcg(reinterpret_cast<const uint4*>(bucket) + gl);
            const unsigned words[4] = {line.x, line.y, line.z, line.w};
            unsigned empty = 0, busy = 0, same_head = 0;
            for (int j = 0; j < 4; ++j) {
                const unsigned w = 4 * gl + j, word = words[j];
                if (w < SLOTS_PER_BUCKET) {
                    const unsigned bit = 1u << w;
                    if (word == EMPTY_WORD) empty |= bit;
                    else if ((word & BUSY_BIT) && (word & TAG_MASK) == (head & TAG_MASK)) busy |= bit;
                    if (word == head) same_head |= bit;
                }
            }
            empty = group_or(empty, gmask);
            busy = group_or(busy, gmask);
            same_head = group_or(same_head, gmask);
            // Only the slots whose head equals ours need their side: the
            // lane that read its word hands it over (same_head is the same
            // on every lane of the group, so the loop is too).
            unsigned same = 0, blank = 0;
            for (unsigned m = same_head; m; m &= m - 1) {
                const unsigned s = __ffs(m) - 1, w = SIDE_AT / 2 + s / 2, j = w % 4;
                const unsigned held = j == 0 ? line.x : j == 1 ? line.y : j == 2 ? line.z : line.w;
                const unsigned stored = (__shfl_sync(gmask, held, first_lane + w / 4) >> (16 * (s & 1))) & 0xffff;
                if (stored == side) same |= 1u << s;
                if (stored == 0xffff) blank |= 1u << s;
            }
            // A side goes from all ones to its value once, before its head
            // is published: a published head equal to ours beside a blank
            // side may have been read before that write.
            if (blank & ~trusted) {
                trusted |= same_head;
                FENCE();
                continue;
            }
            if (same) return INS_KNOWN;
            if (busy) {
                __nanosleep(20);
                continue;
            }
            if (!empty) break;
            const unsigned at = __ffs(empty) - 1;
            const unsigned at_lane = first_lane + at / 4;
            unsigned won = 0;
            if (lane == at_lane) {
                won = atomicCAS(bucket + at, EMPTY_WORD, BUSY_BIT | (head & TAG_MASK)) == EMPTY_WORD;
                if (won) {
                    reinterpret_cast<unsigned short*>(bucket)[SIDE_AT + at] = (unsigned short)side;
#if TRACE
                    set_compact_link(bucket, at, parent);
#else
                    (void)parent;
#endif
                    FENCE();
                    atomicExch(bucket + at, head);
                }
            }
            won = __shfl_sync(gmask, won, at_lane);
            if (!won) continue;
            slot_out = (slot_t)(b * SLOTS_PER_BUCKET + at);
            return INS_NEW;
        }
        probe_next(b, step, buckets);
    }
    return INS_FULL;
}

// The slot holding spread value `p`, or NO_SLOT, in a table that no longer
// changes (as table_find).
__device__ slot_t compact_find(const unsigned* table, unsigned long long buckets, unsigned long long p) {
    unsigned long long remainder, b, step;
    compact_address(p, buckets, remainder, b, step);
    for (unsigned probe = 0; probe < MAX_PROBES; ++probe) {
        const unsigned long long value = (remainder << PROBE_BITS) | probe;
        const unsigned head = (unsigned)(value >> 16), side = (unsigned)(value & 0xffff);
        const unsigned* bucket = table + b * 32;
        const unsigned short* sides = reinterpret_cast<const unsigned short*>(bucket) + SIDE_AT;
        bool empty = false;
        for (unsigned s = 0; s < SLOTS_PER_BUCKET; ++s) {
            if (bucket[s] == EMPTY_WORD) empty = true;
            else if (bucket[s] == head && sides[s] == side) return (slot_t)(b * SLOTS_PER_BUCKET + s);
        }
        if (empty) return NO_SLOT;
        probe_next(b, step, buckets);
    }
    return NO_SLOT;
}

// Stores spread value `p` with predecessor `link` in a table that nothing
// else reads now (a growth's new table): the first empty slot along its
// probe sequence. Its slot, or NO_SLOT when the sequence has none.
__device__ slot_t compact_place(unsigned* table, unsigned long long buckets, unsigned long long p, slot_t link) {
    unsigned long long remainder, b, step;
    compact_address(p, buckets, remainder, b, step);
    for (unsigned probe = 0; probe < MAX_PROBES; ++probe) {
        const unsigned long long value = (remainder << PROBE_BITS) | probe;
        unsigned* bucket = table + b * 32;
        for (unsigned s = 0; s < SLOTS_PER_BUCKET; ++s) {
            if (bucket[s] != EMPTY_WORD || atomicCAS(bucket + s, EMPTY_WORD, (unsigned)(value >> 16)) != EMPTY_WORD)
                continue;
            reinterpret_cast<unsigned short*>(bucket)[SIDE_AT + s] = (unsigned short)(value & 0xffff);
#if TRACE
            set_compact_link(bucket, s, link);
#else
            (void)link;
#endif
            return (slot_t)(b * SLOTS_PER_BUCKET + s);
        }
        probe_next(b, step, buckets);
    }
    return NO_SLOT;
}
