//! Offset arrays, the one shape under every structure here: row `r` owns
//! the entries `offsets[r]..offsets[r + 1]` of a flat array. Checking such
//! an array and filling one by a stable counting sort live here once, for
//! graphs, labelled graphs, MDPs and games alike.

use rayon::prelude::*;
use std::ops::Range;

use thiserror::Error;

/// Why an offset array does not delimit the entries of a flat array.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OffsetsError {
    /// There is not even the leading 0.
    #[error("are empty; they need one entry more than there are rows")]
    Empty,
    /// More rows than their numbering can name.
    #[error("delimit {rows} rows, more than the {max} allowed")]
    TooManyRows {
        /// Rows delimited (entries less one).
        rows: u64,
        /// The most the numbering allows.
        max: u64,
    },
    /// The first entry is not 0.
    #[error("start at {0}, not 0")]
    NonZeroStart(u64),
    /// A row would end before it starts.
    #[error("decrease at row {row}: {start} then {end}")]
    Decreasing {
        /// The row.
        row: u64,
        /// Where it starts.
        start: u64,
        /// Where it ends.
        end: u64,
    },
    /// The last row does not end where the flat array does.
    #[error("end at {last}, but there are {entries} entries")]
    WrongEnd {
        /// The last offset.
        last: u64,
        /// Length of the flat array.
        entries: usize,
    },
}

/// Rows delimited by `offsets`: one fewer than its length (0 when empty,
/// which [`check`] reports).
pub(crate) fn rows(offsets: &[u64]) -> usize {
    offsets.len().saturating_sub(1)
}

/// Items from which [`first_window`] scans on rayon's threads.
const PARALLEL_ITEMS: usize = 1 << 24;
/// Windows a thread of [`first_window`] scans at a time.
const WINDOWS_PER_CHUNK: usize = 1 << 16;

/// The first `i` where `bad(&items[i..i + width])` holds. Long slices
/// are scanned in chunks on rayon's threads, each chunk a flat
/// sequential scan: with rayon's `par_windows(..).position_first`,
/// which pays per window, preparing a parity game of 1.7·10^7 vertices
/// (validation, then its predecessor lists) took 0.27-0.33 s on 2 cores,
/// and 0.17-0.20 s so
/// (`benches/results/2026-12-03m-h200-spm-propagation/validate-2core.txt`).
pub(crate) fn first_window<T: Sync>(
    items: &[T],
    width: usize,
    bad: impl Fn(&[T]) -> bool + Sync,
) -> Option<usize> {
    if items.len() < PARALLEL_ITEMS {
        return items.windows(width).position(bad);
    }
    let windows = items.len().saturating_sub(width - 1);
    (0..windows.div_ceil(WINDOWS_PER_CHUNK))
        .into_par_iter()
        .find_map_first(|chunk| {
            let start = chunk * WINDOWS_PER_CHUNK;
            let end = (start + WINDOWS_PER_CHUNK).min(windows) + width - 1;
            items[start..end]
                .windows(width)
                .position(&bad)
                .map(|i| start + i)
        })
}

/// Checks that `offsets` delimits at most `max_rows` rows of a flat array
/// of `entries` entries: starts at 0, never decreases, ends at `entries`.
pub(crate) fn check(offsets: &[u64], entries: usize, max_rows: u64) -> Result<(), OffsetsError> {
    let (&first, &last) = offsets
        .first()
        .zip(offsets.last())
        .ok_or(OffsetsError::Empty)?;
    let rows = rows(offsets) as u64;
    if rows > max_rows {
        return Err(OffsetsError::TooManyRows {
            rows,
            max: max_rows,
        });
    }
    if first != 0 {
        return Err(OffsetsError::NonZeroStart(first));
    }
    // In parallel only for long arrays: below, waking rayon's threads
    // costs more than the scan (with the flat target scan of
    // Csr::validate, 16.1 ms became 0.99 ms for 10^6 rows:
    // benches/results/2026-12-02e-2core-validate/).
    let found = first_window(offsets, 2, |pair| pair[0] > pair[1]);
    if let Some(row) = found {
        return Err(OffsetsError::Decreasing {
            row: row as u64,
            start: offsets[row],
            end: offsets[row + 1],
        });
    }
    if last != entries as u64 {
        return Err(OffsetsError::WrongEnd { last, entries });
    }
    Ok(())
}

