//! The node table of tree storage on the device (`kernels/explore/tree.cuh`):
//! generations of buckets of [`NODE_BUCKET`] 64-bit pairs, all ones where
//! empty. Roots and other nodes name a node by its index, so an index never
//! changes: the table grows by adding a generation whose indices follow
//! those of the generations before it, and the kernels look a pair up in
//! the older generations before they store it in the newest. A search
//! starts with one generation of a few times the initial table and adds
//! one, three times the entries of all before it, whenever the newest is
//! half full, up to its share of the memory: a small model takes little
//! of the GPU.

use cudarc::driver::CudaSlice;

use super::tree::{self, NODE_BUCKET};
use crate::gpu::{Device, GpuError, LargeSlice};

/// With tree storage, the node table may take this share of the memory
/// (and the table of roots the rest) ...
pub(super) const NODE_SHARE: u64 = 3;
/// ... but at most this many entries: node indices are 32-bit, and one
/// value is reserved (`tree::ALL_ONES_NODE`).
const MAX_NODE_ENTRIES: u64 = (1 << 32) - NODE_BUCKET;
/// The first generation has this many times the bytes of the initial
/// table (256 MiB by default), so that the large contest nets' nodes (at
/// most 3.0·10^6) fill a tenth of it or less and are found in one
/// generation. On an H100, Philosophers-PT-000020's search took 13.7 s
/// (10.8 s before generations) where they began at a third of the initial
/// table, and 10.85 s in one generation of 256 MiB, 7.7 % full
/// (docs/GPU.md).
pub(super) const FIRST_NODE_GENERATION: u64 = 4;
/// Most generations: the kernels read their descriptors from a buffer of
/// this many. Quadrupling from two buckets, 16 generations pass
/// [`MAX_NODE_ENTRIES`].
const MAX_GENERATIONS: usize = 16;
/// A new generation has this many times the entries of all before it.
const GENERATION_FACTOR: u64 = 3;
/// Words of a generation's descriptor: the address of its entries, its
/// buckets, and its first index.
const DESCRIPTOR_WORDS: usize = 3;

/// One generation: the entries of node indices `first ..`.
struct Generation {
    entries: LargeSlice<u64>,
    buckets: u64,
    first: u64,
}

impl Generation {
    fn capacity(&self) -> u64 {
        self.buckets * NODE_BUCKET
    }
}

/// The node table: its generations, their descriptors on the device, and
/// how far it may grow.
pub(super) struct NodeTable {
    generations: Vec<Generation>,
    descriptors: CudaSlice<u64>,
    /// The most buckets all generations may have together.
    limit_buckets: u64,
    /// Nodes stored before the newest generation was added (they are all
    /// in older ones).
    stored_before_newest: u64,
}

impl NodeTable {
    /// An empty table whose first generation has about `first_bytes`, and
    /// which may grow to `limit_bytes` (and [`MAX_NODE_ENTRIES`]).
    pub(super) fn allocate(
        device: &Device,
        first_bytes: u64,
        limit_bytes: u64,
    ) -> Result<NodeTable, GpuError> {
        let limit_buckets = (limit_bytes / (8 * NODE_BUCKET)).min(MAX_NODE_ENTRIES / NODE_BUCKET);
        if limit_buckets < 2 {
            return Err(GpuError::Invalid(format!(
                "{limit_bytes} bytes of GPU memory cannot hold a node table"
            )));
        }
        let mut table = NodeTable {
            generations: Vec::new(),
            descriptors: device.alloc_zeroed(DESCRIPTOR_WORDS * MAX_GENERATIONS)?,
            limit_buckets,
            stored_before_newest: 0,
        };
        let first_buckets = (first_bytes / (8 * NODE_BUCKET)).clamp(2, limit_buckets);
        table.add_generation(device, first_buckets)?;
        Ok(table)
    }

    /// Entries of all generations.
    pub(super) fn capacity(&self) -> u64 {
        self.generations.iter().map(Generation::capacity).sum()
    }

    /// Bytes of all generations.
    pub(super) fn bytes(&self) -> u64 {
        8 * self.capacity()
    }

    /// The most bytes the table may grow to.
    pub(super) fn limit_bytes(&self) -> u64 {
        8 * self.limit_buckets * NODE_BUCKET
    }

    /// How many generations it has.
    pub(super) fn generations(&self) -> usize {
        self.generations.len()
    }

