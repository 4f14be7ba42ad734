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
//   MAXP          bound on the participants of any rule (at least 1)
//   TRACE         1: store the predecessor slot after the vector
//   CACHE         entries of each warp's cache of inserted vectors (0: off)
//   CLAIM         1: warps claim frontier chunks dynamically (work claiming)
//   USE_LDG       1: read the encoded network through the read-only path
//   MAX_PROBES    buckets tried before the table counts as full
//   WARPS         warps per block

#define FULL_MASK 0xffffffffu
#define EMPTY_WORD 0xffffffffu
#define BUSY_BIT 0x80000000u
#define TAG_MASK 0x3fffffffu
#define NO_SLOT 0xffffffffu
#define INDEPENDENT 0x80000000u
#define ERROR_TARGET 0x80000000u
#define GPW (32 / G)
#define BUCKET_WORDS (32 * LINES)

#if USE_LDG
#define RO(p) __ldg(&(p))
#else
#define RO(p) (p)
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
    const unsigned* __restrict__ fields;       // word, shift, mask per process
    const unsigned* __restrict__ proc_offsets;
    const unsigned* __restrict__ state_offsets;
    const unsigned* __restrict__ trans;        // [label word, target word] pairs
    const unsigned* __restrict__ rule_offsets;
    const unsigned* __restrict__ rule_parts;
    const unsigned* __restrict__ error_locals; // process, state, fatal per error state
    unsigned errors;
    unsigned processes;
    int monitor;                               // property monitor process, or -1
};

__device__ __forceinline__ unsigned get_local(const Net& net, const unsigned* vec, unsigned p) {
    unsigned w = RO(net.fields[3 * p]), sh = RO(net.fields[3 * p + 1]), m = RO(net.fields[3 * p + 2]);
    return (vec[w] >> sh) & m;
}

__device__ __forceinline__ void set_local(const Net& net, unsigned* vec, unsigned p, unsigned value) {
    unsigned w = RO(net.fields[3 * p]), sh = RO(net.fields[3 * p + 1]), m = RO(net.fields[3 * p + 2]);
    vec[w] = (vec[w] & ~(m << sh)) | ((value & m) << sh);
}

