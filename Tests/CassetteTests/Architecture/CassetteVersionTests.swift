import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// The version a cassette says it was recorded with is the newest release the CHANGELOG names,
/// and a recording writes it.
@Suite struct CassetteVersionTests {
    /// `1.0.0` from the first `## [1.0.0] - 2026-12-03` heading.
    static func newestRelease() throws -> String {
        let changelog = try String(contentsOf: PackagePaths.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = try #require(
            changelog.split(separator: "\n").first { $0.hasPrefix("## [") && $0.contains("] - ") && !$0.hasPrefix("## [Unreleased]") })
        return String(heading.dropFirst("## [".count).prefix { $0 != "]" })
    }

    @Test func theVersionIsTheChangelogsNewestRelease() throws {
        #expect(CassetteVersion.current == (try Self.newestRelease()))
        #expect(CassetteVersion.recordedWith == "Cassette \(try Self.newestRelease())")
    }

    @Test func aRecordingSaysWhichVersionRecordedIt() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("recorded.json")
            let tape = try Tape(file: file, mode: .once, environment: .tests)
            _ = await Fetch.get(scratch.url("/status/200"), on: tape.session)
            try tape.eject()
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(#""recordedWith": "Cassette \#(try Self.newestRelease())""#), "\(text.prefix(200))")
        }
    }
}
