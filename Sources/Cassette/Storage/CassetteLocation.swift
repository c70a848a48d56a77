import Foundation

/// Where a cassette named in a test lives: `Cassettes/<name>.json` at the root of the package
/// that holds the test's source file. A name ending in `.json`, `.http` or `.har` keeps its
/// extension, and the cassette is kept in that format.
enum CassetteLocation {
    /// The file for cassette `name` in `folder`, or in the package's `Cassettes/` folder.
    static func file(named name: String, in folder: URL?, filePath: String) throws(CassetteError) -> URL {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if name.isEmpty || name.hasPrefix("/") || parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." }) {
            throw .invalidCassetteName(name)
        }
        let base: URL
        if let folder {
            base = folder
        } else {
            base = try packageRoot(above: filePath).appendingPathComponent("Cassettes", isDirectory: true)
        }
        let hasExtension = CassetteFormat(fileExtension: (name as NSString).pathExtension) != nil
        return base.appendingPathComponent(hasExtension ? name : name + ".json")
    }

    /// The nearest folder above `filePath` that holds a `Package.swift`.
    static func packageRoot(above filePath: String) throws(CassetteError) -> URL {
        var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { throw .packageRootNotFound(from: filePath) }
            folder = parent
        }
    }
}
