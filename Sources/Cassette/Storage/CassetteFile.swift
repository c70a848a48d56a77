import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and saving cassette files, each in the format its extension names (``CassetteFormat``).
package enum CassetteFile {
    /// Reads and decodes the cassette at `file`.
    ///
    /// - Throws: ``CassetteFormatError`` for a malformed file, ``CassetteError/unreadableCassette(file:reason:)``
    ///   when it cannot be read.
    package static func read(_ file: URL) throws -> CassetteDocument {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), isFolder.boolValue {
            throw CassetteError.unreadableCassette(
                file: file.path,
                reason: "it is a folder, not a file; give the path of a cassette "
                    + "file in it, such as \(file.appendingPathComponent("name.json").path)")
        }
        let read: (data: Data, release: (@Sendable (Range<Int>) -> Void)?)
        do {
            read = try MappedFile.read(file)
        } catch {
            throw CassetteError.unreadableCassette(file: file.path, reason: reason(error))
        }
        return try CassetteFormat(path: file.path).decode(read.data, file: file.path, release: read.release)
    }

    /// Bodies of this many bytes of file or more are compared in the file, not read, when a
    /// re-recording is compared with the cassette (see ``DeferredBodies``).
    static let comparedInTheFile = 1 << 20

    /// ``read(_:)`` for comparing with a new recording: large bodies stay in the file.
    private static func readForComparison(_ file: URL) throws -> (document: CassetteDocument, deferred: DeferredBodies) {
        let read = try MappedFile.read(file)
        return try CassetteFormat(path: file.path).decode(
            read.data, file: file.path, release: read.release,
            deferringBodiesFrom: comparedInTheFile)
    }

    /// Saves what a tape recorded into `file`, safely when several processes record into the
    /// same cassette (parallel test processes, say).
    ///
    /// The save holds an exclusive lock on the cassette's folder (`flock`), so saves take turns.
    /// Under the lock the file is read again as it is now, and `recorded` is appended to what it
    /// holds — including what another process added since this tape opened it — unless
    /// `replacing` (record mode `all`), where `recorded` becomes the whole cassette. Temporary
    /// files a killed process left behind for this cassette are removed. A file that can no
    /// longer be read is not overwritten: the save fails and says why.
    ///
    /// When `replacing`, each recorded interaction that equals a stored one apart from the changes `volatile` ignores
    /// parts keeps the stored one, and when that leaves the cassette as it was the file is not
    /// written, so recording unchanged traffic again changes no byte (see ``IgnoredChanges``).
    ///
    /// A cassette that names a JSON Schema (`"$schema"`) keeps it; a new one is written naming
    /// `schema`, when given. `metadata`, when given, replaces the cassette's; nil keeps it.
    ///
    /// - Returns: whether the file was written.
    @discardableResult
    static func save(
        _ recorded: [Interaction], replacing: Bool, ignoring volatile: IgnoredChanges = .default, schema: String? = nil,
        metadata: [String: MetadataValue]? = nil, to file: URL
    ) throws(CassetteError) -> Bool {
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .saveFailed(
                file: file.path, reason: "cannot create the folder \(folder.path): \((error as NSError).localizedDescription)")
        }
        return try FolderLock.holding(folder, for: file) { () throws(CassetteError) -> Bool in
            removeLeftovers(of: file)
            var interactions = recorded
            var schema = schema
            var kept = metadata ?? [:]
            let exists = FileManager.default.fileExists(atPath: file.path)
            if replacing, exists, let stored = try? readForComparison(file) {
                schema = stored.document.schema ?? schema
                kept = metadata ?? stored.document.metadata
                // A cassette that cannot be read any more is simply replaced, as mode all says.
                if let changed = volatile.keepingStored(stored.document.interactions, deferred: stored.deferred, for: recorded) {
                    interactions = changed
                } else if kept == stored.document.metadata {
                    return false
                } else {
                    // Only the metadata changed: the stored interactions, read whole.
                    guard let whole = try? read(file) else { return false }
                    interactions = whole.interactions
                }
            } else if !replacing, exists {
                do {
                    let stored = try read(file)
                    interactions = stored.interactions + recorded
                    schema = stored.schema ?? schema
                    kept = metadata ?? stored.metadata
                } catch {
                    throw .saveFailed(
                        file: file.path,
                        reason: "the cassette on disk cannot be read any more (\(error)), so the "
                            + "\(recorded.count) new recording\(recorded.count == 1 ? "" : "s") could not be added to it")
                }
            }
            var document = CassetteDocument(schema: schema, recordedWith: CassetteVersion.recordedWith, interactions: interactions)
            document.metadata = kept
            try write(document, to: file)
            return true
        }
    }

    /// Changes the cassette at `file` in place, safely: under its folder's lock (as saves take
    /// turns), the file is read as it is now, `change` edits it, and it is written back
    /// atomically. When `change` throws, or the file cannot be read, nothing is written.
    package static func rewrite(
        _ file: URL, _ change: (inout CassetteDocument) throws(CassetteError) -> Void
    ) throws(CassetteError) {
        try FolderLock.holding(file.deletingLastPathComponent(), for: file) { () throws(CassetteError) in
            var document: CassetteDocument
            do {
                document = try read(file)
            } catch {
                throw CassetteError.saveFailed(file: file.path, reason: "it cannot be read (\(error))")
            }
            try change(&document)
            try write(document, to: file)
        }
    }

    /// Writes `document` to `file` atomically: into a temporary file in the same folder, then
    /// renamed over `file`. On any failure the temporary file is removed and `file` is untouched.
    package static func write(_ document: CassetteDocument, to file: URL) throws(CassetteError) {
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .saveFailed(
                file: file.path, reason: "cannot create the folder \(folder.path): \((error as NSError).localizedDescription)")
        }
        let temporary = folder.appendingPathComponent(temporaryPrefix(of: file) + UUID().uuidString + ".tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o666)
        guard descriptor >= 0 else {
            throw .saveFailed(file: file.path, reason: "cannot write \(temporary.path): \(String(cString: strerror(errno)))")
        }
        // Written a few megabytes at a time as it is encoded, so a cassette of hundreds of megabytes
        // is never held whole in memory; a document that cannot be written is refused before its
        // first byte, and its (empty) temporary file removed.
        var failure: String?
        var invalid: CassetteFormatError?
        do {
            try CassetteFormat(path: file.path).encode(document, inPiecesOf: 4 << 20) { piece in
                guard failure == nil else { return }
                failure = writeAll(piece, to: descriptor)
            }
        } catch {
            invalid = error
        }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let invalid {
            try? FileManager.default.removeItem(at: temporary)
            throw .saveFailed(file: file.path, reason: "the recording cannot be written as a valid cassette: \(invalid.description)")
        }
        if let failure {
            try? FileManager.default.removeItem(at: temporary)
            throw .saveFailed(file: file.path, reason: "cannot write \(temporary.path): \(failure)")
        }
        if rename(temporary.path, file.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .saveFailed(file: file.path, reason: "cannot rename the temporary file over it: \(reason)")
        }
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

    /// What the system said, in its own words ("Permission denied"), rather than Foundation's
    /// "The operation could not be completed (NSCocoaErrorDomain error 257)".
    package static func reason(_ error: Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
        if error.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: error.code) {
            case .fileReadNoSuchFile, .fileNoSuchFile: return String(cString: strerror(ENOENT))
            case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
            default: break
            }
        }
        return error.localizedDescription
    }

    /// Temporary files of `file` are `.NAME.UUID.tmp` next to it.
    private static func temporaryPrefix(of file: URL) -> String {
        ".\(file.lastPathComponent)."
    }

    /// Removes the temporary files of `file` that a process killed while saving left behind. Only
    /// under the folder lock, where no other save of this cassette is writing one.
    private static func removeLeftovers(of file: URL) {
        let folder = file.deletingLastPathComponent()
        let prefix = temporaryPrefix(of: file)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
