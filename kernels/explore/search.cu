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
//   SPILL          1 (with FRONTIER_BITS 0, not PARTITIONED): a queue that
//                  overflows spills into a bitmap: a new state that finds
//                  the queue full is marked in the spill bitmap of its
//                  level (two, by level parity, at queue2), and a level
//                  whose queue spilled expands its queue, then the marked
//                  slots, clearing the bitmap as it reads it. In a table
//                  that may still grow (params.spill_grows) the first
//                  spill stops the level as a full table does, so that
//                  no walked level has to run again; a roomy table has
//                  no spill bitmaps (queue2 null), and a full queue there
//                  stops the search, as with SPILL 0
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
#define LISTS_MARKS (FRONTIER_BITS || SPILL)
#define WARP_OFFERS_AT (GROUPS_PER_WARP * VEC_WORDS + 32 * VEC_WORDS + CACHE_ENTRIES * VEC_WORDS + 32 * SLOT_NUMBER_WORDS * LISTS_MARKS)
#define WARP_TREE_AT (WARP_OFFERS_AT + 32 * OFFER_WORDS * SYNC_BUFFERS)
#define WARP_SHARED_WORDS (WARP_TREE_AT + TREE * (GROUPS_PER_WARP * TREE_REFS + 32 * 2))
// A warp's tallies of a level, flushed once per level by lane 0: new
// states, transitions, blocked monitor steps, expanded states (TALLY_*).
// They live in shared memory (statically, beside the dynamic words), not
// in registers: the successor loop needs all 64, and 64-bit tallies held
// there made the compiler spill the generator instead.
static_assert(!(SPILL && (FRONTIER_BITS || PARTITIONED)), "a spilling queue is a queue of a search in one piece");
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
    // The groups insert the keys in turn, each reading its home bucket
    // first: every pending lane asks for its own bucket now, so that the
    // warp's reads overlap instead of following one another.
    if ((pending >> lane) & 1) prefetch_home(table, buckets, my_hash);
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

// Frontier queue or bitmap k of the launch (params.queue0 .. queue2),
// chosen by selects: an array indexed by the level takes stack.
__device__ __forceinline__ unsigned* frontier_buffer(const SearchParams& params, unsigned k) {
    return k == 0 ? params.queue0 : k == 1 ? params.queue1 : params.queue2;
}

#if SPILL
// Words of each spill bitmap (queue2 holds that of even levels, then that
// of odd ones): a bit a slot.
__device__ __forceinline__ unsigned long long spill_words(const SearchParams& params) {
    return (params.buckets * SLOTS_PER_BUCKET + 31) / 32;
}

// The spill bitmap of the frontier that level `level` expands.
__device__ __forceinline__ unsigned* spill_bitmap(const SearchParams& params, unsigned level) {
    return params.queue2 + (level & 1) * spill_words(params);
}
#endif

