import Foundation

/// What in a folder is a cassette: the one answer every command that takes a folder (`lint`,
/// `redact`, `check-secrets`, `report`, `prune`), the folder server and the suite report give,
/// beside the store's answer to which file a name is (``CassetteStore/file(named:)``).
///
/// A cassette is a file named `*.json`, `*.http` or `*.har` (any case) that is not hidden (a name
/// starting with `.`), not inside a hidden folder, and not the folder's rules file
/// (``TapeRules/fileName``). Sub-folders are searched, symbolic links followed (each real folder
/// once, so a link back up cannot loop).
///
/// Nothing is skipped silently: an entry with a cassette's name that cannot be examined (a
/// dangling link) and a sub-folder that cannot be listed are returned as ``Found/unreadable``, so
/// a command that reads them says why. The suite report leaves them out: there is no cassette to
/// judge.
extension CassetteStore {
    /// What a scan found, each list sorted by path.
    package struct Found: Equatable, Sendable {
        /// The cassette files, spelled from the root as given (`Cassettes/Users/fetch.json`).
        package var cassettes: [String] = []
        /// Cassette-named entries that are not there (dangling links) and folders that cannot be listed.
        package var unreadable: [String] = []
        /// The rules files (``TapeRules/fileName``) of the folders searched: `cassette lint` checks them as rules.
        package var rules: [String] = []
        /// Every other file that is not hidden, when the scan was asked for them (`others: true`):
        /// what `cassette check-secrets` reads line by line.
        package var others: [String] = []
        /// The evidence a tape wrote beside its cassette in cassette form (`feed.misses.json`,
        /// ``isEvidenceName(_:)``): never a cassette to `lint`, `report` or `prune`; what
        /// `cassette check-secrets` reads as a cassette.
        package var evidence: [String] = []

        /// Both lists together, sorted: what a command reads (and reports failing to read).
        package var all: [String] { (cassettes + unreadable).sorted() }
    }

    /// Whether a file called `name` is taken for a cassette in a folder: not the evidence a tape
    /// writes beside one (``isEvidenceName(_:)``).
    package static func isCassetteName(_ name: String) -> Bool {
        !name.hasPrefix(".") && name != TapeRules.fileName && CassetteFormat(fileExtension: CassetteFormat.pathExtension(of: name)) != nil
            && !isEvidenceName(name)
    }

    /// Whether `name` is a misses file a tape writes beside its cassette (`feed.misses.json`,
    /// ``Tape/Options/writesMisses``), in any case.
    package static func isEvidenceName(_ name: String) -> Bool {
        name.lowercased().hasSuffix(".misses.json")
    }

    /// What is in this store's folder (``scan(_:)``).
    package func list() -> Found? { Self.scan(folder.path) }

    /// What is under `root`: a file is itself (whatever its name: it was named on purpose; a rules
    /// file named is a rules file), a folder is searched. Nil when `root` does not exist.
    ///
    /// - Parameter others: whether to list the folder's other files too (``Found/others``).
    package static func scan(_ root: String, others: Bool = false) -> Found? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder) else { return nil }
        guard isFolder.boolValue else {
            return (root as NSString).lastPathComponent == TapeRules.fileName ? Found(rules: [root]) : Found(cassettes: [root])
        }
        var found = Found()
        // Real places, compared by bytes (``ExactPath``): a folder whose name is another's in the
        // other Unicode normalization is another folder on Linux, not one already visited.
        var visited = Set<ExactPath>()
        collect(in: root, into: &found, visited: &visited, others: others)
        found.cassettes.sort()
        found.unreadable.sort()
        found.rules.sort()
        found.others.sort()
        found.evidence.sort()
        return found
    }

    /// The cassette files under `roots` (or `roots` themselves), standardized, sorted, each once:
    /// what the suite report judges. Roots that do not exist and unreadable entries are left out.
    package static func find(under roots: [URL]) -> [URL] {
        let files = roots.flatMap { scan($0.path)?.cassettes ?? [] }
        // Sorted by paths computed once: `URL.path` decodes the URL at every call.
        // Compared by bytes (``ExactPath``): two names that differ only in Unicode normalization are two files.
        let standardized = Set(files.map { ExactPath(RealPath.standardized($0)) })
        return standardized.sorted().map { URL(fileURLWithPath: $0.path) }
    }

    private static func collect(in folder: String, into found: inout Found, visited: inout Set<ExactPath>, others: Bool) {
        guard visited.insert(ExactPath(URL(fileURLWithPath: folder).resolvingSymlinksInPath().path)).inserted else { return }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            found.unreadable.append(folder)
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            if exists, isDirectory.boolValue {
                collect(in: path, into: &found, visited: &visited, others: others)
            } else if name == TapeRules.fileName, exists {
                found.rules.append(path)
            } else if isEvidenceName(name), exists {
                found.evidence.append(path)
            } else if isCassetteName(name) {
                if exists { found.cassettes.append(path) } else { found.unreadable.append(path) }
            } else if others, exists {
                found.others.append(path)
            }
        }
    }
}
