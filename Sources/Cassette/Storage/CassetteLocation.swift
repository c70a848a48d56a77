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
/// When the file is not there and a `bundle` is given (a test bundle's resources, for runs on a
/// device where the source tree is out of reach), the cassette is looked up in the bundle: under
/// `Cassettes/` first, then at the bundle's root, by the same relative name.
///
/// A name ending in `.json`, `.http` or `.har` keeps its extension, and the cassette is kept in
/// that format; any other name gets `.json`.
package enum CassetteLocation {
    /// The variable that moves every test's cassette folder.
    package static let folderVariable = "CASSETTE_FOLDER"

    /// The file for cassette `name`, and whether it was found in `bundle` (read-only).
    static func file(
        named name: String, folder: String?, bundle: Bundle?, filePath: String,
        environment: [String: String]
    ) throws(CassetteError) -> (file: URL, inBundle: Bool) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if name.isEmpty || name.hasPrefix("/") || parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." }) {
            throw .invalidCassetteName(name)
        }
        let hasExtension = CassetteFormat(fileExtension: (name as NSString).pathExtension) != nil
        let relative = hasExtension ? name : name + ".json"
        let file = self.folder(given: folder, filePath: filePath, environment: environment).appendingPathComponent(relative)
        if let bundle, !FileManager.default.fileExists(atPath: file.path), let found = resource(relative, in: bundle) {
            return (found, true)
        }
        return (file, false)
    }

    /// The folder cassettes are kept in, by the rules above.
    static func folder(given folder: String?, filePath: String, environment: [String: String]) -> URL {
        let testFolder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        if let folder, !folder.isEmpty {
            return resolve(folder, against: testFolder)
        }
        let root = packageRoot(above: filePath)
        if let variable = environment[folderVariable], !variable.isEmpty {
            return resolve(variable, against: root ?? testFolder)
        }
        return (root ?? testFolder).appendingPathComponent("Cassettes", isDirectory: true)
    }

    /// The nearest folder above `filePath` that holds a `Package.swift`, or nil.
    static func packageRoot(above filePath: String) -> URL? {
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

    private static func resolve(_ path: String, against base: URL) -> URL {
        let expanded = (path as NSString).expandingTildeInPath
        return expanded.hasPrefix("/")
            ? URL(fileURLWithPath: expanded, isDirectory: true)
            : base.appendingPathComponent(expanded, isDirectory: true).standardizedFileURL
    }

    /// `relative` (`Users/fetch.json`) among `bundle`'s resources.
    private static func resource(_ relative: String, in bundle: Bundle) -> URL? {
        let name = (relative as NSString).lastPathComponent
        let subfolder = (relative as NSString).deletingLastPathComponent
        let base = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        for directory in [subfolder.isEmpty ? "Cassettes" : "Cassettes/" + subfolder, subfolder] {
            if let url = bundle.url(forResource: base, withExtension: ext, subdirectory: directory.isEmpty ? nil : directory) {
                return url
            }
        }
        return nil
    }
}
