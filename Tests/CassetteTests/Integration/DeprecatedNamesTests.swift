import Cassette
import CassetteTestSupport
import Foundation
import Testing

/// The forwarders of names an earlier release used still open the same cassette.
@Suite struct DeprecatedNamesTests {
    @available(*, deprecated, message: "exercises the deprecated forwarders")
    @Test func aFolderGivenAsAURLStillWorks() async throws {
        try await withScratchTape { scratch in
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(url: "https://api.example.com/ping"), response: .init(status: 200, body: .init(text: "pong")))
                ]),
                to: scratch.file("Ping.json"))
            let tape = try Tape(named: "Ping", in: scratch.url, mode: .none, environment: [:])
            #expect(tape.file.standardizedFileURL == scratch.file("Ping.json").standardizedFileURL)
            #expect(await Fetch.get("https://api.example.com/ping", on: tape.session).text == "pong")
            try tape.eject()
            let text = try await withCassette("Ping", in: scratch.url, mode: .none, environment: [:]) { tape in
                await Fetch.get("https://api.example.com/ping", on: tape.session).text
            }
            #expect(text == "pong")
            let synchronous = try withCassette("Ping", in: scratch.url, mode: .none, environment: [:]) { tape in tape.file.lastPathComponent
            }
            #expect(synchronous == "Ping.json")
        }
    }
}
