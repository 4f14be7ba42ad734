//! How the C library's allocator treats the large arrays of one command.
//!
//! A solver that starts allocates arrays of a few bytes per vertex and
//! edge, tens of megabytes on a game of 10^6 vertices, and the system
//! hands out each fresh page on its first write, zeroed: on the 2-core
//! development machine priority promotion solved Oink's `counter_qpt
//! 500000` in 0.015 s when run again in one process (its pages reused),
//! in 0.030 s from a fresh one
//! (`benches/results/2026-12-02k-h200-parity-alloc/fresh-pages-2core.txt`).
//! Loading the game has just freed memory of that order (the parsed
//! chunks), which glibc hands back to the system at once when its blocks
//! are larger than its mapping threshold: they are unmapped when freed.

/// Makes glibc keep the memory a command frees for its later requests
/// instead of returning it to the system: large requests come from the
/// heaps rather than from mappings of their own (`M_MMAP_MAX` 0), and a
/// heap is not trimmed below 2 GiB of free memory at its top
/// (`M_TRIM_THRESHOLD`). For a command that runs once and exits, on
/// arrays of fixed size: a growing array of its own mapping is moved by
/// remapping its pages, one in a heap by a copy, so the explorer, whose
/// queues grow, is left as it is. Whether glibc took both settings
/// (false elsewhere than on glibc).
///
/// `warpcheck parity --engine auto`, medians of `solve_seconds` against
/// the build before, run alternately
/// (`benches/results/2026-12-02k-h200-parity-alloc/`): on an H200 host
/// (16 cores), pgrand-200k-s11 0.053 -> 0.044 s, `counter_qpt 500000`
/// 0.058 -> 0.054, the steady game of 10^6 vertices 0.052 -> 0.048, the
/// other four games 0-7 % faster; on the 2-core development machine
/// (`ab-2core.txt` there) `counter_qpt 5000000` 0.370 -> 0.325 s,
/// `counter_qpt 500000` and pgrand-200k-s11 within the spread. One arena for every thread as well
/// (`M_ARENA_MAX` 1, so that what the loading threads free serves the
/// solver's thread) gained more on the 2-core machine (`counter_qpt
/// 500000` 0.042 -> 0.028 s), but on the H200 host it was slower than
/// these two settings alone on each of the six games of 10^6 vertices or
/// more, where the GPU races the CPU.
pub fn keep_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let settings = [(libc::M_MMAP_MAX, 0), (libc::M_TRIM_THRESHOLD, i32::MAX)];
        // SAFETY: mallopt only sets allocator parameters; glibc takes the
        // arena lock for them, so other threads may allocate meanwhile.
        settings
            .iter()
            .all(|&(parameter, value)| unsafe { libc::mallopt(parameter, value) } == 1)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// Minor page faults of the calling thread so far.
    fn thread_page_faults() -> i64 {
        // SAFETY: rusage is plain integers, for which zero is valid.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage writes the struct it is given, nothing else.
        let status = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
        assert_eq!(status, 0);
        usage.ru_minflt
    }

    /// Writes every page of a fresh array of `bytes`, then frees it;
    /// gives the page faults that took.
    fn faults_of_one_array(bytes: usize) -> i64 {
        let before = thread_page_faults();
        let array = std::hint::black_box(vec![1u8; bytes]);
        drop(array);
        thread_page_faults() - before
    }

    #[test]
    fn memory_freed_is_written_again_without_page_faults() {
        assert!(keep_freed_memory());
        // A thread of its own, started after the settings, so that its
        // requests do not depend on the arenas of the other tests.
        let faults = std::thread::spawn(|| {
            // Under glibc's largest mapping threshold (32 MiB), and small
            // enough for the heap of any arena (64 MiB).
            let bytes = 16 << 20;
            let first = faults_of_one_array(bytes);
            let again = faults_of_one_array(bytes);
            (first, again, (bytes / 4096) as i64)
        })
        .join()
        .expect("the thread ends");
        let (first, again, pages) = faults;
        // The first array may be served from memory that other tests
        // freed; the second is served from the first, whatever the first
        // took, instead of a fresh mapping (every page a fault).
        assert!(
            again < pages / 10,
            "{again} faults for an array of {pages} pages freed just before (first: {first})"
        );
    }
}
