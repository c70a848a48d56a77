import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache a tape keeps is the tape's, and stores what Apple documents a session's cache
/// stores (`urlSession(_:dataTask:willCacheResponse:completionHandler:)`: a 2xx from the server
/// whose cache fields, when present, allow it), asking the delegate first. Each cache policy is
/// run against each kind of response from the loopback server — statuses 200, 404 and 410, cache
/// fields present and absent — recording, then replaying, through the async, completion-handler
/// and delegate APIs. The first request of each pair reaches the live server and is compared with
/// a plain session's answer field by field; the second is what the policy makes of the cache.
@Suite struct URLCachePolicyTests {
    /// A response the loopback server gives: a status, and its `Cache-Control` (nil: none).
    struct Kind: Sendable, CustomTestStringConvertible {
        var status: Int
        var control: String?
        var testDescription: String { "\(status) \(control ?? "without cache fields")" }

        func path(_ name: String) -> String {
            let query = control.map { "control=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) + "&" } ?? ""
            return "/cache/status/\(status)?\(query)case=\(name)"
        }
    }

    static let kinds = [
        Kind(status: 200, control: "max-age=60"), Kind(status: 200, control: nil), Kind(status: 200, control: "no-store"),
        Kind(status: 404, control: "max-age=60"), Kind(status: 410, control: nil),
    ]

    static let policies: [(name: String, policy: URLRequest.CachePolicy)] = [
        ("useProtocolCachePolicy", .useProtocolCachePolicy), ("reloadIgnoringLocalCacheData", .reloadIgnoringLocalCacheData),
        ("returnCacheDataElseLoad", .returnCacheDataElseLoad), ("returnCacheDataDontLoad", .returnCacheDataDontLoad),
    ]

    /// What the second request gets, by Apple's rule: from the cache, sent, or failed (nothing
    /// stored and the policy does not load).
    static func expected(_ kind: Kind, _ policy: URLRequest.CachePolicy) -> String {
        let stored = (200..<300).contains(kind.status) && kind.control != "no-store"
        let fresh = stored && kind.control == "max-age=60"
        switch policy {
        case .reloadIgnoringLocalCacheData: return "sent"
        case .returnCacheDataElseLoad: return stored ? "cache" : "sent"
        case .returnCacheDataDontLoad: return stored ? "cache" : "failed"
        default: return fresh ? "cache" : "sent"
        }
    }

    /// A session of `style` whose configuration has a cache, after `configure`.
    static func session(
        _ style: FetchStyle, delegate: URLSessionDelegate? = nil, configure: (URLSessionConfiguration) throws -> Void
    )
        rethrows -> URLSession
    {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
        try configure(configuration)
        let given = delegate ?? (style == .delegate ? CollectingDelegate() : nil)
        return URLSession(configuration: configuration, delegate: given, delegateQueue: nil)
    }

    /// Runs every kind with every policy through `session`: what each pair gave, as lines.
    static func run(_ style: FetchStyle, on session: URLSession, base: String, firsts: inout [Fetched]) async -> [String] {
        var lines: [String] = []
        for kind in kinds {
            for (name, policy) in policies {
                let url = URL(string: base + kind.path(name))!
                let first = await Fetch.run(URLRequest(url: url), on: session, style: style)
                firsts.append(first)
                var again = URLRequest(url: url)
                again.cachePolicy = policy
                let second = await Fetch.run(again, on: session, style: style)
                let outcome =
                    second.errorCode == .resourceUnavailable
                    ? "failed" : second.text == first.text && second.status == first.status ? "cache" : "sent"
                lines.append("\(kind.testDescription), \(name): \(outcome)")
            }
        }
        return lines
    }

