import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redaction is pure rules and a ledger of secrets the tape owns: showing a request — in a miss
/// report, an error, a log — never writes to the ledger, so the numbers a recording gives its
/// secrets are what they would have been without the showing.
@Suite struct RedactorLedgerTests {
    static let redaction = Redaction.default.redactingQueryParameters("token")

    static func interaction(_ path: String, token: String) -> Interaction {
        Interaction(
            request: .init(url: "https://api.example.com\(path)?token=\(token)"),
            response: .init(status: 200, body: .init(text: "token \(token)")))
    }

    static let alpha = interaction("/a", token: "alpha-secret-1")
    static let bravo = interaction("/b", token: "bravo-secret-2")

    @Test func showingARequestDoesNotRenumberSecrets() throws {
        let quiet = try Redactor(Self.redaction)
        let expected = [Self.bravo, Self.alpha].compactMap(quiet.forRecording)
        #expect(
            expected.map(\.request.url) == ["https://api.example.com/b?token=[REDACTED-1]", "https://api.example.com/a?token=[REDACTED-2]"])
        #expect(expected.map { $0.response?.body.text } == ["token [REDACTED-1]", "token [REDACTED-2]"])

        let shown = try Redactor(Self.redaction)
        // Shown first: redacted, and the ledger left as it was.
        #expect(shown.shown(Self.alpha.request).url == "https://api.example.com/a?token=[REDACTED]")
        #expect(shown.ledger.current.secrets.isEmpty)
        #expect([Self.bravo, Self.alpha].compactMap(shown.forRecording) == expected)
    }

    /// Matching a live request does write to the ledger: its secret is known (and numbered) before
    /// the recording that echoes it.
    @Test func matchingARequestRemembersItsSecret() throws {
        let redactor = try Redactor(Self.redaction)
        #expect(redactor.forMatching(Self.alpha.request).request.url == "https://api.example.com/a?token=[REDACTED]")
        #expect(redactor.ledger.current.placeholders == ["alpha-secret-1": "[REDACTED-1]"])
    }

    // Apple: none — a download is answered there (DownloadTaskTests); the numbering a request
    // that fails before any decision leaves is the same code on every platform, checked here.
    #if canImport(FoundationNetworking)
    /// Through a tape: a download task on Linux fails before any decision, and its error shows the
    /// request (redacted); the recordings after it number their secrets as if it had not been made.
    @Test func aRequestAnErrorShowsLeavesTheNumbering() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .all, options: Tape.Options(redaction: Self.redaction))
            let session = tape.session
            let alpha = try #require(URL(string: scratch.url("/echo/a?token=alpha-secret-1")))
            let bravo = try #require(URL(string: scratch.url("/echo/b?token=bravo-secret-2")))
            await #expect(throws: URLError.self) { _ = try await session.download(from: alpha) }
            _ = try await session.data(from: bravo)
            _ = try await session.data(from: alpha)
            try tape.eject()
            let urls = try CassetteFile.read(scratch.file).interactions.map(\.request.url)
            #expect(urls == [scratch.url("/echo/b?token=[REDACTED-1]"), scratch.url("/echo/a?token=[REDACTED-2]")])
        }
    }
    #endif
}
