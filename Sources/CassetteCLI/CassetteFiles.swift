import Cassette
import Foundation

/// Finds the cassette files a command was pointed at.
enum CassetteFiles {
    struct NotFound: Error {
        var message: String
    }

    /// `path` itself when it is a file; every cassette below it, sorted, when it is a folder
    /// (``CassetteStore``: never the rules file, nothing hidden); an error when it does not
    /// exist or a folder holds no cassettes. A dangling link with a cassette's name and a
    /// sub-folder that cannot be listed are returned too, so reading them reports why.
    static func find(at path: String) -> Result<[String], NotFound> {
        scan(path).map(\.all)
    }

    /// What ``find(at:)`` finds, with the rules files beside the cassettes.
    static func scan(_ path: String) -> Result<CassetteStore.Found, NotFound> {
        guard let found = CassetteStore.scan(path) else {
            return .failure(NotFound(message: "no such file or folder"))
        }
        guard !found.all.isEmpty || !found.rules.isEmpty else {
            return .failure(NotFound(message: "no cassettes (*.json, *.http, *.har) in this folder"))
        }
        return .success(found)
    }

    /// The cassette in `file`, read in the format its extension names (``CassetteFile/read(_:)``,
    /// as a tape reads it), or why it cannot be read: the file itself, in words (a folder, no such
    /// file, permission denied), or every problem in it.
    static func read(_ file: String) -> Result<CassetteDocument, CassetteFormatError> {
        if (file as NSString).lastPathComponent == TapeRules.fileName {
            return .failure(
                CassetteFormatError(
                    file: file,
                    problems: [
                        .init(
                            path: nil,
                            message: "this is the folder's rules file (TapeRules), not a cassette; 'cassette lint' checks it as rules")
                    ]))
        }
        do {
            return .success(try CassetteFile.read(URL(fileURLWithPath: file)))
        } catch var error as CassetteFormatError {
            error.file = file  // as the command line named it
            return .failure(error)
        } catch CassetteError.unreadableCassette(_, let reason) {
            return .failure(CassetteFormatError(file: file, problems: [.init(path: nil, message: "cannot read the file: \(reason)")]))
        } catch {
            return .failure(CassetteFormatError(file: file, problems: [.init(path: nil, message: "cannot read the file: \(error)")]))
        }
    }
}
