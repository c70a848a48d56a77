import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The decision alone: each route the router can take, decided for a request with no session,
/// no channel and no server (``Router/decide(_:sent:shownOnMiss:)``).
@Suite struct RouterTests {
    static let file = URL(fileURLWithPath: "/cassettes/api.json")

    static func router(
        _ interactions: [Interaction], mode: RecordMode = .none, rules: RequestMatching = .default,
        latency: Latency = .instant, stubs: Stubs = Stubs(), file: URL? = file, allowsRepeats: Bool = false
    ) -> Router {
        Router(
            setup: Router.Setup(
                file: file, mode: mode, recordsNewRequests: mode == .newEpisodes || mode == .all, replays: mode != .all,
                latency: latency),
            redactor: .none(), playback: PlaybackQueue(interactions, rules: rules, allowsRepeats: allowsRepeats, redactor: .none()),
            stubs: stubs)
    }

    static func decide(_ router: Router, _ url: String, method: String = "GET") -> Decision {
        guard let address = URL(string: url) else { return .refuse(RequestFailure(.tooManyRedirects)) }
        var urlRequest = URLRequest(url: address)
        urlRequest.httpMethod = method
        return router.decide(Interaction.Request(method: method, url: url), sent: { urlRequest })
    }

    /// As the wire executor asks for an upgrade.
    static func decideUpgrade(_ router: Router, _ url: String) -> UpgradeDecision {
        guard let address = URL(string: url) else { return .decided(.refuse(RequestFailure(.tooManyRedirects))) }
        return router.decideUpgrade(Interaction.Request(url: url), sent: { URLRequest(url: address) })
    }

    static let user = Interaction(
        request: .init(url: "https://api.example.com/users/42"),
        response: .init(status: 200, headers: ["Content-Type": "application/json"], body: .init(text: #"{"id":42}"#)),
        timing: .init(firstByte: 0.1, duration: 0.3))

    @Test func aStubAnswersBeforeTheCassetteAndIsNeitherReplayedNorCounted() throws {
        let stubs = Stubs()
        _ = stubs.add(.path("/users/42"), response: .text("stubbed", status: 203).requestTime(0.5, responseTime: 0))
        let router = Self.router([Self.user], stubs: stubs)
        guard case .stub(let answer) = Self.decide(router, "https://api.example.com/users/42") else {
            Issue.record("not a stub")
            return
        }
        #expect(answer.response?.status == 203)
        #expect(answer.body == Data("stubbed".utf8))
        #expect(answer.timing == Interaction.Timing(firstByte: 0.5, duration: 0.5))
        #expect(answer.isDelayed)
        #expect(answer.source == .stub)
        #expect(router.progress().log.replayed == 0)
        // The recording is still there for the next request the stub does not answer.
        #expect(router.progress().unused == ["#1 GET https://api.example.com/users/42"])
    }

    @Test func aRecordingAnswersOnceAtTheTapesLatencyAndIsCounted() throws {
        let router = Self.router([Self.user], latency: .recorded)
        guard case .replay(let answer) = Self.decide(router, "https://api.example.com/users/42") else {
            Issue.record("not a replay")
            return
        }
        #expect(answer.response?.status == 200)
        #expect(answer.response?.headers["Content-Type"] == "application/json")
        #expect(answer.body == Data(#"{"id":42}"#.utf8))
        #expect(answer.timing == Interaction.Timing(firstByte: 0.1, duration: 0.3))
        #expect(answer.source == .replay(.recorded))
        #expect(
            answer.plan(inPieces: false, timeout: nil).events == [
                DeliveryPlan.Event(at: 0.1, step: .head), DeliveryPlan.Event(at: 0.3, step: .body(0..<9)),
                DeliveryPlan.Event(at: 0.3, step: .finish),
            ])
        #expect(router.progress().log.replayed == 1)

        // Used up: in mode none the second request is refused, and the report says why.
        guard case .refuse(let failure) = Self.decide(router, "https://api.example.com/users/42"),
            case .unmatched(let miss) = failure.reason
        else {
            Issue.record("not refused as unmatched")
            return
        }
        #expect(failure.code == .resourceUnavailable)
        #expect(failure.code == Tape.unmatchedRequestErrorCode)
        #expect(miss.usedUp == 1)
        #expect(
            miss.description.hasPrefix(
                "Cassette: no recorded interaction matches GET https://api.example.com/users/42 in cassette "
                    + "/cassettes/api.json (record mode none)."))
        #expect(failure.urlError.localizedDescription == miss.description)
        #expect(router.progress().log.unmatched == [miss])
    }