__device__ __forceinline__ void entry_range(const Net& net, unsigned p, unsigned local, unsigned& lo, unsigned& hi) {
    unsigned at = RO(net.proc_offsets[p]) + local;
    lo = RO(net.state_offsets[at]);
    hi = RO(net.state_offsets[at + 1]);
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
struct Generator {
    unsigned process, k, end, group_end;
    unsigned rule_base, parts;
    bool combining;
    unsigned lo[MAXP], hi[MAXP], choice[MAXP];
};

__device__ __forceinline__ void generator_start(Generator& g, const Net& net, const unsigned* vec, unsigned first) {
    g.process = first;
    g.combining = false;
    g.k = g.end = 0;
    if (first < net.processes) entry_range(net, first, get_local(net, vec, first), g.k, g.end);
}

// Writes the next successor of `vec` into `out`; false when there is none.
__device__ bool generator_next(Generator& g, const Net& net, const unsigned* vec, unsigned* out,
                               bool& error, unsigned& monitor_blocked) {
    while (g.process < net.processes) {
        if (g.combining) {
            for (int i = 0; i < W; ++i) out[i] = vec[i];
            error = false;
            for (unsigned i = 0; i < g.parts; ++i) {
                unsigned q = RO(net.rule_parts[g.rule_base + i]);
                unsigned target = RO(net.trans[2 * g.choice[i] + 1]);
                error |= (target & ERROR_TARGET) != 0;
                set_local(net, out, q, target & ~ERROR_TARGET);
            }
            int i = (int)g.parts - 1;
            for (; i >= 0; --i) {
                if (++g.choice[i] < g.hi[i]) break;
                g.choice[i] = g.lo[i];
            }
            if (i < 0) {
                g.combining = false;
                g.k = g.group_end;
            }
            return true;
        }
        if (g.k < g.end) {
            unsigned label = RO(net.trans[2 * g.k]);
            if (label & INDEPENDENT) {
                unsigned target = RO(net.trans[2 * g.k + 1]);
                for (int i = 0; i < W; ++i) out[i] = vec[i];
                set_local(net, out, g.process, target & ~ERROR_TARGET);
                error = (target & ERROR_TARGET) != 0;
                ++g.k;
                return true;
            }
            unsigned group_end = g.k + 1;
            while (group_end < g.end && RO(net.trans[2 * group_end]) == label) ++group_end;
            unsigned base = RO(net.rule_offsets[label]);
            unsigned parts = RO(net.rule_offsets[label + 1]) - base;
            if (RO(net.rule_parts[base]) != g.process) {
                g.k = group_end;
                continue;
            }
            g.lo[0] = g.k;
            g.hi[0] = group_end;
            bool enabled = true, monitor_missing = false;
            for (unsigned i = 1; i < parts && enabled; ++i) {
                unsigned q = RO(net.rule_parts[base + i]);
                unsigned a, b;
                entry_range(net, q, get_local(net, vec, q), a, b);
                // lower bound of `label` among q's label words, then upper bound
                unsigned x = a, y = b;
                while (x < y) {
                    unsigned mid = (x + y) >> 1;
                    if (RO(net.trans[2 * mid]) < label) x = mid + 1; else y = mid;
                }
                unsigned first = x;
                y = b;
                while (x < y) {
                    unsigned mid = (x + y) >> 1;
                    if (RO(net.trans[2 * mid]) <= label) x = mid + 1; else y = mid;
                }
                if (first == x) {
                    if ((int)q == net.monitor) monitor_missing = true;
                    else enabled = false;
                } else {
                    g.lo[i] = first;
                    g.hi[i] = x;
                }
            }
            if (!enabled || monitor_missing) {
                if (enabled) ++monitor_blocked;
                g.k = group_end;
                continue;
            }
            g.group_end = group_end;
            g.rule_base = base;
            g.parts = parts;
            for (unsigned i = 0; i < parts; ++i) g.choice[i] = g.lo[i];
            g.combining = true;
            continue;
        }
        g.process += G;
        if (g.process < net.processes) entry_range(net, g.process, get_local(net, vec, g.process), g.k, g.end);
    }
    return false;
}

// Search option bits of the kernel's `options` argument.
#define OPT_CHECK_DEADLOCK 1u
#define OPT_KEEP_GOING 2u

// Whether the first error state in `vec` (in the order of the encoding's
// error list, as the host reports it) ends the search even with --all.
__device__ bool first_error_is_fatal(const Net& net, const unsigned* vec) {
    for (unsigned i = 0; i < net.errors; ++i) {
        unsigned p = RO(net.error_locals[3 * i]);
        if (get_local(net, vec, p) == RO(net.error_locals[3 * i + 1])) return RO(net.error_locals[3 * i + 2]) != 0;
    }
    return false;
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

// Warp-cooperative find-or-insert of `vec` (in shared memory, same for all
// lanes; `h` its hash) into the global table. Returns INS_NEW with *slot_out set when this
// warp stored it. Must be called by the whole warp.
__device__ int table_insert(unsigned* table, unsigned long long buckets, const unsigned* vec,
                            unsigned long long h, unsigned parent, unsigned& slot_out) {
    const unsigned lane = threadIdx.x & 31;
    unsigned long long b = __umul64hi(h, buckets);
    const unsigned long long step = buckets > 1 ? 1 + __umul64hi(h * 0xD6E8FEB86659FD93ull, buckets - 1) : 1;
    const unsigned head = vec[0];
#if LINES == 1
    const bool in_slot = lane < SPB * S;
    const unsigned off = lane % S;
    const bool is_head = in_slot && off == 0;
    const unsigned my_want = (in_slot && off < W) ? vec[off] : 0;
    const unsigned vector_mask = W >= 32 ? FULL_MASK : ((1u << W) - 1);
#endif
    for (int probe = 0; probe < MAX_PROBES; ++probe) {
        unsigned* bucket = table + b * BUCKET_WORDS;
#if LINES == 1
        // Heads (lane bits) seen published and equal to ours before a fence:
        // every later read of their slots sees the final words.
        unsigned trusted = 0;
#endif
        for (;;) {
#if LINES == 1
            const unsigned word = in_slot ? __ldcg(bucket + lane) : 0;
            const unsigned mismatch = __ballot_sync(FULL_MASK, in_slot && off < W && word != my_want);
            const unsigned empty = __ballot_sync(FULL_MASK, is_head && word == EMPTY_WORD);
            const unsigned busy = __ballot_sync(FULL_MASK, is_head && word != EMPTY_WORD && (word & BUSY_BIT) &&
                                                               (word & TAG_MASK) == (head & TAG_MASK));
            if (W > 1) {
                // Words 1.. of a slot go from EMPTY to their final value once,
                // before the head is published. A published head equal to ours
                // whose other words read EMPTY may have been read before those
                // writes: fence (acquire) and read again before deciding.
                const unsigned blank = __ballot_sync(FULL_MASK, in_slot && off > 0 && off < W && word == EMPTY_WORD);
                const unsigned same_head = __ballot_sync(FULL_MASK, is_head && word == head);
                const unsigned doubtful = __ballot_sync(FULL_MASK, is_head && word == head && ((blank >> lane) & vector_mask) != 0);
                if (doubtful & ~trusted) {
                    trusted |= same_head;
                    __threadfence();
                    continue;
                }
            }
            const unsigned match = __ballot_sync(FULL_MASK, is_head && word == head && ((mismatch >> lane) & vector_mask) == 0);
            if (match) return INS_KNOWN;
            if (busy) {
                __nanosleep(20);
                continue;
            }
            if (!empty) break;
            const unsigned at = __ffs(empty) - 1;
            unsigned won = 0;
            if (lane == at) {
                unsigned claim = W == 1 ? head : (BUSY_BIT | (head & TAG_MASK));
                won = atomicCAS(bucket + at, EMPTY_WORD, claim) == EMPTY_WORD;
            }
            won = __shfl_sync(FULL_MASK, won, at);
            if (!won) continue;
            if (lane > at && lane < at + S) {
                unsigned i = lane - at;
                bucket[lane] = i < W ? vec[i] : parent;
            }
            if (W > 1) {
                __threadfence();
                __syncwarp();
                if (lane == at) {
                    __threadfence();
                    atomicExch(bucket + at, head);
                }
            }
            slot_out = (unsigned)(b * SPB + at / S);
            return INS_NEW;
#else
            // Buckets of several lines hold one slot each.
            unsigned first = __shfl_sync(FULL_MASK, lane == 0 ? __ldcg(bucket) : 0, 0);
            if (first == EMPTY_WORD) {
                unsigned won = 0;
                if (lane == 0) won = atomicCAS(bucket, EMPTY_WORD, BUSY_BIT | (head & TAG_MASK)) == EMPTY_WORD;
                won = __shfl_sync(FULL_MASK, won, 0);
                if (!won) continue;
                for (unsigned i = lane; i < S; i += 32)
                    if (i > 0) bucket[i] = i < W ? vec[i] : parent;
                __threadfence();
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
            __threadfence(); // acquire: the published head orders the words after it
            bool differs = false;
            for (unsigned i = lane; i < W; i += 32) differs |= __ldcg(bucket + i) != vec[i];
            if (!__any_sync(FULL_MASK, differs)) return INS_KNOWN;
            break;
#endif
        }
        b += step;
        if (b >= buckets) b -= buckets;
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

extern "C" __global__ void __launch_bounds__(WARPS * 32)
explore_levels(const unsigned* __restrict__ fields, const unsigned* __restrict__ proc_offsets,
               const unsigned* __restrict__ state_offsets, const unsigned* __restrict__ trans,
               const unsigned* __restrict__ rule_offsets, const unsigned* __restrict__ rule_parts,
               unsigned* table, unsigned long long buckets, unsigned* queue0, unsigned* queue1,
               unsigned long long queue_capacity, unsigned long long* stats, unsigned first_level,
               unsigned levels, unsigned long long max_states, const unsigned* __restrict__ error_locals,
               unsigned errors, unsigned processes, int monitor, unsigned options) {
    extern __shared__ unsigned shared[];
    const Net net = {fields,       proc_offsets, state_offsets, trans,    rule_offsets,
                     rule_parts,   error_locals, errors,        processes, monitor};
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    const unsigned group = lane / G;
    const unsigned group_lane = lane % G;
    // Per warp: the vectors being expanded, one staged successor per lane, the cache.
    unsigned* current = shared + warp * (GPW * W + 32 * W + CACHE * W);
    unsigned* stage = current + GPW * W;
#if CACHE > 0
    unsigned* cache = stage + 32 * W;
    for (unsigned i = lane; i < CACHE * W; i += 32) cache[i] = EMPTY_WORD;
    __syncwarp();
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
        const unsigned long long length = vstats[ST_LEN + cur];
        const unsigned* queue_in = (level & 1) ? queue1 : queue0;
        unsigned* queue_out = (level & 1) ? queue0 : queue1;
        // Per-warp tallies, flushed once per level (lane 0 holds them).
        unsigned long long new_states = 0, transitions = 0, blocked = 0, expanded = 0;
        unsigned long long chunk = global_warp;
        for (;;) {
            if (vstats[ST_STOP] != 0) break;
            unsigned long long base;
#if CLAIM
            (void)chunk;
            (void)total_warps;
            if (lane == 0) base = atomicAdd(&stats[ST_CURSOR + cur], (unsigned long long)GPW);
            base = __shfl_sync(FULL_MASK, base, 0);
#else
            base = chunk * GPW;
            chunk += total_warps;
#endif
            if (base >= length) break;
            const unsigned long long index = base + group;
            const bool active = index < length;
            // L1 is not coherent: this buffer was read two levels ago on this SM.
            const unsigned my_slot = active ? __ldcg(queue_in + index) : NO_SLOT;
            unsigned* vec = current + group * W;
            if (active) {
                const unsigned* stored = table + (unsigned long long)(my_slot / SPB) * BUCKET_WORDS + (my_slot % SPB) * S;
                for (unsigned i = group_lane; i < W; i += G) vec[i] = __ldcg(stored + i);
            }
            __syncwarp();
            Generator gen;
            generator_start(gen, net, vec, active ? group_lane : net.processes);
            unsigned successors = 0, monitor_blocked = 0;
            bool more = active;
            unsigned my_new_slot = NO_SLOT, new_count = 0;
            for (;;) {
                bool error = false;
                bool has = more && generator_next(gen, net, vec, stage + lane * W, error, monitor_blocked);
                more = has;
                // Each lane hashes its own successor: in parallel, once.
                const unsigned long long my_hash = has ? hash_vector(stage + lane * W) : 0;
                successors += has;
                unsigned pending = __ballot_sync(FULL_MASK, has);
                if (!pending) break;
                const unsigned errors = __ballot_sync(FULL_MASK, error && has);
                __syncwarp();
                while (pending) {
                    const unsigned src = __ffs(pending) - 1;
                    pending &= pending - 1;
                    const unsigned parent = __shfl_sync(FULL_MASK, my_slot, src);
                    const unsigned* candidate = stage + src * W;
                    const unsigned long long hash = __shfl_sync(FULL_MASK, my_hash, src);
#if CACHE > 0
                    const unsigned line = (unsigned)(hash >> 40) % CACHE;
                    unsigned* cached = cache + line * W;
                    bool differs = false;
                    for (unsigned i = lane; i < W; i += 32) differs |= cached[i] != candidate[i];
                    if (!__any_sync(FULL_MASK, differs)) continue;
#endif
                    unsigned slot = NO_SLOT;
                    const int outcome = table_insert(table, buckets, candidate, hash, TRACE ? parent : NO_SLOT, slot);
                    if (outcome == INS_FULL) {
                        if (lane == 0) atomicMax(&stats[ST_STOP], STOP_TABLE_FULL);
                        continue;
                    }
#if CACHE > 0
                    __syncwarp();
                    for (unsigned i = lane; i < W; i += 32) cached[i] = candidate[i];
                    __syncwarp();
#endif
                    if (outcome == INS_NEW) {
                        ++new_states;
                        if ((errors >> src) & 1) {
                            if (lane == 0) {
                                atomicAdd(&stats[ST_ERRORS], 1ull);
                                record_finding(stats, options, 2, slot, first_error_is_fatal(net, candidate));
                            }
                        } else {
                            if (lane == new_count) my_new_slot = slot;
                            ++new_count;
                        }
                    }
                }
                // Publish this round's new states to the next frontier (at most 32).
                if (new_count) {
                    unsigned long long at = 0;
                    if (lane == 0) at = atomicAdd(&stats[ST_LEN + next], (unsigned long long)new_count);
                    at = __shfl_sync(FULL_MASK, at, 0);
                    if (lane < new_count) {
                        if (at + lane < queue_capacity) queue_out[at + lane] = my_new_slot;
                        else atomicMax(&stats[ST_STOP], STOP_QUEUE_FULL);
                    }
                    new_count = 0;
                    my_new_slot = NO_SLOT;
                }
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
