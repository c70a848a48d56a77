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
@Suite struct ConfigurationInterceptionTests {
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
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: [:])
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
}