    @Test func aRequestWithoutARecordingIsRecordedWhereTheModeRecords() throws {
        let router = Self.router([Self.user], mode: .newEpisodes)
        guard case .record(let request) = Self.decide(router, "https://api.example.com/users", method: "POST") else {
            Issue.record("not recorded")
            return
        }
        #expect(request.method == "POST")
        #expect(request.url == "https://api.example.com/users")
        #expect(router.progress().log.unmatched.isEmpty)
    }

    @Test func aStubSessionRefusesWhatNoStubAnswersAndListsIt() throws {
        let stubs = Stubs()
        _ = stubs.add(.path("/a"), response: .text("a"))
        let router = Self.router([], stubs: stubs, file: nil)
        guard case .refuse(let failure) = Self.decide(router, "https://a.example/unknown") else {
            Issue.record("not refused")
            return
        }
        #expect(failure.code == .resourceUnavailable)
        #expect(
            failure.message == "Cassette: no stub matches GET https://a.example/unknown (1 stub installed). Add a stub whose "
                + "condition this request meets, or create the StubSession with unmatched: .passThrough to let such requests reach the network."
        )
        #expect(failure.urlError.userInfo[NSURLErrorFailingURLErrorKey] as? URL == URL(string: "https://a.example/unknown"))
        #expect(throws: StubVerificationError.self) { try stubs.verify() }
    }

    @Test func aRecordingForAnotherOriginPointsWhereTheRequestWent() throws {
        let redirect = Interaction(
            request: .init(url: "https://api.example.com/old"),
            response: .init(status: 302, headers: ["Location": "https://api.example.com/new"]))
        let router = Self.router([redirect], rules: RequestMatching.default.ignoringHost())
        guard case .replay(let answer) = Self.decide(router, "http://127.0.0.1:8080/old") else {
            Issue.record("not a replay")
            return
        }
        #expect(answer.response?.status == 302)
        #expect(answer.response?.headers["Location"] == "http://127.0.0.1:8080/new")
        #expect(answer.request.url == "http://127.0.0.1:8080/old")
    }

    /// Origins compare ignoring case (ASCII by bytes, anything else as Unicode lower-cases it): a
    /// `Location` on the recorded origin in another case moves, one on a longer host does not, and
    /// a live origin that differs only in case moves nothing.
    @Test(arguments: [
        ("https://API.Example.com/old", "https://api.EXAMPLE.com/new?x=1", "http://127.0.0.1:8080/old", "http://127.0.0.1:8080/new?x=1"),
        (
            "https://api.example.com/old", "https://api.example.com.evil/new", "http://127.0.0.1:8080/old",
            "https://api.example.com.evil/new"
        ),
        ("https://api.example.com/old", "https://api.example.com/new", "https://API.EXAMPLE.COM/old", "https://api.example.com/new"),
        ("https://bücher.example/old", "https://BÜCHER.example/new", "http://127.0.0.1:8080/old", "http://127.0.0.1:8080/new"),
        ("https://BÜCHER.example/old", "https://bücher.example/new", "https://bücher.EXAMPLE/old", "https://bücher.example/new"),
    ])
    func aRedirectMovesToTheLiveOriginWhateverTheCase(recorded: String, location: String, live: String, expected: String) throws {
        let redirect = Interaction(request: .init(url: recorded), response: .init(status: 302, headers: ["Location": location]))
        let router = Self.router([redirect], rules: RequestMatching.default.ignoringHost())
        guard case .replay(let answer) = Self.decide(router, live) else {
            Issue.record("not a replay")
            return
        }
        #expect(answer.response?.headers["Location"] == expected)
    }

    @Test func aHandEditedContentLengthLongerThanTheBodyLosesTheConnectionAfterIt() throws {
        let edited = Interaction(
            request: .init(url: "https://api.example.com/cut"),
            response: .init(status: 200, headers: ["Content-Length": "20"], body: .init(text: "0123456789")))
        let router = Self.router([edited])
        guard case .replay(let answer) = Self.decide(router, "https://api.example.com/cut") else {
            Issue.record("not a replay")
            return
        }
        #expect(answer.endCode == .networkConnectionLost)
        #expect(answer.body == Data("0123456789".utf8))
        let error = answer.error(.networkConnectionLost, timeout: nil)
        #expect(error.code == .networkConnectionLost)
        #expect(
            error.localizedDescription == "Cassette: the recorded response to GET https://api.example.com/cut declares Content-Length 20 "
                + "but its body holds 10 bytes, so the connection is lost after them, as it would be live. If the body was edited, correct or "
                + "remove its Content-Length in /cassettes/api.json.")
    }

    @Test func aTimeoutThePlanCutsInSaysWhatWaited() throws {
        let router = Self.router([Self.user], latency: .fixed(firstByte: 5, duration: 6))
        guard case .replay(let answer) = Self.decide(router, "https://api.example.com/users/42") else {
            Issue.record("not a replay")
            return
        }
        #expect(answer.plan(inPieces: false, timeout: 1).events == [DeliveryPlan.Event(at: 1, step: .fail(.timedOut))])
        #expect(
            answer.error(.timedOut, timeout: 1).localizedDescription
                == "Cassette: GET https://api.example.com/users/42 timed out: its replay (latency fixed:5,6) waits longer "
                + "than the request's timeout of 1 s")
    }

    /// A tape still referenced after it is ejected (by the caller, or by a server thread that has
    /// not returned yet when the process exits) keeps no recordings: their bodies are let go once
    /// the report is made. Its report and `recordedAt` stay as they were.
    @Test func anEjectedTapeLetsGoOfItsRecordings() throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let recordedAt = try #require(tape.recordedAt)
        let count = tape.router.progress().unused.count
        #expect(count > 0)
        let report = try tape.eject()
        #expect(report.unusedInteractions.count == count)
        #expect(tape.router.progress().unused.isEmpty)
        #expect(tape.recordedAt == recordedAt)
        guard case .refuse = Self.decide(tape.router, "https://api.example.com/users/42") else {
            Issue.record("an ejected tape's queue still answered")
            return
        }
    }

    /// A recording that is a WebSocket conversation cannot answer a URLSession task: a clear
    /// refusal, not a 101 handed to a data task.
    @Test func aWebSocketConversationIsRefusedWithWhy() throws {
        var conversation = Interaction(
            request: .init(url: "https://api.example.com/live"), response: .init(status: 101),
            webSocket: .init(messages: [.text("hi", from: .server, at: 0.1)]))
        conversation.recordedAt = nil
        let router = Self.router([conversation])
        guard case .refuse(let failure) = Self.decide(router, "https://api.example.com/live") else {
            Issue.record("not refused")
            return
        }
        #expect(failure.urlError.code == .unsupportedURL)
        #expect(
            failure.message.hasPrefix(
                "Cassette: the recording in /cassettes/api.json that matches GET https://api.example.com/live is a WebSocket conversation"))
        #expect(router.progress().log.replayed == 0)
        #expect(router.progress().log.unmatched.isEmpty)
        // The refusal took nothing: the recording is still unused, and an upgrade gets it.
        #expect(router.progress().unused == ["#1 GET https://api.example.com/live"])
        guard case .converse(let replay) = Self.decideUpgrade(router, "https://api.example.com/live") else {
            Issue.record("the conversation was used up by the refused request")
            return
        }
        #expect(replay.number == 1)
        #expect(router.progress().unused.isEmpty)
    }

    /// Where repeats are allowed, a conversation already replayed and then asked for by a task is
    /// refused without counting as unused again.
    @Test func aReplayedConversationAskedForByATaskStaysUsed() throws {
        let conversation = Interaction(
            request: .init(url: "https://api.example.com/live"), response: .init(status: 101),
            webSocket: .init(messages: [.text("hi", from: .server, at: 0.1)]))
        let router = Self.router([conversation], allowsRepeats: true)
        guard case .converse = Self.decideUpgrade(router, "https://api.example.com/live") else {
            Issue.record("not a conversation")
            return
        }
        guard case .refuse = Self.decide(router, "https://api.example.com/live") else {
            Issue.record("not refused")
            return
        }
        #expect(router.progress().unused.isEmpty)
        #expect(router.progress().log.replayed == 1)
    }

    /// Asked by the wire executor for an upgrade, the same recording is a conversation to replay:
    /// its `101`, its script under the tape's latency, counted as a replay.
    @Test func anUpgradeIsAnsweredWithTheConversation() throws {
        let conversation = Interaction(
            request: .init(url: "https://api.example.com/live"), response: .init(status: 101, headers: ["Upgrade": "websocket"]),
            webSocket: .init(messages: [.text("hi", from: .client, at: 0.05), .text("hello", from: .server, at: 0.25)]))
        let router = Self.router([conversation], latency: .scaled(2))
        guard case .converse(let replay) = Self.decideUpgrade(router, "https://api.example.com/live") else {
            Issue.record("not a conversation")
            return
        }
        #expect(replay.response.headers["Upgrade"] == "websocket")
        #expect(replay.number == 1)
        #expect(replay.script.steps == [.expect(index: 0), .send(index: 1, delay: 0.4)])
        #expect(replay.cassette?.path == "/cassettes/api.json")
        #expect(router.progress().log.replayed == 1)
        let miss = replay.miss(at: 0, "it never came (waited 60 s)")
        #expect(
            miss.description.hasPrefix(
                "Cassette: WebSocket message 0 (webSocket.messages[0] of interaction #1, the client's message 1 of 1) of the conversation "
                    + "recorded in /cassettes/api.json for GET https://api.example.com/live does not match: it never came (waited 60 s)."))
    }
}
