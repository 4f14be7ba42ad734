//! Tree storage of state vectors (after Laarman, van de Pol & Weber's
//! tree compression): a vector of W words is a binary tree over its words,
//! each internal node a pair of 32-bit values in one shared, lock-free
//! [`NodeTable`], so that vectors that share a half share its node.
//!
//! - A range of one word is the word itself.
//! - A longer range is split into halves (the left one a word longer when
//!   the range is odd) and is the 32-bit index of the node holding the
//!   pair of its halves' values.
//! - The whole vector's pair, the *root*, is not put in the table: the
//!   store keeps it under the state id (8 bytes a state whatever W). A
//!   vector of one word has the root (word, 0).
//!
//! A node is its pair, so equal subtrees have equal indices and two
//! vectors are equal exactly when their roots are: the state index
//! compares roots, never whole vectors.
//!
//! Encoding a successor reuses the node indices of the state it was
//! generated from ([`TreeScratch`] keeps them from the read): only the
//! nodes above changed words are looked up again, about log2(W) of them
//! for a change of one word, instead of W - 1.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use super::cells::ZeroedCells;
use super::table::{StateId, VectorStore};

/// The node index of the pair (0, 0). The table never holds that pair, so
/// that an entry of 0 can mean empty; entry 0 is never used.
const ZERO_PAIR_NODE: u32 = 0;
/// An empty node table entry.
const EMPTY: u64 = 0;
/// Share of a node table's entries (in thousandths) that may be used
/// before it grows: linear probing over single entries stays short up to
/// here (2.5 entries expected for a hit, 12.5 for a miss).
pub const NODE_MAX_FILL_PER_MILLE: u64 = 800;
/// Bytes of one node table entry: a pair of 32-bit values.
pub const NODE_BYTES: u64 = 8;
/// Most entries a node table may have: a node index is 32 bits.
pub(super) const MAX_NODE_SLOTS: u64 = 1 << 32;

/// Where a value of the tree comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The vector word at this position.
    Word(usize),
    /// The internal node at this position of [`TreeShape::nodes`].
    Node(usize),
    /// Nothing: the value 0 (the right half of a one-word root).
    Zero,
}

/// The tree over the words of a vector: the same for every vector of a
/// width.
#[derive(Debug, Clone)]
pub struct TreeShape {
    /// The internal nodes below the root, each a pair of parts, children
    /// before their parents.
    nodes: Vec<[Part; 2]>,
    /// The root's pair.
    root: [Part; 2],
}

impl TreeShape {
    /// The tree over vectors of `words` words.
    pub fn new(words: usize) -> TreeShape {
        let mut nodes = Vec::new();
        let root = match words {
            0 => [Part::Zero, Part::Zero],
            1 => [Part::Word(0), Part::Zero],
            _ => {
                let (left, right) = halves(0..words);
                [
                    Self::subtree(left, &mut nodes),
                    Self::subtree(right, &mut nodes),
                ]
            }
        };
        TreeShape { nodes, root }
    }

    /// The part for the words `range` (not empty), appending its internal
    /// nodes to `nodes`.
    fn subtree(range: Range<usize>, nodes: &mut Vec<[Part; 2]>) -> Part {
        if range.len() == 1 {
            return Part::Word(range.start);
        }
        let (left, right) = halves(range);
        let pair = [Self::subtree(left, nodes), Self::subtree(right, nodes)];
        nodes.push(pair);
        Part::Node(nodes.len() - 1)
    }

    /// Internal nodes of a vector's tree, the root left out.
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }
}

/// The two halves of `range`, the left one a word longer when it is odd.
fn halves(range: Range<usize>) -> (Range<usize>, Range<usize>) {
    let middle = range.start + range.len().div_ceil(2);
    (range.start..middle, middle..range.end)
}

