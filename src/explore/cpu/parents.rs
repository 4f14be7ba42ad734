//! The predecessors of the stored states, compressed, for traces.
//!
//! Each thread logs the predecessor of every state it stores, in the order
//! it stores them ([`ParentLog`]). A thread takes state ids from its own
//! reserve one after the other, so the states it stores form runs of
//! consecutive ids; and it expands the states of a chunk in id order, so
//! the predecessors along a run mostly stay equal (several new successors
//! of one state) or grow by a little. A log entry therefore says "the next
//! `count` ids have the predecessor `delta` after the previous entry's",
//! mostly in one byte:
//!
//! - the low 4 bits: `count - 1` (1 to 16 ids);
//! - the high 4 bits: the zigzag-coded delta (-7 to 7) when below 15, or 15
//!   when a zigzag LEB128 delta follows (at the start of a run, where the
//!   delta counts from 0, or after a jump between chunks).
//!
//! Ids are 64 bits (`StateId`); deltas are taken modulo 2^64, so that
//! any two ids have one, and a LEB128 delta takes at most 10 bytes.
//!
//! A run is found by its first id ([`Parents`]); finding a predecessor
//! decodes its run from the start (at most a few thousand entries, as long
//! as a thread's reserve), which only traces do.
//!
//! Against 8 bytes of predecessor id a state (4 while ids fit 32 bits),
//! the log takes a fraction of a byte a state on the benchmark models (measured in docs/CPU.md,
//! "Predecessor log").

use std::ops::Range;

use super::table::StateId;

/// Bits of an entry's header that hold `count - 1`.
const COUNT_BITS: u32 = 4;
/// The largest `count - 1` a header holds.
const COUNT_MASK: u8 = (1 << COUNT_BITS) - 1;
/// The header's delta code that says a LEB128 delta follows.
const DELTA_FOLLOWS: u8 = 15;

/// One thread's log of the predecessors of the states it stored.
#[derive(Debug, Default)]
pub struct ParentLog {
    /// The entries, one after the other.
    bytes: Vec<u8>,
    /// The runs of consecutive ids logged: first id and the offset of the
    /// run's first entry in `bytes`.
    runs: Vec<(StateId, usize)>,
    /// The id that continues the current run.
    next_id: StateId,
    /// The predecessor of the last entry, and where its header is (while
    /// its count can still grow).
    last_parent: StateId,
    open: Option<usize>,
}

impl ParentLog {
    /// Logs that state `id` has predecessor `parent`.
    pub fn record(&mut self, id: StateId, parent: StateId) {
        if self.runs.is_empty() || id != self.next_id {
            self.runs.push((id, self.bytes.len()));
            self.last_parent = 0;
            self.open = None;
        }
        self.next_id = id.wrapping_add(1);
        if let Some(at) = self.open
            && parent == self.last_parent
            && self.bytes[at] & COUNT_MASK < COUNT_MASK
        {
            self.bytes[at] += 1;
            return;
        }
        let delta = zigzag(parent.wrapping_sub(self.last_parent) as i64);
        self.open = Some(self.bytes.len());
        self.last_parent = parent;
        if delta < u64::from(DELTA_FOLLOWS) {
            self.bytes.push((delta as u8) << COUNT_BITS);
        } else {
            self.bytes.push(DELTA_FOLLOWS << COUNT_BITS);
            write_leb128(&mut self.bytes, delta);
        }
    }

    /// Bytes the log takes: its entries and its runs' starts.
    pub fn bytes(&self) -> u64 {
        (self.bytes.len() + self.runs.len() * size_of::<(StateId, usize)>()) as u64
    }
}

/// The logs of all threads, with their runs in id order, to look
/// predecessors up.
pub struct Parents {
    logs: Vec<ParentLog>,
    /// First id of each run, its log and its offset there, by first id.
    runs: Vec<(StateId, usize, usize)>,
}

impl Parents {
    /// The predecessors logged in `logs`.
    pub fn new(logs: Vec<ParentLog>) -> Parents {
        let mut runs: Vec<(StateId, usize, usize)> = logs
            .iter()
            .enumerate()
            .flat_map(|(index, log)| log.runs.iter().map(move |&(first, at)| (first, index, at)))
            .collect();
        runs.sort_unstable_by_key(|run| run.0);
        Parents { logs, runs }
    }

    /// The predecessor logged for state `id`; `None` when none was.
    pub fn of(&self, id: StateId) -> Option<StateId> {
        let run = self
            .runs
            .partition_point(|run| run.0 <= id)
            .checked_sub(1)?;
        let (first, log, at) = self.runs[run];
        let log = &self.logs[log];
        // The run ends where the log's next run begins.
        let next = log.runs.partition_point(|&(_, start)| start <= at);
        let end = log
            .runs
            .get(next)
            .map_or(log.bytes.len(), |&(_, start)| start);
        let entries = Entries {
            bytes: &log.bytes[at..end],
            parent: 0,
        };
        let mut covered: Range<StateId> = first..first;
        for (count, parent) in entries {
            covered = covered.end..covered.end + count;
            if covered.contains(&id) {
                return Some(parent);
            }
        }
        None
    }
}