/// The entries of `row`, as indices into the flat array. Panics if `row`
/// is not a row of `offsets`, like slice indexing.
pub(crate) fn row_range(offsets: &[u64], row: usize) -> Range<usize> {
    offsets[row] as usize..offsets[row + 1] as usize
}

/// Stable counting sort by row: takes `(row, payload)` pairs, calls
/// `place(slot, payload)` with each payload's slot in the flat array
/// (pairs of one row keep their order) and returns the offsets of the
/// `rows` rows. Every row must be below `rows`; callers check first.
/// `entries` is walked twice, once to count and once, from the last, to
/// place: each row fills from its end, so that the offsets themselves
/// serve as the cursors and no copy of them is made.
pub(crate) fn group_by_row<P>(
    rows: u32,
    entries: impl DoubleEndedIterator<Item = (u32, P)> + Clone,
    mut place: impl FnMut(usize, P),
) -> Vec<u64> {
    let rows = rows as usize;
    let mut offsets = vec![0u64; rows + 1];
    for (row, _) in entries.clone() {
        offsets[row as usize] += 1;
    }
    // offsets[row] becomes the end of the row, and moves back to its start
    // as the row is filled.
    let mut sum = 0;
    for slot in &mut offsets[..rows] {
        sum += *slot;
        *slot = sum;
    }
    offsets[rows] = sum;
    for (row, payload) in entries.rev() {
        let slot = &mut offsets[row as usize];
        *slot -= 1;
        place(*slot as usize, payload);
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_scan_in_chunks_finds_the_first_window_as_a_flat_scan_does() {
        let mut items = vec![0u8; PARALLEL_ITEMS + 10];
        let flat = |items: &[u8]| items.windows(2).position(|w| w[0] > w[1]);
        let chunked = |items: &[u8]| first_window(items, 2, |w| w[0] > w[1]);
        assert_eq!(chunked(&items), None);
        // A window across the end of a chunk, one in a later chunk, and
        // the very last window.
        for at in [
            PARALLEL_ITEMS + 8,
            5 * WINDOWS_PER_CHUNK + 3,
            3 * WINDOWS_PER_CHUNK - 1,
        ] {
            items[at] = 1;
            assert_eq!(chunked(&items), Some(at));
            assert_eq!(chunked(&items), flat(&items));
        }
        assert_eq!(
            first_window(&items, 1, |w| w[0] == 1),
            Some(3 * WINDOWS_PER_CHUNK - 1)
        );
    }

    #[test]
    fn check_accepts_well_formed_offsets() {
        assert_eq!(check(&[0], 0, 0), Ok(()));
        assert_eq!(check(&[0, 2, 2, 5], 5, 3), Ok(()));
    }

    #[test]
    fn check_names_each_fault() {
        let fault = |offsets: &[u64], entries, max_rows| {
            check(offsets, entries, max_rows).unwrap_err().to_string()
        };
        assert_eq!(
            fault(&[], 0, 9),
            "are empty; they need one entry more than there are rows"
        );
        assert_eq!(
            fault(&[0, 1, 2], 2, 1),
            "delimit 2 rows, more than the 1 allowed"
        );
        assert_eq!(fault(&[1, 2], 2, 9), "start at 1, not 0");
        assert_eq!(fault(&[0, 3, 2, 4], 4, 9), "decrease at row 1: 3 then 2");
        assert_eq!(fault(&[0, 3], 4, 9), "end at 3, but there are 4 entries");
    }

    #[test]
    fn group_by_row_is_a_stable_counting_sort() {
        let entries = [(2, 'a'), (0, 'b'), (2, 'c'), (0, 'd'), (3, 'e')];
        let mut flat = ['?'; 5];
        let offsets = group_by_row(4, entries.iter().copied(), |slot, item| flat[slot] = item);
        assert_eq!(offsets, [0, 2, 2, 4, 5]);
        assert_eq!(flat, ['b', 'd', 'a', 'c', 'e']);
        assert_eq!(row_range(&offsets, 2), 2..4);
        assert_eq!(rows(&offsets), 4);
    }
}