/// The shared table of tree nodes: open addressing over 8-byte entries,
/// each empty (0) or a pair of 32-bit values (left value in the high
/// half); a node's index is the position of its entry. Lock-free: a pair
/// is put in the first empty entry of its probe sequence by a
/// compare-and-swap, and entries never change once set, so a reader that
/// reaches an empty entry knows the pair is absent, and a compare-and-swap
/// that fails is looked at again (another thread may have put the same
/// pair there). The table does not grow: a larger one is filled by
/// encoding the stored vectors again (`StateStore::copy_from`).
pub struct NodeTable {
    entries: ZeroedCells<AtomicU64>,
}

impl NodeTable {
    /// An empty table of `slots` entries (between 2 and 2^32).
    pub fn new(slots: u64) -> NodeTable {
        NodeTable {
            entries: ZeroedCells::new(slots.clamp(2, MAX_NODE_SLOTS) as usize),
        }
    }

    /// Entries of the table.
    pub fn slots(&self) -> u64 {
        self.entries.len() as u64
    }

    /// Bytes of the entries.
    pub fn bytes(&self) -> u64 {
        self.slots() * NODE_BYTES
    }

    /// Nodes a table of `slots` entries may hold (entry 0 is never used).
    pub fn capacity(slots: u64) -> u64 {
        (slots.clamp(2, MAX_NODE_SLOTS) - 1) * NODE_MAX_FILL_PER_MILLE / 1000
    }

    /// The pair of node `node`, which some encoding returned.
    #[inline]
    fn pair(&self, node: u32) -> [u32; 2] {
        if node == ZERO_PAIR_NODE {
            return [0, 0];
        }
        let entry = self.entries[node as usize].load(Ordering::Acquire);
        [(entry >> 32) as u32, entry as u32]
    }

    /// The index of the node holding `pair`, put into the table if it is
    /// not there; `credit` is called before an empty entry is taken and
    /// refuses the insertion by returning `false` (then the answer is
    /// `None`). `inserted` counts the nodes put in.
    #[inline]
    fn find_or_insert(
        &self,
        pair: [u32; 2],
        credit: &mut impl FnMut() -> bool,
        inserted: &mut u64,
    ) -> Option<u32> {
        let wanted = (u64::from(pair[0]) << 32) | u64::from(pair[1]);
        if wanted == EMPTY {
            return Some(ZERO_PAIR_NODE);
        }
        let used = self.entries.len() as u64 - 1;
        let mut at = 1 + ((u128::from(mix(wanted)) * u128::from(used)) >> 64) as usize;
        for _ in 0..used {
            let slot = &self.entries[at];
            let mut entry = slot.load(Ordering::Acquire);
            if entry == EMPTY {
                if !credit() {
                    return None;
                }
                match slot.compare_exchange(EMPTY, wanted, Ordering::Release, Ordering::Acquire) {
                    Ok(_) => {
                        *inserted += 1;
                        return Some(at as u32);
                    }
                    Err(now) => entry = now,
                }
            }
            if entry == wanted {
                return Some(at as u32);
            }
            at = if at as u64 == used { 1 } else { at + 1 };
        }
        None
    }
}

/// A 64-bit mix of a pair (the murmur3 finalizer): every input bit moves
/// the high bits that pick the first entry of its probe.
#[inline]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// One thread's working memory for reading and encoding tree-stored
/// vectors.
#[derive(Debug, Clone, Default)]
pub struct TreeScratch {
    /// The node values of the vector read last (or encoded last, when
    /// stores are copied): the base an encoding may reuse.
    base: Vec<u32>,
    /// The node values of the vector being encoded.
    values: Vec<u32>,
    /// Which nodes of the vector being encoded differ from the base's.
    changed: Vec<bool>,
    /// The root of the vector encoded last.
    root: [u32; 2],
    /// Nodes this scratch's encodings put into a table, since the owner
    /// last took the count ([`TreeScratch::take_inserted`]).
    inserted: u64,
}

impl TreeScratch {
    /// Scratch for vectors of `words` words.
    pub fn new(words: usize) -> TreeScratch {
        let nodes = TreeShape::new(words).nodes();
        TreeScratch {
            base: vec![0; nodes],
            values: vec![0; nodes],
            changed: vec![false; nodes],
            root: [0; 2],
            inserted: 0,
        }
    }

