// Parameter block of the table-growing kernels (grow.cu), mirrored by the
// #[repr(C)] GrowParams of src/explore/gpu/kernel.rs.
#pragma once

#include "explore/slot.cuh"

struct GrowParams {
    const unsigned* source;           // whole buckets of the old table (a chunk)
    unsigned long long first_slot;    // old number of the chunk's first slot
    unsigned long long source_slots;  // slots of the chunk
    unsigned long long source_buckets; // buckets of the old table (compact roots decode by them)
    unsigned* table;                  // the new table
    unsigned long long buckets;       // its buckets
    unsigned long long slots;         // its slots
    slot_t* moved_to;                 // new slot of each of the chunk's slots
    unsigned* done;                   // a bit per new slot: link renumbered
    const slot_t* from;               // slot numbers to renumber (frontier queue, host's slots)
    slot_t* to;                       // their new numbers
    unsigned long long count;         // entries of `from` and `to`
    unsigned long long to_capacity;   // entries `to` holds; those beyond are marked in new_marks (SPILL)
    const unsigned* old_marks;        // new marks by old slot (FRONTIER_BITS)
    unsigned* new_marks;              // new marks by new slot
    unsigned long long* failed;       // vectors not placed or not found (stays 0)
};
