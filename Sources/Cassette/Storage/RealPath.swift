import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's identity: its real path, every symbolic link on the way followed — also a link whose
/// target does not exist yet, and a path whose last steps do not exist yet (their real place is
/// their nearest existing folder's). A cassette opened as `Login/success.json`, a link to
/// `../Shared/login.json`, is the same cassette as `Shared/login.json` to the ledger's report,
/// `prune`, the store's containment check and every write.
package enum RealPath {
    /// The real path of `path` (absolute, or taken from the current folder).
    package static func of(_ path: String) -> String {
        // An existing file (nearly always): one `realpath`, no URL built.
        if path.hasPrefix("/"), let resolved = realPath(path) { return resolved }
        return resolve(URL(fileURLWithPath: path).standardizedFileURL.path, hops: 0)
    }

    /// `path` without `.` and `..` components, as `standardizedFileURL` gives it; a path that has
    /// none (what tapes write into the ledger, what a folder's listing gives) is returned as it
    /// is, without building a URL.
    package static func standardized(_ path: String) -> String {
        isPlain(path) ? path : URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Whether `path` is absolute, without a trailing slash, and no component of it is empty, `.`
    /// or `..`: one pass over its bytes (a report over 10,000 cassettes asks it of each).
    private static func isPlain(_ path: String) -> Bool {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        guard path.utf8.first == slash else { return false }
        var length = 0
        var onlyDots = true
        for byte in path.utf8.dropFirst() {
            if byte == slash {
                if length == 0 || (onlyDots && length <= 2) { return false }
                (length, onlyDots) = (0, true)
            } else {
                length += 1
                if byte != dot { onlyDots = false }
            }
        }
        return length > 0 && !(onlyDots && length <= 2)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The real path of `file`.
    package static func of(_ file: URL) -> URL {
        URL(fileURLWithPath: of(file.path))
    }

    /// Real paths of many files, each folder resolved once: a file that is not a link is its real
    /// folder and its name (one `lstat`), so a report over 10,000 cassettes does not resolve
    /// every step of every path again.
    package struct Cache {
        private var folders: [ExactPath: String] = [:]

        package init() {}

        /// The real path of the absolute, standardized `path`.
        package mutating func of(_ path: String) -> String {
            guard path.hasPrefix("/"), let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return RealPath.of(path) }
            let name = path[path.index(after: slash)...]
            guard !name.isEmpty, name != ".", name != "..", linkTarget(path) == nil else { return RealPath.of(path) }
            let folder = ExactPath(slash == path.startIndex ? "/" : String(path[..<slash]))
            let real: String
            if let known = folders[folder] {
                real = known
            } else {
                real = RealPath.of(folder.path)
                folders[folder] = real
            }
            return real.hasSuffix("/") ? real + name : real + "/" + name
        }
    }

    /// As many links as `realpath` follows before it gives up on a loop.
    private static let maximumHops = 40

    private static func resolve(_ path: String, hops: Int) -> String {
        if let resolved = realPath(path) { return resolved }
        guard path != "/", !path.isEmpty, hops < maximumHops else { return path }
        let parent = (path as NSString).deletingLastPathComponent
        if let target = linkTarget(path) {
            let joined = target.hasPrefix("/") ? target : (parent as NSString).appendingPathComponent(target)
            return resolve(URL(fileURLWithPath: joined).standardizedFileURL.path, hops: hops + 1)
        }
        let realParent = resolve(parent.isEmpty ? "/" : parent, hops: hops)
        return (realParent as NSString).appendingPathComponent((path as NSString).lastPathComponent)
    }

    /// What the symbolic link at `path` holds, or nil when `path` is not a link.
    private static func linkTarget(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
