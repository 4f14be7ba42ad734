// Parameter blocks of the explorer's kernels: each kernel takes one block by
// value. Mirrored field for field by the #[repr(C)] structs of
// src/explore/gpu/params.rs; the host generates "abi_check.h", included by
// each kernel source, which asserts that every block's size and every
// field's offset equal the host's.
#pragma once

#include "explore/readonly.cuh"
#include "explore/slot.cuh"

// The encoded network's arrays (src/explore/gpu/rules.rs builds the tables).
struct NetworkParams {
    RoU4 fields;                      // word, shift, mask, 0 per process
    RoU32 proc_offsets, item_offsets; // first local state of each process; first item of each local state
    RoU4 items;                       // what each local state fires or owns
    RoU32 trans;                      // [label word, target word] pairs
    RoU4 others;                      // participant's word, shift, mask; base of its rows in `lookup`
    RoU2 lookup;                      // entry range [lo, hi) of the rule per local state
    // process, state, fatal per error state (read rarely); StateOffsets and
    // each `others` row's process (SYNC_BUFFERS only)
    const unsigned *error_locals, *state_offsets, *other_processes;
    unsigned errors, processes;
};

// One launch of the search kernel (explore_levels).
struct SearchParams {
    NetworkParams net;
    unsigned* table;
    unsigned long long buckets;
    unsigned* queue0;                  // frontier queues of slot_t by level parity, or
    unsigned* queue1;                  // new-mark bitmaps by level modulo 3
    unsigned* queue2;
    unsigned long long queue_capacity; // entries of each queue, or words of each bitmap
    unsigned long long* stats;         // counters at the ST_* indices
    const unsigned long long* nodes;   // the node table's generations (tree storage: tree.cuh)
    unsigned long long node_generations;
    unsigned long long max_states;
    unsigned long long grow_at;        // stop before a level that might take the states beyond this
    unsigned long long node_grow_at;   // stop before a level once this many nodes are stored
    unsigned long long spill_grows;    // 1: a spill stops the level as a full table does (the table may grow)
    unsigned first_level;
    unsigned levels;                   // levels this launch may run
    unsigned check_deadlock;           // 1: count states without successors as deadlocks
    unsigned keep_going;               // 1: go on after findings that do not end every search
    // A partitioned search (PARTITIONED in search.cu):
    unsigned* outbox;                  // a region of out_capacity messages per other partition
    unsigned long long* out_counts;    // messages sent to each region; then the flag that stops taking work
    unsigned long long out_capacity;   // messages a region holds
    unsigned long long out_soft;       // a region this full raises the flag (the host exchanges, the level goes on)
    unsigned partition;                // this partition
    unsigned partitions;               // how many there are
};

// The passes over a finished search's table that number its states and
// build the state space as a CSR graph (graph.cu).
struct GraphParams {
    NetworkParams net;
    const unsigned* rule_actions;     // action id of each rule
    const unsigned* table;
    unsigned long long buckets;
    unsigned long long slots;
    unsigned* occupied;               // a bit per slot: holds a state
    unsigned* occupied_before;        // occupied slots before each word of `occupied`
    unsigned* slot_of;                // the slot of each state number
    unsigned long long* offsets;      // first edge of each state (states + 1 entries)
    unsigned* targets;                // target state of each edge of [first_state, end_state)
    unsigned* labels;                 // action id of each edge of [first_state, end_state)
    unsigned long long* missing;      // successors not found in the table (stays 0)
    unsigned long long states;
    unsigned long long first_state;   // the states whose edges fill_edges writes
    unsigned long long end_state;
    unsigned initial_slot;
    unsigned initial_rank;            // rank of initial_slot among the occupied slots
    // SCC colouring over the successors the passes generate (no edge stored):
    unsigned* signatures;             // labels, two per state (scc/coloring.cuh)
    const unsigned long long* keys;   // each state's key, ASSIGNED once assigned
    const unsigned* representative;   // the summary: each state's component
    unsigned* component_bits;         // SELF_LOOP and LEAVES at each representative
    unsigned long long* grew;         // blocks of a pass in which a label grew
};
