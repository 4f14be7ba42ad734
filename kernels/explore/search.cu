// warpcheck GPU explorer: level-synchronous on-the-fly exploration after
// GPUexplore (Wijs & Bosnacki), written for independent thread scheduling
// (Volta and later): every warp-level step names its mask explicitly.
//
// Compiled by NVRTC at run time. Macros from the host
// (src/explore/gpu/kernel.rs, besides those of network.cuh and table.cuh):
//   TRACE          1: store the predecessor slot after the vector
//   TREE           1: store vectors as trees (explore/tree.cuh): the table
//                  holds root pairs (KEY_WORDS 2), the nodes their own table
//   TREE_REFS      values above a vector's words in its tree (tree.cuh)
//   COMPACT        1 (with TREE): root pairs kept compact (compact.cuh)
//   WIDE_SLOTS     1: 64-bit slot numbers (explore/slot.cuh)
//   CACHE_ENTRIES  entries of each warp's cache of inserted vectors (0: off)
//   WORK_CLAIMING  1: warps claim frontier chunks dynamically (work claiming)
//   FRONTIER_BITS  0: each level's new slots are appended to a queue (two
//                  queues, by level parity);
//                  1: GPUexplore's "new" marks: a bit per table slot, and
//                  each level scans the bitmap for the states to expand.
//                  Three bitmaps rotate by level modulo 3: the level reads
//                  one, marks the next, and clears the third (read by the
//                  level before), so that a level's input stays intact and
//                  the level can run again after the table grows
//   PARTITIONED    1: one partition of a search split over several GPUs (or
//                  partitions of one): successors that others own go to
//                  their outboxes, and `absorb` stores those received
//   WARPS          warps per block
//   ST_*, STOP_*, FOUND_*: statistics indices, stop reasons and finding
//                  kinds, spelled once in src/explore/gpu/kernel.rs
//
// The search rules (which finding is kept, which ends the search) are
// src/explore/outcome.rs's; record_finding below is their mirror.

#include "common/hash.cuh"
#include "common/warp.cuh"
#include "explore/grow.cuh"
#include "explore/network.cuh"
#include "explore/table.cuh"
#if TREE
#include "explore/tree.cuh"
#endif

// Blocks per SM the register allocation must allow: 32 resident warps
// (at most 64 registers a thread) keep enough insertions in flight.
#define MIN_BLOCKS (WARPS >= 32 ? 1 : 32 / WARPS)
// Bitmap words a warp claims at once when scanning for new marks: about
// MARKS_PER_CLAIM marks at the level's density, from a read by the whole
// warp (32 words) up to MARK_CHUNK. Hashing spreads the marks evenly, so a
// fixed number of words would hold thousands of states in a dense level,
// and the level waits for the warp with the last claim.
#define MARK_CHUNK 1024
#define MARKS_PER_CLAIM 32
// Shared words of a warp: the vectors being expanded, one staged successor
// per lane, the cache, with new marks the slots taken from the bitmap, with
// sync buffers each lane's offer list, and with tree storage the expanded
// states' tree values and each lane's root pair.
#define WARP_OFFERS_AT (GROUPS_PER_WARP * VEC_WORDS + 32 * VEC_WORDS + CACHE_ENTRIES * VEC_WORDS + 32 * SLOT_NUMBER_WORDS * FRONTIER_BITS)
#define WARP_TREE_AT (WARP_OFFERS_AT + 32 * OFFER_WORDS * SYNC_BUFFERS)
#define WARP_SHARED_WORDS (WARP_TREE_AT + TREE * (GROUPS_PER_WARP * TREE_REFS + 32 * 2))
// A warp's tallies of a level, flushed once per level by lane 0: new
// states, transitions, blocked monitor steps, expanded states (TALLY_*).
// They live in shared memory (statically, beside the dynamic words), not
// in registers: the successor loop needs all 64, and 64-bit tallies held
// there made the compiler spill the generator instead.
#define TALLIES 4
#define TALLY_NEW 0
#define TALLY_TRANSITIONS 1
#define TALLY_BLOCKED 2
#define TALLY_EXPANDED 3

// Records a finding at `slot`: the first of each class is kept (a fatal
// error in its own counter, so that it wins over earlier findings), and a
// fatal finding, or any without `keep_going`, stops the search. The kind
// goes above bit FOUND_KIND_SHIFT, the slot below it.
__device__ __forceinline__ void record_finding(unsigned long long* stats, bool keep_going, unsigned long long kind,
                                               slot_t slot, bool fatal) {
    atomicCAS(&stats[fatal ? ST_FOUND_FATAL : ST_FOUND], ~0ull, (kind << FOUND_KIND_SHIFT) | slot);
    if (fatal || !keep_going) atomicMax(&stats[ST_STOP], STOP_FINDING);
}

