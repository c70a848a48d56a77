import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hand-edited faults of `Cassettes/Examples/faults.json` reach the caller through each API
/// exactly as written: an error by name (and, in a scratch cassette, by number), a connection
/// lost after 10 bytes, an edited status, and a response slowed past the request's timeout.
@Suite struct FaultTests {
    static func tape() throws -> Tape {
        try Tape(file: PackagePaths.examples.appendingPathComponent("faults.json"), mode: .none, environment: .tests)
    }

    @Test(arguments: FetchStyle.allCases)
    func errorsByNameAndByNumber(style: FetchStyle) async throws {
        let tape = try Self.tape()
        let session = Fetch.session(of: tape, style: style)
        let feed = await Fetch.get("https://api.example.com/feed", on: session, style: style)
        #expect(feed.errorCode == .timedOut)
        #expect(feed.status == nil)
        let profile = await Fetch.get("https://api.example.com/profile", on: session, style: style)
        #expect(profile.errorCode == .notConnectedToInternet)
        _ = try tape.eject()

        // A code written as a number (the writer spells known codes by name, so this one lives
        // in a scratch file), and a number no URLError.Code names.
        try await withScratchTape { scratch in
            let file = scratch.file("numbers.json")
            try Data(
                """
                { "version": 1, "interactions": [
                  { "request": { "method": "GET", "url": "https://api.example.com/a" }, "error": { "code": -1009 } },
                  { "request": { "method": "GET", "url": "https://api.example.com/b" }, "error": { "code": -4242 } }
                ] }
                """.utf8
            ).write(to: file)
            let numbers = try Tape(file: file, mode: .none, environment: .tests)
            let numbersSession = Fetch.session(of: numbers, style: style)
            #expect(await Fetch.get("https://api.example.com/a", on: numbersSession, style: style).errorCode == .notConnectedToInternet)
            // On Linux URLError.Code is a closed enum: a number it does not declare arrives as .unknown.
            #if canImport(FoundationNetworking)
            #expect(await Fetch.get("https://api.example.com/b", on: numbersSession, style: style).errorCode == .unknown)
            #else
            #expect(await Fetch.get("https://api.example.com/b", on: numbersSession, style: style).errorCode?.rawValue == -4242)
            #endif
            _ = try numbers.eject()
        }
    }

    @Test(arguments: FetchStyle.allCases)
    func aConnectionLostAfterTenBytes(style: FetchStyle) async throws {
        let tape = try Self.tape()
        let fetched = await Fetch.get("https://api.example.com/download", on: Fetch.session(of: tape, style: style), style: style)
        #expect(fetched.errorCode == .networkConnectionLost)
        if style == .delegate {
            // A delegate sees what a dropped download delivers: the head, then exactly 10 bytes.
            #expect(fetched.status == 200)
            #expect(fetched.headers["Content-Length"] == "26")
            #expect(fetched.body == Data("abcdefghij".utf8))
        } else {
            // Completion handlers and data(for:) report the error alone, as they do live.
            #expect(fetched.status == nil)
            #expect(fetched.body.isEmpty)
        }
        _ = try tape.eject()
    }

    @Test(arguments: FetchStyle.allCases)
    func anEditedStatusAndBody(style: FetchStyle) async throws {
        let tape = try Self.tape()
        let fetched = await Fetch.get("https://api.example.com/orders", on: Fetch.session(of: tape, style: style), style: style)
        #expect(fetched.status == 503)
        #expect(fetched.headers["Retry-After"] == "30")
        #expect(fetched.text == #"{"error":"maintenance"}"#)
        #expect(fetched.errorCode == nil)
        _ = try tape.eject()
    }

    @Test(arguments: FetchStyle.allCases)
    func aSlowResponseTripsTheRequestTimeout(style: FetchStyle) async throws {
        try await TimingIsolation.run {
            let tape = try Self.tape()
            var request = URLRequest(url: try #require(URL(string: "https://api.example.com/search?q=swift")))
            request.timeoutInterval = 0.3
            let start = Date()
            let fetched = await Fetch.run(request, on: Fetch.session(of: tape, style: style), style: style)
            let seconds = Date().timeIntervalSince(start)
            #expect(fetched.errorCode == .timedOut)
            #expect(seconds >= 0.25 && seconds <= 1.5 * TimingIsolation.scale, "took \(seconds) s")
            _ = try tape.eject()
        }
    }
}
