import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sessions Cassette makes — a tape's own, and those of `tape.makeSession` — are known to
/// their route, so the session running a task (whose delegate is asked about redirects and told
/// of upload progress) is found without asking the task, which on Apple platforms is not public API.
@Suite struct KnownSessionTests {
    /// Refuses every redirect, and counts what it was asked.
    final class RefusingDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        let asked = Locked(0)

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
        ) {
            asked.withLock { $0 += 1 }
            completionHandler(nil)
        }
    }

    /// The session the route of `session`'s protocol class knows (``Exchange/knownSession``).
    static func knownSession(of session: URLSession) -> URLSession? {
        guard let protocolClass = session.configuration.protocolClasses?.first as? CassetteURLProtocol.Type else { return nil }
        return SlotTable.shared.route(of: protocolClass)?.session
    }

    /// Runs `url` on `session` with a completion handler; the task and its status.
    static func run(_ url: String, on session: URLSession) async throws -> (URLSessionTask, Int?) {
        let request = URLRequest(url: try #require(URL(string: url)))
        let box = Locked<URLSessionTask?>(nil)
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            let task = session.dataTask(with: request) { _, response, _ in
                continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode)
            }
            box.withLock { $0 = task }
            task.resume()
        }
        return (try #require(box.withLock { $0 }), status)
    }

    @Test func aSessionFromMakeSessionIsKnownAndItsDelegateAskedAboutRedirects() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            let delegate = RefusingDelegate()
            let configuration = URLSessionConfiguration.ephemeral
            let session = tape.makeSession(configuration: configuration, delegate: delegate)
            // As URLSession does, it takes a copy: the caller's configuration is not routed, so no
            // other session made from it shares the class that knows this one.
            #expect(configuration.protocolClasses?.contains { $0 is CassetteURLProtocol.Type } == false)
            let (task, status) = try await Self.run(scratch.url("/redirect/1"), on: session)
            #expect(status == 302, "the delegate refused the redirect: the 302 is the answer")
            #expect(delegate.asked.withLock { $0 } == 1)
            #expect(Self.knownSession(of: session) === session)
            #expect(TaskInternals.session(of: task, known: Self.knownSession(of: session)) === session)
            #expect(try tape.eject().warnings == [])
            session.invalidateAndCancel()
        }
    }

    @Test func theTapesOwnSessionIsKnownAndACallersIsNot() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            let (own, ownStatus) = try await Self.run(scratch.url("/status/200"), on: tape.session)
            #expect(ownStatus == 200)
            #expect(Self.knownSession(of: tape.session) === tape.session)
            #expect(own.state == .completed)

            let configuration = URLSessionConfiguration.ephemeral
            tape.configure(configuration)
            let callers = URLSession(configuration: configuration)
            let (task, status) = try await Self.run(scratch.url("/status/200"), on: callers)
            #expect(status == 200)
            #expect(Self.knownSession(of: callers) == nil)
            // Found all the same on Linux, through the task.
            #expect(TaskInternals.session(of: task) === callers)
            callers.invalidateAndCancel()
        }
    }

    /// Where the session cannot be found and the task has no delegate of its own, the report says
    /// the redirect was followed without asking.
    @Test func aRedirectFollowedWithoutAskingIsSaid() {
        let request = Interaction.Request(method: "GET", url: "https://api.example.com/old")
        #expect(Redirect.unaskedDelegateWarning(for: request, taskHasDelegate: false, sessionFound: true) == nil)
        #expect(Redirect.unaskedDelegateWarning(for: request, taskHasDelegate: true, sessionFound: false) == nil)
        #expect(
            Redirect.unaskedDelegateWarning(for: request, taskHasDelegate: false, sessionFound: false)
                == "GET https://api.example.com/old was redirected without asking the session's delegate, if it has one: Cassette could "
                + "not find the session that runs the task. Make the session with tape.makeSession(configuration:delegate:delegateQueue:), "
                + "so that Cassette knows it.")
    }
}
