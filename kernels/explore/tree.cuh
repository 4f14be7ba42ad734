// Tree storage of state vectors (TREE, after Laarman, van de Pol and
// Weber's tree compression): the table (table.cuh) keeps a root pair of two
// words per state, its word 0 and the tree value of its words 1..; the tree
// value of one word is the word, and of more words the index of a node, a
// pair of tree values, in the node table. The words 1.. are the leaves of a
// complete binary tree of TREE_LEAVES leaves (a power of two) laid out as a
// heap: node k has children 2k and 2k + 1, leaf i is node TREE_LEAVES + i.
// Leaves beyond the words are absent; a node whose right half is absent
// carries its left child's value up unpaired. Every vector that has the same
// words below a node shares it, so a state costs its root and the nodes
// nobody else had. Word 0 heads the root as it heads a plain vector: its top
// bit stays free for the table's busy flag.
//
// The node table: generations of buckets of NODE_BUCKET 64-bit entries
// (low word: the left value, high word: the right one), probed as the table
// is from the pair's hash, each bucket from an entry the hash picks. A
// node's index never changes, because roots and other nodes name it: the
// table grows by adding a generation whose indices follow those before it
// (the host adds one between launches). A pair is
// looked up in the older generations, oldest first, and stored only in the
// newest, so no pair is stored twice. One 64-bit compare-and-swap claims
// and publishes an entry, so no reader sees half a node and no lock is
// needed. All ones is an empty entry; the pair of two all-ones values is
// never stored: its index is ALL_ONES_NODE, which no entry has (the host
// keeps the generations below 2^32 - 1 entries together).
//
// Macros from the host (src/explore/gpu/kernel.rs): VEC_WORDS, TREE_LEAVES,
// TREE_REFS (the values of nodes 1 .. TREE_LEAVES - 1 by heap index, kept
// per expanded state so that a successor reuses the nodes over the words
// it did not change; index 0 unused), and MAX_PROBES.
#pragma once

#include "explore/table.cuh"

#define TREE_WORDS (VEC_WORDS - 1)
#define NODE_BUCKET 16
#define NODE_EMPTY 0xffffffffffffffffull
#define ALL_ONES_NODE 0xffffffffu

static_assert(TREE_WORDS < 2 || (TREE_LEAVES >= TREE_WORDS && TREE_LEAVES < 2 * TREE_WORDS &&
                                   (TREE_LEAVES & (TREE_LEAVES - 1)) == 0),
              "TREE_LEAVES is the least power of two of at least the words under the root");
static_assert(TREE_REFS == (TREE_WORDS < 2 ? 0 : TREE_LEAVES), "TREE_REFS disagrees with the tree's shape");

#if TREE_WORDS >= 2
// Whether heap node `k` has a word below it: its leftmost leaf is one.
__device__ __forceinline__ bool tree_present(unsigned k) {
    const unsigned depth = 31 - __clz(k), leaves_depth = 31 - __clz((unsigned)TREE_LEAVES);
    return (k << (leaves_depth - depth)) - TREE_LEAVES < TREE_WORDS;
}
#endif

// The node table as a kernel sees it: `count` generations, three words
// each in `generations`: the address of its entries, its buckets, and the
// index of its first entry (the entries of the generations before it).
struct Nodes {
    const unsigned long long* generations;
    unsigned count;
};

__device__ __forceinline__ Nodes nodes_of(const unsigned long long* generations, unsigned long long count) {
    return Nodes{generations, (unsigned)count};
}

// The entry of node `index` (not ALL_ONES_NODE).
__device__ __forceinline__ const unsigned long long* node_entry(const Nodes& nodes, unsigned index) {
    unsigned g = nodes.count - 1;
    while (g > 0 && index < __ldg(nodes.generations + 3 * g + 2)) --g;
    const unsigned long long* generation = nodes.generations + 3 * g;
    return reinterpret_cast<const unsigned long long*>(__ldg(generation)) + (index - __ldg(generation + 2));
}

__device__ __forceinline__ unsigned long long node_hash(unsigned long long pair) {
    pair ^= pair >> 33;
    pair *= 0xFF51AFD7ED558CCDull;
    pair ^= pair >> 33;
    pair *= 0xC4CEB9FE1A85EC53ull;
    return pair ^ (pair >> 33);
}

