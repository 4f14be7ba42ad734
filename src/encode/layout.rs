//! Placement of each process's local state in a vector of `u32` words.

/// Where one process's local state lives: `bits` bits of word `word`,
/// starting at bit `shift`. A field never crosses a word boundary, so
/// reading it is one load, one shift and one mask on every engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Word index in the vector.
    pub word: u32,
    /// Lowest bit of the field.
    pub shift: u32,
    /// Width in bits (1 to 31).
    pub bits: u32,
}

impl Field {
    /// The mask of the field's bits, already shifted into place.
    #[inline]
    pub fn mask(&self) -> u32 {
        (((1u64 << self.bits) - 1) as u32) << self.shift
    }
}

/// The bit layout of state vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// One field per process, in process order.
    pub fields: Vec<Field>,
    /// Words per vector.
    pub words: usize,
}

impl Layout {
    /// Bit 31 of word 0 is never used by a field: engines may keep a flag
    /// there (the GPU's "new" mark) and can tell an empty table slot, whose
    /// first word is all ones, from any vector.
    pub const RESERVED_BIT: u32 = 1 << 31;

    /// Packs fields of the given widths into as few words as possible,
    /// leaving [`Layout::RESERVED_BIT`] free. Fields go in `locality` order
    /// (first fit; a permutation of the processes, see
    /// [`interaction_order`]) unless placing the widest first saves a word:
    /// processes that act together then share a word, so that tree storage
    /// shares the words a step leaves alone and a step changes few words.
    /// Philosophers-PT-000020's 3-word vectors, placed widest first, put
    /// every second fork unit in word 0 and needed 0.5 tree nodes a state.
    pub fn pack(widths: &[u32], locality: &[usize]) -> Layout {
        let in_locality_order = Self::first_fit(widths, locality.to_vec());
        let mut widest_first: Vec<usize> = (0..widths.len()).collect();
        widest_first.sort_by_key(|&i| std::cmp::Reverse(widths[i]));
        let widest_first = Self::first_fit(widths, widest_first);
        if widest_first.words < in_locality_order.words {
            widest_first
        } else {
            in_locality_order
        }
    }

    /// Places the fields in the given order, each in the first word with
    /// room for it.
    fn first_fit(widths: &[u32], order: Vec<usize>) -> Layout {
        // Free bits left in each word; word 0 loses its reserved top bit.
        let mut free: Vec<u32> = vec![31];
        let mut fields = vec![
            Field {
                word: 0,
                shift: 0,
                bits: 1
            };
            widths.len()
        ];
        for i in order {
            let bits = widths[i];
            let word = match free.iter().position(|&f| f >= bits) {
                Some(w) => w,
                None => {
                    free.push(32);
                    free.len() - 1
                }
            };
            let capacity = if word == 0 { 31 } else { 32 };
            fields[i] = Field {
                word: word as u32,
                shift: capacity - free[word],
                bits,
            };
            free[word] -= bits;
        }
        Layout {
            fields,
            words: free.len(),
        }
    }

    /// Local state of `process` in `vector`.
    #[inline]
    pub fn get(&self, vector: &[u32], process: usize) -> u32 {
        let f = self.fields[process];
        (vector[f.word as usize] & f.mask()) >> f.shift
    }

    /// Sets the local state of `process` in `vector`.
    #[inline]
    pub fn set(&self, vector: &mut [u32], process: usize, value: u32) {
        let f = self.fields[process];
        let w = &mut vector[f.word as usize];
        *w = (*w & !f.mask()) | ((value << f.shift) & f.mask());
    }

    /// Bits used by fields (the information content of a vector).
    pub fn used_bits(&self) -> u32 {
        self.fields.iter().map(|f| f.bits).sum()
    }
}

