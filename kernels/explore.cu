// warpcheck GPU engine: level-synchronous on-the-fly exploration after
// GPUexplore (Wijs & Bosnacki), written for independent thread scheduling
// (Volta and later): every warp-level step names its mask explicitly.
//
// Compiled by NVRTC at run time; the host defines these macros per network:
//   W             words of a state vector
//   S             words of a table slot (W, plus 1 for the predecessor with TRACE)
//   SPB           slots per bucket
//   LINES         32-word cache lines per bucket (1 unless S > 32)
//   G             threads per vector group (power of two, at most 32)
//   TRACE         1: store the predecessor slot after the vector
//   CACHE         entries of each warp's cache of inserted vectors (0: off)
//   CLAIM         1: warps claim frontier chunks dynamically (work claiming)
//   SYNC_BUFFERS  1: GPUexplore's combination of synchronising rules: each
//                 thread lists the rules its process offers in the state
//                 in shared memory, and a rule's owner reads the other
//                 participants' entries from those lists (needs G >=
//                 processes); 0: the owner reads them from `lookup`
//   MAX_OFFERS    most rules one local state offers (list length, SYNC_BUFFERS)
//   FRONTIER_BITS 0: each level's new slots are appended to a queue;
//                 1: GPUexplore's "new" marks: a bit per table slot (in two
//                 bitmaps, one per level parity), and each level scans the
//                 bitmap for the states to expand
//   READ_PATH     how the encoded network is read: 0 plain loads, 1 the
//                 read-only data cache (__ldg), 2 texture objects (the host
//                 then passes texture handles in place of those arrays)
//   MAX_PROBES    buckets tried before the table counts as full
//   WARPS         warps per block

#define FULL_MASK 0xffffffffu
// Release/acquire fence at GPU scope: all the insertion protocol needs
// (message passing from a slot's writer to its readers); measured as fast
// as __threadfence(), which is sequentially consistent (fence.sc.gpu).
#define FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
#define EMPTY_WORD 0xffffffffu
#define BUSY_BIT 0x80000000u
#define TAG_MASK 0x3fffffffu
#define NO_SLOT 0xffffffffu
#define INDEPENDENT 0x80000000u
#define ERROR_TARGET 0x80000000u
#define GPW (32 / G)
// Blocks per SM the register allocation must allow: 32 resident warps
// (at most 64 registers a thread) keep enough insertions in flight.
#define MIN_BLOCKS (WARPS >= 32 ? 1 : 32 / WARPS)
#define BUCKET_WORDS (32 * LINES)
// Bitmap words a warp claims at once when scanning for new marks.
#define MARK_CHUNK 1024

