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
    /// A task delegate that answers an HTTP Basic challenge with `credential` the first time, and
    /// cancels it otherwise (FoundationNetworking 6.3.1 never completes a task whose Basic
    /// challenge gets `.performDefaultHandling` and no credential, or no delegate at all: measured).
    final class Answering: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [String] = []
        let credential: URLCredential?

        init(credential: URLCredential?) {
            self.credential = credential
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
            lock.lock()
            seen.append("\(space.authenticationMethod) \(space.realm ?? "-") \(challenge.previousFailureCount)")
            lock.unlock()
            if let credential, challenge.previousFailureCount == 0 {
                completionHandler(.useCredential, credential)
            } else {
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
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
        let answering = Answering(credential: credential)
        let configuration = URLSessionConfiguration.ephemeral
        try tape?.configure(configuration)
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

    /// An HTTP Basic challenge answered with a credential, and one cancelled: live, recorded (the
    /// challenge reaches the caller's delegate, the retry carries its credential, the caller sees
    /// what it saw live) and replayed offline (the answer the caller saw). One difference is
    /// FoundationNetworking's and pinned: live, it hands a delegate the `401`'s body before the
    /// authorised answer's; the recording keeps the authorised answer alone, as Apple's loading
    /// system delivers it, so that is what a delegate gets on replay.
    /// (Limited in time: a challenge nobody answers never ends on Linux, see the type's notes.)
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1)), arguments: FetchStyle.allCases)
    func aBasicChallengeReachesTheCallersDelegateWhileRecording(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let credential = URLCredential(user: "ada", password: "s3cret", persistence: .forSession)
            let asked = ["NSURLAuthenticationMethodHTTPBasic loopback 0"]
            let authorised = "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
            let json = #"{"authenticated":true,"user":"ada"}"#
            #if canImport(FoundationNetworking)
            let deliversTheChallengedBody = style == .delegate
            #else
            let deliversTheChallengedBody = false
            #endif
            for (path, answer) in [("/basic-auth/ada/s3cret", credential), ("/basic-auth/ada/other", nil)] {
                let live = try await Self.run(style, path: path, credential: answer, server: scratch.server, tape: nil)
                #expect(live.challenges == asked, "live, \(style)")
                if answer == nil {
                    // Cancelled: the 401 is the answer (a delegate sees its head and body), then the error.
                    #expect(live.error == .cancelled)
                    #expect(live.status == (style == .delegate ? 401 : nil))
                    #expect(live.sent == ["-"])
                } else {
                    #expect(live.status == 200 && live.error == nil)
                    #expect(live.body == (deliversTheChallengedBody ? "denied" + json : json))
                    #expect(live.sent == ["-", authorised])
                }

                let file = scratch.file("challenge-\(answer == nil ? "cancelled" : "answered").json")
                let recording = try Tape(file: file, mode: .once, options: Tape.Options().quiet, environment: .tests)
                let recorded = try await Self.run(style, path: path, credential: answer, server: scratch.server, tape: recording)
                #expect(recorded == live, "recorded, \(style)")
                #expect(try recording.eject().recorded == 1)
                let saved = try #require(CassetteFile.read(file).interactions.first)
                #expect(saved.request.headers["Authorization"] == nil, "the request as the caller made it")
                #expect(saved.response?.status == (answer == nil ? 401 : 200))
                #expect(saved.response?.body.data == Data((answer == nil ? "denied" : json).utf8))
                #expect(saved.error?.code == (answer == nil ? .cancelled : nil))

                let replaying = try Tape(file: file, mode: .none, options: Tape.Options().quiet, environment: .tests)
                var replayed = try await Self.run(style, path: path, credential: answer, server: scratch.server, tape: replaying)
                #expect(replayed.challenges == [] && replayed.sent == [], "offline, nobody asked")
                if answer != nil, deliversTheChallengedBody {
                    #expect(replayed.body == json)
                    replayed.body = live.body
                }
                replayed.challenges = live.challenges
                replayed.sent = live.sent
                #expect(replayed == live, "replayed, \(style)")
                _ = try replaying.eject()
            }
        }
    }
}
