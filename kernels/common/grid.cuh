// Grid-stride loops: each thread's index in the grid and the grid's size.
#pragma once

__device__ __forceinline__ unsigned long long grid_thread() {
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ unsigned long long grid_threads() { return (unsigned long long)gridDim.x * blockDim.x; }

// Runs the waves of a propagation in this one block while they stay short
// (at most max_wave items), so that a long thin chain costs no launch and
// no host round trip a wave: wave w reads lists[w % 2] ({first, second},
// the first wave `length0` items of `first`), and step(item, out, &length)
// appends the next wave's items to the other list. Stops at an empty wave
// or a long one, or after max_waves waves; thread 0 then writes the
// pending wave's length to *pending and the waves run to *waves (odd: the
// pending wave is in `second`). Every thread of the block calls it.
template <typename Step>
__device__ void short_waves_in_block(unsigned* first, unsigned* second, unsigned long long length0,
                                     unsigned long long max_wave, unsigned long long max_waves,
                                     unsigned long long* pending, unsigned long long* waves_run,
                                     Step step) {
    __shared__ unsigned long long length, next_length;
    unsigned* lists[2] = {first, second};
    if (threadIdx.x == 0) {
        length = length0;
        next_length = 0;
    }
    __syncthreads();
    unsigned long long waves = 0;
    while (length > 0 && length <= max_wave && waves < max_waves) {
        const unsigned* in = lists[waves & 1];
        unsigned* out = lists[(waves + 1) & 1];
        for (unsigned long long i = threadIdx.x; i < length; i += blockDim.x) step(in[i], out, &next_length);
        __syncthreads();
        if (threadIdx.x == 0) {
            length = next_length;
            next_length = 0;
        }
        ++waves;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *pending = length;
        *waves_run = waves;
    }
}

// The free entry of a work list's queue.
#define WORK_EMPTY 0xffffffffu
// Items a thread appends at once (one atomic on the appended count).
#define WORK_BATCH 4

// A work list drained without waves (drain_work_list): `queue` holds the
// *appended items appended so far and WORK_EMPTY beyond them, up to a
// capacity that bounds every item ever appended; *taken counts the tickets
// threads took, *finished the items handled and counted, *continued the
// items a thread handled itself right after the item that made them,
// never appended. Before the drain the host zeroes *taken, *finished and
// *continued. The counters should lie in different 128-byte lines: every
// item takes a ticket and is appended by an atomic on its line.
struct WorkList {
    unsigned* queue;
    unsigned long long* appended;
    unsigned long long* taken;
    unsigned long long* finished;
    unsigned long long* continued;
};

// A thread's new items: the first since the last take() stays with the
// thread (a chain goes on in one thread, with no hand-over through the
// queue a step), the others are appended to the work list WORK_BATCH at
// a time.
struct WorkAppender {
    const WorkList& list;
    unsigned items[WORK_BATCH];
    unsigned count = 0;
    unsigned next = WORK_EMPTY;

    __device__ explicit WorkAppender(const WorkList& to) : list(to) {}

    // Adds `item` (never WORK_EMPTY): kept for take(), or appended, perhaps
    // later: by flush() at the latest.
    __device__ void push(unsigned item) {
        if (next == WORK_EMPTY) {
            next = item;
            return;
        }
        items[count++] = item;
        if (count == WORK_BATCH) flush();
    }

    // The kept item (WORK_EMPTY if none), no longer kept.
    __device__ unsigned take() {
        const unsigned item = next;
        next = WORK_EMPTY;
        return item;
    }

    __device__ void flush() {
        if (count == 0) return;
        const unsigned long long at = atomicAdd(list.appended, (unsigned long long)count);
        for (unsigned i = 0; i < count; ++i) atomicExch(list.queue + at + i, items[i]);
        count = 0;
    }
};

// Handles every item of `list` and every item the handling adds, with
// step(item, appender): each thread takes tickets (queue positions) one at
// a time and waits until its position is filled, or until every appended
// item has been handled, when no more can come. The first item a step
// adds is handled next by the same thread, the others are appended (and
// flushed after each step). A long chain of items, each added by the
// handling of the one before, thus costs no barrier, launch, host round
// trip or queue hand-over a step, as waves would (short_waves_in_block is
// faster where each item is light, as the MEC's deaths are). A thread
// counts its ticket's item in *finished only once the chain it started
// is done and before it waits beyond the appended items, so that the
// count is exact whenever anyone can find the list done; the items it
// went on with go to *continued when it leaves. Every thread of the grid
// calls it; the grid need not be resident at once (a waiting thread holds
// only its own ticket, and the item at the least unhandled position is
// always there or being written, appended by the handling of an earlier
// one).
template <typename Step>
__device__ void drain_work_list(const WorkList& list, Step step) {
    const volatile unsigned* queue = list.queue;
    const volatile unsigned long long* appended = list.appended;
    const volatile unsigned long long* finished = list.finished;
    WorkAppender appender(list);
    unsigned long long uncounted = 0, continued = 0;
    for (;;) {
        const unsigned long long ticket = atomicAdd(list.taken, 1ull);
        unsigned item = WORK_EMPTY;
        for (;;) {
            const unsigned long long count = *appended;
            if (ticket < count) {
                item = queue[ticket];
                if (item != WORK_EMPTY) break;
                continue;  // being written
            }
            if (uncounted > 0) {
                __threadfence();
                atomicAdd(list.finished, uncounted);
                uncounted = 0;
            }
            // Handled, then appended: when the two agree, every item
            // appended had been handled, and no handler was left to append.
            const unsigned long long handled = *finished;
            __threadfence();
            const unsigned long long now = *appended;
            if (ticket >= now && handled == now) {
                if (continued > 0) atomicAdd(list.continued, continued);
                return;
            }
            // The next in line look often (a chain's next step waits on
            // them), those far behind seldom, to leave the counters' lines
            // to the others.
            const unsigned long long ahead = ticket >= now ? ticket - now : 0;
            __nanosleep(ahead < 32 ? 32 : ahead < 1024 ? 512 : 4096);
        }
        for (; item != WORK_EMPTY; item = appender.take()) {
            step(item, appender);
            appender.flush();
            ++continued;
        }
        --continued;  // the ticket's item
        ++uncounted;
    }
}
