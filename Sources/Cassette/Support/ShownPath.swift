import Foundation

/// A file's path as Cassette prints it, in messages, reports and the tool's output: without `.`
/// and `..` (`Cassettes/Users/../Feed/503.json` is `Cassettes/Feed/503.json`), and relative to
/// the current folder when the file is inside it — the package's folder under `swift test`,
/// `swift run` and the command plugins — else absolute. The tool's `--json` output keeps absolute
/// paths, for scripts.
package enum ShownPath {
    /// `path` (absolute, or relative to `currentFolder`) as shown from `currentFolder`.
    package static func of(_ path: String, from currentFolder: String = FileManager.default.currentDirectoryPath) -> String {
        let folder = URL(fileURLWithPath: currentFolder, isDirectory: true).standardizedFileURL.path
        let absolute = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : absolute
    }

    /// The file at `url` as shown from `currentFolder`.
    package static func of(_ url: URL, from currentFolder: String = FileManager.default.currentDirectoryPath) -> String {
        of(url.path, from: currentFolder)
    }
}
