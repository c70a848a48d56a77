import Cassette
import CassetteTestSupport
import CassetteTools
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every command that writes a cassette writes it as tapes do (`AtomicFile`): through a symbolic
/// link (the link stays), keeping the file's mode, never over a read-only file, and under the
/// folder's lock, so two commands at once both land.
@Suite(.timingIsolated) struct FileSafetyTests {
    static func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0
    }

    static func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// A copy of the committed `faults.json` in `folder/real`, `0600`, and a link to it in `folder/Cassettes`.
    static func linkedFaults(in folder: URL) throws -> (link: String, target: String) {
        let real = folder.appendingPathComponent("real")
        let cassettes = folder.appendingPathComponent("Cassettes")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: cassettes, withIntermediateDirectories: true)
        let target = real.appendingPathComponent("faults.json")
        try Data(contentsOf: PackagePaths.examples.appendingPathComponent("faults.json")).write(to: target)
        chmod(target.path, 0o600)
        let link = cassettes.appendingPathComponent("faults.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "../real/faults.json")
        return (link.path, target.path)
    }

    @Test func faultWritesThroughALinkAndKeepsTheMode() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (link, target) = try Self.linkedFaults(in: folder)
        let result = Captured.run(["fault", link, "--interaction", "4", "--status", "502"])
        #expect(result.status == 0, "\(result.error)")
        #expect(Self.isLink(link), "the link was replaced by a file")
        #expect(try CassetteFile.read(URL(fileURLWithPath: target)).interactions[3].response?.status == 502)
        #expect(Self.mode(target) == 0o600)
    }

    @Test func lintFixWritesThroughALinkAndKeepsTheMode() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (link, target) = try Self.linkedFaults(in: folder)
        // An edit that left Content-Length behind: 9 bytes said, "hello" written.
        let text = """
            { "version": 1, "interactions": [
              { "request": { "method": "GET", "url": "https://api.example.com/a" },
                "response": { "status": 200, "headers": { "Content-Length": "%@" }, "body": "hello" } }
            ] }

            """
        try Data(text.replacingOccurrences(of: "%@", with: "9").utf8).write(to: URL(fileURLWithPath: target))
        let result = Captured.run(["lint", "--fix", link])
        #expect(result.status == 0, "\(result.out) \(result.error)")
        #expect(result.out.contains("fixed"), "\(result.out)")
        #expect(Self.isLink(link), "the link was replaced by a file")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == text.replacingOccurrences(of: "%@", with: "5"))
        #expect(Self.mode(target) == 0o600)
    }

    /// A read-only cassette (`0444`) is refused — for root too — and left as it was.
    @Test func aReadOnlyCassetteIsRefusedNotReplaced() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, target) = try Self.linkedFaults(in: folder)
        chmod(target, 0o444)
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        let result = Captured.run(["fault", target, "--interaction", "4", "--status", "502"])
        #expect(result.status == 1)
        #expect(result.error.contains("you may not write it (mode 444): it is left as it is"), "\(result.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == before)
        #expect(Self.mode(target) == 0o444)
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// A new cassette is created `0644` at most, never `0666` — even under a umask that takes
    /// nothing away (the tool runs in a child process with `umask 0`).
    @Test func aNewCassetteIsCreated0644AtMost() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("new.http").path
        let source = PackagePaths.examples.appendingPathComponent("faults.json").path
        let tool = ChildProcess.url(of: "cassette").path
        let result = try ChildProcess.run(
            executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "umask 0 && exec \"$0\" convert \"$1\" \"$2\"", tool, source, out])
        #expect(result.status == 0, "\(result.output)")
        #expect(Self.mode(out) == 0o644, "mode \(String(Self.mode(out), radix: 8))")
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    /// Runs the `cassette` tool with each argument list at once, in child processes; their exit statuses.
    static func atOnce(_ runs: [[String]]) throws -> [(status: Int32, output: String)] {
        let tool = ChildProcess.url(of: "cassette").path
        let started = try runs.map {
            try SpawnedProcess(executable: tool, $0, environment: ChildProcess.environment(), mergingErrors: true)
        }
        return started.map { process in
            let (status, output, _) = process.finish()
            return (status, String(decoding: output, as: UTF8.self))
        }
    }

    /// Two `fault` runs at once on one cassette, on different interactions: both changes land, five times out of five.
    @Test func twoFaultsAtOnceBothLand() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("faults.json")
        for round in 1...5 {
            try Data(contentsOf: PackagePaths.examples.appendingPathComponent("faults.json")).write(to: file)
            let results = try Self.atOnce([
                ["fault", file.path, "--interaction", "4", "--status", "502"],
                ["fault", file.path, "--interaction", "5", "--status", "504"],
            ])
            #expect(results.map(\.status) == [0, 0], "round \(round): \(results.map(\.output))")
            let statuses = try CassetteFile.read(file).interactions.map { $0.response?.status }
            #expect(statuses[3] == 502 && statuses[4] == 504, "round \(round): one change was lost: \(statuses)")
        }
    }

    /// Two `fault --as-copy` runs at once naming the same copy: exactly one writes it, the other is refused.
    @Test func twoCopiesAtOnceOneWins() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("faults.json")
        try Data(contentsOf: PackagePaths.examples.appendingPathComponent("faults.json")).write(to: file)
        for round in 1...5 {
            let copy = folder.appendingPathComponent("scen.json")
            try? FileManager.default.removeItem(at: copy)
            let results = try Self.atOnce([
                ["fault", file.path, "--interaction", "4", "--status", "502", "--as-copy", "scen"],
                ["fault", file.path, "--interaction", "4", "--status", "504", "--as-copy", "scen"],
            ])
            #expect(results.map(\.status).sorted() == [0, 1], "round \(round): \(results.map(\.output))")
            let refused = results.first(where: { $0.status == 1 }).map(\.output) ?? ""
            #expect(refused.contains("already exists"), "round \(round): \(refused)")
            let status = try CassetteFile.read(copy).interactions[3].response?.status
            let winner = results.firstIndex { $0.status == 0 }
            #expect(status == (winner == 0 ? 502 : 504), "round \(round): the copy is not the winner's")
        }
    }
    #endif
}

