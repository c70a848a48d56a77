import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A background configuration is refused, on every platform alike: on Apple platforms its
/// transfers run in a system process that never asks a custom protocol ("Custom URLProtocol
/// subclasses are not available to background sessions", `URLSessionConfiguration.protocolClasses`),
/// so they would reach the network unrecorded. `configure` does not throw (a client library may
/// hand over its configuration in a closure that cannot); the refusal is said when the requests
/// reach Cassette, and when the tape is ejected.
@Suite struct BackgroundConfigurationTests {
    /// `.background(withIdentifier:)`; FoundationNetworking has no such factory, but its
    /// configurations carry the same `identifier` the refusal reads, set here as Apple's factory sets it.
    static func background(_ identifier: String) -> URLSessionConfiguration {
        #if canImport(FoundationNetworking)
        let configuration = URLSessionConfiguration.default
        configuration.identifier = identifier
        return configuration
        #else
        return URLSessionConfiguration.background(withIdentifier: identifier)
        #endif
    }

    static let expected =
        "the background configuration \"com.example.sync\" cannot go through a cassette: a background session's transfers run "
        + "in a system process that never asks a URLProtocol (Apple platforms), so its requests would reach the network "
        + "unrecorded. While testing, give the code under test a .default or .ephemeral configuration (make the configuration "
        + "an input of the code that builds its session) and configure that one, or use tape.session."

    /// The tape's eject throws the refusal once it has saved: a new cassette in mode `once` is
    /// written (empty: the refused request recorded nothing), then the error says why.
    @Test func theTapeSavesThenItsEjectThrowsTheRefusal() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("background.json")
            let tape = try Tape(file: file, mode: .once, options: Tape.Options().quiet, environment: .tests)
            let background = Self.background("com.example.sync")
            tape.configure(background)
            #expect(background.protocolClasses?.first is CassetteURLProtocol.Type)
            let plain = URLSessionConfiguration.default
            tape.configure(plain)
            #expect(plain.protocolClasses?.first is CassetteURLProtocol.Type)
            #if canImport(FoundationNetworking)
            // Linux asks the protocol of any configuration, so the request reaches Cassette and is failed there.
            let fetched = await Fetch.get("https://api.example.com/sync", on: URLSession(configuration: background))
            #expect(fetched.errorCode == Tape.unmatchedRequestErrorCode)
            #expect(fetched.errorDescription == "Cassette did not send the request: " + Self.expected)
            #else
            // Apple: none — a background session's transfers never ask a protocol, so a request sent
            // here would reach the network; the refusal shows at eject, below, on both platforms.
            #endif
            #expect(throws: CassetteError.backgroundSessionNotRoutable(identifier: "com.example.sync")) { try tape.eject() }
            #expect(FileManager.default.fileExists(atPath: file.path), "saved before the refusal was thrown")
            #expect(CassetteError.backgroundSessionNotRoutable(identifier: "com.example.sync").description == Self.expected)
        }
    }

    @Test func makeSessionRefusesItAsConfigureDoes() throws {
        let tape = try Tape(
            file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, options: Tape.Options().quiet,
            environment: .tests)
        let session = tape.makeSession(configuration: Self.background("com.example.sync"))
        #expect(session.configuration.identifier == "com.example.sync")
        #expect(throws: CassetteError.backgroundSessionNotRoutable(identifier: "com.example.sync")) { try tape.eject() }
    }

    /// A tape given no background configuration ejects as before.
    @Test func withoutOneTheTapeEjectsAsBefore() throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        tape.configure(URLSessionConfiguration.default)
        #expect(try tape.eject().requests == 0)
    }

    @Test func aStubSessionListsItWhenVerified() throws {
        let stubs = StubSession()
        defer { stubs.invalidate() }
        stubs.configure(Self.background("com.example.sync"))
        #expect(throws: StubVerificationError(unmet: [], unexpected: [Self.expected])) { try stubs.verify() }
    }

    /// Get's `APIClient(baseURL:_:)` hands its configuration to a closure that cannot throw: the
    /// tape configures it there, as the client's own documentation writes it.
    @Test func aConfigurationClosureThatCannotThrowCompiles() throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let client = GetStyleClient(baseURL: URL(string: "https://api.example.com")) { configuration in
            configuration.sessionConfiguration.httpAdditionalHeaders = ["X-Client": "tests"]
            tape.configure(configuration.sessionConfiguration)
        }
        #expect(client.configuration.sessionConfiguration.protocolClasses?.first is CassetteURLProtocol.Type)
        _ = try tape.eject()
    }
}

/// The shape of Get's `APIClient` initializer (kean/Get 2.x): a configuration struct handed to a
/// non-throwing closure.
private struct GetStyleClient {
    struct Configuration {
        var baseURL: URL?
        var sessionConfiguration: URLSessionConfiguration = .default
    }

    let configuration: Configuration

    init(baseURL: URL?, _ configure: (inout Configuration) -> Void = { _ in }) {
        var configuration = Configuration(baseURL: baseURL)
        configure(&configuration)
        self.configuration = configuration
    }
}