// The index of node (left, right), stored if new (counted in `stored`);
// false when the probe sequence of the newest generation holds no room.
__device__ __noinline__ bool node_index(const Nodes& nodes, unsigned left, unsigned right, unsigned& index, unsigned& stored) {
    const unsigned long long pair = (unsigned long long)left | ((unsigned long long)right << 32);
    if (pair == NODE_EMPTY) {
        index = ALL_ONES_NODE;
        return true;
    }
    const unsigned long long hash = node_hash(pair);
    // Each pair scans the entries of a bucket from one of its hash's
    // choosing, not from the first, which the entries taken before it fill.
    const unsigned start = (unsigned)hash % NODE_BUCKET;
#pragma unroll 1
    for (unsigned g = 0; g < nodes.count; ++g) {
        const unsigned long long* generation = nodes.generations + 3 * g;
        unsigned long long* const entries = reinterpret_cast<unsigned long long*>(__ldg(generation));
        const unsigned long long buckets = __ldg(generation + 1), first = __ldg(generation + 2);
        // An older generation takes no pairs during a launch.
        const bool newest = g + 1 == nodes.count;
        bool absent = false;
        unsigned long long b, step;
        probe_start(hash, buckets, b, step);
#pragma unroll 1
        for (int probe = 0; probe < MAX_PROBES && !absent; ++probe) {
            unsigned long long* bucket = entries + b * NODE_BUCKET;
#pragma unroll 1
            for (unsigned k = 0; k < NODE_BUCKET; ++k) {
                const unsigned i = (start + k) % NODE_BUCKET;
                unsigned long long entry = newest ? __ldcg(bucket + i) : __ldg(bucket + i);
                if (entry == NODE_EMPTY) {
                    // A generation fills each probe sequence in order and
                    // never empties an entry: the pair is not in an older
                    // one, and the newest takes it here.
                    absent = !newest;
                    if (absent) break;
                    entry = atomicCAS(bucket + i, NODE_EMPTY, pair);
                    if (entry == NODE_EMPTY) {
                        ++stored;
                        index = (unsigned)(first + b * NODE_BUCKET + i);
                        return true;
                    }
                }
                if (entry == pair) {
                    index = (unsigned)(first + b * NODE_BUCKET + i);
                    return true;
                }
            }
            probe_next(b, step, buckets);
        }
    }
    return false;
}

// The root pair of `vec` into `key`, storing its new nodes. With `parent`
// (a vector and its refs, from tree_decode), the nodes over words equal to
// the parent's are the parent's, found without a look-up. False when the
// node table is full.
__device__ __noinline__ bool tree_root(const Nodes& nodes, const unsigned* vec, const unsigned* parent,
                                       const unsigned* parent_refs, unsigned* key, unsigned& stored) {
    key[0] = vec[0];
#if TREE_WORDS == 0
    key[1] = 0;
#elif TREE_WORDS == 1
    key[1] = vec[1];
#elif TREE_WORDS == 2
    // One node over words 1 and 2 (3-word vectors, common): no arrays,
    // which would take local memory.
    if (parent != nullptr && vec[1] == parent[1] && vec[2] == parent[2]) key[1] = parent_refs[1];
    else if (!node_index(nodes, vec[1], vec[2], key[1], stored)) return false;
#else
    // Each node's value and whether it differs from the parent's, by heap
    // index (leaves from TREE_LEAVES on).
    unsigned values[2 * TREE_LEAVES];
    bool changed[2 * TREE_LEAVES];
#pragma unroll 1
    for (unsigned i = 0; i < TREE_WORDS; ++i) {
        values[TREE_LEAVES + i] = vec[1 + i];
        changed[TREE_LEAVES + i] = parent == nullptr || vec[1 + i] != parent[1 + i];
    }
#pragma unroll 1
    for (unsigned k = TREE_LEAVES - 1; k >= 1; --k) {
        if (!tree_present(k)) continue;
        const unsigned left = 2 * k, right = 2 * k + 1;
        if (!tree_present(right)) {
            values[k] = values[left];
            changed[k] = changed[left];
            continue;
        }
        changed[k] = changed[left] || changed[right];
        if (!changed[k]) values[k] = parent_refs[k];
        else if (!node_index(nodes, values[left], values[right], values[k], stored)) return false;
    }
    key[1] = values[1];
#endif
    return true;
}

// The vector of root pair `key` into `vec`, and the values of its nodes
// into `refs` (TREE_REFS words).
__device__ __noinline__ void tree_decode(const Nodes& nodes, const unsigned* key, unsigned* vec, unsigned* refs) {
    vec[0] = key[0];
#if TREE_WORDS == 1
    vec[1] = key[1];
#elif TREE_WORDS == 2
    refs[1] = key[1];
    // Published by a compare-and-swap before the root that led here.
    const unsigned long long pair = key[1] == ALL_ONES_NODE ? NODE_EMPTY : __ldcg(node_entry(nodes, key[1]));
    vec[1] = (unsigned)pair;
    vec[2] = (unsigned)(pair >> 32);
#elif TREE_WORDS > 2
    refs[1] = key[1];
#pragma unroll 1
    for (unsigned k = 1; k < TREE_LEAVES; ++k) {
        if (!tree_present(k)) continue;
        const unsigned value = refs[k];
        unsigned children[2] = {value, 0};
        const bool paired = tree_present(2 * k + 1);
        if (paired) {
            // Published by a compare-and-swap before the root that led here.
            const unsigned long long pair = value == ALL_ONES_NODE ? NODE_EMPTY : __ldcg(node_entry(nodes, value));
            children[0] = (unsigned)pair;
            children[1] = (unsigned)(pair >> 32);
        }
        for (unsigned c = 0; c < 1u + paired; ++c) {
            const unsigned child = 2 * k + c;
            if (child >= TREE_LEAVES) vec[1 + child - TREE_LEAVES] = children[c];
            else refs[child] = children[c];
        }
    }
#else
    (void)nodes;
    (void)refs;
#endif
}
