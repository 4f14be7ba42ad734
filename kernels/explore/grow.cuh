// Growing the search's table between two levels: every stored vector moves
// into a larger table, and every slot number that refers to the old table
// (predecessor links, the next level's frontier, the host's few slots) is
// renumbered. The old table is read a chunk of whole buckets at a time,
// from the device or from a copy staged through host memory, so that the
// new table may take the memory the old one held.
//
// Round 1 (`reinsert`, every chunk): copy each vector and its link, as
// they are, into the new table, and note where each went (`moved_to`);
// a stored vector never moves, so without traces `renumber_slots` and
// `renumber_marks` rewrite the numbers that fall in the chunk right
// then, and one round does it all. With traces, a link may point into a
// chunk not yet moved, so round 2 (every chunk again) has `locate` find
// where each of the chunk's vectors went, then `renumber_links` and the
// others rewrite the numbers that fall in the chunk. A bit per new slot
// (`done`) keeps a link renumbered by an earlier chunk from being read as
// an old number.
//
// Part of the search's module (search.cu includes it), so that one NVRTC
// compilation gives both. Macros from the host: those of table.cuh and
// slot.cuh, and TRACE.
#pragma once

#include "common/grid.cuh"
#include "common/hash.cuh"
#include "explore/grow_params.cuh"
#include "explore/table.cuh"

// Stores the vector of `stored` (a whole slot of the old table, link
// included) in the new table, which nothing else writes or reads now:
// the first empty slot along its probe sequence, so that, as insertion
// does, a bucket fills before the sequence moves on. Its slot, or NO_SLOT
// when the sequence has no empty one.
__device__ slot_t place(unsigned* table, unsigned long long buckets, const unsigned* stored) {
    unsigned long long b, step;
    probe_start(hash_words<KEY_WORDS>(stored), buckets, b, step);
    for (int probe = 0; probe < MAX_PROBES; ++probe) {
        unsigned* bucket = table + b * BUCKET_WORDS;
        for (unsigned s = 0; s < SLOTS_PER_BUCKET; ++s) {
            unsigned* slot = bucket + s * SLOT_WORDS;
            if (slot[0] != EMPTY_WORD || atomicCAS(slot, EMPTY_WORD, stored[0]) != EMPTY_WORD) continue;
            for (unsigned i = 1; i < SLOT_WORDS; ++i) slot[i] = stored[i];
            return (slot_t)(b * SLOTS_PER_BUCKET + s);
        }
        probe_next(b, step, buckets);
    }
    return NO_SLOT;
}

#if COMPACT
// The spread value of the chunk's slot `i` (compact.cuh), whose head is
// `*head`.
__device__ __forceinline__ unsigned long long chunk_value(const GrowParams& p, unsigned long long i, const unsigned*& head) {
    const unsigned long long bucket = i / SLOTS_PER_BUCKET;
    const unsigned index = (unsigned)(i % SLOTS_PER_BUCKET);
    const unsigned* line = p.source + bucket * 32;
    head = line + index;
    return *head == EMPTY_WORD ? 0 : compact_stored(line, index, p.first_slot / SLOTS_PER_BUCKET + bucket, p.source_buckets);
}
#endif

// moved_to[i]: the new slot of the chunk's slot i (NO_SLOT when empty).
extern "C" __global__ void reinsert(const GrowParams p) {
    for (unsigned long long i = grid_thread(); i < p.source_slots; i += grid_threads()) {
        slot_t to = NO_SLOT;
#if COMPACT
        const unsigned* head;
        const unsigned long long value = chunk_value(p, i, head);
        const bool stored = *head != EMPTY_WORD;
#if TRACE
        const slot_t link = compact_link(head - i % SLOTS_PER_BUCKET, (unsigned)(i % SLOTS_PER_BUCKET));
#else
        const slot_t link = NO_SLOT;
#endif
        if (stored) to = compact_place(p.table, p.buckets, value, link);
#else
        const unsigned* key = p.source + slot_offset(i);
        const bool stored = key[0] != EMPTY_WORD;
        if (stored) to = place(p.table, p.buckets, key);
#endif
        if (stored && to == NO_SLOT) atomicAdd(p.failed, 1ull);
        p.moved_to[i] = to;
    }
}

// moved_to[i], found again (round 2).
extern "C" __global__ void locate(const GrowParams p) {
    for (unsigned long long i = grid_thread(); i < p.source_slots; i += grid_threads()) {
        slot_t to = NO_SLOT;
#if COMPACT
        const unsigned* head;
        const unsigned long long value = chunk_value(p, i, head);
        const bool stored = *head != EMPTY_WORD;
        if (stored) to = compact_find(p.table, p.buckets, value);
#else
        const unsigned* key = p.source + slot_offset(i);
        const bool stored = key[0] != EMPTY_WORD;
        if (stored) to = table_find(p.table, p.buckets, key, hash_words<KEY_WORDS>(key));
#endif
        if (stored && to == NO_SLOT) atomicAdd(p.failed, 1ull);
        p.moved_to[i] = to;
    }
}

// The new number of old slot `old`, when the chunk holds it.
__device__ __forceinline__ bool renumbered(const GrowParams& p, slot_t old, slot_t& to) {
    if (old == NO_SLOT || (unsigned long long)old - p.first_slot >= p.source_slots) return false;
    to = p.moved_to[(unsigned long long)old - p.first_slot];
    return true;
}

extern "C" __global__ void renumber_links(const GrowParams p) {
#if TRACE
    for (unsigned long long s = grid_thread(); s < p.slots; s += grid_threads()) {
#if COMPACT
        unsigned* line = p.table + s / SLOTS_PER_BUCKET * 32;
        const unsigned index = (unsigned)(s % SLOTS_PER_BUCKET);
        if (line[index] == EMPTY_WORD || ((p.done[s / 32] >> (s % 32)) & 1)) continue;
        slot_t to;
        if (!renumbered(p, compact_link(line, index), to)) continue;
        set_compact_link(line, index, to);
#else
        unsigned* stored = p.table + slot_offset(s);
        if (stored[0] == EMPTY_WORD || ((p.done[s / 32] >> (s % 32)) & 1)) continue;
        slot_t to;
        if (!renumbered(p, read_slot_number(stored + KEY_WORDS), to)) continue;
        for (unsigned k = 0; k < SLOT_NUMBER_WORDS; ++k) stored[KEY_WORDS + k] = slot_word(to, k);
#endif
        atomicOr(p.done + s / 32, 1u << (s % 32));
    }
#else
    (void)p;
#endif
}

// to[k] = the new number of from[k], for the numbers the chunk holds; the
// numbers beyond to_capacity are marked in new_marks instead (a frontier
// that spills in the new table).
extern "C" __global__ void renumber_slots(const GrowParams p) {
    for (unsigned long long k = grid_thread(); k < p.count; k += grid_threads()) {
        slot_t to;
        if (!renumbered(p, p.from[k], to)) continue;
        if (k < p.to_capacity) p.to[k] = to;
        else atomicOr(p.new_marks + (unsigned long long)to / 32, 1u << ((unsigned long long)to % 32));
    }
}

// The new-mark bit of each of the chunk's marked slots, set at its new number.
extern "C" __global__ void renumber_marks(const GrowParams p) {
    for (unsigned long long i = grid_thread(); i < p.source_slots; i += grid_threads()) {
        const unsigned long long old = p.first_slot + i;
        if (!((p.old_marks[old / 32] >> (old % 32)) & 1)) continue;
        const unsigned long long to = p.moved_to[i];
        atomicOr(p.new_marks + to / 32, 1u << (to % 32));
    }
}

