import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way Cassette writes a cassette file — a tape's save, and every command that writes
/// (`fault`, `lint --fix`, `redact`, `convert`, `prune`, `check --update`):
///
/// - **Atomic**: into a temporary file beside the real one, then renamed over it, so a failed or
///   killed write leaves the old file as it was. The temporary name fits wherever the file's own
///   does (a 255-byte name is saved). Temporary files (`.NAME.RANDOM.tmp`) a killed
///   process left are removed by the next write of the same file, under the folder's lock.
/// - **Through links**: a symbolic link is followed and its target replaced (or created, for a
///   link whose target is not there yet); the link stays.
/// - **Keeping the mode**: a replaced file keeps its permissions (a `0600` cassette stays `0600`);
///   a new one is created `0644` (less what the umask takes away).
/// - **Never over what the user may not write**: a file without write permission for this user, or
///   read-only for everyone (`0444`, which root could still write), is refused with why, not replaced.
/// - **Exclusive when asked**: a new file that must not replace one (`fault --as-copy`) is linked
///   into place only if nothing is there, so of two such writes at once exactly one succeeds.
///
/// Writers that read, change and write a cassette take its folder's lock around all three
/// (``CassetteFile/update(_:_:)``, ``CassetteFile/rewrite(_:_:)``, saves), so concurrent changes
/// queue and none is lost.
enum AtomicFile {
    /// Where a write to `file` lands: its real path (links followed), and the mode to keep (nil: a new file).
    ///
    /// - Throws: ``CassetteError/saveFailed(file:reason:)`` when the file exists and this user may not write it.
    static func target(of file: URL) throws(CassetteError) -> (real: URL, mode: mode_t?) {
        // A dangling link too: its target is created, the link stays.
        let real = RealPath.of(file)
        var status = stat()
        guard stat(real.path, &status) == 0 else { return (real, nil) }
        // Read-only for everyone (0444) is refused for root too, who may write anything: the mode
        // says the file is not to change.
        if access(real.path, W_OK) != 0 || status.st_mode & 0o222 == 0 {
            throw .saveFailed(
                file: file.path,
                reason: "you may not write it (mode \(String(status.st_mode & 0o777, radix: 8))): it is left as it is; "
                    + "make it writable (chmod u+w) if it should change")
        }
        return (real, status.st_mode & 0o7777)
    }

    /// Writes what `produce` hands its writer to `file`, as described on the type. `produce` is
    /// called once; what it throws is thrown, and nothing is written.
    ///
    /// - Parameter exclusive: fail when `file` exists, instead of replacing it.
    static func write(
        to file: URL, exclusive: Bool = false,
        _ produce: (_ write: @escaping (ArraySlice<UInt8>) -> Void) throws(CassetteError) -> Void
    ) throws(CassetteError) {
        let (real, mode) = try target(of: file)
        if exclusive, mode != nil || isLink(file) {
            throw .saveFailed(file: file.path, reason: "it already exists; choose another name, or delete it first")
        }
        let folder = real.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .saveFailed(
                file: file.path, reason: "cannot create the folder \(folder.path): \((error as NSError).localizedDescription)")
        }
        let temporary = folder.appendingPathComponent(temporaryPrefix(of: real) + uniqueSuffix())
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, mode ?? 0o644)
        guard descriptor >= 0 else {
            throw .saveFailed(file: file.path, reason: "cannot write \(temporary.path): \(String(cString: strerror(errno)))")
        }
        // The umask narrowed the mode of the temporary file: a replaced file keeps its own exactly.
        if let mode { _ = fchmod(descriptor, mode) }
        var failure: String?
        var thrown: CassetteError?
        do {
            try produce { piece in
                guard failure == nil else { return }
                failure = writeAll(piece, to: descriptor)
            }
        } catch {
            thrown = error
        }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let thrown {
            unlink(temporary.path)
            throw thrown
        }
        if let failure {
            unlink(temporary.path)
            throw .saveFailed(file: file.path, reason: "cannot write \(temporary.path): \(failure)")
        }
        if exclusive {
            // link(2) refuses an existing name: of two exclusive writes at once, one wins.
            let linked = link(temporary.path, real.path)
            let error = errno
            unlink(temporary.path)
            if linked != 0 {
                throw .saveFailed(
                    file: file.path,
                    reason: error == EEXIST
                        ? "it already exists; choose another name, or delete it first" : String(cString: strerror(error)))
            }
            return
        }
        if rename(temporary.path, real.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw .saveFailed(file: file.path, reason: "cannot rename the temporary file over it: \(reason)")
        }
    }

    /// Writes `data` to `file` (see ``write(to:exclusive:_:)``).
    static func write(_ data: Data, to file: URL, exclusive: Bool = false) throws(CassetteError) {
        try write(to: file, exclusive: exclusive) { write in write(ArraySlice(data)) }
    }

    private static func isLink(_ file: URL) -> Bool {
        var status = stat()
        return lstat(file.path, &status) == 0
    }

    /// Writes all of `bytes` to `descriptor`; what went wrong, or nil.
    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var offset = 0
            while offset < raw.count {
                guard let base = raw.baseAddress else { return nil }
                let written = Foundation.write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }

    /// The longest name a file system gives a file, in bytes (Linux's `NAME_MAX`, APFS's limit).
    static let longestName = 255

    /// Temporary files of `file` are `.NAME.` and 16 random hex digits and `.tmp`, next to it:
    /// `NAME` cut (at a character) so the whole fits wherever `file`'s own name fits.
    static func temporaryPrefix(of file: URL) -> String {
        let room = longestName - 2 - uniqueSuffixLength
        var name = file.lastPathComponent
        while name.utf8.count > room { name.removeLast() }
        return ".\(name)."
    }

    /// 16 hex digits of a new UUID and `.tmp`.
    private static func uniqueSuffix() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)) + ".tmp"
    }

    private static let uniqueSuffixLength = 20

    /// Removes the temporary files of `file` that a process killed while writing left behind. Only
    /// under the folder lock, where no other write of this file is making one.
    static func removeLeftovers(of file: URL) {
        let real = RealPath.of(file)
        let folder = real.deletingLastPathComponent()
        let prefix = temporaryPrefix(of: real)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink(folder.appendingPathComponent(name).path)
        }
    }
}
