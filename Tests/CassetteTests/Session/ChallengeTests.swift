import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An authentication challenge the live server makes while recording reaches the caller's
/// delegate (the task's own first, else the session's, as `URLSession` asks), its answer is used
/// for the request that goes live, and what the caller then saw is what is recorded and replayed.
@Suite struct ChallengeTests {
    /// A task delegate that answers each HTTP Basic challenge as `answers` says for its
    /// `previousFailureCount` (after the last: cancel), and notes every challenge it was asked:
    /// method, realm, count, protection space and failure response.
    /// (FoundationNetworking 6.3.1 never completes a task whose Basic challenge gets
    /// `.performDefaultHandling` and no credential, or no delegate at all: measured; so live runs
    /// here answer with a credential or cancel.)
    final class Answering: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        typealias Reply = (URLSession.AuthChallengeDisposition, URLCredential?)
        private let lock = NSLock()
        private var seen: [String] = []
        let answers: [Reply]

        init(_ answers: [Reply]) {
            self.answers = answers
        }

        /// Answers with `credential` the first time and cancels after, or cancels at once.
        convenience init(credential: URLCredential?) {
            self.init(credential.map { [(.useCredential, $0)] } ?? [])
        }

        var challenges: [String] {
            lock.lock()
            defer { lock.unlock() }
            return seen
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let space = challenge.protectionSpace
            let failure = challenge.failureResponse as? HTTPURLResponse
            let asked =
                "\(space.authenticationMethod) \(space.realm ?? "-") \(challenge.previousFailureCount) "
                + "\(space.protocol ?? "-")://\(space.host):\(space.port) proxy=\(space.isProxy()) "
                + "failure=\(failure?.statusCode ?? 0) \(failure?.value(forHTTPHeaderField: "WWW-Authenticate") ?? "-") "
                + "proposed=\(challenge.proposedCredential?.user ?? "-")"
            lock.lock()
            seen.append(asked)
            lock.unlock()
            let count = challenge.previousFailureCount
            let (disposition, credential) = count < answers.count ? answers[count] : (.cancelAuthenticationChallenge, nil)
            completionHandler(disposition, credential)
        }
    }

    /// What one run gave: the caller's answer, the challenges its delegate was asked, and the
    /// `Authorization` of each request that reached the server.
    struct Run: Equatable {
        var status: Int?
        var body: String
        var error: URLError.Code?
        var challenges: [String]
        var sent: [String]
    }

    /// `GET path` through a session routed by `tape` (none: live) in `style`. The answering
    /// delegate is the session's for async and completion handlers; for `.delegate` the session's
    /// delegate collects the events and the answering one is the task's own.
    static func run(_ style: FetchStyle, path: String, credential: URLCredential?, server: LoopbackServer, tape: Tape?) async throws -> Run
    {
        try await run(style, path: path, answering: Answering(credential: credential), server: server, tape: tape)
    }

    static func run(
        _ style: FetchStyle, path: String, answering: Answering, server: LoopbackServer, tape: Tape?,
        credentials: URLCredentialStorage? = nil
    ) async throws -> Run {
        let configuration = URLSessionConfiguration.ephemeral
        if let credentials { configuration.urlCredentialStorage = credentials }
        tape?.configure(configuration)
        let collecting = CollectingDelegate()
        let session = URLSession(configuration: configuration, delegate: style == .delegate ? collecting : answering, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let before = server.received.count
        let request = URLRequest(url: try #require(URL(string: server.baseURL + path)))
        let fetched: Fetched
        if style == .delegate {
            fetched = await withCheckedContinuation { continuation in
                let task = session.dataTask(with: request)
                task.delegate = answering
                collecting.expect(task.taskIdentifier) { continuation.resume(returning: $0) }
                task.resume()
            }
        } else {
            fetched = await Fetch.run(request, on: session, style: style)
        }
        return Run(
            status: fetched.status, body: fetched.text, error: fetched.errorCode, challenges: answering.challenges,
            sent: server.received.dropFirst(before).map { $0.headers["authorization"] ?? "-" })
    }

    /// What the delegate is asked for the `count`th challenge of `/basic-auth/…` on `server`,
    /// proposing the credential of user `proposed` (none: `-`).
    static func asked(_ count: Int, server: LoopbackServer, proposed: String = "-") -> String {
        "NSURLAuthenticationMethodHTTPBasic loopback \(count) http://127.0.0.1:\(server.port) proxy=false "
            + #"failure=401 Basic realm="loopback" proposed=\#(proposed)"#
    }

    /// What recording `GET path` into `file` and then replaying it offline gave, each run with a
    /// delegate of its own from `answering`: the recorded run, the interaction saved, the replayed run.
    static func recordAndReplay(
        _ style: FetchStyle, path: String, answering: () -> Answering, into file: URL, server: LoopbackServer
    ) async throws -> (recorded: Run, saved: Interaction, replayed: Run) {
        let recording = try Tape(file: file, mode: .once, options: Tape.Options().quiet, environment: .tests)
        let recorded = try await run(style, path: path, answering: answering(), server: server, tape: recording)
        #expect(try recording.eject().recorded == 1)
        let saved = try #require(CassetteFile.read(file).interactions.first)
        let replaying = try Tape(file: file, mode: .none, options: Tape.Options().quiet, environment: .tests)
        let replayed = try await run(style, path: path, answering: answering(), server: server, tape: replaying)
        _ = try replaying.eject()
        return (recorded, saved, replayed)
    }

    /// An HTTP Basic challenge answered with a credential, and one cancelled: live, recorded (the
    /// challenge reaches the caller's delegate, the retry carries its credential, the caller sees
    /// what it saw live, the challenge is kept with its answer) and replayed offline (the delegate
    /// is asked the same challenge — protection space, count, failure response — and its answer
    /// leads to the recorded answer). Where FoundationNetworking hands a delegate the `401`'s
    /// body before the authorised answer's, it does so recorded and replayed too; the cassette
    /// keeps the authorised answer alone, as Apple's loading system delivers it.
    /// (Limited in time: a challenge nobody answers never ends on Linux, see the type's notes.)
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)), arguments: FetchStyle.allCases)
    func aBasicChallengeIsRecordedAndAskedAgainOnReplay(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let credential = URLCredential(user: "ada", password: "s3cret", persistence: .forSession)
            let asked = [Self.asked(0, server: scratch.server)]
            let authorised = "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
            let json = #"{"authenticated":true,"user":"ada"}"#
            // Each platform's rule (ChallengeRules): FoundationNetworking hands the challenged 401's
            // head and body over before asking (to Cassette's recording session, and to a caller's
            // data delegate); Apple's loading system hands over neither, and its cancel "cancels
            // the entire request" (URLSession.AuthChallengeDisposition), so no 401 is seen or kept.
            let handsOver = ChallengeRules.platform.handsChallengedResponseBeforeAsking
            let deliversTheChallengedBody = handsOver && style == .delegate
            let challengedBody = handsOver ? "denied" : ""
            for (path, answer) in [("/basic-auth/ada/s3cret", credential), ("/basic-auth/ada/other", nil)] {
                let live = try await Self.run(style, path: path, credential: answer, server: scratch.server, tape: nil)
                #expect(live.challenges == asked, "live, \(style)")
                if answer == nil {
                    // Cancelled: where the platform hands it over, the 401 is the answer a delegate
                    // sees (its head and body), then the error; elsewhere the error alone.
                    #expect(live.error == .cancelled)
                    #expect(live.status == (deliversTheChallengedBody ? 401 : nil))
                    #expect(live.body == (deliversTheChallengedBody ? "denied" : ""))
                    #expect(live.sent == ["-"])
                } else {
                    #expect(live.status == 200 && live.error == nil)
                    #expect(live.body == (deliversTheChallengedBody ? "denied" + json : json))
                    #expect(live.sent == ["-", authorised])
                }

                let file = scratch.file("challenge-\(answer == nil ? "cancelled" : "answered").json")
                var (recorded, saved, replayed) = try await Self.recordAndReplay(
                    style, path: path, answering: { Answering(credential: answer) }, into: file, server: scratch.server)
                #expect(recorded == live, "recorded, \(style)")
                #expect(saved.request.headers["Authorization"] == nil, "the request as the caller made it")
                // The cancelled call keeps the 401 as its answer where the platform handed it over.
                let keptAnswer: String? = answer == nil ? (handsOver ? "denied" : nil) : json
                #expect(saved.response?.status == (answer == nil ? (handsOver ? 401 : nil) : 200))
                #expect(saved.response?.body.data == keptAnswer.map { Data($0.utf8) })
                #expect(saved.error?.code == (answer == nil ? .cancelled : nil))
                #expect(
                    saved.challenges == [
                        Interaction.Challenge(
                            method: "HTTPBasic", realm: "loopback", answer: answer == nil ? .cancelAuthenticationChallenge : .useCredential,
                            response: .init(
                                status: 401,
                                headers: ["Content-Length": "6", "WWW-Authenticate": #"Basic realm="loopback""#],
                                body: .init(text: challengedBody)))
                    ])

                #expect(replayed.challenges == asked, "replayed, \(style): the delegate is asked what it was asked live")
                #expect(replayed.sent == [], "offline")
                replayed.sent = live.sent
                #expect(replayed == live, "replayed, \(style)")
            }
        }
    }

    /// A wrong credential, then a cancel: two challenges, both kept with their answers, both asked
    /// again on replay (counts 0 and 1), and the caller ends as it did live.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)), arguments: FetchStyle.allCases)
    func aWrongCredentialAndThenACancelAreTwoChallenges(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let wrong = URLCredential(user: "ada", password: "guess", persistence: .none)
            let answering = { Answering([(.useCredential, wrong)]) }
            let path = "/basic-auth/ada/s3cret"
            // The second challenge proposes the credential that failed where the platform does
            // (Apple: "the most recent failed credential"; FoundationNetworking: none), live and replayed.
            let proposed = ChallengeRules.platform.proposesFailedCredential ? "ada" : "-"
            let asked = [Self.asked(0, server: scratch.server), Self.asked(1, server: scratch.server, proposed: proposed)]
            let live = try await Self.run(style, path: path, answering: answering(), server: scratch.server, tape: nil)
            #expect(live.challenges == asked)
            #expect(live.error == .cancelled)
            #expect(live.sent == ["-", "Basic " + Data("ada:guess".utf8).base64EncodedString()])

            var (recorded, saved, replayed) = try await Self.recordAndReplay(
                style, path: path, answering: answering, into: scratch.file("twice.json"), server: scratch.server)
            #expect(recorded == live, "recorded, \(style)")
            #expect(saved.challenges.map(\.answer) == [.useCredential, .cancelAuthenticationChallenge])
            #expect(saved.response?.status == 401 && saved.error?.code == .cancelled)
            #expect(replayed.challenges == asked, "replayed, \(style)")
            #if canImport(FoundationNetworking)
            // FoundationNetworking hands a delegate each 401's body before asking, live and replayed.
            #expect(live.body == (style == .delegate ? "denieddenied" : ""))
            #else
            #expect(live.body == "")
            #endif
            replayed.sent = live.sent
            #expect(replayed == live, "replayed, \(style)")
        }
    }

    /// A replay whose delegate answers otherwise than the recorded one: a cancel ends with
    /// `cancelled` after what the platform hands over before the question (``ChallengeRules``) —
    /// what the same cancel gets live; the default
    /// handling plays the challenged response as the answer (Apple's loading system's behaviour:
    /// FoundationNetworking never ends such a task live, so there is no live run to compare); a
    /// credential where the recording cancelled fails like a miss, saying what to do.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)), arguments: FetchStyle.allCases)
    func anotherAnswerOnReplayEndsAtTheChallenge(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let credential = URLCredential(user: "ada", password: "s3cret", persistence: .forSession)
            let path = "/basic-auth/ada/s3cret"
            let answered = scratch.file("answered.json")
            let recording = try Tape(file: answered, mode: .once, options: Tape.Options().quiet, environment: .tests)
            _ = try await Self.run(style, path: path, credential: credential, server: scratch.server, tape: recording)
            _ = try recording.eject()

            // Cancelled on replay: as a cancel live.
            let cancelledLive = try await Self.run(style, path: path, credential: nil, server: scratch.server, tape: nil)
            let replaying = try Tape(file: answered, mode: .none, options: Tape.Options().quiet, environment: .tests)
            var cancelled = try await Self.run(style, path: path, credential: nil, server: scratch.server, tape: replaying)
            #expect(cancelled.sent == [])
            cancelled.sent = cancelledLive.sent
            #expect(cancelled == cancelledLive, "cancelled on replay, \(style)")

            _ = try replaying.eject()

            // The default handling: the challenged response is the answer — on Linux followed by
            // userAuthenticationRequired (see aReplayed401WithAChallengeEndsOnLinux).
            let again = try Tape(file: answered, mode: .none, options: Tape.Options().quiet, environment: .tests)
            let byDefault = try await Self.run(
                style, path: path, answering: Answering([(.performDefaultHandling, nil)]), server: scratch.server, tape: again)
            let asked = [Self.asked(0, server: scratch.server)]
            #if canImport(FoundationNetworking)
            let expected = Run(
                status: style == .delegate ? 401 : nil, body: style == .delegate ? "denied" : "", error: .userAuthenticationRequired,
                challenges: asked, sent: [])
            #else
            let expected = Run(status: 401, body: "", error: nil, challenges: asked, sent: [])
            #endif
            #expect(byDefault == expected, "default handling on replay, \(style)")
            _ = try again.eject()

            // A credential where the recording cancelled: not in the cassette.
            let refused = scratch.file("refused.json")
            let cancelling = try Tape(file: refused, mode: .once, options: Tape.Options().quiet, environment: .tests)
            _ = try await Self.run(style, path: path, credential: nil, server: scratch.server, tape: cancelling)
            _ = try cancelling.eject()
            let replayingRefused = try Tape(file: refused, mode: .none, options: Tape.Options().quiet, environment: .tests)
            let configuration = URLSessionConfiguration.ephemeral
            replayingRefused.configure(configuration)
            let session = URLSession(configuration: configuration, delegate: Answering(credential: credential), delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            let fetched = await Fetch.run(
                URLRequest(url: try #require(URL(string: scratch.server.baseURL + path))), on: session,
                style: style == .delegate ? .async : style)
            #expect(fetched.errorCode == .resourceUnavailable)
            #expect(
                fetched.errorDescription
                    == "Cassette: the delegate answered challenge 1 to GET \(scratch.server.baseURL + path) (HTTPBasic, realm \"loopback\") "
                    + "with useCredential, but when it was recorded it was answered with cancelAuthenticationChallenge, so "
                    + "\(refused.path) holds no answer to the request sent with a credential. Record the interaction again (delete it, "
                    + "or record with mode .all) with the delegate that answers with a credential.")
            _ = try replayingRefused.eject()
        }
    }

    /// A replayed `401` with `WWW-Authenticate` and no recorded challenge (recorded on an Apple
    /// system, or edited by hand): FoundationNetworking takes it for a challenge when a protocol
    /// finishes it, and then never ends the task (no delegate, the default handling) — measured.
    /// On Linux the replay ends after the 401 with `userAuthenticationRequired`, saying why; on
    /// Apple platforms the 401 is the answer.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)), arguments: FetchStyle.allCases)
    func aReplayed401WithAChallengeEndsOnLinux(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let url = "http://127.0.0.1:9/account"
            let file = scratch.file("bare-401.json")
            let cassette =
                #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "\#(url)" }, "response": { "status": 401, "#
                + #""headers": { "WWW-Authenticate": "Basic realm=\"api\"" }, "body": { "text": "sign in" } } } ] }"#
            try Data(cassette.utf8).write(to: file)
            let tape = try Tape(file: file, mode: .none, options: Tape.Options().quiet, environment: .tests)
            let fetched = await Fetch.run(
                URLRequest(url: try #require(URL(string: url))), on: Fetch.session(of: tape, style: style), style: style)
            #if canImport(FoundationNetworking)
            #expect(fetched.errorCode == .userAuthenticationRequired)
            #expect(fetched.errorDescription?.hasPrefix("Cassette: the answer to GET \(url) is a 401 with WWW-Authenticate") == true)
            #expect(fetched.status == (style == .delegate ? 401 : nil))
            #expect(fetched.text == (style == .delegate ? "sign in" : ""))
            #else
            #expect(fetched.errorCode == nil && fetched.status == 401 && fetched.text == "sign in")
            #endif
            _ = try tape.eject()
        }
    }

    /// The calls a session's data delegate gets for `GET path` through `tape` (none: live), each
    /// challenge answered by `answering` (``EventDelegate`` with every piece of the body noted).
    static func events(path: String, answering: Answering, server: LoopbackServer, tape: Tape?) async throws -> [String] {
        let configuration = URLSessionConfiguration.ephemeral
        tape?.configure(configuration)
        let request = URLRequest(url: try #require(URL(string: server.baseURL + path)))
        return await TaskRun.observe(.data(request), call: .delegate, configuration: configuration, challenges: answering, notesData: true)
            .events
    }

    /// What a session delegate is handed, call by call, for a challenge answered with a
    /// credential, with a wrong one and then a cancel: the same live, recorded and replayed.
    /// Each platform's order is its own: FoundationNetworking hands the challenged `401`'s head
    /// and body to the delegate before asking it (measured on 6.3.1); Apple's loading system asks
    /// about the challenge and hands over only the answer to the request sent with the credential.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)))
    func theDelegateIsHandedTheSameCallsLiveRecordedAndReplayed() async throws {
        try await withScratchTape { scratch in
            let right = URLCredential(user: "ada", password: "s3cret", persistence: .none)
            let wrong = URLCredential(user: "ada", password: "guess", persistence: .none)
            let json = #"{"authenticated":true,"user":"ada"}"#
            let cancelled = "complete NSURLErrorDomain \(URLError.Code.cancelled.rawValue)"
            #if canImport(FoundationNetworking)
            let answered = ["response 401", "data denied", "challenge 0", "response 200", "data \(json)", "complete ok"]
            let twice = ["response 401", "data denied", "challenge 0", "response 401", "data denied", "challenge 1", cancelled]
            #else
            let answered = ["challenge 0", "response 200", "data \(json)", "complete ok"]
            let twice = ["challenge 0", "challenge 1", cancelled]
            #endif
            for (name, answers, expected) in [("answered", [right], answered), ("twice", [wrong], twice)] {
                let answering = { Answering(answers.map { (.useCredential, $0) }) }
                let path = "/basic-auth/ada/s3cret"
                let live = try await Self.events(path: path, answering: answering(), server: scratch.server, tape: nil)
                #expect(live == expected, "live, \(name)")
                let file = scratch.file("\(name).json")
                let recording = try Tape(file: file, mode: .once, options: Tape.Options().quiet, environment: .tests)
                let recorded = try await Self.events(path: path, answering: answering(), server: scratch.server, tape: recording)
                #expect(try recording.eject().recorded == 1)
                #expect(recorded == expected, "recorded, \(name)")
                let replaying = try Tape(file: file, mode: .none, options: Tape.Options().quiet, environment: .tests)
                let replayed = try await Self.events(path: path, answering: answering(), server: scratch.server, tape: replaying)
                _ = try replaying.eject()
                #expect(replayed == expected, "replayed, \(name)")
            }
        }
    }
}
