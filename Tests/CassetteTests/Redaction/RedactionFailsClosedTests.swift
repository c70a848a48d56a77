import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redaction never fails open: a body pattern the regular expression engine gives up on refuses
/// the body whole, as one that runs past its budget does; and redacting many matches costs time
/// linear in their number (the replacing and the echo scrubber too), so the budget is never what
/// stops a pattern that is merely busy.
@Suite(.timingIsolated) struct RedactionFailsClosedTests {
    /// ICU's backtracking stack overflows on `(?:[A-Za-z0-9]|-)+` over a million letters and ends
    /// the search as if nothing matched: the secret after them was recorded twice, unredacted.
    @Test func aPatternTheEngineGivesUpOnRefusesTheRequest() async throws {
        try await withScratchTape { scratch in
            let options = Tape.Options(redaction: Redaction.default.redactingBodyMatches("token=((?:[A-Za-z0-9]|-)+)"))
            let tape = try scratch.tape(mode: .once, options: options)
            var request = URLRequest(url: try #require(URL(string: scratch.url("/echo/engine"))))
            request.httpMethod = "POST"
            request.httpBody = Data(("token=" + String(repeating: "a", count: 1_000_000) + "&other=1&token=SuperSecret123XYZ").utf8)
            let fetched = await Fetch.run(request, on: tape.session, style: .async)
            #expect(fetched.errorCode == .cannotDecodeRawData)
            #expect(
                fetched.errorDescription?.hasPrefix(
                    #"Cassette: POST \#(scratch.url("/echo/engine")) was not answered: the regular expression engine gave up on the "#
                        + #"redaction body pattern "token=((?:[A-Za-z0-9]|-)+)" over the request's body (its backtracking ran out of "#
                        + #"stack on this input), so no part of the body could be kept. Write the pattern with one character class "#
                        + #"per repetition — [A-Za-z0-9-]+ rather than (?:[A-Za-z0-9]|-)+ — which matches without backtracking."#)
                    == true, "\(fetched.errorDescription ?? "")")
            #expect(scratch.server.received.isEmpty, "the request went out")
            let report = try tape.eject()
            #expect(report.requests == 1 && report.recorded == 0)
            #expect(try CassetteFile.read(scratch.file).interactions.isEmpty)
        }
    }

    /// The same pattern over a response body: the body is kept as `[REDACTED]` alone.
    @Test func aResponseBodyTheEngineGivesUpOnIsRedactedWhole() throws {
        let rules = try RedactionRules.make(Redaction.default.redactingBodyMatches("token=((?:[A-Za-z0-9]|-)+)"))
        var secrets = FoundSecrets()
        let body = Interaction.Body(
            Data(("token=" + String(repeating: "b", count: 1_000_000) + "&token=SuperSecret123XYZ").utf8), contentType: "text/plain")
        let redacted = rules.redact(body, contentType: "text/plain", secrets: &secrets)
        #expect(redacted.data == Data("[REDACTED]".utf8))
        #expect(secrets.failedPattern?.pattern == "token=((?:[A-Za-z0-9]|-)+)")
        #expect(secrets.failedPattern?.failure == .engineError)
    }

    /// 10,000 addresses in a JSON list (about 290 KB), each matched by the pattern and echoed by the
    /// server: the request and the echoing response both recorded without one of them, in seconds
    /// (it took over 400 s when each replacement rebuilt the text and the echo scrubber searched
    /// the body once per secret).
    @Test func tenThousandMatchesAreRedactedInLinearTime() async throws {
        try await withScratchTape { scratch in
            let options = Tape.Options(redaction: Redaction.default.redactingBodyMatches(#"[a-z0-9.]+@example\.com"#))
            let tape = try scratch.tape(mode: .once, options: options)
            let addresses = (0..<10_000).map { "user.\($0)@example.com" }
            var request = URLRequest(url: try #require(URL(string: scratch.url("/echo/list"))))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(("[" + addresses.map { "\"\($0)\"" }.joined(separator: ",") + "]").utf8)
            let start = Date()
            let fetched = await Fetch.run(request, on: tape.session, style: .async)
            #expect(fetched.status == 200)
            #expect(try tape.eject().recorded == 1)
            let seconds = Date().timeIntervalSince(start)
            #expect(seconds < 20 * TimingIsolation.scale, "\(seconds) s")
            let text = String(decoding: try Data(contentsOf: scratch.file), as: UTF8.self)
            #expect(!text.contains("@example.com"))
            #expect(text.components(separatedBy: "[REDACTED").count - 1 >= 20_000)
        }
    }
}
