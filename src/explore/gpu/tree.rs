//! The shape of tree storage (`kernels/explore/tree.cuh`) on the host: how
//! a vector's words pair up into nodes, how many tree values an expanded
//! state keeps, and how a root pair turns back into its vector (findings
//! and traces are read through it).

/// Words of a vector under the root's second value: all but word 0.
fn tree_words(vector_words: usize) -> usize {
    vector_words.saturating_sub(1)
}

/// Leaves of the complete binary tree over those words (the kernel's
/// `TREE_LEAVES`): the least power of two of at least as many.
pub(super) fn leaves(vector_words: usize) -> usize {
    tree_words(vector_words).next_power_of_two()
}

/// Values an expanded state keeps, by heap index of its nodes (the
/// kernel's `TREE_REFS`; index 0 unused): none below two words.
pub(super) fn refs(vector_words: usize) -> usize {
    if tree_words(vector_words) < 2 {
        0
    } else {
        leaves(vector_words)
    }
}

/// Whether heap node `k` of a tree of `leaves` leaves over `words` words
/// has a word below it (its leftmost leaf is one).
fn present(k: usize, leaves: usize, words: usize) -> bool {
    let shift = leaves.ilog2() - k.ilog2();
    (k << shift) - leaves < words
}

/// The kernel's `ALL_ONES_NODE`: the index of the pair of two all-ones
/// values, which is never stored.
pub(super) const ALL_ONES_NODE: u32 = u32::MAX;

/// Entries of a node-table bucket (the kernel's `NODE_BUCKET`).
pub(super) const NODE_BUCKET: u64 = 16;

/// The vector of root pair `key`, reading node `i` (the kernel's entry:
/// left value in the low word) through `node`.
pub(super) fn decode<E>(
    vector_words: usize,
    key: [u32; 2],
    mut node: impl FnMut(u32) -> Result<u64, E>,
) -> Result<Vec<u32>, E> {
    let words = tree_words(vector_words);
    let mut vector = vec![key[0]];
    if words < 2 {
        vector.extend(std::iter::repeat_n(key[1], words));
        return Ok(vector);
    }
    let leaves = leaves(vector_words);
    let mut values = vec![0u32; 2 * leaves];
    values[1] = key[1];
    for k in 1..leaves {
        if !present(k, leaves, words) {
            continue;
        }
        if present(2 * k + 1, leaves, words) {
            let pair = if values[k] == ALL_ONES_NODE {
                u64::MAX
            } else {
                node(values[k])?
            };
            values[2 * k] = pair as u32;
            values[2 * k + 1] = (pair >> 32) as u32;
        } else {
            values[2 * k] = values[k];
        }
    }
    vector.extend_from_slice(&values[leaves..leaves + words]);
    Ok(vector)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The root pair of `vector` as the kernel builds it, with nodes
    /// numbered in a map.
    fn encode(vector: &[u32], nodes: &mut HashMap<u64, u32>, by_index: &mut Vec<u64>) -> [u32; 2] {
        let words = vector.len() - 1;
        if words < 2 {
            return [vector[0], vector.get(1).copied().unwrap_or(0)];
        }
        let leaves = leaves(vector.len());
        let mut values = vec![0u32; 2 * leaves];
        values[leaves..leaves + words].copy_from_slice(&vector[1..]);
        for k in (1..leaves).rev() {
            if !present(k, leaves, words) {
                continue;
            }
            values[k] = if present(2 * k + 1, leaves, words) {
                let entry = u64::from(values[2 * k]) | (u64::from(values[2 * k + 1]) << 32);
                if entry == u64::MAX {
                    ALL_ONES_NODE
                } else {
                    *nodes.entry(entry).or_insert_with(|| {
                        by_index.push(entry);
                        by_index.len() as u32 - 1
                    })
                }
            } else {
                values[2 * k]
            };
        }
        [vector[0], values[1]]
    }

    #[test]
    fn refs_count_the_heap_of_the_words_under_the_root() {
        assert_eq!(refs(1), 0);
        assert_eq!(refs(2), 0);
        assert_eq!(refs(3), 2);
        assert_eq!(refs(4), 4);
        assert_eq!(refs(6), 8);
        assert_eq!(refs(49), 64);
    }

    #[test]
    fn decoding_gives_back_every_vector() {
        for words in 1..=20usize {
            let mut nodes = HashMap::new();
            let mut by_index = Vec::new();
            let vectors: Vec<Vec<u32>> = (0..50u32)
                .map(|k| {
                    (0..words as u32)
                        .map(|w| match (k + w) % 5 {
                            0 => u32::MAX,
                            _ => k.wrapping_mul(2654435761).rotate_left(w) % 7,
                        })
                        .collect()
                })
                .collect();
            let keys: Vec<[u32; 2]> = vectors
                .iter()
                .map(|v| encode(v, &mut nodes, &mut by_index))
                .collect();
            for (vector, key) in vectors.iter().zip(keys) {
                let back = decode(words, key, |i| Ok::<_, ()>(by_index[i as usize])).unwrap();
                assert_eq!(&back, vector, "{words} words");
            }
        }
    }
}
