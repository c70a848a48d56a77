import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each record mode in each situation: cassette missing or present, request known or unknown.
/// Asserts what the caller received, what reached the server and what the file holds afterwards.
@Suite struct RecordModeTests {
    /// The cassette of the "present" situations: `GET /status/200` answered with a body the live
    /// server never sends, so a replay and a live answer are told apart.
    static func presentCassette(base: String) -> CassetteDocument {
        CassetteDocument(
            recordedWith: "hand-made",
            interactions: [
                Interaction(
                    request: .init(method: "GET", url: base + "/status/200"),
                    response: .init(status: 200, headers: ["Content-Type": "text/plain"], body: .init(text: "recorded body")))
            ])
    }

    enum Outcome: Equatable {
        case replayed, live, refused
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var mode: RecordMode
        var present: Bool
        var known: Bool
        var expected: Outcome
        /// Request paths the file holds afterwards (`nil`: no file).
        var savedPaths: [String]?
        var testDescription: String { "\(mode), cassette \(present ? "present" : "missing"), request \(known ? "known" : "unknown")" }
    }

    static let cases: [Case] = [
        .init(mode: .once, present: false, known: false, expected: .live, savedPaths: ["/status/201"]),
        .init(mode: .once, present: true, known: true, expected: .replayed, savedPaths: ["/status/200"]),
        .init(mode: .once, present: true, known: false, expected: .refused, savedPaths: ["/status/200"]),
        .init(mode: .newEpisodes, present: false, known: false, expected: .live, savedPaths: ["/status/201"]),
        .init(mode: .newEpisodes, present: true, known: true, expected: .replayed, savedPaths: ["/status/200"]),
        .init(mode: .newEpisodes, present: true, known: false, expected: .live, savedPaths: ["/status/200", "/status/201"]),
        .init(mode: .none, present: true, known: true, expected: .replayed, savedPaths: ["/status/200"]),
        .init(mode: .none, present: true, known: false, expected: .refused, savedPaths: ["/status/200"]),
        .init(mode: .all, present: false, known: false, expected: .live, savedPaths: ["/status/201"]),
        .init(mode: .all, present: true, known: true, expected: .live, savedPaths: ["/status/200"]),
        .init(mode: .all, present: true, known: false, expected: .live, savedPaths: ["/status/201"]),
    ]

    @Test(arguments: cases)
    func modeInSituation(_ situation: Case) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("modes.json")
            var before: Data?
            if situation.present {
                before = try JSONCassetteCodec.encode(Self.presentCassette(base: server.baseURL))
                try before?.write(to: file)
            }
            let path = situation.known ? "/status/200" : "/status/201"

            let tape = try Tape(file: file, mode: situation.mode, environment: .tests)
            #expect(tape.mode == situation.mode)
            let fetched = await Fetch.get(server.baseURL + path, on: tape.session)
            let report = try tape.eject()

            switch situation.expected {
            case .replayed:
                #expect(fetched.text == "recorded body")
                #expect(server.received.isEmpty)
                #expect(report.replayed == 1 && report.recorded == 0)
            case .live:
                #expect(fetched.text == "status \(situation.known ? 200 : 201)")
                #expect(server.received.map(\.target) == [path])
                #expect(report.recorded == 1 && report.replayed == 0)
            case .refused:
                #expect(fetched.errorCode == Tape.unmatchedRequestErrorCode)
                let lines = fetched.errorDescription?.components(separatedBy: "\n") ?? []
                #expect(
                    lines.first
                        == "Cassette: no recorded interaction matches GET \(server.baseURL + path) in cassette \(file.path) (record mode \(situation.mode))."
                )
                #expect(
                    lines.last == "To fix: if the request is new, record it with CASSETTE_RECORD_MODE=newEpisodes "
                        + (situation.mode == .once
                            ? "(mode \"once\" does not record into an existing cassette)" : "on a machine with network access")
                        + "; if the code under test should have sent the recorded request, check what it builds.")
                #expect(server.received.isEmpty)
                #expect(report.unmatched.count == 1)
            }

            let saved = try JSONCassetteCodec.decode(Data(contentsOf: file), file: file.path)
            let savedPaths = saved.interactions.map { String($0.request.url.dropFirst(server.baseURL.count)) }
            #expect(savedPaths == situation.savedPaths)
            if situation.expected != .live, let before {
                #expect(try Data(contentsOf: file) == before, "a cassette nothing was recorded into is not rewritten")
            }
            #expect(report.saved == (situation.expected == .live))
        }
    }

    @Test func modeNoneWithoutACassetteThrowsBeforeAnyRequest() throws {
        try withScratchTape { scratch in
            let file = scratch.file("absent.json")
            #expect(throws: CassetteError.cassetteNotFound(file: file.path, mode: .none)) {
                try Tape(file: file, mode: .none, environment: .tests)
            }
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func theEnvironmentChoosesTheMode() throws {
        #expect(try RecordMode.resolve(requested: .once, environment: .tests) == .once)
        #expect(try RecordMode.resolve(requested: .newEpisodes, environment: .tests) == .newEpisodes)
        #expect(try RecordMode.resolve(requested: .once, environment: ["CI": "true"]) == .none)
        #expect(try RecordMode.resolve(requested: .all, environment: ["CI": "1"]) == .none)
        #expect(try RecordMode.resolve(requested: .all, environment: ["CI": "false"]) == .all)
        // Off as every switch reads off (they once meant "on CI"); any other value is on.
        for off in ["no", "off", "OFF", "0", "False"] {
            #expect(try RecordMode.resolve(requested: .all, environment: ["CI": off]) == .all, "CI=\(off)")
        }
        #expect(try RecordMode.resolve(requested: .all, environment: ["CI": "woodpecker"]) == .none)
        #expect(try RecordMode.resolve(requested: .once, environment: ["CI": "true", "CASSETTE_RECORD_MODE": "all"]) == .all)
        #expect(try RecordMode.resolve(requested: .none, environment: ["CASSETTE_RECORD_MODE": "newEpisodes"]) == .newEpisodes)
        #expect(throws: CassetteError.invalidRecordMode("always", source: "CASSETTE_RECORD_MODE")) {
            try RecordMode.resolve(requested: .once, environment: ["CASSETTE_RECORD_MODE": "always"])
        }
        #expect(
            CassetteError.invalidRecordMode("always", source: "CASSETTE_RECORD_MODE").description
                == "CASSETTE_RECORD_MODE: unknown record mode \"always\"; expected one of once, newEpisodes, none, all")
    }

    @Test func anUnknownModeInTheEnvironmentStopsTheTapeFromOpening() throws {
        try withScratchTape { scratch in
            #expect(throws: CassetteError.invalidRecordMode("replay", source: "CASSETTE_RECORD_MODE")) {
                try Tape(file: scratch.file("x.json"), environment: ["CASSETTE_RECORD_MODE": "replay"])
            }
        }
    }
}
