import Foundation
import Testing

@testable import Cassette

/// Ledger lines: written by hand, read back with the project's JSON, the same values both ways.
@Suite struct LedgerRecordTests {
    static let at = Date(timeIntervalSince1970: 1_795_000_000.123)

    static let records: [LedgerRecord] = [
        .process(
            .init(pid: 4711, started: at, arguments: ["--testing-library", "swift-testing"], runnerArguments: ["--parallel"], filter: nil)),
        .process(.init(pid: 4712, started: at, arguments: [], runnerArguments: nil, filter: "--filter Feed")),
        .tape(
            .init(
                cassette: "/pkg/Cassettes/Feed/\"quoted\" \\ back\nslash é.json", beneath: ["/pkg/Cassettes/Common/signed-in.json"],
                test: "App.FeedTests/loads()", testFile: "/pkg/Tests/FeedTests.swift", mode: "none", opened: at, interactions: 3,
                replayed: [1], oldestReplayed: at.addingTimeInterval(-86_400), unused: [2, 3],
                unusedShown: ["#2 GET https://api.example.com/feed?page=2", "#3 POST https://api.example.com/feed"], recorded: 0,
                saved: false, misses: ["GET https://api.example.com/feed?\u{1}"], fileSize: 1_234, fileModified: at, maximumAge: 2_592_000.5
            )),
        .tape(.init(cassette: "/a.json", mode: "all", opened: at, interactions: 0)),
        .end(.init(ended: at)),
    ]

    @Test func eachRecordReadsBackAsWritten() throws {
        let data = Data(Self.records.map(\.line).joined())
        #expect(try LedgerRecord.records(in: data) == Self.records)
        #expect(data.split(separator: 0x0A).count == Self.records.count)
        #expect(
            String(decoding: Self.records[4].line, as: UTF8.self) == #"{"end":{"ended":"2026-11-18T11:06:40.123Z"}}"# + "\n")
    }

    @Test func aLineCutShortIsNamedByNumber() {
        var data = Data(Self.records.prefix(2).map(\.line).joined())
        data += Data(#"{"tape":{"cassette":"/a.json","mo"#.utf8)
        #expect(throws: LedgerFileError.self) { try LedgerRecord.records(in: data) }
        do {
            _ = try LedgerRecord.records(in: data)
        } catch {
            #expect(error.line == 3)
        }
        let unknown = Data(#"{"cassette":{}}"#.utf8)
        do {
            _ = try LedgerRecord.records(in: unknown)
        } catch {
            #expect(error == LedgerFileError(line: 1, reason: #"expected an object with one member: "process", "tape" or "end""#))
        }
    }

    /// A ledger's cassette path is standardized as `standardizedFileURL` does, without building a
    /// URL for the paths tapes write (already plain).
    @Test(arguments: [
        "/pkg/Cassettes/a.json", "/pkg/Cassettes/../Cassettes/a.json", "/pkg/./Cassettes/a.json", "/pkg//Cassettes/a.json",
        "/pkg/Cassettes/", "/pkg/Cassettes/.", "/pkg/Cassettes/..", "Cassettes/a.json", "/pkg/Cass..ettes/a.json", "/",
        "/pkg/.../a.json", "/pkg/.hidden/a.json", "/pkg/..x/a.json", "/./a.json", "//", "/pkg/a.json/.",
    ])
    func aCassettePathIsStandardizedAsAURLWouldBe(path: String) {
        #expect(RealPath.standardized(path) == URL(fileURLWithPath: path).standardizedFileURL.path)
    }
}