    @Test(arguments: FetchStyle.allCases)
    func eachPolicyWithEachKindOfResponseAsAppleDocumentsIt(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let expected = Self.kinds.flatMap { kind in
                Self.policies.map { "\(kind.testDescription), \($0.name): \(Self.expected(kind, $0.policy))" }
            }
            // Live, a plain session: the first request of each pair, to compare with.
            let plain = Self.session(style) { _ in }
            var live: [Fetched] = []
            for kind in Self.kinds {
                for (name, _) in Self.policies {
                    live.append(
                        await Fetch.run(URLRequest(url: try #require(URL(string: scratch.url(kind.path(name))))), on: plain, style: style))
                }
            }
            let options = Tape.Options(urlCache: .keptCachingAsOnApplePlatforms)
            let recording = try scratch.tape(mode: .once, options: options)
            var recordedFirsts: [Fetched] = []
            let recorded = await Self.run(
                style, on: Self.session(style, configure: recording.configure), base: scratch.server.baseURL, firsts: &recordedFirsts)
            #expect(recorded == expected, "recorded, \(style)")
            #expect(recordedFirsts.map(\.status) == live.map(\.status))
            #expect(recordedFirsts.map { $0.headers["Cache-Control"] } == live.map { $0.headers["Cache-Control"] })
            #expect(recordedFirsts.map { $0.headers["Content-Type"] } == live.map { $0.headers["Content-Type"] })
            let sent = scratch.server.received.count
            _ = try recording.eject()

            let replaying = try scratch.tape(mode: .none, options: options)
            var replayedFirsts: [Fetched] = []
            let replayed = await Self.run(
                style, on: Self.session(style, configure: replaying.configure), base: scratch.server.baseURL, firsts: &replayedFirsts)
            #expect(replayed == expected, "replayed, \(style)")
            // Field by field (a delegate's timings aside).
            let fields = { (fetched: Fetched) in
                "\(fetched.status ?? 0) \(fetched.headers.sorted { $0.key < $1.key }) \(fetched.text) \(fetched.pieces)"
            }
            #expect(replayedFirsts.map(fields) == recordedFirsts.map(fields))
            #expect(scratch.server.received.count == sent, "the replay sent nothing")
            #expect(try replaying.eject().unmatched.isEmpty)
        }
    }

    /// `.kept` on `URLSessionConfiguration.default` (whose cache is `URLCache.shared`, on disk on
    /// Apple platforms): the session caches into the tape's cache, never the shared one, so
    /// nothing answers the next run's request before the tape sees it.
    @Test func aKeptCacheIsTheTapesNeverTheConfigurations() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once, options: Tape.Options(urlCache: .keptCachingAsOnApplePlatforms))
            let configuration = URLSessionConfiguration.default
            let shared = try #require(configuration.urlCache)
            tape.configure(configuration)
            #expect(configuration.urlCache !== shared)
            #expect(configuration.urlCache === tape.session.configuration.urlCache, "one cache: the tape's")
            let session = URLSession(configuration: configuration)
            let url = scratch.url("/cache/max-age/60")
            #expect(await Fetch.get(url, on: session).text == "response #1")
            #expect(await Fetch.get(url, on: session).text == "response #1", "answered from the tape's cache")
            #expect(shared.cachedResponse(for: URLRequest(url: try #require(URL(string: url)))) == nil)
            #expect(
                configuration.urlCache?.cachedResponse(for: URLRequest(url: try #require(URL(string: url))))?.data
                    == Data("response #1".utf8))

            // A configuration without a cache keeps none: a live session with none caches nothing.
            let none = URLSessionConfiguration.ephemeral
            none.urlCache = nil
            tape.configure(none)
            #expect(none.urlCache == nil)
            _ = try tape.eject()
        }
    }

    /// A data delegate that answers `willCacheResponse` with `answer`, noting each call in order.
    final class CachingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let answer: @Sendable (CachedURLResponse) -> CachedURLResponse?
        private let lock = NSLock()
        private var events: [String] = []

        init(answer: @escaping @Sendable (CachedURLResponse) -> CachedURLResponse?) {
            self.answer = answer
        }

