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

    /// `file` is a folder (``read(_:)`` throws it, for the caller to say so in its words).
    struct IsFolder: Error {}

    /// The bytes of `file`, and what gives back memory behind the reader (nil when not mapped).
    /// A small file is read from the descriptor opened to look at it (one `open`, one `fstat`):
    /// every test opening its cassette pays for this. Whatever cannot be opened or read that way
    /// is read by `Data(contentsOf:)`, whose error says why.
    ///
    /// - Throws: ``IsFolder`` for a folder; `Data(contentsOf:)`'s error for a file it cannot read.
    static func read(_ file: URL) throws -> (data: Data, release: (@Sendable (Range<Int>) -> Void)?) {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return (try Data(contentsOf: file), nil) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return (try Data(contentsOf: file), nil) }
        if (status.st_mode & S_IFMT) == S_IFDIR { throw IsFolder() }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return (try Data(contentsOf: file), nil) }
        let size = Int(status.st_size)
        guard size >= threshold else {
            guard let data = readWhole(descriptor, expected: size) else { return (try Data(contentsOf: file), nil) }
            return (data, nil)
        }
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

    /// Everything `descriptor` holds from where it is, read until its end (more than `expected`
    /// bytes if the file grew since it was measured); nil when a read fails.
    private static func readWhole(_ descriptor: Int32, expected: Int) -> Data? {
        var data = Data(count: max(expected, 0) + 1)
        var count = 0
        while true {
            if count == data.count { data.count += max(4_096, data.count) }
            let read = data.withUnsafeMutableBytes { buffer in
                readDescriptor(descriptor, buffer.baseAddress.map { $0 + count }, buffer.count - count)
            }
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else { return nil }
            if read == 0 { break }
            count += read
        }
        data.count = count
        return data
    }
}

/// `read(2)`, out of reach of ``MappedFile/read(_:)``'s name.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
