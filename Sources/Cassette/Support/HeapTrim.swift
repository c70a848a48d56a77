#if canImport(Glibc)
import Glibc
#endif

/// Keeps the memory of large recordings from staying resident on Linux: glibc's `malloc_trim`
/// and `mallopt`, found at run time (the Glibc module exports neither); nothing on other platforms.
///
/// Two things glibc does make a process that records large bodies keep their pages:
/// - **Large blocks stop being mapped.** glibc serves a block over its mmap threshold (128 KiB at
///   first) with a mapping of its own, returned to the system when freed — but freeing one raises
///   the threshold to its size (up to 32 MiB), so the next 20 MB body comes from a heap and its
///   pages stay there. Eight 20 MB recordings, each through its own ejected tape, raised the peak
///   resident set by 19–28 MB from the second to the eighth, in steps up to 15 MB; through a
///   plain `URLSession` the same downloads climb the same way. ``mapLargeBlocks()``, called the
///   first time a recording collects ``everyBytes``, fixes the threshold at 1 MiB for the rest of
///   the process, and the peak levels off after the second recording (`MemoryTests`). Blocks of 1 MiB and more then cost a mapping each: nothing
///   a test process notices, and only processes that record large bodies.
/// - **Freed pages stay in the heap.** glibc keeps a heap per thread (up to 8 per core), and a
///   heap keeps the pages it freed. ``releaseFreedPages()`` runs when a live exchange that
///   collected ``everyBytes`` ends, and once when a tape that recorded that much is ejected (its
///   threads' heaps hold what its encoding freed).
enum HeapTrim {
    /// How many bytes make a body large (2 MiB): collecting this much maps large blocks from then
    /// on, and an exchange or an ejected tape that recorded this much trims once.
    static let everyBytes = 2 << 20

    /// The mmap threshold ``mapLargeBlocks()`` sets: 1 MiB.
    static let mappedFrom: Int32 = 1 << 20

    #if canImport(Glibc)
    private typealias Trim = @convention(c) (Int) -> Int32
    private typealias Option = @convention(c) (Int32, Int32) -> Int32

    /// `M_MMAP_THRESHOLD` in glibc's `malloc.h`.
    private static let mmapThreshold: Int32 = -3

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        // A null handle is RTLD_DEFAULT: every library the process loaded.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    private static let trim = symbol("malloc_trim", as: Trim.self)

    /// Set once, the first time it is read.
    private static let mapped: Bool = {
        guard let mallopt = symbol("mallopt", as: Option.self) else { return false }
        return mallopt(mmapThreshold, mappedFrom) == 1
    }()
    #endif

    /// Returns freed heap pages to the system where the platform can; cheap to call where not.
    static func releaseFreedPages() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }

    /// Serves every block of ``mappedFrom`` bytes or more with a mapping of its own from now on,
    /// so that freeing it returns its pages. Once per process; cheap to call again.
    static func mapLargeBlocks() {
        #if canImport(Glibc)
        _ = mapped
        #endif
    }
}