// The key a lane inserts and its hash: its successor (staged in shared
// memory), or with tree storage the successor's root pair.
#if TREE
#define INSERTED_KEY(src) (keys + 2 * (src))
#define INSERTED_HASH my_key_hash
#else
#define INSERTED_KEY(src) (stage + (src) * VEC_WORDS)
#define INSERTED_HASH my_hash
#endif

#if PARTITIONED
// A partitioned search (several GPUs, or partitions of one) splits the
// states by the hash of their vectors: each partition stores the states it
// owns and sends the successors others own to them, through an outbox
// region per other partition that the host empties between launches. A
// message is the vector, then with TRACE the predecessor's link (two
// words, the partition above bit PARTITION_SHIFT), and ERROR_FLAG in the
// top bit of its last word (a word of its own without TRACE).
#define MESSAGE_WORDS (VEC_WORDS + 1 + TRACE)
#define PARTITION_SHIFT 56
#define ERROR_FLAG 0x80000000u
#if TRACE && !WIDE_SLOTS
#error "a partitioned search with traces links states by 64-bit slot numbers"
#endif
#if TRACE
#define LINK_OF(slot) ((slot) | ((slot_t)params.partition << PARTITION_SHIFT))
#else
#define LINK_OF(slot) (slot)
#endif

// The partition that owns a vector of hash `hash`, from its low 16 bits
// (the table's home bucket takes the high ones; the host's
// `partition_of` mirrors this).
__device__ __forceinline__ unsigned partition_of(unsigned long long hash, unsigned partitions) {
    return (unsigned)(((hash & 0xffffull) * partitions) >> 16);
}

// Whether warps must stop taking frontier work: an outbox region filled
// beyond `out_soft`, so the host exchanges and runs the level on.
__device__ __forceinline__ bool must_yield(const SearchParams& params) {
    return ((volatile unsigned long long*)params.out_counts)[params.partitions - 1] != 0;
}

// Appends, for each lane with `remote`, its successor `vec` (error state
// when `error`) of the state at `link` to the outbox region of partition
// `owner`. Lanes sending to one partition claim their entries with one
// atomic. Called by the whole warp.
__device__ __forceinline__ void send_remote(const SearchParams& params, bool remote, unsigned owner, const unsigned* vec,
                                            unsigned long long link, bool error) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned peers = __match_any_sync(FULL_MASK, remote ? owner : 0xffffffffu);
    if (!remote) return;
    const unsigned leader = __ffs(peers) - 1;
    const unsigned region = owner - (owner > params.partition ? 1u : 0u);
    unsigned long long at = 0;
    if (lane == leader) at = atomicAdd(params.out_counts + region, (unsigned long long)__popc(peers));
    at = __shfl_sync(peers, at, leader) + __popc(peers & ((1u << lane) - 1));
    if (at >= params.out_soft) params.out_counts[params.partitions - 1] = 1;
    if (at >= params.out_capacity) {
        atomicMax(params.stats + ST_STOP, STOP_EXCHANGE_FULL);
        return;
    }
    unsigned* message = params.outbox + (region * params.out_capacity + at) * MESSAGE_WORDS;
    for (unsigned i = 0; i < VEC_WORDS; ++i) message[i] = vec[i];
#if TRACE
    message[VEC_WORDS] = (unsigned)link;
    const unsigned high = (unsigned)(link >> 32) & ~ERROR_FLAG;
#else
    const unsigned high = 0;
#endif
    message[MESSAGE_WORDS - 1] = high | (error ? ERROR_FLAG : 0u);
}
#else
#define LINK_OF(slot) (slot)
__device__ __forceinline__ bool must_yield(const SearchParams&) { return false; }
#endif

