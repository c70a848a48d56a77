import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A replayed head is built once and handed to every task that gets the same one; a head that
/// differs in request URL, recorded URL, status or any header field is its own.
@Suite struct ResponseHeadsTests {
    static let url = URL(string: "https://api.example/feed?page=1")!

    static let json: Interaction.Headers = ["Content-Type": "application/json"]

    static func response(status: Int = 200, url: String? = nil, headers: Interaction.Headers = json) -> Interaction.Response {
        Interaction.Response(status: status, url: url, headers: headers, body: .init(text: "{}"))
    }

    @Test func theSameHeadIsBuiltOnce() throws {
        let heads = ResponseHeads()
        let first = try #require(heads.head(for: Self.response(), requestURL: Self.url))
        let again = try #require(heads.head(for: Self.response(), requestURL: Self.url))
        #expect(first === again)
        #expect(first.statusCode == 200 && first.url == Self.url)
        #expect(first.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(heads.count == 1)
    }

    /// A request URL counts as answered once a head was built for it, and no longer once the
    /// kept heads started again at their capacity (``DecisionQueue`` asks, to decide it inline).
    @Test func aURLIsAnsweredWhileAHeadForItIsKept() throws {
        let heads = ResponseHeads()
        #expect(!heads.answered(Self.url))
        _ = try #require(heads.head(for: Self.response(), requestURL: Self.url))
        #expect(heads.answered(Self.url))
        #expect(!heads.answered(try #require(URL(string: "https://api.example/feed?page=2"))))
        for number in 0..<ResponseHeads.capacity {
            let other = try #require(URL(string: "https://api.example/other/\(number)"))
            _ = try #require(heads.head(for: Self.response(), requestURL: other))
        }
        #expect(!heads.answered(Self.url), "the heads started again, so this URL's head must be built again")
        #expect(heads.answered(try #require(URL(string: "https://api.example/other/255"))))
    }

    @Test func anyDifferenceIsItsOwnHead() throws {
        let heads = ResponseHeads()
        let base = try #require(heads.head(for: Self.response(), requestURL: Self.url))
        let other = URL(string: "https://api.example/feed?page=2")!
        let variants = [
            try #require(heads.head(for: Self.response(), requestURL: other)),
            try #require(heads.head(for: Self.response(status: 503), requestURL: Self.url)),
            try #require(heads.head(for: Self.response(url: "https://cdn.example/feed"), requestURL: Self.url)),
            try #require(heads.head(for: Self.response(headers: ["Content-Type": "text/plain"]), requestURL: Self.url)),
            try #require(
                heads.head(
                    for: Self.response(headers: ["Content-Type": "application/json", "Date": "Sat, 28 Nov 2026 10:00:00 GMT"]),
                    requestURL: Self.url)),
        ]
        #expect(variants.allSatisfy { $0 !== base })
        #expect(variants.map(\.url) == [other, Self.url, URL(string: "https://cdn.example/feed"), Self.url, Self.url])
        #expect(variants.map(\.statusCode) == [200, 503, 200, 200, 200])
        #expect(variants[3].value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(variants[4].value(forHTTPHeaderField: "Date") == "Sat, 28 Nov 2026 10:00:00 GMT")
        #expect(heads.count == 6)
    }

    @Test func atCapacityTheCacheStartsAgain() throws {
        let heads = ResponseHeads()
        for page in 0..<ResponseHeads.capacity {
            _ = heads.head(for: Self.response(), requestURL: URL(string: "https://api.example/feed?page=\(page)")!)
        }
        #expect(heads.count == ResponseHeads.capacity)
        let next = try #require(heads.head(for: Self.response(), requestURL: URL(string: "https://api.example/next")!))
        #expect(heads.count == 1 && next.url?.absoluteString == "https://api.example/next")
    }

    /// Through a tape's session: two replays of one recording get one response object, with the
    /// recorded fields; a second recording of the same request with other fields gets its own.
    @Test func replaysOfOneRecordingShareTheirHead() async throws {
        try await withScratchTape { scratch in
            try Data(
                """
                { "version": 1, "interactions": [
                  { "request": { "method": "GET", "url": "https://api.example/feed" },
                    "response": { "status": 200, "headers": { "ETag": "\\"1\\"" }, "body": { "text": "one" } } },
                  { "request": { "method": "GET", "url": "https://api.example/feed" },
                    "response": { "status": 200, "headers": { "ETag": "\\"2\\"" }, "body": { "text": "two" } } }
                ] }
                """.utf8
            ).write(to: scratch.file)
            let tape = try Tape(file: scratch.file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: [:])
            let feed = URLRequest(url: URL(string: "https://api.example/feed")!)
            var responses: [HTTPURLResponse] = []
            for _ in 0..<3 {
                let (_, response) = try await tape.session.data(for: feed)
                responses.append(try #require(response as? HTTPURLResponse))
            }
            #expect(responses.map { $0.value(forHTTPHeaderField: "ETag") } == [#""1""#, #""2""#, #""2""#])
            #expect(responses[0] !== responses[1] && responses[1] === responses[2])
            // A shared head reads the same through every API.
            for style in FetchStyle.allCases {
                let session = Fetch.session(of: tape, style: style)
                let fetched = await Fetch.run(feed, on: session, style: style)
                #expect(
                    fetched.status == 200 && fetched.headers.first { $0.key.lowercased() == "etag" }?.value == #""2""#
                        && fetched.text == "two", "\(style)")
            }
            _ = try tape.eject()
        }
    }

    /// Live, recorded, then replayed offline three times over (from the second time on, each
    /// replay's head is the one built before): every replay is field by field what the live
    /// caller saw, through each API.
    @Test(arguments: FetchStyle.allCases)
    func repeatedReplaysAreWhatTheLiveCallerSaw(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let requests = ["/status/418", "/gzip", "/cache/max-age/60"].map { URLRequest(url: URL(string: scratch.server.baseURL + $0)!) }
            let recording = try Tape(file: scratch.file, mode: .once, options: .init(redaction: .none), environment: .tests)
            let liveSession = Fetch.session(of: recording, style: style)
            var live: [Fetched] = []
            for request in requests { live.append(await Fetch.run(request, on: liveSession, style: style)) }
            #expect(try recording.eject().recorded == requests.count)
            #expect(live.map(\.status) == [418, 200, 200])
            scratch.server.stop()

            let replaying = try Tape(file: scratch.file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
            let replaySession = Fetch.session(of: replaying, style: style)
            for round in 1...3 {
                for (index, request) in requests.enumerated() {
                    let replayed = await Fetch.run(request, on: replaySession, style: style)
                    #expect(
                        replayed.sameOutcome(as: live[index]),
                        "round \(round), \(request.url!.path): live \(live[index]), replayed \(replayed)")
                }
            }
            #expect(replaying.router.access.heads.count == requests.count)
            #expect(try replaying.eject().replayed == 3 * requests.count)
        }
    }
}