// Hands on each lane's new state (`is_new`; `vec` its vector, stored at
// `slot`), found by level `level`: an error state (`error`) is counted and
// recorded as a finding, any other joins the next level's frontier:
// appended to its queue (with SPILL, marked in its spill bitmap when the
// queue is full), or marked in its bitmap. The buffers come from `params`
// at each use, so that they hold no registers. Called by the whole warp.
__device__ __forceinline__ void publish_new(const SearchParams& params, bool keep_going, const Net& net,
                                            const unsigned* vec, bool is_new, bool error, slot_t slot, unsigned level) {
    unsigned long long* const stats = params.stats;
    const unsigned lane = threadIdx.x & 31;
    if (is_new && error) {
        atomicAdd(&stats[ST_ERRORS], 1ull);
        record_finding(stats, keep_going, FOUND_ERROR, slot, first_error_is_fatal(net, vec));
    }
    const unsigned enqueue = __ballot_sync(FULL_MASK, is_new && !error);
    if (!enqueue) return;
    const unsigned next = (level + 1) % 3;
#if FRONTIER_BITS
    if (lane == 0) atomicAdd(&stats[ST_LEN + next], (unsigned long long)__popc(enqueue));
    if ((enqueue >> lane) & 1) atomicOr(frontier_buffer(params, next) + (slot >> 5), 1u << (slot & 31));
#else
    unsigned long long at = 0;
    if (lane == 0) at = atomicAdd(&stats[ST_LEN + next], (unsigned long long)__popc(enqueue));
    at = __shfl_sync(FULL_MASK, at, 0);
    if ((enqueue >> lane) & 1) {
        at += __popc(enqueue & ((1u << lane) - 1));
        if (at < params.queue_capacity) reinterpret_cast<slot_t*>(frontier_buffer(params, (level + 1) & 1))[at] = slot;
#if SPILL
        else if (params.queue2 != nullptr) {
            atomicOr(spill_bitmap(params, level + 1) + (slot >> 5), 1u << (slot & 31));
            // In a table that may grow, the level stops and runs again in a
            // larger one, before any spill bitmap is walked.
            if (params.spill_grows) atomicMax(&stats[ST_STOP], STOP_TABLE_FULL);
        }
#endif
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

#if LISTS_MARKS
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

#if LISTS_MARKS
// A warp's walk over a bitmap of marked slots (FRONTIER_BITS: the level's
// new marks; SPILL: the states its queue had no room for). The warp claims
// bitmap words `claim_words` at a time and reads them 32 at a time, a word
// a lane: `marks` holds each lane's marks not yet listed. Marked slots are
// listed in shared memory (`claimed`) until it holds 32 (a frontier is
// sparse in the table: a window of 1024 slots often has none or one), then
// expanded GROUPS_PER_WARP at a time. The walk lives in shared memory, not
// in registers: it is read once a list, and registers held across the
// expansion made the compiler spill there.
struct MarkWalk {
    const unsigned* bitmap;  // its first `words` words
    unsigned* cleared;       // where each word read is cleared
    unsigned long long words, claim_words;
    unsigned long long next_word, chunk_end;
    unsigned long long read_word; // the word lane 0 read last (lane l read read_word + l)
    unsigned marks[32];
    unsigned listed, taken; // slots in `claimed`, and those expanded
    bool drained;
};

// Starts `w` over `bitmap`. Each word read is cleared in `cleared`: the
// same word of the bitmap the next level marks (FRONTIER_BITS), or of
// `bitmap` itself (SPILL). Called by the whole warp.
__device__ __forceinline__ void start_walk(MarkWalk& w, const unsigned* bitmap, unsigned* cleared, unsigned long long words,
                                           unsigned long long claim_words) {
    const unsigned lane = threadIdx.x & 31;
    __syncwarp();
    w.marks[lane] = 0;
    if (lane == 0) {
        w.bitmap = bitmap;
        w.cleared = cleared;
        w.words = words;
        w.claim_words = claim_words;
        w.next_word = w.chunk_end = w.read_word = 0;
        w.listed = w.taken = 0;
        w.drained = false;
    }
    __syncwarp();
}

// Lists the next marked slots of the walk into `claimed`, claiming chunks
// through `chunks`: 32, or fewer when the bitmap is drained (none: the walk
// is over). Gives how many. Called by the whole warp.
__device__ __forceinline__ unsigned list_marks(MarkWalk& w, Chunks& chunks, const SearchParams& params, unsigned* claimed) {
    const unsigned lane = threadIdx.x & 31;
    unsigned marks = w.marks[lane];
    unsigned long long mark_word = w.read_word + lane, next_word = w.next_word, chunk_end = w.chunk_end;
    bool drained = w.drained;
    unsigned listed = 0;
    while (listed < 32 && !drained) {
        if (!__any_sync(FULL_MASK, marks != 0)) {
            if (next_word >= chunk_end) {
                if (__any_sync(FULL_MASK, must_yield(params))) {
                    drained = true;
                    break;
                }
                const unsigned long long claim_words = w.claim_words, words = w.words;
                const unsigned long long base = next_chunk(chunks, claim_words, lane);
                if (base >= words) {
                    drained = true;
                    break;
                }
                next_word = base;
                chunk_end = base + claim_words < words ? base + claim_words : words;
            }
            // L1 is not coherent: the marks were set by atomics in L2.
            mark_word = next_word + lane;
            next_word += 32;
            marks = mark_word < chunk_end ? __ldcg(w.bitmap + mark_word) : 0;
            if (mark_word < chunk_end) __stcg(w.cleared + mark_word, 0u);
            continue;
        }
        // Append marked slots, lowest lanes first, while there is room; the
        // rest stay in `marks` for the next list.
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
    w.marks[lane] = marks;
    if (lane == 0) {
        w.read_word = mark_word;
        w.next_word = next_word;
        w.chunk_end = chunk_end;
        w.drained = drained;
        w.listed = listed;
        w.taken = 0;
    }
    __syncwarp();
    return listed;
}

// The slot that group `group` expands next from the walk's list, if any
// (`active`); NO_SLOT and the walk's end (`over`) when its bitmap is drained.
// Called by the whole warp.
__device__ __forceinline__ slot_t take_listed(MarkWalk& w, Chunks& chunks, const SearchParams& params, unsigned* claimed,
                                              bool& active, bool& over) {
    const unsigned lane = threadIdx.x & 31;
    unsigned taken = w.taken, listed = w.listed;
    if (taken >= listed) {
        listed = list_marks(w, chunks, params, claimed);
        taken = 0;
    }
    over = listed == 0;
    const unsigned index = taken + lane / GROUP_THREADS;
    __syncwarp();
    if (lane == 0) w.taken = taken + GROUPS_PER_WARP;
    __syncwarp();
    active = index < listed;
    return active ? read_slot_number(claimed + index * SLOT_NUMBER_WORDS) : NO_SLOT;
}
#endif

// Arrive at a grid-wide barrier (all blocks are resident: cooperative
// launch). The last block to arrive decides whether the search goes on:
// it stops at a finding, at the end, at `max_states`, and when the next
// level might fill the table (the stored states plus GROWTH_HEADROOM times
// the new frontier reach `grow_at`) or once the nodes of tree storage reach
// `node_grow_at`, so that the host grows the table or the nodes first.
__device__ void grid_barrier(unsigned long long* stats, unsigned next, unsigned level,
                             unsigned long long max_states, unsigned long long grow_at,
                             unsigned long long node_grow_at) {
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
            // fills the table or the nodes runs again from them after they grow.
            if (vstats[ST_STOP] != STOP_TABLE_FULL && vstats[ST_STOP] != STOP_NODES_FULL) {
                vstats[ST_START_TRANSITIONS] = vstats[ST_TRANSITIONS];
                vstats[ST_START_DEADLOCKS] = vstats[ST_DEADLOCKS];
                vstats[ST_START_EXPANDED] = vstats[ST_EXPANDED];
                vstats[ST_START_MONITOR_BLOCKED] = vstats[ST_MONITOR_BLOCKED];
            }
            const unsigned long long frontier = vstats[ST_LEN + next];
            bool stop = vstats[ST_STOP] != 0 || frontier == 0 || states >= max_states ||
                        states + GROWTH_HEADROOM * frontier >= grow_at || vstats[ST_NODES] >= node_grow_at;
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
    const Nodes nodes = nodes_of(params.nodes, params.node_generations);
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
#if LISTS_MARKS
    // Slot numbers listed from a bitmap, as SLOT_NUMBER_WORDS words each
    // (shared memory gives no 8-byte alignment here).
    unsigned* claimed = stage + 32 * VEC_WORDS + CACHE_ENTRIES * VEC_WORDS;
    __shared__ MarkWalk walks[WARPS];
    MarkWalk& walk = walks[warp];
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
#if SPILL
            stats[ST_SPILL_CURSOR + ((level + 1) & 1)] = 0;
#endif
        }
        // Queue entries, or bitmap words with new marks.
        const unsigned long long length = FRONTIER_BITS ? queue_capacity : vstats[ST_LEN + cur];
#if !FRONTIER_BITS
        const slot_t* const slots_in = reinterpret_cast<const slot_t*>(frontier_buffer(params, level & 1));
        // The entries in the queue: with SPILL, the level's other states
        // are marked in its spill bitmap.
        const unsigned long long queued = SPILL && length > queue_capacity ? queue_capacity : length;
#endif
        if (lane < TALLIES) tallies[lane] = 0;
        __syncwarp();
#if TREE
        unsigned new_nodes = 0; // stored by this lane
#endif
        Chunks chunks = {&stats[ST_CURSOR + cur], global_warp, total_warps};
        // Expands the state at `my_slot` (group `group`'s, when `active`),
        // inserting its successors into the table and the next frontier.
        // Called by the whole warp.
        auto expand = [&](const bool active, const slot_t my_slot) {
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
                // A full node table stops the level, which runs again once the
                // host has added a generation (or ends the search where it can't).
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
                publish_new(params, keep_going, net, stage + lane * VEC_WORDS, (inserted >> lane) & 1, error,
                            my_inserted_slot, level);
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
        };
#if FRONTIER_BITS
        // Each word read is cleared in the third bitmap, which the next
        // level marks.
        start_walk(walk, frontier_buffer(params, cur), frontier_buffer(params, spare), length,
                   mark_claim_words(length, vstats[ST_LEN + cur]));
        const bool walking = true;
#elif SPILL
        // After its queue, the level walks the states the queue had no
        // room for, marked in the level's spill bitmap (warp-uniform).
        bool walking = false;
#endif
        for (;;) {
            // Warp-uniform, so that the whole warp leaves together.
            // A partitioned search also leaves when it must exchange (the
            // bitmap frontier where its claimed chunk is done, below).
            if (__any_sync(FULL_MASK, vstats[ST_STOP] != 0 || (!FRONTIER_BITS && must_yield(params)))) break;
            bool active;
            slot_t my_slot;
#if LISTS_MARKS
            if (walking) {
                bool over;
                my_slot = take_listed(walk, chunks, params, claimed, active, over);
                if (over) break;
            } else
#endif
            {
#if !FRONTIER_BITS
                const unsigned long long base = next_chunk(chunks, GROUPS_PER_WARP, lane);
                if (base >= queued) {
#if SPILL
                    if (length > queued) {
                        unsigned* const spill_in = spill_bitmap(params, level);
                        const unsigned long long words = spill_words(params);
                        start_walk(walk, spill_in, spill_in, words, mark_claim_words(words, length - queued));
                        chunks = {&stats[ST_SPILL_CURSOR + (level & 1)], global_warp, total_warps};
                        walking = true;
                        continue;
                    }
#endif
                    break;
                }
                const unsigned long long index = base + group;
                active = index < queued;
                // L1 is not coherent: this buffer was read two levels ago on this SM.
                my_slot = active ? __ldcg(slots_in + index) : NO_SLOT;
#endif
            }
            expand(active, my_slot);
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
        grid_barrier(stats, next, level, max_states, params.grow_at, params.node_grow_at);
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
    const Nodes nodes = nodes_of(params.nodes, params.node_generations);
    unsigned* const keys = current + WARP_TREE_AT + GROUPS_PER_WARP * TREE_REFS;
    unsigned* const my_key = keys + 2 * lane;
    unsigned new_nodes = 0; // stored by this lane
#endif
    const unsigned level = params.first_level;
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
        publish_new(params, params.keep_going != 0, net, mine, (inserted >> lane) & 1, error, my_slot, level);
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
    const Nodes nodes = nodes_of(params.nodes, params.node_generations);
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
