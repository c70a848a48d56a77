import CHeapUsage

/// Bytes the process's allocator has handed out and not yet taken back: what a leak makes grow.
///
/// More exact than the resident set size, which keeps pages the allocator has freed but not
/// returned to the system. Linux: `mallinfo2()` (blocks in use, and large blocks mapped on their
/// own); Apple platforms: the default zone's `size_in_use`. The Glibc module does not export
/// `mallinfo2`, hence the small C target beside this one.
public enum HeapUsage {
    public static var bytesInUse: Int { Int(cassette_heap_bytes_in_use()) }

    /// The process's peak and current resident set, in bytes; nil where the platform gives none.
    /// Linux: `VmHWM` and `VmRSS` in `/proc/self/status`; Apple platforms: `task_info`'s
    /// `resident_size_max` and `resident_size` (`MACH_TASK_BASIC_INFO`).
    public static var residentSet: (peak: Int, current: Int)? {
        var peak = 0
        var current = 0
        guard cassette_resident_set(&peak, &current) == 0 else { return nil }
        return (peak, current)
    }
}