    /// The device address of the generations' descriptors and their
    /// number, for the kernels.
    pub(super) fn addresses(&self, device: &Device) -> (u64, u64) {
        (
            device.address(&self.descriptors),
            self.generations.len() as u64,
        )
    }

    /// Buckets of the generation [`NodeTable::grow`] would add (0: none).
    fn next_buckets(&self) -> u64 {
        next_generation_buckets(
            self.generations.len(),
            self.capacity() / NODE_BUCKET,
            self.limit_buckets,
        )
    }

    /// Stored nodes at which the search stops to add a generation: half
    /// the newest one's entries (never where none can be added).
    pub(super) fn grow_at(&self) -> u64 {
        match (self.next_buckets(), self.generations.last()) {
            (0, _) | (_, None) => u64::MAX,
            (_, Some(newest)) => self.stored_before_newest + newest.capacity() / 2,
        }
    }

    /// Adds a generation, `stored` nodes being in the others, where the
    /// limit leaves room for one (where [`NodeTable::grow_at`] is not
    /// `u64::MAX`).
    pub(super) fn grow(&mut self, device: &Device, stored: u64) -> Result<(), GpuError> {
        let buckets = self.next_buckets();
        if buckets > 0 {
            self.add_generation(device, buckets)?;
            self.stored_before_newest = stored;
        }
        Ok(())
    }

    fn add_generation(&mut self, device: &Device, buckets: u64) -> Result<(), GpuError> {
        let first = self.capacity();
        let entries = device.alloc_large_filled::<u64>((buckets * NODE_BUCKET) as usize, 0xFF)?;
        let descriptor = [device.address(&entries), buckets, first];
        let at = DESCRIPTOR_WORDS * self.generations.len();
        device.write(
            &descriptor,
            &mut self.descriptors.slice_mut(at..at + DESCRIPTOR_WORDS),
        )?;
        self.generations.push(Generation {
            entries,
            buckets,
            first,
        });
        Ok(())
    }

    /// The entry of node `index`, read from the device.
    fn node(&self, device: &Device, index: u32) -> Result<u64, GpuError> {
        let index = u64::from(index);
        let generation = self
            .generations
            .iter()
            .rev()
            .find(|generation| generation.first <= index)
            .filter(|generation| index - generation.first < generation.capacity())
            .ok_or_else(|| GpuError::Inconsistent {
                during: "reading a tree-stored state",
                detail: format!("node {index} is beyond the node table"),
            })?;
        let at = (index - generation.first) as usize;
        Ok(device.download(&generation.entries.slice(at..at + 1))?[0])
    }

    /// The vector of root pair `key`, read node by node from the device.
    pub(super) fn vector(
        &self,
        device: &Device,
        words: usize,
        key: [u32; 2],
    ) -> Result<Vec<u32>, GpuError> {
        tree::decode(words, key, |index| self.node(device, index))
    }
}

/// Buckets of the generation that follows `generations` of `buckets`
/// together, within `limit_buckets` (0: none).
fn next_generation_buckets(generations: usize, buckets: u64, limit_buckets: u64) -> u64 {
    if generations == MAX_GENERATIONS {
        return 0;
    }
    let next = (GENERATION_FACTOR * buckets).min(limit_buckets - buckets);
    if next < 2 { 0 } else { next }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generations a table adds from `first` buckets up to `limit`.
    fn generations(first: u64, limit: u64) -> Vec<u64> {
        let mut sizes = vec![first];
        loop {
            let total = sizes.iter().sum();
            match next_generation_buckets(sizes.len(), total, limit) {
                0 => return sizes,
                next => sizes.push(next),
            }
        }
    }

    #[test]
    fn generations_quadruple_the_table_up_to_its_limit() {
        let most = MAX_NODE_ENTRIES / NODE_BUCKET;
        assert_eq!(generations(2, 200), [2, 6, 24, 96, 72]);
        assert_eq!(generations(10, 40), [10, 30]);
        assert_eq!(generations(10, 11), [10]);
        // From the smallest first generation, the largest table is reached
        // within the generations the kernels' descriptors hold.
        let sizes = generations(2, most);
        assert_eq!(sizes.iter().sum::<u64>(), most);
        assert!(sizes.len() <= MAX_GENERATIONS, "{sizes:?}");
        // The default first generation (four times 64 MiB) takes 5.
        let first = FIRST_NODE_GENERATION * (64 << 20) / (8 * NODE_BUCKET);
        assert_eq!(generations(first, most).len(), 5);
    }
}
