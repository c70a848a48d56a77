import Foundation

/// A folder of cassettes a server loads by name (``TapeServer/load(_:beneath:)``): `feed`, `UI/feed` or
/// `UI/feed.har`. A name without an extension is the file with `.json`, `.http` or `.har` that
/// exists (in that order), else `.json`. No name leaves the folder: absolute paths, `..` and
/// symbolic links that point outside it are refused, and so is the folder's rules file
/// (``TapeRules/fileName``), which is not a cassette.
struct CassetteShelf: Sendable {
    /// The folder, with its symbolic links resolved.
    let folder: URL

    init(folder: URL) {
        self.folder = folder.standardizedFileURL.resolvingSymlinksInPath()
    }

    /// The file `name` names in the folder.
    ///
    /// - Throws: ``CassetteError/invalidCassetteName(_:)`` for a name that leaves the folder.
    func file(named name: String) throws(CassetteError) -> URL {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if name.isEmpty || name.hasPrefix("/") || name.contains("\\") || parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." }) {
            throw .invalidCassetteName(name)
        }
        let candidates: [URL]
        if CassetteFormat(fileExtension: (name as NSString).pathExtension) != nil {
            candidates = [folder.appendingPathComponent(name)]
        } else {
            candidates = ["json", "http", "har"].map { folder.appendingPathComponent(name + "." + $0) }
        }
        let file = candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates[0]
        // The rules file is read as rules (CassetteFolderScan), never loaded as a cassette.
        guard file.lastPathComponent != TapeRules.fileName else { throw .invalidCassetteName(name) }
        // A link anywhere on the way must not lead out: compare the place it really is.
        let real =
            FileManager.default.fileExists(atPath: file.path)
            ? file.resolvingSymlinksInPath()
            : file.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(file.lastPathComponent)
        guard real.path.hasPrefix(folder.path + "/") else { throw .invalidCassetteName(name) }
        return file
    }
}