    /// The nodes put into a table since the last call.
    pub fn take_inserted(&mut self) -> u64 {
        std::mem::take(&mut self.inserted)
    }

    /// Makes the vector encoded last the base of the next encoding.
    pub fn rebase(&mut self) {
        std::mem::swap(&mut self.base, &mut self.values);
    }
}

/// Vectors stored as trees: a root (two words) per state id in a
/// [`VectorStore`], and the nodes in a [`NodeTable`].
pub struct TreeStore {
    words: usize,
    shape: TreeShape,
    roots: VectorStore,
    nodes: NodeTable,
}

impl TreeStore {
    /// An empty store for vectors of `words` words with a node table of
    /// `node_slots` entries.
    pub fn new(words: usize, node_slots: u64) -> TreeStore {
        TreeStore {
            words,
            shape: TreeShape::new(words),
            roots: VectorStore::new(2),
            nodes: NodeTable::new(node_slots),
        }
    }

    /// Words of a vector.
    pub fn words(&self) -> usize {
        self.words
    }

    /// The roots, by state id.
    pub fn roots(&self) -> &VectorStore {
        &self.roots
    }

    /// The roots, to make room in.
    pub fn roots_mut(&mut self) -> &mut VectorStore {
        &mut self.roots
    }

    /// The node table.
    pub fn nodes(&self) -> &NodeTable {
        &self.nodes
    }

    /// Copies the vector of stored state `id` into `out`, and its node
    /// values into `scratch` as the base of the next encoding.
    #[inline]
    pub fn read(&self, id: StateId, out: &mut [u32], scratch: &mut TreeScratch) {
        let mut root = [0; 2];
        self.roots.read(id, &mut root);
        let values = &mut scratch.base;
        for (part, value) in self.shape.root.into_iter().zip(root) {
            place(part, value, out, values);
        }
        // Parents come after their children: from the last node back,
        // every node's value is known when it is reached.
        for (node, parts) in self.shape.nodes.iter().enumerate().rev() {
            let pair = self.nodes.pair(values[node]);
            for (&part, value) in parts.iter().zip(pair) {
                place(part, value, out, values);
            }
        }
    }

    /// The root of `vector`, its nodes put into the table where missing;
    /// `None` when `credit` refused an insertion. With a `base` (the
    /// vector read or encoded last with `scratch`, see
    /// [`TreeScratch::rebase`]), only the nodes above words that differ
    /// from it are looked up; the others keep the base's values.
    #[inline]
    pub fn encode(
        &self,
        vector: &[u32],
        base: Option<&[u32]>,
        scratch: &mut TreeScratch,
        credit: &mut impl FnMut() -> bool,
    ) -> Option<[u32; 2]> {
        let TreeScratch {
            base: base_values,
            values,
            changed,
            root,
            inserted,
        } = scratch;
        let differs = |part: Part, changed: &[bool]| match (part, base) {
            (Part::Word(word), Some(base)) => vector[word] != base[word],
            (Part::Node(node), Some(_)) => changed[node],
            (Part::Zero, _) => false,
            (_, None) => true,
        };
        for (node, &[left, right]) in self.shape.nodes.iter().enumerate() {
            changed[node] = differs(left, changed) || differs(right, changed);
            values[node] = if changed[node] {
                let pair = [value(left, vector, values), value(right, vector, values)];
                self.nodes.find_or_insert(pair, credit, inserted)?
            } else {
                base_values[node]
            };
        }
        let [left, right] = self.shape.root;
        *root = [value(left, vector, values), value(right, vector, values)];
        Some(*root)
    }

    /// The root the last [`TreeStore::encode`] with `scratch` returned.
    pub fn last_root(scratch: &TreeScratch) -> &[u32] {
        &scratch.root
    }
}

/// Puts `value` where `part` says: into the vector or the node values.
#[inline]
fn place(part: Part, value: u32, vector: &mut [u32], values: &mut [u32]) {
    match part {
        Part::Word(word) => vector[word] = value,
        Part::Node(node) => values[node] = value,
        Part::Zero => {}
    }
}