extension FileSafetyTests {
    /// Three interactions: #0 with a `Content-Length` an edit left wrong (for `lint --fix`), #1 with
    /// a bearer token (for `redact`), #2 a plain 200 (for `fault`).
    static let mixed = """
        { "version": 1, "interactions": [
          { "request": { "method": "GET", "url": "https://api.example.com/a" },
            "response": { "status": 200, "headers": { "Content-Length": "9" }, "body": "hello" } },
          { "request": { "method": "GET", "url": "https://api.example.com/b", "headers": { "Authorization": "Bearer secret-token-1234567" } },
            "response": { "status": 200, "body": "b" } },
          { "request": { "method": "GET", "url": "https://api.example.com/c" }, "response": { "status": 200, "body": "c" } }
        ] }

        """

    #if os(Linux) || os(macOS)  // starts a process
    /// `fault` at once with `lint --fix`, and with `redact`, on one cassette: every change lands.
    @Test func differentWritersAtOnceAllLand() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("mixed.json")
        for round in 1...3 {
            for other in [["lint", "--fix", file.path], ["redact", file.path]] {
                try Data(Self.mixed.utf8).write(to: file)
                let results = try Self.atOnce([["fault", file.path, "--interaction", "3", "--status", "503"], other])
                #expect(results.map(\.status) == [0, 0], "round \(round), \(other[0]): \(results.map(\.output))")
                let interactions = try CassetteFile.read(file).interactions
                #expect(interactions[2].response?.status == 503, "round \(round), \(other[0]): the fault was lost")
                if other[0] == "lint" {
                    #expect(interactions[0].response?.headers["Content-Length"] == "5", "round \(round): the fix was lost")
                } else {
                    #expect(
                        interactions[1].request.headers["Authorization"] == "Bearer [REDACTED-1]",
                        "round \(round): the redaction was lost: \(interactions[1].request.headers)")
                }
            }
        }
    }
    #endif

    /// A temporary file a writer killed mid-write left beside the cassette is gone after the next write.
    @Test func aKilledWritersTemporaryFileIsSweptByTheNextWrite() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("faults.json")
        try Data(contentsOf: PackagePaths.examples.appendingPathComponent("faults.json")).write(to: file)
        let leftover = folder.appendingPathComponent(".faults.json.6F9619FF-8B86-D011-B42D-00C04FC964FF.tmp")
        try Data(repeating: 0x41, count: 1 << 20).write(to: leftover)
        let result = Captured.run(["fault", file.path, "--interaction", "4", "--status", "502"])
        #expect(result.status == 0, "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["faults.json"])
    }
}
