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

    /// Packs fields of the given widths into as few words as possible
    /// (first fit, widest first), leaving [`Layout::RESERVED_BIT`] free.
    pub fn pack(widths: &[u32]) -> Layout {
        let mut order: Vec<usize> = (0..widths.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(widths[i]));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_keep_reserved_bit() {
        let widths = [3, 31, 1, 20, 12, 5, 5];
        let layout = Layout::pack(&widths);
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
}