// Inserts the keys of the lanes of `pending` (lane l's at key_base + l *
// key_stride, with hash `my_hash` (with compact roots: the root pair's
// spread value, which is all compact_insert reads) and predecessor link
// `my_link`),
// INSERT_GROUPS keys at a time: insertion group g takes the g-th pending
// lane's key. Each pending lane gets its outcome and slot back. Called by
// the whole warp.
__device__ __forceinline__ void insert_lanes(unsigned* table, unsigned long long buckets, const unsigned* key_base,
                                             unsigned key_stride, unsigned long long my_hash, slot_t my_link,
                                             unsigned pending, int& my_outcome, slot_t& my_slot) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned group_mask = (INSERT_GROUP == 32 ? FULL_MASK : ((1u << INSERT_GROUP) - 1)) << (lane / INSERT_GROUP * INSERT_GROUP);
    my_outcome = INS_KNOWN;
    my_slot = NO_SLOT;
    while (pending) {
        unsigned rest = pending;
        for (unsigned g = 0; g < lane / INSERT_GROUP; ++g) rest &= rest - 1;
        const bool inserting = rest != 0;
        const unsigned src = inserting ? __ffs(rest) - 1 : lane;
        unsigned batch = 0;
        for (unsigned g = 0, r = pending; g < INSERT_GROUPS && r; ++g, r &= r - 1) batch |= r & (0u - r);
        pending &= ~batch;
        const slot_t link = __shfl_sync(FULL_MASK, my_link, src);
        const unsigned long long hash = __shfl_sync(FULL_MASK, my_hash, src);
        slot_t slot = NO_SLOT;
        int outcome = INS_KNOWN;
#if COMPACT
        // With compact roots, `hash` is the root pair's spread value.
        if (inserting) outcome = compact_insert(table, buckets, hash, link, slot, group_mask);
#else
        if (inserting) outcome = table_insert(table, buckets, key_base + src * key_stride, hash, link, slot, group_mask);
#endif
        __syncwarp();
        // Back to the key's own lane: lane `src` of rank r in the batch
        // reads insertion group r's first lane.
        const unsigned rank = __popc(batch & ((1u << lane) - 1));
        const unsigned from = ((batch >> lane) & 1) ? rank * INSERT_GROUP : lane;
        outcome = __shfl_sync(FULL_MASK, outcome, from);
        slot = __shfl_sync(FULL_MASK, slot, from);
        if ((batch >> lane) & 1) {
            my_outcome = outcome;
            my_slot = slot;
        }
    }
}

// Hands on each lane's new state (`is_new`; `vec` its vector, stored at
// `slot`): an error state (`error`) is counted and recorded as a finding,
// any other joins the frontier of level `next` (modulo 3): appended to the
// queue `queue_out`, or marked in the bitmap `queue_out`. Called by the
// whole warp.
__device__ __forceinline__ void publish_new(unsigned long long* stats, bool keep_going, const Net& net,
                                            const unsigned* vec, bool is_new, bool error, slot_t slot,
                                            unsigned* queue_out, unsigned long long queue_capacity, unsigned next) {
    const unsigned lane = threadIdx.x & 31;
    if (is_new && error) {
        atomicAdd(&stats[ST_ERRORS], 1ull);
        record_finding(stats, keep_going, FOUND_ERROR, slot, first_error_is_fatal(net, vec));
    }
    const unsigned enqueue = __ballot_sync(FULL_MASK, is_new && !error);
    if (!enqueue) return;
#if FRONTIER_BITS
    if (lane == 0) atomicAdd(&stats[ST_LEN + next], (unsigned long long)__popc(enqueue));
    if ((enqueue >> lane) & 1) atomicOr(queue_out + (slot >> 5), 1u << (slot & 31));
#else
    unsigned long long at = 0;
    if (lane == 0) at = atomicAdd(&stats[ST_LEN + next], (unsigned long long)__popc(enqueue));
    at = __shfl_sync(FULL_MASK, at, 0);
    if ((enqueue >> lane) & 1) {
        at += __popc(enqueue & ((1u << lane) - 1));
        if (at < queue_capacity) reinterpret_cast<slot_t*>(queue_out)[at] = slot;
        else atomicMax(&stats[ST_STOP], STOP_QUEUE_FULL);
    }
#endif
}

// The chunks of a level's frontier (queue entries or bitmap words) a warp
// expands: with work claiming (WORK_CLAIMING), the next one from the level's shared
// `cursor`, so warps that finish early take more; without, the warp's own
// share, every `stride`-th chunk from its global index `next`.
struct Chunks {
    unsigned long long* cursor;
    unsigned long long next, stride;
};

#if FRONTIER_BITS
// Bitmap words a warp claims at a time in a level of `marks` new marks
// over `words` words (MARKS_PER_CLAIM).
__device__ __forceinline__ unsigned long long mark_claim_words(unsigned long long words, unsigned long long marks) {
    if (marks == 0) return MARK_CHUNK;
    const unsigned long long sized = words * MARKS_PER_CLAIM / marks;
    return sized < 32 ? 32 : sized > MARK_CHUNK ? MARK_CHUNK : sized;
}
#endif

