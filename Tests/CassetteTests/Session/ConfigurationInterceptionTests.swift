import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Tape.interceptEverySession()`: on Linux a clear error; everywhere, the routing its getters
/// apply — a configuration made while a tape is current goes to that tape, one made with none
/// fails its requests clearly. (The getter replacement itself needs the Objective-C runtime.)
@Suite(.serialized) struct ConfigurationInterceptionTests {
    // Apple: the getters are replaced there, which ConfigurationSwizzleTests checks.
    #if canImport(FoundationNetworking)
    @Test func onLinuxItSaysWhyNotAndWhatToUse() {
        #expect(throws: CassetteError.everySessionNotInterceptable) { _ = try Tape.interceptEverySession() }
        #expect(
            CassetteError.everySessionNotInterceptable.description.hasPrefix(
                "Tape.interceptEverySession() cannot work on Linux: FoundationNetworking's URLSessionConfiguration.default "
                    + "and .ephemeral are plain Swift properties"))
        #expect(CassetteError.everySessionNotInterceptable.description.contains("tape.configure(configuration)"))
    }
    #endif

    @Test func aConfigurationGoesToTheTapeCurrentWhenItIsMade() async throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let configuration = Tape.$current.withValue(tape) { () -> URLSessionConfiguration in
            let configuration = URLSessionConfiguration.default
            ConfigurationHooks.route(configuration)
            return configuration
        }
        let fetched = await Fetch.get("https://api.example.com/users/42?fields=name,email", on: URLSession(configuration: configuration))
        #expect(fetched.status == 200)
        _ = try tape.eject()
    }

    @Test func aConfigurationMadeWithNoTapeFailsClearly() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        ConfigurationHooks.route(configuration)
        let fetched = await Fetch.get("https://api.example.com/users/42?token=secret", on: URLSession(configuration: configuration))
        #expect(fetched.errorCode == .resourceUnavailable)
        #expect(
            fetched.errorDescription == "Cassette: GET https://api.example.com/users/42 was made through a session whose configuration "
                + "was created while no test had a cassette (Tape.interceptEverySession() is in effect). Create the session inside the test "
                + "that has the .cassette trait (or withCassette), or give the code under test tape.session.")
    }

    /// The getter as it is replaced on Apple platforms: the configuration it makes is routed.
    static func interceptedGetter() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        ConfigurationHooks.route(configuration)
        return configuration
    }

    /// The sessions Cassette makes for itself (recording, the drift check, a relay, a tape's own)
    /// are never caught: made through the intercepted getter while a tape is current, their
    /// configuration holds none of Cassette's protocols.
    @Test func cassettesOwnSessionsAreNeverIntercepted() async throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let (caught, own) = Tape.$current.withValue(tape) {
            (Self.interceptedGetter(), ConfigurationHooks.ownConfiguration(Self.interceptedGetter))
        }
        #expect(caught.protocolClasses?.first is CassetteURLProtocol.Type)
        #expect(own.protocolClasses?.contains { $0 is CassetteURLProtocol.Type } == false)
        // With no tape current, it is not given the unrouted protocol either.
        let unrouted = ConfigurationHooks.ownConfiguration(Self.interceptedGetter)
        #expect(unrouted.protocolClasses?.contains { $0 is CassetteURLProtocol.Type } == false)
        _ = try tape.eject()
    }

    /// `interceptEverySession(routingTo:)`: where no task has a tape (an app under UI test), the
    /// configurations go to the given tape, until the interception is undone.
    @Test func aConfigurationMadeWithNoTapeGoesToTheInterceptionsTape() async throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let interception = try ConfigurationInterception(routingTo: tape, holdingGetters: false)
        let routed = Self.interceptedGetter()
        let fetched = await Fetch.get("https://api.example.com/users/42?fields=name,email", on: URLSession(configuration: routed))
        #expect(fetched.status == 200)
        #expect(fetched.text == #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#)

        interception.undo()
        let afterwards = Self.interceptedGetter()
        #expect(afterwards.protocolClasses?.first.map { $0 == UnroutedProtocol.self } == true)
        _ = try tape.eject()
    }

    /// An app host calls `URLSessionConfiguration.default` again and again: every configuration the
    /// getters make for one tape shares one protocol class, so the classes stay bounded.
    @Test func everyInterceptedConfigurationOfATapeSharesOneClass() throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let classes = Tape.$current.withValue(tape) {
            (0..<500).compactMap { _ in Self.interceptedGetter().protocolClasses?.first.map(ObjectIdentifier.init) }
        }
        #expect(classes.count == 500)
        #expect(Set(classes).count == 1)
        #expect(classes.allSatisfy { SlotTable.shared.route(for: $0)?.servesManyConfigurations == true })
        _ = try tape.eject()
    }

    /// Sharing a class, each session still sends what its own configuration says (its header
    /// fields, its cookies): its request finds the configuration through its task's session. Two
    /// sessions with two configurations show it, recording against the loopback server.
    @Test(arguments: FetchStyle.allCases)
    func eachInterceptedSessionSendsItsOwnConfiguration(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            var sessions: [URLSession] = []
            for flavour in ["oatmeal", "ginger"] {
                let configuration = Tape.$current.withValue(tape) { Self.interceptedGetter() }
                let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "cassette-intercept-\(UUID().uuidString)")
                storage.setCookie(
                    try #require(HTTPCookie(properties: [.name: "flavour", .value: flavour, .domain: "127.0.0.1", .path: "/"])))
                configuration.httpCookieStorage = storage
                configuration.httpAdditionalHeaders = ["X-Client": flavour]
                sessions.append(
                    style == .delegate
                        ? URLSession(configuration: configuration, delegate: CollectingDelegate(), delegateQueue: nil)
                        : URLSession(configuration: configuration))
            }
            for (session, path) in zip(sessions, ["/echo?n=1", "/echo?n=2"]) {
                let fetched = await Fetch.run(
                    URLRequest(url: try #require(URL(string: scratch.server.baseURL + path))), on: session, style: style)
                #expect(fetched.status == 200)
            }
            #expect(scratch.server.received.map { $0.headers["cookie"] } == ["flavour=oatmeal", "flavour=ginger"])
            #expect(scratch.server.received.map { $0.headers["x-client"] } == ["oatmeal", "ginger"])
            #expect(try tape.eject().recorded == 2)
        }
    }

    /// An interception that does not hold the getters (the stand-in above) never releases them
    /// when undone (with a real one, in `ConfigurationSwizzleTests`).
    @Test func undoReleasesOnlyWhatItHolds() throws {
        let before = ConfigurationHooks.holders
        let standIn = try ConfigurationInterception(routingTo: nil, holdingGetters: false)
        standIn.undo()
        standIn.undo()
        #expect(ConfigurationHooks.holders == before)
    }
}
