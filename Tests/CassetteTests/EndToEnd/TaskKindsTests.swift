import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every kind of URLSession task, run four times — live against the loopback server, recorded
/// through Cassette, replayed offline, and replayed again with its decision made on the
/// `DecisionQueue` (as while other requests wait) — through the async API, a completion handler
/// and a delegate session, compared field by field: status, header fields, body bytes,
/// `response.url`, error domain and code, cookies in storage, what the server received, the
/// delegate's callbacks in order. Each case starts a server and four sessions: load-heavy, so the
/// cases take turns with the timing tests (`TimingIsolation`).
@Suite(.timingIsolated) struct TaskKindsTests {
    /// One row of the table.
    struct Scenario: Sendable, CustomStringConvertible {
        var name: String
        var kind: @Sendable (_ base: String, _ scratch: ScratchFolder) throws -> TaskKind
        var calls: [TaskCall] = TaskCall.allCases
        var redirects: EventDelegate.Redirects = .follow
        var configure: @Sendable (URLSessionConfiguration) -> Void = { _ in }
        /// Where FoundationNetworking's own HTTP code departs from URLSession's documented
        /// behaviour and Cassette keeps the documented one (see `Redirect` and the README).
        var linuxDeviation: Deviation?

        var description: String { name }
    }

    /// For these calls, live and recorded agree on status, URL and error only, and `check` says
    /// what differs and what Cassette did instead.
    struct Deviation: Sendable {
        var calls: Set<TaskCall> = Set(TaskCall.allCases)
        var check: @Sendable (_ live: Observed, _ recorded: Observed, _ sent: [LoopbackServer.Received]) -> Void
    }

    struct Case: Sendable, CustomStringConvertible {
        var scenario: Scenario
        var call: TaskCall
        var description: String { "\(scenario.name), \(call)" }
    }

    static func bytes(_ count: Int) -> Data { Data((0..<count).map { UInt8(($0 * 7) % 251) }) }

    static func request(_ url: String, method: String = "GET", body: Data? = nil, stream: Data? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        if let stream { request.httpBodyStream = InputStream(data: stream) }
        return request
    }