        var calls: [String] {
            lock.lock()
            defer { lock.unlock() }
            return events
        }

        private func note(_ event: String) {
            lock.lock()
            events.append(event)
            lock.unlock()
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
            completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
        ) {
            note("willCacheResponse \((proposedResponse.response as? HTTPURLResponse)?.statusCode ?? 0) \(proposedResponse.data.count)")
            completionHandler(answer(proposedResponse))
        }
    }

    /// A data delegate on a serial delegate queue that notes every call it gets, in order.
    final class OrderDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var events: [String] = []
        private let done: @Sendable () -> Void

        init(done: @escaping @Sendable () -> Void) { self.done = done }

        var calls: [String] { lock.withLock { events } }
        private func note(_ event: String) { lock.withLock { events.append(event) } }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            note("response")
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            // Pieces are told apart from the order only: a run of data calls notes one event.
            if calls.last != "data" { note("data") }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
            completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
        ) {
            // What a delegate that keeps state from `didReceive` reads here: the response and the data are in.
            note("willCacheResponse after \(calls.joined(separator: ","))")
            completionHandler(proposedResponse)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            note("complete")
            done()
        }
    }

    /// Apple's order for a response the cache stores: the response, the data, then
    /// `willCacheResponse`, then the completion — on a serial delegate queue that records it, for a
    /// recorded answer and a replayed one, and for a body delivered at once and over time.
    @Test(arguments: ["/cache/status/200", "/slow-chunks/3/20"])
    func willCacheResponseComesAfterTheResponseAndTheData(path: String) async throws {
        try await withScratchTape { scratch in
            let url = try #require(URL(string: scratch.url(path + "?order=1")))
            for mode in [RecordMode.once, .none] {
                let tape = try scratch.tape(mode: mode, options: Tape.Options(urlCache: .keptCachingAsOnApplePlatforms))
                let finished = DispatchSemaphore(value: 0)
                let delegate = OrderDelegate { finished.signal() }
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 1
                let configuration = URLSessionConfiguration.ephemeral
                tape.configure(configuration)
                let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
                session.dataTask(with: url).resume()
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        _ = finished.wait(timeout: .now() + 10)
                        continuation.resume()
                    }
                }
                #expect(
                    delegate.calls == ["response", "data", "willCacheResponse after response,data", "complete"],
                    "\(mode) \(path)")
                session.finishTasksAndInvalidate()
                _ = try tape.eject()
            }
        }
    }

    /// The session delegate's `willCacheResponse` is asked before the task completes (its call is
    /// there when the completion handler runs), and its
    /// answer is what is stored: nil stores nothing (Alamofire's `ResponseCacher.doNotCache`),
    /// another entry is stored instead.
    @Test func theDelegateIsAskedAndItsAnswerHonoured() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once, options: Tape.Options(urlCache: .keptCachingAsOnApplePlatforms))
            let refusing = CachingDelegate { _ in nil }
            let replacing = CachingDelegate { proposed in
                CachedURLResponse(response: proposed.response, data: Data("from the delegate".utf8), storagePolicy: .allowedInMemoryOnly)
            }
            for (delegate, expected) in [(refusing, "response #2"), (replacing, "from the delegate")] {
                let session = Self.session(.completionHandler, delegate: delegate, configure: tape.configure)
                let url = try #require(URL(string: scratch.url("/cache/status/200?case=\(expected.count)")))
                let first = await Fetch.run(URLRequest(url: url), on: session, style: .completionHandler)
                // Asked before the task completed: the call is there when the completion handler ran.
                #expect(delegate.calls == ["willCacheResponse 200 \(first.body.count)"])
                var again = URLRequest(url: url)
                again.cachePolicy = .returnCacheDataElseLoad
                let second = await Fetch.run(again, on: session, style: .completionHandler)
                #expect(first.status == 200)
                #expect(second.text == expected, "\(first.text)")
            }
            _ = try tape.eject()
        }
    }
}