// The first item of the warp's next chunk of `size` items. Called by the
// whole warp; the answer is warp-uniform.
__device__ __forceinline__ unsigned long long next_chunk(Chunks& c, unsigned long long size, unsigned lane) {
#if WORK_CLAIMING
    unsigned long long base = 0;
    if (lane == 0) base = atomicAdd(c.cursor, size);
    return __shfl_sync(FULL_MASK, base, 0);
#else
    const unsigned long long base = c.next * size;
    c.next += c.stride;
    return base;
#endif
}

// Arrive at a grid-wide barrier (all blocks are resident: cooperative
// launch). The last block to arrive decides whether the search goes on:
// it stops at a finding, at the end, at `max_states`, and when the next
// level might fill the table (the stored states plus GROWTH_HEADROOM times
// the new frontier reach `grow_at`), so that the host grows it first.
__device__ void grid_barrier(unsigned long long* stats, unsigned next, unsigned level,
                             unsigned long long max_states, unsigned long long grow_at) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned long long* vstats = stats;
        unsigned long long gen = vstats[ST_BAR_GEN];
        __threadfence();
        unsigned long long arrived = atomicAdd(&stats[ST_BAR_COUNT], 1ull) + 1;
        if (arrived == gridDim.x) {
            __threadfence();
            unsigned long long states = vstats[ST_STATES];
            if (states > vstats[ST_PREV_STATES]) vstats[ST_DEPTH] = level + 1;
            vstats[ST_PREV_STATES] = states;
            vstats[ST_LEVELS_DONE] = level + 1;
            // The expansion counters as the next level starts: a level that
            // fills the table runs again from them after the table grows.
            if (vstats[ST_STOP] != STOP_TABLE_FULL) {
                vstats[ST_START_TRANSITIONS] = vstats[ST_TRANSITIONS];
                vstats[ST_START_DEADLOCKS] = vstats[ST_DEADLOCKS];
                vstats[ST_START_EXPANDED] = vstats[ST_EXPANDED];
                vstats[ST_START_MONITOR_BLOCKED] = vstats[ST_MONITOR_BLOCKED];
            }
            const unsigned long long frontier = vstats[ST_LEN + next];
            bool stop = vstats[ST_STOP] != 0 || frontier == 0 || states >= max_states ||
                        states + GROWTH_HEADROOM * frontier >= grow_at;
            vstats[ST_DECISION] = stop ? 1 : 0;
            vstats[ST_BAR_COUNT] = 0;
            __threadfence();
            atomicAdd(&stats[ST_BAR_GEN], 1ull);
        } else {
            while (vstats[ST_BAR_GEN] == gen) __nanosleep(64);
        }
        __threadfence();
    }
    __syncthreads();
}