// The encoded network's read-only arrays and their loads: `ro(array, i)`.
#if READ_PATH == 2
// Texture objects over linear memory: 1, 2 or 4 u32 channels a texel.
struct TexU32 { unsigned long long handle; };
struct TexU2 { unsigned long long handle; };
struct TexU4 { unsigned long long handle; };
typedef TexU32 RoU32;
typedef TexU2 RoU2;
typedef TexU4 RoU4;
__device__ __forceinline__ uint4 tex_fetch(unsigned long long handle, unsigned i) {
    uint4 r;
    asm("tex.1d.v4.u32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(handle), "r"(i));
    return r;
}
__device__ __forceinline__ unsigned ro(TexU32 a, unsigned i) { return tex_fetch(a.handle, i).x; }
__device__ __forceinline__ uint2 ro(TexU2 a, unsigned i) {
    const uint4 r = tex_fetch(a.handle, i);
    return make_uint2(r.x, r.y);
}
__device__ __forceinline__ uint4 ro(TexU4 a, unsigned i) { return tex_fetch(a.handle, i); }
#else
typedef const unsigned* __restrict__ RoU32;
typedef const uint2* __restrict__ RoU2;
typedef const uint4* __restrict__ RoU4;
template <typename T> __device__ __forceinline__ T ro(const T* __restrict__ a, unsigned i) {
#if READ_PATH == 1
    return __ldg(a + i);
#else
    return a[i];
#endif
}
#endif

// Indices into the u64 statistics array shared with the host.
#define ST_STATES 0
#define ST_TRANSITIONS 1
#define ST_DEADLOCKS 2
#define ST_ERRORS 3
#define ST_MONITOR_BLOCKED 4
#define ST_STOP 5          // 0 running, 1 finding, 2 table full, 3 queue full
#define ST_FOUND 6         // (kind << 32) | slot of the first finding; kind 1 deadlock, 2 error
#define ST_DEPTH 7
#define ST_BAR_COUNT 8
#define ST_BAR_GEN 9
#define ST_LEVELS_DONE 10
#define ST_DECISION 11     // 0 continue, 1 stop (written by the last block at a grid barrier)
#define ST_PREV_STATES 12
#define ST_EXPANDED 13
#define ST_FOUND_FATAL 14  // like ST_FOUND, for the first error that ends even a --all search
#define ST_LEN 16          // three rotating frontier lengths
#define ST_CURSOR 20       // three rotating claim cursors
#define ST_WORDS 24

#define STOP_FINDING 1ull
#define STOP_TABLE_FULL 2ull
#define STOP_QUEUE_FULL 3ull

struct Net {
    RoU4 fields;                               // word, shift, mask, 0 per process
    RoU32 proc_offsets;
    RoU32 item_offsets;                        // like StateOffsets, into `items`
    RoU4 items;                                // what each local state fires or owns
    RoU32 trans;                               // [label word, target word] pairs
    RoU4 others;                               // participant's word, shift, mask; base of its rows in `lookup`
    RoU2 lookup;                               // entry range [lo, hi) of the rule per local state
    const unsigned* __restrict__ error_locals; // process, state, fatal per error state (read rarely)
    unsigned errors;
    unsigned processes;
    // With SYNC_BUFFERS (the search only): StateOffsets, each `others`
    // row's process, and this warp's offer lists in shared memory.
    const unsigned* __restrict__ state_offsets;
    const unsigned* __restrict__ other_processes;
    unsigned* offers;
};

// Words of one lane's offer list: the count, then (rule, lo, hi) per rule.
#define OFFER_WORDS (1 + 3 * MAX_OFFERS)

// A local state field: word f.x, shift f.y, mask f.z.
__device__ __forceinline__ unsigned get_field(const uint4 f, const unsigned* vec) { return (vec[f.x] >> f.y) & f.z; }

__device__ __forceinline__ void set_field(const uint4 f, unsigned* vec, unsigned value) {
    vec[f.x] = (vec[f.x] & ~(f.z << f.y)) | ((value & f.z) << f.y);
}

__device__ __forceinline__ unsigned get_local(const Net& net, const unsigned* vec, unsigned p) {
    return get_field(ro(net.fields, p), vec);
}

// Items [lo, hi) of process p in local state `local`.
__device__ __forceinline__ void item_range(const Net& net, unsigned p, unsigned local, unsigned& lo, unsigned& hi) {
    unsigned at = ro(net.proc_offsets, p) + local;
    lo = ro(net.item_offsets, at);
    hi = ro(net.item_offsets, at + 1);
}

// Set in an `others` row base for the property monitor.
#define MONITOR_BIT 0x80000000u

// Entries [x, y) of the rule that `other` (an index into net.others)
// describes, in that participant's local state in `vec`; empty if none.
__device__ __forceinline__ uint2 other_entries(const Net& net, const unsigned* vec, unsigned other, uint4& o) {
    o = ro(net.others, other);
    return ro(net.lookup, (o.w & ~MONITOR_BIT) + get_field(o, vec));
}

// With shared-memory buffers: the entries [lo, hi) of rule `rule` that
// `other` (an index into net.others) offers in this state, read from its
// thread's offer list (thread i of a group handles process i).
__device__ __forceinline__ uint2 buffered_entries(const Net& net, unsigned rule, unsigned other, uint4& o) {
    o = ro(net.others, other);
    const unsigned lane = threadIdx.x & 31;
    const unsigned* list = net.offers + (lane / G * G + __ldg(&net.other_processes[other])) * OFFER_WORDS;
    for (unsigned i = 0; i < list[0]; ++i)
        if (list[1 + 3 * i] == rule) return make_uint2(list[2 + 3 * i], list[3 + 3 * i]);
    return make_uint2(0, 0);
}

// Writes this lane's offer list: the rules that process p (or none, when p
// is not a process) offers in local state `local`, with their entry
// ranges. Rule entries come first in a state's TransArray entries, sorted
// by rule id, so each rule is one run.
__device__ void write_offers(const Net& net, unsigned p, unsigned local) {
    unsigned* mine = net.offers + (threadIdx.x & 31) * OFFER_WORDS;
    unsigned count = 0;
    if (p < net.processes) {
        const unsigned at = ro(net.proc_offsets, p) + local;
        unsigned e = __ldg(&net.state_offsets[at]);
        const unsigned end = __ldg(&net.state_offsets[at + 1]);
        while (e < end) {
            const unsigned rule = ro(net.trans, 2 * e);
            if (rule & INDEPENDENT) break;
            const unsigned lo = e;
            while (e < end && ro(net.trans, 2 * e) == rule) ++e;
            mine[1 + 3 * count] = rule;
            mine[2 + 3 * count] = lo;
            mine[3 + 3 * count] = e;
            ++count;
        }
    }
    mine[0] = count;
}

// Same mixing as crate::encode::hash_words, so the host can place the initial state.
__device__ __forceinline__ unsigned long long hash_vector(const unsigned* vec) {
    unsigned long long h = 0x9E3779B97F4A7C15ull ^ (unsigned long long)W;
    for (int i = 0; i < W; ++i) {
        h = (h ^ (unsigned long long)vec[i]) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
    }
    h = (h ^ (h >> 32)) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

// One lane's resumable successor generator over its processes
// p = lane-in-group, + G, + 2G, ...; a rule is combined by its owner.
// A local state's items are its independent entries and the rules its
// process owns (with the entries it has for them): rules owned by others
// cost this lane nothing. All scalars (no arrays), so that nothing lives in
// local memory: the combinations of a rule are numbered 0 .. combos - 1 in
// mixed radix over the participants' entry counts, decoded per successor.
struct Generator {
    unsigned process, k, end;             // the process and its remaining items
    uint4 field;                          // the process's field
    unsigned rule;                        // the rule being combined (read with BUFFERS)
    unsigned own_lo, own_hi;              // the owner's entries of the rule being combined
    unsigned others_begin, others_end;    // the rule's other participants
    unsigned long long combo, combos;     // next combination, and their number (0: not combining)
};

// With BUFFERS, every lane of the warp must call this together (it
// publishes the lane's offer list with __syncwarp).
template <bool BUFFERS>
__device__ __forceinline__ void generator_start(Generator& g, const Net& net, const unsigned* vec, unsigned first) {
    g.process = first;
    g.combo = g.combos = 0;
    g.k = g.end = 0;
    unsigned local = 0;
    if (first < net.processes) {
        g.field = ro(net.fields, first);
        local = get_field(g.field, vec);
        item_range(net, first, local, g.k, g.end);
    }
    if (BUFFERS) {
        write_offers(net, first, local);
        __syncwarp();
    }
}

// Entries of `other` for the rule being combined: from the shared-memory
// offer lists or from the look-up rows.
template <bool BUFFERS>
__device__ __forceinline__ uint2 participant_entries(const Net& net, const Generator& g, const unsigned* vec,
                                                     unsigned other, uint4& o) {
    return BUFFERS ? buffered_entries(net, g.rule, other, o) : other_entries(net, vec, other, o);
}

// Picks entry number `c mod count` of [lo, lo + count) and divides c by count.
__device__ __forceinline__ unsigned pick(unsigned lo, unsigned count, unsigned long long& c) {
    if (count == 1) return lo;
    const unsigned at = lo + (unsigned)(c % count);
    c /= count;
    return at;
}

// Writes the next successor of `vec` into `out`; false when there is none.
// With LABELS, `label` gets the step's label word (INDEPENDENT | action, or
// a rule id); the search instantiates it without, so it costs nothing there.
template <bool LABELS, bool BUFFERS>
__device__ bool generator_next(Generator& g, const Net& net, const unsigned* vec, unsigned* out,
                               bool& error, unsigned& monitor_blocked, unsigned& label) {
    while (g.process < net.processes) {
        if (g.combo < g.combos) {
            for (int i = 0; i < W; ++i) out[i] = vec[i];
            unsigned long long c = g.combo;
            const unsigned own = pick(g.own_lo, g.own_hi - g.own_lo, c);
            if (LABELS) label = ro(net.trans, 2 * own);
            unsigned target = ro(net.trans, 2 * own + 1);
            error = (target & ERROR_TARGET) != 0;
            set_field(g.field, out, target & ~ERROR_TARGET);
            for (unsigned o = g.others_begin; o < g.others_end; ++o) {
                uint4 other;
                const uint2 r = participant_entries<BUFFERS>(net, g, vec, o, other); // never empty: enabled
                target = ro(net.trans, 2 * pick(r.x, r.y - r.x, c) + 1);
                error |= (target & ERROR_TARGET) != 0;
                set_field(other, out, target & ~ERROR_TARGET);
            }
            if (++g.combo == g.combos) g.combo = g.combos = 0;
            return true;
        }
        if (g.k < g.end) {
            // {INDEPENDENT | action, target, -, -}, or for an owned rule
            // {first other, own lo, own hi, end of others}
            const uint4 item = ro(net.items, g.k);
            ++g.k;
            if (item.x & INDEPENDENT) {
                for (int i = 0; i < W; ++i) out[i] = vec[i];
                set_field(g.field, out, item.y & ~ERROR_TARGET);
                error = (item.y & ERROR_TARGET) != 0;
                if (LABELS) label = item.x;
                return true;
            }
            unsigned long long combos = item.z - item.y;
            bool monitor_missing = false;
            if (BUFFERS) g.rule = ro(net.trans, 2 * item.y);
            for (unsigned o = item.x; o < item.w; ++o) {
                uint4 other;
                const uint2 r = participant_entries<BUFFERS>(net, g, vec, o, other);
                if (r.x < r.y) {
                    combos *= r.y - r.x;
                } else if (other.w & MONITOR_BIT) {
                    monitor_missing = true;
                } else {
                    combos = 0;
                    break;
                }
            }
            if (combos == 0) continue;
            if (monitor_missing) {
                ++monitor_blocked;
                continue;
            }
            g.own_lo = item.y;
            g.own_hi = item.z;
            g.others_begin = item.x;
            g.others_end = item.w;
            g.combo = 0;
            g.combos = combos;
            continue;
        }
        g.process += G;
        if (g.process < net.processes) {
            g.field = ro(net.fields, g.process);
            item_range(net, g.process, get_field(g.field, vec), g.k, g.end);
        }
    }
    return false;
}

// Search option bits of the kernel's `options` argument.
#define OPT_CHECK_DEADLOCK 1u
#define OPT_KEEP_GOING 2u

// Index of the first error state in `vec` (in the order of the encoding's
// error list, as the host reports it), or `net.errors` if there is none.
__device__ unsigned first_error(const Net& net, const unsigned* vec) {
    unsigned i = 0;
    while (i < net.errors && get_local(net, vec, __ldg(&net.error_locals[3 * i])) != __ldg(&net.error_locals[3 * i + 1])) ++i;
    return i;
}

// Whether the first error state in `vec` ends the search even with --all.
__device__ bool first_error_is_fatal(const Net& net, const unsigned* vec) {
    const unsigned i = first_error(net, vec);
    return i < net.errors && __ldg(&net.error_locals[3 * i + 2]) != 0;
}

__device__ __forceinline__ void record_finding(unsigned long long* stats, unsigned options, unsigned long long kind,
                                               unsigned slot, bool fatal) {
    atomicCAS(&stats[fatal ? ST_FOUND_FATAL : ST_FOUND], ~0ull, (kind << 32) | slot);
    if (fatal || !(options & OPT_KEEP_GOING)) atomicMax(&stats[ST_STOP], STOP_FINDING);
}

// Outcome of inserting one vector.
#define INS_KNOWN 0
#define INS_NEW 1
#define INS_FULL 2

// Lanes that insert one vector together: with one-line buckets, 8 lanes
// each read 16 bytes of the 128-byte line, so a warp inserts 4 vectors at
// once; buckets of several lines are handled by the whole warp.
#if LINES == 1
#define IG 8
#else
#define IG 32
#endif
#define NIG (32 / IG)

// OR of `x` over the insertion group (all lanes of `gmask` take part).
__device__ __forceinline__ unsigned group_or(unsigned x, unsigned gmask) {
    for (int o = IG / 2; o > 0; o >>= 1) x |= __shfl_xor_sync(gmask, x, o);
    return x;
}

// The chunks of a level's frontier (queue entries or bitmap words) a warp
// expands: with work claiming (CLAIM), the next one from the level's shared
// `cursor`, so warps that finish early take more; without, the warp's own
// share, every `stride`-th chunk from its global index `next`.
struct Chunks {
    unsigned long long* cursor;
    unsigned long long next, stride;
};

// The first item of the warp's next chunk of `size` items. Called by the
// whole warp; the answer is warp-uniform.
__device__ __forceinline__ unsigned long long next_chunk(Chunks& c, unsigned long long size, unsigned lane) {
#if CLAIM
    unsigned long long base = 0;
    if (lane == 0) base = atomicAdd(c.cursor, size);
    return __shfl_sync(FULL_MASK, base, 0);
#else
    const unsigned long long base = c.next * size;
    c.next += c.stride;
    return base;
#endif
}

// The probe sequence of a vector with hash `h`: its home bucket, then
// double hashing with a step derived from the hash. Insertion and the
// export's look-up share it.
__device__ __forceinline__ void probe_start(unsigned long long h, unsigned long long buckets, unsigned long long& b,
                                            unsigned long long& step) {
    b = __umul64hi(h, buckets);
    step = buckets > 1 ? 1 + __umul64hi(h * 0xD6E8FEB86659FD93ull, buckets - 1) : 1;
}

__device__ __forceinline__ void probe_next(unsigned long long& b, unsigned long long step, unsigned long long buckets) {
    b += step;
    if (b >= buckets) b -= buckets;
}

// Find-or-insert of `vec` (in shared memory, the same for all lanes of the
// insertion group `gmask`; `h` its hash) into the global table. Returns
// INS_NEW with slot_out set when this group stored it. Must be called by
// the whole group.
__device__ int table_insert(unsigned* table, unsigned long long buckets, const unsigned* vec,
                            unsigned long long h, unsigned parent, unsigned& slot_out, unsigned gmask) {
    const unsigned lane = threadIdx.x & 31;
    unsigned long long b, step;
    probe_start(h, buckets, b, step);
    const unsigned head = vec[0];
#if LINES == 1
    // This lane reads words 4 * gl .. 4 * gl + 3 of the line; the group
    // assembles word-indexed masks (bit w: word w of the line).
    const unsigned gl = lane % IG;
    const unsigned first_lane = lane - gl;
    const unsigned vector_mask = W >= 32 ? FULL_MASK : ((1u << W) - 1);
    unsigned want[4];
    for (int j = 0; j < 4; ++j) {
        const unsigned w = 4 * gl + j;
        want[j] = (w < SPB * S && w % S < W) ? vec[w % S] : 0;
    }
#endif
    for (int probe = 0; probe < MAX_PROBES; ++probe) {
        unsigned* bucket = table + b * BUCKET_WORDS;
#if LINES == 1
        // Heads (word bits) seen published and equal to ours before a fence:
        // every later read of their slots sees the final words.
        unsigned trusted = 0;
#endif
        for (;;) {
#if LINES == 1
            const uint4 line = __ldcg(reinterpret_cast<const uint4*>(bucket) + gl);
            const unsigned words[4] = {line.x, line.y, line.z, line.w};
            unsigned mismatch = 0, empty = 0, busy = 0, blank = 0, same_head = 0;
            for (int j = 0; j < 4; ++j) {
                const unsigned w = 4 * gl + j, off = w % S, word = words[j], bit = 1u << w;
                if (w >= SPB * S) continue;
                if (off < W && word != want[j]) mismatch |= bit;
                if (off == 0) {
                    if (word == EMPTY_WORD) empty |= bit;
                    else if ((word & BUSY_BIT) && (word & TAG_MASK) == (head & TAG_MASK)) busy |= bit;
                    if (word == head) same_head |= bit;
                } else if (off < W && word == EMPTY_WORD) {
                    blank |= bit;
                }
            }
            mismatch = group_or(mismatch, gmask);
            empty = group_or(empty, gmask);
            busy = group_or(busy, gmask);
            same_head = group_or(same_head, gmask);
            unsigned match = 0, doubtful = 0;
            if (W > 1) blank = group_or(blank, gmask);
            for (unsigned m = same_head; m; m &= m - 1) {
                const unsigned w = __ffs(m) - 1;
                if (((mismatch >> w) & vector_mask) == 0) match |= 1u << w;
                if (((blank >> w) & vector_mask) != 0) doubtful |= 1u << w;
            }
            // Words 1.. of a slot go from EMPTY to their final value once,
            // before the head is published. A published head equal to ours
            // whose other words read EMPTY may have been read before those
            // writes: fence (acquire) and read again before deciding.
            if (W > 1 && (doubtful & ~trusted)) {
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
                unsigned claim = W == 1 ? head : (BUSY_BIT | (head & TAG_MASK));
                won = atomicCAS(bucket + at, EMPTY_WORD, claim) == EMPTY_WORD;
            }
            won = __shfl_sync(gmask, won, at_lane);
            if (!won) continue;
            for (int j = 0; j < 4; ++j) {
                const unsigned w = 4 * gl + j;
                if (w > at && w < at + S) bucket[w] = w - at < W ? vec[w - at] : parent;
            }
            if (W > 1) {
                FENCE();
                __syncwarp(gmask);
                if (lane == at_lane) {
                    FENCE();
                    atomicExch(bucket + at, head);
                }
            }
            slot_out = (unsigned)(b * SPB + at / S);
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
                for (unsigned i = lane; i < S; i += 32)
                    if (i > 0) bucket[i] = i < W ? vec[i] : parent;
                FENCE();
                __syncwarp();
                if (lane == 0) atomicExch(bucket, head);
                slot_out = (unsigned)b;
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
            for (unsigned i = lane; i < W; i += 32) differs |= __ldcg(bucket + i) != vec[i];
            if (!__any_sync(FULL_MASK, differs)) return INS_KNOWN;
            break;
#endif
        }
        probe_next(b, step, buckets);
    }
    return INS_FULL;
}

// Arrive at a grid-wide barrier (all blocks are resident: cooperative
// launch). The last block to arrive decides whether the search goes on.
__device__ void grid_barrier(unsigned long long* stats, unsigned next, unsigned level,
                             unsigned long long max_states) {
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
            bool stop = vstats[ST_STOP] != 0 || vstats[ST_LEN + next] == 0 || states >= max_states;
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

extern "C" __global__ void __launch_bounds__(WARPS * 32, MIN_BLOCKS)
explore_levels(RoU4 fields, RoU32 proc_offsets, RoU32 item_offsets, RoU4 items, RoU32 trans, RoU4 others,
               RoU2 lookup,
               unsigned* table, unsigned long long buckets, unsigned* queue0, unsigned* queue1,
               unsigned long long queue_capacity, unsigned long long* stats, unsigned first_level,
               unsigned levels, unsigned long long max_states, const unsigned* __restrict__ error_locals,
               unsigned errors, unsigned processes, unsigned options,
               const unsigned* __restrict__ state_offsets, const unsigned* __restrict__ other_processes) {
    extern __shared__ unsigned shared[];
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    const unsigned group = lane / G;
    const unsigned group_lane = lane % G;
    // Per warp: the vectors being expanded, one staged successor per lane,
    // the cache, with new marks the slots taken from the bitmap, and with
    // sync buffers each lane's offer list.
    unsigned* current =
        shared + warp * (GPW * W + 32 * W + CACHE * W + 32 * FRONTIER_BITS + 32 * OFFER_WORDS * SYNC_BUFFERS);
    const Net net = {fields,       proc_offsets, item_offsets,  items,           trans,
                     others,       lookup,       error_locals,  errors,          processes,
                     state_offsets, other_processes,
                     current + GPW * W + 32 * W + CACHE * W + 32 * FRONTIER_BITS};
    unsigned* stage = current + GPW * W;
#if CACHE > 0
    unsigned* cache = stage + 32 * W;
    for (unsigned i = lane; i < CACHE * W; i += 32) cache[i] = EMPTY_WORD;
    __syncwarp();
#endif
#if FRONTIER_BITS
    unsigned* claimed = stage + 32 * W + CACHE * W;
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
        unsigned* queue_in = (level & 1) ? queue1 : queue0;
        unsigned* queue_out = (level & 1) ? queue0 : queue1;
        // Per-warp tallies, flushed once per level (lane 0 holds them).
        unsigned long long new_states = 0, transitions = 0, blocked = 0, expanded = 0;
        Chunks chunks = {&stats[ST_CURSOR + cur], global_warp, total_warps};
#if FRONTIER_BITS
        // The warp claims MARK_CHUNK bitmap words at a time and reads them
        // 32 at a time, a word a lane: `marks` holds this lane's marks not
        // yet listed. Marked slots are listed in `claimed` until it holds
        // 32 (a frontier is sparse in the table: a window of 1024 slots
        // often has none or one), then expanded GPW at a time.
        unsigned marks = 0;
        unsigned long long mark_word = 0, next_word = 0, chunk_end = 0;
        unsigned listed = 0, taken = 0;
        bool drained = false;
#endif
        for (;;) {
            // Warp-uniform, so that the whole warp leaves together.
            if (__any_sync(FULL_MASK, vstats[ST_STOP] != 0)) break;
#if FRONTIER_BITS
            if (taken >= listed) {
                listed = taken = 0;
                while (listed < 32 && !drained) {
                    if (!__any_sync(FULL_MASK, marks != 0)) {
                        if (next_word >= chunk_end) {
                            const unsigned long long base = next_chunk(chunks, MARK_CHUNK, lane);
                            if (base >= length) {
                                drained = true;
                                break;
                            }
                            next_word = base;
                            chunk_end = base + MARK_CHUNK < length ? base + MARK_CHUNK : length;
                        }
                        // L1 is not coherent: the marks were set by atomics in L2.
                        mark_word = next_word + lane;
                        next_word += 32;
                        marks = mark_word < chunk_end ? __ldcg(queue_in + mark_word) : 0;
                        // Cleared for the level after next, which marks this bitmap again.
                        if (marks) __stcg(queue_in + mark_word, 0u);
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
                        claimed[at] = (unsigned)(mark_word * 32 + __ffs(marks) - 1);
                        marks &= marks - 1;
                    }
                    listed = listed + total < 32 ? listed + total : 32;
                }
                __syncwarp();
                if (listed == 0) break;
            }
            const unsigned index = taken + group;
            const bool active = index < listed;
            const unsigned my_slot = active ? claimed[index] : NO_SLOT;
            taken += GPW;
#else
            const unsigned long long base = next_chunk(chunks, GPW, lane);
            if (base >= length) break;
            const unsigned long long index = base + group;
            const bool active = index < length;
            // L1 is not coherent: this buffer was read two levels ago on this SM.
            const unsigned my_slot = active ? __ldcg(queue_in + index) : NO_SLOT;
#endif
            unsigned* vec = current + group * W;
            if (active) {
                const unsigned* stored = table + (unsigned long long)(my_slot / SPB) * BUCKET_WORDS + (my_slot % SPB) * S;
                for (unsigned i = group_lane; i < W; i += G) vec[i] = __ldcg(stored + i);
            }
            __syncwarp();
            Generator gen;
            generator_start<(SYNC_BUFFERS != 0)>(gen, net, vec, active ? group_lane : net.processes);
            unsigned successors = 0, monitor_blocked = 0;
            bool more = active;
            for (;;) {
                bool error = false;
                unsigned no_label;
                bool has = more && generator_next<false, (SYNC_BUFFERS != 0)>(gen, net, vec, stage + lane * W, error, monitor_blocked,
                                                                  no_label);
                more = has;
                // Each lane hashes its own successor: in parallel, once.
                const unsigned long long my_hash = has ? hash_vector(stage + lane * W) : 0;
                successors += has;
                unsigned pending = __ballot_sync(FULL_MASK, has);
                if (!pending) break;
#if CACHE > 0
                // Drop successors found in this warp's cache (read-only in
                // this phase: it is written below, after a __syncwarp).
                const unsigned line = (unsigned)(my_hash >> 40) % CACHE;
                unsigned* cached = cache + line * W;
                bool cached_already = has;
                for (int i = 0; i < W && cached_already; ++i) cached_already = cached[i] == stage[lane * W + i];
                pending &= ~__ballot_sync(FULL_MASK, cached_already);
#endif
                __syncwarp(); // the staged successors are read by other lanes below
                // Insert the pending successors, NIG at a time: insertion
                // group g takes the g-th pending lane's successor.
                const unsigned group_mask = (IG == 32 ? FULL_MASK : ((1u << IG) - 1)) << (lane / IG * IG);
                int my_outcome = INS_KNOWN;
                unsigned my_inserted_slot = NO_SLOT;
                while (pending) {
                    unsigned rest = pending;
                    for (unsigned g = 0; g < lane / IG; ++g) rest &= rest - 1;
                    const bool inserting = rest != 0;
                    const unsigned src = inserting ? __ffs(rest) - 1 : lane;
                    unsigned batch = 0;
                    for (unsigned g = 0, r = pending; g < NIG && r; ++g, r &= r - 1) batch |= r & (0u - r);
                    pending &= ~batch;
                    const unsigned parent = __shfl_sync(FULL_MASK, my_slot, src);
                    const unsigned long long hash = __shfl_sync(FULL_MASK, my_hash, src);
                    unsigned slot = NO_SLOT;
                    int outcome = INS_KNOWN;
                    if (inserting)
                        outcome = table_insert(table, buckets, stage + src * W, hash, TRACE ? parent : NO_SLOT, slot,
                                               group_mask);
                    __syncwarp();
                    // Back to the successor's own lane: lane `src` of rank r
                    // in the batch reads insertion group r's first lane.
                    const unsigned rank = __popc(batch & ((1u << lane) - 1));
                    const unsigned from = ((batch >> lane) & 1) ? rank * IG : lane;
                    outcome = __shfl_sync(FULL_MASK, outcome, from);
                    slot = __shfl_sync(FULL_MASK, slot, from);
                    if ((batch >> lane) & 1) {
                        my_outcome = outcome;
                        my_inserted_slot = slot;
                    }
                }
                const unsigned inserted = __ballot_sync(FULL_MASK, has && my_outcome == INS_NEW);
                if (__any_sync(FULL_MASK, has && my_outcome == INS_FULL) && lane == 0)
                    atomicMax(&stats[ST_STOP], STOP_TABLE_FULL);
                new_states += __popc(inserted);
#if CACHE > 0
                // Remember what was stored or found; of lanes sharing a cache
                // line, the highest writes it.
                const bool remember = has && my_outcome != INS_FULL;
                const unsigned peers = __match_any_sync(FULL_MASK, remember ? line : CACHE + lane);
                __syncwarp();
                if (remember && lane == 31 - __clz(peers))
                    for (int i = 0; i < W; ++i) cached[i] = stage[lane * W + i];
                __syncwarp();
#endif
                const bool is_new = (inserted >> lane) & 1;
                if (is_new && error) {
                    atomicAdd(&stats[ST_ERRORS], 1ull);
                    record_finding(stats, options, 2, my_inserted_slot, first_error_is_fatal(net, stage + lane * W));
                }
                const unsigned enqueue = __ballot_sync(FULL_MASK, is_new && !error);
                // Publish this round's new states to the next frontier (at most 32).
#if FRONTIER_BITS
                if (enqueue) {
                    if (lane == 0) atomicAdd(&stats[ST_LEN + next], (unsigned long long)__popc(enqueue));
                    if ((enqueue >> lane) & 1) atomicOr(queue_out + (my_inserted_slot >> 5), 1u << (my_inserted_slot & 31));
                }
#else
                if (enqueue) {
                    unsigned long long at = 0;
                    if (lane == 0) at = atomicAdd(&stats[ST_LEN + next], (unsigned long long)__popc(enqueue));
                    at = __shfl_sync(FULL_MASK, at, 0);
                    if ((enqueue >> lane) & 1) {
                        at += __popc(enqueue & ((1u << lane) - 1));
                        if (at < queue_capacity) queue_out[at] = my_inserted_slot;
                        else atomicMax(&stats[ST_STOP], STOP_QUEUE_FULL);
                    }
                }
#endif
                __syncwarp();
            }
            // Per-state successor count over the group: zero means deadlock.
            unsigned state_successors = successors;
            for (unsigned o = G / 2; o > 0; o >>= 1) state_successors += __shfl_xor_sync(FULL_MASK, state_successors, o);
            if ((options & OPT_CHECK_DEADLOCK) && active && group_lane == 0 && state_successors == 0) {
                atomicAdd(&stats[ST_DEADLOCKS], 1ull);
                record_finding(stats, options, 1, my_slot, false);
            }
            unsigned warp_successors = successors, warp_blocked = monitor_blocked;
            for (unsigned o = 16; o > 0; o >>= 1) {
                warp_successors += __shfl_xor_sync(FULL_MASK, warp_successors, o);
                warp_blocked += __shfl_xor_sync(FULL_MASK, warp_blocked, o);
            }
            transitions += warp_successors;
            blocked += warp_blocked;
            expanded += __popc(__ballot_sync(FULL_MASK, active && group_lane == 0));
            __syncwarp();
        }
        if (lane == 0) {
            if (new_states) atomicAdd(&stats[ST_STATES], new_states);
            if (transitions) atomicAdd(&stats[ST_TRANSITIONS], transitions);
            if (blocked) atomicAdd(&stats[ST_MONITOR_BLOCKED], blocked);
            if (expanded) atomicAdd(&stats[ST_EXPANDED], expanded);
        }
        grid_barrier(stats, next, level, max_states);
        if (vstats[ST_DECISION] != 0) break;
    }
}

// ---- State-space export: read-only passes over the final table ----

// Word offset of slot `slot` in the table.
__device__ __forceinline__ unsigned long long slot_offset(unsigned long long slot) {
    return (slot / SPB) * BUCKET_WORDS + (slot % SPB) * S;
}

// Bit j of bitmap[i]: whether slot 32 i + j holds a vector. After a
// complete search no slot is being written, so heads are final.
extern "C" __global__ void occupied_slots(const unsigned* table, unsigned long long slots, unsigned* bitmap) {
    const unsigned long long words = (slots + 31) / 32;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < words;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned bits = 0;
        for (unsigned j = 0; j < 32 && 32 * i + j < slots; ++j)
            if (table[slot_offset(32 * i + j)] != EMPTY_WORD) bits |= 1u << j;
        bitmap[i] = bits;
    }
}

// The slot holding `vec` (hash `h`), or NO_SLOT: a look-up along the
// insertion's probe sequence in a table that no longer changes. Insertion
// fills a bucket's slots before moving on, so a bucket with an empty slot
// ends the sequence.
__device__ unsigned table_find(const unsigned* table, unsigned long long buckets, const unsigned* vec,
                               unsigned long long h) {
    unsigned long long b, step;
    probe_start(h, buckets, b, step);
    for (int probe = 0; probe < MAX_PROBES; ++probe) {
        const unsigned* bucket = table + b * BUCKET_WORDS;
        bool empty = false;
        for (unsigned s = 0; s < SPB; ++s) {
            const unsigned* slot = bucket + s * S;
            if (slot[0] == EMPTY_WORD) {
                empty = true;
                continue;
            }
            bool same = true;
            for (int i = 0; i < W && same; ++i) same = slot[i] == vec[i];
            if (same) return (unsigned)(b * SPB + s);
        }
        if (empty) return NO_SLOT;
        probe_next(b, step, buckets);
    }
    return NO_SLOT;
}

// Expands the stored states of slots [first, end) again, G lanes a state
// (each lane its processes, as in the search), and appends every
// transition as (source slot, label word, target slot) to `edges`.
// counters[0]: edges appended (may pass `capacity`: the host then retries
// a smaller range); counters[1]: successors not found in the table.
// Error states are not expanded, as in the search.
extern "C" __global__ void export_edges(RoU4 fields, RoU32 proc_offsets, RoU32 item_offsets, RoU4 items, RoU32 trans,
                                        RoU4 others, RoU2 lookup, const unsigned* __restrict__ error_locals,
                                        unsigned errors, unsigned processes, const unsigned* table,
                                        unsigned long long buckets, unsigned long long first, unsigned long long end,
                                        unsigned* edges, unsigned long long capacity, unsigned long long* counters) {
    const Net net = {fields, proc_offsets, item_offsets, items,   trans,  others, lookup,
                     error_locals, errors, processes, nullptr, nullptr, nullptr};
    const unsigned long long thread = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned group_lane = thread % G;
    const unsigned long long groups = (unsigned long long)gridDim.x * blockDim.x / G;
    unsigned vec[W], out[W];
    for (unsigned long long slot = first + thread / G; slot < end; slot += groups) {
        const unsigned* stored = table + slot_offset(slot);
        if (stored[0] == EMPTY_WORD) continue;
        for (int i = 0; i < W; ++i) vec[i] = stored[i];
        if (first_error(net, vec) < net.errors) continue;
        Generator gen;
        generator_start<false>(gen, net, vec, group_lane);
        bool error;
        unsigned blocked = 0, label = 0;
        while (generator_next<true, false>(gen, net, vec, out, error, blocked, label)) {
            const unsigned target = table_find(table, buckets, out, hash_vector(out));
            if (target == NO_SLOT) {
                atomicAdd(&counters[1], 1ull);
                continue;
            }
            const unsigned long long at = atomicAdd(&counters[0], 1ull);
            if (at < capacity) {
                edges[3 * at] = (unsigned)slot;
                edges[3 * at + 1] = label;
                edges[3 * at + 2] = target;
            }
        }
    }
}
