#if canImport(ObjectiveC)
import CassetteTestSupport
import Foundation
import ObjectiveC
import Testing

@testable import Cassette

/// The real getter replacement of `Tape.interceptEverySession()`, which only the Objective-C
/// runtime allows (the macOS and iOS jobs run this; checklist row 12). In a process of its own
/// (``RunsAlone``): while these tests hold the getters, every configuration made in the process
/// is routed, so a suite beside them would have its sessions sent to their cassette.
@Suite(.serialized, .runsAlone("ConfigurationSwizzleTests")) struct ConfigurationSwizzleTests {
    typealias Getter = @convention(c) (AnyClass, Selector) -> URLSessionConfiguration
    static let selector = NSSelectorFromString("defaultSessionConfiguration")

    static func tape() throws -> Tape {
        try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
    }

    static func isRouted(_ configuration: URLSessionConfiguration) -> Bool {
        configuration.protocolClasses?.contains { $0 is CassetteURLProtocol.Type } == true
    }

    @Test func theRealReplacementRoutesThenUndoes() async throws {
        let tape = try Self.tape()
        let interception = try Tape.interceptEverySession(routingTo: tape)
        let routed = URLSessionConfiguration.default
        #expect(routed.protocolClasses?.first is CassetteURLProtocol.Type)
        #expect(Self.isRouted(URLSessionConfiguration.ephemeral))
        let fetched = await Fetch.get("https://api.example.com/users/42?fields=name,email", on: URLSession(configuration: routed))
        #expect(fetched.status == 200)
        interception.undo()
        #expect(!Self.isRouted(URLSessionConfiguration.default))
        #expect(!Self.isRouted(URLSessionConfiguration.ephemeral))
        _ = try tape.eject()
    }

    /// Another library (OHHTTPStubs, Pulse, netfox) replaces the getter after Cassette: undoing
    /// Cassette's interception keeps the other's replacement, and Cassette's, left under it,
    /// routes nothing any more.
    @Test func aLaterReplacementSurvivesUndo() throws {
        let tape = try Self.tape()
        let interception = try Tape.interceptEverySession(routingTo: tape)
        let method = try #require(class_getClassMethod(URLSessionConfiguration.self, Self.selector))
        let previous = method_getImplementation(method)
        let call = unsafeBitCast(previous, to: Getter.self)
        let later: @convention(block) (AnyClass) -> URLSessionConfiguration = { type in
            let configuration = call(type, Self.selector)
            configuration.httpAdditionalHeaders = ["X-Later": "1"]
            return configuration
        }
        method_setImplementation(method, imp_implementationWithBlock(later))
        defer { method_setImplementation(method, previous) }

        #expect(Self.isRouted(URLSessionConfiguration.default))
        interception.undo()
        let after = URLSessionConfiguration.default
        #expect(after.httpAdditionalHeaders?["X-Later"] as? String == "1", "the later replacement was undone")
        #expect(!Self.isRouted(after))
        // Intercepting again routes through the replacement left in place.
        let again = try Tape.interceptEverySession(routingTo: tape)
        #expect(Self.isRouted(URLSessionConfiguration.default))
        again.undo()
        _ = try tape.eject()
    }

    /// A stand-in interception undone while a real one lasts leaves it holding the getters;
    /// undoing the real one twice releases them once.
    @Test func undoReleasesOnlyWhatItHolds() throws {
        let before = ConfigurationHooks.holders
        let real = try Tape.interceptEverySession()
        #expect(ConfigurationHooks.holders == before + 1)
        let standIn = try ConfigurationInterception(routingTo: nil, holdingGetters: false)
        standIn.undo()
        #expect(ConfigurationHooks.holders == before + 1)
        #expect(Self.isRouted(URLSessionConfiguration.default))
        real.undo()
        real.undo()
        #expect(ConfigurationHooks.holders == before)
    }

    /// The background getter is replaced too: a background configuration made while the
    /// interception lasts is said when the tape is ejected; one made after the undo is not.
    @Test func aBackgroundConfigurationIsSaidOnEject() throws {
        let tape = try InterceptionWatchTests.tape()
        let interception = try Tape.interceptEverySession(routingTo: tape)
        let background = URLSessionConfiguration.background(withIdentifier: "com.example.swizzled")
        #expect(background.identifier == "com.example.swizzled")
        #expect(!Self.isRouted(background))
        interception.undo()
        _ = URLSessionConfiguration.background(withIdentifier: "com.example.after")
        let report = try tape.eject()
        let cassette = PackagePaths.examples.appendingPathComponent("users-api.json").path
        #expect(report.warnings == ["cassette \(cassette): " + InterceptionWatch.message(background: "com.example.swizzled")])
    }

    /// Many calls of the real getter make one class for the tape.
    @Test func manyCallsMakeOneClass() throws {
        let tape = try Self.tape()
        let interception = try Tape.interceptEverySession(routingTo: tape)
        defer { interception.undo() }
        let classes = Set((0..<1000).compactMap { _ in URLSessionConfiguration.default.protocolClasses?.first.map(ObjectIdentifier.init) })
        #expect(classes.count == 1)
        _ = try tape.eject()
    }
}
#endif