extern "C" __global__ void __launch_bounds__(WARPS * 32, MIN_BLOCKS) explore_levels(const SearchParams params) {
    unsigned* const table = params.table;
    const unsigned long long buckets = params.buckets;
    unsigned* const queues[3] = {params.queue0, params.queue1, params.queue2};
    const unsigned long long queue_capacity = params.queue_capacity;
    unsigned long long* const stats = params.stats;
    const unsigned first_level = params.first_level, levels = params.levels;
    const bool check_deadlock = params.check_deadlock != 0, keep_going = params.keep_going != 0;
    const unsigned long long max_states = params.max_states;
    extern __shared__ unsigned shared[];
    __shared__ unsigned long long level_tallies[WARPS][TALLIES];
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    unsigned long long* const tallies = level_tallies[warp];
    const unsigned group = lane / GROUP_THREADS;
    const unsigned group_lane = lane % GROUP_THREADS;
    unsigned* current = shared + warp * WARP_SHARED_WORDS;
    const Net net = network_of(params.net, current + WARP_OFFERS_AT);
#if TREE
    const Nodes nodes = {params.nodes, params.node_buckets};
    // Each group's expanded state's tree values, and each lane's root pair.
    unsigned* const tree_refs = current + WARP_TREE_AT;
    unsigned* const keys = tree_refs + GROUPS_PER_WARP * TREE_REFS;
    unsigned* const my_key = keys + 2 * lane;
#endif
    unsigned* stage = current + GROUPS_PER_WARP * VEC_WORDS;
#if CACHE_ENTRIES > 0
    unsigned* cache = stage + 32 * VEC_WORDS;
    for (unsigned i = lane; i < CACHE_ENTRIES * VEC_WORDS; i += 32) cache[i] = EMPTY_WORD;
    __syncwarp();
#endif
#if FRONTIER_BITS
    // Slot numbers listed from the bitmap, as SLOT_NUMBER_WORDS words each
    // (shared memory gives no 8-byte alignment here).
    unsigned* claimed = stage + 32 * VEC_WORDS + CACHE_ENTRIES * VEC_WORDS;
#endif
    volatile unsigned long long* vstats = stats;
    const unsigned long long total_warps = (unsigned long long)gridDim.x * WARPS;
    const unsigned long long global_warp = (unsigned long long)blockIdx.x * WARPS + warp;

    for (unsigned l = 0; l < levels; ++l) {
        const unsigned level = first_level + l;
        const unsigned cur = level % 3, next = (level + 1) % 3, spare = (level + 2) % 3;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            stats[ST_LEN + spare] = 0;
            stats[ST_CURSOR + spare] = 0;
        }
        // Queue entries, or bitmap words with new marks.
        const unsigned long long length = FRONTIER_BITS ? queue_capacity : vstats[ST_LEN + cur];
#if FRONTIER_BITS
        unsigned* const queue_in = queues[cur];
        unsigned* const queue_out = queues[next];
        unsigned* const cleared = queues[spare];
#else
        unsigned* const queue_in = queues[level & 1];
        unsigned* const queue_out = queues[(level + 1) & 1];
        const slot_t* const slots_in = reinterpret_cast<const slot_t*>(queue_in);
#endif
        if (lane < TALLIES) tallies[lane] = 0;
        __syncwarp();
#if TREE
        unsigned new_nodes = 0; // stored by this lane
#endif
        Chunks chunks = {&stats[ST_CURSOR + cur], global_warp, total_warps};
#if FRONTIER_BITS
        // The warp claims claim_words bitmap words at a time and reads them
        // 32 at a time, a word a lane: `marks` holds this lane's marks not
        // yet listed. Marked slots are listed in `claimed` until it holds
        // 32 (a frontier is sparse in the table: a window of 1024 slots
        // often has none or one), then expanded GROUPS_PER_WARP at a time.
        unsigned marks = 0;
        unsigned long long mark_word = 0, next_word = 0, chunk_end = 0;
        unsigned listed = 0, taken = 0;
        bool drained = false;
        const unsigned long long claim_words = mark_claim_words(length, vstats[ST_LEN + cur]);
#endif
        for (;;) {
            // Warp-uniform, so that the whole warp leaves together.
            // A partitioned search also leaves when it must exchange (the
            // bitmap frontier where its claimed chunk is done, below).
            if (__any_sync(FULL_MASK, vstats[ST_STOP] != 0 || (!FRONTIER_BITS && must_yield(params)))) break;
#if FRONTIER_BITS
            if (taken >= listed) {
                listed = taken = 0;
                while (listed < 32 && !drained) {
                    if (!__any_sync(FULL_MASK, marks != 0)) {
                        if (next_word >= chunk_end) {
                            if (__any_sync(FULL_MASK, must_yield(params))) {
                                drained = true;
                                break;
                            }
                            const unsigned long long base = next_chunk(chunks, claim_words, lane);
                            if (base >= length) {
                                drained = true;
                                break;
                            }
                            next_word = base;
                            chunk_end = base + claim_words < length ? base + claim_words : length;
                        }
                        // L1 is not coherent: the marks were set by atomics in L2.
                        mark_word = next_word + lane;
                        next_word += 32;
                        marks = mark_word < chunk_end ? __ldcg(queue_in + mark_word) : 0;
                        // The same word of the third bitmap, which the next level marks.
                        if (mark_word < chunk_end) __stcg(cleared + mark_word, 0u);
                        continue;
                    }
                    // Append marked slots, lowest lanes first, while there is
                    // room; the rest stay in `marks` for the next list.
                    const unsigned count = __popc(marks);
                    unsigned before = count;
                    for (unsigned o = 1; o < 32; o <<= 1) {
                        const unsigned up = __shfl_up_sync(FULL_MASK, before, o);
                        if (lane >= o) before += up;
                    }
                    const unsigned total = __shfl_sync(FULL_MASK, before, 31);
                    before -= count;
                    for (unsigned at = listed + before; marks && at < 32; ++at) {
                        const slot_t marked = (slot_t)(mark_word * 32 + __ffs(marks) - 1);
                        for (unsigned k = 0; k < SLOT_NUMBER_WORDS; ++k) claimed[at * SLOT_NUMBER_WORDS + k] = slot_word(marked, k);
                        marks &= marks - 1;
                    }
                    listed = listed + total < 32 ? listed + total : 32;
                }
                __syncwarp();
                if (listed == 0) break;
            }
            const unsigned index = taken + group;
            const bool active = index < listed;
            const slot_t my_slot = active ? read_slot_number(claimed + index * SLOT_NUMBER_WORDS) : NO_SLOT;
            taken += GROUPS_PER_WARP;
#else
            const unsigned long long base = next_chunk(chunks, GROUPS_PER_WARP, lane);
            if (base >= length) break;
            const unsigned long long index = base + group;
            const bool active = index < length;
            // L1 is not coherent: this buffer was read two levels ago on this SM.
            const slot_t my_slot = active ? __ldcg(slots_in + index) : NO_SLOT;
#endif
            unsigned* vec = current + group * VEC_WORDS;
#if TREE
            unsigned* const refs = tree_refs + group * TREE_REFS;
            if (active && group_lane == 0) {
#if COMPACT
                unsigned key[2];
                compact_key(table, buckets, my_slot, key);
#else
                const unsigned* stored = table + slot_offset(my_slot);
                const unsigned key[2] = {__ldcg(stored), __ldcg(stored + 1)};
#endif
                tree_decode(nodes, key, vec, refs);
            }
#else
            if (active) {
                const unsigned* stored = table + slot_offset(my_slot);
                for (unsigned i = group_lane; i < VEC_WORDS; i += GROUP_THREADS) vec[i] = __ldcg(stored + i);
            }
#endif
            __syncwarp();
            Generator gen;
            generator_start<(SYNC_BUFFERS != 0)>(gen, net, vec, active ? group_lane : net.processes);
            unsigned successors = 0, monitor_blocked = 0;
            bool more = active;
            for (;;) {
                bool error = false;
                unsigned no_label;
                bool has = more && generator_next<false, (SYNC_BUFFERS != 0)>(gen, net, vec, stage + lane * VEC_WORDS, error, monitor_blocked,
                                                                  no_label);
                more = has;
                // Each lane hashes its own successor: in parallel, once (tree
                // storage inserts the root's hash: this one only finds the
                // successor's cache line), and a partitioned search its owner.
                const bool hashed = has && (PARTITIONED || !TREE || CACHE_ENTRIES > 0);
                const unsigned long long my_hash = hashed ? hash_words<VEC_WORDS>(stage + lane * VEC_WORDS) : 0;
                successors += has;
                unsigned pending = __ballot_sync(FULL_MASK, has);
                if (!pending) break;
#if CACHE_ENTRIES > 0
                // Drop successors found in this warp's cache (read-only in
                // this phase: it is written below, after a __syncwarp).
                const unsigned line = (unsigned)(my_hash >> 40) % CACHE_ENTRIES;
                unsigned* cached = cache + line * VEC_WORDS;
                bool cached_already = has;
                for (int i = 0; i < VEC_WORDS && cached_already; ++i) cached_already = cached[i] == stage[lane * VEC_WORDS + i];
                pending &= ~__ballot_sync(FULL_MASK, cached_already);
#endif
#if PARTITIONED
                // Successors that another partition owns go to its outbox.
                const unsigned owner = partition_of(my_hash, params.partitions);
                const bool remote = ((pending >> lane) & 1) && owner != params.partition;
                send_remote(params, remote, owner, stage + lane * VEC_WORDS, LINK_OF(my_slot), error);
                pending &= ~__ballot_sync(FULL_MASK, remote);
#endif
#if TREE
                // Each lane turns its successor into a root pair (storing the
                // nodes it needs): the key the groups below insert.
                bool nodes_full = false;
                unsigned long long my_key_hash = 0;
                if ((pending >> lane) & 1) {
                    nodes_full = !tree_root(nodes, stage + lane * VEC_WORDS, vec, refs, my_key, new_nodes);
#if COMPACT
                    my_key_hash = compact_of(my_key);
#else
                    my_key_hash = hash_words<2>(my_key);
#endif
                }
                pending &= ~__ballot_sync(FULL_MASK, nodes_full);
#endif
                __syncwarp(); // the staged successors are read by other lanes below
                int my_outcome;
                slot_t my_inserted_slot;
                insert_lanes(table, buckets, INSERTED_KEY(0), INSERTED_KEY(1) - INSERTED_KEY(0), INSERTED_HASH,
                             TRACE ? LINK_OF(my_slot) : NO_SLOT, pending, my_outcome, my_inserted_slot);
                const unsigned inserted = __ballot_sync(FULL_MASK, has && my_outcome == INS_NEW);
                if (__any_sync(FULL_MASK, has && my_outcome == INS_FULL) && lane == 0)
                    atomicMax(&stats[ST_STOP], STOP_TABLE_FULL);
#if TREE
                // The node table does not grow: its filling ends the search.
                if (__any_sync(FULL_MASK, nodes_full) && lane == 0) atomicMax(&stats[ST_STOP], STOP_NODES_FULL);
                if (nodes_full) my_outcome = INS_FULL;
#endif
                if (lane == 0) tallies[TALLY_NEW] += __popc(inserted);
#if CACHE_ENTRIES > 0
                // Remember what was stored, found or sent; of lanes sharing a
                // cache line, the highest writes it.
                const bool remember = has && my_outcome != INS_FULL;
                const unsigned peers = __match_any_sync(FULL_MASK, remember ? line : CACHE_ENTRIES + lane);
                __syncwarp();
                if (remember && lane == 31 - __clz(peers))
                    for (int i = 0; i < VEC_WORDS; ++i) cached[i] = stage[lane * VEC_WORDS + i];
                __syncwarp();
#endif
                publish_new(stats, keep_going, net, stage + lane * VEC_WORDS, (inserted >> lane) & 1, error,
                            my_inserted_slot, queue_out, queue_capacity, next);
                __syncwarp();
            }
            // Per-state successor count over the group: zero means deadlock.
            unsigned state_successors = successors;
            for (unsigned o = GROUP_THREADS / 2; o > 0; o >>= 1) state_successors += __shfl_xor_sync(FULL_MASK, state_successors, o);
            if (check_deadlock && active && group_lane == 0 && state_successors == 0) {
                atomicAdd(&stats[ST_DEADLOCKS], 1ull);
                record_finding(stats, keep_going, FOUND_DEADLOCK, my_slot, false);
            }
            unsigned warp_successors = successors, warp_blocked = monitor_blocked;
            for (unsigned o = 16; o > 0; o >>= 1) {
                warp_successors += __shfl_xor_sync(FULL_MASK, warp_successors, o);
                warp_blocked += __shfl_xor_sync(FULL_MASK, warp_blocked, o);
            }
            const unsigned expanded = __popc(__ballot_sync(FULL_MASK, active && group_lane == 0));
            if (lane == 0) {
                tallies[TALLY_TRANSITIONS] += warp_successors;
                tallies[TALLY_BLOCKED] += warp_blocked;
                tallies[TALLY_EXPANDED] += expanded;
            }
            __syncwarp();
        }
#if TREE
        for (unsigned o = 16; o > 0; o >>= 1) new_nodes += __shfl_xor_sync(FULL_MASK, new_nodes, o);
        if (lane == 0 && new_nodes) atomicAdd(&stats[ST_NODES], (unsigned long long)new_nodes);
#endif
        __syncwarp();
        if (lane == 0) {
            if (tallies[TALLY_NEW]) atomicAdd(&stats[ST_STATES], tallies[TALLY_NEW]);
            if (tallies[TALLY_TRANSITIONS]) atomicAdd(&stats[ST_TRANSITIONS], tallies[TALLY_TRANSITIONS]);
            if (tallies[TALLY_BLOCKED]) atomicAdd(&stats[ST_MONITOR_BLOCKED], tallies[TALLY_BLOCKED]);
            if (tallies[TALLY_EXPANDED]) atomicAdd(&stats[ST_EXPANDED], tallies[TALLY_EXPANDED]);
        }
        grid_barrier(stats, next, level, max_states, params.grow_at);
        if (vstats[ST_DECISION] != 0) break;
    }
}

