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
        let path = file.path
        let read: (data: Data, release: (@Sendable (Range<Int>) -> Void)?)
        do {
            read = try MappedFile.read(file)
        } catch is MappedFile.IsFolder {
            throw CassetteError.unreadableCassette(
                file: path,
                reason: "it is a folder, not a file; give the path of a cassette "
                    + "file in it, such as \(file.appendingPathComponent("name.json").path)")
        } catch {
            throw CassetteError.unreadableCassette(file: path, reason: reason(error))
        }
        return try CassetteFormat(path: path).decode(read.data, file: path, release: read.release)
    }

    /// Bodies of this many bytes of file or more are compared in the file, not read, when a
    /// re-recording is compared with the cassette (see ``DeferredBodies``).
    static let comparedInTheFile = 1 << 20

    /// The interactions of `file` marked as scenarios, which a re-recording (mode `all`) keeps,
    /// read without the other interactions' large bodies: those are replaced, and decoding a
    /// 100 MB body only to drop it held it in memory once more while the tape opened. When a
    /// scenario's own body is a large one, the cassette is read whole.
    ///
    /// - Throws: what ``read(_:)`` throws.
    static func scenarios(in file: URL) throws -> [Interaction] {
        let stored = try readForComparison(file)
        let scenarios = stored.document.interactions.filter { $0.scenario != nil }
        let deferred = stored.deferred
        guard
            scenarios.contains(where: {
                deferred.isPlaceholder($0.request.body) || $0.response.map { deferred.isPlaceholder($0.body) } == true
            })
        else { return scenarios }
        return try read(file).interactions.filter { $0.scenario != nil }
    }

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
    /// - Returns: whether the file was written, and what re-recording (`replacing`) changed in a
    ///   file that existed.
    @discardableResult
    static func save(
        _ recorded: [Interaction], replacing: Bool, ignoring volatile: IgnoredChanges = .default, schema: String? = nil,
        metadata: [String: MetadataValue]? = nil, to file: URL
    ) throws(CassetteError) -> (saved: Bool, changes: RerecordingChanges?) {
        return try FolderLock.holding(lockedFolder(of: file), for: file) {
            () throws(CassetteError) -> (saved: Bool, changes: RerecordingChanges?) in
            var changes: RerecordingChanges?
            AtomicFile.removeLeftovers(of: file)
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
                    changes = RerecordingChanges(
                        file: file, stored: stored.document.interactions, deferred: stored.deferred, recorded: recorded,
                        ignoring: volatile)
                } else if kept == stored.document.metadata {
                    return (false, nil)
                } else {
                    // Only the metadata changed: the stored interactions, read whole.
                    guard let whole = try? read(file) else { return (false, nil) }
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
            return (true, changes)
        }
    }

    /// Changes the cassette at `file` in place, safely: under its folder's lock (as saves take
    /// turns), the file is read as it is now, `change` edits it, and it is written back as
    /// ``AtomicFile`` writes — unless `change` left it as it was. When `change` throws, or the
    /// file cannot be read, nothing is written.
    package static func rewrite(
        _ file: URL, _ change: (inout CassetteDocument) throws(CassetteError) -> Void
    ) throws(CassetteError) {
        try FolderLock.holding(lockedFolder(of: file), for: file) { () throws(CassetteError) in
            AtomicFile.removeLeftovers(of: file)
            var document: CassetteDocument
            do {
                document = try read(file)
            } catch {
                throw CassetteError.saveFailed(file: file.path, reason: "it cannot be read (\(error))")
            }
            let before = document
            try change(&document)
            if document != before { try write(document, to: file) }
        }
    }

    /// Removes the cassette `file` under the lock of its folder, as every writer changes one
    /// (`prune`): never while another command or a tape is writing it.
    package static func remove(_ file: URL) throws(CassetteError) {
        try FolderLock.holding(lockedFolder(of: file), for: file) { () throws(CassetteError) in
            if unlink(file.path) != 0 {
                throw CassetteError.saveFailed(file: file.path, reason: "cannot remove it: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Creates `file` holding `data`, failing when something is there already — also when another
    /// process creates it at the same moment (``AtomicFile``, exclusive): `fault --as-copy`.
    package static func create(_ file: URL, with data: Data) throws(CassetteError) {
        try AtomicFile.write(data, to: file, exclusive: true)
    }

    /// Writes `document` to `file` under the lock of its folder, replacing what is there (as
    /// ``write(_:to:exclusive:)`` does): for a command that writes a whole cassette (`convert`).
    package static func replace(_ file: URL, with document: CassetteDocument) throws(CassetteError) {
        try FolderLock.holding(lockedFolder(of: file), for: file) { () throws(CassetteError) in
            AtomicFile.removeLeftovers(of: file)
            try write(document, to: file)
        }
    }

    /// Writes `document` to `file` atomically, through a link, keeping the file's mode
    /// (``AtomicFile``): encoded a few megabytes at a time as it is written, so a cassette of
    /// hundreds of megabytes is never held whole in memory; a document that cannot be written is
    /// refused before its first byte, and `file` is untouched. A JSON cassette's protobuf fields
    /// are named from the descriptor sets in its folder (``DescriptorSets``).
    ///
    /// - Parameter exclusive: fail when `file` exists, instead of replacing it.
    package static func write(_ document: CassetteDocument, to file: URL, exclusive: Bool = false) throws(CassetteError) {
        try AtomicFile.write(to: file, exclusive: exclusive) { (write) throws(CassetteError) in
            do throws(CassetteFormatError) {
                let names = DescriptorSets.names(for: document, writtenTo: file)
                try CassetteFormat(path: file.path).encode(document, inPiecesOf: 256 << 10, names: names, to: write)
            } catch {
                throw .saveFailed(file: file.path, reason: "the recording cannot be written as a valid cassette: \(error.description)")
            }
        }
    }

    /// Changes the bytes of the file at `file` in place, safely: under its folder's lock (as saves
    /// and every command that writes take turns), `change` gets the file's bytes as they are now
    /// (nil when there is no file) and returns what to write, or nil to leave it; it is written
    /// as ``AtomicFile`` writes. What `change` throws is thrown, and nothing is written.
    ///
    /// - Returns: whether the file was written.
    @discardableResult
    package static func update(_ file: URL, _ change: (Data?) throws(CassetteError) -> Data?) throws(CassetteError) -> Bool {
        try FolderLock.holding(lockedFolder(of: file), for: file) { () throws(CassetteError) -> Bool in
            AtomicFile.removeLeftovers(of: file)
            let current: Data?
            if FileManager.default.fileExists(atPath: file.path) {
                do {
                    current = try Data(contentsOf: file)
                } catch {
                    throw CassetteError.saveFailed(file: file.path, reason: "it cannot be read (\(reason(error)))")
                }
            } else {
                current = nil
            }
            guard let changed = try change(current) else { return false }
            try AtomicFile.write(changed, to: file)
            return true
        }
    }

    /// The folder whose lock a write of `file` takes: the real file's (links followed), created
    /// when missing so that it can be locked.
    static func lockedFolder(of file: URL) throws(CassetteError) -> URL {
        let folder = RealPath.of(file).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .saveFailed(
                file: file.path, reason: "cannot create the folder \(folder.path): \((error as NSError).localizedDescription)")
        }
        return folder
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
}
