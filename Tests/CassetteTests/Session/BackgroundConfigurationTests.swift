import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A background configuration is refused, on every platform alike: on Apple platforms its
/// transfers run in a system process that never asks a custom protocol, so they would reach the
/// network unrecorded with no word.
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

    @Test func tapeConfigureAndMakeSessionRefuseIt() throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let background = Self.background("com.example.sync")
        #expect(throws: CassetteError.backgroundSessionNotRoutable(identifier: "com.example.sync")) { try tape.configure(background) }
        #expect(background.protocolClasses?.contains { $0 is CassetteURLProtocol.Type } != true, "left as it was")
        #expect(throws: CassetteError.backgroundSessionNotRoutable(identifier: "com.example.sync")) {
            _ = try tape.makeSession(configuration: background)
        }
        #expect(CassetteError.backgroundSessionNotRoutable(identifier: "com.example.sync").description == Self.expected)
        // A default configuration still goes through.
        let plain = URLSessionConfiguration.default
        try tape.configure(plain)
        #expect(plain.protocolClasses?.first is CassetteURLProtocol.Type)
        _ = try tape.eject()
    }

    @Test func aStubSessionRefusesItToo() throws {
        let stubs = StubSession()
        defer { stubs.invalidate() }
        #expect(throws: CassetteError.backgroundSessionNotRoutable(identifier: "com.example.sync")) {
            try stubs.configure(Self.background("com.example.sync"))
        }
    }
}
