import Cassette
import Foundation
import Testing

@testable import CassetteCLI

/// Every command that takes a folder sees the same cassettes in it (``CassetteStore``): the
/// three extensions, nothing hidden, and never the folder's rules file, which `lint` checks as
/// rules and the other commands leave to what reads rules.
@Suite struct FolderScanTests {
    /// A folder with one cassette, a valid rules file, hidden files and folders, and a text file.
    static func folder(rules: String = #"{"matching": {"includingHeaders": ["Accept"]}, "latency": "instant"}"#) throws -> URL {
        let folder = try Locations.scratch()
        try FileManager.default.copyItem(
            atPath: Locations.examples + "/users-api.json", toPath: folder.appendingPathComponent("users-api.json").path)
        try Data(rules.utf8).write(to: folder.appendingPathComponent(TapeRules.fileName))
        try Data("not a cassette".utf8).write(to: folder.appendingPathComponent(".draft.json"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data("not a cassette".utf8).write(to: folder.appendingPathComponent(".git/old.json"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        return folder
    }

    static func interactions(in file: String) throws -> Int {
        try CassetteFiles.read(file).get().interactions.count
    }

    @Test func lintChecksTheCassettesAndTheRulesFileAsRules() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = try Self.interactions(in: folder.appendingPathComponent("users-api.json").path)
        let result = Captured.run(["lint", folder.path])
        #expect(result.out == "1 cassette, \(count) interactions, 0 errors\n")
        #expect(result.status == 0)
        #expect(result.error == "")
    }

    @Test func lintReportsAWrongRulesFileAsRules() throws {
        let folder = try Self.folder(rules: #"{"latency": "instant", "repeats": true}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = folder.appendingPathComponent(TapeRules.fileName).path
        let result = Captured.run(["lint", folder.path])
        let lines = result.out.components(separatedBy: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("\(rules):1:24: error: ") == true)
        #expect(
            lines.first?.hasSuffix(
                #"unknown member "repeats"; expected one of "matching", "redaction", "latency", "allowsRepeatedReplays", "ignore""#) == true
        )
        #expect(lines.dropFirst().first?.hasPrefix("1 cassette, ") == true)
        #expect(lines.dropFirst().first?.hasSuffix(", 1 error") == true)
        #expect(result.status == 1)
        // Named on its own, it is still checked as rules.
        let named = Captured.run(["lint", rules])
        #expect(named.out.components(separatedBy: "\n").first == lines.first)
        #expect(named.status == 1)
    }

    @Test func redactCheckSecretsAndConvertLeaveTheRulesFileAlone() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = folder.appendingPathComponent(TapeRules.fileName)
        let before = try Data(contentsOf: rules)

        let redacted = Captured.run(["redact", folder.path])
        // One line, for the one cassette (the example's second cookie value is redacted by the defaults).
        #expect(redacted.out == "\(folder.path)/users-api.json: redacted 1 of 3 interactions\n")
        #expect(redacted.error == "")
        #expect(redacted.status == 0)

        // Every file but the hidden ones: the cassette, the rules file (read as text, without a
        // note) and notes.txt.
        let checked = Captured.run(["check-secrets", folder.path])
        #expect(checked.out == "no secrets in 3 files\n")
        #expect(checked.error == "")
        #expect(checked.status == 0)

        let converted = Captured.run(["convert", rules.path, folder.appendingPathComponent("rules.har").path])
        #expect(
            converted.error
                == "\(rules.path): error: this is the folder's rules file (TapeRules), not a cassette; 'cassette lint' checks it as rules\n"
        )
        #expect(converted.status == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("rules.har").path))
        #expect(try Data(contentsOf: rules) == before)
    }

    @Test func theCommandsAndTheSuiteReportFindTheSameCassettes() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Locations.examples + "/faults.json", toPath: folder.appendingPathComponent("Sub/faults.JSON").path)
        // A link back up is followed once, not forever.
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("Sub/up").path, withDestinationPath: folder.path)
        let commands = try CassetteFiles.find(at: folder.path).get()
        #expect(commands == [folder.path + "/Sub/faults.JSON", folder.path + "/users-api.json"])
        let report = CassetteStore.find(under: [folder]).map(\.path)
        #expect(report == commands.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
    }

    @Test func aDanglingLinkIsReadAndReportedNotSkipped() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("gone.json").path, withDestinationPath: folder.appendingPathComponent("nowhere.json").path
        )
        #expect(try CassetteFiles.find(at: folder.path).get() == [folder.path + "/gone.json", folder.path + "/users-api.json"])
        #expect(CassetteStore.find(under: [folder]).map(\.lastPathComponent) == ["users-api.json"])
        let result = Captured.run(["lint", folder.path])
        #expect(result.out.hasPrefix("\(folder.path)/gone.json: error: cannot read the file: "))
        #expect(result.status == 1)
    }
}
