import Foundation

/// Where a cassette named in a test lives. The folder, first found wins:
///
/// 1. `folder:` given in code: absolute, or relative to the folder of the test file;
/// 2. `CASSETTE_FOLDER` in the environment: absolute, or relative to the package root (the
///    nearest folder above the test file with a `Package.swift`), else to the test file's folder;
/// 3. `Cassettes/` at the package root;
/// 4. without a `Package.swift` above the test file (an Xcode project), `Cassettes/` beside the
///    test file, as swift-snapshot-testing keeps `__Snapshots__`.
///
/// Which file a name is inside that folder (an extension, or the first of `.json`, `.http`, `.har`
/// that exists, else `.json`; a test bundle's resources when the folder does not have it) is the
/// store's answer (``CassetteStore``), the same the folder server and the commands give.
package enum CassetteLocation {
    /// The variable that moves every test's cassette folder.
    package static let folderVariable = "CASSETTE_FOLDER"

    /// The file for cassette `name`, and whether it was found in `bundle` (read-only): the
    /// folder by the rules above, the file in it by ``CassetteStore/file(named:)``.
    static func file(
        named name: String, folder: String?, bundle: Bundle?, filePath: String,
        environment: [String: String]
    ) throws(CassetteError) -> (file: URL, inBundle: Bool) {
        try CassetteStore(folder: self.folder(given: folder, filePath: filePath, environment: environment), bundle: bundle)
            .file(named: name)
    }

    /// The folder cassettes are kept in, by the rules above. The package root above a test file's
    /// folder is looked for once per process (``PackageRoots``): every test of a suite asks.
    static func folder(given folder: String?, filePath: String, environment: [String: String]) -> URL {
        let testFolder = { URL(fileURLWithPath: filePath).deletingLastPathComponent() }
        if let folder, !folder.isEmpty {
            return resolve(folder, against: testFolder())
        }
        let root = PackageRoots.root(above: filePath)
        if let variable = environment[folderVariable], !variable.isEmpty {
            return resolve(variable, against: root ?? testFolder())
        }
        return (root ?? testFolder()).appendingPathComponent("Cassettes", isDirectory: true)
    }

    /// The nearest folder above `filePath` that holds a `Package.swift`, or nil.
    package static func packageRoot(above filePath: String) -> URL? {
        var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// `path` as a folder: absolute (after `~`) as it is, else inside `base` (made only then).
    private static func resolve(_ path: String, against base: @autoclosure () -> URL) -> URL {
        if let absolute = absolute(path) { return URL(fileURLWithPath: absolute, isDirectory: true) }
        return base().appendingPathComponent((path as NSString).expandingTildeInPath, isDirectory: true).standardizedFileURL
    }

    /// `path` with a leading `~` expanded, when that makes it absolute; nil for a relative path.
    private static func absolute(_ path: String) -> String? {
        if path.hasPrefix("/") { return path }
        guard path.hasPrefix("~") else { return nil }
        let expanded = (path as NSString).expandingTildeInPath
        return expanded.hasPrefix("/") ? expanded : nil
    }
}
