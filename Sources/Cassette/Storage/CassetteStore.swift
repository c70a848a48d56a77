import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of cassettes: the one answer to "which file is cassette `x`" and "what in this folder
/// is a cassette" (``scan(_:)``), for tapes, `withCassette`, the `.cassette` trait, the folder
/// server (`TapeServer.load(_:beneath:)`) and every command.
///
/// A name is a relative path inside the folder — `feed`, `UI/feed`, `UI/feed.har`:
///
/// - with `.json`, `.http` or `.har` (any case) it is that file;
/// - without, it is the file with `.json`, `.http` or `.har` that exists, in that order, else a new
///   file with the store's ``newExtension`` (`.json` unless told);
/// - refused (``CassetteError/invalidCassetteName(_:)``): an empty name, an absolute path, `..`,
///   `.`, an empty step, a backslash, a hidden step (a name starting with `.`, which listings skip,
///   so `lint`, `report` and `prune` would never see it), the folder's rules file
///   (``TapeRules/fileName``), a misses file (`feed.misses.json`, evidence, never a cassette), and a
///   symbolic link that leads out of the folder.
///
/// When the file is not in the folder and a `bundle` is given (a test bundle's resources, on a
/// device where the source tree is out of reach), it is looked up there, under `Cassettes/` first,
/// then at the bundle's root, by the same name and extensions: such a file is read-only.
package struct CassetteStore: Sendable {
    /// The folder, as given (standardized).
    package let folder: URL
    /// Where a name is looked up when the folder does not have it.
    let bundle: Bundle?
    /// The extension a new cassette gets when its name has none.
    let newExtension: String

    package init(folder: URL, bundle: Bundle? = nil, newExtension: String = "json") {
        self.folder = folder.standardizedFileURL
        self.bundle = bundle
        self.newExtension = newExtension
    }

    /// The extensions a cassette's name may end in, in the order a name without one tries them.
    package static let extensions = ["json", "http", "har"]

    /// The file cassette `name` is, and whether it was found in the bundle (read-only).
    ///
    /// - Throws: ``CassetteError/invalidCassetteName(_:)`` for a name refused above.
    package func file(named name: String) throws(CassetteError) -> (file: URL, inBundle: Bool) {
        let steps = name.split(separator: "/", omittingEmptySubsequences: false)
        // A backslash looked for as a byte: Foundation's `contains` searches by Unicode's rules.
        if name.isEmpty || name.hasPrefix("/") || name.utf8.contains(UInt8(ascii: "\\"))
            || steps.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." || $0.hasPrefix(".") })
        {
            throw .invalidCassetteName(name)
        }
        let candidates: [String] =
            CassetteFormat(fileExtension: CassetteFormat.pathExtension(of: name)) != nil
            ? [name] : Self.extensions.map { name + "." + $0 } + [name + "." + newExtension]
        guard !candidates.contains(where: { Self.isReserved(Self.lastStep(of: $0)) }) else { throw .invalidCassetteName(name) }
        // Paths, not URLs, until one is chosen: a test opens a tape by name every time (a URL is
        // built, and `appendingPathComponent` asks the file system whether it is a folder, per candidate).
        let folderPath = folder.path
        let base = folderPath.hasSuffix("/") ? folderPath : folderPath + "/"
        // The last candidate is the new file's name (for a name with an extension, the only one).
        let files = candidates.map { base + $0 }
        // A name of one step that is not a link is an entry of the folder itself, so it is inside
        // whatever the folder's real place is: only a link, a deeper name or a file found by
        // another case has its real place compared (two `realpath`s, a `readlink` per step, on
        // every open).
        let direct = steps.count == 1
        // A link counts as there even when its target is not yet: a save writes through it.
        var found: (path: String, isLink: Bool)?
        for file in files {
            if let isLink = Self.isLink(file) {
                found = (file, isLink)
                break
            }
        }
        if let found {
            if !direct || found.isLink { try checkInside(found.path, folder: folderPath, name: name) }
            return (URL(fileURLWithPath: found.path, isDirectory: false), false)
        }
        if let existing = differentlyCased(files.dropLast(candidates.count == 1 ? 0 : 1)) {
            try checkInside(existing, folder: folderPath, name: name)
            return (URL(fileURLWithPath: existing, isDirectory: false), false)
        }
        if let bundle {
            for candidate in candidates.count == 1 ? candidates : candidates.dropLast() {
                if let found = Self.resource(candidate, in: bundle) { return (found, true) }
            }
        }
        // Nothing is there, not even a link: a new file of one step is created in the folder itself.
        let new = files[files.count - 1]
        if !direct { try checkInside(new, folder: folderPath, name: name) }
        return (URL(fileURLWithPath: new, isDirectory: false), false)
    }

    /// The rules file and the evidence beside cassettes: names no cassette may have.
    private static func isReserved(_ fileName: Substring) -> Bool {
        fileName == TapeRules.fileName || isEvidenceName(String(fileName))
    }

    /// What follows the last `/` of `path` (all of it when it has none).
    private static func lastStep(of path: String) -> Substring {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path[...] }
        return path[path.utf8.index(after: slash)...]
    }

    /// Refuses a file whose real place (``RealPath``: every link on the way followed, the folder's
    /// too, whether or not they exist yet) is outside the real place of `folder` (the store's path),
    /// compared byte for byte (``ExactPath/isInside(_:)``).
    private func checkInside(_ file: String, folder: String, name: String) throws(CassetteError) {
        guard ExactPath(RealPath.of(file)).isInside(ExactPath(RealPath.of(folder))) else { throw .invalidCassetteName(name) }
    }

    /// Whether the entry at `path` is a symbolic link; nil when there is none (not even a link).
    private static func isLink(_ path: String) -> Bool? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT == S_IFLNK
    }

    /// The file among `files` whose extension is written in another case (`Feed.JSON` for
    /// `Feed.json`), as a case-insensitive file system (macOS, Windows) would find it: a name
    /// finds the same cassette on Linux.
    private func differentlyCased(_ files: ArraySlice<String>) -> String? {
        guard let first = files.first else { return nil }
        let directory = (first as NSString).deletingLastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        for file in files {
            let wanted = (file as NSString).lastPathComponent
            let stem = (wanted as NSString).deletingPathExtension
            let ext = (wanted as NSString).pathExtension.lowercased()
            if let found = names.sorted().first(where: {
                ($0 as NSString).deletingPathExtension == stem && ($0 as NSString).pathExtension.lowercased() == ext
            }) {
                return (directory as NSString).appendingPathComponent(found)
            }
        }
        return nil
    }

    /// `relative` (`Users/fetch.json`) among `bundle`'s resources: under `Cassettes/`, then at the root.
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
