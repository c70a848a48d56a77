import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `Tape.interceptEverySession()` routed and cannot see afterwards is said when the tape is
/// ejected, among its warnings: another protocol class put before Cassette's, Cassette's class
/// taken out, a background configuration. The getters are those of
/// `ConfigurationInterceptionTests` (the replacement itself needs the Objective-C runtime:
/// `ConfigurationSwizzleTests`); every configuration is made while the tape is current, so
/// nothing here routes another suite's sessions.
@Suite struct InterceptionWatchTests {
    /// What a debugging tool's protocol (netfox's, DebugSwift's) does: takes every request and
    /// answers it itself.
    final class TakesEverything: URLProtocol {
        override class func canInit(with request: URLRequest) -> Bool { true }
        override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
        override func startLoading() {
            guard let url = request.url,
                let response = HTTPURLResponse(url: url, statusCode: 299, httpVersion: "HTTP/1.1", headerFields: [:])
            else { return }
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client?.urlProtocol(self, didLoad: Data("taken".utf8))
            client?.urlProtocolDidFinishLoading(self)
        }
        override func stopLoading() {}
    }

    static let url = "https://api.example.com/users/42?fields=name,email"

    static func tape() throws -> Tape {
        try Tape(
            file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none,
            options: Tape.Options(unusedInteractions: .ignore).quiet, environment: .tests)
    }

    @Test func anotherClassBeforeCassettesOrNoneIsSaidOnEject() async throws {
        let tape = try Self.tape()
        let (first, second, replaced, untouched) = Tape.$current.withValue(tape) {
            (
                ConfigurationInterceptionTests.interceptedGetter(), ConfigurationInterceptionTests.interceptedGetter(),
                ConfigurationInterceptionTests.interceptedGetter(), ConfigurationInterceptionTests.interceptedGetter()
            )
        }
        for configuration in [first, second] {
            configuration.protocolClasses = [TakesEverything.self] + (configuration.protocolClasses ?? [])
        }
        replaced.protocolClasses = [TakesEverything.self]
        // The request the other class takes never reaches the tape; the untouched one replays.
        let taken = await Fetch.get(Self.url, on: URLSession(configuration: first))
        #expect(taken.status == 299 && taken.text == "taken")
        let replayed = await Fetch.get(Self.url, on: URLSession(configuration: untouched))
        #expect(replayed.status == 200)

        let report = try tape.eject()
        #expect(report.requests == 1 && report.replayed == 1)
        let cassette = PackagePaths.examples.appendingPathComponent("users-api.json").path
        let expected = [
            "cassette \(cassette): 2 session configurations made while every session was intercepted (Tape.interceptEverySession()) "
                + "have TakesEverything before Cassette's protocol class: the requests it takes went around the cassette, neither "
                + "recorded nor replayed. Turn off what puts it first in tests (a debugging tool such as netfox or DebugSwift, or the "
                + "code under test), or add it after Cassette's class.",
            "cassette \(cassette): a session configuration made while every session was intercepted (Tape.interceptEverySession()) "
                + "no longer has Cassette's protocol class: its protocolClasses were replaced, so the requests of sessions made from it "
                + "went to the network unrecorded. Add to the protocolClasses that are there, or make the session from "
                + "tape.configure(_:) after setting them.",
        ]
        #expect(report.warnings == expected)
        // The trait and withCassette show them as warnings, as a bypass of the whole tape is shown.
        let verification = EjectVerification(report, unusedInteractions: .ignore, bodyError: nil)
        #expect(verification.failures == [])
        #expect(verification.warnings.map(\.description) == expected)
        #expect(
            verification.warnings.first
                == .interceptionBypassed(
                    cassette: PackagePaths.examples.appendingPathComponent("users-api.json"),
                    message: InterceptionWatch.message(before: ["TakesEverything"], configurations: 2)))
    }

    /// A background configuration made while the tape routes the sessions: the replaced getter
    /// notes it (`ConfigurationHooks.noteBackground`), and the tape says so once per identifier.
    @Test func aBackgroundConfigurationIsSaidOnEject() throws {
        let tape = try Self.tape()
        Tape.$current.withValue(tape) {
            ConfigurationHooks.noteBackground(identifier: "com.example.sync")
            ConfigurationHooks.noteBackground(identifier: "com.example.sync")
            // Cassette's own sessions are never noted.
            _ = ConfigurationHooks.ownConfiguration {
                ConfigurationHooks.noteBackground(identifier: "com.example.own")
                return .ephemeral
            }
        }
        let report = try tape.eject()
        let cassette = PackagePaths.examples.appendingPathComponent("users-api.json")
        let background =
            "cassette \(cassette.path): URLSessionConfiguration.background(withIdentifier: \"com.example.sync\") was made while every "
            + "session was intercepted (Tape.interceptEverySession()): a background session runs its transfers in another process, "
            + "where no URLProtocol sees them, so its requests went to the network unrecorded. In tests, give the code under test a "
            + ".default or .ephemeral configuration (or tape.session) instead."
        #expect(report.warnings == [background])
    }
}
