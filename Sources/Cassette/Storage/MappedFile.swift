import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A cassette file's bytes for reading: a large file mapped into memory, so that the parser can
/// give back the pages it is done with (`release`) while the bodies are decoded. Reading a 100 MB
/// body then holds the decoded body and a few megabytes of the file, instead of both whole.
///
/// Only files of ``threshold`` bytes or more are mapped (small ones are read as usual), read-only
/// and private. Pages are released with `MADV_DONTNEED`, which for a private mapping of a file
/// drops them from memory; touching them again reads the file again. Cassette replaces a file by
/// renaming a new one over it, never in place, so a mapping always sees the file it opened. (A
/// file truncated in place by another program while it is being read could not be read safely by
/// any mapping; that is why small files, the common case, are never mapped.)
enum MappedFile {
    /// Files from this size on are mapped.
    static let threshold = 16 << 20

    /// The bytes of `file`, and what gives back memory behind the reader (nil when not mapped).
    static func read(_ file: URL) throws -> (data: Data, release: (@Sendable (Range<Int>) -> Void)?) {
        let descriptor = open(file.path, O_RDONLY)
        guard descriptor >= 0 else { return (try Data(contentsOf: file), nil) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) >= threshold else {
            return (try Data(contentsOf: file), nil)
        }
        let size = Int(status.st_size)
        // MAP_FAILED is (void *)-1, a macro Swift does not import on every platform.
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            return (try Data(contentsOf: file), nil)
        }
        let data = Data(bytesNoCopy: mapped, count: size, deallocator: .custom { pointer, count in _ = munmap(pointer, count) })
        let base = Int(bitPattern: mapped)
        let page = max(1, Int(sysconf(Int32(_SC_PAGESIZE))))
        let release: @Sendable (Range<Int>) -> Void = { range in
            // Whole pages inside the range only: the bytes around it may still be read.
            let start = (base + max(0, range.lowerBound) + page - 1) / page * page
            let end = (base + min(size, range.upperBound)) / page * page
            guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
            _ = madvise(pointer, end - start, MADV_DONTNEED)
        }
        return (data, release)
    }
}