/// Decodes a run's entries: `(count, predecessor)`.
struct Entries<'a> {
    bytes: &'a [u8],
    parent: StateId,
}

impl Iterator for Entries<'_> {
    type Item = (StateId, StateId);

    fn next(&mut self) -> Option<(StateId, StateId)> {
        let (&header, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        let code = header >> COUNT_BITS;
        let delta = if code == DELTA_FOLLOWS {
            read_leb128(&mut self.bytes)?
        } else {
            u64::from(code)
        };
        self.parent = self.parent.wrapping_add(unzigzag(delta) as u64);
        Some((StateId::from(header & COUNT_MASK) + 1, self.parent))
    }
}

/// A signed delta as an unsigned number, small for small magnitudes.
fn zigzag(delta: i64) -> u64 {
    ((delta << 1) ^ (delta >> 63)) as u64
}

/// The inverse of [`zigzag`].
fn unzigzag(code: u64) -> i64 {
    (code >> 1) as i64 ^ -((code & 1) as i64)
}

/// Appends `value` in LEB128: 7 bits a byte, low first, the top bit set on
/// all bytes but the last.
fn write_leb128(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a LEB128 number from the front of `bytes`.
fn read_leb128(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_steps_take_one_byte_an_entry() {
        let mut log = ParentLog::default();
        // A run from id 10: parent 1000 (a LEB128 delta, 2 bytes), three
        // children of it (the same entry), then parents 1001 and 998.
        for (id, parent) in [(10, 1000), (11, 1000), (12, 1000), (13, 1001), (14, 998)] {
            log.record(id, parent);
        }
        assert_eq!(log.bytes.len(), 1 + 2 + 1 + 1);
        // Seventeen children of one parent need a second entry.
        for id in 15..32 {
            log.record(id, 5);
        }
        let parents = Parents::new(vec![log]);
        assert_eq!(parents.of(10), Some(1000));
        assert_eq!(parents.of(12), Some(1000));
        assert_eq!(parents.of(13), Some(1001));
        assert_eq!(parents.of(14), Some(998));
        assert_eq!(parents.of(31), Some(5));
        assert_eq!(parents.of(32), None);
        assert_eq!(parents.of(9), None);
    }

    #[test]
    fn runs_and_deltas_cross_32_bits() {
        // A run across 2^32 whose parents jump from a low id to one past
        // 2^40 and back, and a run of a second log further on.
        let low = (1u64 << 32) - 3;
        let mut log = ParentLog::default();
        let parents = [
            (low, 7),
            (low + 1, 1 << 40),
            (low + 2, 1 << 40),
            (low + 3, 8),
        ];
        for (id, parent) in parents {
            log.record(id, parent);
        }
        let mut other = ParentLog::default();
        other.record(1 << 50, (1 << 50) - 2);
        other.record((1 << 50) + 1, 0);
        let found = Parents::new(vec![other, log]);
        for (id, parent) in parents {
            assert_eq!(found.of(id), Some(parent));
        }
        assert_eq!(found.of(1 << 50), Some((1 << 50) - 2));
        assert_eq!(found.of((1 << 50) + 1), Some(0));
        assert_eq!(found.of(low + 4), None);
    }

    proptest! {
        #[test]
        fn every_logged_predecessor_is_found(
            steps in proptest::collection::vec((0u64..3, 0u64..4, any::<u64>(), 0u8..4), 1..300),
            threads in 1u64..4,
            first in prop_oneof![Just(0u64), Just((1 << 32) - 50), Just(1 << 40)],
        ) {
            // Each thread logs runs of ids in its own stripe of ids (from
            // `first`, across 2^32 for some), with parents that repeat,
            // step a little or jump anywhere.
            let mut logs: Vec<ParentLog> = (0..threads).map(|_| ParentLog::default()).collect();
            let mut next: Vec<u64> = (0..threads).map(|t| first + t * 1_000_000).collect();
            let mut parent = first;
            let mut expected = Vec::new();
            for (i, &(gap, step, far, kind)) in steps.iter().enumerate() {
                let thread = i % threads as usize;
                next[thread] += gap * 7;
                parent = match kind {
                    0 => parent,
                    1 => parent.wrapping_add(step),
                    2 => parent.wrapping_sub(step),
                    _ => far,
                };
                logs[thread].record(next[thread], parent);
                expected.push((next[thread], parent));
                next[thread] += 1;
            }
            let parents = Parents::new(logs);
            for (id, parent) in expected {
                prop_assert_eq!(parents.of(id), Some(parent));
            }
        }
    }
}
