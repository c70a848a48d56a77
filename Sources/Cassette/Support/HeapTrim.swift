#if canImport(Glibc)
import Glibc
#endif

/// Gives the pages of freed heap memory back to the system: glibc's `malloc_trim`, found at run
/// time (the Glibc module does not export it); nothing on other platforms.
///
/// Recording a large body on Linux needs it. The live request's delegate runs on URLSession's
/// shared queue (``LiveForwarder``), so while a fast server sends, FoundationNetworking queues the
/// body's pieces faster than the delegate collects them; once collected, they are freed, but glibc
/// keeps the freed pages of its heap, and a 100 MB body held twice its size in memory (measured:
/// `memory_record_100mb` 1.9–2.2× without this, 1.33× with it). ``LiveForwarder`` calls this after
/// every 8 MiB it collects, so small bodies never pay for it.
enum HeapTrim {
    #if canImport(Glibc)
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = {
        // A null handle is RTLD_DEFAULT: every library the process loaded.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
    }()
    #endif

    /// Returns freed heap pages to the system where the platform can; cheap to call where not.
    static func releaseFreedPages() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }
}
