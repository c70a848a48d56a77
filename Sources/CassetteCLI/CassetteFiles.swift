import Cassette
import Foundation

/// Finds the cassette files a command was pointed at.
enum CassetteFiles {
    struct NotFound: Error {
        var message: String
    }

    /// `path` itself when it is a file; every cassette (`*.json`, `*.http`, `*.har`) below it,
    /// sorted, when it is a folder
    /// (skipping folders whose names start with "."); an error when it does not exist or a
    /// folder holds no cassettes. Nothing is skipped silently: a `*.json` entry that cannot be
    /// examined (a dangling link) is still returned, so reading it reports why, and a sub-folder
    /// that cannot be listed is returned too, so linting it reports why.
    static func find(at path: String) -> Result<[String], NotFound> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(NotFound(message: "no such file or folder"))
        }
        guard isDirectory.boolValue else { return .success([path]) }
        var found: [String] = []
        collect(in: path, into: &found)
        guard !found.isEmpty else {
            return .failure(NotFound(message: "no cassettes (*.json, *.http, *.har) in this folder"))
        }
        return .success(found.sorted())
    }

    private static func collect(in folder: String, into found: inout [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            found.append(folder)  // reading it as a cassette fails and says so
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            if exists, isDirectory.boolValue {
                collect(in: path, into: &found)
            } else if CassetteFormat(fileExtension: (name as NSString).pathExtension) != nil {
                found.append(path)
            }
        }
    }

    /// The cassette in `file`, read in the format its extension names, or why it cannot be read
    /// (the file itself, or every problem in it).
    static func read(_ file: String) -> Result<CassetteDocument, CassetteFormatError> {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            return .failure(
                CassetteFormatError(
                    file: file, problems: [.init(path: nil, message: "cannot read the file: \(error.localizedDescription)")]))
        }
        return Result { () throws(CassetteFormatError) in try CassetteFormat(path: file).decode(data, file: file) }
    }
}
