import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and saving cassette files.
enum CassetteFile {
    /// Reads and decodes the cassette at `file`.
    ///
    /// - Throws: ``CassetteFormatError`` for a malformed file, ``CassetteError/unreadableCassette(file:reason:)``
    ///   when it cannot be read.
    static func read(_ file: URL) throws -> CassetteDocument {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw CassetteError.unreadableCassette(file: file.path, reason: (error as NSError).localizedDescription)
        }
        return try JSONCassetteCodec.decode(data, file: file.path)
    }

    /// Writes `document` to `file` atomically: into a temporary file in the same folder, then
    /// renamed over `file`. On any failure the temporary file is removed and `file` is untouched.
    static func write(_ document: CassetteDocument, to file: URL) throws(CassetteError) {
        let data: Data
        do {
            data = try JSONCassetteCodec.encode(document)
        } catch {
            throw .saveFailed(file: file.path, reason: "the recording cannot be written as a valid cassette: \(error.description)")
        }
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .saveFailed(file: file.path, reason: "cannot create the folder \(folder.path): \((error as NSError).localizedDescription)")
        }
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .saveFailed(file: file.path, reason: "cannot write \(temporary.path): \((error as NSError).localizedDescription)")
        }
        if rename(temporary.path, file.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .saveFailed(file: file.path, reason: "cannot rename the temporary file over it: \(reason)")
        }
    }
}