#if PARTITIONED
// Stores the successors other partitions sent this one: `count` messages
// at `inbox` (MESSAGE_WORDS each). New states join the frontier of level
// first_level + 1 like those the level stored itself. A warp takes 32
// messages at a time, a message a lane.
extern "C" __global__ void __launch_bounds__(WARPS * 32, MIN_BLOCKS)
    absorb(const SearchParams params, const unsigned* inbox, unsigned long long count) {
    extern __shared__ unsigned shared[];
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    unsigned* const current = shared + warp * WARP_SHARED_WORDS;
    const Net net = network_of(params.net, current + WARP_OFFERS_AT);
    unsigned* const stage = current + GROUPS_PER_WARP * VEC_WORDS;
    unsigned* const mine = stage + lane * VEC_WORDS;
#if TREE
    const Nodes nodes = {params.nodes, params.node_buckets};
    unsigned* const keys = current + WARP_TREE_AT + GROUPS_PER_WARP * TREE_REFS;
    unsigned* const my_key = keys + 2 * lane;
    unsigned new_nodes = 0; // stored by this lane
#endif
    const unsigned level = params.first_level, next = (level + 1) % 3;
#if FRONTIER_BITS
    unsigned* const queue_out = next == 0 ? params.queue0 : next == 1 ? params.queue1 : params.queue2;
#else
    unsigned* const queue_out = ((level + 1) & 1) ? params.queue1 : params.queue0;
#endif
    unsigned long long* const stats = params.stats;
    volatile unsigned long long* vstats = stats;
    unsigned long long new_states = 0;
    const unsigned long long stride = (unsigned long long)gridDim.x * WARPS * 32;
    for (unsigned long long base = ((unsigned long long)blockIdx.x * WARPS + warp) * 32; base < count; base += stride) {
        if (__any_sync(FULL_MASK, vstats[ST_STOP] != 0)) break;
        const bool has = base + lane < count;
        unsigned long long link = NO_SLOT;
        bool error = false;
        if (has) {
            const unsigned* message = inbox + (base + lane) * MESSAGE_WORDS;
            for (unsigned i = 0; i < VEC_WORDS; ++i) mine[i] = message[i];
            const unsigned high = message[MESSAGE_WORDS - 1];
            error = (high & ERROR_FLAG) != 0;
#if TRACE
            link = ((unsigned long long)(high & ~ERROR_FLAG) << 32) | message[VEC_WORDS];
#endif
        }
        unsigned pending = __ballot_sync(FULL_MASK, has);
#if TREE
        bool nodes_full = false;
        unsigned long long my_key_hash = 0;
        if (has) {
            nodes_full = !tree_root(nodes, mine, nullptr, nullptr, my_key, new_nodes);
#if COMPACT
            my_key_hash = compact_of(my_key);
#else
            my_key_hash = hash_words<2>(my_key);
#endif
        }
        pending &= ~__ballot_sync(FULL_MASK, nodes_full);
        if (__any_sync(FULL_MASK, nodes_full) && lane == 0) atomicMax(&stats[ST_STOP], STOP_NODES_FULL);
#else
        const unsigned long long my_hash = has ? hash_words<VEC_WORDS>(mine) : 0;
#endif
        __syncwarp();
        int my_outcome;
        slot_t my_slot;
        insert_lanes(params.table, params.buckets, INSERTED_KEY(0), INSERTED_KEY(1) - INSERTED_KEY(0), INSERTED_HASH,
                     TRACE ? (slot_t)link : NO_SLOT, pending, my_outcome, my_slot);
        const unsigned inserted = __ballot_sync(FULL_MASK, has && my_outcome == INS_NEW);
        if (__any_sync(FULL_MASK, has && my_outcome == INS_FULL) && lane == 0)
            atomicMax(&stats[ST_STOP], STOP_TABLE_FULL);
        new_states += __popc(inserted);
        publish_new(stats, params.keep_going != 0, net, mine, (inserted >> lane) & 1, error, my_slot, queue_out,
                    params.queue_capacity, next);
        __syncwarp();
    }
#if TREE
    for (unsigned o = 16; o > 0; o >>= 1) new_nodes += __shfl_xor_sync(FULL_MASK, new_nodes, o);
    if (lane == 0 && new_nodes) atomicAdd(&stats[ST_NODES], (unsigned long long)new_nodes);
#endif
    if (lane == 0 && new_states) atomicAdd(&stats[ST_STATES], new_states);
}
#endif

