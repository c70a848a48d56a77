import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where Apple's loading system and FoundationNetworking go through a challenge differently, the
/// replay and the recording follow the platform's rules (``ChallengeRules``). A tape takes its
/// platform's; these tests run each platform's rules here, with the expectation each platform's
/// documentation or measurement gives:
/// - after a failed credential Apple proposes it ("the most recent failed credential",
///   `URLAuthenticationChallenge.proposedCredential`); FoundationNetworking proposes none;
/// - Apple's cancel disposition "cancels the entire request": `cancelled`, no response;
///   FoundationNetworking hands a data delegate the challenged `401` before it asks, so a cancel
///   leaves it with that `401` (measured: `ChallengeTests`); Apple hands over the answer alone;
/// - Apple's default handling answers with the credential the configuration's
///   `urlCredentialStorage` keeps for the protection space; FoundationNetworking's never ends
///   such a task (measured), so it has no live run to follow.
@Suite struct ChallengeRulesTests {
    static func options(_ rules: ChallengeRules) -> Tape.Options {
        var options = Tape.Options().quiet
        options.challengeRules = rules
        return options
    }

    /// Records `path` with the platform's rules, answered by `answering()`, into `file`.
    static func record(
        _ style: FetchStyle, path: String, answering: ChallengeTests.Answering, into file: URL, server: LoopbackServer
    )
        async throws
    {
        let tape = try Tape(file: file, mode: .once, options: Tape.Options().quiet, environment: .tests)
        _ = try await ChallengeTests.run(style, path: path, answering: answering, server: server, tape: tape)
        #expect(try tape.eject().recorded == 1)
    }

    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)), arguments: FetchStyle.allCases)
    func aCancelReplaysAsEachPlatformCancels(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let path = "/basic-auth/ada/other"
            let file = scratch.file("cancelled.json")
            try await Self.record(style, path: path, answering: .init(credential: nil), into: file, server: scratch.server)
            let asked = [ChallengeTests.asked(0, server: scratch.server)]
            for rules in [ChallengeRules.foundationNetworking, .apple] {
                let tape = try Tape(file: file, mode: .none, options: Self.options(rules), environment: .tests)
                let replayed = try await ChallengeTests.run(style, path: path, credential: nil, server: scratch.server, tape: tape)
                _ = try tape.eject()
                let delivers = rules.handsChallengedResponseBeforeAsking && style == .delegate
                #expect(
                    replayed
                        == ChallengeTests.Run(
                            status: delivers ? 401 : nil, body: delivers ? "denied" : "", error: .cancelled, challenges: asked, sent: []),
                    "\(rules == .apple ? "Apple" : "FoundationNetworking"), \(style)")
            }
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)), arguments: FetchStyle.allCases)
    func theFailedCredentialIsProposedWhereThePlatformProposesIt(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let wrong = URLCredential(user: "ada", password: "guess", persistence: .none)
            let path = "/basic-auth/ada/s3cret"
            let file = scratch.file("twice.json")
            try await Self.record(style, path: path, answering: .init([(.useCredential, wrong)]), into: file, server: scratch.server)
            for rules in [ChallengeRules.foundationNetworking, .apple] {
                let tape = try Tape(file: file, mode: .none, options: Self.options(rules), environment: .tests)
                let replayed = try await ChallengeTests.run(
                    style, path: path, answering: .init([(.useCredential, wrong)]), server: scratch.server, tape: tape)
                _ = try tape.eject()
                let proposed = rules.proposesFailedCredential ? "ada" : "-"
                #expect(
                    replayed.challenges
                        == [
                            ChallengeTests.asked(0, server: scratch.server),
                            ChallengeTests.asked(1, server: scratch.server, proposed: proposed),
                        ],
                    "\(rules == .apple ? "Apple" : "FoundationNetworking"), \(style)")
                #expect(replayed.error == .cancelled)
            }
        }
    }

    /// An app that keeps a Basic credential in its configuration's credential storage and answers
    /// with the default handling (or has no delegate): by Apple's rules the recording sends that
    /// credential, as live, keeps the answer as the caller gave it, and replays the answer offline.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)), arguments: FetchStyle.allCases)
    func theCallersStoredCredentialAnswersTheDefaultHandlingByApplesRules(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let path = "/basic-auth/ada/s3cret"
            let storage = URLCredentialStorage()
            let space = URLProtectionSpace(
                host: "127.0.0.1", port: scratch.server.port, protocol: "http", realm: "loopback",
                authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
            storage.setDefaultCredential(URLCredential(user: "ada", password: "s3cret", persistence: .forSession), for: space)
            let json = #"{"authenticated":true,"user":"ada"}"#
            let asked = [ChallengeTests.asked(0, server: scratch.server)]
            let byDefault = { ChallengeTests.Answering([(.performDefaultHandling, nil)]) }

            let file = scratch.file("stored.json")
            let recording = try Tape(file: file, mode: .once, options: Self.options(.apple), environment: .tests)
            let recorded = try await ChallengeTests.run(
                style, path: path, answering: byDefault(), server: scratch.server, tape: recording, credentials: storage)
            #expect(try recording.eject().recorded == 1)
            // Recording through FoundationNetworking, a delegate is handed the 401's body before the
            // authorised answer (as live there: ChallengeTests pins it); the replay hands the answer alone.
            #if canImport(FoundationNetworking)
            let handedFirst = style == .delegate ? "denied" : ""
            #else
            let handedFirst = ""
            #endif
            #expect(
                recorded
                    == ChallengeTests.Run(
                        status: 200, body: handedFirst + json, error: nil, challenges: asked,
                        sent: ["-", "Basic " + Data("ada:s3cret".utf8).base64EncodedString()]), "recorded, \(style)")
            let saved = try #require(CassetteFile.read(file).interactions.first)
            #expect(saved.challenges.map(\.answer) == [.performDefaultHandling], "kept as the caller answered")
            #expect(saved.response?.status == 200)

            let replaying = try Tape(file: file, mode: .none, options: Self.options(.apple), environment: .tests)
            let replayed = try await ChallengeTests.run(style, path: path, answering: byDefault(), server: scratch.server, tape: replaying)
            _ = try replaying.eject()
            #expect(replayed == ChallengeTests.Run(status: 200, body: json, error: nil, challenges: asked, sent: []), "replayed, \(style)")
        }
    }

    /// The calls a data delegate gets replaying a challenge answered with a credential, by each
    /// platform's rules: FoundationNetworking hands it the challenged `401` first (as live there:
    /// `ChallengeTests.theDelegateIsHandedTheSameCallsLiveRecordedAndReplayed`); Apple's loading
    /// system asks, then hands over the answer alone.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)))
    func theChallengedResponseReachesADelegateWhereThePlatformHandsItOver() async throws {
        try await withScratchTape { scratch in
            let right = URLCredential(user: "ada", password: "s3cret", persistence: .none)
            let path = "/basic-auth/ada/s3cret"
            let file = scratch.file("answered.json")
            try await Self.record(.delegate, path: path, answering: .init(credential: right), into: file, server: scratch.server)
            let answer = ["challenge 0", "response 200", #"data {"authenticated":true,"user":"ada"}"#, "complete ok"]
            for (rules, expected) in [(ChallengeRules.foundationNetworking, ["response 401", "data denied"] + answer), (.apple, answer)] {
                let tape = try Tape(file: file, mode: .none, options: Self.options(rules), environment: .tests)
                let replayed = try await ChallengeTests.events(
                    path: path, answering: .init(credential: right), server: scratch.server, tape: tape)
                _ = try tape.eject()
                #expect(replayed == expected, "\(rules == .apple ? "Apple" : "FoundationNetworking")")
            }
        }
    }
}