/// The processes in breadth-first order over the rules that make them act
/// together, from process 0 and then from the lowest process not reached:
/// processes that share a rule come out near each other. A process in many
/// more rules than the others (more than 32 and 8 times the mean) is placed
/// where a neighbour reaches it but not searched from, so that a process
/// watching every step does not put the rest in rule order.
pub fn interaction_order(processes: usize, rules: &[Vec<usize>]) -> Vec<usize> {
    let mut rules_of: Vec<Vec<usize>> = vec![Vec::new(); processes];
    for (r, participants) in rules.iter().enumerate() {
        for &p in participants {
            rules_of[p].push(r);
        }
    }
    let memberships: usize = rules.iter().map(Vec::len).sum();
    let hub = 32.max(8 * memberships / processes.max(1));
    let mut rule_seen = vec![false; rules.len()];
    let mut placed = vec![false; processes];
    let mut order = Vec::with_capacity(processes);
    for start in 0..processes {
        if placed[start] {
            continue;
        }
        placed[start] = true;
        let mut next = order.len();
        order.push(start);
        while next < order.len() {
            let p = order[next];
            next += 1;
            if rules_of[p].len() > hub {
                continue;
            }
            for &r in &rules_of[p] {
                if std::mem::replace(&mut rule_seen[r], true) {
                    continue;
                }
                for &q in &rules[r] {
                    if !std::mem::replace(&mut placed[q], true) {
                        order.push(q);
                    }
                }
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_keep_reserved_bit() {
        let widths = [3, 31, 1, 20, 12, 5, 5];
        let layout = Layout::pack(&widths, &[0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(layout.used_bits(), 77);
        assert_eq!(layout.words, 3);
        let mut v = vec![0u32; layout.words];
        for (i, &w) in widths.iter().enumerate() {
            layout.set(&mut v, i, (1 << w) - 1);
        }
        assert_eq!(v[0] & Layout::RESERVED_BIT, 0);
        for (i, &w) in widths.iter().enumerate() {
            assert_eq!(layout.get(&v, i), (1 << w) - 1);
            layout.set(&mut v, i, 0);
            assert_eq!(layout.get(&v, i), 0);
        }
        assert!(v.iter().all(|&w| w == 0));
    }

    #[test]
    fn locality_order_is_kept_unless_widest_first_saves_a_word() {
        // In the given order these fit in one word, as widest first would.
        let neighbours = Layout::pack(&[3, 2, 3, 2, 1, 1], &[0, 1, 2, 3, 4, 5]);
        assert_eq!(neighbours.words, 1);
        let shifts: Vec<u32> = neighbours.fields.iter().map(|f| f.shift).collect();
        assert_eq!(shifts, [0, 3, 5, 8, 10, 11]);
        // The given order needs three words (16 1 | 24 | 16), widest first two
        // (24 1 | 16 16).
        let widths = [16, 24, 1, 16];
        assert_eq!(Layout::first_fit(&widths, vec![0, 1, 2, 3]).words, 3);
        let packed = Layout::pack(&widths, &[0, 1, 2, 3]);
        assert_eq!(packed.words, 2);
        let words: Vec<u32> = packed.fields.iter().map(|f| f.word).collect();
        assert_eq!(words, [1, 0, 0, 1]);
    }

    #[test]
    fn processes_that_act_together_come_out_together() {
        // A ring 0 - 2 - 4 - 1 - 3 - 0 by two-process rules.
        let ring = [vec![0, 2], vec![2, 4], vec![4, 1], vec![1, 3], vec![3, 0]];
        assert_eq!(interaction_order(5, &ring), [0, 2, 3, 4, 1]);
        // Unconnected processes follow in index order.
        assert_eq!(interaction_order(4, &[vec![2, 3]]), [0, 1, 2, 3]);
        assert_eq!(interaction_order(4, &[vec![3, 1]]), [0, 1, 3, 2]);
        // A hub (process 0) in every rule of a chain 1 - 2 - ... - 40 whose
        // rules are listed out of order is placed but not searched from:
        // the chain comes out in its own order, not in the rules' order.
        let chain: Vec<Vec<usize>> = (0..39)
            .map(|k| (7 * k) % 39 + 1)
            .map(|i| vec![0, i, i + 1])
            .collect();
        assert_eq!(interaction_order(41, &chain), (0..41).collect::<Vec<_>>());
    }
}