/// The value of `part` in a vector being encoded.
#[inline]
fn value(part: Part, vector: &[u32], values: &[u32]) -> u32 {
    match part {
        Part::Word(word) => vector[word],
        Part::Node(node) => values[node],
        Part::Zero => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store for `words`-word vectors holding `vectors` under ids 0, 1,
    /// ..., each encoded against the one before.
    fn stored(words: usize, vectors: &[Vec<u32>]) -> TreeStore {
        let mut store = TreeStore::new(words, 1 << 12);
        store.roots_mut().reserve(0..vectors.len() as u64);
        let mut scratch = TreeScratch::new(words);
        let mut previous: Option<&Vec<u32>> = None;
        for (id, vector) in vectors.iter().enumerate() {
            let root = store
                .encode(vector, previous.map(|v| &v[..]), &mut scratch, &mut || true)
                .unwrap();
            store.roots().write(id as u64, &root);
            scratch.rebase();
            previous = Some(vector);
        }
        store
    }

    #[test]
    fn shapes_split_odd_ranges_with_the_longer_half_left() {
        assert_eq!(TreeShape::new(1).nodes(), 0);
        assert_eq!(TreeShape::new(2).nodes(), 0);
        let three = TreeShape::new(3);
        assert_eq!(three.root, [Part::Node(0), Part::Word(2)]);
        assert_eq!(three.nodes, vec![[Part::Word(0), Part::Word(1)]]);
        // A tree over W words has W - 1 pairs, the root one of them.
        for words in 2..40 {
            assert_eq!(TreeShape::new(words).nodes(), words - 2);
        }
    }

    #[test]
    fn vectors_read_back_and_equal_vectors_share_roots() {
        for words in [1, 2, 3, 5, 7, 8, 33] {
            let vectors: Vec<Vec<u32>> = (0..50u32)
                .map(|i| {
                    (0..words as u32)
                        .map(|w| (i * 7 + w * 13) % 5 * u32::from(w % 3 != 1))
                        .collect()
                })
                .collect();
            let store = stored(words, &vectors);
            let mut scratch = TreeScratch::new(words);
            let mut out = vec![0; words];
            for (id, vector) in vectors.iter().enumerate() {
                store.read(id as u64, &mut out, &mut scratch);
                assert_eq!(&out, vector, "{words} words, state {id}");
                // Encoding again from scratch finds every node.
                let mut fresh = TreeScratch::new(words);
                let root = store.encode(vector, None, &mut fresh, &mut || false);
                let mut kept = [0; 2];
                store.roots().read(id as u64, &mut kept);
                assert_eq!(root, Some(kept));
            }
        }
    }

    #[test]
    fn the_zero_pair_and_extreme_words_are_stored() {
        let vectors = vec![
            vec![0, 0, 0, 0],
            vec![u32::MAX, u32::MAX, 0, u32::MAX],
            vec![0, 0, u32::MAX, 0],
        ];
        let store = stored(4, &vectors);
        let mut scratch = TreeScratch::new(4);
        let mut out = vec![1; 4];
        for (id, vector) in vectors.iter().enumerate() {
            store.read(id as u64, &mut out, &mut scratch);
            assert_eq!(&out, vector);
        }
    }

    #[test]
    fn a_full_node_table_refuses_without_looping() {
        let table = NodeTable::new(4);
        let mut inserted = 0;
        let mut unlimited = || true;
        for pair in 1..=3 {
            assert!(
                table
                    .find_or_insert([pair, pair], &mut unlimited, &mut inserted)
                    .is_some()
            );
        }
        assert_eq!(inserted, 3);
        assert_eq!(
            table.find_or_insert([9, 9], &mut unlimited, &mut inserted),
            None
        );
        let found = table.find_or_insert([2, 2], &mut || false, &mut inserted);
        assert_eq!(found.map(|node| table.pair(node)), Some([2, 2]));
        assert_eq!(NodeTable::capacity(4), 2);
    }
}
