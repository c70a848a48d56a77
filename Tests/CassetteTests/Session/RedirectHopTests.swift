import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A redirect chain is recorded hop by hop and replays hop by hop, so a hand edit of one hop
/// changes what the caller sees after the redirect, and cookies set along the way are stored and
/// sent as live.
@Suite struct RedirectHopTests {
    @Test func editingTheSecondHopIntoA500ReplaysA500AfterTheRedirect() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("chain.json")
            let recording = try Tape(file: file, mode: .once, environment: .tests)
            let (_, live) = try await recording.session.data(from: URL(string: server.baseURL + "/redirect/1")!)
            #expect((live as? HTTPURLResponse)?.statusCode == 200)
            _ = try recording.eject()
            server.stop()

            var text = try String(contentsOf: file, encoding: .utf8)
            let document = try CassetteFile.read(file)
            #expect(document.interactions.map { $0.response?.status } == [302, 200])
            #expect(document.interactions.map { $0.request.url } == [server.baseURL + "/redirect/1", server.baseURL + "/redirect/0"])
            // The hand edit: the second hop answers 500.
            let range = try #require(text.range(of: "\"status\": 200"))
            text.replaceSubrange(range, with: "\"status\": 500")
            try text.write(to: file, atomically: true, encoding: .utf8)

            let replaying = try Tape(file: file, mode: .none, environment: .tests)
            let (body, response) = try await replaying.session.data(from: URL(string: server.baseURL + "/redirect/1")!)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 500)
            #expect(http.url?.absoluteString == server.baseURL + "/redirect/0")
            #expect(String(decoding: body, as: UTF8.self) == "arrived")
            #expect(try replaying.eject().replayed == 2)
        }
    }

    @Test func cookiesSetAlongTheChainAreSentOnLaterRequestsAndRecordedRedacted() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("cookies.json")
            let url = server.baseURL + "/redirect-to?status_code=302&url=/status/200&cookie=session"
            let recording = try Tape(file: file, mode: .once, environment: .tests)
            _ = try await recording.session.data(from: URL(string: url)!)
            _ = try await recording.session.data(from: URL(string: server.baseURL + "/echo")!)
            _ = try recording.eject()
            // Live: the hop and the later request both carried the cookie the redirect set.
            #expect(
                server.received.map { $0.headers["cookie"] } == [
                    nil, "sid=\(LoopbackRoutes.sessionSecret)", "sid=\(LoopbackRoutes.sessionSecret)",
                ])
            server.stop()
            let saved = try String(contentsOf: file, encoding: .utf8)
            #expect(!saved.contains(LoopbackRoutes.sessionSecret))
            #expect(
                try CassetteFile.read(file).interactions.map { $0.request.headers["Cookie"] } == [
                    nil, "sid=[REDACTED-1]", "sid=[REDACTED-1]",
                ])

            // Replayed: the redirect's cookie (redacted, as the cassette holds it) lands in storage.
            let replaying = try Tape(file: file, mode: .none, environment: .tests)
            let (_, response) = try await replaying.session.data(from: URL(string: url)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(replaying.session.configuration.httpCookieStorage?.cookies?.map { "\($0.name)=\($0.value)" } == ["sid=[REDACTED-1]"])
            _ = try await replaying.session.data(from: URL(string: server.baseURL + "/echo")!)
            #expect(try replaying.eject().unmatched.isEmpty)
        }
    }

    /// A stub's redirect is a redirect like any other: followed, or refused by the delegate; and a
    /// stub sees an upload task's body.
    @Test(arguments: TaskCall.allCases)
    func aStubbedRedirectIsFollowedOrRefusedAndStubsSeeUploadBodies(call: TaskCall) async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.path("/old"), response: .text("moved", status: 301).header("Location", "/new"))
        stubbed.stubs.add(.path("/new")) { request in .text("new got \(request.request.body.data.count) bytes") }
        let configuration = URLSessionConfiguration.ephemeral
        stubbed.configure(configuration)
        var upload = URLRequest(url: URL(string: "https://api.example.com/old")!)
        upload.httpMethod = "PUT"

        let followed = await TaskRun.observe(.uploadData(upload, Data(count: 1000)), call: call, configuration: configuration)
        #expect(followed.status == 200 && followed.url == "https://api.example.com/new")
        #expect(followed.text == "new got 1000 bytes", "a 301 keeps a PUT's body")
        let refused = await TaskRun.observe(
            .uploadData(upload, Data(count: 1000)), call: call, configuration: configuration, redirects: .refuse)
        #if canImport(FoundationNetworking)
        // The async API's task delegate is not asked about redirects on Linux (as live).
        #expect(refused.status == (call == .async ? 200 : 301))
        #else
        // Apple's loading system asks the async API's task delegate too (`data(for:delegate:)`).
        #expect(refused.status == 301)
        #endif
        if call == .delegate {
            #expect(followed.events == ["sent 1000 of 1000", "redirect 301 to PUT /new", "response 200", "complete ok"])
            #expect(refused.events == ["sent 1000 of 1000", "redirect 301 to PUT /new", "response 301", "complete ok"])
            #expect(refused.text == "moved")
        }
    }

    /// A delegate slow to answer a redirect, and a caller that cancels meanwhile: the caller hears
    /// `cancelled` once, and the late answer changes nothing (no crash, no second callback).
    @Test func cancellingWhileTheDelegateDecidesARedirect() async throws {
        final class SlowDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
            let lock = NSLock()
            var completions: [Int] = []
            var answered = false
            var onAsked: (@Sendable () -> Void)?
            var done: CheckedContinuation<Void, Never>?
            func urlSession(
                _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
            ) {
                lock.withLock { onAsked }?()
                // Answers only after the caller has cancelled and heard so.
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
                    completionHandler(request)
                    self.lock.withLock { self.answered = true }
                }
            }
            func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
                let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                    completions.append((error as? URLError)?.code.rawValue ?? 0)
                    defer { done = nil }
                    return done
                }
                waiter?.resume()
            }
        }
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.path("/old"), response: .text("moved", status: 302).header("Location", "/new"))
        stubbed.stubs.add(.path("/new"), response: .text("new"))
        let configuration = URLSessionConfiguration.ephemeral
        stubbed.configure(configuration)
        let delegate = SlowDelegate()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: URL(string: "https://api.example.com/old")!)
        let cancel = UncheckedBox(task)
        delegate.lock.withLock { delegate.onAsked = { cancel.value.cancel() } }
        await withCheckedContinuation { continuation in
            delegate.lock.withLock { delegate.done = continuation }
            task.resume()
        }
        // Wait for the late answer, and a little more for anything it might still cause.
        while !delegate.lock.withLock({ delegate.answered }) { try await Task.sleep(nanoseconds: 20_000_000) }
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(delegate.lock.withLock { delegate.completions } == [URLError.Code.cancelled.rawValue])
    }
}
