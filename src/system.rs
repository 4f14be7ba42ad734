//! Facts about the machine the process runs on, read where the system
//! publishes them. Knows no format, engine or CLI.

/// The memory the system reports available (`MemAvailable` in
/// `/proc/meminfo`), where it can be read. Linux grants allocations it
/// cannot back and kills the process when their pages are touched, so
/// large arrays are weighed against this before they are filled.
pub fn available_memory() -> Option<u64> {
    mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// The `MemAvailable` line of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::mem_available;

    #[test]
    fn the_available_line_is_read_in_bytes() {
        let info = "MemTotal:       16384 kB\nMemAvailable:    2048 kB\nBuffers: 1 kB\n";
        assert_eq!(mem_available(info), Some(2048 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots kB\n"), None);
    }
}
