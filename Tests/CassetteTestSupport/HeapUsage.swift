import CHeapUsage

/// Bytes the process's allocator has handed out and not yet taken back: what a leak makes grow.
///
/// More exact than the resident set size, which keeps pages the allocator has freed but not
/// returned to the system. Linux: `mallinfo2()` (blocks in use, and large blocks mapped on their
/// own); Apple platforms: the default zone's `size_in_use`. The Glibc module does not export
/// `mallinfo2`, hence the small C target beside this one.
public enum HeapUsage {
    public static var bytesInUse: Int { Int(cassette_heap_bytes_in_use()) }
}