    static func redirect(_ status: Int, method: String) -> Scenario {
        let body = method == "GET" ? nil : Data("name=Ada&lang=swift".utf8)
        var scenario = Scenario(
            name: "\(status) \(method)",
            kind: { base, _ in
                .data(request(base + "/redirect-to?status_code=\(status)&url=/echo", method: method, body: body))
            })
        if method == "POST", status == 307 || status == 308 {
            // FoundationNetworking sends the next hop without its body; URLSession (RFC 9110) keeps it.
            scenario.linuxDeviation = Deviation { live, recorded, sent in
                #expect(live.text.contains(#""body":"""#))
                #expect(recorded.text.contains(#""body":"name=Ada&lang=swift""#))
                #expect(
                    sent.map { "\($0.method) \($0.target) \($0.body.count)" }
                        == ["POST /redirect-to?status_code=\(status)&url=/echo 19", "POST /echo 19"])
            }
        }
        return scenario
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "upload from Data", kind: { base, _ in .uploadData(request(base + "/echo", method: "POST"), bytes(150_000)) }),
        Scenario(
            name: "upload from a file",
            kind: { base, scratch in
                let file = scratch.file("upload.bin")
                try bytes(70_000).write(to: file)
                return .uploadFile(request(base + "/echo", method: "PUT"), file)
            }),
        Scenario(
            name: "streamed upload", kind: { base, _ in .uploadStream(request(base + "/echo", method: "POST"), bytes(100_000)) },
            calls: [.delegate]),
        Scenario(name: "httpBodyStream", kind: { base, _ in .data(request(base + "/echo", method: "PUT", stream: Data("streamed".utf8))) }),
        redirect(301, method: "GET"), redirect(302, method: "GET"), redirect(303, method: "GET"),
        redirect(307, method: "GET"), redirect(308, method: "GET"),
        redirect(301, method: "POST"), redirect(302, method: "POST"), redirect(303, method: "POST"),
        redirect(307, method: "POST"), redirect(308, method: "POST"),
        Scenario(name: "redirect chain", kind: { base, _ in .data(request(base + "/redirect/3")) }),
        Scenario(name: "too many redirects", kind: { base, _ in .data(request(base + "/redirect/21")) }),
        Scenario(
            name: "redirect refused by the delegate",
            kind: { base, _ in
                .data(request(base + "/redirect-to?status_code=302&url=/echo"))
            }, redirects: .refuse,
            linuxDeviation: Deviation(calls: [.completionHandler]) { live, recorded, _ in
                // FoundationNetworking hands a completion handler the refused redirect without its body.
                #expect(live.status == 302 && live.body.isEmpty)
                #expect(recorded.text == "redirecting with 302")
            }),
        Scenario(
            name: "redirect changed by the delegate",
            kind: { base, _ in
                .data(request(base + "/redirect-to?status_code=302&url=/echo"))
            },
            redirects: .rewrite { proposed in
                var changed = proposed
                changed.url = URL(string: proposed.url!.absoluteString + "?changed=1")
                changed.setValue("yes", forHTTPHeaderField: "X-Changed")
                return changed
            }),
        Scenario(
            name: "cookie set on a 302",
            kind: { base, _ in
                .data(request(base + "/redirect-to?status_code=302&url=/echo&cookie=hop%3D1"))
            },
            linuxDeviation: Deviation(calls: [.completionHandler, .delegate]) { live, recorded, sent in
                // With a delegate to ask, FoundationNetworking sends the next hop without the cookie the
                // redirect set; URLSession sends it, and so does Cassette.
                #expect(live.cookies == ["hop=1"] && recorded.cookies == ["hop=1"])
                #expect(sent.last?.headers["cookie"] == "hop=1")
            }),
        Scenario(
            name: "cookie set on a 302, httpShouldSetCookies off",
            kind: { base, _ in
                .data(request(base + "/redirect-to?status_code=302&url=/echo&cookie=hop%3D1"))
            }, configure: { $0.httpShouldSetCookies = false }),
        Scenario(
            name: "cookie set on a 302, accept policy never",
            kind: { base, _ in
                .data(request(base + "/redirect-to?status_code=302&url=/echo&cookie=hop%3D1"))
            }, configure: { $0.httpCookieAcceptPolicy = .never }),
        Scenario(
            name: "additional headers",
            kind: { base, _ in
                var own = request(base + "/echo")
                own.setValue("text/own", forHTTPHeaderField: "Accept")
                return .data(own)
            }, configure: { $0.httpAdditionalHeaders = ["X-Extra": "extra", "Accept": "text/additional"] }),
        // A second to time out in, so that on a loaded machine the request surely reaches the
        // server first (its arrival is compared too); scaled under sanitizers (TimingIsolation).
        Scenario(
            name: "request timeout", kind: { base, _ in .data(request(base + "/delay/\(Int(3000 * TimingIsolation.scale))")) },
            configure: { $0.timeoutIntervalForRequest = 1 * TimingIsolation.scale }),
    ]

    static let cases: [Case] = scenarios.flatMap { scenario in scenario.calls.map { Case(scenario: scenario, call: $0) } }

    /// What the server received while `work` ran.
    static func received(
        by server: LoopbackServer, during work: () async throws -> Observed
    ) async throws -> (Observed, [LoopbackServer.Received]) {
        let before = server.received.count
        let observed = try await work()
        return (observed, Array(server.received.dropFirst(before)))
    }

    @Test(arguments: cases)
    func liveRecordedAndReplayedAgree(_ testCase: Case) async throws {
        let scenario = testCase.scenario
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("task-kinds.json")
            func configuration(_ tape: Tape?) throws -> URLSessionConfiguration {
                let configuration = URLSessionConfiguration.ephemeral
                scenario.configure(configuration)
                tape?.configure(configuration)
                return configuration
            }

            let (live, liveSent) = try await Self.received(by: server) {
                await TaskRun.observe(
                    try scenario.kind(server.baseURL, scratch.folder), call: testCase.call, configuration: try configuration(nil),
                    redirects: scenario.redirects)
            }
            // Redaction off: this compares every byte (RedactionTests covers what redaction changes).
            let recording = try Tape(file: file, mode: .once, options: .init(redaction: .none), environment: .tests)
            let (recorded, recordedSent) = try await Self.received(by: server) {
                await TaskRun.observe(
                    try scenario.kind(server.baseURL, scratch.folder), call: testCase.call, configuration: try configuration(recording),
                    redirects: scenario.redirects)
            }
            let recordReport = try recording.eject()
            #expect(recordReport.recorded == recordedSent.count, "one interaction per request sent, each redirect hop included")

            let replaying = try Tape(file: file, mode: .none, options: .init(redaction: .none), environment: .tests)
            let (replayed, replayedSent) = try await Self.received(by: server) {
                await TaskRun.observe(
                    try scenario.kind(server.baseURL, scratch.folder), call: testCase.call, configuration: try configuration(replaying),
                    redirects: scenario.redirects)
            }
            let replayReport = try replaying.eject()

            // Replayed again with the caller's request decided on the DecisionQueue, as it is while
            // other requests wait for FoundationNetworking's shared queue (one is counted meanwhile).
            let decidedAside = Locked<[Bool]>([])
            let aside = try Tape(
                file: file, mode: .none,
                options: .init(
                    redaction: .none,
                    beforeReplay: { interaction in
                        decidedAside.withLock { $0.append(DecisionQueue.shared.isCurrent) }
                        return interaction
                    }), environment: .tests)
            DecisionQueue.shared.protocolMade()
            let (replayedAside, asideSent) = try await Self.received(by: server) {
                defer { DecisionQueue.shared.protocolStarted() }
                return await TaskRun.observe(
                    try scenario.kind(server.baseURL, scratch.folder), call: testCase.call, configuration: try configuration(aside),
                    redirects: scenario.redirects)
            }
            let asideReport = try aside.eject()

            #expect(replayedSent.isEmpty && asideSent.isEmpty, "replay must not reach the server")
            #expect(replayReport.unmatched.isEmpty && asideReport.unmatched.isEmpty)
            #expect(replayed.sameOutcome(as: recorded), "recorded: \(recorded)\nreplayed: \(replayed)")
            #expect(decidedAside.withLock { $0.first } == true, "the caller's request was decided inline: \(decidedAside.withLock { $0 })")
            #expect(replayedAside.sameOutcome(as: recorded), "recorded: \(recorded)\nreplayed, decided aside: \(replayedAside)")
            #if canImport(FoundationNetworking)
            let deviation = scenario.linuxDeviation
            #else
            let deviation: Deviation? = nil
            #endif
            if let deviation, deviation.calls.contains(testCase.call) {
                #expect(live.status == recorded.status && live.url == recorded.url && live.errorCode == recorded.errorCode)
                deviation.check(live, recorded, recordedSent)
            } else {
                #expect(recorded.sameOutcome(as: live), "live: \(live)\nrecorded: \(recorded)")
                #expect(recordedSent == liveSent, "the server must receive the same requests, bodies included")
            }
        }
    }
}