#if TREE
// Stores the initial state `vec`: its nodes, and its root pair in the empty
// table. One warp; out[0] gets its slot (NO_SLOT when a table is full),
// out[1] the nodes it stored.
extern "C" __global__ void store_initial(const SearchParams params, const unsigned* vec, unsigned long long* out) {
    const unsigned lane = threadIdx.x & 31;
    const Nodes nodes = {params.nodes, params.node_buckets};
    __shared__ unsigned key[2];
    __shared__ unsigned nodes_ok;
    if (lane == 0) {
        unsigned stored = 0;
        nodes_ok = tree_root(nodes, vec, nullptr, nullptr, key, stored);
        out[1] = stored;
    }
    __syncwarp();
    if (lane >= INSERT_GROUP) return;
    const unsigned gmask = INSERT_GROUP == 32 ? FULL_MASK : (1u << INSERT_GROUP) - 1;
    slot_t slot = NO_SLOT;
#if COMPACT
    const int outcome =
        nodes_ok ? compact_insert(params.table, params.buckets, compact_of(key), NO_SLOT, slot, gmask) : INS_FULL;
#else
    const int outcome =
        nodes_ok ? table_insert(params.table, params.buckets, key, hash_words<2>(key), NO_SLOT, slot, gmask) : INS_FULL;
#endif
    if (outcome != INS_NEW) slot = NO_SLOT;
    if (lane == 0) out[0] = slot;
}
#endif

#include "abi_check.h"
