import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Starts processes (or reads the package's folder through them): Linux and macOS only.
#if os(Linux) || os(macOS)

/// What `curl -i` prints for a real response, pasted under a request line into an `.http`
/// cassette, replays as the response a `URLSession` gets live: status, headers and bytes.
/// curl is a real client nobody here wrote; `.ci/run` installs it when it is missing.
@Suite(.timingIsolated) struct CurlPasteTests {
    @Test(arguments: ["/status/418", "/headers", "/chunked/3", "/gzip", "/status/204"])
    func curlOutputPastedIntoAnHTTPCassetteReplays(path: String) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let url = server.baseURL + path
            let live = await Fetch.get(url, on: URLSession(configuration: .ephemeral))
            // --compressed: a cassette holds bodies decoded, as URLSession hands them to the caller.
            let printed = try Self.curl(["-si", "--compressed", "-H", "Accept: */*", url])
            server.stop()
            #expect(String(decoding: printed.prefix(9), as: UTF8.self) == "HTTP/1.1 ")

            let file = scratch.file("pasted.http")
            // As docs/HTTPMessageFormat.md says: a request line above, and after the paste a line break
            // and a blank line (Enter twice), so the body keeps its last byte, line break or not.
            let pasted = Data("### recordedAt=2026-11-22T10:15:30.123Z\nGET \(url) HTTP/1.1\n\n".utf8) + printed + Data("\n\n".utf8)
            try pasted.write(to: file)
            let tape = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = await Fetch.get(url, on: tape.session)
            #expect(replayed.errorCode == nil, "\(replayed.errorDescription ?? "")")
            #expect(replayed.status == live.status)
            #expect(replayed.body == live.body, "replayed \(replayed.text.debugDescription), live \(live.text.debugDescription)")
            #expect(replayed.headers == live.headers, "replayed \(replayed.headers), live \(live.headers)")
            #expect(try tape.eject().replayed == 1)
        }
    }

    /// Runs curl and returns what it printed; fails clearly when curl is not installed.
    static func curl(_ arguments: [String]) throws -> Data {
        let result = try SpawnedProcess.run(executable: "/usr/bin/env", ["curl"] + arguments)
        try #require(
            result.status == 0,
            "curl \(arguments.joined(separator: " ")) exited \(result.status); is curl installed? (apt-get install curl)")
        return result.output
    }
}
#endif
