import Cassette
import Foundation

/// `cassette convert IN OUT`: the same cassette in another format, chosen by the extensions.
enum ConvertCommand {
    static let usage = """
        USAGE: cassette convert IN OUT

        Reads the cassette IN and writes it to OUT, each in the format its extension names:
        .json (Cassette's JSON), .http (HTTP messages) or .har (HAR 1.2). Nothing is lost between
        the three. OUT is replaced atomically if it exists; IN and OUT may be the same file, which
        rewrites it in canonical form.

        EXIT STATUS: 0 converted, 1 IN cannot be read or OUT cannot be written (the reason on
        standard error), 2 the command line was wrong (including an OUT extension that names no format).
        """

    static func run(_ arguments: [String], output: ConsoleOutput) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(arguments, command: "convert", usage: usage, output: output) {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard list.operands.count == 2 else {
            return output.usageError("'cassette convert' takes two files, IN and OUT", command: "convert")
        }
        let (input, destination) = (list.operands[0], list.operands[1])
        guard let format = CassetteFormat(fileExtension: CassetteFormat.pathExtension(of: destination)) else {
            let extensions = CassetteFormat.fileExtensions.map { "." + $0 }.joined(separator: ", ")
            return output.usageError("cannot tell the format of '\(destination)' from its extension; use \(extensions)", command: "convert")
        }
        let document: CassetteDocument
        switch CassetteFiles.read(input) {
        case .failure(let error):
            output.errorLine(error.description)
            return ExitCode.failure
        case .success(let read):
            document = read
        }
        do {
            try CassetteFile.replace(URL(fileURLWithPath: destination), with: document)
        } catch {
            output.errorLine("error: \(error)")
            return ExitCode.failure
        }
        let count = document.interactions.count
        output.line("\(input) (\(CassetteFormat(path: input))) → \(destination) (\(format)): \(count) interaction\(count == 1 ? "" : "s")")
        return ExitCode.success
    }
}
