import Cassette
import CassetteTestSupport
import Foundation
import Testing

/// The README's usage example, run against the committed example cassette.
@Suite struct ReadmeExampleTests {
    static let examples = PackagePaths.examples

    @Test func readEditAndWriteACassette() throws {
        let url = Self.examples.appendingPathComponent("users-api.json")
        let document = try JSONCassetteCodec.decode(Data(contentsOf: url), file: url.path)
        let first = try #require(document.interactions.first)
        #expect(
            "\(first.request.method) \(first.request.url) \(first.response?.status ?? 0)"
                == "GET https://api.example.com/users/42?fields=name,email 200")
        #expect(first.response?.body.text == #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#)
        #expect(first.response?.headers.values(for: "set-cookie") == ["session=[REDACTED]", "theme=dark; Path=/"])

        var edited = document
        edited.interactions[0].response?.status = 503
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("readme-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try JSONCassetteCodec.encode(edited).write(to: scratch, options: .atomic)

        let reread = try JSONCassetteCodec.decode(Data(contentsOf: scratch))
        #expect(reread.interactions[0].response?.status == 503)
        #expect(Array(reread.interactions.dropFirst()) == Array(document.interactions.dropFirst()))
        // Only the status line changed.
        let before = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        let after = try String(contentsOf: scratch, encoding: .utf8).split(separator: "\n")
        #expect(before.count == after.count)
        #expect(zip(before, after).filter { $0 != $1 }.map { "\($0.1)" } == [#"        "status": 503,"#])
    }

    @Test func theBinaryExampleHoldsARealPNG() throws {
        let url = Self.examples.appendingPathComponent("avatar-image.json")
        let document = try JSONCassetteCodec.decode(Data(contentsOf: url), file: url.path)
        let body = try #require(document.interactions.first?.response?.body)
        #expect(body.form == .base64)
        #expect(body.data.count == 463)
        #expect(Array(body.data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(document.interactions.first?.response?.headers["content-length"] == "463")
    }

    @Test func theOutageExampleHoldsA503AndATimeout() throws {
        let url = Self.examples.appendingPathComponent("service-outage.json")
        let document = try JSONCassetteCodec.decode(Data(contentsOf: url), file: url.path)
        #expect(document.interactions.map { $0.response?.status } == [503, nil, nil])
        #expect(document.interactions.map { $0.error?.code.name } == [nil, "timedOut", "notConnectedToInternet"])
        #expect(document.interactions[1].error?.urlError.code == .timedOut)
        #expect(document.interactions[1].timing == Interaction.Timing(firstByte: 60, duration: 60))
    }
}
