import Foundation
import Testing

@testable import Cassette

/// A miss report's "To fix:" names what fixes the miss where it happened: `Tape.Options` for
/// code, the trait's arguments for a test, flags for a command.
@Suite struct AdviceReaderTests {
    static let recorded = Interaction.Request(method: "GET", url: "http://127.0.0.1:8080/users/42")

    /// The advice for `request` missing a cassette holding ``recorded`` (used up when `usedUp`).
    static func advice(
        _ reader: AdviceReader, mode: RecordMode = .none, request: Interaction.Request = recorded, usedUp: Bool = false
    )
        -> String
    {
        let report = UnmatchedRequestReport(
            request: request, file: URL(fileURLWithPath: "/c/users.json"), mode: mode, rules: .default,
            recorded: [(recorded, usedUp)], usedUp: usedUp ? 1 : 0, reader: reader)
        return report.text.components(separatedBy: "\n").last ?? ""
    }

    @Test func aUsedUpRecordingNamesTheRepeatsOptionWhereTheTapeWasOpened() {
        #expect(
            Self.advice(.code, usedUp: true)
                == "To fix: if the server answers this request more than once, record it with CASSETTE_RECORD_MODE=newEpisodes on a "
                + "machine with network access; to replay the last answer again instead, open the tape with "
                + "Tape.Options(allowsRepeatedReplays: true).")
        #expect(
            Self.advice(.trait, usedUp: true)
                == "To fix: if the server answers this request more than once, record it with CASSETTE_RECORD_MODE=newEpisodes on a "
                + "machine with network access; to replay the last answer again instead, give the trait "
                + ".cassette(options: .init(allowsRepeatedReplays: true)).")
        #expect(
            Self.advice(.command("serve"), usedUp: true)
                == "To fix: if the server answers this request more than once, record it through cassette serve --mode newEpisodes "
                + "--upstream URL on a machine with network access; to replay the last answer again instead, run cassette serve with "
                + "--allow-repeated-replays.")
        #expect(
            Self.advice(.command("play"), usedUp: true)
                == "To fix: if the server answers this request more than once, record it with cassette record (same --cassette and "
                + "request) on a machine with network access; to replay the last answer again instead, run cassette play with "
                + "--allow-repeated-replays.")
    }

    @Test func anotherPortNamesTheMatchingRuleOrTheFlag() {
        let moved = Interaction.Request(method: "GET", url: "http://127.0.0.1:9090/users/42")
        #expect(
            Self.advice(.code, request: moved)
                == "To fix: if the server may listen on another port (a test server on a random port), add .ignoringPort() to the "
                + "cassette's matching (cassette play --match-ignoring port); if the request is new, record it with "
                + "CASSETTE_RECORD_MODE=newEpisodes on a machine with network access.")
        #expect(
            Self.advice(.command("serve"), mode: .once, request: moved)
                == "To fix: if the server may listen on another port (a test server on a random port), give --match-ignoring port; "
                + "if the request is new, record it with --mode newEpisodes and --upstream URL (mode \"once\" does not record into "
                + "an existing cassette).")
        let elsewhere = Interaction.Request(method: "GET", url: "https://staging.example/users/42")
        #expect(
            Self.advice(.command("record"), request: elsewhere)
                == "To fix: if the same requests go to another server (staging, a local one), give --match-ignoring host, which "
                + "compares path, query, method and body only; if the request is new, record it with --mode newEpisodes on a machine "
                + "with network access.")
    }
}
